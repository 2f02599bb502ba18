"""Two checkouts of autodup, the same games, timed in alternation: is the second one faster, and by how much?

A speed change of a few percent is smaller than what a shared VM does to one run of ``bench_game.py``
from one minute to the next (one run's repeats have given 6,433 to 9,074 plain draws a game). So each
checkout gets ``--processes`` long-lived worker processes, all pinned to one core; the driver asks them
in turn for a batch of ``--boards`` games (one table a board, the same bot at every seat), both batches
of a pair on the same boards, A then B, then B then A, so that neighbouring batches share the machine's
state. Over the pairs every worker of A meets every worker of B in both orders. The figure is the
median over the pairs of B's time a game over A's, with a 95% bootstrap interval that resamples the
pairs of workers and then the batches of each: where a process's compiled code happens to sit in memory
moves its games' time by a percent or two, and three processes a checkout average that out. Comparing
a checkout with itself (``A A``) shows what the method resolves on the machine of the day.

A shipped name (``--bot greedy``, ``--config set4``) is read from each checkout's own ``bots/`` and
``configs/``; a path is the same file for both. ``--b-environment NAME=VALUE`` sets a variable for B's
workers only (``NUMBA_CPU_NAME=skylake``: the same code compiled for another processor).

Each worker first plays 50 boards with seed 7 and reports a hash of their results and luck terms: the
hashes say whether the two checkouts play the same games, bit for bit, and whether each checkout's
workers agree. Both compile in the usual cache (one folder per version of the code), so a checkout's
first comparison compiles it.

Usage: ``python benchmarks/compare_checkouts.py A B [--pairs 72] [--boards 60] [--processes 3]
[--bot greedy] [--dealer haystack] [--config set4] [--cpu 1] [--b-environment NAME=VALUE] [--json]``
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
CLOSE_SECONDS = 30
REFUSED = 2  # a worker's exit code for input it refused


def worker(config: str, bot: str, dealer: str, boards: int) -> None:
    """Plays, for each seed read from stdin, a batch of ``boards`` boards of that tournament seed, printing
    microseconds a game. ``config`` and ``bot`` are files; the first line printed is the hash of the games."""
    import autodup
    from autodup.engine.dealers import dealer_named
    from autodup.errors import AutodupError
    from autodup.game.boards import play_boards
    from autodup.game.bot_loading import load_bot, policy_tuple
    from autodup.game.config import load_config
    from autodup.game.rules import rules_of

    try:
        rules = rules_of(load_config(config))
        lineup = policy_tuple([load_bot(bot)])
        dealer = dealer_named(dealer)
    except (AutodupError, ValueError) as error:  # each one line, naming what is allowed
        print(f"compare_checkouts: {error}", file=sys.stderr)
        raise SystemExit(REFUSED) from None
    played = play_boards(rules, dealer, *lineup, seed=HASH_SEED, boards=HASH_BOARDS, n_bots=1)
    digest = hashlib.sha256(np.ascontiguousarray(played.results).tobytes()
                            + np.ascontiguousarray(played.luck).tobytes()).hexdigest()[:16]
    print(digest, Path(autodup.__file__).resolve().parent.parent, flush=True)
    for line in sys.stdin:
        start = time.perf_counter()
        play_boards(rules, dealer, *lineup, seed=int(line), boards=boards, n_bots=1)
        print((time.perf_counter() - start) / boards * 1e6, flush=True)


def _fail(message: str):
    print(f"compare_checkouts: {message}", file=sys.stderr)
    raise SystemExit(REFUSED)


def shipped_file(checkout: Path, spec: str, folder: str, suffix: str) -> Path:
    """``spec`` as a file: a name shipped in the checkout's ``folder`` (``bots``, ``configs``), else a path."""
    shipped = checkout / folder / f"{spec}{suffix}"
    if shipped.is_file():
        return shipped
    path = Path(spec).resolve()
    if not path.is_file():
        _fail(f"{spec!r} is neither a file nor a name in {checkout / folder}")
    return path


class Worker:
    """One worker process of a checkout, pinned to ``cpu``; its first line gives the hash of its games."""

    def __init__(self, checkout: Path, arguments, environment_changes: dict):
        self.checkout = checkout
        environment = dict(os.environ, **environment_changes)
        environment["PYTHONPATH"] = os.pathsep.join(filter(None, [str(checkout), os.environ.get("PYTHONPATH")]))
        command = [sys.executable, str(Path(__file__).resolve()), "--worker", "--dealer", arguments.dealer,
                   "--boards", str(arguments.boards),
                   "--config", str(shipped_file(checkout, arguments.config, "configs", ".yaml")),
                   "--bot", str(shipped_file(checkout, arguments.bot, "bots", ".py"))]
        cpu = arguments.cpu
        pin = (lambda: os.sched_setaffinity(0, {cpu})) if hasattr(os, "sched_setaffinity") else None
        self.process = subprocess.Popen(command, cwd=checkout, env=environment, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True, preexec_fn=pin)
        first = self.process.stdout.readline().strip().split(maxsplit=1)
        if len(first) != 2:
            self.close()
            if self.process.returncode == REFUSED:  # it said why, in one line
                raise SystemExit(REFUSED)
            _fail(f"a worker of {checkout} ended before its first games (exit code {self.process.returncode})")
        self.digest, location = first
        if Path(location).resolve() != checkout:
            self.close()
            _fail(f"{checkout}'s worker imported autodup from {location}: a path configuration file or an "
                  "installed autodup comes before PYTHONPATH; compare from checkouts that hold the package "
                  "at their top (autodup/)")

    def batch(self, seed: int) -> float:
        """Microseconds a game of the batch of tournament seed ``seed``."""
        try:
            self.process.stdin.write(f"{seed}\n")
            self.process.stdin.flush()
            return float(self.process.stdout.readline())
        except (OSError, ValueError):
            self.close()
            _fail(f"a worker of {self.checkout} ended in a batch (exit code {self.process.returncode})")

    def close(self) -> None:
        if self.process.stdin and not self.process.stdin.closed:
            try:
                self.process.stdin.close()
            except OSError:
                pass
        try:
            self.process.wait(timeout=CLOSE_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def schedule(pairs: int, processes: int) -> list:
    """For each pair: (A's worker, B's worker, whether B goes first). Each run of ``processes**2`` pairs meets
    every worker of A with every worker of B, the next run in the other order, and within a run the order
    alternates: balanced when ``pairs`` is a multiple of ``2 x processes**2`` (``main`` rounds it up)."""
    cycle = processes ** 2
    return [(index % processes, (index // processes) % processes, bool((index % cycle + index // cycle) % 2))
            for index in range(pairs)]


def bootstrap_interval(ratios, clusters, generator) -> tuple:
    """A 95% interval of the median of ``ratios`` (float64 (pairs,)), resampling the pairs of workers
    (``clusters``, int64 (pairs,): which A worker met which B worker) and then the batches of each: a worker's
    own speed (where its compiled code sits) counts as the noise it is. ``generator``: a numpy Generator."""
    labels = np.unique(clusters)
    groups = [ratios[clusters == label] for label in labels]
    medians = np.empty(BOOTSTRAP_RESAMPLES)
    for r in range(BOOTSTRAP_RESAMPLES):
        chosen = generator.integers(0, len(groups), len(groups))
        medians[r] = np.median(np.concatenate([generator.choice(groups[c], groups[c].size) for c in chosen]))
    return float(np.percentile(medians, 2.5)), float(np.percentile(medians, 97.5))


def compare(arguments) -> dict:
    checkouts = [Path(arguments.a).resolve(), Path(arguments.b).resolve()]
    for checkout in checkouts:
        if not (checkout / "autodup" / "__init__.py").is_file():
            _fail(f"{checkout} is not a checkout of autodup (no autodup/__init__.py)")
    environments = [{}, dict(arguments.b_environment)]
    arms = [[], []]
    times = np.zeros((2, arguments.pairs))
    plan = schedule(arguments.pairs, arguments.processes)
    try:
        for arm, checkout in enumerate(checkouts):
            for _ in range(arguments.processes):
                arms[arm].append(Worker(checkout, arguments, environments[arm]))
        for pair, (a, b, b_first) in enumerate(plan):
            # Both batches of a pair play the same boards.
            seed = FIRST_TIMED_SEED + pair
            for arm, index in (((1, b), (0, a)) if b_first else ((0, a), (1, b))):
                times[arm, pair] = arms[arm][index].batch(seed)
    finally:
        for arm in arms:
            for process in arm:
                process.close()
    ratios = times[1] / times[0]
    clusters = np.array([a * arguments.processes + b for a, b, _ in plan])
    digests = [[process.digest for process in arm] for arm in arms]
    return {
        "a": str(checkouts[0]), "b": str(checkouts[1]),
        "same_games": len({digest for arm in digests for digest in arm}) == 1,
        "each_checkout_repeats_itself": all(len(set(arm)) == 1 for arm in digests),
        "digests": digests,
        "microseconds_a_game": {"a_min": float(times[0].min()), "a_median": float(np.median(times[0])),
                                "b_min": float(times[1].min()), "b_median": float(np.median(times[1]))},
        "b_over_a": float(np.median(ratios)),
        "b_over_a_95": list(bootstrap_interval(ratios, clusters, np.random.default_rng(0))),
        "pairs": arguments.pairs, "boards": arguments.boards, "processes": arguments.processes,
        "bot": arguments.bot, "dealer": arguments.dealer, "config": arguments.config,
        "b_environment": dict(arguments.b_environment),
    }


def environment_setting(text: str) -> tuple:
    name, equals, value = text.partition("=")
    if not equals or not name:
        raise argparse.ArgumentTypeError(f"{text!r}: expected NAME=VALUE")
    return name, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", nargs="?", help="the checkout compared against (a folder holding autodup/)")
    parser.add_argument("b", nargs="?", help="the checkout timed against it")
    parser.add_argument("--pairs", type=int, default=72,
                        help="batches of each checkout, in alternation (rounded up to a multiple of 2 x processes^2)")
    parser.add_argument("--boards", type=int, default=60, help="games a batch")
    parser.add_argument("--processes", type=int, default=3, help="worker processes a checkout")
    parser.add_argument("--bot", default="greedy", help="the bot at every seat")
    parser.add_argument("--dealer", default="haystack")
    parser.add_argument("--config", default="set4")
    parser.add_argument("--cpu", type=int, default=min(1, (os.cpu_count() or 1) - 1),
                        help="the core every worker runs on")
    parser.add_argument("--b-environment", type=environment_setting, action="append", default=[],
                        metavar="NAME=VALUE", help="an environment variable set for B's workers only (repeatable)")
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
    balanced = 2 * arguments.processes ** 2
    arguments.pairs = -(-arguments.pairs // balanced) * balanced
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
    if result["b_environment"]:
        print("B's workers ran with " + " ".join(f"{k}={v}" for k, v in result["b_environment"].items()))
    if not result["each_checkout_repeats_itself"]:
        print(f"a checkout's workers played different games from the same seeds: {result['digests']}")
    print("the same games, bit for bit" if result["same_games"] else
          f"different games (hashes {result['digests'][0][0]} and {result['digests'][1][0]})")


if __name__ == "__main__":
    main()
