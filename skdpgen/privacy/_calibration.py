"""Calibration of the Gaussian mechanism (analytic, via autodp; its quirks are contained here)."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import contextlib
import functools
import math
import numbers
import warnings

import numpy as np
from scipy.optimize import brentq

from ._leaks import PrivacyLeakWarning, outside_stacklevel

__all__ = ["approximate_rho", "calibrate_gaussian", "check_epsilon_delta", "gaussian_epsilon",
           "selection_epsilon", "selection_threshold"]


def _autodp():
    """Import autodp's exact Gaussian machinery in the one safe order."""
    from autodp import rdp_acct  # noqa: F401  (must come first, see module doc)
    from autodp import dp_bank, mechanism_zoo, transformer_zoo

    return dp_bank, mechanism_zoo, transformer_zoo


@contextlib.contextmanager
def _silenced():
    """Silence the numerical warnings autodp's routines emit."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def check_epsilon_delta(epsilon, delta, *, allow_infinite=True, warn_infinite=True):
    """Validate a privacy budget.

    Parameters
    ----------
    epsilon : float
        Must be > 0; ``np.inf`` means "no privacy" (no noise) when
        ``allow_infinite``.
    delta : float
        Must lie in the open interval (0, 1).
    allow_infinite : bool, default=True
        Whether ``epsilon=np.inf`` is accepted.
    warn_infinite : bool, default=True
        Whether an accepted ``epsilon=np.inf`` raises a
        :class:`PrivacyLeakWarning` (the release is then exact).

    Returns
    -------
    epsilon, delta : float
        The validated values as Python floats.

    Examples
    --------
    >>> from skdpgen.privacy import check_epsilon_delta
    >>> check_epsilon_delta(1, 1e-5)
    (1.0, 1e-05)
    """
    if isinstance(epsilon, bool) or not isinstance(epsilon, numbers.Real):
        raise TypeError(f"epsilon must be a real number, got {epsilon!r}.")
    if isinstance(delta, bool) or not isinstance(delta, numbers.Real):
        raise TypeError(f"delta must be a real number, got {delta!r}.")
    epsilon, delta = float(epsilon), float(delta)
    if math.isnan(epsilon) or epsilon <= 0:
        raise ValueError(f"epsilon must be > 0, got {epsilon}.")
    if math.isinf(epsilon) and not allow_infinite:
        raise ValueError("epsilon must be finite.")
    if not 0.0 < delta < 1.0:
        raise ValueError(f"delta must lie in the open interval (0, 1), got {delta}.")
    if math.isinf(epsilon) and warn_infinite:
        warnings.warn(
            "epsilon=inf: the data are released without noise, so nothing of this "
            "fit is differentially private. Pass a finite epsilon for a private release.",
            PrivacyLeakWarning,
            stacklevel=outside_stacklevel(),
        )
    return epsilon, delta


def gaussian_epsilon(noise_multiplier, delta):
    """Exact ε of a Gaussian mechanism at a given δ.

    Parameters
    ----------
    noise_multiplier : float
        Noise standard deviation divided by the L2 sensitivity (σ). ``0``
        means no noise (ε = inf); ``inf`` means nothing released (ε = 0).
    delta : float
        Target δ in (0, 1).

    Returns
    -------
    epsilon : float
        The smallest ε for which the mechanism is (ε, δ)-DP (analytic
        Gaussian mechanism, Balle & Wang 2018, via autodp).

    Examples
    --------
    >>> from skdpgen.privacy import gaussian_epsilon
    >>> round(gaussian_epsilon(3.7306, 1e-5), 4)
    1.0
    """
    sigma = float(noise_multiplier)
    if sigma <= 0:
        return math.inf
    if math.isinf(sigma):
        return 0.0
    _, mechanism_zoo, _ = _autodp()
    with _silenced():
        eps = mechanism_zoo.ExactGaussianMechanism(sigma=sigma).get_approxDP(delta)
    return float(eps)


def approximate_rho(epsilon, delta):
    """The zCDP ``ρ`` of an ``(ε, δ)`` budget, for sizing shares before calibration.

    ``ρ`` solves ``ε = ρ + 2·sqrt(ρ·log(1/δ))`` (the conversion of ρ-zCDP to
    ``(ε, δ)``-DP): ``ρ = (sqrt(log(1/δ) + ε) − sqrt(log(1/δ)))²``. A Gaussian
    release of sensitivity ``Δ`` and noise ``σ`` spends ``ρ = Δ²/(2σ²)``, so
    a share ``w`` of the budget gives a noise of about ``Δ/sqrt(2wρ)``: a
    rule of thumb for choosing shares, never for noise, which
    :class:`GaussianAccountant` calibrates exactly from the shares.

    Parameters
    ----------
    epsilon : float
        Positive and finite.
    delta : float
        In (0, 1).

    Returns
    -------
    rho : float

    Examples
    --------
    >>> from skdpgen.privacy import approximate_rho
    >>> round(approximate_rho(1.0, 1e-5), 4)
    0.0208
    """
    log_delta = math.log(1.0 / float(delta))
    return (math.sqrt(log_delta + float(epsilon)) - math.sqrt(log_delta)) ** 2


def selection_epsilon(delta_each):
    """``ln(1/(1 − δ_each))``: what one selection's threshold adds to ε.

    Parameters
    ----------
    delta_each : float
        The δ of one partition selection (a key of one record passes its
        threshold with this probability).

    Returns
    -------
    epsilon : float

    Examples
    --------
    >>> from skdpgen.privacy import selection_epsilon
    >>> f"{selection_epsilon(1e-6):.7g}"
    '1.000001e-06'
    """
    return -math.log1p(-delta_each)


def selection_threshold(noise_std, delta_each):
    """The threshold of a Gaussian partition selection, in rows.

    A key is kept when its noisy count exceeds ``τ = 1 + s·Φ⁻¹(1 − δ_each)``
    (see :meth:`GaussianAccountant.select`): a key held by one record alone
    passes with probability ``δ_each``, and a key held by ``τ + k·s`` rows
    is kept with probability ``Φ(k)``. It depends on public quantities only.

    Parameters
    ----------
    noise_std : float
        Standard deviation ``s`` of the noise on each count (the release's
        noise multiplier times its sensitivity ``sqrt(2)``).
    delta_each : float
        The δ of the threshold, in (0, 1).

    Returns
    -------
    threshold : float
        ``τ``; 1 when ``noise_std`` is 0 (ε = ∞: every present key is kept).

    Examples
    --------
    >>> from skdpgen.privacy import selection_threshold
    >>> round(selection_threshold(53.07, 1e-5 / 6), 1)
    247.7
    """
    if not 0 < delta_each < 1:
        raise ValueError(f"delta_each must be in (0, 1), got {delta_each!r}.")
    if not noise_std >= 0:  # NaN fails too
        raise ValueError(f"noise_std must be a number >= 0, got {noise_std!r}.")
    if noise_std == 0:
        return 1.0
    from scipy.stats import norm

    return 1.0 + float(noise_std) * float(norm.isf(delta_each))


def _log_delta(sigma, epsilon):
    dp_bank, _, _ = _autodp()
    with _silenced():
        return float(dp_bank.get_logdelta_ana_gaussian(sigma, epsilon))


def calibrate_gaussian(epsilon, delta):
    """Smallest noise multiplier σ of an (ε, δ)-DP Gaussian mechanism.

    Solves the analytic Gaussian mechanism's exact condition (Balle & Wang
    2018) ``Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ) = δ`` for σ with a
    bracketing root finder on autodp's log δ(σ, ε), then rounds σ up by a
    relative 1e-9 so that the guarantee holds despite the solver tolerance.

    Parameters
    ----------
    epsilon : float
        Target ε > 0; ``np.inf`` returns 0 (no noise).
    delta : float
        Target δ in (0, 1).

    Returns
    -------
    noise_multiplier : float
        σ: add ``N(0, (σΔ)²)`` noise to a statistic of L2 sensitivity Δ.

    Examples
    --------
    >>> from skdpgen.privacy import calibrate_gaussian
    >>> round(calibrate_gaussian(1.0, 1e-5), 4)
    3.7306
    """
    return _calibrate_gaussian(*check_epsilon_delta(epsilon, delta, warn_infinite=False))


@functools.lru_cache(maxsize=256)
def _calibrate_gaussian(epsilon, delta):
    if math.isinf(epsilon):
        return 0.0
    target = math.log(delta)

    def gap(log_sigma):
        return _log_delta(math.exp(log_sigma), epsilon) - target

    lo, hi = math.log(1e-3), math.log(10.0)
    while gap(lo) < 0:  # δ(σ) decreases in σ: need gap(lo) > 0
        lo -= 2.0
    while gap(hi) > 0:
        hi += 2.0
    log_sigma = brentq(gap, lo, hi, xtol=1e-14, rtol=1e-14, maxiter=500)
    sigma = math.exp(log_sigma) * (1.0 + 1e-9)
    if _log_delta(sigma, epsilon) > target:  # pragma: no cover - defensive
        raise RuntimeError("Gaussian calibration failed to meet the target δ.")
    return sigma


