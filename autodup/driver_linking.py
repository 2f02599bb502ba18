"""The board driver optimises its own code, then links the game's, already optimised, as it is.

numba finalizes a compiled function by linking in the LLVM modules of the
functions it calls (each already optimised at its own compile) and then running
LLVM's whole optimisation pipeline over the result (``CPUCodeLibrary.finalize``):
for the board driver, which calls the whole game, that is the whole game
optimised once more, 2.9 s of a cold start on its critical path, for code that
comes out as it went in, but for the calls the driver makes, about ten a table
(``docs/performance.md``).

A function marked with :func:`optimised_before_linking` is finalized the other
way round: its own module goes through the same pipeline with its callees
declared, then their optimised modules are linked in. Its calls to the
functions it calls stay calls instead of being inlined; for the board driver they
are per table (a new game, :func:`~autodup.game.table.advance`, the results, the
storage), each game the same code and the same results. ``advance`` (whose calls
are per round), the round's start and the turns are marked too: their callees (the
shop's reroll, the serving order, a turn's start) are compiled on their own, not
inlined by numba, and a cold start no longer optimises the whole game again at each
of these levels, with games as fast (``docs/performance.md``). The outside agents' driver
(:func:`~autodup.game.resumable.advance_tables` and its per-table part) is marked too: its calls are per step.
Every other function finalizes as numba finalizes it: the round's end, marked,
made games 2.8% slower, since LLVM inlines part of the fights into it.

The copies linked in are then the marked function's own (:func:`_make_private_copies`),
and three module passes, cheap beside the whole pipeline, run over the result:
dead-argument elimination, which drops the words a callee never reads from each
of its calls; global optimisation, which gives the copies LLVM's fast calling
convention; and global dead-code elimination, which drops what nothing calls (a
callee's Python wrapper, say). The game's out-of-line calls (the round's start,
turns and end, a reroll, the fights) passed the whole table, about 90 arrays of
seven words each, and dropping the words they never read made a game 15-20%
cheaper (``benchmarks/bench_game.py``); the code of each function is
unchanged, and so is every result. If numba's code library no longer finalizes
as described, nothing is changed.
"""

from __future__ import annotations

import hashlib

import llvmlite.binding as llvm
from numba.core import codegen, itanium_mangler
from numba.core.compiler_lock import require_global_compiler_lock

__all__ = ["optimised_before_linking", "install", "installed", "mangled_prefix", "copy_suffix", "COPY_SUFFIX"]

_library = getattr(codegen, "CPUCodeLibrary", None)
_numbas_finalize = getattr(_library, "finalize", None)
_marked: set = set()  # numba's mangled-name prefixes of the marked functions
COPY_SUFFIX = ".driver"  # starts what is appended to the name of each callee's copy in a marked function's code
# What runs over a marked function's code once its callees are linked in (llvmlite's add_<name>_pass).
_MODULE_PASSES = ("dead_arg_elimination", "global_opt", "global_dead_code_eliminate")
_COPY_LINKAGES = (llvm.Linkage.linkonce_odr, llvm.Linkage.weak_odr)  # numba's linked-in copies


def mangled_prefix(python_function) -> str:
    """The start of numba's mangled name of every compiled version of ``python_function`` (its ABI tags follow)."""
    nested = itanium_mangler.mangle_identifier(f"{python_function.__module__}.{python_function.__qualname__}")
    return "_Z" + nested[:-1] if nested.startswith("N") else "_Z" + nested


def optimised_before_linking(dispatcher):
    """Mark a numba dispatcher's function to be finalized as described above; returns the dispatcher."""
    _marked.add(mangled_prefix(dispatcher.py_func))
    return dispatcher


def _marked_name(library):
    """The name of the marked function ``library`` compiles (in its own module, before anything is linked in), or
    None if it compiles none."""
    for function in library._final_module.functions:
        if not function.is_declaration:
            name = function.name
            for prefix in _marked:  # then the ABI tags or the end: not a longer name that starts alike
                if name.startswith(prefix) and name[len(prefix):len(prefix) + 1] in ("B", "E"):
                    return name
    return None


def copy_suffix(marked_name: str) -> str:
    """What :func:`_make_private_copies` appends to the names of the copies in the code of the marked function
    ``marked_name`` (numba's mangled name of one compiled version): :data:`COPY_SUFFIX` and a hash of that name,
    so that two marked functions' copies, or two versions', never share a name."""
    return f"{COPY_SUFFIX}.{hashlib.blake2b(marked_name.encode(), digest_size=4).hexdigest()}"


def _make_private_copies(module, suffix: str) -> None:
    """Make every function ``module`` defines for its linked-in callees (numba's ``linkonce_odr`` copies) internal to
    it, under a name of its own (``suffix`` appended; see :func:`copy_suffix`).

    Internal, LLVM may drop the arguments a copy never reads and call it with its own convention: numba passes
    each array as seven words (its meminfo, parent, size, item size, data, shape and strides) and the table as
    about 90 arrays, which every out-of-line call of the game pushed onto the stack. Renamed, the JIT engine's
    linker cannot take a copy, its arguments cut, for the definition of another module's function of the same
    name: it did, without the suffix, and a later caller of ``engine_draw_hierarchical`` crashed. Functions of
    another linkage (the marked function's own, external; anything numba would link otherwise) are left as they
    are.
    """
    for function in module.functions:
        if not function.is_declaration and function.linkage in _COPY_LINKAGES:
            function.linkage = llvm.Linkage.internal
            function.name = function.name + suffix


def _finalize(self):
    """numba's ``CPUCodeLibrary.finalize``; a marked function's own code is optimised before its callees link in."""
    marked_name = _marked_name(self)
    if marked_name is None:
        return _numbas_finalize(self)
    require_global_compiler_lock()
    self._codegen._check_llvm_bugs()
    self._raise_if_finalized()
    self._optimize_final_module()  # the function's own module, its callees declared
    seen = set()
    for library in self._linking_libraries:
        if library not in seen:
            self._reload_init.update(library._reload_init)
            seen.add(library)
            self._final_module.link_in(library._get_module_for_linking(), preserve=True)
    _make_private_copies(self._final_module, copy_suffix(marked_name))
    passes = llvm.create_new_module_pass_manager()
    for name in _MODULE_PASSES:
        getattr(passes, f"add_{name}_pass")()
    passes.run(self._final_module, llvm.create_pass_builder(self._codegen._tm, llvm.create_pipeline_tuning_options()))
    self._final_module.verify()
    self._finalize_final_module()


def _numbas_is_the_one_replaced() -> bool:
    """Whether numba's ``finalize`` links the callees then optimises the whole, as numba 0.59 on does."""
    code = getattr(_numbas_finalize, "__code__", None)
    return (code is not None and {"_linking_libraries", "_get_module_for_linking", "_optimize_final_module",
                                  "_finalize_final_module", "link_in"} <= set(code.co_names)
            and hasattr(llvm, "create_new_module_pass_manager")
            and all(hasattr(llvm.create_new_module_pass_manager(), f"add_{name}_pass") for name in _MODULE_PASSES))


def install() -> None:
    """Finalize marked functions this way from now on (idempotent); nothing changes under a numba that differs."""
    if _numbas_is_the_one_replaced():
        _library.finalize = _finalize


def installed() -> bool:
    """Whether :func:`install` is in effect."""
    return _library is not None and _library.finalize is _finalize


install()
