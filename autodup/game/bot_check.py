"""The bot check: a bot played through many tables and rule variants, and what it did wrong."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .policy_compiling import ANSWERS_TEXT
from .bot_loading import Bot, bot_errors_collected, load_bot, seating, values_changing_on_load

__all__ = ["explain_silent_errors", "AS_WRITTEN", "rule_variants", "check_bot"]

# --------------------------------------------------------------------------

def explain_silent_errors(bot_errors: int, bad_answers: int, agent: bool = False):
    """The message for errors that came without an exception's text (None when there were none), in the terms of a
    bot file's ``decide`` or, with ``agent``, of a Python agent's ``act`` (whose every exception is reported with
    its text)."""
    if agent:
        if bad_answers:
            return ("act or act_batch returned something that is not a numbered action (allowed: an int from 0 to "
                    "the length of action_mask less 1; from act_batch, an int array with one such action per row)")
        return "act failed without a message" if bot_errors else None
    if bot_errors:
        return ("decide returned 0, which is what a decision that raises returns: an error; return an answer "
                f"({ANSWERS_TEXT})")
    if bad_answers:
        return f"decide returned a value that is not an answer: {ANSWERS_TEXT}"
    return None


AS_WRITTEN = "as written"  # the label of the configuration itself among its variants


def rule_variants(config) -> dict:
    """Small changes of ``config``'s rules that a bot must play legally too: ``{label: GameConfig}``.

    A bot that restates a rule instead of reading legality from its view
    (``can_buy`` and its siblings) breaks when that rule changes; these
    variants change one rule each, so the bot check sees it:

    * ``shop.units_leave_pool``: the other value (shown units stay in the pool,
      so a buy also needs a copy left there; or the reverse);
    * ``shop.empty_tier``: every other rule :data:`autodup.game.config_file.EMPTY_TIER_RULES` allows;
    * ``bench_size: 1``: the smallest bench, so the bench is often full;
    * ``shop.size: 1``: a single slot;
    * ``levels.*.xp: 0``: every level free, so the max level comes at the first XP;
    * ``stages: the last only``: one stage, repeated from the first round (the level curve's edge).

    A variant that is already the configuration's own rule, or that the
    configuration cannot take, is left out. Each is the configuration's YAML
    (``config.text``, or its file) read, edited and compiled again with
    :func:`autodup.game.config.parse_config`.
    """
    import copy

    import yaml

    from ..errors import ConfigError
    from .config import parse_config
    from .config_file import EMPTY_TIER_RULES

    text = getattr(config, "text", "") or Path(config.source).read_text(encoding="utf-8")
    parsed = yaml.safe_load(text)
    variants = {}

    def variant(label, change):
        data = copy.deepcopy(parsed)
        change(data)
        try:
            variants[label] = parse_config(yaml.safe_dump(data, sort_keys=False), f"{config.source} ({label})")
        except ConfigError:
            pass  # a rule this configuration cannot take together with its others: not a variant of it

    def free_levels(data):
        for level in data["levels"].values():
            level["xp"] = 0

    leave = not config.units_leave_pool
    variant(f"shop.units_leave_pool: {str(leave).lower()}", lambda data: data["shop"].update(units_leave_pool=leave))
    for rule, code in EMPTY_TIER_RULES.items():
        if code != config.empty_tier:
            variant(f"shop.empty_tier: {rule}", lambda data, rule=rule: data["shop"].update(empty_tier=rule))
    if config.bench_size != 1:
        variant("bench_size: 1", lambda data: data.update(bench_size=1))
    if config.shop_size != 1:
        variant("shop.size: 1", lambda data: data["shop"].update(size=1))
    if config.level_xp[2:].any():
        variant("levels.*.xp: 0", free_levels)
    if config.n_stages > 1:
        variant("stages: the last only", lambda data: data.update(stages=data["stages"][-1:]))
    return variants


def check_bot(bot: Bot, config, games: int = 120, seed: int = 2026, progress=None, variant_games=None) -> dict:
    """Play ``bot`` through many tables, on ``config`` and on its rule variants, and report how it behaves.

    Half the tables seat the bot everywhere; the others alternate it with the
    ``random`` bot, whose play drives it into varied states. ``games`` tables
    play ``config`` as written, then ``variant_games`` each of
    :func:`rule_variants`, so that a bot which restates a rule instead of
    reading legality from its view is caught; by default one per 20 tables
    as written (6 each for the command's 120, none for a quick check of
    fewer than 20 tables, such as a run's determinism probe). Table ``g`` (counted over all of them) is board ``g`` of
    tournament ``seed``; the exact dealers take turns, and every step is
    checked for conservation. Every table is played a second time: any
    difference means the bot is not deterministic (a random number without
    an address, state kept outside ``memory``). ``progress`` (int64
    (PROGRESS_FIELDS,)) receives where the games are, for a watchdog (see
    :mod:`autodup.tournament.workers`); the table index there is left as the caller set
    it.

    Returns
    -------
    dict
        Over all tables: ``games``, ``seat_rounds`` (rounds the bot played,
        over its seats), ``illegal_actions``, ``cap_hits``, ``bot_errors``
        (decisions that raised), ``bad_answers`` (decisions that returned
        something that is not an answer), ``first_error`` (its message,
        after the variant's label when a variant caused it; or None),
        ``unsound_steps``, ``deterministic``, ``changing_on_load`` (the
        globals its file computes otherwise when it loads again:
        :func:`~autodup.game.bot_loading.values_changing_on_load`) and
        ``clean`` (all zero, deterministic, and nothing changing on load).
        ``variants`` holds the same counts (and
        ``first_error``, ``clean``) per rule set: :data:`AS_WRITTEN` first,
        then each label of :func:`rule_variants`.
    """
    from ..engine.dealers import exact_dealers
    from .agents import play_boards_with_agents
    from .boards import play_boards
    from .rules import rules_of
    from .stats import MISBEHAVIOUR_COLUMNS, RESULT_COLUMNS

    per_variant = games // 20 if variant_games is None else int(variant_games)
    plan = [(AS_WRITTEN, rules_of(config), games)]
    if per_variant > 0:  # building the variants parses the configuration again for each: only when played
        plan += [(label, rules_of(variant), per_variant) for label, variant in rule_variants(config).items()]
    opponent = load_bot("random")
    dealers = exact_dealers()
    column = RESULT_COLUMNS.index

    def play(rules, first_board, count):
        outcome = []
        for g in range(first_board, first_board + count):
            mixed = g % 2 == 1
            seat_bots = [opponent if mixed and s % 2 else bot for s in range(rules.players)]
            *lineup, bot_of_seat = seating(seat_bots)
            if bot.agent is not None:  # a Python agent: the same tables, played from outside
                played = play_boards_with_agents(rules, dealers[g % len(dealers)], [bot, opponent][:len(set(
                    bot_of_seat.tolist()))], seed=seed, first_board=g, seating="fixed", bot_of_seat=bot_of_seat,
                    check=True, progress=progress)
            else:
                played = play_boards(rules, dealers[g % len(dealers)], *lineup, seed=seed, first_board=g,
                                     seating="fixed", bot_of_seat=bot_of_seat, check=True, progress=progress)
            mine = np.array([b is bot for b in seat_bots])
            outcome.append((played.results[0, 0], int(played.violations[0, 0]), mine))
        return outcome

    variants = {}
    board = 0
    for label, rules, count in plan:
        with bot_errors_collected() as errors:
            first, second = play(rules, board, count), play(rules, board, count)
        board += count
        totals = {name: 0 for name in MISBEHAVIOUR_COLUMNS}
        rounds = unsound_steps = 0
        for results, unsound, mine in first:
            for name in totals:
                totals[name] += int(results[mine, column(name)].sum())
            rounds += int(results[mine, column("rounds_alive")].sum())
            unsound_steps += int(unsound)
        deterministic = all(np.array_equal(a[0], b[0]) for a, b in zip(first, second))
        first_error = errors[0] if errors else explain_silent_errors(totals["bot_errors"], totals["bad_answers"],
                                                                     bot.agent is not None)
        part = {"games": count, "seat_rounds": rounds, **totals, "first_error": first_error,
                "unsound_steps": unsound_steps, "deterministic": deterministic}
        part["clean"] = deterministic and unsound_steps == 0 and not any(totals.values()) and first_error is None
        variants[label] = part
    report = {"bot": bot.name, "path": str(bot.path)}
    for key in ("games", "seat_rounds", *MISBEHAVIOUR_COLUMNS, "unsound_steps"):
        report[key] = sum(part[key] for part in variants.values())
    report["first_error"] = next((error if label == AS_WRITTEN else f"({label}) {error}"
                                  for label, part in variants.items() if (error := part["first_error"]) is not None),
                                 None)
    report["deterministic"] = all(part["deterministic"] for part in variants.values())
    report["changing_on_load"] = values_changing_on_load(bot)
    report["clean"] = all(part["clean"] for part in variants.values()) and not report["changing_on_load"]
    report["variants"] = variants
    return report
