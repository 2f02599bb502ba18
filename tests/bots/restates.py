"""restates: buys by restating the buy rule (gold, and room or a pair) instead of reading it from its view.

Legal under the rules it restates, illegal as soon as a variant changes them (shown units that stay in
the pool: a buy also needs a copy left there). The bot check's rule variants must catch it.
"""

from autodup.bots import CAPACITY, GOLD, SHOP_SIZE, UNITS, buy, completes_a_combine, end_turn, policy

NAME = "restates"
DESCRIPTION = "Buys whatever its own copy of the buy rule allows (gold, room or a pair), then ends its turn."
PARAMETERS = {}


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    for slot in range(me[SHOP_SIZE]):
        champion = shop[slot]
        if champion >= 0 and champion_cost[champion] <= me[GOLD] and (
                me[UNITS] < me[CAPACITY] or completes_a_combine(champion, me, unit_champion, unit_star)):
            return buy(slot)
    return end_turn()
