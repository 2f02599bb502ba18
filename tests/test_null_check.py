"""The null check (two copies of one bot): its statistics calibrated on simulated differences, a biased estimator
and dependent boards caught, the copy playing exactly as the original (set4's default quality passes it: see
tests/test_quality.py)."""

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from autodup.analysis.null_check import NULL_ALPHA, NULL_GROUPS, group_z_scores, null_check_size_note, null_lineup
from autodup.game.bot_loading import load_bot
from tests.stats_helpers import P_FLOOR

BOARDS = 1000
RUNS = 400


def _simulated(shift: float = 0.0, correlation: float = 0.0, seed: int = 0) -> np.ndarray:
    """``BOARDS`` per-board differences: noise of sd 1 (AR(1) across boards with ``correlation``), plus ``shift``."""
    rng = np.random.default_rng(seed)
    noise = rng.standard_normal(BOARDS)
    for b in range(1, BOARDS):
        noise[b] = correlation * noise[b - 1] + np.sqrt(1 - correlation ** 2) * noise[b]
    return noise + shift


def test_an_honest_estimator_is_called_consistent_about_as_often_as_its_level_says():
    flagged, spreads, p_means, p_sds = 0, [], [], []
    for seed in range(RUNS):
        figures = group_z_scores(_simulated(seed=seed))
        flagged += not figures["consistent"]
        spreads.append(figures["z_sd"])
        p_means.append(figures["p_mean"])
        p_sds.append(figures["p_sd"])
    # On normal differences both tests are exact: each p-value is uniform on [0, 1] (a one-sided check of the false
    # alarms alone would pass a check that never flags).
    assert stats.kstest(p_means, "uniform").pvalue > P_FLOOR
    assert stats.kstest(p_sds, "uniform").pvalue > P_FLOOR
    # Two tests at NULL_ALPHA each: the false alarms are at most Binomial(RUNS, 1 - (1 - NULL_ALPHA)^2), whose
    # tail beyond this count has probability under 3e-6.
    assert flagged <= stats.binom.isf(3e-6, RUNS, 1 - (1 - NULL_ALPHA) ** 2), flagged
    # The groups' z-scores have sd 1: its mean over runs within 5 standard errors (sd of one run's sd about
    # 1 / sqrt(2 (groups - 1))).
    assert abs(np.mean(spreads) - 1) < 5 / np.sqrt(2 * (NULL_GROUPS - 1) * RUNS)


def test_both_p_values_are_exact_at_the_smallest_size_a_null_check_runs():
    """200 boards in 40 groups of 5 (null_check_size_note's least): both p-values uniform over 3,000 honest runs.
    Against the chi-square and normal laws they tend to, the sd's p-value fell below 5% in 3% of runs."""
    generator = np.random.default_rng(5)
    figures = [group_z_scores(generator.standard_normal(200)) for _ in range(3000)]
    assert stats.kstest([f["p_sd"] for f in figures], "uniform").pvalue > P_FLOOR
    assert stats.kstest([f["p_mean"] for f in figures], "uniform").pvalue > P_FLOOR


@pytest.mark.parametrize("shift, correlation", [(0.2, 0.0), (0.0, 0.7)])
def test_a_biased_estimator_and_dependent_boards_are_caught(shift, correlation):
    """A shift of 0.2 sd (6.3 standard errors of the mean over 1,000 boards) and boards correlated 0.7 (z sd about
    2.4) are both caught in nearly every run."""
    caught = sum(not group_z_scores(_simulated(shift, correlation, seed))["consistent"] for seed in range(100))
    assert caught >= 95, caught


def test_differences_that_never_vary_are_consistent_only_at_zero():
    assert group_z_scores(np.zeros(BOARDS))["consistent"] is True
    shifted = group_z_scores(np.full(BOARDS, 0.25))
    assert shifted["consistent"] is False and "+0.25" in shifted["why"]


def test_the_copy_is_the_same_bot_under_a_name_no_bot_of_the_roster_has():
    greedy = load_bot("greedy").with_parameters({"roll_above": 31.0}).info()
    taken = load_bot(str(Path(__file__).parent / "bots" / "two_slots.py")).info()
    taken = dataclasses.replace(taken, name="greedy_copy")
    lineup = null_lineup([greedy, taken, load_bot("econ").info()])
    copy = lineup[-1]
    assert [bot.name for bot in lineup] == ["greedy", "greedy_copy", "greedy_copy2"]
    assert (copy.path, copy.parameters, copy.fingerprint) == (greedy.path, greedy.parameters, greedy.fingerprint)


def test_two_bots_are_not_null_checked_and_rounding_is_not_noise():
    assert "3 bots or more" in null_check_size_note(1000, bots=2)
    assert null_check_size_note(1000, bots=3) is None and "200 boards" in null_check_size_note(199, bots=3)
    rounding = np.random.default_rng(1).standard_normal(BOARDS) * 1e-16  # float sums of mirrored corrections
    figures = group_z_scores(rounding)
    assert figures["consistent"] is True and figures["z_mean"] is None and "exactly 0" in figures["why"]
