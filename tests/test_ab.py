"""``autodup ab`` and ``autodup sweep``: --set edits, the paired comparison's arithmetic and calibration, the gain
over independent seeds on a change of known direction, exact zeros for a change of nothing, --until-ci, errors."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml
from scipy import stats

from autodup.analysis.ab_report import effects_figure, sweep_figure
from autodup.analysis.balance import PairedRatios, compare_variants
from autodup.errors import ConfigError, UsageError
from autodup.game.bot_loading import bot_names, load_bot
from autodup.game.config import load_config, parse_config
from autodup.game.variants import apply_settings, parse_setting, parse_sweep
from autodup.tournament.results import RunFolder
from autodup.tournament.run import play_run
from autodup.tournament.spec import make_spec

from .browser import assert_a_reader_sees_the_verdict
from .legibility import assert_legible

ROOT = Path(__file__).resolve().parents[1]


def run(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "autodup", *args], capture_output=True, text=True, timeout=900,
                          cwd=cwd, env={**os.environ, "PYTHONPATH": str(ROOT)})


# --- --set edits -------------------------------------------------------------------------------------------------

def edited(config, *options):
    return apply_settings(config, [parse_setting(o) for o in options])


def test_set_edits_only_the_value_in_place_and_keeps_every_other_line():
    base = load_config("set4")
    variant, changes = edited(base, "levels.8.odds=[10,15,35,30,10]", "tiers.3.copies=6")
    assert changes == [("levels.8.odds", [16, 20, 35, 25, 4], [10, 15, 35, 30, 10]), ("tiers.3.copies", 12, 6)]
    old, new = base.text.splitlines(), variant.text.splitlines()
    assert len(old) == len(new)
    differing = [i for i, (a, b) in enumerate(zip(old, new)) if a != b]
    assert [old[i].strip() for i in differing] == ["8: {xp: 56, board_size: 8, odds: [16, 20, 35, 25, 4]}",
                                                  "copies: 12"]
    assert [new[i].strip() for i in differing] == ["8: {xp: 56, board_size: 8, odds: [10, 15, 35, 30, 10]}",
                                                  "copies: 6"]
    assert variant.level_odds[8].tolist() == [10, 15, 35, 30, 10]
    assert variant.champion_copies[variant.champion_tier == 3].tolist() == [6] * 11
    expected = yaml.safe_load(base.text)
    expected["levels"][8]["odds"] = [10, 15, 35, 30, 10]
    expected["tiers"][3]["copies"] = 6
    assert yaml.safe_load(variant.text) == expected


@pytest.mark.parametrize("option, check", [
    ("shop={size: 6, reroll_price: 1}", lambda c: (c.shop_size, c.reroll_price) == (6, 1)),
    ("economy.streaks=[{length: 2, gold: 2}]", lambda c: c.streak_gold.tolist() == [2]),
    ("levels.10={xp: 100, odds: [0, 0, 20, 40, 40]}", lambda c: c.max_level == 10),
    ("traits.The Boss.bonus=[0.3]", lambda c: c.trait_bonus[c.trait_names.index("The Boss"), 0] == 0.3),
    ("bench_size=8", lambda c: c.bench_size == 8),
])
def test_set_replaces_whole_blocks_and_adds_missing_keys(option, check):
    variant, _ = edited(load_config("set4"), option)
    assert check(variant)


def test_an_invalid_variant_gets_the_line_autodup_check_gives_the_same_file(tmp_path):
    base = load_config("set4")
    with pytest.raises(ConfigError) as raised:
        edited(base, "levels.8.odds=[10,15,35,30]")
    by_hand = tmp_path / "variant.yaml"
    by_hand.write_text(base.text.replace("odds: [16, 20, 35, 25, 4]", "odds: [10, 15, 35, 30]"))
    checked = run("check", str(by_hand))
    assert checked.returncode == 2
    # The same line and message: only the file's name differs.
    assert str(raised.value).split(":", 2)[1:] == checked.stderr.strip().split(":", 2)[1:]
    assert str(raised.value).startswith(f"{base.source} (--set):32: levels.8.odds: ")


@pytest.mark.parametrize("option, message", [
    ("shopp.size=6", "shopp: --set shopp.size=6: no field 'shopp' in the top level (fields: name, players"),
    ("tiers.5.copies=6", "tiers.5: --set tiers.5.copies=6: no item '5' in tiers, a list of 5 (allowed: indices 0 to 4"),
    ("shop.size.x=1", "shop.size.x: --set shop.size.x=1: shop.size is a single value"),
    ("shop.sizee=6", "shop.sizee: unknown key (allowed: empty_tier, reroll_price, size, units_leave_pool)"),
])
def test_unknown_paths_are_one_line_config_errors(option, message):
    base = load_config("set4")
    with pytest.raises(ConfigError) as raised:
        edited(base, option)
    assert message in str(raised.value) and "\n" not in str(raised.value)
    if option.startswith("shopp"):  # the top level is the whole file: no line (it named the first key's, line 6)
        assert str(raised.value).startswith(f"{base.source}: shopp: "), str(raised.value)


@pytest.mark.parametrize("option, says", [
    ("name=&a [*a]", "alias *a is inside the value it refers to"),       # a value that refers to itself
    ("name=" + "[" * 100 + "]" * 100, "nested more than 64 deep"),          # deeper than a file may nest
])
def test_set_values_go_through_the_limits_of_configuration_files(option, says):
    with pytest.raises(UsageError) as raised:
        parse_setting(option)
    assert says in str(raised.value) and "\n" not in str(raised.value)
    with pytest.raises(UsageError):
        parse_sweep(option + ",1")


@pytest.mark.parametrize("option, says", [
    ("tiers.0.copies=011", "011 is read by YAML as 9 (octal); write 9, or 11 if that was meant"),
    ("tiers.0.copies=0x10", "0x10 is read by YAML as 16 (hexadecimal)"),
    ("tiers.0.copies=1_000", "1_000 is read by YAML as 1000 (underscores ignored)"),
    ("economy.interest.per=yes", 'yes is read by YAML as true (boolean); write true, or quote it ("yes")'),
    ("levels.8.odds=[10,15,035,30,10]", "035 is read by YAML as 29 (octal)"),
])
def test_a_set_value_yaml_reads_otherwise_than_written_is_refused_not_played(option, says):
    """A file's 011 gets a warning (the file is the user's to read again); an edit typed on the command line is
    refused, in ab and in sweep, since the variant played would not be the one typed."""
    with pytest.raises(UsageError) as raised:
        parse_setting(option)
    assert says in str(raised.value) and "\n" not in str(raised.value)
    with pytest.raises(UsageError) as raised:
        parse_sweep(option + ",1")
    assert says in str(raised.value)
    assert parse_setting("tiers.0.copies=11").value == 11 and parse_setting("tiers.0.copies=0").value == 0


@pytest.mark.parametrize("option", ["levels.8.odds", "=3", "a..b=1", "a=", "levels.8.odds=[1"])
def test_malformed_settings_are_one_line_value_errors(option):
    with pytest.raises(UsageError) as raised:
        parse_setting(option)
    assert str(raised.value).startswith("settings: ") and "\n" not in str(raised.value)
    assert raised.value.for_command_line().startswith("--set: ")  # the option of autodup ab and sweep


def test_sweep_values_are_one_yaml_flow_list():
    assert [s.value for s in parse_sweep("tiers.3.copies=8,10,12")] == [8, 10, 12]
    assert [s.value for s in parse_sweep("levels.8.odds=[10,15,35,30,10],[16,20,35,25,4]")] == \
        [[10, 15, 35, 30, 10], [16, 20, 35, 25, 4]]
    for bad in ("tiers.3.copies=8,,12", "tiers.3.copies=8,8"):
        with pytest.raises(ValueError):
            parse_sweep(bad)


def test_overlapping_settings_are_refused():
    with pytest.raises(ConfigError, match="set inside levels.8"):
        edited(load_config("set4"), "levels.8={xp: 56, odds: [16, 20, 35, 25, 4]}", "levels.8.odds=[1,2,3,4,90]")
    with pytest.raises(ConfigError, match="set twice"):
        edited(load_config("set4"), "shop.size=6", "shop.size=7")


# --- the paired comparison's arithmetic -----------------------------------------------------------------------

def brute_force(y_base, n_base, y_variant, n_variant):
    """Per component: the change of the ratios and its delta-method variance, from per-board arrays."""
    boards = y_base.shape[0]
    r_base, r_variant = y_base.sum(0) / n_base.sum(0), y_variant.sum(0) / n_variant.sum(0)
    u_base = (y_base - r_base * n_base) / n_base.mean(0)
    u_variant = (y_variant - r_variant * n_variant) / n_variant.mean(0)
    paired = (u_variant - u_base).var(0, ddof=1) / boards
    independent = (u_base.var(0, ddof=1) + u_variant.var(0, ddof=1)) / boards
    return r_variant - r_base, paired, independent


def test_paired_ratios_match_the_per_board_computation_whatever_the_chunking():
    generator = np.random.default_rng(20261123)
    boards, k = 300, 5
    n_base = generator.integers(1, 9, size=(boards, k)).astype(float)
    n_variant = n_base + generator.integers(0, 3, size=(boards, k))
    y_base = n_base * generator.random((boards, k)) * 3
    y_variant = y_base * (1 + 0.1 * generator.standard_normal((boards, k))) + 0.2 * n_variant
    pairs = PairedRatios(k)
    for start in range(0, boards, 25):  # as chunks
        part = slice(start, start + 25)
        pairs.add(y_base[part], n_base[part], y_variant[part], n_variant[part])
    estimate = pairs.estimate()
    change, paired, independent = brute_force(y_base, n_base, y_variant, n_variant)
    np.testing.assert_allclose(estimate["change"], change, rtol=1e-12)
    t = stats.t.ppf(0.975, boards - 1)
    np.testing.assert_allclose(estimate["half_width"], t * np.sqrt(paired), rtol=1e-9)
    np.testing.assert_allclose(estimate["variance_reduction"], independent / paired, rtol=1e-9)


def test_identical_sides_give_a_change_of_exactly_zero_and_no_interval():
    """No board differs: the change is exactly 0, and no 95% interval is claimed (a t interval of width 0 was)."""
    generator = np.random.default_rng(7)
    y, n = generator.random((50, 4)) * 10, generator.integers(1, 5, size=(50, 4)).astype(float)
    pairs = PairedRatios(4, replicates=20)
    pairs.add(y, n, y.copy(), n.copy(), weights=generator.poisson(1.0, size=(50, 20)))
    estimate = pairs.estimate()
    assert (estimate["change"] == 0).all() and np.isnan(estimate["low"]).all() and np.isnan(estimate["high"]).all()
    assert not np.isfinite(estimate["variance_reduction"]).any()


def test_a_rare_event_seen_on_no_board_has_no_interval_rather_than_zero_width():
    """A change whose boards all show no difference (a rare unit's 3-star rate at a few boards) is not measured:
    its interval of width 0 covered the true change in 78.5% of 200 runs of 5 boards (a review's simulation).
    Here the true change is 0.01 a row; in runs of 5 boards where no board differed, no interval is claimed, and
    every interval that is claimed has positive width."""
    generator = np.random.default_rng(3)
    unmeasured = claimed = 0
    for _ in range(200):
        n = np.full((5, 1), 8.0)
        base = generator.binomial(8, 0.001, size=(5, 1)).astype(float)
        variant = base + generator.binomial(8, 0.01, size=(5, 1))
        pairs = PairedRatios(1)
        pairs.add(base, n, variant, n.copy())
        estimate = pairs.estimate()
        if (variant == base).all():
            unmeasured += 1
            assert np.isnan(estimate["low"][0]) and np.isnan(estimate["high"][0])
        else:
            claimed += 1
            assert estimate["high"][0] > estimate["low"][0]
    assert unmeasured > 50 and claimed > 50  # both cases are met (P(no board differs) = 0.99**40, about 0.67)


def test_the_bots_moved_are_taken_together_by_holm():
    """An exact null with 8 bots flags at least one bot's per-comparison interval in about 1 - 0.95**8 = 34% of
    runs (a review measured 28% on the game); the bots said to move, taken together by Holm, in at most 5%.
    1,000 synthetic runs of 8 independent bots' 25 board differences (normal, mean 0): the family-wise rate is
    checked against 5% + 4.5 standard errors, the per-comparison rate against its own law. A bot with a real
    change (1 sd a board) is still found in most runs."""
    from autodup.analysis.ab import moved_after_holm
    from autodup.analysis.statistics import t_half_width

    generator = np.random.default_rng(8)
    runs, boards, bots = 1000, 25, 8
    any_alone = any_together = found = 0
    for _ in range(runs):
        differences = generator.normal(size=(boards, bots))
        differences[:, 0] += 1.0
        entries = {}
        for b in range(bots):
            mean = differences[:, b].mean()
            half = float(t_half_width(differences[:, b].var(ddof=1) / boards, boards - 1))
            entries[f"bot{b}"] = {"mean_placement": {"change": mean, "ci": [mean - half, mean + half]}}
        together = moved_after_holm([entries], "mean_placement", boards)[0]
        alone = {name for name, e in entries.items() if not e["mean_placement"]["ci"][0] <= 0 <= e[
            "mean_placement"]["ci"][1]}
        assert together <= alone
        any_alone += bool(alone - {"bot0"})
        any_together += bool(together - {"bot0"})
        found += "bot0" in together
    expected_alone = 1 - 0.95 ** (bots - 1)
    assert abs(any_alone / runs - expected_alone) < 4.5 * np.sqrt(expected_alone * (1 - expected_alone) / runs)
    assert any_together / runs < 0.05 + 4.5 * np.sqrt(0.05 * 0.95 / runs)
    assert found / runs > 0.95


def test_the_paired_interval_covers_the_true_change_95_percent_of_the_time():
    """Coverage over 2,000 synthetic comparisons of 40 boards with a known change of ratios (0.3)."""
    generator = np.random.default_rng(11)
    trials, boards = 2000, 40
    covered = 0
    for _ in range(trials):
        n = generator.integers(4, 9, size=(boards, 1)).astype(float)
        shared = generator.standard_normal((boards, 1))  # what the same boards share
        y_base = n * (2.0 + shared + 0.5 * generator.standard_normal((boards, 1)))
        y_variant = n * (2.3 + shared + 0.5 * generator.standard_normal((boards, 1)))
        pairs = PairedRatios(1)
        pairs.add(y_base, n, y_variant, n)
        estimate = pairs.estimate()
        # The true change of the ratio of sums is 0.3 for every draw of n: y/n differ by 0.3 in mean.
        covered += estimate["low"][0] <= 0.3 <= estimate["high"][0]
    standard_error = np.sqrt(0.95 * 0.05 / trials)
    assert abs(covered / trials - 0.95) < 4.5 * standard_error, covered / trials


# --- end to end ----------------------------------------------------------------------------------------------

def played(config, out, boards, seed=0, bots=None):
    bots = [load_bot(name) for name in (bots or bot_names())]
    spec = make_spec(config, bots, boards, "haystack", seed)
    play_run(spec, out, workers=2, resume=Path(out).exists(), quiet=True)
    return RunFolder(out)


def fast8_per_board(folder):
    table = folder.table(["board", "bot", "placement"])
    board = table.column("board").to_numpy()
    placement = table.column("placement").to_numpy().astype(float)
    mine = np.array(table.column("bot").to_pylist()) == "fast8"
    return np.bincount(board[mine], weights=placement[mine]) / np.bincount(board[mine])


@pytest.mark.slow  # three runs of 1,000 boards; the default suite plays ab on smaller changes
def test_fewer_copies_of_the_four_costs_hurts_fast8_and_the_same_boards_need_a_quarter_of_the_boards(tmp_path):
    """fast8 rolls for 4- and 5-costs at level 8; with 3 copies of each 4-cost instead of 12 it places worse.

    The same boards detect it; independent seeds (the variant on another tournament seed) need at least four
    times the boards for the same interval: their variance of the per-board change is measured, not assumed.
    """
    boards = 1000
    base = load_config("set4")
    variant, _ = edited(base, "tiers.3.copies=3")
    base_run, variant_run = played(base, tmp_path / "base", boards), played(variant, tmp_path / "variant", boards)
    elsewhere = played(variant, tmp_path / "elsewhere", boards, seed=1)
    fast8 = compare_variants(base_run, variant_run)["bots"]["fast8"]["mean_placement"]
    assert fast8["ci"][0] > 0, fast8  # detected: it hurts
    t = stats.t.ppf(0.975, boards - 1)
    paired_variance = ((fast8["ci"][1] - fast8["ci"][0]) / 2 / t) ** 2
    a, b = fast8_per_board(base_run), fast8_per_board(elsewhere)
    independent_variance = a.var(ddof=1) / boards + b.var(ddof=1) / boards
    assert independent_variance / paired_variance >= 4, independent_variance / paired_variance
    # The reported factor estimates the same quantity from the paired runs alone.
    assert fast8["variance_reduction"] >= 4


def test_a_change_of_nothing_reports_zero_effect_exactly_and_the_json_layout(tmp_path):
    # name= changes the text (so both configurations are played) but not the game.
    result = run("ab", "configs/tiny.yaml", "--set", "name=tiny again", "--boards", "50", "--workers", "2",
                 "--out", str(tmp_path / "ab"), "--json", "--quiet")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["boards"] == 50 and data["variance_reduction"] is None
    assert data["changes"] == [{"path": "name", "base": "tiny", "variant": "tiny again"}]
    assert set(data["bots"]) == set(bot_names())
    for entry in data["bots"].values():
        assert entry["delta_mean_placement"] == 0 and entry["ci"] == [None, None]  # no board differed
    config = load_config("tiny")
    assert set(data["champions"]) == set(config.champion_names) and set(data["traits"]) == set(config.trait_names)
    for kind in ("bots", "champions", "traits"):
        for entry in data[kind].values():
            for statistic in entry.values():
                if isinstance(statistic, dict):
                    assert statistic["change"] in (0, None) and statistic["ci"] in ([0, 0], [None, None])
    assert json.loads((tmp_path / "ab" / "ab.json").read_text()) == data
    assert (tmp_path / "ab" / "report.html").is_file() and (tmp_path / "ab" / "effects.png").stat().st_size > 0


def test_ab_table_names_the_change_and_the_effects(tmp_path):
    result = run("ab", "configs/tiny.yaml", "--set", "tiers.2.copies=6", "--boards", "75", "--workers", "2",
                 "--out", str(tmp_path / "ab"), "--quiet")
    assert result.returncode == 0, result.stderr
    assert "tiers.2.copies: 3 -> 6" in result.stdout
    assert "variance reduction against independent seeds:" in result.stdout
    data = json.loads((tmp_path / "ab" / "ab.json").read_text())
    # Six copies instead of three of each 3-cost: more of them are offered, exactly where the pool says.
    fox = data["champions"]["Fox"]["offer_rate"]
    assert fox["ci"][0] > 0
    # The page opens with the decision, in the first screen: what moved, then the detail.
    assert_legible("effects.png", effects_figure, data)
    seen = assert_a_reader_sees_the_verdict(tmp_path / "ab" / "report.html", tmp_path / "profile", 1)
    decision = re.search(r'<section id="verdict".*?</section>', seen["dom"], re.S).group(0)
    assert "<h2>Decision</h2>" in decision and "Champions:" in decision and "by chance alone" in decision
    assert "cut the variance of a change" in decision


def test_until_ci_stops_when_every_interval_is_narrow_enough_and_ignores_the_workers(tmp_path):
    args = ["ab", "configs/tiny.yaml", "--set", "tiers.2.copies=5", "--until-ci", "0.1", "--boards", "1000",
            "--quiet", "--json"]
    one = run(*args, "--workers", "1", "--out", str(tmp_path / "one"))
    assert one.returncode == 0, one.stderr
    data = json.loads(one.stdout)
    assert data["boards"] % 25 == 0 and 100 < data["boards"] < 1000
    widths = [(e["ci"][1] - e["ci"][0]) / 2 for e in data["bots"].values()]
    assert max(widths) <= 0.1
    two = run(*args, "--workers", "2", "--out", str(tmp_path / "two"))
    assert json.loads(two.stdout)["bots"] == data["bots"]
    # A wider target, in the same folder, stops earlier on the boards already played.
    wider = run(*[a if a != "0.1" else "0.3" for a in args], "--workers", "2", "--out", str(tmp_path / "one"))
    assert wider.returncode == 0, wider.stderr
    assert json.loads(wider.stdout)["boards"] < data["boards"]


def test_sweep_plots_each_value_against_the_base_and_the_base_value_is_exactly_zero(tmp_path):
    config = load_config("tiny")
    base_value = int(config.champion_copies[config.champion_tier == 2][0])
    values = sorted({2, base_value, 6})
    result = run("sweep", "configs/tiny.yaml", "--set", f"tiers.2.copies={','.join(map(str, values))}",
                 "--boards", "50", "--workers", "2", "--out", str(tmp_path / "sweep"), "--quiet")
    assert result.returncode == 0, result.stderr
    # The base's own value is a point of the sweep (exactly 0), not a change that changes nothing (issue 27).
    assert result.stderr == "", result.stderr
    sweep = json.loads((tmp_path / "sweep" / "sweep.json").read_text())
    assert sweep["paths"] == ["tiers.2.copies"] and [p["values"] for p in sweep["points"]] == [[v] for v in values]
    # Each point's variant is named as ab.json names its one (it was the base's file alone).
    assert [p["variant"].rsplit(" with --set ", 1)[1] for p in sweep["points"]] == [f"tiers.2.copies={v}"
                                                                                    for v in values]
    at_base = sweep["points"][values.index(base_value)]
    assert all(e["delta_mean_placement"] == 0 and e["ci"] == [None, None] for e in at_base["bots"].values())
    assert (tmp_path / "sweep" / "sweep.png").stat().st_size > 0
    assert "data:image/png;base64," in (tmp_path / "sweep" / "report.html").read_text()
    assert_legible("sweep.png", sweep_figure, sweep)
    seen = assert_a_reader_sees_the_verdict(tmp_path / "sweep" / "report.html", tmp_path / "profile", 1)
    decision = re.search(r'<section id="verdict".*?</section>', seen["dom"], re.S).group(0)
    assert "<h2>Decision</h2>" in decision and decision.count("<tr") == len(values) + 1


def test_a_sweep_warns_only_of_a_path_that_no_value_changes(tmp_path):
    result = run("sweep", "configs/tiny.yaml", "--set", "shop.size=3", "--set", "bench_size=5", "--bots",
                 "greedy", "--boards", "25", "--out", str(tmp_path / "sweep"), "--quiet")
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip().splitlines() == [
        "autodup: warning: --set shop.size: changes nothing (the base has 3 there already; list items count from 0)"]


@pytest.mark.parametrize("args, message", [
    (["ab", "configs/tiny.yaml"], "nothing to compare"),
    (["ab", "configs/tiny.yaml", "--set", "tiers.9.copies=3"], "no item '9' in tiers"),
    (["ab", "configs/tiny.yaml", "--set", "levels.2.odds=[50,50]"], "levels.2.odds"),
    (["ab", "configs/tiny.yaml", "--set", "levels.2.odds"], "not PATH=VALUE"),
    (["ab", "configs/tiny.yaml", "--set", "shop.size=4", "--until-ci", "0"], "out of range"),
    (["sweep", "configs/tiny.yaml", "--set", "shop.size=3,4", "--set", "bench_size=5"], "different numbers"),
    (["sweep", "configs/tiny.yaml"], "--set"),
    (["ab", "configs/set4.yaml", "configs/tiny.yaml"], "shares no champion with the base"),
])
def test_bad_comparisons_get_one_line_and_exit_2_and_write_nothing(tmp_path, args, message):
    result = run(*args, "--out", str(tmp_path / "out"), "--boards", "25")
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr
    assert not (tmp_path / "out").exists()


def test_a_variant_with_no_trait_in_common_is_compared_and_says_so(tmp_path):
    """Comparable (champions in common) but with an empty table: the report says so instead of failing."""
    text = load_config("tiny").text
    for old, new in (("Swarm", "Hive"), ("Guard", "Ward"), ("Striker", "Hitter"), ("Shell", "Husk"), ("Sky", "Air")):
        text = text.replace(old, new)
    (tmp_path / "renamed.yaml").write_text(text)
    result = run("ab", "configs/tiny.yaml", str(tmp_path / "renamed.yaml"), "--bots", "greedy,econ", "--boards", "25",
                 "--out", str(tmp_path / "out"), "--quiet")
    assert result.returncode == 0, result.stderr
    assert "traits: none in common between the two configurations" in result.stdout
    assert json.loads((tmp_path / "out" / "ab.json").read_text())["traits"] == {}
    assert "None in common between the two configurations" in (tmp_path / "out" / "report.html").read_text()


@pytest.mark.slow  # about half a minute: a bot that thinks for seconds in a few games
def test_a_stopped_ab_says_that_the_same_command_goes_on_not_a_resume_it_does_not_have(tmp_path):
    """ab has no --resume: the line of a stopped ab names what to run (issue 27); run again, it goes on."""
    bots = ROOT / "tests" / "bots" / "slow.py"
    args = ["ab", "configs/tiny.yaml", "--set", "shop.size=4", "--bots", f"greedy,{bots}", "--bot-param",
            "slow.one_in=40", "--bot-param", "slow.steps=1e10", "--boards", "75", "--seed", "1", "--workers", "1",
            "--out", str(tmp_path / "ab"), "--quiet"]
    stopped = run(*args, "--game-timeout", "0.3")
    lines = stopped.stderr.strip().splitlines()
    assert stopped.returncode == 2 and len(lines) == 1, stopped.stderr
    assert "finished chunks are kept (the same command, run again, goes on from them)" in lines[0]
    assert "--resume" not in lines[0]
    again = run(*args, "--game-timeout", "600")
    assert again.returncode == 0, again.stderr


def test_variant_with_other_players_is_refused(tmp_path):
    text = load_config("tiny").text.replace("players: 8", "players: 6")
    (tmp_path / "six.yaml").write_text(text)
    result = run("ab", "configs/tiny.yaml", str(tmp_path / "six.yaml"), "--out", str(tmp_path / "out"))
    assert result.returncode == 2 and "players is 6, the base's 8" in result.stderr
    assert parse_config(text).players == 6


# --- corrected by a value ------------------------------------------------------------------------------------------

SET4_VALUE = ROOT / "configs" / "set4.value.json"  # its corrections have mean zero under tiny too (any weights)


def corrected_ab(out, settings, value=SET4_VALUE, bots=None, boards=50):
    import autodup

    warnings = []
    report = autodup.ab("tiny", settings=settings, bots=bots, boards=boards, out=out, workers=2, value=value,
                        warn=warnings.append)
    # The one warning expected: the file was fitted on set4, not on tiny.
    assert all("fitted on configuration" in w or "changes nothing" in w for w in warnings), warnings
    return report


@pytest.fixture(scope="module")
def corrected_change(tmp_path_factory):
    """A real change (six copies of each 3-cost instead of three), both runs corrected by the set4 value."""
    return corrected_ab(tmp_path_factory.mktemp("corrected") / "ab", ["tiers.2.copies=6"])


def keys_of(data) -> set:
    if isinstance(data, dict):
        return set(data) | {k for value in data.values() for k in keys_of(value)}
    if isinstance(data, list):
        return {k for value in data for k in keys_of(value)}
    return set()


def test_without_a_value_ab_json_has_no_corrected_field_and_the_table_is_as_before(tmp_path):
    report = corrected_ab(tmp_path / "ab", ["tiers.2.copies=6"], value=None, bots="greedy,econ", boards=25)
    data = json.loads((tmp_path / "ab" / "ab.json").read_text())
    assert not [k for k in keys_of(data) if "corrected" in k] and data["value"] is None
    assert set(data["bots"]["greedy"]) == {"delta_mean_placement", "ci", "mean_placement", "top4_rate",
                                           "three_star_rate"}
    lines = report.text.splitlines()
    assert lines[2] == (f"{'bot':<12} {'mean placement':>17} {'change':>8} {'95% CI':>20} {'top-4 change':>13} "
                        f"{'95% CI':>20} {'var. red.':>9}")
    assert "corrected" not in report.text and "(median over bots; * marks an interval that excludes 0)" in report.text
    assert "corrected" not in (tmp_path / "ab" / "report.html").read_text()
    assert RunFolder(tmp_path / "ab" / "runs" / "base").identity["value_sha256"] is None
    # "auto" (the default) on a configuration with no value file beside it is the same: nothing corrected.
    from autodup.api.values import choose_value

    assert choose_value("auto", load_config("tiny"), print, print) is None


def test_a_corrected_ab_gives_each_bot_its_corrected_change_beside_the_raw_one(corrected_change):
    data = corrected_change.data
    assert data["value"] == str(SET4_VALUE)
    for name, entry in data["bots"].items():
        corrected = entry["corrected_placement"]
        assert entry["delta_corrected_placement"] == corrected["change"] and entry["corrected_ci"] == corrected["ci"]
        assert corrected["ci"][0] < corrected["change"] < corrected["ci"][1], name
        assert corrected["variance_reduction"] > 0
    low, high = data["corrected_variance_reduction_ci"]
    assert 0 < low < high and data["corrected_variance_reduction"] > 0
    assert data["variance_reduction"] > 0 and data["variance_reduction_ci"][0] < data["variance_reduction_ci"][1]
    text = corrected_change.text
    assert "corrected by the value: " in text and "against independent seeds uncorrected" in text
    assert max(len(line) for line in text.splitlines()[:len(data["bots"]) + 3]) < 120
    for name, entry in data["bots"].items():
        row = next(line for line in text.splitlines() if line.startswith(f"{name} "))
        assert f"{entry['delta_corrected_placement']:+.3f}" in row and f"{entry['corrected_ci'][0]:+.3f}" in row
    page = (corrected_change.folder / "report.html").read_text()
    assert "corrected change" in page and "Corrected by the value as well" in page
    assert_legible("effects.png", effects_figure, data)


def per_board(folder, column):
    """float64 (boards, bots): each board's sum of ``column`` over each bot's rows (every row scores under the
    default Latin square), read straight from the chunk files; and the rows per board and bot."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.concat_tables([pq.read_table(path, columns=["board", "bot", column])
                              for path in sorted((Path(folder) / "chunks").glob("chunk-*.parquet"))])
    board = table.column("board").to_numpy()
    names = sorted(set(table.column("bot").to_pylist()))
    bot = np.array([names.index(name) for name in table.column("bot").to_pylist()])
    values = table.column(column).to_numpy().astype(float)
    shape = (board.max() + 1, len(names))
    y, n = np.zeros(shape), np.zeros(shape)
    np.add.at(y, (board, bot), values)
    np.add.at(n, (board, bot), 1.0)
    return names, y, n


def test_the_corrected_change_recomputed_by_hand_from_the_chunks_matches_ab_json(corrected_change):
    runs = corrected_change.folder / "runs"
    data = corrected_change.data
    names, raw_base, n_base = per_board(runs / "base", "placement")
    _, raw_variant, n_variant = per_board(runs / "variant", "placement")
    _, corrected_base, _ = per_board(runs / "base", "corrected_placement")
    _, corrected_variant, _ = per_board(runs / "variant", "corrected_placement")
    change, paired, _ = brute_force(corrected_base, n_base, corrected_variant, n_variant)
    _, raw_paired, raw_independent = brute_force(raw_base, n_base, raw_variant, n_variant)
    # The change of the mean correction (placement - corrected), from the chunks: ab.json's raw change less its
    # corrected change must be it.
    correction = ((raw_variant - corrected_variant).sum(0) / n_variant.sum(0)
                  - (raw_base - corrected_base).sum(0) / n_base.sum(0))
    t = stats.t.ppf(0.975, data["boards"] - 1)
    for i, name in enumerate(names):
        entry = data["bots"][name]
        assert entry["delta_corrected_placement"] == pytest.approx(change[i], abs=1e-9)
        assert entry["delta_mean_placement"] - entry["delta_corrected_placement"] == pytest.approx(correction[i],
                                                                                                  abs=1e-9)
        low, high = entry["corrected_ci"]
        assert (high - low) / 2 == pytest.approx(t * np.sqrt(paired[i]), abs=1e-9)
        # Against the raw change on independent seeds: the same boards and the value together.
        assert entry["corrected_placement"]["variance_reduction"] == pytest.approx(
            raw_independent[i] / paired[i], rel=1e-9)
        assert entry["mean_placement"]["variance_reduction"] == pytest.approx(
            raw_independent[i] / raw_paired[i], rel=1e-9)
        # Two intervals of the same change: they overlap.
        raw_low, raw_high = entry["ci"]
        assert low <= raw_high and raw_low <= high, name
    per_bot = [data["bots"][name]["corrected_placement"]["variance_reduction"] for name in names]
    assert data["corrected_variance_reduction"] == pytest.approx(float(np.median(per_bot)), rel=1e-12)
    # The value's corrections have mean zero whatever the rules: their change from base to variant, board by board,
    # is within 4.5 standard errors of 0 for every bot (a correction added with the wrong sign, or one that is not
    # an innovation, would move the corrected change away from the raw one).
    moved = (raw_variant - corrected_variant) / n_variant - (raw_base - corrected_base) / n_base
    boards = moved.shape[0]
    assert np.all(np.abs(moved.mean(0)) <= 4.5 * moved.std(0, ddof=1) / np.sqrt(boards)), moved.mean(0)


@pytest.mark.parametrize("command", ["ab", "sweep"])
def test_a_variant_that_changes_nothing_has_a_corrected_change_of_exactly_zero(tmp_path, command):
    import autodup

    if command == "ab":  # name= changes the text (so both configurations are played) but not the game
        points = [corrected_ab(tmp_path / "ab", ["name=tiny again"], bots="greedy,econ,random", boards=25).data]
    else:  # the base's own value is a point of the sweep
        points = autodup.sweep("tiny", "tiers.2.copies=3,6", bots="greedy,econ,random", boards=25,
                               out=tmp_path / "sweep", workers=2, value=SET4_VALUE, warn=lambda line: None)
        text, points = points.text, points.data["points"]
        assert text.count("\n  corrected ") == 2 and "corrected: the change of the placement corrected" in text
    same = points[0]
    assert same["corrected_variance_reduction"] is None and same["corrected_variance_reduction_ci"] == [None, None]
    for entry in same["bots"].values():
        assert entry["delta_corrected_placement"] == 0 and entry["corrected_ci"] == [None, None]


def test_until_ci_reads_the_corrected_interval_when_there_is_one():
    from autodup.analysis.ab import widest_interval

    raw = {"change": 0.1, "ci": [0.0, 0.2]}
    plain = {"bots": {"a": {"mean_placement": raw}, "b": {"mean_placement": {"change": 0.0, "ci": [-0.05, 0.05]}}}}
    assert widest_interval([plain]) == (pytest.approx(0.1), "a")
    corrected = {"bots": {"a": {"mean_placement": raw, "corrected_placement": {"change": 0.1, "ci": [0.08, 0.12]}},
                          "b": {"mean_placement": raw, "corrected_placement": {"change": 0.1, "ci": [0.0, 0.2]}}}}
    assert widest_interval([corrected]) == (pytest.approx(0.1), "b")


@pytest.mark.parametrize("command", ["ab", "sweep"])
def test_a_bad_value_file_is_refused_in_one_line_and_nothing_is_written(tmp_path, command):
    bad = tmp_path / "bad.value.json"
    bad.write_text("[]")
    setting = "shop.size=4" if command == "ab" else "shop.size=4,5"
    for value in (bad, tmp_path / "missing.json"):
        result = run(command, "configs/tiny.yaml", "--set", setting, "--boards", "25", "--value", str(value),
                     "--out", str(tmp_path / "out"), "--quiet")
        lines = result.stderr.strip().splitlines()
        assert result.returncode == 2 and len(lines) == 1 and "value file" in lines[0], result.stderr
        assert not (tmp_path / "out").exists()


def test_a_folder_of_other_runs_is_refused_as_the_commands_own_option(tmp_path):
    """ab, sweep, quality and luck fit go on from their own folder's runs, with no --resume option of their own:
    their folder holding runs of other arguments was refused as `--resume: OUT/runs/base holds a run ...; resume
    with the same ones`, and luck fit's --run-folder holding no run as `--out: ...`."""
    out = str(tmp_path / "ab")
    assert run("ab", "configs/tiny.yaml", "--set", "shop.size=4", "--bots", "greedy,econ", "--boards", "25", "--out",
               out, "--quiet", "--workers", "1").returncode == 0
    result = run("ab", "configs/tiny.yaml", "--set", "shop.size=4", "--bots", "greedy,econ", "--boards", "50",
                 "--out", out, "--quiet", "--workers", "1")
    assert result.returncode == 2 and result.stderr.strip().splitlines() == [
        f"autodup: error: --out: {out} holds runs of other arguments or files (boards differ: 50 given, 25 in the run) "
        "(allowed: the same ones, to go on, or another folder)"], result.stderr
    result = run("luck", "fit", "configs/tiny.yaml", "--bots", "greedy,econ", "--boards", "2", "--out",
                 str(tmp_path / "tiny.value.json"), "--run-folder", out, "--workers", "1")
    assert result.returncode == 2 and result.stderr.strip().splitlines() == [
        f"autodup: error: --run-folder: {out} is not empty and has no manifest.json (not a run folder)"], result.stderr
    result = run("luck", "fit", "configs/tiny.yaml", "--bots", "greedy,econ", "--boards", "2", "--out",
                 str(tmp_path / "tiny.value.json"), "--run-folder", f"{out}/runs/base", "--workers", "1")
    assert result.returncode == 2 and result.stderr.strip().splitlines()[0].startswith(
        f"autodup: error: --run-folder: {out}/runs/base holds a run of other arguments or files ("), \
        result.stderr


def test_one_bot_at_every_seat_says_why_placements_show_no_change(tmp_path):
    """With one bot at every seat its mean placement is the middle place in every game: ab said that the two runs
    were identical, beside champions' changes that showed they were not."""
    result = run("ab", "configs/tiny.yaml", "--set", "shop.size=4", "--bots", "greedy", "--boards", "25", "--out",
                 str(tmp_path / "ab"), "--quiet", "--workers", "1")
    assert result.returncode == 0, result.stderr
    assert "variance reduction: n/a (one bot at every seat: its mean placement is the same in every game" \
        in result.stdout and "identical" not in result.stdout, result.stdout
    assert "champions, offers per game (clearest changes; " in result.stdout
    page = (tmp_path / "ab" / "report.html").read_text()
    assert "No change of placement: one bot at every seat" in page
    swept = run("sweep", "configs/tiny.yaml", "--set", "shop.size=3,4", "--bots", "greedy", "--boards", "25",
                "--out", str(tmp_path / "sweep"), "--quiet", "--workers", "1")
    assert swept.returncode == 0 and "one bot at every seat: its mean placement is the same" in swept.stdout
    assert "No change of placement: one bot at every seat" in (tmp_path / "sweep" / "report.html").read_text()


def test_the_header_names_a_seating_and_events_other_than_the_default():
    from autodup.analysis.ab import format_ab

    result = {"config_name": "tiny", "boards": 25, "tables": 2, "dealer": "haystack", "seed": 0, "design": "latin",
              "events": "seat", "changes": [], "bots": {}, "champions": {}, "traits": {}, "variance_reduction": None}
    assert format_ab(result).splitlines()[0] == ("tiny: 25 boards x 2 tables, dealer haystack, seed 0, the same "
                                                 "boards under both configurations")
    result.update(design="paired", events="position")
    assert format_ab(result).splitlines()[0].startswith("tiny: 25 boards x 2 tables, dealer haystack, paired "
                                                        "seating, events by position, seed 0")


def test_until_ci_stopped_at_its_cap_says_a_larger_cap_plays_new_runs(tmp_path):
    result = run("ab", "configs/tiny.yaml", "--set", "shop.size=4", "--bots", "greedy,econ", "--until-ci", "0.01",
                 "--boards", "25", "--out", str(tmp_path / "ab"), "--quiet", "--workers", "1")
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if "--until-ci" in line]
    assert len(warnings) == 1 and "stopped at the cap of 25 boards" in warnings[0]
    assert "a larger --boards goes further, in another --out" in warnings[0], warnings
    refused = run("ab", "configs/tiny.yaml", "--set", "shop.size=4", "--bots", "greedy,econ", "--until-ci", "0.01",
                  "--boards", "50", "--out", str(tmp_path / "ab"), "--quiet", "--workers", "1")
    assert refused.returncode == 2 and "boards differ" in refused.stderr  # as the warning said
