"""Declaring a table's dtypes public, explicitly.

pandas infers a column's dtype from its values (one ``unknown`` in a column
of integers makes it object), so by default no fit reads a dtype: a
column's kind comes from the schema or is estimated privately. A user who
knows the dtypes are public (they come from a published data dictionary,
or the table was built with declared dtypes) declares them with
:func:`kinds_from_dtypes`, whose specs go into ``schema=``: each declares a
column's kind, and the rest (bounds, categories, flags) is still estimated
privately, without the kind release.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import pandas as pd

from .kinds import kind_of

__all__ = ["column_kind", "kinds_from_dtypes"]


def column_kind(dtype):
    """The kind a dtype declares, for :func:`kinds_from_dtypes`.

    Fits never call this on their input (a dtype is not public unless
    declared): it is how a user turns dtypes they know to be public into
    schema entries.

    Parameters
    ----------
    dtype : numpy.dtype or pandas extension dtype

    Returns
    -------
    kind : {"numeric", "datetime", "time", "bool", "categorical", "text"}
        Integer and float dtypes (NumPy or pandas nullable) are numeric;
        ``datetime64`` (naive or tz-aware) is datetime; ``timedelta64``
        (durations) is time; ``bool`` and
        pandas ``"boolean"`` are bool; pandas ``Categorical`` is
        categorical; object and string dtypes are text (their kind is left
        to the private estimate).

    Raises
    ------
    ValueError
        For complex, period and interval dtypes, which no schema
        type describes (the message says how to convert the column).

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from skdpgen.private_schema import column_kind
    >>> [column_kind(np.dtype(t)) for t in ("int64", "float32", "bool", "object")]
    ['numeric', 'numeric', 'bool', 'text']
    >>> column_kind(pd.DatetimeTZDtype(tz="UTC")), column_kind(pd.BooleanDtype())
    ('datetime', 'bool')
    >>> column_kind(pd.CategoricalDtype(["a"])), column_kind(pd.StringDtype())
    ('categorical', 'text')
    """
    if isinstance(dtype, pd.CategoricalDtype):
        return "categorical"
    if pd.api.types.is_bool_dtype(dtype):
        return "bool"
    if isinstance(dtype, pd.DatetimeTZDtype) or pd.api.types.is_datetime64_any_dtype(dtype):
        return "datetime"
    if pd.api.types.is_complex_dtype(dtype):
        raise ValueError(f"Complex data not supported (dtype {dtype}: no schema type fits).")
    if pd.api.types.is_timedelta64_dtype(dtype):
        return "time"
    if isinstance(dtype, (pd.PeriodDtype, pd.IntervalDtype)):
        raise ValueError(
            f"Columns of dtype {dtype} are not supported (no schema type fits); convert "
            "periods to datetimes (column.dt.to_timestamp()) or intervals to numbers.")
    if pd.api.types.is_numeric_dtype(dtype):
        return "numeric"
    return "text"


def kinds_from_dtypes(frame):
    """Schema entries that declare each column's kind from its dtype.

    Use it only when the dtypes are public: pandas infers them from the
    private values (``read_csv`` types a column of integers object when one
    record reads ``unknown``), so a fit never reads them on its own. The
    entries declare kinds only; bounds, categories and the ``integer`` and
    ``missing`` flags are still estimated privately (without the
    ``schema: kinds`` release that an undeclared column costs), or taken
    from the complete specs you merge in.

    Parameters
    ----------
    frame : DataFrame
        Only its column names and dtypes are read.

    Returns
    -------
    schema : dict
        ``column -> {"type": ...}`` for every column whose dtype declares a
        kind (numeric, datetime with its timezone, time, bool, categorical);
        object and string columns are left out (their kind stays private).

    Examples
    --------
    >>> import pandas as pd
    >>> from skdpgen.schema import kinds_from_dtypes
    >>> X = pd.DataFrame({"age": [30, 41], "member": [True, False], "city": ["A", "B"]})
    >>> kinds_from_dtypes(X)
    {'age': {'type': 'numeric'}, 'member': {'type': 'bool'}}
    """
    out = {}
    for col in frame.columns:
        dtype = frame[col].dtype
        spec = kind_of(column_kind(dtype)).spec_from_dtype(dtype)  # None: left out
        if spec is not None:
            out[col] = spec
    return out
