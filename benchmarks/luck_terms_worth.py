"""What each family of luck terms buys: the variance a value removes with and without it, on other boards.

A game pays for its luck terms (``profile_game.py``: the fights' state values and
their terms are most of combat's share), and a value's corrections weigh them
(``autodup.game.value``). This script measures the other side of that cost: for
each family of terms, a value is fitted without it (its features zeroed, so the
fit leaves them out, as ``autodup luck fit`` would fit a game without them) on
several training sets (boards of the training branch, one seed each), and every
fit corrects the same evaluation boards (another seed). A family is worth its
cost when the variance it removes is worth more than the games it slows down:
the seconds to a verdict go as a game's time times the variance
(``bench_verdict.py``).

Set4, the eight shipped bots seated by the Latin square (8 tables a board), the
haystack. The figure is the variance reduction of the duplicate format's
corrected bot comparisons against its raw ones: the mean over every pair of bots
of the variance, over evaluation boards, of the difference of their mean
placements on the board (:func:`autodup.analysis.value_fit.comparison_variance`).
Fits use :class:`autodup.analysis.value_fit.ValueFit`
as ``autodup luck fit`` does; each is made with every minimum support given
(``--min-support``, repeatable: the rows in which a feature must move to get a
slope; by default the fit's own, and 0, none).

Usage: ``python benchmarks/luck_terms_worth.py [--training-boards 2000] [--training-sets 3]
[--evaluation-boards 3000] [--min-support 50 --min-support 0] [--json]``
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from autodup.analysis.value_fit import MIN_SUPPORT, ValueFit, comparison_variance
from autodup.game.boards import play_boards
from autodup.game.bot_loading import bot_names, load_bot, policy_tuple
from autodup.game.config import load_config
from autodup.game.rules import rules_of
from autodup.game.stats import LUCK_NAMES, RESULT_COLUMNS
from autodup.game.value import corrections_of_boards

# The families a game computes together: the value's terms share its state values before the fights. (The
# standing's two terms, a logistic in HP alone, were a family too until results format 11 dropped them: they
# removed 1% of the variance for 2.5% of a game's time.)
FAMILIES = {
    "every term kept": (),
    "without the value terms": ("coin_value", "coin_duel", "coin_onlooker", "matchmaking_value"),
    "without the duel": ("coin_duel",),
    "without the onlookers": ("coin_onlooker",),
    "without the shop terms": ("shop_hits", "shop_cost", "shop_pairs", "shop_traits"),
}
EVALUATION_SEED = 1
TRAINING_SEED = 100
PLACEMENT = RESULT_COLUMNS.index("placement")


def without(stage_luck: np.ndarray, terms) -> np.ndarray:
    """A copy of ``stage_luck`` (float64 (..., len(LUCK), STAGE_BUCKETS)) with the luck terms named ``terms``
    zeroed: their features never vary, so a fit leaves them out (weight 0)."""
    kept = stage_luck.copy()
    for name in terms:
        kept[..., LUCK_NAMES.index(name), :] = 0.0
    return kept


def measure(training_boards: int, training_sets: int, evaluation_boards: int, supports) -> dict:
    """The raw comparisons' variance on the evaluation boards, and for each family and minimum support the variance
    reduction of each training set's fit (see the module docstring)."""
    rules = rules_of(load_config("set4"))
    names = bot_names()
    lineup = policy_tuple([load_bot(name) for name in names])

    def play(seed, boards, branch):
        # The Latin square: a table per bot, so that every bot sits at every seat of a board.
        return play_boards(rules, "haystack", *lineup, seed=seed, boards=boards, tables=len(names), seating="latin",
                           n_bots=len(names), branch=branch)

    evaluation = play(EVALUATION_SEED, evaluation_boards, "evaluation")
    placement = evaluation.results[..., PLACEMENT].astype(np.float64)
    raw = comparison_variance(placement, evaluation.bots, len(names))
    reductions = {family: {support: [] for support in supports} for family in FAMILIES}
    for k in range(training_sets):
        training = play(TRAINING_SEED + k, training_boards, "training")
        players = training.bots.shape[2]
        for family, terms in FAMILIES.items():
            fit = ValueFit(names)
            stage_luck = without(training.stage_luck, terms)
            fit.add(training.bots.reshape(-1), training.results[..., PLACEMENT].reshape(-1),
                    stage_luck.reshape(-1, stage_luck.shape[-2] * stage_luck.shape[-1]), players)
            evaluated = without(evaluation.stage_luck, terms)
            for support in supports:
                weights = fit.weights(min_support=support)
                corrections = corrections_of_boards(evaluated, evaluation.bots,
                                                    np.array([weights[name] for name in names])).sum(axis=-1)
                reductions[family][support].append(raw / comparison_variance(placement - corrections, evaluation.bots,
                                                                           len(names)))
    return {
        "raw_comparison_variance": raw,
        "reductions": {family: {str(support): values for support, values in by_support.items()}
                       for family, by_support in reductions.items()},
        "terms": {family: list(terms) for family, terms in FAMILIES.items()},
        "training_boards": training_boards, "training_sets": training_sets, "evaluation_boards": evaluation_boards,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--training-boards", type=int, default=2000, help="boards of each training set")
    parser.add_argument("--training-sets", type=int, default=3, help="training sets (one seed each)")
    parser.add_argument("--evaluation-boards", type=int, default=3000, help="evaluation boards")
    parser.add_argument("--min-support", type=int, action="append", default=[],
                        help=f"rows a feature must move in to get a slope (repeatable; default {MIN_SUPPORT} and 0)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args()
    supports = list(dict.fromkeys(args.min_support or [MIN_SUPPORT, 0]))
    result = measure(args.training_boards, args.training_sets, args.evaluation_boards, supports)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"variance reduction of the corrected bot comparisons over the raw duplicate ones, on "
          f"{args.evaluation_boards:,} evaluation boards; {args.training_sets} fits on {args.training_boards:,} "
          f"training boards each")
    for family, by_support in result["reductions"].items():
        for support, values in by_support.items():
            print(f"{family:<28} min support {support:<4} " + " ".join(f"{v:.2f}" for v in values)
                  + f"   mean {np.mean(values):.2f}")


if __name__ == "__main__":
    main()
