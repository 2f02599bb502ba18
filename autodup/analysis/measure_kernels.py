"""Jitted kernels of the cross-table measures: shop agreement, offer overlap, slot tiers, bootstrap weights."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..engine.rng import LABEL_BOARD, STREAM_BOOTSTRAP, derive_seed_kernel, random_uniform

__all__ = ["ALPHA", "BOOTSTRAP_REPLICATES", "SAME", "DIFFERENT", "PAIRS", "IDENTICAL", "SLOTS", "MULTISET",
           "COLUMNS", "RAW", "ADJUSTED", "CORRECTED", "same_seat_pairs", "shop_agreement_by_round", "offer_overlap",
           "slot_tiers_by_level", "round0_slot_counts", "poisson_weights", "board_seed_kernel"]

ALPHA = 0.001               # family-wise level of one dealer's verdict: a false alarm per 1,000 exact dealers
BOOTSTRAP_REPLICATES = 1000
SAME, DIFFERENT = 0, 1      # the two seats held the same bot, or different bots
PAIRS, IDENTICAL, SLOTS, MULTISET = range(4)  # cross-table sums by round
# Columns a measure reads from a chunk.
COLUMNS = ["board", "table", "seat", "bot", "placement", "hp", "rounds_alive", "gold_spent", "round_shops",
           "round_level", "offers", "luck"]
RAW, ADJUSTED = "raw", "adjusted"  # the score estimators: placements, and placements less cross-fitted luck
CORRECTED = "corrected"  # placements corrected by a value fitted on training boards (autodup.game.value)


# --------------------------------------------------------------------------
# kernels: cross-table comparisons of one chunk
# --------------------------------------------------------------------------


@njit(cache=True, no_cfunc_wrapper=True)
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


@njit(cache=True, no_cfunc_wrapper=True, nogil=True)
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


@njit(cache=True, no_cfunc_wrapper=True)
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
        # Two shops the pool left empty are not "the same champion in every slot": identical needs one.
        sums[r, kind, IDENTICAL] += 1.0 if equal_slots == shop_size and same_slots > 0 else 0.0
        sums[r, kind, SLOTS] += same_slots / shop_size
        sums[r, kind, MULTISET] += overlap / shop_size


@njit(cache=True, no_cfunc_wrapper=True, nogil=True)
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


@njit(cache=True, no_cfunc_wrapper=True, nogil=True)
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


@njit(cache=True, no_cfunc_wrapper=True, nogil=True)
def round0_slot_counts(shop_offsets, shop_values, seats, shop_size, counts):
    """Count round 0's champions by seat and slot: ``counts[seat, slot, champion]`` (rows ordered, seat last)."""
    for row in range(shop_offsets.shape[0] - 1):
        if shop_offsets[row + 1] - shop_offsets[row] < shop_size:
            continue
        for k in range(shop_size):
            champion = shop_values[shop_offsets[row] + k]
            if champion >= 0:
                counts[row % seats, k, champion] += 1


@njit(cache=True, no_cfunc_wrapper=True, nogil=True)
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


@njit(cache=True, no_cfunc_wrapper=True)
def board_seed_kernel(tournament_seed, board):
    """The grandparent seed of ``board`` (:func:`autodup.engine.rng.board_seed`), inside jitted code."""
    return derive_seed_kernel(np.uint64(tournament_seed), np.uint64(LABEL_BOARD), np.uint64(board))
