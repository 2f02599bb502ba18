"""random: uniformly random legal actions; the floor every other bot should beat."""

from autodup.bots import (GOLD, LEVEL, MAX_LEVEL, REROLL_PRICE, SHOP_SIZE, UNITS, XP_PRICE, buy, buy_xp, can_buy,
                          end_turn, policy, random_below, reroll, sell, uniform)

NAME = "random"
DESCRIPTION = "Random legal actions: ends its turn with probability end_chance, else any legal buy, sell, roll or XP."
PARAMETERS = {"end_chance": 0.25}


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    if uniform(me) < params[0]:
        return end_turn()
    buyable = 0
    for slot in range(me[SHOP_SIZE]):
        if can_buy(slot, me, shop, unit_champion, unit_star, champion_cost):
            buyable += 1
    can_roll = 1 if me[GOLD] >= me[REROLL_PRICE] else 0
    can_level = 1 if me[GOLD] >= me[XP_PRICE] and me[LEVEL] < me[MAX_LEVEL] else 0
    options = buyable + me[UNITS] + can_roll + can_level
    if options == 0:
        return end_turn()
    k = random_below(me, options)
    if k < buyable:
        for slot in range(me[SHOP_SIZE]):
            if can_buy(slot, me, shop, unit_champion, unit_star, champion_cost):
                if k == 0:
                    return buy(slot)
                k -= 1
    k -= buyable
    if k < me[UNITS]:
        return sell(k)
    k -= me[UNITS]
    if k < can_roll:
        return reroll()
    return buy_xp()
