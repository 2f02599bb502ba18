"""autodup.env: the Gymnasium and PettingZoo environments pass their libraries' own checks, play the game the
table plays (same boards, same seeds), give documented rewards, and refuse misuse in one line."""

import subprocess
import sys
import warnings

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

import autodup.env as autodup_env  # noqa: E402
from autodup.errors import UsageError  # noqa: E402
from autodup.game.observation import action_layout  # noqa: E402
from autodup.game.resumable import ResumableTable  # noqa: E402
from autodup.game.view import VIEW_NAMES  # noqa: E402

from .agents.first_slot import FirstSlot  # noqa: E402

SEAT = VIEW_NAMES.index("seat")


def random_legal(generator, mask) -> int:
    return int(generator.choice(np.flatnonzero(mask)))


def test_gymnasium_check_env_passes_on_set4_and_on_any_configuration():
    from gymnasium.utils.env_checker import check_env

    for made in (gymnasium.make("autodup/Set4-v0"), gymnasium.make("autodup/Autochess-v0", config="tiny")):
        with warnings.catch_warnings():
            warnings.simplefilter("error", UserWarning)  # a warning of the checker is a failure here
            check_env(made.unwrapped)


def test_pettingzoo_api_tests_pass_for_aec_and_parallel():
    from pettingzoo.test import api_test, parallel_api_test

    api_test(autodup_env.env(), num_cycles=3000)
    parallel_api_test(autodup_env.parallel_env(config="tiny"), num_cycles=3000)


def test_a_reset_seed_names_a_board_of_the_seed_tree_and_the_game_is_the_tables():
    """reset(seed=s) is board 0 of seed s, the next reset board 1, options board k: the table ResumableTable plays
    with the same seats (an agent answering as a bot would gives the bot's game, tested in test_resumable)."""
    env = autodup_env.AutodupEnv(opponents="greedy", seat=2)
    generator = np.random.default_rng(7)
    for reset, expected_board in (({"seed": 11}, 0), ({}, 1), ({"options": {"board": 5}}, 5)):
        observation, info = env.reset(**reset)
        assert info == {"seed": 11, "board": expected_board}
        twin = ResumableTable("set4", ["greedy"] * 2 + [None] + ["greedy"] * 5, seed=11, board=expected_board)
        done = False
        while not done:
            assert twin.seat == 2
            for key, array in observation.items():
                np.testing.assert_array_equal(array, getattr(twin.observations, key)[0], err_msg=key)
            action = random_legal(generator, observation["action_mask"])
            observation, reward, done, truncated, info = env.step(action)
            twin.act(int(twin.layout.answers[action]))
            assert not truncated
        assert twin.over and info["placement"] == twin.results()[2, 0]
        assert reward == (9 - 2 * info["placement"]) / 7


def test_rewards_are_the_documented_functions_of_placement():
    """placement: +1 first to -1 last, summing to 0 over a table; top4: 1 for the top half, summing to 4."""
    for reward, total in (("placement", 0.0), ("top4", 4.0)):
        env = autodup_env.raw_env(config="tiny", seed=3, reward=reward)
        env.reset()
        generator = np.random.default_rng(1)
        got = {}
        for agent in env.agent_iter():
            observation, cumulative, terminated, truncated, info = env.last()
            if terminated:
                got[agent] = (cumulative, info["placement"])
                env.step(None)
            else:
                env.step(random_legal(generator, observation["action_mask"]))
        assert sorted(placement for _, placement in got.values()) == list(range(1, 9))
        for value, placement in got.values():
            expected = (9 - 2 * placement) / 7 if reward == "placement" else float(placement <= 4)
            assert value == pytest.approx(expected, abs=1e-12)
        assert sum(value for value, _ in got.values()) == pytest.approx(total, abs=1e-9)


def test_the_vector_env_steps_each_table_as_the_single_env_does_and_resets_to_the_next_boards():
    """Table i of the vector env plays board i, then the next boards in turn, exactly as AutodupEnv does."""
    tables = 3
    vector = autodup_env.AutodupVectorEnv(tables, config="tiny", opponents="econ", seed=4)
    observations, info = vector.reset(seed=4)
    np.testing.assert_array_equal(info["board"], [0, 1, 2])
    agent = FirstSlot()
    singles = [autodup_env.AutodupEnv(config="tiny", opponents="econ") for _ in range(tables)]
    single_observations = [single.reset(seed=4, options={"board": i})[0] for i, single in enumerate(singles)]
    finished, next_board = 0, tables
    while finished < 5:
        actions = np.array([agent.act({k: v[i] for k, v in observations.items()}, observations["action_mask"][i])
                            for i in range(tables)])
        for i in range(tables):
            np.testing.assert_array_equal(observations["me"][i], single_observations[i]["me"])
        observations, rewards, terminated, truncated, info = vector.step(actions)
        assert not truncated.any()
        for i in range(tables):
            single_observations[i], reward, done, _, single_info = singles[i].step(int(actions[i]))
            assert done == terminated[i] and reward == rewards[i]
            # Gymnasium's same-step autoreset: the finished game's last observation and info are in final_obs
            # and final_info (as its SyncVectorEnv gives them), each key masked to the finished tables.
            assert info.get("_final_obs", np.zeros(tables, bool))[i] == done and info["_board"][i]
            if done:  # the finished tables take the next boards, in the order of the tables
                assert info["placement"][i] == single_info["placement"] and info["_placement"][i]
                assert info["board"][i] == next_board
                assert all(np.array_equal(info["final_obs"][i][key], single_observations[i][key])
                           for key in single_observations[i])
                final = info["final_info"]
                assert {key: final[key][i] for key in single_info} == single_info and info["_final_info"][i]
                assert all(final["_" + key][i] for key in single_info) and set(final) == {
                    *single_info, *("_" + key for key in single_info)}
                single_observations[i] = singles[i].reset(options={"board": next_board})[0]
                finished, next_board = finished + 1, next_board + 1


def test_gymnasium_make_vec_gives_the_vector_env():
    vector = gymnasium.make_vec("autodup/Set4-v0", num_envs=4, vectorization_mode="vector_entry_point")
    observations, _ = vector.reset(seed=0)
    assert observations["action_mask"].shape == (4, len(action_layout(vector.unwrapped.rules).names))
    observations, *_ = vector.step(np.zeros(4, dtype=np.int64))
    assert observations["me"].shape[0] == 4


def test_misuse_is_refused_in_one_line():
    env = autodup_env.AutodupEnv(config="tiny")
    with pytest.raises(UsageError, match="reset"):
        env.step(0)
    env.reset(seed=0)
    for action in (-1, 10_000, 1.5, True, "end"):
        with pytest.raises(UsageError, match="numbered action"):
            env.step(action)
    with pytest.raises(UsageError, match="reward"):
        autodup_env.AutodupEnv(reward="gold")
    with pytest.raises(UsageError, match="opponents"):
        autodup_env.AutodupEnv(opponents=["greedy", "econ"])
    with pytest.raises(UsageError, match="seat 1: unknown bot"):
        autodup_env.AutodupEnv(opponents="no_such_bot")
    # An agent at another seat never played (a placeholder ended its every turn); None gave the learner more seats.
    for opponents, message in (("autodup.agents:RandomAgent", "^opponents: seat 1: autodup.agents:RandomAgent is a "
                                "Python agent"), (["greedy"] * 6 + [None], "^opponents: None is not a bot")):
        for make in (autodup_env.AutodupEnv, autodup_env.AutodupVectorEnv):
            with pytest.raises(UsageError, match=message):
                make(config="tiny", opponents=opponents)
    with pytest.raises(UsageError, match="dealer: unknown dealer 'fair'"):
        autodup_env.raw_env(dealer="fair")
    with pytest.raises(UsageError, match="num_envs"):
        autodup_env.AutodupVectorEnv(0)
    vector = autodup_env.AutodupVectorEnv(2, config="tiny")
    with pytest.raises(UsageError, match="^action_masks: call reset"):  # was an AttributeError
        vector.action_masks()
    vector.reset()
    with pytest.raises(UsageError, match="one integer numbered action per table"):
        vector.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(UsageError, match="out of range"):
        vector.step(np.array([0, 999]))
    parallel = autodup_env.parallel_env(config="tiny")
    parallel.reset()
    with pytest.raises(UsageError, match="must decide"):
        parallel.step({})
    with pytest.raises(UsageError, match="^actions: expected a dict of each live agent's action"):  # was 'must decide'
        parallel.step([0] * 8)


def test_a_finished_episode_and_options_that_are_not_a_dict_are_refused_in_one_line():
    """Every seat out: the AEC and Parallel environments say so as the Gymnasium one does (were a KeyError and
    'seat_7 must decide'); reset's options must be a dict (other keys than 'board' are ignored: PettingZoo's own
    API test passes one)."""
    for make in (autodup_env.raw_env, autodup_env.env):  # wrapped too (PettingZoo's wrapper warned, then KeyError)
        aec = make(config="tiny")
        aec.reset(seed=0)
        for agent in aec.agent_iter():
            _, _, terminated, truncated, _ = aec.last()
            aec.step(None if terminated or truncated else int(np.flatnonzero(aec.observe(agent)["action_mask"])[0]))
        for call in (lambda: aec.step(0), lambda: aec.last()):
            with pytest.raises(UsageError, match="the episode is over: call reset"):
                call()
        aec.reset(seed=0)
        assert aec.last()[2] is False  # playable again
    parallel = autodup_env.parallel_env(config="tiny")
    observations, _ = parallel.reset(seed=0)
    while parallel.agents:
        observations, *_ = parallel.step({agent: int(np.flatnonzero(observations[agent]["action_mask"])[0])
                                          for agent in parallel.agents})
    with pytest.raises(UsageError, match="^step: the episode is over: call reset"):
        parallel.step({})
    env = autodup_env.AutodupEnv(config="tiny")
    with pytest.raises(UsageError, match="^options: 2 is not a dict"):
        env.reset(seed=0, options=2)


def test_a_zero_dimensional_integer_array_is_an_action_as_its_space_says():
    """What a policy's predict returns for one observation: Discrete.contains takes it, and so does step."""
    first, second = autodup_env.AutodupEnv(config="tiny"), autodup_env.AutodupEnv(config="tiny")
    observation, _ = first.reset(seed=3)
    second.reset(seed=3)
    action = np.array(int(np.flatnonzero(observation["action_mask"])[0]))
    assert first.action_space.contains(action)
    (seen, *rest), (expected, *expected_rest) = first.step(action), second.step(int(action))
    assert rest == expected_rest and all(np.array_equal(seen[key], expected[key]) for key in expected)


def test_without_the_extra_the_import_says_how_to_install_it():
    code = ("import sys; sys.modules['gymnasium'] = None\n"
            "try:\n    import autodup.env\nexcept ImportError as error:\n    print(error)\n")
    said = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert 'pip install "autodup[env]"' in said
    assert "autodup.env" not in subprocess.run(
        [sys.executable, "-c", "import autodup, autodup.game.resumable, sys; print(sorted(sys.modules))"],
        capture_output=True, text=True, check=True).stdout


def test_the_agents_pages_python_examples_run():
    """Every complete Python example of docs/guide/agents.md runs as shown (the class sketch with ``...`` aside)."""
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parents[1] / "docs" / "guide" / "agents.md").read_text()
    examples = [code for code in re.findall(r"```python\n(.*?)```", page, re.S) if "..." not in code]
    assert len(examples) >= 2
    for code in examples:
        exec(compile(code, "docs/guide/agents.md", "exec"), {})


def test_info_says_when_the_action_cap_ended_the_turn_and_the_count_is_the_tables():
    """An agent that toggles its shop's lock and never ends a turn: each turn's 64th action (ACTION_CAP) has
    info["cap_hit"] True, every other step False, except in turns it ends itself with that action; the game's own
    count of cap hits (its results) is the number of True flags. The vector environment flags its tables alike."""
    from autodup.game.actions import ACTION_CAP, ACTION_END, ACTION_LOCK, encode_decisions
    from autodup.game.stats import RESULT_COLUMNS

    env = autodup_env.AutodupEnv(config="tiny", opponents="greedy", seat=1)
    lock, end = (int(np.flatnonzero(env.layout.answers == encode_decisions([code], [0])[0])[0])
                 for code in (ACTION_LOCK, ACTION_END))
    actions_taken = VIEW_NAMES.index("actions")
    observation, _ = env.reset(seed=5)
    hits, ended_itself, turns_at_the_cap, done = 0, 0, 0, False
    while not done:
        last = observation["me"][actions_taken] == ACTION_CAP - 1
        action = end if last and turns_at_the_cap % 2 else lock  # every other such turn ends itself
        observation, _, done, _, info = env.step(action)
        assert info["cap_hit"] is bool(last and action == lock)
        hits += info["cap_hit"]
        ended_itself += bool(last and action == end)
        turns_at_the_cap += bool(last)
    assert hits >= 3 and ended_itself >= 3
    assert env.tables.results(0)[1, RESULT_COLUMNS.index("cap_hits")] == hits

    vector = autodup_env.AutodupVectorEnv(num_envs=2, config="tiny", opponents="greedy", seat=1)
    observations, _ = vector.reset(seed=5)
    for step in range(ACTION_CAP):
        observations, _, _, _, infos = vector.step(np.full(2, lock))
        np.testing.assert_array_equal(infos["cap_hit"], [step == ACTION_CAP - 1] * 2)
        assert infos["_cap_hit"].all()
    assert (observations["me"][:, actions_taken] == 0).all()  # a later round's turn


def test_pettingzoo_infos_say_refused_actions_and_cap_hits_as_gymnasium_does():
    """The deciding agent's info, after its action: illegal_action when the table refused it (the agent decides
    again), cap_hit at its turn's 64th action (the next agent then decides); False otherwise. AEC and Parallel."""
    from autodup.game.actions import ACTION_CAP, ACTION_LOCK, encode_decisions

    layout = autodup_env.AutodupEnv(config="tiny").layout  # every environment of a configuration numbers alike
    lock = int(np.flatnonzero(layout.answers == encode_decisions([ACTION_LOCK], [0])[0])[0])
    aec = autodup_env.raw_env(config="tiny")
    aec.reset(seed=2)
    first = aec.agent_selection
    refused = int(np.flatnonzero(aec.observe(first)["action_mask"] == 0)[0])
    aec.step(refused)
    assert aec.agent_selection == first and aec.infos[first]["illegal_action"] and not aec.infos[first]["cap_hit"]
    for step in range(ACTION_CAP - 1):  # the refused action was the turn's first
        assert aec.agent_selection == first
        aec.step(lock)
        assert aec.infos[first]["cap_hit"] is (step == ACTION_CAP - 2) and not aec.infos[first]["illegal_action"]
    assert aec.agent_selection != first

    parallel = autodup_env.parallel_env(config="tiny")
    observations, _ = parallel.reset(seed=2)
    deciding = next(agent for agent, seen in observations.items() if seen["action_mask"].sum() > 1)
    for step in range(ACTION_CAP):
        _, _, _, _, infos = parallel.step({agent: lock if agent == deciding else 0 for agent in parallel.agents})
        assert infos[deciding] == {"illegal_action": False, "cap_hit": step == ACTION_CAP - 1}
        assert all(info == {} for agent, info in infos.items() if agent != deciding)


def test_info_says_when_the_table_refused_an_action_and_the_count_is_the_tables():
    """An agent that plays a masked-out action every fourth step (when one exists): each such step's
    info["illegal_action"] is True and the seat is asked again in the same state; every other step's is
    False; the game's own count of illegal actions (its results) is the number of True flags. The vector
    environment flags the same tables alike."""
    from autodup.game.stats import RESULT_COLUMNS

    env = autodup_env.AutodupEnv(config="tiny", opponents="greedy", seat=1)
    generator = np.random.default_rng(3)
    observation, _ = env.reset(seed=4)
    flagged, step, done = 0, 0, False
    while not done:
        mask = observation["action_mask"]
        illegal_choices = np.flatnonzero(mask == 0)
        play_illegal = step % 4 == 3 and illegal_choices.size > 0
        action = int(generator.choice(illegal_choices)) if play_illegal else random_legal(generator, mask)
        before = {key: array.copy() for key, array in observation.items()}
        observation, _, done, _, info = env.step(action)
        assert info["illegal_action"] is play_illegal
        if play_illegal:  # the same state; the view counts one more action and has new random values
            flagged += 1
            for key, array in before.items():
                if key == "me":
                    changing = [VIEW_NAMES.index(name) for name in ("actions", "random_a", "random_b")]
                    assert observation[key][changing[0]] == array[changing[0]] + 1
                    array, now = np.delete(array, changing), np.delete(observation[key], changing)
                else:
                    now = observation[key]
                np.testing.assert_array_equal(now, array, err_msg=key)
        step += 1
    assert flagged > 10
    assert env.tables.results(0)[1, RESULT_COLUMNS.index("illegal_actions")] == flagged

    vector = autodup_env.AutodupVectorEnv(num_envs=3, config="tiny", opponents="greedy", seat=1)
    observations, _ = vector.reset(seed=4)
    masks = observations["action_mask"]
    actions = np.array([random_legal(generator, masks[0]), int(np.flatnonzero(masks[1] == 0)[0]),
                        random_legal(generator, masks[2])])
    _, _, _, _, infos = vector.step(actions)
    np.testing.assert_array_equal(infos["illegal_action"], [False, True, False])
    assert infos["_illegal_action"].all()
