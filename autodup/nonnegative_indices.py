"""The package's kernels index arrays without numba's wraparound of negative indices.

numba follows Python: ``a[i]`` with a signed integer ``i`` is compiled as
``a[i + n if i < 0 else i]``, at each index of each array access, unless it
can prove ``i`` non-negative, which it rarely can (a seat, a champion or a
slot read from an array). autodup's kernels never index with a negative
integer, so for them the fix is pure cost: a shift, an ``and`` and an add per
index, and one register more in functions that are short of registers (the
game's hold the rules' and the table's arrays). Left out, a game took 9-12%
less time, with every result bit for bit the same (measured when it was
introduced; ``docs/performance.md``).

:func:`install` wraps numba's ``fix_integer_index`` (``numba.np.arrayobj``:
where numba lowers every integer index of an array) so that functions of this
package (:func:`is_package_function`) are compiled without the fix, and every
other function as numba compiles it: a bot's policy, which indexes with its
author's integers, the authoring helpers it calls (``autodup.game.authoring``,
which index with the integers the bot passes them), and a user's own numba code
in the same process. numba inlines a function marked ``inline="always"`` into
its caller before compiling it, so a bot's own helper wraps as the bot does.

Indices out of range were unchecked in the package's kernels already (numba
checks bounds only when asked to); a negative index is now one of them, not
an alias of the end of the array. Run with ``NUMBA_BOUNDSCHECK=1`` (and an
empty cache), every out-of-range index of the package's kernels raises
``IndexError``, negative ones included: a slow test does this for the
game (``tests/test_nonnegative_indices.py``).

If numba no longer has ``fix_integer_index`` (a numba this package was not
tested with), nothing is changed: the kernels keep the wraparound, and give
the same results, only slower.
"""

from __future__ import annotations

from numba.core import types
from numba.np import arrayobj

__all__ = ["PACKAGE_PREFIX", "AUTHORING_PREFIX", "is_package_function", "install", "installed"]

# numba mangles a function's qualified name Itanium-style: ``autodup.game.turn.play_turns`` becomes
# ``_ZN7autodup4game4turn10play_turnsB...``. A bot's module (``autodup_bot_...``) does not match.
PACKAGE_PREFIX = "_ZN7autodup"
AUTHORING_PREFIX = "_ZN7autodup4game9authoring"  # the helpers bots call, compiled on their own (not the package's)

_numba_fix_integer_index = getattr(arrayobj, "fix_integer_index", None)


def is_package_function(symbol: str) -> bool:
    """Whether numba's mangled name ``symbol`` is that of a function of this package, not of the authoring
    helpers that bots call (which index as the bots do)."""
    return symbol.startswith(PACKAGE_PREFIX) and not symbol.startswith(AUTHORING_PREFIX)


def _fix_integer_index(context, builder, index_type, index, size):
    """numba's ``fix_integer_index``, without the wraparound in the package's functions: the index cast to
    ``intp`` as it is."""
    if index_type.signed and is_package_function(builder.function.name):
        return context.cast(builder, index, index_type, types.intp)
    return _numba_fix_integer_index(context, builder, index_type, index, size)


def install() -> None:
    """Compile the package's functions without the wraparound from now on (idempotent)."""
    if _numba_fix_integer_index is not None:
        arrayobj.fix_integer_index = _fix_integer_index


def installed() -> bool:
    """Whether :func:`install` is in effect."""
    return getattr(arrayobj, "fix_integer_index", None) is _fix_integer_index


install()
