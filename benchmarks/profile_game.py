"""Where a game's time goes: Linux ``perf`` samples of whole games, attributed to autodup's compiled functions.

numba's compiled code has no symbols ``perf`` can read, so this script
compiles the game afresh in its own process (an empty compiled-code cache:
the compiled modules are then in memory), writes the address and size of
every compiled function to ``/tmp/perf-<pid>.map`` (the file ``perf`` reads
for code generated at run time; read from the symbols of the object code each
library loaded, so that the board driver's own copies of the game's functions,
which run, are named apart from the other copies), and samples itself with ``perf record`` while it
plays haystack games on set4 with the greedy bot at every seat (the case of
``bench_game.py``). Each function's share of the samples is printed, with
its part of the game (a function inlined into another counts as that one:
the draw's pieces inside ``engine_draw_hierarchical``, a shop's luck terms
inside ``reroll_shop``, a decision's view and legality inside ``play_turn``).

Needs ``perf`` (Linux; ``apt-get install linux-perf``) and about two minutes
to compile. Not a timing: shares are what it gives, ``bench_game.py`` the speed.

With ``--annotate NAME``, it also prints the hottest instructions of each
compiled function whose name contains ``NAME`` (samples by instruction address,
the function's code read from this process's memory and disassembled with
``objdump``): where inside a function the time goes, which is how numba's
wraparound of negative indices showed up (``autodup/nonnegative_indices.py``).

Usage: ``python benchmarks/profile_game.py [--seconds 20] [--bot greedy] [--annotate NAME] [--json]``
"""

from __future__ import annotations

import argparse
import bisect
import ctypes
import gc
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

# What each compiled function is part of, by the name numba mangles into its symbol.
PARTS = (
    ("engine_draw_hierarchical", "shop: the draw"), ("random_exponential", "shop: the draw"),
    ("philox4x32_10", "random numbers (draws, decisions, events)"),
    ("random_bits_pair", "random numbers (draws, decisions, events)"),
    ("reroll_shop", "shop: dealing and its luck terms"),
    ("fill_shop", "shop: dealing and its luck terms"), ("play_turn", "turn: views, legality, actions"),
    ("policy", "turn: the bot's own code"), ("prepare_fights", "combat and its luck terms"),
    ("play_fight", "combat and its luck terms"), ("exp", "combat and its luck terms"),
    ("_end_round", "combat and its luck terms"), ("eliminate", "combat and its luck terms"),
    ("start_round", "round start: income, order"), ("advance", "the game loop"),
    ("NRT_", "reference counting"), ("store_table", "storing results"), ("reshape", "turn: views, legality, actions"),
    ("bag_item", "round start: income, order"), ("_ownership_changed", "turn: views, legality, actions"),
)


def part_of(symbol: str) -> str:
    for needle, part in PARTS:
        if needle in symbol:
            return part
    return "other"


def readable(symbol: str) -> str:
    """``autodup.game.shop.reroll_shop`` from numba's mangled name (the symbol itself if it is not one)."""
    if symbol.startswith("_ZN"):
        words, rest = [], symbol[3:]
        while rest and rest[0].isdigit():
            digits = len(rest) - len(rest.lstrip("0123456789"))
            length = int(rest[:digits])
            words.append(rest[digits:digits + length])
            rest = rest[digits + length:]
        return ".".join(words) or symbol
    return symbol


def compiled_functions(policies: dict) -> list:
    """``[(address, size, symbol)]`` of every function compiled in this process, by address; a size runs to the
    next function (the code's map has no other).

    ``policies`` maps a bot's name to its compiled callback (a numba ``cfunc``), whose code is named
    ``policy:<name>`` (the bot's helpers are inlined into it), and its C wrapper ``policy:<name> (its C wrapper)``.
    """
    import llvmlite.binding as llvm
    from numba.core.registry import CPUDispatcher

    entries, sized, libraries = {}, {}, set()

    def add(library, name_of) -> None:
        if id(library) in libraries or getattr(library, "_final_module", None) is None:
            return
        libraries.add(id(library))
        if add_from_object(library, name_of):
            return
        for function in library._final_module.functions:
            if function.is_declaration:
                continue
            try:
                address = library.get_pointer_to_function(function.name)
            except Exception:  # a function the engine did not keep
                continue
            if address:
                entries.setdefault(address, name_of(function.name))

    def add_from_object(library, name_of) -> bool:
        """Every function of the library's machine code at its own address, with its size, from the symbols of the
        object code the JIT engine loaded: the functions linked into a caller (its own copies, which
        ``get_pointer_to_function`` would resolve to another library's) included."""
        try:
            code = library._get_compiled_object()
        except Exception:  # loaded from the cache, or not generated
            return False
        with tempfile.NamedTemporaryFile(suffix=".o") as obj:
            obj.write(code)
            obj.flush()
            listing = subprocess.run(["nm", "-S", "--defined-only", obj.name], capture_output=True, text=True).stdout
        symbols = []
        for line in listing.splitlines():
            fields = line.split()
            if len(fields) == 4 and fields[2] in "TtWw":
                symbols.append((int(fields[0], 16), int(fields[1], 16), fields[3]))
        base = None
        for offset, _, symbol in symbols:
            if symbol.startswith("_ZN") and library._final_module.get_function(symbol).linkage == llvm.Linkage.external:
                base = library.get_pointer_to_function(symbol) - offset  # an external symbol: its own copy
                break
        if base is None:
            return False
        for offset, size, symbol in symbols:
            sized[base + offset] = size
            entries[base + offset] = name_of(symbol)
        return True

    for name, policy in policies.items():
        # The C wrapper (the callback the table calls, which calls the policy's own function) is named apart:
        # under one name, --annotate kept only one of the two, the wrapper's few samples instead of the policy's.
        wrapper = getattr(policy, "_wrapper_name", None)
        add(policy._library, lambda symbol, name=name, wrapper=wrapper:
            f"policy:{name}" + (" (its C wrapper)" if symbol == wrapper else ""))
    for obj in gc.get_objects():
        if isinstance(obj, CPUDispatcher):
            for compiled in obj.overloads.values():
                add(compiled.library, lambda symbol: symbol)
    addresses = sorted(entries)
    return [(address, sized.get(address) or min(addresses[i + 1] - address if i + 1 < len(addresses) else 1 << 16,
                                                1 << 20),
             entries[address]) for i, address in enumerate(addresses)]


def write_perf_map(functions: list) -> None:
    """Write ``/tmp/perf-<pid>.map`` (what ``perf`` reads for code generated at run time) for ``functions``."""
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as out:
        for address, size, symbol in functions:
            out.write(f"{address:x} {size:x} {symbol}\n")


def hottest_instructions(data: Path, functions: list, name: str, top: int = 25) -> list:
    """The ``top`` instructions with the most samples in each compiled function whose readable name contains
    ``name``: ``[(function, share of all samples, [(share, offset, instruction)])]``."""
    lines = subprocess.run(["perf", "script", "-i", str(data), "-F", "ip"], capture_output=True,
                           text=True).stdout.split()
    samples = Counter(int(line, 16) for line in lines)
    total = sum(samples.values()) or 1
    starts = [address for address, _, _ in functions]
    inside = defaultdict(Counter)  # function's index -> {offset: samples}
    for address, count in samples.items():
        i = bisect.bisect_right(starts, address) - 1
        if i >= 0 and address < starts[i] + functions[i][1]:
            inside[i][address - starts[i]] += count
    found = []
    for i, offsets in inside.items():
        address, size, symbol = functions[i]
        if name not in readable(symbol):
            continue
        with tempfile.NamedTemporaryFile(suffix=".bin") as code:
            code.write(ctypes.string_at(address, min(size, max(offsets) + 16)))
            code.flush()
            listing = subprocess.run(["objdump", "-D", "-b", "binary", "-m", "i386:x86-64", "--no-show-raw-insn",
                                      code.name], capture_output=True, text=True).stdout
        instruction = {}
        for line in listing.splitlines():
            offset, _, text = line.partition(":")
            if text and offset.strip() and all(c in "0123456789abcdef" for c in offset.strip()):
                instruction[int(offset, 16)] = " ".join(text.split())
        hottest = sorted(offsets.items(), key=lambda item: -item[1])[:top]
        found.append((readable(symbol), 100.0 * sum(offsets.values()) / total,
                      [(100.0 * count / total, offset, instruction.get(offset, "?")) for offset, count in hottest]))
    return sorted(found, key=lambda item: -item[1])


def named_apart(found: list) -> list:
    """``found`` (busiest first, as :func:`hottest_instructions` gives it) with each name made unique.

    Copies of one function (the board driver's, which runs, and other libraries') share a readable name; keyed by
    it alone, the annotation kept the last and least busy copy. The busiest keeps the name, the others are
    numbered after it: ``name (copy 2)``, ...
    """
    seen = Counter()
    named = []
    for name, share, hottest in found:
        seen[name] += 1
        named.append((name if seen[name] == 1 else f"{name} (copy {seen[name]})", share, hottest))
    return named


def profile(seconds: float, bot_name: str, annotate: str | None = None) -> dict:
    from autodup.game.boards import play_boards
    from autodup.game.bot_loading import load_bot, policy_tuple
    from autodup.game.config import load_config
    from autodup.game.rules import rules_of

    rules = rules_of(load_config("set4"))
    bot = load_bot(bot_name)
    lineup = policy_tuple([bot])
    play_boards(rules, "haystack", *lineup, seed=1, seating="latin", n_bots=1)  # compile
    functions = compiled_functions({bot.name: bot.policy})
    write_perf_map(functions)
    data = Path(tempfile.mkdtemp()) / "perf.data"
    recorder = subprocess.Popen(["perf", "record", "-F", "1999", "-p", str(os.getpid()), "-o", str(data)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.0)
    start, games = time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        play_boards(rules, "haystack", *lineup, seed=2026 + games, boards=200, seating="latin", n_bots=1)
        games += 200
    elapsed = time.perf_counter() - start
    recorder.send_signal(signal.SIGINT)
    recorder.wait()
    report = subprocess.run(["perf", "report", "-i", str(data), "--no-children", "--sort", "symbol", "--stdio",
                             "--percent-limit", "0.05"], capture_output=True, text=True).stdout
    shares = {}
    for line in report.splitlines():
        fields = line.split()
        if len(fields) >= 3 and fields[0].endswith("%") and fields[1] == "[.]":
            shares[readable(fields[2])] = shares.get(readable(fields[2]), 0.0) + float(fields[0][:-1])
    parts = defaultdict(float)
    for name, share in shares.items():
        parts[part_of(name)] += share
    result = {"games": games, "games_per_second": games / elapsed, "functions_mapped": len(functions),
              "parts": dict(sorted(parts.items(), key=lambda item: -item[1])),
              "functions": dict(sorted(shares.items(), key=lambda item: -item[1])[:25])}
    if annotate:
        result["instructions"] = {name: {"share": share, "hottest": [
            {"share": s, "offset": offset, "instruction": text} for s, offset, text in hottest]}
            for name, share, hottest in named_apart(hottest_instructions(data, functions, annotate))}
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="seconds of games sampled")
    parser.add_argument("--bot", default="greedy", help="the bot at every seat")
    parser.add_argument("--annotate", metavar="NAME",
                        help="also the hottest instructions of the compiled functions whose name contains NAME")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--in-process", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if shutil.which("perf") is None:
        raise SystemExit("profile_game: needs Linux perf on the PATH (Debian: apt-get install linux-perf)")
    if args.annotate and shutil.which("objdump") is None:
        raise SystemExit("profile_game: --annotate needs objdump on the PATH (Debian: apt-get install binutils)")
    if not args.in_process:
        # A fresh process on an empty cache, so that every function is compiled (and mapped) in it.
        with tempfile.TemporaryDirectory() as cache:
            command = [sys.executable, __file__, "--in-process", "--seconds", str(args.seconds), "--bot", args.bot]
            command += (["--annotate", args.annotate] if args.annotate else []) + (["--json"] if args.json else [])
            result = subprocess.run(command, env={**os.environ, "AUTODUP_CACHE_DIR": cache})
        raise SystemExit(result.returncode)
    result = profile(args.seconds, args.bot, args.annotate)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{result['games']:,} haystack games on set4, {args.bot} at every seat, {result['games_per_second']:.0f} "
          f"games/s under the profiler; share of samples by part of the game:")
    for part, share in result["parts"].items():
        print(f"  {share:5.1f}%  {part}")
    print("by compiled function:")
    for name, share in result["functions"].items():
        print(f"  {share:5.1f}%  {name}")
    if args.annotate and not result["instructions"]:
        print(f"no compiled function with samples has {args.annotate!r} in its name (an inlined function counts as "
              "the one it is inlined into)")
    for name, annotated in result.get("instructions", {}).items():
        print(f"hottest instructions of {name} ({annotated['share']:.1f}% of the samples), by offset in it:")
        for instruction in annotated["hottest"]:
            print(f"  {instruction['share']:5.2f}%  {instruction['offset']:6x}  {instruction['instruction']}")


if __name__ == "__main__":
    main()
