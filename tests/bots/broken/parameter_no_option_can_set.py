"""A bot whose parameter's name --bot-param cannot spell: BOT.NAME=VALUE splits at its '='."""

from autodup.bots import end_turn, policy

NAME = "parameter_no_option_can_set"
DESCRIPTION = "Its parameter is named a=b."
PARAMETERS = {"a=b": 1.0}


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    return end_turn()
