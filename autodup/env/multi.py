"""PettingZoo environments: every seat of an autodup table an agent (AEC and Parallel).

The game is sequential: one seat decides at a time (a round's turns are played in order, the pool shared), so
the AEC environment is its natural form: ``agent_selection`` is the seat that must decide. The Parallel form
asks every live agent for an action at each step and applies the deciding seat's; the others' observations
carry a *wait* mask, which allows only action 0, and their actions are ignored.

Agents are ``"seat_0"`` ... ``"seat_7"``. An agent is terminated, with its reward (:mod:`autodup.env.spaces`),
at the step where its placement becomes known: when it is knocked out, or when the game ends. After each action,
the deciding agent's info says, as the Gymnasium environments' do, ``illegal_action`` (the table refused it: the
agent decides again) and ``cap_hit`` (it was the turn's 64th action, after which the table ended the turn).
"""

from __future__ import annotations

import functools

import numpy as np
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers

from ..errors import UsageError
from ..game.observation import OBSERVATION_KEYS, judge_answers, observation_row
from ..game.resumable import rules_from
from .single import check_action
from .spaces import BoardCounter, action_space, check_dealer, check_reward, observation_space, reward_of, tables_for

__all__ = ["env", "raw_env", "parallel_env", "AutodupAECEnv", "AutodupParallelEnv"]


class _Table:
    """One table of outside seats, its seat names, and what each step newly settled (placements)."""

    def __init__(self, config, seed, reward, dealer):
        self.rules = rules_from(config)
        self.players = int(self.rules.players)
        self.reward_kind = check_reward(reward)
        self.dealer = check_dealer(dealer)
        self.boards = BoardCounter(seed)
        self.names = [f"seat_{seat}" for seat in range(self.players)]
        self.tables = None
        self.observation_space = observation_space(self.rules)
        self.action_space = action_space(self.rules)
        self._acting = np.ones(1, dtype=np.bool_)
        self._answer = np.zeros(1, dtype=np.int64)

    def reset(self, seed, options) -> tuple[int, int]:
        seed, board = self.boards.next(seed, options)
        self.tables = tables_for(self.tables, self.rules, [None] * self.players, seed, board, 1, self.dealer)
        self.wait_mask = np.zeros(len(self.tables.layout.names), dtype=np.int8)
        self.wait_mask[0] = 1
        self._desk_cache = None
        return seed, board

    @property
    def waiting(self) -> int:
        return int(self.tables.waiting[0])

    def act(self, action) -> dict:
        """Apply the deciding seat's numbered ``action``; returns what its info says of it: ``illegal_action``
        (refused by the table: the seat decides again) and ``cap_hit`` (its turn's 64th action, after which the
        table ended the turn), as the Gymnasium environments say them."""
        index = check_action(action, len(self.tables.layout.names))
        self._answer[0] = self.tables.layout.answers[index]
        illegal, cap_hit = judge_answers(self.tables.observations, index, self._answer)
        self.tables.step(self._acting, self._answer)
        self._desk_cache = None
        return {"illegal_action": bool(illegal[0]), "cap_hit": bool(cap_hit[0])}

    def observe(self, seat: int) -> dict:
        """What ``seat`` sees: the table's observation if it decides now, else its last view with the wait mask."""
        if seat == self.waiting:
            return observation_row(self.tables.observations, 0)
        game_desk = self._desk()
        arrays = (game_desk.me[seat], game_desk.shop[seat], game_desk.unit_champion[seat], game_desk.unit_star[seat],
                  game_desk.pool[seat], self.wait_mask)
        return {key: array.copy() for key, array in zip(OBSERVATION_KEYS, arrays)}

    def _desk(self):
        # Taking a desk out of the table boxes every array it holds: once per step, not once per seat.
        if self._desk_cache is None:
            self._desk_cache = self.tables.desk(0)
        return self._desk_cache

    def placement(self, seat: int) -> int:
        return int(self.tables.placements[0, seat])

    def reward(self, placement: int) -> float:
        return float(reward_of(self.reward_kind, placement, self.players))


def _check_not_over(agents: list, call: str) -> None:
    """A one-line ``UsageError`` for a call made once every seat is out (the Gymnasium environment's words), not
    a ``KeyError`` from the seat that decided last."""
    if not agents:
        raise UsageError("the episode is over: call reset()", call)


class _SeatsAsAgents:
    """The agents and spaces both PettingZoo environments share: one per seat, every seat's spaces alike."""

    def __init__(self, config, seed, reward, dealer):
        self._table = _Table(config, seed, reward, dealer)
        self.possible_agents = list(self._table.names)
        self.agents = []

    @functools.lru_cache(maxsize=None)
    def observation_space(self, agent):
        return self._table.observation_space

    @functools.lru_cache(maxsize=None)
    def action_space(self, agent):
        return self._table.action_space


class AutodupAECEnv(_SeatsAsAgents, AECEnv):
    """Every seat of an autodup table an agent, one decision at a time (PettingZoo AEC).

    Parameters
    ----------
    config : str, Path, GameConfig or Rules
        The configuration (a shipped name or a YAML file's path).
    seed : int
        The tournament seed; ``reset(seed=s)`` plays board 0 of seed ``s``, each later ``reset()`` the next
        board, ``reset(options={"board": k})`` board ``k`` (:class:`~autodup.env.spaces.BoardCounter`).
    reward : str
        ``"placement"`` or ``"top4"``.
    dealer : str
        The draw engine (``haystack`` by default).
    """

    metadata = {"name": "autodup_v0", "render_modes": [], "is_parallelizable": False}

    def __init__(self, config="set4", seed: int = 0, reward: str = "placement", dealer: str = "haystack"):
        AECEnv.__init__(self)
        _SeatsAsAgents.__init__(self, config, seed, reward, dealer)

    def reset(self, seed=None, options=None):
        seed, board = self._table.reset(seed, options)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {"seed": seed, "board": board} for agent in self.agents}
        self.agent_selection = self.possible_agents[self._table.waiting]
        self._skip_agent_selection = None

    def observe(self, agent):
        return self._table.observe(self.possible_agents.index(agent))

    def last(self, observe: bool = True):
        _check_not_over(self.agents, "last")
        return super().last(observe)

    def step(self, action):
        _check_not_over(self.agents, "step")
        if self.terminations[self.agent_selection] or self.truncations[self.agent_selection]:
            self._was_dead_step(action)
            return
        if action is None:
            raise UsageError(f"{self.agent_selection} must decide: None is only for an agent that is done", "action")
        self._cumulative_rewards[self.agent_selection] = 0.0
        self._clear_rewards()
        acting = self.agent_selection
        self.infos[acting] = dict(self.infos[acting], **self._table.act(action))
        for agent in self.agents:
            placement = self._table.placement(self.possible_agents.index(agent))
            if placement and not self.terminations[agent]:
                self.terminations[agent] = True
                self.rewards[agent] = self._table.reward(placement)
                self.infos[agent] = dict(self.infos[agent], placement=placement)
        waiting = self._table.waiting
        if waiting >= 0:
            self.agent_selection = self.possible_agents[waiting]
        self._accumulate_rewards()
        self._deads_step_first()


class AutodupParallelEnv(_SeatsAsAgents, ParallelEnv):
    """Every seat of an autodup table an agent, all asked at each step (PettingZoo Parallel).

    Only the seat that must decide is heard: the others' observations allow only action 0 and their actions
    are ignored (the game is sequential; see the module). Parameters are those of :class:`AutodupAECEnv`.
    """

    metadata = {"name": "autodup_parallel_v0", "render_modes": []}

    def __init__(self, config="set4", seed: int = 0, reward: str = "placement", dealer: str = "haystack"):
        _SeatsAsAgents.__init__(self, config, seed, reward, dealer)

    def _observations(self) -> dict:
        return {agent: self._table.observe(self.possible_agents.index(agent)) for agent in self.agents}

    def reset(self, seed=None, options=None):
        seed, board = self._table.reset(seed, options)
        self.agents = list(self.possible_agents)
        return self._observations(), {agent: {"seed": seed, "board": board} for agent in self.agents}

    def step(self, actions):
        _check_not_over(self.agents, "step")
        if not isinstance(actions, dict):
            raise UsageError(f"expected a dict of each live agent's action ({self.agents[0]!r}: ...), got "
                             f"{type(actions).__name__}", "actions")
        deciding = self.possible_agents[self._table.waiting]
        if deciding not in actions:
            raise UsageError(f"{deciding} must decide: give it an action (the others' are ignored)", "actions")
        said = self._table.act(actions[deciding])
        rewards, terminations, infos = {}, {}, {}
        for agent in self.agents:
            placement = self._table.placement(self.possible_agents.index(agent))
            rewards[agent] = self._table.reward(placement) if placement else 0.0
            terminations[agent] = placement > 0
            infos[agent] = {"placement": placement} if placement else {}
        infos[deciding].update(said)
        observations = self._observations()
        truncations = dict.fromkeys(self.agents, False)
        self.agents = [agent for agent in self.agents if not terminations[agent]]
        return observations, rewards, terminations, truncations, infos


def raw_env(config="set4", seed: int = 0, reward: str = "placement", dealer: str = "haystack") -> AutodupAECEnv:
    """The AEC environment without PettingZoo's wrappers."""
    return AutodupAECEnv(config=config, seed=seed, reward=reward, dealer=dealer)


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order-enforcing wrapper, which refuses a step or ``last()`` once every seat is out as the
    unwrapped environment does (PettingZoo's own only warns of the step, then ``last()`` raised a KeyError)."""

    def step(self, action) -> None:
        if self._has_reset:
            _check_not_over(self.agents, "step")
        super().step(action)

    def last(self, observe: bool = True):
        if self._has_reset:
            _check_not_over(self.agents, "last")
        return super().last(observe)


def env(config="set4", seed: int = 0, reward: str = "placement", dealer: str = "haystack"):
    """The AEC environment, wrapped as PettingZoo's own environments are (the order of calls enforced: reset
    first, and no step or ``last()`` once the episode is over). Actions are checked by the environment itself."""
    return _OrderEnforcing(raw_env(config=config, seed=seed, reward=reward, dealer=dealer))


def parallel_env(config="set4", seed: int = 0, reward: str = "placement", dealer: str = "haystack"):
    """The Parallel environment."""
    return AutodupParallelEnv(config=config, seed=seed, reward=reward, dealer=dealer)
