"""autodup: duplicate tournaments of a Teamfight-Tactics-like autochess game.

Layers, each depending only on the ones above it in this list:
rng -> draw engines (kernels, draw) -> game -> tournament -> measures/report -> CLI.
"""

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
