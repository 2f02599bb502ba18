"""undeclared_parameter: reads params[1] but declares one parameter."""

from autodup.bots import GOLD, end_turn, policy, reroll

NAME = "undeclared_parameter"
DESCRIPTION = "Reads a parameter it does not declare."
PARAMETERS = {"roll_above": 50.0}


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    if me[GOLD] > params[0] + params[1]:
        return reroll()
    return end_turn()
