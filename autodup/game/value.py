"""A value fitted on training boards, and each seat's correction by it, kind of chance event by kind (AIVAT).

AIVAT (Burch et al. 2018): for any value ``v`` of the game's states, each chance
event adds ``v(after it) - E[v(after it) | before it]``, the expectation under the
event's own law; these sum to a correction of mean zero whatever ``v`` is, and
subtracting it from a seat's placement keeps the placement's expectation while
removing the luck ``v`` sees.

Here ``v`` is linear, per stage, in the state's features, so its correction is
the same linear form applied to the features' innovations: the table keeps each
luck term (:data:`autodup.game.stats.LUCK`, each the innovation of one feature at
each event of its kind, exact under the event's law) stage by stage
(``TableLog.stage_luck``), and a seat's correction is

    sum over terms k, stages b:  w[bot, k, b] * own[k, b]  +  w'[bot, k, b] * field[k, b]

with ``field`` the mean of the other seats' terms at its table (a placement is
relative: an opponent's luck is the seat's too). The weights come from a value
file, fitted on boards of the training branch of the seed tree
(:data:`autodup.game.boards.BRANCHES`) and then frozen: they were fixed before
any evaluation board was seen, so no run can tune its own variance away
(arXiv 2605.14261). Each kind's correction (:data:`CORRECTION_KINDS`) has mean zero
on its own, for any weights.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import njit

from ..errors import ValueFileError
from ..files import special_file_kind
from .stats import LUCK_NAMES, LUCK_SOURCES, STAGE_BUCKETS

__all__ = ["VALUE_FORMAT", "VALUE_SUFFIX", "POOLED", "VALUE_FEATURES", "CORRECTION_KINDS", "CORRECTION_COLUMNS",
           "KIND_OF_FEATURE", "value_features", "seat_corrections",
           "corrections_of_boards", "ValueModel", "read_value_file",
           "value_file_beside", "shipped_value_file", "VALUE_KIND", "is_value_file"]

VALUE_FORMAT = 1
VALUE_KIND = "autodup value"  # a value file's "kind", what tells it from any other JSON
VALUE_SUFFIX = ".value.json"
POOLED = "*"  # the weights fitted on every bot's rows, for a bot the file has none of its own for
MAX_WEIGHT = 1e6  # larger weights overflow a correction's sums into inf - inf; no fit comes near it

# Feature f of a seat: term k in stage bucket b, its own (f = k * STAGE_BUCKETS + b) then the field's (the same,
# plus len(LUCK_NAMES) * STAGE_BUCKETS).
VALUE_FEATURES = tuple(f"{side}{name} @ stage {b + 1}" for side in ("", "field ") for name in LUCK_NAMES
                       for b in range(STAGE_BUCKETS))
# The kinds of chance event a correction is reported by, with the column each gets in the results.
CORRECTION_KINDS = tuple(LUCK_SOURCES)
_COLUMN_OF_KIND = {"combat coin": "correction_combat", "matchmaking": "correction_matchmaking",
                   "shop slots": "correction_shops", "loot": "correction_loot", "tie-breaks": "correction_tiebreaks",
                   "policy random": "correction_policy"}
CORRECTION_COLUMNS = tuple(_COLUMN_OF_KIND[kind] for kind in CORRECTION_KINDS)
_KIND_OF_TERM = {term: kind for kind, terms in enumerate(LUCK_SOURCES.values()) for term in terms}
KIND_OF_FEATURE = np.array([_KIND_OF_TERM[name] for _ in range(2) for name in LUCK_NAMES for _ in range(STAGE_BUCKETS)],
                           dtype=np.int64)


@njit(cache=True, no_cfunc_wrapper=True)
def value_features(stage_luck, out):
    """Each seat's value features (:data:`VALUE_FEATURES`) at one table.

    Parameters
    ----------
    stage_luck : float64 (players, len(LUCK), STAGE_BUCKETS)
        The table's ``TableLog.stage_luck``.
    out : float64 (players, len(VALUE_FEATURES))
        Written: own terms, then the mean of the other seats' terms.
    """
    players, terms, buckets = stage_luck.shape
    half = terms * buckets
    for seat in range(players):
        for k in range(terms):
            for b in range(buckets):
                total = 0.0
                for other in range(players):
                    if other != seat:
                        total += stage_luck[other, k, b]
                out[seat, k * buckets + b] = stage_luck[seat, k, b]
                out[seat, half + k * buckets + b] = total / max(players - 1, 1)


@njit(cache=True, no_cfunc_wrapper=True)
def seat_corrections(stage_luck, bots, weights, kind_of_feature, out):
    """The corrections of the seats of many tables, kind by kind.

    Parameters
    ----------
    stage_luck : float64 (tables, players, len(LUCK), STAGE_BUCKETS)
    bots : int64 (tables, players)
        The bot at each seat: a row of ``weights``.
    weights : float64 (bots, len(VALUE_FEATURES))
    kind_of_feature : int64 (len(VALUE_FEATURES),)
        The kind (:data:`CORRECTION_KINDS`) of each feature.
    out : float64 (tables, players, len(CORRECTION_KINDS))
        Written: each seat's correction by kind, in places (positive: luck made its placement worse, a larger
        number); its corrected placement is its placement minus their sum.
    """
    players = stage_luck.shape[1]
    features = np.zeros((players, weights.shape[1]))
    out[:] = 0.0
    for t in range(stage_luck.shape[0]):
        value_features(stage_luck[t], features)
        for seat in range(players):
            w = weights[bots[t, seat]]
            for f in range(w.shape[0]):
                out[t, seat, kind_of_feature[f]] += w[f] * features[seat, f]


def corrections_of_boards(stage_luck: np.ndarray, bots: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """float64 (..., players, len(CORRECTION_KINDS)): each seat's correction by kind, for tables in any leading
    shape (``BoardResults``: boards, tables).

    Parameters
    ----------
    stage_luck : float64 (..., players, len(LUCK), STAGE_BUCKETS)
    bots : int64 (..., players)
    weights : float64 (bots, len(VALUE_FEATURES))
    """
    tables = stage_luck.reshape((-1,) + stage_luck.shape[-3:])
    out = np.zeros(tables.shape[:2] + (len(CORRECTION_KINDS),))
    seat_corrections(tables, np.ascontiguousarray(bots).reshape(tables.shape[:2]), weights, KIND_OF_FEATURE, out)
    return out.reshape(stage_luck.shape[:-2] + (len(CORRECTION_KINDS),))


@dataclass(frozen=True)
class ValueModel:
    """A value file, read and checked: the weights of each bot's correction and where they were fitted.

    Attributes
    ----------
    text : str
        The file's text (it travels with a run, like its configuration).
    sha256 : str
        Of ``text``.
    source : str
        Where it was read.
    config_name, config_sha256 : str
        The configuration it was fitted on.
    roster : tuple of (name, sha256)
        The bots it was fitted on, each with the fingerprint of its code.
    weights : dict
        ``{bot name or POOLED: float64 (len(VALUE_FEATURES),)}``.
    training : dict
        How it was fitted: seed, boards, branch, dealer, design, events, tables, ridge, rows; and since the
        minimum support, ``min_support`` and ``left_out`` (features per bot that moved in too few rows; absent:
        fitted without a minimum).
    autodup_version : str
    """

    text: str
    sha256: str
    source: str
    config_name: str
    config_sha256: str
    roster: tuple
    weights: dict
    training: dict
    autodup_version: str

    def weights_for(self, names, fingerprints) -> tuple:
        """``(weights float64 (len(names), F), pooled)``: each bot's weights, and the names of those that use the
        pooled weights (not in the file, or their code changed since it was fitted)."""
        fitted = dict(self.roster)
        rows, pooled = [], []
        for name, fingerprint in zip(names, fingerprints):
            if name in self.weights and fitted.get(name) == fingerprint:
                rows.append(self.weights[name])
            else:
                rows.append(self.weights[POOLED])
                pooled.append(name)
        return np.array(rows, dtype=np.float64).reshape(len(rows), len(VALUE_FEATURES)), pooled

    def matches(self, config_sha256: str) -> bool:
        """Whether it was fitted on this configuration (its text's hash)."""
        return self.config_sha256 == config_sha256


def _field(data: dict, key: str, kind, source: str, where: str = ""):
    if not isinstance(data, dict) or key not in data:
        raise ValueFileError(f"{source}: {where}{key}: missing (a value file is written by autodup luck fit)")
    value = data[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        names = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
        raise ValueFileError(f"{source}: {where}{key}: expected {names}, got {type(value).__name__}")
    return value


def is_value_file(path) -> bool:
    """Whether the file at ``path`` is a value file, of any format (what ``autodup luck fit`` may write over)."""
    if not Path(path).is_file():  # a FIFO would block its reader, a device never end
        return False
    try:
        with open(path, "rb") as file:
            data = json.loads(file.read(1 << 26))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("kind") == VALUE_KIND


def parse_value(text: str, source: str) -> ValueModel:
    """A :class:`ValueModel` from a value file's text; :class:`ValueFileError` (one line) if it is not one."""
    try:
        data = json.loads(text)
    except ValueError as error:
        raise ValueFileError(f"{source}: not a value file (not JSON: {error})") from None
    if not isinstance(data, dict) or data.get("kind") != VALUE_KIND:
        raise ValueFileError(f"{source}: not a value file (kind: expected 'autodup value'; autodup luck fit "
                             "writes them)")
    version = _field(data, "format", int, source)
    if version != VALUE_FORMAT:
        raise ValueFileError(f"{source}: format: {version} (this autodup reads format {VALUE_FORMAT}; fit it again "
                             "with autodup luck fit)")
    features = _field(data, "features", list, source)
    if features != list(VALUE_FEATURES):
        raise ValueFileError(f"{source}: features: not the {len(VALUE_FEATURES)} features this autodup corrects by "
                             "(fit it again with autodup luck fit)")
    config = _field(data, "config", dict, source)
    roster = _field(data, "roster", list, source)
    for i, entry in enumerate(roster):
        if not (isinstance(entry, list) and len(entry) == 2 and all(isinstance(x, str) for x in entry)):
            raise ValueFileError(f"{source}: roster[{i}]: expected [name, sha256]")
    weights = _field(data, "weights", dict, source)
    if POOLED not in weights:
        raise ValueFileError(f"{source}: weights: missing the pooled weights {POOLED!r}")
    arrays = {}
    for name, values in weights.items():
        if (not isinstance(values, list) or len(values) != len(VALUE_FEATURES)
                or not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
                           and abs(x) <= MAX_WEIGHT for x in values)):
            raise ValueFileError(f"{source}: weights[{name!r}]: expected {len(VALUE_FEATURES)} finite numbers of "
                                 f"size at most {MAX_WEIGHT:g} (a fitted weight is a few places per unit of luck)")
        arrays[name] = np.array(values, dtype=np.float64)
    return ValueModel(text=text, sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(), source=source,
                      config_name=_field(config, "name", str, source, "config."),
                      config_sha256=_field(config, "sha256", str, source, "config."),
                      roster=tuple((name, sha) for name, sha in roster), weights=arrays,
                      training=_field(data, "training", dict, source),
                      autodup_version=_field(data, "autodup", str, source))


def read_value_file(path) -> ValueModel:
    """Read and check a value file; :class:`ValueFileError` (one line) if it cannot be used."""
    path = Path(path).expanduser()
    kind = special_file_kind(path)
    if kind is not None and kind != "a directory":  # a folder is said below, as before
        raise ValueFileError(f"{path}: cannot read the value file: not a regular file ({kind})")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = "no such file" if isinstance(error, FileNotFoundError) else (
            "a folder, not a value file" if isinstance(error, IsADirectoryError) else
            error.strerror if isinstance(error, OSError) and error.strerror else type(error).__name__)
        raise ValueFileError(f"{path}: cannot read the value file: {reason}") from None
    return parse_value(text, str(path))


def value_file_beside(config_source) -> Path | None:
    """The value file beside a configuration's file (``set4.yaml``: ``set4.value.json``), if there is one."""
    source = Path(config_source)
    path = source.with_name(source.stem + VALUE_SUFFIX)
    return path if path.is_file() else None


def shipped_value_file(config_name: str) -> Path | None:
    """The value file shipped for a shipped configuration (``set4``: ``configs/set4.value.json``), if any."""
    from ..shipped import configs_folder

    return value_file_beside(configs_folder() / f"{config_name}.yaml")
