"""Haystack needles in batches: created at once, their next values computed ahead, many states' races in lanes.

A haystack race computes a Philox block for each needle it creates and for
its winner's next value, and its comparisons wait for each. A caller that
knows which needles its races will reach, or that runs many races on a few
needles, can compute those blocks beforehand in loops over independent
addresses, which the compiler vectorizes (1.7 ns a block in a loop of 58,
against about 12 ns a block computed by call). Both kernels leave the
engine's state exactly as :func:`autodup.engine.kernels.haystack_race` would:
a value is a function of its address alone, so when it is computed changes
nothing. A third runs the races of many haystack states side by side, in
lanes that the compiler vectorizes (:func:`haystack_races_in_lanes`). The
roll odds' simulation (:mod:`autodup.labs.odds_simulation`) uses all three.
The game does not: it creates each needle once (about 500 of some
4,000 values a game), and between two tier races of a seat its champion race
and the rest of its shop run, so a block's wait has other work beside it.
"""

from __future__ import annotations

import numpy as np

from .kernels import haystack_advance, haystack_update, inline_kernel, kernel
from .rng import inline_random_bits
from .ziggurat import exponential_from_low_bits, random_exponential

__all__ = ["haystack_create", "haystack_race_ahead", "haystack_races_in_lanes"]


# Called once for a batch of states, so compiled on its own rather than inlined: inlined, every caller's compile
# takes longer (autodup.labs.odds_simulation._deal_other_shop), and the call costs nothing beside the batch.
@kernel
def haystack_create(seeds, needles, needle_count, seats, lo, hi, low_bits):
    """Create, for each of seats ``0..seats-1``, every needle of ``lo..hi-1`` it has not created yet, at once.

    The state is the one lazy creation leaves: a needle's first value is a
    function of its address alone, and a needle of weight zero keeps its
    residual untouched by races, so creating it early changes no draw. A
    caller that knows which needles its races will reach (the roll odds'
    simulation) creates them in one pass instead of one by one inside the
    races' scans: the blocks have no dependence on each other, so the
    compiler computes several at once (vectorized), where a scan computes
    each before its comparison can go on.

    Parameters
    ----------
    seeds : uint64 (>= seats,)
        Each seat's seed.
    needles : float64 (>= seats, n)
    needle_count : int64 (>= seats, n)
    seats : int
    lo, hi : int
        Needle ids.
    low_bits : uint64 (>= seats * (hi - lo),)
        Working space, overwritten.
    """
    # The innermost loop runs over consecutive bits, which is what the vectorizer needs: the seats when there are
    # several, the needles for one.
    if seats == 1:
        for s in range(lo, hi):
            low_bits[s - lo] = inline_random_bits(seeds[0], np.uint64(s), np.uint64(0))
    else:
        for s in range(lo, hi):
            row = (s - lo) * seats
            for seat in range(seats):
                low_bits[row + seat] = inline_random_bits(seeds[seat], np.uint64(s), np.uint64(0))
    for s in range(lo, hi):
        row = (s - lo) * seats
        for seat in range(seats):
            if needle_count[seat, s] == 0:
                needles[seat, s] = exponential_from_low_bits(seeds[seat], np.uint64(s), np.uint64(0),
                                                             low_bits[row + seat])
                needle_count[seat, s] = 1


@inline_kernel
def haystack_race_ahead(seed, needles, needle_count, weights, lo, hi, id_offset, ahead_bits, ahead_from):
    """:func:`autodup.engine.kernels.haystack_race`, with its needles' next values computed ahead, several at a time.

    The same draws and the same state, bit for bit: only where the winner's
    next value comes from differs. Each needle of the race keeps the low
    halves of the blocks of its next ``A`` values, computed in one loop over
    independent addresses (which the compiler vectorizes) when its count
    leaves them; a race then reads its winner's value instead of waiting for
    a block. Worth it for a race run many times on few needles (the roll
    odds' tier race); the needles must have been created
    (:func:`haystack_create`).

    Parameters
    ----------
    ahead_bits : uint64 (hi - lo, A)
        Row ``i``: the low halves of the blocks of values ``ahead_from[i] ..
        ahead_from[i] + A - 1`` of needle ``lo + i + id_offset``.
    ahead_from : int64 (hi - lo,)
        -1 where nothing is computed yet; the caller sets every entry to -1
        when the seed or the needles start afresh.

    Returns the winning index into ``weights`` or -1.
    """
    best, gap = haystack_update(seed, needles, needle_count, weights, lo, hi, id_offset)
    if best >= 0:
        haystack_advance(needles, weights, lo, hi, id_offset, gap)
        s = best + id_offset
        k = needle_count[s]
        row = best - lo
        ahead = ahead_bits.shape[1]
        first = ahead_from[row]
        if first < 0 or k < first or k >= first + ahead:
            for j in range(ahead):
                ahead_bits[row, j] = inline_random_bits(seed, np.uint64(s), np.uint64(k + j))
            ahead_from[row] = k
            first = k
        needles[s] = exponential_from_low_bits(seed, np.uint64(s), np.uint64(k), ahead_bits[row, k - first])
        needle_count[s] = k + 1
    return best


@kernel  # once for a batch of states, as haystack_create
def haystack_races_in_lanes(seeds, needles, needle_count, first, end, weights, id_offset, winners, residuals, counts,
                            lanes, bits):
    """The next ``R`` races over the same fixed ``weights`` of each haystack state ``first .. end - 1`` (a lane
    each), the lanes in step: the same winners and the same state, bit for bit, as ``R`` calls of
    :func:`autodup.engine.kernels.haystack_race` on each state in turn.

    One state's races wait for each other: each compares the residuals the
    last one left, and its winner's next value. Different states' races do
    not, so their steps run in loops over the lanes, which the compiler
    vectorizes: the comparisons become masks and the choices of the earliest
    needle selections of bits (branches there are mispredicted about every
    other race), and the winners' blocks are computed side by side. Each
    lane's residuals go through exactly the operations of its own races:
    needles created where a weight is positive, compared as ``r_i * w_best <
    r_best * w_i``, moved by ``max(r_i - gap * w_i, 0)``, the winner's next
    value at its count. Worth it from a few dozen lanes (about three times
    faster than one race after another with 32 or more); for races whose
    weights stay the same (the roll odds' tier races, many trials at once).

    Parameters
    ----------
    seeds : uint64 (>= end,)
        Each state's seed.
    needles : float64 (>= end, n)
    needle_count : int64 (>= end, n)
        The states, one a row; needle ``t + id_offset`` follows ``weights[t]``.
    first, end : int
        The rows raced, lane ``j`` being row ``first + j``.
    weights : float64 (T,), C-contiguous
    id_offset : int
    winners : int64 (R, >= end - first)
        Out: ``winners[i, j]`` is lane ``j``'s ``i``-th winner (an index into ``weights``), -1 when no weight is
        positive.
    residuals : float64 (T, L), counts : int64 (T, L), lanes : float64 (3, L), bits : uint64 (2, L)
        Working space (L >= end - first), overwritten.
    """
    n_races = winners.shape[0]
    n_lanes = end - first
    n_tiers = weights.shape[0]
    for t in range(n_tiers):
        s = t + id_offset
        for lane in range(n_lanes):
            row = first + lane
            if weights[t] > 0.0 and needle_count[row, s] == 0:
                needles[row, s] = random_exponential(seeds[row], np.uint64(s), np.uint64(0))
                needle_count[row, s] = 1
            residuals[t, lane] = needles[row, s]
            counts[t, lane] = needle_count[row, s]
    # Choices made on the bits (a mask of all ones where a needle is earlier): exact, and free of branches.
    residual_bits = residuals.view(np.uint64)
    weight_bits = weights.view(np.uint64)
    lane_bits = lanes.view(np.uint64)
    best_residual, best_weight, gap = lanes[0], lanes[1], lanes[2]
    best_residual_bits, best_weight_bits = lane_bits[0], lane_bits[1]
    positive = False
    for t in range(n_tiers):
        positive = positive or weights[t] > 0.0
    if not positive:
        for race in range(n_races):
            for lane in range(n_lanes):
                winners[race, lane] = -1
        return
    for race in range(n_races):
        best = winners[race]
        for lane in range(n_lanes):
            best[lane] = -1
            best_residual[lane] = np.inf
            best_weight[lane] = 1.0
        for t in range(n_tiers):
            w = weights[t]
            if w > 0.0:
                for lane in range(n_lanes):
                    earlier = residuals[t, lane] * best_weight[lane] < best_residual[lane] * w
                    chosen = -np.int64(earlier)
                    mask = np.uint64(chosen)
                    best[lane] = (t & chosen) | (best[lane] & ~chosen)
                    best_residual_bits[lane] = (residual_bits[t, lane] & mask) | (best_residual_bits[lane] & ~mask)
                    best_weight_bits[lane] = (weight_bits[t] & mask) | (best_weight_bits[lane] & ~mask)
        for lane in range(n_lanes):
            gap[lane] = best_residual[lane] / best_weight[lane]
        for t in range(n_tiers):
            w = weights[t]
            for lane in range(n_lanes):
                residuals[t, lane] = max(residuals[t, lane] - gap[lane] * w, 0.0)
        for lane in range(n_lanes):
            bits[1, lane] = np.uint64(counts[best[lane], lane])
        for lane in range(n_lanes):
            bits[0, lane] = inline_random_bits(seeds[first + lane], np.uint64(best[lane] + id_offset), bits[1, lane])
        for lane in range(n_lanes):
            t = best[lane]
            k = counts[t, lane]
            residuals[t, lane] = exponential_from_low_bits(seeds[first + lane], np.uint64(t + id_offset), np.uint64(k),
                                                           bits[0, lane])
            counts[t, lane] = k + 1
    for t in range(n_tiers):
        for lane in range(n_lanes):
            needles[first + lane, t + id_offset] = residuals[t, lane]
            needle_count[first + lane, t + id_offset] = counts[t, lane]
