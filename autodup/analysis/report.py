"""The quality report: one self-contained HTML page, and its plots as PNG files, drawn from a quality dict.

:func:`write_report` takes the dict :func:`autodup.analysis.quality.measure_quality`
returns (``quality.json``) and writes ``report.html`` with every plot embedded
as a ``data:`` URI, so the page can be mailed or archived alone; the PNGs sit
beside it for slides. The page holds:

* a headline: the closest pair of bots and each dealer's variance reduction on
  it, with its confidence interval (``variance_reduction.png``);
* the cross-table measures per dealer (whole-shop identical, slot agreement,
  multiset overlap, offer overlap), split into same-bot and different-bot table
  pairs, and by round (``agreement_by_round.png``);
* the coupling diagnostic: measured agreement beside ``J_P`` and ``1 - TV``;
* the luck removed per pair of bots: variance reduction, and boards, games and
  seconds needed, duplicate against the independent control
  (``boards_needed.png``);
* each dealer's correctness tests with Holm-adjusted p-values, its verdict and
  deciding observable (``correctness.png``), and its offer frequency per
  champion against the control's (``offer_frequency.png``);
* a short definition of every measure.

Nulls (measures that could not be taken) are shown as a dash and left out of
the plots. The same dict gives the same bytes: matplotlib's default style is
used whatever the local ``matplotlibrc`` says, and the PNGs carry no version or
date. matplotlib is imported on first use, with the Agg canvas, never at import.
"""

from __future__ import annotations

import base64
import html
import io
import math
from pathlib import Path

from ..files import write_bytes_atomically

__all__ = ["PLOTS", "write_report"]

PLOTS = ("agreement_by_round.png", "variance_reduction.png", "boards_needed.png", "correctness.png",
         "offer_frequency.png")

DEFINITIONS = (
    ("whole-shop identical", "For two tables of one board, the same seat and the same round (both seats alive), "
     "the shops dealt by the round's free refresh hold the same champion in every slot; averaged over table "
     "pairs and rounds 1 and later (round 0 is identical for every shared dealer)."),
    ("slot agreement", "Share of those shops' slots that hold the same (non-empty) champion at both tables."),
    ("multiset overlap", "sum_c min(a_c, b_c) / shop size: the same champions in any slot order."),
    ("offer overlap", "Over a whole game, every shop a seat was dealt (rerolls included): "
     "sum_c min(nA_c, nB_c) / max(NA, NB) for the two tables' seats."),
    ("same bot / different bot", "The same measures split by whether the two tables' seats held the same bot "
     "(under the Latin square they never do)."),
    ("coupling", "From each seat's first {draws} draws at the first {boards} boards, replayed with their inputs: at the "
     "first "
     "draw where two tables' inputs (tier and champion weights, draw key) differ, how often they still dealt the "
     "same champion, beside the mean J_P (P-MinHash: the best a communication-free dealer can guarantee) and "
     "1 - TV (the maximal coupling: no correct dealer exceeds it) of the two champion laws."),
    ("variance reduction", "Per board, each bot's mean placement over its tables; for a pair of bots the per-board "
     "difference D. The factor is var(D) under the independent control divided by var(D) under the dealer: "
     "how many times fewer boards the dealer needs for the same precision. 95% interval: Poisson bootstrap "
     "over boards (each board's weights drawn from its own seed, the same for every run)."),
    ("boards needed", "(1.96 sd(D) / |mean D|)^2 boards to tell the pair apart at 95%, mean D measured by the "
     "control; games = boards x tables; seconds at the speed the runs were played."),
    ("correctness", "Per-table observables of each dealer against the independent control: the tier of shop slots "
     "at each level, each champion's share of offers, placement by bot and seat, final HP, rounds survived and "
     "gold spent by bot. A board is the sampling unit (ratios of per-board sums, covariance across boards); a Wald "
     "test per observable (Welch t per component, Bonferroni, with fewer than 10 boards per dimension); "
     "Holm-corrected per dealer. Correct when the smallest corrected p-value is at least alpha."),
    ("offer frequency", "Each champion's share of all offers under each dealer, minus the control's; an exact "
     "dealer stays within sampling error (whiskers: the control's +/- 2 standard errors)."),
)


_DASH = "\u2014"
_FORMATS = {"share": "{:.3f}", "ratio": "{:.2f}", "count": "{:,.0f}", "seconds": "{:,.1f}", "p": "{:.2g}",
            "difference": "{:+.3f}", "general": "{:.4g}"}


def number(value):
    """``value`` as a float, or None when it is null, not a number or not finite."""
    if value is None or isinstance(value, bool):
        return None
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def format_number(value, style="general") -> str:
    """``value`` formatted by ``style`` (a key of ``_FORMATS``), or a dash when it is not measurable."""
    value = number(value)
    return _DASH if value is None else _FORMATS[style].format(value)


def interval_bounds(interval) -> tuple:
    """``(low, high)`` of a ``[low, high]`` confidence interval, or ``(None, None)`` unless both are numbers."""
    low, high = (number(bound) for bound in (list(interval or []) + [None, None])[:2])
    return (None, None) if low is None or high is None else (low, high)


def format_interval(interval, style="ratio") -> str:
    """A ``[low, high]`` confidence interval as ``"low - high"``, or a dash."""
    low, high = interval_bounds(interval)
    return _DASH if low is None else f"{format_number(low, style)} \u2013 {format_number(high, style)}"


def pair_label(bots) -> str:
    """A pair of bots as ``"a-b"``."""
    return "-".join(str(bot) for bot in bots or ())


def control_name(quality: dict) -> str:
    """The control dealer's name (``independent`` unless the dict says otherwise)."""
    return quality.get("control") or "independent"


def measures_of(quality: dict, name: str) -> dict:
    """Dealer ``name``'s measures, empty when it has none."""
    return (quality.get("dealers") or {}).get(name) or {}


def dealer_names(quality: dict, with_control=True) -> list:
    """The measured dealers in the dict's order, the control last (or left out)."""
    control = control_name(quality)
    names = [name for name in (quality.get("dealers") or {}) if name != control]
    if with_control and control in (quality.get("dealers") or {}):
        names.append(control)
    return names


def dealer_style(quality: dict, name: str) -> dict:
    """Plot keywords for dealer ``name``: a colour of its own, the control black and dashed."""
    if name == control_name(quality):
        return {"color": "black", "linestyle": "--"}
    index = dealer_names(quality, with_control=False).index(name)
    return {"color": f"C{index % 10}", "linestyle": "-"}


def as_floats(values, length=None):
    """A list of floats with NaN for nulls, padded with NaN (or cut) to ``length`` when given."""
    floats = [math.nan if number(value) is None else number(value) for value in (values or [])]
    if length is not None:
        floats = (floats + [math.nan] * length)[:length]
    return floats


# --- plots -------------------------------------------------------------------------------------------------

def new_figure(width, height, rows=1, columns=1, layout="constrained", sharey=False):
    """A figure on the Agg canvas (no pyplot, so no global backend is chosen) and its axes.

    ``layout=None`` skips the constrained layout (which draws the figure twice) for a figure that places its
    axes itself.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=100, layout=layout)
    FigureCanvasAgg(figure)
    axes = figure.subplots(rows, columns, squeeze=False, sharey=sharey)
    return figure, [axis for row in axes for axis in row]


def show_no_data(axis, message):
    """Say ``message`` in the middle of an empty panel instead of drawing nothing."""
    axis.text(0.5, 0.5, message, ha="center", va="center", transform=axis.transAxes, color="grey")
    axis.set_axis_off()


def agreement_by_round_figure(quality: dict):
    """Slot agreement and whole-shop identical by round, one line per dealer, the control dashed."""
    figure, axes = new_figure(10, 4, 1, 2)
    for axis, measure in zip(axes, ("slot_agreement", "whole_shop_identical")):
        drawn = False
        for name in dealer_names(quality):
            by_round = measures_of(quality, name).get("by_round") or {}
            rounds = as_floats(by_round.get("round"))
            values = as_floats(by_round.get(measure), len(rounds))
            if rounds and any(not math.isnan(value) for value in values):
                axis.plot(rounds, values, marker=".", label=name, **dealer_style(quality, name))
                drawn = True
        if not drawn:
            show_no_data(axis, "no by-round measures")
            continue
        axis.set(xlabel="round", ylabel=measure.replace("_", " "), title=measure.replace("_", " ") + " by round")
        axis.grid(alpha=0.3)
        axis.legend(fontsize="small")
    return figure


def variance_reduction_figure(quality: dict):
    """Each dealer's variance reduction on the closest pair with its interval, and the median over pairs."""
    figure, (axis,) = new_figure(7, 4)
    names = [name for name in dealer_names(quality, with_control=False)
             if number(measures_of(quality, name).get("variance_reduction")) is not None]
    if not names:
        show_no_data(axis, "no duplicate dealer's variance reduction was measured")
        return figure
    for position, name in enumerate(names):
        dealer = measures_of(quality, name)
        value = number(dealer["variance_reduction"])
        low, high = interval_bounds(dealer.get("variance_reduction_ci"))
        error = None if low is None else [[max(value - low, 0.0)], [max(high - value, 0.0)]]
        axis.errorbar([position], [value], yerr=error, fmt="o", capsize=6, color=dealer_style(quality, name)["color"],
                      label="closest pair" if position == 0 else None)
        median = number(dealer.get("median_variance_reduction"))
        if median is not None:
            axis.plot([position + 0.15], [median], marker="x", color="grey", linestyle="none",
                      label="median over pairs" if position == 0 else None)
    axis.axhline(1.0, color="black", linewidth=1, label="no reduction")
    axis.set_xticks(range(len(names)), names)
    axis.set_xlim(-0.6, len(names) - 0.4)
    axis.set(ylabel="variance reduction (control / dealer)",
             title=f"variance reduction, closest pair {pair_label(quality.get('closest_pair'))}")
    axis.grid(axis="y", alpha=0.3)
    axis.legend(fontsize="small")
    return figure


def boards_needed_by_pair(quality: dict) -> tuple:
    """``(pair labels, {series: [boards needed per pair]})``: each dealer, then the independent control.

    The control's figure is the same for every dealer; it is taken from the first dealer that has it.
    """
    labels, series, control = [], {}, {}
    for name in dealer_names(quality, with_control=False):
        for pair in measures_of(quality, name).get("pairs") or []:
            label = pair_label(pair.get("bots"))
            if label not in labels:
                labels.append(label)
            series.setdefault(name, {})[label] = number(pair.get("boards_needed"))
            if control.get(label) is None:
                control[label] = number(pair.get("boards_needed_control"))
    series[control_name(quality)] = control
    return labels, {name: [values.get(label) for label in labels] for name, values in series.items()}


def boards_needed_figure(quality: dict):
    """Boards needed per pair of bots on a log axis, each dealer beside the independent control."""
    labels, series = boards_needed_by_pair(quality)
    figure, (axis,) = new_figure(max(7.0, 0.35 * len(labels) + 2), 4.5)
    positive = {name: [value if value is not None and value > 0 else math.nan for value in values]
                for name, values in series.items()}
    if not any(not math.isnan(value) for values in positive.values() for value in values):
        show_no_data(axis, "no pair's boards needed was measured")
        return figure
    width = 0.6 / max(len(positive), 1)
    for index, (name, values) in enumerate(positive.items()):
        offset = (index - (len(positive) - 1) / 2) * width
        style = dealer_style(quality, name)
        axis.plot([position + offset for position in range(len(labels))], values, linestyle="none",
                  marker="s" if name == control_name(quality) else "o", color=style["color"], label=name)
    axis.set_yscale("log")
    axis.set_xticks(range(len(labels)), labels, rotation=60, ha="right", fontsize="small")
    axis.set(ylabel="boards needed", title="boards needed per pair: duplicate vs independent control")
    axis.grid(axis="y", which="both", alpha=0.3)
    axis.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return figure


def correctness_grid(quality: dict) -> tuple:
    """``(dealers, observables, Holm p-values by [dealer][observable], None where not tested)``."""
    dealers, observables = dealer_names(quality), []
    for name in dealers:
        for test in measures_of(quality, name).get("tests") or []:
            if test.get("observable") not in observables:
                observables.append(test.get("observable"))
    grid = []
    for name in dealers:
        by_observable = {test.get("observable"): number(test.get("p_holm"))
                         for test in measures_of(quality, name).get("tests") or []}
        grid.append([by_observable.get(observable) for observable in observables])
    return dealers, observables, grid


def correctness_figure(quality: dict):
    """The correctness tests as a heat map of -log10 of the Holm p-value, dealer rows, observable columns."""
    import numpy as np

    dealers, observables, grid = correctness_grid(quality)
    figure, (axis,) = new_figure(max(6.0, 0.9 * len(observables) + 3), max(2.5, 0.5 * len(dealers) + 2))
    if not dealers or not observables:
        show_no_data(axis, "no correctness tests")
        return figure
    # A p-value of 0 is as far from the null as the axis goes; the scale tops out at alpha squared.
    threshold = -math.log10(number(quality.get("alpha")) or 0.001)
    scores = np.ma.masked_invalid([[math.nan if p is None else -math.log10(max(p, 1e-300)) for p in row]
                                   for row in grid])
    from matplotlib import colormaps

    colours = colormaps["Reds"].with_extremes(bad="lightgrey")
    image = axis.imshow(scores, cmap=colours, vmin=0.0, vmax=2 * threshold, aspect="auto")
    if len(observables) <= 16:
        for row, values in enumerate(grid):
            for column, p in enumerate(values):
                if p is not None:
                    axis.text(column, row, format_number(p, "p"), ha="center", va="center", fontsize="small",
                              color="white" if -math.log10(max(p, 1e-300)) > threshold else "black")
    verdicts = {True: "correct", False: "WRONG", None: "no verdict"}
    axis.set_yticks(range(len(dealers)),
                    [f"{name} ({verdicts.get(measures_of(quality, name).get('correct'))})" for name in dealers])
    axis.set_xticks(range(len(observables)), [str(observable) for observable in observables], rotation=30,
                    ha="right", fontsize="small")
    axis.set_title(f"correctness: Holm-adjusted p-values (wrong below alpha = {quality.get('alpha')})")
    figure.colorbar(image, ax=axis, label="-log10 Holm p")
    return figure


def offer_frequency_figure(quality: dict):
    """Each dealer's offer share per champion minus the control's, inside the control's +/- 2 SE whiskers."""
    champions = [str(champion) for champion in quality.get("champions") or []]
    control = (quality.get("dealers") or {}).get(control_name(quality)) or {}
    expected = as_floats(control.get("offer_frequency"), len(champions))
    error = [2 * value for value in as_floats(control.get("offer_frequency_se"), len(champions))]
    figure, (axis,) = new_figure(max(7.0, 0.2 * len(champions) + 2), 4.5)
    if not champions or all(math.isnan(value) for value in expected):
        show_no_data(axis, "no control offer frequencies")
        return figure
    positions = list(range(len(champions)))
    axis.errorbar(positions, [0.0] * len(positions), yerr=[0.0 if math.isnan(e) else e for e in error],
                  fmt="none", ecolor="grey", capsize=2, label="control \u00b1 2 SE")
    names = dealer_names(quality, with_control=False)
    for index, name in enumerate(names):
        observed = as_floats(measures_of(quality, name).get("offer_frequency"), len(champions))
        offset = (index - (len(names) - 1) / 2) * 0.6 / max(len(names), 1)
        axis.plot([position + offset for position in positions],
                  [value - reference for value, reference in zip(observed, expected)], linestyle="none",
                  marker="o", markersize=3, color=dealer_style(quality, name)["color"], label=name)
    axis.axhline(0.0, color="black", linewidth=0.8)
    axis.set_xticks(positions, champions, rotation=90, fontsize="x-small" if len(champions) > 30 else "small")
    axis.set(ylabel="offer share minus the control's", title="offer frequency per champion against the control")
    axis.grid(axis="y", alpha=0.3)
    axis.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return figure


_FIGURES = dict(zip(PLOTS, (agreement_by_round_figure, variance_reduction_figure, boards_needed_figure,
                            correctness_figure, offer_frequency_figure)))


def rendered_png(draw, *args) -> bytes:
    """The PNG of the figure ``draw(*args)`` returns, drawn and saved in matplotlib's default style.

    The default style, not the local matplotlibrc, so that the same data gives the same pixels anywhere.
    """
    import matplotlib
    import matplotlib.style

    buffer = io.BytesIO()
    with matplotlib.style.context("default"), matplotlib.rc_context({"font.size": 9}):
        draw(*args).savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()


def draw_plots(quality: dict, out_dir: Path) -> dict:
    """Write every plot of :data:`PLOTS` into ``out_dir``; returns ``{file name: PNG bytes}``."""
    images = {}
    for name, draw in _FIGURES.items():
        images[name] = rendered_png(draw, quality)
        write_bytes_atomically(out_dir / name, images[name])
    return images




# --- HTML --------------------------------------------------------------------------------------------------

_STYLE = """
body { font-family: sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: right; }
td { white-space: nowrap; }
th:first-child, td:first-child { text-align: left; }
tr.highlight td { font-weight: bold; background: #f4f4ff; }
img { max-width: 100%; display: block; margin: 0.5em 0; }
dt { font-weight: bold; } dd { margin: 0 0 0.6em 1.5em; }
.wrong { color: #b00; font-weight: bold; } .correct { color: #070; font-weight: bold; }
"""

# A headless browser's --dump-dom shows data-images-loaded, so a test can tell whether every plot rendered.
_SCRIPT = """
window.addEventListener("load", function () {
  var images = Array.prototype.slice.call(document.images);
  var loaded = images.filter(function (img) { return img.complete && img.naturalWidth > 0; });
  document.body.dataset.images = String(images.length);
  document.body.dataset.imagesLoaded = String(loaded.length);
});
"""


def html_table(headers, rows, highlighted=()) -> str:
    """A ``<table>`` of already formatted cells, every one escaped; rows whose index is in ``highlighted`` bold."""
    head = "".join(f"<th>{html.escape(str(header))}</th>" for header in headers)
    body = []
    for index, row in enumerate(rows):
        cells = "".join(f"<td>{html.escape(str(cell))}</td>" for cell in row)
        attribute = ' class="highlight"' if index in highlighted else ""
        body.append(f"<tr{attribute}>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def embedded_image(images: dict, name: str, description: str) -> str:
    """An ``<img>`` carrying PNG ``name`` as a ``data:`` URI."""
    data = base64.b64encode(images[name]).decode("ascii")
    return f'<img src="data:image/png;base64,{data}" alt="{html.escape(description)}" title="{html.escape(name)}">'


def headline_section(quality: dict) -> str:
    """The closest pair and each dealer's variance reduction on it."""
    closest = pair_label(quality.get("closest_pair")) or _DASH
    items = []
    for name in dealer_names(quality, with_control=False):
        dealer = measures_of(quality, name)
        items.append(f"<li><b>{html.escape(name)}</b>: variance reduction "
                     f"{html.escape(format_number(dealer.get('variance_reduction'), 'ratio'))} (CI "
                     f"{html.escape(format_interval(dealer.get('variance_reduction_ci')))}), median over pairs "
                     f"{html.escape(format_number(dealer.get('median_variance_reduction'), 'ratio'))}</li>")
    listing = f"<ul>{''.join(items)}</ul>" if items else "<p>No duplicate dealer was measured.</p>"
    return (f"<h2>Headline</h2><p>Closest pair of bots: <b>{html.escape(closest)}</b>.</p>{listing}")


def cross_table_section(quality: dict) -> str:
    """How alike two tables' shops are, per dealer, overall and split by same or different bot."""
    measures = ("whole_shop_identical", "slot_agreement", "multiset_overlap", "offer_overlap")
    rows = [[name] + [format_number(measures_of(quality, name).get(measure), "share") for measure in measures]
            for name in dealer_names(quality)]
    split = []
    for name in dealer_names(quality):
        by_bots = measures_of(quality, name).get("by_bots") or {}
        for group in ("same", "different"):
            counts = by_bots.get(group) or {}
            split.append([name, f"{group} bot", format_number(counts.get("pairs"), "count")]
                         + [format_number(counts.get(measure), "share") for measure in measures[1:]])
    return ("<h2>Cross-table measures</h2>"
            + html_table(["dealer"] + [measure.replace("_", " ") for measure in measures], rows)
            + "<h3>Same bot vs different bot</h3>"
            + html_table(["dealer", "seats played by", "table pairs", "slot agreement", "multiset overlap",
                          "offer overlap"], split))


def coupling_section(quality: dict) -> str:
    """Measured agreement on traced draws beside what the coupling predicts and what any coupling can reach."""
    rows = []
    for name in dealer_names(quality):
        coupling = measures_of(quality, name).get("coupling")
        if not coupling:
            rows.append([name, "not traced", _DASH, _DASH, _DASH, _DASH, _DASH, _DASH])
            continue
        agreement = format_number(coupling.get("agreement"), "share")
        if number(coupling.get("agreement_se")) is not None:
            agreement += f" \u00b1 {format_number(coupling.get('agreement_se'), 'share')}"
        rows.append([name, format_number(coupling.get("pairs"), "count"), agreement,
                     format_number(coupling.get("agreement_same_key"), "share"),
                     format_number(coupling.get("j_p"), "share"), format_number(coupling.get("one_minus_tv"), "share"),
                     format_number(coupling.get("weights_differ"), "share"),
                     format_number(coupling.get("key_differs"), "share")])
    note = ("<p>At the first draw where two tables' inputs at a seat differ. A draw made at another moment (another "
            "round or reroll: the key differs) agrees only by chance under the keyed dealer; agreement above 1 - TV "
            "is impossible for a correct dealer.</p>")
    return ("<h2>Coupling diagnostic</h2>" + note
            + html_table(["dealer", "traced pairs", "measured agreement", "at the same key", "J_P", "1 - TV",
                          "weights differ", "key differs"], rows))


def luck_section(quality: dict) -> str:
    """Per duplicate dealer, a row per pair of bots: variance reduction, and boards, games, seconds needed."""
    closest = pair_label(quality.get("closest_pair"))
    needed = (("boards_needed", "count"), ("games_needed", "count"), ("seconds_needed", "seconds"))
    parts = ["<h2>Luck removed, per pair of bots</h2>"]
    for name in dealer_names(quality, with_control=False):
        pairs = measures_of(quality, name).get("pairs") or []
        parts.append(f"<h3>{html.escape(name)}</h3>")
        if not pairs:
            parts.append("<p>No pair was measured.</p>")
            continue
        rows = [[pair_label(pair.get("bots")), format_number(pair.get("mean_difference"), "difference"),
                 format_number(pair.get("variance_reduction"), "ratio"),
                 format_interval(pair.get("variance_reduction_ci"))]
                + [format_number(pair.get(key + side), style) for key, style in needed for side in ("", "_control")]
                for pair in pairs]
        highlighted = {index for index, pair in enumerate(pairs) if pair_label(pair.get("bots")) == closest}
        parts.append(html_table(["pair", "mean difference", "variance reduction", "CI", "boards (duplicate)",
                                 "boards (independent)", "games (duplicate)", "games (independent)",
                                 "seconds (duplicate)", "seconds (independent)"], rows, highlighted))
    return "".join(parts)


def correctness_section(quality: dict) -> str:
    """Each dealer's verdict, deciding observable and every test."""
    parts = [f"<h2>Correctness</h2><p>Family-wise level alpha = {html.escape(format_number(quality.get('alpha')))} "
             "per dealer (Holm).</p>"]
    for name in dealer_names(quality):
        dealer = measures_of(quality, name)
        verdict = {True: ("correct", "correct"), False: ("wrong", "WRONG")}.get(dealer.get("correct"),
                                                                                 ("", "no verdict"))
        claim = {True: "exact", False: "not exact"}.get(dealer.get("exact"), "no claim")
        parts.append(f"<h3>{html.escape(name)}: <span class=\"{verdict[0]}\">{html.escape(verdict[1])}</span></h3>"
                     f"<p>Registry claim: {html.escape(claim)}. Deciding observable: "
                     f"{html.escape(str(dealer.get('deciding_observable') or _DASH))} (smallest Holm p "
                     f"{html.escape(format_number(dealer.get('min_p_value'), 'p'))}).</p>")
        rows = [[test.get("observable", _DASH), format_number(test.get("statistic")),
                 format_number(test.get("df"), "count"), format_number(test.get("p_value"), "p"),
                 format_number(test.get("p_holm"), "p")] for test in dealer.get("tests") or []]
        parts.append(html_table(["observable", "statistic", "df", "p", "Holm p"], rows) if rows
                     else "<p>No tests.</p>")
    return "".join(parts)


def definitions_section(quality: dict) -> str:
    """The definitions of every measure, with the traced boards and draws of the coupling diagnostic."""
    traced = next((coupling for coupling in (measures_of(quality, name).get("coupling")
                                             for name in dealer_names(quality)) if coupling), {})
    size = {"boards": traced.get("boards", "N"), "draws": traced.get("draws", "K")}  # N, K: not traced
    items = "".join(f"<dt>{html.escape(term)}</dt><dd>{html.escape(text.format(**size))}</dd>"
                    for term, text in DEFINITIONS)
    return f"<h2>Definitions</h2><dl>{items}</dl>"


def render_html(quality: dict, images: dict) -> str:
    """The report page, every plot embedded from ``images`` (``{file name: PNG bytes}``)."""
    config = str(quality.get("config") or "")
    bots = ", ".join(str(bot) for bot in quality.get("bots") or [])
    setup = (f"Configuration {config}; bots {bots}; {format_number(quality.get('boards'), 'count')} boards x "
             f"{format_number(quality.get('tables'), 'count')} tables; seed {quality.get('seed')}; control "
             f"{control_name(quality)}.")
    body = [f"<h1>Duplicate quality: {html.escape(config)}</h1>", f"<p>{html.escape(setup)}</p>",
            headline_section(quality),
            embedded_image(images, "variance_reduction.png", "variance reduction per dealer"),
            cross_table_section(quality),
            embedded_image(images, "agreement_by_round.png", "agreement by round per dealer"),
            coupling_section(quality), luck_section(quality),
            embedded_image(images, "boards_needed.png", "boards needed per pair"),
            correctness_section(quality),
            embedded_image(images, "correctness.png", "correctness tests per dealer"),
            "<h2>Offer frequency</h2>",
            embedded_image(images, "offer_frequency.png", "offer frequency per champion"),
            definitions_section(quality)]
    return html_page(f"autodup quality report: {config}", body)


def html_page(title: str, body: list) -> str:
    """A self-contained page: ``body`` (HTML fragments, already escaped) under ``title`` (escaped here)."""
    # The policy makes the page refuse anything it would have to fetch: it is self-contained by construction.
    policy = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'"
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{policy}\">"
            f"<title>{html.escape(title)}</title>"
            f"<style>{_STYLE}</style><script>{_SCRIPT}</script></head>\n<body>\n"
            + "\n".join(body) + "\n</body></html>\n")


def write_report(quality: dict, out_dir) -> Path:
    """Write ``out_dir/report.html`` and ``out_dir/<plot>.png`` for every plot of :data:`PLOTS`.

    Parameters
    ----------
    quality : dict
        The quality measures, as :func:`autodup.analysis.quality.measure_quality`
        returns them (``quality.json``). Nulls and missing keys are shown as
        not measured.
    out_dir : str or os.PathLike
        The folder to write into; created when missing.

    Returns
    -------
    pathlib.Path
        The HTML report, which embeds every plot and needs no other file.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    images = draw_plots(quality, out)
    path = out / "report.html"
    write_bytes_atomically(path, render_html(quality, images).encode("utf-8"))
    return path
