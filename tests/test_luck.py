"""Luck terms and the luck-adjusted estimator: zero mean under the game's law, caught when not, unbiased, and the
paired seating design."""

import numpy as np
import pytest

from autodup.analysis.luck import (
    FEATURE_NAMES,
    LUCK_SOURCES,
    ROWS_PER_SLOPE,
    CrossFit,
    adjusted_placements,
    luck_features,
)
from autodup.game import combat as game_combat
from autodup.game import state as game_state
from autodup.game import stats as game_stats
from autodup.game import units as game_units
from autodup.game.boards import SEATING_PAIRED, play_boards, scored_seat, seat_bot
from autodup.game.bot_loading import load_bot, policy_tuple
from autodup.game.config import load_config
from autodup.game.rules import rules_of
from autodup.game.stats import LUCK_NAMES
from autodup.internal_kernels import python_entry

SET4 = rules_of(load_config("set4"))
BOTS = ["greedy", "traits", "reroll3", "econ", "fast8", "random", "reroll1", "reroll2"]
# An internal kernel (compiled code calls it): called from Python through an entry compiled here.
prepare_fights = python_entry(game_combat.prepare_fights)
Z_LIMIT = 4.5  # per term; 15 terms: a false alarm about once in 10,000 runs


def z_scores(per_unit: np.ndarray) -> np.ndarray:
    """z of each column's mean against 0, the rows being independent units."""
    with np.errstate(invalid="ignore", divide="ignore"):  # a term that never varied: nan, not an alarm
        return per_unit.mean(axis=0) / (per_unit.std(axis=0, ddof=1) / np.sqrt(per_unit.shape[0]))


@pytest.fixture(scope="module")
def control_tables():
    """2,000 independent set4 tables (events by seat), every shipped bot rotating over the seats."""
    lineup = policy_tuple([load_bot(name) for name in BOTS])
    return play_boards(SET4, "independent", *lineup, seed=77, boards=2000, seating="rotating", n_bots=8)


@pytest.mark.parametrize("events", ["seat", "position"])
def test_every_luck_term_has_mean_zero_under_the_control(control_tables, events):
    lineup = policy_tuple([load_bot(name) for name in BOTS])
    played = control_tables if events == "seat" else play_boards(
        SET4, "independent", *lineup, seed=78, boards=2000, seating="rotating", n_bots=8, events="position")
    per_table = played.luck.sum(axis=2).reshape(-1, len(LUCK_NAMES))  # the seats of a table are not independent
    varies = per_table.std(axis=0) > 0
    # Every term varies, but tie-breaks only seat by seat: over a table, the places a tie shares sum to its mean's.
    assert np.delete(varies, LUCK_NAMES.index("tiebreak")).all(), np.array(LUCK_NAMES)[~varies]
    z = z_scores(per_table[:, varies])
    assert np.all(np.abs(z) < Z_LIMIT), dict(zip(np.array(LUCK_NAMES)[varies], np.round(z, 2)))
    # Each term is the luck of its events, not noise: a seat the combat coin favoured places better than its table.
    # The tables are the independent units: each one's covariance of coin and placement across its seats, whose
    # mean over tables is negative by more than Z_LIMIT of its standard errors.
    players = played.results.shape[-2]
    coin = played.luck[..., LUCK_NAMES.index("coin")].reshape(-1, players)
    placement = played.results[..., 0].reshape(-1, players).astype(float)
    covariance = ((coin - coin.mean(axis=1, keepdims=True))
                  * (placement - placement.mean(axis=1, keepdims=True))).sum(axis=1)
    assert z_scores(covariance[:, None])[0] < -Z_LIMIT


def fight_state(seed: int, alive: int = 8):
    """A set4 table at round 20 with random units (level 6), HPs and ``alive`` seats, prepared for its fights
    (prepare_fights: boards measured, state values kept, each seat's matchmaking means subtracted)."""
    generator = np.random.default_rng(seed)
    table = game_state.fresh_table(SET4)
    table.level[:] = 6
    for seat in range(8):
        count = int(generator.integers(1, 7))
        table.n_units[seat] = count
        table.unit_champion[seat, :count] = generator.integers(0, SET4.champion_copies.shape[0], count)
        table.unit_star[seat, :count] = generator.integers(1, 3, count)
        table.hp[seat] = int(generator.integers(1, 101))
    table.alive[alive:] = False
    order = np.zeros(table.unit_champion.shape[1], dtype=np.int64)
    traits = np.zeros(SET4.trait_breakpoints.shape[0], dtype=np.int64)
    prepare_fights(SET4, table, 20, order, traits)
    return table


COIN_TERMS = [LUCK_NAMES.index(name) for name in LUCK_SOURCES["combat coin"]]
MATCHMAKING_TERMS = [LUCK_NAMES.index(name) for name in LUCK_SOURCES["matchmaking"]]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("ghost", [False, True])
def test_coin_terms_average_to_zero_over_the_coin_exactly(seed, ghost):
    """Every seat's coin terms (the fighters' and the onlookers'), weighted by the coin's two outcomes'
    probabilities, sum to zero: enumeration, no sampling."""
    table = fight_state(seed, alive=7)
    a, b = 1, 4
    p_a, damage_a, damage_b = game_combat._fight_odds(SET4, table, a, b, 20)
    assert 0.0 < p_a < 1.0
    expected = np.zeros_like(table.luck)
    moved = np.zeros(len(LUCK_NAMES), dtype=bool)
    for a_wins, chance in ((True, p_a), (False, 1.0 - p_a)):
        table.luck[:] = 0.0
        game_combat._add_fight_luck(SET4, table, a, a_wins, p_a, damage_a, b, 0.0 if ghost else damage_b)
        if not ghost:
            game_combat._add_fight_luck(SET4, table, b, not a_wins, 1.0 - p_a, damage_b, a, damage_a)
        game_combat._add_onlooker_luck(SET4, table, a, b, not ghost, a_wins, p_a, damage_a, damage_b)
        expected += chance * table.luck
        moved |= np.any(table.luck != 0.0, axis=0)
    assert moved[COIN_TERMS].all()  # every coin term moved with the outcome, for some seat
    np.testing.assert_allclose(expected[:, COIN_TERMS], 0.0, atol=1e-12)
    onlooker = LUCK_NAMES.index("coin_onlooker")
    seats_moved = {seat for seat in range(8) if expected[seat, onlooker] != 0.0 or table.luck[seat, onlooker] != 0.0}
    assert seats_moved == set(range(7)) - {a} - (set() if ghost else {b})  # the dead seat looks on at nothing


@pytest.mark.parametrize("seed", range(4))
def test_matchmaking_terms_average_to_zero_over_the_pairing_law_exactly(seed):
    """What prepare_fights subtracts is the mean, over the seat's possible opponents (uniform), of what the
    fight adds: enumeration of the opponents."""
    alive = 6
    table = fight_state(seed, alive=alive)
    subtracted = table.luck.copy()
    for seat in range(alive):
        added = np.zeros(len(LUCK_NAMES))
        for other in range(alive):
            if other == seat:
                continue
            p_win, damage_if_lost, damage_to_other = game_combat._fight_odds(SET4, table, seat, other, 20)
            table.luck[:] = 0.0
            game_combat._add_fight_luck(SET4, table, seat, True, p_win, damage_if_lost, other, damage_to_other)
            added += table.luck[seat] / (alive - 1)
        np.testing.assert_allclose(subtracted[seat, MATCHMAKING_TERMS] + added[MATCHMAKING_TERMS], 0.0, atol=1e-12)
        assert np.all(subtracted[seat, MATCHMAKING_TERMS] != 0.0)


def _value(table, seat, loss):
    """The seat's value once it has lost ``loss`` HP in the round's fights (combat._value, its terms not kept)."""
    return game_combat._value(SET4, table, seat, loss, np.zeros(table.alive.shape[0]), False)


@pytest.mark.parametrize("seed", range(6))
def test_states_after_a_loss_are_computed_once_per_damage_and_equal_the_definition_exactly(seed):
    """prepare_fights computes a seat's value after a loss once per distinct damage and copies it to the other
    opponents that deal the same damage: bit for bit what the definition gives for each pair."""
    table = fight_state(seed, alive=8)
    reused = 0
    for seat in range(8):
        damages = []
        for other in range(8):
            if other == seat:
                continue
            _, damage_if_lost, _ = game_combat._fight_odds(SET4, table, seat, other, 20)
            reused += damage_if_lost in damages
            damages.append(damage_if_lost)
            assert table.value_if_lost[seat, other] == _value(table, seat, damage_if_lost)
    assert reused > 0  # the shared path ran


def test_the_values_hp_factor_memo_gives_the_exponential_bit_for_bit_and_falls_back_outside_it():
    """_hp_factor serves exp(-d / (VALUE_SCALE H)) for whole HP differences within +-H from the table's memo
    (value_terms), filled on first use, each equal to the exponential computed afresh (glibc's exp, as the
    compiled game's); a fractional difference, one beyond the memo and a table without a memo compute it."""
    import math

    table = game_state.fresh_table(SET4)
    hp = SET4.starting_hp
    scale = game_stats.VALUE_SCALE * hp
    assert table.value_terms.shape == (2 * hp + 1,) and not table.value_terms.any()
    for difference in [float(d) for d in range(-hp - 3, hp + 4)] + [0.5, -17.25]:
        expected = math.exp(-difference / scale)
        assert game_combat._hp_factor(table, difference, scale) == expected  # computed (and memoized)
        assert game_combat._hp_factor(table, difference, scale) == expected  # read back
    assert table.value_terms.all()
    np.testing.assert_array_equal(table.value_terms, [math.exp(-float(d) / scale) for d in range(-hp, hp + 1)])
    no_memo = table._replace(value_terms=np.zeros(0))
    assert game_combat._hp_factor(no_memo, 3.0, scale) == math.exp(-3.0 / scale)


@pytest.mark.parametrize("seed", range(4))
def test_the_fights_odds_are_the_logistic_of_the_strengths_and_the_values_terms_the_logistic_of_their_edge(seed):
    """prepare_fights keeps each pair's odds (fight_odds), the product of the two seats' factors about their
    strengths' midrange (results format 11): a fight's P(a beats b) is the logistic of the boards' log-power
    difference within 1e-14, and bit for bit 1 / (1 + weakness[a] threat[b]); each of the value's terms
    (_outlasts: the HP factor times those odds) is the logistic of its summed edge within 1e-14. The odds follow
    the boards from round to round: a seat that dies and a board that changes between two rounds are seen by the
    next round's odds."""
    import math

    table = fight_state(seed, alive=7)
    scale = game_stats.VALUE_SCALE * SET4.starting_hp
    strength = table.fight_strength
    for a in range(7):
        for b in range(7):
            if a == b:
                continue
            p_a, _, _ = game_combat._fight_odds(SET4, table, a, b, 20)
            assert p_a == 1.0 / (1.0 + table.fight_weakness[a] * table.fight_threat[b])
            assert p_a == pytest.approx(1.0 / (1.0 + math.exp(strength[b] - strength[a])), rel=1e-14, abs=0.0)
            # At the round's HP, and after losses that leave both alive (0 HP or below: the terms are 0 or 1).
            for hp_a, hp_b in ((table.fight_hp[a], table.fight_hp[b]),
                               (max(table.fight_hp[a] - 7, 1.0), max(table.fight_hp[b] - 3, 1.0))):
                edge = (hp_a - hp_b) / scale + strength[a] - strength[b]
                term = game_combat._outlasts(SET4, table, a, table.fight_hp[a] - hp_a, b, table.fight_hp[b] - hp_b)
                assert term == pytest.approx(1.0 / (1.0 + math.exp(-edge)), rel=1e-14, abs=0.0)
    # The next round: seat 6 is gone and seat 0's board lost its units but one; every pair's odds are computed again.
    table.alive[6] = False
    table.n_units[0] = 1
    table.board_changed[0] = True  # as the units' own helpers mark it (autodup.game.units)
    order = np.zeros(table.unit_champion.shape[1], dtype=np.int64)
    traits = np.zeros(SET4.trait_breakpoints.shape[0], dtype=np.int64)
    before = strength[0]
    prepare_fights(SET4, table, 21, order, traits)
    assert strength[0] < before
    for a in range(6):
        for b in range(6):
            if a != b:
                exact = 1.0 / (1.0 + math.exp(strength[b] - strength[a]))
                assert game_combat._fight_odds(SET4, table, a, b, 21)[0] == pytest.approx(exact, rel=1e-14, abs=0.0)


def test_a_board_is_measured_again_exactly_when_its_units_or_level_change():
    """prepare_fights measures a seat's board (its power, units and strength) only when its units or level changed
    since it last did: the units' helpers (add_unit, remove_unit, level_up) mark it. Every kept measure equals a
    fresh one bit for bit, round after round; a change written around the helpers is not seen, so the mark, not
    a recomputation, is what keeps the measure fresh."""
    table = game_state.fresh_table(SET4)
    table.level[:] = 5
    champions = SET4.champion_copies.shape[0]
    for seat in range(8):
        for k in range(4):
            game_units.add_unit(SET4, table, seat, (7 * seat + 5 * k) % champions)
    order = np.zeros(table.unit_champion.shape[1], dtype=np.int64)
    traits = np.zeros(SET4.trait_breakpoints.shape[0], dtype=np.int64)

    def measured_as_fresh():
        for seat in range(8):
            power, units = game_units.board_power(SET4, table, seat, order, traits)
            if (table.fight_power[seat], table.fight_units[seat]) != (power, units):
                return False
            if table.fight_strength[seat] != np.log(power + 1.0) / SET4.combat_scale:
                return False
        return True

    prepare_fights(SET4, table, 10, order, traits)
    assert not table.board_changed.any() and measured_as_fresh()
    before = table.fight_power.copy()
    game_units.add_unit(SET4, table, 1, 30)
    game_units.remove_unit(SET4, table, 2, 0)
    table.xp[3] = SET4.level_xp[6]
    game_units.level_up(SET4, table, 3)
    assert table.level[3] == 6 and list(np.flatnonzero(table.board_changed)) == [1, 2, 3]
    prepare_fights(SET4, table, 11, order, traits)
    assert not table.board_changed.any() and measured_as_fresh()
    assert table.fight_power[1] > before[1] and table.fight_power[2] < before[2]
    np.testing.assert_array_equal(table.fight_power[4:], before[4:])
    # Around the helpers: seat 4's first unit made a 3-star by hand is not measured (the mark is the mechanism).
    table.unit_star[4, 0] = 3
    prepare_fights(SET4, table, 12, order, traits)
    assert table.fight_power[4] == before[4] and not measured_as_fresh()


def test_the_fights_odds_are_one_exponential_each_when_the_strengths_span_too_wide_for_factors():
    """With a combat scale so small that the strengths span more than prepare_fights' factors can carry (each
    within exp(+-300)), every pair's odds are exp(s_b - s_a) itself, bit for bit: no product of an overflowing and
    a vanishing factor (inf x 0, NaN) reaches a fight, and odds beyond the doubles' range are inf or 0, so
    P(a beats b) is exactly 0 or 1."""
    import math

    rules = SET4._replace(combat_scale=1e-3)
    table = game_state.fresh_table(rules)
    table.level[:] = 6
    for seat in range(8):
        table.n_units[seat] = 1 + seat % 3
        table.unit_champion[seat, :3] = [seat, seat + 9, seat + 20]
        table.unit_star[seat, :3] = 1 + seat % 2
    order = np.zeros(table.unit_champion.shape[1], dtype=np.int64)
    traits = np.zeros(rules.trait_breakpoints.shape[0], dtype=np.int64)
    prepare_fights(rules, table, 20, order, traits)
    strength = table.fight_strength
    assert strength.max() - strength.min() > game_combat._FACTORED_SPREAD
    certain = 0
    for a in range(8):
        for b in range(8):
            if a != b:
                difference = strength[b] - strength[a]
                assert table.fight_odds[a, b] == (math.exp(difference) if difference < 709.0 else math.inf)
                p_a = game_combat._fight_odds(rules, table, a, b, 20)[0]
                assert 0.0 <= p_a <= 1.0
                certain += p_a in (0.0, 1.0)
    assert certain > 0  # some pairs' odds left the doubles' range


def test_the_shops_tier_sums_equal_the_sums_in_order_bit_for_bit():
    """The shop's per-tier sums (the pool's tier totals; the weights of what a seat owns, of its pairs and of its
    trait fit) add whole numbers, and are compiled with reordered additions (``whole_sums_kernel``): every order
    gives the same bits. This compares them exactly with the loops in order that the game ran before, on set4's
    tiers with empty champions, owned flags and trait counts as a game has them; the tier totals also skip
    negative entries, as before (a game has none). A kernel that drops a champion, reads another tier or
    forgets a sum fails it."""
    from autodup.game.shop import positive_tier_totals, weighted_tier_sums

    rng = np.random.default_rng(11)
    tier_start = SET4.tier_start
    n, n_tiers = tier_start[-1], tier_start.shape[0] - 1
    for _ in range(200):
        weights = rng.integers(0, 30, n).astype(np.float64) * (rng.random(n) < 0.8)
        owned, pairs = (rng.random(n) < 0.2).astype(np.float64), (rng.random(n) < 0.1).astype(np.float64)
        fit = rng.integers(0, 7, n).astype(np.float64)
        signed = weights * np.where(rng.random(n) < 0.1, -1.0, 1.0)
        totals = np.full(n_tiers, np.nan)
        sums = [np.full(n_tiers, np.nan) for _ in range(3)]
        positive_tier_totals(signed, tier_start, totals)
        weighted_tier_sums(weights, owned, pairs, fit, tier_start, *sums)
        for t in range(n_tiers):
            in_order = [0.0, 0.0, 0.0, 0.0]
            for c in range(tier_start[t], tier_start[t + 1]):
                if signed[c] > 0.0:
                    in_order[0] += signed[c]
                if weights[c] > 0.0:
                    in_order[1:] = [in_order[1] + weights[c] * owned[c], in_order[2] + weights[c] * pairs[c],
                                    in_order[3] + weights[c] * fit[c]]
            assert [totals[t], sums[0][t], sums[1][t], sums[2][t]] == in_order


def test_value_is_expected_seats_outlasted():
    """The value is the sum over the other alive seats of a logistic in HP difference and board power, within
    1e-12 of the definition (its exponentials are products of factors); swapping one seat's term gives the value
    with that seat's HP replaced (the duel); a seat out of HP outlasts nobody."""
    table = fight_state(11, alive=7)
    scale = game_stats.VALUE_SCALE * SET4.starting_hp

    def by_hand(seat, hp, opponent=-1, opponent_hp=0.0):
        total = 0.0
        for other in range(7):
            if other == seat:
                continue
            other_hp = opponent_hp if other == opponent else table.fight_hp[other]
            if other_hp <= 0:
                total += 1.0
                continue
            edge = ((hp - other_hp) / scale + (np.log1p(table.fight_power[seat]) - np.log1p(table.fight_power[other]))
                    / SET4.combat_scale)
            total += 1.0 / (1.0 + np.exp(-edge))
        return total

    for seat in range(7):
        hp = table.fight_hp[seat]
        assert _value(table, seat, 0.0) == pytest.approx(by_hand(seat, hp), rel=1e-12)
        # Kept terms (what the fights' luck terms read again): one per other alive seat, summing to the value.
        terms = np.full(8, np.nan)
        value = game_combat._value(SET4, table, seat, 0.0, terms, True)
        assert value == _value(table, seat, 0.0)
        for other in range(8):
            if other == seat or not table.alive[other]:
                assert np.isnan(terms[other])
            else:
                assert terms[other] == game_combat._outlasts(SET4, table, seat, 0.0, other, 0.0)
        # The duel's value (_add_fight_luck): the value with the opponent's term swapped for its HP after (here 0).
        opponent = 3 if seat != 3 else 5
        duel = (_value(table, seat, 5)
                - game_combat._outlasts(SET4, table, seat, 5, opponent, 0.0)
                + game_combat._outlasts(SET4, table, seat, 5, opponent, table.fight_hp[opponent]))
        assert duel == pytest.approx(by_hand(seat, hp - 5, opponent, 0.0), rel=1e-12)
        assert _value(table, seat, hp) == 0.0
    assert 0.0 < _value(table, 0, 0.0) < 6.0


def test_a_term_that_is_not_zero_mean_is_caught():
    """replay keeps its planned odds while copies run out: the shop-hit term's expectation is wrong for it."""
    lineup = policy_tuple([load_bot(name) for name in BOTS])
    played = play_boards(SET4, "replay", *lineup, seed=5, boards=150, tables=8, n_bots=8)
    per_board = played.luck.sum(axis=(1, 2))  # a board's tables share seeds: the board is the unit
    z = z_scores(per_board)
    assert abs(z[LUCK_NAMES.index("shop_hits")]) > 2 * Z_LIMIT


def test_cross_fitting_recovers_exact_slopes_without_noise():
    generator = np.random.default_rng(3)
    rows = 480  # 34 features: a fold of 120 rows per bot is more than 3 per slope
    luck = generator.normal(size=(rows, len(FEATURE_NAMES)))
    bot = np.repeat([0, 1], rows // 2)
    board = np.tile(np.arange(rows // 2), 2)
    slopes = np.array([np.linspace(-1, 1, len(FEATURE_NAMES)), np.linspace(2, 0, len(FEATURE_NAMES))])
    placement = 4.5 + (luck * slopes[bot]).sum(axis=1)
    fit = CrossFit(2)
    fit.add(bot, board, placement, luck)
    fitted = fit.slopes()
    for fold in range(2):
        np.testing.assert_allclose(fitted[:, fold], slopes, atol=1e-8)
    np.testing.assert_allclose(adjusted_placements(fitted, bot, board, placement, luck), 4.5, atol=1e-8)
    only_coin = fit.slopes(["coin"])
    assert np.count_nonzero(only_coin[0, 0]) == 2  # the seat's own coin term and the field's


def test_slopes_are_fitted_only_from_enough_rows_per_varying_feature():
    """A fold is fitted from ROWS_PER_SLOPE training rows per varying feature, and not from one row fewer: bot 0
    has exactly enough rows, bot 1 one fewer per fold; a feature that never varies does not count."""
    generator = np.random.default_rng(5)
    varying = len(FEATURE_NAMES) - 1
    needed = ROWS_PER_SLOPE * varying
    bots, boards = [], []
    for bot, per_fold in ((0, needed), (1, needed - 1)):
        bots.append(np.full(2 * per_fold, bot))
        boards.append(np.arange(2 * per_fold))  # fold = board mod 2: per_fold rows in each
    bot, board = np.concatenate(bots), np.concatenate(boards)
    luck = generator.normal(size=(bot.size, len(FEATURE_NAMES)))
    luck[:, -1] = 0.0
    placement = 4.5 + 2.0 * luck[:, 0] + 0.1 * generator.normal(size=bot.size)
    fit = CrossFit(2)
    fit.add(bot, board, placement, luck)
    slopes, fitted = fit.slopes_and_fitted()
    np.testing.assert_array_equal(slopes, fit.slopes())
    assert np.all(np.abs(slopes[0, :, 0] - 2.0) < 0.1)
    assert not np.any(slopes[1])
    assert fitted.tolist() == [True, False]
    adjusted = adjusted_placements(slopes, bot, board, placement, luck)
    np.testing.assert_array_equal(adjusted[bot == 1], placement[bot == 1])  # unfitted: the raw placements


def test_the_adjusted_estimate_is_centred_on_a_known_true_difference():
    """Placements = a bot's true mean + luck with known slopes + noise; the luck terms have mean zero."""
    generator = np.random.default_rng(11)
    true_difference, boards, replications = 0.25, 400, 200
    raw, adjusted = [], []
    for _ in range(replications):
        board = np.repeat(np.arange(boards), 2)
        bot = np.tile([0, 1], boards)
        luck = generator.normal(size=(2 * boards, len(FEATURE_NAMES)))
        placement = 4.5 + true_difference * bot + 1.5 * luck[:, 0] - 0.8 * luck[:, 3] + 0.5 * generator.normal(
            size=2 * boards)
        fit = CrossFit(2)
        fit.add(bot, board, placement, luck)
        scores = adjusted_placements(fit.slopes(), bot, board, placement, luck)
        raw.append(placement[bot == 1].mean() - placement[bot == 0].mean())
        adjusted.append(scores[bot == 1].mean() - scores[bot == 0].mean())
    raw, adjusted = np.array(raw), np.array(adjusted)
    se = adjusted.std(ddof=1) / np.sqrt(replications)
    assert abs(adjusted.mean() - true_difference) < Z_LIMIT * se
    assert abs(raw.mean() - true_difference) < Z_LIMIT * raw.std(ddof=1) / np.sqrt(replications)
    # var(raw) = 2 (1.5^2 + 0.8^2 + 0.5^2) / boards. Adjusted, the noise's 2 (0.5^2) / boards, times what slopes
    # fitted on the other fold add out of sample: 1 + F / (n - F - 1) for F features fitted on n rows (Gaussian
    # features, least squares with an intercept), n = boards / 2 per bot. So about 10.4x, not the 12.6x of
    # known slopes. Each variance is over the replications: its log has standard error sqrt(2 / (R - 1)), and the
    # log of their ratio at most sqrt(4 / (R - 1)) (they share the noise, which only narrows it).
    features, rows = len(FEATURE_NAMES), boards // 2
    expected = (1.5**2 + 0.8**2 + 0.5**2) / (0.5**2 * (1 + features / (rows - features - 1)))
    assert abs(np.log(raw.var() / adjusted.var() / expected)) < Z_LIMIT * np.sqrt(4 / (replications - 1))


def test_field_features_are_the_mean_of_the_other_seats():
    luck = np.arange(12, dtype=np.float64).reshape(6, 2)  # two tables of three seats, two terms
    board = np.array([0, 0, 0, 0, 0, 0])
    table = np.array([0, 0, 0, 1, 1, 1])
    features = luck_features(luck, board, table)
    np.testing.assert_array_equal(features[:, :2], luck)
    np.testing.assert_array_equal(features[0, 2:], (luck[1] + luck[2]) / 2)
    np.testing.assert_array_equal(features[4, 2:], (luck[3] + luck[5]) / 2)


def test_paired_tables_differ_only_at_the_focal_seat_and_cover_every_bot_and_seat():
    players, n_bots = 8, 5
    fixed = np.zeros(players, dtype=np.int64)
    met = set()
    for board in range(players * n_bots):
        focal = int(scored_seat("paired", board, players))
        assert focal == board % players
        lineups = np.array([[seat_bot(SEATING_PAIRED, board, table, seat, n_bots, fixed) for seat in range(players)]
                            for table in range(n_bots)])
        others = np.delete(lineups, focal, axis=1)
        assert (others == others[0]).all()                                # the field is the same at every table
        assert sorted(lineups[:, focal]) == list(range(n_bots))           # every bot once at the focal seat
        met.add((focal, tuple(others[0])))
    assert len({focal for focal, _ in met}) == players and len(met) == players * n_bots
    assert scored_seat("latin", 3, players) == -1


def test_a_paired_run_scores_only_the_focal_seat():
    from autodup.analysis.summary import board_totals

    columns = {"board": np.repeat([0, 1], 4), "table": np.tile(np.repeat([0, 1], 2), 2),
               "seat": np.tile([0, 1], 4), "bot": np.array(["a", "b", "b", "b", "a", "a", "a", "b"]),
               "placement": np.array([1, 2, 2, 1, 2, 1, 1, 2])}
    totals = board_totals(columns, "paired")
    # board 0: focal seat 0 (a placed 1, b placed 2); board 1: focal seat 1 (a placed 1, b placed 2)
    assert totals["a"]["placement"].tolist() == [1, 1] and totals["b"]["placement"].tolist() == [2, 2]
    assert totals["a"]["duplicate"].tolist() == [-0.5, -0.5]


@pytest.mark.parametrize("rows_per_board, varying", [(1, len(FEATURE_NAMES)), (8, len(FEATURE_NAMES)), (3, 5)])
def test_the_boards_said_to_fit_the_slopes_do_and_fewer_do_not(rows_per_board, varying):
    """boards_to_fit() is what a run too small to fit its luck slopes tells the user to play: at that many
    boards every fold of every bot is fitted, and at 80% of the fewest that fit some fold is not."""
    generator = np.random.default_rng(4)

    def fit_of(boards):
        fit = CrossFit(2)
        board = np.repeat(np.arange(boards), 2 * rows_per_board)
        bot = np.tile(np.arange(2), boards * rows_per_board)
        luck = np.zeros((board.size, len(FEATURE_NAMES)))
        luck[:, :varying] = generator.normal(size=(board.size, varying))
        fit.add(bot, board, generator.normal(size=board.size) + 4.5, luck)
        return fit

    small = 5
    needed = fit_of(small).boards_to_fit(small)
    assert fit_of(needed).slopes_and_fitted()[1].all()
    fewest = next(boards for boards in range(2, needed + 1) if fit_of(boards).slopes_and_fitted()[1].all())
    assert not fit_of(int(0.8 * fewest)).slopes_and_fitted()[1].all()
    assert needed <= fewest + 2 * 2 + 1  # said no more than a board per fold beyond the fewest that fit
