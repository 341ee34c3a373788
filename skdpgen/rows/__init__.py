"""The private-rows layer: the one interface to the data of a fit.

Every estimator reads its private data through :func:`make_rows`, once per
fit. It validates the rows (or encodes them with a public
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
    partition by partition on the active Dask scheduler.
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
branch for Dask and every release path sums clipped feature rows.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import numpy as np
import pandas as pd
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data

from .._dask import is_dask_collection, meta
from ..privacy import record_leak
from ._distributed import DaskRows, unique_labels
from ._memory import ArrayRows, chunk_feature_sums

__all__ = ["ArrayRows", "DaskRows", "chunk_feature_sums", "encode_labels", "make_rows"]


def encode_labels(y, classes):
    """Index of each label of ``y`` in ``classes``.

    Parameters
    ----------
    y : ndarray of shape (n_samples,)
    classes : ndarray of shape (n_classes,)

    Returns
    -------
    codes : ndarray of int of shape (n_samples,)

    Raises
    ------
    ValueError
        If ``y`` holds a label that is not in ``classes``.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen.rows import encode_labels
    >>> encode_labels(np.array(["b", "a", "b"]), np.array(["a", "b"]))
    array([1, 0, 1])
    """
    lookup = {c: i for i, c in enumerate(np.asarray(classes).tolist())}
    uniques, inverse = np.unique(y, return_inverse=True)
    index = [lookup.get(u, -1) for u in uniques.tolist()]
    unknown = [u for u, i in zip(uniques.tolist(), index) if i < 0]
    if unknown:
        raise ValueError(
            f"y contains labels that are not in classes: {unknown[:5]}; the class "
            "list must be complete."
        )
    return np.asarray(index, dtype=np.intp)[inverse.reshape(-1)]


def check_classes(classes):
    """A declared class list as a 1-D array of distinct labels."""
    classes = np.asarray(classes)
    if classes.ndim != 1 or classes.size == 0 or np.unique(classes).size != classes.size:
        raise ValueError("classes must be a non-empty 1-D list of distinct labels.")
    return classes


def _labels_in_memory(y, n_rows):
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != n_rows:
        raise ValueError(f"y must be 1-D with {n_rows} entries, got shape {y.shape}.")
    if pd.isna(y).any():
        raise ValueError("y contains missing values.")
    check_classification_targets(y)
    return y


def make_rows(estimator, X, y=None, *, reset, encoder=None, classes=None, private=False,
              min_rows=1, chunk_size=None, n_jobs=None):
    """Validate (or encode) the rows of a fit, and their labels.

    Parameters
    ----------
    estimator : BaseEstimator
        Whose ``n_features_in_`` and ``feature_names_in_`` are set
        (``reset=True``) or checked.
    X : array-like, DataFrame, Dask array or Dask DataFrame of shape (n_samples, n_features)
    y : array-like, Dask array or Dask Series of shape (n_samples,), default=None
        Class labels.
    reset : bool
        True in ``fit``; False when scoring or transforming.
    encoder : TableEncoder, default=None
        A fitted public encoder of tables; None for finite numeric arrays.
    classes : array-like, default=None
        The public class list. None: read from ``y`` (recorded as a leak
        when ``private``).
    private : bool, default=False
        Whether the fit is private (leaks are recorded only then).
    min_rows : int, default=1
    chunk_size, n_jobs : int, default=None
        Rows per streamed chunk; threads for in-memory sums.

    Returns
    -------
    rows : ArrayRows or DaskRows
    """
    if is_dask_collection(X):
        validate_data(estimator, meta(X), reset=reset, skip_check_array=True)
        convert = None if encoder is None else encoder.transform
        width = None if encoder is None else encoder.n_encoded_
        rows = DaskRows.from_collection(X, convert, width, chunk_size=chunk_size)
    else:
        if encoder is None:
            X = validate_data(estimator, X, reset=reset, dtype=[np.float64, np.float32])
        else:
            validate_data(estimator, X, reset=reset, skip_check_array=True)
            X = encoder.transform(X)
        if X.shape[0] < min_rows:
            raise ValueError(f"Need at least {min_rows} rows, got {X.shape[0]}.")
        rows = ArrayRows(X, chunk_size=chunk_size, n_jobs=n_jobs)
    if y is None:
        return rows
    dask_y = is_dask_collection(y)
    if not dask_y:
        y = _labels_in_memory(y, rows.n_rows)
    if classes is not None:
        classes = check_classes(classes)
    else:
        if private:
            record_leak(
                "classes",
                "The class list was taken from the private labels y and is released "
                "without privacy. Pass classes=[...] (the public list of possible "
                "labels) to avoid this.",
            )
        classes = unique_labels(y) if dask_y else np.unique(y)
    if isinstance(rows, DaskRows):
        rows.set_labels(y, classes, lambda block: encode_labels(block, classes))
    else:
        rows.codes, rows.classes = encode_labels(y, classes), classes
    return rows
