"""Empirical privacy auditing: what a mechanism's releases say about its privacy.

Run a mechanism many times on two neighbouring datasets ``D`` and ``D'`` and
compare what it releases with what it claims.

* :func:`gaussian_mu_audit` estimates the privacy parameter ``μ`` of a
  Gaussian mechanism. ``M(D) = f(D) + N(0, s² I)`` is ``μ``-Gaussian
  differentially private on the pair with ``μ = ‖f(D) − f(D')‖ / s``
  (Dong, Roth & Su 2019). Projected on the unit direction ``v`` of
  ``f(D) − f(D')``, the releases are ``N(vᵀf(D), s²)`` and
  ``N(vᵀf(D'), s²)``, so ``μ`` is the shift of the mean along ``v`` in units
  of the noise standard deviation: a few thousand releases estimate it to a
  few percent, with an exact confidence interval. Comparing the measured
  noise with the claimed ``σΔ`` and the measured ``μ`` with the ``μ`` of the
  claimed (ε, δ) catches a mechanism with even a little less noise than it
  claims.
* :func:`gaussian_mu` is the ``μ`` of the Gaussian mechanism that is exactly
  (ε, δ)-DP: the ``μ`` a claim allows.
* :func:`epsilon_lower_bound` is a distinguishing test for any mechanism:
  it counts threshold events and turns Clopper–Pearson bounds into a lower
  confidence bound on ε (Jagielski, Ullman & Oprea 2020). It assumes nothing
  about the noise, and pays for it: it needs far more runs than
  :func:`gaussian_mu_audit` to detect the same shortfall.

If a lower confidence bound exceeds the claim, the claim is false (up to the
confidence level). An audit can only refute a claim on the pair of datasets
it is run on: choose neighbours that attain the claimed sensitivity.

* :func:`replay_difference` audits the rule that everything a fit produces
  depends on the rows only through its noisy releases, for any code, whatever
  its mechanisms: it records the releases of a run on ``D``
  (:func:`skdpgen.privacy.release_tape`), replays them on ``D'`` and returns
  where the outputs first differ (None when they are identical).
  :func:`output_snapshot` is the comparison it uses.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import dataclasses
import math
import numbers
import re
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch
from scipy.optimize import brentq
from scipy.special import log_ndtr
from scipy.stats import beta, chi2, nct

from .privacy import ReplayMismatch, release_tape

__all__ = ["GaussianAudit", "gaussian_mu", "gaussian_mu_audit", "epsilon_lower_bound",
           "output_snapshot", "replay_difference"]


def _check_alpha(alpha):
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in the open interval (0, 1), got {alpha!r}.")
    return float(alpha)


def _clopper_pearson(k, n, alpha):
    """One-sided (lower, upper) Clopper–Pearson bounds at level 1 − alpha."""
    lower = beta.ppf(alpha, k, n - k + 1) if k > 0 else 0.0
    upper = beta.ppf(1 - alpha, k + 1, n - k) if k < n else 1.0
    return lower, upper


def _log_delta(mu, epsilon):
    """log δ(ε) of a μ-Gaussian mechanism, without cancellation.

    ``δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)`` (Dong, Roth & Su 2019,
    Corollary 2.13; Balle & Wang 2018).
    """
    a = log_ndtr(-epsilon / mu + mu / 2.0)
    b = epsilon + log_ndtr(-epsilon / mu - mu / 2.0)
    return a + math.log1p(-math.exp(b - a)) if b < a else -math.inf


def gaussian_mu(epsilon, delta):
    """The ``μ`` of the Gaussian mechanism that is exactly (ε, δ)-DP.

    A Gaussian mechanism with noise multiplier ``σ`` (noise std ``σΔ`` for a
    statistic of sensitivity ``Δ``) is ``μ``-GDP with ``μ = 1/σ``, and it is
    (ε, δ)-DP exactly when ``Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) ≤ δ``. This
    function solves that equation for ``μ`` with a bracketing root finder,
    independently of :mod:`skdpgen.privacy` (which uses autodp): it converts
    an (ε, δ) claim, such as ``PrivacyReport.epsilon`` at its ``delta``, into
    the largest ``μ`` the claim allows.

    Parameters
    ----------
    epsilon : float
        ε ≥ 0; ``np.inf`` gives ``μ = inf``.
    delta : float
        δ in (0, 1).

    Returns
    -------
    mu : float
        The largest ``μ`` whose Gaussian mechanism is (ε, δ)-DP.

    See Also
    --------
    skdpgen.privacy.gaussian_epsilon : The inverse direction, ε of a noise
        multiplier ``σ = 1/μ``.

    Examples
    --------
    >>> from skdpgen.audit import gaussian_mu
    >>> from skdpgen.privacy import gaussian_epsilon
    >>> round(gaussian_mu(gaussian_epsilon(0.5, 1e-5), 1e-5), 6)  # σ = 0.5
    2.0
    """
    epsilon, delta = float(epsilon), float(delta)
    if math.isnan(epsilon) or epsilon < 0:
        raise ValueError(f"epsilon must be >= 0, got {epsilon}.")
    if not 0.0 < delta < 1.0:
        raise ValueError(f"delta must lie in the open interval (0, 1), got {delta}.")
    if math.isinf(epsilon):
        return math.inf
    target = math.log(delta)

    def gap(log_mu):  # δ(μ) increases with μ
        return _log_delta(math.exp(log_mu), epsilon) - target

    lo, hi = math.log(1e-3), math.log(10.0)
    while gap(lo) > 0:
        lo -= 2.0
    while gap(hi) < 0:
        hi += 1.0
    return math.exp(brentq(gap, lo, hi, xtol=1e-14, rtol=1e-13, maxiter=500))


@dataclass(frozen=True)
class GaussianAudit:
    """What :func:`gaussian_mu_audit` measured along one direction.

    Parameters
    ----------
    mu : float
        Estimated privacy parameter ``μ̂ = shift / noise_std``.
    mu_low, mu_high : float
        Confidence interval of ``μ`` at level ``1 − alpha`` (each end a
        one-sided bound at level ``1 − alpha/2``).
    shift : float
        Mean of the releases on ``D`` minus mean on ``D'``, along the unit
        direction.
    noise_std : float
        Pooled standard deviation of the releases along the unit direction.
    noise_std_low, noise_std_high : float
        Confidence interval of the noise standard deviation, level
        ``1 − alpha``.
    n_runs : tuple of (int, int)
        Runs on ``D`` and on ``D'`` that entered the estimates.
    alpha : float
        One minus the confidence level of the intervals.
    """

    mu: float
    mu_low: float
    mu_high: float
    shift: float
    noise_std: float
    noise_std_low: float
    noise_std_high: float
    n_runs: tuple
    alpha: float


def _as_runs(releases, name):
    R = np.asarray(releases, dtype=np.float64)
    if R.ndim == 1:
        R = R[:, None]
    if R.ndim != 2 or R.shape[0] < 2:
        raise ValueError(
            f"{name} must have shape (n_runs,) or (n_runs, n_values) with at least "
            f"2 runs, got shape {np.shape(releases)}."
        )
    if not np.all(np.isfinite(R)):
        raise ValueError(f"{name} contains NaN or infinity.")
    return R


def _noncentrality_bound(t, df, probability):
    """The noncentrality ``nc`` with ``P[nct(df, nc) ≤ t] = probability``."""

    def gap(nc):
        value = nct.cdf(t, df, nc)
        if not math.isfinite(value):  # scipy gives NaN far out in the tails
            value = 0.0 if nc > t else 1.0
        return value - probability  # decreases with nc

    width = math.sqrt(1.0 + t * t / (2.0 * df))  # about the sd of t
    lo, hi = t - 10.0 * width, t + 10.0 * width
    while gap(lo) < 0:
        lo -= 10.0 * width
    while gap(hi) > 0:
        hi += 10.0 * width
    return brentq(gap, lo, hi, xtol=1e-12, rtol=1e-12, maxiter=500)


def gaussian_mu_audit(releases_d, releases_d_prime, *, direction=None, alpha=0.05):
    """Estimate the privacy parameter μ of a Gaussian mechanism from its releases.

    The releases are projected on a unit direction ``v``; ``μ̂`` is the
    difference of the projections' means on ``D`` and ``D'`` divided by their
    pooled standard deviation. For ``M(D) = f(D) + N(0, s² I)`` and
    ``v ∝ f(D) − f(D')`` this estimates ``μ = ‖f(D) − f(D')‖ / s``, the
    mechanism's μ-GDP parameter on the pair; along any other fixed direction
    it estimates the ``μ`` of the projection, which is at most that of the
    mechanism (post-processing), so ``mu_low`` stays a valid lower
    confidence bound.

    Parameters
    ----------
    releases_d : array-like of shape (n_runs, n_values) or (n_runs,)
        The released vectors of independent runs on ``D``.
    releases_d_prime : array-like of shape (n_runs_prime, n_values) or (n_runs_prime,)
        The released vectors of independent runs on ``D'``.
    direction : array-like of shape (n_values,), default=None
        The direction ``v`` (normalized here). Best is ``f(D) − f(D')``
        whitened by the noise covariance: ``f(D) − f(D')`` for isotropic
        noise; for a composition of releases with different noise scales
        ``s_i``, each block's difference divided by ``s_i²`` (then ``μ`` is
        that of the composition, ``sqrt(Σ μ_i²)``). If None, the first half
        of each sample estimates ``v`` (difference of the means) and the
        second half, independent of that choice, is measured.
    alpha : float, default=0.05
        The intervals have confidence level ``1 − alpha``.

    Returns
    -------
    audit : GaussianAudit
        ``mu`` with its interval (``mu_low``, ``mu_high``), the measured
        ``shift`` and ``noise_std`` (with its interval) along ``v``.

    See Also
    --------
    gaussian_mu : The μ an (ε, δ) claim allows.
    epsilon_lower_bound : A distinguishing test for any mechanism.

    Notes
    -----
    The intervals are exact for Gaussian noise. With ``n`` and ``n'`` runs,
    ``df = n + n' − 2`` and ``c = sqrt(1/n + 1/n')``, the statistic
    ``μ̂/c`` follows a noncentral t distribution with ``df`` degrees of
    freedom and noncentrality ``μ/c``, whose inversion in the noncentrality
    gives the interval of ``μ``; ``df · noise_std² / s²`` follows a χ²
    distribution with ``df`` degrees of freedom. The standard error of ``μ̂``
    is about ``sqrt(c² + μ²/(2 df))``: with 2,000 runs on each dataset and
    ``μ = 1`` about 3.4 %, and the relative error decreases as ``μ`` grows.

    Examples
    --------
    A Gaussian mechanism with noise std 0.5 on a pair at distance 1 (μ = 2):

    >>> import numpy as np
    >>> from skdpgen.audit import gaussian_mu_audit
    >>> rng = np.random.default_rng(0)
    >>> on_d = np.array([1.0, 0.0]) + rng.normal(0.0, 0.5, size=(4000, 2))
    >>> on_d_prime = rng.normal(0.0, 0.5, size=(4000, 2))
    >>> audit = gaussian_mu_audit(on_d, on_d_prime, direction=[1.0, 0.0])
    >>> bool(audit.mu_low < 2.0 < audit.mu_high)
    True
    >>> round(audit.mu, 1), round(audit.noise_std, 2)
    (2.0, 0.5)
    """
    alpha = _check_alpha(alpha)
    a = _as_runs(releases_d, "releases_d")
    b = _as_runs(releases_d_prime, "releases_d_prime")
    if a.shape[1] != b.shape[1]:
        raise ValueError(
            f"releases_d has {a.shape[1]} values per run but releases_d_prime has {b.shape[1]}."
        )
    if direction is None:
        if a.shape[0] < 4 or b.shape[0] < 4:
            raise ValueError("direction=None needs at least 4 runs on each dataset.")
        (a_choose, a), (b_choose, b) = np.array_split(a, 2), np.array_split(b, 2)
        direction = a_choose.mean(axis=0) - b_choose.mean(axis=0)
    v = np.asarray(direction, dtype=np.float64).ravel()
    if v.size != a.shape[1]:
        raise ValueError(f"direction has {v.size} values, the releases have {a.shape[1]}.")
    norm = float(np.linalg.norm(v))
    if not (norm > 0 and math.isfinite(norm)):
        raise ValueError("direction must be finite and non-zero.")
    p, q = a @ (v / norm), b @ (v / norm)
    n, n_prime = p.size, q.size
    df = n + n_prime - 2
    shift = float(p.mean() - q.mean())
    noise_std = math.sqrt(
        (np.sum((p - p.mean()) ** 2) + np.sum((q - q.mean()) ** 2)) / df
    )
    if noise_std == 0:  # no noise along v: the releases tell D and D' apart exactly
        mu = 0.0 if shift == 0 else math.copysign(math.inf, shift)
        return GaussianAudit(mu, mu, mu, shift, 0.0, 0.0, 0.0, (n, n_prime), alpha)
    c = math.sqrt(1.0 / n + 1.0 / n_prime)
    t = shift / (noise_std * c)
    return GaussianAudit(
        mu=shift / noise_std,
        mu_low=c * _noncentrality_bound(t, df, 1.0 - alpha / 2),
        mu_high=c * _noncentrality_bound(t, df, alpha / 2),
        shift=shift,
        noise_std=noise_std,
        noise_std_low=noise_std * math.sqrt(df / chi2.ppf(1.0 - alpha / 2, df)),
        noise_std_high=noise_std * math.sqrt(df / chi2.ppf(alpha / 2, df)),
        n_runs=(n, n_prime),
        alpha=alpha,
    )


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

    It makes no assumption on the mechanism, and has little power: the
    bound cannot exceed about ``log(n_runs)``, and for a Gaussian mechanism
    it typically stays well below the true ε. :func:`gaussian_mu_audit` is
    far more sensitive for Gaussian mechanisms.

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

    See Also
    --------
    gaussian_mu_audit : The estimator with power for Gaussian mechanisms.

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
    alpha = _check_alpha(alpha)
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


# -- replay ---------------------------------------------------------------------


def output_snapshot(obj):
    """A structure of text and bytes, equal for two outputs exactly when they are
    identical: values (NaN equal to NaN), types, dtypes, and the attributes of
    objects (fitted estimators, encoders, reports), recursively; a torch
    module by its weights; memory addresses ignored.

    Parameters
    ----------
    obj : object

    Returns
    -------
    snapshot : tuple

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen.audit import output_snapshot
    >>> output_snapshot([1, np.nan]) == output_snapshot([1, np.nan])
    True
    >>> output_snapshot(1) == output_snapshot(1.0)
    False
    """
    return _snapshot(obj, set())


def _snapshot(obj, seen):
    if obj is None or isinstance(obj, (bool, int, float, str, bytes, complex)):
        return (type(obj).__name__, repr(obj))
    if isinstance(obj, np.generic):
        return (type(obj).__name__, repr(obj.item()))
    if isinstance(obj, np.ndarray):
        if obj.dtype == object:
            return ("ndarray", obj.shape, [_snapshot(v, seen) for v in obj.ravel().tolist()])
        return ("ndarray", str(obj.dtype), obj.shape, np.ascontiguousarray(obj).tobytes())
    if isinstance(obj, torch.Tensor):
        return ("tensor", _snapshot(obj.detach().cpu().numpy(), seen))
    if isinstance(obj, pd.Index):
        return ("index", str(obj.dtype), _snapshot(obj.to_numpy(dtype=object), seen))
    if isinstance(obj, (pd.DataFrame, pd.Series)):
        frame = obj.to_frame() if isinstance(obj, pd.Series) else obj
        return (type(obj).__name__, [str(t) for t in frame.dtypes],
                list(map(repr, frame.columns)), _snapshot(frame.to_numpy(dtype=object), seen))
    if isinstance(obj, dict):
        return ("dict", [(_snapshot(k, seen), _snapshot(v, seen)) for k, v in obj.items()])
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__, [_snapshot(v, seen) for v in obj])
    if isinstance(obj, (set, frozenset)):
        return ("set", sorted(repr(_snapshot(v, seen)) for v in obj))
    if isinstance(obj, np.random.Generator):
        return ("generator", repr(obj.bit_generator.state))
    if isinstance(obj, np.dtype):
        return ("dtype", str(obj))
    if isinstance(obj, torch.nn.Module):
        return ("module", type(obj).__name__, _snapshot(dict(obj.state_dict()), seen))
    if callable(obj) and not hasattr(obj, "__dict__"):
        return ("callable", getattr(obj, "__qualname__", repr(obj)))
    if id(obj) in seen:
        return ("seen", type(obj).__name__)
    seen.add(id(obj))
    if dataclasses.is_dataclass(obj):
        return (type(obj).__name__, _snapshot({f.name: getattr(obj, f.name)
                                               for f in dataclasses.fields(obj)}, seen))
    if hasattr(obj, "__dict__"):
        return (type(obj).__name__, _snapshot(vars(obj), seen))
    return (type(obj).__name__, re.sub(r" at 0x[0-9a-f]+", "", repr(obj)))


def _first_difference(a, b, path):
    """Where two snapshots first differ, or None."""
    if type(a) is not type(b):
        return f"{path}: {str(a)[:200]} != {str(b)[:200]}"
    if isinstance(a, (tuple, list)):
        if len(a) != len(b):
            return f"{path}: lengths {len(a)} != {len(b)}: {str(a)[:300]} != {str(b)[:300]}"
        for i, (x, y) in enumerate(zip(a, b)):
            named = (isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], tuple)
                     and len(x[0]) == 2 and isinstance(x[0][1], str))
            found = _first_difference(x, y, f"{path}/{x[0][1] if named else i}")
            if found:
                return found
        return None
    return None if a == b else f"{path}: {str(a)[:300]} != {str(b)[:300]}"


def _recorded_run(run, data, tape):
    """``run(*data)`` inside a release tape: (outcome snapshot, warnings, tape)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with release_tape(tape) as used:
                outcome = ("returned", run(*data))
        except ReplayMismatch:
            raise
        except Exception as exc:  # whether a run succeeds is an output too
            outcome, used = ("raised", type(exc).__name__, str(exc)), None
    said = [(w.category.__name__, str(w.message)) for w in caught]
    return output_snapshot(outcome), output_snapshot(said), used


def replay_difference(run, data, data_prime):
    """Where ``run``'s outputs on ``data_prime``, under the releases recorded on
    ``data``, first differ from its outputs on ``data``; None if nowhere.

    The replay audit of the rule that everything a run produces depends on
    its private input only through noisy releases: the run on ``data`` is
    recorded (:func:`skdpgen.privacy.release_tape`), the run on
    ``data_prime`` — the same public shape, any values and forms — gets the
    recorded release at each of its releases, and the two outcomes are
    compared with :func:`output_snapshot`: what ``run`` returns (or the
    exception it raises) and every warning. A difference is a path from the
    input to an output that goes around the noise; so is a sequence of
    releases that depends on the input (its message names the release).

    Parameters
    ----------
    run : callable
        ``run(*data)`` fits (or releases) and returns everything to compare;
        its public randomness must be fixed (``random_state``).
    data, data_prime : tuple
        The arguments of the two runs.

    Returns
    -------
    difference : str or None
        The path of the first difference (``output/...`` or
        ``warnings/...``) and the two values there.

    Raises
    ------
    ValueError
        If the run on ``data`` made no release (there is nothing to replay).

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen import KernelMeanEmbedding
    >>> from skdpgen.audit import replay_difference
    >>> def run(X):
    ...     return KernelMeanEmbedding(epsilon=1.0).fit(X)
    >>> rng = np.random.default_rng(0)
    >>> print(replay_difference(run, (rng.normal(size=(50, 2)),),
    ...                         ([["text", None]] * 50,)))
    None
    """
    out, said, tape = _recorded_run(run, data, None)
    if tape is None or len(tape) == 0:
        raise ValueError("The run on data made no release: nothing to replay.")
    try:
        out2, said2, _ = _recorded_run(run, data_prime, tape)
    except ReplayMismatch as exc:
        return f"releases: {exc}"
    return (_first_difference(said, said2, "warnings")
            or _first_difference(out, out2, "output"))
