"""A private table held in memory, and the chunked sum every backend uses."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import contextlib

import numpy as np
import pandas as pd
from joblib import Parallel, delayed, effective_n_jobs

from .._canonical import numbers_table, table_frame
from ._base import TableRows, _Part, labels_in_memory

__all__ = ["ArrayRows", "chunk_feature_sums", "split_sums"]

# Float64 feature values held per chunk of rows (about 8 MB): the memory bound
# of a sum, and its speed: the order-100 Hermite terms of a 700-row chunk stay
# in the caches between their computation and their sums (benchmarks/JOURNAL.md,
# 2026-11-29: 5e5 to 1e6 values per chunk were fastest for Hermite orders 20
# and 100 and 10,000 Fourier features; 3e6 was up to 1.5x slower).
_CHUNK_VALUES = 1_000_000
# Feature values computed by one task of a worker thread (about 30 chunks):
# the pool's cost per task (a hand-off, a wake-up) is then negligible, while a
# sum of 10^6 rows still makes tens of tasks for the workers to share.
_TASK_VALUES = 30_000_000


def _chunk_rows(n_features_out, chunk_size, values=None):
    """Rows per chunk: ``chunk_size``, or about ``values`` (default ``_CHUNK_VALUES``)
    feature values."""
    if chunk_size is not None:
        return int(chunk_size)
    return max(1, (_CHUNK_VALUES if values is None else values) // max(1, n_features_out))


def _maps(feature_map):
    """A feature map, or a list of them, as a list."""
    return list(feature_map) if isinstance(feature_map, (list, tuple)) else [feature_map]


def split_sums(total, feature_map):
    """The stacked sums of :func:`chunk_feature_sums` over a list of maps, one per map
    (a single map: ``total`` itself)."""
    if not isinstance(feature_map, (list, tuple)):
        return total
    widths = np.cumsum([f.n_features_out_ for f in feature_map])[:-1]
    return np.split(total, widths, axis=0)


def chunk_feature_sums(feature_map, X, codes=None, n_classes=1, *, chunk_size=None,
                       n_jobs=None, device="cpu", convert=None, converted_width=1):
    """``Σ_i clip(h(x_i)) ⊗ onehot(y_i)``, streamed over row chunks.

    Parameters
    ----------
    feature_map : BoundedFeatureMap, or a list of them
        Fitted; its :meth:`~skdpgen.kernels.BoundedFeatureMap.feature_sum`
        clips every row to norm ≤ 1. A list: every map's sums in the same
        pass (each chunk converted once), stacked in the list's order
        (:func:`split_sums` splits them).
    X : ndarray of shape (n_samples, n_features), or a table with ``convert``
        Validated, finite rows; with ``convert``, the raw rows (a DataFrame
        or an array), each chunk converted when it is summed.
    codes : ndarray of int of shape (n_samples,), default=None
        Class index of each row in ``[0, n_classes)``; all zeros when None.
    n_classes : int, default=1
    chunk_size : int, default=None
        Rows per chunk; by default about 10⁶ values per chunk, the values
        each map's sum holds per row (its features, or fewer for a fused
        path: ``_values_per_row``).
    n_jobs : int, default=None
        Worker threads summing the chunks (CPU only; NumPy releases the GIL);
        -1 for every core, None for joblib's active setting (one thread
        unless inside ``joblib.parallel_config(n_jobs=...)``). With more than
        one, BLAS, OpenMP and torch run one thread each inside the sum (their
        settings are restored afterwards): ``n_jobs`` is the number of
        threads the sum keeps busy. The chunks are grouped into tasks of
        about 3·10⁷ feature values, summed in the same order whatever
        ``n_jobs``.
    device : str, default="cpu"
        ``"cuda"``: each chunk's features are computed there in float64 and
        only its (features × classes) sum comes back.
    convert : callable, default=None
        A row-wise map from a chunk of ``X`` to its float rows (a public
        encoder's ``transform``); the chunk's rows count the converted width
        too. None: ``X`` is already float rows.
    converted_width : int, default=1
        Columns of a converted row: rows are converted in blocks of about
        3·10⁶ converted values (at least a chunk), then summed chunk by chunk.

    Returns
    -------
    sums : ndarray of shape (n_features_out, n_classes)
        (With a list of maps: their ``n_features_out`` summed.) Memory is O(chunk × (features + converted width) + features ×
        classes): with ``convert``, no more than a chunk of the converted
        rows is ever held. The chunks, and so the sum, are the same with or
        without ``convert`` (a row-wise map).
    """
    import torch  # imported when rows are summed: reading a table needs no torch

    from .._device import worker_threads

    n = X.shape[0]
    maps = _maps(feature_map)
    width = sum(f.n_features_out_ for f in maps)
    rows = _chunk_rows(sum(f._values_per_row(device, n_classes) for f in maps), chunk_size)
    # rows converted at once: about three chunks' worth of converted values, at
    # least one chunk (converting few rows at a time costs a pass of pandas each)
    block = rows if convert is None else max(
        rows, _chunk_rows(converted_width, chunk_size, 3 * _CHUNK_VALUES))
    # rows per task: whole blocks, about _TASK_VALUES feature values
    span = block * max(1, _chunk_rows(width, None, _TASK_VALUES) // block)
    eye = np.eye(n_classes)

    def sums(Z, start, stop):
        W = eye[codes[start:stop]] if codes is not None else np.ones((stop - start, 1))
        if device == "cpu":
            out = [f.feature_sum(Z, W) for f in maps]
        else:
            with torch.no_grad():
                T = torch.as_tensor(np.ascontiguousarray(Z), dtype=torch.float64, device=device)
                Wt = torch.as_tensor(W, dtype=torch.float64, device=device)
                out = [f.feature_sum(T, Wt).cpu().numpy() for f in maps]
        return out[0] if len(out) == 1 else np.concatenate(out, axis=0)

    def chunks(start):
        """The sums of the chunks of one converted block, in order."""
        stop = min(start + block, n)
        if convert is None:
            yield sums(X[start:stop], start, stop)
            return
        Z = convert(X.iloc[start:stop] if hasattr(X, "iloc") else X[start:stop])
        for a in range(start, stop, rows):
            yield sums(Z[a - start:min(a + rows, stop) - start], a, min(a + rows, stop))

    def task(start):
        """The sum of the chunks of rows ``start`` to ``start + span``, in order."""
        return _ordered_sum(part for b in range(start, min(start + span, n), block)
                            for part in chunks(b))

    starts = range(0, n, span)
    workers = 1 if device != "cpu" or len(starts) < 2 else min(effective_n_jobs(n_jobs),
                                                               len(starts))
    with worker_threads(workers):
        if workers == 1:
            total = _ordered_sum(map(task, starts))
        else:  # threads: NumPy releases the GIL; the tasks' sums come back in order
            total = _ordered_sum(Parallel(n_jobs=workers, require="sharedmem",
                                          return_as="generator")(
                delayed(task)(s) for s in starts))
    if total is None:
        return np.zeros((width, n_classes))
    total = np.asarray(total, dtype=np.float64)
    if not np.all(np.isfinite(total)):
        raise ValueError("The feature map returned non-finite values.")
    return total


def _ordered_sum(parts):
    """``parts`` added in order (None when there are none)."""
    total = None
    for part in parts:
        total = part if total is None else total + part
    return total


class ArrayRows(TableRows):
    """A private table in memory: its raw columns and its encoded rows.

    The in-memory backend of :class:`~skdpgen.rows.TableRows` (whose module
    states the protocol): one partition. Made by
    :func:`~skdpgen.rows.table_rows`; the frame and the canonical forms are
    kept between passes only inside :meth:`caching` (a fit holds no copy of
    ``X``). The rows summed are ``X`` itself (validated, finite float rows)
    until :meth:`encode` sets their encoding.

    Parameters
    ----------
    X : DataFrame, 2-D array or list of rows
        The private table; float rows when summed without :meth:`encode`.
    y : array-like of shape (n_samples,), default=None
        Private labels.

    Attributes
    ----------
    codes : ndarray of int of shape (n_samples,) or None
        The class index of each row (:meth:`set_labels`).
    convert : callable or None
        Row-wise map of a chunk of the rows to float rows (a public
        encoder's ``transform_table``), applied where they are summed (an
        encoded table is never held whole).
    chunk_size, n_jobs : see :func:`chunk_feature_sums`

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen.kernels import RandomFourierFeatures
    >>> from skdpgen.rows import ArrayRows
    >>> rows = ArrayRows(np.array([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5]]))
    >>> rows.columns, rows.n_rows, rows.n_columns
    ([0, 1], 3, 2)
    >>> fmap = RandomFourierFeatures(n_components=4, random_state=0).fit(np.zeros((1, 2)))
    >>> rows.feature_sums(fmap).shape
    (4, 1)
    """

    def __init__(self, X, y=None):
        super().__init__(X, y)
        self.is_frame = isinstance(X, pd.DataFrame)
        self._cache = None
        self._shape = None
        self._rows = X  # what is summed: X itself until encode
        self._encoded = False
        self._width = None
        self.codes = None
        self.convert = None
        self.chunk_size = None
        self.n_jobs = None

    # -- the raw columns -----------------------------------------------------
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
        """The number of rows (an array's from its shape: no frame is built for it)."""
        if self._encoded:
            return self._rows.shape[0]
        if self._shape is None and isinstance(self.X, np.ndarray) and self.X.ndim == 2:
            return self.X.shape[0]
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

    # -- the encoded features ------------------------------------------------
    def encode(self, encoder, validate, *, min_rows=1, chunk_size=None, n_jobs=None):
        """Set the rows' encoding (see :func:`~skdpgen.rows.make_rows`); returns self.

        ``encoder`` None reads every cell by its canonical form
        (:func:`numbers_table`); a fitted public encoder checks the table
        (its ``table``) and encodes it chunk by chunk where it is summed.
        ``validate`` is called with what scikit-learn's feature checks read.
        """
        if encoder is None:  # every cell read by its canonical form
            rows = numbers_table(self.X)  # a 2-D table, or a ValueError on its shape
            validate(self.X)
            convert = width = None
        else:  # encoded chunk by chunk where it is summed, never held whole
            validate(self.X)
            rows = encoder.table(self.X)
            convert, width = encoder.transform_table, encoder.n_encoded_
        if rows.shape[0] < min_rows:
            raise ValueError(f"Need at least {min_rows} rows, got {rows.shape[0]}.")
        self._rows, self._encoded = rows, True
        self.convert, self._width = convert, (None if width is None else int(width))
        self.chunk_size, self.n_jobs = chunk_size, n_jobs
        return self

    def set_labels(self, classes, encode):
        """The public ``classes``, and each row's class code (``encode`` of the labels)."""
        self.codes = encode(self.y if self.labels_dask else labels_in_memory(self.y, self.n_rows))
        self.classes = classes

    @property
    def n_columns(self):
        """The width of the encoded rows."""
        return self._rows.shape[1] if self._width is None else self._width

    def _converted(self):
        """The whole converted table: only for a map that must read every row."""
        return self._rows if self.convert is None else self.convert(self._rows)

    def feature_sums(self, feature_map, *, device="cpu"):
        """``Σ_i clip(h(x_i)) ⊗ onehot(y_i)`` (:func:`chunk_feature_sums`)."""
        return split_sums(chunk_feature_sums(
            feature_map, self._rows, self.codes, max(self.n_classes, 1),
            chunk_size=self.chunk_size, n_jobs=self.n_jobs, device=device,
            convert=self.convert, converted_width=self.n_columns,
        ), feature_map)

    def class_counts(self):
        """Rows per class."""
        return np.bincount(self.codes, minlength=self.n_classes)

    def prepare_feature_map(self, features, *, private):
        """The fitted feature map (see :func:`~skdpgen.kernels.prepare_feature_map`)."""
        from ..kernels import BoundedFeatureMap, prepare_feature_map  # (torch: late)

        if isinstance(features, BoundedFeatureMap):  # only the shape is read
            return prepare_feature_map(features, np.zeros((1, self.n_columns)),
                                       private=private)
        return prepare_feature_map(features, self._converted(), private=private)

    def map_rows(self, func):
        """``func`` applied to the encoded rows."""
        return func(self._converted())

    def release_device(self, device):
        """``device``: the rows are where the sum runs."""
        return device
