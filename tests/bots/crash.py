"""crash: indexes past its shop after a few rounds. The bot check must report its errors."""

from autodup.bots import ROUND, SHOP_SIZE, buy, end_turn, policy

NAME = "crash"
DESCRIPTION = "Reads one slot past the end of its shop from round 5 on."
PARAMETERS = {}


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    if me[ROUND] >= 5 and shop[me[SHOP_SIZE]] >= 0:
        return buy(0)
    return end_turn()
