"""The shuffle lab: is a deck shuffle fair? Seed 003's protocol, permutation tests, riffles needed."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from ..arguments import integer
from ..engine.rng import check_seed
from ..errors import UsageError, first_line
from ..files import special_file_kind
from .shuffle_kernels import (
    AGREEMENT_SIGMA,
    ALPHA,
    ARTICLE_CARDS,
    ARTICLE_DUPLICATES,
    ARTICLE_REJECTIONS,
    ARTICLE_RUNS,
    ARTICLE_SHUFFLES,
    DEFAULT_CARDS,
    DEFAULT_REPLICATES,
    DEFAULT_RIFFLE_DEALS,
    DEFAULT_RUNS,
    DEFAULT_SEED,
    DEFAULT_SHUFFLES,
    MAX_CARDS,
    MAX_DEALS,
    MAX_RIFFLES,
    MIN_CARDS,
    MINIMUM_EXPECTED,
    REJECTION_LEVEL,
    RIFFLE_DECKS,
    parse_method,
    uniform_by_construction,
)
from .shuffle_laws import (
    Verdict,
    count_decks,
    duplicate_values,
    expected_duplicates,
    judge,
    merged_chi_square,
    riffle_distance,
    riffle_law,
    run_experiment,
    uniform_laws,
)

__all__ = ["CANNOT_JUDGE", "one_test", "study_method", "replicates_needed", "rejections_replicates_needed",
           "rejections_agree", "duplicates_agree", "agreement_verdict", "study_decks", "read_decks",
           "riffles_needed", "check_lab", "shuffle_lab"]

# What the lab says of a published figure it has too little to judge against (not "ok", not "differs").
CANNOT_JUDGE = "cannot judge"

# --------------------------------------------------------------------------


def _half_width(replicates: int, sd: float) -> float:
    """Half the width of :func:`_agreement`'s prediction interval of one more draw."""
    from scipy import stats

    level = 2 * stats.norm.sf(AGREEMENT_SIGMA)
    quantile = AGREEMENT_SIGMA if replicates == 1 else float(stats.t.ppf(1 - level / 2, replicates - 1))
    return quantile * sd * math.sqrt(1.0 + 1.0 / replicates)


def _agreement(ours_mean, ours_sd, replicates, published):
    """Whether a published figure is one more draw of what we measured: inside the prediction interval of one
    more draw at the two-sided level of ``AGREEMENT_SIGMA`` normal sigmas, from the mean and standard deviation
    of ``replicates`` draws (Student's t with ``replicates - 1`` degrees of freedom; the normal quantile when
    ``ours_sd`` is a known standard error, ``replicates`` = 1). A spread of 0 asks for the same value."""
    return bool(abs(published - ours_mean) <= max(_half_width(replicates, ours_sd), 0.5 if ours_sd == 0 else 0.0))


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
        duplicates = duplicates_agree(summary, ARTICLE_DUPLICATES[letters])
        rejections = rejections_agree(summary, ARTICLE_REJECTIONS[letters])
        # The flags stay (True, False or None); the verdicts say the same in words, "cannot judge" included.
        summary["article"] = {
            "duplicates": ARTICLE_DUPLICATES[letters],
            "duplicates_agree": duplicates,
            "duplicates_verdict": agreement_verdict(duplicates),
            "chi2_rejections": ARTICLE_REJECTIONS[letters],
            "chi2_rejections_agree": rejections,
            "chi2_rejections_verdict": agreement_verdict(rejections),
            "chi2_rejections_replicates_needed": rejections_replicates_needed(summary)}
    return summary, experiments[0]


@lru_cache(maxsize=None)
def replicates_needed(tests: int) -> int:
    """The fewest replicates from which :func:`rejections_agree` judges a count of rejected tests out of ``tests``.

    A count is an integer, so replicates that are not all equal have a
    sample standard deviation of at least ``1 / sqrt(r)`` (``r - 1`` equal
    counts and one off by 1), and :func:`rejections_agree` takes ``r`` equal
    counts as that spread, not as none. Below the number returned, the
    prediction interval of one more replicate is wider than half the range
    ``0 .. tests`` even at that narrowest spread, because Student's t at the
    lab's level (``AGREEMENT_SIGMA`` sigmas) is 93,685 with 1 degree of
    freedom and 384 with 2. So with a mean mid-range no count at all could lie
    outside it, and a real spread only widens it: "ok" would say nothing and
    "differs" could come only from a spread taken as 0. For 80 tests this is
    4: 3 replicates give at least ±256, 4 give ±38 (±154 at a fair shuffle's
    spread of about 2).
    """
    tests = int(tests)
    if tests < 1:
        raise ValueError(f"tests: {tests} (allowed: at least 1)")
    replicates = 2
    # The half-width falls towards AGREEMENT_SIGMA / sqrt(r), so the loop ends (at 11 for the 6 tests of 3 cards).
    while _half_width(replicates, 1.0 / math.sqrt(replicates)) >= tests / 2:
        replicates += 1
    return replicates


def rejections_replicates_needed(summary: dict) -> int:
    """The replicates :func:`rejections_agree` needs to judge a method (its summary from :func:`study_method`):
    1 when its tests are one test (0 or all is then a fact of the matrix, not a spread), else
    :func:`replicates_needed`."""
    return 1 if summary["chi2_one_test"] else replicates_needed(summary["chi2_tests"])


def rejections_agree(summary: dict, published: int) -> bool | None:
    """Whether a published count of rejected tests could be one more replicate of a method (its summary from
    :func:`study_method`); None (cannot judge) with fewer replicates than :func:`rejections_replicates_needed`.

    A method whose tests are one test rejects none or all of them, so the
    count must be 0 or all; otherwise it must lie in the prediction interval
    of :func:`_agreement` over the replicates, their standard deviation taken
    as at least ``1 / sqrt(r)``.
    """
    if summary["chi2_one_test"]:
        return published in (0, summary["chi2_tests"])
    counts = np.array(summary["replicates"]["chi2_rejections"], dtype=np.float64)
    if counts.size < replicates_needed(summary["chi2_tests"]):
        return None
    # Equal counts (sd 0) say only that the spread is below the finest a few integers can show, 1 / sqrt(r) (any
    # other sd is at least that): two replicates of a fair shuffle's count are equal one time in 7, three one in
    # 40. Taken as 0, that spread would call every other count a difference. A count pinned at a bound (every
    # test rejects, every time) still tells a far count apart: ±3 at 10 replicates, ±1.4 at 20.
    spread = max(float(counts.std(ddof=1)), 1.0 / math.sqrt(counts.size))
    return _agreement(counts.mean(), spread, counts.size, published)


def duplicates_agree(summary: dict, published: float) -> bool | None:
    """Whether a published number of duplicates agrees with a method's (its summary from :func:`study_method`);
    None without a standard error (a single run).

    Judged at any number of replicates: the standard error comes from the
    runs of the first replicate (500 in the article's protocol), not from the
    replicates, so it does not share the rejection count's weakness. The
    article's average has the same standard error as ours (same protocol), so
    their difference has ``sqrt(2)`` of them (:func:`_agreement` with 1 draw).
    """
    if summary["duplicates_se"] is None:
        return None
    return _agreement(summary["duplicates"], summary["duplicates_se"], 1, published)


def agreement_verdict(flag: bool | None) -> str:
    """A flag of :func:`rejections_agree` or :func:`duplicates_agree` in words: ``"ok"``, ``"differs"`` or
    :data:`CANNOT_JUDGE`."""
    return CANNOT_JUDGE if flag is None else ("ok" if flag else "differs")


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
    if path.is_dir():
        raise UsageError(f"{path}: a folder, not a file of decks", "decks")
    kind = special_file_kind(path)
    if kind is not None:
        raise UsageError(f"{path}: not a regular file ({kind}) (allowed: a file of decks)", "decks")
    if not path.is_file():
        raise UsageError(f"{path}: no such file", "decks")
    if path.suffix.lower() == ".npy":
        try:
            decks = np.load(path, allow_pickle=False)
        except (OSError, ValueError, EOFError) as error:
            raise UsageError(f"{path}: not a numpy array file ({first_line(error)})", "decks") from None
        if decks.ndim != 2 or not np.issubdtype(decks.dtype, np.integer):
            raise UsageError(f"{path}: holds a {decks.dtype} array of shape {decks.shape} (allowed: "
                             "integers, one deck per row)", "decks")
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
                    card = int(word)
                except ValueError:
                    raise UsageError(f"{path}:{number}: {word!r} is not a card number (allowed: integers)") from None
                if not -2**63 <= card < 2**63:  # checked here: it would overflow the int64 array
                    raise UsageError(f"{path}:{number}: card {card} is outside every deck the lab takes (allowed: "
                                     f"cards 0 to {MAX_CARDS})")
                deck.append(card)
            if rows and len(deck) != len(rows[0]):
                raise UsageError(f"{path}:{number}: {len(deck)} cards where the first deck has {len(rows[0])}")
            rows.append(deck)
            line_numbers.append(number)
        decks = np.array(rows, dtype=np.int64).reshape(len(rows), -1 if rows else 0)
        where, numbers = f"{path}:", line_numbers
    if decks.shape[0] == 0:
        raise UsageError(f"{path}: no deck in it (allowed: one deck per line, cards separated by commas "
                         "or spaces)", "decks")
    if decks.shape[0] > MAX_DEALS:
        raise UsageError(f"{path}: {decks.shape[0]:,} decks (allowed: at most {MAX_DEALS:,})", "decks")
    cards = decks.shape[1]
    if not MIN_CARDS <= cards <= MAX_CARDS:
        raise UsageError(f"{where}{numbers[0]}: a deck of {cards} cards (allowed: {MIN_CARDS} to {MAX_CARDS})")
    base = 1 if decks[0].min() == 1 else 0
    decks = decks - base
    bad = np.flatnonzero((np.sort(decks, axis=1) != np.arange(cards)).any(axis=1))
    if bad.size:
        deck = decks[bad[0]]
        outside = deck[(deck < 0) | (deck >= cards)]
        counts = np.bincount(deck[(deck >= 0) & (deck < cards)], minlength=cards)
        what = (f"card {outside[0] + base} is outside {base}..{base + cards - 1}" if outside.size else
                f"card {np.argmax(counts) + base} appears {counts.max()} times")
        raise UsageError(f"{where}{numbers[bad[0]]}: not a deck of cards {base}..{base + cards - 1}: {what}")
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
    """A :class:`~autodup.errors.UsageError` (one line naming the argument) for sizes the lab cannot use."""
    integer("cards", cards, MIN_CARDS, MAX_CARDS)
    integer("runs", runs, 1, MAX_DEALS)
    integer("shuffles", shuffles, 1, MAX_DEALS)
    if runs * shuffles > MAX_DEALS:
        raise UsageError(f"runs x shuffles is {runs * shuffles:,} deals (allowed: at most {MAX_DEALS:,})")
    integer("replicates", replicates, 1)
    integer("riffle_deals", riffle_deals, 0, MAX_DEALS)


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
            raise UsageError(f"{source}: decks of {decks.shape[1]} cards, the lab's are {cards}", "decks")
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
