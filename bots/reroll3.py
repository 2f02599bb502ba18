"""reroll3: stays at level 7 and slow-rolls above 50 gold for 3-star 3-cost units."""

from autodup.bots import policy, reroll_turn

NAME = "reroll3"
DESCRIPTION = "Stops at level 7 and slow-rolls above 50 gold for 3-star 3-cost units, then levels normally."
PARAMETERS = {"cost": 3.0, "level": 7.0, "keep": 50.0, "three_stars": 2.0}


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    return reroll_turn(me, shop, unit_champion, unit_star, champion_cost, params[0], params[1], params[2],
                       params[3])
