"""A bot with a parameter that is not a number."""

from autodup.bots import end_turn, policy

NAME = "bad_parameters"
DESCRIPTION = "Its parameter is text."
PARAMETERS = {"mood": "cheerful"}


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    return end_turn()
