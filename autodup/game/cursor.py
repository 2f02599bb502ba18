"""Where a game is: the cursor that lets a table stop for a decision from outside and resume (``CURSOR``)."""

from __future__ import annotations

from .view import declare_indices

__all__ = ["CURSOR", "CURSOR_NAMES", "PHASE_ROUND_START", "PHASE_TURNS", "PHASE_ROUND_END", "PHASE_OVER"]

# Where a table is in its game, kept in an int64 array so that a game can stop when a seat played from outside
# must decide, and resume with its decision (autodup.game.resumable). play_table runs the same code with no such
# seat, so a game played through the cursor is the game play_table plays.
CURSOR = (
    ("round", "the round being played, from 0"),
    ("phase", "PHASE_ROUND_START, PHASE_TURNS, PHASE_ROUND_END or PHASE_OVER"),
    ("position", "in PHASE_TURNS: the index in table.order of the seat whose turn it is"),
    ("step", "that seat's actions so far this turn"),
    ("roll", "1 + the shops it rerolled this turn (loaded rolls included): the keyed dealer's key"),
    ("alive", "seats alive"),
    ("alive_count", "seats served this round"),
    ("bucket", "the stage bucket of the luck terms being gathered"),
    ("rounds", "rounds started"),
    ("violations", "steps after which the table was unsound (check mode)"),
    ("waiting", "the seat waiting for a decision from outside, -1 when none is"),
)
CURSOR_NAMES = declare_indices("CURSOR", CURSOR, globals())
PHASE_ROUND_START, PHASE_TURNS, PHASE_ROUND_END, PHASE_OVER = range(4)
