"""Running a tournament: the chunks not done, on local worker processes or Ray, each stored as it finishes."""

from __future__ import annotations

import contextlib
import itertools
import shutil
import sys
from pathlib import Path

from ..arguments import BACKENDS, choice, cores
from ..errors import RunError, first_line, mention, print_warning
from ..files import check_output_folder, make_folder, write_json_atomically
from .folder_lock import LOCK_NAME, locked
from .spec import (
    DETERMINISM_FILE,
    RAY_CONNECT_SECONDS,
    RAY_START_SECONDS,
    RunSpec,
    boards_in_chunk,
    chunk_count,
    default_out,
    play_chunk,
    probe_determinism,
)
from .storage import (
    KEPT_NOTHING,
    Plan,
    as_recorded,
    encode_chunk,
    kept_work,
    prepare_output,
    read_determinism,
    write_encoded_chunk,
)
from .workers import DEFAULT_GAME_TIMEOUT, errors_recorded

__all__ = ["play_run", "run_watched", "play_and_encode_chunk", "play_chunk_and_errors"]


def play_run(spec: RunSpec, out=None, workers: int = 1, backend: str = "local", ray_address=None,
                   resume: bool = False, quiet: bool = False, manifest_extra: dict | None = None,
                   game_timeout: float = DEFAULT_GAME_TIMEOUT, warn=None, note=None, first_boards=None,
                   progress=None, finished=None, again: str = "--resume finishes the run") -> tuple:
    """Play (or finish) a run; returns its folder (:func:`autodup.analysis.summary.play_and_summarize` also
    writes its summary).

    Without ``out`` the folder is :func:`default_out`, and finding it again
    resumes it (its name says it is the same run); so does an ``out`` that
    holds this very run, finished. ``warn(line)`` receives one-line warnings
    (a corrupted chunk played again), ``note(line)`` one-line news (a
    finished run whose results are reused).

    ``first_boards`` (a multiple of ``CHUNK_BOARDS``, or ``spec.boards``)
    plays only the chunks of the run's first boards: the run stays
    unfinished, and a later call plays more of it (``autodup ab --until-ci``
    grows runs so). ``progress`` (an object with ``update(boards)``, e.g. a
    tqdm bar) is told of each finished chunk instead of a bar of the run's own.
    ``again`` tells how the caller's command finishes an interrupted run (messages end with it).
    ``finished(out)`` is called once the chunks are played, while the folder is still locked (the summary is
    written so, and no other run can take the folder in between). Within
    :func:`autodup.tournament.workers.one_pool`, the command's workers play the chunks.

    Raises
    ------
    RunError
        Bad arguments or folder, or a bot that hung or crashed a worker.
    autodup.errors.Stopped
        Ctrl-C or SIGTERM; finished chunks are kept.
    """
    from ..version import __version__

    warn = warn or print_warning
    note = note or (lambda line: print(f"autodup: {line}", file=sys.stderr))
    choice("backend", backend, BACKENDS)
    if ray_address is not None and backend != "ray":
        raise RunError("needs backend ray", "ray_address")
    if backend == "ray":
        _import_ray()  # before anything is written
        _check_ray_address(ray_address)
    implicit = out is None
    if not implicit and not str(out).strip():
        raise RunError("empty (allowed: the path of a folder)", "out")
    out = Path(default_out(spec) if implicit else out)
    if out.exists() and not out.is_dir():
        raise RunError(f"{out} is a file, not a folder", "out")
    check_output_folder(out)  # a folder that cannot be made, said as for the other commands' folders
    if resume and not out.exists():
        raise RunError(f"{out} does not exist (nothing to resume; run without resume to start it)", "resume")
    if out.exists() and not (out / "manifest.json").exists() and any(p.name != LOCK_NAME for p in out.iterdir()):
        # Refused before anything (even the lock) is written into a folder that is not ours.
        raise RunError(f"{out} is not empty and has no manifest.json (not a run folder)", "out")
    made = [folder for folder in (out, *out.parents) if not folder.exists()]  # what mkdir makes, innermost first
    created = bool(made)
    was_empty = not created and not any(path.name != LOCK_NAME for path in out.iterdir())
    make_folder(out)  # one line for what the check above did not see
    extra = {"package_version": __version__, "config": spec.config_source, "config_name": spec.config_name,
             "bots": list(spec.bot_names),
             "dealer": spec.dealer, "seed": spec.seed, "boards": spec.boards, **(manifest_extra or {})}
    with locked(out):  # a run refused here touches nothing of the run that holds the folder
        try:
            spec = as_recorded(out, spec)
            plan = prepare_output(out, spec, resume or implicit, extra)
            for message in plan.corrupted:
                warn(f"{message}; playing it again")
            if not _play(spec, out, plan, workers, backend, ray_address, quiet, game_timeout, first_boards,
                         progress, again):
                note(f"{out}: this run is finished already; its results are reused (nothing played)")
            if finished is not None:
                finished(out)
        except BaseException:
            kept = kept_work(out) != KEPT_NOTHING
            if created and not kept:
                shutil.rmtree(out, ignore_errors=True)  # nothing finished: leave no half-made folder
                for parent in made[1:]:  # nor the folders made for it (runs/), unless another run uses them now
                    try:
                        parent.rmdir()
                    except OSError:
                        break
            elif was_empty and not kept:  # an empty folder given: left empty
                for path in out.iterdir():
                    if path.is_dir():
                        shutil.rmtree(path, ignore_errors=True)
                    else:
                        path.unlink(missing_ok=True)
            raise
    return out


def _play(spec: RunSpec, out: Path, plan: Plan, workers: int, backend: str, ray_address, quiet: bool,
          game_timeout: float, first_boards=None, progress=None, again: str = "--resume finishes the run") -> int:
    """Probe the bots' determinism (once per folder) and play the chunks not done, writing each as it finishes.

    Returns how many tasks it ran (0: the run was finished, its results are reused).
    """

    from tqdm.auto import tqdm

    from ..errors import TaskError, WorkerFailure

    total = chunk_count(spec.boards if first_boards is None else min(first_boards, spec.boards))
    probed = read_determinism(out) is not None
    done = {chunk for chunk in plan.done if chunk < total}
    # Chunk numbers are generated as the pool asks for them: memory before the first game does not grow with
    # the boards (a billion boards are 40 million chunks).
    wanted = (chunk for chunk in range(total) if chunk not in done)
    tasks_count = total - len(done) + (0 if probed else 1)
    if tasks_count == 0:
        return 0
    identity_hash = spec.identity_hash()
    tasks = [] if probed else [("probe", probe_determinism, (spec,))]
    # Encoding is most of storing a chunk. Where the workers leave this process a core of its own (fewer local
    # workers than cores), it encodes there, beside them; otherwise each worker encodes what it plays, so that
    # this process, which only writes bytes, can feed many more (a Ray cluster). The files are the same bytes
    # either way: local workers run this interpreter, and a Ray node with another pyarrow refuses to play.
    if backend != "ray" and workers < cores():
        tasks = itertools.chain(tasks, ((c, play_chunk_and_errors, (spec, c)) for c in wanted))
    else:
        encoder = _pyarrow_version() if backend == "ray" else None  # what a Ray node must have
        tasks = itertools.chain(tasks, ((c, play_and_encode_chunk, (spec, c, identity_hash, encoder))
                                        for c in wanted))
    done_boards = sum(boards_in_chunk(spec.boards, c) for c in plan.done)
    bar = contextlib.nullcontext(progress) if progress is not None else \
        tqdm(total=spec.boards, initial=done_boards, unit="board", disable=True if quiet else None, file=sys.stderr,
             dynamic_ncols=True)  # None: a bar where there is a terminal (or a notebook), not in a log
    with bar as progress:
        try:
            finished = (_with_ray(spec, tasks, workers, ray_address, game_timeout) if backend == "ray"
                        else _with_processes(spec, tasks, min(workers, tasks_count), game_timeout))
            for key, result in finished:
                if key == "probe":
                    write_json_atomically(out / DETERMINISM_FILE, result)
                    continue
                if not isinstance(result, bytes):  # rows and first errors, encoded here
                    result = encode_chunk(key, result[0], identity_hash, result[1])
                write_encoded_chunk(out, key, result)
                progress.update(boards_in_chunk(spec.boards, key))
        except (WorkerFailure, TaskError) as error:
            kept = len(list((out / "chunks").glob("chunk-*.parquet")))
            after = (f"; the {kept} finished chunks are kept ({again})" if kept
                     else "; no chunk was finished")
            # A worker's own RunError (a Ray node's pyarrow) is not a bot's doing.
            hint = "" if isinstance(error, TaskError) and error.kind == "RunError" else "; see `autodup check-bot`"
            raise RunError(f"{error}{after}{hint}") from None
    return tasks_count


def play_and_encode_chunk(spec: RunSpec, chunk: int, identity_hash: str, encoder: str | None, progress) -> bytes:
    """A worker's task: play chunk ``chunk`` (:func:`autodup.tournament.spec.play_chunk`) and return its file's
    bytes (:func:`autodup.tournament.storage.encode_chunk`), with each bot's first policy error in the chunk.

    ``encoder``, when given, is the command's pyarrow version: a worker with another one refuses before
    playing, since its Parquet files (their footers, perhaps their encodings) would not be byte for byte
    those of the command's machine.

    Raises
    ------
    RunError
        This worker's pyarrow is not ``encoder``.
    """
    if encoder is not None and _pyarrow_version() != encoder:
        raise RunError(f"a worker has pyarrow {_pyarrow_version()} where this command has {encoder}: the "
                       "chunk files it wrote would differ from this machine's; install the same pyarrow on "
                       "every node", "backend")
    columns, first_errors = play_chunk_and_errors(spec, chunk, progress)
    return encode_chunk(chunk, columns, identity_hash, first_errors)


def play_chunk_and_errors(spec: RunSpec, chunk: int, progress) -> tuple:
    """A worker's task: chunk ``chunk``'s rows (:func:`autodup.tournament.spec.play_chunk`) and ``{bot: message}``,
    each bot's first policy error in it, for this process to encode (:func:`play_and_encode_chunk` encodes
    them where they were played)."""
    return play_chunk(spec, chunk, progress), _first_errors(spec, errors_recorded())


def _pyarrow_version() -> str:
    """The pyarrow this process encodes with: the command and a Ray node compare it the same way."""
    import pyarrow  # a worker that encodes has it loaded; the command starting a Ray cluster can afford it

    return pyarrow.__version__


def _first_errors(spec: RunSpec, errors: list) -> dict:
    """``{bot: message}``: the first policy error of each bot among ``(board, table, seat, message)`` records."""
    first: dict = {}
    for board, table, seat, message in errors:
        if seat >= 0:
            first.setdefault(spec.bot_at(board, table, seat), f"{message} (board {board}, seat {seat})")
    return first


def _with_processes(spec: RunSpec, tasks, workers: int, game_timeout: float):
    from .workers import pool_for

    with pool_for(workers, game_timeout, spec.describe) as pool:
        yield from pool.run(tasks)


def _import_ray():
    try:
        import ray
    except ImportError:
        raise RunError("ray needs Ray: python -m pip install 'autodup[ray]'", "backend") from None
    return ray


_HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"  # + empty SETTINGS


def _check_ray_address(address) -> None:
    """Fail in seconds, not minutes, when nothing, or something that is not Ray, listens at ``--ray-address``.

    A Ray cluster's address (its GCS, or a ``ray://`` client server) speaks gRPC, that is HTTP/2: it answers
    the HTTP/2 preface with a SETTINGS frame. A web server (a dashboard's port) does not, and Ray itself
    would wait on it in native code for about 40 seconds before giving up.
    """
    import socket

    if address is None or address == "auto":
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    host = host.removeprefix("[").removesuffix("]")  # [::1]:6379
    if not host or not port.isdigit():
        raise RunError(f"{address!r} is not HOST:PORT, ray://HOST:PORT or auto", "ray_address")
    try:
        with socket.create_connection((host, int(port)), timeout=RAY_CONNECT_SECONDS) as connection:
            connection.settimeout(RAY_CONNECT_SECONDS)
            connection.sendall(_HTTP2_PREFACE)
            header = b""
            while len(header) < 9:
                received = connection.recv(9 - len(header))
                if not received:
                    break
                header += received
    except OSError as error:
        raise RunError(f"nothing answers at {address} ({error.strerror or error}); start a cluster "
                       f"with `ray start --head`, or leave out {mention('ray_address')} to start one here",
                       "ray_address") from None
    if len(header) < 9 or header[3] != 4:
        raise RunError(f"{address} answers, but not as a Ray cluster does (no gRPC there); give the "
                       "address `ray start --head` printed", "ray_address")


_RAY_LOCAL_POOL: list = []


def run_watched(function, args: tuple, game_timeout: float, describe=None):
    """Run a task in a watched worker process of this process (kept for the next call); returns its result.

    Ray workers call this, so that a bot that hangs or crashes is caught
    there as it is in a local run.
    """
    from ..errors import TaskError, WorkerFailure
    from .workers import Pool

    if not _RAY_LOCAL_POOL:
        import atexit

        _RAY_LOCAL_POOL.append(Pool(1, game_timeout))
        atexit.register(_RAY_LOCAL_POOL[0].close)
    pool = _RAY_LOCAL_POOL[0]
    pool.game_timeout = float(game_timeout)
    pool.describe = describe or pool.describe  # a Ray worker may serve several runs in turn
    try:
        return pool.run_one(function, args)
    except (WorkerFailure, TaskError):
        _RAY_LOCAL_POOL.pop().close()
        raise


def _start_ray(ray, ray_address, workers: int) -> None:
    """``ray.init``, interrupted by Ctrl-C or SIGTERM, and given up after ``RAY_START_SECONDS`` (an address where
    something that is not a Ray cluster listens would otherwise hang it)."""
    import logging
    import signal
    import threading

    from .workers import SignalFlag

    def give_up(signum, frame):
        where = f"at {ray_address}" if ray_address else "here"
        raise RunError(f"ray: no Ray cluster answered {where} within {RAY_START_SECONDS:g} s (is it the "
                       "address of a Ray cluster? a dashboard's port is not)", "backend")

    timed = threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")
    if timed:
        previous = signal.signal(signal.SIGALRM, give_up)
        signal.setitimer(signal.ITIMER_REAL, RAY_START_SECONDS)
    try:
        with SignalFlag(immediate=True):
            ray.init(address=ray_address, num_cpus=None if ray_address else workers, include_dashboard=False,
                     log_to_driver=False, logging_level=logging.ERROR)
    except (RunError, KeyboardInterrupt):
        raise
    except Exception as error:  # Ray's own failures (a version mismatch, a refused connection): one line
        raise RunError(f"ray: Ray did not start: {first_line(error)}", "backend") from None
    finally:
        if timed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)


def _with_ray(spec: RunSpec, tasks, workers: int, ray_address, game_timeout: float):
    from ..errors import TaskError, WorkerFailure
    from .workers import POLL_SECONDS, SignalFlag

    ray = _import_ray()
    started_here = not ray.is_initialized()
    pending: dict = {}
    try:
        if started_here:
            _start_ray(ray, ray_address, workers)
        remote = ray.remote(max_retries=0)(run_watched)
        in_flight = 2 * max(workers, int(ray.cluster_resources().get("CPU", workers)))
        tasks = iter(tasks)
        exhausted = False
        with SignalFlag() as signals:
            while True:
                while not exhausted and len(pending) < in_flight:
                    try:
                        key, function, args = next(tasks)
                    except StopIteration:
                        exhausted = True
                        break
                    pending[remote.remote(function, args, game_timeout, spec.describe)] = key
                if not pending:
                    return
                ready, _ = ray.wait(list(pending), num_returns=1, timeout=POLL_SECONDS)
                signals.check()
                for reference in ready:
                    key = pending.pop(reference)
                    try:
                        result = ray.get(reference)
                    except ray.exceptions.RayError as error:  # a task's own failure travels as its cause
                        cause = getattr(error, "cause", None)
                        if isinstance(cause, (WorkerFailure, TaskError)):
                            raise type(cause)(*cause.__reduce__()[1]) from None
                        raise RunError(f"Ray: {first_line(cause if cause is not None else error)}") from None
                    yield key, result
    finally:
        for reference in pending:
            ray.cancel(reference, force=True)
        if started_here and ray.is_initialized():
            ray.shutdown()
