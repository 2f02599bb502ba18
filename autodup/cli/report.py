"""``autodup report``: measure existing run folders of the same boards (one per dealer, the independent
control among them): quality.json and report.html."""

from __future__ import annotations

from .options import add_game_timeout, note

__all__ = ["add_arguments", "run"]


def add_arguments(parser) -> None:
    parser.add_argument("runs", nargs="+", help="run folders (what `autodup run` printed)")
    parser.add_argument("--out", required=True, help="folder for quality.json, report.html and the plots")
    parser.add_argument("--no-trace", action="store_true", help="skip the coupling diagnostic (it replays the "
                        "first boards of each run with the runs' bots)")
    parser.add_argument("--json", action="store_true", help="print quality.json")
    add_game_timeout(parser)


def run(args) -> int:
    from .. import api
    from .quality import print_report

    print_report(api.report(args.runs, args.out, trace=not args.no_trace, game_timeout=args.game_timeout,
                            note=note), args.json)
    return 0
