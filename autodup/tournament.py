"""Duplicate tournaments: boards played by several tables, results stored in chunks that survive interruption.

A board is one grandparent seed, ``board_seed(tournament_seed, b)``. It is
played by ``T`` tables (one per bot by default), seated by a cyclic Latin
square: at table ``t``, seat ``s`` plays bot ``(s + t) % n_bots``, so every bot
plays every seat of every board once (when ``T == n_bots``).

Dealers (``RUN_DEALERS``): ``haystack``, ``keyed``, ``stream`` and ``replay``
give seat ``s`` of every table the same seat seed and every table the same
event seed; ``independent`` is the control, where the table index is mixed
into the seed (``table_seed``) so that tables share nothing and deal with the
plain sampler.

Boards are played in chunks of ``CHUNK_BOARDS``, whatever the number of
workers, and each chunk is written as one Parquet file (to a temporary name,
then renamed), so a stopped run resumes where it was and ends with the same
bytes as an uninterrupted one.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import njit

from .game import (
    DEALER_HAYSTACK,
    DEALER_KEYED,
    DEALER_PLAIN,
    DEALER_REPLAY,
    DEALER_STREAM,
    ORDER_EVENTS,
    RESULT_COLUMNS,
    play_table,
)
from .rng import LABEL_BOARD, LABEL_EVENTS, LABEL_SEAT, LABEL_TABLE, derive_seed_kernel

# name: (dealer code, whether tables share seeds)
RUN_DEALERS = {
    "haystack": (DEALER_HAYSTACK, True),
    "keyed": (DEALER_KEYED, True),
    "stream": (DEALER_STREAM, True),
    "replay": (DEALER_REPLAY, True),
    "independent": (DEALER_PLAIN, False),
}
CHUNK_BOARDS = 25
FORMAT_VERSION = 1


@njit(cache=True)
def play_boards_at_tables(rules, dealer, order, tournament_seed, first_board, n_boards, n_tables, policies, params,
                          n_bots, shared):
    """Play boards ``first_board ..`` at ``n_tables`` tables each.

    Returns
    -------
    results : int64 (n_boards, n_tables, players, len(RESULT_COLUMNS))
    bots : int64 (n_boards, n_tables, players)
        The bot of each seat (the Latin square).
    shops : int16 (n_boards, n_tables, players, max_rounds, shop_size)
        Each seat's shop after every round's free refresh (-1: empty slot or
        a round the seat did not play).
    """
    players = rules.players
    if n_bots < 1 or n_bots > min(len(policies), params.shape[0]) or n_tables < 1:
        raise ValueError("play_boards_at_tables: need 1 <= n_bots <= policies and n_tables >= 1")
    results = np.zeros((n_boards, n_tables, players, len(RESULT_COLUMNS)), dtype=np.int64)
    bots = np.zeros((n_boards, n_tables, players), dtype=np.int64)
    shops = np.full((n_boards, n_tables, players, rules.max_rounds, rules.shop_size), -1, dtype=np.int16)
    seeds = np.zeros(players, dtype=np.uint64)
    for i in range(n_boards):
        grandparent = derive_seed_kernel(np.uint64(tournament_seed), np.uint64(LABEL_BOARD),
                                         np.uint64(first_board + i))
        for t in range(n_tables):
            # The control mixes the table into the seed: its tables share nothing.
            root = grandparent if shared else derive_seed_kernel(grandparent, np.uint64(LABEL_TABLE), np.uint64(t))
            for s in range(players):
                seeds[s] = derive_seed_kernel(root, np.uint64(LABEL_SEAT), np.uint64(s))
                bots[i, t, s] = (s + t) % n_bots
            events = derive_seed_kernel(root, np.uint64(LABEL_EVENTS), np.uint64(0))
            table_results, _, _ = play_table(rules, dealer, order, seeds, events, policies, params, bots[i, t],
                                             False, shops[i, t])
            results[i, t] = table_results
    return results, bots, shops


# --------------------------------------------------------------------------
# a run's definition, and the work of one chunk (also run in worker processes)
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class RunSpec:
    """Everything that determines a run's results (not how it is executed)."""

    config: str
    config_sha256: str
    bots: tuple          # (path, ((parameter, value), ...)) per bot, in seating order
    bot_names: tuple
    bot_sha256: tuple    # of each bot file
    boards: int
    dealer: str
    seed: int
    tables: int
    code: str            # fingerprint of the package's code and of the Parquet writer

    def identity(self) -> dict:
        """What ``--resume`` compares: the same identity gives the same results (and the same bytes)."""
        return {"config_sha256": self.config_sha256,
                "bots": [[name, path, sha, dict(params)] for name, (path, params), sha
                         in zip(self.bot_names, self.bots, self.bot_sha256)],
                "boards": self.boards, "dealer": self.dealer, "seed": self.seed, "tables": self.tables,
                "chunk_boards": CHUNK_BOARDS, "format": FORMAT_VERSION, "code": self.code}

    def identity_hash(self) -> str:
        return hashlib.sha256(json.dumps(self.identity(), sort_keys=True).encode()).hexdigest()


def make_spec(config_path, bots, boards: int, dealer: str, seed: int) -> RunSpec:
    """A run of ``bots`` (loaded :class:`~autodup.bots.Bot` objects, one table each) on a configuration file."""
    from .config import load_config

    if dealer not in RUN_DEALERS:
        raise RunError(f"--dealer: unknown dealer {dealer!r} (allowed: {', '.join(RUN_DEALERS)})")
    config = load_config(config_path)
    if len({(b.path, tuple(sorted(b.parameters.items()))) for b in bots}) != len(bots):
        raise RunError("--bots: a bot appears twice (with the same parameters)")
    if len({b.name for b in bots}) != len(bots):
        raise RunError("--bots: two bots share a name; results could not tell them apart")
    if not 1 <= len(bots) <= config.players:
        raise RunError(f"--bots: {len(bots)} bots for {config.players} seats (allowed: 1 to {config.players})")
    return RunSpec(config=str(Path(config_path).resolve()), config_sha256=file_sha256(config_path),
                   bots=tuple((str(b.path), tuple(sorted(b.parameters.items()))) for b in bots),
                   bot_names=tuple(b.name for b in bots), bot_sha256=tuple(file_sha256(b.path) for b in bots),
                   boards=boards, dealer=dealer, seed=seed, tables=len(bots), code=code_fingerprint())


def code_fingerprint() -> str:
    """The package version, a hash of its sources, and the Parquet writer's version: what else shapes the bytes."""
    import pyarrow

    from . import __version__

    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.name.encode() + path.read_bytes())
    return f"autodup {__version__} {digest.hexdigest()[:16]}, pyarrow {pyarrow.__version__}"


def default_out(spec: RunSpec) -> Path:
    """``runs/<config>-<dealer>-<boards>b-seed<seed>-<hash of the identity>``: a folder named by the run."""
    digest = spec.identity_hash()[:10]
    return Path("runs") / f"{Path(spec.config).stem}-{spec.dealer}-{spec.boards}b-seed{spec.seed}-{digest}"


def run_tournament(spec: RunSpec, out=None, workers: int = 1, backend: str = "local", ray_address=None,
                   resume: bool = False, quiet: bool = False, manifest_extra: dict | None = None) -> tuple:
    """Play (or finish) a run and write its summary; returns ``(out, summary)``.

    Without ``out`` the folder is :func:`default_out`, and finding it again
    resumes it (its name says it is the same run).
    """
    from . import __version__

    if backend == "ray":
        _import_ray()  # before anything is written
    elif backend != "local":
        raise RunError(f"--backend: unknown backend {backend!r} (allowed: local, ray)")
    if out is None:
        out, resume = default_out(spec), True
    out = Path(out)
    extra = {"package_version": __version__, "config": spec.config, "bots": list(spec.bot_names),
             "dealer": spec.dealer, "seed": spec.seed, "boards": spec.boards, **(manifest_extra or {})}
    remaining = prepare_output(out, spec, resume, extra)
    if remaining:
        run_chunks(spec, out, remaining, workers, backend, ray_address, quiet)
    summary = summarize_run(out)
    temporary = out / ".summary.json.tmp"
    temporary.write_text(json.dumps(summary, indent=2))
    os.replace(temporary, out / "summary.json")
    return out, summary


_WORKER_STATE: dict = {}


def _prepared(spec: RunSpec):
    """Rules and policies of a spec, built once per process."""
    key = spec
    if key not in _WORKER_STATE:
        from .bots import load_bot, policy_tuple
        from .config import load_config
        from .game import rules_of

        # Every process checks that the files are still those the run was started with.
        if file_sha256(spec.config) != spec.config_sha256 or any(
                file_sha256(path) != sha for (path, _), sha in zip(spec.bots, spec.bot_sha256)):
            raise RunError("the configuration or a bot file changed since the run started")
        rules = rules_of(load_config(spec.config))
        bots = [load_bot(path).with_parameters(dict(params)) for path, params in spec.bots]
        policies, params = policy_tuple(bots)
        _WORKER_STATE.clear()
        _WORKER_STATE[key] = (rules, policies, params, len(bots))
    return _WORKER_STATE[key]


def play_chunk(spec: RunSpec, chunk: int) -> dict:
    """Play chunk ``chunk`` of a run; returns its rows (:func:`chunk_rows`), compact enough to send back."""
    rules, policies, params, n_bots = _prepared(spec)
    dealer, shared = RUN_DEALERS[spec.dealer]
    first = chunk * CHUNK_BOARDS
    count = min(CHUNK_BOARDS, spec.boards - first)
    results, bots, shops = play_boards_at_tables(rules, dealer, ORDER_EVENTS, spec.seed, first, count, spec.tables,
                                                 policies, params, n_bots, shared)
    return chunk_rows(spec, chunk, results, bots, shops)


def chunk_count(boards: int) -> int:
    return (boards + CHUNK_BOARDS - 1) // CHUNK_BOARDS


def chunk_rows(spec: RunSpec, chunk: int, results: np.ndarray, bots: np.ndarray, shops: np.ndarray) -> dict:
    """The rows of a chunk, one per (board, table, seat), as named columns.

    Every column is a numpy array except ``round_shops``: per row, the seat's
    shop after each round's free refresh while it was alive, flattened
    (``shop_size`` champions per round, -1 for an empty slot), as
    ``(offsets, values)`` of a list column.
    """
    n_boards, n_tables, players, _ = results.shape
    board = np.repeat(np.arange(n_boards) + chunk * CHUNK_BOARDS, n_tables * players)
    table = np.tile(np.repeat(np.arange(n_tables), players), n_boards)
    seat = np.tile(np.arange(players), n_boards * n_tables)
    names = np.array(spec.bot_names, dtype=object)
    columns = {"board": board.astype(np.int64), "table": table.astype(np.int64), "seat": seat.astype(np.int64),
               "bot": names[bots.reshape(-1)]}
    flat = results.reshape(-1, results.shape[-1])
    for i, name in enumerate(RESULT_COLUMNS):
        columns[name] = flat[:, i].copy()
    rounds = columns["rounds_alive"]
    per_round = shops.reshape(flat.shape[0], shops.shape[-2], shops.shape[-1])
    alive = np.arange(per_round.shape[1])[None, :] < rounds[:, None]
    offsets = np.concatenate([[0], np.cumsum(rounds * per_round.shape[2])]).astype(np.int32)
    columns["round_shops"] = (offsets, per_round[alive].reshape(-1))
    return columns


# --------------------------------------------------------------------------
# storage
# --------------------------------------------------------------------------


class RunError(ValueError):
    """A run that cannot start or resume; ``str()`` is one line."""


def chunk_path(out: Path, chunk: int) -> Path:
    return out / "chunks" / f"chunk-{chunk:06d}.parquet"


def write_chunk(out: Path, chunk: int, columns: dict, identity_hash: str) -> None:
    """Write one chunk atomically: a temporary file, then a rename (a half-written chunk never looks done)."""
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
    table = pa.table(arrays).replace_schema_metadata({"autodup_run": identity_hash, "autodup_chunk": str(chunk)})
    pq.write_table(table, temporary, compression="zstd")
    with open(temporary, "rb") as handle:  # on disk before it gets its final name
        os.fsync(handle.fileno())
    os.replace(temporary, final)


def read_results(out) -> dict:
    """Every row of a finished (or partial) run as numpy columns, ordered by board, table, seat."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.concat_tables([pq.read_table(f) for f in chunk_files(out)])
    columns = {name: table.column(name).to_numpy(zero_copy_only=False) for name in table.column_names}
    order = np.lexsort((columns["seat"], columns["table"], columns["board"]))
    return {name: values[order] for name, values in columns.items()}


def chunk_files(out) -> list:
    """The chunk files of a run folder, in chunk order (temporary files are not chunks)."""
    files = sorted((Path(out) / "chunks").glob("chunk-[0-9]*.parquet"))
    if not files:
        raise RunError(f"{out}: no results (no chunks written)")
    return files


def file_sha256(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _chunk_is_ours(path: Path, chunk: int, identity_hash: str, rows: int) -> bool:
    """Whether a chunk file was written by this run (its metadata), for this chunk, with all its ``rows``."""
    import pyarrow.parquet as pq

    try:
        metadata = pq.read_metadata(path)
    except Exception:  # unreadable or truncated: not a finished chunk
        return False
    tags = metadata.metadata or {}
    return (tags.get(b"autodup_run") == identity_hash.encode() and tags.get(b"autodup_chunk") == str(chunk).encode()
            and metadata.num_rows == rows)


def prepare_output(out: Path, spec: RunSpec, resume: bool, manifest_extra: dict) -> list:
    """Create or check the output folder; returns the chunks still to play.

    Raises
    ------
    RunError
        The folder holds another run, files that are not this run's, or a
        run exists and ``resume`` is off.
    """
    manifest_path = out / "manifest.json"
    if out.exists() and not out.is_dir():
        raise RunError(f"--out: {out} is a file, not a folder")
    if manifest_path.exists():
        try:
            manifest = json.loads(manifest_path.read_text())
        except (OSError, ValueError) as error:
            raise RunError(f"{manifest_path}: unreadable manifest ({error})") from None
        if not isinstance(manifest, dict):
            raise RunError(f"{manifest_path}: not a run manifest")
        if not resume:
            raise RunError(f"{out}: holds a run already (use --resume to finish it, or another --out)")
        recorded = manifest.get("identity") if isinstance(manifest.get("identity"), dict) else {}
        if recorded != spec.identity():
            differing = sorted(k for k in spec.identity() if recorded.get(k) != spec.identity()[k])
            raise RunError(f"--resume: {out} holds a run with other arguments or files ({', '.join(differing)} "
                           "differ); resume with the same ones or use another --out")
    else:
        if out.exists() and any(out.iterdir()):
            raise RunError(f"--out: {out} is not empty and has no manifest.json (not a run folder)")
        (out / "chunks").mkdir(parents=True, exist_ok=True)
        manifest = {"identity": spec.identity(), **manifest_extra}
        temporary = manifest_path.with_name(".manifest.json.tmp")
        temporary.write_text(json.dumps(manifest, indent=2))
        os.replace(temporary, manifest_path)
    chunks = out / "chunks"
    chunks.mkdir(parents=True, exist_ok=True)
    for leftover in chunks.glob(".chunk-*.tmp"):  # a write that a kill interrupted
        leftover.unlink()
    known = {chunk_path(out, c) for c in range(chunk_count(spec.boards))}
    strangers = [p.name for p in chunks.iterdir() if p not in known]
    if strangers:
        raise RunError(f"{chunks}: holds files that are not chunks of this run ({strangers[0]}, ...)")
    from .config import load_config

    identity_hash = spec.identity_hash()
    rows_per_board = spec.tables * load_config(spec.config).players
    remaining = []
    for chunk in range(chunk_count(spec.boards)):
        path = chunk_path(out, chunk)
        rows = min(CHUNK_BOARDS, spec.boards - chunk * CHUNK_BOARDS) * rows_per_board
        if path.exists() and not _chunk_is_ours(path, chunk, identity_hash, rows):
            raise RunError(f"{path}: not a complete chunk of this run (delete it to play it again)")
        if not path.exists():
            remaining.append(chunk)
    return remaining


# --------------------------------------------------------------------------
# execution
# --------------------------------------------------------------------------


class _CtrlC:
    """While active, a first Ctrl-C asks the run to stop after the chunks being written; a second one stops now.

    A signal landing inside a jitted kernel can surface as a SystemError
    instead of KeyboardInterrupt, so the run polls this flag between chunks.
    """

    def __init__(self):
        self.requested = False

    def __enter__(self):
        import threading

        self.previous = None
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def _handle(self, signum, frame):
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True

    def check(self):
        if self.requested:
            raise KeyboardInterrupt

    def __exit__(self, *exc):
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)
        return False


def _ignore_ctrl_c():
    """Worker processes leave Ctrl-C to the parent, which stops them between chunks."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_chunks(spec: RunSpec, out: Path, chunks: list, workers: int, backend: str, ray_address=None,
               quiet: bool = False) -> None:
    """Play ``chunks`` with ``workers`` processes (or Ray) and write each as it completes.

    Raises
    ------
    KeyboardInterrupt
        After Ctrl-C, once the chunks in hand are written (the run resumes with ``--resume``).
    """
    from tqdm import tqdm

    boards_left = sum(min(CHUNK_BOARDS, spec.boards - c * CHUNK_BOARDS) for c in chunks)
    with tqdm(total=spec.boards, initial=spec.boards - boards_left, unit="board", disable=quiet,
              file=sys.stderr, dynamic_ncols=True) as progress, _CtrlC() as ctrl_c:
        identity_hash = spec.identity_hash()

        def done(chunk, rows):
            write_chunk(out, chunk, rows, identity_hash)
            progress.update(int(np.unique(rows["board"]).size))
            ctrl_c.check()

        if backend == "ray":
            _run_with_ray(spec, chunks, workers, ray_address, done)
        elif workers == 1:
            for chunk in chunks:
                done(chunk, play_chunk(spec, chunk))
        else:
            _run_with_processes(spec, chunks, workers, done)


def _run_with_processes(spec, chunks, workers, done):
    import concurrent.futures
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    waiting = list(reversed(chunks))
    with concurrent.futures.ProcessPoolExecutor(max_workers=workers, mp_context=context,
                                                initializer=_ignore_ctrl_c) as pool:
        # A few chunks in flight per worker: memory stays flat however many boards there are.
        running = {}
        try:
            while waiting or running:
                while waiting and len(running) < 2 * workers:
                    chunk = waiting.pop()
                    running[pool.submit(play_chunk, spec, chunk)] = chunk
                finished, _ = concurrent.futures.wait(running, return_when=concurrent.futures.FIRST_COMPLETED)
                for future in finished:
                    done(running.pop(future), future.result())
        except BaseException:
            for future in running:
                future.cancel()
            raise


def _import_ray():
    try:
        import ray
    except ImportError:
        raise RunError("--backend ray needs Ray: python -m pip install 'autodup[ray]'") from None
    return ray


def _run_with_ray(spec, chunks, workers, ray_address, done):
    import logging

    ray = _import_ray()

    started_here = not ray.is_initialized()
    if started_here:
        ray.init(address=ray_address, num_cpus=None if ray_address else workers, include_dashboard=False,
                 log_to_driver=False, logging_level=logging.WARNING)
    try:
        remote = ray.remote(play_chunk)
        waiting = list(reversed(chunks))
        in_flight = 2 * max(workers, int(ray.cluster_resources().get("CPU", workers)))
        pending = {}
        while waiting or pending:
            while waiting and len(pending) < in_flight:
                chunk = waiting.pop()
                pending[remote.remote(spec, chunk)] = chunk
            ready, _ = ray.wait(list(pending), num_returns=1)
            for reference in ready:
                done(pending.pop(reference), ray.get(reference))
    finally:
        if started_here:
            ray.shutdown()


# --------------------------------------------------------------------------
# the summary
# --------------------------------------------------------------------------


def board_totals(columns: dict) -> dict:
    """Per bot and board: rows, sums of placement and of duplicate score, and top-4 finishes.

    The duplicate score of a row is its placement minus the mean placement at
    the same board and seat (over the tables). Boards never span chunks, so
    the totals of a run are those of its chunks, put together.
    """
    board, seat, placement, bot = columns["board"], columns["seat"], columns["placement"], columns["bot"]
    players = int(seat.max()) + 1
    cell = board * players + seat
    _, inverse = np.unique(cell, return_inverse=True)
    duplicate = placement - (np.bincount(inverse, weights=placement) / np.bincount(inverse))[inverse]
    totals = {}
    for name in np.unique(bot):
        mine = bot == name
        boards, index = np.unique(board[mine], return_inverse=True)
        totals[str(name)] = {
            "boards": boards, "rows": np.bincount(index), "placement": np.bincount(index, weights=placement[mine]),
            "duplicate": np.bincount(index, weights=duplicate[mine]),
            "top4": np.bincount(index, weights=(placement[mine] <= players // 2).astype(np.float64))}
    return totals


def summarize_totals(parts) -> list:
    """The summary from :func:`board_totals` of disjoint sets of boards (e.g. chunks).

    Per bot: mean placement and duplicate score with 95% confidence intervals
    from the spread of per-board means (boards are independent, the tables of
    a board are not), and the top-half rate (``top4_rate`` at 8 seats);
    sorted by duplicate score. With a full Latin square (as many tables as
    bots, each bot at every seat once per board), a bot's duplicate score is
    its mean placement minus ``(players + 1) / 2`` on every board.
    """
    merged: dict = {}
    for part in parts:
        for name, totals in part.items():
            merged.setdefault(name, []).append(totals)
    rows = []
    for name, pieces in merged.items():
        joined = {key: np.concatenate([p[key] for p in pieces]) for key in pieces[0]}
        count = joined["rows"]
        entry = {"bot": name, "rows": int(count.sum()), "boards": int(joined["boards"].size)}
        for label, key in (("mean_placement", "placement"), ("duplicate_score", "duplicate")):
            per_board = joined[key] / count
            entry[label] = float(joined[key].sum() / count.sum())
            # None (JSON null) with a single board: no spread to estimate from.
            entry[f"{label}_ci95"] = float(1.96 * per_board.std(ddof=1) / np.sqrt(per_board.size)) \
                if per_board.size > 1 else None
        entry["top4_rate"] = float(joined["top4"].sum() / count.sum())
        rows.append(entry)
    return sorted(rows, key=lambda r: (r["duplicate_score"], r["bot"]))


def summarize(columns: dict) -> list:
    """The summary of rows given as columns (see :func:`summarize_totals`)."""
    return summarize_totals([board_totals(columns)])


def summarize_run(out) -> list:
    """The summary of a run folder, read chunk by chunk (memory does not grow with the number of boards)."""
    import pyarrow.parquet as pq

    parts = []
    for path in chunk_files(out):
        table = pq.read_table(path, columns=["board", "seat", "bot", "placement"])
        parts.append(board_totals({name: table.column(name).to_numpy(zero_copy_only=False)
                                   for name in table.column_names}))
    return summarize_totals(parts)
