"""Haystack needles in batches: created at once, and their next values computed ahead.

A haystack race computes a Philox block for each needle it creates and for
its winner's next value, and its comparisons wait for each. A caller that
knows which needles its races will reach, or that runs many races on a few
needles, can compute those blocks beforehand in loops over independent
addresses, which the compiler vectorizes (1.7 ns a block in a loop of 58,
against about 12 ns a block computed by call). Both kernels leave the
engine's state exactly as :func:`autodup.engine.kernels.haystack_race` would:
a value is a function of its address alone, so when it is computed changes
nothing. The roll odds' simulation (:mod:`autodup.labs.odds_simulation`) uses
both. The game does not: it creates each needle once (about 500 of some
4,000 values a game), and between two tier races of a seat its champion race
and the rest of its shop run, so a block's wait has other work beside it.
"""

from __future__ import annotations

import numpy as np

from .kernels import haystack_advance, haystack_update, inline_kernel
from .rng import inline_random_bits
from .ziggurat import exponential_from_low_bits

__all__ = ["haystack_create", "haystack_race_ahead"]


@inline_kernel
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
