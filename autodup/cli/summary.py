"""``autodup summary``: the summary of a run folder, read from its chunks (checked) without writing anything."""

from __future__ import annotations

__all__ = ["add_arguments", "run"]


def add_arguments(parser) -> None:
    parser.add_argument("out", metavar="FOLDER", help="a run folder (what `autodup run` printed)")
    parser.add_argument("--json", action="store_true", help="print JSON")


def run(args) -> int:
    from .. import api
    from .run import print_summary

    results = api.open_results(args.out)
    print_summary(results, results.summary(), args.json)
    return 0
