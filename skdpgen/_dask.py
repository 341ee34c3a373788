"""Recognizing Dask collections without importing Dask.

Nothing here imports Dask unless the caller already has: a user without Dask
cannot hold a Dask collection.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import sys

__all__ = ["is_dask_collection", "meta"]


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
