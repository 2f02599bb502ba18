"""The exception family, and one line for any error: how the API, the command line, the workers and the
loaders report a failure.

Everything autodup raises for a cause outside its own code (a bad input, a broken bot, a damaged run
folder, a worker that hung) is an :class:`AutodupError`, whose ``str()`` is one line naming the file,
field or option, what is wrong and what is allowed::

    AutodupError
    ├── ConfigError       an invalid configuration (file, line, field)
    ├── BotError          an unusable bot file or bot option
    │   └── PolicyError   a ``decide`` that cannot compile, in the bot author's terms
    ├── ValueFileError    an unusable value file (autodup luck fit writes them)
    ├── RunError          a run that cannot start, resume or be read
    │   ├── CorruptChunk  a results file whose content is not what was written
    │   └── OtherRun      a folder that holds a run of other arguments or files
    ├── UsageError        an argument out of its range (an option of the command line, a parameter of the API)
    ├── WorkerFailure     a worker hung or died while playing
    └── TaskError         a task raised in a worker

Each keeps the built-in base it had (``ValueError`` for bad input, ``RuntimeError`` for a worker), so
``except ValueError`` still catches what it caught. Ctrl-C and SIGTERM stay ``KeyboardInterrupt``
(:class:`Stopped`): they are not errors of the input. The command line prints ``autodup: error: <str(error)>``
(with the option's spelling for an error that :class:`NamesAnArgument`; a :class:`ConfigError` as it is) and
exits 2 for any of them.

This module imports nothing heavy, so the command line can name and catch every failure before (and
without) loading numba.
"""

from __future__ import annotations

import re
import signal
import sys
import threading
from dataclasses import dataclass

__all__ = ["without_colours", "first_line", "named", "one_line", "counted", "printable", "print_warning",
           "AutodupError", "mention", "ConfigError", "BotError", "PolicyError", "ValueFileError", "RunError",
           "CorruptChunk", "OtherRun", "UsageError", "NamesAnArgument", "WorkerFailure", "TaskError", "Stopped",
           "lost_stop", "refuse_work_after_a_lost_stop", "Where", "is_stop"]

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


def counted(number: int, noun: str) -> str:
    """``"1 board"``, ``"1,000 boards"``: a count and its noun, singular for one."""
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


def named(error: BaseException) -> str:
    """``Kind: its most telling line``, or the kind alone for an error that says nothing (``raise KeyboardInterrupt``:
    not ``KeyboardInterrupt: KeyboardInterrupt``).

    Examples
    --------
    >>> named(ZeroDivisionError("division by zero")), named(KeyboardInterrupt())
    ('ZeroDivisionError: division by zero', 'KeyboardInterrupt')
    """
    said = first_line(error)
    return type(error).__name__ if said in ("", type(error).__name__) else f"{type(error).__name__}: {said}"


def one_line(text: str) -> str:
    """``text`` with every unprintable character escaped (``\\n``, ``\\x1b``), so a message stays one line."""
    if text.isprintable():
        return text
    return "".join(character if character.isprintable() else repr(character)[1:-1] for character in text)


def printable(text: str) -> str:
    """``text`` with every unprintable character but line breaks and tabs escaped (``\\x1b``): what a terminal
    is shown, so that a name read from a file cannot recolour or retitle it."""
    if text.isprintable():
        return text
    return "".join(character if character.isprintable() or character in "\n\t" else repr(character)[1:-1]
                   for character in text)


class AutodupError(Exception):
    """Base of every error autodup raises for a cause outside its own code; ``str()`` is one line."""


class NamesAnArgument:
    """An error about one argument: ``str()`` starts with its Python name (``game_timeout: ...``), and
    :meth:`for_command_line` with the command line's option (``--game-timeout: ...``).

    Parameters
    ----------
    message : str
        What is wrong, then what is allowed in parentheses.
    argument : str, optional
        The parameter's name; without one, the message stands alone.
    """

    # Parameters whose option is not their name with dashes.
    OPTIONS = {"settings": "--set", "bot_params": "--bot-param"}
    # Other arguments a message may name in what it allows (marked by :func:`mention`), as the Python API and
    # the command line spell them.
    MENTIONED = {"resume": ("resume=True", "--resume"), "ray_address": ("ray_address", "--ray-address")}

    def __init__(self, message: str, argument: str | None = None):
        self.marked_message, self.argument = message, argument
        self.message = _spell_mentions(message, 0)
        super().__init__(one_line(f"{argument}: {self.message}" if argument else self.message))

    def __reduce__(self):
        return type(self), (self.marked_message, self.argument)

    def for_command_line(self) -> str:
        """The message with the argument spelled as the command line's option (and the arguments it mentions)."""
        message = _spell_mentions(self.marked_message, 1)
        if not self.argument:
            return one_line(message)
        option = self.OPTIONS.get(self.argument, f"--{self.argument.replace('_', '-')}")
        return one_line(f"{option}: {message}")


# A NUL cannot be in a path, an option's text or a configuration, so a mark cannot be taken for what a user wrote.
_MENTION = "\0"


def mention(argument: str) -> str:
    """A mark, in a message of a :class:`NamesAnArgument` error, for another argument it names: spelled
    ``resume=True`` in ``str()``, ``--resume`` in :meth:`NamesAnArgument.for_command_line`, so that a layer
    below both can say what is allowed in each one's terms.

    Examples
    --------
    >>> error = RunError(f"a run is there (allowed: resuming it, with {mention('resume')})", "out")
    >>> str(error)
    'out: a run is there (allowed: resuming it, with resume=True)'
    >>> error.for_command_line()
    '--out: a run is there (allowed: resuming it, with --resume)'
    """
    if argument not in NamesAnArgument.MENTIONED:
        raise KeyError(f"no spelling of {argument!r} for a message (known: {', '.join(NamesAnArgument.MENTIONED)})")
    return f"{_MENTION}{argument}{_MENTION}"


def _spell_mentions(message: str, side: int) -> str:
    """``message`` with each :func:`mention` spelled for the API (``side`` 0) or the command line (1)."""
    if _MENTION not in message:
        return message
    for argument, spellings in NamesAnArgument.MENTIONED.items():
        message = message.replace(f"{_MENTION}{argument}{_MENTION}", spellings[side])
    return message


class UsageError(NamesAnArgument, AutodupError, ValueError):
    """An argument out of its range: an option of the command line or a parameter of the Python API.

    Parameters
    ----------
    message : str
        What is wrong, then what is allowed in parentheses.
    argument : str, optional
        The parameter's name (``"game_timeout"``); ``str()`` starts with it, and :meth:`for_command_line`
        with the option's spelling.

    Examples
    --------
    >>> error = UsageError("0 is out of range (allowed: 1 or more)", "game_timeout")
    >>> str(error), error.for_command_line()
    ('game_timeout: 0 is out of range (allowed: 1 or more)', '--game-timeout: 0 is out of range (allowed: 1 or more)')
    """


class ConfigError(AutodupError, ValueError):
    """An invalid configuration; ``str(error)`` is the one-line message.

    Parameters
    ----------
    file : str
        The file (or the name given to :func:`autodup.game.config.parse_config`).
    line : int
        1-based line, or 0 when no line applies (the whole file).
    path : str
        The dotted field path, or ``""``.
    message : str
        What is wrong, then what is allowed in parentheses.

    Examples
    --------
    >>> str(ConfigError("my.yaml", 12, "shop.size", "0 (allowed: 1 to 20)"))
    'my.yaml:12: shop.size: 0 (allowed: 1 to 20)'
    """

    def __init__(self, file: str, line: int, path: str, message: str):
        self.file, self.line, self.path, self.message = file, line, path, message
        location = f"{file}:{line}" if line else file
        super().__init__(one_line(f"{location}: {path}: {message}" if path else f"{location}: {message}"))

    def __reduce__(self):  # crosses processes whole
        return type(self), (self.file, self.line, self.path, self.message)


class BotError(NamesAnArgument, AutodupError, ValueError):
    """A bot file or a bot option is unusable; ``str()`` is one line naming the file or option."""


class PolicyError(BotError):
    """A ``decide`` that cannot become a policy, explained in the terms of the docs (not numba's)."""


class ValueFileError(AutodupError, ValueError):
    """A value file (``autodup luck fit``) that cannot be used; ``str()`` is one line naming the file and field."""


class RunError(NamesAnArgument, AutodupError, ValueError):
    """A run that cannot start, resume or be read; ``str()`` is one line."""


class CorruptChunk(RunError):
    """A chunk file whose content is not what was written (a checksum or an invariant fails); ``folder`` is its run
    folder, whose resume plays it again."""

    def __init__(self, message: str, argument: str | None = None, folder=None):
        super().__init__(message, argument)
        self.folder = folder

    def __reduce__(self):
        return type(self), (self.marked_message, self.argument, self.folder)


class OtherRun(RunError):
    """A folder that holds a run of other arguments or files than those given; ``differing`` names them
    (``"boards differ"``), for a command that says it in its own words."""

    def __init__(self, message: str, argument: str | None = None, differing: str = ""):
        super().__init__(message, argument)
        self.differing = differing

    def __reduce__(self):
        return type(self), (self.marked_message, self.argument, self.differing)


def print_warning(line: str) -> None:
    """Print ``autodup: warning: LINE`` on standard error: one line, whatever went wrong."""
    print(f"autodup: warning: {line}", file=sys.stderr)


class Stopped(KeyboardInterrupt):
    """Ctrl-C or SIGTERM stopped the pool; ``signal_number`` says which."""

    def __init__(self, signal_number: int):
        super().__init__(signal.Signals(signal_number).name)
        self.signal_number = signal_number


def is_stop(error: BaseException) -> bool:
    """Whether ``error`` is Ctrl-C or SIGTERM stopping the command, not a ``KeyboardInterrupt`` that user code (a bot's
    file at import, an agent's ``act``) raised: a loader or a table passes a stop on, and reports the code's as the
    code's failure.

    Ctrl-C reaches a command as :class:`Stopped` (its handler's) or as a flag, never in a thread other than the
    main one, and not at all in a worker process, which ignores it; a plain ``KeyboardInterrupt`` in any of these
    came from a ``raise``. So it does where SIGINT is blocked. Under Python's own handler the two look alike, so
    it counts as a stop there. (Under another program's handler that raises a plain one, as asyncio's does at a
    second Ctrl-C, a real one counts as the code's: the load fails in one line.)
    """
    if not isinstance(error, KeyboardInterrupt):
        return False
    if isinstance(error, Stopped):
        return True
    if threading.current_thread() is not threading.main_thread():
        return False
    mask = getattr(signal, "pthread_sigmask", None)  # not on Windows
    blocked = mask is not None and signal.SIGINT in mask(signal.SIG_BLOCK, [])
    return not blocked and signal.getsignal(signal.SIGINT) is signal.default_int_handler


# A stop whose exception was lost: raised while a finalizer ran (multiprocessing closing a pool), which Python reports
# and goes on from. The command line records it (autodup.cli); work that has not started then refuses to start.
_LOST_STOP = [0]


def lost_stop(signal_number: int | None = None) -> int:
    """The signal number of a stop whose exception was lost (0: none); with ``signal_number``, record it (0 forgets)."""
    if signal_number is not None:
        _LOST_STOP[0] = signal_number
    return _LOST_STOP[0]


def refuse_work_after_a_lost_stop() -> None:
    """Raise :class:`Stopped` if a stop's exception was lost since the command began (see :func:`lost_stop`)."""
    if _LOST_STOP[0]:
        raise Stopped(_LOST_STOP[0])


@dataclass(frozen=True)
class Where:
    """Where a worker was when something happened: board, table and the seat deciding (-1: none), or the
    index of the bot it was loading (``loading`` >= 0, outside any game)."""

    board: int
    table: int
    seat: int
    loading: int = -1


class WorkerFailure(AutodupError, RuntimeError):
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


class TaskError(AutodupError, RuntimeError):
    """A task raised in a worker; ``str()`` is its one-line message, ``kind`` the exception's class name and
    ``argument`` the argument a :class:`UsageError` named.

    :meth:`as_raised` gives the error the worker raised when it is one of this family that a message alone
    makes (a bot that cannot load is a :class:`BotError` in the caller's process too)."""

    def __init__(self, message: str, kind: str, argument: str | None = None):
        super().__init__(one_line(f"{argument}: {message}" if argument else message))
        self.message, self.kind, self.argument = message, kind, argument

    def __reduce__(self):
        return type(self), (self.message, self.kind, self.argument)

    def as_raised(self) -> AutodupError:
        """The family's error of class ``kind`` with this message, or this error itself."""
        kinds = {kind.__name__: kind for kind in (BotError, PolicyError, RunError, CorruptChunk, UsageError)}
        return kinds[self.kind](self.message, self.argument) if self.kind in kinds else self
