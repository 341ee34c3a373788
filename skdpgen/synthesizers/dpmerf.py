"""DP-MERF: private synthetic data from random Fourier features."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math
from numbers import Integral, Real

from sklearn.base import clone
from sklearn.utils._param_validation import Interval, StrOptions

from ..base import estimator_init
from ..kernels import RandomFourierFeatures
from ..registry import register
from ._kme import SHARED_CONSTRAINTS, SHARED_DEFAULTS, KMESynthesizer, synthesizer_doc
from ._mechanism import EmbeddingMechanism

__all__ = ["DPMERFSynthesizer", "default_length_scale"]

#: ``length_scale="auto"`` is this multiple of the encoding's typical distance
#: (chosen on the train splits of the panel benchmark, see benchmarks/README.md)
LENGTH_SCALE_FACTOR = 0.5


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
        None: the module's ``LENGTH_SCALE_FACTOR``.

    Returns
    -------
    length_scale : float

    Examples
    --------
    >>> from skdpgen.synthesizers import default_length_scale
    >>> round(default_length_scale(6, [2, 9, 16]), 3)
    1.471
    """
    factor = LENGTH_SCALE_FACTOR if factor is None else factor
    squared = 2.0 / 3.0 * n_numeric + sum(2.0 * (1.0 - 1.0 / k) for k in category_sizes)
    return factor * math.sqrt(max(squared, 2.0 / 3.0))


class _FourierMechanism(EmbeddingMechanism):
    """DP-MERF's release, with ``length_scale="auto"`` resolved on the encoding."""

    def __init__(self, features, auto_length_scale):
        super().__init__(features)
        self.auto_length_scale = auto_length_scale

    def setup(self, encoder, n_classes, epochs, rng):
        if self.auto_length_scale:
            self.features = clone(self.features).set_params(length_scale=default_length_scale(
                encoder.n_numeric_, encoder.category_sizes_))
        return super().setup(encoder, n_classes, epochs, rng)


@register("dpmerf")
class DPMERFSynthesizer(KMESynthesizer):
    """Differentially private synthetic data with random Fourier features (DP-MERF).

    Releases the (class-conditional) mean embedding of the encoded table under
    random Fourier features of a Gaussian kernel on all columns jointly, once,
    and trains a generator to match it: :class:`KMESynthesizer` with
    :class:`~skdpgen.RandomFourierFeatures`.

    Read more in the :ref:`User Guide <synthesizers>`.

    Parameters
    ----------
    n_components : int, default=2000
        Number of random Fourier features.
    length_scale : "auto", float or array-like, default="auto"
        Length scale of the Gaussian kernel on the encoding (numeric columns
        on [-1, 1], one-hot blocks). ``"auto"``: a fixed multiple of the
        encoding's typical distance, computed from the public schema alone
        (:func:`~skdpgen.synthesizers.default_length_scale`); it never looks
        at the rows.
    {shared_parameters}

    Attributes
    ----------
    features_ : RandomFourierFeatures
        The fitted feature map (frequencies drawn from ``random_state``).
    length_scale_ : float or ndarray
        The length scale used (``"auto"`` resolved).
    {shared_attributes}

    See Also
    --------
    DPHPSynthesizer : Hermite features, sum and pairwise (or product) kernels.
    KMESynthesizer : the pipeline with any bounded feature map.

    Notes
    -----
    The embedding release: the (features × classes) matrix of
    ``(1/n) Σ_{i: y_i = c} φ(z_i)`` with ``‖φ‖ = 1``, replace-one sensitivity
    ``2/n`` (see :class:`~skdpgen.KernelMeanEmbedding`), plus the class
    proportions (sensitivity ``sqrt(2)/n``) when fitted with labels, and
    (``marginal_share``, by default 20 % of the budget) every column's
    one-way histogram, sensitivity ``sqrt(2)/n``, to which the samples are
    calibrated (:class:`~skdpgen.synthesizers.MarginalCalibration`; the
    paper's DP-MERF is ``marginal_share=0``).

    References
    ----------
    F. Harder, K. Adamczewski, M. Park. "DP-MERF: Differentially Private Mean
    Embeddings with Random Features for Practical Privacy-Preserving Data
    Generation." AISTATS 2021.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen import DPMERFSynthesizer
    >>> X = np.random.default_rng(0).uniform(0, 1, size=(500, 3))
    >>> synth = DPMERFSynthesizer(bounds=(0, 1), epochs=2, steps_per_epoch=20,
    ...                           random_state=0).fit(X, epsilon=1.0)
    >>> synth.sample(4, random_state=0)[0].shape
    (4, 3)
    """

    _parameter_constraints: dict = {
        **SHARED_CONSTRAINTS,
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "length_scale": [StrOptions({"auto"}), Interval(Real, 0, None, closed="neither"),
                         "array-like"],
    }
    __init__ = estimator_init(n_components=2000, length_scale="auto", **SHARED_DEFAULTS)

    def _mechanism(self, rng):
        auto = isinstance(self.length_scale, str)
        return _FourierMechanism(RandomFourierFeatures(
            n_components=self.n_components, length_scale=1.0 if auto else self.length_scale,
            random_state=int(rng.integers(2**31)),
        ), auto_length_scale=auto)

    def _set_mechanism_attributes(self, mechanism):
        super()._set_mechanism_attributes(mechanism)
        self.length_scale_ = mechanism.features_.length_scale


DPMERFSynthesizer.__doc__ = synthesizer_doc(
    DPMERFSynthesizer.__doc__, learning_rate="1e-2", random_choices="the frequencies, "
)
