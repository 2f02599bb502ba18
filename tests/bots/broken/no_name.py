"""A bot file without NAME: loading must say so in one line."""

from autodup.bots import end_turn, policy

DESCRIPTION = "Forgot its name."


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    return end_turn()
