"""The (optionally differentially private) kernel mean embedding of a dataset."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

from numbers import Integral, Real

import numpy as np
from sklearn.base import TransformerMixin
from sklearn.utils import check_array
from sklearn.utils._param_validation import HasMethods, Interval
from sklearn.utils.validation import check_is_fitted

from .base import PrivateEstimator
from .privacy import score_without_noise
from .kernels import HermiteFeatures, prepare_feature_map
from .rows import chunk_feature_sums, make_rows, release_mean_embedding

__all__ = ["KernelMeanEmbedding", "mmd2"]


class KernelMeanEmbedding(TransformerMixin, PrivateEstimator):
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
        recorded in ``privacy_report_.leaks`` (see
        :func:`skdpgen.kernels.prepare_feature_map`).
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
        Rows per streamed chunk; by default about 10⁶ feature values (8 MB).
    n_jobs : int, default=None
        Number of threads summing the chunks; -1 for all cores, None for
        joblib's active setting (one thread unless inside
        ``joblib.parallel_config(n_jobs=...)``). It is the number of threads
        the fit keeps busy: with more than one, BLAS, OpenMP and torch run
        one thread each inside the sums (restored afterwards). See
        :ref:`performance`.

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
    epsilon_, delta_ : float
        The budget of the fit (``epsilon_`` is inf when not private).
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
    _epsilon_optional = True

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

    def fit(self, X, y=None, *, epsilon=None, delta=None):
        """Compute (and, with ``epsilon``, privatize) the mean embedding.

        Parameters
        ----------
        X : array-like, Dask array or Dask DataFrame of shape (n_samples, n_features)
            Numbers in any form; each cell is read by its canonical form
            (a number or bool by its value, ±inf clamped to the largest
            float, any other cell — missing, text, a date — as 0 in its own
            row), so no value makes a fit fail. A Dask collection
            is summed partition by partition on the active Dask scheduler
            (see :ref:`dask`); only the (features × classes) sums come back.
        y : array-like, Dask array or Dask Series of shape (n_samples,), default=None
            Class labels for the class-conditional embedding; with Dask ``X``,
            partitioned like ``X``.
        epsilon, delta : float, default=None
            Budget of this fit; override the constructor's (left unchanged).

        Returns
        -------
        self : object
        """
        return super().fit(X, y, epsilon=epsilon, delta=delta)

    def _fit_private(self, X, y, budget):
        rows = make_rows(self, X, y, reset=True, classes=self.classes, private=budget.private,
                         chunk_size=self.chunk_size, n_jobs=self.n_jobs)
        features = rows.prepare_feature_map(
            HermiteFeatures() if self.features is None else self.features,
            private=budget.private,
        )
        accountant = budget.plan({"mean embedding": 1.0})
        noisy, self.sensitivity_ = release_mean_embedding(
            rows, features, accountant, "mean embedding", by_class=y is not None)
        self.embedding_ = noisy if y is not None else noisy[:, 0]
        self.features_ = features
        if y is not None:
            self.classes_ = rows.classes
        self.noise_multiplier_ = accountant.noise_multipliers["mean embedding"]

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
        return make_rows(self, X, reset=False).map_rows(self.features_.transform)

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
            ``−‖μ_X − μ̃‖²`` under the feature map; higher is better. A
            data-holder diagnostic: it reads ``X`` without noise (inside a
            :class:`~skdpgen.privacy.PrivacyBudget` it is recorded as a leak).
        """
        check_is_fitted(self)
        score_without_noise(f"{type(self).__name__}.score")
        labeled = y is not None and hasattr(self, "classes_")
        rows = make_rows(self, X, y if labeled else None, reset=False,
                         classes=self.classes_ if labeled else None,
                         chunk_size=self.chunk_size, n_jobs=self.n_jobs)
        mine = rows.feature_sums(self.features_) / rows.n_rows
        released = self.embedding_
        if not labeled:
            mine = mine[:, 0]
            if released.ndim == 2:
                released = released.sum(axis=1)
        return -float(np.sum((mine - released) ** 2))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        tags.target_tags.required = False
        tags.input_tags.allow_nan = True  # any cell is read (canonical forms)
        tags.input_tags.string = True
        return tags


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
    features = prepare_feature_map(features, X, private=False)
    diff = (chunk_feature_sums(features, X)[:, 0] / X.shape[0]
            - chunk_feature_sums(features, Y)[:, 0] / Y.shape[0])
    return float(diff @ diff)
