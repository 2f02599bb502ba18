"""returns_text: returns a string, not an answer."""

from autodup.bots import policy

NAME = "returns_text"
DESCRIPTION = "Returns text."


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    return "buy everything"
