import math
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.spatial.distance import cdist
from sklearn.datasets import make_classification
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier

from skdpgen import PrivacyLeakWarning, RandomFourierFeatures
from skdpgen.embedding import mmd2 as feature_mmd2
from skdpgen.kernels import _gaussian
from skdpgen.evaluation import (
    downstream_utility,
    marginal_tv_distance,
    mmd2,
    mmd2_exact,
    paper_models,
)

# ---------------------------------------------------------------------------
# downstream_utility
# ---------------------------------------------------------------------------

X10 = np.arange(10.0).reshape(-1, 1)  # x = 0, 1, ..., 9
Y_REAL = (X10[:, 0] >= 5).astype(int)  # real boundary between 4 and 5
Y_SHIFTED = (X10[:, 0] >= 8).astype(int)  # synthetic boundary between 7 and 8
TREE = {"tree": DecisionTreeClassifier(random_state=0)}


def test_synthetic_equal_to_real_gives_perfect_scores():
    table = downstream_utility(X10, Y_REAL, X10, Y_REAL, models={"lr": LogisticRegression()})
    assert list(table.index) == ["lr", "mean"]
    assert list(table.columns) == ["roc_auc", "pr_auc"]
    assert table.loc["lr", "roc_auc"] == 1.0
    assert table.loc["lr", "pr_auc"] == 1.0


@pytest.mark.parametrize("score", ["proba", "hard"])
def test_shifted_synthetic_matches_hand_computation(score):
    # A tree fitted on the shifted synthetic labels splits between 7 and 8
    # (standardization is monotone, so the split stays there), and predicts
    # positive for x in {8, 9} only. On the real labels (positive: 5..9):
    # TPR = 2/5, FPR = 0, so ROC-AUC = (1 + TPR - FPR) / 2 = 0.7.
    # PR: at the threshold 1, recall 2/5 with precision 1; at 0, recall 1 with
    # precision 5/10: AP = 2/5 * 1 + 3/5 * 1/2 = 0.7.
    # The tree's probabilities are 0/1, so proba and hard scores coincide.
    table = downstream_utility(X10, Y_SHIFTED, X10, Y_REAL, models=TREE, score=score)
    assert table.loc["tree", "roc_auc"] == pytest.approx(0.7)
    assert table.loc["tree", "pr_auc"] == pytest.approx(0.7)
    assert table.loc["mean"].tolist() == pytest.approx([0.7, 0.7])


def test_string_labels_and_pos_label():
    y_syn = np.where(Y_SHIFTED == 1, "yes", "no")
    y_real = np.where(Y_REAL == 1, "yes", "no")
    default = downstream_utility(X10, y_syn, X10, y_real, models=TREE)
    # "yes" > "no": the same numbers as with 0/1 labels (see above)
    assert default.loc["tree"].tolist() == pytest.approx([0.7, 0.7])
    # positive class "no": predicted "no" for 0..7, truly "no" for 0..4:
    # ROC-AUC is symmetric (0.7); precision 5/8 at recall 1, so AP = 0.625.
    flipped = downstream_utility(X10, y_syn, X10, y_real, models=TREE, pos_label="no")
    assert flipped.loc["tree"].tolist() == pytest.approx([0.7, 0.625])
    with pytest.raises(ValueError, match="pos_label"):
        downstream_utility(X10, y_syn, X10, y_real, models=TREE, pos_label="maybe")


def test_hard_and_proba_scores_differ():
    # Logistic regression on the shifted labels: its probability still
    # increases with x, so the ROC-AUC of the probabilities is 1, while its
    # hard predictions miss the real positives 5, 6 (the threshold lies
    # above 5), so their ROC-AUC is below 1.
    models = {"lr": LogisticRegression()}
    proba = downstream_utility(X10, Y_SHIFTED, X10, Y_REAL, models=models, score="proba")
    hard = downstream_utility(X10, Y_SHIFTED, X10, Y_REAL, models=models, score="hard")
    assert proba.loc["lr", "roc_auc"] == 1.0
    assert hard.loc["lr", "roc_auc"] < 0.9


def test_decision_function_is_used_without_predict_proba():
    from sklearn.svm import LinearSVC

    table = downstream_utility(X10, Y_SHIFTED, X10, Y_REAL, models={"svm": LinearSVC()})
    assert table.loc["svm", "roc_auc"] == 1.0  # a monotone score in x
    flipped = downstream_utility(
        X10, Y_SHIFTED, X10, Y_REAL, models={"svm": LinearSVC()}, pos_label=0
    )
    assert flipped.loc["svm", "roc_auc"] == 1.0  # the score is negated for class 0


def test_multiclass_metrics_match_hand_computation():
    # Real classes x // 3: {0,1,2} -> 0, {3,4,5} -> 1, {6,7,8} -> 2.
    # Synthetic boundaries shifted to 3.5 and 6.5: the tree predicts
    # 0 for 0..3, 1 for 4..6, 2 for 7, 8; it errs on x = 3 and x = 6.
    # Accuracy 7/9. Per-class F1 (precision, recall):
    #   0: (3/4, 1) -> 6/7;  1: (2/3, 2/3) -> 2/3;  2: (1, 2/3) -> 4/5,
    # all with support 3, so weighted F1 = (6/7 + 2/3 + 4/5) / 3.
    X = np.arange(9.0).reshape(-1, 1)
    y_real = np.array(["a", "a", "a", "b", "b", "b", "c", "c", "c"])
    y_syn = np.array(["a", "a", "a", "a", "b", "b", "b", "c", "c"])
    for score in ("proba", "hard"):
        table = downstream_utility(X, y_syn, X, y_real, models=TREE, score=score)
        assert list(table.columns) == ["f1_macro", "f1_weighted", "accuracy"]
        assert table.loc["tree", "accuracy"] == pytest.approx(7 / 9)
        assert table.loc["tree", "f1_weighted"] == pytest.approx((6 / 7 + 2 / 3 + 4 / 5) / 3)
        assert table.loc["tree", "f1_macro"] == pytest.approx((6 / 7 + 2 / 3 + 4 / 5) / 3)


def test_classes_fix_the_metric_whatever_the_labels_hold():
    """A stray synthetic label keeps a binary problem binary; a class that the
    synthetic table lacks counts as never predicted in the macro F1."""
    X = np.arange(9.0).reshape(-1, 1)
    y_real = np.array(["a", "a", "a", "b", "b", "b", "a", "b", "a"])
    y_syn = y_real.copy()
    y_syn[0] = "stray"
    union = downstream_utility(X, y_syn, X, y_real, models=TREE)
    assert "f1_macro" in union.columns
    fixed = downstream_utility(X, y_syn, X, y_real, models=TREE, classes=["a", "b"])
    assert list(fixed.columns) == ["roc_auc", "pr_auc"]
    y3 = np.array(["a", "a", "a", "b", "b", "b", "c", "c", "c"])
    lacks_c = np.array(["a", "a", "a", "b", "b", "b", "b", "b", "b"])
    table = downstream_utility(X, lacks_c, X, y3, models=TREE, classes=["a", "b", "c"])
    assert table.loc["tree", "f1_macro"] == pytest.approx((1 + 2 * 3 / 9) / 3)


def test_single_class_synthetic_labels_give_nan_and_warn():
    with pytest.warns(UserWarning, match="single class"):
        table = downstream_utility(X10, np.ones(10), X10, Y_REAL, models=TREE)
    assert list(table.index) == ["tree", "mean"]
    assert table.isna().all().all()


def test_input_errors():
    with pytest.raises(ValueError, match="score"):
        downstream_utility(X10, Y_REAL, X10, Y_REAL, models=TREE, score="soft")
    with pytest.raises(ValueError, match="single class"):
        downstream_utility(X10, Y_REAL, X10, np.ones(10), models=TREE)
    with pytest.raises(ValueError, match="models"):
        downstream_utility(X10, Y_REAL, X10, Y_REAL, models="all")
    with pytest.raises(ValueError, match="columns"):
        downstream_utility(X10, Y_REAL, np.hstack([X10, X10]), Y_REAL, models=TREE)


def test_preprocessing_is_fitted_on_synthetic_data_only():
    # Test rows are the training rows shifted by +100. With the scaler fitted
    # on the synthetic rows, every test row is far on the positive side and
    # predicted positive: hard ROC-AUC 0.5. A scaler fitted on the test set
    # would standardize the test rows back onto the training ones: ROC-AUC 1.
    table = downstream_utility(
        X10, Y_REAL, X10 + 100, Y_REAL, models={"lr": LogisticRegression()}, score="hard"
    )
    assert table.loc["lr", "roc_auc"] == 0.5


def _mixed_frame(colors, sizes, flags):
    return pd.DataFrame(
        {
            "color": pd.Series(colors, dtype=object),
            "size": np.asarray(sizes, dtype=float),
            "flag": np.asarray(flags, dtype=bool),
        }
    )


def test_dataframe_with_categorical_columns_and_unseen_category():
    rng = np.random.default_rng(0)
    colors = rng.choice(["red", "blue"], size=60)
    X_syn = _mixed_frame(colors, rng.normal(size=60), rng.random(60) < 0.5)
    y_syn = np.where(colors == "red", ">50K", "<=50K")
    # the test set has a category never seen in training, and columns in
    # another order
    X_test = _mixed_frame(
        ["red", "blue", "green", "red", "blue", "green"], np.zeros(6), [True] * 6
    )[["flag", "size", "color"]]
    y_test = np.array([">50K", "<=50K", "<=50K", ">50K", "<=50K", ">50K"])
    models = {"lr": LogisticRegression(), "nb": GaussianNB()}
    table = downstream_utility(X_syn, y_syn, X_test, y_test, models=models)
    assert list(table.index) == ["lr", "nb", "mean"]
    assert np.isfinite(table.to_numpy()).all()
    # Red rows (positive) score highest, "green" (all-zero one-hot) in
    # between: 3 positives (2 red, 1 green), 3 negatives (2 blue, 1 green).
    # Of the 9 (positive, negative) pairs, the 2 red positives beat all 3
    # negatives (6 wins), the green positive beats the 2 blue negatives and
    # ties with the green negative (1/2): AUC = (6 + 2 + 1/2) / 9.
    assert table.loc["lr", "roc_auc"] == pytest.approx(8.5 / 9)
    # pandas Categorical and string columns work too
    X_cat = X_syn.assign(color=pd.Categorical(X_syn["color"], categories=["red", "blue"]))
    X_str = X_syn.assign(color=X_syn["color"].astype("string"))
    for X_other in (X_cat, X_str):
        other = downstream_utility(X_other, y_syn, X_test, y_test, models=models)
        pd.testing.assert_frame_equal(other, table)


def test_parallel_models_give_the_same_table():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=80) > 0).astype(int)
    models = {"lr": LogisticRegression(), "tree": DecisionTreeClassifier(random_state=0)}
    serial = downstream_utility(X[:40], y[:40], X[40:], y[40:], models=models)
    parallel = downstream_utility(X[:40], y[:40], X[40:], y[40:], models=models, n_jobs=2)
    pd.testing.assert_frame_equal(serial, parallel)


def test_paper_models():
    models = paper_models(random_state=3)
    assert len(models) == 12
    try:
        import xgboost  # noqa: F401
    except ImportError:
        assert list(models)[-1] == "xgboost (stand-in: HistGradientBoosting)"
    else:
        assert list(models)[-1] == "xgboost"
    for model in models.values():
        if "random_state" in model.get_params():
            assert model.get_params()["random_state"] == 3
    gb = models["gradient boosting"]
    assert (gb.subsample, gb.n_estimators) == (0.1, 50)

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 2))
    y = (X[:, 0] > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence warnings on tiny data
        table = downstream_utility(X[:80], y[:80], X[80:], y[80:])
    assert list(table.index) == list(models) + ["mean"]
    assert np.isfinite(table.to_numpy()).all()
    assert table.loc["mean", "roc_auc"] == pytest.approx(table.iloc[:-1]["roc_auc"].mean())
    assert table.loc["mean", "roc_auc"] > 0.8


def test_paper_models_fallback_without_xgboost(monkeypatch):
    # None in sys.modules makes "import xgboost" raise ImportError, as when
    # the package is not installed
    monkeypatch.setitem(sys.modules, "xgboost", None)
    models = paper_models(random_state=5)
    assert len(models) == 12
    assert "xgboost" not in models
    assert list(models)[-1] == "xgboost (stand-in: HistGradientBoosting)"
    stand_in = models["xgboost (stand-in: HistGradientBoosting)"]
    assert isinstance(stand_in, HistGradientBoostingClassifier)
    params = stand_in.get_params()
    assert (params["learning_rate"], params["max_iter"], params["max_depth"]) == (0.5, 100, 6)
    assert params["max_leaf_nodes"] is None and params["early_stopping"] is False
    assert params["random_state"] == 5

    X, y = make_classification(n_samples=200, n_features=4, random_state=0)
    table = downstream_utility(X[:150], y[:150], X[150:], y[150:],
                               models={"stand-in": stand_in})
    assert table.loc["stand-in", "roc_auc"] > 0.8


def test_paper_models_uses_real_xgboost():
    xgboost = pytest.importorskip("xgboost")
    models = paper_models(random_state=7)
    assert len(models) == 12
    assert list(models)[-1] == "xgboost"
    assert not any("stand-in" in name for name in models)
    model = models["xgboost"]
    assert type(model) is xgboost.XGBClassifier
    params = model.get_params()
    assert params["learning_rate"] == 0.5
    assert (params["n_estimators"], params["max_depth"]) == (100, 6)
    assert params["random_state"] == 7
    assert params["n_jobs"] == 1

    # string labels (encoded to 0..k-1 before xgboost sees them), binary and
    # multiclass, and the same scores from the same seed
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=300), "c": rng.choice(["u", "v"], size=300)})
    score = X["a"] + (X["c"] == "u")
    y2 = np.where(score > 0.5, "yes", "no")
    y3 = np.select([score < 0, score < 1], ["low", "mid"], "high")
    xgb = {"xgboost": model}
    binary = downstream_utility(X[:200], y2[:200], X[200:], y2[200:], models=xgb)
    assert list(binary.columns) == ["roc_auc", "pr_auc"]
    assert binary.loc["xgboost", "roc_auc"] > 0.8
    again = downstream_utility(X[:200], y2[:200], X[200:], y2[200:], models=xgb)
    pd.testing.assert_frame_equal(binary, again)
    multi = downstream_utility(X[:200], y3[:200], X[200:], y3[200:], models=xgb)
    assert list(multi.columns) == ["f1_macro", "f1_weighted", "accuracy"]
    assert multi.loc["xgboost", "accuracy"] > 0.6


# ---------------------------------------------------------------------------
# marginal_tv_distance
# ---------------------------------------------------------------------------

REAL = pd.DataFrame({"x": [1.0, 2.0, 7.0, 8.0], "c": ["a", "a", "b", "a"]})
SYN = pd.DataFrame({"x": [3.0, 6.0, 9.0, 12.0], "c": ["a", "b", "b", "b"]})
SCHEMA = {
    "x": {"type": "numeric", "bounds": [0, 10]},
    "c": {"type": "categorical", "categories": ["a", "b"]},
}


def test_tv_matches_hand_computation():
    # x in 2 bins from the bounds [0, 10]: [0, 5) and [5, 10]; 12 is clipped
    # into the last bin. Real bins (0, 0, 1, 1), synthetic (0, 1, 1, 1).
    # alpha=1:
    #   x: p = (1/2, 1/2), q = (1/4, 3/4)  -> TV = (1/4 + 1/4) / 2 = 1/4
    #   c: p = (3/4, 1/4), q = (1/4, 3/4)  -> TV = (1/2 + 1/2) / 2 = 1/2
    #   mean = 3/8
    # alpha=2, cells (bin, c):
    #   real: (0,a) 1/2, (1,b) 1/4, (1,a) 1/4, (0,b) 0
    #   syn:  (0,a) 1/4, (1,b) 3/4, (1,a) 0,   (0,b) 0
    #   TV = (1/4 + 1/2 + 1/4 + 0) / 2 = 1/2
    assert marginal_tv_distance(REAL, SYN, alpha=1, bins=2, bounds=SCHEMA) == pytest.approx(3 / 8)
    assert marginal_tv_distance(REAL, SYN, alpha=2, bins=2, bounds=SCHEMA) == pytest.approx(1 / 2)
    # the same with plain bounds and a categories dict
    same = marginal_tv_distance(
        REAL, SYN, alpha=1, bins=2, bounds={"x": (0, 10)}, categories={"c": ["a", "b"]}
    )
    assert same == pytest.approx(3 / 8)
    # columns are matched by name
    assert marginal_tv_distance(
        REAL, SYN[["c", "x"]], alpha=2, bins=2, bounds=SCHEMA
    ) == pytest.approx(1 / 2)


def test_tv_bins_come_from_the_bounds_for_both_datasets():
    real = np.array([[0.0], [1.0], [2.0], [3.0]])
    syn = real + 10.0
    # bounds [0, 13], 2 bins split at 6.5: real all in bin 0, synthetic all in
    # bin 1 -> TV = 1. Edges from each dataset's own range would give 0.
    assert marginal_tv_distance(real, syn, alpha=1, bins=2, bounds={0: (0, 13)}) == 1.0
    # all values in one bin of wide bounds -> 0
    assert marginal_tv_distance(real, syn, alpha=1, bins=2, bounds={0: (-100, 100)}) == 0.0
    # values below the lower bound are clipped into the first bin
    assert marginal_tv_distance(real, real - 50, alpha=1, bins=4, bounds={0: (0, 3)}) == 0.75


def test_tv_identical_is_zero_and_disjoint_is_one():
    assert marginal_tv_distance(REAL, REAL, alpha=2, bins=3, bounds=SCHEMA) == 0.0
    other = pd.DataFrame({"x": [1.0, 2.0], "c": ["z", "y"]})
    assert marginal_tv_distance(REAL, other, alpha=2, bounds={"x": (0, 10)}) == 1.0
    # alpha=1 with 10 bins of width 1: real x in bins 1, 2, 7, 8 (1/4 each),
    # other x in bins 1, 2 (1/2 each): TV = (1/4 + 1/4 + 1/4 + 1/4) / 2 = 1/2;
    # c is disjoint: TV = 1. Mean 3/4.
    assert marginal_tv_distance(REAL, other, alpha=1, bounds={"x": (0, 10)}) == pytest.approx(0.75)


def test_tv_warns_when_bounds_are_missing():
    with pytest.warns(PrivacyLeakWarning, match=r"\['x'\]"):
        value = marginal_tv_distance(REAL, SYN, alpha=1, bins=2)
    # edges from the union's range [1, 12]: split at 6.5 -> real (0,0,1,1),
    # synthetic (0,0,1,1): x contributes 0, c contributes 1/2
    assert value == pytest.approx(1 / 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        marginal_tv_distance(REAL, SYN, alpha=1, bins=2, bounds=SCHEMA)
        marginal_tv_distance(REAL, SYN, alpha=1, bins=2, bounds={"x": (0, 10)})


def test_tv_random_subset_of_combinations():
    rng = np.random.default_rng(0)
    real = rng.integers(0, 3, size=(50, 3)).astype(float)
    syn = rng.integers(0, 2, size=(50, 3)).astype(float)
    bounds = {j: (0, 3) for j in range(3)}
    per_column = [
        marginal_tv_distance(real[:, [j]], syn[:, [j]], alpha=1, bins=3, bounds={0: (0, 3)})
        for j in range(3)
    ]
    full = marginal_tv_distance(real, syn, alpha=1, bins=3, bounds=bounds)
    assert full == pytest.approx(np.mean(per_column))
    sub = marginal_tv_distance(
        real, syn, alpha=1, bins=3, bounds=bounds, max_combinations=2, random_state=0
    )
    pairs = [(0, 1), (0, 2), (1, 2)]
    pair_means = {round((per_column[i] + per_column[j]) / 2, 12) for i, j in pairs}
    assert round(sub, 12) in pair_means
    again = marginal_tv_distance(
        real, syn, alpha=1, bins=3, bounds=bounds, max_combinations=2, random_state=0
    )
    assert sub == again
    assert marginal_tv_distance(
        real, syn, alpha=1, bins=3, bounds=bounds, max_combinations=5
    ) == pytest.approx(full)


def test_tv_input_errors():
    with pytest.raises(ValueError, match="alpha"):
        marginal_tv_distance(REAL, SYN, alpha=3, bounds=SCHEMA)
    with pytest.raises(ValueError, match="lo < hi"):
        marginal_tv_distance(REAL, SYN, alpha=1, bounds={"x": (5, 5)})


def test_tv_counts_missing_and_other_values_in_cells_of_their_own():
    # what evaluate takes: NaN in numeric and categorical columns, values
    # outside the categories; tables without them keep their distance
    real = pd.DataFrame({"x": [0.1, 0.2, np.nan, 0.9], "c": ["a", None, "b", "b"]})
    syn = pd.DataFrame({"x": [0.1, np.nan, np.nan, np.inf], "c": ["a", "q", "b", None]})
    schema = {"x": {"type": "numeric", "bounds": [0, 1]},
              "c": {"type": "categorical", "categories": ["a", "b"]}}
    one = marginal_tv_distance(real, syn, alpha=1, bins=2, bounds=schema)
    # x: real cells (2 low, 1 high, 1 missing), synthetic (1 low, 1 high, 2 missing)
    # c: real (a 1, b 2, missing 1), synthetic (a 1, b 1, other 1, missing 1)
    assert one == pytest.approx((0.25 + 0.25) / 2)
    assert 0 < marginal_tv_distance(real, syn, alpha=2, bins=2, bounds=schema) <= 1
    clean = real.dropna()
    assert marginal_tv_distance(clean, clean, alpha=2, bins=2, bounds=schema) == 0.0
    # without bounds the edges come from the finite values only
    with pytest.warns(PrivacyLeakWarning):
        assert np.isfinite(marginal_tv_distance(real[["x"]], syn[["x"]], alpha=1))


def test_tv_with_adult_schema():
    from skdpgen.datasets import load_adult

    adult = load_adult()
    train, test = adult.frame.head(300), load_adult(split="test").frame.head(300)
    schema = adult.schema | adult.target_schema
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        value = marginal_tv_distance(train, test, alpha=2, bounds=schema)
        assert marginal_tv_distance(train, train, alpha=2, bounds=schema) == 0.0
    assert 0.0 < value < 1.0


# ---------------------------------------------------------------------------
# mmd2
# ---------------------------------------------------------------------------


@pytest.fixture
def samples():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 3))
    Y = rng.normal(loc=0.5, size=(120, 3))
    return X, Y


def test_exact_mmd2_matches_brute_force(samples):
    X, Y = samples
    ell = 1.5

    def k(A, B):
        return np.exp(-cdist(A, B, "sqeuclidean") / (2 * ell**2))

    expected = k(X, X).mean() + k(Y, Y).mean() - 2 * k(X, Y).mean()
    assert mmd2_exact(X, Y, length_scale=ell) == pytest.approx(expected, rel=1e-10)
    # per-dimension length scales: ||x - y||² = 1 + 1/4 for 0 and 1 in 2-D
    assert mmd2_exact(np.zeros((2, 2)), np.ones((3, 2)), length_scale=[1.0, 2.0]) == (
        pytest.approx(2 - 2 * math.exp(-0.625))
    )


def test_exact_mmd2_of_identical_samples_is_zero(samples, monkeypatch):
    X, _ = samples
    assert mmd2_exact(X, X) == 0.0
    monkeypatch.setattr(_gaussian, "_BLOCK_VALUES", 256)  # 16-row blocks
    # a copy is summed as another sample (no symmetric shortcut): zero up to rounding
    assert mmd2_exact(X, X.copy()) == pytest.approx(0.0, abs=1e-15)


@pytest.mark.parametrize("block_values", [1, 49, 4096, 10**8])
def test_blocked_equals_brute_force(samples, block_values, monkeypatch):
    X, Y = samples
    monkeypatch.setattr(_gaussian, "_BLOCK_VALUES", block_values)

    def k(A, B):
        return np.exp(-0.5 * ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))

    brute = k(X, X).mean() + k(Y, Y).mean() - 2 * k(X, Y).mean()
    assert mmd2_exact(X, Y) == pytest.approx(brute, rel=1e-12)


def test_exact_and_feature_mmd2_agree(samples):
    X, Y = samples
    ell = 1.5
    exact = mmd2(X, Y, length_scale=ell)
    assert exact == mmd2_exact(X, Y, length_scale=ell)
    rff = RandomFourierFeatures(n_components=20_000, length_scale=ell, random_state=0).fit(X)
    approx = mmd2(X, Y, features=rff)
    assert approx == feature_mmd2(X, Y, features=rff)
    # The feature estimate is (1/m) Σ_j g(ω_j) over m = 10,000 frequencies
    # with g(ω) = |mean_x e^{iωᵀx} − mean_y e^{iωᵀy}|² in [0, 4] and
    # E g = exact MMD² (Bochner). So Var ≤ E[g²]/m ≤ 4 E[g]/m: a standard
    # deviation of at most 2 sqrt(exact / m), whatever the data; allow 5.
    m = 10_000
    assert abs(approx - exact) < 5 * 2 * math.sqrt(exact / m)
    # A tighter, data-dependent tolerance: the standard error of the mean of
    # the m terms g(ω_j), computed from the drawn frequencies (CLT); allow 5.
    W = rff.frequencies_
    g = (np.cos(X @ W).mean(0) - np.cos(Y @ W).mean(0)) ** 2 + (
        np.sin(X @ W).mean(0) - np.sin(Y @ W).mean(0)
    ) ** 2
    assert g.mean() == pytest.approx(approx, rel=1e-9)
    tol = 5 * g.std() / math.sqrt(m)
    assert abs(approx - exact) < tol
    # that tolerance tells a wrong length scale apart
    assert abs(mmd2_exact(X, Y, length_scale=2 * ell) - approx) > tol
    assert abs(mmd2_exact(X, Y, length_scale=ell / 2) - approx) > tol
    with pytest.raises(ValueError, match="length_scale"):
        mmd2(X, Y, length_scale=2.0, features=rff)


def test_mmd2_input_errors():
    with pytest.raises(ValueError, match="features"):
        mmd2_exact(np.zeros((2, 2)), np.zeros((2, 3)))
    with pytest.raises(ValueError, match="length_scale"):
        mmd2_exact(np.zeros((2, 2)), np.zeros((2, 2)), length_scale=0.0)
    with pytest.raises(ValueError, match="length_scale"):
        mmd2_exact(np.zeros((2, 2)), np.zeros((2, 2)), length_scale=[1.0, 1.0, 1.0])


def test_a_positive_class_the_synthetic_labels_lack_scores_as_never_predicted():
    # the synthetic labels hold 0 and an "other" label (-1), the real ones 0 and 1:
    # the model never predicts 1, so ROC-AUC is 0.5 (it raised "unseen labels")
    from sklearn.linear_model import LogisticRegression
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    y_syn = np.where(X[:, 0] > 0, 0, -1)
    y_test = (X[:, 0] > 0).astype(int)
    table = downstream_utility(X, y_syn, X, y_test, models={"lr": LogisticRegression()},
                               classes=[0, 1])
    assert table.loc["lr", "roc_auc"] == 0.5


def test_evaluate_names_a_column_whose_point_mass_was_lost():
    """Issue 62: 91.7 % of capital-gain's real rows are 0, 0.1 % of the synthetic
    ones; bins at the real quantiles all had 0 as their edge and the 1-way TV
    saw nothing. A value holding 5 % of the real rows is a cell of its own."""
    from skdpgen.evaluation import evaluate_tables

    rng = np.random.default_rng(0)
    n = 2000
    gain = np.where(rng.random(n) < 0.9, 0.0, rng.integers(1, 20_000, n))
    spread = np.where(rng.random(n) < 0.01, 0.0, rng.integers(1, 1_000, n))
    spread = np.where(gain == 0, spread, gain)  # the zeros spread over [1, 1000)
    other = rng.normal(size=n)
    real = pd.DataFrame({"gain": gain, "other": other})
    syn = pd.DataFrame({"gain": spread, "other": rng.permutation(other)})
    result = evaluate_tables(real, syn)
    assert result.tv_columns["gain"] > 0.8 and result.tv_columns["other"] == 0.0
    [lost] = result.point_masses
    assert lost["column"] == "gain" and lost["value"] == "0"
    assert lost["real"] == pytest.approx(0.9, abs=0.02)
    assert lost["synthetic"] == pytest.approx(0.01, abs=0.01)
    assert "point mass of 'gain' lost: 0 in" in str(result)
    assert result.to_dict()["fidelity"]["point_masses"][0]["column"] == "gain"
    # declared bounds: the same cell of its own
    schema = {"gain": {"type": "numeric", "bounds": [0, 99_999]}}
    declared = evaluate_tables(real, syn, schema=schema)
    assert declared.tv_columns["gain"] > 0.8 and declared.point_masses[0]["column"] == "gain"
    # kept: nothing named
    assert evaluate_tables(real, real.sample(frac=1.0, random_state=1)).point_masses == []
