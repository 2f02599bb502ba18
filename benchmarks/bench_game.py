"""Full 8-seat games per second on a configuration, per dealer, in one process and one run.

Every dealer of the registry plays the same boards (one table per board,
seeds from the seed tree) with the greedy bot at every seat, through the board
driver that ``autodup run`` uses. Repeats are interleaved across dealers and
each figure is the median; ``ratio_to_control`` is the cost of a game
relative to the ``independent`` control (the plain sampler), from the same
run. ``roster_games_per_s`` is the haystack with every bot of ``bots/`` at one
table, seats rotating, and ``roster_share`` its games/s over greedy's.

A game's cost in draws, machine-independent: ``draws_per_game`` is the time of
one haystack game with greedy at every seat over the time of one plain
hierarchical draw (``bench_draws.py``'s loop: a set4-sized pool, level-7 odds),
the draws timed in the same repeats as the games. Targets (issue 31): at most
6,000 draws a game, and the roster at most 10% below greedy alone. ``control_draws_per_game`` is the same
figure for the ``independent`` control's game: what the game costs with the plain sampler's draws, the part
of ``draws_per_game`` that is not the haystack's.
``draws_per_game_by_repeat`` gives each repeat's own figure (its haystack games over the plain draw timed
at the start of the same repeat, just before them): how far apart they lie says how much the machine
moved during the run.

Usage: ``python benchmarks/bench_game.py [CONFIG] [--games N] [--repeats R] [--json]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

import numpy as np
from bench_draws import HELD_UNITS, LEVEL7_ODDS, _run_hierarchical, set4_pool

from autodup.engine.dealers import CONTROL, DEALERS
from autodup.engine.kernels import ENGINE_PLAIN
from autodup.errors import AutodupError, one_line
from autodup.game.boards import play_boards
from autodup.game.bot_loading import bot_names, load_bot, policy_tuple
from autodup.game.config import load_config
from autodup.game.rules import rules_of
from autodup.game.stats import RESULT_COLUMNS


def measure(config_path: str, games: int, repeats: int) -> dict:
    rules = rules_of(load_config(config_path))
    greedy = policy_tuple([load_bot("greedy")])
    roster_bots = [load_bot(name) for name in bot_names()]
    roster = policy_tuple(roster_bots)
    # Every dealer with greedy at every seat, then every bot of bots/ at one table, seats rotating board by board:
    # (dealer, lineup, seating, bots seated).
    cases = {name: (dealer, greedy, "latin", 1) for name, dealer in DEALERS.items()}
    cases["roster"] = (DEALERS["haystack"], roster, "rotating", len(roster_bots))
    for dealer, lineup, seating, n_bots in cases.values():  # compile, or load the cache, before timing
        play_boards(rules, dealer, *lineup, seed=1, seating=seating, n_bots=n_bots)
    copies, tier_of, tier_start = set4_pool()
    draws = 1_000_000

    def plain_draws() -> None:
        _run_hierarchical(ENGINE_PLAIN, draws, copies.copy(), tier_of, tier_start, LEVEL7_ODDS,
                          np.full(HELD_UNITS, -1, dtype=np.int64))

    plain_draws()  # compiled before timing
    samples = {name: [] for name in cases}
    draw_seconds = []
    repeat_draws = []  # each repeat's haystack game over its own plain draw: the machine's noise, seen in one run
    rounds = {}
    for _ in range(repeats):
        start = time.perf_counter()
        plain_draws()
        draw_seconds.append((time.perf_counter() - start) / draws)
        for name, (dealer, lineup, seating, n_bots) in cases.items():
            start = time.perf_counter()
            played = play_boards(rules, dealer, *lineup, seed=2026, boards=games, seating=seating, n_bots=n_bots)
            samples[name].append(games / (time.perf_counter() - start))
            if name == "haystack":  # timed first in each repeat, right after the draws
                repeat_draws.append(1.0 / samples[name][-1] / draw_seconds[-1])
            rounds[name] = float(played.results[..., RESULT_COLUMNS.index("rounds_alive")].max(axis=-1).mean())
    games_per_s = {name: float(np.median(values)) for name, values in samples.items() if name != "roster"}
    roster_games_per_s = float(np.median(samples["roster"]))
    plain_draw_ns = float(np.median(draw_seconds)) * 1e9
    return {
        "draws_per_game": 1e9 / games_per_s["haystack"] / plain_draw_ns,
        "control_draws_per_game": 1e9 / games_per_s[CONTROL] / plain_draw_ns,
        "draws_per_game_by_repeat": repeat_draws,
        "plain_draw_ns_by_repeat": [seconds * 1e9 for seconds in draw_seconds],
        "haystack_games_per_s_by_repeat": samples["haystack"],
        "plain_hierarchical_draw_ns": plain_draw_ns,
        "roster_share": roster_games_per_s / games_per_s["haystack"],
        "games_per_s": games_per_s,
        "ratio_to_control": {name: games_per_s[CONTROL] / value for name, value in games_per_s.items()},
        "roster_games_per_s": roster_games_per_s,
        "roster": [bot.name for bot in roster_bots],
        "mean_rounds": rounds,
        "config": config_path,
        "games": games,
        "repeats": repeats,
        "machine": {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(),
                    "python": platform.python_version()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config", nargs="?", default="set4",
                        help="a shipped configuration's name or a YAML file (default: set4)")
    parser.add_argument("--games", type=int, default=400, help="games per dealer per repeat")
    parser.add_argument("--repeats", type=int, default=5, help="interleaved repeats; medians are reported")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args()
    try:
        result = measure(args.config, args.games, args.repeats)
    except AutodupError as error:  # a configuration that is not there or not valid: one line
        raise SystemExit(f"bench_game: {one_line(str(error))}") from None
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"games per second on {args.config}, one process, greedy bot at every seat, median of {args.repeats}")
    for name, value in result["games_per_s"].items():
        print(f"{name:<12} {value:9.1f} games/s   cost {result['ratio_to_control'][name]:.2f}x {CONTROL}   "
              f"{result['mean_rounds'][name]:.1f} rounds")
    print(f"{'roster':<12} {result['roster_games_per_s']:9.1f} games/s   haystack, the {len(result['roster'])} bots "
          f"of bots/ rotating seats   {result['mean_rounds']['roster']:.1f} rounds   "
          f"{result['roster_share']:.0%} of greedy's")
    print(f"a haystack game with greedy at every seat costs {result['draws_per_game']:,.0f} plain hierarchical draws "
          f"({result['plain_hierarchical_draw_ns']:.1f} ns each, timed in the same repeats; target 6,000)")
    print(f"the {CONTROL} control's game (the plain sampler's draws) costs {result['control_draws_per_game']:,.0f}: "
          f"the game's own share, before the haystack's")
    by_repeat = result["draws_per_game_by_repeat"]
    print(f"each repeat's game over its own draw: {min(by_repeat):,.0f} to {max(by_repeat):,.0f} plain draws "
          f"(a quiet machine keeps them close; a shared one moves them)")


if __name__ == "__main__":
    main()
