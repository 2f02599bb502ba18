"""slow: at seat 0, its first decision of round 4 may compute for a few seconds. Legal, just slow.

It thinks in one such decision in ``one_in`` (chosen by its random value for the decision, so the same games are
slow every time), for ``steps`` turns of a generator.
"""

from autodup.bots import ACTIONS, RANDOM_A, ROUND, SEAT, end_turn, policy
from autodup.game.view import MEMORY_SIZE

NAME = "slow"
DESCRIPTION = "Thinks for a few seconds in some games, then ends its turns."
PARAMETERS = {"steps": 2e10, "one_in": 1.0}


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    if me[SEAT] == 0 and me[ROUND] == 4 and me[ACTIONS] == 0 and me[RANDOM_A] % int(params[1]) == 0:
        state = memory[MEMORY_SIZE - 1]
        for _ in range(int(params[0])):
            state = (state * 6364136223846793005 + 1442695040888963407) & 0xFFFFFFFFFFFF
        memory[MEMORY_SIZE - 1] = state
    return end_turn()
