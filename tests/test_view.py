"""The seat's view: declared once, legality computed by the table's own predicates, the level curve.

Expectations are derived here: the buy rule is restated from the configuration (the reference the
table must agree with), every mask bit is compared with what apply_action does on a copy of the same
state, and the level curve is compared with Set 4's standard curve typed from the game's guides.
"""

from pathlib import Path

import numpy as np
import pytest
import yaml

import autodup.bots as bots
from autodup.engine.dealers import DEALERS
from autodup.game import view as game_view
from autodup.game.actions import ACTION_BUY, ACTION_BUY_XP, ACTION_LOADED_ROLL, ACTION_REROLL, ACTION_SELL
from autodup.game.config import load_config, parse_config
from autodup.game.legality import apply_action
from autodup.game.rules import rules_of, stage_positions
from autodup.game.state import Table, fresh_desk, fresh_table
from autodup.game.turn import fill_decision_view, fill_turn_view
from autodup.game.units import add_unit
from autodup.game.view import VIEW, VIEW_FIELDS, VIEW_NAMES

ROOT = Path(__file__).resolve().parents[1]
HAYSTACK = DEALERS["haystack"].code
SEEDS = np.arange(1, 9, dtype=np.uint64) * np.uint64(1_000_003)

# The names bots used before the view was declared in one place: they must keep working.
NAMES_BOTS_USE = ("GOLD", "LEVEL", "XP", "XP_TO_LEVEL", "HP", "STREAK", "ROUND", "STAGE", "ROUND_IN_STAGE",
                  "PVE_ROUND", "ALIVE_PLAYERS", "UNITS", "BOARD_SIZE", "CAPACITY", "LOADED_USED", "LOCKED",
                  "ACTIONS", "ROLLS", "SEAT", "PLAYERS", "SHOP_SIZE", "MAX_LEVEL", "REROLL_PRICE", "XP_PRICE",
                  "XP_AMOUNT", "INTEREST_PER", "INTEREST_MAX", "RANDOM_A", "RANDOM_B")


def edited(name, edit):
    """The shipped configuration ``name`` with ``edit`` applied to its parsed YAML."""
    data = yaml.safe_load((ROOT / "configs" / f"{name}.yaml").read_text())
    edit(data)
    return parse_config(yaml.safe_dump(data, sort_keys=False), f"{name}-edited.yaml")


def stay_in_pool(data):
    data["shop"]["units_leave_pool"] = False


def empty_tier(data):
    data["shop"]["empty_tier"] = "empty"


# --------------------------------------------------------------------------
# one declaration
# --------------------------------------------------------------------------


def test_the_view_is_declared_once_and_every_name_derives_from_it():
    assert VIEW_NAMES == tuple(name for name, _ in VIEW) and VIEW_FIELDS == len(VIEW) == len(set(VIEW_NAMES))
    assert all(isinstance(meaning, str) and meaning for _, meaning in VIEW)
    for index, name in enumerate(VIEW_NAMES):
        assert getattr(game_view, f"VIEW_{name.upper()}") == index
        assert getattr(bots, name.upper()) == index
    for name in NAMES_BOTS_USE:
        assert getattr(bots, name) == VIEW_NAMES.index(name.lower())
    # The indices are plain integers: what numba needs to compile me[GOLD] to a constant index.
    assert all(type(getattr(bots, name)) is int for name in NAMES_BOTS_USE)


# --------------------------------------------------------------------------
# legality: the view's mask, apply_action and the rules agree
# --------------------------------------------------------------------------


def copy_table(table):
    return Table(*[np.copy(field) for field in table])


def random_state(rules, rng):
    """A table whose seat 0 has random gold, level, units (pairs likely), shop, pool and loaded roll."""
    table = fresh_table(rules)
    n = rules.champion_copies.shape[0]
    few = rng.choice(n, size=min(n, 4), replace=False)  # units and shops drawn from few champions: pairs, combines
    level = int(rng.integers(1, rules.max_level + 1))
    table.level[0] = level
    table.gold[0] = int(rng.integers(0, 3 * rules.tier_cost.max() + 2))
    capacity = rules.bench_size + rules.level_board_size[level]
    target = capacity if rng.random() < 0.4 else int(rng.integers(0, capacity + 1))  # full benches often
    for _ in range(target):
        champion = int(rng.choice(few)) if rng.random() < 0.7 else int(rng.integers(n))
        if table.n_units[0] < capacity:
            add_unit(rules, table, 0, champion)
    for slot in range(rules.shop_size):
        if rng.random() < 0.8:
            table.shops[0, slot] = int(rng.choice(few)) if rng.random() < 0.6 else int(rng.integers(n))
    table.pool[:] = rng.integers(0, 3, size=n)  # sold out often: matters when shown units stay in the pool
    table.loaded_used[0] = rng.random() < 0.3
    return table


def view_of(rules, table, round_index=5):
    desk = fresh_desk(rules, table, 0)
    fill_turn_view(rules, table, desk, 0, round_index, rules.players)
    fill_decision_view(rules, table, desk, 0, SEEDS[0], 0, 0)
    return desk.me[0].copy()


def buy_is_legal_by_the_rules(config, table, slot):
    """The buy rule as the configuration states it (the reference, written here from the rules' text)."""
    if not 0 <= slot < config.shop_size or table.shops[0, slot] < 0:
        return False
    champion = table.shops[0, slot]
    if table.gold[0] < config.tier_cost[config.champion_tier[champion]]:
        return False
    units = table.n_units[0]
    ones = sum(1 for u in range(units) if table.unit_champion[0, u] == champion and table.unit_star[0, u] == 1)
    room = units < config.bench_size + config.level_board_size[table.level[0]]
    if not room and ones < 2:  # a full bench takes only a unit that makes a 2-star at once
        return False
    return config.units_leave_pool or table.pool[champion] >= 1


def applies(rules, table, action, argument):
    """Whether apply_action accepts the action on a copy of ``table``, and whether a refusal changed nothing."""
    trial = copy_table(table)
    legal = apply_action(rules, HAYSTACK, trial, 0, 5, 1, SEEDS, action, argument)
    if not legal:
        assert all(np.array_equal(a, b) for a, b in zip(trial, table)), "an illegal action changed the table"
    return legal


CONFIGS = {
    "set4": lambda: load_config(ROOT / "configs" / "set4.yaml"),
    "tiny": lambda: load_config(ROOT / "configs" / "tiny.yaml"),
    "tiny, units stay in the pool": lambda: edited("tiny", stay_in_pool),
    "set4, units stay in the pool": lambda: edited("set4", stay_in_pool),
    "tiny, empty tiers": lambda: edited("tiny", empty_tier),
}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_the_mask_is_what_apply_action_and_the_rules_say(name):
    config = CONFIGS[name]()
    rules = rules_of(config)
    rng = np.random.default_rng(sum(map(ord, name)))
    seen = {"buy": set(), "xp": set(), "reroll": set(), "loaded": set()}
    for _ in range(150):
        table = random_state(rules, rng)
        me = view_of(rules, table)
        assert me[bots.UNITS] == table.n_units[0] and me[bots.GOLD] == table.gold[0]
        for slot in range(-1, rules.shop_size + 2):
            expected = buy_is_legal_by_the_rules(config, table, slot)
            assert applies(rules, table, ACTION_BUY, slot) == expected
            assert bots.can_buy(slot, me) == expected
            assert bots.can_buy(slot, me, me, me, me, me) == expected  # the long form bots used before
            if 0 <= slot < rules.shop_size:
                assert bool((me[bots.BUYABLE] >> slot) & 1) == expected
            seen["buy"].add(expected)
        assert me[bots.BUYABLE] >> rules.shop_size == 0
        expected = table.gold[0] >= config.xp_price and table.level[0] < config.max_level
        assert applies(rules, table, ACTION_BUY_XP, 0) == expected == bots.can_buy_xp(me) == bool(me[bots.CAN_BUY_XP])
        seen["xp"].add(expected)
        expected = table.gold[0] >= config.reroll_price
        assert applies(rules, table, ACTION_REROLL, 0) == expected == bots.can_reroll(me) == bool(me[bots.CAN_REROLL])
        seen["reroll"].add(expected)
        expected = not table.loaded_used[0]
        assert bots.can_loaded_roll(me) == expected == bool(me[bots.CAN_LOADED_ROLL])
        n_traits = len(config.trait_names)
        for trait in (-1, 0, n_traits - 1, n_traits):
            assert applies(rules, table, ACTION_LOADED_ROLL, trait) == (expected and 0 <= trait < n_traits)
        seen["loaded"].add(expected)
        for unit in (-1, 0, table.n_units[0] - 1, table.n_units[0]):
            expected = 0 <= unit < table.n_units[0]
            assert applies(rules, table, ACTION_SELL, unit) == expected == bots.can_sell(unit, me)
    assert all(outcomes == {True, False} for outcomes in seen.values()), seen  # both answers were exercised


def test_a_full_bench_still_buys_the_third_copy_unless_the_pool_is_dry():
    """The states the old restated rule got wrong: a pair completes with a full bench, a dry pool refuses."""
    for config in (load_config(ROOT / "configs" / "tiny.yaml"), edited("tiny", stay_in_pool)):
        rules = rules_of(config)
        table = fresh_table(rules)
        capacity = rules.bench_size + rules.level_board_size[1]
        add_unit(rules, table, 0, 0)
        add_unit(rules, table, 0, 0)
        for champion in range(1, capacity - 1):
            add_unit(rules, table, 0, champion)
        assert table.n_units[0] == capacity
        table.gold[0] = 10
        table.shops[0, :] = [0, 5, -1]  # the pair's third copy, a stranger, an empty slot
        table.pool[0] = 0.0
        me = view_of(rules, table)
        assert me[bots.BUYABLE] == (0 if not config.units_leave_pool else 0b001)
        table.pool[0] = 1.0
        me = view_of(rules, table)
        assert me[bots.BUYABLE] == 0b001 and applies(rules, table, ACTION_BUY, 0)


# --------------------------------------------------------------------------
# stages in the view, and the level curve
# --------------------------------------------------------------------------


def declared_stage_rounds(name):
    return [stage["rounds"] for stage in yaml.safe_load((ROOT / "configs" / f"{name}.yaml").read_text())["stages"]]


@pytest.mark.parametrize("name", ["set4", "tiny"])
def test_the_view_knows_each_rounds_place_in_its_stage(name):
    config = load_config(ROOT / "configs" / f"{name}.yaml")
    rules = rules_of(config)
    declared = declared_stage_rounds(name)
    expected = []  # (stage, round in stage, rounds in stage), the last declared stage repeating
    stage = 0
    while len(expected) < config.max_rounds:
        rounds = declared[min(stage, len(declared) - 1)]
        expected += [(stage + 1, r + 1, rounds) for r in range(rounds)]
        stage += 1
    expected = expected[:config.max_rounds]
    if expected[-1][1] != expected[-1][2]:  # max_rounds cuts the last stage short: it counts what is left
        cut = expected[-1][1]
        expected = expected[:-cut] + [(s, r, cut) for s, r, _ in expected[-cut:]]
    table = fresh_table(rules)
    for round_index in range(0, config.max_rounds, 3):
        me = view_of(rules, table, round_index)
        assert (me[bots.STAGE], me[bots.ROUND_IN_STAGE], me[bots.STAGE_ROUNDS]) == expected[round_index]
        assert me[bots.STAGES] == len(declared)
    round_in_stage, stage_rounds = stage_positions(config.round_stage)
    assert [(config.round_stage[r] + 1, round_in_stage[r], stage_rounds[r]) for r in range(config.max_rounds)] == \
        expected


def curve(config, rounds):
    rules = rules_of(config)
    table = fresh_table(rules)
    return [bots.curve_level(view_of(rules, table, r)) for r in range(rounds)]


# Set 4's standard level curve (what bots hard-coded before): level 4 at 2-1, 5 at 2-5, 6 at 3-2, 7 at 4-1,
# 8 at 5-1, 9 at 6-1. Set 4 has stage 1 of 3 rounds, then stages of 6.
SET4_STANDARD = {(2, 1): 4, (2, 5): 5, (3, 2): 6, (4, 1): 7, (5, 1): 8, (6, 1): 9}


def set4_standard(stage, step):
    level = 3
    for (s, r), value in SET4_STANDARD.items():
        if (stage, step) >= (s, r):
            level = value
    return level


def test_the_level_curve_stays_close_to_set4s_standard_curve():
    config = load_config(ROOT / "configs" / "set4.yaml")
    levels = curve(config, 45)
    places = [(1, r) for r in range(1, 4)] + [(s, r) for s in range(2, 9) for r in range(1, 7)]
    standard = [set4_standard(*place) for place in places[:45]]
    assert all(abs(a - b) <= 1 for a, b in zip(levels, standard)), list(zip(places, levels, standard))
    for level in range(3, 10):  # each level arrives within two rounds of the standard curve's
        assert abs(levels.index(level) - standard.index(level)) <= 2, level
    assert levels[:3] == [3, 3, 3] and levels[3] == 4 and levels[places.index((4, 1))] == 7
    assert levels == sorted(levels) and levels[-1] == 9


def test_the_level_curve_follows_the_configurations_stages():
    """More stages make a slower curve that still ends at the max level at the next-to-last stage listed."""
    config = load_config(ROOT / "configs" / "set4.yaml")

    def twelve_stages(data):
        data["stages"] = data["stages"][:1] + [dict(data["stages"][1]) for _ in range(11)]
        data["max_rounds"] = 200

    longer = edited("set4", twelve_stages)
    levels, short = curve(longer, 80), curve(config, 80)
    first_round_of_stage = [0, 3] + [3 + 6 * k for k in range(1, 11)]
    assert levels[:3] == [3, 3, 3] and levels[3] == 4
    assert levels == sorted(levels) and max(levels) == 9
    assert levels[first_round_of_stage[10]] == 9 > levels[first_round_of_stage[9]]  # due when stage 11 of 12 starts
    assert all(a <= b for a, b in zip(levels, short)) and levels != short
    # A small max level caps the curve; few stages bring the max level with stage 2.
    tiny = load_config(ROOT / "configs" / "tiny.yaml")
    assert curve(tiny, 10) == [3, 3] + [4] * 8

    def five_levels(data):
        data["levels"] = {level: data["levels"][level] for level in range(1, 6)}

    capped = curve(edited("set4", five_levels), 45)
    assert max(capped) == 5 and capped == sorted(capped)


def _strongest_trait_by_definition(units, unit_champion, champion_traits, n_traits):
    counts = [len({c for c in unit_champion[:units] if t in champion_traits[c]}) for t in range(n_traits)]
    return -1 if max(counts, default=0) == 0 else counts.index(max(counts))


@pytest.mark.parametrize("units_held", [(0, 18), (60, 70)])
def test_the_strongest_trait_is_the_definitions(units_held):
    """``strongest_trait`` (distinct champions held per trait, ties to the lower id) against its definition, on
    random holdings, many with duplicates, some of distinct champions only: within the 63 units and 63 traits
    its masks cover (their top bits included), and beyond them; champions below and above the 63 it remembers
    in a mask."""
    rng = np.random.Generator(np.random.Philox(31))
    n_champions = 80
    me = np.zeros(VIEW_FIELDS, dtype=np.int64)
    for trial in range(600):
        n_traits = (9, 62, 63, 64, 70)[trial % 5]
        champion_traits = np.full((n_champions, 3), -1, dtype=np.int64)
        for c in range(n_champions):
            traits = int(rng.integers(0, 4))
            # Few traits in play, so that counts tie and climb; high ids where the masks end.
            pool = np.arange(n_traits)[-6:] if trial % 4 == 1 else np.arange(min(n_traits, 9))
            champion_traits[c, :traits] = rng.choice(pool, traits, replace=False)
        units = int(rng.integers(*units_held, endpoint=True))
        unit_champion = np.full(max(units, 1) + 2, -1, dtype=np.int64)
        if trial % 3 == 0:  # every unit a first copy: the mask's last bits count
            unit_champion[:units] = rng.permutation(n_champions)[:units]
        else:  # few champions, many copies of each, below or across the 63 remembered in a mask
            unit_champion[:units] = (55 if trial % 2 else 0) + rng.integers(0, int(rng.integers(1, 16)), units)
        me[bots.UNITS] = units
        expected = _strongest_trait_by_definition(units, unit_champion.tolist(),
                                                  [set(row) for row in champion_traits.tolist()], n_traits)
        assert bots.strongest_trait(me, unit_champion, champion_traits, n_traits) == expected, trial


def test_the_strongest_trait_counts_every_unit_up_to_the_last():
    """Two traits tied over all but the last unit, which breaks the tie the other way: for every count of units
    around the 63 a mask of first copies covers, the last unit must count (a mask a bit short, or the fallback a
    unit late, says trait 0)."""
    me = np.zeros(VIEW_FIELDS, dtype=np.int64)
    for units in range(2, 70):
        champion_traits = np.full((units, 3), -1, dtype=np.int64)
        tied = 2 * ((units - 1) // 2)  # units shared equally by traits 0 and 1; one more without a trait if odd
        champion_traits[np.arange(tied), 0] = np.arange(tied) % 2
        champion_traits[units - 1, 0] = 1
        unit_champion = np.arange(units + 2, dtype=np.int64)
        me[bots.UNITS] = units
        assert bots.strongest_trait(me, unit_champion, champion_traits, 2) == 1, units


def test_copies_owned_is_its_definition_for_every_star():
    """``copies_owned`` (counted without a branch per unit) against its definition, the copies of each unit of the
    champion among the first ``me[UNITS]``: 1, 3 or 9 by star, and 9 for a star out of range, as
    ``copies_of_star`` says; units beyond ``me[UNITS]`` never count."""
    rng = np.random.Generator(np.random.Philox(37))
    me = np.zeros(VIEW_FIELDS, dtype=np.int64)
    for trial in range(500):
        capacity = int(rng.integers(1, 24))
        unit_champion = rng.integers(0, 6, capacity).astype(np.int64)
        unit_star = rng.integers(-1, 5, capacity).astype(np.int64)
        units = int(rng.integers(0, capacity + 1))
        me[bots.UNITS] = units
        for champion in range(-1, 7):
            expected = sum(bots.copies_of_star(int(star)) for c, star in zip(unit_champion[:units], unit_star[:units])
                           if c == champion)
            assert bots.copies_owned(champion, me, unit_champion, unit_star) == expected, (trial, champion)


def test_a_seats_policy_blocks_computed_ahead_are_the_blocks_at_their_addresses():
    """The policy's random values, read from blocks computed ``POLICY_BLOCKS_AHEAD`` at a time, against each block
    computed at its address: decisions one after another across several batches, seats interleaved, a step back,
    a jump ahead, and the same counter under another seed (a desk reused for a new game)."""
    from numba import njit

    from autodup.engine.rng import random_bits_pair
    from autodup.game.rules import STREAM_POLICY_KEY
    from autodup.game.state import POLICY_BLOCKS_AHEAD
    from autodup.game.turn import _policy_block

    @njit
    def read(desk, seats, seeds, counters, out):
        for i in range(seats.shape[0]):
            out[i, 0], out[i, 1] = _policy_block(desk, seats[i], seeds[i], counters[i])

    rules = rules_of(load_config("tiny"))
    desk = fresh_desk(rules, fresh_table(rules), 1)
    steps = [(seat, 11, k) for k in range(3 * POLICY_BLOCKS_AHEAD + 2) for seat in (0, 1)]
    steps += [(0, 11, 5), (0, 11, 6), (1, 11, 200), (1, 11, 199), (0, 12, 6), (0, 11, 6), (1, 13, 215)]
    seats, seeds, counters = (np.array(column) for column in zip(*steps))
    out = np.zeros((len(steps), 2), dtype=np.uint64)
    read(desk, seats, seeds.astype(np.uint64), counters, out)
    for (seat, seed, k), (low, high) in zip(steps, out):
        assert (low, high) == random_bits_pair(np.uint64(seed), STREAM_POLICY_KEY, np.uint64(k)), (seat, seed, k)
