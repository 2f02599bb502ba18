"""``autodup odds``: the chances of finding k copies of a champion by rolling: the public calculators' chain,
the game's exact law and a simulation through the game's shop."""

from __future__ import annotations

import argparse

from .options import add_config, count, note, positive_int, print_json, seed, switch, warn

__all__ = ["add_arguments", "run"]


def _renamed(text: str):
    raise argparse.ArgumentTypeError("renamed --copies-out (the copies other players hold; --out names an output "
                                     "folder in the other commands)")


def add_arguments(parser) -> None:
    from ..api.tournaments import RUN_SEED
    from ..engine.dealers import DEALERS, DEFAULT_DEALER
    from ..labs.odds import DEFAULT_TRIALS
    from ..labs.odds_simulation import SIMULATION_METHODS

    add_config(parser)
    parser.add_argument("--level", type=positive_int, required=True, help="your level")
    parser.add_argument("--champion", required=True, help="the champion you look for (its name in the config)")
    parser.add_argument("--copies-out", type=count, default=0, help="copies of it out of the pool (other players "
                        "hold them)")
    # --out names an output folder in every other command; here it was the copies out, now --copies-out.
    parser.add_argument("--out", type=_renamed, help=argparse.SUPPRESS)
    parser.add_argument("--cost-out", type=count, default=0, help="other units of its cost out of the pool")
    parser.add_argument("--gold", type=count, help="gold to spend on rolls (purchases are not counted, as in the "
                        "public calculators)")
    parser.add_argument("--rolls", type=count, help="rolls instead of --gold")
    parser.add_argument("--owned", type=count, default=0, help="copies you own (out of the pool too); it looks for "
                        "up to a 3-star")
    parser.add_argument("--buy-xp", action="store_true", help="buy XP to the next level first (from --gold) and roll "
                        "there")
    parser.add_argument("--xp", type=count, default=0, help="XP you have toward the next level (with --buy-xp)")
    parser.add_argument("--trials", type=count, default=DEFAULT_TRIALS, help="simulated roll sequences (0: none)")
    parser.add_argument("--dealer", default=DEFAULT_DEALER, help=f"the simulation's dealer: one of "
                        f"{', '.join(DEALERS)}")
    parser.add_argument("--seed", type=seed, default=RUN_SEED, help="the simulation's seed")
    parser.add_argument("--simulation", choices=SIMULATION_METHODS, default="auto", help="game: every slot "
                        "through the table's shop; watched: only the draws the question sees (the same counts "
                        "trial by trial, about 3x faster, while no other tier can run out; not for replay); "
                        "auto (default): watched where it applies")
    parser.add_argument("--threads", type=positive_int, help="trials simulated side by side (default: one per "
                        "core; the counts do not depend on it)")
    parser.add_argument("--holding", type=switch, metavar="on|off", help="whether shown units leave the pool until "
                        "the shop changes (default: the config's shop.units_leave_pool)")
    parser.add_argument("--other-shops", type=count, metavar="K", help="other seats holding a shop while you roll, "
                        "with holding (default: every other seat)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--plot", metavar="FILE.png", help="write a bar chart of P(at least k), the three methods")


def run(args) -> int:
    from .. import api

    answer = api.odds(args.config, level=args.level, champion=args.champion, gold=args.gold, rolls=args.rolls,
                      copies_out=args.copies_out, cost_out=args.cost_out, owned=args.owned, buy_xp=args.buy_xp,
                      xp=args.xp, trials=args.trials, dealer=args.dealer, seed=args.seed, holding=args.holding,
                      other_shops=args.other_shops, simulation=args.simulation, threads=args.threads,
                      plot=args.plot, progress=not args.quiet, warn=warn, note=note)
    print_json(answer.data, safe=False) if args.json else print(answer.text)
    return 0
