"""New arrays in compiled code without compiling numba's array constructors: :func:`filled`.

numba implements ``np.zeros``, ``np.full``, ``np.ones`` and ``np.zeros_like``
as overloads: each (shape type, dtype) a call site uses is a function of its
own, typed, lowered, optimised by LLVM and wrapped, and ``np.zeros`` calls
``np.empty`` and a fill, each compiled likewise. The game's state (about 110
arrays in the table, the desk and the game) used about 50 such functions, at
0.05-0.25 s each. :func:`filled` is an intrinsic: its code (numba's own
allocation, then a loop that stores the value) is emitted into the caller,
with nothing to compile apart. Compiling a new game took 6.0-6.4 s with
numpy's constructors and takes 3.8-4.1 s with it (one process, alone); in a
cold start, 7.2 s and 4.3-4.8 s (``docs/performance.md``).
"""

from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.core.imputils import impl_ret_new_ref
from numba.extending import intrinsic
from numba.np.arrayobj import _empty_nd_impl

__all__ = ["filled"]


def _dimensions(shape) -> int | None:
    """How many dimensions an array of ``shape``'s numba type has (an integer or a tuple of them), else None."""
    if isinstance(shape, types.Integer):
        return 1
    if isinstance(shape, types.BaseTuple) and all(isinstance(size, types.Integer) for size in shape):
        return len(shape)
    return None


@intrinsic
def filled(typingctx, shape, value, dtype):
    """A new C-contiguous array of ``shape`` whose every item is ``value`` (cast to ``dtype``), in compiled code.

    ``np.full(shape, value, dtype=dtype)``, emitted into the caller (see the
    module's docstring). Compiled code only: numba refuses a call from
    Python.

    Parameters
    ----------
    shape : int or tuple of int
        Each size at least 0 (``ValueError`` otherwise).
    value : number or bool
        Representable in ``dtype`` (not checked: -1 in an unsigned type wraps, where numpy raises).
    dtype : a numpy scalar type (``np.int64``) or an array's ``.dtype``

    Returns
    -------
    dtype (*shape,), C-contiguous
    """
    dimensions = _dimensions(shape)
    if dimensions is None or not isinstance(dtype, (types.NumberClass, types.DTypeSpec)) or not isinstance(
            value, (types.Number, types.Boolean)):
        return None
    element = dtype.dtype
    array_type = types.Array(element, dimensions, "C")

    def codegen(context, builder, signature, arguments):
        shape_type, value_type, _ = signature.args
        shape_value, fill_value, _ = arguments
        if isinstance(shape_type, types.Integer):
            sizes = [context.cast(builder, shape_value, shape_type, types.intp)]
        else:
            sizes = [context.cast(builder, size, size_type, types.intp)
                     for size, size_type in zip(cgutils.unpack_tuple(builder, shape_value), shape_type)]
        zero = context.get_constant(types.intp, 0)
        for size in sizes:
            with builder.if_then(builder.icmp_signed("<", size, zero), likely=False):
                context.call_conv.return_user_exc(builder, ValueError, ("filled: negative dimensions not allowed",))
        array = _empty_nd_impl(context, builder, array_type, sizes)
        item = context.get_value_as_data(builder, element, context.cast(builder, fill_value, value_type, element))
        with cgutils.for_range(builder, array.nitems) as loop:
            builder.store(item, builder.gep(array.data, [loop.index]))
        return impl_ret_new_ref(context, builder, array_type, array._getvalue())

    return array_type(shape, value, dtype), codegen
