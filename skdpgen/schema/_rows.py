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

A table too large for memory (a CSV file: :class:`skdpgen._records.RecordBlocks`)
is given as :class:`BlockColumns` (its feature columns) and, for its labels,
:class:`BlockLabels` (its target column), made by :func:`split_blocks`; the
object :func:`table_rows` returns then reads the source a block of rows at a
time, one pass per sum (``is_blocks``), and :meth:`TableRows.blocks` gives
the blocks to the encoding layer (:class:`skdpgen.rows.BlockRows`).

It lives in the schema layer, below :mod:`skdpgen.rows`, because the schema
estimate (which must not import the rows layer) reads through it;
:mod:`skdpgen.rows` re-exports it as the entry point of a fit.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import contextlib

import pandas as pd

from .._dask import add_partials, is_dask_collection, meta, partition_sums
from ._canonical import canonical, labels_series, table_frame

__all__ = ["BlockColumns", "BlockLabels", "TableRows", "split_blocks", "table_rows"]


def table_rows(X, y=None):
    """The private table ``X`` (and labels ``y``) of a fit, read one way.

    Parameters
    ----------
    X : DataFrame, 2-D array, list of rows, Dask DataFrame or array, or BlockColumns
        The private table, its values in any form; a :class:`BlockColumns`
        (:func:`split_blocks`) is read from its source a block at a time.
    y : array-like, Dask array or Dask Series of shape (n,), or BlockLabels, default=None
        Private labels; with a Dask ``X``, a Dask collection partitioned
        like ``X`` to be summed with it; with a ``BlockColumns`` ``X``, the
        ``BlockLabels`` of the same source.

    Returns
    -------
    rows : TableRows
        In memory, held by Dask when ``X`` is a Dask collection, or read by
        blocks (the only place where this is decided); ``X`` is returned as
        it is when it is already a :class:`TableRows`.

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
    if isinstance(X, BlockColumns):
        return _BlockTable(X, y)
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
    is_blocks = False

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
    """The label column of a table read a block of rows at a time (see
    :func:`split_blocks`)."""

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
    >>> from skdpgen.schema._rows import split_blocks, table_rows
    >>> class Source(list):
    ...     columns = ["id", "a", "label"]
    >>> source = Source([pd.DataFrame({"id": ["1", "2"], "a": ["3", "x"], "label": ["p", "q"]}),
    ...                  pd.DataFrame({"id": ["3"], "a": ["5"], "label": ["p"]})])
    >>> X, y = split_blocks(source, "label", drop=["id"])
    >>> rows = table_rows(X, y)
    >>> rows.columns, rows.is_blocks, rows.n_rows
    (['a'], True, 3)
    >>> rows.labels().tolist()
    ['p', 'q', 'p']
    """
    left = set(drop) | {target}
    X = BlockColumns(source, [c for c in source.columns if c not in left])
    return X, (None if target is None else BlockLabels(source, target))


class _BlockTable(TableRows):
    """A table read from its source a block of rows at a time, a pass per sum."""

    is_blocks = True
    is_frame = True

    def __init__(self, X, y):
        if y is not None and not (isinstance(y, BlockLabels) and y.source is X.source):
            raise ValueError("With a BlockColumns X, y must be the BlockLabels of the same "
                             "source (split_blocks).")
        super().__init__(X, y, False)
        self.columns = list(X.columns)
        self._n_rows = None

    def blocks(self, labels=False):
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
            for _ in self.blocks():
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
        """``Σ_b func(part_b, labels_b)`` over the blocks, one pass (see :func:`table_rows`)."""
        if labels:
            self.check_labels()
        total = None
        for frame, y in self.blocks(labels):
            out = func(_Part(frame), None if y is None else labels_series(y))
            total = out if total is None else add_partials(total, out)
        if total is None:  # no rows: the statistic of an empty block
            total = func(_Part(pd.DataFrame(columns=self.columns, dtype=object)),
                         labels_series([]) if labels else None)
        return total

    def canonical(self, key):
        """The canonical forms of column ``key``, every block read (a leak only)."""
        return canonical(pd.concat([f[key] for f, _ in self.blocks()], ignore_index=True))

    def labels(self):
        """The labels as a pandas Series, every block read (a leak only)."""
        self.check_labels()
        return labels_series(pd.concat([y for _, y in self.blocks(True)], ignore_index=True))


def count_rows(X):
    """The number of rows of a Dask collection (a pass over it)."""
    n = X.shape[0]
    return int(n.compute() if hasattr(n, "compute") else n)
