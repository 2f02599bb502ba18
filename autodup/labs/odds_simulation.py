"""Roll odds simulated through the game's own shop, and the three answers side by side."""

from __future__ import annotations

import queue
import threading
from concurrent.futures import ThreadPoolExecutor, as_completed

import numpy as np
from numba import njit

from ..analysis.statistics import wilson_interval
from ..arguments import workers
from ..engine.batches import haystack_create, haystack_race_ahead, haystack_races_in_lanes
from ..engine.dealers import DEFAULT_DEALER, dealer_named
from ..engine.kernels import (
    ENGINE_HAYSTACK,
    ENGINE_KEYED,
    ENGINE_REPLAY,
    engine_draw_watching_tier,
    haystack_race,
    positive_total,
)
from ..engine.rng import LABEL_SEAT, LABEL_TRIAL, derive_seed_kernel, shop_key
from ..errors import UsageError
from ..game.actions import ACTION_BUY, ACTION_REROLL
from ..game.legality import apply_action
from ..game.shop import fill_tier_totals, tier_weights
from ..game.state import fresh_table
from ..game.units import remove_unit
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

__all__ = ["SIMULATION_METHODS", "COMPILING_ODDS", "simulate_rolls", "simulate_watched_rolls", "simulation_method",
           "simulation_is_compiled", "simulate_odds", "roll_odds"]

# --------------------------------------------------------------------------


# The rolling seat's tier needles' values computed this many at a time: a tier wins up to about a hundred races
# in a trial, so little is computed in vain.
VALUES_AHEAD = 16
# Trials whose tier races run side by side (haystack_races_in_lanes): a few dozen lanes make the most of them.
LANE_TRIALS = 32


# Without the Numba runtime, like the game's kernels: with it, every inlined call that takes the table
# would count references to each of its arrays (measured: the simulation ran 1.4-1.6x slower).
@njit(cache=True, no_cfunc_wrapper=True, _nrt=False, nogil=True)
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
        A table of ``rules`` (:func:`autodup.game.state.fresh_table`), reset by each trial.
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
    # Typed, not literal, 0s: the game's shop is then the version the table compiled, not one of its own.
    player, first_round, free_refresh = np.int64(0), np.int64(0), np.int64(0)
    for trial in range(trials):
        trial_seed = derive_seed_kernel(seed, LABEL_TRIAL, np.uint64(first_trial + trial))
        for seat in range(rules.players):
            seat_seeds[seat] = derive_seed_kernel(trial_seed, LABEL_SEAT, np.uint64(seat))
        for c in range(pool.shape[0]):
            table.pool[c] = pool[c]
        fill_tier_totals(rules, table.pool, table.tier_totals)  # the table keeps them with its pool
        table.shops[:, :] = -1
        table.counters[:, :] = 0
        table.needles[:, :] = 0.0
        table.needle_count[:, :] = 0
        while table.n_units[0] > 0:  # the player's units go, and with them its unit terms
            remove_unit(rules, table, player, table.n_units[0] - 1)
        for seat in range(1, other_shops + 1):
            table.level[seat] = level
            table.gold[seat] = rules.reroll_price
            apply_action(rules, dealer, table, seat, first_round, free_refresh, seat_seeds, ACTION_REROLL, 0)
        table.level[0] = roll_level
        found = 0
        for roll in range(1, rolls + 1):
            table.gold[0] = rules.reroll_price
            apply_action(rules, dealer, table, player, first_round, roll, seat_seeds, ACTION_REROLL, 0)
            for slot in range(rules.shop_size):
                if found < looked_for and table.shops[0, slot] == champion:
                    table.gold[0] = cost
                    if apply_action(rules, dealer, table, player, first_round, roll, seat_seeds, ACTION_BUY, slot):
                        found += 1
        counts[found] += 1


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False, nogil=True)
def simulate_watched_rolls(rules, dealer, seed, first_trial, trials, champion, pool, level, roll_level, other_shops,
                           rolls, counts, seat_seeds, counters, needles, needle_count, tier_totals, tier_odds, shop,
                           working_pool, low_bits, ahead_bits, ahead_from, roll_winners, other_winners, lane_space):
    """:func:`simulate_rolls` with only the draws the question can see: the same counts, trial by trial.

    The copies bought depend on the tier race and on the races in the
    champion's tier, never on which champion of another tier a slot shows:
    while no other tier can run out (``RollSituation.game_exact``), a unit of
    another tier held in a shop changes neither the tier race's weights nor
    the champion's tier. So every slot is dealt by
    :func:`autodup.engine.kernels.engine_draw_watching_tier`, from the same
    seat seeds, keys, needles and counters as the game's shop, and only the
    champion's tier of the pool is kept. The tier weights are the game's
    (:func:`autodup.game.shop.tier_weights`) from tier totals in which the
    other tiers keep their starting totals: only whether a total is positive
    is read, and it cannot change. Not for the replay dealer, whose
    substitutions read every tier.

    Under the haystack, the same draws are made faster in ways that leave
    the engine's state as it would be. Every needle a watched draw can reach
    is created before the races, for all seats in one vectorized batch
    (:func:`autodup.engine.batches.haystack_create`). When the champion's
    tier cannot empty within a trial (its copies outnumber what the other
    shops, the player's shop and its purchases can take), every tier race of
    a trial runs at fixed weights, and no tier race reads a needle that a
    champion race moves: so the tier races of ``LANE_TRIALS`` trials run
    first, all seats of all those trials side by side
    (:func:`autodup.engine.batches.haystack_races_in_lanes`), and then each
    trial's champion races in the game's order. Otherwise the trials run one
    at a time, the rolling seat's tier race computing its needles' values
    ahead (:func:`autodup.engine.batches.haystack_race_ahead`).

    Parameters
    ----------
    rules, dealer, seed, first_trial, trials, champion, pool, level, roll_level, other_shops, rolls, counts
        As for :func:`simulate_rolls`.
    seat_seeds : uint64 (LANE_TRIALS * players,)
    counters : int64 (LANE_TRIALS * players, 2)
    needles : float64 (LANE_TRIALS * players, N + T)
    needle_count : int64 (LANE_TRIALS * players, N + T)
        Each seat's dealer state: seat ``s`` of the ``b``-th trial of a batch is row ``s * batch + b``.
    tier_totals : float64 (T,)
    tier_odds : float64 (2, 2, T)
    shop : int64 (shop_size,)
    working_pool : float64 (N,)
    low_bits : uint64 (LANE_TRIALS * players * (N + T),)
    ahead_bits : uint64 (T, A), ahead_from : int64 (T,)
        Working space, overwritten: the rolling seat's tier needles' values computed ahead (haystack only).
    roll_winners : int64 (rolls * shop_size, LANE_TRIALS), other_winners : int64 (shop_size, LANE_TRIALS * players)
        Working space: the tier races' winners of a batch of trials.
    lane_space : float64 (3 + 2 * T, LANE_TRIALS * players)
        Working space of :func:`autodup.engine.batches.haystack_races_in_lanes`.
    """
    looked_for = counts.shape[0] - 1
    n_tiers = tier_totals.shape[0]
    n_outcomes = pool.shape[0]
    watched = rules.champion_tier[champion]
    lo, hi = rules.tier_start[watched], rules.tier_start[watched + 1]
    holding = rules.units_leave_pool
    shop_size = shop.shape[0]
    # Without holding, shown units stay in the pool: the other seats' shops change nothing the player sees.
    dealt_others = other_shops if holding else 0
    for t in range(n_tiers):
        tier_totals[t] = positive_total(pool, rules.tier_start[t], rules.tier_start[t + 1])
    other_odds, roll_odds = tier_odds[0], tier_odds[1]
    _fill_odds(rules, level, tier_totals, watched, other_odds)
    _fill_odds(rules, roll_level, tier_totals, watched, roll_odds)
    # The watched tier's total is then kept by whole copies, as units leave and come back: exact, and it saves
    # a sum over the tier at every roll.
    starting_total = tier_totals[watched]
    # What a trial can take out of the watched tier at once: the other shops, the player's shop, its purchases.
    most_taken = dealt_others * shop_size + shop_size + looked_for
    in_lanes = (dealer == ENGINE_HAYSTACK and roll_winners.shape[0] >= rolls * shop_size
                and (starting_total <= 0.0 or starting_total > most_taken))
    filled = 1 if starting_total > 0.0 else 0  # the tier weights' row, fixed through a trial run in lanes
    lane_trials = roll_winners.shape[1] if in_lanes else 1
    residuals = lane_space[3:3 + n_tiers]
    lane_counts = lane_space[3 + n_tiers:3 + 2 * n_tiers].view(np.int64)
    lanes = lane_space[:3]
    lane_bits = low_bits[:2 * lane_space.shape[1]].reshape((2, lane_space.shape[1]))
    seats = dealt_others + 1  # dealt in a trial: the rolling seat and the other shops
    for batch_start in range(0, trials, lane_trials):
        batch = min(lane_trials, trials - batch_start)
        for b in range(batch):
            trial_seed = derive_seed_kernel(seed, LABEL_TRIAL, np.uint64(first_trial + batch_start + b))
            # Only the needles a watched draw can create: the tiers' and the watched tier's champions'.
            for seat in range(seats):
                row = seat * batch + b
                seat_seeds[row] = derive_seed_kernel(trial_seed, LABEL_SEAT, np.uint64(seat))
                counters[row, 0] = 0
                counters[row, 1] = 0
                for c in range(lo, hi):
                    needle_count[row, c] = 0
                for t in range(n_tiers):
                    needle_count[row, n_outcomes + t] = 0
        if dealer == ENGINE_HAYSTACK:
            # Every needle a watched draw can reach, created before the races: the same state as lazily.
            haystack_create(seat_seeds, needles, needle_count, seats * batch, lo, hi, low_bits)
            haystack_create(seat_seeds, needles, needle_count, seats * batch, n_outcomes, n_outcomes + n_tiers,
                            low_bits)
        if in_lanes:
            haystack_races_in_lanes(seat_seeds, needles, needle_count, 0, batch, roll_odds[filled], n_outcomes,
                                    roll_winners, residuals, lane_counts, lanes, lane_bits)
            if dealt_others > 0:
                haystack_races_in_lanes(seat_seeds, needles, needle_count, batch, seats * batch, other_odds[filled],
                                        n_outcomes, other_winners, residuals, lane_counts, lanes, lane_bits)
        for b in range(batch):
            for c in range(lo, hi):
                working_pool[c] = pool[c]
            tier_totals[watched] = starting_total
            if dealer == ENGINE_HAYSTACK and not in_lanes:
                ahead_from[:] = -1  # a new seed
            for seat in range(1, dealt_others + 1):
                row = seat * batch + b
                if not in_lanes:
                    _deal_other_shop(dealer, row, seat_seeds, counters, needles, needle_count, other_odds,
                                     tier_totals, working_pool, rules.tier_start, watched, shop_size)
                    continue
                for slot in range(shop_size):
                    drawn = _watched_champion(seat_seeds[row], needles[row], needle_count[row],
                                              other_winners[slot, row - batch], tier_totals, working_pool, lo, hi,
                                              watched)
                    if drawn >= 0:
                        working_pool[drawn] -= 1.0
                        tier_totals[watched] -= 1.0
            found = 0
            for slot in range(shop_size):
                shop[slot] = -1
            for roll in range(1, rolls + 1):
                for slot in range(shop_size):  # the shop's units go back to the pool
                    if shop[slot] >= 0 and holding:
                        working_pool[shop[slot]] += 1.0
                        tier_totals[watched] += 1.0
                    shop[slot] = -1
                for slot in range(shop_size):
                    if in_lanes:
                        drawn = _watched_champion(seat_seeds[b], needles[b], needle_count[b],
                                                  roll_winners[(roll - 1) * shop_size + slot, b], tier_totals,
                                                  working_pool, lo, hi, watched)
                    elif dealer == ENGINE_HAYSTACK:
                        drawn = _watched_haystack_slot(seat_seeds[b], needles[b], needle_count[b], roll_odds,
                                                       tier_totals, working_pool, rules.tier_start, watched,
                                                       ahead_bits, ahead_from)
                    else:
                        drawn = _watched_slot(dealer, b, seat_seeds, counters, needles, needle_count, roll_odds,
                                              tier_totals, working_pool, rules.tier_start, watched,
                                              shop_key(0, roll, slot))
                    if drawn >= 0:
                        shop[slot] = drawn
                        if holding:
                            working_pool[drawn] -= 1.0
                            tier_totals[watched] -= 1.0
                for slot in range(shop_size):
                    # As apply_action's purchase: held units are out already, shown ones leave the pool now.
                    if found < looked_for and shop[slot] == champion:
                        if not holding:
                            if working_pool[champion] < 1.0:
                                continue
                            working_pool[champion] -= 1.0
                            tier_totals[watched] -= 1.0
                        shop[slot] = -1
                        found += 1
            counts[found] += 1


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False, inline="always")
def _watched_slot(dealer, seat, seat_seeds, counters, needles, needle_count, tier_odds, tier_totals,
                  working_pool, tier_start, watched, key):
    """One slot of ``seat``'s shop as :func:`autodup.game.shop.fill_shop` deals it, resolved in ``watched`` only.

    ``tier_odds`` (float64 (2, T)) holds the game's tier weights at the seat's level with the watched tier
    empty (row 0) and not (row 1): the other tiers' totals cannot change sign, so these are the only two.
    """
    if dealer == ENGINE_KEYED:
        counters[seat, 0] = key
    row = tier_odds[1] if tier_totals[watched] > 0.0 else tier_odds[0]
    return engine_draw_watching_tier(dealer, seat_seeds[seat], counters[seat], needles[seat], needle_count[seat],
                                     row, tier_totals, working_pool, tier_start, watched)


# Compiled on its own, not inlined: numba copies an inlined function's IR into each caller, and its passes take
# longer than in proportion to a function's size. With the slot's draw (every engine's races) inlined at both of
# its sites, simulate_watched_rolls took 27.6 s to compile on an empty cache, callees included; with the other
# seats' shops dealt by this one, and the batches' kernels and _fill_odds compiled on their own (once a batch or a
# call), 19.6 s (docs/performance.md). A call deals a whole shop: one call a slot made the independent dealer's
# trials 5-20% slower. The rolling seat's slots, 125 of the 160 of a trial of 25 rolls, keep the draw inlined.
@njit(cache=True, no_cfunc_wrapper=True, _nrt=False)
def _deal_other_shop(dealer, seat, seat_seeds, counters, needles, needle_count, tier_odds, tier_totals, working_pool,
                     tier_start, watched, shop_size):
    """Deal ``seat``'s shop of ``shop_size`` slots (:func:`_watched_slot`), each unit of ``watched`` it shows held
    out of ``working_pool`` and ``tier_totals``: another seat's shop, which it keeps while the player rolls."""
    for slot in range(shop_size):
        drawn = _watched_slot(dealer, seat, seat_seeds, counters, needles, needle_count, tier_odds, tier_totals,
                              working_pool, tier_start, watched, shop_key(0, 0, slot))
        if drawn >= 0:
            working_pool[drawn] -= 1.0
            tier_totals[watched] -= 1.0


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False, inline="always")
def _watched_haystack_slot(seed, needles, needle_count, tier_odds, tier_totals, working_pool, tier_start, watched,
                           ahead_bits, ahead_from):
    """:func:`_watched_slot` for the rolling seat under the haystack: the same draw, its tier race computing the
    tier needles' values ahead (:func:`autodup.engine.batches.haystack_race_ahead`), since that race runs at every
    slot of every roll on the same five needles."""
    n_tiers = tier_totals.shape[0]
    n_outcomes = tier_start[n_tiers]
    row = tier_odds[1] if tier_totals[watched] > 0.0 else tier_odds[0]
    tier = haystack_race_ahead(seed, needles, needle_count, row, 0, n_tiers, n_outcomes, ahead_bits, ahead_from)
    return _watched_champion(seed, needles, needle_count, tier, tier_totals, working_pool, tier_start[watched],
                             tier_start[watched + 1], watched)


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False, inline="always")
def _watched_champion(seed, needles, needle_count, tier, tier_totals, working_pool, lo, hi, watched):
    """A haystack slot whose tier race picked ``tier``: the champion race in ``watched`` (champions ``lo .. hi -
    1``) if it picked that tier, as :func:`autodup.engine.kernels.tier_then_outcome` runs it; -2 for another tier
    with copies, -1 for none."""
    if tier < 0:
        return -1
    if tier != watched:
        return -2 if tier_totals[tier] > 0.0 else -1
    return haystack_race(seed, needles, needle_count, working_pool, lo, hi, 0)


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False)  # once a call: not inlined (see _deal_other_shop)
def _fill_odds(rules, level, tier_totals, watched, out):
    """``out[0]``, ``out[1]``: :func:`autodup.game.shop.tier_weights` at ``level`` with tier ``watched``'s total
    0 and 1 (float64 (2, T)), the other tiers' totals as ``tier_totals`` holds them."""
    kept = tier_totals[watched]
    for row in range(2):
        tier_totals[watched] = float(row)
        tier_weights(rules, level, tier_totals, False, tier_totals, out[row])
    tier_totals[watched] = kept


def simulate_odds(situation: RollSituation, trials: int = DEFAULT_TRIALS, dealer: str = DEFAULT_DEALER,
                  seed: int = 0, advance=None, simulation: str = "auto", first_trial: int = 0,
                  threads: int | None = None) -> np.ndarray:
    """Play the situation's trials ``first_trial .. first_trial + trials - 1`` through the game's shop;
    ``advance(n)``, if given, is told of every ``n`` trials played (a progress bar).

    ``simulation`` is ``"game"`` (every slot dealt by the table's shop: :func:`simulate_rolls`), ``"watched"``
    (only the draws the question can see: :func:`simulate_watched_rolls`, the same counts trial by trial,
    about three times faster) or ``"auto"``: watched where it applies (``situation.game_exact`` and a dealer
    other than replay), the game otherwise. Trials are addressed in the seed tree, so any split of them
    into calls, chunks or threads gives the same counts.

    Parameters
    ----------
    threads : int, optional
        Chunks of trials played side by side (the kernels release the interpreter); default one per core.

    Returns
    -------
    int64 (looked_for + 1,)
        Trials by copies found.
    """
    s = situation
    config = s.config
    rules = s.rules
    code = dealer_named(dealer).code
    method = simulation_method(s, dealer, simulation)
    threads = workers("threads", threads)
    pool = config.champion_copies.astype(np.float64)
    pool[s.champion] -= s.question.copies_out + s.question.owned
    _take_other_units(config, pool, s.tier, s.champion, s.question.cost_out)

    def play(first: int, chunk: int, space) -> np.ndarray:
        counts = np.zeros(s.looked_for + 1, dtype=np.int64)
        if method == "watched":
            simulate_watched_rolls(rules, code, np.uint64(seed), first, chunk, s.champion, pool, s.question.level,
                                   s.roll_level, s.other_shops, s.rolls, counts, *space)
        else:
            table, seat_seeds = space
            simulate_rolls(rules, code, table, seat_seeds, np.uint64(seed), first, chunk,
                           s.champion, pool, s.question.level, s.roll_level, s.other_shops, s.rolls, counts)
        return counts

    def working_space() -> tuple:
        if method != "watched":
            return fresh_table(rules, 0), np.zeros(rules.players, dtype=np.uint64)
        rows, n_tiers = LANE_TRIALS * rules.players, config.n_tiers
        needles = n_tiers + pool.shape[0]
        return (np.zeros(rows, dtype=np.uint64), np.zeros((rows, 2), dtype=np.int64), np.zeros((rows, needles)),
                np.zeros((rows, needles), dtype=np.int64), np.zeros(n_tiers), np.zeros((2, 2, n_tiers)),
                np.full(rules.shop_size, -1, dtype=np.int64), np.zeros(pool.shape[0]),
                np.zeros(rows * needles, dtype=np.uint64), np.zeros((n_tiers, VALUES_AHEAD), dtype=np.uint64),
                np.full(n_tiers, -1, dtype=np.int64),
                np.zeros((s.rolls * rules.shop_size, LANE_TRIALS), dtype=np.int64),
                np.zeros((rules.shop_size, rows), dtype=np.int64), np.zeros((3 + 2 * n_tiers, rows)))

    # In chunks, so that Ctrl-C stops a long simulation between two, and so that threads share the work.
    chunks = [(int(first_trial) + start, min(CHUNK_TRIALS, int(trials) - start))
              for start in range(0, int(trials), CHUNK_TRIALS)]
    counts = np.zeros(s.looked_for + 1, dtype=np.int64)
    threads = max(1, min(threads, len(chunks)))
    spaces = queue.SimpleQueue()
    for _ in range(threads):
        spaces.put(working_space())

    def play_chunk(first: int, chunk: int) -> np.ndarray:
        space = spaces.get()
        try:
            return play(first, chunk, space)
        finally:
            spaces.put(space)

    if trials > 0 and not simulation_is_compiled(method):
        # The first call compiles the simulation (seconds): a call of no trial, in a thread that Ctrl-C can leave.
        _leavable(lambda: play_chunk(int(first_trial), 0))

    executor = ThreadPoolExecutor(max_workers=threads)
    try:
        futures = {executor.submit(play_chunk, first, chunk): chunk for first, chunk in chunks}
        for future in as_completed(futures):
            counts += future.result()  # integer sums: the order the chunks end in changes nothing
            if advance is not None:
                advance(futures[future])
    finally:
        # On Ctrl-C or an error, chunks not started are dropped; the running ones end within a chunk.
        executor.shutdown(wait=True, cancel_futures=True)
    return counts


def _leavable(call) -> None:
    """``call()`` in a daemon thread, waited for in a way Ctrl-C interrupts at once.

    A compile holds the thread that asked for it until it ends, and the pool of :func:`simulate_odds` waits for its
    running chunks when stopped: a Ctrl-C during the first simulation's compile was answered only once it ended
    (about 15 s). A daemon thread is left to finish or die with the process; numba writes its cache files whole.
    """
    outcome = []

    def run() -> None:
        try:
            call()
            outcome.append(None)
        except BaseException as error:  # given to the caller's thread
            outcome.append(error)

    thread = threading.Thread(target=run, daemon=True, name="autodup-odds-compile")
    thread.start()
    while thread.is_alive():
        thread.join(0.1)
    if outcome and outcome[0] is not None:
        raise outcome[0]


SIMULATION_METHODS = ("auto", "watched", "game")
# What a cold cache's first simulation says before it compiles (tests/readme_blocks.py leaves the line out).
COMPILING_ODDS = "compiling the roll odds' simulation for this machine"


def simulation_is_compiled(method: str = "auto") -> bool:
    """Whether this machine's compiled-code cache holds the simulation ``method`` plays (``"auto"`` and
    ``"watched"``: :func:`simulate_watched_rolls`, which ``"auto"`` plays unless a tier can run out; ``"game"``:
    :func:`simulate_rolls`), so that a first call need not compile it."""
    from ..compile_cache import compiled_signatures

    return bool(compiled_signatures(simulate_rolls if method == "game" else simulate_watched_rolls))


def simulation_method(situation: RollSituation, dealer: str, method: str = "auto") -> str:
    """The simulation :func:`simulate_odds` plays for ``method``: ``"watched"`` or ``"game"`` (see there).

    Raises
    ------
    UsageError
        ``method`` is unknown, or ``"watched"`` where it does not apply.
    """
    if method not in SIMULATION_METHODS:
        raise UsageError(f"{method!r} is not a simulation (allowed: {', '.join(SIMULATION_METHODS)})",
                         "simulation")
    applies = situation.game_exact and dealer_named(dealer).code != ENGINE_REPLAY
    if method == "watched" and not applies:
        why = ("another tier can run out while the shops hold units" if not situation.game_exact
               else "the replay dealer's substitutions read every tier")
        raise UsageError(f"'watched' does not apply here: {why} (allowed: auto or game)", "simulation")
    if method == "auto":
        return "watched" if applies else "game"
    return method


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
              seed: int = 0, holding: bool | None = None, other_shops: int | None = None, advance=None,
              simulation: str = "auto", threads: int | None = None) -> dict:
    """Answer ``question`` three ways: the chain, the game's exact law and the simulation (``trials`` > 0;
    ``advance``, ``simulation`` and ``threads`` as for :func:`simulate_odds`).

    Returns
    -------
    dict
        ``{"exact": {"p_exactly", "p_at_least"}, "game": {...} or None,
        "simulated": {"p_exactly", "p_at_least", "ci"} or None, "trials", "dealer", "seed", "simulation"
        (``"watched"``, ``"game"`` or None), "situation": {...}, "largest_difference": {...}}``; lists are
        indexed by the copies found ``k``.
    """
    if not 0 <= trials <= MAX_TRIALS:
        raise UsageError(f"{trials} is out of range (allowed: 0 to {MAX_TRIALS:,}; 0 skips the "
                         "simulation)", "trials")
    dealer_named(dealer)
    s = resolve(config, question, holding, other_shops)
    method = simulation_method(s, dealer, simulation)
    chain = chain_odds(s)
    result = {"exact": {"p_exactly": [float(x) for x in chain], "p_at_least": _at_least(chain)}}
    game = game_odds(s)
    result["game"] = None if game is None else {"p_exactly": [float(x) for x in game], "p_at_least": _at_least(game)}
    result["simulated"] = None
    if trials:
        counts = simulate_odds(s, trials, dealer, seed, advance, method, threads=threads)
        at_least = np.cumsum(counts[::-1])[::-1]
        result["simulated"] = {
            "p_exactly": [float(x) for x in counts / trials], "p_at_least": [float(x) for x in at_least / trials],
            "ci": [list(wilson_interval(c, trials)) for c in at_least], "counts": [int(x) for x in counts]}
    result["trials"] = int(trials)
    result["dealer"] = dealer
    result["simulation"] = method if trials else None
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
