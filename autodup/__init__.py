"""autodup: duplicate tournaments of a Teamfight-Tactics-like autochess game.

Layers, each depending only on the ones above it in this list:
compile_cache -> rng -> draw engines (kernels, draw) -> config -> game -> bots -> workers -> tournament -> CLI.
"""

# First: every jitted function of the package is cached under a folder keyed by the code's fingerprint.
from . import compile_cache  # noqa: F401  (isort: skip)
from .draw import (
    ENGINES,
    Haystack,
    KeyedSampler,
    PlainSampler,
    Sampler,
    StreamSampler,
    keyed_draw,
    make_sampler,
    race,
)

__version__ = "0.1.0"

__all__ = [
    "ENGINES",
    "Haystack",
    "KeyedSampler",
    "PlainSampler",
    "Sampler",
    "StreamSampler",
    "keyed_draw",
    "make_sampler",
    "race",
    "__version__",
]
