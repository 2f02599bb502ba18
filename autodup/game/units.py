"""Units: adding, removing and combining a seat's units, levels, and a board's power."""

from __future__ import annotations

from .rules import game_inline, game_internal, game_kernel
from .shop import unit_power

__all__ = ["count_unit", "remove_unit", "add_unit", "completes_a_combine", "seat_completes_a_combine", "level_up",
           "record_final_board", "board_power"]


# Out of line, on the seat's rows alone: it runs only for a champion's first unit or its last, so count_unit's
# many inlined copies stay small (the cold compile's difference was within its noise, about 2 s).
@game_kernel
def _ownership_changed(champion_traits, trait_champions, owned, seat_traits, trait_fit, champion, owns):
    """The seat owns ``champion`` now (``owns``), or no longer: each of its traits counts one champion more (or
    fewer), so every champion with that trait fits one better (or worse), and the champion's own terms no longer
    count itself. ``owned``, ``seat_traits`` and ``trait_fit`` are the seat's rows of the unit terms."""
    step = 1.0 if owns else -1.0
    owned[champion] = 1.0 if owns else 0.0
    for m in range(champion_traits.shape[1]):
        trait = champion_traits[champion, m]
        if trait < 0:
            continue
        seat_traits[trait] += step
        for j in range(trait_champions.shape[1]):
            other = trait_champions[trait, j]
            if other < 0:
                break
            trait_fit[other] += step
        trait_fit[champion] -= step


@game_inline
def count_unit(rules, table, seat, champion, star, change):
    """Keep the seat's unit terms (:data:`autodup.game.state.UNIT_TERMS`) up to date as a unit of ``champion``
    and ``star`` comes (``change`` 1) or goes (-1; -3 for the three units a combine replaces)."""
    table.held[seat, champion] += change
    if star == 1:
        table.held_one_star[seat, champion] += change
        table.owned_pairs[seat, champion] = 1.0 if table.held_one_star[seat, champion] >= 2 else 0.0
    owns = table.held[seat, champion] > 0
    if owns != (table.owned[seat, champion] > 0.0):
        _ownership_changed(rules.champion_traits, rules.trait_champions, table.owned[seat], table.seat_traits[seat],
                           table.trait_fit[seat], champion, owns)


@game_inline
def _take_out(table, seat, index):
    """Take unit ``index`` off the seat's arrays: the last unit fills its place (the terms are not touched; the
    board is measured again before the next fights)."""
    last = table.n_units[seat] - 1
    table.unit_champion[seat, index] = table.unit_champion[seat, last]
    table.unit_star[seat, index] = table.unit_star[seat, last]
    table.unit_champion[seat, last] = -1
    table.unit_star[seat, last] = 0
    table.n_units[seat] = last
    table.board_changed[seat] = True


@game_inline
def _place(table, seat, champion, star):
    """Put a unit at the end of the seat's arrays (the terms are not touched; the board is measured again before
    the next fights)."""
    n = table.n_units[seat]
    table.unit_champion[seat, n] = champion
    table.unit_star[seat, n] = star
    table.n_units[seat] = n + 1
    table.board_changed[seat] = True


@game_inline
def remove_unit(rules, table, seat, index):
    count_unit(rules, table, seat, table.unit_champion[seat, index], table.unit_star[seat, index], -1)
    _take_out(table, seat, index)


@game_inline
def add_unit(rules, table, seat, champion):
    """Add a 1-star unit, then combine three of a kind into the next star, repeatedly."""
    _place(table, seat, champion, 1)
    count_unit(rules, table, seat, champion, 1, 1)
    for star in (1, 2):
        if star == 1:
            found = table.held_one_star[seat, champion]
        else:
            found = 0
            for u in range(table.n_units[seat]):
                if table.unit_champion[seat, u] == champion and table.unit_star[seat, u] == star:
                    found += 1
        if found < 3:
            return
        # The terms count the new unit before the three it replaces leave: the seat owns the champion
        # throughout, so its traits' terms are not taken down and put back (the unit arrays change in the
        # same order as before, so every result is as it was).
        count_unit(rules, table, seat, champion, star + 1, 1)
        count_unit(rules, table, seat, champion, star, -3)
        removed = 0
        u = table.n_units[seat] - 1
        while removed < 3:
            if table.unit_champion[seat, u] == champion and table.unit_star[seat, u] == star:
                _take_out(table, seat, u)
                removed += 1
            u -= 1
        _place(table, seat, champion, star + 1)


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


@game_inline
def seat_completes_a_combine(table, seat, champion):
    """:func:`completes_a_combine` for a seat of the table, read from its unit terms (1-stars held)."""
    return table.held_one_star[seat, champion] >= 2


@game_inline
def level_up(rules, table, seat):
    while table.level[seat] < rules.max_level and table.xp[seat] >= rules.level_xp[table.level[seat] + 1]:
        table.xp[seat] -= rules.level_xp[table.level[seat] + 1]
        table.level[seat] += 1
        table.board_changed[seat] = True
    if table.level[seat] == rules.max_level:
        table.xp[seat] = 0


@game_inline
def _power_rank(rules, table, seat, unit):
    return rules.unit_power_rank[rules.champion_tier[table.unit_champion[seat, unit]], table.unit_star[seat, unit] - 1]


@game_inline
def _strongest_first(rules, table, seat, order_scratch):
    """Order the seat's units strongest first in ``order_scratch``; returns how many the board holds.

    The board is the strongest units the level allows: what fights, and what
    a run records as a seat's final board. Units of equal power keep their
    order (a stable sort by power). The order is a counting sort by each
    unit's power rank (``rules.unit_power_rank``): a unit's place is the number
    of stronger units, plus the units of its power before it. An insertion
    sort by power compared pairs of units, each comparison a branch the
    processor mispredicted about half the time.
    """
    n = table.n_units[seat]
    counts = table.power_counts
    counts[:] = 0
    for u in range(n):
        counts[_power_rank(rules, table, seat, u) + 1] += 1
    for rank in range(1, counts.shape[0]):  # counts[rank]: the units stronger than that rank
        counts[rank] += counts[rank - 1]
    for u in range(n):
        rank = _power_rank(rules, table, seat, u)
        order_scratch[counts[rank]] = u
        counts[rank] += 1
    return min(n, rules.level_board_size[table.level[seat]])


@game_internal
def record_final_board(rules, table, seat, order_scratch, final_champion, final_star):
    """Write the seat's board (champions and stars, strongest first, -1 / 0 after) as it leaves the game."""
    on_board = _strongest_first(rules, table, seat, order_scratch)
    for i in range(final_champion.shape[1]):
        if i < on_board:
            final_champion[seat, i] = table.unit_champion[seat, order_scratch[i]]
            final_star[seat, i] = table.unit_star[seat, order_scratch[i]]
        else:
            final_champion[seat, i] = -1
            final_star[seat, i] = 0


@game_inline
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
        power += unit_power(rules, champion, table.unit_star[seat, u])
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
        if trait_counts[trait] < rules.trait_breakpoints[trait, 0]:
            continue  # below its first breakpoint (they increase): no bonus, as for most traits of a board
        for b in range(rules.trait_breakpoints.shape[1]):
            if trait_counts[trait] >= rules.trait_breakpoints[trait, b]:
                bonus_here = rules.trait_bonus[trait, b]
                if b == rules.trait_breakpoints.shape[1] - 1 or trait_counts[trait] < rules.trait_breakpoints[trait, b + 1]:
                    bonus += bonus_here
    return power * (1.0 + bonus), on_board
