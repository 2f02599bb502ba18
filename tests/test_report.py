"""The quality report: every plot written and embedded, nothing fetched, nulls tolerated, a browser shows it."""

import copy
import itertools
import json
import re
import shutil
import subprocess

import pytest

from autodup.analysis.report import PLOTS, write_report

BOTS = ["greedy", "econ", "fast8", "random", "reroll1", "reroll2", "reroll3", "traits"]
CHAMPIONS = [f"Champion{index}" for index in range(12)]
OBSERVABLES = ["offers per champion", "shop tiers at level 3", "shop tiers at level 7", "copies per shop"]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def dealer_entry(index, *, control=False, exact=True):
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
                          # A pair whose means are equal cannot be resolved: no boards figure.
                          "boards_needed": None if p == 3 else 800.0 / (p + 1),
                          "boards_needed_control": None if p == 3 else 980.0 / (p + 1),
                          "games_needed": None if p == 3 else 6400.0 / (p + 1),
                          "games_needed_control": None if p == 3 else 7840.0 / (p + 1),
                          "seconds_needed": None if p == 3 else 6.0 / (p + 1),
                          "seconds_needed_control": None if p == 3 else 7.3 / (p + 1)})
    return {
        "exact": exact, "correct": exact, "min_p_value": min(test["p_holm"] for test in tests),
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
    return {
        "format": 1, "config": "set4 <&>", "bots": BOTS, "boards": 1000, "tables": 8, "seed": 0,
        "control": "independent", "alpha": 0.001, "champions": CHAMPIONS, "closest_pair": ["greedy", "traits"],
        "dealers": {"haystack": dealer_entry(0), "keyed": dealer_entry(1), "replay": dealer_entry(2, exact=False),
                    "independent": dealer_entry(3, control=True)},
    }


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


def test_the_page_fetches_nothing_and_escapes_text(quality, tmp_path):
    page = write_report(quality, tmp_path).read_text(encoding="utf-8")
    assert 'src="http' not in page and "<link" not in page.lower() and "url(" not in page
    assert all(source.startswith("data:") for source in re.findall(r'src="([^"]*)"', page))
    assert "set4 &lt;&amp;&gt;" in page and "set4 <&>" not in page


def test_the_page_holds_the_tables_and_definitions(quality, tmp_path):
    page = write_report(quality, tmp_path).read_text(encoding="utf-8")
    for heading in ("Headline", "Cross-table measures", "Coupling diagnostic", "Luck removed", "Correctness",
                    "Definitions"):
        assert f"<h2>{heading}" in page
    assert "greedy-traits" in page and "WRONG" in page and "not traced" in page
    assert page.count("<tr") > 28 * 3  # every pair of every duplicate dealer has a row
    for measure in ("J_P", "1 - TV", "Holm p", "whole shop identical", "offer overlap"):
        assert measure in page


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


def find_browser():
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def test_a_headless_browser_renders_every_image(quality, tmp_path):
    browser = find_browser()
    if browser is None:
        pytest.skip("no chromium, chromium-browser or google-chrome on PATH (.ci/run installs Debian's chromium)")
    path = write_report(quality, tmp_path / "report")
    # --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start; a profile of its own per test.
    result = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000",
                             f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", path.as_uri()],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr[-2000:]
    images = len(PLOTS)
    assert f'data-images="{images}"' in result.stdout, result.stdout[:500]
    assert f'data-images-loaded="{images}"' in result.stdout, re.findall(r"<body[^>]*>", result.stdout)
