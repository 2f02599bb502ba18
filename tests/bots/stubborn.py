"""stubborn: never ends its turn (locks and unlocks forever). The action cap must stop it."""

from autodup.bots import policy, toggle_lock

NAME = "stubborn"
DESCRIPTION = "Toggles its lock forever and never ends a turn."
PARAMETERS = {}


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    return toggle_lock()
