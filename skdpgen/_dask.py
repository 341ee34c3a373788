"""Recognizing Dask collections without importing Dask.

Nothing here imports Dask unless the caller already has: a user without Dask
cannot hold a Dask collection.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import sys

__all__ = ["add_partials", "is_dask_collection", "map_labels", "meta", "partition_sums"]


def is_dask_collection(x):
    """Whether ``x`` is a Dask collection (False without importing Dask)."""
    if "dask" not in sys.modules:
        return False
    import dask

    return dask.is_dask_collection(x)


def meta(x):
    """An empty pandas stand-in for a Dask DataFrame (columns, dtypes); else ``x``.

    What scikit-learn's ``n_features_in_`` / ``feature_names_in_`` checks and
    the public-schema encoder need, without touching a row.
    """
    return getattr(x, "_meta", x) if hasattr(x, "columns") else x


def add_partials(a, b):
    """Sum two partial results: dicts key by key, Counters, arrays and numbers."""
    if isinstance(a, dict) and not hasattr(a, "most_common"):
        return {k: add_partials(a[k], b[k]) if k in b else a[k] for k in a} | {
            k: v for k, v in b.items() if k not in a}
    return a + b


def partition_sums(func, X, y=None):
    """``Σ_p func(X_p, y_p)`` over the partitions of a Dask collection, on its workers.

    ``func`` takes one partition of ``X`` (a pandas DataFrame, or an
    ndarray of whole rows for a Dask array) and the matching partition of
    ``y`` (or None) and returns a small partial statistic: a number, an
    array, a :class:`collections.Counter` or a dict of those, summed across
    partitions (dicts key by key). Only these partial results travel to the
    client; no column is computed there. ``y`` must be a Dask collection
    partitioned like ``X`` (a column of the same Dask DataFrame, or a Dask
    array with the same row chunks): the caller,
    :class:`skdpgen.rows.TableRows`, has checked that it is one.
    """
    import dask
    import dask.array as da

    if isinstance(X, da.Array):
        xs = list(X.rechunk({1: -1}).to_delayed()[:, 0])
    else:
        xs = list(X.to_delayed())
    ys = [None] * len(xs) if y is None else list(y.to_delayed())
    if len(ys) != len(xs):
        raise ValueError(
            f"y has {len(ys)} partitions but X has {len(xs)}; partition them alike.")
    parts = dask.compute(*[dask.delayed(func)(xp, yp) for xp, yp in zip(xs, ys)])
    total = parts[0]
    for part in parts[1:]:
        total = add_partials(total, part)
    return total


def map_labels(values, func):
    """``func`` (a 1-D array → array of the same length, row-wise) on ``values``:
    per partition, lazily, for a Dask Series or array (objects out); directly
    otherwise."""
    if not is_dask_collection(values):
        return func(values)
    import pandas as pd

    if hasattr(values, "map_partitions"):
        return values.map_partitions(lambda p: pd.Series(func(p), index=p.index),
                                     meta=(values.name, object))
    return values.map_blocks(func, dtype=object)
