"""Statistical helpers shared by the tests (kept tiny: scipy does the work)."""

from __future__ import annotations

import itertools

import numpy as np
from scipy import stats

# Fixed seeds make every test deterministic; a p-value below this is about a
# 5-sigma event, so a correct engine fails with negligible probability.
P_FLOOR = 1e-6


def goodness_of_fit(counts, probabilities) -> float:
    """Chi-square p-value of observed ``counts`` against exact ``probabilities``.

    Categories of probability zero must have zero counts (asserted).
    """
    counts = np.asarray(counts, dtype=np.float64)
    probabilities = np.asarray(probabilities, dtype=np.float64)
    impossible = probabilities == 0
    assert counts[impossible].sum() == 0, f"impossible outcomes observed: {np.flatnonzero(impossible & (counts > 0))}"
    if (~impossible).sum() == 1:
        return 1.0  # one possible outcome: the assertion above was the whole test
    expected = probabilities[~impossible] / probabilities[~impossible].sum() * counts.sum()
    return float(stats.chisquare(counts[~impossible], expected).pvalue)


def same_distribution(counts_a, counts_b) -> float:
    """Two-sample chi-square p-value (contingency table) that both count vectors share one distribution."""
    table = np.array([counts_a, counts_b], dtype=np.float64)
    table = table[:, table.sum(axis=0) > 0]
    return float(stats.chi2_contingency(table).pvalue)


def agreement_probability(p, q) -> float:
    """P-MinHash coupling ``J_P(p, q) = sum_i 1 / sum_j max(p_j / p_i, q_j / q_i)`` (normalised p, q)."""
    p = np.asarray(p, dtype=np.float64) / np.sum(p)
    q = np.asarray(q, dtype=np.float64) / np.sum(q)
    total = 0.0
    for i in np.flatnonzero((p > 0) & (q > 0)):
        total += 1.0 / np.sum(np.maximum(p / p[i], q / q[i]))
    return total


def sequence_distribution(step_weights, n_steps):
    """Exact distribution of outcome sequences when weights depend on the past.

    ``step_weights(history) -> weights`` gives the weights of the next draw.
    Returns ``{sequence tuple: probability}`` by enumeration.
    """
    result = {}

    def walk(history, probability):
        if len(history) == n_steps:
            result[tuple(history)] = probability
            return
        weights = np.asarray(step_weights(history), dtype=np.float64)
        total = weights.sum()
        for i in np.flatnonzero(weights > 0):
            walk(history + [int(i)], probability * weights[i] / total)

    walk([], 1.0)
    return result


def all_sequences(n_outcomes, n_steps):
    return list(itertools.product(range(n_outcomes), repeat=n_steps))
