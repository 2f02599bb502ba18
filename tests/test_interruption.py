"""Ctrl-C and SIGTERM at the worst moments: one line, exit 130 (143), no traceback, no process or file left (issue 27).

A terminal sends Ctrl-C to the whole foreground process group, so the worker processes get it too, and at the
worst moment: while their Python starts (seconds: numpy), before any code of autodup could ignore it. Each
command here runs in a session of its own, and the signal goes to its whole group, at a moment found by watching
its workers in /proc: as the first workers' Python starts (it has installed its KeyboardInterrupt handler and
does not ignore the signal yet), as the worker of the next pool starts (quality's, which traces draws, after
the one that loaded the bots and played the runs), and between two pools (no worker alive: the signal must not
be lost). Then signals to the command itself while it imports, before any worker exists. Every test failed
before the fix but the Ctrl-C as numba loads (it guards what worked), and the Ctrl-C as numpy loads fails only
when it lands while numpy's C code initializes (a few milliseconds; the test after it puts an exception there
at will).
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autodup.tournament.loading import COMPILE_BAR
from autodup.tournament.process_start import WORKER_START_VARIABLE

ROOT = Path(__file__).resolve().parents[1]
ENVIRONMENT = {**os.environ, "PYTHONPATH": str(ROOT)}
COMPILING = COMPILE_BAR  # the one note a cold compiled-code cache adds (and its bar)

COMMANDS = {
    "run": ["run", "configs/tiny.yaml", "--bots", "greedy", "--boards", "8"],
    "sweep": ["sweep", "configs/tiny.yaml", "--set", "starting_gold=3,4", "--bots", "greedy", "--boards", "8"],
    "ab": ["ab", "configs/tiny.yaml", "--set", "starting_gold=4", "--bots", "greedy", "--until-ci", "0.5",
           "--boards", "400"],
    "quality": ["quality", "configs/tiny.yaml", "--bots", "greedy,random", "--boards", "8", "--dealers", "haystack",
                "--no-ladder"],
}
FIRST, NEXT, BETWEEN = "as the first workers start", "as the next pool's workers start", "between two pools"


def _stat(pid) -> list:
    """The fields of /proc/PID/stat after the command's name: state, parent, process group, ..."""
    return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()


def children(pid: int) -> list:
    """Process ids whose parent is ``pid``."""
    listed = Path(f"/proc/{pid}/task/{pid}/children")  # every child: the command starts them from its main thread
    try:
        return [int(word) for word in listed.read_text().split()]
    except FileNotFoundError:  # a kernel without CONFIG_PROC_CHILDREN
        pass
    except OSError:
        return []
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int(_stat(entry.name)[1]) == pid:
                    found.append(int(entry.name))
            except (OSError, IndexError, ValueError):
                continue
    return found


def workers(pid: int) -> dict:
    """``{worker: whether its Python has started}`` for the command's worker processes (not the resource tracker).

    Started: its Python catches SIGINT (the handler that raises KeyboardInterrupt is installed) and does not
    ignore it yet, that is, it imports its arguments' modules: a Ctrl-C then printed a traceback. A forked
    worker (its command line is the command's) has its modules from the start: it is started at once.
    """
    found = {}
    try:
        command_line = (Path("/proc") / str(pid) / "cmdline").read_bytes()
    except OSError:
        return found
    for child in children(pid):
        try:
            child_line = (Path("/proc") / str(child) / "cmdline").read_bytes()
            if child_line == command_line:
                found[child] = True
                continue
            if b"spawn_main" not in child_line:
                continue
            masks = {line.split(":")[0]: int(line.split(":")[1], 16)
                     for line in (Path("/proc") / str(child) / "status").read_text().splitlines()
                     if line.startswith(("SigIgn", "SigCgt"))}
        except (OSError, ValueError, IndexError):
            continue
        interrupt = 1 << (signal.SIGINT - 1)
        found[child] = bool(masks.get("SigCgt", 0) & interrupt) and not masks.get("SigIgn", 0) & interrupt
    return found


def group(pgid: int) -> list:
    """Live processes of the process group ``pgid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = _stat(entry.name)
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] not in "ZX":
                found.append(int(entry.name))
    return found


@pytest.fixture
def start(tmp_path):
    """``start(command)``: the command in a session of its own (its group gets the signal, as a terminal's group
    does), with a private TMPDIR; returns the process and that TMPDIR. What a failed test left running is killed."""
    started = []

    def start(command: str, worker_start: str = "auto"):
        temporary = tmp_path / "tmp"
        temporary.mkdir()
        process = subprocess.Popen([sys.executable, "-m", "autodup", *COMMANDS[command], "--workers", "2", "--quiet",
                                    "--out", str(tmp_path / command)], cwd=ROOT,
                                   env={**ENVIRONMENT, "TMPDIR": str(temporary), WORKER_START_VARIABLE: worker_start},
                                   stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, start_new_session=True)
        started.append(process)
        return process, temporary

    yield start
    for process in started:
        if group(process.pid):
            os.killpg(process.pid, signal.SIGKILL)
        process.communicate()


def signal_group_at(process, moment: str, signal_number: int, seconds: float = 300.0) -> None:
    """Send ``signal_number`` to the process group as soon as ``moment`` comes (polled every few milliseconds)."""
    seen, first_pool = set(), set()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"the command ended before the moment ({moment}) came: {process.communicate()}")
        now = workers(process.pid)
        ended = seen - set(now)
        if not ended:
            first_pool = seen | set(now)
        if moment == FIRST:
            ready = any(now.values())
        elif moment == NEXT:  # the next pool's worker (quality's tracing one, after its runs') has started its Python
            ready = bool(ended) and any(started for worker, started in now.items() if worker not in first_pool)
        else:  # a pool has ended, and the next has not started
            ready = bool(ended) and not now
        if ready:
            os.killpg(process.pid, signal_number)
            return
        seen |= set(now)
        time.sleep(0.003)
    pytest.fail(f"the moment ({moment}) did not come within {seconds:g} s")


def assert_stopped_with_one_line(process, temporary: Path, code: int, word: str) -> None:
    _, stderr = process.communicate(timeout=120)
    lines = [line for line in stderr.splitlines() if line.strip() and COMPILING not in line]
    assert process.returncode == code and "Traceback" not in stderr and len(lines) == 1, stderr
    assert lines[0].startswith(f"autodup: {word}"), stderr
    deadline = time.monotonic() + 20  # multiprocessing's resource tracker leaves once the command has gone
    while time.monotonic() < deadline and group(process.pid):
        time.sleep(0.05)
    assert not group(process.pid), "processes of the command outlived it"
    assert not list(temporary.iterdir()), "temporary files left behind"


@pytest.fixture(scope="module")
def warm(tmp_path_factory):
    """The table in the compiled-code cache: the pool that loads the bots then ends in seconds, not minutes."""
    from autodup.game.boards import table_is_compiled

    if not table_is_compiled():
        subprocess.run([sys.executable, "-m", "autodup", "run", "configs/tiny.yaml", "--bots", "greedy", "--boards",
                        "1", "--workers", "1", "--quiet", "--out", str(tmp_path_factory.mktemp("warm") / "run")],
                       cwd=ROOT, env=ENVIRONMENT, capture_output=True, timeout=900, check=True)


# A run, a sweep and an A/B test load their bots and play in one pool; quality starts a second one to trace draws.
# The command forks its workers (autodup.tournament.process_start.start_method); spawned, as a program with threads
# of its own has them, their Python starts for seconds with the signals blocked.
@pytest.mark.parametrize("command, moment, worker_start", [
    ("run", FIRST, "auto"), ("run", FIRST, "spawn"), ("sweep", FIRST, "auto"), ("ab", FIRST, "auto"),
    ("quality", FIRST, "auto"), ("quality", NEXT, "auto"), ("quality", NEXT, "spawn"), ("quality", BETWEEN, "auto")])
def test_ctrl_c_to_the_group_as_workers_start_or_between_pools_is_one_line(warm, start, command, moment,
                                                                           worker_start):
    process, temporary = start(command, worker_start)
    signal_group_at(process, moment, signal.SIGINT)
    assert_stopped_with_one_line(process, temporary, 130, "interrupted")


def test_sigterm_to_the_group_between_two_pools_stops_the_comparison(warm, start):
    """The signal came as a pool closed: it used to be lost, and the comparison went on to its end (exit 0)."""
    process, temporary = start("quality")
    signal_group_at(process, BETWEEN, signal.SIGTERM)
    assert_stopped_with_one_line(process, temporary, 143, "terminated")


def signal_once_loaded(process, library: str, signal_number: int, seconds: float = 120.0) -> None:
    """Send ``signal_number`` to the process group once the command has mapped ``library`` (from /proc/PID/maps)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if library in (Path("/proc") / str(process.pid) / "maps").read_text():
                break
        except OSError:
            pass
        time.sleep(0.003)
    assert not workers(process.pid), f"the workers started before {library} was seen loaded"
    os.killpg(process.pid, signal_number)


@pytest.mark.parametrize("library", ["_multiarray_umath", "libllvmlite"], ids=["numpy", "numba"])
@pytest.mark.parametrize("signal_number, code, word", [(signal.SIGINT, 130, "interrupted"),
                                                        (signal.SIGTERM, 143, "terminated")])
def test_a_signal_while_the_command_still_imports_is_one_line(start, library, signal_number, code, word):
    """Before any worker exists, as the command loads numpy or numba (well past the interpreter's own start, whose
    `Fatal Python error` no program can prevent). SIGTERM used to kill it without a word (it was handled only once
    the command had been parsed); a Ctrl-C as numpy initialized became numpy's ImportError, a traceback."""
    process, temporary = start("run")
    signal_once_loaded(process, library, signal_number)
    assert_stopped_with_one_line(process, temporary, code, word)


def command_line_running(monkeypatch, run) -> int:
    """``autodup bots`` with ``run(args)`` as its code, in this process (the main thread's signal handlers, so
    signals raised at moments of our choosing); its exit code."""
    import threading

    import autodup.cli as cli

    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers are the main thread's")
    real = cli._module("bots")

    class Command:
        add_arguments = staticmethod(real.add_arguments)

    Command.run = staticmethod(run)
    monkeypatch.setattr(cli, "_module", lambda name: Command)
    return cli.main(["bots"])


def test_a_stop_that_c_code_turned_into_another_exception_is_still_one_line(monkeypatch, capsys):
    """What numpy's C extension does with a KeyboardInterrupt raised while it initializes, at a moment of our
    choosing: the command line remembers the signal, whatever exception it became."""
    def importing(args):
        try:
            signal.raise_signal(signal.SIGINT)
        except KeyboardInterrupt:
            raise ImportError('PyCapsule_Import could not import module "datetime"') from None
        return 0

    assert command_line_running(monkeypatch, importing) == 130
    assert capsys.readouterr().err == "autodup: interrupted\n"


def drop_with_a_signal_in_its_finalizer(signal_number: int) -> bool:
    """An object dropped whose weak reference's callback receives ``signal_number`` (its handler raises there,
    inside the callback; Python reports such an exception and goes on); whether the callback ran."""
    import weakref

    class Pool:
        pass

    def finalizer(reference):
        signal.raise_signal(signal_number)
        sum(range(100))

    pool = Pool()
    reference = weakref.ref(pool, finalizer)
    del pool  # the callback runs now
    return reference() is None


@pytest.mark.parametrize("signal_number, code, word", [(signal.SIGINT, 130, "interrupted"),
                                                       (signal.SIGTERM, 143, "terminated")])
def test_a_stop_that_comes_while_a_finalizer_runs_is_not_lost(monkeypatch, capsys, signal_number, code, word):
    """A signal that comes while a finalizer runs (multiprocessing closing the first pool of ``autodup quality``,
    in one CI run) raised inside it, and Python printed the exception with a traceback and went on: the command
    finished with exit 0. Now the next worker pool refuses to start, and the command stops with its one line."""
    from autodup.errors import lost_stop
    from autodup.tournament.workers import Pool

    went_on = []

    def closing(args):
        went_on.append(drop_with_a_signal_in_its_finalizer(signal_number))
        Pool(1)  # the next pool
        went_on.append("a pool started")
        return 0

    assert command_line_running(monkeypatch, closing) == code
    assert capsys.readouterr().err == f"autodup: {word}\n"  # no traceback
    assert went_on == [True] and lost_stop() == 0  # forgotten when the command ends


def test_a_command_whose_stop_was_lost_in_a_finalizer_still_stops_at_its_end(monkeypatch, capsys):
    """With no pool after the finalizer, the stop is raised when the command's own code returns."""
    assert command_line_running(monkeypatch, lambda args: 0 if drop_with_a_signal_in_its_finalizer(2) else 3) == 130
    assert capsys.readouterr().err == "autodup: interrupted\n"


def test_a_stop_lost_under_another_handler_still_stops_the_command(monkeypatch, capsys):
    """The pool's immediate handler (around the start of a Ray cluster) raises its own ``Stopped``; lost in a
    finalizer, the command line's record of it stops the command at its end (it ended with exit 0 and no word)."""
    from autodup.tournament.workers import SignalFlag

    def starting_ray(args):
        with SignalFlag(immediate=True):
            drop_with_a_signal_in_its_finalizer(signal.SIGTERM)
        return 0

    assert command_line_running(monkeypatch, starting_ray) == 143
    assert capsys.readouterr().err == "autodup: terminated\n"


def test_a_stop_in_a_finalizer_is_not_taken_for_a_bot_error():
    """While bots' errors are collected (their policies' exceptions come through the same hook), a stop goes on to
    the hook before, not into the bots' error messages."""
    import sys
    import weakref

    from autodup.errors import Stopped
    from autodup.game.bot_loading import bot_errors_collected

    passed_on = []
    previous, sys.unraisablehook = sys.unraisablehook, passed_on.append
    try:
        with bot_errors_collected() as errors:
            class Pool:
                pass

            def finalizer(reference):
                raise Stopped(signal.SIGINT)

            pool = Pool()
            reference = weakref.ref(pool, finalizer)
            del pool
            assert reference() is None
    finally:
        sys.unraisablehook = previous
    assert errors == [] and [type(u.exc_value) for u in passed_on] == [Stopped]


def _run_stopped(monkeypatch, capsys, where, *options) -> str:
    """``autodup run`` of 60 boards (3 chunks) on tiny, in this process, stopped by a Ctrl-C that ``where`` raises
    (a module and the name of one of its functions, replaced for the run; ``None``: not stopped); its stderr."""
    import autodup.cli as cli

    def stop(*args, **kwargs):
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        if where is not None:
            patch.setattr(*where, stop)
        code = cli.main(["run", str(ROOT / "configs" / "tiny.yaml"), "--bots", "greedy,random", "--boards", "60",
                         "--workers", "1", "--quiet", *options])
    assert code == (0 if where is None else 130)
    return capsys.readouterr().err


def test_ctrl_c_at_any_moment_of_a_run_says_what_its_folder_holds(monkeypatch, capsys, tmp_path):
    """Outside the folder's play (its arguments read, the bots compiling, the table of a finished run printed) a
    Ctrl-C said only "interrupted; the same command goes on from what it finished", and a stopped resume of a
    finished run said that --resume would finish it. Each moment now says what the folder holds, the command
    that goes on from it quoted for a shell."""
    import autodup.api.tournaments as tournaments
    import autodup.cli.run as run_command
    import autodup.tournament.loading as loading
    import autodup.tournament.run as run_module

    monkeypatch.chdir(tmp_path)
    compiling, reading, playing = (loading, "load_bots_and_table"), (tournaments, "load_config"), (run_module, "_play")
    nothing = "autodup: interrupted; no chunk was finished, so nothing was kept\n"
    for moment in (reading, compiling, playing):  # a new folder, in a folder made for it: neither is left
        assert _run_stopped(monkeypatch, capsys, moment, "--out", "made/run") == nothing, moment
        assert not (tmp_path / "made").exists()
    # The default folder is named by the bots: stopped before, the command wrote nothing.
    wrote_nothing = "autodup: interrupted; this command wrote nothing\n"
    assert _run_stopped(monkeypatch, capsys, compiling) == wrote_nothing
    assert not (tmp_path / "runs").exists()
    # An empty folder given is left empty.
    (tmp_path / "empty").mkdir()
    assert _run_stopped(monkeypatch, capsys, playing, "--out", "empty") == nothing
    assert not any((tmp_path / "empty").iterdir())
    out = tmp_path / "a run"
    finished = f"autodup: interrupted; the run is finished (autodup summary '{out}' prints its table)\n"
    assert _run_stopped(monkeypatch, capsys, (run_command, "print_summary"), "--out", str(out)) == finished
    assert _run_stopped(monkeypatch, capsys, compiling, "--out", str(out), "--resume") == finished
    assert _run_stopped(monkeypatch, capsys, playing, "--out", str(out), "--resume") == finished
    (out / "chunks" / "chunk-000000.parquet").unlink()
    assert _run_stopped(monkeypatch, capsys, compiling, "--out", str(out), "--resume") == (
        f"autodup: interrupted; the finished chunks are kept (autodup run --resume --out '{out}' finishes the run)\n")
    assert "nothing played" not in _run_stopped(monkeypatch, capsys, None, "--out", str(out), "--resume")
    # Another run's folder, given without --resume, is not said to be this run's (it is refused once the bots load).
    assert _run_stopped(monkeypatch, capsys, compiling, "--out", str(out), "--seed", "1") == wrote_nothing


@pytest.mark.parametrize("signal_number", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_once_the_command_is_done_ends_it_without_a_word(signal_number):
    """Past the command, while the interpreter exits (multiprocessing's and threading's exit handlers), a Ctrl-C
    printed `Exception ignored in atexit callback` and a traceback; now the signal's default action ends the
    process, without a word and with the command's output whole."""
    script = ("import atexit, signal, sys\n"
              "from autodup.cli import program\n"
              f"atexit.register(signal.raise_signal, {int(signal_number)})  # runs as the interpreter exits\n"
              "sys.argv = ['autodup', 'bots']\n"
              "program()\n")
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=ENVIRONMENT, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == -signal_number and result.stderr == "", result.stderr
    assert "greedy" in result.stdout and "traits" in result.stdout  # the command's whole output, flushed
