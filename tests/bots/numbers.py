"""numbers: returns plain numbers (7, then its gold) instead of answers: each is a bad answer, never buy(0)."""

from autodup.bots import GOLD, ROUND, policy

NAME = "numbers"
DESCRIPTION = "Returns integers that are not answers."
PARAMETERS = {}


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    if me[ROUND] % 2 == 0:
        return 7
    return me[GOLD] + 2
