"""two_slots: assumes every shop has a second slot. Fine on the shipped configurations, an error with one slot."""

from autodup.bots import end_turn, policy

NAME = "two_slots"
DESCRIPTION = "Looks at the second shop slot every decision, then ends its turn (an index error with one slot)."
PARAMETERS = {}


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    if shop[1] >= 0:
        return end_turn()
    return end_turn()
