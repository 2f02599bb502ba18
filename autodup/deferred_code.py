"""Machine code for the package's kernels only when something runs them.

numba finishes each compiled function by generating its machine code
(``JITCodeLibrary._finalize_specific``: the JIT engine's ``finalize_object``),
even when nothing will ever run that code: a function that compiled code calls
is linked, as LLVM IR, into each caller, which generates the machine code of the
whole again. The game's kernels are levels of such calls (the shop, the turns,
the round's start and end, the resumable :func:`~autodup.game.table.advance`,
the board driver), and a cold start generated the whole game's machine code at
each level: ``advance`` alone took 1.7 s of it, for code only the board driver
runs, from its own copy (``docs/performance.md``).

:func:`install` leaves the machine code of a library of this package's functions
(every function it defines for callers is one of ``autodup``'s) to be generated
when something asks for the address of a function it defines: numba does so
for a function Python calls (its Python wrapper) or a C callback. A kernel
compiled without a Python wrapper (:mod:`autodup.internal_kernels`) that only
compiled code calls never has its machine code generated; its callers link its
IR as before. (A function compiled with numba's C wrapper defines one, whose
name is not the package's: its library is compiled as numba compiles it; the
package's kernels are compiled without it.) Such a library is cached as its
optimised IR, under a serialization kind of its own (:data:`DEFERRED_KIND`),
which a numba without this module refuses to load (:mod:`autodup.compile_cache`
then compiles it again). Its callers link the same optimised IR, as it is
before machine code is generated (numba's code generation rewrites a few
intrinsics of the module it compiles in place, so numba's callers link that
form): the same code in meaning, and the 24 fixed runs of
``docs/performance.md`` give the same results to the bit. A recursive call
between two such kernels is resolved at run time through a module that defines
its target, so a library that makes one is not deferred.

A function's environment pointer (numba's ``NumbaEnv`` global, which compiled
code reads when it needs Python objects; a library that raises an exception
carrying values defines a helper whose name is not the package's, so it is not
deferred) is set in every module whose machine code defines it, so a
caller's copy gets it where numba would have pointed the copy at the callee's
own. Another package's code, and numba's own, compile as numba compiles them. If
numba's code library no longer has what this module replaces, nothing is changed.
"""

from __future__ import annotations

import weakref

import llvmlite.binding as llvm
from numba.core import codegen
from numba.core.compiler_lock import global_compiler_lock

__all__ = ["DEFERRED_KIND", "install", "installed", "is_deferred", "generate_machine_code"]

DEFERRED_KIND = "autodup-deferred-ir"  # a cached library: its optimised IR, machine code not yet generated

_library = getattr(codegen, "CPUCodeLibrary", None)
_jit_library = getattr(codegen, "JITCodeLibrary", None)
_jit_codegen = getattr(codegen, "JITCPUCodegen", None)
_replaced = ("_finalize_final_module", "serialize_using_object_code", "_unserialize", "_get_compiled_object")
_numbas = {name: getattr(_library, name, None) for name in _replaced}
_numbas_pointer = getattr(_jit_library, "get_pointer_to_function", None)
_numbas_set_env = getattr(_jit_codegen, "set_env", None)
_PACKAGE_PREFIXES = ("_ZN7autodup", "_ZN7cpython7autodup")  # numba's mangled names of autodup's functions
_UNRESOLVED_PREFIX = getattr(getattr(codegen, "RuntimeLinker", None), "PREFIX", ".numba.unresolved$")
_environments: dict = {}  # an environment's global name -> the environment, when no machine code defined it


def _deferrable(module) -> bool:
    """Whether ``module``'s machine code can wait: every function it defines for callers (external linkage) is one
    of ``autodup``'s, and it resolves no symbol at run time (numba's ``.numba.unresolved$`` pointers of a recursive
    call, which are filled in when a module that defines the target enters the JIT engine)."""
    for variable in module.global_variables:
        if variable.name.startswith(_UNRESOLVED_PREFIX):
            return False
    found = False
    for function in module.functions:
        if not function.is_declaration and function.linkage == llvm.Linkage.external:
            if not function.name.startswith(_PACKAGE_PREFIXES):
                return False
            found = True
    return found


def is_deferred(library) -> bool:
    """Whether ``library`` (a numba code library) has its machine code still to generate."""
    return getattr(library, "_autodup_deferred", False)


def _set_environments(library) -> None:
    """Point the environment globals ``library``'s newly generated code defines at their environments."""
    if not _environments:
        return
    for variable in library._final_module.global_variables:
        environment = _environments.get(variable.name)
        if environment is not None and not variable.is_declaration:
            _set_env(library._codegen, variable.name, environment)


def _finalize_final_module(self):
    """numba's ``_finalize_final_module``; for a library of the package's, without generating its machine code."""
    if (not isinstance(self, _jit_library) or getattr(self, "_compiled_object", None)
            or not _deferrable(self._final_module)):
        _numbas["_finalize_final_module"](self)
        _set_environments(self)
        return
    self._finalize_dynamic_globals()
    self._verify_declare_only_symbols()
    # numba's object-cache hooks find the library from its module (a name-mangled attribute of CPUCodeLibrary)
    setattr(self._final_module, "_CPUCodeLibrary__library", weakref.proxy(self))
    self._autodup_deferred = True
    self._finalized = True


def generate_machine_code(library) -> None:
    """Generate ``library``'s machine code now (as numba's finalization would have), if it was deferred.

    Under numba's compiler lock, which another thread asking for one of its functions waits for; the library
    stops being deferred once its module is in the JIT engine, so that nothing adds it twice.
    """
    with global_compiler_lock:
        if not is_deferred(library):
            return
        cleanup = library._codegen._add_module(library._final_module)
        library._autodup_deferred = False
        if cleanup:
            weakref.finalize(library, cleanup)
        library._finalize_specific()
        _set_environments(library)


def _get_pointer_to_function(self, name):
    """numba's ``get_pointer_to_function``: a deferred library generates its code if it defines ``name``."""
    self._ensure_finalized()
    with global_compiler_lock:
        if is_deferred(self):
            try:
                defined = not self._final_module.get_function(name).is_declaration
            except NameError:
                defined = False
            if not defined:
                return 0
            generate_machine_code(self)
    return _numbas_pointer(self, name)


def _get_compiled_object(self):
    """numba's ``_get_compiled_object``, generating a deferred library's code first."""
    generate_machine_code(self)
    return _numbas["_get_compiled_object"](self)


def _serialize_using_object_code(self):
    """numba's cache form of a library; a deferred one is its optimised IR (:data:`DEFERRED_KIND`)."""
    self._ensure_finalized()
    if is_deferred(self):
        return (self.name, DEFERRED_KIND, self._final_module.as_bitcode())
    return _numbas["serialize_using_object_code"](self)


def _unserialize(cls, codegen_, state):
    """numba's ``_unserialize``; a :data:`DEFERRED_KIND` library is its IR again, its code deferred."""
    name, kind, data = state
    if kind != DEFERRED_KIND:
        return _numbas["_unserialize"].__func__(cls, codegen_, state)
    self = codegen_.create_library(name)
    self.enable_object_caching()  # as numba's own entries load: machine code generated later is kept
    self._final_module = llvm.parse_bitcode(data)
    self._finalize_final_module()
    return self


def _set_env(self, env_name, env):
    """numba's ``set_env``; an environment no machine code defines yet waits for the first module that does."""
    if self._engine.get_global_value_address(env_name) == 0:
        _environments[env_name] = env  # kept: each module that defines a copy gets it (_set_environments)
        return
    _numbas_set_env(self, env_name, env)


def _numbas_are_the_ones_replaced() -> bool:
    """Whether numba's code library has the methods replaced, as numba 0.59 on has them."""
    if None in (_jit_library, _jit_codegen, _numbas_pointer, _numbas_set_env) or None in _numbas.values():
        return False
    finalize = getattr(_numbas["_finalize_final_module"], "__code__", None)
    unserialize = getattr(getattr(_numbas["_unserialize"], "__func__", None), "__code__", None)
    return (finalize is not None and unserialize is not None
            and {"_add_module", "_finalize_specific"} <= set(finalize.co_names)
            and {"_set_compiled_object", "_shared_module"} <= set(unserialize.co_names))


def install() -> None:
    """Defer the package's machine code from now on (idempotent); nothing changes under a numba that differs."""
    if not _numbas_are_the_ones_replaced():
        return
    _library._finalize_final_module = _finalize_final_module
    _library.serialize_using_object_code = _serialize_using_object_code
    _library._unserialize = classmethod(_unserialize)
    _library._get_compiled_object = _get_compiled_object
    _jit_library.get_pointer_to_function = _get_pointer_to_function
    _jit_codegen.set_env = _set_env


def installed() -> bool:
    """Whether :func:`install` is in effect."""
    return _jit_library is not None and _jit_library.get_pointer_to_function is _get_pointer_to_function


install()
