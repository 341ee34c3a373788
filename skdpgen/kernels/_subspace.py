"""Coordinates of the Gaussian kernel projected on the span of public points."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

from numbers import Real

import numpy as np
import torch
from sklearn.utils import check_array
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted

from ._base import BoundedFeatureMap, _is_tensor, check_length_scale
from ._gaussian import _X_CLIP, gaussian_gram, scale_rows

__all__ = ["GaussianSubspaceFeatures"]


class GaussianSubspaceFeatures(BoundedFeatureMap):
    """Coordinates of ``k(x, ·)`` projected on ``span{k(z_1, ·), …, k(z_M, ·)}``.

    For the Gaussian kernel ``k`` and public points ``z_m``, with
    ``K_zz = U Λ Uᵀ`` (eigenvalues above ``rank_tol · λ_max`` kept), the
    functions ``e_j = Σ_m (U_{mj}/√λ_j) k(z_m, ·)`` are orthonormal in the
    RKHS and ``a(x)_j = ⟨k(x, ·), e_j⟩ = Σ_m (U_{mj}/√λ_j) k(z_m, x)`` are
    the coordinates of the projection of ``k(x, ·)`` (Balog, Tolstikhin &
    Schölkopf 2018, Algorithm 1). :class:`~skdpgen.DPKMEReleaser` releases
    their noisy mean.

    Parameters
    ----------
    points : array-like of shape (M, n_features)
        The public points ``z_m``; they must not depend on the private data.
    length_scale : float or array-like of shape (n_features,), default=1.0
        Length scale ℓ of ``k(x, y) = exp(−Σ_d (x_d − y_d)²/(2ℓ_d²))``.
    rank_tol : float, default=1e-10
        Relative threshold of the eigenvalues of ``K_zz`` kept in the basis.

    Attributes
    ----------
    basis_ : ndarray of shape (M, r)
        ``U Λ^{-1/2}``: ``e_j = Σ_m basis_[m, j] k(z_m, ·)``, ``r = rank_``.
    gram_ : ndarray of shape (M, M)
        ``K_zz``.
    rank_ : int
    length_scale_ : ndarray of shape (n_features,)
    n_features_out_ : int
        ``rank_``.
    n_features_in_ : int

    Notes
    -----
    **Norm bound.** ``‖a(x)‖`` is the norm of a projection of ``k(x, ·)``,
    so ``‖a(x)‖ ≤ ‖k(x, ·)‖_H = √k(x, x) = 1``. Rounding (and an
    ill-conditioned ``K_zz``) can push the computed norm above one; every
    row goes through :func:`~skdpgen.kernels.unit_norm_scale` like in every
    :class:`~skdpgen.kernels.BoundedFeatureMap`, so the bound holds for the
    computed map, whatever the inputs.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen.kernels import GaussianSubspaceFeatures
    >>> Z = np.linspace(-2, 2, 5)[:, None]
    >>> sub = GaussianSubspaceFeatures(points=Z, length_scale=1.0).fit(np.zeros((1, 1)))
    >>> sub.rank_
    5
    >>> float(np.linalg.norm(sub.transform([[0.0]]))) <= 1
    True
    """

    _parameter_constraints: dict = {
        "points": ["array-like"],
        "length_scale": [Interval(Real, 0, None, closed="neither"), "array-like"],
        "rank_tol": [Interval(Real, 0, 1, closed="left")],
    }

    def __init__(self, *, points, length_scale=1.0, rank_tol=1e-10):
        self.points = points
        self.length_scale = length_scale
        self.rank_tol = rank_tol

    def _fit(self, X):
        points = check_array(self.points, dtype=np.float64, input_name="points")
        if points.shape[1] != X.shape[1]:
            raise ValueError(f"points have {points.shape[1]} columns but X has {X.shape[1]}.")
        self.length_scale_ = check_length_scale(self.length_scale, X.shape[1])
        self.center_ = points.mean(axis=0)
        self.points_scaled_ = scale_rows(points, self.length_scale_, self.center_)
        self.gram_ = gaussian_gram(self.points_scaled_, self.points_scaled_)
        lam, U = np.linalg.eigh(self.gram_)
        keep = lam > self.rank_tol * lam.max()
        self.basis_ = U[:, keep] / np.sqrt(lam[keep])
        self.rank_ = int(keep.sum())
        self._n_features_out = self.rank_

    def raw_transform(self, Z):
        """Coordinates ``a(z)`` of every row (NumPy or torch), before the clip.

        Parameters
        ----------
        Z : ndarray or torch.Tensor of shape (n_samples, n_features_in_)

        Returns
        -------
        A : same type, of shape (n_samples, rank_)
        """
        check_is_fitted(self)
        if _is_tensor(Z):
            scaled = (Z - self._tensor("center_", Z)) / self._tensor("length_scale_", Z)
            scaled = torch.clamp(scaled, -_X_CLIP, _X_CLIP) if Z.dtype == torch.float64 else scaled
            P = self._tensor("points_scaled_", Z)
            d2 = (scaled * scaled).sum(1)[:, None] + (P * P).sum(1)[None, :] - 2.0 * scaled @ P.T
            return torch.exp(-0.5 * torch.clamp(d2, min=0.0)) @ self._tensor("basis_", Z)
        scaled = scale_rows(Z, self.length_scale_, self.center_)
        return gaussian_gram(scaled, self.points_scaled_) @ self.basis_
