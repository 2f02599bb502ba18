"""Tests aimed at bugs a mutation pass found the rest of the suite would miss.

1. The race serving order under scarcity (``_refresh_by_race``): every seat
   still waiting is equally likely to be served next, whatever its level.
2. ``inverse_cdf_index`` at exact boundaries: cells are half-open ``[c_{i-1}, c_i)``.
3. The keyed race's pruning: the pruned race is the full race, draw for draw,
   including crafted near-ties where only the margin decides.
4. Selling 2-star and 3-star units: gold and copies scale with the copies held.

Every expected value is derived here from the configuration, the documented
addresses, or exact enumeration; none is an output of the code under test.
The jitted harnesses are compiled without the on-disk cache: they inline
package kernels, and a cached harness is not recompiled when those change.
"""

from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from numba import njit

from autodup.engine.kernels import inverse_cdf_index, keyed_race, positive_total
from autodup.engine.rng import KEYED_DOMAIN, exponential_from_bits, random_bits_pair, uniform_from_bits
from autodup.game.actions import ACTION_SELL
from autodup.game.config import load_config, parse_config
from autodup.game.legality import apply_action
from autodup.game.rounds import _refresh_by_race
from autodup.game.rules import rules_of
from autodup.game.shop import fill_tier_totals, move_copies
from autodup.game.state import copy_flat, fresh_table, new_table, soundness
from autodup.game.units import add_unit

from .stats_helpers import P_FLOOR, goodness_of_fit

ROOT = Path(__file__).resolve().parents[1]
SET4_TEXT = (ROOT / "configs" / "set4.yaml").read_text()
CONFIG = load_config(ROOT / "configs" / "set4.yaml")
RULES = rules_of(CONFIG)
U = np.uint64


# --------------------------------------------------------------------------
# 1. the race serving order under scarcity
# --------------------------------------------------------------------------


@njit
def _race_trials(rules, pool, levels, locked, shops_before, order, alive_count, base_seed, n_trials, n_refreshes):
    """Run ``_refresh_by_race`` on fresh tables and return every shop it leaves.

    Trial ``i`` gives seat ``s`` the seed ``random_bits_pair(base_seed, i, s)[0]``.
    Each refresh starts from ``pool``, ``shops_before`` and ``locked`` again
    (as if the dealt copies went back to the pool), so refresh ``r > 0`` also
    tests the needles a previous refresh left behind.

    Returns
    -------
    int64 (n_trials, n_refreshes, players, shop_size)
    """
    players = rules.players
    out = np.full((n_trials, n_refreshes, players, rules.shop_size), -1, dtype=np.int64)
    seeds = np.zeros(players, dtype=np.uint64)
    for trial in range(n_trials):
        for s in range(players):
            seeds[s] = random_bits_pair(base_seed, np.uint64(trial), np.uint64(s))[0]
        table = new_table(rules, np.int64(0))  # typed as the game's call: its cached code
        # copy_flat, not slice assignments: numba would compile their shape errors' messages (5 s).
        copy_flat(levels, table.level)
        for i in range(alive_count):
            table.order[i] = order[i]
        for r in range(n_refreshes):
            copy_flat(pool, table.pool)
            fill_tier_totals(rules, table.pool, table.tier_totals)  # the table keeps them with its pool
            copy_flat(shops_before, table.shops)
            copy_flat(locked, table.locked)
            _refresh_by_race(rules, table, seeds, alive_count)
            copy_flat(table.shops, out[trial, r])
    return out


def exact_race_law(config, levels, waiting, pool, shops_before):
    """Exact law of the shops a race refresh leaves, by enumeration of every serve sequence.

    The serving rule, as documented: at each serve, the seat served is uniform
    over the waiting seats (unlocked, alive, shop not full) whose odds give a
    tier with copies left a positive weight; it gets its next slot, whose tier
    follows that seat's level odds restricted to tiers with copies left
    (``empty_tier: skip``), and whose champion follows the copies left in the
    tier. The refresh ends when no waiting seat can be served.

    Parameters
    ----------
    levels : sequence of int, (players,)
    waiting : list of int
        The seats that refresh.
    pool : float array (N,)
    shops_before : int array (players, shop_size)
        -1 everywhere for the waiting seats.

    Returns
    -------
    dict
        ``{shops as a tuple of per-seat tuples: probability}``.
    """
    odds = config.level_odds.astype(float)
    tier_of = config.champion_tier
    n_tiers = config.tier_cost.shape[0]
    champions = [int(c) for c in np.flatnonzero(pool > 0)]

    def state_after(history):
        """Pool and shops after the serves ``history`` (a list of (seat, champion))."""
        left = pool.astype(float).copy()
        shops = [list(row) for row in shops_before]
        for seat, champion in history:
            left[champion] -= 1
            shops[seat][shops[seat].index(-1)] = champion
        return left, shops

    outcomes = [(s, c) for s in waiting for c in champions]

    def step_weights(history):
        left, shops = state_after(history)
        tier_left = np.array([left[tier_of == t].sum() for t in range(n_tiers)])
        eligible = []
        for s in waiting:
            if -1 not in shops[s]:
                continue
            tiers = np.where(tier_left > 0, odds[levels[s]], 0.0)
            if tiers.sum() > 0:
                eligible.append((s, tiers / tiers.sum()))
        weights = np.zeros(len(outcomes))
        for s, tiers in eligible:
            for k, (seat, c) in enumerate(outcomes):
                if seat == s and left[c] > 0:
                    t = tier_of[c]
                    weights[k] = tiers[t] * left[c] / tier_left[t] / len(eligible)
        return weights if weights.sum() > 0 else None

    law = Counter()

    def walk(history, probability):
        weights = step_weights(history)
        if weights is None:
            _, shops = state_after(history)
            law[tuple(tuple(row) for row in shops)] += probability
            return
        for k in np.flatnonzero(weights > 0):
            walk(history + [outcomes[k]], probability * weights[k] / weights.sum())

    walk([], 1.0)
    assert abs(sum(law.values()) - 1.0) < 1e-12
    return law


def law_fit(shops, law):
    """Chi-square p-value of observed shops (int (trials, players, slots)) against an exact law.

    An observed outcome the law gives probability zero fails at once.
    """
    observed = Counter(tuple(tuple(int(c) for c in row) for row in trial) for trial in shops)
    impossible = set(observed) - set(law)
    assert not impossible, f"outcomes the law forbids: {sorted(impossible)[:3]}"
    keys = list(law)
    return goodness_of_fit([observed.get(k, 0) for k in keys], [law[k] for k in keys])


# Scarcity case: 3 copies left in the whole pool, all of the 1-cost tier
# (2 Diana, 1 Elise); eight seats at levels 2..9, whose 1-cost odds are all
# positive and all different (100, 75, 55, 45, 25, 19, 16, 9 percent).
DIANA, ELISE = CONFIG.champion_names.index("Diana"), CONFIG.champion_names.index("Elise")
SCARCE_POOL = np.zeros(CONFIG.champion_copies.shape[0])
SCARCE_POOL[[DIANA, ELISE]] = [2, 1]
SCARCE_LEVELS = np.arange(2, 10)


def test_race_under_scarcity_serves_every_waiting_seat_equally():
    """Three copies left, eight waiting seats at different levels.

    Each seat's odds are scaled to total 1 before the race, so each serve is
    uniform over the 8 seats (none fills its 5 slots with 3 copies), whatever
    the seats' levels: the seat sequence is uniform over 8**3 sequences, so

    * seat ``s`` receives ``Binomial(3, 1/8)`` copies and every seat the same
      share of the 3 * trials serves;
    * the number of distinct seats served is 1, 2, 3 with probabilities
      8/512 = 1/64, 8*7*3/512 = 21/64, 8*7*6/512 = 42/64;
    * independently, the copies go out in the order Diana-Diana-Elise,
      Diana-Elise-Diana, Elise-Diana-Diana with 1/3 each (2/3 * 1/2,
      2/3 * 1/2, 1/3 * 1), so the full shops follow the enumerated law of
      :func:`exact_race_law`.

    Raw level odds in the race would serve a level-2 seat 100/344 of the
    time; losers that do not let the winner's gap pass keep residuals biased
    upwards, so the first seat served is served again by the second serve
    2/9 of the time instead of 1/8.
    A second refresh on the needles the first left behind follows the same law.
    """
    players, shop_size = RULES.players, RULES.shop_size
    n_trials = 40_000
    shops_before = np.full((players, shop_size), -1, dtype=np.int64)
    shops = _race_trials(RULES, SCARCE_POOL, SCARCE_LEVELS, np.zeros(players, dtype=np.bool_), shops_before,
                         np.arange(players), players, U(2024), n_trials, 2)
    law = exact_race_law(CONFIG, SCARCE_LEVELS, list(range(players)), SCARCE_POOL, shops_before)
    p_values = {}
    for refresh in range(2):
        got = shops[:, refresh]
        dealt = got >= 0
        # Every copy is dealt, no more, into each seat's first slots.
        assert np.all(dealt.sum(axis=(1, 2)) == 3), "not exactly the 3 copies left were dealt"
        assert np.all((got == DIANA).sum(axis=(1, 2)) == 2) and np.all((got == ELISE).sum(axis=(1, 2)) == 1)
        assert np.all(dealt[:, :, 1:] <= dealt[:, :, :-1]), "a slot was left empty before a dealt one"
        per_seat = dealt.sum(axis=2).sum(axis=0)
        distinct = np.bincount((dealt.sum(axis=2) > 0).sum(axis=1), minlength=4)[1:]
        p_values[f"refresh {refresh}: serves per seat {per_seat.tolist()}"] = goodness_of_fit(per_seat,
                                                                                              np.ones(players))
        p_values[f"refresh {refresh}: distinct seats {distinct.tolist()}"] = goodness_of_fit(distinct, [1, 21, 42])
        p_values[f"refresh {refresh}: full shops"] = law_fit(got, law)
    failed = {check: f"p = {p:.3g}" for check, p in p_values.items() if not p > P_FLOOR}
    assert not failed, failed


def test_race_serves_only_waiting_seats_and_each_by_its_own_odds():
    """Two scarce tiers, two-slot shops, a locked seat and dead seats.

    Seats 5, 2, 0, 3 wait (levels 3, 4, 5, 6); seat 7 is alive but locked;
    seats 1, 4, 6 are dead (not among the alive seats of ``table.order``).
    The pool holds 2 Diana and 1 Elise (1-cost) and 1 Zed (2-cost): 4 serves,
    each uniform over the seats whose 2 slots are not yet full; the slot's
    tier follows the seat's own odds over the tiers with copies left (e.g.
    75/100 and 25/100 at level 3 while Zed is left, then 1-cost only) and its
    champion follows the copies. The exact law of all shops is enumerated
    from these rules; the locked shop and the dead seats' shops are untouched.
    """
    text = SET4_TEXT.replace("  size: 5\n", "  size: 2\n")
    assert text != SET4_TEXT
    config = parse_config(text, "two_slots.yaml")
    rules = rules_of(config)
    players, shop_size = rules.players, rules.shop_size
    assert shop_size == 2
    zed = config.champion_names.index("Zed")
    pool = np.zeros(config.champion_copies.shape[0])
    pool[[DIANA, ELISE, zed]] = [2, 1, 1]
    levels = np.array([5, 9, 4, 6, 9, 3, 9, 7])
    order = np.array([5, 2, 7, 0, 3, 1, 4, 6])  # the first 5 are alive
    locked = np.zeros(players, dtype=np.bool_)
    locked[7] = True
    shops_before = np.full((players, shop_size), -1, dtype=np.int64)
    shops_before[7] = [config.champion_names.index("Zilean"), -1]  # kept: out of the pool
    shops = _race_trials(rules, pool, levels, locked, shops_before, order, 5, U(77), 40_000, 1)[:, 0]
    assert np.all(shops[:, 7] == shops_before[7])
    assert np.all(shops[:, [1, 4, 6]] == -1)
    law = exact_race_law(config, levels, [5, 2, 0, 3], pool, shops_before)
    # Every waiting seat gets the same share of the 4 serves (the rule is symmetric in the seats).
    per_seat = (shops >= 0).sum(axis=2)[:, [5, 2, 0, 3]].sum(axis=0)
    p_values = {f"serves of seats 5, 2, 0, 3: {per_seat.tolist()}": goodness_of_fit(per_seat, np.ones(4)),
                "full shops": law_fit(shops, law)}
    failed = {check: f"p = {p:.3g}" for check, p in p_values.items() if not p > P_FLOOR}
    assert not failed, failed


# --------------------------------------------------------------------------
# 2. inverse CDF at exact boundaries
# --------------------------------------------------------------------------


@njit
def _inverse_cdf_grid(weights, lo, hi, us):
    total = positive_total(weights, lo, hi)
    out = np.empty(us.shape[0], dtype=np.int64)
    for k in range(us.shape[0]):
        out[k] = inverse_cdf_index(weights, lo, hi, total, us[k])
    return out


def exact_cell(weights, lo, hi, numerator, denominator):
    """The index whose half-open cell ``[c_{i-1}, c_i)`` holds ``u * total``, in exact rationals.

    ``c_i`` is the cumulative positive weight through ``i``; zero weights have
    empty cells, so they are never returned. The weights and ``u`` are dyadic,
    so the float computation is exact and must agree.
    """
    from fractions import Fraction

    positive = [i for i in range(lo, hi) if weights[i] > 0]
    target = Fraction(numerator, denominator) * sum(Fraction(weights[i]) for i in positive)
    cumulative = Fraction(0)
    for i in positive:
        cumulative += Fraction(weights[i])
        if target < cumulative:
            return i
    raise AssertionError("u must be below 1")


@pytest.mark.parametrize("weights, lo, hi", [
    ([1.0, 1.0, 2.0], 0, 3),
    ([0.0, 1.0, 0.0, 0.0, 1.0, 2.0, 0.0], 0, 7),
    ([5.0, 0.0, 0.25, 0.75, 0.0, 3.0, 4.0, 0.0], 1, 7),
    ([0.5, 0.125, 0.125, 0.25], 0, 4),
], ids=["1-1-2", "zeros-around", "slice", "fine"])
def test_inverse_cdf_cells_are_half_open_on_a_dyadic_grid(weights, lo, hi):
    """With dyadic weights and ``u = k / 1024``, ``u * total`` lands exactly on every cell boundary.

    A boundary belongs to the cell on its right: index ``i`` is returned for
    exactly ``w_i / total * 1024`` of the 1024 grid points, every point goes
    where exact rational arithmetic puts it, ``u = 0`` gives the first
    positive weight, and zero weights (also at the ends) are never returned.
    """
    weights = np.array(weights)
    us = np.arange(1024) / 1024.0
    got = _inverse_cdf_grid(weights, lo, hi, us)
    expected = [exact_cell(weights, lo, hi, k, 1024) for k in range(1024)]
    assert got.tolist() == expected
    total = weights[lo:hi][weights[lo:hi] > 0].sum()
    counts = np.bincount(got, minlength=weights.size)
    share = np.zeros(weights.size)
    share[lo:hi] = np.where(weights[lo:hi] > 0, weights[lo:hi], 0.0) / total * 1024
    assert counts.tolist() == share.tolist()
    if weights.tolist() == [1.0, 1.0, 2.0]:  # the coarse grid k / 64: exactly 16 / 16 / 32
        coarse = _inverse_cdf_grid(weights, lo, hi, np.arange(64) / 64.0)
        assert np.bincount(coarse, minlength=3).tolist() == [16, 16, 32]


def test_inverse_cdf_at_the_ends_of_the_unit_interval():
    """``u = 0`` and the largest uniform below 1 give the first and last positive weights.

    ``u = 1 - 2**-53`` puts the target just below the total, inside the last
    positive weight's cell. ``u = 1`` puts it on the total itself and so
    reaches the fallback the kernel keeps for a product that rounds up to the
    total: it must still return the last index of positive weight, never a
    trailing zero (weights ``[0, 1, 2, 0, 0]``).
    """
    weights = np.array([0.0, 1.0, 2.0, 0.0, 0.0])
    below_one = 1.0 - 2.0**-53
    assert _inverse_cdf_grid(weights, 0, 5, np.array([0.0, below_one, 1.0])).tolist() == [1, 2, 2]
    tiny = np.array([0.0, 2.0**-60, 1.0, 0.0])  # a first cell far smaller than a grid step
    assert _inverse_cdf_grid(tiny, 0, 4, np.array([0.0, 2.0**-61, 2.0**-60, 0.5])).tolist() == [1, 1, 2, 2]


# --------------------------------------------------------------------------
# 3. the keyed race's pruning
# --------------------------------------------------------------------------

_MARGIN = 1.0 - 2.0**-40  # the documented pruning margin (kernels.py)


@njit
def _keyed_against_full_race(seeds, keys, weights, lo, hi, id_offset):
    """``keyed_race`` and the unpruned race on every outcome's documented address, per (seed, key).

    Outcome ``i`` (id ``j = i + id_offset``) has the value
    ``exponential_from_bits(bits) / w_i`` with ``bits`` half ``j & 1`` of the
    Philox block at ``(seed, KEYED_DOMAIN + (j >> 1), key)``; the winner is the
    first index of the smallest value.
    """
    n = seeds.shape[0]
    got = np.empty(n, dtype=np.int64)
    expected = np.empty(n, dtype=np.int64)
    for r in range(n):
        got[r] = keyed_race(seeds[r], keys[r], weights, lo, hi, id_offset)
        best, best_value = -1, np.inf
        for i in range(lo, hi):
            if weights[i] > 0.0:
                j = np.uint64(i + id_offset)
                pair = random_bits_pair(seeds[r], np.uint64(KEYED_DOMAIN) + (j >> np.uint64(1)), keys[r])
                bits = pair[1] if j & np.uint64(1) else pair[0]
                value = exponential_from_bits(bits) / weights[i]
                if value < best_value:
                    best, best_value = i, value
        expected[r] = best
    return got, expected


def _keyed_weights():
    """Weight vectors where the winner's value is small (many near-equal weights) or spread out."""
    spread = np.random.default_rng(31)
    near = 1.0 + 1e-9 * spread.standard_normal(2001)
    near[::97] = 0.0
    wide = spread.uniform(0.05, 20.0, 600)
    return {
        "1000-equal": (np.ones(1000), 0, 1000, 0, 3000),
        "2001-near-equal-odd-offset": (near, 3, 1998, 7, 2000),
        "600-spread": (wide, 0, 600, 1, 3000),
        "6-small": (np.array([1.0, 2.0, 0.0, 3.0, 0.5, 4.0]), 0, 6, 0, 40_000),
    }


@pytest.mark.parametrize("case", list(_keyed_weights()))
def test_keyed_pruning_gives_the_full_race_draw_for_draw(case):
    """Over thousands of (seed, key) pairs, the pruned race returns the unpruned race's winner.

    With a thousand equal weights the winner's Exp value is about 1e-3, where
    ``-log1p(-u)`` and ``u`` differ by only ``u / 2``: a pruning bound that is
    not a true lower bound of the value skips winners.
    """
    weights, lo, hi, id_offset, n = _keyed_weights()[case]
    schedule = np.random.default_rng(list(_keyed_weights()).index(case) + 11)
    seeds = schedule.integers(0, 2**63, size=n).astype(np.uint64)
    keys = schedule.integers(0, 2**63, size=n).astype(np.uint64)
    got, expected = _keyed_against_full_race(seeds, keys, weights, lo, hi, id_offset)
    mismatches = np.flatnonzero(got != expected)
    assert mismatches.size == 0, f"{mismatches.size} of {n} races differ, first {mismatches[:5]}"


# Philox4x32-10 inverted (Salmon et al. 2011; constants of Random123's philox.h):
# crafts an address whose block holds chosen bits, e.g. the smallest uniforms.
_M0, _M1, _W0, _W1, _MASK = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85, 0xFFFFFFFF


def _philox_inverse(words, seed):
    """The counter words ``(c0, c1, c2, c3)`` that Philox4x32-10 under ``seed`` maps to ``words``."""
    k0, k1 = seed & _MASK, seed >> 32
    y0, y1, y2, y3 = words
    for r in reversed(range(10)):
        r0, r1 = (k0 + r * _W0) & _MASK, (k1 + r * _W1) & _MASK
        c2 = (y1 * pow(_M1, -1, 2**32)) & _MASK
        c0 = (y3 * pow(_M0, -1, 2**32)) & _MASK
        c1 = y0 ^ ((_M1 * c2) >> 32) ^ r0
        c3 = y2 ^ ((_M0 * c0) >> 32) ^ r1
        y0, y1, y2, y3 = c0, c1, c2, c3
    return y0, y1, y2, y3


def crafted_block(seed, low_bits, high_bits):
    """A key and a keyed block index whose Philox block under ``seed`` is ``(low_bits, high_bits)``.

    ``high_bits`` (or ``low_bits``) may be None: its free bits are then tried
    until the stream lands in the keyed domain with a block index below 2**62
    (a quarter of all tries), so that outcome ids ``2 * block`` and
    ``2 * block + 1`` fit an int64 offset.

    Returns
    -------
    (key, block, low_bits, high_bits)
    """
    tries = np.random.default_rng(seed % 2**32)
    for _ in range(200):
        low = low_bits if low_bits is not None else int(tries.integers(0, 2**63)) * 2 + 1
        high = high_bits if high_bits is not None else int(tries.integers(0, 2**63)) * 2 + 1
        c0, c1, c2, c3 = _philox_inverse((low & _MASK, low >> 32, high & _MASK, high >> 32), seed)
        key, stream = c0 | (c1 << 32), c2 | (c3 << 32)
        block = stream - KEYED_DOMAIN
        if 0 <= block < 2**62:
            assert tuple(int(b) for b in random_bits_pair(U(seed), U(stream), U(key))) == (low, high)
            return key, block, low, high
    raise AssertionError("no crafted block found")


def weight_for_value(bits, value):
    """A weight ``w`` with ``fl(exponential_from_bits(bits) / w) == value`` exactly."""
    e = float(exponential_from_bits(U(bits)))
    w = e / value
    for _ in range(64):
        got = e / w
        if got == value:
            return w
        w = np.nextafter(w, np.inf) if got > value else np.nextafter(w, 0.0)
    raise AssertionError("no exact weight")


@pytest.mark.parametrize("m", [1, 2, 3, 5, 1 << 20])
@pytest.mark.parametrize("same_block", [False, True], ids=["other-block", "same-block"])
def test_keyed_pruning_is_exact_at_the_smallest_uniforms(m, same_block):
    """A crafted near-tie that only a pruning margin below 1 resolves correctly.

    Outcome 1 (weight 1) gets the bits ``m << 11``, i.e. the uniform
    ``u = m * 2**-53`` whose value ``-log1p(-u)`` is ``u`` itself or a few ulps
    above it. Outcome 0, scanned first, is given the next float above outcome
    1's value (``nextafter(v1, inf)``) by its weight. The full race picks outcome 1;
    a pruning bound ``u / w * margin`` with a margin above ``v1 / u`` (any
    margin above 1 for ``m = 1``) skips it and returns 0. Outcome 1 is the low
    half of its own block, or the high half of the block outcome 0 shares.
    """
    seed = 0x5EED0000 + m
    small = (m << 11) | 0x5A5  # the low 11 bits are not part of the uniform
    if same_block:
        key, block, low, _ = crafted_block(seed, None, small)
        id_offset = 2 * block  # outcome 0 = low half, outcome 1 = high half of one block
        first_bits = low
    else:
        key, block, _, _ = crafted_block(seed, small, None)
        id_offset = 2 * block - 1  # outcome 0 = high half of the block before, outcome 1 = low half
        first_bits = int(random_bits_pair(U(seed), U(KEYED_DOMAIN + block - 1), U(key))[1])
    v1 = float(exponential_from_bits(U(small)))
    assert v1 >= float(uniform_from_bits(U(small))) * _MARGIN
    weights = np.array([weight_for_value(first_bits, np.nextafter(v1, np.inf)), 1.0])
    got, expected = _keyed_against_full_race(np.array([seed], dtype=np.uint64), np.array([key], dtype=np.uint64),
                                             weights, 0, 2, id_offset)
    assert expected[0] == 1, "the crafted near-tie is not one"
    assert got[0] == 1, f"the pruned race skipped the winner (bits >> 11 = {m}) and returned {got[0]}"
    # And when outcome 0 is exactly as good, it keeps the win (the first index wins ties).
    weights[0] = weight_for_value(first_bits, v1)
    assert keyed_race(U(seed), U(key), weights, 0, 2, id_offset) == 0, "an exact tie went to the later outcome"


@njit
def _tied_race(seed, key, n):
    """Weights ``w_i = exponential_from_bits(bits_i)``: every value is exactly 1.0; returns the winner."""
    weights = np.empty(n)
    for i in range(n):
        j = np.uint64(i)
        pair = random_bits_pair(seed, np.uint64(KEYED_DOMAIN) + (j >> np.uint64(1)), key)
        weights[i] = exponential_from_bits(pair[1] if j & np.uint64(1) else pair[0])
    return keyed_race(seed, key, weights, 0, n, 0)


def test_keyed_race_breaks_exact_ties_by_the_first_index():
    """``x / x == 1`` exactly, so with ``w_i`` equal to each outcome's own Exp value every outcome ties.

    The race is an argmin over a scan with a strict comparison: the first
    outcome (index 0) wins, for every seed and key.
    """
    winners = [int(_tied_race(U(seed), U(7 * seed + 1), 257)) for seed in range(1, 40)]
    assert winners == [0] * len(winners), f"winners of all-tied races: {winners}"


@njit
def _pruning_bound_holds(bits_list, margin):
    ok = np.empty(bits_list.shape[0], dtype=np.bool_)
    for k in range(bits_list.shape[0]):
        bits = bits_list[k]
        ok[k] = exponential_from_bits(bits) >= uniform_from_bits(bits) * margin
    return ok


def test_the_exponential_bounds_the_uniform_that_pruning_uses():
    """``exponential_from_bits(b) >= uniform_from_bits(b) * margin`` on crafted bit patterns.

    The pruning skips an outcome when ``u / w * margin`` already loses; this
    is exact only if the computed ``-log1p(-u)`` never falls below
    ``u * margin``. Checked for the smallest uniforms (``bits >> 11`` = 1 ..
    4096, where ``-log1p(-u)`` is within ulps of ``u``), around powers of two,
    near 1 (``bits >> 11`` up to ``2**53 - 1``) and on random patterns, with
    the low 11 bits both clear and set.
    """
    mantissas = [np.arange(1, 4097, dtype=np.uint64),
                 (U(1) << U(53)) - np.arange(1, 4097, dtype=np.uint64),
                 np.array([(1 << p) + d for p in range(2, 53) for d in (-1, 0, 1)], dtype=np.uint64),
                 np.random.default_rng(5).integers(1, 2**53, size=200_000, dtype=np.uint64)]
    m = np.concatenate(mantissas)
    for low in (U(0), U(0x7FF)):
        bits = (m << U(11)) | low
        ok = _pruning_bound_holds(bits, _MARGIN)
        assert ok.all(), f"exponential below u * margin for bits >> 11 in {m[~ok][:5].tolist()}"
    # The smallest uniforms: the value is u itself, not below it.
    for k in (1, 2, 3):
        assert float(exponential_from_bits(U(k << 11))) >= k * 2.0**-53


# --------------------------------------------------------------------------
# 4. selling units of every star
# --------------------------------------------------------------------------

SEEDS = np.arange(1, 9, dtype=np.uint64) * U(1_000_003)
HAYSTACK = 2  # the dealer code (selling deals nothing, so any dealer does)


def _give(table, seat, champion, n):
    for _ in range(n):
        move_copies(RULES, table.pool, table.tier_totals, champion, -1.0)
        add_unit(RULES, table, seat, champion)


@pytest.mark.parametrize("star", [1, 2, 3])
@pytest.mark.parametrize("tier", range(CONFIG.tier_cost.shape[0]))
def test_selling_returns_cost_times_copies_and_every_copy(star, tier):
    """A ``star``-star unit holds ``3**(star - 1)`` copies and sells for its cost times that.

    The seat holds the unit (built from 1-star copies by the game's own
    combine rule) before a 1-star of another champion, so the sold unit is not
    the last one. Selling it: gold += cost * copies (cost from the config's
    tier), every copy back in the pool (the pool is whole again), only that
    unit removed, and conservation holds. Out-of-range indices are illegal
    and change nothing.
    """
    copies = 3 ** (star - 1)
    cost = int(CONFIG.tier_cost[tier])
    champion = int(CONFIG.tier_start[tier])
    other = int(CONFIG.tier_start[tier] + 1)
    table = fresh_table(RULES)
    table.level[0] = 9
    table.gold[0] = 7
    _give(table, 0, champion, copies)
    _give(table, 0, other, 1)
    assert table.n_units[0] == 2
    assert (table.unit_champion[0, 0], table.unit_star[0, 0]) == (champion, star)
    assert soundness(RULES, table)[0]  # copies conserved
    pool_left = CONFIG.champion_copies[champion] - copies
    assert table.pool[champion] == pool_left
    for bad in (-1, 2):
        assert not apply_action(RULES, HAYSTACK, table, 0, 5, 1, SEEDS, ACTION_SELL, bad)
    assert table.gold[0] == 7 and table.n_units[0] == 2
    assert apply_action(RULES, HAYSTACK, table, 0, 5, 1, SEEDS, ACTION_SELL, 0)
    assert table.gold[0] == 7 + cost * copies
    assert table.pool[champion] == CONFIG.champion_copies[champion]
    assert table.n_units[0] == 1
    assert (table.unit_champion[0, 0], table.unit_star[0, 0]) == (other, 1)
    assert soundness(RULES, table)[0]  # copies conserved
