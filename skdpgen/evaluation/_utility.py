"""Downstream utility of synthetic data: train on synthetic, test on real."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import warnings

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.base import clone
from sklearn.compose import ColumnTransformer
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.ensemble import (
    AdaBoostClassifier,
    BaggingClassifier,
    GradientBoostingClassifier,
    HistGradientBoostingClassifier,
    RandomForestClassifier,
)
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import (
    accuracy_score,
    average_precision_score,
    f1_score,
    r2_score,
    roc_auc_score,
)
from sklearn.naive_bayes import BernoulliNB, GaussianNB
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import LabelEncoder, OneHotEncoder, StandardScaler
from sklearn.svm import LinearSVC
from sklearn.tree import DecisionTreeClassifier

from ..schema import is_categorical_dtype, paired_frames

__all__ = ["downstream_utility", "paper_models"]

XGBOOST_STAND_IN = "xgboost (stand-in: HistGradientBoosting)"


def _import_xgboost():
    """The :mod:`xgboost` module, or None when it cannot be imported."""
    try:
        import xgboost
    except ImportError:
        return None
    return xgboost


def paper_models(random_state=0):
    """The twelve classifiers of the DP-HP paper's tabular benchmark, unfitted.

    Settings are the base models of the authors' released evaluation code
    (see Notes of :func:`downstream_utility`); every model with a
    ``random_state`` parameter gets ``random_state``, the same for all.

    The twelfth model is the real XGBoost classifier when :mod:`xgboost`
    can be imported (``pip install "skdpgen[xgboost]"``, which installs the
    CPU-only ``xgboost-cpu`` wheel on Linux and Windows and ``xgboost`` on
    macOS): ``xgboost.XGBClassifier(learning_rate=0.5, n_estimators=100,
    max_depth=6, tree_method="hist", n_jobs=1)``, the paper's setting with
    xgboost's default tree count and depth written out, on one thread
    (:func:`downstream_utility` parallelizes over models). Otherwise it is
    the fallback ``HistGradientBoostingClassifier(learning_rate=0.5,
    max_iter=100, max_depth=6, max_leaf_nodes=None, early_stopping=False)``
    (same learning rate, tree count and depth), named
    ``"xgboost (stand-in: HistGradientBoosting)"`` so that tables say which
    one was used.

    Parameters
    ----------
    random_state : int, RandomState instance or None, default=0
        Seed of the stochastic models.

    Returns
    -------
    models : dict
        Model name -> unfitted estimator, in the paper's order. The last
        entry is ``"xgboost"`` (an ``xgboost.XGBClassifier``) when
        :mod:`xgboost` can be imported, else
        ``"xgboost (stand-in: HistGradientBoosting)"``.

    Examples
    --------
    >>> from skdpgen.evaluation import paper_models
    >>> models = paper_models()
    >>> len(models)
    12
    >>> list(models)[:3]
    ['logistic regression', 'gaussian naive bayes', 'bernoulli naive bayes']
    """
    models = {
        "logistic regression": LogisticRegression(),
        "gaussian naive bayes": GaussianNB(),
        "bernoulli naive bayes": BernoulliNB(),
        "linear svm": LinearSVC(),
        "decision tree": DecisionTreeClassifier(),
        "lda": LinearDiscriminantAnalysis(),
        "adaboost": AdaBoostClassifier(),
        "bagging": BaggingClassifier(),
        "random forest": RandomForestClassifier(),
        "gradient boosting": GradientBoostingClassifier(subsample=0.1, n_estimators=50),
        "mlp": MLPClassifier(),
    }
    xgboost = _import_xgboost()
    if xgboost is None:
        # Same learning rate and tree count as the paper's XGBClassifier
        # (learning_rate=0.5, xgboost's default 100 trees of depth 6),
        # depth-wise trees without early stopping, as xgboost grows them.
        models[XGBOOST_STAND_IN] = HistGradientBoostingClassifier(
            learning_rate=0.5,
            max_iter=100,
            max_depth=6,
            max_leaf_nodes=None,
            early_stopping=False,
        )
    else:
        # The paper's XGBClassifier(learning_rate=0.5), with xgboost's
        # default 100 trees of depth 6 written out (defaults change between
        # releases), the histogram method, and one thread: downstream_utility
        # runs the models in parallel itself.
        models["xgboost"] = xgboost.XGBClassifier(
            learning_rate=0.5,
            n_estimators=100,
            max_depth=6,
            tree_method="hist",
            n_jobs=1,
            verbosity=0,
        )
    for model in models.values():
        if "random_state" in model.get_params(deep=False):
            model.set_params(random_state=random_state)
    return models


def preprocessor(frame):
    """One-hot for categorical columns, standardization for numeric ones.

    Columns are addressed by position, so the same transformer applies to the
    aligned test frame. It is fitted on the synthetic (training) data only.
    A missing value (NaN, None) of a categorical column is a category of its
    own; one of a numeric column is imputed with the training median, and
    a missing-indicator column is added for each numeric column with missing
    values in training (an identity on complete tables).
    """
    cat = [i for i, c in enumerate(frame.columns) if is_categorical_dtype(frame[c].dtype)]
    num = [i for i in range(frame.shape[1]) if i not in cat]
    steps = []
    if num:
        numeric = Pipeline([
            ("impute", SimpleImputer(strategy="median", add_indicator=True,
                                     keep_empty_features=True)),
            ("scale", StandardScaler()),
        ])
        steps.append(("numeric", numeric, num))
    if cat:
        steps.append(
            (
                "categorical",
                OneHotEncoder(handle_unknown="ignore", sparse_output=False),
                cat,
            )
        )
    return ColumnTransformer(steps, sparse_threshold=0.0)


def positive_scores(pipe, X, pos_code):
    """Continuous score of the positive class (code ``pos_code`` in 0/1)."""
    if hasattr(pipe, "predict_proba"):
        proba = pipe.predict_proba(X)
        return proba[:, list(pipe.classes_).index(pos_code)]
    if hasattr(pipe, "decision_function"):
        dec = np.asarray(pipe.decision_function(X), dtype=float).reshape(len(X), -1)
        if dec.shape[1] == 2:  # one column per class
            return dec[:, list(pipe.classes_).index(pos_code)]
        # decision_function scores classes_[1]
        return dec[:, 0] if pipe.classes_[1] == pos_code else -dec[:, 0]
    raise TypeError(
        f"{type(pipe[-1]).__name__} has neither predict_proba nor decision_function; "
        'use score="hard".'
    )


def _fit_and_score(model, X_syn, y_syn_codes, X_test, y_test, encoder, binary, pos_label, score):
    pipe = Pipeline([("preprocess", preprocessor(X_syn)), ("model", clone(model))])
    pipe.fit(X_syn, y_syn_codes)
    pred = encoder.inverse_transform(np.asarray(pipe.predict(X_test)).astype(int))
    if not binary:
        present = np.unique(y_test)  # macro over the classes the test set holds
        return {
            "f1_macro": f1_score(y_test, pred, labels=present, average="macro",
                                 zero_division=0.0),
            "f1_weighted": f1_score(y_test, pred, average="weighted", zero_division=0.0),
            "accuracy": accuracy_score(y_test, pred),
        }
    truth = y_test == pos_label
    if score == "hard":
        s = (pred == pos_label).astype(float)
    elif pos_label not in encoder.classes_:  # never a synthetic label: never predicted
        s = np.zeros(len(truth))
    else:
        pos_code = int(encoder.transform([pos_label])[0])
        s = positive_scores(pipe, X_test, pos_code)
    return {"roc_auc": roc_auc_score(truth, s), "pr_auc": average_precision_score(truth, s)}


def downstream_utility(
    X_synthetic,
    y_synthetic,
    X_test,
    y_test,
    *,
    models="paper",
    score="proba",
    pos_label=None,
    classes=None,
    n_jobs=None,
    random_state=0,
):
    """Scores of classifiers trained on synthetic data and tested on real data.

    The "synthetic-to-real" utility of a synthetic dataset: each model is
    fitted on ``(X_synthetic, y_synthetic)`` and scored on the real held-out
    ``(X_test, y_test)``. Called with the real *training* data in place of the
    synthetic data, it gives the reference ("real-to-real") row to compare
    with.

    Parameters
    ----------
    X_synthetic : array-like or DataFrame of shape (n_synthetic, n_features)
        Training features. DataFrames may hold categorical, object, string or
        bool columns.
    y_synthetic : array-like of shape (n_synthetic,)
        Training labels, of any type (strings are fine).
    X_test : array-like or DataFrame of shape (n_test, n_features)
        Real test features: the same columns as ``X_synthetic`` (DataFrame
        columns are matched by name, arrays by position).
    y_test : array-like of shape (n_test,)
        Real test labels.
    models : "paper" or dict, default="paper"
        ``"paper"``: the twelve classifiers of the DP-HP paper (see
        :func:`paper_models` and Notes). A dict maps row names to unfitted
        scikit-learn classifiers, which are cloned and used as given.
    score : {"proba", "hard"}, default="proba"
        For binary labels: ``"proba"`` ranks test rows by ``predict_proba``
        (or ``decision_function`` when a model has no ``predict_proba``) for
        ROC-AUC and PR-AUC; ``"hard"`` uses the 0/1 predictions instead, as
        the DP-HP paper did, for comparison with its tables. Multiclass scores
        use predictions either way.
    pos_label : object, default=None
        Positive class of a binary problem. By default the larger of the two
        labels in sorted order of the union of ``y_synthetic`` and ``y_test``
        (``1`` for 0/1 labels, ``">50K"`` for Adult's ``["<=50K", ">50K"]``),
        or the last of ``classes``.
    classes : array-like, default=None
        The problem's class list (a public one, such as a schema's target
        categories): two classes make it binary, more multiclass, whatever
        labels the two datasets hold (a synthetic table that lacks a class,
        or holds a stray label, does not change the metric). By default the
        union of ``y_synthetic`` and ``y_test``.
    n_jobs : int, default=None
        Number of models fitted in parallel (joblib; ``None`` means 1).
    random_state : int, RandomState instance or None, default=0
        Seed of the stochastic ``"paper"`` models; dict models are not
        modified.

    Returns
    -------
    scores : DataFrame
        One row per model (index named ``"model"``) and a final ``"mean"``
        row, the mean over the models (ignoring NaN). Columns ``"roc_auc"``
        and ``"pr_auc"`` (average precision) when there are two classes
        (``classes``, else the union of labels), else ``"f1_macro"`` (the
        unweighted mean of the F1 scores of the classes ``y_test`` holds),
        ``"f1_weighted"`` (support-weighted F1) and ``"accuracy"``.

    Warns
    -----
    UserWarning
        When ``y_synthetic`` holds a single class: no classifier can be
        trained, every score is NaN.

    See Also
    --------
    marginal_tv_distance : Fidelity of low-order marginals.
    mmd2 : Kernel two-sample distance between real and synthetic data.

    Notes
    -----
    **Preprocessing.** A column transformer is fitted on the synthetic
    training data only, never on the test set: categorical, object, string
    and bool columns are one-hot encoded (categories unseen in training are
    encoded as all zeros at test time), numeric columns are standardized.
    Missing values (NaN, None) are a category of their own in a categorical
    column; in a numeric column they are imputed with the training median,
    with a missing-indicator column added when training holds any.
    Labels are encoded with the classes of ``y_synthetic``; test labels that
    never occur in it are simply never predicted.

    **No selection on the test set.** Each model is fitted once with fixed
    settings; no hyperparameter is tuned, on the test set or otherwise.

    **The "paper" models** (Vinaroz et al., ICML 2022, the tabular benchmark,
    following DP-MERF) are those constructed as the base list of the
    authors' released evaluation code (``test_models`` in
    ``dp_mehp/all_aux_files_tab_data.py`` of github.com/ParkLabML/DP-HP):
    scikit-learn defaults for logistic regression, Gaussian and Bernoulli
    naive Bayes, linear SVM (``LinearSVC``), decision tree, LDA, AdaBoost,
    bagging, random forest and MLP; ``GradientBoostingClassifier(subsample=0.1,
    n_estimators=50)``; ``XGBClassifier(learning_rate=0.5)``. The stochastic
    ones get ``random_state``. That code also refits several alternative
    settings per model and keeps the best *test* score, a selection on the
    test set that this function deliberately does not reproduce (so its
    numbers can be lower than the paper's). Defaults are those of the
    installed scikit-learn, which may differ from the versions the paper
    used. The XGBoost row is the real ``xgboost.XGBClassifier`` when
    :mod:`xgboost` is installed (the ``xgboost`` extra:
    ``pip install "skdpgen[xgboost]"``), with ``n_estimators=100,
    max_depth=6`` (xgboost's defaults) written out, ``tree_method="hist"``
    and ``n_jobs=1``. Only when it is not installed is it replaced by
    ``HistGradientBoostingClassifier(learning_rate=0.5, max_iter=100,
    max_depth=6, max_leaf_nodes=None, early_stopping=False)`` (xgboost's
    default tree count and depth), named
    ``"xgboost (stand-in: HistGradientBoosting)"``; see :func:`paper_models`.

    **PR-AUC of hard predictions depends on the base rate.** With 0/1 scores
    the average precision is ``recall · precision + (1 − recall) · π``, with
    π the share of positives in the test set. The authors' data loader keeps
    only a random 40% of Adult's "<=50K" rows (π ≈ 0.44 instead of 0.24), so
    their PRC figures compare only with a test set undersampled the same way
    (``benchmarks/bench_adult.py --protocol paper``).

    References
    ----------
    M. Vinaroz, M.-A. Charusaie, F. Harder, K. Adamczewski, M. J. Park.
    "Hermite Polynomial Features for Private Data Generation." ICML 2022.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from skdpgen.evaluation import downstream_utility
    >>> X = np.arange(10.0).reshape(-1, 1)
    >>> y = np.where(X[:, 0] >= 5, "yes", "no")
    >>> models = {"logreg": LogisticRegression()}
    >>> reference = downstream_utility(X, y, X, y, models=models)  # real-to-real
    >>> reference  # doctest: +NORMALIZE_WHITESPACE
            roc_auc  pr_auc
    model
    logreg      1.0     1.0
    mean        1.0     1.0

    Synthetic labels with a shifted boundary: the probabilities still rank the
    real test rows perfectly, the hard predictions do not.

    >>> y_synthetic = np.where(X[:, 0] >= 8, "yes", "no")
    >>> float(downstream_utility(X, y_synthetic, X, y, models=models).loc["logreg", "roc_auc"])
    1.0
    >>> downstream_utility(X, y_synthetic, X, y, models=models, score="hard").loc["logreg"]
    roc_auc    0.6
    pr_auc     0.6
    Name: logreg, dtype: float64
    """
    if score not in ("proba", "hard"):
        raise ValueError(f'score must be "proba" or "hard", got {score!r}.')
    X_syn, X_te = paired_frames(X_synthetic, X_test, names=("X_synthetic", "X_test"))
    y_syn = np.asarray(y_synthetic).ravel()
    y_te = np.asarray(y_test).ravel()
    if len(y_syn) != len(X_syn) or len(y_te) != len(X_te):
        raise ValueError("X and y must have the same number of rows.")

    if isinstance(models, str):
        if models != "paper":
            raise ValueError(f'models must be "paper" or a dict, got {models!r}.')
        models = paper_models(random_state)
    elif not isinstance(models, dict) or not models:
        raise TypeError("models must be 'paper' or a non-empty dict name -> estimator.")

    if classes is None:
        labels = np.unique(np.concatenate([y_syn, y_te]))
    else:
        labels = np.asarray(list(classes))
    if len(labels) < 2:
        raise ValueError(f"The labels hold a single class {labels.tolist()}; nothing to score.")
    binary = len(labels) == 2
    columns = ["roc_auc", "pr_auc"] if binary else ["f1_macro", "f1_weighted", "accuracy"]
    if binary:
        if pos_label is None:
            pos_label = labels[-1]
        elif pos_label not in labels.tolist():
            raise ValueError(
                f"pos_label={pos_label!r} is not one of the labels {labels.tolist()}."
            )
        if len(np.unique(y_te)) < 2:
            raise ValueError("y_test holds a single class: ROC-AUC and PR-AUC are undefined.")

    encoder = LabelEncoder().fit(y_syn)
    if len(encoder.classes_) < 2:
        warnings.warn(
            f"y_synthetic holds a single class {encoder.classes_.tolist()}: no classifier "
            "can be trained, all scores are NaN.",
            UserWarning,
            stacklevel=2,
        )
        rows = [{c: np.nan for c in columns} for _ in models]
    else:
        codes = encoder.transform(y_syn)
        rows = Parallel(n_jobs=n_jobs)(
            delayed(_fit_and_score)(
                model, X_syn, codes, X_te, y_te, encoder, binary, pos_label, score
            )
            for model in models.values()
        )
    return score_table(rows, models, columns)


def score_table(rows, models, columns):
    """One row of scores per model and a final ``"mean"`` row (ignoring NaN)."""
    table = pd.DataFrame(rows, index=pd.Index(list(models), name="model"), columns=columns)
    table = table.astype(float)
    table.loc["mean"] = table.mean(axis=0, skipna=True)
    return table


def regression_utility(X_train, y_train, X_test, y_test, *, models):
    """R² of regressors trained on one table and tested on another.

    The regression counterpart of :func:`downstream_utility`, with the same
    preprocessing (fitted on the training table only) and the same table:
    one row per model, a final ``"mean"`` row, and one column ``"r2"``.
    """
    X_tr, X_te = paired_frames(X_train, X_test, names=("X_train", "X_test"))
    y_tr = np.asarray(y_train, dtype=float).ravel()
    y_te = np.asarray(y_test, dtype=float).ravel()
    rows = []
    for model in models.values():
        pipe = Pipeline([("preprocess", preprocessor(X_tr)), ("model", clone(model))])
        pipe.fit(X_tr, y_tr)
        rows.append({"r2": r2_score(y_te, pipe.predict(X_te))})
    return score_table(rows, models, ["r2"])
