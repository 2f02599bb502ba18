"""A bot whose description spans two lines."""

from autodup.bots import end_turn, policy

NAME = "two_lines"
DESCRIPTION = "First line.\nSecond line."


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    return end_turn()
