"""Draw engines for one seat: a thin, validating Python API over :mod:`autodup.engine.kernels`.

>>> from autodup import Haystack
>>> seat = Haystack(seed=7)
>>> seat.draw([1.0, 4.0])           # index 0 w.p. 1/5, index 1 w.p. 4/5
1

Every engine has the same methods: ``draw(weights)``, ``draw_many(weights, n,
replace=True)``, ``draw_hierarchical(tier_weights, outcome_weights,
tier_start)``, ``to_dict()`` and ``from_dict(d)``. Weights are non-negative
finite floats of any scale; an engine returns -1 when none is positive. (A
weight below 2**-1000 times the largest of its vector, a probability under
1e-301, counts as zero.) ``ENGINES`` maps each name to its class.

The jitted kernels behind these classes live in :mod:`autodup.engine.kernels` and
are re-exported here for callers that stay inside numba.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from . import kernels
from .kernels import ENGINE_HAYSTACK, ENGINE_KEYED, ENGINE_PLAIN, ENGINE_STREAM
from .rng import check_seed

__all__ = ["as_weights", "as_tier_start", "Sampler", "PlainSampler", "StreamSampler", "Haystack", "KeyedSampler",
           "ENGINES", "make_sampler", "keyed_draw", "race"]

# Every weight vector is scaled by a power of two (exact) so that its largest
# entry lies in [0.5, 1): sums, r / w and r * w can neither overflow nor
# underflow. Entries below 2**-1000 of the largest have a
# probability under 1e-301 and are treated as zero: a race could not
# represent them.
_NEGLIGIBLE = 2.0**-1000
_MAX_COUNT = 2.0**53
# A residual is at most one Exp(1) value, and those are below -log(2**-53) < 37.
_MAX_RESIDUAL = 40.0
# Counters and occurrence counts in a saved state stay far from int64 overflow.
_MAX_STATE_COUNT = 2**62


def _checked_weights(weights, name: str) -> tuple[np.ndarray, float]:
    """A validated float64 copy of ``weights`` and its largest entry."""
    if isinstance(weights, np.ndarray) and weights.dtype.kind == "c":
        raise ValueError(f"{name} must be real numbers, got complex values")
    try:
        array = np.array(weights, dtype=np.float64)
    except OverflowError:
        raise ValueError(f"{name} must be finite: an entry does not fit a float64") from None
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
    return array, largest


def _power_of_two_scale(largest: float) -> float:
    """The power of two that brings ``largest`` (>= 1) into [0.5, 1)."""
    return math.ldexp(1.0, -math.frexp(largest)[1])


def _safe_scale(array: np.ndarray, largest: float) -> np.ndarray:
    """Scale so the largest entry is in [0.5, 1); zero entries negligible next to it."""
    if largest > 0.0:
        array = np.ldexp(array, -math.frexp(largest)[1])
        array[array < _NEGLIGIBLE] = 0.0
    return array


def as_weights(weights, name: str = "weights") -> np.ndarray:
    """Validate weights and return them as a fresh float64 array (n,), on a safe scale.

    Raises
    ------
    ValueError
        If the weights are not a 1-D sequence of finite, non-negative real numbers.
    """
    return _safe_scale(*_checked_weights(weights, name))


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
    """Base class of the draw engines; instantiate a subclass from ``ENGINES``.

    Parameters
    ----------
    seed : int
        The seat's parent seed, in ``[0, 2**64)``.
    """

    name = "sampler"
    engine = -1
    # Whether the engine keeps per-outcome state (needles), tied to one layout.
    uses_needles = False

    def __init__(self, seed: int):
        if type(self).engine < 0:
            raise TypeError(f"{type(self).__name__} is abstract: use one of {', '.join(ENGINES)}")
        self.seed = check_seed(seed)
        self._seed64 = np.uint64(self.seed)
        self._counter, self._needles, self._needle_count = kernels.engine_state(0)
        # None until the first draw; then ("flat",) or ("hierarchical", tier_start tuple).
        self._layout = None

    # -- state layout (needles only) ------------------------------------------

    def _grow(self, n_needles: int) -> None:
        extra = n_needles - self._needle_count.shape[0]
        if extra > 0:
            self._needles = np.concatenate([self._needles, np.zeros(extra)])
            self._needle_count = np.concatenate([self._needle_count, np.zeros(extra, dtype=np.int64)])

    def _check_flat(self) -> None:
        if self.uses_needles and self._layout is not None and self._layout[0] != "flat":
            raise ValueError(f"this {type(self).__name__} already serves hierarchical draws; "
                             "use a separate one for flat draws")

    def _use_flat(self, weights: np.ndarray) -> np.ndarray:
        """Claim the flat layout; return weights padded to the needle count."""
        if not self.uses_needles:
            return weights
        self._check_flat()
        self._layout = ("flat",)
        self._grow(weights.shape[0])
        n_needles = self._needle_count.shape[0]
        if weights.shape[0] < n_needles:
            # Outcomes beyond the given weights have weight zero: their needles are parked.
            weights = np.concatenate([weights, np.zeros(n_needles - weights.shape[0])])
        return weights

    def _use_hierarchical(self, tier_start: np.ndarray) -> None:
        if not self.uses_needles:
            return
        layout = ("hierarchical", tuple(int(x) for x in tier_start))
        if self._layout is not None and self._layout != layout:
            raise ValueError(f"this {type(self).__name__} already serves draws with another layout "
                             f"({self._layout[0]}); use a separate one")
        if self._layout is None:
            n_tiers = len(tier_start) - 1
            self._grow(int(tier_start[-1]) + n_tiers)
        self._layout = layout

    def _kernel_state(self):
        return self.engine, self._seed64, self._counter, self._needles, self._needle_count

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
        if not isinstance(replace, (bool, np.bool_)):
            raise ValueError(f"replace must be True or False, got {replace!r}")
        if replace:
            w = as_weights(weights)
        else:
            if not isinstance(weights, (np.ndarray, list)):
                raise ValueError("draw_many(replace=False) decrements the caller's weights in place: "
                                 f"pass a numpy array or a list, not {type(weights).__name__}")
            if isinstance(weights, np.ndarray) and not weights.flags.writeable:
                raise ValueError("draw_many(replace=False) decrements the caller's weights in place, "
                                 "but the array is read-only")
            w, largest = _checked_weights(weights, "weights")
            if np.any(w != np.floor(w)) or largest >= _MAX_COUNT:
                raise ValueError("draw_many(replace=False) needs counts: integer weights below 2**53")
            # Counts below 2**53 scale exactly by a power of two, and so does each decrement.
            unit = _power_of_two_scale(largest) if largest > 0.0 else 1.0
            w *= unit
        k = w.shape[0]
        w = self._use_flat(w)
        out = np.empty(n, dtype=np.int64)
        made = kernels.engine_draw_many(*self._kernel_state(), w, n, bool(replace),
                                        1.0 if replace else unit, out)
        if not replace:
            counts = w[:k] / unit
            if isinstance(weights, np.ndarray):
                weights[...] = counts.astype(weights.dtype)
            else:
                for i in range(k):
                    weights[i] = type(weights[i])(counts[i])
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
            "needle_residual": [float(x) for x in self._needles],
            "needle_count": [int(x) for x in self._needle_count],
        }

    @classmethod
    def from_dict(cls, state: dict) -> "Sampler":
        """Rebuild an engine from :meth:`to_dict` output (of this class, or of ``Sampler`` for any).

        Raises
        ------
        ValueError
            If ``state`` is not a consistent state of this engine.
        """
        try:
            engine_class = ENGINES[state["engine"]]
            if cls is not Sampler and engine_class is not cls:
                raise ValueError(f"state is of engine {state['engine']!r}, not {cls.name!r}")
            sampler = engine_class(state["seed"])
            counter = state["counter"]
            layout = state["layout"]
            raw_counts = list(state["needle_count"])
            residuals = np.array(state["needle_residual"], dtype=np.float64)
        except ValueError as error:
            raise ValueError(f"not a draw-engine state: {error}") from None
        except (KeyError, TypeError, IndexError, OverflowError) as error:
            raise ValueError(f"not a draw-engine state: {error!r}") from None

        def integers(values) -> bool:
            return all(isinstance(v, int) and not isinstance(v, bool) for v in values)

        if not integers([counter]) or not 0 <= counter < _MAX_STATE_COUNT:
            raise ValueError(f"not a draw-engine state: counter must be an integer in [0, 2**62), got {counter!r}")
        if not integers(raw_counts) or any(not 0 <= c < _MAX_STATE_COUNT for c in raw_counts):
            raise ValueError("not a draw-engine state: needle counts must be integers in [0, 2**62)")
        counts = np.array(raw_counts, dtype=np.int64).reshape(-1)
        if residuals.ndim != 1:
            raise ValueError("not a draw-engine state: needle residuals must be a 1-D list")
        n = counts.shape[0]
        if residuals.shape[0] != n:
            raise ValueError("not a draw-engine state: needle arrays differ in length")
        if layout is None:
            expected_needles, parsed = 0, None
        elif isinstance(layout, list) and layout == ["flat"]:
            expected_needles, parsed = n, ("flat",)
        elif isinstance(layout, list) and len(layout) == 2 and layout[0] == "hierarchical":
            if not isinstance(layout[1], list) or len(layout[1]) < 1 or not integers(layout[1]):
                raise ValueError("not a draw-engine state: tier layout must be a list of integers")
            try:
                bounds = as_tier_start(layout[1], len(layout[1]) - 1, layout[1][-1])
            except ValueError as error:
                raise ValueError(f"not a draw-engine state: bad tier layout ({error})") from None
            expected_needles = int(bounds[-1]) + bounds.shape[0] - 1
            parsed = ("hierarchical", tuple(int(x) for x in bounds))
        else:
            raise ValueError(f"not a draw-engine state: unknown layout {layout!r}")
        if not sampler.uses_needles and (parsed is not None or n):
            raise ValueError(f"not a draw-engine state: a {engine_class.__name__} has no needles or layout")
        if n != expected_needles:
            raise ValueError(f"not a draw-engine state: layout {layout!r} needs {expected_needles} needles, got {n}")
        if not np.all(np.isfinite(residuals)) or np.any(residuals < 0) or np.any(residuals > _MAX_RESIDUAL):
            raise ValueError(f"not a draw-engine state: residuals must lie in [0, {_MAX_RESIDUAL:g}]")
        if np.any(residuals[counts == 0] != 0):
            raise ValueError("not a draw-engine state: a needle never created has a residual")
        sampler._counter[0] = counter
        sampler._layout = parsed
        sampler._needle_count = counts
        sampler._needles = np.ascontiguousarray(residuals, dtype=np.float64)
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

    Complexity: O(n) multiplications per draw over n outcomes, one fresh
    random value per draw, and nothing per weight change; memory 24 bytes per
    outcome.

    A haystack serves either flat draws or hierarchical draws of one tier
    layout, since its needles are laid out for that.
    """

    name = "haystack"
    engine = ENGINE_HAYSTACK
    uses_needles = True

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

    Every haystack creates the needles its weights need; the earliest needle
    over all of them (smallest ``residual / weight``) wins and is consumed;
    every haystack lets the winner's gap pass (``r -= gap * w``), so each
    keeps its leftovers exactly as if it had been in one race.

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
    checked = [_checked_weights(weights, f"weights_list[{k}]") for k, weights in enumerate(weights_list)]
    for haystack in haystacks:
        haystack._check_flat()
    if equal_totals:
        scaled = []
        for w, largest in checked:
            w = _safe_scale(w, largest)
            total = w.sum()
            if total > 0.0:
                w = w / total
                w[w < _NEGLIGIBLE] = 0.0
            scaled.append(w)
    else:
        # One shared scale, so that weights stay comparable across haystacks.
        largest = max((c[1] for c in checked), default=0.0)
        joined = _safe_scale(np.concatenate([c[0] for c in checked]) if checked else np.zeros(0), largest)
        scaled = np.split(joined, np.cumsum([c[0].shape[0] for c in checked])[:-1])
    prepared = [haystack._use_flat(np.ascontiguousarray(w)) for haystack, w in zip(haystacks, scaled)]
    winner, winner_index, winner_gap = -1, -1, np.inf
    for k, (haystack, w) in enumerate(zip(haystacks, prepared)):
        best, gap = kernels.haystack_update(haystack._seed64, haystack._needles, haystack._needle_count,
                                            w, 0, w.shape[0], 0)
        if best >= 0 and gap < winner_gap:
            winner, winner_index, winner_gap = k, int(best), gap
    if winner < 0:
        return -1, -1
    for haystack, w in zip(haystacks, prepared):
        kernels.haystack_advance(haystack._needles, w, 0, w.shape[0], 0, winner_gap)
    winning = haystacks[winner]
    kernels.haystack_consume(winning._seed64, winning._needles, winning._needle_count, winner_index)
    return winner, winner_index
