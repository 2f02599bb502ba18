"""Nanoseconds per draw of every engine, flat and hierarchical, in one process and one run.

Workload: a Set-4-like pool (5 tiers of 13/13/13/11/8 champions with
29/22/18/12/10 copies, 58 champions). Every draw takes one copy out of the
pool, and the copy taken 40 draws earlier goes back, so weights change at
every draw as they do in a game (shops and benches hold units). "flat" races
all 58 champions by copies left; "hier" first races the tiers by level-7 shop
odds (tiers with no copies skipped), then the champions of the chosen tier by
copies left. The pool bookkeeping is the same for every engine, so ratios to
``plain`` measure the engines alone. Repeats are interleaved across engines
and each figure is the median (the best is reported too); ratios are taken
within the same run. The loops here are compiled
afresh on every run (no cache), so they always inline the current kernels.

Also reported: a 10,000-outcome flat pool (a deckbuilder), for the engines'
cost beyond TFT size, and the tree haystack (:mod:`autodup.engine.tree`: the
same race kept in a tree of minima, told which weight changed) on the same
workload at 58 and at 10,000 outcomes. ``tree_10k_over_58`` is the growth of
its cost with the pool (target, issue 31: at most 5x).

Usage: ``python benchmarks/bench_draws.py [--draws N] [--repeats R] [--json]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

import numpy as np
from numba import njit

from autodup.engine.kernels import (
    ENGINE_HAYSTACK,
    ENGINE_KEYED,
    ENGINE_PLAIN,
    ENGINE_STREAM,
    engine_draw,
    engine_draw_hierarchical,
    engine_state,
)
from autodup.engine.tree import tree_draw, tree_set_weight, tree_state

ENGINE_CODES = {"plain": ENGINE_PLAIN, "stream": ENGINE_STREAM, "haystack": ENGINE_HAYSTACK, "keyed": ENGINE_KEYED}
CHAMPIONS_PER_TIER = np.array([13, 13, 13, 11, 8])
COPIES_PER_TIER = np.array([29.0, 22.0, 18.0, 12.0, 10.0])
LEVEL7_ODDS = np.array([19.0, 30.0, 35.0, 15.0, 1.0])
HELD_UNITS = 40
SEED = np.uint64(0x5EED)


def set4_pool():
    """Outcome weights (float64 (58,)), tier of each outcome (int64 (58,)) and tier_start (int64 (6,))."""
    tier_of = np.repeat(np.arange(5), CHAMPIONS_PER_TIER).astype(np.int64)
    copies = COPIES_PER_TIER[tier_of].copy()
    tier_start = np.concatenate([[0], np.cumsum(CHAMPIONS_PER_TIER)]).astype(np.int64)
    return copies, tier_of, tier_start


@njit
def _run_flat(engine, n_draws, copies, held):
    counter, needles, needle_count = engine_state(copies.shape[0])
    checksum = 0
    for d in range(n_draws):
        j = engine_draw(engine, SEED, counter, needles, needle_count, copies)
        checksum += j
        copies[j] -= 1.0
        slot = d % held.shape[0]
        back = held[slot]
        if back >= 0:
            copies[back] += 1.0
        held[slot] = j
    return checksum


@njit
def _run_hierarchical(engine, n_draws, copies, tier_of, tier_start, odds, held):
    n = copies.shape[0]
    n_tiers = odds.shape[0]
    counter, needles, needle_count = engine_state(n + n_tiers)
    tier_copies = np.zeros(n_tiers)
    for i in range(n):
        tier_copies[tier_of[i]] += copies[i]
    tier_weights = np.zeros(n_tiers)
    for t in range(n_tiers):
        tier_weights[t] = odds[t] if tier_copies[t] > 0 else 0.0
    checksum = 0
    for d in range(n_draws):
        j = engine_draw_hierarchical(engine, SEED, counter, needles, needle_count,
                                     tier_weights, copies, tier_start)
        checksum += j
        copies[j] -= 1.0
        t = tier_of[j]
        tier_copies[t] -= 1.0
        if tier_copies[t] == 0.0:
            tier_weights[t] = 0.0
        slot = d % held.shape[0]
        back = held[slot]
        if back >= 0:
            copies[back] += 1.0
            t = tier_of[back]
            tier_copies[t] += 1.0
            tier_weights[t] = odds[t]
        held[slot] = j
    return checksum


@njit
def _run_tree(n_draws, copies, held):
    """The flat workload on the tree haystack: it is told of the two weights each step changes."""
    weights, alarms, parked, counts, minima, clock = tree_state(copies.shape[0])
    for i in range(copies.shape[0]):
        tree_set_weight(SEED, weights, alarms, parked, counts, minima, clock, i, copies[i])
    checksum = 0
    for d in range(n_draws):
        j = tree_draw(SEED, weights, alarms, parked, counts, minima, clock)
        checksum += j
        tree_set_weight(SEED, weights, alarms, parked, counts, minima, clock, j, weights[j] - 1.0)
        slot = d % held.shape[0]
        back = held[slot]
        if back >= 0:
            tree_set_weight(SEED, weights, alarms, parked, counts, minima, clock, back, weights[back] + 1.0)
        held[slot] = j
    return checksum


def _seconds(function) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def measure(draws: int, repeats: int, large_draws: int) -> dict:
    copies, tier_of, tier_start = set4_pool()
    held = lambda: np.full(HELD_UNITS, -1, dtype=np.int64)  # noqa: E731
    cases = {}
    for name, code in ENGINE_CODES.items():
        n = draws if name != "keyed" else max(draws // 10, 1)
        cases[f"{name}/flat"] = (n, lambda code=code, n=n: _run_flat(code, n, copies.copy(), held()))
        cases[f"{name}/hier"] = (n, lambda code=code, n=n: _run_hierarchical(
            code, n, copies.copy(), tier_of, tier_start, LEVEL7_ODDS, held()))
    large = np.full(10_000, 3.0)
    for name in ("plain", "haystack"):
        code = ENGINE_CODES[name]
        cases[f"{name}/flat10k"] = (large_draws, lambda code=code: _run_flat(code, large_draws, large.copy(), held()))
    cases["tree/flat"] = (draws, lambda: _run_tree(draws, copies.copy(), held()))
    cases["tree/flat10k"] = (large_draws * 10, lambda: _run_tree(large_draws * 10, large.copy(), held()))
    _run_tree(10, copies.copy(), held())
    # Compile before timing; then interleave the repeats so that a slow spell of
    # the machine hits every engine alike.
    for code in ENGINE_CODES.values():
        _run_flat(code, 10, copies.copy(), held())
        _run_hierarchical(code, 10, copies.copy(), tier_of, tier_start, LEVEL7_ODDS, held())
    samples = {key: [] for key in cases}
    for _ in range(repeats):
        for key, (n, run) in cases.items():
            samples[key].append(_seconds(run) / n * 1e9)
    median = {key: float(np.median(values)) for key, values in samples.items()}
    best = {key: float(np.min(values)) for key, values in samples.items()}
    order = [f"{e}/{k}" for e in ENGINE_CODES for k in ("flat", "hier")]
    return {
        "ns_per_draw": {key: median[key] for key in order},
        "ratio_to_plain": {key: median[key] / median["plain/" + key.split("/")[1]]
                           for key in order if not key.startswith("plain/")},
        "best_ns_per_draw": {key: best[key] for key in order},
        "large_pool_ns_per_draw": {key: median[key] for key in cases if key.endswith("10k")},
        "tree_ns_per_draw": {"58": median["tree/flat"], "10000": median["tree/flat10k"]},
        "tree_10k_over_58": median["tree/flat10k"] / median["tree/flat"],
        "machine": {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(),
                    "python": platform.python_version()},
        "draws": draws,
        "repeats": repeats,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=1_000_000, help="draws per measurement (keyed: a tenth)")
    parser.add_argument("--repeats", type=int, default=7, help="interleaved repeats; medians are reported")
    parser.add_argument("--large-draws", type=int, default=20_000, help="draws over the 10,000-outcome pool")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args()
    result = measure(args.draws, args.repeats, args.large_draws)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"ns per draw, median of {args.repeats} interleaved repeats "
          f"({args.draws:,} draws; keyed {max(args.draws // 10, 1):,})")
    print(f"{'engine':<10} {'flat':>9} {'hier':>9} {'flat/plain':>11} {'hier/plain':>11}")
    for name in ENGINE_CODES:
        flat, hier = result["ns_per_draw"][f"{name}/flat"], result["ns_per_draw"][f"{name}/hier"]
        rf = result["ratio_to_plain"].get(f"{name}/flat", 1.0)
        rh = result["ratio_to_plain"].get(f"{name}/hier", 1.0)
        print(f"{name:<10} {flat:9.1f} {hier:9.1f} {rf:10.2f}x {rh:10.2f}x")
    for key, value in result["large_pool_ns_per_draw"].items():
        print(f"{key:<18} {value:9.1f} ns")
    tree = result["tree_ns_per_draw"]
    print(f"tree haystack, flat: {tree['58']:.1f} ns with 58 outcomes, {tree['10000']:.1f} ns with 10,000 "
          f"({result['tree_10k_over_58']:.2f}x; target 5x)")


if __name__ == "__main__":
    main()
