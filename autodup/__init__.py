"""autodup: duplicate tournaments of a Teamfight-Tactics-like autochess game.

Layers, each a subpackage that imports only those above it in this list::

    errors, arguments, files, compile_cache, shipped, version
                the foundation: the exception family and one-line messages; the ranges of the arguments
                every entry point shares; atomic files and JSON; where compiled code is cached; the
                shipped bots and configurations, by name
    engine/     counter-based random numbers and the seed tree (rng), the draw kernels (kernels), the
                validating draw API (draw), the dealer registry (dealers); knows nothing of games
    game/       configurations (config, config_file, config_reader, variants); the jitted table: rules,
                state, shop, units, legality, rounds, combat, turn, table; the seat's view (view); the
                board driver (boards); the bot authoring API (authoring), loading and the bot check
    tournament/ a run's spec, its chunks on disk (storage), the run loop on processes or Ray (run,
                workers), loading bots in watched processes (loading), reading a run folder (results)
    analysis/   statistics, the luck adjustment, the summary, the cross-table measures, quality, balance
                A/B and sweep, the HTML reports
    labs/       the toy example, roll odds, the shuffle lab
    api/        the public Python API, re-exported here; agents (Python agents to seat), env/ (Gymnasium and
                PettingZoo environments, the ``env`` extra) sit beside it, over the game layer
    cli/        the ``autodup`` command: parses, calls the API, prints

One home per concept: a dealer is a kernel plus a record in :data:`autodup.engine.dealers.DEALERS`; every
command plays boards through :func:`autodup.game.boards.play_boards`; the seat's view is declared once
(:data:`autodup.game.view.VIEW`), as are a table's state (:data:`autodup.game.state.GAME_STATE`,
``DEALER_STATE``, ``UNIT_TERMS``, ``SCRATCH``) and what it counts (:data:`autodup.game.stats.STATS`, from which the
result columns derive).

Everything here is imported on first use, so that ``import autodup`` and the command line's ``--help`` load
no numba; every jitted module imports :mod:`autodup.engine.rng`, which installs the compile cache
(:mod:`autodup.compile_cache`) before any function is compiled.

The Python API (:mod:`autodup.api`: ``autodup.run_tournament``, ``open_results``, ``quality``, ``ab``, ...) is
re-exported here, as are the draw API and the exception family.
"""

from .version import __version__

# The draw API (autodup.engine.draw) and the Python API (autodup.api), by name: the module each comes from.
_DRAW = ("ENGINES", "Haystack", "KeyedSampler", "PlainSampler", "Sampler", "StreamSampler", "keyed_draw",
         "make_sampler", "race")
_API = ("DEFAULT_OUT", "Evaluation", "Report", "Results", "ab", "check_bot", "evaluate", "fit_value", "list_bots",
        "load_config", "odds", "open_results", "play", "quality", "report", "run_tournament", "shuffles", "sweep", "toy")
_ERRORS = ("AutodupError", "BotError", "ConfigError", "CorruptChunk", "PolicyError", "RunError", "TaskError",
           "UsageError", "ValueFileError", "WorkerFailure")

__all__ = [*_DRAW, *_API, *_ERRORS, "__version__"]


def __getattr__(name):
    import importlib

    for module, names in (("autodup.engine.draw", _DRAW), ("autodup.api", _API), ("autodup.errors", _ERRORS)):
        if name in names:
            return getattr(importlib.import_module(module), name)
    raise AttributeError(f"module 'autodup' has no attribute {name!r}")


def __dir__():
    return sorted(__all__)
