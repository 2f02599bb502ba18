"""One table of a TFT-like game, played to the end inside numba.

The rules arrive as a :class:`Rules` named tuple of arrays and scalars
compiled from a :class:`autodup.config.GameConfig` (see :func:`rules_of`).
:func:`play_table` plays one table: 8 seats share one pool; shops are dealt by
the table's dealer from each seat's seed; table-wide randomness (serving order,
matchmaking, combat) comes from the table's event seed. Every random number has
an address in the seed tree, so a game is a pure function of (rules, dealer,
seeds, policies).

Units are stored per seat as a flat list of (champion, star); the board is the
``board_size[level]`` strongest units, the rest is the bench, so the board is
never larger than the level allows. A unit of star ``k`` holds ``3**(k-1)``
copies. Conservation, checked after every step in check mode: for every
champion, pool + shops + units (in copies) == initial copies.
"""

from __future__ import annotations

import warnings
from collections import namedtuple

import numpy as np
from numba import cfunc, njit, types
from numba.core.errors import NumbaExperimentalFeatureWarning

from .kernels import (
    ENGINE_COUNT,
    ENGINE_HAYSTACK,
    ENGINE_KEYED,
    engine_draw_hierarchical,
    haystack_advance,
    haystack_consume,
    haystack_race,
    haystack_update,
    inverse_cdf_index,
    positive_total,
)
from .rng import (
    EVENT_GHOST_INDEX,
    EVENT_SECOND_KEY,
    STREAM_COMBAT,
    STREAM_LOOT_BAG,
    STREAM_MATCHMAKING,
    STREAM_POLICY,
    STREAM_SERVING_ORDER,
    STREAM_TIEBREAK,
    check_game_layout,
    event_counter,
    loot_key,
    random_bits_pair,
    random_uniform,
    shop_key,
)

# Helpers that allocate nothing run without the Numba runtime: the rules and
# the table travel as named tuples of arrays, and refcounting all of them on
# every call between helpers would cost more than the game (see kernels.py).
game_kernel = njit(cache=True, _nrt=False)
# Out-of-line calls pass the two named tuples field by field on the stack
# (hundreds of words); small helpers called per slot or per action are
# inlined into their caller instead. Inlining everything makes the game
# 3x slower (measured): the turn loop and the round start stay separate.
game_inline = njit(cache=True, _nrt=False, inline="always")

# The dealer is an engine code (ENGINE_*); autodup.dealers.DEALERS holds one record per dealer.

# How the simultaneous shop refreshes of a round are served.
ORDER_EVENTS = 0  # a serving order of the seats drawn from the table's event stream
ORDER_RACE = 1    # slot by slot, a race across the seats' tier needles (equal totals)
ORDERS = {"events": ORDER_EVENTS, "race": ORDER_RACE}

# How a table's events (serving order, matchmaking, the combat coin) find their random numbers.
EVENTS_BY_POSITION = 0  # by position: the i-th swap of a shuffle, the coin of the p-th pair of the round
EVENTS_BY_SEAT = 1      # by who: a key per (round, seat) sorts the alive seats; each seat has a combat "form"
EVENT_ADDRESSING = {"position": EVENTS_BY_POSITION, "seat": EVENTS_BY_SEAT}
DEFAULT_EVENTS = "seat"

# Actions a policy returns, encoded with an argument by encode_decision.
ACTION_END = 0
ACTION_BUY = 1        # argument: shop slot
ACTION_SELL = 2       # argument: unit index
ACTION_REROLL = 3
ACTION_BUY_XP = 4
ACTION_LOCK = 5       # toggles the lock: a locked shop skips the next refresh, then unlocks
ACTION_LOADED_ROLL = 6  # argument: trait; a free reroll whose slots all have that trait (once per round)

ACTION_CODES = 16  # action codes are below this; other codes are illegal

ACTION_CAP = 64  # actions per seat per round; a broken policy cannot hang a table

# --------------------------------------------------------------------------
# policies: what a seat sees, what it answers
# --------------------------------------------------------------------------
#
# A policy is a compiled C callback (a numba ``cfunc`` of POLICY_SIGNATURE,
# see autodup.bots) called once per decision inside the table; a table takes
# one per seat, so bots compile once each and the table once for all bots.
# It returns ``encode_decision(action, argument)``: an *answer*, which carries
# ANSWER_TAG so that a number that is not an answer (``return 2``, a float
# cast to an integer, a boolean) is told apart from one. 0 means the policy
# raised (a cfunc that raises returns 0), any other value without the tag is a
# bad answer; either way the turn ends and the seat's ``bot_errors`` or
# ``bad_answers`` count goes up.
#
# The seat's view ``me`` (int64 (VIEW_FIELDS,)), rebuilt before each decision: one entry per field, in
# this order. This table is the view's only declaration: VIEW_NAMES, VIEW_FIELDS and the index constants
# below, and the names bots use (autodup.bots: me[GOLD], ...), all derive from it.
VIEW = (
    ("gold", "gold held"),
    ("level", "level, from 1"),
    ("xp", "XP towards the next level"),
    ("xp_to_level", "XP still needed for the next level (0 at the max level)"),
    ("hp", "hit points"),
    ("streak", "win streak (> 0) or loss streak (< 0)"),
    ("round", "round, from 0"),
    ("stage", "stage, from 1 (numbered as in TFT: 2-1 is the first round of stage 2)"),
    ("round_in_stage", "round within the stage, from 1"),
    ("stage_rounds", "rounds in this stage (fewer if max_rounds ends the game inside it)"),
    ("stages", "stages the configuration lists (the last one repeats until the game ends)"),
    ("pve_round", "1 in a PvE round"),
    ("alive_players", "seats still playing"),
    ("units", "units held: the first me[UNITS] entries of unit_champion and unit_star"),
    ("board_size", "units the level puts on the board"),
    ("capacity", "units the seat may hold: bench plus board"),
    ("loaded_used", "1 once this round's loaded roll is spent"),
    ("locked", "1 while the shop is locked"),
    ("actions", "actions taken this turn"),
    ("rolls", "shops rerolled this turn (loaded rolls included)"),
    ("seat", "the seat, from 0"),
    ("players", "seats at the table"),
    ("shop_size", "shop slots"),
    ("max_level", "the highest level"),
    ("reroll_price", "gold for a reroll"),
    ("xp_price", "gold for one purchase of XP"),
    ("xp_amount", "XP per purchase"),
    ("interest_per", "gold held per gold of interest"),
    ("interest_max", "the most interest a round pays"),
    # What is legal now, by the predicates apply_action itself uses (legal_*): a bot reads legality here
    # instead of restating the rules, so a rule change cannot make it play illegal actions.
    ("buyable", "bit s is set when buying shop slot s is legal (legal_buy)"),
    ("can_reroll", "1 when a reroll is legal (legal_reroll)"),
    ("can_buy_xp", "1 when buying XP is legal (legal_buy_xp)"),
    ("can_loaded_roll", "1 when a loaded roll of any trait is legal (legal_loaded_roll)"),
    ("random_a", "a 53-bit random integer, fresh for every decision (the seat's policy stream)"),
    ("random_b", "a second one, independent of random_a"),
)


def _declare_indices(prefix: str, declaration) -> tuple:
    """The names of a declaration (``(name, meaning)`` pairs); defines ``PREFIX_NAME = index`` for each.

    numba reads module globals when it compiles a function, so ``me[VIEW_GOLD]``
    compiles to a constant index, exactly as a literal would.
    """
    names = tuple(name for name, _ in declaration)
    globals().update({f"{prefix}_{name.upper()}": index for index, name in enumerate(names)})
    return names


VIEW_NAMES = _declare_indices("VIEW", VIEW)  # VIEW_GOLD = 0, VIEW_LEVEL = 1, ...
VIEW_FIELDS = len(VIEW)
# A sell of unit u is legal for every unit held (u < me[UNITS], legal_sell); ending the turn and toggling
# the lock always are. Buyable slots travel as one int64 bitmask: the configuration allows at most 20 slots.
VIEW_MASK_BITS = 63

MAX_PLAYERS = 8        # policies travel as a tuple of this length (extra entries are never called)
MEMORY_SIZE = 32       # int64 words a policy may keep per seat for a game (zero at the start)
MAX_PARAMETERS = 16    # float64 parameters per seat

# Policies are numba first-class functions, still labelled experimental; the
# table relies only on calling them, which is covered by the tests.
warnings.filterwarnings("ignore", category=NumbaExperimentalFeatureWarning,
                        message="First-class function type feature is experimental")

_INT = types.int64
POLICY_SIGNATURE = _INT(
    _INT[::1],                # me: the view above
    _INT[::1],                # shop: champion per slot, -1 if empty
    _INT[::1],                # unit_champion: the seat's units (the first me[VIEW_UNITS] are valid)
    _INT[::1],                # unit_star: 1, 2 or 3
    types.float64[::1],       # pool: copies of each champion left in the shared pool
    _INT[::1],                # champion_cost: gold cost of each champion
    _INT[:, ::1],             # champion_traits: trait ids of each champion, padded with -1
    _INT[:, ::1],             # trait_breakpoints: units needed for each level of each trait
    types.float64[::1],       # params: the bot's parameters, in declaration order
    _INT[::1],                # memory: MEMORY_SIZE words kept for the game
)


# An answer: ANSWER_TAG in bits 40-47, the argument + 2**31 in bits 4-35, the action in bits 0-3.
ANSWER_TAG = 0xA5 << 40
_ARGUMENT_OFFSET = 1 << 31
_ARGUMENT_MASK = (1 << 32) - 1


@njit(cache=True, _nrt=False, inline="always")
def encode_decision(action, argument):
    """A policy's answer: ``action`` (one of ``ACTION_*``) with its argument (slot, unit or trait).

    ``argument`` is taken modulo 2**32 into ``[-2**31, 2**31)``; an answer is never 0.
    """
    return ANSWER_TAG | (((argument + _ARGUMENT_OFFSET) & _ARGUMENT_MASK) << 4) | (action & (ACTION_CODES - 1))


@njit(cache=True, _nrt=False, inline="always")
def is_answer(decision):
    """Whether ``decision`` was made by :func:`encode_decision` (bits 36-63 hold exactly the tag)."""
    return (decision >> 36) == (ANSWER_TAG >> 36)


@njit(cache=True, _nrt=False, inline="always")
def decode_decision(decision):
    """``(action, argument)`` of an answer (see :func:`is_answer`)."""
    return decision & (ACTION_CODES - 1), ((decision >> 4) & _ARGUMENT_MASK) - _ARGUMENT_OFFSET


# --------------------------------------------------------------------------
# progress: what a watchdog outside the jitted code can read
# --------------------------------------------------------------------------
#
# A table writes where it is into a small int64 array (shared memory when it
# runs in a worker process), so that a process watching it can enforce a
# deadline per game and name the bot and the board when a game hangs or
# crashes. Writing it changes no result.
PROGRESS_GAMES = 0    # games started (a deadline restarts at each one)
PROGRESS_IN_GAME = 1  # 1 while a game is being played (compilation is never counted)
PROGRESS_SEAT = 2     # the seat whose policy is deciding, or -1
PROGRESS_BOARD = 3    # set by the board loops: the board and table being played
PROGRESS_TABLE = 4
PROGRESS_LOADING = 5  # set while bots load: 1 + the index of the bot being loaded, 0 when none is
PROGRESS_PROBE = 6    # set while a run probes a bot's determinism: 1 + the bot's index, 0 otherwise (the board
                      # loops own PROGRESS_TABLE, so the probe's tables are marked here)
PROGRESS_FIELDS = 7


def new_progress() -> np.ndarray:
    """A progress block for a table played in this process (int64 (PROGRESS_FIELDS,))."""
    progress = np.zeros(PROGRESS_FIELDS, dtype=np.int64)
    progress[PROGRESS_SEAT] = -1
    return progress


# Streams of the game's own randomness (autodup.rng.DOMAINS owns every address).
_SERVING_ORDER = np.uint64(STREAM_SERVING_ORDER)
_MATCHMAKING = np.uint64(STREAM_MATCHMAKING)
_COMBAT = np.uint64(STREAM_COMBAT)
_TIEBREAK = np.uint64(STREAM_TIEBREAK)
_LOOT_BAG = np.uint64(STREAM_LOOT_BAG)
_POLICY = np.uint64(STREAM_POLICY)

Rules = namedtuple("Rules", [
    "players", "starting_hp", "starting_gold", "bench_size", "max_rounds", "shop_size", "reroll_price",
    "units_leave_pool", "empty_tier", "xp_price", "xp_amount", "xp_per_round", "max_level", "interest_per",
    "interest_max", "pvp_win_gold", "combat_scale", "damage_per_surviving_unit", "loot_per_pve_round",
    "tier_cost", "tier_start", "champion_tier", "champion_copies", "champion_traits", "trait_breakpoints",
    "trait_bonus", "level_xp", "level_board_size", "level_odds", "round_pve", "round_damage", "round_income",
    "streak_length", "streak_gold", "loot_gold", "loot_unit_tier", "star_power", "champion_cost",
    "round_stage", "n_stages", "round_in_stage", "stage_rounds",
])
# Rules fields computed here rather than read from the configuration.
_DERIVED_RULES = ("round_in_stage", "stage_rounds")


def stage_positions(round_stage):
    """Each round's place in its stage, from the stage of every round.

    Parameters
    ----------
    round_stage : int64 (R,)
        The stage of every round (from 0), as :class:`~autodup.config.GameConfig` holds it.

    Returns
    -------
    round_in_stage : int64 (R,)
        The round's number within its stage, from 1.
    stage_rounds : int64 (R,)
        Rounds in the round's stage (a stage that ``R`` cuts short counts only its rounds before ``R``).
    """
    round_stage = np.asarray(round_stage)
    round_in_stage = np.zeros(round_stage.shape[0], dtype=np.int64)
    stage_rounds = np.zeros(round_stage.shape[0], dtype=np.int64)
    start = 0
    for end in range(1, round_stage.shape[0] + 1):
        if end == round_stage.shape[0] or round_stage[end] != round_stage[start]:
            round_in_stage[start:end] = np.arange(1, end - start + 1)
            stage_rounds[start:end] = end - start
            start = end
    return round_in_stage, stage_rounds


def rules_of(config) -> Rules:
    """The jitted game's view of a :class:`~autodup.config.GameConfig`.

    Raises
    ------
    autodup.config.ConfigError
        The game's sizes would make two random-number addresses meet (see
        :func:`autodup.rng.check_game_layout`).
    """
    from .config import ConfigError

    try:
        check_game_layout(config.max_rounds, config.players, config.shop_size, ACTION_CAP + 1)
    except ValueError as error:
        raise ConfigError(config.source, 0, "", str(error)) from None
    if config.shop_size > VIEW_MASK_BITS:  # the configuration allows 20; the view's buy mask holds 63
        raise ConfigError(config.source, 0, "shop.size",
                          f"{config.shop_size} slots (allowed: at most {VIEW_MASK_BITS})")
    round_in_stage, stage_rounds = stage_positions(config.round_stage)
    return Rules(**{name: getattr(config, name) for name in Rules._fields if name not in _DERIVED_RULES},
                 round_in_stage=round_in_stage, stage_rounds=stage_rounds)


# What a table counts of each seat as it plays (``table.stats[seat, STAT_*]``), declared once: the
# STAT_* indices and the result columns after the seat's final state derive from this list.
STATS = (
    ("gold_spent", "gold spent on units, rerolls and XP"),
    ("rolls", "rerolls paid for"),
    ("units_bought", "units bought from the shop"),
    ("shops_seen", "shops dealt to the seat: free refreshes, rerolls and loaded rolls"),
    ("rounds_alive", "rounds the seat played"),
    ("illegal_actions", "actions the table refused"),
    ("cap_hits", "turns ended by the action cap"),
    ("bot_errors", "decisions that raised (or returned 0)"),
    ("bad_answers", "decisions that returned something that is not an answer"),
)
STAT_NAMES = _declare_indices("STAT", STATS)
# The seat's final state, then its stats: one row of play_table's results per seat.
FINAL_STATE_COLUMNS = ("placement", "hp", "level", "gold")
RESULT_COLUMNS = FINAL_STATE_COLUMNS + STAT_NAMES
# What a bot did wrong, per seat: the columns the summary and the warnings report.
MISBEHAVIOUR_COLUMNS = ("illegal_actions", "cap_hits", "bot_errors", "bad_answers")

# Luck terms: what each seat's chance events gave it beyond what they were expected to give, summed over
# its game (``table.luck[seat, LUCK_*]``). Each event adds f(outcome) - E[f | everything before it], the
# expectation under the game's own law, so every term has mean zero on a table that plays the game's
# probabilities, whatever the bots do (a sum of martingale increments). The functions f are fixed here,
# before any data is seen: a term fitted to the data it adjusts could make variance look smaller than it is.
# Signs: positive is good luck for the seat.
LUCK = (
    ("coin", "combat coins: won - P(win)"),
    ("coin_hp", "combat coins: E[HP lost] - HP lost"),
    ("coin_standing", "combat coins: standing after the fight - its expectation (standing: see _standing)"),
    ("coin_value", "combat coins: value after the fight - its expectation (value: see _value)"),
    ("coin_duel", "combat coins: value after the fight, the opponent's HP too - its expectation"),
    ("coin_onlooker", "other seats' combat coins: value after their fight - its expectation"),
    ("coin_gold", "combat coins: gold the outcome gives (win gold, next streak gold) - its expectation"),
    ("matchmaking", "opponents drawn: P(win) against the one drawn - its mean over the pairing's law"),
    ("matchmaking_hp", "opponents drawn: mean E[HP lost] over the law - E[HP lost] against the one drawn"),
    ("matchmaking_standing", "opponents drawn: E[standing after] against the one drawn - its mean over the law"),
    ("matchmaking_value", "opponents drawn: E[value after] against the one drawn - its mean over the law"),
    ("shop_hits", "shop slots: 1 if the seat owns the champion dealt, minus the chance of that"),
    ("shop_cost", "shop slots: the cost of the champion dealt (0 for none) minus its expectation"),
    ("loot", "loot: the item's worth in gold minus the mean worth of the items left in the bag's cycle"),
    ("tiebreak", "ties for a place: the mean place of the tie minus the place given"),
)
LUCK_NAMES = _declare_indices("LUCK", LUCK)
STANDING_SCALE = 0.125  # the standing's HP scale, as a share of the starting HP (fixed in advance)
VALUE_SCALE = 0.25  # the value's HP scale, as a share of the starting HP (fixed in advance)


# --------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------


@game_kernel
def _event_uniform(event_seed, kind, round_index, index):
    return random_uniform(event_seed, kind, event_counter(round_index, index))


@game_kernel
def _unit_power(rules, champion, star):
    return rules.tier_cost[rules.champion_tier[champion]] * rules.star_power[star - 1]


@game_inline
def copies_of_star(star):
    """Copies a unit of ``star`` holds: 1, 3 or 9 (also used by bots, through autodup.bots)."""
    return 1 if star == 1 else (3 if star == 2 else 9)


@game_inline
def _tier_totals(rules, pool, out):
    for t in range(out.shape[0]):
        out[t] = positive_total(pool, rules.tier_start[t], rules.tier_start[t + 1])


@game_inline
def _tier_weights(rules, level, tier_totals, constrained, qualifying_totals, out):
    """Normalized shop odds at ``level`` over the tiers the empty-tier rule allows.

    For a constrained roll each tier's odds are scaled by the share of its
    copies that qualify: exactly the law of rerolling a slot until it fits.
    """
    total = 0.0
    for t in range(out.shape[0]):
        w = rules.level_odds[level, t]
        if rules.empty_tier == 0 and tier_totals[t] <= 0.0:
            w = 0.0
        if constrained:
            w = w * qualifying_totals[t] / tier_totals[t] if tier_totals[t] > 0.0 else 0.0
        out[t] = w
        total += w
    if total > 0.0:
        for t in range(out.shape[0]):
            out[t] /= total


# --------------------------------------------------------------------------
# dealing
# --------------------------------------------------------------------------


@game_inline
def _deal_one(rules, dealer, seat, seat_seeds, counters, needles, needle_count, tier_weights, pool, key):
    """One shop slot for ``seat`` from the current pool; -1 if nothing can be dealt."""
    if dealer == ENGINE_KEYED:
        counters[seat, 0] = key
    return engine_draw_hierarchical(dealer, seat_seeds[seat], counters[seat], needles[seat], needle_count[seat],
                                    tier_weights, pool, rules.tier_start)


@game_inline
def _take_from_pool(rules, pool, champion):
    """A champion dealt to a shop leaves the pool (if the rules say so); returns whether it did."""
    if champion >= 0 and rules.units_leave_pool:
        pool[champion] -= 1.0
        return True
    return False


@game_inline
def _put_in_shop(rules, table, seat, slot, champion):
    """Show ``champion`` (or -1) in ``seat``'s ``slot``: it leaves the pool and its tier's total, if the rules say so.

    The one place a dealt champion lands, whichever order serves the seats; it
    is counted in the seat's offers. Returns whether it left the pool.
    """
    table.shops[seat, slot] = champion
    if champion >= 0:
        table.offers[seat, champion] += 1
    if _take_from_pool(rules, table.pool, champion):
        table.tier_totals[rules.champion_tier[champion]] -= 1.0
        return True
    return False


@game_inline
def _prepare_slot_luck(rules, table, seat, champion_weights):
    """Before dealing ``seat`` slots from ``champion_weights`` (float64 (N,)): ``table.owned`` = the champions it
    owns, ``table.tier_hits[t]`` = their weight in tier ``t`` (kept up to date as copies leave)."""
    table.owned[:] = 0.0
    for u in range(table.n_units[seat]):
        table.owned[table.unit_champion[seat, u]] = 1.0
    for t in range(table.tier_hits.shape[0]):
        hits = 0.0
        for c in range(rules.tier_start[t], rules.tier_start[t + 1]):
            if champion_weights[c] > 0.0:
                hits += champion_weights[c] * table.owned[c]
        table.tier_hits[t] = hits


@game_inline
def _add_slot_luck(rules, table, seat, champion, champion_totals):
    """Add a dealt slot's shop terms (``LUCK_SHOP_*``): its outcome minus the expectation under the slot's law.

    The law is the draw's: tier ``t`` with ``table.tier_weights[t]`` (normalized,
    or all zero: nothing), then a champion in proportion to its weight in the
    tier (``champion_totals[t]`` in all; none: nothing dealt, worth 0).
    """
    expected_hits = 0.0
    expected_cost = 0.0
    for t in range(table.tier_weights.shape[0]):
        w = table.tier_weights[t]
        if w > 0.0 and champion_totals[t] > 0.0:
            expected_hits += w * table.tier_hits[t] / champion_totals[t]
            expected_cost += w * rules.tier_cost[t]
    hits = 0.0
    cost = 0.0
    if champion >= 0:
        hits = table.owned[champion]
        cost = rules.tier_cost[rules.champion_tier[champion]]
    table.luck[seat, LUCK_SHOP_HITS] += hits - expected_hits
    table.luck[seat, LUCK_SHOP_COST] += cost - expected_cost


@game_inline
def _traces(table, seat):
    """Whether ``seat``'s trace still has room for a draw (never in a normal game: the trace holds none)."""
    return table.trace_count[seat] < table.trace_outcome.shape[1]


@game_inline
def _trace_draw(table, seat, key, champion_weights, champion):
    """Keep the seat's draw in the trace while it has room (the coupling diagnostic; no room in a normal game).

    The draw's tier weights (``table.tier_weights``), champion weights and key
    and what it dealt: two tables whose ``k``-th draws at a seat had the same
    inputs drew alike if the dealer is a duplicate one.
    """
    if not _traces(table, seat):
        return
    k = table.trace_count[seat]
    n_tiers = table.tier_weights.shape[0]
    for t in range(n_tiers):
        table.trace_weights[seat, k, t] = table.tier_weights[t]
    for c in range(champion_weights.shape[0]):
        table.trace_weights[seat, k, n_tiers + c] = champion_weights[c]
    table.trace_key[seat, k] = key
    table.trace_outcome[seat, k] = champion
    table.trace_count[seat] = k + 1


@game_kernel
def _mark_trait(rules, trait, qualifies):
    """``qualifies[c]`` = whether champion ``c`` has ``trait`` (bool (N,)); a loaded roll deals only those."""
    for c in range(qualifies.shape[0]):
        has = False
        for m in range(rules.champion_traits.shape[1]):
            if rules.champion_traits[c, m] == trait:
                has = True
        qualifies[c] = has


@game_kernel
def _clear_shop(rules, shops, seat, pool):
    for slot in range(shops.shape[1]):
        champion = shops[seat, slot]
        if champion >= 0:
            if rules.units_leave_pool:
                pool[champion] += 1.0
            shops[seat, slot] = -1


@game_inline  # it takes the table: out of line, every call would copy the whole tuple onto the stack
def _fill_shop(rules, dealer, table, seat, round_index, roll, seat_seeds, constrained):
    """Deal every empty slot of ``seat``'s shop, one after the other, from the pool.

    With ``constrained``, only champions with ``table.qualifies[c]`` are dealt (a loaded roll).
    """
    # Tier totals are computed once and kept up to date slot by slot; copies are
    # whole numbers, so the sums stay exact.
    pool = table.pool
    scratch_pool = table.scratch_pool
    _tier_totals(rules, pool, table.tier_totals)
    if constrained:
        for c in range(pool.shape[0]):
            scratch_pool[c] = pool[c] if table.qualifies[c] else 0.0
        _tier_totals(rules, scratch_pool, table.qualifying_totals)
    champion_weights = scratch_pool if constrained else pool
    champion_totals = table.qualifying_totals if constrained else table.tier_totals
    _prepare_slot_luck(rules, table, seat, champion_weights)
    for slot in range(table.shops.shape[1]):
        if table.shops[seat, slot] >= 0:
            continue
        _tier_weights(rules, table.level[seat], table.tier_totals, constrained, table.qualifying_totals,
                      table.tier_weights)
        key = shop_key(round_index, roll, slot)
        champion = _deal_one(rules, dealer, seat, seat_seeds, table.counters, table.needles, table.needle_count,
                             table.tier_weights, champion_weights, key)
        _trace_draw(table, seat, key, champion_weights, champion)
        _add_slot_luck(rules, table, seat, champion, champion_totals)
        if _put_in_shop(rules, table, seat, slot, champion):
            table.tier_hits[rules.champion_tier[champion]] -= table.owned[champion]
            if constrained:
                scratch_pool[champion] -= 1.0
                table.qualifying_totals[rules.champion_tier[champion]] -= 1.0


# --------------------------------------------------------------------------
# table state
# --------------------------------------------------------------------------

# A table's arrays, declared in three groups. N champions, T tiers; ``capacity`` is the largest bench
# plus board, plus one (a purchase that completes a combine holds one extra unit until it combines).
# The game state: what the rules say a table is, and what results and logs are read from.
GAME_STATE = (
    ("pool", "float64 (N,): copies of each champion left in the shared pool"),
    ("initial", "float64 (N,): copies at the start, for the conservation check"),
    ("shops", "int64 (players, shop_size): the champion in each slot, -1 for an empty one"),
    ("locked", "bool (players,): the shop skips its next refresh"),
    ("unit_champion", "int64 (players, capacity): each seat's units, -1 after the last"),
    ("unit_star", "int64 (players, capacity): their stars"),
    ("n_units", "int64 (players,): units held"),
    ("gold", "int64 (players,)"),
    ("level", "int64 (players,)"),
    ("xp", "int64 (players,): XP towards the next level"),
    ("hp", "int64 (players,)"),
    ("streak", "int64 (players,): wins (+) or losses (-) in a row"),
    ("alive", "bool (players,)"),
    ("placement", "int64 (players,): 0 until the seat leaves the game"),
    ("stats", "int64 (players, len(STATS)): what each seat did (STATS)"),
    ("loaded_used", "bool (players,): the round's loaded roll is spent"),
    ("loot_position", "int64 (players,): how far each seat's loot bag is dealt"),
    ("order", "int64 (players,): the round's serving order, alive seats first"),
    ("policy_draws", "int64 (players,): random value pairs handed to each seat's policy"),
    ("offers", "int32 (players, N): copies of each champion shown to each seat, in every shop it was dealt"),
    ("bought", "int32 (players, N): copies of each champion each seat bought from its shop"),
    ("luck", "float64 (players, len(LUCK)): each seat's luck terms so far (LUCK)"),
)
# The dealer state: what a seat's draw engine remembers between draws (see autodup.kernels).
DEALER_STATE = (
    ("counters", "int64 (players, 2): the other dealers' counters (a draw index, the keyed dealer's key)"),
    ("needles", "float64 (players, 2, N + T): the haystack's residuals and next values, by needle"),
    ("needle_count", "int64 (players, N + T): values each needle has consumed"),
)
# Scratch: working space rebuilt by each use, kept here so that nothing is allocated while a game plays.
SCRATCH = (
    ("tier_totals", "float64 (T,): copies left per tier"),
    ("tier_weights", "float64 (T,): a slot's tier weights"),
    ("qualifying_totals", "float64 (T,): copies per tier that qualify for a loaded roll"),
    ("scratch_pool", "float64 (N,): the pool a loaded roll draws from"),
    ("qualifies", "bool (N,): the champions a loaded roll may deal"),
    ("bag_scratch", "int64 (loot bag size,): a loot bag's shuffle"),
    ("remaining", "int64 (players,): slots each seat still waits for in a race-ordered refresh"),
    ("event_keys", "float64 (players,): each seat's key when events are addressed by seat"),
    ("fight_power", "float64 (players,): each alive seat's board power in this round's fights"),
    ("fight_units", "int64 (players,): the units on that board"),
    ("owned", "float64 (N,): 1 for each champion the seat being dealt to owns (the shop-hit term)"),
    ("tier_hits", "float64 (T,): per tier, the weight of the champions it owns (the shop-hit term)"),
    ("fight_hp", "float64 (players,): each seat's HP when the round's fights start (the standing terms)"),
    ("fight_strength", "float64 (players,): log(board power + 1) / combat_scale, each alive seat's this round"),
    ("standing_now", "float64 (players,): each alive seat's standing at fight_hp (see _standing)"),
    ("value_now", "float64 (players,): each alive seat's value at fight_hp (see _value)"),
    ("standing_if_lost", "float64 (players, players): [s, o]: s's standing if it loses to o"),
    ("value_if_lost", "float64 (players, players): [s, o]: s's value if it loses to o"),
)
# The trace: each seat's first K draws, with their inputs (K = 0 unless a game is traced for the coupling
# diagnostic of autodup.measures; see _trace_draw).
TRACE = (
    ("trace_weights", "float32 (players, K, T + N): a draw's tier weights, then its champion weights"),
    ("trace_key", "int64 (players, K): its draw key (shop_key; -1 in a race-ordered refresh)"),
    ("trace_outcome", "int16 (players, K): the champion it dealt, -1 for none"),
    ("trace_count", "int64 (players,): draws traced"),
)
Table = namedtuple("Table", [name for name, _ in GAME_STATE + DEALER_STATE + SCRATCH + TRACE])

# What a seat's policy is handed: copies, refreshed before each decision (the
# game state) or each turn (rules and parameters), so that a bot writing into
# its arrays changes nothing but its own copies. Rows are seats.
Desk = namedtuple("Desk", [
    "me", "shop", "unit_champion", "unit_star", "pool", "champion_cost", "champion_traits", "trait_breakpoints",
    "params", "memory",
])

@njit(cache=True)
def new_table(rules, trace_draws=0):
    """Fresh state for one table (arrays sized by the rules); each seat's first ``trace_draws`` draws are traced."""
    players = rules.players
    n = rules.champion_copies.shape[0]
    n_tiers = rules.tier_cost.shape[0]
    # One slot beyond the largest bench + board: a purchase that completes a
    # combine is allowed with a full bench, and holds one extra unit until it combines.
    capacity = rules.bench_size + rules.level_board_size.max() + 1
    pool = rules.champion_copies.astype(np.float64)
    return Table(
        # game state
        pool, pool.copy(), np.full((players, rules.shop_size), -1, dtype=np.int64), np.zeros(players, dtype=np.bool_),
        np.full((players, capacity), -1, dtype=np.int64), np.zeros((players, capacity), dtype=np.int64),
        np.zeros(players, dtype=np.int64), np.full(players, rules.starting_gold, dtype=np.int64),
        np.ones(players, dtype=np.int64), np.zeros(players, dtype=np.int64),
        np.full(players, rules.starting_hp, dtype=np.int64), np.zeros(players, dtype=np.int64),
        np.ones(players, dtype=np.bool_), np.zeros(players, dtype=np.int64),
        np.zeros((players, len(STATS)), dtype=np.int64), np.zeros(players, dtype=np.bool_),
        np.zeros(players, dtype=np.int64), np.arange(players), np.zeros(players, dtype=np.int64),
        np.zeros((players, n), dtype=np.int32), np.zeros((players, n), dtype=np.int32),
        np.zeros((players, len(LUCK))),
        # dealer state
        np.zeros((players, 2), dtype=np.int64), np.zeros((players, 2, n + n_tiers)),
        np.zeros((players, n + n_tiers), dtype=np.int64),
        # scratch
        np.zeros(n_tiers), np.zeros(n_tiers), np.zeros(n_tiers), np.zeros(n), np.zeros(n, dtype=np.bool_),
        np.zeros(max(rules.loot_gold.shape[0], 1), dtype=np.int64), np.zeros(players, dtype=np.int64),
        np.zeros(players), np.zeros(players), np.zeros(players, dtype=np.int64), np.zeros(n), np.zeros(n_tiers),
        np.zeros(players), np.zeros(players), np.zeros(players), np.zeros(players), np.zeros((players, players)),
        np.zeros((players, players)),
        # trace
        np.zeros((players, trace_draws, n_tiers + n), dtype=np.float32),
        np.zeros((players, trace_draws), dtype=np.int64), np.full((players, trace_draws), -1, dtype=np.int16),
        np.zeros(players, dtype=np.int64),
    )


@njit(cache=True)
def new_desk(rules, table, n_params):
    """Fresh policy workspaces for a table (see :data:`Desk`); ``memory`` starts at zero."""
    players = rules.players
    return Desk(
        np.zeros((players, VIEW_FIELDS), dtype=np.int64), np.zeros_like(table.shops),
        np.zeros_like(table.unit_champion), np.zeros_like(table.unit_star),
        np.zeros((players, table.pool.shape[0])), np.zeros((players, table.pool.shape[0]), dtype=np.int64),
        np.zeros((players,) + rules.champion_traits.shape, dtype=np.int64),
        np.zeros((players,) + rules.trait_breakpoints.shape, dtype=np.int64), np.zeros((players, n_params)),
        np.zeros((players, MEMORY_SIZE), dtype=np.int64),
    )


@game_inline  # read for every shop slot of every decision (legal_buy)
def capacity_of(rules, table, seat):
    """Units a seat may hold: bench plus the board its level allows."""
    return rules.bench_size + rules.level_board_size[table.level[seat]]


@game_kernel
def conservation_holds(rules, table):
    """pool + shops + units (in copies) == initial copies, for every champion."""
    count = table.scratch_pool
    for c in range(count.shape[0]):
        count[c] = table.pool[c]
    for seat in range(table.shops.shape[0]):
        for slot in range(table.shops.shape[1]):
            c = table.shops[seat, slot]
            if c >= 0 and rules.units_leave_pool:
                count[c] += 1.0
        for u in range(table.n_units[seat]):
            count[table.unit_champion[seat, u]] += copies_of_star(table.unit_star[seat, u])
    for c in range(count.shape[0]):
        if count[c] != table.initial[c] or table.pool[c] < 0:
            return False
    return True


@game_kernel
def _table_is_sound(rules, table):
    if not conservation_holds(rules, table):
        return False
    for seat in range(table.gold.shape[0]):
        if table.gold[seat] < 0 or table.n_units[seat] > capacity_of(rules, table, seat):
            return False
    return True


# --------------------------------------------------------------------------
# units
# --------------------------------------------------------------------------


@game_kernel
def _remove_unit(table, seat, index):
    last = table.n_units[seat] - 1
    table.unit_champion[seat, index] = table.unit_champion[seat, last]
    table.unit_star[seat, index] = table.unit_star[seat, last]
    table.unit_champion[seat, last] = -1
    table.unit_star[seat, last] = 0
    table.n_units[seat] = last


@game_kernel
def _add_unit(table, seat, champion):
    """Add a 1-star unit, then combine three of a kind into the next star, repeatedly."""
    n = table.n_units[seat]
    table.unit_champion[seat, n] = champion
    table.unit_star[seat, n] = 1
    table.n_units[seat] = n + 1
    for star in (1, 2):
        found = 0
        for u in range(table.n_units[seat]):
            if table.unit_champion[seat, u] == champion and table.unit_star[seat, u] == star:
                found += 1
        if found < 3:
            return
        removed = 0
        u = table.n_units[seat] - 1
        while removed < 3:
            if table.unit_champion[seat, u] == champion and table.unit_star[seat, u] == star:
                _remove_unit(table, seat, u)
                removed += 1
            u -= 1
        n = table.n_units[seat]
        table.unit_champion[seat, n] = champion
        table.unit_star[seat, n] = star + 1
        table.n_units[seat] = n + 1


@game_inline
def completes_a_combine(unit_champion, unit_star, n_units, champion):
    """Whether one more ``champion`` makes a 2-star at once (two 1-stars among the first ``n_units``).

    Such a purchase is legal with a full bench; bots use the same rule through autodup.bots.
    """
    count = 0
    for u in range(n_units):
        if unit_champion[u] == champion and unit_star[u] == 1:
            count += 1
    return count >= 2


@game_kernel
def _completes_a_combine(table, seat, champion):
    return completes_a_combine(table.unit_champion[seat], table.unit_star[seat], table.n_units[seat], champion)


@game_kernel
def _level_up(rules, table, seat):
    while table.level[seat] < rules.max_level and table.xp[seat] >= rules.level_xp[table.level[seat] + 1]:
        table.xp[seat] -= rules.level_xp[table.level[seat] + 1]
        table.level[seat] += 1
    if table.level[seat] == rules.max_level:
        table.xp[seat] = 0


@game_inline
def _strongest_first(rules, table, seat, order_scratch):
    """Order the seat's units strongest first in ``order_scratch``; returns how many the board holds.

    The board is the strongest units the level allows: what fights, and what
    a run records as a seat's final board.
    """
    n = table.n_units[seat]
    for u in range(n):
        order_scratch[u] = u
    # Insertion sort by power, strongest first (n is at most bench + board).
    for i in range(1, n):
        j = i
        while j > 0 and _unit_power(rules, table.unit_champion[seat, order_scratch[j]],
                                    table.unit_star[seat, order_scratch[j]]) > \
                _unit_power(rules, table.unit_champion[seat, order_scratch[j - 1]],
                            table.unit_star[seat, order_scratch[j - 1]]):
            order_scratch[j], order_scratch[j - 1] = order_scratch[j - 1], order_scratch[j]
            j -= 1
    return min(n, rules.level_board_size[table.level[seat]])


@game_kernel
def _record_final_board(rules, table, seat, order_scratch, final_champion, final_star):
    """Write the seat's board (champions and stars, strongest first, -1 / 0 after) as it leaves the game."""
    on_board = _strongest_first(rules, table, seat, order_scratch)
    for i in range(final_champion.shape[1]):
        if i < on_board:
            final_champion[seat, i] = table.unit_champion[seat, order_scratch[i]]
            final_star[seat, i] = table.unit_star[seat, order_scratch[i]]
        else:
            final_champion[seat, i] = -1
            final_star[seat, i] = 0


@game_kernel
def board_power(rules, table, seat, order_scratch, trait_counts):
    """Combat power of the seat's board: the strongest units the level allows, times trait bonuses.

    Returns (power, number of units on the board).
    """
    on_board = _strongest_first(rules, table, seat, order_scratch)
    power = 0.0
    trait_counts[:] = 0
    for i in range(on_board):
        u = order_scratch[i]
        champion = table.unit_champion[seat, u]
        power += _unit_power(rules, champion, table.unit_star[seat, u])
        unique = True
        for k in range(i):
            if table.unit_champion[seat, order_scratch[k]] == champion:
                unique = False
        if unique:
            for m in range(rules.champion_traits.shape[1]):
                trait = rules.champion_traits[champion, m]
                if trait >= 0:
                    trait_counts[trait] += 1
    bonus = 0.0
    for trait in range(trait_counts.shape[0]):
        for b in range(rules.trait_breakpoints.shape[1]):
            if trait_counts[trait] >= rules.trait_breakpoints[trait, b]:
                bonus_here = rules.trait_bonus[trait, b]
                if b == rules.trait_breakpoints.shape[1] - 1 or trait_counts[trait] < rules.trait_breakpoints[trait, b + 1]:
                    bonus += bonus_here
    return power * (1.0 + bonus), on_board


# --------------------------------------------------------------------------
# actions
# --------------------------------------------------------------------------


@game_kernel
def _reroll_shop(rules, dealer, table, seat, round_index, roll, seat_seeds, constrained):
    _clear_shop(rules, table.shops, seat, table.pool)
    _fill_shop(rules, dealer, table, seat, round_index, roll, seat_seeds, constrained)
    table.stats[seat, STAT_SHOPS_SEEN] += 1


# The legality of each action, one predicate per action: apply_action refuses what they refuse, and
# _fill_view writes their answers into the view (VIEW_BUYABLE, ...), so a bot reads the very rule the
# table applies. Inlined: they run for every shop slot of every decision.


@game_inline
def legal_buy(rules, table, seat, slot):
    """Whether ``seat`` may buy shop ``slot`` now.

    The slot holds a champion, the seat has its cost in gold, and room for a
    unit or a purchase that completes a 2-star at once; when shown units stay
    in the pool (``units_leave_pool`` false), the pool must still hold a copy.
    """
    if slot < 0 or slot >= rules.shop_size:
        return False
    champion = table.shops[seat, slot]
    if champion < 0:
        return False
    if table.gold[seat] < rules.tier_cost[rules.champion_tier[champion]]:
        return False
    if table.n_units[seat] >= capacity_of(rules, table, seat) and not _completes_a_combine(table, seat, champion):
        return False
    return rules.units_leave_pool or table.pool[champion] >= 1.0


@game_inline
def legal_sell(table, seat, unit):
    """Whether ``seat`` may sell its unit ``unit``: any unit it holds."""
    return 0 <= unit < table.n_units[seat]


@game_inline
def legal_reroll(rules, table, seat):
    """Whether ``seat`` may reroll its shop: it has the price."""
    return table.gold[seat] >= rules.reroll_price


@game_inline
def legal_buy_xp(rules, table, seat):
    """Whether ``seat`` may buy XP: it has the price and is below the max level."""
    return table.gold[seat] >= rules.xp_price and table.level[seat] < rules.max_level


@game_inline
def legal_loaded_roll(rules, table, seat, trait):
    """Whether ``seat`` may make a loaded roll of ``trait``: a trait id, and the round's loaded roll unspent."""
    return not table.loaded_used[seat] and 0 <= trait < rules.trait_breakpoints.shape[0]


@game_inline
def apply_action(rules, dealer, table, seat, round_index, roll, seat_seeds, action, argument):
    """Apply one action; returns True if it was legal (an illegal one changes nothing).

    Legality is decided by the ``legal_*`` predicates alone (the ones the view reports).
    """
    if action == ACTION_BUY:
        if not legal_buy(rules, table, seat, argument):
            return False
        champion = table.shops[seat, argument]
        cost = rules.tier_cost[rules.champion_tier[champion]]
        if not rules.units_leave_pool:
            table.pool[champion] -= 1.0  # shown units stayed in the pool: the bought one leaves it now
        table.gold[seat] -= cost
        table.stats[seat, STAT_GOLD_SPENT] += cost
        table.stats[seat, STAT_UNITS_BOUGHT] += 1
        table.bought[seat, champion] += 1
        table.shops[seat, argument] = -1
        _add_unit(table, seat, champion)
        return True
    if action == ACTION_SELL:
        # A unit sells for its cost times the copies it holds (1, 3 or 9).
        if not legal_sell(table, seat, argument):
            return False
        champion = table.unit_champion[seat, argument]
        copies = copies_of_star(table.unit_star[seat, argument])
        table.gold[seat] += rules.tier_cost[rules.champion_tier[champion]] * copies
        table.pool[champion] += copies
        _remove_unit(table, seat, argument)
        return True
    if action == ACTION_REROLL:
        if not legal_reroll(rules, table, seat):
            return False
        table.gold[seat] -= rules.reroll_price
        table.stats[seat, STAT_GOLD_SPENT] += rules.reroll_price
        table.stats[seat, STAT_ROLLS] += 1
        _reroll_shop(rules, dealer, table, seat, round_index, roll, seat_seeds, False)
        return True
    if action == ACTION_BUY_XP:
        if not legal_buy_xp(rules, table, seat):
            return False
        table.gold[seat] -= rules.xp_price
        table.stats[seat, STAT_GOLD_SPENT] += rules.xp_price
        table.xp[seat] += rules.xp_amount
        _level_up(rules, table, seat)
        return True
    if action == ACTION_LOCK:
        table.locked[seat] = not table.locked[seat]
        return True
    if action == ACTION_LOADED_ROLL:
        if not legal_loaded_roll(rules, table, seat, argument):
            return False
        _mark_trait(rules, argument, table.qualifies)
        table.loaded_used[seat] = True
        _reroll_shop(rules, dealer, table, seat, round_index, roll, seat_seeds, True)
        return True
    return action == ACTION_END


# --------------------------------------------------------------------------
# a round
# --------------------------------------------------------------------------


@game_kernel
def _shuffle_alive(table, event_seed, kind, round_index, events):
    """``table.order[:k]`` = the alive seats in a uniformly random order from the event stream; returns k.

    By position (``EVENTS_BY_POSITION``), a Fisher-Yates shuffle whose i-th
    swap reads counter i. By seat (``EVENTS_BY_SEAT``), the seats sorted by a
    key per (round, seat): the same law, and two tables whose alive seats
    differ still order the seats they share alike.
    """
    k = 0
    for seat in range(table.alive.shape[0]):
        if table.alive[seat]:
            table.order[k] = seat
            k += 1
    if events == EVENTS_BY_SEAT:
        for i in range(k):
            table.event_keys[i] = _event_uniform(event_seed, kind, round_index, table.order[i])
        for i in range(1, k):  # insertion sort: k <= players
            key, seat, j = table.event_keys[i], table.order[i], i - 1
            while j >= 0 and table.event_keys[j] > key:
                table.event_keys[j + 1] = table.event_keys[j]
                table.order[j + 1] = table.order[j]
                j -= 1
            table.event_keys[j + 1] = key
            table.order[j + 1] = seat
        return k
    for i in range(k - 1, 0, -1):
        j = int(_event_uniform(event_seed, kind, round_index, i) * (i + 1))
        table.order[i], table.order[j] = table.order[j], table.order[i]
    return k


@game_kernel
def _ghost_of(table, event_seed, round_index, k, events):
    """The seat whose board the odd seat out (``table.order[k - 1]``) fights: uniform over the other alive seats."""
    if events == EVENTS_BY_SEAT:  # the smallest of the others' second keys
        ghost, best = -1, np.inf
        for i in range(k - 1):
            seat = table.order[i]
            key = _event_uniform(event_seed, _MATCHMAKING, round_index, EVENT_SECOND_KEY + seat)
            if key < best:
                ghost, best = seat, key
        return ghost
    return table.order[int(_event_uniform(event_seed, _MATCHMAKING, round_index, EVENT_GHOST_INDEX) * (k - 1))]


@game_kernel
def _streak_gold(rules, streak):
    length = abs(streak)
    gold = 0
    for i in range(rules.streak_length.shape[0]):
        if length >= rules.streak_length[i]:
            gold = rules.streak_gold[i]
    return gold


@game_kernel
def _refresh_by_race(rules, table, seat_seeds, alive_count):
    """Deal the round's free refreshes slot by slot; the seat served next wins a race across seats.

    With the haystack dealer the race runs on the seats' tier needles, each seat's
    odds scaled to total 1, so every seat still waiting is equally likely to be
    served and the tier it wins is drawn by its own odds; the champion then comes
    from that seat's champion race. (Other dealers serve seats in the event order.)
    """
    n = table.pool.shape[0]
    n_tiers = rules.tier_cost.shape[0]
    remaining = table.remaining
    remaining[:] = 0
    total_remaining = 0
    for i in range(alive_count):
        seat = table.order[i]
        if not table.locked[seat]:
            remaining[seat] = rules.shop_size
            total_remaining += rules.shop_size
    _tier_totals(rules, table.pool, table.tier_totals)  # kept up to date serve by serve (whole copies: exact)
    while total_remaining > 0:
        winner, tier = -1, -1
        best_gap = np.inf
        for seat in range(remaining.shape[0]):
            if remaining[seat] == 0:
                continue
            _tier_weights(rules, table.level[seat], table.tier_totals, False, table.qualifying_totals,
                          table.tier_weights)
            best, gap = haystack_update(seat_seeds[seat], table.needles[seat], table.needle_count[seat],
                                        table.tier_weights, 0, n_tiers, n)
            if best >= 0 and gap < best_gap:
                best_gap = gap
                winner, tier = seat, best
        if winner < 0:
            break  # nothing left to deal to anyone
        # Every waiting seat lets the winner's gap pass on its own tier odds.
        for seat in range(remaining.shape[0]):
            if remaining[seat] == 0:
                continue
            _tier_weights(rules, table.level[seat], table.tier_totals, False, table.qualifying_totals,
                          table.tier_weights)
            haystack_advance(table.needles[seat], table.tier_weights, 0, n_tiers, n, best_gap)
        haystack_consume(seat_seeds[winner], table.needles[winner], table.needle_count[winner], n + tier)
        champion = haystack_race(seat_seeds[winner], table.needles[winner], table.needle_count[winner], table.pool,
                                 rules.tier_start[tier], rules.tier_start[tier + 1], 0)
        # The winner's own tier weights: given that it is served, its slot's law is that of _fill_shop.
        _tier_weights(rules, table.level[winner], table.tier_totals, False, table.qualifying_totals,
                      table.tier_weights)
        _trace_draw(table, winner, -1, table.pool, champion)  # a race has no draw key: its timing is the race's
        _prepare_slot_luck(rules, table, winner, table.pool)
        _add_slot_luck(rules, table, winner, champion, table.tier_totals)
        _put_in_shop(rules, table, winner, rules.shop_size - remaining[winner], champion)
        remaining[winner] -= 1
        total_remaining -= 1


@game_kernel
def _start_round(rules, dealer, order, events, table, round_index, seat_seeds, event_seed):
    alive_count = _shuffle_alive(table, event_seed, _SERVING_ORDER, round_index, events)
    for i in range(alive_count):
        seat = table.order[i]
        interest = min(table.gold[seat] // rules.interest_per, rules.interest_max)
        table.gold[seat] += rules.round_income[round_index] + interest + _streak_gold(rules, table.streak[seat])
        if round_index > 0:
            table.xp[seat] += rules.xp_per_round
            _level_up(rules, table, seat)
        table.loaded_used[seat] = False
        table.stats[seat, STAT_ROUNDS_ALIVE] += 1
        if not table.locked[seat]:
            _clear_shop(rules, table.shops, seat, table.pool)
    if order == ORDER_RACE and dealer == ENGINE_HAYSTACK:
        _refresh_by_race(rules, table, seat_seeds, alive_count)
        for i in range(alive_count):
            if not table.locked[table.order[i]]:
                table.stats[table.order[i], STAT_SHOPS_SEEN] += 1
    else:
        for i in range(alive_count):
            seat = table.order[i]
            if not table.locked[seat]:
                _reroll_shop(rules, dealer, table, seat, round_index, 0, seat_seeds, False)
    for i in range(alive_count):
        table.locked[table.order[i]] = False
    return alive_count


@game_kernel
def bag_item(seat_seed, bag, position, permutation):
    """Item of a seat's shuffle bag at ``position``: every span of ``bag`` draws is one shuffle of the bag.

    The shuffle of span ``cycle`` is a Fisher-Yates shuffle on the seat's loot
    stream at counters ``cycle * bag + i``.
    """
    cycle, index = position // bag, position % bag
    for i in range(bag):
        permutation[i] = i
    for i in range(bag - 1, 0, -1):
        j = int(random_uniform(seat_seed, _LOOT_BAG, np.uint64(cycle * bag + i)) * (i + 1))
        permutation[i], permutation[j] = permutation[j], permutation[i]
    return permutation[index]


@game_inline
def _loot_worth(rules, item):
    """A loot item's worth in gold: its gold, or its unit's tier cost (what the seat gets without room)."""
    tier = rules.loot_unit_tier[item]
    return float(rules.loot_gold[item]) if tier < 0 else float(rules.tier_cost[tier])


@game_kernel
def _loot(rules, dealer, table, seat, round_index, seat_seeds):
    """Hand out this PvE round's loot from the seat's shuffle bag (seed 001)."""
    bag = rules.loot_gold.shape[0]
    if bag == 0:
        return
    for _ in range(rules.loot_per_pve_round):
        position = table.loot_position[seat]
        table.loot_position[seat] += 1
        item = bag_item(seat_seeds[seat], bag, position, table.bag_scratch)
        # The bag's cycle deals its items without replacement: the expectation is over those left in it.
        expected = 0.0
        for i in range(position % bag, bag):
            expected += _loot_worth(rules, table.bag_scratch[i])
        table.luck[seat, LUCK_LOOT] += _loot_worth(rules, item) - expected / (bag - position % bag)
        tier = rules.loot_unit_tier[item]
        if tier < 0:
            table.gold[seat] += rules.loot_gold[item]
            continue
        if table.n_units[seat] >= capacity_of(rules, table, seat):
            table.gold[seat] += rules.tier_cost[tier]  # no room: the unit's worth in gold
            continue
        table.tier_weights[:] = 0.0
        table.tier_weights[tier] = 1.0
        key = loot_key(position)  # one per bag position, apart from shop keys
        champion = _deal_one(rules, dealer, seat, seat_seeds, table.counters, table.needles, table.needle_count,
                             table.tier_weights, table.pool, key)
        if champion < 0:
            table.gold[seat] += rules.tier_cost[tier]
            continue
        table.pool[champion] -= 1.0
        _add_unit(table, seat, champion)


@game_inline
def _damage(rules, round_index, power_winner, power_loser, units_winner):
    """HP a fight's loser loses: the round's damage plus some for each of the winner's surviving units."""
    survivors = 0
    if units_winner > 0:
        survivors = max(1, int(np.ceil(units_winner * max(0.0, power_winner - power_loser) / max(power_winner, 1e-12))))
    return rules.round_damage[round_index] + rules.damage_per_surviving_unit * survivors


@game_inline
def _fight_odds(rules, table, a, b, round_index):
    """``(P(a beats b), HP a loses if it loses, HP b loses if it loses)`` on this round's boards (``fight_*``)."""
    power_a, power_b = table.fight_power[a], table.fight_power[b]
    p_a = 1.0 / (1.0 + np.exp(-(np.log(power_a + 1.0) - np.log(power_b + 1.0)) / rules.combat_scale))
    return (p_a, _damage(rules, round_index, power_b, power_a, table.fight_units[b]),
            _damage(rules, round_index, power_a, power_b, table.fight_units[a]))


@game_inline
def _standing(rules, table, seat, hp):
    """The seat's standing with ``hp``: a state value fixed in advance, sum over the other alive seats of
    P(it outlasts them), taken as a logistic in the HP difference at the start of the round's fights
    (scale ``STANDING_SCALE`` x starting HP); 0 at 0 HP or below."""
    if hp <= 0:
        return 0.0
    scale = STANDING_SCALE * rules.starting_hp
    total = 0.0
    for other in range(table.alive.shape[0]):
        if other != seat and table.alive[other]:
            total += 1.0 / (1.0 + np.exp(-(hp - table.fight_hp[other]) / scale))
    return total


@game_inline
def _outlasts(rules, table, seat, seat_hp, other, other_hp):
    """P(seat outlasts other) in the value (:func:`_value`): a logistic in their HP difference (scale
    ``VALUE_SCALE`` x starting HP) plus the seat's log-odds of beating the other in one fight on this round's
    boards; 0 if ``seat_hp`` <= 0, else 1 if ``other_hp`` <= 0."""
    if seat_hp <= 0:
        return 0.0
    if other_hp <= 0:
        return 1.0
    edge = ((seat_hp - other_hp) / (VALUE_SCALE * rules.starting_hp)
            + table.fight_strength[seat] - table.fight_strength[other])
    return 1.0 / (1.0 + np.exp(-edge))


@game_inline
def _value(rules, table, seat, hp):
    """The seat's value with ``hp``: a state value fixed in advance, its expected number of alive seats outlasted
    (:func:`_outlasts`), so players - value estimates its placement. Unlike the standing, it weighs board power:
    a stronger board outlasts an equal HP. The other seats have their HP at the start of the round's fights."""
    total = 0.0
    for other in range(table.alive.shape[0]):
        if other != seat and table.alive[other]:
            total += _outlasts(rules, table, seat, hp, other, table.fight_hp[other])
    return total


@game_inline
def _form(event_seed, round_index, index):
    """A Gumbel "form" (-log of an Exp(1)) of a seat (``index``) or of the round's ghost: with events addressed
    by seat, a beats b when log(power_a + 1) / scale + form_a > log(power_b + 1) / scale + form_b, which
    happens with the combat law's probability (the difference of two Gumbels is logistic)."""
    return -np.log(-np.log1p(-_event_uniform(event_seed, _COMBAT, round_index, index)))


@game_inline
def _add_fight_luck(rules, table, seat, won, p_win, damage_if_lost, opponent, damage_to_opponent):
    """The seat's coin and matchmaking terms of a fight against ``opponent`` that it won (or lost) with P(win)
    ``p_win``: it loses ``damage_if_lost`` if it loses, the opponent ``damage_to_opponent`` (0 for a ghost) if
    it wins. The state values are this round's, kept by :func:`_prepare_fights`."""
    hp = table.fight_hp[seat]
    standing_won, standing_lost = table.standing_now[seat], table.standing_if_lost[seat, opponent]
    value_won, value_lost = table.value_now[seat], table.value_if_lost[seat, opponent]
    # The duel's value: the value with the opponent's HP after the fight (unchanged when the seat loses), its
    # one term against the opponent swapped.
    opponent_hp = table.fight_hp[opponent]
    duel_won = (value_won - _outlasts(rules, table, seat, hp, opponent, opponent_hp)
                + _outlasts(rules, table, seat, hp, opponent, opponent_hp - damage_to_opponent))
    duel_lost = value_lost
    # The gold a win pays now, and the streak gold the next income pays after a win or a loss.
    streak = table.streak[seat]
    gold_won = rules.pvp_win_gold + _streak_gold(rules, max(streak, 0) + 1)
    gold_lost = _streak_gold(rules, min(streak, 0) - 1)
    luck = (1.0 if won else 0.0) - p_win
    table.luck[seat, LUCK_COIN] += luck
    table.luck[seat, LUCK_COIN_HP] += luck * damage_if_lost
    table.luck[seat, LUCK_COIN_STANDING] += luck * (standing_won - standing_lost)
    table.luck[seat, LUCK_COIN_VALUE] += luck * (value_won - value_lost)
    table.luck[seat, LUCK_COIN_DUEL] += luck * (duel_won - duel_lost)
    table.luck[seat, LUCK_COIN_GOLD] += luck * (gold_won - gold_lost)
    # The opponent drawn: _prepare_fights subtracted the mean over the pairing's law.
    table.luck[seat, LUCK_MATCHMAKING] += p_win
    table.luck[seat, LUCK_MATCHMAKING_HP] -= (1.0 - p_win) * damage_if_lost
    table.luck[seat, LUCK_MATCHMAKING_STANDING] += p_win * standing_won + (1.0 - p_win) * standing_lost
    table.luck[seat, LUCK_MATCHMAKING_VALUE] += p_win * value_won + (1.0 - p_win) * value_lost


@game_inline
def _add_onlooker_luck(rules, table, a, b, b_takes_damage, a_wins, p_a, damage_a, damage_b):
    """Every other alive seat's term of a's fight against b: (a won - P(a wins)) times the seat's value when a
    wins minus when b wins (only the fighters' HP differ: the sum of its :func:`_outlasts` against them)."""
    luck = (1.0 if a_wins else 0.0) - p_a
    hp_a, hp_b = table.fight_hp[a], table.fight_hp[b]
    hp_b_beaten = hp_b - damage_b if b_takes_damage else hp_b  # a ghost loses nothing
    for seat in range(table.alive.shape[0]):
        if seat == a or (seat == b and b_takes_damage) or not table.alive[seat]:
            continue
        hp = table.fight_hp[seat]
        a_won = _outlasts(rules, table, seat, hp, a, hp_a)
        b_won = _outlasts(rules, table, seat, hp, a, hp_a - damage_a)
        if seat != b:  # b's own board fights elsewhere as a ghost: its HP is not at stake here
            a_won += _outlasts(rules, table, seat, hp, b, hp_b_beaten)
            b_won += _outlasts(rules, table, seat, hp, b, hp_b)
        table.luck[seat, LUCK_COIN_ONLOOKER] += luck * (a_won - b_won)


@game_kernel
def _fight(rules, table, a, b, b_takes_damage, round_index, pair, event_seed, events):
    """``a`` fights ``b`` (a ghost of b's board unless ``b_takes_damage``) on the boards of ``table.fight_*``.

    The winner is drawn with P(a wins) = logistic((log(power_a + 1) - log(power_b + 1)) / combat_scale):
    by position from the pair's coin, by seat from the two seats' forms (the ghost has its own).
    """
    p_a, damage_a, damage_b = _fight_odds(rules, table, a, b, round_index)
    if events == EVENTS_BY_SEAT:
        b_form = _form(event_seed, round_index, b if b_takes_damage else EVENT_GHOST_INDEX)
        a_wins = (np.log(table.fight_power[a] + 1.0) / rules.combat_scale + _form(event_seed, round_index, a)
                  > np.log(table.fight_power[b] + 1.0) / rules.combat_scale + b_form)
    else:
        a_wins = _event_uniform(event_seed, _COMBAT, round_index, pair) < p_a
    _add_fight_luck(rules, table, a, a_wins, p_a, damage_a, b, damage_b if b_takes_damage else 0.0)
    if b_takes_damage:
        _add_fight_luck(rules, table, b, not a_wins, 1.0 - p_a, damage_b, a, damage_a)
    _add_onlooker_luck(rules, table, a, b, b_takes_damage, a_wins, p_a, damage_a, damage_b)
    winner, loser = (a, b) if a_wins else (b, a)
    damage = damage_b if a_wins else damage_a
    if loser == a or b_takes_damage:
        table.hp[loser] -= damage
        table.streak[loser] = min(table.streak[loser], 0) - 1
    if winner == a or b_takes_damage:
        table.gold[winner] += rules.pvp_win_gold
        table.streak[winner] = max(table.streak[winner], 0) + 1


@game_kernel
def _prepare_fights(rules, table, round_index, order_scratch, trait_counts):
    """Before the round's fights: each alive seat's board power and HP, and the matchmaking terms' expectations.

    Each alive seat fights exactly once as the one who takes damage, against a
    seat that is uniform over the other alive seats (a real opponent, or the
    board of one as a ghost for the odd seat out), by position or by seat; the
    mean over that law is subtracted here and the drawn opponent's value added
    by the fight (:func:`_add_fight_luck`).
    """
    players = table.alive.shape[0]
    alive = 0
    for seat in range(players):
        if table.alive[seat]:
            table.fight_power[seat], table.fight_units[seat] = board_power(rules, table, seat, order_scratch,
                                                                          trait_counts)
            table.fight_strength[seat] = np.log(table.fight_power[seat] + 1.0) / rules.combat_scale
            table.fight_hp[seat] = table.hp[seat]
            alive += 1
    if alive < 2:
        return
    # The state values the fights' terms weigh outcomes by are kept for them (_add_fight_luck).
    for seat in range(players):
        if not table.alive[seat]:
            continue
        hp = table.fight_hp[seat]
        table.standing_now[seat] = _standing(rules, table, seat, hp)
        table.value_now[seat] = _value(rules, table, seat, hp)
        p_mean, hp_mean, standing_mean, value_mean = 0.0, 0.0, 0.0, 0.0
        for other in range(players):
            if other == seat or not table.alive[other]:
                continue
            p_win, damage_if_lost, _ = _fight_odds(rules, table, seat, other, round_index)
            table.standing_if_lost[seat, other] = _standing(rules, table, seat, hp - damage_if_lost)
            table.value_if_lost[seat, other] = _value(rules, table, seat, hp - damage_if_lost)
            p_mean += p_win
            hp_mean += (1.0 - p_win) * damage_if_lost
            standing_mean += p_win * table.standing_now[seat] + (1.0 - p_win) * table.standing_if_lost[seat, other]
            value_mean += p_win * table.value_now[seat] + (1.0 - p_win) * table.value_if_lost[seat, other]
        table.luck[seat, LUCK_MATCHMAKING] -= p_mean / (alive - 1)
        table.luck[seat, LUCK_MATCHMAKING_HP] += hp_mean / (alive - 1)
        table.luck[seat, LUCK_MATCHMAKING_STANDING] -= standing_mean / (alive - 1)
        table.luck[seat, LUCK_MATCHMAKING_VALUE] -= value_mean / (alive - 1)


@njit(cache=True)
def _eliminate(rules, table, round_index, event_seed, alive_before, order_scratch, final_champion, final_star):
    """Seats at 0 HP or below leave; they take the worst free places, by HP (ties by the event stream).

    Their boards are recorded (:func:`_record_final_board`) before their units return to the pool.
    """
    dying = 0
    for seat in range(table.alive.shape[0]):
        if table.alive[seat] and table.hp[seat] <= 0:
            dying += 1
    if dying == 0:
        return alive_before
    _rank_seats(table, event_seed, round_index, True, alive_before)
    for seat in range(table.alive.shape[0]):
        if table.alive[seat] and table.hp[seat] <= 0:
            table.alive[seat] = False
            _record_final_board(rules, table, seat, order_scratch, final_champion, final_star)
            _clear_shop(rules, table.shops, seat, table.pool)
            while table.n_units[seat] > 0:
                u = table.n_units[seat] - 1
                table.pool[table.unit_champion[seat, u]] += copies_of_star(table.unit_star[seat, u])
                _remove_unit(table, seat, u)
    return alive_before - dying


@njit(cache=True)
def _rank_seats(table, event_seed, round_index, only_dying, places_up_to):
    """Give places ``places_up_to, places_up_to - 1, ...`` to alive seats (only the dying ones if asked),
    worst HP first; ties broken by the event stream."""
    players = table.alive.shape[0]
    keys = np.full(players, np.inf)
    for seat in range(players):
        if table.alive[seat] and (not only_dying or table.hp[seat] <= 0):
            keys[seat] = table.hp[seat] + 0.5 * _event_uniform(event_seed, _TIEBREAK, round_index, seat)
    ranked = keys < np.inf
    place = places_up_to
    for _ in range(players):
        seat = np.argmin(keys)
        if keys[seat] == np.inf:
            break
        table.placement[seat] = place
        place -= 1
        keys[seat] = np.inf
    # Seats with the same HP share their places uniformly: the term is the tie's mean place minus the place.
    for seat in range(players):
        if ranked[seat]:
            total, count = 0.0, 0
            for other in range(players):
                if ranked[other] and table.hp[other] == table.hp[seat]:
                    total += table.placement[other]
                    count += 1
            table.luck[seat, LUCK_TIEBREAK] += total / count - table.placement[seat]


@game_inline
def _fill_view(rules, table, desk, seat, round_index, seat_seed, alive_count, actions, rolls):
    """Write the seat's view for its next decision (see :data:`VIEW`) and copy its shop, units and the pool.

    The legality fields come from the ``legal_*`` predicates, on the state the decision will act on.
    """
    for slot in range(table.shops.shape[1]):
        desk.shop[seat, slot] = table.shops[seat, slot]
    for u in range(table.unit_champion.shape[1]):
        desk.unit_champion[seat, u] = table.unit_champion[seat, u]
        desk.unit_star[seat, u] = table.unit_star[seat, u]
    for c in range(table.pool.shape[0]):
        desk.pool[seat, c] = table.pool[c]
    me = desk.me[seat]
    level = table.level[seat]
    me[VIEW_GOLD] = table.gold[seat]
    me[VIEW_LEVEL] = level
    me[VIEW_XP] = table.xp[seat]
    me[VIEW_XP_TO_LEVEL] = rules.level_xp[level + 1] - table.xp[seat] if level < rules.max_level else 0
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
    me[VIEW_UNITS] = table.n_units[seat]
    me[VIEW_BOARD_SIZE] = rules.level_board_size[level]
    me[VIEW_CAPACITY] = capacity_of(rules, table, seat)
    me[VIEW_LOADED_USED] = 1 if table.loaded_used[seat] else 0
    me[VIEW_LOCKED] = 1 if table.locked[seat] else 0
    me[VIEW_ACTIONS] = actions
    me[VIEW_ROLLS] = rolls
    me[VIEW_SEAT] = seat
    me[VIEW_PLAYERS] = rules.players
    me[VIEW_SHOP_SIZE] = rules.shop_size
    me[VIEW_MAX_LEVEL] = rules.max_level
    me[VIEW_REROLL_PRICE] = rules.reroll_price
    me[VIEW_XP_PRICE] = rules.xp_price
    me[VIEW_XP_AMOUNT] = rules.xp_amount
    me[VIEW_INTEREST_PER] = rules.interest_per
    me[VIEW_INTEREST_MAX] = rules.interest_max
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
    a, b = random_bits_pair(seat_seed, _POLICY, np.uint64(k))
    me[VIEW_RANDOM_A] = np.int64(a >> np.uint64(11))
    me[VIEW_RANDOM_B] = np.int64(b >> np.uint64(11))


@game_inline
def _lay_out_rules(rules, desk, seat, params):
    """Copy what a policy reads of the rules, and its parameters, into the seat's desk (once per turn)."""
    for c in range(rules.champion_cost.shape[0]):
        desk.champion_cost[seat, c] = rules.champion_cost[c]
        for m in range(rules.champion_traits.shape[1]):
            desk.champion_traits[seat, c, m] = rules.champion_traits[c, m]
    for k in range(rules.trait_breakpoints.shape[0]):
        for b in range(rules.trait_breakpoints.shape[1]):
            desk.trait_breakpoints[seat, k, b] = rules.trait_breakpoints[k, b]
    for p in range(desk.params.shape[1]):
        desk.params[seat, p] = params[p]


@game_kernel
def _play_turn(rules, dealer, table, desk, seat, round_index, seat_seeds, alive_count, policy, params, n_params,
               check, progress):
    """One seat's turn: its policy acts until it ends the turn, fails, or reaches ``ACTION_CAP``.

    The policy sees exactly its ``n_params`` parameters, so reading beyond
    them is an index error, not a silent zero. Returns the number of steps
    after which the table was unsound (``check`` only).
    """
    violations = 0
    roll = 1
    _lay_out_rules(rules, desk, seat, params)
    for step in range(ACTION_CAP):
        _fill_view(rules, table, desk, seat, round_index, seat_seeds[seat], alive_count, step, roll - 1)
        progress[PROGRESS_SEAT] = seat
        decision = policy(desk.me[seat], desk.shop[seat], desk.unit_champion[seat], desk.unit_star[seat],
                          desk.pool[seat], desk.champion_cost[seat], desk.champion_traits[seat],
                          desk.trait_breakpoints[seat], desk.params[seat, :n_params], desk.memory[seat])
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
        if check and not _table_is_sound(rules, table):
            violations += 1
        if step == ACTION_CAP - 1:
            table.stats[seat, STAT_CAP_HITS] += 1
    return violations


# What a table logs of each seat each round, beside its shop (TableLog.states[round, seat, ...]).
LOG_LEVEL, LOG_GOLD, LOG_HP = range(3)
LOG_STATE_NAMES = ("level", "gold", "hp")

TableLog = namedtuple("TableLog", ["shops", "states", "final_champion", "final_star", "offers", "bought", "luck",
                                   "trace_weights", "trace_key", "trace_outcome", "trace_count"])
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
trace_weights, trace_key, trace_outcome, trace_count
    Each seat's first ``trace_draws`` draws (see ``TRACE``); empty unless traced.
"""


@njit(cache=True)  # with the Numba runtime: it may allocate larger logs
def _log_round(table, alive_count, round_index, shop_log, state_log):
    """Copy the alive seats' shops, levels, gold and HP into row ``round_index`` of the logs.

    Returns the logs, both grown (doubled) when a game outlasts them, so that
    their memory follows the rounds actually played, not ``max_rounds``.
    """
    if round_index >= shop_log.shape[0]:
        grown = np.full((2 * shop_log.shape[0],) + shop_log.shape[1:], -1, dtype=np.int16)
        grown[:shop_log.shape[0]] = shop_log
        shop_log = grown
        grown_states = np.zeros((2 * state_log.shape[0],) + state_log.shape[1:], dtype=np.int32)
        grown_states[:state_log.shape[0]] = state_log
        state_log = grown_states
    for i in range(alive_count):
        seat = table.order[i]
        for slot in range(table.shops.shape[1]):
            shop_log[round_index, seat, slot] = table.shops[seat, slot]
        state_log[round_index, seat, LOG_LEVEL] = table.level[seat]
        state_log[round_index, seat, LOG_GOLD] = table.gold[seat]
        state_log[round_index, seat, LOG_HP] = table.hp[seat]
    return shop_log, state_log


_FIRST_LOG_ROUNDS = 64  # rounds a log holds before it grows (set4 games last about 35)


@njit(cache=True)
def play_table(rules, dealer, order, seat_seeds, event_seed, policies, params, param_counts, bot_of_seat, check,
               progress, trace_draws=0, events=EVENTS_BY_SEAT):
    """Play one table to the end.

    Parameters
    ----------
    rules : Rules
    dealer : int
        The dealer's engine code (``autodup.dealers.DEALERS[name].code``).
    order : int
        ``ORDER_EVENTS`` or ``ORDER_RACE`` (the race needs the haystack dealer).
    seat_seeds : uint64 (players,)
    event_seed : uint64
    policies : tuple of MAX_PLAYERS policies
        Compiled callbacks of ``POLICY_SIGNATURE``, one per bot (see
        :func:`autodup.bots.policy_tuple`).
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
        or ``EVENTS_BY_POSITION`` (see :func:`_shuffle_alive`, :func:`_fight`).

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
    if seat_seeds.shape[0] != rules.players or bot_of_seat.shape[0] != rules.players:
        raise ValueError("play_table needs one seat seed and one bot per player")
    for seat in range(rules.players):
        bot = bot_of_seat[seat]
        if bot < 0 or bot >= min(len(policies), params.shape[0], param_counts.shape[0]):
            raise ValueError("play_table: a seat's bot index is out of range")
        if param_counts[bot] < 0 or param_counts[bot] > params.shape[1]:
            raise ValueError("play_table: a bot's parameter count is out of range")
    if dealer < 0 or dealer >= ENGINE_COUNT or order < 0 or order > ORDER_RACE:
        raise ValueError("play_table: unknown dealer or order code")
    if events != EVENTS_BY_POSITION and events != EVENTS_BY_SEAT:
        raise ValueError("play_table: unknown event addressing code")
    if progress.shape[0] < PROGRESS_FIELDS:
        raise ValueError("play_table: the progress block is too small")
    progress[PROGRESS_GAMES] += 1
    progress[PROGRESS_IN_GAME] = 1
    table = new_table(rules, trace_draws)
    desk = new_desk(rules, table, params.shape[1])
    players = rules.players
    capacity = table.unit_champion.shape[1]
    order_scratch = np.zeros(capacity, dtype=np.int64)
    trait_counts = np.zeros(rules.trait_breakpoints.shape[0], dtype=np.int64)
    first_rounds = min(_FIRST_LOG_ROUNDS, rules.max_rounds)
    shop_log = np.full((first_rounds, players, rules.shop_size), -1, dtype=np.int16)
    state_log = np.zeros((first_rounds, players, len(LOG_STATE_NAMES)), dtype=np.int32)
    largest_board = rules.level_board_size.max()
    final_champion = np.full((players, largest_board), -1, dtype=np.int16)
    final_star = np.zeros((players, largest_board), dtype=np.int8)
    violations = 0
    alive = players
    rounds = 0
    for round_index in range(rules.max_rounds):
        if alive <= 1:
            break
        rounds += 1
        alive_count = _start_round(rules, dealer, order, events, table, round_index, seat_seeds, event_seed)
        shop_log, state_log = _log_round(table, alive_count, round_index, shop_log, state_log)
        if check and not _table_is_sound(rules, table):
            violations += 1
        for i in range(alive_count):
            seat = table.order[i]
            bot = bot_of_seat[seat]
            violations += _play_turn(rules, dealer, table, desk, seat, round_index, seat_seeds, alive_count,
                                     policies[bot], params[bot], param_counts[bot], check, progress)
        alive = _end_round(rules, dealer, events, table, round_index, seat_seeds, event_seed, alive, alive_count,
                           order_scratch, trait_counts, final_champion, final_star)
        if check and not _table_is_sound(rules, table):
            violations += 1
    _rank_seats(table, event_seed, rules.max_rounds, False, alive)
    results = np.zeros((players, len(RESULT_COLUMNS)), dtype=np.int64)
    for seat in range(players):
        if table.alive[seat]:
            _record_final_board(rules, table, seat, order_scratch, final_champion, final_star)
        results[seat, 0] = table.placement[seat]   # FINAL_STATE_COLUMNS, then STATS
        results[seat, 1] = table.hp[seat]
        results[seat, 2] = table.level[seat]
        results[seat, 3] = table.gold[seat]
        for k in range(len(STATS)):
            results[seat, len(FINAL_STATE_COLUMNS) + k] = table.stats[seat, k]
    progress[PROGRESS_IN_GAME] = 0
    return results, violations, rounds, TableLog(shop_log, state_log, final_champion, final_star, table.offers,
                                                 table.bought, table.luck, table.trace_weights, table.trace_key,
                                                 table.trace_outcome, table.trace_count)


@njit(cache=True)
def _end_round(rules, dealer, events, table, round_index, seat_seeds, event_seed, alive, alive_count, order_scratch,
               trait_counts, final_champion, final_star):
    """After the turns: loot on a PvE round, else fights and eliminations; returns the seats still alive.

    Its own compiled function (called once a round), so that a cold start can
    compile it in a second process (:func:`compile_round_end`).
    """
    if rules.round_pve[round_index]:
        for i in range(alive_count):
            _loot(rules, dealer, table, table.order[i], round_index, seat_seeds)
        return alive
    _prepare_fights(rules, table, round_index, order_scratch, trait_counts)
    k = _shuffle_alive(table, event_seed, _MATCHMAKING, round_index, events)
    for pair in range(k // 2):
        _fight(rules, table, table.order[2 * pair], table.order[2 * pair + 1], True, round_index, pair, event_seed,
               events)
    if k % 2 == 1 and k > 1:
        _fight(rules, table, table.order[k - 1], _ghost_of(table, event_seed, round_index, k, events), False,
               round_index, k // 2, event_seed, events)
    return _eliminate(rules, table, round_index, event_seed, alive, order_scratch, final_champion, final_star)


# --------------------------------------------------------------------------
# compiling ahead, in two processes
# --------------------------------------------------------------------------


@cfunc(POLICY_SIGNATURE, cache=True)
def end_every_turn(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints,
                   params, memory):
    """A policy that always ends its turn: what the table is compiled with (any policy gives the same code)."""
    return encode_decision(ACTION_END, 0)


def compile_round_end(rules) -> None:
    """Compile :func:`_end_round` (loot, fights, elimination) into the cache, by calling it once on a fresh table.

    A cold start compiles the table in one process, which types its kernels
    in the order :func:`play_table` calls them: the round's start, a seat's
    turn, then the round's end. Another process, once its bots are compiled,
    compiles the round's end, which the first then finds in the cache. The
    argument types are those :func:`play_table` passes, so that the cached
    code is the code it uses.
    """
    table = new_table(rules)
    largest_board = rules.level_board_size.max()
    _end_round(rules, 0, EVENTS_BY_SEAT, table, 0, np.zeros(rules.players, dtype=np.uint64), np.uint64(0), rules.players,
               rules.players, np.zeros(table.unit_champion.shape[1], dtype=np.int64),
               np.zeros(rules.trait_breakpoints.shape[0], dtype=np.int64),
               np.full((rules.players, largest_board), -1, dtype=np.int16),
               np.zeros((rules.players, largest_board), dtype=np.int8))


# --------------------------------------------------------------------------
# inspection helpers (shop statistics, loot), used by the tests and by users
# --------------------------------------------------------------------------


@njit(cache=True)
def first_slot_counts(rules, dealer, level, pool, n_shops, base_seed, loaded_trait):
    """Deal ``n_shops`` shops from ``pool`` (float64 (N,)), each to a fresh seat seeded
    ``base_seed + i``; count the champion in each shop's first slot.

    ``loaded_trait >= 0`` deals a loaded roll of that trait instead. Returns
    int64 (N + 1,): counts per champion, then the number of empty first slots.
    """
    table = new_table(rules)
    counts = np.zeros(pool.shape[0] + 1, dtype=np.int64)
    seeds = np.zeros(rules.players, dtype=np.uint64)
    _mark_trait(rules, loaded_trait, table.qualifies)
    for i in range(n_shops):
        seeds[0] = np.uint64(base_seed) + np.uint64(i)
        table.pool[:] = pool
        table.shops[0, :] = -1
        table.level[0] = level
        table.counters[0, :] = 0
        table.needles[0, :, :] = 0.0
        table.needle_count[0, :] = 0
        _fill_shop(rules, dealer, table, 0, 0, 0, seeds, loaded_trait >= 0)
        first = table.shops[0, 0]
        counts[first if first >= 0 else pool.shape[0]] += 1
    return counts


@njit(cache=True)
def loot_items(rules, seat_seed, n):
    """The first ``n`` loot bag items (indices into the bag) one seat receives."""
    out = np.zeros(n, dtype=np.int64)
    permutation = np.zeros(max(rules.loot_gold.shape[0], 1), dtype=np.int64)
    for k in range(n):
        out[k] = bag_item(np.uint64(seat_seed), rules.loot_gold.shape[0], k, permutation)
    return out
