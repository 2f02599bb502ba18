"""traits: commits to the trait it holds most of, buys into it and loads its rolls on it."""

from autodup.bots import ACTIONS, GOLD, LEVEL, REROLL_PRICE, ROUND, SHOP_SIZE, buy, buy_best, buy_xp, can_buy, can_buy_xp, can_loaded_roll, can_reroll, copies_owned, curve_level, end_turn, has_trait, interest_gold, loaded_roll, policy, reroll, room_for, strongest_trait

NAME = "traits"
DESCRIPTION = "Commits to the trait with the most owned units: buys into it, loads a free roll on it every round."
PARAMETERS = {"roll_above": 30.0}

TRAIT = 0  # memory words: the committed trait + 1 (0: none yet), chosen at the start of each turn


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    gold = me[GOLD]
    if me[ACTIONS] == 0:  # counting traits is the costly part of a decision: once per turn is enough
        memory[TRAIT] = strongest_trait(me, unit_champion, champion_traits, trait_breakpoints.shape[0]) + 1
    trait = memory[TRAIT] - 1
    if me[LEVEL] < curve_level(me) and can_buy_xp(me):
        return buy_xp()
    # Pairs, then any champion of the trait.
    for slot in range(me[SHOP_SIZE]):
        champion = shop[slot]
        if champion < 0:
            continue
        fits = trait >= 0 and has_trait(champion, trait, champion_traits)
        if fits or copies_owned(champion, me, unit_champion, unit_star) > 0:
            if can_buy(slot, me):
                return buy(slot)
            if champion_cost[champion] <= gold:
                answer = room_for(champion, me, shop, unit_champion, unit_star, champion_cost, -1)
                if answer != 0:
                    return answer
    if me[ROUND] < 6:  # before a trait shows, play like greedy
        choice = buy_best(me, shop, unit_champion, unit_star, champion_cost, gold)
        if choice != 0:
            return choice
    if trait >= 0 and can_loaded_roll(me) and me[ROUND] >= 3:
        return loaded_roll(trait)
    if gold >= min(params[0], interest_gold(me)) + me[REROLL_PRICE] and can_reroll(me):
        return reroll()
    return end_turn()
