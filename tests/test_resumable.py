"""The resumable table: seats played from outside stop the game for their decisions; answered as their bot would,
the game is play_table's, bit for bit; a clone plays on alike and apart; bad answers are judged as a bot's are."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from autodup.bots import buy, encode_decision, end_turn
from autodup.errors import UsageError
from autodup.game.boards import play_boards
from autodup.game.bot_loading import load_bot, seating
from autodup.game.config import load_config
from autodup.game.resumable import ResumableTable, ResumableTables, call_policy
from autodup.game.rules import rules_of
from autodup.game.stats import RESULT_COLUMNS

ROOT = Path(__file__).resolve().parents[1]
SET4 = rules_of(load_config(ROOT / "configs" / "set4.yaml"))
NAMES = ["greedy", "econ", "reroll3", "traits", "random", "fast8", "reroll1", "reroll2"]
BOTS = [load_bot(name) for name in NAMES]
LOG_FIELDS = ("shops", "states", "final_champion", "final_star", "offers", "bought", "luck", "stage_luck")


def _as_bot(table, bot):
    """The decision ``bot`` makes on the waiting seat's view."""
    view = table.view()
    return call_policy(bot.policy, *view[:8], bot.parameter_vector()[:len(bot.defaults)], view.memory)


def _as_bot_of(tables, i, bot):
    view = tables.view(i)
    assert np.array_equal(view.me, tables.views[i])  # the batch's views are the seats' own
    return call_policy(bot.policy, *view[:8], bot.parameter_vector()[:len(bot.defaults)], view.memory)


def _play_out(table, seat_bots):
    """Answer every outside decision as the seat's bot would; returns the decisions answered."""
    decisions = 0
    while table.seat >= 0:
        table.act(_as_bot(table, seat_bots[table.seat]))
        decisions += 1
    return decisions


def _played_by_play_table(seed, board, table, dealer="haystack"):
    lineup = seating(BOTS)
    played = play_boards(SET4, dealer, lineup.policies, lineup.params, lineup.param_counts, seed=seed, boards=1,
                         first_board=board, tables=table + 1, seating="fixed", bot_of_seat=lineup.bot_of_seat)
    return played.results[0, table], played


@pytest.mark.parametrize("outside, seed, board, table, dealer", [
    ((3,), 7, 3, 1, "haystack"),
    ((0, 5), 11, 0, 0, "haystack"),
    (tuple(range(8)), 2, 4, 2, "independent"),
])
def test_outside_seats_answering_as_their_bots_play_play_tables_game(outside, seed, board, table, dealer):
    expected, played = _played_by_play_table(seed, board, table, dealer)
    resumable = ResumableTable(SET4, [None if s in outside else BOTS[s] for s in range(8)], seed=seed, board=board,
                               table=table, dealer=dealer, check=True)
    decisions = _play_out(resumable, BOTS)
    assert decisions > 20 * len(outside)  # every outside seat decided, round after round
    assert resumable.over and resumable.violations == 0
    assert np.array_equal(resumable.results(), expected)
    log = resumable.log()
    assert np.array_equal(log.luck, played.luck[0, table])
    assert np.array_equal(log.stage_luck, played.stage_luck[0, table])
    assert np.array_equal(log.offers, played.offers[0, table])
    assert np.array_equal(log.final_champion, played.final_champion[0, table])


def test_tables_stepped_together_each_play_their_boards_game():
    """Five boards at once, the outside seat answered for all of them in each step: each table plays its board."""
    outside = 6
    tables = ResumableTables(SET4, [None if s == outside else BOTS[s] for s in range(8)], seed=5, boards=range(5),
                             table=2)
    steps = 0
    while (tables.waiting >= 0).any():
        decisions = [_as_bot_of(tables, i, BOTS[outside]) if tables.waiting[i] >= 0 else 0 for i in range(5)]
        tables.act(decisions)
        steps += 1
    assert tables.finished().all() and steps > 30
    lineup = seating(BOTS)
    played = play_boards(SET4, "haystack", lineup.policies, lineup.params, lineup.param_counts, seed=5, boards=5,
                         tables=3, seating="fixed", bot_of_seat=lineup.bot_of_seat)
    for i in range(5):
        assert np.array_equal(tables.results(i), played.results[i, 2])
        assert np.array_equal(tables.log(i).stage_luck, played.stage_luck[i, 2])


def test_a_clone_plays_on_alike_and_apart():
    seat_bots = [None] + BOTS[1:]
    original = ResumableTable(SET4, seat_bots, seed=4, board=1)
    for _ in range(60):  # into the game: several rounds of the outside seat's turns
        original.act(_as_bot(original, BOTS[original.seat]))
    assert original.round > 3
    twin = original.clone()
    assert twin.seat == original.seat and twin.round == original.round
    # The twin ends every turn at once: a different game from here, which must not touch the original.
    while twin.seat >= 0:
        twin.act(end_turn())
    _play_out(original, BOTS)
    expected, _ = _played_by_play_table(4, 1, 0)
    assert np.array_equal(original.results(), expected)
    assert not np.array_equal(twin.results(), expected)
    # A second clone, taken at the same point of a fresh table, plays the same game as its original.
    fresh = ResumableTable(SET4, seat_bots, seed=4, board=1)
    for _ in range(60):
        fresh.act(_as_bot(fresh, BOTS[fresh.seat]))
    again = fresh.clone()
    _play_out(fresh, BOTS)
    _play_out(again, BOTS)
    assert np.array_equal(again.results(), expected) and np.array_equal(fresh.results(), expected)


def test_outside_answers_are_judged_as_a_bots_are():
    column = {name: RESULT_COLUMNS.index(name) for name in ("bad_answers", "bot_errors", "illegal_actions")}
    table = ResumableTable(SET4, [None] + BOTS[1:], seed=3)
    answers = [12345, 0, buy(99), encode_decision(15, 0)]  # not an answer, an error, an illegal slot, no action
    seen = []
    while table.seat >= 0:
        answer = answers[len(seen) % len(answers)] if len(seen) < 40 else end_turn()
        seen.append(answer)
        table.act(answer)
    results = table.results()[0]
    # Each bad answer and each error ends its turn; the illegal ones are refused and the turn goes on.
    assert results[column["bad_answers"]] == sum(a == 12345 for a in seen)
    assert results[column["bot_errors"]] == sum(a == 0 for a in seen)
    assert results[column["illegal_actions"]] == sum(a in (buy(99), encode_decision(15, 0)) for a in seen)


def test_configurations_and_bots_may_be_named():
    named = ResumableTable("set4", [None] + NAMES[1:], seed=2, board=1)
    loaded = ResumableTable(SET4, [None] + BOTS[1:], seed=2, board=1)
    _play_out(named, BOTS)
    _play_out(loaded, BOTS)
    assert np.array_equal(named.results(), loaded.results())


def test_misuse_gets_one_clear_line():
    with pytest.raises(UsageError, match="expected a configuration"):
        ResumableTable(3, [None] * 8)
    with pytest.raises(UsageError, match="seat 2: expected a bot"):
        ResumableTable(SET4, [None, None, 7] + [None] * 5)
    with pytest.raises(UsageError, match="^seat_bots: expected one entry per seat"):
        ResumableTable(SET4, "greedy")
    with pytest.raises(UsageError, match="^seat_bots: seat 3: .*unknown bot 'gredy'"):
        ResumableTable(SET4, [None, None, None, "gredy"] + [None] * 4)
    for wrong in (5, "abc", [], [-1], [1.5]):
        with pytest.raises(UsageError, match="^boards: "):
            ResumableTables(SET4, [None] * 8, boards=wrong)
    with pytest.raises(UsageError, match="^board: -1 is out of range"):
        ResumableTable(SET4, [None] * 8, board=-1)
    with pytest.raises(UsageError, match="^seed: "):
        ResumableTable(SET4, [None] * 8, seed=-1)
    with pytest.raises(UsageError, match="^table: "):
        ResumableTable(SET4, [None] * 8, table="3")
    tables = ResumableTables(SET4, [None] * 8, seed=1, boards=range(4))
    for wrong in (True, 1.5, [1.0] * 4, "x", [1, 2]):
        with pytest.raises(UsageError, match="^decisions: "):
            tables.act(wrong)
    with pytest.raises(UsageError, match="^tables: expected one bool per table"):
        tables.act(end_turn(), tables=[True, False])
    for wrong in (4, -1):
        with pytest.raises(UsageError, match="^i: "):
            tables.view(wrong)
    with pytest.raises(UsageError, match="^i: "):
        tables.results(9)
    with pytest.raises(UsageError, match="seats 8 players, got 3"):
        ResumableTable(SET4, [None] * 3)
    with pytest.raises(UsageError, match="order"):
        ResumableTable(SET4, [None] * 8, dealer="keyed", order="race")
    with pytest.raises(UsageError, match="unknown dealer 'plain'"):
        ResumableTable(SET4, [None] * 8, dealer="plain")
    table = ResumableTable(SET4, [None] * 8, seed=1)
    with pytest.raises(UsageError, match="not over"):
        table.results()
    for wrong in ("buy", True, 1.0, 2**70):
        with pytest.raises(UsageError, match="64-bit integer"):
            table.act(wrong)
    while table.seat >= 0:
        table.act(end_turn())
    assert table.over and table.rounds > 10  # nobody buys anything: the game still ends, by HP
    with pytest.raises(UsageError, match="game is over"):
        table.act(end_turn())
    with pytest.raises(UsageError, match="^view: the game is over"):
        table.view()


def test_answers_encoded_over_arrays_are_the_answers_encoded_one_by_one():
    from autodup.game.actions import ACTION_CODES, decode_decision, encode_decisions

    actions = np.arange(ACTION_CODES).repeat(7)
    arguments = np.tile([0, 1, 5, -1, -2**31, 2**31 - 1, 123456], ACTION_CODES)
    encoded = encode_decisions(actions, arguments)
    assert encoded.dtype == np.int64 and encoded.shape == actions.shape
    for action, argument, answer in zip(actions, arguments, encoded):
        assert answer == encode_decision(action, argument)
        assert decode_decision(answer) == (action, argument)


def test_a_seat_from_outside_answering_as_its_bot_plays_autodup_plays_game():
    """Against the Python API's play (a worker process, the latin seating of autodup play): seat s plays bot
    (s + table) mod 8; seat 1 is answered from here as its bot would."""
    import autodup

    seed, board, table = 3, 2, 5
    played = autodup.play("set4", bots=",".join(NAMES), seed=seed, board=board, table=table)
    seat_bots = [BOTS[(s + table) % 8] for s in range(8)]
    resumable = ResumableTable(SET4, [None if s == 1 else seat_bots[s] for s in range(8)], seed=seed, board=board,
                               table=table)
    _play_out(resumable, seat_bots)
    results = resumable.results()
    assert resumable.rounds == played["rounds"]
    for s, row in enumerate(played["seats"]):
        assert row["bot"] == seat_bots[s].name
        assert [row[name] for name in RESULT_COLUMNS] == results[s].tolist()


TYPED_LIST_METHODS_COMPILED = """
import numba.typed.typedlist as typedlist
from numba.core.dispatcher import Dispatcher
from autodup.bots import encode_decision
from autodup.game.actions import ACTION_END
from autodup.game.resumable import ResumableTable

table = ResumableTable("tiny", [None] + ["greedy"] * 7, seed=3)
table.act(encode_decision(ACTION_END, 0))
twin = table.clone()
while not twin.over:
    twin.view(), twin.desk(0), twin.round, twin.rounds, twin.violations
    twin.act(encode_decision(ACTION_END, 0))
twin.results(), twin.log(), table.cursor(0)
print(sorted(name for name, value in vars(typedlist).items() if isinstance(value, Dispatcher) and value.signatures))
"""


def test_python_takes_no_typed_list_method_of_the_games():
    """numba compiles its typed List's methods afresh in every process (it caches none of them): in a warm
    process, 4 s to build the List of games and 12 s to take a game out from Python. Tables built, stepped,
    copied and read from Python leave every one of them uncompiled: compiled kernels do that work."""
    result = subprocess.run([sys.executable, "-c", TYPED_LIST_METHODS_COMPILED], capture_output=True, text=True,
                            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=900)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
