"""The private table of a fit, as the schema estimate and the encoding read it.

:func:`table_rows` is the one place that decides whether a raw private table
(and its labels) is in memory or held by Dask; everything that reads the
table's values before it is encoded (the private schema estimate, its leaky
alternative ``infer_schema="data"``, the row count) reads them through the
object it returns, whose interface is the same either way:

``columns``
    The column keys: names, or positions for arrays (public; never a dtype
    or a value).
``is_dask``, ``labels_dask``
    Whether the rows, and the labels, are held by Dask: the decisions,
    made once.
``is_frame``
    Whether the table is a (pandas or Dask) DataFrame: named columns.
``X``, ``y``
    The table and labels as given, for the encoding layer
    (:func:`skdpgen.rows.make_rows`).
``n_rows``
    The number of rows (public, as in DP-MERF and DP-HP), counted once: for
    Dask in the first pass over the rows that needs it.
``partition_sums(func, labels=False)``
    ``Σ_p func(part_p, labels_p)`` over the rows' partitions, where
    ``part_p`` maps a column key to its values' canonical forms
    (:func:`~skdpgen.schema._canonical.canonical`) and has ``len()`` rows,
    and ``labels_p`` is a pandas Series of labels (or None). One call in
    memory; one call per partition on the Dask workers, only the partial
    sums travelling to the client (:func:`skdpgen._dask.partition_sums`).
``caching(forms=True)``
    A context in which the table's frame, and the canonical forms of a
    column, are computed once for all passes (in memory; a measured
    speed-up of the schema estimate) and dropped at its end.
``check_labels()``
    Raises unless the labels can be summed with the rows.
``canonical(key)``, ``labels()``
    One column's canonical forms, and the labels as a checked pandas
    Series, on the client: for the leaky reads only (``infer_schema="data"``,
    a :class:`~skdpgen.schema.TableEncoder` without a complete schema), which
    compute a Dask column there.

It lives in the schema layer, below :mod:`skdpgen.rows`, because the schema
estimate (which must not import the rows layer) reads through it;
:mod:`skdpgen.rows` re-exports it as the entry point of a fit.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import contextlib

import pandas as pd

from .._dask import is_dask_collection, meta, partition_sums
from ._canonical import canonical, labels_series, table_frame

__all__ = ["TableRows", "table_rows"]


def table_rows(X, y=None):
    """The private table ``X`` (and labels ``y``) of a fit, read one way.

    Parameters
    ----------
    X : DataFrame, 2-D array, list of rows, or Dask DataFrame or array
        The private table, its values in any form.
    y : array-like, Dask array or Dask Series of shape (n,), default=None
        Private labels; with a Dask ``X``, a Dask collection partitioned
        like ``X`` to be summed with it.

    Returns
    -------
    rows : TableRows
        In memory, or held by Dask when ``X`` is a Dask collection (the
        only place where this is decided); ``X`` is returned as it is when
        it is already a :class:`TableRows`.

    Examples
    --------
    >>> import pandas as pd
    >>> from skdpgen.schema._rows import table_rows
    >>> rows = table_rows(pd.DataFrame({"a": [1, 2, None], "b": ["x", "y", "x"]}))
    >>> rows.columns, rows.n_rows, rows.is_dask
    (['a', 'b'], 3, False)
    >>> int(rows.partition_sums(lambda part, _: part["a"].counts())[-1])  # missing values
    1
    """
    if isinstance(X, TableRows):
        return X
    labels_dask = is_dask_collection(y)
    if is_dask_collection(X):
        return _DaskTable(X, y, labels_dask)
    return _MemoryTable(X, y, labels_dask)


class _Part:
    """A partition's columns as canonical forms (cached in ``cache`` when given)."""

    def __init__(self, frame, cache=None):
        self.frame = frame
        self.cache = cache

    def __len__(self):
        return len(self.frame)

    def __getitem__(self, key):
        if self.cache is None:
            return canonical(self.frame[key])
        if key not in self.cache:
            self.cache[key] = canonical(self.frame[key])
        return self.cache[key]


class TableRows:
    """The private table of a fit and its labels, in memory or held by Dask.

    Made by :func:`table_rows`, never directly; the module docstring
    states the protocol.

    Attributes
    ----------
    X : object
        The table as given.
    y : object or None
        The labels as given.
    columns : list
        Column keys in table order.
    is_dask : bool
        Whether the rows are held by Dask.
    labels_dask : bool
        Whether the labels are held by Dask.
    is_frame : bool
        Whether the table has named columns (a pandas or Dask DataFrame).
    """

    is_dask = False

    def __init__(self, X, y, labels_dask):
        self.X = X
        self.y = y
        self.labels_dask = labels_dask

    def labels(self):
        """The labels as a pandas Series on the client, one per row (else ValueError)."""
        if self.y is None:
            raise ValueError("The plan estimates the class list: pass the labels y.")
        y = labels_series(self.y.compute() if self.labels_dask else self.y)
        if len(y) != self.n_rows:
            raise ValueError(f"y has {len(y)} labels for {self.n_rows} rows.")
        return y

    def __repr__(self):
        return (f"{type(self).__name__}(columns={len(self.columns)}, "
                f"labels={self.y is not None})")


class _MemoryTable(TableRows):
    """A table in memory: one partition; the frame and the canonical forms are
    kept between passes only inside :meth:`caching` (a fit holds no copy of ``X``)."""

    def __init__(self, X, y, labels_dask):
        super().__init__(X, y, labels_dask)
        self.is_frame = isinstance(X, pd.DataFrame)
        self._cache = None
        self._shape = None

    @property
    def frame(self):
        """The table as a DataFrame whose values keep their form (:func:`table_frame`)."""
        if self._cache is not None and "frame" in self._cache:
            return self._cache["frame"]
        frame = table_frame(self.X)
        self._shape = len(frame), list(frame.columns)
        if self._cache is not None:
            self._cache["frame"] = frame
        return frame

    def _measured(self):
        """``(n_rows, columns)``, read once (the frame built for it is not kept)."""
        if self._shape is None:
            _ = self.frame  # sets the shape
        return self._shape

    @property
    def columns(self):
        """Column keys in table order."""
        return list(self._measured()[1])

    @property
    def n_rows(self):
        """The number of rows."""
        return self._measured()[0]

    @contextlib.contextmanager
    def caching(self, forms=True):
        """Keep the frame, and each column's canonical forms unless not ``forms``,
        between the passes of this block."""
        outer = self._cache is not None
        if not outer:
            self._cache = {"forms": {} if forms else None}
        try:
            yield self
        finally:
            if not outer:
                self._cache = None

    def check_labels(self):
        """Raise unless there is one label per row."""
        self.labels()

    def canonical(self, key):
        """The canonical forms of column ``key`` (cached inside :meth:`caching`)."""
        return self._part()[key]

    def _part(self):
        return _Part(self.frame, self._cache and self._cache["forms"])

    def partition_sums(self, func, *, labels=False):
        """``func(part, labels)`` on the whole table: one partition.

        Parameters
        ----------
        func : callable
            ``func(part, labels)``: ``part[key]`` is the canonical forms of
            column ``key``, ``len(part)`` the number of rows; ``labels`` is
            the labels as a Series (checked), or None.
        labels : bool, default=False
            Whether ``func`` reads the labels.

        Returns
        -------
        total : object
            What ``func`` returns.
        """
        return func(self._part(), self.labels() if labels else None)


class _DaskTable(TableRows):
    """A table held by Dask: summed partition by partition on the workers."""

    is_dask = True

    def __init__(self, X, y, labels_dask):
        super().__init__(X, y, labels_dask)
        self.is_frame = hasattr(X, "columns")
        if not self.is_frame and X.ndim != 2:  # a Dask array
            raise ValueError(f"Expected a 2-D array, got {X.ndim}-D.")
        # column names only (the meta)
        self.columns = list(meta(X).columns) if self.is_frame else list(range(X.shape[1]))
        self._n_rows = None

    @property
    def n_rows(self):
        """The number of rows: a pass over the table, unless one already counted them."""
        if self._n_rows is None:
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
        """``Σ_p func(part_p, labels_p)`` on the Dask workers (see :func:`table_rows`).

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


def count_rows(X):
    """The number of rows of a Dask collection (a pass over it)."""
    n = X.shape[0]
    return int(n.compute() if hasattr(n, "compute") else n)
