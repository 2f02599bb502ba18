"""Luck adjustment: each placement minus the luck its seat had, with slopes fitted on other boards.

A seat's luck terms (:data:`autodup.game.stats.LUCK`) each sum, over its game, a
chance event's outcome minus its expectation under the game's law: they have
mean zero on every table that plays the game's probabilities, whatever the
bots do. So for any slopes ``beta`` fixed independently of a board,
``placement - beta . luck`` has the placement's expectation, and with
``beta`` near the regression slope of placement on luck it has much less
variance. A placement is relative to the field, so the features are the
seat's own terms and the mean of the other seats' terms at its table
(:func:`luck_features`); the field's terms have mean zero too (control variates; the idea of AIVAT, Burch et al. 2018).

The slopes are fitted per bot by K-fold cross-fitting over boards: the boards
of fold ``k`` (``board mod K``) are adjusted with slopes fitted on the other
folds only, so no board's adjustment depends on that board and the adjusted
mean stays unbiased. The terms' functions are fixed in the game's code before
any data is seen (tuning them on the evaluation data would let variance be
p-hacked); only their slopes are fitted. The fit keeps the moment matrix of
``[1, luck, placement]`` per (bot, fold): memory does not grow with boards,
and any subset of the terms (a luck source alone, :data:`LUCK_SOURCES`) is
fitted from the same sums.
"""

from __future__ import annotations

import math

import numpy as np

from ..game.stats import LUCK_NAMES, LUCK_SOURCES

__all__ = ["FOLDS", "ROWS_PER_SLOPE", "FEATURE_NAMES", "LUCK_SOURCES", "luck_matrix", "luck_features",
           "term_indices", "CrossFit", "adjusted_placements"]

FOLDS = 2
# A fold's slopes are fitted only from at least this many training rows per luck feature that varies there.
# With fewer, least squares fits the noise and the adjusted score spreads wider than the raw one: on set4
# (8 bots, 30 features) the summary's squared intervals, adjusted over raw, were 11.4 at 5 boards and 2.2 at
# 10 when fitted anyway, 0.85 at 15, 0.66 at 20, 0.59 at 30 and 0.48 at 200. So such a fold keeps slope 0:
# its boards count their raw placements. Measured since over many runs (the spread of reroll3 - traits over
# blocks of a 4,000-board run, a review of 2026-12-01), fitting anyway is worse than those intervals said: 1.66
# times the raw variance at 15 boards, 6.2 at 10; this rule gives 0.72 at 30 and 0.52 at 200. Just above the
# rule it can still lose: 3 bots at 30 boards (3.5 rows a slope), 1.36-1.46 times the raw variance; 0.8 at 50.
# A test of each fit's expected variance on new rows (Stein's random-design factor) did no better: the scores
# average a bot's rows by board, and board means gain less from the slopes than rows do. A rule that sees that
# needs the moments per board (an inner cross-fit), not built yet.
ROWS_PER_SLOPE = 3
# The features a placement is adjusted by: the seat's own luck terms, then the mean of the same terms over the
# other seats of its table (the field's luck: placements are relative, so an opponent's luck is the seat's too).
FEATURE_NAMES = LUCK_NAMES + tuple(f"field {name}" for name in LUCK_NAMES)


def luck_matrix(table, rows: int) -> np.ndarray:
    """The ``luck`` list column of a chunk (a :class:`pyarrow.Table`) as float64 (rows, len(LUCK))."""
    values = np.asarray(table.column("luck").combine_chunks().flatten(), dtype=np.float64)
    return values.reshape(rows, -1)


def luck_features(luck: np.ndarray, board: np.ndarray, table: np.ndarray) -> np.ndarray:
    """float64 (rows, len(FEATURE_NAMES)): each row's luck terms, then their mean over the other rows of its
    table (same ``board`` and ``table``; 0 at a table of one seat)."""
    keys = np.asarray(board, dtype=np.int64) * (int(np.max(table)) + 1) + np.asarray(table, dtype=np.int64)
    _, group = np.unique(keys, return_inverse=True)
    totals = np.zeros((group.max() + 1, luck.shape[1]))
    np.add.at(totals, group, luck)
    others = np.bincount(group)[group][:, None] - 1.0
    with np.errstate(invalid="ignore", divide="ignore"):
        field = np.where(others > 0, (totals[group] - luck) / others, 0.0)
    return np.concatenate([luck, field], axis=1)


def term_indices(names) -> np.ndarray:
    """Indices into :data:`FEATURE_NAMES` of luck terms by name, own and field; ``None`` gives every feature."""
    if names is None:
        return np.arange(len(FEATURE_NAMES))
    unknown = [name for name in names if name not in LUCK_NAMES]
    if unknown:
        raise ValueError(f"unknown luck terms {unknown} (allowed: {', '.join(LUCK_NAMES)})")
    own = [LUCK_NAMES.index(name) for name in names]
    return np.array(own + [len(LUCK_NAMES) + k for k in own], dtype=np.int64)


class CrossFit:
    """Per-bot slopes of placement on luck, fitted fold by fold on the other folds' boards.

    Parameters
    ----------
    n_bots : int
    folds : int
        K of the cross-fitting (boards go to fold ``board mod K``).
    """

    def __init__(self, n_bots: int, folds: int = FOLDS):
        width = len(FEATURE_NAMES) + 2
        self.folds = folds
        self.moments = np.zeros((n_bots, folds, width, width))  # of [1, luck, placement], per (bot, fold)

    def add(self, bot: np.ndarray, board: np.ndarray, placement: np.ndarray, luck: np.ndarray) -> None:
        """Add rows: ``bot``, ``board`` int64 (rows,), ``placement`` float64 (rows,), ``luck`` float64 (rows, F):
        the rows' features (:func:`luck_features`)."""
        x = np.column_stack([np.ones(bot.size), luck, placement])
        group = bot * self.folds + board % self.folds
        flat = self.moments.reshape(-1, x.shape[1], x.shape[1])
        for g in np.unique(group):
            rows = x[group == g]
            flat[g] += rows.T @ rows

    def slopes(self, terms=None) -> np.ndarray:
        """float64 (bots, folds, F): fold k's slopes, fitted on the other folds (zero for features left out).

        ``terms`` (names) restricts the fit to those terms. A term that never
        varies for a bot gets slope 0 (the least-squares solution of least norm).
        A fold whose training rows are fewer than :data:`ROWS_PER_SLOPE` per
        varying feature gets slopes 0 (see :meth:`slopes_and_fitted`).
        """
        return self.slopes_and_fitted(terms)[0]

    def slopes_and_fitted(self, terms=None) -> tuple:
        """The slopes (:meth:`slopes`) and bool (bots,): whether every fold of the bot had the rows to fit its
        slopes (:data:`ROWS_PER_SLOPE`); where not, its adjusted placements are its raw ones on those folds'
        boards."""
        keep = term_indices(terms)
        n_bots, folds, width, _ = self.moments.shape
        predictors = keep + 1
        result = np.zeros((n_bots, folds, len(FEATURE_NAMES)))
        fitted = np.ones((n_bots, folds), dtype=bool)
        for bot in range(n_bots):
            for fold in range(folds):
                m = self.moments[bot].sum(axis=0) - self.moments[bot, fold]
                count = m[0, 0]
                if count == 0:  # no training rows: the fold's own rows (if any) stay raw
                    fitted[bot, fold] = self.moments[bot, fold, 0, 0] == 0
                    continue
                mean = m[0] / count
                covariance = m / count - np.outer(mean, mean)  # centred: the intercept is fitted
                xx = covariance[np.ix_(predictors, predictors)]
                if count < ROWS_PER_SLOPE * max(1, np.count_nonzero(np.diag(xx) > 0)):
                    fitted[bot, fold] = self.moments[bot, fold, 0, 0] == 0
                    continue
                xy = covariance[predictors, width - 1]
                scale = np.sqrt(np.clip(np.diag(xx), 0.0, None))
                scale[scale == 0] = 1.0
                solution = np.linalg.pinv(xx / np.outer(scale, scale), rcond=1e-10) @ (xy / scale)
                result[bot, fold, keep] = solution / scale
        return result, fitted.all(axis=1)

    def boards_to_fit(self, boards: int, terms=None, rows_per_slope: int = ROWS_PER_SLOPE) -> int:
        """The boards a run needs for every fold of every bot to be fitted (``rows_per_slope`` training rows per
        varying feature), at the rows per board of the ``boards`` boards added so far; 0 when none were.

        Counted over the features that varied so far: a rare luck term that first varies in a longer run raises
        the rows needed a little."""
        keep = term_indices(terms)
        folds = self.moments.shape[1]
        needed = 0
        for moments in self.moments:
            total = moments.sum(axis=0)
            count = total[0, 0]
            if count == 0 or boards <= 0:
                continue
            mean = total[0] / count
            variances = np.diag(total / count - np.outer(mean, mean))[keep + 1]
            rows = rows_per_slope * max(1, np.count_nonzero(variances > 0))
            # A fold trains on the other folds' boards, (K-1)/K of them; one board more per fold for the rounding
            # of board mod K.
            needed = max(needed, math.ceil(rows * folds / ((folds - 1) * count / boards)) + folds)
        return needed


def adjusted_placements(slopes: np.ndarray, bot: np.ndarray, board: np.ndarray, placement: np.ndarray,
                        luck: np.ndarray) -> np.ndarray:
    """float64 (rows,): each row's placement minus its luck features (float64 (rows, F)), weighted by its bot's
    slopes for its board's fold."""
    folds = slopes.shape[1]
    return placement - np.einsum("ij,ij->i", slopes[bot, board % folds], luck)
