"""``autodup quality``: play the same boards under each dealer and the independent control, and measure
duplication: cross-table correlation, correctness, luck removed (quality.json, report.html)."""

from __future__ import annotations

from .options import (
    add_config,
    add_execution_options,
    add_value_option,
    bot_parameters,
    bots_help,
    count_up_to,
    note,
    print_json,
    seed,
    warn,
)

__all__ = ["add_arguments", "run", "print_report"]

def add_arguments(parser) -> None:
    from ..analysis.quality import DEFAULT_QUALITY_DEALERS
    from ..api.comparisons import DEFAULT_QUALITY_BOARDS
    from ..api.tournaments import RUN_SEED
    from ..arguments import MAX_BOARDS

    add_config(parser)
    parser.add_argument("--bots", help=bots_help(least=2))
    parser.add_argument("--boards", type=count_up_to(MAX_BOARDS), default=DEFAULT_QUALITY_BOARDS,
                        help="boards played under each dealer and under the control")
    parser.add_argument("--dealers", default=",".join(DEFAULT_QUALITY_DEALERS),
                        help="duplicate dealers to measure, comma-separated (the control, independent, is always "
                        "played)")
    parser.add_argument("--seed", type=seed, default=RUN_SEED, help="tournament seed")
    parser.add_argument("--no-null-check", action="store_true", help="do not play the null check (the roster with "
                        "its last bot replaced by a copy of the first, whose difference must look like noise)")
    parser.add_argument("--no-ladder", action="store_true", help="play only each dealer's run and the control's "
                        "with the default design and events (not the ladder's: events by position, paired seating)")
    parser.add_argument("--out", help="output folder: runs/, traces/, quality.json, report.html (default: "
                        "quality/<config>-<boards>b-seed<seed>-<bots>, then -value<hash> with a value)")
    add_value_option(parser)
    add_execution_options(parser, "print quality.json")


def run(args) -> int:
    from .. import api

    report = api.quality(args.config, bots=args.bots, boards=args.boards, dealers=args.dealers,
                         seed=args.seed, ladder=not args.no_ladder, null_check=not args.no_null_check,
                         out=args.out, workers=args.workers,
                         backend=args.backend, ray_address=args.ray_address, game_timeout=args.game_timeout,
                         progress=not args.quiet, warn=warn, note=note, value=args.value,
                         **bot_parameters(args))
    print_report(report, args.json)
    return 0


def print_report(report, as_json: bool) -> None:
    print_json(report.data) if as_json else print(report.text)
