"""The fused torch Hermite map (issue 14): same values and gradients as the
reference recursion, for the terms, the sum and the product kernel, in float64
and float32, checked with ``torch.autograd.gradcheck``."""

import numpy as np
import pytest
import torch

from skdpgen import HermiteFeatures
from skdpgen.kernels import hermite_block, hermite_rho, hermite_terms
from skdpgen.kernels import _hermite
from skdpgen.kernels._hermite import _clip_inputs
from skdpgen.synthesizers import embedding_loss, feature_map_loss
from skdpgen.synthesizers.mechanisms._base import batch_weights

SCALES = [0.2, 0.5, 1.0, 4.0]


def reference_block(x, rho, order):
    """The reference: the recursion as plain torch arithmetic (autograd through
    every step), stacked; what the torch path computed before the fused map."""
    terms = hermite_terms(_clip_inputs(x), rho, order, exp=torch.exp, sqrt=torch.sqrt)
    return torch.stack(list(terms), dim=-1)


def inputs(dtype, n=40, seed=0, scale=2.0):
    g = torch.Generator().manual_seed(seed)
    x = (scale * torch.randn(n, len(SCALES), generator=g, dtype=torch.float64)).to(dtype)
    x[0] = torch.tensor([0.0, -1e-3, 7.5, -30.0], dtype=dtype)  # zero, tiny, tails
    rho = torch.as_tensor(hermite_rho(SCALES), dtype=dtype)
    return x.requires_grad_(), rho


TOLERANCES = {torch.float64: dict(rtol=1e-12, atol=1e-14),
              torch.float32: dict(rtol=1e-5, atol=1e-6)}


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("order", [0, 1, 2, 20, 100])
def test_block_values_and_gradient_equal_the_reference(dtype, order):
    x, rho = inputs(dtype)
    fused, ref = hermite_block(x, rho, order), reference_block(x, rho, order)
    assert fused.shape == ref.shape == (len(x), len(SCALES), order + 1)
    assert fused.dtype == dtype
    torch.testing.assert_close(fused, ref, **TOLERANCES[dtype])
    weights = torch.randn(fused.shape, generator=torch.Generator().manual_seed(1),
                          dtype=torch.float64).to(dtype)
    g_fused, = torch.autograd.grad((fused * weights).sum(), x)
    g_ref, = torch.autograd.grad((ref * weights).sum(), x)
    scale = g_ref.abs().max()
    assert scale > 0
    tol = 1e-12 if dtype == torch.float64 else 1e-5
    assert (g_fused - g_ref).abs().max() <= tol * scale


def test_block_matches_numpy_and_the_features_layout():
    x, rho = inputs(torch.float64)
    np_block = hermite_block(x.detach().numpy(), rho.numpy(), 12)
    np.testing.assert_allclose(hermite_block(x, rho, 12).detach().numpy(), np_block,
                               rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("order", [0, 3, 15])
def test_block_gradcheck(order):
    x, rho = inputs(torch.float64, n=6, scale=1.5)
    assert torch.autograd.gradcheck(lambda z: hermite_block(z, rho, order), (x,))


def test_block_gradient_vanishes_beyond_the_clip():
    x = torch.tensor([[1e200, -1e300, 3.0]], dtype=torch.float64, requires_grad=True)
    rho = torch.as_tensor(hermite_rho([1.0, 1.0, 1.0]))
    terms = hermite_block(x, rho, 10)
    assert torch.all(torch.isfinite(terms))
    grad, = torch.autograd.grad(terms.sum(), x)
    assert torch.all(torch.isfinite(grad))
    assert grad[0, 0] == 0 and grad[0, 1] == 0 and grad[0, 2] != 0


def mixed_map(kernel, **kw):
    """Four numeric columns and two one-hot blocks (sizes 3 and 2)."""
    fmap = HermiteFeatures(order=kw.pop("order", 8), length_scale=SCALES, kernel=kernel,
                           category_sizes=[3, 2], **kw)
    return fmap.fit(np.zeros((1, len(SCALES) + 5)))


def mixed_rows(dtype, n=30, seed=0):
    x, _ = inputs(dtype, n=n, seed=seed, scale=1.0)
    g = torch.Generator().manual_seed(seed + 7)
    blocks = [torch.softmax(torch.randn(n, k, generator=g, dtype=torch.float64), 1).to(dtype)
              for k in (3, 2)]
    return torch.cat([x.detach()] + blocks, dim=1).requires_grad_()


def reference_features(fmap, Z, monkeypatch):
    """Sum/product features with the reference terms (the old torch path)."""
    with monkeypatch.context() as m:
        m.setattr(_hermite, "hermite_block", reference_block)
        return fmap.raw_transform(Z)


MAPS = {
    "sum": lambda: mixed_map("sum"),
    "product": lambda: mixed_map("product", order=3, product_dims=[0, 2, 4]),
    "product-all-numeric": lambda: mixed_map("product", order=2, product_dims=[0, 1, 3]),
    "product-one-column": lambda: mixed_map("product", order=4, product_dims=[2]),
    "product-five-columns": lambda: mixed_map("product", order=2, product_dims=[0, 1, 3, 4, 5]),
}


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("kernel", list(MAPS))
def test_kernel_features_and_gradients_equal_the_reference(kernel, dtype, monkeypatch):
    fmap, Z = MAPS[kernel](), mixed_rows(dtype)
    fused, ref = fmap.raw_transform(Z), reference_features(fmap, Z, monkeypatch)
    torch.testing.assert_close(fused, ref, **TOLERANCES[dtype])
    # and the same as NumPy's map
    np.testing.assert_allclose(fused.detach().double().numpy(),
                               fmap.raw_transform(Z.detach().double().numpy()),
                               rtol=1e-5 if dtype == torch.float32 else 1e-12,
                               atol=1e-6 if dtype == torch.float32 else 1e-14)
    labels = torch.arange(len(Z)) % 3
    target = torch.randn(3, fmap.n_features_out_, generator=torch.Generator().manual_seed(2),
                         dtype=torch.float64).to(dtype) * 0.1
    g_fused, = torch.autograd.grad(feature_map_loss(target, fmap, Z, labels, 3), Z)
    g_ref, = torch.autograd.grad(embedding_loss(target, ref, labels, 3), Z)
    tol = 1e-11 if dtype == torch.float64 else 1e-4
    assert (g_fused - g_ref).abs().max() <= tol * g_ref.abs().max()


@pytest.mark.parametrize("kernel", list(MAPS))
def test_kernel_gradcheck(kernel):
    fmap, Z = MAPS[kernel](), mixed_rows(torch.float64, n=5)
    weights = batch_weights(torch.arange(5) % 2, 2, Z)
    assert torch.autograd.gradcheck(lambda z: fmap.raw_feature_sum(z, weights), (Z,))
    assert torch.autograd.gradcheck(lambda z: fmap.raw_transform(z), (Z,))


def test_fused_sum_equals_the_feature_matrix():
    Z = mixed_rows(torch.float64)
    weights = batch_weights(torch.arange(len(Z)) % 3, 3, Z)
    for fmap in MAPS.values():
        fmap = fmap()
        torch.testing.assert_close(fmap.raw_feature_sum(Z, weights),
                                   fmap.raw_transform(Z).T @ weights, rtol=1e-13, atol=1e-15)


def test_private_side_is_unchanged_by_the_torch_path():
    """The released sums (NumPy, float64, rows clipped) equal the torch sums of
    the same rows: the fused generator path and the private path agree."""
    fmap = mixed_map("sum", order=20)
    Z = mixed_rows(torch.float64, n=50).detach()
    weights = batch_weights(torch.arange(50) % 2, 2, Z)
    private = fmap.feature_sum(Z.numpy(), weights.numpy())
    np.testing.assert_allclose(fmap.raw_feature_sum(Z, weights).numpy(), private,
                               rtol=1e-12, atol=1e-15)


def test_sum_kernel_gradcheck_in_the_weights_too():
    fmap, Z = mixed_map("sum", order=6), mixed_rows(torch.float64, n=6)
    weights = torch.rand(6, 2, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    assert torch.autograd.gradcheck(lambda z, w: fmap.raw_feature_sum(z, w),
                                    (Z, weights.requires_grad_()))


def test_sum_kernel_reuses_its_terms_buffer_from_step_to_step():
    """A training step takes the terms' buffer back from the last one (no fresh
    pages per step), and sampling without gradients hands it back at once."""
    fmap, weights = mixed_map("sum", order=10), None
    pointers = []
    for seed in range(3):
        Z = mixed_rows(torch.float32, seed=seed)
        weights = batch_weights(torch.arange(len(Z)) % 3, 3, Z)
        fmap.raw_feature_sum(Z, weights).square().sum().backward()
        free = fmap._buffers()._free
        assert len(free) == 1
        pointers.append(free[0][0].data_ptr())
    assert len(set(pointers)) == 1
    with torch.no_grad():
        fmap.raw_feature_sum(Z.detach(), weights)
    assert len(fmap._buffers()._free) == 1


def test_sum_kernel_gradient_is_right_when_its_buffer_was_reused():
    """A retained graph whose terms' buffer another forward pass has taken
    since computes its terms again: both backward passes give the reference."""
    fmap = mixed_map("sum", order=12)
    Z1, Z2 = mixed_rows(torch.float64, seed=1), mixed_rows(torch.float64, seed=2)
    weights = batch_weights(torch.arange(len(Z1)) % 3, 3, Z1)
    ref, = torch.autograd.grad((fmap.raw_transform(Z1).T @ weights).square().sum(), Z1)
    loss1 = fmap.raw_feature_sum(Z1, weights).square().sum()
    first, = torch.autograd.grad(loss1, Z1, retain_graph=True)  # buffer back in the list
    fmap.raw_feature_sum(Z2, weights).square().sum().backward()  # ... and reused here
    second, = torch.autograd.grad(loss1, Z1)
    torch.testing.assert_close(first, ref, rtol=1e-12, atol=1e-14)
    torch.testing.assert_close(second, ref, rtol=1e-12, atol=1e-14)


def test_buffers_are_neither_pickled_nor_kept_by_a_refit():
    import pickle

    fmap = mixed_map("sum", order=5)
    Z = mixed_rows(torch.float64)
    fmap.raw_feature_sum(Z, batch_weights(None, 0, Z)).sum().backward()
    assert fmap._buffers()._free
    assert "_tensors" not in pickle.loads(pickle.dumps(fmap)).__dict__
    fmap.fit(np.zeros((1, len(SCALES) + 5)))
    assert not fmap._buffers()._free


def test_pairwise_kernel_class_path_gradcheck():
    """The per-class Gram matrices' one-product backward (``_WeightedGram``)."""
    fmap = HermiteFeatures(order=3, length_scale=SCALES, kernel="pairwise",
                           category_sizes=[3, 2]).fit(np.zeros((1, len(SCALES) + 5)))
    Z = mixed_rows(torch.float64, n=7)
    weights = batch_weights(torch.arange(7) % 3, 3, Z)
    assert torch.autograd.gradcheck(lambda z: fmap.raw_feature_sum(z, weights), (Z,))


def test_generator_sums_leave_one_hot_entries_uncapped_in_float32():
    """The cap that keeps the private clip finite, ``M^(1/2m)/1000``, falls
    below 1 in float32 for products of 7 or more blocks; generated rows are
    never clipped, so their sums take the one-hot entries as they are."""
    sizes = [2] * 8
    fmap = HermiteFeatures(order=2, kernel="product", product_dims=list(range(1, 9)),
                           category_sizes=sizes).fit(np.zeros((1, 1 + sum(sizes))))
    g = torch.Generator().manual_seed(0)
    codes = torch.randint(0, 2, (20, 8), generator=g)
    Z = torch.cat([torch.rand(20, 1, generator=g, dtype=torch.float64),
                   torch.nn.functional.one_hot(codes, 2).reshape(20, 16).double()], dim=1)
    weights = batch_weights(torch.arange(20) % 2, 2, Z)
    exact = fmap.raw_feature_sum(Z, weights)  # float64: its cap is far above 1
    torch.testing.assert_close(fmap.raw_feature_sum(Z.float(), weights.float()).double(),
                               exact, rtol=1e-5, atol=1e-6)
