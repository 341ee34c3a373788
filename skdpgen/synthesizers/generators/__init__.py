"""Generators: the networks a synthesizer trains against a mechanism's releases.

A generator is a :class:`GeneratorSpec` (a scikit-learn estimator of its
public choices: which network, how it is trained) whose ``build`` returns the
torch module: an MLP (:class:`TabularGenerator`), a convolutional network
for images (:class:`ConvImageGenerator`) or a mixture of product
distributions over one-hot columns (:class:`MixtureGenerator`). It composes
with any mechanism (:mod:`skdpgen.synthesizers.mechanisms`) in
:class:`~skdpgen.synthesizers.Synthesizer`. One module a network, each
registered by one line below.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

from .mixture import MixtureGenerator
from .mlp import ConvImageGenerator, TabularGenerator
from ._base import GeneratorSpec

__all__ = [
    "ConvImageGenerator",
    "GeneratorSpec",
    "MixtureGenerator",
    "TabularGenerator",
]
