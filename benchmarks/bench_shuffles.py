"""``autodup shuffles``: the 2020 article's 50,000-shuffle table for every default method, timed, in one run.

Each method's experiment (500 runs x 100 deals of 40 cards: dealing, the
position matrices, the duplicates, the successions, the rising sequences and
the neighbour distances) is timed on all cores and on one, and the whole
table (every method, one replicate) is summed. ``numpy_ns_per_deck`` is
numpy's own shuffle of the same number of 40-card decks from the same run
(``Generator.permuted`` of a 50,000 x 40 array: the shuffle alone, vectorized,
without any counting), the plain sampler to compare the ideal shuffle with.
The article's Python took 175 s for its 13 methods (its own figure, not
measured here). Repeats are interleaved; each figure is the median.

Usage: ``python benchmarks/bench_shuffles.py [--repeats R] [--json]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

import numba
import numpy as np

from autodup.labs.shuffle_kernels import DEFAULT_METHODS, DEFAULT_RUNS, DEFAULT_SHUFFLES, parse_method
from autodup.labs.shuffle_laws import run_experiment

CARDS = 40


def _seconds(function) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def measure(repeats: int) -> dict:
    deals = DEFAULT_RUNS * DEFAULT_SHUFFLES
    methods = {name: parse_method(name) for name in DEFAULT_METHODS}
    for letters in methods.values():  # compile, or load the cache, before timing
        run_experiment(letters, CARDS, 2, 10)
    generator = np.random.default_rng(0)
    ordered = np.tile(np.arange(CARDS), (deals, 1))
    threads = numba.get_num_threads()
    samples: dict = {}
    for _ in range(repeats):
        for name, letters in methods.items():
            samples.setdefault((name, "all"), []).append(_seconds(lambda: run_experiment(letters, CARDS)))
            numba.set_num_threads(1)
            try:
                samples.setdefault((name, "one"), []).append(_seconds(lambda: run_experiment(letters, CARDS)))
            finally:
                numba.set_num_threads(threads)
        samples.setdefault(("numpy", "one"), []).append(_seconds(lambda: generator.permuted(ordered, axis=1)))
    median = {key: float(np.median(values)) for key, values in samples.items()}
    result = {"cards": CARDS, "deals_per_method": deals, "threads": threads, "repeats": repeats, "methods": {},
              "numpy_ns_per_deck": median[("numpy", "one")] / deals * 1e9,
              "machine": {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(),
                          "python": platform.python_version()}}
    for name in methods:
        result["methods"][name] = {"seconds": median[(name, "all")], "seconds_one_core": median[(name, "one")],
                                   "ns_per_deck_one_core": median[(name, "one")] / deals * 1e9}
    result["table_seconds"] = sum(m["seconds"] for m in result["methods"].values())
    result["table_seconds_one_core"] = sum(m["seconds_one_core"] for m in result["methods"].values())
    ideal = result["methods"]["S"]["ns_per_deck_one_core"]
    result["ideal_over_numpy"] = ideal / result["numpy_ns_per_deck"]
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="interleaved repeats; medians are reported")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args()
    result = measure(args.repeats)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{result['deals_per_method']:,} deals of {CARDS} cards per method, median of {args.repeats}")
    threads = f"{result['threads']} threads"
    print(f"{'method':<9} {threads:>10} {'one core':>9} {'ns/deck':>8}")
    for name, entry in result["methods"].items():
        print(f"{name:<9} {entry['seconds'] * 1e3:>8.0f}ms {entry['seconds_one_core'] * 1e3:>7.0f}ms "
              f"{entry['ns_per_deck_one_core']:>8.0f}")
    print(f"the whole table ({len(result['methods'])} methods): {result['table_seconds']:.2f} s on "
          f"{result['threads']} threads, {result['table_seconds_one_core']:.2f} s on one core")
    print(f"numpy's shuffle alone: {result['numpy_ns_per_deck']:.0f} ns/deck; the lab's ideal shuffle with every "
          f"count: {result['ideal_over_numpy']:.1f}x that")


if __name__ == "__main__":
    main()
