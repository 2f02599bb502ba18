"""The package's kernels read a named tuple's field alone, not the whole tuple, and store without a dead load.

The game's kernels pass two named tuples everywhere: the rules (23 arrays) and
the table (57 arrays), each array a record of 7-9 machine words. numba keeps a
variable in a stack slot and lowers ``table.gold`` as a load of the whole tuple,
hundreds of words, then the extraction of one field; and each store into a
variable's slot first loads the old value, to release it, even where there is
nothing to release (a function compiled without numba's runtime, as the turn,
the shop and the round's end are, or a value with no array in it). LLVM's SROA
pass splits each whole load into one load per word before it can drop the
words nobody uses. Where the turn's helpers are inlined,
each with its own copies of the two tuples, that is most of a cold start's
per-function optimisation: ``play_turns`` took 14.5 s of it, SROA 10 s, for
a function that ends up a few thousand instructions (measured with numba's
LLVM pass timings; ``docs/performance.md``).

:func:`install` wraps two methods of numba's lowering (``numba.core.lowering.Lower``)
so that, in the functions of this package only (:func:`autodup.nonnegative_indices.is_package_function`):

* reading a field of a named tuple held in a stack slot loads that field from
  the slot (an address computation and one load), not the whole tuple;
* storing into a stack slot skips the load of the old value when nothing in the
  value's type is counted by numba's runtime (it *contains* no meminfo: no
  array, nor a tuple holding one), or the function is compiled without the
  runtime. A variable holding an array in a function with the runtime keeps
  numba's store, which releases the array it held.

The code computes the same values: the field loaded is the one the whole load's
extraction would have given, and the skipped load had no use. A bot's policy,
and a user's own numba code in the same process, are compiled as numba compiles
them. If numba's ``Lower`` no longer has what these wrappers use (a numba this
package was not tested with), nothing is changed: the kernels compile as before,
only more slowly.
"""

from __future__ import annotations

from numba.core import cgutils, types
from numba.core.imputils import impl_ret_borrowed
from numba.core.lowering import Lower

from .nonnegative_indices import is_package_function

__all__ = ["install", "installed"]

_numba_lower_expr = getattr(Lower, "lower_expr", None)
_numba_storevar = getattr(Lower, "storevar", None)
# What the wrappers read of a Lower; without one of them they step aside.
_LOWER_STATE = ("fndesc", "varmap", "_blk_local_varmap", "_singly_assigned_vars", "_disable_sroa_like_opt")


def _ours(lower) -> bool:
    """Whether ``lower`` (a numba ``Lower``) compiles a function of this package, with the state the wrappers use."""
    return all(hasattr(lower, name) for name in _LOWER_STATE) and is_package_function(lower.fndesc.mangled_name)


def _lower_expr(self, resty, expr):
    """numba's ``Lower.lower_expr``; a named tuple's field read from the tuple's stack slot, in the package."""
    if expr.op == "getattr" and not isinstance(resty, types.BoundFunction) and _ours(self):
        name = expr.value.name
        tuple_type = self.typeof(name)
        # A variable used within one block has no slot (numba keeps its value): numba's own lowering then.
        if (isinstance(tuple_type, types.BaseNamedTuple) and expr.attr in tuple_type.fields
                and name in self.varmap and name not in self._blk_local_varmap):
            index = tuple_type.fields.index(expr.attr)
            field = self.builder.load(cgutils.gep_inbounds(self.builder, self.varmap[name], 0, index))
            field = impl_ret_borrowed(self.context, self.builder, tuple_type[index], field)
            field_type = self.context.typing_context.resolve_getattr(tuple_type, expr.attr)
            return self.context.cast(self.builder, field, field_type, resty)
    return _numba_lower_expr(self, resty, expr)


def _storevar(self, value, name, argidx=None):
    """numba's ``Lower.storevar``, without loading the old value when there is nothing to release, in the package."""
    if argidx is None and _ours(self) and not self._disable_sroa_like_opt and name not in self._singly_assigned_vars:
        variable_type = self.typeof(name)
        if not (self.context.enable_nrt and self.context.data_model_manager[variable_type].contains_nrt_meminfo()):
            self._alloca_var(name, variable_type)
            slot = self.getvar(name)
            if value.type == slot.type.pointee:  # else numba's own path, which reports the mismatch
                self.builder.store(value, slot)
                return
    _numba_storevar(self, value, name, argidx)


def install() -> None:
    """Lower the package's functions this way from now on (idempotent)."""
    if _numba_lower_expr is not None and _numba_storevar is not None:
        Lower.lower_expr = _lower_expr
        Lower.storevar = _storevar


def installed() -> bool:
    """Whether :func:`install` is in effect."""
    return Lower.lower_expr is _lower_expr and Lower.storevar is _storevar


install()
