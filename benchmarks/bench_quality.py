"""Measuring against playing: the measures of ``autodup quality`` on runs of N boards x 8 tables, in one process.

Plays two runs of the same boards (``haystack`` and the ``independent``
control, default config and bots) with ``autodup.tournament.run.play_run``
on every core, timing the play, then measures them
(``autodup.analysis.quality.measure_quality``: cross-table correlation, correctness
tests, luck removed with 1,000 bootstrap replicates), timing the measures and
their peak memory (``tracemalloc``: the Python and numpy allocations, which
is what could grow with the boards). The measures stream the runs chunk by
chunk, so memory should not grow with the boards: the script measures the
first ``N / 4`` boards too (a run of its own) and prints both peaks.

Target (issue 11): measuring 1,000 boards x 8 tables takes under a tenth of
the time to play them; memory flat in the number of boards.

Usage: ``python benchmarks/bench_quality.py [--boards 1000] [--workers W] [--json]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

TARGET_RATIO = 0.1


def play(config, bots, boards: int, dealer: str, out: Path, workers: int) -> float:
    from autodup.tournament.run import play_run
    from autodup.tournament.spec import make_spec

    spec = make_spec(config, bots, boards, dealer, 0)
    start = time.perf_counter()
    play_run(spec, out, workers=workers, quiet=True, note=lambda line: None)
    return time.perf_counter() - start


def measure(folders: dict) -> tuple:
    """Seconds of measuring ``folders`` (the kernels compiled beforehand), then the peak traced memory (MB) of
    measuring them again under ``tracemalloc`` (which slows allocations, so it is not timed)."""
    from autodup.analysis.quality import measure_quality

    start = time.perf_counter()
    measure_quality(folders, "independent")
    seconds = time.perf_counter() - start
    tracemalloc.start()
    measure_quality(folders, "independent")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return seconds, peak / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    from autodup.game.bot_loading import bot_names, load_bot
    from autodup.game.config import load_config
    from autodup.tournament.results import RunFolder

    config = load_config("set4")
    bots = [load_bot(name) for name in bot_names()]
    small = max(25, args.boards // 4)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        play_seconds = sum(play(config, bots, args.boards, dealer, root / dealer, args.workers)
                           for dealer in ("haystack", "independent"))
        for dealer in ("haystack", "independent"):
            play(config, bots, small, dealer, root / f"small-{dealer}", args.workers)
        runs = {dealer: RunFolder(root / dealer) for dealer in ("haystack", "independent")}
        smaller = {dealer: RunFolder(root / f"small-{dealer}") for dealer in ("haystack", "independent")}
        measure(smaller)  # compiles (or loads) the measures' kernels before anything is timed
        small_seconds, small_peak = measure(smaller)
        seconds, peak = measure(runs)
    ratio = seconds / play_seconds
    figures = {"boards": args.boards, "tables": len(bots), "workers": args.workers, "cores": os.cpu_count(),
               "python": platform.python_version(), "play_seconds": round(play_seconds, 2),
               "measure_seconds": round(seconds, 3), "ratio": round(ratio, 4), "target_ratio": TARGET_RATIO,
               "within_target": ratio <= TARGET_RATIO, "peak_mb": round(peak, 1),
               "small_boards": small, "small_measure_seconds": round(small_seconds, 3),
               "small_peak_mb": round(small_peak, 1)}
    if args.json:
        print(json.dumps(figures))
        return
    print(f"set4, {len(bots)} bots, {args.boards} boards x {len(bots)} tables, two runs (haystack, independent), "
          f"{args.workers} workers on {figures['cores']} cores")
    print(f"play both runs        {play_seconds:8.2f} s")
    print(f"measure both runs     {seconds:8.3f} s   ({ratio:.3f} of the play; target <= {TARGET_RATIO})")
    print(f"peak memory measuring {peak:8.1f} MB for {args.boards} boards, {small_peak:.1f} MB for {small} boards")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
