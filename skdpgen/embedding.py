"""The (optionally differentially private) kernel mean embedding of a dataset."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

from numbers import Integral, Real

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, TransformerMixin, _fit_context, clone
from sklearn.exceptions import NotFittedError
from sklearn.utils._param_validation import HasMethods, Interval
from sklearn.utils import check_array
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    _check_feature_names,
    _check_n_features,
    check_is_fitted,
    validate_data,
)

from ._dask import DaskRows, is_dask_collection, meta, unique_labels
from ._state import fit_transaction
from .features import HermiteFeatures, _unit_norm_scale, _UnitNormFeatures
from .privacy import (
    GaussianAccountant,
    GaussianRelease,
    PrivacyReport,
    leak_ledger,
    record_leak,
)

__all__ = ["KernelMeanEmbedding", "encode_labels", "feature_sums", "fit_feature_map", "mmd2"]

# Target number of float64 values held per chunk (about 24 MB).
_CHUNK_VALUES = 3_000_000


def _chunk_rows(n_features_out, chunk_size):
    if chunk_size is not None:
        return int(chunk_size)
    return max(1, _CHUNK_VALUES // max(1, n_features_out))


def _generic_weighted_sum(features, X, weights):
    """Feature sum for any fitted transformer, rows clipped to norm ≤ 1."""
    H = np.asarray(features.transform(X), dtype=np.float64)
    if H.ndim != 2 or H.shape[0] != X.shape[0]:
        raise ValueError("The feature map must return a 2-D array with one row per sample.")
    if not np.all(np.isfinite(H)):
        raise ValueError("The feature map returned non-finite values.")
    H *= _unit_norm_scale(np.einsum("ij,ij->i", H, H), np.float64)[:, None]
    return H.T @ weights


def fit_feature_map(features, X, *, private, dask=False):
    """The feature map to use on the private ``X``, fitted; leaks recorded.

    skdpgen's maps (:class:`HermiteFeatures`, :class:`RandomFourierFeatures`)
    use only the number of columns of ``X`` and have rows of norm ≤ 1 by
    construction; an unfitted one is cloned and fitted on ``X``'s shape.

    Any other transformer is used through its ``transform``, with every
    output row clipped to norm ≤ 1. The clip bounds the sensitivity only if
    the transform is *row-wise*: each output row depends on its own input
    row and on public data alone (``X / |X|.max()`` is not: one record moves
    every row). skdpgen cannot check that, so in a private fit such a map is
    recorded as a leak (see :func:`skdpgen.privacy.record_leak`) stating the
    assumption the user then answers for; an unfitted one is also fitted on
    the private rows, which the same record says.

    Parameters
    ----------
    features : transformer
    X : ndarray of shape (n_samples, n_features)
        Validated rows (only the shape is used by skdpgen's maps).
    private : bool
        Whether the fit is private (leaks are recorded only then).
    dask : bool, default=False
        Whether the rows are held by Dask (an unfitted foreign map is then
        refused: it cannot be fitted on them).

    Returns
    -------
    features : fitted transformer
    """
    try:
        check_is_fitted(features)
        fitted = True
    except NotFittedError:
        fitted = False
    if fitted:
        n_in = getattr(features, "n_features_in_", X.shape[1])
        if n_in != X.shape[1]:
            raise ValueError(
                f"The fitted feature map expects {n_in} columns, X has {X.shape[1]}."
            )
    ours = isinstance(features, _UnitNormFeatures)
    if dask and not fitted and not ours:
        raise ValueError(
            f"With Dask input the feature map must be fitted beforehand (on public "
            f"data) or be one of skdpgen's maps; {type(features).__name__} is not fitted."
        )
    if private and not ours:
        name = type(features).__name__
        fitted_on = (
            "" if fitted else
            " It is also fitted on the private rows here, and whatever it learns from "
            "them is covered by no guarantee: fit it on public data and pass it fitted."
        )
        record_leak(
            "feature map",
            f"{name} is not one of skdpgen's bounded feature maps. Its rows are clipped "
            "to norm <= 1, which bounds the sensitivity only if its transform is "
            "row-wise (each output row depends on its own input row and on public data "
            f"alone); skdpgen cannot check that, and you answer for it.{fitted_on}",
            stacklevel=4,
        )
    return features if fitted else clone(features).fit(X)


def feature_sums(features, X, codes=None, n_classes=1, *, chunk_size=None, n_jobs=None):
    """Stream ``Σ_i h(x_i) ⊗ onehot(y_i)`` over row chunks.

    Parameters
    ----------
    features : fitted transformer
        A skdpgen feature map, or any transformer (its rows are then clipped
        to norm ≤ 1).
    X : ndarray of shape (n_samples, n_features) or DaskRows
        Validated, finite input; or rows held by Dask (see
        :mod:`skdpgen._dask`), summed partition by partition where they live.
    codes : ndarray of int of shape (n_samples,), default=None
        Class index of each row in ``[0, n_classes)``; all zeros when None.
        For Dask rows, a list with one code array (or Delayed) per block.
    n_classes : int, default=1
    chunk_size : int, default=None
        Rows per chunk; by default about 3·10⁶ feature values per chunk.
    n_jobs : int, default=None
        Threads working on chunks in parallel (NumPy releases the GIL).

    Returns
    -------
    sums : ndarray of shape (n_features_out, n_classes)
        Memory is O(chunk × features + features × classes), never
        O(n_samples × features).
    """
    if isinstance(X, DaskRows):
        return X.feature_sums(features, codes, n_classes, chunk_size=chunk_size)
    n = X.shape[0]
    if hasattr(features, "_weighted_feature_sum"):  # our maps: they clip their rows
        n_out, weighted_sum = features._n_features_out, features._weighted_feature_sum
    else:
        n_out = None
        weighted_sum = lambda Xc, Wc: _generic_weighted_sum(features, Xc, Wc)  # noqa: E731
    rows = _chunk_rows(n_out or 1024, chunk_size)
    eye = np.eye(n_classes)

    def one(start):
        stop = min(start + rows, n)
        W = eye[codes[start:stop]] if codes is not None else np.ones((stop - start, 1))
        return weighted_sum(X[start:stop], W)

    starts = range(0, n, rows)
    if n_jobs in (None, 1) or len(starts) == 1:
        total = None
        for s in starts:
            part = one(s)
            total = part if total is None else total + part
        return total
    parts = Parallel(n_jobs=n_jobs, prefer="threads", return_as="generator")(
        delayed(one)(s) for s in starts
    )
    return sum(parts)


class KernelMeanEmbedding(TransformerMixin, BaseEstimator):
    """Kernel mean embedding of a dataset, optionally differentially private.

    Computes ``μ = (1/n) Σ_i h(x_i)`` under a bounded feature map ``h``; with
    labels, the class-conditional matrix ``μ_c = (1/n) Σ_{i: y_i = c} h(x_i)``
    (the mean of ``h(x) ⊗ onehot(y)``). With ``epsilon`` set, the released
    embedding is ``μ + N(0, σ²Δ² I)`` with ``Δ = 2/n``.

    Read more in the :ref:`User Guide <mean_embedding>`.

    Parameters
    ----------
    features : transformer, default=None
        The feature map: :class:`HermiteFeatures` (the default, order 20,
        length scale 1, sum kernel), :class:`RandomFourierFeatures`, or any
        transformer. An unfitted map is cloned and fitted on ``X`` (our maps
        use only its shape); a fitted one is used as is. Rows of other
        transformers are clipped to norm ≤ 1, which keeps the sensitivity
        only if their transform is row-wise: in a private fit such a map is
        recorded in ``privacy_report_.leaks`` (see :func:`fit_feature_map`).
    epsilon : float, default=None
        Privacy budget ε > 0 of the release; None releases the exact
        embedding (no privacy).
    delta : float, default=1e-5
        Privacy parameter δ in (0, 1), used when ``epsilon`` is set.
    classes : array-like, default=None
        The public list of labels. If None and ``y`` is given, the labels
        present in ``y`` are used, which leaks them (a
        :class:`~skdpgen.privacy.PrivacyLeakWarning` says so when private,
        and ``privacy_report_.leaks`` records it).
    chunk_size : int, default=None
        Rows per streamed chunk; by default about 3·10⁶ feature values.
    n_jobs : int, default=None
        Number of threads computing chunks in parallel; -1 for all cores.

    Attributes
    ----------
    embedding_ : ndarray of shape (n_features_out,) or (n_features_out, n_classes)
        The released (noisy when private) embedding; a matrix when fitted
        with labels.
    features_ : transformer
        The fitted feature map.
    classes_ : ndarray of shape (n_classes,)
        Class labels (only when fitted with ``y``).
    sensitivity_ : float
        Replace-one L2 sensitivity ``Δ = 2/n`` of the embedding.
    noise_multiplier_ : float
        σ: the noise std per coordinate is ``σΔ`` (0 when not private).
    privacy_report_ : PrivacyReport
        What the fit spent (ε = inf when not private) and what leaked.
    n_features_in_ : int
    feature_names_in_ : ndarray of str

    See Also
    --------
    HermiteFeatures, RandomFourierFeatures

    Notes
    -----
    **Sensitivity.** Neighbouring datasets have the same number of rows ``n``
    and differ in one record ``(x, y) → (x', y')``. Only the columns of ``y``
    and ``y'`` change: column ``y`` by ``−h(x)/n`` and column ``y'`` by
    ``+h(x')/n``. If ``y = y'`` the change has norm ``‖h(x) − h(x')‖/n ≤ 2/n``;
    otherwise ``sqrt(‖h(x)‖² + ‖h(x')‖²)/n ≤ sqrt(2)/n``. Since
    ``‖h(·)‖ ≤ 1`` for every input, the Frobenius sensitivity of the whole
    (features × classes) matrix is ``Δ = 2/n``, and the Gaussian mechanism
    with ``σ`` from :func:`skdpgen.privacy.calibrate_gaussian` is
    (ε, δ)-DP.

    **What is public.** The number of rows ``n`` is treated as public, as in
    DP-MERF and DP-HP; so are the feature map's hyperparameters and the class
    list when passed as ``classes``. The noise is drawn from fresh
    operating-system entropy at every fit (see :mod:`skdpgen.privacy`); the
    estimator has no ``random_state`` because nothing else in it is random
    (a random feature map has its own).

    **Memory.** ``fit`` streams over row chunks: memory is
    O(chunk × features + features × classes), not O(n × features).

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen import HermiteFeatures, KernelMeanEmbedding
    >>> X = np.random.default_rng(0).uniform(-1, 1, size=(1000, 3))
    >>> kme = KernelMeanEmbedding(features=HermiteFeatures(order=5), epsilon=1.0).fit(X)
    >>> kme.embedding_.shape
    (18,)
    >>> kme.sensitivity_
    0.002
    >>> round(kme.privacy_report_.epsilon, 3)
    1.0
    """

    _parameter_constraints: dict = {
        "features": [None, HasMethods(["fit", "transform"])],
        "epsilon": [None, Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, 0, 1, closed="neither")],
        "classes": [None, "array-like"],
        "chunk_size": [None, Interval(Integral, 1, None, closed="left")],
        "n_jobs": [None, Integral],
    }

    def __init__(
        self,
        *,
        features=None,
        epsilon=None,
        delta=1e-5,
        classes=None,
        chunk_size=None,
        n_jobs=None,
    ):
        self.features = features
        self.epsilon = epsilon
        self.delta = delta
        self.classes = classes
        self.chunk_size = chunk_size
        self.n_jobs = n_jobs

    def _fit_features(self, X, dask=False):
        features = self.features if self.features is not None else HermiteFeatures()
        return fit_feature_map(features, X, private=self.epsilon is not None, dask=dask)

    def _encode_labels(self, y, n, rows=None):
        if not is_dask_collection(y):
            y = np.asarray(y)
            if rows is None and (y.ndim != 1 or y.shape[0] != n):  # rows.codes checks its own
                raise ValueError(f"y must be 1-D with {n} entries, got shape {y.shape}.")
            check_classification_targets(y)
        if self.classes is not None:
            classes = np.asarray(self.classes)
            if classes.ndim != 1 or classes.size == 0 or np.unique(classes).size != classes.size:
                raise ValueError("classes must be a non-empty 1-D list of distinct labels.")
        else:
            classes = self._classes_from_data(y)
        if rows is not None:  # Dask rows: codes per block, computed where they live
            return classes, rows.codes(y, lambda block: encode_labels(block, classes))
        return classes, encode_labels(y, classes)

    def _classes_from_data(self, y):
        if self.epsilon is not None:
            record_leak(
                "classes",
                "The class list was taken from the private labels y and is "
                "released with the embedding without privacy. Pass "
                "classes=[...] (the public list of possible labels) to avoid this.",
                stacklevel=5,
            )
        return unique_labels(y) if is_dask_collection(y) else np.unique(y)

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y=None):
        """Compute (and, with ``epsilon``, privatize) the mean embedding.

        Parameters
        ----------
        X : array-like, Dask array or Dask DataFrame of shape (n_samples, n_features)
            Finite values; NaN or inf raise ``ValueError``. A Dask collection
            is summed partition by partition on the active Dask scheduler
            (see :ref:`dask`); only the (features × classes) sums come back.
        y : array-like, Dask array or Dask Series of shape (n_samples,), default=None
            Class labels for the class-conditional embedding; with Dask ``X``,
            partitioned like ``X``.

        Returns
        -------
        self : object
        """
        with fit_transaction(self), leak_ledger() as leaks:  # nothing half-fitted on failure
            return self._fit(X, y, leaks)

    def _fit(self, X, y, leaks):
        rows = None
        if isinstance(X, DaskRows) or is_dask_collection(X):
            rows = DaskRows.from_collection(X)
            _check_n_features(self, meta(X), reset=True)
            _check_feature_names(self, meta(X), reset=True)
            X = np.zeros((1, rows.n_columns))  # the maps use only the shape
            n = None  # counted in the pass that sums the features
        else:
            X = validate_data(self, X, dtype=[np.float64, np.float32])
            n = X.shape[0]
        features = self._fit_features(X, dask=rows is not None)
        if y is None:
            classes, codes, n_classes = None, None, 1
        else:
            classes, codes = self._encode_labels(y, n, rows)
            n_classes = classes.size
        if rows is not None:
            X = rows
        sums = feature_sums(
            features, X, codes, n_classes, chunk_size=self.chunk_size, n_jobs=self.n_jobs
        )
        if rows is not None:
            n = len(rows)
            if n < 1:
                raise ValueError("X has no rows.")
        mean = sums / n
        if y is None:
            mean = mean[:, 0]
        sensitivity = 2.0 / n
        if self.epsilon is None:
            report = PrivacyReport(
                [GaussianRelease("mean embedding", sensitivity, 0.0)], self.delta, leaks=leaks
            )
            embedding, noise_multiplier = mean, 0.0
        else:
            accountant = GaussianAccountant(self.epsilon, self.delta, {"mean embedding": 1.0})
            embedding = accountant.add_noise("mean embedding", mean, sensitivity=sensitivity)
            report = accountant.report(leaks)
            noise_multiplier = accountant.noise_multipliers["mean embedding"]
        self.features_ = features
        if classes is not None:
            self.classes_ = classes
        self.embedding_ = embedding
        self.sensitivity_ = sensitivity
        self.noise_multiplier_ = noise_multiplier
        self.privacy_report_ = report
        return self

    def transform(self, X):
        """Feature map of ``X``.

        Parameters
        ----------
        X : array-like, Dask array or Dask DataFrame of shape (n_samples, n_features)

        Returns
        -------
        X_new : ndarray or Dask array of shape (n_samples, n_features_out)
            A lazy Dask array for Dask input.
        """
        check_is_fitted(self)
        X = self._validate_rows(X)
        if isinstance(X, DaskRows):
            return X.to_array(self.features_.transform)
        return self.features_.transform(X)

    def _validate_rows(self, X):
        """Validated ndarray, or DaskRows for a Dask collection."""
        if is_dask_collection(X):
            _check_n_features(self, meta(X), reset=False)
            _check_feature_names(self, meta(X), reset=False)
            return DaskRows.from_collection(X)
        return validate_data(self, X, reset=False, dtype=[np.float64, np.float32])

    def score(self, X, y=None):
        """Negative squared MMD between ``X`` and the released embedding.

        Parameters
        ----------
        X : array-like, Dask array or Dask DataFrame of shape (n_samples, n_features)
        y : array-like of shape (n_samples,), default=None
            With labels (and an embedding fitted with labels) the
            class-conditional matrices are compared; without, the marginal
            embeddings (the released matrix summed over classes). With Dask
            ``X``, a Dask array or Series partitioned like ``X``.

        Returns
        -------
        score : float
            ``−‖μ_X − μ̃‖²`` under the feature map; higher is better.
        """
        check_is_fitted(self)
        X = self._validate_rows(X)
        n = X.shape[0]
        released = self.embedding_
        if y is not None and hasattr(self, "classes_"):
            classes = self.classes_
            if isinstance(X, DaskRows):
                codes = X.codes(y, lambda block: encode_labels(block, classes))
            else:
                codes = encode_labels(np.asarray(y), classes)
            mine = feature_sums(
                self.features_, X, codes, classes.size, chunk_size=self.chunk_size,
                n_jobs=self.n_jobs,
            ) / n
        else:
            mine = feature_sums(
                self.features_, X, chunk_size=self.chunk_size, n_jobs=self.n_jobs
            )[:, 0] / n
            if released.ndim == 2:
                released = released.sum(axis=1)
        return -float(np.sum((mine - released) ** 2))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        tags.target_tags.required = False
        return tags


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
    """
    lookup = {c: i for i, c in enumerate(classes.tolist())}
    uniques, inverse = np.unique(y, return_inverse=True)
    index = [lookup.get(u, -1) for u in uniques.tolist()]
    unknown = [u for u, i in zip(uniques.tolist(), index) if i < 0]
    if unknown:
        raise ValueError(
            f"y contains labels that are not in classes: {unknown[:5]}; the class "
            "list must be complete."
        )
    return np.asarray(index, dtype=np.intp)[inverse.reshape(-1)]


def mmd2(X, Y, *, features):
    """Squared MMD between two samples under a bounded feature map, in linear time.

    ``‖(1/n) Σ_i h(x_i) − (1/m) Σ_j h(y_j)‖²``: the biased (V-statistic)
    estimate of MMD² for the kernel ``k(x, y) = h(x)ᵀh(y)``.

    Parameters
    ----------
    X : array-like of shape (n, n_features)
    Y : array-like of shape (m, n_features)
    features : transformer
        Fitted, or unfitted (then cloned and fitted on ``X``'s shape).

    Returns
    -------
    mmd2 : float

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen import RandomFourierFeatures
    >>> from skdpgen.embedding import mmd2
    >>> X = np.zeros((5, 2))
    >>> mmd2(X, X, features=RandomFourierFeatures(n_components=10, random_state=0))
    0.0
    """
    X = check_array(X, dtype=np.float64, input_name="X")
    Y = check_array(Y, dtype=np.float64, input_name="Y")
    if X.shape[1] != Y.shape[1]:
        raise ValueError(f"X has {X.shape[1]} columns but Y has {Y.shape[1]}.")
    try:
        check_is_fitted(features)
    except NotFittedError:
        features = clone(features).fit(X)
    n_in = getattr(features, "n_features_in_", X.shape[1])
    if n_in != X.shape[1]:
        raise ValueError(f"The fitted feature map expects {n_in} columns, X has {X.shape[1]}.")
    diff = feature_sums(features, X)[:, 0] / X.shape[0] - feature_sums(features, Y)[:, 0] / Y.shape[0]
    return float(diff @ diff)
