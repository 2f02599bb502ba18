"""allocates_list: builds a Python list in decide."""

from autodup.bots import buy, end_turn, policy

NAME = "allocates_list"
DESCRIPTION = "Allocates a list in decide."
PARAMETERS = {}


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    wanted = [0, 1]
    if shop[wanted[0]] >= 0:
        return buy(0)
    return end_turn()
