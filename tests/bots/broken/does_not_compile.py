"""A bot whose policy does not type-check: numba refuses it at load time."""

from autodup.bots import buy, policy

NAME = "does_not_compile"
DESCRIPTION = "Reads a field arrays do not have."


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    return buy(me.gold)
