"""Actions a policy answers with, and how an answer is encoded (:func:`encode_decision`)."""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["ACTION_END", "ACTION_BUY", "ACTION_SELL", "ACTION_REROLL", "ACTION_BUY_XP", "ACTION_LOCK",
           "ACTION_LOADED_ROLL", "ACTION_CODES", "ACTION_CAP", "ANSWER_TAG", "encode_decision", "encode_decisions",
           "is_answer", "decode_decision"]

# Actions a policy returns, encoded with an argument by encode_decision.
ACTION_END = 0
ACTION_BUY = 1        # argument: shop slot
ACTION_SELL = 2       # argument: unit index
ACTION_REROLL = 3
ACTION_BUY_XP = 4
ACTION_LOCK = 5       # toggles the lock: a locked shop skips the next refresh, then unlocks
ACTION_LOADED_ROLL = 6  # argument: trait; a free reroll whose slots all have that trait (once per round)

ACTION_CODES = 16  # action codes are below this; other codes are illegal

ACTION_CAP = 64  # actions per seat per round; a broken policy cannot hang a table


# An answer: ANSWER_TAG in bits 40-47, the argument + 2**31 in bits 4-35, the action in bits 0-3.
ANSWER_TAG = 0xA5 << 40
_ARGUMENT_OFFSET = 1 << 31
_ARGUMENT_MASK = (1 << 32) - 1


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False, inline="always")
def encode_decision(action, argument):
    """A policy's answer: ``action`` (one of ``ACTION_*``) with its argument (slot, unit or trait).

    ``argument`` is taken modulo 2**32 into ``[-2**31, 2**31)``; an answer is never 0.
    """
    return ANSWER_TAG | (((argument + _ARGUMENT_OFFSET) & _ARGUMENT_MASK) << 4) | (action & (ACTION_CODES - 1))


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False, inline="always")
def is_answer(decision):
    """Whether ``decision`` was made by :func:`encode_decision` (bits 36-63 hold exactly the tag)."""
    return (decision >> 36) == (ANSWER_TAG >> 36)


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False, inline="always")
def decode_decision(decision):
    """``(action, argument)`` of an answer (see :func:`is_answer`)."""
    return decision & (ACTION_CODES - 1), ((decision >> 4) & _ARGUMENT_MASK) - _ARGUMENT_OFFSET


def encode_decisions(actions, arguments):
    """:func:`encode_decision` over arrays (numpy, outside compiled code): int64 answers of the same shape.

    Parameters
    ----------
    actions, arguments : int64 array-likes of one shape
        ``ACTION_*`` codes and their arguments (slot, unit or trait).
    """
    actions = np.asarray(actions, dtype=np.int64)
    arguments = np.asarray(arguments, dtype=np.int64)
    return (np.int64(ANSWER_TAG) | (((arguments + _ARGUMENT_OFFSET) & _ARGUMENT_MASK) << 4)
            | (actions & (ACTION_CODES - 1)))
