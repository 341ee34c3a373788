"""Scorers for GridSearchCV, the 2-D Gaussian grid and its likelihood, and plots."""

import math

import matplotlib

matplotlib.use("Agg")  # headless

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.model_selection import GridSearchCV, KFold  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402

from skdpgen import DPMERFSynthesizer, RandomFourierFeatures  # noqa: E402
from skdpgen.utils import check_generator  # noqa: E402
from skdpgen.datasets import gaussian_grid_centers, make_gaussian_grid  # noqa: E402
from skdpgen.datasets import gaussian_grid_nll  # noqa: E402
from skdpgen.evaluation import (  # noqa: E402
    mmd2,
    neg_mmd2_scorer,
    plot_gaussian_grid,
    plot_kernel_approximation_error,
    plot_marginals,
    synthetic_to_real_scorer,
)

FAST = dict(epochs=1, steps_per_epoch=5, n_components=50, random_state=0, device="cpu")


@pytest.fixture(autouse=True, scope="module")
def one_torch_thread():
    """The generators here are tiny: torch's intra-op threads only add overhead
    (seconds per fit on a busy 2-core machine). Restored afterwards."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)

SCHEMA = {
    "age": {"type": "numeric", "bounds": [17, 90], "integer": True},
    "income": {"type": "numeric", "bounds": [0.0, 1e5]},
    "city": {"type": "categorical", "categories": ["A", "B", "C"]},
}


def make_frame(n=200, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "age": rng.integers(17, 91, n),
            "income": rng.uniform(0, 1e5, n),
            "city": pd.Categorical(rng.choice(["A", "B", "C"], n), categories=["A", "B", "C"]),
        }
    )
    y = np.where(df["income"] > 5e4, "yes", "no")
    return df, y


def numeric_data(n=200, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, size=(n, 2))
    y = (X[:, 0] + 0.2 * rng.normal(size=n) > 0.5).astype(int)
    return X, y


class Replay:
    """A stand-in "synthesizer" whose samples are given rows (for exact checks);
    like every synthesizer, ``sample`` returns ``(X, y)``, y None without labels."""

    def __init__(self, X, y=None):
        self.X, self.y = X, y

    def sample(self, n, random_state=None):
        idx = np.arange(n) % len(self.X)
        X = self.X.iloc[idx] if isinstance(self.X, pd.DataFrame) else self.X[idx]
        return X, (None if self.y is None else np.asarray(self.y)[idx])


# ---------------------------------------------------------------------------
# scorers
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "scorer",
    [neg_mmd2_scorer(length_scale=0.5),
     neg_mmd2_scorer(features=RandomFourierFeatures(n_components=200, length_scale=0.5,
                                                    random_state=0))],
    ids=["exact", "features"],
)
def test_neg_mmd2_scorer_in_grid_search(scorer):
    X, _ = numeric_data()
    search = GridSearchCV(
        DPMERFSynthesizer(bounds=(0, 1), **FAST),
        {"length_scale": [0.5, 2.0]}, cv=2, scoring=scorer,
    ).fit(X)
    scores = search.cv_results_["mean_test_score"]
    assert np.all(np.isfinite(scores))
    assert scores[0] != scores[1]  # the candidates were really fitted and scored apart


def test_neg_mmd2_scorer_value_and_seeding():
    X, _ = numeric_data()
    synth = DPMERFSynthesizer(bounds=(0, 1), **FAST).fit(X)
    scorer = neg_mmd2_scorer(length_scale=0.5, random_state=3)
    manual = -mmd2(X, synth.sample(len(X), random_state=check_generator(3))[0], length_scale=0.5)
    assert scorer(synth, X) == pytest.approx(manual, rel=1e-12)
    assert scorer(synth, X) == scorer(synth, X)  # an int seed: common random numbers
    fresh = neg_mmd2_scorer(length_scale=0.5, random_state=None)
    assert fresh(synth, X) != fresh(synth, X)
    # identical samples score 0
    assert neg_mmd2_scorer()(Replay(X), X) == pytest.approx(0.0, abs=1e-12)
    assert "length_scale=1.0" in repr(neg_mmd2_scorer())


def test_neg_mmd2_scorer_encodes_dataframes():
    df, y = make_frame()
    synth = DPMERFSynthesizer(schema=SCHEMA, classes=["no", "yes"], **FAST).fit(df, y)
    score = neg_mmd2_scorer(random_state=0)(synth, df, y)
    X_syn, _ = synth.sample(len(df), random_state=check_generator(0))
    enc = synth.encoder_
    assert score == pytest.approx(-mmd2(enc.transform(df), enc.transform(X_syn)), rel=1e-12)
    search = GridSearchCV(
        DPMERFSynthesizer(schema=SCHEMA, classes=["no", "yes"], **FAST),
        {"learning_rate": [1e-3, 1e-2]}, cv=2, scoring=neg_mmd2_scorer(),
    ).fit(df, y)
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))
    with pytest.raises(ValueError, match="encode"):
        neg_mmd2_scorer(encode="yes")
    with pytest.raises(AttributeError, match="encoder_"):
        neg_mmd2_scorer(encode=True)(Replay(np.zeros((3, 2))), np.zeros((3, 2)))


@pytest.mark.parametrize("metric", ["accuracy", "roc_auc"])
def test_synthetic_to_real_scorer_in_grid_search(metric, same_noise):
    X, y = numeric_data()
    scorer = synthetic_to_real_scorer(metric)
    # same_noise: the fits are reproducible, so every score of the search can
    # be recomputed here (this checks the scoring, not the privacy)
    with same_noise():
        search = GridSearchCV(
            DPMERFSynthesizer(bounds=(0, 1), classes=[0, 1], **FAST),
            {"length_scale": [0.5, 2.0]}, cv=2, scoring=scorer,
        ).fit(X, y)
        expected = [
            [scorer(DPMERFSynthesizer(bounds=(0, 1), classes=[0, 1], length_scale=ls, **FAST)
                    .fit(X[train], y[train]), X[test], y[test])
             for train, test in KFold(2).split(X)]
            for ls in (0.5, 2.0)
        ]
    # each candidate's own fit, scored on the held-out real fold
    for fold in range(2):
        np.testing.assert_allclose(search.cv_results_[f"split{fold}_test_score"],
                                   [e[fold] for e in expected], rtol=1e-12)
    scores = search.cv_results_["mean_test_score"]
    np.testing.assert_allclose(scores, np.mean(expected, axis=1), rtol=1e-12)


def test_synthetic_to_real_scorer_values():
    X, y = numeric_data()
    real = Replay(X, y)  # "synthetic" data equal to the real data
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(X, y)
    acc = synthetic_to_real_scorer("accuracy")(real, X, y)
    assert acc == pytest.approx(model.score(X, y))
    from sklearn.metrics import roc_auc_score

    auc = synthetic_to_real_scorer("roc_auc")(real, X, y)
    assert auc == pytest.approx(roc_auc_score(y, model.predict_proba(X)[:, 1]))
    # a custom model and mixed-type frames with string labels
    df, ys = make_frame()
    from sklearn.tree import DecisionTreeClassifier

    tree = synthetic_to_real_scorer(model=DecisionTreeClassifier(random_state=0))
    assert tree(Replay(df, ys), df, ys) == pytest.approx(1.0)
    # single-class synthetic labels: a constant predictor
    const = Replay(X, np.ones(len(X), dtype=int))
    assert synthetic_to_real_scorer("accuracy")(const, X, y) == pytest.approx(np.mean(y == 1))
    assert synthetic_to_real_scorer("roc_auc")(const, X, y) == 0.5


def test_synthetic_to_real_scorer_errors():
    X, y = numeric_data()
    with pytest.raises(ValueError, match="metric"):
        synthetic_to_real_scorer("f2")
    with pytest.raises(ValueError, match="n_samples"):
        synthetic_to_real_scorer(n_samples=1)
    with pytest.raises(ValueError, match="fitted with labels"):
        synthetic_to_real_scorer()(Replay(X), X, y)
    with pytest.raises(ValueError, match="held-out labels"):
        synthetic_to_real_scorer()(Replay(X, y), X, None)
    y3 = np.arange(len(X)) % 3
    with pytest.raises(ValueError, match="binary"):
        synthetic_to_real_scorer("roc_auc")(Replay(X, y3), X, y3)
    # three classes: the accuracy of the same model trained on the "synthetic" rows
    three = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(X, y3)
    acc3 = synthetic_to_real_scorer("accuracy")(Replay(X, y3), X, y3)
    assert acc3 == pytest.approx(three.score(X, y3))
    # held-out labels permuted: the score is computed against them
    assert synthetic_to_real_scorer("accuracy")(Replay(X, y3), X, (y3 + 1) % 3) == (
        pytest.approx(np.mean(three.predict(X) == (y3 + 1) % 3)))


# ---------------------------------------------------------------------------
# the Gaussian grid
# ---------------------------------------------------------------------------


def test_make_gaussian_grid_layout():
    X, y, centers, classes = make_gaussian_grid(200, return_centers=True, random_state=0)
    assert X.shape == (25 * 200, 2) and y.shape == (25 * 200,)
    assert np.bincount(y).tolist() == [1000] * 5
    assert np.bincount(classes).tolist() == [5] * 5
    grid = classes.reshape(5, 5)
    # one Gaussian of each class per row and per column; neighbours differ
    assert all(sorted(row) == list(range(5)) for row in grid)
    assert all(sorted(col) == list(range(5)) for col in grid.T)
    assert np.all(grid[:, 1:] != grid[:, :-1]) and np.all(grid[1:] != grid[:-1])
    # every sample lies near a center of its own class, at spacing 1
    d = np.linalg.norm(X[:, None, :] - centers[None], axis=-1)
    nearest = d.argmin(1)
    assert np.mean(classes[nearest] == y) > 0.97
    assert np.std(X - centers[nearest]) == pytest.approx(0.2, rel=0.05)
    np.testing.assert_array_equal(np.unique(centers), np.arange(5.0))
    # repeatable, and unshuffled rows come grouped by Gaussian
    X2, _ = make_gaussian_grid(200, random_state=0)
    np.testing.assert_array_equal(X, X2)
    _, y_sorted = make_gaussian_grid(3, shuffle=False, random_state=0)
    np.testing.assert_array_equal(y_sorted, np.repeat(classes, 3))


def test_gaussian_grid_other_parameters_and_errors():
    X, y = make_gaussian_grid(10, grid_size=4, n_classes=2, spacing=2.0, sigma=0.1, random_state=0)
    assert np.bincount(y).tolist() == [80, 80]
    centers, classes = gaussian_grid_centers(grid_size=4, n_classes=2, spacing=2.0)
    assert centers.max() == 6.0
    with pytest.raises(ValueError, match="n_classes"):
        make_gaussian_grid(10, grid_size=2, n_classes=5)
    with pytest.raises(ValueError, match="sigma"):
        make_gaussian_grid(10, sigma=0.0)
    with pytest.raises(ValueError, match="n_per_gaussian"):
        make_gaussian_grid(0)
    with pytest.raises(ValueError, match="no Gaussian"):
        gaussian_grid_centers(grid_size=5, n_classes=25)


def test_gaussian_grid_nll():
    X, y = make_gaussian_grid(400, random_state=1)
    base = math.log(2 * math.pi * 0.2**2) + 1.0
    # class-conditional: five Gaussians per class, never neighbours
    assert gaussian_grid_nll(X, y) == pytest.approx(base + math.log(5), abs=0.03)
    # unconditional: 25 Gaussians; slight overlap of neighbours lowers it a bit
    nll = gaussian_grid_nll(X)
    assert base + math.log(25) - 0.1 < nll < base + math.log(25)
    # worse samples score worse: shifted, or with the wrong labels
    assert gaussian_grid_nll(X + 0.5) > nll + 1
    assert gaussian_grid_nll(X, (y + 1) % 5) > gaussian_grid_nll(X, y) + 5
    # consistent with make_gaussian_grid's parameters
    Xs, ys = make_gaussian_grid(100, grid_size=3, sigma=0.1, n_classes=3, spacing=2.0, random_state=0)
    nll3 = gaussian_grid_nll(Xs, ys, grid_size=3, sigma=0.1, n_classes=3, spacing=2.0)
    assert nll3 == pytest.approx(math.log(2 * math.pi * 0.01) + 1 + math.log(3), abs=0.05)
    assert gaussian_grid_nll(Xs, ys) > nll3 + 1  # wrong parameters fit worse
    with pytest.raises(ValueError, match="2 columns"):
        gaussian_grid_nll(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="class labels"):
        gaussian_grid_nll(X[:3], [0, 1, 7])
    with pytest.raises(ValueError, match="entries"):
        gaussian_grid_nll(X[:3], [0, 1])


# ---------------------------------------------------------------------------
# plots
# ---------------------------------------------------------------------------


def saved(fig, path):
    fig.savefig(path)
    plt.close(fig)
    assert path.exists()
    return path.stat().st_size


def test_plot_marginals(tmp_path):
    df, _ = make_frame()
    syn, _ = make_frame(seed=1)
    fig = plot_marginals(df, syn, bounds=SCHEMA)
    assert len([a for a in fig.axes if a.get_visible()]) == 3
    assert saved(fig, tmp_path / "marginals.png") > 10_000
    # arrays, a column subset, given axes
    X, _ = numeric_data()
    _, axes = plt.subplots(1, 2)
    fig = plot_marginals(X, X + 0.1, columns=[1], bounds={1: (0, 1)}, ax=axes)
    assert fig is axes[0].figure
    assert saved(fig, tmp_path / "marginals_array.png") > 5_000
    with pytest.raises(ValueError, match="Unknown columns"):
        plot_marginals(X, X, columns=[5])
    with pytest.raises(ValueError, match="columns"):
        plot_marginals(X, X[:, :1])


def test_plot_gaussian_grid(tmp_path):
    X, y, centers, _ = make_gaussian_grid(100, return_centers=True, random_state=0)
    fig = plot_gaussian_grid(X, y, centers=centers, max_points=1000)
    assert saved(fig, tmp_path / "grid.png") > 10_000
    fig = plot_gaussian_grid(X)
    assert saved(fig, tmp_path / "grid_unlabelled.png") > 10_000
    with pytest.raises(ValueError, match="2 columns"):
        plot_gaussian_grid(np.zeros((3, 3)))


def test_plot_kernel_approximation_error(tmp_path):
    fig = plot_kernel_approximation_error(
        orders=[0, 2, 4, 6], n_features=[10, 100, 1000], n_draws=3
    )
    h, f = fig.hermite_errors_, fig.fourier_errors_
    assert np.all(np.diff(h) < 0)  # geometric decay in the order
    assert f[-1] < f[0]  # Monte Carlo decay in the number of features
    assert h[2] < f[-1]  # order 4 beats 1,000 random features (DP-HP Fig. 1)
    assert saved(fig, tmp_path / "kernel_error.png") > 10_000
