"""What every function of the Python API shares: how it reports (warnings, news, progress), the report
object it returns, and the checks of the arguments that name bots.

Nothing is printed unless asked: warnings go to the ``autodup`` logger (silent until a program configures
logging) unless a ``warn`` callable is given, news (a reused run, the first compile) to ``note``; progress
bars are ``tqdm.auto`` bars, widgets in a notebook, shown only with ``progress=True``.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import TaskError, UsageError

__all__ = ["LOGGER", "Report", "warner", "noter", "configuration", "texts", "path_of", "bot_list", "config_warnings",
           "dealer_warnings", "execution", "raised_as_in_the_worker"]

LOGGER = logging.getLogger("autodup")
# Without a handler of its own, logging's last resort prints WARNING and above to stderr: a library adds a
# NullHandler so that its warnings reach only the handlers a program configures.
LOGGER.addHandler(logging.NullHandler())


def warner(warn):
    """``warn`` if given, else a function that logs a one-line warning to the ``autodup`` logger."""
    return warn if warn is not None else LOGGER.warning


def noter(note):
    """``note`` if given, else a function that logs one line of news at INFO level."""
    return note if note is not None else LOGGER.info


def configuration(config, argument: str = "config"):
    """The :class:`~autodup.game.config.GameConfig` an argument names: one given as is, or a shipped
    configuration's name or a YAML file's path loaded (:func:`autodup.game.config.load_config`).

    Examples
    --------
    >>> configuration("tiny").name
    'tiny'
    >>> configuration(5)
    Traceback (most recent call last):
    ...
    autodup.errors.UsageError: config: 5 is not a configuration (allowed: a shipped configuration's name such as ...)
    """
    from ..game.config import GameConfig, load_config
    from ..game.config_file import quote

    if isinstance(config, GameConfig):
        return config
    if not isinstance(config, (str, os.PathLike)):
        raise UsageError(f"{quote(config)} is not a configuration (allowed: a shipped configuration's name such as "
                         "'set4', a YAML file's path, or a GameConfig)", argument)
    return load_config(config)


def texts(values, argument: str, allowed: str, ordered: bool = False) -> list:
    """A text or a sequence of texts (paths too) as a list of ``str``; a :class:`UsageError` naming ``argument``
    for anything else, ``allowed`` saying what each text is. With ``ordered`` (the order means something: the
    bots' seats, the edits' order), a set of more than one text is refused too.

    Examples
    --------
    >>> texts("shop.size=4", "settings", "PATH=VALUE edits")
    ['shop.size=4']
    >>> import numpy
    >>> texts(numpy.array(["greedy", "econ"]), "bots", "bot names")
    ['greedy', 'econ']
    >>> texts(5, "settings", "PATH=VALUE edits")
    Traceback (most recent call last):
    ...
    autodup.errors.UsageError: settings: 5 is not a text or a list of texts (allowed: PATH=VALUE edits)
    """
    from ..game.config_file import quote

    if isinstance(values, (str, os.PathLike)):
        return [str(os.fspath(values))]
    if ordered and isinstance(values, (set, frozenset)) and len(values) > 1:
        # Its order changes from one Python process to the next (string hashing is salted): the same script would
        # seat its bots otherwise, name its run folder otherwise, and give other results.
        raise UsageError(f"{quote(values)} is a set, whose order changes from one Python process to the next "
                         f"(allowed: a list or tuple, in the order meant: {allowed})", argument)
    if isinstance(values, Iterable) and not isinstance(values, (bytes, dict)):  # a list, a tuple, an array, ...
        items = list(values)
        if all(isinstance(value, (str, os.PathLike)) for value in items):
            return [str(os.fspath(value)) for value in items]
    raise UsageError(f"{quote(values)} is not a text or a list of texts (allowed: {allowed})", argument)


def path_of(value, argument: str, what: str):
    """``value`` if it is a path (``str`` or ``os.PathLike``), else a :class:`UsageError` naming ``argument``.

    Examples
    --------
    >>> path_of(["runs/a"], "folder", "a run folder")
    Traceback (most recent call last):
    ...
    autodup.errors.UsageError: folder: ['runs/a'] is not a path (allowed: a run folder, as a str or os.PathLike)
    """
    from ..game.config_file import quote

    if not isinstance(value, (str, os.PathLike)):
        raise UsageError(f"{quote(value)} is not a path (allowed: {what}, as a str or os.PathLike)", argument)
    return value


def bot_list(bots, option: str = "bots") -> list | None:
    """Bots as a list of names or paths: from a list, or a comma-separated text (``"greedy,econ"``).

    Examples
    --------
    >>> bot_list("greedy, econ")
    ['greedy', 'econ']
    >>> bot_list(["greedy", ""])
    Traceback (most recent call last):
    ...
    autodup.errors.UsageError: bots: ['greedy', ''] names no bot at some position (allowed: names or paths, ...)
    >>> bot_list(3)
    Traceback (most recent call last):
    ...
    autodup.errors.UsageError: bots: 3 is not a text or a list of texts (allowed: bot names or paths, ...)
    """
    if bots is None:
        return None
    given = texts(bots, option, "bot names or paths, as a list or comma-separated", ordered=True)
    if not given:
        raise UsageError("no bot given (allowed: one or more names or paths)", option)
    specs = [spec.strip() for spec in (given[0].split(",") if isinstance(bots, str) else given)]
    if not all(specs):
        raise UsageError(f"{bots!r} names no bot at some position (allowed: names or paths, comma-separated)",
                         option)
    return specs


def execution(workers, backend, game_timeout, ray_address=None, boards=None) -> tuple:
    """``(workers, game_timeout)`` as a run uses them (None: every core, the default timeout), once all four
    are in range; a :class:`UsageError` naming the argument otherwise.

    With ``boards`` (the most boards a run of the command plays; checked already), the workers are at most the
    tasks such a run has: its chunks and the bots' determinism probe. A command plays its runs one after the
    other, and more workers would only start and load the game: 256 of them for one chunk took over a minute.
    """
    from ..arguments import BACKENDS, choice, optional, seconds
    from ..arguments import workers as check_workers
    from ..tournament.spec import chunk_count
    from ..tournament.workers import DEFAULT_GAME_TIMEOUT

    choice("backend", backend, BACKENDS)
    if ray_address is not None and backend != "ray":
        raise UsageError(f"{ray_address!r} given with the {backend} backend (allowed: with backend ray only)",
                         "ray_address")
    workers = check_workers("workers", workers)
    if boards is not None:
        workers = min(workers, chunk_count(boards) + 1)
    return workers, optional(seconds, "game_timeout", game_timeout) or DEFAULT_GAME_TIMEOUT


def command_pool(workers: int, backend: str, game_timeout: float):
    """The block of a command that loads its bots and plays them: with the local backend, one set of ``workers``
    processes for all of it (:func:`autodup.tournament.workers.one_pool`); with Ray, nothing."""
    from ..tournament.workers import one_pool

    return one_pool(workers, game_timeout) if backend == "local" else contextlib.nullcontext()


@contextlib.contextmanager
def raised_as_in_the_worker():
    """Inside, a task that raised one of the family's errors in a worker (a bot that cannot load, an argument
    out of range) raises it here too, rather than a :class:`TaskError`."""
    try:
        yield
    except TaskError as error:
        raise error.as_raised() from None


def dealer_warnings(dealer: str, warn) -> None:
    """Pass the warning of a dealer that does not keep the game's probabilities (``replay``) to ``warn``; an exact
    dealer, or a name that is not a dealer (refused where it is checked), says nothing."""
    from ..engine.dealers import DEALERS, inexact_warning

    if dealer in DEALERS and not DEALERS[dealer].exact:
        warn(inexact_warning(dealer))


def config_warnings(config, warn) -> None:
    """Pass each of a configuration's warnings (valid but surely not meant) to ``warn``."""
    for line in getattr(config, "warnings", ()):
        warn(line)


@dataclass
class Report:
    """What a command computed: its data (what ``--json`` prints), where it wrote files, and its text.

    Attributes
    ----------
    data : dict
        The result, as the command's JSON output holds it.
    folder : pathlib.Path or None
        The folder its files were written to (``quality.json``, ``report.html``, ...), if any.
    text : str
        What the command prints without ``--json``.
    """

    data: dict
    folder: Path | None = None
    text: str = field(default="", repr=False)

    def __getitem__(self, key):
        return self.data[key]

    def keys(self):
        return self.data.keys()

    def __str__(self) -> str:
        return self.text

    def _repr_pretty_(self, printer, cycle):  # IPython shows the text, as the command line would
        printer.text(self.text if not cycle else "Report(...)")

