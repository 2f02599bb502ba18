"""Counter-based random numbers: any value computed from its address alone.

Algorithm
---------
Philox4x32-10 (Salmon, Moraes, Dror & Shaw, "Parallel random numbers: as easy as
1, 2, 3", SC 2011), the reference counter-based generator of Random123. It is a
keyed bijection of a 128-bit counter; ten rounds, each two 32x32->64-bit
multiplications, with a Weyl key schedule. The implementation is pinned by the
known-answer vectors of Random123's ``tests/kat_vectors`` (see
``tests/test_rng.py``).

Addressing
----------
A random value has a three-part address ``(seed, stream, counter)``, each an
unsigned 64-bit integer::

    key     = (seed & 0xffffffff, seed >> 32)
    counter = (counter & 0xffffffff, counter >> 32, stream & 0xffffffff, stream >> 32)
    x0, x1, x2, x3 = philox4x32_10(counter, key)
    bits    = x0 | (x1 << 32)                      # 64 bits
    uniform = (bits >> 11) * 2**-53                # 53 bits, in [0, 1)
    exponential = -log1p(-uniform)                 # Exp(1), in [0, 36.74]

The exponential is computed as ``-log(v)`` with ``v = 1 - uniform``, which is
exact in binary64 (``uniform`` is a multiple of 2**-53), by fdlibm's ``log``
algorithm (Sun Microsystems, 1993: argument reduction to ``[sqrt(2)/2,
sqrt(2)]`` and a degree-14 odd polynomial), in plain IEEE-754 arithmetic. It is
within 1 ulp of ``numpy.log1p`` (tested), and, unlike a call to the C
library's ``log1p``, gives the same bits on every platform and C library, so a
run on a mixed cluster stays bit-identical. It is also about three times
faster inside a race, where a library call spills every register.

The keyed race takes outcome ``i``'s value from half ``i & 1`` of the block
at ``(seed, KEYED_DOMAIN + (i >> 1), key)`` (see :func:`random_bits_pair`).

Because nothing is sequential, every process, thread or resumed run computes
the same value for the same address, in any order.

Streams are partitioned by their top bits so that the users of this module can
never collide:

=====================  ==========================================  ==========
stream range           used by                                     counter
=====================  ==========================================  ==========
``0 .. 2**32-1``       haystack needles, stream = outcome id       occurrence
``KEYED_DOMAIN + b``   keyed race, outcomes ``2b`` and ``2b+1``    draw key
``PLAIN_STREAM``       plain sampler                               draw index
``SEQUENCE_STREAM``    stream sampler                              value index
``DERIVE_DOMAIN + l``  seed tree, label ``l``                      child index
``TOY_DOMAIN + l``     the seed article's toy example              trial data
=====================  ==========================================  ==========

Seed tree
---------
``derive_seed(parent, label, index)`` is the 64-bit value at address
``(parent, DERIVE_DOMAIN + label, index)``. DESIGN.md's tree::

    tournament seed -> board_seed(t, b)            = derive(t, BOARD, b)
    board seed g_b  -> seat_seed(g_b, s)           = derive(g_b, SEAT, s)
                    -> event_seed(g_b, kind)       = derive(g_b, EVENTS, kind)
    independent control: table_seed(g_b, table)    = derive(g_b, TABLE, table),
                    then seat_seed / event_seed of that.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import leading_zeros

# Philox4x32 constants (Random123, philox.h).
_PHILOX_M0 = np.uint64(0xD2511F53)
_PHILOX_M1 = np.uint64(0xCD9E8D57)
_PHILOX_W0 = np.uint64(0x9E3779B9)
_PHILOX_W1 = np.uint64(0xBB67AE85)
_MASK32 = np.uint64(0xFFFFFFFF)
_SHIFT32 = np.uint64(32)
_SHIFT11 = np.uint64(11)
_TWO_POW_MINUS_53 = 2.0**-53
_TWO_POW_52 = np.uint64(1) << np.uint64(52)
_TWO_POW_53 = np.uint64(1) << np.uint64(53)
_SQRT2_MANTISSA = np.uint64(6369051672525773)  # floor(sqrt(2) * 2**52)

# fdlibm e_log.c constants.
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_LG1 = 6.666666666666735130e-01
_LG2 = 3.999999999940941908e-01
_LG3 = 2.857142874366239149e-01
_LG4 = 2.222219843214978396e-01
_LG5 = 1.818357216161805012e-01
_LG6 = 1.531383769920937332e-01
_LG7 = 1.479819860511658591e-01

UINT64_LIMIT = 2**64

# Stream domains (top bits), see the module docstring.
KEYED_DOMAIN = 1 << 62
PLAIN_STREAM = (1 << 62) + (1 << 61)
SEQUENCE_STREAM = (1 << 62) + (1 << 61) + 1
DERIVE_DOMAIN = 1 << 63
TOY_DOMAIN = (1 << 63) + (1 << 62)

# Seed-tree labels.
LABEL_BOARD = 1
LABEL_SEAT = 2
LABEL_EVENTS = 3
LABEL_TABLE = 4
LABEL_TRIAL = 5


@njit(cache=True, _nrt=False, inline="always")
def _multiply_high_low(multiplier, value):
    product = multiplier * value
    return product >> _SHIFT32, product & _MASK32


@njit(cache=True, _nrt=False)
def philox4x32_10(c0, c1, c2, c3, k0, k1):
    """Philox4x32 with 10 rounds, on 32-bit words held in uint64.

    Parameters
    ----------
    c0, c1, c2, c3 : uint64
        Counter words (each < 2**32), least significant first.
    k0, k1 : uint64
        Key words (each < 2**32).

    Returns
    -------
    tuple of 4 uint64
        The output words (each < 2**32).
    """
    for _ in range(10):
        hi0, lo0 = _multiply_high_low(_PHILOX_M0, c0)
        hi1, lo1 = _multiply_high_low(_PHILOX_M1, c2)
        c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
        k0 = (k0 + _PHILOX_W0) & _MASK32
        k1 = (k1 + _PHILOX_W1) & _MASK32
    return c0, c1, c2, c3


@njit(cache=True, _nrt=False)
def random_bits_pair(seed, stream, counter):
    """Both 64-bit halves of the Philox block at ``(seed, stream, counter)``.

    ``(x0 | (x1 << 32), x2 | (x3 << 32))``; the first is :func:`random_bits`
    of the same address. The keyed race uses both, one per outcome.
    """
    seed = np.uint64(seed)
    stream = np.uint64(stream)
    counter = np.uint64(counter)
    x0, x1, x2, x3 = philox4x32_10(
        counter & _MASK32, counter >> _SHIFT32, stream & _MASK32, stream >> _SHIFT32,
        seed & _MASK32, seed >> _SHIFT32,
    )
    return x0 | (x1 << _SHIFT32), x2 | (x3 << _SHIFT32)


@njit(cache=True, _nrt=False)
def random_bits(seed, stream, counter):
    """64 random bits at address ``(seed, stream, counter)`` (all uint64): ``x0 | (x1 << 32)``."""
    return random_bits_pair(seed, stream, counter)[0]


@njit(cache=True, _nrt=False)
def uniform_from_bits(bits):
    """The 53-bit uniform ``(bits >> 11) * 2**-53`` in [0, 1)."""
    return np.float64(bits >> _SHIFT11) * _TWO_POW_MINUS_53


@njit(cache=True, _nrt=False)
def random_uniform(seed, stream, counter):
    """A 53-bit uniform in [0, 1) at address ``(seed, stream, counter)``."""
    return uniform_from_bits(random_bits(seed, stream, counter))


@njit(cache=True, _nrt=False)
def exponential_from_bits(bits):
    """``-log1p(-u)`` for the 53-bit uniform ``u = (bits >> 11) * 2**-53``, in pure arithmetic.

    ``1 - u = n * 2**-53`` with the integer ``n = 2**53 - (bits >> 11)``, so
    the argument is exact; ``n`` is normalised by its leading bit and the
    logarithm evaluated with fdlibm's kernel (error below 1 ulp).
    """
    m = bits >> _SHIFT11
    if m == np.uint64(0):
        return 0.0
    n = _TWO_POW_53 - m
    top_bit = 63 - np.int64(leading_zeros(n))
    normalised = n << np.uint64(52 - top_bit)  # in [2**52, 2**53)
    if normalised > _SQRT2_MANTISSA:
        f = np.float64(np.int64(normalised) - np.int64(_TWO_POW_53)) * 2.0**-53
        k = np.float64(top_bit - 52)
    else:
        f = np.float64(np.int64(normalised) - np.int64(_TWO_POW_52)) * 2.0**-52
        k = np.float64(top_bit - 53)
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    t1 = w * (_LG2 + w * (_LG4 + w * _LG6))
    t2 = z * (_LG1 + w * (_LG3 + w * (_LG5 + w * _LG7)))
    half_f_squared = 0.5 * f * f
    log_v = k * _LN2_HI - ((half_f_squared - (s * (half_f_squared + t2 + t1) + k * _LN2_LO)) - f)
    return -log_v


@njit(cache=True, _nrt=False)
def random_exponential(seed, stream, counter):
    """An Exp(1) value ``-log1p(-u)`` at address ``(seed, stream, counter)``."""
    return exponential_from_bits(random_bits(seed, stream, counter))


@njit(cache=True, _nrt=False)
def derive_seed_kernel(parent, label, index):
    """Child seed ``(parent, DERIVE_DOMAIN + label, index)`` as uint64."""
    return random_bits(parent, np.uint64(DERIVE_DOMAIN) + np.uint64(label), index)


def check_seed(seed, name: str = "seed") -> int:
    """Validate a user seed: an integer in ``[0, 2**64)``; returns it as int.

    Raises
    ------
    ValueError
        If ``seed`` is not an integer or is out of range.
    """
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"{name} must be an integer in [0, 2**64), got {seed!r}")
    seed = int(seed)
    if not 0 <= seed < UINT64_LIMIT:
        raise ValueError(f"{name} must be an integer in [0, 2**64), got {seed}")
    return seed


def derive_seed(parent: int, label: int, index: int) -> int:
    """The child of ``parent`` at ``(label, index)`` in the seed tree.

    Parameters
    ----------
    parent : int
        Parent seed, in ``[0, 2**64)``.
    label : int
        What the child is for (``LABEL_BOARD``, ``LABEL_SEAT``, ...), in ``[0, 2**62)``.
    index : int
        Which child, in ``[0, 2**64)``.

    Returns
    -------
    int
        The child seed, in ``[0, 2**64)``.
    """
    parent = check_seed(parent, "parent seed")
    index = check_seed(index, "index")
    if not 0 <= int(label) < 2**62:
        raise ValueError(f"label must be in [0, 2**62), got {label}")
    return int(derive_seed_kernel(np.uint64(parent), np.uint64(label), np.uint64(index)))


def board_seed(tournament_seed: int, board: int) -> int:
    """Grandparent seed ``g_b`` of board ``board``; shared by every table of that board."""
    return derive_seed(tournament_seed, LABEL_BOARD, board)


def seat_seed(grandparent: int, seat: int) -> int:
    """Parent seed of seat ``seat`` under a board (or, for the control, table) seed."""
    return derive_seed(grandparent, LABEL_SEAT, seat)


def event_seed(grandparent: int, kind: int) -> int:
    """Seed of the table-wide events of kind ``kind`` (matchmaking, combat, order, loot)."""
    return derive_seed(grandparent, LABEL_EVENTS, kind)


def table_seed(grandparent: int, table: int) -> int:
    """Seed of one table for the ``independent`` control: the table index is mixed in."""
    return derive_seed(grandparent, LABEL_TABLE, table)


def uniforms(seed: int, stream: int, start: int, count: int) -> np.ndarray:
    """Uniforms at counters ``start .. start+count-1`` of one stream.

    Returns
    -------
    numpy.ndarray
        float64, shape (count,).
    """
    seed = check_seed(seed)
    stream = check_seed(stream, "stream")
    return _uniform_block(np.uint64(seed), np.uint64(stream), np.uint64(start), int(count))


@njit(cache=True)
def _uniform_block(seed, stream, start, count):
    out = np.empty(count, dtype=np.float64)
    for n in range(count):
        out[n] = random_uniform(seed, stream, start + np.uint64(n))
    return out
