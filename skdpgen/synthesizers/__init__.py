"""Synthesizers: a mechanism (what is released) plus a trainer (the generator).

:class:`KMESynthesizer` trains a generator against the private mean embedding
of any :class:`~skdpgen.kernels.BoundedFeatureMap`; :class:`DPHPSynthesizer`
and :class:`DPMERFSynthesizer` are presets with DP-HP's and DP-MERF's
mechanisms. A new synthesizer is a :class:`Mechanism` subclass and a thin
preset of :class:`KMESynthesizer`, registered for the command line with
:func:`skdpgen.registry.register`.
"""

from ._calibration import MarginalCalibration, marginal_cell_maps
from ._kme import KMESynthesizer
from ._marginals import MarginalMechanism, marginal_design, pair_groups
from ._mechanism import (
    EmbeddingMechanism,
    Mechanism,
    ReleaseContext,
    batch_weights,
    embedding_loss,
    feature_map_loss,
)
from ._network import MixtureGenerator
from ._pairwise import draw_pairwise_columns, pairs_above_noise, pairwise_features, shrink_pairwise
from ._trainer import GeneratorTrainer
from .dphp import DPHPSynthesizer, HermiteMechanism, patch_features
from .dpmerf import DPMERFSynthesizer, default_length_scale, pairwise_weight

__all__ = [
    "DPHPSynthesizer",
    "DPMERFSynthesizer",
    "EmbeddingMechanism",
    "GeneratorTrainer",
    "HermiteMechanism",
    "KMESynthesizer",
    "MarginalCalibration",
    "MarginalMechanism",
    "Mechanism",
    "MixtureGenerator",
    "ReleaseContext",
    "batch_weights",
    "default_length_scale",
    "draw_pairwise_columns",
    "embedding_loss",
    "feature_map_loss",
    "marginal_cell_maps",
    "marginal_design",
    "pair_groups",
    "pairs_above_noise",
    "pairwise_features",
    "pairwise_weight",
    "patch_features",
    "shrink_pairwise",
]
