"""One-way histogram features of an encoded table (non-negative, norm one)."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math
from numbers import Integral

import numpy as np
import torch
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted

from ._base import BoundedFeatureMap, _is_tensor

__all__ = ["HistogramFeatures"]


class HistogramFeatures(BoundedFeatureMap):
    """Every column's cell of an encoded table, one-hot, scaled to norm one.

    The input is a table encoded like :class:`~skdpgen.schema.TableEncoder`'s
    output: numeric columns on ``[-1, 1]`` first, then one-hot blocks of
    widths ``category_sizes``. Each *histogram column* (every numeric column,
    and every block that is not a numeric column's missing indicator) is
    mapped to the one-hot vector of its cell, and the ``d`` vectors are
    concatenated and divided by ``sqrt(d)``. The mean of the features over
    rows is therefore the table's one-way histograms (as proportions), each
    divided by ``sqrt(d)``; its kernel ``k(x, x′)`` is the fraction of
    columns in which ``x`` and ``x′`` share a cell.

    Read more in the :ref:`User Guide <synthesizers>`.

    Parameters
    ----------
    bins : int, default=16
        Equal-width cells of ``[-1, 1]`` of every numeric column.
    category_sizes : sequence of int, default=()
        Widths of the one-hot blocks after the numeric columns.
    cell_maps : sequence of (array-like of int or None), default=None
        For each block, the cell of each of its entries (entries sharing a
        cell are counted together, e.g. consecutive integer levels); None,
        for all blocks or one, keeps one cell per entry.
    indicators : sequence of int, default=None
        For each numeric column, the index (among the blocks) of its
        ``[present, missing]`` indicator block, or -1 for none. A numeric
        column with an indicator gets one more cell, "missing", and its
        indicator block is not counted again. None: no indicators.

    Attributes
    ----------
    n_cells_ : list of int
        Number of cells of each histogram column.
    cell_offsets_ : ndarray of int
        Where each histogram column's cells start in the feature vector.
    n_features_out_ : int
        ``sum(n_cells_)``.
    n_features_in_ : int

    See Also
    --------
    HermiteFeatures : Smooth features of numeric columns.
    skdpgen.KMESynthesizer : Releases these histograms to calibrate its samples
        (``marginal_share``).

    Notes
    -----
    Every row, whatever the input holds, is mapped to exactly one cell per
    histogram column (a block's largest entry decides; numeric values
    outside ``[-1, 1]`` fall in the end cells), so every feature vector is a
    non-negative unit vector and replacing one row changes the features'
    sum by at most ``√2`` (:attr:`max_row_distance`). Equivalently, each of
    the ``d`` histograms of counts moves one count from one cell to
    another, ``√(2d)`` in all, divided by ``√d``. The features are
    piecewise constant, so they carry no gradient: they are for releases and
    for reweighting generated rows, not for training a generator through
    (``KMESynthesizer(features=...)``).

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen.kernels import HistogramFeatures
    >>> Z = np.array([[-0.9, 0.0, 1.0], [0.6, 1.0, 0.0]])  # one numeric column, one block
    >>> fmap = HistogramFeatures(bins=4, category_sizes=[2]).fit(Z)
    >>> (fmap.transform(Z) * np.sqrt(2)).round(3)
    array([[1., 0., 0., 0., 0., 1.],
           [0., 0., 0., 1., 1., 0.]])
    >>> fmap.cells(Z)
    array([[0, 1],
           [3, 0]])
    """

    _parameter_constraints: dict = {
        "bins": [Interval(Integral, 1, None, closed="left")],
        "category_sizes": ["array-like"],
        "cell_maps": [None, "array-like"],
        "indicators": [None, "array-like"],
    }
    nonnegative = True

    def __init__(self, *, bins=16, category_sizes=(), cell_maps=None, indicators=None):
        self.bins = bins
        self.category_sizes = category_sizes
        self.cell_maps = cell_maps
        self.indicators = indicators

    def _fit(self, X):
        sizes = [int(k) for k in self.category_sizes]
        if any(k < 1 for k in sizes):
            raise ValueError(f"category_sizes must be >= 1, got {sizes}.")
        n_numeric = X.shape[1] - sum(sizes)
        if n_numeric < 0:
            raise ValueError(
                f"X has {X.shape[1]} columns, fewer than the blocks' {sum(sizes)} entries."
            )
        maps = [None] * len(sizes) if self.cell_maps is None else list(self.cell_maps)
        if len(maps) != len(sizes):
            raise ValueError(f"cell_maps has {len(maps)} entries for {len(sizes)} blocks.")
        indicators = ([-1] * n_numeric if self.indicators is None
                      else [int(i) for i in self.indicators])
        if len(indicators) != n_numeric:
            raise ValueError(
                f"indicators has {len(indicators)} entries for {n_numeric} numeric columns."
            )
        for i in indicators:
            if i != -1 and not (0 <= i < len(sizes) and sizes[i] == 2):
                raise ValueError(f"indicator {i} is not the index of a 2-wide block.")
        self._sizes = sizes
        self._offsets = n_numeric + np.concatenate([[0], np.cumsum(sizes)]).astype(int)
        self._indicators = indicators
        used = {i for i in indicators if i != -1}
        self._blocks = [b for b in range(len(sizes)) if b not in used]
        self._maps = {}
        for b in self._blocks:
            m = np.arange(sizes[b]) if maps[b] is None else np.asarray(maps[b], dtype=int)
            if m.shape != (sizes[b],) or m.min() < 0:
                raise ValueError(f"cell_maps[{b}] must give a cell >= 0 to each of its "
                                 f"{sizes[b]} entries.")
            self._maps[b] = m
        self.n_cells_ = ([self.bins + int(i != -1) for i in indicators]
                         + [int(self._maps[b].max()) + 1 for b in self._blocks])
        self.cell_offsets_ = np.concatenate([[0], np.cumsum(self.n_cells_)[:-1]]).astype(np.intp)
        self._n_features_out = int(sum(self.n_cells_))

    def cells(self, Z):
        """The cell of every histogram column of every row of ``Z``.

        Parameters
        ----------
        Z : ndarray of shape (n_samples, n_features_in_)
            Encoded rows with exact one-hot blocks (each block's largest
            entry decides).

        Returns
        -------
        cells : ndarray of int of shape (n_samples, len(n_cells_))
        """
        check_is_fitted(self)
        Z = np.asarray(Z, dtype=np.float64)
        n_numeric = self._offsets[0]
        codes = [np.argmax(Z[:, lo:hi], axis=1)
                 for lo, hi in zip(self._offsets[:-1], self._offsets[1:])]
        return self.cells_of_codes(Z[:, :n_numeric], codes)

    def cells_of_codes(self, numeric, codes):
        """:meth:`cells` of rows given as numeric values and block codes.

        Parameters
        ----------
        numeric : ndarray of shape (n_samples, n_numeric)
            The numeric columns (on ``[-1, 1]``; values beyond fall in the
            end cells).
        codes : sequence of ndarray of int of shape (n_samples,)
            For each block, the index of the row's entry.

        Returns
        -------
        cells : ndarray of int of shape (n_samples, len(n_cells_))
        """
        check_is_fitted(self)
        numeric = np.asarray(numeric, dtype=np.float64)
        n_numeric = self._offsets[0]
        out = np.empty((numeric.shape[0], len(self.n_cells_)), dtype=np.int64)
        u = (np.clip(numeric, -1.0, 1.0) + 1.0) * (self.bins / 2.0)
        out[:, :n_numeric] = np.minimum(u.astype(np.int64), self.bins - 1)
        for j, i in enumerate(self._indicators):
            if i != -1:
                out[np.asarray(codes[i]) == 1, j] = self.bins  # [present, missing]
        for j, b in enumerate(self._blocks, start=n_numeric):
            out[:, j] = self._maps[b][np.asarray(codes[b])]
        return out

    def raw_transform(self, Z):
        """Cell one-hots of every histogram column, scaled by ``1/sqrt(d)``.

        Parameters
        ----------
        Z : ndarray or torch.Tensor of shape (n_samples, n_features_in_)

        Returns
        -------
        H : ndarray or torch.Tensor of shape (n_samples, n_features_out_)
            Exactly one non-zero entry per histogram column. A tensor's
            features are computed in NumPy and carry no gradient (cells are
            piecewise constant; nothing trains through this map).
        """
        check_is_fitted(self)
        if _is_tensor(Z):
            H = torch.as_tensor(self.raw_transform(Z.detach().cpu().numpy()),
                                dtype=Z.dtype, device=Z.device)
            return H
        cells = self.cells(Z)
        n, d = cells.shape
        H = np.zeros((n, self._n_features_out))
        # one cell per column, whatever Z holds
        H[np.arange(n)[:, None], cells + self.cell_offsets_] = 1.0
        return H / math.sqrt(max(d, 1))
