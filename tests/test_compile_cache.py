"""Compiled code is never stale: the cache follows the package's code, and a bot's cache follows its content."""

import json
import os
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autodup import bot_identity, cache_sharing, compile_cache

from .python_runs import run_in

ROOT = Path(__file__).resolve().parents[1]

# Draws through a kernel of kernels.py that inlines rng.py's uniform: numba's own cache, keyed on each
# function's file, kept kernels.py's compiled draw after rng.py changed. Printed: the code fingerprint, whether the
# draw was compiled in this process (1) or loaded from the cache (0), then the draws.
DRAWS = """
import numpy as np
from autodup.engine import kernels
from autodup.compile_cache import CODE_FINGERPRINT
weights = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
draws = []
for seed in range(40):
    counter, needles, count = kernels.engine_state(6)
    draws.append(kernels.engine_draw(kernels.ENGINE_PLAIN, np.uint64(seed), counter, needles, count, weights))
print(CODE_FINGERPRINT, sum(kernels.engine_draw.stats.cache_misses.values()), *draws)
"""
COMPILED, LOADED = "1", "0"


def version_folders(cache: Path) -> list:
    """The compiled-code folders of a cache root, by code fingerprint (not its notes of fingerprints)."""
    return sorted(p.name for p in cache.iterdir() if p.name != "code-fingerprints")


def copy_package(target: Path) -> Path:
    shutil.copytree(ROOT / "autodup", target / "autodup", ignore=shutil.ignore_patterns("__pycache__"))
    return target


def test_editing_a_module_recompiles_the_kernels_of_other_modules_that_use_it(tmp_path):
    package = copy_package(tmp_path / "copy")
    cache = tmp_path / "cache"
    before = run_in(package, cache, DRAWS)
    again = run_in(package, cache, DRAWS)
    assert before[1] == COMPILED and again[1] == LOADED and again[2:] == before[2:]  # the second run loads the cache
    rng_file = package / "autodup" / "engine" / "rng.py"  # a subpackage module that jitted code imports
    source = rng_file.read_text()
    # The same law, other draws: u becomes 1 - u - 2**-53 (still a 53-bit uniform in [0, 1)).
    edited = source.replace("return np.float64(bits >> _SHIFT11) * _TWO_POW_MINUS_53",
                            "return 1.0 - 2.0**-53 - np.float64(bits >> _SHIFT11) * _TWO_POW_MINUS_53")
    assert edited != source
    rng_file.write_text(edited)
    after = run_in(package, cache, DRAWS)
    fresh = run_in(package, tmp_path / "fresh cache", DRAWS)
    assert after[0] != before[0] and after[1] == COMPILED  # a new fingerprint, so a new cache folder
    assert after[2:] == fresh[2:]           # the cached kernels run the edited code
    assert after[2:] != before[2:]          # which draws differently
    assert version_folders(cache) == sorted([before[0], after[0]])


def test_a_copied_package_with_the_same_code_shares_the_cache(tmp_path):
    one, two = copy_package(tmp_path / "one"), copy_package(tmp_path / "two")
    cache = tmp_path / "cache"
    first = run_in(one, cache, DRAWS)
    second = run_in(two, cache, DRAWS)
    assert first[1] == COMPILED and second == [first[0], LOADED, *first[2:]]  # the copy loads what the first saved
    assert version_folders(cache) == [first[0]]


FINGERPRINTS = "from autodup import compile_cache as c; print(c.CODE_FINGERPRINT, c.SOURCE_FINGERPRINT)"


def test_the_code_fingerprint_is_noted_by_the_sources_and_a_bad_note_is_worked_out_again(tmp_path):
    """Finding the modules compiled code depends on parses the whole package (half a second a process), so the
    answer is noted under the sources' fingerprint; the note is what later processes use."""
    package = copy_package(tmp_path / "copy")
    cache = tmp_path / "cache"
    code, source = run_in(package, cache, FINGERPRINTS)
    direct = run_in(package, cache, "from autodup import compile_cache as c; "
                                    "print(c._fingerprint(c.compiled_modules()))")
    assert direct == [code]
    note = cache / "code-fingerprints" / source
    assert note.read_text() == code
    note.write_text("0123456789abcdef")  # a well-formed note is believed: it is read, not worked out again
    assert run_in(package, cache, FINGERPRINTS) == ["0123456789abcdef", source]
    for damaged in ("not a fingerprint", "", "0123456789ABCDEF"):
        note.write_text(damaged)
        assert run_in(package, cache, FINGERPRINTS) == [code, source]
        assert note.read_text() == code
    rng_file = package / "autodup" / "engine" / "rng.py"  # an edit gives other sources, so a note of their own
    rng_file.write_text(rng_file.read_text() + "\n# edited\n")
    edited_code, edited_source = run_in(package, cache, FINGERPRINTS)
    assert edited_source != source and edited_code != code
    assert sorted(p.name for p in (cache / "code-fingerprints").iterdir()) == sorted([source, edited_source])


def test_a_damaged_cache_of_the_package_is_compiled_again(tmp_path):
    package = copy_package(tmp_path / "copy")
    cache = tmp_path / "cache"
    first = run_in(package, cache, DRAWS)
    files = [path for path in (cache / first[0] / "autodup").rglob("*") if path.is_file()]
    assert any(p.suffix == ".nbc" for p in files) and any(p.suffix == ".nbi" for p in files)
    # The data files alone (an index that names them, as a disk that filled mid-write leaves), the indexes alone,
    # then both: each time the draw is compiled again, and the rewritten cache loads.
    for damaged in ({".nbc"}, {".nbi"}, {".nbc", ".nbi"}):
        for path in (cache / first[0] / "autodup").rglob("*"):
            if path.suffix in damaged:
                path.write_bytes(b"\x80\x04not a pickle" if path.suffix == ".nbc" else b"\x00" * 7)
        assert run_in(package, cache, DRAWS) == [first[0], COMPILED, *first[2:]], damaged
        assert run_in(package, cache, DRAWS) == [first[0], LOADED, *first[2:]], damaged


def test_only_modules_compiled_code_can_reach_are_in_the_fingerprint():
    names = {path.relative_to(compile_cache.PACKAGE_DIR).as_posix() for path in compile_cache.compiled_modules()}
    assert {"engine/rng.py", "engine/kernels.py", "game/table.py", "game/shop.py", "game/combat.py", "game/boards.py",
            "game/authoring.py", "labs/toy.py"} <= names
    # editing these recompiles nothing
    assert not names & {"cli/__init__.py", "game/config.py", "tournament/run.py", "api.py", "__main__.py"}
    # self-stamped: editing one recompiles its own kernels, not the game
    assert not names & {f"{name.replace('.', '/')}.py" for name in compile_cache.SELF_STAMPED}
    assert "analysis/measure_kernels.py" in {f"{name.replace('.', '/')}.py" for name in compile_cache.SELF_STAMPED}


NESTED_IMPORTS = {
    "x = 1\n": False,
    "import numbat\n": False,
    "from .numba import x\n": False,  # a module of the package that happens to be called so
    "s = 'import numba'\n": False,
    "import numba.core\n": True,
    "import os, numba as nb\n": True,
    "def f():\n    from numba import njit\n": True,
    "class C:\n    def f(self):\n        if x:\n            pass\n        else:\n            import numba\n": True,
    "try:\n    pass\nexcept ImportError:\n    import numba\nfinally:\n    pass\n": True,
    "with open(p) as f:\n    for line in f:\n        while line:\n            from numba.core import types\n": True,
    "match x:\n    case 1:\n        import numba\n": True,
    "async def f():\n    async with a:\n        import numba\n": True,
}


@pytest.mark.parametrize("source", NESTED_IMPORTS)
def test_an_import_of_numba_is_found_at_any_depth_of_statements(source):
    assert compile_cache._imports_numba(source) is NESTED_IMPORTS[source]


def test_a_module_imports_numba_by_the_statements_alone_as_by_a_walk_of_its_whole_tree():
    """The fingerprint's scan visits statements only, and skips a source that does not name numba: the same
    answer as a visit of every node, for every module of the package, the tests and the benchmarks."""
    import ast

    def names_numba(node):
        if isinstance(node, ast.Import):
            return any(alias.name.split(".")[0] == "numba" for alias in node.names)
        return isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] == "numba"

    def every_node(source):
        return any(names_numba(node) for node in ast.walk(ast.parse(source)))

    paths = [*compile_cache.PACKAGE_DIR.rglob("*.py"), *(ROOT / "tests").glob("*.py"),
             *(ROOT / "benchmarks").glob("*.py")]
    answers = {path: compile_cache._imports_numba(path.read_text()) for path in paths}
    assert answers == {path: every_node(path.read_text()) for path in paths}
    assert sum(answers.values()) > 30 and not all(answers.values())


# A kernel of a self-stamped module and one of the game's engine, and whether each was compiled here (1) or loaded.
MEASURE_AND_DRAW = """
import numpy as np
from autodup.analysis import measure_kernels
from autodup.compile_cache import CODE_FINGERPRINT
from autodup.engine import kernels
pairs = measure_kernels.same_seat_pairs(2, 3, 4)
counter, needles, count = kernels.engine_state(3)
kernels.engine_draw(kernels.ENGINE_PLAIN, np.uint64(1), counter, needles, count, np.array([1.0, 2.0, 3.0]))
print(CODE_FINGERPRINT, sum(measure_kernels.same_seat_pairs.stats.cache_misses.values()),
      sum(kernels.engine_draw.stats.cache_misses.values()), pairs.shape[0])
"""


def test_a_self_stamped_module_recompiles_when_it_changes(tmp_path):
    """Editing the measures' kernels recompiles them, and only them: the game's cache stays valid."""
    package = copy_package(tmp_path / "copy")
    cache = tmp_path / "cache"
    first = run_in(package, cache, MEASURE_AND_DRAW)
    assert first[1:3] == [COMPILED, COMPILED]
    assert run_in(package, cache, MEASURE_AND_DRAW) == [first[0], LOADED, LOADED, first[3]]
    measures = package / "autodup" / "analysis" / "measure_kernels.py"
    measures.write_text(measures.read_text() + "\n# edited\n")
    assert run_in(package, cache, MEASURE_AND_DRAW) == [first[0], COMPILED, LOADED, first[3]]
    assert run_in(package, cache, MEASURE_AND_DRAW) == [first[0], LOADED, LOADED, first[3]]


def test_a_self_stamped_modules_stamp_adds_its_own_fingerprint_to_the_codes():
    locator = compile_cache.FingerprintCacheLocator.from_function(
        __import__("autodup.analysis.measure_kernels", fromlist=["offer_overlap"]).offer_overlap.py_func,
        str(compile_cache.PACKAGE_DIR / "analysis" / "measure_kernels.py"))
    game_locator = compile_cache.FingerprintCacheLocator.from_function(
        __import__("autodup.game.table", fromlist=["play_table"]).play_table.py_func,
        str(compile_cache.PACKAGE_DIR / "game" / "table.py"))
    assert game_locator.get_source_stamp() == compile_cache.CODE_FINGERPRINT
    own = compile_cache._fingerprint([compile_cache.PACKAGE_DIR / "analysis" / "measure_kernels.py"])
    assert locator.get_source_stamp() == f"{compile_cache.CODE_FINGERPRINT}:{own}"


LOAD_BOT = """
import sys
from autodup.bots import load_bot
from autodup.engine.dealers import DEALERS
from autodup.engine.rng import event_seed, seat_seed
from autodup.game.bot_loading import seating
from autodup.game.config import load_config
from autodup.game.progress import new_progress
from autodup.game.rules import ORDER_EVENTS, rules_of
from autodup.game.table import play_table
import numpy as np
bot = load_bot(sys.argv[1])
rules = rules_of(load_config(sys.argv[2]))
seeds = np.array([seat_seed(3, s) for s in range(rules.players)], dtype=np.uint64)
results = play_table(rules, DEALERS["haystack"].code, ORDER_EVENTS, seeds, np.uint64(event_seed(3, 0)),
                     *seating([bot] * rules.players), False, new_progress())[0]
print(bot.policy._cache_hits, *results[:, 0].tolist())
"""


def test_a_bot_cache_is_found_by_content_from_any_folder_and_a_damaged_one_is_recompiled(tmp_path):
    """The table comes from the usual cache; the bot's content is new (a comment naming this test's folder)."""
    tiny = str(ROOT / "configs" / "tiny.yaml")
    paths = []
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        paths.append(tmp_path / folder / "mybot.py")
        paths[-1].write_text((ROOT / "bots" / "greedy.py").read_text() + f"# {tmp_path}\n")

    def load(path):
        return run_in(ROOT, None, LOAD_BOT.replace("sys.argv[1]", repr(str(path))).replace("sys.argv[2]", repr(tiny)))

    module = bot_identity.bot_module_name(paths[0])
    assert bot_identity.bot_module_name(paths[1]) == module
    folders = []
    try:
        first, second = load(paths[0]), load(paths[1])
        assert first[0] == "0" and second[0] == "1"  # compiled once, then loaded from another folder's copy
        assert first[1:] == second[1:]
        # One folder, named by the content and by the values its code freezes (the same from either path)
        folders = list((compile_cache.cache_folder() / "bots").glob(f"{module}-*"))
        assert len(folders) == 1, folders
        for cached in folders[0].iterdir():  # damage every cached file of the bot
            cached.write_bytes(b"\x00garbage" * 10)
        third = load(paths[1])
        assert third[0] == "0" and third[1:] == first[1:]  # recompiled, same play
    finally:
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)


HELPED_BOT = """
from autodup.bots import GOLD, REROLL_PRICE, end_turn, policy, reroll
from myhelpers import reserve

NAME = "helped"
DESCRIPTION = "Rolls above the reserve its helper module sets."
PARAMETERS = {}


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    if me[GOLD] >= reserve(me) + me[REROLL_PRICE]:
        return reroll()
    return end_turn()
"""


def rolls_in_a_game(bot: Path, pythonpath: str) -> int:
    """The rolls of a game of tiny with ``bot`` at every seat, played by ``autodup play`` in a process of its own
    (from the bot's folder, with ``pythonpath``)."""
    result = subprocess.run([sys.executable, "-m", "autodup", "play", str(ROOT / "configs" / "tiny.yaml"), "--bots",
                             str(bot), "--json"], capture_output=True, text=True, timeout=600, cwd=bot.parent,
                            env={**os.environ, "PYTHONPATH": pythonpath})
    assert result.returncode == 0, result.stderr
    return sum(seat["rolls"] for seat in json.loads(result.stdout)["seats"])


def test_a_bot_recompiles_when_a_module_of_its_own_changes(tmp_path):
    """Compiled code inlines the helpers a bot imports from its own modules: an edit of one must recompile it."""
    (tmp_path / "helped.py").write_text(HELPED_BOT)
    helpers = tmp_path / "myhelpers.py"

    def rolls():
        return rolls_in_a_game(tmp_path / "helped.py", f"{ROOT}{os.pathsep}{tmp_path}")

    helpers.write_text(f"# {tmp_path}\nfrom autodup.bots import helper\nRESERVE = 0\n\n\n@helper\n"
                       "def reserve(me):\n    return RESERVE\n")
    assert rolls() > 0
    helpers.write_text(helpers.read_text().replace("RESERVE = 0", "RESERVE = 1000"))
    assert rolls() == 0  # not the cached policy of the first module


def test_a_bot_recompiles_when_a_value_its_file_computes_on_loading_changes(tmp_path):
    """numba freezes a global's value into the code that reads it. A bot whose file reads its threshold from a file
    beside it (or an environment variable, the clock) when it loads went on playing the threshold of its first
    compile, cached under the file's unchanged text: the same command played another bot depending on the cache
    (found by a new user's trial). Its cache is named by the values its code freezes too, so each value compiles
    (once) and plays as written."""
    bot = tmp_path / "threshold.py"
    # a content of its own: no earlier run's cache
    bot.write_text((ROOT / "tests" / "bots" / "reads_a_threshold.py").read_text() + f"# {tmp_path}\n")

    def rolls(threshold):
        (tmp_path / "threshold.txt").write_text(f"{threshold}\n")
        return rolls_in_a_game(bot, str(ROOT))

    assert rolls(1000) == 0
    assert rolls(0) > 0  # not the cached policy of the first threshold
    assert rolls(1000) == 0
    folders = list((compile_cache.cache_folder() / "bots").glob(bot_identity.bot_module_name(bot) + "-*"))
    assert len(folders) == 2, folders  # one compile per value, kept side by side
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)


def test_the_values_a_bot_freezes_are_told_apart_by_type_and_content():
    """What :func:`bot_identity.frozen_form` keeps of a global: numbers by type and value, arrays by dtype, shape and
    content, containers by their items; code (a function, a module, a class) is not a value."""
    import enum

    import numpy as np

    Colour = enum.Enum("Colour", "RED BLUE")
    values = [1, 1.0, True, "1", b"1", None, (1,), [1], {1: 1}, np.int64(1), np.float64(1.0), np.array([1]),
              np.array([1.0]), np.array([[1]]), np.array([2]), Colour.RED, Colour.BLUE, (1, (2, 3)), (1, (2, 4))]
    forms = [bot_identity.frozen_form(value) for value in values]
    assert None not in forms and len(set(forms)) == len(forms)
    assert bot_identity.frozen_form(np.array([1, 2])[::-1]) == bot_identity.frozen_form(np.array([2, 1]))
    for code in (len, np, Colour, lambda: 0, np.array([object()])):
        assert bot_identity.frozen_form(code) is None
    space = {"A": 1, "f": len, "__file__": "/somewhere/bot.py", "_B": np.arange(3)}
    assert set(bot_identity.load_time_values(space)) == {"A", "_B"}
    assert bot_identity.load_time_digest(space) == bot_identity.load_time_digest({**space, "__file__": "/else.py"})
    assert bot_identity.load_time_digest(space) != bot_identity.load_time_digest({**space, "A": 2})


def test_bot_module_names_follow_content_not_path(tmp_path):
    a, b = tmp_path / "a.py", tmp_path / "sub" / "a.py"
    b.parent.mkdir()
    a.write_text("x = 1\n")
    b.write_text("x = 1\n")
    assert bot_identity.bot_module_name(a) == bot_identity.bot_module_name(b)
    b.write_text("x = 2\n")
    assert bot_identity.bot_module_name(a) != bot_identity.bot_module_name(b)


@pytest.mark.slow
def test_an_edited_rule_in_game_reaches_both_run_and_play(tmp_path):
    """The original defect: after an edit of the game's rules, `run` (cached elsewhere) kept the old rule."""
    package = copy_package(tmp_path / "copy")
    for folder in ("configs", "bots"):
        shutil.copytree(ROOT / folder, package / folder, ignore=shutil.ignore_patterns("__pycache__"))
    cache = tmp_path / "cache"
    environment = {**os.environ, "PYTHONPATH": str(package), "AUTODUP_CACHE_DIR": str(cache)}

    def autodup(*args):
        result = subprocess.run([sys.executable, "-m", "autodup", *args], capture_output=True, text=True,
                                timeout=1800, cwd=package, env=environment)
        assert result.returncode == 0, result.stderr
        return result.stdout

    def gold_won_by_the_winner():
        played = autodup("play", "configs/tiny.yaml", "--seed", "4", "--bots", "greedy", "--json")
        run = autodup("run", "configs/tiny.yaml", "--bots", "greedy,econ", "--boards", "3", "--quiet", "--out",
                      str(tmp_path / f"run{len(list(tmp_path.glob('run*')))}"), "--json")
        return json.loads(played)["seats"], json.loads(run)["summary"]

    before = gold_won_by_the_winner()
    game_file = package / "autodup" / "game" / "combat.py"
    source = game_file.read_text()
    edited = source.replace("table.gold[winner] += rules.pvp_win_gold", "table.gold[winner] += 10 * rules.pvp_win_gold")
    assert edited != source
    game_file.write_text(edited)
    after = gold_won_by_the_winner()
    assert after[0] != before[0] and after[1] != before[1]


HOLD_THE_LOCK = """
import sys
from autodup.compile_cache import compile_lock
with compile_lock():
    print("held", flush=True)
    sys.stdin.readline()
"""
TAKE_THE_LOCK = """
from autodup.compile_cache import compile_lock
with compile_lock(lambda: print("waiting", flush=True)):
    print("taken", flush=True)
"""


@pytest.mark.skipif(cache_sharing.fcntl is None, reason="no advisory locks on this system")
def test_one_process_compiles_at_a_time_and_a_killed_holder_frees_the_lock(tmp_path):
    """A second process waits for the compile lock (and says so) until its holder ends; a holder killed with
    SIGKILL frees it; a cold ``autodup run``, ``play`` or ``check-bot`` started while another process compiles
    waits instead of compiling the game a second time."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "AUTODUP_CACHE_DIR": str(tmp_path / "cache")}

    def start(code, **pipes):
        return subprocess.Popen([sys.executable, "-c", code], text=True, env=environment, cwd=ROOT, **pipes)

    holder = start(HOLD_THE_LOCK, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert holder.stdout.readline() == "held\n"
    waiter = start(TAKE_THE_LOCK, stdout=subprocess.PIPE)
    assert waiter.stdout.readline() == "waiting\n"
    commands = [subprocess.Popen([sys.executable, "-m", "autodup", *command], text=True, env=environment, cwd=ROOT,
                                 stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
                for command in (["run", "--boards", "2", "--quiet", "--out", str(tmp_path / "run")],
                                ["play", "tiny", "--bots", "greedy"], ["check-bot", "greedy", "--games", "1"])]
    try:
        for command in commands:
            # One line within a minute: a command that compiles instead of waiting prints nothing for minutes.
            assert select.select([command.stderr], [], [], 60)[0], command.args
            assert "waiting for another autodup process that is compiling the game" in command.stderr.readline()
        assert waiter.poll() is None and all(command.poll() is None for command in commands)  # all still wait
    finally:
        for command in commands:
            command.kill()  # once the lock is free each would compile the game: not this test's business
            command.wait()
    holder.stdin.write("\n")
    holder.stdin.close()
    assert holder.wait(timeout=60) == 0
    assert waiter.stdout.read() == "taken\n" and waiter.wait(timeout=60) == 0
    killed = start(HOLD_THE_LOCK, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert killed.stdout.readline() == "held\n"
    killed.kill()
    killed.wait()
    after = start(TAKE_THE_LOCK, stdout=subprocess.PIPE)
    assert after.stdout.read() == "taken\n" and after.wait(timeout=60) == 0  # no wait: the system freed it


_CLAIMED = """
import os, subprocess, sys, threading, time
import numpy as np
from numba import typeof
from autodup.cache_sharing import process_identity
from autodup.compile_cache import _claim_path, compiled_signatures
from autodup.engine.rng import uniform_from_bits
claim = _claim_path(uniform_from_bits._cache, (typeof(np.uint64(1)),))
holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(HOLD)"])
threading.Thread(target=holder.wait).start()  # reaped when it ends, as a pool reaps its workers
# reused: the pid's process started at another time
claim.write_text({"live": process_identity(holder.pid), "gone": str(2 ** 22 + 12345),
                  "reused": f"{holder.pid} 1", "empty": ""}["CASE"])
if "CASE" == "empty":  # its process killed between creating it and writing it, 10 s ago
    os.utime(claim, (time.time() - 10, time.time() - 10))
start = time.perf_counter()
uniform_from_bits(np.uint64(1))
waited = time.perf_counter() - start
try:
    uniform_from_bits("not bits")  # does not compile: its claim is released all the same
except Exception:
    pass
left = sorted(path.name for path in claim.parent.glob("*.claim"))
print(round(waited, 1), left, len(compiled_signatures(uniform_from_bits)))
"""


@pytest.mark.parametrize("case", ["live", "gone", "reused", "empty"])
def test_a_function_another_process_is_compiling_is_waited_for_and_a_dead_claim_taken_over(tmp_path, case):
    """A cold start compiles the game in two processes, each reaching functions the other compiles. Before
    compiling a version of a package function a process claims it (a file beside numba's index, holding its
    pid); another that misses it meanwhile waits for the claim to go, then loads it instead of compiling it a
    second time. Here a claim held by a live process holds the compile back until that process ends (then it is
    taken over); one whose process is gone, or whose pid is now another process's, or left empty seconds ago (its
    process killed while writing it), is taken over at once. No claim is left behind, a failed compile's
    included."""
    waited, left, versions = run_in(ROOT, tmp_path / "cache", _CLAIMED.replace("HOLD", "3").replace("CASE", case))
    assert (left, versions) == ("[]", "1")  # no claim left behind, and the function compiled (once)
    assert float(waited) >= 2.0 if case == "live" else float(waited) < 2.0, waited


_COUNT_VERSIONS = """
import numpy as np
from autodup.compile_cache import compiled_signatures
from autodup.engine.rng import uniform_from_bits
before = len(compiled_signatures(uniform_from_bits))
uniform_from_bits(np.uint64(1))
print(before, len(compiled_signatures(uniform_from_bits)), len(uniform_from_bits._cache._cache_file._load_index()))
"""


def test_a_version_compiled_for_another_processor_is_not_counted_as_compiled(tmp_path, monkeypatch):
    """numba keys a cached version by the processor it was compiled for as well as by its argument types. A
    version compiled under another ``NUMBA_CPU_NAME`` (or by another kind of machine sharing the cache folder) is
    compiled again here, so :func:`compiled_signatures` (which tells whether the table is compiled, and so whether
    a run announces a compile) counts only the versions this process loads. It counted every version: the
    suite's test of the game's versions failed on a cache where the performance page's CPU-tuning probes had
    compiled the game for four other processors."""
    monkeypatch.setenv("NUMBA_CPU_NAME", "generic")
    assert run_in(ROOT, tmp_path / "cache", _COUNT_VERSIONS) == ["0", "1", "1"]
    monkeypatch.delenv("NUMBA_CPU_NAME")
    # the generic version is in the index, but not this processor's: counted 0, then compiled beside it
    assert run_in(ROOT, tmp_path / "cache", _COUNT_VERSIONS) == ["0", "1", "2"]
    assert run_in(ROOT, tmp_path / "cache", _COUNT_VERSIONS) == ["1", "1", "2"]  # loaded, not compiled again


_SHOP_DRAW = """
import sys
from autodup.engine.kernels import engine_draw_hierarchical
from autodup.game.config import load_config
from autodup.game.rules import rules_of
from autodup.game.table import compile_shop_draw

rules = rules_of(load_config("configs/set4.yaml"))
if sys.argv[1:] == ["on-cue"]:  # ready, imports done: compile when told
    print("ready", flush=True)
    sys.stdin.readline()
compile_shop_draw(rules)
stats = engine_draw_hierarchical.stats
print(sum(stats.cache_hits.values()), sum(stats.cache_misses.values()))
"""


def test_a_process_that_waited_on_a_claim_loads_what_its_holder_saved(tmp_path):
    """Two processes need the shop's draw with an empty cache (a cold start's two workers reach it both): the
    second, told to go on once the first's claim is there (its imports done before, so that it reaches the draw
    within milliseconds, while the first compiles it for seconds), waits for the claim, then loads the draw the
    first compiled and saved (a cache hit, no compile), instead of compiling it a second time; no claim is left."""
    cache = tmp_path / "cache"
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "AUTODUP_CACHE_DIR": str(cache)}

    def start(*arguments):
        return subprocess.Popen([sys.executable, "-c", _SHOP_DRAW, *arguments], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=environment)

    waiter = start("on-cue")
    assert waiter.stdout.readline() == "ready\n", waiter.communicate()
    holder = start()
    deadline = time.monotonic() + 300
    while not list(cache.rglob("*engine_draw_hierarchical*.claim")):
        assert holder.poll() is None and time.monotonic() < deadline, holder.communicate()
        time.sleep(0.005)
    waiter.stdin.write("go\n")
    waiter.stdin.flush()
    outputs = [process.communicate(timeout=600) for process in (holder, waiter)]
    assert [process.returncode for process in (holder, waiter)] == [0, 0], outputs
    (held_hits, held_misses), (waited_hits, waited_misses) = [out.split() for out, _ in outputs]
    assert (held_hits, held_misses) == ("0", "1")  # the holder compiled it
    assert (waited_hits, waited_misses) == ("1", "0")  # the waiter loaded it
    assert not list(cache.rglob("*.claim"))


_BOT_CLAIMS = """
import sys
from autodup.cache_sharing import process_identity
from autodup.compile_cache import cache_folder
from autodup.errors import BotError
from autodup.game import policy_compiling
from autodup.game.bot_loading import load_bot

compile_uncached = policy_compiling._PolicyCallback._compile_uncached

def watched(callback):  # the claims in the cache while the bot compiles
    seen = sorted(path.read_text() for path in cache_folder().rglob("*.claim"))
    print("during", seen == [process_identity(__import__("os").getpid())])
    return compile_uncached(callback)

policy_compiling._PolicyCallback._compile_uncached = watched
load_bot("random")
try:
    load_bot("tests/bots/broken/does_not_compile.py")
except BotError:
    print("refused")
print("left", len(list(cache_folder().rglob("*.claim"))))
"""


def test_a_bot_is_compiled_under_a_claim_that_goes_whether_it_compiles_or_not(tmp_path):
    """A bot's compile goes through the cache's claims, as a package function's does, so that a cold start's two
    processes, which share the shipped bots, compile each once (one waits for the other, then loads it): while a
    bot compiles its claim holds this process's identity; none is left once it is saved, nor once a bot that
    does not compile is refused."""
    assert run_in(ROOT, tmp_path / "cache", _BOT_CLAIMS) == ["during", "True", "during", "True", "refused", "left",
                                                              "0"]


def test_only_plain_argument_types_are_read_back_by_any_process():
    import collections
    import enum

    from numba.core import types

    class Trait(enum.IntEnum):
        FAVOURITE = 0

    pair = collections.namedtuple("pair", "a b")
    plain = [types.int64, types.literal(5), types.literal(True), types.float64, types.none, types.Omitted(None),
             types.Array(types.int16, 2, "C", readonly=True), types.UniTuple(types.int64, 2)]
    assert all(cache_sharing.is_plain_type(plain_type) for plain_type in plain)
    other = [types.IntEnumMember(Trait, types.int64), types.NamedUniTuple(types.int64, 2, pair), types.unicode_type,
             types.UniTuple(types.IntEnumMember(Trait, types.int64), 2)]
    assert not any(cache_sharing.is_plain_type(other_type) for other_type in other)


_HELPER_VERSIONS = """
import numpy as np
from autodup.game import authoring
from autodup.game.bot_loading import load_bot
traits = np.zeros((4, 2), dtype=np.int64)
assert authoring.has_trait(1, 0, traits)  # a plain version, from Python
if {load_the_bot}:
    load_bot({bot!r})  # calls has_trait with an IntEnum of its own file
stats = authoring.has_trait.stats
print(sum(stats.cache_hits.values()), sum(stats.cache_misses.values()), len(authoring.has_trait.overloads))
"""


def test_a_helper_version_for_a_bots_own_type_is_not_cached_beside_the_others(tmp_path):
    """An authoring helper called with a type a bot defines (an IntEnum of its file) is compiled but not saved:
    its key names the bot's module, which another process cannot import to read the helper's cache index, and
    the versions saved beside it (the plain one here) would be lost and compiled again."""
    cache, bot = tmp_path / "cache", str(ROOT / "tests" / "bots" / "enum_traits.py")
    assert run_in(ROOT, cache, _HELPER_VERSIONS.format(load_the_bot=True, bot=bot))[-3:] == ["0", "2", "2"]
    assert run_in(ROOT, cache, _HELPER_VERSIONS.format(load_the_bot=False, bot=bot))[-3:] == ["1", "0", "1"]


_SAVING = """
import sys
from numba.core.caching import Cache
from autodup.game import authoring
print(authoring.has_trait._cache._cache_file._index_path, flush=True)
save = Cache.save_overload


def announced(cache, signature, data):
    print("saving", flush=True)
    save(cache, signature, data)
    print("saved", flush=True)


Cache.save_overload = announced
import numpy as np
authoring.has_trait(1, 0, np.zeros((4, 2), dtype=np.int64))
"""


@pytest.mark.skipif(cache_sharing.fcntl is None, reason="no flock on this system")
def test_a_version_is_saved_under_its_index_lock(tmp_path):
    """numba rewrites a function's cache index without a lock: two processes saving two versions at once could
    give both the same data file. A save waits for the index's lock."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "AUTODUP_CACHE_DIR": str(tmp_path / "cache")}
    process = subprocess.Popen([sys.executable, "-c", _SAVING], stdout=subprocess.PIPE, text=True, cwd=ROOT,
                               env=environment)
    try:
        index = process.stdout.readline().strip()
        with open(f"{index}.lock", "a+b") as lock:
            cache_sharing.fcntl.flock(lock, cache_sharing.fcntl.LOCK_EX)
            assert process.stdout.readline().strip() == "saving"
            ready, _, _ = select.select([process.stdout], [], [], 2.0)
            assert not ready and process.poll() is None  # waiting for the lock
            cache_sharing.fcntl.flock(lock, cache_sharing.fcntl.LOCK_UN)
        assert process.stdout.readline().strip() == "saved"
        assert process.wait(timeout=60) == 0
    finally:
        process.kill()


def test_a_cache_folder_under_an_unknown_users_home_is_refused_in_one_line(monkeypatch):
    """``AUTODUP_CACHE_DIR='~nouser/x'`` said "RuntimeError: Could not determine home directory", naming neither
    the variable nor what was wrong with it."""
    from autodup.errors import UsageError

    monkeypatch.setenv("AUTODUP_CACHE_DIR", "~no-such-user-of-autodup/cache")
    with pytest.raises(UsageError, match=r"^AUTODUP_CACHE_DIR='~no-such-user-of-autodup/cache': its '~' names no home"):
        compile_cache.cache_roots()
    monkeypatch.setenv("AUTODUP_CACHE_DIR", "~/cache")
    assert compile_cache.cache_roots()[0] == Path.home() / "cache"
