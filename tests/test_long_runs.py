"""Long statistical runs at TFT scale (marked slow: ``python -m pytest -m slow``).

A Set-4 pool shared by draws that remove and return copies, as in a game,
drawn hierarchically for a million slots per engine (300,000 for keyed): the per-tier and
per-champion frequencies of every engine must match the exact conditional
probabilities at the moment of each draw, and the plain control.
"""

import numpy as np
import pytest
from numba import njit

from autodup.engine.kernels import (
    ENGINE_HAYSTACK,
    ENGINE_KEYED,
    ENGINE_PLAIN,
    ENGINE_STREAM,
    engine_draw_hierarchical,
    engine_state,
)
from autodup.engine.ziggurat import random_exponential

from .stats_helpers import P_FLOOR, agreement_probability, goodness_of_fit

pytestmark = pytest.mark.slow

CHAMPIONS = np.array([13, 13, 13, 11, 8])
COPIES = np.array([29.0, 22.0, 18.0, 12.0, 10.0])
ODDS = np.array([19.0, 30.0, 35.0, 15.0, 1.0])


@njit
def _naive_race(seed, positions, occurrences, weights, offset):
    """argmin e_i / w_i; the winner takes a fresh value, the losers are NOT re-normalized (wrong)."""
    best, best_value = -1, np.inf
    for i in range(weights.shape[0]):
        if weights[i] > 0 and positions[offset + i] / weights[i] < best_value:
            best, best_value = i, positions[offset + i] / weights[i]
    occurrences[offset + best] += 1
    positions[offset + best] = random_exponential(seed, np.uint64(offset + best), np.uint64(occurrences[offset + best]))
    return best


@njit
def _simulate(engine, seed, n_draws, copies, tier_of, tier_start, odds, held, naive=False):
    """Draw ``n_draws`` shop slots from a changing pool.

    Returns per-champion counts, the sum over draws of each champion's exact
    conditional probability given the pool at that moment, and the sum of
    ``p (1 - p)``. ``count - expected`` is a martingale, so its z-score is
    approximately standard normal for an exact engine.
    """
    n, n_tiers = copies.shape[0], odds.shape[0]
    positions = np.zeros(n + n_tiers)  # the naive race's normalized positions
    occurrences = np.zeros(n + n_tiers, dtype=np.int64)
    for i in range(n + n_tiers):
        positions[i] = random_exponential(seed, np.uint64(i), np.uint64(0))
    counter, needles, needle_count = engine_state(n + n_tiers)
    counts = np.zeros(n)
    expected = np.zeros(n)
    variance = np.zeros(n)
    tier_weights = odds.copy()
    tier_totals = np.zeros(n_tiers)
    for d in range(n_draws):
        for u in range(n_tiers):
            tier_totals[u] = copies[tier_start[u]:tier_start[u + 1]].sum()
            tier_weights[u] = odds[u] if tier_totals[u] > 0 else 0.0
        odds_total = tier_weights.sum()
        for i in range(n):
            u = tier_of[i]
            if tier_totals[u] > 0:
                p = tier_weights[u] / odds_total * copies[i] / tier_totals[u]
                expected[i] += p
                variance[i] += p * (1.0 - p)
        if naive:
            t = _naive_race(seed, positions, occurrences, tier_weights, n)
            j = tier_start[t] + _naive_race(seed, positions, occurrences, copies[tier_start[t]:tier_start[t + 1]],
                                            tier_start[t])
        else:
            j = engine_draw_hierarchical(engine, seed, counter, needles, needle_count, tier_weights, copies,
                                         tier_start)
        counts[j] += 1.0
        copies[j] -= 1.0
        slot = d % held.shape[0]
        back = held[slot]
        if back >= 0:
            copies[back] += 1.0
        held[slot] = j
    return counts, expected, variance


def _pool():
    tier_of = np.repeat(np.arange(5), CHAMPIONS).astype(np.int64)
    tier_start = np.concatenate([[0], np.cumsum(CHAMPIONS)]).astype(np.int64)
    return COPIES[tier_of].copy(), tier_of, tier_start


@pytest.mark.parametrize("engine", [ENGINE_PLAIN, ENGINE_STREAM, ENGINE_HAYSTACK, ENGINE_KEYED],
                         ids=["plain", "stream", "haystack", "keyed"])
def test_a_million_pool_draws_follow_the_exact_conditional_law(engine):
    copies, tier_of, tier_start = _pool()
    n = 1_000_000 if engine != ENGINE_KEYED else 300_000
    counts, expected, variance = _simulate(engine, np.uint64(2026), n, copies, tier_of, tier_start, ODDS,
                                           np.full(40, -1))
    z = (counts - expected) / np.sqrt(variance)
    assert np.abs(z).max() < 5, (np.abs(z).max(), np.argmax(np.abs(z)))
    # Per tier as well (the tier race).
    tier_of_champion = np.repeat(np.arange(5), CHAMPIONS)
    tier_z = [(counts[tier_of_champion == t].sum() - expected[tier_of_champion == t].sum())
              / np.sqrt(variance[tier_of_champion == t].sum()) for t in range(5)]
    assert np.abs(tier_z).max() < 5


def test_the_long_run_check_catches_a_wrong_dealer():
    """The same statistic, for the article's race without re-normalization of the losers."""
    copies, tier_of, tier_start = _pool()
    counts, expected, variance = _simulate(ENGINE_HAYSTACK, np.uint64(7), 300_000, copies, tier_of, tier_start,
                                           ODDS, np.full(40, -1), True)
    assert np.abs((counts - expected) / np.sqrt(variance)).max() > 5


def test_many_seats_first_tier_draw_matches_odds_and_couples_across_levels():
    """200,000 seat seeds: tier frequencies at level 7 exact; agreement with level 8 is J_P."""
    from autodup import Haystack

    level7, level8 = [19, 30, 35, 15, 1], [16, 20, 35, 25, 4]
    n = 200_000
    a = np.array([Haystack(s).draw(level7) for s in range(n)])
    b = np.array([Haystack(s).draw(level8) for s in range(n)])
    assert goodness_of_fit(np.bincount(a, minlength=5), level7) > P_FLOOR
    expected = agreement_probability(level7, level8)
    assert abs(np.mean(a == b) - expected) < 5 * np.sqrt(expected * (1 - expected) / n)
