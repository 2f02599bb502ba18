"""``autodup quality`` and ``autodup report`` end to end: the verdicts, the sanity checks, the files, resume, errors.

A run of the default command's shape (set4, every shipped bot, haystack,
keyed, stream, replay and the independent control, without the ladder's extra
designs) on 300 boards is played once per session: its verdicts are the
acceptance (the deliberately wrong ``replay`` is caught, at p about 1e-14,
while the exact dealers pass). The ladder (haystack and the control under the
position-addressed and the paired designs) is measured on 120 boards of set4,
enough to tell its steps apart and few enough that the paired design's luck
correction is withheld, which the tests read too. The default size, 1,000
boards, and the whole default command, every dealer's ladder at 1,000 boards,
are ``slow`` tests.
"""

import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from autodup.analysis import null_check
from autodup.analysis.measure_kernels import ALPHA
from autodup.analysis.report import PLOTS

from .browser import assert_a_reader_sees_the_verdict

ROOT = Path(__file__).resolve().parents[1]
ENVIRONMENT = {**os.environ, "PYTHONPATH": str(ROOT)}
TINY_BOTS = "greedy,reroll1,traits,random"


def autodup(*args, cwd=ROOT, timeout=1200):
    return subprocess.run([sys.executable, "-m", "autodup", *args], capture_output=True, text=True, timeout=timeout,
                          cwd=cwd, env=ENVIRONMENT)


LADDER = ("", "@latin-position", "@paired-seat")  # a dealer's default run, then its ladder runs (suffixes)


def assert_adjusted_scores_agree_with_raw_and_are_narrower(summary_path):
    """Adjusted and raw scores estimate the same thing: they agree within their intervals (95% each), and the
    adjusted interval is the narrower, its slopes fitted."""
    for row in json.loads(summary_path.read_text()):
        gap = abs(row["adjusted_score"] - row["duplicate_score"])
        assert gap <= row["adjusted_score_ci95"] + row["duplicate_score_ci95"], (summary_path, row)
        assert row["adjusted_score_ci95"] < row["duplicate_score_ci95"] and row["luck_fitted"] is True, row


def assert_luck_terms_are_zero_mean_exactly_for_exact_dealers(dealers):
    """The same zero-mean check catches replay (its shop terms' law is not the game's) and passes the others."""
    for name, entry in dealers.items():
        assert entry["luck_terms"]["all_zero_mean"] == (entry["exact"] is not False), (name, entry["luck_terms"])


QUALITY_BOARDS = 300  # a third of the default size: replay is still caught, at p about 1e-14


def quality_without_ladder(out, *options):
    """``autodup quality --no-ladder --out OUT --json`` and ``options``, every other setting its default (set4,
    every bot, four dealers and the control): the folder and the JSON."""
    result = autodup("quality", "--no-ladder", *options, "--out", str(out), "--quiet", "--json")
    assert result.returncode == 0, result.stderr
    return out, json.loads(result.stdout)


@pytest.fixture(scope="session")
def default_quality(tmp_path_factory):
    """The default command's shape on ``QUALITY_BOARDS`` boards."""
    return quality_without_ladder(tmp_path_factory.mktemp("quality") / "default", "--boards", str(QUALITY_BOARDS))


@pytest.fixture(scope="module")
def ladder_quality(tmp_path_factory):
    """``autodup quality --boards 120 --dealers haystack``: set4, every bot, the haystack's ladder; too few boards
    to fit the paired design's luck slopes (about 180), enough for the Latin square's (about 25). Also the
    terminal's text."""
    out = tmp_path_factory.mktemp("ladder") / "q"
    result = autodup("quality", "--boards", "120", "--dealers", "haystack", "--out", str(out), "--quiet")
    assert result.returncode == 0, result.stderr
    return out, json.loads((out / "quality.json").read_text()), result.stdout


@pytest.fixture(scope="module")
def tiny_quality(tmp_path_factory):
    out = tmp_path_factory.mktemp("tiny") / "q"
    result = autodup("quality", "tiny", "--bots", TINY_BOTS, "--boards", "60", "--no-ladder",
                     "--dealers", "haystack,keyed",
                     "--out", str(out), "--quiet", "--json", "--workers", "2")
    assert result.returncode == 0, result.stderr
    return out, json.loads(result.stdout)


def assert_replay_is_caught_and_the_exact_dealers_pass(quality):
    dealers = quality["dealers"]
    assert quality["alpha"] == ALPHA
    assert set(dealers) == {"haystack", "keyed", "stream", "replay", "independent"}
    for name in ("haystack", "keyed", "stream"):
        assert dealers[name]["correct"] is True, (name, dealers[name]["deciding_observable"],
                                                  dealers[name]["min_p_value"])
        assert dealers[name]["min_p_value"] >= ALPHA
    replay = dealers["replay"]
    assert replay["correct"] is False and replay["min_p_value"] < 1e-6
    # Its flaw: offers keep their planned odds while copies run out, so champion shares are off.
    assert replay["deciding_observable"] == "offers per champion"


def test_replay_is_caught_and_the_exact_dealers_pass(default_quality):
    _, quality = default_quality
    assert quality["boards"] == QUALITY_BOARDS
    assert_replay_is_caught_and_the_exact_dealers_pass(quality)


@pytest.mark.slow
def test_replay_is_caught_at_the_default_size_and_the_exact_dealers_pass(tmp_path):
    """The default size, 1,000 boards (about two minutes)."""
    _, quality = quality_without_ladder(tmp_path / "q")
    assert quality["boards"] == 1000
    assert_replay_is_caught_and_the_exact_dealers_pass(quality)


@pytest.mark.slow
def test_the_whole_default_command_catches_replay_under_every_design(tmp_path):
    """``autodup quality`` with every default: each dealer's ladder at 1,000 boards (about 2.5 minutes)."""
    result = autodup("quality", "--out", str(tmp_path / "q"), "--quiet", "--json")
    assert result.returncode == 0, result.stderr
    dealers = json.loads(result.stdout)["dealers"]
    assert set(dealers) == {f"{dealer}{run}" for dealer in ("haystack", "keyed", "stream", "replay")
                            for run in LADDER} | {"independent", "independent@paired-seat"}
    assert_luck_terms_are_zero_mean_exactly_for_exact_dealers(dealers)
    runs = tmp_path / "q" / "runs"
    assert_adjusted_scores_agree_with_raw_and_are_narrower(runs / "keyed@paired-seat" / "summary.json")
    for name, entry in dealers.items():
        if entry["exact"] and entry["correct"] is not None:  # an exact dealer, not a control
            assert entry["correct"] is True and entry["min_p_value"] >= ALPHA, (name, entry["min_p_value"])
    for run in LADDER:
        replay = dealers[f"replay{run}"]
        assert replay["correct"] is False and replay["min_p_value"] < 1e-6
        assert replay["deciding_observable"] == "offers per champion"


def test_offer_whiskers_hold_an_exact_dealers_points_about_95_percent_of_the_time_and_not_replays(default_quality):
    """The report's offer-frequency whiskers (2 SE of the dealer's share minus the control's, the two SEs
    combined): an exact dealer's points lie outside with probability P(|Z| > 2) = 4.55%, so the count over the
    exact dealers' champions stays below the binomial's 1e-6 tail; replay's, off by its flaw, goes past the same
    tail for its own champions. The control's SE alone (the whiskers as they were) is too narrow for a dealer whose
    tables share seeds, and leaves more than that tail outside."""
    from scipy.stats import binom, norm

    quality = default_quality[1]
    control = quality["dealers"]["independent"]

    def outside(name, combined=True):
        dealer = quality["dealers"][name]
        return sum(abs(d - c) > 2 * (math.hypot(sd, sc) if combined else sc)
                   for d, c, sd, sc in zip(dealer["offer_frequency"], control["offer_frequency"],
                                           dealer["offer_frequency_se"], control["offer_frequency_se"]))

    champions = len(quality["champions"])
    p_outside = 2 * norm.sf(2.0)
    exact = ("haystack", "keyed", "stream")
    bound = binom.isf(1e-6, champions * len(exact), p_outside)
    assert sum(outside(name) for name in exact) <= bound
    assert outside("replay") > binom.isf(1e-6, champions, p_outside)
    assert sum(outside(name, combined=False) for name in exact) > bound


def test_the_ladders_designs_keep_the_verdicts(ladder_quality):
    _, quality, _ = ladder_quality
    dealers = quality["dealers"]
    assert set(dealers) == {f"haystack{run}" for run in LADDER} | {"independent", "independent@paired-seat"}
    for run in LADDER:
        assert dealers[f"haystack{run}"]["correct"] is True, (run, dealers[f"haystack{run}"]["min_p_value"])


def test_round_zero_is_identical_for_shared_dealers_and_at_chance_for_the_control(default_quality):
    _, quality = default_quality
    controls = {entry["design"]: entry for entry in quality["dealers"].values() if entry["correct"] is None}
    for name, entry in quality["dealers"].items():
        by_round = entry["by_round"]
        assert by_round["round"][0] == 0 and by_round["pairs"][0] > 0
        if entry["correct"] is None:  # a control
            chance = entry["chance_slot_agreement_round0"]
            # One pair per (board, seat) and slot is a conservative count of independent comparisons.
            n = quality["boards"] * 8 * 5
            se = np.sqrt(chance * (1 - chance) / n)
            assert abs(by_round["slot_agreement"][0] - chance) < 5 * se
            assert by_round["whole_shop_identical"][0] < 0.01
        else:
            assert by_round["whole_shop_identical"][0] == 1.0 and by_round["slot_agreement"][0] == 1.0
            assert by_round["multiset_overlap"][0] == 1.0
            # and the shared seeds keep more in common than the control of the same design, over the game
            assert entry["slot_agreement"] > controls[entry["design"]]["slot_agreement"]
            assert entry["offer_overlap"] > controls[entry["design"]]["offer_overlap"]


def test_luck_terms_are_zero_mean_for_exact_dealers_and_the_headline_is_the_adjusted_default(default_quality):
    out, quality = default_quality
    for run in ("haystack", "independent"):
        assert_adjusted_scores_agree_with_raw_and_are_narrower(out / "runs" / run / "summary.json")
    assert_luck_terms_are_zero_mean_exactly_for_exact_dealers(quality["dealers"])
    default = quality["dealers"][quality["default"]["run"]]
    assert quality["variance_reduction"] == default["adjusted_variance_reduction"]
    # Every pair has its adjusted factor; the closest pair's is the headline's.
    closest = next(pair for pair in default["pairs"] if pair["bots"] == quality["closest_pair"])
    assert closest["adjusted_variance_reduction"] == default["adjusted_variance_reduction"]
    for pair in default["pairs"]:
        low, high = pair["adjusted_variance_reduction_ci"]
        assert low <= pair["adjusted_variance_reduction"] <= high
    assert min(pair["adjusted_variance_reduction"] for pair in default["pairs"]) <= \
        default["median_adjusted_variance_reduction"] <= max(pair["adjusted_variance_reduction"] for pair in default["pairs"])
    assert quality["best"]["efficiency"] >= default["efficiency"]["adjusted"]["factor"]
    # The combat coin holds more of the control's variance than any other source.
    sources = quality["dealers"]["independent"]["luck_sources"]
    assert max((share, source) for source, share in sources.items() if source != "every source")[1] == "combat coin"


def test_the_ladder_measures_each_step_and_adjustment_removes_luck_on_top_of_duplication(ladder_quality):
    out, quality, _ = ladder_quality
    assert_adjusted_scores_agree_with_raw_and_are_narrower(out / "runs" / "haystack" / "summary.json")
    assert_luck_terms_are_zero_mean_exactly_for_exact_dealers(quality["dealers"])
    steps = {step["step"]: step for step in quality["ladder"]["haystack"]}
    assert len(steps) == 5
    assert_every_figure_is_given_with_its_interval_or_withheld_with_its_reason(quality)
    for name in ("shared seeds", "+ events by who", "shared seeds, events by who, luck adjustment (Latin square)"):
        assert steps[name]["variance_reduction"] is not None and steps[name]["efficiency"] is not None
    # Adjusting removes luck on top of duplication, on the same boards.
    latin = steps["shared seeds, events by who, luck adjustment (Latin square)"]
    assert latin["variance_reduction_ci"][0] > steps["+ events by who"]["variance_reduction"]


def assert_every_figure_is_given_with_its_interval_or_withheld_with_its_reason(quality):
    """A figure is a number inside its interval, or None beside a reason that says how many boards it needs."""
    for dealer, steps in quality["ladder"].items():
        assert len({step["step"] for step in steps}) == len(steps), [step["step"] for step in steps]
        for step in steps:
            for figure in ("variance_reduction", "efficiency"):
                low, high = step[f"{figure}_ci"]
                if step[figure] is None:
                    assert low is None and re.search(r"boards (than these )?would (resolve it|fit its slopes)",
                                                     step[f"{figure}_why"]), (dealer, step)
                else:
                    assert low <= step[figure] <= high and step[f"{figure}_why"] is None, (dealer, step)


def test_a_small_run_withholds_what_it_cannot_estimate_and_says_how_many_boards_it_needs(ladder_quality):
    """At 100 boards the paired '+ luck adjustment' step silently equalled the raw one and the paired control
    printed 1.00 [1.00, 1.00] (issue 28): a figure the run cannot estimate is withheld, with the boards it needs."""
    out, quality, terminal = ladder_quality
    assert_every_figure_is_given_with_its_interval_or_withheld_with_its_reason(quality)
    steps = {step["step"]: step for step in quality["ladder"]["haystack"] + quality["ladder"]["independent"]}
    for name in ("+ luck adjustment", "luck adjustment alone (paired seating)"):
        assert steps[name]["variance_reduction"] is None, steps[name]
        assert re.search(r"too few boards to measure the luck correction at 120 boards with paired seating; "
                         r"about [\d,]+ boards would fit its slopes", steps[name]["variance_reduction_why"])
    paired_control = quality["dealers"]["independent@paired-seat"]
    assert paired_control["adjusted_variance_reduction"] is None and paired_control["adjusted_variance_reduction_why"]
    # The two controls' steps are named apart, and the terminal says why a figure is missing.
    assert {"luck adjustment alone (Latin square)", "luck adjustment alone (paired seating)"} <= set(steps)
    assert "n/a (1)" in terminal and "(1) too few boards to measure the luck correction" in terminal
    html = (out / "report.html").read_text()
    assert "too few boards to measure the luck correction" in html and "1.00 [1.00" not in html


def test_quality_json_has_the_documented_keys_and_the_report_its_images(default_quality):
    out, quality = default_quality
    assert json.loads((out / "quality.json").read_text()) == quality
    for name, entry in quality["dealers"].items():
        for key in ("correct", "min_p_value", "slot_agreement", "offer_overlap", "variance_reduction",
                    "variance_reduction_ci"):
            assert key in entry
        if entry["correct"] is not None:  # not a control
            low, high = entry["variance_reduction_ci"]
            assert low <= entry["variance_reduction"] <= high
            assert len(entry["pairs"]) == 28
            coupling = entry["coupling"]
            assert coupling["pairs"] > 0 and coupling["disagreed_on_equal_inputs"] == 0
            if entry["exact"]:  # no correct dealer beats the maximal coupling (replay does: it ignores the pool)
                se = coupling["agreement_se"]
                assert coupling["agreement"] <= coupling["one_minus_tv"] + 5 * se
    assert quality["closest_pair"] == min(quality["dealers"]["haystack"]["pairs"],
                                          key=lambda pair: abs(pair["mean_difference"]))["bots"]
    html = (out / "report.html").read_text()
    for plot in PLOTS:
        assert (out / plot).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert html.count('src="data:image/png;base64,') == len(PLOTS)


def test_the_terminal_table_names_each_verdict(tiny_quality):
    out, _ = tiny_quality
    result = autodup("report", *(str(p) for p in sorted((out / "runs").iterdir())), "--out", str(out / "again"))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert any(line.startswith("haystack") for line in lines) and any("control" in line for line in lines)


def test_report_into_a_file_is_refused_before_any_work(tiny_quality, tmp_path):
    out, _ = tiny_quality
    (tmp_path / "a file").write_text("mine")
    result = autodup("report", *(str(path) for path in sorted((out / "runs").iterdir())), "--out",
                     str(tmp_path / "a file"))
    assert result.returncode == 2 and result.stderr.strip().splitlines() == [
        f"autodup: error: --out: {tmp_path / 'a file'} is a file, not a folder"], result.stderr
    assert (tmp_path / "a file").read_text() == "mine"


def test_every_command_writes_only_into_a_new_or_empty_folder_or_one_it_made(tiny_quality, tmp_path):
    """ab into a quality folder overwrote its report.html: every --out refuses a folder that is another's."""
    out, _ = tiny_quality
    runs = [str(path) for path in sorted((out / "runs").iterdir())]
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    before = {path: path.read_bytes() for path in out.rglob("*") if path.is_file()}
    refused = [
        (["ab", "tiny", "--set", "shop.size=4", "--boards", "25", "--out", str(out)], "was made by autodup quality"),
        (["sweep", "tiny", "--set", "shop.size=3,4", "--boards", "25", "--out", str(out)],
         "was made by autodup quality"),
        (["report", *runs, "--out", str(out)], "was made by autodup quality"),
        (["report", *runs, "--out", runs[0]], "is a run folder"),
        (["quality", "tiny", "--boards", "25", "--out", runs[0]], "is a run folder"),
        (["quality", "tiny", "--boards", "25", "--out", str(foreign)], "is not empty and was not made by autodup"),
        (["ab", "tiny", "--set", "shop.size=4", "--boards", "25", "--out", str(foreign)], "is not empty"),
        (["shuffles", "--methods", "S", "--runs", "5", "--shuffles", "5", "--replicates", "1", "--riffle-deals", "0",
          "--out", str(foreign)], "is not empty"),
    ]
    for args, says in refused:
        result = autodup(*args)
        lines = result.stderr.strip().splitlines()
        assert result.returncode == 2 and len(lines) == 1 and says in lines[0], (args, result.stderr)
        assert "(allowed: a new or empty folder, or one autodup " in lines[0]
    assert {path: path.read_bytes() for path in out.rglob("*") if path.is_file()} == before
    assert [p.name for p in foreign.iterdir()] == ["notes.txt"]
    # A command's own folder is its to finish or redo; an empty folder is anyone's.
    (tmp_path / "empty").mkdir()
    for folder in (tmp_path / "empty", tmp_path / "empty"):
        again = autodup("report", *runs, "--out", str(folder), "--json")
        assert again.returncode == 0, again.stderr


def test_quality_of_one_bot_is_refused_before_playing(tmp_path):
    result = autodup("quality", "tiny", "--bots", "greedy", "--boards", "25", "--out", str(tmp_path / "q"))
    assert result.returncode == 2 and result.stderr.strip().splitlines() == [
        "autodup: error: --bots: 1 bot for 8 seats (allowed: 2 to 8; quality measures the luck removed from "
        "comparing two bots)"], result.stderr
    assert not (tmp_path / "q").exists()


def test_report_on_the_runs_measures_what_quality_measured(tiny_quality):
    out, quality = tiny_quality
    again = out.parent / "report"
    result = autodup("report", *(str(path) for path in sorted((out / "runs").iterdir())), "--out", str(again),
                     "--json")
    assert result.returncode == 0, result.stderr
    reported = json.loads(result.stdout)
    assert set(quality["dealers"]) == {"haystack", "keyed", "independent"}  # --no-ladder: the default runs only
    assert set(reported["dealers"]) == set(quality["dealers"])
    for name in quality["dealers"]:
        assert reported["dealers"][name] == quality["dealers"][name], name
    assert reported["ladder"] == quality["ladder"] and reported["variance_reduction"] == quality["variance_reduction"]


def test_a_finished_quality_folder_is_reused_and_gives_the_same_bytes(tiny_quality):
    out, _ = tiny_quality
    before = (out / "quality.json").read_bytes()
    chunks = {p: p.stat().st_mtime_ns for p in (out / "runs").rglob("chunk-*.parquet")}
    result = autodup("quality", "tiny", "--bots", TINY_BOTS, "--boards", "60", "--no-ladder",
                     "--dealers", "haystack,keyed",
                     "--out", str(out), "--workers", "1")
    assert result.returncode == 0, result.stderr
    assert (out / "quality.json").read_bytes() == before
    assert {p: p.stat().st_mtime_ns for p in (out / "runs").rglob("chunk-*.parquet")} == chunks


def test_a_stop_while_a_file_is_written_leaves_no_temporary_file(tmp_path):
    """Ctrl-C (KeyboardInterrupt) inside the write: the temporary file goes with it, the old file stays whole."""
    from autodup.files import replacing

    (tmp_path / "a.npz").write_bytes(b"old")
    with pytest.raises(KeyboardInterrupt):
        with replacing(tmp_path / "a.npz", suffix=".npz") as temporary:
            np.savez(temporary, x=np.arange(10))
            raise KeyboardInterrupt
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.npz"] and (tmp_path / "a.npz").read_bytes() == b"old"


def test_a_full_disk_while_a_file_is_written_names_the_file(tmp_path):
    """A write that fails names no file (``[Errno 28] No space left on device``): the error names the one being
    replaced, and the temporary file goes."""
    import errno

    from autodup.files import replacing

    with pytest.raises(OSError) as raised, replacing(tmp_path / "chunk.parquet", sync=True) as temporary:
        temporary.write_bytes(b"half")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    assert raised.value.errno == errno.ENOSPC and raised.value.filename == str(tmp_path / "chunk.parquet")
    assert str(raised.value).endswith(f"No space left on device: '{tmp_path / 'chunk.parquet'}'")
    assert list(tmp_path.iterdir()) == []


def test_temporary_files_a_killed_quality_left_are_removed_by_the_next_and_it_says_so(tiny_quality, tmp_path):
    """A kill -9 in quality's trace phase left traces/.X.npz.PID.tmp.npz: the next run removes it, and says so."""
    out = tmp_path / "q"
    shutil.copytree(tiny_quality[0], out)
    gone = subprocess.Popen(["true"])
    gone.wait()  # a process that no longer runs: its files are nobody's
    left = [out / "traces" / f".haystack.npz.{gone.pid}.tmp.npz", out / f".quality.json.{gone.pid}.tmp"]
    for path in left:
        path.write_bytes(b"half")
    busy = out / f".report.html.{os.getpid()}.tmp"  # a writer that still runs: left alone
    busy.write_bytes(b"being written")
    result = autodup("quality", "tiny", "--bots", TINY_BOTS, "--boards", "60", "--no-ladder",
                     "--dealers", "haystack,keyed", "--out", str(out), "--workers", "1", "--quiet")
    assert result.returncode == 0, result.stderr
    assert f"autodup: removed 2 temporary files that an interrupted command left in {out}" in result.stderr
    assert not any(path.exists() for path in left) and busy.exists()
    assert (out / "quality.json").read_bytes() == (tiny_quality[0] / "quality.json").read_bytes()


def test_an_interrupted_quality_run_resumes_to_the_same_measures(tiny_quality, tmp_path):
    reference, _ = tiny_quality
    out = tmp_path / "q"
    command = [sys.executable, "-m", "autodup", "quality", "tiny", "--bots", TINY_BOTS, "--boards", "60",
               "--no-ladder", "--dealers", "haystack,keyed", "--out", str(out), "--quiet", "--workers", "1"]
    process = subprocess.Popen(command, cwd=ROOT, env=ENVIRONMENT, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and not list((out / "runs").rglob("chunk-*.parquet")):
        time.sleep(0.05)
    assert list((out / "runs").rglob("chunk-*.parquet")), "no chunk was written within 300 s"
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=120) == 130, "the command finished before Ctrl-C arrived"
    assert not (out / "quality.json").exists()
    kept = {path: path.stat().st_mtime_ns for path in (out / "runs").rglob("chunk-*.parquet")}
    result = subprocess.run(command, cwd=ROOT, env=ENVIRONMENT, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr
    # The chunks written before the interruption were kept, not played again.
    assert {path: path.stat().st_mtime_ns for path in kept} == kept
    ours = json.loads((out / "quality.json").read_text())
    theirs = json.loads((reference / "quality.json").read_text())
    ours.pop("games_per_second"), theirs.pop("games_per_second")
    for entry in (*ours["dealers"].values(), *theirs["dealers"].values()):
        for pair in entry["pairs"]:  # seconds follow the timing of this machine's play
            pair.pop("seconds_needed"), pair.pop("seconds_needed_control")
    assert ours == theirs


def test_report_refuses_runs_of_other_boards_and_a_missing_control(tiny_quality, tmp_path):
    out, _ = tiny_quality
    other = tmp_path / "other"
    result = autodup("run", "tiny", "--bots", TINY_BOTS, "--boards", "60", "--dealer", "independent", "--seed", "7",
                     "--out", str(other), "--quiet")
    assert result.returncode == 0, result.stderr
    mismatch = autodup("report", str(out / "runs" / "haystack"), str(other), "--out", str(tmp_path / "r"))
    assert mismatch.returncode == 2 and len(mismatch.stderr.strip().splitlines()) == 1
    assert "not the same boards" in mismatch.stderr and "seed" in mismatch.stderr
    alone = autodup("report", str(out / "runs" / "haystack"), "--out", str(tmp_path / "r"))
    assert alone.returncode == 2 and "control" in alone.stderr and len(alone.stderr.strip().splitlines()) == 1
    twice = autodup("report", str(out / "runs" / "haystack"), str(out / "runs" / "haystack"), "--out",
                    str(tmp_path / "r"))
    assert twice.returncode == 2 and "second run of dealer" in twice.stderr
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("dealers, message", [("bogus", "unknown dealer 'bogus'"),
                                              ("independent", "is the control"),
                                              ("haystack,haystack", "listed twice"), (",", "empty")])
def test_bad_dealer_lists_get_one_line(dealers, message, tmp_path):
    result = autodup("quality", "tiny", "--dealers", dealers, "--boards", "5", "--out", str(tmp_path / "q"))
    assert result.returncode == 2 and message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    assert not (tmp_path / "q").exists()


def test_the_default_report_opens_with_its_verdict_in_a_headless_browser(default_quality, tmp_path):
    out, quality = default_quality
    seen = assert_a_reader_sees_the_verdict(out / "report.html", tmp_path / "profile", len(PLOTS))
    verdict = re.search(r'<section id="verdict".*?</section>', seen["dom"], re.S).group(0)
    # The headline is the default's luck-corrected figure, as the terminal gives it.
    assert f"{quality['variance_reduction']:.2f}x fewer boards" in verdict and "corrected for luck" in verdict
    assert "closest pair" in verdict and "median pair" in verdict and "games" in verdict


def test_a_quality_run_of_one_board_measures_what_it_can(tmp_path):
    """One board: no component of a run varies, and the correctness test ended in numpy's 'attempt to get argmin of
    an empty sequence', all that `autodup quality --boards 1` printed, its folder left without quality.json (a
    second new user's trial). Nothing is tested now, and every figure it cannot measure says why."""
    out = tmp_path / "q"
    result = autodup("quality", "tiny", "--boards", "1", "--no-ladder", "--dealers", "haystack", "--out", str(out),
                     "--quiet")
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert "too few boards" in result.stdout and (out / "quality.json").is_file()


def test_a_hung_bot_is_named_in_one_line_and_leaves_no_folder(tmp_path):
    result = autodup("quality", "tiny", "--bots", "greedy,tests/bots/hangs.py", "--boards", "30", "--dealers",
                     "haystack", "--out", str(tmp_path / "q"), "--quiet", "--game-timeout", "3")
    assert result.returncode == 2 and "bot 'hangs'" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    assert not (tmp_path / "q").exists()


def test_a_misbehaving_bot_is_warned_about_once_per_run(tmp_path):
    result = autodup("quality", "tiny", "--bots", "greedy,tests/bots/crash.py", "--boards", "10", "--dealers",
                     "haystack", "--out", str(tmp_path / "q"), "--quiet")
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if line.startswith("autodup: warning:")]
    runs = list((tmp_path / "q" / "runs").iterdir())  # haystack's three ladder runs and the two controls
    assert len(runs) == 5
    assert len(warnings) == len(runs) and all("crash:" in line and "bot errors" in line for line in warnings)


def test_a_resumed_run_times_only_the_boards_it_played(tiny_quality, tmp_path):
    reference, _ = tiny_quality
    out = tmp_path / "q"
    shutil.copytree(reference, out)
    (out / "runs" / "keyed" / "chunks" / "chunk-000001.parquet").unlink()  # boards 25 .. 49 to play again
    timings = json.loads((out / "timings.json").read_text())
    del timings["keyed"]
    (out / "timings.json").write_text(json.dumps(timings))
    result = autodup("quality", "tiny", "--bots", TINY_BOTS, "--boards", "60", "--no-ladder",
                     "--dealers", "haystack,keyed",
                     "--out", str(out), "--quiet", "--workers", "1")
    assert result.returncode == 0, result.stderr
    timings = json.loads((out / "timings.json").read_text())
    assert timings["keyed"]["boards"] == 25 and timings["keyed"]["seconds"] > 0
    assert timings["haystack"] == json.loads((reference / "timings.json").read_text())["haystack"]  # reused


def test_set4s_default_quality_passes_its_null_check_under_every_estimator(default_quality):
    """The default quality run's shape (set4, every bot): greedy and a copy of it in place of the last bot.
    The raw, luck-adjusted and value-corrected differences all look like noise (the copy is corrected by the
    value's pooled weights, the original by its own)."""
    _, quality = default_quality
    null = quality["null_check"]
    assert null["bots"] == [quality["bots"][0], quality["bots"][0] + "_copy"]
    assert null["groups"] == null_check.NULL_GROUPS and null["boards_per_group"] == quality["boards"] // null_check.NULL_GROUPS
    assert set(null["estimators"]) == {"raw", "adjusted", "corrected"}
    for label, figures in null["estimators"].items():
        assert figures["consistent"] is True, (label, figures)
        assert len(figures["z"]) == null_check.NULL_GROUPS
    assert null["consistent"] is True


def test_the_default_quality_folder_names_the_value_so_that_value_none_gets_a_folder_of_its_own():
    from types import SimpleNamespace

    from autodup.analysis.quality import default_quality_out

    def spec(value_sha256):
        return SimpleNamespace(identity=lambda: {"bots": [["greedy", "bots/greedy.py", "ab", {}]]},
                               value_sha256=value_sha256)

    plain = default_quality_out("set4", 1000, 0, spec(""))
    corrected = default_quality_out("set4", 1000, 0, spec("0123456789abcdef"))
    assert corrected.name == plain.name + "-value012345" and plain.parent == corrected.parent


def test_a_small_quality_run_says_nothing_on_stderr_when_quiet(tmp_path):
    """Eight boards of tiny resolve pairs whose boards-needed figures are all 0: the figure has no point to name, and
    matplotlib's warning about an empty legend reached the terminal (two lines, with a file path)."""
    result = autodup("quality", "tiny", "--bots", "greedy,random", "--boards", "8", "--dealers", "haystack",
                     "--no-ladder", "--quiet", "--out", str(tmp_path / "q"))
    said = [line for line in result.stderr.splitlines() if not line.startswith("autodup: compiling")]  # a cold cache
    assert result.returncode == 0 and said == [], result.stderr
