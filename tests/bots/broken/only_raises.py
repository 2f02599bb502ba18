"""only_raises: a stub that raises, with no return."""

from autodup.bots import policy

NAME = "only_raises"
DESCRIPTION = "A stub that is not written yet."
PARAMETERS = {}


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    raise NotImplementedError("write me")
