"""The private-rows layer: the one interface to the data of a fit.

A fit makes its private table once, with :func:`table_rows`, the one place
that decides which backend holds it: :class:`ArrayRows` (in memory),
:class:`DaskRows` (held by Dask) or :class:`BlockRows` (read a block at a
time from a file: :func:`split_blocks`). The one object it returns serves
every reader: the schema estimate and a public encoder's fit read its raw
columns (:class:`TableRows` states that protocol), then :func:`make_rows`,
once per fit, validates the rows and sets their encoding (or encodes them
with a public :class:`~skdpgen.schema.TableEncoder`), checks the labels
and turns them into class codes (taking the class list from ``classes=``,
or from the data as a recorded leak), on the same object, which then
offers one interface whatever its backend:

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

from .._canonical import canonical, canonical_keys, sort_keys
from ..privacy import record_leak
from ._base import TableRows
from ._blocks import BlockColumns, BlockLabels, BlockRows, split_blocks
from ._distributed import DaskRows
from ._memory import ArrayRows, chunk_feature_sums
from ._release import release_mean_embedding, release_mean_embeddings, release_statistic
from ._table import table_rows

__all__ = ["ArrayRows", "BlockColumns", "BlockLabels", "BlockRows", "DaskRows", "TableRows",
           "chunk_feature_sums", "encode_labels", "make_rows", "record_class_list_leak",
           "release_mean_embedding", "release_mean_embeddings", "release_statistic",
           "split_blocks", "table_rows"]


#: Labels read (as canonical tags) at a time by :func:`encode_labels`.
LABEL_CHUNK = 65_536


def encode_labels(y, classes, *, unlisted=None, missing=None):
    """Index of each label of ``y`` in ``classes``, compared by canonical key.

    Labels are compared by their canonical keys (see
    :mod:`skdpgen._canonical`): ``1``, ``1.0``, ``"1"`` and
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


def record_class_list_leak():
    """Record that the class list is read from the private labels, exactly.

    A :func:`skdpgen.privacy.record_leak` whose remedy is ``"classes"``:
    each interface names its own way of passing the public list. Both the
    rows of a fit without ``classes`` (:func:`make_rows`) and the schema's
    leaky reading (``infer_schema="data"``) record it.

    Returns
    -------
    leak : PrivacyLeak

    Examples
    --------
    >>> import warnings
    >>> from skdpgen.rows import record_class_list_leak
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     leak = record_class_list_leak()
    >>> leak.what, leak.remedy
    ('classes', 'classes')
    """
    return record_leak("classes", "The class list was taken from the private labels y and is "
                       "released without privacy.", remedy="classes")


def check_classes(classes):
    """A declared class list as a 1-D array of distinct labels (by canonical key)."""
    arr = np.asarray(classes)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError("classes must be a non-empty 1-D list of distinct labels.")
    _, tags = canonical_keys(list(np.asarray(classes, dtype=object)))
    if None in tags or len(set(tags)) != len(tags):
        raise ValueError("classes must be a non-empty 1-D list of distinct labels.")
    return arr


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
    X : array-like, DataFrame, Dask array, Dask DataFrame, BlockColumns or TableRows
        The rows, of shape (n_samples, n_features); a fit passes its
        :func:`table_rows` (which decided the backend, and holds ``y``).
    y : array-like, Dask array or Dask Series of shape (n_samples,), default=None
        Class labels (those of ``X`` when it is a ``TableRows``).
    reset : bool
        True in ``fit``; False when scoring or transforming.
    encoder : TableEncoder, default=None
        A fitted public encoder of tables; None for numeric tables, whose
        cells are read by their canonical form
        (:func:`~skdpgen._canonical.numbers_table`: no value makes a
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
        The table object of :func:`table_rows` (``X`` itself when it is
        one), its encoding and labels set.
    """
    rows = table_rows(X, y).encode(
        encoder, lambda header: validate_data(estimator, header, reset=reset,
                                              skip_check_array=True),
        min_rows=min_rows, chunk_size=chunk_size, n_jobs=n_jobs)
    if rows.y is None:
        return rows
    # None: the labels' distinct values, read (a leak)
    classes = (_classes_from_labels(rows.label_values(), private) if classes is None
               else check_classes(classes))
    rows.set_labels(classes, lambda labels: encode_labels(labels, classes, unlisted=unlisted,
                                                          missing=missing))
    return rows
