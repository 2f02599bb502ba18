"""Measures of duplication quality, read from run folders (never from the game): the numbers of ``autodup quality``.

Every measure compares runs of the same boards (same configuration, bots,
seating and tournament seed): one run per duplicate dealer and one of the
``independent`` control, whose tables share nothing. A run is read chunk by
chunk (:meth:`autodup.results.RunFolder.chunks`) into accumulators whose size
does not depend on the number of boards, so memory stays flat however long the
run.

Cross-table correlation
    For two tables of one board, the same seat and the same round, both seats
    alive, the shops dealt by the round's free refresh are compared:
    *whole-shop identical* (every slot the same champion, or empty at both),
    *same-slot agreement* (the share of slots holding the same champion) and *multiset
    overlap* (``sum_c min(a_c, b_c) / shop_size``: the same champions in any
    order). Over a game, *offer overlap* compares every champion a seat was
    shown (``sum_c min(nA_c, nB_c) / max(NA, NB)``, all shops, rerolls
    included). Each is averaged over all table pairs, by round and over rounds
    >= 1 (round 0 is identical for every shared dealer, at chance level for the
    control), and split by whether the two seats held the same bot.
Correctness against the control
    Per-table observables of a dealer's run against the control's: the tier of
    each round's shop slots at each level, each champion's share of all
    offers, the mean placement of each bot at each seat, and each bot's mean
    final HP, rounds survived and gold spent. A board is the sampling unit
    (a duplicate dealer's tables are correlated, the control's are not), so
    each observable is a ratio of per-board sums whose covariance is estimated
    across boards (the delta method), and the two runs are compared by a Wald
    test, chi-square with as many degrees of freedom as the covariance's rank
    (with fewer than ten boards per dimension, component by component: Welch's
    t, Bonferroni-corrected).
    The p-values of one dealer are Holm-corrected; the dealer is *correct*
    when the smallest corrected p-value is at least ``alpha`` (0.001), and the
    observable with that p-value decided the verdict.
Luck removed
    Per board, each bot's mean placement over its tables; for a pair of bots
    the per-board difference ``D``. The *variance reduction factor* is
    ``var(D)`` under the control divided by ``var(D)`` under the dealer: the
    factor by which the dealer cuts the boards needed for the same precision.
    Its 95% interval is a Poisson bootstrap over boards, each board's weight
    in each replicate drawn from the board's own seed (so both runs use the
    same weights, and a chunk can be measured on its own). *Boards needed* to
    tell a pair apart at 95%: ``(1.96 sd(D) / |mean D|)^2``, with the mean
    difference measured by the control. The headline is the closest pair
    (smallest ``|mean D|`` under the control).
Coupling diagnostic
    From traced games (each seat's first draws with their inputs, see
    :func:`coupling_from_trace`): at the first draw where two tables' inputs at
    a seat differ, how often they still dealt the same champion, beside the
    P-MinHash agreement ``J_P`` and the maximal coupling ``1 - TV`` of the two
    champion distributions, the ceilings of a communication-free and of any
    coupling.
"""

from __future__ import annotations

import math
import os

import numpy as np
from numba import njit

from .boards import scored_rows
from .game import LUCK_NAMES
from .luck import LUCK_SOURCES, adjusted_placements, luck_features, luck_matrix
from .rng import LABEL_BOARD, STREAM_BOOTSTRAP, derive_seed_kernel, random_uniform

__all__ = ["RunMeasures", "measure_run", "compare_runs", "coupling_from_trace", "measure_quality", "holm",
           "ALPHA", "BOOTSTRAP_REPLICATES"]

ALPHA = 0.001               # family-wise level of one dealer's verdict: a false alarm per 1,000 exact dealers
BOOTSTRAP_REPLICATES = 1000
Z95 = 1.959963984540054     # two-sided 95% normal quantile
SAME, DIFFERENT = 0, 1      # the two seats held the same bot, or different bots
PAIRS, IDENTICAL, SLOTS, MULTISET = range(4)  # cross-table sums by round
# Columns a measure reads from a chunk.
COLUMNS = ["board", "table", "seat", "bot", "placement", "hp", "rounds_alive", "gold_spent", "round_shops",
           "round_level", "offers", "luck"]
RAW, ADJUSTED = "raw", "adjusted"  # the score estimators: placements, and placements less cross-fitted luck


# --------------------------------------------------------------------------
# kernels: cross-table comparisons of one chunk
# --------------------------------------------------------------------------


@njit(cache=True)
def same_seat_pairs(n_boards, n_tables, seats):
    """Every pair of rows at the same board and seat of two tables: int64 (pairs, 2), rows (board, table, seat) ordered."""
    per_board = n_tables * (n_tables - 1) // 2 * seats
    pairs = np.empty((n_boards * per_board, 2), dtype=np.int64)
    k = 0
    for b in range(n_boards):
        for s in range(seats):
            for ta in range(n_tables):
                for tb in range(ta + 1, n_tables):
                    pairs[k, 0] = (b * n_tables + ta) * seats + s
                    pairs[k, 1] = (b * n_tables + tb) * seats + s
                    k += 1
    return pairs


@njit(cache=True, nogil=True)
def shop_agreement_by_round(shop_offsets, shop_values, bot, n_boards, n_tables, seats, shop_size, sums):
    """Add the chunk's table pairs to ``sums`` (float64 (R, 2, 4): round, same/different bot, PAIRS..MULTISET).

    Rows are ordered by board, table, seat: row ``(b * n_tables + t) * seats + s``
    owns ``shop_values[shop_offsets[row]:shop_offsets[row + 1]]`` (int16,
    ``shop_size`` champions per round alive, -1 for an empty slot). Rounds
    beyond ``R`` are not counted. It runs without the interpreter's lock, so
    that several runs are measured side by side (:func:`measure_quality`).
    """
    largest = -1
    for i in range(shop_values.shape[0]):
        largest = max(largest, np.int64(shop_values[i]))
    copies = np.zeros(largest + 1, dtype=np.int64)  # a's champions, counted while b's are matched
    pairs = same_seat_pairs(n_boards, n_tables, seats)
    for i in range(pairs.shape[0]):
        _compare_shops(pairs[i, 0], pairs[i, 1], shop_offsets, shop_values, bot, shop_size, copies, sums)


@njit(cache=True)
def _compare_shops(ra, rb, shop_offsets, shop_values, bot, shop_size, copies, sums):
    """Add rows ``ra`` and ``rb``'s round shops, round by round, to ``sums`` (float64 (R, 2, 4))."""
    kind = SAME if bot[ra] == bot[rb] else DIFFERENT
    rounds = min(shop_offsets[ra + 1] - shop_offsets[ra], shop_offsets[rb + 1] - shop_offsets[rb]) // shop_size
    for r in range(min(rounds, sums.shape[0])):
        a0 = shop_offsets[ra] + r * shop_size
        b0 = shop_offsets[rb] + r * shop_size
        same_slots = 0   # the same champion
        equal_slots = 0  # the same champion, or both empty
        for k in range(shop_size):
            if shop_values[a0 + k] == shop_values[b0 + k]:
                equal_slots += 1
                if shop_values[a0 + k] >= 0:
                    same_slots += 1
        # Multiset overlap: sum_c min(a_c, b_c), by counting a's champions and matching b's against them.
        overlap = same_slots
        if equal_slots < shop_size:
            overlap = 0
            for k in range(shop_size):
                if shop_values[a0 + k] >= 0:
                    copies[shop_values[a0 + k]] += 1
            for k in range(shop_size):
                champion = shop_values[b0 + k]
                if champion >= 0 and copies[champion] > 0:
                    copies[champion] -= 1
                    overlap += 1
            for k in range(shop_size):
                if shop_values[a0 + k] >= 0:
                    copies[shop_values[a0 + k]] = 0
        sums[r, kind, PAIRS] += 1.0
        sums[r, kind, IDENTICAL] += 1.0 if equal_slots == shop_size else 0.0
        sums[r, kind, SLOTS] += same_slots / shop_size
        sums[r, kind, MULTISET] += overlap / shop_size


@njit(cache=True, nogil=True)
def offer_overlap(offers, bot, n_boards, n_tables, seats, sums):
    """Add each table pair's offer overlap at each seat to ``sums`` (float64 (2, 2): same/different bot, count/sum).

    ``offers`` is int32 (rows, N), rows ordered by board, table, seat.
    """
    pairs = same_seat_pairs(n_boards, n_tables, seats)
    for i in range(pairs.shape[0]):
        ra, rb = pairs[i, 0], pairs[i, 1]
        common = 0
        total_a = 0
        total_b = 0
        for c in range(offers.shape[1]):
            common += min(offers[ra, c], offers[rb, c])
            total_a += offers[ra, c]
            total_b += offers[rb, c]
        most = max(total_a, total_b)
        if most == 0:
            continue
        kind = SAME if bot[ra] == bot[rb] else DIFFERENT
        sums[kind, 0] += 1.0
        sums[kind, 1] += common / most


@njit(cache=True, nogil=True)
def slot_tiers_by_level(shop_offsets, shop_values, level_offsets, levels, board_of_row, shop_size, champion_tier,
                        counts):
    """Count each round's shop slots by the seat's level then and the champion's tier: ``counts[board, level, tier]``."""
    for row in range(board_of_row.shape[0]):
        b = board_of_row[row]
        for r in range(level_offsets[row + 1] - level_offsets[row]):
            level = levels[level_offsets[row] + r]
            if level >= counts.shape[1]:
                continue
            for k in range(shop_size):
                champion = shop_values[shop_offsets[row] + r * shop_size + k]
                if champion >= 0:
                    counts[b, level, champion_tier[champion]] += 1


@njit(cache=True, nogil=True)
def round0_slot_counts(shop_offsets, shop_values, seats, shop_size, counts):
    """Count round 0's champions by seat and slot: ``counts[seat, slot, champion]`` (rows ordered, seat last)."""
    for row in range(shop_offsets.shape[0] - 1):
        if shop_offsets[row + 1] - shop_offsets[row] < shop_size:
            continue
        for k in range(shop_size):
            champion = shop_values[shop_offsets[row] + k]
            if champion >= 0:
                counts[row % seats, k, champion] += 1


@njit(cache=True, nogil=True)
def poisson_weights(tournament_seed, first_board, n_boards, replicates):
    """Each board's Poisson(1) weight in each bootstrap replicate: int32 (n_boards, replicates).

    Board ``b``'s weights come from its grandparent seed (stream
    ``STREAM_BOOTSTRAP``, counter = replicate), so they are the same in every
    run of that board, whichever chunk or process measures it.
    """
    out = np.zeros((n_boards, replicates), dtype=np.int32)
    for i in range(n_boards):
        seed = board_seed_kernel(tournament_seed, first_board + i)
        for r in range(replicates):
            u = random_uniform(seed, np.uint64(STREAM_BOOTSTRAP), np.uint64(r))
            # Inverse CDF of Poisson(1): P(k) = e^-1 / k!.
            k = 0
            p = math.exp(-1.0)
            cumulative = p
            while u > cumulative and k < 30:
                k += 1
                p /= k
                cumulative += p
            out[i, r] = k
    return out


@njit(cache=True)
def board_seed_kernel(tournament_seed, board):
    """The grandparent seed of ``board`` (:func:`autodup.rng.board_seed`), inside jitted code."""
    return derive_seed_kernel(np.uint64(tournament_seed), np.uint64(LABEL_BOARD), np.uint64(board))


# --------------------------------------------------------------------------
# ratio observables: per-board sums, compared by a Wald test
# --------------------------------------------------------------------------


class RatioObservable:
    """A vector of ratios ``sum_b y_b / sum_b n_b`` (k components) with its covariance over boards.

    Only sums of products are kept (``sum y y'``, ``sum y n'``, ``sum n n'``),
    so memory does not grow with boards. The covariance of the ratios is the
    delta method's: the covariance over boards of ``(y_b - r n_b)``, divided by
    ``B`` and by the mean denominator's square, component by component.
    """

    def __init__(self, name: str, k: int):
        self.name = name
        self.boards = 0
        self.sum_y = np.zeros(k)
        self.sum_n = np.zeros(k)
        self.yy = np.zeros((k, k))
        self.yn = np.zeros((k, k))
        self.nn = np.zeros((k, k))

    def add(self, y: np.ndarray, n: np.ndarray) -> None:
        """Add boards: ``y`` and ``n`` float64 (boards, k) (``n`` may be (boards, 1): one denominator)."""
        y = np.asarray(y, dtype=np.float64)
        n = np.broadcast_to(np.asarray(n, dtype=np.float64), y.shape)
        self.boards += y.shape[0]
        self.sum_y += y.sum(axis=0)
        self.sum_n += n.sum(axis=0)
        self.yy += y.T @ y
        self.yn += y.T @ n
        self.nn += n.T @ n

    def estimate(self) -> tuple:
        """``(ratios, covariance)``: float64 (k,) and (k, k); NaN ratios where no board had a denominator."""
        with np.errstate(invalid="ignore", divide="ignore"):
            r = self.sum_y / self.sum_n
        r0 = np.where(np.isfinite(r), r, 0.0)
        B = self.boards
        # sum_b (y - r n)(y - r n)' expanded, then centred (its mean is zero at the ratio estimate).
        s = self.yy - self.yn * r0[None, :] - (self.yn * r0[None, :]).T + np.outer(r0, r0) * self.nn
        mean_n = self.sum_n / max(B, 1)
        with np.errstate(invalid="ignore", divide="ignore"):
            scale = np.where(mean_n > 0, 1.0 / mean_n, 0.0)
        covariance = s * np.outer(scale, scale) / max(B, 1) / max(B - 1, 1)
        return r, covariance


WALD_BOARDS_PER_DIMENSION = 10  # fewer boards per dimension: the covariance is too noisy to invert


def two_sample_test(a: RatioObservable, b: RatioObservable) -> dict:
    """Whether two runs' ratios differ: ``{"test", "statistic", "df", "p_value"}``.

    With at least :data:`WALD_BOARDS_PER_DIMENSION` boards per dimension in
    each run, a Wald test (chi-square on the covariance's rank); with fewer,
    whose covariance estimate would be too noisy to invert, each component is
    tested on its own (Welch's t, Welch-Satterthwaite degrees of freedom) and
    the smallest p-value is Bonferroni-corrected over the components
    (``"max-t"``). Components with no denominator in either run, or varying in
    neither, are left out; a difference in a component that varies in neither
    run has p = 0.
    """
    from scipy.stats import chi2, t as student

    ra, ca = a.estimate()
    rb, cb = b.estimate()
    keep = np.isfinite(ra) & np.isfinite(rb)
    d = (ra - rb)[keep]
    va, vb = ca[np.ix_(keep, keep)], cb[np.ix_(keep, keep)]
    v = va + vb
    if d.size == 0:
        return {"test": "none", "statistic": 0.0, "df": 0, "p_value": 1.0}
    values, vectors = np.linalg.eigh(v)
    top = values.max() if values.size else 0.0
    # Below this a variance is rounding left by y - r n, not variation: relative to the largest eigenvalue,
    # and to the ratios' own scale (a ratio such as 3/17 is not exact in binary).
    scale = max(np.abs(ra[keep]).max(), np.abs(rb[keep]).max(), 1e-300) ** 2
    floor = max(max(top, 0.0) * 1e-10, scale * 1e-16)
    rank_mask = values > floor
    rank = int(rank_mask.sum())
    projected = vectors.T @ d
    outside = np.sqrt(np.sum(projected[~rank_mask] ** 2))
    if outside > 1e-9 * max(1.0, np.abs(d).max()):
        return {"test": "exact", "statistic": math.inf, "df": max(rank, 1), "p_value": 0.0}
    if rank == 0:
        return {"test": "none", "statistic": 0.0, "df": 0, "p_value": 1.0}
    if min(a.boards, b.boards) >= WALD_BOARDS_PER_DIMENSION * rank:
        statistic = float(np.sum(projected[rank_mask] ** 2 / values[rank_mask]))
        return {"test": "wald", "statistic": statistic, "df": rank, "p_value": float(chi2.sf(statistic, rank))}
    var_a, var_b = np.diag(va), np.diag(vb)
    varies = (var_a + var_b) > floor
    se2 = (var_a + var_b)[varies]
    t_values = np.abs(d[varies]) / np.sqrt(se2)
    with np.errstate(invalid="ignore", divide="ignore"):
        welch = se2 ** 2 / (var_a[varies] ** 2 / max(a.boards - 1, 1) + var_b[varies] ** 2 / max(b.boards - 1, 1))
    welch = np.where(np.isfinite(welch), welch, max(min(a.boards, b.boards) - 1, 1))
    p_values = 2.0 * student.sf(t_values, welch)
    worst = int(np.argmin(p_values))
    return {"test": "max-t", "statistic": float(t_values[worst]), "df": int(varies.sum()),
            "p_value": float(min(1.0, p_values[worst] * varies.sum()))}


def holm(p_values) -> list:
    """Holm's step-down adjustment of ``p_values`` (family-wise error control), in their order."""
    p = np.asarray(p_values, dtype=np.float64)
    m = p.size
    order = np.argsort(p, kind="stable")
    adjusted = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adjusted[i] = running
    return adjusted.tolist()


# --------------------------------------------------------------------------
# one run, chunk by chunk
# --------------------------------------------------------------------------


class RunMeasures:
    """Everything measured of one run folder, accumulated chunk by chunk (memory flat in boards).

    Parameters
    ----------
    folder : autodup.results.RunFolder
    replicates : int
        Bootstrap replicates of the luck-removed intervals.
    """

    def __init__(self, folder, replicates: int = BOOTSTRAP_REPLICATES):
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
        # (autodup.luck), in a first pass over the folder (see measure_run).
        self.design = identity.get("design", "latin")
        self.estimators = [RAW, ADJUSTED, *LUCK_SOURCES]
        self.slopes = {}
        self.difference_sums = {name: np.zeros((len(pairs), 3)) for name in self.estimators}  # boards, sum D, D^2
        self.bootstrap_sums = {name: np.zeros((replicates, len(pairs), 3)) for name in self.estimators}
        self.luck_sums = np.zeros((len(LUCK_NAMES), 2))   # over boards: sum and sum of squares of per-board totals
        self.luck_rows = 0

    def fit_luck(self, fit) -> None:
        """Take the slopes of a :class:`autodup.luck.CrossFit` of this run (before any chunk is added)."""
        self.slopes = {ADJUSTED: fit.slopes(), **{source: fit.slopes(terms) for source, terms in LUCK_SOURCES.items()}}

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
        for name in self.estimators:
            score = placement if name == RAW else adjusted_placements(self.slopes[name], bot, board, placement, features)
            sums = np.zeros((n_boards, n_bots))
            np.add.at(sums, (board_local[scored], bot[scored]), score[scored])
            with np.errstate(invalid="ignore", divide="ignore"):
                means = sums / counts
            differences = means[:, first] - means[:, second]            # (boards, pairs)
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
        (``estimator``: ``raw``, ``adjusted`` or a luck source of :data:`autodup.luck.LUCK_SOURCES`)."""
        boards, total, squares = self.difference_sums[estimator].T
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = total / boards
            variance = (squares - boards * mean ** 2) / (boards - 1)
            w, wd, wdd = np.moveaxis(self.bootstrap_sums[estimator], 2, 0)
            replicate_mean = wd / w
            replicate_variance = (wdd - w * replicate_mean ** 2) / (w - 1)
        return {"boards": boards, "mean": mean, "variance": variance, "replicates": replicate_variance}

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


def measure_run(folder, replicates: int = BOOTSTRAP_REPLICATES) -> RunMeasures:
    """Read run folder ``folder`` (a path or :class:`~autodup.results.RunFolder`) chunk by chunk into measures."""
    from .results import RunFolder

    from .tournament import fit_luck

    folder = folder if isinstance(folder, RunFolder) else RunFolder(folder)
    measures = RunMeasures(folder, replicates)
    measures.fit_luck(fit_luck(folder.path, measures.bots, measures.design))
    for table in folder.chunks(COLUMNS):
        measures.add_chunk(table)
    return measures


# --------------------------------------------------------------------------
# a dealer against the control
# --------------------------------------------------------------------------


def _finite(x):
    x = float(x)
    return x if math.isfinite(x) else None


def compare_runs(dealer: RunMeasures, control: RunMeasures, alpha: float = ALPHA,
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
    tables = dealer.tables
    per_board = tables / games_per_second if games_per_second else None  # seconds
    pairs = []
    for p, (i, j) in enumerate(dealer.pairs):
        factor, interval = variance_reduction(dealer, control, p)
        adjusted_factor, adjusted_interval = variance_reduction(dealer, control, p, ADJUSTED)
        mean = theirs["mean"][p]  # the control measures the difference the boards must resolve

        def needed(variance):
            return _finite((Z95 ** 2) * variance / mean ** 2) if mean != 0 else None

        boards_needed, boards_control = needed(ours["variance"][p]), needed(theirs["variance"][p])
        pairs.append({"bots": [dealer.bots[i], dealer.bots[j]], "mean_difference": _finite(mean),
                      "variance": _finite(ours["variance"][p]), "variance_control": _finite(theirs["variance"][p]),
                      "variance_reduction": factor, "variance_reduction_ci": interval,
                      "adjusted_variance_reduction": adjusted_factor,
                      "adjusted_variance_reduction_ci": adjusted_interval,
                      "boards_needed": boards_needed, "boards_needed_control": boards_control,
                      "games_needed": None if boards_needed is None else boards_needed * tables,
                      "games_needed_control": None if boards_control is None else boards_control * tables,
                      "seconds_needed": None if boards_needed is None or per_board is None
                      else boards_needed * per_board,
                      "seconds_needed_control": None if boards_control is None or per_board is None
                      else boards_control * per_board})
    closest = closest_pair(control)
    headline = pairs[closest] if pairs else {"variance_reduction": None, "variance_reduction_ci": [None, None]}
    factors = [pair["variance_reduction"] for pair in pairs if pair["variance_reduction"] is not None]
    adjusted_factors = [pair["adjusted_variance_reduction"] for pair in pairs
                        if pair["adjusted_variance_reduction"] is not None]
    adjusted = ((headline["adjusted_variance_reduction"], headline["adjusted_variance_reduction_ci"]) if pairs
                else (None, [None, None]))
    return {"correct": bool(deciding is None or deciding["p_holm"] >= alpha),
            "min_p_value": deciding["p_holm"] if deciding else None,
            "deciding_observable": deciding["observable"] if deciding else None,
            "tests": tests, "pairs": pairs,
            "variance_reduction": headline["variance_reduction"],
            "variance_reduction_ci": headline["variance_reduction_ci"],
            "median_variance_reduction": float(np.median(factors)) if factors else None,
            "adjusted_variance_reduction": adjusted[0], "adjusted_variance_reduction_ci": adjusted[1],
            "median_adjusted_variance_reduction": float(np.median(adjusted_factors)) if adjusted_factors else None}


def variance_reduction(run: RunMeasures, control: RunMeasures, pair: int, estimator: str = RAW) -> tuple:
    """``(factor, [low, high])``: the control's raw variance of pair ``pair``'s per-board difference over the
    run's variance under ``estimator``, with its 95% Poisson-bootstrap interval (same boards, same weights)."""
    ours, theirs = run.pair_statistics(estimator), control.pair_statistics(RAW)
    with np.errstate(invalid="ignore", divide="ignore"):
        factor = theirs["variance"][pair] / ours["variance"][pair]
        spread = theirs["replicates"][:, pair] / ours["replicates"][:, pair]
    spread = spread[np.isfinite(spread)]
    interval = np.percentile(spread, [2.5, 97.5]).tolist() if spread.size else [None, None]
    return _finite(factor), interval


def luck_sources(run: RunMeasures, pair: int) -> dict:
    """How much of the run's variance of pair ``pair``'s difference each luck source holds: ``{source: share}``,
    1 - var(adjusted by that source's terms alone) / var(raw), and ``every source`` for all the terms."""
    raw = run.pair_statistics(RAW)["variance"][pair]
    shares = {}
    for name in [*LUCK_SOURCES, ADJUSTED]:
        adjusted = run.pair_statistics(name)["variance"][pair]
        shares["every source" if name == ADJUSTED else name] = _finite(1.0 - adjusted / raw) if raw > 0 else None
    return shares


def closest_pair(control: RunMeasures) -> int:
    """Index (into ``control.pairs``) of the pair whose mean difference under the control is smallest."""
    means = np.abs(control.pair_statistics()["mean"])
    means = np.where(np.isfinite(means), means, np.inf)
    return int(np.argmin(means)) if means.size else 0


# --------------------------------------------------------------------------
# coupling diagnostic, from traced games
# --------------------------------------------------------------------------


@njit(cache=True)
def _champion_distribution(weights, n_tiers, champion_tier, out):
    """The law of one hierarchical draw over the champions and "nothing" (``out[N]``, float64 (N + 1,)).

    A champion's probability is its tier's share of the tier weights times its
    share of the tier's copies; a tier with odds but no copies (the
    ``empty_tier: empty`` rule) deals nothing, so its share goes to ``out[N]``.
    """
    tier_total = 0.0
    for t in range(n_tiers):
        tier_total += weights[t]
    n = out.shape[0] - 1
    copies = np.zeros(n_tiers)
    for c in range(n):
        copies[champion_tier[c]] += weights[n_tiers + c]
    out[n] = 0.0
    for t in range(n_tiers):
        if tier_total > 0 and copies[t] <= 0:
            out[n] += weights[t] / tier_total
    for c in range(n):
        t = champion_tier[c]
        if tier_total > 0 and copies[t] > 0:
            out[c] = weights[t] / tier_total * weights[n_tiers + c] / copies[t]
        else:
            out[c] = 0.0
    if tier_total <= 0:
        out[n] = 1.0


@njit(cache=True)
def _j_p(p, q):
    """P-MinHash agreement ``sum_i 1 / sum_j max(p_j / p_i, q_j / q_i)`` over outcomes both can draw."""
    total = 0.0
    for i in range(p.shape[0]):
        if p[i] <= 0 or q[i] <= 0:
            continue
        s = 0.0
        for j in range(p.shape[0]):
            s += max(p[j] / p[i], q[j] / q[i])
        total += 1.0 / s
    return total


@njit(cache=True)
def coupling_kernel(trace_weights, trace_key, trace_outcome, trace_count, champion_tier, n_tiers, out):
    """For every table pair at every (board, seat): the first traced draw whose inputs differ.

    ``out`` (float64 (8,)) accumulates: pairs found, outcomes equal there,
    J_P, 1 - TV, pairs whose weights differed there, draws before it that
    disagreed although their inputs were equal (0 for a duplicate dealer: a
    check of the trace itself), and pairs whose draw keys differed there (a
    draw made at another moment: another round or reroll), and of those whose
    keys were equal, the ones that agreed.
    """
    n_boards, n_tables, seats = trace_count.shape
    n = champion_tier.shape[0]
    p = np.zeros(n + 1)  # champions, then "nothing" (outcome -1)
    q = np.zeros(n + 1)
    for b in range(n_boards):
        for s in range(seats):
            for ta in range(n_tables):
                for tb in range(ta + 1, n_tables):
                    length = min(trace_count[b, ta, s], trace_count[b, tb, s])
                    for k in range(length):
                        weights_differ = False
                        for x in range(trace_weights.shape[4]):
                            if trace_weights[b, ta, s, k, x] != trace_weights[b, tb, s, k, x]:
                                weights_differ = True
                                break
                        if not weights_differ and trace_key[b, ta, s, k] == trace_key[b, tb, s, k]:
                            if trace_outcome[b, ta, s, k] != trace_outcome[b, tb, s, k]:
                                out[5] += 1.0
                            continue
                        _champion_distribution(trace_weights[b, ta, s, k], n_tiers, champion_tier, p)
                        _champion_distribution(trace_weights[b, tb, s, k], n_tiers, champion_tier, q)
                        out[0] += 1.0
                        out[1] += 1.0 if trace_outcome[b, ta, s, k] == trace_outcome[b, tb, s, k] else 0.0
                        out[2] += _j_p(p, q)
                        distance = 0.0
                        for c in range(n + 1):
                            distance += abs(p[c] - q[c])
                        out[3] += 1.0 - 0.5 * distance
                        out[4] += 1.0 if weights_differ else 0.0
                        if trace_key[b, ta, s, k] != trace_key[b, tb, s, k]:
                            out[6] += 1.0
                        elif trace_outcome[b, ta, s, k] == trace_outcome[b, tb, s, k]:
                            out[7] += 1.0
                        break


def coupling_from_trace(trace_weights, trace_key, trace_outcome, trace_count, champion_tier, n_tiers) -> dict:
    """The coupling diagnostic of traced boards (arrays as :class:`autodup.boards.BoardResults` holds them).

    Returns ``{"boards", "draws", "pairs", "agreement", "agreement_se", "j_p", "one_minus_tv",
    "weights_differ", "key_differs", "agreement_same_key",
    "disagreed_on_equal_inputs"}``: over table pairs at each
    (board, seat) of the ``boards`` traced, each seat's first ``draws`` draws,
    at the first draw whose inputs (tier and champion weights,
    draw key) differ, the share that dealt the same champion, its standard
    error (binomial), and the mean J_P and 1 - TV of the two champion laws;
    also the share of those draws made at different keys (moments), and the
    agreement of the others (the keyed dealer's J_P holds at equal keys).
    """
    out = np.zeros(8)
    coupling_kernel(trace_weights, trace_key, trace_outcome, trace_count,
                    np.asarray(champion_tier, dtype=np.int64), int(n_tiers), out)
    pairs = int(out[0])
    traced = {"boards": int(trace_count.shape[0]), "draws": int(trace_outcome.shape[3])}
    if pairs == 0:
        return {**traced, "pairs": 0, "agreement": None, "agreement_se": None, "j_p": None, "one_minus_tv": None,
                "weights_differ": None, "key_differs": None, "agreement_same_key": None,
                "disagreed_on_equal_inputs": int(out[5])}
    agreement = out[1] / pairs
    return {**traced, "pairs": pairs, "agreement": agreement, "agreement_se": math.sqrt(agreement * (1 - agreement) / pairs),
            "j_p": out[2] / pairs, "one_minus_tv": out[3] / pairs, "weights_differ": out[4] / pairs,
            "key_differs": out[6] / pairs,
            "agreement_same_key": out[7] / (pairs - out[6]) if pairs > out[6] else None,
            "disagreed_on_equal_inputs": int(out[5])}


# --------------------------------------------------------------------------
# everything: quality.json
# --------------------------------------------------------------------------

QUALITY_FORMAT = 1


def check_same_boards(runs: dict) -> None:
    """Refuse runs that did not play the same boards (config, bots, boards, seed, tables): one line."""
    first, *others = runs.values()
    first_done = first.boards_done()
    for other in others:
        for key in ("config_sha256", "boards", "seed", "tables"):
            if first.identity[key] != other.identity[key]:
                raise ValueError(f"{other.path}: not the same boards as {first.path} ({key}: "
                                 f"{other.identity[key]!r} against {first.identity[key]!r})")
        if first.bot_names != other.bot_names:
            raise ValueError(f"{other.path}: not the same bots as {first.path} ({', '.join(other.bot_names)} "
                             f"against {', '.join(first.bot_names)})")
        done = other.boards_done()
        if done != first_done:
            raise ValueError(f"{other.path}: {done} boards finished against {first_done} in {first.path} "
                             "(finish both runs first)")


def measure_quality(folders: dict, control: str, traces: dict | None = None, alpha: float = ALPHA,
                    games_per_second: float | None = None, replicates: int = BOOTSTRAP_REPLICATES) -> dict:
    """Measure every dealer's run against the control's: the dict written as ``quality.json``.

    Parameters
    ----------
    folders : dict
        ``{dealer name: RunFolder}``, the control among them.
    control : str
        The control's key in ``folders``.
    traces : dict, optional
        ``{dealer name: {trace_weights, trace_key, trace_outcome, trace_count}}``
        of traced boards (:func:`autodup.tournament.trace_boards`), for the
        coupling diagnostic.
    games_per_second : float, optional
        How fast games were played, for the seconds needed.
    """
    from concurrent.futures import ThreadPoolExecutor

    from .dealers import DEALERS

    if control not in folders:
        raise ValueError(f"no run of the control ({control}) among the runs to measure: each dealer is compared "
                         "with it")
    check_same_boards(folders)
    # Runs are measured side by side: the kernels and Parquet release the interpreter.
    with ThreadPoolExecutor(max_workers=min(len(folders), os.cpu_count() or 1)) as pool:
        futures = {name: pool.submit(measure_run, folder, replicates) for name, folder in folders.items()}
        measured = {name: future.result() for name, future in futures.items()}
    reference = measured[control]
    config = folders[control].config
    control_dealer = folders[control].identity["dealer"]
    controls = {folder.identity.get("design", "latin"): name for name, folder in folders.items()
                if folder.identity["dealer"] == control_dealer}
    for name, folder in folders.items():
        if folder.identity.get("design", "latin") not in controls:
            raise ValueError(f"{folder.path}: no run of the control ({control_dealer}) with its design "
                             f"({folder.identity.get('design')}) among the runs to measure")
    closest = closest_pair(reference)
    order = [name for name in folders if name not in controls.values()] + list(controls.values())
    dealers = {}
    for name in order:
        run = measured[name]
        design = folders[name].identity.get("design", "latin")
        its_control = measured[controls[design]]
        dealer_name = folders[name].identity["dealer"]
        entry = {"dealer": dealer_name, "design": design, "events": folders[name].identity.get("events"),
                 "exact": DEALERS[dealer_name].exact if dealer_name in DEALERS else None}
        if name in controls.values():
            entry.update({"correct": None, "min_p_value": None, "deciding_observable": None, "tests": [],
                          "pairs": [], "variance_reduction": None, "variance_reduction_ci": [None, None],
                          "median_variance_reduction": None, "median_adjusted_variance_reduction": None})
            adjusted = variance_reduction(run, run, closest, ADJUSTED) if run.pairs else (None, [None, None])
            entry["adjusted_variance_reduction"], entry["adjusted_variance_reduction_ci"] = adjusted
        else:
            entry.update(compare_runs(run, its_control, alpha, games_per_second))
        entry["luck_terms"] = run.luck_terms()
        entry["luck_sources"] = luck_sources(run, closest) if run.pairs else {}
        entry["efficiency"] = {estimator: efficiency(run, its_control, reference, closest, estimator)
                               for estimator in (RAW, ADJUSTED)} if run.pairs else {}
        entry.update(run.cross_table())
        trace = (traces or {}).get(name)
        entry["coupling"] = (None if trace is None or name in controls.values() else coupling_from_trace(
            **trace, champion_tier=config.champion_tier, n_tiers=len(config.tier_cost)))
        frequency, se = run.offer_frequency()
        entry["offer_frequency"], entry["offer_frequency_se"] = frequency, se
        dealers[name] = entry
    closest = closest_pair(reference)
    identity = folders[control].identity
    return {"format": QUALITY_FORMAT, "config": config.name, "bots": list(reference.bots),
            "boards": reference.boards, "tables": reference.tables, "seed": reference.seed, "control": control,
            "alpha": alpha, "replicates": replicates, "champions": list(reference.champions),
            "closest_pair": [reference.bots[i] for i in reference.pairs[closest]] if reference.pairs else None,
            "games_per_second": games_per_second, "config_sha256": identity["config_sha256"],
            "dealers": dealers, "ladder": ladder(dealers, controls)}


def efficiency(run: RunMeasures, its_control: RunMeasures, plain: RunMeasures, pair: int, estimator: str):
    """Games a plain tournament (``plain``: the control, Latin square, raw placements) needs to tell pair
    ``pair`` apart, over the games ``run`` needs with ``estimator``: ``{"factor", "ci"}``.

    Boards needed is ``(1.96 sd / |mean|)^2`` with the mean difference of the
    run's own design measured by its control (a design asks its own question:
    the Latin square's field is the other bots, the paired design's a fixed
    field); both designs play as many tables per board.
    """
    target, reference = its_control.pair_statistics(RAW)["mean"][pair], plain.pair_statistics(RAW)["mean"][pair]
    factor, interval = variance_reduction(run, plain, pair, estimator)
    if not (np.isfinite(target) and np.isfinite(reference)) or target == 0 or reference == 0 or factor is None:
        return {"factor": None, "ci": [None, None]}
    scale = (target / reference) ** 2  # positive: it scales the bootstrap's quantiles as it scales the factor
    return {"factor": scale * factor, "ci": [None if bound is None else scale * bound for bound in interval]}


LADDER = (("shared seeds", "latin", "position", RAW), ("+ events by who", "latin", "seat", RAW),
          ("+ paired seating", "paired", "seat", RAW), ("+ luck adjustment", "paired", "seat", ADJUSTED),
          ("shared seeds, events by who, luck adjustment (Latin square)", "latin", "seat", ADJUSTED))


def ladder(dealers: dict, controls: dict) -> dict:
    """Per dealer, the steps of :data:`LADDER` that its runs allow: variance reduction of the closest pair against
    the control of the same design (raw placements), and efficiency against the plain tournament."""
    result = {}
    for name, entry in dealers.items():
        for label, design, events, estimator in LADDER:
            if entry["design"] != design or entry["events"] != events:
                continue
            key = "adjusted_variance_reduction" if estimator == ADJUSTED else "variance_reduction"
            control = name in controls.values()
            if control and estimator == RAW:
                continue
            result.setdefault(entry["dealer"], []).append({
                "step": "luck adjustment alone" if control else label, "run": name, "design": design,
                "events": events, "estimator": estimator, "variance_reduction": entry[key],
                "variance_reduction_ci": entry[f"{key}_ci"], "efficiency": entry["efficiency"][estimator]["factor"],
                "efficiency_ci": entry["efficiency"][estimator]["ci"]})
    order = {label: k for k, (label, *_rest) in enumerate(LADDER)}
    for steps in result.values():
        steps.sort(key=lambda step: order.get(step["step"], -1))
    return result
