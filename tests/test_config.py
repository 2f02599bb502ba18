"""Game configurations: every shipped config is valid; every broken one gets its one line."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from autodup.errors import ConfigError
from autodup.game.config import load_config, parse_config

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = sorted((ROOT / "configs").glob("*.yaml"))
BROKEN = sorted((ROOT / "tests" / "broken_configs").glob("*.yaml"))
ENVIRONMENT = {**os.environ, "PYTHONPATH": str(ROOT)}


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "autodup", *args], capture_output=True, text=True, timeout=300,
                          cwd=ROOT, env=ENVIRONMENT)


def expectation(path: Path):
    """``(line or None, field path, message fragment)`` from the file's ``# expect:`` header."""
    first = path.read_text().splitlines()[:1]
    if not first or not first[0].startswith("# expect:"):
        return None, "", "empty file"
    line, field, fragment = (part.strip() for part in first[0][len("# expect:"):].split("|"))
    return (None if line == "*" else int(line)), field, fragment


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_shipped_configs_are_valid(path):
    config = load_config(path)
    assert config.n_champions > 0
    result = run_cli("check", str(path))
    assert result.returncode == 0, result.stderr
    assert f"{path}: valid" in result.stdout


def test_there_are_at_least_30_broken_configs():
    assert len(BROKEN) >= 30


@pytest.mark.parametrize("path", BROKEN, ids=lambda p: p.stem)
def test_broken_config_gets_one_precise_line(path):
    line, field, fragment = expectation(path)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{path}:")
    assert fragment in message, message
    error = caught.value
    assert error.path == field, message
    if line is not None:
        assert error.line == line, message
        prefix = f"{path}:{line}: {field}: " if field else f"{path}:{line}: "
        assert message.startswith(prefix), message
    if field:
        assert "(" in message and ")" in message, f"no 'what is allowed' part: {message}"


@pytest.mark.parametrize("name", ["01_typo_top_level_key", "37_bad_yaml_syntax", "39_empty_file"])
def test_cli_check_rejects_with_exit_2_and_one_line(name):
    path = ROOT / "tests" / "broken_configs" / f"{name}.yaml"
    result = run_cli("check", str(path))
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{path}:"), result.stderr
    assert "Traceback" not in result.stderr


def test_missing_file_is_one_line():
    result = run_cli("check", "no/such/config.yaml")
    assert result.returncode == 2 and result.stderr.strip() == \
        "no/such/config.yaml: no such file (shipped configurations: set4, tiny; or the path of a YAML file)"


def test_set4_has_the_numbers_of_tft_set_4():
    """The default config against the numbers stated in the issue (not read from the file)."""
    config = load_config(ROOT / "configs" / "set4.yaml")
    assert np.diff(config.tier_start).tolist() == [13, 13, 13, 11, 8]
    copies = [sorted(set(config.champion_copies[config.champion_tier == t].tolist())) for t in range(5)]
    assert copies == [[29], [22], [18], [12], [10]]
    assert config.tier_cost.tolist() == [1, 2, 3, 4, 5]
    odds = {1: [100, 0, 0, 0, 0], 2: [100, 0, 0, 0, 0], 3: [75, 25, 0, 0, 0], 4: [55, 30, 15, 0, 0],
            5: [45, 33, 20, 2, 0], 6: [25, 40, 30, 5, 0], 7: [19, 30, 35, 15, 1], 8: [16, 20, 35, 25, 4],
            9: [9, 15, 30, 30, 16]}
    for level, row in odds.items():
        assert config.level_odds[level].tolist() == row
    assert config.level_xp[2:].tolist() == [2, 2, 6, 10, 20, 36, 56, 80]
    assert (config.reroll_price, config.xp_price, config.xp_amount, config.xp_per_round) == (2, 4, 4, 2)
    assert (config.interest_per, config.interest_max) == (10, 5)
    assert config.streak_length.tolist() == [2, 4, 5] and config.streak_gold.tolist() == [1, 2, 3]
    assert (config.starting_hp, config.shop_size, config.bench_size, config.players) == (100, 5, 9, 8)
    assert config.level_board_size[1:].tolist() == list(range(1, 10))
    assert {"Twisted Fate", "Zilean", "Nunu & Willump", "Lee Sin"} <= set(config.champion_names)
    assert len(config.trait_names) == 26
    zilean = config.champion_names.index("Zilean")
    assert config.tier_cost[config.champion_tier[zilean]] == 5
    assert {config.trait_names[k] for k in config.champion_traits[zilean] if k >= 0} == {"Cultist", "Mystic"}


def test_compiled_arrays_are_consistent():
    config = load_config(ROOT / "configs" / "tiny.yaml")
    assert config.champion_copies.tolist() == [8, 8, 8, 8, 5, 4, 5, 3, 3]  # Fox overrides its tier's copies
    assert config.round_pve[:10].tolist() == [True, True, False, False, False, True, False, False, False, False]
    assert config.round_damage[:7].tolist() == [0, 0, 2, 2, 2, 2, 4]
    assert config.round_income[:7].tolist() == [2, 3, 4, 4, 4, 4, 4]
    assert config.round_stage.shape == (config.max_rounds,) and config.round_stage[-1] > 2  # the last stage repeats
    assert config.loot_gold.tolist() == [1, 2, 0] and config.loot_unit_tier.tolist() == [-1, -1, 0]
    assert np.all(config.trait_breakpoints[:, 0] >= 1)
    for k, name in enumerate(config.trait_names):
        members = (config.champion_traits == k).any(axis=1)
        assert members.sum() >= 1, name


def test_defaults_apply_when_optional_keys_are_absent():
    text = (ROOT / "configs" / "tiny.yaml").read_text()
    for key in ("starting_gold: 2\n", "bench_size: 4\n", "max_rounds: 60\n", "  units_leave_pool: true\n",
                "  empty_tier: skip\n"):
        text = text.replace(key, "")
    loot_start = text.index("loot:")
    text = text[:loot_start] + text[text.index("tiers:"):]
    config = parse_config(text, "defaults.yaml")
    assert (config.starting_gold, config.bench_size, config.max_rounds) == (0, 9, 200)
    assert config.units_leave_pool is True and config.empty_tier == 0 and config.loot_gold.size == 0
    assert config.name == "tiny"


# --------------------------------------------------------------------------
# warnings: valid configurations that are surely not what was meant
# --------------------------------------------------------------------------

SUSPICIOUS = sorted((ROOT / "tests" / "suspicious_configs").glob("*.yaml"))


def warning_expectations(path: Path):
    """``[(line, field path, message fragment), ...]`` from the file's ``# warn:`` header lines."""
    expected = []
    for line in path.read_text().splitlines():
        if not line.startswith("# warn:"):
            break
        number, field, fragment = (part.strip() for part in line[len("# warn:"):].split("|"))
        expected.append((int(number), field, fragment))
    return expected


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_shipped_configs_have_no_warnings(path):
    assert load_config(path).warnings == ()


def test_there_are_suspicious_configs_for_every_kind_of_warning():
    assert len(SUSPICIOUS) >= 12


@pytest.mark.parametrize("path", SUSPICIOUS, ids=lambda p: p.stem)
def test_suspicious_config_loads_with_its_warnings(path):
    expected = warning_expectations(path)
    assert expected, f"{path.name} has no '# warn:' header"
    warnings = load_config(path).warnings
    assert len(warnings) == len(expected), warnings
    for warning, (line, field, fragment) in zip(warnings, expected):
        assert "\n" not in warning
        assert warning.startswith(f"{path}:{line}: {field}: warning: "), warning
        assert fragment in warning, warning
        assert "(" in warning.split(": warning: ")[1], f"no 'why it matters' part: {warning}"


def test_warnings_are_kept_out_of_equality_and_repr():
    import dataclasses

    warnings_field = next(f for f in dataclasses.fields(load_config(CONFIGS[0])) if f.name == "warnings")
    assert warnings_field.compare is False and warnings_field.repr is False


def test_a_yaml_boolean_word_where_a_boolean_is_meant_is_no_surprise():
    text = (ROOT / "configs" / "tiny.yaml").read_text().replace("units_leave_pool: true", "units_leave_pool: yes")
    config = parse_config(text, "yes.yaml")
    assert config.units_leave_pool is True and config.warnings == ()


def test_y_and_n_stay_text_in_pyyaml():
    """PyYAML reads ``y`` and ``n`` as text (only yes/no/on/off/true/false are booleans): no warning."""
    text = (ROOT / "configs" / "tiny.yaml").read_text().replace("{name: Dove,", "{name: y,")
    config = parse_config(text, "y.yaml")
    assert "y" in config.champion_names and config.warnings == ()


def test_an_octal_value_reached_through_an_alias_is_warned_once_where_it_is_written():
    text = (ROOT / "configs" / "tiny.yaml").read_text().replace("    copies: 8\n", "    copies: &eight 010\n") \
        .replace("    copies: 5\n", "    copies: *eight\n")
    warnings = parse_config(text, "alias.yaml").warnings
    assert len(warnings) == 1 and warnings[0].startswith("alias.yaml:53: tiers.0.copies: warning: 010 "), warnings


def test_anchors_and_aliases_used_modestly_still_load():
    text = (ROOT / "configs" / "tiny.yaml").read_text()
    for old, new in [("3: {xp: 4, odds: [50, 35, 15]}", "3: {xp: 4, odds: &late_odds [50, 35, 15]}"),
                     ("4: {xp: 6, odds: [30, 40, 30]}", "4: {xp: 6, odds: *late_odds}"),
                     ("{name: Ant, traits: [Swarm, Guard]}", "{name: Ant, traits: &swarm_guard [Swarm, Guard]}"),
                     ("{name: Ibex, traits: [Guard]}", "{name: Ibex, traits: *swarm_guard}")]:
        assert old in text
        text = text.replace(old, new)
    config = parse_config(text, "anchors.yaml")
    assert config.level_odds[4].tolist() == config.level_odds[3].tolist() == [50, 35, 15]
    ibex, ant = config.champion_names.index("Ibex"), config.champion_names.index("Ant")
    assert config.champion_traits[ibex].tolist() == config.champion_traits[ant].tolist()
    assert config.warnings == ()
    assert config.lines[("levels", 4, "odds", 2)] == 25  # an aliased value is located at its alias


# --------------------------------------------------------------------------
# messages that show what was written
# --------------------------------------------------------------------------


@pytest.mark.parametrize("odds, shown", [("[70, 30.000001, 0]", "sums to 100.000001 "),
                                         ("[70, 29.9999999, 0]", "sums to 99.9999999 "),
                                         ("[70, 30.000000001, 0]", "sums to 100.000000001 ")])
def test_odds_that_miss_100_by_a_little_show_the_real_sum(odds, shown):
    text = (ROOT / "configs" / "tiny.yaml").read_text().replace("odds: [70, 30, 0]", f"odds: {odds}")
    with pytest.raises(ConfigError) as caught:
        parse_config(text, "odds.yaml")
    assert shown in str(caught.value) and caught.value.path == "levels.2.odds", caught.value


@pytest.mark.parametrize("word, value", [("yes", "true"), ("on", "true"), ("no", "false"), ("Off", "false")])
def test_a_key_yaml_reads_as_a_boolean_is_reported_as_written(word, value):
    text = (ROOT / "configs" / "tiny.yaml").read_text()
    text = text.replace("  reroll_price: 1\n", f"  reroll_price: 1\n  {word}: 1\n")
    with pytest.raises(ConfigError) as caught:
        parse_config(text, "key.yaml")
    message = str(caught.value)
    assert message.startswith(f"key.yaml:13: shop.{word}: unknown key; YAML reads {word} as boolean {value}, "
                              f'quote it ("{word}") for text (allowed: '), message
    assert "True" not in message and "False" not in message


def test_a_boolean_word_where_a_number_is_needed_is_shown_as_written():
    text = (ROOT / "configs" / "tiny.yaml").read_text().replace("  price: 2\n", "  price: off\n")
    with pytest.raises(ConfigError) as caught:
        parse_config(text, "off.yaml")
    assert str(caught.value) == ("off.yaml:17: xp.price: must be an integer, got off (read by YAML as the boolean "
                                 "false) (allowed: 0 to 1000000)")


def test_cli_check_prints_the_warnings_and_still_exits_0():
    path = ROOT / "tests" / "suspicious_configs" / "10_octal_copies.yaml"
    result = run_cli("check", str(path))
    assert result.returncode == 0, result.stderr
    assert f"{path}: valid" in result.stdout
    assert f"{path}:55: tiers.0.copies: warning: 010 is read by YAML as 8 (octal)" in result.stderr


YAML_CORNERS = [
    "a: 1\nb: 'quoted'\nc: \"double\"\nd: |\n  block\n  text\ne: >\n  folded\n",
    "base: &b {x: 1, y: [1, 2]}\nother: *b\nlist:\n  - *b\n  - {<<: *b, z: 3}\n",
    "'players': 8\n\"starting_hp\": 100\n? complex\n: value\n",
    "a: 1\n\tb: 2\n",             # a tab where indentation goes
    "a: [1, 2\nb: 3\n",           # a flow list never closed
    "a: 1\na: 2\n",               # a key twice
    "a:\n  - 1\n - 2\n",          # bad indentation
    "a: *nowhere\n",              # an alias without its anchor
    "%YAML 1.1\n---\na: yes\nb: 0x1f\nc: 1_000\nd: ~\ne: 2001-12-14\n",
    "a: 1\n--- \nb: 2\n",         # two documents
    "a: \"\\x7f \\u00e9\"\nb: caf\u00e9\n",
]


@pytest.mark.parametrize("text", [p.read_text(encoding="utf-8") for p in CONFIGS + BROKEN] + YAML_CORNERS,
                         ids=[p.name for p in CONFIGS + BROKEN] + [f"corner{i}" for i in range(len(YAML_CORNERS))])
def test_libyamls_parser_reads_what_pyyamls_reads_and_errors_keep_pyyamls_words(text, monkeypatch):
    """The configuration's YAML is parsed by libyaml when PyYAML has it (20x faster); data, lines, spellings
    and every error's message are those of PyYAML's own parser, which reads the file when libyaml is absent."""
    import yaml

    from autodup.game import config_file

    def read(parser):
        monkeypatch.setattr(config_file, "_LIBYAML_PARSER", parser)
        try:
            data, notes = config_file.parse_yaml(text, "c.yaml")
        except ConfigError as error:
            return "error", str(error)
        spellings = [{path: (s.text, s.value, s.reading, s.line) for path, s in kept.items()}
                     for kept in (notes.keys, notes.values)]
        return data, notes.lines, *spellings

    if not yaml.__with_libyaml__:
        pytest.skip("PyYAML without libyaml: there is no second parser to compare")
    assert config_file._LIBYAML_PARSER is yaml.CSafeLoader
    assert read(yaml.CSafeLoader) == read(None)
