"""A synthesizer's design: a mechanism and a generator, chosen from the public shape.

A synthesizer is composed of two parts, chosen together in one call
(``_design`` of :class:`~skdpgen.KMESynthesizer` and its presets) from the
hyperparameters and the public shape of a fit (:class:`PublicShape`) before
any row is read:

* the **mechanism** (:class:`~skdpgen.synthesizers.Mechanism`): what is
  released about the private rows, with which budget shares, and the loss
  the generator minimizes against the releases; with the public encoding of
  the table it needs (``encoding``: options of
  :class:`~skdpgen.schema.TableEncoder`);
* the **generator** (:class:`GeneratorSpec`): the network (an MLP, a
  convolutional network for images, a mixture of product distributions) and
  how it is trained.

The fit (:meth:`~skdpgen.KMESynthesizer.fit`) then plans one budget for the
mechanism's releases, the label proportions, the optional calibration and a
schema estimate, encodes, releases and trains. Both parts are scikit-learn
estimators: :class:`~skdpgen.synthesizers.Synthesizer` takes them as
parameters; a preset builds them from its own parameters in ``_design``.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import dataclasses
import functools
from numbers import Integral, Real
from typing import Callable

from sklearn.base import BaseEstimator, clone
from sklearn.utils._param_validation import Interval, StrOptions

from ..schema import TableEncoder
from ._network import build_network
from ._shared import SHARED_DEFAULTS

__all__ = ["Design", "GeneratorSpec", "PublicShape"]


@dataclasses.dataclass(frozen=True)
class PublicShape:
    """What a synthesizer's design may read of a fit: public facts only.

    Parameters
    ----------
    n_columns : int
        Columns of the table (public: the column names).
    epsilon, delta : float
        The fit's budget.
    labeled : bool
        Whether the fit has labels.
    count_rows : callable
        Returns the number of rows ``n`` (public under replace-one
        neighbouring); a pass over Dask data or blocks, so it is called
        only when a design reads :attr:`n_rows`.
    """

    n_columns: int
    epsilon: float
    delta: float
    labeled: bool
    count_rows: Callable[[], int] = dataclasses.field(repr=False, compare=False)

    @functools.cached_property
    def n_rows(self):
        """The number of rows (counted once, on first use)."""
        return int(self.count_rows())


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


@dataclasses.dataclass(frozen=True)
class Design:
    """A mechanism, its encoding and a generator: one fit's public plan.

    Parameters
    ----------
    mechanism : Mechanism
        Not yet set up; its :meth:`~skdpgen.synthesizers.Mechanism.budget_shares`
        are planned with the rest of the fit's budget.
    generator : GeneratorSpec
    encoding : dict, default={}
        Options of :class:`~skdpgen.schema.TableEncoder` (``max_levels``,
        ``bins``).
    calibration_share : float, default=0.0
        Share of the budget of the one-way calibration
        (:class:`~skdpgen.synthesizers.MarginalCalibration`); 0: none.
    image_shape : tuple of (int, int) or None, default=None
        Declares every column a pixel (see ``image_shape`` of the synthesizers).
    """

    mechanism: object
    generator: GeneratorSpec
    encoding: dict = dataclasses.field(default_factory=dict)
    calibration_share: float = 0.0
    image_shape: tuple = None

    def resolved(self, n_columns):
        """This design with its generator's public choices made for a table of
        ``n_columns`` columns (:meth:`GeneratorSpec.resolved`)."""
        return dataclasses.replace(self, generator=self.generator.resolved(n_columns))

    def encoder(self, schema):
        """The (unfitted) public encoder of a complete ``schema``; images keep their
        pixels as numbers (no options)."""
        if self.image_shape is not None:
            return TableEncoder(schema)
        return TableEncoder(schema, **self.encoding)
