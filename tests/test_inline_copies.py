"""numba's inliner copies a callee's scope once per copy for the package and its bots (autodup.inline_copies).

The copy's blocks share one scope, as the function's blocks do, and what is compiled is the same: a caller
of the package's (its module named ``autodup....``) inlining a helper of many blocks compiles to the same
optimised IR, names aside, with the wrapper and with numba's own inliner.
"""

import re
import types

import numpy as np
from numba import njit
from numba.core import inline_closurecall
from numba.core.compiler import run_frontend

from autodup import inline_copies


def branchy(values, limit):
    """A function of several blocks and variables."""
    total = 0.0
    for i in range(values.shape[0]):
        value = values[i]
        if value > limit:
            total += value
        elif value < -limit:
            total -= value
        else:
            total += 0.5 * value
    return total


helper = njit(inline="always")(branchy)


def caller(values):
    return helper(values, 1.0) + helper(values[::-1], 2.0)


def compiled_in(module: str):
    function = types.FunctionType(caller.__code__, {"helper": helper}, "caller")
    function.__module__ = module
    return njit(function)


def normalised_ir(dispatcher) -> str:
    """The optimised IR of the dispatcher's one compiled version, with the numbers in names masked."""
    text = dispatcher.inspect_llvm(dispatcher.signatures[0])
    # numba numbers each compile (in the ABI tag of a mangled name, in an inlined variable's name) and each
    # inlined block (a global label counter); LLVM's comments (a block's predecessors) align to the names
    return re.sub(r"B\d+(v\d+)?|_v\d+_", "B", re.sub(r" *;.*", "", text))


def test_it_is_in_effect():
    assert inline_copies.installed()


def test_the_blocks_of_a_copy_share_one_copy_of_the_scope():
    function_ir = run_frontend(branchy)
    blocks = list(function_ir.blocks.values())
    assert len(blocks) >= 5 and len({id(block.scope) for block in blocks}) == 1
    copier = inline_copies.SharedScopeCopy()
    copies = [copier.deepcopy(block) for block in blocks]
    scopes = {id(block.scope) for block in copies}
    assert len(scopes) == 1 and id(blocks[0].scope) not in scopes
    assert set(copies[0].scope.localvars._con) == set(blocks[0].scope.localvars._con)
    # numba's copy, block by block, gives each block a scope of its own: what the wrapper saves.
    numbas = [inline_closurecall.copy.deepcopy(block) for block in blocks]
    assert len({id(block.scope) for block in numbas}) == len(blocks)


def test_what_is_compiled_is_the_same(monkeypatch):
    copiers = []

    class Counted(inline_copies.SharedScopeCopy):
        def __init__(self):
            super().__init__()
            copiers.append(self)

    monkeypatch.setattr(inline_copies, "SharedScopeCopy", Counted)
    values = np.linspace(-3.0, 3.0, 13)
    expected = branchy(values, 1.0) + branchy(values[::-1], 2.0)
    assert compiled_in("tests.probe")(values) == expected
    assert copiers == []  # not ours: numba's inliner as it is
    ours = compiled_in("autodup.engine.kernels")
    assert ours(values) == expected
    assert len(copiers) == 2 and all(copier.scopes for copier in copiers)  # one per call site, each used
    monkeypatch.setattr(inline_closurecall.InlineWorker, "inline_ir", inline_copies._numba_inline_ir)
    numbas = compiled_in("autodup.engine.kernels")
    assert numbas(values) == expected
    assert normalised_ir(ours) == normalised_ir(numbas)
