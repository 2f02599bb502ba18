"""A bot whose policy applies an operation to values of types it does not take: numba refuses it at load time."""

from autodup.bots import end_turn, policy

NAME = "adds_a_dict"
DESCRIPTION = "Adds a dictionary to its answer."


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    return end_turn() + {"a": 1}
