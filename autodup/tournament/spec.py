"""A run's definition (:class:`RunSpec`) and the work of one chunk of boards, run in worker processes."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..arguments import MAX_BOARDS, choice, integer
from ..arguments import seed as check_seed
from ..engine.dealers import DEALERS, dealer_named
from ..errors import RunError, UsageError
from ..game.boards import DEFAULT_DESIGN, RUN_DESIGNS, SEATINGS, TRACE_FIELDS, play_boards, seat_bot
from ..game.progress import PROGRESS_LOADING, PROGRESS_PROBE
from ..game.rules import DEFAULT_EVENTS, EVENT_ADDRESSING
from ..game.stats import RESULT_COLUMNS

__all__ = ["CHUNK_BOARDS", "FORMAT_VERSION", "PROBE_GAMES", "DETERMINISM_FILE", "RAY_CONNECT_SECONDS",
           "RAY_START_SECONDS", "RunSpec", "make_spec", "check_bot_count", "check_run_arguments", "check_lineup",
           "code_fingerprint", "MAX_NAME_IN_FOLDER", "folder_name", "default_out", "play_chunk", "trace_boards",
           "probe_determinism", "identity_hash", "chunk_count", "boards_in_chunk", "ROUND_COLUMNS", "LIST_COLUMNS",
           "chunk_rows", "chunk_column_names", "config_sha256"]

CHUNK_BOARDS = 25
# 2: streams in rng.DOMAINS (game streams moved), bad_answers column, column checksums, bot errors per chunk.
# 3: replay streams in the samplers' domain; config and bot snapshots; per-round level, gold, HP; final boards.
# 4: offers (copies of each champion shown to the seat over its game).
# 5: luck terms per row; runs have a seating design and an event addressing; events by seat by default.
# 6: luck terms weighed by a value with board power (coin_value, coin_duel, coin_onlooker, coin_gold,
#    matchmaking_value).
# 7: bought (copies of each champion the seat bought from its shop over its game).
# 8: shop_pairs and shop_traits luck terms; a value's corrections per row (corrected_placement, correction_*);
#    training runs (boards of the training branch) keep each row's luck terms stage by stage (stage_luck).
# 9: the haystack's Exp(1) values by the ziggurat (autodup.engine.ziggurat) instead of inversion: every haystack
#    game's rows change, their law does not.
# 10: the value's logistic terms (coin_value, coin_duel, coin_onlooker, matchmaking_value) are computed as
#    1 / (1 + HP factor x the fight's odds) from a memo and each pair's odds, not as one exponential of the
#    summed edge: those four terms (and the corrections that weigh them) change in their last bits (1e-14 or
#    less in a game); every game's events and placements are the same.
# 11: no standing terms (coin_standing, matchmaking_standing): the value's terms weigh the same HP differences and
#    board power too, and the standing's cost a game 2.5% of its time for 1% of the value's variance reduction
#    (benchmarks/luck_terms_worth.py). Each pair's odds are a product of two per-seat exponentials
#    (prepare_fights): the value's terms change in their last bits, as in 10.
FORMAT_VERSION = 11
PROBE_GAMES = 2      # tables per bot, each played twice, to tell whether a bot is deterministic
DETERMINISM_FILE = "determinism.json"
RAY_CONNECT_SECONDS = 5.0
RAY_START_SECONDS = 120.0


# --------------------------------------------------------------------------
# a run's definition, and the work of one chunk (run in worker processes)
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class RunSpec:
    """Everything that determines a run's results (not how it is executed).

    The configuration travels as its text, so that workers, resumes and
    readers compile the very YAML the run started with, wherever the file is
    now; the run folder keeps a copy (:data:`CONFIG_SNAPSHOT`).
    """

    config_name: str     # the configuration's name (GameConfig.name)
    config_source: str   # where its text was read: a path, or a run folder's snapshot
    config_text: str
    config_sha256: str   # of config_text in UTF-8
    bots: tuple          # (path, ((parameter, value), ...)) per bot, in seating order
    bot_names: tuple
    bot_sha256: tuple    # of each bot file and its own modules (Bot.fingerprint)
    boards: int
    dealer: str
    seed: int
    tables: int
    code: str            # fingerprint of the package's code and of the Parquet writer
    design: str = DEFAULT_DESIGN    # the seating design (autodup.game.boards.RUN_DESIGNS)
    events: str = DEFAULT_EVENTS    # how events are addressed (autodup.game.rules.EVENT_ADDRESSING)
    value_text: str = ""            # the value file the rows are corrected by (autodup.game.value), "" for none
    value_sha256: str = ""
    value_source: str = ""          # where it was read
    branch: str = "evaluation"      # the seed tree's branch of the boards (autodup.game.boards.BRANCHES)
    keep_stage_luck: bool = False   # keep each row's luck terms stage by stage (a training run)
    # Where each bot is loaded from when it is not the path in ``bots``, which a resumed run keeps as it recorded it:
    # a bot file that moved since, or the run folder's copy of it, with the same fingerprint
    # (autodup.tournament.storage.as_recorded). Not part of the identity; () when every bot is at its path.
    bot_files: tuple = ()
    # What each bot's file computed when it loaded, as its compiled code freezes it (Bot.values): a threshold read
    # from a file beside it, an environment variable. Part of the identity: a bot file that reads another value is
    # another bot, for a resume and for every worker. () in a spec read from a manifest written before it.
    bot_values: tuple = ()

    def identity(self) -> dict:
        """What ``--resume`` compares: the same identity gives the same results (and the same bytes)."""
        return {"config_sha256": self.config_sha256,
                "bots": [[name, path, sha, dict(params)] for name, (path, params), sha
                         in zip(self.bot_names, self.bots, self.bot_sha256)],
                "boards": self.boards, "dealer": self.dealer, "seed": self.seed, "tables": self.tables,
                "design": self.design, "events": self.events,
                "value_sha256": self.value_sha256 or None, "branch": self.branch, "stage_luck": self.keep_stage_luck,
                "chunk_boards": CHUNK_BOARDS, "format": FORMAT_VERSION, "code": self.code,
                "bot_values": list(self.bot_values)}

    def identity_hash(self) -> str:
        return identity_hash(self.identity())

    def bot_file(self, index: int) -> str:
        """Where bot ``index`` is loaded from: its path, or where it is now (see ``bot_files``)."""
        return self.bot_files[index] if self.bot_files else self.bots[index][0]

    def config(self):
        """The :class:`~autodup.game.config.GameConfig` of the run, compiled from its text."""
        from ..game.config import parse_config

        return parse_config(self.config_text, self.config_source)

    def bot_at(self, board: int, table: int, seat: int) -> str:
        """The bot at ``seat`` of ``table`` of ``board`` (under the run's seating design); for a table of the
        determinism probe (``table = -1 - bot``), the bot it probes."""
        if table < 0:
            return self.bot_names[-1 - table]
        return self.bot_names[seat_bot(SEATINGS[self.design].code, board, table, seat, len(self.bot_names),
                                       np.zeros(self.players(), dtype=np.int64))]

    def value(self):
        """The :class:`~autodup.game.value.ValueModel` the rows are corrected by, or ``None``."""
        from ..game.value import parse_value

        return parse_value(self.value_text, self.value_source or "the run's value file") if self.value_text else None

    def players(self) -> int:
        """Seats at a table (from the configuration's text)."""
        return self.config().players

    def describe(self, where) -> str:
        """A place of a game (:class:`autodup.errors.Where`) in words, with the bot that was deciding."""
        if where.loading >= 0:
            return f"bot {self.bot_names[where.loading]!r} (while it was loaded)"
        if where.table < 0:  # a table of the determinism probe, which seats one bot (and random)
            return f"bot {self.bot_names[-1 - where.table]!r} (seat {where.seat} of a table probing its determinism)"
        if where.seat < 0:
            return f"the table (no bot was deciding) at board {where.board}, table {where.table}"
        return (f"bot {self.bot_at(where.board, where.table, where.seat)!r} (seat {where.seat}, board {where.board}, "
                f"table {where.table})")


def make_spec(config, bots, boards: int, dealer: str, seed: int, design: str = DEFAULT_DESIGN,
              events: str = DEFAULT_EVENTS, value=None, branch: str = "evaluation",
              keep_stage_luck: bool = False, twins: bool = False) -> RunSpec:
    """A run of ``bots`` (:class:`~autodup.bots.Bot` or :class:`~autodup.bots.BotInfo`, one table each).

    ``design`` seats them (``latin`` or ``paired``, see :mod:`autodup.game.boards`);
    ``events`` addresses the table's events (``seat`` or ``position``).

    ``config`` is a :class:`~autodup.game.config.GameConfig`, a shipped name
    (``set4``, ``tiny``) or the path of a YAML file. ``value`` (a
    :class:`~autodup.game.value.ValueModel`) corrects every row; ``branch`` and
    ``keep_stage_luck`` make a training run (``autodup luck fit``). ``twins``
    lets one bot (file and parameters) play under two names: the null check of
    ``autodup quality``.
    """
    from ..game.config import GameConfig, load_config

    boards, seed = check_run_arguments(boards, dealer, seed, design, events)
    config = config if isinstance(config, GameConfig) else load_config(config)
    check_lineup(bots, config.players, twins)
    source = config.source if not Path(config.source).exists() else str(Path(config.source).resolve())
    return RunSpec(config_name=config.name, config_source=source, config_text=config.text,
                   config_sha256=config_sha256(config.text),
                   bots=tuple((str(b.path), tuple(sorted(b.parameters.items()))) for b in bots),
                   bot_names=tuple(b.name for b in bots), bot_sha256=tuple(b.fingerprint for b in bots),
                   bot_values=tuple(b.values for b in bots),
                   boards=boards, dealer=dealer, seed=seed, tables=len(bots), code=code_fingerprint(),
                   design=design, events=events, value_text=value.text if value else "",
                   value_sha256=value.sha256 if value else "", value_source=value.source if value else "",
                   branch=branch, keep_stage_luck=keep_stage_luck)


def config_sha256(text: str) -> str:
    """The hash a run's identity holds of its configuration's text (UTF-8, lone surrogates kept)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def check_run_arguments(boards, dealer, seed, design, events) -> tuple:
    """``(boards, seed)`` as ints once every argument that defines a run is in its range; else a
    :class:`UsageError` naming it. Checked before any bot is loaded."""
    choice("dealer", dealer, list(DEALERS))
    choice("design", design, list(RUN_DESIGNS))
    choice("events", events, list(EVENT_ADDRESSING))
    return integer("boards", boards, 1, MAX_BOARDS), check_seed("seed", seed)


def check_bot_count(bots: int, seats: int, least: int = 1, argument: str = "bots", defaulted: bool = False) -> None:
    """Raise :class:`UsageError` (naming ``argument``) unless ``least`` <= ``bots`` <= ``seats`` (see
    :func:`check_lineup`); checked before any bot is loaded. ``quality`` asks for 2: it measures the luck in
    comparing two bots. ``defaulted``: no bots were named, so every shipped bot plays (which a configuration of
    fewer seats cannot seat: the message says where the bots came from)."""
    if defaulted and bots > seats:
        raise UsageError(f"not given, so every shipped bot plays: {bots} bots for {seats} seats (allowed: name "
                         f"{least} to {seats} bots)", argument)
    if not least <= bots <= seats:
        why = ("quality measures the luck removed from comparing two bots" if bots < least else
               "every table seats every bot of the run, so that each plays every seat of every board against the "
               "same field")
        raise UsageError(f"{bots} bot{'' if bots == 1 else 's'} for {seats} seats (allowed: {least} to {seats}; "
                         f"{why})", argument)


def check_lineup(bots, seats: int, twins: bool = False, argument: str = "bots") -> None:
    """The rule ``run`` and ``play`` share: 1 to ``seats`` distinct bots, seated by the Latin square.

    More bots than seats is refused: a run plays one table per bot and every
    table seats every bot of the run, so that each plays every seat of every
    board against the same field; a table has no room for more. ``twins``
    allows one bot twice under two names. A refusal names ``argument``.
    """
    check_bot_count(len(bots), seats, argument=argument)
    if not twins and len({(str(b.path), tuple(sorted(b.parameters.items()))) for b in bots}) != len(bots):
        raise UsageError("a bot appears twice (with the same parameters); the Latin square seats each listed bot at "
                         "every seat, so list it once", argument)
    names = [b.name for b in bots]
    shared = next((name for name in names if names.count(name) > 1), None)
    if shared is not None:
        sources = " and ".join(str(b.path) for b in bots if b.name == shared)
        raise UsageError(f"two bots share the name {shared!r} ({sources}); results could not tell them apart "
                         "(allowed: bots of distinct NAMEs)", argument)


def code_fingerprint() -> str:
    """The package version, a hash of its sources, and the Parquet writer's version: what else shapes the bytes."""
    import pyarrow

    from ..compile_cache import SOURCE_FINGERPRINT
    from ..version import __version__

    return f"autodup {__version__} {SOURCE_FINGERPRINT}, pyarrow {pyarrow.__version__}"


MAX_NAME_IN_FOLDER = 60  # characters of a configuration's name in a default folder (a file name holds 255 bytes)


def folder_name(text: str) -> str:
    """``text`` (a configuration's name) as a safe part of a folder name: at most
    :data:`MAX_NAME_IN_FOLDER` characters, a long name cut and followed by a hash of the whole.

    Examples
    --------
    >>> folder_name("set 4/b")
    'set_4_b'
    >>> len(folder_name("x" * 300)), folder_name("x" * 300) != folder_name("x" * 299)
    (60, True)
    """
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._") or "config"
    if len(safe) <= MAX_NAME_IN_FOLDER:
        return safe
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{safe[:MAX_NAME_IN_FOLDER - 9]}~{digest}"


def default_out(spec: RunSpec) -> Path:
    """``runs/<config>-<dealer>-<boards>b-seed<seed>-<hash of the identity>``: a folder named by the run."""
    digest = spec.identity_hash()[:10]
    return Path("runs") / f"{folder_name(spec.config_name)}-{spec.dealer}-{spec.boards}b-seed{spec.seed}-{digest}"


_WORKER_STATE: dict = {}


def _prepared(spec: RunSpec, progress: np.ndarray):
    """Rules and policies of a spec, built once per process (``progress`` names the bot being loaded)."""
    key = spec
    if key not in _WORKER_STATE:
        from ..game.bot_loading import load_bot, policy_tuple
        from ..game.rules import rules_of

        # Every process checks that the bots' files are still those the run was started with (the
        # configuration travels as its text).
        config = spec.config()
        bots = []
        for index, (_, params) in enumerate(spec.bots):
            progress[PROGRESS_LOADING] = index + 1  # a bot whose compiled code crashes the process is named
            bot = load_bot(spec.bot_file(index))
            # Checked before the recorded parameters are set: another bot's file has other parameters.
            if bot.fingerprint != spec.bot_sha256[index]:
                raise RunError(f"bot {bot.name!r} (its file or its own modules) changed since the run started")
            if spec.bot_values and bot.values != spec.bot_values[index]:
                raise RunError(f"bot {bot.name!r} computed other values when its file loaded here than where the run "
                               "started (from a file it reads, an environment variable, the clock); `autodup "
                               "check-bot` names values that change from one load to the next")
            bots.append(bot.with_parameters(dict(params)))
        progress[PROGRESS_LOADING] = 0
        _WORKER_STATE.clear()
        value = spec.value()
        weights = value.weights_for(spec.bot_names, spec.bot_sha256)[0] if value else None
        _WORKER_STATE[key] = (config, rules_of(config), bots, policy_tuple(bots), weights)
    return _WORKER_STATE[key]


def play_chunk(spec: RunSpec, chunk: int, progress: np.ndarray) -> dict:
    """Play chunk ``chunk`` of a run; returns its rows (:func:`chunk_rows`), compact enough to send back.

    ``progress`` (int64 (PROGRESS_FIELDS,)) is where the tables write where they are.
    """
    _, rules, bots, lineup, weights = _prepared(spec, progress)
    played = _play(rules, spec, bots, lineup, first_board=chunk * CHUNK_BOARDS,
                   boards=boards_in_chunk(spec.boards, chunk), progress=progress)
    return chunk_rows(spec, chunk, played, rules.shop_size, weights)


def _play(rules, spec: RunSpec, bots, lineup, **options):
    """The run's boards: in compiled code, or with Python agents asked from outside when the lineup has any
    (:mod:`autodup.game.agents`); the same seeds, seating and arrays either way."""
    common = dict(seed=spec.seed, tables=spec.tables, seating=spec.design, events=spec.events, branch=spec.branch)
    if any(bot.agent is not None for bot in bots):
        from ..game.agents import play_boards_with_agents

        return play_boards_with_agents(rules, spec.dealer, bots, **common, **options)
    return play_boards(rules, dealer_named(spec.dealer), *lineup, n_bots=len(bots), **common, **options)


def trace_boards(spec: RunSpec, boards: int, draws: int, progress: np.ndarray) -> dict:
    """Play the run's first ``boards`` boards again, keeping each seat's first ``draws`` draws with their inputs.

    Returns the trace arrays of :class:`autodup.game.boards.BoardResults`
    (``trace_weights``, ``trace_key``, ``trace_outcome``, ``trace_count``):
    the coupling diagnostic of :mod:`autodup.analysis.coupling` reads them. The tables
    are those of the run (same seeds and seating), so the games are its games.
    """
    _, rules, bots, lineup, _ = _prepared(spec, progress)
    played = _play(rules, spec, bots, lineup, first_board=0, boards=min(boards, spec.boards), progress=progress,
                   trace_draws=draws)
    return {name: getattr(played, name) for name in TRACE_FIELDS}


def probe_determinism(spec: RunSpec, progress: np.ndarray) -> dict:
    """``{bot name: bool}``: whether each bot plays the same tables the same way twice, and computes the same
    values each time its file loads (see ``check_bot``)."""
    from ..game.bot_check import check_bot

    config, _, bots, _, _ = _prepared(spec, progress)
    deterministic = {}
    for index, bot in enumerate(bots):
        progress[PROGRESS_PROBE] = index + 1  # the probe's tables: see autodup.tournament.workers.table_of, RunSpec.describe
        report = check_bot(bot, config, games=PROBE_GAMES, progress=progress, variant_games=0)
        deterministic[bot.name] = report["deterministic"] and not report["changing_on_load"]
    progress[PROGRESS_PROBE] = 0
    return deterministic


def identity_hash(identity: dict) -> str:
    """The hash of a run's identity (:meth:`RunSpec.identity`, or a manifest's ``identity``) that every chunk of
    the run carries: a chunk whose hash differs from its folder's manifest is not of that run."""
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()


def chunk_count(boards: int) -> int:
    return (boards + CHUNK_BOARDS - 1) // CHUNK_BOARDS


def boards_in_chunk(boards: int, chunk: int) -> int:
    return min(CHUNK_BOARDS, boards - chunk * CHUNK_BOARDS)


ROUND_COLUMNS = ("round_level", "round_gold", "round_hp")  # per row, a list: one value per round alive
LIST_COLUMNS = ("round_shops", *ROUND_COLUMNS, "final_champions", "final_stars", "offers", "bought", "luck")


def chunk_column_names(stage_luck: bool, corrected: bool) -> tuple:
    """The names of the columns every chunk of a run holds, in the order :func:`chunk_rows` writes them, for a run
    that keeps its luck stage by stage (``stage_luck``) or not, corrected by a value or not: what a chunk on disk
    is checked against before a resume counts it done."""
    names = ("board", "table", "seat", "bot", *RESULT_COLUMNS, *LIST_COLUMNS, *(("stage_luck",) if stage_luck else ()))
    if corrected:
        from ..game.value import CORRECTION_COLUMNS

        names += ("corrected_placement", *CORRECTION_COLUMNS)
    return names


def chunk_rows(spec: RunSpec, chunk: int, played, shop_size: int, weights=None) -> dict:
    """The rows of a chunk, one per (board, table, seat), as named columns.

    ``played`` is the :class:`autodup.game.boards.BoardResults` of the chunk's
    boards. Every column is a numpy array except the list columns
    (:data:`LIST_COLUMNS`), given as ``(offsets, values)``:

    - ``round_shops``: the seat's shop after each round's free refresh while
      it was alive, flattened (``shop_size`` champions per round, -1 for an
      empty slot);
    - ``round_level``, ``round_gold``, ``round_hp``: what the seat had when it
      saw each of those shops;
    - ``final_champions``, ``final_stars``: its board when it left the game
      (or at the end), strongest unit first;
    - ``offers``: copies of each champion (every champion, in the
      configuration's order) shown to the seat over its game, in every shop;
    - ``bought``: copies of each champion the seat bought from its shop over
      its game (loot is not bought), in the same order;
    - ``luck``: the seat's luck terms (``autodup.game.stats.LUCK``, in that order);
    - ``stage_luck`` (a training run only): the same terms stage by stage,
      ``stage_luck[k * STAGE_BUCKETS + b]`` for term ``k`` in stage bucket ``b``.

    With a value's ``weights`` (float64 (bots, len(VALUE_FEATURES))), each row
    also has its correction by kind of chance event (``correction_combat``, ...:
    :data:`autodup.game.value.CORRECTION_COLUMNS`) and ``corrected_placement``,
    the placement minus their sum.

    Champions are indices into the configuration's champions (the run
    folder's snapshot); :mod:`autodup.tournament.results` reads them with names.
    """
    results = played.results
    n_boards, n_tables, players, _ = results.shape
    board = np.repeat(np.arange(n_boards) + chunk * CHUNK_BOARDS, n_tables * players)
    table = np.tile(np.repeat(np.arange(n_tables), players), n_boards)
    seat = np.tile(np.arange(players), n_boards * n_tables)
    names = np.array(spec.bot_names, dtype=object)
    columns = {"board": board.astype(np.int64), "table": table.astype(np.int64), "seat": seat.astype(np.int64),
               "bot": names[played.bots.reshape(-1)]}
    flat = results.reshape(-1, results.shape[-1])
    for i, name in enumerate(RESULT_COLUMNS):
        columns[name] = flat[:, i].copy()
    columns["round_shops"] = (played.shop_offsets.astype(np.int32), played.shop_values)
    round_offsets = (played.shop_offsets // shop_size).astype(np.int32)
    for k, name in enumerate(ROUND_COLUMNS):
        columns[name] = (round_offsets, played.state_values[:, k].copy())
    champions = played.final_champion.reshape(len(seat), -1)
    on_board = champions >= 0
    board_offsets = np.zeros(len(seat) + 1, dtype=np.int32)
    np.cumsum(on_board.sum(axis=1), out=board_offsets[1:])
    columns["final_champions"] = (board_offsets, champions[on_board])
    columns["final_stars"] = (board_offsets, played.final_star.reshape(len(seat), -1)[on_board])
    n_champions = played.offers.shape[-1]
    per_champion = np.arange(len(seat) + 1, dtype=np.int32) * n_champions
    columns["offers"] = (per_champion, played.offers.reshape(-1))
    columns["bought"] = (per_champion, played.bought.reshape(-1))
    n_terms = played.luck.shape[-1]
    columns["luck"] = (np.arange(len(seat) + 1, dtype=np.int32) * n_terms, played.luck.reshape(-1))
    per_seat = played.stage_luck.reshape(len(seat), -1)
    if spec.keep_stage_luck:
        columns["stage_luck"] = (np.arange(len(seat) + 1, dtype=np.int32) * per_seat.shape[1], per_seat.reshape(-1))
    if weights is not None:
        from ..game.value import CORRECTION_COLUMNS, corrections_of_boards

        corrections = corrections_of_boards(played.stage_luck, played.bots, weights).reshape(len(seat), -1)
        columns["corrected_placement"] = columns["placement"] - corrections.sum(axis=1)
        for k, name in enumerate(CORRECTION_COLUMNS):
            columns[name] = corrections[:, k].copy()
    return columns
