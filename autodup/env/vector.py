"""A Gymnasium vector environment: many tables, one learning seat each, stepped in one compiled call."""

from __future__ import annotations

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..arguments import integer
from ..errors import UsageError
from ..game.observation import OBSERVATION_KEYS, judge_answers, observation_row
from .single import DEFAULT_OPPONENTS, LearningSeat
from .spaces import action_space, observation_space, reward_of, tables_for

__all__ = ["AutodupVectorEnv"]

MAX_TABLES = 100_000


class AutodupVectorEnv(LearningSeat, VectorEnv):
    """``num_envs`` tables of :class:`~autodup.env.AutodupEnv`, stepped together (``autodup/Set4-v0``'s vector form).

    ``step(actions)`` takes one numbered action per table (int64 (num_envs,)) and plays every table on to
    its learning seat's next decision in one compiled call. A table whose episode ends is started over on
    the next board at once (Gymnasium's ``SAME_STEP`` autoreset): that step returns its reward and
    ``terminated``, and already the new game's first observation. ``reset(seed=s)`` starts table ``i`` on
    board ``i`` of tournament seed ``s``; the boards after go, in order, to the tables that finish. ``infos``
    holds ``board`` (int64 (num_envs,): each table's current board), ``illegal_action`` (bool (num_envs,): whether
    each table refused its action, its seat then deciding again), ``cap_hit`` (bool (num_envs,): whether the action
    was its turn's 64th, ``ACTION_CAP``, after which the table ended the turn) and, for the tables that just finished,
    ``placement``, and as Gymnasium's same-step vector environments give them, ``final_obs`` (object
    (num_envs,): the finished game's last observation, None elsewhere) and ``final_info`` (the finished game's
    info, as :class:`~autodup.env.AutodupEnv` gives it at the end, a dict of arrays), each key with its mask
    (``_placement``, ``_final_obs``...).

    Parameters are those of :class:`~autodup.env.AutodupEnv`, with ``num_envs``.
    """

    metadata = {"render_modes": [], "autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, num_envs: int = 128, config="set4", opponents=DEFAULT_OPPONENTS, seat: int = 0,
                 seed: int = 0, reward: str = "placement", dealer: str = "haystack"):
        self.num_envs = integer("num_envs", num_envs, 1, MAX_TABLES)
        super().__init__(config, opponents, seat, seed, reward, dealer)
        self.single_observation_space = observation_space(self.rules)
        self.single_action_space = action_space(self.rules)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._tables = None

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        seed, first = self.boards.next(seed, options, count=self.num_envs)
        self._tables = tables_for(self._tables, self.rules, self.seat_bots, seed, first, self.num_envs, self.dealer)
        self._answers = self._tables.layout.answers
        self._acting = np.ones(self.num_envs, dtype=np.bool_)
        return self._observations(), {"board": self._tables.boards.copy()}

    def _observations(self) -> dict:
        return {key: array.copy() for key, array in zip(OBSERVATION_KEYS, self._tables.observations)}

    def step(self, actions):
        tables = self._tables
        if tables is None:
            raise UsageError("call reset() before step()", "step")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or actions.dtype.kind not in "iu":
            raise UsageError(f"expected one integer numbered action per table ({self.num_envs},), got "
                             f"{actions.dtype} {actions.shape}", "actions")
        if actions.min() < 0 or actions.max() >= self._answers.shape[0]:
            raise UsageError(f"a numbered action is out of range (allowed: 0 to {self._answers.shape[0] - 1})",
                             "actions")
        # The mask is the table's own legality: an action it leaves out is refused, and the table asks again.
        answers = self._answers[actions]
        illegal, cap_hit = judge_answers(tables.observations, actions, answers)
        tables.step(self._acting, answers)
        placements = tables.placements[:, self.seat]
        terminated = placements > 0
        rewards = np.where(terminated, reward_of(self.reward_kind, placements, self.rules.players), 0.0)
        every = np.ones(self.num_envs, dtype=np.bool_)
        infos = {"placement": placements.copy(), "_placement": terminated.copy(),
                 "illegal_action": illegal, "_illegal_action": every, "cap_hit": cap_hit, "_cap_hit": every.copy()}
        finished = np.flatnonzero(terminated)
        if finished.size:
            # As Gymnasium's own same-step vector environments: each finished table's last observation and info
            # (what AutodupEnv.step returns at the end), before its next game's first replaces them.
            infos["final_obs"] = np.full(self.num_envs, None, dtype=object)
            final_info = {}
            for i in finished:
                infos["final_obs"][i] = observation_row(tables.observations, i)
                final_info = self._add_info(final_info, {
                    "seed": tables.seed, "board": int(tables.boards[i]), "illegal_action": bool(illegal[i]),
                    "cap_hit": bool(cap_hit[i]), "placement": int(placements[i])}, i)
            infos["_final_obs"], infos["final_info"], infos["_final_info"] = terminated.copy(), final_info, \
                terminated.copy()
            _, first = self.boards.next(count=finished.size)
            tables.restart_tables(finished, np.arange(first, first + finished.size, dtype=np.int64))
        infos["board"], infos["_board"] = tables.boards.copy(), every.copy()
        return self._observations(), rewards, terminated, np.zeros(self.num_envs, dtype=np.bool_), infos

    def action_masks(self) -> np.ndarray:
        """bool (num_envs, A): each table's legal numbered actions now."""
        if self._tables is None:
            raise UsageError("call reset() before action_masks()", "action_masks")
        return self._tables.observations.action_mask.astype(bool)
