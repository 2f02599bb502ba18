"""The quality report: one self-contained HTML page (``report.html``) and its plots as PNG files.

:func:`write_report` takes the dict :func:`autodup.analysis.quality.measure_quality`
returns (``quality.json``). The page reads from the conclusion down:

* the **verdict**: the default run's variance reduction (raw and luck-corrected,
  closest and median pair), the games each format needs to separate the
  closest pair, and any dealer found wrong; a figure the run is too small to
  give says so and how many boards it needs;
* the **ladder**: what each step removes, as a table and one plot (``ladder.png``);
* **correctness** of each dealer against the independent control
  (``correctness.png``, ``offer_frequency.png``);
* the **cross-table measures** and the coupling diagnostic (``agreement_by_round.png``);
* the **detail**, collapsed: per-pair tables, same bot against different bot,
  every correctness test (``boards_needed.png``); then the definitions.

Nulls (measures that could not be taken) are a dash, or "n/a" with the reason.
The same dict gives the same bytes (:mod:`autodup.analysis.pages`).
"""

from __future__ import annotations

import html
from pathlib import Path

from ..files import json_safe, write_bytes_atomically, write_json_atomically
from .measures import events_name, seating_name
from .pages import (
    DASH,
    details,
    embedded_image,
    format_interval,
    format_number,
    format_share,
    html_page,
    html_table,
    number,
    rendered_png,
)
from .report_plots import FIGURES, PLOTS, control_name, dealer_names, is_control, measures_of, pair_label, run_label

__all__ = ["PLOTS", "DEFINITIONS", "Notes", "with_interval", "verdict_section", "value_section", "ladder_section",
           "correctness_section", "cross_table_section", "coupling_section", "detail_section", "definitions_section",
           "render_html", "write_report", "write_quality_folder"]

DEFINITIONS = (
    ("whole-shop identical", "For two tables of one board, the same seat and the same round (both seats alive), "
     "the shops dealt by the round's free refresh hold the same champion in every slot (a slot empty at both "
     "tables included, two empty shops not); averaged over table "
     "pairs and rounds 1 and later (round 0 is identical for every shared dealer)."),
    ("slot agreement", "Share of those shops' slots that hold the same (non-empty) champion at both tables."),
    ("multiset overlap", "sum_c min(a_c, b_c) / shop size: the same champions in any slot order."),
    ("offer overlap", "Over a whole game, every shop a seat was dealt (rerolls included): "
     "sum_c min(nA_c, nB_c) / max(NA, NB) for the two tables' seats."),
    ("same bot / different bot", "The same measures split by whether the two tables' seats held the same bot "
     "(under the Latin square they never do)."),
    ("coupling", "From each seat's first {draws} draws at the first {boards} boards, replayed with their inputs: at the "
     "first draw where two tables' inputs (tier and champion weights, draw key) differ, how often they still dealt "
     "the same champion (\"at the same key\": among those whose draw key is the same), beside the mean J_P "
     "(P-MinHash: the best a communication-free dealer can guarantee) and 1 - TV (the maximal coupling: no correct "
     "dealer exceeds it) of the two champion laws. \"Weights differ\" and \"key differs\": the share of those "
     "first differing draws whose weights, or whose draw key (another round or reroll), differ."),
    ("variance reduction", "Per board, each bot's mean placement over its tables; for a pair of bots the per-board "
     "difference D. The factor is var(D) under the independent control divided by var(D) under the dealer: "
     "how many times fewer boards the dealer needs for the same precision. 95% interval: Poisson bootstrap "
     "over boards (each board's weights drawn from its own seed, the same for every run)."),
    ("boards needed", "((1.96 + 0.84) sd(D) / |mean D|)^2 boards to tell the pair apart at 95% with 80% power (a "
     "run of that many boards has a 95% interval that excludes 0 in 80% of runs), mean D measured by the "
     "control; games = boards x tables; seconds at the speed the runs were played."),
    ("correctness", "Per-table observables of each dealer against the independent control: the tier of shop slots "
     "at each level, each champion's share of offers, placement by bot and seat, final HP, rounds survived and "
     "gold spent by bot. A board is the sampling unit (ratios of per-board sums, covariance across boards, over the "
     "boards with a denominator); a Wald test per observable, referred to Hotelling's law (its F form: the "
     "covariance is estimated), or a Welch t per component, Bonferroni, with fewer than 10 boards per dimension; "
     "Holm-corrected per dealer. Correct when the smallest corrected p-value is at least alpha."),
    ("offer frequency", "Each champion's share of all offers under each dealer, minus the control's, with "
     "whiskers of +/- 2 standard errors of the difference (the dealer's and the control's combined: they play other "
     "tables). An exact dealer's points reach 0 within their whiskers about 95% of the time, so a few champions "
     "in a hundred fall outside by chance; the correctness test above weighs them all at once."),
)




class Notes:
    """Numbered notes for figures a run cannot give: ``cell(value, interval, why)`` is the figure with its
    interval, or "n/a (k)" with note k saying why; :meth:`html` lists the notes under the table."""

    def __init__(self):
        self.reasons = []

    def cell(self, value, interval, why=None, style="ratio") -> str:
        if number(value) is None:
            if not why:
                return DASH
            if why not in self.reasons:
                self.reasons.append(why)
            return f"n/a ({self.reasons.index(why) + 1})"
        return with_interval(value, interval, style=style)

    def html(self) -> str:
        items = "".join(f"<li>({index}) {html.escape(why)}</li>" for index, why in enumerate(self.reasons, 1))
        return f'<ol class="note" style="list-style: none">{items}</ol>' if items else ""


def with_interval(value, interval, style="ratio") -> str:
    """``value [low – high]``, ``value`` alone without an interval, or a dash."""
    if number(value) is None:
        return DASH
    bounds = format_interval(interval, style)
    return format_number(value, style) + ("" if bounds == DASH else f" [{bounds}]")


def verdict_section(quality: dict) -> str:
    """The conclusion: the default's variance reduction with its interval, raw and luck-corrected, closest and
    median pair; games needed to separate the closest pair; dealers found wrong."""
    verdict = quality.get("verdict") or {}
    default = quality.get("default") or {}
    if not verdict:
        reason = ("this quality.json predates the verdict (an older autodup wrote it; `autodup report` on its runs "
                  "gives one)" if "verdict" not in quality and quality.get("dealers") else
                  "the default run (haystack, Latin square, events by who) was not among the runs measured")
        return ('<section id="verdict" class="verdict"><h2>Verdict</h2><p>No verdict: '
                f"{html.escape(reason)}. The tables below hold what was measured.</p></section>")
    closest, median = (verdict.get("pairs") or [{}, {}])[:2]
    setup = (f"the {default.get('dealer')} dealer, "
             f"{seating_name(default.get('design', 'latin'))}, {events_name(default.get('events', 'seat'))}")
    adjusted = number(closest.get("adjusted"))
    notes = Notes()
    if adjusted is not None:
        bounds = format_interval(closest.get("adjusted_ci"))
        headline = (f'<p class="figure">{html.escape(format_number(adjusted, "ratio"))}x fewer boards'
                    + ("" if bounds == DASH else f" [{html.escape(bounds)}]") + "</p>"
                    f"<p>than independent tables need to compare the closest pair of bots "
                    f"({html.escape(pair_label(closest.get('pair')))}), with autodup's default: "
                    f"{html.escape(setup)}, placements corrected for luck. 95% interval over boards"
                    + ("; it holds 1: no reduction is shown at this size" if (number(
                        (closest.get("adjusted_ci") or [None])[0]) or 2.0) <= 1.0 else "") + ".</p>")
    else:
        why = closest.get("adjusted_why") or "not measured"
        headline = ('<p class="figure">Luck-corrected figure not given</p><p>'
                    f"{html.escape(why[:1].upper() + why[1:])}. On raw placements the "
                    f"default ({html.escape(setup)}) needs "
                    f"{html.escape(format_number(closest.get('raw'), 'ratio'))}x fewer boards than independent "
                    f"tables [{html.escape(format_interval(closest.get('raw_ci')))}].</p>")
    corrected = number(closest.get("corrected")) is not None
    rows = [[f"{role} pair: {pair_label(entry.get('pair'))}",
             format_number(entry.get("mean_difference"), "difference"),
             with_interval(entry.get("raw"), entry.get("raw_ci")),
             notes.cell(entry.get("adjusted"), entry.get("adjusted_ci"), entry.get("adjusted_why"))]
            + ([with_interval(entry.get("corrected"), entry.get("corrected_ci"))] if corrected else [])
            for role, entry in (("closest", closest), ("median", median))]
    table = html_table(["pair (mean placement difference, independent tables)", "difference",
                        "raw placements", "luck-corrected"] + (["corrected by the value"] if corrected else []),
                       rows, highlighted={0}) + notes.html()
    games = verdict.get("games_needed") or {}
    pair = html.escape(pair_label(closest.get("pair")))
    if number(games.get("duplicate")) is not None:
        needed = (f"To tell {pair} apart at 95% with 80% power: about "
                  f"<b>{html.escape(format_number(games.get('duplicate'), 'count'))} games</b> with the default, "
                  f"against {html.escape(format_number(games.get('independent'), 'count'))} games at independent "
                  "tables.")
    elif number(games.get("independent")) is not None:
        needed = (f"To tell {pair} apart at 95% with 80% power: about "
                  f"{html.escape(format_number(games.get('independent'), 'count'))} games at independent tables; with "
                  "the default, not given: "
                  f"{html.escape(games.get('why') or 'not measured')}.")
    else:
        needed = f"Games needed to tell {pair} apart: not given: {html.escape(games.get('why') or 'not measured')}."
    if corrected:
        shares = verdict.get("variance_removed_by_kind") or {}
        needed += (" Corrected by the value (its weights fixed on training boards before these boards were played"
                   + (f"): about {html.escape(format_number(games.get('corrected'), 'count'))} games"
                      if number(games.get("corrected")) is not None else "): games not given")
                   + ". Of the closest pair's variance, each kind of chance event's correction removes alone: "
                   + html.escape(", ".join(f"{kind} {'n/a' if share is None else format_share(share)}"
                                           for kind, share in shares.items())) + ".")
    wrong = verdict.get("wrong") or []
    if wrong:
        exact = set(verdict.get("wrong_exact") or [])
        correctness = ("<p class=\"wrong\">Found wrong against independent play: "
                       + ", ".join(html.escape(name) + (" (it claims to be exact)" if name in exact
                                                         else " (not exact, as it declares)")
                                   for name in wrong) + ".</p>")
    elif all(entry.get("correct") is True for name, entry in (quality.get("dealers") or {}).items()
             if not is_control(quality, name)):
        correctness = ('<p class="correct">Every dealer passed its correctness tests against independent play '
                       f"(family-wise alpha {html.escape(format_number(quality.get('alpha')))}).</p>")
    else:
        correctness = "<p>Some dealers have no correctness verdict; see Correctness below.</p>"
    return (f'<section id="verdict" class="verdict"><h2>Verdict</h2>{headline}{table}<p>{needed}</p>'
            f"{correctness}</section>")


def value_section(quality: dict) -> str:
    """The value's corrections, kind of chance event by kind, for every pair of the default run; and the null
    check (two copies of one bot), under every estimator."""
    default = (quality.get("default") or {}).get("run")
    pairs = ((quality.get("dealers") or {}).get(default) or {}).get("pairs") or []
    kinds = next((list(pair["variance_removed_by_kind"]) for pair in pairs if pair.get("variance_removed_by_kind")),
                 [])
    parts = []
    if kinds:
        closest = quality.get("closest_pair")
        rows = [[pair_label(pair.get("bots")), with_interval(pair.get("corrected_variance_reduction"),
                                                              pair.get("corrected_variance_reduction_ci")),
                 *(format_share((pair.get("variance_removed_by_kind") or {}).get(kind)) for kind in kinds)]
                for pair in pairs]
        highlighted = {i for i, pair in enumerate(pairs) if pair.get("bots") == closest}
        parts.append("<p>Each kind of chance event's correction is exact under that event's law, so it has mean "
                     "zero whatever the value's weights; the weights, fixed on training boards before these boards "
                     "were played, decide only how much luck it removes. Share of each pair's variance (of its "
                     "per-board difference, duplicate tables) that each kind's correction removes on its own, and "
                     "all of them together; the closest pair in bold.</p>"
                     + html_table(["pair", "corrected: variance reduction [95% CI]", *kinds], rows, highlighted))
    else:
        parts.append("<p>The runs were not corrected by a value (<code>--value none</code>, or no value file "
                     "fitted on this configuration's text: <code>autodup luck fit</code> fits one).</p>")
    null = quality.get("null_check") or {}
    if null.get("estimators"):
        rows = [[label + (f" ({entry['why']})" if entry.get("why") else ""),
                 format_number(entry.get("z_mean"), "difference"), format_number(entry.get("z_sd"), "ratio"),
                 format_number(entry.get("p_mean"), "p"), format_number(entry.get("p_sd"), "p"),
                 {True: "consistent", False: "NOT consistent", None: DASH}[entry.get("consistent")]]
                for label, entry in null["estimators"].items()]
        bots = " and ".join(html.escape(str(bot)) for bot in null.get("bots") or [])
        pooled = (" (the value, which does not know the copy, corrects it by its pooled weights)"
                  if "corrected" in null["estimators"] else "")
        verdict = {True: "Every estimator is consistent with no difference, as it must be.",
                   False: "An estimator is NOT consistent with no difference: it is biased, or its intervals "
                          "are too narrow.", None: ""}[null.get("consistent")]
        parts.append(f"<h3>Null check: one bot twice</h3><p>{bots} are one bot under two names, so their true "
                     f"difference is 0{pooled}. "
                     f"Their per-board difference in {format_number(null.get('groups'), 'count')} groups of "
                     f"{format_number(null.get('boards_per_group'), 'count')} boards: each group's z-score should be "
                     f"N(0, 1). p-values: the z-scores' mean against 0, their spread against 1. "
                     f"{html.escape(verdict)}</p>"
                     + html_table(["estimator", "z mean", "z sd", "p (mean)", "p (sd)", "verdict"], rows))
    elif null.get("why"):
        parts.append(f"<h3>Null check: one bot twice</h3><p>Not measured: {html.escape(null['why'])}.</p>")
    return "<h2>The value's corrections, and the null check</h2>" + "".join(parts)


def ladder_section(quality: dict, images: dict) -> str:
    """What each step removes on the closest pair: a row per step, and the ladder plot."""
    rows, notes = [], Notes()
    for dealer, steps in (quality.get("ladder") or {}).items():
        for step in steps:
            rows.append([f"{dealer}: {step.get('step')}",
                         notes.cell(step.get("variance_reduction"), step.get("variance_reduction_ci"),
                                    step.get("variance_reduction_why")),
                         notes.cell(step.get("efficiency"), step.get("efficiency_ci"), step.get("efficiency_why"))])
    table = (html_table(["dealer: step", "variance reduction [95% CI]", "efficiency [95% CI]"], rows) + notes.html()
             if rows else "<p>No ladder was played (--no-ladder).</p>")
    return ("<h2>The ladder: what each step removes</h2><p>Variance reduction: the closest pair's variance at "
            "independent tables of the same seating over its variance here. Efficiency: the games a plain "
            "tournament (independent tables, Latin square, raw placements) needs over the games this needs.</p>"
            + embedded_image(images, "ladder.png", "variance reduction per run, raw and luck-corrected") + table)


def correctness_section(quality: dict, images: dict) -> str:
    """Each dealer's verdict against the control, the heat map, offer frequencies; every test collapsed."""
    rows, tests = [], []
    for name in dealer_names(quality, with_control=False):
        if is_control(quality, name):
            continue  # the control under another seating: nothing to test it against
        dealer = measures_of(quality, name)
        verdict = {True: "correct", False: "WRONG"}.get(dealer.get("correct"), "no verdict")
        claim = {True: "exact", False: "not exact"}.get(dealer.get("exact"), "no claim")
        rows.append([name, verdict, claim, str(dealer.get("deciding_observable") or DASH),
                     format_number(dealer.get("min_p_value"), "p")])
        table = [[test.get("observable", DASH), format_number(test.get("statistic")),
                  format_number(test.get("df"), "count"), format_number(test.get("p_value"), "p"),
                  format_number(test.get("p_holm"), "p")] for test in dealer.get("tests") or []]
        tests.append(f"<h4>{html.escape(name)}</h4>" + (html_table(["observable", "statistic", "df", "p", "Holm p"],
                                                                   table) if table else "<p>No tests.</p>"))
    wrong = {index for index, row in enumerate(rows) if row[1] == "WRONG"}
    return (f"<h2>Correctness against independent play</h2><p>Each run's per-table observables against the "
            f"control's, Holm-corrected per run at alpha = {html.escape(format_number(quality.get('alpha')))}.</p>"
            + html_table(["run", "verdict", "registry claim", "deciding observable", "smallest Holm p"], rows, wrong)
            + embedded_image(images, "correctness.png", "correctness tests per run")
            + embedded_image(images, "offer_frequency.png", "offer frequency per champion")
            + details("Every test of every run", "".join(tests)))


def cross_table_section(quality: dict, images: dict) -> str:
    """How alike two tables' shops are, per run."""
    measures = ("whole_shop_identical", "slot_agreement", "multiset_overlap", "offer_overlap")
    rows = [[run_label(quality, name)] + [format_number(measures_of(quality, name).get(measure), "share")
                                          for measure in measures] for name in dealer_names(quality)]
    return ("<h2>Cross-table measures</h2><p>How alike the shops of one seat are at two tables of a board, "
            "rounds 1 and later.</p>"
            + html_table(["run"] + [measure.replace("_", " ") for measure in measures], rows)
            + embedded_image(images, "agreement_by_round.png", "agreement by round per dealer"))


def coupling_section(quality: dict) -> str:
    """Measured agreement on traced draws beside what the coupling predicts and what any coupling can reach."""
    rows = []
    for name in dealer_names(quality):
        coupling = measures_of(quality, name).get("coupling")
        if not coupling:
            rows.append([name, "not traced", DASH, DASH, DASH, DASH, DASH, DASH])
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


def detail_section(quality: dict, images: dict) -> str:
    """Collapsed: per run, the pairs of bots that need at least one board (or whose need this run cannot tell);
    same bot against different bot."""
    needed = (("boards_needed", "count"), ("games_needed", "count"), ("seconds_needed", "seconds"))
    closest = pair_label(quality.get("closest_pair"))
    notes = Notes()
    parts = []
    for name in dealer_names(quality, with_control=False):
        pairs = [pair for pair in measures_of(quality, name).get("pairs") or []
                 if pair.get("boards_needed_why") or max(number(pair.get("boards_needed")) or 0,
                                                         number(pair.get("boards_needed_control")) or 0) >= 1]
        if not pairs:
            continue
        rows = [[pair_label(pair.get("bots")), format_number(pair.get("mean_difference"), "difference"),
                 with_interval(pair.get("variance_reduction"), pair.get("variance_reduction_ci")),
                 notes.cell(pair.get("adjusted_variance_reduction"), pair.get("adjusted_variance_reduction_ci"),
                            pair.get("adjusted_variance_reduction_why"))]
                + [notes.cell(pair.get(key + side), None, pair.get("boards_needed_why"), style)
                   for key, style in needed for side in ("", "_control")]
                for pair in pairs]
        highlighted = {index for index, pair in enumerate(pairs) if pair_label(pair.get("bots")) == closest}
        parts.append(f"<h4>{html.escape(run_label(quality, name))}</h4>" + html_table(
            ["pair", "mean difference", "variance reduction", "luck-corrected", "boards", "boards (independent)",
             "games", "games (independent)", "seconds", "seconds (independent)"], rows, highlighted))
    split = []
    for name in dealer_names(quality):
        for group in ("same", "different"):
            counts = (measures_of(quality, name).get("by_bots") or {}).get(group) or {}
            if number(counts.get("pairs")):
                split.append([run_label(quality, name), f"{group} bot", format_number(counts.get("pairs"), "count")]
                             + [format_number(counts.get(measure), "share")
                                for measure in ("slot_agreement", "multiset_overlap", "offer_overlap")])
    pairs_note = ("<p>The pairs of bots that need at least one board to tell apart, or whose need this run cannot "
                  "tell yet; the closest pair in bold.</p>")
    return ("<h2>Detail</h2>"
            + details("Luck removed, per pair of bots", pairs_note + ("".join(parts) + notes.html() or
                                                                      "<p>No pair to show.</p>")
                      + embedded_image(images, "boards_needed.png", "boards needed per pair"))
            + details("Same bot against different bot", html_table(
                ["run", "seats played by", "table pairs", "slot agreement", "multiset overlap", "offer overlap"],
                split) if split else "<p>No table pair.</p>"))


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
    setup = (f"{format_number(quality.get('boards'), 'count')} boards x "
             f"{format_number(quality.get('tables'), 'count')} tables, seed {quality.get('seed')}; bots {bots}; "
             f"control {control_name(quality)}.")
    body = [f"<h1>Duplicate quality: {html.escape(config)}</h1>", f'<p class="note">{html.escape(setup)}</p>',
            verdict_section(quality), value_section(quality), ladder_section(quality, images), correctness_section(quality, images),
            cross_table_section(quality, images), coupling_section(quality), detail_section(quality, images),
            definitions_section(quality)]
    return html_page(f"autodup quality report: {config}", body)


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
    images = {}
    for name, draw in FIGURES.items():
        images[name] = rendered_png(draw, quality)
        write_bytes_atomically(out / name, images[name])
    path = out / "report.html"
    write_bytes_atomically(path, render_html(quality, images).encode("utf-8"))
    return path


def write_quality_folder(quality: dict, out_dir, quality_file: str) -> None:
    """Write the measures' folder: the plots and the page (:func:`write_report`), then ``quality_file``
    (``quality.json``), last.

    What the folder held before goes first, so that a folder with a ``quality_file`` holds one whole report: a stop
    while the plots are drawn (seconds) left the new ``quality.json`` beside the page and plots of other runs.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for name in (quality_file, "report.html", *FIGURES):
        (out / name).unlink(missing_ok=True)
    write_report(quality, out)
    write_json_atomically(out / quality_file, json_safe(quality))
