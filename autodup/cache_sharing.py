"""What processes sharing one compiled-code cache rely on: whose claim is live, advisory locks (the cache's
compile lock, a function's index), and which compiled versions any process can read back.

:mod:`autodup.compile_cache` claims each version of a package function or a bot before compiling it, so that
two processes (a cold start's two workers) compile it once; it saves what it compiled under
:func:`index_lock`, and saves a version of a function marked :func:`plain_versions_only` only when
:func:`read_back_by_any_process`.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

from numba.core import types as numba_types

try:
    import fcntl
except ImportError:  # Windows: no advisory locks
    fcntl = None

__all__ = ["CLAIM_SECONDS", "CLAIM_POLL_SECONDS", "CLAIM_WRITING_SECONDS", "process_identity", "claim_is_live",
           "plain_versions_only", "is_plain_type", "read_back_by_any_process", "advisory_lock", "index_lock"]

# A claim older than this, or held by a process that is gone, is taken over: its compile failed or was killed.
CLAIM_SECONDS = 600.0
CLAIM_POLL_SECONDS = 0.05
# An empty claim is being written; one left empty (its process killed in between) is taken over after this.
CLAIM_WRITING_SECONDS = 5.0


def process_identity(pid: int) -> str:
    """``pid`` and its process's start time (Linux's ``/proc``; the pid alone elsewhere): a pid alone may be
    another process's after a restart (a container's pids start again at 1), the pair is not."""
    try:
        return f"{pid} {Path(f'/proc/{pid}/stat').read_text().rsplit(')', 1)[1].split()[19]}"
    except (OSError, IndexError):
        return str(pid)


def claim_is_live(claim: Path) -> bool:
    """Whether ``claim`` exists, younger than :data:`CLAIM_SECONDS`, of another process still running."""
    try:
        text, age = claim.read_text().strip(), time.time() - claim.stat().st_mtime
    except OSError:
        return False  # gone
    if age >= CLAIM_SECONDS:
        return False
    if not text:
        return age < CLAIM_WRITING_SECONDS  # being written, unless its process died in between
    words = text.split()
    if not words[0].isdigit() or int(words[0]) == os.getpid():
        return False
    if len(words) > 1:
        return process_identity(int(words[0])) == text
    try:
        os.kill(int(words[0]), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # another user's process: alive
    return True


_PLAIN_VERSIONS_ONLY: set = set()  # Python functions whose versions are saved only for plain argument types


def plain_versions_only(dispatcher):
    """Save ``dispatcher``'s compiled versions only where every argument type is plain (:func:`is_plain_type`);
    compile the others in each process. Returns the dispatcher.

    For package functions that bots call with their own values (the authoring helpers): a type a bot defines,
    an enum or a named tuple of its file, names the bot's module, and a process that has not loaded that bot
    could not read the function's cache index back (numba unpickles every key of it), so every version saved
    beside it would be lost and compiled again.
    """
    _PLAIN_VERSIONS_ONLY.add(dispatcher.py_func)
    return dispatcher


def is_plain_type(numba_type) -> bool:
    """Whether ``numba_type`` is one that any process can read back: a number, a boolean, None, a literal
    number, an omitted argument (the function's own default), an array of numbers or booleans, or a plain
    tuple of these."""
    if isinstance(numba_type, numba_types.Omitted):
        return True
    if isinstance(numba_type, numba_types.Literal):
        return type(numba_type.literal_value) in (bool, int, float)  # not an int of a user's class (an IntEnum)
    if isinstance(numba_type, (numba_types.Boolean, numba_types.Number, numba_types.NoneType)):
        return True
    if isinstance(numba_type, numba_types.Array):
        return is_plain_type(numba_type.dtype)
    if isinstance(numba_type, numba_types.BaseTuple) and not isinstance(numba_type, numba_types.BaseNamedTuple):
        return all(is_plain_type(member) for member in numba_type.types)
    return False


@contextlib.contextmanager
def advisory_lock(path, waiting=None):
    """Hold an exclusive advisory lock (``flock``) on the file ``path`` (created) for the duration.

    ``waiting()``, if given, is called once when another process holds it, before waiting for it. The system
    frees the lock however its holder ends. Without ``flock`` (Windows) or a file that can be opened, nothing
    is locked."""
    handle = None
    if fcntl is not None:
        with contextlib.suppress(OSError):
            handle = open(path, "a+b")
    if handle is None:
        yield
        return
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if waiting is not None:
                waiting()
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def index_lock(cache):
    """Hold an advisory lock on ``cache``'s index while numba rewrites it (:func:`advisory_lock`).

    numba saves a version by reading the function's index, adding the version with the first free data file's
    name, and writing the index back, with no lock: two processes saving two versions of one function at the
    same moment (a cold start's two workers, each compiling bots that call a helper with other argument types)
    could both take the same name, and leave one version's index entry pointing at the other's code."""
    return advisory_lock(f"{cache._cache_file._index_path}.lock")


def read_back_by_any_process(cache, signature) -> bool:
    """Whether the version of ``signature`` (its argument types) of ``cache``'s function may be saved: always,
    unless the function is marked :func:`plain_versions_only` and one of the types is not plain."""
    return getattr(cache, "_py_func", None) not in _PLAIN_VERSIONS_ONLY or all(
        is_plain_type(argument) for argument in signature)
