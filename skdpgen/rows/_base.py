"""The private table of a fit: the protocol every backend serves.

One object per fit holds the private table and its labels, whichever
backend holds the rows (:class:`~skdpgen.rows.ArrayRows` in memory,
:class:`~skdpgen.rows.DaskRows` held by Dask,
:class:`~skdpgen.rows.BlockRows` read a block at a time from a file), and
:func:`~skdpgen.rows.table_rows` alone decides which. The same object
serves two readers, so no reader ever branches on the backend:

**The raw columns** (what the schema estimate, its leaky alternative
``infer_schema="data"`` and a public encoder's fit read, before any
encoding):

``columns``
    The column keys: names, or positions for arrays (public; never a dtype
    or a value).
``is_dask``, ``labels_dask``, ``is_blocks``
    Whether the rows, and the labels, are held by Dask; whether the rows
    are read by blocks: the decisions, made once.
``is_frame``
    Whether the table has named columns.
``X``, ``y``
    The table and labels as given.
``n_rows``
    The number of rows (public, as in DP-MERF and DP-HP), counted once: for
    Dask and blocks in the first pass over the rows that needs it.
``partition_sums(func, labels=False)``
    ``Σ_p func(part_p, labels_p)`` over the rows' partitions, where
    ``part_p`` maps a column key to its values' canonical forms
    (:func:`~skdpgen._canonical.canonical`) and has ``len()`` rows,
    and ``labels_p`` is a pandas Series of labels (or None). One call in
    memory; one call per partition on the Dask workers, only the partial
    sums travelling to the client (:func:`skdpgen._dask.partition_sums`);
    one call per block, one pass over the source.
``caching(forms=True)``
    A context in which the table's frame, and the canonical forms of a
    column, are computed once for all passes (in memory; a measured
    speed-up of the schema estimate) and dropped at its end.
``check_labels()``
    Raises unless the labels can be summed with the rows.
``canonical(key)``, ``labels()``
    One column's canonical forms, and the labels as a checked pandas
    Series, on the client: for the leaky reads only (``infer_schema="data"``,
    a :class:`~skdpgen.schema.TableEncoder` without a complete schema).

**The encoded features** (what every release sums), once :meth:`encode`
has set the rows' encoding (:func:`~skdpgen.rows.make_rows` calls it) and
:meth:`set_labels` their class list: ``n_columns``, ``classes``,
``n_classes``, ``feature_sums``, ``class_counts``, ``prepare_feature_map``,
``map_rows`` and ``release_device`` (:mod:`skdpgen.rows` states them).

This module, with the three backends and :func:`~skdpgen.rows.table_rows`,
sits below the schema layer (which reads the raw columns through
:mod:`skdpgen.rows`, the package's door); so does :mod:`skdpgen.rows`
itself: :func:`~skdpgen.rows.make_rows` encodes with the encoder it is
handed, and imports nothing of the schema.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import numpy as np
import pandas as pd

from .._dask import is_dask_collection
from .._canonical import canonical, labels_series

__all__ = ["TableRows", "labels_in_memory", "unique_labels"]


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


def labels_in_memory(y, n_rows):
    """Labels in memory as a 1-D object array of ``n_rows`` entries (else ValueError)."""
    y = y.to_numpy(dtype=object) if isinstance(y, pd.Series) else np.asarray(y, dtype=object)
    if y.ndim != 1 or y.shape[0] != n_rows:
        raise ValueError(f"y must be 1-D with {n_rows} entries, got shape {y.shape}.")
    return y


def unique_labels(y):
    """The distinct labels of a Dask array or Series (computed)."""
    import dask.array as da

    if isinstance(y, da.Array):
        return np.asarray(y.map_blocks(lambda b: pd.unique(np.asarray(b, dtype=object)),
                                       dtype=object).compute(), dtype=object)
    return y.astype(object).unique().compute().to_numpy(dtype=object)


class TableRows:
    """The private table of a fit and its labels, whichever backend holds them.

    The base of :class:`~skdpgen.rows.ArrayRows`,
    :class:`~skdpgen.rows.DaskRows` and :class:`~skdpgen.rows.BlockRows`,
    made by :func:`~skdpgen.rows.table_rows`; the module docstring states
    the protocol.

    Parameters
    ----------
    X : object
        The table as given.
    y : object, default=None
        The labels as given.

    Attributes
    ----------
    X : object
        The table as given.
    y : object or None
        The labels as given.
    labels_dask : bool
        Whether the labels are held by Dask.
    classes : ndarray or None
        The public class list (:meth:`set_labels`; None without labels).

    Examples
    --------
    >>> from skdpgen.rows import TableRows, table_rows
    >>> rows = table_rows([[1, "a"], [2, None]], ["p", "q"])
    >>> isinstance(rows, TableRows), rows.columns, rows.n_rows
    (True, [0, 1], 2)
    >>> rows.labels().tolist()
    ['p', 'q']
    """

    is_dask = False
    is_blocks = False

    def __init__(self, X, y=None):
        self.X = X
        self.y = y
        self.labels_dask = is_dask_collection(y)
        self.classes = None

    @property
    def n_classes(self):
        """The number of classes (0 without labels)."""
        return 0 if self.classes is None else len(self.classes)

    def labels(self):
        """The labels as a pandas Series on the client, one per row (else ValueError)."""
        if self.y is None:
            raise ValueError("The plan estimates the class list: pass the labels y.")
        y = labels_series(self.y.compute() if self.labels_dask else self.y)
        if len(y) != self.n_rows:
            raise ValueError(f"y has {len(y)} labels for {self.n_rows} rows.")
        return y

    def label_values(self):
        """The labels whose distinct values are the class list when none is given
        (a recorded leak): the checked labels in memory, or the distinct labels
        held by Dask (computed)."""
        return unique_labels(self.y) if self.labels_dask else labels_in_memory(self.y,
                                                                                self.n_rows)

    def __repr__(self):
        return (f"{type(self).__name__}(columns={len(self.columns)}, "
                f"labels={self.y is not None})")
