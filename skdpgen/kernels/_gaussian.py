"""The Gaussian kernel, computed exactly: Gram matrices and their blocked sums.

Used by the releaser (Algorithm 1's basis and scores), the private two-sample
test, and the exact MMD of the evaluation helpers. Inputs are scaled by the
length scale and clipped to ±1e150 first, so squared distances stay finite
and every kernel value lies in [0, 1] for any finite input.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math

import numpy as np

from ._base import check_length_scale

__all__ = ["gaussian_gram", "gaussian_kernel_sum", "scale_rows"]

# Scaled inputs are clipped to ±_X_CLIP so that squared distances stay finite;
# a point that far from every other has kernel value exactly 0 anyway.
_X_CLIP = 1e150
# Target number of kernel values held per block (about 16 MB of float64).
_BLOCK_VALUES = 2_000_000


def scale_rows(X, length_scale, center=0.0):
    """``(X − center)/ℓ`` in float64, clipped to ±1e150 (finite squared norms).

    Parameters
    ----------
    X : array-like of shape (n, d)
    length_scale : float or array-like of shape (d,)
        Positive and finite.
    center : float or array-like of shape (d,), default=0.0

    Returns
    -------
    X_scaled : ndarray of shape (n, d)

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen.kernels import scale_rows
    >>> scale_rows(np.array([[2.0, 1e308]]), 0.5)
    array([[4.e+000, 1.e+150]])
    """
    X = np.asarray(X, dtype=np.float64)
    ls = check_length_scale(length_scale, X.shape[1])
    with np.errstate(over="ignore", invalid="ignore"):
        Xs = (X - center) / ls
    return np.clip(Xs, -_X_CLIP, _X_CLIP)


def gaussian_gram(A, B, *, sq_a=None, sq_b=None):
    """``exp(−‖a − b‖²/2)`` for every pair of (scaled) rows, values in [0, 1].

    Parameters
    ----------
    A : ndarray of shape (n, d)
        Rows already scaled by :func:`scale_rows`.
    B : ndarray of shape (m, d)
        Likewise.
    sq_a, sq_b : ndarray, default=None
        Squared row norms of ``A`` and ``B``, if already known.

    Returns
    -------
    K : ndarray of shape (n, m)

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen.kernels import gaussian_gram
    >>> gaussian_gram(np.zeros((1, 2)), np.ones((1, 2))).round(6)  # exp(−1)
    array([[0.367879]])
    """
    if sq_a is None:
        sq_a = np.einsum("ij,ij->i", A, A)
    if sq_b is None:
        sq_b = np.einsum("ij,ij->i", B, B)
    G = A @ B.T
    G *= 2.0
    G -= sq_a[:, None]
    G -= sq_b[None, :]
    np.minimum(G, 0.0, out=G)
    G *= 0.5
    np.exp(G, out=G)
    return G


def gaussian_kernel_sum(A, B, *, axis=None):
    """Sums of the Gaussian Gram matrix of (scaled) rows, computed by blocks.

    Memory stays O(block), about 2·10⁶ kernel values, whatever the sizes.

    Parameters
    ----------
    A : ndarray of shape (n, d)
        Rows already scaled by :func:`scale_rows`.
    B : ndarray of shape (m, d)
        Likewise; may be the same object as ``A`` (then the symmetric
        blocks are computed once).
    axis : {None, 0}, default=None
        None: the total ``Σ_i Σ_j k(a_i, b_j)``; 0: the column sums
        ``Σ_i k(a_i, b_j)`` for every row ``b_j`` of B.

    Returns
    -------
    total : float or ndarray of shape (m,)

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen.kernels import gaussian_kernel_sum
    >>> A = np.zeros((3, 2))
    >>> gaussian_kernel_sum(A, A)
    9.0
    """
    sq_a = np.einsum("ij,ij->i", A, A)
    symmetric = B is A
    sq_b = sq_a if symmetric else np.einsum("ij,ij->i", B, B)
    if axis == 0:
        rows = max(1, _BLOCK_VALUES // max(1, B.shape[0]))
        out = np.zeros(B.shape[0])
        for i in range(0, A.shape[0], rows):
            out += gaussian_gram(A[i : i + rows], B, sq_a=sq_a[i : i + rows], sq_b=sq_b).sum(0)
        return out
    if axis is not None:
        raise ValueError(f"axis must be None or 0, got {axis!r}.")
    rows = max(1, int(math.sqrt(_BLOCK_VALUES)))
    total = 0.0
    for i in range(0, A.shape[0], rows):
        for j in range(i if symmetric else 0, B.shape[0], rows):
            s = float(gaussian_gram(A[i : i + rows], B[j : j + rows], sq_a=sq_a[i : i + rows],
                                    sq_b=sq_b[j : j + rows]).sum())
            total += 2.0 * s if symmetric and j != i else s
    return total


