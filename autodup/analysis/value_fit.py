"""Fitting a value on a training run: the weights of each bot's correction (:mod:`autodup.game.value`).

The weights are the least-squares slopes of placement on the seat's value
features (its luck terms stage by stage, and its field's), per bot and pooled
over bots, with a small ridge on standardized features. Each feature is a sum of
zero-mean innovations, so the slopes that best predict the placement from them
are those whose correction removes the most variance: fitting the value this way
chooses the linear value whose AIVAT correction is smallest in variance. They are
fitted once, on boards of the training branch of the seed tree, and frozen.

A feature gets a slope only where it moved in at least :data:`MIN_SUPPORT` of the
rows fitted (a bot's, or all of them for the pooled weights); elsewhere its weight
is 0. A late stage that a bot seldom reaches moves its features in a handful of
rows, by little: fitted on those few rows, their slopes took weights up to 1,288,
and on a later board where the bot did reach that stage, one seat's correction came
to 592 places. That fit (set4, the shipped roster, 3,000 training boards) made the
variance of the bots' comparisons on the 3,000 boards that follow 1.8x the raw
placements' (a reduction of 0.55x); with the minimum, a reduction of 2.47x and no
correction beyond 8 places (``tests/test_value.py`` checks it on the first 800 of
those boards; ``benchmarks/luck_terms_worth.py`` compares more fits). The minimum is
a rule of thumb: it counts rows, not how far a feature moved. A bot's feature left
out gets weight 0 in its own weights, not the pooled weight.
"""

from __future__ import annotations

import itertools
import json

import numpy as np

from ..game.stats import LUCK_NAMES, STAGE_BUCKETS
from ..game.value import POOLED, VALUE_FEATURES, VALUE_FORMAT, value_features

__all__ = ["RIDGE", "MIN_SUPPORT", "ridge_fit", "ValueFit", "fit_value_folder", "comparison_variance"]

# Ridge on standardized features, as a share of the rows: small beside the signal of any feature that matters.
RIDGE = 1e-3
# Rows in which a feature must move (be other than 0) to get a slope. A ridge on standardized features does not
# stop a feature that moved in a few rows from taking a wild weight (standardized, its slope looks ordinary).
MIN_SUPPORT = 50


def ridge_fit(moments: np.ndarray, ridge: float, usable: np.ndarray | None = None) -> tuple:
    """``(weights float64 (F,), intercept)``: the least-squares fit of the last column on the middle ones with a
    ridge on standardized features, from the moment sums of rows ``[1, features, target]`` (float64 (F + 2,
    F + 2)). Features that do not vary, or that ``usable`` (bool (F,)) excludes, get weight 0."""
    count = moments[0, 0]
    w = np.zeros(moments.shape[0] - 2)
    if count <= 1:
        return w, 0.0
    mean = moments[0] / count
    covariance = moments / count - np.outer(mean, mean)
    xx = covariance[1:-1, 1:-1]
    xy = covariance[1:-1, -1]
    scale = np.sqrt(np.clip(np.diag(xx), 0.0, None))
    varies = scale > 1e-12 * max(1.0, float(scale.max()))
    if usable is not None:
        varies &= usable
    if varies.any():
        s = scale[varies]
        a = xx[np.ix_(varies, varies)] / np.outer(s, s) + ridge * np.eye(int(varies.sum()))
        w[varies] = np.linalg.solve(a, xy[varies] / s) / s
    return w, float(mean[-1] - mean[1:-1] @ w)


class ValueFit:
    """Moment sums of ``[1, features, placement]`` per bot and pooled (``moments`` float64 (bots + 1, F + 2,
    F + 2)), and the rows in which each feature moved (``support`` int64 (bots + 1, F)), added chunk by chunk
    (memory flat)."""

    def __init__(self, bot_names):
        self.bot_names = list(bot_names)
        width = len(VALUE_FEATURES) + 2
        self.moments = np.zeros((len(self.bot_names) + 1, width, width))  # the last row: every bot pooled
        self.support = np.zeros((len(self.bot_names) + 1, len(VALUE_FEATURES)), dtype=np.int64)

    def add(self, bot: np.ndarray, placement: np.ndarray, stage_luck: np.ndarray, players: int) -> None:
        """Add rows of whole tables, in (table, seat) order: ``bot`` int64 (rows,), ``placement`` (rows,),
        ``stage_luck`` float64 (rows, len(LUCK) * STAGE_BUCKETS)."""
        tables = stage_luck.reshape(-1, players, len(LUCK_NAMES), STAGE_BUCKETS)
        features = np.zeros((bot.size, len(VALUE_FEATURES)))
        scratch = np.zeros((players, len(VALUE_FEATURES)))
        for t in range(tables.shape[0]):
            value_features(np.ascontiguousarray(tables[t]), scratch)
            features[t * players:(t + 1) * players] = scratch
        x = np.column_stack([np.ones(bot.size), features, placement.astype(np.float64)])
        moved = features != 0.0
        for b in np.unique(bot):
            own = bot == b
            rows = x[own]
            self.moments[b] += rows.T @ rows
            self.support[b] += moved[own].sum(axis=0)
        self.moments[-1] += x.T @ x
        self.support[-1] += moved.sum(axis=0)

    def weights(self, ridge: float = RIDGE, min_support: int = MIN_SUPPORT) -> dict:
        """``{bot name: weights, POOLED: weights}``, each float64 (len(VALUE_FEATURES),); a feature that moved in
        fewer than ``min_support`` of the rows gets weight 0."""
        return {name: ridge_fit(self.moments[index], ridge, self.support[index] >= min_support)[0]
                for index, name in enumerate([*self.bot_names, POOLED])}

    def left_out(self, min_support: int = MIN_SUPPORT) -> dict:
        """``{bot name or POOLED: features}``: how many features moved in some rows but too few to get a slope."""
        return {name: int(np.count_nonzero((self.support[index] > 0) & (self.support[index] < min_support)))
                for index, name in enumerate([*self.bot_names, POOLED])}

    def rows(self) -> dict:
        """Rows fitted, per bot and pooled."""
        return {name: int(self.moments[i, 0, 0]) for i, name in enumerate([*self.bot_names, POOLED])}


def fit_value_folder(folder, ridge: float = RIDGE, min_support: int = MIN_SUPPORT) -> str:
    """The text of a value file fitted on a training run folder (:class:`~autodup.tournament.results.RunFolder`,
    or its path) whose rows kept their luck stage by stage (``min_support``: see :meth:`ValueFit.weights`)."""
    from ..tournament.results import RunFolder
    from ..version import __version__

    folder = folder if isinstance(folder, RunFolder) else RunFolder(folder)
    identity = folder.identity
    players = folder.config.players
    fit = ValueFit(folder.bot_names)
    index = {name: i for i, name in enumerate(folder.bot_names)}
    for table in folder.chunks(["bot", "placement", "stage_luck"]):
        bot = np.array([index[name] for name in table.column("bot").to_pylist()], dtype=np.int64)
        stage_luck = np.asarray(table.column("stage_luck").combine_chunks().flatten(), dtype=np.float64)
        fit.add(bot, table.column("placement").to_numpy(), stage_luck.reshape(bot.size, -1), players)
    weights = fit.weights(ridge, min_support)
    content = {
        "kind": "autodup value", "format": VALUE_FORMAT, "autodup": __version__,
        "config": {"name": folder.config.name, "sha256": identity["config_sha256"]},
        "roster": [[name, sha] for name, _, sha, _ in identity["bots"]],
        "training": {"seed": identity["seed"], "boards": identity["boards"], "branch": identity.get("branch"),
                     "dealer": identity["dealer"], "design": identity["design"], "events": identity["events"],
                     "tables": identity["tables"], "ridge": ridge, "min_support": min_support,
                     "rows": fit.rows(), "left_out": fit.left_out(min_support)},
        "features": list(VALUE_FEATURES),
        "weights": {name: [round(float(x), 10) for x in w] for name, w in weights.items()},
    }
    return json.dumps(content, indent=1) + "\n"


def comparison_variance(placement: np.ndarray, bots: np.ndarray, n_bots: int) -> float:
    """What a value's corrections are fitted to lower: the mean over pairs of bots of the variance over boards of
    the difference of their mean placements on a board (``placement`` float64, raw or corrected, and ``bots``
    int64, both (boards, tables, players); every bot seated on every board)."""
    means = np.zeros((placement.shape[0], n_bots))
    for bot in range(n_bots):
        seated = bots == bot
        means[:, bot] = (placement * seated).sum(axis=(1, 2)) / seated.sum(axis=(1, 2))
    return float(np.mean([np.var(means[:, i] - means[:, j]) for i, j in itertools.combinations(range(n_bots), 2)]))
