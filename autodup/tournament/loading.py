"""Loading bots and compiling the table in watched processes, and the worker tasks that play one table or
check one bot.

Bots are user code: even loading them (importing, compiling) happens in a watched worker process, so a bot
that hangs or crashes its process is named in one line instead of taking the command down. The table
compiles beside them, once, so that a run's workers all load it from the cache.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

__all__ = ["bot_overrides", "load_bots_with_overrides", "play_in_worker", "check_bot_in_worker",
           "bot_infos_in_worker", "compile_table_in_worker", "CompileProgress", "load_bots_and_table", "compile_game"]


def bot_overrides(parameter_file=None, parameter_options=()) -> tuple:
    """``(file overrides, their origin, option overrides)``: bot parameters from a YAML file (``--bot-params``)
    and from ``BOT.NAME=VALUE`` texts (``--bot-param``), checked here; the options win."""
    from ..game.bot_loading import load_parameter_file, parse_parameter_options

    from_file = load_parameter_file(parameter_file) if parameter_file else {}
    return from_file, parameter_file or "--bot-params", parse_parameter_options(list(parameter_options))


def load_bots_with_overrides(specs: list, overrides: tuple, progress=None) -> list:
    """The bots of ``specs`` with the parameters of ``--bot-params FILE`` and then ``--bot-param``.

    ``progress`` (a worker's progress block) names the bot being loaded, should its code crash the process.
    """
    from ..game.bot_loading import PARAMETERS_ARGUMENT, apply_overrides, load_bot
    from ..game.progress import PROGRESS_LOADING

    from_file, origin, options = overrides
    bots = []
    for index, spec in enumerate(specs):
        if progress is not None:
            progress[PROGRESS_LOADING] = index + 1
        bots.append(load_bot(spec))
    if progress is not None:
        progress[PROGRESS_LOADING] = 0
    return apply_overrides(apply_overrides(bots, from_file, origin), options, PARAMETERS_ARGUMENT)


def play_in_worker(config, specs: list, overrides: tuple, seed: int, board: int, table: int, dealer: str,
                   order: str, progress) -> dict:
    """Load the bots and play one table of a board of ``config`` (a :class:`~autodup.game.config.GameConfig`),
    seated as ``autodup run`` seats it (runs in a watched worker: see :mod:`autodup.tournament.workers`)."""
    from ..game.boards import play_boards
    from ..game.bot_loading import bot_errors_collected, policy_tuple
    from ..game.rules import rules_of
    from ..game.stats import RESULT_COLUMNS
    from .spec import check_lineup

    bots = load_bots_with_overrides(specs, overrides, progress)
    check_lineup(bots, config.players)
    with bot_errors_collected() as errors:
        # The tables before it are played too (at most a few games), so that the control's seeds are the run's.
        if any(bot.agent is not None for bot in bots):
            from ..game.agents import play_boards_with_agents

            played = play_boards_with_agents(rules_of(config), dealer, bots, seed=seed, first_board=board,
                                             tables=table + 1, seating="latin", order=order, progress=progress)
        else:
            played = play_boards(rules_of(config), dealer, *policy_tuple(bots), seed=seed, first_board=board,
                                 tables=table + 1, seating="latin", n_bots=len(bots), order=order, progress=progress)
    results = played.results[0, table]
    names = [bots[index].name for index in played.bots[0, table]]
    rows = [{"seat": s, "bot": names[s], **{c: int(results[s, i]) for i, c in enumerate(RESULT_COLUMNS)}}
            for s in range(config.players)]
    return {"rows": rows, "rounds": int(results[:, RESULT_COLUMNS.index("rounds_alive")].max()), "errors": errors}


def check_bot_in_worker(spec: str, overrides: tuple, config, games: int, seed: int, variant_games,
                        progress) -> dict:
    """Load a bot and run the bot check on ``config`` (a :class:`~autodup.game.config.GameConfig`; runs in a
    watched worker: see :mod:`autodup.tournament.workers`)."""
    from ..game.bot_check import check_bot

    bot = load_bots_with_overrides([spec], overrides, progress)[0]
    return check_bot(bot, config, games=games, seed=seed, progress=progress, variant_games=variant_games)


def bot_infos_in_worker(specs: list, overrides: tuple, config_text, order: str, progress) -> list:
    """Load bots and return what a run records of them (in a watched worker: see :mod:`autodup.tournament.workers`).

    With ``config_text`` (a cold start), this worker compiles beside the one compiling the table
    (:func:`compile_table_in_worker`), in this order: the shop's draw; the bots that are not shipped ones (a bot
    file, an agent: the user's code, loaded first so that one that cannot load is reported at once); the round's
    start, the round's end (the soundness check last) and the storage, which the table's worker then finds in the
    cache (:func:`autodup.game.table.compile_shop_draw`, :func:`~autodup.game.table.compile_round_start`,
    :func:`~autodup.game.table.compile_round_end`, :func:`autodup.game.boards.compile_storage`); then the shipped
    bots, from the first, while the table's worker, its table compiled, takes them from the last. Each bot is
    compiled once across the two (:mod:`autodup.compile_cache`): one the other is compiling is waited for, then
    loaded.
    """
    from ..game.bot_loading import load_bot
    from ..game.progress import (
        COMPILING_ROUND_END,
        COMPILING_ROUND_START,
        COMPILING_SHOP_DRAW,
        COMPILING_STORAGE,
        PROGRESS_COMPILING,
        PROGRESS_LOADING,
    )

    if config_text is not None:
        from ..game.boards import compile_storage
        from ..game.config import parse_config
        from ..game.rules import rules_of
        from ..game.table import compile_round_end, compile_round_start, compile_shop_draw

        rules = rules_of(parse_config(config_text))
        progress[PROGRESS_COMPILING] = COMPILING_SHOP_DRAW
        try:
            compile_shop_draw(rules)
        finally:
            progress[PROGRESS_COMPILING] = 0
        shipped = _shipped_bots(specs)
        for index, spec in enumerate(specs):
            if index not in shipped:  # the user's code first
                progress[PROGRESS_LOADING] = index + 1
                load_bot(spec)
        progress[PROGRESS_LOADING] = 0
        try:
            progress[PROGRESS_COMPILING] = COMPILING_ROUND_START
            compile_round_start(rules, order)
            progress[PROGRESS_COMPILING] = COMPILING_ROUND_END
            compile_round_end(rules)
            progress[PROGRESS_COMPILING] = COMPILING_STORAGE
            compile_storage(rules)
        finally:
            progress[PROGRESS_COMPILING] = 0
    return [bot.info() for bot in load_bots_with_overrides(specs, overrides, progress)]


def compile_table_in_worker(config_text: str, order: str, specs: list, progress) -> bool:
    """Compile the table for serving ``order`` into the cache, then the shipped bots of ``specs`` from the last, until
    one is found compiled already: the bots' worker, which takes them from the first, has reached it (runs in a
    watched worker, beside the one compiling the bots: see :func:`bot_infos_in_worker`)."""
    from ..game.boards import compile_table
    from ..game.bot_loading import load_bot
    from ..game.config import parse_config
    from ..game.progress import PROGRESS_LOADING
    from ..game.rules import rules_of

    compile_table(rules_of(parse_config(config_text)), order, progress)
    try:
        for index in reversed(sorted(_shipped_bots(specs))):
            progress[PROGRESS_LOADING] = index + 1
            if load_bot(specs[index]).policy._cache_hits:
                break
    finally:
        progress[PROGRESS_LOADING] = 0
    return True


def _shipped_bots(specs: list) -> set:
    """The indices of the shipped bots in ``specs`` (:func:`autodup.game.bot_loading.is_shipped_bot`)."""
    from ..game.bot_loading import is_shipped_bot

    return {index for index, spec in enumerate(specs) if is_shipped_bot(spec)}


COMPILE_BAR = "compiling the game for this machine"


def _compiling_parts():
    """``{COMPILING_* code: (name, seconds)}``: what a cold start's second worker compiles besides the bots, with the
    time each took in the cold run that timed the table's stages (:data:`autodup.game.boards.TABLE_STAGES`)."""
    from ..game.progress import COMPILING_ROUND_END, COMPILING_ROUND_START, COMPILING_SHOP_DRAW, COMPILING_STORAGE

    return {COMPILING_SHOP_DRAW: ("the shop's draw", 4.2), COMPILING_ROUND_START: ("the round's start", 3.1),
            COMPILING_ROUND_END: ("the round's end", 10.7), COMPILING_STORAGE: ("the storage", 4.1)}


SECONDS_A_BOT = 0.85  # a shipped bot's compile, the same run: the eight in 6.7 s across the two workers


class CompileProgress:
    """A bar of how far a cold start's compile is, in the seconds each part takes, and what is compiling now.

    The two workers' progress blocks say where they are (:meth:`update`, called as the pool waits). The table's
    worker compiles the table, whose stages it counts (``PROGRESS_COMPILED``: :data:`autodup.game.boards.TABLE_STAGES`),
    then loads shipped bots from the last. The bots' worker compiles the shop's draw, loads the bots that are not
    shipped ones (bot ``PROGRESS_LOADING - 1``), compiles the round's start, its end and the storage (each its
    ``COMPILING_*`` code in ``PROGRESS_COMPILING``, in that order), then loads the shipped bots from the first. A
    part is done once its worker has gone on to another, or ended; the bar moves by each part's seconds
    (:data:`~autodup.game.boards.TABLE_STAGES`, :func:`_compiling_parts`, :data:`SECONDS_A_BOT`), so that it says
    how far the compile is in time: the table is half of it, and in steps the bar stood still for most of a cold
    start.
    """

    def __init__(self, specs: list, show: bool):
        from tqdm.auto import tqdm

        from ..game.boards import TABLE_STAGES

        self.names = [_short_name(spec) for spec in specs]
        self.stages = TABLE_STAGES
        self.parts = _compiling_parts()
        self.total = sum(stage.seconds for stage in self.stages) + sum(s for _, s in self.parts.values()) + (
            SECONDS_A_BOT * len(specs))
        # What is compiling comes last: a terminal narrower than the line cuts it, not the per cent. Shown where there
        # is a terminal (or a notebook), not in a log.
        self.bar = tqdm(total=1000, desc="", disable=None if show else True, file=sys.stderr, dynamic_ncols=True,
                        leave=False,
                        bar_format=COMPILE_BAR + " {percentage:3.0f}% |{bar:10}| {elapsed}  {desc}")
        self.table_done = False
        self.stages_passed = 0  # of the table's
        self.part_reached = 0  # the latest COMPILING_* code the bots' worker was seen at
        self.parts_done = 0  # the parts (codes) up to this one are done
        self.bots_done = set()
        self.loading = {}  # worker's key -> the bot it was loading at the last poll
        self.drawn = time.monotonic()

    def update(self, busy: list) -> None:
        from ..game.progress import PROGRESS_COMPILED, PROGRESS_COMPILING, PROGRESS_LOADING

        keys = {key for key, _ in busy}
        self.table_done = self.table_done or "table" not in keys
        if "bots" not in keys:  # its worker loads every bot before it ends
            self.bots_done, self.parts_done = set(range(len(self.names))), max(self.parts)
        working, loading = [], {}
        for key, progress in busy:
            compiling, bot = int(progress[PROGRESS_COMPILING]), int(progress[PROGRESS_LOADING]) - 1
            if key == "table" and bot < 0:
                if not self.table_done:  # else it has found the other worker's bots claimed, and is ending
                    self.stages_passed = max(self.stages_passed, min(int(progress[PROGRESS_COMPILED]),
                                                                     len(self.stages)))
                    stage = self.stages[min(self.stages_passed, len(self.stages) - 1)]
                    working.append(f"the table ({stage.name})")
                continue
            if key == "table":
                self.table_done = True
            if key == "bots":
                if compiling:  # the parts before it are done
                    self.part_reached = max(self.part_reached, compiling)
                    self.parts_done = max(self.parts_done, compiling - 1)
                else:  # between parts, or after them: the one it was at is done
                    self.parts_done = max(self.parts_done, self.part_reached)
            if compiling in self.parts:
                working.append(self.parts[compiling][0])
            elif bot >= 0:
                loading[key] = bot
                working.append(f"bot {self.names[bot]}")
        for key, bot in self.loading.items():
            if loading.get(key) != bot:
                self.bots_done.add(bot)
        self.loading = loading
        # A bot one worker compiles and the other waits for is named once.
        named = ", ".join(dict.fromkeys(working))
        self.bar.set_description_str(named or "done", refresh=False)
        done = round(self.bar.total * min(self.seconds_done() / self.total, 1.0))
        if done > self.bar.n:
            self.bar.update(done - self.bar.n)
        elif time.monotonic() - self.drawn >= 1.0:  # the clock moves on: once a second, not at every poll
            self.bar.refresh()
        else:
            return
        self.drawn = time.monotonic()

    def seconds_done(self) -> float:
        """The seconds of compiling done, by the parts done (each part's seconds, as the class says)."""
        stages = self.stages if self.table_done else self.stages[:self.stages_passed]
        parts = sum(seconds for code, (_, seconds) in self.parts.items() if code <= self.parts_done)
        return sum(stage.seconds for stage in stages) + parts + SECONDS_A_BOT * len(self.bots_done)

    def close(self) -> None:
        self.bar.close()


def _short_name(spec: str) -> str:
    """A bot spec as a bar names it: a file's stem, a shipped bot's name."""
    return Path(spec.split(":")[0]).stem if spec.endswith(".py") or "/" in spec else spec


def load_bots_and_table(config, specs: list, overrides: tuple, game_timeout: float, note=None,
                        progress: bool = False, order: str = "events") -> list:
    """The bots' :class:`~autodup.bots.BotInfo`, loaded in a watched process; the table compiles beside them if cold.

    Bots are user code: even loading them (importing, compiling) happens in a
    watched process. The table compiles beside them, once, so that the run's
    workers all load it from the cache. With ``progress``, a cold start shows a bar of its steps that names
    what is compiling (:class:`CompileProgress`). A cold start holds the cache's compile lock
    (:func:`autodup.compile_cache.compile_lock`): a command started beside one that compiles waits for it,
    then loads the table from the cache instead of compiling it a second time. The table is compiled for serving
    ``order`` (each order is a version of its own: see :data:`autodup.game.rules.ORDER_EVENTS`).

    Within :func:`autodup.tournament.workers.one_pool` (a command that goes on to play in those workers), the
    command's workers load them, when there is one for each task: each of them not compiling loads the bots,
    side by side, and keeps them (and the modules it imported) for the command's next tasks.
    """
    from ..compile_cache import compile_lock
    from ..errors import TaskError
    from ..game.boards import table_is_compiled
    from .workers import pool_for, pool_in_use

    def describe(where):
        return f"bot {specs[where.loading]} (while it was loaded)" if where.loading >= 0 else "the table"

    note = note or (lambda line: None)

    def load(cold: bool) -> list:
        tasks = [("bots", bot_infos_in_worker, (specs, overrides, config.text if cold else None, order))]
        bar = None
        if cold:
            note(f"{COMPILE_BAR} (once per version of autodup; about half a minute, longer on a busy machine)...")
            tasks.append(("table", compile_table_in_worker, (config.text, order, specs)))
            bar = CompileProgress(specs, progress)
        shared = pool_in_use(len(tasks), game_timeout)
        if shared is not None:  # every other worker loads them too, side by side, instead of when its first task comes
            tasks += [(("bots", i), bot_infos_in_worker, (specs, overrides, None, order))
                      for i in range(len(shared) - len(tasks))]
        try:
            with pool_for(len(tasks), game_timeout, describe) as pool:
                return {key: result for key, result in pool.run(tasks, bar.update if bar else None)}["bots"]
        except TaskError as error:  # a bot that cannot load: the BotError it raised, here too
            raise error.as_raised() from None
        finally:
            if bar is not None:
                bar.close()

    if table_is_compiled(order):
        return load(False)
    # Cold: one process compiles at a time; one that waited finds the table compiled by the other.
    with compile_lock(lambda: note("waiting for another autodup process that is compiling the game...")):
        return load(not table_is_compiled(order))


def compile_game(config, specs: list, overrides: tuple, game_timeout: float, note=None,
                 order: str = "events", progress: bool = False) -> None:
    """Compile the game into this machine's cache as a cold run does, unless it is there already.

    For a command that plays in a worker of its own without :func:`load_bots_and_table` (``autodup play``,
    ``autodup check-bot``): it takes the cache's compile lock too, so that it waits for a command already
    compiling instead of compiling the whole game beside it at half the machine's speed (and has one beside it
    wait for it), and compiles in two processes, the table in one and the round's start and end and the bots in the
    other (see :func:`bot_infos_in_worker`). A bot of the user's is loaded there first (after the shop's draw, about
    2 s), so that one that cannot load is reported at once, not after the game has compiled.
    """
    from ..game.boards import table_is_compiled

    if not table_is_compiled(order):
        load_bots_and_table(config, specs, overrides, game_timeout, note, progress, order=order)
