"""The package's kernels get machine code only when something runs them (autodup.deferred_code).

A kernel of the package (its module named ``autodup....``) that only compiled code calls is linked into its
callers as IR and gets no machine code of its own; its callers run as before, exceptions included; asked for
the address of a function it defines, it generates its code then; cached, it is its IR under a kind of its
own, which loads again (in a fresh process) and links into a new caller, and which numba's own loader refuses.
Another module's kernels compile as numba compiles them: the control.
"""

import subprocess
import sys
import textwrap
import types

import pytest
from numba import njit
from numba.core import codegen
from numba.core.registry import cpu_target
from numba.core.types import int64 as types_int64

from autodup import deferred_code


def doubled(x):
    if x < 0:
        raise ValueError("negative value")  # raised through the caller's copy of this code
    return 2 * x


def plus_one(x):
    return inner_kernel(x) + 1  # noqa: F821  (bound per module below)


def compiled_in(module: str):
    """(inner, outer): ``inner`` without a Python wrapper (only ``outer`` calls it), both named in ``module``."""
    inner = types.FunctionType(doubled.__code__, {"ValueError": ValueError}, "doubled")
    inner.__module__ = module
    inner_dispatcher = njit(no_cpython_wrapper=True, no_cfunc_wrapper=True)(inner)
    outer = types.FunctionType(plus_one.__code__, {"inner_kernel": inner_dispatcher}, "plus_one")
    outer.__module__ = module
    return inner_dispatcher, njit(no_cfunc_wrapper=True)(outer)  # as the package's kernels: no C wrapper


def library_of(dispatcher):
    (compiled,) = dispatcher.overloads.values()
    return compiled.library


def test_it_is_in_effect():
    assert deferred_code.installed()


@pytest.mark.parametrize("module, deferred", [("autodup.probe_deferred", True), ("tests.deferred_probe", False)])
def test_a_kernel_only_compiled_code_calls_gets_no_machine_code(module, deferred):
    inner, outer = compiled_in(module)
    assert outer(3) == 7
    with pytest.raises(ValueError, match="negative value"):
        outer(-1)
    inner_library = library_of(inner)
    assert deferred_code.is_deferred(inner_library) is deferred
    (name,) = [function.name for function in inner_library.get_defined_functions()]
    assert inner_library.codegen._engine.is_symbol_defined(name) is not deferred  # no machine code of its own
    assert not deferred_code.is_deferred(library_of(outer))  # Python calls it: asked for its wrapper, it generated


def test_a_deferred_library_generates_its_code_when_a_function_it_defines_is_asked_for():
    inner, outer = compiled_in("autodup.probe_deferred")
    assert outer(4) == 9
    library = library_of(inner)
    assert deferred_code.is_deferred(library)
    assert library.get_pointer_to_function("no_such_function") == 0
    assert deferred_code.is_deferred(library)  # a name it does not define generates nothing
    (name,) = [function.name for function in library.get_defined_functions()]
    assert library.get_pointer_to_function(name) != 0
    assert not deferred_code.is_deferred(library)


def test_numbas_own_loader_refuses_a_deferred_entry():
    numbas_unserialize = deferred_code._numbas["_unserialize"].__func__
    jit_codegen = cpu_target.target_context.codegen()
    with pytest.raises(ValueError, match="unsupported serialization kind"):
        numbas_unserialize(codegen.JITCodeLibrary, jit_codegen, ("probe", deferred_code.DEFERRED_KIND, b""))


PROBE_MODULE = '''
from numba import njit
from autodup.internal_kernels import internal_kernel


@internal_kernel
def inner(x):
    return 3 * x


@njit(cache=True)
def outer(x):
    return inner(x) + 1
'''

PROBE_RUN = '''
import importlib.util, sys
import autodup.engine.rng  # installs the module under test, as every jitted module of the package does
from numba import njit
from autodup import deferred_code

spec = importlib.util.spec_from_file_location("autodup.probe_deferred_cache", sys.argv[1])
module = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = module
spec.loader.exec_module(module)


@njit
def another_caller(x):
    return module.inner(x) - 1


print(module.outer(5), another_caller(5), sum(module.inner.stats.cache_hits.values()),
      sum(module.inner.stats.cache_misses.values()),
      deferred_code.is_deferred(next(iter(module.inner.overloads.values())).library))
'''


def test_a_cached_deferred_kernel_loads_in_a_fresh_process_and_links_into_a_new_caller(tmp_path):
    (tmp_path / "probe.py").write_text(textwrap.dedent(PROBE_MODULE))
    (tmp_path / "run.py").write_text(textwrap.dedent(PROBE_RUN))

    def run():
        done = subprocess.run([sys.executable, str(tmp_path / "run.py"), str(tmp_path / "probe.py")],
                              capture_output=True, text=True, timeout=300, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        return done.stdout.split()

    assert run() == ["16", "14", "0", "1", "True"]  # compiled: deferred, and cached so
    assert run() == ["16", "14", "1", "0", "True"]  # loaded from the cache, deferred still, and linked anew


RECURSIVE_MODULE = '''
from numba import njit

internal = njit(no_cpython_wrapper=True, no_cfunc_wrapper=True)


@internal
def countdown_a(n):
    return 0 if n <= 0 else countdown_b(n - 1) + 1


@internal
def countdown_b(n):
    return 0 if n <= 0 else countdown_a(n - 1) + 2
'''


@pytest.mark.parametrize("module", ["autodup.probe_deferred_recursion", "tests.probe_deferred_recursion"])
def test_kernels_calling_each_other_recursively_are_not_deferred(tmp_path, module):
    """numba resolves a recursive call at run time, through a module that defines its target: such a library
    keeps its machine code, so that callers of either kernel run (deferred, both raised "unresolved symbol")."""
    import importlib.util

    (tmp_path / "recursive.py").write_text(RECURSIVE_MODULE)
    spec = importlib.util.spec_from_file_location(module, tmp_path / "recursive.py")
    kernels = importlib.util.module_from_spec(spec)
    sys.modules[module] = kernels
    try:
        spec.loader.exec_module(kernels)
        kernels.countdown_a.compile((types_int64,))
        through_b = njit(types.FunctionType(call_b.__code__, {"kernel_b": kernels.countdown_b}, "call_b"))
        through_a = njit(types.FunctionType(call_a.__code__, {"kernel_a": kernels.countdown_a}, "call_a"))
        assert through_b(3) == 5 and through_a(3) == 4
        assert not any(deferred_code.is_deferred(library_of(kernel))
                       for kernel in (kernels.countdown_a, kernels.countdown_b))
    finally:
        del sys.modules[module]


def call_a(n):
    return kernel_a(n)  # noqa: F821  (bound in the test)


def call_b(n):
    return kernel_b(n)  # noqa: F821
