"""The roster's strength spread: every bot of bots/ at one table, seats rotating, on two disjoint seed sets.

Prints mean placement (with its standard error) and top-4 rate per bot for
each seed set, the Spearman correlation of the two rankings, and the gap
between the best and the worst bot. The README's bot table comes from here.

Usage: ``python benchmarks/bot_strengths.py [CONFIG] [--games N] [--dealer D] [--json]``
"""

from __future__ import annotations

import argparse
import json

import numpy as np
from scipy.stats import spearmanr

from autodup.engine.dealers import DEALERS
from autodup.errors import AutodupError, one_line
from autodup.game.boards import play_boards
from autodup.game.bot_loading import bot_names, load_bot, policy_tuple
from autodup.game.config import load_config
from autodup.game.rules import rules_of

SEED_SETS = (101, 202)  # tournament seeds: their boards are disjoint branches of the seed tree


def measure(config_path: str, games: int, dealer: str) -> dict:
    rules = rules_of(load_config(config_path))
    bots = [load_bot(name) for name in bot_names()]
    lineup = policy_tuple(bots)
    sets = []
    for seed in SEED_SETS:
        played = play_boards(rules, dealer, *lineup, seed=seed, boards=games, seating="rotating", n_bots=len(bots))
        results, who = played.results[:, 0], played.bots[:, 0]
        placements = results[:, :, 0]
        rows = {}
        for b, bot in enumerate(bots):
            mine = placements[who == b]
            rows[bot.name] = {"mean_placement": float(mine.mean()),
                              "standard_error": float(mine.std(ddof=1) / np.sqrt(mine.size)),
                              "top4_rate": float((mine <= 4).mean())}
        sets.append({"seed": seed, "games": games, "bots": rows})
    first = [sets[0]["bots"][b.name]["mean_placement"] for b in bots]
    second = [sets[1]["bots"][b.name]["mean_placement"] for b in bots]
    return {
        "config": config_path, "dealer": dealer, "seed_sets": sets,
        "spearman": float(spearmanr(first, second).statistic),
        "best_to_worst": float(min(max(first) - min(first), max(second) - min(second))),
    }


def markdown_table(result: dict) -> list:
    """The README's table: one row per bot, best first by the first seed set."""
    first, second = result["seed_sets"]
    lines = ["| bot | mean placement (seeds 101) | top 4 | mean placement (seeds 202) | top 4 |",
             "|---|---:|---:|---:|---:|"]
    for name, row in sorted(first["bots"].items(), key=lambda item: item[1]["mean_placement"]):
        other = second["bots"][name]
        first_cells = f"{row['mean_placement']:.2f} ± {row['standard_error']:.2f} | {row['top4_rate']:.2f}"
        other_cells = f"{other['mean_placement']:.2f} ± {other['standard_error']:.2f} | {other['top4_rate']:.2f}"
        lines.append(f"| {name} | {first_cells} | {other_cells} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config", nargs="?", default="set4",
                        help="a shipped configuration's name or a YAML file (default: set4)")
    parser.add_argument("--games", type=int, default=1000, help="games per seed set")
    parser.add_argument("--dealer", default="haystack", choices=sorted(DEALERS))
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--markdown", action="store_true", help="print only the table (as in the README)")
    args = parser.parse_args()
    try:
        result = measure(args.config, args.games, args.dealer)
    except AutodupError as error:  # a configuration that is not there or not valid: one line
        raise SystemExit(f"bot_strengths: {one_line(str(error))}") from None
    if args.json:
        print(json.dumps(result, indent=2))
        return
    if args.markdown:
        print("\n".join(markdown_table(result)))
        print(f"\nSpearman between the two seed sets: {result['spearman']:.2f}; best to worst: "
              f"{result['best_to_worst']:.1f} places.")
        return
    print(f"{args.config}, {args.dealer} dealer, {args.games} games per seed set, seats rotating")
    print("\n".join(markdown_table(result)))
    print(f"Spearman between the seed sets: {result['spearman']:.3f}; best to worst: "
          f"{result['best_to_worst']:.2f} places")


if __name__ == "__main__":
    main()
