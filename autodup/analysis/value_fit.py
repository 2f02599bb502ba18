"""Fitting a value on a training run: the weights of each bot's correction (:mod:`autodup.game.value`).

The weights are the least-squares slopes of placement on the seat's value
features (its luck terms stage by stage, and its field's), per bot and pooled
over bots, with a small ridge on standardized features. Each feature is a sum of
zero-mean innovations, so the slopes that best predict the placement from them
are those whose correction removes the most variance: fitting the value this way
chooses the linear value whose AIVAT correction is smallest in variance. They are
fitted once, on boards of the training branch of the seed tree, and frozen.
"""

from __future__ import annotations

import json

import numpy as np

from ..game.stats import LUCK_NAMES, STAGE_BUCKETS
from ..game.value import POOLED, VALUE_FEATURES, VALUE_FORMAT, value_features

__all__ = ["RIDGE", "ValueFit", "fit_value_folder"]

# Ridge on standardized features, as a share of the rows: enough to keep a feature that barely varies (a late
# stage few seats reach) from taking a wild slope, small beside the signal of any feature that matters.
RIDGE = 1e-3


class ValueFit:
    """Moment sums of ``[1, features, placement]`` per bot and pooled, added chunk by chunk (memory flat)."""

    def __init__(self, bot_names):
        self.bot_names = list(bot_names)
        width = len(VALUE_FEATURES) + 2
        self.moments = np.zeros((len(self.bot_names) + 1, width, width))  # the last row: every bot pooled

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
        for b in np.unique(bot):
            rows = x[bot == b]
            self.moments[b] += rows.T @ rows
        self.moments[-1] += x.T @ x

    def weights(self, ridge: float = RIDGE) -> dict:
        """``{bot name: weights, POOLED: weights}``, each float64 (len(VALUE_FEATURES),)."""
        result = {}
        for index, name in enumerate([*self.bot_names, POOLED]):
            m = self.moments[index]
            count = m[0, 0]
            w = np.zeros(len(VALUE_FEATURES))
            if count > 1:
                mean = m[0] / count
                covariance = m / count - np.outer(mean, mean)
                xx = covariance[1:-1, 1:-1]
                xy = covariance[1:-1, -1]
                scale = np.sqrt(np.clip(np.diag(xx), 0.0, None))
                varies = scale > 1e-12 * max(1.0, float(scale.max()))
                if varies.any():
                    s = scale[varies]
                    a = xx[np.ix_(varies, varies)] / np.outer(s, s) + ridge * np.eye(int(varies.sum()))
                    w[varies] = np.linalg.solve(a, xy[varies] / s) / s
            result[name] = w
        return result

    def rows(self) -> dict:
        """Rows fitted, per bot and pooled."""
        return {name: int(self.moments[i, 0, 0]) for i, name in enumerate([*self.bot_names, POOLED])}


def fit_value_folder(folder, ridge: float = RIDGE) -> str:
    """The text of a value file fitted on a training run folder (:class:`~autodup.tournament.results.RunFolder`,
    or its path) whose rows kept their luck stage by stage."""
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
    weights = fit.weights(ridge)
    content = {
        "kind": "autodup value", "format": VALUE_FORMAT, "autodup": __version__,
        "config": {"name": folder.config.name, "sha256": identity["config_sha256"]},
        "roster": [[name, sha] for name, _, sha, _ in identity["bots"]],
        "training": {"seed": identity["seed"], "boards": identity["boards"], "branch": identity.get("branch"),
                     "dealer": identity["dealer"], "design": identity["design"], "events": identity["events"],
                     "tables": identity["tables"], "ridge": ridge, "rows": fit.rows()},
        "features": list(VALUE_FEATURES),
        "weights": {name: [round(float(x), 10) for x in w] for name, w in weights.items()},
    }
    return json.dumps(content, indent=1) + "\n"
