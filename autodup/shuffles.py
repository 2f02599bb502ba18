"""Shuffle lab: is this shuffle fair? Physical shuffles, the tests that mislead, and the ones that do not.

A deck of ``n`` cards starts in order (card ``c`` at position ``c``, 0 on
top). A *method* is a sequence of shuffles written in letters, applied left to
right (``RRH``: two riffles, then a Hindu shuffle); a letter may carry a count
(``G7`` is ``GGGGGGG``). The shuffles (:data:`METHODS`):

``S`` ideal
    Fisher-Yates (Durstenfeld): every permutation has probability ``1/n!``.
``K`` random keys
    One 53-bit random key per card (a double in [0, 1)), then a stable sort by
    key: the Cribbage Pro shuffle of "Cribbage Pro Shuffling & The Deck"
    (2010). Two equal keys would keep their cards in order; with 53 bits that
    has probability below ``n**2 / 2**54``.
``G`` riffle (Gilbert-Shannon-Reeds)
    Cut by a Binomial(n, 1/2), then drop cards from either packet with
    probability proportional to its size: every one of the ``2**n`` ways of
    assigning positions to the two packets is equally likely.
``R`` riffle with card sleeves
    The model of "Refutation of an Article on Shuffling in TCG" (2020): a GSR
    riffle in which, once the packets have alternated, no more than 4
    consecutive cards come from one packet (a fifth is dropped from the other).
``H`` Hindu (overhand)
    Take 7 to 12 cards (uniform) from the top onto a new pile until the deck is
    gone; the new pile is the deck. Its first packet ends at the bottom.
``C`` cut
    Move a uniform number (0 to n-1) of cards from the top to the bottom: every
    card is uniform over the positions, yet the order is only rotated.
``B`` shuffle bag
    Draw every card from a bag, as the ShuffleBag of "Never-ending Shuffled
    Sequences" draws: swap a uniform item of the bag's first ``cursor + 1``
    with the one at the cursor and hand it out. A second ideal shuffle, by
    another algorithm.
``N`` naive swap
    For every position, swap its card with a uniform card of the whole deck:
    the classic mistake (``n**n`` equally likely paths cannot split evenly
    over ``n!`` permutations). Deliberately wrong, so that the lab's checks
    are seen to catch a biased shuffle.

Experiment (the 2020 article's protocol)
----------------------------------------
Per method, ``runs x shuffles`` deals (500 x 100 by default). From every run
of 100 deals, the *number of duplicates*: the ``n x n`` matrix of how often
the card at position ``i`` was card ``j``, and the count of its entries equal
to 2 or 3 (the integers nearest 100 / 40), averaged over runs. From all 50,000
deals, the *80 chi-square tests*: each card's positions and each position's
cards against uniform, and how many have p < 0.05.

Both mislead. Any shuffle whose every card is uniform over the positions (the
cut, for one) has the ideal's expected number of duplicates, and the cut's 80
tests are one test 80 times (every row and column of its matrix is a
permutation of the same 40 counts), so it scores 0 or 80. What they miss is
the order of the cards, so the lab adds tests of the whole permutation, each
against its exact law for a uniform permutation:

* successions: cards ``c`` directly followed by ``c + 1`` (the adjacent pairs
  that stay adjacent). A uniform permutation has ``C(n-1, k) a(n-1-k)`` with
  ``k``, where ``a(m) = m a(m-1) + (m-1) a(m-2)`` (OEIS A000255).
* rising sequences: ``1 +`` the cards ``c`` that lie below ``c + 1``. A
  uniform permutation has ``r`` of them with probability ``A(n, r-1) / n!``
  (Eulerian numbers); the GSR riffle's law is a function of this count alone.

Verdict: a method passes the *position test* when the smallest of its ``2n``
p-values is at least ``ALPHA / 2 / (2n)`` (Bonferroni), and the *permutation
test* when both of its p-values are at least ``ALPHA / 4``, so a fair shuffle
is called unfair with probability at most ``ALPHA`` = 0.1%.

Riffles needed
--------------
After ``k`` GSR riffles, a permutation with ``r`` rising sequences has
probability ``C(2**k + n - r, n) / 2**(k n)`` (Bayer & Diaconis, 1992), so the
total variation distance to uniform is exact from the Eulerian numbers.
:func:`riffles_needed` computes it in integers for ``k`` riffles and compares
it with the rising sequences of simulated riffles.

Addresses
---------
Every random value has an address: the method's seed is ``derive_seed(seed,
LABEL_METHOD, digest of its letters)`` (so a method's results do not depend
on which others are run with it, and ``G7`` is ``GGGGGGG``), a replicate's
``derive_seed(method seed, LABEL_REPLICATE, r)``, a deal's ``derive_seed(
replicate seed, LABEL_TRIAL, deal)``, and step ``s`` of the deal reads stream
``SHUFFLE_DOMAIN + s`` (:mod:`autodup.rng`). Runs are played in parallel and
counted in integers, so the result does not depend on threads.
"""

from __future__ import annotations

import hashlib
import math
import re
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np
from numba import njit, prange

from .errors import first_line
from .rng import (LABEL_METHOD, LABEL_REPLICATE, LABEL_TRIAL, MAX_SHUFFLE_STEPS, SHUFFLE_DOMAIN, check_seed,
                  derive_seed, derive_seed_kernel, random_bits, random_uniform)

DEFAULT_SEED = 0xC7       # the 2020 article's numpy seed (its random numbers are not numpy's here)
DEFAULT_CARDS = 40
DEFAULT_RUNS = 500
DEFAULT_SHUFFLES = 100    # deals per run
DEFAULT_REPLICATES = 10   # repetitions of the whole experiment, for the spread of its figures
DEFAULT_RIFFLE_DEALS = 100_000
MIN_CARDS, MAX_CARDS = 3, 1000
MAX_DEALS = 10**8         # per method and replicate
ALPHA = 0.001             # a fair shuffle's chance of an unfair verdict
REJECTION_LEVEL = 0.05    # the 2020 article's level for its 80 tests
AGREEMENT_SIGMA = 4.5     # a published figure agrees when within this many standard errors
MARKED_DEALS = 3000       # deals whose marker cards are kept for the scatter (as Cribbage Pro's 3,000 decks)
MARKERS = 4               # marker cards: the aces of a deck sorted by suit
RIFFLE_DECKS = (40, 52)
MAX_RIFFLES = 12          # at least; more for large decks (see shuffle_lab)
MINIMUM_EXPECTED = 5.0    # chi-square categories are merged until each expects this many
SLEEVE_RUN = 4            # the sleeved riffle's longest run from one packet once they alternate
HINDU_SMALLEST, HINDU_LARGEST = 7, 12
_RUNS_PER_BLOCK = 64      # runs played in parallel at once (each holds an n x n matrix) ...
_BLOCK_BYTES = 64 << 20   # ... within this much memory for the matrices

IDEAL, RANDOM_KEYS, RIFFLE, SLEEVE_RIFFLE, HINDU, CUT, SHUFFLE_BAG, NAIVE_SWAP = range(8)


@dataclass(frozen=True)
class ShuffleMethod:
    """One shuffle of the lab: its letter, kernel code and where it comes from."""

    letter: str
    code: int
    name: str
    fair: bool        # whether it is a uniform shuffle
    description: str


METHODS = {method.letter: method for method in (
    ShuffleMethod("S", IDEAL, "ideal", True, "Fisher-Yates"),
    ShuffleMethod("K", RANDOM_KEYS, "random keys", True, "a 53-bit key per card, stable sort (Cribbage Pro, 2010)"),
    ShuffleMethod("G", RIFFLE, "riffle", False, "Gilbert-Shannon-Reeds riffle"),
    ShuffleMethod("R", SLEEVE_RIFFLE, "sleeved riffle", False,
                  f"GSR riffle with at most {SLEEVE_RUN} cards in a row from a packet (the 2020 article)"),
    ShuffleMethod("H", HINDU, "Hindu", False,
                  f"packets of {HINDU_SMALLEST}-{HINDU_LARGEST} cards from the top, stacked (the 2020 article)"),
    ShuffleMethod("C", CUT, "cut", False, "a uniform cut: the order is rotated (the 2020 article)"),
    ShuffleMethod("B", SHUFFLE_BAG, "shuffle bag", True, "every card drawn from a ShuffleBag"),
    ShuffleMethod("N", NAIVE_SWAP, "naive swap", False, "swap each card with any card (deliberately wrong)"),
)}

# The methods of the 2020 article, then the lab's other shuffles.
DEFAULT_METHODS = ("S", "C", "GGGGGGG", "CCC", "GGG", "RRR", "RRH", "RHR", "HRR", "RHH", "HRH", "HHR", "HHH",
                   "K", "B", "N")

# "Refutation of an Article on Shuffling in TCG" (2020), 40 cards: its mean number of duplicates over 500 runs of
# 100 shuffles, and how many of its 80 chi-square tests over 50,000 shuffles had p < 0.05.
ARTICLE_CARDS, ARTICLE_RUNS, ARTICLE_SHUFFLES = 40, 500, 100
ARTICLE_DUPLICATES = {"CCC": 768.24, "GGGGGGG": 760.678, "S": 760.478, "C": 756.08, "GGG": 709.41, "RRR": 708.784,
                      "HRR": 699.648, "RHR": 651.226, "HHR": 644.764, "RRH": 601.118, "HRH": 580.214, "RHH": 437.426,
                      "HHH": 400.494}
ARTICLE_REJECTIONS = {"C": 0, "CCC": 0, "S": 6, "GGGGGGG": 26, "GGG": 57, "RRR": 66, "HRR": 77, "RRH": 80, "RHR": 80,
                      "RHH": 80, "HRH": 80, "HHR": 80, "HHH": 80}


# --------------------------------------------------------------------------
# methods by name
# --------------------------------------------------------------------------


def parse_method(text: str) -> str:
    """The letters of a method (``"g7"`` -> ``"GGGGGGG"``); ``ValueError`` with one line if it is not one.

    A method is one or more shuffles of :data:`METHODS`, each letter
    optionally followed by a repeat count.
    """
    written = text.strip().upper()
    if not written:
        raise ValueError("a method is empty (write letters like RRH or G7)")
    parts = re.findall(r"([A-Z])(\d*)|(.)", written)
    letters = []
    for letter, count, other in parts:
        if other or letter not in METHODS:
            bad = other or letter
            allowed = ", ".join(f"{m.letter} ({m.name})" for m in METHODS.values())
            raise ValueError(f"{bad!r} in {text!r} is not a shuffle (allowed: {allowed}; a sequence like RRH or G7)")
        repeat = int(count) if count else 1
        if repeat < 1:
            raise ValueError(f"{text!r} repeats {letter} {repeat} times (a count is at least 1)")
        letters.append(letter * min(repeat, MAX_SHUFFLE_STEPS + 1))
    expanded = "".join(letters)
    if len(expanded) > MAX_SHUFFLE_STEPS:
        raise ValueError(f"{text!r} has more than {MAX_SHUFFLE_STEPS} shuffles (allowed: 1 to {MAX_SHUFFLE_STEPS})")
    return expanded


def parse_methods(text: str) -> dict:
    """``"S,C,g7"`` -> ``{"S": "S", "C": "C", "G7": "GGGGGGG"}`` (as written, upper case -> letters), in order.

    Raises ``ValueError`` (one line) for an unknown letter, an empty or repeated method.
    """
    methods: dict = {}
    for item in text.split(","):
        letters = parse_method(item)
        name = item.strip().upper()
        if letters in methods.values():
            raise ValueError(f"--methods lists {name} twice (as {[k for k, v in methods.items() if v == letters][0]})")
        methods[name] = letters
    return methods


def method_codes(letters: str) -> np.ndarray:
    """int64, shape (len(letters),): the kernel code of every step."""
    return np.array([METHODS[letter].code for letter in letters], dtype=np.int64)


def method_seed(seed: int, letters: str) -> int:
    """The seed of a method: ``derive_seed(seed, LABEL_METHOD, the first 8 bytes of BLAKE2b(letters))``."""
    digest = int.from_bytes(hashlib.blake2b(letters.encode("ascii"), digest_size=8).digest(), "little")
    return derive_seed(check_seed(seed), LABEL_METHOD, digest)


def replicate_seed(seed: int, letters: str, replicate: int = 0) -> int:
    """The seed of a replicate of a method's experiment (its deals are its children under ``LABEL_TRIAL``)."""
    return derive_seed(method_seed(seed, letters), LABEL_REPLICATE, replicate)


def decks(method: str, cards: int, count: int, seed: int = DEFAULT_SEED, replicate: int = 0,
          first: int = 0) -> np.ndarray:
    """Deals ``first .. first + count - 1`` of a method's experiment (``method`` as :func:`parse_method` reads
    it): int64, shape (count, cards), the card at each position (0 on top); the decks :func:`run_experiment`
    counts."""
    letters = parse_method(method)
    return deal_decks(method_codes(letters), cards, np.uint64(replicate_seed(seed, letters, replicate)), first, count)


def uniform_by_construction(letters: str) -> bool:
    """Whether one of the steps is a uniform shuffle, which makes the whole method one (a uniform permutation
    composed with any independent permutation is uniform)."""
    return any(METHODS[letter].fair for letter in letters)


# --------------------------------------------------------------------------
# kernels: one shuffle
# --------------------------------------------------------------------------


@njit(cache=True)
def below_from_bits(bits, n):
    """``bits % n`` when ``bits`` (uint64) is not among the lowest ``2**64 mod n`` values, else -1 (rejected).

    What is left is ``2**64 - (2**64 mod n)`` values, a multiple of ``n``:
    every residue is equally likely, exactly.
    """
    modulus = np.uint64(n)
    if bits < (np.uint64(0) - modulus) % modulus:  # (2**64 - n) mod n == 2**64 mod n
        return -1
    return np.int64(bits % modulus)


@njit(cache=True)
def exact_below(seed, stream, counter, n):
    """A uniform integer in ``[0, n)``, exactly (:func:`below_from_bits` of the value at ``counter``, then the
    next ones while rejected; unlike ``autodup.bots.random_below``, which scales a double).

    Returns
    -------
    (int64, int64)
        The integer and the next unused counter (a rejection, with
        probability below ``n / 2**64``, reads one more value).
    """
    while True:
        value = below_from_bits(random_bits(seed, stream, np.uint64(counter)), n)
        counter += 1
        if value >= 0:
            return value, counter


@njit(cache=True)
def fair_bits(seed, stream, bits):
    """Fair bits ``0 .. n-1`` (``bits``: int64, shape (n,), filled): bit ``i`` is bit ``i % 64`` of the value at
    counter ``i // 64``. Returns how many are 1."""
    ones = 0
    word = np.uint64(0)
    for i in range(bits.size):
        if i & 63 == 0:
            word = random_bits(seed, stream, np.uint64(i >> 6))
        bits[i] = np.int64((word >> np.uint64(i & 63)) & np.uint64(1))
        ones += bits[i]
    return ones


@njit(cache=True)
def ideal_shuffle(deck, seed, stream):
    """Fisher-Yates in place: position ``i`` (from the bottom up) takes a uniform card of ``deck[:i + 1]``."""
    counter = 0
    for i in range(deck.size - 1, 0, -1):
        j, counter = exact_below(seed, stream, counter, i + 1)
        deck[i], deck[j] = deck[j], deck[i]


@njit(cache=True)
def random_key_shuffle(deck, seed, stream, scratch):
    """Cards sorted by a 53-bit key each (counter: the card's position), ties in their order (stable sort)."""
    n = deck.size
    keys = np.empty(n, dtype=np.uint64)
    for i in range(n):
        keys[i] = random_bits(seed, stream, np.uint64(i)) >> np.uint64(11)
    order = np.argsort(keys, kind="mergesort")
    scratch[:n] = deck
    for i in range(n):
        deck[i] = scratch[order[i]]


@njit(cache=True)
def riffle_shuffle(deck, seed, stream, scratch):
    """GSR riffle: position ``i`` takes the next card of the top packet when its fair bit is 0.

    The top packet is as many cards as there are zero bits (a
    Binomial(n, 1/2) cut), and all ``2**n`` bit strings are equally likely.
    """
    n = deck.size
    bits = scratch[n:2 * n]
    cut = n - fair_bits(seed, stream, bits)
    scratch[:n] = deck
    top, bottom = 0, cut
    for i in range(n):
        if bits[i] == 0:
            deck[i] = scratch[top]
            top += 1
        else:
            deck[i] = scratch[bottom]
            bottom += 1


@njit(cache=True)
def sleeve_riffle_shuffle(deck, seed, stream, scratch):
    """The 2020 article's riffle with sleeves, step for step (its ``quasi_riffle_shuffle``).

    The cut is the number of ones of ``n`` fair bits (counters from 0); each
    drop reads a uniform ``u`` (counters from 1 << 32) and takes the bottom
    packet's card when ``u >= left_top / (left_top + left_bottom)``. Until the
    packets first alternate, runs are free; after, a run that reached
    ``SLEEVE_RUN`` cards switches packet. The remaining cards of the packet
    left over go last, in order.
    """
    n = deck.size
    cut = fair_bits(seed, stream, scratch[n:2 * n])
    scratch[:n] = deck
    top, bottom = 0, cut
    packet, streak, free = -1, 0, True
    counter = np.uint64(1) << np.uint64(32)
    out = 0
    while top < cut and bottom < n:
        left_top, left_bottom = cut - top, n - bottom
        u = random_uniform(seed, stream, counter)
        counter += np.uint64(1)
        take_bottom = u >= left_top / (left_top + left_bottom)
        if free:
            chosen = 1 if take_bottom else 0
            if packet == 1 - chosen:  # the packets alternate for the first time: the limit starts
                free = False
                streak += 1
            packet = chosen
        else:
            if take_bottom == (packet == 1):  # the same packet again
                if streak == SLEEVE_RUN:
                    packet = 1 - packet
                    streak = 1
                else:
                    streak += 1
            else:
                packet = 1 if take_bottom else 0
                streak = 1
        if packet == 1:
            deck[out] = scratch[bottom]
            bottom += 1
        else:
            deck[out] = scratch[top]
            top += 1
        out += 1
    while top < cut:
        deck[out] = scratch[top]
        top += 1
        out += 1
    while bottom < n:
        deck[out] = scratch[bottom]
        bottom += 1
        out += 1


@njit(cache=True)
def hindu_shuffle(deck, seed, stream, scratch):
    """Packets of 7 to 12 cards (uniform; the last is what is left) from the top, stacked: the first goes last."""
    n = deck.size
    scratch[:n] = deck
    start, counter, end_of_pile = 0, 0, n
    while start < n:
        size, counter = exact_below(seed, stream, counter, HINDU_LARGEST - HINDU_SMALLEST + 1)
        stop = min(n, start + HINDU_SMALLEST + size)
        # The packet [start, stop) lands on the new pile, above everything taken before it.
        end_of_pile -= stop - start
        for i in range(stop - start):
            deck[end_of_pile + i] = scratch[start + i]
        start = stop


@njit(cache=True)
def cut_shuffle(deck, seed, stream, scratch):
    """A uniform rotation: ``r`` uniform in ``[0, n)`` and the card at ``i`` moves to ``(i + r) % n``."""
    n = deck.size
    rotation, _ = exact_below(seed, stream, 0, n)
    scratch[:n] = deck
    for i in range(n):
        deck[(i + rotation) % n] = scratch[i]


@njit(cache=True)
def shuffle_bag_shuffle(deck, seed, stream, scratch):
    """Every card drawn from a ShuffleBag holding the deck: ``next()`` swaps a uniform item of the first
    ``cursor + 1`` with the one at the cursor and returns it; the last draw takes the item left at 0."""
    n = deck.size
    bag = scratch[:n]
    bag[:] = deck
    cursor, counter = n - 1, 0
    for k in range(n):
        if cursor < 1:
            deck[k] = bag[0]
            cursor = n - 1
            continue
        grab, counter = exact_below(seed, stream, counter, cursor + 1)
        item = bag[grab]
        bag[grab] = bag[cursor]
        bag[cursor] = item
        cursor -= 1
        deck[k] = item


@njit(cache=True)
def naive_swap_shuffle(deck, seed, stream):
    """For every position ``i``, swap its card with the card at a uniform position of the whole deck."""
    n = deck.size
    counter = 0
    for i in range(n):
        j, counter = exact_below(seed, stream, counter, n)
        deck[i], deck[j] = deck[j], deck[i]


@njit(cache=True)
def shuffle_deck(deck, codes, seed, scratch):
    """Apply the steps ``codes`` (int64) to ``deck`` (int64, card at each position) in place; step ``s`` reads
    stream ``SHUFFLE_DOMAIN + s`` under ``seed``. ``scratch`` is int64 work space of at least ``2 * deck.size``."""
    for step in range(codes.size):
        stream = np.uint64(SHUFFLE_DOMAIN) + np.uint64(step)
        code = codes[step]
        if code == IDEAL:
            ideal_shuffle(deck, seed, stream)
        elif code == RANDOM_KEYS:
            random_key_shuffle(deck, seed, stream, scratch)
        elif code == RIFFLE:
            riffle_shuffle(deck, seed, stream, scratch)
        elif code == SLEEVE_RIFFLE:
            sleeve_riffle_shuffle(deck, seed, stream, scratch)
        elif code == HINDU:
            hindu_shuffle(deck, seed, stream, scratch)
        elif code == CUT:
            cut_shuffle(deck, seed, stream, scratch)
        elif code == SHUFFLE_BAG:
            shuffle_bag_shuffle(deck, seed, stream, scratch)
        else:
            naive_swap_shuffle(deck, seed, stream)


@njit(cache=True)
def deal_into(deck, codes, replicate_seed, index, scratch):
    """Deal ``index`` of a replicate into ``deck`` (int64, shape (n,)): the deck in order, then the steps
    ``codes`` from the deal's seed ``derive_seed(replicate_seed, LABEL_TRIAL, index)``."""
    for i in range(deck.size):
        deck[i] = i
    shuffle_deck(deck, codes, derive_seed_kernel(replicate_seed, LABEL_TRIAL, np.uint64(index)), scratch)


@njit(cache=True, parallel=True)
def deal_decks(codes, n, replicate_seed, first, count):
    """Decks ``first .. first + count - 1`` of a replicate: int64, shape (count, n), the card at each position
    (0 on top) after the steps ``codes``, each deck from its own address (so any slice is the same)."""
    decks = np.empty((count, n), dtype=np.int64)
    for d in prange(count):
        deal_into(decks[d], codes, replicate_seed, first + d, np.empty(2 * n, dtype=np.int64))
    return decks


# --------------------------------------------------------------------------
# kernels: what a deal's permutation says
# --------------------------------------------------------------------------


@njit(cache=True)
def count_successions(deck):
    """Positions ``i`` whose card is followed by the next card of the original order (``deck[i] + 1``)."""
    count = 0
    for i in range(deck.size - 1):
        if deck[i + 1] == deck[i] + 1:
            count += 1
    return count


@njit(cache=True)
def count_rising_sequences(position):
    """Rising sequences: 1 + the cards ``c`` found below card ``c + 1`` (``position``: each card's position)."""
    count = 1
    for card in range(position.size - 1):
        if position[card + 1] < position[card]:
            count += 1
    return count


@njit(cache=True, parallel=True)
def _play_block(codes, given, n, replicate_seed, first_run, runs, shuffles, deals, duplicate_low, duplicate_high,
                markers, marked_deals, matrices, duplicates, successions, rising, neighbours, marked):
    """Runs ``first_run .. first_run + runs - 1`` of ``shuffles`` deals each (deals below ``deals``), one per
    thread at a time.

    A deal is ``given[index]`` when ``given`` (int64, shape (deals, n)) has
    rows, else dealt by the steps ``codes`` from its address. Writes run
    ``first_run + b``'s position matrix (``matrices[b, position, card]``), its
    number of duplicates (entries in ``[duplicate_low, duplicate_high]``) and
    its histograms: successions (``[b, k]``), rising sequences (``[b, r]``)
    and the signed distance of each card ``c + 1`` from card ``c``
    (``neighbours[b, d + n - 1]``); and the positions of the ``markers``
    cards in the deals below ``marked_deals`` (``marked[deal, m]``).
    """
    for b in prange(runs):
        run = first_run + b
        matrix = matrices[b]
        matrix[:, :] = 0
        successions[b, :] = 0
        rising[b, :] = 0
        neighbours[b, :] = 0
        deck = np.empty(n, dtype=np.int64)
        position = np.empty(n, dtype=np.int64)
        scratch = np.empty(2 * n, dtype=np.int64)
        for s in range(shuffles):
            index = run * shuffles + s
            if index >= deals:
                break
            if given.shape[0]:
                deck[:] = given[index]
            else:
                deal_into(deck, codes, replicate_seed, index, scratch)
            for i in range(n):
                position[deck[i]] = i
                matrix[i, deck[i]] += 1
            successions[b, count_successions(deck)] += 1
            rising[b, count_rising_sequences(position)] += 1
            for card in range(n - 1):
                neighbours[b, position[card + 1] - position[card] + n - 1] += 1
            if index < marked_deals:
                for m in range(markers.size):
                    marked[index, m] = position[markers[m]]
        count = 0
        for i in range(n):
            for j in range(n):
                if duplicate_low <= matrix[i, j] <= duplicate_high:
                    count += 1
        duplicates[run] = count


# --------------------------------------------------------------------------
# exact laws
# --------------------------------------------------------------------------


@lru_cache(maxsize=8)
def succession_counts(n: int) -> tuple:
    """Permutations of ``n`` cards with ``k`` successions, ``k = 0 .. n-1`` (exact integers; they sum to n!).

    ``C(n-1, k) a(n-1-k)``, with ``a(0) = a(1) = 1``, ``a(m) = m a(m-1) + (m-1) a(m-2)`` (OEIS A000255).
    """
    a = [1, 1]
    for m in range(2, n):
        a.append(m * a[m - 1] + (m - 1) * a[m - 2])
    return tuple(math.comb(n - 1, k) * a[n - 1 - k] for k in range(n))


@lru_cache(maxsize=8)
def eulerian_numbers(n: int) -> tuple:
    """Permutations of ``n`` cards with ``r`` rising sequences, at index ``r`` (index 0 is 0; exact integers).

    ``A(n, d)`` permutations have ``d`` descents; ``A(n, d) = (d+1) A(n-1, d) + (n-d) A(n-1, d-1)``.
    """
    row = [1]  # n = 1: one permutation, no descent
    for size in range(2, n + 1):
        row = [(d + 1) * (row[d] if d < len(row) else 0) + (size - d) * (row[d - 1] if d >= 1 else 0)
               for d in range(size)]
    return (0, *row)


@lru_cache(maxsize=8)
def uniform_laws(n: int) -> tuple:
    """float64 arrays of a uniform permutation's laws: successions (shape (n,), index k) and rising sequences
    (shape (n + 1,), index r)."""
    factorial = math.factorial(n)
    return (np.array([float(Fraction(c, factorial)) for c in succession_counts(n)]),
            np.array([float(Fraction(c, factorial)) for c in eulerian_numbers(n)]))


def riffle_law(n: int, riffles: int) -> list:
    """P(r rising sequences) after ``riffles`` GSR riffles of ``n`` cards, as exact :class:`Fraction` s (index r).

    Bayer & Diaconis (1992): each permutation with ``r`` rising sequences
    has probability ``C(2**k + n - r, n) / 2**(k n)``.
    """
    shuffles, eulerian = 2**riffles, eulerian_numbers(n)
    denominator = shuffles**n
    return [Fraction(eulerian[r] * math.comb(shuffles + n - r, n), denominator) for r in range(n + 1)]


def riffle_distance(n: int, riffles: int) -> float:
    """Total variation distance between ``riffles`` GSR riffles of ``n`` cards and a uniform permutation (exact)."""
    shuffles, eulerian, factorial = 2**riffles, eulerian_numbers(n), math.factorial(n)
    denominator = shuffles**n
    total = sum(eulerian[r] * abs(math.comb(shuffles + n - r, n) * factorial - denominator) for r in range(1, n + 1))
    return float(Fraction(total, 2 * denominator * factorial))


def duplicate_values(cards: int, shuffles: int) -> tuple:
    """The entries a run's matrix counts as duplicates: the integers nearest ``shuffles / cards`` (2 and 3 for 100
    shuffles of 40 cards; one integer when the ratio is an integer)."""
    mean = shuffles / cards
    return math.floor(mean), math.ceil(mean)


def expected_duplicates(cards: int, shuffles: int) -> float:
    """The expected number of duplicates of any shuffle whose every card is uniform over the positions:
    ``n**2`` times P(a Binomial(shuffles, 1/n) is a duplicate value)."""
    from scipy import stats

    low, high = duplicate_values(cards, shuffles)
    values = np.arange(low, high + 1)
    return float(cards**2 * stats.binom.pmf(values, shuffles, 1.0 / cards).sum())


# --------------------------------------------------------------------------
# tests
# --------------------------------------------------------------------------


def merged_chi_square(observed, probabilities) -> float:
    """Chi-square p-value of ``observed`` counts against ``probabilities``: 0 when a category of probability 0
    was seen; else the possible categories, adjacent ones merged (left to right) until each expects at least
    :data:`MINIMUM_EXPECTED`. 1.0 when a single category is left."""
    from scipy import stats

    observed = np.asarray(observed, dtype=np.float64)
    probabilities = np.asarray(probabilities, dtype=np.float64)
    if (observed[probabilities == 0] > 0).any():  # seen where the law puts nothing: as far from it as can be
        return 0.0
    observed, expected = observed[probabilities > 0], probabilities[probabilities > 0] * observed.sum()
    groups_observed, groups_expected = [], []
    pending_observed = pending_expected = 0.0
    for seen, wanted in zip(observed, expected):
        pending_observed += seen
        pending_expected += wanted
        if pending_expected >= MINIMUM_EXPECTED:
            groups_observed.append(pending_observed)
            groups_expected.append(pending_expected)
            pending_observed = pending_expected = 0.0
    if groups_expected:
        groups_observed[-1] += pending_observed
        groups_expected[-1] += pending_expected
    if len(groups_expected) < 2:
        return 1.0
    return float(stats.chisquare(groups_observed, groups_expected, sum_check=False).pvalue)


def position_p_values(matrix: np.ndarray) -> np.ndarray:
    """The 2020 article's 2n tests: float64, shape (2n,): each card's positions (columns of ``matrix[position,
    card]``), then each position's cards (rows), against uniform."""
    from scipy import stats

    return np.concatenate([stats.chisquare(matrix, axis=0).pvalue, stats.chisquare(matrix, axis=1).pvalue])


@dataclass
class Experiment:
    """What one replicate of the experiment saw for one method (integer counts over its deals)."""

    cards: int
    runs: int
    shuffles: int
    duplicates: np.ndarray    # int64 (runs,): each run's number of duplicates
    matrix: np.ndarray        # int64 (n, n): deals with card j at position i, [i, j]
    successions: np.ndarray   # int64 (n,): deals with k successions
    rising: np.ndarray        # int64 (n + 1,): deals with r rising sequences
    neighbours: np.ndarray    # int64 (2n - 1,): pairs (c, c+1) with card c+1 at position(c) + d, [d + n - 1]
    marked: np.ndarray        # int64 (marked deals, MARKERS): the marker cards' positions
    markers: np.ndarray       # int64 (MARKERS,): the marker cards


def marker_cards(cards: int) -> np.ndarray:
    """The marker cards: ``MARKERS`` evenly spaced from the top (the aces of a 52-card deck sorted by suit)."""
    return np.unique(np.array([m * cards // MARKERS for m in range(MARKERS)], dtype=np.int64))


def run_experiment(letters: str, cards: int = DEFAULT_CARDS, runs: int = DEFAULT_RUNS,
                   shuffles: int = DEFAULT_SHUFFLES, seed: int = DEFAULT_SEED, replicate: int = 0,
                   marked_deals: int = MARKED_DEALS, deals: int | None = None) -> Experiment:
    """Deal ``runs x shuffles`` decks of ``cards`` shuffled by ``letters`` (as :func:`parse_method` reads them)
    and count.

    Deal ``d`` of replicate ``r`` has the seed ``derive_seed(derive_seed(method_seed(seed, letters),
    LABEL_REPLICATE, r), LABEL_TRIAL, d)``. Runs are played in blocks of
    ``_RUNS_PER_BLOCK``, in parallel; a Ctrl-C is heard between blocks.
    ``deals``, when given, replaces ``runs x shuffles`` (a last, shorter run is
    counted everywhere but in the duplicates).
    """
    letters = parse_method(letters)
    return _count(method_codes(letters), np.empty((0, cards), dtype=np.int64), cards,
                  runs * shuffles if deals is None else deals, shuffles,
                  np.uint64(replicate_seed(seed, letters, replicate)), marked_deals)


def count_decks(given: np.ndarray, shuffles: int = DEFAULT_SHUFFLES, marked_deals: int = MARKED_DEALS) -> Experiment:
    """Count decks dealt elsewhere (int64, shape (deals, n), each row a permutation of ``0 .. n-1``: the cards
    from top to bottom, card ``c`` having started at position ``c``) as :func:`run_experiment` counts its own.

    Runs are consecutive groups of ``shuffles`` decks; a last, shorter group
    is counted everywhere but in the duplicates (``Experiment.duplicates``
    holds the whole runs only).
    """
    given = np.ascontiguousarray(given, dtype=np.int64)
    deals, cards = given.shape
    return _count(np.empty(0, dtype=np.int64), given, cards, deals, shuffles, np.uint64(0), marked_deals)


def _count(codes, given, cards, deals, shuffles, seed_of_replicate, marked_deals) -> Experiment:
    runs = -(-deals // shuffles)
    low, high = duplicate_values(cards, shuffles)
    markers = marker_cards(cards)
    marked_deals = min(marked_deals, deals)
    block = max(1, min(runs, _RUNS_PER_BLOCK, _BLOCK_BYTES // (8 * cards * cards)))
    matrices = np.empty((block, cards, cards), dtype=np.int64)
    successions = np.empty((block, cards), dtype=np.int64)
    rising = np.empty((block, cards + 1), dtype=np.int64)
    neighbours = np.empty((block, 2 * cards - 1), dtype=np.int64)
    duplicates = np.zeros(runs, dtype=np.int64)
    marked = np.zeros((marked_deals, markers.size), dtype=np.int64)
    totals = [np.zeros((cards, cards), np.int64), np.zeros(cards, np.int64), np.zeros(cards + 1, np.int64),
              np.zeros(2 * cards - 1, np.int64)]
    for first in range(0, runs, block):
        count = min(block, runs - first)
        _play_block(codes, given, cards, seed_of_replicate, first, count, shuffles, deals, low, high, markers,
                    marked_deals, matrices, duplicates, successions, rising, neighbours, marked)
        for total, part in zip(totals, (matrices, successions, rising, neighbours)):
            total += part[:count].sum(axis=0)
    whole_runs = deals // shuffles
    return Experiment(cards, whole_runs, shuffles, duplicates[:whole_runs], *totals, marked, markers)


@dataclass
class Verdict:
    """The lab's tests of one experiment."""

    rejections: int               # of the 2n position tests, p < REJECTION_LEVEL
    position_p: float             # the smallest of the 2n p-values
    position_passed: bool
    successions_p: float
    rising_p: float
    permutation_passed: bool

    @property
    def text(self) -> str:
        failed = [what for what, passed in (("positions biased", self.position_passed),
                                            ("order not random", self.permutation_passed)) if not passed]
        return ", ".join(failed) if failed else "fair"


def judge(experiment: Experiment, alpha: float = ALPHA) -> Verdict:
    """Position and permutation tests of an experiment (see the module docstring)."""
    p_values = position_p_values(experiment.matrix)
    successions_law, rising_law = uniform_laws(experiment.cards)
    successions_p = merged_chi_square(experiment.successions, successions_law)
    rising_p = merged_chi_square(experiment.rising, rising_law)
    position_p = float(p_values.min())
    return Verdict(rejections=int((p_values < REJECTION_LEVEL).sum()), position_p=position_p,
                   position_passed=position_p >= alpha / 2 / p_values.size, successions_p=successions_p,
                   rising_p=rising_p, permutation_passed=min(successions_p, rising_p) >= alpha / 4)


def neighbour_law(cards: int) -> np.ndarray:
    """float64, shape (2n - 1,): P(card c + 1 lies d places below card c) in a uniform permutation, at
    ``d + n - 1``: ``(n - |d|) / (n (n - 1))`` for ``d != 0``."""
    distance = np.arange(-(cards - 1), cards)
    law = (cards - np.abs(distance)) / (cards * (cards - 1.0))
    law[cards - 1] = 0.0
    return law


# --------------------------------------------------------------------------
# the lab
# --------------------------------------------------------------------------


def _agreement(ours_mean, ours_sd, replicates, published):
    """Whether a published figure is one more draw of what we measured: inside the prediction interval of one
    more draw at the two-sided level of ``AGREEMENT_SIGMA`` normal sigmas, from the mean and standard deviation
    of ``replicates`` draws (Student's t with ``replicates - 1`` degrees of freedom; the normal quantile when
    ``ours_sd`` is a known standard error, ``replicates`` = 1). A spread of 0 asks for the same value."""
    from scipy import stats

    level = 2 * stats.norm.sf(AGREEMENT_SIGMA)
    quantile = AGREEMENT_SIGMA if replicates == 1 else float(stats.t.ppf(1 - level / 2, replicates - 1))
    spread = ours_sd * math.sqrt(1.0 + 1.0 / replicates)
    return bool(abs(published - ours_mean) <= max(quantile * spread, 0.5 if ours_sd == 0 else 0.0))


def one_test(matrix: np.ndarray) -> bool:
    """Whether every row and every column of a position matrix holds the same counts (a rotation's matrix): then
    its 2n tests are one test, and they reject all or none."""
    rows = np.sort(matrix, axis=1)
    columns = np.sort(matrix, axis=0)
    return bool((rows == rows[0]).all() and (columns == columns[:, :1]).all())


def _figures(experiments: list, verdict: Verdict) -> dict:
    """What the lab reports of one method or set of decks: the first experiment's figures and tests, and the
    spread of its two figures over the others (the replicates)."""
    first = experiments[0]
    cards, runs = first.cards, first.runs
    per_replicate_duplicates = np.array([e.duplicates.mean() if e.runs else np.nan for e in experiments])
    per_replicate_rejections = np.array([verdict.rejections] + [judge(e).rejections for e in experiments[1:]],
                                        dtype=np.float64)
    several = len(experiments) > 1
    return {
        "deals": int(first.successions.sum()),
        "duplicates": float(first.duplicates.mean()) if runs else None,
        "duplicates_se": float(first.duplicates.std(ddof=1) / math.sqrt(runs)) if runs > 1 else None,
        "chi2_rejections": verdict.rejections,
        "chi2_tests": 2 * cards,
        "chi2_one_test": one_test(first.matrix),
        "position_test_passed": verdict.position_passed,
        "permutation_test_passed": verdict.permutation_passed,
        "verdict": verdict.text,
        "p_values": {"positions_smallest": verdict.position_p, "successions": verdict.successions_p,
                     "rising_sequences": verdict.rising_p},
        "mean_successions": float(np.arange(cards) @ first.successions / first.successions.sum()),
        "mean_rising_sequences": float(np.arange(cards + 1) @ first.rising / first.rising.sum()),
        "replicates": {"count": len(experiments),
                       "duplicates_mean": float(per_replicate_duplicates.mean()) if runs else None,
                       "duplicates_sd": float(per_replicate_duplicates.std(ddof=1)) if several and runs else None,
                       "chi2_rejections_mean": float(per_replicate_rejections.mean()),
                       "chi2_rejections_sd": float(per_replicate_rejections.std(ddof=1)) if several else None,
                       "chi2_rejections": [int(r) for r in per_replicate_rejections]},
    }


def study_method(letters: str, cards: int = DEFAULT_CARDS, runs: int = DEFAULT_RUNS,
                 shuffles: int = DEFAULT_SHUFFLES, seed: int = DEFAULT_SEED,
                 replicates: int = DEFAULT_REPLICATES) -> tuple:
    """One method through the lab: ``(summary dict, the first replicate's Experiment)``.

    The first replicate is the experiment (its figures, tests and
    pictures); the others give the spread of its two figures, so that a
    published figure can be judged against it.
    """
    letters = parse_method(letters)
    experiments = [run_experiment(letters, cards, runs, shuffles, seed, replicate)
                   for replicate in range(replicates)]
    summary = {"letters": letters, "uniform_by_construction": uniform_by_construction(letters),
               **_figures(experiments, judge(experiments[0]))}
    if (cards, runs, shuffles) == (ARTICLE_CARDS, ARTICLE_RUNS, ARTICLE_SHUFFLES) and letters in ARTICLE_DUPLICATES:
        # The article's average has the same standard error as ours (same protocol, so runs > 1).
        summary["article"] = {
            "duplicates": ARTICLE_DUPLICATES[letters],
            "duplicates_agree": _agreement(summary["duplicates"], summary["duplicates_se"], 1,
                                           ARTICLE_DUPLICATES[letters]),
            "chi2_rejections": ARTICLE_REJECTIONS[letters],
            "chi2_rejections_agree": rejections_agree(summary, ARTICLE_REJECTIONS[letters])}
    return summary, experiments[0]


def rejections_agree(summary: dict, published: int) -> bool | None:
    """Whether a published count of rejected tests could be one more replicate of a method (its summary from
    :func:`study_method`); None without replicates to judge by.

    A method whose tests are one test rejects none or all of them, so the
    count must be 0 or all; otherwise it must lie in the prediction interval
    of :func:`_agreement` over the replicates.
    """
    if summary["chi2_one_test"]:
        return published in (0, summary["chi2_tests"])
    counts = np.array(summary["replicates"]["chi2_rejections"], dtype=np.float64)
    if counts.size < 2:
        return None
    return _agreement(counts.mean(), counts.std(ddof=1), counts.size, published)


def study_decks(source: str, decks: np.ndarray, shuffles: int = DEFAULT_SHUFFLES) -> tuple:
    """Decks dealt elsewhere (:func:`read_decks`) through the same tests: ``(summary dict, Experiment)``."""
    experiment = count_decks(decks, shuffles)
    return {"source": source, **_figures([experiment], judge(experiment))}, experiment


def read_decks(path) -> np.ndarray:
    """Decks from a file: int64, shape (deals, n), each row the cards from top to bottom after a shuffle.

    A ``.npy`` file holds the array; any other file is text, one deck per
    line, cards separated by commas or spaces (``#`` starts a comment). Card
    ``c`` is the card that started at position ``c``: numbered ``0 .. n-1``,
    or ``1 .. n`` throughout. Raises ``ValueError`` with one line naming the
    file, the line (or row) and what is wrong.
    """
    from pathlib import Path

    path = Path(path)
    if not path.is_file():
        raise ValueError(f"--decks {path}: no such file")
    if path.suffix.lower() == ".npy":
        try:
            decks = np.load(path, allow_pickle=False)
        except (OSError, ValueError, EOFError) as error:
            raise ValueError(f"--decks {path}: not a numpy array file ({first_line(error)})") from None
        if decks.ndim != 2 or not np.issubdtype(decks.dtype, np.integer):
            raise ValueError(f"--decks {path}: holds a {decks.dtype} array of shape {decks.shape} (allowed: "
                             "integers, one deck per row)")
        where, decks = f"{path}: row", decks.astype(np.int64)
        numbers = np.arange(1, decks.shape[0] + 1)
    else:
        rows, line_numbers = [], []
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), start=1):
            words = line.split("#", 1)[0].replace(",", " ").split()
            if not words:
                continue
            deck = []
            for word in words:
                try:
                    deck.append(int(word))
                except ValueError:
                    raise ValueError(f"{path}:{number}: {word!r} is not a card number (allowed: integers)") from None
            if rows and len(deck) != len(rows[0]):
                raise ValueError(f"{path}:{number}: {len(deck)} cards where the first deck has {len(rows[0])}")
            rows.append(deck)
            line_numbers.append(number)
        decks = np.array(rows, dtype=np.int64).reshape(len(rows), -1 if rows else 0)
        where, numbers = f"{path}:", line_numbers
    if decks.shape[0] == 0:
        raise ValueError(f"--decks {path}: no deck in it (allowed: one deck per line, cards separated by commas "
                         "or spaces)")
    if decks.shape[0] > MAX_DEALS:
        raise ValueError(f"--decks {path}: {decks.shape[0]:,} decks (allowed: at most {MAX_DEALS:,})")
    cards = decks.shape[1]
    if not MIN_CARDS <= cards <= MAX_CARDS:
        raise ValueError(f"{where}{numbers[0]}: a deck of {cards} cards (allowed: {MIN_CARDS} to {MAX_CARDS})")
    base = 1 if decks[0].min() == 1 else 0
    decks = decks - base
    bad = np.flatnonzero((np.sort(decks, axis=1) != np.arange(cards)).any(axis=1))
    if bad.size:
        deck = decks[bad[0]]
        outside = deck[(deck < 0) | (deck >= cards)]
        counts = np.bincount(deck[(deck >= 0) & (deck < cards)], minlength=cards)
        what = (f"card {outside[0] + base} is outside {base}..{base + cards - 1}" if outside.size else
                f"card {np.argmax(counts) + base} appears {counts.max()} times")
        raise ValueError(f"{where}{numbers[bad[0]]}: not a deck of cards {base}..{base + cards - 1}: {what}")
    return decks


def riffles_needed(cards: int = DEFAULT_CARDS, deals: int = DEFAULT_RIFFLE_DEALS, seed: int = DEFAULT_SEED,
                   max_riffles: int = MAX_RIFFLES, threshold: float = 0.5) -> dict:
    """Total variation distance to uniform after ``k = 1 .. max_riffles`` GSR riffles of ``cards``, exact and simulated.

    Returns
    -------
    dict
        ``exact`` and ``simulated`` (lists by k), ``p_values`` (chi-square of
        the simulated rising sequences against their exact law after k
        riffles), ``needed`` (the fewest riffles with distance at most
        ``threshold``, exact; None beyond ``max_riffles``), ``needed_simulated``,
        ``deals``.
    """
    exact, simulated, p_values = [], [], []
    uniform = uniform_laws(cards)[1]
    for riffles in range(1, max_riffles + 1):
        exact.append(riffle_distance(cards, riffles))
        if deals:
            experiment = run_experiment("G" * riffles, cards, seed=seed, marked_deals=0, deals=deals)
            share = experiment.rising / experiment.rising.sum()
            simulated.append(float(np.abs(share - uniform).sum() / 2))
            p_values.append(merged_chi_square(experiment.rising, [float(p) for p in riffle_law(cards, riffles)]))

    def first_below(values):
        return next((k + 1 for k, value in enumerate(values) if value <= threshold), None)

    return {"cards": cards, "threshold": threshold, "exact": exact, "simulated": simulated or None,
            "p_values": p_values or None, "needed": first_below(exact),
            "needed_simulated": first_below(simulated) if simulated else None,
            "deals": deals}


def check_lab(cards: int, runs: int, shuffles: int, replicates: int, riffle_deals: int) -> None:
    """``ValueError`` (one line naming the option) for sizes the lab cannot use."""
    if not MIN_CARDS <= cards <= MAX_CARDS:
        raise ValueError(f"--cards {cards} is out of range (allowed: {MIN_CARDS} to {MAX_CARDS})")
    if runs < 1 or shuffles < 1:
        raise ValueError(f"--runs and --shuffles must be at least 1 (got {runs} and {shuffles})")
    if runs * shuffles > MAX_DEALS:
        raise ValueError(f"--runs x --shuffles is {runs * shuffles:,} deals (allowed: at most {MAX_DEALS:,})")
    if replicates < 1:
        raise ValueError(f"--replicates must be at least 1 (got {replicates})")
    if not 0 <= riffle_deals <= MAX_DEALS:
        raise ValueError(f"--riffle-deals {riffle_deals} is out of range (allowed: 0 to {MAX_DEALS:,})")


def shuffle_lab(methods: dict, cards: int = DEFAULT_CARDS, runs: int = DEFAULT_RUNS,
                shuffles: int = DEFAULT_SHUFFLES, seed: int = DEFAULT_SEED, replicates: int = DEFAULT_REPLICATES,
                riffle_deals: int = DEFAULT_RIFFLE_DEALS, progress=None, given: dict | None = None) -> tuple:
    """Every method through the lab, then decks dealt elsewhere, and the riffles needed for 40 and 52 cards
    (and ``cards``).

    Parameters
    ----------
    methods : dict
        ``{name: letters}`` (:func:`parse_methods`).
    progress : callable, optional
        Called with each method's name before it is played.
    given : dict, optional
        ``{name: (source, decks)}``: decks dealt elsewhere (:func:`read_decks`), of ``cards`` cards, put
        through the same tests; the simulated methods are their control group.

    Returns
    -------
    (dict, dict)
        The result (JSON-ready: ``{"methods": {name: {...}}, "riffles": {...}, ...}``)
        and ``{name: Experiment}`` of the first replicates (for the pictures).
    """
    check_lab(cards, runs, shuffles, replicates, riffle_deals)
    seed = check_seed(seed)
    result = {"cards": cards, "runs": runs, "shuffles": shuffles, "deals": runs * shuffles, "seed": seed,
              "replicates": replicates, "alpha": ALPHA, "rejection_level": REJECTION_LEVEL,
              "duplicate_values": list(duplicate_values(cards, shuffles)),
              "expected_duplicates_uniform": expected_duplicates(cards, shuffles), "methods": {}}
    experiments = {}
    for name, letters in methods.items():
        if progress:
            progress(name)
        result["methods"][name], experiments[name] = study_method(letters, cards, runs, shuffles, seed, replicates)
    for name, (source, decks) in (given or {}).items():
        if decks.shape[1] != cards:
            raise ValueError(f"--decks {source}: decks of {decks.shape[1]} cards, the lab's are {cards}")
        if progress:
            progress(name)
        result["methods"][name], experiments[name] = study_decks(source, decks, shuffles)
    # A position test's chi-square wants about 5 deals per cell; its p-values, and the verdict's error rate, are
    # rough below that.
    result["warnings"] = [f"{name}: {method['deals']:,} deals of {cards} cards, fewer than 5 per cell of a position "
                          "test: its p-values are rough"
                          for name, method in result["methods"].items() if method["deals"] < MINIMUM_EXPECTED * cards]
    deck_sizes = sorted(set(RIFFLE_DECKS) | {cards})
    if progress and riffle_deals:
        progress("riffles")
    # About 1.5 log2(n) riffles mix n cards (Bayer & Diaconis): every deck's table reaches past it.
    most = max(MAX_RIFFLES, max(math.ceil(1.5 * math.log2(n)) + 3 for n in deck_sizes))
    result["riffles"] = {str(n): riffles_needed(n, riffle_deals, seed, most) for n in deck_sizes}
    return result, experiments
