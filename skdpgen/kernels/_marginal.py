"""Marginal features: indicator features of a table's cells, whose mean is its marginals."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import itertools
import math
from numbers import Integral

import numpy as np
import torch
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted

from ._base import BoundedFeatureMap, _is_tensor, unit_norm_scale

__all__ = ["MarginalFeatures"]


class MarginalFeatures(BoundedFeatureMap):
    """Indicator features of one-hot columns: their mean embedding is the marginals.

    A table whose every column is a one-hot block (categories, integer
    levels, or the public bins of a numeric column) has, for each marginal
    ``(a, b, …)`` (a tuple of columns), one feature per cell: the product of
    the blocks' entries, 1 in the row's cell and 0 elsewhere. The features
    of ``M`` marginals, each scaled by ``1/sqrt(M)``, have norm 1 on a
    one-hot row, and their mean over rows is every marginal's histogram (in
    proportions) divided by ``sqrt(M)``: a k-way marginal is a mean
    embedding with indicator features (the kernel is the number of the
    chosen marginals on which two rows share a cell, over ``M``).

    Parameters
    ----------
    category_sizes : array-like of int
        The widths of the one-hot blocks, in the order of the input's
        columns (their sum is the input width).
    degree : int, default=2
        With ``marginals=None``: every marginal of this many columns (1:
        each column's histogram; 2: every pair's joint histogram).
    marginals : array-like of shape (M, k), default=None
        The marginals, as tuples of ``k`` distinct block indices; None for
        every combination of ``degree`` blocks.
    groups : list, default=None
        Coarser cells for the marginals: per block, None (its cells as
        they are) or an array mapping each of its cells to a coarse cell
        ``0 … g − 1`` (every coarse cell used). A marginal then counts the
        rows in each combination of coarse cells (a block's entries summed
        over its groups before the products), so that pairs of fine columns
        (integer levels, many bins) are released on few cells.

    Attributes
    ----------
    marginals_ : list of tuple of int
    n_features_out_ : int
        ``Σ_marginals Π_{a in marginal} sizes_[a]``.
    sizes_ : ndarray of int
        Each block's cells in the marginals: its width, or its number of
        coarse cells with ``groups``.
    offsets_ : ndarray of int
        Where each marginal's cells start in the feature vector.

    Notes
    -----
    **Bounded.** Every input entry is clipped to ``[0, 1]`` before the
    products (one-hot entries and probabilities are unchanged), so every
    feature is non-negative and finite for any finite input
    (:attr:`nonnegative`), and :meth:`feature_sum` clips every row to norm
    ≤ 1. A one-hot row has exactly one non-zero cell per marginal, of value
    1: norm ``sqrt(M · 1/M) = 1``, untouched by the clip. Replacing one row
    changes a sum of rows by ``h(x) − h(x′)`` with ``‖h(x) − h(x′)‖² =
    ‖h(x)‖² + ‖h(x′)‖² − 2⟨h(x), h(x′)⟩ ≤ 2``: the mean's replace-one
    sensitivity is ``√2/n`` (:attr:`max_row_distance`), and each marginal's
    noise is that of the Gaussian mechanism on all ``M`` histograms at once
    (a record moves one count in each).

    For generated rows of probabilities (a generator's softmax blocks),
    :meth:`raw_feature_sum` is the marginal of the mixture of their
    product distributions; for pairs it is computed from one Gram matrix of
    the blocks (``Zᵀ diag(w) Z``), never the feature matrix.

    Examples
    --------
    Two columns of 2 and 3 categories, every pair (one pair, 6 cells):

    >>> import numpy as np
    >>> from skdpgen.kernels import MarginalFeatures
    >>> Z = np.array([[1, 0, 0, 1, 0], [0, 1, 0, 0, 1]], dtype=float)
    >>> pairs = MarginalFeatures(category_sizes=[2, 3]).fit(Z)
    >>> pairs.marginals_, pairs.n_features_out_
    ([(0, 1)], 6)
    >>> pairs.transform(Z).mean(axis=0)  # the joint histogram, row-major
    array([0. , 0.5, 0. , 0. , 0. , 0.5])
    >>> MarginalFeatures(category_sizes=[2, 3], degree=1).fit(Z).transform(Z)[0] ** 2 * 2
    array([1., 0., 0., 1., 0.])
    """

    _parameter_constraints: dict = {
        "category_sizes": ["array-like"],
        "degree": [Interval(Integral, 1, None, closed="left")],
        "marginals": ["array-like", None],
        "groups": [list, None],
    }
    nonnegative = True

    def __init__(self, *, category_sizes=(), degree=2, marginals=None, groups=None):
        self.category_sizes = category_sizes
        self.degree = degree
        self.marginals = marginals
        self.groups = groups

    def _fit(self, X):
        sizes = [int(s) for s in self.category_sizes]
        if any(s < 1 for s in sizes) or sum(sizes) != X.shape[1]:
            raise ValueError(f"category_sizes {sizes} must be positive and sum to the "
                             f"input's {X.shape[1]} columns.")
        if self.marginals is None:
            marginals = list(itertools.combinations(range(len(sizes)), self.degree))
        else:
            marginals = [tuple(int(a) for a in m) for m in self.marginals]
        for m in marginals:
            if len(set(m)) != len(m) or not all(0 <= a < len(sizes) for a in m):
                raise ValueError(f"marginal {m} must hold distinct block indices below "
                                 f"{len(sizes)}.")
        if not marginals:
            raise ValueError("MarginalFeatures needs at least one marginal.")
        groups = [None] * len(sizes) if self.groups is None else list(self.groups)
        if len(groups) != len(sizes):
            raise ValueError(f"groups must hold one entry per block ({len(sizes)}), "
                             f"got {len(groups)}.")
        self.starts_ = np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp)
        self._aggregate = []  # per block: None, or its (cells × coarse cells) 0/1 matrix
        for a, g in enumerate(groups):
            if g is None:
                self._aggregate.append(None)
                continue
            g = np.asarray(g, dtype=np.intp)
            if g.shape != (sizes[a],) or g.min() < 0 or set(g.tolist()) != set(range(g.max() + 1)):
                raise ValueError(f"groups[{a}] must map the block's {sizes[a]} cells onto "
                                 "coarse cells 0 ... g - 1, each used.")
            self._aggregate.append(np.eye(g.max() + 1)[g])
        self.sizes_ = np.asarray([s if A is None else A.shape[1]
                                  for s, A in zip(sizes, self._aggregate)], dtype=np.intp)
        sizes = self.sizes_.tolist()
        self.marginals_ = marginals
        widths = [int(np.prod([sizes[a] for a in m])) for m in marginals]
        self.offsets_ = np.concatenate([[0], np.cumsum(widths)]).astype(np.intp)
        self._n_features_out = int(self.offsets_[-1])
        for a, A in enumerate(self._aggregate):  # fitted arrays, for _tensor
            setattr(self, f"_aggregate_{a}", A)
        self._pair_index = None
        if all(len(m) == 2 for m in marginals):
            # where each pair's cells sit in the (W × W) Gram matrix, flattened
            coarse = np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp)
            width = int(coarse[-1])
            index = []
            for a, b in marginals:
                rows = np.arange(coarse[a], coarse[a + 1])
                cols = np.arange(coarse[b], coarse[b + 1])
                index.append((rows[:, None] * width + cols[None, :]).ravel())
            self._pair_index = np.concatenate(index)

    def _blocks(self, Z):
        """The input's one-hot blocks, clipped to ``[0, 1]``, summed over their groups
        (a sum of a one-hot block's entries is in [0, 1] too)."""
        tensor = _is_tensor(Z)
        Z = torch.clamp(Z, 0, 1) if tensor else np.clip(Z, 0, 1)
        blocks = []
        for a, A in enumerate(self._aggregate):
            block = Z[:, self.starts_[a]:self.starts_[a + 1]]
            if A is not None:
                block = block @ (self._tensor(f"_aggregate_{a}", Z) if tensor else A)
                block = torch.clamp(block, 0, 1) if tensor else np.clip(block, 0, 1)
            blocks.append(block)
        return blocks

    def raw_transform(self, Z):
        """The cells' indicators (products of the blocks' entries), before the clip."""
        check_is_fitted(self)
        blocks = self._blocks(Z)
        out = []
        for m in self.marginals_:
            cell = blocks[m[0]]
            for a in m[1:]:
                cell = (cell[:, :, None] * blocks[a][:, None, :]).reshape(cell.shape[0], -1)
            out.append(cell)
        H = torch.cat(out, dim=1) if _is_tensor(Z) else np.concatenate(out, axis=1)
        return H / math.sqrt(len(self.marginals_))

    def feature_sum(self, X, weights):
        """``Σ_i weights[i, k] h(x_i)`` with every row clipped to norm ≤ 1.

        Fused: a row's squared norm is ``(1/M) Σ_marginals Π ‖block‖²``
        (the norm of an outer product is the product of the norms), so the
        clip is a factor on the row's weight (:func:`unit_norm_scale`, as
        every path) and the sums come from :meth:`raw_feature_sum`.
        """
        if not _is_tensor(X):
            X = np.asarray(X, dtype=np.float64)
            codes = self._one_hot_codes(X)
            if codes is not None:  # every row has norm exactly 1: the clip's factor, once
                scale = unit_norm_scale(np.ones(X.shape[0]))
                return self._cell_counts(codes, weights * scale[:, None])
        squares = [(b * b).sum(1) for b in self._blocks(X)]
        norm2 = 0.0
        for m in self.marginals_:
            term = squares[m[0]]
            for a in m[1:]:
                term = term * squares[a]
            norm2 = norm2 + term
        scale = unit_norm_scale(norm2 / len(self.marginals_))
        return self.raw_feature_sum(X, weights * scale[:, None])

    def _one_hot_codes(self, X):
        """Each block's (coarse) cell of every row, when every block of every
        row is exactly one-hot (an encoded table); None otherwise."""
        codes = []
        for a, A in enumerate(self._aggregate):
            block = X[:, self.starts_[a]:self.starts_[a + 1]]
            if not (np.all((block == 0.0) | (block == 1.0)) and np.all(block.sum(1) == 1.0)):
                return None
            code = block.argmax(1)
            codes.append(code if A is None else A.argmax(1)[code])
        return codes

    def _cell_counts(self, codes, weights):
        """``Σ_i weights[i, k] h(z_i)`` for one-hot rows given by their cells:
        one weighted count per cell of every marginal (``numpy.bincount``),
        the same sums as :meth:`raw_feature_sum` without its products."""
        sizes = self.sizes_
        out = np.zeros((self._n_features_out, weights.shape[1]))
        for i, m in enumerate(self.marginals_):
            index = codes[m[0]]
            for a in m[1:]:
                index = index * sizes[a] + codes[a]
            start, stop = self.offsets_[i], self.offsets_[i + 1]
            for k in range(weights.shape[1]):
                out[start:stop, k] = np.bincount(index, weights=weights[:, k],
                                                 minlength=stop - start)
        return out / math.sqrt(len(self.marginals_))

    def raw_feature_sum(self, Z, weights):
        """``Σ_i weights[i, k] h(z_i)`` without the clip (generated rows).

        For pairs, one Gram matrix ``Zᵀ diag(w_k) Z`` per output ``k``,
        whose blocks are the pairs' weighted joint sums: the feature matrix
        is never built.
        """
        blocks = self._blocks(Z)
        if self._pair_index is None:
            return self._products_sum(blocks, weights, _is_tensor(Z))
        scale = 1.0 / math.sqrt(len(self.marginals_))
        if _is_tensor(Z):
            Zc = torch.cat(blocks, dim=1)
            index = self._tensor("_pair_index", Z, dtype=torch.long)
            grams = torch.stack([(Zc * weights[:, k:k + 1]).T @ Zc
                                 for k in range(weights.shape[1])])
            return grams.reshape(weights.shape[1], -1)[:, index].T * scale
        Zc = np.concatenate(blocks, axis=1)
        grams = np.stack([(Zc * weights[:, k:k + 1]).T @ Zc for k in range(weights.shape[1])])
        return grams.reshape(weights.shape[1], -1)[:, self._pair_index].T * scale

    def _products_sum(self, blocks, weights, tensor):
        """Each marginal's weighted sum of outer products, one marginal at a time
        (the rows' outer product of all but the last block, then one product
        with the last): never the whole feature matrix."""
        out = []
        for m in self.marginals_:
            head = blocks[m[0]]
            for a in m[1:-1]:
                head = (head[:, :, None] * blocks[a][:, None, :]).reshape(head.shape[0], -1)
            for k in range(weights.shape[1]):
                weighted = head * weights[:, k:k + 1]
                cell = weighted.T @ blocks[m[-1]] if len(m) > 1 else weighted.sum(0)
                out.append((k, cell.reshape(-1)))
        parts = [[c for k2, c in out if k2 == k] for k in range(weights.shape[1])]
        cat = torch.cat if tensor else np.concatenate
        stack = torch.stack if tensor else np.stack
        return stack([cat(p) for p in parts], 1) / math.sqrt(len(self.marginals_))

    def cells(self, embedding):
        """Each marginal's histogram (proportions) from an embedding of this map.

        Parameters
        ----------
        embedding : ndarray of shape (n_features_out_,)

        Returns
        -------
        marginals : list of ndarray
            One array per marginal, of the shape of its blocks.
        """
        check_is_fitted(self)
        embedding = np.asarray(embedding, dtype=np.float64) * math.sqrt(len(self.marginals_))
        return [embedding[lo:hi].reshape([int(self.sizes_[a]) for a in m])
                for m, lo, hi in zip(self.marginals_, self.offsets_[:-1], self.offsets_[1:])]
