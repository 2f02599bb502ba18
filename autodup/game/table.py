"""One table of a TFT-like game, played to the end inside numba: the table driver.

The rules arrive as a :class:`~autodup.game.rules.Rules` named tuple of arrays and scalars compiled from a
:class:`~autodup.game.config.GameConfig` (see :func:`~autodup.game.rules.rules_of`). :func:`play_table` plays
one table: 8 seats share one pool; shops are dealt by the table's dealer from each seat's seed; table-wide
randomness (serving order, matchmaking, combat) comes from the table's event seed. Every random number has an
address in the seed tree, so a game is a pure function of (rules, dealer, seeds, policies).

Units are stored per seat as a flat list of (champion, star) (:mod:`autodup.game.units`); the board is the
``board_size[level]`` strongest units, the rest is the bench, so the board is never larger than the level
allows. A unit of star ``k`` holds ``3**(k-1)`` copies. Conservation, checked after every step in check mode
(:func:`~autodup.game.state.table_is_sound`): for every champion, pool + shops + units (in copies) == initial
copies.
"""

from __future__ import annotations

import functools
from collections import namedtuple

import numpy as np
from numba import cfunc, njit, typeof, types

from ..array_allocation import filled
from ..driver_linking import optimised_before_linking
from ..engine.kernels import ENGINE_COUNT, engine_draw_hierarchical
from ..internal_kernels import compile_for, compiled_return_type, internal_kernel
from .actions import ACTION_END, encode_decision
from .combat import eliminate, play_fights, prepare_fights, rank_seats
from .cursor import (
    CURSOR,
    CURSOR_ALIVE,
    CURSOR_ALIVE_COUNT,
    CURSOR_BUCKET,
    CURSOR_PHASE,
    CURSOR_POSITION,
    CURSOR_ROLL,
    CURSOR_ROUND,
    CURSOR_ROUNDS,
    CURSOR_STEP,
    CURSOR_VIOLATIONS,
    CURSOR_WAITING,
    PHASE_OVER,
    PHASE_ROUND_END,
    PHASE_ROUND_START,
    PHASE_TURNS,
)
from .policy_frames import FRAME_SIGNATURE
from .progress import PROGRESS_FIELDS, PROGRESS_GAMES, PROGRESS_IN_GAME
from .rounds import bag_item, deal_loot, shuffle_alive, start_round
from .rules import (
    EVENTS_BY_POSITION,
    EVENTS_BY_SEAT,
    ORDER_RACE,
    ORDERS,
    STREAM_MATCHMAKING_KEY,
    game_inline,
    game_internal,
)
from .shop import fill_tier_totals, mark_trait, reroll_shop
from .state import largest, new_desk, new_table, table_is_sound
from .stats import FINAL_STATE_COLUMNS, LUCK, RESULT_COLUMNS, STAGE_BUCKETS, STATS
from .turn import LOG_GOLD, LOG_HP, LOG_LEVEL, play_turns
from .units import record_final_board

__all__ = ["LOG_STATE_NAMES", "TableLog", "Game", "new_game", "fresh_game", "check_table_arguments", "advance",
           "game_results", "game_log", "play_table", "play_table_inline", "stage_bucket", "end_every_turn",
           "compile_shop_draw", "compile_round_start", "compile_round_end", "first_slot_counts", "loot_items"]

LOG_STATE_NAMES = ("level", "gold", "hp")

TableLog = namedtuple("TableLog", ["shops", "states", "final_champion", "final_star", "offers", "bought", "luck",
                                   "stage_luck", "trace_weights", "trace_key", "trace_outcome", "trace_count"])
TableLog.__doc__ = """What :func:`play_table` logs of a game, beside the results.

shops : int16 (R, players, shop_size), R >= rounds
    Row ``r < rounds``: each seat's shop after round ``r``'s free refresh,
    for the seats alive then (-1 for an empty slot or a seat out).
states : int32 (R, players, len(LOG_STATE_NAMES))
    Level, gold and HP of each seat alive at that moment (when it sees that
    shop), 0 for a seat out.
final_champion : int16 (players, B), B the largest board size
    Each seat's board when it left the game (or at the end), strongest unit
    first, -1 after its last unit.
final_star : int8 (players, B)
    The stars (1, 2, 3) of those units, 0 after the last.
offers : int32 (players, N)
    Copies of each champion shown to each seat, in every shop it was dealt.
bought : int32 (players, N)
    Copies of each champion each seat bought from its shop (loot is not bought).
luck : float64 (players, len(LUCK))
    Each seat's luck terms over its game (see ``LUCK``).
stage_luck : float64 (players, len(LUCK), STAGE_BUCKETS)
    The same terms, stage by stage: ``stage_luck[s, k, b]`` is what the
    seat's term ``k`` gained in stage ``b`` (stages from ``STAGE_BUCKETS - 1``
    on share the last); summed over ``b`` it is ``luck``.
trace_weights, trace_key, trace_outcome, trace_count
    Each seat's first ``trace_draws`` draws (see ``TRACE``); empty unless traced.
"""


@game_internal
def _log_round(table, alive_count, round_index, shop_log, state_log):
    """Copy the alive seats' shops, levels, gold and HP into row ``round_index`` of the logs (``max_rounds`` rows)."""
    for i in range(alive_count):
        seat = table.order[i]
        for slot in range(table.shops.shape[1]):
            shop_log[round_index, seat, slot] = table.shops[seat, slot]
        state_log[round_index, seat, LOG_LEVEL] = table.level[seat]
        state_log[round_index, seat, LOG_GOLD] = table.gold[seat]
        state_log[round_index, seat, LOG_HP] = table.hp[seat]


@game_internal
def _close_stage(luck, mark, stage_luck, bucket):
    """Add what each seat's luck terms gained since ``mark`` to stage bucket ``bucket``; ``mark`` = the terms now."""
    for seat in range(luck.shape[0]):
        for k in range(luck.shape[1]):
            stage_luck[seat, k, bucket] += luck[seat, k] - mark[seat, k]
            mark[seat, k] = luck[seat, k]


@game_internal
def stage_bucket(rules, round_index):
    """The stage bucket of a round: its stage, the last ones sharing ``STAGE_BUCKETS - 1``."""
    return min(rules.round_stage[round_index], STAGE_BUCKETS - 1)


Game = namedtuple("Game", ["table", "desk", "cursor", "stage_luck", "luck_mark", "shops", "states", "final_champion",
                           "final_star", "order_scratch", "trait_counts"])
Game.__doc__ = """A game in progress: every array it needs to go on, so that it can stop and resume (see :func:`advance`).

table : Table
desk : Desk
cursor : int64 (len(CURSOR),)
    Where the game is (``CURSOR_*``).
stage_luck : float64 (players, len(LUCK), STAGE_BUCKETS)
luck_mark : float64 (players, len(LUCK))
    The luck terms when the current stage bucket began.
shops, states, final_champion, final_star
    The logs :class:`TableLog` returns, ``max_rounds`` rows long.
order_scratch : int64 (capacity,)
trait_counts : int64 (traits,)
"""


# Only compiled code calls it: the first large function a cold start's table compiles builds no Python wrapper
# (the whole Game boxed, about 90 arrays) and no machine code of its own (autodup.deferred_code).
@internal_kernel
def new_game(rules, trace_draws, n_params):
    """A game before its first round (see :class:`Game`); policies get ``n_params`` parameter slots.

    Compiled code calls it; from Python, :func:`fresh_game`.
    """
    table = new_table(rules, trace_draws)
    players = rules.players
    cursor = filled(len(CURSOR), 0, np.int64)
    cursor[CURSOR_PHASE] = PHASE_ROUND_START
    cursor[CURSOR_ALIVE] = players
    cursor[CURSOR_ROLL] = 1
    cursor[CURSOR_WAITING] = -1
    rounds = max(rules.max_rounds, 1)
    largest_board = largest(rules.level_board_size)
    return Game(table, new_desk(rules, table, n_params), cursor,
                filled((players, len(LUCK), STAGE_BUCKETS), 0.0, np.float64),
                filled((players, len(LUCK)), 0.0, np.float64),
                filled((rounds, players, rules.shop_size), -1, np.int16),
                filled((rounds, players, len(LOG_STATE_NAMES)), 0, np.int32),
                filled((players, largest_board), -1, np.int16), filled((players, largest_board), 0, np.int8),
                filled(table.unit_champion.shape[1], 0, np.int64),
                filled(rules.trait_breakpoints.shape[0], 0, np.int64))


@njit(cache=True, no_cfunc_wrapper=True)
def fresh_game(rules, trace_draws, n_params):
    """:func:`new_game` for a Python caller."""
    return new_game(rules, trace_draws, n_params)


@njit(cache=True, no_cfunc_wrapper=True)
def check_table_arguments(rules, dealer, order, events, seat_seeds, policies, params, param_counts, bot_of_seat,
                          progress):
    """Raise ``ValueError`` unless the arguments of :func:`play_table` (and :func:`advance`) fit the rules."""
    if seat_seeds.shape[0] != rules.players or bot_of_seat.shape[0] != rules.players:
        raise ValueError("play_table needs one seat seed and one bot per player")
    for seat in range(rules.players):
        bot = bot_of_seat[seat]
        if bot < 0 or bot >= min(len(policies), params.shape[0], param_counts.shape[0]):
            raise ValueError("play_table: a seat's bot index is out of range")
        if param_counts[bot] < 0 or param_counts[bot] > params.shape[1]:
            raise ValueError("play_table: a bot's parameter count is out of range")
    if dealer < 0 or dealer >= ENGINE_COUNT:
        raise ValueError("play_table: unknown dealer or order code")
    if order is not None:  # ORDER_EVENTS is None (pruned by its type), ORDER_RACE a number
        if order != ORDER_RACE:
            raise ValueError("play_table: unknown dealer or order code")
    if events != EVENTS_BY_POSITION and events != EVENTS_BY_SEAT:
        raise ValueError("play_table: unknown event addressing code")
    if progress.shape[0] < PROGRESS_FIELDS:
        raise ValueError("play_table: the progress block is too small")


# Marked (autodup.driver_linking): its calls are per round, and LLVM need not optimise the whole game again here.
@optimised_before_linking
@game_internal
def advance(rules, dealer, order, events, seat_seeds, event_seed, policies, params, param_counts, bot_of_seat,
            outside, check, progress, game, has_decision, decision):
    """Play ``game`` on until a seat played from outside must decide, or the game ends.

    Parameters are those of :func:`play_table`, and:

    outside : bool (players,)
        The seats whose decisions come from outside: when one must decide, its
        view is in ``game.desk`` (row ``seat``) and the game stops.
    game : Game
        Changed in place.
    has_decision, decision : bool, int64
        Resume the waiting seat with ``decision`` (an answer of
        :func:`~autodup.game.actions.encode_decision`, judged as a policy's is).

    Returns
    -------
    int
        The seat that must decide, or -1 when the game is over.
    """
    # Taken out of the game once: each attribute read in the loop would count references to every array.
    table, cursor, desk = game.table, game.cursor, game.desk
    while True:
        phase = cursor[CURSOR_PHASE]
        round_index = cursor[CURSOR_ROUND]
        if phase == PHASE_ROUND_START:
            if cursor[CURSOR_ALIVE] <= 1 or round_index >= rules.max_rounds:
                _end_game(rules, game, event_seed)
                return -1
            cursor[CURSOR_ROUNDS] += 1
            bucket = stage_bucket(rules, round_index)
            if bucket != cursor[CURSOR_BUCKET]:
                _close_stage(table.luck, game.luck_mark, game.stage_luck, cursor[CURSOR_BUCKET])
                cursor[CURSOR_BUCKET] = bucket
            alive_count = start_round(rules, dealer, order, events, table, round_index, seat_seeds, event_seed)
            cursor[CURSOR_ALIVE_COUNT] = alive_count
            _log_round(table, alive_count, round_index, game.shops, game.states)
            if check and not table_is_sound(rules, table):
                cursor[CURSOR_VIOLATIONS] += 1
            cursor[CURSOR_POSITION], cursor[CURSOR_STEP], cursor[CURSOR_ROLL] = 0, 0, 1
            cursor[CURSOR_PHASE] = PHASE_TURNS
        elif phase == PHASE_TURNS:
            waiting = play_turns(rules, dealer, table, desk, round_index, seat_seeds, cursor[CURSOR_ALIVE_COUNT],
                                 policies, params, param_counts, bot_of_seat, check, progress, cursor, outside,
                                 has_decision, decision)
            has_decision = False
            if waiting >= 0:
                return waiting
            cursor[CURSOR_PHASE] = PHASE_ROUND_END
        elif phase == PHASE_ROUND_END:
            cursor[CURSOR_ALIVE] = _end_round(rules, dealer, events, table, round_index, seat_seeds, event_seed,
                                              cursor[CURSOR_ALIVE], cursor[CURSOR_ALIVE_COUNT], game.order_scratch,
                                              game.trait_counts, game.final_champion, game.final_star)
            if check and not table_is_sound(rules, table):
                cursor[CURSOR_VIOLATIONS] += 1
            cursor[CURSOR_ROUND] = round_index + 1
            cursor[CURSOR_PHASE] = PHASE_ROUND_START
        else:
            return -1


@game_internal
def _end_game(rules, game, event_seed):
    """Rank the seats still alive, close the last stage bucket and record their final boards."""
    table, cursor = game.table, game.cursor
    rank_seats(table, event_seed, rules.max_rounds, False, cursor[CURSOR_ALIVE])
    _close_stage(table.luck, game.luck_mark, game.stage_luck, cursor[CURSOR_BUCKET])
    for seat in range(rules.players):
        if table.alive[seat]:
            record_final_board(rules, table, seat, game.order_scratch, game.final_champion, game.final_star)
    cursor[CURSOR_PHASE] = PHASE_OVER
    cursor[CURSOR_WAITING] = -1


# game_results and game_log are internal kernels: a Python-callable wrapper would take the whole Game, about 90
# arrays, about 1.1 s of a cold start's compile each, for functions only compiled code calls (a Python caller goes
# through autodup.game.resumable's results_at and log_at).
@internal_kernel
def game_results(rules, game):
    """int64 (players, len(RESULT_COLUMNS)): each seat's final state, then its stats (a game that is over)."""
    table = game.table
    results = np.zeros((rules.players, len(RESULT_COLUMNS)), dtype=np.int64)
    for seat in range(rules.players):
        results[seat, 0] = table.placement[seat]   # FINAL_STATE_COLUMNS, then STATS
        results[seat, 1] = table.hp[seat]
        results[seat, 2] = table.level[seat]
        results[seat, 3] = table.gold[seat]
        for k in range(len(STATS)):
            results[seat, len(FINAL_STATE_COLUMNS) + k] = table.stats[seat, k]
    return results


@internal_kernel
def game_log(game):
    """The game's :class:`TableLog` (its arrays, not copies; rows so far for a game in progress)."""
    table = game.table
    return TableLog(game.shops, game.states, game.final_champion, game.final_star, table.offers, table.bought,
                    table.luck, game.stage_luck, table.trace_weights, table.trace_key, table.trace_outcome,
                    table.trace_count)


@njit(cache=True, no_cfunc_wrapper=True)
def play_table(rules, dealer, order, seat_seeds, event_seed, policies, params, param_counts, bot_of_seat, check,
               progress, trace_draws=0, events=EVENTS_BY_SEAT):
    """Play one table to the end.

    Parameters
    ----------
    rules : Rules
    dealer : int
        The dealer's engine code (``autodup.engine.dealers.DEALERS[name].code``).
    order : None or int
        ``ORDER_EVENTS`` (None) or ``ORDER_RACE`` (the race needs the haystack dealer).
    seat_seeds : uint64 (players,)
    event_seed : uint64
    policies : tuple of MAX_PLAYERS policies
        Compiled callbacks of ``FRAME_SIGNATURE``, one per bot (a bot's
        ``decide``, of ``POLICY_SIGNATURE``, called through a frame: see
        :mod:`autodup.game.policy_frames` and
        :func:`autodup.game.bot_loading.policy_tuple`).
    params : float64 (MAX_PLAYERS, P)
        Each bot's parameters.
    param_counts : int64 (MAX_PLAYERS,)
        How many parameters each bot declares (it sees only those).
    bot_of_seat : int64 (players,)
        Seat ``s`` plays ``policies[bot_of_seat[s]]`` with ``params[bot_of_seat[s]]``.
    check : bool
        Verify conservation, gold and unit counts after every step.
    progress : int64 (PROGRESS_FIELDS,)
        Where the game is, for a watchdog (see ``PROGRESS_*``; :func:`new_progress`).
    trace_draws : int, optional
        Keep each seat's first ``trace_draws`` draws with their inputs (see
        ``TRACE``), for the coupling diagnostic; 0 (the default) keeps none.
    events : int, optional
        How the table's events are addressed: ``EVENTS_BY_SEAT`` (the default)
        or ``EVENTS_BY_POSITION`` (see :func:`shuffle_alive`, :func:`play_fight`).

    Returns
    -------
    results : int64 (players, len(RESULT_COLUMNS))
    violations : int
        Steps after which the table was unsound (0 when ``check`` is off).
    rounds : int
        Rounds played.
    log : TableLog
        Each seat's shop, level, gold and HP by round, its final board, its offers and its trace.
    """
    # A default left out is typed as a literal, and every function it reaches would be compiled again for it
    # (the whole game: two minutes). As int64, every caller shares the compiled game.
    return play_table_inline(rules, dealer, order, seat_seeds, event_seed, policies, params, param_counts, bot_of_seat,
                             check, progress, np.int64(trace_draws), np.int64(events))


@game_inline
def play_table_inline(rules, dealer, order, seat_seeds, event_seed, policies, params, param_counts, bot_of_seat, check,
                      progress, trace_draws, events):
    """:func:`play_table`'s body, in its caller's code (``trace_draws`` and ``events`` required, as int64).

    The board driver inlines it rather than calling :func:`play_table`: each compiled function links in the
    compiled code of everything it calls, and LLVM optimises and generates the whole game again at every such
    level, 6-7 s of a cold start each. A run then compiles the game under :func:`advance` once (the board
    driver), not twice; :func:`play_table` compiles only for a Python caller, and plays the same compiled
    :func:`advance`.
    """
    check_table_arguments(rules, dealer, order, events, seat_seeds, policies, params, param_counts, bot_of_seat,
                          progress)
    progress[PROGRESS_GAMES] += 1
    progress[PROGRESS_IN_GAME] = 1
    game = new_game(rules, trace_draws, params.shape[1])
    # No decision to resume with, typed as values (not as literals) as the resumable table (autodup.game.resumable)
    # passes them, so that it runs this very compiled advance.
    advance(rules, dealer, order, events, seat_seeds, event_seed, policies, params, param_counts, bot_of_seat,
            np.zeros(rules.players, dtype=np.bool_), check, progress, game, np.bool_(False), np.int64(0))
    progress[PROGRESS_IN_GAME] = 0
    return game_results(rules, game), game.cursor[CURSOR_VIOLATIONS], game.cursor[CURSOR_ROUNDS], game_log(game)


@game_internal
def _end_round(rules, dealer, events, table, round_index, seat_seeds, event_seed, alive, alive_count, order_scratch,
               trait_counts, final_champion, final_star):
    """After the turns: loot on a PvE round, else fights and eliminations; returns the seats still alive.

    Its own compiled function (called once a round), so that a cold start can
    compile it in a second process (:func:`compile_round_end`).
    """
    if rules.round_pve[round_index]:
        for i in range(alive_count):
            deal_loot(rules, dealer, table, table.order[i], round_index, seat_seeds)
        return alive
    prepare_fights(rules, table, round_index, order_scratch, trait_counts)
    k = shuffle_alive(table, event_seed, STREAM_MATCHMAKING_KEY, round_index, events)
    play_fights(rules, table, k, round_index, event_seed, events)
    return eliminate(rules, table, round_index, event_seed, alive, order_scratch, final_champion, final_star)


# --------------------------------------------------------------------------
# compiling ahead, in two processes
# --------------------------------------------------------------------------


def _end_every_turn(frame):
    return encode_decision(ACTION_END, 0)


@functools.cache
def end_every_turn():
    """A policy that always ends its turn: what the table is compiled with (any policy gives the same code).

    Compiled (or loaded from the cache) on first use, not when this module is imported: the first compiled
    function a process loads sets up numba's code generator, about 0.8 s, which a command's own process
    (parsing, storing results, the summary) never needs.
    """
    return cfunc(FRAME_SIGNATURE, cache=True)(_end_every_turn)


def compile_shop_draw(rules) -> None:
    """Compile the shop's draw (:func:`~autodup.engine.kernels.engine_draw_hierarchical`) into the cache, with the
    types the shop passes (a seat's row of each dealer array, the slot's tier weights, the pool).

    A cold start's second process compiles it first: the round's start (:func:`compile_round_start`), which that
    process compiles next, and the round's end, which deals loot with it, both reach it.
    """
    rows = np.zeros(rules.tier_start.shape[0], dtype=np.int64)  # only the types count
    weights = np.zeros(rules.tier_start.shape[0])
    compile_for(engine_draw_hierarchical, 0, np.uint64(0), rows, weights, rows, weights, weights, rules.tier_start)


def compile_round_start(rules, order: str = "events") -> None:
    """Compile :func:`~autodup.game.rounds.start_round` (income, the serving ``order``, the round's shops) into the
    cache, for the table :func:`new_game` makes (see :func:`compile_round_end`)."""
    serving = types.none if ORDERS[order] is None else types.int64  # as the board driver types it
    compile_for(start_round, rules, 0, serving, EVENTS_BY_SEAT, _new_table_type(rules), 0,
                np.zeros(rules.players, dtype=np.uint64), np.uint64(0))


def _new_table_type(rules):
    """The table's type as new_game makes it (trace_draws an int64), from the version the table's process compiled
    first (or compiles: this process then waits for it); a table built here would compile a Python entry to it."""
    return compiled_return_type(new_table, (typeof(rules), types.int64))


def compile_round_end(rules) -> None:
    """Compile the soundness check and :func:`_end_round` (loot, fights, elimination) into the cache.

    A cold start compiles the table in one process, which types its kernels
    in the order :func:`play_table` calls them: the game, the round's start
    (whose free refresh reaches the shop's draw), the soundness check
    (:func:`~autodup.game.state.table_is_sound`, after every step of a
    checked game), a seat's turn, then the round's end. Another process
    compiles the shop's draw (:func:`compile_shop_draw`), the round's start
    (:func:`compile_round_start`) and the round's end, which the first then
    finds in the cache (:mod:`autodup.compile_cache` compiles each function
    once across processes: whichever process reaches one first compiles it,
    and the other loads it), so that the first goes from the game nearly
    straight to the turns. On this project's 2-core VM the other process has
    the round's end 19-24 s into a cold start, before the first finishes the
    turns. The argument types are those :func:`play_table` passes, so that
    the cached code is the code it uses.
    """
    table = _new_table_type(rules)
    largest_board = rules.level_board_size.max()
    # Only the arguments' types count: the game's scratch row of a unit per slot is an int64 row like any.
    compile_for(_end_round, rules, 0, EVENTS_BY_SEAT, table, 0, np.zeros(rules.players, dtype=np.uint64), np.uint64(0),
                rules.players, rules.players, np.zeros(0, dtype=np.int64),
                np.zeros(rules.trait_breakpoints.shape[0], dtype=np.int64),
                np.full((rules.players, largest_board), -1, dtype=np.int16),
                np.zeros((rules.players, largest_board), dtype=np.int8))
    # Last: the table's process reaches the check right after the round's start, and compiles it itself (1.2-1.7 s)
    # rather than wait for this one to get there; here it is then loaded.
    compile_for(table_is_sound, rules, table)


# --------------------------------------------------------------------------
# inspection helpers (shop statistics, loot), used by the tests and by users
# --------------------------------------------------------------------------


@njit(cache=True, no_cfunc_wrapper=True)
def first_slot_counts(rules, dealer, level, pool, n_shops, base_seed, loaded_trait, rolls=1):
    """Deal ``n_shops`` shops from ``pool`` (float64 (N,)), each to a fresh seat seeded
    ``base_seed + i``; count the champion in each shop's first slot.

    ``loaded_trait >= 0`` deals a loaded roll of that trait instead. With
    ``rolls`` > 1 each seat is dealt that many shops in a row (each a reroll:
    the last shop's units back in the pool first, so every shop meets the same
    pool) and the last one's first slot is counted: its law is the first
    shop's, whatever the dealer's state carries from the shops before. Returns
    int64 (N + 1,): counts per champion, then the number of empty first slots.
    """
    table = new_table(rules, np.int64(0))  # typed as the game's call is: its compiled code, not one of its own
    if pool.shape[0] != table.pool.shape[0]:
        raise ValueError("first_slot_counts: the pool needs one entry per champion")
    for c in range(pool.shape[0]):  # the shop's tier sums add whole numbers in any order (whole_sums_kernel)
        if not (pool[c] >= 0.0 and pool[c] == np.floor(pool[c])):
            raise ValueError("first_slot_counts: the pool holds copies: whole numbers, none negative")
    counts = np.zeros(pool.shape[0] + 1, dtype=np.int64)
    seeds = np.zeros(rules.players, dtype=np.uint64)
    mark_trait(rules, loaded_trait, table.qualifies)
    for i in range(n_shops):
        seeds[0] = np.uint64(base_seed) + np.uint64(i)
        # A loop: a slice assignment would compile numba's shape-error message (4 s), and copy_flat needs a
        # contiguous pool, which a caller's may not be.
        for c in range(pool.shape[0]):
            table.pool[c] = pool[c]
        fill_tier_totals(rules, table.pool, table.tier_totals)  # kept with the pool from here on
        table.shops[0, :] = -1
        table.level[0] = level
        table.counters[0, :] = 0
        table.needles[0, :] = 0.0
        table.needle_count[0, :] = 0
        # The game's own compiled shop, a normal or a loaded roll: the flag is a run-time bool, as the game passes it.
        for roll in range(rolls):
            reroll_shop(rules, dealer, table, np.int64(0), np.int64(0), np.int64(roll), seeds, loaded_trait >= 0)
        first = table.shops[0, 0]
        counts[first if first >= 0 else pool.shape[0]] += 1
    return counts


@njit(cache=True, no_cfunc_wrapper=True)
def loot_items(rules, seat_seed, n):
    """The first ``n`` loot bag items (indices into the bag) one seat receives."""
    out = np.zeros(n, dtype=np.int64)
    shuffled = np.zeros(max(rules.loot_gold.shape[0], 1), dtype=np.int64)
    shuffled_cycle = np.full(1, -1, dtype=np.int64)
    for k in range(n):
        out[k] = bag_item(np.uint64(seat_seed), rules.loot_gold.shape[0], k, shuffled, shuffled_cycle)
    return out
