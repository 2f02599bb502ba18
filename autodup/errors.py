"""One line for any error: how the command line, the workers and the loaders report a failure."""

from __future__ import annotations

import re

_COLOURS = re.compile(r"\x1b\[[0-9;]*m")
# numba prefixes its messages with the pipeline stage; those lines say nothing to a user.
_NOISE = ("Failed in", "During:")


def without_colours(text: str) -> str:
    """``text`` without terminal colour codes (numba colours its messages)."""
    return _COLOURS.sub("", text)


def first_line(error) -> str:
    """The most telling line of an error (or of a text), or the error's class name when it says nothing."""
    lines = [without_colours(line).strip() for line in str(error).splitlines()]
    lines = [line for line in lines if line and not line.startswith(_NOISE)]
    if lines:
        return lines[0]
    return type(error).__name__ if isinstance(error, BaseException) else ""
