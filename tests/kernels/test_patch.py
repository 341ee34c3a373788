"""PatchFourierFeatures: the norm bound on adversarial images, its kernel, its fused sums."""

import pickle

import numpy as np
import pytest
import torch

from skdpgen import KMESynthesizer
from skdpgen.kernels import PatchFourierFeatures

SHAPE = (6, 7)


def _fmap(**params):
    params = {"image_shape": SHAPE, "patch_size": 3, "stride": 2, "n_filters": 5,
              "random_state": 0, **params}
    return PatchFourierFeatures(**params).fit(np.zeros((1, SHAPE[0] * SHAPE[1])))


def _adversarial_images():
    n = SHAPE[0] * SHAPE[1]
    rng = np.random.default_rng(0)
    checker = np.indices(SHAPE).sum(0).ravel() % 2
    return np.vstack([
        np.full(n, -1.0), np.full(n, 1.0), np.zeros(n),       # all-min, all-max, flat
        np.where(checker, 1.0, -1.0),                        # extreme checkerboard
        rng.uniform(-1, 1, size=(20, n)),                    # random encoded images
        rng.choice([-1.0, 1.0], size=(10, n)),               # random extreme pixels
        np.full(n, 1e308), np.full(n, -1e308),               # overflowing projections
        np.where(checker, 1e308, -1e308), rng.normal(0, 1e6, size=(5, n)),
    ])


# scikit-learn's finiteness check sums the 1e308 rows (an overflow inside the check)
@pytest.mark.filterwarnings("ignore:invalid value encountered in reduce:RuntimeWarning")
@pytest.mark.parametrize("params", [{}, {"patch_size": 1, "stride": 1},
                                    {"patch_size": 6, "stride": 1, "length_scale": 0.01},
                                    {"stride": 5, "n_filters": 1}])
def test_norm_at_most_one_on_adversarial_images(params):
    fmap = _fmap(**params)
    X = _adversarial_images()
    raw = fmap.raw_transform(X)
    assert np.all(np.isfinite(raw))
    # exactly one in exact arithmetic (cos² + sin² = 1), whatever the pixels
    np.testing.assert_allclose(np.linalg.norm(raw, axis=1), 1.0, atol=1e-12)
    assert np.all(np.linalg.norm(fmap.transform(X), axis=1) <= 1.0)
    X32 = X[np.abs(X).max(1) <= 1e30].astype(np.float32)  # float32's finite inputs
    assert np.all(np.linalg.norm(fmap.transform(X32), axis=1) <= 1.0)
    # the torch path on the bounded (encoded, generated) inputs it is used for
    bounded = torch.as_tensor(X[np.abs(X).max(1) <= 1])
    norms = torch.linalg.vector_norm(fmap.torch_transform(bounded), dim=1)
    assert bool(torch.all(norms <= 1.0))
    sums = fmap.feature_sum(X, np.eye(len(X)))  # the release's primitive: clipped rows
    assert np.all(np.linalg.norm(sums, axis=0) <= 1.0)


def test_shape_and_layout():
    fmap = _fmap()
    # rows 0, 2 and columns 0, 2, 4 of a 6 x 7 image: 2 x 3 locations
    assert fmap.n_locations_ == 6
    assert fmap.n_features_out_ == 2 * 5 * 6
    assert fmap.filters_.shape == (5, 3, 3)
    with pytest.raises(ValueError, match="pixels"):
        PatchFourierFeatures(image_shape=(5, 5)).fit(np.zeros((1, 24)))
    with pytest.raises(ValueError, match="patch_size"):
        PatchFourierFeatures(image_shape=(2, 3), patch_size=3).fit(np.zeros((1, 6)))


def test_features_are_the_patch_projections():
    fmap = _fmap()
    x = np.random.default_rng(1).uniform(-1, 1, SHAPE[0] * SHAPE[1])
    img = x.reshape(SHAPE)
    # location (row 2, column 4) is the last of the row-major 2 x 3 grid
    t = np.sum(fmap.filters_ * img[2:5, 4:7], axis=(1, 2))
    H = fmap.transform(x[None])[0].reshape(2, 5, 6) * np.sqrt(5 * 6)
    np.testing.assert_allclose(H[0, :, 5], np.cos(t), atol=1e-12)
    np.testing.assert_allclose(H[1, :, 5], np.sin(t), atol=1e-12)


def test_kernel_is_the_mean_patch_gaussian():
    fmap = _fmap(n_filters=20_000, length_scale=1.5)
    X = np.random.default_rng(2).uniform(-1, 1, size=(2, SHAPE[0] * SHAPE[1]))
    H = fmap.transform(X)
    P = torch.nn.functional.unfold(torch.as_tensor(X).view(2, 1, *SHAPE), 3, stride=2)
    d2 = ((P[0] - P[1]) ** 2).sum(0).numpy()
    expected = np.mean(np.exp(-d2 / (2 * 1.5**2)))
    assert abs(H[0] @ H[1] - expected) < 0.02


def test_torch_numpy_and_fused_sums_agree():
    fmap = _fmap()
    X = np.random.default_rng(3).uniform(-1, 1, size=(11, SHAPE[0] * SHAPE[1]))
    W = np.random.default_rng(4).random((11, 3))
    Xt, Wt = torch.tensor(X, requires_grad=True), torch.as_tensor(W)
    np.testing.assert_allclose(fmap.raw_transform(Xt).detach().numpy(), fmap.transform(X),
                               atol=1e-12)
    fused = fmap.raw_feature_sum(Xt, Wt)
    np.testing.assert_allclose(fused.detach().numpy(), fmap.transform(X).T @ W, atol=1e-12)
    fused.sum().backward()
    assert Xt.grad is not None and bool(torch.all(torch.isfinite(Xt.grad)))
    np.testing.assert_allclose(fmap.feature_sum(X, W), fmap.transform(X).T @ W, atol=1e-12)


def test_filters_depend_on_the_seed_only():
    a = _fmap().filters_
    other = PatchFourierFeatures(image_shape=SHAPE, patch_size=3, stride=2, n_filters=5,
                                 random_state=0).fit(np.ones((4, 42)))
    np.testing.assert_array_equal(a, other.filters_)
    assert not np.array_equal(a, _fmap(random_state=1).filters_)
    again = pickle.loads(pickle.dumps(_fmap()))
    X = _adversarial_images()[:5]
    np.testing.assert_array_equal(again.transform(X), _fmap().transform(X))


def test_kme_synthesizer_releases_patch_features():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 17, size=(120, 42)).astype(float)
    y = np.arange(120) % 2
    synth = KMESynthesizer(
        features=PatchFourierFeatures(image_shape=SHAPE, patch_size=3, n_filters=4,
                                      random_state=0),
        schema={j: {"type": "numeric", "bounds": [0, 16]} for j in range(42)}, classes=[0, 1],
        image_shape=SHAPE, network="conv", epochs=1, steps_per_epoch=3, batch_size=20,
        random_state=0, device="cpu").fit(X, y, epsilon=1.0)
    assert [r.name for r in synth.privacy_report_.releases] == ["mean embedding",
                                                                 "label proportions"]
    assert synth.privacy_report_.epsilon == pytest.approx(1.0)
    Xs, ys = synth.sample(6, y=[0, 1, 0, 1, 0, 1], random_state=0)
    assert Xs.shape == (6, 42) and np.all((Xs >= 0) & (Xs <= 16))


# -- SumFeatures: patch features at several scales in one release ---------------

def _sum_map(weights=(2.0, 1.0, 1.0)):
    from skdpgen import RandomFourierFeatures
    from skdpgen.kernels import SumFeatures

    return SumFeatures([_fmap(), _fmap(patch_size=6, stride=1, n_filters=3, random_state=1),
                        RandomFourierFeatures(n_components=7, random_state=2)],
                       weights=weights).fit(np.zeros((1, SHAPE[0] * SHAPE[1])))


@pytest.mark.filterwarnings("ignore:invalid value encountered in reduce:RuntimeWarning")
@pytest.mark.parametrize("weights", [(2.0, 1.0, 1.0), (1.0, 0.0, 0.0), None])
def test_sum_norm_at_most_one_on_adversarial_images(weights):
    fmap = _sum_map(weights)
    X = _adversarial_images()
    assert np.all(np.linalg.norm(fmap.raw_transform(X), axis=1) <= 1.0 + 1e-12)
    assert np.all(np.linalg.norm(fmap.transform(X), axis=1) <= 1.0)
    bounded = torch.as_tensor(X[np.abs(X).max(1) <= 1])
    assert bool(torch.all(torch.linalg.vector_norm(fmap.torch_transform(bounded), dim=1) <= 1))


def test_sum_kernel_is_the_weighted_sum():
    fmap = _sum_map()
    X = np.random.default_rng(5).uniform(-1, 1, size=(4, SHAPE[0] * SHAPE[1]))
    K = fmap.transform(X) @ fmap.transform(X).T
    parts = [m.transform(X) @ m.transform(X).T for m in fmap.maps_]
    np.testing.assert_allclose(K, sum(w * k for w, k in zip([0.5, 0.25, 0.25], parts)),
                               atol=1e-12)
    Xt, Wt = torch.as_tensor(X), torch.rand(4, 2, dtype=torch.float64)
    np.testing.assert_allclose(fmap.raw_feature_sum(Xt, Wt).numpy(),
                               fmap.transform(X).T @ Wt.numpy(), atol=1e-12)


@pytest.mark.parametrize("weights", [(1.0, -1.0, 1.0), (0.0, 0.0, 0.0), (1.0, 2.0)])
def test_sum_refuses_bad_weights(weights):
    with pytest.raises(ValueError, match="weights"):
        _sum_map(weights)


def test_without_image_shape_a_row_is_one_line_of_pixels():
    """``image_shape=None``: a row is a 1 x d image; its patches are runs of
    ``min(patch_size, d)`` neighbouring columns, and the norm stays one."""
    X = np.random.default_rng(0).uniform(-1, 1, size=(4, 5))
    fmap = PatchFourierFeatures(patch_size=3, stride=1, n_filters=2, random_state=0).fit(X)
    assert fmap.filters_.shape == (2, 1, 3)
    assert fmap.n_locations_ == 3 and fmap.n_features_out_ == 12
    np.testing.assert_allclose(np.linalg.norm(fmap.transform(X), axis=1), 1.0)
    wide = PatchFourierFeatures(patch_size=9, n_filters=2, random_state=0).fit(X)
    assert wide.filters_.shape == (2, 1, 5) and wide.n_locations_ == 1
