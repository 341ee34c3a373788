"""DP-MERF: private synthetic data from random Fourier features."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

from numbers import Integral, Real

from sklearn.utils._param_validation import Interval

from ..base import estimator_init
from ..kernels import RandomFourierFeatures
from ..registry import register
from ._kme import SHARED_CONSTRAINTS, SHARED_DEFAULTS, KMESynthesizer, synthesizer_doc
from ._mechanism import EmbeddingMechanism

__all__ = ["DPMERFSynthesizer"]


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
    length_scale : float, default=1.0
        Length scale of the Gaussian kernel on the encoding (numeric columns
        on [-1, 1], one-hot blocks); it does not look at the data.
    {shared_parameters}

    Attributes
    ----------
    features_ : RandomFourierFeatures
        The fitted feature map (frequencies drawn from ``random_state``).
    {shared_attributes}

    See Also
    --------
    DPHPSynthesizer : Hermite features, sum and product kernels.
    KMESynthesizer : the pipeline with any bounded feature map.

    Notes
    -----
    One release: the (features × classes) matrix of
    ``(1/n) Σ_{i: y_i = c} φ(z_i)`` with ``‖φ‖ = 1``, replace-one sensitivity
    ``2/n`` (see :class:`~skdpgen.KernelMeanEmbedding`), plus the class
    proportions (sensitivity ``sqrt(2)/n``) when fitted with labels.

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
        "length_scale": [Interval(Real, 0, None, closed="neither"), "array-like"],
    }
    __init__ = estimator_init(n_components=2000, length_scale=1.0, **SHARED_DEFAULTS)

    def _mechanism(self, encoder, rng):
        return EmbeddingMechanism(RandomFourierFeatures(
            n_components=self.n_components, length_scale=self.length_scale,
            random_state=int(rng.integers(2**31)),
        ))


DPMERFSynthesizer.__doc__ = synthesizer_doc(
    DPMERFSynthesizer.__doc__, learning_rate="1e-2", random_choices="the frequencies, "
)
