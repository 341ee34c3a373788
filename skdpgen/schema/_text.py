"""Text: a column whose kind is not declared, until its kind is estimated.

Its first release (``schema: kinds``) is the count of its values in each
canonical form (numbers, bools, dates, text, missing); the kind follows
from the noisy counts (:func:`kind_from_forms`), and the column then
behaves as that kind, its statistic released as the column's ``schema:
values`` release (scaled to one sensitivity, so that the report is the
same whatever the kind).
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math

import numpy as np

from ._bool import BoolKind
from ._categorical import CategoricalKind
from ._datetime import DatetimeKind
from ._kind import ColumnKind
from ._numeric import NumericKind
from ._policy import POLICY

__all__ = ["KINDS", "TextKind", "kind_from_forms", "kind_of"]

#: The kinds a column's form counts can decide, in the order of their forms.
_FORM_KINDS = ("numeric", "bool", "datetime")


def kind_from_forms(noisy, s):
    """A column's kind from the noisy counts of its values' canonical forms.

    ``noisy`` holds the counts of values that are numbers, bools, dates,
    text and missing (:data:`skdpgen.schema._canonical.FORMS`), each with
    noise standard deviation ``s`` (0 for exact counts). The present form
    with the largest noisy count is the candidate: text (or no positive
    count) makes the column ``"categorical"``; a number, bool or date
    makes it ``"numeric"``, ``"bool"`` or ``"datetime"`` when its count
    ``ñ_t`` also makes ``POLICY.type_share`` of the noisy present values ``p̃ =
    ñ_0 + ñ_1 + ñ_2 + ñ_3``:
    ``ñ_t − POLICY.type_share·p̃ ≥ −POLICY.type_stds·s_share``,
    where ``s_share = s·sqrt((1 − q)² + 3q²)`` (``q = POLICY.type_share``) is that
    statistic's noise standard deviation; otherwise (a mix of forms) it is
    categorical.

    So a column whose present values all take form ``t`` fails the share
    test w.p. at most ``Φ(−POLICY.type_stds) ≈ 3e-5``, and loses the comparison
    with another form's noise w.p. about ``3·Φ(−ñ_t/(s√2))`` (1e-9 at
    ``ñ_t = 8.6 s``; 13 % for a table of 344 rows and 17 columns at ε = 1,
    where the noise hides the counts). Exact counts (``s = 0``) type a
    column numeric, bool or datetime only when 98 % of its present values
    take that form. (An earlier rule also asked a majority by four standard
    deviations and otherwise typed text: it typed a column of numbers
    categorical in 29 % of private estimates at 1,000 rows and 10 columns,
    simulated.)

    Examples
    --------
    >>> from skdpgen.schema._text import kind_from_forms
    >>> kind_from_forms([990, 0, 0, 10, 5], s=0), kind_from_forms([0, 0, 0, 99, 1], s=0)
    ('numeric', 'categorical')
    >>> kind_from_forms([0, 500, 0, 0, 20], s=3.0)
    'bool'
    """
    noisy = np.asarray(noisy, dtype=np.float64)
    q = POLICY.type_share
    present = max(float(noisy[:4].sum()), 0.0)
    s_share = s * math.sqrt((1.0 - q) ** 2 + 3.0 * q * q)
    t = int(np.argmax(noisy[:4]))
    if t == 3 or not noisy[t] > 0:
        return "categorical"
    if noisy[t] - q * present >= -POLICY.type_stds * s_share:
        return _FORM_KINDS[t]
    return "categorical"


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


def kind_of(spec):
    """The kind of a column: what the code outside the schema asks about it.

    Parameters
    ----------
    spec : dict or str
        The column's spec, complete or type-only (``{"type": "numeric"}``; a
        categorical spec whose categories are ``[False, True]``, or
        ``{"type": "bool"}``, is a bool column), or a kind's name (such as
        :attr:`ColumnRead.kind <skdpgen.schema.ColumnRead.kind>`).

    Returns
    -------
    kind : ColumnKind
        Its :attr:`~ColumnKind.is_numeric`, :attr:`~ColumnKind.is_bounded`
        and :attr:`~ColumnKind.has_categories` answer for the column.

    Examples
    --------
    >>> from skdpgen.schema import kind_of
    >>> kind_of({"type": "datetime", "bounds": ["2020-01-01", "2021-01-01"]}).is_bounded
    True
    >>> kind = kind_of({"type": "categorical", "categories": [False, True]})
    >>> kind.name, kind.has_categories, kind.is_numeric
    ('bool', True, False)
    >>> kind_of("numeric").is_numeric
    True
    """
    from ._bool import is_bool_categories

    name = spec if isinstance(spec, str) else spec.get("type")
    if not isinstance(spec, str) and name == "categorical" and spec.get("categories") \
            and is_bool_categories(spec["categories"]):
        name = "bool"
    if name not in KINDS:
        raise ValueError(f"Unknown column kind {name!r}; the kinds are {sorted(KINDS)}.")
    return KINDS[name]


def partial_kind(spec):
    """The kind a partial spec declares, or None when the spec is complete.

    A column whose spec is partial (a type only, or bounds left open) is
    estimated; a complete spec is used as it is (the schema plan's rule).

    Examples
    --------
    >>> from skdpgen.schema import partial_kind
    >>> partial_kind({"type": "numeric"}), partial_kind({"type": "numeric", "bounds": [0, 1]})
    ('numeric', None)
    """
    return _declared_kind(spec)


def _declared_kind(spec):
    """The kind a partial spec declares, or None when the spec is complete."""
    kind = spec.get("type")
    if kind == "bool":
        return "bool"
    if kind in ("numeric", "datetime"):
        bounds = spec.get("bounds")
        if bounds is None or None in list(bounds):
            return kind
    if kind == "categorical" and not spec.get("categories"):
        return "categorical"
    return None
