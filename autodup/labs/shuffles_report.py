"""The shuffle lab's output: the terminal table, the pictures and the HTML page (see :mod:`autodup.shuffles`).

Pictures, for every method: where the marker cards land over the first
3,000 deals (one panel per card), and the histogram of where card ``c + 1``
lies relative to card ``c``, with the exact law of a uniform permutation
drawn over it. And the riffles plot: the distance to uniform after ``k`` GSR
riffles, exact and simulated.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

import numpy as np

from ..analysis.pages import embedded_image, html_page, html_table, new_figure, rendered_png
from ..errors import UsageError
from ..files import make_folder, write_bytes_atomically
from .shuffle_kernels import METHODS
from .shuffle_laws import Experiment, neighbour_law
from .shuffles import CANNOT_JUDGE

__all__ = ["RIFFLES_PLOT", "PAGE", "RESULT_FILE", "deck_names", "scatter_plot", "neighbours_plot", "method_headers",
           "method_rows", "fair_row", "riffle_headers", "riffle_rows", "setup_line", "judgement_notes",
           "misleading_notes", "read_from", "given_lines", "format_shuffles", "scatter_figure", "neighbours_figure",
           "riffles_figure", "draw_pictures", "shuffles_html", "write_shuffles"]

RIFFLES_PLOT = "riffles.png"
PAGE = "shuffles.html"
RESULT_FILE = "shuffles.json"


def deck_names(paths: list) -> dict:
    """``{name: path}`` for files of decks: a file's name without its suffix, kept to letters, digits, ``-`` and
    ``_`` (it names the pictures). ``ValueError`` when two files would share a name."""
    import re

    names: dict = {}
    for path in paths:
        name = re.sub(r"[^A-Za-z0-9_-]", "_", Path(path).stem) or "decks"
        same = [other for other in names if other.lower() == name.lower()]  # the pictures' names, on any disk
        if same:
            raise UsageError(f"{names[same[0]]} and {path} would both be called {name} (rename one)", "decks")
        names[name] = path
    return names


def scatter_plot(name: str) -> str:
    return f"scatter-{name}.png"


def neighbours_plot(name: str) -> str:
    return f"neighbours-{name}.png"


# --------------------------------------------------------------------------
# tables
# --------------------------------------------------------------------------


def _judged(article: dict, figure: str) -> str:
    """The article's ``figure`` (``"duplicates"`` or ``"chi2_rejections"``) and what the lab says of it."""
    verdict = article[f"{figure}_verdict"]
    if verdict == CANNOT_JUDGE:
        needed = article.get(f"{figure}_replicates_needed")
        # Said in the cell, not left blank: a blank reads as "nothing to compare", a number alone as agreement.
        judged = f" {CANNOT_JUDGE}" + (f" (needs ≥ {needed} replicates)" if needed else "")
    else:
        judged = " ok" if verdict == "ok" else " DIFFERS"
    return f"{article[figure]:g}{judged}"


def method_headers(result: dict) -> list:
    tests = 2 * result["cards"]
    return ["method", "duplicates", "article", f"{tests} tests p<0.05", "article", "positions", "successions",
            "rising seq.", "order", "verdict"]


def method_rows(result: dict) -> list:
    """One row of formatted cells per method (see :func:`method_headers`)."""
    rows = []
    for name, method in result["methods"].items():
        article = method.get("article") or {}
        replicates = method["replicates"]
        spread = ("" if replicates["chi2_rejections_sd"] is None else
                  f" ({replicates['chi2_rejections_mean']:.1f} ± {replicates['chi2_rejections_sd']:.1f})")
        rows.append([
            name,
            ("n/a" if method["duplicates"] is None else f"{method['duplicates']:.1f}")
            + ("" if method["duplicates_se"] is None else f" ± {method['duplicates_se']:.1f}"),
            _judged(article, "duplicates") if article else "",
            f"{method['chi2_rejections']}{spread}",
            _judged(article, "chi2_rejections") if article else "",
            "pass" if method["position_test_passed"] else "FAIL",
            f"{method['mean_successions']:.2f}",
            f"{method['mean_rising_sequences']:.2f}",
            "pass" if method["permutation_test_passed"] else "FAIL",
            method["verdict"],
        ])
    return rows


def fair_row(result: dict) -> list:
    """What a uniform shuffle expects in each column."""
    n = result["cards"]
    return ["(uniform)", f"{result['expected_duplicates_uniform']:.1f}", "",
            f"{result['rejection_level'] * 2 * n:.0f} on average", "", "", f"{(n - 1) / n:.2f}", f"{(n + 1) / 2:.2f}",
            "", ""]


def riffle_headers(result: dict) -> list:
    headers = ["riffles"]
    for cards, deck in result["riffles"].items():
        headers += [f"{cards} cards exact"] + (["simulated", "p"] if deck["simulated"] is not None else [])
    return headers


def riffle_rows(result: dict) -> list:
    riffles = list(result["riffles"].values())
    rows = []
    for k in range(len(riffles[0]["exact"])):
        row = [str(k + 1)]
        for deck in riffles:
            row.append(f"{deck['exact'][k]:.3f}")
            if deck["simulated"] is not None:
                row += [f"{deck['simulated'][k]:.3f}", f"{deck['p_values'][k]:.2g}"]
        rows.append(row)
    needed = ["needed"]
    for deck in riffles:
        needed.append(str(deck["needed"] or f"> {len(deck['exact'])}"))
        if deck["simulated"] is not None:
            needed += [str(deck["needed_simulated"] or f"> {len(deck['exact'])}"), ""]
    rows.append(needed)
    return rows


def _aligned(headers: list, rows: list) -> str:
    widths = [max(len(str(row[i])) for row in [headers] + rows) for i in range(len(headers))]
    lines = []
    for row in [headers] + rows:
        lines.append("  ".join(str(cell).ljust(width) if i == 0 else str(cell).rjust(width)
                               for i, (cell, width) in enumerate(zip(row, widths))).rstrip())
    return "\n".join(lines)


def setup_line(result: dict) -> str:
    return (f"{result['cards']} cards; {result['runs']:,} runs x {result['shuffles']:,} deals = {result['deals']:,} "
            f"deals per method; {result['replicates']} replicate{'s' if result['replicates'] != 1 else ''}; "
            f"seed {result['seed']}")


def judgement_notes(result: dict) -> list:
    """Sentences on the article's figures the lab cannot judge with this result's replicates, and how many it
    needs (none when it judges them all)."""
    methods = result["methods"]
    unjudged = [name for name, method in methods.items()
                if (method.get("article") or {}).get("chi2_rejections_verdict") == CANNOT_JUDGE]
    if not unjudged:
        return []
    replicates, tests = result["replicates"], 2 * result["cards"]
    needed = max(methods[name]["article"]["chi2_rejections_replicates_needed"] for name in unjudged)
    plural = "s" if replicates != 1 else ""
    why = ("One replicate has no spread to judge by." if replicates == 1 else
           f"With {replicates}, the prediction interval of one more replicate (Student's t with {replicates - 1} "
           f"degree{'s' if replicates > 2 else ''} of freedom), even at the finest spread {replicates} counts can "
           f"show, is wider than half the range 0 to {tests}: it could tell no count apart.")
    return [f"With {replicates} replicate{plural} the lab cannot judge the article's rejection counts "
            f"({', '.join(unjudged)}): it needs at least {needed} (--replicates {needed}). {why} The duplicates "
            f"are judged at any number of replicates: their standard error comes from the {result['runs']:,} runs "
            "of one replicate."]


def misleading_notes(result: dict) -> list:
    """Sentences, from this result's numbers, on what the article's two figures miss."""
    methods, n = result["methods"], result["cards"]
    notes = [f"Any shuffle whose every card is uniform over the positions expects {result['expected_duplicates_uniform']:.1f} "
             f"duplicates (exact), so the figure cannot tell such shuffles apart"
             + (f": the ideal S scored {methods['S']['duplicates']:.1f} and the cut C {methods['C']['duplicates']:.1f}."
                if "S" in methods and "C" in methods else ".")]
    if "S" in methods:
        notes.append(f"A fair shuffle fails about {result['rejection_level'] * 2 * n:.0f} of the {2 * n} tests at "
                     f"p < {result['rejection_level']:g} by design: S failed {methods['S']['chi2_rejections']}.")
    one_test = [name for name, method in methods.items() if method["chi2_one_test"]]
    if one_test:
        name = one_test[0]
        counts = methods[name]["replicates"]["chi2_rejections"]
        notes.append(f"The {2 * n} tests of {', '.join(one_test)} are one test {2 * n} times (every row and column "
                     f"of the matrix holds the same counts), so they reject none or all: {name}'s "
                     f"{len(counts)} replicate{'s' if len(counts) > 1 else ''} rejected "
                     f"{', '.join(str(c) for c in counts)}.")
    if "C" in methods:
        cut = methods["C"]
        notes.append(f"The permutation tests see the order: after C, {cut['mean_successions']:.1f} of {n - 1} cards "
                     f"are still followed by the next card (a uniform deck: {(n - 1) / n:.2f}) and the deck has "
                     f"{cut['mean_rising_sequences']:.2f} rising sequences (uniform: {(n + 1) / 2:.2f}).")
    if "N" in methods and methods["N"]["duplicates"] is not None:
        naive = methods["N"]
        verdict = ("yet its position test fails" if not naive["position_test_passed"] else
                   "and with these deals its position test passes too")
        notes.append(f"The naive swap N scores {naive['duplicates']:.1f} duplicates, {verdict} (smallest p "
                     f"{naive['p_values']['positions_smallest']:.1e}).")
    return notes


def read_from(method: dict) -> str:
    """Where a set of decks read from a file came from, and how many."""
    return f"{method['deals']:,} decks read from {method['source']}"


def given_lines(result: dict) -> list:
    """One line per set of decks read from a file."""
    return [f"{name}: {read_from(method)}" for name, method in result["methods"].items() if "source" in method]


def format_shuffles(result: dict) -> str:
    """The lab's result as terminal text."""
    lines = ["Shuffle lab: " + setup_line(result), *given_lines(result), "",
             _aligned(method_headers(result), method_rows(result) + [fair_row(result)]), ""]
    lines += [f"- {note}" for note in judgement_notes(result) + misleading_notes(result)]
    deals = next(iter(result["riffles"].values()))["deals"]
    simulated = (f"; simulated from {deals:,} deals; p: the simulated rising sequences against their exact law"
                 if deals else "")
    lines += ["", f"GSR riffles: total variation distance to a uniform deck (exact from rising sequences{simulated})",
              _aligned(riffle_headers(result), riffle_rows(result))]
    return "\n".join(lines)


# --------------------------------------------------------------------------
# pictures
# --------------------------------------------------------------------------


def scatter_figure(name: str, experiment: Experiment):
    """Where each marker card landed, deal by deal (Cribbage Pro's picture): a fair shuffle fills each panel evenly."""
    figure, axes = new_figure(10.0, 3.4, 1, experiment.markers.size, layout=None, sharey=True)
    figure.subplots_adjust(left=0.06, right=0.99, bottom=0.16, top=0.8, wspace=0.05)
    deals = np.arange(experiment.marked.shape[0])
    for axis, m in zip(axes, range(experiment.markers.size)):
        axis.plot(deals, experiment.marked[:, m], ".", markersize=1.5, color="tab:blue")
        axis.set_ylim(experiment.cards - 0.5, -0.5)
        axis.set_title(f"card {experiment.markers[m]}", fontsize=9)
        axis.set_xlabel("deal")
    axes[0].set_ylabel("position (0 on top)")
    figure.suptitle(f"{name}: where the marker cards land, {deals.size:,} deals")
    return figure


def neighbours_figure(name: str, experiment: Experiment):
    """How far below card c card c + 1 lies (all pairs, all deals), against a uniform permutation's exact law."""
    figure, (axis,) = new_figure(9.0, 3.8)
    n = experiment.cards
    distance = np.arange(-(n - 1), n)
    share = experiment.neighbours / experiment.neighbours.sum()
    axis.stairs(share, np.arange(-(n - 1), n + 1) - 0.5, fill=True, color="tab:blue", alpha=0.7, label=name)
    axis.plot(distance, neighbour_law(n), color="black", linewidth=1.0, label="uniform (exact)")
    axis.set_xlabel("position of card c + 1 minus position of card c")
    axis.set_ylabel("share of pairs")
    axis.set_title(f"{name}: where each card's original neighbour lies")
    axis.legend(loc="upper right")
    return figure


def riffles_figure(result: dict):
    """Distance to uniform after k GSR riffles: exact lines, simulated points, the 1/2 line."""
    figure, (axis,) = new_figure(7.0, 4.0)
    for color, (cards, deck) in zip(("tab:blue", "tab:orange", "tab:green"), result["riffles"].items()):
        riffles = np.arange(1, len(deck["exact"]) + 1)
        axis.plot(riffles, deck["exact"], color=color, label=f"{cards} cards, exact")
        if deck["simulated"] is not None:
            axis.plot(riffles, deck["simulated"], "o", color=color, fillstyle="none",
                      label=f"{cards} cards, simulated")
    axis.axhline(0.5, color="grey", linestyle="--", linewidth=0.8)
    axis.set_xlabel("GSR riffles")
    axis.set_ylabel("total variation distance to uniform")
    axis.legend()
    return figure


def draw_pictures(result: dict, experiments: dict) -> dict:
    """``{file name: PNG bytes}`` of every picture."""
    images = {RIFFLES_PLOT: rendered_png(riffles_figure, result)}
    for name, experiment in experiments.items():
        if experiment.marked.shape[0]:
            images[scatter_plot(name)] = rendered_png(scatter_figure, name, experiment)
        images[neighbours_plot(name)] = rendered_png(neighbours_figure, name, experiment)
    return images


# --------------------------------------------------------------------------
# the page
# --------------------------------------------------------------------------


def shuffles_html(result: dict, images: dict) -> str:
    n = result["cards"]
    body = [
        "<h1>Shuffle lab</h1>", f"<p>{html.escape(setup_line(result))}.</p>",
        "<h2>Methods</h2>",
        html_table(method_headers(result), method_rows(result) + [fair_row(result)]),
        "<p>duplicates: entries of a run's position matrix equal to "
        f"{' or '.join(str(v) for v in result['duplicate_values'])}, averaged over runs (± its standard error). "
        f"{2 * n} tests: each card's positions and each position's cards against uniform (chi-square). "
        "article: the figure published in <i>Refutation of an Article on Shuffling in TCG</i> (2020) under the "
        "same protocol, and whether ours agrees within Monte Carlo error. positions: the smallest of the "
        f"{2 * n} p-values against {result['alpha']:g} / 2 / {2 * n}. successions, rising seq.: their mean per "
        f"deal. order: both against their exact law for a uniform permutation, each at {result['alpha']:g} / 4.</p>",
        *(f"<p>{html.escape(note)}</p>" for note in judgement_notes(result)),
        "<h2>What the article's figures miss</h2>",
        "<ul>" + "".join(f"<li>{html.escape(note)}</li>" for note in misleading_notes(result)) + "</ul>",
        "<h2>Riffles needed</h2>",
        html_table(riffle_headers(result), riffle_rows(result)),
        embedded_image(images, RIFFLES_PLOT, "distance to uniform by riffles"),
        "<h2>Pictures</h2>",
    ]
    for name, method in result["methods"].items():
        steps = (read_from(method) if "source" in method else
                 ", ".join(dict.fromkeys(f"{METHODS[letter].letter} ({METHODS[letter].name}: "
                                         f"{METHODS[letter].description})" for letter in method["letters"])))
        body.append(f"<h3>{html.escape(name)}: {html.escape(method['verdict'])}</h3><p>{html.escape(steps)}</p>")
        for plot, what in ((scatter_plot(name), "marker cards' positions"),
                           (neighbours_plot(name), "neighbour distances")):
            if plot in images:
                body.append(embedded_image(images, plot, f"{name}: {what}"))
    return html_page("autodup shuffle lab", body)


def write_shuffles(result: dict, experiments: dict, out) -> Path:
    """Write ``out/shuffles.html`` (every picture embedded), the PNGs and ``out/shuffles.json``; returns the page.

    Every file is written under a temporary name and renamed, so a stopped
    write leaves no half file.
    """
    out = Path(out)
    images = draw_pictures(result, experiments)  # before the folder exists: a stop while drawing leaves nothing
    make_folder(out)
    for name, data in images.items():
        write_bytes_atomically(out / name, data)
    write_bytes_atomically(out / RESULT_FILE, (json.dumps(result, indent=2) + "\n").encode("utf-8"))
    path = out / PAGE
    write_bytes_atomically(path, shuffles_html(result, images).encode("utf-8"))
    return path
