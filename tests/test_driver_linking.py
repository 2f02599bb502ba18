"""A marked function optimises its own code, then links its callees' as they are (autodup.driver_linking).

The marked caller's calls stay calls, where numba's finalization would inline the callee, and what nothing
calls (the callee's Python wrapper) is dropped; its results are the same. The board driver and the outside
agents' driver (``advance_tables`` and its per-table part) are marked, and so are ``advance``, the round's start
and the turns, whose callees numba compiles on their own anyway (not the
round's end, whose marking made games slower). The copies linked in are the caller's own:
internal, renamed (so that a module compiled later keeps its own definition), in LLVM's fast convention, and
without the arguments they never read; a marked function linked into another marked one keeps its own copies.
"""

import re
import types

import numpy as np
from numba import njit

from autodup import driver_linking
from autodup.game import boards, combat, resumable, rounds, shop, table, turn


def summed(values):
    total = 0.0
    for i in range(values.shape[0]):
        total += values[i] * values[i]
    return total


def calls_summed(values):
    return summed_kernel(values) + summed_kernel(values[::-1])  # noqa: F821  (bound below)


def probe(python_function, callees: dict, name: str, marked: bool):
    """``python_function``'s code compiled afresh as ``tests.driver_probe.<name>``, its global names bound to
    ``callees``, and marked if asked."""
    function = types.FunctionType(python_function.__code__, callees, name)
    function.__module__, function.__qualname__ = "tests.driver_probe", name
    dispatcher = njit(function)
    return driver_linking.optimised_before_linking(dispatcher) if marked else dispatcher


def caller_named(name: str, marked: bool):
    callee = njit(summed)
    return probe(calls_summed, {"summed_kernel": callee}, name, marked), callee


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


def test_the_game_marks_the_drivers_advance_the_round_start_and_the_turns_and_nothing_else():
    # The drivers: the board driver, and the outside agents' (advance_tables and its per-table part).
    marked = {boards.play_boards_kernel, resumable.advance_tables, resumable._advance_one, table.advance,
              rounds.start_round, turn.play_turns}
    for kernel in marked:
        assert driver_linking.mangled_prefix(kernel.py_func) in driver_linking._marked, kernel
    # Left as numba finalizes them: the round's end (marked, games were 2.8% slower, its fights losing what LLVM
    # inlined there), the shop's reroll (marked, games no faster and cold starts within noise), the fights.
    for kernel in (table._end_round, table.play_table, table.new_game, shop.reroll_shop, combat.play_fights,
                   combat.prepare_fights):
        assert driver_linking.mangled_prefix(kernel.py_func) not in driver_linking._marked, kernel
    assert len({prefix for prefix in driver_linking._marked if prefix.startswith("_ZN7autodup")}) == len(marked)


def scaled(values):
    return 0.5 * summed_kernel(values)  # noqa: F821  (bound below)


def calls_scaled(values):
    return scaled_kernel(values) + scaled_kernel(values[:2])  # noqa: F821  (bound below)


def test_a_marked_function_linked_into_a_marked_caller_keeps_its_own_copies():
    """As the turns and the round's start are linked into ``advance``, and ``advance`` into the board driver."""
    callee = njit(summed)
    middle = probe(scaled, {"summed_kernel": callee}, "marked_middle", True)
    outer = probe(calls_scaled, {"scaled_kernel": middle}, "marked_outer", True)
    values = np.linspace(-1.0, 2.0, 7)
    assert outer(values) == 0.5 * float(np.sum(values * values)) + 0.5 * float(np.sum(values[:2] * values[:2]))
    ir = outer.inspect_llvm(outer.signatures[0])
    middle_copies = _defined(ir, driver_linking.mangled_prefix(middle.py_func))
    callee_copies = _defined(ir, driver_linking.mangled_prefix(callee.py_func))
    assert middle_copies and callee_copies
    for copy in middle_copies + callee_copies:
        assert copy.startswith("define internal fastcc "), copy
        assert re.search(COPY_NAME_END, copy), copy
    # The callee's copies are the middle's own (named by it), not the outer's.
    middle_suffixes = {driver_linking.copy_suffix(version.fndesc.mangled_name) for version in middle.overloads.values()}
    assert all(any(suffix + "(" in copy for suffix in middle_suffixes) for copy in callee_copies)


COPY_NAME_END = re.escape(driver_linking.COPY_SUFFIX) + r"\.[0-9a-f]{8}\("  # a copy's name, then its arguments


def _defined(ir: str, name_prefix: str) -> list:
    """The ``define`` lines of ``ir`` whose function's name starts with ``name_prefix``."""
    return [line for line in ir.splitlines() if line.startswith("define") and "@" + name_prefix in line]


def test_a_marked_callers_copies_are_its_own_and_take_only_what_they_read():
    marked, callee = caller_named("private_copies_caller", True)
    values = np.arange(5.0)
    assert marked(values) == 2 * float(np.sum(values * values))
    callee_name = driver_linking.mangled_prefix(callee.py_func)
    copies = _defined(marked.inspect_llvm(marked.signatures[0]), callee_name)
    assert len(copies) == len(callee.signatures) == 2  # the array, and the array reversed (strided)
    # numba's definitions take the status pointers and the array's seven words; each copy reads fewer.
    numbas = min(_defined(callee.inspect_llvm(signature), callee_name)[0].count("%")
                 for signature in callee.signatures)
    for copy in copies:
        assert copy.startswith("define internal fastcc ")
        assert re.search(r"@" + re.escape(callee_name) + r"\S*" + COPY_NAME_END, copy)
        assert copy.count("%") < numbas - 3, copy


def uses_the_generator(seed):
    return random_bits_pair(seed, 5, 7)[0]  # noqa: F821  (bound below)


def test_another_module_calling_the_same_function_gets_its_own_definition():
    """A copy is renamed: under numba's name, the JIT engine's linker resolved a later module's definition of the
    function to the marked caller's copy, whose arguments were cut (the process crashed; here, a wrong value)."""
    from autodup.engine.rng import random_bits_pair

    expected = int(random_bits_pair(11, 5, 7)[0])
    marked = probe(uses_the_generator, {"random_bits_pair": random_bits_pair}, "marked_generator_caller", True)
    assert int(marked(np.uint64(11))) == expected
    ir = marked.inspect_llvm(marked.signatures[0])
    assert any(re.search(COPY_NAME_END, line) for line in _defined(ir, "_ZN7autodup6engine3rng"))
    # Compiled after it: links numba's copy of its own.
    later = probe(uses_the_generator, {"random_bits_pair": random_bits_pair}, "later_generator_caller", False)
    assert int(later(np.uint64(11))) == expected


def test_only_numbas_linked_in_copies_are_made_private_and_each_marked_version_names_its_own():
    import llvmlite.binding as llvm

    module = llvm.parse_assembly("""
        define i32 @marked(i32 %x) { %a = call i32 @copy(i32 %x) %b = call i32 @own(i32 %a) ret i32 %b }
        define linkonce_odr i32 @copy(i32 %x) { ret i32 %x }
        define internal i32 @own(i32 %x) { ret i32 %x }
        define available_externally i32 @elsewhere(i32 %x) { ret i32 %x }
    """)
    driver_linking._make_private_copies(module, ".driver.0000abcd")
    linkage = {function.name: function.linkage for function in module.functions}
    assert linkage == {"marked": llvm.Linkage.external, "copy.driver.0000abcd": llvm.Linkage.internal,
                       "own": llvm.Linkage.internal, "elsewhere": llvm.Linkage.available_externally}
    module.verify()
    first, second = (driver_linking.copy_suffix(name) for name in ("_ZN7autodup1fB2v1E", "_ZN7autodup1fB2v2E"))
    assert first != second and first.startswith(driver_linking.COPY_SUFFIX + ".")
    assert driver_linking.copy_suffix("_ZN7autodup1fB2v1E") == first  # the same version, the same names
