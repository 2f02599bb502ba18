"""The value's corrections (AIVAT): mean zero kind by kind for the shipped value and for a deliberately bad one, a
shifted expectation caught, the value file checked, the training boards apart from every evaluation board."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from autodup.errors import ValueFileError
from autodup.game.boards import BRANCHES, play_boards, table_seeds
from autodup.game.bot_loading import bot_names, load_bot, policy_tuple
from autodup.game.config import load_config
from autodup.game.rules import rules_of
from autodup.game.stats import STAGE_BUCKETS
from autodup.game.value import (
    CORRECTION_KINDS,
    POOLED,
    VALUE_FEATURES,
    corrections_of_boards,
    parse_value,
    read_value_file,
    shipped_value_file,
)

SET4_CONFIG = load_config("set4")
SET4 = rules_of(SET4_CONFIG)
Z_LIMIT = 4.5  # per kind: 5 kinds x 2 values, a false alarm about once in 10,000 runs


@pytest.fixture(scope="module")
def roster():
    bots = [load_bot(name) for name in bot_names()]
    return bots, policy_tuple(bots)


@pytest.fixture(scope="module")
def evaluation_boards(roster):
    """300 set4 boards of the default run (haystack, Latin square, events by seat), every shipped bot."""
    bots, lineup = roster
    return play_boards(SET4, "haystack", *lineup, seed=4242, boards=300, tables=len(bots), seating="latin",
                       n_bots=len(bots))


def corrections(played, weights):
    """float64 (boards, tables, players, kinds): each seat's correction by kind under ``weights`` (bots, F)."""
    return corrections_of_boards(played.stage_luck, played.bots, weights)


def kind_z_scores(per_seat: np.ndarray) -> np.ndarray:
    """z of each kind's mean correction against 0, the board being the unit (a board's tables share seeds)."""
    per_board = per_seat.sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        return per_board.mean(axis=0) / (per_board.std(axis=0, ddof=1) / np.sqrt(per_board.shape[0]))


def shipped_weights(bots):
    model = read_value_file(shipped_value_file("set4"))
    return model.weights_for([b.name for b in bots], [b.fingerprint for b in bots])[0]


def test_the_shipped_value_is_fitted_on_set4_and_the_shipped_roster_as_they_are(roster):
    bots, _ = roster
    model = read_value_file(shipped_value_file("set4"))
    import hashlib

    assert model.matches(hashlib.sha256(SET4_CONFIG.text.encode()).hexdigest()), "set4 changed: run autodup luck fit"
    weights, pooled = model.weights_for([b.name for b in bots], [b.fingerprint for b in bots])
    assert pooled == [], f"bots changed since the value was fitted: {pooled} (run autodup luck fit)"
    assert model.training["branch"] == "training" and model.training["boards"] >= 2000
    assert weights.shape == (len(bots), len(VALUE_FEATURES)) and np.abs(weights).sum() > 0


@pytest.mark.parametrize("value", ["shipped", "bad"])
def test_every_kind_of_correction_has_mean_zero_for_any_value(roster, evaluation_boards, value):
    bots, _ = roster
    if value == "shipped":
        weights = shipped_weights(bots)
    else:  # a deliberately bad value: weights that have nothing to do with placements, and large
        weights = np.random.default_rng(2605).normal(0.0, 0.5, (len(bots), len(VALUE_FEATURES)))
    per_seat = corrections(evaluation_boards, weights)
    z = kind_z_scores(per_seat)
    varies = per_seat.reshape(-1, per_seat.shape[-1]).std(axis=0) > 0
    assert varies[:3].all(), "combat, matchmaking and shop corrections vary on every run"
    assert np.all(np.abs(z[varies]) < Z_LIMIT), dict(zip(CORRECTION_KINDS, np.round(z, 2)))


def test_a_correction_whose_expectation_is_off_is_caught(roster, evaluation_boards):
    """The same check, on corrections computed as if each shop slot's expectation were 2% of a hit low."""
    bots, _ = roster
    weights = shipped_weights(bots)
    played = evaluation_boards
    shifted = played.stage_luck.copy()
    from autodup.game.stats import LUCK_NAMES, RESULT_COLUMNS

    shops_seen = played.results[..., RESULT_COLUMNS.index("shops_seen")]
    # Spread over the stages by shops seen: the game's shops are about 5 slots each.
    shifted[..., LUCK_NAMES.index("shop_hits"), :] += 0.02 * 5 * shops_seen[..., None] / STAGE_BUCKETS
    wrong = played._replace(stage_luck=shifted)
    z = kind_z_scores(corrections(wrong, weights))
    assert abs(z[CORRECTION_KINDS.index("shop slots")]) > Z_LIMIT, np.round(z, 2)


def test_the_corrected_placement_removes_luck_it_was_not_fitted_on(roster, evaluation_boards):
    """On boards the value never saw: each strong bot's corrected placements spread less than its raw ones."""
    bots, _ = roster
    per_seat = corrections(evaluation_boards, shipped_weights(bots))
    placement = evaluation_boards.results[..., 0].astype(np.float64)
    corrected = placement - per_seat.sum(axis=-1)
    for index, bot in enumerate(bots):
        mine = evaluation_boards.bots == index
        if placement[mine].var() > 1.0:  # the bots that do not finish last every game
            assert corrected[mine].var() < 0.6 * placement[mine].var(), bot.name


def test_training_boards_are_not_evaluation_boards():
    """The same seed and board under the two branches: no seat seed and no event seed in common."""
    seats = {}
    for branch, label in BRANCHES.items():
        seeds = np.zeros(8, dtype=np.uint64)
        events = [table_seeds(np.uint64(0), board, 0, True, seeds, np.uint64(label)) for board in range(50)]
        seats[branch] = set(events)
    assert not seats["training"] & seats["evaluation"]


def _value_text(**changes):
    text = shipped_value_file("set4").read_text()
    data = json.loads(text)
    data.update(changes)
    return json.dumps(data)


@pytest.mark.parametrize("text, says", [
    ("{not json", "not JSON"),
    (json.dumps({"kind": "something else"}), "not a value file"),
    (None, "format: 99"),
    ("features", "features: not the"),
    ("pooled", "missing the pooled weights"),
    ("nan", "finite numbers"),
])
def test_a_bad_value_file_gets_one_line(text, says, tmp_path):
    if text is None:
        text = _value_text(format=99)
    elif text == "features":
        text = _value_text(features=["coin"])
    elif text == "pooled":
        data = json.loads(_value_text())
        del data["weights"][POOLED]
        text = json.dumps(data)
    elif text == "nan":
        data = json.loads(_value_text())
        data["weights"][POOLED][3] = "x"
        text = json.dumps(data)
    with pytest.raises(ValueFileError) as caught:
        parse_value(text, "mine.value.json")
    message = str(caught.value)
    assert message.startswith("mine.value.json: ") and says in message and "\n" not in message


def test_the_command_line_refuses_a_bad_value_file_in_one_line(tmp_path):
    bad = tmp_path / "bad.value.json"
    bad.write_text("[]")
    for value in (bad, tmp_path / "missing.json", tmp_path):
        result = subprocess.run([sys.executable, "-m", "autodup", "run", "tiny", "--boards", "2", "--value",
                                 str(value), "--out", str(tmp_path / "run"), "--workers", "1"],
                                capture_output=True, text=True, timeout=600)
        assert result.returncode == 2, result.stderr
        assert result.stderr.count("\n") == 1 and "value file" in result.stderr, result.stderr
        assert not (tmp_path / "run").exists()


def test_the_summary_says_which_bots_the_value_corrects_by_its_pooled_weights(tmp_path):
    import autodup

    two_slots = str(Path(__file__).parent / "bots" / "two_slots.py")  # a bot the shipped file was not fitted on
    results = autodup.run_tournament("set4", bots=["greedy", two_slots], boards=4, seed=3, out=tmp_path / "run",
                                     workers=1)
    weights = {row["bot"]: row["value_weights"] for row in results.summary()}
    assert weights == {"greedy": "own", "two_slots": "pooled"}
    printed = subprocess.run([sys.executable, "-m", "autodup", "summary", str(tmp_path / "run")],
                             capture_output=True, text=True, timeout=600)
    assert printed.returncode == 0, printed.stderr
    assert "pooled weights" in printed.stdout and "two_slots" in printed.stdout


def test_a_value_of_the_wrong_type_and_a_value_file_in_no_folder_are_refused_before_any_work(tmp_path):
    import autodup
    from autodup.api.values import choose_value
    from autodup.errors import UsageError

    with pytest.raises(UsageError) as caught:
        choose_value(5, SET4_CONFIG, print, print)
    assert caught.value.argument == "value" and "int" in str(caught.value)
    with pytest.raises(UsageError) as caught:
        autodup.fit_value("tiny", bots="greedy,econ", boards=2, out=tmp_path / "missing" / "x.value.json",
                          run_folder=tmp_path / "run")
    assert caught.value.argument == "out" and "no such folder" in str(caught.value)
    assert not (tmp_path / "run").exists()


def test_a_value_fitted_on_too_few_boards_is_written_with_a_warning_that_says_how_many_would_do(tmp_path):
    import autodup

    warnings = []
    autodup.fit_value("tiny", bots="greedy,econ", boards=4, out=tmp_path / "tiny.value.json",
                      run_folder=tmp_path / "run", workers=1, warn=warnings.append)
    assert read_value_file(tmp_path / "tiny.value.json").weights
    # 4 boards of 2 tables x 4 seats per bot: 32 rows for every feature; 10 rows per feature need 380 boards.
    assert len(warnings) == 1 and "32 rows of a bot" in warnings[0] and "380 boards or more" in warnings[0]
