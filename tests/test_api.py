"""The public Python API: its docstrings' examples run, it returns objects and prints nothing, its errors are
one family, and it plays exactly the games the command line plays."""

import doctest
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

import autodup
from autodup.errors import AutodupError, BotError, ConfigError, RunError, UsageError

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTED = ("autodup.api.tournaments", "autodup.api.comparisons", "autodup.api.labs",
              "autodup.api.common", "autodup.files", "autodup.errors", "autodup.analysis.statistics")


@pytest.mark.parametrize("name", DOCUMENTED)
def test_the_examples_in_the_docstrings_run(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # examples that write (a run's default folder) write here
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False,
                             report=True)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {name} failed (output above)"


def test_every_public_function_has_a_docstring_with_an_example():
    missing = []
    for name in ("load_config", "list_bots", "play", "check_bot", "run_tournament", "open_results", "quality",
                 "ab", "odds", "shuffles", "toy"):
        doc = getattr(autodup, name).__doc__ or ""
        if "Examples" not in doc or ">>> " not in doc:
            missing.append(name)
    assert not missing, missing
    for name in ("report", "sweep"):  # examples too long to run in a docstring: tested below and in test_ab
        assert "Parameters" in getattr(autodup, name).__doc__ and "Returns" in getattr(autodup, name).__doc__


def test_importing_autodup_loads_no_numba():
    code = "import sys, autodup; print(sorted({m.split('.')[0] for m in sys.modules} & {'numba', 'pyarrow'}))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.stdout.strip() == "[]", result.stdout + result.stderr


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("api") / "run"
    return autodup.run_tournament("tiny", bots="greedy,econ,random", boards=6, seed=3, out=out, workers=2)


def test_a_tournament_from_python_returns_results_and_prints_nothing(tmp_path, capfd):
    results = autodup.run_tournament("tiny", bots=["greedy", "econ"], boards=2, seed=1, workers=1)
    printed = capfd.readouterr()
    assert printed.out == "" and printed.err == ""
    assert results.boards_done() == 2 and results.path.is_dir()
    assert {row["bot"] for row in results.summary()} == {"greedy", "econ"}
    path = results.path
    del results  # a run made without a folder lives as long as its results
    import gc

    gc.collect()
    assert not path.exists()


def test_results_read_the_rows_and_the_summary_the_command_line_prints(small_run):
    rows = small_run.rows(["board", "table", "seat", "bot", "placement"])
    assert rows.num_rows == 6 * 3 * 8 and rows.column_names == ["board", "table", "seat", "bot", "placement"]
    printed = subprocess.run([sys.executable, "-m", "autodup", "summary", str(small_run.path), "--json"],
                             capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert printed.returncode == 0, printed.stderr
    assert json.loads(printed.stdout)["summary"] == small_run.summary()
    assert autodup.open_results(small_run.path).summary() == small_run.summary()
    assert "6 of 6 boards" in repr(small_run)


def test_the_api_plays_the_same_games_as_the_command_line(small_run, tmp_path):
    out = tmp_path / "cli"
    result = subprocess.run([sys.executable, "-m", "autodup", "run", "tiny", "--bots", "greedy,econ,random",
                             "--boards", "6", "--seed", "3", "--out", str(out), "--quiet", "--json"],
                            capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert result.returncode == 0, result.stderr
    columns = ["board", "table", "seat", "bot", "placement", "hp", "gold_spent", "round_shops"]
    assert autodup.open_results(out).rows(columns).equals(small_run.rows(columns))


def test_to_pandas_converts_the_rows_and_says_so_without_pandas(small_run, monkeypatch):
    frame = small_run.to_pandas(["bot", "placement"])  # pandas is a test dependency: this path always runs
    assert list(frame.columns) == ["bot", "placement"] and len(frame) == 6 * 3 * 8
    rows = small_run.rows(["bot", "placement"])
    assert frame["bot"].tolist() == rows.column("bot").to_pylist()
    assert frame["placement"].tolist() == rows.column("placement").to_pylist()
    monkeypatch.setitem(sys.modules, "pandas", None)  # as if it were not installed
    with pytest.raises(UsageError, match="needs pandas"):
        small_run.to_pandas()


@pytest.mark.parametrize("call, family", [
    (lambda: autodup.load_config("nosuch"), ConfigError),
    (lambda: autodup.run_tournament("tiny", bots="greedy,nosuchbot", boards=1), BotError),
    (lambda: autodup.run_tournament("tiny", bots="greedy,,econ", boards=1), UsageError),
    (lambda: autodup.open_results("/nonexistent/run"), RunError),
    (lambda: autodup.ab("tiny"), UsageError),
    (lambda: autodup.play("tiny", bots="greedy,econ", table=5), UsageError),
])
def test_errors_are_one_family_with_one_line(call, family):
    with pytest.raises(family) as raised:
        call()
    assert isinstance(raised.value, AutodupError) and "\n" not in str(raised.value)


BAD_ARGUMENTS = [  # (call, the argument named, what the message says); each is refused before any bot loads
    (lambda: autodup.run_tournament("tiny", boards="abc"), "boards", "'abc' is not an integer"),
    (lambda: autodup.run_tournament("tiny", boards=2.5), "boards", "2.5 is not an integer"),
    (lambda: autodup.run_tournament("tiny", boards=True), "boards", "True is not an integer"),
    (lambda: autodup.run_tournament("tiny", boards=0), "boards", "out of range (allowed: 1 to"),
    (lambda: autodup.run_tournament("tiny", boards=2, seed=-1), "seed", "out of range"),
    (lambda: autodup.run_tournament("tiny", boards=2, seed=2**64), "seed", "out of range"),
    (lambda: autodup.run_tournament("tiny", boards=2, workers=0), "workers", "0 is out of range (allowed: 1 to"),
    (lambda: autodup.run_tournament("tiny", boards=2, workers=-2), "workers", "out of range"),
    (lambda: autodup.run_tournament("tiny", boards=2, backend="cloud"), "backend", "unknown value 'cloud'"),
    (lambda: autodup.run_tournament("tiny", boards=2, dealer="fair"), "dealer", "allowed: haystack"),
    (lambda: autodup.run_tournament("tiny", boards=2, game_timeout=-1), "game_timeout", "out of range"),
    (lambda: autodup.play("tiny", board=-1), "board", "out of range"),
    (lambda: autodup.play("tiny", order="random"), "order", "allowed: events, race"),
    (lambda: autodup.check_bot("greedy", config="tiny", games=0), "games", "out of range"),
    (lambda: autodup.quality("tiny", boards=-5), "boards", "out of range"),
    (lambda: autodup.ab("tiny", settings=["shop.size=4"], until_ci=0), "until_ci", "out of range"),
    (lambda: autodup.sweep("tiny", ["shop.size=4,5"], seed="x"), "seed", "not an integer"),
    (lambda: autodup.odds("set4", level=8, champion="Jhn", gold=40), "champion", "did you mean Jhin?"),
    (lambda: autodup.odds("set4", level=8, champion="Jhin", gold=-1), "gold", "out of range"),
    (lambda: autodup.odds("set4", level=8, champion="Jhin", gold=4, trials=2.0), "trials", "not an integer"),
    (lambda: autodup.shuffles(shuffles=0), "shuffles", "out of range"),
    (lambda: autodup.shuffles(cards=1), "cards", "out of range (allowed: 3 to"),
    (lambda: autodup.toy(trials=0), "trials", "out of range"),
    # Values of the wrong type: refused in the API's terms, not as a TypeError from pathlib or a loop.
    (lambda: autodup.load_config(5), "config", "5 is not a configuration (allowed: a shipped configuration's name"),
    (lambda: autodup.run_tournament(123, bots="greedy", boards=2), "config", "123 is not a configuration"),
    (lambda: autodup.run_tournament("tiny", bots=123, boards=2), "bots", "123 is not a text or a list of texts"),
    (lambda: autodup.run_tournament("tiny", bots=[], boards=2), "bots", "no bot given"),
    # A set's order changes with each process's string hashing: the same script would seat its bots otherwise.
    (lambda: autodup.play("tiny", bots={"greedy", "econ", "random"}), "bots", "is a set, whose order changes"),
    (lambda: autodup.evaluate("greedy", opponents={"econ", "random"}, boards=4), "opponents", "is a set"),
    (lambda: autodup.run_tournament("tiny", bots="greedy,econ", boards=2, bot_params={"greedy": 5}), "bot_params",
     "'greedy' maps to 5 (allowed: a dict of parameters"),
    (lambda: autodup.run_tournament("tiny", bots="greedy,econ", boards=2, bot_params=7), "bot_params",
     "7 is not a text or a list of texts"),
    (lambda: autodup.run_tournament("tiny", bots="greedy,econ", boards=2, out=123), "out", "123 is not a path"),
    (lambda: autodup.play("tiny", bots="greedy", bot_param_file=3), "bot_param_file", "3 is not a path"),
    (lambda: autodup.ab("tiny", settings=5), "settings", "5 is not a text or a list of texts"),
    (lambda: autodup.ab(5, settings=["shop.size=4"]), "base", "5 is not a configuration"),
    (lambda: autodup.ab("tiny", variant=3, settings=["shop.size=4"]), "variant", "3 is not a configuration"),
    (lambda: autodup.sweep("tiny", 5), "settings", "5 is not a text or a list of texts"),
    (lambda: autodup.evaluate("greedy", opponents=5, boards=4), "opponents", "5 is not a text or a list"),
    (lambda: autodup.evaluate("greedy", opponents=[], boards=4), "opponents", "no bot given"),
    (lambda: autodup.evaluate("greedy", opponents="econ," * 8, boards=4), "opponents", "names no bot at some"),
    (lambda: autodup.evaluate("greedy", opponents=["econ"] * 8, boards=4), "opponents",
     "8 opponents (allowed: 1 to 7: the agent and its opponents sit at one table of 8 seats)"),
    (lambda: autodup.report([], out="unused"), "runs", "no run folder given"),
    (lambda: autodup.open_results(5), "folder", "5 is not a path (allowed: a run folder"),
    (lambda: autodup.open_results(["runs/a"]), "folder", "['runs/a'] is not a path"),
]


@pytest.mark.parametrize("call, argument, says", BAD_ARGUMENTS)
def test_a_bad_argument_is_named_in_python_terms(call, argument, says):
    from autodup.errors import NamesAnArgument

    with pytest.raises(UsageError) as raised:
        call()
    message = str(raised.value)
    assert message.startswith(f"{argument}: ") and says in message and "\n" not in message
    assert "--" not in message.split("(")[0]  # the API names its parameter, not the command line's option
    option = NamesAnArgument.OPTIONS.get(argument, f"--{argument.replace('_', '-')}")
    assert raised.value.for_command_line().startswith(f"{option}: ")


def test_a_configuration_loaded_once_is_taken_wherever_a_configuration_is():
    """A GameConfig is played as its name would be: play sends it to its worker rather than a path to read again."""
    loaded = autodup.load_config("tiny")
    assert autodup.load_config(loaded) is loaded
    assert autodup.play(loaded, bots="greedy,econ", seed=4) == autodup.play("tiny", bots="greedy,econ", seed=4)
    assert autodup.check_bot("greedy", config=loaded, games=2, variant_games=0)["clean"]
    assert autodup.evaluate("greedy", opponents="econ", boards=2, config=loaded).config == "tiny"


def test_a_set_is_refused_only_where_its_order_would_mean_something():
    """Run folders to report, columns to read: any order gives the same answer, so a set is taken there."""
    from autodup.api.common import texts

    assert sorted(texts({"runs/a", "runs/b"}, "runs", "run folders")) == ["runs/a", "runs/b"]
    with pytest.raises(UsageError, match="^bots: .* is a set"):
        texts({"greedy", "econ"}, "bots", "bot names", ordered=True)
    assert texts({"greedy"}, "bots", "bot names", ordered=True) == ["greedy"]


def test_play_without_bots_seats_every_shipped_bot_as_run_tournament_does():
    seated = {seat["bot"] for seat in autodup.play("tiny", bots=None)["seats"]}
    assert seated == {bot["name"] for bot in autodup.list_bots()}


def test_evaluate_names_its_own_argument_for_a_bot_listed_twice():
    with pytest.raises(UsageError, match=r"^opponents: a bot appears twice"):
        autodup.evaluate("greedy", opponents=["greedy"], boards=2, config="tiny")


def test_the_api_refuses_bot_parameters_and_another_run_in_its_own_terms(small_run):
    with pytest.raises(BotError) as raised:
        autodup.run_tournament("tiny", bots="greedy,econ", boards=2, workers=1, bot_params=["nobot.x=1"])
    assert str(raised.value) == "bot_params: no bot named 'nobot' is playing (playing: econ, greedy)"
    assert raised.value.for_command_line().startswith("--bot-param: no bot named")
    with pytest.raises(RunError) as raised:  # small_run's folder, asked for another seed
        autodup.run_tournament("tiny", bots="greedy,econ,random", boards=6, seed=4, out=small_run.path, workers=1)
    assert str(raised.value) == (f"out: {small_run.path} holds another run (seed differs: 4 given, 3 in the run) "
                                 "(allowed: another folder, or resuming that run with its own arguments: "
                                 "resume=True)")
    # The command line says the same in its own terms.
    assert raised.value.for_command_line() == (
        f"--out: {small_run.path} holds another run (seed differs: 4 given, 3 in the run) (allowed: another folder, "
        "or resuming that run with its own arguments: --resume)")


def test_an_error_that_mentions_another_argument_spells_it_for_each_side_and_crosses_processes():
    """A mention is spelled for the API in str() and for the command line in for_command_line, also after
    pickling (errors cross processes); an argument without a spelling is refused where the message is made."""
    import pickle

    from autodup.errors import CorruptChunk, OtherRun, mention

    made = (RunError(f"x (allowed: {mention('resume')})", "out"),
            OtherRun(f"y (allowed: {mention('resume')})", "out", differing="seed differs"),
            CorruptChunk(f"z (allowed: {mention('resume')})", None, folder="runs/a"))
    for error in made:
        for copy in (error, pickle.loads(pickle.dumps(error))):
            assert type(copy) is type(error) and "\0" not in str(copy) + copy.message + copy.for_command_line()
            assert str(copy).endswith("(allowed: resume=True)") and copy.message.endswith("(allowed: resume=True)")
            assert copy.for_command_line().endswith("(allowed: --resume)")
    assert pickle.loads(pickle.dumps(made[1])).differing == "seed differs"
    assert pickle.loads(pickle.dumps(made[2])).folder == "runs/a"
    with pytest.raises(KeyError, match="no spelling of 'seed'"):
        mention("seed")


def test_rows_take_one_column_by_its_name(small_run):
    assert small_run.rows("placement").column_names == ["placement"]
    with pytest.raises(UsageError, match="^columns: 5 is not a text or a list of texts"):
        small_run.rows(5)


def test_the_command_line_names_the_option_of_an_api_error(capsys):
    from autodup.cli import main

    assert main(["odds", "set4", "--level", "8", "--champion", "Jhn", "--gold", "40"]) == 2
    assert capsys.readouterr().err.strip() == ("autodup: error: --champion: 'Jhn' is not a champion of "
                                               f"{ROOT / 'configs' / 'set4.yaml'} (did you mean Jhin?)")


def test_warnings_go_to_the_callable_given_or_the_logger(caplog):
    seen = []
    config = ROOT / "tests" / "suspicious_configs" / "01_no_player_ever_loses_hp.yaml"
    autodup.play(config, bots="greedy", warn=seen.append)
    assert seen and "warning" in seen[0]
    with caplog.at_level("WARNING", logger="autodup"):
        autodup.play(config, bots="greedy")
    assert any("warning" in record.getMessage() for record in caplog.records)


def test_the_report_object_holds_what_the_command_prints(tmp_path):
    answer = autodup.odds("set4", level=8, champion="Jhin", gold=40, trials=0)
    assert answer.text.startswith("TFT Set 4") and answer["exact"] == answer.data["exact"]
    assert str(answer) == answer.text


@pytest.fixture
def pools_started(monkeypatch) -> list:
    """The workers of each command pool started (autodup.tournament.workers.one_pool), in order."""
    from autodup.tournament import workers as workers_module

    started = []
    one_pool = workers_module.one_pool

    def recording(workers, game_timeout):
        started.append(workers)
        return one_pool(workers, game_timeout)

    monkeypatch.setattr(workers_module, "one_pool", recording)
    return started


def test_a_run_starts_no_more_workers_than_it_has_tasks(tmp_path, pools_started):
    """5 boards are one chunk: with the determinism probe, two tasks, so two workers however many are asked for
    (256 workers for one chunk took over a minute to start and load); the results are those of one worker."""
    started = pools_started
    many = autodup.run_tournament("tiny", bots="greedy,econ", boards=5, workers=64, out=tmp_path / "many")
    assert started == [2]
    one = autodup.run_tournament("tiny", bots="greedy,econ", boards=5, workers=1, out=tmp_path / "one")
    assert started == [2, 1]
    assert many.rows().equals(one.rows())


@pytest.mark.parametrize("command", ["ab", "sweep", "quality", "fit_value"])
def test_every_command_starts_no_more_workers_than_a_run_of_it_has_tasks(tmp_path, pools_started, command):
    """Each command plays its runs one after the other, each at most its chunks and the probe: 30 boards are two
    chunks, so three workers of the 64 asked for (the cap run_tournament has, above, in every command)."""
    common = {"bots": "greedy,econ", "boards": 30, "workers": 64}
    if command == "ab":
        autodup.ab("tiny", settings=["starting_gold=4"], out=tmp_path / "ab", **common)
    elif command == "sweep":
        autodup.sweep("tiny", ["starting_gold=3,4"], out=tmp_path / "sweep", **common)
    elif command == "quality":
        autodup.quality("tiny", dealers="haystack", ladder=False, null_check=False, value=None, out=tmp_path / "q",
                        **common)
    else:
        autodup.fit_value("tiny", out=tmp_path / "tiny.value.json", run_folder=tmp_path / "training", **common)
    assert pools_started == [3]


@pytest.mark.parametrize("command", [["play", "tiny", "--bots", "greedy,econ"],
                                     ["check-bot", "greedy", "--games", "1"]])
def test_play_and_check_bot_show_the_compile_bar_on_a_cold_start(monkeypatch, capsys, command):
    """``autodup play`` and ``check-bot`` compile a cold start as a run does, and ask for its bar too (drawn where
    there is a terminal); the API's default is no bar."""
    from autodup.cli import main
    from autodup.game import boards
    from autodup.tournament import loading

    asked = []
    monkeypatch.setattr(boards, "table_is_compiled", lambda order="events": False)  # as on a machine's first run
    monkeypatch.setattr(loading, "load_bots_and_table",
                        lambda config, specs, overrides, game_timeout, note, progress=False, order="events":
                        asked.append(progress))
    assert main([*command, "--json"]) == 0
    capsys.readouterr()
    autodup.play("tiny", bots="greedy") if command[0] == "play" else autodup.check_bot("greedy", games=1)
    assert asked == [True, False]


@pytest.mark.parametrize("question", [{"champion": "Nobody", "gold": 50}, {"champion": "Jinx"}])
def test_odds_refuses_a_bad_question_before_saying_it_compiles(monkeypatch, question):
    """On a machine where the roll odds' simulation is not compiled yet, a question that does not fit the
    configuration (no such champion, neither gold nor rolls) is refused with no compile notice before it: the
    notice came first, wrongly, on every such call until a good one had compiled it."""
    from autodup.errors import UsageError
    from autodup.labs import odds_simulation

    monkeypatch.setattr(odds_simulation, "simulation_is_compiled", lambda simulation: False)
    notes = []
    with pytest.raises(UsageError):
        autodup.odds("set4", level=7, note=notes.append, **question)
    assert notes == []


def test_a_dealer_that_does_not_keep_the_games_probabilities_is_warned_of_where_it_plays():
    """replay is in the registry as the control the checks must catch: a game or a tournament dealt by it says so
    (once), and its help says so; an exact dealer says nothing."""
    from autodup.engine.dealers import DEALERS, dealers_help, inexact_warning

    said = []
    autodup.play("tiny", bots="greedy", dealer="replay", warn=said.append)
    assert len(said) == 1 and "dealer replay does not keep the game's probabilities" in said[0], said
    said.clear()
    autodup.play("tiny", bots="greedy", dealer="haystack", warn=said.append)
    assert said == []
    autodup.evaluate("greedy", opponents=["econ"], boards=2, config="tiny", dealer="replay", value="none",
                     warn=said.append)
    assert len(said) == 1 and "dealer replay does not keep" in said[0], said
    assert [name for name in DEALERS if inexact_warning(name)] == ["replay"]
    assert "replay: deliberately wrong" in dealers_help()


def test_bots_left_to_their_default_on_fewer_seats_are_refused_saying_where_they_came_from(tmp_path):
    """Every shipped bot plays when none is named: a configuration of 4 seats cannot seat them, and the refusal
    says that the bots were not given (not as if the user had listed 8)."""
    from autodup.game.bot_loading import bot_names

    four = tmp_path / "four.yaml"
    four.write_text((ROOT / "configs" / "tiny.yaml").read_text().replace("players: 8", "players: 4", 1))
    said = f"not given, so every shipped bot plays: {len(bot_names())} bots for 4 seats (allowed: name 1 to 4 bots)"
    for call in (lambda: autodup.run_tournament(four, boards=1, out=tmp_path / "run"),
                 lambda: autodup.play(four, bots=None)):
        with pytest.raises(UsageError, match="not given") as refused:
            call()
        assert refused.value.argument == "bots" and said in str(refused.value)
    with pytest.raises(UsageError, match="5 bots for 4 seats"):
        autodup.play(four, bots="greedy,econ,fast8,random,traits")
    assert not (tmp_path / "run").exists()
