"""Decisions per second from outside the jitted table: one table in a Python loop, and many tables stepped together.

Seats played from outside answer with a random legal action, drawn the way an agent with an action mask would:
uniformly among ending the turn, buying each buyable slot, selling each unit held, rerolling, buying XP and
toggling the lock, by what the seat's view says is legal. Three cases, each on set4's evaluation boards:

- ``one_seat``: one table, seat 0 from outside, the shipped roster's other bots at seats 1-7 (a single-agent
  environment), answered one decision at a time from Python;
- ``every_seat``: one table, all 8 seats from outside (a multi-agent environment), one decision at a time;
- ``batch``: ``--tables`` tables, all 8 seats from outside, every waiting table answered in one call.

``steps_per_s`` counts decisions answered from outside (seat 0's only in ``one_seat``), ``games`` the boards
played to the end in the time given; ``bytes_per_table`` is the memory one game in progress
holds (every array of its :class:`~autodup.game.table.Game`). ``play_table_games_per_s`` is, in the same run, the
all-jitted table with the roster at every seat, for scale.

Usage: ``python benchmarks/bench_resumable.py [--seconds S] [--tables N] [--json]`` (the run takes longer than
three times S: loading the compiled code first, and the all-jitted reference's 200 boards after).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

from autodup.game.actions import (
    ACTION_BUY,
    ACTION_BUY_XP,
    ACTION_END,
    ACTION_LOCK,
    ACTION_REROLL,
    ACTION_SELL,
    encode_decisions,
)
from autodup.game.boards import play_boards
from autodup.game.bot_loading import bot_names, load_bot, policy_tuple
from autodup.game.config import load_config
from autodup.game.resumable import ResumableTable, ResumableTables
from autodup.game.rules import rules_of
from autodup.game.view import VIEW_BUYABLE, VIEW_CAN_BUY_XP, VIEW_CAN_REROLL, VIEW_UNITS

ROOT = Path(__file__).resolve().parents[1]


def action_table(rules):
    """The discrete actions a random agent picks from: (actions, arguments), int64 (A,) each."""
    capacity = rules.bench_size + int(rules.level_board_size.max()) + 1
    actions = ([ACTION_END] + [ACTION_BUY] * rules.shop_size + [ACTION_SELL] * capacity
               + [ACTION_REROLL, ACTION_BUY_XP, ACTION_LOCK])
    arguments = [0] + list(range(rules.shop_size)) + list(range(capacity)) + [0, 0, 0]
    return np.array(actions, dtype=np.int64), np.array(arguments, dtype=np.int64)


def legal_mask(views, rules, n_actions):
    """bool (tables, A): which of :func:`action_table`'s actions each view says are legal."""
    shop_size = rules.shop_size
    mask = np.ones((views.shape[0], n_actions), dtype=bool)
    slots = np.arange(shop_size)
    mask[:, 1:1 + shop_size] = (views[:, VIEW_BUYABLE, None] >> slots) & 1 == 1
    units = np.arange(n_actions - 4 - shop_size)
    mask[:, 1 + shop_size:n_actions - 3] = units < views[:, VIEW_UNITS, None]
    mask[:, -3] = views[:, VIEW_CAN_REROLL] == 1
    mask[:, -2] = views[:, VIEW_CAN_BUY_XP] == 1
    return mask


def random_decisions(views, rules, table, generator):
    """int64 (tables,): a uniformly random legal answer for each view."""
    actions, arguments = table
    keys = generator.random((views.shape[0], actions.shape[0]))
    keys[~legal_mask(views, rules, actions.shape[0])] = -1.0
    choice = keys.argmax(axis=1)
    return encode_decisions(actions[choice], arguments[choice])


def game_bytes(game) -> int:
    if isinstance(game, np.ndarray):
        return game.nbytes
    return sum(game_bytes(item) for item in game) if isinstance(game, tuple) else 0


def one_table(rules, seat_bots, seconds, table, generator):
    """Decisions per second answered from Python, one table at a time, boards after boards."""
    steps, board, elapsed = 0, 0, 0.0
    while board == 0 or elapsed < seconds:  # one game at least
        game = ResumableTable(rules, seat_bots, seed=2026, board=board)
        start = time.perf_counter()
        while game.seat >= 0:
            game.act(int(random_decisions(game.views, rules, table, generator)[0]))
            steps += 1
        elapsed += time.perf_counter() - start
        board += 1
    return steps / elapsed, board


def batch(rules, tables, seconds, table, generator):
    steps, elapsed, first = 0, 0.0, 0
    while first == 0 or elapsed < seconds:  # one batch at least
        games = ResumableTables(rules, [None] * rules.players, seed=2026, boards=range(first, first + tables))
        start = time.perf_counter()
        while True:
            waiting = games.waiting >= 0
            if not waiting.any():
                break
            steps += int(waiting.sum())
            games.act(random_decisions(games.views, rules, table, generator))
        elapsed += time.perf_counter() - start
        first += tables
    return steps / elapsed, first, game_bytes(games.games[0])


def measure(seconds: float, tables: int) -> dict:
    rules = rules_of(load_config(ROOT / "configs" / "set4.yaml"))
    roster = [load_bot(name) for name in bot_names()]
    table = action_table(rules)
    generator = np.random.default_rng(2026)  # the agents' choices only: the games' draws come from the seed tree
    one_seat = [None] + roster[1:rules.players]
    # Warm up: load every compiled function before any clock starts.
    one_table(rules, one_seat, 0.0, table, generator)
    batch(rules, 2, 0.0, table, generator)
    lineup = policy_tuple(roster)
    play_boards(rules, "haystack", *lineup, seed=1, seating="rotating", n_bots=len(roster))
    one_seat_rate, one_seat_games = one_table(rules, one_seat, seconds, table, generator)
    every_seat_rate, every_seat_games = one_table(rules, [None] * rules.players, seconds, table, generator)
    batch_rate, batch_games, bytes_per_table = batch(rules, tables, seconds, table, generator)
    start = time.perf_counter()
    boards = 200
    play_boards(rules, "haystack", *lineup, seed=2026, boards=boards, seating="rotating", n_bots=len(roster))
    play_table_rate = boards / (time.perf_counter() - start)
    return {
        "steps_per_s": {"one_seat": one_seat_rate, "every_seat": every_seat_rate, f"batch_{tables}": batch_rate},
        "games": {"one_seat": one_seat_games, "every_seat": every_seat_games, f"batch_{tables}": batch_games},
        "bytes_per_table": bytes_per_table,
        "play_table_games_per_s": play_table_rate,
        "actions": int(table[0].shape[0]),
        "seconds": seconds,
        "tables": tables,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
    }


def table_count(text: str) -> int:
    """``--tables``: an integer from 1 to 100,000."""
    if not text.isdigit() or not 1 <= int(text) <= 100_000:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of tables (allowed: 1 to 100,000)")
    return int(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time spent on each case (default 3)")
    parser.add_argument("--tables", type=table_count, default=128, metavar="N",
                        help="tables stepped together, 1 to 100,000 (default 128)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    figures = measure(args.seconds, args.tables)
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    for case, rate in figures["steps_per_s"].items():
        print(f"{case:>12}: {rate:10,.0f} decisions/s from outside ({figures['games'][case]} games played)")
    print(f"memory: {figures['bytes_per_table'] / 1024:,.0f} KiB per game in progress")
    print(f"all-jitted table, the roster at every seat: {figures['play_table_games_per_s']:,.0f} games/s")


if __name__ == "__main__":
    main()
