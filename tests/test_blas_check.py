"""numba's check for a BLAS finds scipy without importing scipy.linalg, and linear algebra still compiles."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENVIRONMENT = {**os.environ, "PYTHONPATH": str(ROOT)}

# A process's first compile: numba imports its array functions, whose check for a BLAS is what is watched.
FIRST_COMPILE = """
import sys
import numpy as np
from numba import njit
import autodup.engine.rng  # installs the package's numba wrappers
from autodup import blas_check
{before}
assert "numba.np.arraymath" not in sys.modules and "scipy.linalg" not in sys.modules
njit(lambda x: x + 1)(1)
from numba.np import arraymath, linalg
print("imported" if "scipy.linalg" in sys.modules else "not imported", arraymath._HAVE_BLAS,
      arraymath.ensure_blas is linalg.ensure_blas, linalg.ensure_blas.__module__, blas_check.installed())
a = np.arange(6.0).reshape(2, 3)
print(njit(lambda a, b: np.dot(a, b))(a, a.T).tolist(), "scipy.linalg" in sys.modules)
"""


def first_compile(before: str = "") -> list:
    result = subprocess.run([sys.executable, "-c", FIRST_COMPILE.format(before=before)], capture_output=True,
                            text=True, env=ENVIRONMENT, cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_the_check_finds_scipy_without_importing_it_and_gives_numbas_answer():
    checked, dot = first_compile()
    # Not imported, BLAS found, numba's own ensure_blas back in both modules for whatever compiles later.
    assert checked == "not imported True True numba.np.linalg True"
    # np.dot compiles as it always has (numba imports scipy's BLAS for it then) and is right.
    assert dot == "[[5.0, 14.0], [14.0, 50.0]] True"


def test_numbas_own_check_imports_scipy_linalg():
    """The control: with numba's method put back before the first compile, the same process imports
    scipy.linalg for the check, with the same answer."""
    restore = "from numba.core import cpu; cpu.CPUContext.load_additional_registries = blas_check._numba_load"
    checked, dot = first_compile(restore)
    assert checked == "imported True True numba.np.linalg False"
    assert dot == "[[5.0, 14.0], [14.0, 50.0]] True"
