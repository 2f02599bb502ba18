"""Compiled code calls the C library's current exp, log and log1p: the same values as numba's binding, bit for bit
(but the sign of a NaN)."""

import ctypes
import sys

import llvmlite.binding as llvm
import numpy as np
import pytest
from numba import _helperlib, njit

from autodup import libm_binding

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the binding changes nothing off Linux")


@njit(cache=False)
def _jitted(x, out):
    for i in range(x.shape[0]):
        out[0, i] = np.exp(x[i])
        out[1, i] = np.log(x[i])
        out[2, i] = np.log1p(x[i])


def _arguments():
    """Every region of the three functions: tiny, around 1, large, past overflow and underflow, subnormals,
    zero, negatives (log's NaN), infinities and NaN."""
    generator = np.random.default_rng(31)
    spread = [generator.uniform(-1, 1, 20_000), generator.uniform(-750, 750, 20_000),
              np.exp(generator.uniform(-700, 700, 20_000)), generator.uniform(-1, 1, 2_000) * 1e-300]
    special = [0.0, -0.0, 1.0, -1.0, 709.78, 709.79, -745.13, -745.14, 5e-324, -5e-324, 1e308, -1e308,
               np.inf, -np.inf, np.nan]
    return np.concatenate(spread + [np.array(special)])


def test_the_binding_is_installed():
    assert libm_binding.installed()


@linux_only
def test_compiled_code_is_bound_to_the_current_versions():
    _jitted(np.ones(1), np.zeros((3, 1)))  # numba binds the names at its first compile
    for name, address in libm_binding.rebound_addresses().items():
        assert llvm.address_of_symbol(name) == address, name


@linux_only
def test_the_current_versions_give_numbas_values_bit_for_bit():
    x = _arguments()
    out = np.zeros((3, x.shape[0]))
    with np.errstate(all="ignore"):
        _jitted(x, out)
    signature = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double)
    for row, name in enumerate(("exp", "log", "log1p")):
        numbas = signature(_helperlib.c_helpers[name])  # the address numba binds the name to
        expected = np.array([numbas(float(value)) for value in x])
        # log of a negative number is a NaN in both, of the other sign in glibc's current version.
        both_nan = np.isnan(out[row]) & np.isnan(expected)
        assert np.array_equal(np.isnan(out[row]), np.isnan(expected)), name
        assert np.array_equal(out[row][~both_nan].view(np.uint64), expected[~both_nan].view(np.uint64)), name
