"""Empirical privacy auditing: a statistical lower bound on ε from releases.

An (ε, δ)-DP mechanism M satisfies, for neighbouring datasets D, D' and any
event S, ``P[M(D) ∈ S] ≤ e^ε P[M(D') ∈ S] + δ``. Running M many times on both
datasets and counting how often a test statistic exceeds a threshold gives
Clopper–Pearson confidence bounds on both probabilities, and hence a lower
confidence bound on ε (Jagielski, Ullman & Oprea 2020). If that bound exceeds
the claimed ε, the claim is false (up to the confidence level).
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math

import numpy as np
from scipy.stats import beta

__all__ = ["epsilon_lower_bound"]


def _clopper_pearson(k, n, alpha):
    """One-sided (lower, upper) Clopper–Pearson bounds at level 1 − alpha."""
    lower = beta.ppf(alpha, k, n - k + 1) if k > 0 else 0.0
    upper = beta.ppf(1 - alpha, k + 1, n - k) if k < n else 1.0
    return lower, upper


def epsilon_lower_bound(scores_d, scores_d_prime, delta, *, alpha=0.05, n_thresholds=50):
    """Lower confidence bound on ε from a distinguishing test.

    The runs are split in two halves. The first half chooses the thresholds
    ``t`` (quantiles of its pooled scores) and, for each ordering of the two
    samples, the direction of the test; the second half, independent of
    these choices, counts the events ``score > t``, which give
    ``ε ≥ log((TPR_lower − δ) / FPR_upper)`` with Clopper–Pearson bounds,
    Bonferroni corrected over all thresholds and orderings. So the returned
    value exceeds the true ε of the mechanism with probability at most
    ``alpha``.

    Parameters
    ----------
    scores_d, scores_d_prime : array-like of shape (n_runs,)
        A scalar test statistic of each release on D and on D'.
    delta : float
        The δ of the claim being audited.
    alpha : float, default=0.05
        Confidence level of the bound.
    n_thresholds : int, default=50
        Number of thresholds tried.

    Returns
    -------
    epsilon_lb : float
        Lower confidence bound on ε (0 when nothing can be concluded).

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen.audit import epsilon_lower_bound
    >>> rng = np.random.default_rng(0)
    >>> a = rng.normal(1.0, 1.0, 20_000)  # Gaussian mechanism, σ = 1
    >>> b = rng.normal(0.0, 1.0, 20_000)
    >>> 0 < epsilon_lower_bound(a, b, 1e-5) < 5.0  # true ε ≈ 4.4 at δ = 1e-5
    True
    """
    a = np.asarray(scores_d, dtype=float)
    b = np.asarray(scores_d_prime, dtype=float)
    if a.ndim != 1 or b.ndim != 1 or a.size < 2 or b.size < 2:
        raise ValueError("scores_d and scores_d_prime must be 1-D with at least 2 runs each.")
    if isinstance(n_thresholds, bool) or int(n_thresholds) != n_thresholds or n_thresholds < 1:
        raise ValueError(f"n_thresholds must be an integer >= 1, got {n_thresholds!r}.")
    # choose on the first half, count on the second (independent) half
    (a_choose, a), (b_choose, b) = np.array_split(a, 2), np.array_split(b, 2)
    pooled = np.concatenate([a_choose, b_choose])
    thresholds = np.quantile(pooled, np.linspace(0.0, 1.0, int(n_thresholds) + 2)[1:-1])
    level = alpha / (2 * 2 * len(thresholds))  # two bounds × two orderings × thresholds
    best = 0.0
    for (first, second), (first_c, second_c) in (((a, b), (a_choose, b_choose)),
                                                  ((b, a), (b_choose, a_choose))):
        sign = 1.0 if np.mean(first_c) >= np.mean(second_c) else -1.0
        for t in thresholds:
            k1 = int(np.sum(sign * first > sign * t))
            k2 = int(np.sum(sign * second > sign * t))
            tpr_lo, _ = _clopper_pearson(k1, first.size, level)
            _, fpr_hi = _clopper_pearson(k2, second.size, level)
            if tpr_lo - delta > 0 and fpr_hi > 0:
                best = max(best, math.log((tpr_lo - delta) / fpr_hi))
    return best
