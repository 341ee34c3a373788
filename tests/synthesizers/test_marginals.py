"""The marginal mechanism: indicator features, their bound, the releases, the mixture."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
import torch

from skdpgen import DPHPSynthesizer, MarginalSynthesizer
from skdpgen.kernels import MarginalFeatures
from skdpgen.privacy import GaussianAccountant, calibrate_gaussian, reproducible_noise
from skdpgen.schema import TableEncoder
from skdpgen.synthesizers import MixtureGenerator
from skdpgen.synthesizers.mechanisms._marginal_design import marginal_design
from skdpgen.synthesizers.mechanisms._marginal_cells import pair_groups, simplex_projection
from skdpgen.synthesizers.mechanisms._marginal_checks import SPREAD_FACTOR
from skdpgen.synthesizers._policy import POLICY

FAST = dict(epochs=2, steps_per_epoch=20, batch_size=40, random_state=0, device="cpu")
MFAST = dict(epochs=2, steps_per_epoch=20, n_components=40, random_state=0, device="cpu")


def _one_hot(codes, sizes):
    return np.concatenate([np.eye(s)[c] for s, c in zip(sizes, codes)], axis=1)


# -- the feature map -----------------------------------------------------------------


@pytest.mark.parametrize("degree", [1, 2, 3])
def test_marginal_features_are_the_marginals(degree):
    rng = np.random.default_rng(0)
    sizes = [3, 4, 2, 5]
    codes = [rng.integers(0, s, 200) for s in sizes]
    Z = _one_hot(codes, sizes)
    fmap = MarginalFeatures(category_sizes=sizes, degree=degree).fit(Z)
    assert len(fmap.marginals_) == math.comb(len(sizes), degree)
    for m, cells in zip(fmap.marginals_, fmap.cells(fmap.transform(Z).mean(axis=0))):
        index = np.ravel_multi_index(tuple(codes[a] for a in m), cells.shape)
        exact = np.bincount(index, minlength=cells.size).reshape(cells.shape) / 200
        np.testing.assert_allclose(cells, exact, atol=1e-12)
    # the fused sums, the torch path and the plain transform agree
    w = rng.random((200, 3))
    np.testing.assert_allclose(fmap.feature_sum(Z, w), fmap.transform(Z).T @ w, atol=1e-12)
    torch_sum = fmap.raw_feature_sum(torch.as_tensor(Z), torch.as_tensor(w)).numpy()
    np.testing.assert_allclose(torch_sum, fmap.transform(Z).T @ w, atol=1e-12)


ADVERSARIAL = [np.inf, 1e300, -1e300, 7.0, -3.0, 0.5, 1.0, 0.0]


def test_marginal_features_are_bounded_and_nonnegative_on_any_input():
    """Every row has norm ≤ 1 and non-negative features, whatever its entries;
    two rows are at most √2 apart (the sensitivity √2/n the releases claim);
    a one-hot row has norm 1, and two one-hot rows in different cells of every
    marginal attain √2 exactly."""
    rng = np.random.default_rng(1)
    sizes = [3, 4, 2]
    groups = [None, np.array([0, 0, 1, 1]), None]
    rows = [rng.choice(ADVERSARIAL[1:], size=sum(sizes)) for _ in range(300)]
    rows += [rng.normal(0, 10, sum(sizes)) for _ in range(100)]
    rows += [_one_hot([[rng.integers(0, s)] for s in sizes], sizes)[0] for _ in range(50)]
    R = np.vstack(rows)
    for fmap in (MarginalFeatures(category_sizes=sizes, degree=1).fit(R),
                 MarginalFeatures(category_sizes=sizes, degree=2, groups=groups).fit(R),
                 MarginalFeatures(category_sizes=sizes, degree=3).fit(R)):
        H = fmap.transform(R)
        assert np.all(np.isfinite(H)) and np.all(H >= 0)
        assert np.all(np.linalg.norm(H, axis=1) <= 1.0)
        # the private path's sums: each row clipped, so a sum moves by ≤ √2 per row
        sums = np.stack([fmap.feature_sum(R[i:i + 1], np.ones((1, 1)))[:, 0]
                         for i in range(len(R))])
        gaps = np.linalg.norm(sums[:, None, :] - sums[None, :, :], axis=-1)
        assert gaps.max() <= fmap.max_row_distance + 1e-12 == math.sqrt(2) + 1e-12
        a, b = _one_hot([[0], [0], [0]], sizes), _one_hot([[2], [3], [1]], sizes)
        assert np.linalg.norm(fmap.transform(a)) == pytest.approx(1.0)
        assert np.linalg.norm(fmap.transform(a) - fmap.transform(b)) == pytest.approx(
            math.sqrt(2))


def test_marginal_features_groups_count_coarse_cells():
    sizes = [6, 3]
    codes = [np.array([0, 1, 2, 5]), np.array([0, 1, 2, 2])]
    Z = _one_hot(codes, sizes)
    fmap = MarginalFeatures(category_sizes=sizes, groups=[np.array([0, 0, 1, 1, 2, 2]), None])
    cells = fmap.fit(Z).cells(fmap.transform(Z).mean(axis=0))[0]
    assert cells.shape == (3, 3)
    np.testing.assert_allclose(cells, [[0.25, 0.25, 0], [0, 0, 0.25], [0, 0, 0.25]])
    with pytest.raises(ValueError, match="groups"):
        MarginalFeatures(category_sizes=sizes, groups=[np.array([0, 2, 2, 2, 2, 2]), None]).fit(Z)


@pytest.mark.parametrize("degree", [1, 2, 3])
def test_encoded_rows_are_counted_as_the_products_sum_them(degree):
    # exactly one-hot rows (an encoded table) are summed by counting their cells
    # (issue 43: no Gram products over the rows); the sums are the general path's
    rng = np.random.default_rng(0)
    sizes, n = [3, 12, 2, 5], 3000
    X = np.hstack([np.eye(s)[rng.integers(0, s, n)] for s in sizes])
    groups = [None, (np.arange(12) * 4) // 12, None, None]
    fmap = MarginalFeatures(category_sizes=sizes, degree=degree, groups=groups).fit(X[:1])
    W = np.eye(2)[rng.integers(0, 2, n)] * rng.random((n, 1))
    assert fmap._one_hot_codes(X) is not None
    counted = fmap.feature_sum(X, W)
    fmap._one_hot_codes = lambda X: None  # the general path
    np.testing.assert_allclose(counted, fmap.feature_sum(X, W), rtol=1e-12, atol=1e-12)
    # a row that is not one-hot (a broken encoding, or any other input): the general path
    X[0, :3] = [0.5, 0.5, 0.0]
    assert MarginalFeatures(category_sizes=sizes, degree=degree).fit(X[:1])._one_hot_codes(X) is None


def test_pair_groups_merge_ordered_columns_only():
    schema = {"age": {"type": "numeric", "bounds": [0, 99], "integer": True, "missing": True},
              "x": {"type": "numeric", "bounds": [0, 1]},
              "city": {"type": "categorical", "categories": [str(i) for i in range(30)]},
              "small": {"type": "numeric", "bounds": [1, 5], "integer": True}}
    enc = TableEncoder(schema, max_levels=100, bins=32).fit(
        pd.DataFrame({"age": [30, 40], "x": [0.5, 0.2], "city": ["3", "4"], "small": [2, 3]}))
    groups = dict(zip(enc.block_columns_, pair_groups(enc, 8)))
    assert groups["city"] is None and groups["small"] is None
    # 32 bins in 8 groups, then the slot of exact zeros (bounds holding 0) alone
    assert groups["x"].size == 33 and groups["x"][-1] == 8
    assert groups["x"][:-1].max() + 1 == 8 and np.all(np.diff(groups["x"][:-1]) >= 0)
    # 100 levels in 8 groups of consecutive levels, then the missing slot alone
    assert groups["age"].size == 101 and groups["age"][-1] == 8
    assert np.bincount(groups["age"][:-1]).tolist() == [13, 12, 13, 12, 13, 12, 13, 12]


# -- the mixture ----------------------------------------------------------------------


def test_mixture_trains_on_all_rows_and_samples_its_class_rows():
    net = MixtureGenerator(7, 3, [2, 3])
    net.reset_parameters(torch.Generator().manual_seed(0))
    rows = net(torch.zeros(7, 1), torch.arange(7) % 3)
    assert rows.shape == (7, 5)
    torch.testing.assert_close(rows[:, :2].sum(1), torch.ones(7))
    with pytest.raises(ValueError, match="7 rows"):
        net(torch.zeros(5, 1), torch.arange(5) % 3)
    net.eval()
    z = torch.randn(3000, 1, generator=torch.Generator().manual_seed(1))
    for c, owned in ((0, [0, 3, 6]), (1, [1, 4]), (2, [2, 5])):  # rows c, c + 3, ...
        out = net(z, torch.full((3000,), c))
        picked = [int(torch.argmin(torch.cdist(r[None], rows.detach()))) for r in out[:300]]
        assert set(picked) == set(owned)
        counts = np.bincount(picked, minlength=7)[owned]
        assert counts.min() > 0.5 * counts.max()  # uniform over the class's rows


@pytest.mark.parametrize("seed", range(5))
def test_simplex_projection_is_the_nearest_histogram(seed):
    rng = np.random.default_rng(seed)
    v = rng.normal(0.1, 0.3, 12)
    p = simplex_projection(v)
    assert p.min() >= 0 and p.sum() == pytest.approx(1.0)
    for _ in range(200):  # no other histogram is nearer
        q = rng.dirichlet(np.ones(12) * rng.uniform(0.05, 2))
        assert np.sum((v - p) ** 2) <= np.sum((v - q) ** 2) + 1e-12


# -- the mechanism in a fit ------------------------------------------------------------


def _table(n=600, seed=0):
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 90, n)
    X = pd.DataFrame({
        "age": age,
        "hours": np.where(rng.random(n) < 0.45, 40, rng.integers(1, 100, n)),
        "city": np.where(age > 50, "Lyon", rng.choice(["Paris", "Nice"], n)),
        "income": np.where(rng.random(n) < 0.1, np.nan, rng.lognormal(10, 1, n)),
    })
    y = np.where((age > 50) ^ (rng.random(n) < 0.1), "yes", "no")
    schema = {"age": {"type": "numeric", "bounds": [17, 90], "integer": True},
              "hours": {"type": "numeric", "bounds": [1, 99], "integer": True},
              "city": {"type": "categorical", "categories": ["Lyon", "Nice", "Paris"]},
              "income": {"type": "numeric", "bounds": [0, 5e5], "missing": True}}
    return X, y, schema


def test_marginal_synthesizer_releases_the_marginals_to_a_mixture():
    X, y, schema = _table(2000)
    synth = MarginalSynthesizer(schema=schema, classes=["no", "yes"], **MFAST).fit(X, y)
    names = [r.name for r in synth.privacy_report_.releases]
    assert names == ["one-way marginals", "one-way marginals by class", "two-way marginals",
                     "two-way marginals by class", "label proportions"]
    assert synth.privacy_report_.epsilon == pytest.approx(1.0, rel=1e-6)
    assert type(synth.network_).__name__ == "MixtureGenerator"
    assert synth.encoder_.n_numeric_ == 0  # every column one-hot
    # an integer column keeps its values as cells only where the design's bins
    # would allow as many cells (a value's count above its noise): here none
    bins = synth.bins_
    assert bins < 74 and synth.encoder_.level_columns_ == []
    assert synth.encoder_.binned_columns_ == ["age", "hours", "income"]
    wide = MarginalSynthesizer(schema=schema, classes=["no", "yes"], max_levels=100, **MFAST)
    assert wide.fit(X, y).encoder_.level_columns_ == ["age", "hours"]  # declared: kept
    Xs, ys = synth.sample(500, random_state=0)
    assert list(Xs.columns) == list(X.columns) and set(ys) <= {"no", "yes"}
    assert Xs["age"].between(17, 90).all() and Xs["income"].isna().any()
    Xy, yy = synth.sample(50, y="yes", random_state=0)
    assert (yy == "yes").all()


def test_the_design_drops_pairs_that_would_be_noise():
    # 400 rows, 4 columns at epsilon 1: the four one-way marginals and one pair
    # would carry about 17.6 rows of noise a cell, more than 400 /
    # POLICY.pair_precision (1,126 rows clear it); 2,000 rows measure every pair
    # (the test above)
    X, y, schema = _table(400)
    with pytest.warns(UserWarning, match="Every column is drawn independently"):
        synth = MarginalSynthesizer(schema=schema, classes=["no", "yes"], **MFAST).fit(X, y)
    names = [r.name for r in synth.privacy_report_.releases]
    assert names == ["one-way marginals", "one-way marginals by class", "label proportions"]
    assert (synth.pair_share_, 0, synth.bins_) == marginal_design(400, 4, 1.0, 1e-5)
    assert synth.pair_share_ == 0.0 and synth.measured_pairs_ == []
    assert synth.pair_share == "auto"  # the parameter is left as given
    # a declared share is kept
    kept = MarginalSynthesizer(schema=schema, classes=["no", "yes"], pair_share=0.9,
                               **MFAST).fit(X, y)
    assert "two-way marginals" in [r.name for r in kept.privacy_report_.releases]


@pytest.mark.parametrize("n, d, eps", [(600, 4, 1.0), (30_000, 14, 1.0), (2_800, 69, 0.3),
                                       (10**6, 2, 8.0), (50, 1, 1.0), (20_000, 15, 0.1),
                                       (4_000, 27, 1.0)])
def test_marginal_design_follows_its_noise_levels(n, d, eps):
    share, k, bins = marginal_design(n, d, eps, 1e-5)
    sigma = calibrate_gaussian(eps, 1e-5)
    every = d * (d - 1) // 2

    def precise(marginals, at):  # a cell's noise at most n / POLICY.pair_precision
        return n >= POLICY.pair_precision * sigma / np.sqrt(at / 2) * np.sqrt(2 * marginals)

    sel = POLICY.selection_share
    assert (k == every > 0) == (d > 1 and precise(every, 0.9))
    if 0 < k < every:  # chosen privately: all d + k marginals precise, not one more
        assert precise(d + k, 1 - sel) and not precise(d + k + 1, 1 - sel)
        assert share == pytest.approx(sel + (1 - sel) * k / (d + k))
    if k == 0:
        assert share == 0 and (d == 1 or not precise(d + 1, 1 - sel))
    one_noise = sigma / np.sqrt((1 - share) / 2) * np.sqrt(2 * d)
    fewest, most = POLICY.bin_range
    assert fewest <= bins <= most and bins % POLICY.bin_step == 0
    if bins > fewest:
        assert n / bins >= POLICY.bin_precision * one_noise
    if bins < most:
        assert n / (bins + POLICY.bin_step) < POLICY.bin_precision * one_noise


@pytest.mark.parametrize("n, d, eps, pair_share", [
    (10_000, 27, 1.0, 0.1),   # 21 pairs precise at 0.1 less the selection's 0.05
    (20_000, 15, 0.3, 0.15),
    (4_000, 10, 1.0, 0.05),
    (4_000, 10, 1.0, 0.3),
    (600, 4, 1.0, 0.1),       # not one pair precise: one all the same
])
def test_a_given_pair_share_plans_the_pairs_precise_in_it_less_the_selection(
        n, d, eps, pair_share):
    # marginal_design's rule for a pair_share the user set: when not every
    # pair is precise at it, the most pairs (at least one) precise at
    # pair_share less the selection's share, which is POLICY.selection_share
    # but at most half of pair_share (selection_share's docstring); the
    # share is the user's
    share, k, _ = marginal_design(n, d, eps, 1e-5, pair_share=pair_share)
    sigma = calibrate_gaussian(eps, 1e-5)
    every = d * (d - 1) // 2

    def precise(marginals, at):  # a cell's noise at most n / POLICY.pair_precision
        return n >= POLICY.pair_precision * sigma / np.sqrt(at / 2) * np.sqrt(2 * marginals)

    sel = min(POLICY.selection_share, pair_share / 2)
    assert share == pair_share and not precise(every, pair_share)
    assert 1 <= k < every
    assert k == 1 or precise(k, pair_share - sel)
    assert not precise(k + 1, pair_share - sel)


def test_a_binned_integer_column_is_decoded_inside_its_bin():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 1000, 400)
    schema = {"x": {"type": "numeric", "bounds": [0, 999], "integer": True}}
    enc = TableEncoder(schema, max_levels=100, bins=32).fit(pd.DataFrame({"x": x}))
    codes = enc.transform(pd.DataFrame({"x": x}))[:, :32].argmax(1)
    out = enc.decode(np.zeros((400, 0)), [codes], random_state=0)
    back = enc.transform(out)[:, :32].argmax(1)
    np.testing.assert_array_equal(back, codes)  # every value stays in its bin
    assert np.all(out["x"] == np.round(out["x"]))


def test_the_loss_fits_the_noisy_releases_by_their_noise(monkeypatch):
    """The targets are what the noise site returned (per class divided by the
    class weights, the overall releases as they are), and the loss is the
    squared misfit of each entry over its noise variance."""
    X, y, schema = _table(2000)
    released = {}
    add_noise = GaussianAccountant.add_noise

    def spy(self, name, value, *, sensitivity):
        released[name] = add_noise(self, name, value, sensitivity=sensitivity)
        return released[name]

    monkeypatch.setattr(GaussianAccountant, "add_noise", spy)
    # products only: no column joined (a joined pair's loss reads its joint, tested in
    # test_marginal_fit.py); whether a fit joins depends on its noise
    import dataclasses
    import skdpgen.synthesizers.mechanisms.marginal as marginals
    monkeypatch.setattr(marginals, "POLICY", dataclasses.replace(POLICY, refine_rounds=0))
    synth = MarginalSynthesizer(schema=schema, classes=["no", "yes"], **MFAST).fit(X, y)
    mech = synth.mechanism_
    assert synth.joined_columns_ == []
    weights = synth.class_weights_
    np.testing.assert_allclose(mech.targets_["one-way marginals by class"][0],
                               (released["one-way marginals by class"] / weights).T, rtol=1e-6)
    np.testing.assert_allclose(mech.targets_["one-way marginals"][0],
                               released["one-way marginals"].T, rtol=1e-6)
    np.testing.assert_allclose(mech.targets_["two-way marginals"][0],
                               released["two-way marginals"].T, rtol=1e-6)
    np.testing.assert_allclose(mech.targets_["two-way marginals by class"][0],
                               (released["two-way marginals by class"] / weights).T, rtol=1e-6)
    # the loss: each entry's squared misfit over its noise variance, summed
    net = synth.network_.train()
    labels = torch.arange(2 * MFAST["n_components"]) % 2  # its components, both classes
    rows = net(torch.zeros(len(labels), 1), labels).detach().double()
    expected = 0.0
    std = {r.name: r.noise_std for r in synth.privacy_report_.releases}
    for name, fmap in (("one-way marginals by class", mech.features_),
                       ("one-way marginals", mech.features_),
                       ("two-way marginals by class", mech.pairwise_),
                       ("two-way marginals", mech.pairwise_)):
        H = fmap.transform(rows.numpy())
        means = np.stack([H[labels.numpy() == c].mean(0) for c in (0, 1)])
        variance = (std[name] / weights[:, None]) ** 2
        if not name.endswith("by class"):
            means, variance = weights @ means, std[name] ** 2
        expected += np.sum((mech.targets_[name][0] - means) ** 2 / variance)
    got = float(mech.loss(rows.float(), labels))
    assert got == pytest.approx(expected, rel=1e-3)
    assert synth.loss_history_[-1] < synth.loss_history_[0]


def test_marginal_synthesizer_has_only_the_parameters_it_uses():
    params = set(MarginalSynthesizer().get_params())
    assert not params & {"order", "length_scale", "product_order", "product_size", "gamma",
                         "product_kernel", "product_share", "pair_shrinkage", "batch_size",
                         "network", "network_widths", "noise_dim", "image_shape",
                         "marginal_share", "features"}
    assert {"n_components", "pair_share", "bins", "max_levels", "pair_cells"} <= params
    with pytest.raises(TypeError):
        MarginalSynthesizer(marginal_share=0.2)


def test_a_fit_without_noise_fits_the_exact_marginals():
    # epsilon = inf: every noise level is 0; the loss stays finite and the
    # samples follow the data (not all in one bin)
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, (3000, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synth = MarginalSynthesizer(bounds=(0, 1), classes=[0, 1],
                                    **{**MFAST, "steps_per_epoch": 50}).fit(X, np.arange(3000) % 2,
                                                                       epsilon=np.inf)
    assert np.all(np.isfinite(synth.loss_history_))
    Xs, _ = synth.sample(3000, random_state=0)
    counts = np.histogram(Xs[:, 0], bins=5, range=(0, 1))[0]
    assert counts.min() > 400  # about 600 per fifth


def test_the_row_count_of_dask_data_is_taken_once_and_only_when_needed(monkeypatch):
    # counting a Dask DataFrame's rows is a pass over it: the design counts them
    # for the marginal mechanism, shared with the schema share; a fit that needs no
    # count (a complete schema, Hermite kernels) makes none
    dd = pytest.importorskip("dask.dataframe")
    import skdpgen.rows._distributed as dask_rows

    frame = pd.DataFrame(np.random.default_rng(0).uniform(0, 1, (400, 2)), columns=["a", "b"])
    X = dd.from_pandas(frame, npartitions=2)
    counted, count = [], dask_rows.count_rows
    monkeypatch.setattr(dask_rows, "count_rows", lambda X: counted.append(1) or count(X))
    schema = {c: {"type": "numeric", "bounds": [0, 1]} for c in "ab"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        MarginalSynthesizer(schema=schema, **MFAST).fit(X)
        assert len(counted) == 1
        counted.clear()
        DPHPSynthesizer(schema=schema, **FAST).fit(X)
        assert counted == []
        MarginalSynthesizer(bounds=(0, 1), **MFAST).fit(X)  # the schema share too: still once
        assert len(counted) == 1


def test_unlabeled_data_gets_one_release_of_each_marginal():
    # without labels the by-class marginals are the overall ones: releasing both
    # (two passes over the rows, two half-shares) would only repeat them
    X, _, schema = _table(2000)
    synth = MarginalSynthesizer(schema=schema, **MFAST).fit(X)
    names = [r.name for r in synth.privacy_report_.releases]
    assert names == ["one-way marginals", "two-way marginals"]
    assert synth.privacy_report_.epsilon == pytest.approx(1.0, rel=1e-6)
    assert set(synth.mechanism_.targets_) == {"one-way marginals", "two-way marginals"}
    out = synth.sample(200, random_state=0)
    Xs = out[0] if isinstance(out, tuple) else out
    assert list(Xs.columns) == list(X.columns) and len(Xs) == 200


def test_columns_spread_by_the_noise_are_named():
    # the noise a column's empty cells may hold, from public quantities only:
    # named on 150 rows of 10 columns, not on 20,000
    rng = np.random.default_rng(0)
    schema = {f"b{i}": {"type": "categorical", "categories": [0, 1]} for i in range(9)}
    schema["age"] = {"type": "numeric", "bounds": [0, 100], "integer": True}
    for n, named in [(150, True), (20_000, False)]:
        X = pd.DataFrame({f"b{i}": rng.integers(0, 2, n) for i in range(9)})
        X["age"] = rng.integers(20, 40, n)
        with warnings.catch_warnings(record=True) as caught, reproducible_noise(0):
            warnings.simplefilter("always")
            synth = MarginalSynthesizer(schema=schema, **MFAST).fit(X)
        spread = [i for i in synth.schema_issues_ if i["problem"] == "spread"]
        assert [i["column"] for i in spread] == (["age"] if named else [])
        if named:
            assert spread[0]["share"] >= 0.1
            assert any("'age': up to" in str(w.message) for w in caught)


def test_a_sparse_column_spread_by_the_noise_is_named_by_its_values():
    # the share is of the column's values: on 20,000 rows an age present in 3 %
    # of them has 600 values, and its empty cells' noise may hold a large
    # share of those (under 10 % of the rows: a share of the rows named none)
    rng = np.random.default_rng(0)
    n = 20_000
    schema = {f"b{i}": {"type": "categorical", "categories": [0, 1]} for i in range(9)}
    schema["age"] = {"type": "numeric", "bounds": [0, 100], "integer": True, "missing": True}
    X = pd.DataFrame({f"b{i}": rng.integers(0, 2, n) for i in range(9)})
    X["age"] = np.where(rng.random(n) < 0.03, rng.integers(20, 40, n), np.nan)
    with warnings.catch_warnings(), reproducible_noise(0):
        warnings.simplefilter("ignore")
        synth = MarginalSynthesizer(schema=schema, **MFAST).fit(X)
    mech = synth.mechanism_
    spread = [i for i in synth.schema_issues_ if i["problem"] == "spread"]
    assert [i["column"] for i in spread] == ["age"]
    # under a tenth of the rows, above a tenth of the values
    rows = SPREAD_FACTOR * mech._cell_std * mech._places[mech._block_keys.index("age")]
    assert rows < 0.1 <= spread[0]["share"] <= 1.0


def test_independent_columns_are_never_silent():
    # 400 rows of 4 columns at epsilon 1: no pair is released, and the fit says so
    # with what would change it; 1,150 rows release a chosen pair, 2,000 all six,
    # and say nothing
    for n, independent in [(400, True), (1150, False), (2000, False)]:
        X, y, schema = _table(n)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            synth = MarginalSynthesizer(schema=schema, classes=["no", "yes"], **MFAST).fit(X, y)
        said = [str(w.message) for w in caught if "drawn independently" in str(w.message)]
        assert (synth.pair_share_ == 0) == independent
        assert len(said) == int(independent)
        if independent:
            assert "1,126 rows" in said[0] and "epsilon >= 3.2" in said[0]
        assert len(synth.measured_pairs_) == {400: 0, 1150: 1, 2000: 6}[n]


@pytest.mark.parametrize("d, eps", [(4, 1.0), (14, 0.3), (69, 1.0)])
def test_pairs_needed_inverts_the_design(d, eps):
    from skdpgen.synthesizers.mechanisms._marginal_design import pairs_needed

    def pairs(n, d, eps):
        return marginal_design(n, d, eps, 1e-5)[1]

    assert pairs_needed(1_000, 1, eps, 1e-5) == {"rows": None, "epsilon": None,
                                                 "columns": None}  # and it returns
    needed = pairs_needed(1_000, d, eps, 1e-5)
    assert pairs(needed["rows"], d, eps) > 0 and pairs(needed["rows"] - 1, d, eps) == 0
    if needed["epsilon"] is not None:
        assert pairs(1_000, d, needed["epsilon"]) > 0
        assert pairs(1_000, d, needed["epsilon"] * 0.99) == 0
    if needed["columns"] is not None:
        assert pairs(1_000, needed["columns"], eps) > 0


def test_the_schema_estimates_counts_are_measurements_of_the_loss(monkeypatch):
    """Measure once: an estimated categorical column's released counts (its
    kept values; the cell the rare values join left out) are one more term
    of the loss, each cell's squared misfit over its noise variance."""
    from skdpgen.schema.kinds._categorical import measured_cells

    rng = np.random.default_rng(0)
    n = 3000
    X = pd.DataFrame({"c": rng.choice(["a", "b", "c"], n, p=[0.6, 0.3, 0.1]).astype(object),
                      "d": rng.choice(["u", "v"], n).astype(object)})
    selected = {}
    select = GaussianAccountant.select

    def spy(self, name, keys, counts, public=()):
        kept, noisy = select(self, name, keys, counts, public=public)
        selected.setdefault(name, []).append((kept, np.asarray(noisy)))
        return kept, noisy

    monkeypatch.setattr(GaussianAccountant, "select", spy)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synth = MarginalSynthesizer(**MFAST).fit(X)
    mech = synth.mechanism_
    index, counts, inverse = mech._reused
    std = next(r.noise_std for r in synth.privacy_report_.releases if r.name == "schema: values")
    expected = []
    for column, (kept, noisy) in zip(["c", "d"], selected["schema: values"]):
        spec = synth.schema_[column]
        if not spec["missing"]:  # the missing count is then not a cell's
            noisy = np.array([c for t, c in zip(kept, noisy) if t is not None])
            kept = [t for t in kept if t is not None]
        cells, values, s = measured_cells(kept, noisy, std, spec["categories"], spec["other"])
        start = synth.encoder_.block_columns_.index(column)
        offset = int(np.sum(synth.encoder_.category_sizes_[:start]))
        expected.append((offset + cells, values, s))
        assert len(cells) == len(spec["categories"]) - 1 + int(spec["missing"])
    np.testing.assert_array_equal(index, np.concatenate([e[0] for e in expected]))
    np.testing.assert_allclose(counts, np.concatenate([e[1] for e in expected]))
    np.testing.assert_allclose(inverse, 1.0 / std ** 2)
    # the loss term: (count / n - the model's share)^2 over (std / n)^2
    net = synth.network_.train()
    rows = net(torch.zeros(MFAST["n_components"], 1), None).detach()
    with_counts = float(mech.loss(rows, None))
    p = rows.double().numpy()[:, index].mean(0)
    term = np.sum((counts / n - p) ** 2 * inverse * n * n)
    saved, mech._counts = mech._counts, None
    try:
        without = float(mech.loss(rows, None))
    finally:
        mech._counts = saved
    assert with_counts - without == pytest.approx(term, rel=1e-3)


def test_a_declared_schema_reuses_no_count():
    X, y, schema = _table(2000)
    synth = MarginalSynthesizer(schema=schema, classes=["no", "yes"], **MFAST).fit(X, y)
    assert synth.mechanism_._reused is None and synth.mechanism_._counts is None
    assert synth.mechanism_.reused_columns_ == []


def test_a_points_cells_are_not_counted_where_the_noise_may_spread():
    # 150 rows: the one-way release's noise may spread a binned column's rows
    # over its empty bins; the cells of its "points" hold rows by their
    # estimate and are not counted among them
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"h": np.where(rng.random(150) < 0.5, 40, rng.integers(0, 101, 150)),
                      "c": rng.choice(["a", "b"], 150)})
    schema = {"h": {"type": "numeric", "bounds": [0, 100], "integer": True,
                    "points": [40, 50]},
              "c": {"type": "categorical", "categories": ["a", "b"]}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synth = MarginalSynthesizer(schema=schema, **MFAST).fit(X)
    assert "h" in synth.encoder_.binned_columns_
    spread = [i for i in synth.mechanism_.issues() if i["column"] == "h"]
    assert spread and spread[0]["detail"].startswith(f"{synth.bins_} cells")


def test_a_table_below_the_size_rule_is_refused_before_any_release():
    from skdpgen.private_schema import SchemaPlan
    from skdpgen.schema import SchemaSizeError

    rng = np.random.default_rng(0)
    X = pd.DataFrame({f"c{i}": rng.integers(0, 10, 400) for i in range(5)})
    plan = SchemaPlan.from_table(X)
    needed = plan.rows_needed(1.0, 1e-5)
    assert needed > 400
    with warnings.catch_warnings(record=True) as said, pytest.raises(SchemaSizeError) as caught:
        warnings.simplefilter("always")
        MarginalSynthesizer(on_guess="raise", **MFAST).fit(X, epsilon=1.0)
    assert said == []  # nothing said of a fit not made (the design's pairs warning waits)
    error = caught.value
    assert error.n_rows == 400 and error.rows_needed == needed
    assert error.report.epsilon == 0 and error.report.n_releases == 0  # nothing released
    assert plan.rows_needed(error.epsilon_needed * 1.01, 1e-5) <= 400
    assert f"about {needed:,} rows" in str(error) and "Nothing was read" in str(error)
    # a larger share of the budget needs fewer rows; the default fits anyway
    assert plan.rows_needed(1.0, 1e-5, schema_share=1.0) < needed
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        MarginalSynthesizer(**MFAST).fit(X, epsilon=1.0)
    # a fit that goes on says what its design could not measure, and that every
    # estimated column may be weak (each named)
    assert any("drawn independently" in str(w.message) for w in said)
    size = [w.message for w in said if getattr(w.message, "problem", None) == "size"]
    assert len(size) == 1 and f"about {needed:,} rows" in str(size[0])
    assert all(f"'c{i}'" in str(size[0]) for i in range(5))
    # at the size the rule asks for, no such warning
    big = pd.DataFrame({f"c{i}": rng.integers(0, 10, needed) for i in range(5)})
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        MarginalSynthesizer(**MFAST).fit(big, epsilon=1.0)
    assert not [w for w in said if getattr(w.message, "problem", None) == "size"]


def test_adult_capital_columns_keep_their_zeros():
    """Issue 62: with the bundled schema ([0, 99999] and [0, 5000]) 0.1 % of the
    synthetic capital gains were 0 (real 91.7 %), 1.7 % of the losses (real
    95.3 %): the zeros were spread over the first bin. Bounds holding 0 give the
    exact zeros a cell of their own (a public rule: no budget)."""
    from skdpgen.datasets import load_adult

    train = load_adult(split="train")
    synth = MarginalSynthesizer(schema=train.schema, classes=train.target_schema["categories"],
                                random_state=0)
    synth.fit(train.data, train.target, epsilon=1.0, delta=1e-5)
    X, _ = synth.sample(len(train.data), random_state=0)
    for col in ("capital-gain", "capital-loss"):
        real, syn = (train.data[col] == 0).mean(), (X[col] == 0).mean()
        assert abs(syn - real) <= 0.02, (col, real, syn)
    # no loss of 1-500 where the real data has none
    loss = X["capital-loss"]
    assert ((loss >= 1) & (loss <= 500)).mean() < 0.01
