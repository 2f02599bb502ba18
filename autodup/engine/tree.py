"""The haystack for big pools: the same exponential race, kept in a tree so that a draw costs O(log n).

The residual haystack (:mod:`autodup.engine.kernels`) scans every outcome at
each draw: fine for a shop's 58 champions, linear in a deckbuilder's
thousands of cards. Here the race is kept on a clock instead: needle ``i``
(weight ``w_i``, residual ``r_i``, the Exp(1) value it still has to travel)
rings at the absolute time ``alarm_i = clock + r_i / w_i``. A draw is the
earliest alarm (the root of a tree of minima); the clock moves to it and the
winner gets its next occurrence ``clock + Exp(seed, i, k) / w_i``: the other
needles' residuals shrink by ``gap * w_i`` without being touched. A weight
change recomputes one alarm, ``r_i = (alarm_i - clock) * w_old``, then
``alarm_i = clock + r_i / w_new`` (a needle of weight zero is parked with its
residual). Each is one leaf-to-root update, O(log n).

It is the residual haystack's process exactly: the same needles on the same
addresses of the seed tree (``Exp(seed, i, k)``, created when first
positive), the same law of every draw whatever the weights do, and the same
coupling across tables (two tables with the same seed and the same weights
draw alike). Only the arithmetic differs (alarms in time, not residuals), so
its draws are not bit for bit those of :class:`~autodup.engine.draw.Haystack`.

The caller tells it which weights change (:meth:`TreeHaystack.set_weight`),
rather than handing a whole vector at every draw: reading one would cost O(n).

>>> from autodup.engine.tree import TreeHaystack
>>> deck = TreeHaystack(seed=7, weights=[3.0, 1.0, 0.0, 2.0])
>>> card = deck.draw()
>>> deck.set_weight(card, deck.weight(card) - 1.0)  # drawn without replacement
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .kernels import kernel
from .rng import check_seed
from .ziggurat import random_exponential

__all__ = ["TreeHaystack", "tree_state", "tree_set_weight", "tree_draw", "REBASE_DRAWS"]

# The clock is moved back to 0 (every alarm shifted with it, O(n)) after this many draws times n, so that
# alarms stay small numbers and (alarm - clock) keeps its precision: amortized O(1) a draw.
REBASE_DRAWS = 4
_CLOCK, _DRAWS = 0, 1


@njit(cache=True, no_cfunc_wrapper=True)
def tree_state(n):
    """Fresh state for ``n`` outcomes, every weight 0.

    Returns
    -------
    weights : float64 (n,)
    alarms : float64 (n,)
        When each needle rings (inf: weight 0 or never created).
    parked : float64 (n,)
        The residual of a created needle of weight 0.
    counts : int64 (n,)
        Occurrences each needle has taken (0: never created).
    minima : float64 (2 * size,)
        ``minima[size + i] = alarms[i]``, each inner node the smaller of its children; ``size`` is the
        smallest power of two >= n.
    clock : float64 (2,)
        The time now, and the draws since the clock was last moved back to 0.
    """
    size = 1
    while size < max(n, 1):
        size *= 2
    return (np.zeros(n), np.full(n, np.inf), np.zeros(n), np.zeros(n, dtype=np.int64), np.full(2 * size, np.inf),
            np.zeros(2))


@kernel
def _set_alarm(alarms, minima, i, alarm):
    """Needle ``i`` rings at ``alarm``: its leaf and the minima above it, O(log n)."""
    alarms[i] = alarm
    size = minima.shape[0] // 2
    minima[size + i] = alarm
    node = (size + i) // 2
    while node >= 1:
        left, right = minima[2 * node], minima[2 * node + 1]
        minima[node] = left if left <= right else right
        node //= 2


@kernel
def tree_set_weight(seed, weights, alarms, parked, counts, minima, clock, i, weight):
    """Set outcome ``i``'s weight (>= 0, finite) and its alarm; O(log n)."""
    old = weights[i]
    if old == weight:
        return
    weights[i] = weight
    now = clock[_CLOCK]
    if counts[i] == 0:
        if weight <= 0.0:
            return
        residual = random_exponential(seed, np.uint64(i), np.uint64(0))
        counts[i] = 1
    elif old > 0.0:
        residual = max(alarms[i] - now, 0.0) * old
    else:
        residual = parked[i]
    if weight > 0.0:
        _set_alarm(alarms, minima, i, now + residual / weight)
    else:
        parked[i] = residual
        _set_alarm(alarms, minima, i, np.inf)


@kernel
def _rebase(weights, alarms, minima, clock):
    """Move the clock back to 0, every alarm with it, and rebuild the minima: O(n), once in many draws."""
    now = clock[_CLOCK]
    size = minima.shape[0] // 2
    for i in range(alarms.shape[0]):
        if weights[i] > 0.0:
            alarms[i] = max(alarms[i] - now, 0.0)
        minima[size + i] = alarms[i]
    for node in range(size - 1, 0, -1):
        left, right = minima[2 * node], minima[2 * node + 1]
        minima[node] = left if left <= right else right
    clock[_CLOCK] = 0.0
    clock[_DRAWS] = 0.0


@kernel
def tree_draw(seed, weights, alarms, parked, counts, minima, clock):
    """The outcome whose needle rings first (-1 if no weight is positive); it takes its next occurrence."""
    if not minima[1] < np.inf:
        return -1
    size = minima.shape[0] // 2
    node = 1
    while node < size:
        node = 2 * node if minima[2 * node] <= minima[2 * node + 1] else 2 * node + 1
    winner = node - size
    now = alarms[winner]
    clock[_CLOCK] = now
    k = counts[winner]
    counts[winner] = k + 1
    _set_alarm(alarms, minima, winner, now + random_exponential(seed, np.uint64(winner), np.uint64(k)) / weights[winner])
    clock[_DRAWS] += 1.0
    if clock[_DRAWS] >= REBASE_DRAWS * alarms.shape[0]:
        _rebase(weights, alarms, minima, clock)
    return winner


class TreeHaystack:
    """One seat's haystack over ``n`` outcomes whose weights change one at a time; a draw costs O(log n).

    Parameters
    ----------
    seed : int
        The seat's seed (as for :class:`~autodup.engine.draw.Haystack`).
    weights : sequence of float, optional
        The starting weights (non-negative, finite); their count is ``n``.
    n : int, optional
        The number of outcomes when ``weights`` is not given (every weight 0).
    """

    def __init__(self, seed: int, weights=None, n: int | None = None):
        self.seed = np.uint64(check_seed(seed))
        if weights is None:
            if n is None or int(n) < 0:
                raise ValueError("TreeHaystack needs its weights, or their number n >= 0")
            weights = np.zeros(int(n))
        weights = np.asarray(weights, dtype=np.float64)
        if weights.ndim != 1:
            raise ValueError(f"weights must be 1-D, got shape {weights.shape}")
        self._state = tree_state(weights.shape[0])
        for i, weight in enumerate(weights):
            self.set_weight(i, weight)

    def __len__(self) -> int:
        return self._state[0].shape[0]

    def weight(self, i: int) -> float:
        return float(self._state[0][i])

    def set_weight(self, i: int, weight: float) -> None:
        """Outcome ``i`` now has ``weight`` (non-negative and finite)."""
        weight = float(weight)
        if not (np.isfinite(weight) and weight >= 0.0):
            raise ValueError(f"a weight must be non-negative and finite, got {weight!r}")
        if not 0 <= int(i) < len(self):
            raise ValueError(f"outcome {i} is out of range (0 to {len(self) - 1})")
        tree_set_weight(self.seed, *self._state, int(i), weight)

    def set_weights(self, weights) -> None:
        """Set every weight that differs from ``weights`` (a sequence of ``n``): O(n), then a draw is O(log n)."""
        weights = np.asarray(weights, dtype=np.float64)
        if weights.shape != (len(self),):
            raise ValueError(f"expected {len(self)} weights, got shape {weights.shape}")
        for i in np.flatnonzero(weights != self._state[0]):
            self.set_weight(int(i), weights[i])

    def draw(self, weights=None) -> int:
        """One draw (-1 if no weight is positive); with ``weights``, they are set first (:meth:`set_weights`)."""
        if weights is not None:
            self.set_weights(weights)
        return int(tree_draw(self.seed, *self._state))
