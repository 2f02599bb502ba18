"""autodup's public Python API: every command of the ``autodup`` command line as a function that returns an
object, raises :class:`autodup.errors.AutodupError` (one line) for bad input, and prints nothing unless asked.

The command line (:mod:`autodup.cli`) parses its arguments, calls these functions and prints what they return.
Everything here is also importable from ``autodup`` itself::

    import autodup
    results = autodup.run_tournament("set4", boards=100, seed=0)
    results.summary()          # each bot's duplicate score, raw and luck-adjusted, with intervals
    results.rows()             # the per-seat rows, a pyarrow Table
    autodup.evaluate("autodup.agents:RandomAgent", opponents=["greedy"], boards=100)   # an agent, duplicate
"""

from .common import Report
from .comparisons import ab, quality, report, sweep
from .evaluation import Evaluation, evaluate
from .labs import odds, shuffles, toy
from .tournaments import DEFAULT_OUT, Results, check_bot, list_bots, load_config, open_results, play, run_tournament
from .values import fit_value

__all__ = ["DEFAULT_OUT", "Evaluation", "Report", "Results", "ab", "check_bot", "evaluate", "fit_value", "list_bots",
           "load_config", "odds", "open_results", "play", "quality", "report", "run_tournament", "shuffles", "sweep",
           "toy"]
