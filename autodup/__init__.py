"""autodup: duplicate tournaments of a Teamfight-Tactics-like autochess game.

Layers, each depending only on the ones before it::

    compile_cache, shipped  where compiled code is cached; the shipped bots and configurations, by name
    errors                  one-line messages for everything a user can get wrong
    rng                     counter-based random numbers, the stream domains, the seed tree
    kernels, draw, toy      the draw engines (jitted kernels; the validating Python API); the toy example
    dealers                 the dealer registry: one record per dealer (engine code, shared seeds, race, exact)
    config                  YAML configurations, validated and compiled to arrays
    game                    the jitted table: rules, state, the seat's view with what is legal, the logs
    boards                  the board driver: seed tree, seating designs, boards played at tables
    bots                    the bot authoring API, loading, the bot check and its rule variants
    workers                 watched worker processes (deadlines, crashes, signals)
    tournament              runs: chunks with checksums, resume, the summary
    results                 reading a run folder as a table with names
    cli                     the ``autodup`` command

One home per concept: a dealer is a kernel plus a record in :data:`autodup.dealers.DEALERS`; every
command plays boards through :func:`autodup.boards.play_boards`; the seat's view is declared once
(:data:`autodup.game.VIEW`), as are a table's state (:data:`autodup.game.GAME_STATE`,
``DEALER_STATE``, ``SCRATCH``) and what it counts (:data:`autodup.game.STATS`, from which the
result columns derive).

The draw API (``Haystack``, ``race``, ...) is imported on first use, so that the command line starts
without loading numba; every jitted module imports :mod:`autodup.rng`, which installs the compile
cache (:mod:`autodup.compile_cache`) before any function is compiled.
"""

from .version import __version__

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
        from .engine import draw

        return getattr(draw, name)
    raise AttributeError(f"module 'autodup' has no attribute {name!r}")
