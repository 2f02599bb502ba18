"""first_slot: buys shop slot 0 whenever it can, rerolls on a quarter of its random numbers, else ends its turn.

tests/agents/first_slot.py plays the same from outside the table (a Python agent): the two must give the same games.
"""

from autodup.bots import BUYABLE, RANDOM_A, buy, can_reroll, end_turn, policy, reroll

NAME = "first_slot"
DESCRIPTION = "Buys slot 0 when it can; rerolls when its random number says so."
PARAMETERS = {}


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    if me[BUYABLE] & 1:
        return buy(0)
    if me[RANDOM_A] % 4 == 0 and can_reroll(me):
        return reroll()
    return end_turn()
