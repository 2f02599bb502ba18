"""reads_a_threshold: a threshold its file reads, when it loads, from threshold.txt beside it (the tests copy it
to a folder of their own, with that file)."""

from pathlib import Path

from autodup.bots import GOLD, REROLL_PRICE, end_turn, policy, reroll

NAME = "threshold"
DESCRIPTION = "Rolls above a threshold its file reads, when it loads, from a file beside it."
PARAMETERS = {}
THRESHOLD = int(Path(__file__).with_name("threshold.txt").read_text())


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    if me[GOLD] >= THRESHOLD + me[REROLL_PRICE]:
        return reroll()
    return end_turn()
