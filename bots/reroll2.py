"""reroll2: stays at level 6 and slow-rolls above 50 gold for 3-star 2-cost units."""

from autodup.bots import policy, reroll_turn

NAME = "reroll2"
DESCRIPTION = "Stops at level 6 and slow-rolls above 50 gold for 3-star 2-cost units, then levels normally."
PARAMETERS = {"cost": 2.0, "level": 6.0, "keep": 50.0, "three_stars": 2.0}


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    return reroll_turn(me, shop, unit_champion, unit_star, champion_cost, params[0], params[1], params[2],
                       params[3])
