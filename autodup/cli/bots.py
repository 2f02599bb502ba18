"""``autodup bots``: the shipped bots with their descriptions."""

from __future__ import annotations

from .options import print_json

__all__ = ["add_arguments", "run"]


def add_arguments(parser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON")


def run(args) -> int:
    from .. import api

    listing = api.list_bots()
    if args.json:
        print_json(listing, safe=False)
        return 0
    width = max(len(entry["name"]) for entry in listing)
    for entry in listing:
        print(f"{entry['name']:<{width}}  {entry['description']}")
    return 0
