"""The null check: two copies of one bot at every table, whose measured difference must look like noise.

Two copies of one bot play the same game, so the true difference of their
scores is 0. ``autodup quality`` plays a run of its roster with the last bot
replaced by a copy of the first (the same file and parameters under another
name, :func:`twin_of`) and cuts its boards into :data:`NULL_GROUPS` groups of
consecutive boards (boards are independent, so each group is as good as a seed
of its own). Under each estimator (raw, luck-adjusted, corrected by the value),
the z-score of each group's mean difference, against the spread of the
per-board differences over every board, is N(0, 1) when the estimator is
honest:

- their mean is near 0: a correction or an adjustment that shifts one copy's
  placements moves it (tested by its exact law: the boards' t statistic);
- their standard deviation is near 1: boards that are not independent, or a
  spread that understates the groups' (tested by its exact law: the share of
  the boards' sum of squares between the groups, a Beta; see
  :func:`group_z_scores`).

A value file does not know the copy, so it corrects the copy by its pooled
weights and the original by its own: a difference in their corrections' means
would show here. Both tests at :data:`NULL_ALPHA` (about 3.3 sigma), so that an
honest estimator is called inconsistent about once in a thousand runs per test.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from .measure_kernels import ADJUSTED, CORRECTED, RAW

__all__ = ["NULL_RUN", "NULL_GROUPS", "MIN_BOARDS_PER_GROUP", "NULL_ALPHA", "COPY_SUFFIX", "null_folder_of",
           "null_check_size_note", "twin_of", "null_lineup",
           "group_z_scores", "null_check", "measure_null_check", "null_check_lines", "not_played"]

NULL_RUN = "null-check"        # the run's name in a quality folder (runs/null-check)
NULL_GROUPS = 40               # groups of consecutive boards, each a sample of the difference
MIN_BOARDS_PER_GROUP = 5       # fewer boards per group and a group's mean is not near normal
NULL_ALPHA = 0.001             # each test's level
COPY_SUFFIX = "_copy"
EXACT = 1e-9                   # differences this small (relative) are rounding
ESTIMATORS = ((RAW, "raw"), (ADJUSTED, "adjusted"), (CORRECTED, "corrected"))


def null_folder_of(out, name: str = NULL_RUN) -> Path:
    """The null check's run folder in quality folder ``out``: ``out/null-check``, apart from the roster's runs."""
    return Path(out) / name


def null_check_size_note(boards: int, bots: int = 3) -> str | None:
    """Why ``boards`` boards of ``bots`` bots are too few for the null check, or None when they are enough."""
    needed = NULL_GROUPS * MIN_BOARDS_PER_GROUP
    if bots < 3:
        # Seated by the Latin square, the copy and the original mirror each other at both tables.
        return "with 2 bots the copy and the original play mirrored tables, whose difference is 0 by construction; " \
               "it needs 3 bots or more"
    if boards >= needed:
        return None
    return f"it needs {needed:,} boards or more ({NULL_GROUPS} groups of {MIN_BOARDS_PER_GROUP}); there are {boards:,}"


def twin_of(first, lineup) -> object:
    """The null check's copy of bot ``first`` (a :class:`~autodup.game.bot_loading.BotInfo`): the same file and
    parameters under the name ``<name>_copy`` (``_copy2``, ... if ``lineup`` holds that name already)."""
    import dataclasses

    taken = {bot.name for bot in lineup}
    name, k = f"{first.name}{COPY_SUFFIX}", 1
    while name in taken:
        k += 1
        name = f"{first.name}{COPY_SUFFIX}{k}"
    return dataclasses.replace(first, name=name)


def null_lineup(lineup: list) -> list:
    """``lineup`` with its last bot replaced by the twin of its first (:func:`twin_of`)."""
    return [*lineup[:-1], twin_of(lineup[0], lineup)]


def group_z_scores(differences: np.ndarray, groups: int = NULL_GROUPS) -> dict:
    """The null check's figures of one estimator, from each board's difference of the two copies.

    Parameters
    ----------
    differences : float64 (boards,)
        Each board's difference of the copies' scores, boards in order.
    groups : int
        Groups of consecutive boards (the last ``boards mod groups`` boards are left out).

    Returns
    -------
    dict
        ``z`` (each group's z-score), ``z_mean``, ``z_sd``, ``p_mean`` and ``p_sd`` (two-sided p-values of the
        mean and of the sd) and ``consistent`` (both p-values at least :data:`NULL_ALPHA`); the figures are None,
        with a ``why``, when the difference never varies (consistent if it is exactly 0 on every board: the
        copies mirrored each other).

    Notes
    -----
    The z-scores are scaled by the sd of all ``N = groups x per_group`` boards used, so for differences that are
    independent normal with mean 0 both laws are exact: ``z_mean sqrt(groups)`` is the t statistic of the
    boards' mean (Student's t, ``N - 1`` degrees of freedom), and ``(groups - 1) z_sd^2 / (N - 1)`` is the share
    of the boards' sum of squares between the groups, Beta((groups - 1) / 2, (N - groups) / 2). (The normal and
    chi-square laws they tend to are off at the sizes a run has: at 200 boards in 40 groups, the chi-square made
    the sd test flag a third as often as its level.)
    """
    from scipy.stats import beta, t

    per_group = differences.size // groups
    used = np.asarray(differences[:groups * per_group], dtype=np.float64)
    spread = used.std(ddof=1) if used.size > 1 else 0.0
    # Differences within rounding of a constant (sums of float corrections) are that constant: z-scores of
    # rounding noise would look like N(0, 1) and test nothing.
    if not spread > EXACT * max(1.0, float(np.abs(used).max(initial=0.0))):
        exact = bool(used.size) and abs(float(used.mean())) <= EXACT
        return {"z": [], "z_mean": None, "z_sd": None, "p_mean": None, "p_sd": None, "consistent": exact,
                "why": "the difference is exactly 0 on every board" if exact else
                f"the difference is {float(used.mean()) if used.size else float('nan'):+.3g} on every board"}
    z = used.reshape(groups, per_group).mean(axis=1) / (spread / math.sqrt(per_group))
    z_mean, z_sd = float(z.mean()), float(z.std(ddof=1))
    boards = groups * per_group
    p_mean = float(2 * t.sf(abs(z_mean) * math.sqrt(groups), boards - 1))
    between = (groups - 1) * z_sd ** 2 / (boards - 1)
    law = beta((groups - 1) / 2, (boards - groups) / 2)
    p_sd = float(min(1.0, 2 * min(law.cdf(between), law.sf(between))))
    return {"z": z.tolist(), "z_mean": z_mean, "z_sd": z_sd, "p_mean": p_mean, "p_sd": p_sd,
            "consistent": bool(p_mean >= NULL_ALPHA and p_sd >= NULL_ALPHA), "why": None}


def null_check(measures, groups: int = NULL_GROUPS) -> dict:
    """The null check of a run whose first and last bots are copies of one bot (``quality.json``'s
    ``null_check``).

    Parameters
    ----------
    measures : autodup.analysis.measures.RunMeasures
        The run, measured with ``keep_differences``.
    groups : int
        Groups of consecutive boards.

    Returns
    -------
    dict
        ``bots`` (the two copies), ``boards``, ``groups``, ``boards_per_group``, ``estimators``
        (``{"raw" | "adjusted" | "corrected": figures}``, see :func:`group_z_scores`; an estimator the run
        cannot give is left out), ``consistent`` (every estimator's) and ``why`` (None, or why nothing was
        measured).
    """
    bots = list(measures.bots)
    per_group = measures.boards // groups
    entry = {"bots": [bots[0], bots[-1]], "boards": measures.boards, "groups": groups, "boards_per_group": per_group,
             "estimators": {}, "consistent": None, "why": None}
    if per_group < MIN_BOARDS_PER_GROUP:
        entry["why"] = null_check_size_note(measures.boards)
        return entry
    pair = measures.pairs.index((0, len(bots) - 1))
    for name, label in ESTIMATORS:
        if measures.luck_is_fitted(pair, name) and measures.board_differences[name]:
            entry["estimators"][label] = group_z_scores(np.concatenate(measures.board_differences[name])[:, pair],
                                                        groups)
    verdicts = [figures["consistent"] for figures in entry["estimators"].values()]
    entry["consistent"] = all(verdicts) if verdicts and None not in verdicts else None
    return entry


def measure_null_check(folder) -> dict:
    """The null check of the run in ``folder`` (a path or a :class:`~autodup.tournament.results.RunFolder`)."""
    from .measures import measure_run

    return null_check(measure_run(folder, replicates=0, keep_differences=True))


def null_check_lines(quality: dict) -> list:
    """The terminal's lines on the null check of ``quality.json`` (none when it says nothing of one)."""
    null = quality.get("null_check") or {}
    if not null.get("estimators"):
        return [f"null check: not measured ({null['why']})"] if null.get("why") else []
    figures = ", ".join(f"{label} z mean {entry['z_mean']:+.2f}, sd {entry['z_sd']:.2f}"
                        if entry["z_mean"] is not None else f"{label} {entry['why']}"
                        for label, entry in null["estimators"].items())
    verdict = {True: "consistent with no difference, as it must be", False: "NOT consistent with no difference",
               None: "no verdict"}[null["consistent"]]
    return [f"null check ({' and '.join(null['bots'])}, one bot twice; {null['groups']} groups of "
            f"{null['boards_per_group']} boards): {figures}; {verdict}"]


def not_played(why: str, boards: int = 0) -> dict:
    """The null check's entry when it was not played (``why``), for a quality run of ``boards`` boards."""
    return {"bots": None, "boards": boards, "groups": NULL_GROUPS, "boards_per_group": boards // NULL_GROUPS,
            "estimators": {}, "consistent": None, "why": why}
