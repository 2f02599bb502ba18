"""The jitted table: conservation and termination over many games, shop statistics, loaded rolls, loot."""

from pathlib import Path

import numpy as np
import pytest

from autodup.compile_cache import compiled_signatures
from autodup.engine.dealers import DEALERS, exact_dealers
from autodup.engine.kernels import engine_draw_hierarchical
from autodup.engine.rng import board_seed, event_seed, seat_seed
from autodup.game.boards import compile_storage, play_boards, play_boards_kernel, store_table
from autodup.game.bot_loading import load_bot, policy_tuple, seating
from autodup.game.config import load_config, parse_config
from autodup.game.progress import new_progress
from autodup.game.rounds import start_round
from autodup.game.rules import ORDER_EVENTS, ORDER_RACE, rules_of
from autodup.game.shop import move_copies, reroll_shop
from autodup.game.state import new_desk, new_table, soundness, table_is_sound
from autodup.game.stats import RESULT_COLUMNS
from autodup.game.table import (
    _end_round,
    advance,
    compile_round_end,
    compile_round_start,
    compile_shop_draw,
    first_slot_counts,
    game_log,
    game_results,
    loot_items,
    new_game,
    play_table,
    play_table_inline,
)
from autodup.labs.odds import RollQuestion, resolve
from autodup.labs.odds_simulation import simulate_odds

from .python_runs import run_in
from .stats_helpers import P_FLOOR, goodness_of_fit, same_distribution

ROOT = Path(__file__).resolve().parents[1]
SET4 = rules_of(load_config(ROOT / "configs" / "set4.yaml"))
TINY = rules_of(load_config(ROOT / "configs" / "tiny.yaml"))
GREEDY = load_bot("greedy")
CHAOS = load_bot(str(ROOT / "tests" / "bots" / "chaos.py"))


def play(rules, dealer, board, order=ORDER_EVENTS, check=True, tournament=7, seat_bots=None):
    g = board_seed(tournament, board)
    seats = np.array([seat_seed(g, s) for s in range(rules.players)], dtype=np.uint64)
    if seat_bots is None:  # half the seats act at random, legal or not: every action path is exercised
        seat_bots = [CHAOS if s % 2 else GREEDY for s in range(rules.players)]
    results, violations, rounds, _ = play_table(rules, DEALERS[dealer].code, order, seats, np.uint64(event_seed(g, 0)),
                                                *seating(seat_bots), check, new_progress())
    return results, violations, rounds


@pytest.mark.parametrize("rules", [TINY, SET4], ids=["tiny", "set4"])
@pytest.mark.parametrize("dealer, order", [(d, ORDER_EVENTS) for d in DEALERS] + [("haystack", ORDER_RACE)])
def test_games_conserve_copies_and_terminate(rules, dealer, order):
    """After every step of every game: pool + shops + units == initial copies, gold >= 0, units fit."""
    for board in range(12):
        results, violations, rounds = play(rules, dealer, board, order)
        assert violations == 0
        assert 1 <= rounds <= rules.max_rounds
        assert sorted(results[:, 0].tolist()) == list(range(1, rules.players + 1))
        assert np.all(results[:, RESULT_COLUMNS.index("gold")] >= 0)
        assert np.all(results[:, RESULT_COLUMNS.index("level")] <= rules.max_level)
        winner = np.flatnonzero(results[:, 0] == 1)[0]
        assert results[winner, 1] == results[:, 1].max()
        random_seats = results[1::2]
        assert random_seats[:, RESULT_COLUMNS.index("illegal_actions")].sum() > 0
        assert random_seats[:, RESULT_COLUMNS.index("rolls")].sum() > 0


def test_games_are_deterministic_and_seed_dependent():
    a, _, _ = play(SET4, "haystack", 3)
    b, _, _ = play(SET4, "haystack", 3)
    c, _, _ = play(SET4, "haystack", 4)
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_a_game_stopped_by_max_rounds_is_ranked_by_hp():
    text = (ROOT / "configs" / "tiny.yaml").read_text().replace("max_rounds: 60", "max_rounds: 4")
    rules = rules_of(parse_config(text, "short.yaml"))
    results, violations, rounds = play(rules, "independent", 0)
    assert rounds == 4 and violations == 0
    by_place = results[np.argsort(results[:, 0]), 1]
    assert np.all(np.diff(by_place) <= 0)


# --------------------------------------------------------------------------
# shop statistics: the first slot of a shop dealt from a known pool
# --------------------------------------------------------------------------


def exact_first_slot(rules, level, pool, qualifies=None, empty_tier_skips=True):
    """P(first slot = champion c), and P(empty), from the odds and copies (independent of the game code)."""
    n = pool.size
    probabilities = np.zeros(n + 1)
    odds = rules.level_odds[level].astype(float)
    starts = rules.tier_start
    weights = []
    for t in range(len(odds)):
        lo, hi = starts[t], starts[t + 1]
        members = pool[lo:hi] * (1 if qualifies is None else qualifies[lo:hi])
        total = pool[lo:hi].sum()
        share = members.sum() / total if total > 0 else 0.0
        if qualifies is None:
            weight = odds[t] if (total > 0 or not empty_tier_skips) else 0.0
        else:
            weight = odds[t] * share
        weights.append((weight, lo, hi, members))
    total_weight = sum(w for w, *_ in weights)
    for weight, lo, hi, members in weights:
        if members.sum() > 0:
            probabilities[lo:hi] += weight / total_weight * members / members.sum()
        else:
            probabilities[n] += weight / total_weight
    return probabilities


@pytest.mark.parametrize("copies", [0.5, -1.0, np.nan])
def test_first_slot_counts_refuses_a_pool_that_is_not_copies(copies):
    """The shop's tier sums add whole numbers in any order (``whole_sums_kernel``), so the inspection helper that
    deals from a caller's pool refuses one that is not whole, non-negative copies."""
    pool = SET4.champion_copies.astype(float)
    pool[3] = copies
    with pytest.raises(ValueError, match="whole numbers, none negative"):
        first_slot_counts(SET4, DEALERS["haystack"].code, 7, pool, 10, 0, -1)


@pytest.mark.parametrize("dealer", [name for name, dealer in DEALERS.items() if dealer.exact])
@pytest.mark.parametrize("level", [3, 7, 9])
def test_first_slot_follows_odds_and_copies(dealer, level):
    pool = SET4.champion_copies.astype(float)
    pool[[0, 5, 14, 30]] = [0, 3, 20, 1]  # a champion sold out, others depleted
    counts = first_slot_counts(SET4, DEALERS[dealer].code, level, pool, 40_000, 1000 * level, -1)
    exact = exact_first_slot(SET4, level, pool)
    assert counts[0] == 0  # a champion with no copies is never offered
    assert goodness_of_fit(counts, exact) > P_FLOOR


@pytest.mark.parametrize("dealer", [d.name for d in exact_dealers()])
def test_a_shop_after_rerolls_follows_the_same_law_as_the_first_against_the_control(dealer):
    """The fifth shop a seat is dealt in a row, from the same pool (each reroll puts the shown units back): its
    first slot follows the first shop's exact law, and the independent control's counts, although the dealer's
    state (needles, keys, counters) carries the 20 draws before it. A race that forgot to let time pass for its
    losers deals the first shop right and this one wrong."""
    pool = SET4.champion_copies.astype(float)
    pool[[0, 5, 14, 30]] = [0, 3, 20, 1]
    counts = first_slot_counts(SET4, DEALERS[dealer].code, 7, pool, 40_000, 31, -1, 5)
    assert goodness_of_fit(counts, exact_first_slot(SET4, 7, pool)) > P_FLOOR
    control = first_slot_counts(SET4, DEALERS["independent"].code, 7, pool, 40_000, 10**7, -1, 5)
    assert same_distribution(counts, control) > P_FLOOR


def test_replay_dealer_is_caught_by_the_shop_statistics():
    pool = SET4.champion_copies.astype(float)
    pool[13:26] = [22, 1, 1, 1, 1, 1, 22, 22, 22, 1, 1, 1, 1]  # a depleted 2-cost tier
    counts = first_slot_counts(SET4, DEALERS["replay"].code, 7, pool, 40_000, 5, -1)
    assert goodness_of_fit(counts, exact_first_slot(SET4, 7, pool)) < P_FLOOR
    control = first_slot_counts(SET4, DEALERS["independent"].code, 7, pool, 40_000, 10**6, -1)
    assert same_distribution(counts, control) < P_FLOOR


@pytest.mark.parametrize("skips", [True, False], ids=["skip", "empty"])
def test_empty_tier_rule(skips):
    text = (ROOT / "configs" / "set4.yaml").read_text()
    if not skips:
        text = text.replace("empty_tier: skip", "empty_tier: empty")
    rules = rules_of(parse_config(text, "rule.yaml"))
    pool = rules.champion_copies.astype(float)
    pool[26:39] = 0  # the 3-cost tier is sold out
    counts = first_slot_counts(rules, DEALERS["haystack"].code, 7, pool, 30_000, 77, -1)
    exact = exact_first_slot(rules, 7, pool, empty_tier_skips=skips)
    assert counts[26:39].sum() == 0
    assert (counts[-1] > 0) == (not skips)
    assert goodness_of_fit(counts, exact) > P_FLOOR


LOADED_TRAIT = 0  # Adept: Irelia, Shen, Yone
LOADED_LEVEL = 8


def qualifying_champions(trait):
    """float64 (N,): 1 for set4's champions with ``trait``, 0 for the others."""
    return np.array([trait in SET4.champion_traits[c] for c in range(SET4.champion_traits.shape[0])], dtype=float)


@pytest.fixture(scope="module")
def rerolled_until_it_fits():
    """Seed 002's gold standard, dealt once for every dealer's test: 400,000 normal first slots of the plain
    sampler at level 8, those that have the trait kept (the rejection sampling of a slot)."""
    normal = first_slot_counts(SET4, DEALERS["independent"].code, LOADED_LEVEL, SET4.champion_copies.astype(float),
                               400_000, 10**7, -1)
    return np.where(np.append(qualifying_champions(LOADED_TRAIT), 0) > 0, normal, 0)


@pytest.mark.parametrize("dealer", [dealer.name for dealer in exact_dealers()])
def test_loaded_roll_equals_rerolling_each_slot_until_it_fits(dealer, rerolled_until_it_fits):
    """Seed 002's gold standard: rejection sampling of a normal slot, against the constrained draw."""
    qualifies = qualifying_champions(LOADED_TRAIT)
    pool = SET4.champion_copies.astype(float)
    loaded = first_slot_counts(SET4, DEALERS[dealer].code, LOADED_LEVEL, pool, 20_000, 3, LOADED_TRAIT)
    assert loaded[np.flatnonzero(qualifies == 0)].sum() == 0
    exact = exact_first_slot(SET4, LOADED_LEVEL, pool, qualifies=qualifies)
    assert goodness_of_fit(loaded, exact) > P_FLOOR
    assert same_distribution(loaded, rerolled_until_it_fits) > P_FLOOR


def test_loot_is_a_shuffle_bag_per_seat():
    bag = TINY.loot_gold.shape[0]
    sequences = [loot_items(TINY, seed, 30 * bag) for seed in (11, 12)]
    for items in sequences:
        for span in range(30):
            assert sorted(items[span * bag:(span + 1) * bag].tolist()) == list(range(bag))
    assert not np.array_equal(sequences[0], sequences[1])
    # Orders are uniform over shuffles: the first item of each span is uniform over the bag.
    firsts = np.concatenate([loot_items(TINY, seed, 40 * bag)[::bag] for seed in range(100)])
    assert goodness_of_fit(np.bincount(firsts, minlength=bag), np.ones(bag)) > P_FLOOR


def test_a_seats_loot_follows_its_bags_definition_cycle_by_cycle():
    """Each cycle's shuffle is kept through the cycle (bag_item): its items are the Fisher-Yates shuffle on the
    seat's loot stream at counters ``cycle * bag + i``, written out here with the stream's uniforms."""
    from autodup.engine.rng import STREAM_LOOT_BAG, random_uniform

    bag = SET4.loot_gold.shape[0]
    seed = 12345
    expected = []
    for cycle in range(4):
        permutation = list(range(bag))
        for i in range(bag - 1, 0, -1):
            j = int(random_uniform(np.uint64(seed), np.uint64(STREAM_LOOT_BAG), np.uint64(cycle * bag + i)) * (i + 1))
            permutation[i], permutation[j] = permutation[j], permutation[i]
        expected += permutation
    assert loot_items(SET4, seed, 4 * bag).tolist() == expected


# --------------------------------------------------------------------------
# the checks themselves, and rule variants
# --------------------------------------------------------------------------


def conserved(rules, table):
    """Copies are conserved (the soundness checks' first, through their Python entry)."""
    return soundness(rules, table)[0]


def terms_hold(rules, table):
    """The unit terms equal their definitions (the second)."""
    return soundness(rules, table)[1]


def sound(rules, table):
    """The whole soundness check (the third)."""
    return soundness(rules, table)[2]


def test_the_soundness_check_catches_a_corrupted_table():
    from autodup.game.state import fresh_table
    from autodup.game.units import add_unit

    table = fresh_table(TINY)
    assert conserved(TINY, table) and sound(TINY, table)
    move_copies(TINY, table.pool, table.tier_totals, 3, -1.0)  # a copy vanished
    assert not conserved(TINY, table)
    move_copies(TINY, table.pool, table.tier_totals, 3, 1.0)
    table.pool[3] -= 1.0  # a copy left the pool but not its tier's total
    assert not conserved(TINY, table)
    table.pool[3] += 1.0
    table.gold[2] = -1
    assert conserved(TINY, table) and not sound(TINY, table)
    table.gold[2] = 0
    for champion in range(TINY.bench_size + 2):  # distinct champions: no combines; more than level 1 may hold
        champion = champion % 9
        move_copies(TINY, table.pool, table.tier_totals, champion, -1.0)
        add_unit(TINY, table, 1, champion)
    assert conserved(TINY, table) and not sound(TINY, table)


def _unit_terms_by_definition(rules, table, seat):
    """The unit terms of a seat computed from its units alone, in numpy (the definitions the shop's terms use)."""
    n = rules.champion_copies.shape[0]
    units = table.unit_champion[seat, :table.n_units[seat]]
    stars = table.unit_star[seat, :table.n_units[seat]]
    held = np.bincount(units, minlength=n)
    one_star = np.bincount(units[stars == 1], minlength=n)
    owned = (held > 0).astype(float)
    traits = rules.champion_traits
    seat_traits = np.array([sum(owned[c] * np.sum(traits[c] == k) for c in range(n))
                            for k in range(rules.trait_breakpoints.shape[0])])
    fit = np.array([sum(seat_traits[t] - owned[c] for t in traits[c] if t >= 0) for c in range(n)])
    return held, one_star, owned, (one_star >= 2).astype(float), seat_traits, fit


@pytest.mark.parametrize("rules", [SET4, TINY], ids=["set4", "tiny"])
def test_unit_terms_follow_every_unit_that_comes_and_goes(rules):
    """The shop's unit terms, kept up to date by add_unit and remove_unit through buys, combines into 2- and
    3-stars and sales, equal their definitions after every step; the soundness check sees a wrong one."""
    from autodup.game.shop import copies_of_star
    from autodup.game.state import fresh_table
    from autodup.game.units import add_unit, completes_a_combine, remove_unit, seat_completes_a_combine

    rng = np.random.default_rng(5)
    n = rules.champion_copies.shape[0]
    table = fresh_table(rules)
    table.level[:] = rules.max_level  # the largest board: units fit, so only the terms can make the table unsound
    few = np.argsort(-rules.champion_copies)[:2]  # the most plentiful champions: pairs, 2-stars and 3-stars happen
    stars_seen = set()
    for step in range(400):
        seat = int(rng.integers(3))
        champion = int(rng.choice(few)) if rng.random() < 0.7 else int(rng.integers(n))
        if table.n_units[seat] > 0 and (rng.random() < 0.2 or table.n_units[seat] >= table.unit_champion.shape[1] - 1
                                        or table.pool[champion] < 1.0):
            u = int(rng.integers(table.n_units[seat]))  # sold: its copies go back to the pool
            move_copies(rules, table.pool, table.tier_totals, table.unit_champion[seat, u],
                        copies_of_star(int(table.unit_star[seat, u])))
            remove_unit(rules, table, seat, u)
        elif table.pool[champion] >= 1.0:
            move_copies(rules, table.pool, table.tier_totals, champion, -1.0)
            add_unit(rules, table, seat, champion)
        stars_seen.update(table.unit_star[seat, :table.n_units[seat]].tolist())
        expected = _unit_terms_by_definition(rules, table, seat)
        for name, value in zip(("held", "held_one_star", "owned", "owned_pairs", "seat_traits", "trait_fit"),
                               expected):
            np.testing.assert_array_equal(getattr(table, name)[seat], value, err_msg=f"{name} at step {step}")
        assert sound(rules, table)
        # A full bench's purchase reads the pair from the terms; bots count their units: the same answer.
        assert [seat_completes_a_combine(table, seat, c) for c in range(n)] == \
            [completes_a_combine(table.unit_champion[seat], table.unit_star[seat], table.n_units[seat], c)
             for c in range(n)]
    assert stars_seen == ({1, 2, 3} if rules.champion_copies.max() >= 9 else {1, 2})
    owner = int(np.argmax(table.n_units))
    champion = int(table.unit_champion[owner, 0])
    table.trait_fit[owner, champion] += 1.0
    assert not terms_hold(rules, table) and not sound(rules, table)
    table.trait_fit[owner, champion] -= 1.0
    assert terms_hold(rules, table)
    for name in ("held", "held_one_star", "owned", "owned_pairs", "seat_traits"):  # each term, one value off
        terms = getattr(table, name)
        for seat, index in ((owner, champion), (owner, int(np.argmax(terms[owner]))), (2 - owner % 3, 0)):
            index = min(index, terms.shape[1] - 1)
            terms[seat, index] += 1
            assert not terms_hold(rules, table), (name, seat, index)
            terms[seat, index] -= 1
    assert terms_hold(rules, table)
    table.unit_champion[owner, 0] = (champion + 1) % n  # a unit changed behind the terms' back
    assert not terms_hold(rules, table)
    table.unit_champion[owner, 0] = n  # not a champion at all: unsound, not read out of bounds
    assert not terms_hold(rules, table)


def test_the_board_never_exceeds_the_level():
    from autodup.game.state import fresh_table
    from autodup.game.units import add_unit, board_power

    table = fresh_table(TINY)
    scratch = np.zeros(table.unit_champion.shape[1], dtype=np.int64)
    traits = np.zeros(TINY.trait_breakpoints.shape[0], dtype=np.int64)
    for champion in range(5):
        add_unit(TINY, table, 0, champion)
    for level in range(1, TINY.max_level + 1):
        table.level[0] = level
        _, on_board = board_power(TINY, table, 0, scratch, traits)
        assert on_board == min(5, TINY.level_board_size[level])


@pytest.mark.parametrize("star_power", [None, (1.0, 2.0, 4.0), (1.0, 1.0, 1.0)])
def test_a_board_orders_units_by_power_keeping_the_order_of_equal_ones(star_power):
    """The board's order against a stable sort by power (Python's ``sorted``), on random holdings: with set4's
    star powers, and with powers that tie across tiers and stars (2 x 1 = 1 x 2) or everywhere within a tier."""
    from autodup.game.rules import power_ranks
    from autodup.game.state import fresh_table
    from autodup.game.units import _strongest_first

    rules = SET4
    if star_power is not None:
        star_power = np.array(star_power)
        rules = SET4._replace(star_power=star_power, unit_power_rank=power_ranks(SET4.tier_cost, star_power))
    table = fresh_table(rules)
    order = np.zeros(table.unit_champion.shape[1], dtype=np.int64)
    rng = np.random.Generator(np.random.Philox(41))
    for trial in range(300):
        n = int(rng.integers(0, table.unit_champion.shape[1] + 1))
        table.n_units[0] = n
        table.unit_champion[0, :n] = rng.integers(0, rules.champion_cost.shape[0], n)
        table.unit_star[0, :n] = rng.integers(1, 4, n)
        table.level[0] = int(rng.integers(1, rules.max_level + 1))
        power = [rules.tier_cost[rules.champion_tier[c]] * rules.star_power[s - 1]
                 for c, s in zip(table.unit_champion[0, :n], table.unit_star[0, :n])]
        on_board = _strongest_first(rules, table, 0, order)
        assert order[:n].tolist() == sorted(range(n), key=lambda u: -power[u]), trial
        assert on_board == min(n, rules.level_board_size[table.level[0]])


VARIANTS = {
    "units_stay_in_pool": [("units_leave_pool: true", "units_leave_pool: false")],
    "empty_slot_for_empty_tier": [("empty_tier: skip", "empty_tier: empty")],
    "three_players_one_bench_slot": [("players: 8", "players: 3"), ("bench_size: 4", "bench_size: 1")],
    "pool_runs_dry": [("copies: 8", "copies: 2"), ("copies: 5", "copies: 1"), ("copies: 3", "copies: 1"),
                      ("copies: 4}", "copies: 1}")],
    "loot_every_pve_round_twice": [("per_pve_round: 1", "per_pve_round: 7")],
}


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("dealer", list(DEALERS))
def test_rule_variants_keep_every_invariant(variant, dealer):
    text = (ROOT / "configs" / "tiny.yaml").read_text()
    for old, new in VARIANTS[variant]:
        assert old in text
        text = text.replace(old, new)
    rules = rules_of(parse_config(text, f"{variant}.yaml"))
    for board in range(8):
        results, violations, rounds = play(rules, dealer, board)
        assert violations == 0
        assert sorted(results[:, 0].tolist()) == list(range(1, rules.players + 1))


def test_play_table_refuses_arrays_of_the_wrong_length():
    policies, params, param_counts, _ = seating([GREEDY])
    eight = np.zeros(TINY.players, dtype=np.int64)
    seeds = np.zeros(TINY.players, dtype=np.uint64)
    with pytest.raises(ValueError, match="one seat seed"):
        play_table(TINY, 0, ORDER_EVENTS, np.zeros(2, dtype=np.uint64), np.uint64(1), policies, params, param_counts,
                   eight, False, new_progress())
    with pytest.raises(ValueError, match="unknown dealer"):
        play_table(TINY, 9, ORDER_EVENTS, seeds, np.uint64(1), policies, params, param_counts, eight, False,
                   new_progress())
    with pytest.raises(ValueError, match="bot index is out of range"):
        play_table(TINY, 0, ORDER_EVENTS, seeds, np.uint64(1), policies, params, param_counts, eight + 8, False,
                   new_progress())
    with pytest.raises(ValueError, match="parameter count is out of range"):
        play_table(TINY, 0, ORDER_EVENTS, seeds, np.uint64(1), policies, params, param_counts + 99, eight, False,
                   new_progress())
    with pytest.raises(ValueError, match="progress block"):
        play_table(TINY, 0, ORDER_EVENTS, seeds, np.uint64(1), policies, params, param_counts, eight, False,
                   np.zeros(2, dtype=np.int64))


_ROUND_START_OF_EACH_ORDER = """
from numba import typeof, types
from autodup.compile_cache import compiled_signatures
from autodup.game.config import load_config
from autodup.game.rounds import _refresh_by_race, start_round
from autodup.game.rules import ORDER_EVENTS, ORDER_RACE, rules_of
from autodup.game.state import new_table
rules = rules_of(load_config("tiny"))
new_table.compile((typeof(rules), types.int64))
table = new_table.overloads[(typeof(rules), types.int64)].signature.return_type
for order in (typeof(ORDER_EVENTS), typeof(ORDER_RACE)):
    start_round.compile((typeof(rules), types.int64, order, types.int64, table, types.int64,
                         types.Array(types.uint64, 1, "C"), types.uint64))
    print(len(compiled_signatures(_refresh_by_race)))
"""


def test_the_events_order_compiles_no_race(tmp_path):
    """The events order is None in compiled code (``ORDER_EVENTS``): numba prunes the round start's test of it,
    so a game of that order (every run's) is compiled without the race's refresh, 3.8 s of a cold start's
    critical process. In a fresh cache, the round's start compiled for the events order leaves the race
    uncompiled; compiled for the race, it compiles it."""
    assert run_in(ROOT, tmp_path / "cache", _ROUND_START_OF_EACH_ORDER) == ["0", "1"]


def test_a_run_compiles_the_game_above_advance_once():
    """Each compiled function links in the compiled code of what it calls, and LLVM optimises and generates the
    whole game again at each such level (6-7 s of a cold start each). The board driver inlines ``play_table``'s
    body and calls ``advance`` itself, so that ``play_table``, compiled for Python callers, is not a level of a
    run."""
    assert play_table_inline.targetoptions["inline"] == "always"
    driver_calls = play_boards_kernel.py_func.__code__.co_names
    assert "play_table_inline" in driver_calls and "play_table" not in driver_calls
    assert "advance" in play_table_inline.py_func.__code__.co_names
    assert "play_table_inline" in play_table.py_func.__code__.co_names  # one body: the same game either way


def test_a_table_played_from_python_shares_the_board_drivers_compiled_game():
    """``play_table`` called without its defaults (as ``play`` here does) typed them as literals, and every function
    they reach was compiled a second time: the whole game, two minutes. Now the board driver and a Python caller
    run the same compiled game: each of these functions has one version in the cache.

    The same for the shop: the free refresh passed roll 0 and the roll-odds lab round 0 and seat 0 as literals, and
    each literal compiled the shop, with the draw it inlines, once more (five versions). Its flag for a loaded roll
    is a run-time bool too (``np.bool_``): kept literal, it compiled the shop twice, 1.4 s of the table's process in
    a cold start, and the shop that tests the flag plays a game as fast (``docs/performance.md``)."""
    play_boards(TINY, "haystack", *policy_tuple([GREEDY]), seed=0, tables=1, seating="latin", n_bots=1)
    play(TINY, "haystack", 0)
    situation = resolve(load_config(ROOT / "configs" / "set4.yaml"), RollQuestion(level=6, champion="Yuumi", rolls=3))
    simulate_odds(situation, 20, "haystack", simulation="game", threads=1)  # the lab's shop, through apply_action
    first_slot_counts(TINY, DEALERS["haystack"].code, 3, TINY.champion_copies.astype(float), 2, 0, 0)  # a loaded roll
    compile_shop_draw(TINY)  # what a cold start's other process compiles, for the table's process to load
    compile_round_start(TINY)
    compile_round_start(TINY, "race")
    compile_round_end(TINY)
    compile_storage(TINY)  # likewise, from the argument types alone
    for function in (advance, _end_round, new_game, new_table, new_desk, start_round, table_is_sound, store_table,
                     game_results, game_log, engine_draw_hierarchical):
        versions = compiled_signatures(function)  # numba's index of the cache, for this processor
        if function in (advance, start_round):  # one version per serving order (a race game is compiled apart)
            orders = [str(version[2]) for version in versions]
            expected = [["int64", "none"]] if function is start_round else [["none"], ["int64", "none"]]
            assert sorted(orders) in expected, (function.__name__, versions)
        else:
            assert len(versions) == 1, (function.__name__, versions)
    shops = compiled_signatures(reroll_shop)
    assert [str(version[-1]) for version in shops] == ["bool"], shops
    # Seat, round and roll are typed, not literal.
    assert all(str(version[3]) == str(version[4]) == str(version[5]) == "int64" for version in shops), shops
