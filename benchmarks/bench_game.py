"""Full 8-seat games per second on a configuration, per dealer, in one process and one run.

Every dealer plays the same boards (one table per board, seeds from the seed
tree) with the built-in simple policy at every seat. Repeats are interleaved
across dealers and each figure is the median; ``ratio_to_plain`` is the cost
of a game relative to the plain dealer, from the same run.

Usage: ``python benchmarks/bench_game.py [CONFIG] [--games N] [--repeats R] [--json]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

import numpy as np

from autodup.config import load_config
from autodup.game import DEALERS, ORDER_EVENTS, POLICIES, play_boards, rules_of


def measure(config_path: str, games: int, repeats: int) -> dict:
    rules = rules_of(load_config(config_path))
    policies = np.full(rules.players, POLICIES["simple"], dtype=np.int64)
    for code in DEALERS.values():  # compile, or load the cache, before timing
        play_boards(rules, code, ORDER_EVENTS, 1, 0, 1, policies)
    samples = {name: [] for name in DEALERS}
    rounds = {}
    for _ in range(repeats):
        for name, code in DEALERS.items():
            start = time.perf_counter()
            _, played = play_boards(rules, code, ORDER_EVENTS, 2026, 0, games, policies)
            samples[name].append(games / (time.perf_counter() - start))
            rounds[name] = float(played.mean())
    games_per_s = {name: float(np.median(values)) for name, values in samples.items()}
    return {
        "games_per_s": games_per_s,
        "ratio_to_plain": {name: games_per_s["plain"] / value for name, value in games_per_s.items()},
        "mean_rounds": rounds,
        "config": config_path,
        "games": games,
        "repeats": repeats,
        "machine": {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(),
                    "python": platform.python_version()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config", nargs="?", default="configs/set4.yaml")
    parser.add_argument("--games", type=int, default=400, help="games per dealer per repeat")
    parser.add_argument("--repeats", type=int, default=5, help="interleaved repeats; medians are reported")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args()
    result = measure(args.config, args.games, args.repeats)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"games per second on {args.config}, one process, simple policy, median of {args.repeats}")
    for name, value in result["games_per_s"].items():
        print(f"{name:<10} {value:9.1f} games/s   cost {result['ratio_to_plain'][name]:.2f}x plain   "
              f"{result['mean_rounds'][name]:.1f} rounds")


if __name__ == "__main__":
    main()
