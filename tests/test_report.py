"""The quality report: every plot written and embedded, nothing fetched, nulls tolerated, a browser shows it."""

import copy
import itertools
import json
import re

import pytest

from autodup.analysis.quality import verdict
from autodup.analysis.report import PLOTS, write_quality_folder, write_report
from autodup.analysis.report_plots import FIGURES

from .browser import assert_a_reader_sees_the_verdict
from .legibility import assert_legible

BOTS = ["greedy", "econ", "fast8", "random", "reroll1", "reroll2", "reroll3", "traits"]
CHAMPIONS = [f"Champion{index}" for index in range(12)]
OBSERVABLES = ["offers per champion", "shop tiers at level 3", "shop tiers at level 7", "copies per shop"]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def dealer_entry(index, name, *, control=False, exact=True):
    """One dealer's measures, following /tmp/q/schema.md; ``index`` varies the figures between dealers."""
    rounds = list(range(12))
    frequency = [1 / len(CHAMPIONS) + (0.0 if control else (-1) ** c * 0.0004 * (index + 1))
                 for c in range(len(CHAMPIONS))]
    tests = [{"observable": observable, "statistic": 3.0 + t + (40 if not exact and t == 0 else 0), "df": 4,
              "p_value": 1e-9 if not exact and t == 0 else 0.3 + 0.1 * t,
              "p_holm": 4e-9 if not exact and t == 0 else min(1.0, 0.6 + 0.1 * t)}
             for t, observable in enumerate(OBSERVABLES)]
    pairs = []
    if not control:
        for p, (a, b) in enumerate(itertools.combinations(BOTS, 2)):
            reduction = 1.1 + 0.05 * index + 0.01 * p
            pairs.append({"bots": [a, b], "mean_difference": 0.05 * (p + 1), "variance": 3.0 / reduction,
                          "variance_control": 3.0, "variance_reduction": reduction,
                          "variance_reduction_ci": [reduction - 0.1, reduction + 0.1],
                          "adjusted_variance_reduction": 2 * reduction,
                          "adjusted_mean_difference": 0.05 * (p + 1), "adjusted_variance": 3.0 / (2 * reduction),
                          "adjusted_variance_reduction_ci": [2 * reduction - 0.3, 2 * reduction + 0.3],
                          "boards_needed_why": None if p != 3 else "not resolved at 1,000 boards",
                          # A pair whose means are equal cannot be resolved: no boards figure.
                          # A pair told apart in less than a board by either format (p == 5) is left out.
                          "boards_needed": None if p == 3 else 0.4 if p == 5 else 800.0 / (p + 1),
                          "boards_needed_control": None if p == 3 else 0.6 if p == 5 else 980.0 / (p + 1),
                          "games_needed": None if p == 3 else 6400.0 / (p + 1),
                          "games_needed_control": None if p == 3 else 7840.0 / (p + 1),
                          "seconds_needed": None if p == 3 else 6.0 / (p + 1),
                          "seconds_needed_control": None if p == 3 else 7.3 / (p + 1)})
    return {
        "dealer": "independent" if control else name, "design": "latin", "events": "seat",
        "adjusted_variance_reduction": 1.5 if control else 2.5 + 0.1 * index,
        "adjusted_variance_reduction_ci": [1.3, 1.7] if control else [2.2 + 0.1 * index, 2.8 + 0.1 * index],
        "exact": exact, "correct": None if control else exact, "min_p_value": min(test["p_holm"] for test in tests),
        "deciding_observable": OBSERVABLES[0],
        "whole_shop_identical": 0.001 if control else 0.1 + 0.02 * index,
        "slot_agreement": 0.05 if control else 0.3 + 0.1 * index, "multiset_overlap": 0.2 + 0.1 * index,
        "offer_overlap": 0.5 + 0.05 * index,
        "variance_reduction": None if control else 1.2 + 0.1 * index,
        "variance_reduction_ci": None if control else [1.1 + 0.1 * index, 1.3 + 0.1 * index],
        "median_variance_reduction": None if control else 1.15 + 0.1 * index,
        "by_round": {"round": rounds, "pairs": [1000] * len(rounds),
                     "whole_shop_identical": [None] + [0.1 / (r + 1) for r in rounds[1:]],
                     "slot_agreement": [1.0 if not control else 0.05] + [0.5 / (r + 1) for r in rounds[1:]],
                     "multiset_overlap": [0.3] * len(rounds)},
        "by_bots": {"same": {"pairs": 0, "slot_agreement": None, "multiset_overlap": None, "offer_overlap": None},
                    "different": {"pairs": 1234, "slot_agreement": 0.06, "multiset_overlap": 0.2,
                                  "offer_overlap": 0.55}},
        "tests": tests,
        "pairs": pairs,
        "coupling": None if control else {"pairs": 1400, "agreement": 0.93, "agreement_se": 0.01, "j_p": 0.95,
                                          "one_minus_tv": 0.97, "weights_differ": 0.98},
        "offer_frequency": frequency,
        "offer_frequency_se": [0.0002] * len(CHAMPIONS),
    }


@pytest.fixture
def quality():
    """A quality dict with three duplicate dealers (one wrong) and the control, 8 bots, 28 pairs, some nulls."""
    quality = {
        "format": 1, "config": "set4 <&>", "bots": BOTS, "boards": 1000, "tables": 8, "seed": 0,
        "control": "independent", "alpha": 0.001, "champions": CHAMPIONS, "closest_pair": ["greedy", "traits"],
        "dealers": {"haystack": dealer_entry(0, "haystack"), "keyed": dealer_entry(1, "keyed"),
                    "replay": dealer_entry(2, "replay", exact=False),
                    "independent": dealer_entry(3, "independent", control=True)},
        "default": {"dealer": "haystack", "design": "latin", "events": "seat", "estimator": "adjusted",
                    "run": "haystack"},
        "ladder": {"haystack": [
            {"step": "shared seeds", "variance_reduction": 1.3, "variance_reduction_ci": [1.1, 1.5],
             "efficiency": 1.3, "efficiency_ci": [1.1, 1.5]},
            {"step": "+ paired seating", "variance_reduction": 1.6, "variance_reduction_ci": [1.2, 2.0],
             "efficiency": None, "efficiency_ci": [None, None],
             "efficiency_why": "not resolved at 1,000 boards: about 4,000 boards would resolve it"}]},
    }
    quality["variance_reduction"] = quality["dealers"]["haystack"]["adjusted_variance_reduction"]
    quality["verdict"] = verdict(quality)
    return quality


def embedded_images(page):
    return re.findall(r'<img src="data:image/png;base64,[A-Za-z0-9+/=]+"', page)


def test_every_plot_is_a_png_and_embedded_once(quality, tmp_path):
    path = write_report(quality, tmp_path / "report")
    assert path == tmp_path / "report" / "report.html"
    for name in PLOTS:
        data = (path.parent / name).read_bytes()
        assert data.startswith(PNG_MAGIC) and len(data) > 5000, name
    page = path.read_text(encoding="utf-8")
    assert len(embedded_images(page)) == len(PLOTS)
    for name in PLOTS:
        assert f'title="{name}"' in page


def test_a_folder_with_quality_json_holds_one_whole_report(quality, tmp_path, monkeypatch):
    """quality.json is written last, what the folder held removed first: a stop while the plots were drawn left
    the new quality.json beside the page and plots of other runs (a report folder is reused for other runs)."""
    import autodup.analysis.report as report

    out = tmp_path / "report"
    write_quality_folder(quality, out, "quality.json")
    assert json.loads((out / "quality.json").read_text())["boards"] == quality["boards"]
    assert {path.name for path in out.iterdir()} == {"quality.json", "report.html", *FIGURES}
    drawn = []
    real = report.rendered_png

    def drawn_then_stopped(draw, measures):
        if drawn:
            raise KeyboardInterrupt
        drawn.append(draw)
        return real(draw, measures)

    monkeypatch.setattr(report, "rendered_png", drawn_then_stopped)
    with pytest.raises(KeyboardInterrupt):
        write_quality_folder(dict(quality, boards=quality["boards"] + 1), out, "quality.json")
    assert {path.name for path in out.iterdir()} == {next(iter(FIGURES))}  # one new plot, nothing of the old


def test_the_page_fetches_nothing_and_escapes_text(quality, tmp_path):
    page = write_report(quality, tmp_path).read_text(encoding="utf-8")
    assert 'src="http' not in page and "<link" not in page.lower() and "url(" not in page
    assert all(source.startswith("data:") for source in re.findall(r'src="([^"]*)"', page))
    assert "set4 &lt;&amp;&gt;" in page and "set4 <&>" not in page


def test_the_page_reads_from_the_verdict_down_with_the_detail_collapsed(quality, tmp_path):
    page = write_report(quality, tmp_path).read_text(encoding="utf-8")
    headings = re.findall(r"<h2>([^<]*)</h2>", page)
    assert headings == ["Verdict", "The value's corrections, and the null check", "The ladder: what each step removes",
                        "Correctness against independent play",
                        "Cross-table measures", "Coupling diagnostic", "Detail", "Definitions"], headings
    verdict_box = page[page.index('<section id="verdict"'):page.index("</section>")]
    # The default's luck-corrected figure with its interval, raw beside it, closest and median pair, games needed.
    assert "2.32x fewer boards [2.02 \u2013 2.62]" in verdict_box and "corrected for luck" in verdict_box
    assert "closest pair: greedy vs traits" in verdict_box and "median pair" in verdict_box
    assert "Found wrong against independent play: replay (not exact, as it declares)." in verdict_box
    # A withheld figure says why; per-pair tables and every test are collapsed, only resolved pairs listed.
    assert "n/a (1)" in page and "about 4,000 boards would resolve it" in page
    detail = page[page.index("<h2>Detail</h2>"):page.index("<h2>Definitions</h2>")]
    assert detail.startswith("<h2>Detail</h2><details><summary>Luck removed, per pair of bots</summary>")
    # Pairs that need a board, or whose need the run cannot tell (with the reason); not a pair told apart at once.
    assert "greedy vs traits" in detail and "greedy vs reroll1" in detail and "greedy vs reroll3" not in detail
    assert "not resolved at 1,000 boards" in detail
    assert "To tell greedy vs traits apart at 95% with 80% power: about <b>" in verdict_box
    assert "<summary>Every test of every run</summary>" in page and "WRONG" in page and "not traced" in page
    for measure in ("J_P", "1 - TV", "Holm p", "whole shop identical", "offer overlap"):
        assert measure in page


def with_ladder_runs(quality):
    """The dict of a full ``autodup quality``: each dealer's ladder runs beside its default run, 14 runs."""
    full = copy.deepcopy(quality)
    for name in ("haystack", "keyed", "replay"):
        for design, events in (("latin", "position"), ("paired", "seat")):
            entry = copy.deepcopy(full["dealers"][name])
            entry.update({"design": design, "events": events})
            full["dealers"][f"{name}@{design}-{events}"] = entry
    return full


@pytest.mark.parametrize("runs", ["default runs", "with the ladder's runs"])
def test_every_plot_is_legible_no_label_overlaps_and_no_two_series_share_a_look(quality, runs):
    data = quality if runs == "default runs" else with_ladder_runs(quality)
    for name, draw in FIGURES.items():
        assert_legible(name, draw, data)


def test_offer_whiskers_are_two_standard_errors_of_the_dealers_difference_from_the_control(quality):
    """The dealer and the control play other tables, so their difference's SE is sqrt(se_d^2 + se_c^2): 0.0003
    and 0.0004 give whiskers of 2 x 0.0005 around each haystack point, not the control's 2 x 0.0004."""
    import matplotlib.pyplot as plt

    data = copy.deepcopy(quality)
    data["dealers"]["haystack"]["offer_frequency_se"] = [0.0003] * len(CHAMPIONS)
    data["dealers"]["independent"]["offer_frequency_se"] = [0.0004] * len(CHAMPIONS)
    figure = FIGURES["offer_frequency.png"](data)
    try:
        (axis,) = figure.axes
        haystack = [c for c in axis.containers if c.get_label() == "haystack"]
        assert len(haystack) == 1
        segments = haystack[0].lines[2][0].get_segments()
        assert len(segments) == len(CHAMPIONS)
        for segment in segments:
            assert segment[1][1] - segment[0][1] == pytest.approx(2 * 2 * 0.0005, rel=1e-12)
    finally:
        plt.close(figure)


def test_a_headless_browser_shows_the_verdict_first_with_every_image_and_no_error(quality, tmp_path):
    assert_a_reader_sees_the_verdict(write_report(quality, tmp_path / "report"), tmp_path / "profile", len(PLOTS))


def test_the_same_dict_gives_the_same_bytes(quality, tmp_path):
    first, second = write_report(quality, tmp_path / "a"), write_report(copy.deepcopy(quality), tmp_path / "b")
    assert first.read_bytes() == second.read_bytes()
    for name in PLOTS:
        assert (first.parent / name).read_bytes() == (second.parent / name).read_bytes()


def awkward_variants(quality):
    """Dicts with what may be missing missing: nulls everywhere, no pairs, no coupling, one dealer, nothing."""
    nulls = copy.deepcopy(quality)
    for dealer in nulls["dealers"].values():
        for key in ("whole_shop_identical", "slot_agreement", "variance_reduction", "min_p_value", "correct"):
            dealer[key] = None
        dealer["variance_reduction_ci"] = [None, None]
        dealer["by_round"] = {"round": [0, 1], "pairs": [0, 0], "whole_shop_identical": [None, None],
                              "slot_agreement": [None, None], "multiset_overlap": [None, None]}
        dealer["offer_frequency"] = [None] * len(CHAMPIONS)
        dealer["tests"][0]["p_holm"] = None
        for pair in dealer["pairs"]:
            pair["boards_needed"] = pair["boards_needed_control"] = None
    no_pairs = copy.deepcopy(quality)
    for dealer in no_pairs["dealers"].values():
        dealer["pairs"], dealer["coupling"], dealer["by_bots"] = [], None, None
    single = copy.deepcopy(quality)
    single["dealers"] = {"haystack": single["dealers"]["haystack"]}
    control_only = copy.deepcopy(quality)
    control_only["dealers"] = {"independent": control_only["dealers"]["independent"]}
    bare = {"dealers": {"independent": {}}}
    return {"nulls": nulls, "no pairs": no_pairs, "single dealer": single, "control only": control_only,
            "bare": bare}


@pytest.mark.parametrize("variant", ["nulls", "no pairs", "single dealer", "control only", "bare"])
def test_missing_measures_do_not_crash(quality, tmp_path, variant):
    awkward = awkward_variants(quality)[variant]
    json.dumps(awkward)  # still a dict quality.json could hold
    page = write_report(awkward, tmp_path).read_text(encoding="utf-8")
    assert len(embedded_images(page)) == len(PLOTS)
    assert all((tmp_path / name).read_bytes().startswith(PNG_MAGIC) for name in PLOTS)


def test_a_verdict_whose_interval_holds_1_says_no_reduction_is_shown(quality):
    from autodup.analysis.report import verdict_section

    assert "it holds 1" not in verdict_section(quality)
    unsure = copy.deepcopy(quality)
    unsure["verdict"]["pairs"][0]["adjusted_ci"] = [0.92, 2.4]
    assert "95% interval over boards; it holds 1: no reduction is shown at this size." in verdict_section(unsure)


def test_games_to_a_verdict_are_at_least_one(quality):
    """A pair so far apart that under one game would tell it read "about 0 games" in the table, the page and
    quality.json."""
    from autodup.analysis.quality import games_needed, terminal_table
    from autodup.analysis.report import verdict_section

    pair = {"adjusted_mean_difference": 3.0, "adjusted_variance": 0.01, "mean_difference": 3.0,
            "variance_control": 0.04, "corrected_variance": 0.005}
    games = games_needed(pair, {"exact": True, "correct": True}, boards=1000, tables=8)
    # ((1.96 + 0.84) x 0.2 / 3)^2 x 8 = 0.28
    assert games["duplicate"] == games["independent"] == games["corrected"] == 1.0
    pair.update(adjusted_mean_difference=0.074, mean_difference=0.074)
    far = games_needed(pair, {"exact": True, "correct": True}, boards=1000, tables=8)
    # Unchanged above one game: 80% power's boards (the normal's 97.5% and 80% quantiles) x 8 tables.
    assert far["independent"] == pytest.approx(((1.959964 + 0.841621) * 0.2 / 0.074) ** 2 * 8)
    quality = copy.deepcopy(quality)
    quality["variance_reduction_ci"] = quality["dealers"]["haystack"]["adjusted_variance_reduction_ci"]
    quality["verdict"]["games_needed"].update(games)
    line = next(line for line in terminal_table(quality).splitlines() if line.startswith("games to tell"))
    assert line.endswith("apart at 95% with 80% power: about 1 with the default, 1 at independent tables"), line
    assert "0 games" not in verdict_section(quality)
