"""The marginals of :func:`~skdpgen.evaluation.evaluate_tables`: cells and distances."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math

import numpy as np
import pandas as pd

from ..schema import kind_of
from ._fidelity import marginal_tv_distance

__all__ = ["table_fidelity"]

#: Bins of a numeric or datetime column in the marginals (missing: one more).
TV_BINS = 10
#: A value of a numeric or datetime column held by at least this share of the
#: real test table's rows is a cell of its own in the marginals (a point mass:
#: the zeros of a capital gain), apart from the bins.
POINT_SHARE = 0.05
#: A point mass whose synthetic share is off the real one by at least this
#: fraction of the real share is named as lost (or inflated).
POINT_GAP = 0.5
#: Column pairs of the 2-way marginals, at most (a seeded draw beyond).
MAX_PAIRS = 200


def _point_masses(reference):
    """The values held by at least ``POINT_SHARE`` of the ``reference`` rows, ascending."""
    ref = reference[~np.isnan(reference)]
    values, counts = np.unique(ref, return_counts=True)
    return values[counts >= POINT_SHARE * reference.size]


def _bin_codes(values, bounds, reference, points=()):
    """Bin codes of a numeric column and its number of cells (missing: the last).

    Equal-width bins within the public ``bounds`` (values outside fall in
    the outer bins), else bins at the quantiles of the ``reference`` values
    other than the ``points``; a value of ``points`` (ascending) is a cell
    of its own, after the bins, so that a point mass is compared apart from
    its neighbours (at the quantiles, 91.7 % of zeros made every edge 0).
    """
    points = np.asarray(points, dtype=float)
    ref = reference[~np.isnan(reference)]
    ref = ref[~np.isin(ref, points)]
    if bounds is not None:
        edges = np.linspace(bounds[0], bounds[1], TV_BINS + 1)[1:-1]
    elif ref.size:
        edges = np.unique(np.quantile(ref, np.linspace(0, 1, TV_BINS + 1)[1:-1]))
    else:
        edges = np.array([])
    codes = np.searchsorted(edges, values, side="right")
    if points.size:
        at = np.minimum(np.searchsorted(points, values), points.size - 1)
        codes = np.where(points[at] == values, len(edges) + 1 + at, codes)
    cells = len(edges) + points.size + 2
    return np.where(np.isnan(values), cells - 1, codes), cells


def _point_text(value, kind):
    """A point mass's value as the report writes it (a date as a date)."""
    if kind_of(kind).is_numeric:
        return f"{value:g}"
    day = pd.Timestamp(value, unit="D")  # a date: days since 1970
    return str(day.date()) if value == round(value) else str(day)


def table_fidelity(kinds, bounds, real, syn, random_state):
    """Mean 1-way and 2-way TV, each column's 1-way TV and the point masses lost."""
    codes_r, codes_s, categories, lost = {}, {}, {}, []
    for col, kind in kinds.items():
        if kind_of(kind).is_bounded:
            ref, other = real[col].to_numpy(dtype=float), syn[col].to_numpy(dtype=float)
            points = _point_masses(ref)
            codes_r[col], size = _bin_codes(ref, bounds[col], ref, points)
            codes_s[col], _ = _bin_codes(other, bounds[col], ref, points)
            categories[col] = list(range(size))
            for value in points:
                p, q = float(np.mean(ref == value)), float(np.mean(other == value))
                if abs(q - p) >= POINT_GAP * p:
                    lost.append({"column": col, "value": _point_text(value, kind),
                                 "real": p, "synthetic": q})
        else:
            codes_r[col] = real[col].fillna("(missing)").to_numpy(dtype=object)
            codes_s[col] = syn[col].fillna("(missing)").to_numpy(dtype=object)
            categories[col] = list(pd.unique(np.concatenate([codes_r[col], codes_s[col]])))
    cr, cs = pd.DataFrame(codes_r), pd.DataFrame(codes_s)
    per_column = {col: marginal_tv_distance(cr[[col]], cs[[col]], alpha=1,
                                            categories={col: categories[col]})
                  for col in kinds}
    two = None
    if len(kinds) >= 2:
        two = marginal_tv_distance(cr, cs, alpha=2, categories=categories,
                                   max_combinations=MAX_PAIRS, random_state=random_state)
    one = float(np.mean(list(per_column.values()))) if per_column else math.nan
    return {1: one, 2: two}, per_column, lost
