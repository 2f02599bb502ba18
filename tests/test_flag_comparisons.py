"""numba's compile flags are compared with numba's answer, faster (autodup.flag_comparisons).

Flags key numba's cache of resolved overloads: a comparison that answered otherwise would hand a function an
implementation typed under other flags, or type one again. So the new ``__eq__`` is checked against numba's own on
flags of every shape (options set, unset, set to their default, copied), and the check is shown to catch a plausible
wrong one: comparing only the options set.
"""

import random

from numba.core import targetconfig
from numba.core.compiler import DEFAULT_FLAGS, Flags

from autodup import flag_comparisons

OPTIONS = sorted(Flags.options.items())


def _random_flags(rng: random.Random) -> Flags:
    flags = Flags()
    for name, option in rng.sample(OPTIONS, rng.randint(0, 6)):
        if isinstance(option.default, bool):
            setattr(flags, name, rng.random() < 0.5)
        elif rng.random() < 0.5:
            try:
                setattr(flags, name, option.default)  # set, to the value it reads when not set
            except ValueError:  # an option whose type does not take its own default (inline)
                pass
    return flags


def _pairs(count: int, seed: int):
    rng = random.Random(seed)
    for _ in range(count):
        a = _random_flags(rng)
        roll = rng.random()
        if roll < 0.3:
            b = Flags(a)  # a copy: equal
        elif roll < 0.5:
            b = Flags(a)
            name, option = rng.choice(OPTIONS)
            if isinstance(option.default, bool):
                setattr(b, name, not getattr(b, name))  # one option apart
        else:
            b = _random_flags(rng)
        yield a, b


def _only_the_options_set(self, other):
    """A wrong comparison: the options set on each side, as they are, ignoring that unset reads as the default."""
    return self._values == other._values


def test_it_is_in_effect():
    assert flag_comparisons.installed()
    assert targetconfig.TargetConfig.__eq__ is flag_comparisons.equal_flags


def test_equal_exactly_when_numba_says_so():
    numbas = flag_comparisons._numbas_equal
    answers = [(flag_comparisons.equal_flags(a, b), numbas(a, b)) for a, b in _pairs(20_000, seed=31)]
    assert all(ours == theirs for ours, theirs in answers)
    # Both answers occur many times, so the agreement means something.
    assert sum(theirs for _, theirs in answers) > 5_000 and sum(not theirs for _, theirs in answers) > 5_000
    assert flag_comparisons.equal_flags(DEFAULT_FLAGS, Flags(DEFAULT_FLAGS))
    assert flag_comparisons.equal_flags(Flags(), 3) is NotImplemented


def test_the_same_check_catches_a_wrong_comparison():
    numbas = flag_comparisons._numbas_equal
    assert any(_only_the_options_set(a, b) != numbas(a, b) for a, b in _pairs(20_000, seed=31))


def test_the_hash_is_numbas():
    numbas = flag_comparisons._numbas_hash
    for a, b in _pairs(500, seed=5):
        assert hash(a) == numbas(a) and hash(b) == numbas(b)
    assert hash(DEFAULT_FLAGS) == numbas(DEFAULT_FLAGS)
