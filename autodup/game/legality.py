"""What is legal, one predicate per action, and :func:`apply_action`, which applies only what they allow."""

from __future__ import annotations

import numpy as np

from .actions import ACTION_BUY, ACTION_BUY_XP, ACTION_END, ACTION_LOADED_ROLL, ACTION_LOCK, ACTION_REROLL, ACTION_SELL
from .rules import game_inline
from .shop import copies_of_star, mark_trait, move_copies, reroll_shop
from .state import capacity_of
from .stats import STAT_GOLD_SPENT, STAT_ROLLS, STAT_UNITS_BOUGHT
from .units import add_unit, level_up, remove_unit, seat_completes_a_combine

__all__ = ["legal_buy", "legal_sell", "legal_reroll", "legal_buy_xp", "legal_loaded_roll", "apply_action"]


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
    if table.n_units[seat] >= capacity_of(rules, table, seat) and not seat_completes_a_combine(table, seat, champion):
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
            # Shown units stayed in the pool: the bought one leaves it now.
            move_copies(rules, table.pool, table.tier_totals, champion, -1.0)
        table.gold[seat] -= cost
        table.stats[seat, STAT_GOLD_SPENT] += cost
        table.stats[seat, STAT_UNITS_BOUGHT] += 1
        table.bought[seat, champion] += 1
        table.shops[seat, argument] = -1
        add_unit(rules, table, seat, champion)
        return True
    if action == ACTION_SELL:
        # A unit sells for its cost times the copies it holds (1, 3 or 9).
        if not legal_sell(table, seat, argument):
            return False
        champion = table.unit_champion[seat, argument]
        copies = copies_of_star(table.unit_star[seat, argument])
        table.gold[seat] += rules.tier_cost[rules.champion_tier[champion]] * copies
        move_copies(rules, table.pool, table.tier_totals, champion, copies)
        remove_unit(rules, table, seat, argument)
        return True
    if action == ACTION_REROLL:
        if not legal_reroll(rules, table, seat):
            return False
        table.gold[seat] -= rules.reroll_price
        table.stats[seat, STAT_GOLD_SPENT] += rules.reroll_price
        table.stats[seat, STAT_ROLLS] += 1
        reroll_shop(rules, dealer, table, seat, round_index, roll, seat_seeds, np.bool_(False))
        return True
    if action == ACTION_BUY_XP:
        if not legal_buy_xp(rules, table, seat):
            return False
        table.gold[seat] -= rules.xp_price
        table.stats[seat, STAT_GOLD_SPENT] += rules.xp_price
        table.xp[seat] += rules.xp_amount
        level_up(rules, table, seat)
        return True
    if action == ACTION_LOCK:
        table.locked[seat] = not table.locked[seat]
        return True
    if action == ACTION_LOADED_ROLL:
        if not legal_loaded_roll(rules, table, seat, argument):
            return False
        mark_trait(rules, argument, table.qualifies)
        table.loaded_used[seat] = True
        reroll_shop(rules, dealer, table, seat, round_index, roll, seat_seeds, np.bool_(True))
        return True
    return action == ACTION_END
