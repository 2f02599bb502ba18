"""``autodup ab`` and ``autodup sweep``: a balance change played on the same boards, and its effect.

Both configurations play the same boards with the same seeds, seating,
dealer and bots (common random numbers), so that a bot's per-board change
of placement holds the change's effect and little luck
(:mod:`autodup.analysis.balance` compares them). An ab folder ``DIR`` holds:

``runs/base/``, ``runs/variant/``
    Run folders (``autodup run`` format: resumable, readable on their own).
``ab.json``, ``report.html``, ``effects.png``
    The comparison, the report and the plot of the effects with their intervals.

A sweep folder holds ``runs/base/`` and one run per value
(``runs/value-<i>/``), ``sweep.json``, ``report.html`` and ``sweep.png``.

With ``until_ci`` the runs grow chunk by chunk, after a first step of
:data:`FIRST_STEP_BOARDS` boards, until every bot's 95% interval of its change
of mean placement is narrower than ``±until_ci`` (or ``boards``, the cap, is
reached); with runs corrected by a value, the interval of its change of
corrected mean placement, a valid and usually narrower interval of the same
change. Each step's size depends only on the comparison at the previous
step, and each comparison only on the boards it covers, so the result is the
same whatever the workers, the backend, or an interruption.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np

from ..errors import counted, print_warning
from ..files import write_json_atomically
from ..game.boards import DEFAULT_DESIGN
from ..game.rules import DEFAULT_EVENTS
from ..tournament.spec import CHUNK_BOARDS
from .balance import BOOTSTRAP_REPLICATES
from .measures import events_name, seating_name

__all__ = ["AB_FILE", "SWEEP_FILE", "FIRST_STEP_BOARDS", "DEFAULT_UNTIL_CI_BOARDS", "GROWTH", "MAX_STEP_FACTOR",
           "default_ab_out", "run_folders", "play", "widest_interval", "next_boards", "play_and_compare", "setup_of",
           "ab_result", "write_json", "excludes_zero", "clearest_effects", "moved_after_holm", "chance_note",
           "half_width_text", "name_width", "format_ab",
           "no_placement_change", "other_seating"]

AB_FILE = "ab.json"
SWEEP_FILE = "sweep.json"
FIRST_STEP_BOARDS = 4 * CHUNK_BOARDS
DEFAULT_UNTIL_CI_BOARDS = 20_000   # the cap of --until-ci without --boards
GROWTH = 1.2                       # each step aims this much beyond the boards the widths predict
MAX_STEP_FACTOR = 4                # and at most this many times the boards compared so far


def default_ab_out(kind: str, config_name: str, variants: list, boards: int, seed: int, spec) -> Path:
    """``ab/<config>-<hash of the variants' texts>-<boards>b-seed<seed>-<hash of the bots>`` (``sweep/`` likewise),
    followed by ``-value<hash of the value file>`` when the runs are corrected by one."""
    from ..tournament.spec import folder_name

    lineup = hashlib.sha256(json.dumps(spec.identity()["bots"]).encode()).hexdigest()[:10]
    change = hashlib.sha256("\0".join(v.text for v in variants).encode("utf-8", "surrogatepass")).hexdigest()[:10]
    # The value is part of the runs' identity: without it in the name, --value none after a corrected ab of the
    # same change would find that ab's runs and refuse them.
    value = f"-value{spec.value_sha256[:6]}" if spec.value_sha256 else ""
    return Path(kind) / f"{folder_name(config_name)}-{change}-{boards}b-seed{seed}-{lineup}{value}"


def run_folders(out: Path, names) -> dict:
    return {name: Path(out) / "runs" / name for name in names}


def play(specs: dict, out: Path, workers: int, backend: str, ray_address, quiet: bool, game_timeout: float,
         first_boards=None, progress=None, warn=None) -> None:
    """Play (or grow, or reuse) each run of ``specs`` (``{name: RunSpec}``) under ``out/runs/``."""
    from .summary import RUN_AGAIN, play_and_summarize, warn_if_misbehaving

    for name, folder in run_folders(out, specs).items():
        _, summary = play_and_summarize(specs[name], folder, workers, backend, ray_address, resume=folder.exists(),
                                    quiet=quiet, manifest_extra={"ab": str(out)}, game_timeout=game_timeout,
                                    warn=warn, note=lambda line: None, first_boards=first_boards,
                                    progress=progress, again=RUN_AGAIN, refused_as=("runs", out, "out"))
        warn_if_misbehaving(summary, f"{folder}: ", warn or print_warning)


def widest_interval(comparisons: list) -> tuple:
    """``(half-width, bot)``: the widest 95% interval of a bot's change of mean placement, over ``comparisons``.

    When a comparison has the change of corrected mean placement (runs corrected by a value), its interval is
    the one taken: an interval of the same change (the corrections have mean zero), valid, and narrower as
    far as the value removes luck.
    """
    from .balance import CORRECTED

    widest, who = 0.0, None
    for comparison in comparisons:
        for bot, entry in comparison["bots"].items():
            low, high = entry.get(CORRECTED, entry["mean_placement"])["ci"]
            half = (high - low) / 2 if low is not None and high is not None else float("inf")
            if half > widest or who is None:
                widest, who = half, bot
    return widest, who


def next_boards(boards: int, widest: float, target: float, cap: int) -> int:
    """The boards of the next step: what the widest interval predicts (half-widths shrink as 1/sqrt(boards)),
    :data:`GROWTH` beyond it, a chunk at least, at most :data:`MAX_STEP_FACTOR` times ``boards``, whole chunks."""
    wanted = boards * (widest / target) ** 2 * GROWTH if np.isfinite(widest) else boards * MAX_STEP_FACTOR
    wanted = min(max(wanted, boards + CHUNK_BOARDS), boards * MAX_STEP_FACTOR, cap)
    return int(min(-(-int(np.ceil(wanted)) // CHUNK_BOARDS) * CHUNK_BOARDS, cap))


def play_and_compare(specs: dict, pairs: list, out: Path, workers: int, backend: str, ray_address, quiet: bool,
                     game_timeout: float, until_ci=None, warn=None) -> list:
    """Play the runs and compare each ``(base name, variant name)`` of ``pairs``; returns the comparisons.

    Without ``until_ci``, every board of the specs is played. With it, the
    runs grow step by step (see the module docstring) and the comparisons
    cover the boards of the last step.
    """
    from tqdm.auto import tqdm

    from ..tournament.results import RunFolder
    from .balance import compare_variants

    cap = next(iter(specs.values())).boards
    folders = run_folders(out, specs)

    def compare(first_boards, replicates):
        return [compare_variants(RunFolder(folders[a]), RunFolder(folders[b]), first_boards, replicates)
                for a, b in pairs]

    if until_ci is None:
        play(specs, out, workers, backend, ray_address, quiet, game_timeout, warn=warn)
        return compare(None, BOOTSTRAP_REPLICATES)
    boards = min(FIRST_STEP_BOARDS, cap)
    with tqdm(total=boards * len(specs), unit="board", disable=True if quiet else None, file=sys.stderr,
              dynamic_ncols=True, desc=f"CI to ±{until_ci:g}") as bar:
        while True:
            play(specs, out, workers, backend, ray_address, True, game_timeout, first_boards=boards, progress=bar,
                 warn=warn)
            widest, who = widest_interval(compare(boards, 0))
            bar.set_postfix_str(f"{boards} boards: widest ±{widest:.3f} ({who})", refresh=True)
            if widest <= until_ci or boards >= cap:
                break
            boards = next_boards(boards, widest, until_ci, cap)
            bar.total = boards * len(specs)
            bar.refresh()
    if widest > until_ci:
        (warn or print_warning)(f"--until-ci: stopped at the cap of {cap:,} boards with {who}'s interval ±{widest:.3f}"
                                f", wider than ±{until_ci:g} (a larger --boards goes further, in another --out: "
                                "the cap is part of the runs, which start again from the first board)")
    return compare(boards, BOOTSTRAP_REPLICATES)


def setup_of(spec, until_ci) -> dict:
    """What an ab or sweep result records of how its runs were played."""
    return {"config": spec.config_source, "config_name": spec.config_name, "lineup": list(spec.bot_names),
            "dealer": spec.dealer, "design": spec.design, "events": spec.events, "seed": spec.seed,
            "tables": spec.tables, "boards_cap": spec.boards if until_ci is not None else None,
            "until_ci": until_ci, "value": spec.value_source or None}


def ab_result(comparison: dict, changes: list, setup: dict, base_source: str, variant_source: str) -> dict:
    """``ab.json``: the comparison (:func:`autodup.analysis.balance.compare_variants`) with what was changed and how it was
    played; each bot also carries ``delta_mean_placement`` and its ``ci`` at the top of its entry, and, when the
    runs are corrected by a value, ``delta_corrected_placement`` and its ``corrected_ci`` (absent otherwise)."""
    from .balance import CORRECTED

    def top(entry):
        corrected = ({"delta_corrected_placement": entry[CORRECTED]["change"], "corrected_ci": entry[CORRECTED]["ci"]}
                     if CORRECTED in entry else {})
        return {"delta_mean_placement": entry["mean_placement"]["change"], "ci": entry["mean_placement"]["ci"],
                **corrected}

    bots = {name: {**top(entry), **entry} for name, entry in comparison["bots"].items()}
    return {**setup, "base": base_source, "variant": variant_source,
            "changes": [{"path": path, "base": old, "variant": new} for path, old, new in changes],
            **comparison, "bots": bots}


def write_json(path: Path, data: dict) -> None:
    from ..files import json_safe

    write_json_atomically(path, json_safe(data))


# --------------------------------------------------------------------------
# the terminal
# --------------------------------------------------------------------------

def _signed(value, digits=3) -> str:
    return "n/a" if value is None else f"{value:+.{digits}f}"


def _interval(ci, digits=3) -> str:
    low, high = ci
    return "n/a" if low is None or high is None else f"[{low:+.{digits}f}, {high:+.{digits}f}]"


def _factor(value) -> str:
    return "n/a" if value is None else f"{value:.1f}x"


def excludes_zero(entry: dict) -> bool:
    low, high = entry["ci"]
    return low is not None and high is not None and (low > 0 or high < 0)


def clearest_effects(units: dict, statistic: str, count: int) -> list:
    """The ``count`` names whose change of ``statistic`` is clearest: largest against its interval's half-width,
    among those whose interval excludes 0 (not the largest changes: a large change of a rare unit can be noise):
    ``[(name, entry)]``."""
    ranked = []
    for name, entry in units.items():
        e = entry[statistic]
        if excludes_zero(e):
            half = (e["ci"][1] - e["ci"][0]) / 2
            ranked.append((abs(e["change"]) / half if half > 0 else float("inf"), name, e))
    ranked.sort(key=lambda item: (-item[0], item[1]))
    return [(name, e) for _, name, e in ranked[:count]]


def moved_after_holm(families: list, statistic: str, boards: int) -> list:
    """For each dict of ``families`` (``{name: entry}``: the bots of an A/B, or of each value of a sweep), the names
    whose change of ``statistic`` is still significant at 5% after Holm's adjustment over every entry of every
    family together: what may be said of them all at once. A 95% interval per comparison excludes 0 for about
    1 in 20 of the changes that are really 0 (an exact null with 8 bots flagged one in 28% of runs)."""
    from .statistics import CONFIDENCE, holm, t_interval_p_value

    keys = [(k, name) for k, family in enumerate(families) for name in family]
    p_values = [t_interval_p_value(families[k][name][statistic]["change"], families[k][name][statistic]["ci"],
                                   boards - 1) for k, name in keys]
    kept = [set() for _ in families]
    for (k, name), p in zip(keys, holm(p_values) if keys else []):
        if p < 1.0 - CONFIDENCE:
            kept[k].add(name)
    return kept


def chance_note(flagged: int, compared: int) -> str:
    """``3 of 58 intervals exclude 0; about 2.9 would by chance alone``: per-comparison intervals, counted."""
    return f"{flagged} of {compared} intervals exclude 0; about {0.05 * compared:.1f} would by chance alone"


def name_width(names) -> int:
    """The width of a table's name column: 12, or the longest name (an agent's class name can be longer), so that
    the columns after it stay aligned."""
    return max([12, *(len(str(name)) for name in names)])


def _bot_lines(bots: dict, corrected: bool) -> list:
    """The header and one line per bot. Corrected by a value, each line shows the raw change and the corrected
    one side by side (the top-4 change shortened to ``change ±half-width``, to stay under 120 characters) and
    ``*`` marks a corrected interval that excludes 0; otherwise a raw interval."""
    from .balance import CORRECTED

    width = name_width(bots)
    if not corrected:
        lines = [f"{'bot':<{width}} {'mean placement':>17} {'change':>8} {'95% CI':>20} {'top-4 change':>13} "
                 f"{'95% CI':>20} {'var. red.':>9}"]
        for name, entry in bots.items():
            m, t = entry["mean_placement"], entry["top4_rate"]
            mark = " *" if excludes_zero(m) else ""
            lines.append(f"{name:<{width}} {_pair(m):>17} {_signed(m['change']):>8} {_interval(m['ci']):>20} "
                         f"{_signed(t['change']):>13} {_interval(t['ci']):>20} {_factor(m['variance_reduction']):>9}"
                         f"{mark}")
        return lines
    lines = [f"{'bot':<{width}} {'mean placement':>14} {'change':>7} {'95% CI':>16} {'var. red.':>9} {'corrected':>9} "
             f"{'95% CI':>16} {'var. red.':>9} {'top-4 change':>13}"]
    for name, entry in bots.items():
        m, c, t = entry["mean_placement"], entry[CORRECTED], entry["top4_rate"]
        mark = " *" if excludes_zero(c) else ""
        top4 = "n/a" if t["change"] is None else f"{_signed(t['change'])} ±{half_width_text(t['ci'])}"
        lines.append(f"{name:<{width}} {_pair(m):>14} {_signed(m['change']):>7} {_interval(m['ci']):>16} "
                     f"{_factor(m['variance_reduction']):>9} {_signed(c['change']):>9} {_interval(c['ci']):>16} "
                     f"{_factor(c['variance_reduction']):>9} {top4:>13}{mark}")
    return lines


def half_width_text(ci) -> str:
    """The half-width of a 95% interval ``[low, high]`` to 3 decimals, ``n/a`` when either end is not measured."""
    return "n/a" if ci[0] is None or ci[1] is None else f"{(ci[1] - ci[0]) / 2:.3f}"


def format_ab(result: dict, out: Path | None = None) -> str:
    """The terminal table of an ab result: what changed, each bot's effect, the largest unit effects.

    A result corrected by a value (``corrected_variance_reduction`` present) shows each bot's corrected change
    beside the raw one, and its headline below the raw one.
    """
    corrected = "corrected_variance_reduction" in result
    lines = [f"{result['config_name']}: {counted(result['boards'], 'board')} x {counted(result['tables'], 'table')}, "
             f"dealer {result['dealer']}{other_seating(result)}, seed {result['seed']}, the same boards under both "
             "configurations"]
    for change in result["changes"]:
        lines.append(f"  {change['path']}: {_shown(change['base'])} -> {_shown(change['variant'])}")
    lines += _bot_lines(result["bots"], corrected)
    statistic = "corrected_placement" if corrected else "mean_placement"
    if len(result["bots"]) > 1 and result.get("variance_reduction") is not None:
        bots = result["bots"]
        moved = moved_after_holm([bots], statistic, result["boards"])[0]
        flagged = len(clearest_effects(bots, statistic, len(bots)))
        lines.append(f"moved, the {len(bots)} bots' intervals taken together (Holm): "
                     + (", ".join(name for name in bots if name in moved) or "none")
                     + f" ({chance_note(flagged, len(bots))})")
    for kind in ("champions", "traits"):
        if not result[kind]:
            lines.append(f"{kind}: none in common between the two configurations, so none is compared")
        for statistic, label in (("play_rate", "play rate"), ("offer_rate", "offers per game")):
            effects = clearest_effects(result[kind], statistic, len(result[kind]))
            if effects:
                shown = ", ".join(f"{name} {_signed(e['change'])} {_interval(e['ci'])}" for name, e in effects[:5])
                lines.append(f"{kind}, {label} (clearest changes; {chance_note(len(effects), len(result[kind]))}): "
                             f"{shown}")
    if result.get("variance_reduction") is None:
        lines.append(f"variance reduction: n/a ({no_placement_change(result)})")
    else:
        marks = "*: a corrected CI excludes 0" if corrected else "* marks an interval that excludes 0"
        lines.append(f"variance reduction against independent seeds: {_headline(result, '')} (median over bots; "
                     f"{marks})")
        if corrected and result["corrected_variance_reduction"] is not None:
            value = f" (value: {Path(result['value']).name})" if result.get("value") else ""
            lines.append(f"corrected by the value: {_headline(result, 'corrected_')} against independent seeds "
                         f"uncorrected{value}")
    if out is not None:
        lines.append(f"{out / AB_FILE}; report: {out / 'report.html'}")
    return "\n".join(lines)


def _headline(result: dict, prefix: str) -> str:
    """``6.8x [6.1, 7.6]``: the median variance reduction (``prefix`` ``corrected_`` or ``""``) and its interval."""
    interval = result.get(f"{prefix}variance_reduction_ci") or [None, None]
    ci = "" if interval[0] is None else f" [{interval[0]:.1f}, {interval[1]:.1f}]"
    return f"{result[f'{prefix}variance_reduction']:.1f}x{ci}"


def _pair(entry) -> str:
    if entry["base"] is None or entry["variant"] is None:
        return "n/a"
    return f"{entry['base']:.3f} -> {entry['variant']:.3f}"


def _shown(value) -> str:
    from ..game.variants import flow_text

    return "(absent)" if value is None else flow_text(value)


def no_placement_change(result: dict) -> str:
    """Why an A/B has no variance reduction (``result["variance_reduction"]`` None): no bot's placement changed on
    any board."""
    if len(result["bots"]) == 1:  # the same bot at every seat: its mean placement is the middle place, always
        return ("one bot at every seat: its mean placement is the same in every game, so placements show no change; "
                "the champions' and traits' changes still do")
    return "no bot's placement changed on any board: every change of placement is exactly 0"


def other_seating(setup: dict) -> str:
    """``", paired seating, events by position"``: how the tables were seated and their events addressed, where not
    as ``autodup run`` does by default (else empty), for a header."""
    return "".join(f", {name(setup[key])}" for key, name, default in (("design", seating_name, DEFAULT_DESIGN),
                                                                       ("events", events_name, DEFAULT_EVENTS))
                   if setup.get(key, default) != default)
