"""Private rows read from their source a block at a time: a table larger than memory.

A fit's every pass over the private rows is a sum of bounded feature vectors
(times one-hot labels); for a table given as blocks of rows
(:func:`skdpgen.schema._rows.split_blocks`, e.g. a CSV file read by
:class:`skdpgen._records.RecordBlocks`), each sum reads the source once,
encodes and sums one block at a time (within a block, chunk by chunk, as the
in-memory path does: :func:`chunk_feature_sums`), and keeps nothing of it.
The sum is the same, so the release and the privacy guarantee are those of
the in-memory fit; what it costs is a pass over the source per sum.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import numpy as np

from ..kernels import BoundedFeatureMap, prepare_feature_map
from ._memory import chunk_feature_sums, split_sums

__all__ = ["BlockRows"]


class BlockRows:
    """Private rows read a block at a time (see :mod:`skdpgen.rows` for the interface).

    Parameters
    ----------
    table : TableRows
        The fit's table, read from its source by blocks
        (``table.is_blocks``).
    read : callable
        A block's frame → its rows as ``convert`` takes them (a fitted
        public encoder's :meth:`~skdpgen.schema.TableEncoder.table`), or as
        float rows (:func:`~skdpgen.schema._canonical.numbers_table`).
    n_columns : int
        The width of the float rows.
    convert : callable, default=None
        Row-wise map of a chunk of ``read``'s rows to float rows (the
        encoder's :meth:`~skdpgen.schema.TableEncoder.transform_table`),
        applied chunk by chunk where they are summed.
    chunk_size, n_jobs : see :func:`chunk_feature_sums`

    Attributes
    ----------
    classes : ndarray or None
        The public class list (:meth:`set_labels`).

    Examples
    --------
    A source of two blocks (a CSV file's :class:`~skdpgen._records.RecordBlocks`
    in the command line); the sum over the blocks is the table's:

    >>> import pandas as pd
    >>> from sklearn.base import BaseEstimator
    >>> from skdpgen.kernels import RandomFourierFeatures
    >>> from skdpgen.rows import make_rows
    >>> from skdpgen.schema import TableEncoder
    >>> from skdpgen.schema._rows import split_blocks
    >>> class Source(list):
    ...     columns = ["age"]
    >>> source = Source([pd.DataFrame({"age": ["20", "30"]}), pd.DataFrame({"age": ["40"]})])
    >>> X, _ = split_blocks(source)
    >>> encoder = TableEncoder({"age": {"type": "numeric", "bounds": [0, 100]}}).fit(X)
    >>> rows = make_rows(BaseEstimator(), X, reset=True, encoder=encoder)
    >>> type(rows).__name__, rows.n_rows, rows.n_columns
    ('BlockRows', 3, 1)
    >>> fmap = RandomFourierFeatures(n_components=4, random_state=0).fit([[0.0]])
    >>> rows.feature_sums(fmap).shape
    (4, 1)
    """

    def __init__(self, table, read, n_columns, *, convert=None, chunk_size=None, n_jobs=None):
        self.table = table
        self.read = read
        self.convert = convert
        self._width = int(n_columns)
        self.chunk_size = chunk_size
        self.n_jobs = n_jobs
        self.classes = None
        self._encode = None

    @property
    def n_rows(self):
        return self.table.n_rows

    @property
    def n_columns(self):
        return self._width

    @property
    def n_classes(self):
        return 0 if self.classes is None else len(self.classes)

    def set_labels(self, classes, encode):
        """The public ``classes``, and ``encode`` (labels of a block → class codes)."""
        self.classes = classes
        self._encode = encode

    def _blocks(self):
        """``(rows, codes)`` of each block: the checked raw rows and their class codes."""
        labeled = self._encode is not None
        for frame, y in self.table.blocks(labels=labeled):
            yield self.read(frame), (self._encode(y) if labeled else None)

    def feature_sums(self, feature_map, *, device="cpu"):
        """``Σ_i h(x_i) ⊗ onehot(y_i)``, one pass over the source (a list of maps: one
        pass for all)."""
        total = None
        for rows, codes in self._blocks():
            part = chunk_feature_sums(
                feature_map, rows, codes, max(self.n_classes, 1), chunk_size=self.chunk_size,
                n_jobs=self.n_jobs, device=device, convert=self.convert,
                converted_width=self.n_columns)
            total = part if total is None else total + part
        if total is None:  # no rows
            total = chunk_feature_sums(feature_map, np.zeros((0, self.n_columns)), None,
                                       max(self.n_classes, 1))
        return split_sums(total, feature_map)

    def class_counts(self):
        """Rows per class: a pass over the labels."""
        counts = np.zeros(self.n_classes, dtype=np.int64)
        for frame, y in self.table.blocks(labels=True):
            counts += np.bincount(self._encode(y), minlength=self.n_classes)
        return counts

    def prepare_feature_map(self, features, *, private):
        """The fitted map: only a map fitted on the shape alone (a bounded feature
        map), as with Dask (a map that learns from the rows would need them whole)."""
        if not isinstance(features, BoundedFeatureMap):
            raise ValueError("A table read by blocks needs a BoundedFeatureMap: a map that "
                             "learns from the rows cannot be fitted on it.")
        return prepare_feature_map(features, np.zeros((1, self.n_columns)), private=private)

    def map_rows(self, func):
        """``func`` applied to every block's encoded rows, concatenated."""
        convert = self.convert or (lambda rows: rows)
        parts = [func(convert(rows)) for rows, _ in self._blocks()]
        return np.concatenate(parts) if parts else func(np.zeros((0, self.n_columns)))

    def release_device(self, device):
        return device
