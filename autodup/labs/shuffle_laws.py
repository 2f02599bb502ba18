"""Exact laws of a uniform permutation's statistics, and the lab's tests against them."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from .shuffle_kernels import (
    ALPHA,
    BLOCK_BYTES,
    DEFAULT_CARDS,
    DEFAULT_RUNS,
    DEFAULT_SEED,
    DEFAULT_SHUFFLES,
    MARKED_DEALS,
    MARKERS,
    MINIMUM_EXPECTED,
    REJECTION_LEVEL,
    RUNS_PER_BLOCK,
    method_codes,
    parse_method,
    play_block,
    replicate_seed,
)

__all__ = ["succession_counts", "eulerian_numbers", "uniform_laws", "riffle_law", "riffle_distance",
           "duplicate_values", "expected_duplicates", "merged_chi_square", "position_p_values", "Experiment",
           "marker_cards", "run_experiment", "count_decks", "Verdict", "judge", "neighbour_law"]

# --------------------------------------------------------------------------


@lru_cache(maxsize=8)
def succession_counts(n: int) -> tuple:
    """Permutations of ``n`` cards with ``k`` successions, ``k = 0 .. n-1`` (exact integers; they sum to n!).

    ``C(n-1, k) a(n-1-k)``, with ``a(0) = a(1) = 1``, ``a(m) = m a(m-1) + (m-1) a(m-2)`` (OEIS A000255).
    """
    a = [1, 1]
    for m in range(2, n):
        a.append(m * a[m - 1] + (m - 1) * a[m - 2])
    return tuple(math.comb(n - 1, k) * a[n - 1 - k] for k in range(n))


@lru_cache(maxsize=8)
def eulerian_numbers(n: int) -> tuple:
    """Permutations of ``n`` cards with ``r`` rising sequences, at index ``r`` (index 0 is 0; exact integers).

    ``A(n, d)`` permutations have ``d`` descents; ``A(n, d) = (d+1) A(n-1, d) + (n-d) A(n-1, d-1)``.
    """
    row = [1]  # n = 1: one permutation, no descent
    for size in range(2, n + 1):
        row = [(d + 1) * (row[d] if d < len(row) else 0) + (size - d) * (row[d - 1] if d >= 1 else 0)
               for d in range(size)]
    return (0, *row)


@lru_cache(maxsize=8)
def uniform_laws(n: int) -> tuple:
    """float64 arrays of a uniform permutation's laws: successions (shape (n,), index k) and rising sequences
    (shape (n + 1,), index r)."""
    factorial = math.factorial(n)
    return (np.array([float(Fraction(c, factorial)) for c in succession_counts(n)]),
            np.array([float(Fraction(c, factorial)) for c in eulerian_numbers(n)]))


def riffle_law(n: int, riffles: int) -> list:
    """P(r rising sequences) after ``riffles`` GSR riffles of ``n`` cards, as exact :class:`Fraction` s (index r).

    Bayer & Diaconis (1992): each permutation with ``r`` rising sequences
    has probability ``C(2**k + n - r, n) / 2**(k n)``.
    """
    shuffles, eulerian = 2**riffles, eulerian_numbers(n)
    denominator = shuffles**n
    return [Fraction(eulerian[r] * math.comb(shuffles + n - r, n), denominator) for r in range(n + 1)]


def riffle_distance(n: int, riffles: int) -> float:
    """Total variation distance between ``riffles`` GSR riffles of ``n`` cards and a uniform permutation (exact)."""
    shuffles, eulerian, factorial = 2**riffles, eulerian_numbers(n), math.factorial(n)
    denominator = shuffles**n
    total = sum(eulerian[r] * abs(math.comb(shuffles + n - r, n) * factorial - denominator) for r in range(1, n + 1))
    return float(Fraction(total, 2 * denominator * factorial))


def duplicate_values(cards: int, shuffles: int) -> tuple:
    """The entries a run's matrix counts as duplicates: the integers nearest ``shuffles / cards`` (2 and 3 for 100
    shuffles of 40 cards; one integer when the ratio is an integer)."""
    mean = shuffles / cards
    return math.floor(mean), math.ceil(mean)


def expected_duplicates(cards: int, shuffles: int) -> float:
    """The expected number of duplicates of any shuffle whose every card is uniform over the positions:
    ``n**2`` times P(a Binomial(shuffles, 1/n) is a duplicate value)."""
    from scipy import stats

    low, high = duplicate_values(cards, shuffles)
    values = np.arange(low, high + 1)
    return float(cards**2 * stats.binom.pmf(values, shuffles, 1.0 / cards).sum())


# --------------------------------------------------------------------------
# tests
# --------------------------------------------------------------------------


def merged_chi_square(observed, probabilities) -> float:
    """Chi-square p-value of ``observed`` counts against ``probabilities``: 0 when a category of probability 0
    was seen; else the possible categories, adjacent ones merged (left to right) until each expects at least
    :data:`MINIMUM_EXPECTED`. 1.0 when a single category is left."""
    from scipy import stats

    observed = np.asarray(observed, dtype=np.float64)
    probabilities = np.asarray(probabilities, dtype=np.float64)
    if (observed[probabilities == 0] > 0).any():  # seen where the law puts nothing: as far from it as can be
        return 0.0
    observed, expected = observed[probabilities > 0], probabilities[probabilities > 0] * observed.sum()
    groups_observed, groups_expected = [], []
    pending_observed = pending_expected = 0.0
    for seen, wanted in zip(observed, expected):
        pending_observed += seen
        pending_expected += wanted
        if pending_expected >= MINIMUM_EXPECTED:
            groups_observed.append(pending_observed)
            groups_expected.append(pending_expected)
            pending_observed = pending_expected = 0.0
    if groups_expected:
        groups_observed[-1] += pending_observed
        groups_expected[-1] += pending_expected
    if len(groups_expected) < 2:
        return 1.0
    return float(stats.chisquare(groups_observed, groups_expected, sum_check=False).pvalue)


def position_p_values(matrix: np.ndarray) -> np.ndarray:
    """The 2020 article's 2n tests: float64, shape (2n,): each card's positions (columns of ``matrix[position,
    card]``), then each position's cards (rows), against uniform."""
    from scipy import stats

    return np.concatenate([stats.chisquare(matrix, axis=0).pvalue, stats.chisquare(matrix, axis=1).pvalue])


@dataclass
class Experiment:
    """What one replicate of the experiment saw for one method (integer counts over its deals)."""

    cards: int
    runs: int
    shuffles: int
    duplicates: np.ndarray    # int64 (runs,): each run's number of duplicates
    matrix: np.ndarray        # int64 (n, n): deals with card j at position i, [i, j]
    successions: np.ndarray   # int64 (n,): deals with k successions
    rising: np.ndarray        # int64 (n + 1,): deals with r rising sequences
    neighbours: np.ndarray    # int64 (2n - 1,): pairs (c, c+1) with card c+1 at position(c) + d, [d + n - 1]
    marked: np.ndarray        # int64 (marked deals, MARKERS): the marker cards' positions
    markers: np.ndarray       # int64 (MARKERS,): the marker cards


def marker_cards(cards: int) -> np.ndarray:
    """The marker cards: ``MARKERS`` evenly spaced from the top (the aces of a 52-card deck sorted by suit)."""
    return np.unique(np.array([m * cards // MARKERS for m in range(MARKERS)], dtype=np.int64))


def run_experiment(letters: str, cards: int = DEFAULT_CARDS, runs: int = DEFAULT_RUNS,
                   shuffles: int = DEFAULT_SHUFFLES, seed: int = DEFAULT_SEED, replicate: int = 0,
                   marked_deals: int = MARKED_DEALS, deals: int | None = None) -> Experiment:
    """Deal ``runs x shuffles`` decks of ``cards`` shuffled by ``letters`` (as :func:`parse_method` reads them)
    and count.

    Deal ``d`` of replicate ``r`` has the seed ``derive_seed(derive_seed(method_seed(seed, letters),
    LABEL_REPLICATE, r), LABEL_TRIAL, d)``. Runs are played in blocks of
    ``RUNS_PER_BLOCK``, in parallel; a Ctrl-C is heard between blocks.
    ``deals``, when given, replaces ``runs x shuffles`` (a last, shorter run is
    counted everywhere but in the duplicates).
    """
    letters = parse_method(letters)
    return _count(method_codes(letters), np.empty((0, cards), dtype=np.int64), cards,
                  runs * shuffles if deals is None else deals, shuffles,
                  np.uint64(replicate_seed(seed, letters, replicate)), marked_deals)


def count_decks(given: np.ndarray, shuffles: int = DEFAULT_SHUFFLES, marked_deals: int = MARKED_DEALS) -> Experiment:
    """Count decks dealt elsewhere (int64, shape (deals, n), each row a permutation of ``0 .. n-1``: the cards
    from top to bottom, card ``c`` having started at position ``c``) as :func:`run_experiment` counts its own.

    Runs are consecutive groups of ``shuffles`` decks; a last, shorter group
    is counted everywhere but in the duplicates (``Experiment.duplicates``
    holds the whole runs only).
    """
    given = np.ascontiguousarray(given, dtype=np.int64)
    deals, cards = given.shape
    return _count(np.empty(0, dtype=np.int64), given, cards, deals, shuffles, np.uint64(0), marked_deals)


def _count(codes, given, cards, deals, shuffles, seed_of_replicate, marked_deals) -> Experiment:
    runs = -(-deals // shuffles)
    low, high = duplicate_values(cards, shuffles)
    markers = marker_cards(cards)
    marked_deals = min(marked_deals, deals)
    block = max(1, min(runs, RUNS_PER_BLOCK, BLOCK_BYTES // (8 * cards * cards)))
    matrices = np.empty((block, cards, cards), dtype=np.int64)
    successions = np.empty((block, cards), dtype=np.int64)
    rising = np.empty((block, cards + 1), dtype=np.int64)
    neighbours = np.empty((block, 2 * cards - 1), dtype=np.int64)
    duplicates = np.zeros(runs, dtype=np.int64)
    marked = np.zeros((marked_deals, markers.size), dtype=np.int64)
    totals = [np.zeros((cards, cards), np.int64), np.zeros(cards, np.int64), np.zeros(cards + 1, np.int64),
              np.zeros(2 * cards - 1, np.int64)]
    for first in range(0, runs, block):
        count = min(block, runs - first)
        play_block(codes, given, cards, seed_of_replicate, first, count, shuffles, deals, low, high, markers,
                    marked_deals, matrices, duplicates, successions, rising, neighbours, marked)
        for total, part in zip(totals, (matrices, successions, rising, neighbours)):
            total += part[:count].sum(axis=0)
    whole_runs = deals // shuffles
    return Experiment(cards, whole_runs, shuffles, duplicates[:whole_runs], *totals, marked, markers)


@dataclass
class Verdict:
    """The lab's tests of one experiment."""

    rejections: int               # of the 2n position tests, p < REJECTION_LEVEL
    position_p: float             # the smallest of the 2n p-values
    position_passed: bool
    successions_p: float
    rising_p: float
    permutation_passed: bool

    @property
    def text(self) -> str:
        failed = [what for what, passed in (("positions biased", self.position_passed),
                                            ("order not random", self.permutation_passed)) if not passed]
        return ", ".join(failed) if failed else "fair"


def judge(experiment: Experiment, alpha: float = ALPHA) -> Verdict:
    """Position and permutation tests of an experiment (see the module docstring)."""
    p_values = position_p_values(experiment.matrix)
    successions_law, rising_law = uniform_laws(experiment.cards)
    successions_p = merged_chi_square(experiment.successions, successions_law)
    rising_p = merged_chi_square(experiment.rising, rising_law)
    position_p = float(p_values.min())
    return Verdict(rejections=int((p_values < REJECTION_LEVEL).sum()), position_p=position_p,
                   position_passed=position_p >= alpha / 2 / p_values.size, successions_p=successions_p,
                   rising_p=rising_p, permutation_passed=min(successions_p, rising_p) >= alpha / 4)


def neighbour_law(cards: int) -> np.ndarray:
    """float64, shape (2n - 1,): P(card c + 1 lies d places below card c) in a uniform permutation, at
    ``d + n - 1``: ``(n - |d|) / (n (n - 1))`` for ``d != 0``."""
    distance = np.arange(-(cards - 1), cards)
    law = (cards - np.abs(distance)) / (cards * (cards - 1.0))
    law[cards - 1] = 0.0
    return law


# --------------------------------------------------------------------------
# the lab
