"""Roll odds: the chances of finding ``k`` copies of a champion by rolling, for any configuration.

Three answers, side by side:

* **the chain** (:func:`chain_odds`): the Markov chain of the public roll
  calculators. Every shop slot is an independent trial that hits with
  probability ``p = odds(level, cost) x (copies left) / (units of that cost
  left)``, and every hit is bought at once, so the next slot sees one copy
  fewer. It knows nothing of shops that hold units.
* **the game, exact** (:func:`game_odds`): the exact law of this
  configuration's shop. A shop's slots are dealt together from the pool as it
  stands, and the hits are bought after. When shown units leave the pool
  (``shop.units_leave_pool``, "holding"), a slot also sees one unit fewer for
  every unit shown before it in the same shop, and the other seats' shops hold
  units of their own: the law of what they hold is computed first, and the
  roll chain is mixed over it.
* **simulated** (:func:`simulate_odds`): the same question played through the
  game's own code (:func:`autodup.game.apply_action` rerolls and buys on a
  real table): tier race then champion race, the chosen dealer, the other
  seats' shops. Trial ``t`` seats its players with the seeds of
  ``derive_seed(seed, LABEL_TRIAL, t)`` in the seed tree.

Gold buys rolls at the configuration's reroll price (5 slots per 2 gold in
Set 4); purchases are not paid from it, as in the public calculators. With
``buy_xp``, XP is bought first until the next level, and the rest rolls there.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import njit

from .config import COPIES_FOR_TOP_STAR
from .dealers import DEFAULT_DEALER, dealer_named
from .game import ACTION_BUY, ACTION_REROLL, _tier_weights, apply_action, new_table, rules_of
from .rng import LABEL_SEAT, LABEL_TRIAL, KEY_ROLLS_PER_ROUND, derive_seed_kernel

DEFAULT_TRIALS = 100_000
MAX_TRIALS = 10**8
MAX_ROLLS = KEY_ROLLS_PER_ROUND - 1  # the keyed dealer addresses a seat's shops of a round by roll (0: the others')
CONFIDENCE = 0.95
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
    out : int
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
    out: int = 0
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
    rules : autodup.game.Rules
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
    raise ValueError(f"--champion: {name!r} is not a champion of {config.source} ({hint})")


def _tier_weight(rules, level: int, tier: int, tier_totals: np.ndarray) -> float:
    """The tier race's weight of ``tier`` at ``level`` while it has copies: the game's own rule
    (:func:`autodup.game._tier_weights`: the empty-tier rule, then normalized), from ``tier_totals``
    (float64 (T,), the copies of each tier)."""
    totals = tier_totals.copy()
    totals[tier] = max(totals[tier], 1.0)
    weights = np.zeros(totals.shape[0])
    _tier_weights(rules, level, totals, False, totals, weights)
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
    config : autodup.config.GameConfig
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
        raise ValueError(f"--level: {q.level} is out of range (allowed: 1 to {config.max_level} in {source})")
    champion = champion_index(config, q.champion)
    name = config.champion_names[champion]
    tier = int(config.champion_tier[champion])
    copies = int(config.champion_copies[champion])
    tier_totals = np.array([config.champion_copies[config.tier_start[t]:config.tier_start[t + 1]].sum()
                            for t in range(config.n_tiers)], dtype=np.float64)
    tier_total = int(tier_totals[tier])
    for option, value in (("--out", q.out), ("--cost-out", q.cost_out), ("--owned", q.owned), ("--xp", q.xp),
                          ("--gold", q.gold or 0)):
        if value < 0:
            raise ValueError(f"{option}: {value} is negative (allowed: 0 or more)")
    if q.owned >= COPIES_FOR_TOP_STAR:
        raise ValueError(f"--owned: {q.owned} copies of {name} already make a 3-star (allowed: 0 to "
                         f"{COPIES_FOR_TOP_STAR - 1})")
    if q.out + q.owned > copies:
        raise ValueError(f"--out {q.out} and --owned {q.owned}: {name} has {copies} copies in {source} (allowed: "
                         f"at most {copies} together)")
    if q.cost_out > tier_total - copies:
        raise ValueError(f"--cost-out: {q.cost_out} other {config.tier_cost[tier]}-cost units out, but {source} has "
                         f"{tier_total - copies} besides {name} (allowed: 0 to {tier_total - copies})")
    if (q.gold is None) == (q.rolls is None):
        raise ValueError("--gold or --rolls: give exactly one (the gold to spend, or the number of rolls)")
    price = int(config.reroll_price)
    roll_level = q.level
    xp_gold = 0
    if q.buy_xp:
        if q.gold is None:
            raise ValueError("--buy-xp: needs --gold (the XP is bought from it; allowed: --gold G --buy-xp)")
        if q.level >= config.max_level:
            raise ValueError(f"--buy-xp: level {q.level} is the last level of {source} (allowed: levels 1 to "
                             f"{config.max_level - 1})")
        needed = int(config.level_xp[q.level + 1])
        if q.xp >= needed:
            raise ValueError(f"--xp: {q.xp} XP would already make level {q.level + 1} (allowed: 0 to {needed - 1})")
        xp_gold = _xp_gold(config, q)
        if xp_gold > q.gold:
            raise ValueError(f"--buy-xp: level {q.level + 1} costs {xp_gold} gold of XP from {q.xp} XP, more than "
                             f"--gold {q.gold} (allowed: --gold {xp_gold} or more)")
        roll_level = q.level + 1
    elif q.xp:
        raise ValueError("--xp: only counts with --buy-xp (allowed: --xp X --buy-xp)")
    rolls = (q.gold - xp_gold) // price if q.gold is not None else q.rolls
    if not 0 <= rolls <= MAX_ROLLS:
        what = f"--gold {q.gold} buys {rolls} rolls" if q.gold is not None else f"--rolls: {rolls}"
        raise ValueError(f"{what} (allowed: 0 to {MAX_ROLLS:,} rolls, {MAX_ROLLS * price:,} gold in {source})")
    players = int(config.players)
    if other_shops is None:
        other_shops = players - 1
    if not 0 <= other_shops <= players - 1:
        raise ValueError(f"--other-shops: {other_shops} is out of range (allowed: 0 to {players - 1}, the other "
                         f"seats of {source})")
    holding = bool(config.units_leave_pool) if holding is None else bool(holding)
    rules = rules_of(config)._replace(units_leave_pool=holding)
    copies_left = copies - q.out - q.owned
    units_left = tier_total - q.out - q.owned - q.cost_out
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


@njit(cache=True)
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


@njit(cache=True)
def roll_chain(copies_left, units_left, rolls, shop_size, weight, looked_for, holding):
    """The game's law of the copies bought after ``rolls`` shops: P(exactly k), k = 0 .. ``looked_for``.

    A shop's slots are dealt together: without holding, each from the pool as
    the shop found it (independent given it); with holding, each slot sees
    the units shown before it in the shop out of the pool. The hits are bought
    after the shop, up to ``looked_for`` in all (and, without holding, up to
    the copies still in the pool, as :func:`autodup.game.legal_buy` requires).

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
# --------------------------------------------------------------------------


# Without the Numba runtime, like the game's kernels: with it, every inlined call that takes the table
# would count references to each of its arrays (measured: the simulation ran 1.4-1.6x slower).
@njit(cache=True, _nrt=False)
def simulate_rolls(rules, dealer, table, seat_seeds, seed, first_trial, trials, champion, pool, level, roll_level,
                   other_shops, rolls, counts):
    """Play ``trials`` roll sequences on a real table; count the copies of ``champion`` each one bought.

    Each trial resets the table: the pool (``pool``, the copies out already
    taken), every seat's dealer state and the player's units. Seats
    ``1 .. other_shops`` (at ``level``) are dealt a shop each, which they hold;
    then seat 0 (at ``roll_level``) rerolls ``rolls`` times through
    :func:`autodup.game.apply_action` and buys every copy shown until it has
    ``looked_for``. Gold is handed out per action: rolls are what the question
    pays for, purchases are free.

    Parameters
    ----------
    rules : autodup.game.Rules
    dealer : int
        The dealer's engine code.
    seed : uint64
        The seed tree's root; trial ``t`` is ``derive_seed(seed, LABEL_TRIAL, first_trial + t)``.
    table : autodup.game.Table
        A table of ``rules`` (:func:`autodup.game.new_table`), reset by each trial.
    seat_seeds : uint64 (players,)
        Working space for the trial's seat seeds.
    first_trial, trials : int
    champion : int
    pool : float64 (N,)
        The pool before any shop is dealt.
    level, roll_level, other_shops, rolls : int
    counts : int64 (looked_for + 1,)
        Trials by copies bought, added to.
    """
    looked_for = counts.shape[0] - 1
    cost = rules.tier_cost[rules.champion_tier[champion]]
    for trial in range(trials):
        trial_seed = derive_seed_kernel(seed, LABEL_TRIAL, np.uint64(first_trial + trial))
        for seat in range(rules.players):
            seat_seeds[seat] = derive_seed_kernel(trial_seed, LABEL_SEAT, np.uint64(seat))
        for c in range(pool.shape[0]):
            table.pool[c] = pool[c]
        table.shops[:, :] = -1
        table.counters[:, :] = 0
        table.needles[:, :, :] = 0.0
        table.needle_count[:, :] = 0
        table.n_units[0] = 0
        for seat in range(1, other_shops + 1):
            table.level[seat] = level
            table.gold[seat] = rules.reroll_price
            apply_action(rules, dealer, table, seat, 0, 0, seat_seeds, ACTION_REROLL, 0)
        table.level[0] = roll_level
        found = 0
        for roll in range(1, rolls + 1):
            table.gold[0] = rules.reroll_price
            apply_action(rules, dealer, table, 0, 0, roll, seat_seeds, ACTION_REROLL, 0)
            for slot in range(rules.shop_size):
                if found < looked_for and table.shops[0, slot] == champion:
                    table.gold[0] = cost
                    if apply_action(rules, dealer, table, 0, 0, roll, seat_seeds, ACTION_BUY, slot):
                        found += 1
        counts[found] += 1


def simulate_odds(situation: RollSituation, trials: int = DEFAULT_TRIALS, dealer: str = DEFAULT_DEALER,
                  seed: int = 0) -> np.ndarray:
    """Play the situation ``trials`` times through the game's shop (see :func:`simulate_rolls`).

    Returns
    -------
    int64 (looked_for + 1,)
        Trials by copies found.
    """
    s = situation
    config = s.config
    rules = s.rules
    code = dealer_named(dealer).code
    pool = config.champion_copies.astype(np.float64)
    pool[s.champion] -= s.question.out + s.question.owned
    _take_other_units(config, pool, s.tier, s.champion, s.question.cost_out)
    counts = np.zeros(s.looked_for + 1, dtype=np.int64)
    table, seat_seeds = new_table(rules), np.zeros(rules.players, dtype=np.uint64)
    # In chunks, so that Ctrl-C stops a long simulation between two (trials are addressed, so the chunking
    # changes nothing).
    for first in range(0, int(trials), CHUNK_TRIALS):
        simulate_rolls(rules, code, table, seat_seeds, np.uint64(seed), first, min(CHUNK_TRIALS, int(trials) - first),
                       s.champion, pool, s.question.level, s.roll_level, s.other_shops, s.rolls, counts)
    return counts


def _take_other_units(config, pool: np.ndarray, tier: int, champion: int, count: int) -> None:
    """Take ``count`` units of ``tier`` other than ``champion`` out of ``pool``, spread as evenly as they go.

    Where they come from does not change the champion's odds (only the tier's
    total does), so the spread is fixed rather than drawn.
    """
    others = [c for c in range(config.tier_start[tier], config.tier_start[tier + 1]) if c != champion]
    while count > 0:
        for c in sorted(others, key=lambda c: -pool[c]):
            if count == 0 or pool[c] <= 0:
                break
            pool[c] -= 1.0
            count -= 1


# --------------------------------------------------------------------------
# the three side by side
# --------------------------------------------------------------------------


def _at_least(p_exactly) -> list:
    """P(at least k) from P(exactly k), summed from the top so that small tails keep their digits."""
    return [float(x) for x in np.cumsum(np.asarray(p_exactly, dtype=np.float64)[::-1])[::-1]]


def wilson_interval(successes: int, trials: int, confidence: float = CONFIDENCE) -> tuple:
    """The Wilson score interval of a proportion (scipy's ``binomtest(...).proportion_ci``)."""
    from scipy.stats import binomtest

    interval = binomtest(int(successes), int(trials)).proportion_ci(confidence, method="wilson")
    return float(interval.low), float(interval.high)


def roll_odds(config, question: RollQuestion, trials: int = DEFAULT_TRIALS, dealer: str = DEFAULT_DEALER,
              seed: int = 0, holding: bool | None = None, other_shops: int | None = None) -> dict:
    """Answer ``question`` three ways: the chain, the game's exact law and the simulation (``trials`` > 0).

    Returns
    -------
    dict
        ``{"exact": {"p_exactly", "p_at_least"}, "game": {...} or None,
        "simulated": {"p_exactly", "p_at_least", "ci"} or None, "trials", "situation": {...},
        "largest_difference": {...}}``; lists are indexed by the copies found ``k``.
    """
    if not 0 <= trials <= MAX_TRIALS:
        raise ValueError(f"--trials: {trials} is out of range (allowed: 0 to {MAX_TRIALS:,}; 0 skips the "
                         "simulation)")
    dealer_named(dealer)
    s = resolve(config, question, holding, other_shops)
    chain = chain_odds(s)
    result = {"exact": {"p_exactly": [float(x) for x in chain], "p_at_least": _at_least(chain)}}
    game = game_odds(s)
    result["game"] = None if game is None else {"p_exactly": [float(x) for x in game], "p_at_least": _at_least(game)}
    result["simulated"] = None
    if trials:
        counts = simulate_odds(s, trials, dealer, seed)
        at_least = np.cumsum(counts[::-1])[::-1]
        result["simulated"] = {
            "p_exactly": [float(x) for x in counts / trials], "p_at_least": [float(x) for x in at_least / trials],
            "ci": [list(wilson_interval(c, trials)) for c in at_least], "counts": [int(x) for x in counts]}
    result["trials"] = int(trials)
    result["dealer"] = dealer
    result["seed"] = int(seed)
    result["situation"] = _describe_situation(s)
    result["largest_difference"] = _largest_difference(result)
    return result


def _describe_situation(s: RollSituation) -> dict:
    q = s.question
    return {"config": s.config.name, "source": s.config.source, "champion": s.name, "cost": s.cost,
            "level": q.level, "roll_level": s.roll_level, "gold": q.gold, "xp_gold": s.xp_gold, "rolls": s.rolls,
            "shop_size": s.shop_size, "out": q.out, "cost_out": q.cost_out, "owned": q.owned,
            "copies_left": s.copies_left, "units_left": s.units_left, "looked_for": s.looked_for,
            "tier_odds": s.hit_weight, "holding": s.holding, "other_shops": s.other_shops,
            "held_by_other_shops": s.other_shops * s.shop_size if s.holding else 0}


def _largest_difference(result: dict) -> dict | None:
    """Where P(at least k) of the game (exact, else simulated) is furthest from the chain's."""
    other = result["game"] or result["simulated"]
    if other is None:
        return None
    chain = result["exact"]["p_at_least"]
    k = int(np.argmax([abs(a - b) for a, b in zip(other["p_at_least"], chain)]))
    return {"k": k, "chain": chain[k], "game": other["p_at_least"][k],
            "difference": other["p_at_least"][k] - chain[k], "source": "game" if result["game"] else "simulated"}


# --------------------------------------------------------------------------
# output: a table and a plot
# --------------------------------------------------------------------------


def _star_note(owned: int, k: int) -> str:
    total = owned + k
    return " (3-star)" if total == COPIES_FOR_TOP_STAR else " (2-star)" if total == 3 else ""


def format_odds(result: dict) -> str:
    """The terminal table: one row per number of copies found, the three methods side by side."""
    s = result["situation"]
    if s["gold"] is not None:
        spent = f"{s['gold']} gold" + (f" ({s['xp_gold']} on XP to level {s['roll_level']})" if s["xp_gold"] else "")
        spent += f" = {s['rolls']} rolls"
    else:
        spent = f"{s['rolls']} rolls"
    lines = [
        f"{s['config']}: {s['champion']} ({s['cost']}-cost) at level {s['roll_level']} "
        f"({s['tier_odds']:.0%} {s['cost']}-cost odds), {spent} of {s['shop_size']} slots",
        f"  pool: {s['copies_left']} copies left ({s['out']} out, {s['owned']} owned), {s['units_left']} "
        f"{s['cost']}-cost units left ({s['cost_out']} others out); looking for up to {s['looked_for']}",
    ]
    sim = result["simulated"]
    game = result["game"]
    header = f"{'found':>5} {'have':>12}  {'chain':>8} {'game':>8}"
    if sim:
        header += f" {'simulated':>9}  {'95% CI':<17}"
    lines.append(header + "   P(=k): chain" + (" / simulated" if sim else ""))
    chain = result["exact"]
    for k in range(len(chain["p_exactly"])):
        have = f"{s['owned'] + k}{_star_note(s['owned'], k)}"
        row = f"{k:>5} {have:>12}  {chain['p_at_least'][k]:>8.4f} "
        row += f"{game['p_at_least'][k]:>8.4f}" if game else f"{'n/a':>8}"
        if sim:
            lo, hi = sim["ci"][k]
            row += f" {sim['p_at_least'][k]:>9.4f}  [{lo:.4f}, {hi:.4f}]"
        row += f"   = {chain['p_exactly'][k]:.4f}"
        if sim:
            row += f" / {sim['p_exactly'][k]:.4f}"
        lines.append(row)
    if sim:
        lines.append("columns: P(at least k) by the public calculators' chain, by the game's exact law, and simulated "
                     f"({result['trials']:,} trials, dealer {result['dealer']}); then P(exactly k): chain / simulated")
    else:
        lines.append("columns: P(at least k) by the public calculators' chain and by the game's exact law; then "
                     "P(exactly k) by the chain")
    if s["holding"]:
        held = (f"the {s['other_shops']} other seats' shops hold {s['held_by_other_shops']} units"
                if s["other_shops"] else "no other seat holds a shop")
        lines.append(f"holding: units shown stay out of the pool until the shop changes, and {held}; the chain "
                     "counts neither")
    else:
        lines.append("holding: off (shown units stay in the pool; a shop's slots are dealt from the same pool)")
    d = result["largest_difference"]
    if d:
        lines.append(f"largest difference from the chain: P(at least {d['k']}) {d['game']:.4f} ({d['source']}) "
                     f"against {d['chain']:.4f} ({d['difference']:+.4f})")
    if game is None:
        lines.append("game: n/a (a tier other than the champion's could run out while the shops hold units)")
    return "\n".join(lines)


def odds_figure(result: dict):
    """A bar chart of P(at least k), k = 1 .., by the three methods (the simulation with its 95% CIs)."""
    from .report import new_figure

    s = result["situation"]
    figure, (axis,) = new_figure(7, 3.8)
    ks = np.arange(1, len(result["exact"]["p_at_least"]))
    methods = [("chain", result["exact"], None), ("game, exact", result["game"], None)]
    if result["simulated"]:
        sim = result["simulated"]
        errors = np.array([[p - lo, hi - p] for p, (lo, hi) in zip(sim["p_at_least"], sim["ci"])])[1:].T
        methods.append((f"simulated ({result['trials']:,})", sim, errors))
    methods = [m for m in methods if m[1] is not None]
    width = 0.8 / len(methods)
    for i, (label, values, errors) in enumerate(methods):
        axis.bar(ks + (i - (len(methods) - 1) / 2) * width, values["p_at_least"][1:], width, label=label,
                 yerr=errors, capsize=2 if errors is not None else 0)
    axis.set_xticks(ks, [f"{k}\n({s['owned'] + k})" for k in ks])
    axis.set(xlabel="copies found (copies held)", ylabel="P(at least k)", ylim=(0, 1.05),
             title=f"{s['champion']} at level {s['roll_level']}, {s['rolls']} rolls ({s['config']})")
    axis.grid(axis="y", alpha=0.3)
    axis.legend(fontsize="small")
    return figure


def check_plot_path(path) -> Path:
    """``path`` as a Path if a PNG can be written there; ``ValueError`` (one line) otherwise."""
    path = Path(path)
    if path.suffix.lower() != ".png":
        raise ValueError(f"--plot: {str(path)!r} is not a .png file (allowed: a path ending in .png)")
    if not path.parent.is_dir():
        raise ValueError(f"--plot: the folder {str(path.parent)!r} does not exist (allowed: a file in an existing "
                         "folder)")
    return path


def write_odds_plot(result: dict, path) -> Path:
    """Write :func:`odds_figure` as a PNG at ``path`` (atomically); returns the path."""
    from .report import write_atomically, rendered_png

    path = check_plot_path(path)
    write_atomically(path, rendered_png(odds_figure, result))
    return path
