"""Python agents at tournament tables (autodup.game.agents) and autodup.evaluate: an agent that answers as a bot
plays the bot's games bit for bit, runs stay deterministic whatever the workers, misbehaviour is counted and
reported, and the evaluation's intervals and independent-games figures are honest."""

import re
from pathlib import Path

import numpy as np
import pytest

import autodup
from autodup.api.evaluation import agent_bot
from autodup.engine.rng import LABEL_AGENT, derive_seed
from autodup.errors import BotError
from autodup.game.agents import play_boards_with_agents
from autodup.game.boards import BRANCHES, play_boards, table_seeds
from autodup.game.bot_loading import load_bot, policy_tuple
from autodup.game.config import load_config
from autodup.game.rules import rules_of
from autodup.game.view import VIEW_SEAT

ROOT = Path(__file__).resolve().parents[1]
AGENTS = ROOT / "tests" / "agents" / "first_slot.py"
BOT = str(ROOT / "tests" / "bots" / "first_slot.py")


def agent(name: str) -> str:
    return f"{AGENTS}:{name}"


@pytest.mark.parametrize("name", ["FirstSlot", "FirstSlotBatched", "FirstSlotArray"])
def test_an_agent_answering_as_a_bot_plays_the_bots_games_bit_for_bit(name):
    """Every array play_boards returns (results, shops, states, boards, offers, luck...) is the same; a 0-d integer
    array is an answer, as the environments' spaces take it (it was counted a bad answer)."""
    rules = rules_of(load_config("set4"))
    others = [load_bot("greedy"), load_bot("econ")]
    expected = play_boards(rules, "haystack", *policy_tuple([load_bot(BOT)] + others), seed=5, boards=3, tables=3,
                           seating="latin", n_bots=3)
    played = play_boards_with_agents(rules, "haystack", [load_bot(agent(name))] + others, seed=5, boards=3, tables=3,
                                     seating="latin")
    for field in expected._fields:
        np.testing.assert_array_equal(getattr(played, field), getattr(expected, field), err_msg=field)


def rows(results):
    table = results.rows()
    return {name: table.column(name).to_numpy(zero_copy_only=False) for name in
            ("board", "table", "seat", "bot", "placement", "hp", "gold_spent", "rolls", "luck")}


def test_a_run_with_an_agent_is_the_run_with_the_bot_whatever_the_workers(tmp_path):
    """autodup run seats an agent spec like a bot: the same rows as the bot's run, with 1 worker or 2."""
    by_bot = rows(autodup.run_tournament("tiny", bots=[BOT, "greedy", "econ"], boards=30, seed=3,
                                         out=tmp_path / "bot", workers=1))
    for workers in (1, 2):
        by_agent = rows(autodup.run_tournament("tiny", bots=[agent("FirstSlotBatched"), "greedy", "econ"], boards=30,
                                               seed=3, out=tmp_path / f"agent{workers}", workers=workers))
        for name, column in by_bot.items():
            np.testing.assert_array_equal(by_agent[name], column, err_msg=name)


def test_an_agents_generator_comes_from_the_seed_tree(tmp_path):
    """A random agent (its own generator) gives the same run twice, with different workers; another seed differs."""
    runs = [rows(autodup.run_tournament("tiny", bots=[agent("Lucky"), "greedy"], boards=26, seed=seed,
                                        out=tmp_path / f"{seed}-{workers}", workers=workers))
            for seed, workers in ((1, 1), (1, 2), (2, 1))]
    np.testing.assert_array_equal(runs[0]["placement"], runs[1]["placement"])
    np.testing.assert_array_equal(runs[0]["rolls"], runs[1]["rolls"])
    assert not np.array_equal(runs[0]["gold_spent"], runs[2]["gold_spent"])


class FirstGenerators:
    """An agent that keeps, for every generator it is handed, the seat and the generator's state when first seen
    (before it draws), then draws from it: its actions are random, as a random agent's are."""

    NAME = "first_generators"

    def __init__(self):
        self.first = {}

    def act(self, observation, action_mask, generator):
        if id(generator) not in self.first:
            self.first[id(generator)] = (int(observation["me"][VIEW_SEAT]), generator.bit_generator.state["state"])
        return int(generator.choice(np.flatnonzero(action_mask)))


def test_an_agents_generator_is_the_seats_child_in_the_seed_tree():
    """The generator an agent gets at a seat is numpy's default generator on the child LABEL_AGENT of the seat's
    seed: one per game the agent plays, from the board's seat seeds at every table (shared), no two alike."""
    rules = rules_of(load_config("set4"))
    recorder = FirstGenerators()
    played = play_boards_with_agents(rules, "haystack", [agent_bot(recorder), load_bot("greedy")], seed=4, boards=2,
                                     tables=2, seating="latin")
    expected = []
    for board in range(2):
        seeds = np.zeros(rules.players, dtype=np.uint64)
        table_seeds(np.uint64(4), board, 0, True, seeds, BRANCHES["evaluation"])
        for table in range(2):
            for seat in np.flatnonzero(played.bots[board, table] == 0).tolist():
                child = derive_seed(int(seeds[seat]), LABEL_AGENT, 0)
                expected.append((seat, np.random.default_rng(child).bit_generator.state["state"]))
    assert sorted(recorder.first.values(), key=repr) == sorted(expected, key=repr)
    # The seats' seeds were table 0's for both tables: a board's tables share them. No two games alike.
    assert len({repr(state) for _, state in expected}) == len(expected) == 2 * rules.players


def test_an_agent_that_raises_or_answers_nonsense_is_counted_as_a_bot_is(tmp_path):
    raising = autodup.run_tournament("tiny", bots=[agent("Raises"), "greedy"], boards=2, seed=0, out=tmp_path / "r")
    summary = {row["bot"]: row for row in raising.summary()}
    assert summary["Raises"]["bot_errors"] > 0 and summary["greedy"]["bot_errors"] == 0
    assert "agent trouble" in summary["Raises"]["first_error"]
    for name in ("Nonsense", "Enormous"):  # an int beyond int64 was an OverflowError, counted as a bot error
        nonsense = autodup.run_tournament("tiny", bots=[agent(name), "greedy"], boards=2, seed=0,
                                          out=tmp_path / name)
        row = {row["bot"]: row for row in nonsense.summary()}[name]
        assert row["bad_answers"] > 0 and row["bot_errors"] == 0, row
        assert row["first_error"].startswith("act or act_batch returned something that is not a numbered"), row
    for name, said in (("Exits", "SystemExit: 4"), ("Interrupts", "KeyboardInterrupt")):
        leaving = autodup.run_tournament("tiny", bots=[f"{ROOT / 'tests' / 'agents' / 'leaves.py'}:{name}", "greedy"],
                                         boards=2, seed=0, out=tmp_path / name)
        row = {row["bot"]: row for row in leaving.summary()}[name]
        assert row["bot_errors"] > 0 and row["first_error"].startswith(f"{said} (board "), row


@pytest.mark.parametrize("spec, said", [
    ("no_such_module_here:Agent", "cannot import no_such_module_here"),
    (f"{AGENTS}:Missing", "has no 'Missing'"),
    (f"{ROOT}/tests/agents/none.py:Agent", "no such agent file"),
    ("autodup.errors:UsageError", "UsageError() failed"),
    ("autodup.game.view:VIEW", "needs a method act"),
])
def test_an_unusable_agent_spec_is_refused_in_one_line(spec, said):
    with pytest.raises(BotError, match=re.escape(said)) as raised:
        load_bot(spec)
    assert "\n" not in str(raised.value)


def test_evaluate_an_object_equals_evaluating_its_spec_and_the_bot_it_mimics():
    from tests.agents.first_slot import FirstSlot

    by_object = autodup.evaluate(FirstSlot(), opponents=["greedy"], boards=12, seed=4, config="tiny")
    by_spec = autodup.evaluate(agent("FirstSlot"), opponents=["greedy"], boards=12, seed=4, config="tiny")
    by_bot = autodup.evaluate(BOT, opponents=["greedy"], boards=12, seed=4, config="tiny")
    assert by_object.mean_placement == by_spec.mean_placement == by_bot.mean_placement
    assert by_object.top4 == by_bot.top4 and by_object.games == 12 * 8
    assert "first_slot against greedy" in str(by_object)


class Fails:
    """Raises on every decision."""

    def act(self, observation, action_mask):
        raise ValueError("my bug")


class NeedsASetting:
    def __init__(self, setting):
        self.setting = setting

    def act(self, observation, action_mask):
        return 0


def test_evaluate_says_an_agents_first_error_takes_its_class_and_keeps_a_rate_in_its_range():
    """An agent that raises: the evaluation says its first error (the warning goes to a logger a script does not
    show); its corrected top-4 rate, which a correction can push below 0 on few boards, stays in [0, 1] and in its
    interval. A class given for an agent is made with no arguments, as a module:Class spec is (its act was called
    unbound, every decision an error); one that needs arguments is refused in one line."""
    from tests.agents.first_slot import FirstSlot

    failing = autodup.evaluate(Fails(), opponents=["random"], boards=4, seed=0, config="set4")
    assert failing.misbehaviour["bot_errors"] > 0 and "ValueError: my bug" in failing.first_error
    assert f"(first error: {failing.first_error})" in str(failing)
    for estimate in (failing.top4, failing.corrected_top4, failing.mean_placement, failing.corrected_mean_placement):
        assert estimate.low <= estimate.value <= estimate.high and isinstance(estimate.low, float)
    assert 0.0 <= failing.corrected_top4.value <= 1.0
    by_class = autodup.evaluate(FirstSlot, opponents=["greedy"], boards=4, seed=4, config="tiny")
    by_object = autodup.evaluate(FirstSlot(), opponents=["greedy"], boards=4, seed=4, config="tiny")
    assert by_class == by_object and by_class.first_error is None and not by_class.misbehaviour["bot_errors"]
    with pytest.raises(autodup.errors.UsageError, match="^agent: NeedsASetting is a class that cannot be made "):
        autodup.evaluate(NeedsASetting, opponents=["greedy"], boards=2, config="tiny")


def test_evaluate_gives_no_interval_where_every_board_gave_the_same_value():
    """An agent that never plays (every decision raises) places 8th at every table of 7 bots that do: its mean
    placement was shown as [8.000, 8.000] from "inf" independent games, a certainty four boards do not give."""
    import json

    seven = ["greedy", "econ", "traits", "reroll1", "reroll2", "reroll3", "fast8"]
    evaluation = autodup.evaluate(Fails(), opponents=seven, boards=4, seed=0, config="set4")
    for estimate in (evaluation.mean_placement, evaluation.top4):
        assert (estimate.low, estimate.high, estimate.independent_games) == (None, None, None)
    assert (evaluation.mean_placement.value, evaluation.top4.value) == (8.0, 0.0)
    lines = str(evaluation).splitlines()
    assert lines[2].split() == ["mean", "placement", "8.000", "n/a", "n/a", "(every", "board", "gave", "the", "same",
                                "value)"]
    assert "inf" not in str(evaluation) and "Infinity" not in json.dumps(evaluation.as_dict())
    corrected = evaluation.corrected_mean_placement  # corrected rows differ by board; the games alike do not
    assert corrected.low is not None and corrected.independent_games is None


def test_evaluate_is_honest_the_correction_keeps_the_mean_and_independent_games_match_without_duplication():
    """greedy against the rest of the roster on set4 (evaluate plays bots by the agents' path): the luck-corrected
    mean placement agrees with the raw one (the corrections have mean zero); with the independent dealer (no
    duplication), the independent games the raw interval is worth match the games played (within 4.5 standard
    errors of a variance ratio's sampling noise, about sqrt(2 / boards)); with haystack and the luck correction,
    they are more, and more than the raw interval's on the same boards."""
    opponents = ["econ", "traits", "reroll1", "reroll2", "reroll3", "fast8", "random"]
    boards = 60
    duplicate = autodup.evaluate("greedy", opponents=opponents, boards=boards, seed=9)
    raw, corrected = duplicate.mean_placement, duplicate.corrected_mean_placement
    assert corrected is not None
    # The two intervals' half-widths combined as if the estimates were independent: they share the boards and
    # are positively correlated, so this bounds the standard error of their difference from above (over seeds
    # 100-139 the difference's spread was 0.56x this bound): a loose check, but not one that can flake.
    standard_error_bound = np.hypot(raw.high - raw.value, corrected.high - corrected.value) / 2.0
    assert abs(raw.value - corrected.value) < 4.5 * standard_error_bound
    independent = autodup.evaluate("greedy", opponents=opponents, boards=boards, seed=9, dealer="independent")
    ratio = independent.mean_placement.independent_games / independent.games
    assert abs(ratio - 1.0) < 4.5 * np.sqrt(2.0 / boards)
    # Each count of independent games is a ratio of variances over the boards: the log of two counts' ratio has
    # a standard error of about sqrt(4 / boards), 0.26 here. The corrected interval's gain over independent
    # tables is about exp(1.2) (seeds 100-115: a log of 1.22, spread 0.21), 4.6 of those errors from no gain;
    # the raw interval's, about exp(0.22), is not resolved by 60 boards and is not checked.
    assert corrected.independent_games > independent.mean_placement.independent_games
    assert corrected.independent_games > raw.independent_games
