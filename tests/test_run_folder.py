"""A run folder describes itself: config and bot snapshots, rows with names, resume from the manifest, summary."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from autodup.errors import RunError
from autodup.tournament.results import RunFolder, read_run
from autodup.tournament.spec import CHUNK_BOARDS
from autodup.tournament.storage import read_results

ROOT = Path(__file__).resolve().parents[1]
ENVIRONMENT = {**os.environ, "PYTHONPATH": str(ROOT)}


def autodup(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "autodup", *args], capture_output=True, text=True, timeout=900,
                          cwd=cwd, env=ENVIRONMENT)


def chunk_bytes(out: Path) -> dict:
    return {p.name: p.read_bytes() for p in sorted((out / "chunks").glob("chunk-*.parquet"))}


@pytest.fixture(scope="module")
def moved_run(tmp_path_factory):
    """A run of a configuration file that is then deleted, and a folder moved elsewhere: what a reader elsewhere has."""
    base = tmp_path_factory.mktemp("folder")
    config = base / "mytiny.yaml"
    config.write_text((ROOT / "configs" / "tiny.yaml").read_text().replace("name: tiny", "name: mytiny"))
    out = base / "run"
    result = autodup("run", str(config), "--bots", "greedy,reroll1,random", "--boards", str(CHUNK_BOARDS + 5),
                     "--out", str(out), "--quiet", "--workers", "1", "--json")
    assert result.returncode == 0, result.stderr
    config.unlink()
    moved = base / "elsewhere"
    shutil.move(out, moved)
    return moved, json.loads(result.stdout)["summary"]


def test_the_folder_keeps_the_config_and_the_bots_by_content(moved_run):
    out, _ = moved_run
    assert (out / "config.yaml").read_text() == \
        (ROOT / "configs" / "tiny.yaml").read_text().replace("name: tiny", "name: mytiny")
    for name in ("greedy", "reroll1", "random"):
        assert (out / "bots" / f"{name}.py").read_bytes() == (ROOT / "bots" / f"{name}.py").read_bytes()
    folder = RunFolder(out)
    assert folder.config.name == "mytiny" and folder.bot_names == ["greedy", "reroll1", "random"]


def test_the_reader_gives_rows_with_names_that_match_the_stored_indices(moved_run):
    out, _ = moved_run
    folder = RunFolder(out)
    table = read_run(out)
    raw = read_results(out)
    names = folder.config.champion_names
    size = folder.config.shop_size
    assert table.num_rows == raw["board"].size == (CHUNK_BOARDS + 5) * 3 * 8
    assert table.column("board").to_pylist() == raw["board"].tolist()
    rows = table.to_pylist()
    for row, shops, alive, champions, stars in zip(rows, raw["round_shops"], raw["rounds_alive"],
                                                    raw["final_champions"], raw["final_stars"]):
        assert len(row["round_shops"]) == alive == len(row["round_level"]) == len(row["round_gold"]) \
            == len(row["round_hp"])
        flat = [champion for shop in row["round_shops"] for champion in shop]
        assert all(len(shop) == size for shop in row["round_shops"])
        assert flat == [names[i] if i >= 0 else None for i in shops]
        assert [unit["champion"] for unit in row["final_board"]] == [names[i] for i in champions]
        assert [unit["stars"] for unit in row["final_board"]] == list(stars)
        assert row["three_stars"] == sum(1 for s in stars if s == 3)
        assert row["round_hp"][0] == folder.config.starting_hp and row["round_level"][-1] <= row["level"]
    assert len({row["bot"] for row in rows}) == 3
    # The luck terms by name, as stored in LUCK_NAMES order.
    from autodup.game.stats import LUCK_NAMES

    assert [list(row["luck"]) for row in rows[:3]] == [list(LUCK_NAMES)] * 3
    assert [[row["luck"][name] for name in LUCK_NAMES] for row in rows] == [list(x) for x in raw["luck"]]


def test_the_reader_reads_the_columns_asked_for_in_row_order_and_refuses_unknown_ones(moved_run):
    out, _ = moved_run
    whole = read_run(out)
    # Without the ordering columns, a column made from stored ones, and the stored ones themselves.
    some = read_run(out, ["three_stars", "rolls", "three_stars"])
    assert some.column_names == ["three_stars", "rolls"]
    assert some.column("three_stars").to_pylist() == whole.column("three_stars").to_pylist()
    assert some.column("rolls").to_pylist() == whole.column("rolls").to_pylist()
    stored = read_run(out, ["final_stars", "final_board"])
    assert [[unit["stars"] for unit in board] for board in stored.column("final_board").to_pylist()] == \
        stored.column("final_stars").to_pylist()
    with pytest.raises(RunError, match="no column 'placment' in this run .columns: board, table, seat"):
        read_run(out, ["placement", "placment"])


def test_offers_count_every_champion_shown_including_the_round_shops(moved_run):
    out, _ = moved_run
    folder = RunFolder(out)
    raw = read_results(out)
    n_champions, size = len(folder.config.champion_names), folder.config.shop_size
    for row in range(len(raw["board"])):
        offers = np.asarray(raw["offers"][row])
        assert offers.shape == (n_champions,) and offers.min() >= 0
        # every shop dealt is counted: the round shops are among them, and no more than shops_seen full shops
        shown = np.bincount(np.asarray(raw["round_shops"][row])[np.asarray(raw["round_shops"][row]) >= 0],
                            minlength=n_champions)
        assert (offers >= shown).all()
        assert shown.sum() <= offers.sum() <= raw["shops_seen"][row] * size
    # rerolls are counted: seats that rerolled were mostly shown more than their round shops (tiny's pool
    # runs dry, so a reroll can deal nothing), and a seat that never rerolled nor loaded was shown exactly those
    totals = np.array([np.sum(o) for o in raw["offers"]])
    round_totals = np.array([np.sum(np.asarray(r) >= 0) for r in raw["round_shops"]])
    rerolled = raw["rolls"] > 0
    assert rerolled.any() and (totals[rerolled] > round_totals[rerolled]).mean() > 0.5
    only_rounds = raw["shops_seen"] == raw["rounds_alive"]
    assert only_rounds.any() and (totals[only_rounds] == round_totals[only_rounds]).all()


def test_summary_reads_a_folder_without_writing_to_it(moved_run):
    out, summary = moved_run
    before = {p: (p.stat().st_mtime_ns, p.stat().st_size) for p in out.rglob("*")}
    os.chmod(out, 0o555)
    try:
        result = autodup("summary", str(out), "--json")
    finally:
        os.chmod(out, 0o755)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["summary"] == summary
    assert {p: (p.stat().st_mtime_ns, p.stat().st_size) for p in out.rglob("*")} == before
    text = autodup("summary", str(out))
    assert text.returncode == 0 and f"{CHUNK_BOARDS + 5} boards x 3 tables" in text.stdout


def test_resume_takes_the_runs_own_arguments_and_a_finished_run_is_reused(tmp_path):
    out = tmp_path / "run"
    args = ["run", "tiny", "--bots", "greedy,random", "--bot-param", "greedy.roll_above=9", "--boards",
            str(2 * CHUNK_BOARDS), "--dealer", "keyed", "--seed", "7", "--out", str(out), "--quiet", "--workers", "1"]
    first = autodup(*args)
    assert first.returncode == 0, first.stderr
    finished = chunk_bytes(out)
    (out / "chunks" / "chunk-000001.parquet").unlink()   # as if killed before the last chunk
    (out / "summary.json").unlink()
    unfinished = autodup(*args)  # the same command without --resume: refused, in the command line's terms
    assert unfinished.returncode == 2 and "holds this run, unfinished" in unfinished.stderr
    assert "(allowed: resuming it, with --resume, or another folder)" in unfinished.stderr
    assert "resume=True" not in unfinished.stderr and unfinished.stderr.count("\n") == 1, unfinished.stderr
    resumed = autodup("run", "--resume", "--out", str(out), "--quiet", cwd=tmp_path)   # nothing else given
    assert resumed.returncode == 0, resumed.stderr
    assert chunk_bytes(out) == finished and resumed.stdout == first.stdout
    again = autodup(*args)
    assert again.returncode == 0 and again.stdout == first.stdout
    assert "finished already; its results are reused (nothing played)" in again.stderr
    other = autodup("run", "--resume", "--out", str(out), "--seed", "8", "--quiet")
    assert other.returncode == 2 and "other arguments" in other.stderr and "seed" in other.stderr
    elsewhere = autodup("run", "tiny", "--bots", "greedy", "--boards", "3", "--out", str(out), "--quiet")
    assert elsewhere.returncode == 2 and "holds another run" in elsewhere.stderr
    # What is allowed is said in the command line's terms, not the API's.
    assert "its own arguments: --resume)" in elsewhere.stderr and "resume=True" not in elsewhere.stderr


def test_a_folder_that_is_not_a_run_is_refused_in_one_line(tmp_path):
    with pytest.raises(RunError, match="not a run folder"):
        RunFolder(tmp_path)
    with pytest.raises(RunError, match="no such run folder"):
        RunFolder(tmp_path / "missing")
    (tmp_path / "manifest.json").write_text(json.dumps({"identity": {"bots": [], "boards": 1, "dealer": "haystack",
                                                                     "seed": 0, "format": 2}}))
    with pytest.raises(RunError, match="format 2"):
        RunFolder(tmp_path)


def test_bought_counts_each_purchase_of_a_champion_that_was_shown(moved_run):
    out, _ = moved_run
    raw = read_results(out)
    n_champions = len(RunFolder(out).config.champion_names)
    bought = np.stack([np.asarray(b) for b in raw["bought"]])
    offers = np.stack([np.asarray(o) for o in raw["offers"]])
    assert bought.shape == (len(raw["board"]), n_champions) and bought.min() >= 0
    assert (bought.sum(axis=1) == raw["units_bought"]).all()  # every purchase, of one champion each
    assert (bought <= offers).all()  # only what a shop showed can be bought
    assert bought.sum() > 0


def test_a_configuration_with_a_very_long_name_gets_a_short_default_folder(tmp_path):
    name = "a" * 300  # 300 bytes: more than a file name may hold
    config = tmp_path / "long.yaml"
    config.write_text((ROOT / "configs" / "tiny.yaml").read_text().replace("name: tiny", f"name: {name}"))
    result = autodup("run", str(config), "--bots", "greedy,random", "--boards", "2", "--quiet", "--workers", "1",
                     "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    out = Path(json.loads(result.stdout)["out"])
    assert out.parent.name == "runs" and len(out.name) < 120 and (tmp_path / "runs" / out.name).is_dir()


def test_reading_a_run_starts_no_thread_that_could_outlive_the_interpreter(moved_run):
    """Arrow's pool threads alive at exit made `autodup summary` abort after printing ("terminate called without an
    active exception", exit -6, about one run in 15 on a loaded machine): reading chunks starts none."""
    moved, _ = moved_run
    code = ("import os, sys\n"
            "from autodup.tournament.storage import chunk_files, read_chunk, read_chunk_table\n"
            "paths = chunk_files(sys.argv[1])\n"
            "threads = len(os.listdir('/proc/self/task'))\n"
            "for path in paths:\n"
            "    read_chunk_table(path, ['board', 'placement', 'round_shops'])\n"
            "    read_chunk(path)\n"
            "print(threads, len(os.listdir('/proc/self/task')))\n")
    result = subprocess.run([sys.executable, "-c", code, str(moved)], capture_output=True, text=True, timeout=300,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 0, result.stderr
    before, after = map(int, result.stdout.split())
    assert after == before, (before, after)


@pytest.mark.parametrize("given, says", [
    ({"seed": 2}, "seed differs: 2 given, 1 in the run"),
    ({"seed": 2, "boards": 9}, "boards, seed differ: boards 9 given, 50 in the run; seed 2 given, 1 in the run"),
    ({"bots": [["greedy", "g.py", "a", {"depth": 3}], ["econ", "e.py", "b", {}]]},
     "the parameters of bot 'greedy' differ"),
    ({"bots": [["econ", "e.py", "b", {}], ["greedy", "g.py", "a", {"depth": 2}]]},
     "the bots (their order or number) differ"),
    ({"bots": [["greedy", "g.py", "c", {"depth": 2}], ["econ", "e.py", "b", {}]]},
     "the code of bot 'greedy' (g.py changed since the run started) differs"),
    ({"boards": 9}, "boards differ: 9 given, 50 in the run"),
    ({"config_sha256": "b", "seed": 2},
     "the configuration (the run's is the folder's config.yaml), seed differ: seed 2 given, 1 in the run"),
], ids=["one argument", "two arguments", "parameters", "order", "code", "a plural argument", "the configuration"])
def test_what_differs_from_a_recorded_run_is_said_with_its_verb_agreeing(given, says):
    """A refusal read "the parameters of bot 'greedy' differs"."""
    from autodup.tournament.storage import _differences

    recorded = {"seed": 1, "boards": 50, "config_sha256": "a",
                "bots": [["greedy", "g.py", "a", {"depth": 2}], ["econ", "e.py", "b", {}]]}
    assert _differences(recorded, given) == says
