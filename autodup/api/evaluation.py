"""Duplicate evaluation of one agent in one call: :func:`evaluate`."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from ..arguments import MAX_BOARDS, integer
from ..arguments import seed as check_seed
from ..errors import UsageError, counted, named
from .common import bot_list, dealer_warnings, noter, warner

__all__ = ["Estimate", "Evaluation", "evaluate", "agent_bot"]

DEFAULT_OPPONENTS = ("greedy",)


@dataclass(frozen=True)
class Estimate:
    """A mean with its 95% interval, and what the interval would have cost without duplicate boards.

    Attributes
    ----------
    value : float
        The estimate.
    low, high : float or None
        Its 95% interval (Student's t over boards, the independent units); ``None`` when every board gave the
        same value (a top-4 rate of 0 at every board): boards that never differed give no spread to build an
        interval from, and one of width 0 would claim a certainty they do not show.
    independent_games : float or None
        How many independent games (fresh shops each, the agent at a random seat) the same interval would
        have needed: the variance of one game's outcome over the squared standard error (``None`` with no
        interval, or when every game had the same outcome).
    """

    value: float
    low: float | None
    high: float | None
    independent_games: float | None


@dataclass(frozen=True)
class Evaluation:
    """What :func:`evaluate` measured of an agent (``print`` it for a table).

    ``mean_placement`` and ``top4`` are the raw duplicate estimates; ``corrected_mean_placement`` and
    ``corrected_top4`` remove the luck the configuration's value measures (``None`` without a value). ``games``
    counts the agent's games (rows): ``boards`` boards, at every seat of each. ``misbehaviour`` counts what the
    agent did wrong, and ``first_error`` says the first exception its ``act`` raised (``None`` if none did).
    """

    agent: str
    opponents: tuple
    config: str
    boards: int
    seed: int
    games: int
    mean_placement: Estimate
    top4: Estimate
    corrected_mean_placement: Estimate | None
    corrected_top4: Estimate | None
    misbehaviour: dict
    first_error: str | None = None  # the first of the agent's failed decisions, where and why

    def as_dict(self) -> dict:
        return asdict(self)

    def __str__(self) -> str:
        lines = [f"{self.agent} against {', '.join(self.opponents)} on {self.config}: {self.boards:,} boards, "
                 f"{self.games:,} games of the agent (seed {self.seed})",
                 f"{'':<28}{'estimate':>9}  {'95% interval':<18}  independent games for this interval"]
        for label, estimate in (("mean placement", self.mean_placement),
                                ("  luck-corrected", self.corrected_mean_placement),
                                ("top-4 rate", self.top4), ("  luck-corrected", self.corrected_top4)):
            if estimate is not None and estimate.low is None:
                lines.append(f"{label:<28}{estimate.value:>9.3f}  {'n/a':<14}  {'n/a':>12} (every board gave "
                             "the same value)")
            elif estimate is not None:
                games = "n/a" if estimate.independent_games is None else f"{estimate.independent_games:,.0f}"
                lines.append(f"{label:<28}{estimate.value:>9.3f}  [{estimate.low:.3f}, {estimate.high:.3f}]"
                             f"{'':<2}{games:>12}")
        bad = {key: count for key, count in self.misbehaviour.items() if count}
        if bad:
            lines.append("the agent misbehaved: " + ", ".join(f"{count:,} {key}" for key, count in bad.items())
                         + (f" (first error: {self.first_error})" if self.first_error else ""))
        return "\n".join(lines)


def agent_bot(agent):
    """A :class:`~autodup.game.bot_loading.Bot` for ``agent``: a bot or agent spec (a name, a path,
    ``module:Class``, ``file.py:Class``), a loaded Bot, or an object with ``act`` (used as it is: named by its
    class, fingerprinted by its class's source)."""
    import hashlib
    import inspect

    from ..game.agents import agent_as_bot
    from ..game.bot_loading import Bot, load_bot

    if isinstance(agent, Bot):
        return agent
    if isinstance(agent, (str, Path)):
        return load_bot(str(agent))
    if inspect.isclass(agent):  # the class itself: made with no arguments, as a module:Class spec is
        try:
            agent = agent()
        except Exception as error:
            raise UsageError(f"{agent.__name__} is a class that cannot be made with no arguments ({named(error)}) "
                             "(allowed: an instance of it, or a class whose __init__ takes none)", "agent") from None
    if not callable(getattr(agent, "act", None)):
        raise UsageError(f"expected an agent (an object with act(observation, action_mask)), a bot or a spec, got "
                         f"{type(agent).__name__}", "agent")
    kind = type(agent)
    try:
        source = inspect.getsource(kind)
    except (OSError, TypeError):
        source = kind.__qualname__
    return agent_as_bot(agent, agent, Path(f"<{kind.__module__}.{kind.__qualname__}>"),
                        hashlib.sha256(source.encode()).hexdigest(), "agent")


def _estimate(by_board: np.ndarray, single_variance: float, low: float, high: float) -> Estimate:
    """The mean over boards with Student's t interval (kept within ``[low, high]``, the outcome's range)."""
    from ..analysis.statistics import t_half_width

    variance_of_mean = by_board.var(ddof=1) / by_board.shape[0]
    mean = float(by_board.mean())
    if not variance_of_mean > 0:  # no board differed (see Estimate)
        return Estimate(float(min(max(mean, low), high)), None, None, None)
    half = float(t_half_width(variance_of_mean, by_board.shape[0] - 1))
    # Games that all end alike need no number of independent games to know it: no figure to give.
    games = single_variance / variance_of_mean if single_variance > 0 else None
    # A corrected rate can stray past its range on few boards (-0.14 for a top-4 rate): the estimate is kept
    # inside it too, as its interval is, which only brings it nearer the truth.
    return Estimate(float(min(max(mean, low), high)), float(max(mean - half, low)), float(min(mean + half, high)),
                    None if games is None else float(games))


def _cross_fitted(outcome: np.ndarray, control: np.ndarray) -> np.ndarray:
    """``outcome - beta * control`` per board, ``beta`` fitted on the other half of the boards (even on odd, odd
    on even): ``control`` has mean zero, and a slope fitted on other boards is independent of it, so the
    corrected mean stays unbiased."""
    corrected = outcome.astype(np.float64).copy()
    halves = np.arange(outcome.shape[0]) % 2
    for half in (0, 1):
        fit = halves != half
        spread = control[fit].var()
        beta = np.cov(outcome[fit], control[fit], ddof=0)[0, 1] / spread if spread > 0 else 0.0
        corrected[~fit] -= beta * control[~fit]
    return corrected


def evaluate(agent, opponents=DEFAULT_OPPONENTS, boards: int = 200, seed: int = 0, config="set4",
             dealer: str = "haystack", value="auto", warn=None, note=None) -> Evaluation:
    """Evaluate ``agent`` on duplicate boards against ``opponents``: its mean placement and top-4 rate.

    The agent and the opponents are seated by the Latin square of ``autodup run`` (one table per bot and board,
    every bot at every seat of a board), on the evaluation boards of ``seed``: another agent evaluated with the
    same arguments meets the very same shops. Everything is played in this process, the tables of a chunk of
    boards together (an agent object need not be importable elsewhere).

    Parameters
    ----------
    agent
        An object with ``act(observation, action_mask[, generator])`` (:mod:`autodup.game.agents`), an agent
        spec (``module:Class``, ``file.py:Class``) or a bot (a name or a path: bots can be evaluated too).
    opponents : str or sequence of str
        The bots (or agent specs) at the other seats, 1 to ``players - 1`` of them (a list, or a comma-separated
        text as for :func:`autodup.run_tournament`'s ``bots``); with 7, the agent sits once at each table.
    boards : int
        Duplicate boards (each played at ``1 + len(opponents)`` tables).
    seed : int
        The tournament seed.
    config : str, os.PathLike or GameConfig
        A shipped configuration's name or a YAML file's path.
    value : "auto", "none" or a value file's path
        The value the luck correction uses (``auto``: the one shipped for the configuration).

    Returns
    -------
    Evaluation
        Raw and luck-corrected estimates with 95% intervals, and for each the number of independent games the
        same interval would have needed.
    """
    from ..game.agents import play_boards_with_agents
    from ..game.bot_loading import bot_errors_collected, load_bot
    from ..game.rules import rules_of
    from ..game.stats import MISBEHAVIOUR_COLUMNS
    from ..tournament.spec import CHUNK_BOARDS, boards_in_chunk, check_lineup, chunk_count, chunk_rows, make_spec
    from .tournaments import load_config
    from .values import choose_value

    warn, note = warner(warn), noter(note)
    boards = integer("boards", boards, 2, MAX_BOARDS)
    seed = check_seed("seed", seed)
    opponents = tuple(bot_list(opponents, "opponents"))
    loaded = load_config(config)
    if len(opponents) >= loaded.players:
        raise UsageError(f"{counted(len(opponents), 'opponent')} (allowed: 1 to {loaded.players - 1}: the agent and "
                         f"its opponents sit at one table of {loaded.players} seats)", "opponents")
    bots = [agent_bot(agent)] + [load_bot(opponent) for opponent in opponents]
    check_lineup(bots, loaded.players, argument="opponents")
    dealer_warnings(dealer, warn)  # an unknown one is refused by make_spec, as before
    model = choose_value(value, loaded, note, warn)
    spec = make_spec(loaded, bots, boards, dealer, seed, value=model)
    weights = model.weights_for(spec.bot_names, spec.bot_sha256)[0] if model else None
    rules = rules_of(loaded)
    columns: dict = {}
    with bot_errors_collected() as errors:
        for chunk in range(chunk_count(boards)):
            played = play_boards_with_agents(rules, dealer, bots, seed=seed, first_board=chunk * CHUNK_BOARDS,
                                             boards=boards_in_chunk(boards, chunk), tables=len(bots),
                                             seating=spec.design, events=spec.events)
            rows = chunk_rows(spec, chunk, played, rules.shop_size, weights)
            mine = rows["bot"] == bots[0].name
            for key in ("board", "placement", "corrected_placement", *MISBEHAVIOUR_COLUMNS):
                if key in rows:
                    columns.setdefault(key, []).append(np.asarray(rows[key])[mine])
    columns = {key: np.concatenate(parts) for key, parts in columns.items()}
    if errors:
        warn(f"{bots[0].name}: {errors[0]}")
    board = columns["board"]
    placement = columns["placement"].astype(np.float64)
    top4 = (placement <= loaded.players // 2).astype(np.float64)
    per_board = np.bincount(board, minlength=boards)

    def by_board(values):
        return np.bincount(board, weights=values, minlength=boards) / per_board

    raw_variance, top4_variance = placement.var(ddof=1), top4.var(ddof=1)
    corrected_mean = corrected_top4 = None
    if "corrected_placement" in columns:
        corrected = columns["corrected_placement"].astype(np.float64)
        corrected_mean = _estimate(by_board(corrected), raw_variance, 1, loaded.players)
        corrected_top4 = _estimate(_cross_fitted(by_board(top4), by_board(placement - corrected)), top4_variance, 0, 1)
    return Evaluation(bots[0].name, opponents, loaded.name, boards, seed, int(placement.shape[0]),
                      _estimate(by_board(placement), raw_variance, 1, loaded.players),
                      _estimate(by_board(top4), top4_variance, 0, 1),
                      corrected_mean, corrected_top4,
                      {key: int(columns[key].sum()) for key in MISBEHAVIOUR_COLUMNS},
                      errors[0] if errors else None)
