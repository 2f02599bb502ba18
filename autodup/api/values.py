"""The Python API for values: fit one on training boards (``autodup luck fit``), and choose the one a run is
corrected by."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

from ..arguments import integer
from ..arguments import seed as check_seed
from ..errors import UsageError
from .common import bot_list, command_pool, config_warnings, execution, noter, warner

__all__ = ["TRAINING_BOARDS", "ROWS_PER_FEATURE", "TRAINING_SEED", "AUTO", "fit_value", "choose_value"]

TRAINING_BOARDS = 2000
ROWS_PER_FEATURE = 10  # a bot's training rows per value feature below which the fit is said to be too small
TRAINING_SEED = 0   # the training run's seed; its boards are on the training branch, apart from every evaluation's
AUTO = "auto"       # a run's value: the one shipped for its configuration, when it was fitted on that very text


def choose_value(value, config, note, warn):
    """The :class:`~autodup.game.value.ValueModel` a run is corrected by, or ``None``.

    ``value``: :data:`AUTO` (the value file beside the configuration's file,
    ``set4.value.json`` beside ``set4.yaml``, if fitted on its very text; a
    file fitted on another text is not used, said through ``note``; without a
    file, none, and the summary has no corrected score), a path, or ``None``
    (``"none"``) for no correction.
    """
    import hashlib

    from ..game.value import read_value_file, value_file_beside

    config_sha256 = hashlib.sha256(config.text.encode("utf-8", "surrogatepass")).hexdigest()
    if value is not None and not isinstance(value, (str, os.PathLike)):
        raise UsageError(f"expected auto, none or a value file's path, got {type(value).__name__} {value!r}", "value")
    if value is None or value == "none":
        return None
    if value == AUTO:
        path = value_file_beside(config.source)
        if path is None:  # no value for this configuration: the summary has no corrected score, as before
            return None
        model = read_value_file(path)
        if not model.matches(config_sha256):
            note(f"{path} was fitted on another text of configuration {config.name!r}: the rows get no corrected "
                 "placement, and scores are adjusted by slopes fitted on the run itself (autodup luck fit "
                 "fits the value again)")
            return None
        return model
    model = read_value_file(value)
    if not model.matches(config_sha256):
        warn(f"value file {model.source} was fitted on configuration {model.config_name!r}, not on this text of "
             f"{config.name!r}: its corrections still have mean zero, but may remove less luck")
    return model


def fit_value(config=None, bots=None, boards: int = TRAINING_BOARDS, seed: int = TRAINING_SEED, out=None,
              run_folder=None, workers: int | None = None, backend: str = "local", ray_address=None,
              progress: bool = False, warn=None, note=None) -> Path:
    """Fit a value on training boards and write it as a value file (what ``autodup luck fit`` does).

    The boards come from the training branch of the seed tree: whatever the
    seeds, none is a board of any run, so the value is fixed before any board
    it corrects is played. The run plays the bots under the haystack dealer,
    the Latin square and events by seat, and keeps each row's luck terms stage
    by stage; the weights are the slopes of placement on them (per bot, and
    pooled for bots the file does not know).

    Parameters
    ----------
    config : str, os.PathLike or GameConfig, optional
        A shipped configuration's name or a YAML path (default: set4).
    bots : str or list of str, optional
        The bots (default: every shipped bot).
    boards : int
        Training boards (default: 2,000).
    seed : int
        The training run's seed (default: 0).
    out : str or os.PathLike, optional
        The value file (default: ``<configuration file's name>.value.json`` here, ``set4.value.json``; beside
        the configuration's file, runs find it by themselves).
    run_folder : str or os.PathLike, optional
        The training run's folder (default: under ``runs/``; found again, it is resumed).
    workers, backend, ray_address, progress, warn, note
        As for :func:`autodup.run_tournament`.

    Returns
    -------
    pathlib.Path
        The value file written.
    """
    from ..analysis.summary import play_and_summarize
    from ..analysis.value_fit import fit_value_folder
    from ..files import can_write_in, check_output_folder, write_bytes_atomically
    from ..game.bot_loading import bot_names
    from ..game.value import VALUE_FEATURES, VALUE_SUFFIX, is_value_file
    from ..shipped import DEFAULT_CONFIG
    from ..tournament.loading import load_bots_and_table
    from ..tournament.spec import check_bot_count, default_out, make_spec
    from .tournaments import load_config, parameter_overrides

    warn, note = warner(warn), noter(note)
    boards = integer("boards", boards, 2, 10 ** 6)
    seed = check_seed("seed", seed)
    workers, game_timeout = execution(workers, backend, None, ray_address, boards)
    loaded = load_config(config if config is not None else DEFAULT_CONFIG)
    config_warnings(loaded, warn)
    specs = bot_list(bots) or bot_names()
    check_bot_count(len(specs), loaded.players, defaulted=not bot_list(bots))
    if out is not None and not str(out).strip():
        raise UsageError("empty (allowed: the path of a value file)", "out")
    out = Path(out) if out is not None else Path(Path(loaded.source).stem + VALUE_SUFFIX)
    if out.is_dir():
        raise UsageError(f"{out} is a folder; give the value file's path", "out")
    # Said before the training run, not after it.
    if not out.parent.is_dir():
        raise UsageError(f"{out.parent}: no such folder (allowed: a file in an existing folder)", "out")
    if out.exists() and not is_value_file(out):  # a configuration, say: never written over
        raise UsageError(f"{out} exists and is not a value file (allowed: a new file, or a value file to replace)",
                         "out")
    if not can_write_in(out.parent):  # before the training run
        raise UsageError(f"{out.parent}: cannot be written (allowed: a file in a folder you can write)", "out")
    check_output_folder(run_folder, argument="run_folder")
    with command_pool(workers, backend, game_timeout):
        infos = load_bots_and_table(loaded, specs, parameter_overrides(None, None), game_timeout, note, progress)
        spec = make_spec(loaded, infos, boards, "haystack", seed, "latin", "seat", branch="training",
                         keep_stage_luck=True)
        if run_folder is None:  # the default folder of the run, named a training run
            run_folder = default_out(spec)
            run_folder = run_folder.with_name(run_folder.name.replace("-haystack-", "-training-", 1))
        folder = Path(run_folder)
        resume = folder.is_dir() and (folder / "manifest.json").is_file()
        folder, _ = play_and_summarize(spec, folder, workers, backend, ray_address, resume, not progress, None,
                                       game_timeout=game_timeout, warn=warn, note=note,
                                       refused_as=("a run", folder, "run_folder"))
    text = fit_value_folder(folder)
    write_bytes_atomically(out, text.encode("utf-8"))
    note(f"value fitted on {boards:,} training boards (seed {seed}, run {folder}): {out}")
    training = json.loads(text)["training"]
    left_out = {name: count for name, count in training["left_out"].items() if count}
    if left_out:  # said, not warned: a feature that seldom moves has no slope to fit
        note(f"features that moved in fewer than {training['min_support']} of a bot's rows, left without a slope: "
             + ", ".join(f"{name} {count}" for name, count in left_out.items()) + f" of {len(VALUE_FEATURES)}")
    fewest = min(training["rows"].values())
    if fewest < ROWS_PER_FEATURE * len(VALUE_FEATURES):
        # Weights fitted on too few rows are noisy: their corrections keep mean zero but may add variance.
        rows_per_board = fewest / boards
        needed = math.ceil(ROWS_PER_FEATURE * len(VALUE_FEATURES) / rows_per_board)
        warn(f"{out}: fitted on {fewest:,} rows of a bot for {len(VALUE_FEATURES)} features; its corrections may "
             f"widen intervals rather than narrow them (fit on {needed:,} boards or more)")
    return out
