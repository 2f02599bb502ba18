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
the same code in one evening). ``--against CHECKOUT`` times another checkout's code in each run too, in
turns (this one first in every other run), and reports the median of the paired differences of the cold
runs: a change of a second or two shows only so, the VM's speed moving by more from hour to hour.

Usage: ``python benchmarks/bench_first_run.py [--boards 50] [--runs 1] [--against CHECKOUT] [--json]``
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


ROOT = Path(__file__).resolve().parents[1]


def timed_run(boards: int, cache: Path, out: Path, checkout: Path = ROOT) -> tuple:
    """Seconds of one ``autodup run`` of ``checkout``'s code in a fresh process, and whether it said it was
    compiling."""
    environment = {**os.environ, "AUTODUP_CACHE_DIR": str(cache), "PYTHONPATH": str(checkout)}
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "autodup", "run", "--boards", str(boards), "--out", str(out),
                             "--quiet"], capture_output=True, text=True, env=environment, cwd=checkout)
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
    parser.add_argument("--against", metavar="CHECKOUT", type=Path,
                        help="another checkout of autodup: each run times it too, alternating which goes first, "
                             "and the paired differences are reported (the VM's speed varies by the hour)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.runs < 1 or args.boards < 1:
        parser.error("--runs and --boards must be at least 1")
    if args.against is not None and not (args.against / "autodup" / "__init__.py").is_file():
        parser.error(f"--against: {args.against} is not a checkout of autodup (no autodup/__init__.py)")
    checkouts = [ROOT] if args.against is None else [ROOT, args.against.resolve()]
    times = {checkout: ([], []) for checkout in checkouts}
    said = True
    for run in range(args.runs):
        for checkout in checkouts[run % 2:] + checkouts[:run % 2]:  # this checkout first in every other run
            with tempfile.TemporaryDirectory() as folder:
                cache = Path(folder) / "cache"
                cold, said_this_time = timed_run(args.boards, cache, Path(folder) / "cold", checkout)
                warm, _ = timed_run(args.boards, cache, Path(folder) / "warm", checkout)
            times[checkout][0].append(cold)
            times[checkout][1].append(warm)
            said = said and said_this_time
    colds, warms = times[ROOT]
    cold, warm = float(np.median(colds)), float(np.median(warms))
    figures = {"boards": args.boards, "cores": os.cpu_count(), "python": platform.python_version(),
               "cold_seconds": round(cold, 1), "warm_seconds": round(warm, 1), "said_compiling": said,
               "cold_runs": [round(value, 1) for value in colds], "warm_runs": [round(value, 1) for value in warms],
               "target_seconds": TARGET_SECONDS, "within_target": cold <= TARGET_SECONDS,
               "warm_target_seconds": WARM_TARGET_SECONDS, "warm_within_target": warm <= WARM_TARGET_SECONDS}
    if args.against is not None:
        other_colds, other_warms = times[checkouts[1]]
        differences = np.array(colds) - np.array(other_colds)
        figures["against"] = {
            "checkout": str(checkouts[1]), "cold_seconds": round(float(np.median(other_colds)), 1),
            "warm_seconds": round(float(np.median(other_warms)), 1),
            "cold_runs": [round(value, 1) for value in other_colds],
            "warm_runs": [round(value, 1) for value in other_warms],
            "cold_difference_median": round(float(np.median(differences)), 2),
            "runs_this_faster": int((differences < 0).sum())}
    if args.json:
        print(json.dumps(figures))
        return
    print(f"autodup run --boards {args.boards}, default config and bots, {figures['cores']} cores"
          + (f", median of {args.runs} runs" if args.runs > 1 else ""))
    print(f"cold (nothing compiled)  {cold:6.1f} s   said it was compiling: {'yes' if said else 'NO'}"
          + _each_run(colds))
    print(f"warm (all cached)        {warm:6.1f} s{_each_run(warms)}")
    if args.against is not None:
        other = figures["against"]
        print(f"against {other['checkout']}: cold {other['cold_seconds']:.1f} s{_each_run(other['cold_runs'])}; "
              f"warm {other['warm_seconds']:.1f} s")
        print(f"  this checkout's cold run minus the other's, paired: median {other['cold_difference_median']:+.1f} s, "
              f"this one faster in {other['runs_this_faster']} of {args.runs}")
    print(f"targets: cold at most {TARGET_SECONDS:.0f} s: {'met' if cold <= TARGET_SECONDS else 'NOT met'}; "
          f"warm at most {WARM_TARGET_SECONDS:.0f} s: {'met' if warm <= WARM_TARGET_SECONDS else 'NOT met'}")


if __name__ == "__main__":
    main()
