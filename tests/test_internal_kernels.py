"""Kernels only compiled code calls (autodup.internal_kernels): called from compiled code as before, refused
from Python with a TypeError (numba would jump through the wrapper it did not build), compiled ahead by
compile_for, called from Python through python_entry, and the game's own are such kernels."""

import numpy as np
import pytest
from numba import njit

from autodup.game.boards import store_table
from autodup.game.combat import prepare_fights
from autodup.game.rounds import deal_loot, ghost_of, shuffle_alive, start_round
from autodup.game.state import conservation_holds, table_is_sound, unit_terms_hold
from autodup.game.table import _close_stage, _end_round, advance, game_log, game_results, new_game, stage_bucket
from autodup.game.turn import play_turns
from autodup.internal_kernels import InternalDispatcher, compile_for, internal_kernel, python_entry


@internal_kernel
def weighted_sum(values, weights):
    total = 0.0
    for i in range(values.shape[0]):
        total += values[i] * weights[i]
    return total


@njit
def caller(values):
    return weighted_sum(values, np.ones_like(values)) + weighted_sum(values, values)


def test_a_compiled_caller_calls_it():
    values = np.arange(4.0)
    assert caller(values) == 6.0 + 14.0


def test_python_is_refused_with_an_error_not_a_crash():
    with pytest.raises(TypeError, match="called from compiled code only"):
        weighted_sum(np.arange(3.0), np.ones(3))


def test_compile_for_compiles_it_for_those_arguments_without_calling_it():
    @internal_kernel
    def scaled(values, factor):
        return values[0] * factor

    assert scaled.signatures == []
    compile_for(scaled, np.arange(3.0), 2)
    assert [str(argument) for argument in scaled.signatures[0]] == ["array(float64, 1d, C)", "int64"]


def test_python_entry_calls_it_from_python_with_its_effects():
    values = np.arange(4.0)
    entry = python_entry(weighted_sum)
    assert entry(values, values) == 14.0 and python_entry(weighted_sum) is entry  # one entry per kernel

    @internal_kernel
    def doubled_in_place(values):
        values *= 2.0

    python_entry(doubled_in_place)(values)
    assert values.tolist() == [0.0, 2.0, 4.0, 6.0]


# Each of them had a Python wrapper, most of them taking the rules and the table (or the whole game), up to a
# second or so of a cold start's compile each, though only the game's compiled code calls them.
@pytest.mark.parametrize("kernel", [play_turns, deal_loot, _end_round, advance, new_game, game_results, game_log,
                                    store_table, conservation_holds, unit_terms_hold, table_is_sound, prepare_fights,
                                    start_round, shuffle_alive, ghost_of, stage_bucket, _close_stage])
def test_the_games_kernels_called_only_from_the_game_are_internal(kernel):
    assert isinstance(kernel, InternalDispatcher)
    with pytest.raises(TypeError, match=kernel.py_func.__name__):
        kernel()


def test_python_gets_a_new_game_through_fresh_game():
    from pathlib import Path

    from autodup.game.config import load_config
    from autodup.game.cursor import CURSOR_PHASE, PHASE_ROUND_START
    from autodup.game.rules import rules_of
    from autodup.game.table import fresh_game

    rules = rules_of(load_config(Path(__file__).resolve().parents[1] / "configs" / "tiny.yaml"))
    game = fresh_game(rules, 3, 2)
    assert game.cursor[CURSOR_PHASE] == PHASE_ROUND_START
    assert game.table.trace_key.shape == (rules.players, 3) and game.desk.params.shape == (rules.players, 2)
    assert (game.table.gold == rules.starting_gold).all()
