"""Jitted draw kernels: plain arrays and scalars in, an outcome index out.

Every kernel draws one outcome ``i`` with probability ``w_i / sum(w)`` and
returns -1 when no weight is positive. They are the building blocks of the
Python API in :mod:`autodup.engine.draw` and of the game kernel, which calls them
without returning to the interpreter. The dealer is chosen by an integer code
(``ENGINE_*``) so one compiled table kernel serves every dealer.

Engines
-------
plain, stream
    Inverse CDF on one uniform per race. ``plain`` reads its uniforms at
    ``(seed, PLAIN_STREAM, n)``, ``stream`` at ``(seed, SEQUENCE_STREAM, n)``;
    both consume them in order. Mechanically the same; at a table they differ
    by which seed is shared (``stream`` shares a seat's seed across tables and
    falls out of step as soon as tables consume different numbers of draws).
    O(n) per draw over n outcomes, one random value per race.
haystack
    The seed article's general system, kept as residuals: needle ``i`` holds
    ``r_i``, the Exp(1)-sized mass left before its next arrival (its
    normalized position, Exp(1) at ``(seed, i, k)`` for its k-th occurrence,
    minus what earlier races consumed). A race is won by ``argmin r_i / w_i``
    under the current weights; the winner's gap ``g = r_win / w_win`` is
    subtracted as ``r_i -= g * w_i`` from every needle of the race, and only
    the winner draws a fresh value. This is the article's re-normalization
    written literally. Storing residuals makes a weight change free: an
    earlier form kept absolute arrival times and paid a division per changed
    weight, which at a table (other seats change most weights between two of
    a seat's draws) made a haystack draw cost twice a plain one. A needle whose weight is zero
    keeps its residual untouched until its weight is positive again. Outcomes
    that never had a positive weight are never created (lazy); since a
    needle's first value is a function of its address, a caller that knows
    which needles its races will reach may create them early, in one batch
    (:func:`autodup.engine.batches.haystack_create`), and leaves the same
    state; one that runs many races on few needles may compute their next
    values ahead, several at a time
    (:func:`autodup.engine.batches.haystack_race_ahead`). O(n) per draw
    (a scan with multiplications and one division), O(1) random values per
    draw.
keyed
    A memoryless exponential race on fresh values addressed by a key:
    ``argmin_i Exp(seed, KEYED_DOMAIN + i, key) / w_i``. O(n) random values
    per draw.

Haystack state
--------------
``needles`` float64 (n,), each needle's residual (``r_i`` above);
``needle_count`` int64 (n,), the occurrences of needle ``s`` drawn so far (0:
never created). Invariant: needle ``s``'s residual started as
``Exp(seed, s, needle_count[s] - 1)``, the value its last win (or its
creation) read. Each value is computed when it is needed, at a needle's
creation or its win. The engine used to compute each needle's next occurrence
one ahead, so that a race would not wait for the generator; once the
exponential was inlined into the race, that no longer made games or draws
faster (interleaved measurements, equal within noise) and it cost a second
value for every needle created, which slowed the roll odds' simulation (see
the performance page's roll odds section).

Outcomes are split into race groups: a flat draw uses one group; a
hierarchical draw over ``T`` tiers races the tier needles (ids
``n_outcomes + t``), then the outcomes of the chosen tier. Only the needles
of a race have their residuals reduced, which keeps the needles of other
groups untouched, as the article requires of outcomes that are not in a race.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .rng import (
    KEYED_DOMAIN,
    PLAIN_STREAM,
    REPLAY_PLAN_STREAM,
    REPLAY_SUBSTITUTE_STREAM,
    SEQUENCE_STREAM,
    exponential_from_bits,
    random_bits_pair,
    random_uniform,
    uniform_from_bits,
)
from .ziggurat import random_exponential

__all__ = ["ENGINE_PLAIN", "ENGINE_STREAM", "ENGINE_HAYSTACK", "ENGINE_KEYED", "ENGINE_REPLAY", "ENGINE_COUNT",
           "kernel", "inline_kernel", "engine_state", "WEIGHTS_OK", "WEIGHT_NOT_FINITE",
           "WEIGHT_NEGATIVE", "scan_weights", "positive_total", "inverse_cdf_index", "sequence_draw",
           "haystack_update", "haystack_advance", "haystack_consume", "haystack_race",
           "keyed_race", "replay_draw", "engine_draw", "engine_draw_hierarchical", "tier_then_outcome",
           "engine_draw_watching_tier", "engine_draw_many"]

ENGINE_PLAIN = 0
ENGINE_STREAM = 1
ENGINE_HAYSTACK = 2
ENGINE_KEYED = 3
ENGINE_REPLAY = 4  # deliberately incorrect (hierarchical draws only): see replay_draw
ENGINE_COUNT = 5

# The draw kernels allocate nothing. Compiling them without the Numba runtime
# drops the atomic reference counting of array arguments at every call between
# kernels, which otherwise costs more than the draw itself (numba issue #2350).
kernel = njit(cache=True, no_cfunc_wrapper=True, _nrt=False)
# The pieces of a draw are inlined into their caller at compile time: passing
# array structs by value to an out-of-line call costs more than a small race.
inline_kernel = njit(cache=True, no_cfunc_wrapper=True, _nrt=False, inline="always")

_KEYED_DOMAIN = np.uint64(KEYED_DOMAIN)
# Computed exponentials are >= u * (1 - 2**-52); this margin keeps pruning exact.
_PRUNE_MARGIN = 1.0 - 2.0**-40
_STREAM_OF_ENGINE = (np.uint64(PLAIN_STREAM), np.uint64(SEQUENCE_STREAM))


@njit(cache=True, no_cfunc_wrapper=True)
def engine_state(n_needles):
    """Fresh state for any engine.

    Returns
    -------
    counter : int64 (2,)
        Plain/stream value counter, or the keyed draw key; the replay
        engine's planned draws and substitutions.
    needles : float64 (n_needles,)
        Haystack needles' residuals.
    needle_count : int64 (n_needles,)
    """
    return np.zeros(2, dtype=np.int64), np.zeros(n_needles), np.zeros(n_needles, dtype=np.int64)


# --------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------

WEIGHTS_OK = 0
WEIGHT_NOT_FINITE = 1
WEIGHT_NEGATIVE = 2


@kernel
def scan_weights(weights):
    """Check weights in one pass and turn ``-0.0`` into ``0.0`` in place.

    Returns
    -------
    (int, int, float)
        ``WEIGHTS_OK``, ``WEIGHT_NOT_FINITE`` or ``WEIGHT_NEGATIVE``; the index
        of the first bad entry (-1 if none); the largest weight.
    """
    largest = 0.0
    for i in range(weights.shape[0]):
        w = weights[i]
        if not np.isfinite(w):
            return WEIGHT_NOT_FINITE, i, largest
        if w < 0.0:
            return WEIGHT_NEGATIVE, i, largest
        if w == 0.0:
            weights[i] = 0.0
        elif w > largest:
            largest = w
    return WEIGHTS_OK, -1, largest


# --------------------------------------------------------------------------
# plain / stream: inverse CDF
# --------------------------------------------------------------------------


@inline_kernel
def positive_total(weights, lo, hi):
    """Sum of the positive entries of ``weights[lo:hi]`` (float64)."""
    total = 0.0
    for i in range(lo, hi):
        if weights[i] > 0.0:
            total += weights[i]
    return total


@inline_kernel
def inverse_cdf_index(weights, lo, hi, total, u):
    """Index in ``[lo, hi)`` where the cumulative weight first exceeds ``u * total``.

    Parameters
    ----------
    weights : float64 array (n,)
    lo, hi : int
        The slice to draw from.
    total : float
        ``positive_total(weights, lo, hi)``, > 0.
    u : float
        A uniform in [0, 1).

    Returns
    -------
    int
        An index with positive weight.
    """
    target = u * total
    cumulative = 0.0
    last = -1
    for i in range(lo, hi):
        w = weights[i]
        if w > 0.0:
            cumulative += w
            last = i
            if target < cumulative:
                return i
    # Only reachable when u * total rounds up to total.
    return last


@inline_kernel
def sequence_draw(seed, stream, counter, weights, lo, hi):
    """Inverse-CDF draw from ``weights[lo:hi]`` on the next uniform of a stream.

    ``counter`` is an int64 array (1,) holding the next counter; it advances
    only when a draw is made.
    """
    total = positive_total(weights, lo, hi)
    if not total > 0.0:
        return -1
    u = random_uniform(seed, stream, np.uint64(counter[0]))
    counter[0] += 1
    return inverse_cdf_index(weights, lo, hi, total, u)


# --------------------------------------------------------------------------
# haystack: the general system, kept as residuals
# --------------------------------------------------------------------------


@inline_kernel
def haystack_update(seed, needles, needle_count, weights, lo, hi, id_offset):
    """Create the needles of ``weights[lo:hi]`` seen positive for the first time; return the earliest.

    Needle ``i + id_offset`` follows ``weights[i]``. Residuals are compared
    as ``r_i * w_best < r_best * w_i``, so the scan needs no division.

    Returns
    -------
    (int, float)
        Index into ``weights`` of the earliest needle (-1 if none is positive)
        and its gap ``r / w`` (inf if none).
    """
    best = -1
    best_residual = np.inf
    best_weight = 1.0
    for i in range(lo, hi):
        w = weights[i]
        if w > 0.0:
            s = i + id_offset
            if needle_count[s] == 0:
                needles[s] = random_exponential(seed, np.uint64(s), np.uint64(0))
                needle_count[s] = 1
            residual = needles[s]
            if residual * best_weight < best_residual * w:
                best = i
                best_residual = residual
                best_weight = w
    return best, best_residual / best_weight


@inline_kernel
def haystack_advance(needles, weights, lo, hi, id_offset, gap):
    """Let time ``gap`` pass for the needles of ``weights[lo:hi]``: ``r_i -= gap * w_i``.

    Needles of weight zero keep their residual. Rounding can leave the
    winner (or a needle tied with it) a hair below zero; it is clamped to 0.
    """
    residuals = needles[lo + id_offset:hi + id_offset]
    race_weights = weights[lo:hi]
    for i in range(hi - lo):
        residuals[i] = max(residuals[i] - gap * race_weights[i], 0.0)


@inline_kernel
def haystack_consume(seed, needles, needle_count, winner):
    """Give needle ``winner`` its next occurrence (after :func:`haystack_advance`)."""
    k = needle_count[winner]
    needles[winner] = random_exponential(seed, np.uint64(winner), np.uint64(k))
    needle_count[winner] = k + 1


@inline_kernel
def haystack_race(seed, needles, needle_count, weights, lo, hi, id_offset):
    """One race over ``weights[lo:hi]`` (needle ids offset by ``id_offset``).

    Returns the winning index into ``weights`` or -1.
    """
    best, gap = haystack_update(seed, needles, needle_count, weights, lo, hi, id_offset)
    if best >= 0:
        haystack_advance(needles, weights, lo, hi, id_offset, gap)
        haystack_consume(seed, needles, needle_count, best + id_offset)
    return best


# --------------------------------------------------------------------------
# keyed: memoryless exponential race on addressed values
# --------------------------------------------------------------------------


@inline_kernel
def keyed_race(seed, key, weights, lo, hi, id_offset):
    """``argmin_i Exp(seed, key, i + id_offset) / weights[i]`` over ``[lo, hi)``.

    Outcome id ``j`` takes its Exp(1) value from half ``j & 1`` of the Philox
    block at ``(seed, KEYED_DOMAIN + (j >> 1), key)``: one block serves two
    outcomes. Since ``-log1p(-u) >= u``, an outcome whose ``u / w`` already
    loses is skipped without its logarithm (with a margin far above rounding,
    so the winner is exactly the full race's). O(n) generator calls, n / 2 blocks.
    """
    best = -1
    best_value = np.inf
    k = np.uint64(key)
    cached_block = np.uint64(0)
    have_block = False
    low_half = np.uint64(0)
    high_half = np.uint64(0)
    for i in range(lo, hi):
        w = weights[i]
        if w > 0.0:
            ident = np.uint64(i + id_offset)
            block = ident >> np.uint64(1)
            if not have_block or block != cached_block:
                low_half, high_half = random_bits_pair(seed, _KEYED_DOMAIN + block, k)
                cached_block = block
                have_block = True
            bits = high_half if ident & np.uint64(1) else low_half
            if uniform_from_bits(bits) / w * _PRUNE_MARGIN < best_value:
                value = exponential_from_bits(bits) / w
                if value < best_value:
                    best_value = value
                    best = i
    return best


# --------------------------------------------------------------------------
# replay: the seed article's deliberately incorrect system (its Fig. 2)
# --------------------------------------------------------------------------

_REPLAY_PLAN = np.uint64(REPLAY_PLAN_STREAM)
_REPLAY_SUBSTITUTE = np.uint64(REPLAY_SUBSTITUTE_STREAM)


@inline_kernel
def replay_draw(seed, counter, tier_weights, outcome_weights, tier_start):
    """A planned (tier, outcome) that ignores what is left, substituted when the plan is gone.

    Draw ``k`` plans a tier by ``tier_weights`` and an outcome uniform among
    the tier's outcomes, from uniforms ``2k`` and ``2k + 1`` of the plan
    stream, the same at every table whatever was drawn before. A planned
    outcome of weight zero is replaced by a fresh draw by weight inside the
    tier (the substitute stream). So the planned outcomes keep their odds
    while the pool empties: exactly the article's flaw, caught by the tests.
    ``counter`` (int64 (2,)) counts plans and substitutions.
    """
    n_tiers = tier_weights.shape[0]
    k = counter[0]
    counter[0] += 1
    u = random_uniform(seed, _REPLAY_PLAN, np.uint64(2 * k))
    v = random_uniform(seed, _REPLAY_PLAN, np.uint64(2 * k + 1))
    total = positive_total(tier_weights, 0, n_tiers)
    if total <= 0.0:
        return -1
    tier = inverse_cdf_index(tier_weights, 0, n_tiers, total, u)
    lo, hi = tier_start[tier], tier_start[tier + 1]
    if hi == lo:
        return -1
    planned = lo + min(int(v * (hi - lo)), hi - lo - 1)
    if outcome_weights[planned] > 0.0:
        return planned
    left = positive_total(outcome_weights, lo, hi)
    if left <= 0.0:
        return -1
    w = random_uniform(seed, _REPLAY_SUBSTITUTE, np.uint64(counter[1]))
    counter[1] += 1
    return inverse_cdf_index(outcome_weights, lo, hi, left, w)


# --------------------------------------------------------------------------
# dispatch by engine code
# --------------------------------------------------------------------------


@kernel
def engine_draw(engine, seed, counter, needles, needle_count, weights):
    """One flat draw from ``weights`` (float64 (n,)) with the engine ``engine``.

    ``counter`` (int64 (2,)) is the plain/stream value counter or the keyed
    draw key; ``needles`` (float64 (n,)) and ``needle_count`` (int64 (n,))
    hold a haystack and are ignored by the other engines. Returns an index or
    -1. (The replay engine draws hierarchically only.)
    """
    n = weights.shape[0]
    if engine == ENGINE_HAYSTACK:
        return haystack_race(seed, needles, needle_count, weights, 0, n, 0)
    if engine == ENGINE_KEYED:
        result = keyed_race(seed, counter[0], weights, 0, n, 0)
        counter[0] += 1
        return result
    return sequence_draw(seed, _STREAM_OF_ENGINE[engine], counter, weights, 0, n)


@kernel
def engine_draw_hierarchical(engine, seed, counter, needles, needle_count,
                             tier_weights, outcome_weights, tier_start):
    """Tier race on ``tier_weights``, then outcome race inside the chosen tier.

    Parameters
    ----------
    tier_weights : float64 (T,)
        Weight of each tier (shop odds; the caller zeroes tiers it skips).
    outcome_weights : float64 (N,)
        Weight of each outcome (copies left).
    tier_start : int64 (T + 1,)
        Outcomes of tier ``t`` are ``tier_start[t]:tier_start[t+1]``;
        ``tier_start[T] == N``.

    Returns
    -------
    int
        The outcome, or -1 if no tier has positive weight or the chosen tier
        has no outcome with positive weight.

    Notes
    -----
    Haystack state has N + T needles (tier ``t`` is needle ``N + t``). A
    keyed draw uses the same key for both races.
    """
    if engine == ENGINE_REPLAY:
        return replay_draw(seed, counter, tier_weights, outcome_weights, tier_start)
    # Every tier resolved: the totals are not read (the tier weights stand in for them).
    return tier_then_outcome(engine, seed, counter, needles, needle_count, tier_weights, outcome_weights, tier_start,
                             -1, tier_weights)


@inline_kernel
def tier_then_outcome(engine, seed, counter, needles, needle_count, tier_weights, outcome_weights, tier_start,
                      watched, tier_totals):
    """The tier race, then the outcome race in the chosen tier: every tier (``watched`` < 0) or one.

    The one hierarchical draw of the plain, stream, haystack and keyed
    engines, behind :func:`engine_draw_hierarchical` (every tier) and
    :func:`engine_draw_watching_tier` (``watched`` only; see there for what
    happens in the other tiers and ``tier_totals``). Returns the outcome, -1
    or, when another tier than ``watched`` is picked and has copies, -2.
    """
    n_tiers = tier_weights.shape[0]
    n_outcomes = tier_start[n_tiers]
    key = counter[0] if engine == ENGINE_KEYED else 0
    if engine == ENGINE_HAYSTACK:
        tier = haystack_race(seed, needles, needle_count, tier_weights, 0, n_tiers, n_outcomes)
    elif engine == ENGINE_KEYED:
        counter[0] += 1  # the same key serves both races
        tier = keyed_race(seed, key, tier_weights, 0, n_tiers, n_outcomes)
    else:
        tier = sequence_draw(seed, _STREAM_OF_ENGINE[engine], counter, tier_weights, 0, n_tiers)
    if tier < 0:
        return -1
    lo, hi = tier_start[tier], tier_start[tier + 1]
    if watched >= 0 and tier != watched:
        if not tier_totals[tier] > 0.0:
            return -1
        if engine != ENGINE_HAYSTACK and engine != ENGINE_KEYED:
            counter[0] += 1  # the uniform the outcome race would have read (it reads one: the tier has copies)
        return -2
    if engine == ENGINE_HAYSTACK:
        return haystack_race(seed, needles, needle_count, outcome_weights, lo, hi, 0)
    if engine == ENGINE_KEYED:
        return keyed_race(seed, key, outcome_weights, lo, hi, 0)
    return sequence_draw(seed, _STREAM_OF_ENGINE[engine], counter, outcome_weights, lo, hi)


@inline_kernel
def engine_draw_watching_tier(engine, seed, counter, needles, needle_count, tier_weights, tier_totals,
                              outcome_weights, tier_start, watched):
    """:func:`engine_draw_hierarchical` for a caller that only ever looks at one tier, ``watched``.

    The tier race is run in full. When it picks ``watched`` the outcome race
    is run too and its outcome returned, so a sequence of these draws gives the
    same outcomes in the watched tier as the full draws, bit for bit. When it
    picks another tier, the outcome is left undrawn and the engine's state is
    moved only as far as later tier races or races in ``watched`` can see:
    plain and stream consume the uniform the outcome race would have taken (if
    the tier has copies, as :func:`sequence_draw` does); the haystack leaves
    that tier's needles as they are, since no race outside the tier reads them;
    keyed keeps no state. So a caller must never draw in the other tiers with
    the same state afterwards. The replay engine is not served (its
    substitutions depend on every tier's outcomes): use the full draw.

    Parameters
    ----------
    tier_weights : float64 (T,)
        As for :func:`engine_draw_hierarchical`.
    tier_totals : float64 (T,)
        Whether each tier other than ``watched`` has copies (> 0): only its sign is read.
    outcome_weights : float64 (N,)
        Only the entries of ``watched`` are read.
    tier_start : int64 (T + 1,)
    watched : int
        The tier whose outcomes are drawn.

    Returns
    -------
    int
        An outcome of ``watched``; -2 when another tier was picked; -1 when no
        tier has weight, or the picked tier has no copies.
    """
    return tier_then_outcome(engine, seed, counter, needles, needle_count, tier_weights, outcome_weights, tier_start,
                             watched, tier_totals)


@kernel
def engine_draw_many(engine, seed, counter, needles, needle_count, weights, n, replace, unit, out):
    """``n`` successive :func:`engine_draw` calls into ``out`` (int64 (n,)).

    Without replacement, the drawn entry of ``weights`` is decremented by
    ``unit`` (one item, in the weights' scale) after each draw. Returns how
    many draws were made (fewer than ``n`` when no weight is positive any more).
    """
    for d in range(n):
        j = engine_draw(engine, seed, counter, needles, needle_count, weights)
        if j < 0:
            return d
        out[d] = j
        if not replace:
            weights[j] -= unit
    return n
