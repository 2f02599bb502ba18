"""What the package ships: the roster of bots and the configurations, found by name.

The repository keeps them at its top (``bots/``, ``configs/``); an install
carries them inside the package as ``autodup.roster`` and ``autodup.configs``
(``pyproject.toml`` maps the folders), so they are read with
:mod:`importlib.resources` whether the package is a checkout, an editable
install or a wheel. Files of your own are always loaded by path.
"""

from __future__ import annotations

import importlib.resources
from pathlib import Path

__all__ = ["DEFAULT_CONFIG", "CONFIG_SUFFIX", "roster_folder", "configs_folder", "config_names", "config_file"]

DEFAULT_CONFIG = "set4"
CONFIG_SUFFIX = ".yaml"


def _folder(package: str) -> Path:
    """The folder of a shipped data package (installed packages are unpacked, so it is a real folder)."""
    folder = importlib.resources.files(package)
    if not isinstance(folder, Path):  # a zipped install: nothing here reads from inside archives
        raise RuntimeError(f"{package} is not a folder on disk ({folder}); install autodup unzipped")
    return folder


def roster_folder() -> Path:
    """The folder of the shipped bots (``bots/`` of the repository)."""
    return _folder("autodup.roster")


def configs_folder() -> Path:
    """The folder of the shipped configurations (``configs/`` of the repository)."""
    return _folder("autodup.configs")


def config_names() -> list:
    """Names of the shipped configurations: ``["set4", "tiny"]``."""
    return sorted(path.stem for path in configs_folder().glob(f"*{CONFIG_SUFFIX}"))


def config_file(spec) -> Path:
    """The file a configuration argument names: a path if one exists there, else a shipped name.

    Parameters
    ----------
    spec : str or os.PathLike
        ``set4``, ``tiny`` (shipped), or the path of a YAML file.

    Returns
    -------
    pathlib.Path
        The path as given when it names no shipped configuration (so that
        :func:`autodup.game.config.load_config` reports a missing file by the name
        the user typed), else the shipped file.
    """
    path = Path(spec).expanduser()
    text = str(spec)
    if path.exists() or "/" in text or "\\" in text or path.suffix:
        return path
    shipped = configs_folder() / f"{text}{CONFIG_SUFFIX}"
    return shipped if shipped.is_file() else path
