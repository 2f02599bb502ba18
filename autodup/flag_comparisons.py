"""numba's compile flags compared by the options they set, not by all eighty.

Every overload numba resolves while it types a function (``min``, ``np.zeros``,
an array's ``shape``...) is looked up in a cache keyed by the arguments' types
and the flags of the function being compiled (``TemplateOverload._get_impl``).
numba's ``TargetConfig.__eq__`` builds a dict of every option's value (about
eighty ``getattr`` calls) for each side of each comparison, about 0.2 ms, and
its ``__hash__`` is the hash of the sorted option names (``sorted`` of a dict
sorts its keys), the same for every flags object: so every entry cached for the
same argument types under other flags is compared in turn. In a cold start's
compile of the turns, ``cProfile`` put 10.4 s of 30.6 s in those comparisons
(51,328 of them); the more functions a process has compiled with different
flags, the longer each lookup.

:func:`install` gives ``TargetConfig`` an ``__eq__`` with the same answer that
compares the options set on either side (an option not set has its default, as
numba's getter reads it), and a ``__hash__`` with the same value computed once per
class. Nothing compiled changes: the same lookups find the same entries. Flags of
two classes with different options are compared as numba compares them, and a numba
whose ``TargetConfig`` compares otherwise is left as it is.
"""

from __future__ import annotations

from numba.core import targetconfig

__all__ = ["install", "installed", "equal_flags", "flags_hash"]

_numbas_equal = targetconfig.TargetConfig.__eq__
_numbas_hash = targetconfig.TargetConfig.__hash__
_hashes: dict = {}  # a TargetConfig class -> numba's hash of its flags (the same for all of them)


def equal_flags(self, other):
    """``TargetConfig.__eq__``: every option's value equal, an option not set reading as its default."""
    if not isinstance(other, targetconfig.TargetConfig):
        return NotImplemented
    options = type(self).options
    if type(other).options is not options:
        return _numbas_equal(self, other)
    mine, theirs = self._values, other._values
    if mine is theirs or mine == theirs:
        return True
    for name in mine.keys() | theirs.keys():
        option = options.get(name)
        if option is None:  # a value under no option's name: numba's comparison decides
            return _numbas_equal(self, other)
        default = option.default
        a, b = mine.get(name, default), theirs.get(name, default)
        if not (a is b or a == b):  # as a dict comparison compares values
            return False
    return True


def flags_hash(self) -> int:
    """``TargetConfig.__hash__``: numba's value, the hash of the sorted option names, computed once per class."""
    kind = type(self)
    value = _hashes.get(kind)
    if value is None:
        value = _hashes[kind] = hash(tuple(sorted(kind.options)))
    return value


def _numbas_are_the_ones_replaced() -> bool:
    """Whether numba's ``TargetConfig`` compares and hashes by ``values()`` as described above (numba 0.54 on):
    another numba keeps its own."""
    kind = targetconfig.TargetConfig
    equal, hashed = getattr(_numbas_equal, "__code__", None), getattr(_numbas_hash, "__code__", None)
    return ("_values" in getattr(kind, "__slots__", ()) and hasattr(kind, "options") and equal is not None
            and hashed is not None and "values" in equal.co_names and {"sorted", "values"} <= set(hashed.co_names))


def install() -> None:
    """Compare flags this way from now on (idempotent); nothing changes under a numba whose flags differ."""
    if _numbas_are_the_ones_replaced():  # judged on numba's own methods, kept above: installing again changes nothing
        targetconfig.TargetConfig.__eq__ = equal_flags
        targetconfig.TargetConfig.__hash__ = flags_hash


def installed() -> bool:
    """Whether :func:`install` is in effect."""
    return targetconfig.TargetConfig.__eq__ is equal_flags and targetconfig.TargetConfig.__hash__ is flags_hash


install()
