"""enum_traits: names a trait with an IntEnum of its own file, which it passes to the has_trait helper."""

import enum

from autodup.bots import SHOP_SIZE, buy, can_buy, end_turn, has_trait, policy

NAME = "enum_traits"
DESCRIPTION = "Buys the first unit it can that has its favourite trait (trait 0, named by an enum)."
PARAMETERS = {}


class Trait(enum.IntEnum):
    FAVOURITE = 0


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    for slot in range(me[SHOP_SIZE]):
        champion = shop[slot]
        if champion >= 0 and can_buy(slot, me) and has_trait(champion, Trait.FAVOURITE, champion_traits):
            return buy(slot)
    return end_turn()
