"""returns_float: returns a number, not an answer."""

from autodup.bots import GOLD, policy

NAME = "returns_float"
DESCRIPTION = "Returns a float."
PARAMETERS = {}


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    return me[GOLD] * 0.5
