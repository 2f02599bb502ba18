"""A helper that only calls itself: its type cannot be inferred, so the bot cannot be compiled."""

from autodup.bots import end_turn, helper, policy

NAME = "recurses_without_end"
DESCRIPTION = "Calls a helper that has no return but a call to itself."
PARAMETERS = {}


@helper
def deeper(depth):
    return deeper(depth + 1)


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    if deeper(0) > 0:
        return end_turn()
    return end_turn()
