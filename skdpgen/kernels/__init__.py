"""The kernel layer: bounded feature maps and the exact Gaussian kernel.

Everything skdpgen releases is the (noisy) mean of feature vectors of norm at
most one. This package holds the protocol such maps implement
(:class:`BoundedFeatureMap`), the one function that clips rows to that norm
(:func:`unit_norm_scale`), the maps themselves, and the exact Gaussian-kernel
helpers that the releaser, the two-sample test and the evaluation share.

Imports point down: this package depends on :mod:`skdpgen.privacy` (to record
leaks) and :mod:`skdpgen.base` (the fit skeleton), never on estimators.
"""

from ._base import (
    BoundedFeatureMap,
    check_length_scale,
    clip_rows,
    prepare_feature_map,
    unit_norm_scale,
)
from ._fourier import RandomFourierFeatures
from ._gaussian import gaussian_gram, gaussian_kernel_sum, scale_rows
from ._hermite import HermiteFeatures
from ._hermite_block import hermite_block, hermite_rho, hermite_terms
from ._histogram import HistogramFeatures
from ._marginal import MarginalFeatures
from ._patch import PatchFourierFeatures
from ._subspace import GaussianSubspaceFeatures
from ._sum import SumFeatures

__all__ = [
    "BoundedFeatureMap",
    "GaussianSubspaceFeatures",
    "HermiteFeatures",
    "HistogramFeatures",
    "MarginalFeatures",
    "PatchFourierFeatures",
    "RandomFourierFeatures",
    "SumFeatures",
    "check_length_scale",
    "clip_rows",
    "gaussian_gram",
    "gaussian_kernel_sum",
    "hermite_block",
    "hermite_rho",
    "hermite_terms",
    "prepare_feature_map",
    "scale_rows",
    "unit_norm_scale",
]
