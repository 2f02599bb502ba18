"""A bot whose policy does not type-check: numba refuses it at load time."""

from autodup.bots import policy

NAME = "does_not_compile"
DESCRIPTION = "Returns text."


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    return "buy everything"
