"""Random Fourier features of the Gaussian kernel with norm at most one (DP-MERF)."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math
from numbers import Integral, Real

import numpy as np
import torch
from sklearn.base import ClassNamePrefixFeaturesOutMixin
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted

from ..utils import check_generator
from ._base import BoundedFeatureMap, _is_tensor, check_length_scale

__all__ = ["RandomFourierFeatures"]


class RandomFourierFeatures(ClassNamePrefixFeaturesOutMixin, BoundedFeatureMap):
    """Random Fourier features of the Gaussian kernel with norm at most one (DP-MERF).

    Draws ``m = ceil(n_components / 2)`` frequencies ``ω_j ~ N(0, diag(1/ℓ²))``
    and maps ``φ(x) = [cos(ω_1ᵀx), …, cos(ω_mᵀx), sin(ω_1ᵀx), …] / sqrt(m)``
    with a sine for every frequency when ``n_components`` is even (then
    ``E_ω[φ(x)ᵀφ(y)] = exp(−Σ_d (x_d − y_d)²/(2ℓ_d²))``), and for all but the
    last when it is odd.

    Read more in the :ref:`User Guide <fourier_features>`.

    Parameters
    ----------
    n_components : int, default=500
        Number of output features, at least 1. An even number gives the
        unbiased estimator above; an odd one drops the last frequency's sine,
        which keeps the norm bound (and biases the kernel estimate by at most
        ``1/m``).
    length_scale : float or array-like of shape (n_features,), default=1.0
        Length scale ℓ of the Gaussian kernel, shared or per dimension.
    random_state : int, RandomState instance or None, default=None
        Draws the frequencies ω. The frequencies do not depend on the data.

    Attributes
    ----------
    length_scale_ : ndarray of shape (n_features,)
    frequencies_ : ndarray of shape (n_features, ceil(n_components / 2))
        The frequencies ω as columns.
    n_features_out_ : int
        ``n_components``.
    n_features_in_ : int
    feature_names_in_ : ndarray of str

    See Also
    --------
    HermiteFeatures : Deterministic features that need far fewer dimensions.
    sklearn.kernel_approximation.RBFSampler : Not suitable for private release.

    Notes
    -----
    **Norm bound.** With m frequencies and s ≤ m sines,
    ``‖φ(x)‖² = (1/m) (Σ_{j ≤ s} (cos² + sin²)(ω_jᵀx) + Σ_{j > s} cos²(ω_jᵀx)) ≤ 1``,
    with equality for even ``n_components``: the mean embedding has
    replace-one sensitivity ``2/n``. Rounding is handled as for every
    :class:`~skdpgen.kernels.BoundedFeatureMap` (rows brought to at most
    ``1 − 8 eps``); in the NumPy path a projection ``ω_jᵀx`` that overflows
    to inf for an extreme finite input is taken as 0 (cosine 1, sine 0),
    which keeps the norm bound. The torch path (used for encoded and
    generated rows, which are bounded) has no such guard: a non-finite
    feature there makes a release raise ``ValueError``.
    NaN and inf inputs raise ``ValueError`` in :meth:`transform`.

    scikit-learn's :class:`~sklearn.kernel_approximation.RBFSampler` uses
    ``sqrt(2/n) cos(ωᵀx + b)``, whose norm varies with ``x`` and reaches
    ``sqrt 2``: its mean embedding has sensitivity up to ``2 sqrt(2)/n``, so it
    must not be used with the ``2/n`` calibration.

    References
    ----------
    F. Harder, K. Adamczewski, M. Park. "DP-MERF: Differentially Private Mean
    Embeddings with Random Features for Practical Privacy-Preserving Data
    Generation." AISTATS 2021.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen import RandomFourierFeatures
    >>> X = np.array([[0.0, 1.0], [0.5, -1.0]])
    >>> rff = RandomFourierFeatures(n_components=4, random_state=0).fit(X)
    >>> rff.transform(X).shape
    (2, 4)
    >>> np.linalg.norm(rff.transform(X), axis=1).round(6)
    array([1., 1.])
    """

    _parameter_constraints: dict = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "length_scale": [Interval(Real, 0, None, closed="neither"), "array-like"],
        "random_state": ["random_state"],
    }

    def __init__(self, *, n_components=500, length_scale=1.0, random_state=None):
        self.n_components = n_components
        self.length_scale = length_scale
        self.random_state = random_state

    def _fit(self, X):
        self.length_scale_ = check_length_scale(self.length_scale, X.shape[1])
        rng = check_generator(self.random_state)
        m = (self.n_components + 1) // 2
        self.frequencies_ = rng.standard_normal((X.shape[1], m)) / self.length_scale_[:, None]
        self._n_features_out = self.n_components

    def raw_transform(self, Z):
        """Features of every row of ``Z`` (NumPy or torch), before the clip.

        Parameters
        ----------
        Z : ndarray or torch.Tensor of shape (n_samples, n_features_in_)

        Returns
        -------
        H : same type, of shape (n_samples, n_components)
        """
        check_is_fitted(self)
        m = self.frequencies_.shape[1]
        n_sin = self.n_components - m
        if _is_tensor(Z):
            # tensors are encoded or generated rows (bounded): no overflow guard
            # on this hot path (see Notes)
            proj = Z @ self._tensor("frequencies_", Z)
            return torch.cat([torch.cos(proj), torch.sin(proj[:, :n_sin])], dim=1) / math.sqrt(m)
        with np.errstate(over="ignore", invalid="ignore"):
            proj = np.asarray(Z, dtype=np.float64) @ self.frequencies_
        proj[~np.isfinite(proj)] = 0.0  # cos = 1, sin = 0: still norm ≤ 1
        # torch's cos and sin are several times faster than NumPy's
        H = np.empty((proj.shape[0], self.n_components))
        Ht, Pt = torch.from_numpy(H), torch.from_numpy(proj)
        torch.cos(Pt, out=Ht[:, :m])
        torch.sin(Pt[:, :n_sin], out=Ht[:, m:])
        Ht.mul_(1.0 / math.sqrt(m))
        return H
