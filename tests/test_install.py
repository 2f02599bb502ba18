"""A wheel, installed into a fresh virtual environment outside the source tree, carries the roster and the configs."""

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """``(python, environment, folder)``: a fresh virtual environment where autodup comes from the built wheel."""
    base = tmp_path_factory.mktemp("install")
    wheels = base / "wheels"
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(wheels),
                            str(ROOT)], capture_output=True, text=True, timeout=900)
    assert built.returncode == 0, built.stderr
    wheel, = wheels.glob("autodup-*.whl")
    # With the libraries already installed here (pip finds every dependency satisfied, and downloads nothing);
    # the environment's own site-packages, where the wheel goes, comes before this checkout's editable install
    # (the first test checks it). That the package imports nothing undeclared is tests/test_layers.py's.
    environment_folder = base / "venv"
    venv.EnvBuilder(with_pip=True, system_site_packages=True).create(environment_folder)
    python = environment_folder / "bin" / "python"
    installed = subprocess.run([str(python), "-m", "pip", "install", "--quiet", str(wheel)],
                               capture_output=True, text=True, timeout=1800)
    assert installed.returncode == 0, installed.stderr
    environment = {key: value for key, value in os.environ.items() if not key.startswith("PYTHON")}
    work = base / "elsewhere"
    work.mkdir()
    return python, environment, work


def autodup_in(installed, *args):
    python, environment, work = installed
    return subprocess.run([str(python), "-m", "autodup", *args], capture_output=True, text=True, timeout=900,
                          cwd=work, env=environment)


def test_the_installed_package_is_the_wheel_not_the_checkout(installed):
    python, environment, work = installed
    code = ("import autodup, autodup.shipped as s; print(autodup.__file__); print(s.roster_folder()); "
            "print(s.configs_folder())")
    shown = subprocess.run([str(python), "-c", code], capture_output=True, text=True, cwd=work, env=environment,
                           timeout=300)
    assert shown.returncode == 0, shown.stderr
    for line in shown.stdout.splitlines():
        assert str(ROOT) not in line and "site-packages" in line, shown.stdout


def test_the_wheel_lists_its_bots_and_runs_the_default_config(installed, tmp_path):
    bots = autodup_in(installed, "bots")
    assert bots.returncode == 0, bots.stderr
    assert {"greedy", "econ", "fast8", "random", "reroll1", "reroll2", "reroll3", "traits"} <= \
        {line.split()[0] for line in bots.stdout.splitlines()}
    checked = autodup_in(installed, "check", "tiny")
    assert checked.returncode == 0 and "valid" in checked.stdout, checked.stderr
    run = autodup_in(installed, "run", "--boards", "5", "--out", str(tmp_path / "run"), "--quiet", "--workers", "2")
    assert run.returncode == 0, run.stderr
    assert "5 boards x 8 tables" in run.stdout and (tmp_path / "run" / "config.yaml").is_file()


def test_the_wheel_measures_quality_and_draws_the_report(installed, tmp_path):
    quality = autodup_in(installed, "quality", "tiny", "--bots", "greedy,random", "--boards", "5", "--dealers",
                         "haystack", "--out", str(tmp_path / "q"), "--quiet", "--workers", "2")
    assert quality.returncode == 0, quality.stderr
    assert "haystack" in quality.stdout and (tmp_path / "q" / "report.html").is_file()
    assert (tmp_path / "q" / "agreement_by_round.png").read_bytes()[:4] == b"\x89PNG"
