"""from_the_end: indexes its arrays from the end, as Python allows. Its policy must wrap negative indices."""

from autodup.bots import BUYABLE, SHOP_SIZE, buy, end_turn, has_trait, policy, unit_value

NAME = "from_the_end"
DESCRIPTION = "Buys its last slot, which it reads as shop[-1]."
PARAMETERS = {}


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    champion = shop[-1]
    last = me[SHOP_SIZE] - 1
    # has_trait is a helper of the package, compiled on its own: it indexes with the bot's -1 as the bot does.
    if (champion >= 0 and (me[BUYABLE] >> last) & 1 and has_trait(-1, champion_traits[-1, 0], champion_traits)
            and unit_value(champion, 1, champion_cost) == champion_cost[champion - champion_cost.shape[0]]):
        return buy(last)
    return end_turn()
