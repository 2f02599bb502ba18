"""A deadline for a bot or agent file's own code while it loads.

A file's top level runs when it is imported: a file that never returns from it (a sleep, a loop, a wait on the
network) would hang the command before its first game, where ``--game-timeout`` cannot see it. So the import
runs under a deadline, :data:`DEFAULT_SECONDS` unless the environment variable ``AUTODUP_BOT_LOAD_SECONDS``
says otherwise (0: none). autodup's own work inside the import, compiling the file's policy, is not counted
(:func:`paused`): a cold compile on a busy machine may take longer than the file's code ever should.

The deadline is a ``SIGALRM`` timer, so it holds where Python can deliver a signal: on Unix, in the main
thread, while no other timer of the process runs. Elsewhere a file loads without one.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading

from ..errors import BotError

__all__ = ["DEFAULT_SECONDS", "MAX_SECONDS", "ENVIRONMENT", "LoadTimedOut", "NotLoadedInTime", "seconds_allowed",
           "load_deadline", "file_load_deadline", "paused"]

DEFAULT_SECONDS = 60.0
MAX_SECONDS = 1e6  # about 11 days; the timer overflows near 1e10
ENVIRONMENT = "AUTODUP_BOT_LOAD_SECONDS"


class LoadTimedOut(BaseException):
    """Raised into a loading file's code when its time is up: a ``BaseException``, so that the file's own
    ``except Exception`` does not swallow it."""


class NotLoadedInTime(BotError):
    """A bot or agent file whose own code did not finish loading within its deadline (one line naming it)."""


_running = False  # whether a deadline is armed (only the main thread arms one)


def seconds_allowed() -> float:
    """The deadline's seconds: ``AUTODUP_BOT_LOAD_SECONDS``, else :data:`DEFAULT_SECONDS`; ``BotError`` in one
    line for a value that is not a number of seconds."""
    text = os.environ.get(ENVIRONMENT)
    if text is None or not text.strip():
        return DEFAULT_SECONDS
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not 0.0 <= seconds <= MAX_SECONDS:
        raise BotError(f"{ENVIRONMENT}={text!r}: not a number of seconds (allowed: the seconds a bot or agent file's "
                       f"own code may take to load, at most {MAX_SECONDS:,.0f}; 0 for no limit)")
    return seconds


def _time_is_up(signum, frame):
    raise LoadTimedOut


@contextlib.contextmanager
def load_deadline(seconds: float):
    """Run the block under a deadline of ``seconds`` (0: none), raising :class:`LoadTimedOut` into it when the
    time is up; without one where a signal cannot be had (see the module). Yields whether this deadline is armed:
    a load inside another (a bot file that loads a bot) runs under the outer one, whose :class:`LoadTimedOut`
    the inner load must let through, for the outer file's load to name it."""
    global _running
    usable = (seconds > 0 and not _running and hasattr(signal, "setitimer")
              and threading.current_thread() is threading.main_thread()
              and signal.getitimer(signal.ITIMER_REAL)[0] == 0.0)
    if not usable:
        yield False
        return
    previous = signal.signal(signal.SIGALRM, _time_is_up)
    try:
        _running = True
        signal.setitimer(signal.ITIMER_REAL, seconds)
        yield True
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0.0)
        signal.signal(signal.SIGALRM, previous)
        _running = False


@contextlib.contextmanager
def file_load_deadline(what):
    """Run the import of a bot or agent file (``what``, as its message names it) under the deadline
    :func:`seconds_allowed` gives: :class:`NotLoadedInTime` when its time is up. A load inside another's lets the
    outer deadline's :class:`LoadTimedOut` through, for the outer file's load to be the one named."""
    seconds = seconds_allowed()
    outer = _running  # inside another file's load: its deadline is the only one armed, and it names its file
    # The whole deadline inside the try: a time so short that the alarm rings before the block starts (or as it
    # ends) is this file's too (it escaped as a bare LoadTimedOut).
    try:
        with load_deadline(seconds):
            yield
    except LoadTimedOut:
        if outer:
            raise
        raise NotLoadedInTime(f"{what}: did not finish loading in {seconds:g} s (allowed: a file whose top level "
                              "returns sooner: it runs when the bot loads, before any game; "
                              f"{ENVIRONMENT} sets the limit, 0 for none)") from None


@contextlib.contextmanager
def paused():
    """Stop the deadline's clock for the block (autodup's own work inside a load), then let it run on."""
    if not _running or threading.current_thread() is not threading.main_thread():
        yield
        return
    remaining = signal.setitimer(signal.ITIMER_REAL, 0.0)[0]
    try:
        yield
    finally:
        if remaining > 0.0:
            signal.setitimer(signal.ITIMER_REAL, remaining)
