"""The effect of a balance change: two runs of the same boards under two configurations, compared.

``autodup ab`` plays the same boards (same seeds, same seating) under a base
configuration and a variant, then compares them here, board by board. Every
statistic is a ratio of sums over boards, ``sum_b y_b / sum_b n_b``:

per bot (its scored rows, see :func:`autodup.game.boards.scored_rows`)
    ``mean_placement`` (y: placements, n: rows), ``top4_rate`` (y: finishes
    in the top half), ``three_star_rate`` (y: final boards holding a 3-star
    unit); when both runs are corrected by a value, ``corrected_placement``
    (y: corrected placements, see below).
per champion and per trait (every row)
    ``offer_rate``: copies shown per player and game (a trait's: copies of
    its champions); ``pick_rate``: copies bought per copy shown;
    ``play_rate``: final boards fielding it (a trait: active, at least its
    first breakpoint of distinct champions, as combat counts it);
    ``top4_rate_when_fielded`` and ``placement_when_fielded``: the results of
    those boards; ``three_star_rate``: final boards with it at 3 stars (a
    trait: with a 3-star unit of it).

The change of a ratio is ``variant - base`` with a 95% interval from the
paired per-board differences of the delta method's linearized values
``(y_b - r n_b) / mean(n)`` (Student's t with boards - 1 degrees of
freedom). Played on independent seeds, the two runs' values would not be
paired: the variance of the change would be the sum of the two runs'
variances. Their ratio to the paired variance is the change's *variance
reduction*: how many times fewer boards the same boards need than
independent seeds for the same interval. Identical runs give a change of 0
with the interval [0, 0], exactly.

Runs corrected by a value (:mod:`autodup.game.value`; ``autodup ab`` corrects
both by the one chosen from the base's configuration) hold each row's
``corrected_placement``: its placement minus a correction that has mean zero
under any configuration, so the change of mean corrected placement estimates
the same change as that of mean placement, with less of the luck in it. Its ``variance_reduction`` is
measured against the *raw* change on independent seeds (the two runs'
variances of mean placement): the gain of the same boards and the value
together, against playing independent seeds and correcting nothing.

Only sums of products over boards are kept (:class:`PairedRatios`), so memory
does not grow with the boards; runs are read chunk by chunk.
"""

from __future__ import annotations

import numpy as np

from ..errors import RunError
from ..tournament.storage import read_chunk_table
from .statistics import CONFIDENCE, percentile_interval, t_half_width, variance_ratio

__all__ = ["BOT_STATISTICS", "CORRECTED", "UNIT_STATISTICS", "STATISTIC_MEANINGS", "READ_COLUMNS",
           "BOOTSTRAP_REPLICATES", "PairedRatios", "compare_variants", "check_comparable"]

BOT_STATISTICS = ("mean_placement", "top4_rate", "three_star_rate")
CORRECTED = "corrected_placement"  # a bot statistic and a column, of runs corrected by a value only
UNIT_STATISTICS = ("offer_rate", "pick_rate", "play_rate", "top4_rate_when_fielded", "placement_when_fielded",
                   "three_star_rate")
STATISTIC_MEANINGS = {
    "mean_placement": "mean placement (1 is first)",
    CORRECTED: "mean placement corrected by the value (the luck it sees removed; the same expectation)",
    "top4_rate": "share of games finished in the top half",
    "three_star_rate": "share of final boards with a 3-star unit (of it)",
    "offer_rate": "copies shown per player and game",
    "pick_rate": "copies bought per copy shown",
    "play_rate": "share of final boards fielding it (a trait: active)",
    "top4_rate_when_fielded": "top-half rate of the final boards fielding it",
    "placement_when_fielded": "mean placement of the final boards fielding it",
}
READ_COLUMNS = ["board", "table", "seat", "bot", "placement", "offers", "bought", "final_champions", "final_stars"]
BOOTSTRAP_REPLICATES = 1000

# The moment vector of a component on a board: (y_base, n_base, y_variant, n_variant, dy, dn), dy = y_variant -
# y_base. The change's linearized value is a combination of (dy, dn, y_base, n_base): for identical runs, dy and
# dn are exactly 0 on every board, and so is its variance.
_Y_BASE, _N_BASE, _Y_VARIANT, _N_VARIANT, _DY, _DN = range(6)


class PairedRatios:
    """Ratios ``sum_b y_b / sum_b n_b`` of k components under a base and a variant, on the same boards.

    Keeps the sums over boards of the products of each component's moment
    vector (``y`` and ``n`` of each side and their differences): memory is
    O(k), whatever the boards.
    """

    def __init__(self, k: int, replicates: int = 0):
        self.k, self.boards = k, 0
        self.sums = np.zeros((6, k))
        self.products = np.zeros((6, 6, k))
        self.replicates = replicates
        self.replicate_boards = np.zeros((replicates, 1))
        self.replicate_sums = np.zeros((replicates, 6, k))
        self.replicate_products = np.zeros((replicates, 6, 6, k))

    def add(self, y_base, n_base, y_variant, n_variant, weights=None) -> None:
        """Add boards: each argument float64 (boards, k) (or (boards, 1) for one denominator).

        ``weights``: int32 (boards, replicates), each board's Poisson-bootstrap weight in each replicate.
        """
        y_base = np.asarray(y_base, dtype=np.float64)
        shape = y_base.shape
        n_base, y_variant, n_variant = (np.broadcast_to(np.asarray(a, dtype=np.float64), shape)
                                        for a in (n_base, y_variant, n_variant))
        vectors = np.stack([y_base, n_base, y_variant, n_variant, y_variant - y_base, n_variant - n_base])
        self.boards += shape[0]
        self.sums += vectors.sum(axis=1)
        self.products += np.einsum("ibk,jbk->ijk", vectors, vectors)
        if self.replicates:
            w = np.asarray(weights, dtype=np.float64)
            self.replicate_boards[:, 0] += w.sum(axis=0)
            self.replicate_sums += np.einsum("br,ibk->rik", w, vectors, optimize=True)
            self.replicate_products += np.einsum("br,ibk,jbk->rijk", w, vectors, vectors, optimize=True)

    @staticmethod
    def _variances(sums, products, boards):
        """``(base, variant, change, variance of the base's mean, of the variant's, of the change paired)``.

        ``sums`` (..., 6, k), ``products`` (..., 6, 6, k); variances of the means over ``boards`` boards (a
        number, or float64 (replicates, 1) of bootstrap replicates' board weights).
        """
        boards = np.asarray(boards, dtype=np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_n_base, mean_n_variant = sums[..., _N_BASE, :] / boards, sums[..., _N_VARIANT, :] / boards
            base = sums[..., _Y_BASE, :] / sums[..., _N_BASE, :]
            variant = sums[..., _Y_VARIANT, :] / sums[..., _N_VARIANT, :]
            zeros = np.zeros_like(base)
            # Linearized values as combinations of the moment vector: u = (y - r n) / mean n on each side;
            # the change's u_variant - u_base rewritten on (dy, dn, y_base, n_base) (see the module docstring).
            a_base = [zeros] * 6
            a_base[_Y_BASE], a_base[_N_BASE] = 1 / mean_n_base, -base / mean_n_base
            a_variant = [zeros] * 6
            a_variant[_Y_VARIANT], a_variant[_N_VARIANT] = 1 / mean_n_variant, -variant / mean_n_variant
            a_change = [zeros] * 6
            a_change[_DY] = 1 / mean_n_variant
            a_change[_DN] = -variant / mean_n_variant
            a_change[_Y_BASE] = 1 / mean_n_variant - 1 / mean_n_base
            a_change[_N_BASE] = base / mean_n_base - variant / mean_n_variant
            change = variant - base

            def variance(a):
                a = np.stack([np.nan_to_num(x, nan=0.0, posinf=0.0, neginf=0.0) for x in a], axis=-2)
                total = np.einsum("...ik,...ijk,...jk->...k", a, products, a)
                return np.maximum(total, 0.0) / np.maximum(boards - 1, 1) / boards

            return base, variant, change, variance(a_base), variance(a_variant), variance(a_change)

    def estimate(self, reference=None) -> dict:
        """Per component (float64 (k,) each): ``base``, ``variant``, ``change``, ``low``, ``high`` (the 95%
        interval of the change), ``variance_reduction`` (independent seeds' variance over the paired one).

        ``reference``: int64 (k,), the component whose independent seeds' variance each component's variance
        reduction is measured against (default: its own).
        """
        base, variant, change, v_base, v_variant, v_change = self._variances(self.sums, self.products, self.boards)
        # No spread at all (no board's difference differs from another's: in practice, no board differed) is no
        # 95% interval: a t interval of width 0 covered a rare event's true change in 78% of runs of 5 boards.
        with np.errstate(invalid="ignore"):
            half = np.where(v_change > 0.0, t_half_width(v_change, self.boards - 1, CONFIDENCE), np.nan)
        reduction = variance_ratio(_referenced(v_base + v_variant, reference), v_change)
        return {"base": base, "variant": variant, "change": change, "low": change - half, "high": change + half,
                "half_width": half, "variance_reduction": reduction}

    def replicate_reductions(self, reference=None) -> np.ndarray:
        """float64 (replicates, k): the variance reduction in each bootstrap replicate (``reference`` as for
        :meth:`estimate`)."""
        _, _, _, v_base, v_variant, v_change = self._variances(self.replicate_sums, self.replicate_products,
                                                               self.replicate_boards)
        with np.errstate(invalid="ignore", divide="ignore"):
            return _referenced(v_base + v_variant, reference) / v_change


def _referenced(independent: np.ndarray, reference) -> np.ndarray:
    """``independent`` (..., k) with component j's value taken from component ``reference[j]``."""
    return independent if reference is None else independent[..., np.asarray(reference, dtype=np.int64)]


def _per_board(values: np.ndarray, rows_per_board: int) -> np.ndarray:
    """float64 (boards, k): the sums over each board's rows of ``values`` (rows, k), rows in board order."""
    # The boards are counted, not left to reshape (-1): with no champion or trait in common, k is 0.
    boards = values.shape[0] // rows_per_board
    return values.reshape(boards, rows_per_board, values.shape[-1]).sum(axis=1, dtype=np.float64)


def _list_column(table, name: str) -> tuple:
    column = table.column(name).combine_chunks()
    return np.asarray(column.offsets, dtype=np.int64), np.asarray(column.flatten(), dtype=np.int64)


class _Side:
    """One run's chunk as per-row arrays of what the statistics count (champions in the comparison's order)."""

    def __init__(self, table, champion_index: np.ndarray, members: np.ndarray, first_breakpoint: np.ndarray,
                 players: int):
        rows, n = table.num_rows, members.shape[0]
        self.placement = table.column("placement").to_numpy().astype(np.float64)
        self.top4 = (self.placement <= players // 2).astype(np.float64)
        n_all = champion_index.size  # the run's champions; index -1: not in the comparison
        kept = champion_index >= 0
        offsets, offers = _list_column(table, "offers")
        _, bought = _list_column(table, "bought")
        self.offers = np.zeros((rows, n))
        self.bought = np.zeros((rows, n))
        self.offers[:, champion_index[kept]] = offers.reshape(rows, n_all)[:, kept]
        self.bought[:, champion_index[kept]] = bought.reshape(rows, n_all)[:, kept]
        board_offsets, champions = _list_column(table, "final_champions")
        _, stars = _list_column(table, "final_stars")
        row_of_unit = np.repeat(np.arange(rows), np.diff(board_offsets))
        mapped = champion_index[champions]
        ours = mapped >= 0
        self.fielded = np.zeros((rows, n))
        self.fielded[row_of_unit[ours], mapped[ours]] = 1.0
        self.three_star = np.zeros((rows, n))
        top = ours & (stars == 3)
        self.three_star[row_of_unit[top], mapped[top]] = 1.0
        # Traits: distinct champions fielded, as combat counts them.
        self.trait_offers = self.offers @ members
        self.trait_bought = self.bought @ members
        self.active = ((self.fielded @ members) >= first_breakpoint).astype(np.float64)
        self.trait_three_star = ((self.three_star @ members) > 0).astype(np.float64)
        self.any_three_star = np.zeros(rows)
        self.any_three_star[row_of_unit[stars == 3]] = 1.0
        # Read only from runs corrected by a value (compare_variants asks for the column when both are).
        self.corrected = (table.column(CORRECTED).to_numpy().astype(np.float64) if CORRECTED in table.column_names
                          else None)


def _unit_moments(side: _Side, offers, bought, fielded, three_star, rows_per_board: int) -> dict:
    """``{statistic: (y, n)}`` per board for champions or traits (see the module docstring)."""
    ones = np.ones((offers.shape[0], 1))
    placement, top4 = side.placement[:, None], side.top4[:, None]
    board = lambda values: _per_board(values, rows_per_board)  # noqa: E731
    rows = board(ones)
    return {"offer_rate": (board(offers), rows), "pick_rate": (board(bought), board(offers)),
            "play_rate": (board(fielded), rows), "top4_rate_when_fielded": (board(fielded * top4), board(fielded)),
            "placement_when_fielded": (board(fielded * placement), board(fielded)),
            "three_star_rate": (board(three_star), rows)}


def _bot_moments(side: _Side, bot_index: np.ndarray, scored: np.ndarray, n_bots: int, boards: int,
                 board_position: np.ndarray) -> dict:
    """``{statistic: (y, n)}`` per board and bot, over the design's scored rows (``corrected_placement`` too when
    the side has the column)."""
    cell = board_position[scored] * n_bots + bot_index[scored]

    def board(values):
        return np.bincount(cell, weights=values[scored], minlength=boards * n_bots).reshape(boards, n_bots)

    rows = board(np.ones_like(side.placement))
    moments = {"mean_placement": (board(side.placement), rows), "top4_rate": (board(side.top4), rows),
               "three_star_rate": (board(side.any_three_star), rows)}
    if side.corrected is not None:
        moments[CORRECTED] = (board(side.corrected), rows)
    return moments


def _names_in_both(base: list, variant: list) -> tuple:
    """The names of both lists (base order), and each list's index into them (-1: not in both)."""
    common = [name for name in base if name in set(variant)]
    position = {name: i for i, name in enumerate(common)}
    return common, (np.array([position.get(name, -1) for name in base], dtype=np.int64),
                     np.array([position.get(name, -1) for name in variant], dtype=np.int64))


def _trait_members(config, champions: list, traits: list) -> tuple:
    """float64 (champions, traits): 1 where the champion has the trait; int64 (traits,) first breakpoints."""
    members = np.zeros((len(champions), len(traits)))
    champion_of = {name: i for i, name in enumerate(config.champion_names)}
    trait_of = {name: i for i, name in enumerate(config.trait_names)}
    for j, trait in enumerate(traits):
        t = trait_of[trait]
        for i, champion in enumerate(champions):
            members[i, j] = float(t in config.champion_traits[champion_of[champion]])
    first = np.array([config.trait_breakpoints[trait_of[trait], 0] for trait in traits], dtype=np.float64)
    return members, first


def compare_variants(base, variant, first_boards: int | None = None, replicates: int = BOOTSTRAP_REPLICATES) -> dict:
    """The effect of the variant: each statistic's change with its interval and variance reduction.

    Parameters
    ----------
    base, variant : autodup.tournament.results.RunFolder
        Runs of the same boards, bots, seating, dealer and seed (their
        configurations differ).
    first_boards : int, optional
        Compare only the first boards (a multiple of the chunk size); default:
        every board finished in both runs.
    replicates : int
        Poisson-bootstrap replicates for the interval of the bots' variance
        reduction (weights from each board's seed, as in ``autodup quality``).

    Returns
    -------
    dict
        See :func:`autodup.analysis.ab.ab_result` for the layout. When both runs
        are corrected by a value (their manifests name one), each bot also has a
        ``corrected_placement`` entry, its ``variance_reduction`` measured against
        the raw change on independent seeds, and the result has the headline
        ``corrected_variance_reduction`` and ``corrected_variance_reduction_ci``
        (the median over bots and its bootstrap interval, as for the raw
        ``variance_reduction``). Without a value, these are absent (not None:
        None means identical runs, with no variance to reduce).

    Raises
    ------
    RunError
        The runs are not of the same boards and seating, or share no finished board.
    """
    from ..game.boards import scored_rows
    from ..tournament.spec import CHUNK_BOARDS
    from ..tournament.storage import chunk_files, chunk_index
    from .measure_kernels import poisson_weights

    check_comparable(base, variant)
    identity = base.identity
    # The manifest says whether the rows hold corrected placements (value_sha256 is part of the chunks' identity).
    corrected = bool(identity.get("value_sha256")) and bool(variant.identity.get("value_sha256"))
    bot_statistics = BOT_STATISTICS + ((CORRECTED,) if corrected else ())
    columns = READ_COLUMNS + ([CORRECTED] if corrected else [])
    bots = base.bot_names
    n_bots, players = len(bots), base.config.players
    champions, (champion_base, champion_variant) = _names_in_both(base.config.champion_names,
                                                                  variant.config.champion_names)
    traits, _ = _names_in_both(base.config.trait_names, variant.config.trait_names)
    # A trait's members and breakpoint may differ between the two configurations: each side counts its own.
    members_base, first_base = _trait_members(base.config, champions, traits)
    members_variant, first_variant = _trait_members(variant.config, champions, traits)
    chunks_base = {chunk_index(p): p for p in chunk_files(base.path)}
    chunks_variant = {chunk_index(p): p for p in chunk_files(variant.path)}
    shared = sorted(set(chunks_base) & set(chunks_variant))
    if first_boards is not None:
        shared = [c for c in shared if c < -(-first_boards // CHUNK_BOARDS)]
    if not shared:
        raise RunError(f"{base.path} and {variant.path}: no finished boards in common to compare")
    bot_pairs = PairedRatios(n_bots * len(bot_statistics), replicates)
    champion_pairs = PairedRatios(len(champions) * len(UNIT_STATISTICS))
    trait_pairs = PairedRatios(len(traits) * len(UNIT_STATISTICS))
    bot_of = {name: i for i, name in enumerate(bots)}
    boards = 0
    for chunk in shared:
        table_base, _ = read_chunk_table(chunks_base[chunk], columns)
        table_variant, _ = read_chunk_table(chunks_variant[chunk], columns)
        keys = [table_base.column(k).to_numpy() for k in ("board", "table", "seat")]
        if not all(np.array_equal(k, table_variant.column(n).to_numpy()) for k, n in zip(keys, ("board", "table",
                                                                                              "seat"))) \
                or table_base.column("bot").to_pylist() != table_variant.column("bot").to_pylist():
            raise RunError(f"{chunks_variant[chunk]}: its rows are not those of {chunks_base[chunk]} (the same "
                           "boards, tables, seats and bots are needed)")
        board = keys[0]
        board_ids, board_position = np.unique(board, return_inverse=True)
        rows_per_board = board.size // board_ids.size
        if not np.array_equal(board_position, np.repeat(np.arange(board_ids.size), rows_per_board)):
            raise RunError(f"{chunks_base[chunk]}: rows are not in board order")
        sides = [_Side(t, index, m, f, players) for t, index, m, f in
                 ((table_base, champion_base, members_base, first_base),
                  (table_variant, champion_variant, members_variant, first_variant))]
        bot_index = np.array([bot_of[name] for name in table_base.column("bot").to_pylist()], dtype=np.int64)
        scored = scored_rows(identity["design"], board, keys[2], players)
        moments = [_bot_moments(side, bot_index, scored, n_bots, board_ids.size, board_position) for side in sides]
        weights = poisson_weights(np.uint64(identity["seed"]), int(board_ids[0]), board_ids.size, replicates) \
            if replicates else None
        if replicates and not np.array_equal(board_ids, np.arange(board_ids[0], board_ids[0] + board_ids.size)):
            raise RunError(f"{chunks_base[chunk]}: its boards are not consecutive")
        bot_pairs.add(*_stacked(moments, bot_statistics), weights=weights)
        champion_moments = [_unit_moments(s, s.offers, s.bought, s.fielded, s.three_star, rows_per_board)
                            for s in sides]
        champion_pairs.add(*_stacked(champion_moments, UNIT_STATISTICS))
        trait_moments = [_unit_moments(s, s.trait_offers, s.trait_bought, s.active, s.trait_three_star,
                                       rows_per_board) for s in sides]
        trait_pairs.add(*_stacked(trait_moments, UNIT_STATISTICS))
        boards += board_ids.size
    # The corrected change's variance reduction is against the raw change's variance on independent seeds: the
    # gain of the whole method (same boards and the value) over independent seeds with nothing corrected.
    of = {statistic: slice(s * n_bots, (s + 1) * n_bots) for s, statistic in enumerate(bot_statistics)}
    reference = np.arange(bot_pairs.k)
    if corrected:
        reference[of[CORRECTED]] = reference[of["mean_placement"]]
    bot_estimates = bot_pairs.estimate(reference)
    replicate_reductions = bot_pairs.replicate_reductions(reference) if replicates else None

    def headline(statistic, prefix=""):
        return _headline(bot_estimates["variance_reduction"][of[statistic]],
                         replicate_reductions[:, of[statistic]] if replicates else None, prefix)

    return {"boards": boards, "bots": _entries(bot_estimates, bots, bot_statistics),
            "champions": _entries(champion_pairs.estimate(), champions, UNIT_STATISTICS),
            "traits": _entries(trait_pairs.estimate(), traits, UNIT_STATISTICS),
            "only_in_base": {"champions": [c for c in base.config.champion_names if c not in champions],
                             "traits": [t for t in base.config.trait_names if t not in traits]},
            "only_in_variant": {"champions": [c for c in variant.config.champion_names if c not in champions],
                                "traits": [t for t in variant.config.trait_names if t not in traits]},
            **headline("mean_placement"), **(headline(CORRECTED, "corrected_") if corrected else {})}


def _stacked(moments: list, statistics: tuple) -> tuple:
    """``(y_base, n_base, y_variant, n_variant)``, each (boards, statistics x k): statistic-major components."""
    (base, variant) = moments
    return (np.concatenate([base[s][0] for s in statistics], axis=1),
            np.concatenate([np.broadcast_to(base[s][1], base[s][0].shape) for s in statistics], axis=1),
            np.concatenate([variant[s][0] for s in statistics], axis=1),
            np.concatenate([np.broadcast_to(variant[s][1], variant[s][0].shape) for s in statistics], axis=1))


def _number(x):
    x = float(x)
    return x if np.isfinite(x) else None


def _entries(estimates: dict, names: list, statistics: tuple) -> dict:
    """``{name: {statistic: {base, variant, change, ci, variance_reduction}}}`` from statistic-major components."""
    k = len(names)
    out = {}
    for i, name in enumerate(names):
        entry = {}
        for s, statistic in enumerate(statistics):
            j = s * k + i
            entry[statistic] = {"base": _number(estimates["base"][j]), "variant": _number(estimates["variant"][j]),
                                "change": _number(estimates["change"][j]),
                                "ci": [_number(estimates["low"][j]), _number(estimates["high"][j])],
                                "variance_reduction": _number(estimates["variance_reduction"][j])}
        out[name] = entry
    return out


def _headline(per_bot: np.ndarray, replicates, prefix: str = "") -> dict:
    """The median over bots of the variance reduction of their change of mean placement, with its interval.

    ``per_bot``: float64 (bots,); ``replicates``: float64 (replicates, bots) or None (no interval); the keys
    are ``variance_reduction`` and ``variance_reduction_ci``, after ``prefix``.
    """
    finite = per_bot[np.isfinite(per_bot)]
    if not finite.size:  # identical runs: no variance at all to reduce
        return {f"{prefix}variance_reduction": None, f"{prefix}variance_reduction_ci": [None, None]}
    interval = [None, None]
    if replicates is not None:
        medians = np.array([np.median(r[np.isfinite(r)]) if np.isfinite(r).any() else np.nan for r in replicates])
        medians = medians[np.isfinite(medians)]
        interval = percentile_interval(medians)
    return {f"{prefix}variance_reduction": float(np.median(finite)), f"{prefix}variance_reduction_ci": interval}


def check_comparable(base, variant) -> None:
    """Raise :class:`RunError` unless the two run folders play the same boards, seats and bots."""
    a, b = base.identity, variant.identity
    # The same value too: the change of corrected placement needs one correction on both sides.
    for key in ("seed", "dealer", "design", "events", "tables", "chunk_boards", "format", "value_sha256"):
        if a.get(key) != b.get(key):
            raise RunError(f"{variant.path}: its {key} is {b.get(key)!r}, the base's {a.get(key)!r} (an A/B "
                           "comparison needs the same boards, seating and dealer)")
    if base.bot_names != variant.bot_names or [x[2] for x in a["bots"]] != [x[2] for x in b["bots"]]:
        raise RunError(f"{variant.path}: its bots are not the base's (an A/B comparison plays the same bots)")
    if base.config.players != variant.config.players:
        raise RunError(f"{variant.path}: {variant.config.players} players, the base {base.config.players} (an A/B "
                       "comparison needs tables of the same size: placements would not compare)")
