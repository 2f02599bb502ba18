"""The quality report's plots, drawn from a quality dict (``quality.json``), each legible at the size it is shown.

Rows, not crowded x labels: the ladder is horizontal bars with a row per run,
raw beside luck-corrected. Lines get colours of their own: a plot of series per
dealer shows each dealer's default run (the ladder's variants are in the
tables), so no two series share a colour.
"""

from __future__ import annotations

import math

from .measures import events_name, seating_name
from .pages import format_number, interval_bounds, new_figure, number, show_no_data
from .quality import LADDER

__all__ = ["PLOTS", "control_name", "measures_of", "dealer_names", "default_runs", "pair_label", "is_control",
           "run_label", "ladder_rows", "FIGURES"]

PLOTS = ("ladder.png", "correctness.png", "agreement_by_round.png", "offer_frequency.png", "boards_needed.png")

RAW_COLOUR, ADJUSTED_COLOUR = "#8c8c8c", "#1f5fbf"


def pair_label(bots) -> str:
    """A pair of bots as ``"a vs b"``."""
    return " vs ".join(str(bot) for bot in bots or ())


def control_name(quality: dict) -> str:
    """The control run's name (``independent`` unless the dict says otherwise)."""
    return quality.get("control") or "independent"


def measures_of(quality: dict, name: str) -> dict:
    """Run ``name``'s measures, empty when it has none."""
    return (quality.get("dealers") or {}).get(name) or {}


def dealer_names(quality: dict, with_control=True) -> list:
    """The measured runs in the dict's order, the control last (or left out)."""
    control = control_name(quality)
    names = [name for name in (quality.get("dealers") or {}) if name != control]
    if with_control and control in (quality.get("dealers") or {}):
        names.append(control)
    return names


def default_runs(quality: dict, with_control=True) -> list:
    """The runs with the default design and events (Latin square, events by seat): one per dealer."""
    return [name for name in dealer_names(quality, with_control)
            if measures_of(quality, name).get("design", "latin") == "latin"
            and measures_of(quality, name).get("events", "seat") in ("seat", None)]


def is_control(quality: dict, name: str) -> bool:
    """Whether run ``name`` is a run of the control's dealer (under any seating)."""
    control = control_name(quality)
    return (measures_of(quality, name).get("dealer", name)
            == measures_of(quality, control).get("dealer", control))


def run_label(quality: dict, name: str) -> str:
    """A run as a reader names it: ``haystack (Latin square, events by who)``, a control by its seating only."""
    entry = measures_of(quality, name)
    dealer = entry.get("dealer", name)
    design = seating_name(entry.get("design") or "latin")
    if is_control(quality, name):
        return f"{dealer} ({design})"
    return f"{dealer} ({design}, {events_name(entry.get('events') or 'seat')})"


def ladder_rows(quality: dict) -> list:
    """The runs in ladder order (per dealer: events by position, by who, paired seating; the controls last)
    with their row labels (:func:`run_label`)."""
    # A dealer's runs in the order of the ladder's steps (the raw step each run measures).
    order = list(dict.fromkeys((design, events) for _, design, events, _ in LADDER))
    rows = []
    for name in dealer_names(quality):
        entry = measures_of(quality, name)
        key = (entry.get("design") or "latin", entry.get("events") or "seat")
        # A row is a run (its raw and its luck-corrected figure), named by its seating and events, not by a
        # ladder step: the corrected bar of the events-by-position run is no step of the ladder.
        label = run_label(quality, name)
        rows.append((is_control(quality, name), entry.get("dealer", name), order.index(key) if key in order else 9,
                     label, name))
    dealers = list(dict.fromkeys(dealer for _, dealer, *_ in rows))
    rows.sort(key=lambda row: (row[0], dealers.index(row[1]), row[2]))
    return [(label, name) for *_, label, name in rows]


def series_style(index: int) -> dict:
    """Distinct colours for up to 10 series, then the same colours dashed."""
    return {"color": f"C{index % 10}", "linestyle": "-" if index < 10 else "--"}


def ladder_figure(quality: dict):
    """A row per run, in ladder order: its variance reduction on the closest pair against independent tables of
    its seating, raw (grey: the step the run measures) beside luck-corrected (blue: that step + luck adjustment),
    with 95% intervals; a figure not given at this size says n/a."""
    from matplotlib.ticker import FuncFormatter, NullLocator

    rows = ladder_rows(quality)
    figure, (axis,) = new_figure(9, 0.42 * max(len(rows), 2) + 1.4)
    values = [number(measures_of(quality, name).get(key)) for _, name in rows
              for key in ("variance_reduction", "adjusted_variance_reduction")]
    if not any(value is not None for value in values):
        show_no_data(axis, "no variance reduction was measured")
        return figure
    for position, (label, name) in enumerate(rows):
        entry = measures_of(quality, name)
        for offset, key, colour, meaning in ((-0.18, "variance_reduction", RAW_COLOUR, "raw placements"),
                                             (0.18, "adjusted_variance_reduction", ADJUSTED_COLOUR,
                                              "luck-corrected")):
            if is_control(quality, name) and colour == RAW_COLOUR:
                continue  # the control against itself: 1 by definition
            y, value = position + offset, number(entry.get(key))
            if value is None:
                axis.text(1.0, y, "  n/a", va="center", fontsize="small", color=colour)
                continue
            low, high = interval_bounds(entry.get(f"{key}_ci"))
            error = None if low is None else [[max(value - low, 0.0)], [max(high - value, 0.0)]]
            axis.barh([y], [value - 1.0], left=1.0, height=0.34, color=colour, label=meaning)
            axis.errorbar([value], [y], xerr=error, fmt="none", ecolor="black", capsize=3, linewidth=1)
    handles, labels = axis.get_legend_handles_labels()
    unique = dict(zip(labels, handles))
    axis.legend(unique.values(), unique.keys(), fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    axis.axvline(1.0, color="black", linewidth=1)
    axis.set_yticks(range(len(rows)), [label for label, _ in rows])
    axis.set_ylim(len(rows) - 0.35, -0.65)  # room for the last row's n/a above the axis labels
    axis.set_xscale("log")
    # Factors read as "2x", "3x": plain ticks on the log axis, none of matplotlib's 2 x 10^0.
    low, high = axis.get_xlim()
    candidates = [0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64, 128, 256]
    ticks = [tick for tick in candidates if low <= tick <= high]
    if len(ticks) > 8:
        ticks = ticks[::2]
    if len(ticks) >= 2:
        axis.set_xticks(ticks)
        axis.xaxis.set_minor_locator(NullLocator())
    axis.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:g}x"))
    axis.set_xlabel("variance reduction on the closest pair (x fewer boards than independent tables)")
    axis.set_title(f"luck removed, closest pair {pair_label(quality.get('closest_pair'))}")
    axis.grid(axis="x", which="both", alpha=0.3)
    return figure


def agreement_by_round_figure(quality: dict):
    """Slot agreement and whole-shop identical by round, one line per dealer's default run, the control dashed."""
    figure, axes = new_figure(10, 3.6, 1, 2)
    names = default_runs(quality)
    for axis, measure in zip(axes, ("slot_agreement", "whole_shop_identical")):
        drawn = False
        for index, name in enumerate(names):
            by_round = measures_of(quality, name).get("by_round") or {}
            rounds = as_floats(by_round.get("round"))
            values = as_floats(by_round.get(measure), len(rounds))
            if rounds and any(not math.isnan(value) for value in values):
                style = ({"color": "black", "linestyle": "--"} if name == control_name(quality)
                         else series_style(index))
                axis.plot(rounds, values, marker=".", label=name, **style)
                drawn = True
        if not drawn:
            show_no_data(axis, "no by-round measures")
            continue
        axis.set(xlabel="round", ylabel=measure.replace("_", " "), title=measure.replace("_", " ") + " by round")
        axis.grid(alpha=0.3)
        axis.legend(fontsize="small")
    return figure


def as_floats(values, length=None):
    """A list of floats with NaN for nulls, padded with NaN (or cut) to ``length`` when given."""
    floats = [math.nan if number(value) is None else number(value) for value in (values or [])]
    if length is not None:
        floats = (floats + [math.nan] * length)[:length]
    return floats


def boards_needed_figure(quality: dict):
    """Boards needed per pair of bots (log axis): each dealer's default run beside the independent control, pairs
    whose difference is resolved only, one row per pair."""
    names = default_runs(quality, with_control=False)
    labels, series, control = [], {name: {} for name in names}, {}
    for name in names:
        for pair in measures_of(quality, name).get("pairs") or []:
            label = pair_label(pair.get("bots"))
            value, independent = number(pair.get("boards_needed")), number(pair.get("boards_needed_control"))
            if value is None and independent is None:
                continue
            if label not in labels:
                labels.append(label)
            series[name][label] = value
            control.setdefault(label, independent)
    figure, (axis,) = new_figure(9, 0.3 * max(len(labels), 3) + 1.4)
    if not labels:
        show_no_data(axis, "no pair's difference is resolved at this size")
        return figure
    everything = {**series, control_name(quality): control}
    for index, (name, values) in enumerate(everything.items()):
        points = [(values.get(label), row) for row, label in enumerate(labels)
                  if values.get(label) is not None and values.get(label) > 0]
        if points:
            style = series_style(index)
            axis.plot([x for x, _ in points], [y for _, y in points], linestyle="none",
                      marker="s" if name == control_name(quality) else "o",
                      color="black" if name == control_name(quality) else style["color"], label=name)
    axis.set_xscale("log")
    axis.set_yticks(range(len(labels)), labels, fontsize="small")
    axis.invert_yaxis()
    axis.set(xlabel="boards needed to tell the pair apart at 95% with 80% power", title="boards needed per pair")
    axis.grid(axis="x", which="both", alpha=0.3)
    if axis.get_legend_handles_labels()[0]:  # none when every resolved pair's figure is 0 (matplotlib would warn)
        axis.legend(fontsize="small", loc="lower right")
    return figure


def correctness_grid(quality: dict) -> tuple:
    """``(runs, observables, Holm p-values by [run][observable], None where not tested)``: the runs of duplicate
    dealers (the control's runs have nothing to be tested against)."""
    runs, observables = [name for name in dealer_names(quality) if not is_control(quality, name)], []
    for name in runs:
        for test in measures_of(quality, name).get("tests") or []:
            if test.get("observable") not in observables:
                observables.append(test.get("observable"))
    grid = []
    for name in runs:
        by_observable = {test.get("observable"): number(test.get("p_holm"))
                         for test in measures_of(quality, name).get("tests") or []}
        grid.append([by_observable.get(observable) for observable in observables])
    return runs, observables, grid


def correctness_figure(quality: dict):
    """The correctness tests as a heat map of -log10 of the Holm p-value, a row per run, a column per observable."""
    import numpy as np
    from matplotlib import colormaps

    runs, observables, grid = correctness_grid(quality)
    figure, (axis,) = new_figure(max(7.0, 0.75 * len(observables) + 4), 0.32 * max(len(runs), 3) + 2.2)
    if not runs or not observables:
        show_no_data(axis, "no correctness tests")
        return figure
    # A p-value of 0 is as far from the null as the axis goes; the scale tops out at alpha squared.
    threshold = -math.log10(number(quality.get("alpha")) or 0.001)
    scores = np.ma.masked_invalid([[math.nan if p is None else -math.log10(max(p, 1e-300)) for p in row]
                                   for row in grid])
    image = axis.imshow(scores, cmap=colormaps["Reds"].with_extremes(bad="lightgrey"), vmin=0.0,
                        vmax=2 * threshold, aspect="auto")
    if len(observables) <= 16:
        for row, values in enumerate(grid):
            for column, p in enumerate(values):
                if p is not None:
                    axis.text(column, row, format_number(p, "p"), ha="center", va="center", fontsize="x-small",
                              color="white" if -math.log10(max(p, 1e-300)) > threshold else "black")
    verdicts = {True: "correct", False: "WRONG", None: "control"}
    axis.set_yticks(range(len(runs)), [f"{name} ({verdicts.get(measures_of(quality, name).get('correct'))})"
                                       for name in runs], fontsize="small")
    # Upright labels' boxes would overlap once an observable's name is wider than its column.
    axis.set_xticks(range(len(observables)), [str(observable) for observable in observables], rotation=90,
                    fontsize="small")
    axis.set_title(f"correctness: Holm-adjusted p-values (wrong below alpha = {quality.get('alpha')})")
    figure.colorbar(image, ax=axis, label="-log10 Holm p")
    return figure


def offer_frequency_figure(quality: dict):
    """Each dealer's offer share per champion minus the control's, with whiskers of +/- 2 standard errors of that
    difference (each dealer's default run; champions in rows when there are many).

    A dealer's run and the control's play other tables, so the difference's standard error is
    ``sqrt(se_dealer^2 + se_control^2)``: a dealer whose tables share seeds has the larger of the two (its
    tables' offers move together), and whiskers of the control's alone would leave about a third of an exact
    dealer's points outside them."""
    champions = [str(champion) for champion in quality.get("champions") or []]
    control = measures_of(quality, control_name(quality))
    expected = as_floats(control.get("offer_frequency"), len(champions))
    control_se = as_floats(control.get("offer_frequency_se"), len(champions))
    figure, (axis,) = new_figure(max(8.0, 0.17 * len(champions) + 2.5), 4.2)
    if not champions or all(math.isnan(value) for value in expected):
        show_no_data(axis, "no control offer frequencies")
        return figure
    names = default_runs(quality, with_control=False)
    if not names:
        show_no_data(axis, "no dealer's run to compare with the control")
        return figure
    positions = list(range(len(champions)))
    for index, name in enumerate(names):
        measures = measures_of(quality, name)
        observed = as_floats(measures.get("offer_frequency"), len(champions))
        own_se = as_floats(measures.get("offer_frequency_se"), len(champions))
        offset = (index - (len(names) - 1) / 2) * 0.6 / max(len(names), 1)
        error = [2 * math.hypot(a, b) for a, b in zip(own_se, control_se)]
        axis.errorbar([position + offset for position in positions],
                      [value - reference for value, reference in zip(observed, expected)],
                      yerr=[0.0 if math.isnan(e) else e for e in error], linestyle="none", marker="o", markersize=3,
                      elinewidth=0.8, capsize=1.5, color=series_style(index)["color"], label=name)
    axis.axhline(0.0, color="black", linewidth=0.8)
    axis.set_xticks(positions, champions, rotation=90, fontsize="x-small" if len(champions) > 30 else "small")
    axis.set_xlim(-1, len(champions))
    axis.set(ylabel="offer share minus the control's",
             title="offer frequency per champion against the control (\u00b1 2 SE of the difference)")
    axis.grid(axis="y", alpha=0.3)
    axis.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return figure


FIGURES = dict(zip(PLOTS, (ladder_figure, correctness_figure, agreement_by_round_figure, offer_frequency_figure,
                          boards_needed_figure)))
