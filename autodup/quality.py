"""``autodup quality``: play the same boards under each dealer and the control, measure them, write the report.

A quality folder ``DIR`` holds:

``runs/<dealer>/``
    One run folder per dealer and one for the ``independent`` control, all of
    the same boards, bots and seed (``autodup run`` folders: resumable, and
    readable on their own), with the default design and event addressing;
    beside them the ladder's runs, ``runs/<dealer>@<design>-<events>/``
    (:data:`LADDER_RUNS`; the control under each design), which measure what
    each step removes: shared seeds, events by who, paired seating.
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

from .boards import DEFAULT_DESIGN, TRACE_FIELDS
from .dealers import CONTROL, DEFAULT_DEALER
from .game import DEFAULT_EVENTS
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


# The ladder's runs beside each dealer's default one: (design, events) of each step (autodup.measures.LADDER).
LADDER_RUNS = (("latin", "position"), ("paired", "seat"))


def run_name(dealer: str, design: str = DEFAULT_DESIGN, events: str = DEFAULT_EVENTS) -> str:
    """A run's name in a quality folder: the dealer for the default design and events, else ``dealer@design-events``."""
    return dealer if (design, events) == (DEFAULT_DESIGN, DEFAULT_EVENTS) else f"{dealer}@{design}-{events}"


def quality_runs(dealers, make, ladder: bool = True) -> dict:
    """``{run name: spec}``: each dealer's default run and its ladder runs, and the control's under each design.

    ``make(dealer, design, events)`` gives a run's spec. Without ``ladder``,
    only the default runs (each dealer's and the control's).
    """
    runs = {}
    for dealer in [*dealers, CONTROL]:
        for design, events in ((DEFAULT_DESIGN, DEFAULT_EVENTS), *(LADDER_RUNS if ladder else ())):
            if dealer == CONTROL and events != DEFAULT_EVENTS:
                continue  # the control's tables share nothing: how events are addressed changes nothing
            runs[run_name(dealer, design, events)] = make(dealer, design, events)
    return runs


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
        if folder.identity["dealer"] == CONTROL:  # no draw of the control is compared: nothing to trace
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
        identity = folder.identity
        dealer = run_name(identity["dealer"], identity["design"], identity["events"])
        if dealer in folders:
            raise RunError(f"{path}: a second run of dealer {identity['dealer']!r} with design "
                           f"{identity['design']!r} and events by {identity['events']} (the first is "
                           f"{folders[dealer].path}); give one run per dealer, design and event addressing")
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
    default = quality["dealers"].get(run_name(DEFAULT_DEALER))
    quality["default"] = {"dealer": DEFAULT_DEALER, "design": DEFAULT_DESIGN, "events": DEFAULT_EVENTS,
                          "estimator": "adjusted", "run": run_name(DEFAULT_DEALER)}
    # The headline: what `autodup run` does by default, against independent tables of the same design.
    quality["variance_reduction"] = None if default is None else default["adjusted_variance_reduction"]
    quality["variance_reduction_ci"] = [None, None] if default is None else default["adjusted_variance_reduction_ci"]
    quality["best"] = best_combination(quality)
    Path(out).mkdir(parents=True, exist_ok=True)
    _write_json_atomically(Path(out) / QUALITY_FILE, json_safe(quality))
    write_report(quality, out)
    return quality


def best_combination(quality: dict) -> dict | None:
    """The ladder step of an exact dealer that needs the fewest games to tell the closest pair apart."""
    steps = [step | {"dealer": dealer} for dealer, ladder in quality["ladder"].items()
             for step in ladder if step["efficiency"] is not None
             and quality["dealers"][step["run"]]["exact"] and quality["dealers"][step["run"]]["correct"] is not False]
    return max(steps, key=lambda step: step["efficiency"]) if steps else None


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
    """quality.json for a person: one line per run, the ladder of luck removed, and the headline."""
    lines = [f"{quality['config']}: {quality['boards']} boards x {quality['tables']} tables, seed {quality['seed']}, "
             f"control {quality['control']}; closest pair: {' vs '.join(quality['closest_pair'] or ['n/a'])}"]
    header = (f"{'run':<24} {'correct':>8} {'min p':>9} {'slot agr.':>9} {'offer ovl.':>10} "
              f"{'var. reduction (95% CI)':>24} {'adjusted (95% CI)':>22}  {'decided by'}")
    lines.append(header)

    def number(value, fmt):
        return "n/a" if value is None else format(value, fmt)

    def with_interval(value, interval):
        return "" if value is None else f"{value:.2f} [{number(interval[0], '.2f')}, {number(interval[1], '.2f')}]"

    for name, entry in quality["dealers"].items():
        correct = "control" if entry["correct"] is None else ("yes" if entry["correct"] else "NO")
        lines.append(f"{name:<24} {correct:>8} {number(entry['min_p_value'], '.2g'):>9} "
                     f"{number(entry['slot_agreement'], '.3f'):>9} {number(entry['offer_overlap'], '.3f'):>10} "
                     f"{with_interval(entry['variance_reduction'], entry['variance_reduction_ci']):>24} "
                     f"{with_interval(entry.get('adjusted_variance_reduction'), entry.get('adjusted_variance_reduction_ci', [None, None])):>22}"
                     f"  {entry['deciding_observable'] or ''}")
    lines.append("ladder (closest pair): variance reduction against independent tables of the same design; "
                 "efficiency: games a plain tournament needs over the games this needs")
    for dealer, steps in quality.get("ladder", {}).items():
        for step in steps:
            lines.append(f"  {dealer:<12} {step['step']:<58} "
                         f"{with_interval(step['variance_reduction'], step['variance_reduction_ci']):>22}  "
                         f"efficiency {with_interval(step['efficiency'], step['efficiency_ci'])}")
    if quality.get("variance_reduction") is not None:
        default = quality["default"]
        lines.append(f"default ({default['dealer']}, {default['design']}, events by {default['events']}, luck-adjusted):"
                     f" variance reduction {with_interval(quality['variance_reduction'], quality['variance_reduction_ci'])}")
    return "\n".join(lines)
