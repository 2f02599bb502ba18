"""The shuffle lab: every shuffle against its exact law, the 2020 article's two tables reproduced, the permutation
tests and the riffle distances against exact values, determinism, and the command."""

from __future__ import annotations

import itertools
import json
import math
import os
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numba
import numpy as np
import pytest
from scipy import stats

from autodup.labs import shuffle_kernels as lab_shuffle_kernels
from autodup.labs import shuffle_laws as lab_shuffle_laws
from autodup.labs import shuffles as lab_shuffles
from autodup.labs import shuffles_report as lab_shuffles_report
from tests.stats_helpers import P_FLOOR, goodness_of_fit

ROOT = Path(__file__).resolve().parents[1]
SIGMAS = 4.5


def run(*args):
    return subprocess.run([sys.executable, "-m", "autodup", *args], capture_output=True, text=True, timeout=600,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})


def permutation_counts(decks: np.ndarray) -> dict:
    counts: dict = {}
    for deck in map(tuple, decks):
        counts[deck] = counts.get(deck, 0) + 1
    return counts


def fits(decks: np.ndarray, law: dict) -> float:
    """Chi-square p-value of the decks against an exact law ``{permutation: probability}`` (no deck outside it);
    permutations expecting fewer than 5 decks are pooled."""
    seen = permutation_counts(decks)
    outside = set(seen) - set(law)
    assert not outside, f"impossible decks dealt: {sorted(outside)[:3]}"
    total = len(decks)
    common = [p for p in law if law[p] * total >= 5]
    rare = [p for p in law if law[p] * total < 5]
    observed = [seen.get(p, 0) for p in common] + ([sum(seen.get(p, 0) for p in rare)] if rare else [])
    expected = [float(law[p]) for p in common] + ([float(sum(law[p] for p in rare))] if rare else [])
    return goodness_of_fit(observed, expected)


def uniform_law(n: int) -> dict:
    return {p: Fraction(1, math.factorial(n)) for p in itertools.permutations(range(n))}


# --------------------------------------------------------------------------
# exact laws of each shuffle, written here independently of the lab
# --------------------------------------------------------------------------


def riffle_by_bits(deck, bits):
    """GSR: position i takes the next card of the top packet (as many cards as zero bits) when bit i is 0."""
    top = [card for card in deck[:bits.count(0)]]
    bottom = [card for card in deck[bits.count(0):]]
    return tuple(top.pop(0) if bit == 0 else bottom.pop(0) for bit in bits)


def riffle_law_by_enumeration(n: int, riffles: int) -> dict:
    law: dict = {tuple(range(n)): Fraction(1)}
    for _ in range(riffles):
        after: dict = {}
        for deck, probability in law.items():
            for bits in itertools.product((0, 1), repeat=n):
                shuffled = riffle_by_bits(deck, list(bits))
                after[shuffled] = after.get(shuffled, 0) + probability / 2**n
        law = after
    return law


def sleeve_riffle_law(n: int) -> dict:
    """The 2020 article's ``quasi_riffle_shuffle`` as a probability tree (its code, branch by branch)."""
    law: dict = {}

    def walk(cards, p1, p2, cut, packet, streak, flag, probability):
        if not (p1 < cut and p2 < n):
            final = tuple(cards + list(range(p1, cut)) + list(range(p2, n)))
            law[final] = law.get(final, 0) + probability
            return
        x, y = cut - p1, n - p2
        for right, chance in ((True, Fraction(y, x + y)), (False, Fraction(x, x + y))):
            if flag:
                if right:
                    walk(cards + [p2], p1, p2 + 1, cut, 1, streak + (packet == 0), 0 if packet == 0 else 1,
                         probability * chance)
                else:
                    walk(cards + [p1], p1 + 1, p2, cut, 0, streak + (packet == 1), 0 if packet == 1 else 1,
                         probability * chance)
            elif right:
                if packet:
                    if streak == 4:
                        walk(cards + [p1], p1 + 1, p2, cut, 0, 1, 0, probability * chance)
                    else:
                        walk(cards + [p2], p1, p2 + 1, cut, 1, streak + 1, 0, probability * chance)
                else:
                    walk(cards + [p2], p1, p2 + 1, cut, 1, 1, 0, probability * chance)
            else:
                if packet:
                    walk(cards + [p1], p1 + 1, p2, cut, 0, 1, 0, probability * chance)
                elif streak == 4:
                    walk(cards + [p2], p1, p2 + 1, cut, 1, 1, 0, probability * chance)
                else:
                    walk(cards + [p1], p1 + 1, p2, cut, 0, streak + 1, 0, probability * chance)

    for cut in range(n + 1):
        walk([], 0, cut, cut, -1, 0, 1, Fraction(math.comb(n, cut), 2**n))
    return law


def hindu_law(n: int) -> dict:
    """Packets of 7..12 from the top (the last clipped), the first packet at the bottom: every split, exactly."""
    law: dict = {}

    def walk(start, packets, probability):
        if start >= n:
            deck = tuple(card for first, stop in reversed(packets) for card in range(first, stop))
            law[deck] = law.get(deck, 0) + probability
            return
        for size in range(7, 13):
            walk(min(n, start + size), packets + [(start, min(n, start + size))], probability / 6)

    walk(0, [], Fraction(1))
    return law


def naive_swap_law(n: int) -> dict:
    law: dict = {}
    for choices in itertools.product(range(n), repeat=n):
        deck = list(range(n))
        for i, j in enumerate(choices):
            deck[i], deck[j] = deck[j], deck[i]
        law[tuple(deck)] = law.get(tuple(deck), 0) + Fraction(1, n**n)
    return law


@pytest.mark.parametrize("letters, n, deals", [("S", 4, 96_000), ("K", 4, 96_000), ("B", 4, 96_000),
                                                ("S", 5, 120_000), ("CS", 4, 48_000)])
def test_fair_shuffles_deal_every_permutation_equally(letters, n, deals):
    assert fits(lab_shuffle_kernels.decks(letters, n, deals), uniform_law(n)) > P_FLOOR


def test_the_riffle_matches_the_gsr_model_and_bayer_diaconis():
    for n, riffles in ((5, 1), (5, 2), (4, 3)):
        law = riffle_law_by_enumeration(n, riffles)
        # Bayer-Diaconis: a permutation's probability depends on its rising sequences alone.
        formula = lab_shuffle_laws.riffle_law(n, riffles)
        eulerian = lab_shuffle_laws.eulerian_numbers(n)
        for permutation in itertools.permutations(range(n)):
            position = np.argsort(permutation)
            rising = lab_shuffle_kernels.count_rising_sequences(position)
            assert law.get(permutation, 0) == formula[rising] / eulerian[rising]
        assert fits(lab_shuffle_kernels.decks("G" * riffles, n, 100_000), law) > P_FLOOR


def test_the_sleeved_riffle_is_the_articles_model():
    # From 7 cards on, a run of 5 from one packet after they alternate is possible for GSR, and not here.
    assert sleeve_riffle_law(6) == riffle_law_by_enumeration(6, 1)
    for n in (7, 9):
        law = sleeve_riffle_law(n)
        assert sum(law.values()) == 1 and law != riffle_law_by_enumeration(n, 1)
        assert fits(lab_shuffle_kernels.decks("R", n, 200_000), law) > P_FLOOR


def test_the_hindu_shuffle_is_the_articles_model():
    for n in (14, 20):
        assert fits(lab_shuffle_kernels.decks("H", n, 60_000), hindu_law(n)) > P_FLOOR
    # The article's reading of it with 40 cards: after one, the top card is at 29-34 (counted from 1), uniformly;
    # after three, never on top.
    one = lab_shuffle_kernels.decks("H", 40, 60_000)
    top_card = np.argmax(one == 0, axis=1)
    assert set(top_card) == set(range(28, 34))
    assert goodness_of_fit(np.bincount(top_card)[28:34], np.full(6, 1 / 6)) > P_FLOOR
    assert not (lab_shuffle_kernels.decks("HHH", 40, 50_000)[:, 0] == 0).any()


def test_the_cut_rotates_uniformly():
    decks = lab_shuffle_kernels.decks("C", 7, 70_000)
    top = decks[:, 0]  # the card on top says by how much the deck turned
    assert (decks == (np.arange(7)[None, :] + top[:, None]) % 7).all()
    assert goodness_of_fit(np.bincount(top, minlength=7), np.full(7, 1 / 7)) > P_FLOOR


def test_the_naive_swap_deals_its_exact_law_and_the_uniform_test_rejects_it():
    decks = lab_shuffle_kernels.decks("N", 3, 108_000)
    law = naive_swap_law(3)
    assert sorted(law.values()) == [Fraction(4, 27)] * 3 + [Fraction(5, 27)] * 3
    assert fits(decks, law) > P_FLOOR
    assert fits(decks, uniform_law(3)) < 1e-12


def test_bounded_integers_reject_exactly_the_lowest_remainder():
    """The values below 2**64 mod n are rejected; what is left holds every residue equally often."""
    top = 2**64 - 1
    for n in (3, 7, 40, 1000, 2**32 + 1):
        rejected = 2**64 % n
        assert (2**64 - rejected) % n == 0  # each residue is left exactly (2**64 - rejected) / n times
        if rejected:
            assert lab_shuffle_kernels.below_from_bits(np.uint64(rejected - 1), n) == -1
        assert lab_shuffle_kernels.below_from_bits(np.uint64(rejected), n) == rejected % n
        assert lab_shuffle_kernels.below_from_bits(np.uint64(top), n) == top % n
    assert lab_shuffle_kernels.below_from_bits(np.uint64(0), 4) == 0  # a power of two rejects nothing


# --------------------------------------------------------------------------
# exact figures
# --------------------------------------------------------------------------


def test_succession_and_eulerian_counts_match_enumeration():
    for n in range(1, 8):
        successions = [0] * n
        rising = [0] * (n + 1)
        for permutation in itertools.permutations(range(n)):
            deck = np.array(permutation)
            successions[lab_shuffle_kernels.count_successions(deck)] += 1
            rising[lab_shuffle_kernels.count_rising_sequences(np.argsort(deck))] += 1
        assert list(lab_shuffle_laws.succession_counts(n)) == successions
        assert list(lab_shuffle_laws.eulerian_numbers(n)) == rising
    for n in (40, 52):
        assert sum(lab_shuffle_laws.succession_counts(n)) == sum(lab_shuffle_laws.eulerian_numbers(n)) == math.factorial(n)
        assert all(sum(lab_shuffle_laws.riffle_law(n, k)) == 1 for k in range(1, 13))


def test_riffle_distance_matches_bayer_diaconis_and_enumeration():
    # Bayer & Diaconis (1992), Table 1: 52 cards.
    published = [1.000, 1.000, 1.000, 1.000, 0.924, 0.614, 0.334, 0.167, 0.085, 0.043]
    assert [round(lab_shuffle_laws.riffle_distance(52, k), 3) for k in range(1, 11)] == published
    for n, k in ((5, 1), (5, 2), (4, 3)):
        law = riffle_law_by_enumeration(n, k)
        brute = sum(abs(law.get(p, 0) - Fraction(1, math.factorial(n))) for p in itertools.permutations(range(n))) / 2
        assert lab_shuffle_laws.riffle_distance(n, k) == float(brute)


def test_riffles_needed_exact_and_simulated():
    for cards, needed in ((40, 6), (52, 7)):
        deals = 100_000
        result = lab_shuffles.riffles_needed(cards, deals=deals)
        assert result["needed"] == result["needed_simulated"] == needed
        assert min(result["p_values"]) > P_FLOOR
        for k, (exact, simulated) in enumerate(zip(result["exact"], result["simulated"]), start=1):
            # |simulated - exact| is at most half the L1 error of the rising-sequence shares, whose mean is at
            # most the sum below and which exceeds its mean by t with probability exp(-2 deals t^2) at most.
            law = np.array([float(p) for p in lab_shuffle_laws.riffle_law(cards, k)])
            bound = 0.5 * np.sqrt(law * (1 - law) / deals).sum() + math.sqrt(math.log(1e7) / (2 * deals))
            assert abs(simulated - exact) <= bound, (cards, k, simulated, exact, bound)


def test_expected_duplicates_by_hand():
    p = Fraction(1, 40)
    by_hand = 1600 * sum(math.comb(100, v) * p**v * (1 - p) ** (100 - v) for v in (2, 3))
    assert lab_shuffle_laws.expected_duplicates(40, 100) == pytest.approx(float(by_hand), rel=1e-12)
    assert lab_shuffle_laws.duplicate_values(40, 100) == (2, 3) and lab_shuffle_laws.duplicate_values(50, 100) == (2, 2)


def test_merged_chi_square():
    assert lab_shuffle_laws.merged_chi_square([50, 50], [0.5, 0.5]) == pytest.approx(1.0)
    assert lab_shuffle_laws.merged_chi_square([100, 0], [1.0, 0.0]) == 1.0  # one category once merged
    assert lab_shuffle_laws.merged_chi_square([90, 9, 1], [0.9, 0.1, 0.0]) == 0.0  # seen where the law puts nothing
    # 60 observations expect 30, 24, 2.4, 1.8, 1.8: the last three are merged into one category expecting 6.
    p = lab_shuffle_laws.merged_chi_square([30, 25, 2, 1, 2], [0.5, 0.4, 0.04, 0.03, 0.03])
    assert p == pytest.approx(stats.chisquare([30, 25, 5], [30, 24, 6]).pvalue)


# --------------------------------------------------------------------------
# the 2020 article's protocol
# --------------------------------------------------------------------------


REPLICATES = 10  # as many as `autodup shuffles` plays by default


@pytest.fixture(scope="module")
def article_methods():
    return {name: lab_shuffles.study_method(name, replicates=REPLICATES)[0] for name in lab_shuffle_kernels.ARTICLE_DUPLICATES}


def test_the_articles_duplicates_are_reproduced(article_methods):
    for name, published in lab_shuffle_kernels.ARTICLE_DUPLICATES.items():
        method = article_methods[name]
        # Both are averages of 500 runs of the same shuffle: their difference has sqrt(2) standard errors.
        z = (method["duplicates"] - published) / (math.sqrt(2) * method["duplicates_se"])
        assert abs(z) < SIGMAS, (name, method["duplicates"], published)
        assert method["article"]["duplicates_agree"]
    # What the article's figure cannot see: the cut scores like the ideal shuffle (uniform positions).
    expected = lab_shuffle_laws.expected_duplicates(40, 100)
    for name in ("S", "C", "CCC"):
        method = article_methods[name]
        assert abs(method["duplicates"] - expected) < SIGMAS * method["duplicates_se"]


def test_the_articles_rejection_counts_are_reproduced(article_methods):
    # One more draw of a count whose mean and sd come from REPLICATES replicates lies within t(REPLICATES - 1) of
    # them (two-sided, at the level of 4.5 normal sigmas).
    quantile = stats.t.ppf(1 - stats.norm.sf(SIGMAS), REPLICATES - 1)
    for name, published in lab_shuffle_kernels.ARTICLE_REJECTIONS.items():
        method = article_methods[name]
        counts = np.array(method["replicates"]["chi2_rejections"])
        if name in ("C", "CCC"):
            # A rotation's tests are one test: all or none reject, and the published count can only be 0 or 80.
            assert method["chi2_one_test"] and set(counts) <= {0, 80} and published in (0, 80)
        else:
            assert not method["chi2_one_test"]
            spread = counts.std(ddof=1) * math.sqrt(1 + 1 / counts.size)
            assert abs(published - counts.mean()) <= max(quantile * spread, 0.5), (name, counts, published)
        assert method["article"]["chi2_rejections_agree"]


def test_a_figure_the_model_cannot_give_is_flagged():
    """The agreement rule flags what these shuffles would not produce: 6 rejections for the cut, 80 for the ideal."""
    cut = lab_shuffles.study_method("C", replicates=3)[0]
    assert [lab_shuffles.rejections_agree(cut, count) for count in (0, 6, 40, 80)] == [True, False, False, True]
    ideal = lab_shuffles.study_method("S", replicates=REPLICATES)[0]
    assert [lab_shuffles.rejections_agree(ideal, count) for count in (0, 6, 40, 80)] == [True, True, False, False]
    assert lab_shuffles.rejections_agree(lab_shuffles.study_method("S", replicates=1)[0], 6) is None


# Issue 27, item 14: two replicates of S both rejected 4 tests, and the lab called the article's 6 a difference.
FEW_REPLICATES = (1, 2, 3)


def counted(counts, tests=80) -> dict:
    """The part of a method's summary that :func:`rejections_agree` reads, for replicates that rejected ``counts``."""
    return {"chi2_one_test": False, "chi2_tests": tests, "replicates": {"chi2_rejections": list(counts)}}


def test_the_replicates_needed_are_the_fewest_that_can_tell_a_count_apart():
    # Recomputed here: the prediction interval of one more replicate at the lab's level, at the finest spread r
    # integer counts can show (r - 1 equal, one off by 1: sd 1 / sqrt(r)), against half the range 0..80.
    def narrowest(r):
        return stats.t.ppf(1 - stats.norm.sf(4.5), r - 1) * math.sqrt(1 + 1 / r) / math.sqrt(r)

    needed = lab_shuffles.replicates_needed(80)
    assert needed == 4 and narrowest(needed - 1) >= 40 > narrowest(needed)
    assert lab_shuffles.replicates_needed(6) > lab_shuffle_kernels.DEFAULT_REPLICATES  # 3 cards: too few tests
    for r in range(1, needed):
        assert all(lab_shuffles.rejections_agree(counted([40] * (r - 1) + [41]), c) is None for c in range(81))
    # From 4 on, a count far from every replicate is told apart, even mid-range.
    assert [lab_shuffles.rejections_agree(counted([40, 40, 40, 41]), c) for c in (0, 40, 80)] == [False, True, False]
    with pytest.raises(ValueError, match="tests: 0"):
        lab_shuffles.replicates_needed(0)


def test_equal_counts_are_not_taken_as_no_spread():
    # Four replicates of a fair count that happened to agree: 6 is as likely a draw as 4.
    assert lab_shuffles.rejections_agree(counted([4] * 4), 6) is True
    assert lab_shuffles.rejections_agree(counted([4] * 4), 45) is False
    # A count pinned at 80 (every test rejects, every time) keeps a narrow interval: +-3 at 10 replicates.
    assert [lab_shuffles.rejections_agree(counted([80] * 10), c) for c in (80, 77, 76, 40)] == [True, True, False,
                                                                                                 False]


@pytest.mark.parametrize("replicates", FEW_REPLICATES)
@pytest.mark.parametrize("letters", ["S", "K", "B"])
def test_a_fair_shuffle_with_too_few_replicates_is_not_judged(letters, replicates):
    summary = lab_shuffles.study_method(letters, replicates=replicates)[0]
    assert all(lab_shuffles.rejections_agree(summary, count) is None for count in range(81))
    if letters == "S":  # the one of the three the article published
        article = summary["article"]
        assert article["chi2_rejections_verdict"] == "cannot judge" and article["chi2_rejections_agree"] is None
        assert article["chi2_rejections_replicates_needed"] == 4
        # The duplicates' standard error comes from the 500 runs, not from the replicates: judged at any number.
        assert article["duplicates_verdict"] == "ok" and article["duplicates_agree"] is True


@pytest.mark.parametrize("replicates", FEW_REPLICATES)
def test_the_table_says_it_cannot_judge_and_how_many_replicates_it_needs(replicates):
    result, _ = lab_shuffles.shuffle_lab({"S": "S", "K": "K", "B": "B", "C": "C"}, replicates=replicates,
                                         riffle_deals=0)
    text = lab_shuffles_report.format_shuffles(result)
    assert "DIFFERS" not in text and not re.search(r"\bnan\b", text, re.I), text
    row = next(line for line in text.splitlines() if line.startswith("S "))
    assert "760.478 ok" in row and "6 cannot judge (needs ≥ 4 replicates)" in row, row
    cut = next(line for line in text.splitlines() if line.startswith("C "))
    assert "0 ok" in cut and "cannot judge" not in cut  # a rotation's 0 or 80 is a fact of its matrix
    assert (f"- With {replicates} replicate{'s' if replicates > 1 else ''} the lab cannot judge the article's "
            "rejection counts (S): it needs at least 4 (--replicates 4).") in text


def test_the_command_json_carries_the_judgement_with_too_few_replicates():
    done = run("shuffles", "--methods", "S,B,C", "--replicates", "2", "--riffle-deals", "0", "--json")
    assert done.returncode == 0, done.stderr

    def no_nan(constant):
        raise AssertionError(f"{constant} in the JSON")

    result = json.loads(done.stdout, parse_constant=no_nan)
    s, cut = result["methods"]["S"]["article"], result["methods"]["C"]["article"]
    assert (s["chi2_rejections_verdict"], s["chi2_rejections_agree"], s["chi2_rejections_replicates_needed"]) == (
        "cannot judge", None, 4)
    assert s["duplicates_verdict"] == "ok"
    assert (cut["chi2_rejections_verdict"], cut["chi2_rejections_replicates_needed"]) == ("ok", 1)


def test_a_wrong_shuffle_is_still_caught_at_the_default_replicates():
    """The naive swap against the ideal shuffle's published figures, and the ideal against the naive swap's."""
    naive = lab_shuffles.study_method("N", replicates=lab_shuffle_kernels.DEFAULT_REPLICATES)[0]
    ideal = lab_shuffles.study_method("S", replicates=lab_shuffle_kernels.DEFAULT_REPLICATES)[0]
    assert ideal["article"]["chi2_rejections_verdict"] == ideal["article"]["duplicates_verdict"] == "ok"
    assert lab_shuffles.rejections_agree(naive, lab_shuffle_kernels.ARTICLE_REJECTIONS["S"]) is False
    assert lab_shuffles.duplicates_agree(naive, lab_shuffle_kernels.ARTICLE_DUPLICATES["S"]) is False
    assert lab_shuffles.rejections_agree(ideal, naive["chi2_rejections"]) is False
    assert lab_shuffles.agreement_verdict(lab_shuffles.rejections_agree(naive, 6)) == "differs"


def test_the_cut_rejects_all_or_nothing_at_the_tests_level():
    counts = [lab_shuffle_laws.judge(lab_shuffle_laws.run_experiment("C", replicate=r, marked_deals=0)).rejections for r in range(200)]
    assert set(counts) <= {0, 80}
    share = counts.count(80) / len(counts)
    assert abs(share - 0.05) < SIGMAS * math.sqrt(0.05 * 0.95 / len(counts))


# --------------------------------------------------------------------------
# verdicts
# --------------------------------------------------------------------------


@pytest.mark.parametrize("letters, positions, order", [
    ("S", True, True), ("K", True, True), ("B", True, True), ("CS", True, True),
    ("C", True, False), ("CCC", True, False),   # uniform positions, rotated order: only the permutation test sees it
    ("N", False, None),                        # the naive swap: the position test catches it
    ("HHH", False, False), ("GGGGGGG", None, False),
])
def test_verdicts(letters, positions, order):
    verdict = lab_shuffle_laws.judge(lab_shuffle_laws.run_experiment(letters, marked_deals=0))
    if positions is not None:
        assert verdict.position_passed == positions, verdict
    if order is not None:
        assert verdict.permutation_passed == order, verdict
    assert (verdict.text == "fair") == bool(positions and order)


def test_a_fair_shuffle_fails_at_the_stated_rate():
    """Over 60 replicates of the ideal shuffle, the permutation tests' p-values are uniform, and the position
    test's smallest p-value, times the number of them (Bonferroni), is no smaller than a uniform: so no part of
    the verdict errs more often than its share of ALPHA. The count of verdicts that are not "fair" only bounds
    gross errors: 60 replicates cannot resolve a rate of 0.001."""
    experiments = [lab_shuffle_laws.run_experiment("S", runs=100, replicate=r, marked_deals=0) for r in range(60)]
    verdicts = [lab_shuffle_laws.judge(experiment) for experiment in experiments]
    for name in ("successions_p", "rising_p"):
        values = [getattr(v, name) for v in verdicts]
        assert stats.kstest(values, "uniform").pvalue > P_FLOOR, name
    tests = lab_shuffle_laws.position_p_values(experiments[0].matrix).size
    adjusted = [min(1.0, tests * v.position_p) for v in verdicts]
    # One-sided: a conservative p-value may sit above the uniform, not below it.
    assert stats.kstest(adjusted, "uniform", alternative="greater").pvalue > P_FLOOR
    assert sum(v.text != "fair" for v in verdicts) <= 3  # expected 0.06 at ALPHA = 0.001


# --------------------------------------------------------------------------
# addresses and determinism
# --------------------------------------------------------------------------


def test_a_method_is_addressed_by_its_letters():
    assert lab_shuffle_kernels.parse_method("g7") == "GGGGGGG"
    assert (lab_shuffle_kernels.decks("G7", 40, 500) == lab_shuffle_kernels.decks("GGGGGGG", 40, 500)).all()
    assert (lab_shuffle_kernels.decks("S", 40, 100, first=50) == lab_shuffle_kernels.decks("S", 40, 150)[50:]).all()
    assert not (lab_shuffle_kernels.decks("S", 40, 100, seed=1) == lab_shuffle_kernels.decks("S", 40, 100, seed=2)).all()
    alone, _ = lab_shuffles.shuffle_lab({"C": "C"}, replicates=2, riffle_deals=0)
    with_others, _ = lab_shuffles.shuffle_lab({"S": "S", "C": "C"}, replicates=2, riffle_deals=0)
    assert alone["methods"]["C"] == with_others["methods"]["C"]


def test_results_do_not_depend_on_threads():
    default = lab_shuffle_laws.run_experiment("RRH", runs=130)
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        single = lab_shuffle_laws.run_experiment("RRH", runs=130)
    finally:
        numba.set_num_threads(threads)
    for field in ("duplicates", "matrix", "successions", "rising", "neighbours", "marked"):
        assert (getattr(default, field) == getattr(single, field)).all(), field


def test_the_experiment_counts_the_decks_it_deals():
    experiment = lab_shuffle_laws.run_experiment("RH", runs=3, shuffles=40, marked_deals=50)
    decks = lab_shuffle_kernels.decks("RH", 40, 120)
    matrix = np.zeros((40, 40), dtype=np.int64)
    for deck in decks:
        matrix[np.arange(40), deck] += 1
    assert (matrix == experiment.matrix).all()
    positions = np.argsort(decks, axis=1)
    assert (experiment.marked == positions[:50][:, experiment.markers]).all()
    neighbours = np.bincount((positions[:, 1:] - positions[:, :-1]).ravel() + 39, minlength=79)
    assert (neighbours == experiment.neighbours).all()
    assert lab_shuffle_laws.duplicate_values(40, 40) == (1, 1)
    for r in range(3):
        run_matrix = np.zeros((40, 40), dtype=np.int64)
        for deck in decks[r * 40:(r + 1) * 40]:
            run_matrix[np.arange(40), deck] += 1
        assert experiment.duplicates[r] == (run_matrix == 1).sum()


# --------------------------------------------------------------------------
# the command
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def lab_page(tmp_path_factory):
    out = tmp_path_factory.mktemp("shuffles") / "lab"
    done = run("shuffles", "--methods", "S,c,G3", "--replicates", "2", "--riffle-deals", "2000", "--json",
               "--out", str(out))
    assert done.returncode == 0, done.stderr
    return out, done.stdout


def test_command_json_and_page(lab_page):
    out, stdout = lab_page
    result = json.loads(stdout)
    assert list(result["methods"]) == ["S", "C", "G3"]
    for method in result["methods"].values():
        assert {"duplicates", "chi2_rejections", "permutation_test_passed", "position_test_passed",
                "verdict"} <= set(method)
    assert result["methods"]["S"]["verdict"] == "fair" and not result["methods"]["C"]["permutation_test_passed"]
    assert result["methods"]["C"]["article"]["duplicates"] == lab_shuffle_kernels.ARTICLE_DUPLICATES["C"]
    assert set(result["riffles"]) == {"40", "52"} and result["riffles"]["52"]["needed"] == 7
    assert json.loads((out / "shuffles.json").read_text()) == result
    page = (out / "shuffles.html").read_text()
    pngs = sorted(p.name for p in out.glob("*.png"))
    assert pngs == sorted(["riffles.png"] + [f"{kind}-{name}.png" for kind in ("scatter", "neighbours")
                                             for name in ("S", "C", "G3")])
    assert page.count('src="data:image/png;base64,') == len(pngs)
    assert all((out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for name in pngs)


def test_a_headless_browser_renders_every_picture(lab_page, tmp_path):
    from tests.browser import render

    out, _ = lab_page
    pictures = len(list(out.glob("*.png")))
    seen = render(out / "shuffles.html", tmp_path / "profile")
    assert seen.get("images") == str(pictures) and seen.get("images-loaded") == str(pictures), seen.get("images")
    assert seen.get("errors") == "0" and not seen["console"], (seen.get("errors"), seen["console"])


def test_command_table():
    done = run("shuffles", "--methods", "S,C", "--replicates", "1", "--riffle-deals", "0")
    assert done.returncode == 0, done.stderr
    assert "order not random" in done.stdout and "fair" in done.stdout and "needed" in done.stdout
    assert "(uniform)" in done.stdout and f"{lab_shuffle_laws.expected_duplicates(40, 100):.1f}" in done.stdout


@pytest.mark.parametrize("args, message", [
    (["--methods", "S,X"], "'X' in 'X' is not a shuffle"),
    (["--methods", "S,s"], "lists S twice"),
    (["--methods", "S,"], "a method is empty"),
    (["--methods", "G0"], "a count is at least 1"),
    (["--methods", "G300"], "more than 256 shuffles"),
    (["--cards", "2"], "--cards: 2 is out of range"),
    (["--cards", "-4"], "--cards: -4 is out of range (allowed: 3 to 1,000)"),
    (["--cards", "1001"], "--cards: 1,001 is out of range"),
    (["--replicates", "0"], "--replicates"),
    (["--runs", "200000", "--shuffles", "1000"], "at most 100,000,000"),
])
def test_command_errors_are_one_line(args, message, tmp_path):
    out = tmp_path / "lab"
    done = run("shuffles", *args, "--out", str(out))
    assert done.returncode == 2
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert not out.exists()


def test_an_out_folder_that_is_a_file_is_refused(tmp_path):
    taken = tmp_path / "taken"
    taken.write_text("mine")
    done = run("shuffles", "--methods", "S", "--out", str(taken))
    assert done.returncode == 2 and "is a file" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert taken.read_text() == "mine"


def test_ctrl_c_stops_the_lab_with_one_line_and_writes_nothing(tmp_path):
    import signal
    import time

    out = tmp_path / "lab"
    process = subprocess.Popen([sys.executable, "-m", "autodup", "shuffles", "--runs", "100000", "--out", str(out)],
                               cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    time.sleep(4)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    assert stderr.strip().splitlines()[-1] == "autodup: interrupted"
    assert not out.exists()


# --------------------------------------------------------------------------
# decks dealt elsewhere
# --------------------------------------------------------------------------


def test_decks_from_a_file_are_counted_as_the_lab_counts_its_own(tmp_path):
    decks = lab_shuffle_kernels.decks("RH", 40, 5_050)
    text = tmp_path / "mine.csv"
    text.write_text("# my game's shuffle\n" + "\n".join(",".join(str(c + 1) for c in deck) for deck in decks) + "\n")
    read = lab_shuffles.read_decks(text)
    assert (read == decks).all()  # cards 1..n read as 0..n-1
    given = lab_shuffle_laws.count_decks(read)
    own = lab_shuffle_laws.run_experiment("RH", runs=50)  # the first 5,000 of the same decks
    assert given.runs == 50 and (given.duplicates == own.duplicates).all()
    whole = lab_shuffle_laws.count_decks(read[:5_000])
    for field in ("matrix", "successions", "rising", "neighbours"):
        assert (getattr(whole, field) == getattr(own, field)).all(), field
    assert given.matrix.sum() == 5_050 * 40  # the last, shorter run is counted everywhere but in the duplicates


def test_the_command_judges_decks_from_files_against_the_ideal_control(tmp_path):
    np.save(tmp_path / "fair.npy", lab_shuffle_kernels.decks("S", 30, 20_000, seed=5))
    np.save(tmp_path / "cut.npy", lab_shuffle_kernels.decks("C", 30, 20_000, seed=5))
    done = run("shuffles", "--decks", str(tmp_path / "fair.npy"), "--decks", str(tmp_path / "cut.npy"),
               "--replicates", "1", "--riffle-deals", "0", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["cards"] == 30 and list(result["methods"]) == ["S", "fair", "cut"]
    assert result["methods"]["fair"]["verdict"] == "fair" and result["methods"]["fair"]["deals"] == 20_000
    assert result["methods"]["cut"]["verdict"] == "order not random"
    assert result["methods"]["cut"]["position_test_passed"]


@pytest.mark.parametrize("content, message", [
    ("0 1 2 3\n0 1 2\n", ":2: 3 cards where the first deck has 4"),
    ("0 1 2 3\n0 1 1 3\n", ":2: not a deck of cards 0..3: card 1 appears 2 times"),
    ("0 1 2 3\n0 1 2 9\n", ":2: not a deck of cards 0..3: card 9 is outside 0..3"),
    ("0 1 2 3\n-1 0 1 2\n", ":2: not a deck of cards 0..3: card -1 is outside 0..3"),
    ("0 1 x 3\n", ":1: 'x' is not a card number"),
    ("0 1 --3 2\n", ":1: '--3' is not a card number"),
    ("# nothing\n\n", "no deck in it"),
    ("0 1\n1 0\n", "a deck of 2 cards"),
])
def test_bad_deck_files_are_refused_in_one_line(tmp_path, content, message):
    path = tmp_path / "decks.txt"
    path.write_text(content)
    done = run("shuffles", "--decks", str(path), "--out", str(tmp_path / "out"))
    assert done.returncode == 2
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert not (tmp_path / "out").exists()


def test_deck_files_that_disagree_with_the_lab_are_refused(tmp_path):
    np.save(tmp_path / "a.npy", lab_shuffle_kernels.decks("S", 10, 10))
    np.save(tmp_path / "b.npy", lab_shuffle_kernels.decks("S", 12, 10))
    (tmp_path / "A.txt").write_text("0 1 2 3 4 5 6 7 8 9\n")
    (tmp_path / "short.npy").write_bytes(np.lib.format.magic(1, 0))  # a header cut short
    (tmp_path / "huge.txt").write_text(f"0 1 2 {2**63} 4\n")  # beyond int64
    (tmp_path / "folder").mkdir()
    for args, message in ((["--decks", str(tmp_path / "a.npy"), "--decks", str(tmp_path / "b.npy")],
                           "decks of 10 and 12 cards"),
                          (["--decks", str(tmp_path / "a.npy"), "--cards", "40"], "--cards: 40: the decks hold 10"),
                          (["--decks", str(tmp_path / "a.npy"), "--decks", str(tmp_path / "a.npy")],
                           "would both be called a"),
                          (["--decks", str(tmp_path / "missing.npy")], "no such file"),
                          (["--decks", str(tmp_path / "short.npy")], "not a numpy array file"),
                          (["--decks", str(tmp_path / "huge.txt")], f"huge.txt:1: card {2**63} is outside every deck"),
                          (["--decks", str(tmp_path / "folder")], "a folder, not a file of decks"),
                          (["--decks", str(tmp_path / "a.npy"), "--decks", str(tmp_path / "A.txt")],
                           "would both be called A")):
        done = run("shuffles", *args)
        assert done.returncode == 2 and message in done.stderr, (args, done.stderr)
        assert len(done.stderr.strip().splitlines()) == 1


def test_small_samples_are_warned_about_and_small_decks_have_distinct_markers(tmp_path):
    assert list(lab_shuffle_laws.marker_cards(3)) == [0, 1, 2] and list(lab_shuffle_laws.marker_cards(52)) == [0, 13, 26, 39]
    done = run("shuffles", "--methods", "S", "--cards", "40", "--runs", "1", "--replicates", "1",
               "--riffle-deals", "0")
    assert done.returncode == 0, done.stderr
    assert "autodup: warning: S: 100 deals of 40 cards, fewer than 5 per cell" in done.stderr


def test_the_control_gets_as_many_deals_as_the_file(tmp_path):
    np.save(tmp_path / "mine.npy", lab_shuffle_kernels.decks("S", 20, 1_234, seed=3))
    done = run("shuffles", "--decks", str(tmp_path / "mine.npy"), "--replicates", "1", "--riffle-deals", "0",
               "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["runs"] == 13 and result["deals"] == 1_300 and result["methods"]["mine"]["deals"] == 1_234
