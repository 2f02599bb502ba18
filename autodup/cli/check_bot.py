"""``autodup check-bot``: play a bot through many tables; illegal actions, action-cap hits, errors,
determinism (exit 0 when clean)."""

from __future__ import annotations

import argparse

from .options import (
    add_bot_parameter_options,
    add_config,
    add_game_timeout,
    bot_parameters,
    integer_between,
    note,
    print_json,
    seed,
    warn,
)

__all__ = ["add_arguments", "run"]


def add_arguments(parser) -> None:
    from ..api.tournaments import CHECK_GAMES, CHECK_MAX_GAMES, CHECK_SEED

    parser.add_argument("bot", help="a bot name, a path to a bot file or a Python agent (module:Class or "
                        "file.py:Class)")
    add_config(parser, what="the configuration to play")
    # Before the rule above, check-bot took its configuration as --config: scripts that say so keep working.
    parser.add_argument("--config", dest="config_option", help=argparse.SUPPRESS)
    parser.add_argument("--games", type=integer_between(1, CHECK_MAX_GAMES), default=CHECK_GAMES,
                        help="tables to play on the configuration as "
                        "written (each twice)")
    parser.add_argument("--variant-games", type=integer_between(0, CHECK_MAX_GAMES),
                        help="tables on each rule variant of the configuration (default: one per 20 of --games)")
    parser.add_argument("--seed", type=seed, default=CHECK_SEED, help="tournament seed of the tables")
    parser.add_argument("--json", action="store_true", help="print JSON")
    add_game_timeout(parser)
    add_bot_parameter_options(parser)


def run(args) -> int:
    from .. import api

    report = api.check_bot(args.bot, config=args.config_option or args.config, games=args.games, seed=args.seed,
                           variant_games=args.variant_games, game_timeout=args.game_timeout, progress=True,
                           warn=warn, note=note, **bot_parameters(args))
    if args.json:
        print_json(report, safe=False)
    elif "failure" in report:  # it hung or crashed its process
        print(f"{args.bot}: NOT CLEAN: {report['failure']}")
    else:
        verdict = "clean" if report["clean"] else "NOT CLEAN"
        print(f"{report['bot']} ({report['path']}): {verdict} over {report['games']} tables played twice, "
              f"{report['seat_rounds']} seat-rounds")
        for key in ("illegal_actions", "cap_hits", "bot_errors", "bad_answers", "unsound_steps", "deterministic",
                    "first_error"):
            print(f"  {key:<16} {report[key]}")
        changing = report["changing_on_load"]
        print(f"  changing on load {', '.join(changing) or 'nothing'}")
        if not report["deterministic"]:
            print("  (the same tables played twice differed: draw random numbers with uniform(me) and "
                  "random_below(me, n), which have an address in the seed tree, never with random, numpy.random or "
                  "the clock; keep state between decisions in memory)")
        if changing:
            print("  (its file computes these otherwise each time it loads, so each worker, resume or machine plays "
                  "another bot: compute them from constants, or from the view in decide)")
        variants = report.get("variants") or {}
        if len(variants) > 1:
            print("  rule set                             tables  illegal  cap hits  errors  bad answers  same twice  "
                  "verdict")
            for label, counts in variants.items():
                print(f"  {label:<36} {counts['games']:>6}  {counts['illegal_actions']:>7}  {counts['cap_hits']:>8}  "
                      f"{counts['bot_errors']:>6}  {counts['bad_answers']:>11}  "
                      f"{'yes' if counts['deterministic'] else 'NO':>10}  "
                      f"{'clean' if counts['clean'] else 'NOT CLEAN'}")
        else:  # said, since a bot that restates a rule is caught only there
            print("  no rule variant played (--variant-games, by default one table per 20 of --games)")
    return 0 if report["clean"] else 1
