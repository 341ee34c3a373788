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

# The parts' folders first: a part's module may define a preset of its own
# (importing the synthesizers' base, which imports only the folders' protocol
# modules), so the folders are read before the base is.
from .mechanisms import *  # noqa: F401,F403  (a mechanism registers in its folder)
from .mechanisms import __all__ as _MECHANISMS
from .generators import *  # noqa: F401,F403  (a generator registers in its folder)
from .generators import __all__ as _GENERATORS
from ._base import BaseSynthesizer
from ._calibration import MarginalCalibration
from ._composed import Synthesizer
from ._design import Design, PublicShape
from ._kme import KMESynthesizer
from ._policy import POLICY, SynthesisPolicy
from ._trainer import GeneratorTrainer
from .dphp import DPHPSynthesizer
from .dpmerf import DPMERFSynthesizer
from .marginal import MarginalSynthesizer

__all__ = sorted([
    "BaseSynthesizer",
    "DPHPSynthesizer",
    "DPMERFSynthesizer",
    "Design",
    "GeneratorTrainer",
    "KMESynthesizer",
    "MarginalCalibration",
    "MarginalSynthesizer",
    "POLICY",
    "PublicShape",
    "SynthesisPolicy",
    "Synthesizer",
    *_MECHANISMS,
    *_GENERATORS,
])
