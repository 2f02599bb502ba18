"""``autodup luck fit``: fit a value on training boards, the value a run's corrected placements are computed by."""

from __future__ import annotations

from .options import add_config, add_workers_and_backend, bots_help, count_up_to, note, seed, warn

__all__ = ["add_arguments", "run"]


def add_arguments(parser) -> None:
    from ..api.values import TRAINING_BOARDS, TRAINING_SEED

    parser.add_argument("action", choices=["fit"], help="fit: play training boards and fit the value on them")
    add_config(parser)
    parser.add_argument("--bots", help=bots_help())
    parser.add_argument("--boards", type=count_up_to(10 ** 6), default=TRAINING_BOARDS,
                        help=f"training boards (default: {TRAINING_BOARDS:,}); they are on a branch of the seed tree "
                        "of their own, never a board of a run")
    parser.add_argument("--seed", type=seed, default=TRAINING_SEED, help=f"the training run's seed (default: "
                        f"{TRAINING_SEED})")
    parser.add_argument("--out", help="the value file (default: <configuration file name>.value.json here; beside "
                        "the configuration's file, runs find it by themselves)")
    parser.add_argument("--run-folder", help="the training run's folder (default: under runs/; found again, it is "
                        "resumed)")
    add_workers_and_backend(parser)
    parser.add_argument("--ray-address", help="address of a Ray cluster (default: start one here)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def run(args) -> int:
    from .. import api

    path = api.fit_value(args.config, bots=args.bots, boards=args.boards, seed=args.seed, out=args.out,
                         run_folder=args.run_folder, workers=args.workers, backend=args.backend,
                         ray_address=args.ray_address, progress=not args.quiet, warn=warn, note=note)
    print(path)
    return 0
