"""The board driver: the seed tree, the seating designs, the shop log; checked against the table played by hand."""

import re
from pathlib import Path

import numpy as np
import pytest

from autodup.engine.dealers import DEALERS
from autodup.engine.rng import board_seed, event_seed, seat_seed, table_seed
from autodup.game.boards import SEATINGS, play_boards
from autodup.game.bot_loading import load_bot, policy_tuple, seating
from autodup.game.config import load_config, parse_config
from autodup.game.progress import new_progress
from autodup.game.rules import ORDER_EVENTS, rules_of
from autodup.game.stats import RESULT_COLUMNS
from autodup.game.table import play_table
from autodup.game.turn import LOG_GOLD, LOG_HP, LOG_LEVEL

ROOT = Path(__file__).resolve().parents[1]
SET4 = rules_of(load_config(ROOT / "configs" / "set4.yaml"))
FOUR = ["greedy", "econ", "traits", "random"]


def test_the_latin_square_seats_every_bot_at_every_seat_of_every_board_once():
    bots = [load_bot(name) for name in FOUR + ["fast8", "reroll3", "reroll2", "reroll1"]]
    played = play_boards(SET4, "haystack", *policy_tuple(bots), seed=5, boards=3, tables=8, n_bots=8)
    for board in played.bots:
        assert all(sorted(board[:, s].tolist()) == list(range(8)) for s in range(8))  # every bot at every seat
        assert all(sorted(board[t].tolist()) == list(range(8)) for t in range(8))     # every bot at every table


def test_the_driver_frees_all_it_allocates_but_the_arrays_it_returns():
    """Boards of 8 tables, played again and again: every array the game allocates on the way is released (a
    worker plays thousands of chunks), and the returned ones once dropped. The driver's log arrays, stored again
    table after table, leaked while the lowering skipped releasing an array's old value (about 9 KB a game)."""
    import gc

    from numba.core.runtime import _nrt_python, rtsys

    bots = [load_bot(name) for name in FOUR]
    lineup = policy_tuple(bots)
    play_boards(SET4, "haystack", *lineup, seed=1, boards=1, tables=8, n_bots=4)  # compiled before counting
    gc.collect()
    _nrt_python.memsys_enable_stats()
    try:
        before = rtsys.get_allocation_stats()
        for first in (0, 3, 6):
            played = play_boards(SET4, "haystack", *lineup, seed=1, first_board=first, boards=3, tables=8, n_bots=4)
            assert played.results.shape[:2] == (3, 8)
            del played
        gc.collect()
        after = rtsys.get_allocation_stats()
    finally:
        _nrt_python.memsys_disable_stats()
    allocated, freed = after.alloc - before.alloc, after.free - before.free
    assert allocated > 100 and freed == allocated, (allocated, freed)


def test_fewer_bots_than_seats_still_play_every_seat_once():
    bots = [load_bot(name) for name in ("greedy", "econ", "random")]
    played = play_boards(SET4, "independent", *policy_tuple(bots), seed=2, boards=2, tables=3, n_bots=3)
    for board in played.bots:
        for seat in range(8):
            assert sorted(board[:, seat].tolist()) == [0, 1, 2]


def test_rotating_and_fixed_seatings():
    bots = [load_bot(name) for name in FOUR]
    rotating = play_boards(SET4, "haystack", *policy_tuple(bots), seed=3, boards=5, seating="rotating", n_bots=4)
    for board in range(5):
        assert rotating.bots[board, 0].tolist() == [(s + board) % 4 for s in range(8)]
    *lineup, bot_of_seat = seating([bots[0], bots[1]] * 4)
    fixed = play_boards(SET4, "haystack", *lineup, seed=3, boards=2, tables=2, seating="fixed", bot_of_seat=bot_of_seat)
    assert np.all(fixed.bots == bot_of_seat)
    assert set(SEATINGS) == {"latin", "rotating", "fixed", "paired"}


@pytest.mark.parametrize("dealer", sorted(DEALERS))
def test_tables_take_their_seeds_from_the_board_or_from_the_table(dealer):
    """Against the seed tree written out with autodup.engine.rng, and each table played alone."""
    bots = [load_bot(name) for name in FOUR]
    lineup = policy_tuple(bots)
    record = DEALERS[dealer]
    played = play_boards(SET4, dealer, *lineup, seed=9, first_board=2, boards=1, tables=4, n_bots=4)
    g = board_seed(9, 2)
    first_shops = []
    for t in range(4):
        root = g if record.shares_seeds else table_seed(g, t)
        seeds = np.array([seat_seed(root, s) for s in range(8)], dtype=np.uint64)
        expected, _, rounds, log = play_table(SET4, record.code, ORDER_EVENTS, seeds, np.uint64(event_seed(root, 0)),
                                              *lineup, played.bots[0, t], False, new_progress())
        assert np.array_equal(played.results[0, t], expected)
        alive = expected[:, RESULT_COLUMNS.index("rounds_alive")]
        for s in range(8):
            row = t * 8 + s
            shops = played.shop_values[played.shop_offsets[row]:played.shop_offsets[row + 1]]
            assert np.array_equal(shops.reshape(-1, SET4.shop_size), log.shops[:alive[s], s])  # rounds alive
            assert np.all(log.shops[alive[s]:rounds, s] == -1)
            states = played.state_values[played.shop_offsets[row] // SET4.shop_size:
                                         played.shop_offsets[row + 1] // SET4.shop_size]
            assert np.array_equal(states, log.states[:alive[s], s])
            assert np.all(log.states[alive[s]:rounds, s] == 0)
        assert np.array_equal(played.final_champion[0, t], log.final_champion)
        assert np.array_equal(played.final_star[0, t], log.final_star)
        first_shops.append(log.shops[0])
    # Before anyone acts, tables that share seeds deal every seat the same first shop; the control does not.
    same_first_shop = all(np.array_equal(first_shops[t], first_shops[0]) for t in range(4))
    assert same_first_shop == record.shares_seeds


def test_the_shop_log_grows_with_the_rounds_played_not_max_rounds():
    """A game of 10,000 rounds at most, ended early, is stored with only the rounds it played; boards whose games
    outlast the driver's first allocation (16 rounds a seat) grow it, and keep every round of every seat."""
    text = (ROOT / "configs" / "tiny.yaml").read_text().replace("max_rounds: 60", "max_rounds: 10000")
    rules = rules_of(parse_config(text, "long.yaml"))
    bots = [load_bot(name) for name in FOUR]
    played = play_boards(rules, "haystack", *policy_tuple(bots), seed=1, boards=2, tables=4, n_bots=4, check=True)
    rounds = played.results[..., RESULT_COLUMNS.index("rounds_alive")].reshape(-1)
    assert rounds.max() < 200 and played.shop_values.size == rounds.sum() * rules.shop_size
    assert played.shop_offsets[-1] == played.shop_values.size and not played.violations.any()
    # No damage: every seat plays all 150 rounds, 9x the first allocation, which the driver grows.
    stalled = re.sub(r"damage: \d+", "damage: 0", text).replace("damage_per_surviving_unit: 1",
                                                                "damage_per_surviving_unit: 0")
    stalled_rules = rules_of(parse_config(stalled.replace("max_rounds: 10000", "max_rounds: 150"), "stalled.yaml"))
    players = stalled_rules.players
    greedy = [load_bot("greedy")]
    long = play_boards(stalled_rules, "independent", *policy_tuple(greedy), seed=7, boards=1, tables=2, n_bots=1)
    assert np.all(long.results[..., RESULT_COLUMNS.index("rounds_alive")] == 150)
    assert long.shop_values.size == 2 * players * 150 * stalled_rules.shop_size  # 9x the first 16 rounds a seat
    g = board_seed(7, 0)
    for t in range(2):
        root = table_seed(g, t)  # the control: seeds of its own at each table
        seeds = np.array([seat_seed(root, s) for s in range(players)], dtype=np.uint64)
        _, _, played_rounds, log = play_table(stalled_rules, DEALERS["independent"].code, ORDER_EVENTS, seeds,
                                              np.uint64(event_seed(root, 0)), *seating(greedy * players), False,
                                              new_progress())
        assert played_rounds == 150
        for seat in range(players):
            row = t * players + seat
            shops = long.shop_values[long.shop_offsets[row]:long.shop_offsets[row + 1]]
            assert np.array_equal(shops.reshape(-1, stalled_rules.shop_size), log.shops[:150, seat])
            states = long.state_values[row * 150:(row + 1) * 150]
            assert np.array_equal(states, log.states[:150, seat]) and np.all(states[:, LOG_LEVEL] >= 1)


@pytest.mark.parametrize("kwargs, message", [
    ({"seating": "circle"}, "unknown seating"),
    ({"order": "race"}, "needs a dealer that races"),
    ({"n_bots": 9}, "n_bots"),
    ({"n_bots": None}, "n_bots"),
    ({"boards": 0}, "boards >= 1"),
    ({"seating": "fixed", "bot_of_seat": [0] * 7}, "bot_of_seat"),
])
def test_the_driver_refuses_bad_arguments_in_one_line(kwargs, message):
    lineup = policy_tuple([load_bot("greedy")])
    with pytest.raises(ValueError, match=message):
        play_boards(SET4, "keyed", *lineup, seed=1, **{"n_bots": 1, **kwargs})
    with pytest.raises(ValueError, match="unknown dealer 'plain'"):
        play_boards(SET4, "plain", *lineup, seed=1, n_bots=1)


def test_the_log_holds_what_each_seat_had_each_round_and_its_final_board():
    """Level, gold and HP by round obey the game's rules, and the final board is the strongest units allowed."""
    config = load_config(ROOT / "configs" / "set4.yaml")
    bots = [load_bot(name) for name in ("reroll3", "reroll2", "greedy", "traits")]
    played = play_boards(SET4, "haystack", *policy_tuple(bots), seed=11, boards=6, tables=4, n_bots=4)
    results = played.results.reshape(-1, len(RESULT_COLUMNS))
    champions = played.final_champion.reshape(len(results), -1)
    stars = played.final_star.reshape(len(results), -1)
    rounds_logged = 0
    for row, result in enumerate(results):
        states = played.state_values[played.shop_offsets[row] // SET4.shop_size:
                                     played.shop_offsets[row + 1] // SET4.shop_size]
        rounds_logged += len(states)
        level, gold, hp = states[:, LOG_LEVEL], states[:, LOG_GOLD], states[:, LOG_HP]
        assert len(states) == result[RESULT_COLUMNS.index("rounds_alive")]
        assert hp[0] == config.starting_hp and np.all(np.diff(hp) <= 0)      # HP only falls
        assert np.all(np.diff(level) >= 0) and level[-1] <= result[RESULT_COLUMNS.index("level")]
        assert np.all(gold >= 0) and np.all(hp > 0)                           # a seat at 0 HP has left
        on_board = champions[row] >= 0
        n = int(on_board.sum())
        assert np.all(on_board[:n]) and not np.any(on_board[n:])              # packed, then -1
        assert 1 <= n <= config.level_board_size[result[RESULT_COLUMNS.index("level")]]
        assert np.all((stars[row, :n] >= 1) & (stars[row, :n] <= 3)) and np.all(stars[row, n:] == 0)
        power = config.champion_cost[champions[row, :n]] * config.star_power[stars[row, :n] - 1]
        assert np.all(np.diff(power) <= 0)                                    # strongest first
    assert rounds_logged == played.state_values.shape[0]
    assert (stars == 3).any(), "reroll bots make 3-stars on set4: the final boards should show some"
