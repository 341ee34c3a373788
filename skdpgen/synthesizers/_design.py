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
from typing import Callable

from ..schema import TableEncoder
from .generators._base import GeneratorSpec

__all__ = ["Design", "PublicShape"]


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
