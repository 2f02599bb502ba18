"""One run's measures, chunk by chunk, and a dealer compared with its control."""

from __future__ import annotations

import math

import numpy as np

from ..game.boards import scored_rows
from ..game.stats import LUCK_NAMES
from ..game.value import CORRECTION_COLUMNS, CORRECTION_KINDS
from .luck import LUCK_SOURCES, adjusted_placements, luck_features, luck_matrix
from .measure_kernels import (
    ADJUSTED,
    ALPHA,
    BOOTSTRAP_REPLICATES,
    COLUMNS,
    CORRECTED,
    DIFFERENT,
    IDENTICAL,
    MULTISET,
    PAIRS,
    RAW,
    SAME,
    SLOTS,
    offer_overlap,
    poisson_weights,
    round0_slot_counts,
    shop_agreement_by_round,
    slot_tiers_by_level,
)
from .statistics import RatioObservable, boards_needed, holm, percentile_interval, two_sample_test, variance_ratio

__all__ = ["ROWS_PER_SLOPE_MEASURED", "RunMeasures", "measure_run", "compare_with_control", "RESOLVED_Z",
           "SEATING_NAMES", "EVENTS_NAMES", "seating_name", "events_name", "with_seating", "resolution", "unresolved_reason", "unresolved_note", "unfitted_note", "variance_reduction",
           "luck_sources", "value_sources", "value_estimator", "closest_pair"]


# The luck removed by the adjustment is measured from this many training rows per slope, not from the 3 that
# keep the adjusted score from spreading wider than the raw one (autodup.analysis.luck.ROWS_PER_SLOPE): with
# fewer, the slopes' own noise holds the run's figure below what the adjustment removes on a longer run, and
# its interval misses it (bench_quality_coverage.py: paired seating's adjusted figures at 300 boards of set4,
# 4.9 rows per slope, held the value of a 3,000-board run 4 and 6 times in 10).
ROWS_PER_SLOPE_MEASURED = 10
VALUE_PREFIX = "value "


def value_estimator(kind: str) -> str:
    """The estimator that corrects placements by one kind of chance event's correction alone."""
    return VALUE_PREFIX + kind


class RunMeasures:
    """Everything measured of one run folder, accumulated chunk by chunk (memory flat in boards).

    Parameters
    ----------
    folder : autodup.tournament.results.RunFolder
    replicates : int
        Bootstrap replicates of the luck-removed intervals.
    keep_differences : bool
        Also keep every board's difference of each pair under the raw, adjusted and corrected estimators
        (``board_differences``; memory grows with the boards), for the null check
        (:mod:`autodup.analysis.null_check`).
    """

    def __init__(self, folder, replicates: int = BOOTSTRAP_REPLICATES, keep_differences: bool = False):
        config = folder.config
        identity = folder.identity
        self.folder = folder
        self.seed = int(identity["seed"])
        self.bots = folder.bot_names
        self.tables = int(identity["tables"])
        self.seats = config.players
        self.shop_size = config.shop_size
        self.champions = list(config.champion_names)
        self.champion_tier = np.asarray(config.champion_tier, dtype=np.int64)
        n_tiers = len(config.tier_cost)
        n_levels = config.level_odds.shape[0]
        n_bots, n_champions = len(self.bots), len(self.champions)
        self.replicates = replicates
        self.boards = 0
        self.shop_sums = np.zeros((config.max_rounds, 2, 4))
        self.offer_sums = np.zeros((2, 2))
        self.round0_counts = np.zeros((self.seats, self.shop_size, n_champions), dtype=np.int64)
        self.tier_levels = [RatioObservable(f"shop tiers at level {level}", n_tiers) for level in range(n_levels)]
        self.offers = RatioObservable("offers per champion", n_champions)
        self.placement_by_seat = RatioObservable("placement by bot and seat", n_bots * self.seats)
        self.per_bot = {name: RatioObservable(f"{label} by bot", n_bots)
                        for name, label in (("hp", "final HP"), ("rounds_alive", "rounds survived"),
                                            ("gold_spent", "gold spent"))}
        pairs = [(i, j) for i in range(n_bots) for j in range(i + 1, n_bots)]
        self.pairs = pairs
        # Luck removed, per estimator: the raw placement, the luck-adjusted one (every term), and each luck
        # source's terms alone (how much variance that source holds). Slopes are cross-fitted over boards
        # (autodup.analysis.luck), in a first pass over the folder (see measure_run).
        self.design = identity.get("design", "latin")
        self.estimators = [RAW, ADJUSTED, *LUCK_SOURCES]
        # A run corrected by a value: its corrected placements, and each kind of chance event's correction alone.
        self.corrected = bool(identity.get("value_sha256"))
        if self.corrected:
            self.estimators += [CORRECTED, *(value_estimator(kind) for kind in CORRECTION_KINDS)]
        self.slopes = {}
        self.fitted = {}
        self.luck_fit = None
        self.difference_sums = {name: np.zeros((len(pairs), 3)) for name in self.estimators}  # boards, sum D, D^2
        self.bootstrap_sums = {name: np.zeros((replicates, len(pairs), 3)) for name in self.estimators}
        self.board_differences = {name: [] for name in (RAW, ADJUSTED, CORRECTED)} if keep_differences else None
        self.luck_sums = np.zeros((len(LUCK_NAMES), 2))   # over boards: sum and sum of squares of per-board totals
        self.luck_rows = 0

    def fit_luck(self, fit) -> None:
        """Take the slopes of a :class:`autodup.analysis.luck.CrossFit` of this run (before any chunk is added)."""
        fits = {ADJUSTED: fit.slopes_and_fitted(),
                **{source: fit.slopes_and_fitted(terms) for source, terms in LUCK_SOURCES.items()}}
        self.slopes = {name: slopes for name, (slopes, _) in fits.items()}
        self.fitted = {name: fitted for name, (_, fitted) in fits.items()}   # bool (bots,) per estimator
        self.luck_fit = fit

    def luck_is_fitted(self, pair: int, estimator: str) -> bool:
        """Whether the luck removed under ``estimator`` can be measured on pair ``pair``: both bots had the boards
        to fit their slopes (a bot that had not counts raw placements on some boards: its adjusted figure would
        be a raw one under another name), and the run has :data:`ROWS_PER_SLOPE_MEASURED` rows per slope."""
        if estimator == RAW:
            return True
        if estimator == CORRECTED or estimator.startswith(VALUE_PREFIX):
            return self.corrected
        fitted = self.fitted.get(estimator)
        return (fitted is not None and all(bool(fitted[bot]) for bot in self.pairs[pair])
                and self.boards >= self.boards_to_fit())

    def boards_to_fit(self) -> int:
        """About how many boards this run needs to measure the luck removed (:data:`ROWS_PER_SLOPE_MEASURED`,
        :meth:`autodup.analysis.luck.CrossFit.boards_to_fit`)."""
        return self.luck_fit.boards_to_fit(self.boards, rows_per_slope=ROWS_PER_SLOPE_MEASURED)

    # -- reading ----------------------------------------------------------

    def add_chunk(self, table) -> None:
        """Add one chunk (a :class:`pyarrow.Table` of :data:`COLUMNS`, rows of whole boards)."""
        import pyarrow.compute as pc

        board = table.column("board").to_numpy()
        key = (board * self.tables + table.column("table").to_numpy()) * self.seats + table.column("seat").to_numpy()
        if np.any(np.diff(key) <= 0):  # chunks are written in this order; sort only one that is not
            order = pc.sort_indices(table, [("board", "ascending"), ("table", "ascending"), ("seat", "ascending")])
            table = table.take(order)
            board = table.column("board").to_numpy()
        first_board = int(board[0])
        board_local = (board - first_board).astype(np.int64)
        n_boards = int(board_local[-1]) + 1
        seats, n_tables = self.seats, self.tables
        if board.size != n_boards * n_tables * seats:
            raise ValueError(f"{self.folder.path}: a chunk of {board.size} rows is not whole boards of "
                             f"{n_tables} tables x {seats} seats")
        bot_index = {name: i for i, name in enumerate(self.bots)}
        bot = np.array([bot_index[name] for name in table.column("bot").to_pylist()], dtype=np.int64)
        shops = table.column("round_shops").combine_chunks()
        shop_offsets = np.asarray(shops.offsets, dtype=np.int64)
        shop_offsets = shop_offsets - shop_offsets[0]
        shop_values = np.asarray(shops.flatten(), dtype=np.int16)
        levels = table.column("round_level").combine_chunks()
        level_offsets = np.asarray(levels.offsets, dtype=np.int64)
        level_offsets = level_offsets - level_offsets[0]
        level_values = np.asarray(levels.flatten(), dtype=np.int64)
        offers = np.asarray(table.column("offers").combine_chunks().flatten(), dtype=np.int32).reshape(board.size, -1)

        shop_agreement_by_round(shop_offsets, shop_values, bot, n_boards, n_tables, seats, self.shop_size,
                                self.shop_sums)
        offer_overlap(offers, bot, n_boards, n_tables, seats, self.offer_sums)
        round0_slot_counts(shop_offsets, shop_values, seats, self.shop_size, self.round0_counts)

        # Correctness: per-board sums of each observable.
        n_levels = len(self.tier_levels)
        tiers = np.zeros((n_boards, n_levels, len(self.tier_levels[0].sum_y)), dtype=np.int64)
        slot_tiers_by_level(shop_offsets, shop_values, level_offsets, level_values, board_local, self.shop_size,
                            self.champion_tier, tiers)
        for level, observable in enumerate(self.tier_levels):
            observable.add(tiers[:, level], tiers[:, level].sum(axis=1, keepdims=True))
        per_board_offers = offers.reshape(n_boards, -1, offers.shape[1]).sum(axis=1).astype(np.float64)
        self.offers.add(per_board_offers, per_board_offers.sum(axis=1, keepdims=True))
        n_bots = len(self.bots)
        cell = bot * seats + table.column("seat").to_numpy().astype(np.int64)
        y = np.zeros((n_boards, n_bots * seats))  # placements by (bot, seat), and how many
        n = np.zeros((n_boards, n_bots * seats))
        np.add.at(y, (board_local, cell), table.column("placement").to_numpy().astype(np.float64))
        np.add.at(n, (board_local, cell), 1.0)
        self.placement_by_seat.add(y, n)
        counts = n.reshape(n_boards, n_bots, seats).sum(axis=2)
        for name, observable in self.per_bot.items():
            values = np.zeros((n_boards, n_bots))
            np.add.at(values, (board_local, bot), table.column(name).to_numpy().astype(np.float64))
            observable.add(values, counts)

        # Luck terms: each term's per-board total (every row), for the zero-mean test.
        luck = luck_matrix(table, board.size)
        per_board_luck = np.zeros((n_boards, luck.shape[1]))
        np.add.at(per_board_luck, board_local, luck)
        self.luck_sums[:, 0] += per_board_luck.sum(axis=0)
        self.luck_sums[:, 1] += (per_board_luck ** 2).sum(axis=0)
        self.luck_rows += board.size

        # Luck removed: each bot's mean score per board over its scored rows, differences of pairs.
        seat = table.column("seat").to_numpy().astype(np.int64)
        scored = scored_rows(self.design, board, seat, seats)
        placement = table.column("placement").to_numpy().astype(np.float64)
        features = luck_features(luck, board, table.column("table").to_numpy())
        weights = poisson_weights(np.uint64(self.seed), first_board, n_boards, self.replicates).astype(np.float64)
        counts = np.zeros((n_boards, n_bots))
        np.add.at(counts, (board_local[scored], bot[scored]), 1.0)
        first = np.array([i for i, _ in self.pairs], dtype=np.int64)
        second = np.array([j for _, j in self.pairs], dtype=np.int64)
        corrections = {}
        if self.corrected:
            corrections[CORRECTED] = table.column("corrected_placement").to_numpy()
            for kind, column in zip(CORRECTION_KINDS, CORRECTION_COLUMNS):
                corrections[value_estimator(kind)] = placement - table.column(column).to_numpy()
        for name in self.estimators:
            if name in corrections:
                score = corrections[name]
            else:
                score = placement if name == RAW else adjusted_placements(self.slopes[name], bot, board, placement,
                                                                          features)
            sums = np.zeros((n_boards, n_bots))
            np.add.at(sums, (board_local[scored], bot[scored]), score[scored])
            with np.errstate(invalid="ignore", divide="ignore"):
                means = sums / counts
            differences = means[:, first] - means[:, second]            # (boards, pairs)
            if self.board_differences is not None and name in self.board_differences:
                self.board_differences[name].append(differences)
            played = np.isfinite(differences)
            d = np.where(played, differences, 0.0)
            self.difference_sums[name][:, 0] += played.sum(axis=0)
            self.difference_sums[name][:, 1] += d.sum(axis=0)
            self.difference_sums[name][:, 2] += (d * d).sum(axis=0)
            self.bootstrap_sums[name][:, :, 0] += weights.T @ played
            self.bootstrap_sums[name][:, :, 1] += weights.T @ d
            self.bootstrap_sums[name][:, :, 2] += weights.T @ (d * d)
        self.boards += n_boards

    # -- results ----------------------------------------------------------

    def observables(self) -> list:
        """The correctness observables, in report order."""
        return [*self.tier_levels, self.offers, self.placement_by_seat, *self.per_bot.values()]

    def cross_table(self) -> dict:
        """Cross-table correlation of this run: by round, over rounds >= 1, and split by same/different bot."""
        sums = self.shop_sums
        both = sums.sum(axis=1)
        played = np.flatnonzero(both[:, PAIRS] > 0)
        last = int(played[-1]) + 1 if played.size else 0

        def share(values, count):
            return float(values / count) if count > 0 else None

        def by_kind(kind):
            later = sums[1:, kind].sum(axis=0)
            return {"pairs": int(later[PAIRS]),
                    "whole_shop_identical": share(later[IDENTICAL], later[PAIRS]),
                    "slot_agreement": share(later[SLOTS], later[PAIRS]),
                    "multiset_overlap": share(later[MULTISET], later[PAIRS]),
                    "offer_overlap": share(self.offer_sums[kind, 1], self.offer_sums[kind, 0])}

        later = both[1:].sum(axis=0)
        counts = self.round0_counts.astype(np.float64)
        totals = counts.sum(axis=2, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            frequencies = np.where(totals > 0, counts / totals, 0.0)
        return {
            "whole_shop_identical": share(later[IDENTICAL], later[PAIRS]),
            "slot_agreement": share(later[SLOTS], later[PAIRS]),
            "multiset_overlap": share(later[MULTISET], later[PAIRS]),
            "offer_overlap": share(self.offer_sums[:, 1].sum(), self.offer_sums[:, 0].sum()),
            # Independent tables with these marginals agree on a slot with probability sum_c f_c^2.
            "chance_slot_agreement_round0": float((frequencies ** 2).sum(axis=2).mean()),
            "by_round": {"round": list(range(last)),
                         "pairs": [int(x) for x in both[:last, PAIRS]],
                         "whole_shop_identical": [share(x, c) for x, c in zip(both[:last, IDENTICAL], both[:last, PAIRS])],
                         "slot_agreement": [share(x, c) for x, c in zip(both[:last, SLOTS], both[:last, PAIRS])],
                         "multiset_overlap": [share(x, c) for x, c in zip(both[:last, MULTISET], both[:last, PAIRS])]},
            "by_bots": {"same": by_kind(SAME), "different": by_kind(DIFFERENT)},
        }

    def offer_frequency(self) -> tuple:
        """Each champion's share of all offers and its standard error (over boards): two lists of N floats."""
        r, covariance = self.offers.estimate()
        return np.nan_to_num(r).tolist(), np.sqrt(np.clip(np.diag(covariance), 0, None)).tolist()

    def pair_statistics(self, estimator: str = RAW) -> dict:
        """Per pair: boards, mean and variance of the per-board difference, and the bootstrap replicates' variances
        (``estimator``: ``raw``, ``adjusted`` or a luck source of :data:`autodup.analysis.luck.LUCK_SOURCES`)."""
        boards, total, squares = self.difference_sums[estimator].T
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = total / boards
            variance = (squares - boards * mean ** 2) / (boards - 1)
            w, wd, wdd = np.moveaxis(self.bootstrap_sums[estimator], 2, 0)
            replicate_mean = wd / w
            replicate_variance = (wdd - w * replicate_mean ** 2) / (w - 1)
        return {"boards": boards, "mean": mean, "variance": variance, "replicates": replicate_variance,
                "replicate_means": replicate_mean}

    def luck_terms(self) -> dict:
        """Whether each luck term has mean zero: ``{term: {mean, se, z, p_value, p_holm}}`` and ``all_zero_mean``.

        The unit is the board (a board's tables share seeds): each term's
        per-board total, its mean over boards against zero (a z-test), Holm
        over the terms; ``mean`` and ``se`` are per seat-game. A term that
        never varied is left out.
        """
        from scipy.stats import norm

        total, squares = self.luck_sums.T
        boards = self.boards
        rows_per_board = self.luck_rows / boards if boards else 1.0
        terms = {}
        for k, name in enumerate(LUCK_NAMES):
            if boards < 2:
                break
            mean = total[k] / boards
            variance = max(squares[k] / boards - mean ** 2, 0.0) * boards / (boards - 1)
            if variance <= 1e-18 * max(1.0, squares[k] / boards):
                continue
            se = math.sqrt(variance / boards)
            z = mean / se
            terms[name] = {"mean": mean / rows_per_board, "se": se / rows_per_board, "z": z,
                           "p_value": float(2 * norm.sf(abs(z)))}
        for (name, entry), p in zip(terms.items(), holm([entry["p_value"] for entry in terms.values()])):
            entry["p_holm"] = p
        return {"terms": terms, "all_zero_mean": all(entry["p_holm"] >= ALPHA for entry in terms.values())}


def measure_run(folder, replicates: int = BOOTSTRAP_REPLICATES, keep_differences: bool = False) -> RunMeasures:
    """Read run folder ``folder`` (a path or :class:`~autodup.tournament.results.RunFolder`) chunk by chunk into
    measures (``keep_differences``: see :class:`RunMeasures`)."""
    from ..tournament.results import RunFolder
    from .summary import fit_luck

    folder = folder if isinstance(folder, RunFolder) else RunFolder(folder)
    measures = RunMeasures(folder, replicates, keep_differences)
    measures.fit_luck(fit_luck(folder.path, measures.bots, measures.design))
    columns = COLUMNS + (["corrected_placement", *CORRECTION_COLUMNS] if measures.corrected else [])
    for table in folder.chunks(columns):
        measures.add_chunk(table)
    return measures


# --------------------------------------------------------------------------
# a dealer against the control
# --------------------------------------------------------------------------


def _finite(x):
    x = float(x)
    return x if math.isfinite(x) else None


def compare_with_control(dealer: RunMeasures, control: RunMeasures, alpha: float = ALPHA,
                 games_per_second: float | None = None) -> dict:
    """A dealer's correctness tests and luck removed against the control's run of the same boards.

    Returns the keys ``correct``, ``min_p_value``, ``deciding_observable``,
    ``tests``, ``pairs``, ``variance_reduction`` (the closest pair's),
    ``variance_reduction_ci``, ``median_variance_reduction`` and their
    luck-adjusted forms (``adjusted_*``, also per pair) of one dealer in
    ``quality.json``.
    """
    tests = []
    for ours, theirs in zip(dealer.observables(), control.observables()):
        result = two_sample_test(ours, theirs)
        if result["df"] == 0:
            continue  # nothing varies (tier 5 at level 1): nothing to test
        tests.append({"observable": ours.name, **result})
    adjusted = holm([test["p_value"] for test in tests])
    for test, p in zip(tests, adjusted):
        test["p_holm"] = p
        test["statistic"] = _finite(test["statistic"])
    deciding = min(tests, key=lambda test: test["p_holm"]) if tests else None

    ours, theirs = dealer.pair_statistics(), control.pair_statistics()
    adjusted_statistics = dealer.pair_statistics(ADJUSTED)
    corrected_statistics = dealer.pair_statistics(CORRECTED) if dealer.corrected else None
    tables = dealer.tables
    per_board = tables / games_per_second if games_per_second else None  # seconds
    pairs = []
    for p, (i, j) in enumerate(dealer.pairs):
        factor, interval = variance_reduction(dealer, control, p)
        adjusted_factor, adjusted_interval = variance_reduction(dealer, control, p, ADJUSTED)
        mean = theirs["mean"][p]  # the control measures the difference the boards must resolve
        unresolved = unresolved_note([control], p)
        fitted = dealer.luck_is_fitted(p, ADJUSTED)

        def needed(variance):
            return _finite(boards_needed(variance, mean)) if unresolved is None else None

        boards_here, boards_control = needed(ours["variance"][p]), needed(theirs["variance"][p])
        corrected = {}
        if corrected_statistics is not None:
            corrected_factor, corrected_interval = variance_reduction(dealer, control, p, CORRECTED)
            boards_corrected = needed(corrected_statistics["variance"][p])
            corrected = {"corrected_mean_difference": _finite(corrected_statistics["mean"][p]),
                         "corrected_variance": _finite(corrected_statistics["variance"][p]),
                         "corrected_variance_reduction": corrected_factor,
                         "corrected_variance_reduction_ci": corrected_interval,
                         "boards_needed_corrected": boards_corrected,
                         "games_needed_corrected": None if boards_corrected is None else boards_corrected * tables,
                         "variance_removed_by_kind": value_sources(dealer, p)}
        pairs.append({"bots": [dealer.bots[i], dealer.bots[j]], "mean_difference": _finite(mean),
                      "variance": _finite(ours["variance"][p]), "variance_control": _finite(theirs["variance"][p]),
                      # The luck-adjusted difference's mean and variance, when fitted: the most precise estimate of
                      # the difference an exact dealer's boards give (the terms have mean zero).
                      "adjusted_mean_difference": _finite(adjusted_statistics["mean"][p]) if fitted else None,
                      "adjusted_variance": _finite(adjusted_statistics["variance"][p]) if fitted else None,
                      "variance_reduction": factor, "variance_reduction_ci": interval,
                      "adjusted_variance_reduction": adjusted_factor,
                      "adjusted_variance_reduction_ci": adjusted_interval,
                      "adjusted_variance_reduction_why": None if fitted else unfitted_note(dealer),
                      "boards_needed": boards_here, "boards_needed_control": boards_control,
                      "boards_needed_why": unresolved,
                      "games_needed": None if boards_here is None else boards_here * tables,
                      "games_needed_control": None if boards_control is None else boards_control * tables,
                      "seconds_needed": None if boards_here is None or per_board is None
                      else boards_here * per_board,
                      "seconds_needed_control": None if boards_control is None or per_board is None
                      else boards_control * per_board, **corrected})
    closest = closest_pair(control)
    headline = pairs[closest] if pairs else {"variance_reduction": None, "variance_reduction_ci": [None, None]}
    factors = [pair["variance_reduction"] for pair in pairs if pair["variance_reduction"] is not None]
    adjusted_factors = [pair["adjusted_variance_reduction"] for pair in pairs
                        if pair["adjusted_variance_reduction"] is not None]
    adjusted = ((headline["adjusted_variance_reduction"], headline["adjusted_variance_reduction_ci"],
                 headline["adjusted_variance_reduction_why"]) if pairs else (None, [None, None], None))
    return {"correct": bool(deciding is None or deciding["p_holm"] >= alpha),
            "min_p_value": deciding["p_holm"] if deciding else None,
            "deciding_observable": deciding["observable"] if deciding else None,
            "tests": tests, "pairs": pairs,
            "variance_reduction": headline["variance_reduction"],
            "variance_reduction_ci": headline["variance_reduction_ci"],
            "median_variance_reduction": float(np.median(factors)) if factors else None,
            "adjusted_variance_reduction": adjusted[0], "adjusted_variance_reduction_ci": adjusted[1],
            "adjusted_variance_reduction_why": adjusted[2],
            "median_adjusted_variance_reduction": float(np.median(adjusted_factors)) if adjusted_factors else None,
            **(_corrected_headline(pairs, closest) if dealer.corrected else {})}


def _corrected_headline(pairs: list, closest: int) -> dict:
    """The corrected estimator's figures of a dealer: the closest pair's, the median over pairs, the decomposition."""
    factors = [pair["corrected_variance_reduction"] for pair in pairs
               if pair.get("corrected_variance_reduction") is not None]
    headline = pairs[closest] if pairs else {}
    return {"corrected_variance_reduction": headline.get("corrected_variance_reduction"),
            "corrected_variance_reduction_ci": headline.get("corrected_variance_reduction_ci", [None, None]),
            "median_corrected_variance_reduction": float(np.median(factors)) if factors else None,
            "variance_removed_by_kind": headline.get("variance_removed_by_kind")}


# A mean difference is resolved, for the figures that divide by it (boards needed, the efficiency of a design
# against another), when it is this many standard errors from 0: its square is then known within about 50%
# (2 se / |mean|), and the pair chosen as the closest is not just the one whose noise came out smallest.
# Below it such a figure is not given; the run says how many boards would resolve it.
RESOLVED_Z = 4.0
# How a reader names a run's seating and event addressing: the terminal, the report and these notes alike.
SEATING_NAMES = {"latin": "Latin square", "paired": "paired seating"}
EVENTS_NAMES = {"seat": "events by who", "position": "events by position"}


def seating_name(design) -> str:
    """``design`` (``latin``, ``paired``) as a reader names it; an unknown one as it is."""
    return SEATING_NAMES.get(design, design)


def events_name(events) -> str:
    """``events`` (``seat``, ``position``) as a reader names it; an unknown one as it is."""
    return EVENTS_NAMES.get(events, events)


def with_seating(design) -> str:
    """"with the Latin square", "with paired seating": the seating a note speaks of."""
    return f"with the {seating_name(design)}" if design == "latin" else f"with {seating_name(design)}"


def resolution(run: RunMeasures, pair: int) -> float:
    """|mean| / standard error of pair ``pair``'s per-board raw difference in ``run`` (0 when it cannot tell)."""
    statistics = run.pair_statistics(RAW)
    boards, mean, variance = (statistics[key][pair] for key in ("boards", "mean", "variance"))
    if not (boards > 1 and np.isfinite(mean) and np.isfinite(variance)):
        return 0.0
    return float(abs(mean) / math.sqrt(variance / boards)) if variance > 0 else (math.inf if mean else 0.0)


def unresolved_reason(z: float, boards: int, where: str = "", divides: str = "this figure divides by it and needs") \
        -> str | None:
    """Why a figure dividing by a mean difference ``z`` standard errors from 0 at ``boards`` boards is not given
    (``where``: the seating it was measured with; ``divides``: what divides by it), with about how many boards
    would resolve it (``boards (RESOLVED_Z / z)^2`` at the spread and mean measured so far); None when
    ``z`` is at least :data:`RESOLVED_Z`."""
    if z >= RESOLVED_Z:
        return None
    needed = math.ceil(boards * (RESOLVED_Z / z) ** 2) if z > 0 else None
    more = ("far more boards than these" if needed is None or needed > 100 * max(boards, 1)
            else f"about {needed:,} boards")
    return (f"not resolved at {boards:,} boards: the pair's mean difference is {z:.1f} standard errors from 0"
            f"{where} ({divides} {RESOLVED_Z:g}); {more} would resolve it")


def unresolved_note(runs, pair: int) -> str | None:
    """Why a figure dividing by pair ``pair``'s mean difference in each of ``runs`` is not given (the run that
    needs the most boards to resolve it), or None when every run resolves it (:data:`RESOLVED_Z`)."""
    unresolved = [(z, run) for z, run in ((resolution(run, pair), run) for run in runs) if z < RESOLVED_Z]
    if not unresolved:
        return None
    z, run = max(unresolved, key=lambda item: item[1].boards / item[0] ** 2 if item[0] > 0 else math.inf)
    return unresolved_reason(z, run.boards, f" {with_seating(run.design)}")


def unfitted_note(run: RunMeasures) -> str:
    """Why a luck-adjusted figure of ``run`` is not given: too few boards to fit its bots' slopes well enough to
    measure what the adjustment removes (:data:`ROWS_PER_SLOPE_MEASURED`)."""
    return (f"too few boards to measure the luck correction at {run.boards:,} boards {with_seating(run.design)}; "
            f"about {run.boards_to_fit():,} boards would fit its slopes")


def variance_reduction(run: RunMeasures, control: RunMeasures, pair: int, estimator: str = RAW) -> tuple:
    """``(factor, [low, high])``: the control's raw variance of pair ``pair``'s per-board difference over the
    run's variance under ``estimator``, with its 95% Poisson-bootstrap interval (same boards, same weights).

    ``(None, [None, None])`` under an adjusted estimator when a bot of the pair
    had too few boards to fit its slopes (:meth:`RunMeasures.luck_is_fitted`).
    """
    if not run.luck_is_fitted(pair, estimator):
        return None, [None, None]
    ours, theirs = run.pair_statistics(estimator), control.pair_statistics(RAW)
    factor = variance_ratio(theirs["variance"][pair], ours["variance"][pair])
    spread = variance_ratio(theirs["replicates"][:, pair], ours["replicates"][:, pair])
    interval = percentile_interval(spread[np.isfinite(spread)])
    return _finite(factor), interval


def _variance_removed(run: RunMeasures, pair: int, estimators: dict) -> dict:
    """``{label: 1 - var(estimator) / var(raw)}`` of pair ``pair``'s difference, for ``{label: estimator}``; None
    where the estimator is not fitted for the pair (:meth:`RunMeasures.luck_is_fitted`) or nothing varies."""
    raw = run.pair_statistics(RAW)["variance"][pair]
    shares = {}
    for label, name in estimators.items():
        variance = run.pair_statistics(name)["variance"][pair]
        shares[label] = _finite(1.0 - variance / raw) if raw > 0 and run.luck_is_fitted(pair, name) else None
    return shares


def luck_sources(run: RunMeasures, pair: int) -> dict:
    """How much of the run's variance of pair ``pair``'s difference each luck source holds: ``{source: share}``,
    1 - var(adjusted by that source's terms alone) / var(raw), and ``every source`` for all the terms."""
    return _variance_removed(run, pair, {**{source: source for source in LUCK_SOURCES}, "every source": ADJUSTED})


def value_sources(run: RunMeasures, pair: int) -> dict:
    """How much of the run's variance of pair ``pair``'s difference each kind of chance event's correction removes
    on its own: ``{kind: share}``, 1 - var(corrected by that kind alone) / var(raw), and ``every kind``."""
    return _variance_removed(run, pair, {**{kind: value_estimator(kind) for kind in CORRECTION_KINDS},
                                         "every kind": CORRECTED})


def closest_pair(control: RunMeasures) -> int:
    """Index (into ``control.pairs``) of the pair whose mean difference under the control is smallest."""
    means = np.abs(control.pair_statistics()["mean"])
    means = np.where(np.isfinite(means), means, np.inf)
    return int(np.argmin(means)) if means.size else 0
