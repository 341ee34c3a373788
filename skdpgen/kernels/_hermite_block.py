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
