"""Progress: what a watchdog outside the jitted code can read of a table being played."""

from __future__ import annotations

import numpy as np

__all__ = ["PROGRESS_GAMES", "PROGRESS_IN_GAME", "PROGRESS_SEAT", "PROGRESS_BOARD", "PROGRESS_TABLE",
           "PROGRESS_LOADING", "PROGRESS_PROBE", "PROGRESS_COMPILING", "PROGRESS_COMPILED", "PROGRESS_FIELDS",
           "COMPILING_SHOP_DRAW", "COMPILING_ROUND_START", "COMPILING_ROUND_END", "COMPILING_STORAGE", "new_progress"]

# A table writes where it is into a small int64 array (shared memory when it
# runs in a worker process), so that a process watching it can enforce a
# deadline per game and name the bot and the board when a game hangs or
# crashes. Writing it changes no result.
PROGRESS_GAMES = 0    # games started (a deadline restarts at each one)
PROGRESS_IN_GAME = 1  # 1 while a game is being played (compilation is never counted)
PROGRESS_SEAT = 2     # the seat whose policy is deciding, or -1
PROGRESS_BOARD = 3    # set by the board loops: the board and table being played
PROGRESS_TABLE = 4
PROGRESS_LOADING = 5  # set while bots load: 1 + the index of the bot being loaded, 0 when none is
PROGRESS_PROBE = 6    # set while a run probes a bot's determinism: 1 + the bot's index, 0 otherwise (the board
                      # loops own PROGRESS_TABLE, so the probe's tables are marked here)
PROGRESS_COMPILING = 7  # set while a worker compiles ahead of a run: COMPILING_*, 0 otherwise (the loading and
                        # playing fields say nothing then)
PROGRESS_COMPILED = 8   # set while a worker compiles the table: how many of its stages are compiled
                        # (autodup.game.boards.TABLE_STAGES)
PROGRESS_FIELDS = 9

# What a cold start's second worker compiles, in this order (the user's bots between the first two, the shipped
# ones after the last).
COMPILING_SHOP_DRAW = 1
COMPILING_ROUND_START = 2
COMPILING_ROUND_END = 3  # the round's end and the soundness check
COMPILING_STORAGE = 4


def new_progress() -> np.ndarray:
    """A progress block for a table played in this process (int64 (PROGRESS_FIELDS,))."""
    progress = np.zeros(PROGRESS_FIELDS, dtype=np.int64)
    progress[PROGRESS_SEAT] = -1
    return progress
