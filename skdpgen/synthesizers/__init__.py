"""Synthesizers: a mechanism (what is released) composed with a generator.

A synthesizer (:class:`BaseSynthesizer`) chooses its :class:`Design` in one
call from its hyperparameters and the fit's :class:`PublicShape`: a
:class:`Mechanism` (the releases, their budget shares, the loss) with its
encoding, and a :class:`GeneratorSpec` (an MLP, a convolutional network, a
mixture). :class:`KMESynthesizer` releases the mean embedding of any
:class:`~skdpgen.kernels.BoundedFeatureMap`; :class:`DPHPSynthesizer`
(Hermite features), :class:`DPMERFSynthesizer` (random Fourier features) and
:class:`MarginalSynthesizer` (indicator features: a table's marginals, with
a mixture generator) are presets. A new synthesizer is a subclass of
:class:`BaseSynthesizer` with its own ``_design`` (and, for a new release, a
:class:`Mechanism` subclass), registered for the command line with
:func:`skdpgen.registry.register`.
"""

from ._base import BaseSynthesizer
from ._calibration import MarginalCalibration, marginal_cell_maps
from ._design import Design, GeneratorSpec, PublicShape
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
from .marginal import MarginalSynthesizer

__all__ = [
    "BaseSynthesizer",
    "DPHPSynthesizer",
    "Design",
    "GeneratorSpec",
    "DPMERFSynthesizer",
    "EmbeddingMechanism",
    "GeneratorTrainer",
    "HermiteMechanism",
    "KMESynthesizer",
    "MarginalCalibration",
    "MarginalMechanism",
    "MarginalSynthesizer",
    "Mechanism",
    "PublicShape",
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
