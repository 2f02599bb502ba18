"""autodup: duplicate tournaments of a Teamfight-Tactics-like autochess game.

Layers, each depending only on the ones before it:
compile_cache -> rng -> draw engines (kernels, draw) -> config -> game -> bots -> workers -> tournament -> CLI.

The draw API (``Haystack``, ``race``, ...) is imported on first use, so that the command line starts
without loading numba; every jitted module imports :mod:`autodup.rng`, which installs the compile
cache (:mod:`autodup.compile_cache`) before any function is compiled.
"""

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


def __getattr__(name):
    if name in __all__:
        from . import draw

        return getattr(draw, name)
    raise AttributeError(f"module 'autodup' has no attribute {name!r}")
