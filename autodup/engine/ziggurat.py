"""The Exp(1) value at an address, by Marsaglia and Tsang's ziggurat.

The haystack's needles draw one Exp(1) value per occurrence, two per
hierarchical draw. Inversion (``-log1p(-u)``, :func:`autodup.engine.rng.exponential_from_bits`)
pays a logarithm for each; the ziggurat pays a table lookup, a comparison
and a multiplication for 97.8% of them, and the generator is the whole gap
between the haystack and the plain sampler (measured: with neither Philox
nor the logarithm the two cost the same).

Algorithm
---------
G. Marsaglia and W. W. Tsang, "The ziggurat method for generating random
variables", Journal of Statistical Software 5(8), 2000, with 256 layers and
53-bit integers, laid out as numpy's ``random_standard_exponential``. The
density ``exp(-x)`` is covered by 256 boxes of equal area ``v``: box ``i >= 1``
spans ``[0, x_i] x [exp(-x_i), exp(-x_(i-1))]`` (``x_0 = 0``, ``x_255 = r``); box 0
is the base ``[0, r] x [0, exp(-r)]`` plus the tail beyond ``r``, given the width
``v / exp(-r)``. One attempt reads the Philox block at an address as two
64-bit halves ``low, high``::

    layer   = low & 255                  # a box, uniformly
    integer = low >> 11                  # 53 bits: a point across the box
    x       = integer * width[layer]     # width = x_layer / 2**53
    if integer < inside[layer]:          # inside = floor(2**53 x_(layer-1) / x_layer):
        return x                         #   under the curve for sure (97.8%)
    if layer == 0:                       # the base's tail: by memorylessness
        return r + (-log1p(-u(high)))
    y = f[layer] + u(high) * (f[layer-1] - f[layer])
    if y < exp(-x): return x             # the wedge: under the curve
    # else: rejected; try again

The accepted points are uniform under the density, so ``x`` is Exp(1)
(to the resolution of the 53-bit grid, as inversion is). ``r`` is the root of
the boxes' closure (the 255th box above the base ends at ``x_0 = 0``), found
by bisection with 60-digit decimals: 7.69711747013104971404462804801521549911...

Addresses of the rare retries
-----------------------------
Attempt ``j`` reads the block at ``(seed, stream + j * 2**32, counter)``. The
haystack's needle streams are outcome ids below ``2**32``
(:data:`autodup.engine.rng.MAX_OUTCOMES`), so a needle's retries stay in the
needles' domain and meet no other needle: every value, retries included, is a
function of its address. An attempt is rejected with probability
``1 - 1 / (256 v)``, 1.1%.

Determinism
-----------
The tables are computed with :mod:`decimal` (correctly rounded, the same on
every platform), the wedge's ``exp`` in plain IEEE-754 arithmetic (fdlibm's
``e_exp.c``) and the tail's logarithm by :func:`~autodup.engine.rng.exponential_from_bits`,
so no value depends on the C library: a mixed cluster stays bit-identical.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

import numpy as np

from .. import compile_cache  # noqa: F401  (isort: skip)
from numba import njit

from .rng import MAX_OUTCOMES, exponential_from_bits, random_bits_pair, uniform_from_bits

__all__ = ["LAYERS", "TAIL_START", "RETRY_STREAM_STRIDE", "ziggurat_tables", "exp_minus", "ziggurat_attempt",
           "random_exponential", "exponential_from_low_bits"]

LAYERS = 256
# The closure's root (see the module docstring), to 50 digits.
_TAIL_START_DIGITS = "7.6971174701310497140446280480152154991139686400553"
TAIL_START = float(Decimal(_TAIL_START_DIGITS))
RETRY_STREAM_STRIDE = MAX_OUTCOMES  # attempt j of stream s reads stream s + j * 2**32
_TWO_POW_53 = 2**53


def ziggurat_tables(tail_start: str = _TAIL_START_DIGITS, layers: int = LAYERS, digits: int = 40):
    """The ziggurat's tables, computed in decimal arithmetic.

    Parameters
    ----------
    tail_start : str
        ``r``, the right edge of the base box, as a decimal string.
    layers : int
        Number of boxes.
    digits : int
        Decimal precision of the computation.

    Returns
    -------
    inside : numpy.ndarray
        uint64 (layers,): ``floor(2**53 * x_(i-1) / x_i)`` (box 0: ``floor(2**53 * r / width_0)``; box 1: 0).
    width : numpy.ndarray
        float64 (layers,): ``x_i / 2**53``, box 0's the base's virtual width ``v / exp(-r)``.
    density : numpy.ndarray
        float64 (layers,): ``exp(-x_i)`` (box 0: 1.0, the density at the top box's left edge).
    """
    with localcontext() as context:
        context.prec = digits
        r = Decimal(tail_start)
        area = (-r).exp() * (r + 1)  # v: the base rectangle r * exp(-r) plus the tail exp(-r)
        edges = [Decimal(0)] * layers
        edges[0] = area / (-r).exp()
        edges[layers - 1] = r
        for i in range(layers - 2, 0, -1):
            edges[i] = -((area / edges[i + 1] + (-edges[i + 1]).exp()).ln())
        scale = Decimal(_TWO_POW_53)
        inside = [int(scale * r / edges[0])] + [0] + [int(scale * edges[i - 1] / edges[i]) for i in range(2, layers)]
        width = [float(edge / scale) for edge in edges]
        density = [1.0] + [float((-edges[i]).exp()) for i in range(1, layers)]
    return np.array(inside, dtype=np.uint64), np.array(width), np.array(density)


_INSIDE, _WIDTH, _DENSITY = ziggurat_tables()
_LAYER_MASK = np.uint64(LAYERS - 1)
_SHIFT11 = np.uint64(11)
_RETRY_STRIDE = np.uint64(RETRY_STREAM_STRIDE)

# fdlibm e_exp.c constants.
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_INVERSE_LN2 = 1.44269504088896338700e+00
_P1 = 1.66666666666666019037e-01
_P2 = -2.77777777770155933842e-03
_P3 = 6.61375632143793436117e-05
_P4 = -1.65339022054652515390e-06
_P5 = 4.13813679705723846039e-08
# 2**-k for the reduction's k (exact powers of two; exp(-700) needs k up to 1010).
_POWERS_OF_HALF = np.array([math.ldexp(1.0, -k) for k in range(1011)])


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False)
def exp_minus(x):
    """``exp(-x)`` for ``0 <= x <= 700``, in plain IEEE-754 arithmetic (fdlibm's algorithm, error below 1 ulp).

    ``-x = k ln2 + t`` with ``|t| <= ln2 / 2`` (``ln2`` split in a high part
    exact in products with ``k`` and a low part), then a degree-5 rational
    form of ``exp(t)`` scaled by ``2**k``. No call to the C library, so the
    bits are the same on every platform.
    """
    z = -x
    k = np.int64(_INVERSE_LN2 * z - 0.5)  # rounds -x / ln2 to the nearest (truncation toward zero of a negative)
    hi = z - k * _LN2_HI
    lo = k * _LN2_LO
    t = hi - lo
    t2 = t * t
    c = t - t2 * (_P1 + t2 * (_P2 + t2 * (_P3 + t2 * (_P4 + t2 * _P5))))
    y = 1.0 - ((lo - (t * c) / (2.0 - c)) - hi)
    return y * _POWERS_OF_HALF[-k]


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False, inline="always")
def ziggurat_attempt(low, high):
    """One attempt of the ziggurat on the 128 bits ``low, high`` (uint64).

    Returns
    -------
    float
        The Exp(1) value, or -1.0 if the attempt is rejected (probability 1.1% on uniform bits).
    """
    layer, x, inside = _layer_value(low)
    if inside:
        return x
    return _ziggurat_edge(layer, x, high)


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False, inline="always")
def _layer_value(low):
    """An attempt's layer, its value ``x`` and whether ``x`` lies inside the layer (accepted without the edge's
    test), from the attempt's low 64 bits (uint64)."""
    layer = low & _LAYER_MASK
    integer = low >> _SHIFT11
    return layer, np.float64(integer) * _WIDTH[layer], integer < _INSIDE[layer]


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False)
def _ziggurat_edge(layer, x, high):
    # Out of line: 2.2% of attempts get here, and inlining it would double the size of every race that draws.
    if layer == 0:
        return TAIL_START + exponential_from_bits(high)
    lower = _DENSITY[layer]
    if lower + uniform_from_bits(high) * (_DENSITY[layer - np.uint64(1)] - lower) < exp_minus(x):
        return x
    return -1.0


# Inlined into every race, with the generator's block (random_bits_pair) left out of line: a race then calls
# once per value instead of twice. Measured on the roll odds' simulation, 1.19 s against 1.10 s (100,000
# sequences, one thread); inlining the block as well was slower (1.19-1.22 s), from the races' larger code.
# Only the common case is inlined (97.8% of values: a layer's inside on the first attempt), so that each race
# adds little code for numba to inline and LLVM to compile.
@njit(cache=True, no_cfunc_wrapper=True, _nrt=False, inline="always")
def random_exponential(seed, stream, counter):
    """The Exp(1) value at address ``(seed, stream, counter)``; ``stream`` below ``2**32``.

    Attempt ``j`` of the ziggurat reads the Philox block at ``(seed, stream + j * 2**32, counter)``.
    """
    seed = np.uint64(seed)
    stream = np.uint64(stream)
    counter = np.uint64(counter)
    low, high = random_bits_pair(seed, stream, counter)
    _, x, inside = _layer_value(low)
    if inside:
        return x
    return _exponential_past_inside(seed, stream, counter, low, high)


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False, inline="always")
def exponential_from_low_bits(seed, stream, counter, low):
    """:func:`random_exponential` for a caller that computed its block's low half ``low`` (uint64) already."""
    _, x, inside = _layer_value(low)
    if inside:
        return x
    return _exponential_past_low_bits(seed, stream, counter, low)


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False)
def _exponential_past_low_bits(seed, stream, counter, low):
    """:func:`exponential_from_low_bits` past its layer's inside: the block's high half computed again (2.2% of
    values), then as :func:`_exponential_past_inside`."""
    seed = np.uint64(seed)
    stream = np.uint64(stream)
    counter = np.uint64(counter)
    return _exponential_past_inside(seed, stream, counter, low, random_bits_pair(seed, stream, counter)[1])


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False)
def _exponential_past_inside(seed, stream, counter, low, high):
    """:func:`random_exponential` when its first attempt falls outside its layer's inside: the attempt's edge
    test, then the attempts that follow."""
    value = ziggurat_attempt(low, high)
    attempt = np.uint64(0)
    while value < 0.0:
        attempt += np.uint64(1)
        low, high = random_bits_pair(seed, stream + attempt * _RETRY_STRIDE, counter)
        value = ziggurat_attempt(low, high)
    return value
