"""numba's check for a BLAS, answered without importing ``scipy.linalg`` in every process.

The first time a process compiles or loads compiled code, numba imports its
array functions (``numba.np.arraymath``, from
``CPUContext.load_additional_registries``), and that module asks at once
whether a BLAS exists (``_HAVE_BLAS``, which chooses how ``np.convolve`` and
``np.correlate`` compile) by importing ``scipy.linalg.cython_blas``: all of
``scipy.linalg``, 0.26 s on this project's VM, in the command and in each of
its workers, although none of autodup's kernels, nor the shipped bots, calls
a linear-algebra function.

:func:`install` wraps ``load_additional_registries`` so that, while numba
imports those modules, the check finds scipy (``importlib.util.find_spec``,
which imports nothing) instead of importing it: scipy, a requirement of
autodup, brings its BLAS, so the answer is the one numba would give. numba's
own ``ensure_blas`` is put back right after, so a kernel that does call
``np.dot`` or ``np.linalg`` imports ``scipy.linalg`` when it compiles, as it
always has.

If numba no longer has these internals, nothing is changed.
"""

from __future__ import annotations

import importlib.util
import sys

from numba.core import cpu

__all__ = ["install", "installed"]

_numba_load = getattr(getattr(cpu, "CPUContext", None), "load_additional_registries", None)


def _blas_found() -> None:
    """``ensure_blas`` for the check numba makes as it imports its array functions: scipy found, not imported."""
    if importlib.util.find_spec("scipy") is None:
        raise ImportError("scipy 0.16+ is required for linear algebra")  # numba's words


def _load_additional_registries(self):
    if "numba.np.arraymath" in sys.modules:  # checked already (in this process, by the first context)
        return _numba_load(self)
    from numba.np import linalg

    numba_ensure_blas = getattr(linalg, "ensure_blas", None)
    if numba_ensure_blas is None:
        return _numba_load(self)
    linalg.ensure_blas = _blas_found
    try:
        return _numba_load(self)
    finally:
        linalg.ensure_blas = numba_ensure_blas
        arraymath = sys.modules.get("numba.np.arraymath")
        if getattr(arraymath, "ensure_blas", None) is _blas_found:  # it imported the name: numba's again
            arraymath.ensure_blas = numba_ensure_blas


def install() -> None:
    """Check this way from now on (idempotent)."""
    if _numba_load is not None:
        cpu.CPUContext.load_additional_registries = _load_additional_registries


def installed() -> bool:
    """Whether :func:`install` is in effect."""
    return getattr(cpu, "CPUContext", None) is not None and \
        cpu.CPUContext.load_additional_registries is _load_additional_registries


install()
