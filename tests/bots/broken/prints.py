"""prints: prints its gold at every decision."""

from autodup.bots import GOLD, end_turn, policy

NAME = "prints"
DESCRIPTION = "Prints."
PARAMETERS = {}


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    print(me[GOLD])
    return end_turn()
