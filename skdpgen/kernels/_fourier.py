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
    category_sizes : sequence of int, default=()
        Sizes of the one-hot blocks that end each input row, as in a table
        encoded by :class:`skdpgen.schema.TableEncoder` (none by default).
        A one-hot row has the same features with or without them; a row
        whose blocks hold probability vectors (a generator's softmax) gets
        the *expected* features of the rows drawn from it, each block
        independently (see Notes).

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

    **Blocks of probabilities** (``category_sizes``). Write a row as its
    numeric part ``u`` and blocks ``p_1, …, p_B`` (block ``b`` of size
    ``K_b``, ``ω_{b,c}`` the part of ``ω`` on its ``c``-th column). When each
    block's category ``c_b`` is drawn from ``p_b``, independently,
    ``E[exp(i ωᵀx)] = exp(i ω_uᵀu) Π_b Σ_c p_{b,c} exp(i ω_{b,c})``, whose
    real and imaginary parts are the expected cosine and sine features. For
    a one-hot block the sum is the one term ``exp(i ω_{b,c_b})``: the
    features are the ones above, to rounding. Each product term has modulus
    ≤ 1 for a probability vector, so the row's norm stays ≤ 1; for any
    other input the clip bounds it (the sensitivity is unchanged). A
    generator whose categorical heads are softmaxes, sampled after
    training, is thus compared with the data through the features of the
    rows it will actually output (a product of independent categoricals
    given its noise), not through the features of its soft vectors, which
    the Gaussian kernel places off the one-hot rows: without the
    expectation, matching the data pushes every softmax toward one-hot, and
    which combination of categories a noise vector gets is left to the
    network (the joint of two wide categorical columns, which the kernel
    barely sees at the length scales of one-hot encodings, comes out
    far from independent even where the data's is close to it).

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
        "category_sizes": ["array-like"],
    }

    def __init__(self, *, n_components=500, length_scale=1.0, random_state=None,
                 category_sizes=()):
        self.n_components = n_components
        self.length_scale = length_scale
        self.random_state = random_state
        self.category_sizes = category_sizes

    def _fit(self, X):
        sizes = np.asarray(self.category_sizes, dtype=np.int64).reshape(-1)
        if np.any(sizes < 1) or sizes.sum() > X.shape[1]:
            raise ValueError(
                f"category_sizes must be positive and fit in the {X.shape[1]} input "
                f"columns, got {list(self.category_sizes)!r}."
            )
        self._sizes = [int(k) for k in sizes]
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
        if getattr(self, "_sizes", None):  # (maps pickled before the blocks: none)
            return self._expected_transform(Z, m, n_sin)
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

    def _expected_transform(self, Z, m, n_sin):
        """The features with one-hot blocks read as probabilities (see Notes)."""
        tensor = _is_tensor(Z)
        T = Z if tensor else torch.from_numpy(np.asarray(Z, dtype=np.float64))
        n, p = T.shape[0], T.shape[1] - sum(self._sizes)
        proj = T[:, :p] @ self._tensor("frequencies_", T)[:p]
        # complex arithmetic: one fused multiply per block group (six real passes otherwise)
        z = torch.view_as_complex(torch.stack([torch.cos(proj), torch.sin(proj)], dim=2))
        edges = np.concatenate([[p], p + np.cumsum(self._sizes)])
        for group, cos_sin in self._joint_blocks(T):
            # the joint distribution of the group's (independent) blocks
            P = T.new_ones(n, 1)
            for b in group:
                P = (P[:, :, None] * T[:, edges[b] : edges[b + 1]][:, None, :]).reshape(n, -1)
            # Σ_c P_c exp(iω_c): interleaved (cos, sin) columns, read as complex
            z = z * torch.view_as_complex((P @ cos_sin).view(n, m, 2))
        H = torch.cat([z.real, z.imag[:, :n_sin]], dim=1) / math.sqrt(m)
        if tensor:
            return H
        H = H.numpy()
        H[~np.isfinite(H)] = 0.0  # an extreme input: the norm only shrinks
        return H

    def _joint_blocks(self, like):
        """Block groups and their joint categories' ``cos ω_c, sin ω_c``, interleaved (cached).

        Small blocks are merged (up to ``_JOINT_SIZE`` joint categories, the
        frequency of a joint category being the sum of its blocks'), which
        turns a chain of elementwise complex products into fewer matrix
        products: the same expectation, faster.
        """
        cache = self.__dict__.setdefault("_tensors", {})
        key = ("_joint_blocks", like.device, like.dtype)
        if key not in cache:
            W = self.frequencies_
            edges = np.concatenate([[0], np.cumsum(self._sizes)]) + W.shape[0] - sum(self._sizes)
            blocks = []
            for group in _group_blocks(self._sizes, _JOINT_SIZE):
                w = np.zeros((1, W.shape[1]))
                for b in group:
                    w = (w[:, None, :] + W[edges[b] : edges[b + 1]][None, :, :]).reshape(-1, W.shape[1])
                cos_sin = np.stack([np.cos(w), np.sin(w)], axis=2).reshape(len(w), -1)
                blocks.append((group, torch.as_tensor(cos_sin, dtype=like.dtype, device=like.device)))
            cache[key] = blocks
        return cache[key]


_JOINT_SIZE = 64


def _group_blocks(sizes, cap):
    """Block indices packed, largest first, into groups of at most ``cap`` joint categories."""
    groups, products = [], []
    for b in sorted(range(len(sizes)), key=lambda b: -sizes[b]):
        for g, group in enumerate(groups):
            if products[g] * sizes[b] <= cap:
                group.append(b)
                products[g] *= sizes[b]
                break
        else:
            groups.append([b])
            products.append(sizes[b])
    return groups
