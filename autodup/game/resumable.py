"""A table that stops whenever a seat played from outside must decide, and resumes with its decision.

The game is the one :func:`~autodup.game.table.play_table` plays: the same
jitted rounds and turns (:func:`~autodup.game.table.advance`), with some seats
marked as played from outside. When one of them must decide, the table fills
its view, exactly as it does for a bot, and returns; :meth:`ResumableTable.act`
applies the decision and plays on. The seats played by bots keep running in
jitted code in between, and every array of the game lives in a
:class:`~autodup.game.table.Game`, so a table can be copied (:meth:`clone`)
and played on from the copy. If the outside seats answer as a bot would, the
game is the game that bot plays at :func:`play_table`, bit for bit.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np
from numba import njit, typed

from ..arguments import MAX_INDEX, integer
from ..arguments import seed as check_seed
from ..array_allocation import filled
from ..driver_linking import optimised_before_linking
from ..engine.dealers import dealer_named
from ..errors import BotError, UsageError
from .boards import check_order, table_seeds
from .bot_loading import Bot, load_bot, seating
from .cursor import CURSOR_PHASE, CURSOR_ROUND, CURSOR_ROUNDS, CURSOR_VIOLATIONS, CURSOR_WAITING, PHASE_OVER
from .observation import Observations, action_layout, new_observations, observe_seat
from .policy_frames import FRAME_WORDS, fill_frame, frame_pointer
from .progress import new_progress
from .rules import EVENT_ADDRESSING, ORDERS, Rules, rules_of
from .table import TableLog, advance, check_table_arguments, end_every_turn, game_log, game_results, new_game
from .view import MAX_PARAMETERS, MAX_PLAYERS

__all__ = ["SeatView", "ResumableTables", "ResumableTable", "advance_tables", "restart_games", "call_policy",
           "new_games", "append_game", "game_at", "results_at", "log_at", "desk_at", "cursor_field", "box_policies",
           "rules_from", "bots_from"]


class SeatView(NamedTuple):
    """What a seat sees when it must decide: the arguments a bot's policy is called with (see ``POLICY_SIGNATURE``).

    The arrays are the table's own copies for the seat, rebuilt before each
    decision; writing into them changes nothing but those copies (``memory``
    is kept for the seat from one decision to the next, as for a bot).
    """

    me: np.ndarray
    shop: np.ndarray
    unit_champion: np.ndarray
    unit_star: np.ndarray
    pool: np.ndarray
    champion_cost: np.ndarray
    champion_traits: np.ndarray
    trait_breakpoints: np.ndarray
    params: np.ndarray
    memory: np.ndarray


@njit(cache=True, no_cfunc_wrapper=True)
def call_policy(policy, me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints,
                params, memory):
    """A compiled policy's answer to a view (:class:`SeatView`'s fields): a bot asked from Python.

    The arrays must be C-contiguous (the policy is handed them through a frame: :mod:`.policy_frames`)."""
    frame = filled(FRAME_WORDS, 0, np.int64)
    fill_frame(frame, me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints,
               params, memory)
    return policy(frame_pointer(frame))


# Marked (autodup.driver_linking), as _advance_one: LLVM need not optimise the whole game again at each level.
@optimised_before_linking
@njit(cache=True, no_cfunc_wrapper=True)
def advance_tables(rules, dealer, order, events, seat_seeds, event_seeds, policy_box, params, param_counts,
                   bot_of_seat, outside, check, progress, games, has_decision, decisions, waiting, over,
                   observations, placements):
    """Play each of many tables on (:func:`~autodup.game.table.advance`) in one call.

    Parameters
    ----------
    seat_seeds : uint64 (tables, players)
    event_seeds : uint64 (tables,)
    policy_box : numba typed List holding the one tuple of policies every table plays
        (a typed List crosses into compiled code at a constant cost, a tuple of
        callbacks at a cost that dominates a step)
    bot_of_seat, outside : int64 / bool (tables, players)
    games : numba typed List of Game, one per table
    has_decision : bool (tables,)
        Resume table ``i``'s waiting seat with ``decisions[i]``; a table that
        has none to resume with, or is over, is left as it is.
    decisions : int64 (tables,)
    waiting : int64 (tables,)
        Read and written: the seat each table waits for, -1 before the first
        step and once it is over.
    over : bool (tables,)
        Read and written: which games are over. With ``waiting`` it lets a
        table that has nothing to do be passed by without taking it out of
        ``games`` (taking one costs a reference count on each of its arrays).
    observations : Observations
        Written: row ``i`` is what table ``i``'s waiting seat sees, for each table that waits.
    placements : int64 (tables, players)
        Written for each table that moved: each seat's placement, 0 while it plays on.
    """
    policies = policy_box[0]
    # One thread: played in parallel (numba's prange) the tables went 1.6x faster on 2 cores, but OpenMP's
    # threads spin between two calls, taking a core from the agent's own Python; without spinning, 1.16x.
    for k in range(len(games)):
        _advance_one(rules, dealer, order, events, seat_seeds, event_seeds, policies, params, param_counts,
                     bot_of_seat, outside, check, progress, games, has_decision, decisions, waiting, over,
                     observations, placements, np.int64(k))


@optimised_before_linking  # its one call to advance is per step: see advance_tables
@njit(cache=True, no_cfunc_wrapper=True)
def _advance_one(rules, dealer, order, events, seat_seeds, event_seeds, policies, params, param_counts, bot_of_seat,
                 outside, check, progress, games, has_decision, decisions, waiting, over, observations, placements, i):
    """Table ``i``'s part of :func:`advance_tables`."""
    if not has_decision[i] and (waiting[i] >= 0 or over[i]):
        return
    game = games[i]
    if has_decision[i] or (game.cursor[CURSOR_PHASE] != PHASE_OVER and game.cursor[CURSOR_WAITING] < 0):
        advance(rules, dealer, order, events, seat_seeds[i], event_seeds[i], policies, params, param_counts,
                bot_of_seat[i], outside[i], check, progress, game, has_decision[i], decisions[i])
    seat = game.cursor[CURSOR_WAITING]
    waiting[i] = seat
    over[i] = game.cursor[CURSOR_PHASE] == PHASE_OVER
    for s in range(placements.shape[1]):
        placements[i, s] = game.table.placement[s]
    if seat >= 0:
        observe_seat(game.desk, seat, observations, i)


@njit(cache=True, no_cfunc_wrapper=True)
def restart_games(rules, tournament_seed, table_of, shared, branch, trace_draws, n_params, games, seat_seeds,
                  event_seeds, tables, boards):
    """Put a new game of board ``boards[k]`` at entry ``tables[k]`` of ``games``, its seeds from the seed tree.

    Parameters
    ----------
    table_of : int64 (entries,)
        Which table of its board each entry is.
    seat_seeds : uint64 (entries, players), event_seeds : uint64 (entries,)
        Written for the restarted entries (:func:`~autodup.game.boards.table_seeds`).
    tables, boards : int64 (k,)
    """
    for k in range(tables.shape[0]):
        i = tables[k]
        event_seeds[i] = table_seeds(tournament_seed, boards[k], table_of[i], shared, seat_seeds[i], branch)
        games[i] = new_game(rules, trace_draws, n_params)


# The typed List of games is made, read and copied by these kernels, never by Python: numba does not cache its
# own typed-List methods, so each one Python calls compiles afresh in every process, for the List of games
# 4 s to build it and 12 s to take one game out (measured in a warm process).
@njit(cache=True, no_cfunc_wrapper=True)
def new_games(rules, trace_draws, n_params, n):
    """A numba typed List of ``n`` games before their first round (:func:`~autodup.game.table.new_game`)."""
    games = typed.List()
    for _ in range(n):
        games.append(new_game(rules, trace_draws, n_params))
    return games


@njit(cache=True, no_cfunc_wrapper=True)
def append_game(games, game):
    """Append ``game`` (a :class:`~autodup.game.table.Game`) to ``games``."""
    games.append(game)


@njit(cache=True, no_cfunc_wrapper=True)
def game_at(games, i):
    """Entry ``i`` of ``games``: the game itself, its arrays shared with the List's."""
    return games[i]


@njit(cache=True, no_cfunc_wrapper=True)
def results_at(rules, games, i):
    """:func:`~autodup.game.table.game_results` of entry ``i`` of ``games`` (int64 (players, len(RESULT_COLUMNS)))."""
    return game_results(rules, games[i])


@njit(cache=True, no_cfunc_wrapper=True)
def log_at(games, i):
    """:func:`~autodup.game.table.game_log` of entry ``i`` of ``games`` (its arrays, not copies)."""
    return game_log(games[i])


@njit(cache=True, no_cfunc_wrapper=True)
def desk_at(games, i):
    """The desk of entry ``i`` of ``games`` (:class:`~autodup.game.state.Desk`), its arrays shared."""
    return games[i].desk


@njit(cache=True, no_cfunc_wrapper=True)
def cursor_field(games, field):
    """int64 (len(games),): field ``field`` of each game's cursor."""
    values = np.empty(len(games), dtype=np.int64)
    for i in range(len(games)):
        values[i] = games[i].cursor[field]
    return values


@njit(cache=True, no_cfunc_wrapper=True)
def box_policies(policies):
    """A numba typed List holding the one tuple of policies (``advance_tables``' ``policy_box``)."""
    box = typed.List()
    box.append(policies)
    return box


def rules_from(rules):
    """Compiled rules from rules, a :class:`GameConfig`, a shipped configuration's name or a YAML file's path."""
    from .config import GameConfig, load_config  # here: compiled code never reaches the YAML reader

    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, GameConfig):
        return rules_of(rules)
    if isinstance(rules, (str, Path)):
        return rules_of(load_config(rules))
    raise UsageError(f"expected a configuration (a shipped name, a YAML file's path, a GameConfig or Rules), got "
                     f"{type(rules).__name__}", "rules")


def bots_from(seat_bots) -> list:
    """One Bot or None per seat, from Bots, bot names or paths, and None."""
    if isinstance(seat_bots, (str, bytes)) or not hasattr(seat_bots, "__len__"):
        raise UsageError("expected one entry per seat, a bot (a Bot, a name or a path) or None for a seat played "
                         "from outside", "seat_bots")
    bots = []
    for seat, bot in enumerate(seat_bots):
        if bot is None or isinstance(bot, Bot):
            bots.append(bot)
        elif isinstance(bot, (str, Path)):
            try:
                bots.append(load_bot(str(bot)))
            except BotError as error:
                raise UsageError(f"seat {seat}: {error}", "seat_bots") from None
        else:
            raise UsageError(f"seat {seat}: expected a bot (a Bot, a name or a path) or None, got "
                             f"{type(bot).__name__}", "seat_bots")
    return bots


def _copy(value):
    """A deep copy of a game: its named tuples rebuilt, its arrays copied."""
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(_copy(item) for item in value))
    return value


class ResumableTables:
    """Tables of boards of one tournament seed, some of whose seats are played from outside, stepped together.

    Parameters
    ----------
    rules : Rules, GameConfig, or str
        Compiled rules (:func:`autodup.game.rules.rules_of`), a configuration, a shipped configuration's
        name (``"set4"``) or a YAML file's path.
    seat_bots : sequence of Bot, str or None, one per seat
        The bot at each seat (a loaded bot, a shipped bot's name or a bot file's path); ``None`` marks a
        seat played from outside. Every table seats them alike.
    seed : int
        The tournament seed.
    boards : sequence of int
        One table per entry: table ``i`` plays board ``boards[i]``. Its seeds come from the seed tree as in
        ``autodup play``: seat ``s`` gets the seat seed of its board, shared by every table of the board
        unless the dealer is ``independent``.
    table : int
        Which table of its board each one is (the ``independent`` dealer gives each its own seeds).
    dealer, order, events : str
        As for :func:`autodup.game.boards.play_boards`.
    check : bool
        Verify the tables' invariants after every step (counted in :meth:`violations`).
    branch : int, optional
        The seed tree's board label (:data:`autodup.game.boards.BRANCHES`); evaluation boards by default.

    Attributes
    ----------
    waiting : int64 (tables,)
        The seat each table waits for, -1 once its game is over.
    observations : Observations
        Row ``i`` is what table ``i``'s waiting seat sees: its view, shop, units, the pool and the mask of
        its legal numbered actions (:mod:`autodup.game.observation`); rows of tables that are over are stale.
    views : int64 (tables, VIEW_FIELDS)
        ``observations.me``: each waiting seat's view.
    placements : int64 (tables, players)
        Each seat's placement (1 is first), 0 while it plays on.
    layout : ActionLayout
        The numbered actions (:func:`~autodup.game.observation.action_layout`).
    """

    def __init__(self, rules, seat_bots, seed: int = 0, boards=(0,), table: int = 0, dealer: str = "haystack",
                 order: str = "events", events: str = "seat", check: bool = False, branch: int | None = None):
        from .boards import BRANCHES

        rules = rules_from(rules)
        seat_bots = bots_from(seat_bots)
        if len(seat_bots) != rules.players:
            raise UsageError(f"a table of this configuration seats {rules.players} players, got {len(seat_bots)} "
                             "seats", "seat_bots")
        seed = check_seed("seed", seed)
        table = integer("table", table, 0, MAX_INDEX)
        if isinstance(boards, (str, bytes)) or not hasattr(boards, "__iter__"):
            raise UsageError(f"expected a sequence of board indices (e.g. range(16)), got {type(boards).__name__}",
                             "boards")
        boards = [integer("boards", board, 0, MAX_INDEX) for board in boards]
        if not boards:
            raise UsageError("no board (allowed: one board index or more, each a table of its own)", "boards")
        try:
            record = dealer_named(dealer, "dealer")
        except ValueError as error:
            raise UsageError(str(error).removeprefix("dealer: "), "dealer") from None
        check_order(record, order)
        if events not in EVENT_ADDRESSING:
            raise UsageError(f"unknown event addressing {events!r} (allowed: {', '.join(EVENT_ADDRESSING)})", "events")
        outside = np.array([bot is None for bot in seat_bots], dtype=np.bool_)
        bots = [bot for bot in seat_bots if bot is not None]
        if bots:
            policies, params, param_counts, bot_of_seat = seating([bot or bots[0] for bot in seat_bots])
            bot_of_seat = np.where(outside, 0, bot_of_seat)
        else:  # every seat from outside: a placeholder policy that is never called
            policies = (end_every_turn(),) * MAX_PLAYERS
            params = np.zeros((MAX_PLAYERS, MAX_PARAMETERS))
            param_counts = np.zeros(MAX_PLAYERS, dtype=np.int64)
            bot_of_seat = np.zeros(rules.players, dtype=np.int64)
        n = len(boards)
        self.seat_bots = tuple(seat_bots)
        self._seat(rules, (policies, params, param_counts), np.tile(bot_of_seat, (n, 1)), np.tile(outside, (n, 1)),
                   seed, np.array(boards, dtype=np.int64), np.full(n, table, dtype=np.int64), record, order, events,
                   check, BRANCHES["evaluation"] if branch is None else branch, 0)

    @classmethod
    def seated(cls, rules, lineup, bot_of_seat, outside, seed: int, boards, tables, dealer: str = "haystack",
               order: str = "events", events: str = "seat", branch: int | None = None,
               trace_draws: int = 0, check: bool = False) -> "ResumableTables":
        """Tables each seated its own way: what a tournament with agents at some seats plays.

        Arguments are checked by the caller (:func:`autodup.game.agents.play_boards_with_agents`).

        Parameters
        ----------
        lineup : (policies, params, param_counts)
            As :func:`~autodup.game.bot_loading.policy_tuple` gives them.
        bot_of_seat : int64 (tables, players)
            The entry of ``lineup`` at each seat (any valid entry at a seat from outside).
        outside : bool (tables, players)
            The seats played from outside.
        boards, tables : int64 (tables,)
            The board and the table of its board each entry plays.
        trace_draws : int
            Keep each seat's first draws with their inputs (as :func:`~autodup.game.boards.play_boards`).
        check : bool
            Verify the tables' invariants after every step.
        """
        from .boards import BRANCHES

        twin = object.__new__(cls)
        twin.seat_bots = ()
        twin._seat(rules, lineup, np.asarray(bot_of_seat, dtype=np.int64), np.asarray(outside, dtype=np.bool_),
                   seed, np.asarray(boards, dtype=np.int64), np.asarray(tables, dtype=np.int64), dealer_named(dealer),
                   order, events, check, BRANCHES["evaluation"] if branch is None else branch, trace_draws)
        return twin

    def _seat(self, rules, lineup, bot_of_seat, outside, seed, boards, tables, record, order, events, check, branch,
              trace_draws):
        """Seeds from the seed tree, the games before their first decision, and the arrays a step writes."""
        policies, params, param_counts = lineup
        n = boards.shape[0]
        seat_seeds = np.zeros((n, rules.players), dtype=np.uint64)
        event_seeds = np.zeros(n, dtype=np.uint64)
        self._seeding = (record.shares_seeds, branch, trace_draws)
        self.boards, self.tables = boards, tables
        self.seed = seed
        for i in range(n):
            event_seeds[i] = table_seeds(np.uint64(seed), boards[i], tables[i], record.shares_seeds, seat_seeds[i],
                                         branch)
        progress = new_progress()
        check_table_arguments(rules, record.code, ORDERS[order], EVENT_ADDRESSING[events], seat_seeds[0], policies,
                              params, param_counts, bot_of_seat[0], progress)
        self.rules = rules
        self.outside = outside[0]
        self._setup = (rules, record.code, ORDERS[order], EVENT_ADDRESSING[events], seat_seeds, event_seeds,
                       box_policies(policies), params, param_counts, bot_of_seat, outside, bool(check), progress)
        self.layout = action_layout(rules)
        self.games = new_games(rules, trace_draws, params.shape[1], n)
        self.waiting = np.full(n, -1, dtype=np.int64)
        self._over = np.zeros(n, dtype=np.bool_)
        self.observations = new_observations(rules, n)
        self.placements = np.zeros((n, rules.players), dtype=np.int64)
        self.step(np.zeros(n, dtype=np.bool_), np.zeros(n, dtype=np.int64))

    @property
    def views(self) -> np.ndarray:
        return self.observations.me

    def __len__(self) -> int:
        return self.boards.shape[0]

    @property
    def seat_seeds(self) -> np.ndarray:
        """uint64 (tables, players): each table's seat seeds (from the seed tree)."""
        return self._setup[4]

    def step(self, has_decision, decisions) -> None:
        """Resume each table marked in ``has_decision`` (bool (tables,)) with ``decisions`` (int64 (tables,), encoded
        answers), and play every table on to its next decision from outside: :meth:`act` without its checks, for
        callers that build both arrays themselves (the environments, :mod:`autodup.game.agents`)."""
        advance_tables(*self._setup, self.games, has_decision, decisions, self.waiting, self._over,
                       self.observations, self.placements)

    def act(self, decisions, tables=None) -> np.ndarray:
        """Apply each waiting seat's decision and play every table on; returns :attr:`waiting`.

        ``decisions`` holds one answer (:func:`autodup.bots.encode_decision`) per
        table, judged as a bot's is: an illegal action is counted and refused,
        anything that is not an answer ends the turn and counts as a bad answer
        (0 as an error). ``tables`` (bool (tables,)) picks the tables that act;
        by default every table that waits. Tables that are over are left alone.
        """
        answers = np.asarray(decisions)
        if answers.dtype.kind not in "iu" or answers.shape not in ((), (len(self),)):
            raise UsageError(f"expected one integer answer per table ({len(self)}; autodup.bots.encode_decision), got "
                             f"{str(decisions)[:60]}", "decisions")
        try:
            decisions = np.array(np.broadcast_to(answers.astype(np.int64, casting="safe"), (len(self),)))
        except TypeError:
            raise UsageError(f"answers are 64-bit integers (autodup.bots.encode_decision), got {answers.dtype}",
                             "decisions") from None
        acting = self.waiting >= 0
        if tables is not None:
            chosen = np.asarray(tables)
            if chosen.dtype != np.bool_ or chosen.shape != (len(self),):
                raise UsageError(f"expected one bool per table ({len(self)}), got {str(tables)[:60]}", "tables")
            acting &= chosen
        self.step(acting, decisions)
        return self.waiting

    def view(self, i: int = 0) -> SeatView:
        """Table ``i``'s waiting seat's view (:class:`SeatView`); ``UsageError`` once that game is over."""
        i = self._index(i)
        seat = int(self.waiting[i])
        if seat < 0:
            raise UsageError(f"table {i}: the game is over: no seat is waiting for a decision", "view")
        desk = desk_at(self.games, i)
        return SeatView(desk.me[seat], desk.shop[seat], desk.unit_champion[seat], desk.unit_star[seat],
                        desk.pool[seat], desk.champion_cost[seat], desk.champion_traits[seat],
                        desk.trait_breakpoints[seat], desk.params[seat, :0], desk.memory[seat])

    def desk(self, i: int):
        """Table ``i``'s :class:`~autodup.game.state.Desk` (the views and copies of its seats played from outside),
        its arrays the table's own."""
        return desk_at(self.games, self._index(i))

    def finished(self) -> np.ndarray:
        """bool (tables,): which games have ended."""
        return self._over.copy()

    def restart(self, i: int, board: int) -> int:
        """Start table ``i`` over on board ``board`` (same seed, table and seats); returns its waiting seat."""
        i = self._index(i)
        self.restart_tables(np.array([i]), np.array([integer("board", board, 0, MAX_INDEX)]))
        return int(self.waiting[i])

    def restart_tables(self, tables, boards) -> None:
        """Start each of ``tables`` (int64 (k,), distinct indices) over on the matching board of ``boards``.

        One call plays every restarted table to its first decision (the vector environment's reset of the
        tables whose games ended). Indices and boards are the caller's to check (:meth:`restart` does).
        """
        rules, seat_seeds, event_seeds, params = self._setup[0], self._setup[4], self._setup[5], self._setup[7]
        restart_games(rules, np.uint64(self.seed), self.tables, self._seeding[0], self._seeding[1], self._seeding[2],
                      params.shape[1], self.games, seat_seeds, event_seeds, tables, boards)
        self.boards[tables] = boards
        self.waiting[tables], self._over[tables], self.placements[tables] = -1, False, 0
        self.step(np.zeros(len(self), dtype=np.bool_), np.zeros(len(self), dtype=np.int64))

    def cursor(self, field: int) -> np.ndarray:
        """int64 (tables,): one field of each table's cursor (``CURSOR_ROUND``...)."""
        return cursor_field(self.games, field)

    def clone(self) -> "ResumableTables":
        """An independent copy: both play on alike from here, whatever is done with the other."""
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        twin.games = new_games(self.rules, 0, 0, 0)  # an empty List of the games' type
        for i in range(len(self)):
            append_game(twin.games, _copy(game_at(self.games, i)))
        twin.waiting, twin._over, twin.boards = self.waiting.copy(), self._over.copy(), self.boards.copy()
        twin.placements = self.placements.copy()
        twin.observations = Observations(*(array.copy() for array in self.observations))
        twin._setup = tuple(item.copy() if isinstance(item, np.ndarray) else item for item in self._setup[:-1]) + (
            new_progress(),)
        return twin

    def results(self, i: int = 0) -> np.ndarray:
        """int64 (players, len(RESULT_COLUMNS)): table ``i``'s final states and stats (its game must be over)."""
        i = self._index(i)
        if not self._over[i]:
            raise UsageError(f"table {i}: the game is not over: its results are not known yet", "results")
        return results_at(self.rules, self.games, i)

    def log(self, i: int = 0) -> TableLog:
        """What :func:`~autodup.game.table.play_table` logs of table ``i``'s game (its rows so far)."""
        return log_at(self.games, self._index(i))

    def _index(self, i) -> int:
        return integer("i", i, 0, len(self) - 1)


class ResumableTable(ResumableTables):
    """One table of board ``board``: :class:`ResumableTables` of one, with the waiting seat as an ``int``.

    Parameters are those of :class:`ResumableTables`, with ``board`` for ``boards``.
    """

    def __init__(self, rules, seat_bots, seed: int = 0, board: int = 0, table: int = 0, dealer: str = "haystack",
                 order: str = "events", events: str = "seat", check: bool = False, branch: int | None = None):
        super().__init__(rules, seat_bots, seed=seed, boards=(integer("board", board, 0, MAX_INDEX),), table=table,
                         dealer=dealer, order=order, events=events, check=check, branch=branch)
        self._acting, self._decision = np.ones(1, dtype=np.bool_), np.zeros(1, dtype=np.int64)

    @property
    def seat(self) -> int:
        """The seat that must decide now, or -1 once the game is over."""
        return int(self.waiting[0])

    @property
    def over(self) -> bool:
        return bool(self._over[0])

    @property
    def round(self) -> int:
        """The round being played, from 0."""
        return int(self.cursor(CURSOR_ROUND)[0])

    @property
    def rounds(self) -> int:
        """Rounds started so far."""
        return int(self.cursor(CURSOR_ROUNDS)[0])

    @property
    def violations(self) -> int:
        """Steps after which the table was unsound (with ``check``)."""
        return int(self.cursor(CURSOR_VIOLATIONS)[0])

    def act(self, decision) -> int:
        """Apply the waiting seat's ``decision`` (see :meth:`ResumableTables.act`); returns the next seat (-1: over)."""
        if self.waiting[0] < 0:
            raise UsageError("the game is over: no seat is waiting for a decision", "decision")
        if (isinstance(decision, (bool, np.bool_)) or not isinstance(decision, (int, np.integer))
                or not -2**63 <= int(decision) < 2**63):
            raise UsageError(f"a decision is a 64-bit integer answer (autodup.bots.encode_decision), got "
                             f"{decision!r}", "decision")
        self._decision[0] = decision
        self.step(self._acting, self._decision)
        return int(self.waiting[0])

    def view(self) -> SeatView:
        """The waiting seat's view (:class:`SeatView`); ``UsageError`` once the game is over."""
        if self.waiting[0] < 0:
            raise UsageError("the game is over: no seat is waiting for a decision", "view")
        return super().view(0)

    def results(self) -> np.ndarray:
        """int64 (players, len(RESULT_COLUMNS)): each seat's final state and stats (the game must be over)."""
        if not self.over:
            raise UsageError("the game is not over: its results are not known yet", "results")
        return super().results(0)

    def log(self) -> TableLog:
        return super().log(0)
