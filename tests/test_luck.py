"""Luck terms and the luck-adjusted estimator: zero mean under the game's law, caught when not, unbiased, and the
paired seating design."""

import numpy as np
import pytest

from autodup.boards import SEATING_PAIRED, play_boards, scored_seat, seat_bot
from autodup.bots import load_bot, policy_tuple
from autodup.config import load_config
from autodup.game import LUCK_NAMES, rules_of
from autodup.luck import FEATURE_NAMES, CrossFit, adjusted_placements, luck_features

SET4 = rules_of(load_config("set4"))
BOTS = ["greedy", "traits", "reroll3", "econ", "fast8", "random", "reroll1", "reroll2"]
Z_LIMIT = 4.5  # per term; 10 terms: a false alarm about once in 15,000 runs


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
    assert varies[[LUCK_NAMES.index(name) for name in ("coin", "matchmaking", "shop_hits", "shop_cost")]].all()
    z = z_scores(per_table[:, varies])
    assert np.all(np.abs(z) < Z_LIMIT), dict(zip(np.array(LUCK_NAMES)[varies], np.round(z, 2)))
    # Each term is the luck of its events, not noise: the combat coin explains a good part of placements.
    coin = played.luck[..., LUCK_NAMES.index("coin")].reshape(-1)
    placement = played.results[..., 0].reshape(-1)
    assert np.corrcoef(coin, placement)[0, 1] < -0.2  # -0.28 measured


def test_a_term_that_is_not_zero_mean_is_caught():
    """replay keeps its planned odds while copies run out: the shop-hit term's expectation is wrong for it."""
    lineup = policy_tuple([load_bot(name) for name in BOTS])
    played = play_boards(SET4, "replay", *lineup, seed=5, boards=150, tables=8, n_bots=8)
    per_board = played.luck.sum(axis=(1, 2))  # a board's tables share seeds: the board is the unit
    z = z_scores(per_board)
    assert abs(z[LUCK_NAMES.index("shop_hits")]) > 2 * Z_LIMIT


def test_cross_fitting_recovers_exact_slopes_without_noise():
    generator = np.random.default_rng(3)
    rows = 400
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
    # var(raw) = 2 (1.5^2 + 0.8^2 + 0.5^2) / boards, var(adjusted) ~ 2 (0.5^2) / boards: about 12x.
    assert raw.var() / adjusted.var() > 8


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
    from autodup.tournament import board_totals

    columns = {"board": np.repeat([0, 1], 4), "table": np.tile(np.repeat([0, 1], 2), 2),
               "seat": np.tile([0, 1], 4), "bot": np.array(["a", "b", "b", "b", "a", "a", "a", "b"]),
               "placement": np.array([1, 2, 2, 1, 2, 1, 1, 2])}
    totals = board_totals(columns, "paired")
    # board 0: focal seat 0 (a placed 1, b placed 2); board 1: focal seat 1 (a placed 1, b placed 2)
    assert totals["a"]["placement"].tolist() == [1, 1] and totals["b"]["placement"].tolist() == [2, 2]
    assert totals["a"]["duplicate"].tolist() == [-0.5, -0.5]
