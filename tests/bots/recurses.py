"""recurses: a helper that recurses forever overflows the stack (SIGSEGV). The crash must be contained."""

from numba import njit

from autodup.bots import GOLD, ROUND, end_turn, policy


NAME = "recurses"
DESCRIPTION = "From round 2 on, calls a helper that never stops calling itself."
PARAMETERS = {}


@njit(_nrt=False)
def deeper(depth, memory):
    if depth < 0:  # never true: a base case numba needs to type the recursion
        return 0
    memory[depth % 32] += 1
    return deeper(depth + 1, memory) + memory[(depth + 7) % 32]


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    if me[ROUND] >= 2 and me[GOLD] >= 0:
        memory[0] = deeper(0, memory)
    return end_turn()
