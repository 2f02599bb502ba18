"""hangs: from round 3 on, its decide never returns (a loop that never ends). The deadline must stop it."""

from autodup.bots import ROUND, end_turn, policy
from autodup.game.view import MEMORY_SIZE

NAME = "hangs"
DESCRIPTION = "Never returns from its first decision of round 3."
PARAMETERS = {}


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    if me[ROUND] >= 3:
        # Writes into memory on every turn of the loop, so the compiler cannot remove it.
        while memory[MEMORY_SIZE - 1] >= 0:
            memory[MEMORY_SIZE - 1] = (memory[MEMORY_SIZE - 1] + 1) % 1000
    return end_turn()
