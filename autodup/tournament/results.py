"""Reading a run folder: its rows as one table with names, wherever the folder is now.

A run folder (``autodup run --out DIR``) holds:

``manifest.json``
    The run's identity (bots with their files' hashes and parameters,
    boards, dealer, seed, format) and how it was started.
``config.yaml``
    The configuration's text, as the run read it: champion names, shop size,
    tiers. Readers take names from here, not from the original file.
``bots/NAME.py``
    Each bot's file, as the run loaded it.
``chunks/chunk-NNNNNN.parquet``
    The rows, one per (board, table, seat), with a checksum per column.
``summary.json``, ``determinism.json``
    The summary printed at the end, and whether each bot replays itself.

:func:`read_run` gives the rows as a :class:`pyarrow.Table` (``.to_pandas()``
for a DataFrame) with champion names in place of indices:

============================  =======================================================
column                        what it holds
============================  =======================================================
board, table, seat, bot       where the row was played, and by which bot
placement, hp, level, gold    the seat's result (see ``autodup.game.stats.RESULT_COLUMNS``)
gold_spent … bad_answers      what it did, and what it did wrong
round_shops                   per round alive: its shop (champion names, null = empty)
round_level, round_gold,      per round alive: what it had when it saw that shop
round_hp
final_board                   its board when it left: ``{champion, stars}``, strongest
                              unit first
three_stars                   how many 3-star units that board held
offers                        copies of each champion shown over its game, every shop
                              (one count per champion, in ``config.champion_names`` order)
bought                        copies of each champion bought from its shops over its
                              game (loot is not bought), in the same order
luck                          its luck terms over its game, one named field each
                              (``{coin, coin_hp, ..., tiebreak}``: ``autodup.game.stats.LUCK_NAMES``
                              and :mod:`autodup.analysis.luck` say what each measures)
============================  =======================================================
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import RunError
from .storage import BOT_SNAPSHOTS, CONFIG_SNAPSHOT, boards_done, chunk_files, read_chunk_table, read_manifest

__all__ = ["RunFolder", "read_run"]

KEY_COLUMNS = ("board", "table", "seat")  # the rows' order
# Columns made from stored ones as they are read: each with the stored columns it needs.
DERIVED_COLUMNS = {"final_board": ("final_champions", "final_stars"), "three_stars": ("final_champions", "final_stars")}


class RunFolder:
    """A run folder, read-only: its manifest, configuration snapshot and rows.

    Parameters
    ----------
    out : str or os.PathLike
        The folder ``autodup run`` wrote.

    Raises
    ------
    autodup.errors.RunError
        Not a run folder, a manifest of another format, or no configuration snapshot.
    """

    def __init__(self, out):
        self.path = Path(out)
        self.manifest = read_manifest(self.path)
        snapshot = self.path / CONFIG_SNAPSHOT
        if not snapshot.is_file():
            raise RunError(f"{self.path}: no {CONFIG_SNAPSHOT} (the configuration snapshot of the run)")
        from ..game.config import load_config

        self.config = load_config(snapshot)

    @property
    def identity(self) -> dict:
        return self.manifest["identity"]

    @property
    def bot_names(self) -> list:
        return [name for name, *_ in self.identity["bots"]]

    def boards_done(self) -> int:
        """Boards in the finished chunks (``identity["boards"]`` once the run is finished)."""
        return boards_done(self.path, self.identity["boards"])

    def bot_file(self, name: str) -> Path:
        """The folder's copy of bot ``name``'s file, as the run loaded it."""
        return self.path / BOT_SNAPSHOTS / f"{name}.py"

    def chunks(self, columns=None):
        """The finished chunks one at a time, in chunk order, each a checked :class:`pyarrow.Table` of raw columns.

        Rows hold whole boards (a chunk is ``CHUNK_BOARDS`` boards), champions
        as indices: what measures stream through without holding the run. The
        next chunk is read (and checked) in a thread while the caller works on
        this one: Parquet and the checksums release the interpreter.
        """
        from concurrent.futures import ThreadPoolExecutor

        paths = chunk_files(self.path)
        with ThreadPoolExecutor(max_workers=1) as reader:
            pending = reader.submit(read_chunk_table, paths[0], columns) if paths else None
            for index in range(len(paths)):
                table = pending.result()[0]
                pending = reader.submit(read_chunk_table, paths[index + 1], columns) if index + 1 < len(paths) else None
                yield table

    def table(self, columns=None):
        """The rows of every finished chunk, ordered by board, table, seat, with names (see the module docstring).

        Parameters
        ----------
        columns : list of str, optional
            The columns to return, in that order (the module docstring's names,
            or the stored ``final_champions`` and ``final_stars``); default all.

        Returns
        -------
        pyarrow.Table

        Raises
        ------
        autodup.errors.RunError
            No finished chunk yet, or a column the run does not have.
        """
        import pyarrow as pa
        import pyarrow.parquet as pq

        paths = chunk_files(self.path)
        if not paths:
            raise RunError(f"{self.path}: no finished chunk yet (nothing to read)")
        wanted = None
        if columns is not None:
            wanted = list(dict.fromkeys(columns))
            try:
                stored = pq.read_schema(paths[0]).names
            except Exception:  # a damaged chunk: read_chunk_table says so below
                stored = None
            if stored is not None:
                readable = [*stored, *DERIVED_COLUMNS]
                unknown = [name for name in wanted if name not in readable]
                if unknown:
                    raise RunError(f"{self.path}: no column {', '.join(map(repr, unknown))} in this run "
                                   f"(columns: {', '.join(readable)})")
            sources = [source for name in wanted for source in DERIVED_COLUMNS.get(name, (name,))]
            columns = list(dict.fromkeys([*KEY_COLUMNS, *sources]))
        parts = [self._named(read_chunk_table(path, columns)[0]) for path in paths]
        table = pa.concat_tables(parts)
        table = table.sort_by([(name, "ascending") for name in KEY_COLUMNS])
        if wanted is None:  # every column, the final boards by name only
            return table.drop_columns(["final_champions", "final_stars"])
        return table.select(wanted)

    def _named(self, table):
        import pyarrow as pa
        import pyarrow.compute as pc

        names = pa.array(self.config.champion_names, type=pa.string())

        def champion_names(indices):
            values = np.asarray(indices, dtype=np.int64)
            return pc.take(names, pa.array(values, mask=values < 0))

        if "round_shops" in table.column_names:
            shops = table.column("round_shops").combine_chunks()
            size = self.config.shop_size
            flat = champion_names(shops.flatten())
            per_round = pa.ListArray.from_arrays(pa.array(np.arange(0, len(flat) + 1, size, dtype=np.int32)), flat)
            offsets = np.asarray(shops.offsets, dtype=np.int32) // size
            table = table.set_column(table.column_names.index("round_shops"), "round_shops",
                                     pa.ListArray.from_arrays(pa.array(offsets), per_round))
        if "luck" in table.column_names:  # stored as a list in LUCK_NAMES order; read as named fields
            from ..game.stats import LUCK_NAMES

            luck = table.column("luck").combine_chunks()
            values = luck.flatten()
            fields = [pc.take(values, pa.array(np.arange(k, len(values), len(LUCK_NAMES))))
                      for k in range(len(LUCK_NAMES))]
            table = table.set_column(table.column_names.index("luck"), "luck",
                                     pa.StructArray.from_arrays(fields, names=list(LUCK_NAMES)))
        if {"final_champions", "final_stars"} <= set(table.column_names):
            champions = table.column("final_champions").combine_chunks()
            stars = table.column("final_stars").combine_chunks()
            units = pa.StructArray.from_arrays([champion_names(champions.flatten()), stars.flatten()],
                                               names=["champion", "stars"])
            board = pa.ListArray.from_arrays(champions.offsets, units)
            flat_stars = np.asarray(stars.flatten(), dtype=np.int64)
            row_of_unit = np.repeat(np.arange(len(stars)), np.diff(np.asarray(stars.offsets)))
            three = np.bincount(row_of_unit[flat_stars == 3], minlength=len(stars)).astype(np.int64)
            table = table.append_column("final_board", board).append_column("three_stars", pa.array(three))
        return table


def read_run(out, columns=None):
    """The rows of run folder ``out`` as a :class:`pyarrow.Table` with names (see :class:`RunFolder`)."""
    return RunFolder(out).table(columns)
