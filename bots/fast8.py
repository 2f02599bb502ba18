"""fast8: a level ahead of the standard curve up to 8, then rolls for 4- and 5-cost units."""

from autodup.bots import BOARD_SIZE, GOLD, LEVEL, MAX_LEVEL, REROLL_PRICE, ROUND, SHOP_SIZE, UNITS, XP_PRICE, buy, buy_xp, can_buy, can_buy_xp, can_reroll, copies_owned, curve_level, end_turn, policy, reroll, room_for

NAME = "fast8"
DESCRIPTION = "Stays a level ahead of the curve up to 8 with a cheap board, then rolls for 4- and 5-costs."
PARAMETERS = {"target_level": 8.0, "keep": 10.0}


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    gold = me[GOLD]
    target = min(int(params[0]), me[MAX_LEVEL])
    keep = params[1] if me[ROUND] > 8 else 0.0
    if me[LEVEL] < target:
        if me[LEVEL] < curve_level(me) + 1 and gold - me[XP_PRICE] >= keep and can_buy_xp(me):
            return buy_xp()
        # Between levels: pairs, and enough cheap units for the board.
        for slot in range(me[SHOP_SIZE]):
            if can_buy(slot, me):
                champion = shop[slot]
                if copies_owned(champion, me, unit_champion, unit_star) > 0 or me[UNITS] < me[BOARD_SIZE]:
                    if gold - champion_cost[champion] >= keep:
                        return buy(slot)
        return end_turn()
    # At the target level: the expensive units, their pairs, and room for them.
    for slot in range(me[SHOP_SIZE]):
        champion = shop[slot]
        if champion < 0:
            continue
        wanted = champion_cost[champion] >= 4 or copies_owned(champion, me, unit_champion, unit_star) > 0
        if wanted and can_buy(slot, me):
            return buy(slot)
        if wanted and champion_cost[champion] <= gold:
            answer = room_for(champion, me, shop, unit_champion, unit_star, champion_cost, 4)
            if answer != 0:
                return answer
    if gold >= me[REROLL_PRICE] + keep and can_reroll(me):
        return reroll()
    return end_turn()
