"""How the table calls a policy: with one pointer, to a frame of words that locate the arrays it is handed.

A policy's ``decide`` takes ten arrays (``POLICY_SIGNATURE``). Called through
a C callback of that signature, each array crossed as its seven-word struct
(meminfo, parent, size, item size, data, shape, strides): about 75 words
that the table pushed, the callback's C wrapper read and pushed again for
``decide``'s own function, which it calls without inlining: 52-54 ns a call
of a policy that reads three arrays, against 4.8-6.3 ns through a frame
(``benchmarks/bench_policy_call.py``).

So the table writes, per seat, a frame of ``FRAME_WORDS`` int64 words: for
each array of ``POLICY_SIGNATURE``, in order, the address of its data and its
shape (the arrays are C-contiguous, so the strides follow). A policy's callback
(``FRAME_SIGNATURE``: one ``int64*``) rebuilds the arrays from the frame and
runs ``decide`` inlined into it (:func:`create_frame_wrapper`). ``decide`` is
compiled and typed as before, every array but ``memory`` read-only, so a bot
is written, checked and cached as before.
"""

from __future__ import annotations

import llvmlite.binding as llvm
from llvmlite import ir
from numba import types
from numba.core.errors import TypingError
from numba.extending import intrinsic
from numba.np.arrayobj import populate_array

from .rules import game_inline
from .view import POLICY_SIGNATURE

__all__ = ["FRAME_SIGNATURE", "FRAME_OFFSETS", "FRAME_WORDS", "address_of", "frame_pointer", "fill_frame",
           "create_frame_wrapper"]

FRAME_SIGNATURE = types.int64(types.CPointer(types.int64))


def _layout(argument_types):
    """``(offsets, words)``: where each array's words start in a frame, and how many words a frame has."""
    offsets, offset = [], 0
    for array_type in argument_types:
        offsets.append(offset)
        offset += 1 + array_type.ndim  # the data's address, then the shape
    return tuple(offsets), offset


FRAME_OFFSETS, FRAME_WORDS = _layout(POLICY_SIGNATURE.args)


@intrinsic
def address_of(typingctx, array):
    """The address of a C-contiguous array's data, as an int64 (another layout does not compile: a frame has no
    strides)."""
    if not isinstance(array, types.Array) or array.layout != "C":
        raise TypingError(f"a policy's frame locates C-contiguous arrays only, not {array}")

    def codegen(context, builder, signature, args):
        data = context.make_array(array)(context, builder, value=args[0]).data
        return builder.ptrtoint(data, ir.IntType(64))
    return types.int64(array), codegen


@intrinsic
def frame_pointer(typingctx, frame):
    """A pointer to a frame's first word (``frame``: int64 (FRAME_WORDS,), C-contiguous), what a policy takes."""
    if not isinstance(frame, types.Array) or frame.dtype != types.int64 or frame.layout != "C":
        raise TypingError(f"a policy's frame is a C-contiguous int64 array, not {frame}")

    def codegen(context, builder, signature, args):
        return context.make_array(frame)(context, builder, value=args[0]).data
    return types.CPointer(types.int64)(frame), codegen


@game_inline
def _put_1d(frame, offset, array):
    frame[offset] = address_of(array)
    frame[offset + 1] = array.shape[0]


@game_inline
def _put_2d(frame, offset, array):
    frame[offset] = address_of(array)
    frame[offset + 1] = array.shape[0]
    frame[offset + 2] = array.shape[1]


@game_inline
def fill_frame(frame, me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints,
               params, memory):
    """Write the frame (int64 (FRAME_WORDS,)) of a call of a policy with these arrays (POLICY_SIGNATURE's, each
    C-contiguous)."""
    _put_1d(frame, FRAME_OFFSETS[0], me)
    _put_1d(frame, FRAME_OFFSETS[1], shop)
    _put_1d(frame, FRAME_OFFSETS[2], unit_champion)
    _put_1d(frame, FRAME_OFFSETS[3], unit_star)
    _put_1d(frame, FRAME_OFFSETS[4], pool)
    _put_1d(frame, FRAME_OFFSETS[5], champion_cost)
    _put_2d(frame, FRAME_OFFSETS[6], champion_traits)
    _put_2d(frame, FRAME_OFFSETS[7], trait_breakpoints)
    _put_1d(frame, FRAME_OFFSETS[8], params)
    _put_1d(frame, FRAME_OFFSETS[9], memory)


def create_frame_wrapper(context, library, fndesc, env, call_helper):
    """numba's ``create_cfunc_wrapper`` for a policy: its C callback takes a frame (``FRAME_SIGNATURE``).

    The arrays are rebuilt from the frame's words and ``decide``'s compiled
    function is called inlined (numba's own wrapper calls it ``noinline``,
    each array as seven words). An exception raised in ``decide`` is written
    out as numba's wrapper writes it, and the callback returns 0.
    """
    module = context.create_module("cfunc_wrapper")
    callee = ir.Function(module, context.call_conv.get_function_type(fndesc.restype, fndesc.argtypes),
                         fndesc.llvm_func_name)
    word = ir.IntType(64)
    wrapper = ir.Function(module, ir.FunctionType(context.get_value_type(fndesc.restype), [word.as_pointer()]),
                          fndesc.llvm_cfunc_wrapper_name)
    builder = ir.IRBuilder(wrapper.append_basic_block("entry"))
    frame = wrapper.args[0]
    arrays = []
    for array_type, offset in zip(fndesc.argtypes, FRAME_OFFSETS):
        words = [builder.load(builder.gep(frame, [word(offset + k)])) for k in range(1 + array_type.ndim)]
        element = context.get_data_type(array_type.dtype)
        itemsize = context.get_abi_sizeof(element)
        shape = words[1:]
        strides = [word(itemsize)]
        for extent in reversed(shape[1:]):
            strides.insert(0, builder.mul(strides[0], extent))
        array = context.make_array(array_type)(context, builder)
        populate_array(array, data=builder.inttoptr(words[0], element.as_pointer()), shape=shape, strides=strides,
                       itemsize=itemsize, meminfo=None)
        arrays.append(array._getvalue())
    status, out = context.call_conv.call_function(builder, callee, fndesc.restype, fndesc.argtypes, arrays,
                                                  attrs=("alwaysinline",))
    with builder.if_then(status.is_error, likely=False):
        python = context.get_python_api(builder)
        gil = python.gil_ensure()
        context.call_conv.raise_error(builder, python, status)
        text = python.string_from_string(context.insert_const_string(builder.module, repr(context)))
        python.err_write_unraisable(text)
        python.decref(text)
        python.gil_release(gil)
    builder.ret(out)
    library.add_ir_module(module)
    # decide's own function is called only here, inlined: internal, it is dropped once inlined instead of being
    # optimised and compiled to machine code a second time (0.6 s of the shipped bots' compile).
    try:
        library._final_module.get_function(fndesc.llvm_func_name).linkage = llvm.Linkage.internal
    except (AttributeError, NameError):  # another numba: the function stays, as numba left it
        pass
