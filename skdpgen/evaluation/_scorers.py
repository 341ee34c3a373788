"""Scorers for model selection of synthesizers (``GridSearchCV(scoring=...)``)."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, roc_auc_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import LabelEncoder

from ..privacy import score_without_noise
from ..utils import check_generator
from ._fidelity import mmd2
from ..schema import paired_frames
from ._utility import positive_scores, preprocessor

__all__ = ["neg_mmd2_scorer", "synthetic_to_real_scorer"]


def _draw(estimator, n, random_state):
    """``estimator.sample(n)``: ``(X, y)``, ``y`` None without labels."""
    return estimator.sample(n, random_state=check_generator(random_state))


class _NegMMD2Scorer:
    def __init__(self, length_scale, features, encode, random_state):
        self.length_scale = length_scale
        self.features = features
        self.encode = encode
        self.random_state = random_state

    def __call__(self, estimator, X, y=None):
        score_without_noise("neg_mmd2_scorer")
        X_syn, _ = _draw(estimator, len(X), self.random_state)
        encode = self.encode
        if encode == "auto":
            encode = isinstance(X, pd.DataFrame)
        if encode:
            encoder = getattr(estimator, "encoder_", None)
            if encoder is None:
                raise AttributeError(
                    f"{type(estimator).__name__} has no public encoding encoder_; "
                    "pass numeric arrays and encode=False."
                )
            A, B = encoder.transform(X), encoder.transform(X_syn)
        else:
            A, B = np.asarray(X, dtype=np.float64), np.asarray(X_syn, dtype=np.float64)
        if self.features is None:
            return -mmd2(A, B, length_scale=self.length_scale)
        return -mmd2(A, B, features=self.features)

    def __repr__(self):
        kernel = (
            f"features={self.features!r}" if self.features is not None
            else f"length_scale={self.length_scale!r}"
        )
        return f"neg_mmd2_scorer({kernel}, encode={self.encode!r}, random_state={self.random_state!r})"


def neg_mmd2_scorer(*, length_scale=1.0, features=None, encode="auto", random_state=0):
    """Scorer: minus the squared MMD between held-out data and a synthetic sample.

    For ``GridSearchCV(scoring=...)`` over synthesizers (higher is better).
    On each validation fold ``X`` it draws ``len(X)`` synthetic rows with
    ``estimator.sample`` and returns ``−MMD²(X, X_synthetic)`` computed by
    :func:`skdpgen.evaluation.mmd2`: exactly under the Gaussian kernel of
    length scale ``length_scale``, or through the feature map ``features``.

    Parameters
    ----------
    length_scale : float or array-like of shape (n_features,), default=1.0
        Length scale of the exact Gaussian-kernel MMD (on the encoding, when
        encoding).
    features : transformer, default=None
        A bounded feature map (e.g. ``RandomFourierFeatures(n_components=2000,
        random_state=0)``) for a linear-time MMD instead of the exact one;
        then ``length_scale`` must stay 1 (set the map's length scale).
    encode : "auto" or bool, default="auto"
        Compare the estimator's public encoding ``estimator.encoder_.transform``
        of both tables (numeric columns mapped onto [-1, 1] by their public
        bounds, categorical columns one-hot) instead of the raw values.
        ``"auto"``: encode DataFrames (needed for categorical columns), use
        numeric arrays as they are.
    random_state : int, RandomState instance or None, default=0
        Seeds ``estimator.sample``. An int draws with the same seed on every
        call, so that candidates of a grid are compared on common random
        numbers; None draws fresh samples each time.

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y=None) -> float``. Labels are ignored: the
        distance is between the feature distributions (the estimator's own
        ``score`` compares features and labels jointly).

    See Also
    --------
    synthetic_to_real_scorer : Downstream utility as a scorer.
    private_neg_mmd2_scorer : The same distance to a noisy release of the fold.

    Notes
    -----
    A data-holder diagnostic: the held-out fold is read without noise (inside
    a :class:`~skdpgen.privacy.PrivacyBudget` it is recorded as a leak, and
    the budget's report is not private). A search whose result is released
    scores with :func:`private_neg_mmd2_scorer` inside a budget.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.model_selection import GridSearchCV
    >>> from skdpgen import DPMERFSynthesizer
    >>> from skdpgen.evaluation import neg_mmd2_scorer
    >>> X = np.random.default_rng(0).uniform(0, 1, size=(300, 2))
    >>> scorer = neg_mmd2_scorer(length_scale=0.5)
    >>> synth = DPMERFSynthesizer(bounds=(0, 1), epochs=1, steps_per_epoch=5,
    ...                           n_components=50, random_state=0, device="cpu")
    >>> bool(scorer(synth.fit(X[:200]), X[200:]) <= 0)  # held-out rows
    True
    >>> search = GridSearchCV(synth, {"learning_rate": [1e-3, 1e-2]}, cv=2,
    ...                       scoring=scorer)  # search.fit(X) runs the grid
    """
    if encode not in ("auto", True, False):
        raise ValueError(f'encode must be "auto", True or False, got {encode!r}.')
    return _NegMMD2Scorer(length_scale, features, encode, random_state)


_METRICS = ("accuracy", "roc_auc")


class _SyntheticToRealScorer:
    def __init__(self, metric, model, n_samples, random_state):
        self.metric = metric
        self.model = model
        self.n_samples = n_samples
        self.random_state = random_state

    def __call__(self, estimator, X, y):
        score_without_noise("synthetic_to_real_scorer")
        if y is None:
            raise ValueError("synthetic_to_real_scorer needs the held-out labels y.")
        n = len(X) if self.n_samples is None else self.n_samples
        X_syn, y_syn = _draw(estimator, n, self.random_state)
        if y_syn is None:
            raise ValueError(
                "synthetic_to_real_scorer needs a synthesizer fitted with labels "
                "(its sample must return (X, y))."
            )
        X_syn, X_test = paired_frames(X_syn, X, names=("X_synthetic", "X_test"))
        y_syn = np.asarray(y_syn).ravel()
        y_test = np.asarray(y).ravel()
        labels = np.unique(np.concatenate([y_syn, y_test]))
        if self.metric == "roc_auc":
            if len(labels) != 2:
                raise ValueError(
                    f'metric="roc_auc" needs binary labels, got {len(labels)} classes; '
                    'use metric="accuracy".'
                )
            pos_label = labels[-1]
            truth = y_test == pos_label
            if truth.all() or not truth.any():
                raise ValueError("The held-out labels hold a single class: ROC-AUC is undefined.")
        encoder = LabelEncoder().fit(y_syn)
        if len(encoder.classes_) < 2:  # nothing to learn: a constant predictor
            only = encoder.classes_[0]
            if self.metric == "accuracy":
                return float(np.mean(y_test == only))
            return 0.5
        model = LogisticRegression(max_iter=1000) if self.model is None else self.model
        pipe = Pipeline([("preprocess", preprocessor(X_syn)), ("model", clone(model))])
        pipe.fit(X_syn, encoder.transform(y_syn))
        if self.metric == "accuracy":
            pred = encoder.inverse_transform(np.asarray(pipe.predict(X_test)).astype(int))
            return float(accuracy_score(y_test, pred))
        if pos_label not in encoder.classes_:  # never predicted: uninformative
            return 0.5
        pos_code = int(encoder.transform([pos_label])[0])
        return float(roc_auc_score(truth, positive_scores(pipe, X_test, pos_code)))

    def __repr__(self):
        return (
            f"synthetic_to_real_scorer(metric={self.metric!r}, model={self.model!r}, "
            f"n_samples={self.n_samples!r}, random_state={self.random_state!r})"
        )


def synthetic_to_real_scorer(metric="accuracy", *, model=None, n_samples=None, random_state=0):
    """Scorer: a classifier trained on synthetic data, scored on the held-out real fold.

    For ``GridSearchCV(scoring=...)`` over synthesizers fitted with labels
    (higher is better). On each validation fold ``(X, y)`` it draws synthetic
    rows and labels with ``estimator.sample``, fits a clone of ``model`` on
    them (numeric columns standardized and categorical ones one-hot encoded,
    fitted on the synthetic rows, as in
    :func:`~skdpgen.evaluation.downstream_utility`) and scores it on
    ``(X, y)``.

    Parameters
    ----------
    metric : {"accuracy", "roc_auc"}, default="accuracy"
        ``"roc_auc"`` needs binary labels; the positive class is the larger
        label in sorted order.
    model : classifier, default=None
        Unfitted scikit-learn classifier; ``LogisticRegression(max_iter=1000)``
        by default. ``"roc_auc"`` uses its ``predict_proba`` (or
        ``decision_function``).
    n_samples : int, default=None
        Number of synthetic training rows; the size of the validation fold by
        default.
    random_state : int, RandomState instance or None, default=0
        Seeds ``estimator.sample`` (an int: the same seed on every call).

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y) -> float``. If the synthetic labels hold a
        single class, the model is a constant predictor: its accuracy, or a
        ROC-AUC of 0.5.

    See Also
    --------
    neg_mmd2_scorer : Distributional distance as a scorer.
    skdpgen.evaluation.downstream_utility : The paper's twelve classifiers.

    Notes
    -----
    A data-holder diagnostic: the held-out fold is read without noise (inside
    a :class:`~skdpgen.privacy.PrivacyBudget` it is recorded as a leak). A
    search whose result is released scores with
    :func:`private_accuracy_scorer` inside a budget.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.model_selection import GridSearchCV
    >>> from skdpgen import DPMERFSynthesizer
    >>> from skdpgen.evaluation import synthetic_to_real_scorer
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(0, 1, size=(300, 2))
    >>> y = (X[:, 0] > 0.5).astype(int)
    >>> scorer = synthetic_to_real_scorer("roc_auc")
    >>> synth = DPMERFSynthesizer(bounds=(0, 1), classes=[0, 1], epochs=1,
    ...                           steps_per_epoch=5, n_components=50,
    ...                           random_state=0, device="cpu")
    >>> auc = scorer(synth.fit(X[:200], y[:200]), X[200:], y[200:])
    >>> bool(0 <= auc <= 1)
    True
    >>> search = GridSearchCV(synth, {"length_scale": [0.5, 2.0]}, cv=2,
    ...                       scoring=scorer)  # search.fit(X, y) runs the grid
    """
    if metric not in _METRICS:
        raise ValueError(f"metric must be one of {_METRICS}, got {metric!r}.")
    if n_samples is not None and (
        isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)) or n_samples < 2
    ):
        raise ValueError(f"n_samples must be an integer >= 2, got {n_samples!r}.")
    return _SyntheticToRealScorer(metric, model, n_samples, random_state)
