"""Python agents: what ``autodup run --bots module:Class`` and :func:`autodup.evaluate` seat, and two to start from.

An agent is an object with ``act(observation, action_mask[, generator]) -> numbered action`` and, optionally,
``act_batch(observations, action_masks[, generators])``; see :mod:`autodup.game.agents` for the whole contract
(observations, generators from the seed tree, determinism, errors) and :mod:`autodup.game.observation` for the
numbered actions. The environments of :mod:`autodup.env` give the same observations, so an agent trained there
plays a duplicate tournament as it is.

Examples
--------
``autodup run --bots autodup.agents:RandomAgent,greedy,econ`` seats the random agent against two bots.
"""

from __future__ import annotations

import numpy as np

from .game.agents import AgentSeat, is_agent_spec, load_agent
from .game.observation import ActionLayout, action_layout

__all__ = ["RandomAgent", "EndTurnAgent", "AgentSeat", "is_agent_spec", "load_agent", "ActionLayout", "action_layout"]


class RandomAgent:
    """A uniformly random legal action at every decision, from the seat's generator."""

    NAME = "random_agent"

    def act(self, observation, action_mask, generator):
        return int(generator.choice(np.flatnonzero(action_mask)))

    def act_batch(self, observations, action_masks, generators):
        # One uniform key per legal action, the largest wins: a uniform choice among the legal ones.
        keys = np.stack([generator.random(action_masks.shape[1]) for generator in generators])
        keys[action_masks == 0] = -1.0
        return keys.argmax(axis=1)


class EndTurnAgent:
    """Ends its turn at once, every round: the cheapest agent there is (the benchmarks' trivial agent)."""

    NAME = "end_turn_agent"

    def act(self, observation, action_mask):
        return 0

    def act_batch(self, observations, action_masks):
        return np.zeros(action_masks.shape[0], dtype=np.int64)
