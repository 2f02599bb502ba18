"""``autodup sweep``: play the base and one variant per value of --set on the same boards and plot each bot's
effect curve with CIs (sweep.json, sweep.png, report.html)."""

from __future__ import annotations

from .comparison_options import add_comparison_options, comparison_arguments
from .options import add_config, print_json

__all__ = ["add_arguments", "run"]


def add_arguments(parser) -> None:
    add_config(parser, "base", "the base configuration")
    parser.add_argument("--set", action="append", default=[], metavar="PATH=V1,V2,...", dest="settings",
                        required=True, help="the field swept and its values, read as one YAML flow list (so "
                        "levels.8.odds=[10,15,35,30,10],[16,20,35,25,4] sweeps two lists); repeated, the paths "
                        "change together, value by value")
    add_comparison_options(parser)


def run(args) -> int:
    from .. import api

    report = api.sweep(args.base, args.settings, **comparison_arguments(args))
    print_json(report.data) if args.json else print(report.text)
    return 0
