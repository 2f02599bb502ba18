"""Hostile configuration files: each ends quickly in one ConfigError line naming the file.

The files are generated here (in ``tmp_path``), never committed: a 3 MB file
or a billion-laughs bomb has no place in the repository.
"""

import os
import threading
import time
import tracemalloc
from pathlib import Path

import pytest

from autodup.errors import ConfigError
from autodup.game.config import load_config, parse_config
from autodup.game.config_file import MAX_CONFIG_BYTES, MAX_EXPANDED_NODES, MAX_NESTING

ROOT = Path(__file__).resolve().parents[1]
TINY = (ROOT / "configs" / "tiny.yaml").read_text()


def refused(path, within_seconds: float = 5.0) -> ConfigError:
    """The ConfigError of loading ``path``, checked to be one line naming the file and quick."""
    start = time.perf_counter()
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    elapsed = time.perf_counter() - start
    message = str(caught.value)
    assert "\n" not in message and "\r" not in message, message
    assert message.startswith(f"{path}:"), message
    assert elapsed < within_seconds, f"{elapsed:.1f} s: {message}"
    return caught.value


def alias_bomb(levels: int = 9) -> str:
    """The "billion laughs": nine values, then each level nine aliases of the one before (9**levels in all)."""
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    for level in range(1, levels):
        lines.append(f"a{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------
# alias expansion and nesting
# --------------------------------------------------------------------------


def test_an_alias_bomb_fails_fast_in_little_memory(tmp_path):
    path = tmp_path / "bomb.yaml"
    path.write_text(alias_bomb())
    tracemalloc.start()
    try:
        error = refused(path, within_seconds=2.0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20e6, f"{peak / 1e6:.0f} MB"
    assert "expands the document beyond" in str(error) and f"{MAX_EXPANDED_NODES:,}" in str(error)
    assert error.line == 6  # a5, nine aliases of a4, is the first level past 100,000 values: 9**6 = 531,441


def test_an_alias_bomb_given_as_text_fails_the_same_way():
    with pytest.raises(ConfigError) as caught:
        parse_config(alias_bomb(), "bomb.yaml")
    assert str(caught.value).startswith("bomb.yaml:6: alias *a4 expands the document beyond")


def test_a_document_of_too_many_plain_values_is_refused():
    text = "players: [" + ", ".join(["1"] * (MAX_EXPANDED_NODES + 1)) + "]\n"
    with pytest.raises(ConfigError) as caught:
        parse_config(text, "many.yaml")
    assert str(caught.value).startswith("many.yaml:1: the document has beyond ")


def test_an_alias_inside_the_value_it_names_is_refused():
    with pytest.raises(ConfigError) as caught:
        parse_config("players: 8\nloop: &loop [1, [2, *loop]]\n", "loop.yaml")
    assert str(caught.value).startswith("loop.yaml:2: alias *loop is inside the value it refers to")


@pytest.mark.parametrize("kind", ["lists", "mappings"])
def test_50000_deep_nesting_is_refused_with_the_file_name(tmp_path, kind):
    depth = 50_000
    path = tmp_path / f"deep_{kind}.yaml"
    path.write_text("[" * depth + "]" * depth if kind == "lists" else "{a: " * depth + "1" + "}" * depth)
    error = refused(path)
    assert error.line == 1 and f"nested more than {MAX_NESTING} deep" in str(error)


def test_nesting_is_refused_just_past_the_limit():
    with pytest.raises(ConfigError) as caught:  # a top-level list: refused for being one, not for its depth
        parse_config("[" * MAX_NESTING + "]" * MAX_NESTING, "deep.yaml")
    assert "must be a mapping" in str(caught.value)
    with pytest.raises(ConfigError) as caught:
        parse_config("[" * (MAX_NESTING + 1) + "]" * (MAX_NESTING + 1), "deep.yaml")
    assert "nested more than" in str(caught.value)


def test_nesting_built_from_aliases_counts_in_full():
    """Each anchor is 40 deep and holds the previous one: 120 levels from three 40-deep values."""
    lines = []
    for level in range(3):
        inner = f"*n{level - 1}" if level else "1"
        lines.append(f"n{level}: &n{level} " + "[" * 40 + inner + "]" * 40)
    with pytest.raises(ConfigError) as caught:
        parse_config("\n".join(lines) + "\n", "stacked.yaml")
    assert str(caught.value).startswith("stacked.yaml:2: lists and mappings nested more than 64 deep "
                                        "(through alias *n0)")


# --------------------------------------------------------------------------
# size and kind of file
# --------------------------------------------------------------------------


def test_a_3_mb_file_is_refused_before_it_is_parsed(tmp_path):
    path = tmp_path / "big.yaml"
    path.write_text(TINY + "# padding\n" * 300_000)
    error = refused(path, within_seconds=1.0)
    assert str(error) == f"{path}: larger than 1 MiB (allowed: a configuration of at most 1 MiB)"


def test_a_file_of_exactly_the_limit_loads_and_one_byte_more_does_not(tmp_path):
    padding = MAX_CONFIG_BYTES - len(TINY.encode()) - 1
    path = tmp_path / "limit.yaml"
    path.write_text(TINY + "#" * padding + "\n")
    assert path.stat().st_size == MAX_CONFIG_BYTES
    assert load_config(path).n_champions == 9
    path.write_text(TINY + "#" * (padding + 1) + "\n")
    assert "larger than 1 MiB" in str(refused(path))


def test_text_given_directly_has_the_same_size_limit():
    with pytest.raises(ConfigError) as caught:
        parse_config(TINY + "#" * MAX_CONFIG_BYTES, "big.yaml")
    assert str(caught.value) == "big.yaml: larger than 1 MiB (allowed: a configuration of at most 1 MiB)"
    with pytest.raises(ConfigError):  # fewer characters than the limit, more bytes in UTF-8
        parse_config(TINY + "# " + "é" * (MAX_CONFIG_BYTES // 2), "accents.yaml")


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_dev_zero_is_refused_without_reading_it():
    error = refused("/dev/zero", within_seconds=1.0)
    assert str(error) == "/dev/zero: not a regular file (a character device) (allowed: a YAML file)"


def test_a_directory_is_refused(tmp_path):
    assert str(refused(tmp_path)) == f"{tmp_path}: not a regular file (a directory) (allowed: a YAML file)"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    path = tmp_path / "pipe.yaml"
    os.mkfifo(path)
    outcome = []

    def load():
        try:
            load_config(path)
        except ConfigError as error:
            outcome.append(str(error))

    worker = threading.Thread(target=load, daemon=True)
    worker.start()
    worker.join(5)
    if worker.is_alive():  # let the blocked open() return before failing
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("load_config waited on a FIFO")
    assert outcome == [f"{path}: not a regular file (a FIFO) (allowed: a YAML file)"]


def test_a_path_with_a_nul_character_is_one_line():
    with pytest.raises(ConfigError) as caught:
        load_config("con\0fig.yaml")
    assert str(caught.value) == "con\\x00fig.yaml: cannot be read (embedded null byte)"


def test_a_file_name_with_a_line_break_keeps_the_message_on_one_line(tmp_path):
    path = tmp_path / "two\nlines.yaml"
    path.write_text("players: [")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(caught.value).startswith(str(path).replace("\n", "\\n") + ":1: not valid YAML: "), caught.value


# --------------------------------------------------------------------------
# characters and numbers PyYAML refuses or would choke on
# --------------------------------------------------------------------------


@pytest.mark.parametrize("content, line", [(b"players: 8\nname: ab\x00cd\n", 2),
                                           (b"players: 8\n\x1b[31mname: red\n", 2),
                                           (b"players: 8\nname: \x7f\n", 2)])
def test_nul_and_control_bytes_are_one_line_with_their_line(tmp_path, content, line):
    path = tmp_path / "control.yaml"
    path.write_bytes(content)
    error = refused(path)
    assert error.line == line and "not valid YAML: character #x" in str(error), error


def test_bytes_that_are_not_utf_8_are_one_line_with_their_line(tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes("players: 8\nname: café\n".encode("latin-1"))
    assert str(refused(path)) == f"{path}:2: not UTF-8 text (byte 0xe9) (allowed: a UTF-8 text file)"


def test_a_base_60_number_of_a_megabyte_is_refused_fast():
    """PyYAML would spend minutes multiplying 1:0:0:0... by 60 once per colon."""
    text = "players: 1" + ":0" * 400_000 + "\n"
    start = time.perf_counter()
    with pytest.raises(ConfigError) as caught:
        parse_config(text, "sixty.yaml")
    assert time.perf_counter() - start < 5
    assert str(caught.value).startswith("sixty.yaml:1: players: a number written with 800,001 characters")


def test_an_integer_too_large_for_a_float_is_out_of_range_not_an_overflow():
    text = TINY.replace("scale: 0.25", "scale: " + "9" * 99)
    with pytest.raises(ConfigError) as caught:
        parse_config(text, "overflow.yaml")
    assert "combat.scale: a number of 99 digits is out of range" in str(caught.value)


def test_a_key_that_is_a_huge_number_is_refused():
    with pytest.raises(ConfigError) as caught:
        parse_config("levels: {" + "1" * 500 + ": 1}\n", "key.yaml")
    assert str(caught.value).startswith("key.yaml:1: levels: a key is a number written with 500 characters")


def test_a_key_with_a_line_break_keeps_the_message_on_one_line():
    text = TINY.replace("  reroll_price: 1\n", '  reroll_price: 1\n  "two\\nlines": 1\n')
    with pytest.raises(ConfigError) as caught:
        parse_config(text, "key.yaml")
    assert str(caught.value).startswith("key.yaml:13: shop.two\\nlines: unknown key"), caught.value
    assert caught.value.path == "shop.two\nlines"  # the attribute keeps the key itself


def test_a_megabyte_long_name_is_shortened_in_messages():
    name = "A" * 500_000
    text = TINY.replace("{name: Ant,", "{name: " + name + ",").replace("{name: Dove,", "{name: " + name + ",")
    with pytest.raises(ConfigError) as caught:
        parse_config(text, "long.yaml")
    assert "is already a champion" in str(caught.value) and len(str(caught.value)) < 400, str(caught.value)[:400]


# Replacements for a scalar of tiny.yaml: every kind of value a careless or hostile file may hold.
ODD_SCALARS = ["~", "-1", "1e999", ".nan", "-.inf", "yes", "0x10", "010", "1:30", "'text'", "[]", "{}", "[[1]]",
               "9" * 99, "2001-12-14", "!!binary aGVsbG8=", "!!float 1", "!!str 3", "!!set {a}", "''", "0b_",
               "!!timestamp 2001-13-45", "!!int x", "!!int 019", "!!bool maybe", "!!seq 1", "!!map 1",
               "{a: 1, a: 2}", "*nowhere", "!custom 1", "[*nowhere]", '"\\x00"', "'\t'"]


def test_any_odd_scalar_anywhere_gives_a_config_or_one_config_error_line():
    """Replace each scalar of tiny.yaml by a few odd values in turn: no other exception ever escapes."""
    import re

    scalars = list(re.finditer(r"(?<=[:\[,] )[^\s\[\]{},#]+|(?<=\[)[^\s\[\]{},#]+", TINY))
    assert len(scalars) > 100
    outcomes = {"loaded": 0, "refused": 0}
    for number, match in enumerate(scalars):
        for odd in (ODD_SCALARS[(number * 3 + k) % len(ODD_SCALARS)] for k in range(3)):
            text = TINY[:match.start()] + odd + TINY[match.end():]
            try:
                parse_config(text, "odd.yaml")
                outcomes["loaded"] += 1
            except ConfigError as error:
                assert "\n" not in str(error) and str(error).startswith("odd.yaml"), str(error)
                outcomes["refused"] += 1
    assert outcomes["refused"] > outcomes["loaded"] > 0
