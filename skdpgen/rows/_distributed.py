"""Private rows held by Dask: row blocks summed where they live.

The only pass any skdpgen estimator makes over private rows is a sum of
bounded feature vectors (times one-hot labels), followed by one noise
addition. With a Dask array or DataFrame that sum runs partition by
partition on whatever scheduler is active (a ``distributed.Client`` when one
exists, otherwise Dask's threads); each partition streams over row chunks
exactly as the in-memory path does (:func:`chunk_feature_sums`), and only
the small (features × classes) partial sums travel back, combined in a tree.
The noise is added afterwards on the client, once, so the privacy guarantee
and report do not change.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import warnings

import numpy as np
import pandas as pd

from ..kernels import prepare_feature_map
from ._memory import chunk_feature_sums, split_sums

__all__ = ["DaskRows", "unique_labels"]

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


def unique_labels(y):
    """The distinct labels of a Dask array or Series (computed)."""
    import dask.array as da

    if isinstance(y, da.Array):
        return np.asarray(y.map_blocks(lambda b: pd.unique(np.asarray(b, dtype=object)),
                                       dtype=object).compute(), dtype=object)
    return y.astype(object).unique().compute().to_numpy(dtype=object)


class DaskRows:
    """Private rows held by Dask (see :mod:`skdpgen.rows` for the interface).

    Parameters
    ----------
    blocks : list of dask.delayed.Delayed
        Each evaluates to a 2-D float64 ndarray of ``n_columns`` columns.
    lengths : list of int or None
        Rows of each block; None when Dask does not know them (DataFrames):
        they are then counted in the same pass as the first feature sum, or
        by a counting pass if something needs them before.
    n_columns : int
    chunk_size : int, default=None
        Rows per chunk inside each block.
    """

    def __init__(self, blocks, lengths, n_columns, *, chunk_size=None):
        self.blocks = blocks
        self._lengths = None if lengths is None else list(lengths)
        self.n_columns = n_columns
        self.chunk_size = chunk_size
        self.codes = None
        self.classes = None

    @classmethod
    def from_collection(cls, X, convert, n_columns=None, *, chunk_size=None):
        """Wrap a Dask array or DataFrame; ``convert`` maps each raw block to
        its float rows (the canonical reading, or a public encoder's), on the
        workers. ``n_columns`` is the width after ``convert`` (default: the
        collection's).
        """
        import dask

        blocks, width = _blocks(X, "X")
        if width is None:
            raise ValueError("X must be 2-D.")
        blocks = [dask.delayed(convert, pure=True)(b) for b in blocks]
        return cls(blocks, _known_lengths(X), width if n_columns is None else n_columns,
                   chunk_size=chunk_size)

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

    @property
    def n_rows(self):
        return int(sum(self.lengths))

    @property
    def n_classes(self):
        return 0 if self.classes is None else len(self.classes)

    def prepare_feature_map(self, features, *, private):
        """The fitted map (an unfitted foreign one cannot be fitted on Dask rows)."""
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

    def set_labels(self, y, classes, encode, *, dask):
        """Class codes of ``y``, one (Delayed) int array per block.

        ``y`` is in memory, or (``dask``, as :func:`table_rows` decided) a
        Dask array or Series in the same row order as ``X``; Dask labels are re-blocked to ``X``'s blocks (their
        partitions need not match: reading fewer columns of a Parquet file,
        Dask may merge partitions). This needs the block lengths, so for a
        Dask DataFrame it costs one counting pass over ``X``.
        """
        import dask
        import dask.array as da

        self.classes = classes
        if not dask:
            y = np.asarray(y)
            if y.ndim != 1 or y.shape[0] != self.n_rows:
                raise ValueError(
                    f"y must be 1-D with {self.n_rows} entries, got shape {y.shape}."
                )
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
