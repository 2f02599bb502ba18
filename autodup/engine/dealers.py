"""Dealers: how a table's shops are dealt, and what the tables of a board share. One record each.

A dealer is a draw engine (a kernel of :mod:`autodup.engine.kernels`, chosen inside
the jitted table by its integer code) together with how the tables of one
board get their random numbers: the duplicate dealers give seat ``s`` of every
table the same seat seed and every table the same event seed; the
``independent`` control mixes the table into the seeds, so its tables share
nothing. Everything that lists, checks or runs dealers (the table, the board
driver, the command line, ``check-bot``, the benchmarks and the tests) reads
:data:`DEALERS`; adding a dealer is its kernel and one record here.
"""

from __future__ import annotations

from dataclasses import dataclass

from .kernels import ENGINE_COUNT, ENGINE_HAYSTACK, ENGINE_KEYED, ENGINE_PLAIN, ENGINE_REPLAY, ENGINE_STREAM

__all__ = ["Dealer", "DEALERS", "DEFAULT_DEALER", "CONTROL", "dealer_named", "exact_dealers", "dealers_help",
           "inexact_warning"]


@dataclass(frozen=True)
class Dealer:
    """One dealer.

    Attributes
    ----------
    name : str
    code : int
        The engine's code (``ENGINE_*``), as the jitted table takes it.
    shares_seeds : bool
        Every table of a board plays with the same seat and event seeds.
    race_order : bool
        Can serve a round's simultaneous refreshes by a race across the
        seats' haystacks (``--order race``).
    exact : bool
        Every table keeps the game's probabilities. False for a deliberately
        wrong dealer, which the correctness checks must catch.
    state : str
        What it keeps per seat between draws.
    description : str
        One line for a person.
    """

    name: str
    code: int
    shares_seeds: bool
    race_order: bool
    exact: bool
    state: str
    description: str


DEALERS = {dealer.name: dealer for dealer in (
    Dealer("haystack", ENGINE_HAYSTACK, True, True, True, "a needle per champion and tier",
           "the seed article's general system: an exponential race with memory, per seat"),
    Dealer("keyed", ENGINE_KEYED, True, False, True, "none (values addressed by round, shop and slot)",
           "a memoryless exponential race on values addressed by (round, shop, slot)"),
    Dealer("stream", ENGINE_STREAM, True, False, True, "a position in the seat's stream",
           "one seeded stream per seat, read in order: tables fall out of step"),
    Dealer("replay", ENGINE_REPLAY, True, False, False, "a position in the seat's plan",
           "the article's incorrect system: planned draws replayed, substituted when gone (deliberately wrong)"),
    Dealer("independent", ENGINE_PLAIN, False, False, True, "a position in the seat's stream",
           "the control: the plain sampler, each table with seeds of its own"),
)}
DEFAULT_DEALER = "haystack"
CONTROL = "independent"

assert all(0 <= dealer.code < ENGINE_COUNT for dealer in DEALERS.values())


def dealer_named(name: str, option: str = "--dealer") -> Dealer:
    """The dealer called ``name``; ``ValueError`` (one line, naming the allowed ones) otherwise."""
    try:
        return DEALERS[name]
    except (KeyError, TypeError):
        raise ValueError(f"{option}: unknown dealer {name!r} (allowed: {', '.join(DEALERS)})") from None


def exact_dealers() -> list:
    """The dealers that keep the game's probabilities, in registry order."""
    return [dealer for dealer in DEALERS.values() if dealer.exact]


def dealers_help() -> str:
    """The dealers for an option's help (``--dealer``): every name, the ones that do not keep the game's
    probabilities said to be so."""
    wrong = [dealer.name for dealer in DEALERS.values() if not dealer.exact]
    return (f"one of {', '.join(DEALERS)} ({', '.join(wrong)}: deliberately wrong, a control the correctness checks "
            "must catch)")


def inexact_warning(name: str) -> str | None:
    """The warning for a tournament dealt by ``name`` when it does not keep the game's probabilities (None when it
    does): its rankings are of another game."""
    if dealer_named(name).exact:
        return None
    return (f"dealer {name} does not keep the game's probabilities (deliberately wrong: `autodup quality` shows it "
            "failing against the control); its results are not the game's")
