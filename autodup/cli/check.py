"""``autodup check``: validate a game configuration (YAML) and summarize it."""

from __future__ import annotations

from .options import warn

__all__ = ["add_arguments", "run"]


def add_arguments(parser) -> None:
    from ..shipped import config_names

    parser.add_argument("config", help=f"a shipped configuration ({', '.join(config_names())}) or the path of a "
                        "YAML file")


def run(args) -> int:
    from .. import api

    config = api.load_config(args.config)
    for line in config.warnings:
        warn(line)
    print(config.summary())
    return 0
