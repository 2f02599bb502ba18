"""``autodup odds``: simulated roll sequences per second on one core, and the exact laws' time, in one run.

The issue's case: 100,000 sequences of 50 gold (25 rolls of 5 slots on set4)
for a 3-cost at level 6 (issue 31's target: under 1 s on one core). Each
dealer is timed with the other seats' shops held (the command's default) and
without, by both simulations on one thread: ``watched`` (the command's
default: only the draws the question can see, the same counts trial by trial)
and ``game`` (every slot through the table's shop). ``threads`` is the
command's default, watched on one thread per core, timed from the call. Repeats are interleaved and each
figure is the median. ``per_slot_ns`` divides by the player's slots (25 x 5),
and ``draw_ns`` is a bare hierarchical draw of the same engine on the same
pool (autodup.engine.kernels, no game around it) from the same run.

Usage: ``python benchmarks/bench_odds.py [--trials N] [--repeats R] [--json]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

import numpy as np
from numba import njit

from autodup.engine.dealers import DEALERS
from autodup.engine.kernels import engine_draw_hierarchical, engine_state
from autodup.game.config import load_config
from autodup.labs.odds import RollQuestion, chain_odds, game_odds, resolve
from autodup.labs.odds_simulation import simulate_odds
from autodup.shipped import config_file

QUESTION = RollQuestion(level=6, champion="Yuumi", gold=50)
DEALERS_TIMED = ("independent", "haystack", "keyed")
SIMULATIONS = ("watched", "game")
TARGET_SECONDS = 1.0  # issue 31: 100,000 sequences of 50 gold on one core


# Not cached: numba's own cache checks only this file, and this loop inlines the engine's kernels, so a cached
# copy would go on timing an engine that has since changed (autodup's cache covers the package's functions only).
@njit
def _bare_draws(engine, seed, tier_weights, pool, tier_start, n):
    counter, needles, needle_count = engine_state(pool.shape[0] + tier_weights.shape[0])
    total = 0
    for _ in range(n):
        total += engine_draw_hierarchical(engine, seed, counter, needles, needle_count, tier_weights, pool,
                                          tier_start)
    return total


def _timed(function, samples: dict, name: str) -> None:
    start = time.perf_counter()
    function()
    samples.setdefault(name, []).append(time.perf_counter() - start)


def measure(trials: int, repeats: int) -> dict:
    config = load_config(config_file("set4"))
    situations = {"held": resolve(config, QUESTION), "no_other_shops": resolve(config, QUESTION, other_shops=0)}
    slots = situations["held"].rolls * config.shop_size
    odds = config.level_odds[QUESTION.level] / config.level_odds[QUESTION.level].sum()
    pool = config.champion_copies.astype(np.float64)
    cores = os.cpu_count() or 1
    draws = 200_000
    for dealer in DEALERS_TIMED:  # compile, or load the cache, before timing
        for situation in situations.values():
            for simulation in SIMULATIONS:
                simulate_odds(situation, 10, dealer, simulation=simulation, threads=1)
        _bare_draws(DEALERS[dealer].code, np.uint64(1), odds, pool, config.tier_start, 10)
    samples = {}
    for _ in range(repeats):
        for dealer in DEALERS_TIMED:
            for case, situation in situations.items():
                for simulation in SIMULATIONS:
                    _timed(lambda: simulate_odds(situation, trials, dealer, simulation=simulation, threads=1),
                           samples, f"{dealer}/{case}/{simulation}")
                _timed(lambda: simulate_odds(situation, trials, dealer, threads=cores), samples,
                       f"{dealer}/{case}/threads")
            _timed(lambda: _bare_draws(DEALERS[dealer].code, np.uint64(2), odds, pool, config.tier_start, draws),
                   samples, f"{dealer}/draw")
        _timed(lambda: chain_odds(situations["held"]), samples, "chain")
        _timed(lambda: game_odds(situations["held"]), samples, "game")
    median = {name: float(np.median(values)) for name, values in samples.items()}
    result = {"dealers": {}, "question": "set4, Yuumi at level 6, 50 gold = 25 rolls", "trials": trials,
              "chain_s": median["chain"], "game_s": median["game"], "repeats": repeats, "target_s": TARGET_SECONDS,
              "machine": {"cpu": platform.processor() or platform.machine(), "cores": cores,
                          "python": platform.python_version()}}
    for dealer in DEALERS_TIMED:
        draw_ns = median[f"{dealer}/draw"] / draws * 1e9
        entry = {"draw_ns": draw_ns}
        for case in situations:
            entry[case] = {}
            for simulation in SIMULATIONS:
                seconds = median[f"{dealer}/{case}/{simulation}"]
                entry[case][simulation] = {"seconds": seconds, "sequences_per_s": trials / seconds,
                                           "per_slot_ns": seconds / (trials * slots) * 1e9,
                                           "slot_over_draw": seconds / (trials * slots) * 1e9 / draw_ns,
                                           "meets_target": seconds <= TARGET_SECONDS * trials / 100_000}
            entry[case]["watched_speedup"] = entry[case]["game"]["seconds"] / entry[case]["watched"]["seconds"]
            entry[case]["threads_seconds"] = median[f"{dealer}/{case}/threads"]
        result["dealers"][dealer] = entry
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=100_000, help="roll sequences per timing")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved repeats; medians are reported")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args()
    result = measure(args.trials, args.repeats)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{result['question']}: {args.trials:,} simulated sequences, median of {args.repeats}; "
          f"one thread unless said (target: under {TARGET_SECONDS:.0f} s for 100,000 on one core)")
    print(f"{'dealer':<12} {'shops':<9} {'watched':>8} {'game':>7} {'speedup':>7} {'ns/slot':>7} "
          f"{'threads':>8} {'target':>6}")
    for dealer, entry in result["dealers"].items():
        for case, label in (("held", "held"), ("no_other_shops", "none")):
            watched, game = entry[case]["watched"], entry[case]["game"]
            print(f"{dealer:<12} {label:<9} {watched['seconds']:>7.2f}s {game['seconds']:>6.2f}s "
                  f"{entry[case]['watched_speedup']:>6.1f}x {watched['per_slot_ns']:>7.0f} "
                  f"{entry[case]['threads_seconds']:>7.2f}s {'met' if watched['meets_target'] else 'not':>6}")
        print(f"{'':<12} bare draw {entry['draw_ns']:.0f} ns")
    print(f"threads: the command's default, {result['machine']['cores']} (one per core)")
    print(f"exact: the chain {result['chain_s'] * 1e3:.1f} ms, the game's law {result['game_s'] * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
