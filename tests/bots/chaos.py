"""chaos: random actions, legal or not, with arguments out of range. A deliberately bad bot for the checks."""

from autodup.bots import SHOP_SIZE, UNITS, end_turn, policy, random_below
from autodup.game.actions import encode_decision

NAME = "chaos"
DESCRIPTION = "Random actions, legal or not (arguments stray out of range on purpose); ends a turn 1 time in 8."
PARAMETERS = {}


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    action = random_below(me, 8)
    if action == 7:
        return end_turn()
    if action == 1:  # buy: a slot, sometimes -1 or one past the end
        return encode_decision(action, random_below(me, me[SHOP_SIZE] + 2) - 1)
    if action == 2:  # sell: a unit, sometimes one past the last
        return encode_decision(action, random_below(me, me[UNITS] + 1))
    if action == 6:  # loaded roll: a trait, sometimes -1 or out of range
        return encode_decision(action, random_below(me, trait_breakpoints.shape[0] + 2) - 1)
    return encode_decision(action, 0)
