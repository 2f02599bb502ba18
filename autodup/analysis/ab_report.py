"""The plots and HTML page of ``autodup ab`` and ``autodup sweep`` (in the style of the quality report).

Runs corrected by a value show each bot's change of corrected mean placement
beside the raw one; the decision then rests on the corrected intervals (valid
intervals of the same change, narrower as far as the value removes luck).
"""

from __future__ import annotations

import html
import io
import math
from pathlib import Path

from ..errors import counted
from ..files import write_bytes_atomically
from .ab import chance_note, clearest_effects, excludes_zero, moved_after_holm, no_placement_change
from .balance import CORRECTED, STATISTIC_MEANINGS, UNIT_STATISTICS
from .pages import details, embedded_image, html_page, html_table, new_figure

__all__ = ["EFFECTS_PLOT", "SWEEP_PLOT", "UNITS_PLOTTED", "effects_figure", "sweep_figure", "decision_section",
           "ab_html",
           "write_ab_report", "sweep_decision_section", "sweep_html", "write_sweep_report"]

EFFECTS_PLOT = "effects.png"
SWEEP_PLOT = "sweep.png"
UNITS_PLOTTED = 15


def _nan(value):
    return math.nan if value is None else value


def _error_bars(entries: list) -> tuple:
    """``(changes, [lower errors, upper errors])`` of ``{"change", "ci"}`` entries (NaN where not measured)."""
    changes = [_nan(e["change"]) for e in entries]
    lower = [_nan(e["change"]) - _nan(e["ci"][0]) for e in entries]
    upper = [_nan(e["ci"][1]) - _nan(e["change"]) for e in entries]
    return changes, [lower, upper]


def _corrected(bots: dict) -> bool:
    """Whether the bots' entries hold the change of corrected mean placement (runs corrected by a value)."""
    return any(CORRECTED in entry for entry in bots.values())


def _placement(bots: dict) -> str:
    """The statistic a decision about the bots' placements rests on: corrected when the runs are."""
    return CORRECTED if _corrected(bots) else "mean_placement"


def _effects_panel(axis, names: list, entries: list, label: str, corrected: list | None = None) -> None:
    """Each entry's change with its interval (circles); ``corrected`` entries just below each (squares)."""
    positions = list(range(len(names)))
    shift = 0.3 if corrected else 0.0
    for marker, offset, series in (("o", -shift / 2, entries), ("s", shift / 2, corrected or [])):
        changes, errors = _error_bars(series)
        colours = ["C3" if excludes_zero(e) else "C0" for e in series]
        for y, x, low, high, colour in zip(positions, changes, errors[0], errors[1], colours):
            axis.errorbar([x], [y + offset], xerr=[[low], [high]], fmt=marker, color=colour, capsize=3)
    if corrected:
        from matplotlib.lines import Line2D

        # Handles of their own: the legend names the markers, whatever colour each point has.
        axis.legend(handles=[Line2D([], [], marker="o", linestyle="none", color="grey", label="raw"),
                             Line2D([], [], marker="s", linestyle="none", color="grey",
                                    label="corrected by the value")], fontsize=7)
    axis.axvline(0.0, color="grey", linewidth=0.8)
    axis.set_yticks(positions)
    axis.set_yticklabels(names)
    axis.invert_yaxis()
    axis.set_xlabel(label)


def effects_figure(result: dict):
    """Each bot's change of mean placement (and of corrected mean placement, corrected by a value), and the
    champions' largest changes of play rate, with 95% CIs."""
    figure, (bots_axis, units_axis) = new_figure(11, 4.5, 1, 2)
    names = list(result["bots"])
    corrected = [result["bots"][n][CORRECTED] for n in names] if _corrected(result["bots"]) else None
    _effects_panel(bots_axis, names, [result["bots"][n]["mean_placement"] for n in names],
                   "change of mean placement (variant - base; lower is better)", corrected)
    bots_axis.set_title("bots (red: the 95% CI excludes 0)")
    ranked = sorted(result["champions"].items(),
                    key=lambda item: -abs(item[1]["play_rate"]["change"] or 0.0))[:UNITS_PLOTTED]
    if ranked:
        _effects_panel(units_axis, [n for n, _ in ranked], [e["play_rate"] for _, e in ranked],
                       "change of play rate (share of final boards)")
    units_axis.set_title(f"champions: the {len(ranked)} largest changes of play rate" if ranked else
                         "champions: none in common, none compared")
    return figure


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def sweep_figure(sweep: dict):
    """Each bot's change of mean placement and of top-4 rate against the swept value, with 95% CIs.

    The base's value, when it is a number like the swept ones, is drawn at 0: the change of the base against
    itself.
    """
    figure, axes = new_figure(11, 4.5, 1, 2)
    values = [point["values"][0] for point in sweep["points"]]
    numeric = all(_is_number(v) for v in values)
    base_value = sweep["base_values"][0]
    if numeric:
        xs = list(values)
        labels = None
    else:
        xs = list(range(len(values)))
        labels = [point["labels"][0] for point in sweep["points"]]
    bots = list(sweep["points"][0]["bots"]) if sweep["points"] else []
    for axis, statistic, label in zip(axes, ("mean_placement", "top4_rate"),
                                      ("change of mean placement (lower is better)", "change of top-4 rate")):
        for k, bot in enumerate(bots):
            entries = [point["bots"][bot][statistic] for point in sweep["points"]]
            changes, errors = _error_bars(entries)
            x, y = list(xs), list(changes)
            if numeric and _is_number(base_value):
                order = sorted(range(len(x) + 1), key=lambda i: ([*x, base_value])[i])
                x = [([*x, base_value])[i] for i in order]
                y = [([*y, 0.0])[i] for i in order]
                errors = [[([*e, 0.0])[i] for i in order] for e in errors]
            axis.errorbar(x, y, yerr=errors, marker="o", capsize=3, label=bot, color=f"C{k % 10}")
        axis.axhline(0.0, color="grey", linewidth=0.8)
        if numeric and _is_number(base_value):
            axis.axvline(base_value, color="grey", linestyle=":", linewidth=0.8)
        if labels is not None:
            axis.set_xticks(xs)
            axis.set_xticklabels(labels, rotation=20, ha="right")
        axis.set_xlabel(sweep["paths"][0] + (" (dotted line: the base)" if numeric else ""))
        axis.set_ylabel(label)
    if bots:
        axes[0].legend(fontsize=7)
    return figure


def _png(figure) -> bytes:
    import matplotlib
    import matplotlib.style

    buffer = io.BytesIO()
    with matplotlib.style.context("default"), matplotlib.rc_context({"font.size": 9}):
        figure.savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()


def _cell(value, digits=3, signed=False):
    if value is None:
        return "\u2014"
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def _interval_cell(ci):
    return "\u2014" if ci[0] is None or ci[1] is None else f"[{ci[0]:+.3f}, {ci[1]:+.3f}]"


def _statistic_rows(units: dict, statistic: str) -> list:
    rows = []
    for name, entry in units.items():
        e = entry[statistic]
        rows.append([name, _cell(e["base"]), _cell(e["variant"]), _cell(e["change"], signed=True),
                     _interval_cell(e["ci"]), _cell(e["variance_reduction"], 1)])
    return rows


_STATISTIC_HEADERS = ["", "base", "variant", "change", "95% CI", "variance reduction"]
_CORRECTED_HEADERS = ["corrected change", "95% CI", "variance reduction"]


def _placement_rows(bots: dict) -> list:
    """The bots' mean placement rows, their corrected change beside the raw one (runs corrected by a value)."""
    rows = _statistic_rows(bots, "mean_placement")
    if _corrected(bots):
        for row, entry in zip(rows, bots.values()):
            c = entry[CORRECTED]
            row += [_cell(c["change"], signed=True), _interval_cell(c["ci"]), _cell(c["variance_reduction"], 1)]
    return rows


def _setup(result: dict) -> str:
    value = f"; placements corrected by the value {result['value']}" if result.get("value") else ""
    return (f"Configuration {result['config']}; bots {', '.join(result['lineup'])}; "
            f"{counted(result['boards'], 'board')} x {counted(result['tables'], 'table')}; dealer {result['dealer']}, "
            f"design {result['design']}, seed {result['seed']}{value}; both configurations on the same boards.")


def _definitions(corrected: bool = False) -> str:
    items = "".join(f"<dt>{html.escape(name)}</dt><dd>{html.escape(meaning)}</dd>"
                    for name, meaning in STATISTIC_MEANINGS.items() if corrected or name != CORRECTED)
    reduction = ("<dt>corrected change, its variance reduction</dt><dd>the change of the mean placement corrected "
                 "by the value (each placement minus corrections of mean zero under any configuration: an estimate "
                 "of the same change); its variance reduction is against the raw change on independent seeds, the "
                 "gain of the same boards and the value together</dd>" if corrected else "")
    return ("<h2>Definitions</h2><dl>" + items + "<dt>change, 95% CI</dt><dd>variant minus base, with the interval "
            "of the paired per-board differences</dd><dt>variance reduction</dt><dd>the variance of the change "
            "measured on independent seeds over its variance on the same boards: how many times fewer boards the "
            "same boards need for the same interval</dd>" + reduction + "</dl>")


def _moved(units: dict, statistic: str) -> list:
    """``[(name, entry)]`` of the units whose change of ``statistic`` has an interval that excludes 0, largest
    against its interval first."""
    return clearest_effects(units, statistic, len(units))


def _effect(name: str, entry: dict) -> str:
    return f"{name} {_cell(entry['change'], signed=True)} {_interval_cell(entry['ci'])}"


def decision_section(result: dict) -> str:
    """What the A/B decided: which bots' placements moved, the largest resolved changes of champions and traits,
    and how much the shared boards saved; the section a reader sees first (``id="verdict"``)."""
    reduction = result.get("variance_reduction")
    if reduction is None:
        return ('<section id="verdict" class="verdict"><h2>Decision</h2><p class="figure">No change of placement: '
                f"{html.escape(no_placement_change(result))}.</p></section>")
    parts = []
    statistic = _placement(result["bots"])
    corrected = " (corrected by the value)" if statistic == CORRECTED else ""
    bots = result["bots"]
    # Said of every bot at once, so taken together (Holm): per-comparison intervals flag about 1 in 20 null changes.
    together = moved_after_holm([bots], statistic, result["boards"])[0]
    flagged = _moved(bots, statistic)
    moved = [(name, entry) for name, entry in flagged if name in together]
    alone = [(name, entry) for name, entry in flagged if name not in together]
    family = f"the {len(bots)} bots' intervals taken together (Holm's adjustment)"
    if moved:
        parts.append(f'<p class="figure">The change moves the mean placement{corrected} of ' + html.escape(", ".join(
            _effect(name, entry) for name, entry in moved)) + f" (variant minus base; significant at 5% with {family})."
                     "</p>")
    else:
        largest = max(bots.items(), key=lambda item: abs(item[1][statistic]["change"] or 0.0), default=None)
        parts.append(f'<p class="figure">No bot\'s mean placement{corrected} changed clearly at {result["boards"]:,} '
                     f"boards, with {family}.</p>" + ("" if largest is None or alone else
                     f"<p>Largest change: {html.escape(_effect(largest[0], largest[1][statistic]))}.</p>"))
    if alone:
        note = chance_note(len(flagged), len(bots))
        parts.append("<p>" + html.escape(", ".join(_effect(name, entry) for name, entry in alone)) + ": "
                     + ("its 95% interval excludes" if len(alone) == 1 else "each one's 95% interval excludes")
                     + f" 0 on its own, not with the others ({note}).</p>")
    for kind in ("champions", "traits"):
        units = result.get(kind) or {}
        if not units:
            parts.append(f"<p>{kind.capitalize()}: none in common between the two configurations.</p>")
            continue
        resolved = _moved(units, "play_rate")
        shown = ", ".join(_effect(name, entry) for name, entry in resolved[:5])
        chance = 0.05 * len(units)
        parts.append(f"<p>{kind.capitalize()}: {len(resolved)} of {len(units)} play rates changed, their 95% "
                     f"interval excluding 0 (about {chance:.1f} would by chance alone)"
                     + (f"; the clearest (largest change against its interval): {html.escape(shown)}" if shown
                        else "") + ".</p>")
    ci = result.get("variance_reduction_ci") or [None, None]
    parts.append(f"<p>Playing both on the same boards cut the variance of a change {reduction:.1f}x"
                 + ("" if ci[0] is None else f" [{ci[0]:.1f}, {ci[1]:.1f}]")
                 + " against independent seeds (median over bots): that many times fewer boards for the same "
                 "interval.</p>")
    if result.get("corrected_variance_reduction") is not None:
        ci = result.get("corrected_variance_reduction_ci") or [None, None]
        parts.append(f"<p>Corrected by the value as well: {result['corrected_variance_reduction']:.1f}x"
                     + ("" if ci[0] is None else f" [{ci[0]:.1f}, {ci[1]:.1f}]")
                     + " against independent seeds uncorrected (median over bots).</p>")
    return '<section id="verdict" class="verdict"><h2>Decision</h2>' + "".join(parts) + "</section>"


def ab_html(result: dict, images: dict) -> str:
    changes = "".join(f"<li><code>{html.escape(c['path'])}</code>: {html.escape(str(c['base']))} &rarr; "
                      f"{html.escape(str(c['variant']))}</li>" for c in result["changes"])
    body = [f"<h1>A/B: {html.escape(str(result['config_name']))}</h1>",
            f'<p class="note">{html.escape(_setup(result))} Base {html.escape(str(result["base"]))}; variant '
            f"{html.escape(str(result['variant']))}.</p>",
            f"<ul>{changes}</ul>" if changes else "<p>No --set edit.</p>", decision_section(result),
            embedded_image(images, EFFECTS_PLOT, "effects with 95% confidence intervals"), "<h2>Bots</h2>"]
    corrected = _corrected(result["bots"])
    body += [f"<h3>{html.escape(STATISTIC_MEANINGS['mean_placement'])}"
             + (", raw and corrected by the value" if corrected else "") + "</h3>",
             html_table(_STATISTIC_HEADERS + (_CORRECTED_HEADERS if corrected else []),
                        _placement_rows(result["bots"]))]
    for statistic in ("top4_rate", "three_star_rate"):
        body += [f"<h3>{html.escape(STATISTIC_MEANINGS[statistic])}</h3>",
                 html_table(_STATISTIC_HEADERS, _statistic_rows(result["bots"], statistic))]
    for kind in ("champions", "traits"):
        body.append(f"<h2>{kind.capitalize()}</h2>")
        if not result[kind]:
            body.append("<p>None in common between the two configurations, so none is compared.</p>")
            continue
        for statistic in UNIT_STATISTICS:
            rows = _statistic_rows(result[kind], statistic)
            significant = [i for i, name in enumerate(result[kind]) if excludes_zero(result[kind][name][statistic])]
            body.append(details(f"{statistic}: {STATISTIC_MEANINGS[statistic]}",
                                html_table(_STATISTIC_HEADERS, rows, significant)))
    body.append(_definitions(corrected))
    return html_page(f"autodup ab: {result['config_name']}", body)


def _write_page(out, plot: str, figure, page) -> Path:
    """Write ``out/<plot>`` and ``out/report.html``, ``page(images)`` embedding it; returns the page's path."""
    out = Path(out)
    images = {plot: _png(figure)}
    write_bytes_atomically(out / plot, images[plot])
    path = out / "report.html"
    write_bytes_atomically(path, page(images).encode("utf-8"))
    return path


def write_ab_report(result: dict, out) -> Path:
    """Write ``out/effects.png`` and ``out/report.html`` (which embeds it); returns the page's path."""
    return _write_page(out, EFFECTS_PLOT, effects_figure(result), lambda images: ab_html(result, images))


def sweep_decision_section(sweep: dict) -> str:
    """Per value, the bots whose mean placement moved beyond its interval against the base; shown first."""
    rows = []
    corrected = bool(sweep["points"]) and _corrected(sweep["points"][0]["bots"])
    statistic = CORRECTED if corrected else "mean_placement"
    # Every (value, bot) change at once (Holm): per-comparison intervals flag about 1 in 20 null changes.
    together = moved_after_holm([point["bots"] for point in sweep["points"]], statistic, sweep["boards"])
    for point, kept in zip(sweep["points"], together):
        moved = [(name, entry) for name, entry in _moved(point["bots"], statistic) if name in kept]
        largest = max(point["bots"].items(), key=lambda item: abs(item[1][statistic]["change"] or 0.0),
                      default=None)
        rows.append([", ".join(point["labels"]), f"{len(moved)} of {len(point['bots'])}",
                     "; ".join(_effect(name, entry) for name, entry in moved) or "none",
                     _effect(largest[0], largest[1][statistic]) if largest else "\u2014",
                     _cell(point["variance_reduction"], 1)]
                    + ([_cell(point["corrected_variance_reduction"], 1)] if corrected else []))
    moving = [row[0] for row, kept in zip(rows, together) if kept]
    placement = "mean placement corrected by the value" if corrected else "mean placement"
    compared = sum(len(point["bots"]) for point in sweep["points"])
    family = f"the {compared} changes (values times bots) taken together, Holm's adjustment"
    headline = (f"Values that change a bot's {placement} (significant at 5% with {family}): {', '.join(moving)}."
                if moving else f"No value changes any bot's {placement} clearly at {sweep['boards']:,} boards, "
                f"with {family}.")
    if len(sweep["points"][0]["bots"]) == 1:
        headline = f"No change of placement: {no_placement_change(sweep['points'][0])}."
    return ('<section id="verdict" class="verdict"><h2>Decision</h2>'
            f'<p class="figure">{html.escape(headline)}</p>'
            + html_table(["value", "bots moved (Holm)", "moved (change [95% CI])", "largest change",
                          "variance reduction"]
                         + (["corrected variance reduction"] if corrected else []), rows) + "</section>")


def sweep_html(sweep: dict, images: dict) -> str:
    body = [f"<h1>Sweep of {html.escape(', '.join(sweep['paths']))}: {html.escape(str(sweep['config_name']))}</h1>",
            f'<p class="note">{html.escape(_setup(sweep))} The base has '
            f"{html.escape(', '.join(str(v) for v in sweep['base_values']))}; each value is played on the base's "
            "boards and compared with it.</p>",
            sweep_decision_section(sweep),
            embedded_image(images, SWEEP_PLOT, "effect curve with 95% confidence intervals")]
    bots = list(sweep["points"][0]["bots"]) if sweep["points"] else []
    corrected = bool(bots) and _corrected(sweep["points"][0]["bots"])
    for statistic in ("mean_placement", *((CORRECTED,) if corrected else ()), "top4_rate"):
        # The corrected change's variance reduction is the headline's against independent seeds uncorrected.
        reduction = "corrected_variance_reduction" if statistic == CORRECTED else "variance_reduction"
        rows = []
        for point in sweep["points"]:
            rows.append([", ".join(point["labels"])] + [
                f"{_cell(point['bots'][b][statistic]['change'], signed=True)} "
                f"{_interval_cell(point['bots'][b][statistic]['ci'])}" for b in bots]
                + [_cell(point[reduction], 1)])
        body.append(details(f"Change of {STATISTIC_MEANINGS[statistic]}, per bot",
                            html_table(["value", *bots, "variance reduction"], rows)))
    for point in sweep["points"]:
        effects = clearest_effects(point["champions"], "play_rate", 8)
        if effects:
            body.append(f"<p>{html.escape(', '.join(point['labels']))}: clearest changes of champion play rate: "
                        + html.escape(", ".join(f"{n} {_cell(e['change'], signed=True)}" for n, e in effects))
                        + "</p>")
    body.append(_definitions(corrected))
    return html_page(f"autodup sweep: {sweep['config_name']}", body)


def write_sweep_report(sweep: dict, out) -> Path:
    """Write ``out/sweep.png`` and ``out/report.html`` (which embeds it); returns the page's path."""
    return _write_page(out, SWEEP_PLOT, sweep_figure(sweep), lambda images: sweep_html(sweep, images))
