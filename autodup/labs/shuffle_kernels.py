"""The shuffle lab's methods by name and their jitted kernels: one shuffle, and what a deal's permutation says."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from ..engine.rng import (
    LABEL_METHOD,
    LABEL_REPLICATE,
    LABEL_TRIAL,
    MAX_SHUFFLE_STEPS,
    SHUFFLE_DOMAIN,
    check_seed,
    derive_seed,
    derive_seed_kernel,
    random_bits,
    random_uniform,
)
from ..errors import UsageError

__all__ = ["DEFAULT_SEED", "DEFAULT_CARDS", "DEFAULT_RUNS", "DEFAULT_SHUFFLES", "DEFAULT_REPLICATES",
           "DEFAULT_RIFFLE_DEALS", "MIN_CARDS", "MAX_CARDS", "MAX_DEALS", "ALPHA", "REJECTION_LEVEL",
           "AGREEMENT_SIGMA", "MARKED_DEALS", "MARKERS", "RIFFLE_DECKS", "MAX_RIFFLES", "MINIMUM_EXPECTED",
           "SLEEVE_RUN", "HINDU_SMALLEST", "HINDU_LARGEST", "RUNS_PER_BLOCK", "BLOCK_BYTES", "IDEAL", "RANDOM_KEYS",
           "RIFFLE", "SLEEVE_RIFFLE", "HINDU", "CUT", "SHUFFLE_BAG", "NAIVE_SWAP", "ShuffleMethod", "METHODS",
           "DEFAULT_METHODS", "ARTICLE_CARDS", "ARTICLE_RUNS", "ARTICLE_SHUFFLES", "ARTICLE_DUPLICATES",
           "ARTICLE_REJECTIONS", "parse_method", "parse_methods", "method_codes", "method_seed", "replicate_seed",
           "decks", "uniform_by_construction", "below_from_bits", "exact_below", "fair_bits", "ideal_shuffle",
           "random_key_shuffle", "riffle_shuffle", "sleeve_riffle_shuffle", "hindu_shuffle", "cut_shuffle",
           "shuffle_bag_shuffle", "naive_swap_shuffle", "shuffle_deck", "deal_into", "deal_decks",
           "count_successions", "count_rising_sequences", "play_block"]

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
RUNS_PER_BLOCK = 64      # runs played in parallel at once (each holds an n x n matrix) ...
BLOCK_BYTES = 64 << 20   # ... within this much memory for the matrices

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
        raise UsageError("a method is empty (write letters like RRH or G7)")
    parts = re.findall(r"([A-Z])(\d*)|(.)", written)
    letters = []
    for letter, count, other in parts:
        if other or letter not in METHODS:
            bad = other or letter
            allowed = ", ".join(f"{m.letter} ({m.name})" for m in METHODS.values())
            raise UsageError(f"{bad!r} in {text!r} is not a shuffle (allowed: {allowed}; a sequence like RRH or G7)")
        repeat = int(count) if count else 1
        if repeat < 1:
            raise UsageError(f"{text!r} repeats {letter} {repeat} times (a count is at least 1)")
        letters.append(letter * min(repeat, MAX_SHUFFLE_STEPS + 1))
    expanded = "".join(letters)
    if len(expanded) > MAX_SHUFFLE_STEPS:
        raise UsageError(f"{text!r} has more than {MAX_SHUFFLE_STEPS} shuffles (allowed: 1 to {MAX_SHUFFLE_STEPS})")
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
            raise UsageError(f"lists {name} twice (as {[k for k, v in methods.items() if v == letters][0]})", "methods")
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


@njit(cache=True, no_cfunc_wrapper=True)
def below_from_bits(bits, n):
    """``bits % n`` when ``bits`` (uint64) is not among the lowest ``2**64 mod n`` values, else -1 (rejected).

    What is left is ``2**64 - (2**64 mod n)`` values, a multiple of ``n``:
    every residue is equally likely, exactly.
    """
    modulus = np.uint64(n)
    if bits < (np.uint64(0) - modulus) % modulus:  # (2**64 - n) mod n == 2**64 mod n
        return -1
    return np.int64(bits % modulus)


@njit(cache=True, no_cfunc_wrapper=True)
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


@njit(cache=True, no_cfunc_wrapper=True)
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


@njit(cache=True, no_cfunc_wrapper=True)
def ideal_shuffle(deck, seed, stream):
    """Fisher-Yates in place: position ``i`` (from the bottom up) takes a uniform card of ``deck[:i + 1]``."""
    counter = 0
    for i in range(deck.size - 1, 0, -1):
        j, counter = exact_below(seed, stream, counter, i + 1)
        deck[i], deck[j] = deck[j], deck[i]


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def _copy_cards(source, target):
    """``target[:source.size] = source``, card by card: for an array assigned to a slice, numba compiles the
    message of its shape error (f-strings, ``str``), several seconds of the lab's cold start."""
    for i in range(source.size):
        target[i] = source[i]


@njit(cache=True, no_cfunc_wrapper=True)
def random_key_shuffle(deck, seed, stream, scratch):
    """Cards sorted by a 53-bit key each (counter: the card's position), ties in their order (stable sort)."""
    n = deck.size
    keys = np.empty(n, dtype=np.uint64)
    for i in range(n):
        keys[i] = random_bits(seed, stream, np.uint64(i)) >> np.uint64(11)
    order = np.argsort(keys, kind="mergesort")
    _copy_cards(deck, scratch)
    for i in range(n):
        deck[i] = scratch[order[i]]


@njit(cache=True, no_cfunc_wrapper=True)
def riffle_shuffle(deck, seed, stream, scratch):
    """GSR riffle: position ``i`` takes the next card of the top packet when its fair bit is 0.

    The top packet is as many cards as there are zero bits (a
    Binomial(n, 1/2) cut), and all ``2**n`` bit strings are equally likely.
    """
    n = deck.size
    bits = scratch[n:2 * n]
    cut = n - fair_bits(seed, stream, bits)
    _copy_cards(deck, scratch)
    top, bottom = 0, cut
    for i in range(n):
        if bits[i] == 0:
            deck[i] = scratch[top]
            top += 1
        else:
            deck[i] = scratch[bottom]
            bottom += 1


@njit(cache=True, no_cfunc_wrapper=True)
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
    _copy_cards(deck, scratch)
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


@njit(cache=True, no_cfunc_wrapper=True)
def hindu_shuffle(deck, seed, stream, scratch):
    """Packets of 7 to 12 cards (uniform; the last is what is left) from the top, stacked: the first goes last."""
    n = deck.size
    _copy_cards(deck, scratch)
    start, counter, end_of_pile = 0, 0, n
    while start < n:
        size, counter = exact_below(seed, stream, counter, HINDU_LARGEST - HINDU_SMALLEST + 1)
        stop = min(n, start + HINDU_SMALLEST + size)
        # The packet [start, stop) lands on the new pile, above everything taken before it.
        end_of_pile -= stop - start
        for i in range(stop - start):
            deck[end_of_pile + i] = scratch[start + i]
        start = stop


@njit(cache=True, no_cfunc_wrapper=True)
def cut_shuffle(deck, seed, stream, scratch):
    """A uniform rotation: ``r`` uniform in ``[0, n)`` and the card at ``i`` moves to ``(i + r) % n``."""
    n = deck.size
    rotation, _ = exact_below(seed, stream, 0, n)
    _copy_cards(deck, scratch)
    for i in range(n):
        deck[(i + rotation) % n] = scratch[i]


@njit(cache=True, no_cfunc_wrapper=True)
def shuffle_bag_shuffle(deck, seed, stream, scratch):
    """Every card drawn from a ShuffleBag holding the deck: ``next()`` swaps a uniform item of the first
    ``cursor + 1`` with the one at the cursor and returns it; the last draw takes the item left at 0."""
    n = deck.size
    bag = scratch[:n]
    _copy_cards(deck, bag)
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


@njit(cache=True, no_cfunc_wrapper=True)
def naive_swap_shuffle(deck, seed, stream):
    """For every position ``i``, swap its card with the card at a uniform position of the whole deck."""
    n = deck.size
    counter = 0
    for i in range(n):
        j, counter = exact_below(seed, stream, counter, n)
        deck[i], deck[j] = deck[j], deck[i]


@njit(cache=True, no_cfunc_wrapper=True)
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


@njit(cache=True, no_cfunc_wrapper=True)
def deal_into(deck, codes, replicate_seed, index, scratch):
    """Deal ``index`` of a replicate into ``deck`` (int64, shape (n,)): the deck in order, then the steps
    ``codes`` from the deal's seed ``derive_seed(replicate_seed, LABEL_TRIAL, index)``."""
    for i in range(deck.size):
        deck[i] = i
    shuffle_deck(deck, codes, derive_seed_kernel(replicate_seed, LABEL_TRIAL, np.uint64(index)), scratch)


@njit(cache=True, no_cfunc_wrapper=True, parallel=True)
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


@njit(cache=True, no_cfunc_wrapper=True)
def count_successions(deck):
    """Positions ``i`` whose card is followed by the next card of the original order (``deck[i] + 1``)."""
    count = 0
    for i in range(deck.size - 1):
        if deck[i + 1] == deck[i] + 1:
            count += 1
    return count


@njit(cache=True, no_cfunc_wrapper=True)
def count_rising_sequences(position):
    """Rising sequences: 1 + the cards ``c`` found below card ``c + 1`` (``position``: each card's position)."""
    count = 1
    for card in range(position.size - 1):
        if position[card + 1] < position[card]:
            count += 1
    return count


@njit(cache=True, no_cfunc_wrapper=True, parallel=True)
def play_block(codes, given, n, replicate_seed, first_run, runs, shuffles, deals, duplicate_low, duplicate_high,
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
    if given.shape[0] and given.shape[1] != n:
        raise ValueError("play_block: the given decks do not hold n cards")
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
                _copy_cards(given[index], deck)
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
