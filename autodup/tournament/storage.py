"""Storage: a run folder's chunks with checksums, its manifest and snapshots, read back only when they check out."""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from ..errors import CorruptChunk, OtherRun, RunError, UsageError, first_line, mention
from ..files import replacing, write_bytes_atomically, write_json_atomically
from ..game.agents import is_agent_spec
from ..game.boards import DEFAULT_DESIGN
from ..game.rules import DEFAULT_EVENTS
from .folder_lock import LOCK_NAME
from .spec import (
    DETERMINISM_FILE,
    FORMAT_VERSION,
    RunSpec,
    boards_in_chunk,
    check_run_arguments,
    chunk_column_names,
    chunk_count,
    identity_hash,
)

__all__ = ["chunk_path", "encode_chunk", "write_encoded_chunk", "write_chunk", "read_chunk_table", "read_chunk",
           "chunk_arrays", "read_results", "chunk_index", "boards_done", "chunk_files", "KEPT_NOTHING", "KEPT_CHUNKS",
           "KEPT_FINISHED", "kept_work", "Plan",
           "prepare_output", "CONFIG_SNAPSHOT", "BOT_SNAPSHOTS", "as_recorded", "check_resumable", "recorded_bot_files",
           "spec_of_folder", "read_manifest", "load_players", "read_determinism"]

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


def encode_chunk(chunk: int, columns: dict, identity_hash: str, first_errors: dict | None = None) -> bytes:
    """A chunk's Parquet file, as bytes, for :func:`write_encoded_chunk` to store, in this process or another.

    Parameters
    ----------
    chunk : int
        The chunk's index in its run.
    columns : dict
        Its rows (:func:`autodup.tournament.spec.chunk_rows`): numpy arrays, list columns as ``(offsets, values)``.
    identity_hash : str
        The run's (:func:`autodup.tournament.spec.identity_hash`).
    first_errors : dict, optional
        ``{bot: message}``: each bot's first policy error in the chunk.

    The schema's metadata holds the run's identity hash, the chunk index, a
    checksum of every column's values and each bot's first error message.
    Encoding and the checksums are most of storing a chunk (about 15 ms of a
    chunk's 200 games): a run with as many workers as cores has each worker
    encode what it plays, so that the command's process, which only writes
    the bytes, does not bound how many workers it can feed
    (:func:`autodup.tournament.run.play_and_encode_chunk`).
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

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
    sink = pa.BufferOutputStream()
    # No column statistics: nothing filters chunks by them (every read takes whole columns, checked against
    # their checksums), and computing them was over a third of encoding a chunk.
    pq.write_table(table, sink, compression="zstd", write_statistics=False)
    return sink.getvalue().to_pybytes()


def write_encoded_chunk(out: Path, chunk: int, data: bytes) -> None:
    """Store chunk ``chunk`` (its file's bytes, :func:`encode_chunk`) atomically: a temporary file, on disk, then
    a rename (a half-written chunk never looks done)."""
    with replacing(chunk_path(out, chunk), sync=True) as temporary:  # on disk before it gets its final name
        temporary.write_bytes(data)


def write_chunk(out: Path, chunk: int, columns: dict, identity_hash: str, first_errors: dict | None = None) -> None:
    """Encode a chunk (:func:`encode_chunk`) and store it (:func:`write_encoded_chunk`), in this process."""
    write_encoded_chunk(out, chunk, encode_chunk(chunk, columns, identity_hash, first_errors))


def _corrupted(path, how: str) -> CorruptChunk:
    """The error of a damaged chunk at ``path`` (``RUN/chunks/chunk-*``), ``how`` after "corrupted"; it names the run
    folder, whose resume plays the chunk again."""
    return CorruptChunk(f"{path}: corrupted{how}", folder=Path(path).parent.parent)


def read_chunk_table(path: Path, columns=None) -> tuple:
    """The columns of one chunk as a pyarrow Table, each checked against its checksum; ``(table, metadata)``.

    Raises
    ------
    CorruptChunk
        The file is damaged: it does not parse, a checksum differs, or its bots' first errors (``autodup_errors``,
        which has no checksum) are not a mapping of bot to message.
    RunError
        The file cannot be opened (permissions, a folder in its place).
    """
    import pyarrow.parquet as pq

    try:  # opened here, so that a file the system will not give (permissions, a folder) is not called damaged
        handle = open(path, "rb")
    except OSError as error:
        raise RunError(f"{path}: cannot be read ({error.strerror or type(error).__name__})") from None
    with handle:
        try:
            # On the reading thread, no pool: Arrow's pool threads still alive when the interpreter exits make
            # the C++ runtime abort ("terminate called without an active exception", exit -6) after the
            # command's work is done (apache/arrow#34314). ParquetFile without pre-buffering starts no
            # thread (read_table's dataset reader does); a chunk is small enough to decode alone.
            table = pq.ParquetFile(handle, pre_buffer=False).read(columns=columns, use_threads=False)
            metadata = {key.decode(): value.decode() for key, value in (table.schema.metadata or {}).items()}
            checksums = json.loads(metadata["autodup_checksums"])
            first_errors = json.loads(metadata["autodup_errors"])
        except Exception as error:  # a damaged file fails in many ways; every one means the same
            raise _corrupted(path, f", cannot be read ({type(error).__name__})") from None
    # The bots' first errors have no checksum, but their shape is checked here, where damage means a replay, rather
    # than where a summary reads them (which ended in a line naming neither the file nor the damage).
    if not isinstance(first_errors, dict) or not all(isinstance(message, str) for message in first_errors.values()):
        raise _corrupted(path, " (its bots' first errors are not a mapping of bot to message)")
    # A column asked for that the file lacks is damage too (pyarrow skips a missing name); so is one the
    # checksums never listed, kept or not.
    missing = [name for name in (checksums if columns is None else columns) if name not in table.column_names]
    if missing:
        raise _corrupted(path, f" (it has no column {missing[0]!r})")
    for name in table.column_names:
        if checksums.get(name) != _column_digest(table.column(name)):
            raise _corrupted(path, f" (the checksum of column {name!r} differs from the one written)")
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
    return chunk_arrays(path, table), metadata


def chunk_arrays(path: Path, table) -> dict:
    """The columns of a chunk's table (read by :func:`read_chunk_table`) as numpy arrays, placements checked
    (see :func:`read_chunk`); for a reader that also keeps a list column as Arrow."""
    values = {name: table.column(name).to_numpy(zero_copy_only=False) for name in table.column_names}
    if {"board", "table", "placement"} <= values.keys() and not _placements_are_whole(values):
        raise _corrupted(path, " (a table's placements are not 1 .. players)")
    return values


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
    identity = read_manifest(out)["identity"]
    names = list(chunk_column_names(bool(identity.get("stage_luck")), bool(identity.get("value_sha256"))))
    parts = [read_chunk(path, names)[0] for path in chunk_files(out)]
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


KEPT_NOTHING, KEPT_CHUNKS, KEPT_FINISHED = "nothing", "chunks", "finished"


def kept_work(out) -> str:
    """What a stopped run left in its folder ``out``: :data:`KEPT_FINISHED` (every chunk of the run's boards),
    :data:`KEPT_CHUNKS` (some: a resume finishes the run) or :data:`KEPT_NOTHING` (no chunk, or no folder).

    Counts the chunk files by name (a stop must not wait for their footers to be read).
    """
    found = {int(match.group(1)) for path in (Path(out) / "chunks").glob("chunk-*.parquet")
             if (match := _CHUNK_NAME.match(path.name))}
    if not found:
        return KEPT_NOTHING
    try:
        chunks = chunk_count(int(read_manifest(out)["identity"]["boards"]))
    except (RunError, ValueError, TypeError):
        return KEPT_CHUNKS
    # Counted, not compared with a set of every index: a run may have millions of chunks.
    return KEPT_FINISHED if sum(index < chunks for index in found) == chunks else KEPT_CHUNKS


def chunk_files(out) -> list:
    """The chunk files of a run folder, in chunk order, each checked against the folder's manifest.

    Readers count what the chunks hold, so they take a chunk only when it is
    this run's: every chunk carries the hash of the identity of the run that
    wrote it and its own index (:func:`write_chunk`). A chunk copied under
    another name (its boards would count twice), a chunk of another run, and a
    manifest whose boards, seed, dealer or bots were edited after the run was
    played are refused in one line. Only the files' footers are read here;
    the columns are checked as they are read (:func:`read_chunk_table`).
    Temporary files are not chunks.

    Raises
    ------
    RunError
        No chunk yet, or a chunk that is not this run's.
    """
    import pyarrow.parquet as pq

    identity = read_manifest(out)["identity"]
    expected, total = identity_hash(identity), chunk_count(int(identity["boards"]))
    files = sorted(p for p in (Path(out) / "chunks").glob("chunk-*.parquet") if _CHUNK_NAME.match(p.name))
    if not files:
        raise RunError(f"{out}: no results (no chunks written)")
    for path in files:
        index = chunk_index(path)
        if index >= total:
            raise RunError(f"{path}: chunk {index} of a run of {int(identity['boards']):,} boards, which has "
                           f"{total:,} chunks (the manifest's boards were edited, or the file is another run's)")
        try:
            metadata = {key.decode(): value.decode() for key, value in (pq.read_schema(path).metadata or {}).items()}
        except Exception:  # a damaged file: reading its columns says so, in the reader's terms
            continue
        if metadata.get("autodup_run") != expected:
            raise RunError(f"{path}: not a chunk of the run its manifest describes (the manifest was edited after "
                           "the run was played, or the file was copied from another run)")
        if metadata.get("autodup_chunk") != str(index):
            raise RunError(f"{path}: holds chunk {metadata.get('autodup_chunk')} under the name of chunk {index} "
                           "(a copy under another name would count its boards twice; remove it)")
    return files


@dataclass
class Plan:
    """What a run folder holds: the chunks already done, and the ones found corrupted (deleted, to play again)."""

    done: set
    corrupted: list


def _bots_difference(recorded: list, current: list) -> str:
    """How the bots of a run's identity (``[name, path, sha256, parameters]`` each) differ from the recorded
    ones, for a refusal: the first bot that differs, and how; ``(phrase, whether it is a plural subject)``."""
    before = {entry[0]: entry for entry in recorded}
    for name, path, sha, parameters in current:
        if name not in before:
            return f"bot {name!r} (not in the run)", False
        _, old_path, old_sha, old_parameters = before[name]
        if sha != old_sha:  # a file that only moved is the run's (as_recorded)
            changed = "changed since the run started" if path == old_path else f"is not the run's {old_path}"
            return f"the code of bot {name!r} ({path} {changed})", False
        if path != old_path:
            return f"the file of bot {name!r} ({path}; the run's was {old_path})", False
        if parameters != old_parameters:
            return f"the parameters of bot {name!r}", True
    return "the bots (their order or number)", True


# The identity's fields a user gives as arguments: a refusal gives both values of those that differ.
_ARGUMENT_FIELDS = ("boards", "dealer", "seed", "tables", "design", "events")
_PLURAL_FIELDS = ("boards", "tables", "events", "chunk_boards")  # "boards differ", as "seed differs"
# The others, said in the reader's terms rather than by the manifest's keys ("config_sha256 differs" said nothing).
_FIELD_PHRASES = {"config_sha256": "the configuration (the run's is the folder's config.yaml)",
                  "value_sha256": "the value file (the run's is the folder's value.json, if it used one)",
                  "branch": "the branch of the seed tree", "stage_luck": "whether stage luck is kept",
                  "chunk_boards": "the boards per chunk (the run was played by another version of autodup)",
                  "format": "the results' format (the run was played by another version of autodup)",
                  "code": "autodup's code (the run was played by another version)",
                  "bot_values": "what the bot files computed when they loaded (a file they read, an environment "
                                "variable)"}


def _differences(recorded: dict, identity: dict) -> str:
    """What differs between a run folder's ``recorded`` identity and the ``identity`` (or the part of one) given:
    ``seed differs: 2 given, 1 in the run``."""
    differing = sorted(key for key in identity if recorded.get(key) != identity[key])
    said = [_bots_difference(recorded.get("bots") or [], identity["bots"]) if key == "bots"
            else (_FIELD_PHRASES.get(key, key), key in _PLURAL_FIELDS) for key in differing]
    plural = len(said) > 1 or any(is_plural for _, is_plural in said)
    said = [phrase for phrase, _ in said]
    values = [(key, identity[key], recorded.get(key)) for key in differing if key in _ARGUMENT_FIELDS]
    values = [f"{key + ' ' if len(differing) > 1 else ''}{given} given, {before} in the run"
              for key, given, before in values]
    differing = f"{', '.join(said)} differ{'' if plural else 's'}"
    return differing + (f": {'; '.join(values)}" if values else "")


def _other_run(out, recorded: dict, identity: dict) -> OtherRun:
    """The refusal of a resume whose ``identity`` (or the part of one given) differs from the ``recorded`` one."""
    differing = _differences(recorded, identity)
    return OtherRun(f"{out} holds a run with other arguments or files ({differing}); resume with the same ones or use "
                    "another folder", "resume", differing)


def check_resumable(out, given: dict) -> None:
    """Refuse at once, as :func:`prepare_output` would once the bots are loaded, a resume of run folder ``out`` with
    other values of its identity's fields ``given`` (those known before any bot is loaded: the configuration's
    hash, boards, dealer, seed, design, events). Nothing is checked where ``out`` holds no run."""
    if not (Path(out) / "manifest.json").is_file():
        return
    recorded = read_manifest(out)["identity"]
    if any(recorded.get(key) != value for key, value in given.items()):
        raise _other_run(out, recorded, given)


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
    identity = spec.identity()
    if existed:
        recorded = read_manifest(out)["identity"]
        if recorded != identity:
            if not resume:
                raise RunError(f"{out} holds another run ({_differences(recorded, identity)}) (allowed: "
                               f"another folder, or resuming that run with its own arguments: {mention('resume')})",
                               "out")
            raise _other_run(out, recorded, identity)
    else:
        if any(p.name != LOCK_NAME for p in out.iterdir()):
            raise RunError(f"{out} is not empty and has no manifest.json (not a run folder)", "out")
        (out / "chunks").mkdir(exist_ok=True)
        manifest = {"identity": identity, **manifest_extra}
        write_json_atomically(manifest_path, manifest)
    _write_snapshots(out, spec)
    chunks = out / "chunks"
    chunks.mkdir(exist_ok=True)
    identity_hash = spec.identity_hash()
    rows_per_board = spec.tables * load_players(spec)
    total = chunk_count(spec.boards)
    expected_columns = set(chunk_column_names(spec.keep_stage_luck, bool(spec.value_text)))
    plan = Plan(set(), [])
    for entry in os.scandir(chunks):
        if entry.name.startswith(".chunk-") and entry.name.endswith(".tmp"):
            os.unlink(entry.path)  # a write that a kill interrupted
            continue
        match = _CHUNK_NAME.match(entry.name)
        if not match or int(match.group(1)) >= total:
            raise RunError(f"{chunks}: holds files that are not chunks of this run ({entry.name}, ...)")
        chunk, path = int(match.group(1)), Path(entry.path)
        foreign = f"{path}: not a chunk of this run (delete it to play it again)"
        try:
            columns, metadata = read_chunk(path)
            # Another run's chunk is refused, not replaced: only this run's own chunk is corrupted by its columns.
            if metadata.get("autodup_run") != identity_hash or metadata.get("autodup_chunk") != str(chunk):
                raise RunError(foreign)
            if set(columns) != expected_columns:
                difference = _column_difference(columns, expected_columns)
                raise _corrupted(path, f" (its columns are not this run's: {difference})")
        except CorruptChunk as error:
            path.unlink()
            plan.corrupted.append(str(error))
            continue
        if columns["board"].size != boards_in_chunk(spec.boards, chunk) * rows_per_board:
            raise RunError(foreign)
        plan.done.add(chunk)
    if existed and not resume and len(plan.done) < total:
        raise RunError(f"{out} holds this run, unfinished (allowed: resuming it, with {mention('resume')}, or "
                       "another folder)", "out")
    return plan


def _column_difference(columns, expected: set) -> str:
    """What a chunk's column names lack and have too many against ``expected``, in a few words."""
    lacking, extra = sorted(expected - set(columns)), sorted(set(columns) - expected)
    parts = ([f"no {', '.join(lacking)}"] if lacking else []) + ([f"also {', '.join(extra)}"] if extra else [])
    return "; ".join(parts)


CONFIG_SNAPSHOT = "config.yaml"   # the configuration's text, as the run read it
VALUE_SNAPSHOT = "value.json"     # the value file the rows are corrected by, as the run read it
BOT_SNAPSHOTS = "bots"            # each bot's file, as the run loaded it: bots/<name>.py


def _write_snapshots(out: Path, spec: RunSpec) -> None:
    """Keep the configuration and the bots' files by content (those missing), so that the folder reads anywhere.

    Written after the manifest, which is what makes a folder a run: a kill
    in between leaves a run whose resume writes them.
    """
    config_bytes = spec.config_text.encode("utf-8", "surrogatepass")
    snapshot = out / CONFIG_SNAPSHOT
    # The spec's text has the hash the manifest records: a snapshot damaged since (edited, truncated) is written
    # again from it, rather than reused and found unreadable once the run is said to be finished.
    if not snapshot.is_file() or snapshot.read_bytes() != config_bytes:
        write_bytes_atomically(snapshot, config_bytes)
    if spec.value_text and not (out / VALUE_SNAPSHOT).is_file():
        write_bytes_atomically(out / VALUE_SNAPSHOT, spec.value_text.encode("utf-8"))
    folder = out / BOT_SNAPSHOTS
    folder.mkdir(exist_ok=True)
    for index, name in enumerate(spec.bot_names):
        if not (folder / f"{name}.py").is_file():
            write_bytes_atomically(folder / f"{name}.py", bot_source(spec.bot_file(index)).read_bytes())


def bot_source(path: str) -> Path:
    """The Python file a recorded bot comes from: the bot file, or the file of an agent's class."""
    from ..game.agents import agent_source_file

    return agent_source_file(path) if is_agent_spec(path) else Path(path)


def as_recorded(out: Path, spec: RunSpec) -> RunSpec:
    """``spec`` with the paths run folder ``out`` recorded for bots loaded now from another file of the same
    fingerprint (a bot file that moved since the run started, or the folder's copy of it).

    A run's identity names each bot's file as it was when the run started, and a resume compares identities:
    a bot file moved with its code unchanged is the same bot, and its run goes on, the workers loading it
    from where it is now (``RunSpec.bot_files``). A bot whose code changed still differs. A folder without a
    manifest gives ``spec`` as it is.
    """
    if not (Path(out) / "manifest.json").is_file():
        return spec
    recorded = {entry[0]: entry for entry in read_manifest(out)["identity"]["bots"]}
    paths = []
    for name, (path, _), sha in zip(spec.bot_names, spec.bots, spec.bot_sha256):
        entry = recorded.get(name)
        moved = entry is not None and entry[2] == sha and entry[1] != path and not is_agent_spec(path) \
            and not is_agent_spec(entry[1])
        paths.append(entry[1] if moved else path)
    files = tuple(spec.bot_file(index) for index in range(len(spec.bots)))
    if paths == [path for path, _ in spec.bots]:
        return spec
    return replace(spec, bots=tuple((path, params) for path, (_, params) in zip(paths, spec.bots)), bot_files=files)


def recorded_bot_files(out, identity: dict) -> list:
    """Each recorded bot's file: its recorded path while that file is the one the folder keeps a copy of (byte for
    byte; from there it still finds its own modules), else the folder's copy; the recorded path when the folder
    has no copy. So a bot file edited or swapped with another since the run started gives way to the run's copy,
    and the workers check each bot's fingerprint as for any run."""
    files = []
    for name, path, _, _ in identity["bots"]:
        if is_agent_spec(path):  # an agent is imported by its spec: a copy of its file is kept to read, not to load
            files.append(path)
            continue
        copy = Path(out) / BOT_SNAPSHOTS / f"{name}.py"
        recorded = Path(path)
        unchanged = recorded.is_file() and (not copy.is_file() or recorded.read_bytes() == copy.read_bytes())
        files.append(path if unchanged or not copy.is_file() else str(copy))
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
    value_text = ""
    if identity.get("value_sha256"):
        value_path = Path(out) / VALUE_SNAPSHOT
        try:
            value_text = value_path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            raise RunError(f"{value_path}: missing or unreadable: the value file the run's rows are corrected "
                           "by") from None
        if hashlib.sha256(value_text.encode("utf-8")).hexdigest() != identity["value_sha256"]:
            raise RunError(f"{value_path}: not the value file the run used (its hash differs from the manifest's)")
    return RunSpec(config_name=manifest.get("config_name", ""), config_source=str(snapshot), config_text=text,
                   config_sha256=identity["config_sha256"],
                   bots=tuple((path, tuple(sorted(params.items()))) for _, path, _, params in identity["bots"]),
                   bot_files=tuple(files) if files != [path for _, path, _, _ in identity["bots"]] else (),
                   bot_names=tuple(name for name, *_ in identity["bots"]),
                   bot_sha256=tuple(sha for _, _, sha, _ in identity["bots"]),
                   boards=int(identity["boards"]), dealer=identity["dealer"], seed=int(identity["seed"]),
                   tables=int(identity["tables"]), code=identity["code"], design=identity["design"],
                   events=identity["events"], value_text=value_text, value_sha256=identity.get("value_sha256") or "",
                   value_source=str(Path(out) / VALUE_SNAPSHOT) if value_text else "",
                   branch=identity.get("branch", "evaluation"), keep_stage_luck=bool(identity.get("stage_luck")),
                   bot_values=tuple(identity.get("bot_values") or ()))


def read_manifest(out) -> dict:
    """The manifest of a run folder, checked for what readers use (``identity`` with bots, boards, dealer, seed).

    Raises
    ------
    RunError
        No run folder there, or a manifest that is not one.
    """
    path = Path(out) / "manifest.json"
    if not Path(out).is_dir():
        raise RunError(f"{out}: {'a file, not a' if Path(out).exists() else 'no such'} run folder")
    if not path.is_file():
        raise RunError(f"{out}: not a run folder (no manifest.json)")
    try:
        manifest = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise RunError(f"{path}: unreadable manifest ({first_line(error)})") from None
    identity = manifest.get("identity") if isinstance(manifest, dict) else None
    valid = isinstance(identity, dict) and isinstance(identity.get("bots"), list) \
        and all(isinstance(bot, list) and len(bot) == 4 and all(isinstance(word, str) for word in bot[:3])
                and isinstance(bot[3], dict) for bot in identity["bots"]) \
        and all(key in identity for key in ("boards", "dealer", "seed", "format"))
    if not valid:
        raise RunError(f"{path}: not a run manifest")
    if identity["format"] != FORMAT_VERSION:
        raise RunError(f"{path}: a run of results format {identity['format']} (this autodup reads format "
                       f"{FORMAT_VERSION}; use the autodup that wrote it)")
    try:  # the values readers compute with: an edited manifest is refused here, not deep in a computation
        check_run_arguments(identity["boards"], identity["dealer"], identity["seed"],
                            identity.get("design", DEFAULT_DESIGN), identity.get("events", DEFAULT_EVENTS))
    except UsageError as error:
        raise RunError(f"{path}: identity.{error.argument}: {error.message}; the manifest was edited after the "
                       "run was played") from None
    return manifest


def load_players(spec: RunSpec) -> int:
    return spec.config().players


def read_determinism(out) -> dict | None:
    """``{bot: bool}`` from the run's determinism probe, or None if absent or damaged (it is probed again)."""
    try:
        data = json.loads((Path(out) / DETERMINISM_FILE).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, bool) for k, v in data.items()):
        return None
    return data
