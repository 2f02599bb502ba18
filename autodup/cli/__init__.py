"""The ``autodup`` command: parse the arguments, call :mod:`autodup.api`, print what it returns.

Every command is a module of this package with ``add_arguments(parser)`` and ``run(args) -> int``, listed in
:data:`COMMANDS` with its one-line help. Only the chosen command's module is imported (and only when it
runs), so ``autodup --help`` and ``autodup --version`` load neither numba nor matplotlib nor pyarrow.

Bad input gets one line on standard error and exit code 2: every :class:`autodup.errors.AutodupError` (and
``ValueError``) is printed as ``autodup: error: <its one line>``, a configuration's error as the
``FILE:LINE: field: what is wrong (what is allowed)`` it already is. Ctrl-C and SIGTERM stop any command at
any moment with one line (exit 130 or 143).
"""

from __future__ import annotations

import importlib
import os
import shlex
import signal
import sys

__all__ = ["COMMANDS", "build_parser", "main", "program"]

# name: (module in autodup.cli, one-line help). The order is the help's.
COMMANDS = {
    "toy": ("toy", "reproduce the seed article's toy example (Figs. 1-5 and keyed)"),
    "play": ("play", "play one table and print each seat's result"),
    "check": ("check", "validate a game configuration (YAML) and summarize it"),
    "bots": ("bots", "list the shipped bots with their descriptions"),
    "check-bot": ("check_bot", "play a bot through many tables: illegal actions, action-cap hits, errors, "
                               "determinism (exit 0 when clean)"),
    "run": ("run", "play a duplicate tournament: boards x tables, results in Parquet"),
    "quality": ("quality", "play the same boards under each dealer and the independent control, and measure "
                           "duplication: cross-table correlation, correctness, luck removed (quality.json, "
                           "report.html)"),
    "report": ("report", "measure existing run folders of the same boards (one per dealer, the independent "
                         "control among them): quality.json and report.html"),
    "ab": ("ab", "play the same boards under a base configuration and a variant and report the change's effect on "
                 "bots, champions and traits, with CIs (ab.json, report.html)"),
    "sweep": ("sweep", "play the base and one variant per value of --set on the same boards and plot each bot's "
                       "effect curve with CIs (sweep.json, sweep.png, report.html)"),
    "odds": ("odds", "the chances of finding k copies of a champion by rolling: the public calculators' chain, the "
                     "game's exact law and a simulation through the game's shop"),
    "shuffles": ("shuffles", "the shuffle lab: is a deck shuffle fair? The 2020 article's two tests reproduced, the "
                             "permutation tests they miss, and the riffles a deck needs"),
    "summary": ("summary", "print the summary of a run folder (also read-only ones)"),
    "luck": ("luck", "luck fit: fit a value on training boards (a seed branch no run uses); runs correct each "
                     "placement by it at every chance event"),
}
# Commands that keep what they finished when stopped (run folders, a report's traces).
KEEP_WORK = frozenset({"run", "quality", "ab", "sweep", "report", "luck"})


def _module(command: str):
    return importlib.import_module(f"autodup.cli.{COMMANDS[command][0]}")


def build_parser(commands=None):
    """The parser of ``autodup``; the arguments of ``commands`` (default: every command) are added, which imports
    their modules. The others are listed with their help only."""
    from ..version import __version__
    from .options import Parser

    parser = Parser(prog="autodup", description="Duplicate tournaments of a TFT-like autochess game.")
    parser.add_argument("--version", action="version", version=f"autodup {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    chosen = set(COMMANDS) if commands is None else set(commands)
    for name, (_, help_text) in COMMANDS.items():
        command = subparsers.add_parser(name, help=help_text)
        if name in chosen:
            _module(name).add_arguments(command)
    return parser


def _chosen(argv: list) -> list:
    """The command named in ``argv`` (the first word that is not an option), as a list of at most one."""
    return [word for word in argv if not word.startswith("-")][:1]


class _Printable:
    """Standard output that shows control characters as escapes (``\\x1b``): a name read from a file (a
    configuration's, a bot's) cannot recolour, retitle or clear the terminal it is printed on. JSON is
    escaped already; line breaks and tabs pass."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text: str) -> int:
        from ..errors import printable

        return self._stream.write(printable(text))

    def __getattr__(self, name):
        return getattr(self._stream, name)


class _Stops:
    """While active (main thread only), Ctrl-C and SIGTERM raise ``stopped(signal number)`` at once, and are
    remembered: C code being imported turns the exception it is given into another (numpy's, as it initializes:
    an ImportError), so whatever leaves the block after one of them leaves it as ``stopped``.

    A signal that comes while a finalizer runs (multiprocessing closing a pool, a weak reference's callback) raises
    inside it, and Python prints that exception with a traceback and goes on: the command finished as if never
    stopped. Such an exception is now recorded instead of printed (:func:`autodup.errors.lost_stop`): the next
    worker pool refuses to start, and the block's end raises the stop if nothing did before."""

    def __init__(self, stopped):
        self.stopped = stopped
        self.signal_number = 0
        self.previous: dict = {}
        self.previous_hook = None

    def __enter__(self):
        for number in (signal.SIGINT, signal.SIGTERM):
            try:
                self.previous[number] = signal.signal(number, self._handle)
            except ValueError:  # not the main thread: the signals are its caller's business
                break
        if self.previous:
            self.previous_hook, sys.unraisablehook = sys.unraisablehook, self._unraisable
        return self

    def _handle(self, signum, frame):
        self.signal_number = signum
        raise self.stopped(signum)

    def _unraisable(self, unraisable) -> None:
        from ..errors import lost_stop

        if isinstance(unraisable.exc_value, self.stopped):
            lost_stop(unraisable.exc_value.signal_number)
            return
        self.previous_hook(unraisable)

    def __exit__(self, kind, error, trace):
        from ..errors import lost_stop

        for number, handler in self.previous.items():
            signal.signal(number, handler)
        number = self.signal_number
        if self.previous_hook is not None:  # this block recorded lost stops (another handler's too: Ray's start)
            sys.unraisablehook = self.previous_hook
            number = number or lost_stop()
            lost_stop(0)
        if number and (kind is None or not issubclass(kind, KeyboardInterrupt)):
            raise self.stopped(number) from None
        return False


def main(argv: list[str] | None = None) -> int:
    """Run one command; returns the exit code (0, 1 for a check that is not clean, 2 for an error,
    130 or 143 when Ctrl-C or SIGTERM stopped it)."""
    stdout = sys.stdout
    sys.stdout = _Printable(stdout)
    try:
        return _main(argv)
    finally:
        sys.stdout = stdout


def program() -> None:
    """The ``autodup`` program (its console script and ``python -m autodup``): :func:`main` on the command line's
    arguments, then the process's exit with its code.

    Once the command is done its output is flushed and Ctrl-C and SIGTERM take their default action again: the
    interpreter's exit runs multiprocessing's and threading's exit handlers, and a Ctrl-C raised in them printed
    ``Exception ignored in atexit callback`` and a traceback. Now it ends the process without a word, as SIGTERM
    does, even where an exit hangs in native code (which no handler in Python could stop).
    """
    code = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a reader gone, a stream closed: nothing more to say
            pass
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, signal.SIG_DFL)
    sys.exit(code)


def _run_kept(folder, kept) -> str:
    """How a stopped ``autodup run`` ends its line: what its folder holds (:func:`autodup.tournament.storage.kept_work`;
    ``None``: no folder known to be the run's yet), and the command that goes on from it."""
    from ..tournament.storage import KEPT_CHUNKS, KEPT_FINISHED  # loaded already: the run set ``kept``

    if kept is None:
        return "; this command wrote nothing"
    if kept == KEPT_FINISHED:
        return f"; the run is finished (autodup summary {shlex.quote(str(folder))} prints its table)"
    if kept == KEPT_CHUNKS:
        return (f"; the finished chunks are kept (autodup run --resume --out {shlex.quote(str(folder))} finishes "
                "the run)")
    return "; no chunk was finished, so nothing was kept"


def _main(argv: list[str] | None) -> int:
    from ..errors import AutodupError, ConfigError, CorruptChunk, NamesAnArgument, Stopped, first_line, one_line

    argv = sys.argv[1:] if argv is None else list(argv)
    command = None
    try:
        # Ctrl-C and SIGTERM stop any command at any moment with one line, from its parsing on; while games are
        # played, the worker pool takes over and stops between polls (see autodup.tournament.workers).
        with _Stops(Stopped):
            args = build_parser(_chosen(argv)).parse_args(argv)
            command = args.command
            return _module(command).run(args)
    except ConfigError as error:  # already "FILE:LINE: field.path: what is wrong (what is allowed)"
        print(one_line(str(error)), file=sys.stderr)
        return 2
    except BrokenPipeError:  # `autodup bots | head`: the reader has gone, and wants nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nor at exit, when stdout is flushed
        return 128 + signal.SIGPIPE  # 141: what a shell reports for a writer its reader left
    except (AutodupError, ValueError) as error:  # one line each, whatever process raised it
        # The API names a parameter (boards: ...); here it is an option (--boards: ...).
        said = error.for_command_line() if isinstance(error, NamesAnArgument) else first_line(error)
        if isinstance(error, CorruptChunk) and error.folder is not None:  # read, not resumed: say what mends it
            said += f"; autodup run --resume --out {shlex.quote(str(error.folder))} plays it again"
        print(f"autodup: error: {said}", file=sys.stderr)
        return 2
    except (OSError, RuntimeError) as error:  # files, disks, worker processes, a Ray cluster
        print(f"autodup: error: {type(error).__name__}: {first_line(error)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as stop:  # Ctrl-C, or SIGTERM (autodup.errors.Stopped)
        signal_number = stop.signal_number if isinstance(stop, Stopped) else 2
        what = "terminated" if signal_number == 15 else "interrupted"
        # quality, ab, sweep and report keep each finished chunk and trace (and nothing else): the same command
        # goes on from them, or starts over where there were none.
        kept = "; the same command goes on from what it finished" if command in KEEP_WORK else ""
        if command == "run" and hasattr(stop, "kept"):  # the run said what it left on disk
            kept = _run_kept(stop.kept_folder, stop.kept)
        print(f"autodup: {what}{kept}", file=sys.stderr)
        return 128 + signal_number
