"""A private table held by Dask: row blocks summed where they live.

Every pass a fit makes over private rows (the recorded leaks aside) is a
sum followed by one noise addition: of the canonical forms' statistics (the schema estimate,
:meth:`DaskRows.partition_sums`), or of bounded feature vectors times
one-hot labels (the releases, :meth:`DaskRows.feature_sums`). With a Dask
array or DataFrame each sum runs partition by partition on whatever
scheduler is active (a ``distributed.Client`` when one exists, otherwise
Dask's threads); a feature sum streams over row chunks exactly as the
in-memory path does (:func:`chunk_feature_sums`), and only the small
partial sums travel back (a feature sum's combined in a tree). The noise is
added afterwards on the client, once, so the privacy guarantee and report
do not change.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import contextlib
import warnings

import numpy as np
import pandas as pd

from .._dask import meta, partition_sums
from .._canonical import canonical, labels_series, numbers_table
from ._base import TableRows, _Part, labels_in_memory
from ._memory import chunk_feature_sums, split_sums

__all__ = ["DaskRows", "count_rows"]

# Partial sums combined per task in the reduction tree.
_FAN_IN = 8


def _blocks(x, name):
    """Row blocks of a Dask array or DataFrame/Series as a list of Delayed."""
    import dask.array as da

    if isinstance(x, da.Array):
        if x.ndim == 2:
            x = x.rechunk({1: -1})  # whole rows in every block
            return list(x.to_delayed()[:, 0]), x.shape[1]
        if x.ndim == 1:
            return list(x.to_delayed()), None
        raise ValueError(f"{name} must be a 1-D or 2-D Dask array, got {x.ndim}-D.")
    if hasattr(x, "to_delayed") and hasattr(x, "npartitions"):
        width = len(x.columns) if hasattr(x, "columns") else None
        return list(x.to_delayed()), width
    raise TypeError(f"{name}: unsupported Dask collection {type(x).__name__}.")


def _known_lengths(x):
    """Rows of each block when Dask knows them without computing (else None)."""
    import dask.array as da

    if isinstance(x, da.Array) and not any(np.isnan(c) for c in x.chunks[0]):
        return [int(c) for c in x.chunks[0]]
    return None


def _tree_sum(parts):
    import dask

    add = dask.delayed(lambda *xs: sum(xs[1:], xs[0]), pure=True)
    while len(parts) > 1:
        parts = [add(*parts[i : i + _FAN_IN]) if len(parts[i : i + _FAN_IN]) > 1
                 else parts[i] for i in range(0, len(parts), _FAN_IN)]
    return parts[0]


def _checked_codes(y, n_rows, encode):
    y = np.asarray(y)
    if y.shape != (n_rows,):
        raise ValueError(
            f"A partition of y has {y.shape[0] if y.ndim else 0} entries where X's has "
            f"{n_rows}; partition X and y alike."
        )
    return encode(y)  # missing and unlisted labels: the public fallback class


def count_rows(X):
    """The number of rows of a Dask collection (a pass over it)."""
    n = X.shape[0]
    return int(n.compute() if hasattr(n, "compute") else n)


class DaskRows(TableRows):
    """A private table held by Dask: its raw columns and its encoded rows.

    The Dask backend of :class:`~skdpgen.rows.TableRows` (whose module
    states the protocol), made by :func:`~skdpgen.rows.table_rows`: every
    pass is summed partition by partition on the workers, only the partial
    sums travelling to the client.

    Parameters
    ----------
    X : Dask DataFrame or 2-D Dask array
        The private table.
    y : Dask Series or array, or array-like, default=None
        Private labels: a Dask collection partitioned like ``X`` to be
        summed with it (``labels_dask``), or labels in memory.

    Attributes
    ----------
    blocks : list of dask.delayed.Delayed or None
        Each evaluates to a 2-D float64 ndarray of ``n_columns`` columns:
        the encoded row blocks (:meth:`encode`).
    codes : list of dask.delayed.Delayed or None
        The class codes of each block (:meth:`set_labels`).
    chunk_size : int or None
        Rows per chunk inside each block.

    Examples
    --------
    >>> import dask.array as da
    >>> from skdpgen.rows import table_rows
    >>> rows = table_rows(da.ones((10, 3), chunks=4))
    >>> type(rows).__name__, rows.columns, rows.n_rows
    ('DaskRows', [0, 1, 2], 10)
    """

    is_dask = True

    def __init__(self, X, y=None):
        super().__init__(X, y)
        self.is_frame = hasattr(X, "columns")
        if not self.is_frame and X.ndim != 2:  # a Dask array
            raise ValueError(f"Expected a 2-D array, got {X.ndim}-D.")
        # column names only (the meta)
        self.columns = list(meta(X).columns) if self.is_frame else list(range(X.shape[1]))
        self._n_rows = None
        self.blocks = None
        self._lengths = None
        self._width = None
        self.chunk_size = None
        self.codes = None

    # -- the raw columns -----------------------------------------------------
    @property
    def n_rows(self):
        """The number of rows: a pass over the table, unless one already counted them
        (a pass over the encoded blocks once they are set)."""
        if self._n_rows is not None:
            return self._n_rows
        if self.blocks is not None:
            return int(sum(self.lengths))
        self._n_rows = count_rows(self.X)
        return self._n_rows

    @contextlib.contextmanager
    def caching(self, forms=True):
        """Nothing is kept: each partition's forms live on its worker."""
        yield self

    def check_labels(self):
        """Raise unless the labels are a Dask collection (partitioned like ``X``)."""
        if not self.labels_dask:
            raise ValueError("With a Dask X, y must be a Dask collection partitioned "
                             "like X.")

    def partition_sums(self, func, *, labels=False):
        """``Σ_p func(part_p, labels_p)`` on the Dask workers (see :class:`TableRows`).

        The row count rides along when it is not known yet, so the first
        pass over the rows also gives :attr:`n_rows`.
        """
        columns, count = self.columns, self._n_rows is None

        def part(xp, yp):  # a DataFrame partition, or a block of whole rows
            frame = xp if isinstance(xp, pd.DataFrame) else pd.DataFrame(xp, columns=columns)
            out = func(_Part(frame), labels_series(yp))
            return {"n": len(frame), "sum": out} if count else out

        if labels:
            self.check_labels()
        total = partition_sums(part, self.X, self.y if labels else None)
        if count:
            self._n_rows, total = int(total["n"]), total["sum"]
        return total

    def canonical(self, key):
        """The canonical forms of column ``key``, computed on the client (a leak only)."""
        column = self.X[key] if self.is_frame else self.X[:, key]
        return canonical(column.compute())

    # -- the encoded features ------------------------------------------------
    def encode(self, encoder, validate, *, min_rows=1, chunk_size=None, n_jobs=None):
        """Set the rows' encoding, block by block on the workers; returns self.

        Each raw block is mapped to its float rows (the canonical reading,
        :func:`numbers_table`, or a public encoder's ``transform``) where it
        is summed. ``validate`` is called with the collection's meta (no row
        is read); ``min_rows`` and ``n_jobs`` are not used (counting the rows
        would be a pass over them; the workers are Dask's).
        """
        import dask

        validate(meta(self.X))
        convert = numbers_table if encoder is None else encoder.transform
        blocks, width = _blocks(self.X, "X")
        if width is None:
            raise ValueError("X must be 2-D.")
        self.blocks = [dask.delayed(convert, pure=True)(b) for b in blocks]
        self._lengths = _known_lengths(self.X)
        self._width = width if encoder is None else encoder.n_encoded_
        self.chunk_size = chunk_size
        return self

    @property
    def n_columns(self):
        """The width of the encoded rows."""
        return self._width

    @property
    def lengths(self):
        """Rows of each block (a counting pass over the data if not yet known).

        Counted on the very blocks that are summed, so the two always agree
        (Dask may fuse DataFrame partitions differently from one graph to
        another).
        """
        if self._lengths is None:
            import dask

            self._lengths = [int(c) for c in
                             dask.compute(*[dask.delayed(len)(b) for b in self.blocks])]
        return self._lengths

    def prepare_feature_map(self, features, *, private):
        """The fitted map (an unfitted foreign one cannot be fitted on Dask rows)."""
        from ..kernels import prepare_feature_map  # (torch: late)

        return prepare_feature_map(features, np.zeros((1, self.n_columns)), private=private,
                                   dask=True)

    def release_device(self, device):
        """The workers compute the features on their CPUs, where the rows live."""
        return "cpu"

    def map_rows(self, func):
        """A lazy Dask array of ``func`` applied to every block (row-wise)."""
        import dask
        import dask.array as da

        width = func(np.zeros((1, self.n_columns))).shape[1]
        parts = [da.from_delayed(dask.delayed(func, pure=True)(b), shape=(m, width),
                                 dtype=np.float64)
                 for b, m in zip(self.blocks, self.lengths)]
        return da.concatenate(parts, axis=0)

    def set_labels(self, classes, encode):
        """The public ``classes``, and the class codes of the labels, one (Delayed)
        int array per block (``encode``: labels → codes).

        The labels are in memory, or (``labels_dask``, as :func:`table_rows`
        decided) a Dask array or Series in the same row order as ``X``; Dask
        labels are re-blocked to ``X``'s blocks (their partitions need not
        match: reading fewer columns of a Parquet file, Dask may merge
        partitions). This needs the block lengths, so for a Dask DataFrame
        it costs one counting pass over ``X``.
        """
        import dask
        import dask.array as da

        self.classes = classes
        y = self.y
        if not self.labels_dask:
            y = labels_in_memory(y, self.n_rows)
            bounds = np.cumsum([0] + self.lengths)
            self.codes = [encode(y[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
            return
        if not isinstance(y, da.Array):
            if getattr(y, "ndim", 1) != 1:
                raise ValueError("y must be a Dask Series or 1-D Dask array.")
            with warnings.catch_warnings():  # extension dtypes become object: wanted
                warnings.filterwarnings("ignore", "Dask currently has limited support",
                                        UserWarning)
                # optimize first: Dask may merge partitions of a column read alone
                y = y.optimize().to_dask_array(lengths=True)
        if y.ndim != 1:
            raise ValueError(f"y must be 1-D, got {y.ndim}-D.")
        if np.isnan(y.chunks[0]).any():
            y = y.compute_chunk_sizes()
        if sum(y.chunks[0]) != self.n_rows:
            raise ValueError(f"y must have {self.n_rows} entries, got {sum(y.chunks[0])}.")
        y = y.rechunk((tuple(self.lengths),))
        self.codes = [dask.delayed(_checked_codes, pure=True)(b, m, encode)
                      for b, m in zip(y.to_delayed(), self.lengths)]

    def feature_sums(self, feature_map, *, device="cpu"):
        """``Σ_i h(x_i) ⊗ onehot(y_i)`` computed block-wise by Dask (one pass).

        ``device`` is ignored: the features are computed on the workers'
        CPUs, where the rows live.
        """
        import dask

        k = max(self.n_classes, 1)
        parts = []
        for i, block in enumerate(self.blocks):
            c = None if self.codes is None else self.codes[i]
            parts.append(dask.delayed(chunk_feature_sums, pure=True)(
                feature_map, block, c, k, chunk_size=self.chunk_size))
        # unknown lengths are counted in the same graph: each block is computed once
        counts = [dask.delayed(len)(b) for b in self.blocks] if self._lengths is None else []
        total, *counted = dask.compute(_tree_sum(parts), *counts)
        if counts:
            self._lengths = [int(c) for c in counted]
        return split_sums(np.asarray(total, dtype=np.float64), feature_map)

    def class_counts(self):
        """Rows per class from the per-block codes."""
        import dask

        parts = [dask.delayed(np.bincount, pure=True)(c, minlength=self.n_classes)
                 for c in self.codes]
        return np.asarray(dask.compute(_tree_sum(parts))[0])
