"""The package's kernels read a named tuple's field alone (autodup.field_loads); everything else as numba does.

The probe is one function compiled as if it were the package's (its module named ``autodup....``) and
as a test's, with LLVM's optimisation off (``_dbg_optnone``) so that its IR is what the lowering wrote.
Same values either way, with and without numba's runtime; fewer whole-tuple loads in the package's.
That the game's results are unchanged is what every other test of the game checks.
"""

import re
import types
from collections import namedtuple

import numpy as np
import pytest
from numba import njit
from numba.core.lowering import Lower

from autodup import field_loads

Pair = namedtuple("Pair", ["values", "flag", "grid", "scale"])


def probe(pair, other, n):
    """Reads fields across blocks (so the tuples live in stack slots), writes through one, swaps the two."""
    total = 0.0
    for i in range(n):
        if pair.flag:
            total += pair.values[i % pair.values.shape[0]] * pair.scale
        else:
            total -= pair.grid[i % 2, 1]
        pair.values[0] += 1.0
        if i % 3 == 0:
            pair, other = other, pair
    return total, pair.scale, other.flag, pair.values[0]


def compiled_in(module: str, runtime: bool):
    """``probe`` compiled as a function of ``module`` (numba names it after its module), unoptimised."""
    function = types.FunctionType(probe.__code__, {}, "probe")
    function.__module__ = module
    return njit(_dbg_optnone=True, _nrt=runtime)(function)


def arguments():
    return (Pair(np.arange(5.0), True, np.full((2, 3), 2.0), 1.5),
            Pair(np.arange(3.0) + 7.0, False, np.full((2, 3), 3.0), -0.5), 17)


def whole_tuple_loads(dispatcher) -> int:
    """Loads of a whole ``Pair`` (a record of records) in the function's IR (compiled by a call first)."""
    if not dispatcher.signatures:
        dispatcher(*arguments())
    return len(re.findall(r"= load \{ \{", dispatcher.inspect_llvm(dispatcher.signatures[0])))


def test_it_is_in_effect():
    assert field_loads.installed()


@pytest.mark.parametrize("runtime", [True, False], ids=["runtime", "no-runtime"])
def test_the_package_reads_fields_alone_with_the_same_values(runtime):
    ours, numbas = compiled_in("autodup.engine.kernels", runtime), compiled_in("tests.probe", runtime)
    expected = (-4.5, 1.5, False, 8.0)  # worked by hand: 6 swaps, the flagged tuple read on 8 of 17 steps
    assert ours(*arguments()) == expected
    assert numbas(*arguments()) == expected
    # With the runtime, a store into a variable holding a tuple of arrays still loads the old tuple to release it;
    # without it there is nothing to release, and those loads go too.
    assert whole_tuple_loads(ours) < whole_tuple_loads(numbas) * (1.0 if runtime else 0.5)


@pytest.mark.parametrize("module", ["tests.probe", "autodup_bot_probe", "autodupe"])
def test_any_other_function_is_lowered_as_numba_lowers_it(module, monkeypatch):
    lowered_here = whole_tuple_loads(compiled_in(module, True))
    monkeypatch.setattr(Lower, "lower_expr", field_loads._numba_lower_expr)
    monkeypatch.setattr(Lower, "storevar", field_loads._numba_storevar)
    assert whole_tuple_loads(compiled_in(module, True)) == lowered_here


def grow_and_fill(values, used, n):
    """Stores into a variable that holds an array (``values = grown``): its old array must be released."""
    if used + n > values.shape[0]:
        grown = np.empty(2 * (used + n))
        for k in range(used):
            grown[k] = values[k]
        values = grown
    for k in range(n):
        values[used] = k
        used += 1
    return values, used


def fill_boards(boards):
    """The board driver's pattern: arrays stored again from a helper's answer, round after round."""
    values, other = np.empty(8), np.empty(8)
    used = 0
    for _ in range(boards):
        values, used = grow_and_fill(values, used, 5)
        other, used = grow_and_fill(other, used, 0)
    return values[:used].copy()


@pytest.mark.parametrize("module", ["autodup.game.boards", "tests.probe"])
def test_a_variable_stored_again_releases_the_array_it_held(module):
    """A store into a variable loads and releases its old value whenever that value holds an array (its type
    *contains* a meminfo): skipping it for arrays leaked every array a variable held before its last."""
    from numba.core.runtime import _nrt_python, rtsys

    namespace = {"np": np}
    helper, driver = (types.FunctionType(f.__code__, namespace, f.__name__) for f in (grow_and_fill, fill_boards))
    helper.__module__ = driver.__module__ = module
    namespace["grow_and_fill"] = njit(helper)
    compiled = njit(driver)
    compiled(2)  # compiled before counting
    _nrt_python.memsys_enable_stats()  # what NUMBA_NRT_STATS=1 does at start
    try:
        before = rtsys.get_allocation_stats()
        for boards in (3, 50, 200):
            assert compiled(boards).tolist() == [float(k) for _ in range(boards) for k in range(5)]
        after = rtsys.get_allocation_stats()
    finally:
        _nrt_python.memsys_disable_stats()
    allocated, freed = after.alloc - before.alloc, after.free - before.free
    assert allocated > 20 and freed == allocated, (allocated, freed)
