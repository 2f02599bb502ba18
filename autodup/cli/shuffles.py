"""``autodup shuffles``: the shuffle lab. Is a deck shuffle fair? The 2020 article's two tests reproduced,
the permutation tests they miss, and the riffles a deck needs."""

from __future__ import annotations

import argparse

from .options import count, integer_between, positive_int, print_json, seed, warn

__all__ = ["add_arguments", "run"]


def _methods(text: str) -> str:
    from ..labs.shuffle_kernels import parse_methods

    try:
        parse_methods(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def add_arguments(parser) -> None:
    from ..labs import shuffle_kernels as shuffles

    letters = ", ".join(f"{m.letter} {m.name}" for m in shuffles.METHODS.values())
    parser.add_argument("--methods", type=_methods, help=f"comma-separated; each a sequence of shuffles applied left "
                        f"to right, like RRH or G7 ({letters}; default: {','.join(shuffles.DEFAULT_METHODS)}, or S "
                        "with --decks)")
    parser.add_argument("--cards", type=integer_between(shuffles.MIN_CARDS, shuffles.MAX_CARDS),
                        help=f"cards in the deck (default: {shuffles.DEFAULT_CARDS}, or the size of the --decks)")
    parser.add_argument("--decks", action="append", metavar="FILE", help="decks dealt by your own shuffle, put "
                        "through the same tests (the simulated methods are the control: default S): one deck per "
                        "line, cards 0..n-1 (or 1..n) from top to bottom, card c having started at position c; or a "
                        ".npy array; repeated for several files")
    parser.add_argument("--runs", type=positive_int, help=f"runs per method (default: {shuffles.DEFAULT_RUNS}; with "
                        "--decks, as many as the largest file fills, so that the control has as many deals)")
    parser.add_argument("--shuffles", type=positive_int, default=shuffles.DEFAULT_SHUFFLES, help="deals per run")
    parser.add_argument("--replicates", type=positive_int, default=shuffles.DEFAULT_REPLICATES,
                        help="repetitions of the whole experiment, for the spread of its figures (with too few to "
                        "judge the article's rejection counts, the table says it cannot, and how many it needs)")
    parser.add_argument("--riffle-deals", type=count, default=shuffles.DEFAULT_RIFFLE_DEALS,
                        help="simulated deals per number of GSR riffles (0: exact figures only)")
    parser.add_argument("--seed", type=seed, default=shuffles.DEFAULT_SEED, help="the lab's seed")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--out", metavar="DIR", help="write shuffles.html, its pictures (PNG) and shuffles.json here")


def run(args) -> int:
    from .. import api

    lab = api.shuffles(methods=args.methods, cards=args.cards, decks=args.decks or (), runs=args.runs,
                       shuffles=args.shuffles, replicates=args.replicates, riffle_deals=args.riffle_deals,
                       seed=args.seed, out=args.out, progress=True, warn=warn)
    print_json(lab.data, safe=False) if args.json else print(lab.text)
    return 0
