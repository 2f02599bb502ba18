"""Agents outside the jitted table: environment steps per second, memory per environment, and a tournament with a
Python agent seat against the all-jitted one, in one run.

Agents answer with a uniformly random legal numbered action (drawn with numpy from the observation's action
mask, the agent's own time included), on set4's evaluation boards. The cases:

- ``single_env``: :class:`autodup.env.AutodupEnv` (Gymnasium), one learning seat, the roster's bots (all but
  ``random``) at the other seats, stepped one decision at a time from a Python loop;
- ``vector_env``: :class:`autodup.env.AutodupVectorEnv` of ``--tables`` tables, one learning seat each, all
  stepped by one call (the bots' own play bounds it: they play on in compiled code between the agent's steps);
- ``every_seat_batch``: ``--tables`` tables with all 8 seats agents (self-play), every waiting seat answered
  in one call (:class:`autodup.game.resumable.ResumableTables`, which the environments drive);
- ``tournament``: boards of set4 at 8 tables each (the Latin square of ``autodup run``), the roster at every
  seat, played by the all-jitted table; then the same with ``random`` replaced by a trivial Python agent
  (:class:`autodup.agents.EndTurnAgent`, asked in batches as ``autodup run`` asks it). Both in one process.

``bytes_per_env`` is the memory one environment holds: every array of its game in progress, its observation
buffers and its seeds.

Usage: ``python benchmarks/bench_agents.py [--seconds S] [--tables N] [--boards B] [--json]`` (loading the
compiled code comes first and is not timed).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

import numpy as np

from autodup.agents import EndTurnAgent
from autodup.api.evaluation import agent_bot
from autodup.env import AutodupEnv, AutodupVectorEnv
from autodup.game.agents import play_boards_with_agents
from autodup.game.boards import play_boards
from autodup.game.bot_loading import bot_names, load_bot, policy_tuple
from autodup.game.config import load_config
from autodup.game.resumable import ResumableTables, game_at
from autodup.game.rules import rules_of
from autodup.tournament.spec import CHUNK_BOARDS


def random_actions(masks, generator) -> np.ndarray:
    """int64 (rows,): a uniformly random legal numbered action for each mask (int8 (rows, A))."""
    keys = generator.random(masks.shape)
    keys[masks == 0] = -1.0
    return keys.argmax(axis=1)


def nbytes(value) -> int:
    if isinstance(value, np.ndarray):
        return value.nbytes
    return sum(nbytes(item) for item in value) if isinstance(value, tuple) else 0


def single_env(seconds, generator):
    env = AutodupEnv()
    observation, _ = env.reset(seed=2026)
    steps, games, start = 0, 0, time.perf_counter()
    while games == 0 or time.perf_counter() - start < seconds:
        mask = observation["action_mask"]
        action = int(random_actions(mask[None, :], generator)[0])
        observation, _, terminated, _, _ = env.step(action)
        steps += 1
        if terminated:
            games += 1
            observation, _ = env.reset()
    tables = env.tables
    size = (nbytes(game_at(tables.games, 0)) + nbytes(tuple(tables.observations)) + tables.placements.nbytes
            + tables.seat_seeds.nbytes)
    return steps / (time.perf_counter() - start), games, size


def vector_env(seconds, tables, generator):
    env = AutodupVectorEnv(tables)
    observations, _ = env.reset(seed=2026)
    steps, games, start = 0, 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        observations, _, terminated, _, _ = env.step(random_actions(observations["action_mask"], generator))
        steps += tables
        games += int(terminated.sum())
    return steps / (time.perf_counter() - start), games


def every_seat_batch(rules, seconds, tables, generator):
    steps, games, first, elapsed = 0, 0, 0, 0.0
    while first == 0 or elapsed < seconds:
        batch = ResumableTables(rules, [None] * rules.players, seed=2026, boards=range(first, first + tables))
        answers = batch.layout.answers
        start = time.perf_counter()
        while True:
            waiting = batch.waiting >= 0
            if not waiting.any():
                break
            steps += int(waiting.sum())
            batch.act(answers[random_actions(batch.observations.action_mask, generator)])
        elapsed += time.perf_counter() - start
        games += tables
        first += tables
    return steps / elapsed, games


def tournament(rules, boards):
    """Games per second: the roster all-jitted, then with a trivial Python agent in place of ``random``."""
    roster = [load_bot(name) for name in bot_names()]
    with_agent = [agent_bot(EndTurnAgent()) if bot.name == "random" else bot for bot in roster]
    tables = len(roster)
    start = time.perf_counter()
    play_boards(rules, "haystack", *policy_tuple(roster), seed=2026, boards=boards, tables=tables, seating="latin",
                n_bots=tables)
    jitted = boards * tables / (time.perf_counter() - start)
    start = time.perf_counter()
    for first in range(0, boards, CHUNK_BOARDS):  # chunk by chunk, as autodup run plays them
        play_boards_with_agents(rules, "haystack", with_agent, seed=2026, first_board=first,
                                boards=min(CHUNK_BOARDS, boards - first), tables=tables, seating="latin")
    agent = boards * tables / (time.perf_counter() - start)
    return jitted, agent


def measure(seconds: float, tables: int, boards: int) -> dict:
    rules = rules_of(load_config("set4"))
    generator = np.random.default_rng(2026)  # the agents' choices only: the games' draws come from the seed tree
    # Warm up: load every compiled function before any clock starts.
    single_env(0.0, generator)
    vector_env(0.0, 2, generator)
    every_seat_batch(rules, 0.0, 2, generator)
    tournament(rules, 1)
    single_rate, single_games, size = single_env(seconds, generator)
    vector_rate, vector_games = vector_env(seconds, tables, generator)
    batch_rate, batch_games = every_seat_batch(rules, seconds, tables, generator)
    jitted, agent = tournament(rules, boards)
    return {
        "steps_per_s": {"single_env": single_rate, f"vector_env_{tables}": vector_rate,
                        f"every_seat_batch_{tables}": batch_rate},
        "games": {"single_env": single_games, f"vector_env_{tables}": vector_games,
                  f"every_seat_batch_{tables}": batch_games},
        "bytes_per_env": size,
        "tournament_games_per_s": {"all_jitted": jitted, "one_python_agent": agent, "ratio": agent / jitted},
        "seconds": seconds, "tables": tables, "boards": boards,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
    }


def table_count(text: str) -> int:
    """``--tables``: an integer from 1 to 100,000."""
    if not text.isdigit() or not 1 <= int(text) <= 100_000:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of tables (allowed: 1 to 100,000)")
    return int(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time spent on each environment case (default 3)")
    parser.add_argument("--tables", type=table_count, default=128, metavar="N",
                        help="tables stepped together, 1 to 100,000 (default 128)")
    parser.add_argument("--boards", type=table_count, default=50, metavar="B",
                        help="boards of the tournament case, 8 tables each (default 50)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    figures = measure(args.seconds, args.tables, args.boards)
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    for case, rate in figures["steps_per_s"].items():
        print(f"{case:>22}: {rate:10,.0f} agent steps/s ({figures['games'][case]:,} games)")
    print(f"memory: {figures['bytes_per_env'] / 1024:,.0f} KiB per environment")
    tour = figures["tournament_games_per_s"]
    print(f"tournament, one core: {tour['all_jitted']:,.0f} games/s all-jitted, {tour['one_python_agent']:,.0f} "
          f"with a Python agent seat ({tour['ratio']:.0%})")


if __name__ == "__main__":
    main()
