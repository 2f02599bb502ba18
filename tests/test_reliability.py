"""Results you can trust: bots that hang, crash or misbehave, signals, locks, corrupted chunks, absurd sizes.

Each test here stands for a defect found by a review (issue 9) and fails on the code before its fix.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from autodup.analysis.summary import summarize_run
from autodup.arguments import MAX_BOARDS
from autodup.errors import CorruptChunk, RunError, UsageError
from autodup.game.bot_loading import load_bot
from autodup.game.config import load_config
from autodup.tournament import run as run_module
from autodup.tournament.loading import bot_overrides, compile_game
from autodup.tournament.spec import CHUNK_BOARDS, make_spec
from autodup.tournament.storage import prepare_output, read_chunk, read_results, write_chunk

ROOT = Path(__file__).resolve().parents[1]
ENVIRONMENT = {**os.environ, "PYTHONPATH": str(ROOT)}
BOTS = ROOT / "tests" / "bots"


def autodup(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "autodup", *args], capture_output=True, text=True, timeout=timeout,
                          cwd=ROOT, env=ENVIRONMENT)


def start(*args):
    return subprocess.Popen([sys.executable, "-m", "autodup", *args], cwd=ROOT, env=ENVIRONMENT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def one_line(result) -> str:
    """The one line of stderr (beside the note that the game is compiling, which a cold cache prints first)."""
    lines = [line for line in result.stderr.splitlines() if line.strip() and not line.startswith("autodup: compiling")]
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    return lines[0]


def children(pid: int) -> list:
    """Process ids whose parent is ``pid`` (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait_for_a_hung_worker(process, seconds=120):
    """Wait until the run's workers are up and one has sat in a game for a while (the hang)."""
    deadline = time.time() + seconds
    while time.time() < deadline and len(children(process.pid)) < 2:
        time.sleep(0.1)
    time.sleep(5)  # the workers load, play until round 3 and hang there
    assert process.poll() is None, process.communicate()


# --------------------------------------------------------------------------
# bots that hang or crash: a deadline from outside, one line naming the bot and the board
# --------------------------------------------------------------------------


def test_a_decide_that_never_returns_is_stopped_by_the_deadline_in_play_and_check_bot():
    # The same table with a bot that plays, untimed: on a cold cache the game compiles here (minutes), not in the
    # timed command, which then compiles only the hanging bot and must stop it within the bound.
    assert autodup("play", "configs/tiny.yaml", "--bots", "greedy").returncode == 0
    started = time.time()
    result = autodup("play", "configs/tiny.yaml", "--bots", str(BOTS / "hangs.py"), "--game-timeout", "2")
    assert result.returncode == 2 and time.time() - started < 60
    line = one_line(result)
    assert "hangs.py" in line and "seat" in line and "did not finish its game within 2 s" in line
    checked = autodup("check-bot", str(BOTS / "hangs.py"), "--game-timeout", "2", "--games", "2", "--json")
    assert checked.returncode == 1
    report = json.loads(checked.stdout)
    assert not report["clean"] and report["kind"] == "hang" and "check table" in report["failure"]


def test_a_helper_that_recurses_forever_crashes_only_its_worker(tmp_path):
    result = autodup("play", "configs/tiny.yaml", "--bots", str(BOTS / "recurses.py"))
    assert result.returncode == 2
    line = one_line(result)
    # Every seat plays this bot; the one served first is the one that crashes.
    assert re.search(r"recurses\.py \(seat [0-7]\) crashed the worker process \(signal SIGSEGV", line)
    run = autodup("run", "configs/tiny.yaml", "--bots", f"greedy,{BOTS / 'recurses.py'}", "--boards", "30",
                  "--workers", "1", "--out", str(tmp_path / "crash"), "--quiet")
    assert run.returncode == 2 and "bot 'recurses' (seat" in one_line(run) and "SIGSEGV" in run.stderr


def test_bots_with_recursive_helpers_that_end_play_in_every_process(tmp_path):
    """numba cannot reload a cached policy that calls a recursive function; such policies are not cached."""
    for _ in range(2):  # the second time, the first run's cache would be loaded
        run = autodup("run", "configs/tiny.yaml", "--bots", f"greedy,{BOTS / 'recurses.py'},{BOTS / 'mutual.py'}",
                      "--bot-param", "recurses.limit=50", "--boards", "30", "--workers", "2", "--quiet", "--out",
                      str(tmp_path / f"run{len(list(tmp_path.iterdir()))}"))
        assert run.returncode == 0 and run.stderr == "", run.stderr


def test_a_bot_that_ends_the_process_while_it_loads_is_named_in_every_command(tmp_path):
    for command in (["play", "configs/tiny.yaml", "--bots", str(BOTS / "broken" / "os_exit.py")],
                    ["check-bot", str(BOTS / "broken" / "os_exit.py")],
                    ["run", "configs/tiny.yaml", "--bots", f"greedy,{BOTS / 'broken' / 'os_exit.py'}", "--boards",
                     "5", "--out", str(tmp_path / "run"), "--quiet"]):
        result = autodup(*command)
        assert result.returncode in (1, 2)
        text = one_line(result) if command[0] != "check-bot" else result.stdout.strip()
        assert "os_exit.py (while it was loaded) crashed the worker process (exit code 3" in text, text
    assert not (tmp_path / "run").exists()


SLEEPS_WHEN_LOADED = """
import time

from autodup.bots import end_turn, policy

NAME = "sleeper"
DESCRIPTION = "Sleeps an hour when it loads, and swallows what interrupts it."
try:
    time.sleep(3600)
except Exception:
    pass


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    return end_turn()


class Agent:
    def act(self, view):
        return 0
"""


def test_a_bot_or_agent_file_that_never_finishes_loading_is_named_in_one_line_in_every_command(tmp_path):
    """Its top level sleeps (and catches Exception): every command stops at the load deadline, here 1 s by the
    environment variable, with one line naming the file, instead of waiting with it."""
    bot = tmp_path / "sleeper.py"
    bot.write_text(SLEEPS_WHEN_LOADED)
    environment = {**ENVIRONMENT, "AUTODUP_BOT_LOAD_SECONDS": "1"}
    for command in (["play", "configs/tiny.yaml", "--bots", f"{bot},random"], ["check-bot", str(bot)],
                    ["play", "configs/tiny.yaml", "--bots", f"{bot}:Agent,random"],
                    ["run", "configs/tiny.yaml", "--bots", f"greedy,{bot}", "--boards", "5", "--out",
                     str(tmp_path / "run"), "--quiet"]):
        started = time.monotonic()
        result = subprocess.run([sys.executable, "-m", "autodup", *command], capture_output=True, text=True,
                                timeout=300, cwd=ROOT, env=environment)
        assert time.monotonic() - started < 120
        assert result.returncode == 2, result.stderr
        text = one_line(result) if command[0] != "check-bot" else result.stdout.strip() + result.stderr.strip()
        assert "sleeper.py" in text and "did not finish loading in 1 s" in text, text
    assert not (tmp_path / "run").exists()
    for value in ("soon", "1e10", "-1"):  # 1e10 s overflowed the timer, and blamed the first bot loaded
        refused = subprocess.run([sys.executable, "-m", "autodup", "play", "configs/tiny.yaml"], capture_output=True,
                                 text=True, timeout=300, cwd=ROOT,
                                 env={**ENVIRONMENT, "AUTODUP_BOT_LOAD_SECONDS": value})
        assert refused.returncode == 2, refused.stderr
        assert f"AUTODUP_BOT_LOAD_SECONDS='{value}': not a number of seconds" in one_line(refused)
    # A microsecond: the alarm rang before the load's block began, and a bare 'LoadTimedOut' was the message.
    for _ in range(3):
        refused = subprocess.run([sys.executable, "-m", "autodup", "play", "configs/tiny.yaml"], capture_output=True,
                                 text=True, timeout=300, cwd=ROOT,
                                 env={**ENVIRONMENT, "AUTODUP_BOT_LOAD_SECONDS": "0.000001"})
        assert refused.returncode == 2 and "greedy.py: did not finish loading in 1e-06 s" in one_line(refused), \
            refused.stderr


LOADS_A_BOT = """
import time

from autodup.bots import end_turn, policy
from autodup.game.bot_loading import load_bot

NAME = "outer"
DESCRIPTION = "Loads another bot file while it loads, swallowing what that raises, then sleeps."
time.sleep(0.3)
try:
    load_bot({inner!r})
except Exception:
    pass
time.sleep(3600)


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    return end_turn()
"""


def test_a_bot_file_that_loads_a_slow_bot_is_the_one_named_and_cannot_swallow_the_deadline(tmp_path):
    """The outer file's load holds the deadline: the inner load (a file that sleeps) is stopped by it and lets it
    through, so the outer file's ``except Exception`` cannot swallow it and sleep on, and the line names the outer
    file, whose load it was."""
    inner = tmp_path / "sleeper.py"
    inner.write_text(SLEEPS_WHEN_LOADED)
    outer = tmp_path / "outer.py"
    outer.write_text(LOADS_A_BOT.format(inner=str(inner)))
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "autodup", "play", "configs/tiny.yaml", "--bots",
                             f"{outer},random"], capture_output=True, text=True, timeout=300, cwd=ROOT,
                            env={**ENVIRONMENT, "AUTODUP_BOT_LOAD_SECONDS": "1"})
    assert time.monotonic() - started < 120
    assert result.returncode == 2
    line = one_line(result)
    assert f"{outer}: did not finish loading in 1 s" in line and "sleeper.py" not in line, line


def test_the_load_deadline_does_not_count_compiling_the_policy(tmp_path):
    """A bot file whose own code is instant, compiled cold (a cache of its own) under a deadline of 0.05 s: the
    compile takes longer than that, and is not counted."""
    bot = tmp_path / "instant.py"
    bot.write_text((ROOT / "bots" / "greedy.py").read_text().replace('NAME = "greedy"', 'NAME = "instant"'))
    code = ("import time, autodup.bots; from autodup.game.bot_loading import load_bot; start = time.monotonic(); "
            f"load_bot({str(bot)!r}); print(time.monotonic() - start)")
    environment = {**ENVIRONMENT, "AUTODUP_BOT_LOAD_SECONDS": "0.05", "AUTODUP_CACHE_DIR": str(tmp_path / "cache")}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, cwd=ROOT,
                            env=environment)
    assert result.returncode == 0, result.stderr
    assert float(result.stdout.split()[-1]) > 0.5  # the compile's time: the deadline would have stopped it


@pytest.mark.slow  # about a minute; the default suite keeps the deadline (a decide that never returns) and resume
def test_a_run_stopped_by_a_slow_bot_resumes_to_the_bytes_of_an_uninterrupted_run(tmp_path):
    """A bot that thinks for a second in a few games: a short deadline stops the run, a longer one finishes it.

    The deadline is not part of the run's identity, so the stopped run resumes; with seed 1 the first slow game
    is at board 59, after two finished chunks (asserted: a change of the game may move it).
    """
    args = ["configs/tiny.yaml", "--bots", f"greedy,{BOTS / 'slow.py'}", "--bot-param", "slow.one_in=40",
            "--bot-param", "slow.steps=1e10", "--boards", str(3 * CHUNK_BOARDS), "--seed", "1", "--workers", "1",
            "--quiet"]
    out = tmp_path / "run"
    stopped = autodup("run", *args, "--out", str(out), "--game-timeout", "0.3")
    assert stopped.returncode == 2
    line = one_line(stopped)
    assert "bot 'slow' (seat 0, board" in line and "did not finish its game within 0.3 s" in line
    assert "raise the game timeout (--game-timeout, game_timeout) if games are meant to be that slow" in line
    kept = sorted(p.name for p in (out / "chunks").glob("chunk-*.parquet"))
    assert kept == ["chunk-000000.parquet", "chunk-000001.parquet"], (kept, line)
    assert "the 2 finished chunks are kept" in line
    resumed = autodup("run", *args, "--out", str(out), "--resume", "--game-timeout", "600")
    assert resumed.returncode == 0, resumed.stderr
    straight = autodup("run", *args, "--out", str(tmp_path / "straight"), "--game-timeout", "600")
    assert straight.returncode == 0, straight.stderr
    names = sorted(p.name for p in (tmp_path / "straight" / "chunks").glob("chunk-*.parquet"))
    assert len(names) == 3
    assert all((out / "chunks" / n).read_bytes() == (tmp_path / "straight" / "chunks" / n).read_bytes()
               for n in names)


def start_a_hung_run(out: Path, temporary: Path = None):
    """``autodup run`` with a bot that hangs and a deadline far away, in a session of its own (so that a signal
    can go to its whole process group, as a terminal or `timeout` sends it); returns the process and its
    children. ``temporary`` is its TMPDIR."""
    # Compiled first, into the cache the run reads: its workers then load at once and reach the hang within the
    # wait below, instead of being stopped while the table or the bot compile (a cold cache's first minute).
    compile_game(load_config("tiny"), ["greedy"], bot_overrides(), 600.0)
    load_bot(BOTS / "hangs.py")
    environment = {**ENVIRONMENT, **({"TMPDIR": str(temporary)} if temporary else {})}
    process = subprocess.Popen([sys.executable, "-m", "autodup", "run", "configs/tiny.yaml", "--bots",
                                f"greedy,{BOTS / 'hangs.py'}", "--boards", "60", "--workers", "2", "--game-timeout",
                                "600", "--out", str(out), "--quiet"], cwd=ROOT, env=environment,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    wait_for_a_hung_worker(process)
    workers = children(process.pid)
    assert len(workers) >= 2
    return process, workers


def assert_gone(pids, seconds=10.0):
    deadline = time.time() + seconds
    while time.time() < deadline and [pid for pid in pids if alive(pid)]:
        time.sleep(0.1)
    assert not [pid for pid in pids if alive(pid)], "workers outlived the run"


@pytest.mark.parametrize("to_group", [False, True], ids=["to the command", "to its process group"])
@pytest.mark.parametrize("signal_number, code, word", [(signal.SIGINT, 130, "interrupted"),
                                                        (signal.SIGTERM, 143, "terminated")])
def test_ctrl_c_and_sigterm_stop_a_run_whose_bot_hangs_and_leave_nothing(tmp_path, signal_number, code, word,
                                                                        to_group):
    (tmp_path / "tmp").mkdir()
    process, workers = start_a_hung_run(tmp_path / "run", tmp_path / "tmp")
    if to_group:  # the workers get the signal too: it is still a stop, not a bot's crash
        os.killpg(process.pid, signal_number)
    else:
        process.send_signal(signal_number)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == code and word in stderr and "Traceback" not in stderr, stderr
    assert len(stderr.strip().splitlines()) == 1 and "crashed" not in stderr
    assert_gone(workers)
    assert not list((tmp_path / "tmp").glob("autodup-worker-*")), "worker logs left behind"


def test_kill_9_of_a_run_takes_its_workers_along_and_leaves_no_file(tmp_path):
    (tmp_path / "tmp").mkdir()
    process, workers = start_a_hung_run(tmp_path / "run", tmp_path / "tmp")
    process.send_signal(signal.SIGKILL)
    process.communicate(timeout=30)
    assert_gone(workers)
    assert not list((tmp_path / "tmp").iterdir()), "worker logs left behind"


def test_kill_9_while_the_workers_are_still_starting_leaves_no_file(tmp_path):
    """The moment the workers exist, before their Python has started: a log with a name would be left here."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    process = subprocess.Popen([sys.executable, "-m", "autodup", "run", "configs/tiny.yaml", "--bots", "greedy",
                                "--boards", "60", "--workers", "2", "--out", str(tmp_path / "run"), "--quiet"],
                               cwd=ROOT, env={**ENVIRONMENT, "TMPDIR": str(temporary)}, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.time() + 120
    while time.time() < deadline and len(children(process.pid)) < 2:
        time.sleep(0.005)
    workers = children(process.pid)
    process.send_signal(signal.SIGKILL)
    process.communicate(timeout=30)
    assert len(workers) >= 2
    assert_gone(workers)
    assert not list(temporary.iterdir()), "worker logs left behind"


def test_a_refused_folder_is_left_as_it_was(tmp_path):
    """A folder that is not a run (a run's chunks folder, someone's files) gets no lock file or anything else."""
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    for out in (foreign, tmp_path / ""):
        result = autodup("run", "configs/tiny.yaml", "--bots", "greedy", "--boards", "2", "--out", str(out),
                         "--quiet")
        assert result.returncode == 2 and "not a run folder" in one_line(result)
    assert sorted(p.name for p in foreign.iterdir()) == ["notes.txt"]
    for args in (["--out", ""], ["--bots", ""], ["--bots", "greedy,,econ"], ["--workers", "100000"]):
        result = autodup("run", "configs/tiny.yaml", "--boards", "2", "--quiet", *args)
        assert result.returncode == 2 and one_line(result).startswith("autodup: error:"), args


def test_a_damaged_determinism_probe_is_probed_again(finished_run, tmp_path):
    import shutil

    out = tmp_path / "run"
    shutil.copytree(finished_run, out)
    original = (out / "determinism.json").read_text()
    for damage in ('{"greedy": tru', "[]", '{"greedy": "yes"}'):
        (out / "determinism.json").write_text(damage)
        resumed = autodup("run", "configs/tiny.yaml", "--bots", "greedy,econ,random", "--boards",
                          str(2 * CHUNK_BOARDS), "--out", str(out), "--quiet", "--workers", "1", "--resume")
        assert resumed.returncode == 0 and resumed.stderr == "", resumed.stderr
        assert json.loads((out / "determinism.json").read_text()) == json.loads(original)


def test_a_damaged_configuration_snapshot_is_written_again_or_refused_never_called_finished(finished_run, tmp_path):
    """A finished run's config.yaml overwritten with bytes that are not UTF-8: resumed with its configuration
    given, the snapshot is written again from it (its hash is the manifest's) and the run reads as before;
    resumed from the folder alone, one line says what is wrong, and not also that the run is finished."""
    import shutil

    out = tmp_path / "run"
    shutil.copytree(finished_run, out)
    original = (out / "config.yaml").read_bytes()
    arguments = ["--bots", "greedy,econ,random", "--boards", str(2 * CHUNK_BOARDS), "--out", str(out), "--quiet",
                 "--workers", "1", "--resume"]
    (out / "config.yaml").write_bytes(b"\xff\xfe")
    resumed = autodup("run", "configs/tiny.yaml", *arguments)
    assert resumed.returncode == 0, resumed.stderr
    assert (out / "config.yaml").read_bytes() == original
    (out / "config.yaml").write_bytes(b"\xff\xfe")
    refused = autodup("run", "--out", str(out), "--quiet", "--resume")
    assert refused.returncode == 2 and "finished" not in refused.stderr
    assert "config.yaml:1: not UTF-8 text" in one_line(refused)


def test_two_runs_into_one_folder_are_refused_and_resume_needs_a_run(tmp_path):
    out = tmp_path / "run"
    process, _ = start_a_hung_run(out)
    try:
        second = autodup("run", "configs/tiny.yaml", "--bots", f"greedy,{BOTS / 'hangs.py'}", "--boards", "60",
                         "--out", str(out), "--resume", "--quiet")
        assert second.returncode == 2 and "being written by another autodup run" in one_line(second)
    finally:
        process.kill()
        process.communicate()
    missing = autodup("run", "configs/tiny.yaml", "--bots", "greedy", "--boards", "5", "--resume", "--out",
                      str(tmp_path / "nothing"), "--quiet")
    assert missing.returncode == 2 and "does not exist" in one_line(missing)
    assert not (tmp_path / "nothing").exists()


# --------------------------------------------------------------------------
# bots that misbehave without stopping: reported in the summary and in one warning line
# --------------------------------------------------------------------------


def test_a_run_reports_errors_illegal_actions_bad_answers_and_nondeterminism(tmp_path):
    bots = ["greedy", "crash.py", "chaos.py", "unstable.py", "numbers.py"]
    specs = ",".join(name if not name.endswith(".py") else str(BOTS / name) for name in bots)
    result = autodup("run", "configs/set4.yaml", "--bots", specs, "--boards", "4", "--out", str(tmp_path / "run"),
                     "--quiet", "--json")
    assert result.returncode == 0
    warning = one_line(result)  # no traceback per failed decision: one line for all of it
    for phrase in ("crash: ", "bot errors", "IndexError", "chaos: ", "illegal actions", "unstable: not deterministic",
                   "numbers: ", "bad answers", "autodup check-bot"):
        assert phrase in warning, phrase
    rows = {row["bot"]: row for row in json.loads(result.stdout)["summary"]}
    stored = {row["bot"]: row for row in json.loads((tmp_path / "run" / "summary.json").read_text())}
    assert rows == stored
    assert rows["crash"]["bot_errors"] > 0 and rows["crash"]["first_error"].startswith("IndexError")
    assert rows["chaos"]["illegal_actions"] > 0 and rows["numbers"]["bad_answers"] > 0
    assert rows["unstable"]["deterministic"] is False and rows["greedy"]["deterministic"] is True
    assert not any(rows["greedy"][key] for key in ("illegal_actions", "cap_hits", "bot_errors", "bad_answers"))


def test_zero_is_reported_as_what_it_is():
    """0 is what numba's callback returns when decide raises: counted as an error, and said so."""
    from autodup.game.bot_check import check_bot
    from autodup.game.config import load_config

    report = check_bot(load_bot(str(BOTS / "zero.py")), load_config(ROOT / "configs" / "tiny.yaml"), games=2)
    assert report["bot_errors"] > 0 and report["bad_answers"] == 0 and "returned 0" in report["first_error"]


def test_a_number_returned_instead_of_an_answer_is_a_bad_answer_not_a_purchase():
    from autodup.game.bot_check import check_bot
    from autodup.game.config import load_config

    report = check_bot(load_bot(str(BOTS / "numbers.py")), load_config(ROOT / "configs" / "tiny.yaml"), games=4)
    assert report["bad_answers"] > 0 and not report["clean"] and "not an answer" in report["first_error"]
    assert report["illegal_actions"] == 0  # 7 used to decode as a loaded roll, gold + 2 as buy(...)


# --------------------------------------------------------------------------
# corrupted chunks: checksums verified on resume and on read
# --------------------------------------------------------------------------


def flip_bytes_in_column(path: Path, column: str) -> None:
    import pyarrow.parquet as pq

    metadata = pq.ParquetFile(path).metadata.row_group(0)
    chunk = next(metadata.column(i) for i in range(metadata.num_columns)
                 if metadata.column(i).path_in_schema.split(".")[0] == column)
    start = chunk.dictionary_page_offset or chunk.data_page_offset
    middle = start + chunk.total_compressed_size // 2
    data = bytearray(path.read_bytes())
    for i in range(4):
        data[middle + i] ^= 0xFF
    path.write_bytes(bytes(data))


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("corruption") / "run"
    result = autodup("run", "configs/tiny.yaml", "--bots", "greedy,econ,random", "--boards", str(2 * CHUNK_BOARDS),
                     "--out", str(out), "--quiet", "--workers", "1")
    assert result.returncode == 0, result.stderr
    return out


@pytest.mark.parametrize("field, value, says", [
    ("boards", "abc", "identity.boards: 'abc' is not an integer"),
    ("boards", -1, "identity.boards: -1 is out of range"),
    ("dealer", "fair", "identity.dealer: unknown value 'fair'"),
    ("seed", 2**64, "identity.seed: 18,446,744,073,709,551,616 is out of range"),
])
def test_a_manifest_edited_out_of_range_is_refused_in_one_line(finished_run, tmp_path, field, value, says):
    import shutil

    run = tmp_path / "run"
    shutil.copytree(finished_run, run)
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["identity"][field] = value
    (run / "manifest.json").write_text(json.dumps(manifest))
    result = autodup("summary", str(run))
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert says in result.stderr and "the manifest was edited" in result.stderr, result.stderr


@pytest.mark.parametrize("position, value", [(1, 123), (1, None), (0, ["greedy"]), (2, 7), (3, "roll_above")],
                         ids=["path a number", "path null", "name a list", "fingerprint a number", "parameters text"])
def test_a_manifest_whose_bot_entry_was_edited_to_another_type_is_refused_in_one_line(finished_run, tmp_path,
                                                                                      position, value):
    """A recorded bot is [name, path, fingerprint, parameters], text, text, text and a mapping: another type there
    (a hand edit) is refused as not a run manifest by summary and by a resume, with or without the bots given (a
    path that is a number reached the bots' comparison and ended in a traceback)."""
    run = tmp_path / "run"
    shutil.copytree(finished_run, run)
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["identity"]["bots"][0][position] = value
    (run / "manifest.json").write_text(json.dumps(manifest))
    for command in (["summary", str(run)], ["run", "--resume", "--out", str(run), "--quiet"],
                    ["run", "configs/tiny.yaml", "--bots", "greedy,econ,random", "--boards", str(2 * CHUNK_BOARDS),
                     "--resume", "--out", str(run), "--quiet"]):
        result = autodup(*command)
        assert result.returncode == 2 and "manifest.json: not a run manifest" in one_line(result), result.stderr


def _copy_chunk_over(run, source, target):
    shutil.copyfile(run / "chunks" / f"chunk-{source:06d}.parquet", run / "chunks" / f"chunk-{target:06d}.parquet")


def _edit_identity(run, field, value):
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["identity"][field] = value
    (run / "manifest.json").write_text(json.dumps(manifest))


@pytest.mark.parametrize("doctor, says", [
    (lambda run: _copy_chunk_over(run, 0, 2), "chunk-000002.parquet: chunk 2 of a run of 50 boards, which has 2 chunks"),
    (lambda run: _copy_chunk_over(run, 1, 0), "chunk-000000.parquet: holds chunk 1 under the name of chunk 0"),
    (lambda run: _edit_identity(run, "seed", 5), "not a chunk of the run its manifest describes"),
    (lambda run: _edit_identity(run, "dealer", "keyed"), "not a chunk of the run its manifest describes"),
    (lambda run: _edit_identity(run, "boards", 25), "not a chunk of the run its manifest describes"),
], ids=["copied beyond the run", "copied over another", "seed edited", "dealer edited", "boards edited"])
def test_a_doctored_run_is_refused_in_one_line_not_summarized_wrong(finished_run, tmp_path, doctor, says):
    """A chunk copied under another name counted its boards twice; an edited seed or dealer went unnoticed."""
    from autodup import open_results

    run = tmp_path / "run"
    shutil.copytree(finished_run, run)
    doctor(run)
    result = autodup("summary", str(run))
    assert result.returncode == 2 and says in one_line(result), result.stderr
    with pytest.raises(RunError, match=re.escape(says)):
        open_results(run).summary()
    with pytest.raises(RunError, match=re.escape(says)):
        read_results(run)


def test_a_chunk_or_lock_the_system_will_not_give_is_not_called_corrupted(finished_run, tmp_path):
    """Permissions and folders in a file's place: what the system said, not 'corrupted'; no traceback."""
    run = tmp_path / "run"
    shutil.copytree(finished_run, run)
    chunk = run / "chunks" / "chunk-000001.parquet"
    chunk.unlink()
    chunk.mkdir()
    result = autodup("summary", str(run))
    assert result.returncode == 2 and one_line(result) == f"autodup: error: {chunk}: cannot be read (Is a directory)"
    shutil.rmtree(chunk)
    shutil.copyfile(finished_run / "chunks" / chunk.name, chunk)
    (run / ".lock").unlink(missing_ok=True)
    (run / ".lock").mkdir()  # as root, a read-only folder cannot be made: a folder in the lock's place fails alike
    resumed = autodup("run", "configs/tiny.yaml", "--bots", "greedy,econ,random", "--boards", str(2 * CHUNK_BOARDS),
                      "--out", str(run), "--quiet", "--resume")
    assert resumed.returncode == 2 and "cannot be written to (Is a directory)" in one_line(resumed)


@pytest.mark.parametrize("column", ["placement", "round_shops", "bot"])
def test_a_corrupted_chunk_is_caught_on_read_and_played_again_on_resume(finished_run, tmp_path, column):
    import shutil

    out = tmp_path / "run"
    shutil.copytree(finished_run, out)
    original = {p.name: p.read_bytes() for p in (out / "chunks").glob("chunk-*.parquet")}
    summary = (out / "summary.json").read_text()
    flip_bytes_in_column(out / "chunks" / "chunk-000001.parquet", column)
    with pytest.raises(CorruptChunk, match="chunk-000001.parquet: corrupted"):
        read_results(out)
    if column == "round_shops":  # the summary reads (and checks) only the columns it needs
        assert summarize_run(out) == json.loads(summary)
    else:
        with pytest.raises(CorruptChunk):
            summarize_run(out)
        read = autodup("summary", str(out))  # read, not resumed: the line says what mends it
        assert read.returncode == 2 and one_line(read).endswith(f"; autodup run --resume --out {out} plays it again")
    resumed = autodup("run", "configs/tiny.yaml", "--bots", "greedy,econ,random", "--boards", str(2 * CHUNK_BOARDS),
                      "--out", str(out), "--quiet", "--workers", "1", "--resume")
    assert resumed.returncode == 0
    assert "chunk-000001.parquet: corrupted" in one_line(resumed) and "playing it again" in resumed.stderr
    assert {p.name: p.read_bytes() for p in (out / "chunks").glob("chunk-*.parquet")} == original
    assert (out / "summary.json").read_text() == summary


def _rewrite_chunk(path: Path, change) -> None:
    """Write the chunk at ``path`` again with ``change(table, checksums)`` applied: ``(table, checksums)``, the
    other metadata kept."""
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    metadata = {key.decode(): value.decode() for key, value in table.schema.metadata.items()}
    table, checksums = change(table, json.loads(metadata["autodup_checksums"]))
    metadata["autodup_checksums"] = json.dumps(checksums, sort_keys=True)
    pq.write_table(table.replace_schema_metadata(metadata), path)


def _without_placement(keep_checksum: bool):
    def change(table, checksums):
        if not keep_checksum:
            checksums = {name: digest for name, digest in checksums.items() if name != "placement"}
        return table.drop_columns(["placement"]), checksums
    return change


def _with_an_extra_column(table, checksums):
    from autodup.tournament.storage import _column_digest

    table = table.append_column("extra", table.column("placement"))
    return table, {**checksums, "extra": _column_digest(table.column("extra"))}


@pytest.mark.parametrize("change, read_says", [
    (_without_placement(keep_checksum=True), "corrupted (it has no column 'placement')"),
    (_without_placement(keep_checksum=False), "corrupted (it has no column 'placement')"),
    (_with_an_extra_column, None),
], ids=["a column dropped", "a column and its checksum dropped", "a column added with its checksum"])
def test_a_chunk_whose_columns_were_changed_is_corrupted_and_played_again(finished_run, tmp_path, change, read_says):
    """A chunk without one of its columns made summary and a resume end in a KeyError traceback, and the resume
    called the run finished without playing it again; a chunk with a column too many was summarized as if whole."""
    out = tmp_path / "run"
    shutil.copytree(finished_run, out)
    original = {p.name: p.read_bytes() for p in (out / "chunks").glob("chunk-*.parquet")}
    summary = (out / "summary.json").read_text()
    _rewrite_chunk(out / "chunks" / "chunk-000001.parquet", change)
    if read_says:
        read = autodup("summary", str(out))
        assert read.returncode == 2 and read_says in one_line(read), read.stderr
        assert one_line(read).endswith(f"; autodup run --resume --out {out} plays it again")
        with pytest.raises(CorruptChunk, match=re.escape(read_says)):
            read_results(out)
    resumed = autodup("run", "configs/tiny.yaml", "--bots", "greedy,econ,random", "--boards", str(2 * CHUNK_BOARDS),
                      "--out", str(out), "--quiet", "--workers", "1", "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert "chunk-000001.parquet: corrupted" in resumed.stderr and "playing it again" in resumed.stderr
    assert {p.name: p.read_bytes() for p in (out / "chunks").glob("chunk-*.parquet")} == original
    assert (out / "summary.json").read_text() == summary


@pytest.mark.parametrize("errors, read_says", [
    ('{"greedy": ', "corrupted, cannot be read (JSONDecodeError)"),
    ('{"greedy": 3}', "corrupted (its bots' first errors are not a mapping of bot to message)"),
    ('["greedy"]', "corrupted (its bots' first errors are not a mapping of bot to message)"),
], ids=["not JSON", "a message that is not text", "not a mapping"])
def test_a_chunk_whose_first_errors_were_damaged_is_corrupted_and_played_again(finished_run, tmp_path, errors,
                                                                                 read_says):
    """A chunk's bots' first errors (its metadata, without a checksum) damaged: summary ended in "autodup: error:
    Expecting value: line 1 column 12 (char 11)", naming neither the file nor the damage, and a resume left it."""
    import pyarrow.parquet as pq

    out = tmp_path / "run"
    shutil.copytree(finished_run, out)
    original = {p.name: p.read_bytes() for p in (out / "chunks").glob("chunk-*.parquet")}
    summary = (out / "summary.json").read_text()
    chunk = out / "chunks" / "chunk-000001.parquet"
    table = pq.read_table(chunk)
    metadata = {key.decode(): value.decode() for key, value in table.schema.metadata.items()}
    pq.write_table(table.replace_schema_metadata({**metadata, "autodup_errors": errors}), chunk)
    read = autodup("summary", str(out))
    assert read.returncode == 2 and one_line(read) == (f"autodup: error: {chunk}: {read_says}; autodup run --resume "
                                                       f"--out {out} plays it again"), read.stderr
    resumed = autodup("run", "configs/tiny.yaml", "--bots", "greedy,econ,random", "--boards", str(2 * CHUNK_BOARDS),
                      "--out", str(out), "--quiet", "--workers", "1", "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert f"{chunk}: {read_says}" in one_line(resumed) and "playing it again" in resumed.stderr
    assert {p.name: p.read_bytes() for p in (out / "chunks").glob("chunk-*.parquet")} == original
    assert (out / "summary.json").read_text() == summary


def test_another_runs_chunk_with_other_columns_is_refused_and_kept_not_called_corrupted(finished_run, tmp_path):
    """A chunk copied in from a run with other columns (a corrected one) is another run's: the resume refuses it
    in one line and leaves the file, as for any foreign chunk, instead of deleting it as a damaged chunk of its own."""
    import pyarrow.parquet as pq

    out = tmp_path / "run"
    shutil.copytree(finished_run, out)
    chunk = out / "chunks" / "chunk-000001.parquet"
    _rewrite_chunk(chunk, _with_an_extra_column)
    table = pq.read_table(chunk)
    metadata = {key.decode(): value.decode() for key, value in table.schema.metadata.items()}
    pq.write_table(table.replace_schema_metadata({**metadata, "autodup_run": "0" * 64}), chunk)
    foreign = chunk.read_bytes()
    resumed = autodup("run", "configs/tiny.yaml", "--bots", "greedy,econ,random", "--boards", str(2 * CHUNK_BOARDS),
                      "--out", str(out), "--quiet", "--workers", "1", "--resume")
    assert resumed.returncode == 2 and "corrupted" not in resumed.stderr, resumed.stderr
    assert f"{chunk}: not a chunk of this run (delete it to play it again)" in one_line(resumed)
    assert chunk.read_bytes() == foreign


def test_a_chunk_whose_placements_break_the_rules_is_refused_on_read(finished_run, tmp_path):
    """A chunk written with consistent checksums but impossible content (two winners at a table)."""
    columns, _ = read_chunk(finished_run / "chunks" / "chunk-000000.parquet")
    forged = dict(columns)
    forged["placement"] = columns["placement"].copy()
    forged["placement"][1] = forged["placement"][0]
    forged["round_shops"] = (np.concatenate([[0], np.cumsum([len(x) for x in columns["round_shops"]])]).astype(
        np.int32), np.concatenate(list(columns["round_shops"])).astype(np.int16))
    (tmp_path / "chunks").mkdir()
    write_chunk(tmp_path, 0, forged, "forged")
    with pytest.raises(CorruptChunk, match="placements are not 1 .. players"):
        read_chunk(tmp_path / "chunks" / "chunk-000000.parquet")
    assert read_chunk(finished_run / "chunks" / "chunk-000000.parquet")[0]["placement"].size == columns["board"].size


# --------------------------------------------------------------------------
# absurd sizes: one line, and nothing precomputed per board
# --------------------------------------------------------------------------


def test_absurd_sizes_get_one_line():
    for args in (["run", "--boards", str(10**15)], ["toy", "--trials", str(10**12)],
                 ["run", "--game-timeout", "0"], ["play", "configs/tiny.yaml", "--game-timeout", "forever"]):
        result = autodup(*args)
        assert result.returncode == 2 and result.stdout == "" and one_line(result).startswith("autodup: error:")


def test_preparing_the_largest_run_allowed_costs_nothing_per_board(tmp_path):
    spec = make_spec(ROOT / "configs" / "tiny.yaml", [load_bot("greedy")], MAX_BOARDS, "haystack", 0)
    tracemalloc.start()
    started = time.perf_counter()
    (tmp_path / "run").mkdir()
    plan = prepare_output(tmp_path / "run", spec, False, {})
    elapsed = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert plan.done == set() and elapsed < 5 and peak < 20 * 2**20
    with pytest.raises(UsageError, match="boards: 1,000,000,001 is out of range"):
        make_spec(ROOT / "configs" / "tiny.yaml", [load_bot("greedy")], MAX_BOARDS + 1, "haystack", 0)


def test_handing_out_the_first_task_of_the_largest_run_costs_nothing_per_board(tmp_path, monkeypatch):
    # The run loop up to the first game: its chunk numbers must be generated, not listed (40 million of them).
    spec = make_spec(ROOT / "configs" / "tiny.yaml", [load_bot("greedy")], MAX_BOARDS, "haystack", 0)
    (tmp_path / "run").mkdir()
    plan = prepare_output(tmp_path / "run", spec, False, {})
    handed_out = []

    def first_task_only(spec, tasks, workers, game_timeout):
        tasks = iter(tasks)
        handed_out.extend([next(tasks)[0], next(tasks)[0]])
        return iter(())

    monkeypatch.setattr(run_module, "_with_processes", first_task_only)
    tracemalloc.start()
    run_module._play(spec, tmp_path / "run", plan, 1, "local", None, True, 60.0)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert handed_out == ["probe", 0] and peak < 20 * 2**20, peak


def test_ray_address_mistakes_fail_in_seconds_with_one_line(tmp_path):
    started = time.time()
    nobody = autodup("run", "configs/tiny.yaml", "--bots", "greedy", "--boards", "5", "--backend", "ray",
                     "--ray-address", "127.0.0.1:9", "--out", str(tmp_path / "a"), "--quiet", timeout=120)
    assert nobody.returncode == 2 and "nothing answers at 127.0.0.1:9" in one_line(nobody)
    assert "or leave out --ray-address to start one here" in one_line(nobody)  # the command line's spelling
    assert time.time() - started < 60 and not (tmp_path / "a").exists()
    without = autodup("run", "configs/tiny.yaml", "--bots", "greedy", "--boards", "5", "--ray-address",
                      "127.0.0.1:9", "--out", str(tmp_path / "b"), "--quiet")
    assert without.returncode == 2 and "--ray-address: '127.0.0.1:9' given with the local backend" in one_line(without)
    # Something that is not Ray answers there (a web server, as at a dashboard's port).
    import http.server
    import threading

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        started = time.time()
        web = autodup("run", "configs/tiny.yaml", "--bots", "greedy", "--boards", "5", "--backend", "ray",
                      "--ray-address", f"127.0.0.1:{server.server_address[1]}", "--out", str(tmp_path / "c"),
                      "--quiet", timeout=120)
    finally:
        server.shutdown()
    assert web.returncode == 2 and "not as a Ray cluster does" in one_line(web) and time.time() - started < 60


def test_config_warnings_reach_play_and_run(tmp_path):
    text = (ROOT / "configs" / "tiny.yaml").read_text().replace("max_rounds: 60", "max_rounds: 010")
    config = tmp_path / "octal.yaml"
    config.write_text(text)
    played = autodup("play", str(config), "--json")
    assert played.returncode == 0 and "010 is read by YAML as 8 (octal)" in one_line(played)
    run = autodup("run", str(config), "--bots", "greedy", "--boards", "2", "--out", str(tmp_path / "run"), "--quiet")
    assert run.returncode == 0 and "warning" in one_line(run)
