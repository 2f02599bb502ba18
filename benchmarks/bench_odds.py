"""``autodup odds``: simulated roll sequences per second on one core, and the exact laws' time, in one run.

The issue's case: 100,000 sequences of 50 gold (25 rolls of 5 slots on set4)
for a 3-cost at level 6. Each dealer is timed with the other seats' shops held
(the command's default) and without; repeats are interleaved and each figure
is the median. ``per_slot_ns`` divides by the player's slots (25 x 5), and
``draw_ns`` is a bare hierarchical draw of the same engine on the same pool
(autodup.engine.kernels, no game around it) from the same run, so that
``slot_over_draw`` says what the game's shop adds to the draw itself: the
reroll action, its out-of-line call with the table, the tier totals and the
luck terms.

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


@njit(cache=True)
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
    draws = 200_000
    for dealer in DEALERS_TIMED:  # compile, or load the cache, before timing
        for situation in situations.values():
            simulate_odds(situation, 10, dealer)
        _bare_draws(DEALERS[dealer].code, np.uint64(1), odds, pool, config.tier_start, 10)
    samples = {}
    for _ in range(repeats):
        for dealer in DEALERS_TIMED:
            for case, situation in situations.items():
                _timed(lambda: simulate_odds(situation, trials, dealer), samples, f"{dealer}/{case}")
            _timed(lambda: _bare_draws(DEALERS[dealer].code, np.uint64(2), odds, pool, config.tier_start, draws),
                   samples, f"{dealer}/draw")
        _timed(lambda: chain_odds(situations["held"]), samples, "chain")
        _timed(lambda: game_odds(situations["held"]), samples, "game")
    median = {name: float(np.median(values)) for name, values in samples.items()}
    result = {"dealers": {}, "question": "set4, Yuumi at level 6, 50 gold = 25 rolls", "trials": trials,
              "chain_s": median["chain"], "game_s": median["game"], "repeats": repeats,
              "machine": {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(),
                          "python": platform.python_version()}}
    for dealer in DEALERS_TIMED:
        draw_ns = median[f"{dealer}/draw"] / draws * 1e9
        entry = {"draw_ns": draw_ns}
        for case in situations:
            seconds = median[f"{dealer}/{case}"]
            entry[case] = {"seconds": seconds, "sequences_per_s": trials / seconds,
                           "per_slot_ns": seconds / (trials * slots) * 1e9,
                           "slot_over_draw": seconds / (trials * slots) * 1e9 / draw_ns}
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
    print(f"{result['question']}: {args.trials:,} simulated sequences on one core, median of {args.repeats}")
    print(f"{'dealer':<12} {'other shops held':>17} {'none held':>10} {'ns/slot':>8} {'bare draw':>10} "
          f"{'slot/draw':>9}")
    for dealer, entry in result["dealers"].items():
        print(f"{dealer:<12} {entry['held']['seconds']:>16.2f}s {entry['no_other_shops']['seconds']:>9.2f}s "
              f"{entry['no_other_shops']['per_slot_ns']:>8.0f} {entry['draw_ns']:>8.0f}ns "
              f"{entry['no_other_shops']['slot_over_draw']:>8.1f}x")
    print(f"exact: the chain {result['chain_s'] * 1e3:.1f} ms, the game's law {result['game_s'] * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
