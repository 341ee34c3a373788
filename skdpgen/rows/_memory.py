"""Private rows held in memory, and the chunked sum every backend uses."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import numpy as np
import torch
from joblib import Parallel, delayed

from ..kernels import prepare_feature_map

__all__ = ["ArrayRows", "chunk_feature_sums"]

# Target number of float64 feature values held per chunk (about 24 MB).
_CHUNK_VALUES = 3_000_000


def _chunk_rows(n_features_out, chunk_size):
    if chunk_size is not None:
        return int(chunk_size)
    return max(1, _CHUNK_VALUES // max(1, n_features_out))


def chunk_feature_sums(feature_map, X, codes=None, n_classes=1, *, chunk_size=None,
                       n_jobs=None, device="cpu"):
    """``Σ_i clip(h(x_i)) ⊗ onehot(y_i)``, streamed over row chunks.

    Parameters
    ----------
    feature_map : BoundedFeatureMap
        Fitted; its :meth:`~skdpgen.kernels.BoundedFeatureMap.feature_sum`
        clips every row to norm ≤ 1.
    X : ndarray of shape (n_samples, n_features)
        Validated, finite rows.
    codes : ndarray of int of shape (n_samples,), default=None
        Class index of each row in ``[0, n_classes)``; all zeros when None.
    n_classes : int, default=1
    chunk_size : int, default=None
        Rows per chunk; by default about 3·10⁶ feature values per chunk.
    n_jobs : int, default=None
        Threads working on chunks in parallel (CPU only; NumPy releases the
        GIL).
    device : str, default="cpu"
        ``"cuda"``: each chunk's features are computed there in float64 and
        only its (features × classes) sum comes back.

    Returns
    -------
    sums : ndarray of shape (n_features_out, n_classes)
        Memory is O(chunk × features + features × classes).
    """
    n = X.shape[0]
    rows = _chunk_rows(feature_map.n_features_out_, chunk_size)
    eye = np.eye(n_classes)

    def one(start):
        stop = min(start + rows, n)
        W = eye[codes[start:stop]] if codes is not None else np.ones((stop - start, 1))
        if device == "cpu":
            return feature_map.feature_sum(X[start:stop], W)
        with torch.no_grad():
            T = torch.as_tensor(np.ascontiguousarray(X[start:stop]), dtype=torch.float64,
                                device=device)
            Wt = torch.as_tensor(W, dtype=torch.float64, device=device)
            return feature_map.feature_sum(T, Wt).cpu().numpy()

    starts = range(0, n, rows)
    if n_jobs in (None, 1) or len(starts) == 1 or device != "cpu":
        parts = map(one, starts)
    else:
        parts = Parallel(n_jobs=n_jobs, prefer="threads", return_as="generator")(
            delayed(one)(s) for s in starts
        )
    total = None
    for part in parts:
        total = part if total is None else total + part
    if total is None:
        return np.zeros((feature_map.n_features_out_, n_classes))
    total = np.asarray(total, dtype=np.float64)
    if not np.all(np.isfinite(total)):
        raise ValueError("The feature map returned non-finite values.")
    return total


class ArrayRows:
    """Private rows in memory (see :mod:`skdpgen.rows` for the interface).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_columns)
        Validated (and encoded), finite float rows.
    codes : ndarray of int of shape (n_samples,) or None
    classes : ndarray or None
    chunk_size, n_jobs : see :func:`chunk_feature_sums`
    """

    def __init__(self, X, codes=None, classes=None, *, chunk_size=None, n_jobs=None):
        self.X = X
        self.codes = codes
        self.classes = classes
        self.chunk_size = chunk_size
        self.n_jobs = n_jobs

    @property
    def n_rows(self):
        return self.X.shape[0]

    @property
    def n_columns(self):
        return self.X.shape[1]

    @property
    def n_classes(self):
        return 0 if self.classes is None else len(self.classes)

    def feature_sums(self, feature_map, *, device="cpu"):
        return chunk_feature_sums(
            feature_map, self.X, self.codes, max(self.n_classes, 1),
            chunk_size=self.chunk_size, n_jobs=self.n_jobs, device=device,
        )

    def class_counts(self):
        return np.bincount(self.codes, minlength=self.n_classes)

    def prepare_feature_map(self, features, *, private):
        return prepare_feature_map(features, self.X, private=private)

    def map_rows(self, func):
        return func(self.X)

    def release_device(self, device):
        return device
