"""HistogramFeatures and the synthesizers' marginal calibration."""

import math
import pickle

import numpy as np
import pandas as pd
import pytest

from skdpgen import DPHPSynthesizer, DPMERFSynthesizer, KMESynthesizer, MarginalSynthesizer
from skdpgen.kernels import HermiteFeatures, HistogramFeatures, RandomFourierFeatures
from skdpgen.schema import TableEncoder
from skdpgen.synthesizers import MarginalCalibration
from skdpgen.synthesizers._calibration import marginal_cell_maps
from skdpgen.synthesizers._calibration import _apply_map, _quantile_map, _tilt
from skdpgen.synthesizers._policy import POLICY

pytestmark = pytest.mark.usefixtures("one_torch_thread")


# -- HistogramFeatures ---------------------------------------------------------


def _encoded_rows(rng, n, n_numeric, sizes, spread=1.0):
    numeric = rng.uniform(-spread, spread, size=(n, n_numeric))
    blocks = [np.eye(k)[rng.integers(0, k, n)] for k in sizes]
    return np.hstack([numeric] + blocks)


def test_histogram_features_are_the_cells_one_hot_over_sqrt_d():
    Z = np.array([[-1.0, 0.99, 1.0, 0.0, 0.0, 1.0],
                  [-0.01, 2.0, 0.0, 1.0, 0.0, 1.0]])
    fmap = HistogramFeatures(bins=4, category_sizes=[3, 1]).fit(Z)
    assert fmap.n_cells_ == [4, 4, 3, 1] and fmap.n_features_out_ == 12
    # -1 -> cell 0, 0.99 -> 3, -0.01 -> 1, 2.0 (beyond the bounds) -> 3
    np.testing.assert_array_equal(fmap.cells(Z), [[0, 3, 0, 0], [1, 3, 1, 0]])
    H = fmap.transform(Z)
    np.testing.assert_allclose(np.linalg.norm(H, axis=1), 1.0)
    np.testing.assert_allclose(H[0] * 2.0, [1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 1])


def test_cell_maps_group_entries_and_indicators_give_a_missing_cell():
    # numeric column 0 with its indicator (block 1); block 0 grouped 4 -> 2 cells
    fmap = HistogramFeatures(bins=2, category_sizes=[4, 2], cell_maps=[[0, 0, 1, 1], None],
                             indicators=[1]).fit(np.zeros((1, 7)))
    assert fmap.n_cells_ == [3, 2]
    Z = np.array([[0.5, 0, 0, 1, 0, 1, 0],    # present, value cell 1; level 2 -> cell 1
                  [0.0, 1, 0, 0, 0, 0, 1]])   # missing -> cell 2; level 0 -> cell 0
    np.testing.assert_array_equal(fmap.cells(Z), [[1, 1], [2, 0]])
    np.testing.assert_allclose(np.linalg.norm(fmap.transform(Z), axis=1), 1.0)


@pytest.mark.parametrize("params, match", [
    (dict(category_sizes=[5]), "fewer than"),
    (dict(category_sizes=[2], cell_maps=[None, None]), "cell_maps has 2"),
    (dict(category_sizes=[2], cell_maps=[[0]]), "cell_maps\\[0\\]"),
    (dict(category_sizes=[3], indicators=[0]), "2-wide block"),
    (dict(category_sizes=[2], indicators=[0]), "indicators has 1"),
])
def test_histogram_features_reject_inconsistent_layouts(params, match):
    with pytest.raises(ValueError, match=match):
        HistogramFeatures(**params).fit(np.zeros((1, 4)))


def test_histogram_sensitivity_is_sqrt2_and_attained():
    """Non-negative unit rows: ‖h(x) − h(x′)‖ ≤ √2, with equality when every
    cell differs; adversarial rows (far outside [-1, 1], soft blocks) too."""
    fmap = HistogramFeatures(bins=8, category_sizes=[3, 2]).fit(np.zeros((1, 7)))
    assert fmap.nonnegative and fmap.max_row_distance == math.sqrt(2.0)
    assert HermiteFeatures().max_row_distance == 2.0
    assert RandomFourierFeatures().max_row_distance == 2.0
    rng = np.random.default_rng(0)
    Z = _encoded_rows(rng, 400, 2, [3, 2], spread=1e6)
    soft = rng.dirichlet(np.ones(3), size=400)
    Z[200:, 2:5] = soft[200:]  # probabilities instead of one-hot entries
    H = fmap.transform(Z)
    assert (H >= 0).all()
    gaps = np.linalg.norm(H[:, None, :] - H[None, :, :], axis=-1)
    assert gaps.max() <= math.sqrt(2.0) + 1e-12
    far = fmap.transform(np.array([[-1.0, -1.0, 1, 0, 0, 1, 0], [1.0, 1.0, 0, 0, 1, 0, 1]]))
    assert np.linalg.norm(far[0] - far[1]) == pytest.approx(math.sqrt(2.0), rel=1e-12)


def test_histogram_rows_are_nonnegative_unit_vectors_whatever_the_input():
    """Negative or huge block entries (a table that is not an encoding) must
    not break the √2 bound: every row is one cell per column."""
    fmap = HistogramFeatures(bins=2, category_sizes=[2, 3]).fit(np.zeros((1, 6)))
    Z = np.array([[0.5, -5.0, 5.0, -1e9, 0.0, 1e9],
                  [0.5, 5.0, -5.0, 1e9, -1e9, 0.0],
                  [-np.inf, 0.0, 0.0, 0.0, 0.0, 0.0]])
    H = fmap.raw_transform(np.nan_to_num(Z, neginf=-1e300))
    assert (H >= 0).all()
    np.testing.assert_allclose(np.linalg.norm(H, axis=1), 1.0)
    assert np.linalg.norm(H[0] - H[1]) <= fmap.max_row_distance + 1e-12


def test_histogram_torch_path_equals_numpy():
    import torch

    fmap = HistogramFeatures(bins=5, category_sizes=[3]).fit(np.zeros((1, 5)))
    Z = _encoded_rows(np.random.default_rng(1), 50, 2, [3])
    T = fmap.raw_transform(torch.as_tensor(Z))
    np.testing.assert_allclose(T.numpy(), fmap.raw_transform(Z), rtol=0, atol=0)


def test_marginal_cell_maps_follow_the_encoding():
    X = pd.DataFrame({"x": [0.1, np.nan, 0.5, 0.9], "k": [0, 150, 299, 3],
                      "c": ["a", "b", "a", "c"], "small": [1, 2, 3, 1]})
    schema = {"x": {"type": "numeric", "bounds": [0, 1], "missing": True},
              "k": {"type": "numeric", "bounds": [0, 299], "integer": True},
              "c": {"type": "categorical", "categories": ["a", "b", "c"]},
              "small": {"type": "numeric", "bounds": [1, 3], "integer": True}}
    enc = TableEncoder(schema, max_levels=300).fit(X)
    params = marginal_cell_maps(enc, bins=16)
    fmap = HistogramFeatures(bins=16, **params).fit(np.zeros((1, enc.n_encoded_)))
    # x: 16 bins + missing; k: 300 levels in 16 groups; c: 3 categories; small: 3 levels
    assert sorted(fmap.n_cells_) == sorted([17, 16, 3, 3])
    cells = fmap.cells(enc.transform(X))
    x_col = fmap.n_cells_.index(17)
    assert cells[1, x_col] == 16  # the missing value's cell
    k_map = params["cell_maps"][enc.block_columns_.index("k")]
    assert k_map[0] == 0 and k_map[-1] == 15 and np.all(np.diff(k_map) >= 0)


# -- the tilt ------------------------------------------------------------------


def test_tilt_reaches_a_feasible_target_and_ignores_a_noisy_one():
    rng = np.random.default_rng(0)
    cells = np.c_[rng.integers(0, 4, 20000), 4 + rng.integers(0, 3, 20000)]
    mu = np.r_[[0.1, 0.2, 0.3, 0.4], [0.5, 0.25, 0.25]]

    def weighted(lam):
        w = np.exp(lam[cells].sum(1))
        w /= w.sum()
        return np.bincount(cells.ravel(), weights=np.repeat(w, 2), minlength=7)

    np.testing.assert_allclose(weighted(_tilt(cells, mu, 1e-6)), mu, atol=1e-3)
    lam = _tilt(cells, mu, 1e6)  # the noise swamps the release: weights stay uniform
    assert np.abs(lam).max() < 1e-5


# -- the column maps -----------------------------------------------------------


def _cells_of(x, bins):
    return np.minimum(((np.clip(x, -1, 1) + 1) * bins / 2).astype(int), bins - 1)


def test_column_map_gives_each_cell_its_share_keeps_order_and_spreads_ties():
    rng = np.random.default_rng(0)
    bins = 8
    # a smooth generated column, a target with point-mass-like empty cells
    x = np.clip(rng.normal(0, 0.5, 40_000), -1, 1)
    p = np.array([0.3, 0.0, 0.0, 0.25, 0.05, 0.0, 0.3, 0.1])
    knots = _quantile_map(x, _cells_of(x, bins), p)
    fresh = np.clip(rng.normal(0, 0.5, 40_000), -1, 1)
    y = _apply_map(fresh, knots, rng)
    got = np.bincount(_cells_of(y, bins), minlength=bins) / y.size
    before = np.bincount(_cells_of(fresh, bins), minlength=bins) / y.size
    assert 0.5 * np.abs(before - p).sum() > 0.4
    assert 0.5 * np.abs(got - p).sum() < 0.02, got
    order = np.argsort(fresh)
    assert np.all(np.diff(y[order]) >= -1e-12)  # monotone: the ranks are kept
    # inside a cell, the generated values' shape: the map of a cell onto itself
    # is the identity up to the knots' resolution
    same = _quantile_map(x, _cells_of(x, bins), np.bincount(_cells_of(x, bins),
                                                            minlength=bins) / x.size)
    inner = np.abs(fresh) < 0.7
    assert np.abs(_apply_map(fresh, same, rng)[inner] - fresh[inner]).max() < 4 / POLICY.cell_knots
    # a point mass of generated values (the tanh's saturation) is spread over its levels
    z = np.r_[np.full(5000, 1.0), rng.uniform(-1, 1, 5000)]
    flat = _quantile_map(z, _cells_of(z, bins), np.full(bins, 1 / bins))
    out = _apply_map(np.ones(10_000), flat, rng)
    assert np.unique(_cells_of(out, bins)).size >= 4


def test_column_maps_keep_the_rank_structure_and_move_the_marginals():
    """A "generator" with a strong rank correlation and wrong marginals: the
    calibrated columns match the released histograms and keep Spearman's ρ."""
    from scipy.stats import spearmanr

    rng = np.random.default_rng(1)
    n = 20_000
    a = rng.beta(5, 2, n)
    X = pd.DataFrame({"a": a, "b": np.clip(a + rng.normal(0, 0.05, n), 0, 1)})
    spec = {"type": "numeric", "bounds": [0, 1]}
    enc = TableEncoder({"a": spec, "b": spec}).fit(X)
    cal = MarginalCalibration(bins=8).setup(enc)
    exact = cal.features_.transform(enc.transform(X)).mean(0)
    cal._n_rows, cal._noise_std = n, math.sqrt(2) / n
    cal.targets_ = (exact + rng.normal(0, cal._noise_std, exact.size))[None, :]

    def draw(m, c):  # right ranks (b follows a), wrong marginals (uniform)
        u = rng.uniform(-1, 1, m)
        return np.c_[u, np.clip(u + rng.normal(0, 0.1, m), -1, 1)], []

    cal.fit(draw, None, rng)
    numeric, codes = cal.sample(draw, None, n, rng)
    cells = cal.features_.cells_of_codes(numeric, codes)
    real = cal.features_.cells(enc.transform(X))
    for j in range(2):
        got = np.bincount(cells[:, j], minlength=8) / n
        want = np.bincount(real[:, j], minlength=8) / n
        assert 0.5 * np.abs(got - want).sum() < 0.02
    rho_generated = spearmanr(*draw(n, None)[0].T)[0]
    assert spearmanr(numeric[:, 0], numeric[:, 1])[0] == pytest.approx(rho_generated, abs=0.02)


# -- synthesizers --------------------------------------------------------------


def _table(rng, n=2000):
    a = rng.normal(size=n)
    X = pd.DataFrame({"a": a, "b": np.where(a + rng.normal(size=n) > 1, "x", "y"),
                      "e": rng.exponential(size=n)})
    schema = {"a": {"type": "numeric", "bounds": [-4, 4]},
              "b": {"type": "categorical", "categories": ["x", "y"]},
              "e": {"type": "numeric", "bounds": [0, 8]}}
    return X, schema


def _tv(real, syn, bins):
    p = np.histogram(real, bins=bins)[0] / len(real)
    q = np.histogram(syn, bins=bins)[0] / len(syn)
    return 0.5 * np.abs(p - q).sum()


@pytest.mark.parametrize("cls", [DPHPSynthesizer, DPMERFSynthesizer])
def test_calibration_release_is_reported_and_composes(cls):
    X, schema = _table(np.random.default_rng(0))
    y = np.where(X["a"] > 0, "p", "q")
    # DP-HP's Hermite kernels (its marginal mechanism releases the one-way
    # marginals itself and has no calibration by default)
    kernels = {"product_kernel": "pairwise"} if cls is DPHPSynthesizer else {}
    synth = cls(schema=schema, classes=["p", "q"], epochs=1, steps_per_epoch=2,
                random_state=0, **kernels).fit(X, y, epsilon=1.0)
    releases = {r.name: r for r in synth.privacy_report_.releases}
    assert releases["one-way marginals"].sensitivity == pytest.approx(math.sqrt(2) / len(X))
    assert synth.privacy_report_.epsilon == pytest.approx(1.0, abs=1e-6)
    assert synth.privacy_report_.is_private
    cal = synth.calibration_
    assert cal.targets_.shape == (2, cal.features_.n_features_out_)
    assert np.isfinite(cal.coef_).all()
    assert len(cal.maps_) == 2  # one map per numeric column, shared by the classes
    X_syn, y_syn = synth.sample(300, random_state=0)
    assert X_syn.shape == (300, 3) and set(y_syn) <= {"p", "q"}
    X_p, _ = synth.sample(50, y="p", random_state=0)
    assert len(X_p) == 50
    again = pickle.loads(pickle.dumps(synth))
    pd.testing.assert_frame_equal(again.sample(20, random_state=3)[0],
                                  synth.sample(20, random_state=3)[0])


def test_marginal_share_zero_or_images_turn_calibration_off():
    # and the marginal mechanism's "auto": its own one-way release, no calibration
    X, schema = _table(np.random.default_rng(0), n=300)
    assert MarginalSynthesizer(schema=schema, epochs=1, steps_per_epoch=1,
                               random_state=0).fit(X).calibration_ is None
    X, schema = _table(np.random.default_rng(0), n=300)
    synth = DPHPSynthesizer(schema=schema, marginal_share=0.0, epochs=1, steps_per_epoch=1,
                            product_kernel="pairwise", random_state=0).fit(X)
    assert synth.calibration_ is None
    assert "one-way marginals" not in {r.name for r in synth.privacy_report_.releases}
    images = np.random.default_rng(0).uniform(0, 1, size=(64, 16))
    img = DPHPSynthesizer(bounds=(0, 1), schema={j: {"type": "numeric", "bounds": [0, 1],
                                                      "integer": False, "missing": False}
                                                  for j in range(16)},
                          image_shape=(4, 4), network="conv", epochs=1, steps_per_epoch=1,
                          batch_size=8, random_state=0).fit(images)
    assert img.calibration_ is None


def test_calibration_fits_and_samples_a_known_tilt():
    """A uniform "generator" and histograms released from a skewed table
    (noise of n = 20,000 rows at ε ≈ 4): the calibrated samples' histograms
    match the table's to within the noise, column by column."""
    rng = np.random.default_rng(0)
    n = 20_000
    X = pd.DataFrame({"a": rng.beta(2, 5, n), "b": rng.choice(["x", "y", "z"], n, p=[.6, .3, .1])})
    enc = TableEncoder({"a": {"type": "numeric", "bounds": [0, 1]},
                        "b": {"type": "categorical", "categories": ["x", "y", "z"]}}).fit(X)
    cal = MarginalCalibration(bins=8).setup(enc)
    exact = cal.features_.transform(enc.transform(X)).mean(0)
    cal._n_rows, cal._noise_std = n, 1.0 * math.sqrt(2) / n  # σ = 1
    cal.targets_ = (exact + rng.normal(0, cal._noise_std, exact.size))[None, :]

    def draw(m, c):  # uniform numbers and categories: far from the table
        return rng.uniform(-1, 1, (m, 1)), [rng.integers(0, 3, m)]

    cal.fit(draw, None)
    numeric, codes = cal.sample(draw, None, 20_000, rng)
    hist_a = np.bincount(cal.features_.cells_of_codes(numeric, codes)[:, 0], minlength=8) / 20_000
    hist_b = np.bincount(codes[0], minlength=3) / 20_000
    real_a = np.bincount(cal.features_.cells(enc.transform(X))[:, 0], minlength=8) / n
    real_b = np.array([.6, .3, .1])
    uniform_tv = 0.5 * np.abs(real_a - 1 / 8).sum()
    assert uniform_tv > 0.3
    assert 0.5 * np.abs(hist_a - real_a).sum() < 0.05
    assert 0.5 * np.abs(hist_b - real_b).sum() < 0.03


def test_calibration_improves_a_barely_trained_generator():
    """End to end, a generator after ten steps at a budget where the
    histograms' noise is small: calibration brings the numeric columns' 1-way
    TV down to a fraction and the categorical share to the data's (measured,
    seeds 0-1, 10 and 30 steps: 0.18-0.68 uncalibrated, 0.02-0.03
    calibrated; after a single step the generator does not cover the data's
    range and no reweighting can)."""
    rng = np.random.default_rng(0)
    X, schema = _table(rng, n=5000)
    kwargs = dict(schema=schema, epochs=1, steps_per_epoch=10, random_state=0,
                  features=RandomFourierFeatures(n_components=20))
    plain = KMESynthesizer(marginal_share=0.0, **kwargs).fit(X, epsilon=50.0)
    calibrated = KMESynthesizer(marginal_share=0.5, **kwargs).fit(X, epsilon=50.0)
    A, _ = plain.sample(5000, random_state=1)
    B, _ = calibrated.sample(5000, random_state=1)
    grids = (("a", np.linspace(-4, 4, 17)), ("e", np.linspace(0, 8, 17)))
    tv_plain = np.mean([_tv(X[col], A[col], bins) for col, bins in grids])
    tv_cal = np.mean([_tv(X[col], B[col], bins) for col, bins in grids])
    assert tv_plain > 0.1 and tv_cal < 0.35 * tv_plain, (tv_plain, tv_cal)
    b_real, b_cal = (X["b"] == "x").mean(), (B["b"] == "x").mean()
    assert abs(b_cal - b_real) < 0.03
