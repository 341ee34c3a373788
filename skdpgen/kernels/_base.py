"""The bounded feature-map protocol and the one row-norm clip.

Every release in skdpgen is the (class-conditional) mean of feature vectors
``h(x)`` with ``‖h(x)‖ ≤ 1`` for every input. That invariant is what the
sensitivity bounds rest on, so it is enforced in one place:
:func:`unit_norm_scale` computes the factor that brings a row to norm at
most ``1 − 8 eps``, and every path that sums feature rows of private data —
NumPy or torch, CPU or GPU, in memory or on Dask workers — goes through
:meth:`BoundedFeatureMap.feature_sum`, which applies it.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math
import threading

import numpy as np
import torch
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted, validate_data

from ..base import fit_skeleton
from ..privacy import record_leak

__all__ = [
    "BoundedFeatureMap",
    "check_length_scale",
    "clip_rows",
    "prepare_feature_map",
    "unit_norm_scale",
]


def _is_tensor(x):
    return isinstance(x, torch.Tensor)


def unit_norm_scale(squared_norms, dtype=None):
    """Per-row factors that bring every row's norm to at most one.

    Rows whose norm reaches ``1 − 8 eps`` (eps of ``dtype``), or exceeds it
    through rounding, get the factor that brings them to exactly that limit;
    the others get 1. The margin keeps the norm ≤ 1 after a cast to
    ``dtype`` and any later re-computation of the norm. This is the only
    place the clip is implemented.

    Parameters
    ----------
    squared_norms : ndarray or torch.Tensor of shape (n,)
        Squared Euclidean norm of each row (float32 or float64).
    dtype : numpy dtype, default=None
        The floating dtype the rows will be used in (NumPy input only); by
        default that of ``squared_norms``.

    Returns
    -------
    scale : same type, dtype and device as ``squared_norms``

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen.kernels import unit_norm_scale
    >>> unit_norm_scale(np.array([0.25, 4.0])).round(6)
    array([1. , 0.5])
    """
    if _is_tensor(squared_norms):
        limit = 1.0 - 8.0 * torch.finfo(squared_norms.dtype).eps
        norms = torch.sqrt(squared_norms)
        safe = torch.where(norms > 0, norms, torch.ones_like(norms))
        return torch.where(norms > limit, limit / safe, torch.ones_like(norms))
    squared_norms = np.asarray(squared_norms)
    limit = 1.0 - 8.0 * np.finfo(squared_norms.dtype if dtype is None else dtype).eps
    norms = np.sqrt(squared_norms)
    with np.errstate(divide="ignore"):
        return np.where(norms > limit, limit / np.where(norms > 0, norms, 1.0), 1.0)


def clip_rows(H):
    """``H`` with every row scaled to norm at most one (see :func:`unit_norm_scale`).

    Parameters
    ----------
    H : ndarray or torch.Tensor of shape (n, F)

    Returns
    -------
    H_clipped : same type as ``H`` (a new array; differentiable for tensors)

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen.kernels import clip_rows
    >>> bool(np.linalg.norm(clip_rows(np.array([[3.0, 4.0]]))) <= 1)
    True
    """
    squared = (H * H).sum(dim=1) if _is_tensor(H) else np.einsum("ij,ij->i", H, H)
    return H * unit_norm_scale(squared)[:, None]


def check_length_scale(length_scale, n_features):
    """Broadcast a scalar or per-dimension length scale to shape (n_features,).

    Parameters
    ----------
    length_scale : float or array-like
    n_features : int

    Returns
    -------
    length_scale : ndarray of shape (n_features,)
        Positive and finite (``ValueError`` otherwise).
    """
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


class _Buffers:
    """A free list of large torch work buffers, reused from call to call.

    A generator's training step needs the same ``(C + 1, n, k)`` buffer of
    Hermite terms at every step (21 × 500 × 784 float32 = 33 MB for the
    image table). A fresh allocation of that size is served by new, zeroed
    pages (glibc maps every block above 32 MiB anew and unmaps it when
    freed), and the page faults cost more than the arithmetic. :meth:`take`
    hands out a slot ``[buffer, generation]``, counting every hand-out in
    its generation, so a holder that finds the generation changed knows its
    buffer was reused and recomputes. For generated rows only: a map keeps
    its free list after the call, so private rows' features never go in one.
    """

    _MAX_FREE = 4

    def __init__(self):
        self._free = []
        self._lock = threading.Lock()

    def take(self, shape, like):
        """A slot whose buffer has ``shape`` and the dtype and device of tensor ``like``."""
        shape = tuple(shape)
        with self._lock:
            for i, slot in enumerate(self._free):
                buf = slot[0]
                if buf.shape == shape and buf.dtype == like.dtype and buf.device == like.device:
                    del self._free[i]
                    break
            else:
                slot = [like.new_empty(shape), 0]
            slot[1] += 1
        return slot

    def give(self, slot):
        """Return a slot to the free list (once; the oldest is dropped past a few)."""
        with self._lock:
            if all(s is not slot for s in self._free):
                self._free.append(slot)
                del self._free[:-self._MAX_FREE]


class BoundedFeatureMap(TransformerMixin, BaseEstimator):
    """Base class (and protocol) of feature maps whose rows have norm ≤ 1.

    A bounded feature map sends every finite input row ``x`` to a vector
    ``h(x)`` with ``‖h(x)‖ ≤ 1``. The mean of ``h`` over ``n`` rows then
    changes by at most ``2/n`` in L2 norm when one row is replaced (``√2/n``
    for a map with non-negative features, see :attr:`max_row_distance`),
    which is the sensitivity every release of skdpgen is calibrated to. Any
    map that implements this protocol works, unchanged, in
    :class:`~skdpgen.KernelMeanEmbedding`,
    :class:`~skdpgen.DPKMEReleaser` (``method="features"``) and
    :class:`~skdpgen.KMESynthesizer`.

    **To implement.** Two methods:

    * ``_fit(X)``: set the fitted state from the *shape* of ``X`` (and
      public hyperparameters) — never from its values, since ``X`` may be the
      private data — including ``self._n_features_out``, the output width;
    * ``raw_transform(Z)``: the features of each row of ``Z``, for a float
      NumPy array *and* for a torch tensor (differentiable, on the tensor's
      device and dtype), with the same values up to rounding. Every row must
      have norm ≤ 1 in exact arithmetic, and the map must be *row-wise*: a
      row's features depend on that row and on public data alone.

    **Provided.** :meth:`fit` (validation, all or nothing),
    :meth:`transform` (NumPy), :meth:`torch_transform` (torch) and
    :meth:`feature_sum`, all of which clip every row with
    :func:`unit_norm_scale` so that rounding can never break the bound. A
    subclass may override :meth:`feature_sum` with a fused path, provided
    it scales the rows with :func:`unit_norm_scale` too. For generated (not
    private) rows, :meth:`raw_feature_sum` gives the weighted sums without
    the clip, which a subclass may also fuse (a generator's loss needs only
    these sums, not the feature matrix).

    Attributes
    ----------
    n_features_out_ : int
        Width of the feature vectors (after ``fit``).
    n_features_in_ : int

    Examples
    --------
    A normalized linear map, ``h(x) = x / max(1, ‖x‖)`` (its kernel is the
    linear one on the unit ball):

    >>> import numpy as np
    >>> import torch
    >>> from skdpgen.kernels import BoundedFeatureMap
    >>> class UnitBallFeatures(BoundedFeatureMap):
    ...     def _fit(self, X):
    ...         self._n_features_out = X.shape[1]
    ...     def raw_transform(self, Z):
    ...         if isinstance(Z, torch.Tensor):
    ...             return Z / torch.clamp(torch.linalg.vector_norm(Z, dim=1), min=1.0)[:, None]
    ...         return Z / np.maximum(1.0, np.linalg.norm(Z, axis=1))[:, None]
    >>> X = np.array([[3.0, 4.0], [0.1, 0.2]])
    >>> UnitBallFeatures().fit(X).transform(X).round(3)
    array([[0.6, 0.8],
           [0.1, 0.2]])
    """

    _parameter_constraints: dict = {}
    #: Whether :meth:`raw_transform` accepts torch tensors (part of the protocol).
    supports_torch = True
    #: Whether every feature is ≥ 0 for every input (a subclass declares it;
    #: it tightens :attr:`max_row_distance`).
    nonnegative = False

    @property
    def max_row_distance(self):
        """``sup ‖h(x) − h(x′)‖`` over clipped feature rows: the sensitivity of a
        sum of rows to replacing one row.

        2 for any rows of norm ≤ 1; ``√2`` when the map is :attr:`nonnegative`,
        since then ``⟨h(x), h(x′)⟩ ≥ 0`` (the clip only scales rows down) and
        ``‖h(x) − h(x′)‖² = ‖h(x)‖² + ‖h(x′)‖² − 2⟨h(x), h(x′)⟩ ≤ 2``. A mean
        of ``n`` rows has replace-one sensitivity ``max_row_distance / n``.
        """
        return math.sqrt(2.0) if self.nonnegative else 2.0

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
        with fit_skeleton(self):  # nothing half-fitted if the fit fails
            X = validate_data(self, X, dtype=[np.float64, np.float32])
            self.__dict__.pop("_tensors", None)  # tensors of the previous fit's arrays
            self._fit(X)
        return self

    def _fit(self, X):  # pragma: no cover - the protocol's first method
        raise NotImplementedError

    def raw_transform(self, Z):  # pragma: no cover - the protocol's second method
        """Features of every row of ``Z`` (NumPy or torch), before the clip."""
        raise NotImplementedError

    @property
    def n_features_out_(self):
        """Width of the feature vectors."""
        check_is_fitted(self)
        return self._n_features_out

    def transform(self, X):
        """Map ``X`` to features of norm at most one.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Finite values; NaN or inf raise ``ValueError``.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_features_out_)
            Same floating dtype as ``X`` (float32 or float64); computed in
            float64.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=[np.float64, np.float32])
        H = np.asarray(self.raw_transform(X.astype(np.float64, copy=False)), dtype=np.float64)
        H *= unit_norm_scale(np.einsum("ij,ij->i", H, H), X.dtype)[:, None]
        return H.astype(X.dtype, copy=False)

    def torch_transform(self, Z):
        """Differentiable features of a torch tensor, rows clipped to norm ≤ 1.

        Parameters
        ----------
        Z : torch.Tensor of shape (n_samples, n_features)
            On any device, float32 or float64; not validated (hot path).

        Returns
        -------
        H : torch.Tensor of shape (n_samples, n_features_out_)
        """
        check_is_fitted(self)
        return clip_rows(self.raw_transform(Z))

    def _values_per_row(self, device="cpu", n_outputs=1):
        """Float values :meth:`feature_sum` holds per row of a chunk on ``device``.

        What sizes the chunks of a sum over rows (their memory): the row's
        features, unless a fused path never forms them (it then counts the
        row, its ``n_outputs`` weights and what it holds instead).
        """
        return self.n_features_out_

    def feature_sum(self, X, weights):
        """``Σ_i weights[i, k] h(x_i)`` with every row ``h(x_i)`` clipped to norm ≤ 1.

        The one primitive every release uses: a weighted sum (with one-hot
        weights, the per-class sums) of clipped feature rows.

        Parameters
        ----------
        X : ndarray or torch.Tensor of shape (n_samples, n_features)
            Validated finite rows (not checked again: hot path). A tensor is
            computed on its device.
        weights : same type as ``X``, of shape (n_samples, n_outputs)

        Returns
        -------
        sums : ndarray or torch.Tensor of shape (n_features_out_, n_outputs)
            float64 for NumPy input.
        """
        if _is_tensor(X):
            return clip_rows(self.raw_transform(X)).T @ weights
        H = np.asarray(self.raw_transform(np.asarray(X, dtype=np.float64)), dtype=np.float64)
        H *= unit_norm_scale(np.einsum("ij,ij->i", H, H))[:, None]
        return H.T @ weights

    def raw_feature_sum(self, Z, weights):
        """``Σ_i weights[i, k] h(z_i)`` *without* the clip, for generated rows.

        What a generator's loss needs (the weighted means of its batch's
        features). Rows that are not private need no clip: they have norm
        ≤ 1 in exact arithmetic. Never use it on private rows (that is
        :meth:`feature_sum`). A subclass may override it with a fused path
        that never materializes the (n, n_features_out_) matrix.

        Parameters
        ----------
        Z : ndarray or torch.Tensor of shape (n_samples, n_features)
        weights : same type as ``Z``, of shape (n_samples, n_outputs)

        Returns
        -------
        sums : same type, of shape (n_features_out_, n_outputs)
            Differentiable in ``Z`` for tensors.
        """
        return self.raw_transform(Z).T @ weights

    # torch copies of fitted arrays, per device and dtype; never pickled
    def _tensor(self, name, like, dtype=None):
        """The fitted array ``name`` as a tensor on ``like``'s device (cached).

        In ``like``'s dtype unless ``dtype`` is given (e.g. ``torch.long`` for
        indices). The cache is emptied by every fit.
        """
        dtype = like.dtype if dtype is None else dtype
        cache = self.__dict__.setdefault("_tensors", {})
        key = (name, like.device, dtype)
        if key not in cache:
            cache[key] = torch.as_tensor(np.asarray(getattr(self, name)), dtype=dtype,
                                         device=like.device)
        return cache[key]

    def _buffers(self):
        """This map's :class:`_Buffers` (in the tensor cache: emptied by fit, never pickled)."""
        return self.__dict__.setdefault("_tensors", {}).setdefault("buffers", _Buffers())

    def __getstate__(self):
        state = super().__getstate__()
        state.pop("_tensors", None)  # device tensors: rebuilt on demand where loaded
        return state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags


class _TransformerFeatures(BoundedFeatureMap):
    """Any fitted transformer as a (NumPy-only) bounded map: its rows clipped to norm ≤ 1.

    The clip bounds the norm of every row; the sensitivity bound also needs
    the transform to be row-wise, which :func:`prepare_feature_map` records
    as the user's assumption.
    """

    supports_torch = False

    def __init__(self, transformer=None):
        self.transformer = transformer

    def _fit(self, X):
        out = np.asarray(self.transformer.transform(np.zeros((1, X.shape[1]))))
        if out.ndim != 2 or out.shape[0] != 1:
            raise ValueError("The feature map must return a 2-D array with one row per sample.")
        self._n_features_out = out.shape[1]

    def raw_transform(self, Z):
        if _is_tensor(Z):
            raise TypeError(
                f"{type(self.transformer).__name__} has no torch version: it is not a "
                "skdpgen.kernels.BoundedFeatureMap."
            )
        H = np.asarray(self.transformer.transform(Z), dtype=np.float64)
        if H.ndim != 2 or H.shape[0] != Z.shape[0]:
            raise ValueError("The feature map must return a 2-D array with one row per sample.")
        if not np.all(np.isfinite(H)):
            raise ValueError("The feature map returned non-finite values.")
        return H


def prepare_feature_map(features, X, *, private, dask=False):
    """The feature map of a fit on ``X``, fitted, as a :class:`BoundedFeatureMap`.

    A :class:`BoundedFeatureMap` uses only the shape of ``X``: an unfitted
    one is cloned and fitted on it, a fitted one is used as is (its width is
    checked).

    Any other transformer is used through its ``transform``, with every
    output row clipped to norm ≤ 1. The clip bounds the sensitivity only if
    the transform is *row-wise*: each output row depends on its own input
    row and on public data alone (``X / |X|.max()`` is not: one record moves
    every row). skdpgen cannot check that, so in a private fit such a map is
    recorded as a leak (:func:`skdpgen.privacy.record_leak`) stating the
    assumption the user then answers for; an unfitted one is also fitted on
    the private rows, which the same record says.

    Parameters
    ----------
    features : transformer
    X : ndarray of shape (n_samples, n_features)
        The rows (only their shape is used by a :class:`BoundedFeatureMap`).
    private : bool
        Whether the fit is private (leaks are recorded only then).
    dask : bool, default=False
        Whether the rows are held by Dask (an unfitted foreign map is then
        refused: it cannot be fitted on them).

    Returns
    -------
    feature_map : BoundedFeatureMap
        Fitted.
    """
    try:
        check_is_fitted(features)
        fitted = True
    except NotFittedError:
        fitted = False
    if fitted:
        n_in = getattr(features, "n_features_in_", X.shape[1])
        if n_in != X.shape[1]:
            raise ValueError(
                f"The fitted feature map expects {n_in} columns, X has {X.shape[1]}."
            )
    if isinstance(features, BoundedFeatureMap):
        return features if fitted else clone(features).fit(np.zeros((1, X.shape[1])))
    name = type(features).__name__
    if dask and not fitted:
        raise ValueError(
            f"With Dask input the feature map must be fitted beforehand (on public "
            f"data) or be a skdpgen.kernels.BoundedFeatureMap; {name} is not fitted."
        )
    if private:
        fitted_on = (
            "" if fitted else
            " It is also fitted on the private rows here, and whatever it learns from "
            "them is covered by no guarantee: fit it on public data and pass it fitted."
        )
        record_leak(
            "feature map",
            f"{name} is not a skdpgen.kernels.BoundedFeatureMap. Its rows are clipped "
            "to norm <= 1, which bounds the sensitivity only if its transform is "
            "row-wise (each output row depends on its own input row and on public data "
            f"alone); skdpgen cannot check that, and you answer for it.{fitted_on}",
        )
    transformer = features if fitted else clone(features).fit(X)
    return _TransformerFeatures(transformer).fit(np.zeros((1, X.shape[1])))
