"""Time to a verdict: the seconds of play needed to tell the shipped roster's closest pair apart at 95% with 80%
power.

The headline figure of autodup: the product of its speed and of the luck it
removes, for the default estimator (``autodup run``: the haystack dealer, a
Latin square, placements corrected by the value shipped for set4) against
independent tables on the plain sampler (the ``independent`` dealer, raw
placements), in one run of this script:

1. **Games needed.** ``autodup.quality`` plays the same boards under the
   haystack and under the independent control (set4, every shipped bot, 8
   tables a board) and gives, for the closest pair, the games each format
   needs to separate it at 95% with 80% power (``((1.96 + 0.84) sd / mean
   difference)^2`` boards x tables: a run of that many games has a 95% interval
   that excludes 0 in 80% of runs; each format's own standard deviation, the
   same mean difference).
2. **Games per second.** In this process, on one core: the roster on the
   haystack with every seat's correction computed (what the default costs),
   and on the independent dealer without corrections (plain tables). Repeats
   are interleaved and each figure is the median.
3. **Seconds to a verdict** = games needed / games per second, on one core; a
   run on ``c`` cores divides both by about the same factor, so the ratio is
   the machine-independent figure.

The quality run plays the boards ``autodup quality`` plays by default (seed 0).

Usage: ``python benchmarks/bench_verdict.py [--boards 1000] [--seed 0] [--workers W] [--repeats 3] [--json]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time
from pathlib import Path

import numpy as np


def games_needed(boards: int, seed: int, workers: int | None) -> dict:
    """The closest pair's games to a verdict under each format, from ``autodup.quality``."""
    import autodup

    with tempfile.TemporaryDirectory() as folder:
        report = autodup.quality("set4", boards=boards, dealers="haystack", seed=seed, ladder=False,
                                 null_check=False, out=Path(folder) / "quality", workers=workers,
                                 note=lambda line: None)
    verdict = report.data["verdict"]
    needed = verdict["games_needed"]
    if needed.get("independent") is None or needed.get("corrected") is None:
        raise SystemExit(f"bench_verdict: the closest pair is not resolved at {boards} boards "
                         f"({needed.get('why')}); use more --boards")
    closest = verdict["pairs"][0]
    return {"closest_pair": closest["pair"], "mean_difference": closest["mean_difference"],
            "variance_reduction_corrected": closest["corrected"], "variance_reduction_corrected_ci": closest["corrected_ci"],
            "independent": needed["independent"], "default": needed["corrected"], "boards": boards, "seed": seed}


def games_per_second(repeats: int, boards: int) -> dict:
    """Games/s on one core: the default (haystack, corrected) and independent plain tables (raw)."""
    from autodup.game.boards import play_boards
    from autodup.game.bot_loading import bot_names, load_bot, policy_tuple
    from autodup.game.config import load_config
    from autodup.game.rules import rules_of
    from autodup.game.value import corrections_of_boards, read_value_file, shipped_value_file

    rules = rules_of(load_config("set4"))
    bots = [load_bot(name) for name in bot_names()]
    lineup = policy_tuple(bots)
    weights = read_value_file(shipped_value_file("set4")).weights_for(
        [bot.name for bot in bots], [bot.fingerprint for bot in bots])[0]

    def default(seed: int, boards: int) -> None:
        played = play_boards(rules, "haystack", *lineup, seed=seed, boards=boards, tables=len(bots), seating="latin",
                             n_bots=len(bots))
        corrections_of_boards(played.stage_luck, played.bots, weights)

    def independent(seed: int, boards: int) -> None:
        play_boards(rules, "independent", *lineup, seed=seed, boards=boards, tables=len(bots), seating="latin",
                    n_bots=len(bots))

    cases = {"default": default, "independent": independent}
    for play in cases.values():
        play(1, 1)  # compiled, or read from the cache, before timing
    samples = {name: [] for name in cases}
    for repeat in range(repeats):
        for name, play in cases.items():
            start = time.perf_counter()
            play(1000 + repeat, boards)
            samples[name].append(boards * len(bots) / (time.perf_counter() - start))
    return {name: float(np.median(values)) for name, values in samples.items()}


def measure(boards: int, seed: int, workers: int | None, repeats: int, speed_boards: int) -> dict:
    needed = games_needed(boards, seed, workers)
    speed = games_per_second(repeats, speed_boards)
    seconds = {name: needed[name] / speed[name] for name in ("default", "independent")}
    return {"seconds_to_verdict": seconds, "speedup": seconds["independent"] / seconds["default"],
            "games_needed": {name: needed[name] for name in ("default", "independent")},
            "games_per_second": speed, "closest_pair": needed["closest_pair"],
            "mean_difference": needed["mean_difference"],
            "variance_reduction_corrected": needed["variance_reduction_corrected"],
            "variance_reduction_corrected_ci": needed["variance_reduction_corrected_ci"],
            "boards": boards, "seed": seed, "repeats": repeats,
            "machine": {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(),
                        "python": platform.python_version()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=1000, help="boards of the quality run (8 games each)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=None, help="workers of the quality run (default: all cores)")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved timing repeats; medians are reported")
    parser.add_argument("--speed-boards", type=int, default=150, help="boards (8 games each) per timed repeat")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args()
    result = measure(args.boards, args.seed, args.workers, args.repeats, args.speed_boards)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    pair = " vs ".join(result["closest_pair"])
    print(f"time to tell the closest pair ({pair}, mean placements {abs(result['mean_difference']):.3f} apart) "
          f"apart at 95% with 80% power, set4, one core:")
    for name, label in (("default", "default (haystack, corrected)"), ("independent", "independent plain tables")):
        print(f"  {label:<30} {result['seconds_to_verdict'][name]:7.2f} s = {result['games_needed'][name]:8,.0f} games "
              f"at {result['games_per_second'][name]:6.0f} games/s")
    print(f"  the default reaches it {result['speedup']:.2f}x sooner (variance {result['variance_reduction_corrected']:.2f}x "
          f"lower, quality run of {args.boards} boards, seed {args.seed})")


if __name__ == "__main__":
    main()
