"""The generator part of a synthesizer: which network, and how it is trained."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

from numbers import Integral, Real

import torch
from sklearn.base import BaseEstimator, clone
from sklearn.utils._param_validation import Interval, StrOptions

from .._shared import SHARED_DEFAULTS
from .mixture import MixtureGenerator
from .mlp import ConvImageGenerator, TabularGenerator

__all__ = ["GeneratorSpec", "build_network"]


class GeneratorSpec(BaseEstimator):
    """The generator of a synthesizer and how it is trained (public choices).

    A scikit-learn estimator of its hyperparameters (``get_params``,
    :func:`~sklearn.base.clone`): the ``generator`` part of a composed
    :class:`~skdpgen.synthesizers.Synthesizer`, whose ``generator__<name>``
    a grid search reaches; the presets build one from their own parameters.

    Parameters
    ----------
    kind : {"mlp", "conv", "mixture"}, default="mlp"
        An MLP with one head per column, a convolutional network for
        single-channel images, or a mixture of ``batch_size`` product
        distributions over one-hot columns
        (:class:`~skdpgen.synthesizers.MixtureGenerator`).
    learning_rate : float, default=1e-2
        Adam's learning rate.
    batch_size : int, default=500
        Generated rows per update (the mixture's components for a mixture);
        of each class with ``per_class``.
    noise_dim : int or "auto", default="auto"
        Width of the latent input. ``"auto"``: 16, and for a mixture one
        latent coordinate to choose the component plus one per group of
        columns the fit may join (at most one per two columns).
    widths : tuple of int, default=(128, 128)
        Hidden widths of the MLP.
    image_shape : tuple of (int, int) or None, default=None
        The images' shape (``"conv"``).
    per_class : bool, default=False
        Whether ``batch_size`` counts the rows of each class (a mixture's
        components per class) rather than of the whole batch.

    Examples
    --------
    >>> from skdpgen.synthesizers import GeneratorSpec
    >>> spec = GeneratorSpec(kind="mixture", batch_size=20, per_class=True)
    >>> spec.rows(3), spec.resolved(7).noise_dim
    (60, 4)
    """

    _parameter_constraints: dict = {
        "kind": [StrOptions({"mlp", "conv", "mixture"})],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "noise_dim": [StrOptions({"auto"}), Interval(Integral, 1, None, closed="left")],
        "widths": ["array-like"],
        "image_shape": [tuple, None],
        "per_class": ["boolean"],
    }

    def __init__(self, *, kind="mlp", learning_rate=SHARED_DEFAULTS["learning_rate"],
                 batch_size=SHARED_DEFAULTS["batch_size"], noise_dim="auto",
                 widths=SHARED_DEFAULTS["network_widths"], image_shape=None,
                 per_class=False):
        self.kind = kind
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.noise_dim = noise_dim
        self.widths = widths
        self.image_shape = image_shape
        self.per_class = per_class

    def resolved(self, n_columns):
        """A validated clone with ``noise_dim="auto"`` resolved for a table of
        ``n_columns`` columns (public); the fit keeps it as ``design_.generator``."""
        spec = clone(self)
        spec._validate_params()
        if spec.noise_dim == "auto":
            spec.noise_dim = (1 + n_columns // 2 if spec.kind == "mixture"
                              else SHARED_DEFAULTS["noise_dim"])
        return spec

    def rows(self, n_classes):
        """The generated rows of a batch, for ``n_classes`` classes (0: unlabeled)."""
        return self.batch_size * max(n_classes, 1) if self.per_class else self.batch_size

    def build(self, n_classes, encoder, generator):
        """The network for a fitted ``encoder``, initialized from ``generator``
        (a local ``torch.Generator``: public randomness)."""
        return build_network(self.kind, self.noise_dim, n_classes, tuple(self.widths),
                             encoder.n_numeric_, encoder.category_sizes_, self.image_shape,
                             generator, n_rows=self.rows(n_classes))


def build_network(kind, noise_dim, n_classes, widths, n_numeric, category_sizes,
                  image_shape, generator, n_rows=None):
    """Construct and seed a generator network without touching global RNG state.

    ``kind="mlp"`` gives a :class:`TabularGenerator`; ``kind="conv"`` a
    :class:`ConvImageGenerator` for tables of ``h × w`` numeric pixel columns;
    ``kind="mixture"`` a :class:`MixtureGenerator` of ``n_rows`` rows for
    tables of one-hot columns only.
    """
    with torch.random.fork_rng(devices=[]):
        if kind == "mixture":
            if n_numeric:
                raise ValueError(
                    "network='mixture' needs every column one-hot (numeric columns "
                    f"encoded as bins); got {n_numeric} numeric columns.")
            if n_rows < max(n_classes, 1):
                raise ValueError(f"network='mixture' needs at least one row per class, "
                                 f"got {n_rows} rows for {n_classes} classes.")
            net = MixtureGenerator(n_rows, n_classes, category_sizes)
        elif kind == "conv":
            if category_sizes or image_shape is None or n_numeric != image_shape[0] * image_shape[1]:
                raise ValueError(
                    "network='conv' needs image_shape=(h, w) with h * w numeric "
                    f"columns and no categorical ones; got {n_numeric} numeric and "
                    f"{len(category_sizes)} categorical columns, image_shape={image_shape}."
                )
            net = ConvImageGenerator(noise_dim, n_classes, image_shape)
        else:
            net = TabularGenerator(noise_dim, n_classes, widths, n_numeric, category_sizes)
    net.reset_parameters(generator)
    return net
