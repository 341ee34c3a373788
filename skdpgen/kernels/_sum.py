"""A weighted sum of kernels: bounded feature maps side by side, with norm at most one."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math

import numpy as np
import torch
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

from ._base import BoundedFeatureMap, _is_tensor

__all__ = ["SumFeatures"]


class SumFeatures(BoundedFeatureMap):
    """The weighted sum of the kernels of several bounded feature maps.

    ``φ(x) = [sqrt(w_1) φ_1(x), …, sqrt(w_K) φ_K(x)]`` with the weights
    normalized to sum to one, so ``φ(x)ᵀφ(x′) = Σ_k w_k k_k(x, x′)``: one
    release holds every map's embedding (e.g. patch features at several
    scales), under one noise draw calibrated to the one norm bound.

    Parameters
    ----------
    maps : list of BoundedFeatureMap
        The maps (cloned and fitted on the input's width, or fitted on it
        already), each with a torch path.
    weights : array-like of shape (len(maps),), default=None
        Non-negative, not all zero; normalized to sum to one. None: equal.

    Attributes
    ----------
    maps_ : list of BoundedFeatureMap
        The fitted maps.
    weights_ : ndarray of shape (len(maps),)
        The normalized weights.
    n_features_out_ : int
        The sum of the maps' widths.
    n_features_in_ : int

    Notes
    -----
    **Norm bound.** Every map's rows have norm ≤ 1 in exact arithmetic (the
    protocol of :class:`~skdpgen.kernels.BoundedFeatureMap`), so
    ``‖φ(x)‖² = Σ_k w_k ‖φ_k(x)‖² ≤ Σ_k w_k = 1`` for every input: the mean
    embedding has replace-one sensitivity ``2/n``, as for any bounded map
    (the maps' rows are not clipped one by one; the whole row is, by
    :meth:`~skdpgen.kernels.BoundedFeatureMap.feature_sum`, against
    rounding). The map is row-wise when every map is. The weights and the
    maps are public hyperparameters.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen import RandomFourierFeatures
    >>> from skdpgen.kernels import SumFeatures
    >>> X = np.random.default_rng(0).uniform(-1, 1, size=(3, 4))
    >>> fmap = SumFeatures([RandomFourierFeatures(n_components=6, random_state=0),
    ...                     RandomFourierFeatures(n_components=4, length_scale=3.0,
    ...                                           random_state=1)],
    ...                    weights=[3, 1]).fit(X)
    >>> fmap.weights_.tolist(), fmap.n_features_out_
    ([0.75, 0.25], 10)
    >>> np.linalg.norm(fmap.transform(X), axis=1).round(6)
    array([1., 1., 1.])
    """

    _parameter_constraints: dict = {
        "maps": [list, tuple],
        "weights": ["array-like", None],
    }

    def __init__(self, maps, weights=None):
        self.maps = maps
        self.weights = weights

    def _fit(self, X):
        if not self.maps:
            raise ValueError("SumFeatures needs at least one map.")
        weights = np.ones(len(self.maps)) if self.weights is None else np.asarray(
            self.weights, dtype=np.float64).reshape(-1)
        if (weights.shape != (len(self.maps),) or not np.all(np.isfinite(weights))
                or np.any(weights < 0) or weights.sum() <= 0):
            raise ValueError(f"weights must be {len(self.maps)} non-negative numbers, not all "
                             f"zero; got {self.weights!r}.")
        maps = []
        for m in self.maps:
            if not isinstance(m, BoundedFeatureMap):
                raise ValueError(f"SumFeatures sums BoundedFeatureMaps; got {type(m).__name__}.")
            try:
                check_is_fitted(m)
                fitted = m.n_features_in_ == X.shape[1]
            except NotFittedError:  # fitted here, on the width only
                fitted = False
            maps.append(m if fitted else clone(m).fit(np.zeros((1, X.shape[1]))))
        self.maps_ = maps
        self.weights_ = weights / weights.sum()
        self._n_features_out = sum(m.n_features_out_ for m in maps)

    @property
    def supports_torch(self):
        return all(getattr(m, "supports_torch", False) for m in self.maps)

    def raw_transform(self, Z):
        """The maps' features side by side, each scaled by ``sqrt(w_k)``."""
        check_is_fitted(self)
        parts = [math.sqrt(w) * m.raw_transform(Z) for m, w in zip(self.maps_, self.weights_)]
        return torch.cat(parts, dim=1) if _is_tensor(Z) else np.hstack(parts)

    def raw_feature_sum(self, Z, weights):
        """The maps' (fused) weighted sums, stacked, each scaled by ``sqrt(w_k)``."""
        check_is_fitted(self)
        parts = [math.sqrt(w) * m.raw_feature_sum(Z, weights)
                 for m, w in zip(self.maps_, self.weights_)]
        return torch.cat(parts, dim=0) if _is_tensor(Z) else np.vstack(parts)

