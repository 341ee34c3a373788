"""A private table read from its source a block at a time: a table larger than memory.

A table given as blocks of rows (:func:`split_blocks`, e.g. a CSV file read
by :class:`skdpgen._records.RecordBlocks`) is never held: every pass over it,
the schema estimate's sums of canonical forms as the releases' sums of
bounded feature vectors (times one-hot labels), reads the source once and
keeps nothing of a block once it is summed (within a block, chunk by chunk,
as the in-memory path does: :func:`chunk_feature_sums`). The sums are the
same, so the releases and the privacy guarantee are those of the in-memory
fit; what it costs is a pass over the source per sum.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import contextlib

import numpy as np
import pandas as pd

from .._dask import add_partials
from .._canonical import canonical, labels_series, numbers_table
from ._base import TableRows, _Part
from ._memory import chunk_feature_sums, split_sums

__all__ = ["BlockColumns", "BlockLabels", "BlockRows", "split_blocks"]


class BlockColumns:
    """The feature columns of a table read a block of rows at a time.

    Made by :func:`split_blocks`; give it to a fit as ``X`` (and its
    :class:`BlockLabels` as ``y``): the fit then reads the source one block
    at a time, once per pass, and never holds the table.

    Attributes
    ----------
    source : iterable of DataFrame
        Re-iterable blocks of rows with every column (e.g.
        :class:`skdpgen._records.RecordBlocks`), with a ``columns`` list.
    columns : list
        The feature columns (public: header names).

    Examples
    --------
    >>> import pandas as pd
    >>> from skdpgen.rows import BlockColumns
    >>> class Source(list):
    ...     columns = ["a", "b"]
    >>> X = BlockColumns(Source([pd.DataFrame({"a": ["1"], "b": ["x"]})]), ["a"])
    >>> X, X.shape
    (BlockColumns(1 columns), (None, 1))
    """

    def __init__(self, source, columns):
        self.source = source
        self.columns = list(columns)

    @property
    def shape(self):
        """``(None, n_columns)``: the number of rows is counted by a pass."""
        return None, len(self.columns)

    def __repr__(self):
        return f"BlockColumns({len(self.columns)} columns)"


class BlockLabels:
    """The label column of a table read a block of rows at a time.

    Made by :func:`split_blocks`, with the :class:`BlockColumns` of the same
    source.

    Attributes
    ----------
    source : iterable of DataFrame
        The blocks of rows, as for :class:`BlockColumns`.
    name : str
        The label column's name.

    Examples
    --------
    >>> import pandas as pd
    >>> from skdpgen.rows import split_blocks
    >>> class Source(list):
    ...     columns = ["a", "label"]
    >>> split_blocks(Source([pd.DataFrame({"a": ["1"], "label": ["p"]})]), "label")
    (BlockColumns(1 columns), BlockLabels('label'))
    """

    def __init__(self, source, name):
        self.source = source
        self.name = name

    def __repr__(self):
        return f"BlockLabels({self.name!r})"


def split_blocks(source, target=None, *, drop=()):
    """``(X, y)`` of a table read a block at a time: feature columns and labels.

    Parameters
    ----------
    source : iterable of DataFrame
        Re-iterable blocks of rows with a ``columns`` attribute (the public
        header), e.g. :class:`skdpgen._records.RecordBlocks`.
    target : str, default=None
        The label column; None: no labels.
    drop : sequence of str, default=()
        Columns left out of the fit (e.g. a row index, free text).

    Returns
    -------
    X : BlockColumns
    y : BlockLabels or None

    Examples
    --------
    >>> import pandas as pd
    >>> from skdpgen.rows import split_blocks, table_rows
    >>> class Source(list):
    ...     columns = ["id", "a", "label"]
    >>> source = Source([pd.DataFrame({"id": ["1", "2"], "a": ["3", "x"], "label": ["p", "q"]}),
    ...                  pd.DataFrame({"id": ["3"], "a": ["5"], "label": ["p"]})])
    >>> X, y = split_blocks(source, "label", drop=["id"])
    >>> rows = table_rows(X, y)
    >>> type(rows).__name__, rows.columns, rows.n_rows
    ('BlockRows', ['a'], 3)
    >>> rows.labels().tolist()
    ['p', 'q', 'p']
    """
    left = set(drop) | {target}
    X = BlockColumns(source, [c for c in source.columns if c not in left])
    return X, (None if target is None else BlockLabels(source, target))


class BlockRows(TableRows):
    """A private table read a block at a time: its raw columns and its encoded rows.

    The blocks backend of :class:`~skdpgen.rows.TableRows` (whose module
    states the protocol), made by :func:`~skdpgen.rows.table_rows`: every
    pass reads the source once, a block at a time.

    Parameters
    ----------
    X : BlockColumns
        The feature columns (:func:`split_blocks`).
    y : BlockLabels, default=None
        The label column of the same source.

    Attributes
    ----------
    read : callable or None
        A block's frame → its rows as ``convert`` takes them (a fitted
        public encoder's :meth:`~skdpgen.schema.TableEncoder.table`), or as
        float rows (:func:`~skdpgen._canonical.numbers_table`)
        (:meth:`encode`).
    convert : callable or None
        Row-wise map of a chunk of ``read``'s rows to float rows (the
        encoder's :meth:`~skdpgen.schema.TableEncoder.transform_table`),
        applied chunk by chunk where they are summed.
    chunk_size, n_jobs : see :func:`chunk_feature_sums`

    Examples
    --------
    A source of two blocks (a CSV file's :class:`~skdpgen._records.RecordBlocks`
    in the command line); the sum over the blocks is the table's:

    >>> import pandas as pd
    >>> from sklearn.base import BaseEstimator
    >>> from skdpgen.kernels import RandomFourierFeatures
    >>> from skdpgen.rows import make_rows, split_blocks
    >>> from skdpgen.schema import TableEncoder
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

    is_blocks = True
    is_frame = True

    def __init__(self, X, y=None):
        if y is not None and not (isinstance(y, BlockLabels) and y.source is X.source):
            raise ValueError("With a BlockColumns X, y must be the BlockLabels of the same "
                             "source (split_blocks).")
        super().__init__(X, y)
        self.columns = list(X.columns)
        self._n_rows = None
        self.read = self.convert = self._width = self._encode = None
        self.chunk_size = self.n_jobs = None

    # -- the raw columns -----------------------------------------------------
    def frames(self, labels=False):
        """``(frame, labels)`` of each block: the feature columns (values as read)
        and the label column (None without ``labels``), one pass over the source."""
        count = 0
        for block in self.X.source:
            count += len(block)
            yield block[self.columns], (block[self.y.name] if labels else None)
        self._n_rows = count

    @property
    def n_rows(self):
        """The number of rows: a pass over the source, unless one already counted them."""
        if self._n_rows is None:
            for _ in self.frames():
                pass
        return self._n_rows

    @contextlib.contextmanager
    def caching(self, forms=True):
        """Nothing is kept: each block is read, summed and dropped."""
        yield self

    def check_labels(self):
        """Raise unless the labels are given."""
        if self.y is None:
            raise ValueError("The plan estimates the class list: pass the labels y.")

    def partition_sums(self, func, *, labels=False):
        """``Σ_b func(part_b, labels_b)`` over the blocks, one pass (see :class:`TableRows`)."""
        if labels:
            self.check_labels()
        total = None
        for frame, y in self.frames(labels):
            out = func(_Part(frame), None if y is None else labels_series(y))
            total = out if total is None else add_partials(total, out)
        if total is None:  # no rows: the statistic of an empty block
            total = func(_Part(pd.DataFrame(columns=self.columns, dtype=object)),
                         labels_series([]) if labels else None)
        return total

    def canonical(self, key):
        """The canonical forms of column ``key``, every block read (a leak only)."""
        return canonical(pd.concat([f[key] for f, _ in self.frames()], ignore_index=True))

    def labels(self):
        """The labels as a pandas Series, every block read (a leak only)."""
        self.check_labels()
        return labels_series(pd.concat([y for _, y in self.frames(True)], ignore_index=True))

    def label_values(self):
        """The labels, every block read (a leak only: the class list when none is given)."""
        return self.labels()

    # -- the encoded features ------------------------------------------------
    def encode(self, encoder, validate, *, min_rows=1, chunk_size=None, n_jobs=None):
        """Set the rows' encoding, applied a block at a time where it is summed;
        returns self. ``validate`` is called with the header (an empty frame)."""
        validate(pd.DataFrame(columns=self.columns))
        if encoder is None:  # every cell read by its canonical form
            self.read, self.convert, self._width = numbers_table, None, len(self.columns)
        else:
            self.read, self.convert = encoder.table, encoder.transform_table
            self._width = int(encoder.n_encoded_)
        self.chunk_size, self.n_jobs = chunk_size, n_jobs
        if self.n_rows < min_rows:
            raise ValueError(f"Need at least {min_rows} rows, got {self.n_rows}.")
        return self

    @property
    def n_columns(self):
        """The width of the encoded rows."""
        return self._width

    def set_labels(self, classes, encode):
        """The public ``classes``, and ``encode`` (labels of a block → class codes)."""
        self.classes = classes
        self._encode = encode

    def _blocks(self):
        """``(rows, codes)`` of each block: the checked raw rows and their class codes."""
        labeled = self._encode is not None
        for frame, y in self.frames(labels=labeled):
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
        for frame, y in self.frames(labels=True):
            counts += np.bincount(self._encode(y), minlength=self.n_classes)
        return counts

    def prepare_feature_map(self, features, *, private):
        """The fitted map: only a map fitted on the shape alone (a bounded feature
        map), as with Dask (a map that learns from the rows would need them whole)."""
        from ..kernels import BoundedFeatureMap, prepare_feature_map  # (torch: late)

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
