"""What the commands share: the parser (one-line errors, defaults in the help), argument types with their
ranges, option groups, and how a command prints warnings, news and JSON.

This module imports nothing heavy: ``autodup --help`` loads it and nothing of the game.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from ..arguments import MAX_WORKERS

__all__ = ["MAX_WORKERS", "Parser", "positive_int", "count", "count_up_to", "seconds", "board_index", "seed",
           "switch", "width", "bots_option", "add_game_timeout", "add_bot_parameter_options",
           "add_execution_options", "bot_parameters", "warn", "note", "silent", "print_json"]



def _integer(text: str, low: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < low:
        raise argparse.ArgumentTypeError(f"{text} is {'not positive' if low == 1 else 'negative'} (allowed: {low} or "
                                         "more)")
    return value


def positive_int(text: str) -> int:
    return _integer(text, 1)


def count(text: str) -> int:
    return _integer(text, 0)


def count_up_to(limit: int):
    """An argparse type: an integer from 1 to ``limit`` (a larger value is surely a typo, and one line says so)."""
    def parse(text: str) -> int:
        value = positive_int(text)
        if value > limit:
            raise argparse.ArgumentTypeError(f"{text} is too many (allowed: 1 to {limit:,})")
        return value

    return parse


def seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value < 10**7:
        raise argparse.ArgumentTypeError(f"{text} is out of range (allowed: more than 0 and less than 10,000,000 "
                                         "seconds)")
    return value


def _integer_in(text: str, high: int, allowed: str, base: int = 10) -> int:
    """An integer from 0 to below ``high`` (``base`` 0 reads 0x... and 0b... too)."""
    try:
        value = int(text, base)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if not 0 <= value < high:
        raise argparse.ArgumentTypeError(f"{text} is out of range (allowed: {allowed})")
    return value


def board_index(text: str) -> int:
    return _integer_in(text, 2**63, "0 or more")


def seed(text: str) -> int:
    return _integer_in(text, 2**64, "0 .. 2**64-1", base=0)


def switch(text: str) -> bool:
    if text not in ("on", "off"):
        raise argparse.ArgumentTypeError(f"{text!r} is not on or off (allowed: on, off)")
    return text == "on"


def width(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value < 100:
        raise argparse.ArgumentTypeError(f"{text} is out of range (allowed: a half-width in placements, more than 0 "
                                         "and less than 100)")
    return value


def bots_option(text: str | None) -> list | None:
    """``--bots``: comma-separated names or paths (None: not given)."""
    if text is None:
        return None
    specs = [part.strip() for part in text.split(",")]
    if not all(specs):
        raise ValueError(f"--bots: {text!r} names no bot at some position (allowed: comma-separated names or paths)")
    return specs


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


def add_execution_options(parser: argparse.ArgumentParser, json_help: str) -> None:
    """How the games of ``quality``, ``ab`` and ``sweep`` are played and what is printed."""
    parser.add_argument("--workers", type=count_up_to(MAX_WORKERS), default=os.cpu_count() or 1, help="processes")
    parser.add_argument("--backend", default="local", choices=("local", "ray"), help="local processes or Ray")
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


def silent(line: str) -> None:
    """For ``--quiet``: news not printed."""


def print_json(data, safe: bool = True) -> None:
    """``data`` as one line of JSON on standard output (with ``safe``, NaN and infinities as null)."""
    from ..files import json_safe

    print(json.dumps(json_safe(data) if safe else data))
