"""A Gymnasium environment: one learning seat at an autodup table, scripted bots at the others."""

from __future__ import annotations

import gymnasium
import numpy as np

from ..arguments import integer
from ..errors import UsageError
from ..game.agents import numbered_action
from ..game.bot_loading import bot_names
from ..game.observation import action_layout, judge_answers, observation_row
from ..game.resumable import bots_from, rules_from
from .spaces import BoardCounter, action_space, check_dealer, check_reward, observation_space, reward_of, tables_for

__all__ = ["AutodupEnv", "DEFAULT_OPPONENTS", "opponent_seats", "scripted_bots", "check_action", "LearningSeat"]

DEFAULT_OPPONENTS = "roster"  # the shipped bots other than random, one per seat


def opponent_seats(opponents, players: int, seat: int) -> list:
    """The bot at each seat (``None`` at ``seat``), from one bot, ``players - 1`` bots, or ``"roster"``.

    ``"roster"`` seats the shipped bots other than ``random`` (there are 7: one per other seat of set4).
    """
    if isinstance(opponents, str) and opponents == "roster":
        opponents = [name for name in bot_names() if name != "random"]
        opponents = (opponents * players)[:players - 1]
    elif isinstance(opponents, str) or not hasattr(opponents, "__len__"):
        opponents = [opponents] * (players - 1)
    opponents = list(opponents)
    if len(opponents) != players - 1:
        raise UsageError(f"expected one bot or {players - 1} (one per other seat), got {len(opponents)}",
                         "opponents")
    if any(bot is None for bot in opponents):  # None is a seat played from outside: one learning seat only
        raise UsageError("None is not a bot (allowed: a bot's name or path, or a loaded Bot; for several seats "
                         "played from outside, autodup.env.env or parallel_env)", "opponents")
    return opponents[:seat] + [None] + opponents[seat:]


def scripted_bots(seat_bots: list) -> list:
    """``seat_bots`` (one Bot or None per seat), refusing a Python agent: the table plays the other seats in
    compiled code, which only a scripted bot's policy runs (an agent's is a placeholder that ends every turn)."""
    for seat, bot in enumerate(seat_bots):
        if bot is not None and bot.agent is not None:
            raise UsageError(f"seat {seat}: {bot.path} is a Python agent, which cannot play the other seats here "
                             "(allowed: scripted bots; agents play each other in autodup.env.env or parallel_env, "
                             "or in autodup run)", "opponents")
    return seat_bots


def check_action(action, actions: int) -> int:
    """A numbered action as an int, or a one-line ``UsageError``: an int, a numpy integer, or a 0-d integer array
    (what a policy's ``predict`` returns for one observation, and what ``Discrete.contains`` accepts)."""
    index = numbered_action(action, actions)
    if index < 0:
        raise UsageError(f"{action!r} is not a numbered action (allowed: an integer from 0 to {actions - 1}; "
                         "autodup.game.observation)", "action")
    return index


class LearningSeat:
    """What a one-learning-seat environment is made of, its arguments checked (:class:`AutodupEnv`'s parameters)."""

    def __init__(self, config, opponents, seat, seed, reward, dealer):
        self.rules = rules_from(config)
        players = int(self.rules.players)
        self.seat = integer("seat", seat, 0, players - 1)
        self.reward_kind = check_reward(reward)
        self.seat_bots = scripted_bots(bots_from(opponent_seats(opponents, players, self.seat)))
        self.dealer = check_dealer(dealer)
        self.boards = BoardCounter(seed)


class AutodupEnv(LearningSeat, gymnasium.Env):
    """One learning seat at an autodup table, scripted bots at the others (registered as ``autodup/Set4-v0``).

    A step is one decision of the learning seat: a numbered action (:mod:`autodup.game.observation`; the
    observation's ``action_mask`` says which are legal; an illegal one is refused and the seat decides
    again). Between its decisions the table plays on in compiled code, the bots included. The episode ends
    (``terminated``) when the seat's placement is known; the reward is given then (see
    :mod:`autodup.env.spaces`), 0 before. Episodes are never truncated: a game has at most
    ``max_rounds`` rounds and a seat at most 64 actions a round.

    Parameters
    ----------
    config : str, Path, GameConfig or Rules
        The configuration: a shipped name (``"set4"``) or a YAML file's path.
    opponents : str or sequence of str
        The bots at the other seats: one name (at every other seat), one per other seat, or ``"roster"``
        (the shipped bots other than ``random``).
    seat : int
        The learning seat.
    seed : int
        The tournament seed of the first games; ``reset(seed=s)`` changes it (see :class:`BoardCounter`).
    reward : str
        ``"placement"`` or ``"top4"`` (:mod:`autodup.env.spaces`).
    dealer : str
        The draw engine (``haystack`` by default), as for ``autodup play``.

    Notes
    -----
    ``reset(seed=s)`` plays board 0 of tournament seed ``s``, each later ``reset()`` the next board, and
    ``reset(options={"board": k})`` board ``k``: the game ``autodup play`` deals for that seed and board. Two
    agents evaluated on the same seeds and boards meet the same shops, which is the point of duplicate play.
    ``info`` holds ``board``, ``seed``, after a step ``illegal_action`` (whether the table refused the action: the
    seat then decides again, in the same state) and ``cap_hit`` (whether the action was the turn's
    ``ACTION_CAP``-th, 64, after which the table ended the turn: the seat's next decision is in a later round),
    and, at the end, ``placement``.
    """

    metadata = {"render_modes": []}

    def __init__(self, config="set4", opponents=DEFAULT_OPPONENTS, seat: int = 0, seed: int = 0,
                 reward: str = "placement", dealer: str = "haystack"):
        super().__init__(config, opponents, seat, seed, reward, dealer)
        self.observation_space = observation_space(self.rules)
        self.action_space = action_space(self.rules)
        self.layout = action_layout(self.rules)  # the numbered actions (ActionLayout)
        self._answers = self.layout.answers
        self.tables = None  # the ResumableTables played, once reset
        self._answer = np.zeros(1, dtype=np.int64)
        self._acting = np.ones(1, dtype=np.bool_)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        seed, board = self.boards.next(seed, options)
        self.tables = tables_for(self.tables, self.rules, self.seat_bots, seed, board, 1, self.dealer)
        return observation_row(self.tables.observations, 0), {"seed": seed, "board": board}

    def step(self, action):
        tables = self.tables
        if tables is None:
            raise UsageError("call reset() before step()", "step")
        if tables.waiting[0] < 0:
            raise UsageError("the episode is over: call reset()", "step")
        index = check_action(action, self._answers.shape[0])
        # The mask is the table's own legality (its predicates): an action it leaves out is refused and counted.
        self._answer[0] = self._answers[index]
        illegal, cap_hit = judge_answers(tables.observations, index, self._answer)
        tables.step(self._acting, self._answer)
        info = {"seed": tables.seed, "board": int(tables.boards[0]), "illegal_action": bool(illegal[0]),
                "cap_hit": bool(cap_hit[0])}
        placement = int(tables.placements[0, self.seat])
        if placement:
            info["placement"] = placement
            reward = float(reward_of(self.reward_kind, placement, self.rules.players))
            return observation_row(tables.observations, 0), reward, True, False, info
        return observation_row(tables.observations, 0), 0.0, False, False, info

    def action_masks(self) -> np.ndarray:
        """bool (A,): the legal numbered actions now (the observation's ``action_mask``; sb3-contrib's name)."""
        if self.tables is None:  # before the first reset: the table the next reset plays
            self.tables = tables_for(None, self.rules, self.seat_bots, self.boards.seed, self.boards.next_board, 1,
                                     self.dealer)
        return self.tables.observations.action_mask[0].astype(bool)
