"""Table state: the arrays of one table (game, dealer, scratch, trace), declared once, and its invariants."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ..array_allocation import filled
from ..internal_kernels import internal_kernel
from .policy_frames import FRAME_WORDS
from .rules import game_inline, game_internal
from .shop import copies_of_star, fill_tier_totals
from .stats import LUCK, STATS
from .view import MEMORY_SIZE, VIEW_FIELDS

__all__ = ["POLICY_BLOCKS_AHEAD", "GAME_STATE", "DEALER_STATE", "UNIT_TERMS", "SCRATCH", "TRACE", "Table", "Desk",
           "largest", "as_floats",
           "seat_numbers", "new_table", "fresh_table", "new_desk", "fresh_desk", "copy_flat",
           "capacity_of", "conservation_holds", "unit_terms_hold", "table_is_sound", "soundness"]


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
# The dealer state: what a seat's draw engine remembers between draws (see autodup.engine.kernels).
DEALER_STATE = (
    ("counters", "int64 (players, 2): the other dealers' counters (a draw index, the keyed dealer's key)"),
    ("needles", "float64 (players, N + T): the haystack's residuals, by needle"),
    ("needle_count", "int64 (players, N + T): values each needle has consumed"),
)
# What each seat's units say of every champion, for the shop's luck terms (autodup.game.shop.add_slot_luck):
# kept up to date as units come and go (autodup.game.units), since recomputing them for every shop was a
# tenth of a game. Whole numbers, so the updates are exact; unit_terms_hold checks them.
UNIT_TERMS = (
    ("held", "int64 (players, N): units of each champion the seat holds, of any star"),
    ("held_one_star", "int64 (players, N): its 1-star units"),
    ("owned", "float64 (players, N): 1 for each champion the seat holds a unit of (the shop-hit term)"),
    ("owned_pairs", "float64 (players, N): 1 for each champion of which the seat holds two 1-star units "
                    "(shop_pairs)"),
    ("seat_traits", "float64 (players, K): per trait, the distinct champions with it that the seat owns"),
    ("trait_fit", "float64 (players, N): the other champions the seat owns sharing a trait with each one, counted "
                  "once per trait shared (shop_traits)"),
    ("board_changed", "bool (players,): whether the seat's units or level changed since prepare_fights last "
                      "measured its board (fight_power, fight_units, fight_strength); every change goes through "
                      "autodup.game.units (_take_out, _place, level_up)"),
)
# Scratch: working space rebuilt by each use, kept here so that nothing is allocated while a game plays.
SCRATCH = (
    ("tier_totals", "float64 (T,): copies left in the pool per tier, kept with it: every change to the pool "
                    "changes them (whole copies, so exactly; conservation_holds checks them)"),
    ("tier_weights", "float64 (T,): a slot's tier weights"),
    ("qualifying_totals", "float64 (T,): copies per tier that qualify for a loaded roll"),
    ("scratch_pool", "float64 (N,): the pool a loaded roll draws from"),
    ("qualifies", "bool (N,): the champions a loaded roll may deal"),
    ("bags", "int64 (players, loot bag size): each seat's shuffle of its loot bag in cycle bag_cycle, kept through "
             "the cycle (autodup.game.rounds.bag_item)"),
    ("bag_cycle", "int64 (players,): the cycle of each seat's shuffle in bags, -1 before the first"),
    ("power_counts", "int64 (unit_power_rank.size + 1,): a board's units per power rank, while it is ordered"),
    ("remaining", "int64 (players,): slots each seat still waits for in a race-ordered refresh"),
    ("event_keys", "float64 (players,): each seat's key when events are addressed by seat, or when seats are ranked"),
    ("fight_power", "float64 (players,): each alive seat's board power in this round's fights (with fight_units "
                    "and fight_strength, kept from round to round while the board is unchanged: board_changed)"),
    ("fight_units", "int64 (players,): the units on that board"),
    ("tier_hits", "float64 (T,): per tier, the weight of the champions it owns (the shop-hit term)"),
    ("tier_pairs", "float64 (T,): per tier, the weight of the champions in owned_pairs"),
    ("tier_fit", "float64 (T,): per tier, the weighted sum of trait_fit"),
    ("tier_slot_terms", "float64 (4, T): per tier, its part of a slot's expected hits, pairs, trait fit and cost "
                        "(autodup.game.shop.keep_tier_slot_terms)"),
    ("fight_hp", "float64 (players,): each seat's HP when the round's fights start (the value terms)"),
    ("fight_strength", "float64 (players,): log(board power + 1) / combat_scale, each alive seat's this round"),
    ("fight_weakness", "float64 (players,): exp(c - fight_strength), c the alive strengths' midrange (prepare_fights)"),
    ("fight_threat", "float64 (players,): exp(fight_strength - c), the same c"),
    ("fight_odds", "float64 (players, players): [a, b]: exp(fight_strength[b] - fight_strength[a]), for alive "
                   "a != b this round: P(a beats b) = 1 / (1 + it) (prepare_fights)"),
    ("outlasts_factor", "float64 (players, players): [s, o]: exp(-(fight_hp[s] - fight_hp[o]) / (VALUE_SCALE x "
                        "starting HP)) x fight_odds[s, o], for alive s != o: P(s outlasts o) = 1 / (1 + it)"),
    ("value_now", "float64 (players,): each alive seat's value at fight_hp (see _value)"),
    ("outlasts_now", "float64 (players, players): [s, o]: its term for o, P(s outlasts o) at fight_hp (_outlasts)"),
    ("value_if_lost", "float64 (players, players): [s, o]: s's value if it loses to o"),
    ("loss_damage", "int64 (players,): the distinct damages a seat may take this round (prepare_fights)"),
    ("loss_opponent", "int64 (players,): for each, the first opponent that deals it"),
    ("value_terms", "float64 (2 H + 1,): exp(-d / (VALUE_SCALE H)) of each HP difference d = -H..H (H the "
                    "starting HP, none above MEMO_HP), the value's HP factor, 0 until first used"),
)
# The trace: each seat's first K draws, with their inputs (K = 0 unless a game is traced for the coupling
# diagnostic of autodup.analysis.coupling; see trace_draw).
TRACE = (
    ("trace_weights", "float32 (players, K, T + N): a draw's tier weights, then its champion weights"),
    ("trace_key", "int64 (players, K): its draw key (shop_key; -1 in a race-ordered refresh)"),
    ("trace_outcome", "int16 (players, K): the champion it dealt, -1 for none"),
    ("trace_count", "int64 (players,): draws traced"),
)
# The largest starting HP whose value terms are memoized (tables of 2 H + 1 values).
MEMO_HP = 2_000
Table = namedtuple("Table", [name for name, _ in GAME_STATE + DEALER_STATE + UNIT_TERMS + SCRATCH + TRACE])

# A seat's workspace: its view ``me`` (refreshed before each decision) and its
# ``memory``; for a seat played from outside, copies of what a policy is handed,
# refreshed before each of its decisions (the game state) or each turn (rules
# and parameters), so that writing into them changes nothing but the copies.
# A bot's policy reads the table's own arrays instead, typed read-only
# (POLICY_SIGNATURE), located by the seat's frame (autodup.game.policy_frames).
# ``policy_low``, ``policy_high`` (uint64 (players, POLICY_BLOCKS_AHEAD)),
# ``policy_from`` and ``policy_seed``: the policy stream's blocks computed ahead
# (autodup.game.turn._policy_block). Rows are seats.
POLICY_BLOCKS_AHEAD = 16
Desk = namedtuple("Desk", [
    "me", "shop", "unit_champion", "unit_star", "pool", "champion_cost", "champion_traits", "trait_breakpoints",
    "params", "memory", "frames", "policy_low", "policy_high", "policy_from", "policy_seed",
])

@game_inline
def largest(values):
    """The largest of ``values`` (int64 (K,), K >= 1): ``values.max()``, whose numba code compiles apart."""
    best = values[0]
    for value in values:
        best = max(best, value)
    return best


@game_inline
def as_floats(values):
    """A new float64 copy of ``values`` (1-D), made with :func:`~autodup.array_allocation.filled`."""
    copy = filled(values.shape[0], 0.0, np.float64)
    for i in range(values.shape[0]):
        copy[i] = values[i]
    return copy


@game_inline
def seat_numbers(players):
    """int64 (players,): 0, 1, ... (``np.arange``, made with :func:`~autodup.array_allocation.filled`)."""
    numbers = filled(players, 0, np.int64)
    for seat in range(players):
        numbers[seat] = seat
    return numbers


# Only compiled code calls new_table and new_desk (from Python: fresh_table, fresh_desk): in a cold start's
# table process they build no Python wrapper and no machine code of their own (1-1.5 s; docs/performance.md).
@internal_kernel
def new_table(rules, trace_draws):
    """Fresh state for one table (arrays sized by the rules); each seat's first ``trace_draws`` draws are traced.

    Compiled code calls it; from Python, :func:`fresh_table`.
    """
    players = rules.players
    n = rules.champion_copies.shape[0]
    n_tiers = rules.tier_cost.shape[0]
    # One slot beyond the largest bench + board: a purchase that completes a
    # combine is allowed with a full bench, and holds one extra unit until it combines.
    capacity = rules.bench_size + largest(rules.level_board_size) + 1
    pool = as_floats(rules.champion_copies)
    tier_totals = filled(n_tiers, 0.0, np.float64)
    fill_tier_totals(rules, pool, tier_totals)  # kept with the pool from here on (autodup.game.shop.move_copies)
    memo = 2 * rules.starting_hp + 1 if rules.starting_hp <= MEMO_HP else 0
    return Table(
        # game state
        pool, as_floats(pool), filled((players, rules.shop_size), -1, np.int64), filled(players, 0, np.bool_),
        filled((players, capacity), -1, np.int64), filled((players, capacity), 0, np.int64),
        filled(players, 0, np.int64), filled(players, rules.starting_gold, np.int64),
        filled(players, 1, np.int64), filled(players, 0, np.int64),
        filled(players, rules.starting_hp, np.int64), filled(players, 0, np.int64),
        filled(players, 1, np.bool_), filled(players, 0, np.int64),
        filled((players, len(STATS)), 0, np.int64), filled(players, 0, np.bool_),
        filled(players, 0, np.int64), seat_numbers(players), filled(players, 0, np.int64),
        filled((players, n), 0, np.int32), filled((players, n), 0, np.int32),
        filled((players, len(LUCK)), 0.0, np.float64),
        # dealer state
        filled((players, 2), 0, np.int64), filled((players, n + n_tiers), 0.0, np.float64),
        filled((players, n + n_tiers), 0, np.int64),
        # unit terms (no units yet)
        filled((players, n), 0, np.int64), filled((players, n), 0, np.int64), filled((players, n), 0.0, np.float64),
        filled((players, n), 0.0, np.float64), filled((players, rules.trait_breakpoints.shape[0]), 0.0, np.float64),
        filled((players, n), 0.0, np.float64), filled(players, 1, np.bool_),
        # scratch
        tier_totals, filled(n_tiers, 0.0, np.float64), filled(n_tiers, 0.0, np.float64),
        filled(n, 0.0, np.float64), filled(n, 0, np.bool_),
        filled((players, max(rules.loot_gold.shape[0], 1)), 0, np.int64), filled(players, -1, np.int64),
        filled(rules.unit_power_rank.size + 1, 0, np.int64),
        filled(players, 0, np.int64),
        filled(players, 0.0, np.float64), filled(players, 0.0, np.float64), filled(players, 0, np.int64),
        filled(n_tiers, 0.0, np.float64),
        filled(n_tiers, 0.0, np.float64), filled(n_tiers, 0.0, np.float64), filled((4, n_tiers), 0.0, np.float64),
        filled(players, 0.0, np.float64), filled(players, 0.0, np.float64), filled(players, 0.0, np.float64),
        filled(players, 0.0, np.float64),
        filled((players, players), 0.0, np.float64), filled((players, players), 0.0, np.float64),
        filled(players, 0.0, np.float64),
        filled((players, players), 0.0, np.float64), filled((players, players), 0.0, np.float64),
        filled(players, 0, np.int64),
        filled(players, 0, np.int64),
        filled(memo, 0.0, np.float64),
        # trace
        filled((players, trace_draws, n_tiers + n), 0, np.float32),
        filled((players, trace_draws), 0, np.int64), filled((players, trace_draws), -1, np.int16),
        filled(players, 0, np.int64),
    )


@internal_kernel
def new_desk(rules, table, n_params):
    """Fresh policy workspaces for a table (see :data:`Desk`); ``memory`` starts at zero.

    Compiled code calls it; from Python, :func:`fresh_desk`.
    """
    players = rules.players
    return Desk(
        filled((players, VIEW_FIELDS), 0, np.int64), filled(table.shops.shape, 0, table.shops.dtype),
        filled(table.unit_champion.shape, 0, table.unit_champion.dtype),
        filled(table.unit_star.shape, 0, table.unit_star.dtype),
        filled((players, table.pool.shape[0]), 0.0, np.float64), filled((players, table.pool.shape[0]), 0, np.int64),
        filled((players,) + rules.champion_traits.shape, 0, np.int64),
        filled((players,) + rules.trait_breakpoints.shape, 0, np.int64), filled((players, n_params), 0.0, np.float64),
        filled((players, MEMORY_SIZE), 0, np.int64), filled((players, FRAME_WORDS), 0, np.int64),
        filled((players, POLICY_BLOCKS_AHEAD), 0, np.uint64), filled((players, POLICY_BLOCKS_AHEAD), 0, np.uint64),
        filled(players, -POLICY_BLOCKS_AHEAD, np.int64), filled(players, 0, np.uint64),
    )


@njit(cache=True, no_cfunc_wrapper=True)
def fresh_table(rules, trace_draws=0):
    """:func:`new_table` for a Python caller (the game's own compiled version: ``trace_draws`` passed as int64)."""
    return new_table(rules, np.int64(trace_draws))


@njit(cache=True, no_cfunc_wrapper=True)
def fresh_desk(rules, table, n_params):
    """:func:`new_desk` for a Python caller."""
    return new_desk(rules, table, np.int64(n_params))


@game_inline
def copy_flat(source, target):
    """Copy the C-contiguous ``source`` into ``target`` of the same size, as flat arrays (one loop, not nested).

    Instead of ``target[...] = source``: for an array assigned to a slice, numba compiles the message of its
    shape error (f-strings, ``str``, ``join``), 4.6 s of a cold compile in ``store_table`` alone.
    """
    if source.size != target.size:
        raise ValueError("copy_flat: the arrays differ in size")
    flat_source, flat_target = source.reshape(source.size), target.reshape(target.size)
    for i in range(flat_source.shape[0]):
        flat_target[i] = flat_source[i]


@game_inline  # read for every shop slot of every decision (legal_buy)
def capacity_of(rules, table, seat):
    """Units a seat may hold: bench plus the board its level allows."""
    return rules.bench_size + rules.level_board_size[table.level[seat]]


# The checks are internal kernels, as the game calls them: a Python-callable wrapper of each (the rules and the
# table, about 80 arrays) made the three take 3.0 s of a cold start's compile, against 1.0 s without. A Python
# caller uses soundness.
@game_internal
def conservation_holds(rules, table):
    """pool + shops + units (in copies) == initial copies, for every champion; and the pool's tier totals
    (``tier_totals``) are its sums."""
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
    for t in range(table.tier_totals.shape[0]):
        total = 0.0
        for c in range(rules.tier_start[t], rules.tier_start[t + 1]):
            total += table.pool[c]
        if total != table.tier_totals[t]:
            return False
    return True


@game_internal
def unit_terms_hold(rules, table):
    """Every seat's :data:`UNIT_TERMS` equal what its units give, computed afresh (the definitions).

    Run after every step of a checked game (``check``: ``autodup check-bot``, a run's determinism probe), so it
    counts each seat's units once per term into ``table.scratch_pool`` (rebuilt here, as
    :func:`conservation_holds` rebuilds it) and its traits through ``rules.trait_champions``, instead of
    scanning every unit for every champion and every champion for every trait (ten times the work).
    """
    counts = table.scratch_pool
    n_champions = table.held.shape[1]
    for seat in range(table.held.shape[0]):
        for term in range(2):  # the units of any star, then the 1-star ones
            for c in range(n_champions):
                counts[c] = 0.0
            for u in range(table.n_units[seat]):
                c = table.unit_champion[seat, u]
                if c < 0 or c >= n_champions:
                    return False
                if term == 0 or table.unit_star[seat, u] == 1:
                    counts[c] += 1.0
            kept = table.held[seat] if term == 0 else table.held_one_star[seat]
            for c in range(n_champions):
                if kept[c] != counts[c]:
                    return False
        for c in range(n_champions):
            if (table.owned[seat, c] != (1.0 if table.held[seat, c] > 0 else 0.0)
                    or table.owned_pairs[seat, c] != (1.0 if table.held_one_star[seat, c] >= 2 else 0.0)):
                return False
        for k in range(table.seat_traits.shape[1]):
            count = 0.0  # one per occurrence of k in an owned champion's traits
            for j in range(rules.trait_champions.shape[1]):
                c = rules.trait_champions[k, j]
                if c >= 0 and table.held[seat, c] > 0:
                    count += 1.0
            if table.seat_traits[seat, k] != count:
                return False
        for c in range(table.held.shape[1]):
            fit = 0.0
            for m in range(rules.champion_traits.shape[1]):
                trait = rules.champion_traits[c, m]
                if trait >= 0:
                    fit += table.seat_traits[seat, trait] - table.owned[seat, c]
            if table.trait_fit[seat, c] != fit:
                return False
    return True


@game_internal
def table_is_sound(rules, table):
    """Copies are conserved, gold is not negative, units fit, and the unit terms are up to date."""
    if not conservation_holds(rules, table) or not unit_terms_hold(rules, table):
        return False
    for seat in range(table.gold.shape[0]):
        if table.gold[seat] < 0 or table.n_units[seat] > capacity_of(rules, table, seat):
            return False
    return True


@njit(cache=True, no_cfunc_wrapper=True)
def soundness(rules, table):
    """The soundness checks of ``table`` for a Python caller, as a checked game computes them.

    Returns
    -------
    (bool, bool, bool)
        :func:`conservation_holds`, :func:`unit_terms_hold` and :func:`table_is_sound`.
    """
    return conservation_holds(rules, table), unit_terms_hold(rules, table), table_is_sound(rules, table)
