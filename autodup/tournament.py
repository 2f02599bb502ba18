"""Duplicate tournaments: boards played by several tables, results stored in chunks that survive interruption.

A board is one grandparent seed, ``board_seed(tournament_seed, b)``. It is
played by ``T`` tables (one per bot by default), seated by a cyclic Latin
square: at table ``t``, seat ``s`` plays bot ``(s + t) % n_bots``, so every bot
plays every seat of every board once (when ``T == n_bots``).

Dealers are those of :data:`autodup.dealers.DEALERS`: ``haystack``, ``keyed``,
``stream`` and ``replay`` give seat ``s`` of every table the same seat seed and
every table the same event seed; ``independent`` is the control, whose tables
share nothing (see :mod:`autodup.boards` for the seed tree).

Boards are played in chunks of ``CHUNK_BOARDS``, whatever the number of
workers, and each chunk is written as one Parquet file (to a temporary name,
then renamed), so a stopped run resumes where it was and ends with the same
bytes as an uninterrupted one.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import os
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .boards import DEFAULT_DESIGN, RUN_DESIGNS, SEATINGS, TRACE_FIELDS, play_boards, scored_rows, seat_bot
from .dealers import DEALERS, dealer_named
from .game import DEFAULT_EVENTS, EVENT_ADDRESSING, MISBEHAVIOUR_COLUMNS, PROGRESS_LOADING, PROGRESS_PROBE, RESULT_COLUMNS
from .errors import first_line, print_warning
from .workers import DEFAULT_GAME_TIMEOUT

CHUNK_BOARDS = 25
# 2: streams in rng.DOMAINS (game streams moved), bad_answers column, column checksums, bot errors per chunk.
# 3: replay streams in the samplers' domain; config and bot snapshots; per-round level, gold, HP; final boards.
# 4: offers (copies of each champion shown to the seat over its game).
# 5: luck terms per row; runs have a seating design and an event addressing; events by seat by default.
# 6: luck terms weighed by a value with board power (coin_value, coin_duel, coin_onlooker, coin_gold,
#    matchmaking_value).
# 7: bought (copies of each champion the seat bought from its shop over its game).
FORMAT_VERSION = 7
MAX_BOARDS = 10**9   # a billion boards is months of a large cluster; more is surely a typo
PROBE_GAMES = 2      # tables per bot, each played twice, to tell whether a bot is deterministic
DETERMINISM_FILE = "determinism.json"
RAY_CONNECT_SECONDS = 5.0
RAY_START_SECONDS = 120.0


# --------------------------------------------------------------------------
# a run's definition, and the work of one chunk (run in worker processes)
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class RunSpec:
    """Everything that determines a run's results (not how it is executed).

    The configuration travels as its text, so that workers, resumes and
    readers compile the very YAML the run started with, wherever the file is
    now; the run folder keeps a copy (:data:`CONFIG_SNAPSHOT`).
    """

    config_name: str     # the configuration's name (GameConfig.name)
    config_source: str   # where its text was read: a path, or a run folder's snapshot
    config_text: str
    config_sha256: str   # of config_text in UTF-8
    bots: tuple          # (path, ((parameter, value), ...)) per bot, in seating order
    bot_names: tuple
    bot_sha256: tuple    # of each bot file and its own modules (Bot.fingerprint)
    boards: int
    dealer: str
    seed: int
    tables: int
    code: str            # fingerprint of the package's code and of the Parquet writer
    design: str = DEFAULT_DESIGN    # the seating design (autodup.boards.RUN_DESIGNS)
    events: str = DEFAULT_EVENTS    # how events are addressed (autodup.game.EVENT_ADDRESSING)

    def identity(self) -> dict:
        """What ``--resume`` compares: the same identity gives the same results (and the same bytes)."""
        return {"config_sha256": self.config_sha256,
                "bots": [[name, path, sha, dict(params)] for name, (path, params), sha
                         in zip(self.bot_names, self.bots, self.bot_sha256)],
                "boards": self.boards, "dealer": self.dealer, "seed": self.seed, "tables": self.tables,
                "design": self.design, "events": self.events,
                "chunk_boards": CHUNK_BOARDS, "format": FORMAT_VERSION, "code": self.code}

    def identity_hash(self) -> str:
        return hashlib.sha256(json.dumps(self.identity(), sort_keys=True).encode()).hexdigest()

    def config(self):
        """The :class:`~autodup.config.GameConfig` of the run, compiled from its text."""
        from .config import parse_config

        return parse_config(self.config_text, self.config_source)

    def bot_at(self, board: int, table: int, seat: int) -> str:
        """The bot at ``seat`` of ``table`` of ``board`` (under the run's seating design); for a table of the
        determinism probe (``table = -1 - bot``), the bot it probes."""
        if table < 0:
            return self.bot_names[-1 - table]
        return self.bot_names[seat_bot(SEATINGS[self.design].code, board, table, seat, len(self.bot_names),
                                       np.zeros(self.players(), dtype=np.int64))]

    def players(self) -> int:
        """Seats at a table (from the configuration's text)."""
        return self.config().players

    def describe(self, where) -> str:
        """A place of a game (:class:`autodup.workers.Where`) in words, with the bot that was deciding."""
        if where.loading >= 0:
            return f"bot {self.bot_names[where.loading]!r} (while it was loaded)"
        if where.table < 0:  # a table of the determinism probe, which seats one bot (and random)
            return f"bot {self.bot_names[-1 - where.table]!r} (seat {where.seat} of a table probing its determinism)"
        if where.seat < 0:
            return f"the table (no bot was deciding) at board {where.board}, table {where.table}"
        return (f"bot {self.bot_at(where.board, where.table, where.seat)!r} (seat {where.seat}, board {where.board}, "
                f"table {where.table})")


def make_spec(config, bots, boards: int, dealer: str, seed: int, design: str = DEFAULT_DESIGN,
              events: str = DEFAULT_EVENTS) -> RunSpec:
    """A run of ``bots`` (:class:`~autodup.bots.Bot` or :class:`~autodup.bots.BotInfo`, one table each).

    ``design`` seats them (``latin`` or ``paired``, see :mod:`autodup.boards`);
    ``events`` addresses the table's events (``seat`` or ``position``).

    ``config`` is a :class:`~autodup.config.GameConfig`, a shipped name
    (``set4``, ``tiny``) or the path of a YAML file.
    """
    from .config import GameConfig, load_config

    if dealer not in DEALERS:
        raise RunError(f"--dealer: unknown dealer {dealer!r} (allowed: {', '.join(DEALERS)})")
    if design not in RUN_DESIGNS:
        raise RunError(f"--design: unknown design {design!r} (allowed: {', '.join(RUN_DESIGNS)})")
    if events not in EVENT_ADDRESSING:
        raise RunError(f"--events: unknown addressing {events!r} (allowed: {', '.join(EVENT_ADDRESSING)})")
    if isinstance(boards, bool) or not isinstance(boards, int) or not 1 <= boards <= MAX_BOARDS:
        raise RunError(f"--boards: {boards} is out of range (allowed: 1 to {MAX_BOARDS:,})")
    config = config if isinstance(config, GameConfig) else load_config(config)
    check_lineup(bots, config.players)
    source = config.source if not Path(config.source).exists() else str(Path(config.source).resolve())
    return RunSpec(config_name=config.name, config_source=source, config_text=config.text,
                   config_sha256=hashlib.sha256(config.text.encode("utf-8", "surrogatepass")).hexdigest(),
                   bots=tuple((str(b.path), tuple(sorted(b.parameters.items()))) for b in bots),
                   bot_names=tuple(b.name for b in bots), bot_sha256=tuple(b.fingerprint for b in bots),
                   boards=boards, dealer=dealer, seed=seed, tables=len(bots), code=code_fingerprint(),
                   design=design, events=events)


def check_bot_count(bots: int, seats: int) -> None:
    """Raise :class:`RunError` unless 1 <= ``bots`` <= ``seats`` (see :func:`check_lineup`); checked before
    any bot is loaded."""
    if not 1 <= bots <= seats:
        raise RunError(f"--bots: {bots} bots for {seats} seats (allowed: 1 to {seats}; every table seats every bot "
                       "of the run, so that each plays every seat of every board against the same field)")


def check_lineup(bots, seats: int) -> None:
    """The rule ``run`` and ``play`` share: 1 to ``seats`` distinct bots, seated by the Latin square.

    More bots than seats is refused: a run plays one table per bot and every
    table seats every bot of the run, so that each plays every seat of every
    board against the same field; a table has no room for more.
    """
    check_bot_count(len(bots), seats)
    if len({(str(b.path), tuple(sorted(b.parameters.items()))) for b in bots}) != len(bots):
        raise RunError("--bots: a bot appears twice (with the same parameters); the Latin square seats each "
                       "listed bot at every seat, so list it once")
    if len({b.name for b in bots}) != len(bots):
        raise RunError("--bots: two bots share a name; results could not tell them apart")


def code_fingerprint() -> str:
    """The package version, a hash of its sources, and the Parquet writer's version: what else shapes the bytes."""
    import pyarrow

    from . import __version__
    from .compile_cache import SOURCE_FINGERPRINT

    return f"autodup {__version__} {SOURCE_FINGERPRINT}, pyarrow {pyarrow.__version__}"


def folder_name(text: str) -> str:
    """``text`` (a configuration's name) as a safe part of a folder name."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._") or "config"


def default_out(spec: RunSpec) -> Path:
    """``runs/<config>-<dealer>-<boards>b-seed<seed>-<hash of the identity>``: a folder named by the run."""
    digest = spec.identity_hash()[:10]
    return Path("runs") / f"{folder_name(spec.config_name)}-{spec.dealer}-{spec.boards}b-seed{spec.seed}-{digest}"


_WORKER_STATE: dict = {}


def _prepared(spec: RunSpec, progress: np.ndarray):
    """Rules and policies of a spec, built once per process (``progress`` names the bot being loaded)."""
    key = spec
    if key not in _WORKER_STATE:
        from .bots import load_bot, policy_tuple
        from .game import rules_of

        # Every process checks that the bots' files are still those the run was started with (the
        # configuration travels as its text).
        config = spec.config()
        bots = []
        for index, (path, params) in enumerate(spec.bots):
            progress[PROGRESS_LOADING] = index + 1  # a bot whose compiled code crashes the process is named
            bots.append(load_bot(path).with_parameters(dict(params)))
            if bots[-1].fingerprint != spec.bot_sha256[index]:
                raise RunError(f"bot {bots[-1].name!r} (its file or its own modules) changed since the run started")
        progress[PROGRESS_LOADING] = 0
        _WORKER_STATE.clear()
        _WORKER_STATE[key] = (config, rules_of(config), bots, policy_tuple(bots))
    return _WORKER_STATE[key]


def play_chunk(spec: RunSpec, chunk: int, progress: np.ndarray) -> dict:
    """Play chunk ``chunk`` of a run; returns its rows (:func:`chunk_rows`), compact enough to send back.

    ``progress`` (int64 (PROGRESS_FIELDS,)) is where the tables write where they are.
    """
    _, rules, bots, lineup = _prepared(spec, progress)
    played = play_boards(rules, dealer_named(spec.dealer), *lineup, seed=spec.seed, first_board=chunk * CHUNK_BOARDS,
                         boards=boards_in_chunk(spec.boards, chunk), tables=spec.tables, seating=spec.design,
                         n_bots=len(bots), events=spec.events, progress=progress)
    return chunk_rows(spec, chunk, played, rules.shop_size)


def trace_boards(spec: RunSpec, boards: int, draws: int, progress: np.ndarray) -> dict:
    """Play the run's first ``boards`` boards again, keeping each seat's first ``draws`` draws with their inputs.

    Returns the trace arrays of :class:`autodup.boards.BoardResults`
    (``trace_weights``, ``trace_key``, ``trace_outcome``, ``trace_count``):
    the coupling diagnostic of :mod:`autodup.measures` reads them. The tables
    are those of the run (same seeds and seating), so the games are its games.
    """
    _, rules, bots, lineup = _prepared(spec, progress)
    played = play_boards(rules, dealer_named(spec.dealer), *lineup, seed=spec.seed, first_board=0,
                         boards=min(boards, spec.boards), tables=spec.tables, seating=spec.design, n_bots=len(bots),
                         events=spec.events, progress=progress, trace_draws=draws)
    return {name: getattr(played, name) for name in TRACE_FIELDS}


def probe_determinism(spec: RunSpec, progress: np.ndarray) -> dict:
    """``{bot name: bool}``: whether each bot plays the same tables the same way twice (see ``check_bot``)."""
    from .bots import check_bot

    config, _, bots, _ = _prepared(spec, progress)
    deterministic = {}
    for index, bot in enumerate(bots):
        progress[PROGRESS_PROBE] = index + 1  # the probe's tables: see autodup.workers.table_of, RunSpec.describe
        deterministic[bot.name] = check_bot(bot, config, games=PROBE_GAMES, progress=progress,
                                            variant_games=0)["deterministic"]
    progress[PROGRESS_PROBE] = 0
    return deterministic


def chunk_count(boards: int) -> int:
    return (boards + CHUNK_BOARDS - 1) // CHUNK_BOARDS


def boards_in_chunk(boards: int, chunk: int) -> int:
    return min(CHUNK_BOARDS, boards - chunk * CHUNK_BOARDS)


ROUND_COLUMNS = ("round_level", "round_gold", "round_hp")  # per row, a list: one value per round alive
LIST_COLUMNS = ("round_shops", *ROUND_COLUMNS, "final_champions", "final_stars", "offers", "bought", "luck")


def chunk_rows(spec: RunSpec, chunk: int, played, shop_size: int) -> dict:
    """The rows of a chunk, one per (board, table, seat), as named columns.

    ``played`` is the :class:`autodup.boards.BoardResults` of the chunk's
    boards. Every column is a numpy array except the list columns
    (:data:`LIST_COLUMNS`), given as ``(offsets, values)``:

    - ``round_shops``: the seat's shop after each round's free refresh while
      it was alive, flattened (``shop_size`` champions per round, -1 for an
      empty slot);
    - ``round_level``, ``round_gold``, ``round_hp``: what the seat had when it
      saw each of those shops;
    - ``final_champions``, ``final_stars``: its board when it left the game
      (or at the end), strongest unit first;
    - ``offers``: copies of each champion (every champion, in the
      configuration's order) shown to the seat over its game, in every shop;
    - ``bought``: copies of each champion the seat bought from its shop over
      its game (loot is not bought), in the same order;
    - ``luck``: the seat's luck terms (``autodup.game.LUCK``, in that order).

    Champions are indices into the configuration's champions (the run
    folder's snapshot); :mod:`autodup.results` reads them with names.
    """
    results = played.results
    n_boards, n_tables, players, _ = results.shape
    board = np.repeat(np.arange(n_boards) + chunk * CHUNK_BOARDS, n_tables * players)
    table = np.tile(np.repeat(np.arange(n_tables), players), n_boards)
    seat = np.tile(np.arange(players), n_boards * n_tables)
    names = np.array(spec.bot_names, dtype=object)
    columns = {"board": board.astype(np.int64), "table": table.astype(np.int64), "seat": seat.astype(np.int64),
               "bot": names[played.bots.reshape(-1)]}
    flat = results.reshape(-1, results.shape[-1])
    for i, name in enumerate(RESULT_COLUMNS):
        columns[name] = flat[:, i].copy()
    columns["round_shops"] = (played.shop_offsets.astype(np.int32), played.shop_values)
    round_offsets = (played.shop_offsets // shop_size).astype(np.int32)
    for k, name in enumerate(ROUND_COLUMNS):
        columns[name] = (round_offsets, played.state_values[:, k].copy())
    champions = played.final_champion.reshape(len(seat), -1)
    on_board = champions >= 0
    board_offsets = np.zeros(len(seat) + 1, dtype=np.int32)
    np.cumsum(on_board.sum(axis=1), out=board_offsets[1:])
    columns["final_champions"] = (board_offsets, champions[on_board])
    columns["final_stars"] = (board_offsets, played.final_star.reshape(len(seat), -1)[on_board])
    n_champions = played.offers.shape[-1]
    per_champion = np.arange(len(seat) + 1, dtype=np.int32) * n_champions
    columns["offers"] = (per_champion, played.offers.reshape(-1))
    columns["bought"] = (per_champion, played.bought.reshape(-1))
    n_terms = played.luck.shape[-1]
    columns["luck"] = (np.arange(len(seat) + 1, dtype=np.int32) * n_terms, played.luck.reshape(-1))
    return columns


# --------------------------------------------------------------------------
# storage: chunks with checksums, read back only when they check out
# --------------------------------------------------------------------------


class RunError(ValueError):
    """A run that cannot start, resume or be read; ``str()`` is one line."""


class CorruptChunk(RunError):
    """A chunk file whose content is not what was written (a checksum or an invariant fails)."""


_CHUNK_NAME = re.compile(r"^chunk-(\d{6,})\.parquet$")


def chunk_path(out: Path, chunk: int) -> Path:
    return out / "chunks" / f"chunk-{chunk:06d}.parquet"


def _column_digest(column) -> str:
    """SHA-256 of a column's values (not of its encoding): what a chunk promises to give back when read."""
    import pyarrow as pa

    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if pa.types.is_list(column.type):
        # Parquet renames a list's child field (item, element): the type named is that of the values.
        digest = hashlib.sha256(f"list<{column.type.value_type}>".encode())
        offsets = np.asarray(column.offsets, dtype=np.int64)
        digest.update((offsets - offsets[0]).tobytes())
        digest.update(np.ascontiguousarray(column.flatten().to_numpy(zero_copy_only=False)).tobytes())
    elif pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
        digest = hashlib.sha256(b"string")
        digest.update("\0".join(column.to_pylist()).encode())
    else:
        digest = hashlib.sha256(str(column.type).encode())
        digest.update(np.ascontiguousarray(column.to_numpy(zero_copy_only=False)).tobytes())
    return digest.hexdigest()


def write_chunk(out: Path, chunk: int, columns: dict, identity_hash: str, first_errors: dict | None = None) -> None:
    """Write one chunk atomically: a temporary file, then a rename (a half-written chunk never looks done).

    The schema's metadata holds the run's identity hash, the chunk index, a
    checksum of every column's values and each bot's first error message.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    final = chunk_path(out, chunk)
    temporary = final.with_name(f".{final.name}.{os.getpid()}.tmp")
    arrays = {}
    for name, values in columns.items():
        if isinstance(values, tuple):  # a list column: (offsets, values)
            arrays[name] = pa.ListArray.from_arrays(pa.array(values[0]), pa.array(values[1]))
        else:
            arrays[name] = pa.array(values)
    table = pa.table(arrays)
    checksums = {name: _column_digest(table.column(name)) for name in table.column_names}
    table = table.replace_schema_metadata({"autodup_run": identity_hash, "autodup_chunk": str(chunk),
                                           "autodup_checksums": json.dumps(checksums, sort_keys=True),
                                           "autodup_errors": json.dumps(first_errors or {}, sort_keys=True)})
    pq.write_table(table, temporary, compression="zstd")
    with open(temporary, "rb") as handle:  # on disk before it gets its final name
        os.fsync(handle.fileno())
    os.replace(temporary, final)


def read_chunk_table(path: Path, columns=None) -> tuple:
    """The columns of one chunk as a pyarrow Table, each checked against its checksum; ``(table, metadata)``.

    Raises
    ------
    CorruptChunk
        The file cannot be read or a checksum differs.
    """
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path, columns=columns)
        metadata = {key.decode(): value.decode() for key, value in (table.schema.metadata or {}).items()}
        checksums = json.loads(metadata["autodup_checksums"])
    except Exception as error:  # a damaged file fails in many ways; every one means the same
        raise CorruptChunk(f"{path}: corrupted, cannot be read ({type(error).__name__})") from None
    for name in table.column_names:
        if checksums.get(name) != _column_digest(table.column(name)):
            raise CorruptChunk(f"{path}: corrupted (the checksum of column {name!r} differs from the one written)")
    return table, metadata


def read_chunk(path: Path, columns=None) -> tuple:
    """The columns of one chunk as numpy arrays, checked; returns ``(columns, metadata)``.

    Every column read is checked against the checksum written with it, and
    placements (when read with board and table) against the rule that each
    table's placements are 1 .. players. List columns are object arrays.

    Raises
    ------
    CorruptChunk
        The file cannot be read, a checksum differs or an invariant fails.
    """
    table, metadata = read_chunk_table(path, columns)
    values = {name: table.column(name).to_numpy(zero_copy_only=False) for name in table.column_names}
    if {"board", "table", "placement"} <= values.keys() and not _placements_are_whole(values):
        raise CorruptChunk(f"{path}: corrupted (a table's placements are not 1 .. players)")
    return values, metadata


def _placements_are_whole(columns: dict) -> bool:
    """Whether every (board, table) holds placements exactly 1 .. (its number of rows)."""
    board, table, placement = columns["board"], columns["table"], columns["placement"]
    order = np.lexsort((placement, table, board))
    board, table, placement = board[order], table[order], placement[order]
    starts = np.flatnonzero(np.r_[True, (board[1:] != board[:-1]) | (table[1:] != table[:-1])])
    position = np.arange(board.size) - np.repeat(starts, np.diff(np.r_[starts, board.size]))
    return bool(np.array_equal(placement, position + 1))


def read_results(out) -> dict:
    """Every row of a finished (or partial) run as numpy columns, ordered by board, table, seat (checked)."""
    parts = [read_chunk(path)[0] for path in chunk_files(out)]
    columns = {name: np.concatenate([part[name] for part in parts]) for name in parts[0]}
    order = np.lexsort((columns["seat"], columns["table"], columns["board"]))
    return {name: values[order] for name, values in columns.items()}


def chunk_index(path: Path) -> int:
    """The index of a chunk from its file's name (``chunk-000012.parquet``: 12)."""
    match = _CHUNK_NAME.match(Path(path).name)
    if not match:
        raise RunError(f"{path}: not a chunk file (chunk-NNNNNN.parquet)")
    return int(match.group(1))


def boards_done(out, boards: int) -> int:
    """Boards in the finished chunks of a run folder of ``boards`` boards."""
    return sum(boards_in_chunk(boards, chunk_index(path)) for path in chunk_files(out))


def chunk_files(out) -> list:
    """The chunk files of a run folder, in chunk order (temporary files are not chunks)."""
    files = sorted(p for p in (Path(out) / "chunks").glob("chunk-*.parquet") if _CHUNK_NAME.match(p.name))
    if not files:
        raise RunError(f"{out}: no results (no chunks written)")
    return files


@dataclass
class Plan:
    """What a run folder holds: the chunks already done, and the ones found corrupted (deleted, to play again)."""

    done: set
    corrupted: list


def prepare_output(out: Path, spec: RunSpec, resume: bool, manifest_extra: dict) -> Plan:
    """Create or check the output folder (locked by the caller); returns what is already done.

    Chunks on disk are verified in full (checksums and invariants); a
    corrupted one is deleted and listed in ``Plan.corrupted``, so that it is
    played again. Nothing here grows with the number of boards: only the
    files that exist are looked at.

    Raises
    ------
    RunError
        The folder holds another run, files that are not this run's, or a
        run exists and ``resume`` is off.
    """
    manifest_path = out / "manifest.json"
    existed = manifest_path.exists()
    if existed:
        recorded = read_manifest(out)["identity"]
        if recorded != spec.identity():
            if not resume:
                raise RunError(f"{out}: holds another run already (use another --out, or --resume --out {out} "
                               "to finish that one with its own arguments)")
            differing = sorted(k for k in spec.identity() if recorded.get(k) != spec.identity()[k])
            raise RunError(f"--resume: {out} holds a run with other arguments or files ({', '.join(differing)} "
                           "differ); resume with the same ones or use another --out")
    else:
        if any(p.name != LOCK_NAME for p in out.iterdir()):
            raise RunError(f"--out: {out} is not empty and has no manifest.json (not a run folder)")
        (out / "chunks").mkdir(exist_ok=True)
        manifest = {"identity": spec.identity(), **manifest_extra}
        _write_json_atomically(manifest_path, manifest)
    _write_snapshots(out, spec)
    chunks = out / "chunks"
    chunks.mkdir(exist_ok=True)
    identity_hash = spec.identity_hash()
    rows_per_board = spec.tables * load_players(spec)
    total = chunk_count(spec.boards)
    plan = Plan(set(), [])
    for entry in os.scandir(chunks):
        if entry.name.startswith(".chunk-") and entry.name.endswith(".tmp"):
            os.unlink(entry.path)  # a write that a kill interrupted
            continue
        match = _CHUNK_NAME.match(entry.name)
        if not match or int(match.group(1)) >= total:
            raise RunError(f"{chunks}: holds files that are not chunks of this run ({entry.name}, ...)")
        chunk, path = int(match.group(1)), Path(entry.path)
        try:
            columns, metadata = read_chunk(path)
        except CorruptChunk as error:
            path.unlink()
            plan.corrupted.append(str(error))
            continue
        rows = boards_in_chunk(spec.boards, chunk) * rows_per_board
        if metadata.get("autodup_run") != identity_hash or metadata.get("autodup_chunk") != str(chunk) \
                or columns["board"].size != rows:
            raise RunError(f"{path}: not a chunk of this run (delete it to play it again)")
        plan.done.add(chunk)
    if existed and not resume and len(plan.done) < total:
        raise RunError(f"{out}: holds this run, unfinished (use --resume to finish it, or another --out)")
    return plan


CONFIG_SNAPSHOT = "config.yaml"   # the configuration's text, as the run read it
BOT_SNAPSHOTS = "bots"            # each bot's file, as the run loaded it: bots/<name>.py


def _write_snapshots(out: Path, spec: RunSpec) -> None:
    """Keep the configuration and the bots' files by content (those missing), so that the folder reads anywhere.

    Written after the manifest, which is what makes a folder a run: a kill
    in between leaves a run whose resume writes them.
    """
    if not (out / CONFIG_SNAPSHOT).is_file():
        _write_bytes_atomically(out / CONFIG_SNAPSHOT, spec.config_text.encode("utf-8", "surrogatepass"))
    folder = out / BOT_SNAPSHOTS
    folder.mkdir(exist_ok=True)
    for name, (path, _) in zip(spec.bot_names, spec.bots):
        if not (folder / f"{name}.py").is_file():
            _write_bytes_atomically(folder / f"{name}.py", Path(path).read_bytes())


def recorded_bot_files(out, identity: dict) -> list:
    """Each recorded bot's file: its recorded path while it exists, else the folder's copy (if it has one)."""
    files = []
    for name, path, _, _ in identity["bots"]:
        copy = Path(out) / BOT_SNAPSHOTS / f"{name}.py"
        files.append(path if Path(path).is_file() or not copy.is_file() else str(copy))
    return files


def spec_of_folder(out) -> RunSpec:
    """The :class:`RunSpec` of run folder ``out``, from its manifest and snapshots, loading no bot here.

    The workers that play it check each bot file against its recorded
    fingerprint (:func:`_prepared`), as they do for any run.
    """
    manifest = read_manifest(out)
    identity = manifest["identity"]
    snapshot = Path(out) / CONFIG_SNAPSHOT
    text = snapshot.read_bytes().decode("utf-8", "surrogatepass")
    if hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest() != identity["config_sha256"]:
        raise RunError(f"{snapshot}: not the configuration the run played (its hash differs from the manifest's)")
    files = recorded_bot_files(out, identity)
    return RunSpec(config_name=manifest.get("config_name", ""), config_source=str(snapshot), config_text=text,
                   config_sha256=identity["config_sha256"],
                   bots=tuple((path, tuple(sorted(params.items())))
                              for path, (_, _, _, params) in zip(files, identity["bots"])),
                   bot_names=tuple(name for name, *_ in identity["bots"]),
                   bot_sha256=tuple(sha for _, _, sha, _ in identity["bots"]),
                   boards=int(identity["boards"]), dealer=identity["dealer"], seed=int(identity["seed"]),
                   tables=int(identity["tables"]), code=identity["code"], design=identity["design"],
                   events=identity["events"])


def read_manifest(out) -> dict:
    """The manifest of a run folder, checked for what readers use (``identity`` with bots, boards, dealer, seed).

    Raises
    ------
    RunError
        No run folder there, or a manifest that is not one.
    """
    path = Path(out) / "manifest.json"
    if not Path(out).is_dir():
        raise RunError(f"{out}: no such run folder")
    if not path.is_file():
        raise RunError(f"{out}: not a run folder (no manifest.json)")
    try:
        manifest = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise RunError(f"{path}: unreadable manifest ({first_line(error)})") from None
    identity = manifest.get("identity") if isinstance(manifest, dict) else None
    valid = isinstance(identity, dict) and isinstance(identity.get("bots"), list) \
        and all(isinstance(bot, list) and len(bot) == 4 for bot in identity["bots"]) \
        and all(key in identity for key in ("boards", "dealer", "seed", "format"))
    if not valid:
        raise RunError(f"{path}: not a run manifest")
    if identity["format"] != FORMAT_VERSION:
        raise RunError(f"{path}: a run of results format {identity['format']} (this autodup reads format "
                       f"{FORMAT_VERSION}; use the autodup that wrote it)")
    return manifest


def load_players(spec: RunSpec) -> int:
    return spec.config().players


def _write_json_atomically(path: Path, data) -> None:
    _write_bytes_atomically(path, json.dumps(data, indent=2).encode())


def _write_bytes_atomically(path: Path, data: bytes) -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)


LOCK_NAME = ".lock"


@contextlib.contextmanager
def locked(out: Path):
    """Hold ``out/.lock`` for the duration: a second run into the same folder is refused, not interleaved."""
    try:
        import fcntl
    except ImportError:  # no advisory locks on this platform: nothing to hold
        yield
        return
    handle = open(out / LOCK_NAME, "a+")
    try:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            raise RunError(f"--out: {out} is being written by another autodup run ({holder}); "
                           "wait for it, or use another --out") from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}")
        handle.flush()
        yield
    finally:
        handle.close()


# --------------------------------------------------------------------------
# running a tournament
# --------------------------------------------------------------------------


def run_tournament(spec: RunSpec, out=None, workers: int = 1, backend: str = "local", ray_address=None,
                   resume: bool = False, quiet: bool = False, manifest_extra: dict | None = None,
                   game_timeout: float = DEFAULT_GAME_TIMEOUT, warn=None, note=None, first_boards=None,
                   progress=None) -> tuple:
    """Play (or finish) a run and write its summary; returns ``(out, summary)``.

    Without ``out`` the folder is :func:`default_out`, and finding it again
    resumes it (its name says it is the same run); so does an ``out`` that
    holds this very run, finished. ``warn(line)`` receives one-line warnings
    (a corrupted chunk played again), ``note(line)`` one-line news (a
    finished run whose results are reused).

    ``first_boards`` (a multiple of ``CHUNK_BOARDS``, or ``spec.boards``)
    plays only the chunks of the run's first boards: the run stays
    unfinished, and a later call plays more of it (``autodup ab --until-ci``
    grows runs so). ``progress`` (an object with ``update(boards)``, e.g. a
    tqdm bar) is told of each finished chunk instead of a bar of the run's own.

    Raises
    ------
    RunError
        Bad arguments or folder, or a bot that hung or crashed a worker.
    autodup.workers.Stopped
        Ctrl-C or SIGTERM; finished chunks are kept.
    """
    from . import __version__

    warn = warn or print_warning
    note = note or (lambda line: print(f"autodup: {line}", file=sys.stderr))
    if backend not in ("local", "ray"):
        raise RunError(f"--backend: unknown backend {backend!r} (allowed: local, ray)")
    if ray_address is not None and backend != "ray":
        raise RunError("--ray-address needs --backend ray")
    if backend == "ray":
        _import_ray()  # before anything is written
        _check_ray_address(ray_address)
    implicit = out is None
    if not implicit and not str(out).strip():
        raise RunError("--out: empty (allowed: the path of a folder)")
    out = Path(default_out(spec) if implicit else out)
    if out.exists() and not out.is_dir():
        raise RunError(f"--out: {out} is a file, not a folder")
    if resume and not out.exists():
        raise RunError(f"--resume: {out} does not exist (nothing to resume; run without --resume to start it)")
    if out.exists() and not (out / "manifest.json").exists() and any(p.name != LOCK_NAME for p in out.iterdir()):
        # Refused before anything (even the lock) is written into a folder that is not ours.
        raise RunError(f"--out: {out} is not empty and has no manifest.json (not a run folder)")
    created = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    extra = {"package_version": __version__, "config": spec.config_source, "config_name": spec.config_name,
             "bots": list(spec.bot_names),
             "dealer": spec.dealer, "seed": spec.seed, "boards": spec.boards, **(manifest_extra or {})}
    with locked(out):  # a run refused here touches nothing of the run that holds the folder
        try:
            plan = prepare_output(out, spec, resume or implicit, extra)
            for message in plan.corrupted:
                warn(f"{message}; playing it again")
            if not _play(spec, out, plan, workers, backend, ray_address, quiet, game_timeout, first_boards,
                         progress):
                note(f"{out}: this run is finished already; its results are reused (nothing played)")
            summary = summarize_run(out)
            _write_json_atomically(out / "summary.json", summary)
        except BaseException:
            if created and not any((out / "chunks").glob("chunk-*.parquet")):
                shutil.rmtree(out, ignore_errors=True)  # nothing finished: leave no half-made folder
            raise
    return out, summary


def _play(spec: RunSpec, out: Path, plan: Plan, workers: int, backend: str, ray_address, quiet: bool,
          game_timeout: float, first_boards=None, progress=None) -> int:
    """Probe the bots' determinism (once per folder) and play the chunks not done, writing each as it finishes.

    Returns how many tasks it ran (0: the run was finished, its results are reused).
    """
    import contextlib

    from tqdm import tqdm

    from .workers import TaskError, WorkerFailure

    total = chunk_count(spec.boards if first_boards is None else min(first_boards, spec.boards))
    probed = read_determinism(out) is not None
    wanted = [c for c in range(total) if c not in plan.done]
    tasks_count = len(wanted) + (0 if probed else 1)
    if tasks_count == 0:
        return 0
    tasks = [] if probed else [("probe", probe_determinism, (spec,))]
    tasks = itertools.chain(tasks, ((c, play_chunk, (spec, c)) for c in wanted))
    identity_hash = spec.identity_hash()
    done_boards = sum(boards_in_chunk(spec.boards, c) for c in plan.done)
    bar = contextlib.nullcontext(progress) if progress is not None else \
        tqdm(total=spec.boards, initial=done_boards, unit="board", disable=quiet, file=sys.stderr, dynamic_ncols=True)
    with bar as progress:
        try:
            finished = (_with_ray(spec, tasks, workers, ray_address, game_timeout) if backend == "ray"
                        else _with_processes(spec, tasks, min(workers, tasks_count), game_timeout))
            for key, result, errors in finished:
                if key == "probe":
                    _write_json_atomically(out / DETERMINISM_FILE, result)
                    continue
                write_chunk(out, key, result, identity_hash, _first_errors(spec, errors))
                progress.update(boards_in_chunk(spec.boards, key))
        except (WorkerFailure, TaskError) as error:
            kept = len(list((out / "chunks").glob("chunk-*.parquet")))
            after = (f"; the {kept} finished chunks are kept (--resume finishes the run)" if kept
                     else "; no chunk was finished")
            raise RunError(f"{error}{after}; see `autodup check-bot`") from None
    return tasks_count


def _first_errors(spec: RunSpec, errors: list) -> dict:
    """``{bot: message}``: the first policy error of each bot among ``(board, table, seat, message)`` records."""
    first: dict = {}
    for board, table, seat, message in errors:
        if seat >= 0:
            first.setdefault(spec.bot_at(board, table, seat), f"{message} (board {board}, seat {seat})")
    return first


def _with_processes(spec: RunSpec, tasks, workers: int, game_timeout: float):
    from .workers import Pool

    with Pool(workers, game_timeout, describe=spec.describe) as pool:
        yield from pool.run(tasks)


def _import_ray():
    try:
        import ray
    except ImportError:
        raise RunError("--backend ray needs Ray: python -m pip install 'autodup[ray]'") from None
    return ray


_HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"  # + empty SETTINGS


def _check_ray_address(address) -> None:
    """Fail in seconds, not minutes, when nothing, or something that is not Ray, listens at ``--ray-address``.

    A Ray cluster's address (its GCS, or a ``ray://`` client server) speaks gRPC, that is HTTP/2: it answers
    the HTTP/2 preface with a SETTINGS frame. A web server (a dashboard's port) does not, and Ray itself
    would wait on it in native code for about 40 seconds before giving up.
    """
    import socket

    if address is None or address == "auto":
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    host = host.removeprefix("[").removesuffix("]")  # [::1]:6379
    if not host or not port.isdigit():
        raise RunError(f"--ray-address: {address!r} is not HOST:PORT, ray://HOST:PORT or auto")
    try:
        with socket.create_connection((host, int(port)), timeout=RAY_CONNECT_SECONDS) as connection:
            connection.settimeout(RAY_CONNECT_SECONDS)
            connection.sendall(_HTTP2_PREFACE)
            header = b""
            while len(header) < 9:
                received = connection.recv(9 - len(header))
                if not received:
                    break
                header += received
    except OSError as error:
        raise RunError(f"--ray-address: nothing answers at {address} ({error.strerror or error}); start a cluster "
                       "with `ray start --head`, or leave out --ray-address to start one here") from None
    if len(header) < 9 or header[3] != 4:
        raise RunError(f"--ray-address: {address} answers, but not as a Ray cluster does (no gRPC there); give the "
                       "address `ray start --head` printed")


_RAY_LOCAL_POOL: list = []


def run_watched(function, args: tuple, game_timeout: float, describe=None):
    """Run a task in a watched worker process of this process (kept for the next call); returns ``(result, errors)``.

    Ray workers call this, so that a bot that hangs or crashes is caught
    there as it is in a local run.
    """
    from .workers import Pool, TaskError, WorkerFailure

    if not _RAY_LOCAL_POOL:
        import atexit

        _RAY_LOCAL_POOL.append(Pool(1, game_timeout))
        atexit.register(_RAY_LOCAL_POOL[0].close)
    pool = _RAY_LOCAL_POOL[0]
    pool.game_timeout = float(game_timeout)
    pool.describe = describe or pool.describe  # a Ray worker may serve several runs in turn
    try:
        return pool.run_one(function, args)
    except (WorkerFailure, TaskError):
        _RAY_LOCAL_POOL.pop().close()
        raise


def _start_ray(ray, ray_address, workers: int) -> None:
    """``ray.init``, interrupted by Ctrl-C or SIGTERM, and given up after ``RAY_START_SECONDS`` (an address where
    something that is not a Ray cluster listens would otherwise hang it)."""
    import logging
    import signal
    import threading

    from .workers import SignalFlag

    def give_up(signum, frame):
        where = f"at {ray_address}" if ray_address else "here"
        raise RunError(f"--backend ray: no Ray cluster answered {where} within {RAY_START_SECONDS:g} s (is it the "
                       "address of a Ray cluster? a dashboard's port is not)")

    timed = threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")
    if timed:
        previous = signal.signal(signal.SIGALRM, give_up)
        signal.setitimer(signal.ITIMER_REAL, RAY_START_SECONDS)
    try:
        with SignalFlag(immediate=True):
            ray.init(address=ray_address, num_cpus=None if ray_address else workers, include_dashboard=False,
                     log_to_driver=False, logging_level=logging.ERROR)
    except (RunError, KeyboardInterrupt):
        raise
    except Exception as error:  # Ray's own failures (a version mismatch, a refused connection): one line
        raise RunError(f"--backend ray: Ray did not start: {first_line(error)}") from None
    finally:
        if timed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)


def _with_ray(spec: RunSpec, tasks, workers: int, ray_address, game_timeout: float):
    from .workers import POLL_SECONDS, SignalFlag, TaskError, WorkerFailure

    ray = _import_ray()
    started_here = not ray.is_initialized()
    pending: dict = {}
    try:
        if started_here:
            _start_ray(ray, ray_address, workers)
        remote = ray.remote(max_retries=0)(run_watched)
        in_flight = 2 * max(workers, int(ray.cluster_resources().get("CPU", workers)))
        tasks = iter(tasks)
        exhausted = False
        with SignalFlag() as signals:
            while True:
                while not exhausted and len(pending) < in_flight:
                    try:
                        key, function, args = next(tasks)
                    except StopIteration:
                        exhausted = True
                        break
                    pending[remote.remote(function, args, game_timeout, spec.describe)] = key
                if not pending:
                    return
                ready, _ = ray.wait(list(pending), num_returns=1, timeout=POLL_SECONDS)
                signals.check()
                for reference in ready:
                    key = pending.pop(reference)
                    try:
                        result, errors = ray.get(reference)
                    except ray.exceptions.RayError as error:  # a task's own failure travels as its cause
                        cause = getattr(error, "cause", None)
                        if isinstance(cause, (WorkerFailure, TaskError)):
                            raise type(cause)(*cause.__reduce__()[1]) from None
                        raise RunError(f"Ray: {first_line(cause if cause is not None else error)}") from None
                    yield key, result, errors
    finally:
        for reference in pending:
            ray.cancel(reference, force=True)
        if started_here and ray.is_initialized():
            ray.shutdown()


# --------------------------------------------------------------------------
# the summary
# --------------------------------------------------------------------------


def board_totals(columns: dict, design: str = DEFAULT_DESIGN, adjusted=None) -> dict:
    """Per bot and board: scored rows, sums of placement, duplicate score, adjusted score and top-4 finishes;
    per bot the totals of what it did wrong (``MISBEHAVIOUR_COLUMNS``, when the columns are given).

    The scored rows are those of the design's scored seat (every row of a
    Latin square; the focal seat under ``paired``, see
    :func:`autodup.boards.scored_seat`). The duplicate score of a row is its
    placement minus the mean placement of the scored rows at the same board
    and seat (over the tables); the adjusted score is the same with
    ``adjusted`` (float64 (rows,): luck-adjusted placements, see
    :mod:`autodup.luck`) in place of placements. Boards never span chunks,
    so the totals of a run are those of its chunks, put together.
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
            "misbehaviour": {key: int(columns[key][every].sum()) for key in MISBEHAVIOUR_COLUMNS if key in columns}}
    return totals


def summarize_totals(parts) -> list:
    """The summary from :func:`board_totals` of disjoint sets of boards (e.g. chunks).

    Per bot: mean placement, duplicate score and adjusted score with 95%
    confidence intervals from the spread of per-board means (boards are
    independent, the tables of a board are not), the top-half rate
    (``top4_rate`` at 8 seats), and the totals of illegal actions,
    action-cap hits, decisions that raised and bad answers; sorted by
    adjusted score. With a full Latin square (as many tables as bots, each
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
                           ("adjusted_score", "adjusted")):
            per_board = joined[key] / count
            entry[label] = float(joined[key].sum() / count.sum())
            # None (JSON null) with a single board: no spread to estimate from.
            entry[f"{label}_ci95"] = float(1.96 * per_board.std(ddof=1) / np.sqrt(per_board.size)) \
                if per_board.size > 1 else None
        entry["top4_rate"] = float(joined["top4"].sum() / count.sum())
        for key in pieces[0]["misbehaviour"]:
            entry[key] = sum(p["misbehaviour"][key] for p in pieces)
        rows.append(entry)
    return sorted(rows, key=lambda r: (r["adjusted_score"], r["bot"]))


def summarize(columns: dict, design: str = DEFAULT_DESIGN) -> list:
    """The summary of rows given as columns (see :func:`summarize_totals`; no luck adjustment)."""
    return summarize_totals([board_totals(columns, design)])


def fit_luck(out, bot_names, design: str):
    """The cross-fitted slopes (:class:`autodup.luck.CrossFit`) of a run folder's scored rows, chunk by chunk."""
    from .luck import CrossFit, luck_features, luck_matrix

    fit = CrossFit(len(bot_names))
    index = {name: i for i, name in enumerate(bot_names)}
    for path in chunk_files(out):
        table, _ = read_chunk_table(path, ["board", "table", "seat", "bot", "placement", "luck"])
        board, seat = table.column("board").to_numpy(), table.column("seat").to_numpy()
        bot = np.array([index[name] for name in table.column("bot").to_pylist()], dtype=np.int64)
        luck = luck_features(luck_matrix(table, len(board)), board, table.column("table").to_numpy())
        scored = scored_rows(design, board, seat, int(seat.max()) + 1)
        fit.add(bot[scored], board[scored], table.column("placement").to_numpy()[scored].astype(np.float64),
                luck[scored])
    return fit


def summarize_run(out) -> list:
    """The summary of a run folder, read chunk by chunk (memory does not grow with the number of boards).

    Every chunk is checked as it is read (:func:`read_chunk`). The adjusted
    score is cross-fitted (:mod:`autodup.luck`): a first pass fits the
    slopes, a second adjusts. Each bot's row also gets ``first_error`` (its
    first policy error, or None) and ``deterministic`` (from the probe at the
    start of the run, None if absent) and ``luck_fitted``: False when its
    boards were too few to fit its slopes on some fold
    (:data:`autodup.luck.ROWS_PER_SLOPE`), whose boards then count their
    raw placements in the adjusted score.
    """
    from .bots import explain_silent_errors
    from .luck import adjusted_placements, luck_features, luck_matrix

    identity = read_manifest(out)["identity"]
    design = identity["design"]
    bot_names = [name for name, *_ in identity["bots"]]
    slopes, fitted = fit_luck(out, bot_names, design).slopes_and_fitted()
    index = {name: i for i, name in enumerate(bot_names)}
    parts, first_errors = [], {}
    for path in chunk_files(out):
        columns, metadata = read_chunk(path, ["board", "table", "seat", "bot", "placement", *MISBEHAVIOUR_COLUMNS])
        table, _ = read_chunk_table(path, ["luck"])
        bot = np.array([index[name] for name in columns["bot"]], dtype=np.int64)
        luck = luck_features(luck_matrix(table, len(bot)), columns["board"], columns["table"])
        adjusted = adjusted_placements(slopes, bot, columns["board"], columns["placement"].astype(np.float64), luck)
        parts.append(board_totals(columns, design, adjusted))
        for bot_name, message in json.loads(metadata.get("autodup_errors", "{}")).items():
            first_errors.setdefault(bot_name, message)
    determinism = read_determinism(out) or {}
    rows = summarize_totals(parts)
    for row in rows:
        row["first_error"] = first_errors.get(row["bot"]) or explain_silent_errors(row.get("bot_errors", 0),
                                                                                  row.get("bad_answers", 0))
        row["deterministic"] = determinism.get(row["bot"])
        row["luck_fitted"] = bool(fitted[index[row["bot"]]])
    return rows


def read_determinism(out) -> dict | None:
    """``{bot: bool}`` from the run's determinism probe, or None if absent or damaged (it is probed again)."""
    try:
        data = json.loads((Path(out) / DETERMINISM_FILE).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, bool) for k, v in data.items()):
        return None
    return data


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
