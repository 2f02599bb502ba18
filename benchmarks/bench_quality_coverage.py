"""Coverage of the quality report's intervals at the sizes users run, by simulation over seeds.

For each size (100, 300, 1,000 boards) and each of ``--seeds`` tournament
seeds, the haystack dealer's ladder runs and the control's (the five runs
``autodup quality --dealers haystack`` plays) are played and measured the way
the report measures them. Each figure of the closest pair the run picked
(variance reduction and efficiency of every ladder step, raw and
luck-adjusted) is compared with the same figure of the same pair measured on
one large run of other boards (``--truth-boards``): the share of intervals
that hold it is the coverage (95% intended). A figure the report does not
give at that size (too few boards to fit the luck slopes, a mean difference
not resolved) counts as withheld, not as covered.

The truth has its own sampling error, about ``sqrt(size / truth_boards)`` of
an interval's half-width, which lowers the coverage measured at the largest
size a little; the standard error of each coverage is ``sqrt(c (1 - c) / n)``.

Usage: ``python benchmarks/bench_quality_coverage.py [CONFIG] [--sizes 100,300,1000] [--seeds 20,10,5]
[--truth-boards 4000] [--workers N] [--json]``
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
import time
from pathlib import Path

from autodup.analysis.measure_kernels import ADJUSTED
from autodup.analysis.measures import closest_pair, measure_run, variance_reduction
from autodup.analysis.quality import LADDER, efficiency, run_name
from autodup.api import run_tournament

DEALER = "haystack"
CONTROL = "independent"
TRUTH_SEED = 10 ** 9   # far from the seeds of the small runs: other boards


def play_ladder(config: str, boards: int, seed: int, workers: int, folder: Path) -> dict:
    """``{(dealer, design, events): RunMeasures}`` of the five runs of a one-dealer quality ladder."""
    runs = {}
    for dealer in (DEALER, CONTROL):
        for design, events in (("latin", "seat"), ("latin", "position"), ("paired", "seat")):
            if dealer == CONTROL and events == "position":
                continue  # the control has no events to address: one run per design
            out = folder / run_name(dealer, design, events)
            run_tournament(config, boards=boards, dealer=dealer, seed=seed, design=design, events=events,
                           out=out, workers=workers)
            runs[dealer, design, events] = measure_run(out)
    return runs


def figures(runs: dict, pair: int) -> dict:
    """``{figure name: (value, [low, high])}`` of pair ``pair``: each ladder step's variance reduction against
    the control of its design and its efficiency against the plain tournament, as the report computes them."""
    plain = runs[CONTROL, "latin", "seat"]
    result = {}
    for step, design, events, estimator in LADDER:
        run, its_control = runs[DEALER, design, events], runs[CONTROL, design, "seat"]
        result[f"{step}: variance reduction"] = variance_reduction(run, its_control, pair, estimator)
        measured = efficiency(run, its_control, plain, pair, estimator)
        result[f"{step}: efficiency"] = (measured["factor"], measured["ci"])
    for design in ("latin", "paired"):
        control = runs[CONTROL, design, "seat"]
        result[f"luck adjustment alone ({design}): variance reduction"] = variance_reduction(control, control, pair,
                                                                                              ADJUSTED)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("config", nargs="?", default="set4")
    parser.add_argument("--sizes", default="100,300,1000")
    parser.add_argument("--seeds", default="20,10,5", help="seeds per size, comma-separated (one for all)")
    parser.add_argument("--truth-boards", type=int, default=4000)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    seeds = [int(count) for count in args.seeds.split(",")]
    seeds = dict(zip(sizes, seeds * len(sizes) if len(seeds) == 1 else seeds))
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        truth_runs = play_ladder(args.config, args.truth_boards, TRUTH_SEED, args.workers, Path(folder) / "truth")
        pairs = len(truth_runs[CONTROL, "latin", "seat"].pairs)
        truth = {pair: figures(truth_runs, pair) for pair in range(pairs)}
        del truth_runs
        tallies = {}
        for size in sizes:
            for seed in range(seeds[size]):
                runs = play_ladder(args.config, size, seed, args.workers, Path(folder) / f"{size}-{seed}")
                pair = closest_pair(runs[CONTROL, "latin", "seat"])
                for name, (value, interval) in figures(runs, pair).items():
                    tally = tallies.setdefault((size, name), {"covered": 0, "missed": 0, "withheld": 0,
                                                              "estimates": []})
                    true_value = truth[pair][name][0]
                    tally["estimates"].append({"seed": seed, "pair": pair, "value": value, "ci": interval,
                                               "truth": true_value})
                    if value is None or interval[0] is None:
                        tally["withheld"] += 1
                    elif true_value is None:
                        tally["no truth"] = tally.get("no truth", 0) + 1
                    elif interval[0] <= true_value <= interval[1]:
                        tally["covered"] += 1
                    else:
                        tally["missed"] += 1
    rows = []
    for (size, name), tally in tallies.items():
        given = tally["covered"] + tally["missed"]
        coverage = tally["covered"] / given if given else None
        estimates = tally.pop("estimates")
        rows.append({"boards": size, "figure": name, **tally, "estimates": estimates,
                     "coverage": coverage,
                     "coverage_se": math.sqrt(coverage * (1 - coverage) / given) if given else None})
    if args.json:
        print(json.dumps({"config": args.config, "seeds": seeds, "truth_boards": args.truth_boards,
                          "seconds": time.perf_counter() - start, "rows": rows}, indent=2))
        return
    print(f"{args.config}: seeds per size {seeds}, truth from {args.truth_boards:,} boards; "
          f"{time.perf_counter() - start:.0f} s")
    print(f"{'boards':>6}  {'figure':<78} {'coverage':>14} {'withheld':>8}")
    for row in rows:
        shown = "n/a" if row["coverage"] is None else f"{row['coverage']:.2f} +/- {row['coverage_se']:.2f}"
        print(f"{row['boards']:>6}  {row['figure']:<78} {shown:>14} {row['withheld']:>8}")


if __name__ == "__main__":
    main()
