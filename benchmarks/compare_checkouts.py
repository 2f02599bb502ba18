"""Two checkouts of autodup, the same games, timed in alternation: is the second one faster, and by how much?

A speed change of a few percent is smaller than what a shared VM does to one run of ``bench_game.py``
from one minute to the next (the same code has given 6,200 and 7,600 plain draws a game on one machine
in one evening). So each checkout gets ``--processes`` long-lived worker processes, all pinned to one
core; the driver asks them in turn for a batch of ``--boards`` games (one table a board, the same bot at
every seat), A then B, then B then A, so that neighbouring batches share the machine's state. The
figure is the median over the pairs of B's time a game over A's, with a 95% bootstrap interval over
the pairs. Several processes an arm average out where each process's compiled code happens to sit in
memory, which alone moves a game's time by a percent or two. Comparing a checkout with itself
(``A A``) shows what the method can resolve on the machine of the day.

Each worker first plays 50 boards with seed 7 and reports a hash of their results and luck terms: the
two checkouts' hashes say whether they play the same games, bit for bit. Both compile in the usual
cache (one folder per version of the code), so a checkout's first comparison compiles it.

Usage: ``python benchmarks/compare_checkouts.py A B [--pairs 60] [--boards 60] [--processes 3]
[--bot greedy] [--dealer haystack] [--config set4] [--cpu 1] [--json]``
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HASH_BOARDS, HASH_SEED = 50, 7
FIRST_TIMED_SEED = 3000
BOOTSTRAP_RESAMPLES = 2000


def worker(config: str, bot: str, dealer: str, boards: int) -> None:
    """Plays a batch of ``boards`` boards for each line read from stdin, printing microseconds a game."""
    import autodup
    from autodup.engine.dealers import DEALERS
    from autodup.errors import AutodupError
    from autodup.game.boards import play_boards
    from autodup.game.bot_loading import load_bot, policy_tuple
    from autodup.game.config import load_config
    from autodup.game.rules import rules_of

    try:
        rules = rules_of(load_config(config))
        lineup = policy_tuple([load_bot(bot)])
        if dealer not in DEALERS:
            raise AutodupError(f"--dealer: unknown dealer {dealer!r} (allowed: {', '.join(DEALERS)})")
    except AutodupError as error:
        raise SystemExit(f"compare_checkouts: {error}") from None
    played = play_boards(rules, DEALERS[dealer], *lineup, seed=HASH_SEED, boards=HASH_BOARDS, n_bots=1)
    digest = hashlib.sha256(np.ascontiguousarray(played.results).tobytes()
                            + np.ascontiguousarray(played.luck).tobytes()).hexdigest()[:16]
    print(digest, Path(autodup.__file__).resolve().parent.parent, flush=True)
    for index, _ in enumerate(sys.stdin):
        start = time.perf_counter()
        play_boards(rules, DEALERS[dealer], *lineup, seed=FIRST_TIMED_SEED + index, boards=boards, n_bots=1)
        print((time.perf_counter() - start) / boards * 1e6, flush=True)


class Worker:
    """One worker process of a checkout, pinned to ``cpu``."""

    def __init__(self, checkout: Path, arguments, cpu: int):
        environment = dict(os.environ, PYTHONPATH=str(checkout))
        command = [sys.executable, __file__, "--worker", "--config", arguments.config, "--bot", arguments.bot,
                   "--dealer", arguments.dealer, "--boards", str(arguments.boards)]
        pin = (lambda: os.sched_setaffinity(0, {cpu})) if hasattr(os, "sched_setaffinity") else None
        self.process = subprocess.Popen(command, cwd=checkout, env=environment, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True, preexec_fn=pin)
        first = self.process.stdout.readline().split()
        if len(first) != 2:
            raise SystemExit(2)  # the worker printed why
        self.digest, location = first
        if Path(location).resolve() != checkout.resolve():
            raise SystemExit(f"compare_checkouts: {checkout} imported autodup from {location}; "
                             "install neither checkout with pip -e . over the other, or compare from a clean venv")

    def batch(self) -> float:
        self.process.stdin.write("go\n")
        self.process.stdin.flush()
        return float(self.process.stdout.readline())

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()


def compare(arguments) -> dict:
    checkouts = [Path(arguments.a), Path(arguments.b)]
    for checkout in checkouts:
        if not (checkout / "autodup" / "__init__.py").is_file():
            raise SystemExit(f"compare_checkouts: {checkout} is not a checkout of autodup (no autodup/__init__.py)")
    arms = [[Worker(checkout, arguments, arguments.cpu) for _ in range(arguments.processes)]
            for checkout in checkouts]
    times = np.zeros((2, arguments.pairs))
    try:
        for pair in range(arguments.pairs):
            # The arm that goes first alternates, and over the pairs every worker of A meets every worker of B.
            chosen = (arms[0][pair % arguments.processes], arms[1][(pair // arguments.processes) % arguments.processes])
            for arm in ((0, 1) if pair % 2 == 0 else (1, 0)):
                times[arm, pair] = chosen[arm].batch()
    finally:
        for arm in arms:
            for process in arm:
                process.close()
    ratios = times[1] / times[0]
    generator = np.random.default_rng(0)
    medians = np.median(generator.choice(ratios, size=(BOOTSTRAP_RESAMPLES, ratios.size)), axis=1)
    return {
        "a": str(checkouts[0]), "b": str(checkouts[1]),
        "same_games": arms[0][0].digest == arms[1][0].digest,
        "digests": [arms[0][0].digest, arms[1][0].digest],
        "microseconds_a_game": {"a_min": float(times[0].min()), "a_median": float(np.median(times[0])),
                                "b_min": float(times[1].min()), "b_median": float(np.median(times[1]))},
        "b_over_a": float(np.median(ratios)),
        "b_over_a_95": [float(np.percentile(medians, 2.5)), float(np.percentile(medians, 97.5))],
        "pairs": arguments.pairs, "boards": arguments.boards, "processes": arguments.processes,
        "bot": arguments.bot, "dealer": arguments.dealer, "config": arguments.config,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", nargs="?", help="the checkout compared against (a folder holding autodup/)")
    parser.add_argument("b", nargs="?", help="the checkout timed against it")
    parser.add_argument("--pairs", type=int, default=60, help="batches of each checkout, in alternation")
    parser.add_argument("--boards", type=int, default=60, help="games a batch")
    parser.add_argument("--processes", type=int, default=3, help="worker processes a checkout")
    parser.add_argument("--bot", default="greedy", help="the bot at every seat")
    parser.add_argument("--dealer", default="haystack")
    parser.add_argument("--config", default="set4")
    parser.add_argument("--cpu", type=int, default=min(1, (os.cpu_count() or 1) - 1),
                        help="the core every worker runs on")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.worker:
        worker(arguments.config, arguments.bot, arguments.dealer, arguments.boards)
        return
    if arguments.a is None or arguments.b is None:
        parser.error("two checkouts are needed: A B")
    for name in ("pairs", "boards", "processes"):
        if getattr(arguments, name) < 1:
            parser.error(f"--{name} must be at least 1")
    if hasattr(os, "sched_getaffinity") and arguments.cpu not in os.sched_getaffinity(0):
        parser.error(f"--cpu {arguments.cpu}: not one of this process's cores {sorted(os.sched_getaffinity(0))}")
    result = compare(arguments)
    if arguments.json:
        print(json.dumps(result, indent=2))
        return
    times = result["microseconds_a_game"]
    low, high = result["b_over_a_95"]
    print(f"{result['bot']} at every seat, {result['dealer']}, {result['config']}: {result['pairs']} pairs of "
          f"{result['boards']} games, {result['processes']} processes a checkout, alternating on one core")
    print(f"A {result['a']}: {times['a_min']:.1f} us a game at best, {times['a_median']:.1f} median")
    print(f"B {result['b']}: {times['b_min']:.1f} us a game at best, {times['b_median']:.1f} median")
    print(f"B's time over A's, median of the pairs: {result['b_over_a']:.4f} (95% interval {low:.4f}-{high:.4f})")
    print("the same games, bit for bit" if result["same_games"] else
          f"different games (hashes {result['digests'][0]} and {result['digests'][1]})")


if __name__ == "__main__":
    main()
