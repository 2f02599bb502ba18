"""Compiling a bot's ``decide`` as a table policy (:func:`policy`): a C callback, checked and explained in one line.

What compiles but cannot work in a table is refused before or after numba compiles it: ``print``, a return
type that is not an integer, a plain Python function called, an allocation, a write into an array the policy
is handed (:func:`explain_compile_error` says each in the README's words).
"""

from __future__ import annotations

import contextlib
import dis
import linecache
import re
from pathlib import Path

from numba.core.caching import NullCache
from numba.core.ccallback import CFunc
from numba.core.compiler_lock import global_compiler_lock

from ..compile_cache import is_fingerprinted, release_claim
from ..errors import PolicyError, first_line, without_colours
from .load_deadline import paused
from .policy_frames import FRAME_SIGNATURE, create_frame_wrapper
from .view import POLICY_SIGNATURE

__all__ = ["ANSWERS_TEXT", "explain_compile_error", "policy"]

ANSWERS_TEXT = "return buy(slot), sell(unit), reroll(), buy_xp(), toggle_lock(), loaded_roll(trait) or end_turn()"
_ALLOCATING = ("zeros", "empty", "ones", "full", "array", "arange", "zeros_like", "empty_like", "ones_like",
               "full_like", "copy", "concatenate", "linspace", "list", "dict", "set")


def explain_compile_error(error: Exception, function) -> str:
    """One line, in the README's words, for why ``function`` (a decide or a helper) does not compile."""
    text = without_colours(str(error))
    name = getattr(function, "__name__", "decide")
    own_file = Path(function.__code__.co_filename).name
    located = [line for file, line in re.findall(r'File "([^"]+)", line (\d+)', text) if Path(file).name == own_file]
    where = f" (line {located[-1]})" if located else ""
    plain = re.search(r"Untyped global name '(\w+)'.*?<class 'function'>", text, re.S)
    if plain:
        return (f"{name} calls {plain.group(1)}(), a plain Python function: decorate it with @helper "
                f"(from autodup.bots){where}")
    if "setitem(readonly array" in text:
        array, line = _written_array(function, located)
        where = f" (line {line})" if line else where
        return (f"{name} writes into {array}{where}: the arrays a policy is given are read-only (the table's own "
                "state); keep what it needs between decisions in memory")
    allocation = re.search(r"Function\(<(?:built-in function|class '|function) ?'?(\w+)", text)
    if "NRT required but not enabled" in text or "reflected list" in text or (
            allocation and allocation.group(1) in _ALLOCATING):
        line = _first_allocation_line(function)
        where = where or (f" (line {line})" if line else "")
        return (f"{name} allocates a list or an array{where}: a policy cannot allocate; keep what it needs "
                "between decisions in memory (MEMORY_SIZE int64 words), and loop over the arrays it is given")
    if "Unsupported constraint encountered: raise" in text:
        # A function's type is inferred from its returns: one that raises on every path has none.
        return (f"{name} raises on every path{where}: it must return an answer ({ANSWERS_TEXT}); a bot that "
                "raises on some decisions is counted (bot_errors), one that always raises cannot be compiled")
    if "maximum recursion depth" in text:
        return (f"{name} cannot be compiled{where}: it or a helper recurses with no path that returns without "
                "recursing again (a function's type is inferred from such a return)")
    # numba names the operation, then on the lines after it the types it was asked for: the part that helps.
    signature = re.search(r"found for signature:\s*>>> ([^\n]+)", text)
    if signature:
        return (f"{name} cannot be compiled{where}: no version of {signature.group(1).strip()} (an operation on "
                "values of types it does not take)")
    return f"{name} cannot be compiled{where}: {first_line(error)}"


def _written_array(function, lines):
    """``(array, line)``: an array assigned into (``a[i] = ...``, ``a[i] += ...``) at one of ``lines`` of
    ``function``'s file, the innermost first; ``("one of its arrays", None)`` if none is."""
    for line in reversed(lines):
        source = linecache.getline(function.__code__.co_filename, int(line))
        target = re.match(r"\s*(\w+)\s*\[.*\]\s*(?:[-+*/%&|^@]|//|\*\*|<<|>>)?=(?!=)", source)
        if target:
            return target.group(1), line
    return "one of its arrays", None


def _first_allocation_line(function):
    """The line of the first list, set or dict display, or call of an allocating numpy function, in ``function``."""
    for instruction in dis.get_instructions(function):
        builds = instruction.opname in ("BUILD_LIST", "BUILD_SET", "BUILD_MAP", "LIST_EXTEND")
        names = instruction.opname in ("LOAD_ATTR", "LOAD_METHOD", "LOAD_GLOBAL") and instruction.argval in _ALLOCATING
        if (builds or names) and instruction.positions and instruction.positions.lineno:
            return instruction.positions.lineno
    return None


# What numba's object code holds for a call it links only at run time (a recursive function).
_UNRESOLVED_SYMBOL = b".numba.unresolved$"


class _PolicyCallback(CFunc):
    """A policy's C callback: checked before it compiles, and cached only if numba can load it back.

    numba cannot reload compiled code that calls a recursive function (self-
    or mutually recursive, in the bot or in a module it imports): linking it
    aborts the process (``LLVM ERROR: Symbol not found: .numba.unresolved$``).
    Such a policy is compiled afresh in each process instead of being saved.
    (A damaged cache entry is compiled again: see :mod:`autodup.compile_cache`.)

    ``decide`` is compiled (and cached) with its arrays' signature,
    ``POLICY_SIGNATURE``; the callback takes a frame that locates them
    (``FRAME_SIGNATURE``, what numba's first-class functions see in ``_sig``;
    see :mod:`autodup.game.policy_frames`).
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._decide_signature, self._sig = self._sig, FRAME_SIGNATURE

    @global_compiler_lock
    def compile(self):
        # Loading claims the compile when the bot is not cached (autodup.compile_cache): a process that needs the
        # same bot meanwhile waits, then loads it. Saving releases the claim; a compile that saves nothing does too.
        result = self._cache.load_overload(self._decide_signature, self._targetdescr.target_context)
        if result is None:
            try:
                result = self._compile_uncached()
            except BaseException:
                release_claim(self._cache, self._decide_signature)
                raise
            _, _, (object_code, *_) = result.library.serialize_using_object_code()
            if _UNRESOLVED_SYMBOL not in object_code:
                self._cache.save_overload(self._decide_signature, result)
            else:
                release_claim(self._cache, self._decide_signature)
        else:
            self._cache_hits += 1
        self._library = result.library
        self._wrapper_name = result.fndesc.llvm_cfunc_wrapper_name
        self._wrapper_address = self._library.get_pointer_to_function(self._wrapper_name)

    def _compile_uncached(self):
        function = self._pyfunc
        _refuse_print(function)
        try:
            with _frame_wrapper_for(self._targetdescr.target_context, function, self._decide_signature):
                result = self._compiler.compile(self._decide_signature.args, self._decide_signature.return_type)
        except PolicyError:
            raise
        except Exception as error:  # numba's typing and lowering errors, said in the README's terms
            _check_returned_type_if_typed(function)  # a text returned fails the cast to int64: say so instead
            raise PolicyError(explain_compile_error(error, function)) from None
        # Read from the compiled code, not typed again alone: typing decide alone typed it a second time, and
        # compiled a bot's own @helper functions (which the callback inlines) as functions of their own.
        returned = _returned_type(result)
        if returned is None:  # no return compiled (a decide that only raises, say): as typed alone, explained
            try:
                returned = _typed_alone(function)
            except Exception as error:
                raise PolicyError(explain_compile_error(error, function)) from None
        _check_returned_type(function, returned)
        return result


@contextlib.contextmanager
def _frame_wrapper_for(context, function, signature):
    """While ``function`` compiles with ``signature``, its C wrapper takes a frame
    (:func:`~autodup.game.policy_frames.create_frame_wrapper`); the functions numba compiles on the way (overloads
    of builtins that ``decide`` calls) keep numba's own. The caller holds numba's compiler lock."""
    numbas_wrapper = context.create_cfunc_wrapper

    def create_wrapper(library, fndesc, env, call_helper):
        if (fndesc.qualname == function.__qualname__ and fndesc.modname == function.__module__
                and tuple(fndesc.argtypes) == tuple(signature.args)):
            return create_frame_wrapper(context, library, fndesc, env, call_helper)
        return numbas_wrapper(library, fndesc, env, call_helper)

    context.create_cfunc_wrapper = create_wrapper
    try:
        yield
    finally:
        del context.create_cfunc_wrapper  # numba's method shows through again


def _refuse_print(function) -> None:
    """Refuse ``print`` in a policy or its helpers of the same module.

    A policy plays in a worker process whose output is discarded, and numba's
    callbacks fail on ``print`` when freshly compiled.
    """
    helpers = [value.py_func for value in function.__globals__.values() if hasattr(value, "py_func")]
    codes = [function.__code__] + [helper.__code__ for helper in helpers if helper.__module__ == function.__module__]
    for code in codes:
        if "print" in code.co_names:
            raise PolicyError(f"{code.co_name} calls print(): a policy plays in a worker process whose output is "
                              "discarded; remove it, and see what a bot does with `autodup play` or `check-bot`")


def _returned_type(result):
    """The type ``decide`` returns as compiled, before the callback casts it to int64 (None if not found).

    numba types each ``return`` as a cast of the value to the declared type;
    the values' types, unified, are what ``decide`` returns. Only ``decide``'s
    own returns remain: an inlined helper's became assignments.
    """
    from numba.core import ir

    annotation = result.type_annotation
    statements = [statement for block in annotation.blocks.values() for statement in block.body]
    returned = {statement.value.name for statement in statements if isinstance(statement, ir.Return)}
    casts = [annotation.typemap[statement.value.value.name] for statement in statements
             if isinstance(statement, ir.Assign) and statement.target.name in returned
             and isinstance(statement.value, ir.Expr) and statement.value.op == "cast"]
    return result.typing_context.unify_types(*casts) if casts else None


def _typed_alone(function):
    """The type ``decide`` returns, typed alone (every helper it calls compiles as a function of its own, a bot's
    own ``@helper`` functions included)."""
    from numba.core import compiler, typed_passes
    from numba.core.registry import cpu_target

    cpu_target.typing_context.refresh()
    cpu_target.target_context.refresh()
    interpreted = compiler.run_frontend(function)
    return typed_passes.type_inference_stage(cpu_target.typing_context, cpu_target.target_context, interpreted,
                                             POLICY_SIGNATURE.args, None).return_type


def _check_returned_type_if_typed(function) -> None:
    """:func:`_check_returned_type` for a ``decide`` that did not compile, if it can be typed alone."""
    try:
        returned = _typed_alone(function)
    except Exception:  # the compile's own error says why
        return
    _check_returned_type(function, returned)


def _check_returned_type(function, returned) -> None:
    """Refuse a return type that is not an integer.

    A C callback casts whatever ``decide`` returns to int64: ``return 2.5``
    would silently become a number that is not an answer.
    """
    from numba.core import types as numba_types

    if not isinstance(returned, numba_types.Integer) or isinstance(returned, numba_types.Boolean):
        raise PolicyError(f"{function.__name__} returns {returned}, not an answer: {ANSWERS_TEXT}")


def policy(function):
    """Compile ``decide`` (of ``POLICY_SIGNATURE``) as a table policy: a C callback that takes a frame.

    A policy runs without the Numba runtime: it may not allocate arrays (keep
    state in ``memory``); functions it calls should be decorated with
    :data:`helper`. Array bounds are checked, so a bot that indexes out of
    range fails that decision (counted in ``bot_errors``, the turn ends)
    instead of corrupting or crashing the table; the checks cost about 1% of a
    game (0.5% with greedy at every seat, 1.5% with the shipped roster), the
    price of containing any bot. The compiled
    code is cached under the package's code fingerprint and the bot file's
    content and of the modules it imports (see :mod:`autodup.compile_cache`),
    unless numba could not load it back (see :class:`_PolicyCallback`); a
    ``decide`` outside a bot file is compiled afresh in each process.

    Raises
    ------
    PolicyError
        ``decide`` returns something that is not an answer, calls an
        undecorated function, allocates, writes into an array it is given
        (all but ``memory`` are read-only), or does not compile (one line).
    """
    callback = _PolicyCallback(function, (POLICY_SIGNATURE.args, POLICY_SIGNATURE.return_type),
                               locals={}, options={"_nrt": False, "boundscheck": True})
    callback.enable_caching()
    if not is_fingerprinted(callback._cache):
        # A decide outside a bot file (a script's, a test's): numba's cache of it checks that file alone, and would
        # load a callback compiled by another version of the package, whose wrapper may take other arguments.
        callback._cache = NullCache()
    with paused():  # compiling is autodup's work, not the bot file's: outside its load deadline
        callback.compile()
    return callback
