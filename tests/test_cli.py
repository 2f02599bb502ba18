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
