"""mutual: two helpers that call each other (and end). numba cannot reload such compiled code from its cache."""

from numba import njit

from autodup.bots import ROUND, end_turn, policy, reroll

NAME = "mutual"
DESCRIPTION = "Rerolls on even rounds, decided by two mutually recursive helpers."
PARAMETERS = {}


@njit(_nrt=False)
def is_even(n):
    if n == 0:
        return True
    return is_odd(n - 1)


@njit(_nrt=False)
def is_odd(n):
    if n == 0:
        return False
    return is_even(n - 1)


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    if is_even(me[ROUND]) and me[ROUND] > 100:
        return reroll()
    return end_turn()
