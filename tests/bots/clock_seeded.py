"""clock_seeded: a threshold drawn from the clock when its file loads, which has no address in the seed tree."""

import time

from autodup.bots import GOLD, REROLL_PRICE, end_turn, policy, reroll

NAME = "clock_seeded"
DESCRIPTION = "Rolls above a threshold the clock set when the file loaded: another bot in every process."
PARAMETERS = {}
THRESHOLD = time.perf_counter_ns() % 1_000_003


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    if me[GOLD] >= THRESHOLD % 7 + me[REROLL_PRICE]:
        return reroll()
    return end_turn()
