"""The pairwise release shrunk toward independence (James–Stein post-processing)."""

import math

import numpy as np
import pytest

from skdpgen import HermiteFeatures
from skdpgen.synthesizers.mechanisms._pairwise import shrink_pairwise
from skdpgen.synthesizers.mechanisms._pairwise import _pair_layout


def _onehot_pairs(sizes):
    """The pairwise kernel of one-hot columns of ``sizes`` (every pair)."""
    return HermiteFeatures(kernel="pairwise", category_sizes=sizes).fit(
        np.zeros((1, sum(sizes))))


def _population_target(pair, joint_of):
    """The exact (noise-free) release: each pair's joint over its cells / sqrt(P)."""
    layout = _pair_layout(pair)
    blocks = [joint_of(a, b).ravel() for a, b, *_ in layout]
    return np.concatenate(blocks)[None, :] / math.sqrt(len(layout))


def _margins(rng, sizes):
    return [rng.dirichlet(np.ones(k)) for k in sizes]


def test_layout_follows_the_feature_order():
    pair = HermiteFeatures(order=3, kernel="pairwise", category_sizes=[2, 5]).fit(
        np.zeros((1, 8)))
    layout = _pair_layout(pair)
    assert [(a, b, wa, wb) for a, b, wa, wb, _ in layout] == [
        (0, 1, 4, 2), (0, 2, 4, 5), (1, 2, 2, 5)]
    assert [s for *_, s in layout] == [0, 8, 28]
    assert layout[-1][-1] + 10 == pair.n_features_out_
    # the layout is where raw_transform puts each pair's outer product
    rng = np.random.default_rng(0)
    Z = np.c_[rng.uniform(-1, 1, 3), np.eye(2)[[0, 1, 1]], np.eye(5)[[4, 0, 2]]]
    H = pair.raw_transform(Z) * math.sqrt(3)
    phi = [HermiteFeatures(order=3, kernel="product", product_dims=[j],
                           category_sizes=[2, 5]).fit(Z).raw_transform(Z) for j in range(3)]
    for a, b, wa, wb, start in layout:
        outer = np.einsum("ni,nj->nij", phi[a], phi[b]).reshape(3, -1)
        np.testing.assert_allclose(H[:, start:start + wa * wb], outer, atol=1e-12)


def test_an_exactly_independent_release_is_a_fixed_point():
    rng = np.random.default_rng(2)
    sizes = [3, 4, 6]
    margins = _margins(rng, sizes)
    pair = _onehot_pairs(sizes)
    target = _population_target(pair, lambda a, b: np.outer(margins[a], margins[b]))
    means = {a: (m[None, :], np.array([1e-4])) for a, m in enumerate(margins)}
    shrunk, factors = shrink_pairwise(target, pair, [0.01], column_means=means)
    np.testing.assert_allclose(shrunk, target, atol=1e-12)
    assert factors.shape == (3, 1)


def test_shrinking_noise_only_pairs_lowers_the_error():
    """Independent columns, Gaussian noise on the release: the shrunk blocks are
    closer to the truth than the release (James–Stein), and pulled to it."""
    rng = np.random.default_rng(3)
    sizes = [8, 10, 12]
    margins = _margins(rng, sizes)
    pair = _onehot_pairs(sizes)
    truth = _population_target(pair, lambda a, b: np.outer(margins[a], margins[b]))
    s = 0.01  # the entries' scale is ~1/(w_a w_b sqrt(3)) ≈ 0.006: noise dominates
    raw_err, shrunk_err, mean_factor = [], [], []
    for _ in range(200):
        noisy = truth + s * rng.standard_normal(truth.shape)
        means = {a: (margins[a][None, :] + s * rng.standard_normal((1, k)),
                     np.array([s * s])) for a, k in enumerate(sizes)}
        shrunk, factors = shrink_pairwise(noisy, pair, [s], column_means=means)
        raw_err.append(((noisy - truth) ** 2).sum())
        shrunk_err.append(((shrunk - truth) ** 2).sum())
        mean_factor.append(factors.mean())
    assert np.mean(shrunk_err) < 0.25 * np.mean(raw_err)  # measured: 0.18
    assert np.mean(mean_factor) < 0.2


def test_a_strong_dependence_above_the_noise_is_kept():
    """Two identical columns (the joint is the diagonal): the factor stays near
    1 and the block stays the release."""
    sizes = [6, 6]
    p = np.full(6, 1 / 6)
    pair = _onehot_pairs(sizes)
    truth = _population_target(pair, lambda a, b: np.diag(p))
    rng = np.random.default_rng(4)
    s = 0.002
    noisy = truth + s * rng.standard_normal(truth.shape)
    means = {0: (p[None, :], np.array([s * s])), 1: (p[None, :], np.array([s * s]))}
    shrunk, factors = shrink_pairwise(noisy, pair, [s], column_means=means)
    assert factors[0, 0] > 0.95
    assert np.abs(shrunk - noisy).max() < 0.1 * np.abs(truth).max()


def test_classes_are_shrunk_with_their_own_noise():
    """Class 0 holds a dependence, class 1 none; each class's factor follows."""
    sizes = [5, 5]
    p = np.full(5, 0.2)
    pair = _onehot_pairs(sizes)
    dep = _population_target(pair, lambda a, b: np.diag(p))
    ind = _population_target(pair, lambda a, b: np.outer(p, p))
    rng = np.random.default_rng(5)
    std = np.array([0.002, 0.02])  # the smaller class has the larger noise
    noisy = np.r_[dep, ind] + std[:, None] * rng.standard_normal((2, dep.shape[1]))
    means = {a: (np.tile(p, (2, 1)), std ** 2) for a in range(2)}
    _, factors = shrink_pairwise(noisy, pair, std, column_means=means)
    assert factors[0, 0] > 0.9 and factors[0, 1] < 0.5


def test_shrinking_is_deterministic_and_leaves_its_input_alone():
    rng = np.random.default_rng(6)
    pair = _onehot_pairs([3, 4, 5])
    noisy = rng.normal(0.05, 0.02, size=(2, pair.n_features_out_))
    before = noisy.copy()
    means = {j: (np.full((2, k), 1.0 / k), np.array([1e-4, 1e-4]))
             for j, k in enumerate([3, 4, 5])}
    a, fa = shrink_pairwise(noisy, pair, [0.02, 0.03], column_means=means)
    b, fb = shrink_pairwise(noisy, pair, [0.02, 0.03], column_means=means)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(fa, fb)
    np.testing.assert_array_equal(noisy, before)
    assert np.all((fa >= 0) & (fa <= 1))


def test_pairs_with_a_numeric_column_are_left_as_released():
    """Numeric × numeric and numeric × one-hot blocks keep the release, and so
    does a pair of one-hot columns without margins."""
    pair = HermiteFeatures(order=3, kernel="pairwise", category_sizes=[3, 4]).fit(
        np.zeros((1, 9)))
    noisy = np.random.default_rng(7).normal(size=(1, pair.n_features_out_))
    means = {j: (np.full((1, 6), 1 / 6), np.array([1e-4])) for j in range(2)}
    means[2] = (np.full((1, 3), 1 / 3), np.array([1e-4]))
    shrunk, factors = shrink_pairwise(noisy, pair, [1.0], column_means=means)
    layout = _pair_layout(pair)
    for (a, b, wa, wb, start), f in zip(layout, factors[:, 0]):
        block = slice(start, start + wa * wb)
        if (a, b) == (2, 3):  # both one-hot, but column 3 has no margins
            assert f == 1.0
        np.testing.assert_array_equal(shrunk[:, block], noisy[:, block])
    means[3] = (np.full((1, 4), 1 / 4), np.array([1e-4]))
    shrunk, factors = shrink_pairwise(noisy, pair, [1.0], column_means=means)
    assert factors[:-1, 0].tolist() == [1.0] * (len(layout) - 1) and factors[-1, 0] < 1


def test_dphp_margins_from_the_sum_release_match_the_pairwise_release():
    """At a huge ε both releases are the rows' exact means: the sum kernel's
    one-hot blocks (times sqrt(D)) are the pairwise blocks summed over a
    one-hot partner (times sqrt(P))."""
    import pandas as pd

    from skdpgen import DPHPSynthesizer

    rng = np.random.default_rng(8)
    n = 600
    X = pd.DataFrame({"a": rng.normal(size=n), "c": rng.choice(["u", "v", "w"], n),
                      "d": rng.choice(["p", "q", "r", "s"], n)})
    y = rng.choice(["no", "yes"], n)
    schema = {"a": {"type": "numeric", "bounds": [-4, 4]},
              "c": {"type": "categorical", "categories": ["u", "v", "w"]},
              "d": {"type": "categorical", "categories": ["p", "q", "r", "s"]}}
    kwargs = dict(schema=schema, classes=["no", "yes"], epochs=1, steps_per_epoch=1,
                  marginal_share=0, product_kernel="pairwise", random_state=0)
    assert DPHPSynthesizer(**kwargs).fit(X, y, epsilon=1.0).pair_shrinkage_ is None
    synth = DPHPSynthesizer(pair_shrinkage=True, **kwargs).fit(X, y, epsilon=1e9)
    mech, pair = synth.mechanism_, synth.pairwise_features_
    assert pair.pairs_.tolist() == [[0, 1], [0, 2], [1, 2]]
    means = mech._sum_margins(np.zeros(2))
    assert sorted(means) == [1, 2]
    released = mech.targets_["pairwise kernel"][0].astype(np.float64)
    (_, _, _, _, _), (_, _, _, _, _), (a, b, wa, wb, start) = _pair_layout(pair)
    block = released[:, start:start + wa * wb].reshape(2, wa, wb) * math.sqrt(3)
    np.testing.assert_allclose(block.sum(2), means[1][0], atol=1e-4)
    np.testing.assert_allclose(block.sum(1), means[2][0], atol=1e-4)
    # one factor per pair and class; the pairs with the numeric column untouched
    assert synth.pair_shrinkage_.shape == (3, 2)
    assert synth.pair_shrinkage_[:2].tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_a_target_of_the_wrong_width_is_refused():
    pair = _onehot_pairs([2, 3])
    with pytest.raises(ValueError, match=r"shape \(n_classes, 6\)"):
        shrink_pairwise(np.zeros((1, 5)), pair, [0.1], column_means={})
