"""Synthesizer: a mechanism and a generator given as parameters."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

from numbers import Real

from sklearn.base import clone
from sklearn.utils._param_validation import HasMethods, Interval

from ..base import estimator_init
from ._base import BaseSynthesizer
from ._design import Design, GeneratorSpec
from .mechanisms._base import EmbeddingMechanism
from ._shared import shared_constraints, shared_defaults, synthesizer_doc

__all__ = ["Synthesizer"]

#: the shared hyperparameters of a composed synthesizer (the generator's are its part's)
_SHARED = ("epsilon", "delta", "schema", "bounds", "classes", "infer_schema", "schema_share",
           "on_guess", "label_share", "epochs", "steps_per_epoch", "random_state", "device",
           "verbose")


class Synthesizer(BaseSynthesizer):
    """Private synthetic data from a mechanism and a generator given as parts.

    The two parts of every synthesizer, given as objects: the ``mechanism``
    (what is released about the private rows and the loss the generator
    minimizes against the releases: any
    :class:`~skdpgen.synthesizers.Mechanism`, e.g.
    :class:`~skdpgen.synthesizers.MarginalMechanism` or
    :class:`~skdpgen.synthesizers.HermiteMechanism`) and the ``generator``
    (:class:`~skdpgen.synthesizers.GeneratorSpec`: an MLP, a convolutional
    network, a mixture). Both are scikit-learn estimators: their
    hyperparameters are reached by name, ``mechanism__pair_cells`` or
    ``generator__learning_rate``, by ``set_params`` and a grid search. A fit
    clones them (the parts given are never changed) and keeps the fitted
    clones (``mechanism_``, ``design_.generator``). The presets
    (:class:`~skdpgen.DPHPSynthesizer`, :class:`~skdpgen.DPMERFSynthesizer`,
    :class:`~skdpgen.MarginalSynthesizer`, :class:`~skdpgen.KMESynthesizer`)
    build the same parts from the papers' parameters.

    Read more in the :ref:`User Guide <synthesizers>`.

    Parameters
    ----------
    mechanism : Mechanism, default=None
        The releases and the loss; cloned by each fit. None:
        :class:`~skdpgen.synthesizers.EmbeddingMechanism` (DP-HP's sum kernel).
    generator : GeneratorSpec, default=None
        The generator and its training; cloned by each fit. None:
        ``GeneratorSpec()`` (an MLP).
    encoding : dict, default=None
        Options of :class:`~skdpgen.schema.TableEncoder` (``max_levels``,
        ``bins``). None: those the mechanism asks for
        (:meth:`Mechanism.encoding <skdpgen.synthesizers.Mechanism.encoding>`:
        every column one-hot for the marginal mechanism, none otherwise).
    marginal_share : float, default=0.0
        Share of the budget of the one-way histograms to which the samples
        are calibrated (:class:`~skdpgen.synthesizers.MarginalCalibration`);
        0: none.
    {shared_parameters}

    Attributes
    ----------
    {shared_attributes}

    See Also
    --------
    KMESynthesizer : a bounded feature map's embedding matched by a generator.
    MarginalSynthesizer : the marginal mechanism with a mixture, its parameters chosen
        from the table's shape.

    Notes
    -----
    **Privacy.** The releases are the mechanism's (see its Notes for their
    sensitivities), the class proportions (sensitivity ``sqrt(2)/n``) and,
    with ``marginal_share``, the one-way histograms; the budget is split
    with :class:`~skdpgen.privacy.GaussianAccountant` and the releases
    compose exactly. The generator sees only the noisy releases
    (post-processing). A combination that cannot work (a mixture over
    numeric columns, the marginal mechanism over an encoding that is not
    one-hot) is a ``ValueError`` of ``fit`` that names it, before any
    release.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen.synthesizers import GeneratorSpec, MarginalMechanism, Synthesizer
    >>> X = np.random.default_rng(0).uniform(0, 1, size=(500, 3))
    >>> synth = Synthesizer(mechanism=MarginalMechanism(pair_share=0.5, by_class=False),
    ...                     generator=GeneratorSpec(kind="mlp", batch_size=100),
    ...                     bounds=(0, 1), epochs=2, steps_per_epoch=20, random_state=0)
    >>> "mechanism__pair_cells" in synth.get_params()
    True
    >>> synth.fit(X, epsilon=1.0).sample(4, random_state=0)[0].shape
    (4, 3)
    """

    _parameter_constraints: dict = {
        **shared_constraints(_SHARED),
        "mechanism": [None, HasMethods(["setup", "budget_shares", "release", "loss"])],
        "generator": [None, HasMethods(["build", "rows", "resolved"])],
        "encoding": [dict, None],
        "marginal_share": [Interval(Real, 0, 1, closed="left")],
    }
    __init__ = estimator_init(mechanism=None, generator=None, encoding=None,
                              marginal_share=0.0, **shared_defaults(_SHARED))
    #: What progress bars and summaries call the estimator.
    display_name = "Synthesizer"

    def _design(self, shape, rng):
        """Clones of the parts given (validated), the mechanism's encoding."""
        mechanism = clone(EmbeddingMechanism() if self.mechanism is None else self.mechanism)
        if hasattr(mechanism, "_validate_params"):  # a Mechanism: its constraints
            mechanism._validate_params()
        generator = GeneratorSpec() if self.generator is None else self.generator
        encoding = mechanism.encoding(shape) if self.encoding is None else dict(self.encoding)
        return Design(mechanism, clone(generator), encoding=encoding,
                      calibration_share=float(self.marginal_share),
                      image_shape=generator.image_shape)


Synthesizer.__doc__ = synthesizer_doc(Synthesizer.__doc__, names=_SHARED)
