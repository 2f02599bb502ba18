"""greedy: the plain player. Strongest affordable units (pairs first), five rounds behind the standard curve."""

from autodup.bots import CAPACITY, GOLD, LEVEL, REROLL_PRICE, ROUND, SHOP_SIZE, UNITS, XP_PRICE, buy_best, buy_xp, can_buy_xp, can_reroll, curve_level, end_turn, interest_gold, policy, reroll, sell, unit_value, weakest_unit

NAME = "greedy"
DESCRIPTION = "Buys the strongest units it can afford (pairs first), levels a little behind the curve, rolls when rich."
PARAMETERS = {"roll_above": 50.0}  # gold kept when rolling


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    gold, round_index = me[GOLD], me[ROUND]
    reserve = min(interest_gold(me), 10 * (round_index // 6)) if round_index > 8 else 0
    # Five rounds behind the standard curve, gold to units first: on Set 4 one level every five rounds, as before.
    if me[LEVEL] < curve_level(me, 5) and gold - me[XP_PRICE] >= reserve // 2 and can_buy_xp(me):
        return buy_xp()
    choice = buy_best(me, shop, unit_champion, unit_star, champion_cost, gold - reserve)
    if choice != 0:
        return choice
    if me[UNITS] >= me[CAPACITY] and me[UNITS] > 0:
        # A full bench makes room for a stronger unit it can afford.
        weakest = weakest_unit(me, unit_champion, unit_star, champion_cost, -1)
        value = unit_value(unit_champion[weakest], unit_star[weakest], champion_cost)
        for slot in range(me[SHOP_SIZE]):
            if shop[slot] >= 0 and value < champion_cost[shop[slot]] <= gold:
                return sell(weakest)
    if gold >= params[0] + me[REROLL_PRICE] and can_reroll(me):
        return reroll()
    return end_turn()
