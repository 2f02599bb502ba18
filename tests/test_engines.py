"""Draw engines: exact per-table probabilities, coupling across tables, state, laziness.

Every engine is checked against exact probabilities (closed forms or
enumeration) and against the plain sampler as an independent control group
(seed 003); deliberately wrong dealers must fail the same checks.
"""

import json

import numpy as np
import pytest
from numba import njit

from autodup import ENGINES, Haystack, KeyedSampler, PlainSampler, keyed_draw, make_sampler, race
from autodup.engine import rng
from autodup.engine.batches import haystack_races_in_lanes
from autodup.engine.tree import TreeHaystack
from autodup.engine.ziggurat import random_exponential

from .stats_helpers import (
    P_FLOOR,
    agreement_probability,
    goodness_of_fit,
    same_distribution,
    sequence_distribution,
)

ENGINE_NAMES = list(ENGINES)
U = np.uint64


# --------------------------------------------------------------------------
# marginals
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", ENGINE_NAMES)
def test_flat_marginals_match_weights(name):
    weights = np.array([1.0, 2.0, 0.0, 3.0, 0.5, 4.0])
    draws = make_sampler(name, 11).draw_many(weights, 120_000)
    counts = np.bincount(draws, minlength=weights.size)
    assert counts[2] == 0
    assert goodness_of_fit(counts, weights) > P_FLOOR


@pytest.mark.parametrize("name", ENGINE_NAMES)
def test_hierarchical_marginals_match_tier_odds_times_copies(name):
    tier_weights = np.array([45.0, 33.0, 20.0, 2.0, 0.0])
    outcome_weights = np.array([29, 3, 0, 29, 22, 22, 1, 18, 18, 12, 12, 10], dtype=float)
    tier_start = np.array([0, 3, 6, 9, 11, 12])
    sampler = make_sampler(name, 5)
    n = 60_000
    draws = np.array([sampler.draw_hierarchical(tier_weights, outcome_weights, tier_start) for _ in range(n)])
    exact = np.zeros(outcome_weights.size)
    for t in range(5):
        lo, hi = tier_start[t], tier_start[t + 1]
        exact[lo:hi] = tier_weights[t] / tier_weights.sum() * outcome_weights[lo:hi] / outcome_weights[lo:hi].sum()
    assert goodness_of_fit(np.bincount(draws, minlength=exact.size), exact) > P_FLOOR


@pytest.mark.parametrize("name", ENGINE_NAMES)
def test_a_draw_watching_one_tier_deals_what_the_full_draw_deals_in_it(name):
    """``engine_draw_watching_tier`` (the odds lab's fast path) against the full hierarchical draw, from the same
    seed, over a long sequence in which copies leave and come back in every tier: in the watched tier the same
    outcome, bit for bit; elsewhere -2 (a tier with copies) or -1 (an empty one), as the full draw's tier says."""
    from autodup.engine import kernels

    engine = ENGINES[name].engine
    tier_start = np.array([0, 4, 9, 12, 14])
    n = tier_start[-1]
    tier_weights = np.array([0.4, 0.3, 0.2, 0.1])
    rng = np.random.default_rng(3)
    for watched in (1, 2):  # each with fresh states: a watching state must not serve another tier afterwards
        copies = np.array([9, 9, 9, 9, 7, 7, 7, 7, 7, 3, 3, 2, 0, 0], dtype=float)  # the last tier empty
        full_state, watched_state = kernels.engine_state(n + 4), kernels.engine_state(n + 4)
        seen_watched = seen_other = 0
        for step in range(3_000):
            full_weights, watched_weights = copies.copy(), copies.copy()
            watched_weights[tier_start[watched + 1]:] = 99.0  # the watched draw reads no other tier
            watched_weights[:tier_start[watched]] = 99.0
            totals = np.array([copies[tier_start[t]:tier_start[t + 1]].sum() for t in range(4)])
            full = kernels.engine_draw_hierarchical(engine, U(21), *full_state, tier_weights, full_weights,
                                                    tier_start)
            seen = kernels.engine_draw_watching_tier(engine, U(21), *watched_state, tier_weights, totals,
                                                     watched_weights, tier_start, watched)
            if full >= 0 and tier_start[watched] <= full < tier_start[watched + 1]:
                assert seen == full, (name, step)
                seen_watched += 1
            else:
                assert seen == (-2 if full >= 0 else -1), (name, step, full, seen)
                seen_other += full >= 0
            # copies leave and come back in every tier, so every weight moves between draws
            champion = rng.integers(0, tier_start[3])
            copies[champion] = max(0.0, copies[champion] + rng.choice([-1.0, 1.0]))
        assert seen_watched > 300 and seen_other > 300


@pytest.mark.parametrize("seats", [1, 3])
def test_needles_created_at_once_deal_what_lazily_created_needles_deal(seats):
    """``haystack_create`` (the odds lab's batch) against creation inside the races: every seat's 3,000
    hierarchical draws, whose weights move and drop to zero in every tier (a tier and outcomes that start at zero
    are created early but raced only later), give the same outcomes and end in the same state, bit for bit."""
    from autodup.engine import batches, kernels

    tier_start = np.array([0, 4, 9, 12, 14])
    n = tier_start[-1]
    seeds = np.array([21, 5, 77], dtype=np.uint64)[:seats]
    lazy = [kernels.engine_state(n + 4) for _ in range(seats)]
    early_needles, early_count = np.zeros((seats, n + 4)), np.zeros((seats, n + 4), dtype=np.int64)
    low_bits = np.zeros(seats * (n + 4), dtype=np.uint64)
    batches.haystack_create(seeds, early_needles, early_count, seats, 4, 12, low_bits)
    batches.haystack_create(seeds, early_needles, early_count, seats, n, n + 4, low_bits)
    assert (early_count[:, 4:12] == 1).all() and (early_count[:, n:] == 1).all() and (early_count[:, :4] == 0).all()
    rng = np.random.default_rng(5)
    for seat in range(seats):
        tier_weights = np.array([0.4, 0.3, 0.2, 0.0])  # the last tier joins halfway
        copies = np.array([9, 9, 9, 9, 7, 7, 0, 7, 7, 3, 3, 2, 4, 4], dtype=float)
        for step in range(3_000):
            if step == 1_500:
                tier_weights[3] = 0.1
            if step == 700:
                copies[6] = 5.0  # an outcome that was never positive
            lazily = kernels.engine_draw_hierarchical(ENGINES["haystack"].engine, seeds[seat], *lazy[seat],
                                                      tier_weights, copies, tier_start)
            early = kernels.engine_draw_hierarchical(ENGINES["haystack"].engine, seeds[seat], np.zeros(2, np.int64),
                                                     early_needles[seat], early_count[seat], tier_weights, copies,
                                                     tier_start)
            assert lazily == early, (seat, step)
            champion = rng.integers(0, n)
            copies[champion] = max(0.0, copies[champion] + rng.choice([-1.0, 1.0]))
        _, needles, count = lazy[seat]
        created = count > 0
        assert (count[created] == early_count[seat][created]).all()
        assert (needles[created] == early_needles[seat][created]).all()


def test_a_race_with_values_computed_ahead_deals_what_the_race_deals():
    """``haystack_race_ahead`` (the odds lab's tier race) against ``haystack_race``: 2,000 races whose weights move
    and drop to zero, then the same seed's needles started afresh (their counts go back: the values computed ahead
    are read again or computed again), then another seed with the values ahead forgotten; the same winners and
    the same state, bit for bit, with 4 values ahead (many refills) and 16."""
    from autodup.engine import batches, kernels

    for ahead in (4, 16):
        ahead_bits, ahead_from = np.zeros((5, ahead), dtype=np.uint64), np.full(5, -1, dtype=np.int64)
        low_bits = np.zeros(5, dtype=np.uint64)
        for seed, forget in ((3, True), (3, False), (8, True)):
            if forget:
                ahead_from[:] = -1
            rng = np.random.default_rng(seed)
            weights = np.array([0.0, 2.0, 5.0, 3.0, 1.0, 0.5, 4.0])  # needles 2..6 race; 0, 1 stand outside
            plain, fast = kernels.engine_state(7), kernels.engine_state(7)
            seeds = np.array([seed], dtype=np.uint64)
            batches.haystack_create(seeds, fast[1][None], fast[2][None], 1, 2, 7, low_bits)
            for step in range(2_000):
                expected = kernels.haystack_race(U(seed), plain[1], plain[2], weights, 2, 7, 0)
                got = batches.haystack_race_ahead(U(seed), fast[1], fast[2], weights, 2, 7, 0, ahead_bits, ahead_from)
                assert got == expected, (ahead, seed, step)
                moved = rng.integers(2, 7)
                weights[moved] = 0.0 if rng.random() < 0.2 else rng.uniform(0.5, 5.0)
            assert np.array_equal(plain[2][2:], fast[2][2:]) and np.array_equal(plain[1][2:], fast[1][2:])


# Not cached: numba's cache checks only this file, and this inlines the kernel, so a cached copy would go on testing a
# kernel that has since changed.
@njit
def _races_in_lanes(seeds, needles, needle_count, first, end, weights, id_offset, winners):
    """``haystack_races_in_lanes`` with its working space, for a Python caller."""
    n_lanes = max(end - first, 1)
    haystack_races_in_lanes(seeds, needles, needle_count, first, end, weights, id_offset, winners,
                            np.zeros((weights.shape[0], n_lanes)), np.zeros((weights.shape[0], n_lanes), np.int64),
                            np.zeros((3, n_lanes)), np.zeros((2, n_lanes), np.uint64))


def test_races_in_lanes_deal_what_each_states_races_deal_in_turn():
    """``haystack_races_in_lanes`` (the roll odds' tier races, many trials side by side) against ``haystack_race``
    on each state in turn: the same winners and the same state, bit for bit, for 1, 7 and 40 lanes, rows offset in
    their arrays, states fresh or already raced (needles not created yet where a weight is zero, created in the
    first race where one is positive), and weights with none positive (every winner -1, nothing moved)."""
    from autodup.engine import kernels

    n, offset = 9, 3  # needles 3..8 follow the six weights; 0..2 stand outside the races
    for n_lanes, races, seed in ((1, 200, 1), (7, 60, 2), (40, 25, 3)):
        rng = np.random.default_rng(seed)
        rows = n_lanes + 2
        seeds = rng.integers(1, 2**63, size=rows, dtype=np.uint64)
        weights = np.array([0.0, 2.0, 5.0, 3.0, 1.0, 0.5])
        plain_needles, plain_count = np.zeros((rows, n)), np.zeros((rows, n), dtype=np.int64)
        for row in range(rows):  # some states raced already, with another weight positive that now is not
            for _ in range(rng.integers(0, 4)):
                kernels.haystack_race(seeds[row], plain_needles[row], plain_count[row],
                                      np.array([1.5, 2.0, 5.0, 3.0, 1.0, 0.5]), 0, 6, offset)
        lane_needles, lane_count = plain_needles.copy(), plain_count.copy()
        winners = np.zeros((races, n_lanes), dtype=np.int64)
        _races_in_lanes(seeds, lane_needles, lane_count, 1, 1 + n_lanes, weights, offset, winners)
        for lane in range(n_lanes):
            row = 1 + lane
            expected = [kernels.haystack_race(seeds[row], plain_needles[row], plain_count[row], weights, 0, 6, offset)
                        for _ in range(races)]
            assert winners[:, lane].tolist() == expected, (n_lanes, lane)
        assert len(np.unique(winners)) == 5  # every positive weight won somewhere
        np.testing.assert_array_equal(lane_count, plain_count)
        np.testing.assert_array_equal(lane_needles, plain_needles)  # rows 0 and rows - 1, outside, untouched too
        before = (lane_needles.copy(), lane_count.copy())
        _races_in_lanes(seeds, lane_needles, lane_count, 1, 1 + n_lanes, np.zeros(6), offset, winners)
        assert (winners == -1).all()
        assert np.array_equal(lane_needles, before[0]) and np.array_equal(lane_count, before[1])


def test_the_hierarchical_haystack_is_its_two_races_in_turn():
    """The haystack's hierarchical draw against its definition, haystack_race on the tiers (needles N + t), then
    on the chosen tier's outcomes: 3,000 draws from a pool that empties and refills (a tier left without copies
    too) give the same outcomes and leave every needle the same, bit for bit; and so does the draw that watches
    one tier (another tier picked: -2, or -1 if it has no copies)."""
    from autodup.engine import kernels

    tier_start = np.array([0, 4, 9, 12], dtype=np.int64)
    for watched in (-1, 1):
        generator = np.random.default_rng(21 + watched)
        pool = generator.integers(0, 4, 12).astype(float)
        tier_weights = np.array([1.0, 0.6, 0.3])
        fast, reference = kernels.engine_state(15), kernels.engine_state(15)
        outcomes = set()
        for step in range(3_000):
            if watched < 0:
                got = kernels.engine_draw_hierarchical(kernels.ENGINE_HAYSTACK, U(5), fast[0], fast[1], fast[2],
                                                       tier_weights, pool, tier_start)
            else:
                totals = np.array([pool[tier_start[t]:tier_start[t + 1]].sum() for t in range(3)])
                got = kernels.engine_draw_watching_tier(kernels.ENGINE_HAYSTACK, U(5), fast[0], fast[1], fast[2],
                                                        tier_weights, totals, pool, tier_start, watched)
            tier = kernels.haystack_race(U(5), reference[1], reference[2], tier_weights, 0, 3, 12)
            if watched >= 0 and tier != watched:
                expected = -2 if pool[tier_start[tier]:tier_start[tier + 1]].sum() > 0 else -1
            else:
                expected = kernels.haystack_race(U(5), reference[1], reference[2], pool, tier_start[tier],
                                                 tier_start[tier + 1], 0)
            assert got == expected, (watched, step)
            outcomes.add(int(got))
            if got >= 0:
                pool[got] -= 1.0
            if generator.random() < 0.05 or pool.sum() == 0:
                pool = generator.integers(0, 4, 12).astype(float)
                if generator.random() < 0.3:
                    pool[tier_start[2]:] = 0.0  # the last tier without copies: its races give -1
        assert np.array_equal(fast[1], reference[1]) and np.array_equal(fast[2], reference[2])
        cases = {-1, *range(12)} if watched < 0 else {-2, -1, *range(tier_start[1], tier_start[2])}
        assert outcomes == cases  # every case was reached


@pytest.mark.parametrize("name", ENGINE_NAMES)
def test_hierarchical_tier_without_outcomes_returns_minus_one(name):
    sampler = make_sampler(name, 1)
    assert sampler.draw_hierarchical([0.0, 1.0], [1.0, 0.0], [0, 1, 2]) == -1
    assert sampler.draw_hierarchical([0.0, 0.0], [1.0, 1.0], [0, 1, 2]) == -1
    assert sampler.draw_hierarchical([1.0, 0.0], [1.0, 0.0], [0, 1, 2]) == 0


@pytest.mark.parametrize("name", ENGINE_NAMES)
def test_a_single_haystack_is_serially_independent(name):
    """Consecutive draws of one seat with fixed weights: pairs follow p_i * p_j."""
    weights = np.array([1.0, 2.0, 3.0])
    draws = make_sampler(name, 3).draw_many(weights, 90_001)
    pairs = draws[:-1] * 3 + draws[1:]
    p = weights / weights.sum()
    assert goodness_of_fit(np.bincount(pairs, minlength=9), np.outer(p, p).ravel()) > P_FLOOR


# --------------------------------------------------------------------------
# path dependence: weights that change with the past, against enumeration and the control
# --------------------------------------------------------------------------


def pool_without_replacement(history):
    pool = np.array([3.0, 2.0, 1.0])
    for i in history:
        pool[i] -= 1
    return pool


def adaptive_weights(history):
    """Parks an outcome (weight 0) and wakes it, raises and lowers weights, by what was drawn."""
    if not history:
        return [1.0, 2.0, 3.0]
    if len(history) == 1:
        return [0.0, 1.0, 1.0] if history[0] == 0 else [2.0, 0.5, 1.0]
    return [1.0, 1.0, 1.0] if history[1] != 2 else [3.0, 0.0, 1.0]


SCENARIOS = {"pool": pool_without_replacement, "adaptive": adaptive_weights}


def play(draw_function, step_weights, n_steps, n_games):
    """Counts of outcome sequences (base-3 code) over ``n_games`` seats seeded 0, 1, ..."""
    codes = np.empty(n_games, dtype=np.int64)
    for seed in range(n_games):
        draw = draw_function(seed)
        history = []
        for _ in range(n_steps):
            history.append(draw(step_weights(history)))
        codes[seed] = sum(h * 3**k for k, h in enumerate(history))
    return np.bincount(codes, minlength=3**n_steps)


def exact_sequence_probabilities(step_weights, n_steps):
    exact = np.zeros(3**n_steps)
    for sequence, probability in sequence_distribution(step_weights, n_steps).items():
        exact[sum(h * 3**k for k, h in enumerate(sequence))] = probability
    return exact


def engine_player(name):
    return lambda seed: make_sampler(name, seed).draw


def naive_haystack_player(seed):
    """A wrong dealer: the article's race without re-normalizing the needles that lose."""
    positions, occurrences = {}, {}

    def draw(weights):
        best, best_value = -1, np.inf
        for i, w in enumerate(weights):
            if w > 0:
                if i not in positions:
                    positions[i] = random_exponential(U(seed), U(i), U(0))
                    occurrences[i] = 0
                if positions[i] / w < best_value:
                    best, best_value = i, positions[i] / w
        occurrences[best] += 1
        positions[best] = random_exponential(U(seed), U(best), U(occurrences[best]))
        return best

    return draw


def replay_player(seed):
    """A wrong dealer (the seed's Fig. 2 generalized): a sequence drawn once from the first
    weights is replayed; an outcome no longer available is substituted by a fresh draw."""
    plan = PlainSampler(rng.derive_seed(seed, 9, 0))
    substitute = PlainSampler(rng.derive_seed(seed, 9, 1))
    first = []

    def draw(weights):
        if not first:
            first.append(np.asarray(weights, dtype=float))
        planned = plan.draw(first[0])
        return planned if weights[planned] > 0 else substitute.draw(weights)

    return draw


N_GAMES = 30_000


@pytest.mark.parametrize("scenario", list(SCENARIOS))
@pytest.mark.parametrize("name", ENGINE_NAMES)
def test_path_dependent_sequences_are_exact(name, scenario):
    step_weights = SCENARIOS[scenario]
    counts = play(engine_player(name), step_weights, 3, N_GAMES)
    assert goodness_of_fit(counts, exact_sequence_probabilities(step_weights, 3)) > P_FLOOR
    if name != "plain":
        control = play(lambda seed: PlainSampler(rng.table_seed(seed, 1)).draw, step_weights, 3, N_GAMES)
        assert same_distribution(counts, control) > P_FLOOR


@pytest.mark.parametrize("wrong", [naive_haystack_player, replay_player], ids=["naive-haystack", "replay"])
def test_wrong_dealers_are_caught_by_the_same_checks(wrong):
    step_weights = adaptive_weights
    counts = play(wrong, step_weights, 3, N_GAMES)
    assert goodness_of_fit(counts, exact_sequence_probabilities(step_weights, 3)) < P_FLOOR
    control = play(lambda seed: PlainSampler(rng.table_seed(seed, 1)).draw, step_weights, 3, N_GAMES)
    assert same_distribution(counts, control) < P_FLOOR


def test_residuals_equal_the_articles_normalized_positions():
    """The haystack's residual form draws exactly what the article's re-normalization draws."""

    def reference(seed):
        positions, occurrences = {}, {}

        def draw(weights):
            live = [i for i, w in enumerate(weights) if w > 0]
            if not live:
                return -1
            for i in live:
                if i not in positions:
                    positions[i] = random_exponential(U(seed), U(i), U(0))
                    occurrences[i] = 0
            projected = {i: positions[i] / weights[i] for i in live}
            winner = min(live, key=lambda i: (projected[i], i))
            for i in live:
                positions[i] = (projected[i] - projected[winner]) * weights[i]
            occurrences[winner] += 1
            positions[winner] = random_exponential(U(seed), U(winner), U(occurrences[winner]))
            return winner

        return draw

    schedule = np.random.default_rng(4)
    mismatches = 0
    for seed in range(150):
        haystack, article = Haystack(seed), reference(seed)
        for _ in range(40):
            weights = schedule.integers(0, 4, size=6).astype(float) * schedule.choice([0.25, 1.0, 7.0])
            mismatches += haystack.draw(weights) != article(weights)
    assert mismatches == 0


# --------------------------------------------------------------------------
# without replacement
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", ENGINE_NAMES)
def test_draw_many_without_replacement_is_multivariate_hypergeometric(name):
    from scipy.stats import multivariate_hypergeom

    pool = np.array([4, 3, 2, 1])
    draws_per_game, n_games = 4, 20_000
    observed = {}
    for seed in range(n_games):
        counts = pool.astype(float)
        drawn = make_sampler(name, seed).draw_many(counts, draws_per_game, replace=False)
        assert np.array_equal(counts, pool - np.bincount(drawn, minlength=4))
        key = tuple(np.bincount(drawn, minlength=4))
        observed[key] = observed.get(key, 0) + 1
    support = [k for k in np.ndindex(*(pool + 1)) if sum(k) == draws_per_game]
    exact = [multivariate_hypergeom.pmf(k, pool, draws_per_game) for k in support]
    assert goodness_of_fit([observed.get(k, 0) for k in support], exact) > P_FLOOR


@pytest.mark.parametrize("name", ENGINE_NAMES)
def test_draw_many_stops_when_the_pool_runs_out(name):
    counts = [2, 0, 1]
    drawn = make_sampler(name, 3).draw_many(counts, 10, replace=False)
    assert sorted(drawn.tolist()) == [0, 0, 2]
    assert counts == [0, 0, 0]


@pytest.mark.parametrize("name", ENGINE_NAMES)
def test_draw_many_equals_repeated_draw(name):
    weights = np.array([0.0, 2.5, 1.0, 7.0, 0.0, 3.0])
    many = make_sampler(name, 8).draw_many(weights, 500)
    one = make_sampler(name, 8)
    assert many.tolist() == [one.draw(weights) for _ in range(500)]

    pool = np.array([5.0, 0.0, 3.0, 2.0])
    many = make_sampler(name, 9).draw_many(pool.copy(), 7, replace=False)
    one, counts, singles = make_sampler(name, 9), pool.copy(), []
    for _ in range(7):
        singles.append(one.draw(counts))
        counts[singles[-1]] -= 1
    assert many.tolist() == singles


# --------------------------------------------------------------------------
# coupling across tables
# --------------------------------------------------------------------------

COUPLING_CASES = [
    ([1, 2, 3, 4], [1, 2, 3, 4]),
    ([1, 2, 3, 4], [4, 3, 2, 1]),
    ([29, 29, 29, 22, 22], [28, 29, 27, 22, 0]),
    ([5, 1, 0, 1], [0, 1, 5, 1]),
    ([1, 0, 0], [0, 1, 1]),
]


@pytest.mark.parametrize("p, q", COUPLING_CASES)
@pytest.mark.parametrize("engine", ["haystack", "keyed"])
def test_first_draw_agreement_is_the_p_minhash_closed_form(engine, p, q):
    n = 30_000
    if engine == "haystack":
        agree = sum(Haystack(seed).draw(p) == Haystack(seed).draw(q) for seed in range(n))
        different = sum(Haystack(seed).draw(p) == Haystack(seed + n).draw(q) for seed in range(n))
    else:
        agree = sum(keyed_draw(42, key, p) == keyed_draw(42, key, q) for key in range(n))
        different = sum(keyed_draw(42, key, p) == keyed_draw(43, key, q) for key in range(n))
    expected = agreement_probability(p, q)
    assert abs(agree / n - expected) <= 5 * np.sqrt(max(expected * (1 - expected), 1e-12) / n) + 1e-12
    independent = float(np.dot(np.divide(p, np.sum(p)), np.divide(q, np.sum(q))))
    assert abs(different / n - independent) <= 5 * np.sqrt(independent * (1 - independent) / n) + 1e-12


def test_agreement_formula_known_values():
    assert agreement_probability([1, 2, 3], [1, 2, 3]) == pytest.approx(1.0)
    assert agreement_probability([1, 0], [0, 1]) == 0.0
    # Two outcomes, p = (1/2, 1/2), q = (1/4, 3/4): 1 / (1 + 1) + ... computed by hand = 1/2 * ... below.
    # i=0: max(1, 1) + max(1, 3) = 4 -> 1/4 ; i=1: max(1, 1/3) + max(1, 1) = 2 -> 1/2 ; total 3/4 = 1 - TV.
    assert agreement_probability([1, 1], [1, 3]) == pytest.approx(0.75)


# --------------------------------------------------------------------------
# races across haystacks
# --------------------------------------------------------------------------


@pytest.mark.parametrize("equal_totals", [True, False])
def test_race_across_haystacks(equal_totals):
    weights = [[1.0, 1.0, 0.0], [0.0, 5.0, 5.0], [0.0, 0.0, 0.0]]
    n = 40_000
    counts = np.zeros(9)
    for seed in range(n):
        k, i = race([Haystack(3 * seed), Haystack(3 * seed + 1), Haystack(3 * seed + 2)], weights,
                    equal_totals=equal_totals)
        counts[3 * k + i] += 1
    exact = np.zeros(9)
    totals = [sum(w) for w in weights]
    for k in range(3):
        for i in range(3):
            if weights[k][i]:
                exact[3 * k + i] = (weights[k][i] / totals[k] / 2) if equal_totals else weights[k][i] / 12.0
    assert goodness_of_fit(counts, exact) > P_FLOOR


def test_consecutive_races_are_exact_and_keep_each_haystack_consistent():
    """Two seats deal a shared pool one card at a time; the joint sequence is exact.

    Then one seat draws alone: its state after the races must still be a fair haystack.
    """
    pool = np.array([2.0, 1.0, 1.0])
    n = 30_000
    pairs = np.zeros(36)
    solo = np.zeros(3)
    for seed in range(n):
        seats = [Haystack(2 * seed), Haystack(2 * seed + 1)]
        counts = pool.copy()
        code = 0
        for _ in range(2):
            k, i = race(seats, [counts, counts], equal_totals=False)
            counts[i] -= 1
            code = code * 6 + k * 3 + i
        pairs[code] += 1
        solo[seats[0].draw([1.0, 1.0, 2.0])] += 1
    exact = np.zeros(36)
    for code in range(36):
        first, second = divmod(code, 6)
        counts = pool.copy()
        probability = counts[first % 3] / (2 * counts.sum())
        counts[first % 3] -= 1
        exact[code] = probability * counts[second % 3] / (2 * counts.sum())
    assert goodness_of_fit(pairs, exact) > P_FLOOR
    assert goodness_of_fit(solo, [1, 1, 2]) > P_FLOOR


def test_race_validates_its_arguments():
    with pytest.raises(ValueError, match="one weight vector per haystack"):
        race([Haystack(1)], [[1.0], [1.0]])
    same = Haystack(1)
    with pytest.raises(ValueError, match="distinct"):
        race([same, same], [[1.0], [1.0]])
    with pytest.raises(ValueError, match="not a Haystack"):
        race([Haystack(1), PlainSampler(2)], [[1.0], [1.0]])
    assert race([Haystack(1), Haystack(2)], [[0.0], [0.0, 0.0]]) == (-1, -1)


# --------------------------------------------------------------------------
# state, laziness, layouts, validation
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", ENGINE_NAMES)
@pytest.mark.parametrize("layout", ["flat", "hierarchical"])
def test_state_round_trips_exactly_through_json(name, layout):
    weights = np.array([1.0, 0.0, 3.0, 2.0, 5.0, 0.5])
    tiers, starts = np.array([2.0, 1.0, 0.0]), np.array([0, 2, 4, 6])

    def step(sampler, i):
        w = weights * (1 + i % 3)
        w[i % 6] = 0.0
        if layout == "flat":
            return sampler.draw(w)
        return sampler.draw_hierarchical(tiers + (i % 2), w, starts)

    uninterrupted = make_sampler(name, 77)
    expected = [step(uninterrupted, i) for i in range(60)]
    first = make_sampler(name, 77)
    got = [step(first, i) for i in range(25)]
    restored = type(first).from_dict(json.loads(json.dumps(first.to_dict())))
    assert restored.to_dict() == first.to_dict()
    got += [step(restored, i) for i in range(25, 60)]
    assert got == expected


def test_from_dict_rejects_garbage_and_other_engines():
    with pytest.raises(ValueError, match="not a draw-engine state"):
        Haystack.from_dict({"engine": "haystack"})
    with pytest.raises(ValueError, match="not 'haystack'"):
        Haystack.from_dict(KeyedSampler(1).to_dict())
    state = Haystack(1).to_dict()
    state["needle_residual"] = [1.0]
    with pytest.raises(ValueError, match="differ in length"):
        Haystack.from_dict(state)


def test_outcomes_are_created_lazily():
    haystack = Haystack(5)
    haystack.draw([0.0, 1.0, 0.0, 2.0])
    assert haystack.created().tolist() == [1, 3]
    for _ in range(50):
        haystack.draw([0.0, 1.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0])
    assert haystack.created().tolist() == [1, 3]
    haystack.draw([4.0, 0.0, 0.0, 0.0])
    assert haystack.created().tolist() == [0, 1, 3]


def test_zero_weight_needles_are_untouched_while_parked():
    haystack = Haystack(9)
    haystack.draw([1.0, 1.0, 1.0])
    active = haystack.to_dict()
    assert haystack.draw([0.0, 1.0, 2.0]) != 0
    parked = haystack.to_dict()["needle_residual"][0]
    # Parking keeps the leftover normalized position as it was.
    assert parked == active["needle_residual"][0] > 0.0
    for _ in range(30):
        assert haystack.draw([0.0, 1.0, 2.0]) != 0
    assert haystack.to_dict()["needle_residual"][0] == parked


def test_layouts_cannot_be_mixed():
    haystack = Haystack(1)
    haystack.draw([1.0, 2.0])
    with pytest.raises(ValueError, match="another layout"):
        haystack.draw_hierarchical([1.0], [1.0, 2.0], [0, 2])
    other = Haystack(1)
    other.draw_hierarchical([1.0], [1.0, 2.0], [0, 2])
    with pytest.raises(ValueError, match="flat draws"):
        other.draw([1.0, 2.0])
    with pytest.raises(ValueError, match="another layout"):
        other.draw_hierarchical([1.0, 1.0], [1.0, 2.0], [0, 1, 2])


def test_power_of_two_scale_changes_nothing_and_extreme_scales_work():
    weights = np.array([1.0, 3.0, 0.0, 2.0])
    base = Haystack(3).draw_many(weights, 200)
    assert np.array_equal(Haystack(3).draw_many(weights * 2.0**40, 200), base)
    assert np.array_equal(Haystack(3).draw_many(weights * 2.0**-900, 200), base)
    for name in ENGINE_NAMES:
        draws = make_sampler(name, 1).draw_many([1e-310, 0.0, 3e-310], 2000)
        assert set(draws.tolist()) <= {0, 2} and 2 in draws
        draws = make_sampler(name, 1).draw_many([1e308, 1e308, 0.0], 2000)
        assert set(draws.tolist()) == {0, 1}


def test_plain_sampler_pins_its_documented_stream():
    weights = np.array([1.0, 2.0, 3.0, 4.0])
    u = rng.uniforms(123, rng.PLAIN_STREAM, 0, 50)
    expected = np.searchsorted(np.cumsum(weights), u * weights.sum(), side="right")
    assert PlainSampler(123).draw_many(weights, 50).tolist() == expected.tolist()
    u = rng.uniforms(123, rng.SEQUENCE_STREAM, 0, 50)
    expected = np.searchsorted(np.cumsum(weights), u * weights.sum(), side="right")
    assert make_sampler("stream", 123).draw_many(weights, 50).tolist() == expected.tolist()


@pytest.mark.parametrize("bad, message", [
    ([-1.0, 2.0], "non-negative"),
    ([np.nan, 1.0], "finite"),
    ([np.inf], "finite"),
    ([[1.0, 2.0]], "1-D"),
    (3.0, "1-D"),
    (["a"], "non-negative finite numbers"),
    ([1 + 2j], "real"),
])
@pytest.mark.parametrize("name", ENGINE_NAMES)
def test_invalid_weights_raise_a_clear_value_error(name, bad, message):
    with pytest.raises(ValueError, match=message):
        make_sampler(name, 1).draw(bad)


def test_other_invalid_arguments():
    with pytest.raises(ValueError, match="unknown engine"):
        make_sampler("shuffle", 1)
    with pytest.raises(ValueError, match="non-negative integer"):
        Haystack(1).draw_many([1.0], -1)
    with pytest.raises(ValueError, match="counts"):
        Haystack(1).draw_many(np.array([1.5, 2.0]), 2, replace=False)
    with pytest.raises(ValueError, match="in place"):
        Haystack(1).draw_many((1.0, 2.0), 2, replace=False)
    with pytest.raises(ValueError, match="tier_start"):
        Haystack(1).draw_hierarchical([1.0, 1.0], [1.0, 1.0], [0, 2, 1])
    with pytest.raises(ValueError, match="tier_start"):
        Haystack(1).draw_hierarchical([1.0, 1.0], [1.0, 1.0], [0, 1])
    with pytest.raises(ValueError, match="key"):
        keyed_draw(1, -3, [1.0])


def test_all_zero_or_empty_weights_draw_nothing():
    for name in ENGINE_NAMES:
        assert make_sampler(name, 1).draw([0.0, 0.0]) == -1
        assert make_sampler(name, 1).draw([]) == -1
        assert make_sampler(name, 1).draw_many([0.0], 5).size == 0
    assert keyed_draw(1, 2, [0.0, -0.0]) == -1


def test_keyed_race_is_the_full_race_on_its_documented_addresses():
    """Pruning and shared blocks change nothing: the winner is the full race's argmin."""
    schedule = np.random.default_rng(8)
    for trial in range(400):
        weights = schedule.integers(0, 5, size=schedule.integers(1, 12)).astype(float)
        weights *= schedule.choice([1e-3, 1.0, 50.0])
        seed, key = int(schedule.integers(0, 2**63)), int(schedule.integers(0, 2**63))
        values = []
        for j, w in enumerate(weights):
            bits = rng.random_bits_pair(U(seed), U(rng.KEYED_DOMAIN + (j >> 1)), U(key))[j & 1]
            values.append(rng.exponential_from_bits(U(bits)) / w if w > 0 else np.inf)
        expected = int(np.argmin(values)) if np.isfinite(min(values)) else -1
        assert keyed_draw(seed, key, weights) == expected


# --------------------------------------------------------------------------
# extremes: long runs, scales, states from outside
# --------------------------------------------------------------------------


def test_long_runs_with_tiny_weights_stay_exact():
    """Tiny weights make every gap ~1e5 (about 1e9 of elapsed time): residuals stay Exp(1)-sized."""
    weights = np.array([1e-5, 2e-5, 3e-5])
    haystack = Haystack(21)
    draws = haystack.draw_many(weights, 60_001)
    assert max(haystack.to_dict()["needle_residual"]) < 50.0
    assert goodness_of_fit(np.bincount(draws, minlength=3), weights) > P_FLOOR
    pairs = draws[:-1] * 3 + draws[1:]
    p = weights / weights.sum()
    assert goodness_of_fit(np.bincount(pairs, minlength=9), np.outer(p, p).ravel()) > P_FLOOR


def test_hierarchical_long_run_and_resume_match_an_uninterrupted_run():
    tiers, outcomes, starts = np.array([1e-6, 3e-6]), np.array([1e-6, 2e-6, 1e-6, 5e-6]), np.array([0, 2, 4])
    straight = Haystack(4)
    expected = [straight.draw_hierarchical(tiers, outcomes, starts) for _ in range(3000)]
    resumed, got = Haystack(4), []
    for chunk in range(10):
        got += [resumed.draw_hierarchical(tiers, outcomes, starts) for _ in range(300)]
        resumed = Haystack.from_dict(json.loads(json.dumps(resumed.to_dict(), allow_nan=False)))
    assert got == expected


@pytest.mark.parametrize("history", [
    [[1.0, 1e-320]],                                   # created with a weight far below the other
    [[1.0, 2.0**499], [1.0, 2.0**-530]],               # rescaled across 2**1029
    [[2.0**-1000, 1.0], [1.0, 2.0**-1070], [3.0, 1e300]],
    [[2.0**-501, 5e-324]],                             # a subnormal next to a tiny largest weight
    [[1.0, 1.0], [2.0**-100, 5e-324]],                 # rescaled to a subnormal
    [[1.0, 1.0], [1.0, 0.0], [2.0**-100, 5e-324]],     # parked, then woken with a subnormal
    [[1.0, 1.0]] * 300 + [[2.0**60, 2.0**60]],         # a jump of 2**60 in scale after a long run
])
def test_no_needle_is_blocked_by_extreme_weights(history):
    haystack = Haystack(12)
    for weights in history:
        haystack.draw(weights)
    json.dumps(haystack.to_dict(), allow_nan=False)
    draws = haystack.draw_many([1.0, 1.0], 4000)
    assert goodness_of_fit(np.bincount(draws, minlength=2), [1, 1]) > P_FLOOR


def test_equal_totals_never_leave_an_unrepresentable_weight():
    seats = [Haystack(1), Haystack(2)]
    many = np.ones(2**21)
    many[-1] = 2.0**-999  # survives scaling, but not division by a total of 2**20
    race(seats, [many, [1.0]])
    assert 2**21 - 1 not in seats[0].created()  # treated as zero, so never created
    assert np.all(np.isfinite(seats[0]._needles))


def test_weight_scale_jumps_do_not_bias_draws():
    haystack = Haystack(6)
    haystack.draw_many([1.0, 1.0], 1000)
    draws = haystack.draw_many([2.0**60, 2.0**60], 4000)
    assert goodness_of_fit(np.bincount(draws, minlength=2), [1, 1]) > P_FLOOR


def test_race_keeps_scales_comparable_across_haystacks():
    wins = [race([Haystack(2 * s), Haystack(2 * s + 1)], [[2.0**600], [1.0]], equal_totals=False)[0]
            for s in range(300)]
    assert wins == [0] * 300
    counts = np.zeros(2)
    for s in range(20_000):
        counts[race([Haystack(2 * s), Haystack(2 * s + 1)], [[2.0**-700 * 3], [2.0**-700]],
                    equal_totals=False)[0]] += 1
    assert goodness_of_fit(counts, [3, 1]) > P_FLOOR


def test_races_after_solo_draws_of_other_lengths_stay_exact():
    counts = np.zeros(6)
    for s in range(20_000):
        seats = [Haystack(2 * s), Haystack(2 * s + 1)]
        seats[0].draw_many(np.arange(8.0), 3)
        k, i = race(seats, [[1.0, 2.0], [0.0, 1.0, 2.0]], equal_totals=False)
        counts[3 * k + i] += 1
    assert goodness_of_fit(counts, [1, 2, 0, 0, 1, 2]) > P_FLOOR


@pytest.mark.parametrize("change", [
    {"layout": ["hierarchical", [0, 2, 4]], "needle_residual": [0.0], "needle_count": [0]},
    {"layout": ["spiral"]},
    {"layout": ["hierarchical", [0, 3, 2]]},
    {"needle_count": [-1, 0, 0, 0, 0, 0]},
    {"needle_residual": [-1.0, 0, 0, 0, 0, 0]},
    {"needle_residual": [1e300, 0, 0, 0, 0, 0]},
    {"needle_residual": [float("nan"), 0, 0, 0, 0, 0]},
    {"counter": 2**70},
    {"counter": -1},
    {"needle_residual": [[0.0]]},
    {"seed": -5},
    {"needle_residual": "abc"},
    {"needle_residual": [float("inf"), 0, 0, 0, 0, 0]},
    {"needle_residual": [float("-inf"), 0, 0, 0, 0, 0]},
    {"needle_count": [2**63 - 1, 0, 0, 0, 0, 0]},
    {"needle_count": [1.7, 0, 0, 0, 0, 0]},
    {"counter": 2**63 - 1},
    {"counter": 1.0},
    {"layout": ["hierarchical", [0, 2.9, 4]]},
    {"layout": ["hierarchical", ["0", "2", "4"]]},
])
def test_from_dict_refuses_inconsistent_states(change):
    haystack = Haystack(3)
    haystack.draw_hierarchical([1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [0, 2, 4])
    state = {**haystack.to_dict(), **change}
    with pytest.raises(ValueError, match="not a draw-engine state|seed"):
        Haystack.from_dict(state)


def test_from_dict_refuses_states_that_break_needle_invariants():
    haystack = Haystack(3)
    haystack.draw([1.0, 1.0, 0.0, 0.0])
    haystack.draw([0.0, 1.0, 0.0, 0.0])  # parks needle 0
    good = haystack.to_dict()
    Haystack.from_dict(good)
    residuals = good["needle_residual"]
    broken = [
        {"needle_residual": [residuals[0], residuals[1], 0.5, 0.0]},  # residual on a needle never created
        {"needle_residual": [residuals[0], -1e-3, 0.0, 0.0]},         # negative residual of an active needle
        {"needle_residual": [-0.5, residuals[1], 0.0, 0.0]},          # negative parked residual
    ]
    for change in broken:
        with pytest.raises(ValueError, match="not a draw-engine state"):
            Haystack.from_dict({**good, **change})


def test_needle_free_engines_refuse_needles_and_need_no_layout():
    state = PlainSampler(1).to_dict()
    assert state["layout"] is None and state["needle_residual"] == []
    with pytest.raises(ValueError, match="no needles"):
        PlainSampler.from_dict({**state, "layout": ["flat"]})
    for name in ("plain", "stream", "keyed"):
        sampler = make_sampler(name, 2)
        sampler.draw([1.0, 2.0])
        assert sampler.draw_hierarchical([1.0], [1.0, 2.0], [0, 2]) in (0, 1)


def test_the_base_class_is_abstract():
    from autodup import Sampler

    with pytest.raises(TypeError, match="abstract"):
        Sampler(1)


def test_failed_calls_change_nothing():
    counts = np.array([2.0, 3.0])
    counts.setflags(write=False)
    haystack = Haystack(5)
    before = haystack.to_dict()
    with pytest.raises(ValueError, match="read-only"):
        haystack.draw_many(counts, 2, replace=False)
    with pytest.raises(ValueError, match="replace must be True or False"):
        haystack.draw_many([1.0, 2.0], 2, replace="no")
    with pytest.raises(ValueError, match="finite"):
        haystack.draw([10**400, 1])
    assert haystack.to_dict() == before
    seats = [Haystack(1), Haystack(2)]
    with pytest.raises(ValueError, match="non-negative"):
        race(seats, [[1.0, 2.0], [-1.0]])
    assert seats[0].to_dict() == Haystack(1).to_dict()


# --------------------------------------------------------------------------
# the tree haystack (big pools): the same race, O(log n) a draw
# --------------------------------------------------------------------------


def tree_player(seed):
    return TreeHaystack(seed, n=3).draw


def frozen_tree_player(seed):
    """A wrong tree: a weight change is recorded but the needle's alarm keeps the old weight's time."""
    tree = TreeHaystack(seed, n=3)
    weights = tree._state[0]

    def draw(new_weights):
        for i, weight in enumerate(new_weights):
            if weights[i] == 0.0 or weight == 0.0:
                tree.set_weight(i, weight)  # creating and parking are done right
            else:
                weights[i] = weight
        return tree.draw()

    return draw


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_tree_haystack_sequences_are_exact(scenario):
    """Path-dependent sequences of three draws (weights parked, woken, raised and lowered by what was drawn):
    the exact law by enumeration, and the plain sampler as the control."""
    step_weights = SCENARIOS[scenario]
    counts = play(tree_player, step_weights, 3, N_GAMES)
    assert goodness_of_fit(counts, exact_sequence_probabilities(step_weights, 3)) > P_FLOOR
    control = play(lambda seed: PlainSampler(rng.table_seed(seed, 1)).draw, step_weights, 3, N_GAMES)
    assert same_distribution(counts, control) > P_FLOOR


def test_a_tree_that_ignores_weight_changes_is_caught_by_the_same_checks():
    counts = play(frozen_tree_player, adaptive_weights, 3, N_GAMES)
    assert goodness_of_fit(counts, exact_sequence_probabilities(adaptive_weights, 3)) < P_FLOOR


def test_tree_haystack_draws_a_big_pool_without_replacement_exactly():
    """5,000 outcomes, half of them at weight 3 and half at 1, drawn without replacement past the clock's
    rebases: each draw's outcome falls in the heavy half with the exact probability of the weights left
    (a sum of Bernoulli(p_k) against its mean, 4.5 sigma), and every copy is dealt once."""
    n = 5_000
    weights = np.where(np.arange(n) % 2 == 0, 3.0, 1.0)
    tree = TreeHaystack(11, weights)
    heavy_left, light_left = 3.0 * (n // 2), 1.0 * (n // 2)
    hits, expected, variance = 0, 0.0, 0.0
    dealt = np.zeros(n)
    for _ in range(int(weights.sum())):
        p = heavy_left / (heavy_left + light_left)
        i = tree.draw()
        heavy = i % 2 == 0
        hits += heavy
        expected += p
        variance += p * (1 - p)
        dealt[i] += 1
        tree.set_weight(i, tree.weight(i) - 1.0)
        heavy_left, light_left = heavy_left - heavy, light_left - (not heavy)
    assert tree.draw() == -1
    assert np.array_equal(dealt, weights)
    assert abs(hits - expected) < 4.5 * np.sqrt(variance)


def test_tree_haystack_couples_like_the_haystack():
    """The same seat seed and weights draw alike at every table; the first draw with weights p and q agrees
    as often as the P-MinHash closed form says (the haystack's coupling)."""
    p, q = np.array([1.0, 2.0, 3.0, 4.0]), np.array([1.0, 2.0, 4.0, 3.0])
    one_table, another = TreeHaystack(5, p), TreeHaystack(5, p)
    dealt = [one_table.draw() for _ in range(50)]
    assert dealt == [another.draw() for _ in range(50)]
    assert len(set(dealt)) == len(p)  # a sequence of draws, not one draw repeated
    n = 20_000
    agree = sum(TreeHaystack(seed, p).draw() == TreeHaystack(seed, q).draw() for seed in range(n))
    expected = agreement_probability(p, q)
    assert abs(agree / n - expected) < 4.5 * np.sqrt(expected * (1 - expected) / n)


def test_tree_haystack_refuses_bad_weights_and_outcomes():
    tree = TreeHaystack(1, n=3)
    for bad in (-1.0, np.inf, np.nan):
        with pytest.raises(ValueError, match="non-negative and finite"):
            tree.set_weight(0, bad)
    with pytest.raises(ValueError, match="out of range"):
        tree.set_weight(3, 1.0)
    assert tree.draw() == -1
