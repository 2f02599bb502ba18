"""The summary of a run: each bot's duplicate score, placement and top-4 rate with intervals, raw and
luck-adjusted."""

from __future__ import annotations

import collections
import json

import numpy as np

from ..arguments import cores
from ..errors import OtherRun, RunError, print_warning
from ..game.boards import DEFAULT_DESIGN, scored_rows
from ..game.stats import MISBEHAVIOUR_COLUMNS
from ..tournament.storage import chunk_arrays, chunk_files, read_chunk_table, read_determinism, read_manifest
from .statistics import mean_half_width

__all__ = ["RUN_AGAIN", "board_totals", "summarize_totals", "summarize", "fit_luck", "summarize_run", "misbehaving",
           "warn_if_misbehaving", "SUMMARY_FILE", "play_and_summarize"]

# How quality, ab and sweep finish an interrupted run: they have no --resume; run again, they go on from
# the chunks on disk.
RUN_AGAIN = "the same command, run again, goes on from them"


def board_totals(columns: dict, design: str = DEFAULT_DESIGN, adjusted=None, corrected=None) -> dict:
    """Per bot and board: scored rows, sums of placement, duplicate score, adjusted score and top-4 finishes;
    per bot the totals of what it did wrong (``MISBEHAVIOUR_COLUMNS``, when the columns are given).

    The scored rows are those of the design's scored seat (every row of a
    Latin square; the focal seat under ``paired``, see
    :func:`autodup.game.boards.scored_seat`). The duplicate score of a row is its
    placement minus the mean placement of the scored rows at the same board
    and seat (over the tables); the adjusted score is the same with
    ``adjusted`` (float64 (rows,): luck-adjusted placements, see
    :mod:`autodup.analysis.luck`) in place of placements, and the corrected
    score with ``corrected`` (float64 (rows,): placements corrected by a value,
    :mod:`autodup.game.value`), when given. Boards never span chunks, so the
    totals of a run are those of its chunks, put together.
    """
    board, seat, placement, bot = columns["board"], columns["seat"], columns["placement"], columns["bot"]
    players = int(seat.max()) + 1
    scored = scored_rows(design, board, seat, players)
    adjusted = placement.astype(np.float64) if adjusted is None else adjusted
    cell = board * players + seat
    _, inverse = np.unique(cell[scored], return_inverse=True)

    def less_cell_mean(values):
        values = values[scored].astype(np.float64)
        return values - (np.bincount(inverse, weights=values) / np.bincount(inverse))[inverse]

    duplicate, adjusted_duplicate = less_cell_mean(placement), less_cell_mean(adjusted)
    corrected_duplicate = less_cell_mean(corrected) if corrected is not None else None
    totals = {}
    for name in np.unique(bot):
        every = bot == name
        mine = every[scored]
        boards, index = np.unique(board[scored][mine], return_inverse=True)
        totals[str(name)] = {
            "boards": boards, "rows": np.bincount(index),
            "placement": np.bincount(index, weights=placement[scored][mine]),
            "duplicate": np.bincount(index, weights=duplicate[mine]),
            "adjusted": np.bincount(index, weights=adjusted_duplicate[mine]),
            "top4": np.bincount(index, weights=(placement[scored][mine] <= players // 2).astype(np.float64)),
            **({"corrected": np.bincount(index, weights=corrected_duplicate[mine])} if corrected is not None else {}),
            "misbehaviour": {key: int(columns[key][every].sum()) for key in MISBEHAVIOUR_COLUMNS if key in columns}}
    return totals


def summarize_totals(parts) -> list:
    """The summary from :func:`board_totals` of disjoint sets of boards (e.g. chunks).

    Per bot: mean placement, duplicate score and adjusted score with 95%
    confidence intervals from the spread of per-board means (boards are
    independent, the tables of a board are not), the top-half rate
    (``top4_rate`` at 8 seats), and the totals of illegal actions,
    action-cap hits, decisions that raised and bad answers; sorted by
    adjusted score (by the corrected score when the rows have one). With a full Latin square (as many tables as bots, each
    bot at every seat once per board), a bot's duplicate score is its mean
    placement minus ``(players + 1) / 2`` on every board.
    """
    merged: dict = {}
    for part in parts:
        for name, totals in part.items():
            merged.setdefault(name, []).append(totals)
    rows = []
    for name, pieces in merged.items():
        joined = {key: np.concatenate([p[key] for p in pieces]) for key in pieces[0] if key != "misbehaviour"}
        count = joined["rows"]
        entry = {"bot": name, "rows": int(count.sum()), "boards": int(joined["boards"].size)}
        for label, key in (("mean_placement", "placement"), ("duplicate_score", "duplicate"),
                           ("adjusted_score", "adjusted"), ("corrected_score", "corrected")):
            if key not in joined:
                continue
            per_board = joined[key] / count
            entry[label] = float(joined[key].sum() / count.sum())
            entry[f"{label}_ci95"] = mean_half_width(per_board)  # None (JSON null) with a single board
        entry["top4_rate"] = float(joined["top4"].sum() / count.sum())
        for key in pieces[0]["misbehaviour"]:
            entry[key] = sum(p["misbehaviour"][key] for p in pieces)
        rows.append(entry)
    return sorted(rows, key=lambda r: (r.get("corrected_score", r["adjusted_score"]), r["bot"]))


def summarize(columns: dict, design: str = DEFAULT_DESIGN) -> list:
    """The summary of rows given as columns (see :func:`summarize_totals`; no luck adjustment)."""
    return summarize_totals([board_totals(columns, design)])


def fit_luck(out, bot_names, design: str, files=None):
    """The cross-fitted slopes (:class:`autodup.analysis.luck.CrossFit`) of a run folder's scored rows, chunk by
    chunk (``files``: its :func:`~autodup.tournament.storage.chunk_files`, if already listed)."""
    from .luck import CrossFit

    fit = CrossFit(len(bot_names))
    index = {name: i for i, name in enumerate(bot_names)}
    files = chunk_files(out) if files is None else files
    for rows in _in_order(lambda path: _scored_luck_rows(path, index, design), files):
        fit.add(*rows)
    return fit


def _scored_luck_rows(path, index: dict, design: str) -> tuple:
    """A chunk's scored rows as :meth:`autodup.analysis.luck.CrossFit.add` takes them: bot, board, placement,
    luck features."""
    from .luck import luck_features, luck_matrix

    table, _ = read_chunk_table(path, ["board", "table", "seat", "bot", "placement", "luck"])
    board, seat = table.column("board").to_numpy(), table.column("seat").to_numpy()
    bot = np.array([index[name] for name in table.column("bot").to_pylist()], dtype=np.int64)
    luck = luck_features(luck_matrix(table, len(board)), board, table.column("table").to_numpy())
    scored = scored_rows(design, board, seat, int(seat.max()) + 1)
    return bot[scored], board[scored], table.column("placement").to_numpy()[scored].astype(np.float64), luck[scored]


# A summary reads every chunk twice (the luck slopes are fitted on all of them first). Much of that is in
# Parquet's decoding, hashing and numpy, which let other threads run (the bots' names, read as Python strings,
# do not): so chunks are read and reduced on a few threads, taken in chunk order (the sums, and so every
# figure, are the same bits as one by one), at most this many chunks ahead of the one being added (memory
# stays flat in the boards).
CHUNKS_AHEAD = 8


def _in_order(function, items, threads: int | None = None):
    """``function(item)`` for each of ``items``, yielded in their order, computed on ``threads`` threads (the
    cores, at most 4) at most :data:`CHUNKS_AHEAD` items ahead; the first exception, in that order, is raised."""
    from concurrent.futures import ThreadPoolExecutor

    threads = threads or min(4, cores())
    pending: collections.deque = collections.deque()
    with ThreadPoolExecutor(threads, thread_name_prefix="autodup-summary") as pool:
        try:
            for item in items:
                pending.append(pool.submit(function, item))
                if len(pending) >= CHUNKS_AHEAD:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:  # raised, or the caller stopped: what is queued is not read
            for future in pending:
                future.cancel()


def summarize_run(out) -> list:
    """The summary of a run folder, read chunk by chunk (memory does not grow with the number of boards).

    Every chunk is checked as it is read (:func:`read_chunk_table`). The adjusted
    score is cross-fitted (:mod:`autodup.analysis.luck`): a first pass fits the
    slopes, a second adjusts. Each bot's row also gets ``first_error`` (its
    first policy error, or None) and ``deterministic`` (from the probe at the
    start of the run, None if absent) and ``luck_fitted``: False when its
    boards were too few to fit its slopes on some fold
    (:data:`autodup.analysis.luck.ROWS_PER_SLOPE`), whose boards then count their
    raw placements in the adjusted score. In a run corrected by a value, each row
    also gets ``value_weights``: ``"own"`` when the value file has weights fitted
    on this very bot, ``"pooled"`` when it corrects the bot by the weights pooled
    over its roster (a bot it does not know, or whose code changed since).
    """
    from ..game.agents import is_agent_spec
    from ..game.bot_check import explain_silent_errors

    identity = read_manifest(out)["identity"]
    design = identity["design"]
    bot_names = [name for name, *_ in identity["bots"]]
    bot_paths = {name: str(path) for name, path, *_ in identity["bots"]}
    files = chunk_files(out)
    slopes, fitted = fit_luck(out, bot_names, design, files).slopes_and_fitted()
    index = {name: i for i, name in enumerate(bot_names)}
    corrected = bool(identity.get("value_sha256"))
    parts, first_errors = [], {}
    for totals, errors in _in_order(lambda path: _chunk_totals(path, index, slopes, design, corrected), files):
        parts.append(totals)
        for bot_name, message in errors.items():
            first_errors.setdefault(bot_name, message)
    determinism = read_determinism(out) or {}
    rows = summarize_totals(parts)
    pooled = _pooled_bots(out) if corrected else None
    for row in rows:
        if pooled is not None:
            row["value_weights"] = "pooled" if row["bot"] in pooled else "own"
        row["first_error"] = first_errors.get(row["bot"]) or explain_silent_errors(
            row.get("bot_errors", 0), row.get("bad_answers", 0), is_agent_spec(bot_paths.get(row["bot"], "")))
        row["deterministic"] = determinism.get(row["bot"])
        row["luck_fitted"] = bool(fitted[index[row["bot"]]])
    return rows


def _chunk_totals(path, index: dict, slopes: np.ndarray, design: str, corrected: bool) -> tuple:
    """A chunk's :func:`board_totals`, its placements adjusted by ``slopes``, and its bots' first errors; the chunk
    read once."""
    from .luck import adjusted_placements, luck_features, luck_matrix

    names = ["board", "table", "seat", "bot", "placement", *(["corrected_placement"] if corrected else []),
             *MISBEHAVIOUR_COLUMNS]
    table, metadata = read_chunk_table(path, [*names, "luck"])
    columns = chunk_arrays(path, table.select(names))
    bot = np.array([index[name] for name in columns["bot"]], dtype=np.int64)
    luck = luck_features(luck_matrix(table, len(bot)), columns["board"], columns["table"])
    adjusted = adjusted_placements(slopes, bot, columns["board"], columns["placement"].astype(np.float64), luck)
    totals = board_totals(columns, design, adjusted, columns.get("corrected_placement"))
    return totals, json.loads(metadata["autodup_errors"])  # its shape checked by read_chunk_table


def _pooled_bots(out) -> list:
    """The bots of a corrected run that its value corrects by the pooled weights (the file has no weights of their
    own, or their code changed since it was fitted)."""
    from ..tournament.storage import spec_of_folder

    spec = spec_of_folder(out)
    return spec.value().weights_for(spec.bot_names, spec.bot_sha256)[1]


def misbehaving(summary: list) -> list:
    """One phrase per bot that did something wrong in a run (empty when all played clean)."""
    phrases = []
    for row in summary:
        wrong = [f"{row[key]:,} {key.replace('_', ' ')}" for key in MISBEHAVIOUR_COLUMNS if row.get(key)]
        if row.get("deterministic") is False:
            wrong.append("not deterministic")
        if wrong:
            first = f" (first: {row['first_error']})" if row.get("first_error") else ""
            phrases.append(f"{row['bot']}: {', '.join(wrong)}{first}")
    return phrases


def warn_if_misbehaving(summary: list, where: str = "", warn=print_warning) -> None:
    """One warning line (``where: ...``) naming every bot that did something wrong, if any did."""
    problems = misbehaving(summary)
    if problems:
        warn(f"{where}{'; '.join(problems)}; see `autodup check-bot BOT`")


SUMMARY_FILE = "summary.json"


def play_and_summarize(spec, out=None, *arguments, refused_as=None, **options) -> tuple:
    """Play (or finish) a run with :func:`autodup.tournament.run.play_run` and write its ``summary.json``.

    Parameters
    ----------
    spec : autodup.tournament.spec.RunSpec
        What to play.
    out : str or os.PathLike, optional
        The run folder (default: named after the run, under ``runs/``).
    *arguments, **options
        Passed to :func:`~autodup.tournament.run.play_run` (workers, backend, resume, quiet, ...).
    refused_as : tuple of str, optional
        ``(what, folder, argument)`` for a command whose runs live in a folder of its own (``("runs", out,
        "out")``): a refusal of ``out`` (another run there, a folder that is not a run) is said of that folder
        and argument, not of a resume the command has no option for.

    Returns
    -------
    out : pathlib.Path
        The run folder.
    summary : list of dict
        One row per bot (see :func:`summarize_run`).
    """
    from ..files import write_json_atomically
    from ..tournament.run import play_run

    written = []

    def summarize(folder):
        written.append(summarize_run(folder))
        write_json_atomically(folder / SUMMARY_FILE, written[0])

    try:
        out = play_run(spec, out, *arguments, finished=summarize, **options)
    except RunError as refused:
        if refused_as is None or refused.argument not in ("resume", "out"):
            raise
        what, folder, argument = refused_as
        if isinstance(refused, OtherRun):
            raise RunError(f"{folder} holds {what} of other arguments or files ({refused.differing}) (allowed: the "
                           "same ones, to go on, or another folder)", argument) from None
        raise RunError(refused.message, argument) from None
    return out, written[0]
