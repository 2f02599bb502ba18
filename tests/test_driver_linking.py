"""A marked function optimises its own code, then links its callees' as they are (autodup.driver_linking).

The marked caller's calls stay calls, where numba's finalization would inline the callee, and what nothing
calls (the callee's Python wrapper) is dropped; its results are the same. The board driver is marked, and
nothing else of the game is.
"""

import re
import types

import numpy as np
from numba import njit

from autodup import driver_linking
from autodup.game import boards, table


def summed(values):
    total = 0.0
    for i in range(values.shape[0]):
        total += values[i] * values[i]
    return total


def calls_summed(values):
    return summed_kernel(values) + summed_kernel(values[::-1])  # noqa: F821  (bound below)


def caller_named(name: str, marked: bool):
    callee = njit(summed)
    function = types.FunctionType(calls_summed.__code__, {"summed_kernel": callee}, name)
    function.__module__, function.__qualname__ = "tests.driver_probe", name
    dispatcher = njit(function)
    return driver_linking.optimised_before_linking(dispatcher) if marked else dispatcher, callee


def test_it_is_in_effect():
    assert driver_linking.installed()


def test_a_marked_caller_calls_its_callee_where_numba_inlines_it():
    values = np.linspace(-2.0, 3.0, 11)
    expected = 2 * float(np.sum(values * values))
    marked, callee = caller_named("marked_caller", True)
    plain, _ = caller_named("plain_caller", False)
    assert marked(values) == plain(values) == expected
    callee_name = driver_linking.mangled_prefix(callee.py_func)
    marked_ir, plain_ir = (dispatcher.inspect_llvm(dispatcher.signatures[0]) for dispatcher in (marked, plain))
    call = re.compile(r"call .*@" + re.escape(callee_name))
    assert call.search(marked_ir) and not call.search(plain_ir)
    assert re.search(r"define .*@" + re.escape(callee_name), marked_ir)  # linked in, as it was optimised
    assert not re.search(r"define .*@_ZN7cpython" + re.escape(callee_name[3:]), marked_ir)  # the callee's: dropped


def test_the_mangled_prefix_is_numbas():
    dispatcher, _ = caller_named("prefixed_caller", False)
    dispatcher(np.ones(3))
    names = [function.name for function in next(iter(dispatcher.overloads.values())).library.get_defined_functions()]
    prefix = driver_linking.mangled_prefix(dispatcher.py_func)
    assert any(name.startswith(prefix + "B") for name in names)


def test_the_board_driver_alone_is_marked_in_the_game():
    assert driver_linking.mangled_prefix(boards.play_boards_kernel.py_func) in driver_linking._marked
    for kernel in (table.advance, table.play_table, table.new_game):
        assert driver_linking.mangled_prefix(kernel.py_func) not in driver_linking._marked
