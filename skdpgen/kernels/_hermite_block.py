"""The Hermite polynomial block of the Gaussian kernel (DP-HP): the terms, their
fused torch path and its gradients (used by :class:`~skdpgen.kernels.HermiteFeatures`)."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math

import numpy as np
import torch

from ._base import _is_tensor

__all__ = ["hermite_block", "hermite_rho", "hermite_terms"]

# Inputs are clipped to ±_X_CLIP before the recursion so that no intermediate
# product overflows; for any length scale below 1e140 every feature of such an
# input already underflows to exactly 0.
_X_CLIP = 1e150
# Values in one slab of :func:`_hermite_sums`' sweep: torch runs elementwise
# operations on at most 2**15 values in the calling thread (its grain size), so
# the sweep never wakes a thread pool, and its half a dozen slabs (1.5 MB) stay near L2.
_SLAB_VALUES = 1 << 15
# The sweep scales the terms by powers of ρ only while the scaled terms stay
# within ±1/_FOLD_TINY (their squares, and products with x, stay finite).
_FOLD_TINY = 1e-140


def hermite_rho(length_scale):
    """Mehler parameter ρ of the Gaussian kernel with the given length scale.

    ``ρ = sqrt(1 + ℓ⁴) − ℓ²``, the root in (0, 1) of ``ρ/(1 − ρ²) = 1/(2ℓ²)``,
    computed as ``1/(sqrt(1 + ℓ⁴) + ℓ²)`` to avoid cancellation.

    Parameters
    ----------
    length_scale : float or ndarray
        ℓ > 0 of ``k(x, y) = exp(−(x − y)²/(2ℓ²))``.

    Returns
    -------
    rho : float or ndarray

    Examples
    --------
    >>> from skdpgen.kernels import hermite_rho
    >>> float(round(hermite_rho((4 / 3) ** 0.5), 12))
    0.333333333333
    """
    with np.errstate(over="ignore"):  # ℓ > 1e154: ℓ² = inf, ρ = 0
        ls2 = np.square(np.asarray(length_scale, dtype=np.float64))
        return 1.0 / (np.hypot(1.0, ls2) + ls2)


def hermite_terms(x, rho, order, *, exp=np.exp, sqrt=np.sqrt, out=None):
    """Yield the Hermite features φ_0(x), …, φ_order(x), elementwise.

    Uses the normalized three-term recursion (never the raw polynomials,
    which overflow)::

        φ_0(x)     = ((1−ρ)(1+ρ))^{1/4} exp(−ρx²/(1+ρ))
        φ_1(x)     = sqrt(2ρ) x φ_0(x)
        φ_{c+1}(x) = sqrt(2ρ/(c+1)) x φ_c(x) − ρ sqrt(c/(c+1)) φ_{c−1}(x)

    Without ``out`` the code uses only arithmetic operators plus ``exp`` and
    ``sqrt``, so it serves NumPy arrays and (differentiable) torch tensors
    alike. With ``out`` (NumPy only) every term is written in place into
    ``out[c]``, which avoids temporaries on the hot path.

    Parameters
    ----------
    x : ndarray or torch.Tensor of shape (..., n_dims)
        Inputs, already clipped to a range where ``x²`` cannot overflow.
    rho : ndarray or torch.Tensor of shape (n_dims,)
        Mehler parameter per dimension (see :func:`hermite_rho`).
    order : int
        Highest order C.
    exp, sqrt : callables, default=numpy's
        Elementwise functions of the array library of ``x``.
    out : ndarray of shape ``(order + 1, *x.shape)``, default=None
        Where to write the terms (NumPy inputs only).

    Yields
    ------
    phi_c : same type and shape as ``x`` (a view of ``out[c]`` when given)
    """
    t = sqrt(rho / (1.0 + rho)) * x
    phi = ((1.0 - rho) * (1.0 + rho)) ** 0.25 * exp(-(t * t))
    if out is not None:
        out[0] = phi
        phi = out[0]
        tmp = np.empty_like(phi)
    yield phi
    if order == 0:
        return
    u = sqrt(2.0 * rho) * x
    if out is None:
        prev, phi = phi, u * phi
    else:
        prev, phi = phi, np.multiply(u, phi, out=out[1])
        rho = _one_value(rho)
    yield phi
    for c in range(1, order):
        a, b = 1.0 / math.sqrt(c + 1), rho * math.sqrt(c / (c + 1))
        if out is None:
            prev, phi = phi, (u * phi) * a - b * prev
        else:
            nxt = np.multiply(u, phi, out=out[c + 1])
            nxt *= a
            nxt -= np.multiply(b, prev, out=tmp)
            prev, phi = phi, nxt
        yield phi


def _one_value(rho):
    """``rho``'s one value when every column has it (one length scale), else ``rho``.

    A scalar factor runs NumPy's contiguous loop; a per-column array is
    broadcast over short rows, about 1.5 times slower. The products are the
    same floats.
    """
    values = np.asarray(rho)
    if values.size and np.all(values == values.flat[0]):
        return float(values.flat[0])
    return rho


def _clip_inputs(x):
    """Inputs clipped to where the recursion cannot overflow (NumPy or torch)."""
    if _is_tensor(x):
        bound = min(_X_CLIP, math.sqrt(torch.finfo(x.dtype).max) / 16.0)
        return torch.clamp(x, -bound, bound)
    return np.clip(x, -_X_CLIP, _X_CLIP)


def _hermite_stack(x, rho, order):
    """All terms φ_0 … φ_C of the entries of a NumPy array ``x``: (C + 1, *x.shape).

    Filled in place, float64: one contiguous slab per order. ``rho``
    broadcasts against ``x`` (shape (k,) for an (n, k) ``x``, (k, 1) for
    its (k, n) transpose, the private side's layout).
    """
    x = _clip_inputs(x)
    out = np.empty((order + 1,) + x.shape)
    for _ in hermite_terms(x, rho, order, out=out):
        pass
    return out


def _hermite_sums(columns, rho, order, weights):
    """Weighted sums and squared norms of the Hermite terms, never all held at once.

    ``sums[c, d, k] = Σ_i weights[i, k] φ_c(columns[d, i])`` and
    ``squared[i] = Σ_{c, d} φ_c(columns[d, i])²``, in one sweep over the
    orders on slabs of about 2**15 values (rows of a group of columns that
    share a ρ), keeping only the last two orders: the ``(order + 1, p, n)``
    stack is never formed, and each order costs one fused torch pass for the
    recursion, one for the squares and a matrix-vector product.

    The sweep runs the recursion of :func:`hermite_terms` on scaled terms
    ``χ_c = φ_c / G_c``, ``G_c = κ_c r^⌊c/2⌋`` with ``κ_0 = κ_1 = 1``,
    ``κ_{c+1} = −sqrt(c/(c+1)) κ_{c−1}``, so that it becomes one
    multiply-add, ``χ_{c+1} = (ρ/r) χ_{c−1} + α_c w_c χ_c`` (``α_c =
    κ_c / (sqrt(c+1) κ_{c+1})``, ``w_c = u/r`` for odd ``c``, else ``u =
    sqrt(2ρ) x``): ``r = ρ`` (no multiplication by ρ) when every ``G_c`` stays
    above ``_FOLD_TINY``, else ``r = 1`` (small ρ: one pass more). The
    factors ``G_c`` go into the squares' weights and the sums.

    Parameters
    ----------
    columns : ndarray of shape (p, n)
        Inputs, one row per column, already clipped (:func:`_clip_inputs`).
    rho : ndarray of shape (p,)
        Mehler parameter of each column.
    order : int
        Highest order C.
    weights : ndarray of shape (n, K)

    Returns
    -------
    sums : ndarray of shape (order + 1, p, K)
    squared : ndarray of shape (n,)
    """
    p, n = columns.shape
    sums = np.zeros((order + 1, p, weights.shape[1]))
    squared = np.zeros(n)
    values, group_of = np.unique(rho, return_inverse=True)
    for group, value in enumerate(values):
        dims = np.flatnonzero(group_of == group)
        sums[:, dims] = _hermite_sweep(columns[dims], float(value), order, weights, squared)
    return sums, squared


def _hermite_sweep(columns, rho, order, weights, squared):
    """:func:`_hermite_sums` of columns sharing one ``rho``; adds the squares to ``squared``."""
    g, n = columns.shape
    kappa, alpha = np.ones(order + 1), np.zeros(order + 1)
    for c in range(1, order):
        kappa[c + 1] = -math.sqrt(c / (c + 1)) * kappa[c - 1]
        alpha[c] = kappa[c] / (math.sqrt(c + 1) * kappa[c + 1])
    with np.errstate(under="ignore"):
        folded = kappa * rho ** (np.arange(order + 1) // 2)
    r = rho if np.all(np.abs(folded) >= _FOLD_TINY) else 1.0
    scale = folded if r == rho else kappa  # G_c
    sums = torch.zeros((order + 1, g, weights.shape[1]), dtype=torch.float64)
    weights = torch.from_numpy(np.ascontiguousarray(weights, dtype=np.float64))
    # per order, as Python floats and views (the loop runs once per slab and order)
    steps = list(zip(alpha[1:order].tolist(), (scale[2:] ** 2).tolist(), sums[2:]))
    rows = max(1, _SLAB_VALUES // g)
    for start in range(0, n, rows):
        x = columns[:, start:start + rows]
        w = weights[start:start + rows]
        terms = list(hermite_terms(x, rho, min(order, 1)))  # φ_0, φ_1 (NumPy: one thread)
        u = math.sqrt(2.0 * rho) * x
        prev, cur = (torch.from_numpy(t) for t in (terms + [np.zeros_like(x)])[:2])
        u, u_odd = torch.from_numpy(u), torch.from_numpy(u / r)
        acc = prev * prev
        sums[0].addmm_(prev, w)
        if order >= 1:
            acc.addcmul_(cur, cur)
            sums[1].addmm_(cur, w)
        for c, (a, weight, total) in enumerate(steps, start=1):
            if r != rho:
                prev.mul_(rho)
            prev.addcmul_(u_odd if c % 2 else u, cur, value=a)
            prev, cur = cur, prev
            acc.addcmul_(cur, cur, value=weight)
            total.addmm_(cur, w)
        squared[start:start + rows] += acc.numpy().sum(0)
    return (sums * torch.from_numpy(scale)[:, None, None]).numpy()


class _HermiteBlock(torch.autograd.Function):
    """Torch Hermite terms ``(n, k, C + 1)`` with the analytic derivative.

    Forward runs the recursion of :func:`hermite_terms` writing every order
    into one preallocated, contiguous ``(C + 1, n, k)`` tensor (no per-order
    list, stack or cat; a write per order into a strided slice would be an
    order of magnitude slower) and returns it as an ``(n, k, C + 1)`` view;
    backward uses ``φ_c′(x) = sqrt(2ρc) φ_{c−1}(x) − (2ρ/(1 + ρ)) x φ_c(x)``
    on the saved terms instead of an autograd graph through the recursion.
    """

    @staticmethod
    def forward(x, rho, order):
        return _hermite_into(x.new_empty((order + 1,) + tuple(x.shape)), x, rho,
                             order).permute(1, 2, 0)

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, rho, _ = inputs
        ctx.save_for_backward(x, rho, output)

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, grad):
        x, rho, terms = ctx.saved_tensors
        # (C + 1, n, k) slabs: the forward's buffer is contiguous in that layout
        terms, grad = terms.permute(2, 0, 1), grad.permute(2, 0, 1).contiguous()
        return _hermite_grad(x, rho, terms, lambda c: grad[c]), None, None


def _hermite_into(out, x, rho, order):
    """The recursion of :func:`hermite_terms` for a tensor, written into ``out``.

    ``out`` has shape ``(order + 1, *x.shape)``; each order is one contiguous
    slab (a write per order into a strided slice would be an order of
    magnitude slower). Returns ``out``.
    """
    t = torch.sqrt(rho / (1.0 + rho)) * x
    torch.exp(-(t * t), out=out[0])
    out[0].mul_(((1.0 - rho) * (1.0 + rho)) ** 0.25)
    if order >= 1:
        u = torch.sqrt(2.0 * rho) * x
        torch.mul(u, out[0], out=out[1])
    for c in range(1, order):
        torch.mul(out[c - 1], rho * -math.sqrt(c / (c + 1)), out=out[c + 1])
        out[c + 1].addcmul_(u, out[c], value=1.0 / math.sqrt(c + 1))
    return out


def _hermite_grad(x, rho, terms, grad_of):
    """``Σ_c g_c φ_c′(x)`` from the terms ``(C + 1, n, k)`` and ``g_c = grad_of(c)``.

    ``φ_c′ = sqrt(2ρc) φ_{c−1} − (2ρ/(1 + ρ)) x φ_c``, so the sum is
    ``sqrt(2ρ) Σ_{c≥1} sqrt(c) g_c φ_{c−1} − (2ρ/(1+ρ)) x Σ_c g_c φ_c``,
    accumulated order by order (fused multiply-adds on contiguous slabs).
    """
    same = torch.mul(grad_of(0), terms[0])
    down = torch.zeros_like(same)
    for c in range(1, terms.shape[0]):
        g = grad_of(c)
        same.addcmul_(g, terms[c])
        down.addcmul_(g, terms[c - 1], value=math.sqrt(c))
    return down.mul_(torch.sqrt(2.0 * rho)).sub_(same.mul_(2.0 * rho / (1.0 + rho) * x))


class _HermiteSums(torch.autograd.Function):
    """``Σ_i w_ik φ_c(x_id)`` for every order, class and column: ``(C + 1, K, k)``.

    The sum kernel's batch sums without the terms leaving the function:
    forward writes the recursion into a reused buffer (``_Buffers``) and
    contracts it with the weights; backward goes straight from the
    sums' gradient ``G`` to ``x``'s, ``g_c = w G_c`` one order at a time,
    through :func:`_hermite_grad` (the ``(C + 1, n, k)`` gradient of the
    terms is never formed). The buffer goes back to the free list after the
    backward pass; if it was reused in between (a second graph before this
    one's backward), the terms are computed again.
    """

    @staticmethod
    def forward(ctx, x, rho, order, weights, buffers):
        slot = buffers.take((order + 1,) + tuple(x.shape), x)
        terms = _hermite_into(slot[0], x, rho, order)
        sums = torch.matmul(weights.T, terms)  # (C + 1, K, k), contiguous operands
        if any(ctx.needs_input_grad):
            ctx.save_for_backward(x, rho, weights)
            ctx.slot, ctx.generation, ctx.order, ctx.buffers = slot, slot[1], order, buffers
        else:
            buffers.give(slot)
        return sums

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, grad):
        x, rho, weights = ctx.saved_tensors
        slot = ctx.slot
        fresh = slot[1] == ctx.generation
        terms = slot[0] if fresh else _hermite_into(
            x.new_empty((ctx.order + 1,) + tuple(x.shape)), x, rho, ctx.order)
        grad_x = grad_w = None
        if ctx.needs_input_grad[0]:
            g = torch.empty_like(x)
            grad_x = _hermite_grad(x, rho, terms,
                                   lambda c: torch.mm(weights, grad[c], out=g))
        if ctx.needs_input_grad[3]:
            grad_w = torch.matmul(terms, grad.transpose(1, 2)).sum(0)
        if fresh:
            ctx.buffers.give(slot)
        return grad_x, None, None, grad_w, None


class _WeightedGram(torch.autograd.Function):
    """``Bᵀ diag(w) B`` with the gradient of a Gram matrix: one product backward.

    Autograd sees two operands and forms both of their gradients (two
    matrix products); both are ``B``, and ``∂L/∂B = diag(w) B (G + Gᵀ)`` for
    the output's gradient ``G``, one product. ``w`` takes no gradient.
    """

    @staticmethod
    def forward(ctx, B, w):
        Bw = B * w[:, None]
        ctx.save_for_backward(Bw)
        return B.T @ Bw

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, grad):
        Bw, = ctx.saved_tensors
        return Bw @ (grad + grad.T), None


def hermite_block(x, rho, order):
    """The Hermite terms of every entry of ``x``: shape ``(n, k, order + 1)``.

    ``out[i, d, c] = φ_c(x[i, d])`` of :func:`hermite_terms`, for a NumPy
    array (float64) or a torch tensor (its dtype and device). For tensors the
    recursion writes every order into one preallocated tensor and the
    backward pass is analytic — Hermite functions have closed-form
    derivatives, ``φ_c′(x) = sqrt(2ρc) φ_{c−1}(x) − (2ρ/(1 + ρ)) x φ_c(x)``
    — so no autograd graph is built through the recursion. Inputs are
    clipped to ±1e150 first (see :class:`HermiteFeatures`).

    Parameters
    ----------
    x : ndarray or torch.Tensor of shape (n, k)
        Finite inputs.
    rho : ndarray or torch.Tensor of shape (k,)
        Mehler parameter per column (:func:`hermite_rho`); a tensor on
        ``x``'s device and dtype for tensor input.
    order : int
        Highest order C.

    Returns
    -------
    terms : ndarray or torch.Tensor of shape (n, k, order + 1)

    Examples
    --------
    >>> import torch
    >>> from skdpgen.kernels import hermite_block, hermite_rho
    >>> x = torch.tensor([[0.3, -1.2]], dtype=torch.float64, requires_grad=True)
    >>> rho = torch.as_tensor(hermite_rho([0.5, 1.0]))
    >>> terms = hermite_block(x, rho, 10)
    >>> tuple(terms.shape)
    (1, 2, 11)
    >>> terms.sum().backward()
    >>> tuple(x.grad.shape)
    (1, 2)
    """
    if _is_tensor(x):
        return _HermiteBlock.apply(_clip_inputs(x), rho, int(order))
    return np.ascontiguousarray(_hermite_stack(x, rho, order).transpose(1, 2, 0))


def _rowwise_products(blocks):
    """Row-wise tensor products ``vec(b_1(i) ⊗ … ⊗ b_m(i))``: (n, Π widths)."""
    out = blocks[0]
    for block in blocks[1:]:
        out = (out[:, :, None] * block[:, None, :]).reshape(out.shape[0], -1)
    return out
