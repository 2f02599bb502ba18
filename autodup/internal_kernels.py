"""Kernels only compiled code calls: numba builds them no Python-callable wrapper.

numba compiles, beside each function, a wrapper that Python calls it through:
it converts each Python argument to the native one, and for the game's kernels,
which take the rules (23 arrays) and the table (57 arrays), that is thousands
of instructions, built and optimised for every compiled kernel. In a
one-process cold compile of the table, the 53 wrappers took 22.5 s to build and
optimise (``docs/performance.md``), most of them for kernels that only the
game's own compiled code calls, and that never use them.

:func:`internal_kernel` compiles a function with numba's ``no_cpython_wrapper``
option. Compiled callers call it as before, and it is cached as before; called
from Python, numba would jump through the wrapper it did not build, so the
dispatcher here refuses the call with a ``TypeError`` instead. To compile one
ahead of its callers (a cold start's second process does), pass the argument
values to :func:`compile_for`. A test or a tool that calls one from Python goes
through :func:`python_entry`, a wrapper compiled on first use in its own process.
"""

from __future__ import annotations

import functools

from numba import njit, typeof, types
from numba.core.registry import CPUDispatcher

__all__ = ["InternalDispatcher", "internal_kernel", "compile_for", "compiled_return_type", "python_entry"]


class InternalDispatcher(CPUDispatcher):
    """numba's dispatcher for a function compiled without its Python wrapper; a Python call is refused."""

    def __call__(self, *args, **kwargs):
        raise TypeError(f"{self.py_func.__module__}.{self.py_func.__qualname__} is called from compiled code only "
                        f"(it has no Python entry point); call it through autodup.internal_kernels.python_entry, "
                        f"or compile it ahead with autodup.internal_kernels.compile_for")


def internal_kernel(function=None, **options):
    """``numba.njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, **options)``, refusing Python calls.

    Usable bare (``@internal_kernel``) or with numba options (``@internal_kernel(_nrt=False)``).
    """
    def decorate(python_function):
        targetoptions = {"nopython": True, "no_cfunc_wrapper": True, "no_cpython_wrapper": True, **options}
        dispatcher = InternalDispatcher(py_func=python_function, locals={}, targetoptions=targetoptions)
        dispatcher.enable_caching()
        return dispatcher

    return decorate if function is None else decorate(function)


def compile_for(dispatcher, *arguments) -> None:
    """Compile ``dispatcher`` (cached) for the types a Python call with ``arguments`` would give it, without calling;
    an argument that is a numba type stands for itself (a value of it, such as the game's table, need not be built)."""
    dispatcher.compile(tuple(argument if isinstance(argument, types.Type) else typeof(argument)
                             for argument in arguments))


def compiled_return_type(dispatcher, argument_types: tuple):
    """Compile ``dispatcher`` for ``argument_types`` (numba types; or load it from the cache); its return type."""
    dispatcher.compile(argument_types)
    return dispatcher.overloads[argument_types].signature.return_type


@functools.cache
def python_entry(kernel):
    """A Python-callable function that calls internal kernel ``kernel`` with its arguments and returns its result.

    For tests and tools that call a kernel of the game from Python: the entry and its Python wrapper are compiled
    in the calling process, on its first call with each set of argument types, so that a run, which never calls
    it, compiles none. The kernel itself is cached as always; the entry is not: numba keys a closure's cache by a
    pickle of what it captures, and a dispatcher's pickle holds an identifier of its process, so each process
    would add a version that no other finds. Arguments are passed by position, all of them: a kernel's defaults
    left out would compile another version of the kernel.
    """
    def entry(*arguments):
        return kernel(*arguments)

    entry.__name__ = entry.__qualname__ = f"python_entry_{kernel.py_func.__name__}"
    return njit(no_cfunc_wrapper=True)(entry)
