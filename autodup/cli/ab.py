"""``autodup ab``: play the same boards under a base configuration and a variant and report the change's
effect on bots, champions and traits, with CIs (ab.json, report.html)."""

from __future__ import annotations

from .comparison_options import add_comparison_options, comparison_arguments
from .options import add_config, print_json

__all__ = ["add_arguments", "run"]


def add_arguments(parser) -> None:
    add_config(parser, "base", "the base configuration")
    parser.add_argument("variant", nargs="?", help="the variant's YAML file (default: a copy of the base, edited by "
                        "--set)")
    parser.add_argument("--set", action="append", default=[], metavar="PATH=VALUE", dest="settings",
                        help="edit the variant at a dotted field path (as `autodup check` names fields; list items "
                        "count from 0: tiers.3 is the fourth tier), the value read as YAML, e.g. "
                        "levels.8.odds=[10,15,35,30,10] (repeatable)")
    add_comparison_options(parser)


def run(args) -> int:
    from .. import api

    report = api.ab(args.base, args.variant, settings=args.settings, **comparison_arguments(args))
    print_json(report.data) if args.json else print(report.text)
    return 0
