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

from .._canonical import MISSING, canonical, canonical_keys, labels_series, table_frame
from ._table import check_spec
from .kinds import kind_of

__all__ = ["ColumnRead", "check_table", "read_column"]


class ColumnRead(NamedTuple):
    """A column as :func:`read_column` reads it."""

    kind: str
    values: object
    bounds: tuple = None
    levels: list = None


def read_column(column, spec=None, *, kind=None, key=None):
    """A column's kind and values, read as fits read them (not for release).

    Every value is read through its canonical form
    (:mod:`skdpgen._canonical`), as a synthesizer reads it: ``"3"``
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
    kind : str, default=None
        Read the column as the kind of this name (``"numeric"``,
        ``"datetime"``, ``"categorical"``, ``"bool"`` or a registered
        kind's; another table's kind of the same column). By default the
        spec's kind, else the kind the exact counts of the values' canonical
        forms give (the rule of the private estimate,
        :func:`skdpgen.schema.kinds._text.kind_from_forms`). The kind reads
        the values (:meth:`~skdpgen.schema.ColumnKind.read_values`).
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
        order (bools, numbers, then text), else None. A registered kind's
        column is read as its kind reads it (by default as a categorical
        one).

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
    if kind is not None:
        kind = kind_of(kind)
    elif spec.get("type") is not None:
        kind = kind_of(spec)
    else:  # the rule of the private estimate, on exact counts
        kind = kind_of("text").read(key, canon, None)
    return ColumnRead(kind.name, *kind.read_values(key, canon, spec))


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
        found, absent = kind_of(spec).check_values(key, canon, spec)
        counts.update(found)
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
