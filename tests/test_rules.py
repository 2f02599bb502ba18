"""Rule unit tests: one table built by hand, one rule at a time (set4 numbers)."""

from pathlib import Path

import numpy as np

from autodup.engine.dealers import DEALERS
from autodup.game import combat, rounds
from autodup.game.actions import ACTION_BUY, ACTION_BUY_XP, ACTION_LOCK, ACTION_SELL
from autodup.game.combat import play_fight
from autodup.game.config import load_config
from autodup.game.legality import apply_action
from autodup.game.rules import EVENTS_BY_POSITION, EVENTS_BY_SEAT, ORDER_EVENTS, rules_of
from autodup.game.state import fresh_table
from autodup.game.units import add_unit
from autodup.internal_kernels import python_entry

HAYSTACK = DEALERS["haystack"].code
# Internal kernels (compiled code calls them): called from Python through an entry compiled here.
prepare_fights = python_entry(combat.prepare_fights)
start_round = python_entry(rounds.start_round)

ROOT = Path(__file__).resolve().parents[1]
CONFIG = load_config(ROOT / "configs" / "set4.yaml")
RULES = rules_of(CONFIG)
SEEDS = np.arange(1, 9, dtype=np.uint64) * np.uint64(1_000_003)
EVENTS = np.uint64(99)
ZED = CONFIG.champion_names.index("Zed")  # a 2-cost
GAREN = CONFIG.champion_names.index("Garen")  # a 1-cost


def act(table, seat, action, argument=0, round_index=5):
    return apply_action(RULES, HAYSTACK, table, seat, round_index, 1, SEEDS, action, argument)


def give(table, seat, champion, n=1):
    for _ in range(n):
        table.pool[champion] -= 1.0
        add_unit(RULES, table, seat, champion)


def test_income_interest_and_streak_gold_at_round_start():
    table = fresh_table(RULES)
    table.gold[0], table.streak[0] = 25, 4    # interest 2, a 4-win streak pays 2
    table.gold[1], table.streak[1] = 55, -5   # interest 5 (the cap), a 5-loss streak pays 3
    table.gold[2], table.streak[2] = 9, 1     # no interest, no streak gold
    round_index = 3                           # stage 2: income 5
    assert RULES.round_income[round_index] == 5
    start_round(RULES, HAYSTACK, ORDER_EVENTS, EVENTS_BY_SEAT, table, round_index, SEEDS, EVENTS)
    assert table.gold[:3].tolist() == [25 + 5 + 2 + 2, 55 + 5 + 5 + 3, 9 + 5]
    # Passive XP after the first round: 2 XP take a level-1 seat to level 2 (which needs 2).
    assert (table.level[0], table.xp[0]) == (2, 0)


def test_buying_xp_levels_up_and_carries_the_rest():
    table = fresh_table(RULES)
    table.level[0], table.xp[0], table.gold[0] = 3, 5, 10
    assert act(table, 0, ACTION_BUY_XP)       # 5 + 4 = 9 >= 6 to reach level 4
    assert (table.level[0], table.xp[0], table.gold[0]) == (4, 3, 6)
    table.level[0] = RULES.max_level
    assert not act(table, 0, ACTION_BUY_XP)   # nothing to buy at the top
    assert table.gold[0] == 6


def test_three_of_a_kind_combine_and_selling_returns_every_copy():
    table = fresh_table(RULES)
    give(table, 0, GAREN, 3)
    assert table.n_units[0] == 1 and table.unit_star[0, 0] == 2
    give(table, 0, GAREN, 6)
    assert table.n_units[0] == 1 and table.unit_star[0, 0] == 3
    pool_before, gold_before = table.pool[GAREN], table.gold[0]
    assert act(table, 0, ACTION_SELL, 0)
    assert table.pool[GAREN] == pool_before + 9 and table.gold[0] == gold_before + 9 * 1
    assert table.n_units[0] == 0


def test_a_full_bench_buys_only_what_completes_a_combine():
    table = fresh_table(RULES)
    capacity = RULES.bench_size + RULES.level_board_size[1]
    others = [c for c in range(len(CONFIG.champion_names)) if c not in (ZED, GAREN)][:capacity - 2]
    for c in others:
        give(table, 0, c)
    give(table, 0, ZED, 2)
    assert table.n_units[0] == capacity
    table.gold[0] = 10
    table.shops[0, :2] = [GAREN, ZED]
    table.pool[GAREN] -= 1.0
    table.pool[ZED] -= 1.0
    assert not act(table, 0, ACTION_BUY, 0)   # a new unit does not fit
    assert act(table, 0, ACTION_BUY, 1)       # the third Zed combines
    assert table.n_units[0] == capacity - 1 and table.gold[0] == 8


def test_a_locked_shop_survives_one_refresh():
    table = fresh_table(RULES)
    start_round(RULES, HAYSTACK, ORDER_EVENTS, EVENTS_BY_SEAT, table, 0, SEEDS, EVENTS)
    shop = table.shops[0].copy()
    assert act(table, 0, ACTION_LOCK)
    start_round(RULES, HAYSTACK, ORDER_EVENTS, EVENTS_BY_SEAT, table, 1, SEEDS, EVENTS)
    assert np.array_equal(table.shops[0], shop) and not table.locked[0]
    start_round(RULES, HAYSTACK, ORDER_EVENTS, EVENTS_BY_SEAT, table, 2, SEEDS, EVENTS)
    assert not np.array_equal(table.shops[0], shop)


def test_combat_damage_gold_and_streaks():
    table = fresh_table(RULES)
    table.level[:2] = 5
    give(table, 0, CONFIG.champion_names.index("Zilean"), 9)  # a 3-star 5-cost: overwhelming
    give(table, 1, GAREN)
    scratch = np.zeros(table.unit_champion.shape[1], dtype=np.int64)
    traits = np.zeros(RULES.trait_breakpoints.shape[0], dtype=np.int64)
    round_index = 10
    prepare_fights(RULES, table, round_index, scratch, traits)
    play_fight(RULES, table, 0, 1, True, round_index, 0, EVENTS, EVENTS_BY_SEAT)
    survivors = 1  # one unit on the winning board, standing
    assert table.hp[1] == RULES.starting_hp - RULES.round_damage[round_index] - survivors
    assert table.hp[0] == RULES.starting_hp and table.gold[0] == RULES.pvp_win_gold
    assert (table.streak[0], table.streak[1]) == (1, -1)
    # Against a ghost, only the real seat's result counts.
    play_fight(RULES, table, 1, 0, False, round_index, 1, EVENTS, EVENTS_BY_POSITION)
    assert table.hp[0] == RULES.starting_hp and table.streak[0] == 1
    assert table.streak[1] == -2


def test_race_serving_order_deals_each_seat_by_its_own_odds():
    """Simultaneous refreshes served by a race across haystacks: every slot's tier follows the seat's level odds.

    With no tier sold out the tier law does not depend on depletion, so it is exact for every slot;
    the event-order refresh is the control.
    """
    from autodup.game.rules import ORDER_RACE

    from .stats_helpers import P_FLOOR, goodness_of_fit, same_distribution

    levels = np.arange(2, 10)  # seat s plays at level s + 2
    tiers = {order: np.zeros((8, RULES.tier_cost.shape[0]), dtype=np.int64) for order in (ORDER_RACE, ORDER_EVENTS)}
    for trial in range(2500):
        seeds = SEEDS + np.uint64(8 * 1_000_003 * (trial + 1))
        for order in tiers:
            table = fresh_table(RULES)
            table.level[:] = levels
            start_round(RULES, HAYSTACK, order, EVENTS_BY_SEAT, table, 0, seeds, np.uint64(trial))  # no passive XP yet
            for seat in range(8):
                for champion in table.shops[seat]:
                    tiers[order][seat, RULES.champion_tier[champion]] += 1
    for seat in range(8):
        odds = RULES.level_odds[levels[seat]]
        assert goodness_of_fit(tiers[ORDER_RACE][seat], odds) > P_FLOOR
        assert same_distribution(tiers[ORDER_RACE][seat], tiers[ORDER_EVENTS][seat]) > P_FLOOR
