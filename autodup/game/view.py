"""The seat's view: the one declaration of what a bot sees (``VIEW``) and the policy's signature."""

from __future__ import annotations

import warnings

from numba import types
from numba.core.errors import NumbaExperimentalFeatureWarning

__all__ = ["VIEW", "declare_indices", "VIEW_NAMES", "VIEW_FIELDS", "VIEW_MASK_BITS", "MAX_PLAYERS", "MEMORY_SIZE",
           "MAX_PARAMETERS", "POLICY_SIGNATURE"]

# A policy is a compiled C callback (a numba ``cfunc`` of POLICY_SIGNATURE,
# see autodup.bots) called once per decision inside the table; a table takes
# one per seat, so bots compile once each and the table once for all bots.
# It returns ``encode_decision(action, argument)``: an *answer*, which carries
# ANSWER_TAG so that a number that is not an answer (``return 2``, a float
# cast to an integer, a boolean) is told apart from one. 0 means the policy
# raised (a cfunc that raises returns 0), any other value without the tag is a
# bad answer; either way the turn ends and the seat's ``bot_errors`` or
# ``bad_answers`` count goes up.
#
# The seat's view ``me`` (int64 (VIEW_FIELDS,)), rebuilt before each decision: one entry per field, in
# this order. This table is the view's only declaration: VIEW_NAMES, VIEW_FIELDS and the index constants
# below, and the names bots use (autodup.bots: me[GOLD], ...), all derive from it.
VIEW = (
    ("gold", "gold held"),
    ("level", "level, from 1"),
    ("xp", "XP towards the next level"),
    ("xp_to_level", "XP still needed for the next level (0 at the max level)"),
    ("hp", "hit points"),
    ("streak", "win streak (> 0) or loss streak (< 0)"),
    ("round", "round, from 0"),
    ("stage", "stage, from 1 (numbered as in TFT: 2-1 is the first round of stage 2)"),
    ("round_in_stage", "round within the stage, from 1"),
    ("stage_rounds", "rounds in this stage (fewer if max_rounds ends the game inside it)"),
    ("stages", "stages the configuration lists (the last one repeats until the game ends)"),
    ("pve_round", "1 in a PvE round"),
    ("alive_players", "seats still playing"),
    ("units", "units held: the first me[UNITS] entries of unit_champion and unit_star"),
    ("board_size", "units the level puts on the board"),
    ("capacity", "units the seat may hold: bench plus board"),
    ("loaded_used", "1 once this round's loaded roll is spent"),
    ("locked", "1 while the shop is locked"),
    ("actions", "actions taken this turn"),
    ("rolls", "shops rerolled this turn (loaded rolls included)"),
    ("seat", "the seat, from 0"),
    ("players", "seats at the table"),
    ("shop_size", "shop slots"),
    ("max_level", "the highest level"),
    ("reroll_price", "gold for a reroll"),
    ("xp_price", "gold for one purchase of XP"),
    ("xp_amount", "XP per purchase"),
    ("interest_per", "gold held per gold of interest"),
    ("interest_max", "the most interest a round pays"),
    # What is legal now, by the predicates apply_action itself uses (legal_*): a bot reads legality here
    # instead of restating the rules, so a rule change cannot make it play illegal actions.
    ("buyable", "bit s is set when buying shop slot s is legal (legal_buy)"),
    ("can_reroll", "1 when a reroll is legal (legal_reroll)"),
    ("can_buy_xp", "1 when buying XP is legal (legal_buy_xp)"),
    ("can_loaded_roll", "1 when a loaded roll of any trait is legal (legal_loaded_roll)"),
    ("random_a", "a 53-bit random integer, fresh for every decision (the seat's policy stream)"),
    ("random_b", "a second one, independent of random_a"),
)


def declare_indices(prefix: str, declaration, namespace: dict) -> tuple:
    """The names of a declaration (``(name, meaning)`` pairs); defines ``PREFIX_NAME = index`` for each.

    numba reads module globals when it compiles a function, so ``me[VIEW_GOLD]``
    compiles to a constant index, exactly as a literal would.
    """
    names = tuple(name for name, _ in declaration)
    namespace.update({f"{prefix}_{name.upper()}": index for index, name in enumerate(names)})
    return names


VIEW_NAMES = declare_indices("VIEW", VIEW, globals())  # VIEW_GOLD = 0, VIEW_LEVEL = 1, ...
VIEW_FIELDS = len(VIEW)
# A sell of unit u is legal for every unit held (u < me[UNITS], legal_sell); ending the turn and toggling
# the lock always are. Buyable slots travel as one int64 bitmask: the configuration allows at most 20 slots.
VIEW_MASK_BITS = 63

MAX_PLAYERS = 8        # policies travel as a tuple of this length (extra entries are never called)
MEMORY_SIZE = 32       # int64 words a policy may keep per seat for a game (zero at the start)
MAX_PARAMETERS = 16    # float64 parameters per seat

# Policies are numba first-class functions, still labelled experimental; the
# table relies only on calling them, which is covered by the tests.
warnings.filterwarnings("ignore", category=NumbaExperimentalFeatureWarning,
                        message="First-class function type feature is experimental")

# Every array but ``memory`` is read-only: a policy is handed the table's own shop, units and pool and the
# rules' arrays, without a copy (copying them before every decision was 7% of a game), and a policy
# that writes into one does not compile (autodup.game.policy_compiling.explain_compile_error says so in one line).
_INT = types.int64
_READ_INT = types.Array(_INT, 1, "C", readonly=True)
_READ_INT_2D = types.Array(_INT, 2, "C", readonly=True)
_READ_FLOAT = types.Array(types.float64, 1, "C", readonly=True)
POLICY_SIGNATURE = _INT(
    _READ_INT,                # me: the view above
    _READ_INT,                # shop: champion per slot, -1 if empty
    _READ_INT,                # unit_champion: the seat's units (the first me[VIEW_UNITS] are valid)
    _READ_INT,                # unit_star: 1, 2 or 3
    _READ_FLOAT,              # pool: copies of each champion left in the shared pool
    _READ_INT,                # champion_cost: gold cost of each champion
    _READ_INT_2D,             # champion_traits: trait ids of each champion, padded with -1
    _READ_INT_2D,             # trait_breakpoints: units needed for each level of each trait
    _READ_FLOAT,              # params: the bot's parameters, in declaration order
    _INT[::1],                # memory: MEMORY_SIZE words kept for the game
)
