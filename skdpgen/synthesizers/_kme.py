"""KMESynthesizer: a generator trained against any bounded feature map's private embedding."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

from sklearn.utils._param_validation import HasMethods

from ..base import estimator_init
from ._base import BaseSynthesizer, fitted_part
from ._design import Design, GeneratorSpec
from .mechanisms._base import EmbeddingMechanism
from ._policy import POLICY as SYNTHESIS
from ._shared import SHARED_CONSTRAINTS, SHARED_DEFAULTS, synthesizer_doc

__all__ = ["KMESynthesizer"]


class KMESynthesizer(BaseSynthesizer):
    """Private synthetic data from any bounded feature map's mean embedding.

    Encodes the table with its public schema, releases the class-conditional
    mean embedding of the encoded rows under ``features`` once (a Gaussian
    mechanism), then trains a torch generator whose generated rows match it.
    :class:`DPHPSynthesizer` and :class:`DPMERFSynthesizer` are presets of
    the same pipeline with other mechanisms.

    Read more in the :ref:`User Guide <synthesizers>`.

    Parameters
    ----------
    features : BoundedFeatureMap, default=None
        The feature map of the encoded table (numeric columns on [-1, 1],
        then one-hot blocks), with a torch path: any
        :class:`~skdpgen.kernels.BoundedFeatureMap`, fitted on the encoded
        width or unfitted (then cloned and fitted on it). None: DP-HP's sum
        kernel, ``HermiteFeatures(order=20, length_scale=0.5)`` over the
        numeric columns with the one-hot blocks kept as they are.
    {shared_parameters}

    Attributes
    ----------
    features_ : BoundedFeatureMap
        The fitted feature map.
    {shared_attributes}

    See Also
    --------
    DPHPSynthesizer : Hermite sum and pairwise (or product) kernels (DP-HP).
    DPMERFSynthesizer : Random Fourier features (DP-MERF).
    skdpgen.kernels.BoundedFeatureMap : The protocol of a feature map.

    Notes
    -----
    **Releases and sensitivities.** The released embedding is the
    (features × classes) matrix of ``(1/n) Σ_{i: y_i = c} h(z_i)``; every
    row ``h(z_i)`` is clipped to norm ≤ 1, so replacing one record changes
    it by at most ``2/n`` in Frobenius norm (see
    :class:`~skdpgen.KernelMeanEmbedding`). Class proportions ``counts/n``
    change in two entries by ``1/n``: sensitivity ``sqrt(2)/n``. With
    ``marginal_share > 0`` the (class-conditional) one-way histograms are
    released too, as the mean of non-negative unit vectors
    (:class:`~skdpgen.kernels.HistogramFeatures`): sensitivity ``sqrt(2)/n``
    (see :class:`~skdpgen.synthesizers.MarginalCalibration`). The budget
    is split with :class:`~skdpgen.privacy.GaussianAccountant` and the
    releases compose exactly; the generator sees only the noisy releases
    (post-processing), so training longer costs nothing.

    The number of rows ``n``, the schema and the hyperparameters are public.
    Every call of ``fit`` spends its budget again
    (:func:`skdpgen.privacy.compose_reports`).

    **sample's return type.** :meth:`sample` always returns ``(X, y)``, like
    :meth:`sklearn.mixture.GaussianMixture.sample`, so code that calls it
    does not depend on how the model was fitted; ``y`` is None for a model
    fitted without labels.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen import KMESynthesizer, RandomFourierFeatures
    >>> X = np.random.default_rng(0).uniform(0, 1, size=(500, 3))
    >>> synth = KMESynthesizer(features=RandomFourierFeatures(n_components=50),
    ...                        bounds=(0, 1), epochs=2, steps_per_epoch=20,
    ...                        random_state=0).fit(X, epsilon=1.0)
    >>> X_syn, y_syn = synth.sample(4, random_state=0)
    >>> X_syn.shape, y_syn
    ((4, 3), None)
    >>> round(synth.privacy_report_.epsilon, 3)
    1.0
    """

    _parameter_constraints: dict = {
        **SHARED_CONSTRAINTS,
        "features": [None, HasMethods(["fit", "transform", "raw_transform"])],
    }
    __init__ = estimator_init(features=None, **SHARED_DEFAULTS)

    # -- what presets change -------------------------------------------------
    def _design(self, shape, rng):
        """The fit's :class:`~skdpgen.synthesizers.Design` (mechanism, encoding,
        generator), from the hyperparameters and the public ``shape``
        (:class:`~skdpgen.synthesizers.PublicShape`) only, ``rng`` for public
        seeds: presets override it."""
        generator = self._generator_spec("mlp")
        self._refuse_unused(self._unused_generator(generator.kind))
        return Design(EmbeddingMechanism(features=self.features), generator,
                      calibration_share=self._auto_share(self.marginal_share,
                                                         SYNTHESIS.marginal_share),
                      image_shape=self.image_shape)

    #: What progress bars and summaries call the estimator.
    display_name = "KME synthesizer"

    #: the fitted feature map: the fitted mechanism's (read, not copied)
    features_ = fitted_part("features_")

    def _generator_spec(self, auto_kind, auto_learning_rates=None):
        """The shared generator hyperparameters as a
        :class:`~skdpgen.synthesizers.GeneratorSpec`; ``network="auto"`` resolves
        to ``auto_kind``, ``learning_rate="auto"`` to ``auto_learning_rates[kind]``
        (by default 0.1 for a mixture, else the policy's learning rate)."""
        kind = auto_kind if self.network == "auto" else self.network
        learning_rate = self.learning_rate
        if learning_rate == "auto":
            rates = {"mixture": SYNTHESIS.mixture_learning_rate, **(auto_learning_rates or {})}
            learning_rate = rates.get(kind, SYNTHESIS.learning_rate)
        return GeneratorSpec(kind=kind, learning_rate=float(learning_rate),
                             batch_size=self.batch_size, noise_dim=self.noise_dim,
                             widths=tuple(self.network_widths), image_shape=self.image_shape)

    def _unused_generator(self, kind):
        """``{parameter: why}`` of the generator parameters a ``kind`` does not use."""
        unused = {}
        if kind != "mlp":
            unused["network_widths"] = f"network={kind!r} is not an MLP"
        if kind == "mixture":
            unused["noise_dim"] = "a mixture draws its rows, it has no latent input"
        return unused

    def _auto_share(self, value, default):
        """A budget share with ``"auto"`` resolved: ``default``, and 0 with ``image_shape``."""
        if value == "auto":
            return 0.0 if self.image_shape is not None else default
        return float(value)


KMESynthesizer.__doc__ = synthesizer_doc(KMESynthesizer.__doc__, learning_rate="1e-2")


