"""Differentially private database release via kernel mean embeddings.

The curator releases a weighted set of synthetic points ``(z_m, w_m)`` whose
kernel mean embedding ``Σ_m w_m k(z_m, ·)`` approximates the embedding
``μ_X = (1/N) Σ_i k(x_i, ·)`` of the private data, so that anyone can
estimate ``E[h(X)] ≈ Σ_m w_m h(z_m)`` for functions ``h`` of the RKHS (Balog,
Tolstikhin & Schölkopf, ICML 2018). Two mechanisms:

* Algorithm 1 (``method="subspace"``): project ``μ_X`` onto the span of
  ``k(z_1, ·), …, k(z_M, ·)`` for data-independent points ``z_m`` and release
  the noisy coordinates in an orthonormal basis of that span;
* Algorithm 2 (``method="features"``): release the noisy mean of a bounded
  finite feature map (random Fourier features by default), then find points
  and non-negative weights that match it (post-processing).
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math
from numbers import Integral, Real

import numpy as np
import torch
from sklearn.utils import check_array
from sklearn.utils._param_validation import HasMethods, Interval, Options, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from ._device import cpu_threads, resolve_device
from ._reduced_set import l1_reduce, nnls_weights, reduced_set
from .utils import check_generator, torch_generator
from .base import PrivateEstimator
from .privacy import score_without_noise
from .kernels import (
    GaussianSubspaceFeatures,
    RandomFourierFeatures,
    clip_rows,
    gaussian_gram,
    gaussian_kernel_sum,
    scale_rows,
)
from .registry import register
from .rows import make_rows, release_mean_embedding

__all__ = ["DPKMEReleaser"]

# Number of random Fourier features of the default feature map.
_DEFAULT_N_COMPONENTS = 1000


# -- bounds and candidates --------------------------------------------------
def _check_bounds(bounds, n_features):
    """Public bounds ``(lo, hi)`` (scalars or per-column) as two (D,) arrays."""
    if not isinstance(bounds, (tuple, list)) or len(bounds) != 2:
        raise ValueError(
            "bounds must be a pair (lo, hi) of scalars or of arrays with one entry "
            f"per column, got {bounds!r}."
        )
    lo, hi = (np.asarray(b, dtype=np.float64) for b in bounds)
    lo, hi = (np.broadcast_to(b, (n_features,)) if b.ndim == 0 else b for b in (lo, hi))
    if lo.shape != (n_features,) or hi.shape != (n_features,):
        raise ValueError(
            f"bounds must have one entry per column ({n_features}), got shapes "
            f"{lo.shape} and {hi.shape}."
        )
    with np.errstate(over="ignore"):
        span = hi - lo
    if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi)) and np.all(lo < hi)
            and np.all(np.isfinite(span))):
        raise ValueError(
            "bounds must be finite with lo < hi and a finite width hi - lo in every column."
        )
    return lo.copy(), hi.copy()


def _feature_rows(features, Z):
    """``features.transform(Z)`` in float64 with rows clipped to norm ≤ 1."""
    return clip_rows(np.array(features.transform(Z), dtype=np.float64))


@register("release")
class DPKMEReleaser(PrivateEstimator):
    """Differentially private release of a weighted point set via kernel mean embeddings.

    Releases synthetic points ``z_1 … z_M`` with weights ``w_1 … w_M`` whose
    kernel mean embedding ``Σ_m w_m k(z_m, ·)`` approximates the private
    data's ``μ_X = (1/N) Σ_i k(x_i, ·)``, with an (ε, δ) guarantee. Any third
    party can then estimate ``E[h(X)] ≈ Σ_m w_m h(z_m)``
    (:meth:`expected_value`) or resample rows (:meth:`sample`). The kernel is
    the Gaussian ``k(x, x') = exp(−Σ_d (x_d − x'_d)²/(2ℓ_d²))``.

    Read more in the :ref:`User Guide <kme_release>`.

    Parameters
    ----------
    method : {"subspace", "features"}, default="subspace"
        ``"subspace"`` (Algorithm 1 of Balog et al. 2018): the points are
        fixed before the data is touched (``candidates``, or ``n_points``
        uniform draws in ``bounds``) and the projection of ``μ_X`` onto their
        span is released with noise. The weights can be **negative**.
        ``"features"`` (Algorithm 2): the mean of a bounded feature map is
        released with noise, then points and **non-negative** weights that
        match it are found by Adam and non-negative least squares.
    n_points : int, default=100
        Number M of points drawn uniformly in ``bounds`` when ``candidates``
        is None (ignored otherwise).
    candidates : array-like of shape (M, n_features), default=None
        Public points: with ``"subspace"`` the released points themselves,
        with ``"features"`` the initialization of the optimization. They must
        not be derived from the private data (a *publishable* subset, or a
        draw from a data-independent distribution, is fine).
    length_scale : float or array-like of shape (n_features,), default=1.0
        Length scale ℓ of the Gaussian kernel, shared or per column; a public
        choice. With ``"features"`` it is the length scale of the default
        random Fourier features (a user ``features`` has its own).
    features : transformer, default=None
        Feature map of ``"features"``: by default
        ``RandomFourierFeatures(n_components=1000, length_scale=length_scale)``
        with frequencies drawn from ``random_state``. Any
        :class:`~skdpgen.kernels.BoundedFeatureMap` (e.g.
        :class:`~skdpgen.RandomFourierFeatures`, :class:`~skdpgen.HermiteFeatures`
        or your own) is used as is when fitted, or cloned and fitted on the
        shape of ``X`` only, and its points are optimized through its torch
        version. Other transformers are accepted (rows clipped to norm ≤ 1,
        recorded as a leak: see
        :func:`~skdpgen.kernels.prepare_feature_map`), but only the weights
        are fitted. Must be None with ``"subspace"``.
    bounds : tuple of (float or array-like, float or array-like), default=None
        Public box ``(lo, hi)`` (scalars or one value per column) from which
        the M points are drawn uniformly when ``candidates`` is None; with
        ``"features"`` the optimized points are also kept inside it. One of
        ``candidates`` and ``bounds`` is required: the points are never
        chosen by looking at the data.
    l1_bound : float, default=None
        If set, the weights are replaced by the weights of L1 norm ≤
        ``l1_bound`` closest in RKHS norm (Balog et al., Theorem 11; a
        reduced-set step, post-processing at no privacy cost).
    n_iter : int, default=500
        Adam iterations of ``"features"`` (0 keeps the initial points and
        only fits the weights).
    learning_rate : float, default=0.01
        Adam learning rate of ``"features"``, in units of the length scale
        for the points (and of 1/M for the weights).
    epsilon : float, default=1.0
        Privacy budget ε > 0; ``np.inf`` releases without noise.
    delta : float, default=1e-5
        Privacy parameter δ in (0, 1).
    random_state : int, RandomState instance or None, default=None
        Draws the public random choices: the points (from ``bounds``) and the
        random frequencies. The privacy noise never follows it (it comes from
        fresh operating-system entropy, see :mod:`skdpgen.privacy`).
    device : {"auto", "cpu", "cuda"}, default="auto"
        Torch device of the ``"features"`` optimization.

    Attributes
    ----------
    points_ : ndarray of shape (M, n_features)
        The released points ``z_m``.
    weights_ : ndarray of shape (M,)
        The released weights ``w_m`` (possibly negative with ``"subspace"``;
        they need not sum to one).
    epsilon_, delta_ : float
        The budget of the fit.
    privacy_report_ : PrivacyReport
        What the fit spent (one Gaussian release).
    sensitivity_ : float
        Replace-one L2 sensitivity ``2/N`` of the released vector.
    noise_multiplier_ : float
        σ: the noise std per coordinate is ``σ · sensitivity_``.
    length_scale_ : ndarray of shape (n_features,) or None
        Per-column length scale of the Gaussian kernel used by
        :meth:`score`; None when ``score`` uses the kernel of a non-Gaussian
        feature map.
    coefficients_ : ndarray of shape (rank,)
        ``"subspace"`` only: the released (noisy) coordinates ``α̃``.
    basis_ : ndarray of shape (M, rank)
        ``"subspace"`` only: ``U Λ^{-1/2}`` with ``K_zz = U Λ Uᵀ`` (kept
        eigenvalues), so that the basis is ``e_j = Σ_m basis_[m, j] k(z_m, ·)``
        and the weights before ``l1_bound`` are ``basis_ @ coefficients_``.
    rank_ : int
        ``"subspace"`` only: dimension of the span (eigenvalues of ``K_zz``
        above ``1e-10 λ_max``).
    features_ : BoundedFeatureMap
        The fitted feature map whose noisy mean was released: the subspace
        coordinates of Algorithm 1 (``"subspace"``), or the map of
        ``"features"`` (a transformer of yours is wrapped, rows clipped).
    embedding_ : ndarray of shape (n_features_out,)
        ``"features"`` only: the released (noisy) mean embedding ``μ̃``.
    loss_history_ : ndarray of shape (n_iter,)
        ``"features"`` only: ``‖Σ_m w_m φ(z_m) − μ̃‖²`` along Adam.
    n_features_in_ : int
    feature_names_in_ : ndarray of str

    See Also
    --------
    KernelMeanEmbedding : The private mean embedding under a feature map.
    DPMERFSynthesizer : A generator trained on such an embedding.

    Notes
    -----
    **Sensitivity, Algorithm 1.** The points ``z_m`` are public and fixed
    before the data is read. With ``K_zz = U Λ Uᵀ`` (eigenvalues
    ``λ_j > 1e-10 λ_max`` kept) the functions
    ``e_j = Σ_m (U_{mj}/√λ_j) k(z_m, ·)`` are orthonormal in the RKHS H
    (``⟨e_i, e_j⟩ = λ_i^{-1/2} u_iᵀ K_zz u_j λ_j^{-1/2} = δ_ij``). The
    released vector is ``α = (1/N) Σ_i a(x_i)`` with
    ``a(x)_j = ⟨k(x, ·), e_j⟩ = Σ_m (U_{mj}/√λ_j) k(z_m, x)``: ``a(x)`` holds
    the coordinates of the orthogonal projection of ``k(x, ·)`` onto the
    span, so ``‖a(x)‖ ≤ ‖k(x, ·)‖_H = √k(x, x) = 1``. Rounding (and
    ill-conditioned ``K_zz``) can push the computed ``‖a(x)‖`` above one, so
    every row is divided by ``max(1, ‖a(x)‖)`` (precisely, brought to norm at
    most ``1 − 8 eps``) before summing: the bound then holds for the computed
    map, whatever the inputs. Replacing one record ``x`` by ``x'`` changes
    ``α`` by ``(a(x') − a(x))/N``, of norm ≤ 2/N: the replace-one L2
    sensitivity is ``Δ = 2/N``, and ``α̃ = α + N(0, σ²Δ² I)`` with σ from
    :func:`~skdpgen.privacy.calibrate_gaussian` is (ε, δ)-DP. The weights
    ``w = U Λ^{-1/2} α̃`` (``Σ_m w_m k(z_m, ·) = Σ_j α̃_j e_j``) are
    post-processing.

    **Sensitivity, Algorithm 2.** With a feature map ``φ`` whose rows have
    norm ≤ 1 (random Fourier features ``[cos(ωᵀx), sin(ωᵀx)]/√m`` have norm
    exactly 1), ``μ = (1/N) Σ_i φ(x_i)`` changes by ``(φ(x') − φ(x))/N``, of
    norm ≤ 2/N, when one record is replaced: ``Δ = 2/N``. The features
    ``√(2/J) cos(ωᵀx + b)`` used by Balog et al. (and by scikit-learn's
    ``RBFSampler``) have ``‖φ(x)‖² = (2/J) Σ_j cos²(ω_jᵀx + b_j)``, which
    reaches 2: their sensitivity is ``2√2/N``, not the ``2/N`` they
    calibrate with, and they are not used here. The points, the Adam
    optimization, the non-negative least squares refit and the L1 reduction
    only read ``μ̃`` and public quantities: post-processing.

    **What is public.** N, the candidates or bounds, the length scale, the
    frequencies, and all hyperparameters. ``M`` draws from ``bounds`` are
    data-independent; the candidates you pass are assumed public.

    **Negative weights.** Algorithm 1's weights are an unconstrained
    projection plus noise: they can be negative and need not sum to one.
    :meth:`expected_value` uses them as they are (a consistent estimator);
    :meth:`sample` is only a resampling heuristic.

    **Score.** :meth:`score` is minus the RKHS distance between the
    embedding of ``X`` and the released one, computed exactly with the
    Gaussian kernel (for ``"features"``: the Gaussian kernel that random
    Fourier features approximate, with their length scale; for any other
    feature map ``h``: the kernel ``h(x)ᵀh(x')``). It costs O(N²) kernel
    evaluations (blocked, memory O(block²)).

    References
    ----------
    M. Balog, I. Tolstikhin, B. Schölkopf. "Differentially Private Database
    Release via Kernel Mean Embeddings." ICML 2018.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen.release import DPKMEReleaser
    >>> X = np.random.default_rng(0).normal(size=(2000, 2))
    >>> rel = DPKMEReleaser(bounds=(-3, 3), n_points=50, length_scale=1.0,
    ...                     epsilon=1.0, delta=1e-5, random_state=0).fit(X)
    >>> rel.points_.shape, rel.weights_.shape
    ((50, 2), (50,))
    >>> rel.sensitivity_
    0.001
    >>> round(rel.privacy_report_.epsilon, 3)
    1.0
    >>> mean = rel.expected_value(lambda Z: Z)  # estimate of E[X] (about 0)
    >>> bool(np.all(np.abs(mean) < 0.2))
    True
    >>> rel.sample(3, random_state=0).shape
    (3, 2)
    """

    _parameter_constraints: dict = {
        "method": [StrOptions({"subspace", "features"})],
        "n_points": [Interval(Integral, 1, None, closed="left")],
        "candidates": ["array-like", None],
        "length_scale": [Interval(Real, 0, None, closed="neither"), "array-like"],
        "features": [None, HasMethods(["fit", "transform"])],
        "bounds": [tuple, list, None],
        "l1_bound": [None, Interval(Real, 0, None, closed="neither")],
        "n_iter": [Interval(Integral, 0, None, closed="left")],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "epsilon": [Interval(Real, 0, None, closed="neither"), Options(Real, {np.inf})],
        "delta": [Interval(Real, 0, 1, closed="neither")],
        "random_state": ["random_state"],
        "device": [StrOptions({"auto", "cpu", "cuda"})],
    }

    def __init__(
        self,
        *,
        method="subspace",
        n_points=100,
        candidates=None,
        length_scale=1.0,
        features=None,
        bounds=None,
        l1_bound=None,
        n_iter=500,
        learning_rate=0.01,
        epsilon=1.0,
        delta=1e-5,
        random_state=None,
        device="auto",
    ):
        self.method = method
        self.n_points = n_points
        self.candidates = candidates
        self.length_scale = length_scale
        self.features = features
        self.bounds = bounds
        self.l1_bound = l1_bound
        self.n_iter = n_iter
        self.learning_rate = learning_rate
        self.epsilon = epsilon
        self.delta = delta
        self.random_state = random_state
        self.device = device

    supports_labels = False
    #: What summaries call the estimator.
    display_name = "DP-KME release"

    # -- fit ---------------------------------------------------------------
    def fit(self, X, y=None, *, epsilon=None, delta=None):
        """Release a private weighted point set for ``X``.

        Parameters
        ----------
        X : array-like, Dask array or Dask DataFrame of shape (n_samples, n_features)
            The private data, numbers in any form: each cell is read by its
            canonical form (a number or bool by its value, ±inf clamped to the
            largest float, any other cell — missing, text, a date — as 0 in
            its own row), so no value makes a fit fail.
            A Dask collection is summed partition by partition on the active
            Dask scheduler (see :ref:`dask`).
        y : None
            Ignored.
        epsilon, delta : float, default=None
            Budget of this fit; override the constructor's values (which are
            left unchanged). ``epsilon=np.inf`` releases without noise. The
            values used are stored as ``epsilon_`` and ``delta_``.

        Returns
        -------
        self : object
        """
        return super().fit(X, None, epsilon=epsilon, delta=delta)

    # fitted attributes of one method only: a re-fit with the other drops them
    _METHOD_ATTRIBUTES = ("coefficients_", "basis_", "rank_", "embedding_", "loss_history_")

    def _fit_private(self, X, y, budget):
        for name in self._METHOD_ATTRIBUTES:
            vars(self).pop(name, None)
        rows = make_rows(self, X, reset=True, private=budget.private)
        n_features = rows.n_columns
        rng = check_generator(self.random_state)
        bounds = None if self.bounds is None else _check_bounds(self.bounds, n_features)
        candidates = None
        if self.candidates is not None:
            candidates = check_array(self.candidates, dtype=np.float64, input_name="candidates")
            if candidates.shape[1] != n_features:
                raise ValueError(
                    f"candidates has {candidates.shape[1]} columns but X has {n_features}."
                )
        elif bounds is None:
            raise ValueError(
                "DPKMEReleaser needs public points: pass candidates=... (public or "
                "publishable points) or bounds=(lo, hi) (a public box to draw "
                f"n_points={self.n_points} points from). The points are never "
                "chosen by looking at the private data."
            )
        if self.method == "subspace":
            if self.features is not None:
                raise ValueError("features= is only used by method='features'.")
            if candidates is None:
                candidates = rng.uniform(bounds[0], bounds[1], size=(self.n_points, n_features))
            self._fit_subspace(rows, candidates, budget)
        else:
            self._fit_features(rows, candidates, bounds, budget, rng)

    def _fit_subspace(self, rows, Z, budget):
        coords = GaussianSubspaceFeatures(points=Z, length_scale=self.length_scale).fit(
            np.zeros((1, rows.n_columns)))
        # rows a(x) clipped to norm ≤ 1 (see Notes), streamed (or per Dask partition)
        accountant = budget.plan({"subspace coefficients": 1.0})
        noisy, sensitivity = release_mean_embedding(rows, coords, accountant,
                                                    "subspace coefficients")
        noisy = noisy[:, 0]
        weights = coords.basis_ @ noisy
        if self.l1_bound is not None:
            weights = l1_reduce(coords.gram_, weights, float(self.l1_bound),
                                np.linalg.eigvalsh(coords.gram_).max())
        self.points_ = Z.copy()
        self.weights_ = weights
        self.features_ = coords
        self.coefficients_ = noisy
        self.basis_ = coords.basis_
        self.rank_ = coords.rank_
        self.length_scale_ = coords.length_scale_
        self.sensitivity_ = sensitivity
        self.noise_multiplier_ = accountant.noise_multipliers["subspace coefficients"]

    def _fit_features(self, rows, candidates, bounds, budget, rng):
        n_features = rows.n_columns
        features = self.features
        if features is None:
            features = RandomFourierFeatures(
                n_components=_DEFAULT_N_COMPONENTS,
                length_scale=self.length_scale,
                random_state=int(rng.integers(2**31)),
            )
        # checked (and, unless bounded, recorded as a leak) before the rows are read
        features = rows.prepare_feature_map(features, private=budget.private)
        # The exact mean (streamed, rows clipped to norm ≤ 1), then the noise.
        accountant = budget.plan({"mean embedding": 1.0})
        target, sensitivity = release_mean_embedding(rows, features, accountant,
                                                     "mean embedding")
        target = target[:, 0]
        device = resolve_device(self.device)
        tgen = torch_generator(rng, "cpu")
        if candidates is None:
            lo, hi = (torch.as_tensor(b) for b in bounds)
            u = torch.rand((self.n_points, n_features), generator=tgen, dtype=torch.float64)
            Z0 = (lo + (hi - lo) * u).numpy()
        else:
            Z0 = candidates.copy()
        with cpu_threads(1 if device == "cpu" else None):
            Z, history = reduced_set(features, target, Z0, bounds, device, self.n_iter,
                                     self.learning_rate)
        H = _feature_rows(features, Z)
        weights = nnls_weights(H, target)
        if self.l1_bound is not None:
            gram = H @ H.T
            weights = l1_reduce(gram, weights, float(self.l1_bound),
                                max(np.linalg.eigvalsh(gram).max(), 1e-300))
        ls = getattr(features, "length_scale_", None)
        self.points_ = Z
        self.weights_ = weights
        self.features_ = features
        self.embedding_ = target
        self.loss_history_ = history
        self.length_scale_ = (
            np.array(ls, dtype=np.float64) if isinstance(features, RandomFourierFeatures) else None
        )
        self.sensitivity_ = sensitivity
        self.noise_multiplier_ = accountant.noise_multipliers["mean embedding"]

    # -- using the release -------------------------------------------------
    def sample(self, n_samples, *, random_state=None):
        """Resample rows from the weighted point set.

        Draws ``points_[m]`` with probability ``max(w_m, 0)/Σ_k max(w_k, 0)``.
        This is a resampling heuristic: with negative weights (Algorithm 1)
        the sample's distribution is not the released signed measure, and
        estimates from it are biased. Use :meth:`expected_value` for
        consistent estimates of ``E[h(X)]``. Sampling is post-processing and
        costs no privacy.

        Parameters
        ----------
        n_samples : int
            Number of rows, at least 1.
        random_state : int, RandomState instance or None, default=None
            None gives fresh rows on each call; the same value gives the same
            rows.

        Returns
        -------
        X : ndarray of shape (n_samples, n_features)

        Raises
        ------
        ValueError
            If ``n_samples < 1``, or if no weight is positive.
        """
        check_is_fitted(self)
        if isinstance(n_samples, bool) or not isinstance(n_samples, Integral) or n_samples < 1:
            raise ValueError(f"n_samples must be an integer >= 1, got {n_samples!r}.")
        p = np.maximum(self.weights_, 0.0)
        if not p.sum() > 0:
            raise ValueError("No released weight is positive: there is nothing to sample.")
        rng = check_generator(random_state)
        idx = rng.choice(p.size, size=n_samples, p=p / p.sum())
        return self.points_[idx].copy()

    def expected_value(self, h):
        """Estimate ``E[h(X)]`` by ``Σ_m w_m h(z_m)``.

        Parameters
        ----------
        h : callable
            Applied once to ``points_`` (an (M, n_features) array), it must
            return an array of shape (M,) or (M, k).

        Returns
        -------
        value : float or ndarray of shape (k,)

        Examples
        --------
        >>> import numpy as np
        >>> from skdpgen.release import DPKMEReleaser
        >>> X = np.array([[0.0], [1.0], [3.0]])
        >>> rel = DPKMEReleaser(candidates=X, length_scale=0.1, epsilon=np.inf).fit(X)
        >>> round(rel.expected_value(lambda Z: Z[:, 0] ** 2), 6)
        3.333333
        """
        check_is_fitted(self)
        values = np.asarray(h(self.points_), dtype=np.float64)
        M = self.points_.shape[0]
        if values.ndim not in (1, 2) or values.shape[0] != M:
            raise ValueError(
                f"h must return an array of shape ({M},) or ({M}, k), got {values.shape}."
            )
        out = self.weights_ @ values
        return float(out) if values.ndim == 1 else out

    def score(self, X, y=None):
        """Minus the RKHS distance between ``X``'s embedding and the release.

        ``−‖(1/n) Σ_i k(x_i, ·) − Σ_m w_m k(z_m, ·)‖_H``, computed exactly as
        ``mean_{i,i'} k(x_i, x_i') − 2 Σ_m w_m mean_i k(z_m, x_i) + wᵀK_zz w``
        (blocked; O(n²) kernel evaluations). The kernel is the Gaussian one
        with ``length_scale_`` (for ``"features"`` with a non-Fourier map,
        ``h(x)ᵀh(x')`` of the feature map). Higher is better. A data-holder
        diagnostic: it reads ``X`` without noise (inside a
        :class:`~skdpgen.privacy.PrivacyBudget` it is recorded as a leak).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : None
            Ignored.

        Returns
        -------
        score : float
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        score_without_noise(f"{type(self).__name__}.score")
        w = self.weights_
        n = X.shape[0]
        if self.length_scale_ is None:
            diff = (self.features_.feature_sum(X, np.ones((n, 1)))[:, 0] / n
                    - w @ _feature_rows(self.features_, self.points_))
            return -float(np.linalg.norm(diff))
        center = self.points_.mean(axis=0)
        Xs = scale_rows(X, self.length_scale_, center)
        Zs = scale_rows(self.points_, self.length_scale_, center)
        xx = gaussian_kernel_sum(Xs, Xs) / n**2
        xz = gaussian_kernel_sum(Xs, Zs, axis=0) @ w / n
        zz = w @ gaussian_gram(Zs, Zs) @ w
        return -math.sqrt(max(0.0, xx - 2.0 * xz + zz))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = False
        tags.input_tags.allow_nan = True  # any cell is read (canonical forms)
        tags.input_tags.string = True
        return tags
