"""writes_into_its_shop: marks the slot it buys in its shop, through a helper."""

from autodup.bots import buy, end_turn, helper, policy

NAME = "writes_into_its_shop"
DESCRIPTION = "Marks the slot it buys in its shop."


@helper
def mark(shop, slot):
    shop[slot] = -1


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    if shop[0] >= 0:
        mark(shop, 0)
        return buy(0)
    return end_turn()
