"""Files the package writes: atomically (a stopped command leaves no half file), JSON that is always valid,
and the one check of an output folder.

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
from pathlib import Path

from .errors import UsageError

__all__ = ["TEMPORARY_SUFFIX", "replacing", "write_bytes_atomically", "write_json_atomically", "json_safe",
           "check_output_folder"]

TEMPORARY_SUFFIX = ".tmp"


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
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise


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


def check_output_folder(out, argument: str = "out") -> None:
    """A :class:`~autodup.errors.UsageError` naming ``argument`` unless ``out`` is a folder, or one that can be
    made, that can be written to; nothing if ``out`` is None.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile() as file:
    ...     check_output_folder(file.name)
    Traceback (most recent call last):
    ...
    autodup.errors.UsageError: out: ... is a file, not a folder
    """
    if out is None:
        return
    path = Path(out)
    if path.exists() and not path.is_dir():
        raise UsageError(f"{out} is a file, not a folder", argument)
    existing = path.absolute()
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise UsageError(f"{out} cannot be written to ({existing} is not a writable folder)", argument)
