"""Text: a column whose kind is not declared, until its kind is estimated.

Its first release (``schema: kinds``) is the count of its values in each
canonical form (numbers, bools, dates, text, missing, times); the kind follows
from the noisy counts (:func:`kind_from_forms`), and the column then
behaves as that kind, its statistic released as the column's ``schema:
values`` release (scaled to one sensitivity, so that the report is the
same whatever the kind).
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math

import numpy as np

from ..._canonical import MISSING, TEXT
from .._policy import POLICY
from ._kind import ColumnKind
from ._registry import KINDS

__all__ = ["TextKind", "kind_from_forms"]

#: The kind each canonical form makes a column (text: categorical; missing: none).
_FORM_KINDS = ("numeric", "bool", "datetime", "categorical", None, "time")


def kind_from_forms(noisy, s):
    """A column's kind from the noisy counts of its values' canonical forms.

    ``noisy`` holds the counts of values that are numbers, bools, dates,
    text, missing and times (:data:`skdpgen._canonical.FORMS`),
    each with noise standard deviation ``s`` (0 for exact counts). The
    present form (all but missing, ``P = 5`` of them) with the largest
    noisy count is the candidate: text (or no positive count) makes the
    column ``"categorical"``; a number, bool, date or time makes it
    ``"numeric"``, ``"bool"``, ``"datetime"`` or ``"time"`` when its count
    ``ñ_t`` also makes ``POLICY.type_share`` of the noisy present values
    ``p̃`` (the sum of the present forms' counts):
    ``ñ_t − POLICY.type_share·p̃ ≥ −POLICY.type_stds·s_share``,
    where ``s_share = s·sqrt((1 − q)² + (P − 1)q²)`` (``q = POLICY.type_share``)
    is that statistic's noise standard deviation; otherwise (a mix of forms)
    it is categorical.

    So a column whose present values all take form ``t`` fails the share
    test w.p. at most ``Φ(−POLICY.type_stds) ≈ 3e-5``, and loses the comparison
    with another form's noise w.p. about ``(P − 1)·Φ(−ñ_t/(s√2))`` (1e-9 at
    ``ñ_t = 8.6 s``; 13 % for a table of 344 rows and 17 columns at ε = 1 with four present forms,
    where the noise hides the counts). Exact counts (``s = 0``) type a
    column numeric, bool, datetime or time only when 98 % of its present
    values take that form. (An earlier rule also asked a majority by four
    standard deviations and otherwise typed text: it typed a column of
    numbers categorical in 29 % of private estimates at 1,000 rows and 10
    columns, simulated.)

    Examples
    --------
    >>> from skdpgen.schema.kinds._text import kind_from_forms
    >>> kind_from_forms([990, 0, 0, 10, 5, 0], s=0), kind_from_forms([0, 0, 0, 99, 1, 0], s=0)
    ('numeric', 'categorical')
    >>> kind_from_forms([0, 500, 0, 0, 20, 0], s=3.0), kind_from_forms([0, 0, 0, 2, 0, 98], s=0)
    ('bool', 'time')
    """
    noisy = np.asarray(noisy, dtype=np.float64)
    q = POLICY.type_share
    forms = np.array([f for f in range(len(_FORM_KINDS)) if f != MISSING])
    present = max(float(noisy[forms].sum()), 0.0)
    s_share = s * math.sqrt((1.0 - q) ** 2 + (forms.size - 1) * q * q)
    t = int(forms[np.argmax(noisy[forms])])
    if t == TEXT or not noisy[t] > 0:
        return "categorical"
    if noisy[t] - q * present >= -POLICY.type_stds * s_share:
        return _FORM_KINDS[t]
    return "categorical"


class TextKind(ColumnKind):
    """A column of unknown kind: the statistic is its form counts."""

    name = "text"
    release = "schema: kinds"
    sensitivity = math.sqrt(2.0)
    decides_kind = True

    def statistic(self, canon, context):
        """``[numbers, bools, dates, text, missing, times]``: the count of
        values in each canonical form.

        Notes
        -----
        **Sensitivity** (replace-one): every record is in exactly one of the
        six cells, so a replacement moves one count: ``Δ = √2``.
        """
        return canon.counts()

    def privatize(self, key, statistic, n, context):
        """The column's kind (a registered kind), from its noisy form counts."""
        noisy, s = context.add_noise(statistic, self.sensitivity)
        context.noisy[(key, "kinds")] = noisy
        return KINDS[kind_from_forms(noisy, s)]

    def spec_from_dtype(self, dtype):
        """None: an object or string dtype leaves the column's kind private."""
        return None

    def read(self, key, canon, context):
        """The kind the exact form counts give (the rule of the private estimate)."""
        return KINDS[kind_from_forms(canon.counts(), 0.0)]
