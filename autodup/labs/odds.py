"""Roll odds: the question, checked against the configuration; the public calculators' chain; the game's exact law."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

import numpy as np
from numba import njit

from ..arguments import integer
from ..engine.rng import KEY_ROLLS_PER_ROUND
from ..errors import UsageError
from ..game.config_file import COPIES_FOR_TOP_STAR
from ..game.rules import rules_of
from ..game.shop import tier_weights

__all__ = ["DEFAULT_TRIALS", "MAX_TRIALS", "MAX_ROLLS", "CHUNK_TRIALS", "RollQuestion", "RollSituation",
           "champion_index", "resolve", "chain_odds", "held_by_other_shops", "roll_chain", "game_odds"]

DEFAULT_TRIALS = 100_000
MAX_TRIALS = 10**8
MAX_ROLLS = KEY_ROLLS_PER_ROUND - 1  # the keyed dealer addresses a seat's shops of a round by roll (0: the others')
CHUNK_TRIALS = 10_000  # trials per call of the jitted simulation (Ctrl-C is heard between calls)


@dataclass(frozen=True)
class RollQuestion:
    """What a player asks: "with this much gold at this level, how many copies of X will I find?"

    Attributes
    ----------
    level : int
        The level the player is at.
    champion : str
        The champion's name (as the configuration spells it; case does not matter).
    copies_out : int
        Copies of it out of the pool, held by other players.
    cost_out : int
        Other units of its cost out of the pool.
    gold, rolls : int or None
        Exactly one: the gold to spend (rolls = gold // reroll price, after any
        XP), or the number of rolls.
    owned : int
        Copies the player already owns (out of the pool too): the most it looks
        for is the rest of a 3-star.
    buy_xp : bool
        Buy XP to the next level first (needs ``gold``), and roll there.
    xp : int
        XP the player already has toward the next level (with ``buy_xp``).
    """

    level: int
    champion: str
    copies_out: int = 0
    cost_out: int = 0
    gold: int | None = None
    rolls: int | None = None
    owned: int = 0
    buy_xp: bool = False
    xp: int = 0


@dataclass(frozen=True)
class RollSituation:
    """A :class:`RollQuestion` resolved against a configuration: what the three methods compute from.

    Attributes
    ----------
    rules : autodup.game.rules.Rules
        The game's rules, with ``units_leave_pool`` set to ``holding``.
    champion : int
        The champion's index in the configuration.
    tier : int
        Its tier.
    roll_level : int
        The level the rolls are made at (``level + 1`` with ``buy_xp``).
    xp_gold : int
        Gold spent on XP first.
    rolls : int
        Shops rolled.
    copies_left, units_left : int
        Copies of the champion, and units of its tier, in the pool before rolling.
    looked_for : int
        The most copies the player buys: the rest of a 3-star, or what is left.
    hit_weight, others_hit_weight : float
        The tier race's weight of the champion's tier at the roll level, and at
        the other seats' level (``level``), while the tier has copies.
    holding : bool
        Units shown in a shop are out of the pool until it changes.
    other_shops : int
        Other seats whose shops are dealt first and held while the player rolls.
    game_exact : bool
        Whether the game's exact law can be computed (no other tier can run out).
    """

    config: object
    rules: object
    question: RollQuestion
    champion: int
    tier: int
    roll_level: int
    xp_gold: int
    rolls: int
    copies_left: int
    units_left: int
    looked_for: int
    hit_weight: float
    others_hit_weight: float
    holding: bool
    other_shops: int
    game_exact: bool

    @property
    def name(self) -> str:
        return self.config.champion_names[self.champion]

    @property
    def cost(self) -> int:
        return int(self.config.tier_cost[self.tier])

    @property
    def shop_size(self) -> int:
        return int(self.config.shop_size)


# --------------------------------------------------------------------------
# the question, checked against the configuration
# --------------------------------------------------------------------------


def champion_index(config, name: str) -> int:
    """The index of champion ``name`` (case-insensitive); ``ValueError`` naming close spellings otherwise."""
    names = list(config.champion_names)
    for index, known in enumerate(names):
        if known == name:
            return index
    folded = [known.casefold() for known in names]
    if str(name).casefold() in folded:
        return folded.index(str(name).casefold())
    close = difflib.get_close_matches(str(name), names, n=3, cutoff=0.6)
    hint = f"did you mean {' or '.join(close)}?" if close else f"allowed: one of its {len(names)} champions"
    raise UsageError(f"{name!r} is not a champion of {config.source} ({hint})", "champion")


def _tier_weight(rules, level: int, tier: int, tier_totals: np.ndarray) -> float:
    """The tier race's weight of ``tier`` at ``level`` while it has copies: the game's own rule
    (:func:`autodup.game.shop.tier_weights`: the empty-tier rule, then normalized), from ``tier_totals``
    (float64 (T,), the copies of each tier)."""
    totals = tier_totals.copy()
    totals[tier] = max(totals[tier], 1.0)
    weights = np.zeros(totals.shape[0])
    tier_weights(rules, level, totals, False, totals, weights)
    return float(weights[tier])


def _xp_gold(config, question: RollQuestion) -> int:
    """Gold to buy XP from ``question.xp`` at ``question.level`` to the next level."""
    needed = int(config.level_xp[question.level + 1]) - question.xp
    return -(-needed // int(config.xp_amount)) * int(config.xp_price)


def resolve(config, question: RollQuestion, holding: bool | None = None, other_shops: int | None = None
            ) -> RollSituation:
    """Check ``question`` against ``config`` and compute what the three methods need.

    Parameters
    ----------
    config : autodup.game.config.GameConfig
    question : RollQuestion
    holding : bool, optional
        Whether units shown in a shop leave the pool; default: the configuration's
        ``shop.units_leave_pool``.
    other_shops : int, optional
        Other seats holding a shop while the player rolls (with holding), from 0
        to ``players - 1``; default: every other seat.

    Raises
    ------
    ValueError
        One line naming the option, what is wrong and what is allowed.
    """
    q = question
    source = config.source
    if not 1 <= q.level <= config.max_level:
        raise UsageError(f"{q.level} is out of range (allowed: 1 to {config.max_level} in {source})", "level")
    champion = champion_index(config, q.champion)
    name = config.champion_names[champion]
    tier = int(config.champion_tier[champion])
    copies = int(config.champion_copies[champion])
    tier_totals = np.array([config.champion_copies[config.tier_start[t]:config.tier_start[t + 1]].sum()
                            for t in range(config.n_tiers)], dtype=np.float64)
    tier_total = int(tier_totals[tier])
    for option, value in (("copies_out", q.copies_out), ("cost_out", q.cost_out), ("owned", q.owned), ("xp", q.xp),
                          ("gold", q.gold or 0), ("rolls", q.rolls or 0)):
        integer(option, value, 0)
    if q.owned >= COPIES_FOR_TOP_STAR:
        raise UsageError(f"{q.owned} copies of {name} already make a 3-star (allowed: 0 to "
                         f"{COPIES_FOR_TOP_STAR - 1})", "owned")
    if q.copies_out + q.owned > copies:
        raise UsageError(f"{q.copies_out} copies out and {q.owned} owned: {name} has {copies} copies in {source} "
                         f"(allowed: copies out and owned at most {copies} together)",
                         "owned" if q.owned else "copies_out")
    if q.cost_out > tier_total - copies:
        raise UsageError(f"{q.cost_out} other {config.tier_cost[tier]}-cost units out, but {source} has "
                         f"{tier_total - copies} besides {name} (allowed: 0 to {tier_total - copies})", "cost_out")
    if (q.gold is None) == (q.rolls is None):
        raise UsageError("give exactly one of gold and rolls (the gold to spend, or the number of rolls)", "gold")
    price = int(config.reroll_price)
    roll_level = q.level
    xp_gold = 0
    if q.buy_xp:
        if q.gold is None:
            raise UsageError("needs gold (the XP is bought from it; allowed: gold and buy_xp together)", "buy_xp")
        if q.level >= config.max_level:
            raise UsageError(f"level {q.level} is the last level of {source} (allowed: levels 1 to "
                             f"{config.max_level - 1})", "buy_xp")
        needed = int(config.level_xp[q.level + 1])
        if q.xp >= needed:
            raise UsageError(f"{q.xp} XP would already make level {q.level + 1} (allowed: 0 to {needed - 1})", "xp")
        xp_gold = _xp_gold(config, q)
        if xp_gold > q.gold:
            raise UsageError(f"level {q.level + 1} costs {xp_gold} gold of XP from {q.xp} XP, more than "
                             f"gold {q.gold} (allowed: gold {xp_gold} or more)", "buy_xp")
        roll_level = q.level + 1
    elif q.xp:
        raise UsageError("only counts when XP is bought first (allowed: xp with buy_xp, --buy-xp on the command "
                         "line)", "xp")
    rolls = (q.gold - xp_gold) // price if q.gold is not None else q.rolls
    if not 0 <= rolls <= MAX_ROLLS:
        what = f"{q.gold} buys {rolls} rolls" if q.gold is not None else f"{rolls}"
        raise UsageError(f"{what} (allowed: 0 to {MAX_ROLLS:,} rolls, {MAX_ROLLS * price:,} gold in {source})",
                         "gold" if q.gold is not None else "rolls")
    players = int(config.players)
    if other_shops is None:
        other_shops = players - 1
    if not 0 <= other_shops <= players - 1:
        raise UsageError(f"{other_shops} is out of range (allowed: 0 to {players - 1}, the other "
                         f"seats of {source})", "other_shops")
    holding = bool(config.units_leave_pool) if holding is None else bool(holding)
    rules = rules_of(config)._replace(units_leave_pool=holding)
    copies_left = copies - q.copies_out - q.owned
    units_left = tier_total - q.copies_out - q.owned - q.cost_out
    # The exact law keeps every other tier's place in the tier race: true when no tier can run out while the
    # shops hold units (the player's shop and the others'), and always without holding.
    most_held = (other_shops + 1) * config.shop_size if holding else 0
    game_exact = all(total == 0 or total >= most_held for t, total in enumerate(tier_totals) if t != tier)
    return RollSituation(
        config=config, rules=rules, question=q, champion=champion, tier=tier, roll_level=roll_level, xp_gold=xp_gold,
        rolls=int(rolls), copies_left=copies_left, units_left=units_left,
        looked_for=min(COPIES_FOR_TOP_STAR - q.owned, copies_left),
        hit_weight=_tier_weight(rules, roll_level, tier, tier_totals),
        others_hit_weight=_tier_weight(rules, q.level, tier, tier_totals),
        holding=holding, other_shops=int(other_shops), game_exact=game_exact)


# --------------------------------------------------------------------------
# exact: the public calculators' chain
# --------------------------------------------------------------------------


def chain_odds(situation: RollSituation) -> np.ndarray:
    """The public calculators' chain: P(exactly k copies found), k = 0 .. ``looked_for``.

    Every slot hits with ``p_k = w (x - k) / (u - k)`` after ``k`` hits (``w``
    the tier's weight at the roll level, ``x`` copies and ``u`` units of the
    tier left), each hit bought at once; the chain stops at ``looked_for``.

    Returns
    -------
    float64 (looked_for + 1,)
    """
    s = situation
    n = s.looked_for + 1
    transition = np.zeros((n, n))
    for k in range(n):
        left, units = s.copies_left - k, s.units_left - k
        p = s.hit_weight * left / units if k < s.looked_for and units > 0 else 0.0
        transition[k, k] = 1.0 - p
        if p > 0:
            transition[k, k + 1] = p
    return np.linalg.matrix_power(transition, s.rolls * s.shop_size)[0]


# --------------------------------------------------------------------------
# exact: the game's own law
# --------------------------------------------------------------------------


@njit(cache=True, no_cfunc_wrapper=True)
def held_by_other_shops(copies_left, units_left, slots, weight):
    """The law of what ``slots`` shop slots dealt one after the other, each holding its unit, take from a tier.

    Parameters
    ----------
    copies_left, units_left : int
        Copies of the champion, and units of its tier, in the pool.
    slots : int
        Slots dealt (the other seats' shops).
    weight : float
        The tier's weight in the tier race while it has units.

    Returns
    -------
    float64 (min(copies_left, slots) + 1, min(units_left - copies_left, slots) + 1)
        ``[a, b]``: the probability that the slots hold ``a`` copies of the
        champion and ``b`` other units of its tier.
    """
    others = units_left - copies_left
    law = np.zeros((min(copies_left, slots) + 1, min(others, slots) + 1))
    law[0, 0] = 1.0
    after = np.zeros_like(law)
    for slot in range(slots):
        after[:, :] = 0.0
        for a in range(min(copies_left, slot) + 1):
            for b in range(min(others, slot - a) + 1):
                p = law[a, b]
                if p == 0.0:
                    continue
                units = units_left - a - b
                if units <= 0:
                    after[a, b] += p
                    continue
                hit = weight * (copies_left - a) / units
                miss = weight * (others - b) / units
                after[a, b] += p * (1.0 - hit - miss)
                if hit > 0.0:
                    after[a + 1, b] += p * hit
                if miss > 0.0:
                    after[a, b + 1] += p * miss
        law, after = after, law
    return law


@njit(cache=True, no_cfunc_wrapper=True)
def roll_chain(copies_left, units_left, rolls, shop_size, weight, looked_for, holding):
    """The game's law of the copies bought after ``rolls`` shops: P(exactly k), k = 0 .. ``looked_for``.

    A shop's slots are dealt together: without holding, each from the pool as
    the shop found it (independent given it); with holding, each slot sees
    the units shown before it in the shop out of the pool. The hits are bought
    after the shop, up to ``looked_for`` in all (and, without holding, up to
    the copies still in the pool, as :func:`autodup.game.legality.legal_buy` requires).

    Parameters
    ----------
    copies_left, units_left : int
        Copies of the champion, and units of its tier, in the pool when rolling starts.
    rolls, shop_size, looked_for : int
    weight : float
        The tier's weight in the tier race while it has units.
    holding : bool

    Returns
    -------
    float64 (looked_for + 1,)
    """
    bought = np.zeros(looked_for + 1)
    bought[0] = 1.0
    # Within a shop: [k, h, m] = k bought before it, h copies and m other units of the tier shown so far.
    shop = np.zeros((looked_for + 1, shop_size + 1, shop_size + 1))
    after = np.zeros_like(shop)
    for _ in range(rolls):
        shop[:, :, :] = 0.0
        for k in range(looked_for):
            shop[k, 0, 0] = bought[k]
        for slot in range(shop_size):
            after[:, :, :] = 0.0
            for k in range(looked_for):
                for h in range(slot + 1):
                    for m in range(slot - h + 1):
                        p = shop[k, h, m]
                        if p == 0.0:
                            continue
                        if holding:
                            copies = copies_left - k - h
                            units = units_left - k - h - m
                        else:
                            copies = copies_left - k
                            units = units_left - k
                        if units <= 0:
                            after[k, h, m] += p
                            continue
                        hit = weight * copies / units
                        miss = weight * (units - copies) / units if holding else 0.0
                        after[k, h, m] += p * (1.0 - hit - miss)
                        after[k, h + 1, m] += p * hit
                        if miss > 0.0:
                            after[k, h, m + 1] += p * miss
            shop, after = after, shop
        done = bought[looked_for]
        bought[:] = 0.0
        bought[looked_for] = done
        for k in range(looked_for):
            for h in range(shop_size + 1):
                for m in range(shop_size + 1 - h):
                    p = shop[k, h, m]
                    if p == 0.0:
                        continue
                    take = min(h, looked_for - k)
                    if not holding:
                        take = min(take, copies_left - k)
                    bought[k + take] += p
    return bought


def game_odds(situation: RollSituation) -> np.ndarray | None:
    """The exact law of the game's shop for ``situation``: P(exactly k copies bought), k = 0 .. ``looked_for``.

    With holding, the other seats' shops are dealt first (at the question's
    level) and held; the roll chain is mixed over the law of what they hold.
    ``None`` when the law cannot be computed exactly (``situation.game_exact``).

    Returns
    -------
    float64 (looked_for + 1,) or None
    """
    s = situation
    if not s.game_exact:
        return None
    held = np.ones((1, 1))
    if s.holding and s.other_shops:
        held = held_by_other_shops(s.copies_left, s.units_left, s.other_shops * s.shop_size, s.others_hit_weight)
    law = np.zeros(s.looked_for + 1)
    for a, b in zip(*np.nonzero(held)):
        copies, units = s.copies_left - int(a), s.units_left - int(a) - int(b)
        found = roll_chain(copies, units, s.rolls, s.shop_size, s.hit_weight, min(s.looked_for, copies), s.holding)
        law[:found.shape[0]] += held[a, b] * found
    return law


# --------------------------------------------------------------------------
# simulated: the game's own shop
