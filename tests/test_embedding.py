import math
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.preprocessing import StandardScaler

from skdpgen import HermiteFeatures, KernelMeanEmbedding, PrivacyLeakWarning, RandomFourierFeatures
from skdpgen.privacy import calibrate_gaussian, reproducible_noise


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(500, 3))
    y = np.where(X[:, 0] > 0.3, "b", "a")
    return X, y


FEATURES = [
    HermiteFeatures(order=6),
    HermiteFeatures(order=3, kernel="product", product_dims=[0, 2]),
    RandomFourierFeatures(n_components=40, random_state=0),
]


@pytest.mark.parametrize("features", FEATURES, ids=repr)
def test_non_private_embedding_is_the_feature_mean(data, features):
    X, y = data
    kme = KernelMeanEmbedding(features=features).fit(X)
    H = kme.transform(X)
    np.testing.assert_allclose(kme.embedding_, H.mean(axis=0), atol=1e-13)
    kme_y = KernelMeanEmbedding(features=features, classes=["a", "b"]).fit(X, y)
    expected = np.stack([H[y == c].sum(0) for c in "ab"], axis=1) / len(X)
    np.testing.assert_allclose(kme_y.embedding_, expected, atol=1e-13)
    np.testing.assert_allclose(kme_y.embedding_.sum(1), kme.embedding_, atol=1e-13)
    assert kme.score(X) == pytest.approx(0.0, abs=1e-20)
    assert kme_y.score(X, y) == pytest.approx(0.0, abs=1e-20)
    assert kme.noise_multiplier_ == 0.0
    assert kme.privacy_report_.epsilon == math.inf


@pytest.mark.parametrize("chunk_size", [1, 7, 64, 10_000])
@pytest.mark.parametrize("n_jobs", [None, 2])
def test_streaming_does_not_change_the_result(data, chunk_size, n_jobs):
    X, y = data
    ref = KernelMeanEmbedding(features=HermiteFeatures(order=8)).fit(X, y).embedding_
    got = KernelMeanEmbedding(
        features=HermiteFeatures(order=8), chunk_size=chunk_size, n_jobs=n_jobs
    ).fit(X, y).embedding_
    np.testing.assert_allclose(got, ref, atol=1e-13)


def test_private_embedding_attributes_and_report(data):
    X, y = data
    kme = KernelMeanEmbedding(
        features=HermiteFeatures(order=4), epsilon=1.0, delta=1e-5, classes=["a", "b"]
    ).fit(X, y)
    assert kme.sensitivity_ == pytest.approx(2 / 500)
    assert kme.noise_multiplier_ == pytest.approx(3.7306, abs=1e-4)
    report = kme.privacy_report_
    assert report.n_releases == 1
    # the report's numbers derived here, not read back from the estimator:
    # Δ = 2/n and σ(ε=1, δ=1e-5) of the analytic Gaussian mechanism
    assert report.releases[0].sensitivity == pytest.approx(2 / 500)
    assert report.releases[0].noise_multiplier == pytest.approx(calibrate_gaussian(1.0, 1e-5))
    assert report.releases[0].noise_std == pytest.approx(calibrate_gaussian(1.0, 1e-5) * 2 / 500)
    assert report.epsilon <= 1.0 and report.epsilon == pytest.approx(1.0, abs=1e-6)
    assert kme.embedding_.shape == (15, 2)
    np.testing.assert_array_equal(kme.classes_, ["a", "b"])
    assert kme.epsilon == 1.0  # parameters untouched


def test_noise_is_fresh_at_every_fit_and_reproducible_only_on_request(data):
    X, _ = data
    features = RandomFourierFeatures(n_components=20, random_state=0)
    make = lambda: KernelMeanEmbedding(features=features, epsilon=1.0).fit(X)  # noqa: E731
    first, second = make(), make()
    # same public random choice (the frequencies), different noise
    np.testing.assert_array_equal(first.features_.frequencies_, second.features_.frequencies_)
    assert not np.allclose(first.embedding_, second.embedding_)
    assert first.privacy_report_.is_private
    # NumPy's global seed does not make the noise predictable either
    state = np.random.get_state()
    try:
        np.random.seed(0)
        a = make().embedding_
        np.random.seed(0)
        assert not np.allclose(a, make().embedding_)
    finally:
        np.random.set_state(state)
    # only the explicit debugging switch reproduces the noise, and says so
    runs = []
    for _ in range(2):
        with pytest.warns(PrivacyLeakWarning, match="reproducible_noise"):
            with reproducible_noise(0):
                runs.append(make())
    np.testing.assert_array_equal(runs[0].embedding_, runs[1].embedding_)
    assert not runs[0].privacy_report_.is_private
    assert runs[0].privacy_report_.reproducible


def test_observed_noise_std_equals_sigma_times_sensitivity(data):
    X, _ = data
    X = X[:50]
    features = HermiteFeatures(order=9)
    exact = KernelMeanEmbedding(features=features).fit(X).embedding_
    residuals = []
    for _ in range(200):
        kme = KernelMeanEmbedding(features=features, epsilon=2.0).fit(X)
        residuals.append(kme.embedding_ - exact)
    residuals = np.concatenate(residuals)  # 200 × 30 values
    # derived here, not read from the estimator: σ(ε=2, δ=1e-5) · Δ with Δ = 2/n
    expected = calibrate_gaussian(2.0, 1e-5) * 2 / 50
    # chi-square: relative error of the std estimate ~ 1/sqrt(2N) ≈ 0.9 %
    assert residuals.std() == pytest.approx(expected, rel=0.04)
    assert abs(residuals.mean()) < 4 * expected / math.sqrt(residuals.size)


def test_observed_noise_of_the_class_conditional_matrix(data):
    """With labels the whole (features × classes) matrix gets noise of std σΔ,
    every entry (absent classes included), still with Δ = 2/n."""
    X, y = data
    X, y = X[:40], y[:40]
    features = HermiteFeatures(order=4)
    classes = ["a", "b", "c"]  # "c" is absent: its column is pure noise
    exact = KernelMeanEmbedding(features=features, classes=classes).fit(X, y).embedding_
    residuals = np.stack([
        KernelMeanEmbedding(features=features, epsilon=3.0, classes=classes).fit(X, y).embedding_
        - exact
        for _ in range(100)
    ])  # 100 × 15 × 3 values
    expected = calibrate_gaussian(3.0, 1e-5) * 2 / 40
    for c in range(3):  # per class: 1,500 values, std error of the std ~ 1.8 %
        assert residuals[:, :, c].std() == pytest.approx(expected, rel=0.1)
    # independent draws: the fits do not share their noise
    assert abs(np.corrcoef(residuals[:50].ravel(), residuals[50:].ravel())[0, 1]) < 0.1


def test_class_list_leak_warning_only_when_taken_from_data(data):
    X, y = data
    with pytest.warns(PrivacyLeakWarning, match="class list"):
        KernelMeanEmbedding(epsilon=1.0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        KernelMeanEmbedding(epsilon=1.0, classes=["a", "b", "c"]).fit(X, y)
        KernelMeanEmbedding(epsilon=1.0).fit(X)
        KernelMeanEmbedding().fit(X, y)  # not private: nothing to protect


def test_public_classes_may_include_absent_labels_and_map_unlisted_ones(data):
    X, y = data
    kme = KernelMeanEmbedding(classes=["c", "b", "a"]).fit(X, y)
    assert kme.embedding_.shape[1] == 3
    np.testing.assert_array_equal(kme.embedding_[:, 0], 0.0)
    # a label outside the public list is no error (one record's label must not make a
    # fit fail): it counts as the first class, and nothing quotes it
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        short = KernelMeanEmbedding(classes=["a"]).fit(X, y)
        KernelMeanEmbedding(classes=["a"], epsilon=1.0).fit(X, y)
    assert short.embedding_.shape == (kme.embedding_.shape[0], 1)
    np.testing.assert_allclose(short.embedding_[:, 0], KernelMeanEmbedding().fit(X).embedding_,
                               rtol=1e-12, atol=1e-15)
    # so is a missing label
    holed = y.astype(object)
    holed[:10] = None
    relabelled = y.copy()
    relabelled[:10] = "c"
    np.testing.assert_allclose(kme.fit(X, holed).embedding_,
                               KernelMeanEmbedding(classes=["c", "b", "a"]).fit(X, relabelled)
                               .embedding_, rtol=1e-12, atol=1e-15)
    assert np.any(kme.embedding_[:, 0] != 0.0)
    # labels are compared by canonical form: "1" is the class 1
    numbers = np.where(y == "a", 1, 2)
    np.testing.assert_array_equal(
        KernelMeanEmbedding(classes=[1, 2]).fit(X, numbers.astype(str)).embedding_,
        KernelMeanEmbedding(classes=[1, 2]).fit(X, numbers).embedding_)
    with pytest.raises(ValueError, match="distinct"):
        KernelMeanEmbedding(classes=["a", "a"]).fit(X, y)
    with pytest.raises(ValueError, match="distinct"):
        KernelMeanEmbedding(classes=[1, "1"]).fit(X, y)
    # scoring maps unlisted labels the same way
    kme.fit(X, y)
    assert kme.score(X, np.full(len(X), "z")) == kme.score(X, np.full(len(X), "c"))


def test_generic_transformer_rows_are_clipped_and_fitting_it_privately_warns(data):
    X, _ = data
    big = X * 1000
    # StandardScaler output has norm > 1; the embedding clips rows to norm ≤ 1
    with pytest.warns(PrivacyLeakWarning, match="fitted on the private"):
        kme = KernelMeanEmbedding(features=StandardScaler(), epsilon=1.0).fit(big)
    assert [leak.what for leak in kme.privacy_report_.leaks] == ["feature map"]
    assert not kme.privacy_report_.is_private
    exact = KernelMeanEmbedding(features=StandardScaler().fit(big)).fit(big).embedding_
    H = StandardScaler().fit_transform(big)
    H = H / np.maximum(1, np.linalg.norm(H, axis=1))[:, None]
    np.testing.assert_allclose(exact, H.mean(0), atol=1e-6)
    assert kme.sensitivity_ == 2 / len(X)


def test_prefitted_feature_map_is_used_as_is(data):
    X, _ = data
    rff = RandomFourierFeatures(n_components=10, random_state=1).fit(X)
    kme = KernelMeanEmbedding(features=rff).fit(X)
    assert kme.features_ is rff
    with pytest.raises(ValueError, match="columns"):
        KernelMeanEmbedding(features=rff).fit(X[:, :2])


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_bad_inputs(data, bad):
    X, y = data
    Xb = X.copy()
    Xb[3, 1] = bad
    kme = KernelMeanEmbedding(epsilon=1.0).fit(Xb)  # a value never makes a fit fail
    assert np.all(np.isfinite(kme.embedding_))
    with pytest.raises(ValueError):
        KernelMeanEmbedding(epsilon=0.0).fit(X)
    with pytest.raises(ValueError):
        KernelMeanEmbedding(epsilon=1.0, delta=1.0).fit(X)
    with pytest.raises(ValueError, match="entries"):
        KernelMeanEmbedding().fit(X, y[:-1])
    fitted = KernelMeanEmbedding().fit(X)
    with pytest.raises(ValueError, match="features"):
        fitted.transform(X[:, :2])


def test_score_prefers_the_same_distribution():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 2))
    kme = KernelMeanEmbedding(features=HermiteFeatures(order=10), epsilon=1.0).fit(X)
    same = kme.score(rng.normal(size=(2000, 2)))
    shifted = kme.score(rng.normal(loc=1.0, size=(2000, 2)))
    assert same > shifted


def test_dataframe_input_and_pickle(data):
    X, _ = data
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    kme = KernelMeanEmbedding(epsilon=1.0).fit(df)
    np.testing.assert_array_equal(kme.feature_names_in_, ["a", "b", "c"])
    clone = pickle.loads(pickle.dumps(kme))
    np.testing.assert_array_equal(clone.embedding_, kme.embedding_)
    assert clone.privacy_report_.epsilon == kme.privacy_report_.epsilon


def test_failed_fit_leaves_the_embedding_as_it_was(data):
    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted

    X, y = data
    kme = KernelMeanEmbedding()
    with pytest.raises(ValueError, match="entries"):
        kme.fit(X, y[:-1])  # fails after the columns were validated
    with pytest.raises(NotFittedError):
        check_is_fitted(kme)
    kme.fit(X, y)
    before = dict(vars(kme))
    with pytest.raises(ValueError):
        kme.fit(X[:, :2], y[:-1])
    assert vars(kme).keys() == before.keys()
    assert all(vars(kme)[k] is v for k, v in before.items())


def test_mmd2_rejects_bad_input():
    from skdpgen.embedding import mmd2

    X = np.zeros((5, 3))
    rff = RandomFourierFeatures(n_components=10, random_state=0)
    for bad in (np.full((5, 3), np.nan), np.full((5, 3), np.inf)):
        with pytest.raises(ValueError, match="NaN|infinity"):
            mmd2(bad, X, features=rff)
    with pytest.raises(ValueError, match="columns"):
        mmd2(X, np.zeros((5, 2)), features=rff)
    with pytest.raises(ValueError, match="expects 1 columns"):
        mmd2(X, X, features=HermiteFeatures(order=3).fit(np.zeros((2, 1))))
