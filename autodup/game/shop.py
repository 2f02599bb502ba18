"""Shops: the tier and champion race that fills a slot, a seat's shop filled and rerolled."""

from __future__ import annotations

from ..engine.kernels import ENGINE_KEYED, engine_draw_hierarchical
from ..engine.rng import event_counter, random_uniform, shop_key
from .rules import game_inline, game_internal, game_kernel, whole_sums_kernel
from .stats import LUCK_SHOP_COST, LUCK_SHOP_HITS, LUCK_SHOP_PAIRS, LUCK_SHOP_TRAITS, STAT_SHOPS_SEEN

__all__ = ["event_uniform", "unit_power", "copies_of_star", "move_copies", "fill_tier_totals", "positive_tier_totals",
           "tier_weights", "deal_one", "weighted_tier_sums", "put_in_shop", "prepare_slot_luck", "take_slot_luck",
           "keep_tier_slot_terms", "keep_slot_terms", "add_slot_luck", "trace_draw", "mark_trait", "clear_shop",
           "fill_shop", "reroll_shop", "FREE_REFRESH"]


@game_kernel
def event_uniform(event_seed, kind, round_index, index):
    return random_uniform(event_seed, kind, event_counter(round_index, index))


@game_internal
def unit_power(rules, champion, star):
    return rules.tier_cost[rules.champion_tier[champion]] * rules.star_power[star - 1]


@game_inline
def copies_of_star(star):
    """Copies a unit of ``star`` holds: 1, 3 or 9 (also used by bots, through autodup.bots).

    Without a branch: in a loop over units (``copies_owned``), a branch per unit was mispredicted at every match.
    """
    return 9 - 8 * (star == 1) - 6 * (star == 2)


@game_inline
def fill_tier_totals(rules, pool, out):
    positive_tier_totals(pool, rules.tier_start, out)


@whole_sums_kernel
def positive_tier_totals(weights, tier_start, out):
    """Per tier, the sum of the positive entries of ``weights`` (float64 (N,), whole numbers: copies) into ``out``
    (float64 (T,)); tier ``t`` is ``weights[tier_start[t]:tier_start[t + 1]]``. Out of line with reordered sums
    (:data:`~autodup.game.rules.whole_sums_kernel`): the same bits as in order, a game about 0.6% faster. The
    engine's ``positive_total``, inlined here instead, stays one addition at a time (its branch per entry)."""
    for t in range(out.shape[0]):
        total = 0.0
        for i in range(tier_start[t], tier_start[t + 1]):
            w = weights[i]
            total += w if w > 0.0 else 0.0
        out[t] = total


@game_inline
def tier_weights(rules, level, tier_totals, constrained, qualifying_totals, out):
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
def deal_one(rules, dealer, seat, seat_seeds, counters, needles, needle_count, tier_weights, pool, key):
    """One shop slot for ``seat`` from the current pool; -1 if nothing can be dealt."""
    if dealer == ENGINE_KEYED:
        counters[seat, 0] = key
    return engine_draw_hierarchical(dealer, seat_seeds[seat], counters[seat], needles[seat], needle_count[seat],
                                    tier_weights, pool, rules.tier_start)


@game_inline
def move_copies(rules, pool, tier_totals, champion, change):
    """Add ``change`` copies of ``champion`` to the pool (take them out when negative) and to its tier's total.

    Every move of the pool's copies goes through here (a shop dealt or
    cleared, a purchase, a sale, loot, an elimination), so ``tier_totals``
    (float64 (T,)) stays the pool's per-tier sums, exactly: copies are whole.
    """
    pool[champion] += change
    tier_totals[rules.champion_tier[champion]] += change


@game_inline
def _take_from_pool(rules, pool, tier_totals, champion):
    """A champion dealt to a shop leaves the pool (if the rules say so); returns whether it did."""
    if champion >= 0 and rules.units_leave_pool:
        move_copies(rules, pool, tier_totals, champion, -1.0)
        return True
    return False


@game_inline
def put_in_shop(rules, table, seat, slot, champion):
    """Show ``champion`` (or -1) in ``seat``'s ``slot``: it leaves the pool and its tier's total, if the rules say so.

    The one place a dealt champion lands, whichever order serves the seats; it
    is counted in the seat's offers. Returns whether it left the pool.
    """
    table.shops[seat, slot] = champion
    if champion >= 0:
        table.offers[seat, champion] += 1
    return _take_from_pool(rules, table.pool, table.tier_totals, champion)


@game_inline
def prepare_slot_luck(rules, table, seat, champion_weights):
    """Before dealing ``seat`` slots from ``champion_weights`` (float64 (N,)): the sums per tier of the weights of
    what the seat owns, of its pairs and of each champion's trait fit (``tier_hits``, ``tier_pairs``,
    ``tier_fit``; kept up to date as copies leave, see :func:`take_slot_luck`), from the seat's unit terms
    (:data:`autodup.game.state.UNIT_TERMS`)."""
    weighted_tier_sums(champion_weights, table.owned[seat], table.owned_pairs[seat], table.trait_fit[seat],
                       rules.tier_start, table.tier_hits, table.tier_pairs, table.tier_fit)


@whole_sums_kernel
def weighted_tier_sums(weights, first, second, third, tier_start, first_sums, second_sums, third_sums):
    """Per tier ``t`` (``tier_start[t]:tier_start[t + 1]``), the sums of ``weights * first``, ``weights * second``
    and ``weights * third`` into ``first_sums``, ``second_sums`` and ``third_sums`` (float64 (T,)).

    ``weights``, ``first``, ``second`` and ``third`` are float64 (N,) of non-negative whole numbers (copies, 0/1
    flags, trait counts), so the sums are exact in any order: out of line with reordered sums
    (:data:`~autodup.game.rules.whole_sums_kernel`), the same bits, and a game about 1.2% faster than with a
    loop in order that skipped weights of 0 or less (a weight of 0 adds +0.0 here; none is negative).
    """
    for t in range(first_sums.shape[0]):
        a, b, c = 0.0, 0.0, 0.0
        for i in range(tier_start[t], tier_start[t + 1]):
            w = weights[i]
            a += w * first[i]
            b += w * second[i]
            c += w * third[i]
        first_sums[t] = a
        second_sums[t] = b
        third_sums[t] = c


@game_inline
def take_slot_luck(rules, table, seat, champion):
    """One copy of ``champion`` left the weights the slot terms' expectations are over: its tier's sums lose it."""
    tier = rules.champion_tier[champion]
    table.tier_hits[tier] -= table.owned[seat, champion]
    table.tier_pairs[tier] -= table.owned_pairs[seat, champion]
    table.tier_fit[tier] -= table.trait_fit[seat, champion]


@game_inline
def keep_tier_slot_terms(rules, table, t, champion_totals):
    """Write tier ``t``'s part of a slot's expected hits, pairs, trait fit and cost into
    ``table.tier_slot_terms[:, t]``: the tier's weight in the slot's law (``table.tier_weights[t]``) times the mean
    over its champions (``champion_totals[t]`` copies in all), or 0 when it deals nothing."""
    terms = table.tier_slot_terms
    w = table.tier_weights[t]
    if w > 0.0 and champion_totals[t] > 0.0:
        terms[0, t] = w * table.tier_hits[t] / champion_totals[t]
        terms[1, t] = w * table.tier_pairs[t] / champion_totals[t]
        terms[2, t] = w * table.tier_fit[t] / champion_totals[t]
        terms[3, t] = w * rules.tier_cost[t]
    else:
        terms[0, t], terms[1, t], terms[2, t], terms[3, t] = 0.0, 0.0, 0.0, 0.0


@game_inline
def keep_slot_terms(rules, table, champion_totals):
    """:func:`keep_tier_slot_terms` for every tier (after the tier weights change)."""
    for t in range(table.tier_weights.shape[0]):
        keep_tier_slot_terms(rules, table, t, champion_totals)


@game_inline
def add_slot_luck(rules, table, seat, champion):
    """Add a dealt slot's shop terms (``LUCK_SHOP_*``): its outcome minus the expectation under the slot's law.

    The law is the draw's: tier ``t`` with ``table.tier_weights[t]`` (normalized,
    or all zero: nothing), then a champion in proportion to its weight in the
    tier (none: nothing dealt, worth 0). Each tier's part of the expectation is
    read from ``table.tier_slot_terms``, which the caller keeps up to date
    (:func:`keep_slot_terms`, :func:`keep_tier_slot_terms`).
    """
    expected_hits, expected_cost, expected_pairs, expected_fit = 0.0, 0.0, 0.0, 0.0
    terms = table.tier_slot_terms
    for t in range(terms.shape[1]):
        # A tier that deals nothing adds +0.0 to sums that are +0.0 or more: the same as leaving it out.
        expected_hits += terms[0, t]
        expected_pairs += terms[1, t]
        expected_fit += terms[2, t]
        expected_cost += terms[3, t]
    hits, cost, pairs, fit = 0.0, 0.0, 0.0, 0.0
    if champion >= 0:
        hits = table.owned[seat, champion]
        cost = rules.tier_cost[rules.champion_tier[champion]]
        pairs = table.owned_pairs[seat, champion]
        fit = table.trait_fit[seat, champion]
    table.luck[seat, LUCK_SHOP_HITS] += hits - expected_hits
    table.luck[seat, LUCK_SHOP_COST] += cost - expected_cost
    table.luck[seat, LUCK_SHOP_PAIRS] += pairs - expected_pairs
    table.luck[seat, LUCK_SHOP_TRAITS] += fit - expected_fit


@game_inline
def _traces(table, seat):
    """Whether ``seat``'s trace still has room for a draw (never in a normal game: the trace holds none)."""
    return table.trace_count[seat] < table.trace_outcome.shape[1]


@game_inline
def trace_draw(table, seat, key, champion_weights, champion):
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


@game_internal
def mark_trait(rules, trait, qualifies):
    """``qualifies[c]`` = whether champion ``c`` has ``trait`` (bool (N,)); a loaded roll deals only those."""
    for c in range(qualifies.shape[0]):
        has = False
        for m in range(rules.champion_traits.shape[1]):
            if rules.champion_traits[c, m] == trait:
                has = True
        qualifies[c] = has


@game_internal
def clear_shop(rules, shops, seat, pool, tier_totals):
    """Empty ``seat``'s shop; its shown units go back to the pool (and their tiers' totals) if they had left it."""
    for slot in range(shops.shape[1]):
        champion = shops[seat, slot]
        if champion >= 0:
            if rules.units_leave_pool:
                move_copies(rules, pool, tier_totals, champion, 1.0)
            shops[seat, slot] = -1


@game_inline  # it takes the table: out of line, every call would copy the whole tuple onto the stack
def fill_shop(rules, dealer, table, seat, round_index, roll, seat_seeds, constrained):
    """Deal every empty slot of ``seat``'s shop, one after the other, from the pool.

    With ``constrained``, only champions with ``table.qualifies[c]`` are dealt (a loaded roll).
    """
    # The pool's tier totals are kept with it (table.tier_totals: every change to the pool changes them, in whole
    # copies, so exactly), not summed again for every shop.
    pool = table.pool
    scratch_pool = table.scratch_pool
    if constrained:
        for c in range(pool.shape[0]):
            scratch_pool[c] = pool[c] if table.qualifies[c] else 0.0
        fill_tier_totals(rules, scratch_pool, table.qualifying_totals)
    champion_weights = scratch_pool if constrained else pool
    champion_totals = table.qualifying_totals if constrained else table.tier_totals
    prepare_slot_luck(rules, table, seat, champion_weights)
    # A slot's tier weights and each tier's part of its luck terms are kept from one slot to the next, and
    # computed again only where a slot changed them: their divisions were about a quarter of the shop's samples.
    # Unconstrained, the weights read the tier totals only as empty or not.
    stale = True
    for slot in range(table.shops.shape[1]):
        if table.shops[seat, slot] >= 0:
            continue
        if stale or constrained:
            tier_weights(rules, table.level[seat], table.tier_totals, constrained, table.qualifying_totals,
                          table.tier_weights)
            keep_slot_terms(rules, table, champion_totals)
            stale = False
        key = shop_key(round_index, roll, slot)
        champion = deal_one(rules, dealer, seat, seat_seeds, table.counters, table.needles, table.needle_count,
                             table.tier_weights, champion_weights, key)
        trace_draw(table, seat, key, champion_weights, champion)
        add_slot_luck(rules, table, seat, champion)
        if put_in_shop(rules, table, seat, slot, champion):
            take_slot_luck(rules, table, seat, champion)
            tier = rules.champion_tier[champion]
            if constrained:
                scratch_pool[champion] -= 1.0
                table.qualifying_totals[tier] -= 1.0
            # The copy left its tier's sums and total; a tier left empty changes every tier's weight.
            stale = table.tier_totals[tier] <= 0.0
            keep_tier_slot_terms(rules, table, tier, champion_totals)


# reroll_shop's seat for the round's free refresh: every alive seat whose shop is not locked, in serving order.
FREE_REFRESH = -1


@game_internal
def reroll_shop(rules, dealer, table, seat, round_index, roll, seat_seeds, constrained):
    """Deal ``seat`` a fresh shop, its shown units back in the pool first (a reroll, a loaded roll).

    With ``seat`` = ``FREE_REFRESH``, deal the round's free refresh instead: to every alive seat whose shop is
    not locked, in serving order (``table.order``, as :func:`autodup.game.rounds.shuffle_alive` left it). One
    call serves the whole refresh: each out-of-line call passes the rules and the table field by field
    (hundreds of words), and the shop's code stays compiled once (one call of :func:`fill_shop`).

    Callers pass ``constrained`` as a run-time bool (``np.bool_``): a literal ``True`` or ``False`` compiled the
    shop, with the draw it inlines, once for each (1.4 s of the table's compile), for a game no faster.
    """
    count = 1
    if seat == FREE_REFRESH:
        count = 0
        for other in range(table.alive.shape[0]):
            if table.alive[other]:
                count += 1
    for i in range(count):
        dealt = seat
        if seat == FREE_REFRESH:
            dealt = table.order[i]
            if table.locked[dealt]:
                continue
        clear_shop(rules, table.shops, dealt, table.pool, table.tier_totals)
        fill_shop(rules, dealer, table, dealt, round_index, roll, seat_seeds, constrained)
        table.stats[dealt, STAT_SHOPS_SEEN] += 1


# The legality of each action, one predicate per action: apply_action refuses what they refuse, and
# fill_decision_view writes their answers into the view (VIEW_BUYABLE, ...), so a bot reads the very rule the
# table applies. Inlined: they run for every shop slot of every decision.
