"""Public table schemas and the data-independent encoding of mixed-type tables.

A *schema* maps each column to its public description::

    {"age": {"type": "numeric", "bounds": [17, 90], "integer": True},
     "income": {"type": "numeric", "bounds": [0, 1e6], "missing": True},
     "joined": {"type": "datetime", "bounds": ["2020-01-01", "2025-12-31"],
                "timezone": "Europe/Paris", "missing": True},
     "start": {"type": "time", "bounds": ["07:00", "19:00"], "resolution": "minute"},
     "sex": {"type": "categorical", "categories": ["Female", "Male"]},
     "job": {"type": "categorical", "categories": ["clerk", "nurse", "other"],
             "other": "other", "missing": True},
     "member": {"type": "categorical", "categories": [False, True]}}

(the JSON format of :func:`skdpgen.datasets.adult_schema` and of the command
line's ``--schema`` file). Column keys are DataFrame column names, or integer
positions for NumPy arrays.

The keys of a column's spec:

``"type"``
    ``"numeric"``, ``"datetime"``, ``"categorical"`` or ``"time"`` (times of
    day, ``"11:38:36"``, and durations, ``"26:30:00"`` or
    :class:`pandas.Timedelta`: read as their length since midnight, and
    written as text, ``HH:MM:SS``). A spec with a type
    and no bounds (categories) declares the column's kind only: a private
    fit estimates the rest (``"bool"`` declares a bool column, categories
    ``[False, True]``).
``"bounds"``
    Numeric, datetime and time columns: the public ``[lo, hi]``, lo < hi; for
    datetime columns anything :class:`pandas.Timestamp` parses (naive bounds
    are wall times in the column's timezone), for time columns times such
    as ``"08:00"`` or ``"18:30:00"`` (``"36:00"`` for a duration).
``"integer"`` (numeric, default false)
    Round synthetic values to whole numbers.
``"timezone"`` (datetime, default None)
    The column's timezone (a name such as ``"UTC"`` or ``"Europe/Paris"``):
    times without an offset are wall times there, times with one are
    converted. Without it the column is naive: times with an offset are
    converted to UTC wall time (a tz-aware dtype is a form of the input,
    not a declaration; :func:`kinds_from_dtypes` declares it).
``"categories"`` (categorical)
    The public list of values, distinct, without NaN or None. ``[False,
    True]`` makes a boolean column.
``"ordered"`` (categorical, default false)
    The categories are ordered (in the list's order).
``"other"`` (categorical, default absent)
    A category (added to the list, last, when it is not in it): values
    that are not among the categories are mapped to it (as privately estimated schemas do, whose rare values are
    dropped); so are missing values when the column does not declare
    ``"missing": true``. Without it, such values are mapped to the first
    category: a record's value never makes a fit fail.
``"missing"`` (every type, default false)
    The column may hold missing values (NaN, None, ``pd.NA``, ``NaT``, and
    text such as ``""`` or ``"NA"``): they are encoded as missing and
    synthesized at their rate. Without it a missing value is imputed (the
    centre of the bounds, or the other category) and synthetic values are
    never missing.
``"zero"`` (numeric with 0 as a bound, default false)
    The column holds a point mass at exactly 0 (rain, earnings, counts of
    events): a ``[non-zero, zero]`` indicator is encoded beside the value
    and synthetic zeros are exact. Ignored with ``"missing": true``. A
    private estimate states it when the released count of exact zeros holds
    a twentieth of the rows or more and 0 is an end of the bounds, unless
    the column's partial spec declares ``"zero": false`` (as ``image_shape``
    does for every pixel). A binned encoding gives the exact zeros a cell
    of their own whenever the bounds hold 0, declared or not (a public rule,
    :func:`~skdpgen.schema._points.zero_cell`); ``"zero": false`` turns
    that off too, and stays in the resolved spec.
``"points"`` (numeric, default absent)
    Values of the column that hold a point mass (hours worked: 40; a price:
    100): a binned encoding keeps the rows holding exactly each of them in a
    cell of their own, and synthesizes them exactly, instead of spreading
    them over their bin. Distinct numbers inside the bounds (integers for an
    integer column; 0 is the ``"zero"`` flag's). A private estimate states
    the round values whose released count stands out of their neighbours'
    on the fine grid by a hundredth of the rows or more (at most 16).
``"quantiles"`` (numeric, default absent)
    Increasing numbers from the lower bound to the upper: a binned encoding
    lays its cells at equal steps along them instead of at equal widths, so
    that cells are narrow where the column's rows are. A private estimate
    states them for a column whose released mass sits in a small part of its
    bounds (post-processing of its release:
    :mod:`skdpgen.private_schema`, "Following the mass").
``"resolution"`` (datetime and time, default absent)
    ``"month"``: synthetic values are the first day of the nearest month
    (monthly data: ``Mar-2018``); ``"day"``: whole days (midnight, wall
    time); ``"hour"``: whole hours (wall time); ``"second"`` or absent:
    whole seconds (never the sub-second digits of the generator's noise). A
    private estimate states ``"month"`` when the noisy count of values not
    on a month's first day at midnight says they all are, else ``"day"``
    when the noisy count of values not at midnight does, else ``"hour"``
    when the noisy count of values not on the hour does (the rule of the
    integer flag, each count with noise ``√3`` times a bin's). Time columns:
    ``"second"`` (the default), ``"minute"`` or ``"hour"``, stated by a
    private estimate from the noisy counts of the values not on the minute
    and not on the hour.
``"format"`` (time, default absent)
    How synthetic times are written: ``"HH:MM:SS"`` or ``"HH:MM"`` (values
    rounded to the minute). Absent, ``"HH:MM"`` for a resolution of a
    minute or an hour, else ``"HH:MM:SS"``: a function of the spec, never
    of the rows' spelling.
``"coerce"`` (numeric and datetime, default false)
    Accepted for compatibility: every column is now read this way (values
    that are not numbers, or dates, count as missing).
``"levels"`` (numeric with ``"integer": true``, default absent)
    ``true``: encode the column as a one-hot block over the integers in its
    bounds (an exact delta kernel on each value, as for a categorical
    column) rather than as one scaled number; ``false``: as a number.
    Absent, the encoder's ``max_levels`` decides (:class:`TableEncoder`).
``"empty"`` (every type, default false)
    ``true``: the column is written missing in every row (its values are
    encoded as missing; the model learns none, and none is synthesized).
    A private estimate states it when the released count of the column's
    present rows does not stand out of its noise while that noise is at
    most a twentieth of the rows (:func:`skdpgen.schema._present.check_present`):
    a column of a few dozen values among thousands of rows is then written
    empty rather than with a kind and range the noise made up, and the
    command line's summary names it.
``"impute"`` (numeric, datetime and time, default false)
    Without ``"missing"``: a missing value is encoded as the centre of the
    bounds (privately estimated schemas set it; every column now does so
    without ``"missing"``); synthetic values are then never missing.

**Values in any form.** The form of the private input is not public: a
column's dtype (which pandas infers from the values), a value's Python
type or spelling. Every value is read through its **canonical form**
(:mod:`skdpgen._canonical`): ``3``, ``3.0``, ``"3"`` and
``np.int8(3)`` are one number, ``True`` and ``"true"`` one bool,
``Timestamp("2024-03-01")`` and ``"2024-03-01"`` one date, and ``""``,
``"NA"``, None and NaN are missing, whatever the column's dtype. A value
that does not fit its column's spec is clipped, imputed or mapped, never an
error (:meth:`TableEncoder.transform`); :func:`check_table` counts, for the
data holder only, what that did.

**Declaring dtypes public.** A column's kind comes from the schema; what
the schema leaves out is estimated privately, the kind included (from its
values' canonical forms). When the dtypes are public,
:func:`kinds_from_dtypes` turns them into type-only specs (``{"type":
"numeric"}``) to pass in the schema: the kind is then declared and the
rest still estimated, without the kind's release.

Encoding is a fixed function of the schema (see :class:`TableEncoder` for
the layout): numeric and datetime columns are clipped to their bounds and
mapped linearly onto [-1, 1] (datetimes as nanoseconds since the epoch, UTC);
categorical columns become one-hot blocks, with one more slot for a missing
value; a numeric or datetime column that may be missing gets a 2-way
``[present, missing]`` indicator block. Decoding is one too, dtypes
included (:func:`output_dtype`). Nothing about either depends on the rows,
except for the columns the schema leaves out, whose kind and bounds or
categories a standalone encoder then reads from the data with a
:class:`~skdpgen.privacy.PrivacyLeakWarning` and records as leaks
(:func:`skdpgen.privacy.record_leak`); private fits estimate them instead
(:mod:`skdpgen.private_schema`).
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

from .._canonical import numbers_table
from ._diagnostics import ColumnRead, check_table, read_column
from ._dtypes import kinds_from_dtypes
from ._issues import (SchemaEstimateError, SchemaEstimateWarning, SchemaSizeError,
                      describe_issues, is_guess)
from ._template import refusal_template
from ._table import (
    TableEncoder,
    as_frame,
    encodes_as_levels,
    is_categorical_dtype,
    numeric_schema,
    output_dtype,
    paired_frames,
)
from .kinds import (
    ColumnCodec,
    ColumnKind,
    bin_index,
    kind_of,
    partial_kind,
    register_kind,
    schema_types,
    unregister_kind,
)

__all__ = [
    "ColumnCodec",
    "ColumnKind",
    "ColumnRead",
    "SchemaEstimateError",
    "SchemaEstimateWarning",
    "SchemaSizeError",
    "TableEncoder",
    "as_frame",
    "bin_index",
    "check_table",
    "describe_issues",
    "encodes_as_levels",
    "is_categorical_dtype",
    "is_guess",
    "kind_of",
    "kinds_from_dtypes",
    "numbers_table",
    "numeric_schema",
    "output_dtype",
    "partial_kind",
    "paired_frames",
    "read_column",
    "refusal_template",
    "register_kind",
    "schema_types",
    "unregister_kind",
]
