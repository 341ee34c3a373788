"""Kernel feature maps of encoded tables, in torch, for data and generator alike.

An encoded table (see :class:`skdpgen.schema.TableEncoder`) has a numeric
block on [-1, 1] followed by one-hot blocks; a generator emits the same layout
with softmax probabilities in place of one-hot vectors. The same code computes
the features of the private rows (no gradient, streamed and privatized by
:func:`skdpgen.embedding.feature_sums`) and of the generated rows
(differentiable), so the two embeddings are exactly comparable; with a GPU
both run there (:class:`TorchFeatures`).
"""

import math

import numpy as np
import torch

from ..features import check_length_scale, hermite_rho, hermite_terms


class TorchFeatures:
    """A torch feature function of encoded rows, as a map ``feature_sums`` can stream.

    The function runs on ``device`` in float64: with ``device="cuda"`` the
    features of the private rows are computed on the GPU and only the
    (features × classes) sum of each chunk comes back to the host.

    Parameters
    ----------
    function : callable
        Maps a float64 tensor of encoded rows (n, d) to features (n, F) whose
        rows have norm ≤ 1 in exact arithmetic (the kernels below).
    n_features_out : int
        F, used to size the row chunks.
    device : str, default="cpu"
    """

    def __init__(self, function, n_features_out, device="cpu"):
        self.function = function
        self._n_features_out = int(n_features_out)
        self.device = device

    def transform(self, X):
        with torch.no_grad():
            T = torch.as_tensor(np.ascontiguousarray(X), dtype=torch.float64, device=self.device)
            return self.function(T).cpu().numpy()

    def _weighted_feature_sum(self, X, weights):
        """``Σ_i clip(h(x_i)) ⊗ w_i`` with every row clipped to norm ≤ 1 − 8 eps.

        The clip (as :func:`skdpgen.features._unit_norm_scale`) guards the
        sensitivity against rounding. Non-finite features make the returned
        sum non-finite, which raises.
        """
        limit = 1.0 - 8.0 * np.finfo(np.float64).eps
        with torch.no_grad():
            T = torch.as_tensor(np.ascontiguousarray(X), dtype=torch.float64, device=self.device)
            W = torch.as_tensor(np.ascontiguousarray(weights), dtype=torch.float64,
                                device=self.device)
            H = self.function(T)
            norms = torch.linalg.vector_norm(H, dim=1)
            scale = torch.where(norms > limit, limit / torch.where(norms > 0, norms, 1.0),
                                torch.ones_like(norms))
            out = ((H * scale[:, None]).T @ W).cpu().numpy()
        if not np.all(np.isfinite(out)):
            raise ValueError("The feature map returned non-finite values.")
        return out


class TabularHermiteKernel:
    """DP-HP's sum and product kernels over the columns of an encoded table.

    Sum kernel: ``h(z) = [φ(z_1), …, φ(z_p), onehot_1, …, onehot_q] / sqrt(p + q)``
    with Hermite features φ of order ``order`` for the p numeric columns and
    the one-hot vector (the exact delta kernel) for the q categorical ones.
    Product kernel over columns S: ``vec(⊗_{j∈S} ψ_j(z_j))`` with ψ the Hermite
    features of order ``product_order`` (numeric) or the one-hot block.

    Both have norm ≤ 1 for every valid encoded row: each φ has norm ≤ 1 (see
    :class:`~skdpgen.HermiteFeatures`) and each one-hot block norm 1, so the
    sum kernel's squared norm is an average of terms ≤ 1 and the product
    kernel's norm a product of terms ≤ 1.
    """

    def __init__(self, n_numeric, category_sizes, *, order, product_order, length_scale):
        self.n_numeric = n_numeric
        self.category_sizes = list(category_sizes)
        self.order = order
        self.product_order = product_order
        self.rho = torch.as_tensor(hermite_rho(check_length_scale(length_scale, n_numeric)))
        self.offsets = np.concatenate([[n_numeric], n_numeric + np.cumsum(self.category_sizes)])
        self._rho_on = {}

    @property
    def n_columns(self):
        return self.n_numeric + len(self.category_sizes)

    @property
    def n_sum_features(self):
        return self.n_numeric * (self.order + 1) + sum(self.category_sizes)

    def n_product_features(self, columns):
        sizes = [self.product_order + 1 if j < self.n_numeric
                 else self.category_sizes[j - self.n_numeric] for j in columns]
        return int(np.prod(sizes))

    def _rho(self, like):
        """ρ on ``like``'s device and dtype, copied there once (not every step)."""
        key = (like.device, like.dtype)
        if key not in self._rho_on:
            self._rho_on[key] = self.rho.to(like)
        return self._rho_on[key]

    def _phi(self, x, rho, order):
        terms = hermite_terms(x, rho, order, exp=torch.exp, sqrt=torch.sqrt)
        return torch.stack(list(terms), dim=-1)  # (n, k, order + 1)

    def sum_features(self, Z):
        n, p = Z.shape[0], self.n_numeric
        parts = []
        if p:
            parts.append(self._phi(Z[:, :p], self._rho(Z), self.order).reshape(n, -1))
        parts.append(Z[:, p:])
        return torch.cat(parts, dim=1) / math.sqrt(self.n_columns)

    def product_features(self, Z, columns):
        n = Z.shape[0]
        H = torch.ones((n, 1), dtype=Z.dtype, device=Z.device)
        for j in columns:
            if j < self.n_numeric:
                block = self._phi(Z[:, j : j + 1], self._rho(Z)[j : j + 1], self.product_order)[:, 0]
            else:
                k = j - self.n_numeric
                block = Z[:, self.offsets[k] : self.offsets[k + 1]]
            H = (H[:, :, None] * block[:, None, :]).reshape(n, -1)
        return H


def fourier_features(Z, frequencies):
    """``[cos(Zω), sin(Zω)] / sqrt(m)`` in torch (see RandomFourierFeatures)."""
    proj = Z @ frequencies
    return torch.cat([torch.cos(proj), torch.sin(proj)], dim=1) / math.sqrt(frequencies.shape[1])
