"""Command line: ``autodup toy``, ``check``, ``play``, ``bots``, ``check-bot``, ``run``.

Bad input gets one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path


DEFAULT_CONFIG = Path(__file__).resolve().parents[1] / "configs" / "set4.yaml"


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not positive (allowed: 1 or more)")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if not 0 <= value < 2**64:
        raise argparse.ArgumentTypeError(f"{text} is out of range (allowed: 0 .. 2**64-1)")
    return value


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2, no usage dump
        self.exit(2, f"autodup: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    from .toy import DEFAULT_SEED, DEFAULT_TRIALS

    parser = _Parser(prog="autodup", description="Duplicate tournaments of a TFT-like autochess game.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    toy = commands.add_parser("toy", help="reproduce the seed article's toy example (Figs. 1-5 and keyed)")
    toy.add_argument("--trials", type=_positive_int, default=DEFAULT_TRIALS, help="paired games per system")
    toy.add_argument("--seed", type=_seed, default=DEFAULT_SEED, help="root seed")
    toy.add_argument("--json", action="store_true", help="print JSON instead of tables")
    play = commands.add_parser("play", help="play one table and print each seat's result")
    play.add_argument("config", help="path to a configuration file, e.g. configs/set4.yaml")
    play.add_argument("--seed", type=_seed, default=0, help="board seed (the grandparent of the table)")
    play.add_argument("--bots", default="greedy", help="comma-separated bot per seat, or one for all: names "
                      "from `autodup bots` or paths to bot files")
    _add_bot_parameter_options(play)
    play.add_argument("--dealer", default="haystack", help="plain, stream, haystack, keyed or replay")
    play.add_argument("--order", default="events", help="how a round's shop refreshes are served: events or race")
    play.add_argument("--json", action="store_true", help="print JSON")
    check = commands.add_parser("check", help="validate a game configuration (YAML) and summarize it")
    check.add_argument("config", help="path to a configuration file, e.g. configs/set4.yaml")
    bots = commands.add_parser("bots", help="list the bots in bots/ with their descriptions")
    bots.add_argument("--json", action="store_true", help="print JSON")
    check_bot = commands.add_parser("check-bot", help="play a bot through many tables: illegal actions, action-cap "
                                    "hits, errors, determinism (exit 0 when clean)")
    check_bot.add_argument("bot", help="a bot name or a path to a bot file")
    check_bot.add_argument("--config", default=str(DEFAULT_CONFIG), help="configuration to play (default set4)")
    check_bot.add_argument("--games", type=_positive_int, default=120, help="tables to play (each twice)")
    check_bot.add_argument("--seed", type=_seed, default=2026, help="tournament seed of the tables")
    check_bot.add_argument("--json", action="store_true", help="print JSON")
    _add_bot_parameter_options(check_bot)
    run = commands.add_parser("run", help="play a duplicate tournament: boards x tables, results in Parquet")
    run.add_argument("config", nargs="?", default=str(DEFAULT_CONFIG), help="configuration (default set4)")
    run.add_argument("--bots", help="comma-separated bots (names or paths); default: every bot in bots/")
    run.add_argument("--boards", type=_positive_int, default=1000, help="boards (grandparent seeds) to play")
    run.add_argument("--dealer", default="haystack", help="haystack, keyed, stream, replay or independent")
    run.add_argument("--seed", type=_seed, default=0, help="tournament seed")
    run.add_argument("--out", help="output folder (default: runs/<what the run is>)")
    run.add_argument("--workers", type=_positive_int, default=os.cpu_count() or 1, help="processes")
    run.add_argument("--backend", default="local", choices=("local", "ray"), help="local processes or Ray")
    run.add_argument("--ray-address", help="address of a Ray cluster (default: start one here)")
    run.add_argument("--resume", action="store_true", help="finish an interrupted run in --out")
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    run.add_argument("--json", action="store_true", help="print the summary as JSON")
    _add_bot_parameter_options(run)
    return parser


def _add_bot_parameter_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--bot-param", action="append", default=[], metavar="BOT.NAME=VALUE",
                        help="override a bot parameter (repeatable)")
    parser.add_argument("--bot-params", metavar="FILE", help="YAML file mapping bot names to {parameter: value}")


def _load_bots(args: argparse.Namespace, specs: list) -> list:
    """The bots of ``specs`` with the parameters of ``--bot-params FILE`` and then ``--bot-param``."""
    from .bots import apply_overrides, load_bots, load_parameter_file, parse_parameter_options

    bots = load_bots(specs, load_parameter_file(args.bot_params) if args.bot_params else {},
                     args.bot_params or "--bot-params")
    return apply_overrides(bots, parse_parameter_options(args.bot_param), "--bot-param")


def _run_toy(args: argparse.Namespace) -> int:
    from .toy import format_figures, toy_figures

    result = toy_figures(trials=args.trials, seed=args.seed)
    print(json.dumps(result) if args.json else format_figures(result))
    return 0


def _run_check(args: argparse.Namespace) -> int:
    from .config import load_config

    print(load_config(args.config).summary())
    return 0


def _run_play(args: argparse.Namespace) -> int:
    import numpy as np

    from .config import load_config
    from .bots import bot_errors_collected, seating
    from .game import DEALERS, ORDER_RACE, ORDERS, RESULT_COLUMNS, play_table, rules_of
    from .rng import event_seed, seat_seed

    config = load_config(args.config)
    if args.dealer not in DEALERS:
        raise ValueError(f"--dealer: unknown dealer {args.dealer!r} (allowed: {', '.join(DEALERS)})")
    if args.order not in ORDERS:
        raise ValueError(f"--order: unknown order {args.order!r} (allowed: {', '.join(ORDERS)})")
    if ORDERS[args.order] == ORDER_RACE and args.dealer != "haystack":
        raise ValueError("--order race needs --dealer haystack (the race runs on the seats' haystacks)")
    specs = [b.strip() for b in args.bots.split(",")]
    if len(specs) == 1:
        specs = specs * config.players
    if len(specs) != config.players:
        raise ValueError(f"--bots: {len(specs)} bots for {config.players} seats (allowed: one, or one per seat)")
    seat_bots = _load_bots(args, specs)
    policies, params, bot_of_seat = seating(seat_bots)
    seats = np.array([seat_seed(args.seed, s) for s in range(config.players)], dtype=np.uint64)
    with bot_errors_collected() as errors:
        results, _, rounds = play_table(rules_of(config), DEALERS[args.dealer], ORDERS[args.order], seats,
                                        np.uint64(event_seed(args.seed, 0)), policies, params, bot_of_seat, False)
    if errors:
        print(f"autodup: warning: bots failed {len(errors)} decisions (first: {errors[0]}); "
              "see `autodup check-bot`", file=sys.stderr)
    rows = [{"seat": s, "bot": seat_bots[s].name, **{c: int(results[s, i]) for i, c in enumerate(RESULT_COLUMNS)}}
            for s in range(config.players)]
    if args.json:
        print(json.dumps({"config": config.source, "seed": args.seed, "dealer": args.dealer, "order": args.order,
                          "rounds": int(rounds), "seats": rows}))
        return 0
    print(f"{config.name}: seed {args.seed}, dealer {args.dealer}, {rounds} rounds")
    header = ["seat", "bot", "placement", "hp", "level", "gold_spent", "rolls", "units_bought", "shops_seen",
              "illegal_actions", "cap_hits", "bot_errors"]
    print("  ".join(f"{h:>12}" for h in header))
    for row in sorted(rows, key=lambda r: r["placement"]):
        print("  ".join(f"{row[h]:>12}" for h in header))
    return 0


def _run_bots(args: argparse.Namespace) -> int:
    from .bots import bot_names, load_bot

    listing = [{"name": bot.name, "description": bot.description} for bot in map(load_bot, bot_names())]
    if args.json:
        print(json.dumps(listing))
        return 0
    width = max(len(entry["name"]) for entry in listing)
    for entry in listing:
        print(f"{entry['name']:<{width}}  {entry['description']}")
    return 0


def _run_check_bot(args: argparse.Namespace) -> int:
    from .bots import check_bot
    from .config import load_config

    config = load_config(args.config)
    bot = _load_bots(args, [args.bot])[0]
    report = check_bot(bot, config, games=args.games, seed=args.seed)
    if args.json:
        print(json.dumps(report))
    else:
        verdict = "clean" if report["clean"] else "NOT CLEAN"
        print(f"{report['bot']} ({report['path']}): {verdict} over {report['games']} tables played twice, "
              f"{report['seat_rounds']} seat-rounds")
        for key in ("illegal_actions", "cap_hits", "bot_errors", "unsound_steps", "deterministic", "first_error"):
            print(f"  {key:<16} {report[key]}")
    return 0 if report["clean"] else 1


def _run_tournament(args: argparse.Namespace) -> int:
    from .bots import bot_names
    from .tournament import make_spec, run_tournament

    specs = [b.strip() for b in args.bots.split(",")] if args.bots else bot_names()
    spec = make_spec(args.config, _load_bots(args, specs), args.boards, args.dealer, args.seed)
    out, summary = run_tournament(spec, args.out, args.workers, args.backend, args.ray_address, args.resume,
                                  args.quiet, {"command_line": sys.argv})
    bots = spec.bot_names
    if args.json:
        print(json.dumps({"out": str(out), "summary": summary}))
        return 0
    print(f"{out}: {args.boards} boards x {len(bots)} tables, dealer {args.dealer}, seed {args.seed}")
    print(f"{'bot':<12} {'duplicate score':>18} {'mean placement':>18} {'top 4':>7}")
    def interval(value):
        return "n/a" if value is None else f"{value:.3f}"

    for row in summary:
        print(f"{row['bot']:<12} {row['duplicate_score']:>+9.3f} ± {interval(row['duplicate_score_ci95']):<6} "
              f"{row['mean_placement']:>9.3f} ± {interval(row['mean_placement_ci95']):<6} {row['top4_rate']:>7.3f}")
    return 0


def _first_line(error: Exception) -> str:
    lines = str(error).strip().splitlines()
    return lines[0] if lines else ""


def main(argv: list[str] | None = None) -> int:
    from .config import ConfigError

    args = build_parser().parse_args(argv)
    try:
        commands = {"toy": _run_toy, "check": _run_check, "play": _run_play, "bots": _run_bots,
                    "check-bot": _run_check_bot, "run": _run_tournament}
        return commands[args.command](args)
    except ConfigError as error:  # already "FILE:LINE: field.path: what is wrong (what is allowed)"
        print(error, file=sys.stderr)
        return 2
    except ValueError as error:  # a remote (Ray) error carries its traceback: one line of it
        print(f"autodup: error: {_first_line(error) or type(error).__name__}", file=sys.stderr)
        return 2
    except (OSError, RuntimeError) as error:  # files, disks, worker processes, a Ray cluster
        print(f"autodup: error: {type(error).__name__}: {_first_line(error)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("autodup: interrupted; finished chunks are kept (run again with --resume)", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
