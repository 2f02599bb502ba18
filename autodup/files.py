"""Files the package writes: atomically (a stopped command leaves no half file), JSON that is always valid,
and the one rule for output folders.

An output folder (``--out``) is a new or empty folder, or one that the same command made before (to finish or
redo its work there): a command marks the folders it makes (:data:`OUTPUT_MARK`), so that ``ab --out`` into a
``quality`` folder, or ``report --out`` into a run folder or someone's own files, is refused before any work
instead of overwriting what is there. Run folders follow the same rule with their manifest as the mark
(:mod:`autodup.tournament.storage`).

Every file autodup writes goes through :func:`replacing`: it is written under a temporary name beside its
final one (``.NAME.PID.tmp``, so two processes never share one) and renamed into place only once whole.
Readers therefore see the old file or the new one, never a part; a temporary file left by a killed process
is recognizable by its name and removed by the next run of the command that makes it.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import stat
import tempfile
from pathlib import Path

from .errors import UsageError

__all__ = ["TEMPORARY_SUFFIX", "OUTPUT_MARK", "replacing", "remove_stale_temporaries", "write_bytes_atomically",
           "write_json_atomically", "json_safe", "can_write_in", "check_output_folder", "make_folder",
           "mark_output_folder", "kind_of_file", "special_file_kind"]

# What a path can be besides a regular file, for messages.
_FILE_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
               (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"))


def kind_of_file(mode: int) -> str:
    """What a file that is not a regular one is, from its ``st_mode``: ``"a FIFO"``, ``"a directory"``, ..."""
    return next((name for test, name in _FILE_KINDS if test(mode)), "a special file")


def special_file_kind(path) -> str | None:
    """What ``path`` is when it exists and is not a regular file (``"a FIFO"``, ``"a directory"``, ...), else None.

    Asked before a file is opened: opening a FIFO waits for a writer, so a command given one would hang.
    """
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    return None if stat.S_ISREG(mode) else kind_of_file(mode)


TEMPORARY_SUFFIX = ".tmp"
# .NAME.PID.tmp[.EXT]: what replacing() names a file while it is written
_TEMPORARY_NAME = re.compile(r"^\..+\.(\d+)" + re.escape(TEMPORARY_SUFFIX) + r"(\.\w+)?$")
OUTPUT_MARK = ".autodup-output.json"  # {"command": NAME}: the command that made the folder, the only one to reuse it


@contextlib.contextmanager
def replacing(path, suffix: str = "", sync: bool = False):
    """Yield a temporary path beside ``path``; once the block has written it, rename it to ``path``.

    Parameters
    ----------
    path : str or os.PathLike
        The final file.
    suffix : str
        Appended to the temporary name, for writers that insist on an extension (``".npz"``).
    sync : bool
        Flush the file to disk before renaming it (what a crash must not lose: a run's chunks).

    The temporary file is removed if the block raises (Ctrl-C included).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> with replacing(folder / "a.txt") as temporary:
    ...     _ = temporary.write_text("whole")
    >>> (folder / "a.txt").read_text(), sorted(p.name for p in folder.iterdir())
    ('whole', ['a.txt'])
    """
    final = Path(path)
    temporary = final.with_name(f".{final.name}.{os.getpid()}{TEMPORARY_SUFFIX}{suffix}")
    try:
        yield temporary
        if sync:
            with open(temporary, "rb") as handle:
                os.fsync(handle.fileno())
        os.replace(temporary, final)
    except BaseException as error:
        with contextlib.suppress(OSError):
            temporary.unlink()
        if isinstance(error, OSError) and error.filename is None and error.errno is not None:
            # A write or fsync that fails (a full disk) names no file; the user needs to know which.
            raise type(error)(error.errno, error.strerror, str(final)) from error
        raise


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    except (OverflowError, ValueError):  # no process can have that number
        return False
    return True


def remove_stale_temporaries(folder) -> list:
    """Remove the temporary files of :func:`replacing` in ``folder`` whose writer is gone; returns their paths.

    A process stopped by Ctrl-C removes its own temporary file; one killed
    (``kill -9``, the machine's power) cannot, so the next command that writes
    into the folder removes what it left. A file whose process (named by the
    PID in its name) still runs is left alone: it may be being written.
    """
    removed = []
    try:
        entries = list(os.scandir(folder))
    except OSError:  # no folder yet: nothing was left there
        return removed
    for entry in entries:
        match = _TEMPORARY_NAME.match(entry.name)
        if match and entry.is_file() and not _alive(int(match.group(1))):
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
                removed.append(Path(entry.path))
    return removed


def write_bytes_atomically(path, data: bytes) -> None:
    """Write ``data`` to ``path`` through :func:`replacing`."""
    with replacing(path) as temporary:
        temporary.write_bytes(data)


def json_safe(value):
    """``value`` with NaN and infinities written as null (JSON has neither), numpy scalars as Python's.

    Examples
    --------
    >>> json_safe({"a": float("nan"), "b": [1.5, float("inf")]})
    {'a': None, 'b': [1.5, None]}
    """
    if isinstance(value, dict):
        return {key: json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(item) for item in value]
    if hasattr(value, "dtype") and getattr(value, "shape", None) == ():  # a numpy scalar
        value = value.item()
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    return value


def write_json_atomically(path, data) -> None:
    """Write ``data`` as indented JSON to ``path`` through :func:`replacing` (pass it through :func:`json_safe` first
    where it may hold NaN)."""
    write_bytes_atomically(path, json.dumps(data, indent=2).encode())


def _maker(path: Path):
    """The command named by the mark of folder ``path`` (None: no mark, or one that does not read)."""
    try:
        mark = json.loads((path / OUTPUT_MARK).read_text())
    except (OSError, ValueError):
        return None
    return mark.get("command") if isinstance(mark, dict) else None


def can_write_in(folder) -> bool:
    """Whether files can be created in ``folder``: its permission bits allow it, and a file made there (and removed
    at once) could be. The bits say yes to root everywhere, and nothing of a read-only mount or of a virtual file
    system such as ``/proc``, where a command would otherwise fail only once its work is done."""
    if not os.access(folder, os.W_OK | os.X_OK):
        return False
    try:
        descriptor, name = tempfile.mkstemp(prefix=".autodup-probe-", dir=folder)
    except OSError:
        return False
    os.close(descriptor)
    with contextlib.suppress(OSError):
        os.unlink(name)
    return True


def check_output_folder(out, command: str | None = None, argument: str = "out") -> None:
    """A :class:`~autodup.errors.UsageError` naming ``argument`` unless ``out`` can be ``command``'s output folder.

    Allowed: a folder that does not exist yet but can be made, an empty folder, or (with ``command``) a folder
    that ``command`` made and marked (:func:`mark_output_folder`); nothing to check if ``out`` is None.
    Without ``command`` only whether it can be written is checked.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.NamedTemporaryFile() as file:
    ...     check_output_folder(file.name)
    Traceback (most recent call last):
    ...
    autodup.errors.UsageError: out: ... is a file, not a folder
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "notes.txt").write_text("mine")
    >>> check_output_folder(folder, "quality")
    Traceback (most recent call last):
    ...
    autodup.errors.UsageError: out: ... is not empty and was not made by autodup quality (allowed: a new or empty folder, or one autodup quality made)
    """
    if out is None:
        return
    if not isinstance(out, (str, os.PathLike)):
        raise UsageError(f"{out!r} is not a path (allowed: a folder, as a str or os.PathLike)", argument)
    if not str(out).strip():
        raise UsageError("empty (allowed: the path of a folder)", argument)
    path = Path(out)
    if path.exists() and not path.is_dir():
        raise UsageError(f"{out} is a file, not a folder", argument)
    existing = path.absolute()
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir() or not can_write_in(existing):
        raise UsageError(f"{out} cannot be written to ({existing} is not a writable folder)", argument)
    if command is None or not path.is_dir():
        return
    try:
        with os.scandir(path) as entries:
            empty = next(entries, None) is None
    except OSError as error:
        raise UsageError(f"{out} cannot be read ({error.strerror})", argument) from None
    maker = None if empty else _maker(path)
    if not empty and maker != command:
        if (path / "manifest.json").is_file():
            what = "is a run folder"
        elif maker:
            what = f"was made by autodup {maker}"
        else:
            what = f"is not empty and was not made by autodup {command}"
        raise UsageError(f"{out} {what} (allowed: a new or empty folder, or one autodup {command} made)", argument)


def make_folder(out, argument: str = "out") -> None:
    """Make folder ``out`` and its parents where missing.

    Raises
    ------
    UsageError
        Naming ``argument``, when the folder cannot be made: what :func:`check_output_folder`, which makes a
        file where the folder would go, did not see (a name the file system refuses for a folder, a disk that
        filled since, a mount made read-only since).
    """
    try:
        Path(out).mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(f"{out} cannot be made ({error.strerror or type(error).__name__})", argument) from None


def mark_output_folder(out, command: str, check: bool = True) -> bool:
    """Make folder ``out`` for ``command`` and mark it as ``command``'s; returns whether it was made now.

    With ``check`` (the default) the folder is checked first (:func:`check_output_folder`); without it, the caller
    checked it before writing into it, and marks it after.

    Raises
    ------
    UsageError
        Naming ``out``: the folder is refused by the check, or cannot be made (:func:`make_folder`).
    """
    if check:
        check_output_folder(out, command)
    path = Path(out)
    created = not path.exists()
    make_folder(path)
    if _maker(path) != command:
        write_json_atomically(path / OUTPUT_MARK, {"command": command})
    return created
