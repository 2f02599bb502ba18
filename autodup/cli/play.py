"""``autodup play``: play one table and print each seat's result."""

from __future__ import annotations

from .options import (
    add_bot_parameter_options,
    add_config,
    add_game_timeout,
    board_index,
    bot_parameters,
    bots_help,
    note,
    print_json,
    seed,
    warn,
)

__all__ = ["add_arguments", "run"]


def add_arguments(parser) -> None:
    from ..api.tournaments import RUN_SEED
    from ..engine.dealers import DEFAULT_DEALER, dealers_help

    add_config(parser)
    parser.add_argument("--seed", type=seed, default=RUN_SEED, help="tournament seed, as in `autodup run`")
    parser.add_argument("--board", type=board_index, default=0, help="which board of the seed to play")
    parser.add_argument("--table", type=board_index, default=0, help="which table of the board: seat s plays bot "
                        "(s + table) mod (number of bots), as in `autodup run`")
    parser.add_argument("--bots", default="greedy", help=bots_help("greedy") + "; seated as in autodup run")
    add_bot_parameter_options(parser)
    parser.add_argument("--dealer", default=DEFAULT_DEALER, help=dealers_help())
    parser.add_argument("--order", default="events", help="who is served first when the seats refresh their "
                        "shops from the shared pool: events (an order drawn from the table's chance events, keyed as "
                        "--events says in autodup run) or race (a race across the seats' own draws; default: events)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    add_game_timeout(parser)


RESULT_COLUMNS = ["seat", "bot", "placement", "hp", "level", "gold_spent", "rolls", "units_bought", "shops_seen"]
# What a seat's bot did wrong: shown as columns only when some seat has one, so that a clean game fits 80 columns.
FAULT_COLUMNS = ["illegal_actions", "cap_hits", "bot_errors", "bad_answers"]


def run(args) -> int:
    from .. import api

    result = api.play(args.config, bots=args.bots, seed=args.seed, board=args.board, table=args.table,
                      dealer=args.dealer, order=args.order, game_timeout=args.game_timeout, progress=True, warn=warn,
                      note=note, **bot_parameters(args))
    if args.json:
        print_json(result, safe=False)
        return 0
    print(f"{result['config_name']}: seed {result['seed']}, board {result['board']}, table {result['table']}, "
          f"dealer {result['dealer']}, {result['rounds']} rounds")
    rows = sorted(result["seats"], key=lambda row: row["placement"])
    faults = any(row[column] for row in rows for column in FAULT_COLUMNS)
    print(aligned(RESULT_COLUMNS + FAULT_COLUMNS if faults else RESULT_COLUMNS, rows))
    if not faults:
        print("no bot made an illegal action, hit the action cap, raised or gave a bad answer")
    return 0


def aligned(columns: list, rows: list) -> str:
    """The rows' ``columns`` as lines of right-aligned fields, each column as wide as its widest entry."""
    cells = [columns] + [[str(row[column]) for column in columns] for row in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(columns))]
    return "\n".join("  ".join(cell.rjust(width) for cell, width in zip(line, widths)) for line in cells)
