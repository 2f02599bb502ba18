"""Roll odds simulated through the game's own shop, and the three answers side by side."""

from __future__ import annotations

import numpy as np
from numba import njit

from ..analysis.statistics import wilson_interval
from ..engine.dealers import DEFAULT_DEALER, dealer_named
from ..engine.rng import LABEL_SEAT, LABEL_TRIAL, derive_seed_kernel
from ..errors import UsageError
from ..game.actions import ACTION_BUY, ACTION_REROLL
from ..game.legality import apply_action
from ..game.state import new_table
from .odds import (
    CHUNK_TRIALS,
    DEFAULT_TRIALS,
    MAX_TRIALS,
    RollQuestion,
    RollSituation,
    chain_odds,
    game_odds,
    resolve,
)

__all__ = ["simulate_rolls", "simulate_odds", "roll_odds"]

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
    :func:`autodup.game.legality.apply_action` and buys every copy shown until it has
    ``looked_for``. Gold is handed out per action: rolls are what the question
    pays for, purchases are free.

    Parameters
    ----------
    rules : autodup.game.rules.Rules
    dealer : int
        The dealer's engine code.
    seed : uint64
        The seed tree's root; trial ``t`` is ``derive_seed(seed, LABEL_TRIAL, first_trial + t)``.
    table : autodup.game.state.Table
        A table of ``rules`` (:func:`autodup.game.state.new_table`), reset by each trial.
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
                  seed: int = 0, advance=None) -> np.ndarray:
    """Play the situation ``trials`` times through the game's shop (see :func:`simulate_rolls`);
    ``advance(n)``, if given, is told of every ``n`` trials played (a progress bar).

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
    pool[s.champion] -= s.question.copies_out + s.question.owned
    _take_other_units(config, pool, s.tier, s.champion, s.question.cost_out)
    counts = np.zeros(s.looked_for + 1, dtype=np.int64)
    table, seat_seeds = new_table(rules), np.zeros(rules.players, dtype=np.uint64)
    # In chunks, so that Ctrl-C stops a long simulation between two (trials are addressed, so the chunking
    # changes nothing).
    for first in range(0, int(trials), CHUNK_TRIALS):
        chunk = min(CHUNK_TRIALS, int(trials) - first)
        simulate_rolls(rules, code, table, seat_seeds, np.uint64(seed), first, chunk,
                       s.champion, pool, s.question.level, s.roll_level, s.other_shops, s.rolls, counts)
        if advance is not None:
            advance(chunk)
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




def roll_odds(config, question: RollQuestion, trials: int = DEFAULT_TRIALS, dealer: str = DEFAULT_DEALER,
              seed: int = 0, holding: bool | None = None, other_shops: int | None = None, advance=None) -> dict:
    """Answer ``question`` three ways: the chain, the game's exact law and the simulation (``trials`` > 0;
    ``advance`` as for :func:`simulate_odds`).

    Returns
    -------
    dict
        ``{"exact": {"p_exactly", "p_at_least"}, "game": {...} or None,
        "simulated": {"p_exactly", "p_at_least", "ci"} or None, "trials", "situation": {...},
        "largest_difference": {...}}``; lists are indexed by the copies found ``k``.
    """
    if not 0 <= trials <= MAX_TRIALS:
        raise UsageError(f"{trials} is out of range (allowed: 0 to {MAX_TRIALS:,}; 0 skips the "
                         "simulation)", "trials")
    dealer_named(dealer)
    s = resolve(config, question, holding, other_shops)
    chain = chain_odds(s)
    result = {"exact": {"p_exactly": [float(x) for x in chain], "p_at_least": _at_least(chain)}}
    game = game_odds(s)
    result["game"] = None if game is None else {"p_exactly": [float(x) for x in game], "p_at_least": _at_least(game)}
    result["simulated"] = None
    if trials:
        counts = simulate_odds(s, trials, dealer, seed, advance)
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
            "shop_size": s.shop_size, "copies_out": q.copies_out, "cost_out": q.cost_out, "owned": q.owned,
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
