"""vandal: writes nonsense into every array it is handed, then buys. The table must not notice."""

from autodup.bots import SEAT, UNITS, buy, end_turn, policy

NAME = "vandal"
DESCRIPTION = "Overwrites its shop, units, pool, rules and parameters with nonsense, then tries to buy."
PARAMETERS = {"spite": 1.0}


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    shop[0] = 0
    for u in range(unit_champion.shape[0]):
        unit_champion[u] = 10**9
        unit_star[u] = 3
    pool[0] = -5.0
    champion_cost[0] = 0
    champion_traits[0, 0] = 10**9
    trait_breakpoints[0, 0] = 0
    params[0] = 1e9
    me[UNITS] = 10**6
    if memory[0] < 3 + me[SEAT]:
        memory[0] += 1
        return buy(0)
    memory[0] = 0
    return end_turn()
