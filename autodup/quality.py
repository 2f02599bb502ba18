"""``autodup quality``: play the same boards under each dealer and the control, measure them, write the report.

A quality folder ``DIR`` holds:

``runs/<dealer>/``
    One run folder per dealer and one for the ``independent`` control, all of
    the same boards, bots and seed (``autodup run`` folders: resumable, and
    readable on their own).
``traces/<dealer>.npz``
    Each seat's first draws at the first boards, with their inputs: the
    coupling diagnostic's data (replayed from the run's own seeds).
``timings.json``
    Seconds each run took to play, for the seconds needed to separate bots.
``quality.json``, ``report.html``, ``*.png``
    The measures (:mod:`autodup.measures`) and the report (:mod:`autodup.report`).

Playing is the tournament layer's (:func:`autodup.tournament.run_tournament`);
measuring reads the folders only. ``autodup report RUN_DIR ...`` measures
existing run folders the same way.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

import numpy as np

from .boards import TRACE_FIELDS
from .dealers import CONTROL
from .errors import print_warning
from .tournament import RunError, _write_json_atomically

DEFAULT_QUALITY_DEALERS = ("haystack", "keyed", "stream", "replay")
TRACE_BOARDS = 25   # boards replayed with their draws traced (a chunk's worth: 8 tables x 8 seats each)
TRACE_DRAWS = 64    # draws kept per seat: tables diverge within the first rounds
TIMINGS_FILE = "timings.json"
QUALITY_FILE = "quality.json"


def parse_dealers(text: str) -> list:
    """``--dealers``: distinct duplicate dealers, comma-separated (the control is always played); one-line errors."""
    from .dealers import DEALERS

    names = [name.strip() for name in str(text).split(",") if name.strip()]
    if not names:
        raise ValueError("--dealers: empty (allowed: any of " + ", ".join(n for n in DEALERS if n != CONTROL) + ")")
    for name in names:
        if name == CONTROL:
            raise ValueError(f"--dealers: {CONTROL} is the control, played always (list the dealers to measure)")
        if name not in DEALERS:
            allowed = ", ".join(n for n in DEALERS if n != CONTROL)
            raise ValueError(f"--dealers: unknown dealer {name!r} (allowed: {allowed})")
    if len(set(names)) != len(names):
        raise ValueError("--dealers: a dealer is listed twice")
    return names


def run_folder_of(out: Path, dealer: str) -> Path:
    return Path(out) / "runs" / dealer


def play_runs(specs: dict, out: Path, workers: int, backend: str, ray_address, quiet: bool, game_timeout: float,
              note=None, warn=None) -> dict:
    """Play (or finish, or reuse) each dealer's run under ``out/runs``; returns ``{dealer: timing}``.

    A timing is the seconds of the last play of a run and the boards it
    played then (a resumed run counts only the boards it finished then); a
    run found finished is reused and keeps the timing recorded when it was
    played.
    """
    from .tournament import boards_done, run_tournament, warn_if_misbehaving

    timings_path = Path(out) / TIMINGS_FILE
    timings = json.loads(timings_path.read_text()) if timings_path.is_file() else {}
    for dealer, spec in specs.items():
        folder = run_folder_of(out, dealer)
        before = boards_done(folder, spec.boards) if any(folder.glob("chunks/chunk-*.parquet")) else 0
        reused = []
        start = time.perf_counter()
        _, summary = run_tournament(spec, folder, workers, backend, ray_address, resume=folder.exists(),
                                    quiet=quiet, manifest_extra={"quality": str(out)}, game_timeout=game_timeout,
                                    warn=warn, note=reused.append)
        warn_if_misbehaving(summary, f"{folder}: ", warn or print_warning)
        if reused:
            (note or (lambda line: None))(f"{folder}: finished already; reused")
        else:
            timings[dealer] = {"seconds": time.perf_counter() - start, "boards": spec.boards - before,
                               "tables": spec.tables, "workers": workers}
        _write_json_atomically(timings_path, timings)
    return timings


def games_per_second(timings: dict) -> float | None:
    """Games per second over the plays that were timed (None if none was)."""
    seconds = sum(t["seconds"] for t in timings.values())
    games = sum(t["boards"] * t["tables"] for t in timings.values())
    return games / seconds if seconds > 0 else None


def trace_runs(folders: dict, out: Path, boards: int, draws: int, game_timeout: float) -> dict:
    """``{dealer: trace arrays}``: each duplicate dealer's first boards replayed with traced draws.

    The arrays are those :func:`autodup.tournament.trace_boards` returns,
    kept in ``out/traces/<dealer>.npz``. Replayed in a watched worker from the
    run's snapshot (its configuration and bot files); a trace already in the
    folder for the same run, boards and draws is reused.
    """
    from .tournament import run_watched, spec_of_folder, trace_boards

    traces = {}
    folder_of_traces = Path(out) / "traces"
    for dealer, folder in folders.items():
        if dealer == CONTROL:
            continue
        path = folder_of_traces / f"{dealer}.npz"
        spec = spec_of_folder(folder.path)
        run_id = spec.identity_hash()
        if path.is_file():
            with np.load(path, allow_pickle=False) as stored:
                if str(stored["run"]) == run_id and int(stored["boards"]) == boards and int(stored["draws"]) == draws:
                    traces[dealer] = {name: stored[name] for name in TRACE_FIELDS}
                    continue
        arrays, _ = run_watched(trace_boards, (spec, boards, draws), game_timeout, describe=spec.describe)
        folder_of_traces.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp.npz")
        np.savez_compressed(temporary, run=np.array(run_id), boards=np.array(boards), draws=np.array(draws), **arrays)
        os.replace(temporary, path)
        traces[dealer] = arrays
    return traces


def recorded_timings(folders: dict) -> dict:
    """``{dealer: timing}`` of runs played by ``autodup quality`` (its ``timings.json``, beside ``runs/``)."""
    timings = {}
    for path in {folder.path.parent.parent / TIMINGS_FILE for folder in folders.values()}:
        if path.is_file():
            timings.update(json.loads(path.read_text()))
    return {dealer: timings[dealer] for dealer in folders if dealer in timings}


def default_quality_out(config_name: str, boards: int, seed: int, control_spec) -> Path:
    """``quality/<config>-<boards>b-seed<seed>-<hash of the bots>``: a folder named by what it measures."""
    from .tournament import folder_name

    lineup = hashlib.sha256(json.dumps(control_spec.identity()["bots"]).encode()).hexdigest()[:10]
    return Path("quality") / f"{folder_name(config_name)}-{boards}b-seed{seed}-{lineup}"


def folders_to_measure(paths) -> dict:
    """``{dealer: RunFolder}`` of the run folders ``autodup report`` is given; one line for what cannot be measured.

    One run per dealer, the control among them, all of the same boards
    (:func:`autodup.measures.check_same_boards`), checked before anything is
    replayed or written.
    """
    from .measures import check_same_boards
    from .results import RunFolder

    folders = {}
    for path in paths:
        folder = RunFolder(path)
        dealer = folder.identity["dealer"]
        if dealer in folders:
            raise RunError(f"{path}: a second run of dealer {dealer!r} (the first is {folders[dealer].path}); "
                           "give one run per dealer")
        folders[dealer] = folder
    if CONTROL not in folders:
        raise RunError(f"no run of the control ({CONTROL}) among {', '.join(map(str, paths))}: each dealer is "
                       f"compared with it (play one with `autodup run --dealer {CONTROL}` and the same boards and "
                       "seed)")
    check_same_boards(folders)
    return folders


def measure_folders(folders: dict, out: Path, traces: dict | None, timings: dict | None) -> dict:
    """Measure run folders (``{dealer: RunFolder}``, the control among them), write quality.json and the report."""
    from .measures import measure_quality
    from .report import write_report

    quality = measure_quality(folders, CONTROL, traces, games_per_second=games_per_second(timings or {}))
    Path(out).mkdir(parents=True, exist_ok=True)
    _write_json_atomically(Path(out) / QUALITY_FILE, json_safe(quality))
    write_report(quality, out)
    return quality


def json_safe(value):
    """``value`` with NaN and infinities written as null (JSON has neither)."""
    if isinstance(value, dict):
        return {key: json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(item) for item in value]
    if isinstance(value, (float, np.floating)):
        return float(value) if np.isfinite(value) else None
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


def terminal_table(quality: dict) -> str:
    """quality.json for a person: one line per dealer, then the closest pair's boards needed."""
    lines = [f"{quality['config']}: {quality['boards']} boards x {quality['tables']} tables, seed {quality['seed']}, "
             f"control {quality['control']}; closest pair: {' vs '.join(quality['closest_pair'] or ['n/a'])}"]
    header = (f"{'dealer':<12} {'correct':>8} {'min p':>9} {'slot agr.':>9} {'offer ovl.':>10} "
              f"{'var. reduction (95% CI)':>24}  {'decided by'}")
    lines.append(header)

    def number(value, fmt):
        return "n/a" if value is None else format(value, fmt)

    for name, entry in quality["dealers"].items():
        correct = "control" if entry["correct"] is None else ("yes" if entry["correct"] else "NO")
        low, high = entry["variance_reduction_ci"]
        reduction = ("" if entry["variance_reduction"] is None else
                     f"{entry['variance_reduction']:.2f} [{number(low, '.2f')}, {number(high, '.2f')}]")
        lines.append(f"{name:<12} {correct:>8} {number(entry['min_p_value'], '.2g'):>9} "
                     f"{number(entry['slot_agreement'], '.3f'):>9} {number(entry['offer_overlap'], '.3f'):>10} "
                     f"{reduction:>24}  {entry['deciding_observable'] or ''}")
    return "\n".join(lines)
