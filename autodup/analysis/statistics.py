"""Statistics, in one place: the intervals every report gives (normal, Student's t, bootstrap percentiles,
Wilson), variance ratios, the boards needed to resolve a difference (at 80% power), ratio observables compared by a Wald
test, and Holm's correction.

Every interval is a two-sided 95% interval (:data:`CONFIDENCE`).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["CONFIDENCE", "Z95", "POWER", "Z_POWER", "mean_half_width", "t_half_width", "percentile_interval",
           "wilson_interval", "variance_ratio", "boards_needed", "RatioObservable", "WALD_BOARDS_PER_DIMENSION",
           "CONSTANT_BOARDS", "two_sample_test", "holm", "t_interval_p_value"]

CONFIDENCE = 0.95
Z95 = 1.959963984540054     # two-sided 95% normal quantile
# The power "boards needed" plans for: the chance that a run of that many boards tells the pair apart (its 95%
# interval excludes 0). At (Z95 sd / mean)^2 boards that chance is only 1/2; 80% is the usual planning figure.
POWER = 0.8
Z_POWER = 0.8416212335729143  # the normal's 80% quantile


def mean_half_width(values) -> float | None:
    """Half-width of Student's t 95% interval of the mean of ``values`` (float64 (n,)): ``t sd / sqrt(n)``, with
    ``n - 1`` degrees of freedom (1.96 sd / sqrt(n) covered the mean in 70% of runs of 2 values, 88% of 5);
    None with a single value (no spread to estimate from).

    Examples
    --------
    >>> round(mean_half_width(np.array([1.0, 2.0, 3.0, 4.0])), 4)
    2.0543
    """
    return float(t_half_width(values.var(ddof=1) / values.size, values.size - 1)) if values.size > 1 else None


def t_half_width(variance_of_mean, dof: int, confidence: float = CONFIDENCE):
    """Half-width of Student's t interval from the variance of a mean (float or float64 array) and its degrees
    of freedom (at least 1)."""
    from scipy.stats import t

    return t.ppf(0.5 + confidence / 2, max(dof, 1)) * np.sqrt(variance_of_mean)


def percentile_interval(samples) -> list:
    """The 2.5% and 97.5% percentiles of bootstrap ``samples`` (float64 (n,)), or ``[None, None]`` when empty."""
    return np.percentile(samples, [2.5, 97.5]).tolist() if samples.size else [None, None]


def wilson_interval(successes: int, trials: int, confidence: float = CONFIDENCE) -> tuple:
    """The Wilson score interval of a proportion (scipy's ``binomtest(...).proportion_ci``).

    Examples
    --------
    >>> [round(bound, 4) for bound in wilson_interval(50, 100)]
    [0.4038, 0.5962]
    """
    from scipy.stats import binomtest

    interval = binomtest(int(successes), int(trials)).proportion_ci(confidence, method="wilson")
    return float(interval.low), float(interval.high)


def variance_ratio(numerator, denominator):
    """``numerator / denominator`` of variances (floats or arrays), inf or NaN where the denominator is 0."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return numerator / denominator


def boards_needed(variance: float, mean: float) -> float:
    """Boards needed to tell a mean difference ``mean`` from 0 with per-board variance ``variance``: a run of that
    many boards has a 95% interval that excludes 0 with probability :data:`POWER` (80%).

    ``((Z95 + Z_POWER) sd / |mean|)^2`` (inf for a mean of 0): the run's mean is normal about ``mean`` with
    standard error ``sd / sqrt(n)``, and its interval excludes 0 when the mean is ``Z95`` standard errors from
    it, which happens with probability ``Phi(|mean| sqrt(n) / sd - Z95)`` (plus a far smaller chance on the wrong
    side). ``(Z95 sd / |mean|)^2``, the boards at which the interval's half-width equals the difference, gives a
    chance of only 1/2.

    Examples
    --------
    >>> round(boards_needed(1.0, 0.1))
    785
    """
    return (Z95 + Z_POWER) ** 2 * variance / mean ** 2 if mean != 0 else math.inf

# --------------------------------------------------------------------------
# ratio observables: per-board sums, compared by a Wald test
# --------------------------------------------------------------------------


class RatioObservable:
    """A vector of ratios ``sum_b y_b / sum_b n_b`` (k components) with its covariance over boards.

    Only sums of products are kept (``sum y y'``, ``sum y n'``, ``sum n n'``),
    so memory does not grow with boards. The covariance of the ratios is the
    delta method's: the covariance over boards of ``(y_b - r n_b)``, divided by
    ``B`` and by the mean denominator's square, component by component.
    """

    def __init__(self, name: str, k: int):
        self.name = name
        self.boards = 0
        # Boards with a denominator, component by component: a board whose n is 0 (a level its seats never
        # reached) adds nothing to the covariance, which is then estimated from these boards alone.
        self.boards_with_n = np.zeros(k, dtype=np.int64)
        self.sum_y = np.zeros(k)
        self.sum_n = np.zeros(k)
        self.yy = np.zeros((k, k))
        self.yn = np.zeros((k, k))
        self.nn = np.zeros((k, k))

    def add(self, y: np.ndarray, n: np.ndarray) -> None:
        """Add boards: ``y`` and ``n`` float64 (boards, k) (``n`` may be (boards, 1): one denominator)."""
        y = np.asarray(y, dtype=np.float64)
        n = np.broadcast_to(np.asarray(n, dtype=np.float64), y.shape)
        self.boards += y.shape[0]
        self.boards_with_n += (n > 0).sum(axis=0)
        self.sum_y += y.sum(axis=0)
        self.sum_n += n.sum(axis=0)
        self.yy += y.T @ y
        self.yn += y.T @ n
        self.nn += n.T @ n

    def estimate(self) -> tuple:
        """``(ratios, covariance)``: float64 (k,) and (k, k); NaN ratios where no board had a denominator."""
        with np.errstate(invalid="ignore", divide="ignore"):
            r = self.sum_y / self.sum_n
        r0 = np.where(np.isfinite(r), r, 0.0)
        B = self.boards
        # sum_b (y - r n)(y - r n)' expanded, then centred (its mean is zero at the ratio estimate).
        s = self.yy - self.yn * r0[None, :] - (self.yn * r0[None, :]).T + np.outer(r0, r0) * self.nn
        mean_n = self.sum_n / max(B, 1)
        with np.errstate(invalid="ignore", divide="ignore"):
            scale = np.where(mean_n > 0, 1.0 / mean_n, 0.0)
        covariance = s * np.outer(scale, scale) / max(B, 1) / max(B - 1, 1)
        return r, covariance


WALD_BOARDS_PER_DIMENSION = 10  # fewer boards per dimension: the covariance is too noisy to invert


CONSTANT_BOARDS = 6


def two_sample_test(a: RatioObservable, b: RatioObservable) -> dict:
    """Whether two runs' ratios differ: ``{"test", "statistic", "df", "p_value"}``.

    With at least :data:`WALD_BOARDS_PER_DIMENSION` boards per dimension in
    each run, a Wald test on the covariance's rank ``d``; with fewer, whose
    covariance estimate would be too noisy to invert, each component is tested
    on its own (Welch's t, Welch-Satterthwaite degrees of freedom) and the
    smallest p-value is Bonferroni-corrected over the components
    (``"max-t"``). Components with no denominator in either run, or varying in
    neither, are left out; a difference that cannot be chance has p = 0: with
    boards enough for the Wald test, one outside the covariance's span, and
    with at least :data:`CONSTANT_BOARDS` boards, one in a component that kept
    one value in each run.

    A run's boards are those with a denominator (``boards_with_n``; the fewest
    over the components compared): a board whose seats never reached a level
    says nothing about that level's tiers. The Wald statistic ``T2`` is referred
    to Hotelling's law through its F form, ``T2 (nu - d + 1) / (nu d)`` against
    F(d, nu - d + 1) with ``nu`` the two runs' boards less 2, since its
    covariance is estimated: against chi-square(d), at 1,000 boards a run and 57
    components (a run's offers), an exact dealer was flagged at p < 0.001 in
    0.23% of runs, and where 2% of the boards reached a level in 1.35%.
    """
    from scipy.stats import f as fisher
    from scipy.stats import t as student

    ra, ca = a.estimate()
    rb, cb = b.estimate()
    keep = np.isfinite(ra) & np.isfinite(rb)
    d = (ra - rb)[keep]
    va, vb = ca[np.ix_(keep, keep)], cb[np.ix_(keep, keep)]
    v = va + vb
    if d.size == 0:
        return {"test": "none", "statistic": 0.0, "df": 0, "p_value": 1.0}
    values, vectors = np.linalg.eigh(v)
    top = values.max() if values.size else 0.0
    # Below this a variance is rounding left by y - r n, not variation: relative to the largest eigenvalue,
    # and to the ratios' own scale (a ratio such as 3/17 is not exact in binary).
    scale = max(np.abs(ra[keep]).max(), np.abs(rb[keep]).max(), 1e-300) ** 2
    floor = max(max(top, 0.0) * 1e-10, scale * 1e-16)
    rank_mask = values > floor
    rank = int(rank_mask.sum())
    projected = vectors.T @ d
    outside = np.sqrt(np.sum(projected[~rank_mask] ** 2))
    tolerance = 1e-9 * max(1.0, np.abs(d).max())
    boards_a, boards_b = a.boards_with_n[keep], b.boards_with_n[keep]
    fewest_a, fewest_b = int(boards_a.min()), int(boards_b.min())
    enough = min(fewest_a, fewest_b) >= WALD_BOARDS_PER_DIMENSION * max(rank, 1)
    # A difference outside the covariance's span is one the boards say cannot happen by chance, but only when
    # the boards are enough to span what varies: B boards span at most 2(B - 1) directions, so with few boards
    # every difference of many components lies partly outside (a correct dealer failed at 20 boards).
    if (enough or rank == 0) and outside > tolerance:
        return {"test": "exact", "statistic": math.inf, "df": max(rank, 1), "p_value": 0.0}
    if rank == 0:
        return {"test": "none", "statistic": 0.0, "df": 0, "p_value": 1.0}
    if enough:
        statistic = float(np.sum(projected[rank_mask] ** 2 / values[rank_mask]))
        nu = fewest_a + fewest_b - 2
        p_value = fisher.sf(statistic * (nu - rank + 1) / (nu * rank), rank, nu - rank + 1)
        return {"test": "wald", "statistic": statistic, "df": rank, "p_value": float(p_value)}
    var_a, var_b = np.diag(va), np.diag(vb)
    varies = (var_a + var_b) > floor
    # A component that kept one value in each run over CONSTANT_BOARDS boards or more, different between the
    # runs, cannot be chance; over fewer (a rare champion met once on each of 3 boards) it may be, and is left out.
    seen_enough = np.minimum(boards_a, boards_b) >= CONSTANT_BOARDS
    if np.any(~varies & (np.abs(d) > tolerance) & seen_enough):
        return {"test": "exact", "statistic": math.inf, "df": int(varies.sum()) or 1, "p_value": 0.0}
    if not varies.any():  # one board a run, or every component constant over too few boards: nothing to test
        return {"test": "none", "statistic": 0.0, "df": 0, "p_value": 1.0}
    se2 = (var_a + var_b)[varies]
    t_values = np.abs(d[varies]) / np.sqrt(se2)
    dof_a, dof_b = np.maximum(boards_a[varies] - 1, 1), np.maximum(boards_b[varies] - 1, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        welch = se2 ** 2 / (var_a[varies] ** 2 / dof_a + var_b[varies] ** 2 / dof_b)
    welch = np.where(np.isfinite(welch), welch, np.minimum(dof_a, dof_b))
    p_values = 2.0 * student.sf(t_values, welch)
    worst = int(np.argmin(p_values))
    return {"test": "max-t", "statistic": float(t_values[worst]), "df": int(varies.sum()),
            "p_value": float(min(1.0, p_values[worst] * varies.sum()))}


def t_interval_p_value(change: float, interval, dof: int) -> float:
    """The two-sided p-value of ``change`` against 0, from its Student's t 95% ``interval`` (``[low, high]``, as
    :func:`t_half_width` gives it) with ``dof`` degrees of freedom; 1.0 when the interval is not measured.

    Examples
    --------
    >>> round(t_interval_p_value(1.0, [0.0, 2.0], 1_000_000), 4)  # an interval that just reaches 0
    0.05
    """
    from scipy.stats import t

    low, high = interval
    if change is None or low is None or high is None or not high > low:
        return 1.0
    quantile = t.ppf(0.5 + CONFIDENCE / 2, max(dof, 1))
    return float(2.0 * t.sf(abs(change) / ((high - low) / (2.0 * quantile)), max(dof, 1)))


def holm(p_values) -> list:
    """Holm's step-down adjustment of ``p_values`` (family-wise error control), in their order."""
    p = np.asarray(p_values, dtype=np.float64)
    m = p.size
    order = np.argsort(p, kind="stable")
    adjusted = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adjusted[i] = running
    return adjusted.tolist()
