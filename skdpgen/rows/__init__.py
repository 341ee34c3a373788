"""The private-rows layer: the one interface to the data of a fit.

A fit first makes its raw private table once, :func:`table_rows` (from the
schema layer, whose private estimate reads the table through it before any
encoding: its module states that protocol); that object alone decides
whether the rows are in memory or held by Dask. Every estimator then reads
its private data through :func:`make_rows`, once per fit, given that table
(or a raw one, which it wraps the same way). It validates the rows (or encodes them with a public
:class:`~skdpgen.schema.TableEncoder`), checks the labels and turns them into
class codes (taking the class list from ``classes=``, or from the data as a
recorded leak), and returns an object with one interface whether the rows
are in memory or held by Dask:

``n_rows``, ``n_columns``
    The number of rows (public, as in DP-MERF and DP-HP; for Dask counted
    in the first pass over the data) and of (encoded) columns.
``classes``, ``n_classes``
    The public class list (None and 0 without labels).
``feature_sums(feature_map, device="cpu")``
    ``Σ_i clip(h(x_i)) ⊗ onehot(y_i)``, of shape (features × max(1, classes)),
    streamed over row chunks (in memory, optionally on a GPU) or summed
    partition by partition on the active Dask scheduler; a list of maps
    gives a list of sums, all from one pass over the rows.
``class_counts()``
    Rows per class.
``prepare_feature_map(features, private)``
    The fitted feature map to sum (see
    :func:`skdpgen.kernels.prepare_feature_map`; a map that must learn from
    the rows cannot with Dask).
``map_rows(func)``
    ``func`` (a row-wise transform) applied to the rows: an ndarray, or a
    lazy Dask array.
``release_device(device)``
    Where the rows' features can be computed: ``device`` in memory, the
    workers' CPUs for Dask.

Nothing else of the rows ever leaves this layer, so an estimator needs no
branch for Dask and every release path sums clipped feature rows. Every mean
embedding is released by :func:`release_mean_embedding` (sum, divide by
``n``, add the accountant's noise; its Notes derive the sensitivity), or
several in one pass over the rows by :func:`release_mean_embeddings`.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import numpy as np
import pandas as pd
from sklearn.utils.validation import validate_data

from .._dask import meta
from ..schema._canonical import canonical, canonical_keys, numbers_table, sort_keys
from ..schema.kinds._categorical import record_class_list_leak
from ..schema._rows import TableRows, table_rows
from ._blocks import BlockRows
from ._distributed import DaskRows, unique_labels
from ._memory import ArrayRows, chunk_feature_sums
from ._release import release_mean_embedding, release_mean_embeddings, release_statistic

__all__ = ["ArrayRows", "BlockRows", "DaskRows", "TableRows", "chunk_feature_sums", "encode_labels",
           "make_rows", "release_mean_embedding", "release_mean_embeddings", "release_statistic",
           "table_rows"]


#: Labels read (as canonical tags) at a time by :func:`encode_labels`.
LABEL_CHUNK = 65_536


def encode_labels(y, classes, *, unlisted=None, missing=None):
    """Index of each label of ``y`` in ``classes``, compared by canonical key.

    Labels are compared by their canonical keys (see
    :mod:`skdpgen.schema._canonical`): ``1``, ``1.0``, ``"1"`` and
    ``np.int8(1)`` are one label, ``True`` another.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
    classes : array-like of shape (n_classes,)
    unlisted : int, default=None
        The class index that labels outside ``classes`` (and missing labels)
        get: a public choice, so that no record's label can make a fit
        fail. None raises instead (for labels a user asks for, which are
        public).
    missing : int, default=None
        The class index that missing labels get, when not ``unlisted``'s
        (a class list with a label for missing labels).

    Returns
    -------
    codes : ndarray of int of shape (n_samples,)

    Raises
    ------
    ValueError
        If ``unlisted`` is None and ``y`` holds a label that is not in
        ``classes`` (the message counts them, it does not quote them).

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen.rows import encode_labels
    >>> encode_labels(np.array(["b", "a", "b"]), np.array(["a", "b"]))
    array([1, 0, 1])
    >>> encode_labels([1.0, "2", None, 7], [1, 2], unlisted=0)
    array([0, 1, 0, 0])
    """
    _, tags = canonical_keys(list(np.asarray(classes, dtype=object).reshape(-1)))
    lookup = {t: i for i, t in enumerate(tags)}
    if missing is not None:  # a missing label's tag is None (no class's is)
        lookup[None] = missing
    values = y if isinstance(y, pd.Series) else np.asarray(y, dtype=object).reshape(-1)
    codes = np.empty(len(values), dtype=np.intp)
    for start in range(0, len(values), LABEL_CHUNK):  # the tags of a chunk at a time
        part = (values.iloc if isinstance(values, pd.Series) else values)[
            start:start + LABEL_CHUNK]
        codes[start:start + len(part)] = np.fromiter(
            (lookup.get(t, -1) for t in canonical(part).tags()), dtype=np.intp,
            count=len(part))
    unknown = codes < 0
    if unknown.any():
        if unlisted is None:
            raise ValueError(
                f"y holds {int(unknown.sum())} labels that are not in classes; the class "
                "list must be complete."
            )
        codes[unknown] = unlisted
    return codes


def check_classes(classes):
    """A declared class list as a 1-D array of distinct labels (by canonical key)."""
    arr = np.asarray(classes)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError("classes must be a non-empty 1-D list of distinct labels.")
    _, tags = canonical_keys(list(np.asarray(classes, dtype=object)))
    if None in tags or len(set(tags)) != len(tags):
        raise ValueError("classes must be a non-empty 1-D list of distinct labels.")
    return arr


def _labels_in_memory(y, n_rows):
    y = y.to_numpy(dtype=object) if isinstance(y, pd.Series) else np.asarray(y, dtype=object)
    if y.ndim != 1 or y.shape[0] != n_rows:
        raise ValueError(f"y must be 1-D with {n_rows} entries, got shape {y.shape}.")
    return y


def _classes_from_labels(labels, private):
    """The class list read from the private labels (recorded as a leak when ``private``)."""
    if private:
        record_class_list_leak()
    tags = {t for t in canonical(labels).tags() if t is not None}
    return np.asarray(sort_keys([t[1] for t in tags]) or ["other"])


def make_rows(estimator, X, y=None, *, reset, encoder=None, classes=None, private=False,
              min_rows=1, chunk_size=None, n_jobs=None, unlisted=0, missing=None):
    """Validate (or encode) the rows of a fit, and their labels.

    Parameters
    ----------
    estimator : BaseEstimator
        Whose ``n_features_in_`` and ``feature_names_in_`` are set
        (``reset=True``) or checked.
    X : array-like, DataFrame, Dask array, Dask DataFrame or TableRows
        The rows, of shape (n_samples, n_features); a fit passes its
        :func:`table_rows` (which decided memory or Dask, and holds ``y``).
    y : array-like, Dask array or Dask Series of shape (n_samples,), default=None
        Class labels (those of ``X`` when it is a ``TableRows``).
    reset : bool
        True in ``fit``; False when scoring or transforming.
    encoder : TableEncoder, default=None
        A fitted public encoder of tables; None for numeric tables, whose
        cells are read by their canonical form
        (:func:`~skdpgen.schema._canonical.numbers_table`: no value makes a
        fit fail).
    classes : array-like, default=None
        The public class list. None: read from ``y`` (recorded as a leak
        when ``private``).
    private : bool, default=False
        Whether the fit is private (leaks are recorded only then).
    min_rows : int, default=1
    chunk_size, n_jobs : int, default=None
        Rows per streamed chunk; threads for in-memory sums.
    unlisted : int, default=0
        The class index of labels outside ``classes`` and of missing labels
        (:func:`encode_labels`): a record's label never makes a fit fail.
    missing : int, default=None
        The class index of missing labels, when not ``unlisted``'s.

    Returns
    -------
    rows : ArrayRows, DaskRows or BlockRows
    """
    table = table_rows(X, y)
    X, y = table.X, table.y
    if table.is_blocks:  # read a block at a time: the table is never held
        validate_data(estimator, pd.DataFrame(columns=table.columns), reset=reset,
                      skip_check_array=True)
        if encoder is None:  # every cell read by its canonical form
            rows = BlockRows(table, numbers_table, len(table.columns), chunk_size=chunk_size,
                             n_jobs=n_jobs)
        else:
            rows = BlockRows(table, encoder.table, encoder.n_encoded_,
                             convert=encoder.transform_table, chunk_size=chunk_size,
                             n_jobs=n_jobs)
        if rows.n_rows < min_rows:
            raise ValueError(f"Need at least {min_rows} rows, got {rows.n_rows}.")
    elif table.is_dask:
        validate_data(estimator, meta(X), reset=reset, skip_check_array=True)
        convert = numbers_table if encoder is None else encoder.transform
        width = None if encoder is None else encoder.n_encoded_
        rows = DaskRows.from_collection(X, convert, width, chunk_size=chunk_size)
    else:
        convert = width = None
        if encoder is None:  # every cell read by its canonical form
            numbers = numbers_table(X)  # a 2-D table, or a ValueError on its shape
            validate_data(estimator, X, reset=reset, skip_check_array=True)
            X = numbers
        else:  # encoded chunk by chunk where it is summed, never held whole
            validate_data(estimator, X, reset=reset, skip_check_array=True)
            X = encoder.table(X)
            convert, width = encoder.transform_table, encoder.n_encoded_
        if X.shape[0] < min_rows:
            raise ValueError(f"Need at least {min_rows} rows, got {X.shape[0]}.")
        rows = ArrayRows(X, chunk_size=chunk_size, n_jobs=n_jobs, convert=convert,
                         n_columns=width)
    if y is None:
        return rows
    if table.is_blocks:
        # None: the labels' values, every block read (a leak)
        classes = (_classes_from_labels(table.labels(), private) if classes is None
                   else check_classes(classes))
        rows.set_labels(classes, lambda block: encode_labels(block, classes, unlisted=unlisted,
                                                             missing=missing))
        return rows
    dask_y = table.labels_dask
    if not dask_y:
        y = _labels_in_memory(y, rows.n_rows)
    if classes is not None:
        classes = check_classes(classes)
    else:
        classes = _classes_from_labels(unique_labels(y) if dask_y else y, private)
    if isinstance(rows, DaskRows):
        rows.set_labels(y, classes,
                        lambda block: encode_labels(block, classes, unlisted=unlisted,
                                                    missing=missing), dask=dask_y)
    else:
        rows.codes = encode_labels(y, classes, unlisted=unlisted, missing=missing)
        rows.classes = classes
    return rows
