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
    The measures (:mod:`autodup.analysis.measures`) and the report (:mod:`autodup.analysis.report`).

Playing is the tournament layer's (:func:`autodup.tournament.run.play_run`); measuring reads the folders
only. ``autodup report RUN_DIR ...`` measures existing run folders the same way.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from pathlib import Path

import numpy as np

from ..arguments import cores
from ..engine.dealers import CONTROL, DEFAULT_DEALER
from ..errors import RunError, UsageError, counted, print_warning
from ..files import replacing, write_json_atomically
from ..game.boards import DEFAULT_DESIGN, TRACE_FIELDS
from ..game.rules import DEFAULT_EVENTS
from .coupling import coupling_from_trace
from .measure_kernels import ADJUSTED, ALPHA, BOOTSTRAP_REPLICATES, RAW
from .measures import (
    RunMeasures,
    closest_pair,
    compare_with_control,
    events_name,
    luck_sources,
    measure_run,
    seating_name,
    unfitted_note,
    unresolved_note,
    unresolved_reason,
    variance_reduction,
)
from .null_check import null_check_lines
from .pages import format_share
from .statistics import boards_needed, percentile_interval

__all__ = ["DEFAULT_QUALITY_DEALERS", "TRACE_BOARDS", "TRACE_DRAWS", "TIMINGS_FILE", "QUALITY_FILE", "parse_dealers",
           "LADDER_RUNS", "run_name", "quality_runs", "run_folder_of", "play_runs", "games_per_second", "trace_runs",
           "recorded_timings", "default_quality_out", "folders_to_measure", "measure_folders", "verdict",
           "games_needed", "best_combination", "terminal_table", "verdict_figure", "QUALITY_FORMAT",
           "check_same_boards", "measure_quality", "efficiency", "LADDER", "ladder"]

DEFAULT_QUALITY_DEALERS = ("haystack", "keyed", "stream", "replay")
TRACE_BOARDS = 25   # boards replayed with their draws traced (a chunk's worth: 8 tables x 8 seats each)
TRACE_DRAWS = 64    # draws kept per seat: tables diverge within the first rounds
TIMINGS_FILE = "timings.json"
QUALITY_FILE = "quality.json"


def parse_dealers(text: str) -> list:
    """``--dealers``: distinct duplicate dealers, comma-separated (the control is always played); one-line errors."""
    from ..engine.dealers import DEALERS

    names = [name.strip() for name in str(text).split(",")]
    if not any(names):
        raise UsageError("empty (allowed: any of " + ", ".join(n for n in DEALERS if n != CONTROL) + ")", "dealers")
    if not all(names):  # as --bots refuses "greedy,": a slip, not a list
        raise UsageError(f"{text!r} names no dealer at some position (allowed: dealers, comma-separated)", "dealers")
    for name in names:
        if name == CONTROL:
            raise UsageError(f"{CONTROL} is the control, played always (list the dealers to measure)", "dealers")
        if name not in DEALERS:
            allowed = ", ".join(n for n in DEALERS if n != CONTROL)
            raise UsageError(f"unknown dealer {name!r} (allowed: {allowed})", "dealers")
    if len(set(names)) != len(names):
        raise UsageError("a dealer is listed twice", "dealers")
    return names


# The ladder's runs beside each dealer's default one: (design, events) of each step (autodup.analysis.quality.LADDER).
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
              note=None, warn=None, folder_of=None) -> dict:
    """Play (or finish, or reuse) each dealer's run under ``out/runs`` (or in ``folder_of(out, name)``); returns
    ``{dealer: timing}``, every timing of ``out/timings.json``.

    A timing is the seconds of the last play of a run and the boards it
    played then (a resumed run counts only the boards it finished then); a
    run found finished is reused and keeps the timing recorded when it was
    played.
    """
    from ..tournament.storage import boards_done
    from .summary import RUN_AGAIN, play_and_summarize, warn_if_misbehaving

    timings_path = Path(out) / TIMINGS_FILE
    timings = json.loads(timings_path.read_text()) if timings_path.is_file() else {}
    for dealer, spec in specs.items():
        folder = (folder_of or run_folder_of)(out, dealer)
        before = boards_done(folder, spec.boards) if any(folder.glob("chunks/chunk-*.parquet")) else 0
        reused = []
        start = time.perf_counter()
        _, summary = play_and_summarize(spec, folder, workers, backend, ray_address, resume=folder.exists(),
                                    quiet=quiet, manifest_extra={"quality": str(out)}, game_timeout=game_timeout,
                                    warn=warn, note=reused.append, again=RUN_AGAIN, refused_as=("runs", out, "out"))
        warn_if_misbehaving(summary, f"{folder}: ", warn or print_warning)
        if reused:
            (note or (lambda line: None))(f"{folder}: finished already; reused")
        else:
            timings[dealer] = {"seconds": time.perf_counter() - start, "boards": spec.boards - before,
                               "tables": spec.tables, "workers": workers}
        write_json_atomically(timings_path, timings)
    return timings


def games_per_second(timings: dict) -> float | None:
    """Games per second over the plays that were timed (None if none was)."""
    seconds = sum(t["seconds"] for t in timings.values())
    games = sum(t["boards"] * t["tables"] for t in timings.values())
    return games / seconds if seconds > 0 else None


def trace_runs(folders: dict, out: Path, boards: int, draws: int, game_timeout: float) -> dict:
    """``{dealer: trace arrays}``: each duplicate dealer's first boards replayed with traced draws.

    The arrays are those :func:`autodup.tournament.spec.trace_boards` returns,
    kept in ``out/traces/<dealer>.npz``. Replayed in a watched worker from the
    run's snapshot (its configuration and bot files); a trace already in the
    folder for the same run, boards and draws is reused.
    """
    from ..tournament.run import run_watched
    from ..tournament.spec import trace_boards
    from ..tournament.storage import spec_of_folder

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
        arrays = run_watched(trace_boards, (spec, boards, draws), game_timeout, describe=spec.describe)
        folder_of_traces.mkdir(parents=True, exist_ok=True)
        with replacing(path, suffix=".npz") as temporary:  # numpy adds .npz to a name without it
            np.savez_compressed(temporary, run=np.array(run_id), boards=np.array(boards), draws=np.array(draws),
                                **arrays)
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
    """``quality/<config>-<boards>b-seed<seed>-<hash of the bots>``: a folder named by what it measures,
    followed by ``-value<hash of the value file>`` when the runs are corrected by one (as ab's folders)."""
    from ..tournament.spec import folder_name

    lineup = hashlib.sha256(json.dumps(control_spec.identity()["bots"]).encode()).hexdigest()[:10]
    # The value is part of the runs' identity: without it in the name, `--value none` after a corrected quality
    # would find the corrected runs and refuse them.
    value = f"-value{control_spec.value_sha256[:6]}" if control_spec.value_sha256 else ""
    return Path("quality") / f"{folder_name(config_name)}-{boards}b-seed{seed}-{lineup}{value}"


def folders_to_measure(paths) -> dict:
    """``{dealer: RunFolder}`` of the run folders ``autodup report`` is given; one line for what cannot be measured.

    One run per dealer, the control among them, all of the same boards
    (:func:`autodup.analysis.quality.check_same_boards`), checked before anything is
    replayed or written.
    """
    from ..tournament.results import RunFolder

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
    if len(folders[CONTROL].bot_names) < 2:
        raise RunError(f"{folders[CONTROL].path}: a run of one bot (allowed: runs of 2 bots or more; quality "
                       "measures the luck removed from comparing two bots)")
    return folders


def measure_folders(folders: dict, out: Path, traces: dict | None, timings: dict | None,
                    null: dict | None = None) -> dict:
    """Measure run folders (``{dealer: RunFolder}``, the control among them), write quality.json and the report.

    ``null``: the null check's entry (:mod:`autodup.analysis.null_check`); ``None``, for runs measured by
    ``autodup report``, says it was not played.
    """
    from .null_check import not_played
    from .report import write_quality_folder

    quality = measure_quality(folders, CONTROL, traces, games_per_second=games_per_second(timings or {}))
    default_run = run_name(DEFAULT_DEALER)
    # Which value corrected the rows (None: none did), as ab.json records it.
    value_sha256 = folders[default_run].identity.get("value_sha256") if default_run in folders else None
    quality["value_sha256"] = value_sha256 or None
    quality["null_check"] = null if null is not None else not_played("autodup report measures the runs it is "
                                                                      "given; autodup quality plays the null check",
                                                                      quality["boards"])
    default = quality["dealers"].get(default_run)
    quality["default"] = {"dealer": DEFAULT_DEALER, "design": DEFAULT_DESIGN, "events": DEFAULT_EVENTS,
                          "estimator": "adjusted", "run": default_run}
    # The headline: what `autodup run` does by default, against independent tables of the same design.
    quality["variance_reduction"] = None if default is None else default["adjusted_variance_reduction"]
    quality["variance_reduction_ci"] = [None, None] if default is None else default["adjusted_variance_reduction_ci"]
    quality["best"] = best_combination(quality)
    quality["verdict"] = verdict(quality)
    write_quality_folder(quality, out, QUALITY_FILE)
    return quality


def verdict(quality: dict) -> dict | None:
    """What the report opens with, from the default run (``quality["default"]``): its variance reduction raw,
    luck-adjusted and (when its rows are corrected by a value) corrected, for the closest pair and the median pair
    (the pair of median mean difference under the control), the games each format needs to separate the closest
    pair, the share of its variance each kind of chance event's correction removes, and the dealers found wrong.

    A figure not given at this size is None beside a ``why``.
    """
    default = quality["dealers"].get(quality["default"]["run"])
    if default is None or not default["pairs"]:
        return None
    pairs = default["pairs"]
    closest = next((pair for pair in pairs if pair["bots"] == quality["closest_pair"]), pairs[0])
    measured = sorted((abs(pair["mean_difference"]), index) for index, pair in enumerate(pairs)
                      if pair["mean_difference"] is not None)
    median = pairs[measured[(len(measured) - 1) // 2][1]] if measured else closest

    def figures(pair: dict, role: str) -> dict:
        return {"pair": pair["bots"], "role": role, "mean_difference": pair["mean_difference"],
                "raw": pair["variance_reduction"], "raw_ci": pair["variance_reduction_ci"],
                "adjusted": pair["adjusted_variance_reduction"], "adjusted_ci": pair["adjusted_variance_reduction_ci"],
                "adjusted_why": pair.get("adjusted_variance_reduction_why"),
                "corrected": pair.get("corrected_variance_reduction"),
                "corrected_ci": pair.get("corrected_variance_reduction_ci", [None, None])}

    return {"run": quality["default"]["run"], "pairs": [figures(closest, "closest"), figures(median, "median")],
            "games_needed": games_needed(closest, default, quality["boards"], quality["tables"]),
            "variance_removed_by_kind": closest.get("variance_removed_by_kind"),
            "wrong": [name for name, entry in quality["dealers"].items() if entry["correct"] is False],
            "wrong_exact": [name for name, entry in quality["dealers"].items()
                            if entry["correct"] is False and entry["exact"]]}


def games_needed(pair: dict, default: dict, boards: int, tables: int) -> dict:
    """The games the default and independent tables need to tell ``pair`` apart at 95% with 80% power:
    :func:`~autodup.analysis.statistics.boards_needed` x tables, each format's own sd (the default's adjusted and, with a value, corrected), the mean difference measured by the default's luck-adjusted scores
    (the most precise estimate an exact dealer gives, the luck terms having mean zero) when it passed its
    correctness tests, else by the control; given when that mean is resolved
    (:data:`autodup.analysis.measures.RESOLVED_Z`)."""
    use_default = (default.get("exact") and default.get("correct") and pair.get("adjusted_mean_difference") is not None
                   and pair.get("adjusted_variance"))
    if use_default:
        mean, variance, estimator = pair["adjusted_mean_difference"], pair["adjusted_variance"], "adjusted"
    else:
        mean, variance, estimator = pair["mean_difference"], pair["variance_control"], "control"
    if not (mean and variance):
        return {"independent": None, "duplicate": None, "mean_from": estimator, "why": "not measured"}
    why = unresolved_reason(abs(mean) / math.sqrt(variance / boards), boards,
                            divides="games needed divide by it and need")
    if why is not None:
        return {"independent": None, "duplicate": None, "mean_from": estimator, "why": why}
    # At least a game: a pair so far apart that under one game would tell it read "about 0 games".
    independent = max(boards_needed(pair["variance_control"], mean) * tables, 1.0)
    corrected = (max(boards_needed(pair["corrected_variance"], mean) * tables, 1.0) if pair.get("corrected_variance")
                 else None)
    if not pair.get("adjusted_variance"):
        # The default scores luck-corrected placements: its games are not the raw placements' games.
        return {"independent": independent, "duplicate": None, "corrected": corrected, "mean_from": estimator,
                "why": pair.get("adjusted_variance_reduction_why") or "not measured"}
    return {"independent": independent, "duplicate": max(boards_needed(pair["adjusted_variance"], mean) * tables, 1.0),
            "corrected": corrected, "mean_from": estimator, "why": None}


def best_combination(quality: dict) -> dict | None:
    """The ladder step of an exact dealer that needs the fewest games to tell the closest pair apart."""
    steps = [step | {"dealer": dealer} for dealer, ladder in quality["ladder"].items()
             for step in ladder if step["efficiency"] is not None
             and quality["dealers"][step["run"]]["exact"] and quality["dealers"][step["run"]]["correct"] is not False]
    return max(steps, key=lambda step: step["efficiency"]) if steps else None


def terminal_table(quality: dict) -> str:
    """quality.json for a person: one line per run, the ladder of luck removed, and the headline."""
    lines = [f"{quality['config']}: {counted(quality['boards'], 'board')} x {counted(quality['tables'], 'table')}, "
             f"seed {quality['seed']}, control {quality['control']}; closest pair: "
             f"{' vs '.join(quality['closest_pair'] or ['n/a'])}"]
    header = (f"{'run':<24} {'correct':>8} {'min p':>9} {'slot agr.':>9} {'offer ovl.':>10} "
              f"{'var. reduction (95% CI)':>24} {'adjusted (95% CI)':>22}  {'decided by'}")
    lines.append(header)

    def number(value, fmt):
        return "n/a" if value is None else format(value, fmt)

    def with_interval(value, interval):
        return "" if value is None else f"{value:.2f} [{number(interval[0], '.2f')}, {number(interval[1], '.2f')}]"

    notes = []

    def or_note(value, interval, why):
        if value is not None or not why:
            return with_interval(value, interval) or "n/a"
        if why not in notes:
            notes.append(why)
        return f"n/a ({notes.index(why) + 1})"

    for name, entry in quality["dealers"].items():
        correct = "control" if entry["correct"] is None else ("yes" if entry["correct"] else "NO")
        lines.append(f"{name:<24} {correct:>8} {number(entry['min_p_value'], '.2g'):>9} "
                     f"{number(entry['slot_agreement'], '.3f'):>9} {number(entry['offer_overlap'], '.3f'):>10} "
                     f"{with_interval(entry['variance_reduction'], entry['variance_reduction_ci']):>24} "
                     f"{or_note(entry.get('adjusted_variance_reduction'), entry.get('adjusted_variance_reduction_ci', [None, None]), entry.get('adjusted_variance_reduction_why')):>22}"
                     f"  {entry['deciding_observable'] or ''}")
    lines.append("ladder (closest pair): variance reduction against independent tables of the same design; "
                 "efficiency: games a plain tournament needs over the games this needs")
    for dealer, steps in quality.get("ladder", {}).items():
        for step in steps:
            lines.append(f"  {dealer:<12} {step['step']:<58} "
                         f"{or_note(step['variance_reduction'], step['variance_reduction_ci'], step.get('variance_reduction_why')):>22}  "
                         f"efficiency {or_note(step['efficiency'], step['efficiency_ci'], step.get('efficiency_why'))}")
    lines += [f"  ({index}) {why}" for index, why in enumerate(notes, 1)]
    default = quality.get("default")
    if default is not None and quality["dealers"].get(default["run"]):
        lines.append(f"default ({default['dealer']}, {seating_name(default['design'])}, "
                     f"{events_name(default['events'])}, luck-corrected):"
                     f" variance reduction {verdict_figure(quality)}")
    games = (quality.get("verdict") or {}).get("games_needed")
    if games:
        pair = " vs ".join(quality["closest_pair"])
        lines.append(f"games to tell {pair} apart at 95% with 80% power: " + (
            f"about {games['duplicate']:,.0f} with the default, {games['independent']:,.0f} at independent tables"
            if games["independent"] is not None and games["duplicate"] is not None
            else f"n/a with the default ({games['why'] or 'not measured'})"
            + ("" if games["independent"] is None else f"; {games['independent']:,.0f} at independent tables")))
    lines += corrected_lines(quality)
    lines += null_check_lines(quality)
    return "\n".join(lines)


def corrected_lines(quality: dict) -> list:
    """The terminal's lines on the value's corrections of the default run, when its rows have them."""
    verdict = quality.get("verdict") or {}
    closest = (verdict.get("pairs") or [{}])[0]
    if closest.get("corrected") is None:
        return []
    low, high = closest["corrected_ci"]
    entry = quality["dealers"][quality["default"]["run"]]
    lines = [f"corrected by the value (fixed on training boards): variance reduction {closest['corrected']:.2f} "
             f"[{low:.2f}, {high:.2f}] for the closest pair, median over pairs "
             f"{entry['median_corrected_variance_reduction']:.2f}"]
    games = verdict.get("games_needed") or {}
    if games.get("corrected") is not None:
        lines.append(f"  games to tell {' vs '.join(quality['closest_pair'])} apart, corrected: about "
                     f"{games['corrected']:,.0f}")
    shares = verdict.get("variance_removed_by_kind") or {}
    if shares:
        lines.append("  its variance each kind's correction removes alone: " + ", ".join(
            f"{kind} {'n/a' if share is None else format_share(share)}" for kind, share in shares.items()))
    return lines


def verdict_figure(quality: dict) -> str:
    """The headline: the default's luck-adjusted variance reduction with its interval, or why it is not given."""
    if quality.get("variance_reduction") is not None:
        low, high = quality["variance_reduction_ci"]
        bounds = "" if low is None else f" [{low:.2f}, {high:.2f}]"
        return f"{quality['variance_reduction']:.2f}{bounds}"
    why = quality["dealers"].get(quality["default"]["run"], {}).get("adjusted_variance_reduction_why")
    return f"not given ({why})" if why else "not measured"


# --------------------------------------------------------------------------
# everything: quality.json
# --------------------------------------------------------------------------

QUALITY_FORMAT = 2  # 2: boards needed plan for 80% power (statistics.boards_needed); 1's had a power of 1/2


def check_same_boards(runs: dict) -> None:
    """Refuse runs that did not play the same boards (config, bots, boards, seed, tables): one line."""
    first, *others = runs.values()
    first_done = first.boards_done()
    for other in others:
        for key in ("config_sha256", "boards", "seed", "tables"):
            if first.identity[key] != other.identity[key]:
                raise RunError(f"{other.path}: not the same boards as {first.path} ({key}: "
                                 f"{other.identity[key]!r} against {first.identity[key]!r})")
        if first.bot_names != other.bot_names:
            raise RunError(f"{other.path}: not the same bots as {first.path} ({', '.join(other.bot_names)} "
                             f"against {', '.join(first.bot_names)})")
        done = other.boards_done()
        if done != first_done:
            raise RunError(f"{other.path}: {done} boards finished against {first_done} in {first.path} "
                             "(finish both runs first)")


def measure_quality(folders: dict, control: str, traces: dict | None = None, alpha: float = ALPHA,
                    games_per_second: float | None = None, replicates: int = BOOTSTRAP_REPLICATES) -> dict:
    """Measure every dealer's run against the control's: the dict written as ``quality.json``.

    Parameters
    ----------
    folders : dict
        ``{dealer name: RunFolder}``, the control among them.
    control : str
        The control's key in ``folders``.
    traces : dict, optional
        ``{dealer name: {trace_weights, trace_key, trace_outcome, trace_count}}``
        of traced boards (:func:`autodup.tournament.spec.trace_boards`), for the
        coupling diagnostic.
    games_per_second : float, optional
        How fast games were played, for the seconds needed.
    """
    from concurrent.futures import ThreadPoolExecutor

    from ..engine.dealers import DEALERS

    if control not in folders:
        raise RunError(f"no run of the control ({control}) among the runs to measure: each dealer is compared "
                         "with it")
    check_same_boards(folders)
    # Runs are measured side by side: the kernels and Parquet release the interpreter.
    with ThreadPoolExecutor(max_workers=min(len(folders), cores())) as pool:
        futures = {name: pool.submit(measure_run, folder, replicates) for name, folder in folders.items()}
        measured = {name: future.result() for name, future in futures.items()}
    reference = measured[control]
    config = folders[control].config
    control_dealer = folders[control].identity["dealer"]
    controls = {folder.identity.get("design", "latin"): name for name, folder in folders.items()
                if folder.identity["dealer"] == control_dealer}
    for name, folder in folders.items():
        if folder.identity.get("design", "latin") not in controls:
            raise RunError(f"{folder.path}: no run of the control ({control_dealer}) with its design "
                             f"({folder.identity.get('design')}) among the runs to measure")
    closest = closest_pair(reference)
    order = [name for name in folders if name not in controls.values()] + list(controls.values())
    dealers = {}
    for name in order:
        run = measured[name]
        design = folders[name].identity.get("design", "latin")
        its_control = measured[controls[design]]
        dealer_name = folders[name].identity["dealer"]
        entry = {"dealer": dealer_name, "design": design, "events": folders[name].identity.get("events"),
                 "exact": DEALERS[dealer_name].exact if dealer_name in DEALERS else None}
        if name in controls.values():
            entry.update({"correct": None, "min_p_value": None, "deciding_observable": None, "tests": [],
                          "pairs": [], "variance_reduction": None, "variance_reduction_ci": [None, None],
                          "median_variance_reduction": None, "median_adjusted_variance_reduction": None})
            adjusted = variance_reduction(run, run, closest, ADJUSTED) if run.pairs else (None, [None, None])
            entry["adjusted_variance_reduction"], entry["adjusted_variance_reduction_ci"] = adjusted
            entry["adjusted_variance_reduction_why"] = (unfitted_note(run) if run.pairs and
                                                        not run.luck_is_fitted(closest, ADJUSTED) else None)
        else:
            entry.update(compare_with_control(run, its_control, alpha, games_per_second))
        entry["luck_terms"] = run.luck_terms()
        entry["luck_sources"] = luck_sources(run, closest) if run.pairs else {}
        entry["efficiency"] = {estimator: efficiency(run, its_control, reference, closest, estimator)
                               for estimator in (RAW, ADJUSTED)} if run.pairs else {}
        entry.update(run.cross_table())
        trace = (traces or {}).get(name)
        entry["coupling"] = (None if trace is None or name in controls.values() else coupling_from_trace(
            **trace, champion_tier=config.champion_tier, n_tiers=len(config.tier_cost)))
        frequency, se = run.offer_frequency()
        entry["offer_frequency"], entry["offer_frequency_se"] = frequency, se
        dealers[name] = entry
    closest = closest_pair(reference)
    identity = folders[control].identity
    return {"format": QUALITY_FORMAT, "config": config.name, "bots": list(reference.bots),
            "boards": reference.boards, "tables": reference.tables, "seed": reference.seed, "control": control,
            "alpha": alpha, "replicates": replicates, "champions": list(reference.champions),
            "closest_pair": [reference.bots[i] for i in reference.pairs[closest]] if reference.pairs else None,
            "games_per_second": games_per_second, "config_sha256": identity["config_sha256"],
            "dealers": dealers, "ladder": ladder(dealers, controls)}


def efficiency(run: RunMeasures, its_control: RunMeasures, plain: RunMeasures, pair: int, estimator: str):
    """Games a plain tournament (``plain``: the control, Latin square, raw placements) needs to tell pair
    ``pair`` apart, over the games ``run`` needs with ``estimator``: ``{"factor", "ci", "why"}``.

    Boards needed is :func:`~autodup.analysis.statistics.boards_needed` with the mean difference of the
    run's own design measured by its control (a design asks its own question:
    the Latin square's field is the other bots, the paired design's a fixed
    field); both designs play as many tables per board. The factor is
    therefore the variance reduction against ``plain`` times
    ``(mean of its control / mean of plain)^2``: 1 when the run's control is
    ``plain``, else a ratio of two measured means, bootstrapped with the
    variances (the same boards' weights in every run) and given only when
    both means are resolved (:data:`autodup.analysis.measures.RESOLVED_Z`);
    ``why`` says why a factor is None.
    """
    factor, interval = variance_reduction(run, plain, pair, estimator)
    if factor is None:
        return {"factor": None, "ci": [None, None],
                "why": unfitted_note(run) if not run.luck_is_fitted(pair, estimator) else "not measured"}
    if its_control is plain:
        return {"factor": factor, "ci": interval, "why": None}
    why = unresolved_note([its_control, plain], pair)
    if why is not None:
        return {"factor": None, "ci": [None, None], "why": why}
    target, reference = its_control.pair_statistics(RAW), plain.pair_statistics(RAW)
    scale = (target["mean"][pair] / reference["mean"][pair]) ** 2
    replicate_scale = (target["replicate_means"][:, pair] / reference["replicate_means"][:, pair]) ** 2
    ours = run.pair_statistics(estimator)
    with np.errstate(invalid="ignore", divide="ignore"):
        spread = replicate_scale * reference["replicates"][:, pair] / ours["replicates"][:, pair]
    return {"factor": float(scale * factor), "ci": percentile_interval(spread[np.isfinite(spread)]), "why": None}


LADDER = (("shared seeds", "latin", "position", RAW), ("+ events by who", "latin", "seat", RAW),
          ("+ paired seating", "paired", "seat", RAW), ("+ luck adjustment", "paired", "seat", ADJUSTED),
          ("shared seeds, events by who, luck adjustment (Latin square)", "latin", "seat", ADJUSTED))


def ladder(dealers: dict, controls: dict) -> dict:
    """Per dealer, the steps of :data:`LADDER` that its runs allow: variance reduction of the closest pair against
    the control of the same design (raw placements), and efficiency against the plain tournament."""
    result = {}
    for name, entry in dealers.items():
        for label, design, events, estimator in LADDER:
            if entry["design"] != design or entry["events"] != events:
                continue
            key = "adjusted_variance_reduction" if estimator == ADJUSTED else "variance_reduction"
            control = name in controls.values()
            if control and estimator == RAW:
                continue
            result.setdefault(entry["dealer"], []).append({
                "step": f"luck adjustment alone ({seating_name(design)})" if control else label, "run": name, "design": design,
                "events": events, "estimator": estimator, "variance_reduction": entry[key],
                "variance_reduction_ci": entry[f"{key}_ci"],
                "variance_reduction_why": entry.get(f"{key}_why"),
                "efficiency": entry["efficiency"][estimator]["factor"],
                "efficiency_ci": entry["efficiency"][estimator]["ci"],
                "efficiency_why": entry["efficiency"][estimator]["why"]})
    order = {label: k for k, (label, *_rest) in enumerate(LADDER)}
    for steps in result.values():
        steps.sort(key=lambda step: order.get(step["step"], -1))
    return result
