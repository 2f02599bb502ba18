"""Loading bots: a bot file by name or path, its parameters, and the tuple of compiled policies a table calls."""

from __future__ import annotations

import contextlib
import dis
import hashlib
import importlib.util
import sys
from collections import namedtuple
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numba.core.ccallback import CFunc

from ..bot_identity import bot_module_name, load_time_digest, load_time_values, modules_digest
from ..errors import BotError, ConfigError, PolicyError, is_stop, named
from ..files import special_file_kind
from ..shipped import roster_folder
from .authoring import finite_number
from .config_file import dotted_path, parse_yaml, quote, show_number, yaml_surprises
from .load_deadline import LoadTimedOut, NotLoadedInTime, file_load_deadline
from .view import MAX_PARAMETERS, MAX_PLAYERS, POLICY_SIGNATURE

__all__ = ["PARAMETERS_ARGUMENT", "override_error", "BotInfo", "Bot", "bot_names", "bot_file", "is_shipped_bot",
           "constant_parameter_reads", "load_bot", "values_changing_on_load",
           "load_bots", "apply_overrides", "parse_parameter_options",
           "load_parameter_file", "policy_tuple", "Lineup", "seating", "bot_errors_collected", "REQUIRED_IN_A_BOT_FILE"]

# --------------------------------------------------------------------------

REQUIRED_IN_A_BOT_FILE = ("NAME", "DESCRIPTION", "decide")
# Where parameter overrides come from when not from a file: the Python API's bot_params (--bot-param).
PARAMETERS_ARGUMENT = "bot_params"


@dataclass(frozen=True)
class BotInfo:
    """What a run records of a bot: no compiled code, so it travels between processes."""

    name: str
    path: Path
    parameters: dict
    fingerprint: str  # SHA-256 of the bot file and of its own modules it imports (see bot_identity.user_modules)
    values: str = ""  # what its file computed on loading, as compiled code freezes it (bot_identity.load_time_digest)


@dataclass(frozen=True)
class Bot:
    """A loaded bot: its declarations, compiled policy and parameter values."""

    name: str
    description: str
    defaults: dict
    policy: CFunc = field(repr=False)
    path: Path
    parameters: dict = field(default_factory=dict)
    fingerprint: str = ""
    # A Python agent (autodup.game.agents) played from outside the compiled table; its ``policy`` is a
    # placeholder that is never called. ``path`` is then the agent's spec (``module:Class`` or ``file.py:Class``).
    agent: object = field(default=None, repr=False, compare=False)
    values: str = ""  # as BotInfo.values ("" for an agent, whose code is not compiled)

    def info(self) -> BotInfo:
        return BotInfo(self.name, self.path, dict(self.parameters), self.fingerprint, self.values)

    def with_parameters(self, overrides: dict, origin: str = PARAMETERS_ARGUMENT) -> "Bot":
        """A copy with some parameters changed; unknown names or non-numbers raise :class:`BotError` naming
        ``origin`` (:func:`override_error`)."""
        values = dict(self.parameters)
        for key, value in overrides.items():
            if key not in self.defaults:
                allowed = ", ".join(self.defaults) or "none"
                raise override_error(origin, f"bot {self.name!r} has no parameter {key!r} (allowed: {allowed})")
            number = finite_number(value)
            if number is None:
                raise override_error(origin, f"{self.name}.{key} must be a finite number, got {show_number(value)}")
            values[key] = number
        return Bot(self.name, self.description, self.defaults, self.policy, self.path, values, self.fingerprint,
                   self.agent, self.values)

    def parameter_vector(self) -> np.ndarray:
        """float64 (MAX_PARAMETERS,): the values in declaration order, zero-padded."""
        vector = np.zeros(MAX_PARAMETERS)
        for i, key in enumerate(self.defaults):
            vector[i] = self.parameters[key]
        return vector


_LOADED: dict = {}  # (file, module name: its content's) -> Bot


def bot_names() -> list:
    """Names of the shipped bots (``bots/`` of the repository; files not starting with ``_``)."""
    return sorted(p.stem for p in roster_folder().glob("*.py") if not p.name.startswith("_"))


def bot_file(spec: str) -> Path | None:
    """The file (resolved) of the bot ``spec`` names: a shipped bot's or a bot file; None for an agent or a spec that
    names no bot."""
    from .agents import is_agent_spec

    if is_agent_spec(str(spec)):
        return None
    try:
        return _bot_path(str(spec)).resolve()
    except BotError:
        return None


def is_shipped_bot(spec: str) -> bool:
    """Whether ``spec`` names a shipped bot (a file of ``bots/``), rather than a bot file, an agent or nothing."""
    path = bot_file(spec)
    return path is not None and path.parent == roster_folder().resolve()


def _bot_path(spec: str) -> Path:
    if spec.endswith(".py") or "/" in spec or "\\" in spec or Path(spec).expanduser().is_file() \
            or (Path(spec).expanduser().is_dir() and not (roster_folder() / f"{spec}.py").is_file()):
        path = Path(spec).expanduser()
        if path.is_dir():
            raise BotError(f"{spec}: a folder, not a bot file (allowed: a bot's .py file, or a shipped bot's name)")
        kind = special_file_kind(path)
        if kind is not None:
            raise BotError(f"{spec}: not a regular file ({kind}) (allowed: a bot's .py file)")
        if not path.is_file():
            hint = f" (did you mean {spec}.py?)" if Path(f"{spec}.py").expanduser().is_file() else ""
            raise BotError(f"{spec}: no such bot file{hint}")
        if path.suffix != ".py":
            raise BotError(f"{spec}: a bot file must be a Python file whose name ends in .py")
        return path.resolve()
    path = roster_folder() / f"{spec}.py"
    if spec.startswith("_") or not path.is_file():
        raise BotError(f"unknown bot {spec!r} (allowed: {', '.join(bot_names())}, or a path to a bot file)")
    return path


def constant_parameter_reads(decide) -> list:
    """The constant indices ``k`` of every ``params[k]`` read in ``decide``'s own code (its 9th argument)."""
    code = decide.__code__
    if code.co_argcount < 9:
        return []
    name = code.co_varnames[8]
    instructions = list(dis.get_instructions(code))
    reads = []
    for first, second, third in zip(instructions, instructions[1:], instructions[2:]):
        if first.opname == "LOAD_FAST" and first.argval == name and second.opname == "LOAD_CONST" \
                and isinstance(second.argval, int) and third.opname in ("BINARY_SUBSCR", "BINARY_OP"):
            reads.append(second.argval)
    return reads


def load_bot(spec: str) -> Bot:
    """Load a bot by name (a file in ``bots/``) or by path, or a Python agent by ``module:Class`` or ``file.py:Class``
    (:mod:`autodup.game.agents`).

    Raises
    ------
    BotError
        One line: the file and what it lacks or gets wrong.
    """
    from .agents import is_agent_spec, load_agent

    if is_agent_spec(str(spec)):
        return load_agent(str(spec))
    path = _bot_path(str(spec))
    # Named by the file's content: numba's cache of the compiled policy refers
    # to the module by name, so a copy of the file elsewhere loads the same cache.
    module_name = bot_module_name(path)
    # Kept by file and content: a file edited since it was loaded is loaded again, here and in the workers
    # forked from this process, which start with what it loaded.
    if (path, module_name) in _LOADED:
        return _LOADED[path, module_name]
    module = _run_bot_file(path, module_name)
    missing = [key for key in REQUIRED_IN_A_BOT_FILE if not hasattr(module, key)]
    if missing:
        raise BotError(f"{path}: defines no {' and no '.join(missing)} (allowed: a bot file defines NAME, a one-line "
                       "DESCRIPTION and decide, decorated with @autodup.bots.policy; PARAMETERS is optional)")
    declared = {key: getattr(module, key, None) for key in ("NAME", "DESCRIPTION", "PARAMETERS", "decide")}
    name, description, defaults, decide = declared.values()
    if not isinstance(name, str) or not name.isidentifier():
        raise BotError(f"{path}: NAME must be a name made of letters, digits and _ (got {name!r})")
    if not isinstance(description, str) or not description.strip() or "\n" in description.strip():
        raise BotError(f"{path}: DESCRIPTION must be one line of text")
    if defaults is None:
        defaults = {}
    if not isinstance(defaults, dict) or len(defaults) > MAX_PARAMETERS or any(
            not isinstance(k, str) or isinstance(v, str) or finite_number(v) is None for k, v in defaults.items()):
        raise BotError(f"{path}: PARAMETERS must map at most {MAX_PARAMETERS} names to finite numbers")
    unnamed = [k for k in defaults if not k.strip() or "=" in k]
    if unnamed:  # --bot-param BOT.NAME=VALUE splits at the first '=' and cannot give an empty name
        raise BotError(f"{path}: PARAMETERS name {quote(unnamed[0])} cannot be set by --bot-param or a parameter "
                       "file (allowed: names without '=', such as roll_above)")
    if not isinstance(decide, CFunc) or getattr(decide, "_decide_signature", None) != POLICY_SIGNATURE:
        raise BotError(f"{path}: decide must be a function decorated with @autodup.bots.policy")
    beyond = [k for k in constant_parameter_reads(decide.__wrapped__) if k >= len(defaults)]
    if beyond:
        declared_names = ", ".join(defaults) or "none"
        raise BotError(f"{path}: decide reads params[{beyond[0]}], but PARAMETERS declares {len(defaults)} "
                       f"({declared_names}); declare every parameter decide reads")
    defaults = {k: float(v) for k, v in defaults.items()}
    fingerprint = hashlib.sha256(path.read_bytes() + modules_digest(vars(module)).encode()).hexdigest()
    bot = Bot(name, description.strip(), defaults, decide, path, dict(defaults), fingerprint,
              values=load_time_digest(vars(module)))
    _LOADED[path, module_name] = bot
    return bot


def _run_bot_file(path: Path, module_name: str):
    """Run the top level of the bot file ``path`` as the module ``module_name``, under the file's load deadline, and
    return the module. It is in ``sys.modules`` while it runs (a file may look itself up there); a file that fails
    leaves ``sys.modules`` as it was.

    Raises
    ------
    BotError
        The file raised, or its ``decide`` did not compile (one line). A deadline that ran out and Ctrl-C pass.
    """
    previous = sys.modules.get(module_name)
    try:
        module_spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[module_name] = module
        with file_load_deadline(path):
            module_spec.loader.exec_module(module)
    except (NotLoadedInTime, LoadTimedOut):  # its time, or (a file that loads this one) its loader's, ran out
        _put_back(module_name, previous)
        raise
    except PolicyError as error:
        _put_back(module_name, previous)
        raise BotError(f"{path}: {error}") from None
    except (Exception, SystemExit, KeyboardInterrupt) as error:  # a bot file is user code: its failure in one line
        _put_back(module_name, previous)
        if is_stop(error):
            raise  # Ctrl-C while the file ran
        raise BotError(f"{path}: cannot load: {named(error)}") from None
    return module


def _put_back(module_name: str, module) -> None:
    """``sys.modules[module_name]`` as it was: ``module``, or no entry for None."""
    if module is None:
        sys.modules.pop(module_name, None)
    else:
        sys.modules[module_name] = module


def values_changing_on_load(bot: Bot) -> list:
    """The globals of ``bot``'s file that compiled code freezes (numbers, strings, arrays, tuples:
    :func:`autodup.bot_identity.load_time_values`) and that its file computes otherwise when it loads a second
    time: from the clock, an unaddressed random number. Each worker of a run, a resume and another machine loads
    the file anew, so such a bot is another bot in each of them. Sorted names; ``["(a second load failed: ...)"]``
    when the file does not load again (its one-line error); ``[]`` for a Python agent, whose code is not compiled.

    The file's top level runs again (its ``decide`` compiles only if its values changed): as :func:`load_bot` runs
    it (:func:`_run_bot_file`), in a module of its own, so the bot already loaded is left as it is.
    """
    if bot.agent is not None:
        return []
    first = load_time_values(bot.policy.__wrapped__.__globals__)
    module_name = bot_module_name(bot.path)
    loaded = sys.modules.get(module_name)
    try:
        second = load_time_values(vars(_run_bot_file(bot.path, module_name)))
    except BotError as error:
        return [f"(a second load failed: {error})"]
    finally:
        _put_back(module_name, loaded)  # the second load only looks: the bot's own module stays registered
    return sorted(name for name in first.keys() | second.keys() if first.get(name) != second.get(name))


def load_bots(specs, overrides: dict | None = None, origin: str = "bot parameters") -> list:
    """Load several bots; ``overrides`` maps a bot name to ``{parameter: value}`` (from ``origin``)."""
    return apply_overrides([load_bot(spec) for spec in specs], overrides or {}, origin)


def override_error(origin: str, message: str) -> BotError:
    """A refused parameter override from ``origin``: the argument :data:`PARAMETERS_ARGUMENT` (named as the
    Python API or the command line spells it), or a file the message starts with."""
    return BotError(message, origin) if origin == PARAMETERS_ARGUMENT else BotError(f"{origin}: {message}")


def apply_overrides(bots, overrides: dict, origin: str) -> list:
    """``bots`` with ``overrides`` (``{bot name: {parameter: value}}``, from ``origin``) applied.

    Raises
    ------
    BotError
        An override names a bot that is not playing, or a parameter it lacks.
    """
    names = {bot.name for bot in bots}
    for name in overrides:
        if name not in names:
            raise override_error(origin, f"no bot named {name!r} is playing (playing: {', '.join(sorted(names))})")
    return [bot.with_parameters(overrides.get(bot.name, {}), origin) for bot in bots]


def parse_parameter_options(options) -> dict:
    """``["greedy.reserve=20", ...]`` into ``{"greedy": {"reserve": 20.0}}``."""
    result: dict = {}
    for option in options or []:
        key, sep, value = option.partition("=")
        bot, dot, parameter = key.partition(".")
        if not sep or not dot or not bot or not parameter:
            raise BotError(f"{option!r} is not BOT.PARAMETER=NUMBER", "bot_params")
        try:
            number = float(value)
        except ValueError:
            raise BotError(f"{option!r}: {value!r} is not a number", "bot_params") from None
        result.setdefault(bot, {})[parameter] = number
    return result


def load_parameter_file(path) -> dict:
    """A YAML file ``{bot: {parameter: number}}``, read as a configuration file is (``safe_load``'s types, with
    its limits, a key given twice refused, and so is a number YAML reads otherwise than written, ``050``)."""
    kind = special_file_kind(path)
    if kind is not None:
        raise BotError(f"{path}: not a regular file ({kind}) (allowed: a YAML file)")
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as error:
        raise BotError(f"{path}: cannot read ({error.strerror})") from None
    except UnicodeDecodeError:
        raise BotError(f"{path}: not UTF-8 text") from None
    try:
        data, notes = parse_yaml(text, str(path), empty_ok=True)
    except ConfigError as error:
        raise BotError(str(error)) from None
    if data is None:
        raise BotError(f"{path}: empty (allowed: bot names mapped to {{parameter: number}} mappings)")
    for where, spelling, key in yaml_surprises(notes):
        raise BotError(f"{path}:{spelling.line}: {dotted_path(where)}: {spelling.warning(key)} (allowed: a value "
                       "YAML reads as it is written)")
    if not isinstance(data, dict) or any(not isinstance(v, dict) for v in data.values()):
        raise BotError(f"{path}: must map bot names to {{parameter: number}} mappings")
    return data


def policy_tuple(bots) -> tuple:
    """``(policies, params, param_counts)`` for the table.

    ``policies`` holds MAX_PLAYERS callbacks (padded with the first), ``params``
    is float64 (MAX_PLAYERS, MAX_PARAMETERS) and ``param_counts`` int64
    (MAX_PLAYERS,): how many parameters each bot declares (it sees only those).
    """
    if not 1 <= len(bots) <= MAX_PLAYERS:
        raise BotError(f"a table takes 1 to {MAX_PLAYERS} distinct bots, got {len(bots)}")
    policies = tuple(bots[i].policy if i < len(bots) else bots[0].policy for i in range(MAX_PLAYERS))
    params = np.zeros((MAX_PLAYERS, MAX_PARAMETERS))
    param_counts = np.zeros(MAX_PLAYERS, dtype=np.int64)
    for i, bot in enumerate(bots):
        params[i] = bot.parameter_vector()
        param_counts[i] = len(bot.defaults)
    return policies, params, param_counts


Lineup = namedtuple("Lineup", ["policies", "params", "param_counts", "bot_of_seat"])


def seating(seat_bots) -> Lineup:
    """The table's arguments (see :func:`autodup.game.table.play_table`) from one :class:`Bot` per seat.

    Seats playing the same bot (same file and parameters) share one entry.
    """
    index_of: dict = {}  # (file, parameters) -> entry
    unique, bot_of_seat = [], []
    for bot in seat_bots:
        key = (bot.path, tuple(sorted(bot.parameters.items())))
        if key not in index_of:
            index_of[key] = len(unique)
            unique.append(bot)
        bot_of_seat.append(index_of[key])
    return Lineup(*policy_tuple(unique), np.array(bot_of_seat, dtype=np.int64))


@contextlib.contextmanager
def bot_errors_collected():
    """Collect the errors of failing policies (one line each) instead of printing a traceback per decision.

    A policy that raises inside the table returns 0 (counted in ``bot_errors``);
    Python reports the exception through ``sys.unraisablehook``, which this
    replaces for the duration. Yields the list the first 20 messages go to.
    """
    errors = []
    previous_hook = sys.unraisablehook

    def record(unraisable):
        error = unraisable.exc_value
        if is_stop(error):  # a stop: the hook before decides
            previous_hook(unraisable)
            return
        if len(errors) < 20:  # a bot may fail a million times; its first messages say why
            errors.append(named(error))

    sys.unraisablehook = record
    try:
        yield errors
    finally:
        sys.unraisablehook = previous_hook


# --------------------------------------------------------------------------
# the bot check
