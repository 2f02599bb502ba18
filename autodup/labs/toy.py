"""The seed article's toy example: joint outcomes of Alice and Bob under each duplication system.

A deck of five cards, one X and four blanks. Draw one. If it was not the X,
the player may set the X aside. Draw a second. If the X was set aside, shuffle
it back. Draw a third. Alice (columns) always sets the X aside; Bob (rows)
never does. Each system deals both tables from one shared seed per trial; the
result is the 4 x 3 table of joint probabilities (the article's Figs. 1-5),
plus the same toy driven through the keyed exponential race.

Each trial's seed is ``derive_seed(seed, LABEL_TRIAL, trial)``; trials run in
parallel and are counted after, so the result does not depend on threads.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..arguments import integer
from ..engine.kernels import engine_state, haystack_race, keyed_race
from ..engine.rng import (
    LABEL_TABLE,
    LABEL_TRIAL,
    STREAM_TOY_FIRST_SHUFFLE,
    STREAM_TOY_SECOND_SHUFFLE,
    derive_seed_kernel,
    random_uniform,
)

__all__ = ["ROWS", "COLS", "FIGURES", "ARTICLE", "DEFAULT_TRIALS", "MAX_TRIALS", "TRIALS_PER_BLOCK", "DEFAULT_SEED",
           "toy_outcomes", "toy_figures", "format_figures"]

ROWS = [
    "X on 1st draw",
    "Keep X; X on 2nd draw",
    "Keep X; X on 3rd draw",
    "Keep X; X not drawn",
]
COLS = [
    "X on 1st draw",
    "Remove X; X on 3rd draw",
    "Remove X; X not drawn",
]
FIGURES = {
    "fig1": "independent (the underlying game)",
    "fig2": "replay: the incorrect system",
    "fig3": "two-shuffle system",
    "fig4": "amended system",
    "fig5": "general system (Haystack)",
    "keyed": "keyed exponential race",
}

# The article's figures as printed (it truncates: 0.1066 is 8/75).
ARTICLE = {
    "fig1": [[0.04, 0.0533, 0.1066], [0.04, 0.0533, 0.1066], [0.04, 0.0533, 0.1066], [0.08, 0.1066, 0.2133]],
    "fig2": [[0.2, 0.0, 0.0], [0.0, 0.0, 0.2], [0.0, 0.2, 0.0], [0.0, 0.0, 0.4]],
    "fig3": [[0.2, 0.0, 0.0], [0.0, 0.0666, 0.1333], [0.0, 0.0666, 0.1333], [0.0, 0.1333, 0.2666]],
    "fig4": [[0.2, 0.0, 0.0], [0.0, 0.0666, 0.1333], [0.0, 0.2, 0.0], [0.0, 0.0, 0.4]],
    "fig5": [[0.2, 0.0, 0.0], [0.0, 0.1333, 0.0666], [0.0, 0.1333, 0.0666], [0.0, 0.0, 0.4]],
}

DEFAULT_TRIALS = 1_000_000
MAX_TRIALS = 10**9          # about an hour on two cores; more is surely a typo
TRIALS_PER_BLOCK = 1 << 20  # trials whose outcomes are held at once (6 MB)
DEFAULT_SEED = 20230527

_N_SYSTEMS = 6
_X, _BLANK = 0, 1
_FIRST_SHUFFLE, _SECOND_SHUFFLE = np.uint64(STREAM_TOY_FIRST_SHUFFLE), np.uint64(STREAM_TOY_SECOND_SHUFFLE)


@njit(cache=True, no_cfunc_wrapper=True)
def _x_position(seed, stream, n_cards):
    """Position of the X (card 0) after a Fisher-Yates shuffle of ``n_cards`` cards."""
    position = 0  # the X starts on top
    for i in range(n_cards - 1, 0, -1):
        j = int(random_uniform(seed, stream, np.uint64(i)) * (i + 1))
        if j == position:
            position = i
        elif i == position:
            position = j
    return position


@njit(cache=True, no_cfunc_wrapper=True)
def _bob_row(x_position):
    return min(x_position, 3)


@njit(cache=True, no_cfunc_wrapper=True)
def _replay_alice(x_position, x_position_second, amended):
    """Alice under the replay system; ``amended`` returns a replaced X by a second shuffle."""
    if x_position == 0:
        return 0
    if x_position == 1:  # second draw would be the X: a blank is substituted
        if amended:
            return 1 if x_position_second == 0 else 2
        return 2
    return 1 if x_position == 2 else 2


@njit(cache=True, no_cfunc_wrapper=True)
def _race_player(engine_keyed, seed, removes, needles, needle_count, weights):
    """Play the toy with one of the exponential races over outcomes {X, blank} weighted by counts.

    Returns the draw (0, 1, 2) at which the X came, or 3 if it never did.
    """
    needles[:] = 0.0
    needle_count[:] = 0
    x_in_deck, blanks, x_set_aside = 1.0, 4.0, False
    for draw in range(3):
        if draw == 2 and x_set_aside:
            x_in_deck, x_set_aside = 1.0, False
        weights[_X] = x_in_deck
        weights[_BLANK] = blanks
        if engine_keyed:
            card = keyed_race(seed, draw, weights, 0, 2, 0)
        else:
            card = haystack_race(seed, needles, needle_count, weights, 0, 2, 0)
        if card == _X:
            return draw
        blanks -= 1.0
        if draw == 0 and removes:
            x_in_deck, x_set_aside = 0.0, True
    return 3


@njit(cache=True, no_cfunc_wrapper=True)
def _alice_column(x_draw):
    # Alice removes the X after a blank first draw, so it can only come 1st or 3rd.
    return 0 if x_draw == 0 else (1 if x_draw == 2 else 2)


@njit(cache=True, no_cfunc_wrapper=True, parallel=True)
def toy_outcomes(seed, first_trial, trials):
    """Joint outcome of every system in trials ``first_trial .. first_trial + trials - 1``.

    Parameters
    ----------
    seed : uint64
    first_trial, trials : int

    Returns
    -------
    numpy.ndarray
        int8, shape (trials, 6): ``row * 3 + column`` per system, in the
        order fig1, fig2, fig3, fig4, fig5, keyed.
    """
    out = np.empty((trials, _N_SYSTEMS), dtype=np.int8)
    for i in prange(trials):
        trial = first_trial + i
        _, needles, needle_count = engine_state(2)
        weights = np.zeros(2)
        trial_seed = derive_seed_kernel(seed, LABEL_TRIAL, np.uint64(trial))

        # Fig. 1: independent tables, each with its own shuffles.
        bob_seed = derive_seed_kernel(trial_seed, LABEL_TABLE, np.uint64(0))
        alice_seed = derive_seed_kernel(trial_seed, LABEL_TABLE, np.uint64(1))
        alice_first = _x_position(alice_seed, _FIRST_SHUFFLE, 5)
        alice = 0 if alice_first == 0 else (1 if _x_position(alice_seed, _SECOND_SHUFFLE, 3) == 0 else 2)
        out[i, 0] = _bob_row(_x_position(bob_seed, _FIRST_SHUFFLE, 5)) * 3 + alice

        # Figs. 2-4: one shared shuffle; a shared second shuffle of {X, blank, blank} when needed.
        shared = _x_position(trial_seed, _FIRST_SHUFFLE, 5)
        second = _x_position(trial_seed, _SECOND_SHUFFLE, 3)
        bob = _bob_row(shared)
        out[i, 1] = bob * 3 + _replay_alice(shared, second, False)
        out[i, 2] = bob * 3 + (0 if shared == 0 else (1 if second == 0 else 2))
        out[i, 3] = bob * 3 + _replay_alice(shared, second, True)

        # Fig. 5 and keyed: the exponential races, same seed at both tables.
        for system, keyed in ((4, False), (5, True)):
            bob_x = _race_player(keyed, trial_seed, False, needles, needle_count, weights)
            alice_x = _race_player(keyed, trial_seed, True, needles, needle_count, weights)
            out[i, system] = bob_x * 3 + _alice_column(alice_x)
    return out


def toy_figures(trials: int = DEFAULT_TRIALS, seed: int = DEFAULT_SEED) -> dict:
    """Joint probability tables of the toy example for every system.

    Parameters
    ----------
    trials : int
        Number of paired games per system.
    seed : int
        Root seed, in ``[0, 2**64)``.

    Returns
    -------
    dict
        ``{"rows": [4 labels], "cols": [3 labels], "figures": {name: 4 x 3
        nested lists of probabilities}, "trials": trials}``, names as in
        ``FIGURES``.
    """
    from ..engine.rng import check_seed

    trials = integer("trials", trials, 1, MAX_TRIALS)
    seed = np.uint64(check_seed(seed))
    counts = np.zeros((_N_SYSTEMS, 12), dtype=np.int64)
    # Trials are played in blocks: memory stays flat however many are asked for.
    for first in range(0, int(trials), TRIALS_PER_BLOCK):
        outcomes = toy_outcomes(seed, first, min(TRIALS_PER_BLOCK, int(trials) - first))
        for system in range(_N_SYSTEMS):
            counts[system] += np.bincount(outcomes[:, system], minlength=12)
    figures = {name: (counts[system].reshape(4, 3) / trials).tolist() for system, name in enumerate(FIGURES)}
    return {"rows": list(ROWS), "cols": list(COLS), "figures": figures, "trials": int(trials)}


def format_figures(result: dict) -> str:
    """The tables as text for a person, each entry beside the article's value."""
    lines = [f"Seed article's toy example, {result['trials']:,} trials per system.",
             "Rows: Bob (never removes the X). Columns: Alice (always removes it when allowed).", ""]
    width = max(len(r) for r in ROWS)
    for name, label in FIGURES.items():
        table = result["figures"][name]
        article = ARTICLE.get(name)
        lines.append(f"{name}: {label}" + ("" if article else "  (no figure in the article)"))
        lines.append(" " * width + " | " + " | ".join(f"{c:>24}" for c in COLS) + " |      sum")
        for r, row_label in enumerate(ROWS):
            cells = []
            for c in range(3):
                cell = f"{table[r][c]:.4f}"
                if article:
                    cell += f" (article {article[r][c]:.4f})"
                cells.append(f"{cell:>24}")
            lines.append(f"{row_label:>{width}} | " + " | ".join(cells) + f" | {sum(table[r]):8.4f}")
        sums = [sum(table[r][c] for r in range(4)) for c in range(3)]
        lines.append(f"{'sum':>{width}} | " + " | ".join(f"{s:>24.4f}" for s in sums) + " |")
        lines.append("")
    keyed, amended = np.array(result["figures"]["keyed"]), np.array(result["figures"]["fig4"])
    lines.append(f"keyed vs fig4 (amended): largest difference {np.abs(keyed - amended).max():.4f}")
    return "\n".join(lines)
