"""The first run on a new machine: ``autodup run --boards 50`` with an empty compiled-code cache, timed from outside.

A fresh clone differs from this checkout only in having compiled nothing yet
(compiled code is cached per version of autodup, under ``~/.cache/autodup``
or ``$AUTODUP_CACHE_DIR``), so the script points the cache at an empty folder
and runs, in a fresh process each:

* ``cold``: ``autodup run --boards N`` with nothing compiled: the game table
  and the bots compile (side by side, in two processes), then the run;
* ``warm``: the same command again into a new folder, everything cached.

Targets (issue 31): ``cold`` at most 30 s on 2 cores for 50 boards, ``warm`` at most 5 s (issue 10's
first target was 60 s cold).

``--runs N`` repeats the pair N times, each cold run with an empty cache of its own, and reports the
medians with every run's figure: one cold run says little on a shared VM (25.9-40.2 s in 17 runs of
the same code in one evening).

Usage: ``python benchmarks/bench_first_run.py [--boards 50] [--runs 1] [--json]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

TARGET_SECONDS = 30.0       # cold
WARM_TARGET_SECONDS = 5.0


def timed_run(boards: int, cache: Path, out: Path) -> tuple:
    """Seconds of one ``autodup run`` in a fresh process, and whether it said it was compiling."""
    environment = {**os.environ, "AUTODUP_CACHE_DIR": str(cache)}
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "autodup", "run", "--boards", str(boards), "--out", str(out),
                             "--quiet"], capture_output=True, text=True, env=environment)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"bench_first_run: autodup run failed: {result.stderr.strip()}")
    return seconds, "compiling" in result.stderr


def _each_run(seconds: list) -> str:
    """Every run's seconds, when there are several."""
    return f"   runs: {', '.join(f'{value:.1f}' for value in seconds)}" if len(seconds) > 1 else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=50)
    parser.add_argument("--runs", type=int, default=1,
                        help="cold runs, each with an empty cache and followed by a warm one; medians are reported")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.runs < 1 or args.boards < 1:
        parser.error("--runs and --boards must be at least 1")
    colds, warms, said = [], [], True
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as folder:
            cache = Path(folder) / "cache"
            cold, said_this_time = timed_run(args.boards, cache, Path(folder) / "cold")
            warm, _ = timed_run(args.boards, cache, Path(folder) / "warm")
        colds.append(cold)
        warms.append(warm)
        said = said and said_this_time
    cold, warm = float(np.median(colds)), float(np.median(warms))
    figures = {"boards": args.boards, "cores": os.cpu_count(), "python": platform.python_version(),
               "cold_seconds": round(cold, 1), "warm_seconds": round(warm, 1), "said_compiling": said,
               "cold_runs": [round(value, 1) for value in colds], "warm_runs": [round(value, 1) for value in warms],
               "target_seconds": TARGET_SECONDS, "within_target": cold <= TARGET_SECONDS,
               "warm_target_seconds": WARM_TARGET_SECONDS, "warm_within_target": warm <= WARM_TARGET_SECONDS}
    if args.json:
        print(json.dumps(figures))
        return
    print(f"autodup run --boards {args.boards}, default config and bots, {figures['cores']} cores"
          + (f", median of {args.runs} runs" if args.runs > 1 else ""))
    print(f"cold (nothing compiled)  {cold:6.1f} s   said it was compiling: {'yes' if said else 'NO'}"
          + _each_run(colds))
    print(f"warm (all cached)        {warm:6.1f} s{_each_run(warms)}")
    print(f"targets: cold at most {TARGET_SECONDS:.0f} s: {'met' if cold <= TARGET_SECONDS else 'NOT met'}; "
          f"warm at most {WARM_TARGET_SECONDS:.0f} s: {'met' if warm <= WARM_TARGET_SECONDS else 'NOT met'}")


if __name__ == "__main__":
    main()
