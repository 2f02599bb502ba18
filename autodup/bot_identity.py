"""What names a bot's compiled code in the cache: its file's content, its own modules' and the values its code
freezes (see :mod:`autodup.compile_cache`, whose locator names a bot's folder by them).

A bot file is loaded as a module named by its content (:func:`bot_module_name`), not its path, so a copy of it
elsewhere loads the same compiled code. Compiled code inlines the helpers it calls from the bot's own modules
(:func:`user_modules`, hashed by :func:`modules_digest`), and numba freezes the value of every global it reads as
it was when it compiled (:func:`frozen_form`): what the file computed when it loaded (:func:`load_time_digest`).
"""

from __future__ import annotations

import enum
import hashlib
import os
import sys
import sysconfig
import types
from pathlib import Path

import numpy as np

__all__ = ["BOT_MODULE_PREFIX", "bot_module_name", "user_modules", "modules_digest", "frozen_form", "load_time_values",
           "load_time_digest"]

BOT_MODULE_PREFIX = "autodup_bot_"
PACKAGE_DIR = Path(__file__).resolve().parent


def bot_module_name(path: Path) -> str:
    """The module name a bot file is loaded under: its stem and a hash of its content (not of its path)."""
    digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]
    stem = "".join(c if c.isalnum() else "_" for c in Path(path).stem)
    return f"{BOT_MODULE_PREFIX}{stem}_{digest}"


def _installed_roots() -> tuple:
    paths = sysconfig.get_paths()
    return tuple({str(Path(paths[key]).resolve()) for key in ("stdlib", "platstdlib", "purelib", "platlib")
                  if key in paths} | {str(PACKAGE_DIR)})


def user_modules(namespace: dict) -> list:
    """Source files of the modules a bot's code can reach through ``namespace`` (its globals), transitively,
    that are neither the standard library, installed packages nor autodup: a bot's own helper modules.

    Compiled code inlines what it calls, so an edit of one of these files must recompile the bot.
    """
    modules = _user_module_objects(namespace)
    return [Path(modules[name].__file__).resolve() for name in sorted(modules)]


def _user_module_objects(namespace: dict) -> dict:
    """``{name: module}`` of :func:`user_modules`."""
    roots = tuple(root + os.sep for root in _installed_roots())
    found, seen, pending = {}, set(), [namespace]
    while pending:
        for value in list(pending.pop().values()):
            if isinstance(value, types.ModuleType):
                module = value
            else:
                inner = getattr(value, "py_func", value)  # a jitted function's Python function
                module = sys.modules.get(getattr(inner, "__module__", None) or "")
            file = getattr(module, "__file__", None)
            if module is None or file is None or id(module) in seen:
                continue
            seen.add(id(module))
            path = Path(file).resolve()
            if path.suffix != ".py" or str(path).startswith(roots) or module.__name__.startswith(BOT_MODULE_PREFIX):
                continue
            found[module.__name__] = module
            pending.append(vars(module))
    return found


def modules_digest(namespace: dict) -> str:
    """A hash of the content of :func:`user_modules` (by module name, not path); '' when there are none."""
    files = user_modules(namespace)
    if not files:
        return ""
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.stem.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


# Nesting followed into a global's tuples, lists and dicts; deeper values are told apart by their type alone.
_FROZEN_DEPTH = 8


def frozen_form(value, depth: int = 0) -> bytes | None:
    """The bytes of what compiled code keeps of a global ``value``: numba freezes a global number, string, enum,
    array or tuple into the code that reads it, when it compiles. None for what it links instead (a function, a
    module, a class) or cannot use: those are code, which the bot's fingerprint covers."""
    if isinstance(value, enum.Enum):
        return f"{type(value).__module__}.{type(value).__qualname__}.{value.name}={value.value!r}".encode()
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
        return f"{type(value).__name__}:{value!r}".encode()
    if isinstance(value, np.generic):
        return value.dtype.str.encode() + b":" + value.tobytes()
    if isinstance(value, np.ndarray):
        if value.dtype.hasobject:
            return None
        return f"{value.dtype.str}{value.shape}:".encode() + np.ascontiguousarray(value).tobytes()
    if isinstance(value, (tuple, list, dict)):
        if depth >= _FROZEN_DEPTH:
            return type(value).__name__.encode()
        items = value.items() if isinstance(value, dict) else enumerate(value)
        parts = ((frozen_form(key, depth + 1) or b"-") + b"=" + (frozen_form(item, depth + 1) or b"-")
                 for key, item in items)
        return type(value).__name__.encode() + b"(" + b",".join(parts) + b")"
    return None


def load_time_values(namespace: dict) -> dict:
    """``{name: SHA-256}`` of each global of ``namespace`` (a bot module's) that compiled code would freeze
    (:func:`frozen_form`), and of those of its own modules it imports (:func:`user_modules`, as
    ``module.name``). Double-underscore names (``__file__``, ...) are the module's, not the bot's."""
    spaces = [("", namespace)] + [(f"{name}.", vars(module)) for name, module in
                                  sorted(_user_module_objects(namespace).items())]
    values = {}
    for prefix, space in spaces:
        for name, value in list(space.items()):
            form = None if name.startswith("__") else frozen_form(value)
            if form is not None:
                values[prefix + name] = hashlib.sha256(form).hexdigest()
    return values


def load_time_digest(namespace: dict) -> str:
    """A hash of :func:`load_time_values`: what a bot's file computed when it loaded, compiled into its policy.

    A bot's compiled code is cached under it as well as under the file's content, so a value the file reads
    when it loads (a data file beside it, an environment variable) compiles the policy afresh when it changes,
    instead of playing the value of the first compile."""
    digest = hashlib.sha256()
    for name, value in sorted(load_time_values(namespace).items()):
        digest.update(f"{name}={value}\0".encode())
    return digest.hexdigest()[:16]
