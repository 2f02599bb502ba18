"""The README's two Quickstart commands and its examples, the docs' examples, CI, and the benchmark scripts stay in
working order."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autodup.engine.dealers import CONTROL, DEALERS
from autodup.tournament.process_start import WORKER_START_VARIABLE
from autodup.tournament.spec import CHUNK_BOARDS

ROOT = Path(__file__).resolve().parents[1]
# Subprocesses use this checkout's package, whatever else is installed.
ENVIRONMENT = {**os.environ, "PYTHONPATH": str(ROOT)}


def section_code(document: str, heading: str, language: str = "python") -> str:
    """The first ``language`` code block under ``## heading`` of ``document`` (a path from the repository's root)."""
    text = (ROOT / document).read_text()
    assert f"\n## {heading}\n" in text, f"{document} has no section '## {heading}'"
    section = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    return re.search(rf"```{language}\n(.*?)```", section, re.S).group(1)


def quickstart_commands():
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```(?:bash|sh)?\n(.*?)```", section, re.S).group(1)
    return [line for line in block.splitlines() if line.strip() and not line.startswith("#")]


def test_quickstart_has_exactly_two_commands_and_ci_runs_the_test_one():
    commands = quickstart_commands()
    assert len(commands) == 2
    assert "autodup" in commands[0] and "pytest" in commands[1]
    assert commands[1] in (ROOT / ".ci" / "run").read_text()


def benchmark_json(script: str, *arguments: str, timeout: int = 900) -> dict:
    """What ``benchmarks/<script> <arguments> --json`` prints, run from the repository's top; it must succeed."""
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / script), *arguments, "--json"],
                            capture_output=True, text=True, timeout=timeout, cwd=ROOT, env=ENVIRONMENT)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_draw_benchmark_prints_its_figures_as_json():
    data = benchmark_json("bench_draws.py", "--draws", "2000", "--repeats", "1", "--large-draws", "50", timeout=600)
    keys = {f"{e}/{k}" for e in ("plain", "stream", "haystack", "keyed") for k in ("flat", "hier")}
    assert set(data["ns_per_draw"]) == keys
    assert set(data["ratio_to_plain"]) == {k for k in keys if not k.startswith("plain/")}
    assert all(v > 0 for v in data["ns_per_draw"].values())
    assert data["tree_10k_over_58"] == pytest.approx(data["tree_ns_per_draw"]["10000"] / data["tree_ns_per_draw"]["58"])


def test_draw_engines_example_runs():
    code = section_code("docs/concepts/duplication.md", "The draw engines")
    exec(compile(code, "docs/concepts/duplication.md", "exec"), {})


@pytest.mark.parametrize("document, heading", [("README.md", "From Python"),
                                               ("docs/getting-started.md", "From Python")])
def test_python_examples_run_as_scripts(document, heading, tmp_path):
    # As a user runs them: a file given to python, whose workers (spawned) import it again.
    script = tmp_path / "example.py"
    script.write_text(section_code(document, heading))
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=900,
                            cwd=tmp_path, env=ENVIRONMENT)
    assert result.returncode == 0, result.stderr
    assert "greedy" in result.stdout and "Traceback" not in result.stderr


UNGUARDED = "import autodup\nprint(autodup.run_tournament('tiny', boards=2, seed=0, workers=2).rows().num_rows)\n"
# Twice: the first call's bars leave tqdm's monitor thread running, which must not make the second spawn.
UNGUARDED_TWICE = UNGUARDED + UNGUARDED.replace("seed=0", "seed=1")


def test_a_script_without_a_main_guard_is_told_to_add_one_when_its_workers_are_spawned(tmp_path):
    script = tmp_path / "unguarded.py"
    script.write_text(UNGUARDED)
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=900,
                            cwd=tmp_path, env={**ENVIRONMENT, WORKER_START_VARIABLE: "spawn"})
    assert result.returncode != 0
    assert 'if __name__ == "__main__":' in result.stderr.splitlines()[-1]
    assert "bootstrapping phase" not in result.stderr  # multiprocessing's own 20-line error is not shown


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers are forked on Linux only")
def test_a_script_without_a_main_guard_runs_when_its_workers_are_forked(tmp_path):
    """A single-threaded program on Linux forks its workers: they do not import the script again."""
    script = tmp_path / "unguarded.py"
    script.write_text(UNGUARDED_TWICE)
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=900,
                            cwd=tmp_path, env=ENVIRONMENT)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["128", "128"], result.stderr  # 2 boards x 8 tables x 8 seats, twice


def test_the_game_benchmarks_run_from_any_folder_and_refuse_a_missing_configuration_in_one_line(tmp_path):
    """Their default configuration is the shipped set4, not a path from the repository's top (run from another folder,
    ``bench_game.py`` used to stop with a traceback); a configuration that is not there is one line and exit 1."""
    for script in ("bench_game.py", "bot_strengths.py"):
        result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / script), "no-such.yaml"],
                                capture_output=True, text=True, timeout=120, cwd=tmp_path, env=ENVIRONMENT)
        assert result.returncode == 1 and result.stdout == "", result.stderr
        assert result.stderr.startswith(f"{script[:-3]}: no-such.yaml: no such file (shipped configurations: ")
        assert result.stderr.count("\n") == 1, result.stderr
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_game.py"), "--games", "2", "--repeats",
                             "1", "--json"], capture_output=True, text=True, timeout=900, cwd=tmp_path, env=ENVIRONMENT)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["config"] == "set4"


def test_game_benchmark_prints_its_figures_as_json():
    data = benchmark_json("bench_game.py", "configs/tiny.yaml", "--games", "3", "--repeats", "2")
    assert set(data["games_per_s"]) == set(DEALERS)
    assert data["ratio_to_control"][CONTROL] == 1.0 and all(v > 0 for v in data["games_per_s"].values())
    assert data["roster_games_per_s"] > 0 and "greedy" in data["roster"]
    # A game's cost in plain hierarchical draws timed in the same run: games/s times ns per draw gives it back.
    assert data["plain_hierarchical_draw_ns"] > 0 and data["roster_share"] > 0
    assert data["draws_per_game"] == pytest.approx(
        1e9 / data["games_per_s"]["haystack"] / data["plain_hierarchical_draw_ns"], rel=1e-9)
    assert data["control_draws_per_game"] == pytest.approx(
        data["draws_per_game"] / data["ratio_to_control"]["haystack"], rel=1e-9)
    # Each repeat's own figure: its haystack games over its own plain draw.
    assert data["draws_per_game_by_repeat"] == pytest.approx(
        [1e9 / games / draw for games, draw in zip(data["haystack_games_per_s_by_repeat"],
                                                    data["plain_draw_ns_by_repeat"], strict=True)], rel=1e-9)
    assert len(data["draws_per_game_by_repeat"]) == 2


def test_checkout_comparison_times_a_checkout_against_itself_and_finds_the_same_games():
    """The same checkout twice, once by a relative path: the same games from every worker."""
    data = benchmark_json("compare_checkouts.py", str(ROOT), ".", "--config", "tiny", "--boards", "2",
                          "--pairs", "3", "--processes", "2")
    assert data["pairs"] == 8  # rounded up: each of the 2 x 2 meetings of workers in both orders
    assert data["same_games"] and data["each_checkout_repeats_itself"]
    assert len({digest for arm in data["digests"] for digest in arm}) == 1 and len(data["digests"][1]) == 2
    low, high = data["b_over_a_95"]
    assert 0 < low <= high and data["b_over_a"] > 0
    assert all(value > 0 for value in data["microseconds_a_game"].values())


def test_checkout_comparison_meets_every_pair_of_workers_in_both_orders():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from compare_checkouts import schedule
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    for processes in (1, 2, 3):
        plan = schedule(4 * processes ** 2, processes)
        assert sorted(plan) == sorted([(a, b, first) for a in range(processes) for b in range(processes)
                                       for first in (False, True)] * 2)
        assert all(plan[i][2] != plan[i + 1][2] for i in range(processes ** 2 - 1))  # the order alternates


def test_game_profile_annotates_every_copy_of_a_function_under_its_own_name():
    """The board driver's copy of a function and another library's share a readable name: both are annotated, the
    busiest under the name (keyed by the name alone, the annotation showed the idle copy's few samples)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from profile_game import named_apart
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    found = [("draw", 14.9, ["hot"]), ("draw", 8.6, ["warm"]), ("shop", 1.0, []), ("draw", 0.2, ["idle"])]
    assert named_apart(found) == [("draw", 14.9, ["hot"]), ("draw (copy 2)", 8.6, ["warm"]), ("shop", 1.0, []),
                                  ("draw (copy 3)", 0.2, ["idle"])]


def test_checkout_comparison_reads_each_checkouts_own_bots(tmp_path):
    """A copy whose greedy keeps less gold before rolling plays other games; its code is the same (no compile)."""
    changed = tmp_path / "changed"
    for folder in ("autodup", "bots", "configs"):
        shutil.copytree(ROOT / folder, changed / folder, ignore=shutil.ignore_patterns("__pycache__"))
    bot = changed / "bots" / "greedy.py"
    text = bot.read_text()
    assert 'PARAMETERS = {"roll_above": 50.0}' in text
    bot.write_text(text.replace('PARAMETERS = {"roll_above": 50.0}', 'PARAMETERS = {"roll_above": 10.0}'))
    data = benchmark_json("compare_checkouts.py", str(ROOT), str(changed), "--config", "tiny", "--boards", "2",
                          "--pairs", "1", "--processes", "1")
    assert not data["same_games"] and data["each_checkout_repeats_itself"]


def test_checkout_comparison_refuses_an_unknown_bot_in_one_line():
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "compare_checkouts.py"), str(ROOT), str(ROOT),
                             "--bot", "no_such_bot", "--pairs", "1", "--processes", "1"],
                            capture_output=True, text=True, timeout=300, cwd=ROOT, env=ENVIRONMENT)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [
        f"compare_checkouts: 'no_such_bot' is neither a file nor a name in {ROOT / 'bots'}"]


@pytest.mark.slow  # the changed copy compiles a game of its own (a minute)
def test_checkout_comparison_tells_a_checkout_that_plays_other_games(tmp_path):
    changed = tmp_path / "changed"
    for folder in ("autodup", "bots", "configs"):
        shutil.copytree(ROOT / folder, changed / folder, ignore=shutil.ignore_patterns("__pycache__"))
    shop = changed / "autodup" / "game" / "shop.py"
    text = shop.read_text()
    # Every shop's slots dealt in reverse order: another game, from the same seeds.
    shop.write_text(text.replace("for slot in range(table.shops.shape[1]):\n        if table.shops[seat, slot] >= 0:",
                                 "for slot in range(table.shops.shape[1] - 1, -1, -1):\n"
                                 "        if table.shops[seat, slot] >= 0:"))
    assert shop.read_text() != text
    data = benchmark_json("compare_checkouts.py", str(ROOT), str(changed), "--config", "tiny", "--boards", "2",
                          "--pairs", "1", "--processes", "1")
    assert not data["same_games"] and data["each_checkout_repeats_itself"]


@pytest.mark.slow  # four cold starts: the game compiled four times from nothing (several minutes)
def test_first_run_benchmark_reports_the_median_of_its_runs_and_against_another_checkout():
    data = benchmark_json("bench_first_run.py", "--boards", "2", "--runs", "2", "--against", str(ROOT),
                          timeout=3600)
    assert len(data["cold_runs"]) == len(data["warm_runs"]) == 2 and data["said_compiling"]
    assert data["cold_seconds"] == pytest.approx(sum(data["cold_runs"]) / 2, abs=0.101)
    assert data["warm_seconds"] == pytest.approx(sum(data["warm_runs"]) / 2, abs=0.101)
    assert min(data["warm_runs"]) < min(data["cold_runs"])  # the second run of each pair finds the cache
    other = data["against"]
    assert len(other["cold_runs"]) == 2 and min(other["warm_runs"]) < min(other["cold_runs"])
    differences = [a - b for a, b in zip(data["cold_runs"], other["cold_runs"])]
    assert other["cold_difference_median"] == pytest.approx(sum(differences) / 2, abs=0.101)
    assert other["runs_this_faster"] == sum(d < 0 for d in differences)


def test_first_run_benchmark_refuses_a_folder_that_is_not_a_checkout(tmp_path):
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_first_run.py"), "--against",
                             str(tmp_path)], capture_output=True, text=True, timeout=120, cwd=ROOT, env=ENVIRONMENT)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1].endswith(f"--against: {tmp_path} is not a checkout of autodup "
                                                          "(no autodup/__init__.py)")


def test_verdict_benchmark_divides_games_needed_by_each_formats_speed():
    """Seconds to a verdict = the quality run's games needed / games per second, for each format; the default
    (haystack, corrected) needs fewer games than independent tables on set4's closest pair."""
    data = benchmark_json("bench_verdict.py", "--boards", "400", "--speed-boards", "10", "--repeats", "1")
    for name in ("default", "independent"):
        assert data["seconds_to_verdict"][name] == pytest.approx(
            data["games_needed"][name] / data["games_per_second"][name], rel=1e-9)
    assert data["games_needed"]["default"] < data["games_needed"]["independent"]
    assert data["speedup"] == pytest.approx(
        data["seconds_to_verdict"]["independent"] / data["seconds_to_verdict"]["default"], rel=1e-9)


def test_luck_terms_benchmark_fits_a_value_per_family_and_training_set():
    """Every family of terms, fitted on each training set with each minimum support asked for, gives a finite,
    positive variance reduction on the evaluation boards."""
    data = benchmark_json("luck_terms_worth.py", "--training-boards", "40", "--training-sets", "2",
                          "--evaluation-boards", "40", "--min-support", "10", "--min-support", "0")
    assert "every term kept" in data["reductions"] and data["terms"]["every term kept"] == []
    for family, by_support in data["reductions"].items():
        assert set(by_support) == {"10", "0"}
        assert all(len(values) == 2 and all(0 < v < float("inf") for v in values) for values in by_support.values())
    assert data["raw_comparison_variance"] > 0


def test_tournament_benchmark_prints_its_figures_as_json():
    """A million games = the start once + a million games at the marginal rate, from the line through the runs."""
    data = benchmark_json("bench_tournament.py", "--boards", "10,30", "--workers-boards", "30")
    assert data["kernel_games_per_s"] > 0 and set(data["workers"]) == {"1", "2"}
    assert [run["boards"] for run in data["scaling"]] == [10, 30] and data["scaling"][0]["peak_rss_mb"] > 0
    for run in data["scaling"]:  # two runs: the line goes through both
        games = run["games_per_s"] * run["seconds"]
        assert data["start_seconds"] + games / data["marginal_games_per_s"] == pytest.approx(run["seconds"])
    assert data["million_games_minutes"] == pytest.approx(
        (data["start_seconds"] + 1e6 / data["marginal_games_per_s"]) / 60)
    assert data["million_games_minutes_at_largest_run_speed"] == pytest.approx(
        1e6 / data["scaling"][1]["games_per_s"] / 60)
    # Runs of 10 and 30 boards are mostly their start (about 3 s): no projection is claimed from them.
    assert data["projection_reliable"] is False
    largest = data["scaling"][1]
    assert data["command_cpu_share"] == pytest.approx(
        largest["command_cpu_s"] / (largest["command_cpu_s"] + largest["workers_cpu_s"]))
    assert 0 < data["command_cpu_share"] < 1 and largest["workers_cpu_s"] > 0
    store = data["storing_a_chunk"]
    assert store["games"] == CHUNK_BOARDS * 8 and store["encode_ms"] > 0 and store["kilobytes"] > 0
    assert store["games_per_s_one_process_can_store"] == pytest.approx(store["games"] / store["write_ms"] * 1e3)


def test_strength_benchmark_prints_its_figures_as_json():
    data = benchmark_json("bot_strengths.py", "--games", "16")
    assert [s["seed"] for s in data["seed_sets"]] == [101, 202]
    assert set(data["seed_sets"][0]["bots"]) >= {"greedy", "random", "econ"}
    # A smoke test of the JSON (16 games rank nothing): the figure is a correlation, not NaN, and the per-bot
    # figures it correlates are mean placements.
    assert -1.0 <= data["spearman"] <= 1.0
    assert all(1.0 <= row["mean_placement"] <= 8.0 for row in data["seed_sets"][1]["bots"].values())


def test_docs_bot_example_is_a_clean_bot(tmp_path):
    code = section_code("docs/writing-bots.md", "Write your own bot")
    assert 20 <= len(code.splitlines()) <= 40
    path = tmp_path / "pairhunter.py"
    path.write_text(code)
    result = subprocess.run([sys.executable, "-m", "autodup", "check-bot", str(path), "--games", "6", "--json"],
                            capture_output=True, text=True, timeout=900, cwd=ROOT, env=ENVIRONMENT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert json.loads(result.stdout)["clean"]
    seats = ",".join([str(path)] + ["greedy", "econ", "fast8", "traits", "reroll3", "random", "reroll1"])
    played = subprocess.run([sys.executable, "-m", "autodup", "play", "configs/set4.yaml", "--bots", seats,
                             "--bot-param", "pairhunter.roll_above=30", "--json"],
                            capture_output=True, text=True, timeout=900, cwd=ROOT, env=ENVIRONMENT)
    assert played.returncode == 0, played.stderr
    assert json.loads(played.stdout)["seats"][0]["bot"] == "pairhunter"


def test_the_errors_example_of_the_api_page_prints_what_it_says(capsys):
    code = section_code("docs/api.md", "Errors")
    exec(compile(code, "docs/api.md", "exec"), {"__name__": "__main__"})
    said = capsys.readouterr().out.strip()
    assert said == code.split("# ", 1)[1].strip()  # the comment shows the output


@pytest.mark.slow  # ten runs of autodup's tournament, a few boards each
def test_coverage_benchmark_prints_its_figures_as_json():
    data = benchmark_json("bench_quality_coverage.py", "tiny", "--sizes", "30", "--seeds", "1", "--truth-boards", "30",
                          timeout=1800)
    rows = {row["figure"]: row for row in data["rows"]}
    default = rows["shared seeds, events by who, luck adjustment (Latin square): variance reduction"]
    # The same boards as the truth (seed 0 here, not the truth's seed): given, and counted once.
    assert default["boards"] == 30 and default["covered"] + default["missed"] + default["withheld"] == 1
    assert all(row["covered"] + row["missed"] + row["withheld"] + row.get("no truth", 0) == 1 for row in rows.values())
