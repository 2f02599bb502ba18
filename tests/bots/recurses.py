"""recurses: a helper that recurses forever overflows the stack (SIGSEGV). The crash must be contained.

With ``limit`` >= 0 the recursion stops at that depth: a recursive helper that ends is a legal bot.
"""

from numba import njit

from autodup.bots import GOLD, ROUND, end_turn, policy

NAME = "recurses"
DESCRIPTION = "From round 2 on, calls a helper that calls itself (forever unless limit >= 0)."
PARAMETERS = {"limit": -1.0}


@njit(_nrt=False)
def deeper(depth, limit, memory):
    if depth == limit:
        return 0
    memory[depth % 32] += 1
    return deeper(depth + 1, limit, memory) + memory[(depth + 7) % 32]


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    if me[ROUND] >= 2 and me[GOLD] >= 0:
        memory[0] = deeper(0, int(params[0]), memory) % 1000
    return end_turn()
