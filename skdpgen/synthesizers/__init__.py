"""Synthesizers: a mechanism (what is released) composed with a generator.

A synthesizer (:class:`BaseSynthesizer`) chooses its :class:`Design` in one
call from its hyperparameters and the fit's :class:`PublicShape`: a
:class:`Mechanism` (the releases, their budget shares, the loss) with its
encoding, and a :class:`GeneratorSpec` (an MLP, a convolutional network, a
mixture). Both parts are scikit-learn estimators: :class:`Synthesizer`
takes them as parameters (``mechanism=``, ``generator=``, reached by a grid
search as ``mechanism__<name>``). :class:`KMESynthesizer` releases the mean
embedding of any
:class:`~skdpgen.kernels.BoundedFeatureMap`; :class:`DPHPSynthesizer`
(Hermite features), :class:`DPMERFSynthesizer` (random Fourier features) and
:class:`MarginalSynthesizer` (indicator features: a table's marginals, with
a mixture generator) are presets. A new synthesizer is a subclass of
:class:`BaseSynthesizer` with its own ``_design`` (and, for a new release, a
:class:`Mechanism` subclass), registered for the command line with
:func:`skdpgen.registry.register`.

The package exports the estimators and the parts they compose (mechanisms,
generators, the trainer, and the losses a mechanism builds on), and their
policy (:data:`POLICY`, a :class:`SynthesisPolicy`: every tuned choice, one
frozen instance); the presets' helpers (their kernels' and designs' rules)
stay in their own modules.
"""

from ._base import BaseSynthesizer
from ._calibration import MarginalCalibration
from ._composed import Synthesizer
from ._design import Design, GeneratorSpec, PublicShape
from ._kme import KMESynthesizer
from ._marginals import MarginalMechanism
from ._mechanism import (
    EmbeddingMechanism,
    Mechanism,
    ReleaseContext,
    embedding_loss,
    feature_map_loss,
)
from ._network import MixtureGenerator
from ._policy import POLICY, SynthesisPolicy
from ._trainer import GeneratorTrainer
from .dphp import DPHPSynthesizer, HermiteMechanism
from .dpmerf import DPMERFSynthesizer
from .marginal import MarginalSynthesizer

__all__ = [
    "BaseSynthesizer",
    "DPHPSynthesizer",
    "DPMERFSynthesizer",
    "Design",
    "EmbeddingMechanism",
    "GeneratorSpec",
    "GeneratorTrainer",
    "HermiteMechanism",
    "KMESynthesizer",
    "MarginalCalibration",
    "MarginalMechanism",
    "MarginalSynthesizer",
    "Mechanism",
    "MixtureGenerator",
    "POLICY",
    "PublicShape",
    "ReleaseContext",
    "SynthesisPolicy",
    "Synthesizer",
    "embedding_loss",
    "feature_map_loss",
]
