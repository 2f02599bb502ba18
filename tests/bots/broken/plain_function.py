"""A bot whose decide is a plain Python function: it cannot run inside the table."""

NAME = "plain_function"
DESCRIPTION = "Forgot the @policy decorator."


def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    return 1
