"""Tests of DPKMEReleaser (Balog, Tolstikhin & Schölkopf 2018)."""

import math
import warnings

import numpy as np
import pytest
import torch
from sklearn.exceptions import NotFittedError
from sklearn.kernel_approximation import RBFSampler

from skdpgen import HermiteFeatures, PrivacyLeakWarning, RandomFourierFeatures
from skdpgen.privacy import calibrate_gaussian, reproducible_noise
from skdpgen._reduced_set import _project_l1
from skdpgen.release import DPKMEReleaser

EPSILON, DELTA = 1.0, 1e-5


# tiny fits: one torch thread avoids the intra-op pool's overhead (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture
def data():
    return np.random.default_rng(0).normal(size=(200, 2))


def gaussian_gram(A, B, ls):
    d2 = np.sum((A[:, None, :] - B[None, :, :]) ** 2 / ls**2, axis=-1)
    return np.exp(-d2 / 2)


def brute_force_distance(X, Z, w, ls):
    sq = gaussian_gram(X, X, ls).mean() - 2 * w @ gaussian_gram(Z, X, ls).mean(1)
    sq += w @ gaussian_gram(Z, Z, ls) @ w
    return math.sqrt(max(sq, 0.0))


# -- sensitivity and noise ----------------------------------------------------
def test_sensitivity_and_noise_scale():
    X = np.random.default_rng(1).normal(size=(50, 2))
    Z = np.random.default_rng(2).uniform(-2, 2, size=(6, 2))
    exact = DPKMEReleaser(candidates=Z, epsilon=np.inf).fit(X)
    assert exact.noise_multiplier_ == 0.0
    assert exact.privacy_report_.epsilon == math.inf
    sigma = calibrate_gaussian(EPSILON, DELTA)
    noise = []
    for seed in range(400):
        rel = DPKMEReleaser(candidates=Z, epsilon=EPSILON, delta=DELTA, random_state=seed).fit(X)
        noise.append(rel.coefficients_ - exact.coefficients_)
    noise = np.array(noise)
    assert rel.sensitivity_ == pytest.approx(2 / 50)
    assert rel.noise_multiplier_ == pytest.approx(sigma)
    assert rel.privacy_report_.epsilon == pytest.approx(EPSILON, rel=1e-6)
    assert rel.privacy_report_.releases[0].name == "subspace coefficients"
    # 2400 draws: the standard error of the std estimate is about 1.5 %
    assert noise.std() == pytest.approx(sigma * 2 / 50, rel=0.05)
    assert abs(noise.mean()) < 4 * sigma * (2 / 50) / math.sqrt(noise.size)
    np.testing.assert_allclose(rel.weights_, rel.basis_ @ rel.coefficients_)


def test_features_method_noise_scale(data):
    rff = RandomFourierFeatures(n_components=400, random_state=0).fit(data)
    kwargs = dict(method="features", features=rff, bounds=(-3, 3), n_points=5, n_iter=0)
    exact = DPKMEReleaser(epsilon=np.inf, **kwargs).fit(data)
    np.testing.assert_allclose(exact.embedding_, rff.transform(data).mean(0), atol=1e-12)
    noise = np.array([
        DPKMEReleaser(epsilon=EPSILON, delta=DELTA, random_state=s, **kwargs).fit(data).embedding_
        - exact.embedding_
        for s in range(20)
    ])
    sigma = calibrate_gaussian(EPSILON, DELTA)
    assert noise.std() == pytest.approx(sigma * 2 / 200, rel=0.05)


# -- the projection bound -----------------------------------------------------
ADVERSARIAL_CANDIDATES = {
    "spread": np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 3.0]]),
    "duplicates": np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 1.0], [1.0, 1.0], [1.0, 1.0]]),
    "ill-conditioned": np.column_stack([np.linspace(0, 0.5, 40), np.zeros(40)]),
    "single": np.array([[5.0, -5.0]]),
    "huge": np.array([[1e200, -1e200], [0.0, 0.0]]),
}


@pytest.mark.parametrize("name", list(ADVERSARIAL_CANDIDATES))
@pytest.mark.parametrize("length_scale", [0.05, 1.0, 30.0, (0.3, 20.0)])
def test_projection_norm_at_most_one_with_adversarial_inputs(name, length_scale):
    Z = ADVERSARIAL_CANDIDATES[name]
    rel = DPKMEReleaser(candidates=Z, length_scale=length_scale, epsilon=np.inf).fit(Z)
    rng = np.random.default_rng(0)
    X = np.vstack([
        Z,  # the candidates themselves
        Z + 1e-9,  # next to them
        (Z[:, None] + Z[None, :]).reshape(-1, 2) / 2,  # midpoints
        rng.normal(scale=3.0, size=(50, 2)),
        [[1e6, 1e6], [-1e300, 1e300], [1e308, -1e308], [0.0, 1e-300]],  # far away
    ])
    A = rel.features_.transform(X)
    assert np.all(np.isfinite(A))
    assert np.linalg.norm(A, axis=1).max() <= 1.0
    # The mean of the rows is the released vector (without noise).
    np.testing.assert_allclose(rel.features_.transform(Z).mean(0), rel.coefficients_, atol=1e-12)


def test_projection_is_exact_for_the_candidates():
    # a(z_m) are the coordinates of k(z_m, ·) itself, which lies in the span:
    # its norm is sqrt(k(z, z)) = 1 up to rounding (well-conditioned K_zz).
    Z = np.array([[0.0], [2.0], [4.0]])
    rel = DPKMEReleaser(candidates=Z, epsilon=np.inf).fit(Z)
    np.testing.assert_allclose(np.linalg.norm(rel.features_.transform(Z), axis=1), 1.0, atol=1e-14)
    # and a(x)ᵀa(z) = ⟨k(x, ·), k(z, ·)⟩ = k(x, z)
    x = np.array([[1.3]])
    got = rel.features_.transform(x) @ rel.features_.transform(Z).T
    np.testing.assert_allclose(got[0], gaussian_gram(x, Z, 1.0)[0], atol=1e-12)


# -- utility ------------------------------------------------------------------
def test_subspace_recovers_the_exact_embedding_without_noise():
    X = np.random.default_rng(0).uniform(-5, 5, size=(15, 2))
    rel = DPKMEReleaser(candidates=X, length_scale=0.5, epsilon=np.inf).fit(X)
    assert rel.rank_ == 15
    np.testing.assert_allclose(rel.weights_, 1 / 15, atol=1e-9)
    assert rel.score(X) == pytest.approx(0.0, abs=1e-6)
    np.testing.assert_allclose(rel.points_, X)


def test_score_is_the_exact_rkhs_distance(data):
    rel = DPKMEReleaser(bounds=(-3, 3), n_points=30, length_scale=(0.8, 1.5), random_state=0)
    rel.fit(data)
    expected = brute_force_distance(data, rel.points_, rel.weights_, np.array([0.8, 1.5]))
    assert rel.score(data) == pytest.approx(-expected, rel=1e-9)
    feat = DPKMEReleaser(method="features", bounds=(-3, 3), n_points=8, n_iter=10,
                         random_state=0).fit(data)
    expected = brute_force_distance(data, feat.points_, feat.weights_, 1.0)
    assert feat.score(data) == pytest.approx(-expected, rel=1e-9)


def test_features_method_decreases_the_rkhs_distance(data):
    kwargs = dict(method="features", bounds=(-3, 3), n_points=10, epsilon=np.inf,
                  learning_rate=0.05, random_state=0)
    init = DPKMEReleaser(n_iter=0, **kwargs).fit(data)
    opt = DPKMEReleaser(n_iter=300, **kwargs).fit(data)
    assert opt.loss_history_.shape == (300,)
    assert opt.loss_history_[-1] < 0.2 * opt.loss_history_[0]
    assert -opt.score(data) < 0.5 * -init.score(data)
    assert np.all(opt.weights_ >= 0)
    assert np.all((opt.points_ >= -3) & (opt.points_ <= 3))
    assert isinstance(opt.features_, RandomFourierFeatures)
    assert opt.features_.n_components == 1000
    np.testing.assert_array_equal(opt.length_scale_, [1.0, 1.0])


def test_features_method_with_hermite_features(data):
    hf = HermiteFeatures(order=8, kernel="product")
    rel = DPKMEReleaser(method="features", features=hf, bounds=(-3, 3), n_points=8,
                        n_iter=100, learning_rate=0.05, epsilon=np.inf, random_state=0)
    rel.fit(data)
    assert rel.length_scale_ is None  # score uses the kernel h(x)ᵀh(x')
    H = rel.features_.transform(data).mean(0) - rel.weights_ @ rel.features_.transform(rel.points_)
    assert rel.score(data) == pytest.approx(-np.linalg.norm(H), rel=1e-9, abs=1e-15)
    assert rel.loss_history_[-1] < rel.loss_history_[0]


@pytest.mark.parametrize("features", [
    HermiteFeatures(order=5), HermiteFeatures(order=3, kernel="product", product_dims=[0, 2]),
    HermiteFeatures(order=4, length_scale=(0.5, 1.0, 2.0), kernel="product"),
    HermiteFeatures(order=4, length_scale=0.7, category_sizes=[2]),
    HermiteFeatures(order=3, kernel="product", product_dims=[0, 1], category_sizes=[2]),
    RandomFourierFeatures(n_components=20, random_state=0),
    RandomFourierFeatures(n_components=7, random_state=0),
], ids=repr)
def test_torch_feature_maps_match_numpy(features):
    X = np.random.default_rng(0).normal(size=(7, 3))
    features = features.fit(X)
    H = features.transform(X)
    np.testing.assert_allclose(features.torch_transform(torch.from_numpy(X)).numpy(), H,
                               atol=1e-12)
    # float32 tensors (the generator side): the same values to float32 rounding
    T32 = features.torch_transform(torch.from_numpy(X).float())
    assert T32.dtype == torch.float32
    np.testing.assert_allclose(T32.numpy(), H, atol=2e-5)


@pytest.mark.parametrize("method", ["subspace", "features"])
def test_l1_bound_holds(data, method):
    kwargs = dict(method=method, bounds=(-3, 3), n_points=40, n_iter=20, length_scale=0.7,
                  epsilon=0.5, random_state=0)
    def fit(**more):  # the same noise in every fit: only the post-processing differs
        with warnings.catch_warnings(), reproducible_noise(0):
            warnings.simplefilter("ignore", PrivacyLeakWarning)
            return DPKMEReleaser(**more, **kwargs).fit(data[:50])

    free = fit()
    C = 0.5 * np.abs(free.weights_).sum()
    rel = fit(l1_bound=C)
    assert np.abs(rel.weights_).sum() <= C
    np.testing.assert_array_equal(rel.points_, free.points_)
    if method == "subspace":
        # closer (in RKHS norm) to the unconstrained release than the plain
        # Euclidean projection onto the L1 ball
        K = gaussian_gram(rel.points_, rel.points_, 0.7)

        def dist(w):
            return (w - free.weights_) @ K @ (w - free.weights_)

        assert dist(rel.weights_) <= dist(_project_l1(free.weights_, C)) + 1e-15
    loose = fit(l1_bound=2 * C + 1)
    np.testing.assert_array_equal(loose.weights_, free.weights_)


def test_project_l1():
    v = np.array([3.0, -1.0, 0.5])
    np.testing.assert_allclose(_project_l1(v, 2.0), [2.0, 0.0, 0.0])
    np.testing.assert_allclose(_project_l1(v, 10.0), v)
    p = _project_l1(v, 3.0)
    assert np.abs(p).sum() == pytest.approx(3.0)


def test_expected_value_on_a_known_case():
    X = np.array([[0.0, 1.0], [1.0, 3.0], [3.0, -2.0], [-4.0, 0.5]])
    rel = DPKMEReleaser(candidates=X, length_scale=0.05, epsilon=np.inf).fit(X)
    assert rel.expected_value(lambda Z: Z[:, 0] ** 2) == pytest.approx(np.mean(X[:, 0] ** 2))
    np.testing.assert_allclose(rel.expected_value(lambda Z: Z), X.mean(0))
    assert rel.expected_value(lambda Z: Z).shape == (2,)
    with pytest.raises(ValueError, match=r"shape \(4,\) or \(4, k\)"):
        rel.expected_value(lambda Z: Z[:2, 0])


def test_weights_can_be_negative_and_sampling_uses_positive_ones(same_noise):
    X = np.random.default_rng(0).normal(size=(100, 1))
    with same_noise():  # a fixed release: the test is about sampling from it
        rel = DPKMEReleaser(candidates=np.linspace(-2, 2, 15)[:, None], length_scale=0.7,
                            epsilon=0.2, random_state=0).fit(X)
    assert np.any(rel.weights_ < 0)
    rows = rel.sample(2000, random_state=0)
    allowed = rel.points_[rel.weights_ > 0]
    assert np.all(np.isin(rows, allowed))
    # the most likely point is the one of largest weight
    values, counts = np.unique(rows, return_counts=True)
    assert values[np.argmax(counts)] == rel.points_[np.argmax(rel.weights_), 0]


# -- reproducibility ----------------------------------------------------------
@pytest.mark.parametrize("method", ["subspace", "features"])
def test_random_state_fixes_public_choices_never_the_noise(data, method):
    kwargs = dict(method=method, bounds=(-3, 3), n_points=10, n_iter=20)
    a = DPKMEReleaser(random_state=0, **kwargs).fit(data)
    b = DPKMEReleaser(random_state=0, **kwargs).fit(data)
    c = DPKMEReleaser(random_state=1, **kwargs).fit(data)
    if method == "subspace":  # the points are drawn from the bounds: public
        np.testing.assert_array_equal(a.points_, b.points_)
        assert not np.array_equal(a.points_, c.points_)
    else:  # the random frequencies are public; the points are fitted to the noisy release
        np.testing.assert_array_equal(a.features_.frequencies_, b.features_.frequencies_)
    assert not np.allclose(a.weights_, b.weights_)  # fresh noise at every fit
    assert a.privacy_report_.is_private and b.privacy_report_.is_private
    same = []
    for _ in range(2):
        with pytest.warns(PrivacyLeakWarning, match="reproducible_noise"), reproducible_noise(0):
            same.append(DPKMEReleaser(random_state=0, **kwargs).fit(data))
    np.testing.assert_array_equal(same[0].weights_, same[1].weights_)
    np.testing.assert_array_equal(same[0].points_, same[1].points_)
    assert not same[0].privacy_report_.is_private
    np.testing.assert_array_equal(a.sample(20, random_state=3), a.sample(20, random_state=3))
    assert not np.array_equal(a.sample(50, random_state=3), a.sample(50, random_state=4))


def test_fit_budget_overrides_the_constructor(data):
    rel = DPKMEReleaser(bounds=(-3, 3), n_points=5, epsilon=1.0, delta=1e-5, random_state=0)
    rel.fit(data, epsilon=0.5, delta=1e-6)
    assert (rel.epsilon, rel.delta) == (1.0, 1e-5)
    assert (rel.epsilon_, rel.delta_) == (0.5, 1e-6)
    assert rel.privacy_report_.epsilon == pytest.approx(0.5, rel=1e-6)
    assert rel.noise_multiplier_ == pytest.approx(calibrate_gaussian(0.5, 1e-6))
    rel.fit(data)
    assert rel.epsilon_ == 1.0
    rel.fit(data, epsilon=np.inf)
    assert rel.noise_multiplier_ == 0.0 and rel.privacy_report_.epsilon == math.inf


# -- bad inputs ---------------------------------------------------------------
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("method", ["subspace", "features"])
def test_non_finite_X_is_read_not_refused(data, bad, method):
    # one record's value never makes a fit fail: NaN reads as 0, inf as the largest float
    X = data.copy()
    X[3, 1] = bad
    rel = DPKMEReleaser(method=method, bounds=(-3, 3), n_points=5, n_iter=1).fit(X)
    assert np.all(np.isfinite(rel.weights_))


@pytest.mark.parametrize("epsilon", [0.0, -1.0])
def test_bad_epsilon_raises(data, epsilon):
    with pytest.raises(ValueError, match="epsilon"):
        DPKMEReleaser(bounds=(-3, 3), epsilon=epsilon).fit(data)
    with pytest.raises(ValueError, match="epsilon"):
        DPKMEReleaser(bounds=(-3, 3)).fit(data, epsilon=epsilon)


@pytest.mark.parametrize("delta", [0.0, 1.0, -0.1, 2.0])
def test_bad_delta_raises(data, delta):
    with pytest.raises(ValueError, match="delta"):
        DPKMEReleaser(bounds=(-3, 3), delta=delta).fit(data)
    with pytest.raises(ValueError, match="delta"):
        DPKMEReleaser(bounds=(-3, 3)).fit(data, delta=delta)


@pytest.mark.parametrize("method", ["subspace", "features"])
def test_candidates_with_wrong_columns_raise(data, method):
    with pytest.raises(ValueError, match="candidates has 3 columns but X has 2"):
        DPKMEReleaser(method=method, candidates=np.zeros((4, 3))).fit(data)
    with pytest.raises(ValueError, match="NaN|infinity"):
        DPKMEReleaser(method=method, candidates=[[0.0, np.nan]]).fit(data)


@pytest.mark.parametrize("method", ["subspace", "features"])
def test_no_candidates_and_no_bounds_raise(data, method):
    with pytest.raises(ValueError, match="needs public points"):
        DPKMEReleaser(method=method).fit(data)


@pytest.mark.parametrize("bounds", [(1, 0), (0, np.inf), (0, [1, 2, 3]), (0,)])
def test_bad_bounds_raise(data, bounds):
    with pytest.raises(ValueError, match="bounds"):
        DPKMEReleaser(bounds=bounds).fit(data)


def test_features_with_subspace_raise(data):
    with pytest.raises(ValueError, match="only used by method='features'"):
        DPKMEReleaser(bounds=(-3, 3), features=HermiteFeatures()).fit(data)


@pytest.mark.parametrize("n_samples", [0, -3, 2.5, True])
def test_bad_n_samples_raise(data, n_samples):
    rel = DPKMEReleaser(bounds=(-3, 3), n_points=5, random_state=0).fit(data)
    with pytest.raises(ValueError, match="n_samples"):
        rel.sample(n_samples)


def test_unfitted_raises():
    rel = DPKMEReleaser(bounds=(-3, 3))
    with pytest.raises(NotFittedError):
        rel.sample(3)
    with pytest.raises(NotFittedError):
        rel.expected_value(np.sum)


def test_sample_without_positive_weight_raises(data):
    rel = DPKMEReleaser(bounds=(-3, 3), n_points=5, random_state=0).fit(data)
    rel.weights_ = -np.abs(rel.weights_)
    with pytest.raises(ValueError, match="No released weight is positive"):
        rel.sample(2)


def test_other_transformer_warns_and_keeps_points(data):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rel = DPKMEReleaser(method="features", features=RBFSampler(n_components=50, random_state=0),
                            bounds=(-3, 3), n_points=5, n_iter=5, random_state=0).fit(data)
    kinds = {w.category for w in caught}
    assert PrivacyLeakWarning in kinds and UserWarning in kinds
    assert rel.length_scale_ is None
    assert rel.loss_history_.size == 0


def test_refit_with_the_other_method_drops_its_attributes():
    X = np.random.default_rng(0).normal(size=(300, 2))
    rel = DPKMEReleaser(method="subspace", bounds=(-3, 3), n_points=10, epsilon=1.0,
                        random_state=0).fit(X)
    assert hasattr(rel, "basis_")
    rel.set_params(method="features", n_iter=5).fit(X)
    assert hasattr(rel, "embedding_") and not hasattr(rel, "basis_")
    assert not hasattr(rel, "coefficients_") and not hasattr(rel, "rank_")
    rel.set_params(method="subspace").fit(X)
    assert not hasattr(rel, "embedding_") and not hasattr(rel, "loss_history_")
