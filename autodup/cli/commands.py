"""Command line: ``autodup toy``, ``check``, ``play``, ``bots``, ``check-bot``, ``run``, ``summary``, ``quality``,
``report``, ``ab``, ``sweep``, ``odds``, ``shuffles``.

Bad input gets one line on stderr and exit code 2. Configurations are named
(``set4``, ``tiny``: shipped) or given by path; so are bots.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

__all__ = ["DEFAULT_BOARDS", "DEFAULT_QUALITY_BOARDS", "RUN_SEED", "MAX_WORKERS", "build_parser",
           "load_bots_with_overrides", "play_in_worker", "check_bot_in_worker", "bot_infos_in_worker",
           "compile_table_in_worker", "main"]

DEFAULT_BOARDS = 1000
DEFAULT_QUALITY_BOARDS = 1000
RUN_SEED = 0  # the default tournament seed of run and play


def _integer(text: str, low: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < low:
        raise argparse.ArgumentTypeError(f"{text} is {'not positive' if low == 1 else 'negative'} (allowed: {low} or "
                                         "more)")
    return value


def _positive_int(text: str) -> int:
    return _integer(text, 1)


def _count(text: str) -> int:
    return _integer(text, 0)


def _count_up_to(limit: int):
    """An argparse type: an integer from 1 to ``limit`` (a larger value is surely a typo, and one line says so)."""
    def parse(text: str) -> int:
        value = _positive_int(text)
        if value > limit:
            raise argparse.ArgumentTypeError(f"{text} is too many (allowed: 1 to {limit:,})")
        return value

    return parse


MAX_WORKERS = 256  # each worker holds its own compiled code (about 100 MB)


def _bot_specs(text: str) -> list:
    specs = [part.strip() for part in text.split(",")]
    if not all(specs):
        raise ValueError(f"--bots: {text!r} names no bot at some position (allowed: comma-separated names or paths)")
    return specs


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value < 10**7:
        raise argparse.ArgumentTypeError(f"{text} is out of range (allowed: more than 0 and less than 10,000,000 "
                                         "seconds)")
    return value


def _board_index(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if not 0 <= value < 2**63:
        raise argparse.ArgumentTypeError(f"{text} is out of range (allowed: 0 or more)")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if not 0 <= value < 2**64:
        raise argparse.ArgumentTypeError(f"{text} is out of range (allowed: 0 .. 2**64-1)")
    return value


class _HelpWithDefaults(argparse.HelpFormatter):
    """Every option's help ends with its default, unless the help says it or there is none to say."""

    def _get_help_string(self, action):
        text = action.help or ""
        nothing = action.default is None or action.default is False or action.default == [] \
            or action.default == argparse.SUPPRESS
        if "default" in text or nothing or not action.option_strings and action.nargs is None:
            return text
        return f"{text} (default: %(default)s)"


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", _HelpWithDefaults)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # one line, exit 2, no usage dump
        self.exit(2, f"autodup: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    from ..analysis.quality import DEFAULT_QUALITY_DEALERS
    from ..engine.dealers import DEALERS, DEFAULT_DEALER
    from ..game.boards import DEFAULT_DESIGN, RUN_DESIGNS
    from ..game.rules import DEFAULT_EVENTS, EVENT_ADDRESSING
    from ..labs.toy import DEFAULT_SEED, DEFAULT_TRIALS, MAX_TRIALS
    from ..shipped import DEFAULT_CONFIG, config_names
    from ..tournament.spec import MAX_BOARDS
    from ..version import __version__

    configs = ", ".join(config_names())
    parser = _Parser(prog="autodup", description="Duplicate tournaments of a TFT-like autochess game.")
    parser.add_argument("--version", action="version", version=f"autodup {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    toy = commands.add_parser("toy", help="reproduce the seed article's toy example (Figs. 1-5 and keyed)")
    toy.add_argument("--trials", type=_count_up_to(MAX_TRIALS), default=DEFAULT_TRIALS, help="paired games per system")
    toy.add_argument("--seed", type=_seed, default=DEFAULT_SEED, help="root seed")
    toy.add_argument("--json", action="store_true", help="print JSON instead of tables")
    play = commands.add_parser("play", help="play one table and print each seat's result")
    play.add_argument("config", help=f"a shipped configuration ({configs}) or the path of a YAML file")
    play.add_argument("--seed", type=_seed, default=RUN_SEED, help="tournament seed, as in `autodup run`")
    play.add_argument("--board", type=_board_index, default=0, help="which board of the seed to play")
    play.add_argument("--table", type=_board_index, default=0, help="which table of the board: seat s plays bot "
                      "(s + table) mod (number of bots), as in `autodup run`")
    play.add_argument("--bots", default="greedy", help="1 to seats distinct bots, comma-separated (names from "
                      "`autodup bots` or paths to bot files), seated as in `autodup run`")
    _add_bot_parameter_options(play)
    play.add_argument("--dealer", default=DEFAULT_DEALER, help=f"one of {', '.join(DEALERS)}")
    play.add_argument("--order", default="events", help="how a round's shop refreshes are served: events or race")
    play.add_argument("--json", action="store_true", help="print JSON")
    _add_game_timeout(play)
    check = commands.add_parser("check", help="validate a game configuration (YAML) and summarize it")
    check.add_argument("config", help=f"a shipped configuration ({configs}) or the path of a YAML file")
    bots = commands.add_parser("bots", help="list the shipped bots with their descriptions")
    bots.add_argument("--json", action="store_true", help="print JSON")
    check_bot = commands.add_parser("check-bot", help="play a bot through many tables: illegal actions, action-cap "
                                    "hits, errors, determinism (exit 0 when clean)")
    check_bot.add_argument("bot", help="a bot name or a path to a bot file")
    check_bot.add_argument("--config", default=DEFAULT_CONFIG, help=f"configuration to play ({configs} or a path)")
    check_bot.add_argument("--games", type=_positive_int, default=120, help="tables to play on the configuration "
                           "as written (each twice)")
    check_bot.add_argument("--variant-games", type=_board_index, help="tables on each rule variant of the "
                           "configuration (default: one per 20 of --games)")
    check_bot.add_argument("--seed", type=_seed, default=2026, help="tournament seed of the tables")
    check_bot.add_argument("--json", action="store_true", help="print JSON")
    _add_game_timeout(check_bot)
    _add_bot_parameter_options(check_bot)
    run = commands.add_parser("run", help="play a duplicate tournament: boards x tables, results in Parquet")
    # What defines a run has no parser default: with --resume, what is not given comes from the run's manifest.
    run.add_argument("config", nargs="?", help=f"a shipped configuration ({configs}) or the path of a YAML file "
                     f"(default: {DEFAULT_CONFIG})")
    run.add_argument("--bots", help="1 to seats distinct bots, comma-separated (names or paths; default: every "
                     "shipped bot)")
    run.add_argument("--boards", type=_count_up_to(MAX_BOARDS), help="boards (grandparent seeds) to play "
                     f"(default: {DEFAULT_BOARDS})")
    run.add_argument("--dealer", help=f"one of {', '.join(DEALERS)} (default: {DEFAULT_DEALER})")
    run.add_argument("--seed", type=_seed, help=f"tournament seed (default: {RUN_SEED})")
    run.add_argument("--design", help=f"seating design: {' or '.join(RUN_DESIGNS)} (default: {DEFAULT_DESIGN}); "
                     "latin: every bot at every seat of a board; paired: tables differ only in the bot at the "
                     "board's focal seat")
    run.add_argument("--events", help=f"how matchmaking, serving order and the combat coin are addressed: "
                     f"{' or '.join(EVENT_ADDRESSING)} (default: {DEFAULT_EVENTS}; seat: by who, position: by "
                     "place in the round's order)")
    run.add_argument("--out", help="output folder (default: runs/<what the run is>)")
    run.add_argument("--workers", type=_count_up_to(MAX_WORKERS), default=os.cpu_count() or 1, help="processes")
    run.add_argument("--backend", default="local", choices=("local", "ray"), help="local processes or Ray")
    run.add_argument("--ray-address", help="address of a Ray cluster (default: start one here)")
    run.add_argument("--resume", action="store_true", help="finish the run in --out; what defines the run and is "
                     "not given is taken from its manifest")
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    run.add_argument("--json", action="store_true", help="print the summary as JSON")
    _add_game_timeout(run)
    _add_bot_parameter_options(run)
    quality = commands.add_parser("quality", help="play the same boards under each dealer and the independent "
                                  "control, and measure duplication: cross-table correlation, correctness, luck "
                                  "removed (quality.json, report.html)")
    quality.add_argument("config", nargs="?", default=DEFAULT_CONFIG,
                         help=f"a shipped configuration ({configs}) or the path of a YAML file")
    quality.add_argument("--bots", help="1 to seats distinct bots, comma-separated (names or paths; default: every "
                         "shipped bot)")
    quality.add_argument("--boards", type=_count_up_to(MAX_BOARDS), default=DEFAULT_QUALITY_BOARDS,
                         help="boards played under each dealer and under the control")
    quality.add_argument("--dealers", default=",".join(DEFAULT_QUALITY_DEALERS),
                         help="duplicate dealers to measure, comma-separated (the control, independent, is always "
                         "played)")
    quality.add_argument("--seed", type=_seed, default=RUN_SEED, help="tournament seed")
    quality.add_argument("--no-ladder", action="store_true", help="play only each dealer's run and the control's "
                         "with the default design and events (not the ladder's: events by position, paired seating)")
    quality.add_argument("--out", help="output folder: runs/, traces/, quality.json, report.html (default: "
                         "quality/<config>-<boards>b-seed<seed>-<bots>)")
    _add_execution_options(quality, "print quality.json")
    report = commands.add_parser("report", help="measure existing run folders of the same boards (one per dealer, "
                                 "the independent control among them): quality.json and report.html")
    report.add_argument("runs", nargs="+", help="run folders (what `autodup run` printed)")
    report.add_argument("--out", required=True, help="folder for quality.json, report.html and the plots")
    report.add_argument("--no-trace", action="store_true", help="skip the coupling diagnostic (it replays the "
                        "first boards of each run with the runs' bots)")
    report.add_argument("--json", action="store_true", help="print quality.json")
    _add_game_timeout(report)
    ab = commands.add_parser("ab", help="play the same boards under a base configuration and a variant and report "
                             "the change's effect on bots, champions and traits, with CIs (ab.json, report.html)")
    ab.add_argument("base", help=f"the base configuration: shipped ({configs}) or the path of a YAML file")
    ab.add_argument("variant", nargs="?", help="the variant's YAML file (default: a copy of the base, edited by --set)")
    ab.add_argument("--set", action="append", default=[], metavar="PATH=VALUE", dest="settings",
                    help="edit the variant at a dotted field path (as `autodup check` names fields; list items count "
                    "from 0: tiers.3 is the fourth tier), the value read as YAML, e.g. levels.8.odds=[10,15,35,30,10] "
                    "(repeatable)")
    _add_comparison_options(ab)
    sweep = commands.add_parser("sweep", help="play the base and one variant per value of --set on the same boards "
                                "and plot each bot's effect curve with CIs (sweep.json, sweep.png, report.html)")
    sweep.add_argument("base", help=f"the base configuration: shipped ({configs}) or the path of a YAML file")
    sweep.add_argument("--set", action="append", default=[], metavar="PATH=V1,V2,...", dest="settings",
                       required=True, help="the field swept and its values, read as one YAML flow list (so "
                       "levels.8.odds=[10,15,35,30,10],[16,20,35,25,4] sweeps two lists); repeated, the paths change "
                       "together, value by value")
    _add_comparison_options(sweep)
    _add_odds_parser(commands, configs)
    _add_shuffles_parser(commands)
    summary = commands.add_parser("summary", help="print the summary of a run folder (also read-only ones)")
    summary.add_argument("out", help="a run folder (what `autodup run` printed)")
    summary.add_argument("--json", action="store_true", help="print JSON")
    return parser


def _switch(text: str) -> bool:
    if text not in ("on", "off"):
        raise argparse.ArgumentTypeError(f"{text!r} is not on or off (allowed: on, off)")
    return text == "on"


def _add_odds_parser(commands, configs: str) -> None:
    from ..engine.dealers import DEALERS, DEFAULT_DEALER
    from ..labs.odds import DEFAULT_TRIALS

    odds = commands.add_parser("odds", help="the chances of finding k copies of a champion by rolling: the public "
                               "calculators' chain, the game's exact law and a simulation through the game's shop")
    odds.add_argument("config", help=f"shipped ({configs}) or the path of a YAML file")
    odds.add_argument("--level", type=_positive_int, required=True, help="your level")
    odds.add_argument("--champion", required=True, help="the champion you look for (its name in the config)")
    odds.add_argument("--out", type=_count, default=0, help="copies of it out of the pool (other players hold them)")
    odds.add_argument("--cost-out", type=_count, default=0, help="other units of its cost out of the pool")
    odds.add_argument("--gold", type=_count, help="gold to spend on rolls (purchases are not counted, as in the "
                      "public calculators)")
    odds.add_argument("--rolls", type=_count, help="rolls instead of --gold")
    odds.add_argument("--owned", type=_count, default=0, help="copies you own (out of the pool too); it looks for up "
                      "to a 3-star")
    odds.add_argument("--buy-xp", action="store_true", help="buy XP to the next level first (from --gold) and roll "
                      "there")
    odds.add_argument("--xp", type=_count, default=0, help="XP you have toward the next level (with --buy-xp)")
    odds.add_argument("--trials", type=_count, default=DEFAULT_TRIALS, help="simulated roll sequences (0: none)")
    odds.add_argument("--dealer", default=DEFAULT_DEALER, help=f"the simulation's dealer: one of {', '.join(DEALERS)}")
    odds.add_argument("--seed", type=_seed, default=RUN_SEED, help="the simulation's seed")
    odds.add_argument("--holding", type=_switch, metavar="on|off", help="whether shown units leave the pool until the "
                      "shop changes (default: the config's shop.units_leave_pool)")
    odds.add_argument("--other-shops", type=_count, metavar="K", help="other seats holding a shop while you roll, "
                      "with holding (default: every other seat)")
    odds.add_argument("--json", action="store_true", help="print the result as JSON")
    odds.add_argument("--plot", metavar="FILE.png", help="write a bar chart of P(at least k), the three methods")


def _methods(text: str) -> dict:
    from ..labs.shuffle_kernels import parse_methods

    try:
        return parse_methods(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _add_shuffles_parser(commands) -> None:
    from ..labs import shuffle_kernels as shuffles

    lab = commands.add_parser("shuffles", help="the shuffle lab: is a deck shuffle fair? The 2020 article's two "
                              "tests reproduced, the permutation tests they miss, and the riffles a deck needs")
    letters = ", ".join(f"{m.letter} {m.name}" for m in shuffles.METHODS.values())
    lab.add_argument("--methods", type=_methods, help=f"comma-separated; each a sequence of shuffles applied left "
                     f"to right, like RRH or G7 ({letters}; default: {','.join(shuffles.DEFAULT_METHODS)}, or S with "
                     "--decks)")
    lab.add_argument("--cards", type=_positive_int, help=f"cards in the deck (default: {shuffles.DEFAULT_CARDS}, or "
                     "the size of the --decks)")
    lab.add_argument("--decks", action="append", metavar="FILE", help="decks dealt by your own shuffle, put through "
                     "the same tests (the simulated methods are the control: default S): one deck per line, cards "
                     "0..n-1 (or 1..n) from top to bottom, card c having started at position c; or a .npy array; "
                     "repeated for several files")
    lab.add_argument("--runs", type=_positive_int, help=f"runs per method (default: {shuffles.DEFAULT_RUNS}; with "
                     "--decks, as many as the largest file fills, so that the control has as many deals)")
    lab.add_argument("--shuffles", type=_positive_int, default=shuffles.DEFAULT_SHUFFLES, help="deals per run")
    lab.add_argument("--replicates", type=_positive_int, default=shuffles.DEFAULT_REPLICATES,
                     help="repetitions of the whole experiment, for the spread of its figures")
    lab.add_argument("--riffle-deals", type=_count, default=shuffles.DEFAULT_RIFFLE_DEALS,
                     help="simulated deals per number of GSR riffles (0: exact figures only)")
    lab.add_argument("--seed", type=_seed, default=shuffles.DEFAULT_SEED, help="the lab's seed")
    lab.add_argument("--json", action="store_true", help="print the result as JSON")
    lab.add_argument("--out", metavar="DIR", help="write shuffles.html, its pictures (PNG) and shuffles.json here")


def _width(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value < 100:
        raise argparse.ArgumentTypeError(f"{text} is out of range (allowed: a half-width in placements, more than 0 "
                                         "and less than 100)")
    return value


def _add_comparison_options(parser: argparse.ArgumentParser) -> None:
    """The options ``ab`` and ``sweep`` share: what is played and how."""
    from ..analysis.ab import DEFAULT_UNTIL_CI_BOARDS
    from ..engine.dealers import DEALERS, DEFAULT_DEALER
    from ..game.boards import DEFAULT_DESIGN, RUN_DESIGNS
    from ..game.rules import DEFAULT_EVENTS, EVENT_ADDRESSING
    from ..tournament.spec import MAX_BOARDS

    parser.add_argument("--bots", help="1 to seats distinct bots, comma-separated (names or paths; default: every "
                        "shipped bot)")
    parser.add_argument("--boards", type=_count_up_to(MAX_BOARDS), help="boards played under each configuration "
                        f"(default: {DEFAULT_BOARDS}; with --until-ci, the most it may play: default "
                        f"{DEFAULT_UNTIL_CI_BOARDS:,})")
    parser.add_argument("--until-ci", type=_width, metavar="W", help="add boards until every bot's 95%% CI of its "
                        "change of mean placement is narrower than ±W")
    parser.add_argument("--dealer", default=DEFAULT_DEALER, help=f"one of {', '.join(DEALERS)}")
    parser.add_argument("--design", default=DEFAULT_DESIGN, help=f"seating design: {' or '.join(RUN_DESIGNS)}")
    parser.add_argument("--events", default=DEFAULT_EVENTS, help=f"event addressing: {' or '.join(EVENT_ADDRESSING)}")
    parser.add_argument("--seed", type=_seed, default=RUN_SEED, help="tournament seed: the boards both play")
    parser.add_argument("--out", help="output folder (default: ab/ or sweep/<what is compared>)")
    _add_execution_options(parser, "print the result as JSON")


def _add_execution_options(parser: argparse.ArgumentParser, json_help: str) -> None:
    """How the games of ``quality``, ``ab`` and ``sweep`` are played and what is printed."""
    parser.add_argument("--workers", type=_count_up_to(MAX_WORKERS), default=os.cpu_count() or 1, help="processes")
    parser.add_argument("--backend", default="local", choices=("local", "ray"), help="local processes or Ray")
    parser.add_argument("--ray-address", help="address of a Ray cluster (default: start one here)")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    parser.add_argument("--json", action="store_true", help=json_help)
    _add_game_timeout(parser)
    _add_bot_parameter_options(parser)


def _add_game_timeout(parser: argparse.ArgumentParser) -> None:
    from ..tournament.workers import DEFAULT_GAME_TIMEOUT

    parser.add_argument("--game-timeout", type=_seconds, default=DEFAULT_GAME_TIMEOUT, metavar="SECONDS",
                        help="a game running longer than this is stopped and its bot reported (a game takes "
                             f"milliseconds; default {DEFAULT_GAME_TIMEOUT:g})")


def _add_bot_parameter_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--bot-param", action="append", default=[], metavar="BOT.NAME=VALUE",
                        help="override a bot parameter (repeatable)")
    parser.add_argument("--bot-params", metavar="FILE", help="YAML file mapping bot names to {parameter: value}")


def _overrides(args: argparse.Namespace) -> tuple:
    """``(file overrides, its origin, option overrides)`` from ``--bot-params`` and ``--bot-param`` (checked here)."""
    from ..game.bot_loading import load_parameter_file, parse_parameter_options

    from_file = load_parameter_file(args.bot_params) if args.bot_params else {}
    return from_file, args.bot_params or "--bot-params", parse_parameter_options(args.bot_param)


def load_bots_with_overrides(specs: list, overrides: tuple, progress=None) -> list:
    """The bots of ``specs`` with the parameters of ``--bot-params FILE`` and then ``--bot-param``.

    ``progress`` (a worker's progress block) names the bot being loaded, should its code crash the process.
    """
    from ..game.bot_loading import apply_overrides, load_bot
    from ..game.progress import PROGRESS_LOADING

    from_file, origin, options = overrides
    bots = []
    for index, spec in enumerate(specs):
        if progress is not None:
            progress[PROGRESS_LOADING] = index + 1
        bots.append(load_bot(spec))
    if progress is not None:
        progress[PROGRESS_LOADING] = 0
    return apply_overrides(apply_overrides(bots, from_file, origin), options, "--bot-param")


def _warn_about_config(config) -> None:
    for line in getattr(config, "warnings", ()):
        print(line, file=sys.stderr)


def _run_toy(args: argparse.Namespace) -> int:
    from ..labs.toy import format_figures, toy_figures

    return _print_result(toy_figures(trials=args.trials, seed=args.seed), args.json, format_figures)


def _run_check(args: argparse.Namespace) -> int:
    from ..game.config import load_config

    config = load_config(args.config)
    _warn_about_config(config)
    print(config.summary())
    return 0


def play_in_worker(config: str, specs: list, overrides: tuple, seed: int, board: int, table: int, dealer: str,
                   order: str, progress) -> dict:
    """Load the bots and play one table of a board, seated as ``autodup run`` seats it (runs in a watched
    worker: see :mod:`autodup.workers`)."""
    from ..game.boards import play_boards
    from ..game.bot_loading import bot_errors_collected, policy_tuple
    from ..game.config import load_config
    from ..game.rules import rules_of
    from ..game.stats import RESULT_COLUMNS
    from ..tournament.spec import check_lineup

    config = load_config(config)
    bots = load_bots_with_overrides(specs, overrides, progress)
    check_lineup(bots, config.players)
    with bot_errors_collected() as errors:
        # The tables before it are played too (at most a few games), so that the control's seeds are the run's.
        played = play_boards(rules_of(config), dealer, *policy_tuple(bots), seed=seed, first_board=board,
                             tables=table + 1, seating="latin", n_bots=len(bots), order=order, progress=progress)
    results = played.results[0, table]
    names = [bots[index].name for index in played.bots[0, table]]
    rows = [{"seat": s, "bot": names[s], **{c: int(results[s, i]) for i, c in enumerate(RESULT_COLUMNS)}}
            for s in range(config.players)]
    return {"rows": rows, "rounds": int(results[:, RESULT_COLUMNS.index("rounds_alive")].max()), "errors": errors}


def _run_play(args: argparse.Namespace) -> int:
    from ..engine.dealers import dealer_named
    from ..game.boards import check_order
    from ..game.config import load_config
    from ..tournament.spec import check_bot_count
    from ..tournament.workers import Pool

    config = load_config(args.config)
    _warn_about_config(config)
    check_order(dealer_named(args.dealer), args.order)  # before a worker starts
    specs = _bot_specs(args.bots)
    check_bot_count(len(specs), config.players)
    if args.table >= len(specs):
        raise ValueError(f"--table: {args.table} is out of range (allowed: 0 to {len(specs) - 1}: a board has one "
                         "table per bot)")

    def describe(where):
        if where.loading >= 0:
            return f"bot {specs[where.loading]} (while it was loaded)"
        if where.seat < 0:
            return "the table"
        return f"bot {specs[(where.seat + where.table) % len(specs)]} (seat {where.seat})"

    with Pool(1, args.game_timeout, describe=describe) as pool:
        played, _ = pool.run_one(play_in_worker, (args.config, specs, _overrides(args), args.seed, args.board,
                                                  args.table, args.dealer, args.order))
    rows, rounds, errors = played["rows"], played["rounds"], played["errors"]
    if errors:
        failed = sum(row["bot_errors"] for row in rows)
        print(f"autodup: warning: bots failed {failed} decisions (first: {errors[0]}); "
              "see `autodup check-bot`", file=sys.stderr)
    bad = [row for row in rows if row["bad_answers"]]
    if bad:
        print(f"autodup: warning: {', '.join(sorted({row['bot'] for row in bad}))} returned values that are not "
              "answers; see `autodup check-bot`", file=sys.stderr)
    if args.json:
        print(json.dumps({"config": config.source, "seed": args.seed, "board": args.board, "table": args.table,
                          "dealer": args.dealer,
                          "order": args.order,
                          "rounds": rounds, "seats": rows}))
        return 0
    print(f"{config.name}: seed {args.seed}, board {args.board}, table {args.table}, dealer {args.dealer}, "
          f"{rounds} rounds")
    header = ["seat", "bot", "placement", "hp", "level", "gold_spent", "rolls", "units_bought", "shops_seen",
              "illegal_actions", "cap_hits", "bot_errors", "bad_answers"]
    print("  ".join(f"{h:>12}" for h in header))
    for row in sorted(rows, key=lambda r: r["placement"]):
        print("  ".join(f"{row[h]:>12}" for h in header))
    return 0


def _run_bots(args: argparse.Namespace) -> int:
    from ..game.bot_loading import bot_names, load_bot

    listing = [{"name": bot.name, "description": bot.description} for bot in map(load_bot, bot_names())]
    if args.json:
        print(json.dumps(listing))
        return 0
    width = max(len(entry["name"]) for entry in listing)
    for entry in listing:
        print(f"{entry['name']:<{width}}  {entry['description']}")
    return 0


def check_bot_in_worker(spec: str, overrides: tuple, config_path: str, games: int, seed: int, variant_games,
                        progress) -> dict:
    """Load a bot and run the bot check (runs in a watched worker: see :mod:`autodup.workers`)."""
    from ..game.bot_check import check_bot
    from ..game.config import load_config

    bot = load_bots_with_overrides([spec], overrides, progress)[0]
    return check_bot(bot, load_config(config_path), games=games, seed=seed, progress=progress,
                     variant_games=variant_games)


def _run_check_bot(args: argparse.Namespace) -> int:
    from ..errors import WorkerFailure
    from ..game.config import load_config
    from ..tournament.workers import Pool

    _warn_about_config(load_config(args.config))

    def describe(where):
        if where.loading >= 0:
            return f"bot {args.bot} (while it was loaded)"
        return f"seat {where.seat} of check table {where.board}" if where.seat >= 0 else "the table"

    overrides = _overrides(args)
    try:
        with Pool(1, args.game_timeout, describe=describe) as pool:
            report, _ = pool.run_one(check_bot_in_worker, (args.bot, overrides, args.config, args.games, args.seed,
                                                           args.variant_games))
    except WorkerFailure as failure:  # a bot that hangs or crashes its process is not clean either
        report = {"bot": args.bot, "clean": False, "failure": str(failure), "kind": failure.kind}
        if args.json:
            print(json.dumps(report))
        else:
            print(f"{args.bot}: NOT CLEAN: {failure}")
        return 1
    if args.json:
        print(json.dumps(report))
    else:
        verdict = "clean" if report["clean"] else "NOT CLEAN"
        print(f"{report['bot']} ({report['path']}): {verdict} over {report['games']} tables played twice, "
              f"{report['seat_rounds']} seat-rounds")
        for key in ("illegal_actions", "cap_hits", "bot_errors", "bad_answers", "unsound_steps", "deterministic",
                    "first_error"):
            print(f"  {key:<16} {report[key]}")
        variants = report.get("variants") or {}
        if len(variants) > 1:
            print("  rule set                             tables  illegal  cap hits  errors  bad answers  verdict")
            for label, counts in variants.items():
                print(f"  {label:<36} {counts['games']:>6}  {counts['illegal_actions']:>7}  {counts['cap_hits']:>8}  "
                      f"{counts['bot_errors']:>6}  {counts['bad_answers']:>11}  "
                      f"{'clean' if counts['clean'] else 'NOT CLEAN'}")
    return 0 if report["clean"] else 1


def bot_infos_in_worker(specs: list, overrides: tuple, config_text, progress) -> list:
    """Load bots and return what a run records of them (runs in a watched worker: see :mod:`autodup.workers`).

    With ``config_text`` (a cold start), then compile the round's end, beside the worker compiling the
    table, which finds it in the cache (:func:`autodup.game.compile_round_end`).
    """
    infos = [bot.info() for bot in load_bots_with_overrides(specs, overrides, progress)]
    if config_text is not None:
        from ..game.config import parse_config
        from ..game.rules import rules_of
        from ..game.table import compile_round_end

        compile_round_end(rules_of(parse_config(config_text)))
    return infos


def compile_table_in_worker(config_text: str, progress) -> bool:
    """Compile the table into the cache (runs in a watched worker, beside the one compiling the bots)."""
    from ..game.boards import compile_table
    from ..game.config import parse_config
    from ..game.rules import rules_of

    compile_table(rules_of(parse_config(config_text)))
    return True


def _from_manifest(args: argparse.Namespace) -> dict | None:
    """``--resume --out DIR``: fill what defines the run and was not given from DIR's manifest.

    The configuration is the folder's snapshot; bots are their recorded files
    (or the folder's copies, if those are gone). Returns their recorded
    parameters (``{bot: {name: value}}``) when the bots came from the
    manifest and no ``--bot-params`` file was given, else None.
    """
    from ..errors import RunError
    from ..tournament.storage import CONFIG_SNAPSHOT, read_manifest, recorded_bot_files

    out = Path(args.out)
    identity = read_manifest(out)["identity"]
    recorded_parameters = None
    if args.config is None:
        args.config = str(out / CONFIG_SNAPSHOT)
    if args.bots is None:
        args.bots = ",".join(recorded_bot_files(out, identity))
        if args.bot_params is None:
            recorded_parameters = {name: params for name, _, _, params in identity["bots"]}
    for option in ("boards", "dealer", "seed", "design", "events"):
        if getattr(args, option) is None:
            setattr(args, option, identity[option])
    if not isinstance(args.boards, int):
        raise RunError(f"{out}/manifest.json: boards is not a number of boards")
    return recorded_parameters


def _run_tournament(args: argparse.Namespace) -> int:
    from ..analysis.summary import play_and_summarize, warn_if_misbehaving
    from ..engine.dealers import DEFAULT_DEALER
    from ..game.boards import DEFAULT_DESIGN
    from ..game.bot_loading import bot_names
    from ..game.config import load_config
    from ..game.rules import DEFAULT_EVENTS
    from ..shipped import DEFAULT_CONFIG
    from ..tournament.spec import check_bot_count, make_spec

    recorded_parameters = None
    if args.resume and args.out is not None and Path(args.out).is_dir():
        recorded_parameters = _from_manifest(args)
    args.config = DEFAULT_CONFIG if args.config is None else args.config
    args.boards = DEFAULT_BOARDS if args.boards is None else args.boards
    args.dealer = DEFAULT_DEALER if args.dealer is None else args.dealer
    args.seed = RUN_SEED if args.seed is None else args.seed
    args.design = DEFAULT_DESIGN if args.design is None else args.design
    args.events = DEFAULT_EVENTS if args.events is None else args.events
    config = load_config(args.config)
    _warn_about_config(config)
    specs = _bot_specs(args.bots) if args.bots is not None else bot_names()
    check_bot_count(len(specs), config.players)
    overrides = _overrides(args)
    if recorded_parameters:
        overrides = (recorded_parameters, f"{args.out}/manifest.json", overrides[2])
    infos = _load_bots_and_table(config, specs, overrides, args.game_timeout)
    spec = make_spec(config, infos, args.boards, args.dealer, args.seed, args.design, args.events)
    out, summary = play_and_summarize(spec, args.out, args.workers, args.backend, args.ray_address, args.resume,
                                  args.quiet, {"command_line": sys.argv}, game_timeout=args.game_timeout)
    warn_if_misbehaving(summary)
    _print_summary(out, spec.boards, spec.boards, spec.bot_names, spec.dealer, spec.seed, summary, args.json)
    return 0


def _load_bots_and_table(config, specs: list, overrides: tuple, game_timeout: float) -> list:
    """The bots' :class:`~autodup.bots.BotInfo`, loaded in a watched process; the table compiles beside them if cold.

    Bots are user code: even loading them (importing, compiling) happens in a
    watched process. The table compiles beside them, once, so that the run's
    workers all load it from the cache.
    """
    from ..game.boards import table_is_compiled
    from ..tournament.workers import Pool

    def describe(where):
        return f"bot {specs[where.loading]} (while it was loaded)" if where.loading >= 0 else "the table"

    cold = not table_is_compiled()
    tasks = [("bots", bot_infos_in_worker, (specs, overrides, config.text if cold else None))]
    if cold:
        print("autodup: compiling the game for this machine (once per version of autodup; about a minute)...",
              file=sys.stderr)
        tasks.append(("table", compile_table_in_worker, (config.text,)))
    with Pool(len(tasks), game_timeout, describe=describe) as pool:
        return {key: result for key, result, _ in pool.run(tasks)}["bots"]


def _run_quality(args: argparse.Namespace) -> int:
    """``autodup quality``: every dealer's run and the control's, measured (see :mod:`autodup.quality`)."""
    from ..analysis.quality import (
        TRACE_BOARDS,
        TRACE_DRAWS,
        default_quality_out,
        measure_folders,
        parse_dealers,
        play_runs,
        quality_runs,
        run_folder_of,
        trace_runs,
    )
    from ..engine.dealers import CONTROL
    from ..game.bot_loading import bot_names
    from ..game.config import load_config
    from ..tournament.results import RunFolder
    from ..tournament.spec import check_bot_count, make_spec

    dealers = parse_dealers(args.dealers)
    config = load_config(args.config)
    _warn_about_config(config)
    specs = _bot_specs(args.bots) if args.bots is not None else bot_names()
    check_bot_count(len(specs), config.players)
    overrides = _overrides(args)
    if args.out is not None:
        _check_out_folder(args.out)
    infos = _load_bots_and_table(config, specs, overrides, args.game_timeout)
    runs = quality_runs(dealers, lambda dealer, design, events: make_spec(config, infos, args.boards, dealer,
                                                                          args.seed, design, events),
                        ladder=not args.no_ladder)
    out = Path(args.out) if args.out is not None else default_quality_out(config.name, args.boards, args.seed,
                                                                          runs[CONTROL])
    note = (lambda line: None) if args.quiet else (lambda line: print(f"autodup: {line}", file=sys.stderr))
    created = not out.exists()
    try:
        timings = play_runs(runs, out, args.workers, args.backend, args.ray_address, args.quiet, args.game_timeout,
                            note=note)
    except BaseException:
        if created and not any(out.rglob("chunk-*.parquet")):
            import shutil

            shutil.rmtree(out, ignore_errors=True)  # nothing finished: leave no half-made folder
        raise
    folders = {dealer: RunFolder(run_folder_of(out, dealer)) for dealer in runs}
    traces = trace_runs(folders, out, TRACE_BOARDS, TRACE_DRAWS, args.game_timeout)
    _print_quality(measure_folders(folders, out, traces, timings), out, args.json)
    return 0


def _print_quality(quality: dict, out: Path, as_json: bool) -> None:
    from ..analysis.quality import QUALITY_FILE, terminal_table
    from ..files import json_safe

    if as_json:
        print(json.dumps(json_safe(quality)))
        return
    print(terminal_table(quality))
    print(f"{out / QUALITY_FILE}; report: {out / 'report.html'}")


def _run_report(args: argparse.Namespace) -> int:
    """``autodup report RUN_DIR ... --out DIR``: measure existing runs of the same boards."""
    from ..analysis.quality import (
        TRACE_BOARDS,
        TRACE_DRAWS,
        folders_to_measure,
        measure_folders,
        recorded_timings,
        trace_runs,
    )

    folders = folders_to_measure(args.runs)
    out = Path(args.out)
    traces = None if args.no_trace else trace_runs(folders, out, TRACE_BOARDS, TRACE_DRAWS, args.game_timeout)
    _print_quality(measure_folders(folders, out, traces, recorded_timings(folders)), out, args.json)
    return 0


def _print_summary(out, boards_done: int, boards: int, bots, dealer: str, seed: int, summary: list,
                   as_json: bool) -> None:
    if as_json:
        print(json.dumps({"out": str(out), "boards": boards, "boards_done": boards_done, "summary": summary}))
        return
    done = f"{boards} boards" if boards_done == boards else f"{boards_done} of {boards} boards (unfinished)"
    print(f"{out}: {done} x {len(bots)} tables, dealer {dealer}, seed {seed}")
    print(f"{'bot':<12} {'adjusted score':>18} {'duplicate score':>18} {'mean placement':>18} {'top 4':>7}")

    def interval(value):
        return "n/a" if value is None else f"{value:.3f}"

    for row in summary:
        print(f"{row['bot']:<12} {row['adjusted_score']:>+9.3f} ± {interval(row['adjusted_score_ci95']):<6} "
              f"{row['duplicate_score']:>+9.3f} ± {interval(row['duplicate_score_ci95']):<6} "
              f"{row['mean_placement']:>9.3f} ± {interval(row['mean_placement_ci95']):<6} {row['top4_rate']:>7.3f}")
    unfitted = [row["bot"] for row in summary if row.get("luck_fitted") is False]
    if unfitted:
        print(f"too few boards to fit the luck adjustment for {', '.join(unfitted)}: "
              f"their adjusted score is the duplicate score on the boards it could not adjust")


def _comparison_specs(args: argparse.Namespace, configs: list) -> list:
    """One run spec per configuration of ``configs``, all of the same boards, bots and seating (checked first)."""
    from ..analysis.ab import DEFAULT_UNTIL_CI_BOARDS
    from ..game.bot_loading import bot_names
    from ..tournament.spec import check_bot_count, make_spec

    boards = args.boards or (DEFAULT_UNTIL_CI_BOARDS if args.until_ci is not None else DEFAULT_BOARDS)
    specs = _bot_specs(args.bots) if args.bots is not None else bot_names()
    check_bot_count(len(specs), configs[0].players)
    for config in configs[1:]:
        if config.players != configs[0].players:
            raise ValueError(f"{config.source}: players is {config.players}, the base's {configs[0].players} (allowed: "
                             "the same number of players, so that placements compare)")
    if args.out is not None:
        _check_out_folder(args.out)
    infos = _load_bots_and_table(configs[0], specs, _overrides(args), args.game_timeout)
    return [make_spec(config, infos, boards, args.dealer, args.seed, args.design, args.events) for config in configs]


def _warn_about_changes(changes: list) -> None:
    for path, old, new in changes:
        if old == new:
            print(f"autodup: warning: --set {path}: changes nothing (the base has {old!r} there already; list items "
                  "count from 0)", file=sys.stderr)


def _run_ab(args: argparse.Namespace) -> int:
    """``autodup ab BASE [VARIANT] [--set PATH=VALUE ...]``: see :mod:`autodup.ab`."""
    from ..analysis.ab import AB_FILE, ab_result, default_ab_out, format_ab, setup_of, write_json
    from ..analysis.ab_report import write_ab_report
    from ..game.config import load_config
    from ..game.variants import apply_settings, parse_setting

    base = load_config(args.base)
    _warn_about_config(base)
    if args.variant is None and not args.settings:
        raise ValueError("ab: nothing to compare (allowed: a VARIANT file, --set PATH=VALUE edits, or both)")
    variant = load_config(args.variant) if args.variant is not None else base
    if args.variant is not None:
        _warn_about_config(variant)
    changes = []
    if args.settings:
        variant, changes = apply_settings(variant, [parse_setting(option) for option in args.settings])
        _warn_about_config(variant)
        _warn_about_changes(changes)
    if variant.text == base.text:
        print("autodup: warning: the variant is the base itself: every change will be exactly 0", file=sys.stderr)
    base_spec, variant_spec = _comparison_specs(args, [base, variant])
    out = Path(args.out) if args.out is not None else default_ab_out("ab", base.name, [variant], base_spec.boards,
                                                                    args.seed, base_spec)
    comparison, = _played({"base": base_spec, "variant": variant_spec}, [("base", "variant")], out, args)
    variant_source = args.variant or base.source
    if args.settings:
        variant_source += " with --set " + " ".join(args.settings)
    result = ab_result(comparison, changes, setup_of(base_spec, args.until_ci), base.source, variant_source)
    write_json(out / AB_FILE, result)
    write_ab_report(result, out)
    if args.json:
        from ..files import json_safe

        print(json.dumps(json_safe(result)))
    else:
        print(format_ab(result, out))
    return 0


def _played(specs: dict, pairs: list, out: Path, args: argparse.Namespace) -> list:
    """Play the runs of ``specs`` into ``out`` and compare ``pairs``; an interrupted first play leaves no folder."""
    from ..analysis.ab import play_and_compare

    created = not out.exists()
    try:
        return play_and_compare(specs, pairs, out, args.workers, args.backend, args.ray_address, args.quiet,
                                args.game_timeout, args.until_ci)
    except BaseException:
        if created and not any(out.rglob("chunk-*.parquet")):
            import shutil

            shutil.rmtree(out, ignore_errors=True)  # nothing finished: leave no half-made folder
        raise


def _run_sweep(args: argparse.Namespace) -> int:
    """``autodup sweep BASE --set PATH=V1,V2,...``: see :mod:`autodup.ab`."""
    from ..analysis.ab import SWEEP_FILE, ab_result, default_ab_out, setup_of, write_json
    from ..analysis.ab_report import write_sweep_report
    from ..game.config import load_config
    from ..game.variants import apply_settings, parse_sweep

    base = load_config(args.base)
    _warn_about_config(base)
    swept = [parse_sweep(option) for option in args.settings]
    if len({len(values) for values in swept}) > 1:
        raise ValueError("--set: the swept paths have different numbers of values (allowed: the same number, "
                         "changed together)")
    variants, all_changes = [], []
    for settings in zip(*swept):
        variant, changes = apply_settings(base, list(settings))
        _warn_about_config(variant)
        _warn_about_changes(changes)
        variants.append(variant)
        all_changes.append(changes)
    specs = _comparison_specs(args, [base, *variants])
    names = ["base", *(f"value-{i}" for i in range(len(variants)))]
    out = Path(args.out) if args.out is not None else default_ab_out("sweep", base.name, variants, specs[0].boards,
                                                                    args.seed, specs[0])
    comparisons = _played(dict(zip(names, specs)), [("base", name) for name in names[1:]], out, args)
    setup = setup_of(specs[0], args.until_ci)
    points = []
    for settings, changes, comparison in zip(zip(*swept), all_changes, comparisons):
        point = ab_result(comparison, changes, {}, base.source, base.source)
        point["values"] = [s.value for s in settings]
        point["labels"] = [s.text for s in settings]
        points.append(point)
    sweep = {**setup, "paths": [values[0].dotted for values in swept],
             "base_values": [old for _, old, _ in all_changes[0]], "boards": comparisons[0]["boards"],
             "points": points}
    write_json(out / SWEEP_FILE, sweep)
    write_sweep_report(sweep, out)
    if args.json:
        from ..files import json_safe

        print(json.dumps(json_safe(sweep)))
        return 0
    print(f"{base.name}: sweep of {', '.join(sweep['paths'])} on {sweep['boards']:,} boards x {setup['tables']} "
          f"tables, dealer {setup['dealer']}, seed {setup['seed']} (base: "
          f"{', '.join(map(str, sweep['base_values']))})")
    bots = list(points[0]["bots"])
    print(f"{'value':<24}" + "".join(f"{bot:>16}" for bot in bots) + f"{'var. red.':>10}")
    for point in points:
        cells = "".join(f"{point['bots'][b]['delta_mean_placement']:>+9.3f} ±{_half(point['bots'][b]['ci']):<5}"
                        for b in bots)
        reduction = point["variance_reduction"]
        print(f"{', '.join(point['labels'])[:23]:<24}{cells}{'n/a' if reduction is None else f'{reduction:.1f}x':>10}")
    print("change of mean placement, variant - base, ± the 95% CI's half-width (lower is better)")
    print(f"{out / SWEEP_FILE}; plot: {out / 'sweep.png'}; report: {out / 'report.html'}")
    return 0


def _half(ci) -> str:
    return "n/a" if ci[0] is None or ci[1] is None else f"{(ci[1] - ci[0]) / 2:.3f}"


def _run_odds(args: argparse.Namespace) -> int:
    """``autodup odds CONFIG --level L --champion NAME ...``: the table, or JSON; the plot with ``--plot``."""
    from ..game.config import load_config
    from ..labs.odds import RollQuestion
    from ..labs.odds_report import check_plot_path, format_odds, write_odds_plot
    from ..labs.odds_simulation import roll_odds

    if args.plot:
        check_plot_path(args.plot)
    config = load_config(args.config)
    _warn_about_config(config)
    question = RollQuestion(level=args.level, champion=args.champion, out=args.out, cost_out=args.cost_out,
                            gold=args.gold, rolls=args.rolls, owned=args.owned, buy_xp=args.buy_xp, xp=args.xp)
    result = roll_odds(config, question, trials=args.trials, dealer=args.dealer, seed=args.seed,
                       holding=args.holding, other_shops=args.other_shops)
    if args.plot:
        write_odds_plot(result, args.plot)
    return _print_result(result, args.json, format_odds, f"plot: {args.plot}" if args.plot else "")


def _print_result(result: dict, as_json: bool, text, written: str = "") -> int:
    """Print ``result`` as JSON, or as ``text(result)`` followed by ``written`` (where a file went); returns 0."""
    print(json.dumps(result) if as_json else text(result) + (f"\n{written}" if written else ""))
    return 0


def _check_out_folder(out) -> None:
    """``ValueError`` (one line) unless ``--out`` is a folder, or one that can be made, that can be written to."""
    path = Path(out)
    if path.exists() and not path.is_dir():
        raise ValueError(f"--out: {out} is a file, not a folder")
    existing = path.absolute()
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise ValueError(f"--out: {out} cannot be written to ({existing} is not a writable folder)")


def _run_shuffles(args: argparse.Namespace) -> int:
    """``autodup shuffles [--methods ...] [--cards N] ...``: the lab's table, or JSON; the page with ``--out``."""
    from tqdm import tqdm

    from ..labs.shuffle_kernels import DEFAULT_CARDS, DEFAULT_METHODS, DEFAULT_RUNS, parse_methods
    from ..labs.shuffles import read_decks, shuffle_lab
    from ..labs.shuffles_report import deck_names, format_shuffles, write_shuffles

    given = {name: (path, read_decks(path)) for name, path in deck_names(args.decks or []).items()}
    sizes = {decks.shape[1] for _, decks in given.values()}
    if len(sizes) > 1:
        raise ValueError(f"--decks: the files hold decks of {' and '.join(map(str, sorted(sizes)))} cards (allowed: "
                         "one size)")
    if args.cards is not None and sizes and sizes != {args.cards}:
        raise ValueError(f"--cards {args.cards}: the --decks hold {sizes.pop()} cards")
    cards = args.cards or (sizes.pop() if sizes else DEFAULT_CARDS)
    methods = args.methods or parse_methods("S" if given else ",".join(DEFAULT_METHODS))
    clash = set(methods) & set(given)
    if clash:
        raise ValueError(f"--decks: {sorted(clash)[0]} is also the name of a method (rename the file)")
    runs = args.runs or (-(-max(decks.shape[0] for _, decks in given.values()) // args.shuffles) if given else
                         DEFAULT_RUNS)
    if args.out:
        _check_out_folder(args.out)
    with tqdm(total=len(methods) + len(given) + (1 if args.riffle_deals else 0), desc="shuffle lab", unit="method",
              disable=None, leave=False) as bar:
        started = []

        def progress(name):  # called as each method starts: the one before it is done
            bar.update(1 if started else 0)
            started.append(name)
            bar.set_postfix_str(name)

        result, experiments = shuffle_lab(methods, cards, runs, args.shuffles, args.seed, args.replicates,
                                          args.riffle_deals, progress, given)
    for warning in result["warnings"]:
        print(f"autodup: warning: {warning}", file=sys.stderr)
    written = f"\nreport: {write_shuffles(result, experiments, args.out)}" if args.out else ""
    return _print_result(result, args.json, format_shuffles, written)


def _run_summary(args: argparse.Namespace) -> int:
    """``autodup summary DIR``: a run's summary, read from its chunks (checked) without writing anything."""
    from ..tournament.results import RunFolder

    folder = RunFolder(args.out)
    done = folder.boards_done()
    if not done:
        raise ValueError(f"{folder.path}: no finished chunk yet (nothing to summarize)")
    identity = folder.identity
    _print_summary(folder.path, done, identity["boards"], folder.bot_names, identity["dealer"], identity["seed"],
                   folder.summary(), args.json)
    return 0


# Commands that keep what they finished when stopped (run folders, a report's traces).
_COMMANDS_THAT_KEEP_WORK = frozenset({"run", "quality", "ab", "sweep", "report"})


def main(argv: list[str] | None = None) -> int:
    """Run one command; returns the exit code (0, 1 for a check that is not clean, 2 for an error,
    130 or 143 when Ctrl-C or SIGTERM stopped it)."""
    from ..errors import Stopped, TaskError, WorkerFailure, first_line

    command = None
    try:
        args = build_parser().parse_args(argv)
        command = args.command
        from ..errors import ConfigError
        from ..tournament.workers import SignalFlag

        commands = {"toy": _run_toy, "check": _run_check, "play": _run_play, "bots": _run_bots,
                    "check-bot": _run_check_bot, "run": _run_tournament, "summary": _run_summary,
                    "quality": _run_quality, "report": _run_report, "ab": _run_ab, "sweep": _run_sweep,
                    "odds": _run_odds, "shuffles": _run_shuffles}
        # Ctrl-C and SIGTERM stop any command at any moment with one line; while games are played, the
        # worker pool takes over and stops between polls (see autodup.workers).
        with SignalFlag(immediate=True):
            try:
                return commands[args.command](args)
            except ConfigError as error:  # already "FILE:LINE: field.path: what is wrong (what is allowed)"
                print(error, file=sys.stderr)
                return 2
    except BrokenPipeError:  # `autodup bots | head`: the reader has gone, and wants nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nor at exit, when stdout is flushed
        return 1
    except (ValueError, WorkerFailure, TaskError) as error:  # one line each, whatever process raised it
        print(f"autodup: error: {first_line(error)}", file=sys.stderr)
        return 2
    except (OSError, RuntimeError) as error:  # files, disks, worker processes, a Ray cluster
        print(f"autodup: error: {type(error).__name__}: {first_line(error)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as stop:  # Ctrl-C, or SIGTERM (autodup.errors.Stopped)
        signal_number = stop.signal_number if isinstance(stop, Stopped) else 2
        what = "terminated" if signal_number == 15 else "interrupted"
        kept = ("; finished work is kept (run again with --resume to finish a run)" if command == "run" else
                "; finished work is kept" if command in _COMMANDS_THAT_KEEP_WORK else "")
        print(f"autodup: {what}{kept}", file=sys.stderr)
        return 128 + signal_number


if __name__ == "__main__":
    sys.exit(main())
