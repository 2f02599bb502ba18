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

Usage: ``python benchmarks/bench_first_run.py [--boards 50] [--json]``
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=50)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        cache = Path(folder) / "cache"
        cold, said = timed_run(args.boards, cache, Path(folder) / "cold")
        warm, _ = timed_run(args.boards, cache, Path(folder) / "warm")
    figures = {"boards": args.boards, "cores": os.cpu_count(), "python": platform.python_version(),
               "cold_seconds": round(cold, 1), "warm_seconds": round(warm, 1), "said_compiling": said,
               "target_seconds": TARGET_SECONDS, "within_target": cold <= TARGET_SECONDS,
               "warm_target_seconds": WARM_TARGET_SECONDS, "warm_within_target": warm <= WARM_TARGET_SECONDS}
    if args.json:
        print(json.dumps(figures))
        return
    print(f"autodup run --boards {args.boards}, default config and bots, {figures['cores']} cores")
    print(f"cold (nothing compiled)  {cold:6.1f} s   said it was compiling: {'yes' if said else 'NO'}")
    print(f"warm (all cached)        {warm:6.1f} s")
    print(f"targets: cold at most {TARGET_SECONDS:.0f} s: {'met' if cold <= TARGET_SECONDS else 'NOT met'}; "
          f"warm at most {WARM_TARGET_SECONDS:.0f} s: {'met' if warm <= WARM_TARGET_SECONDS else 'NOT met'}")


if __name__ == "__main__":
    main()
