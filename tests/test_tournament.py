"""The tournament runner: Latin-square seating, dealers, bit-identical results across workers and resumes."""

import ctypes.util
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from autodup.analysis.summary import play_and_summarize, summarize
from autodup.game.bot_loading import load_bot
from autodup.game.config import load_config
from autodup.tournament.folder_lock import locked
from autodup.tournament.process_start import WORKER_START_VARIABLE
from autodup.tournament.spec import CHUNK_BOARDS, make_spec
from autodup.tournament.storage import read_results

ROOT = Path(__file__).resolve().parents[1]
ENVIRONMENT = {**os.environ, "PYTHONPATH": str(ROOT)}
FOUR = ["greedy", "econ", "traits", "random"]


def run(*args, timeout=900, environment=None):
    return subprocess.run([sys.executable, "-m", "autodup", "run", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, env={**ENVIRONMENT, **(environment or {})})


def chunk_bytes(out):
    return {p.name: p.read_bytes() for p in sorted((Path(out) / "chunks").glob("chunk-*.parquet"))}


def test_the_summary_by_hand():
    """2 boards, 2 tables, 2 seats, bots a and b swapping seats: scores computed by hand."""
    columns = {"board": np.array([0, 0, 0, 0, 1, 1, 1, 1]), "seat": np.array([0, 1, 0, 1, 0, 1, 0, 1]),
               "bot": np.array(["a", "b", "b", "a", "a", "b", "b", "a"], dtype=object),
               "placement": np.array([1, 2, 2, 1, 2, 1, 1, 2])}
    rows = {row["bot"]: row for row in summarize(columns)}
    # Board 0: a places 1 and 1, b places 2 and 2 (cell means 1.5): a scores -0.5 twice.
    # Board 1: a places 2 and 2: +0.5 twice. So a averages 0 with per-board means -0.5 and +0.5.
    assert rows["a"]["duplicate_score"] == 0.0 and rows["a"]["mean_placement"] == 1.5
    # Student's t 95% interval over the 2 boards: 1 degree of freedom, whose quantile is tan(pi (0.975 - 1/2)).
    t_quantile = np.tan(np.pi * 0.475)
    assert rows["a"]["duplicate_score_ci95"] == pytest.approx(t_quantile * np.std([-0.5, 0.5], ddof=1) / np.sqrt(2))
    assert rows["a"]["top4_rate"] == 0.5 and rows["b"]["top4_rate"] == 0.5  # top half of 2 seats: 1st place
    single = summarize({name: values[:4] for name, values in columns.items()})
    assert single[0]["duplicate_score_ci95"] is None  # one board: no interval


def test_workers_and_how_they_start_do_not_change_a_single_byte(tmp_path):
    args = ["configs/tiny.yaml", "--bots", ",".join(FOUR), "--boards", str(2 * CHUNK_BOARDS + 5), "--seed", "3",
            "--quiet"]
    one = run(*args, "--out", str(tmp_path / "one"), "--workers", "1")
    two = run(*args, "--out", str(tmp_path / "two"), "--workers", "2")
    spawned = run(*args, "--out", str(tmp_path / "spawned"), "--workers", "2",
                  environment={WORKER_START_VARIABLE: "spawn"})
    assert one.returncode == 0 and two.returncode == 0 and spawned.returncode == 0, (
        one.stderr + two.stderr + spawned.stderr)
    assert chunk_bytes(tmp_path / "one") == chunk_bytes(tmp_path / "two") and len(chunk_bytes(tmp_path / "one")) == 3
    assert chunk_bytes(tmp_path / "spawned") == chunk_bytes(tmp_path / "two")
    assert one.stdout.splitlines()[1:] == two.stdout.splitlines()[1:] == spawned.stdout.splitlines()[1:]
    manifest = json.loads((tmp_path / "one" / "manifest.json").read_text())
    assert manifest["identity"]["seed"] == 3 and manifest["bots"] == FOUR and "package_version" in manifest


START_METHOD = """
import sys, threading, time
from autodup.tournament.process_start import start_method
said = [start_method()]
thread = threading.Thread(target=time.sleep, args=(0.5,))
thread.start()
said.append(start_method())
thread.join()
said.append(start_method())
if sys.argv[1] == "ray":
    import ray  # noqa: F401

    said.append(start_method())
if sys.argv[1] == "tqdm":  # a bar, even one not shown, starts tqdm's monitor thread, which stays
    from tqdm import tqdm

    tqdm(total=1, disable=True).close()
    said.append(start_method())
if sys.argv[1] == "openmp":
    import ctypes.util

    ctypes.CDLL(ctypes.util.find_library("gomp"))
    said.append(start_method())
if sys.argv[1] == "torch":  # what importing it leaves in sys.modules, without its threads
    import types

    sys.modules["torch"] = types.ModuleType("torch")
    said.append(start_method())
if sys.argv[1] == "parallel":
    from numba import njit, prange

    @njit(parallel=True)
    def total(n):
        s = 0
        for i in prange(n):
            s += i
        return s

    total(10)
    said.append(start_method())
print(*said)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers are forked on Linux only")
@pytest.mark.parametrize("variable, then, said", [
    (None, "plain", "fork spawn fork"), ("auto", "parallel", "fork spawn fork spawn"),
    ("auto", "ray", "fork spawn fork spawn"), ("auto", "tqdm", "fork spawn fork fork"),
    ("auto", "openmp", "fork spawn fork spawn"), ("auto", "torch", "fork spawn fork spawn"),
    ("spawn", "plain", "spawn spawn spawn")])
def test_workers_are_forked_only_from_a_process_without_threads_that_a_fork_would_break(variable, then, said):
    """A fork copies one thread: a Python thread, numba's parallel ones (OpenMP's), a Ray worker's (gRPC's) or an
    OpenMP runtime's could hold a lock the worker would wait for, tqdm's monitor only tqdm's own; and the
    environment variable spawns them everywhere."""
    if then == "ray":
        pytest.importorskip("ray")
    if then == "openmp" and ctypes.util.find_library("gomp") is None:
        pytest.skip("no OpenMP runtime (libgomp) on this machine")
    environment = {key: value for key, value in ENVIRONMENT.items() if key != WORKER_START_VARIABLE}
    if variable is not None:
        environment[WORKER_START_VARIABLE] = variable
    result = subprocess.run([sys.executable, "-c", START_METHOD, then],
                            capture_output=True, text=True, timeout=600, cwd=ROOT, env=environment)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == said.split()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers are forked on Linux only")
def test_a_run_folder_is_unlocked_when_left_though_a_forked_process_shares_its_lock(tmp_path):
    """An flock belongs to the open file, which a worker forked meanwhile shares: closed without being unlocked,
    the folder stayed locked until that worker ended, and the next run into it was refused."""
    import warnings

    with locked(tmp_path):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # Python 3.12: this test process has threads
            child = os.fork()
        if child == 0:
            time.sleep(30)
            os._exit(0)
    try:
        with locked(tmp_path):  # refused (RunError: being written by another autodup run) without the unlock
            pass
    finally:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)


def test_an_unknown_way_to_start_workers_is_one_line(tmp_path):
    result = run("configs/tiny.yaml", "--boards", "2", "--quiet", "--out", str(tmp_path / "run"),
                 environment={WORKER_START_VARIABLE: "thread"})
    assert result.returncode == 2 and not (tmp_path / "run").exists()
    assert result.stderr.strip().splitlines() == [
        "autodup: error: AUTODUP_WORKER_START: 'thread' is not a way to start workers (allowed: auto, spawn, or unset)"]


def _pid_and_bots_loaded(progress):
    """A worker's task: its process id and the bot files it has loaded."""
    from autodup.game.bot_loading import _LOADED

    return os.getpid(), sorted(Path(path).stem for path, _ in _LOADED)


def test_a_runs_workers_load_the_bots_side_by_side_and_keep_them_for_the_run():
    """Within one_pool (run_tournament, ab, sweep, quality), the command's workers load the bots, each of them
    (the first's answer is the one used), and play with them, instead of a process of its own loading them
    before the workers start."""
    from autodup.api.tournaments import parameter_overrides
    from autodup.game.boards import table_is_compiled
    from autodup.tournament.loading import load_bots_and_table
    from autodup.tournament.workers import one_pool

    warm = table_is_compiled()
    with one_pool(2, 600) as pool:
        infos = load_bots_and_table(load_config(ROOT / "configs" / "tiny.yaml"), ["greedy", "econ"],
                                    parameter_overrides(None, None), 600)
        assert [info.name for info in infos] == ["greedy", "econ"] and len(pool) == 2
        seen = dict(answer for _, answer in pool.run([(i, _pid_and_bots_loaded, ()) for i in range(2)]))
    assert len(seen) == 2  # one answer from each worker: the pool was not replaced
    loaded = [bots for bots in seen.values() if bots == ["econ", "greedy"]]
    # Cold, one of the two compiled the table instead (it had a task of its own), and the other loaded the bots.
    assert len(loaded) == (2 if warm else 1), seen


def test_a_step_gets_the_commands_pool_when_it_fits_and_a_pool_of_its_own_otherwise():
    from autodup.tournament.workers import Pool, one_pool, pool_for, pool_in_use

    assert pool_in_use(1, 60) is None
    with one_pool(2, 60) as pool:
        for workers, timeout, shared in ((1, 60, True), (2, 60.0, True), (3, 60, False), (2, 30, False)):
            with pool_for(workers, timeout, describe=str) as used:
                assert (used is pool) == shared and isinstance(used, Pool) and len(used) >= workers
                assert used.describe is str
            assert pool.describe is not str  # the command's pool names places as before after the step
        assert len(pool) == 2 and all(worker.process.is_alive() for worker in pool._workers)  # left open
    assert pool_in_use(1, 60) is None and not any(worker.process.is_alive() for worker in pool._workers)


@pytest.mark.parametrize("cores", [1, 64])
def test_a_chunk_is_the_same_bytes_whether_its_worker_or_the_command_encodes_it(tmp_path, monkeypatch, cores):
    """With as many workers as cores (2 on 1 core) each worker encodes its chunks and the command writes the
    bytes; with fewer (2 on 64 cores) the command encodes them on its spare core. Either way each file is byte
    for byte the one encoded here from the same chunk's rows, with the errors its bot made in that chunk,
    recorded here as a worker records them."""
    from autodup.game.progress import new_progress
    from autodup.tournament.run import _first_errors
    from autodup.tournament.spec import play_chunk
    from autodup.tournament.storage import read_chunk_table, write_chunk
    from autodup.tournament.workers import _ErrorRecorder

    crash = ROOT / "tests" / "bots" / "crash.py"  # errs from round 5 of every game
    spec = make_spec(ROOT / "configs" / "tiny.yaml", [load_bot(name) for name in ("greedy", "econ", str(crash))],
                     CHUNK_BOARDS + 5, "haystack", 3)
    with monkeypatch.context() as patched:
        patched.setattr(os, "cpu_count", lambda: cores)  # where the run loop encodes: see autodup.tournament.run
        out, summary = play_and_summarize(spec, tmp_path / "run", workers=2, quiet=True)
    stored = chunk_bytes(out)
    assert len(stored) == 2
    (tmp_path / "here" / "chunks").mkdir(parents=True)
    for chunk, name in enumerate(stored):
        progress = new_progress()
        recorder, hook = _ErrorRecorder(progress), sys.unraisablehook
        sys.unraisablehook = recorder
        try:
            columns = play_chunk(spec, chunk, progress)
        finally:
            sys.unraisablehook = hook
        errors = _first_errors(spec, recorder.records)
        assert set(errors) == {"crash"} and errors["crash"].startswith("IndexError"), errors
        assert f"(board {chunk * CHUNK_BOARDS}, " in errors["crash"]  # this chunk's first board, not another's
        _, metadata = read_chunk_table(out / "chunks" / name, ["board"])
        assert json.loads(metadata["autodup_errors"]) == errors
        write_chunk(tmp_path / "here", chunk, columns, spec.identity_hash(), errors)
        if chunk == 0:
            first = errors
    assert chunk_bytes(tmp_path / "here") == stored
    assert {row["bot"]: row["first_error"] for row in summary}["crash"] == first["crash"]  # the run's first


def test_a_worker_with_another_pyarrow_refuses_to_encode_chunks():
    """On Ray a node may have another pyarrow than the command's: its chunk files would not be the same bytes."""
    from autodup.errors import RunError
    from autodup.game.progress import new_progress
    from autodup.tournament.run import play_and_encode_chunk

    spec = make_spec(ROOT / "configs" / "tiny.yaml", [load_bot(name) for name in FOUR], CHUNK_BOARDS, "haystack", 3)
    with pytest.raises(RunError, match="a worker has pyarrow .* where this command has 0.0.1"):
        play_and_encode_chunk(spec, 0, spec.identity_hash(), "0.0.1", new_progress())
    import pyarrow

    assert play_and_encode_chunk(spec, 0, spec.identity_hash(), pyarrow.__version__, new_progress())[:4] == b"PAR1"


def test_the_summary_takes_chunks_in_their_order_whatever_order_the_threads_finish_in():
    """Chunks are read on several threads; their sums must be made in chunk order (float addition does not
    commute bit for bit), at most CHUNKS_AHEAD are read ahead (memory stays flat), and the first failure in chunk
    order is the one raised, even when a later chunk fails first."""
    import threading

    from autodup.analysis import summary

    ahead, pulled, taken = summary.CHUNKS_AHEAD, [], []

    def items(count):
        for item in range(count):
            pulled.append(item)
            yield item

    def earliest_last(item):  # within each window of CHUNKS_AHEAD, the earlier the item, the later it finishes
        time.sleep(0.002 * (ahead - item % ahead))
        return item

    for item in summary._in_order(earliest_last, items(5 * ahead), threads=4):
        taken.append(item)
        assert len(pulled) < len(taken) + ahead
    assert taken == list(range(5 * ahead))
    later_failed = threading.Event()

    def failing(item):
        if item == 5:
            later_failed.set()
            raise ValueError(item)
        if item == 3:
            assert later_failed.wait(10)
            raise ValueError(item)
        return item

    with pytest.raises(ValueError, match="^3$"):
        list(summary._in_order(failing, range(10), threads=4))


def test_the_ray_backend_writes_the_same_bytes(tmp_path):
    """Against a local Ray instance started here (Ray is in the test extra, so CI runs this)."""
    import ray

    spec = make_spec(ROOT / "configs" / "tiny.yaml", [load_bot(name) for name in FOUR], 2 * CHUNK_BOARDS + 5,
                     "haystack", 3)
    local_out, local_summary = play_and_summarize(spec, tmp_path / "local", workers=1, quiet=True)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        ray_out, ray_summary = play_and_summarize(spec, tmp_path / "ray", workers=2, backend="ray", quiet=True)
    finally:
        ray.shutdown()
    assert chunk_bytes(local_out) == chunk_bytes(ray_out) and len(chunk_bytes(ray_out)) == 3
    assert ray_summary == local_summary


@pytest.mark.slow  # Ray starts a cluster; the default suite keeps Ray's bytes and the local deadline
def test_a_bot_that_hangs_on_ray_is_stopped_and_named_in_one_line(tmp_path):
    """Each Ray worker plays in a watched process of its own, as a local run does."""
    result = run("configs/tiny.yaml", "--bots", f"greedy,{ROOT / 'tests' / 'bots' / 'hangs.py'}", "--boards", "5",
                 "--workers", "2", "--backend", "ray", "--game-timeout", "3", "--out", str(tmp_path / "ray"),
                 "--quiet")
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == 2 and len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert "bot 'hangs'" in lines[0] and "did not finish its game within 3 s" in lines[0]


def test_a_killed_run_resumes_to_the_same_bytes(tmp_path):
    args = ["configs/set4.yaml", "--bots", ",".join(FOUR), "--boards", str(8 * CHUNK_BOARDS), "--workers", "1",
            "--quiet"]
    straight = run(*args, "--out", str(tmp_path / "straight"))
    assert straight.returncode == 0, straight.stderr
    out = tmp_path / "killed"
    process = subprocess.Popen([sys.executable, "-m", "autodup", "run", *args, "--out", str(out)], cwd=ROOT,
                               env=ENVIRONMENT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 600
    while time.time() < deadline and len(list((out / "chunks").glob("chunk-*.parquet"))) < 2:
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    done = len(list((out / "chunks").glob("chunk-*.parquet")))
    assert 2 <= done < 8, "the run finished before it could be killed"
    refused = run(*args, "--out", str(out))
    assert refused.returncode == 2 and "--resume" in refused.stderr and len(refused.stderr.strip().splitlines()) == 1
    resumed = run(*args, "--out", str(out), "--resume")
    assert resumed.returncode == 0 and "corrupted" not in resumed.stderr, resumed.stderr
    assert chunk_bytes(out) == chunk_bytes(tmp_path / "straight")
    assert not list((out / "chunks").glob(".*"))  # no temporary file left behind


def test_ctrl_c_stops_cleanly_and_the_run_resumes(tmp_path):
    args = ["configs/set4.yaml", "--bots", ",".join(FOUR), "--boards", str(8 * CHUNK_BOARDS), "--workers", "1",
            "--quiet", "--out", str(tmp_path / "run")]
    process = subprocess.Popen([sys.executable, "-m", "autodup", "run", *args], cwd=ROOT, env=ENVIRONMENT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 600
    while time.time() < deadline and not list((tmp_path / "run" / "chunks").glob("chunk-*.parquet")):
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode != 0, "the run finished before Ctrl-C arrived"
    assert process.returncode == 130 and "Traceback" not in stderr, stderr
    assert f"autodup run --resume --out {tmp_path / 'run'} finishes the run" in stderr, stderr
    resumed = run(*args, "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert len(chunk_bytes(tmp_path / "run")) == 8


def test_ctrl_c_before_any_chunk_says_nothing_was_kept_and_leaves_no_folder(tmp_path):
    # hangs.py never returns from round 3: the first game (the determinism probe) cannot finish.
    out = tmp_path / "run"
    process = subprocess.Popen([sys.executable, "-m", "autodup", "run", "configs/tiny.yaml", "--bots",
                                f"greedy,{ROOT / 'tests' / 'bots' / 'hangs.py'}", "--boards", "50", "--workers", "1",
                                "--quiet", "--out", str(out)], cwd=ROOT, env=ENVIRONMENT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 600
    while time.time() < deadline and not (out / "manifest.json").exists():
        time.sleep(0.05)
    time.sleep(1)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130 and len(stderr.strip().splitlines()) == 1, stderr
    assert "no chunk was finished, so nothing was kept" in stderr and "--resume" not in stderr, stderr
    assert not out.exists()


def test_resume_with_other_arguments_is_refused(tmp_path):
    out = str(tmp_path / "run")
    first = run("configs/tiny.yaml", "--bots", "greedy,random", "--boards", "5", "--out", out, "--quiet")
    assert first.returncode == 0, first.stderr
    # Five boards are too few to fit luck slopes: the adjusted score is the duplicate score, and the run says so.
    assert "too few boards to fit the luck adjustment for" in first.stdout
    for row in json.loads((tmp_path / "run" / "summary.json").read_text()):
        assert row["luck_fitted"] is False and row["adjusted_score"] == row["duplicate_score"]
    for change in (["--seed", "1"], ["--dealer", "keyed"], ["--boards", "6"], ["--bot-param", "greedy.roll_above=9"]):
        result = run("configs/tiny.yaml", "--bots", "greedy,random", "--boards", "5", "--out", out, "--resume",
                     "--quiet", *change)
        assert result.returncode == 2 and result.stdout == "", change
        assert len(result.stderr.strip().splitlines()) == 1 and "other arguments" in result.stderr


def test_a_resume_with_another_configuration_is_refused_in_one_line_before_the_value_is_read(tmp_path):
    """A run of set4 is corrected by set4's shipped value; resumed with tiny, it is refused at once, in one line: the
    value's warning that it was fitted on another configuration came first, and the bots loaded before either."""
    out = str(tmp_path / "run")
    assert run("configs/set4.yaml", "--bots", "greedy,econ", "--boards", "5", "--out", out, "--quiet").returncode == 0
    for other in (["configs/tiny.yaml"], ["configs/set4.yaml", "--boards", "6"]):
        result = run(*other, "--resume", "--out", out, "--quiet")
        assert result.returncode == 2 and result.stdout == ""
        said = ("the configuration (the run's is the folder's config.yaml) differs" if "tiny" in other[0]
                else "boards differ: 6 given, 5 in the run")
        assert result.stderr.strip().splitlines() == [
            f"autodup: error: --resume: {out} holds a run with other arguments or files ({said}); resume with the "
            "same ones or use another folder"]


def test_resume_refuses_edited_files_and_foreign_folders(tmp_path):
    config = tmp_path / "tiny.yaml"
    config.write_text((ROOT / "configs" / "tiny.yaml").read_text())
    bot = tmp_path / "mybot.py"
    bot.write_text((ROOT / "bots" / "greedy.py").read_text().replace('NAME = "greedy"', 'NAME = "mybot"'))
    out = str(tmp_path / "run")
    args = [str(config), "--bots", f"{bot},random", "--boards", "5", "--out", out, "--quiet"]
    assert run(*args).returncode == 0
    for path, said in ((bot, f"(the code of bot 'mybot' ({bot} changed since the run started) differs)"),
                       (config, "(the configuration (the run's is the folder's config.yaml) differs)")):
        original = path.read_text()
        path.write_text(original + "\n# edited\n")
        result = run(*args, "--resume")
        assert result.returncode == 2 and said in result.stderr and len(result.stderr.strip().splitlines()) == 1
        path.write_text(original)
    assert run(*args, "--resume").returncode == 0
    stranger = tmp_path / "stranger"
    (stranger / "chunks").mkdir(parents=True)
    (stranger / "chunks" / "chunk-000000.parquet").write_bytes(b"not parquet")
    result = run(str(config), "--bots", "greedy,random", "--boards", "5", "--out", str(stranger), "--quiet")
    assert result.returncode == 2 and "not empty" in result.stderr


def test_a_run_goes_on_with_a_bot_file_that_moved_and_not_with_one_whose_code_changed(tmp_path):
    """A run's identity names each bot file where it was; a file moved since, its code the same, is the same bot:
    the run resumes from the folder's copy (no bots given) or from the new path given, and its rows are those of
    the run played at once. A moved file whose code changed is refused, saying so."""
    bot = tmp_path / "mybot.py"
    bot.write_text((ROOT / "bots" / "greedy.py").read_text().replace('NAME = "greedy"', 'NAME = "mybot"'))
    whole, out = str(tmp_path / "whole"), tmp_path / "run"
    args = ["configs/tiny.yaml", "--bots", f"{bot},econ", "--boards", "60", "--quiet"]
    assert run(*args, "--out", whole).returncode == 0
    assert run(*args, "--out", str(out)).returncode == 0
    moved = tmp_path / "elsewhere.py"
    bot.rename(moved)
    (out / "chunks" / "chunk-000001.parquet").unlink()
    result = run("--resume", "--out", str(out), "--quiet")  # the folder's copy
    assert result.returncode == 0, result.stderr
    (out / "chunks" / "chunk-000002.parquet").unlink()
    result = run("configs/tiny.yaml", "--bots", f"{moved},econ", "--boards", "60", "--out", str(out), "--resume",
                 "--quiet")  # the new path
    assert result.returncode == 0, result.stderr
    assert chunk_bytes(out) == chunk_bytes(whole)
    assert json.loads((out / "manifest.json").read_text())["identity"]["bots"][0][1] == str(bot)
    moved.write_text(moved.read_text() + "\n# edited\n")
    (out / "chunks" / "chunk-000000.parquet").unlink()
    result = run("configs/tiny.yaml", "--bots", f"{moved},econ", "--boards", "60", "--out", str(out), "--resume",
                 "--quiet")
    assert result.returncode == 2
    assert f"(the code of bot 'mybot' ({moved} is not the run's {bot}) differs)" in result.stderr


def test_replaying_a_run_whose_bot_file_and_copy_both_changed_says_so_not_a_parameter(tmp_path):
    """The report's coupling diagnostic replays a run's first boards from its bot files. Both the file and the
    folder's copy replaced by another bot of the same name (other parameters), the replay named an option nobody
    gave (``--bot-param: bot 'mybot' has no parameter 'roll_above'``): a file is checked before its parameters."""
    bot = tmp_path / "mybot.py"
    bot.write_text((ROOT / "bots" / "greedy.py").read_text().replace('NAME = "greedy"', 'NAME = "mybot"'))
    runs = []
    for dealer in ("haystack", "independent"):
        runs.append(str(tmp_path / dealer))
        assert run("configs/tiny.yaml", "--bots", f"{bot},random", "--boards", "5", "--dealer", dealer, "--out",
                   runs[-1], "--quiet").returncode == 0
    other = (ROOT / "bots" / "econ.py").read_text().replace('NAME = "econ"', 'NAME = "mybot"')
    bot.write_text(other)
    (Path(runs[0]) / "bots" / "mybot.py").write_text(other)
    result = subprocess.run([sys.executable, "-m", "autodup", "report", *runs, "--out", str(tmp_path / "report")],
                            capture_output=True, text=True, timeout=900, cwd=ROOT, env=ENVIRONMENT)
    assert result.returncode == 2 and result.stderr.strip().splitlines() == [
        "autodup: error: bot 'mybot' (its file or its own modules) changed since the run started"], result.stderr


def test_a_resume_given_no_bots_takes_the_folders_copy_of_a_bot_file_edited_or_swapped_since(tmp_path):
    """With no bots given a resume takes each bot from its recorded path only while that file is the folder's copy,
    byte for byte: two files whose contents were swapped since give way to the copies, and the run ends with the
    bytes of a run played at once. A file gone with no copy left is named, with what is allowed."""
    first, second = tmp_path / "first.py", tmp_path / "second.py"
    greedy = (ROOT / "bots" / "greedy.py").read_text()
    first.write_text(greedy.replace('NAME = "greedy"', 'NAME = "first"'))
    second.write_text(greedy.replace('NAME = "greedy"', 'NAME = "second"').replace("50.0", "20.0"))
    whole, out = str(tmp_path / "whole"), tmp_path / "run"
    args = ["configs/tiny.yaml", "--bots", f"{first},{second}", "--boards", "60", "--quiet"]
    assert run(*args, "--out", whole).returncode == 0
    assert run(*args, "--out", str(out)).returncode == 0
    contents = first.read_text(), second.read_text()
    first.write_text(contents[1])
    second.write_text(contents[0])
    (out / "chunks" / "chunk-000001.parquet").unlink()
    result = run("--resume", "--out", str(out), "--quiet")
    assert result.returncode == 0, result.stderr
    assert chunk_bytes(out) == chunk_bytes(whole)
    for name, path in (("first", first), ("second", second)):  # the edit is said not to be played, once each
        assert result.stderr.count(f"bot {name!r}: {path} has changed since the run began; the run goes on with "
                                   f"the folder's copy ({out / 'bots' / (name + '.py')})") == 1, result.stderr
    first.unlink()
    (out / "bots" / "first.py").unlink()
    (out / "chunks" / "chunk-000001.parquet").unlink()
    result = run("--resume", "--out", str(out), "--quiet")
    assert result.returncode == 2 and result.stderr.strip() == (
        f"autodup: error: --bots: {out}: the file of bot 'first', {first}, is gone and the folder has no copy of it "
        "(allowed: where each bot's file is now, in the run's order: first, second)")


@pytest.mark.parametrize("args", [
    ["--dealer", "plain"],
    ["--dealer", "Haystack"],
    ["--bots", "greedy,greedy"],
    ["--bots", "genius"],
    ["configs/tiny.yaml", "--bots", "greedy,econ,traits,random,fast8,reroll1,reroll2,reroll3,greedy"],
    ["tests/broken_configs/06_odds_do_not_sum_to_100.yaml"],
])
def test_bad_run_arguments_get_one_line(args, tmp_path):
    result = run(*args, "--out", str(tmp_path / "x"), "--quiet")
    assert result.returncode == 2 and result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_summary_scores_against_the_same_board_and_seat(tmp_path):
    out = tmp_path / "run"
    result = run("configs/tiny.yaml", "--bots", ",".join(FOUR), "--boards", "30", "--out", str(out), "--quiet",
                 "--json")
    assert result.returncode == 0, result.stderr
    columns = read_results(out)
    assert len(columns["board"]) == 30 * 4 * 8
    summary = {row["bot"]: row for row in json.loads(result.stdout)["summary"]}
    assert set(summary) == set(FOUR)
    # Scores are placements minus the mean at the same (board, seat): they sum to zero over all rows.
    total = sum(row["duplicate_score"] * row["rows"] for row in summary.values())
    assert abs(total) < 1e-9
    for name, row in summary.items():
        mine = columns["bot"] == name
        assert row["rows"] == mine.sum() == 30 * 8
        assert abs(row["mean_placement"] - columns["placement"][mine].mean()) < 1e-12
        assert row["duplicate_score_ci95"] > 0
    stored = json.loads((out / "summary.json").read_text())
    # summarize() does no luck adjustment (it has no luck column); everything else is the stored summary's.
    adjusted = ("adjusted_score", "adjusted_score_ci95", "luck_fitted", "first_error", "deterministic")
    unadjusted = {row["bot"]: {k: v for k, v in row.items() if k not in adjusted} for row in summarize(columns)}
    assert unadjusted == {row["bot"]: {k: v for k, v in row.items() if k not in adjusted} for row in stored}
    assert [row["adjusted_score"] for row in stored] == sorted(row["adjusted_score"] for row in stored)
    assert all(row["deterministic"] is True and row["first_error"] is None for row in stored)
    # The list column holds each seat's shop after every round's refresh while it was alive.
    tiny = load_config(ROOT / "configs" / "tiny.yaml")
    lengths = np.array([len(shops) for shops in columns["round_shops"]])
    assert np.array_equal(lengths, columns["rounds_alive"] * tiny.shop_size)
    champions = tiny.n_champions
    assert all(np.all((np.asarray(shops) >= -1) & (np.asarray(shops) < champions)) for shops in columns["round_shops"])


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_the_compile_bar_moves_by_the_seconds_of_what_is_compiled_and_names_it(monkeypatch):
    """A cold start's bar (autodup.tournament.loading.CompileProgress) follows the two workers' progress blocks:
    the table's stages (PROGRESS_COMPILED) beside the shop's draw, the user's bot files, the round's start, its end
    and the storage, then the shipped bots, which the table's worker shares from the last once the table is
    compiled. A part counts once its worker has gone on to another (or ended), by its seconds; the bar never goes
    back, and a stage loaded from the cache (no compile event) is counted with the next one."""
    from autodup.game.boards import TABLE_STAGES
    from autodup.game.progress import (
        COMPILING_ROUND_END,
        COMPILING_ROUND_START,
        COMPILING_SHOP_DRAW,
        COMPILING_STORAGE,
        PROGRESS_COMPILED,
        PROGRESS_COMPILING,
        PROGRESS_FIELDS,
        PROGRESS_LOADING,
    )
    from autodup.tournament.loading import COMPILE_BAR, SECONDS_A_BOT, CompileProgress, _compiling_parts

    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)  # the bar is drawn where there is a terminal
    stage = [s.seconds for s in TABLE_STAGES]
    part = {code: seconds for code, (_, seconds) in _compiling_parts().items()}
    total = sum(stage) + sum(part.values()) + 4 * SECONDS_A_BOT
    bar = CompileProgress(["greedy", "my_bots/mine.py:Agent", "econ", "random"], show=True)
    bots, table = np.zeros(PROGRESS_FIELDS, dtype=np.int64), np.zeros(PROGRESS_FIELDS, dtype=np.int64)
    seen = []

    def poll(busy, seconds_done):
        bar.update(busy)
        assert bar.bar.n == round(1000 * seconds_done / total), (bar.bar.n, seconds_done)
        seen.append(bar.bar.desc)

    both = [("bots", bots), ("table", table)]
    poll(both, 0)  # the bots' worker has not started yet
    bots[PROGRESS_COMPILING] = COMPILING_SHOP_DRAW
    poll(both, 0)
    bots[PROGRESS_COMPILING], bots[PROGRESS_LOADING] = 0, 2  # the agent, the user's code, first
    done = part[COMPILING_SHOP_DRAW]
    poll(both, done)
    bots[PROGRESS_LOADING], bots[PROGRESS_COMPILING] = 0, COMPILING_ROUND_START
    table[PROGRESS_COMPILED] = 1
    done += SECONDS_A_BOT + stage[0]
    poll(both, done)
    bots[PROGRESS_COMPILING] = COMPILING_ROUND_END
    done += part[COMPILING_ROUND_START]
    poll(both, done)
    table[PROGRESS_COMPILED] = 3  # the soundness check was loaded: counted with the turns
    done += stage[1] + stage[2]
    poll(both, done)
    bots[PROGRESS_COMPILING] = COMPILING_STORAGE
    done += part[COMPILING_ROUND_END]
    poll(both, done)
    bots[PROGRESS_COMPILING], bots[PROGRESS_LOADING] = 0, 1  # the shipped bots from the first
    done += part[COMPILING_STORAGE]
    poll(both, done)
    table[PROGRESS_COMPILED], table[PROGRESS_LOADING] = 5, 4  # the table is compiled: its worker takes the last
    done += stage[3] + stage[4]
    poll(both, done)
    bots[PROGRESS_LOADING] = 3
    done += SECONDS_A_BOT  # greedy
    poll(both, done)
    table[PROGRESS_LOADING] = 0  # it found econ claimed: its task ends
    done += SECONDS_A_BOT  # random
    poll(both, done)
    poll([("bots", bots)], done)
    poll([], total)
    # The per cent before what is compiling, so that a narrow terminal cuts the names, not the figure.
    line = str(bar.bar)
    assert line.startswith(f"{COMPILE_BAR} 100% |") and line.endswith("  done"), line
    bar.close()
    assert seen == ["the table (a new game)", "the shop's draw, the table (a new game)",
                    "bot mine, the table (a new game)",
                    "the round's start, the table (the game's end and the soundness check)",
                    "the round's end, the table (the game's end and the soundness check)",
                    "the round's end, the table (the rounds)", "the storage, the table (the rounds)",
                    "bot greedy, the table (the rounds)", "bot greedy, bot random", "bot econ, bot random",
                    "bot econ", "bot econ", "done"]
    assert bar.bar.total == 1000 and COMPILE_BAR in terminal.getvalue()
    # Not in a log: the same bar on a file that is not a terminal draws nothing.
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    quiet = CompileProgress(["greedy"], show=True)
    quiet.update([])
    quiet.close()
    assert sys.stderr.getvalue() == ""
    # Both workers on one bot (the table's waits for the other's compile of it): named once.
    bar = CompileProgress(["greedy", "econ"], show=False)
    bots[:], table[:] = 0, 0
    bots[PROGRESS_LOADING] = table[PROGRESS_LOADING] = 2
    bar.update(both)
    assert bar.bar.desc == "bot econ"
    bar.close()


def test_the_tables_stages_are_counted_from_numbas_compile_events():
    """compile_table's listener (autodup.game.boards._StagesPassed) on real compiles: at each compile event a stage
    is passed once its function has a compiled version, compiled then (a callee, compiled first, passes first) or
    before, as a function loaded from the cache is, which sends no event; the count never goes back."""
    from numba import njit
    from numba.core import event

    from autodup.game.boards import TableStage, _StagesPassed
    from autodup.game.progress import PROGRESS_COMPILED, new_progress

    @njit
    def loaded(x):
        return x - 1

    @njit
    def inner(x):
        return x + 1

    @njit
    def outer(x):
        return inner(x) * 2

    assert loaded(1) == 0  # compiled before the listener: as if loaded from the cache
    progress = new_progress()
    passed = []

    class Recorder(event.Listener):  # after the stages' listener: what it has written by each compile's end
        def on_start(self, compiling):
            pass

        def on_end(self, compiling):
            passed.append((compiling.data["dispatcher"].py_func.__name__, int(progress[PROGRESS_COMPILED])))

    stages = (TableStage("loaded", loaded, 1.0), TableStage("the inner", inner, 1.0),
              TableStage("the outer", outer, 1.0))
    with event.install_listener("numba:compile", _StagesPassed(progress, stages)), \
            event.install_listener("numba:compile", Recorder()):
        assert outer(3) == 8
        assert inner(2.5) == 3.5  # a second version of a passed stage's function: the count stays
    assert passed == [("inner", 2), ("outer", 3), ("inner", 3)]


@pytest.mark.slow
def test_a_cold_compile_of_the_table_passes_its_stages_in_order(tmp_path):
    """The real table, compiled in one process with an empty cache: every stage of TABLE_STAGES passes, in order
    (a stage whose function numba reached in another order would show the bar jumping)."""
    code = """
from autodup.game.boards import TABLE_STAGES, compile_table
from autodup.game.config import load_config
from autodup.game.progress import PROGRESS_COMPILED, new_progress
from autodup.game.rules import rules_of

class Recording:
    def __init__(self):
        self.values, self.written = new_progress(), []
    def __getitem__(self, field):
        return self.values[field]
    def __setitem__(self, field, value):
        self.values[field] = value
        if field == PROGRESS_COMPILED:
            self.written.append(int(value))

progress = Recording()
compile_table(rules_of(load_config("configs/set4.yaml")), "events", progress)
print(len(TABLE_STAGES), *progress.written)
"""
    from .python_runs import run_in

    words = run_in(ROOT, tmp_path / "cache", code)
    stages = int(words[0])
    assert [int(word) for word in words[1:]] == list(range(1, stages + 1))


def test_a_cold_starts_two_workers_share_the_shipped_bots(monkeypatch):
    """A cold start's bots' worker compiles the shop's draw, loads the user's bots first, then compiles the round's
    start and end and the storage, then loads the shipped bots from the first (a bot named twice is loaded once);
    the table's worker, once the table is compiled, loads shipped bots from the last until one comes from the cache
    (the other worker compiled it: autodup.compile_cache compiles each bot once across processes, see
    test_compile_cache), and never loads the user's code."""
    import types

    from autodup.game import boards, bot_loading, table
    from autodup.game.progress import PROGRESS_LOADING, new_progress
    from autodup.tournament.loading import bot_infos_in_worker, compile_table_in_worker

    user_bot = str(ROOT / "tests" / "bots" / "first_slot.py")
    specs = ["greedy", user_bot, "econ", "random", "greedy"]
    calls = []
    real_load_bot = bot_loading.load_bot
    for name in ("compile_shop_draw", "compile_round_start", "compile_round_end"):
        monkeypatch.setattr(table, name, lambda *arguments, name=name: calls.append(name))
    monkeypatch.setattr(boards, "compile_storage", lambda *arguments: calls.append("compile_storage"))
    monkeypatch.setattr(boards, "compile_table", lambda *arguments: calls.append("compile_table"))
    monkeypatch.setattr(bot_loading, "load_bot", lambda spec: calls.append(spec) or real_load_bot(spec))
    config_text = (ROOT / "configs" / "tiny.yaml").read_text()
    overrides = ({}, "--bot-params", {"greedy": {"roll_above": 20.0}})
    infos = bot_infos_in_worker(specs, overrides, config_text, "events", new_progress())
    assert calls == ["compile_shop_draw", user_bot, "compile_round_start", "compile_round_end", "compile_storage",
                     *specs]
    assert [info.name for info in infos] == ["greedy", "first_slot", "econ", "random", "greedy"]
    assert infos[0].parameters == infos[4].parameters == {"roll_above": 20.0}

    cached = {"greedy": 0, "random": 0, "econ": 1}  # greedy, random compiled here; econ by the other worker
    calls.clear()
    monkeypatch.setattr(bot_loading, "load_bot", lambda spec: calls.append(spec) or types.SimpleNamespace(
        policy=types.SimpleNamespace(_cache_hits=cached[spec])))
    progress = new_progress()
    assert compile_table_in_worker(config_text, "events", specs, progress)
    assert calls == ["compile_table", "greedy", "random", "econ"] and progress[PROGRESS_LOADING] == 0


def test_a_value_a_bot_file_reads_on_loading_is_part_of_the_runs_identity(tmp_path):
    """A bot whose file reads its threshold from a file beside it played 1000, then 0: the second run was told
    'this run is finished already; its results are reused' and printed the first one's results (found by a new
    user's trial). What a bot file computes when it loads is in the run's identity now: another value is another run
    (its own default folder; the same --out, or a resume, is refused in one line)."""
    bot = tmp_path / "thrbot.py"
    bot.write_text((ROOT / "tests" / "bots" / "reads_a_threshold.py").read_text() + f"# {tmp_path}\n")
    args = ["configs/tiny.yaml", "--bots", f"{bot},greedy", "--boards", "4", "--quiet"]
    (tmp_path / "threshold.txt").write_text("1000\n")
    out = str(tmp_path / "run")
    assert run(*args, "--out", out).returncode == 0
    (tmp_path / "threshold.txt").write_text("0\n")
    for again in ([], ["--resume"]):
        result = run(*args, "--out", out, *again)
        assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert "what the bot files computed when they loaded (a file they read, an environment variable) differs" \
            in result.stderr, result.stderr
    assert run(*args, "--out", str(tmp_path / "other")).returncode == 0  # another folder plays the new value
    (tmp_path / "threshold.txt").write_text("1000\n")
    assert run(*args, "--out", out, "--resume").returncode == 0  # its own value again: the same run


def test_a_bot_whose_file_computes_other_values_in_each_process_stops_a_run_in_one_line(tmp_path):
    """A threshold drawn from the clock when the file loads: each worker that loads it plays another bot, so the run
    stops at the first one, in one line, and leaves no folder."""
    out = tmp_path / "run"
    result = run("configs/tiny.yaml", "--bots", "tests/bots/clock_seeded.py,greedy", "--boards", "4", "--quiet",
                 "--out", str(out))
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "bot 'clock_seeded' computed other values when its file loaded here than where the run started" \
        in result.stderr and not out.exists()
