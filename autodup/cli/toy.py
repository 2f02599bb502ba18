"""``autodup toy``: the seed article's toy example (Figs. 1-5 and keyed)."""

from __future__ import annotations

from .options import count_up_to, print_json, seed

__all__ = ["add_arguments", "run"]


def add_arguments(parser) -> None:
    from ..labs.toy import DEFAULT_SEED, DEFAULT_TRIALS, MAX_TRIALS

    parser.add_argument("--trials", type=count_up_to(MAX_TRIALS), default=DEFAULT_TRIALS,
                        help="paired games per system")
    parser.add_argument("--seed", type=seed, default=DEFAULT_SEED, help="root seed")
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")


def run(args) -> int:
    from .. import api

    result = api.toy(trials=args.trials, seed=args.seed)
    print_json(result.data, safe=False) if args.json else print(result.text)
    return 0
