"""The options ``autodup ab`` and ``autodup sweep`` share: what is played and how."""

from __future__ import annotations

from .options import (
    add_execution_options,
    add_value_option,
    bot_parameters,
    bots_help,
    count_up_to,
    events_help,
    note,
    seed,
    warn,
    width,
)

__all__ = ["add_comparison_options", "comparison_arguments"]


def add_comparison_options(parser) -> None:
    from ..analysis.ab import DEFAULT_UNTIL_CI_BOARDS
    from ..api.tournaments import DEFAULT_BOARDS, RUN_SEED
    from ..arguments import MAX_BOARDS
    from ..engine.dealers import DEFAULT_DEALER, dealers_help
    from ..game.boards import DEFAULT_DESIGN, RUN_DESIGNS
    from ..game.rules import DEFAULT_EVENTS

    parser.add_argument("--bots", help=bots_help())
    parser.add_argument("--boards", type=count_up_to(MAX_BOARDS), help="boards played under each configuration "
                        f"(default: {DEFAULT_BOARDS}; with --until-ci, the most it may play: default "
                        f"{DEFAULT_UNTIL_CI_BOARDS:,})")
    parser.add_argument("--until-ci", type=width, metavar="W", help="add boards until every bot's 95%% CI of its "
                        "change of mean placement is narrower than ±W places (e.g. 0.05; with a value, the CI of "
                        "the change of corrected placement)")
    parser.add_argument("--dealer", default=DEFAULT_DEALER, help=dealers_help())
    parser.add_argument("--design", default=DEFAULT_DESIGN, help=f"seating design: {' or '.join(RUN_DESIGNS)}")
    parser.add_argument("--events", default=DEFAULT_EVENTS, help=events_help())
    parser.add_argument("--seed", type=seed, default=RUN_SEED, help="tournament seed: the boards both play")
    parser.add_argument("--out", help="output folder (default: ab/ or sweep/<what is compared>)")
    # One value for every run, the base's: its corrections keep mean zero under a variant.
    add_value_option(parser)
    add_execution_options(parser, "print the result as JSON")


def comparison_arguments(args) -> dict:
    """The API's keyword arguments from the shared options."""
    return {"bots": args.bots, "boards": args.boards, "until_ci": args.until_ci, "dealer": args.dealer,
            "design": args.design, "events": args.events, "seed": args.seed, "out": args.out,
            "workers": args.workers, "backend": args.backend, "ray_address": args.ray_address,
            "game_timeout": args.game_timeout, "progress": not args.quiet, "warn": warn,
            "note": note, "value": args.value, **bot_parameters(args)}
