"""Where numba keeps autodup's compiled code: one folder per version of the package's code.

numba's own cache checks only the source file of each function. A kernel in
``tournament.py`` that inlines or calls functions of ``game.py`` stayed cached
after ``game.py`` changed and went on playing the old rule, while ``autodup
play`` (compiled from ``game.py`` itself) played the new one. Here every
function of the package, and every bot's policy, is cached under::

    <cache root>/<code fingerprint>/autodup/         the package's kernels
    <cache root>/<code fingerprint>/bots/<module>/   a bot's policy; <module> names its file's content,
                                                     that of its own modules it imports, and the values
                                                     its code freezes as the file computed them
                                                     (:mod:`autodup.bot_identity`)

The fingerprint is a hash of the source files compiled code can depend on
(:func:`compiled_modules`: every module that uses numba, and what those import),
so any edit of them compiles afresh, and identical code (a copied checkout, a
clean clone, an installed wheel) finds its cache wherever it lives. A bot's folder is
named by the hash of the bot file's content, not its path, so a bot copied to
another folder loads the same cache.

A module of :data:`SELF_STAMPED` (the measures, the roll odds, the shuffle lab: jitted, but no game code
imports it) is left out of the fingerprint; its functions are stamped with the
fingerprint and their own file's hash instead, so editing it recompiles its
kernels only, not the game.

A cached entry that cannot be loaded (written by another numba, damaged) is
compiled again and overwritten, for the package's functions and for bots.

Each version of a package function, and each bot, is compiled once across processes: a
process claims it before compiling it (a file beside numba's index, holding
its pid and start time), and another that needs it meanwhile waits for the claim to go and
loads it (see :func:`_load_or_claim`). A cold start's two processes each
reach functions the other compiles, and without it compiled them a second
time whenever they got there first (2-3 s each time); they also share the
shipped bots (:func:`autodup.tournament.loading.bot_infos_in_worker`).

The cache root is ``$AUTODUP_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/autodup``
or ``~/.cache/autodup``; if none of these can be written, a folder in the
system's temporary directory. The folders of the
``KEPT_FINGERPRINTS`` most recently used versions are kept; older ones are
removed when a new version first compiles.

This module must be imported before any jitted function of the package is
defined: :mod:`autodup.engine.rng`, which every jitted module imports, imports it first.
"""

from __future__ import annotations

import ast
import atexit
import contextlib
import functools
import hashlib
import os
import shutil
import tempfile
import time
from pathlib import Path

from numba.core.caching import Cache, CacheImpl, _CacheLocator
from numba.core.dispatcher import Dispatcher

from .bot_identity import BOT_MODULE_PREFIX, load_time_digest, modules_digest
from .cache_sharing import (
    CLAIM_POLL_SECONDS,
    CLAIM_SECONDS,
    CLAIM_WRITING_SECONDS,
    advisory_lock,
    claim_is_live,
    index_lock,
    process_identity,
    read_back_by_any_process,
)

__all__ = ["compiled_signatures", "is_fingerprinted", "PACKAGE_DIR", "BOT_MODULE_PREFIX", "KEPT_FINGERPRINTS",
           "KEPT_CODE_FINGERPRINT_NOTES", "CLAIM_SECONDS", "CLAIM_POLL_SECONDS", "CLAIM_WRITING_SECONDS",
           "SELF_STAMPED", "is_package_module", "package_sources", "imported_modules", "compiled_modules",
           "code_fingerprint",
           "CODE_FINGERPRINT", "SOURCE_FINGERPRINT", "cache_roots", "cache_folder", "FingerprintCacheLocator",
           "install", "compile_lock", "release_claim"]

PACKAGE_DIR = Path(__file__).resolve().parent
KEPT_FINGERPRINTS = 8


# Jitted modules that no other module of the package imports: their source stamps their own functions
# (see the module docstring). compiled_modules() refuses one that another module imports.
SELF_STAMPED = frozenset({"analysis.measure_kernels", "analysis.coupling", "labs.odds", "labs.odds_simulation",
                          "labs.shuffle_kernels", "labs.shuffle_laws", "labs.shuffles"})


def is_package_module(name: str) -> bool:
    """Whether the dotted module name ``name`` is this package or one of its modules (not ``autodupe``)."""
    return name == "autodup" or name.startswith("autodup.")


def package_sources() -> dict:
    """``{dotted name under autodup: source}`` of every module of the package, subpackages included
    (``"game.shop"``; a package's ``__init__`` is named by the package, ``""`` for autodup's own)."""
    sources = {}
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        parts = path.relative_to(PACKAGE_DIR).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        sources[".".join(parts)] = path.read_text(encoding="utf-8")
    return sources


def _module_path(name: str) -> Path:
    folder = PACKAGE_DIR.joinpath(*name.split(".")) if name else PACKAGE_DIR
    return folder / "__init__.py" if folder.is_dir() else folder.with_suffix(".py")


def imported_modules(name: str, source: str, sources: dict, parse=ast.parse) -> list:
    """The package modules ``name`` imports at its top level, relative (any level) or absolute.

    ``from ..engine import rng`` and ``from .rng import x`` name modules both ways: a submodule when
    the imported name is one, else the module the names come from.
    """
    package = name.split(".") if _module_path(name).name == "__init__.py" else name.split(".")[:-1]
    package = [part for part in package if part]
    found = []
    for node in parse(source).body:  # top-level statements only: jitted code reads module globals
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1] if node.level > 1 else list(package)
                target = base + (node.module.split(".") if node.module else [])
            elif node.module and is_package_module(node.module):
                target = node.module.split(".")[1:]
            else:
                continue
            module = ".".join(target)
            for alias in node.names:
                child = f"{module}.{alias.name}" if module else alias.name
                found.append(child if child in sources else module)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("autodup."):
                    found.append(alias.name[len("autodup."):])
    return [module for module in found if module in sources]


# Where statements nest in other statements (and in an except clause or a match case): an import is a
# statement, so no expression can hold one.
_STATEMENT_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")


def _imports_numba(source: str, parse=ast.parse) -> bool:
    """Whether a module imports numba anywhere (at its top or inside a function, a class, a branch).

    On a cold start the command works this out for every module before its workers start: a source that
    does not name numba is skipped unparsed, and only statements are visited (an expression holds no import):
    about 0.1 s for the whole package, parsing included, where parsing and walking every module took 0.7 s.
    """
    if "numba" not in source:
        return False
    statements = list(parse(source).body)
    while statements:
        node = statements.pop()
        if isinstance(node, ast.Import):
            if any(alias.name.split(".")[0] == "numba" for alias in node.names):
                return True
        elif isinstance(node, ast.ImportFrom):
            if not node.level and (node.module or "").split(".")[0] == "numba":
                return True
        else:
            for field in _STATEMENT_FIELDS:
                statements.extend(getattr(node, field, None) or ())
    return False


def compiled_modules() -> list:
    """The package's source files that compiled code can depend on, sorted.

    Those that use numba, and every package module they import at their top
    level, transitively (jitted code reads only module globals, so a constant
    imported from another module is baked in). A module outside this set, such
    as the configuration reader or the command line, can change without
    invalidating compiled code.
    """
    sources = package_sources()
    parse = functools.cache(ast.parse)  # most modules that import numba are parsed again for their imports
    needed = [name for name, text in sources.items() if _imports_numba(text, parse) and name not in SELF_STAMPED
              and name != "compile_cache"]
    seen = set()
    while needed:
        name = needed.pop()
        if name in seen or name not in sources:
            continue
        seen.add(name)
        needed.extend(imported_modules(name, sources[name], sources, parse))
    if seen & SELF_STAMPED:
        raise RuntimeError(f"autodup.compile_cache: {sorted(seen & SELF_STAMPED)} is imported by compiled code "
                           "and cannot stamp itself; remove it from SELF_STAMPED")
    return sorted(_module_path(name) for name in seen)


def _fingerprint(paths) -> str:
    digest = hashlib.sha256()
    for path in paths:
        name = path.resolve().relative_to(PACKAGE_DIR).as_posix() if path.resolve().is_relative_to(PACKAGE_DIR) \
            else path.name
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def cache_roots() -> list:
    """The folders the cache may live in, in order of preference."""
    roots = []
    if os.environ.get("AUTODUP_CACHE_DIR"):
        text = os.environ["AUTODUP_CACHE_DIR"]
        try:
            roots.append(Path(text).expanduser())
        except RuntimeError:  # "~name/..." of a user the system does not know
            from .errors import UsageError

            raise UsageError(f"AUTODUP_CACHE_DIR={text!r}: its '~' names no home folder this system knows (allowed: "
                             "the folder autodup keeps its compiled code in)") from None
    else:
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        roots.append(Path(base).expanduser() / "autodup")
    roots.append(Path(tempfile.gettempdir()) / f"autodup-cache-{os.getuid() if hasattr(os, 'getuid') else 'user'}")
    return roots


KEPT_CODE_FINGERPRINT_NOTES = 64  # notes of the code fingerprint of a package's sources (see code_fingerprint)


def code_fingerprint(source_fingerprint: str) -> str:
    """The fingerprint of :func:`compiled_modules`, noted in the cache root by the whole package's fingerprint.

    Finding the modules means parsing every module of the package (about half a second, in every process
    autodup starts: a command's workers, each test's command), while hashing the sources takes
    milliseconds. The modules are a function of the sources alone, so the answer is noted under the
    sources' fingerprint (``<cache root>/code-fingerprints/<source fingerprint>``, written whole by a
    rename) and read back. A note that cannot be read or is not a fingerprint is worked out again.
    """
    for root in cache_roots():
        try:
            noted = (root / "code-fingerprints" / source_fingerprint).read_text(encoding="ascii")
        except (OSError, UnicodeDecodeError):
            continue
        if len(noted) == 16 and all(c in "0123456789abcdef" for c in noted):
            return noted
    # Imported here: a module imported at the top would enter the fingerprint of compiled code.
    from .files import write_bytes_atomically

    fingerprint = _fingerprint(compiled_modules())
    for root in cache_roots():
        notes = root / "code-fingerprints"
        try:
            notes.mkdir(parents=True, exist_ok=True)
            write_bytes_atomically(notes / source_fingerprint, fingerprint.encode("ascii"))
        except OSError:
            continue
        try:  # an edited checkout leaves one note a version; keep the newest
            for old in _past_the_newest(notes.iterdir(), KEPT_CODE_FINGERPRINT_NOTES):
                old.unlink(missing_ok=True)
        except OSError:
            pass  # another process may be pruning too
        break
    return fingerprint


def _past_the_newest(paths, kept: int) -> list:
    """``paths`` other than the ``kept`` most recently modified ones (the ones to forget)."""
    return sorted(paths, key=lambda p: p.stat().st_mtime, reverse=True)[kept:]


SOURCE_FINGERPRINT = _fingerprint(sorted(PACKAGE_DIR.rglob("*.py")))  # the whole package: what results depend on
CODE_FINGERPRINT = code_fingerprint(SOURCE_FINGERPRINT)  # what compiled code depends on


def cache_folder() -> Path | None:
    """This version's cache folder (created), or None if no root can be written."""
    for root in cache_roots():
        folder = root / CODE_FINGERPRINT
        try:
            folder.mkdir(parents=True, exist_ok=True)
            tempfile.TemporaryFile(dir=folder).close()
        except OSError:
            continue
        _forget_old_versions(root)
        return folder
    return None


def _forget_old_versions(root: Path) -> None:
    """Keep the KEPT_FINGERPRINTS most recently used versions' folders under ``root``."""
    try:
        os.utime(root / CODE_FINGERPRINT)  # marks this version as used now
        folders = [p for p in root.iterdir() if p.is_dir() and len(p.name) == len(CODE_FINGERPRINT)]
        for old in _past_the_newest(folders, KEPT_FINGERPRINTS):
            shutil.rmtree(old, ignore_errors=True)
    except OSError:
        pass  # another process may be pruning too; a folder left over is harmless


_FOLDER: list = []  # this process's cache folder, found once


def _folder() -> Path | None:
    if not _FOLDER:
        _FOLDER.append(cache_folder())
    return _FOLDER[0]


@contextlib.contextmanager
def compile_lock(waiting=None):
    """Hold this version's compile lock: while one process compiles the game into the cache, another waits.

    Two autodup commands started together on a cold cache (two runs, a test suite's workers) would
    otherwise both compile the whole game, each at half the machine's speed. The lock is an advisory
    ``flock`` on a file of this version's cache folder (:func:`autodup.cache_sharing.advisory_lock`), so the
    system releases it when its holder ends, however it ends. ``waiting()``, if given, is called once when the
    lock is held by another process, before waiting for it. Without a cache folder or ``flock`` (Windows)
    nothing is locked.
    """
    folder = _folder()
    if folder is None:
        yield
        return
    with advisory_lock(folder / ".compiling.lock", waiting):
        yield


def compiled_signatures(function) -> list:
    """The argument types of each version of ``function`` (a jitted function of the package) in this version's
    cache that this process can load, as numba's index of its cache file lists them.

    numba keys each version by the processor it was compiled for too (its target triple, CPU name and
    features): a version compiled under another ``NUMBA_CPU_NAME``, or by another kind of machine sharing
    the cache folder, is in the index but is compiled again here, so it is not counted."""
    cache = getattr(function, "_cache", None)
    if _folder() is None or cache is None or not hasattr(cache, "_cache_file"):
        return []
    this_processor = function.targetctx.codegen().magic_tuple()
    return [key[0] for key in cache._cache_file._load_index() if key[1] == this_processor]


class FingerprintCacheLocator(_CacheLocator):
    """numba cache locator for autodup's functions and bots (see the module docstring).

    The source stamp numba checks is the code fingerprint: the folder already
    depends on it, and a bot's folder on its content as well.
    """

    def __init__(self, py_func, cache_path: Path, stamp: str = CODE_FINGERPRINT):
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = str(cache_path)
        self._stamp = stamp

    def get_cache_path(self):
        return self._cache_path

    def get_source_stamp(self):
        return self._stamp

    def get_disambiguator(self):
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func, py_file):
        module = getattr(py_func, "__module__", None) or ""
        stamp = CODE_FINGERPRINT
        if is_package_module(module):
            if not Path(py_file).resolve().is_relative_to(PACKAGE_DIR):
                return None  # another copy of a module named autodup: numba's own rules apply
            # One folder per module: numba names its index files by file stem and qualified name, which two
            # subpackages' modules could share.
            relative = Path(*module.split("."))
            if module.partition(".")[2] in SELF_STAMPED:
                stamp = f"{CODE_FINGERPRINT}:{_fingerprint([Path(py_file).resolve()])}"
        elif module.startswith(BOT_MODULE_PREFIX):
            # The bot's content is in its module name; the modules it imports and the values its code freezes (as
            # the file computed them when it loaded: this runs at the decorator, below every global it can read)
            # are added here.
            imported = modules_digest(py_func.__globals__)
            values = load_time_digest(py_func.__globals__)
            relative = Path("bots") / "-".join(part for part in (module, imported, values) if part)
        else:
            return None
        folder = _folder()
        if folder is None:
            return None
        self = cls(py_func, folder / relative, stamp)
        try:
            self.ensure_cache_path()
        except OSError:
            return None
        return self


_NUMBA_LOAD_OVERLOAD = Cache.load_overload
_NUMBA_SAVE_OVERLOAD = Cache.save_overload
_NUMBA_COMPILE = Dispatcher.compile

_held_claims = set()


def _load(cache, signature, target_context):
    """numba's ``Cache.load_overload``; for autodup's caches, an entry that cannot be loaded is compiled again.

    A cache file written by another numba, truncated by a full disk or
    damaged otherwise makes numba raise while loading it; for the package's
    kernels, helpers and bots the entry is dropped instead (the function
    compiles and the cache is rewritten).
    """
    try:
        return _NUMBA_LOAD_OVERLOAD(cache, signature, target_context)
    except Exception:
        if not isinstance(getattr(cache._impl, "locator", None), FingerprintCacheLocator):
            raise
        cache.flush()
        return None


def is_fingerprinted(cache) -> bool:
    """Whether numba's ``cache`` (a dispatcher's or a callback's) keeps its entries under the code fingerprint
    (:class:`FingerprintCacheLocator`: the package's functions and bots), so that no edit of the package's code
    can leave a stale entry to load. Other code's cache checks its own file only."""
    return isinstance(getattr(getattr(cache, "_impl", None), "locator", None), FingerprintCacheLocator)


def _claim_path(cache, signature) -> Path | None:
    """The file by which a process claims compiling one version of a package function or a bot (None for other
    code)."""
    if not is_fingerprinted(cache):
        return None
    module = cache._py_func.__module__
    if not (is_package_module(module) or module.startswith(BOT_MODULE_PREFIX)):
        return None
    if os.name == "nt":  # no way here to tell a live process (os.kill(pid, 0) sends Ctrl+C): compile unclaimed
        return None
    digest = hashlib.sha256(str(signature).encode()).hexdigest()[:16]
    return Path(f"{cache._cache_file._index_path}.{digest}.claim")


def _load_or_claim(cache, signature, target_context):
    """Load ``signature`` from the cache; when it is not there, compile it once across processes.

    A cold start compiles the game in two processes (and a run's workers may
    compile beside them), each reaching some functions the other compiles.
    Before compiling a version of a package function or a bot, a process claims it
    (a file beside numba's index, holding its pid and start time); another that
    misses the same version meanwhile waits for the claim to go and loads
    what the first saved, instead of compiling it a second time. The call
    graph has no cycles (a bot's compile may wait for a package function,
    never the reverse), so two processes never wait on each other; a claim
    whose process is gone or that is older than :data:`CLAIM_SECONDS` is
    taken over.
    """
    loaded = _load(cache, signature, target_context)
    claim = None if loaded is not None else _claim_path(cache, signature)
    while claim is not None:
        try:
            handle = os.open(claim, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            while claim_is_live(claim):
                time.sleep(CLAIM_POLL_SECONDS)
            loaded = _load(cache, signature, target_context)
            if loaded is not None:
                return loaded
            with contextlib.suppress(OSError):  # stale (its process gone): take it over
                if claim.exists() and not claim_is_live(claim):
                    claim.unlink()
            time.sleep(CLAIM_POLL_SECONDS)  # should the claim stay (a file that cannot be removed): no busy loop
            continue
        except OSError:
            return None  # a read-only cache: compile without claiming
        with os.fdopen(handle, "w") as file:
            file.write(process_identity(os.getpid()))
        _held_claims.add(claim)
        # Saved by another process between the load above and the claim.
        loaded = _load(cache, signature, target_context)
        if loaded is not None:
            _release(claim)
        return loaded
    return loaded


def _release(claim: Path | None) -> None:
    """Remove this process's ``claim``, unless another process has taken it over since (see :data:`CLAIM_SECONDS`)."""
    if claim is not None and claim in _held_claims:
        _held_claims.discard(claim)
        with contextlib.suppress(OSError):
            if claim.read_text().strip() == process_identity(os.getpid()):
                claim.unlink()


def _save_and_release(cache, signature, data):
    """numba's ``Cache.save_overload`` (under the index's lock, for the package's functions and bots), then the
    claim on compiling it released (see :func:`_load_or_claim`); a version of a function saved for plain argument
    types only (:func:`plain_versions_only`) whose types are not is not saved."""
    try:
        if not read_back_by_any_process(cache, signature):
            return
        with index_lock(cache) if is_fingerprinted(cache) else contextlib.nullcontext():
            _NUMBA_SAVE_OVERLOAD(cache, signature, data)
    finally:
        _release(_claim_path(cache, signature))


def _compile_releasing_claim(dispatcher, signature):
    """numba's ``Dispatcher.compile``; a compile that fails releases its claim (see :func:`_load_or_claim`)."""
    try:
        return _NUMBA_COMPILE(dispatcher, signature)
    except BaseException:
        release_claim(dispatcher._cache, signature)
        raise


def release_claim(cache, signature) -> None:
    """Release this process's claim on compiling ``signature`` into ``cache``, for a compile that ends without
    saving it (it failed, or its code cannot be cached); a saved one releases it (see :func:`_load_or_claim`)."""
    _release(_claim_path(cache, signature))


def _release_all() -> None:
    for claim in list(_held_claims):
        _release(claim)


def install() -> None:
    """Put :class:`FingerprintCacheLocator` first in numba's cache locators, recompile what cannot be loaded, and
    compile each version of a package function once across processes."""
    if FingerprintCacheLocator not in CacheImpl._locator_classes:
        CacheImpl._locator_classes.insert(0, FingerprintCacheLocator)
    Cache.load_overload = _load_or_claim
    Cache.save_overload = _save_and_release
    Dispatcher.compile = _compile_releasing_claim
    atexit.register(_release_all)


install()
