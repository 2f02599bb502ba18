"""econ: the interest player. Keeps 50 gold, levels on time, rolls down once at a fixed stage."""

from autodup.bots import ACTIONS, BOARD_SIZE, GOLD, LEVEL, REROLL_PRICE, ROLLS, SHOP_SIZE, STAGE, UNITS, buy, buy_best, buy_xp, can_buy, can_buy_xp, can_reroll, copies_owned, curve_level, end_turn, interest_gold, policy, reroll, room_for

NAME = "econ"
DESCRIPTION = "Holds max interest, levels on time, buys pairs and board fillers, rolls down once at stage 4."
PARAMETERS = {"roll_stage": 4.0}

ROLLED_DOWN = 0  # memory word: 1 once the roll-down is over


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    gold = me[GOLD]
    keep = interest_gold(me)
    if me[ACTIONS] >= 40 or me[ROLLS] >= 20:  # the rest of a roll-down waits for next round (cap: 64 actions)
        if me[STAGE] >= params[0] and memory[ROLLED_DOWN] == 0 and not can_reroll(me):
            memory[ROLLED_DOWN] = 1
        return end_turn()
    if me[LEVEL] < curve_level(me) and can_buy_xp(me):
        return buy_xp()
    if me[STAGE] >= params[0] and memory[ROLLED_DOWN] == 0:
        # The roll-down: spend everything on the strongest board, once.
        choice = buy_best(me, shop, unit_champion, unit_star, champion_cost, gold)
        if choice != 0:
            return choice
        for slot in range(me[SHOP_SIZE]):
            if shop[slot] >= 0 and champion_cost[shop[slot]] <= gold:
                answer = room_for(shop[slot], me, shop, unit_champion, unit_star, champion_cost, -1)
                if answer != 0:
                    return answer
        if not can_reroll(me):
            memory[ROLLED_DOWN] = 1
            return end_turn()
        return reroll()
    # Pairs are always worth it; otherwise only fill the board, and only above the interest line.
    for slot in range(me[SHOP_SIZE]):
        if can_buy(slot, me):
            champion = shop[slot]
            if copies_owned(champion, me, unit_champion, unit_star) > 0 and gold - champion_cost[champion] >= keep // 2:
                return buy(slot)
            if me[UNITS] < me[BOARD_SIZE] and gold - champion_cost[champion] >= min(keep, 2 * me[STAGE] * 5):
                return buy(slot)
    if gold >= keep + me[REROLL_PRICE] + 10:
        choice = buy_best(me, shop, unit_champion, unit_star, champion_cost, gold - keep)
        if choice != 0:
            return choice
        if can_reroll(me):
            return reroll()
    return end_turn()
