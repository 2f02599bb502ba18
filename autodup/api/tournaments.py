"""The Python API for configurations, bots, one table and tournaments: what ``autodup check``, ``bots``,
``check-bot``, ``play``, ``run`` and ``summary`` do, as functions that return objects."""

from __future__ import annotations

import tempfile
from pathlib import Path

from ..arguments import MAX_INDEX, choice, integer, optional, seconds
from ..arguments import seed as check_seed
from ..errors import RunError, UsageError, WorkerFailure
from ..files import check_output_folder
from ..shipped import DEFAULT_CONFIG
from .common import (
    bot_list,
    command_pool,
    config_warnings,
    configuration,
    dealer_warnings,
    execution,
    noter,
    path_of,
    raised_as_in_the_worker,
    texts,
    warner,
)

__all__ = ["DEFAULT_BOARDS", "DEFAULT_OUT", "DefaultFolder", "RUN_SEED", "CHECK_GAMES", "CHECK_MAX_GAMES", "CHECK_SEED",
           "Results", "load_config", "list_bots", "play", "check_bot",
           "run_tournament", "open_results"]

DEFAULT_BOARDS = 1000
RUN_SEED = 0  # the default tournament seed of run and play
CHECK_GAMES = 120  # check_bot: tables on the configuration as written, each played twice
# check_bot keeps every table's results in memory (a few KB each, twice) and plays them in one process: a million
# tables in all (those on the rule variants too) would hold gigabytes for hours, surely a typo.
CHECK_MAX_GAMES = 100_000
CHECK_SEED = 2026  # check_bot: the tables' tournament seed, apart from the runs' default seed


class DefaultFolder:
    """The type of :data:`DEFAULT_OUT`: not a path, so that no folder's name can be taken for it."""

    def __repr__(self) -> str:
        return "autodup.DEFAULT_OUT"


DEFAULT_OUT = DefaultFolder()  # run_tournament(out=DEFAULT_OUT): runs/<what the run is>, resumed when found again


def load_config(config):
    """A validated game configuration.

    Parameters
    ----------
    config : str, os.PathLike or GameConfig
        A shipped configuration's name (``"set4"``, ``"tiny"``) or the path of a YAML file (a ``GameConfig``
        is returned as it is: every function of the API takes one wherever it takes a configuration).

    Returns
    -------
    autodup.game.config.GameConfig
        Its fields and flat arrays; ``.summary()`` is what ``autodup check`` prints, ``.warnings`` the lines
        for valid but surely unmeant values.

    Raises
    ------
    autodup.errors.ConfigError
        One line: the file, the line, the field, what is wrong and what is allowed.

    Examples
    --------
    >>> import autodup
    >>> config = autodup.load_config("tiny")
    >>> config.players, len(config.champion_names) > 0
    (8, True)
    """
    return configuration(config)


def list_bots() -> list:
    """The shipped bots: ``[{"name": ..., "description": ...}]``, as ``autodup bots`` lists them.

    Examples
    --------
    >>> import autodup
    >>> "greedy" in [bot["name"] for bot in autodup.list_bots()]
    True
    """
    from ..game.bot_loading import bot_names, load_bot

    return [{"name": bot.name, "description": bot.description} for bot in map(load_bot, bot_names())]


def parameter_overrides(bot_params, bot_param_file) -> tuple:
    from ..tournament.loading import bot_overrides

    if isinstance(bot_params, dict):  # {"greedy": {"roll_above": 30}} from Python
        for bot, values in bot_params.items():
            if not isinstance(values, dict):
                raise UsageError(f"{bot!r} maps to {values!r} (allowed: a dict of parameters and numbers, "
                                 "{'greedy': {'roll_above': 30}})", "bot_params")
        bot_params = [f"{bot}.{name}={value}" for bot, values in bot_params.items() for name, value in values.items()]
    elif bot_params is not None:  # "BOT.PARAMETER=VALUE", or a list of them
        bot_params = texts(bot_params, "bot_params", "BOT.PARAMETER=VALUE texts, or a dict of dicts", ordered=True)
    if bot_param_file is not None:
        path_of(bot_param_file, "bot_param_file", "a YAML file")
    return bot_overrides(bot_param_file, bot_params or ())


def play(config=DEFAULT_CONFIG, bots="greedy", seed: int = RUN_SEED, board: int = 0, table: int = 0,
         dealer: str | None = None, order: str = "events", bot_params=None, bot_param_file=None,
         game_timeout: float | None = None, progress: bool = False, warn=None, note=None) -> dict:
    """Play one table of a board, seated as :func:`run_tournament` seats it; each seat's result.

    Parameters
    ----------
    config : str, os.PathLike or GameConfig
        A shipped configuration's name or a YAML path.
    bots : str or list of str, optional
        1 to 8 distinct bots (names or paths; None: every shipped bot, as for :func:`run_tournament`); seat ``s``
        plays bot ``(s + table) mod len(bots)``.
    seed, board, table : int
        The tournament seed, the board of it and the table of the board.
    dealer : str, optional
        A dealer of :data:`autodup.engine.dealers.DEALERS` (default: haystack).
    order : str
        How a round's shop refreshes are served: ``"events"`` or ``"race"``.
    bot_params : dict or list of str, optional
        Parameter overrides: ``{"greedy": {"roll_above": 30}}`` or ``["greedy.roll_above=30"]``.
    bot_param_file : str, optional
        A YAML file mapping bot names to ``{parameter: value}``.
    game_timeout : float, optional
        Seconds after which a game is stopped and its bot named (default 60).
    progress : bool
        Show the compile bar on a machine's first run (``tqdm.auto``: a widget in a notebook).
    warn : callable, optional
        Receives one-line warnings (default: the ``autodup`` logger).
    note : callable, optional
        Receives one-line news (default: the ``autodup`` logger), such as that the game is compiling on a
        machine's first run.

    Returns
    -------
    dict
        ``config`` (its file), ``config_name``, ``seed``, ``board``, ``table``, ``dealer``, ``order``, ``rounds``
        and ``seats`` (one dict per seat: bot, placement, hp, level, gold and what it did), as
        ``autodup play --json`` prints it.

    Examples
    --------
    >>> import autodup
    >>> result = autodup.play("tiny", bots="greedy,econ", seed=1)
    >>> sorted(seat["placement"] for seat in result["seats"])
    [1, 2, 3, 4, 5, 6, 7, 8]
    """
    from ..engine.dealers import DEALERS, DEFAULT_DEALER, dealer_named
    from ..game.boards import check_order
    from ..game.bot_loading import bot_names
    from ..game.rules import ORDERS
    from ..tournament.loading import compile_game, play_in_worker
    from ..tournament.spec import check_bot_count
    from ..tournament.workers import DEFAULT_GAME_TIMEOUT, Pool

    warn = warner(warn)
    dealer = choice("dealer", dealer or DEFAULT_DEALER, list(DEALERS))
    seed, board = check_seed("seed", seed), integer("board", board, 0, MAX_INDEX)
    table = integer("table", table, 0)
    choice("order", order, list(ORDERS))
    game_timeout = optional(seconds, "game_timeout", game_timeout) or DEFAULT_GAME_TIMEOUT
    specs = bot_list(bots) if bots is not None else bot_names()
    loaded = load_config(config)
    config_warnings(loaded, warn)
    check_order(dealer_named(dealer), order)  # before a worker starts
    check_bot_count(len(specs), loaded.players, defaulted=bots is None)
    dealer_warnings(dealer, warn)
    if table >= len(specs):
        raise UsageError(f"{table} is out of range (allowed: 0 to {len(specs) - 1}: a board has one table per bot)",
                         "table")

    def describe(where):
        if where.loading >= 0:
            return f"bot {specs[where.loading]} (while it was loaded)"
        if where.seat < 0:
            return "the table"
        return f"bot {specs[(where.seat + where.table) % len(specs)]} (seat {where.seat})"

    overrides = parameter_overrides(bot_params, bot_param_file)
    compile_game(loaded, specs, overrides, game_timeout, noter(note), order, progress)
    with Pool(1, game_timeout, describe=describe) as pool, raised_as_in_the_worker():
        played = pool.run_one(play_in_worker, (loaded, specs, overrides, seed, board, table, dealer, order))
    rows, errors = played["rows"], played["errors"]
    if errors:
        failed = sum(row["bot_errors"] for row in rows)
        warn(f"bots failed {failed} decisions (first: {errors[0]}); see `autodup check-bot`")
    bad = [row for row in rows if row["bad_answers"]]
    if bad:
        warn(f"{', '.join(sorted({row['bot'] for row in bad}))} returned values that are not answers; see "
             "`autodup check-bot`")
    return {"config": loaded.source, "config_name": loaded.name, "seed": seed, "board": board, "table": table,
            "dealer": dealer, "order": order, "rounds": played["rounds"], "seats": rows}


def check_bot(bot, config=DEFAULT_CONFIG, games: int = CHECK_GAMES, seed: int = CHECK_SEED,
              variant_games: int | None = None,
              bot_params=None, bot_param_file=None, game_timeout: float | None = None, progress: bool = False,
              warn=None, note=None) -> dict:
    """Play a bot through many tables (each twice) and the configuration's rule variants: what it did wrong.

    Parameters
    ----------
    bot : str
        A shipped bot's name or the path of a bot file.
    config : str, os.PathLike or GameConfig
        The configuration played.
    games : int
        Tables on the configuration as written, each played twice (determinism); 1 to ``CHECK_MAX_GAMES``.
    seed : int
        The tables' tournament seed.
    variant_games : int, optional
        Tables on each rule variant (default: one per 20 of ``games``); with ``games``, at most ``CHECK_MAX_GAMES``
        tables in all.
    bot_params, bot_param_file, game_timeout, progress, warn, note
        As for :func:`play`.

    Returns
    -------
    dict
        ``clean`` (bool) and the counts of illegal actions, action-cap hits, errors and bad answers, whether it
        replays itself, its first error, and the same per rule variant; a bot that hangs or crashes its process
        gives ``clean: False`` with ``failure`` and ``kind``.

    Examples
    --------
    >>> import autodup
    >>> autodup.check_bot("greedy", config="tiny", games=4)["clean"]
    True
    """
    from ..tournament.loading import check_bot_in_worker, compile_game
    from ..tournament.workers import DEFAULT_GAME_TIMEOUT, Pool

    games, seed = integer("games", games, 1, CHECK_MAX_GAMES), check_seed("seed", seed)
    variant_games = optional(integer, "variant_games", variant_games, 0, CHECK_MAX_GAMES)
    game_timeout = optional(seconds, "game_timeout", game_timeout) or DEFAULT_GAME_TIMEOUT
    loaded = load_config(config)
    config_warnings(loaded, warner(warn))
    per_variant = games // 20 if variant_games is None else variant_games
    if per_variant:
        from ..game.bot_check import rule_variants

        variants = len(rule_variants(loaded))
        total = games + variants * per_variant
        if total > CHECK_MAX_GAMES:
            share = "by default " if variant_games is None else ""
            raise UsageError(f"{games:,} tables as written and {share}{per_variant:,} on each of the {variants} rule "
                             f"variants make {total:,} (allowed: at most {CHECK_MAX_GAMES:,} in all)",
                             "games" if variant_games is None else "variant_games")

    def describe(where):
        if where.loading >= 0:
            return f"bot {bot} (while it was loaded)"
        return f"seat {where.seat} of check table {where.board}" if where.seat >= 0 else "the table"

    overrides = parameter_overrides(bot_params, bot_param_file)
    try:
        compile_game(loaded, [str(bot)], overrides, game_timeout, noter(note), progress=progress)
        with Pool(1, game_timeout, describe=describe) as pool, raised_as_in_the_worker():
            report = pool.run_one(check_bot_in_worker, (str(bot), overrides, loaded, games, seed,
                                                        variant_games))
    except WorkerFailure as failure:  # a bot that hangs or crashes its process is not clean either
        return {"bot": str(bot), "clean": False, "failure": str(failure), "kind": failure.kind}
    return report


class Results:
    """A tournament's results: a run folder, read back (each chunk checked against its checksums).

    Parameters
    ----------
    folder : str or os.PathLike
        A folder written by :func:`run_tournament` or ``autodup run``.

    Attributes
    ----------
    path : pathlib.Path
        The folder.
    manifest : dict
        What the run is (its identity: configuration, bots with their files' hashes, boards, dealer, seed,
        design) and how it was started.
    config : autodup.game.config.GameConfig
        The configuration as the run read it (the folder's snapshot).
    bot_names : list of str
        The bots, in the order of the run's tables.

    Examples
    --------
    >>> import autodup
    >>> results = autodup.run_tournament("tiny", bots="greedy,econ", boards=4, workers=1, progress=False)
    >>> sorted(row["bot"] for row in results.summary())
    ['econ', 'greedy']
    >>> results.rows(["board", "table", "seat", "bot", "placement"]).num_rows  # boards x tables x seats
    64
    """

    def __init__(self, folder, _keep=None, _summary=None):
        from ..tournament.results import RunFolder

        self._folder = RunFolder(folder)
        self._keep = _keep  # the temporary folder of a run made without one, alive as long as these results
        self._summary = _summary  # the summary the run just wrote, so that it is not computed twice
        self.path = self._folder.path
        self.manifest = self._folder.manifest
        self.config = self._folder.config
        self.bot_names = self._folder.bot_names

    @property
    def boards(self) -> int:
        """Boards the run was asked to play."""
        return int(self._folder.identity["boards"])

    def boards_done(self) -> int:
        """Boards in its finished chunks (all of them once the run is finished)."""
        return self._folder.boards_done()

    def summary(self) -> list:
        """One dict per bot, best first: ``corrected_score`` (corrected by the run's value, when it has one),
        ``adjusted_score`` (luck-adjusted by the run's own fit) and ``duplicate_score`` (raw), each with the
        ``*_ci95`` half-width of its 95% interval, ``mean_placement``, ``top4_rate`` and what it did wrong. Best is
        the lowest corrected score, or without a value the lowest adjusted score.

        Computed from the chunks (checked), so it is right for an unfinished run too.
        """
        from ..analysis.summary import summarize_run

        if self._summary is not None:
            return self._summary
        if not self.boards_done():
            raise RunError(f"{self.path}: no finished chunk yet (nothing to summarize)")
        return summarize_run(self.path)

    def rows(self, columns=None):
        """The per-seat rows as a :class:`pyarrow.Table`, one row per (board, table, seat), with names.

        Parameters
        ----------
        columns : str or list of str, optional
            The column or the columns wanted, in this order (default: all; the folder's ``README`` of columns is
            in :mod:`autodup.tournament.results`).
        """
        if columns is not None:
            columns = texts(columns, "columns", "column names")
        return self._folder.table(columns)

    def to_pandas(self, columns=None):
        """:meth:`rows` as a :class:`pandas.DataFrame` (needs pandas, which autodup does not install)."""
        try:
            import pandas  # noqa: F401
        except ImportError:
            raise UsageError("to_pandas needs pandas (pip install pandas); rows() gives a pyarrow Table") from None
        return self.rows(columns).to_pandas()

    def __repr__(self) -> str:
        identity = self._folder.identity
        return (f"Results({str(self.path)!r}: {self.boards_done()} of {identity['boards']} boards, "
                f"{len(self.bot_names)} bots, dealer {identity['dealer']}, seed {identity['seed']})")


def _from_manifest(out: Path, given: dict) -> tuple:
    """Fill what defines a resumed run and was not given from its manifest; returns ``(given, recorded
    parameters or None, edited)``: ``edited`` lists ``(name, recorded path, the folder's copy, recorded
    fingerprint)`` for each bot whose file is still there but no longer the folder's copy (the copy plays)."""
    from ..game.agents import is_agent_spec
    from ..tournament.storage import CONFIG_SNAPSHOT, read_manifest, recorded_bot_files

    identity = read_manifest(out)["identity"]
    recorded, edited = None, []
    if given["config"] is None:
        given["config"] = str(out / CONFIG_SNAPSHOT)
    if given["bots"] is None:
        given["bots"] = recorded_bot_files(out, identity)
        for (name, recorded_path, fingerprint, _), path in zip(identity["bots"], given["bots"]):
            if path != recorded_path and Path(recorded_path).is_file():
                edited.append((name, recorded_path, path, fingerprint))
            if not is_agent_spec(path) and not Path(path).is_file():
                raise RunError(f"{out}: the file of bot {name!r}, {path}, is gone and the folder has no copy of it "
                               f"(allowed: where each bot's file is now, in the run's order: "
                               f"{', '.join(entry[0] for entry in identity['bots'])})", "bots")
        if given["bot_param_file"] is None:
            recorded = {name: params for name, _, _, params in identity["bots"]}
    for option in ("boards", "dealer", "seed", "design", "events"):
        if given[option] is None:
            given[option] = identity[option]
    if not isinstance(given["boards"], int) or isinstance(given["boards"], bool):
        raise RunError(f"{out}/manifest.json: boards is not a number of boards")
    return given, recorded, edited


def _warn_of_edited_bot_files(out: Path, edited: list, infos, warn) -> None:
    """Once the resume is accepted and its bots loaded: each bot file edited since the run began whose copy in the
    folder is the run's very bot (its fingerprint the recorded one) is said not to be played, while boards are
    left to play (a finished run plays nothing)."""
    from ..tournament.storage import KEPT_FINISHED, kept_work

    if not edited or kept_work(out) == KEPT_FINISHED:
        return
    fingerprints = {info.name: info.fingerprint for info in infos}
    for name, recorded_path, copy, fingerprint in edited:
        if fingerprints.get(name) == fingerprint:
            warn(f"bot {name!r}: {recorded_path} has changed since the run began; the run goes on with the "
                 f"folder's copy ({copy}); a new run plays the file as it is now")


def run_tournament(config=None, bots=None, boards: int | None = None, dealer: str | None = None,
                   seed: int | None = None, design: str | None = None, events: str | None = None, out=None,
                   workers: int | None = None, backend: str = "local", ray_address=None, resume: bool = False,
                   bot_params=None, bot_param_file=None, game_timeout: float | None = None, progress: bool = False,
                   warn=None, note=None, command_line=None, value="auto") -> Results:
    """Play a duplicate tournament: boards x tables, every table of a board dealt from the same seeds.

    Parameters
    ----------
    config : str, os.PathLike or GameConfig, optional
        A shipped configuration's name or a YAML path (default: set4).
    bots : str or list of str, optional
        1 to 8 distinct bots, names or paths (default: every shipped bot); one table per bot on each board.
    boards : int, optional
        Boards (grandparent seeds) to play (default: 1,000).
    dealer : str, optional
        A dealer of :data:`autodup.engine.dealers.DEALERS` (default: haystack).
    seed : int, optional
        The tournament seed (default: 0).
    design : str, optional
        Seating: ``"latin"`` (every bot at every seat of a board) or ``"paired"`` (default: latin).
    events : str, optional
        How table events are addressed: ``"seat"`` or ``"position"`` (default: seat).
    out : str or os.PathLike, optional
        The run folder. Without one the results live in a temporary folder for as long as the returned object
        does; :data:`DEFAULT_OUT` names it after the run under ``runs/`` (found again, it is resumed).
    workers : int, optional
        Processes (default: every core).
    backend : str
        ``"local"`` processes or ``"ray"``.
    resume : bool
        Finish the run in ``out``; what defines the run and is not given is taken from its manifest.
    bot_params, bot_param_file
        Bot parameter overrides, as for :func:`play`.
    progress : bool
        Show a progress bar (``tqdm.auto``: a widget in a notebook).
    warn, note : callable, optional
        Receive one-line warnings and news (default: the ``autodup`` logger).
    value : str or os.PathLike or None
        The value file each row is corrected by (``corrected_placement`` and a correction per kind of chance
        event): ``"auto"`` (the default) takes the one shipped for the configuration when it was fitted on that
        very text (set4), a path takes that file (``autodup luck fit`` writes them), ``None`` none.

    Returns
    -------
    Results
        The run folder, read back: ``summary()``, ``rows()``, ``to_pandas()``.

    Raises
    ------
    autodup.errors.AutodupError
        A bad argument, configuration, bot or folder (one line); a bot that hangs or crashes a worker.
    KeyboardInterrupt
        Ctrl-C; the finished chunks are kept, and ``resume=True`` finishes the run. Its ``kept_folder`` is the
        run's folder (``None`` while none is known to be this run's: a default one before the bots name it, a
        folder that holds a run before it is found to be this one) and ``kept`` what the folder holds then
        (:func:`autodup.tournament.storage.kept_work`: ``"nothing"``, ``"chunks"`` or ``"finished"``).

    Examples
    --------
    >>> import autodup
    >>> results = autodup.run_tournament("tiny", bots="greedy,econ,random", boards=3, workers=1)
    >>> results.boards_done(), len(results.summary())
    (3, 3)
    """
    with _RunFolder() as where:  # a stop, whenever it comes, is told what the run's folder holds
        from ..analysis.summary import play_and_summarize, warn_if_misbehaving
        from ..engine.dealers import DEFAULT_DEALER
        from ..game.boards import DEFAULT_DESIGN
        from ..game.bot_loading import bot_names
        from ..game.rules import DEFAULT_EVENTS
        from ..shipped import DEFAULT_CONFIG
        from ..tournament.loading import load_bots_and_table
        from ..tournament.spec import check_bot_count, check_run_arguments, default_out, make_spec

        warn, note = warner(warn), noter(note)
        given = {"config": config, "bots": bot_list(bots), "boards": boards, "dealer": dealer, "seed": seed,
                 "design": design, "events": events, "bot_param_file": bot_param_file}
        recorded, edited = None, []
        resuming = resume and out is not None and out is not DEFAULT_OUT and Path(out).is_dir()  # a folder that exists
        if resuming:
            given, recorded, edited = _from_manifest(Path(out), given)
        defaults = {"config": DEFAULT_CONFIG, "boards": DEFAULT_BOARDS, "dealer": DEFAULT_DEALER, "seed": RUN_SEED,
                    "design": DEFAULT_DESIGN, "events": DEFAULT_EVENTS}
        given = {key: defaults[key] if value is None and key in defaults else value for key, value in given.items()}
        given["boards"], given["seed"] = check_run_arguments(given["boards"], given["dealer"], given["seed"],
                                                             given["design"], given["events"])
        workers, game_timeout = execution(workers, backend, game_timeout, ray_address, given["boards"])
        if resume and out is None:
            raise UsageError("needs the folder of the run to finish (allowed: out=FOLDER, or out=DEFAULT_OUT for the "
                             "default one)", "resume")
        if out is not None and out is not DEFAULT_OUT:
            check_output_folder(out)  # before the game compiles, not after
            if not (Path(out) / "manifest.json").exists():  # a new folder: what it holds at a stop is this run's
                where.folder = Path(out)
        loaded = load_config(given["config"])
        config_warnings(loaded, warn)
        specs = given["bots"] if given["bots"] is not None else bot_names()
        check_bot_count(len(specs), loaded.players, defaulted=given["bots"] is None)
        overrides = parameter_overrides(bot_params, bot_param_file)
        if recorded:
            overrides = (recorded, f"{out}/manifest.json", overrides[2])
        from .values import AUTO, choose_value

        if resuming:
            from ..tournament.spec import config_sha256
            from ..tournament.storage import check_resumable

            # Other arguments are refused now, not after the bots load (nor after a warning about the value file).
            check_resumable(out, {"config_sha256": config_sha256(loaded.text), "boards": given["boards"],
                                  "dealer": given["dealer"], "seed": given["seed"], "design": given["design"],
                                  "events": given["events"]})
            where.folder = Path(out)  # the run it resumes (another folder's run is not said to be this one)
        if resuming and value == AUTO:
            from ..tournament.storage import VALUE_SNAPSHOT, read_manifest

            # A resumed run is corrected by the value it started with (its snapshot), or by none.
            value = Path(out) / VALUE_SNAPSHOT if read_manifest(out)["identity"].get("value_sha256") else None
        dealer_warnings(given["dealer"], warn)  # once what is asked is known to be playable
        model = choose_value(value, loaded, note, warn)
        # Local workers start now and load the bots, then play them: a warm start imports and loads once per process.
        with command_pool(workers, backend, game_timeout):
            infos = load_bots_and_table(loaded, specs, overrides, game_timeout, note, progress)
            if resuming:
                _warn_of_edited_bot_files(Path(out), edited, infos, warn)
            # A bot the value file has no weights of its own for (not fitted on it, or its code changed since) is
            # corrected by the weights pooled over the file's bots (autodup.game.value.ValueModel.weights_for).
            spec = make_spec(loaded, infos, given["boards"], given["dealer"], given["seed"], given["design"],
                             given["events"], value=model)
            keep = None
            if out is DEFAULT_OUT:
                where.folder = default_out(spec)
            elif out is None:
                keep = tempfile.TemporaryDirectory(prefix="autodup-run-")
                out = Path(keep.name) / "run"
            folder, summary = play_and_summarize(
                spec, None if out is DEFAULT_OUT else out, workers, backend, ray_address, resume,
                not progress, {"command_line": command_line} if command_line else None, game_timeout=game_timeout,
                warn=warn, note=note)
        warn_if_misbehaving(summary, warn=warn)
        return Results(folder, _keep=keep, _summary=summary)


class _RunFolder:
    """Where a run writes, once it is known (an ``out`` that holds no run yet, the one a resume has checked, the
    default one once the bots name it). As a context, it tells a KeyboardInterrupt what that folder holds then
    (``kept_folder``, ``kept``): the command line says it, and how to go on."""

    folder = None

    def __enter__(self):
        return self

    def __exit__(self, kind, stop, trace):
        if kind is not None and issubclass(kind, KeyboardInterrupt):
            from ..tournament.storage import kept_work

            stop.kept_folder = self.folder
            stop.kept = kept_work(self.folder) if self.folder is not None else None
        return False


def open_results(folder) -> Results:
    """Read a run folder (finished or not) written by :func:`run_tournament` or ``autodup run``.

    Raises
    ------
    autodup.errors.RunError
        Not a run folder, a manifest of another format, or no configuration snapshot.

    Examples
    --------
    >>> import autodup
    >>> results = autodup.run_tournament("tiny", bots="greedy,econ", boards=2, workers=1)
    >>> autodup.open_results(results.path).bot_names
    ['greedy', 'econ']
    """
    return Results(path_of(folder, "folder", "a run folder"))
