"""The schema estimate's releases: report names, sensitivities, budget weights.

The private schema estimate (:class:`~skdpgen.schema._plan.SchemaPlan`)
makes a fixed set of releases: each declared kind's own (named, with its
sensitivity, by the kind's module), a column's kind and values releases,
and the class list's. This module names them in report order, says which
are partition selections, collects their replace-one sensitivities and
weighs them for the budget split; :func:`sensitivity_table` turns that into
the documentation's release table (:mod:`skdpgen.private_schema`).
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math

from .kinds import KINDS as _KIND

__all__ = [
    "RELEASE_ORDER",
    "SELECTIONS",
    "SENSITIVITY",
    "sensitivity_table",
]

#: Report names of the estimation releases: each kind's own (its module states
#: it with its sensitivity), a column's values release, and the class list's.
KINDS = _KIND["text"].release
NUMERIC = _KIND["numeric"].release
NUMERIC_FLAGS = _KIND["numeric"].flags_release
DATETIME = _KIND["datetime"].release
TIME = _KIND["time"].release
MISSING_COUNT = _KIND["bool"].release
CATEGORIES = _KIND["categorical"].release
VALUES = "schema: values"
CLASSES = "schema: classes"
RELEASE_ORDER = (KINDS, VALUES, NUMERIC, NUMERIC_FLAGS, DATETIME, TIME, MISSING_COUNT,
                 CATEGORIES, CLASSES)
#: The releases that may be partition selections (each reserves its threshold's δ).
SELECTIONS = (VALUES, CATEGORIES, CLASSES)

#: Replace-one L2 sensitivity of each release as reported, from the kinds that
#: derive them (see SchemaPlan.estimate).
SENSITIVITY = {
    **{kind.release: float(kind.sensitivity) for kind in _KIND.values()},
    NUMERIC_FLAGS: float(_KIND["numeric"].flags_sensitivity),
    VALUES: math.sqrt(2.0),  # every kind's statistic scaled to sqrt(2)
    CLASSES: math.sqrt(2.0),  # a selection, as the categories' (GaussianAccountant.select)
}
#: Budget weight of a column's kind release relative to its values release: the
#: kind tests need less precision than a histogram (a noise multiplier √2 larger).
KIND_WEIGHT = 0.5

#: What each release holds, for the generated sensitivity table (sensitivity_table).
_RELEASED = {
    KINDS: "counts of the values that are numbers, bools, dates, text, missing and times "
           "(canonical forms), per column whose kind is not declared",
    VALUES: "the statistic of the kind just estimated (below), scaled to sensitivity "
            "√2; a partition selection for a categorical column",
    NUMERIC: "histogram over the public numeric grid, the same over its fine grid and "
             "over its decades, "
             "count of non-integer values, √3 × count of missing",
    NUMERIC_FLAGS: "count of non-integer values, count of missing (numeric columns with "
                   "public bounds)",
    DATETIME: "histogram over the public yearly grid, counts of values not on a "
              "month's first day, not at midnight and not on the hour (each × 1/√3), "
              "count of missing",
    TIME: "histogram over the public grid of hours of a day and durations of doubling "
          "days, counts of values not on the minute and not on the hour (each × 1/√2), "
          "count of missing",
    MISSING_COUNT: "count of missing (bool columns)",
    CATEGORIES: "counts of the values present and of missing (partition selection)",
    CLASSES: "counts of the labels present (partition selection)",
}


def sensitivity_table():
    """The release table of the schema estimate, from the plan's constants.

    Returns
    -------
    rows : list of tuple
        ``(report name, what is released, sensitivity as text)`` for each
        release, in report order; the documentation's table is generated
        from it, so it cannot drift from the code.

    Examples
    --------
    >>> from skdpgen.schema._releases import sensitivity_table
    >>> [(name, s) for name, _, s in sensitivity_table()][:3]
    [('schema: kinds', '√2'), ('schema: values', '√2'), ('schema: numeric', '√7')]
    """
    def text(x):
        square = round(x * x)
        return "1" if square == 1 else f"√{square}"

    return [(name, _RELEASED[name], text(SENSITIVITY[name])) for name in RELEASE_ORDER]
