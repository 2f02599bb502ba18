"""One line for any error: how the command line, the workers and the loaders report a failure.

This module imports nothing heavy, so the command line can name and catch every failure before (and
without) loading numba.
"""

from __future__ import annotations

import re
import signal
import sys
from dataclasses import dataclass

__all__ = ["without_colours", "first_line", "print_warning", "Stopped", "Where", "WorkerFailure", "TaskError"]

_COLOURS = re.compile(r"\x1b\[[0-9;]*m")
# numba prefixes its messages with the pipeline stage; those lines say nothing to a user.
_NOISE = ("Failed in", "During:")


def without_colours(text: str) -> str:
    """``text`` without terminal colour codes (numba colours its messages)."""
    return _COLOURS.sub("", text)


def first_line(error) -> str:
    """The most telling line of an error (or of a text), or the error's class name when it says nothing."""
    lines = [without_colours(line).strip() for line in str(error).splitlines()]
    lines = [line for line in lines if line and not line.startswith(_NOISE)]
    if lines:
        return lines[0]
    return type(error).__name__ if isinstance(error, BaseException) else ""


def print_warning(line: str) -> None:
    """Print ``autodup: warning: LINE`` on standard error: one line, whatever went wrong."""
    print(f"autodup: warning: {line}", file=sys.stderr)


class Stopped(KeyboardInterrupt):
    """Ctrl-C or SIGTERM stopped the pool; ``signal_number`` says which."""

    def __init__(self, signal_number: int):
        super().__init__(signal.Signals(signal_number).name)
        self.signal_number = signal_number


@dataclass(frozen=True)
class Where:
    """Where a worker was when something happened: board, table and the seat deciding (-1: none), or the
    index of the bot it was loading (``loading`` >= 0, outside any game)."""

    board: int
    table: int
    seat: int
    loading: int = -1


class WorkerFailure(RuntimeError):
    """A worker hung or died while playing; ``str()`` is one line.

    Attributes
    ----------
    kind : str
        ``"hang"`` (a game outlived its deadline) or ``"crash"`` (the process died).
    where : Where or None
        Where the game was, if a game was in progress.
    """

    def __init__(self, message: str, kind: str, where):
        super().__init__(message)
        self.kind = kind
        self.where = where

    def __reduce__(self):  # crosses processes (Ray) whole
        return type(self), (str(self), self.kind, self.where)


class TaskError(RuntimeError):
    """A task raised in a worker; ``str()`` is its one-line message, ``kind`` the exception's class name."""

    def __init__(self, message: str, kind: str):
        super().__init__(message)
        self.kind = kind

    def __reduce__(self):
        return type(self), (str(self), self.kind)
