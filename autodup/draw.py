"""Draw engines for one seat: a thin, validating Python API over :mod:`autodup.kernels`.

>>> from autodup import Haystack
>>> seat = Haystack(seed=7)
>>> seat.draw([1.0, 4.0])           # index 0 w.p. 1/5, index 1 w.p. 4/5
1

Every engine has the same methods: ``draw(weights)``, ``draw_many(weights, n,
replace=True)``, ``draw_hierarchical(tier_weights, outcome_weights,
tier_start)``, ``to_dict()`` and ``from_dict(d)``. Weights are non-negative
finite floats of any scale; an engine returns -1 when none is positive.
``ENGINES`` maps each name to its class.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from . import kernels
from .kernels import ENGINE_HAYSTACK, ENGINE_KEYED, ENGINE_PLAIN, ENGINE_STREAM
from .rng import check_seed

# Weights whose largest entry lies outside [2**-500, 2**500] are scaled by a
# power of two (exact) so that sums and e / w neither overflow nor underflow.
_SAFE_EXPONENT = 500
_MAX_COUNT = 2.0**53


def as_weights(weights, name: str = "weights") -> np.ndarray:
    """Validate weights and return them as a fresh float64 array (n,).

    Raises
    ------
    ValueError
        If the weights are not a 1-D sequence of finite, non-negative real numbers.
    """
    if isinstance(weights, np.ndarray) and weights.dtype.kind == "c":
        raise ValueError(f"{name} must be real numbers, got complex values")
    try:
        array = np.array(weights, dtype=np.float64)
    except (TypeError, ValueError) as error:
        kind = "real numbers" if "complex" in str(error) else "a 1-D sequence of non-negative finite numbers"
        raise ValueError(f"{name} must be {kind} ({error})") from None
    if array.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {array.shape}")
    problem, index, largest = kernels.scan_weights(array)
    if problem == kernels.WEIGHT_NOT_FINITE:
        raise ValueError(f"{name} must be finite: {name}[{index}] is {array[index]}")
    if problem == kernels.WEIGHT_NEGATIVE:
        raise ValueError(f"{name} must be non-negative: {name}[{index}] is {array[index]}")
    if largest > 0.0:
        exponent = math.frexp(largest)[1]
        if abs(exponent) > _SAFE_EXPONENT:
            array = np.ldexp(array, -exponent)
    return array


def _as_count(n, name: str = "n") -> int:
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {n!r}")
    return int(n)


def as_tier_start(tier_start, n_tiers: int, n_outcomes: int) -> np.ndarray:
    """Validate tier boundaries: int64 (T + 1,), from 0 to ``n_outcomes``, non-decreasing."""
    try:
        array = np.array(tier_start)
    except (TypeError, ValueError) as error:
        raise ValueError(f"tier_start must be a 1-D sequence of integers ({error})") from None
    if array.ndim != 1 or array.shape[0] != n_tiers + 1:
        raise ValueError(f"tier_start must have len(tier_weights) + 1 = {n_tiers + 1} entries, got shape {array.shape}")
    if array.dtype.kind not in "iu" and not (array.dtype.kind == "f" and np.all(array == np.round(array))):
        raise ValueError(f"tier_start must hold integers, got {array.dtype}")
    array = array.astype(np.int64)
    if array[0] != 0 or array[-1] != n_outcomes:
        raise ValueError(f"tier_start must start at 0 and end at len(outcome_weights) = {n_outcomes}, "
                         f"got {array[0]} .. {array[-1]}")
    if np.any(np.diff(array) < 0):
        raise ValueError("tier_start must be non-decreasing")
    return array


class Sampler:
    """Base class of the draw engines; use a subclass from ``ENGINES``.

    Parameters
    ----------
    seed : int
        The seat's parent seed, in ``[0, 2**64)``.
    """

    name = "sampler"
    engine = -1

    def __init__(self, seed: int):
        self.seed = check_seed(seed)
        self._seed64 = np.uint64(self.seed)
        self._counter, self._needles, self._needle_count, self._clocks = kernels.engine_state(0, 1)
        # None until the first draw; then ("flat",) or ("hierarchical", tier_start tuple).
        self._layout = None

    # -- state layout -----------------------------------------------------

    def _grow(self, n_needles: int) -> None:
        extra = n_needles - self._needle_count.shape[0]
        if extra > 0:
            self._needles = np.ascontiguousarray(np.concatenate([self._needles, np.zeros((3, extra))], axis=1))
            self._needle_count = np.concatenate([self._needle_count, np.zeros(extra, dtype=np.int64)])

    def _use_flat(self, weights: np.ndarray) -> np.ndarray:
        """Claim the flat layout; return weights padded to the needle count."""
        if self._layout is not None and self._layout[0] != "flat":
            raise ValueError(f"this {type(self).__name__} already serves hierarchical draws; "
                             "use a separate one for flat draws")
        self._layout = ("flat",)
        self._grow(weights.shape[0])
        n_needles = self._needle_count.shape[0]
        if weights.shape[0] < n_needles:
            # Outcomes beyond the given weights have weight zero: their needles are parked.
            weights = np.concatenate([weights, np.zeros(n_needles - weights.shape[0])])
        return weights

    def _use_hierarchical(self, tier_start: np.ndarray) -> None:
        layout = ("hierarchical", tuple(int(x) for x in tier_start))
        if self._layout is not None and self._layout != layout:
            raise ValueError(f"this {type(self).__name__} already serves draws with another layout "
                             f"({self._layout[0]}); use a separate one")
        if self._layout is None:
            n_tiers = len(tier_start) - 1
            self._grow(int(tier_start[-1]) + n_tiers)
            self._clocks = np.zeros(n_tiers + 1)
        self._layout = layout

    def _kernel_state(self):
        return (self.engine, self._seed64, self._counter, self._needles, self._needle_count, self._clocks)

    # -- draws --------------------------------------------------------------

    def draw(self, weights) -> int:
        """Draw one index with probability ``weights / sum(weights)``.

        Parameters
        ----------
        weights : array-like of float, shape (n,)
            Non-negative and finite, any scale.

        Returns
        -------
        int
            The index drawn, or -1 when no weight is positive.
        """
        w = self._use_flat(as_weights(weights))
        return int(kernels.engine_draw(*self._kernel_state(), w))

    def draw_many(self, weights, n: int, replace: bool = True) -> np.ndarray:
        """``n`` draws, identical to ``n`` calls of :meth:`draw`.

        Parameters
        ----------
        weights : array-like of float, shape (k,)
            With ``replace=False``: counts (integers below 2**53) in a numpy
            array or list, which is decremented in place by one at each drawn
            index, as when drawing from a pool without replacement.
        n : int
            Number of draws.
        replace : bool
            Whether drawn items go back into the pool.

        Returns
        -------
        numpy.ndarray
            int64, shape (m,), ``m <= n``; ``m < n`` only when the pool ran out.
        """
        n = _as_count(n)
        w = as_weights(weights)
        if not replace:
            if not isinstance(weights, (np.ndarray, list)):
                raise ValueError("draw_many(replace=False) decrements the caller's weights in place: "
                                 f"pass a numpy array or a list, not {type(weights).__name__}")
            if np.any(w != np.floor(w)) or np.any(np.asarray(weights, dtype=np.float64) >= _MAX_COUNT):
                raise ValueError("draw_many(replace=False) needs counts: integer weights below 2**53")
            w = np.array(weights, dtype=np.float64)
        k = w.shape[0]
        w = self._use_flat(w)
        out = np.empty(n, dtype=np.int64)
        made = kernels.engine_draw_many(*self._kernel_state(), w, n, bool(replace), out)
        if not replace:
            if isinstance(weights, np.ndarray):
                weights[...] = w[:k].astype(weights.dtype)
            else:
                for i in range(k):
                    weights[i] = type(weights[i])(w[i])
        return out[:made]

    def draw_hierarchical(self, tier_weights, outcome_weights, tier_start) -> int:
        """A tier race on ``tier_weights``, then an outcome race inside the tier.

        Parameters
        ----------
        tier_weights : array-like of float, shape (T,)
            Tier odds; a tier the caller wants skipped has weight 0.
        outcome_weights : array-like of float, shape (N,)
            Outcome weights (copies left), tier by tier.
        tier_start : array-like of int, shape (T + 1,)
            Tier ``t`` owns outcomes ``tier_start[t]:tier_start[t+1]``.

        Returns
        -------
        int
            The outcome index, or -1 when no tier has positive weight or the
            chosen tier has none left.
        """
        tiers = as_weights(tier_weights, "tier_weights")
        outcomes = as_weights(outcome_weights, "outcome_weights")
        bounds = as_tier_start(tier_start, tiers.shape[0], outcomes.shape[0])
        self._use_hierarchical(bounds)
        return int(kernels.engine_draw_hierarchical(*self._kernel_state(), tiers, outcomes, bounds))

    # -- state --------------------------------------------------------------

    def to_dict(self) -> dict:
        """JSON-serializable state; :meth:`from_dict` restores it exactly."""
        return {
            "engine": self.name,
            "seed": self.seed,
            "counter": int(self._counter[0]),
            "layout": None if self._layout is None else [self._layout[0], *([list(self._layout[1])]
                                                                          if len(self._layout) > 1 else [])],
            "needle_time": [float(x) for x in self._needles[kernels.TIME]],
            "needle_rate": [float(x) for x in self._needles[kernels.RATE]],
            "needle_count": [int(x) for x in self._needle_count],
            "clocks": [float(x) for x in self._clocks],
        }

    @classmethod
    def from_dict(cls, state: dict) -> "Sampler":
        """Rebuild an engine from :meth:`to_dict` output (of this class, or of ``Sampler`` for any)."""
        try:
            engine_class = ENGINES[state["engine"]]
            if cls is not Sampler and engine_class is not cls:
                raise ValueError(f"state is of engine {state['engine']!r}, not {cls.name!r}")
            sampler = engine_class(state["seed"])
            sampler._counter[0] = int(state["counter"])
            layout = state["layout"]
            sampler._layout = None if layout is None else (
                (layout[0],) if len(layout) == 1 else (layout[0], tuple(int(x) for x in layout[1])))
            times = np.array(state["needle_time"], dtype=np.float64).reshape(-1)
            rates = np.array(state["needle_rate"], dtype=np.float64).reshape(-1)
            sampler._needle_count = np.array(state["needle_count"], dtype=np.int64).reshape(-1)
            sampler._clocks = np.array(state["clocks"], dtype=np.float64).reshape(-1)
        except (KeyError, TypeError, IndexError, ValueError) as error:
            raise ValueError(f"not a draw-engine state: {error!r}") from None
        n = sampler._needle_count.shape[0]
        if times.shape[0] != n or rates.shape[0] != n or sampler._clocks.size == 0:
            raise ValueError("not a draw-engine state: needle arrays differ in length or clocks are missing")
        sampler._needles = np.zeros((3, n))
        sampler._needles[kernels.TIME] = times
        sampler._needles[kernels.RATE] = rates
        kernels.haystack_fill_next(sampler._seed64, sampler._needles, sampler._needle_count)
        return sampler

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed})"


class PlainSampler(Sampler):
    """Inverse CDF on one uniform per race: the non-duplicated reference.

    O(n) per draw over n outcomes; one random value per race (two for a
    hierarchical draw).
    """

    name = "plain"
    engine = ENGINE_PLAIN


class StreamSampler(Sampler):
    """One seeded stream consumed in order (inverse CDF), as "same seed at every table" naively gives.

    Mechanically the plain sampler on its own stream; tables sharing a seed
    stay in step only while they consume the same number of values.
    """

    name = "stream"
    engine = ENGINE_STREAM


class Haystack(Sampler):
    """The seed article's general system for one seat: an exponential race with memory.

    Each outcome ``i`` owns Exp(1) values at ``(seed, i, k)``, its k-th
    occurrence. A draw picks the smallest projected position ``e_i / w_i``;
    the winner consumes its value and the others keep their leftover, so a
    seat's outcomes arrive like a personal deck whose order survives changes
    of pace. Zero-weight outcomes are untouched, and never created until their
    weight is positive.

    Complexity: O(n) comparisons per draw over n outcomes (10,000 outcomes:
    a few microseconds), one fresh random value per draw, one division per
    weight that changed since the previous draw; memory 24 bytes per outcome
    ever seen.
    """

    name = "haystack"
    engine = ENGINE_HAYSTACK

    def created(self) -> np.ndarray:
        """Indices of the needles created so far (int64), for inspecting laziness."""
        return np.flatnonzero(self._needle_count > 0)


class KeyedSampler(Sampler):
    """Memoryless exponential race whose key is the draw index (see :func:`keyed_draw`).

    O(n) random values per draw.
    """

    name = "keyed"
    engine = ENGINE_KEYED


ENGINES: dict[str, type[Sampler]] = {
    cls.name: cls for cls in (PlainSampler, StreamSampler, Haystack, KeyedSampler)
}


def make_sampler(name: str, seed: int) -> Sampler:
    """The engine called ``name`` (one of ``ENGINES``) for seed ``seed``."""
    if name not in ENGINES:
        raise ValueError(f"unknown engine {name!r} (allowed: {', '.join(ENGINES)})")
    return ENGINES[name](seed)


def keyed_draw(seed: int, key: int, weights) -> int:
    """Exponential race on fresh values addressed by ``(seed, key, outcome)``; no memory.

    Two calls with the same seed and key but weights ``p`` and ``q`` agree with
    probability ``J_P(p, q) = sum_i 1 / sum_j max(p_j / p_i, q_j / q_i)``.

    Parameters
    ----------
    seed : int
        In ``[0, 2**64)``.
    key : int
        The draw's address (seat, round, roll, slot, ... hashed to an int), in ``[0, 2**64)``.
    weights : array-like of float, shape (n,)

    Returns
    -------
    int
        The index drawn, or -1 when no weight is positive.
    """
    seed = check_seed(seed)
    key = check_seed(key, "key")
    w = as_weights(weights)
    return int(kernels.keyed_race(np.uint64(seed), np.uint64(key), w, 0, w.shape[0], 0))


def race(haystacks: Sequence[Haystack], weights_list: Sequence, equal_totals: bool = True) -> tuple[int, int]:
    """One exponential race across several haystacks (simultaneous deals at a table).

    Every haystack brings its needles up to date with its weights; the
    earliest needle over all of them wins and is consumed; the clock of every
    other haystack advances by the winner's projected position, so each keeps
    its leftovers exactly as if it had been in one race.

    Parameters
    ----------
    haystacks : sequence of Haystack
        Distinct haystacks (seats), used for flat draws.
    weights_list : sequence of array-like of float
        One weight vector per haystack.
    equal_totals : bool
        If true (the default, DESIGN.md's simultaneous deal), each haystack's
        weights are scaled to total 1, so every haystack with a positive
        weight is equally likely to be served next and the needle it wins is
        drawn with its own weights. If false, ``(k, i)`` wins with probability
        ``weights_list[k][i]`` over the sum of all weights.

    Returns
    -------
    (int, int)
        The winning haystack ``k`` and the index it drew; ``(-1, -1)`` when no
        weight is positive.
    """
    if len(haystacks) != len(weights_list):
        raise ValueError(f"race needs one weight vector per haystack: {len(haystacks)} haystacks, "
                         f"{len(weights_list)} weight vectors")
    if len({id(h) for h in haystacks}) != len(haystacks):
        raise ValueError("race needs distinct haystacks: the same haystack appears twice")
    for k, haystack in enumerate(haystacks):
        if not isinstance(haystack, Haystack):
            raise ValueError(f"haystacks[{k}] is a {type(haystack).__name__}, not a Haystack")
    prepared = []
    for k, (haystack, weights) in enumerate(zip(haystacks, weights_list)):
        w = as_weights(weights, f"weights_list[{k}]")
        if equal_totals:
            total = w.sum()
            if total > 0.0:
                w = w / total
        prepared.append(haystack._use_flat(w))
    winner, winner_index, winner_gap = -1, -1, np.inf
    for k, (haystack, w) in enumerate(zip(haystacks, prepared)):
        best, best_time = kernels.haystack_update(
            haystack._seed64, haystack._needles, haystack._needle_count, haystack._clocks[0], w, 0, w.shape[0], 0)
        if best >= 0:
            gap = best_time - haystack._clocks[0]
            if gap < winner_gap:
                winner, winner_index, winner_gap = k, int(best), gap
    if winner < 0:
        return -1, -1
    for k, haystack in enumerate(haystacks):
        n = haystack._needle_count.shape[0]
        if k == winner:
            kernels.haystack_consume(haystack._seed64, haystack._needles, haystack._needle_count,
                                     haystack._clocks, 0, winner_index, 0, n)
        else:
            kernels.haystack_advance(haystack._needles, haystack._clocks, 0, winner_gap, 0, n)
    return winner, winner_index
