"""The bot authoring API: ``@policy``, the answers (``buy``, ``sell``, ...), the view's field names and helpers.

Bot files import it as :mod:`autodup.bots`."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..cache_sharing import plain_versions_only
from ..errors import BotError, PolicyError
from . import units
from .actions import (
    ACTION_BUY,
    ACTION_BUY_XP,
    ACTION_END,
    ACTION_LOADED_ROLL,
    ACTION_LOCK,
    ACTION_REROLL,
    ACTION_SELL,
    encode_decision,
)
from .policy_compiling import explain_compile_error, policy
from .shop import copies_of_star
from .view import MAX_PARAMETERS, MAX_PLAYERS, MEMORY_SIZE, POLICY_SIGNATURE, VIEW_MASK_BITS, VIEW_NAMES

__all__ = ["helper", "explain_compile_error", "policy", "end_turn", "buy", "sell",
           "reroll", "buy_xp", "toggle_lock", "loaded_roll", "uniform", "random_below", "unit_value", "copies_owned",
           "completes_a_combine", "can_buy", "can_sell", "can_reroll", "can_buy_xp", "can_loaded_roll",
           "weakest_unit", "has_trait", "interest_gold", "buy_best", "curve_level", "standard_level",
           "units_with_trait", "strongest_trait", "room_for", "reroll_turn"]

_VIEW_INDEX = {name.upper(): index for index, name in enumerate(VIEW_NAMES)}
assert not _VIEW_INDEX.keys() & globals().keys(), "a view field's name is taken in autodup.bots"
globals().update(_VIEW_INDEX)
# What a bot file may import besides the functions below: the view's field names, the actions and sizes.
__all__ += [*_VIEW_INDEX, "BotError", "PolicyError", "ACTION_BUY", "ACTION_BUY_XP", "ACTION_END", "ACTION_LOADED_ROLL", "ACTION_LOCK",
            "ACTION_REROLL", "ACTION_SELL", "MAX_PARAMETERS", "MAX_PLAYERS", "MEMORY_SIZE", "POLICY_SIGNATURE",
            "VIEW_MASK_BITS", "VIEW_NAMES", "copies_of_star", "encode_decision"]


def finite_number(value):
    """``value`` as a finite float, or None (booleans, text that is not a number, inf, nan, huge integers)."""
    if isinstance(value, bool):
        return None
    try:
        number = float(value) if isinstance(value, (int, float, str)) else None
    except (ValueError, OverflowError):
        return None
    return number if number is not None and math.isfinite(number) else None




# Decorator for the functions a bot's own code calls: inlined into the policy, and without the Numba runtime
# (calling a plain @njit function with array arguments costs two atomic reference-count operations per array,
# which made a decision ten times slower than its work: 350 ns against 25).
helper = njit(cache=True, no_cfunc_wrapper=True, _nrt=False, inline="always")

_compiled_once = njit(cache=True, no_cfunc_wrapper=True, _nrt=False, boundscheck=True)


def shared_helper(function):
    """Decorator for the helpers below, which every bot calls: each version compiled once and cached, then linked
    into every policy that calls it (LLVM inlines it there as it sees fit), rather than inlined into each
    policy's numba IR, typed and lowered again for every bot. The eight shipped bots compile in about 4 s less in
    one process, a cold start in about 3 s less (docs/performance.md), and games are as fast.

    Bounds are checked, as in the policy itself: an index a bot passes out of range fails its decision. Without
    the runtime, as above; they index as a bot does, negative indices included (autodup.nonnegative_indices
    leaves this module out); and a version for a type a bot defines (an enum of its file, say) is compiled in
    each process, not cached (:func:`autodup.cache_sharing.plain_versions_only`).
    """
    return plain_versions_only(_compiled_once(function))


# --------------------------------------------------------------------------
# answers
# --------------------------------------------------------------------------


@shared_helper
def end_turn():
    return encode_decision(ACTION_END, 0)


@shared_helper
def buy(slot):
    return encode_decision(ACTION_BUY, slot)


@shared_helper
def sell(unit):
    return encode_decision(ACTION_SELL, unit)


@shared_helper
def reroll():
    return encode_decision(ACTION_REROLL, 0)


@shared_helper
def buy_xp():
    return encode_decision(ACTION_BUY_XP, 0)


@shared_helper
def toggle_lock():
    return encode_decision(ACTION_LOCK, 0)


@shared_helper
def loaded_roll(trait):
    return encode_decision(ACTION_LOADED_ROLL, trait)


# --------------------------------------------------------------------------
# helpers for decide()
# --------------------------------------------------------------------------


@shared_helper
def uniform(me):
    """A uniform in [0, 1) fresh for this decision (``me[RANDOM_A]``)."""
    return me[RANDOM_A] * 2.0**-53


@shared_helper
def random_below(me, n):
    """An integer uniform in ``[0, n)`` fresh for this decision (``me[RANDOM_B]``); n >= 1."""
    return np.int64(me[RANDOM_B] * 2.0**-53 * n)


@shared_helper
def unit_value(champion, star, champion_cost):
    """Gold value (and rough strength) of a unit: cost times copies."""
    return champion_cost[champion] * copies_of_star(star)


@shared_helper
def copies_owned(champion, me, unit_champion, unit_star):
    """Copies of ``champion`` the seat holds (3 for a 2-star)."""
    total = 0
    for u in range(me[UNITS]):
        total += (unit_champion[u] == champion) * copies_of_star(unit_star[u])  # no branch per unit
    return total


@shared_helper
def completes_a_combine(champion, me, unit_champion, unit_star):
    """Whether buying ``champion`` makes a 2-star at once (two 1-stars held): allowed with a full bench."""
    return units.completes_a_combine(unit_champion, unit_star, me[UNITS], champion)


@shared_helper
def can_buy(slot, me, shop=None, unit_champion=None, unit_star=None, champion_cost=None):
    """Whether buying ``shop[slot]`` is legal now, as the table decides it (``me[BUYABLE]``).

    Only ``slot`` and ``me`` are read: the table computes the rule (gold, room
    or a combine, copies left in the pool when shown units stay in it) with
    the predicate it applies. The other arguments are accepted for bots
    written before the view carried legality.
    """
    return 0 <= slot < VIEW_MASK_BITS and ((me[BUYABLE] >> slot) & 1) == 1


@shared_helper
def can_sell(unit, me):
    """Whether selling unit ``unit`` is legal now: any unit held (``unit < me[UNITS]``)."""
    return 0 <= unit < me[UNITS]


@shared_helper
def can_reroll(me):
    """Whether a reroll is legal now (``me[CAN_REROLL]``)."""
    return me[CAN_REROLL] != 0


@shared_helper
def can_buy_xp(me):
    """Whether buying XP is legal now (``me[CAN_BUY_XP]``)."""
    return me[CAN_BUY_XP] != 0


@shared_helper
def can_loaded_roll(me):
    """Whether a loaded roll of a trait (any trait id) is legal now (``me[CAN_LOADED_ROLL]``)."""
    return me[CAN_LOADED_ROLL] != 0


@shared_helper
def weakest_unit(me, unit_champion, unit_star, champion_cost, keep_champion):
    """Index of the least valuable unit that is not ``keep_champion`` (-1 if none)."""
    weakest, weakest_value = -1, 1 << 60
    for u in range(me[UNITS]):
        if unit_champion[u] == keep_champion:
            continue
        value = unit_value(unit_champion[u], unit_star[u], champion_cost)
        if value < weakest_value:
            weakest, weakest_value = u, value
    return weakest


@shared_helper
def has_trait(champion, trait, champion_traits):
    for m in range(champion_traits.shape[1]):
        if champion_traits[champion, m] == trait:
            return True
    return False


@shared_helper
def interest_gold(me):
    """Gold that earns the most interest (e.g. 50)."""
    return me[INTEREST_PER] * me[INTEREST_MAX]


@shared_helper
def buy_best(me, shop, unit_champion, unit_star, champion_cost, spare_gold):
    """The buy with the most value: pairs first, then cost; spends at most ``spare_gold`` unless it pairs.

    Returns an answer (``buy(slot)``), or 0 if nothing is worth buying.
    """
    best_slot, best_score = -1, -1
    for slot in range(me[SHOP_SIZE]):
        champion = shop[slot]
        if not can_buy(slot, me):
            continue
        owned = copies_owned(champion, me, unit_champion, unit_star)
        cost = champion_cost[champion]
        if owned == 0 and cost > spare_gold:
            continue
        score = owned * 10 + cost
        if score > best_score:
            best_slot, best_score = slot, score
    return buy(best_slot) if best_slot >= 0 else 0


# The standard curve keeps TFT's opening: level 3 through stage 1, level 4 when stage 2 starts.
_CURVE_OPENING_LEVEL = 3
_CURVE_STAGE_TWO_LEVEL = 4


@shared_helper
def curve_level(me, rounds_behind=0):
    """The level a steady player has by now, from the configuration's stages and max level.

    Level 3 through stage 1 and level 4 at the start of stage 2, as in TFT;
    then the remaining levels, up to ``me[MAX_LEVEL]``, are spread evenly
    over the rounds from the start of stage 2 to the start of the
    next-to-last stage the configuration lists (``me[STAGES] - 1``; the last
    stage repeats until the game ends), progress within a stage counted in
    its own rounds (``me[ROUND_IN_STAGE]`` of ``me[STAGE_ROUNDS]``), rounded
    to the nearest level (halves up). With three stages or fewer the max
    level is due from stage 2. Never above ``me[MAX_LEVEL]``.

    On Set 4 (seven stages: 3 rounds, then 6 each; max level 9) this gives
    3, then 4 at 2-1, 5 at 2-4, 6 at 3-3, 7 at 4-1, 8 at 4-6 and 9 at 5-5:
    never more than a level from Set 4's standard curve (5 at 2-5, 6 at
    3-2, 8 at 5-1, 9 at 6-1), and each level within two rounds of it.

    ``rounds_behind`` > 0 gives the curve as it was that many rounds ago
    (counted in the current stage's rounds), < 0 as it will be: a slower or
    faster player on the same configuration's pace.
    """
    top = me[MAX_LEVEL]
    rounds = max(me[STAGE_ROUNDS], 1)
    since_stage_two = (me[STAGE] - 2) * rounds + me[ROUND_IN_STAGE] - 1 - rounds_behind  # in rounds
    if me[STAGE] < 2 or since_stage_two < 0:
        return min(_CURVE_OPENING_LEVEL, top)
    climb = top - _CURVE_STAGE_TWO_LEVEL
    span = me[STAGES] - 3  # stages from the start of stage 2 to the start of stage me[STAGES] - 1
    if climb <= 0 or span <= 0:
        return top if climb > 0 else min(_CURVE_STAGE_TWO_LEVEL, top)
    # level = 4 + climb * since_stage_two / (span * rounds), rounded; integers keep halves exact.
    numerator = climb * since_stage_two
    denominator = span * rounds
    return min(_CURVE_STAGE_TWO_LEVEL + (2 * numerator + denominator) // (2 * denominator), top)


# The name bots used before the curve came from the configuration (it was Set 4's curve then).
standard_level = curve_level


@shared_helper
def units_with_trait(trait, me, unit_champion, champion_traits):
    """Distinct champions held that have ``trait`` (what trait breakpoints count)."""
    count = 0
    for u in range(me[UNITS]):
        champion = unit_champion[u]
        seen = False
        for v in range(u):
            if unit_champion[v] == champion:
                seen = True
        if not seen and has_trait(champion, trait, champion_traits):
            count += 1
    return count


# Units a mask of first copies covers, champions a mask of those seen covers, and traits a mask of traits covers:
# the bits of an int64 below its sign bit.
_MASKED_UNITS = 63
_MASKED_CHAMPIONS = 63
_MASKED_TRAITS = 63


@shared_helper
def _first_copies(me, unit_champion):
    """Bit ``u`` set when unit ``u`` is the first held of its champion, for the first ``_MASKED_UNITS`` units.

    Champions below ``_MASKED_CHAMPIONS`` are remembered in a mask of champions seen, others by a scan of the
    earlier units."""
    first, seen = 0, 0
    for u in range(min(me[UNITS], _MASKED_UNITS)):
        champion = unit_champion[u]
        if 0 <= champion < _MASKED_CHAMPIONS:
            new = (seen >> champion) & 1 == 0
            seen |= 1 << champion
        else:
            new = True
            for v in range(u):
                if unit_champion[v] == champion:
                    new = False
                    break
        if new:
            first |= 1 << u
    return first


@shared_helper
def _trait_mask(champion, champion_traits, n_traits):
    """Bit ``t`` set when ``champion`` has trait ``t`` (``0 <= t < n_traits``, at most ``_MASKED_TRAITS``)."""
    mask = 0
    for m in range(champion_traits.shape[1]):
        trait = champion_traits[champion, m]
        if 0 <= trait < n_traits:
            mask |= 1 << trait
    return mask


@shared_helper
def strongest_trait(me, unit_champion, champion_traits, n_traits):
    """The trait with the most distinct champions held (-1 with no units); ties go to the lower id."""
    if me[UNITS] > _MASKED_UNITS or n_traits > _MASKED_TRAITS:
        best, best_count = -1, 0
        for trait in range(n_traits):
            count = units_with_trait(trait, me, unit_champion, champion_traits)
            if count > best_count:
                best, best_count = trait, count
        return best
    # Every trait's count at once, bit-sliced: bit t of plane k is bit k of trait t's count (at most 63, six
    # bits), and a champion's traits are added to all their counts with the carries of a binary adder. The
    # traits bot asks at the start of every turn, and asking trait by trait was a fifth of its games.
    first = _first_copies(me, unit_champion)
    plane0, plane1, plane2, plane3, plane4, plane5 = 0, 0, 0, 0, 0, 0
    for u in range(me[UNITS]):
        if (first >> u) & 1:
            carry = _trait_mask(unit_champion[u], champion_traits, n_traits)
            plane0, carry = plane0 ^ carry, plane0 & carry
            plane1, carry = plane1 ^ carry, plane1 & carry
            plane2, carry = plane2 ^ carry, plane2 & carry
            plane3, carry = plane3 ^ carry, plane3 & carry
            plane4, carry = plane4 ^ carry, plane4 & carry
            plane5 = plane5 ^ carry
    # The largest count, from its top bit down: of the traits held (a count above 0), keep those that have each
    # bit, if any of those left has it.
    leaders = plane0 | plane1 | plane2 | plane3 | plane4 | plane5
    for plane in (plane5, plane4, plane3, plane2, plane1, plane0):
        if leaders & plane != 0:
            leaders &= plane
    for trait in range(n_traits):  # the lowest id among the leaders
        if (leaders >> trait) & 1:
            return trait
    return -1


@shared_helper
def room_for(champion, me, shop, unit_champion, unit_star, champion_cost, keep_cost):
    """An answer that makes room for ``champion``: sell the weakest unit worth less that is not of cost ``keep_cost``.

    Returns ``sell(unit)``, or 0 when there is room already or nothing worth selling.
    """
    if me[UNITS] < me[CAPACITY] or completes_a_combine(champion, me, unit_champion, unit_star):
        return 0
    weakest, weakest_value = -1, champion_cost[champion]
    for u in range(me[UNITS]):
        if champion_cost[unit_champion[u]] == keep_cost or unit_champion[u] == champion:
            continue
        value = unit_value(unit_champion[u], unit_star[u], champion_cost)
        if value < weakest_value:
            weakest, weakest_value = u, value
    return sell(weakest) if weakest >= 0 else 0


@shared_helper
def reroll_turn(me, shop, unit_champion, unit_star, champion_cost, cost, level, keep, three_stars):
    """The reroll strategy: stop at ``level`` and slow-roll above ``keep`` gold for 3-star ``cost``-cost units.

    Once ``three_stars`` such 3-stars are held (or from stage 6), levels on the standard curve
    (:func:`curve_level`) again.
    """
    gold = me[GOLD]
    cost = np.int64(cost)
    held = 0
    for u in range(me[UNITS]):
        if unit_star[u] == 3 and champion_cost[unit_champion[u]] == cost:
            held += 1
    done = held >= three_stars or me[STAGE] >= 6
    target = curve_level(me) if done else min(np.int64(level), curve_level(me))
    if me[LEVEL] < target and can_buy_xp(me):
        return buy_xp()
    best_slot, best_score = -1, -1
    for slot in range(me[SHOP_SIZE]):
        champion = shop[slot]
        if champion < 0:
            continue
        owned = copies_owned(champion, me, unit_champion, unit_star)
        if owned >= 9 or (champion_cost[champion] != cost and owned == 0):
            continue
        if can_buy(slot, me):
            score = owned * 10 + (5 if champion_cost[champion] == cost else 0)
            if score > best_score:
                best_slot, best_score = slot, score
        elif champion_cost[champion] <= gold:
            answer = room_for(champion, me, shop, unit_champion, unit_star, champion_cost, cost)
            if answer != 0:
                return answer
    if best_slot >= 0:
        return buy(best_slot)
    if me[UNITS] < me[BOARD_SIZE]:
        choice = buy_best(me, shop, unit_champion, unit_star, champion_cost, gold - keep // 2)
        if choice != 0:
            return choice
    if me[LEVEL] >= target and gold >= keep + me[REROLL_PRICE] and can_reroll(me) and me[ROLLS] < 20:
        return reroll()
    return end_turn()


# --------------------------------------------------------------------------
# loading
