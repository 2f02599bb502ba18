"""Command line: ``autodup toy``, ``autodup check``. Bad input gets one line on stderr and exit code 2."""

from __future__ import annotations

import argparse
import json
import sys


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
    check = commands.add_parser("check", help="validate a game configuration (YAML) and summarize it")
    check.add_argument("config", help="path to a configuration file, e.g. configs/set4.yaml")
    return parser


def _run_toy(args: argparse.Namespace) -> int:
    from .toy import format_figures, toy_figures

    result = toy_figures(trials=args.trials, seed=args.seed)
    print(json.dumps(result) if args.json else format_figures(result))
    return 0


def _run_check(args: argparse.Namespace) -> int:
    from .config import load_config

    print(load_config(args.config).summary())
    return 0


def main(argv: list[str] | None = None) -> int:
    from .config import ConfigError

    args = build_parser().parse_args(argv)
    try:
        return {"toy": _run_toy, "check": _run_check}[args.command](args)
    except ConfigError as error:  # already "FILE:LINE: field.path: what is wrong (what is allowed)"
        print(error, file=sys.stderr)
        return 2
    except ValueError as error:
        print(f"autodup: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
