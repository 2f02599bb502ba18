"""random: uniformly random legal actions; the floor every other bot should beat."""

from autodup.bots import SHOP_SIZE, UNITS, buy, buy_xp, can_buy, can_buy_xp, can_reroll, end_turn, policy, random_below, reroll, sell, uniform

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
        if can_buy(slot, me):
            buyable += 1
    can_roll = 1 if can_reroll(me) else 0
    can_level = 1 if can_buy_xp(me) else 0
    options = buyable + me[UNITS] + can_roll + can_level
    if options == 0:
        return end_turn()
    k = random_below(me, options)
    if k < buyable:
        for slot in range(me[SHOP_SIZE]):
            if can_buy(slot, me):
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
