"""DP-MERF's mechanism: the random Fourier features' embedding, and the pairwise kernel."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math
from numbers import Integral, Real

from sklearn.base import clone
from sklearn.utils._param_validation import Interval, StrOptions

from .._policy import POLICY
from ._base import EmbeddingMechanism, feature_map_loss
from ._pairwise import pairwise_features

__all__ = ["FourierMechanism", "default_length_scale", "pairwise_weight"]


def default_length_scale(n_numeric, category_sizes, factor=None):
    """DP-MERF's default length scale, from the public shape of the encoding.

    ``ℓ = factor · D`` with ``D = sqrt((2/3) n_numeric + 2 Σ_j (1 − 1/K_j))``,
    the root mean squared distance between two encoded rows whose columns
    are independent and uniform: a numeric column uniform on its public
    range ``[-1, 1]`` adds ``E(u − v)² = 2/3``, a one-hot block of ``K``
    equally likely categories adds 2 (two different one-hot vectors) times
    ``P(differ) = 1 − 1/K``. A Gaussian kernel sees distances in units of
    ``ℓ``: with a fixed ``ℓ = 1`` on an encoding of several hundred
    dimensions almost every pair of rows is many length scales apart, the
    kernel is nearly zero off the diagonal, and the embedding carries no
    information the generator can match. ``D`` is a function of the public
    encoding only (the schema's column types and category counts), never of
    the rows.

    Parameters
    ----------
    n_numeric : int
        Numeric columns of the encoding (each scaled to ``[-1, 1]``).
    category_sizes : sequence of int
        Widths of its one-hot blocks (categorical columns, missing
        indicators).
    factor : float, default=None
        None: ``POLICY.length_scale_factor`` (the synthesis policy's).

    Returns
    -------
    length_scale : float

    Examples
    --------
    >>> from skdpgen.synthesizers.mechanisms.fourier import default_length_scale
    >>> round(default_length_scale(6, [2, 9, 16]), 3)
    1.471
    """
    factor = POLICY.length_scale_factor if factor is None else factor
    squared = 2.0 / 3.0 * n_numeric + sum(2.0 * (1.0 - 1.0 / k) for k in category_sizes)
    return factor * math.sqrt(max(squared, 2.0 / 3.0))


def pairwise_weight(pairwise):
    """DP-MERF's default weight of the pairwise kernel's loss: its number of pairs.

    Each of the ``P`` pairs' features carries ``1/sqrt(P)``, which keeps the
    kernel's rows at norm ≤ 1 (the bound its sensitivity rests on), so in
    the loss ``‖μ̃ − μ_θ‖²`` every pair's joint weighs ``1/P`` of what the
    random-feature embedding, one map of norm ≤ 1 over all columns, weighs.
    The weight ``P`` gives each pair's joint the random features' weight.
    It scales a loss, not a release: ``P`` is public (the pairs come from
    the schema's widths and the budget,
    ``pairs_above_noise``), and the
    guarantee does not depend on it.

    Parameters
    ----------
    pairwise : HermiteFeatures
        The fitted pairwise kernel.

    Returns
    -------
    weight : int
        ``P`` (1 for a pairwise kernel over a single column).

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen.synthesizers.mechanisms._pairwise import pairwise_features
    >>> from skdpgen.synthesizers.mechanisms.fourier import pairwise_weight
    >>> pairwise_weight(pairwise_features(2, [3], 5, 0.5, np.random.default_rng(0)))
    3
    """
    return 1 if pairwise.pairs_ is None else len(pairwise.pairs_)


class FourierMechanism(EmbeddingMechanism):
    """DP-MERF's releases: the random-feature embedding, and the pairwise kernel.

    The mechanism of :class:`~skdpgen.DPMERFSynthesizer`, composable with any
    generator through :class:`~skdpgen.synthesizers.Synthesizer`.

    Parameters
    ----------
    features : BoundedFeatureMap or None, default=None
        The random features (a :class:`~skdpgen.RandomFourierFeatures`),
        fitted on the encoded width with the encoding's category sizes
        (None: DP-HP's sum kernel, as :class:`EmbeddingMechanism`).
    auto_length_scale : bool, default=True
        Whether the length scale is resolved on the encoding
        (:func:`default_length_scale`) rather than read from ``features``.
    pairwise_share : float, default=0.0
        With ``pairwise_share > 0`` the pairwise Hermite kernel of the encoded
        table (``pairwise_features``) is released too, with that share of the
        mechanism's budget.
    pairwise_order : int, default=5
        The pairwise kernel's Hermite order.
    pairwise_weight : float or "auto", default="auto"
        The loss is the random features' loss plus ``pairwise_weight`` times
        the pairwise kernel's (``"auto"``: the number of pairs,
        :func:`pairwise_weight`).

    Examples
    --------
    >>> from skdpgen import RandomFourierFeatures
    >>> from skdpgen.synthesizers import FourierMechanism, GeneratorSpec, Synthesizer
    >>> model = Synthesizer(mechanism=FourierMechanism(
    ...     features=RandomFourierFeatures(n_components=200)), generator=GeneratorSpec())
    >>> model.get_params()["mechanism__pairwise_share"]
    0.0
    """

    _parameter_constraints: dict = {
        **EmbeddingMechanism._parameter_constraints,
        "auto_length_scale": ["boolean"],
        "pairwise_share": [Interval(Real, 0, 1, closed="left")],
        "pairwise_order": [Interval(Integral, 0, None, closed="left")],
        "pairwise_weight": [StrOptions({"auto"}), Interval(Real, 0, None, closed="left")],
    }

    def __init__(self, *, features=None, auto_length_scale=True, pairwise_share=0.0,
                 pairwise_order=5, pairwise_weight="auto"):
        super().__init__(features=features)
        self.auto_length_scale = auto_length_scale
        self.pairwise_share = pairwise_share
        self.pairwise_order = pairwise_order
        self.pairwise_weight = pairwise_weight

    def _feature_map(self, encoder):
        # the generator's softmax blocks are compared through the expected
        # features of the one-hot rows sampled from them
        params = {"category_sizes": list(encoder.category_sizes_)}
        if self.auto_length_scale:
            params["length_scale"] = default_length_scale(encoder.n_numeric_,
                                                          encoder.category_sizes_)
        return clone(self.features).set_params(**params)

    def setup(self, encoder, n_classes, epochs, rng):
        super().setup(encoder, n_classes, epochs, rng)
        self._encoded = (encoder.n_numeric_, list(encoder.category_sizes_))
        self.pairwise_ = None
        self.pairwise_weight_ = None
        return self

    def budget_shares(self, epochs):
        if not self.pairwise_share:
            return super().budget_shares(epochs)
        return {"mean embedding": 1.0 - self.pairwise_share,
                "pairwise kernel": self.pairwise_share}

    def release(self, epoch, context):
        super().release(epoch, context)
        if epoch == 0 and self.pairwise_share:
            self.pairwise_ = pairwise_features(
                *self._encoded, self.pairwise_order, POLICY.pairwise_length_scale, context.rng,
                noise_std=context.noise_std("pairwise kernel"))
            self.pairwise_weight_ = float(
                pairwise_weight(self.pairwise_) if self.pairwise_weight == "auto"
                else self.pairwise_weight)
            self._release(context, "pairwise kernel", self.pairwise_)

    def loss(self, generated, labels):
        loss = super().loss(generated, labels)
        if self.pairwise_ is not None:
            loss = loss + self.pairwise_weight_ * feature_map_loss(
                self._on_device["pairwise kernel"], self.pairwise_, generated, labels,
                self.n_classes_)
        return loss
