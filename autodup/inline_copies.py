"""numba's inliner copies a callee's variables once per copy of the callee, not once per block.

numba inlines a function marked ``inline="always"`` by copying the callee's IR
twice at each call site (``InlineWorker.inline_ir``: one copy to rewrite, one to
keep), each block with its own ``copy.deepcopy``. Every variable of a block
points to the function's scope, which holds every variable of the function, so
each block's copy copies the whole scope again: a callee of B blocks and V
variables costs about B x V copies, twice per call site (the open issue
numba/numba#8989). The game's turn inlines its helpers into one function; in a
one-process cold compile of the table, ``inline_ir`` took 17.3 s, and 3.6 s
with this module (``docs/performance.md``).

:func:`install` wraps ``inline_ir`` so that, for a caller of this package or of a
bot autodup loads (whose policies inline the bot's own ``@helper`` functions), the
blocks of one copy share one copy of the scope, as the blocks they are copied
from share one scope. Only the copying changes: the object code of every kernel
of the table, compiled with and without it, is byte for byte the same but for the
addresses Python prints in type names. A user's own numba code in the same process
is inlined as numba inlines it. If numba's inliner no longer has what the wrapper
replaces, nothing is changed.
"""

from __future__ import annotations

import copy

from numba.core import inline_closurecall, ir

from .compile_cache import BOT_MODULE_PREFIX, is_package_module

__all__ = ["SharedScopeCopy", "install", "installed"]

_numba_inline_ir = getattr(getattr(inline_closurecall, "InlineWorker", None), "inline_ir", None)


class SharedScopeCopy:
    """Stands for the ``copy`` module inside numba's inliner, for one inlining.

    ``deepcopy`` of a block copies its scope once: the blocks copied from one scope share one copy of it.
    Anything else is copied as ``copy.deepcopy`` copies it.
    """

    def __init__(self):
        self.scopes = {}  # id of a scope -> (the scope, kept alive so its id is not reused; its copy)

    def deepcopy(self, value, memo=None):
        if memo is not None or not isinstance(value, ir.Block):
            return copy.deepcopy(value, memo)
        scope = value.scope
        known = self.scopes.get(id(scope))
        copied = copy.deepcopy(value, {id(scope): known[1]} if known is not None else {})
        self.scopes[id(scope)] = (scope, copied.scope)
        return copied

    def __getattr__(self, name):
        return getattr(copy, name)


def _ours(caller_ir) -> bool:
    """Whether ``caller_ir`` (numba's IR of the function inlining) is of this package or of a loaded bot."""
    function = getattr(getattr(caller_ir, "func_id", None), "func", None)
    module = getattr(function, "__module__", None) or ""  # as numba's mangled names name it
    return is_package_module(module) or module.startswith(BOT_MODULE_PREFIX)


def _inline_ir(self, caller_ir, *args, **kwargs):
    """numba's ``InlineWorker.inline_ir``; for a caller of ours, each copy of the callee shares one scope."""
    if not _ours(caller_ir):
        return _numba_inline_ir(self, caller_ir, *args, **kwargs)
    numbas_copy = inline_closurecall.copy
    inline_closurecall.copy = SharedScopeCopy()  # numba compiles under its global lock: no other inlining meanwhile
    try:
        return _numba_inline_ir(self, caller_ir, *args, **kwargs)
    finally:
        inline_closurecall.copy = numbas_copy


def install() -> None:
    """Inline this way from now on (idempotent)."""
    if _numba_inline_ir is not None and getattr(inline_closurecall, "copy", None) is copy:
        inline_closurecall.InlineWorker.inline_ir = _inline_ir


def installed() -> bool:
    """Whether :func:`install` is in effect."""
    worker = getattr(inline_closurecall, "InlineWorker", None)
    return worker is not None and worker.inline_ir is _inline_ir


install()
