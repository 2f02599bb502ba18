"""What the commands share: the parser (one-line errors, defaults in the help), argument types with their
ranges, option groups, and how a command prints warnings, news and JSON.

This module imports nothing heavy: ``autodup --help`` loads it and nothing of the game.
"""

from __future__ import annotations

import argparse
import json
import sys

from .. import arguments
from ..arguments import MAX_WORKERS
from ..errors import UsageError

__all__ = ["MAX_WORKERS", "Parser", "add_config", "add_value_option", "bots_help", "events_help", "positive_int", "count", "count_up_to",
           "integer_between", "seconds", "board_index", "seed", "switch", "width", "add_game_timeout",
           "add_workers_and_backend", "add_bot_parameter_options", "add_execution_options", "bot_parameters", "warn",
           "note", "print_json"]



def _parsed(check, text: str, *limits, base: int = 10, number=int):
    """``text`` read as a ``number`` and passed to ``check`` of :mod:`autodup.arguments` (the ranges the API
    checks too); argparse names the option in front of the message."""
    try:
        value = number(text, base) if number is int else number(text)
    except ValueError:
        value = text  # not a number: the check refuses the text itself, naming what is allowed as the API does
    try:
        return check(None, value, *limits)
    except UsageError as error:
        raise argparse.ArgumentTypeError(error.message) from None


def add_config(parser, name: str = "config", what: str = "the configuration", default=True) -> None:
    """The configuration argument, one rule for every command: a positional argument, the first (check-bot's
    comes after its bot), that may be left out (set4); a shipped configuration's name or a YAML file's path.

    ``default=False`` leaves the default to the command (``run --resume`` takes the run's own)."""
    from ..shipped import DEFAULT_CONFIG, config_names

    parser.add_argument(name, nargs="?", default=DEFAULT_CONFIG if default else None,
                        help=f"{what}: a shipped configuration ({', '.join(config_names())}) or the path of a YAML "
                             f"file (default: {DEFAULT_CONFIG})")


def add_value_option(parser) -> None:
    """``--value``: the value file the runs' placements are corrected by (``run``, ``quality``, ``ab``, ``sweep``)."""
    parser.add_argument("--value", default="auto", help="the value file each row's placement is corrected by at "
                        "every chance event (autodup luck fit writes them); auto (the default): the one shipped for "
                        "the configuration, if fitted on its very text; none: no correction")


def bots_help(default: str = "every shipped bot", least: int = 1) -> str:
    """The help of ``--bots``, in a user's words: what may be listed and how many."""
    many = "at least 2 and " if least == 2 else ""
    return (f"the bots, comma-separated: names (autodup bots), paths of bot files or Python agents (module:Class or "
            f"file.py:Class), each once, {many}at most as many as the configuration has seats (default: {default})")


def events_help() -> str:
    """The help of ``--events`` (run, ab, sweep), in a user's words: what it keys, and why seat is the default."""
    from ..game.rules import DEFAULT_EVENTS, EVENT_ADDRESSING

    return (f"what a table's chance events (pairings, who is served first from the shared pool, the combat coin) are "
            f"keyed by: {' or '.join(EVENT_ADDRESSING)} (default: {DEFAULT_EVENTS}; seat: by whom they concern, so "
            "tables stay alike after a difference; position: by place in the round's order)")


def positive_int(text: str) -> int:
    return _parsed(arguments.integer, text, 1)


def count(text: str) -> int:
    return _parsed(arguments.integer, text, 0)


def count_up_to(limit: int):
    """An argparse type: an integer from 1 to ``limit`` (a larger value is surely a typo, and one line says so)."""
    return integer_between(1, limit)


def integer_between(low: int, high: int):
    """An argparse type: an integer from ``low`` to ``high``, the range its error names."""
    def parse(text: str) -> int:
        return _parsed(arguments.integer, text, low, high)

    return parse


def seconds(text: str) -> float:
    return _parsed(arguments.seconds, text, number=float)


def board_index(text: str) -> int:
    return _parsed(arguments.integer, text, 0, arguments.MAX_INDEX)


def seed(text: str) -> int:
    return _parsed(arguments.seed, text, base=0)  # base 0 reads 0x... and 0b... too


def switch(text: str) -> bool:
    if text not in ("on", "off"):
        raise argparse.ArgumentTypeError(f"{text!r} is not on or off (allowed: on, off)")
    return text == "on"


def width(text: str) -> float:
    return _parsed(arguments.half_width, text, number=float)


class _HelpWithDefaults(argparse.HelpFormatter):
    """Every option's help ends with its default, unless the help says it or there is none to say."""

    def _get_help_string(self, action):
        text = action.help or ""
        nothing = action.default is None or action.default is False or action.default == [] \
            or action.default == argparse.SUPPRESS
        if "default" in text or nothing or not action.option_strings and action.nargs is None:
            return text
        return f"{text} (default: %(default)s)"


class Parser(argparse.ArgumentParser):
    """argparse's parser with one-line errors (exit 2, no usage dump) and defaults in the help."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", _HelpWithDefaults)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:
        self.exit(2, f"autodup: error: {message}\n")


def add_game_timeout(parser: argparse.ArgumentParser) -> None:
    from ..tournament.workers import DEFAULT_GAME_TIMEOUT

    parser.add_argument("--game-timeout", type=seconds, default=DEFAULT_GAME_TIMEOUT, metavar="SECONDS",
                        help="a game running longer than this is stopped and its bot reported (a game takes "
                             f"milliseconds; default {DEFAULT_GAME_TIMEOUT:g})")


def add_bot_parameter_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--bot-param", action="append", default=[], metavar="BOT.NAME=VALUE",
                        help="override a bot parameter (repeatable)")
    parser.add_argument("--bot-params", metavar="FILE", help="YAML file mapping bot names to {parameter: value}")


def add_workers_and_backend(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--workers", type=count_up_to(MAX_WORKERS), default=arguments.workers(None, None),
                        help="processes (default: one per core; never more than a run's chunks, plus one)")
    parser.add_argument("--backend", default="local", choices=arguments.BACKENDS, help="local processes or Ray")


def add_execution_options(parser: argparse.ArgumentParser, json_help: str) -> None:
    """How the games of ``quality``, ``ab`` and ``sweep`` are played and what is printed."""
    add_workers_and_backend(parser)
    parser.add_argument("--ray-address", help="address of a Ray cluster (default: start one here)")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    parser.add_argument("--json", action="store_true", help=json_help)
    add_game_timeout(parser)
    add_bot_parameter_options(parser)


def bot_parameters(args: argparse.Namespace) -> dict:
    """The API's bot parameter arguments from ``--bot-param`` and ``--bot-params``."""
    return {"bot_params": args.bot_param, "bot_param_file": args.bot_params}


def warn(line: str) -> None:
    """A warning on standard error: ``autodup: warning: LINE``, or the line itself when it names its own place
    (a configuration's warnings read ``FILE:LINE: field: warning: ...``)."""
    print(line if ": warning: " in line else f"autodup: warning: {line}", file=sys.stderr)


def note(line: str) -> None:
    """News on standard error: ``autodup: LINE``."""
    print(f"autodup: {line}", file=sys.stderr)


def print_json(data, safe: bool = True) -> None:
    """``data`` as one line of JSON on standard output (with ``safe``, NaN and infinities as null)."""
    from ..files import json_safe

    print(json.dumps(json_safe(data) if safe else data))
