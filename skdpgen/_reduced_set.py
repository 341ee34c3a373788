"""Reduced sets: points and weights whose embedding matches a released one.

Post-processing of :class:`skdpgen.release.DPKMEReleaser` (Balog, Tolstikhin
& Schölkopf, ICML 2018): given a released (noisy) mean embedding, Adam moves
points and non-negative weights towards it, non-negative least squares refits
the weights, and the L1 reduction (Theorem 11) bounds their L1 norm. Every
step reads only the release and public quantities: no privacy cost.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math
import warnings

import numpy as np
import torch
from scipy.optimize import nnls

__all__ = ["l1_reduce", "nnls_weights", "reduced_set"]

# Iterations of the accelerated projected gradient of the L1 reduction.
_L1_MAX_ITER = 5000


def _project_l1(v, radius):
    """Euclidean projection onto the L1 ball (Duchi et al. 2008)."""
    a = np.abs(v)
    if a.sum() <= radius:
        return v.copy()
    u = np.sort(a)[::-1]
    css = np.cumsum(u)
    k = np.nonzero(u * np.arange(1, u.size + 1) > css - radius)[0][-1]
    theta = (css[k] - radius) / (k + 1.0)
    return np.sign(v) * np.maximum(a - theta, 0.0)


def l1_reduce(G, w0, radius, lipschitz):
    """Weights of L1 norm ≤ radius closest to ``w0`` in the norm ``(·)ᵀG(·)``.

    FISTA (Beck & Teboulle 2009) on ``f(w) = (w − w0)ᵀG(w − w0)`` with the
    projection onto the L1 ball; the returned vector satisfies
    ``‖w‖₁ ≤ radius`` exactly (rescaled if rounding overshoots).

    Parameters
    ----------
    G : ndarray of shape (m, m)
        The Gram matrix of the points (positive semi-definite).
    w0 : ndarray of shape (m,)
        The weights to reduce.
    radius : float
        The L1 bound.
    lipschitz : float
        The largest eigenvalue of ``G`` (or an upper bound): sets the step.

    Returns
    -------
    w : ndarray of shape (m,)

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen._reduced_set import l1_reduce
    >>> w = l1_reduce(np.eye(2), np.array([2.0, 1.0]), 1.0, 1.0)
    >>> bool(np.abs(w).sum() <= 1.0), np.round(w, 6).tolist()
    (True, [1.0, 0.0])
    """
    if np.abs(w0).sum() <= radius:
        return w0.copy()
    step = 1.0 / (2.0 * lipschitz)
    x = _project_l1(w0, radius)
    y, t = x.copy(), 1.0
    for _ in range(_L1_MAX_ITER):
        x_new = _project_l1(y - step * 2.0 * (G @ (y - w0)), radius)
        t_new = 0.5 * (1.0 + math.sqrt(1.0 + 4.0 * t * t))
        y = x_new + ((t - 1.0) / t_new) * (x_new - x)
        done = np.linalg.norm(x_new - x) <= 1e-12 * max(1.0, np.linalg.norm(x))
        x, t = x_new, t_new
        if done:
            break
    while np.abs(x).sum() > radius:
        x = x * (radius / np.abs(x).sum()) * (1.0 - 4.0 * np.finfo(np.float64).eps)
    return x


def nnls_weights(H, target):
    """Non-negative least squares ``min_{w ≥ 0} ‖Hᵀw − target‖``.

    With more features than points, the (J × M) problem is first reduced to an
    (M × M) one by a thin QR factorization (same minimizer).

    Parameters
    ----------
    H : ndarray of shape (M, J)
        The feature rows of the ``M`` points.
    target : ndarray of shape (J,)
        The embedding to match.

    Returns
    -------
    w : ndarray of shape (M,)
        Non-negative weights.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen._reduced_set import nnls_weights
    >>> np.round(nnls_weights(np.eye(2), np.array([0.5, -1.0])), 6).tolist()
    [0.5, 0.0]
    """
    A = np.asarray(H, dtype=np.float64).T  # (J, M)
    b = np.asarray(target, dtype=np.float64)
    if A.shape[0] > A.shape[1]:
        Q, R = np.linalg.qr(A)
        A, b = R, Q.T @ b
    w, _ = nnls(A, b, maxiter=50 * A.shape[1])
    return w


def reduced_set(features, target, Z0, bounds, device, n_iter, learning_rate):
    """Adam on ``‖Σ_m w_m φ(z_m) − μ̃‖²`` over points and weights ``w ≥ 0``.

    Parameters
    ----------
    features : BoundedFeatureMap
        Fitted; its ``torch_transform`` is differentiated. Without one
        (or with ``n_iter=0``) the points stay where they start.
    target : ndarray of shape (J,)
        The released mean embedding ``μ̃``.
    Z0 : ndarray of shape (M, d)
        The starting points.
    bounds : tuple of ndarray or None
        ``(lo, hi)``: the points are kept inside.
    device : str
        The torch device.
    n_iter : int
        Adam steps.
    learning_rate : float
        Adam's learning rate (in units of the feature map's length scale).

    Returns
    -------
    Z : ndarray of shape (M, d)
        The points.
    history : ndarray of shape (n_iter,)
        The loss at each step (empty when the points did not move).
    """
    dtype = torch.float32
    M = Z0.shape[0]
    if not features.supports_torch or n_iter == 0:
        if not features.supports_torch and n_iter > 0:
            warnings.warn(
                f"No torch version of {type(features.transformer).__name__}: the points "
                "stay at their initialization and only the weights are fitted.",
                UserWarning,
                stacklevel=5,
            )
        return Z0, np.zeros(0)
    ls = getattr(features, "length_scale_", None)
    unit = np.ones(Z0.shape[1]) if ls is None else np.broadcast_to(ls, (Z0.shape[1],)).copy()
    unit_t = torch.as_tensor(unit, dtype=dtype, device=device)
    mu = torch.as_tensor(target, dtype=dtype, device=device)
    u = torch.as_tensor(Z0 / unit, dtype=dtype, device=device).requires_grad_(True)
    v = torch.ones(M, dtype=dtype, device=device, requires_grad=True)
    if bounds is not None:
        lo_t = torch.as_tensor(bounds[0] / unit, dtype=dtype, device=device)
        hi_t = torch.as_tensor(bounds[1] / unit, dtype=dtype, device=device)
    opt = torch.optim.Adam([u, v], lr=learning_rate)
    history = np.empty(n_iter)
    for it in range(n_iter):
        residual = (v / M) @ features.torch_transform(u * unit_t) - mu
        loss = residual @ residual
        opt.zero_grad()
        loss.backward()
        opt.step()
        with torch.no_grad():
            v.clamp_(min=0.0)
            if bounds is not None:
                u.copy_(torch.minimum(torch.maximum(u, lo_t), hi_t))
        history[it] = loss.item()
    Z = (u.detach() * unit_t).cpu().double().numpy()
    if bounds is not None:
        Z = np.clip(Z, bounds[0], bounds[1])
    return Z, history
