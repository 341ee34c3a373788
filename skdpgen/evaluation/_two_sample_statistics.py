"""The statistics of the private two-sample test: TCMC and TCS.

The sensitivities of the releases (the mean and second moment of the paired
differences ``z_i``, or the statistic itself), the releases through a
:class:`~skdpgen.privacy.GaussianAccountant`, and the statistic and weights of
the null distribution computed from them (post-processing), as
:class:`~skdpgen.evaluation.DPTwoSampleTest` runs them (Raj, Law, Sejdinovic &
Park 2019).
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math

import numpy as np

__all__ = [
    "covariance_spectral_sensitivity",
    "mean_sensitivity",
    "second_moment_sensitivity",
    "statistic_sensitivity",
    "tcmc",
    "tcs",
]


# -- sensitivities -------------------------------------------------------------
#
# Every bound below holds for all z, z' in the cube [-1, 1]^J, the range of the
# paired differences z_i = k(x_i, T) - k(y_i, T) of a kernel with 0 <= k <= 1.
# The derivations are in the Notes of DPTwoSampleTest.


def mean_sensitivity(n_locations, n_pairs):
    """Replace-one L2 sensitivity ``2 sqrt(J) / n`` of the mean ``w̄`` of the ``z_i``.

    Parameters
    ----------
    n_locations : int
        J, the dimension of each ``z_i``.
    n_pairs : int
        n, the number of pairs.

    Returns
    -------
    sensitivity : float

    Examples
    --------
    >>> from skdpgen.evaluation import mean_sensitivity
    >>> mean_sensitivity(4, 100)
    0.04
    """
    return 2.0 * math.sqrt(n_locations) / n_pairs


def second_moment_sensitivity(n_locations, n_pairs):
    """Replace-one L2 sensitivity ``J / n`` of the upper triangle of ``(1/n) Σ z zᵀ``.

    The released vector holds the ``J(J+1)/2`` entries ``M_ab``, ``a ≤ b``
    (diagonal included) of the second-moment matrix ``M``.

    Parameters
    ----------
    n_locations : int
    n_pairs : int

    Returns
    -------
    sensitivity : float

    Examples
    --------
    >>> from skdpgen.evaluation import second_moment_sensitivity
    >>> second_moment_sensitivity(4, 100)
    0.04
    """
    return float(n_locations) / n_pairs


def covariance_spectral_sensitivity(n_locations, n_pairs):
    """Replace-one spectral-norm bound ``4J / n`` on the change of the unbiased covariance.

    Parameters
    ----------
    n_locations : int
    n_pairs : int

    Returns
    -------
    bound : float

    Examples
    --------
    >>> from skdpgen.evaluation import covariance_spectral_sensitivity
    >>> covariance_spectral_sensitivity(4, 100)
    0.16
    """
    return 4.0 * n_locations / n_pairs


def statistic_sensitivity(n_locations, reg):
    """Replace-one sensitivity ``4J/γ + 4J²/γ²`` of ``s = n w̄ᵀ(S + γI)⁻¹w̄``.

    It does not depend on the number of pairs ``n``.

    Parameters
    ----------
    n_locations : int
        J.
    reg : float
        The regularization γ > 0.

    Returns
    -------
    sensitivity : float

    Examples
    --------
    >>> from skdpgen.evaluation import statistic_sensitivity
    >>> statistic_sensitivity(5, 20.0)  # γ = 4J: 1 + 1/4
    1.25
    """
    J, gamma = float(n_locations), float(reg)
    return 4.0 * J / gamma + 4.0 * J * J / gamma**2



# -- the statistics -------------------------------------------------------------


def _upper(J):
    return np.triu_indices(J)


def _symmetric_from_upper(values, J):
    M = np.zeros((J, J))
    iu = _upper(J)
    M[iu] = values
    return M + np.triu(M, 1).T


def tcmc(Z, gamma, accountant):
    """Noisy mean and second moment; statistic and null weights from them."""
    n, J = Z.shape
    w = Z.mean(axis=0)
    M = (Z.T @ Z) / n
    iu = _upper(J)
    w_noisy = accountant.add_noise("mean", w, sensitivity=mean_sensitivity(J, n))
    m_noisy = accountant.add_noise(
        "second moment", M[iu], sensitivity=second_moment_sensitivity(J, n)
    )
    M_noisy = _symmetric_from_upper(m_noisy, J)
    tau_w = accountant.noise_multipliers["mean"] * mean_sensitivity(J, n)
    tau_m = accountant.noise_multipliers["second moment"] * second_moment_sensitivity(J, n)

    # post-processing: covariance, eigenvalue floor, statistic, null weights
    cov = n / (n - 1.0) * (M_noisy - np.outer(w_noisy, w_noisy))
    lam, U = np.linalg.eigh(0.5 * (cov + cov.T))
    lam = np.maximum(lam, max(math.sqrt(J) * tau_m, 0.0))
    proj = U.T @ w_noisy
    statistic = n * float(np.sum(proj**2 / (lam + gamma)))
    weights = (lam + n * tau_w**2) / (lam + gamma)
    released = {"mean": w_noisy, "second moment": M_noisy}
    return statistic, released, weights, 0.0


def tcs(Z, gamma, accountant):
    """Exact statistic plus noise; conservative scaled χ² null."""
    n, J = Z.shape
    w = Z.mean(axis=0)
    S = np.atleast_2d(np.cov(Z, rowvar=False))
    exact = n * float(w @ np.linalg.solve(S + gamma * np.eye(J), w))
    sensitivity = statistic_sensitivity(J, gamma)
    noisy = float(accountant.add_noise("statistic", exact, sensitivity=sensitivity))
    noise_std = accountant.noise_multipliers["statistic"] * sensitivity
    c = (J / 2.0) / (J / 2.0 + gamma)
    return noisy, {"statistic": noisy}, np.full(J, c), noise_std
