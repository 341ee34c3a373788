"""The one place that decides which backend holds the private table of a fit."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

from .._dask import is_dask_collection
from ._base import TableRows
from ._blocks import BlockColumns, BlockRows
from ._distributed import DaskRows
from ._memory import ArrayRows

__all__ = ["table_rows"]


def table_rows(X, y=None):
    """The private table ``X`` (and labels ``y``) of a fit, read one way.

    Every reader of the private table, the schema estimate (raw columns)
    as the releases (encoded features), reads it through the object this
    returns (:class:`~skdpgen.rows.TableRows` states the protocol).

    Parameters
    ----------
    X : DataFrame, 2-D array, list of rows, Dask DataFrame or array, or BlockColumns
        The private table, its values in any form; a :class:`BlockColumns`
        (:func:`~skdpgen.rows.split_blocks`) is read from its source a block
        at a time.
    y : array-like, Dask array or Dask Series of shape (n,), or BlockLabels, default=None
        Private labels; with a Dask ``X``, a Dask collection partitioned
        like ``X`` to be summed with it; with a ``BlockColumns`` ``X``, the
        ``BlockLabels`` of the same source.

    Returns
    -------
    rows : ArrayRows, DaskRows or BlockRows
        In memory, held by Dask when ``X`` is a Dask collection, or read by
        blocks (the only place where this is decided); ``X`` is returned as
        it is when it is already a :class:`~skdpgen.rows.TableRows`.

    Examples
    --------
    >>> import pandas as pd
    >>> from skdpgen.rows import table_rows
    >>> rows = table_rows(pd.DataFrame({"a": [1, 2, None], "b": ["x", "y", "x"]}))
    >>> type(rows).__name__, rows.columns, rows.n_rows, rows.is_dask
    ('ArrayRows', ['a', 'b'], 3, False)
    >>> int(rows.partition_sums(lambda part, _: part["a"].counts())[4])  # missing values
    1
    """
    if isinstance(X, TableRows):
        return X
    if isinstance(X, BlockColumns):
        return BlockRows(X, y)
    if is_dask_collection(X):
        return DaskRows(X, y)
    return ArrayRows(X, y)
