"""filled: numpy's np.full in compiled code, emitted into the caller; the game's state made with it."""

import numpy as np
import pytest
from numba import njit

from autodup.array_allocation import filled
from autodup.game.config import load_config
from autodup.game.rules import rules_of
from autodup.game.state import as_floats, largest, seat_numbers
from autodup.game.table import fresh_game


@njit(cache=True)
def _filled_cases(n, m, value):
    return (filled(n, value, np.float64), filled((n, m), value, np.int64), filled((n, m, 2), value, np.int16),
            filled(n, value, np.bool_), filled((m, n), value, np.float32), filled((n, 0), value, np.int8),
            filled(np.int32(m), value, np.uint64))


@njit(cache=True)
def _filled_like(array, value):
    return filled(array.shape, value, array.dtype)


@njit(cache=True)
def _helpers(values, players):
    return largest(values), as_floats(values), seat_numbers(players)


@pytest.mark.parametrize("value", [0, 1, -1, 7])
def test_filled_is_numpys_full(value):
    got = _filled_cases(3, 5, value)
    expected = (np.full(3, value, dtype=np.float64), np.full((3, 5), value, dtype=np.int64),
                np.full((3, 5, 2), value, dtype=np.int16), np.full(3, value, dtype=np.bool_),
                np.full((5, 3), value, dtype=np.float32), np.full((3, 0), value, dtype=np.int8),
                np.full(5, value).astype(np.uint64))
    for array, reference in zip(got, expected):
        assert array.dtype == reference.dtype and array.shape == reference.shape
        assert array.flags.c_contiguous and array.flags.writeable
        assert np.array_equal(array, reference)
    first = _filled_cases(3, 5, value)[1]
    first[0, 0] = 99  # each call a new array
    assert _filled_cases(3, 5, value)[1][0, 0] == value


def test_filled_takes_an_arrays_shape_and_dtype():
    for array in (np.zeros((2, 3), dtype=np.int32), np.zeros(4, dtype=np.bool_), np.zeros((1, 2, 3))):
        got = _filled_like(array, 1)
        assert got.dtype == array.dtype and got.shape == array.shape and np.all(got == 1)


def test_filled_refuses_a_negative_size():
    with pytest.raises(ValueError, match="negative dimensions"):
        _filled_cases(-1, 5, 0)
    with pytest.raises(ValueError, match="negative dimensions"):
        _filled_cases(3, -2, 0)


def test_the_states_helpers_are_numpys():
    values = np.array([3, 9, -2, 9, 4], dtype=np.int64)
    best, floats, seats = _helpers(values, 6)
    assert best == values.max()
    assert floats.dtype == np.float64 and np.array_equal(floats, values.astype(np.float64))
    assert seats.dtype == np.int64 and np.array_equal(seats, np.arange(6))


@pytest.mark.parametrize("config", ["set4", "tiny"])
def test_a_fresh_game_holds_what_its_definition_says(config):
    """Every array of a new game as numpy would make it: the initial pool, -1 for empty shops, units and boards,
    the starting gold, HP and level, the serving order 0..players-1, zeros elsewhere."""
    rules = rules_of(load_config(config))
    game = fresh_game(rules, np.int64(3), np.int64(4))
    table, players = game.table, rules.players
    assert np.array_equal(table.pool, rules.champion_copies.astype(np.float64))
    assert np.array_equal(table.initial, table.pool) and table.pool is not table.initial
    assert np.all(table.shops == -1) and np.all(table.unit_champion == -1)
    assert np.all(table.gold == rules.starting_gold) and np.all(table.hp == rules.starting_hp)
    assert np.all(table.level == 1) and np.all(table.alive) and np.array_equal(table.order, np.arange(players))
    assert np.all(game.shops == -1) and np.all(game.final_champion == -1)
    assert table.trace_weights.shape == (players, 3, table.pool.shape[0] + rules.tier_cost.shape[0])
    assert table.unit_champion.shape[1] == rules.bench_size + rules.level_board_size.max() + 1
    for name in ("stats", "luck", "counters", "needles", "needle_count", "held"):
        assert not np.any(getattr(table, name)), name
    assert not np.any(game.stage_luck) and not np.any(game.desk.memory)
