"""Mechanisms: what a synthesizer releases about the private rows, and its loss.

A mechanism (:class:`Mechanism`, a scikit-learn estimator of its public
choices) plans its releases' budget shares, releases them through a
:class:`ReleaseContext` (the one place where a synthesizer touches private
rows), in one shot or in rounds that read the model fitted so far, and gives
the loss a generator minimizes against them. It composes with any generator
(:mod:`skdpgen.synthesizers.generators`) in
:class:`~skdpgen.synthesizers.Synthesizer`.

One module a mechanism, each registered by one line below:
:class:`EmbeddingMechanism` (any bounded feature map's mean embedding),
:class:`HermiteMechanism` (DP-HP's), :class:`FourierMechanism` (DP-MERF's),
:class:`MarginalMechanism` (a table's marginals on public cells).
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

from ._base import (
    EmbeddingMechanism,
    Mechanism,
    ReleaseContext,
    embedding_loss,
    feature_map_loss,
)
from .fourier import FourierMechanism
from .hermite import HermiteMechanism
from .marginal import MarginalMechanism

__all__ = [
    "EmbeddingMechanism",
    "FourierMechanism",
    "HermiteMechanism",
    "MarginalMechanism",
    "Mechanism",
    "ReleaseContext",
    "embedding_loss",
    "feature_map_loss",
]
