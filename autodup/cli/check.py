"""``autodup check``: validate a game configuration (YAML) and summarize it."""

from __future__ import annotations

from .options import add_config, warn

__all__ = ["add_arguments", "run"]


def add_arguments(parser) -> None:
    add_config(parser)


def run(args) -> int:
    from .. import api

    config = api.load_config(args.config)
    for line in config.warnings:
        warn(line)
    print(config.summary())
    return 0
