"""Python agents at tournament tables: loaded by ``module:Class``, seated like bots, played from outside the table.

An agent is any object with a method ``act``; ``autodup run --bots mypackage.module:Agent,greedy,...`` seats it
(or ``path/to/file.py:Agent``; a class is instantiated without arguments, any other object is used as it is)::

    class Agent:
        NAME = "my_agent"              # optional: the name results use (default: the class's name)

        def act(self, observation, action_mask, generator):
            '''One numbered action (autodup.game.observation) for one decision.'''
            return int(generator.choice(np.flatnonzero(action_mask)))

        def act_batch(self, observations, action_masks, generators):   # optional
            '''int (k,): one action for each of k decisions (observations: the dict's arrays, k rows each).'''

``observation`` is the dict the environments give (:mod:`autodup.env.spaces`: ``me``, ``shop``,
``unit_champion``, ``unit_star``, ``pool``, ``action_mask``); ``action_mask`` is int8 (A,). ``generator`` (a
third parameter is optional: an ``act`` of two parameters is called without it) is a
:class:`numpy.random.Generator` of the seat at that board, from the seed tree (label ``LABEL_AGENT`` under the
seat's seed): the same at every table of the board, as a bot's own random numbers are, and the same whatever
the workers. With ``act_batch``, the tables waiting for the agent are asked together (faster); ``generators``
is then a list of k generators.

Results are deterministic when ``act`` depends only on its arguments: an agent must not learn or keep state
between calls during a tournament (workers each load their own copy and play boards in any order). An action
that is not a numbered action counts as a bad answer and ends the turn; an exception counts as an error
(``bot_errors``) and ends the turn, as a bot's do, and the first one is reported with the run's summary.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import os
import re
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from ..bot_identity import bot_module_name, modules_digest
from ..engine.dealers import Dealer, dealer_named
from ..engine.rng import LABEL_AGENT, derive_seed
from ..errors import BotError, is_stop, named
from .boards import BRANCHES, SEATINGS, BoardResults, check_order, collect_games, new_board_arrays, seat_bot
from .bot_loading import Bot, policy_tuple
from .load_deadline import file_load_deadline
from .observation import OBSERVATION_KEYS, observation_row
from .progress import PROGRESS_BOARD, PROGRESS_GAMES, PROGRESS_IN_GAME, PROGRESS_SEAT, PROGRESS_TABLE, new_progress
from .resumable import ResumableTables
from .table import end_every_turn

__all__ = ["AGENT_SPEC", "is_agent_spec", "numbered_action", "load_agent", "agent_source_file", "AgentSeat",
           "agent_as_bot", "agent_generator", "play_boards_with_agents"]

AGENT_SPEC = re.compile(r"^(?P<source>[A-Za-z_][\w.]*|.+\.py):(?P<name>[A-Za-z_]\w*)$")
_NOT_AN_ANSWER = 1  # sent for an action that is not a numbered action: the table counts a bad answer
_LOADED: dict = {}


def is_agent_spec(spec: str) -> bool:
    """Whether ``spec`` names a Python agent (``module:Class`` or ``file.py:Class``) rather than a bot."""
    return AGENT_SPEC.match(spec) is not None


def numbered_action(action, actions: int) -> int:
    """``action`` as a numbered action below ``actions``, or -1 if it is not one: an int or a numpy integer (not a
    bool), or a 0-d integer array (what a policy's ``predict`` returns for one observation, and what Gymnasium's
    ``Discrete.contains`` accepts). Compared before it is converted, so that no int is too large."""
    if isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(action.dtype, np.integer):
        action = action[()]
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)) or not 0 <= action < actions:
        return -1
    return int(action)


class AgentSeat:
    """A loaded agent and how it is called."""

    def __init__(self, agent, name: str, source_file: str | None = None):
        self.agent = agent
        self.name = name
        self.source_file = source_file  # the file its class is defined in, when it has one
        self.takes_generator = _takes_third(agent.act)
        batch = getattr(agent, "act_batch", None)
        self.batch = batch if callable(batch) else None
        self.batch_takes_generator = self.batch is not None and _takes_third(self.batch)

    def decide(self, observations, rows, actions: int, generators) -> np.ndarray:
        """int64 (len(rows),): answers (encoded) for rows ``rows`` of ``observations``, or sentinels.

        Returns the numbered actions; -1 marks an action that is not one (a bad answer), -2 an exception.
        """
        try:
            if self.batch is not None:
                batch = {key: array[rows] for key, array in zip(OBSERVATION_KEYS, observations)}
                arguments = (batch, batch["action_mask"]) + ((generators(rows),) if self.batch_takes_generator else ())
                chosen = np.asarray(self.batch(*arguments))
                if chosen.shape != (rows.shape[0],) or chosen.dtype.kind not in "iu":
                    return np.full(rows.shape[0], -1, dtype=np.int64)
                chosen = chosen.astype(np.int64)
            else:
                chosen = np.empty(rows.shape[0], dtype=np.int64)
                gens = generators(rows) if self.takes_generator else None
                for k, row in enumerate(rows.tolist()):
                    observation = observation_row(observations, row)
                    arguments = (observation, observation["action_mask"]) + ((gens[k],) if gens else ())
                    chosen[k] = numbered_action(self.agent.act(*arguments), actions)
        except (Exception, SystemExit, KeyboardInterrupt) as error:  # user code: counted and reported, as a bot's
            if is_stop(error):
                raise  # Ctrl-C while the agent chose
            _report(error)
            return np.full(rows.shape[0], -2, dtype=np.int64)
        chosen[(chosen < 0) | (chosen >= actions)] = -1
        return chosen


def _takes_third(method) -> bool:
    """Whether ``method`` accepts a third positional argument (the generators)."""
    try:
        parameters = list(inspect.signature(method).parameters.values())
    except (TypeError, ValueError):
        return False
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 3 or any(p.kind == p.VAR_POSITIONAL for p in parameters)


def _report(error: BaseException) -> None:
    """Report an agent's exception as numba reports a policy's: through ``sys.unraisablehook`` (a run's workers
    record the first one of each bot, with where it happened; elsewhere it is printed)."""
    sys.unraisablehook(SimpleNamespace(exc_type=type(error), exc_value=error, exc_traceback=None,
                                       err_msg="agent error", object=None))


def _import(spec: str, source: str):
    """The module of an agent spec: a file's, or a module importable from here (the working folder included)."""
    if source.endswith(".py"):
        path = Path(source).expanduser()
        if not path.is_file():
            raise BotError(f"{spec}: no such agent file {source!r}")
        path = path.resolve()
        module_name = bot_module_name(path)
        if module_name in sys.modules:
            return sys.modules[module_name], path, f"{path}:"
        module_spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[module_name] = module
        try:
            module_spec.loader.exec_module(module)
        except BaseException:
            sys.modules.pop(module_name, None)
            raise
        return module, path, f"{path}:"
    if os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())  # as `python -m` would: a module in the working folder can be named
    module = importlib.import_module(source)
    if not getattr(module, "__file__", None):
        raise BotError(f"{spec}: module {source!r} has no file (allowed: a module of Python source)")
    return module, Path(module.__file__).resolve(), f"{source}:"


def agent_source_file(spec: str) -> Path:
    """The Python file an agent spec's class is defined in (what a run keeps a copy of)."""
    return Path(load_agent(spec).agent.source_file)


def load_agent(spec: str) -> Bot:
    """Load the Python agent ``spec`` names (``module:Class`` or ``file.py:Class``) as a :class:`Bot`.

    Raises
    ------
    BotError
        One line: what cannot be imported, found or called.
    """
    match = AGENT_SPEC.match(spec)
    if match is None:
        raise BotError(f"{spec}: not an agent (allowed: module:Class or file.py:Class)")
    source, attribute = match["source"], match["name"]
    try:
        with file_load_deadline(spec):
            module, file, prefix = _import(spec, source)
    except BotError:  # NotLoadedInTime among them
        raise
    except (Exception, SystemExit, KeyboardInterrupt) as error:
        if is_stop(error):
            raise  # Ctrl-C while the module ran
        raise BotError(f"{spec}: cannot import {source}: {named(error)}") from None
    canonical = prefix + attribute
    if canonical in _LOADED:
        return _LOADED[canonical]
    made = getattr(module, attribute, None)
    if made is None:
        raise BotError(f"{spec}: {source} has no {attribute!r}")
    try:
        agent = made() if isinstance(made, type) else made
    except Exception as error:
        raise BotError(f"{spec}: {attribute}() failed: {named(error)}") from None
    fingerprint = hashlib.sha256(file.read_bytes() + modules_digest(vars(module)).encode()).hexdigest()
    bot = agent_as_bot(agent, made, Path(canonical), fingerprint, spec, str(file))
    _LOADED[canonical] = bot
    return bot


def agent_as_bot(agent, made, path: Path, fingerprint: str, where: str, source_file: str | None = None) -> Bot:
    """A :class:`Bot` whose seats ``agent`` plays from outside (``made``: the class it was made from, or itself).

    Its name is the agent's ``NAME``, else its class's; ``where`` starts the one-line :class:`BotError` that
    refuses an object without ``act`` or with an unusable name.
    """
    if not callable(getattr(agent, "act", None)):
        raise BotError(f"{where}: an agent needs a method act(observation, action_mask[, generator]) returning a "
                       "numbered action (see autodup.game.agents)")
    name = getattr(agent, "NAME", None) or (made.__name__ if isinstance(made, type) else type(agent).__name__)
    if not isinstance(name, str) or not name.isidentifier():
        raise BotError(f"{where}: NAME must be a name made of letters, digits and _ (got {name!r})")
    doc = (inspect.getdoc(made) or "").strip()
    description = doc.splitlines()[0] if doc else f"the Python agent {path}"
    return Bot(name, description, {}, end_every_turn(), path, {}, fingerprint, AgentSeat(agent, name, source_file))


def agent_generator(seat_seed) -> np.random.Generator:
    """The generator an agent gets at a seat of a board: a child of the seat's seed (``LABEL_AGENT``)."""
    return np.random.default_rng(derive_seed(int(seat_seed), LABEL_AGENT, 0))


def play_boards_with_agents(rules, dealer, bots, *, seed: int, boards: int = 1, first_board: int = 0,
                            tables: int = 1, seating: str = "latin", bot_of_seat=None, order: str = "events",
                            events: str = "seat", check: bool = False, progress=None, trace_draws: int = 0,
                            branch: str = "evaluation") -> BoardResults:
    """:func:`~autodup.game.boards.play_boards` with Python agents among ``bots`` (:class:`Bot` with ``agent``).

    Arguments are those of :func:`play_boards`, with the bots themselves (``bots[k]`` is bot ``k`` of the seating;
    ``bot_of_seat`` indexes them for the ``fixed`` seating).

    Every table of the boards is played at once (:class:`~autodup.game.resumable.ResumableTables`): the bots in
    compiled code, and at each step every table waiting for an agent asks it (all of them in one call with
    ``act_batch``). The results are those :func:`play_boards` would give if the agents were bots that answer alike:
    same seeds, same seating, same arrays.
    """
    dealer = dealer if isinstance(dealer, Dealer) else dealer_named(dealer)
    check_order(dealer, order)
    design = SEATINGS[seating].code
    n_bots = len(bots)
    n = boards * tables
    board_of = np.repeat(first_board + np.arange(boards, dtype=np.int64), tables)
    table_of = np.tile(np.arange(tables, dtype=np.int64), boards)
    fixed = np.zeros(rules.players, dtype=np.int64) if bot_of_seat is None else np.asarray(bot_of_seat, np.int64)
    bot_of_seat = np.array([[seat_bot(design, board_of[e], table_of[e], s, n_bots, fixed)
                             for s in range(rules.players)] for e in range(n)], dtype=np.int64).reshape(
        n, rules.players)
    agents = [bot.agent for bot in bots]
    outside = np.array([agent is not None for agent in agents])[bot_of_seat]
    games = ResumableTables.seated(rules, policy_tuple(bots), bot_of_seat, outside, seed, board_of, table_of,
                                   dealer.name, order, events, BRANCHES[branch], trace_draws, check)
    waiting = games.waiting  # the tables write it in place at every step
    generators: dict = {}

    def generators_of(rows):
        """The generator of each row's waiting seat: made at the seat's first decision, kept for its game."""
        for row in rows.tolist():
            key = (row, int(waiting[row]))
            if key not in generators:
                generators[key] = agent_generator(games.seat_seeds[key])
        return [generators[(row, int(waiting[row]))] for row in rows.tolist()]

    progress = new_progress() if progress is None else progress
    actions = len(games.layout.names)
    answers = np.append(games.layout.answers, [0, _NOT_AN_ANSWER])  # [-1]: a bad answer, [-2]: an error
    decisions = np.zeros(n, dtype=np.int64)
    progress[PROGRESS_IN_GAME] = 1
    while True:
        active = np.flatnonzero(waiting >= 0)
        if active.size == 0:
            break
        progress[PROGRESS_GAMES] += 1  # a watchdog's deadline restarts at each step
        deciding = bot_of_seat[active, waiting[active]]
        for index in np.unique(deciding).tolist():
            rows = active[deciding == index]
            # Where an agent that hangs or raises is reported: the first of the tables it is asked for.
            progress[PROGRESS_BOARD], progress[PROGRESS_TABLE] = board_of[rows[0]], table_of[rows[0]]
            progress[PROGRESS_SEAT] = waiting[rows[0]]
            decisions[rows] = answers[agents[index].decide(games.observations, rows, actions, generators_of)]
        progress[PROGRESS_SEAT] = -1
        games.step(waiting >= 0, decisions)
    progress[PROGRESS_IN_GAME] = 0
    return BoardResults(*collect_games(rules, games.games, bot_of_seat, boards, tables,
                                       new_board_arrays(rules, boards, tables, trace_draws)))
