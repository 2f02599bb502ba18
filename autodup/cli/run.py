"""``autodup run``: play a duplicate tournament (boards x tables, results in Parquet), and print its summary."""

from __future__ import annotations

import sys

from ..errors import counted
from .options import (
    add_bot_parameter_options,
    add_config,
    add_game_timeout,
    add_value_option,
    add_workers_and_backend,
    bot_parameters,
    bots_help,
    count_up_to,
    events_help,
    note,
    print_json,
    seed,
    warn,
)

__all__ = ["add_arguments", "run", "print_summary"]


def add_arguments(parser) -> None:
    from ..api.tournaments import DEFAULT_BOARDS, RUN_SEED
    from ..arguments import MAX_BOARDS
    from ..engine.dealers import DEFAULT_DEALER, dealers_help
    from ..game.boards import DEFAULT_DESIGN, RUN_DESIGNS

    # What defines a run has no parser default: with --resume, what is not given comes from the run's manifest.
    add_config(parser, default=False)
    parser.add_argument("--bots", help=bots_help())
    parser.add_argument("--boards", type=count_up_to(MAX_BOARDS), help="boards (grandparent seeds) to play "
                        f"(default: {DEFAULT_BOARDS})")
    parser.add_argument("--dealer", help=f"{dealers_help()} (default: {DEFAULT_DEALER})")
    parser.add_argument("--seed", type=seed, help=f"tournament seed (default: {RUN_SEED})")
    parser.add_argument("--design", help=f"seating design: {' or '.join(RUN_DESIGNS)} (default: {DEFAULT_DESIGN}); "
                        "latin: every bot at every seat of a board; paired: tables differ only in the bot at the "
                        "board's focal seat")
    parser.add_argument("--events", help=events_help())
    parser.add_argument("--out", help="output folder (default: runs/<what the run is>)")
    add_value_option(parser)
    add_workers_and_backend(parser)
    parser.add_argument("--ray-address", help="address of a Ray cluster (default: start one here)")
    parser.add_argument("--resume", action="store_true", help="finish the run in --out; what defines the run and is "
                        "not given is taken from its manifest")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    add_game_timeout(parser)
    add_bot_parameter_options(parser)


def run(args) -> int:
    from .. import api

    results = api.run_tournament(
        args.config, bots=args.bots, boards=args.boards, dealer=args.dealer, seed=args.seed,
        design=args.design, events=args.events, out=args.out if args.out is not None else api.DEFAULT_OUT,
        workers=args.workers, backend=args.backend, ray_address=args.ray_address, resume=args.resume,
        game_timeout=args.game_timeout, progress=not args.quiet, warn=warn, note=note, command_line=sys.argv,
        value=args.value, **bot_parameters(args))
    try:
        print_summary(results, results.summary(), args.json)
    except KeyboardInterrupt as stop:  # the run is finished: only its table was stopped
        from ..tournament.storage import KEPT_FINISHED

        stop.kept_folder, stop.kept = results.path, KEPT_FINISHED
        raise
    return 0


def print_summary(results, summary: list, as_json: bool) -> None:
    """The summary table of a run (or its JSON): each bot's adjusted and duplicate scores, placement, top 4."""
    from ..analysis.ab import name_width

    identity = results.manifest["identity"]
    boards, boards_done = identity["boards"], results.boards_done()
    if as_json:
        print_json({"out": str(results.path), "boards": boards, "boards_done": boards_done, "summary": summary},
                   safe=False)
        return
    done = counted(boards, "board") if boards_done == boards else \
        f"{boards_done:,} of {counted(boards, 'board')} (unfinished)"
    print(f"{results.path}: {done} x {counted(len(results.bot_names), 'table')}, dealer {identity['dealer']}, "
          f"seed {identity['seed']}")
    corrected = bool(summary) and "corrected_score" in summary[0]
    width = name_width(row["bot"] for row in summary)
    print(f"{'bot':<{width}} " + (f"{'corrected score':>18} " if corrected else "")
          + f"{'adjusted score':>18} {'duplicate score':>18} {'mean placement':>18} {'top 4':>7}")

    def interval(value):
        return "n/a" if value is None else f"{value:.3f}"

    for row in summary:
        first = f"{row['corrected_score']:>+9.3f} ± {interval(row['corrected_score_ci95']):<6} " if corrected else ""
        print(f"{row['bot']:<{width}} {first}"
              f"{row['adjusted_score']:>+9.3f} ± {interval(row['adjusted_score_ci95']):<6} "
              f"{row['duplicate_score']:>+9.3f} ± {interval(row['duplicate_score_ci95']):<6} "
              f"{row['mean_placement']:>9.3f} ± {interval(row['mean_placement_ci95']):<6} {row['top4_rate']:>7.3f}")
    pooled = [row["bot"] for row in summary if row.get("value_weights") == "pooled"]
    if pooled:
        print(f"corrected by the value's pooled weights (it has none fitted on this code): {', '.join(pooled)}; "
              "`autodup luck fit` fits them")
    if len(summary) == 1:  # not a matter of boards: the bot is its own whole field
        print(f"one bot plays every seat of every table: its mean placement ({summary[0]['mean_placement']:.3f}) "
              "and its scores (0) hold by construction; name two bots or more to compare them")
        return
    unfitted = [row["bot"] for row in summary if row.get("luck_fitted") is False]
    if unfitted:
        print(f"too few boards to fit the luck adjustment for {', '.join(unfitted)}: "
              f"their adjusted score is the duplicate score on the boards it could not adjust")
