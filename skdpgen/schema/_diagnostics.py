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

import numpy as np
import pandas as pd

from ._canonical import MISSING, canonical, canonical_keys, labels_series, table_frame
from ._datetime import timestamp_ns
from ._table import check_spec

__all__ = ["check_table"]

_NAT = np.iinfo(np.int64).min


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
