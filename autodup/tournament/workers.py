"""Watched worker processes: games run where a bot that hangs or crashes cannot take the caller down.

A bot is user code compiled into the jitted table: a ``decide`` that never
returns hangs the table, and an ``@njit`` helper that recurses forever
overflows the stack (SIGSEGV). Neither can be stopped from inside the
process, and a signal handler never runs while jitted code holds it. So every
command that plays games (``run``, ``play``, ``check-bot``) plays them in
worker processes and watches them from outside:

* **Deadline per game.** A table writes where it is into a small shared array
  (``autodup.game.progress.PROGRESS_*``: games started, whether a game is in progress,
  the board, table and seat deciding). A worker whose current game has run
  longer than ``game_timeout`` seconds is killed and the caller gets a
  :class:`WorkerFailure` naming the seat, board and table. Compilation is not
  counted: the clock only runs while a game is in progress.
* **Crashes.** A worker that dies (a segfault, an abort, the out-of-memory
  killer) is reported the same way, with the signal.
* **Signals.** While a :class:`Pool` is in use, Ctrl-C and SIGTERM only set a
  flag that the parent checks every ``POLL_SECONDS``; workers ignore Ctrl-C.
  The first signal stops the pool (workers are killed, finished work is kept
  by the caller) and raises :class:`Stopped`; so Ctrl-C always works, even
  when a bot hangs. A signal that comes while the pool closes is a stop too.
  Workers are immune from their first instruction: a terminal's Ctrl-C goes to
  the whole process group, and a spawned worker still starting its Python (seconds,
  with numpy) would print a traceback. So the parent starts each worker with
  SIGINT and SIGTERM blocked (a process inherits its signal mask through fork
  and exec; multiprocessing's resource tracker is started the same way), and
  the worker ignores them before it unblocks them, which drops any that
  waited. A signal to the parent meanwhile waits as well, and reaches the
  handler it was meant for once the worker has started.
* **How they start.** Forked from a process that runs no other thread on
  Linux, so that a worker starts with what the command imported; spawned
  elsewhere (:func:`autodup.tournament.process_start.start_method`).
* **Parent death.** Workers ask the kernel to kill them when their parent dies
  (``PR_SET_PDEATHSIG`` on Linux; elsewhere a thread checks the parent between
  games), so a ``kill -9`` of the command leaves no worker behind.

Failures of a bot's policy that do not stop the game (a decision that
raises) are collected in the worker through ``sys.unraisablehook`` instead of
printing a traceback per decision, with the seat, board and table they
happened at, and returned with the task's result.
"""

from __future__ import annotations

import contextlib
import contextvars
import ctypes
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import tempfile
import threading
import time

import numpy as np

from ..arguments import MIN_SECONDS
from ..errors import (
    Stopped,
    TaskError,
    UsageError,
    Where,
    WorkerFailure,
    first_line,
    named,
    one_line,
    refuse_work_after_a_lost_stop,
    without_colours,
)
from ..game.progress import (
    PROGRESS_BOARD,
    PROGRESS_FIELDS,
    PROGRESS_GAMES,
    PROGRESS_IN_GAME,
    PROGRESS_LOADING,
    PROGRESS_PROBE,
    PROGRESS_SEAT,
    PROGRESS_TABLE,
)
from .process_start import descriptor_for, fork_warning_silenced, start_method

__all__ = ["DEFAULT_GAME_TIMEOUT", "POLL_SECONDS", "TASKS_PER_WORKER", "ERRORS_KEPT", "table_of", "describe_where",
           "SignalFlag", "Pool", "UNGUARDED_SCRIPT_EXIT", "errors_recorded", "one_pool", "pool_in_use", "pool_for"]

DEFAULT_GAME_TIMEOUT = 60.0  # seconds; a game takes milliseconds, so only a hung bot reaches it
POLL_SECONDS = MIN_SECONDS  # the shortest game timeout allowed: a game's time is looked at this often
_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)  # Ctrl-C and a polite kill: the caller stops, workers ignore them
UNGUARDED_SCRIPT_EXIT = 86  # a worker that found itself starting a pool while importing the caller's script
TASKS_PER_WORKER = 2  # in flight: a worker starts its next task while the parent stores the last result
ERRORS_KEPT = 20      # bot errors recorded per task (all are counted by the table)


def table_of(progress: np.ndarray) -> int:
    """The table a progress block says is being played; ``-1 - bot`` for a table probing bot ``bot``'s determinism."""
    probed = int(progress[PROGRESS_PROBE])
    return -probed if probed else int(progress[PROGRESS_TABLE])


def describe_where(where: Where) -> str:
    """``seat 3 at board 17, table 2`` (the default description of a place)."""
    if where.loading >= 0:
        return f"bot number {where.loading + 1} (while it was loaded)"
    seat = f"seat {where.seat}" if where.seat >= 0 else "the table (no bot was deciding)"
    return f"{seat} at board {where.board}, table {where.table}"


# --------------------------------------------------------------------------
# inside a worker
# --------------------------------------------------------------------------


def _die_with_parent(parent_pid: int) -> None:
    """Ask to be killed when the parent dies (Linux), or watch for it from a thread (elsewhere)."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG = 1
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent_pid:  # the parent died before the request took effect
        os._exit(1)
    if not sys.platform.startswith("linux"):
        def watch():
            while os.getppid() == parent_pid:
                time.sleep(1.0)
            os._exit(1)

        threading.Thread(target=watch, daemon=True).start()


class _ErrorRecorder:
    """Records the policy errors numba reports through ``sys.unraisablehook``, with where they happened."""

    def __init__(self, progress: np.ndarray):
        self.progress = progress
        self.records: list = []

    def __call__(self, unraisable) -> None:
        if len(self.records) < ERRORS_KEPT:
            error = unraisable.exc_value
            message = named(error) if error is not None else "error"
            self.records.append((int(self.progress[PROGRESS_BOARD]), table_of(self.progress),
                                 int(self.progress[PROGRESS_SEAT]), message))

    def clear(self) -> None:
        self.records = []


def errors_recorded() -> list:
    """The policy errors recorded so far by the task this worker runs: ``(board, table, seat, message)`` records
    (at most ``ERRORS_KEPT``; the table counts them all). Empty outside a worker.

    A task reads them before it returns: a chunk's file carries each bot's first error.
    """
    hook = sys.unraisablehook
    return list(hook.records) if isinstance(hook, _ErrorRecorder) else []


def _worker_main(connection, progress_buffer, parent_pid: int, log: int) -> None:
    # The parent decides when to stop: a Ctrl-C or SIGTERM sent to the whole process group (a terminal,
    # `timeout`, a batch system) reaches it, and it kills the workers; the kernel kills them if it dies. The
    # worker was started with both signals blocked (see _held_signals), so that none could interrupt its Python
    # while it started: ignored, those that came meanwhile are dropped, and they can be unblocked.
    for number in _STOP_SIGNALS:
        signal.signal(number, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)
    _die_with_parent(parent_pid)
    # What a worker writes, from Python or from C (numba, LLVM, a bot's print), goes to its log: the
    # parent quotes the last line if the worker dies, and the command's own output stays clean. The
    # log is a file without a name (see _Worker), so no kill, of the worker or the parent, at any
    # moment, can leave it behind.
    for stream in (1, 2):
        os.dup2(log, stream)
    os.close(log)
    sys.stdout = open(1, "w", closefd=False)
    sys.stderr = open(2, "w", closefd=False)
    progress = np.frombuffer(progress_buffer, dtype=np.int64)
    recorder = _ErrorRecorder(progress)
    sys.unraisablehook = recorder
    while True:
        try:
            message = connection.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        key, function, args = message
        recorder.clear()  # a task's errors are its own, even after a task that raised
        try:
            reply = ("done", key, function(*args, progress=progress))
        except BaseException as error:  # reported to the parent in one line; the worker goes on
            progress[PROGRESS_IN_GAME] = progress[PROGRESS_LOADING] = 0
            argument = getattr(error, "argument", None)  # a UsageError keeps its argument's name apart
            said = one_line(error.message) if argument else first_line(error)
            reply = ("error", key, said, type(error).__name__, argument)
        try:
            connection.send(reply)
        except (OSError, ValueError):
            return


# --------------------------------------------------------------------------
# in the parent
# --------------------------------------------------------------------------


class SignalFlag:
    """While active, SIGINT and SIGTERM set a flag that :meth:`check` turns into :class:`Stopped` (main thread only).

    With ``immediate``, the handler raises :class:`Stopped` at once instead:
    for calls that block in Python code (starting a Ray cluster) and never
    reach a check.
    """

    def __init__(self, immediate: bool = False):
        self.immediate = immediate
        self.signal_number = 0
        self.previous: dict = {}

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for number in (signal.SIGINT, signal.SIGTERM):
                self.previous[number] = signal.signal(number, self._handle)
        return self

    def _handle(self, signum, frame):
        self.signal_number = signum
        if self.immediate:
            raise Stopped(signum)

    def check(self) -> None:
        if self.signal_number:
            raise Stopped(self.signal_number)

    def __exit__(self, *exc):
        for number, handler in self.previous.items():
            signal.signal(number, handler)
        self.previous = {}
        return False


class _held_signals:
    """Ctrl-C and SIGTERM wait while processes are started (in the ``with``), then reach the handler they would
    have reached.

    A process started inside inherits the mask that blocks them through fork and exec (CPython's spawn keeps
    the caller's mask, as its own resource tracker relies on), and Python's startup leaves it alone: the
    signals sent to the whole group while it starts wait in it, until :func:`_worker_main` ignores them.
    In the caller, a signal waits in the mask of this thread, or is caught by a flag if the kernel gave it to
    another thread (numpy's); at the end of the block it is raised again for the handler in place before (the
    command's, which stops it; Python's KeyboardInterrupt; an ignored signal stays ignored). So nothing is
    raised in the middle of a start, which would leave a child without its arguments, and nothing is lost.
    """

    def __enter__(self):
        self.flag = SignalFlag().__enter__()
        self.mask = None
        if hasattr(signal, "pthread_sigmask"):
            self.mask = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
        return self

    def __exit__(self, *exc):
        if self.mask is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, self.mask)  # a signal that waited reaches the flag now
        self.flag.__exit__(*exc)
        if self.flag.signal_number:
            signal.raise_signal(self.flag.signal_number)  # the handler in place before decides
        return False


class _Worker:
    def __init__(self, context):
        self.progress_buffer = context.RawArray("q", PROGRESS_FIELDS)
        self.progress = np.frombuffer(self.progress_buffer, dtype=np.int64)
        self.progress[PROGRESS_SEAT] = -1
        # The log has no name (O_TMPFILE where the file system has it, else created and unlinked at once): a
        # named file that the worker unlinked once it ran was left behind by a kill -9 of the parent while the
        # worker was still starting.
        self.log = tempfile.TemporaryFile(prefix="autodup-worker-", suffix=".log")
        self.connection, child_end = context.Pipe()
        self.process = context.Process(target=_worker_main, daemon=True,
                                       args=(child_end, self.progress_buffer, os.getpid(),
                                             descriptor_for(context, self.log.fileno())))
        with fork_warning_silenced(context):
            self.process.start()
        child_end.close()
        self.tasks: list = []  # keys in flight, oldest first
        self.games_seen = -1
        self.clock_started = 0.0  # when the current game was first seen in progress

    def where(self):
        if self.progress[PROGRESS_IN_GAME]:
            return Where(int(self.progress[PROGRESS_BOARD]), table_of(self.progress), int(self.progress[PROGRESS_SEAT]))
        if self.progress[PROGRESS_LOADING]:
            return Where(-1, -1, -1, int(self.progress[PROGRESS_LOADING]) - 1)
        return None

    def game_time(self, now: float) -> float:
        """Seconds the current game has been in progress (0 when none is)."""
        if not self.progress[PROGRESS_IN_GAME]:
            self.games_seen = -1
            return 0.0
        games = int(self.progress[PROGRESS_GAMES])
        if games != self.games_seen:
            self.games_seen, self.clock_started = games, now
        return now - self.clock_started

    def last_words(self) -> str:
        """The last line the worker wrote (an abort message), or ''."""
        try:
            # pread leaves the offset alone: the worker writes through the same open file.
            size = os.fstat(self.log.fileno()).st_size
            tail = os.pread(self.log.fileno(), 4096, max(0, size - 4096))
            lines = [line.strip() for line in tail.decode(errors="replace").splitlines() if line.strip()]
        except (OSError, ValueError):
            return ""
        return without_colours(lines[-1])[:300] if lines else ""

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join(timeout=5)
        self.connection.close()
        self.log.close()


class Pool:
    """Worker processes that run tasks under a per-game deadline (see the module docstring).

    Parameters
    ----------
    workers : int
        Processes to start.
    game_timeout : float
        Seconds a game may run before its worker is killed.
    describe : callable, optional
        ``describe(Where) -> str`` names the bot at a place for messages
        (default: :func:`describe_where`).

    Use as a context manager; leaving it kills every worker.
    """

    def __init__(self, workers: int, game_timeout: float = DEFAULT_GAME_TIMEOUT, describe=None):
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        if not game_timeout > 0:
            raise ValueError(f"the game timeout must be positive, got {game_timeout}")
        self.game_timeout = float(game_timeout)
        self.describe = describe or describe_where
        if getattr(multiprocessing.current_process(), "_inheriting", False):
            # A spawned worker is importing the caller's script again, which starts a pool at its top level: leave
            # quietly with a code the parent turns into advice (multiprocessing's own error is 20 lines long).
            raise SystemExit(UNGUARDED_SCRIPT_EXIT)
        refuse_work_after_a_lost_stop()  # a Ctrl-C as the last pool closed, its exception lost in a finalizer
        method = start_method()
        main_file = getattr(sys.modules.get("__main__"), "__file__", None)
        if method == "spawn" and main_file is not None and not os.path.exists(main_file):
            raise UsageError(f"worker processes import the calling program again, and it was read from {main_file}, "
                             "not a file (allowed: a script file, python -c, or a notebook)")
        self._context = multiprocessing.get_context(method)
        self._signals = SignalFlag()
        self._workers: list = []
        if os.name == "posix":
            # Spawning a worker first starts multiprocessing's resource tracker if it is not running, and that
            # unblocks SIGINT and SIGTERM once it has (instead of putting the mask back): the first worker would
            # start unprotected. Started here, the tracker is only probed while a worker starts.
            from multiprocessing import resource_tracker

            with _held_signals():
                resource_tracker.ensure_running()
        try:
            for _ in range(workers):
                # Blocked while each worker starts (see _held_signals): a Ctrl-C then is raised here, between two
                # starts, once the started worker is in the list that close() kills.
                with _held_signals():
                    self._workers.append(_Worker(self._context))
        except BaseException:
            with _held_signals():  # a second Ctrl-C waits until every worker started is killed
                self.close()
            raise

    def __enter__(self):
        self._signals.__enter__()
        return self

    def __exit__(self, kind, error, trace):
        try:
            self.close()
        finally:
            self._signals.__exit__(kind, error, trace)
        # A signal that came after the pool's last check (its last result was in, the workers were being
        # killed) is a stop all the same: the handler it came through is gone, and nothing else would see it.
        if self._signals.signal_number and not (kind is not None and issubclass(kind, (KeyboardInterrupt,
                                                                                         GeneratorExit))):
            raise Stopped(self._signals.signal_number)
        return False

    def close(self) -> None:
        for worker in self._workers:
            worker.kill()

    def __len__(self) -> int:
        return len(self._workers)

    @contextlib.contextmanager
    def described(self, describe):
        """While in the block, messages name the bot at a place with ``describe`` (a pool shared by two steps
        of a command, such as loading its bots and playing them); the pool stays open after it."""
        before, self.describe = self.describe, describe
        try:
            yield self
        finally:
            self.describe = before

    def run(self, tasks, on_wait=None):
        """Run ``tasks`` (an iterable of ``(key, function, args)``); yield ``(key, result)`` as they finish.

        ``on_wait(busy)``, if given, is called about every ``POLL_SECONDS`` while tasks run, with
        ``(key, progress)`` of each task in flight (``progress``: its worker's block, read-only), to show
        where the workers are.

        ``function(*args, progress=...)`` runs in a worker (it must be a
        module-level function; its arguments and result are pickled); it
        can read the policy errors recorded while it runs with
        :func:`errors_recorded`. Tasks are read lazily, a few per worker ahead.

        Raises
        ------
        WorkerFailure
            A game outlived the deadline, or a worker died.
        TaskError
            A task raised (its message).
        Stopped
            Ctrl-C or SIGTERM.
        """
        pending = iter(tasks)
        exhausted = False
        while True:
            self._signals.check()
            if not exhausted:
                exhausted = self._hand_out(pending)
            busy = [w for w in self._workers if w.tasks]
            if exhausted and not busy:
                return
            ready = multiprocessing.connection.wait([w.connection for w in busy] +
                                                    [w.process.sentinel for w in busy], timeout=POLL_SECONDS)
            if on_wait is not None:
                on_wait([(w.tasks[0], w.progress) for w in busy if w.tasks])
            for worker in busy:
                if worker.connection in ready or worker.connection.poll():
                    yield from self._receive(worker)
            now = time.monotonic()
            for worker in busy:
                if worker.tasks and not worker.process.is_alive() and not worker.connection.poll():
                    self._signals.check()  # a signal to the whole group is a stop, not a crash
                    self._fail_crash(worker)
                if worker.tasks and worker.game_time(now) > self.game_timeout:
                    self._fail_hang(worker)

    def run_one(self, function, args: tuple):
        """Run one task and return its result (see :meth:`run`)."""
        for _, result in self.run([(0, function, args)]):
            return result
        raise RuntimeError("a task ended without a result")  # unreachable: run yields once per task

    def _hand_out(self, pending) -> bool:
        """Give idle workers tasks; returns True once ``pending`` is exhausted."""
        # One task to each worker before a second to any: the first tasks (compiling, say) run side by side.
        for depth in range(TASKS_PER_WORKER):
            for worker in self._workers:
                if len(worker.tasks) > depth:
                    continue
                try:
                    key, function, args = next(pending)
                except StopIteration:
                    return True
                worker.connection.send((key, function, args))
                worker.tasks.append(key)
        return False

    def _receive(self, worker):
        try:
            reply = worker.connection.recv()
        except (EOFError, OSError):
            self._signals.check()
            self._fail_crash(worker)
        kind, key = reply[0], reply[1]
        worker.tasks.remove(key)
        if kind == "error":
            raise TaskError(reply[2], reply[3], reply[4])
        yield key, reply[2]

    def _fail_hang(self, worker):
        where = worker.where()
        worker.kill()
        place = self.describe(where) if where else "a game"
        raise WorkerFailure(f"{place} did not finish its game within {self.game_timeout:g} s (a decide or an "
                            "agent's act that never returns?); raise the game timeout (--game-timeout, game_timeout) "
                            "if games are meant to be that slow", "hang", where)

    def _fail_crash(self, worker):
        where = worker.where()
        worker.process.join(timeout=5)
        code = worker.process.exitcode
        how = f"signal {signal.Signals(-code).name}" if code is not None and code < 0 else f"exit code {code}"
        said = worker.last_words()
        worker.kill()
        if where:
            cause = f"{how}: {said}" if said else f"{how}; a helper that recurses forever, memory written out of " \
                                                   "bounds, or os._exit?"
            raise WorkerFailure(f"{self.describe(where)} crashed the worker process ({cause})", "crash", where)
        if code == UNGUARDED_SCRIPT_EXIT:
            raise WorkerFailure("worker processes import the calling script again, and it starts a tournament when "
                                "imported: put the script's calls under `if __name__ == \"__main__\":`", "crash",
                                None)
        from ..compile_cache import cache_folder

        raise WorkerFailure(f"a worker process crashed outside a game ({how}{': ' + said if said else ''}); if it "
                            f"repeats, a damaged compiled-code cache may be the cause: remove {cache_folder()}",
                            "crash", None)


# --------------------------------------------------------------------------
# one pool for a whole command
# --------------------------------------------------------------------------

_COMMAND_POOL: contextvars.ContextVar = contextvars.ContextVar("autodup_command_pool", default=None)


@contextlib.contextmanager
def one_pool(workers: int, game_timeout: float = DEFAULT_GAME_TIMEOUT):
    """Within the block, the steps of a command that ask for local workers (loading its bots, playing each of its
    runs) get these ``workers`` processes (:func:`pool_for`), instead of starting and importing their own.

    A warm ``autodup run`` started a process to load the bots, then its workers, which loaded them again, and an
    A/B test growing its runs step by step started workers for every step of every run: each start imports
    numpy and numba and loads the compiled table and the bots from the cache, about a second.
    """
    with Pool(workers, game_timeout) as pool:
        token = _COMMAND_POOL.set(pool)
        try:
            yield pool
        finally:
            _COMMAND_POOL.reset(token)


def pool_in_use(workers: int, game_timeout: float):
    """The pool of the enclosing :func:`one_pool` if it can serve ``workers`` processes with this deadline, else
    None."""
    pool = _COMMAND_POOL.get()
    if pool is None or len(pool) < workers or pool.game_timeout != float(game_timeout):
        return None
    return pool


def pool_for(workers: int, game_timeout: float, describe=None):
    """A context manager giving a :class:`Pool` for ``workers`` processes: the command's (:func:`one_pool`), left
    open after the block, or a new one, closed after it. ``describe`` names places in messages within the block."""
    pool = pool_in_use(workers, game_timeout)
    return pool.described(describe or describe_where) if pool is not None else \
        Pool(workers, game_timeout, describe=describe)
