"""What a table counts of each seat (``STATS``) and the luck terms of its chance events (``LUCK``)."""

from __future__ import annotations

from .view import declare_indices

__all__ = ["STATS", "STAT_NAMES", "FINAL_STATE_COLUMNS", "RESULT_COLUMNS", "MISBEHAVIOUR_COLUMNS", "LUCK",
           "LUCK_NAMES", "LUCK_SOURCES", "STAGE_BUCKETS", "VALUE_SCALE"]

# What a table counts of each seat as it plays (``table.stats[seat, STAT_*]``), declared once: the
# STAT_* indices and the result columns after the seat's final state derive from this list.
STATS = (
    ("gold_spent", "gold spent on units, rerolls and XP"),
    ("rolls", "rerolls paid for"),
    ("units_bought", "units bought from the shop"),
    ("shops_seen", "shops dealt to the seat: free refreshes, rerolls and loaded rolls"),
    ("rounds_alive", "rounds the seat played"),
    ("illegal_actions", "actions the table refused"),
    ("cap_hits", "turns ended by the action cap"),
    ("bot_errors", "decisions that raised (or returned 0)"),
    ("bad_answers", "decisions that returned something that is not an answer"),
)
STAT_NAMES = declare_indices("STAT", STATS, globals())
# The seat's final state, then its stats: one row of play_table's results per seat.
FINAL_STATE_COLUMNS = ("placement", "hp", "level", "gold")
RESULT_COLUMNS = FINAL_STATE_COLUMNS + STAT_NAMES
# What a bot did wrong, per seat: the columns the summary and the warnings report.
MISBEHAVIOUR_COLUMNS = ("illegal_actions", "cap_hits", "bot_errors", "bad_answers")

# Luck terms: what each seat's chance events gave it beyond what they were expected to give, summed over
# its game (``table.luck[seat, LUCK_*]``). Each event adds f(outcome) - E[f | everything before it], the
# expectation under the game's own law, so every term has mean zero on a table that plays the game's
# probabilities, whatever the bots do (a sum of martingale increments). The functions f are fixed here,
# before any data is seen: a term fitted to the data it adjusts could make variance look smaller than it is.
# Signs: positive is good luck for the seat.
LUCK = (
    ("coin", "combat coins: won - P(win)"),
    ("coin_hp", "combat coins: E[HP lost] - HP lost"),
    ("coin_value", "combat coins: value after the fight - its expectation (value: see _value)"),
    ("coin_duel", "combat coins: value after the fight, the opponent's HP too - its expectation"),
    ("coin_onlooker", "other seats' combat coins: value after their fight - its expectation"),
    ("coin_gold", "combat coins: gold the outcome gives (win gold, next streak gold) - its expectation"),
    ("matchmaking", "opponents drawn: P(win) against the one drawn - its mean over the pairing's law"),
    ("matchmaking_hp", "opponents drawn: mean E[HP lost] over the law - E[HP lost] against the one drawn"),
    ("matchmaking_value", "opponents drawn: E[value after] against the one drawn - its mean over the law"),
    ("shop_hits", "shop slots: 1 if the seat owns the champion dealt, minus the chance of that"),
    ("shop_cost", "shop slots: the cost of the champion dealt (0 for none) minus its expectation"),
    ("shop_pairs", "shop slots: 1 if the champion dealt would complete a 2-star (the seat holds two 1-stars of it), "
                   "minus the chance of that"),
    ("shop_traits", "shop slots: the other champions the seat owns that share a trait with the champion dealt, "
                    "minus its expectation"),
    ("loot", "loot: the item's worth in gold minus the mean worth of the items left in the bag's cycle"),
    ("tiebreak", "ties for a place: the mean place of the tie minus the place given"),
    ("policy_random", "the policy's own random values: the first handed at each decision, as a uniform in [0, 1), "
                      "minus its mean"),
    ("policy_random_second", "the same for the second value handed at each decision"),
)
LUCK_NAMES = declare_indices("LUCK", LUCK, globals())
# The kinds of chance event, and the luck terms each adds: a value's correction is reported kind by kind.
LUCK_SOURCES = {
    "combat coin": ("coin", "coin_hp", "coin_value", "coin_duel", "coin_onlooker", "coin_gold"),
    "matchmaking": ("matchmaking", "matchmaking_hp", "matchmaking_value"),
    "shop slots": ("shop_hits", "shop_cost", "shop_pairs", "shop_traits"),
    "loot": ("loot",),
    "tie-breaks": ("tiebreak",),
    "policy random": ("policy_random", "policy_random_second"),
}
# A seat's luck terms are also kept stage by stage (TableLog.stage_luck): a value fitted on other boards weighs an
# early stage's luck differently from a late one's (autodup.game.value). Stages from the last bucket on share it.
STAGE_BUCKETS = 8
VALUE_SCALE = 0.25  # the value's HP scale, as a share of the starting HP (fixed in advance)
