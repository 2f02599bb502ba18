"""Nanoseconds per call of a policy from compiled code: through its frame, as the table calls it, against numba's own
C callback of the same ``decide``, which takes its ten arrays as arguments; in one process and one run.

The policy reads one element of three arrays and returns an answer, so what is timed is the call: the table's
work to hand the policy its arrays (a frame of FRAME_WORDS words, written per turn, or each array's
seven-word struct pushed per call) and the callback's to rebuild them. Each loop calls the policy for
seats 0-7 in turn, from the rows of 8-seat arrays, as a table does. Repeats are interleaved and the
figures are medians.

Usage: ``python benchmarks/bench_policy_call.py [--calls N] [--repeats R] [--json]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

import numpy as np
from numba import cfunc, njit

from autodup.bots import buy, policy
from autodup.game.policy_frames import FRAME_WORDS, fill_frame, frame_pointer
from autodup.game.view import MEMORY_SIZE, POLICY_SIGNATURE, VIEW_FIELDS


def _reads_three(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
                 memory):
    return buy(me[0] + shop[1] + unit_champion[2])


through_frame = policy(_reads_three)
through_arrays = cfunc(POLICY_SIGNATURE)(_reads_three)


@njit
def _call_through_frames(callbacks, calls, frames, me, shop, unit_champion, unit_star, pool, champion_cost,
                         champion_traits, trait_breakpoints, params, memory):
    for seat in range(8):  # as the table writes a seat's frame once per turn
        fill_frame(frames[seat], me[seat], shop[seat], unit_champion[seat], unit_star[seat], pool, champion_cost,
                   champion_traits, trait_breakpoints, params, memory[seat])
    total = 0
    for i in range(calls):
        seat = i & 7
        total += callbacks[seat](frame_pointer(frames[seat]))
    return total


@njit
def _call_with_arrays(callbacks, calls, me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits,
                      trait_breakpoints, params, memory):
    total = 0
    for i in range(calls):
        seat = i & 7
        total += callbacks[seat](me[seat], shop[seat], unit_champion[seat], unit_star[seat], pool, champion_cost,
                                 champion_traits, trait_breakpoints, params, memory[seat])
    return total


def measure(calls: int, repeats: int) -> dict:
    arrays = (np.zeros((8, VIEW_FIELDS), np.int64), np.zeros((8, 5), np.int64), np.zeros((8, 19), np.int64),
              np.ones((8, 19), np.int64), np.zeros(58), np.ones(58, np.int64), np.zeros((58, 3), np.int64),
              np.zeros((26, 4), np.int64), np.zeros(1), np.zeros((8, MEMORY_SIZE), np.int64))
    frames = np.zeros((8, FRAME_WORDS), np.int64)
    cases = {
        "frame": lambda n: _call_through_frames((through_frame,) * 8, n, frames, *arrays),
        "arrays": lambda n: _call_with_arrays((through_arrays,) * 8, n, *arrays),
    }
    answers = {name: case(8) for name, case in cases.items()}  # compiled before timing
    assert answers["frame"] == answers["arrays"], answers
    samples = {name: [] for name in cases}
    for _ in range(repeats):
        for name, case in cases.items():
            start = time.perf_counter()
            case(calls)
            samples[name].append((time.perf_counter() - start) / calls * 1e9)
    ns = {name: float(np.median(values)) for name, values in samples.items()}
    return {"ns_per_call": ns, "arrays_over_frame": ns["arrays"] / ns["frame"], "calls": calls, "repeats": repeats,
            "machine": {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(),
                        "python": platform.python_version()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2_000_000)
    parser.add_argument("--repeats", type=int, default=7, help="interleaved repeats; medians are reported")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args()
    result = measure(args.calls, args.repeats)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    ns = result["ns_per_call"]
    print(f"a policy call from compiled code, median of {args.repeats} x {args.calls:,} calls:")
    print(f"  through its frame (the table's way)      {ns['frame']:6.1f} ns")
    print(f"  with its ten arrays (numba's C callback) {ns['arrays']:6.1f} ns   "
          f"({result['arrays_over_frame']:.1f}x the frame)")


if __name__ == "__main__":
    main()
