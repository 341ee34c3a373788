"""A data holder's diagnostic: what a schema does to a private table.

A fit never fails on a record's value and never says what it did with one
(that would tell a record apart): values outside the bounds are clipped,
unparsed ones are missing, undeclared missing values imputed, unlisted
categories mapped. A data holder who wants to know how well a public
schema fits the private table calls :func:`check_table` explicitly: it
reads the rows exactly, so its output is **not for release**.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

from typing import NamedTuple

import numpy as np
import pandas as pd

from ._canonical import (
    DAY_NS,
    MISSING,
    canonical,
    canonical_keys,
    key_order,
    labels_series,
    table_frame,
)
from ._datetime import timestamp_ns
from ._table import check_spec
from ._text import KINDS, _declared_kind, kind_of

__all__ = ["ColumnRead", "check_table", "read_column"]

_NAT = np.iinfo(np.int64).min


class ColumnRead(NamedTuple):
    """A column as :func:`read_column` reads it."""

    kind: str
    values: object
    bounds: tuple = None
    levels: list = None


def _spec_kind(spec):
    """The kind a spec (complete or type-only) declares, or None."""
    if not spec or spec.get("type") is None:
        return None
    return kind_of(spec).name if spec["type"] in KINDS else spec["type"]


def read_column(column, spec=None, *, kind=None, key=None):
    """A column's kind and values, read as fits read them (not for release).

    Every value is read through its canonical form
    (:mod:`skdpgen.schema._canonical`), as a synthesizer reads it: ``"3"``
    and ``3.0`` are one number, ``"TRUE"`` and ``True`` one bool,
    ``"2024-03-01"`` a date, ``""`` and ``"NA"`` missing, whatever the
    column's dtype. Unlike a fit, it reads the exact values (the kind of an
    undeclared column included) and maps nothing to an ``"other"``
    category: a data holder's diagnostic, such as
    :func:`skdpgen.evaluation.evaluate_tables`.

    Parameters
    ----------
    column : Series, 1-D array or sequence
        One column, in any form.
    spec : dict, default=None
        Its schema entry, complete or type-only (``{"type": "numeric"}``).
    kind : {"numeric", "datetime", "categorical", "bool"}, default=None
        Read the column as this kind (another table's kind of the same
        column). By default the spec's type, else the kind the exact
        counts of the values' canonical forms give (the rule of the private
        estimate, :func:`skdpgen.schema._text.kind_from_forms`).
    key : object, default=None
        The column's name, for error messages.

    Returns
    -------
    read : ColumnRead
        ``kind``; ``values``: for numeric columns float64 (NaN where
        missing or not a number), for datetime columns float64 days since
        1970-01-01 (UTC instants with the spec's timezone, else wall times;
        NaN where missing or not a date), for categorical and bool columns
        an object array of the values' keys as text (``"True"``, ``"3"``,
        ``"2024-03-01"``) with NaN where missing; ``bounds``: the complete
        spec's bounds as ``(lo, hi)`` in the unit of ``values``, for
        numeric and datetime columns, else None; ``levels``, for
        categorical and bool columns: the spec's categories as text keys,
        in their order, then the other values the column holds, in key
        order (bools, numbers, then text), else None.

    Examples
    --------
    >>> from skdpgen.schema import read_column
    >>> read_column(["1", " 2.5", ""]).kind
    'numeric'
    >>> read_column(["1", " 2.5", "", "x"], {"type": "numeric", "bounds": [0, 10]})
    ColumnRead(kind='numeric', values=array([1. , 2.5, nan, nan]), bounds=(0.0, 10.0), levels=None)
    >>> read_column(["TRUE", "false", None])
    ColumnRead(kind='bool', values=array(['True', 'False', nan], dtype=object), bounds=None, levels=['False', 'True'])
    >>> read_column(["10", "9", "b"], {"type": "categorical"}).levels
    ['9', '10', 'b']
    >>> read_column(["2024-03-02", "NA"], {"type": "datetime"}).values.tolist()
    [19784.0, nan]
    """
    spec = dict(spec or {})
    canon = canonical(column)
    kind = kind or _spec_kind(spec) or KINDS["text"].read(key, canon, None).name
    bounds = None
    if kind in ("numeric", "datetime") and spec.get("bounds") is not None \
            and _declared_kind(spec) is None:
        bounds = check_spec(key, spec)["bounds"]
    if kind == "numeric":
        return ColumnRead(kind, canon.numbers(), None if bounds is None else
                          tuple(float(b) for b in bounds))
    if kind == "datetime":
        ns = canon.datetimes(spec.get("timezone"))
        days = ns / DAY_NS
        days[ns == _NAT] = np.nan
        return ColumnRead(kind, days, None if bounds is None else
                          tuple(timestamp_ns(b) / DAY_NS for b in bounds))
    if kind not in ("categorical", "bool"):
        raise ValueError(f"Unknown kind {kind!r} of column {key!r}.")
    keys = canon.keys().tolist()
    values = np.array([np.nan if k is None else str(k) for k in keys], dtype=object)
    levels = [str(k) for k in canonical_keys(spec.get("categories") or [])[0]]
    seen = {str(k): k for k in keys if k is not None}
    levels += [str(k) for k in sorted((k for t, k in seen.items() if t not in set(levels)),
                                      key=key_order)]
    return ColumnRead(kind, values, None, levels)


def check_table(X, schema, y=None, classes=None):
    """Count, per column, what a schema does to a table's values (not for release).

    Reads the rows exactly: a diagnostic for the data holder, never part of
    a fit, never written to a privacy file. Counts only, no value.

    Parameters
    ----------
    X : DataFrame, 2-D array or list of rows
        The private table.
    schema : dict
        Complete public specs of (some of) its columns; the others are
        skipped.
    y : array-like of shape (n,), default=None
        Labels, checked against ``classes``.
    classes : array-like, default=None
        The public class list.

    Returns
    -------
    report : DataFrame
        One row per checked column (and ``"(labels)"``), with the counts:
        ``missing`` (missing values), ``imputed`` (missing where the spec
        does not declare ``"missing": true``: imputed, or the other
        category), ``not_parsed`` (values that are no number, or no date,
        in a numeric or datetime column: read as missing), ``clipped``
        (outside the bounds) and ``unlisted`` (outside the categories or
        classes: mapped to the ``"other"`` category, or the first).

    Examples
    --------
    >>> import pandas as pd
    >>> from skdpgen.schema import check_table
    >>> X = pd.DataFrame({"age": [30, 200, "unknown", None], "sex": ["F", "M", "X", "F"]})
    >>> schema = {"age": {"type": "numeric", "bounds": [0, 120]},
    ...           "sex": {"type": "categorical", "categories": ["F", "M"]}}
    >>> check_table(X, schema).loc["age"].tolist()
    [1, 2, 1, 1, 0]
    >>> int(check_table(X, schema).loc["sex", "unlisted"])
    1
    """
    frame = table_frame(X)
    rows = {}
    for key, spec in schema.items():
        if key not in frame.columns:
            raise ValueError(f"The schema names a column that X lacks: {key!r}.")
        spec = check_spec(key, spec)
        canon = canonical(frame[key])
        missing = canon.form == MISSING
        declared = bool(spec.get("missing", False))
        counts = dict(missing=int(missing.sum()), imputed=0, not_parsed=0, clipped=0,
                      unlisted=0)
        if spec["type"] == "numeric":
            x = canon.numbers()
            counts["not_parsed"] = int(np.sum(np.isnan(x) & ~missing))
            lo, hi = spec["bounds"]
            counts["clipped"] = int(np.sum((x < lo) | (x > hi)))
            absent = np.isnan(x)
        elif spec["type"] == "datetime":
            ns = canon.datetimes(spec.get("timezone"))
            absent = ns == _NAT
            counts["not_parsed"] = int(np.sum(absent & ~missing))
            lo, hi = (timestamp_ns(b) for b in spec["bounds"])
            counts["clipped"] = int(np.sum(~absent & ((ns < lo) | (ns > hi))))
        else:
            known = set(canonical_keys(spec["categories"])[1])
            counts["unlisted"] = int(sum(t is not None and t not in known
                                         for t in canon.tags()))
            absent = missing
        counts["imputed"] = 0 if declared else int(np.sum(absent))
        rows[key] = counts
    if y is not None and classes is not None:
        known = set(canonical_keys(list(classes))[1])
        tags = canonical(labels_series(y)).tags()
        rows["(labels)"] = dict(missing=int(sum(t is None for t in tags)), imputed=0,
                                not_parsed=0, clipped=0,
                                unlisted=int(sum(t is None or t not in known for t in tags)))
    return pd.DataFrame.from_dict(rows, orient="index",
                                  columns=["missing", "imputed", "not_parsed", "clipped",
                                           "unlisted"])
