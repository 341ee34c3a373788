"""Bounded kernel feature maps: Hermite polynomial and random Fourier features.

Both maps send every finite input to a feature vector of Euclidean norm at most
one. That single invariant is what the library's privacy rests on: the mean of
such vectors over ``n`` rows changes by at most ``2/n`` in L2 norm when one
row is replaced, whatever the data.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math
from numbers import Integral, Real

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
    _fit_context,
)
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import (
    _check_feature_names_in,
    check_is_fitted,
    validate_data,
)

from ._random import check_generator
from ._state import fit_transaction

__all__ = ["HermiteFeatures", "RandomFourierFeatures", "hermite_rho"]

# Inputs are clipped to ±_X_CLIP before the Hermite recursion so that no
# intermediate product overflows; for any length scale below 1e140 every
# feature of such an input already underflows to exactly 0.
_X_CLIP = 1e150


def _unit_norm_scale(squared_norms, dtype):
    """Per-row factors that bring every row's norm to at most one.

    Rows whose norm is within a few ulps of one (or above, through rounding)
    are scaled to ``1 - 8 eps(dtype)`` so that the norm stays ≤ 1 even after
    the cast to ``dtype`` and any later re-computation of the norm.
    """
    limit = 1.0 - 8.0 * np.finfo(dtype).eps
    norms = np.sqrt(squared_norms)
    with np.errstate(divide="ignore"):
        return np.where(norms > limit, limit / np.where(norms > 0, norms, 1.0), 1.0)


def check_length_scale(length_scale, n_features):
    """Broadcast a scalar or per-dimension length scale to shape (n_features,)."""
    ls = np.asarray(length_scale, dtype=np.float64)
    if ls.ndim == 0:
        ls = np.full(n_features, float(ls))
    if ls.ndim != 1 or ls.shape[0] != n_features:
        raise ValueError(
            f"length_scale must be a scalar or have one entry per feature "
            f"({n_features}), got shape {np.shape(length_scale)}."
        )
    if not np.all(np.isfinite(ls)) or np.any(ls <= 0):
        raise ValueError("length_scale must be positive and finite.")
    return ls


def hermite_rho(length_scale):
    """Mehler parameter ρ of the Gaussian kernel with the given length scale.

    ``ρ = sqrt(1 + ℓ⁴) − ℓ²``, the root in (0, 1) of ``ρ/(1 − ρ²) = 1/(2ℓ²)``,
    computed as ``1/(sqrt(1 + ℓ⁴) + ℓ²)`` to avoid cancellation.

    Parameters
    ----------
    length_scale : float or ndarray
        ℓ > 0 of ``k(x, y) = exp(−(x − y)²/(2ℓ²))``.

    Returns
    -------
    rho : float or ndarray

    Examples
    --------
    >>> from skdpgen.features import hermite_rho
    >>> float(round(hermite_rho((4 / 3) ** 0.5), 12))
    0.333333333333
    """
    with np.errstate(over="ignore"):  # ℓ > 1e154: ℓ² = inf, ρ = 0
        ls2 = np.square(np.asarray(length_scale, dtype=np.float64))
        return 1.0 / (np.hypot(1.0, ls2) + ls2)


def hermite_terms(x, rho, order, *, exp=np.exp, sqrt=np.sqrt, out=None):
    """Yield the Hermite features φ_0(x), …, φ_order(x), elementwise.

    Uses the normalized three-term recursion (never the raw polynomials,
    which overflow)::

        φ_0(x)     = ((1−ρ)(1+ρ))^{1/4} exp(−ρx²/(1+ρ))
        φ_1(x)     = sqrt(2ρ) x φ_0(x)
        φ_{c+1}(x) = sqrt(2ρ/(c+1)) x φ_c(x) − ρ sqrt(c/(c+1)) φ_{c−1}(x)

    Without ``out`` the code uses only arithmetic operators plus ``exp`` and
    ``sqrt``, so it serves NumPy arrays and (differentiable) torch tensors
    alike. With ``out`` (NumPy only) every term is written in place into
    ``out[c]``, which avoids temporaries on the hot path.

    Parameters
    ----------
    x : ndarray or torch.Tensor of shape (..., n_dims)
        Inputs, already clipped to a range where ``x²`` cannot overflow.
    rho : ndarray or torch.Tensor of shape (n_dims,)
        Mehler parameter per dimension (see :func:`hermite_rho`).
    order : int
        Highest order C.
    exp, sqrt : callables, default=numpy's
        Elementwise functions of the array library of ``x``.
    out : ndarray of shape (order + 1, *x.shape), default=None
        Where to write the terms (NumPy inputs only).

    Yields
    ------
    phi_c : same type and shape as ``x`` (a view of ``out[c]`` when given)
    """
    t = sqrt(rho / (1.0 + rho)) * x
    phi = ((1.0 - rho) * (1.0 + rho)) ** 0.25 * exp(-(t * t))
    if out is not None:
        out[0] = phi
        phi = out[0]
        tmp = np.empty_like(phi)
    yield phi
    if order == 0:
        return
    u = sqrt(2.0 * rho) * x
    if out is None:
        prev, phi = phi, u * phi
    else:
        prev, phi = phi, np.multiply(u, phi, out=out[1])
    yield phi
    for c in range(1, order):
        a, b = 1.0 / math.sqrt(c + 1), rho * math.sqrt(c / (c + 1))
        if out is None:
            prev, phi = phi, (u * phi) * a - b * prev
        else:
            nxt = np.multiply(u, phi, out=out[c + 1])
            nxt *= a
            nxt -= np.multiply(b, prev, out=tmp)
            prev, phi = phi, nxt
        yield phi


class _UnitNormFeatures(TransformerMixin, BaseEstimator):
    """Base of feature maps whose every output row has norm ≤ 1.

    Subclasses implement ``_raw_features(X)`` (float64 in, float64 out, rows
    of norm ≤ 1 up to rounding) and may override ``_weighted_feature_sum``
    with a faster fused path.
    """

    def fit(self, X, y=None):
        """Set up the map for ``X``'s number of columns.

        Only the shape of ``X`` is used, never its values, so fitting on
        private data leaks nothing beyond the number of columns.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : None
            Ignored.

        Returns
        -------
        self : object
        """
        with fit_transaction(self):  # nothing half-fitted if the fit fails
            return self._fit(X)

    def transform(self, X):
        """Map ``X`` to features of norm at most one.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Finite values; NaN or inf raise ``ValueError``.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_features_out)
            Same floating dtype as ``X`` (float32 or float64).
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=[np.float64, np.float32])
        H = self._raw_features(X.astype(np.float64, copy=False))
        H *= _unit_norm_scale(np.einsum("ij,ij->i", H, H), X.dtype)[:, None]
        return H.astype(X.dtype, copy=False)

    def _weighted_feature_sum(self, X, weights):
        """``Σ_i weights[i, k] h(x_i)`` for validated float ``X``: (F, K)."""
        H = self._raw_features(X.astype(np.float64, copy=False))
        H *= _unit_norm_scale(np.einsum("ij,ij->i", H, H), np.float64)[:, None]
        return H.T @ weights

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags


class HermiteFeatures(_UnitNormFeatures):
    """Hermite polynomial features of the Gaussian kernel (DP-HP).

    Expands the per-dimension Gaussian kernel
    ``k_d(x, y) = exp(−(x − y)²/(2ℓ_d²))`` with Mehler's formula and keeps the
    orders ``0 … C``. With ``ρ = sqrt(1 + ℓ⁴) − ℓ²`` the one-dimensional
    feature vector is ``φ(x) = [φ_0(x), …, φ_C(x)]`` where
    ``φ_c(x) = sqrt(λ_c) f_c(x)``, ``λ_c = (1 − ρ)ρ^c`` and
    ``f_c(x) = H_c(x) exp(−ρx²/(1 + ρ)) / sqrt(N_c)``; ``φ(x)ᵀφ(y)`` converges
    to ``k_d(x, y)`` geometrically in C.

    Read more in the :ref:`User Guide <hermite_features>`.

    Parameters
    ----------
    order : int, default=20
        Highest Hermite order C (C + 1 features per dimension).
    length_scale : float or array-like of shape (n_features,), default=1.0
        Length scale ℓ of the Gaussian kernel, one per input dimension or
        shared. It is a hyperparameter: choose it from public knowledge (e.g.
        relative to public bounds), never from the private data.
    kernel : {"sum", "product"}, default="sum"
        ``"sum"``: ``h(x) = [φ(x_1), …, φ(x_D)] / sqrt(D)``, which
        approximates ``(1/D) Σ_d k_d``; ``D(C + 1)`` features.
        ``"product"``: ``h(x) = vec(⊗_{d∈S} φ(x_d))`` over the dimensions S
        in ``product_dims``, which approximates ``Π_{d∈S} k_d``;
        ``(C + 1)^|S|`` features.
    product_dims : array-like of int, default=None
        The dimensions S of the product kernel (all when None). Ignored for
        the sum kernel.

    Attributes
    ----------
    length_scale_ : ndarray of shape (n_features,)
        Per-dimension length scale.
    rho_ : ndarray of shape (n_features,)
        Mehler parameter per dimension.
    product_dims_ : ndarray of int
        Dimensions used by the product kernel (all dimensions for "sum").
    n_features_in_ : int
        Number of input columns.
    feature_names_in_ : ndarray of str
        Input column names, when ``X`` had string column names.

    See Also
    --------
    RandomFourierFeatures : Random features of the Gaussian kernel (DP-MERF).
    KernelMeanEmbedding : The (private) mean of these features.

    Notes
    -----
    **Norm bound.** Mehler's formula at ``y = x`` gives
    ``Σ_{c≥0} φ_c(x)² = k_d(x, x) = 1``; truncating at C drops non-negative
    terms, so ``‖φ(x)‖ ≤ 1`` for every dimension. Hence
    ``‖h(x)‖² = (1/D) Σ_d ‖φ(x_d)‖² ≤ 1`` for the sum kernel and
    ``‖h(x)‖ = Π_d ‖φ(x_d)‖ ≤ 1`` for the product kernel. To keep the bound
    under floating-point rounding, rows whose computed norm reaches
    ``1 − 8 eps`` are rescaled to ``1 − 8 eps`` (eps of the output dtype).
    Inputs beyond ±1e150 are clipped first (their features underflow to 0
    anyway), so any finite input, even ±1e300, maps to a vector of norm ≤ 1.
    NaN and inf raise ``ValueError``.

    **Approximation.** For ``x, y ~ N(0, 1)`` and ``ρ = 1/3`` the mean
    absolute error of one dimension's order-C approximation is at most
    ``(1/(3 sqrt 2)) (1/3)^C`` (Vinaroz et al. 2022, Prop. B.1).

    Features are computed in float64 and cast to the input's dtype.

    References
    ----------
    M. Vinaroz, M.-A. Charusaie, F. Harder, K. Adamczewski, M. J. Park.
    "Hermite Polynomial Features for Private Data Generation." ICML 2022.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen import HermiteFeatures
    >>> X = np.array([[0.0, 1.0], [0.5, -1.0]])
    >>> hf = HermiteFeatures(order=10, length_scale=1.0).fit(X)
    >>> H = hf.transform(X)
    >>> H.shape
    (2, 22)
    >>> bool(np.all(np.linalg.norm(H, axis=1) <= 1))
    True
    >>> exact = np.mean(np.exp(-(X[0] - X[1]) ** 2 / 2))
    >>> bool(abs(H[0] @ H[1] - exact) < 1e-3)
    True
    """

    _parameter_constraints: dict = {
        "order": [Interval(Integral, 0, None, closed="left")],
        "length_scale": [Interval(Real, 0, None, closed="neither"), "array-like"],
        "kernel": [StrOptions({"sum", "product"})],
        "product_dims": ["array-like", None],
    }

    def __init__(self, *, order=20, length_scale=1.0, kernel="sum", product_dims=None):
        self.order = order
        self.length_scale = length_scale
        self.kernel = kernel
        self.product_dims = product_dims

    @_fit_context(prefer_skip_nested_validation=True)
    def _fit(self, X):
        X = validate_data(self, X, dtype=[np.float64, np.float32])
        n_features = X.shape[1]
        self.length_scale_ = check_length_scale(self.length_scale, n_features)
        self.rho_ = hermite_rho(self.length_scale_)
        if self.kernel == "product" and self.product_dims is not None:
            dims = np.asarray(self.product_dims)
            if (
                dims.ndim != 1
                or dims.size == 0
                or not np.issubdtype(dims.dtype, np.integer)
                or np.any(dims < 0)
                or np.any(dims >= n_features)
                or np.unique(dims).size != dims.size
            ):
                raise ValueError(
                    "product_dims must be distinct column indices in "
                    f"[0, {n_features}), got {self.product_dims!r}."
                )
            self.product_dims_ = dims.astype(np.intp)
        else:
            self.product_dims_ = np.arange(n_features)
        self._n_features_out = self._n_output_features()
        return self

    def _n_output_features(self):
        if self.kernel == "sum":
            return self.n_features_in_ * (self.order + 1)
        return (self.order + 1) ** self.product_dims_.size

    def _terms(self, X, dims):
        """Stack of φ_c over the columns ``dims``: shape (C + 1, n, len(dims))."""
        x = np.clip(X[:, dims], -_X_CLIP, _X_CLIP)
        out = np.empty((self.order + 1,) + x.shape)
        for _ in hermite_terms(x, self.rho_[dims], self.order, out=out):
            pass
        return out

    def _raw_features(self, X):
        if self.kernel == "sum":
            stack = self._terms(X, slice(None))  # (C+1, n, D)
            H = stack.transpose(1, 2, 0).reshape(X.shape[0], -1)
            return H / math.sqrt(self.n_features_in_)
        stack = self._terms(X, self.product_dims_)  # (C+1, n, |S|)
        H = stack[:, :, 0].T
        for j in range(1, stack.shape[2]):
            H = (H[:, :, None] * stack[:, :, j].T[:, None, :]).reshape(X.shape[0], -1)
        return H

    def _weighted_feature_sum(self, X, weights):
        if self.kernel != "sum":
            return super()._weighted_feature_sum(X, weights)
        # Fused path: never materializes the (n, D(C+1)) feature matrix.
        X = X.astype(np.float64, copy=False)
        stack = self._terms(X, slice(None))  # (C+1, n, D)
        D = self.n_features_in_
        scale = _unit_norm_scale(np.einsum("cnd,cnd->n", stack, stack) / D, np.float64)
        sums = np.matmul(stack.transpose(0, 2, 1), weights * scale[:, None])
        return sums.transpose(1, 0, 2).reshape(D * (self.order + 1), -1) / math.sqrt(D)

    def get_feature_names_out(self, input_features=None):
        """Names of the output features.

        Parameters
        ----------
        input_features : array-like of str, default=None
            Input names; defaults to ``feature_names_in_`` or ``x0, x1, …``.

        Returns
        -------
        feature_names_out : ndarray of str
            ``"{col}_hermite{c}"`` for the sum kernel and
            ``"hermite({col}:{c},…)"`` for the product kernel.
        """
        check_is_fitted(self)
        names = _check_feature_names_in(self, input_features)
        orders = range(self.order + 1)
        if self.kernel == "sum":
            out = [f"{name}_hermite{c}" for name in names for c in orders]
        else:
            out = [""]
            for d in self.product_dims_:
                out = [f"{o},{names[d]}:{c}" if o else f"{names[d]}:{c}" for o in out for c in orders]
            out = [f"hermite({o})" for o in out]
        return np.asarray(out, dtype=object)


class RandomFourierFeatures(ClassNamePrefixFeaturesOutMixin, _UnitNormFeatures):
    """Random Fourier features of the Gaussian kernel with norm exactly one (DP-MERF).

    Draws ``ω_j ~ N(0, diag(1/ℓ²))`` for ``j = 1 … m`` (``m = n_components/2``)
    and maps ``φ(x) = [cos(ω_jᵀx), sin(ω_jᵀx)]_j / sqrt(m)``, so that
    ``E_ω[φ(x)ᵀφ(y)] = exp(−Σ_d (x_d − y_d)²/(2ℓ_d²))``.

    Read more in the :ref:`User Guide <fourier_features>`.

    Parameters
    ----------
    n_components : int, default=500
        Number of output features (an even number; ``m = n_components/2``
        frequencies).
    length_scale : float or array-like of shape (n_features,), default=1.0
        Length scale ℓ of the Gaussian kernel, shared or per dimension.
    random_state : int, RandomState instance or None, default=None
        Draws the frequencies ω. The frequencies do not depend on the data.

    Attributes
    ----------
    length_scale_ : ndarray of shape (n_features,)
    frequencies_ : ndarray of shape (n_features, n_components // 2)
        The frequencies ω as columns.
    n_features_in_ : int
    feature_names_in_ : ndarray of str

    See Also
    --------
    HermiteFeatures : Deterministic features that need far fewer dimensions.
    sklearn.kernel_approximation.RBFSampler : Not suitable for private release.

    Notes
    -----
    **Norm bound.** ``‖φ(x)‖² = (1/m) Σ_j (cos² + sin²)(ω_jᵀx) = 1`` exactly,
    so the mean embedding has replace-one sensitivity ``2/n``. Rounding is
    handled as in :class:`HermiteFeatures` (rows rescaled to
    ``1 − 8 eps``); a projection ``ω_jᵀx`` that overflows to inf for an
    extreme finite input contributes the pair ``(0, 0)``, which keeps the norm
    below one. NaN and inf inputs raise ``ValueError``.

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
        "n_components": [Interval(Integral, 2, None, closed="left")],
        "length_scale": [Interval(Real, 0, None, closed="neither"), "array-like"],
        "random_state": ["random_state"],
    }

    def __init__(self, *, n_components=500, length_scale=1.0, random_state=None):
        self.n_components = n_components
        self.length_scale = length_scale
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def _fit(self, X):
        if self.n_components % 2:
            raise ValueError(
                f"n_components must be even (cos and sin pairs), got {self.n_components}."
            )
        X = validate_data(self, X, dtype=[np.float64, np.float32])
        self.length_scale_ = check_length_scale(self.length_scale, X.shape[1])
        rng = check_generator(self.random_state)
        m = self.n_components // 2
        self.frequencies_ = rng.standard_normal((X.shape[1], m)) / self.length_scale_[:, None]
        self._n_features_out = self.n_components
        return self

    def _raw_features(self, X):
        import torch  # its cos/sin are several times faster than NumPy's

        with np.errstate(over="ignore", invalid="ignore"):
            proj = X @ self.frequencies_
        bad = ~np.isfinite(proj)
        proj[bad] = 0.0
        m = self.frequencies_.shape[1]
        H = np.empty((X.shape[0], 2 * m))
        Ht, Pt = torch.from_numpy(H), torch.from_numpy(proj)
        torch.cos(Pt, out=Ht[:, :m])
        torch.sin(Pt, out=Ht[:, m:])
        Ht.mul_(1.0 / math.sqrt(m))
        if bad.any():
            H[:, :m][bad] = 0.0
            H[:, m:][bad] = 0.0
        return H
