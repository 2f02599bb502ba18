"""A seat's turn: its view filled (with what is legal), its policy asked, its answers applied."""

from __future__ import annotations

import numpy as np

from ..driver_linking import optimised_before_linking
from ..engine.rng import inline_random_bits_pair
from .actions import ACTION_CAP, ACTION_END, ACTION_LOADED_ROLL, ACTION_REROLL, decode_decision, is_answer
from .cursor import CURSOR_POSITION, CURSOR_ROLL, CURSOR_STEP, CURSOR_VIOLATIONS, CURSOR_WAITING
from .legality import apply_action, legal_buy, legal_buy_xp, legal_loaded_roll, legal_reroll
from .policy_frames import fill_frame, frame_pointer
from .progress import PROGRESS_SEAT
from .rules import STREAM_POLICY_KEY, game_inline, game_internal, game_kernel
from .state import POLICY_BLOCKS_AHEAD, capacity_of, copy_flat, table_is_sound
from .stats import (
    LUCK_POLICY_RANDOM,
    LUCK_POLICY_RANDOM_SECOND,
    STAT_BAD_ANSWERS,
    STAT_BOT_ERRORS,
    STAT_CAP_HITS,
    STAT_ILLEGAL_ACTIONS,
)
from .view import (
    VIEW_ACTIONS,
    VIEW_ALIVE_PLAYERS,
    VIEW_BOARD_SIZE,
    VIEW_BUYABLE,
    VIEW_CAN_BUY_XP,
    VIEW_CAN_LOADED_ROLL,
    VIEW_CAN_REROLL,
    VIEW_CAPACITY,
    VIEW_GOLD,
    VIEW_HP,
    VIEW_INTEREST_MAX,
    VIEW_INTEREST_PER,
    VIEW_LEVEL,
    VIEW_LOADED_USED,
    VIEW_LOCKED,
    VIEW_MAX_LEVEL,
    VIEW_PLAYERS,
    VIEW_PVE_ROUND,
    VIEW_RANDOM_A,
    VIEW_RANDOM_B,
    VIEW_REROLL_PRICE,
    VIEW_ROLLS,
    VIEW_ROUND,
    VIEW_ROUND_IN_STAGE,
    VIEW_SEAT,
    VIEW_SHOP_SIZE,
    VIEW_STAGE,
    VIEW_STAGE_ROUNDS,
    VIEW_STAGES,
    VIEW_STREAK,
    VIEW_UNITS,
    VIEW_XP,
    VIEW_XP_AMOUNT,
    VIEW_XP_PRICE,
    VIEW_XP_TO_LEVEL,
)

__all__ = ["play_turns", "play_turn", "LOG_LEVEL", "LOG_GOLD", "LOG_HP"]

_UNIFORM_MEAN = 0.5 - 2.0**-54  # the mean of a policy's uniform k * 2**-53, k uniform below 2**53


@game_inline
def _copy_arrays(table, desk, seat):
    """Copy the seat's shop, units and the pool into its desk, for a seat played from outside.

    A bot's policy reads the table's own arrays instead, read-only (``POLICY_SIGNATURE``): copying them for
    every decision was 7% of a game."""
    for slot in range(table.shops.shape[1]):
        desk.shop[seat, slot] = table.shops[seat, slot]
    for u in range(table.unit_champion.shape[1]):
        desk.unit_champion[seat, u] = table.unit_champion[seat, u]
        desk.unit_star[seat, u] = table.unit_star[seat, u]
    for c in range(table.pool.shape[0]):
        desk.pool[seat, c] = table.pool[c]


@game_inline
def _policy_block(desk, seat, seat_seed, k):
    """The Philox block at ``(seat_seed, STREAM_POLICY_KEY, k)``, the seat's ``k``-th decision's random values.

    Read from the blocks the seat's desk keeps (``policy_low``, ``policy_high``: blocks ``policy_from[seat]`` on),
    which are computed ``POLICY_BLOCKS_AHEAD`` at a time when ``k`` leaves them: a loop of independent blocks, which
    the compiler vectorizes, where a block computed by a call waits for its multiplications one after another.
    The same values, so the same games, whichever way they are computed.
    """
    start = desk.policy_from[seat]
    if k < start or k >= start + POLICY_BLOCKS_AHEAD or desk.policy_seed[seat] != seat_seed:
        _policy_blocks(seat_seed, k, desk.policy_low[seat], desk.policy_high[seat])
        desk.policy_from[seat] = k
        desk.policy_seed[seat] = seat_seed
        start = k
    return desk.policy_low[seat, k - start], desk.policy_high[seat, k - start]


# Out of line, on plain arrays: inlined into the turns, its vectorized loop made their compile a second longer.
@game_kernel
def _policy_blocks(seat_seed, k, low, high):
    """The Philox blocks ``k, k + 1, ...`` of the seat's policy stream into ``low`` and ``high`` (uint64 (A,))."""
    for j in range(low.shape[0]):
        low[j], high[j] = inline_random_bits_pair(seat_seed, STREAM_POLICY_KEY, np.uint64(k + j))


@game_inline
def fill_turn_view(rules, table, desk, seat, round_index, alive_count):
    """Write the fields of the seat's view (see :data:`VIEW`) that stay the same through its turn: the round,
    its HP and streak, the table and the rules. Written once per turn (and again when a turn resumes) rather than
    before every decision; :func:`fill_decision_view` writes the others."""
    me = desk.me[seat]
    me[VIEW_HP] = table.hp[seat]
    me[VIEW_STREAK] = table.streak[seat]
    me[VIEW_ROUND] = round_index
    # Numbered as in TFT: stage 1 is the first, and 2-1 is the first round of stage 2.
    me[VIEW_STAGE] = rules.round_stage[round_index] + 1
    me[VIEW_ROUND_IN_STAGE] = rules.round_in_stage[round_index]
    me[VIEW_STAGE_ROUNDS] = rules.stage_rounds[round_index]
    me[VIEW_STAGES] = rules.n_stages
    me[VIEW_PVE_ROUND] = 1 if rules.round_pve[round_index] else 0
    me[VIEW_ALIVE_PLAYERS] = alive_count
    me[VIEW_SEAT] = seat
    me[VIEW_PLAYERS] = rules.players
    me[VIEW_SHOP_SIZE] = rules.shop_size
    me[VIEW_MAX_LEVEL] = rules.max_level
    me[VIEW_REROLL_PRICE] = rules.reroll_price
    me[VIEW_XP_PRICE] = rules.xp_price
    me[VIEW_XP_AMOUNT] = rules.xp_amount
    me[VIEW_INTEREST_PER] = rules.interest_per
    me[VIEW_INTEREST_MAX] = rules.interest_max


@game_inline
def fill_decision_view(rules, table, desk, seat, seat_seed, actions, rolls):
    """Write the fields of the seat's view (see :data:`VIEW`) that its decisions change, for its next one (after
    :func:`fill_turn_view` for the turn).

    The legality fields come from the ``legal_*`` predicates, on the state the decision will act on.
    """
    me = desk.me[seat]
    level = table.level[seat]
    me[VIEW_GOLD] = table.gold[seat]
    me[VIEW_LEVEL] = level
    me[VIEW_XP] = table.xp[seat]
    me[VIEW_XP_TO_LEVEL] = rules.level_xp[level + 1] - table.xp[seat] if level < rules.max_level else 0
    me[VIEW_UNITS] = table.n_units[seat]
    me[VIEW_BOARD_SIZE] = rules.level_board_size[level]
    me[VIEW_CAPACITY] = capacity_of(rules, table, seat)
    me[VIEW_LOADED_USED] = 1 if table.loaded_used[seat] else 0
    me[VIEW_LOCKED] = 1 if table.locked[seat] else 0
    me[VIEW_ACTIONS] = actions
    me[VIEW_ROLLS] = rolls
    buyable = 0
    for slot in range(rules.shop_size):
        if legal_buy(rules, table, seat, slot):
            buyable |= 1 << slot
    me[VIEW_BUYABLE] = buyable
    me[VIEW_CAN_REROLL] = 1 if legal_reroll(rules, table, seat) else 0
    me[VIEW_CAN_BUY_XP] = 1 if legal_buy_xp(rules, table, seat) else 0
    # Legality depends on the trait only through its range, so trait 0 answers for every trait.
    me[VIEW_CAN_LOADED_ROLL] = 1 if legal_loaded_roll(rules, table, seat, 0) else 0
    # Two 53-bit random integers per decision, from the seat's policy stream.
    k = table.policy_draws[seat]
    table.policy_draws[seat] = k + 1
    a, b = _policy_block(desk, seat, seat_seed, k)
    me[VIEW_RANDOM_A] = np.int64(a >> np.uint64(11))
    me[VIEW_RANDOM_B] = np.int64(b >> np.uint64(11))
    # A policy's random values are chance events too: the innovation of each, as the uniform the bot reads
    # (authoring.uniform), has mean zero exactly (the mean of k * 2**-53 over k < 2**53 is 1/2 - 2**-54).
    table.luck[seat, LUCK_POLICY_RANDOM] += me[VIEW_RANDOM_A] * 2.0**-53 - _UNIFORM_MEAN
    table.luck[seat, LUCK_POLICY_RANDOM_SECOND] += me[VIEW_RANDOM_B] * 2.0**-53 - _UNIFORM_MEAN


@game_inline
def _lay_out_rules(rules, desk, seat, params):
    """Copy what a policy reads of the rules, and its parameters, into the seat's desk (once per turn, for a seat
    played from outside)."""
    copy_flat(rules.champion_cost, desk.champion_cost[seat])
    copy_flat(rules.champion_traits, desk.champion_traits[seat])
    copy_flat(rules.trait_breakpoints, desk.trait_breakpoints[seat])
    for p in range(desk.params.shape[1]):
        desk.params[seat, p] = params[p]


# Marked (autodup.driver_linking): the reroll's shop and the turn's start stay calls and are not optimised again
# here; a cold start's table process compiles the turns on its critical path.
@optimised_before_linking
@game_internal
def play_turns(rules, dealer, table, desk, round_index, seat_seeds, alive_count, policies, params, param_counts,
               bot_of_seat, check, progress, cursor, outside, has_decision, decision):
    """Play the round's turns, seat by seat in ``table.order``, from the cursor's position until every turn is over
    (returns -1) or a seat played from outside must decide (returns that seat; see :func:`play_turn`).

    ``policies``, ``params``, ``param_counts`` and ``bot_of_seat`` are :func:`autodup.game.table.play_table`'s;
    ``outside`` (bool (players,)) marks the seats played from outside; ``has_decision`` and ``decision`` resume
    the waiting seat. One call plays the round: an out-of-line call passes the rules and the table field by
    field (hundreds of words), so the turns are inlined here rather than called one by one.
    """
    position = cursor[CURSOR_POSITION]
    while position < alive_count:
        seat = table.order[position]
        bot = bot_of_seat[seat]
        over = play_turn(rules, dealer, table, desk, seat, round_index, seat_seeds, alive_count, policies[bot],
                         params[bot], param_counts[bot], check, progress, cursor, outside[seat], has_decision,
                         decision)
        has_decision = False
        if not over:
            return seat
        position += 1
        cursor[CURSOR_POSITION], cursor[CURSOR_STEP], cursor[CURSOR_ROLL] = position, 0, 1
    return -1


# Out of line, once per turn: inlined into the turns, it made their compile longer on a cold start's critical path.
@game_internal
def _start_turn(rules, table, desk, seat, round_index, alive_count, params, outside):
    """Before the seat's decisions (a turn, or its resumption): the view's fields that stay the same through the
    turn, and the frame its policy is called with (``params``: the bot's own parameters)."""
    fill_turn_view(rules, table, desk, seat, round_index, alive_count)
    if not outside:  # the arrays the frame locates stay in place for the turn
        fill_frame(desk.frames[seat], desk.me[seat], table.shops[seat], table.unit_champion[seat],
                   table.unit_star[seat], table.pool, rules.champion_cost, rules.champion_traits,
                   rules.trait_breakpoints, params, desk.memory[seat])


@game_inline
def play_turn(rules, dealer, table, desk, seat, round_index, seat_seeds, alive_count, policy, params, n_params,
              check, progress, cursor, outside, has_decision, decision):
    """Play ``seat``'s turn from where ``cursor`` says (its step and roll) until it ends or must wait.

    Its policy acts until it ends the turn, fails, or reaches ``ACTION_CAP``;
    the policy sees exactly its ``n_params`` parameters, so reading beyond
    them is an index error, not a silent zero. It reads the table's arrays
    and the rules' themselves, typed read-only, and its view ``me`` from the
    desk, located by the seat's frame (:mod:`autodup.game.policy_frames`). A
    seat played from outside (``outside``) has its view filled and its arrays
    copied into the desk, then the turn stops with
    ``cursor[CURSOR_WAITING] = seat``; it resumes with ``has_decision`` and the
    seat's ``decision``, which is applied exactly as a policy's answer would be.
    Steps after which the table was unsound (``check`` only) are counted in
    ``cursor[CURSOR_VIOLATIONS]``. Returns whether the turn is over.
    """
    step, roll = cursor[CURSOR_STEP], cursor[CURSOR_ROLL]
    if outside and step == 0 and not has_decision:
        _lay_out_rules(rules, desk, seat, params)
    _start_turn(rules, table, desk, seat, round_index, alive_count, params[:n_params], outside)
    frame = desk.frames[seat]
    over = True
    while step < ACTION_CAP:
        if has_decision:
            has_decision = False
        else:
            fill_decision_view(rules, table, desk, seat, seat_seeds[seat], step, roll - 1)
            if outside:
                _copy_arrays(table, desk, seat)
                over = False
                break
            progress[PROGRESS_SEAT] = seat
            decision = policy(frame_pointer(frame))
            progress[PROGRESS_SEAT] = -1
        if decision == 0:
            table.stats[seat, STAT_BOT_ERRORS] += 1
            break
        if not is_answer(decision):
            table.stats[seat, STAT_BAD_ANSWERS] += 1
            break
        action, argument = decode_decision(decision)
        if action == ACTION_END:
            break
        legal = apply_action(rules, dealer, table, seat, round_index, roll, seat_seeds, action, argument)
        if not legal:
            table.stats[seat, STAT_ILLEGAL_ACTIONS] += 1
        elif action == ACTION_REROLL or action == ACTION_LOADED_ROLL:
            roll += 1  # shops dealt this turn: the keyed dealer's key, the same at every table
        if check and not table_is_sound(rules, table):
            cursor[CURSOR_VIOLATIONS] += 1
        if step == ACTION_CAP - 1:
            table.stats[seat, STAT_CAP_HITS] += 1
        step += 1
    cursor[CURSOR_STEP], cursor[CURSOR_ROLL] = step, roll
    cursor[CURSOR_WAITING] = -1 if over else seat
    return over


# What a table logs of each seat each round, beside its shop (TableLog.states[round, seat, ...]).
LOG_LEVEL, LOG_GOLD, LOG_HP = range(3)
