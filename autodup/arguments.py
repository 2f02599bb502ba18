"""The ranges of the arguments every entry point shares (boards, seeds, workers, seconds, choices), checked the
same way from Python and from the command line.

Each check takes the argument's name and its value and returns the value as autodup uses it, or raises a
:class:`~autodup.errors.UsageError` whose message starts with the name. The API names its parameters
(``boards: 'abc' is not an integer (allowed: 1 to 1,000,000,000)``); the command line prints the same error
with the option's spelling (``--boards: ...``), through :meth:`UsageError.for_command_line`.

This module imports nothing heavy, so the command line's types use it before loading numba.
"""

from __future__ import annotations

import numbers
import os

from .errors import UsageError

__all__ = ["MAX_BOARDS", "MAX_SEED", "MAX_WORKERS", "MAX_SECONDS", "MIN_SECONDS", "MAX_INDEX", "BACKENDS", "integer",
           "seed", "cores", "workers", "seconds",
           "half_width", "choice", "optional"]

MAX_BOARDS = 10**9   # a billion boards is months of a large cluster; more is surely a typo
MAX_SEED = 2**64 - 1  # seeds are 64-bit words of the seed tree
MAX_WORKERS = 256     # each worker holds its own compiled code (about 100 MB)
MAX_SECONDS = 10**7
# A game's time is looked at every MIN_SECONDS (autodup.tournament.workers.POLL_SECONDS is this): a shorter timeout
# would stop every game in progress at a look, and name its bot as the one that hung.
MIN_SECONDS = 0.1
MAX_INDEX = 2**63 - 1  # a board or table index: a signed 64-bit integer in the jitted code
BACKENDS = ("local", "ray")  # worker processes on this machine, or a Ray cluster


def integer(argument: str, value, low: int = 0, high: int | None = None) -> int:
    """``value`` as an int from ``low`` to ``high`` (inclusive; no upper bound when None).

    A bool, a float (even ``2.0``) or a text is not an integer: a value that must be read is for the command
    line's parser, and a float here is surely a slip.

    Examples
    --------
    >>> integer("boards", 100, 1, MAX_BOARDS)
    100
    >>> integer("boards", "abc", 1, MAX_BOARDS)
    Traceback (most recent call last):
    ...
    autodup.errors.UsageError: boards: 'abc' is not an integer (allowed: 1 to 1,000,000,000)
    >>> integer("boards", 0, 1)
    Traceback (most recent call last):
    ...
    autodup.errors.UsageError: boards: 0 is out of range (allowed: 1 or more)
    """
    allowed = f"{low:,} to {high:,}" if high is not None else f"{low:,} or more"
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise UsageError(f"{value!r} is not an integer (allowed: {allowed})", argument)
    value = int(value)
    if value < low or high is not None and value > high:
        raise UsageError(f"{value:,} is out of range (allowed: {allowed})", argument)
    return value


def seed(argument: str, value) -> int:
    """A seed of the seed tree: an int from 0 to 2**64 - 1.

    Examples
    --------
    >>> seed("seed", 2**64)
    Traceback (most recent call last):
    ...
    autodup.errors.UsageError: seed: 18,446,744,073,709,551,616 is out of range (allowed: 0 to 18,446,744,073,709,551,615)
    """
    return integer(argument, value, 0, MAX_SEED)


def cores() -> int:
    """The cores of this machine (1 if the system cannot tell): one worker each by default."""
    return os.cpu_count() or 1


def workers(argument: str, value) -> int:
    """Worker processes: ``None`` means one per core; else an int from 1 to :data:`MAX_WORKERS`.

    Examples
    --------
    >>> workers("workers", None) >= 1
    True
    >>> workers("workers", 0)
    Traceback (most recent call last):
    ...
    autodup.errors.UsageError: workers: 0 is out of range (allowed: 1 to 256)
    """
    if value is None:
        return cores()
    return integer(argument, value, 1, MAX_WORKERS)


def seconds(argument: str, value) -> float:
    """A duration in seconds from :data:`MIN_SECONDS` (how often a game's time is looked at) to below
    :data:`MAX_SECONDS`.

    Examples
    --------
    >>> seconds("game_timeout", 0)
    Traceback (most recent call last):
    ...
    autodup.errors.UsageError: game_timeout: 0 is out of range (allowed: at least 0.1 and less than 10,000,000 ...
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise UsageError(f"{value!r} is not a number of seconds", argument)
    if not MIN_SECONDS <= value < MAX_SECONDS:
        raise UsageError(f"{value:g} is out of range (allowed: at least {MIN_SECONDS:g} and less than "
                         f"{MAX_SECONDS:,} seconds; a game's time is looked at every {MIN_SECONDS:g} s)", argument)
    return float(value)


def half_width(argument: str, value) -> float:
    """A wanted half-width of a 95% interval, in placements: more than 0 and less than 100.

    Examples
    --------
    >>> half_width("until_ci", 0.05)
    0.05
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise UsageError(f"{value!r} is not a number (allowed: a half-width in placements)", argument)
    if not 0 < value < 100:
        raise UsageError(f"{value:g} is out of range (allowed: a half-width in placements, more than 0 and less "
                         "than 100)", argument)
    return float(value)


def choice(argument: str, value, allowed) -> str:
    """``value`` if it is one of ``allowed`` (names).

    Examples
    --------
    >>> choice("design", "square", ["latin", "paired"])
    Traceback (most recent call last):
    ...
    autodup.errors.UsageError: design: unknown value 'square' (allowed: latin, paired)
    """
    if not isinstance(value, str) or value not in allowed:
        raise UsageError(f"unknown value {value!r} (allowed: {', '.join(allowed)})", argument)
    return value


def optional(check, argument: str, value, *limits):
    """``None`` if ``value`` is None, else ``check(argument, value, *limits)``."""
    return None if value is None else check(argument, value, *limits)
