"""Bots: loading and its errors, the bot check on every shipped bot and on deliberately bad ones,
parameters, the decision encoding, and the roster's strength spread."""

import signal
import threading
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import spearmanr

from autodup.bots import BotError
from autodup.engine.dealers import DEALERS
from autodup.engine.rng import board_seed, event_seed, seat_seed
from autodup.game.actions import ACTION_BUY, ACTION_LOADED_ROLL, decode_decision, encode_decision, is_answer
from autodup.game.boards import play_boards
from autodup.game.bot_check import AS_WRITTEN, check_bot, rule_variants
from autodup.game.bot_loading import (bot_names, load_bot, load_bots, parse_parameter_options, policy_tuple, seating,
                                      values_changing_on_load)
from autodup.game.config import load_config, parse_config
from autodup.game.config_file import EMPTY_TIER_RULES
from autodup.game.progress import new_progress
from autodup.game.rules import ORDER_EVENTS, rules_of
from autodup.game.stats import RESULT_COLUMNS
from autodup.game.table import play_table
from autodup.game.view import MAX_PLAYERS

from .python_runs import run_in

ROOT = Path(__file__).resolve().parents[1]
SET4_CONFIG = load_config(ROOT / "configs" / "set4.yaml")
TINY_CONFIG = load_config(ROOT / "configs" / "tiny.yaml")
SET4 = rules_of(SET4_CONFIG)
ROSTER = ("econ", "fast8", "greedy", "random", "reroll1", "reroll2", "reroll3", "traits")
BAD = ROOT / "tests" / "bots"


def column(name):
    return RESULT_COLUMNS.index(name)


def test_the_roster_is_shipped_with_names_and_descriptions():
    assert set(ROSTER) <= set(bot_names())
    for name in bot_names():
        bot = load_bot(name)
        assert bot.name == name and bot.path == ROOT / "bots" / f"{name}.py"
        assert bot.description and "\n" not in bot.description


CONFIG_FILES = sorted((ROOT / "configs").glob("*.yaml"))


@pytest.mark.parametrize("name", bot_names())
@pytest.mark.parametrize("path", CONFIG_FILES, ids=[p.stem for p in CONFIG_FILES])
def test_every_shipped_bot_passes_the_bot_check_on_every_config_and_its_rule_variants(name, path):
    """Legal, within the action cap, error-free and deterministic: every bot of bots/ on every config of configs/,
    and on each rule variant of it (a few tables each)."""
    config = load_config(path)
    report = check_bot(load_bot(name), config, games=60 if path.stem == "set4" else 24, variant_games=2)
    assert list(report["variants"]) == [AS_WRITTEN, *rule_variants(config)]
    for label, part in report["variants"].items():
        misbehaviour = {key: part[key] for key in ("illegal_actions", "cap_hits", "bot_errors", "bad_answers",
                                                    "unsound_steps")}
        assert part["clean"] and not any(misbehaviour.values()), (label, part)
        assert part["seat_rounds"] > part["games"] * 5, (label, part)  # the bot really played
    assert report["clean"], report
    assert report["seat_rounds"] > 24 * 10
    assert report["games"] == sum(part["games"] for part in report["variants"].values())


def variant_of(path, old, new):
    text = Path(path).read_text()
    assert old in text
    return parse_config(text.replace(old, new), "variant.yaml")


def test_rule_variants_change_one_rule_each():
    """Each variant differs from its configuration in the rule its label names, and in nothing else."""
    for path in CONFIG_FILES:
        config = load_config(path)
        variants = rule_variants(config)
        assert len(variants) >= 5
        changed = {
            f"shop.units_leave_pool: {str(not config.units_leave_pool).lower()}":
                lambda v: v.units_leave_pool != config.units_leave_pool,
            "bench_size: 1": lambda v: v.bench_size == 1,
            "shop.size: 1": lambda v: v.shop_size == 1,
            "levels.*.xp: 0": lambda v: not v.level_xp.any(),
            "stages: the last only": lambda v: v.n_stages == 1,
        }
        for rule, code in EMPTY_TIER_RULES.items():
            if code != config.empty_tier:
                changed[f"shop.empty_tier: {rule}"] = lambda v, code=code: v.empty_tier == code
        assert set(variants) == set(changed)
        for label, variant in variants.items():
            assert changed[label](variant), label
            same = [f for f in ("players", "starting_hp", "max_rounds", "reroll_price", "xp_price", "tier_cost",
                                "champion_copies", "champion_traits", "level_odds", "interest_per")
                    if np.array_equal(getattr(variant, f), getattr(config, f))]
            assert len(same) == 10, (label, same)


def illegal_actions_of(rules, seat_bots, boards):
    *lineup, bot_of_seat = seating(seat_bots)
    illegal = 0
    for dealer in ("haystack", "keyed", "independent"):
        played = play_boards(rules, dealer, *lineup, seed=2026, boards=boards, seating="fixed",
                             bot_of_seat=bot_of_seat, check=True)
        assert played.violations.sum() == 0
        illegal += int(played.results[..., column("illegal_actions")].sum())
    return illegal


def test_greedy_plays_legally_when_shown_units_stay_in_the_pool():
    """Issue 10: greedy on tiny.yaml with units_leave_pool false made 13,721 illegal actions in 6 boards,
    because its buy rule was restated without the pool. Bots now read legality from the view."""
    rules = rules_of(variant_of(ROOT / "configs" / "tiny.yaml", "units_leave_pool: true", "units_leave_pool: false"))
    assert illegal_actions_of(rules, [load_bot("greedy")] * 8, boards=6) == 0
    # The same tables with a bot that restates the old rule: the variant is one that catches it.
    restates = load_bot(str(BAD / "restates.py"))
    assert illegal_actions_of(rules, [restates] * 8, boards=6) > 1000
    assert illegal_actions_of(rules_of(TINY_CONFIG), [restates] * 8, boards=6) == 0


def test_the_bot_check_catches_a_bot_that_restates_a_rule():
    restates = load_bot(str(BAD / "restates.py"))
    report = check_bot(restates, TINY_CONFIG, games=40)  # by default, one table per variant for 20 as written
    assert [part["games"] for part in report["variants"].values()] == [40] + [2] * len(rule_variants(TINY_CONFIG))
    assert report["variants"][AS_WRITTEN]["clean"], report
    assert report["variants"]["shop.units_leave_pool: false"]["illegal_actions"] > 0
    assert not report["clean"] and report["illegal_actions"] > 0
    assert report["first_error"] is None  # illegal actions are not errors
    # A quick check (fewer than 20 tables, like a run's determinism probe) plays the configuration as written only.
    quick = check_bot(restates, TINY_CONFIG, games=4)
    assert quick["clean"] and quick["games"] == 4 and quick["variants"][AS_WRITTEN]["games"] == 4



def test_the_bot_check_names_the_variant_an_error_comes_from():
    report = check_bot(load_bot(str(BAD / "two_slots.py")), TINY_CONFIG, games=2, variant_games=2)
    failing = [label for label, part in report["variants"].items() if not part["clean"]]
    assert failing == ["shop.size: 1"], report
    assert report["variants"]["shop.size: 1"]["bot_errors"] > 0
    assert report["first_error"].startswith("(shop.size: 1) IndexError"), report["first_error"]

@pytest.mark.parametrize("file, failure", [
    ("chaos.py", "illegal_actions"),
    ("crash.py", "bot_errors"),
    ("crash_in_helper.py", "bot_errors"),
    ("stubborn.py", "cap_hits"),
])
def test_the_bot_check_catches_misbehaving_bots(file, failure):
    report = check_bot(load_bot(str(BAD / file)), SET4_CONFIG, games=12)
    assert not report["clean"] and report[failure] > 0, report
    assert report["unsound_steps"] == 0  # a bad bot never breaks the table
    if failure == "bot_errors":
        assert report["first_error"].startswith("IndexError")


# Every array a policy is handed but its memory, and a write into each (the table's own state: not copied).
_WRITES = {"me": "me[UNITS] = 10**6", "shop": "shop[0] = 0", "unit_champion": "unit_champion[0] = 10**9",
           "unit_star": "unit_star[0] += 1", "pool": "pool[0] = -5.0", "champion_cost": "champion_cost[0] = 0",
           "champion_traits": "champion_traits[0, 0] = 10**9", "trait_breakpoints": "trait_breakpoints[0, 0] -= 1",
           "params": "params[0] = 1e9"}
_VANDAL = """from autodup.bots import UNITS, end_turn, policy

NAME = "vandal"
DESCRIPTION = "Writes into {array}."
PARAMETERS = {{"spite": 1.0}}


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    memory[0] += 1
    {write}
    return end_turn()
"""


@pytest.mark.parametrize("array", _WRITES)
def test_a_bot_writing_into_the_arrays_it_is_handed_is_refused_in_one_line(array, tmp_path):
    path = tmp_path / f"vandal_{array}.py"
    path.write_text(_VANDAL.format(array=array, write=_WRITES[array]))
    with pytest.raises(BotError) as caught:
        load_bot(str(path))
    text = str(caught.value)
    assert text == (f"{path}: decide writes into {array} (line 12): the arrays a policy is given are read-only "
                    "(the table's own state); keep what it needs between decisions in memory"), text
    # Its memory is its own: the same bot without the write loads and plays.
    path.write_text(_VANDAL.format(array=array, write="pass"))
    assert check_bot(load_bot(str(path)), SET4_CONFIG, games=2)["clean"]


def test_the_bot_check_catches_a_bot_without_an_address_for_its_randomness():
    report = check_bot(load_bot(str(BAD / "unstable.py")), SET4_CONFIG, games=12)
    assert not report["deterministic"] and not report["clean"]


def test_the_bot_check_catches_a_bot_whose_file_computes_other_values_each_time_it_loads():
    """A threshold drawn from the clock when the file loads plays the same within a process (so the tables played
    twice agree), but each worker, resume or machine loads another bot: the check loads the file a second time and
    names the values that changed. Values from constants, or read from a file that stays put, load alike."""
    bot = load_bot(str(BAD / "clock_seeded.py"))
    report = check_bot(bot, SET4_CONFIG, games=2)
    assert report["deterministic"] and report["changing_on_load"] == ["THRESHOLD"] and not report["clean"], report
    assert load_bot(str(BAD / "clock_seeded.py")) is bot  # the check left the loaded bot as it was
    for steady in ("greedy", str(BAD / "chaos.py")):
        assert values_changing_on_load(load_bot(steady)) == []


@pytest.mark.parametrize("file, message", [
    ("no_name.py", "defines no NAME (allowed: a bot file defines NAME, a one-line DESCRIPTION"),
    ("only_a_name.py", "defines no DESCRIPTION and no decide (allowed: a bot file defines NAME, a one-line"),
    ("two_lines.py", "DESCRIPTION must be one line"),
    ("bad_parameters.py", "PARAMETERS must map"),
    ("parameter_no_option_can_set.py", "PARAMETERS name 'a=b' cannot be set by --bot-param or a parameter file "
                                       "(allowed: names without '=', such as roll_above)"),
    ("plain_function.py", "decorated with @autodup.bots.policy"),
    ("syntax_error.py", "cannot load: SyntaxError"),
    ("does_not_compile.py", "decide cannot be compiled (line 12): Unknown attribute 'gold'"),
    ("adds_a_dict.py", "decide cannot be compiled (line 12): no version of add(int64, DictType[unicode_type,int64]"),
    ("returns_text.py", "decide returns Literal[str](buy everything), not an answer: return buy(slot)"),
    ("returns_float.py", "decide returns float64, not an answer: return buy(slot)"),
    ("only_raises.py", "decide raises on every path (line 13): it must return an answer (return buy(slot)"),
    ("recurses_without_end.py", "decide cannot be compiled: it or a helper recurses with no path that returns"),
    ("plain_helper.py", "decide calls rich(), a plain Python function: decorate it with @helper"),
    ("allocates_array.py", "decide allocates a list or an array (line 15): a policy cannot allocate"),
    ("allocates_list.py", "decide allocates a list or an array (line 13): a policy cannot allocate"),
    ("undeclared_parameter.py", "decide reads params[1], but PARAMETERS declares 1 (roll_above)"),
    ("greedy_without_extension", "a bot file must be a Python file whose name ends in .py"),
    ("prints.py", "decide calls print(): a policy plays in a worker process whose output is discarded"),
    ("writes_into_its_shop.py", "decide writes into shop (line 11): the arrays a policy is given are read-only"),
])
def test_broken_bot_files_are_refused_with_one_line(file, message):
    with pytest.raises(BotError) as caught:
        load_bot(str(BAD / "broken" / file))
    text = str(caught.value)
    assert message in text and str(BAD / "broken" / file) in text and "\n" not in text, text
    assert "numba" not in text.lower() and "\x1b" not in text  # said in the README's terms


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="no signal masks on this platform")
def test_a_keyboard_interrupt_raised_while_loading_is_the_files_error_unless_it_may_be_ctrl_c(tmp_path):
    from autodup.game.agents import load_agent

    bot_file = BAD / "broken" / "interrupts_at_import.py"
    agent_file = tmp_path / "interrupting_agent.py"
    agent_file.write_text("raise KeyboardInterrupt\n")
    loads = {"interrupts_at_import.py: cannot load: KeyboardInterrupt": lambda: load_bot(str(bot_file)),
             "cannot import": lambda: load_agent(f"{agent_file}:Agent")}
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, [])  # restored at the end, whatever pytest was started with
    handler = signal.getsignal(signal.SIGINT)
    try:
        # Where Ctrl-C cannot come as a plain KeyboardInterrupt, it came from the file: SIGINT blocked, a handler of
        # the command line's (it raises its own stop), a thread other than the main one.
        signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGINT])
        for message, load in loads.items():
            with pytest.raises(BotError, match=message):
                load()
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])
        signal.signal(signal.SIGINT, lambda number, frame: None)
        for message, load in loads.items():
            with pytest.raises(BotError, match=message):
                load()
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for message, load in loads.items():
            outcome = []

            def load_in_thread(load=load):
                try:
                    load()
                except BaseException as error:  # what the thread saw is the test's result
                    outcome.append(error)

            thread = threading.Thread(target=load_in_thread)
            thread.start()
            thread.join()
            assert len(outcome) == 1 and isinstance(outcome[0], BotError) and message in str(outcome[0]), outcome
        # Under Python's own handler, in the main thread, it may be Ctrl-C, and it stops as one.
        for load in loads.values():
            with pytest.raises(KeyboardInterrupt) as caught:
                load()
            assert not isinstance(caught.value, BotError)
    finally:
        signal.signal(signal.SIGINT, handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


_SHARED_HELPER = """
from autodup.game import authoring
from autodup.game.bot_loading import load_bot
load_bot({bot!r})
stats = authoring.reroll_turn.stats
print(sum(stats.cache_hits.values()), sum(stats.cache_misses.values()), len(authoring.reroll_turn.overloads))
"""


def test_the_authoring_helpers_compile_once_for_every_bot_and_process(tmp_path):
    """The helpers bots call are compiled on their own and cached, then linked into each policy that calls them,
    instead of being typed and lowered again inside every policy (the three reroll bots each call ``reroll_turn``).
    In a fresh cache, the first bot compiles it; another bot, in another process, loads it."""
    cache = tmp_path / "cache"
    assert run_in(ROOT, cache, _SHARED_HELPER.format(bot="reroll1"))[-3:] == ["0", "1", "1"]  # compiled, once
    assert run_in(ROOT, cache, _SHARED_HELPER.format(bot="reroll2"))[-3:] == ["1", "0", "1"]  # loaded


def test_unknown_bots_and_parameters_are_refused():
    with pytest.raises(BotError, match="unknown bot 'genius'"):
        load_bot("genius")
    with pytest.raises(BotError, match="no such bot file"):
        load_bot("bots/genius.py")
    with pytest.raises(BotError, match="has no parameter 'courage'.*allowed: roll_above"):
        load_bots(["greedy"], {"greedy": {"courage": 1.0}})
    with pytest.raises(BotError, match="no bot named 'econ' is playing"):
        load_bots(["greedy"], {"econ": {"roll_stage": 3.0}})
    for bad in (float("nan"), 10**400, "lots", True):
        with pytest.raises(BotError, match="finite number"):
            load_bots(["greedy"], {"greedy": {"roll_above": bad}})
    assert load_bots(["greedy"], {"greedy": {"roll_above": "1e3"}})[0].parameters == {"roll_above": 1000.0}
    with pytest.raises(BotError, match="BOT.PARAMETER=NUMBER"):
        parse_parameter_options(["greedy=3"])
    assert parse_parameter_options(["greedy.roll_above=20", "econ.roll_stage=5"]) == {
        "greedy": {"roll_above": 20.0}, "econ": {"roll_stage": 5.0}}
    with pytest.raises(BotError, match="1 to 8 distinct bots"):
        policy_tuple([load_bot("greedy")] * (MAX_PLAYERS + 1))
    with pytest.raises(ValueError, match="n_bots"):
        play_boards(SET4, "haystack", *policy_tuple([load_bot("greedy")]), seed=1, n_bots=0)


def play(seat_bots, board=0, dealer="haystack", check=False):
    g = board_seed(11, board)
    seats = np.array([seat_seed(g, s) for s in range(SET4.players)], dtype=np.uint64)
    results, violations, _, _ = play_table(SET4, DEALERS[dealer].code, ORDER_EVENTS, seats, np.uint64(event_seed(g, 0)),
                                           *seating(seat_bots), check, new_progress())
    assert violations == 0
    return results


def test_parameters_change_play_and_are_per_seat():
    shy = load_bots(["random"], {"random": {"end_chance": 1.0}})[0]
    keen = load_bot("random")
    results = play([shy, keen] * 4)
    assert results[0::2, column("units_bought")].sum() == 0  # always ends its turn at once
    assert results[1::2, column("units_bought")].sum() > 0
    rich = load_bots(["greedy"], {"greedy": {"roll_above": 1000.0}})[0]
    assert play([rich] * 8)[:, column("rolls")].sum() == 0
    assert play([load_bot("greedy")] * 8)[:, column("rolls")].sum() > 0


def test_seats_with_the_same_bot_share_one_policy_entry():
    greedy, econ = load_bot("greedy"), load_bot("econ")
    tweaked = greedy.with_parameters({"roll_above": 20.0})
    _, params, param_counts, bot_of_seat = seating([greedy, econ, greedy, tweaked, econ, greedy, tweaked, greedy])
    assert bot_of_seat.tolist() == [0, 1, 0, 2, 1, 0, 2, 0]
    assert params[0, 0] == 50.0 and params[2, 0] == 20.0
    assert param_counts[:3].tolist() == [len(greedy.defaults), len(econ.defaults), len(greedy.defaults)]


def test_decisions_round_trip_through_the_encoding_and_numbers_are_not_answers():
    for action in range(16):
        for argument in (-2**31, -3, -1, 0, 1, 7, 2**31 - 1):
            decision = encode_decision(action, argument)
            assert decode_decision(decision) == (action, argument)
            assert decision != 0 and is_answer(decision)
    assert decode_decision(encode_decision(ACTION_BUY, 4)) == (ACTION_BUY, 4)
    assert decode_decision(encode_decision(ACTION_LOADED_ROLL, -1)) == (ACTION_LOADED_ROLL, -1)
    # What a policy returns by mistake (a small number, a float cast to int, a boolean) is not an answer.
    for number in (0, 1, 2, 7, 100, -1, 2**40, 2**62, -2**63):
        assert not is_answer(number)


def test_games_with_real_bots_keep_every_invariant():
    bots = [load_bot(name) for name in ROSTER]
    for board in range(6):
        for dealer in ("haystack", "keyed", "independent"):
            results = play(bots[board % 8:] + bots[:board % 8], board, dealer, check=True)
            assert sorted(results[:, 0].tolist()) == list(range(1, 9))
    g = board_seed(3, 0)
    seats = np.array([seat_seed(g, s) for s in range(SET4.players)], dtype=np.uint64)
    _, violations, _, _ = play_table(SET4, DEALERS["haystack"].code, ORDER_EVENTS, seats, np.uint64(event_seed(g, 0)),
                                     *seating(bots), True, new_progress())
    assert violations == 0


def mean_placements(seed, games):
    bots = [load_bot(name) for name in ROSTER]
    played = play_boards(SET4, "haystack", *policy_tuple(bots), seed=seed, boards=games, seating="rotating",
                         n_bots=len(bots))
    results, who = played.results[:, 0], played.bots[:, 0]
    # Rotation: every bot sits at every seat equally often.
    seat_counts = np.array([[np.sum(who[:, s] == b) for s in range(8)] for b in range(len(bots))])
    assert np.all(seat_counts == games // 8)
    placements = results[:, :, 0]
    return np.array([placements[who == b].mean() for b in range(len(bots))])


def test_the_roster_has_a_stable_strength_spread():
    """2 x 1,000 games, 8 bots at one table, rotating seats: a ranking that two disjoint seed sets agree on."""
    first, second = mean_placements(101, 1000), mean_placements(202, 1000)
    rho = spearmanr(first, second).statistic
    assert rho >= 0.9, (first, second)
    assert max(first.max(), second.max()) - min(first.min(), second.min()) >= 2.0
    assert first.max() - first.min() >= 2.0 and second.max() - second.min() >= 2.0


def test_a_bot_file_edited_since_it_was_loaded_is_loaded_again(tmp_path):
    """Loaded bots are kept by file and content: workers forked from a process start with what it loaded, so a
    file kept by path alone would have played its old code there after an edit."""
    mine = tmp_path / "mine.py"
    text = (ROOT / "bots" / "greedy.py").read_text()
    mine.write_text(text)
    first = load_bot(str(mine))
    assert load_bot(str(mine)) is first  # unchanged: the same bot, not loaded again
    mine.write_text(text.replace('DESCRIPTION = "Buys', 'DESCRIPTION = "Edited: buys'))
    edited = load_bot(str(mine))
    assert edited.description.startswith("Edited: buys") and edited.fingerprint != first.fingerprint
    mine.write_text(text)
    assert load_bot(str(mine)) is first  # back as it was: the bot loaded then
