"""The bot authoring API: what a bot file imports.

A bot file (``bots/<name>.py``, or any path) declares::

    from autodup.bots import GOLD, buy, end_turn, policy

    NAME = "mybot"
    DESCRIPTION = "One line: what it does."
    PARAMETERS = {"reserve": 30.0}          # defaults, in the order ``params`` holds them

    @policy
    def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits,
               trait_breakpoints, params, memory):
        ...
        return buy(slot)                      # or sell(i), reroll(), buy_xp(), end_turn(), ...

``decide`` runs inside the jitted table once per decision (see
:data:`autodup.game.view.POLICY_SIGNATURE` for the arrays it reads). ``me[GOLD]``,
``me[LEVEL]``... name the fields of the seat's view (:data:`autodup.game.view.VIEW`
declares them); ``memory`` keeps ``MEMORY_SIZE`` int64 words for the game.
The view says what is legal (``me[BUYABLE]``, ``me[CAN_REROLL]``...), by the
rules the table applies: :func:`can_buy` and its siblings read it, so a bot
never restates a rule.

This module is the stable public path; the code lives in :mod:`autodup.game.authoring` (the API) and
:mod:`autodup.game.bot_loading` / :mod:`autodup.game.bot_check` (loading and checking bots, reached here
by name on first use so that a bot file imports no more than it needs).
"""

from .game.authoring import *  # noqa: F403  (the authoring API is this module's content)
from .game.authoring import __all__ as _AUTHORING

_LOADING = {"Bot": "bot_loading", "BotInfo": "bot_loading", "bot_names": "bot_loading", "load_bot": "bot_loading",
            "load_bots": "bot_loading", "check_bot": "bot_check", "rule_variants": "bot_check"}

__all__ = [*_AUTHORING, *_LOADING]


def __getattr__(name):
    if name in _LOADING:
        import importlib

        return getattr(importlib.import_module(f"autodup.game.{_LOADING[name]}"), name)
    raise AttributeError(f"module 'autodup.bots' has no attribute {name!r}")
