"""Table events addressed by position or by seat: both give the same laws (shuffle, pairing, ghost, coin).

Each law is checked by a chi-square (or a z-score) over many event seeds of the
seed tree, against the exact law; a deliberately wrong variant run through the
same check shows that the check can fail. By seat, the addresses themselves
are checked too: a seat's shuffle key and combat form do not depend on who
else is alive or whom it fights.
"""

import itertools
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from autodup.engine.rng import board_seed, event_seed
from autodup.game import rounds
from autodup.game.combat import _fight_odds, play_fight
from autodup.game.config import load_config
from autodup.game.rules import (
    EVENTS_BY_POSITION,
    EVENTS_BY_SEAT,
    STREAM_MATCHMAKING_KEY,
    STREAM_SERVING_ORDER_KEY,
    rules_of,
)
from autodup.game.state import fresh_table
from autodup.internal_kernels import python_entry

from .stats_helpers import P_FLOOR, goodness_of_fit

ROOT = Path(__file__).resolve().parents[1]
RULES = rules_of(load_config(ROOT / "configs" / "set4.yaml"))
# Internal kernels (compiled code calls them): called from Python through an entry compiled here.
shuffle_alive = python_entry(rounds.shuffle_alive)
ghost_of = python_entry(rounds.ghost_of)
PLAYERS = RULES.players  # 8
ADDRESSINGS = [EVENTS_BY_POSITION, EVENTS_BY_SEAT]
ADDRESSING_IDS = ["by-position", "by-seat"]
TOURNAMENT = 2024
N_SEEDS = 24_000
# Event seeds as a game draws them: one board seed per board, its table-event seed below it.
EVENT_SEEDS = [np.uint64(event_seed(board_seed(TOURNAMENT, board), 0)) for board in range(N_SEEDS)]
ROUND = 7
N_FIGHTS = 20_000
FIGHT_SIGMAS = 4.5
MUTANT_RNG_SEED = 12345  # numpy's generator, only for the deliberately wrong variants


def alive_table(alive_seats):
    table = fresh_table(RULES)
    table.alive[:] = False
    table.alive[list(alive_seats)] = True
    return table


def shuffles(alive_seats, kind, events, n=N_SEEDS):
    """``table.order[:k]`` for the first ``n`` event seeds, as tuples."""
    table = alive_table(alive_seats)
    orders = []
    for seed in EVENT_SEEDS[:n]:
        k = shuffle_alive(table, seed, kind, ROUND, events)
        assert k == len(alive_seats)
        orders.append(tuple(table.order[:k].tolist()))
    return orders


def permutation_pvalue(orders, alive_seats) -> float:
    """Chi-square p-value that ``orders`` are uniform over the k! orders of ``alive_seats``."""
    index = {p: i for i, p in enumerate(itertools.permutations(sorted(alive_seats)))}
    counts = np.bincount([index[tuple(o)] for o in orders], minlength=len(index))
    return goodness_of_fit(counts, np.ones(len(index)))


def position_pvalue(orders, n) -> float:
    """P-value that each seat's position is uniform, from the n x n (seat, position) counts.

    The counts of a uniform random permutation have fixed row and column sums:
    Pearson's statistic (expected N / n per cell) is ``n / (n - 1)`` times a
    chi-square with ``(n - 1)**2`` degrees of freedom (its covariance is
    ``1 / (n - 1)`` times the projection off the margins).
    """
    counts = np.zeros((n, n))
    for order in orders:
        counts[list(order), np.arange(n)] += 1
    expected = len(orders) / n
    statistic = ((counts - expected) ** 2 / expected).sum()
    return float(stats.chi2.sf(statistic * (n - 1) / n, (n - 1) ** 2))


def matching_of(order):
    """The perfect matching of consecutive pairs, as a sorted tuple of sorted pairs."""
    return tuple(sorted(tuple(sorted(order[i:i + 2])) for i in range(0, len(order) - 1, 2)))


def all_matchings(seats):
    return sorted({matching_of(p) for p in itertools.permutations(seats)})


def matching_pvalue(orders, alive_seats) -> float:
    """P-value that the pairing (order[0], order[1]), (order[2], order[3]), ... is uniform over the matchings."""
    index = {m: i for i, m in enumerate(all_matchings(sorted(alive_seats)))}
    counts = np.bincount([index[matching_of(o)] for o in orders], minlength=len(index))
    return goodness_of_fit(counts, np.ones(len(index)))


def naive_shuffle(seats, uniforms):
    """The classic wrong shuffle: swap each position with one uniform over all k positions."""
    order, k = list(seats), len(seats)
    for i in range(k):
        j = int(uniforms[i] * k)
        order[i], order[j] = order[j], order[i]
    return tuple(order)


def sattolo_shuffle(seats, uniforms):
    """Fisher-Yates off by one (``j < i``): only cyclic permutations, no seat keeps its position."""
    order = list(seats)
    for i in range(len(order) - 1, 0, -1):
        j = int(uniforms[i] * i)
        order[i], order[j] = order[j], order[i]
    return tuple(order)


def mutant_orders(shuffle, seats, n=N_SEEDS):
    uniforms = np.random.default_rng(MUTANT_RNG_SEED).random((n, len(seats)))
    return [shuffle(seats, u) for u in uniforms]


# --------------------------------------------------------------------------
# shuffle, pairing and ghost laws
# --------------------------------------------------------------------------

FOUR_ALIVE = (1, 3, 4, 6)
SIX_ALIVE = (0, 2, 3, 5, 6, 7)
FIVE_ALIVE = (0, 2, 3, 5, 7)


@pytest.mark.parametrize("events", ADDRESSINGS, ids=ADDRESSING_IDS)
@pytest.mark.parametrize("kind", [STREAM_SERVING_ORDER_KEY, STREAM_MATCHMAKING_KEY], ids=["serving", "matchmaking"])
def test_shuffle_of_four_alive_seats_is_uniform_over_the_24_orders(events, kind):
    """Four of eight seats alive: table.order[:4] is uniform over the 4! orders of exactly those seats."""
    orders = shuffles(FOUR_ALIVE, kind, events)
    assert permutation_pvalue(orders, FOUR_ALIVE) > P_FLOOR


@pytest.mark.parametrize("events", ADDRESSINGS, ids=ADDRESSING_IDS)
def test_shuffle_of_all_seats_puts_each_seat_uniformly_at_each_position(events):
    """All eight alive: the (seat, position) counts are those of a uniform permutation."""
    orders = shuffles(range(PLAYERS), STREAM_SERVING_ORDER_KEY, events)
    assert all(sorted(o) == list(range(PLAYERS)) for o in orders)
    assert position_pvalue(orders, PLAYERS) > P_FLOOR


def test_the_shuffle_checks_reject_wrong_shuffles():
    """The same checks at the same threshold catch a naive shuffle (k = 4) and an off-by-one one (k = 8)."""
    assert permutation_pvalue(mutant_orders(naive_shuffle, FOUR_ALIVE), FOUR_ALIVE) < P_FLOOR
    assert position_pvalue(mutant_orders(sattolo_shuffle, tuple(range(PLAYERS))), PLAYERS) < P_FLOOR
    # ...and a correct shuffle from the same uniforms passes (the mutants fail for their law, not their inputs).
    sorted_by_key = mutant_orders(lambda seats, u: tuple(np.array(seats)[np.argsort(u)].tolist()), FOUR_ALIVE)
    assert permutation_pvalue(sorted_by_key, FOUR_ALIVE) > P_FLOOR


@pytest.mark.parametrize("events", ADDRESSINGS, ids=ADDRESSING_IDS)
def test_matchmaking_pairs_six_alive_seats_uniformly_over_the_15_matchings(events):
    """Six alive: the matching (order[0], order[1]), (order[2], order[3]), (order[4], order[5]) is uniform."""
    orders = shuffles(SIX_ALIVE, STREAM_MATCHMAKING_KEY, events)
    assert len(all_matchings(SIX_ALIVE)) == 15
    assert matching_pvalue(orders, SIX_ALIVE) > P_FLOOR


def coarse_key_shuffle(seats, uniforms):
    """Seats sorted by keys of too few bits (4 values), ties by seat number: low seats tend to come first."""
    return tuple(sorted(seats, key=lambda s: (int(uniforms[seats.index(s)] * 4), s)))


def test_the_matching_check_rejects_wrong_pairings():
    """The same check catches a pairing that favours neighbouring seat numbers. (A naive or off-by-one
    shuffle pairs six seats uniformly or within 2% of it: the pairing law is robust to those bugs.)"""
    assert matching_pvalue(mutant_orders(coarse_key_shuffle, SIX_ALIVE), SIX_ALIVE) < P_FLOOR
    assert matching_pvalue(mutant_orders(sattolo_shuffle, SIX_ALIVE), SIX_ALIVE) > P_FLOOR


def ghost_draws(events, n=N_SEEDS):
    """(order, ghost) for five alive seats, as the round's matchmaking draws them."""
    table = alive_table(FIVE_ALIVE)
    draws = []
    for seed in EVENT_SEEDS[:n]:
        k = shuffle_alive(table, seed, STREAM_MATCHMAKING_KEY, ROUND, events)
        order = tuple(table.order[:k].tolist())
        draws.append((order, int(ghost_of(table, seed, ROUND, k, events))))
        assert tuple(table.order[:k].tolist()) == order  # choosing the ghost leaves the order alone
    return draws


def ghost_pvalues(draws):
    """P-values of (odd seat out, ghost) uniform over the 20 ordered pairs, and of (odd seat out, ghost,
    matching of the other four) uniform over its 5 x 4 x 3 = 60 values: the ghost is independent of the pairing."""
    pairs = {p: i for i, p in enumerate(itertools.permutations(FIVE_ALIVE, 2))}
    joint = {}
    for odd, ghost in pairs:
        for matching in all_matchings([s for s in FIVE_ALIVE if s != odd]):
            joint[odd, ghost, matching] = len(joint)
    pair_counts = np.bincount([pairs[order[-1], ghost] for order, ghost in draws], minlength=len(pairs))
    joint_counts = np.bincount([joint[order[-1], ghost, matching_of(order[:-1])] for order, ghost in draws],
                               minlength=len(joint))
    return goodness_of_fit(pair_counts, np.ones(len(pairs))), goodness_of_fit(joint_counts, np.ones(len(joint)))


@pytest.mark.parametrize("events", ADDRESSINGS, ids=ADDRESSING_IDS)
def test_ghost_is_uniform_over_the_other_seats_and_independent_of_the_pairing(events):
    """Five alive: (odd seat out, ghost) is uniform over the 20 ordered pairs of distinct alive seats,
    and the ghost does not depend on how the other four are paired."""
    draws = ghost_draws(events)
    for order, ghost in draws:
        assert ghost in order[:-1]
    pair_p, joint_p = ghost_pvalues(draws)
    assert pair_p > P_FLOOR
    assert joint_p > P_FLOOR


def test_the_ghost_check_rejects_a_ghost_that_favours_low_seats():
    """The same checks reject a ghost taken as the lowest-numbered other seat. (A ghost at a fixed position
    of the order, say order[0], passes both: the order is exchangeable, so only a rule that looks at seat
    numbers can break the law.)"""
    draws = ghost_draws(EVENTS_BY_SEAT)
    assert all(p < P_FLOOR for p in ghost_pvalues([(order, min(order[:-1])) for order, _ in draws]))
    assert all(p > P_FLOOR for p in ghost_pvalues([(order, order[0]) for order, _ in draws]))


# --------------------------------------------------------------------------
# the coin
# --------------------------------------------------------------------------

A, B, C = 2, 5, 6


def fight_table(powers):
    """A table whose seats all have board power ``powers[seat]`` (3 units each), as prepare_fights leaves it."""
    table = fresh_table(RULES)
    table.fight_power[:] = powers
    table.fight_strength[:] = np.log(powers + 1.0) / RULES.combat_scale
    strength = table.fight_strength
    for a in range(len(powers)):  # each pair's odds (prepare_fights: a product of two factors, within 1e-14 of this)
        for b in range(len(powers)):
            table.fight_odds[a, b] = math.exp(strength[b] - strength[a])
    table.fight_units[:] = 3
    table.fight_hp[:] = table.hp
    return table


def reset(table):
    table.gold[:] = 0
    table.hp[:] = RULES.starting_hp
    table.streak[:] = 0
    table.luck[:] = 0.0


def a_wins(table, a, b, b_takes_damage, pair, seed, events):
    """Fight once from a reset table; True when ``a`` won (its gold rose)."""
    reset(table)
    play_fight(RULES, table, a, b, b_takes_damage, ROUND, pair, seed, events)
    return table.gold[a] > 0


# set4 has combat_scale 0.25: p_a = 0.5, 0.661, 0.240 and 0.984 (a near sure win) for these pairs.
POWER_PAIRS = [(10.0, 10.0), (12.0, 10.0), (8.0, 11.0), (30.0, 10.0)]


@pytest.mark.parametrize("events", ADDRESSINGS, ids=ADDRESSING_IDS)
@pytest.mark.parametrize("b_takes_damage", [True, False], ids=["pair", "ghost"])
@pytest.mark.parametrize("power_a, power_b", POWER_PAIRS)
def test_coin_wins_with_the_combat_law(events, b_takes_damage, power_a, power_b):
    """P(a beats b) = 1 / (1 + exp(-(log(power_a + 1) - log(power_b + 1)) / combat_scale)) within 4.5 sigma;
    the winner gains the PvP gold and the loser its damage (b only when it is not a ghost)."""
    powers = np.full(PLAYERS, 20.0)
    powers[A], powers[B] = power_a, power_b
    table = fight_table(powers)
    p_a, damage_a, damage_b = _fight_odds(RULES, table, A, B, ROUND)
    expected = 1.0 / (1.0 + math.exp(-(math.log(power_a + 1.0) - math.log(power_b + 1.0)) / RULES.combat_scale))
    assert p_a == pytest.approx(expected, rel=1e-12)
    hp, gold = RULES.starting_hp, RULES.pvp_win_gold
    wins = 0
    for seed in EVENT_SEEDS[:N_FIGHTS]:
        won = a_wins(table, A, B, b_takes_damage, 3, seed, events)
        wins += won
        b_hp, b_gold = (hp - damage_b, 0) if won else (hp, gold)
        if not b_takes_damage:
            b_hp, b_gold = hp, 0
        assert (table.gold[A], table.hp[A]) == ((gold, hp) if won else (0, hp - damage_a))
        assert (table.gold[B], table.hp[B]) == (b_gold, b_hp)
        assert (table.streak[A], table.streak[B]) == ((1, -b_takes_damage) if won else (-1, b_takes_damage))
    sigma = math.sqrt(N_FIGHTS * p_a * (1.0 - p_a))
    assert abs(wins - N_FIGHTS * p_a) < FIGHT_SIGMAS * sigma, (wins / N_FIGHTS, p_a)


def test_the_coin_check_rejects_a_wrong_scale():
    """The same 4.5-sigma check fails for a coin at twice the combat scale (12 vs 10 in set4: 0.583, not 0.661)."""
    p_a = 1.0 / (1.0 + math.exp(-(math.log(13.0) - math.log(11.0)) / RULES.combat_scale))
    p_wrong = 1.0 / (1.0 + math.exp(-(math.log(13.0) - math.log(11.0)) / (2 * RULES.combat_scale)))
    wins = int((np.random.default_rng(MUTANT_RNG_SEED).random(N_FIGHTS) < p_wrong).sum())
    assert abs(wins - N_FIGHTS * p_a) > FIGHT_SIGMAS * math.sqrt(N_FIGHTS * p_a * (1.0 - p_a))


# --------------------------------------------------------------------------
# by seat: the addresses are the seats
# --------------------------------------------------------------------------

N_ADDRESS_SEEDS = 2_000


def restricted(order, seats):
    return tuple(s for s in order if s in seats)


@pytest.mark.parametrize("kind", [STREAM_SERVING_ORDER_KEY, STREAM_MATCHMAKING_KEY], ids=["serving", "matchmaking"])
def test_by_seat_two_seats_keep_their_relative_order_whoever_else_is_alive(kind):
    """By seat, seats alive at two tables with one event seed come in the same relative order at both,
    whichever other seats are alive; by position, removing a seat reshuffles the others."""
    everyone = tuple(range(PLAYERS))
    fewer = tuple(s for s in everyone if s != 3)
    fewest = tuple(s for s in everyone if s not in (0, 3, 6))
    differs = 0
    for events in ADDRESSINGS:
        full = shuffles(everyone, kind, events, N_ADDRESS_SEEDS)
        without_3 = shuffles(fewer, kind, events, N_ADDRESS_SEEDS)
        without_036 = shuffles(fewest, kind, events, N_ADDRESS_SEEDS)
        same = [restricted(f, fewer) == w for f, w in zip(full, without_3)]
        same_too = [restricted(w, fewest) == v for w, v in zip(without_3, without_036)]
        if events == EVENTS_BY_SEAT:
            assert all(same) and all(same_too)
        else:
            differs = N_ADDRESS_SEEDS - sum(same)
    assert differs > 0.9 * N_ADDRESS_SEEDS  # the property is the addressing's, not a shuffle's


def round_robin_wins(table, seats, seed, events):
    """Each seat's wins when every pair of ``seats`` fights once in one round (pairs numbered in turn)."""
    wins = dict.fromkeys(seats, 0)
    for pair, (a, b) in enumerate(itertools.combinations(seats, 2)):
        winner = a if a_wins(table, a, b, True, pair, seed, events) else b
        wins[winner] += 1
    return wins


def test_by_seat_a_seat_has_one_form_whatever_its_opponent():
    """By seat, a seat's form is the same in all its fights of a round: a round robin of four seats of any
    powers is transitive (wins 0, 1, 2, 3), which a coin per pair (by position) is not; and a seat's fight
    against a ghost of equal power does not depend on whose board the ghost is."""
    powers = np.random.default_rng(MUTANT_RNG_SEED).uniform(5.0, 40.0, PLAYERS)
    seats = (0, 2, 5, 7)
    intransitive = {EVENTS_BY_POSITION: 0, EVENTS_BY_SEAT: 0}
    for events in ADDRESSINGS:
        table = fight_table(powers)
        for seed in EVENT_SEEDS[:N_ADDRESS_SEEDS]:
            wins = round_robin_wins(table, seats, seed, events)
            intransitive[events] += sorted(wins.values()) != [0, 1, 2, 3]
    assert intransitive[EVENTS_BY_SEAT] == 0
    # By position each pair's coin is its own: the chance of a round robin that is not transitive, summed
    # over the 2**6 outcomes of the six coins (P(a beats b) from the pair's odds, as _fight_odds reads them).
    pairs = list(itertools.combinations(seats, 2))
    chance = 0.0
    for outcome in itertools.product((True, False), repeat=len(pairs)):
        wins, probability = dict.fromkeys(seats, 0), 1.0
        for (a, b), a_won in zip(pairs, outcome):
            p_a = 1.0 / (1.0 + table.fight_odds[a, b])
            probability *= p_a if a_won else 1.0 - p_a
            wins[a if a_won else b] += 1
        chance += probability * (sorted(wins.values()) != [0, 1, 2, 3])
    sigma = math.sqrt(N_ADDRESS_SEEDS * chance * (1.0 - chance))
    assert abs(intransitive[EVENTS_BY_POSITION] - N_ADDRESS_SEEDS * chance) < FIGHT_SIGMAS * sigma, chance

    table = fight_table(np.full(PLAYERS, 20.0))
    ghost_wins = 0
    for seed in EVENT_SEEDS[:N_ADDRESS_SEEDS]:
        outcomes = {a_wins(table, 0, ghost, False, 3, seed, EVENTS_BY_SEAT) for ghost in range(1, PLAYERS)}
        assert len(outcomes) == 1
        ghost_wins += outcomes.pop()
    # Equal powers: a fair coin, whichever board the ghost has.
    assert abs(ghost_wins - N_ADDRESS_SEEDS / 2) < FIGHT_SIGMAS * math.sqrt(N_ADDRESS_SEEDS / 4)


def joint_wins(second_takes_damage, events):
    """Counts of (A beats B, C beats B or a ghost of B's board) over the seeds, all powers equal: int64 (4,)."""
    table = fight_table(np.full(PLAYERS, 20.0))
    counts = np.zeros(4, dtype=np.int64)
    for seed in EVENT_SEEDS[:N_FIGHTS]:
        first = a_wins(table, A, B, True, 0, seed, events)
        second = a_wins(table, C, B, second_takes_damage, 2, seed, events)
        counts[2 * first + second] += 1
    return counts


@pytest.mark.parametrize("events", ADDRESSINGS, ids=ADDRESSING_IDS)
def test_a_ghost_fight_is_independent_of_the_ghosted_seats_own_fight(events):
    """Five alive, equal powers: A beats B in their pair, and C beats a ghost of B's board, are two fair
    coins independent of each other (by seat, the ghost has its own form, not B's)."""
    assert goodness_of_fit(joint_wins(False, events), np.ones(4)) > P_FLOOR


def test_the_independence_check_rejects_a_ghost_with_its_seats_form():
    """Were the ghost to fight with B's own form (here: C fights B itself, by seat), A and C would both beat B
    with probability 1/3, not 1/4, and the same check rejects it."""
    assert goodness_of_fit(joint_wins(True, EVENTS_BY_SEAT), np.ones(4)) < P_FLOOR
