"""Observation and action spaces, rewards and seeding shared by autodup's environments.

An observation is a dict of the arrays a waiting seat sees (:class:`~autodup.game.observation.Observations`):

``me``
    int64 (VIEW_FIELDS,): the seat's view, one entry per field of :data:`autodup.game.view.VIEW`, in the order of
    :data:`~autodup.game.view.VIEW_NAMES` (``me[VIEW_NAMES.index("gold")]`` is its gold).
``shop``
    int64 (S,): the champion in each shop slot, -1 if empty.
``unit_champion``, ``unit_star``
    int64 (C,): the seat's units (-1 and 0 after the last one held) and their stars.
``pool``
    float64 (champions,): copies of each champion left in the shared pool.
``action_mask``
    int8 (A,): 1 for each legal numbered action (:mod:`autodup.game.observation`).

Rewards come from placement only, once, at the step where the seat's placement is known (when it is knocked out,
or when the game ends); every other step's reward is 0. Two choices (``reward=``):

``"placement"``
    ``(players + 1 - 2 * placement) / (players - 1)``: +1 for first, -1 for last, evenly spaced between
    (its mean over a table is 0).
``"top4"``
    1 for a placement in the top half (top 4 of 8), 0 otherwise.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from ..arguments import MAX_INDEX, integer
from ..arguments import seed as check_seed
from ..errors import UsageError
from ..game.observation import action_layout
from ..game.resumable import ResumableTables
from ..game.view import VIEW_FIELDS

__all__ = ["REWARDS", "observation_space", "action_space", "tables_for", "reward_of", "check_reward",
           "check_dealer", "BoardCounter"]

REWARDS = ("placement", "top4")

_VIEW_BOUND = 2**53  # the view's random fields are 53-bit integers; every other field is far smaller


def observation_space(rules, seed: int | None = None) -> spaces.Dict:
    """The :class:`gymnasium.spaces.Dict` of one seat's observation (the module's table) for compiled ``rules``."""
    layout = action_layout(rules)
    champions = rules.champion_tier.shape[0]
    return spaces.Dict({
        "me": spaces.Box(-_VIEW_BOUND, _VIEW_BOUND, (VIEW_FIELDS,), np.int64),
        "shop": spaces.Box(-1, champions - 1, (layout.shop_size,), np.int64),
        "unit_champion": spaces.Box(-1, champions - 1, (layout.capacity,), np.int64),
        "unit_star": spaces.Box(0, 3, (layout.capacity,), np.int64),
        "pool": spaces.Box(0.0, float(rules.champion_copies.max()), (champions,), np.float64),
        "action_mask": spaces.Box(0, 1, (len(layout.names),), np.int8),
    }, seed=seed)


def action_space(rules, seed: int | None = None) -> spaces.Discrete:
    """A :class:`gymnasium.spaces.Discrete` over the numbered actions of compiled ``rules``."""
    return spaces.Discrete(len(action_layout(rules).names), seed=seed)


def tables_for(tables, rules, seat_bots, seed: int, first_board: int, count: int, dealer: str):
    """``count`` tables on boards ``first_board, ...`` of ``seed``: ``tables`` started over in place when it plays
    that seed (no allocation, no seeding of the bots again), else new :class:`ResumableTables`."""
    boards = np.arange(first_board, first_board + count, dtype=np.int64)
    if tables is not None and tables.seed == seed:
        tables.restart_tables(np.arange(count, dtype=np.int64), boards)
        return tables
    return ResumableTables(rules, seat_bots, seed=seed, boards=boards, dealer=dealer)


def check_dealer(dealer: str) -> str:
    """A dealer's name (:data:`autodup.engine.dealers.DEALERS`), or a one-line ``UsageError``."""
    from ..engine.dealers import dealer_named

    try:
        return dealer_named(dealer, "dealer").name
    except ValueError as error:
        raise UsageError(str(error).removeprefix("dealer: "), "dealer") from None


def check_reward(reward: str) -> str:
    if reward not in REWARDS:
        raise UsageError(f"unknown reward {reward!r} (allowed: {', '.join(REWARDS)})", "reward")
    return reward


def reward_of(reward: str, placement, players: int):
    """The reward for ``placement`` (an int or an int64 array, 1 is first) under ``reward`` (:data:`REWARDS`)."""
    placement = np.asarray(placement, dtype=np.float64)
    if reward == "placement":
        return (players + 1 - 2.0 * placement) / (players - 1)
    return (placement <= players // 2).astype(np.float64)


class BoardCounter:
    """Which board of which tournament seed the next game plays: ``reset(seed=s)`` names board 0 of seed ``s``.

    Each later reset without a seed plays the next board (1, 2, ...), so a run of episodes walks the tournament's
    duplicate boards in order; ``options={"board": k}`` names one directly. Board ``k`` of seed ``s`` is the game
    ``autodup play --seed s --board k`` deals (``table`` 0 of the board).
    """

    def __init__(self, seed: int):
        self.seed = check_seed("seed", seed)
        self.next_board = 0

    def next(self, seed=None, options=None, count: int = 1) -> tuple[int, int]:
        """``(seed, first board)`` for a reset, ``count`` boards taken."""
        if seed is not None:
            self.seed = check_seed("seed", seed)
            self.next_board = 0
        if options is not None and not isinstance(options, dict):
            raise UsageError(f"{options!r} is not a dict (allowed: None, or {{'board': k}})", "options")
        if options and "board" in options:
            self.next_board = integer("board", options["board"], 0, MAX_INDEX)
        board = self.next_board
        self.next_board = board + count
        return self.seed, board
