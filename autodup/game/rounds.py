"""A round's start: serving order, matchmaking, the shops' refresh (by events or by a race), income and loot."""

from __future__ import annotations

import numpy as np

from ..driver_linking import optimised_before_linking
from ..engine.kernels import (
    ENGINE_HAYSTACK,
    haystack_advance,
    haystack_consume,
    haystack_race,
    haystack_update,
)
from ..engine.rng import EVENT_GHOST_INDEX, EVENT_SECOND_KEY, loot_key, random_uniform
from .rules import (
    EVENTS_BY_SEAT,
    ORDER_RACE,
    STREAM_LOOT_BAG_KEY,
    STREAM_MATCHMAKING_KEY,
    STREAM_SERVING_ORDER_KEY,
    game_inline,
    game_internal,
    game_kernel,
)
from .shop import (
    FREE_REFRESH,
    add_slot_luck,
    clear_shop,
    deal_one,
    event_uniform,
    keep_slot_terms,
    move_copies,
    prepare_slot_luck,
    put_in_shop,
    reroll_shop,
    tier_weights,
    trace_draw,
)
from .state import capacity_of
from .stats import LUCK_LOOT, STAT_ROUNDS_ALIVE, STAT_SHOPS_SEEN
from .units import add_unit, level_up

__all__ = ["shuffle_alive", "ghost_of", "streak_gold_of", "start_round", "bag_item", "shuffle_bag", "deal_loot"]


@game_internal
def shuffle_alive(table, event_seed, kind, round_index, events):
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
            table.event_keys[i] = event_uniform(event_seed, kind, round_index, table.order[i])
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
        j = int(event_uniform(event_seed, kind, round_index, i) * (i + 1))
        table.order[i], table.order[j] = table.order[j], table.order[i]
    return k


@game_internal
def ghost_of(table, event_seed, round_index, k, events):
    """The seat whose board the odd seat out (``table.order[k - 1]``) fights: uniform over the other alive seats."""
    if events == EVENTS_BY_SEAT:  # the smallest of the others' second keys
        ghost, best = -1, np.inf
        for i in range(k - 1):
            seat = table.order[i]
            key = event_uniform(event_seed, STREAM_MATCHMAKING_KEY, round_index, EVENT_SECOND_KEY + seat)
            if key < best:
                ghost, best = seat, key
        return ghost
    return table.order[int(event_uniform(event_seed, STREAM_MATCHMAKING_KEY, round_index, EVENT_GHOST_INDEX) * (k - 1))]


@game_internal
def streak_gold_of(rules, streak):
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
    while total_remaining > 0:
        winner, tier = -1, -1
        best_gap = np.inf
        for seat in range(remaining.shape[0]):
            if remaining[seat] == 0:
                continue
            tier_weights(rules, table.level[seat], table.tier_totals, False, table.qualifying_totals,
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
            tier_weights(rules, table.level[seat], table.tier_totals, False, table.qualifying_totals,
                          table.tier_weights)
            haystack_advance(table.needles[seat], table.tier_weights, 0, n_tiers, n, best_gap)
        haystack_consume(seat_seeds[winner], table.needles[winner], table.needle_count[winner], n + tier)
        champion = haystack_race(seat_seeds[winner], table.needles[winner], table.needle_count[winner], table.pool,
                                 rules.tier_start[tier], rules.tier_start[tier + 1], 0)
        # The winner's own tier weights: given that it is served, its slot's law is that of fill_shop.
        tier_weights(rules, table.level[winner], table.tier_totals, False, table.qualifying_totals,
                      table.tier_weights)
        trace_draw(table, winner, -1, table.pool, champion)  # a race has no draw key: its timing is the race's
        prepare_slot_luck(rules, table, winner, table.pool)
        keep_slot_terms(rules, table, table.tier_totals)
        add_slot_luck(rules, table, winner, champion)
        put_in_shop(rules, table, winner, rules.shop_size - remaining[winner], champion)
        remaining[winner] -= 1
        total_remaining -= 1


# Marked (autodup.driver_linking): the free refresh's shop and the serving order stay calls, as they are per round;
# the shop is not optimised again here.
@optimised_before_linking
@game_internal
def start_round(rules, dealer, order, events, table, round_index, seat_seeds, event_seed):
    alive_count = shuffle_alive(table, event_seed, STREAM_SERVING_ORDER_KEY, round_index, events)
    for i in range(alive_count):
        seat = table.order[i]
        interest = min(table.gold[seat] // rules.interest_per, rules.interest_max)
        table.gold[seat] += rules.round_income[round_index] + interest + streak_gold_of(rules, table.streak[seat])
        if round_index > 0:
            table.xp[seat] += rules.xp_per_round
            level_up(rules, table, seat)
        table.loaded_used[seat] = False
        table.stats[seat, STAT_ROUNDS_ALIVE] += 1
        if not table.locked[seat]:
            clear_shop(rules, table.shops, seat, table.pool, table.tier_totals)
    # For the events order (None: ORDER_EVENTS) numba prunes this test by the argument's type, and compiles no race.
    if order == ORDER_RACE and dealer == ENGINE_HAYSTACK:
        _refresh_by_race(rules, table, seat_seeds, alive_count)
        for i in range(alive_count):
            if not table.locked[table.order[i]]:
                table.stats[table.order[i], STAT_SHOPS_SEEN] += 1
    else:
        reroll_shop(rules, dealer, table, np.int64(FREE_REFRESH), round_index, np.int64(0), seat_seeds, np.bool_(False))
    for i in range(alive_count):
        table.locked[table.order[i]] = False
    return alive_count


@game_inline
def bag_item(seat_seed, bag, position, shuffled, shuffled_cycle):
    """Item of a seat's shuffle bag at ``position``: every span of ``bag`` draws (a cycle) is one shuffle of the bag.

    ``shuffled`` (int64 (bag,)) keeps the seat's shuffle of cycle ``shuffled_cycle[0]`` (int64 (1,); -1 for none
    yet): a cycle is shuffled once, when its first item is asked for (:func:`shuffle_bag`), where shuffling the
    whole bag again for each item cost a Philox block per item of the bag.
    """
    cycle = position // bag
    if shuffled_cycle[0] != cycle:
        shuffle_bag(seat_seed, bag, cycle, shuffled)
        shuffled_cycle[0] = cycle
    return shuffled[position % bag]


@game_kernel
def shuffle_bag(seat_seed, bag, cycle, permutation):
    """The seat's shuffle of its bag in cycle ``cycle`` into ``permutation`` (int64 (bag,)): a Fisher-Yates
    shuffle on the seat's loot stream at counters ``cycle * bag + i``."""
    for i in range(bag):
        permutation[i] = i
    for i in range(bag - 1, 0, -1):
        j = int(random_uniform(seat_seed, STREAM_LOOT_BAG_KEY, np.uint64(cycle * bag + i)) * (i + 1))
        permutation[i], permutation[j] = permutation[j], permutation[i]


@game_inline
def _loot_worth(rules, item):
    """A loot item's worth in gold: its gold, or its unit's tier cost (what the seat gets without room)."""
    tier = rules.loot_unit_tier[item]
    return float(rules.loot_gold[item]) if tier < 0 else float(rules.tier_cost[tier])


@game_internal
def deal_loot(rules, dealer, table, seat, round_index, seat_seeds):
    """Hand out this PvE round's loot from the seat's shuffle bag (seed 001)."""
    bag = rules.loot_gold.shape[0]
    if bag == 0:
        return
    for _ in range(rules.loot_per_pve_round):
        position = table.loot_position[seat]
        table.loot_position[seat] += 1
        item = bag_item(seat_seeds[seat], bag, position, table.bags[seat], table.bag_cycle[seat:seat + 1])
        # The bag's cycle deals its items without replacement: the expectation is over those left in it.
        expected = 0.0
        for i in range(position % bag, bag):
            expected += _loot_worth(rules, table.bags[seat, i])
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
        champion = deal_one(rules, dealer, seat, seat_seeds, table.counters, table.needles, table.needle_count,
                             table.tier_weights, table.pool, key)
        if champion < 0:
            table.gold[seat] += rules.tier_cost[tier]
            continue
        move_copies(rules, table.pool, table.tier_totals, champion, -1.0)
        add_unit(rules, table, seat, champion)
