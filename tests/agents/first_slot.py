"""Python agents for the tests: first_slot plays as tests/bots/first_slot.py does; the others misbehave."""

import numpy as np

from autodup.game.view import VIEW_NAMES

RANDOM_A = VIEW_NAMES.index("random_a")
CAN_REROLL = VIEW_NAMES.index("can_reroll")
BUY_SLOT_0, REROLL = 1, None  # numbered actions: 1 buys slot 0; the reroll's number depends on the configuration


def reroll_number(observation) -> int:
    """The numbered action of a reroll: after end, the shop's slots and the unit places."""
    return 1 + observation["shop"].shape[0] + observation["unit_champion"].shape[0]


class FirstSlot:
    """Buys slot 0 when it can, rerolls on a quarter of its random numbers, else ends its turn (one at a time)."""

    NAME = "first_slot"

    def act(self, observation, action_mask):
        if action_mask[BUY_SLOT_0]:
            return BUY_SLOT_0
        me = observation["me"]
        if me[RANDOM_A] % 4 == 0 and me[CAN_REROLL]:
            return reroll_number(observation)
        return 0


class FirstSlotBatched(FirstSlot):
    """The same, asked for many tables at once."""

    def act_batch(self, observations, action_masks):
        me = observations["me"]
        rerolls = (me[:, RANDOM_A] % 4 == 0) & (me[:, CAN_REROLL] == 1)
        chosen = np.where(rerolls, reroll_number({k: v[0] for k, v in observations.items()}), 0)
        return np.where(action_masks[:, BUY_SLOT_0] == 1, BUY_SLOT_0, chosen)


class FirstSlotArray(FirstSlot):
    """The same, each answer a 0-d integer array (what a policy's ``predict`` returns for one observation)."""

    def act(self, observation, action_mask):
        return np.array(super().act(observation, action_mask))


class Raises:
    """Raises on every decision."""

    def act(self, observation, action_mask):
        raise RuntimeError("agent trouble")


class Nonsense:
    """Answers with something that is not a numbered action."""

    def act(self, observation, action_mask):
        return "buy"


class Enormous:
    """Answers with an int far beyond int64: not a numbered action, as "buy" is not."""

    def act(self, observation, action_mask):
        return 10**30


class Lucky:
    """Picks a legal action at random from its generator (the seed tree's)."""

    def act(self, observation, action_mask, generator):
        return int(generator.choice(np.flatnonzero(action_mask)))
