"""The jitted game's rules: a :class:`Rules` named tuple of arrays compiled from a configuration, and the
table-wide settings (how shops are served, how events are addressed)."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ..engine.rng import (
    STREAM_COMBAT,
    STREAM_LOOT_BAG,
    STREAM_MATCHMAKING,
    STREAM_POLICY,
    STREAM_SERVING_ORDER,
    STREAM_TIEBREAK,
    check_game_layout,
)
from ..internal_kernels import internal_kernel
from .actions import ACTION_CAP
from .view import VIEW_MASK_BITS

__all__ = ["game_kernel", "game_inline", "whole_sums_kernel", "ORDER_EVENTS", "ORDER_RACE", "ORDERS",
           "EVENTS_BY_POSITION", "EVENTS_BY_SEAT", "EVENT_ADDRESSING", "DEFAULT_EVENTS", "STREAM_SERVING_ORDER_KEY",
           "STREAM_MATCHMAKING_KEY", "STREAM_COMBAT_KEY", "STREAM_TIEBREAK_KEY", "STREAM_LOOT_BAG_KEY",
           "STREAM_POLICY_KEY", "Rules", "stage_positions", "trait_members", "rules_of"]

# Helpers that allocate nothing run without the Numba runtime: the rules and
# the table travel as named tuples of arrays, and refcounting all of them on
# every call between helpers would cost more than the game (see kernels.py).
# no_cfunc_wrapper: numba otherwise compiles a C-callable wrapper of every
# function, needed only to pass it as a first-class function value, which
# autodup never does (bots are cfuncs of their own); without them a cold
# compile of the game is 6-9 s shorter (measured). Every njit of the package
# sets it.
game_kernel = njit(cache=True, no_cfunc_wrapper=True, _nrt=False)
# Out-of-line calls pass the two named tuples field by field on the stack
# (hundreds of words); small helpers called per slot or per action are
# inlined into their caller instead, and what runs once per seat runs in one
# call per round (the turns, the free refresh, the fights: a loop around one
# inlined copy). Inlining everything makes the game 3x slower (measured): the
# round start, the turns and the round's end stay separate.
game_inline = njit(cache=True, no_cfunc_wrapper=True, _nrt=False, inline="always")
# Sums of non-negative whole numbers held in float64 (copies in the pool, 0/1 ownership flags, trait counts):
# every partial sum is a whole number below 2**53 (the configuration's limits keep a tier's sums near 1e13), so
# any order of the additions gives the same bits, and the compiler may reorder them ("reassoc"), adding several
# at once (vectorized). "nsz" changes nothing either: no term is -0.0. Only such loops, out of line on plain
# arrays, carry the flags: anywhere else they could change results.
whole_sums_kernel = njit(cache=True, no_cfunc_wrapper=True, _nrt=False, fastmath={"reassoc", "nsz"})
# A kernel that only the game's compiled code calls (Python, tests included, goes through
# autodup.internal_kernels.python_entry): numba builds it no Python-callable wrapper, thousands of instructions
# for the two named tuples (autodup.internal_kernels).
game_internal = internal_kernel(_nrt=False)

# The dealer is an engine code (ENGINE_*); autodup.engine.dealers.DEALERS holds one record per dealer.

# How the simultaneous shop refreshes of a round are served. The events order is None, not a number: numba
# types a None argument as such and prunes the branches that test it, so a game of the events order is compiled
# without the race's code (3.8 s of a cold start's critical process); a race game is a version of its own.
ORDER_EVENTS = None  # a serving order of the seats drawn from the table's event stream
ORDER_RACE = 1       # slot by slot, a race across the seats' tier needles (equal totals)
ORDERS = {"events": ORDER_EVENTS, "race": ORDER_RACE}

# How a table's events (serving order, matchmaking, the combat coin) find their random numbers.
EVENTS_BY_POSITION = 0  # by position: the i-th swap of a shuffle, the coin of the p-th pair of the round
EVENTS_BY_SEAT = 1      # by who: a key per (round, seat) sorts the alive seats; each seat has a combat "form"
EVENT_ADDRESSING = {"position": EVENTS_BY_POSITION, "seat": EVENTS_BY_SEAT}
DEFAULT_EVENTS = "seat"


# Streams of the game's own randomness (autodup.engine.rng.DOMAINS owns every address).
STREAM_SERVING_ORDER_KEY = np.uint64(STREAM_SERVING_ORDER)
STREAM_MATCHMAKING_KEY = np.uint64(STREAM_MATCHMAKING)
STREAM_COMBAT_KEY = np.uint64(STREAM_COMBAT)
STREAM_TIEBREAK_KEY = np.uint64(STREAM_TIEBREAK)
STREAM_LOOT_BAG_KEY = np.uint64(STREAM_LOOT_BAG)
STREAM_POLICY_KEY = np.uint64(STREAM_POLICY)

Rules = namedtuple("Rules", [
    "players", "starting_hp", "starting_gold", "bench_size", "max_rounds", "shop_size", "reroll_price",
    "units_leave_pool", "empty_tier", "xp_price", "xp_amount", "xp_per_round", "max_level", "interest_per",
    "interest_max", "pvp_win_gold", "combat_scale", "damage_per_surviving_unit", "loot_per_pve_round",
    "tier_cost", "tier_start", "champion_tier", "champion_copies", "champion_traits", "trait_breakpoints",
    "trait_bonus", "level_xp", "level_board_size", "level_odds", "round_pve", "round_damage", "round_income",
    "streak_length", "streak_gold", "loot_gold", "loot_unit_tier", "star_power", "champion_cost",
    "round_stage", "n_stages", "round_in_stage", "stage_rounds", "trait_champions", "unit_power_rank",
])
# Rules fields computed here rather than read from the configuration.
_DERIVED_RULES = ("round_in_stage", "stage_rounds", "trait_champions", "unit_power_rank")


def stage_positions(round_stage):
    """Each round's place in its stage, from the stage of every round.

    Parameters
    ----------
    round_stage : int64 (R,)
        The stage of every round (from 0), as :class:`~autodup.game.config.GameConfig` holds it.

    Returns
    -------
    round_in_stage : int64 (R,)
        The round's number within its stage, from 1.
    stage_rounds : int64 (R,)
        Rounds in the round's stage (a stage that ``R`` cuts short counts only its rounds before ``R``).
    """
    round_stage = np.asarray(round_stage)
    round_in_stage = np.zeros(round_stage.shape[0], dtype=np.int64)
    stage_rounds = np.zeros(round_stage.shape[0], dtype=np.int64)
    start = 0
    for end in range(1, round_stage.shape[0] + 1):
        if end == round_stage.shape[0] or round_stage[end] != round_stage[start]:
            round_in_stage[start:end] = np.arange(1, end - start + 1)
            stage_rounds[start:end] = end - start
            start = end
    return round_in_stage, stage_rounds


def trait_members(champion_traits, n_traits):
    """The champions with each trait, from each champion's traits.

    Parameters
    ----------
    champion_traits : int64 (N, M)
        Each champion's traits, -1 after its last.
    n_traits : int

    Returns
    -------
    int64 (n_traits, L)
        Row ``k``: the champions with trait ``k`` in increasing order (one entry per occurrence of ``k`` in a
        champion's row), -1 after the last; ``L`` is the largest count.
    """
    champion_traits = np.asarray(champion_traits)
    members = [[c for c in range(champion_traits.shape[0]) for m in range(champion_traits.shape[1])
                if champion_traits[c, m] == k] for k in range(n_traits)]
    out = np.full((n_traits, max((len(row) for row in members), default=0)), -1, dtype=np.int64)
    for k, row in enumerate(members):
        out[k, :len(row)] = row
    return out


def power_ranks(tier_cost, star_power):
    """The rank of each unit's power among the powers units can have, the strongest 0: what orders a board.

    Parameters
    ----------
    tier_cost : int64 (T,)
    star_power : float64 (S,)

    Returns
    -------
    int64 (T, S)
        Entry ``[t, s - 1]`` ranks the power of a unit of tier ``t`` and star
        ``s``, ``tier_cost[t] * star_power[s - 1]`` as the game computes it
        (:func:`autodup.game.shop.unit_power`), among the distinct values of
        that product: equal powers share a rank.
    """
    powers = np.asarray(tier_cost)[:, None] * np.asarray(star_power, dtype=np.float64)[None, :]
    strongest_first = -np.unique(powers)[::-1]
    return np.searchsorted(strongest_first, -powers).astype(np.int64)


def rules_of(config) -> Rules:
    """The jitted game's view of a :class:`~autodup.game.config.GameConfig`.

    Raises
    ------
    autodup.errors.ConfigError
        The game's sizes would make two random-number addresses meet (see
        :func:`autodup.engine.rng.check_game_layout`).
    """
    from ..errors import ConfigError

    try:
        check_game_layout(config.max_rounds, config.players, config.shop_size, ACTION_CAP + 1)
    except ValueError as error:
        raise ConfigError(config.source, 0, "", str(error)) from None
    if config.shop_size > VIEW_MASK_BITS:  # the configuration allows 20; the view's buy mask holds 63
        raise ConfigError(config.source, 0, "shop.size",
                          f"{config.shop_size} slots (allowed: at most {VIEW_MASK_BITS})")
    round_in_stage, stage_rounds = stage_positions(config.round_stage)
    return Rules(**{name: getattr(config, name) for name in Rules._fields if name not in _DERIVED_RULES},
                 round_in_stage=round_in_stage, stage_rounds=stage_rounds,
                 trait_champions=trait_members(config.champion_traits, config.trait_breakpoints.shape[0]),
                 unit_power_rank=power_ranks(config.tier_cost, config.star_power))
