"""The lock of a folder a command works in: a second command into it is refused, not interleaved."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from ..errors import RunError

__all__ = ["LOCK_NAME", "locked"]

LOCK_NAME = ".lock"


@contextlib.contextmanager
def locked(out: Path):
    """Hold ``out/.lock`` for the duration: a second run into the same folder is refused, not interleaved."""
    try:
        import fcntl
    except ImportError:  # no advisory locks on this platform: nothing to hold
        yield
        return
    try:
        handle = open(out / LOCK_NAME, "a+")  # noqa: SIM115 (held open across the yield)
    except OSError as error:
        raise RunError(f"{out} cannot be written to ({error.strerror or type(error).__name__}): a run folder that "
                       "cannot be written can be read (autodup summary), not played into", "out") from None
    try:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            raise RunError(f"{out} is being written by another autodup run ({holder}); "
                           "wait for it, or use another folder", "out") from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}")
        handle.flush()
        try:
            yield
        finally:
            # Unlocked, not only closed: a worker forked meanwhile shares this open file, and closing it here
            # would leave the lock held until that worker's end.
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
    finally:
        handle.close()
