"""The package's kernels are compiled without numba's wraparound of negative indices; everything else keeps it.

The kernels never index with a negative integer: the slow test compiles the game with every bounds check
on (where a negative index now fails as out of range) and plays it under every dealer on both shipped
configurations, with the soundness check, and the results equal those of the code as shipped.
"""

import os
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest
from numba import njit

from autodup import nonnegative_indices
from autodup.game.boards import play_boards
from autodup.game.bot_check import check_bot
from autodup.game.bot_loading import load_bot, policy_tuple
from autodup.game.config import load_config
from autodup.game.rules import rules_of
from autodup.game.stats import RESULT_COLUMNS

ROOT = Path(__file__).resolve().parents[1]


def element(array, index):
    return array[index]


def compiled_in(module: str):
    """``element``, compiled as a function of ``module`` (numba names what it compiles after the module), with
    bounds checks: an index it does not wrap is out of range."""
    function = types.FunctionType(element.__code__, {}, "element")
    function.__module__ = module
    return njit(boundscheck=True)(function)


def test_it_is_in_effect():
    assert nonnegative_indices.installed()


def test_a_function_of_the_package_does_not_wrap_a_negative_index():
    probe = compiled_in("autodup.engine.kernels")  # as if it were one of the kernels
    values = np.arange(5.0)
    assert probe(values, 4) == 4.0
    with pytest.raises(IndexError):
        probe(values, -1)


@pytest.mark.parametrize("module", ["tests.probe", "autodup_bot_probe", "autodupe"])
def test_any_other_function_wraps_it_as_python_does(module):
    assert compiled_in(module)(np.arange(5.0), -1) == 4.0


def test_a_bot_indexing_from_the_end_plays_as_written():
    """Its policy reads ``shop[-1]`` and calls a helper of the package (compiled on its own) with -1: both wrap."""
    bot = load_bot(str(ROOT / "tests" / "bots" / "from_the_end.py"))
    config = load_config(ROOT / "configs" / "set4.yaml")
    report = check_bot(bot, config, games=8)
    assert report["clean"] and report["bot_errors"] == 0, report
    rules = rules_of(config)
    results = play_boards(rules, "haystack", *policy_tuple([bot]), seed=3, boards=2, n_bots=1).results
    assert results[..., RESULT_COLUMNS.index("units_bought")].sum() > 0  # it reached its purchase


BOUNDS_CHECKED_GAME = """
import hashlib, sys
import numpy as np
from autodup.engine.dealers import DEALERS
from autodup.game.boards import play_boards
from autodup.game.bot_loading import bot_names, load_bot, policy_tuple
from autodup.game.config import load_config
from autodup.game.rules import rules_of
from autodup.shipped import config_file
roster = policy_tuple([load_bot(name) for name in bot_names()])
for config in ("set4", "tiny"):
    rules = rules_of(load_config(config_file(config)))
    for dealer in DEALERS:
        for seating, events in (("latin", "seat"), ("paired", "position")):
            played = play_boards(rules, DEALERS[dealer], *roster, seed=11, boards=3, tables=8, seating=seating,
                                 n_bots=8, events=events, check=True, trace_draws=20)
            digest = hashlib.sha256()
            for array in played:
                digest.update(np.ascontiguousarray(array).tobytes())
            print(config, dealer, seating, events, digest.hexdigest(), int(np.sum(played.violations)))
"""


@pytest.mark.slow
def test_the_game_indexes_no_array_out_of_range(tmp_path):
    """Compiled afresh with every bounds check on, the game plays to the same results (a compile of the game with
    the checks: several minutes)."""
    outputs = []
    for bounds_checked in (False, True):
        environment = dict(os.environ)
        if bounds_checked:  # compiled afresh: the usual cache holds the game without the checks
            environment.update(NUMBA_BOUNDSCHECK="1", AUTODUP_CACHE_DIR=str(tmp_path / "cache"))
        result = subprocess.run([sys.executable, "-c", BOUNDS_CHECKED_GAME], capture_output=True, text=True,
                                timeout=1800, env=environment, cwd=tmp_path)
        assert result.returncode == 0, result.stderr[-3000:]
        outputs.append(result.stdout.splitlines())
    assert len(outputs[1]) == 2 * 5 * 2 and outputs[0] == outputs[1]
    assert all(line.endswith(" 0") for line in outputs[1])  # no unsound step either
