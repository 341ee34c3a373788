"""Public table schemas and the data-independent encoding of mixed-type tables.

A *schema* maps each column to its public description::

    {"age": {"type": "numeric", "bounds": [17, 90], "integer": True},
     "income": {"type": "numeric", "bounds": [0, 1e6], "missing": True},
     "joined": {"type": "datetime", "bounds": ["2020-01-01", "2025-12-31"],
                "timezone": "Europe/Paris", "missing": True},
     "sex": {"type": "categorical", "categories": ["Female", "Male"]},
     "job": {"type": "categorical", "categories": ["clerk", "nurse", "other"],
             "other": "other", "missing": True},
     "member": {"type": "categorical", "categories": [False, True]}}

(the JSON format of :func:`skdpgen.datasets.adult_schema` and of the command
line's ``--schema`` file). Column keys are DataFrame column names, or integer
positions for NumPy arrays.

The keys of a column's spec:

``"type"``
    ``"numeric"``, ``"datetime"`` or ``"categorical"``.
``"bounds"``
    Numeric and datetime columns: the public ``[lo, hi]``, lo < hi; for
    datetime columns anything :class:`pandas.Timestamp` parses (naive bounds
    are wall times in the column's timezone).
``"integer"`` (numeric, default false)
    Round synthetic values to whole numbers.
``"timezone"`` (datetime, default None)
    The column's timezone (a name such as ``"UTC"`` or ``"Europe/Paris"``).
    Without it, a tz-aware input column keeps the timezone of its dtype (how
    the data was loaded, not a value), and a naive one stays naive.
``"categories"`` (categorical)
    The public list of values, distinct, without NaN or None. ``[False,
    True]`` makes a boolean column.
``"ordered"`` (categorical, default false)
    The categories are ordered (in the list's order).
``"other"`` (categorical, default absent)
    One of the categories: values that are not among the categories are
    mapped to it instead of raising (as privately estimated schemas do,
    whose rare values are dropped); so are missing values when the column
    does not declare ``"missing": true``.
``"missing"`` (every type, default false)
    The column may hold missing values (NaN, None, ``pd.NA``, ``NaT``);
    without it a missing value is an error.
``"resolution"`` (datetime, default absent)
    ``"day"``: synthetic values are whole days (midnight, wall time).
``"coerce"`` (numeric and datetime, default false)
    The column holds text (as read from a CSV file): values are parsed as
    numbers or dates, and those that do not parse count as missing.
``"levels"`` (numeric with ``"integer": true``, default absent)
    ``true``: encode the column as a one-hot block over the integers in its
    bounds (an exact delta kernel on each value, as for a categorical
    column) rather than as one scaled number; ``false``: as a number.
    Absent, the encoder's ``max_levels`` decides (:class:`TableEncoder`).
``"impute"`` (numeric and datetime, default false)
    Without ``"missing"``: a missing value is encoded as the centre of the
    bounds instead of raising (privately estimated schemas set it, so that
    a column estimated to have no missing values cannot make a fit fail on
    the few it has); synthetic values are then never missing.

Encoding is a fixed function of the schema (see :class:`TableEncoder` for
the layout): numeric and datetime columns are clipped to their bounds and
mapped linearly onto [-1, 1] (datetimes as nanoseconds since the epoch, UTC);
categorical columns become one-hot blocks, with one more slot for a missing
value; a numeric or datetime column that may be missing gets a 2-way
``[present, missing]`` indicator block. Decoding is one too, dtypes
included (:func:`output_dtype`). Nothing about either depends on the rows,
except for the columns the schema leaves out, whose bounds or categories are
then read from the data with a :class:`~skdpgen.privacy.PrivacyLeakWarning`
and recorded as leaks (:func:`skdpgen.privacy.record_leak`).
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

from ._dtypes import kinds_from_dtypes
from ._table import (
    TableEncoder,
    as_frame,
    encodes_as_levels,
    is_categorical_dtype,
    numeric_schema,
    output_dtype,
    paired_frames,
)

__all__ = [
    "TableEncoder",
    "as_frame",
    "encodes_as_levels",
    "is_categorical_dtype",
    "kinds_from_dtypes",
    "numeric_schema",
    "output_dtype",
    "paired_frames",
]
