"""The board driver: boards of a tournament seed, played at tables seated by a design. Every command uses it.

Seed tree
---------
Board ``b``'s grandparent is ``g = board_seed(tournament_seed, b)``. A dealer
that shares seeds (:attr:`autodup.engine.dealers.Dealer.shares_seeds`) gives seat
``s`` of every table the seat seed ``seat_seed(g, s)`` and every table the
event seed ``event_seed(g, 0)``; the ``independent`` control first mixes in
the table, ``root = table_seed(g, t)``, so that its tables share nothing.

Seating designs (:data:`SEATINGS`)
----------------------------------
``latin``
    Seat ``s`` of table ``t`` plays bot ``(s + t) mod n``: with ``n`` tables,
    every bot plays every seat of every board once (``autodup run``).
``rotating``
    Seat ``s`` of board ``b`` plays bot ``(s + b) mod n`` at every table: one
    table per board, seats rotating board by board (the benchmarks).
``paired``
    Board ``b`` has one focal seat, ``f = b mod players``; seat ``s != f`` of
    every table plays bot ``(s + b // players) mod n`` (the field), and the
    focal seat of table ``t`` plays bot ``t``. With ``n`` tables the tables of
    a board differ only in the bot at the focal seat, and over ``players * n``
    boards every bot meets every focal seat in every rotation of the field.
    Only the focal seat is scored (:func:`scored_seat`).
``fixed``
    Seat ``s`` plays the bot given for it at every table of every board
    (``autodup play``, ``check-bot``).

The loop is one jitted function, :func:`play_boards_kernel`: compiled once,
whatever the command, and the benchmarks time what ``autodup run`` runs.
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np
from numba import njit
from numba.core import event

from ..driver_linking import optimised_before_linking
from ..engine.dealers import DEALERS, DEFAULT_DEALER, Dealer, dealer_named
from ..engine.rng import LABEL_BOARD, LABEL_EVENTS, LABEL_SEAT, LABEL_TABLE, LABEL_TRAINING_BOARD, derive_seed_kernel
from ..errors import UsageError
from ..internal_kernels import compiled_return_type, internal_kernel
from .cursor import CURSOR_VIOLATIONS
from .progress import PROGRESS_BOARD, PROGRESS_COMPILED, PROGRESS_TABLE, new_progress
from .rules import EVENT_ADDRESSING, ORDER_RACE, ORDERS
from .state import copy_flat, table_is_sound
from .stats import LUCK, RESULT_COLUMNS, STAGE_BUCKETS
from .table import LOG_STATE_NAMES, advance, end_every_turn, game_log, game_results, new_game, play_table_inline
from .turn import play_turns
from .view import MAX_PARAMETERS, MAX_PLAYERS

__all__ = ["SEATING_LATIN", "SEATING_ROTATING", "SEATING_FIXED", "SEATING_PAIRED", "RUN_DESIGNS", "DEFAULT_DESIGN",
           "Seating", "SEATINGS", "BoardResults", "TRACE_FIELDS", "seat_bot", "scored_seat", "scored_rows",
           "BRANCHES", "table_seeds", "play_boards_kernel", "check_order", "play_boards", "table_is_compiled",
           "compile_storage", "TableStage", "TABLE_STAGES", "compile_table"]

SEATING_LATIN, SEATING_ROTATING, SEATING_FIXED, SEATING_PAIRED = 0, 1, 2, 3
RUN_DESIGNS = ("latin", "paired")  # the seatings a tournament run may use (every bot at as many tables as bots)
DEFAULT_DESIGN = "latin"


@dataclass(frozen=True)
class Seating:
    """A seating design: which bot sits where, by board, table and seat."""

    name: str
    code: int
    description: str


SEATINGS = {seating.name: seating for seating in (
    Seating("latin", SEATING_LATIN, "seat s of table t plays bot (s + t) mod n: every bot at every seat of a board"),
    Seating("rotating", SEATING_ROTATING, "seat s of board b plays bot (s + b) mod n: seats rotate board by board"),
    Seating("fixed", SEATING_FIXED, "seat s plays the bot given for it, at every table of every board"),
    Seating("paired", SEATING_PAIRED, "tables differ only in the bot at board b's focal seat b mod players; "
                                      "the rest of the field is the same"),
)}

_ROUNDS_ALIVE = RESULT_COLUMNS.index("rounds_alive")

BoardResults = namedtuple("BoardResults", ["results", "bots", "violations", "shop_offsets", "shop_values",
                                           "state_values", "final_champion", "final_star", "offers", "bought", "luck",
                                           "stage_luck", "trace_weights",
                                           "trace_key", "trace_outcome", "trace_count"])
TRACE_FIELDS = ("trace_weights", "trace_key", "trace_outcome", "trace_count")  # the traced draws of BoardResults
BoardResults.__doc__ = """What :func:`play_boards` returns.

results : int64 (boards, tables, players, len(RESULT_COLUMNS))
bots : int64 (boards, tables, players)
    The bot (index into the policies) at each seat.
violations : int64 (boards, tables)
    Steps after which the table was unsound (0 unless ``check``).
shop_offsets : int64 (boards * tables * players + 1,)
shop_values : int16 (shop_offsets[-1],)
    Row ``r`` (board, table, seat in that order) owns
    ``shop_values[shop_offsets[r]:shop_offsets[r + 1]]``: the seat's shop after
    every round's free refresh while it was alive, ``shop_size`` champions per
    round (-1: an empty slot). Memory follows the rounds actually played.
state_values : int32 (shop_offsets[-1] // shop_size, len(LOG_STATE_NAMES))
    Row ``r``'s level, gold and HP when it saw each of those shops: rows
    ``shop_offsets[r] // shop_size`` to ``shop_offsets[r + 1] // shop_size``.
final_champion : int16 (boards, tables, players, B)
final_star : int8 (boards, tables, players, B)
    Each seat's board when it left the game, strongest first (see
    :class:`autodup.game.table.TableLog`).
offers : int32 (boards, tables, players, N)
    Copies of each champion shown to each seat over its game, every shop.
bought : int32 (boards, tables, players, N)
    Copies of each champion each seat bought from its shop over its game.
luck : float64 (boards, tables, players, len(autodup.game.stats.LUCK))
    Each seat's luck terms over its game.
stage_luck : float64 (boards, tables, players, len(LUCK), STAGE_BUCKETS)
    The same terms stage by stage (see :class:`autodup.game.table.TableLog`).
trace_weights : float32 (boards, tables, players, K, T + N)
trace_key : int64 (boards, tables, players, K)
trace_outcome : int16 (boards, tables, players, K)
trace_count : int64 (boards, tables, players)
    Each seat's first ``K = trace_draws`` draws: tier weights then champion
    weights, draw key, champion dealt (see ``autodup.game.state.TRACE``); K = 0
    unless asked.
"""


@njit(cache=True, no_cfunc_wrapper=True)
def seat_bot(design, board, table, seat, n_bots, fixed):
    """The bot at ``seat`` of ``table`` of ``board`` under seating ``design`` (``fixed``: int64 (players,))."""
    if design == SEATING_LATIN:
        return (seat + table) % n_bots
    if design == SEATING_ROTATING:
        return (seat + board) % n_bots
    if design == SEATING_PAIRED:
        players = fixed.shape[0]
        if seat == board % players:
            return table % n_bots
        return (seat + board // players) % n_bots
    return fixed[seat]


def scored_seat(design: str, board, players: int):
    """The seat whose results score its bot at ``board`` (int or int64 array) under seating ``design``:
    the focal seat for ``paired``; -1 (every seat) for the others."""
    if design == "paired":
        return np.asarray(board) % players
    return np.full(np.shape(board), -1, dtype=np.int64) if np.ndim(board) else -1


def scored_rows(design: str, board: np.ndarray, seat: np.ndarray, players: int) -> np.ndarray:
    """bool (rows,): the rows (``board``, ``seat`` int64 (rows,)) whose results score their bot under ``design``."""
    focal = scored_seat(design, board, players)
    return (focal < 0) | (seat == focal)

# Where a run's boards come from in the seed tree: evaluation boards (every command) or training boards (the boards a
# value is fitted on, autodup luck fit), children of the tournament seed under labels of their own.
BRANCHES = {"evaluation": LABEL_BOARD, "training": LABEL_TRAINING_BOARD}


@njit(cache=True, no_cfunc_wrapper=True)
def table_seeds(tournament_seed, board, table, shared, seat_seeds, branch=LABEL_BOARD):
    """Fill ``seat_seeds`` (uint64 (players,)) for a table of a board; returns its event seed (see the seed tree).

    ``branch`` is the label of the board's grandparent seed (:data:`BRANCHES`)."""
    grandparent = derive_seed_kernel(np.uint64(tournament_seed), np.uint64(branch), np.uint64(board))
    root = grandparent if shared else derive_seed_kernel(grandparent, np.uint64(LABEL_TABLE), np.uint64(table))
    for seat in range(seat_seeds.shape[0]):
        seat_seeds[seat] = derive_seed_kernel(root, np.uint64(LABEL_SEAT), np.uint64(seat))
    return derive_seed_kernel(root, np.uint64(LABEL_EVENTS), np.uint64(0))


def new_board_arrays(rules, n_boards: int, n_tables: int, trace_draws: int) -> tuple:
    """:class:`BoardResults`' arrays for ``n_boards`` boards of ``n_tables`` tables, before any is played.

    Allocated in Python and passed to the board driver (and :func:`collect_games`), which fill them: compiled,
    this was the first function a cold start's table compiled, 2.9 s before it could start on the game.
    """
    players = rules.players
    results = np.zeros((n_boards, n_tables, players, len(RESULT_COLUMNS)), dtype=np.int64)
    bots = np.zeros((n_boards, n_tables, players), dtype=np.int64)
    violations = np.zeros((n_boards, n_tables), dtype=np.int64)
    shop_offsets = np.zeros(n_boards * n_tables * players + 1, dtype=np.int64)
    shop_values = np.empty(max(1, n_boards * n_tables * players * 16 * rules.shop_size), dtype=np.int16)
    state_values = np.empty((max(1, n_boards * n_tables * players * 16), len(LOG_STATE_NAMES)), dtype=np.int32)
    largest_board = rules.level_board_size.max()
    final_champion = np.full((n_boards, n_tables, players, largest_board), -1, dtype=np.int16)
    final_star = np.zeros((n_boards, n_tables, players, largest_board), dtype=np.int8)
    n_champions = rules.champion_copies.shape[0]
    offers = np.zeros((n_boards, n_tables, players, n_champions), dtype=np.int32)
    bought = np.zeros((n_boards, n_tables, players, n_champions), dtype=np.int32)
    luck = np.zeros((n_boards, n_tables, players, len(LUCK)))
    stage_luck = np.zeros((n_boards, n_tables, players, len(LUCK), STAGE_BUCKETS))
    width = rules.tier_cost.shape[0] + n_champions
    trace_weights = np.zeros((n_boards, n_tables, players, trace_draws, width), dtype=np.float32)
    trace_key = np.zeros((n_boards, n_tables, players, trace_draws), dtype=np.int64)
    trace_outcome = np.full((n_boards, n_tables, players, trace_draws), -1, dtype=np.int16)
    trace_count = np.zeros((n_boards, n_tables, players), dtype=np.int64)
    return (results, bots, violations, shop_offsets, shop_values, state_values, final_champion, final_star, offers,
            bought, luck, stage_luck, trace_weights, trace_key, trace_outcome, trace_count)


@njit(cache=True, no_cfunc_wrapper=True)
def collect_games(rules, games, bot_of_seat, n_boards, n_tables, arrays):
    """:class:`BoardResults`' arrays of finished games: ``games[i * n_tables + t]`` is table ``t`` of board ``i``.

    Parameters
    ----------
    games : numba typed List of :class:`~autodup.game.table.Game`, every one over
    bot_of_seat : int64 (n_boards * n_tables, players)
    arrays : tuple
        :func:`new_board_arrays` for ``n_boards`` and ``n_tables``, filled here.
    """
    (results, bots, violations, shop_offsets, shop_values, state_values, final_champion, final_star, offers, bought,
     luck, stage_luck, trace_weights, trace_key, trace_outcome, trace_count) = arrays
    # Typed int64, not as the literal 0: every caller of store_table then shares one compiled version.
    used = np.int64(0)
    used_rounds = np.int64(0)
    for i in range(n_boards):
        for t in range(n_tables):
            game = games[i * n_tables + t]
            copy_flat(bot_of_seat[i * n_tables + t], bots[i, t])
            shop_values, state_values, used, used_rounds = store_table(
                rules, i, t, n_tables, game_results(rules, game), game.cursor[CURSOR_VIOLATIONS], game_log(game),
                results, violations, offers, bought, luck, stage_luck, trace_weights, trace_key, trace_outcome,
                trace_count, final_champion, final_star, shop_offsets, shop_values, state_values, used, used_rounds)
    return (results, bots, violations, shop_offsets, shop_values[:used].copy(), state_values[:used_rounds].copy(),
            final_champion, final_star, offers, bought, luck, stage_luck, trace_weights, trace_key, trace_outcome,
            trace_count)


# Compiled code calls it (the board driver, collect_games): no Python-callable wrapper, which for its 24 arguments
# took 0.7 s of a cold start's compile (2.4 s against 1.7 s).
@internal_kernel
def store_table(rules, i, t, n_tables, table_results, unsound, log, results, violations, offers, bought, luck,
                stage_luck, trace_weights, trace_key, trace_outcome, trace_count, final_champion, final_star,
                shop_offsets, shop_values, state_values, used, used_rounds):
    """Write one finished table's results and log into board ``i``, table ``t`` of :class:`BoardResults`' arrays.

    The shops and states of its seats are appended after the ``used`` shop values and ``used_rounds`` state rows
    already written; returns ``(shop_values, state_values, used, used_rounds)`` (the arrays grown if need be).
    """
    players = rules.players
    copy_flat(table_results, results[i, t])
    copy_flat(log.offers, offers[i, t])
    copy_flat(log.bought, bought[i, t])
    copy_flat(log.luck, luck[i, t])
    copy_flat(log.stage_luck, stage_luck[i, t])
    copy_flat(log.trace_weights, trace_weights[i, t])
    copy_flat(log.trace_key, trace_key[i, t])
    copy_flat(log.trace_outcome, trace_outcome[i, t])
    copy_flat(log.trace_count, trace_count[i, t])
    violations[i, t] = unsound
    copy_flat(log.final_champion, final_champion[i, t])
    copy_flat(log.final_star, final_star[i, t])
    for s in range(players):
        row = (i * n_tables + t) * players + s
        alive = table_results[s, _ROUNDS_ALIVE]
        if used + alive * rules.shop_size > shop_values.shape[0]:
            grown = np.empty(2 * (used + alive * rules.shop_size), dtype=np.int16)
            for k in range(used):
                grown[k] = shop_values[k]
            shop_values = grown
        if used_rounds + alive > state_values.shape[0]:
            grown_states = np.empty((2 * (used_rounds + alive), state_values.shape[1]), dtype=np.int32)
            for k in range(used_rounds):
                for column in range(state_values.shape[1]):
                    grown_states[k, column] = state_values[k, column]
            state_values = grown_states
        for r in range(alive):
            for slot in range(rules.shop_size):
                shop_values[used] = log.shops[r, s, slot]
                used += 1
            for column in range(state_values.shape[1]):
                state_values[used_rounds, column] = log.states[r, s, column]
            used_rounds += 1
        shop_offsets[row + 1] = used
    return shop_values, state_values, used, used_rounds


@optimised_before_linking  # its calls are per table: LLVM need not optimise the whole game again here
@njit(cache=True, no_cfunc_wrapper=True)
def play_boards_kernel(rules, dealer, shared, order, events, tournament_seed, first_board, n_boards, n_tables, design,
                       fixed, policies, params, param_counts, n_bots, check, progress, trace_draws, branch, arrays):
    """Play boards ``first_board ..`` at ``n_tables`` tables each (see :func:`play_boards`), into ``arrays``
    (:func:`new_board_arrays`); returns them, the shop and state logs cut to their length."""
    players = rules.players
    (results, bots, violations, shop_offsets, shop_values, state_values, final_champion, final_star, offers, bought,
     luck, stage_luck, trace_weights, trace_key, trace_outcome, trace_count) = arrays
    # Typed int64, not as the literal 0: the version of store_table compile_storage caches is this one.
    used = np.int64(0)
    used_rounds = np.int64(0)
    seeds = np.zeros(players, dtype=np.uint64)
    for i in range(n_boards):
        board = first_board + i
        for t in range(n_tables):
            event_seed = table_seeds(tournament_seed, board, t, shared, seeds, branch)
            for s in range(players):
                bots[i, t, s] = seat_bot(design, board, t, s, n_bots, fixed)
            progress[PROGRESS_BOARD] = board
            progress[PROGRESS_TABLE] = t
            table_results, unsound, _, log = play_table_inline(rules, dealer, order, seeds, event_seed, policies,
                                                               params, param_counts, bots[i, t], check, progress,
                                                               trace_draws, events)
            shop_values, state_values, used, used_rounds = store_table(
                rules, i, t, n_tables, table_results, unsound, log, results, violations, offers, bought, luck,
                stage_luck, trace_weights, trace_key, trace_outcome, trace_count, final_champion, final_star,
                shop_offsets, shop_values, state_values, used, used_rounds)
    return (results, bots, violations, shop_offsets, shop_values[:used].copy(), state_values[:used_rounds].copy(),
            final_champion, final_star, offers, bought, luck, stage_luck, trace_weights, trace_key, trace_outcome,
            trace_count)


def check_order(dealer: Dealer, order: str) -> None:
    """Raise ``ValueError`` (one line) unless ``order`` names a serving order ``dealer`` can serve."""
    if order not in ORDERS:
        raise UsageError(f"unknown order {order!r} (allowed: {', '.join(ORDERS)})", "order")
    if ORDERS[order] == ORDER_RACE and not dealer.race_order:
        allowed = ", ".join(name for name, record in DEALERS.items() if record.race_order)
        raise UsageError(f"race needs a dealer that races across seats (allowed: {allowed})", "order")


def play_boards(rules, dealer, policies, params, param_counts, *, seed: int, boards: int = 1, first_board: int = 0,
                tables: int = 1, seating: str = "latin", n_bots: int = None, bot_of_seat=None, order: str = "events",
                events: str = "seat", check: bool = False, progress=None, trace_draws: int = 0,
                branch: str = "evaluation") -> BoardResults:
    """Play ``boards`` boards of tournament ``seed`` from ``first_board``, at ``tables`` tables each.

    Parameters
    ----------
    rules : autodup.game.rules.Rules
    dealer : autodup.engine.dealers.Dealer or str
    policies, params, param_counts
        As :func:`autodup.game.bot_loading.policy_tuple` gives them.
    seating : str
        A name of :data:`SEATINGS`. ``latin``, ``rotating`` and ``paired`` seat
        the first ``n_bots`` bots (required); ``fixed`` seats ``bot_of_seat``
        (int64 (players,)).
    order : str
        How a round's refreshes are served (``events``, or ``race`` with a
        dealer that supports it).
    events : str
        How the table's events are addressed: ``seat`` (by who: matchmaking,
        serving order and the combat coin follow the seats) or ``position``
        (see :data:`autodup.game.rules.EVENT_ADDRESSING`).
    check : bool
        Check conservation, gold and unit counts after every step.
    progress : int64 (PROGRESS_FIELDS,), optional
        Where the tables write where they are (a worker's shared block).
    trace_draws : int
        Keep each seat's first ``trace_draws`` draws with their inputs (the
        coupling diagnostic of :mod:`autodup.analysis.coupling`); 0 keeps none.
    branch : str
        ``evaluation`` (every command) or ``training`` (the boards a value is
        fitted on): the branch of the seed tree the boards come from
        (:data:`BRANCHES`), so that no training board is an evaluation board.

    Raises
    ------
    ValueError
        One line: an unknown dealer, seating or order, or counts out of range.
    """
    dealer = dealer if isinstance(dealer, Dealer) else dealer_named(dealer)
    if seating not in SEATINGS:
        raise ValueError(f"unknown seating {seating!r} (allowed: {', '.join(SEATINGS)})")
    check_order(dealer, order)
    if events not in EVENT_ADDRESSING:
        raise UsageError(f"unknown addressing {events!r} (allowed: {', '.join(EVENT_ADDRESSING)})", "events")
    available = min(len(policies), params.shape[0], param_counts.shape[0])
    fixed = np.zeros(rules.players, dtype=np.int64)
    if SEATINGS[seating].code != SEATING_FIXED:
        # The policy tuple is padded to MAX_PLAYERS entries: how many are bots is the caller's to say.
        if n_bots is None or not 1 <= n_bots <= available:
            raise ValueError(f"n_bots: seating {seating!r} needs the number of bots, 1 to {available} (got {n_bots})")
    else:
        n_bots = available
        fixed = np.asarray(bot_of_seat, dtype=np.int64)
        if fixed.shape != (rules.players,) or fixed.min() < 0 or fixed.max() >= available:
            raise ValueError(f"bot_of_seat must give each of the {rules.players} seats a bot below {available}")
    if trace_draws < 0:
        raise ValueError(f"trace_draws must be >= 0 (got {trace_draws})")
    if branch not in BRANCHES:
        raise ValueError(f"unknown branch {branch!r} (allowed: {', '.join(BRANCHES)})")
    if boards < 1 or tables < 1 or first_board < 0:
        raise ValueError(f"need boards >= 1, tables >= 1 and first_board >= 0 (got {boards}, {tables}, {first_board})")
    return BoardResults(*play_boards_kernel(
        rules, dealer.code, dealer.shares_seeds, ORDERS[order], EVENT_ADDRESSING[events], np.uint64(seed), first_board,
        boards, tables,
        SEATINGS[seating].code, fixed, policies, params, param_counts, n_bots, check,
        new_progress() if progress is None else progress, int(trace_draws), np.uint64(BRANCHES[branch]),
        new_board_arrays(rules, boards, tables, int(trace_draws))))


# --------------------------------------------------------------------------
# compiling the table ahead of the bots
# --------------------------------------------------------------------------


def table_is_compiled(order: str = "events") -> bool:
    """Whether this machine's compiled-code cache holds the table (:func:`play_boards_kernel`) for this version,
    compiled for serving ``order`` (each order is a version of its own: see ``ORDER_EVENTS``)."""
    from ..compile_cache import compiled_signatures

    # The order is the driver's fourth argument: typed none for the events order, an integer for the race.
    wanted = "none" if ORDERS[order] is None else "int64"
    return any(str(signature[3]) == wanted for signature in compiled_signatures(play_boards_kernel))


def compile_storage(rules) -> None:
    """Compile what a run calls after its tables into the cache: the game's results and log, :func:`store_table`
    and the value's corrections.

    A cold start types the table in one process, level by level, and :func:`store_table` comes last, after
    :func:`~autodup.game.table.advance`; the process compiling the bots is idle by then, so it compiles these
    first, with the argument types the board driver and the run's workers pass, and the table's process loads them.
    They are compiled from the types alone (the game's from :func:`~autodup.game.table.new_game`, which that
    process compiled first; the results' and the log's as their functions return them): a game made in Python to
    call them with cost a compile of its own (``fresh_game``, 2.2 s), and the storage then reached the cache about
    a second after the table's process had started compiling it too (``docs/performance.md``).
    """
    from numba import typeof, types

    from .table import new_game
    from .value import VALUE_FEATURES, corrections_of_boards

    rules_type = typeof(rules)
    game_type = compiled_return_type(new_game, (rules_type, types.int64, types.int64))
    results_type = compiled_return_type(game_results, (rules_type, game_type))
    log_type = compiled_return_type(game_log, (game_type,))
    unsound_type = _field_type(game_type, "cursor").dtype  # the driver passes game.cursor[CURSOR_VIOLATIONS]
    arrays = new_board_arrays(rules, 1, 1, 0)
    (results, _, violations, shop_offsets, shop_values, state_values, final_champion, final_star, offers, bought,
     luck, stage_luck, trace_weights, trace_key, trace_outcome, trace_count) = arrays
    store_table.compile((rules_type, types.int64, types.int64, types.int64, results_type, unsound_type, log_type)
                        + tuple(typeof(array) for array in (
                            results, violations, offers, bought, luck, stage_luck, trace_weights, trace_key,
                            trace_outcome, trace_count, final_champion, final_star, shop_offsets, shop_values,
                            state_values)) + (types.int64, types.int64))
    corrections_of_boards(stage_luck, np.zeros(stage_luck.shape[:3], dtype=np.int64),
                          np.zeros((1, len(VALUE_FEATURES))))


def _field_type(named_tuple_type, field: str):
    """The numba type of ``field`` in a named tuple's type."""
    return named_tuple_type[named_tuple_type.fields.index(field)]


TableStage = namedtuple("TableStage", "name function seconds")
TableStage.__doc__ = """A stage of the table's compile: it ends when ``function`` (a numba dispatcher) has compiled.

``seconds`` is what it took in a cold ``autodup run --boards 50`` on this project's 2-core VM (numba's compile
events, 2026-11-30), so that a bar can say how far a cold start is in time rather than in steps."""

# The table's compile in the order numba reaches its functions (a function compiles once its callees have): the
# game, then advance's callees (the game's end, the soundness check, the turns), advance, the board driver. The
# round's start and end are compiled by the other process meanwhile, and loaded here.
TABLE_STAGES = (
    TableStage("a new game", new_game, 6.2),
    TableStage("the game's end and the soundness check", table_is_sound, 4.4),
    TableStage("the turns", play_turns, 10.8),
    TableStage("the rounds", advance, 1.2),
    TableStage("the board driver", play_boards_kernel, 5.3),
)


class _StagesPassed(event.Listener):
    """Writes into ``progress[PROGRESS_COMPILED]`` how many of ``stages`` are passed, at each of numba's compile
    events (of any function): the stages up to the last whose function has a compiled version in this process.

    Such a version is compiled here, or loaded from the cache, which sends no event of its own (a cold start
    interrupted, then started again, loads what it had compiled): the next event counts it.
    """

    def __init__(self, progress, stages):
        self.progress = progress
        self.functions = [stage.function for stage in stages]

    def _count(self):
        for index in range(len(self.functions) - 1, int(self.progress[PROGRESS_COMPILED]) - 1, -1):
            if self.functions[index].overloads:  # numba adds a compiled version before its compile's end event
                self.progress[PROGRESS_COMPILED] = index + 1
                return

    def on_start(self, compiling):
        self._count()

    def on_end(self, compiling):
        self._count()


def compile_table(rules, order: str = "events", progress=None) -> None:
    """Compile the table (and save it in the cache) by playing one board with a policy that always ends its turn.

    Bots are C callbacks of one signature, so the table compiled here is the
    one every command runs, whatever its bots: a run compiles it in one
    process while another compiles the bots, then the round's end
    (:func:`autodup.game.table.compile_round_end`) and the storage (:func:`compile_storage`), instead of in
    every worker. With ``progress`` (int64 (PROGRESS_FIELDS,)), ``progress[PROGRESS_COMPILED]`` counts the
    :data:`TABLE_STAGES` compiled so far.
    """
    policies = (end_every_turn(),) * MAX_PLAYERS
    listener = _StagesPassed(progress if progress is not None else new_progress(), TABLE_STAGES)
    with event.install_listener("numba:compile", listener):
        play_boards(rules, DEFAULT_DEALER, policies, np.zeros((MAX_PLAYERS, MAX_PARAMETERS)),
                    np.zeros(MAX_PLAYERS, dtype=np.int64), seed=0, seating="latin", n_bots=1, order=order)
