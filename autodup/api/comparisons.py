"""The Python API for measuring duplication and balance: what ``autodup quality``, ``report``, ``ab`` and
``sweep`` do, as functions that return a :class:`~autodup.api.common.Report`."""

from __future__ import annotations

import shutil
from pathlib import Path

from ..arguments import half_width, optional, seconds
from ..errors import UsageError, counted
from ..files import check_output_folder, mark_output_folder, remove_stale_temporaries
from ..shipped import DEFAULT_CONFIG
from .common import (
    Report,
    bot_list,
    command_pool,
    config_warnings,
    configuration,
    dealer_warnings,
    execution,
    noter,
    texts,
    warner,
)
from .tournaments import DEFAULT_BOARDS, RUN_SEED, load_config, parameter_overrides

__all__ = ["DEFAULT_QUALITY_BOARDS", "quality", "report", "ab", "sweep"]

DEFAULT_QUALITY_BOARDS = 1000  # boards under each dealer and the control


def _played_into(out: Path, command: str, play):
    """``play()`` into folder ``out``, made and marked for ``command`` (refused if it is another's); if it is
    stopped or fails before any chunk is finished, a folder made here is removed."""
    created = mark_output_folder(out, command)
    try:
        return play()
    except BaseException:
        if created and not any(out.rglob("chunk-*.parquet")):
            shutil.rmtree(out, ignore_errors=True)  # nothing finished: leave no half-made folder
        raise


def _clear_leftovers(out: Path, note) -> None:
    """Remove what a killed quality or report left half-written in ``out`` (its files, its traces), saying so."""
    removed = [*remove_stale_temporaries(out), *remove_stale_temporaries(out / "traces")]
    if removed:
        note(f"removed {len(removed)} temporary file{'s' if len(removed) > 1 else ''} that an interrupted command "
             f"left in {out} ({removed[0].name}{', ...' if len(removed) > 1 else ''})")


def _quality_report(quality: dict, out: Path) -> Report:
    from ..analysis.quality import QUALITY_FILE, terminal_table

    return Report(quality, out, f"{terminal_table(quality)}\n{out / QUALITY_FILE}; report: {out / 'report.html'}")


def quality(config=DEFAULT_CONFIG, bots=None, boards: int = DEFAULT_QUALITY_BOARDS, dealers=None, seed: int = RUN_SEED,
            ladder: bool = True,
            out=None, workers: int | None = None, backend: str = "local", ray_address=None, bot_params=None,
            bot_param_file=None, game_timeout: float | None = None, progress: bool = False, warn=None,
            note=None, value="auto", null_check: bool = True) -> Report:
    """Play the same boards under each dealer and the independent control, and measure duplication.

    Cross-table correlation, each dealer's correctness against the control, and the luck removed (the
    variance reduction ladder), written to ``quality.json`` and ``report.html`` in ``out``.

    Parameters
    ----------
    config, bots, seed, workers, backend, bot_params, bot_param_file, game_timeout, progress, warn, note
        As for :func:`autodup.run_tournament`.
    boards : int
        Boards played under each dealer and under the control.
    dealers : str or list of str, optional
        Duplicate dealers to measure (default: haystack, keyed, stream and replay); the control is always played.
    ladder : bool
        Also play the ladder's designs (events by position, paired seating).
    out : str or os.PathLike, optional
        The folder (default: ``quality/<config>-<boards>b-seed<seed>-<bots>``, then ``-value<hash>`` with a
        value); found again, finished runs are reused.
    value : str or os.PathLike or None
        The value the runs' placements are corrected by, as for :func:`autodup.run_tournament`: each dealer's
        figures then include the corrected estimator's (``corrected_variance_reduction``, the variance removed
        by each kind of chance event, the games needed corrected).
    null_check : bool
        Also play the null check (:mod:`autodup.analysis.null_check`): the roster with its last bot replaced
        by a copy of the first, whose difference must look like noise under every estimator.

    Returns
    -------
    Report
        ``data`` is ``quality.json`` (its ``verdict``: what the page opens with; a figure too few boards
        can give is None beside a ``*_why``); ``text`` the terminal table.

    Examples
    --------
    >>> import autodup, tempfile
    >>> report = autodup.quality("tiny", bots="greedy,econ", boards=25, dealers="haystack", ladder=False,
    ...                          out=tempfile.mkdtemp(), workers=1)
    >>> sorted(report["dealers"])
    ['haystack', 'independent']
    """
    from ..analysis.null_check import (
        NULL_RUN,
        measure_null_check,
        not_played,
        null_check_size_note,
        null_folder_of,
        null_lineup,
    )
    from ..analysis.quality import (
        DEFAULT_QUALITY_DEALERS,
        TRACE_BOARDS,
        TRACE_DRAWS,
        default_quality_out,
        measure_folders,
        parse_dealers,
        play_runs,
        quality_runs,
        run_folder_of,
        trace_runs,
    )
    from ..engine.dealers import CONTROL, DEFAULT_DEALER
    from ..game.boards import DEFAULT_DESIGN
    from ..game.bot_loading import bot_names
    from ..game.rules import DEFAULT_EVENTS
    from ..tournament.loading import load_bots_and_table
    from ..tournament.results import RunFolder
    from ..tournament.spec import check_bot_count, check_run_arguments, make_spec

    warn, note = warner(warn), noter(note)
    boards, seed = check_run_arguments(boards, CONTROL, seed, DEFAULT_DESIGN, DEFAULT_EVENTS)
    workers, game_timeout = execution(workers, backend, game_timeout, ray_address, boards)
    if dealers is None:
        dealers = DEFAULT_QUALITY_DEALERS
    dealers = parse_dealers(dealers if isinstance(dealers, str) else ",".join(dealers))
    loaded = load_config(config)
    config_warnings(loaded, warn)
    specs = bot_list(bots) if bots is not None else bot_names()
    check_bot_count(len(specs), loaded.players, least=2, defaulted=bots is None)
    overrides = parameter_overrides(bot_params, bot_param_file)
    check_output_folder(out, "quality")
    from .values import choose_value

    model = choose_value(value, loaded, note, warn)
    with command_pool(workers, backend, game_timeout):  # the runs are played by the workers that loaded the bots
        infos = load_bots_and_table(loaded, specs, overrides, game_timeout, note, progress)
        runs = quality_runs(dealers, lambda dealer, design, events: make_spec(loaded, infos, boards, dealer, seed,
                                                                              design, events, value=model),
                            ladder=ladder)
        out = Path(out) if out is not None else default_quality_out(loaded.name, boards, seed, runs[CONTROL])
        null_why = "not asked for" if not null_check else null_check_size_note(boards, len(infos))
        null_spec = (make_spec(loaded, null_lineup(infos), boards, DEFAULT_DEALER, seed, value=model, twins=True)
                     if null_why is None else None)

        def play():
            timings = play_runs(runs, out, workers, backend, ray_address, not progress, game_timeout, note=note,
                                warn=warn)
            if null_why is None:
                # Its run is kept apart from runs/, which `autodup report` measures as one roster.
                timings = play_runs({NULL_RUN: null_spec}, out, workers, backend, ray_address, not progress,
                                    game_timeout, note=note, warn=warn, folder_of=null_folder_of)
            return timings

        timings = _played_into(out, "quality", play)
    folders = {dealer: RunFolder(run_folder_of(out, dealer)) for dealer in runs}
    _clear_leftovers(out, note)
    traces = trace_runs(folders, out, TRACE_BOARDS, TRACE_DRAWS, game_timeout)
    null = measure_null_check(null_folder_of(out)) if null_why is None else not_played(null_why, boards)
    return _quality_report(measure_folders(folders, out, traces, timings, null), out)


def report(runs, out, trace: bool = True, game_timeout: float | None = None, note=None) -> Report:
    """Measure existing run folders of the same boards (one per dealer, the control among them).

    Parameters
    ----------
    runs : list of str or os.PathLike
        Run folders (what ``autodup run`` or :func:`autodup.run_tournament` wrote).
    out : str or os.PathLike
        The folder for ``quality.json``, ``report.html`` and the plots.
    trace : bool
        Replay the first boards of each run with traced draws for the coupling diagnostic.
    game_timeout, note
        As for :func:`autodup.run_tournament`.

    Returns
    -------
    Report
        As :func:`quality` returns.

    Examples
    --------
    >>> import autodup, tempfile
    >>> played = autodup.quality("tiny", bots="greedy,econ", boards=20, dealers="haystack", ladder=False,
    ...                          out=tempfile.mkdtemp(), workers=1)
    >>> again = autodup.report(sorted((played.folder / "runs").iterdir()), out=tempfile.mkdtemp(), trace=False)
    >>> sorted(again["dealers"])
    ['haystack', 'independent']
    """
    from ..analysis.quality import (
        TRACE_BOARDS,
        TRACE_DRAWS,
        folders_to_measure,
        measure_folders,
        recorded_timings,
        trace_runs,
    )
    from ..tournament.workers import DEFAULT_GAME_TIMEOUT

    game_timeout = optional(seconds, "game_timeout", game_timeout) or DEFAULT_GAME_TIMEOUT
    note = noter(note)
    runs = texts(runs, "runs", "run folders")
    if not runs:
        raise UsageError("no run folder given (allowed: one or more run folders, the control's among them)", "runs")
    check_output_folder(out, "report")  # before the work, not after it
    folders = folders_to_measure(runs)
    out = Path(out)
    mark_output_folder(out, "report", check=False)  # checked above, before the work
    _clear_leftovers(out, note)
    traces = trace_runs(folders, out, TRACE_BOARDS, TRACE_DRAWS, game_timeout) if trace else None
    return _quality_report(measure_folders(folders, out, traces, recorded_timings(folders)), out)


def _comparison_specs(configs: list, options: dict, command: str) -> list:
    """One run spec per configuration of ``configs``, all of the same boards, bots and seating (checked first).

    Every spec is corrected by the one value chosen from the base's configuration (``configs[0]``): its
    corrections have mean zero under any configuration, the variants' too, so the change of corrected mean
    placement estimates the change of mean placement.
    """
    from ..game.bot_loading import bot_names
    from ..tournament.loading import load_bots_and_table
    from ..tournament.spec import check_bot_count, make_spec
    from .values import choose_value

    boards = options["boards"]
    specs = bot_list(options["bots"]) if options["bots"] is not None else bot_names()
    check_bot_count(len(specs), configs[0].players, defaulted=options["bots"] is None)
    for config in configs[1:]:
        if config.players != configs[0].players:
            raise UsageError(f"{config.source}: players is {config.players}, the base's {configs[0].players} "
                             "(allowed: the same number of players, so that placements compare)")
        if not set(config.champion_names) & set(configs[0].champion_names):
            raise UsageError(f"{config.source}: shares no champion with the base {configs[0].name} (allowed: a "
                             "variant of the base, with champions in common; to rank bots under two unrelated "
                             "configurations, run a tournament on each)")
    check_output_folder(options["out"], command)
    value = choose_value(options["value"], configs[0], options["note"], options["warn"])
    infos = load_bots_and_table(configs[0], specs, parameter_overrides(options["bot_params"], options["bot_param_file"]),
                                options["game_timeout"], options["note"], options["progress"])
    return [make_spec(config, infos, boards, options["dealer"], options["seed"], options["design"], options["events"],
                      value=value) for config in configs]


def _options(arguments: dict) -> dict:
    """The options of :func:`ab` or :func:`sweep` (their ``locals()`` on entry), with defaults filled in."""
    from ..analysis.ab import DEFAULT_UNTIL_CI_BOARDS
    from ..engine.dealers import DEFAULT_DEALER
    from ..game.boards import DEFAULT_DESIGN
    from ..game.rules import DEFAULT_EVENTS
    from ..tournament.spec import check_run_arguments

    options = dict(arguments)
    options["dealer"] = options["dealer"] or DEFAULT_DEALER
    options["design"] = options["design"] or DEFAULT_DESIGN
    options["events"] = options["events"] or DEFAULT_EVENTS
    options["until_ci"] = optional(half_width, "until_ci", options["until_ci"])
    if options["boards"] is None:
        options["boards"] = DEFAULT_UNTIL_CI_BOARDS if options["until_ci"] is not None else DEFAULT_BOARDS
    options["boards"], options["seed"] = check_run_arguments(options["boards"], options["dealer"], options["seed"],
                                                             options["design"], options["events"])
    options["workers"], options["game_timeout"] = execution(options["workers"], options["backend"],
                                                            options["game_timeout"], options["ray_address"],
                                                            options["boards"])
    options["warn"], options["note"] = warner(options["warn"]), noter(options["note"])
    dealer_warnings(options["dealer"], options["warn"])
    return options


def _played(specs: dict, pairs: list, out: Path, options: dict, command: str) -> list:
    from ..analysis.ab import play_and_compare

    return _played_into(out, command, lambda: play_and_compare(
        specs, pairs, out, options["workers"], options["backend"], options["ray_address"], not options["progress"],
        options["game_timeout"], options["until_ci"], warn=options["warn"]))


def _warn_about_changes(changes: list, warn) -> None:
    for path, old, new in changes:
        if old == new:
            warn(f"--set {path}: changes nothing (the base has {old!r} there already; list items count from 0)")


def ab(base, variant=None, settings=(), bots=None, boards: int | None = None, until_ci: float | None = None,
       dealer: str | None = None, design: str | None = None, events: str | None = None, seed: int = RUN_SEED,
       out=None, workers: int | None = None, backend: str = "local", ray_address=None, bot_params=None,
       bot_param_file=None, game_timeout: float | None = None, progress: bool = False, warn=None,
       note=None, value="auto") -> Report:
    """A balance change played on the same boards as the base: its effect per bot, champion and trait.

    Parameters
    ----------
    base : str, os.PathLike or GameConfig
        The base configuration (shipped name or YAML path).
    variant : str, os.PathLike or GameConfig, optional
        The variant's configuration (default: a copy of the base, edited by ``settings``).
    settings : list of str
        Edits ``"PATH=VALUE"`` at dotted field paths, the value read as YAML (``"tiers.3.copies=9"``).
    boards : int, optional
        Boards under each configuration (default 1,000; with ``until_ci``, the most it may play).
    until_ci : float, optional
        Add boards until every bot's 95% CI of its change of mean placement is narrower than ± this (the
        corrected change's CI when the runs are corrected by a value).
    dealer, design, events, seed, out, workers, backend, bot_params, bot_param_file, game_timeout, progress
        As for :func:`autodup.run_tournament`; ``out`` defaults to ``ab/<what is compared>``.
    value : str or os.PathLike or None
        The value both runs' placements are corrected by, as for :func:`autodup.run_tournament` (``"auto"``,
        a value file, or None), chosen from the base's configuration: its corrections keep mean zero under
        the variant, so each bot also gets its change of corrected mean placement, an estimate of the same
        change with less luck in it.

    Returns
    -------
    Report
        ``data`` is ``ab.json``: each bot's change of mean placement with its CI, the champions' and traits'
        effects, the variance reduction against independent seeds; with a value, each bot's
        ``delta_corrected_placement`` and ``corrected_ci``, and ``corrected_variance_reduction`` (the same
        boards and the value together, against independent seeds uncorrected).

    Examples
    --------
    >>> import autodup, tempfile
    >>> change = autodup.ab("tiny", settings=["shop.reroll_price=2"], bots="greedy,econ", boards=25,
    ...                     out=tempfile.mkdtemp(), workers=1)
    >>> sorted(change["bots"])
    ['econ', 'greedy']
    """
    from ..analysis.ab import AB_FILE, ab_result, default_ab_out, format_ab, setup_of, write_json
    from ..analysis.ab_report import write_ab_report
    from ..game.variants import apply_settings, parse_setting

    options = _options(locals())
    warn = options["warn"]
    settings = texts(settings, "settings", "PATH=VALUE edits", ordered=True)
    base_config = configuration(base, "base")
    config_warnings(base_config, warn)
    if variant is None and not settings:
        raise UsageError("nothing to compare (allowed: a variant configuration, PATH=VALUE edits, or both)",
                         "settings")
    variant_config = configuration(variant, "variant") if variant is not None else base_config
    variant_source = variant_config.source
    if variant is not None:
        config_warnings(variant_config, warn)
    changes = []
    if settings:
        variant_config, changes = apply_settings(variant_config, [parse_setting(option) for option in settings])
        config_warnings(variant_config, warn)
        _warn_about_changes(changes, warn)
    if variant_config.text == base_config.text:
        warn("the variant is the base itself: every change will be exactly 0")
    with command_pool(options["workers"], options["backend"], options["game_timeout"]):
        base_spec, variant_spec = _comparison_specs([base_config, variant_config], options, "ab")
        out = Path(out) if out is not None else default_ab_out("ab", base_config.name, [variant_config],
                                                              base_spec.boards, base_spec.seed, base_spec)
        comparison, = _played({"base": base_spec, "variant": variant_spec}, [("base", "variant")], out, options,
                              "ab")
    if settings:
        variant_source += " with --set " + " ".join(settings)
    result = ab_result(comparison, changes, setup_of(base_spec, options["until_ci"]), base_config.source, variant_source)
    write_json(out / AB_FILE, result)
    write_ab_report(result, out)
    return Report(result, out, format_ab(result, out))


def _sweep_text(sweep: dict, setup: dict, base_name: str, out: Path) -> str:
    from ..analysis.ab import SWEEP_FILE, half_width_text, no_placement_change, other_seating

    points = sweep["points"]
    lines = [f"{base_name}: sweep of {', '.join(sweep['paths'])} on {counted(sweep['boards'], 'board')} x "
             f"{counted(setup['tables'], 'table')}, dealer {setup['dealer']}{other_seating(setup)}, seed "
             f"{setup['seed']} (base: "
             f"{', '.join(map(str, sweep['base_values']))})"]
    bots = list(points[0]["bots"])
    # Corrected by a value, each value's line is followed by its corrected line: the same bots, in the same columns.
    corrected = "corrected_variance_reduction" in points[0]
    widths = [max(16, len(bot) + 1) for bot in bots]  # a long name widens its column, its cells with it
    lines.append(f"{'value':<24}" + "".join(f"{bot:>{w}}" for bot, w in zip(bots, widths)) + f"{'var. red.':>10}")

    def line(label, point, change, ci, reduction):
        cells = "".join(f"{point['bots'][b][change]:>+9.3f} ±{half_width_text(point['bots'][b][ci]):<5}".rjust(w)
                        for b, w in zip(bots, widths))
        reduction = point[reduction]
        return f"{label[:23]:<24}{cells}{'n/a' if reduction is None else f'{reduction:.1f}x':>10}"

    for point in points:
        lines.append(line(", ".join(point["labels"]), point, "delta_mean_placement", "ci", "variance_reduction"))
        if corrected:
            lines.append(line("  corrected", point, "delta_corrected_placement", "corrected_ci",
                              "corrected_variance_reduction"))
    lines.append("change of mean placement, variant - base, ± the 95% CI's half-width (lower is better)")
    if len(bots) == 1:
        lines.append(no_placement_change(points[0]))
    if corrected:
        lines.append("corrected: the change of the placement corrected by the value; its var. red. is against "
                     "independent seeds uncorrected")
    lines.append(f"{out / SWEEP_FILE}; plot: {out / 'sweep.png'}; report: {out / 'report.html'}")
    return "\n".join(lines)


def sweep(base, settings, bots=None, boards: int | None = None, until_ci: float | None = None,
          dealer: str | None = None, design: str | None = None, events: str | None = None, seed: int = RUN_SEED,
          out=None, workers: int | None = None, backend: str = "local", ray_address=None, bot_params=None,
          bot_param_file=None, game_timeout: float | None = None, progress: bool = False, warn=None,
          note=None, value="auto") -> Report:
    """The base and one variant per value of a swept field, on the same boards: each bot's effect curve.

    Parameters
    ----------
    base : str, os.PathLike or GameConfig
        The base configuration.
    settings : str or list of str
        ``"PATH=V1,V2,..."``: the field swept and its values, separated by commas, with no brackets around them
        (``"shop.reroll_price=2,3"``; they are read as the items of one YAML flow list, so a value may be a list
        in brackets: ``"levels.8.odds=[10,15,35,30,10],[16,20,35,25,4]"``); several paths change together,
        value by value.
    bots, boards, until_ci, dealer, design, events, seed, out, workers, backend, bot_params, bot_param_file,
    game_timeout, progress, warn, note, value
        As for :func:`ab` (every run corrected by the base's value); ``out`` defaults to
        ``sweep/<what is compared>``.

    Returns
    -------
    Report
        ``data`` is ``sweep.json``: one A/B comparison per value.

    Examples
    --------
    >>> import autodup, tempfile
    >>> curve = autodup.sweep("tiny", "shop.reroll_price=2,3", bots="greedy,econ", boards=20,
    ...                       out=tempfile.mkdtemp(), workers=1)
    >>> [point["changes"][0]["variant"] for point in curve["points"]]
    [2, 3]
    """
    from ..analysis.ab import SWEEP_FILE, ab_result, default_ab_out, setup_of, write_json
    from ..analysis.ab_report import write_sweep_report
    from ..game.variants import apply_settings, parse_sweep

    options = _options(locals())
    warn = options["warn"]
    settings = texts(settings, "settings", "PATH=V1,V2,... texts", ordered=True)
    if not settings:
        raise UsageError("no PATH=V1,V2,... given (allowed: one or more)", "settings")
    base_config = configuration(base, "base")
    config_warnings(base_config, warn)
    swept = [parse_sweep(option) for option in settings]
    if len({len(values) for values in swept}) > 1:
        raise UsageError("the swept paths have different numbers of values (allowed: the same number, changed "
                         "together)", "settings")
    variants, all_changes = [], []
    for values in zip(*swept):
        variant, changes = apply_settings(base_config, list(values))
        config_warnings(variant, warn)
        variants.append(variant)
        all_changes.append(changes)
    # A sweep may well include the base's own value (its point is exactly 0): only a path that no value changes
    # is worth a warning.
    for path_changes in zip(*all_changes):
        if all(old == new for _, old, new in path_changes):
            _warn_about_changes(path_changes[:1], warn)
    with command_pool(options["workers"], options["backend"], options["game_timeout"]):
        specs = _comparison_specs([base_config, *variants], options, "sweep")
        names = ["base", *(f"value-{i}" for i in range(len(variants)))]
        out = Path(out) if out is not None else default_ab_out("sweep", base_config.name, variants, specs[0].boards,
                                                              specs[0].seed, specs[0])
        comparisons = _played(dict(zip(names, specs)), [("base", name) for name in names[1:]], out, options, "sweep")
    setup = setup_of(specs[0], options["until_ci"])
    points = []
    for values, changes, comparison in zip(zip(*swept), all_changes, comparisons):
        # Each point's variant named as ab names its one: the base with the settings that make it.
        variant_source = f"{base_config.source} with --set " + " ".join(f"{s.dotted}={s.text}" for s in values)
        point = ab_result(comparison, changes, {}, base_config.source, variant_source)
        point["values"] = [s.value for s in values]
        point["labels"] = [s.text for s in values]
        points.append(point)
    result = {**setup, "paths": [values[0].dotted for values in swept],
              "base_values": [old for _, old, _ in all_changes[0]], "boards": comparisons[0]["boards"],
              "points": points}
    write_json(out / SWEEP_FILE, result)
    write_sweep_report(result, out)
    return Report(result, out, _sweep_text(result, setup, base_config.name, out))
