"""unstable: rolls by numba's global random state, which has no address in the seed tree."""

import numpy as np

from autodup.bots import GOLD, end_turn, policy, reroll

NAME = "unstable"
DESCRIPTION = "Rolls when numba's global generator says so: not reproducible."
PARAMETERS = {}


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    if me[GOLD] >= 2 and np.random.random() < 0.5:
        return reroll()
    return end_turn()
