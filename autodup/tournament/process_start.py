"""How a pool's worker processes start: forked where that is safe, else spawned, and what each is handed."""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.reduction
import os
import re
import sys
import threading
import warnings

from ..errors import UsageError

__all__ = ["WORKER_START_VARIABLE", "WORKER_STARTS", "FORK_UNSAFE_MODULES", "FORK_UNSAFE_LIBRARIES", "start_method",
           "HandedDown", "descriptor_for", "fork_warning_silenced"]

WORKER_START_VARIABLE = "AUTODUP_WORKER_START"
WORKER_STARTS = ("auto", "spawn")


# Runtimes whose threads do not survive a fork (the child waits forever for a lock a vanished thread held):
# OpenMP's and TBB's (numba's parallel layers, an OpenMP build of BLAS, torch), gRPC's (Ray), XLA's (jax,
# tensorflow). A process that has imported or mapped one spawns its workers, whether its threads run or not.
FORK_UNSAFE_MODULES = ("ray", "grpc", "torch", "tensorflow", "jax")
FORK_UNSAFE_LIBRARIES = re.compile(r"/lib(gomp|iomp5|omp|tbb|tbbmalloc|grpc)[^/]*\.so[^/]*$")


def start_method() -> str:
    """How a pool starts its workers: ``"fork"`` where that is safe, else ``"spawn"``.

    A spawned worker starts a new Python, which imports numpy, numba and the package again, about a second on
    every command's way to its first game, and imports the calling script again. A forked one starts with
    them. A fork copies one thread, so it is safe only where no other thread can hold a lock the worker would
    wait for: on Linux, from the only Python thread of its process (tqdm's monitor aside: it sleeps, and only
    touches tqdm's bars, which workers do not use), whose numba has not started its parallel threads, and
    that has neither imported nor mapped a runtime whose threads a fork breaks (:data:`FORK_UNSAFE_MODULES`,
    :data:`FORK_UNSAFE_LIBRARIES`). The native threads left there, OpenBLAS's (its pthreads build) and
    Arrow's, ready themselves for a fork. Elsewhere (macOS, Windows, a notebook's kernel, a program with
    threads of its own, a Ray worker's watched process) workers are spawned.

    The environment variable ``AUTODUP_WORKER_START=spawn`` spawns them everywhere (``auto``, or unset, is
    this rule): for a process whose native libraries run threads this rule does not know of.

    Raises
    ------
    UsageError
        ``AUTODUP_WORKER_START`` is neither ``auto`` nor ``spawn``.
    """
    chosen = os.environ.get(WORKER_START_VARIABLE, "auto")
    if chosen not in WORKER_STARTS:
        raise UsageError(f"{WORKER_START_VARIABLE}: {chosen!r} is not a way to start workers (allowed: "
                         f"{', '.join(WORKER_STARTS)}, or unset)")
    if chosen == "spawn" or not sys.platform.startswith("linux") or _other_python_threads():
        return "spawn"
    if any(name in sys.modules for name in FORK_UNSAFE_MODULES):
        return "spawn"
    parallel = sys.modules.get("numba.np.ufunc.parallel")  # not imported: its threads were never started
    if parallel is not None and getattr(parallel, "_is_initialized", True):  # unknown to this numba: no guess
        return "spawn"
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            if any(FORK_UNSAFE_LIBRARIES.search(line.rstrip()) for line in maps):
                return "spawn"
    except OSError:
        return "spawn"
    return "fork"


def _other_python_threads() -> list:
    """The Python threads of this process but the calling one and tqdm's monitor."""
    monitor = getattr(sys.modules.get("tqdm._monitor"), "TMonitor", None)
    return [thread for thread in threading.enumerate() if thread is not threading.current_thread()
            and not (monitor is not None and isinstance(thread, monitor))]


class HandedDown:
    """A file descriptor given to a spawned worker: pickled, it is duplicated into the child the way
    multiprocessing hands down a pipe's end, and unpickled there as the child's descriptor (an int).

    Only while a process of the spawn (or forkserver) context is being started, which is what the pool uses
    when it does not fork (a forked worker has the descriptor already): ``DupFd`` asks the process being
    started to inherit the descriptor.
    """

    def __init__(self, descriptor: int):
        self.descriptor = descriptor

    def __reduce__(self):
        return _received, (multiprocessing.reduction.DupFd(self.descriptor),)


def _received(duplicate) -> int:
    return duplicate.detach()


def descriptor_for(context, descriptor: int):
    """What to pass a worker of ``context`` for it to have the file descriptor ``descriptor``: a forked worker
    has it already; a spawned one is handed a duplicate (:class:`HandedDown`)."""
    return descriptor if context.get_start_method() == "fork" else HandedDown(descriptor)


@contextlib.contextmanager
def fork_warning_silenced(context):
    """While a worker of ``context`` starts: Python 3.12 warns of any fork from a process with more than one
    thread, and :func:`start_method` forks only where the others are native threads that ready themselves for
    it (OpenBLAS's, Arrow's). A spawned worker's start is left alone (the filters are the process's, and a
    process that spawns may have threads that read them)."""
    if context.get_start_method() != "fork":
        yield
        return
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*is multi-threaded, use of fork\(\)",
                                category=DeprecationWarning)
        yield
