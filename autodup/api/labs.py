"""The Python API for the labs: roll odds, the shuffle lab and the seed article's toy example."""

from __future__ import annotations

from pathlib import Path

from ..arguments import choice, integer, optional, workers
from ..arguments import seed as check_seed
from ..errors import UsageError
from .common import Report, config_warnings, noter, warner
from .tournaments import RUN_SEED, load_config

__all__ = ["odds", "shuffles", "toy"]


def odds(config, level: int, champion: str, gold: int | None = None, rolls: int | None = None, copies_out: int = 0,
         cost_out: int = 0, owned: int = 0, buy_xp: bool = False, xp: int = 0, trials: int | None = None,
         dealer: str | None = None, seed: int = RUN_SEED, holding: bool | None = None,
         other_shops: int | None = None, simulation: str = "auto", threads: int | None = None, plot=None,
         progress: bool = False, warn=None, note=None) -> Report:
    """The chances of finding k copies of a champion by rolling: the public calculators' chain, the game's
    exact law of its shop, and a simulation through the game's own shop.

    Parameters
    ----------
    config : str, os.PathLike or GameConfig
        A shipped configuration's name or a YAML path.
    level : int
        The player's level.
    champion : str
        The champion looked for (its name in the configuration; case does not matter).
    gold, rolls : int
        Gold to spend on rolls, or a number of rolls (exactly one of them).
    copies_out, cost_out, owned : int
        Copies of it held by others, other units of its cost out of the pool, copies the player owns.
    buy_xp, xp
        Buy XP to the next level first (from ``gold``), with ``xp`` already held toward it.
    trials : int, optional
        Simulated roll sequences (default 100,000; 0: none).
    dealer, seed
        The simulation's dealer and seed.
    holding : bool, optional
        Whether shown units leave the pool until the shop changes (default: the configuration's rule).
    other_shops : int, optional
        Other seats holding a shop while the player rolls (default: every other seat).
    simulation : {"auto", "watched", "game"}
        ``"game"`` deals every slot through the table's shop; ``"watched"`` only the draws the question can
        see (the champion's tier and the tier race), which gives the same counts trial by trial about three
        times faster, and applies while no other tier can run out and the dealer is not ``replay``;
        ``"auto"`` (default): watched where it applies.
    threads : int, optional
        Chunks of trials simulated side by side (default: one per core); the counts do not depend on it.
    plot : str or os.PathLike, optional
        A ``.png`` file for a bar chart of P(at least k) by the three methods.
    progress, warn, note
        As for :func:`autodup.run_tournament` (a bar of the simulated trials; ``note`` is told when the
        simulation is compiled first, on a cache without it).

    Returns
    -------
    Report
        ``data`` has ``exact``, ``game`` and ``simulated`` laws, ``counts`` and the ``situation``.

    Examples
    --------
    >>> import autodup
    >>> answer = autodup.odds("set4", level=8, champion="Jhin", gold=40, trials=2000)
    >>> round(sum(answer["exact"]["p_exactly"]), 9)
    1.0
    """
    from tqdm.auto import tqdm

    from ..engine.dealers import DEALERS, DEFAULT_DEALER
    from ..labs.odds import DEFAULT_TRIALS, RollQuestion, resolve
    from ..labs.odds_report import check_plot_path, format_odds, write_odds_plot
    from ..labs.odds_simulation import (
        COMPILING_ODDS,
        MAX_TRIALS,
        SIMULATION_METHODS,
        roll_odds,
        simulation_is_compiled,
        simulation_method,
    )

    level = integer("level", level, 1)
    for name, value in (("copies_out", copies_out), ("cost_out", cost_out), ("owned", owned), ("xp", xp)):
        integer(name, value, 0)
    gold, rolls = optional(integer, "gold", gold, 0), optional(integer, "rolls", rolls, 0)
    trials = integer("trials", DEFAULT_TRIALS if trials is None else trials, 0, MAX_TRIALS)
    seed = check_seed("seed", seed)
    other_shops = optional(integer, "other_shops", other_shops, 0)
    dealer = choice("dealer", dealer or DEFAULT_DEALER, list(DEALERS))
    simulation = choice("simulation", simulation, list(SIMULATION_METHODS))
    threads = workers("threads", threads)
    if holding is not None and not isinstance(holding, bool):
        raise UsageError(f"{holding!r} is not True or False (allowed: True, False, or None for the configuration's "
                         "rule)", "holding")
    if not isinstance(champion, str):
        raise UsageError(f"{champion!r} is not a champion's name", "champion")
    if plot is not None:  # an empty one is refused, not taken for none
        check_plot_path(str(plot))
    loaded = load_config(config)
    config_warnings(loaded, warner(warn))
    question = RollQuestion(level=level, champion=champion, copies_out=copies_out, cost_out=cost_out, gold=gold,
                            rolls=rolls, owned=owned, buy_xp=buy_xp, xp=xp)
    situation = resolve(loaded, question, holding, other_shops)  # a question that does not fit is said first
    # The simulation this question plays (auto: watched unless a tier can run out), each compiled once.
    method = simulation_method(situation, dealer, simulation)
    if trials > 0 and not simulation_is_compiled(method):
        kind = "the watched one" if method == "watched" else "the game's shop"
        noter(note)(f"{COMPILING_ODDS} (once per version of autodup for each kind of simulation, here {kind}; "
                    "about half a minute)...")
    with tqdm(total=trials, desc="rolls simulated", unit="trial", unit_scale=True, leave=False,
              disable=None if progress else True) as bar:  # None: a bar where there is a terminal
        result = roll_odds(loaded, question, trials=trials, dealer=dealer, seed=seed, holding=holding,
                           other_shops=other_shops, advance=bar.update, simulation=simulation, threads=threads)
    if plot:
        write_odds_plot(result, str(plot))
    return Report(result, None, format_odds(result) + (f"\nplot: {plot}" if plot else ""))


def shuffles(methods=None, cards: int | None = None, decks=(), runs: int | None = None, shuffles: int | None = None,
             replicates: int | None = None, riffle_deals: int | None = None, seed: int | None = None, out=None,
             progress: bool = False, warn=None) -> Report:
    """The shuffle lab: is a deck shuffle fair? The 2020 article's two tests reproduced, the permutation tests
    they miss, and the riffles a deck needs.

    Parameters
    ----------
    methods : str or list of str, optional
        Each a sequence of shuffles applied left to right, like ``"RRH"`` or ``"G7"`` (default: the article's
        list, or ``"S"`` with ``decks``).
    cards : int, optional
        Cards in the deck (default 40, or the size of the decks given).
    decks : list of str or os.PathLike
        Files of decks dealt by your own shuffle (text, one deck per line, or ``.npy``), through the same tests.
    runs, shuffles, replicates, riffle_deals, seed
        The experiment's size and seed (defaults: the article's).
    out : str or os.PathLike, optional
        Write ``shuffles.html``, its pictures and ``shuffles.json`` here.

    Returns
    -------
    Report
        ``data`` has each method's figures and verdicts and the riffles needed.

    Examples
    --------
    >>> import autodup
    >>> lab = autodup.shuffles(methods="S,N", cards=10, runs=20, shuffles=50, replicates=2, riffle_deals=0)
    >>> [lab["methods"][name]["verdict"] for name in ("S", "N")]
    ['fair', 'positions biased']
    """
    from tqdm.auto import tqdm

    from ..files import check_output_folder, mark_output_folder
    from ..labs.shuffle_kernels import (
        DEFAULT_CARDS,
        DEFAULT_METHODS,
        DEFAULT_REPLICATES,
        DEFAULT_RIFFLE_DEALS,
        DEFAULT_RUNS,
        DEFAULT_SEED,
        DEFAULT_SHUFFLES,
        parse_methods,
    )
    from ..labs.shuffles import read_decks, shuffle_lab
    from ..labs.shuffles_report import deck_names, format_shuffles, write_shuffles

    warn = warner(warn)
    shuffles = integer("shuffles", DEFAULT_SHUFFLES if shuffles is None else shuffles, 1)
    cards, runs = optional(integer, "cards", cards, 1), optional(integer, "runs", runs, 1)
    replicates, riffle_deals = optional(integer, "replicates", replicates, 1), optional(integer, "riffle_deals",
                                                                                         riffle_deals, 0)
    seed = optional(check_seed, "seed", seed)
    decks = [decks] if isinstance(decks, (str, Path)) else list(decks or ())
    given = {name: (path, read_decks(path)) for name, path in deck_names([str(d) for d in decks]).items()}
    sizes = {deck.shape[1] for _, deck in given.values()}
    if len(sizes) > 1:
        raise UsageError(f"the files hold decks of {' and '.join(map(str, sorted(sizes)))} cards (allowed: "
                         "one size)", "decks")
    if cards is not None and sizes and sizes != {cards}:
        raise UsageError(f"{cards}: the decks hold {sizes.pop()} cards", "cards")
    cards = cards or (sizes.pop() if sizes else DEFAULT_CARDS)
    if isinstance(methods, (list, tuple)):
        methods = ",".join(methods)
    methods = parse_methods(methods) if methods else parse_methods("S" if given else ",".join(DEFAULT_METHODS))
    clash = set(methods) & set(given)
    if clash:
        raise UsageError(f"{sorted(clash)[0]} is also the name of a method (rename the file)", "decks")
    runs = runs or (-(-max(deck.shape[0] for _, deck in given.values()) // shuffles) if given else DEFAULT_RUNS)
    riffle_deals = DEFAULT_RIFFLE_DEALS if riffle_deals is None else riffle_deals
    check_output_folder(out, "shuffles")  # an empty one is refused as empty
    with tqdm(total=len(methods) + len(given) + (1 if riffle_deals else 0), desc="shuffle lab", unit="method",
              disable=None if progress else True, leave=False) as bar:  # None: a bar where there is a terminal
        started = []

        def step(name):  # called as each method starts: the one before it is done
            bar.update(1 if started else 0)
            started.append(name)
            bar.set_postfix_str(name)

        result, experiments = shuffle_lab(methods, cards, runs, shuffles, DEFAULT_SEED if seed is None else seed,
                                          DEFAULT_REPLICATES if replicates is None else replicates, riffle_deals,
                                          step, given)
    for warning in result["warnings"]:
        warn(warning)
    written = ""
    if out:  # the pictures are drawn before the folder is made: a stop while drawing leaves nothing
        written = f"\nreport: {write_shuffles(result, experiments, out)}"
        mark_output_folder(out, "shuffles", check=False)  # checked before the work
    return Report(result, Path(out) if out else None, format_shuffles(result) + written)


def toy(trials: int | None = None, seed: int | None = None) -> Report:
    """The seed article's toy example (its Figs. 1-5) and the keyed race, reproduced.

    Examples
    --------
    >>> import autodup
    >>> sorted(autodup.toy(trials=1000).data)
    ['cols', 'figures', 'rows', 'trials']
    """
    from ..labs.toy import DEFAULT_SEED, DEFAULT_TRIALS, format_figures, toy_figures

    result = toy_figures(trials=DEFAULT_TRIALS if trials is None else trials,
                         seed=DEFAULT_SEED if seed is None else seed)
    return Report(result, None, format_figures(result))
