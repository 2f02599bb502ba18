"""plain_helper: calls a function that is not decorated with @helper."""

from autodup.bots import GOLD, end_turn, policy, reroll

NAME = "plain_helper"
DESCRIPTION = "Calls an undecorated function."
PARAMETERS = {}


def rich(me):
    return me[GOLD] > 50


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    if rich(me):
        return reroll()
    return end_turn()
