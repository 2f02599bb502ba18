"""Compiled code calls the C library's current ``exp``, ``log`` and ``log1p``, not their compatibility wrappers.

numba binds each C math function its compiled code calls (``np.exp`` becomes
a call of ``exp``) to the address its own helper library was linked against
(``numba._helperlib.c_helpers``). numba's Linux wheels are built against an
old glibc, so that address is glibc's oldest version of the symbol: for
``exp``, ``log`` and others, a compatibility wrapper (``exp@GLIBC_2.2.5``) that
calls the same computation, then checks the result for the error handling of
System V (``_LIB_VERSION``, long gone from glibc's headers). A profile of a
game put 1.2% of its samples in ``exp``'s wrapper alone (``benchmarks/profile_game.py``).

:func:`install` binds the names the game calls to the C library's default
version of each (glibc 2.29 on: the same computation, without the wrapper),
right after numba binds its own. The values are the same bit for bit (the
wrapper returns what the computation returns; ``tests/test_libm_binding.py``
compares them over every region of the three functions), but for the sign of
the NaN that ``log`` gives a negative number, which the game never takes the
logarithm of. Errors are signalled through ``errno`` instead of the wrapper's
handler; compiled code reads neither. Off Linux, or where the C library has a single version of these
symbols, the addresses are already the same and nothing changes.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

import llvmlite.binding as llvm
from numba.core import externals

__all__ = ["REBOUND", "install", "installed", "rebound_addresses"]

# The C math functions in the game's hot loops (combat's logistic terms and forms, the ziggurat's tail).
REBOUND = ("exp", "log", "log1p")

_installer = externals.c_math_functions
_numbas_install = getattr(type(_installer), "_do_install", None)


def rebound_addresses() -> dict:
    """``{name: address}`` of the C library's default version of each name of :data:`REBOUND` (empty off Linux, or
    without a C math library to open)."""
    if not sys.platform.startswith("linux"):
        return {}
    path = ctypes.util.find_library("m")
    if path is None:
        return {}
    try:
        library = ctypes.CDLL(path)
    except OSError:
        return {}
    return {name: ctypes.cast(getattr(library, name), ctypes.c_void_p).value for name in REBOUND
            if hasattr(library, name)}


def _bind() -> None:
    for name, address in rebound_addresses().items():
        llvm.add_symbol(name, address)


def _do_install(self, context):
    _numbas_install(self, context)
    _bind()


def install() -> None:
    """Bind this way from now on (idempotent). If numba has bound its names already (a compile before autodup was
    imported), they are bound again at once: code linked from then on calls the current versions."""
    if _numbas_install is None:
        return
    type(_installer)._do_install = _do_install
    if getattr(_installer, "_installed", False):
        _bind()


def installed() -> bool:
    """Whether :func:`install` is in effect."""
    return getattr(type(_installer), "_do_install", None) is _do_install


install()
