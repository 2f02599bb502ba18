"""What an agent outside the table sees and answers with: numbered actions, their mask, and observation arrays.

A bot answers with an encoded decision (:func:`~autodup.game.actions.encode_decision`); an agent outside
the table picks one of a fixed list of *numbered actions* instead, the form reinforcement-learning libraries
expect (a discrete action space with a mask of the legal ones). The list, for a configuration with ``S``
shop slots, ``C`` unit places and ``T`` traits (:func:`action_layout`):

========================  =====================================================
number                    action
========================  =====================================================
0                         end the turn
1 ... S                   buy shop slot 0 ... S-1
S+1 ... S+C               sell unit 0 ... C-1
S+C+1                     reroll the shop
S+C+2                     buy XP
S+C+3                     lock (or unlock) the shop
S+C+4 ... S+C+3+T         loaded roll of trait 0 ... T-1
========================  =====================================================

The mask says which are legal now, by the view's own legality fields (the predicates the table applies), so
an agent that follows it never plays an illegal action. An illegal one is refused and counted, as a bot's is.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .actions import (
    ACTION_BUY,
    ACTION_BUY_XP,
    ACTION_CAP,
    ACTION_CODES,
    ACTION_END,
    ACTION_LOADED_ROLL,
    ACTION_LOCK,
    ACTION_REROLL,
    ACTION_SELL,
    encode_decisions,
)
from .rules import game_inline
from .view import (
    VIEW_ACTIONS,
    VIEW_BUYABLE,
    VIEW_CAN_BUY_XP,
    VIEW_CAN_LOADED_ROLL,
    VIEW_CAN_REROLL,
    VIEW_FIELDS,
    VIEW_UNITS,
)

__all__ = ["ActionLayout", "action_layout", "Observations", "new_observations", "OBSERVATION_KEYS",
           "observation_row", "fill_action_mask", "observe_seat", "reaches_the_cap", "judge_answers"]


class ActionLayout(NamedTuple):
    """The numbered actions of a configuration (see the module's table).

    Attributes
    ----------
    actions, arguments : int64 (A,)
        Each numbered action's ``ACTION_*`` code and argument (slot, unit or trait).
    answers : int64 (A,)
        Each one encoded as the table expects (``encode_decisions(actions, arguments)``): ``answers[number]``
        is what a numbered action sends.
    names : tuple of str
        ``"end"``, ``"buy_0"``, ..., ``"sell_0"``, ..., ``"reroll"``, ``"buy_xp"``, ``"lock"``,
        ``"loaded_roll_0"``, ...
    shop_size, capacity, traits : int
        S, C and T.
    """

    actions: np.ndarray
    arguments: np.ndarray
    answers: np.ndarray
    names: tuple
    shop_size: int
    capacity: int
    traits: int


def unit_places(rules) -> int:
    """C: the most units a seat can hold at once (the largest bench and board, plus one waiting to combine)."""
    return int(rules.bench_size + rules.level_board_size.max() + 1)


def action_layout(rules) -> ActionLayout:
    """The numbered actions of compiled ``rules`` (:class:`ActionLayout`)."""
    shop_size, capacity, traits = int(rules.shop_size), unit_places(rules), int(rules.trait_breakpoints.shape[0])
    rows = ([(ACTION_END, 0, "end")] + [(ACTION_BUY, s, f"buy_{s}") for s in range(shop_size)]
            + [(ACTION_SELL, u, f"sell_{u}") for u in range(capacity)]
            + [(ACTION_REROLL, 0, "reroll"), (ACTION_BUY_XP, 0, "buy_xp"), (ACTION_LOCK, 0, "lock")]
            + [(ACTION_LOADED_ROLL, t, f"loaded_roll_{t}") for t in range(traits)])
    actions = np.array([row[0] for row in rows], dtype=np.int64)
    arguments = np.array([row[1] for row in rows], dtype=np.int64)
    return ActionLayout(actions, arguments, encode_decisions(actions, arguments), tuple(row[2] for row in rows),
                        shop_size, capacity, traits)


class Observations(NamedTuple):
    """One row per table: what its waiting seat sees, the arrays an agent's observation is made of.

    Attributes
    ----------
    me : int64 (tables, VIEW_FIELDS)
        The seat's view, one entry per field of :data:`~autodup.game.view.VIEW` in its order.
    shop : int64 (tables, S)
        The champion in each shop slot, -1 if empty.
    unit_champion, unit_star : int64 (tables, C)
        The seat's units (the first ``me[VIEW_UNITS]`` are held; -1 and 0 after) and their stars.
    pool : float64 (tables, champions)
        Copies of each champion left in the shared pool.
    action_mask : int8 (tables, A)
        1 for each numbered action (:func:`action_layout`) that is legal now.
    """

    me: np.ndarray
    shop: np.ndarray
    unit_champion: np.ndarray
    unit_star: np.ndarray
    pool: np.ndarray
    action_mask: np.ndarray


OBSERVATION_KEYS = Observations._fields


def new_observations(rules, tables: int) -> Observations:
    """Zeroed :class:`Observations` for ``tables`` tables of compiled ``rules``."""
    layout = action_layout(rules)
    return Observations(np.zeros((tables, VIEW_FIELDS), dtype=np.int64),
                        np.zeros((tables, layout.shop_size), dtype=np.int64),
                        np.zeros((tables, layout.capacity), dtype=np.int64),
                        np.zeros((tables, layout.capacity), dtype=np.int64),
                        np.zeros((tables, rules.champion_tier.shape[0])),
                        np.zeros((tables, len(layout.names)), dtype=np.int8))


def observation_row(observations: Observations, row: int) -> dict:
    """Row ``row`` of ``observations`` as one agent's observation: a dict of copies, keyed as the fields."""
    return {key: array[row].copy() for key, array in zip(OBSERVATION_KEYS, observations)}


def reaches_the_cap(me, answers) -> np.ndarray:
    """Whether each answer is its turn's ``ACTION_CAP``-th action, after which the table ends the turn (and counts
    a cap hit in the seat's ``cap_hits``), as :func:`autodup.game.turn.play_turn` decides it.

    Parameters
    ----------
    me : int64 (..., VIEW_FIELDS)
        The views the answers are given to (``Observations.me``): ``me[..., VIEW_ACTIONS]`` actions taken so far.
    answers : int64 (...)
        Encoded answers (:func:`~autodup.game.actions.encode_decision`), one per view.

    Returns
    -------
    bool (...)
        True where the view counts ``ACTION_CAP - 1`` actions and the answer is not to end the turn, which ends
        it before the cap.
    """
    actions_taken = np.asarray(me)[..., VIEW_ACTIONS]
    return (actions_taken == ACTION_CAP - 1) & ((np.asarray(answers) & (ACTION_CODES - 1)) != ACTION_END)


def judge_answers(observations: Observations, actions, answers) -> tuple[np.ndarray, np.ndarray]:
    """What the tables will make of their waiting seats' numbered ``actions`` (int64 (tables,), or one int for
    one table) and their ``answers`` (int64 (tables,)), judged before they are applied, for the environments' info.

    Returns
    -------
    refused : bool (tables,)
        The action's mask entry is 0: the table refuses and counts it, and the seat decides again.
    cap_hit : bool (tables,)
        :func:`reaches_the_cap`: the table ends the turn after it.
    """
    chosen = np.reshape(actions, (-1, 1))
    refused = np.take_along_axis(observations.action_mask, chosen, axis=1)[:, 0] == 0
    return refused, reaches_the_cap(observations.me, answers)


@game_inline
def fill_action_mask(me, shop_size, capacity, traits, mask):
    """Write which numbered actions ``me`` (a view) says are legal into ``mask`` (int8 (A,))."""
    mask[0] = 1
    buyable = me[VIEW_BUYABLE]
    for slot in range(shop_size):
        mask[1 + slot] = (buyable >> slot) & 1
    units = me[VIEW_UNITS]
    for unit in range(capacity):
        mask[1 + shop_size + unit] = 1 if unit < units else 0
    k = 1 + shop_size + capacity
    mask[k] = me[VIEW_CAN_REROLL]
    mask[k + 1] = me[VIEW_CAN_BUY_XP]
    mask[k + 2] = 1
    for trait in range(traits):
        mask[k + 3 + trait] = me[VIEW_CAN_LOADED_ROLL]


@game_inline
def observe_seat(desk, seat, observations, row):
    """Copy ``seat``'s view from a game's desk into row ``row`` of ``observations`` and fill its mask."""
    shop_size = observations.shop.shape[1]
    capacity = observations.unit_champion.shape[1]
    for field in range(observations.me.shape[1]):
        observations.me[row, field] = desk.me[seat, field]
    for slot in range(shop_size):
        observations.shop[row, slot] = desk.shop[seat, slot]
    for unit in range(capacity):
        observations.unit_champion[row, unit] = desk.unit_champion[seat, unit]
        observations.unit_star[row, unit] = desk.unit_star[seat, unit]
    for champion in range(observations.pool.shape[1]):
        observations.pool[row, champion] = desk.pool[seat, champion]
    traits = observations.action_mask.shape[1] - 4 - shop_size - capacity
    fill_action_mask(desk.me[seat], shop_size, capacity, traits, observations.action_mask[row])
