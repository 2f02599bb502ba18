"""The ziggurat exponential: its tables, its exp, each path's exact probability, the law, and mutants caught."""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from numba import njit

from autodup.engine import rng, ziggurat
from autodup.engine.ziggurat import (
    LAYERS,
    TAIL_START,
    exp_minus,
    exponential_from_low_bits,
    random_exponential,
    ziggurat_attempt,
    ziggurat_tables,
)

from .stats_helpers import P_FLOOR, goodness_of_fit

U = np.uint64
# The loops below are jitted without numba's file cache: it checks only this file, and they inline the
# ziggurat, so a cached copy would go on testing the engine as it was (autodup's cache covers its package only).
INSIDE, WIDTH, DENSITY = ziggurat_tables()
EDGES = WIDTH * 2.0**53                     # x_i; EDGES[0] is the base's virtual width
AREA = math.exp(-TAIL_START) * (TAIL_START + 1.0)  # v, each box's area
SAMPLES = 4_000_000
SEED = U(0x2166)


# --------------------------------------------------------------------------
# the tables
# --------------------------------------------------------------------------


def test_every_box_has_the_same_area_and_the_top_box_closes_at_zero():
    """Box i >= 1 spans [0, x_i] x [exp(-x_i), exp(-x_(i-1))] with x_0 = 0: all of area v, so r is the closure's root."""
    tops = np.r_[1.0, np.exp(-EDGES[1:-1])]
    areas = EDGES[1:] * (tops - np.exp(-EDGES[1:]))
    assert np.allclose(areas, AREA, rtol=1e-13, atol=0)
    assert EDGES[0] * math.exp(-TAIL_START) == pytest.approx(AREA, rel=1e-15)  # the base: r exp(-r) + exp(-r)
    assert EDGES[-1] == TAIL_START and INSIDE[1] == 0
    assert np.all(np.diff(EDGES[1:]) > 0)
    # The check has teeth: a root 3e-11 off leaves its top box's area visibly different from its v.
    def top_box_misfit(root):
        top = ziggurat_tables(root)[1][1] * 2.0**53
        area = math.exp(-float(root)) * (float(root) + 1.0)
        return abs(top * (1 - math.exp(-top)) / area - 1)

    assert top_box_misfit(ziggurat._TAIL_START_DIGITS) < 1e-13
    assert top_box_misfit("7.6971174701") > 1e-9


def test_tables_do_not_depend_on_the_working_precision():
    """Computed at 40 and at 60 digits, every float rounds the same way: the tables are the same on every platform."""
    for coarse, fine in zip(ziggurat_tables(digits=40), ziggurat_tables(digits=60)):
        assert np.array_equal(coarse, fine)
    assert [np.array_equal(a, b) for a, b in zip((ziggurat._INSIDE, ziggurat._WIDTH, ziggurat._DENSITY),
                                                  (INSIDE, WIDTH, DENSITY))] == [True] * 3


def test_inside_thresholds_are_the_boxes_fully_under_the_curve():
    """``inside[i]`` counts the 53-bit points left of the box above (x_(i-1)), within the edges' float rounding
    (each edge within 2**-53 of its own size, so a ratio within 2**-52: two points)."""
    ratios = [Fraction(EDGES[i - 1]) / Fraction(EDGES[i]) for i in range(2, LAYERS)]
    for i, ratio in zip(range(2, LAYERS), ratios):
        assert abs(int(INSIDE[i]) - math.floor(ratio * 2**53)) <= 2, i
    assert abs(int(INSIDE[0]) - math.floor(Fraction(TAIL_START) / Fraction(EDGES[0]) * 2**53)) <= 2
    assert INSIDE[1] == 0 and np.all(INSIDE < U(2**53))


def test_exp_minus_is_within_one_ulp_of_the_exact_value_and_exact_at_zero():
    """Against 40-digit decimals, not another libm: on a grid of the wedges' range, at random up to 700,
    at the box edges, and within a few ulps of each point where the reduction's k changes."""
    generator = np.random.default_rng(11)
    switches = [(k + 0.5) * math.log(2) for k in range(12)]
    near_switches = [x + j * math.ulp(x) for x in switches for j in range(-3, 4)]
    points = np.concatenate([np.linspace(0.0, TAIL_START, 2_001), generator.uniform(0, 700, 2_000),
                             EDGES[1:], np.array(near_switches + [0.0, 700.0])])
    worst = 0.0
    with localcontext() as context:
        context.prec = 40
        for x in points:
            exact = (-Decimal(float(x))).exp()
            got = exp_minus(float(x))
            worst = max(worst, float(abs(Decimal(got) - exact)) / math.ulp(float(exact)))
    assert worst < 1.0
    assert exp_minus(0.0) == 1.0


# --------------------------------------------------------------------------
# one attempt: each path with its exact probability
# --------------------------------------------------------------------------


@njit
def _attempts(seed, count):
    """Values of ``count`` single attempts on the blocks at ``(seed, 0, n)``, and each block's low half."""
    values = np.empty(count)
    lows = np.empty(count, dtype=np.uint64)
    for n in range(count):
        low, high = rng.random_bits_pair(seed, np.uint64(0), np.uint64(n))
        values[n] = ziggurat_attempt(low, high)
        lows[n] = low
    return values, lows


def exact_path_probabilities():
    """P(fast), P(tail), P(wedge accepted), P(rejected) of one attempt on uniform bits, from the geometry."""
    fast = float(np.sum(INSIDE.astype(np.float64))) / 2.0**53 / LAYERS
    tail = (1.0 - float(INSIDE[0]) / 2.0**53) / LAYERS
    wedge_accepted = 0.0
    for i in range(1, LAYERS):
        left = EDGES[i - 1] if i > 1 else 0.0
        # Under the curve and above the box's floor exp(-x_i), between x_(i-1) and x_i.
        under = math.exp(-left) - math.exp(-EDGES[i]) - (EDGES[i] - left) * math.exp(-EDGES[i])
        wedge_accepted += under / AREA / LAYERS
    rejected = 1.0 - fast - tail - wedge_accepted
    return np.array([fast, tail, wedge_accepted, rejected])


def test_one_attempt_takes_each_path_with_its_exact_probability():
    values, lows = _attempts(SEED, SAMPLES)
    layers = (lows & U(LAYERS - 1)).astype(np.int64)
    fast = (lows >> U(11)) < INSIDE[layers]
    tail = ~fast & (layers == 0)
    rejected = values < 0
    wedge_accepted = ~fast & ~tail & ~rejected
    assert np.all(values[tail] >= TAIL_START) and not np.any(rejected & (fast | tail))
    counts = np.array([fast.sum(), tail.sum(), wedge_accepted.sum(), rejected.sum()])
    probabilities = exact_path_probabilities()
    assert goodness_of_fit(counts, probabilities) > P_FLOOR
    # The closed form of all the boxes: a point of their union is under the curve with probability 1 / (256 v).
    accepted = 1.0 - probabilities[3]
    assert accepted == pytest.approx(1.0 / (LAYERS * AREA), rel=1e-9)
    standard_error = math.sqrt(accepted * (1 - accepted) / SAMPLES)
    assert abs((~rejected).mean() - 1.0 / (LAYERS * AREA)) < 5 * standard_error
    # Fast path 97.8% (the docstrings' figure), rejection 1.1%.
    assert round(probabilities[0], 3) == 0.978 and round(probabilities[3], 3) == 0.011


def test_forced_paths_on_crafted_bits():
    """The tail adds an Exp(1) past r; a wedge accepts at the floor of its box and rejects at its top."""
    top_integer = U(2**53 - 1) << U(11)
    for high, expected in ((U(0), TAIL_START), (U(2**63), TAIL_START + math.log(2))):
        assert ziggurat_attempt(top_integer | U(0), high) == pytest.approx(expected, rel=1e-15)
    for layer in (1, 2, 100, 255):
        # The wedge's left end (x near x_(i-1)) at the box's floor: y = exp(-x_i) < exp(-x).
        left = U(int(INSIDE[layer])) << U(11) | U(layer)
        assert ziggurat_attempt(left, U(0)) == float(INSIDE[layer]) * WIDTH[layer]
        # Its right end (x near x_i) near the box's top: y close to exp(-x_(i-1)) > exp(-x).
        assert ziggurat_attempt(top_integer | U(layer), U(2**64 - 1)) == -1.0
    assert ziggurat_attempt(U(5 << 11) | U(7), U(2**64 - 1)) == 5 * WIDTH[7]  # fast: the high half is not read


# --------------------------------------------------------------------------
# the law of the values, with retries, and mutants the same test catches
# --------------------------------------------------------------------------

# 200 bins of equal probability below r, then the tail beyond r in five bins.
_BODY = -np.log1p(-np.linspace(0, 1 - math.exp(-TAIL_START), 201))
BIN_EDGES = np.r_[_BODY[:-1], TAIL_START, TAIL_START + np.array([0.5, 1.0, 2.0, 4.0]), np.inf]
BIN_PROBABILITIES = np.exp(-BIN_EDGES[:-1]) - np.exp(-BIN_EDGES[1:])


@njit
def _values(seed, count):
    out = np.empty(count)
    for n in range(count):
        out[n] = random_exponential(seed, np.uint64(n % 61), np.uint64(n // 61))
    return out


def law_p_value(values):
    counts = np.histogram(values, BIN_EDGES)[0]
    assert counts.sum() == values.size
    return goodness_of_fit(counts, BIN_PROBABILITIES)


def test_values_are_exp1_in_fine_bins_and_in_the_tail():
    values = _values(SEED, SAMPLES)
    assert law_p_value(values) > P_FLOOR
    assert abs(values.mean() - 1.0) < 5 / math.sqrt(SAMPLES)          # sd of Exp(1) is 1
    assert abs(values.var() - 1.0) < 5 * math.sqrt(8 / SAMPLES)       # var of (X-1)^2 is 8


def test_a_rejected_attempt_retries_at_its_documented_address():
    """Attempt j of stream s reads (seed, s + j * 2**32, counter): in the needles' domain, no other needle's stream."""
    found = 0
    for counter in range(20_000):
        low, high = rng.random_bits_pair(SEED, U(3), U(counter))
        if ziggurat_attempt(U(low), U(high)) >= 0:
            continue
        attempt, value = 0, -1.0
        while value < 0:
            attempt += 1
            stream = 3 + attempt * 2**32
            assert rng.domain_of(stream).name == "needles" and stream >= rng.MAX_OUTCOMES
            value = ziggurat_attempt(*(U(half) for half in rng.random_bits_pair(SEED, U(stream), U(counter))))
        assert random_exponential(SEED, U(3), U(counter)) == value
        found += 1
    # As many rejected first attempts as their exact probability gives, within 4.5 standard errors (about 1.1%).
    rejected = exact_path_probabilities()[3]
    assert abs(found - 20_000 * rejected) <= 4.5 * math.sqrt(20_000 * rejected * (1 - rejected))


def test_a_value_from_its_computed_low_half_is_the_addressed_value():
    """``exponential_from_low_bits`` (needles created in a batch) on every path, the retries' included."""
    for counter in range(20_000):
        low = rng.inline_random_bits(SEED, U(3), U(counter))
        assert low == rng.random_bits(SEED, U(3), U(counter))
        assert exponential_from_low_bits(SEED, U(3), U(counter), U(low)) == random_exponential(SEED, U(3), U(counter))


@njit
def _mutant_values(seed, count, mutant):
    out = np.empty(count)
    for n in range(count):
        low, high = rng.random_bits_pair(seed, np.uint64(n % 61), np.uint64(n // 61))
        layer = low & np.uint64(255)
        integer = low >> np.uint64(11)
        x = np.float64(integer) * ziggurat._WIDTH[layer]
        if integer < ziggurat._INSIDE[layer]:
            out[n] = x
        elif layer == 0:
            # mutant 1: the tail's excess drawn uniform instead of exponential
            out[n] = TAIL_START + (rng.uniform_from_bits(high) if mutant == 1 else rng.exponential_from_bits(high))
        elif mutant == 0:
            out[n] = x  # mutant 0: every wedge point accepted
        else:  # mutant 1's wedge is the real one: the same block, then its retries
            out[n] = random_exponential(seed, np.uint64(n % 61), np.uint64(n // 61))
    return out


@pytest.mark.parametrize("mutant", [0, 1], ids=["wedge-always-accepted", "uniform-tail"])
def test_the_law_test_catches_a_wrong_ziggurat(mutant):
    assert law_p_value(_mutant_values(SEED, SAMPLES, mutant)) < P_FLOOR
