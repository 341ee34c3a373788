"""Text: a column whose kind is not declared, until its kind is estimated.

Its first release (``schema: kinds``) is the count of its values in each
canonical form (numbers, bools, dates, text, missing); the kind follows
from the noisy counts (:func:`skdpgen.schema._ranges.kind_from_forms`),
and the column then behaves as that kind, its statistic released as the
column's ``schema: values`` release (scaled to one sensitivity, so that the
report is the same whatever the kind).
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math

from ._bool import BoolKind
from ._categorical import CategoricalKind
from ._datetime import DatetimeKind
from ._kind import ColumnKind
from ._numeric import NumericKind
from ._ranges import kind_from_forms

__all__ = ["KINDS", "TextKind", "kind_of_spec"]


class TextKind(ColumnKind):
    """A column of unknown kind: the statistic is its form counts."""

    name = "text"
    release = "schema: kinds"
    sensitivity = math.sqrt(2.0)

    def statistic(self, canon, context):
        """``[numbers, bools, dates, text, missing]``: the count of values in
        each canonical form.

        Notes
        -----
        **Sensitivity** (replace-one): every record is in exactly one of the
        five cells, so a replacement moves one count: ``Δ = √2``.
        """
        return canon.counts()

    def privatize(self, key, statistic, n, context):
        """The column's kind (one of :data:`KINDS`), from its noisy form counts."""
        noisy, s = context.add_noise(statistic, self.sensitivity)
        context.noisy[(key, "kinds")] = noisy
        return KINDS[kind_from_forms(noisy, s)]

    def read(self, key, canon, context):
        """The kind the exact form counts give (the rule of the private estimate)."""
        return KINDS[kind_from_forms(canon.counts(), 0.0)]


#: The kinds by name (:func:`register_kind` adds one).
KINDS = {"numeric": NumericKind(), "datetime": DatetimeKind(),
         "categorical": CategoricalKind(), "bool": BoolKind(), "text": TextKind()}
#: The types a schema declares, in the order every interface names them.
_DECLARABLE = ["numeric", "datetime", "categorical"]


def register_kind(kind, *, declarable=True):
    """Add a column kind: the one step a new kind takes besides its own module.

    The kind's ``type`` becomes a type a schema declares (unless
    ``declarable`` is false), checked by its :meth:`~ColumnKind.check_spec`,
    encoded by its :meth:`~ColumnKind.codec` and typed by its
    :meth:`~ColumnKind.output_dtype`: the encoder, the mechanisms, the
    command line's schema files and its messages then take it. A column of
    the kind must be declared complete; estimating one privately also needs
    a release (:meth:`~ColumnKind.statistic` and :meth:`~ColumnKind.estimate`)
    that :class:`~skdpgen.private_schema.SchemaPlan` knows, which only the
    built-in kinds have.

    Parameters
    ----------
    kind : ColumnKind
        An instance; its ``name`` and ``type`` must be new.
    declarable : bool, default=True

    Returns
    -------
    kind : ColumnKind
    """
    if kind.name in KINDS or kind.type in _DECLARABLE:
        raise ValueError(f"A column kind named {kind.name!r} is already registered.")
    KINDS[kind.name] = kind
    if declarable:
        _DECLARABLE.append(kind.type)
    return kind


def schema_types():
    """The types a schema declares (the one list every interface names).

    Examples
    --------
    >>> from skdpgen.schema._text import schema_types
    >>> schema_types()
    ('numeric', 'datetime', 'categorical')
    """
    return tuple(_DECLARABLE)


def kind_of_spec(spec):
    """The kind of a complete spec (bool: a categorical spec of bools)."""
    from ._bool import is_bool_categories

    if spec["type"] == "categorical" and is_bool_categories(spec["categories"]):
        return KINDS["bool"]
    return KINDS[spec["type"]]
