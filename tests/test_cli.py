"""The command line: output formats, one-line errors with exit code 2."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run(*args):
    return subprocess.run([sys.executable, "-m", "autodup", *args], capture_output=True, text=True, timeout=300,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_toy_json_and_tables():
    result = run("toy", "--trials", "3000", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["trials"] == 3000 and set(data["figures"]) == {"fig1", "fig2", "fig3", "fig4", "fig5", "keyed"}
    assert run("toy", "--trials", "3000", "--json").stdout == result.stdout
    assert run("toy", "--trials", "3000", "--json", "--seed", "9").stdout != result.stdout
    text = run("toy", "--trials", "3000")
    assert text.returncode == 0 and "fig5: general system (Haystack)" in text.stdout


@pytest.mark.parametrize("args", [
    ["toy", "--trials", "0"],
    ["toy", "--trials", "many"],
    ["toy", "--seed", "-1"],
    ["toy", "--seed", str(2**64)],
    ["toy", "--colour"],
    ["juggle"],
    [],
])
def test_bad_arguments_get_one_line_and_exit_2(args):
    result = run(*args)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("autodup: error:"), result.stderr
    assert "Traceback" not in result.stderr


def test_play_prints_every_seat_and_is_deterministic():
    result = run("play", "configs/tiny.yaml", "--seed", "5", "--json", "--bots", "greedy,random,econ,"
                 "tests/bots/chaos.py")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    seats = data["seats"]
    assert len(seats) == 8 and sorted(s["placement"] for s in seats) == list(range(1, 9))
    for key in ("seat", "bot", "placement", "hp", "level", "rolls", "gold_spent", "units_bought", "shops_seen"):
        assert key in seats[0]
    assert [s["bot"] for s in seats] == ["greedy", "random", "econ", "chaos"] * 2  # table 0 of the Latin square
    assert run("play", "configs/tiny.yaml", "--seed", "5", "--json", "--bots", "greedy,random,econ,"
               "tests/bots/chaos.py").stdout == result.stdout
    other = run("play", "configs/tiny.yaml", "--seed", "6", "--json", "--bots", "greedy,random,econ,"
                "tests/bots/chaos.py")
    assert json.loads(other.stdout)["seats"] != seats  # the games, not only the seed printed
    text = run("play", "configs/tiny.yaml", "--seed", "5", "--dealer", "keyed")
    assert text.returncode == 0 and "dealer keyed" in text.stdout
    # A clean game fits an 80-column terminal: the faults' columns are one line saying there were none.
    assert max(len(line) for line in text.stdout.splitlines()) <= 80, text.stdout
    assert "bot_errors" not in text.stdout and "no bot made an illegal action" in text.stdout
    lines = text.stdout.splitlines()
    assert lines[1].split() == ["seat", "bot", "placement", "hp", "level", "gold_spent", "rolls", "units_bought",
                                "shops_seen"]
    assert sorted(int(line.split()[2]) for line in lines[2:10]) == list(range(1, 9))


@pytest.mark.parametrize("args, said", [
    (["play", "configs/tiny.yaml", "--dealer", "shuffle"], "--dealer: unknown value 'shuffle' (allowed: haystack"),
    (["play", "configs/tiny.yaml", "--bots", "greedy,greedy"], "--bots: a bot appears twice"),
    (["play", "configs/tiny.yaml", "--bots", "greedy,econ,random,traits,fast8,reroll1,reroll2,reroll3,greedy"],
     "--bots: 9 bots for 8 seats (allowed: 1 to 8"),
    (["play", "configs/tiny.yaml", "--bots", "greedy,econ", "--table", "2"],
     "--table: 2 is out of range (allowed: 0 to 1"),
    (["play", "set5"], "set5: no such file (shipped configurations: set4, tiny"),
    (["summary", "no/such/folder"], "no/such/folder: no such run folder"),
    (["summary", "configs"], "configs: not a run folder (no manifest.json)"),
    (["summary", "configs/tiny.yaml"], "configs/tiny.yaml: a file, not a run folder"),
    (["ab", "configs/tiny.yaml", "--set", "shop.size=4", "--out", ""], "--out: empty (allowed: the path of a folder)"),
    (["shuffles", "--out", ""], "--out: empty (allowed: the path of a folder)"),
    (["quality", "tiny", "--dealers", "haystack,"], "--dealers: 'haystack,' names no dealer at some position"),
    (["quality", "tiny", "--dealers", ","], "--dealers: empty (allowed: any of haystack"),
    (["odds", "set4", "--level", "7", "--champion", "Jhin", "--gold", "10", "--plot", ""], "--plot: empty (allowed"),
    (["luck", "fit", "tiny", "--out", ""], "--out: empty (allowed: the path of a value file)"),
    (["odds", "set4", "--level", "7", "--champion", "Jhin", "--gold", "10", "--plot", "docs"], "is not a .png file"),
    (["odds", "set4", "--level", "7", "--champion", "Jhin", "--gold", "10", "--plot", "no/such/folder/odds.png"],
     "--plot: the folder 'no/such/folder' does not exist (allowed: a file in an existing folder)"),
    (["check-bot", "greedy", "--games", "100001"], "--games: 100,001 is out of range (allowed: 1 to 100,000)"),
    # A text that is not a number is refused with the range allowed, as the API says it (arguments.integer).
    (["run", "configs/tiny.yaml", "--boards", "abc"],
     "--boards: 'abc' is not an integer (allowed: 1 to 1,000,000,000)"),
    (["run", "configs/tiny.yaml", "--seed", "1.5"], "--seed: '1.5' is not an integer (allowed: 0 to 18,446,744"),
    (["check-bot", "greedy", "--games", "3", "--variant-games", "100000"], "--variant-games: 3 tables as written and "
     "100,000 on each of the 6 rule variants make 600,003 (allowed: at most 100,000 in all)"),
    (["check-bot", "greedy", "--games", "100000"],
     "--games: 100,000 tables as written and by default 5,000 on each of the 6 rule variants make 130,000"),
    (["check-bot", "greedy", "--game-timeout", "1e-9"],
     "--game-timeout: 1e-09 is out of range (allowed: at least 0.1 and less than 10,000,000 seconds"),
    (["check-bot", "tests/bots/broken/interrupts_at_import.py"],
     "interrupts_at_import.py: cannot load: KeyboardInterrupt"),
    (["play", "configs/tiny.yaml", "--bots", "genius"], "unknown bot 'genius' (allowed: econ, fast8, greedy"),
    (["play", "configs/tiny.yaml", "--bots", "no/such/bot.py"], "no/such/bot.py: no such bot file"),
    (["play", "configs/tiny.yaml", "--bot-param", "greedy.courage=3"],
     "--bot-param: bot 'greedy' has no parameter 'courage' (allowed: roll_above)"),
    (["play", "configs/tiny.yaml", "--bot-param", "greedy.roll_above=lots"], "'lots' is not a number"),
    (["play", "configs/tiny.yaml", "--bot-param", "econ.roll_stage=3"],
     "--bot-param: no bot named 'econ' is playing (playing: greedy)"),
    (["play", "configs/tiny.yaml", "--bot-params", "no_such_file.yaml"], "no_such_file.yaml: cannot read"),
    (["check-bot", "genius"], "unknown bot 'genius'"),
    (["check-bot", "tests/bots/broken/no_name.py"],
     "no_name.py: defines no NAME (allowed: a bot file defines NAME, a one-line DESCRIPTION and decide"),
    (["check-bot", "greedy", "--bot-params", "tests/bots/params_huge.yaml"],
     "params_huge.yaml:2: greedy.roll_above: a number written with 327 characters (allowed: at most 100)"),
    (["check-bot", "tests/bots/broken/exits.py"], "exits.py: cannot load: SystemExit"),
    (["play", "configs/tiny.yaml", "--order", "race", "--dealer", "independent"],
     "--order: race needs a dealer that races across seats (allowed: haystack)"),
    (["play", "configs/tiny.yaml", "--dealer", "plain"], "--dealer: unknown value 'plain'"),
    (["run", "configs/tiny.yaml", "--boards", "5", "--out", "README.md/run"],
     "--out: README.md/run cannot be written to ("),
    (["luck", "fit", "configs/tiny.yaml", "--boards", "5", "--run-folder", "README.md/run"],
     "--run-folder: README.md/run cannot be written to ("),
    (["summary"], "the following arguments are required: FOLDER"),  # not 'out', the argument's name in the code
    (["play", "tests/broken_configs/06_odds_do_not_sum_to_100.yaml"],
     "06_odds_do_not_sum_to_100.yaml:26: levels.3.odds: sums to 95 (allowed: percentages summing to 100)"),
])
def test_play_rejects_bad_input_with_one_line(args, said):
    result = run(*args)
    assert result.returncode == 2 and result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    assert said in result.stderr, result.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
@pytest.mark.parametrize("text, said", [
    ("greedy: {roll_above: 1}\ngreedy: {roll_above: 2}\n", "params.yaml:2: greedy: duplicate key (each key may "
                                                            "appear once)"),
    ("greedy: {roll_above: 1, roll_above: 2}\n", "params.yaml:1: greedy.roll_above: duplicate key"),
    ("# no overrides written yet\n", "params.yaml: empty (allowed: bot names mapped to {parameter: number} "
                                     "mappings)"),
    ("greedy: {roll_above: 050}\n", "params.yaml:1: greedy.roll_above: 050 is read by YAML as 40 (octal)"),
    ("greedy: !!python/object:os.system {}\n", "params.yaml:1: cannot be read: could not determine a constructor"),
    ("greedy: {roll_above: .inf}\n", "greedy.roll_above must be a finite number"),
])
def test_a_parameter_file_is_read_as_strictly_as_a_configuration(tmp_path, text, said):
    """A key given twice was the last one's value, an empty file no overrides at all, 050 the number 40: each
    played on without a word. Now each is one line."""
    (tmp_path / "params.yaml").write_text(text)
    result = run("play", "configs/tiny.yaml", "--bot-params", str(tmp_path / "params.yaml"))
    assert result.returncode == 2 and result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1 and said in result.stderr, result.stderr


def test_a_fifo_given_as_a_file_is_refused_not_waited_on(tmp_path):
    """Opening a FIFO waits for a writer: each file option says what it got instead of hanging."""
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    bot = tmp_path / "pipe.py"
    os.mkfifo(bot)
    for args, said in (
            (["play", "configs/tiny.yaml", "--bot-params", str(fifo)], f"{fifo}: not a regular file (a FIFO)"),
            (["play", "configs/tiny.yaml", "--bots", f"greedy,{bot}"], f"{bot}: not a regular file (a FIFO)"),
            (["run", "configs/tiny.yaml", "--boards", "5", "--value", str(fifo), "--out", str(tmp_path / "run")],
             f"{fifo}: cannot read the value file: not a regular file (a FIFO)"),
            (["shuffles", "--decks", str(fifo)], f"--decks: {fifo}: not a regular file (a FIFO)"),
            (["check", str(fifo)], "not a regular file (a FIFO)")):
        result = run(*args)
        lines = [line for line in result.stderr.splitlines() if not line.startswith("autodup: compiling")]
        assert result.returncode == 2 and len(lines) == 1 and said in lines[0], (args, result.stderr)
    assert not (tmp_path / "run").exists()


def test_an_output_folder_that_cannot_be_made_is_refused_in_one_line(tmp_path, monkeypatch, capsys):
    """Where the permission bits say yes and nothing can be made (root under /proc, a read-only mount), each command
    says so in one line naming its option, before its work where it can: never a FileNotFoundError. Made to fail
    here, so that it is tested as any user."""
    import errno

    import autodup
    from autodup.cli import main
    from autodup.errors import UsageError
    from autodup.files import check_output_folder, mark_output_folder

    def refuse(path, *args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system", str(path))

    # The write check makes a file where the folder would go, and removes it.
    check_output_folder(tmp_path / "new" / "folder", "ab")
    assert list(tmp_path.iterdir()) == []
    with monkeypatch.context() as patched:  # mkdir fails after the check passed
        patched.setattr(Path, "mkdir", refuse)
        with pytest.raises(UsageError, match="out: .* cannot be made \\(Read-only file system\\)"):
            mark_output_folder(tmp_path / "ab", "ab")
        code = main(["shuffles", "--methods", "S", "--runs", "20", "--shuffles", "20", "--replicates", "2",
                     "--riffle-deals", "0", "--out", str(tmp_path / "lab")])
        said = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and said == [f"autodup: error: --out: {tmp_path / 'lab'} cannot be made (Read-only file "
                                      "system)"]
    monkeypatch.setattr("tempfile.mkstemp", lambda *args, **kwargs: refuse(kwargs.get("dir")))  # the check fails
    with pytest.raises(UsageError, match=f"{tmp_path} is not a writable folder"):
        check_output_folder(tmp_path / "new" / "folder", "ab")
    with pytest.raises(UsageError, match="cannot be written") as caught:  # before its training run
        autodup.fit_value("tiny", boards=2, out=tmp_path / "tiny.value.json")
    assert caught.value.argument == "out" and list(tmp_path.iterdir()) == []


def test_two_bots_of_one_name_are_named_in_the_refusal(tmp_path):
    clone = tmp_path / "clone.py"
    clone.write_text((ROOT / "bots" / "greedy.py").read_text())  # NAME = "greedy" too
    result = run("play", "configs/tiny.yaml", "--bots", f"greedy,{clone}")
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
    assert f"two bots share the name 'greedy' ({ROOT / 'bots' / 'greedy.py'} and {clone})" in result.stderr


def test_bots_lists_the_roster():
    listing = json.loads(run("bots", "--json").stdout)
    names = [entry["name"] for entry in listing]
    assert {"random", "greedy", "econ", "fast8", "reroll1", "reroll2", "reroll3", "traits"} <= set(names)
    assert all(entry["description"] for entry in listing)
    text = run("bots")
    assert text.returncode == 0 and "greedy" in text.stdout


def test_check_bot_exits_0_when_clean_and_1_when_not():
    clean = run("check-bot", "greedy", "--games", "4", "--json")
    assert clean.returncode == 0, clean.stderr
    assert json.loads(clean.stdout)["clean"]
    dirty = run("check-bot", "tests/bots/chaos.py", "--games", "4")
    assert dirty.returncode == 1 and "NOT CLEAN" in dirty.stdout and "illegal_actions" in dirty.stdout
    # Four tables play no rule variant (one per 20 by default), and a clean verdict says so.
    assert "no rule variant played" in dirty.stdout and "rule set" not in dirty.stdout
    with_variants = run("check-bot", "greedy", "--games", "4", "--variant-games", "1")
    assert with_variants.returncode == 0 and "rule set" in with_variants.stdout
    assert "no rule variant played" not in with_variants.stdout


def test_check_bot_says_why_a_bot_is_not_deterministic():
    """A bot that failed only the determinism check read 'NOT CLEAN' on rows of zeros, with no reason (found by a
    new user's trial): the text says what differed and what to use instead, and the rule sets' table has a column
    for it."""
    unstable = run("check-bot", "tests/bots/unstable.py", "--games", "4", "--variant-games", "1")
    assert unstable.returncode == 1 and "deterministic    False" in unstable.stdout
    assert "uniform(me) and random_below(me, n)" in unstable.stdout and "same twice" in unstable.stdout
    assert any(line.split()[-3:] == ["NO", "NOT", "CLEAN"] for line in unstable.stdout.splitlines()), unstable.stdout
    clock = run("check-bot", "tests/bots/clock_seeded.py", "--games", "2")
    assert clock.returncode == 1 and "changing on load THRESHOLD" in clock.stdout, clock.stdout
    assert "each time it loads" in clock.stdout and "deterministic    True" in clock.stdout
    assert "changing on load nothing" in run("check-bot", "greedy", "--games", "2").stdout


def test_play_summarizes_failing_bots_in_one_line():
    result = run("play", "set4", "--bots", "tests/bots/crash.py,greedy")
    assert result.returncode == 0
    warnings = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(warnings) == 1 and "bots failed" in warnings[0] and "IndexError" in warnings[0], result.stderr
    header, *rows = result.stdout.splitlines()[1:10]
    errors = header.split().index("bot_errors")  # shown, since some seat has faults
    assert {int(row.split()[errors]) > 0 for row in rows if row.split()[1] == "crash"} == {True}
    assert {int(row.split()[errors]) for row in rows if row.split()[1] == "greedy"} == {0}


# --------------------------------------------------------------------------
# one vocabulary: version, defaults in the help, one bot-count rule, pipes
# --------------------------------------------------------------------------


def test_version_is_the_installed_distributions():
    from importlib.metadata import version

    result = run("--version")
    assert result.returncode == 0 and result.stdout.strip() == f"autodup {version('autodup')}"


def test_every_option_with_a_default_says_it_in_the_help():
    import argparse

    from autodup.cli import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in commands.choices.items():
        formatter = command._get_formatter()
        for action in command._actions:
            if action.default in (None, False, [], argparse.SUPPRESS) or action.help is None:
                continue
            assert "default" in formatter._get_help_string(action), (name, action.dest)
    text = run("run", "--help").stdout
    assert "(default: 1000)" in text and "(default: set4)" in text and "(default: haystack)" in text


def test_play_and_run_take_the_same_dealers_and_the_same_bot_count_rule():
    from autodup.engine.dealers import DEALERS

    for command in ("play", "run"):
        text = run(command, "--help").stdout
        assert all(name in text for name in DEALERS)
    nine = "greedy,econ,random,traits,fast8,reroll1,reroll2,reroll3,tests/bots/chaos.py"
    for args in (["play", "tiny", "--bots", nine], ["run", "tiny", "--bots", nine, "--boards", "1"]):
        result = run(*args)
        assert result.returncode == 2 and "9 bots for 8 seats (allowed: 1 to 8;" in result.stderr, result.stderr


@pytest.mark.parametrize("command", [["bots"], ["check", "tiny"], ["toy", "--trials", "1000", "--json"],
                                     ["odds", "tiny", "--level", "3", "--champion", "Fox", "--gold", "10", "--json",
                                      "--trials", "0"]])
def test_a_closed_pipe_ends_the_output_quietly(command):
    """``autodup bots | head -1``: the reader leaves early; no BrokenPipeError, no traceback, status 141."""
    process = subprocess.Popen([sys.executable, "-m", "autodup", *command], cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(ROOT)})
    process.stdout.close()  # before it writes a line
    _, stderr = process.communicate(timeout=300)
    assert b"BrokenPipe" not in stderr and b"Traceback" not in stderr and stderr == b"", stderr
    assert process.returncode == 141


def test_shipped_configurations_are_accepted_by_name_from_any_folder(tmp_path):
    from autodup.shipped import config_names

    assert config_names() == ["set4", "tiny"]
    check = subprocess.run([sys.executable, "-m", "autodup", "check", "tiny"], capture_output=True, text=True,
                           cwd=tmp_path, timeout=300)
    assert check.returncode == 0 and "valid" in check.stdout, check.stderr
    missing = subprocess.run([sys.executable, "-m", "autodup", "check", "set5"], capture_output=True, text=True,
                             cwd=tmp_path, timeout=300)
    assert missing.returncode == 2 and "shipped configurations: set4, tiny" in missing.stderr
    # Paths come first: a file of the user's named like a shipped configuration is the one read.
    (tmp_path / "tiny").write_text("not: a config\n")
    again = subprocess.run([sys.executable, "-m", "autodup", "check", "tiny"], capture_output=True, text=True,
                           cwd=tmp_path, timeout=300)
    assert again.returncode == 2 and "tiny" in again.stderr


def test_escape_bytes_in_names_never_reach_the_terminal_raw(tmp_path):
    """A configuration named with terminal escapes (colour, bell) is shown with them escaped, in every output."""
    text = (ROOT / "configs" / "tiny.yaml").read_text().replace("name: tiny", 'name: "evil\\e[31mRED\\a"', 1)
    (tmp_path / "evil.yaml").write_text(text)
    for args in (["check", str(tmp_path / "evil.yaml")], ["play", str(tmp_path / "evil.yaml"), "--bots", "greedy"],
                 ["play", str(tmp_path / "evil.yaml"), "--bots", "greedy", "--json"]):
        result = run(*args)
        assert result.returncode == 0, result.stderr
        assert "\x1b" not in result.stdout + result.stderr and "\x07" not in result.stdout + result.stderr, args
        assert "evil" in result.stdout and ("\\x1b[31mRED" in result.stdout or "\\u001b[31mRED" in result.stdout)


def test_a_folder_given_as_a_bot_is_named_a_folder():
    result = run("play", "configs/tiny.yaml", "--bots", "bots")
    assert result.returncode == 2 and result.stderr.strip() == (
        "autodup: error: bots: a folder, not a bot file (allowed: a bot's .py file, or a shipped bot's name)")


def test_the_configuration_is_one_optional_positional_argument_in_every_command():
    """One rule: the first positional argument (after check-bot's bot), set4 when left out."""
    from autodup.cli import build_parser

    parser = build_parser()
    for argv, dest in ((["run"], "config"), (["quality"], "config"), (["play"], "config"), (["check"], "config"),
                       (["odds", "--level", "3", "--champion", "Fox", "--gold", "1"], "config"),
                       (["ab", "--set", "shop.size=4"], "base"), (["sweep", "--set", "shop.size=4,5"], "base"),
                       (["check-bot", "greedy"], "config")):
        value = getattr(parser.parse_args(argv), dest)
        assert value in ("set4", None), (argv, value)  # run leaves it to --resume: set4, or the run's own
        assert getattr(parser.parse_args(argv[:1] + ["tiny"] + argv[1:] if argv[0] != "check-bot"
                                         else ["check-bot", "greedy", "tiny"]), dest) == "tiny", argv
    legacy = parser.parse_args(["check-bot", "greedy", "--config", "tiny"])
    assert legacy.config_option == "tiny"  # the old spelling still works
    assert run("check").returncode == 0 and "TFT Set 4" in run("check").stdout


def test_odds_copies_out_is_named_so_and_the_old_out_says_where_it_went():
    renamed = run("odds", "--level", "8", "--champion", "Jhin", "--gold", "10", "--out", "3")
    assert renamed.returncode == 2 and "renamed --copies-out" in renamed.stderr
    assert len(renamed.stderr.strip().splitlines()) == 1
    result = run("odds", "--level", "8", "--champion", "Jhin", "--gold", "10", "--copies-out", "3", "--json",
                 "--trials", "0")
    assert result.returncode == 0 and json.loads(result.stdout)["situation"]["copies_out"] == 3


def test_a_long_bot_name_widens_the_name_column_instead_of_pushing_its_row_out_of_line(capsys):
    """An agent's class name is often longer than the 12 characters the bot column had: each table's columns
    stay aligned (the run's summary and the A/B's bot lines)."""
    from types import SimpleNamespace

    from autodup.analysis.ab import _bot_lines
    from autodup.analysis.balance import CORRECTED
    from autodup.cli.run import print_summary

    names = ["greedy", "a_rather_long_agent_name_here", "garbage_agent"]
    results = SimpleNamespace(path=Path("out"), bot_names=names, boards_done=lambda: 20,
                              manifest={"identity": {"boards": 20, "dealer": "haystack", "seed": 1}})
    row = {"adjusted_score": 0.5, "adjusted_score_ci95": 0.1, "duplicate_score": 0.5, "duplicate_score_ci95": 0.1,
           "mean_placement": 4.5, "mean_placement_ci95": 0.2, "top4_rate": 0.5}
    print_summary(results, [{"bot": name, **row} for name in names], False)
    table = capsys.readouterr().out.splitlines()[1:]
    assert len({line.index("±") for line in table[1:]}) == 1 and len({len(line) for line in table}) == 1, table
    change = {"base": 4.5, "variant": 4.4, "change": -0.1, "ci": [-0.2, 0.0], "variance_reduction": 2.0}
    for corrected in (False, True):
        bots = {name: {"mean_placement": change, CORRECTED: change, "top4_rate": change} for name in names}
        lines = _bot_lines(bots, corrected)
        assert len({len(line) for line in lines}) == 1, lines
    from autodup.api.comparisons import _sweep_text

    cell = {"delta_mean_placement": -0.1, "ci": [-0.2, 0.0], "delta_corrected_placement": -0.1,
            "corrected_ci": [-0.2, 0.0]}
    point = {"bots": {name: cell for name in names}, "labels": ["1"], "variance_reduction": 2.0,
             "corrected_variance_reduction": 3.0}
    text = _sweep_text({"points": [point], "paths": ["x"], "boards": 3, "base_values": [0]},
                       {"tables": 3, "dealer": "haystack", "seed": 0, "design": "latin", "events": "seat"}, "tiny",
                       Path("out"))
    table = text.splitlines()[1:4]  # the header, a value's line and its corrected line
    assert len({len(line) for line in table}) == 1, table


def test_a_run_of_one_bot_says_its_figures_hold_by_construction_not_that_boards_are_too_few(capsys):
    from types import SimpleNamespace

    from autodup.cli.run import print_summary

    results = SimpleNamespace(path=Path("out"), bot_names=["greedy"], boards_done=lambda: 3,
                              manifest={"identity": {"boards": 3, "dealer": "haystack", "seed": 0}})
    row = {"bot": "greedy", "adjusted_score": 0.0, "adjusted_score_ci95": 0.0, "duplicate_score": 0.0,
           "duplicate_score_ci95": 0.0, "mean_placement": 4.5, "mean_placement_ci95": 0.0, "top4_rate": 0.5,
           "luck_fitted": False}
    print_summary(results, [row], False)
    said = capsys.readouterr().out
    assert "one bot plays every seat of every table" in said and "too few boards" not in said, said
    print_summary(results, [row, {**row, "bot": "econ"}], False)
    assert "too few boards to fit the luck adjustment for greedy, econ" in capsys.readouterr().out
