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

The haystack's Exp(1) values come from the ziggurat of
:mod:`autodup.engine.ziggurat`, on the same blocks; the exponential above, by
inversion, serves the keyed race (whose pruning relies on ``-log1p(-u) >= u``)
and the ziggurat's tail.

The inversion is computed as ``-log(v)`` with ``v = 1 - uniform``, which is
exact in binary64 (``uniform`` is a multiple of 2**-53), by fdlibm's ``log``
algorithm (Sun Microsystems, 1993: argument reduction to ``[sqrt(2)/2,
sqrt(2)]`` and a degree-14 odd polynomial), in plain IEEE-754 arithmetic. It is
within 1 ulp of ``numpy.log1p`` (tested), and, unlike a call to the C
library's ``log1p``, gives the same bits on every platform and C library, so a
run on a mixed cluster stays bit-identical. It is also about three times
faster inside a race, where a library call spills every register.

Because nothing is sequential, every process, thread or resumed run computes
the same value for the same address, in any order.

Domains: who owns which streams
-------------------------------
Every stream belongs to exactly one domain, declared once in :data:`DOMAINS`
(purpose, stream range, the seed it lives under, what its counter counts).
The top four bits of a stream name its domain, so no id of one purpose can
reach another's streams; other modules import the named constants below and
never write a stream number themselves. (Before this table, a seat's loot bag
used stream 5 under the seat seed, which is also haystack needle 5's stream:
needle 5's k-th value was the loot bag's k-th uniform.)

=====================  =============  ==========================================  ======================
streams                seed           purpose                                     counter
=====================  =============  ==========================================  ======================
``0 .. 2**60-1``       seat           haystack needles, stream = outcome id       occurrence
                                      ``+ 2**32 * attempt`` (the ziggurat's
                                      rare retries, :mod:`~autodup.engine.ziggurat`)
``GAME_DOMAIN + 1..2`` seat           loot bag, a policy's random values          see each constant
``GAME_DOMAIN + 3..6`` table events   serving order, matchmaking, combat,         :func:`event_counter`
                                      tie-breaks
``KEYED_DOMAIN + b``   seat           keyed race, outcomes ``2b`` and ``2b+1``    draw key (:func:`shop_key`,
                                                                                  :func:`loot_key`)
``PLAIN_STREAM``       seat           plain sampler                               draw index
``SEQUENCE_STREAM``    seat           stream sampler                              value index
``REPLAY_*_STREAM``    seat           replay engine: plan, substitutes            draw index
``DERIVE_DOMAIN + l``  parent         seed tree, label ``l``                      child index
``STREAM_BOOTSTRAP``   board          a board's Poisson bootstrap weights         replicate
                       (grandparent)  (:mod:`autodup.analysis.measure_kernels`)
``TOY_DOMAIN + l``     trial          the seed article's toy example              card position
``SHUFFLE_DOMAIN + s`` deal           the shuffle lab: step ``s`` of a deal's     value index in the step
                                      sequence of shuffles
=====================  =============  ==========================================  ======================

The keyed race takes outcome ``i``'s value from half ``i & 1`` of the block
at ``(seed, KEYED_DOMAIN + (i >> 1), key)`` (see :func:`random_bits_pair`).

Counter layouts
---------------
Event streams count ``round * EVENT_ROUND_STRIDE + index`` (index: a seat's
position in a shuffle or, with events addressed by seat, the seat itself; a
fight's pair or a seat's combat form; ``EVENT_SECOND_KEY + seat`` for a seat's
key to be picked as the ghost; ``EVENT_GHOST_INDEX`` for the ghost opponent or
the ghost's form). Keyed draws are addressed by ``shop_key(round, roll, slot) =
(round * KEY_ROLLS_PER_ROUND + roll) * KEY_SLOTS_PER_ROLL + slot`` and loot
draws by ``loot_key(position) = LOOT_KEY_BASE + position``.
:func:`check_game_layout` refuses rules under which two of these would meet
(too many rounds, rolls, slots or seats).

Seed tree
---------
``derive_seed(parent, label, index)`` is the 64-bit value at address
``(parent, DERIVE_DOMAIN + label, index)``. DESIGN.md's tree::

    tournament seed -> board_seed(t, b)            = derive(t, BOARD, b)
    board seed g_b  -> seat_seed(g_b, s)           = derive(g_b, SEAT, s)
                    -> event_seed(g_b, kind)       = derive(g_b, EVENTS, kind)
    independent control: table_seed(g_b, table)    = derive(g_b, TABLE, table),
                    then seat_seed / event_seed of that.

The shuffle lab (:mod:`autodup.shuffles`) has a tree of its own::

    lab seed        -> method seed                 = derive(lab, METHOD, digest of the method's letters)
    method seed     -> replicate seed              = derive(m, REPLICATE, r)
    replicate seed  -> deal seed                   = derive(r, TRIAL, deal)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import compile_cache  # noqa: F401  (isort: skip)
from .. import nonnegative_indices  # noqa: F401  (isort: skip)
from .. import field_loads  # noqa: F401  (isort: skip)
from .. import inline_copies  # noqa: F401  (isort: skip)
from .. import flag_comparisons  # noqa: F401  (isort: skip)
from .. import deferred_code  # noqa: F401  (isort: skip)
from .. import driver_linking  # noqa: F401  (isort: skip)
from .. import blas_check  # noqa: F401  (isort: skip)
from .. import libm_binding  # noqa: F401  (isort: skip)
from numba import njit
from numba.cpython.unsafe.numbers import leading_zeros

__all__ = ["UINT64_LIMIT", "DOMAIN_SHIFT", "NEEDLE_DOMAIN", "GAME_DOMAIN", "KEYED_DOMAIN", "SAMPLER_DOMAIN",
           "DERIVE_DOMAIN", "MEASURE_DOMAIN", "TOY_DOMAIN", "SHUFFLE_DOMAIN", "MAX_OUTCOMES", "MAX_LABEL",
           "PLAIN_STREAM", "SEQUENCE_STREAM", "REPLAY_PLAN_STREAM", "REPLAY_SUBSTITUTE_STREAM", "STREAM_BOOTSTRAP",
           "STREAM_TOY_FIRST_SHUFFLE", "STREAM_TOY_SECOND_SHUFFLE", "MAX_SHUFFLE_STEPS", "STREAM_LOOT_BAG",
           "STREAM_POLICY", "STREAM_SERVING_ORDER", "STREAM_MATCHMAKING", "STREAM_COMBAT", "STREAM_TIEBREAK",
           "Domain", "DOMAINS", "domain_of", "LABEL_BOARD", "LABEL_SEAT", "LABEL_EVENTS", "LABEL_TABLE",
           "LABEL_TRIAL", "LABEL_METHOD", "LABEL_REPLICATE", "LABEL_TRAINING_BOARD", "LABEL_AGENT",
           "EVENT_ROUND_STRIDE", "EVENT_GHOST_INDEX",
           "EVENT_SECOND_KEY", "KEY_SLOTS_PER_ROLL", "KEY_ROLLS_PER_ROUND", "LOOT_KEY_BASE", "MAX_ROUNDS",
           "philox4x32_10", "random_bits_pair", "random_bits", "inline_random_bits_pair", "inline_random_bits",
           "uniform_from_bits", "random_uniform",
           "exponential_from_bits", "event_counter", "shop_key", "loot_key",
           "check_game_layout", "derive_seed_kernel", "check_seed", "derive_seed", "board_seed", "seat_seed",
           "event_seed", "table_seed", "uniforms"]

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

# --------------------------------------------------------------------------
# domains: every stream has one owner (see the module docstring)
# --------------------------------------------------------------------------

DOMAIN_SHIFT = 60  # the top four bits of a stream name its domain
NEEDLE_DOMAIN = 0 << DOMAIN_SHIFT
GAME_DOMAIN = 2 << DOMAIN_SHIFT
KEYED_DOMAIN = 4 << DOMAIN_SHIFT
SAMPLER_DOMAIN = 6 << DOMAIN_SHIFT
DERIVE_DOMAIN = 8 << DOMAIN_SHIFT
MEASURE_DOMAIN = 10 << DOMAIN_SHIFT
TOY_DOMAIN = 12 << DOMAIN_SHIFT
SHUFFLE_DOMAIN = 14 << DOMAIN_SHIFT

MAX_OUTCOMES = 1 << 32  # outcome ids (haystack needles, keyed outcomes) are below this
MAX_LABEL = 1 << 32     # seed-tree labels are below this

PLAIN_STREAM = SAMPLER_DOMAIN + 0
SEQUENCE_STREAM = SAMPLER_DOMAIN + 1
REPLAY_PLAN_STREAM = SAMPLER_DOMAIN + 2        # counter: 2k, 2k + 1 for the k-th planned draw
REPLAY_SUBSTITUTE_STREAM = SAMPLER_DOMAIN + 3  # counter: substitution index

# The measures' Poisson bootstrap, under a board's grandparent seed; counter: the replicate.
STREAM_BOOTSTRAP = MEASURE_DOMAIN + 0

# The toy example's two shuffles, under a trial's seed; counter: the shuffle step.
STREAM_TOY_FIRST_SHUFFLE = TOY_DOMAIN + 0
STREAM_TOY_SECOND_SHUFFLE = TOY_DOMAIN + 1
# The shuffle lab (autodup.shuffles): step s of a deal's sequence of shuffles reads stream SHUFFLE_DOMAIN + s
# under the deal's seed; counter: the step's value index.
MAX_SHUFFLE_STEPS = 256
# Game streams under a seat's seed.
STREAM_LOOT_BAG = GAME_DOMAIN + 1           # counter: cycle * bag size + shuffle step
STREAM_POLICY = GAME_DOMAIN + 2             # counter: the seat's decision index in the game
# Game streams under a table's event seed; counters by event_counter(round, index).
STREAM_SERVING_ORDER = GAME_DOMAIN + 3
STREAM_MATCHMAKING = GAME_DOMAIN + 4
STREAM_COMBAT = GAME_DOMAIN + 5
STREAM_TIEBREAK = GAME_DOMAIN + 6


@dataclass(frozen=True)
class Domain:
    """A range of streams with one owner: streams ``first .. first + count - 1``."""

    name: str
    first: int
    count: int
    seed: str
    counter: str
    purpose: str

    @property
    def last(self) -> int:
        return self.first + self.count - 1

    def __contains__(self, stream: int) -> bool:
        return self.first <= stream <= self.last


DOMAINS = (
    Domain("needles", NEEDLE_DOMAIN, 1 << DOMAIN_SHIFT, "seat", "occurrence",
           "haystack needles; stream = outcome id (champions, then tiers) + 2**32 * the ziggurat's attempt"),
    Domain("seat game streams", STREAM_LOOT_BAG, 2, "seat", "per stream", "loot bag, a policy's random values"),
    Domain("table events", STREAM_SERVING_ORDER, 4, "table events", "event_counter(round, index)",
           "serving order, matchmaking, combat, tie-breaks"),
    Domain("keyed", KEYED_DOMAIN, MAX_OUTCOMES // 2, "seat", "draw key (shop_key, loot_key)",
           "keyed race; stream KEYED_DOMAIN + b holds outcomes 2b and 2b + 1"),
    Domain("samplers", PLAIN_STREAM, 4, "seat", "draw index",
           "plain sampler, stream sampler, the replay engine's plan and substitutes"),
    Domain("seed tree", DERIVE_DOMAIN, MAX_LABEL, "parent", "child index", "derive_seed, label l"),
    Domain("measures", STREAM_BOOTSTRAP, 1, "board (grandparent)", "bootstrap replicate",
           "a board's Poisson(1) weight in each bootstrap replicate (autodup.analysis.measure_kernels)"),
    Domain("toy", TOY_DOMAIN, 2, "trial", "card position", "the seed article's toy example (two shuffles)"),
    Domain("shuffle lab", SHUFFLE_DOMAIN, MAX_SHUFFLE_STEPS, "deal", "value index within the step",
           "autodup.shuffles: stream SHUFFLE_DOMAIN + s is step s of a deal's sequence of shuffles"),
)


def domain_of(stream: int) -> Domain:
    """The domain that owns ``stream``; ``ValueError`` if none does."""
    for domain in DOMAINS:
        if stream in domain:
            return domain
    raise ValueError(f"stream {stream:#x} belongs to no domain of autodup.engine.rng.DOMAINS")


# Seed-tree labels.
LABEL_BOARD = 1
LABEL_SEAT = 2
LABEL_EVENTS = 3
LABEL_TABLE = 4
LABEL_TRIAL = 5
LABEL_METHOD = 6     # the shuffle lab: a method's seed, index = a digest of its letters (G7 is GGGGGGG)
LABEL_REPLICATE = 7  # the shuffle lab: one repetition of an experiment
# The boards a value is trained on (autodup luck fit): a branch of the seed tree of their own, so that no training
# board is a board of any evaluation, whatever the two seeds (evaluation boards are children under LABEL_BOARD).
LABEL_TRAINING_BOARD = 8
# A Python agent's generator at a seat of a board (autodup.game.agents): a child of the seat's seed.
LABEL_AGENT = 9

# --------------------------------------------------------------------------
# counter layouts of the game's streams
# --------------------------------------------------------------------------

EVENT_ROUND_STRIDE = 4096   # event counters per round
EVENT_GHOST_INDEX = 4000    # the ghost opponent's draw in a round's matchmaking stream (and the ghost's form)
EVENT_SECOND_KEY = 2048     # + seat: a seat's second key of a round's stream (its key to be picked as the ghost)
KEY_SLOTS_PER_ROLL = 64     # keyed draw keys per shop (one per slot)
KEY_ROLLS_PER_ROUND = 1024  # shops per seat per round (the free refresh, then rerolls)
LOOT_KEY_BASE = 1 << 40     # loot draws are keyed above every shop key
MAX_ROUNDS = LOOT_KEY_BASE // (KEY_ROLLS_PER_ROUND * KEY_SLOTS_PER_ROLL)


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False, inline="always")
def _multiply_high_low(multiplier, value):
    product = multiplier * value
    return product >> _SHIFT32, product & _MASK32


# Inlined into inline_random_bits_pair, its one caller: a block is then one call (random_bits_pair), or none in a loop.
@njit(cache=True, no_cfunc_wrapper=True, _nrt=False, inline="always")
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


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False, inline="always")
def inline_random_bits_pair(seed, stream, counter):
    """:func:`random_bits_pair`, with the block computed in the caller's code: a loop of independent addresses
    then computes several blocks at once (the compiler vectorizes it), where calls compute one after the other."""
    seed = np.uint64(seed)
    stream = np.uint64(stream)
    counter = np.uint64(counter)
    x0, x1, x2, x3 = philox4x32_10(
        counter & _MASK32, counter >> _SHIFT32, stream & _MASK32, stream >> _SHIFT32,
        seed & _MASK32, seed >> _SHIFT32,
    )
    return x0 | (x1 << _SHIFT32), x2 | (x3 << _SHIFT32)


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False)
def random_bits_pair(seed, stream, counter):
    """Both 64-bit halves of the Philox block at ``(seed, stream, counter)``.

    ``(x0 | (x1 << 32), x2 | (x3 << 32))``; the first is :func:`random_bits`
    of the same address. The keyed race uses both, one per outcome.
    """
    return inline_random_bits_pair(seed, stream, counter)


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False, inline="always")
def inline_random_bits(seed, stream, counter):
    """:func:`random_bits`, computed in the caller's code (see :func:`inline_random_bits_pair`)."""
    return inline_random_bits_pair(seed, stream, counter)[0]


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False)
def random_bits(seed, stream, counter):
    """64 random bits at address ``(seed, stream, counter)`` (all uint64): ``x0 | (x1 << 32)``."""
    return random_bits_pair(seed, stream, counter)[0]


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False)
def uniform_from_bits(bits):
    """The 53-bit uniform ``(bits >> 11) * 2**-53`` in [0, 1)."""
    return np.float64(bits >> _SHIFT11) * _TWO_POW_MINUS_53


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False)
def random_uniform(seed, stream, counter):
    """A 53-bit uniform in [0, 1) at address ``(seed, stream, counter)``."""
    return uniform_from_bits(random_bits(seed, stream, counter))


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False)
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


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False, inline="always")
def event_counter(round_index, index):
    """Counter of draw ``index`` (< ``EVENT_ROUND_STRIDE``) of round ``round_index`` in an event stream (uint64)."""
    return np.uint64(round_index) * np.uint64(EVENT_ROUND_STRIDE) + np.uint64(index)


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False, inline="always")
def shop_key(round_index, roll, slot):
    """Keyed draw key of a shop slot: the ``roll``-th shop of a seat's round (0: the free refresh)."""
    return (round_index * KEY_ROLLS_PER_ROUND + roll) * KEY_SLOTS_PER_ROLL + slot


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False, inline="always")
def loot_key(position):
    """Keyed draw key of the unit a seat's loot bag hands out at bag ``position``."""
    return LOOT_KEY_BASE + position


def check_game_layout(max_rounds: int, players: int, shop_size: int, shops_per_round: int) -> None:
    """Refuse game sizes under which two event counters or two draw keys would be the same address.

    Parameters
    ----------
    max_rounds : int
        Rounds a game may last.
    players : int
        Seats at a table (shuffle positions and fights index event counters).
    shop_size : int
        Slots per shop.
    shops_per_round : int
        Shops a seat may see in one round (the free refresh, rerolls and loaded rolls).

    Raises
    ------
    ValueError
        One line naming the size and the layout limit it exceeds.
    """
    limits = (("max_rounds", max_rounds, MAX_ROUNDS, "keyed draw keys of later rounds would reach the loot keys"),
              ("players", players, EVENT_SECOND_KEY, "event counters of a round would reach the seats' second keys"),
              ("shop size", shop_size, KEY_SLOTS_PER_ROLL, "a shop's keys would reach the next shop's"),
              ("shops per round", shops_per_round, KEY_ROLLS_PER_ROUND, "a round's keys would reach the next round's"))
    for name, value, limit, why in limits:
        if not 0 < value <= limit:
            raise ValueError(f"{name} {value} is beyond the random-number layout ({why}; allowed: 1 to {limit})")


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False)
def derive_seed_kernel(parent, label, index):
    """Child seed ``(parent, DERIVE_DOMAIN + label, index)`` as uint64."""
    return random_bits(parent, np.uint64(DERIVE_DOMAIN) + np.uint64(label), index)


def check_seed(seed, name: str = "seed") -> int:
    """Validate a user seed: an integer in ``[0, 2**64)``; returns it as int.

    Raises
    ------
    autodup.errors.UsageError
        If ``seed`` is not an integer or is out of range (one line, starting with ``name``).
    """
    from ..arguments import seed as checked_seed

    return checked_seed(name, seed)


def derive_seed(parent: int, label: int, index: int) -> int:
    """The child of ``parent`` at ``(label, index)`` in the seed tree.

    Parameters
    ----------
    parent : int
        Parent seed, in ``[0, 2**64)``.
    label : int
        What the child is for (``LABEL_BOARD``, ``LABEL_SEAT``, ...), in ``[0, MAX_LABEL)``.
    index : int
        Which child, in ``[0, 2**64)``.

    Returns
    -------
    int
        The child seed, in ``[0, 2**64)``.
    """
    parent = check_seed(parent, "parent seed")
    index = check_seed(index, "index")
    if not 0 <= int(label) < MAX_LABEL:
        raise ValueError(f"label must be in [0, 2**32), got {label}")
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


@njit(cache=True, no_cfunc_wrapper=True)
def _uniform_block(seed, stream, start, count):
    out = np.empty(count, dtype=np.float64)
    for n in range(count):
        out[n] = random_uniform(seed, stream, start + np.uint64(n))
    return out
