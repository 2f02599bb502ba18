"""allocates_array: builds a numpy array in decide."""

import numpy as np

from autodup.bots import buy, end_turn, policy

NAME = "allocates_array"
DESCRIPTION = "Allocates an array in decide."
PARAMETERS = {}


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    scores = np.zeros(shop.shape[0])
    if scores.sum() > 0:
        return buy(0)
    return end_turn()
