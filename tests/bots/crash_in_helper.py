"""crash_in_helper: passes an authoring helper a champion past the end of the costs after a few rounds. The
helper's bounds are checked, as the policy's are: the bot check must report its errors."""

from autodup.bots import ROUND, buy, end_turn, policy, unit_value

NAME = "crash_in_helper"
DESCRIPTION = "Asks unit_value for a champion one past the last from round 5 on."
PARAMETERS = {}


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    if me[ROUND] >= 5 and unit_value(champion_cost.shape[0], 1, champion_cost) > 0:
        return buy(0)
    return end_turn()
