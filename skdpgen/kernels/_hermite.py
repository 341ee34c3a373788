"""Hermite polynomial features of the Gaussian kernel (DP-HP)."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import itertools
import math
from numbers import Integral, Real

import numpy as np
import torch
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import _check_feature_names_in, check_is_fitted

from ._base import BoundedFeatureMap, _is_tensor, check_length_scale, unit_norm_scale
from ._hermite_block import (  # noqa: F401
    _clip_inputs,
    _hermite_stack,
    _hermite_sums,
    _HermiteSums,
    _rowwise_products,
    _WeightedGram,
    hermite_block,
    hermite_rho,
    hermite_terms,
)

__all__ = ["HermiteFeatures", "hermite_block", "hermite_rho", "hermite_terms"]

# The fused sum kernel's rows are shrunk by this factor before the clip, which
# then scales only rows above norm one by more than rounding (see feature_sum):
# its sums are within 2**-42 (relative) of the unshrunk clipped rows'.
_SHRINK = 1.0 - 2.0**-42

class HermiteFeatures(BoundedFeatureMap):
    """Hermite polynomial features of the Gaussian kernel (DP-HP).

    Expands the per-dimension Gaussian kernel
    ``k_d(x, y) = exp(−(x − y)²/(2ℓ_d²))`` with Mehler's formula and keeps the
    orders ``0 … C``. With ``ρ = sqrt(1 + ℓ⁴) − ℓ²`` the one-dimensional
    feature vector is ``φ(x) = [φ_0(x), …, φ_C(x)]`` where
    ``φ_c(x) = sqrt(λ_c) f_c(x)``, ``λ_c = (1 − ρ)ρ^c`` and
    ``f_c(x) = H_c(x) exp(−ρx²/(1 + ρ)) / sqrt(N_c)``; ``φ(x)ᵀφ(y)`` converges
    to ``k_d(x, y)`` geometrically in C.

    The last columns of the input may be *one-hot blocks* (``category_sizes``),
    as in a table encoded by :class:`skdpgen.schema.TableEncoder`: each block
    is one column of the table, kept as it is (the exact delta kernel of a
    categorical column) instead of being expanded. This is DP-HP's kernel on
    mixed-type tables.

    Read more in the :ref:`User Guide <hermite_features>`.

    Parameters
    ----------
    order : int, default=20
        Highest Hermite order C (C + 1 features per numeric dimension).
    length_scale : float or array-like of shape (n_numeric,), default=1.0
        Length scale ℓ of the Gaussian kernel, one per numeric input column or
        shared. It is a hyperparameter: choose it from public knowledge (e.g.
        relative to public bounds), never from the private data.
    kernel : {"sum", "product", "pairwise"}, default="sum"
        ``"sum"``: ``h(x) = [φ(x_1), …, φ(x_D)] / sqrt(D)`` over the D table
        columns (a one-hot block stands for its own φ), which approximates
        ``(1/D) Σ_d k_d``; ``p(C + 1) + Σ sizes`` features for p numeric
        columns. ``"product"``: ``h(x) = vec(⊗_{d∈S} φ(x_d))`` over the table
        columns S in ``product_dims``, which approximates ``Π_{d∈S} k_d``.
        ``"pairwise"``: ``h(x) = [vec(φ(x_a) ⊗ φ(x_b))]_{a<b} / sqrt(P)``
        over the ``P`` pairs of columns of S, which approximates
        ``(1/P) Σ_{a<b} k_a k_b``: every two-way interaction at once (a
        single column's ``φ`` when S has one column).
    product_dims : array-like of int, default=None
        The table columns S of the product or pairwise kernel (all when
        None): indices ``0 … p − 1`` are the numeric columns, ``p, p + 1, …``
        the one-hot blocks in order. Ignored for the sum kernel.
    pairs : array-like of int of shape (P, 2), default=None
        The pairwise kernel's pairs of table columns (indices as in
        ``product_dims``, two distinct columns each, no pair twice): the
        sum runs over these ``P`` pairs only. None: every pair of the
        columns S. With ``pairs`` and no ``product_dims``, S is the columns
        the pairs name. Ignored by the sum and product kernels.
    category_sizes : sequence of int, default=()
        Sizes of the one-hot blocks that end each input row (none by default:
        every column is numeric).

    Attributes
    ----------
    length_scale_ : ndarray of shape (n_numeric,)
        Per-column length scale.
    rho_ : ndarray of shape (n_numeric,)
        Mehler parameter per numeric column.
    product_dims_ : ndarray of int
        Table columns of the product kernel (all columns for "sum").
    pairs_ : ndarray of int of shape (P, 2) or None
        The pairwise kernel's pairs of table columns (None for the other
        kernels, and for a pairwise kernel over a single column).
    n_numeric_ : int
        Number of numeric input columns.
    n_features_out_ : int
        Number of features.
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
    terms, so ``‖φ(x)‖ ≤ 1`` for every dimension, and a one-hot block (or a
    vector of probabilities) has norm ≤ 1 too. Hence
    ``‖h(x)‖² = (1/D) Σ_d ‖φ(x_d)‖² ≤ 1`` for the sum kernel and
    ``‖h(x)‖ = Π_d ‖φ(x_d)‖ ≤ 1`` for the product kernel, and
    ``‖h(x)‖² = (1/P) Σ_{(a,b)} ‖φ(x_a)‖² ‖φ(x_b)‖² ≤ 1`` (over its ``P``
    pairs) for the pairwise kernel (one-hot entries of an input that is not
    an encoding are first kept within ``±M^(1/2m)/1000`` for products of
    ``m`` blocks, ``M`` the largest float, so that the products' squares
    stay finite). To keep the bound under floating-point rounding every row goes through
    :func:`~skdpgen.kernels.unit_norm_scale`. Inputs beyond ±1e150 are
    clipped first (their features underflow to 0 anyway), so any finite
    input, even ±1e300, maps to a vector of norm ≤ 1. NaN and inf raise
    ``ValueError`` in :meth:`transform`.

    **Approximation.** For ``x, y ~ N(0, 1)`` and ``ρ = 1/3`` the mean
    absolute error of one dimension's order-C approximation is at most
    ``(1/(3 sqrt 2)) (1/3)^C`` (Vinaroz et al. 2022, Prop. B.1).

    Features are computed in float64 and cast to the input's dtype
    (:meth:`transform`), or in the tensor's dtype (:meth:`torch_transform`).

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

    A numeric column followed by a categorical one with three categories:

    >>> Z = np.array([[0.2, 1.0, 0.0, 0.0], [-0.5, 0.0, 0.0, 1.0]])
    >>> HermiteFeatures(order=4, category_sizes=[3]).fit(Z).transform(Z).shape
    (2, 8)

    The pairwise kernel of the same two columns: their one pair, 5 × 3
    features:

    >>> pair = HermiteFeatures(order=4, kernel="pairwise", category_sizes=[3]).fit(Z)
    >>> pair.transform(Z).shape
    (2, 15)
    """

    _parameter_constraints: dict = {
        "order": [Interval(Integral, 0, None, closed="left")],
        "length_scale": [Interval(Real, 0, None, closed="neither"), "array-like"],
        "kernel": [StrOptions({"sum", "product", "pairwise"})],
        "product_dims": ["array-like", None],
        "pairs": ["array-like", None],
        "category_sizes": ["array-like"],
    }

    def __init__(self, *, order=20, length_scale=1.0, kernel="sum", product_dims=None,
                 pairs=None, category_sizes=()):
        self.order = order
        self.length_scale = length_scale
        self.kernel = kernel
        self.product_dims = product_dims
        self.pairs = pairs
        self.category_sizes = category_sizes

    def _fit(self, X):
        sizes = np.asarray(self.category_sizes, dtype=np.int64).reshape(-1)
        if np.any(sizes < 1) or sizes.sum() > X.shape[1]:
            raise ValueError(
                f"category_sizes must be positive and fit in the {X.shape[1]} input "
                f"columns, got {list(self.category_sizes)!r}."
            )
        p = X.shape[1] - int(sizes.sum())
        n_columns = p + sizes.size
        self.n_numeric_ = p
        self.length_scale_ = check_length_scale(self.length_scale, p)
        self.rho_ = hermite_rho(self.length_scale_)
        self._sizes = sizes
        self._offsets = p + np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp)
        pairs = self._check_pairs(n_columns) if self.kernel == "pairwise" else None
        if self.kernel != "sum" and self.product_dims is not None:
            dims = np.asarray(self.product_dims)
            if (
                dims.ndim != 1
                or dims.size == 0
                or not np.issubdtype(dims.dtype, np.integer)
                or np.any(dims < 0)
                or np.any(dims >= n_columns)
                or np.unique(dims).size != dims.size
            ):
                raise ValueError(
                    "product_dims must be distinct column indices in "
                    f"[0, {n_columns}), got {self.product_dims!r}."
                )
            self.product_dims_ = dims.astype(np.intp)
            if pairs is not None and not np.isin(pairs, self.product_dims_).all():
                raise ValueError(f"pairs must name columns of product_dims, got {self.pairs!r}.")
        elif pairs is not None:
            self.product_dims_ = np.unique(pairs).astype(np.intp)
        else:
            self.product_dims_ = np.arange(n_columns)
        widths = [self.order + 1 if j < p else int(sizes[j - p]) for j in self.product_dims_]
        self.pairs_ = None
        if self.kernel == "sum":
            self._n_features_out = p * (self.order + 1) + int(sizes.sum())
        elif self.kernel == "product":
            self._n_features_out = int(np.prod(widths))
        else:
            self._set_pairs(widths)

    def _check_pairs(self, n_columns):
        """``pairs`` as a (P, 2) array of column indices, or None (all pairs)."""
        if self.pairs is None:
            return None
        pairs = np.asarray(self.pairs)
        if (
            pairs.ndim != 2
            or pairs.shape[0] == 0
            or pairs.shape[1] != 2
            or not np.issubdtype(pairs.dtype, np.integer)
            or np.any(pairs < 0)
            or np.any(pairs >= n_columns)
            or np.any(pairs[:, 0] == pairs[:, 1])
            or np.unique(np.sort(pairs, axis=1), axis=0).shape[0] != pairs.shape[0]
        ):
            raise ValueError(
                "pairs must be distinct pairs of two distinct column indices in "
                f"[0, {n_columns}), got {self.pairs!r}."
            )
        return pairs.astype(np.intp)

    def _set_pairs(self, widths):
        """Where every pairwise feature sits in the Gram matrix of the stacked blocks.

        ``_pair_rows``/``_pair_cols`` index the stacked blocks (None for a
        single column, whose features are its own block); ``_pair_blocks``
        gives each pair's two positions among the stacked blocks.
        """
        self._block_starts = np.concatenate([[0], np.cumsum(widths)]).astype(np.intp)
        if self.pairs is None:
            pairs = list(itertools.combinations(range(len(widths)), 2))
        else:
            position = {int(j): i for i, j in enumerate(self.product_dims_)}
            pairs = [tuple(sorted((position[int(a)], position[int(b)])))
                     for a, b in np.asarray(self.pairs)]
        if not pairs:
            self._pair_rows = self._pair_cols = self.pairs_ = None
            self._n_pairs = 0
            self._n_features_out = int(widths[0])
            return
        starts = self._block_starts
        rows, cols = zip(*(np.meshgrid(np.arange(starts[a], starts[a + 1]),
                                       np.arange(starts[b], starts[b + 1]), indexing="ij")
                           for a, b in pairs))
        self._pair_rows = np.concatenate([r.ravel() for r in rows])
        self._pair_cols = np.concatenate([c.ravel() for c in cols])
        # the pairwise features' positions in the flattened (W·W) Gram matrix
        self._pair_flat = self._pair_rows * int(starts[-1]) + self._pair_cols
        self._pair_blocks = np.asarray(pairs, dtype=np.intp)
        self.pairs_ = self.product_dims_[self._pair_blocks]
        self._n_pairs = len(pairs)
        self._n_features_out = int(self._pair_rows.size)

    def _n_columns(self):
        return self.n_numeric_ + self._sizes.size

    def _split_columns(self, Z):
        """``Z``'s numeric columns and its one-hot blocks, in one split.

        For tensors one ``torch.split`` (its backward is one concatenation;
        a slice per block would fill a zero tensor of ``Z``'s whole shape per
        block in the backward pass).
        """
        p = self.n_numeric_
        sizes = np.diff(self._offsets).tolist()
        if _is_tensor(Z):
            numeric, *blocks = torch.split(Z, [p] + sizes, dim=1)
            return numeric, blocks
        return Z[:, :p], np.split(Z[:, p:], np.cumsum(sizes)[:-1], axis=1)

    def raw_transform(self, Z):
        """Features of every row of ``Z`` (NumPy or torch), before the clip.

        Parameters
        ----------
        Z : ndarray or torch.Tensor of shape (n_samples, n_features_in_)

        Returns
        -------
        H : same type, of shape (n_samples, n_features_out_)
        """
        check_is_fitted(self)
        torch_in = _is_tensor(Z)
        rho = self._tensor("rho_", Z) if torch_in else self.rho_
        n, p = Z.shape[0], self.n_numeric_
        if self.kernel == "sum":
            terms = hermite_block(Z[:, :p], rho, self.order)  # (n, p, C + 1)
            parts = [terms.reshape(n, p * (self.order + 1)), Z[:, p:]]
            H = torch.cat(parts, dim=1) if torch_in else np.concatenate(parts, axis=1)
            return H / math.sqrt(self._n_columns())
        if self.kernel == "pairwise":
            B = self._stacked_blocks(Z)
            if self._pair_rows is None:  # one column: its own features
                return B
            return B[:, self._pair_rows] * B[:, self._pair_cols] / math.sqrt(self._n_pairs)
        return _rowwise_products(self._product_blocks(Z))

    def _stacked_blocks(self, Z, cap=True):
        """The product-kernel blocks side by side, (n, Σ widths)."""
        blocks = self._product_blocks(Z, cap)
        return torch.cat(blocks, dim=1) if _is_tensor(Z) else np.concatenate(blocks, axis=1)

    def _pairwise_sum(self, B, weights):
        """``Σ_i w_ik h(z_i)`` of the pairwise kernel from the stacked blocks ``B``.

        The pairwise features are entries ``B_r B_c`` of the row's outer
        product, so their weighted sums are entries of the weighted Gram
        matrices ``Bᵀ diag(w_k) B``: matrix products, never the (n,
        n_features_out_) matrix. When every row weighs in at most one output
        (class-conditional weights, on the private side and the generator's
        alike), output ``k``'s Gram matrix is formed from its own rows only:
        ``n·W²`` multiply-adds in all instead of ``K·n·W²``.
        """
        if self._pair_rows is None:  # one column: its own features
            return B.T @ weights
        n, W = B.shape
        K = weights.shape[1]
        if "_pair_flat" not in self.__dict__:  # a map pickled before the flat positions
            self._pair_flat = self._pair_rows * W + self._pair_cols
        if _is_tensor(B):
            flat = self._tensor("_pair_flat", B, dtype=torch.long)
            nonzero = weights != 0
            if K > 1 and bool((nonzero.sum(1) <= 1).all()) and not weights.requires_grad:
                picked = []
                for k in range(K):
                    rows = nonzero[:, k].nonzero()[:, 0]
                    gram = _WeightedGram.apply(B.index_select(0, rows),
                                               weights.index_select(0, rows)[:, k])
                    picked.append(gram.reshape(W * W).index_select(0, flat))
                picked = torch.stack(picked, dim=1)
            else:
                gram = B.T @ (B[:, :, None] * weights[:, None, :]).reshape(n, W * K)
                # (W·W, K) rows picked by index_select: its backward adds, where an
                # advanced-index gather's backward would scatter with accumulation
                picked = gram.reshape(W * W, K).index_select(0, flat)
        else:
            nonzero = weights != 0
            if K > 1 and np.all(nonzero.sum(1) <= 1):
                gram = np.empty((W, W, K), dtype=np.result_type(B, weights))
                for k in range(K):
                    Bk = B[nonzero[:, k]]
                    gram[:, :, k] = Bk.T @ (Bk * weights[nonzero[:, k], k, None])
            else:
                gram = B.T @ (B[:, :, None] * weights[:, None, :]).reshape(n, W * K)
            picked = gram.reshape(W * W, K)[self._pair_flat]
        return picked / math.sqrt(self._n_pairs)

    def _pairwise_norms(self, B):
        """Squared norm of every row's pairwise features, from its blocks' norms."""
        starts = self._block_starts
        lib = torch if _is_tensor(B) else np
        norms = lib.stack([(B[:, a:b] * B[:, a:b]).sum(1)
                           for a, b in zip(starts[:-1], starts[1:])], 1)
        if self._pair_rows is None:  # one column: its own features
            return norms[:, 0]
        # Σ over the pairs of s_a s_b, a sum of non-negative terms: ((Σ s)² − Σ s²)/2
        # would cancel catastrophically when one block is huge (adversarial rows)
        a, b = self._pair_blocks[:, 0], self._pair_blocks[:, 1]
        return (norms[:, a] * norms[:, b]).sum(1) / self._n_pairs

    def _product_blocks(self, Z, cap=True):
        """The blocks of the product kernel's columns: Hermite terms or one-hot.

        ``cap=False`` leaves the one-hot entries as they are: for generated
        rows (:meth:`raw_feature_sum`), which are never clipped, so no cap is
        needed to keep the clip finite.
        """
        p = self.n_numeric_
        rho = self._tensor("rho_", Z) if _is_tensor(Z) else self.rho_
        numeric_dims = [int(j) for j in self.product_dims_ if j < p]
        numeric, onehot = self._split_columns(Z)
        if numeric_dims != list(range(p)):
            numeric = (numeric.index_select(1, torch.as_tensor(numeric_dims, dtype=torch.long,
                                                                 device=Z.device))
                       if _is_tensor(Z) else numeric[:, numeric_dims])
        terms = hermite_block(numeric, rho[numeric_dims], self.order)
        # one-hot entries of an input that is not an encoding may be huge: kept
        # within ±(largest float)^(1/2m)/1000 for products of m blocks, the
        # products' squares (and their sums) stay finite, so the clip to norm
        # ≤ 1 never meets inf (inf · 0 = NaN)
        m = 2 if self.kernel == "pairwise" else max(len(self.product_dims_), 1)
        big = torch.finfo(Z.dtype).max if _is_tensor(Z) else np.finfo(np.float64).max
        bound = big ** (1.0 / (2 * m)) / 1e3
        return [terms[:, numeric_dims.index(j)] if j < p
                else (onehot[j - p].clip(-bound, bound) if cap else onehot[j - p])
                for j in self.product_dims_]

    def _values_per_row(self, device="cpu", n_outputs=1):
        # the fused sum kernel on NumPy rows holds a row, its numeric columns
        # (transposed) and its weights; the terms live in slabs of a fixed size
        if self.kernel == "sum" and device == "cpu":
            return 2 * self.n_features_in_ + n_outputs
        return super()._values_per_row(device, n_outputs)

    def feature_sum(self, X, weights):
        """``Σ_i weights[i, k] h(x_i)`` with every row clipped to norm ≤ 1.

        For NumPy input and the sum kernel, and for the pairwise kernel, a
        fused path never materializes the (n, n_features_out_) matrix; it
        scales the rows with :func:`~skdpgen.kernels.unit_norm_scale` like
        every other path. The sum kernel sweeps the Hermite orders once on
        slabs of rows (``_hermite_sums``)
        and clips every row shrunk by ``1 − 2⁻⁴²`` first: a row's clipped
        contribution is then known before its norm for every row but those
        above norm one by more than rounding, whose terms are summed again
        (their sums differ from the unshrunk rows' by at most 2⁻⁴² relative).

        Parameters
        ----------
        X : ndarray or torch.Tensor of shape (n_samples, n_features_in_)
        weights : same type as ``X``, of shape (n_samples, n_outputs)

        Returns
        -------
        sums : ndarray or torch.Tensor of shape (n_features_out_, n_outputs)
        """
        if self.kernel == "pairwise":  # fused: the features are never materialized
            if not _is_tensor(X):
                X = np.asarray(X, dtype=np.float64)
            B = self._stacked_blocks(X)
            W = weights * unit_norm_scale(self._pairwise_norms(B))[:, None]
            return self._pairwise_sum(B, W)
        if self.kernel != "sum" or _is_tensor(X):
            return super().feature_sum(X, weights)
        X = np.asarray(X, dtype=np.float64)
        p, D = self.n_numeric_, self._n_columns()
        columns = _clip_inputs(np.ascontiguousarray(X[:, :p].T))  # (p, n): contiguous rows
        onehot = X[:, p:]
        numeric, squared = _hermite_sums(columns, self.rho_, self.order, weights)
        squared = (squared + np.einsum("nk,nk->n", onehot, onehot)) / D
        # every row shrunk by _SHRINK, then clipped: the sweep's sums (weights
        # unscaled) times _SHRINK are the rows' contributions, but for the rows
        # the clip scales (an input that is not an encoding; never a norm
        # within rounding of one), whose terms are summed again with the
        # difference of their weights
        scale = _SHRINK * unit_norm_scale(_SHRINK**2 * squared)
        W = weights * scale[:, None]
        numeric *= _SHRINK
        clipped = np.flatnonzero(scale < _SHRINK)
        if clipped.size:
            numeric += _hermite_sums(columns[:, clipped], self.rho_, self.order,
                                     W[clipped] - _SHRINK * weights[clipped])[0]
        K = weights.shape[1]
        numeric = numeric.transpose(1, 0, 2).reshape(p * (self.order + 1), K)
        return np.concatenate([numeric, onehot.T @ W], axis=0) / math.sqrt(D)

    def raw_feature_sum(self, Z, weights):
        """``Σ_i weights[i, k] h(z_i)`` without the clip, for generated rows.

        For a tensor the (n, n_features_out_) feature matrix is never built:
        the sum kernel's weighted sums are contracted straight from the
        Hermite terms, which live in a buffer the map reuses from call to
        call, with an analytic backward from the sums' gradient to the
        inputs'; the product kernel's by one matrix product of two groups of
        its blocks and the pairwise kernel's from per-class Gram matrices,
        the gradient flowing through :func:`hermite_block`'s analytic
        backward.

        Parameters
        ----------
        Z : ndarray or torch.Tensor of shape (n_samples, n_features_in_)
        weights : same type as ``Z``, of shape (n_samples, n_outputs)

        Returns
        -------
        sums : same type, of shape (n_features_out_, n_outputs)
        """
        if not _is_tensor(Z):
            return self.raw_transform(Z).T @ weights
        check_is_fitted(self)
        if self.kernel == "product":
            return self._product_sum(Z, weights)
        if self.kernel == "pairwise":
            return self._pairwise_sum(self._stacked_blocks(Z, cap=False), weights)
        p, width = self.n_numeric_, self.order + 1
        columns, onehot = torch.split(Z, [p, Z.shape[1] - p], dim=1)
        numeric = _HermiteSums.apply(_clip_inputs(columns), self._tensor("rho_", Z),
                                     self.order, weights, self._buffers())  # (C + 1, K, p)
        numeric = numeric.permute(2, 0, 1).reshape(p * width, weights.shape[1])
        sums = torch.cat([numeric, onehot.T @ weights], dim=0)
        return sums / math.sqrt(self._n_columns())

    def _product_sum(self, Z, weights):
        """Fused product-kernel sums of a tensor, as one matrix product.

        ``Σ_i w_ik ⊗_d b_d(z_i)`` splits the blocks in two groups, forms the
        row-wise tensor products of each group (the first with the weights),
        ``L`` of shape (n, K·Π_{d<m} w_d) and ``R`` of shape (n, Π_{d≥m} w_d),
        and contracts the rows in one GEMM ``Lᵀ R``; ``m`` makes ``L`` and
        ``R`` as narrow as it can. The (n, n_features_out_) matrix of the
        tensor products (and its gradient) is never built.
        """
        n, K = Z.shape[0], weights.shape[1]
        blocks = self._product_blocks(Z, cap=False)
        widths = [int(block.shape[1]) for block in blocks]
        split = min(range(1, len(blocks) + 1), key=lambda m: (
            K * math.prod(widths[:m]) + math.prod(widths[m:])))
        left = _rowwise_products(blocks[:split] + [weights])  # (n, A·K)
        right = (_rowwise_products(blocks[split:]) if split < len(blocks)
                 else Z.new_ones((n, 1)))
        sums = (left.T @ right).reshape(-1, K, right.shape[1])  # (A, K, B)
        return sums.permute(0, 2, 1).reshape(self._n_features_out, K)

    def get_feature_names_out(self, input_features=None):
        """Names of the output features.

        Parameters
        ----------
        input_features : array-like of str, default=None
            Input names; defaults to ``feature_names_in_`` or ``x0, x1, …``.

        Returns
        -------
        feature_names_out : ndarray of str
            ``"{col}_hermite{c}"`` for the sum kernel (one-hot columns keep
            their names) and ``"hermite({col}:{c},…)"`` for the product kernel.
        """
        check_is_fitted(self)
        names = _check_feature_names_in(self, input_features)
        p = self.n_numeric_
        orders = range(self.order + 1)

        def column_names(j):
            if j < p:
                return [f"{names[j]}:{c}" for c in orders]
            return list(names[self._offsets[j - p] : self._offsets[j - p + 1]])

        if self.kernel == "sum":
            out = [f"{names[j]}_hermite{c}" for j in range(p) for c in orders]
            out += list(names[p:])
        elif self.kernel == "pairwise":
            stacked = [name for j in self.product_dims_ for name in column_names(j)]
            if self._pair_rows is None:
                return np.asarray([f"hermite({o})" for o in stacked], dtype=object)
            out = [f"hermite({stacked[r]},{stacked[c]})"
                   for r, c in zip(self._pair_rows, self._pair_cols)]
        else:
            out = [""]
            for j in self.product_dims_:
                out = [f"{o},{c}" if o else c for o in out for c in column_names(j)]
            out = [f"hermite({o})" for o in out]
        return np.asarray(out, dtype=object)
