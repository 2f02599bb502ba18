"""The coupling diagnostic: how often two tables' draws at one address agree, from traced games."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["coupling_kernel", "coupling_from_trace"]


@njit(cache=True, no_cfunc_wrapper=True)
def _champion_distribution(weights, n_tiers, champion_tier, out):
    """The law of one hierarchical draw over the champions and "nothing" (``out[N]``, float64 (N + 1,)).

    A champion's probability is its tier's share of the tier weights times its
    share of the tier's copies; a tier with odds but no copies (the
    ``empty_tier: empty`` rule) deals nothing, so its share goes to ``out[N]``.
    """
    tier_total = 0.0
    for t in range(n_tiers):
        tier_total += weights[t]
    n = out.shape[0] - 1
    copies = np.zeros(n_tiers)
    for c in range(n):
        copies[champion_tier[c]] += weights[n_tiers + c]
    out[n] = 0.0
    for t in range(n_tiers):
        if tier_total > 0 and copies[t] <= 0:
            out[n] += weights[t] / tier_total
    for c in range(n):
        t = champion_tier[c]
        if tier_total > 0 and copies[t] > 0:
            out[c] = weights[t] / tier_total * weights[n_tiers + c] / copies[t]
        else:
            out[c] = 0.0
    if tier_total <= 0:
        out[n] = 1.0


@njit(cache=True, no_cfunc_wrapper=True)
def _j_p(p, q):
    """P-MinHash agreement ``sum_i 1 / sum_j max(p_j / p_i, q_j / q_i)`` over outcomes both can draw."""
    total = 0.0
    for i in range(p.shape[0]):
        if p[i] <= 0 or q[i] <= 0:
            continue
        s = 0.0
        for j in range(p.shape[0]):
            s += max(p[j] / p[i], q[j] / q[i])
        total += 1.0 / s
    return total


@njit(cache=True, no_cfunc_wrapper=True)
def coupling_kernel(trace_weights, trace_key, trace_outcome, trace_count, champion_tier, n_tiers, out, per_board):
    """For every table pair at every (board, seat): the first traced draw whose inputs differ.

    ``out`` (float64 (8,)) accumulates: pairs found, outcomes equal there,
    J_P, 1 - TV, pairs whose weights differed there, draws before it that
    disagreed although their inputs were equal (0 for a duplicate dealer: a
    check of the trace itself), and pairs whose draw keys differed there (a
    draw made at another moment: another round or reroll), and of those whose
    keys were equal, the ones that agreed. ``per_board`` (float64 (boards, 2))
    accumulates each board's pairs found and outcomes equal there: the pairs
    of one board share its tables, so the boards are the independent units.
    """
    n_boards, n_tables, seats = trace_count.shape
    n = champion_tier.shape[0]
    p = np.zeros(n + 1)  # champions, then "nothing" (outcome -1)
    q = np.zeros(n + 1)
    for b in range(n_boards):
        for s in range(seats):
            for ta in range(n_tables):
                for tb in range(ta + 1, n_tables):
                    length = min(trace_count[b, ta, s], trace_count[b, tb, s])
                    for k in range(length):
                        weights_differ = False
                        for x in range(trace_weights.shape[4]):
                            if trace_weights[b, ta, s, k, x] != trace_weights[b, tb, s, k, x]:
                                weights_differ = True
                                break
                        if not weights_differ and trace_key[b, ta, s, k] == trace_key[b, tb, s, k]:
                            if trace_outcome[b, ta, s, k] != trace_outcome[b, tb, s, k]:
                                out[5] += 1.0
                            continue
                        _champion_distribution(trace_weights[b, ta, s, k], n_tiers, champion_tier, p)
                        _champion_distribution(trace_weights[b, tb, s, k], n_tiers, champion_tier, q)
                        agreed = 1.0 if trace_outcome[b, ta, s, k] == trace_outcome[b, tb, s, k] else 0.0
                        out[0] += 1.0
                        out[1] += agreed
                        per_board[b, 0] += 1.0
                        per_board[b, 1] += agreed
                        out[2] += _j_p(p, q)
                        distance = 0.0
                        for c in range(n + 1):
                            distance += abs(p[c] - q[c])
                        out[3] += 1.0 - 0.5 * distance
                        out[4] += 1.0 if weights_differ else 0.0
                        if trace_key[b, ta, s, k] != trace_key[b, tb, s, k]:
                            out[6] += 1.0
                        elif trace_outcome[b, ta, s, k] == trace_outcome[b, tb, s, k]:
                            out[7] += 1.0
                        break


def coupling_from_trace(trace_weights, trace_key, trace_outcome, trace_count, champion_tier, n_tiers) -> dict:
    """The coupling diagnostic of traced boards (arrays as :class:`autodup.game.boards.BoardResults` holds them).

    Returns ``{"boards", "draws", "pairs", "agreement", "agreement_se", "j_p", "one_minus_tv",
    "weights_differ", "key_differs", "agreement_same_key",
    "disagreed_on_equal_inputs"}``: over table pairs at each
    (board, seat) of the ``boards`` traced, each seat's first ``draws`` draws,
    at the first draw whose inputs (tier and champion weights,
    draw key) differ, the share that dealt the same champion, its standard
    error (the boards as units, a ratio's delta method: the table pairs of a
    board share its tables, so counting them as independent trials made it
    about half what it is; None with a single board), and the mean J_P and
    1 - TV of the two champion laws;
    also the share of those draws made at different keys (moments), and the
    agreement of the others (the keyed dealer's J_P holds at equal keys).
    """
    out = np.zeros(8)
    per_board = np.zeros((trace_count.shape[0], 2))
    coupling_kernel(trace_weights, trace_key, trace_outcome, trace_count,
                    np.asarray(champion_tier, dtype=np.int64), int(n_tiers), out, per_board)
    pairs = int(out[0])
    traced = {"boards": int(trace_count.shape[0]), "draws": int(trace_outcome.shape[3])}
    if pairs == 0:
        return {**traced, "pairs": 0, "agreement": None, "agreement_se": None, "j_p": None, "one_minus_tv": None,
                "weights_differ": None, "key_differs": None, "agreement_same_key": None,
                "disagreed_on_equal_inputs": int(out[5])}
    agreement = out[1] / pairs
    boards = per_board.shape[0]
    residuals = per_board[:, 1] - agreement * per_board[:, 0]
    se = (math.sqrt(float(np.sum(residuals ** 2)) / (boards * (boards - 1))) / (pairs / boards)
          if boards > 1 else None)
    return {**traced, "pairs": pairs, "agreement": agreement, "agreement_se": se,
            "j_p": out[2] / pairs, "one_minus_tv": out[3] / pairs, "weights_differ": out[4] / pairs,
            "key_differs": out[6] / pairs,
            "agreement_same_key": out[7] / (pairs - out[6]) if pairs > out[6] else None,
            "disagreed_on_equal_inputs": int(out[5])}
