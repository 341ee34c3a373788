"""Canonical forms: what a value *is*, whatever form it takes in the input.

The private rows reach a fit in many forms: a CSV file read as text, a
DataFrame whose dtypes pandas inferred from the values, an object column
mixing ``3``, ``3.0``, ``"3"`` and ``True``, a NumPy array, a list. None of
these forms is public: pandas types a column int64 or object depending on
whether one record reads ``unknown``. So a fit never looks at a dtype or at
a value's Python type to decide anything; it looks at each value's
**canonical form**, a function of the value alone:

=========  ===========================================================
form       values
=========  ===========================================================
missing    None, NaN, NaT, ``pd.NA``, and the text pandas reads as
           missing (``""``, ``"NA"``, ``"NaN"``, ``"null"``, ``"None"``,
           ``"N/A"``, … after stripping spaces)
bool       True and False (Python or NumPy), the text ``"true"`` and
           ``"false"`` in any case
number     ints and floats of any type (±inf included), complex numbers
           whose imaginary part is zero, and text that Python's
           ``float`` parses (``"3"``, ``" 3.0"``, ``"1e3"``, ``"-inf"``);
           its value is the float (any other complex number is text)
date       datetimes (Python, NumPy, pandas; a date is its midnight) and
           text with a four-digit year that :class:`pandas.Timestamp`
           parses and that is not a number (``"2024-03-01"``,
           ``"1 Mar 2024 10:00"``, not ``"11th"`` or ``"3/4"``); its value
           is the wall time in nanoseconds, a time with a UTC offset
           converted to UTC, clamped to 1677-2262
time       times of day and durations (:mod:`skdpgen._clock`):
           text such as ``"11:38:36"``, ``"07:05"`` or ``"26:30:00"``,
           :class:`datetime.time` and timedelta values; its value is its
           length in nanoseconds, its key its text
text       everything else, as its text with surrounding spaces stripped
=========  ===========================================================

So ``3``, ``3.0``, ``np.int8(3)`` and ``"3"`` are one value, as are
``True`` and ``"TRUE"``, and ``Timestamp("2024-03-01")`` and
``"2024-03-01"``; the form of a column's first value, the column's dtype
and the row order decide nothing. A column holding only numbers (a float
array, an int64 column) takes a vectorized path with exactly the result of
the value-by-value one.

The **key** of a value is what a categorical column or a class list holds:
a number as an ``int`` when it is whole (below 2⁵³ in magnitude) and a
``float`` otherwise, a bool as a ``bool``, a date as ISO text (``"2024-03-01"``
at midnight, ``"2024-03-01T10:00:00"`` otherwise), text and a time as their
text (a time object or timedelta as it prints). Keys
sort in one total order (bools, then numbers, then text), which is the
order of estimated categories and classes.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import datetime as _dt
import math
import numbers
import re
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._clock import DAY_NS, HOUR_NS, parse_clock, time_value

__all__ = [
    "BOOL",
    "DATE",
    "FORMS",
    "MISSING",
    "NUMBER",
    "TEXT",
    "TIME",
    "Canonical",
    "canonical",
    "canonical_keys",
    "key_order",
    "sort_keys",
    "labels_series",
    "numbers_table",
    "table_frame",
]

#: Codes of the canonical forms (the cells of the private kind release).
NUMBER, BOOL, DATE, TEXT, MISSING, TIME = 0, 1, 2, 3, 4, 5
FORMS = ("number", "bool", "date", "text", "missing", "time")

_NAT = np.iinfo(np.int64).min
_NS_MIN, _NS_MAX = pd.Timestamp.min.value, pd.Timestamp.max.value

#: Text is a date only if it holds a year: four digits on their own (dateutil
#: reads "11th", "3/4" or "May 3" as dates of the current year, or of year 3).
_YEAR = re.compile(r"(?<!\d)\d{4}(?!\d)")

#: Text read as missing: pandas' default ``na_values`` (``read_csv``).
NA_TEXT = frozenset({
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND",
    "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
})
_BOOL_TEXT = {"true": True, "false": False}
_INT_LIMIT = 2.0**53


@dataclass(frozen=True)
class Canonical:
    """The canonical forms of a column's values (see the module docstring).

    Attributes
    ----------
    form : ndarray of int8 of shape (n,)
        ``NUMBER``, ``BOOL``, ``DATE``, ``TEXT``, ``MISSING`` or ``TIME``.
    number : ndarray of float64
        The value of numbers and bools (1.0 and 0.0); NaN elsewhere.
    date : ndarray of int64
        Wall time in nanoseconds of dates (UTC for times that had an
        offset), the length in nanoseconds of times; the minimum int64
        (NaT) elsewhere.
    aware : ndarray of bool
        Dates that carried a timezone or an offset (``date`` is then UTC).
    text : ndarray of object
        The stripped text of text values and times (their key); None elsewhere.
    """

    form: np.ndarray
    number: np.ndarray
    date: np.ndarray
    aware: np.ndarray
    text: np.ndarray

    def __len__(self):
        return self.form.size

    def counts(self):
        """How many values take each form, in the order of ``FORMS``."""
        return np.bincount(self.form, minlength=len(FORMS)).astype(np.float64)

    def numbers(self):
        """Numbers and bools as floats; NaN for every other value."""
        return self.number

    def datetimes(self, timezone=None):
        """Dates as int64 nanoseconds on the column's clock; NaT for other values.

        Without ``timezone``: wall times (a time with an offset on the UTC
        wall clock). With one: UTC instants, a time without an offset taken
        as wall time in ``timezone`` (NaT where that time does not exist or
        is ambiguous there), every date first clamped to a day inside the
        representable range (1677-2262), so that no date's offset can
        overflow it.
        """
        out = np.where(self.form == DATE, self.date, _NAT)
        if timezone is None:
            return out
        # a day inside the representable range, so that no offset (at most
        # 14 h, or a local mean time's minutes) moves a date out of it, either
        # way: a far-out date is clamped like any other, never an error
        dates = self.form == DATE
        out[dates] = np.clip(out[dates], _NS_MIN + DAY_NS, _NS_MAX - DAY_NS)
        naive = dates & ~self.aware
        if naive.any():
            local = pd.DatetimeIndex(out[naive].view("M8[ns]"))
            placed = local.tz_localize(timezone, ambiguous="NaT", nonexistent="NaT")
            out[naive] = placed.tz_convert("UTC").tz_localize(None).asi8
        return out

    def times(self):
        """Times as int64 nanoseconds (since midnight, or a duration); NaT for
        other values."""
        return np.where(self.form == TIME, self.date, _NAT)

    def keys(self):
        """The key of each value (None for missing values): see the module docstring."""
        out = np.full(len(self), None, dtype=object)
        num = self.form == NUMBER
        out[num] = [_number_key(v) for v in self.number[num].tolist()]
        boo = self.form == BOOL
        out[boo] = [bool(v) for v in self.number[boo].tolist()]
        dat = self.form == DATE
        out[dat] = [_date_key(v) for v in self.date[dat].tolist()]
        txt = (self.form == TEXT) | (self.form == TIME)
        out[txt] = self.text[txt]
        return out

    def tags(self):
        """``(rank, key)`` of each value: keys that compare equal only when they
        are the same value (``1`` and ``True`` are not); None for missing."""
        keys = self.keys()
        rank = np.choose(self.form, [1, 0, 2, 2, 3, 2])
        return [None if r == 3 else (int(r), k) for r, k in zip(rank.tolist(), keys.tolist())]


def _number_key(v):
    if math.isfinite(v) and v == math.floor(v) and abs(v) < _INT_LIMIT:
        return int(v)
    return float(v)


def _date_key(ns):
    text = str(np.datetime64(int(ns), "ns"))  # ISO, for every representable time
    if ns % DAY_NS == 0:
        return text[:text.index("T")]
    return text.rstrip("0").rstrip(".") if "." in text else text


def key_order(key):
    """The sort key of a key: bools, then numbers, then text.

    Examples
    --------
    >>> from skdpgen._canonical import key_order
    >>> sorted([10, "b", 2, True, "a", 2.5], key=key_order)
    [True, 2, 2.5, 10, 'a', 'b']
    """
    if isinstance(key, (bool, np.bool_)):
        return (0, float(bool(key)), "")
    if isinstance(key, numbers.Number):
        return (1, float(key), "")
    return (2, 0.0, str(key))


def sort_keys(keys):
    """Keys in their one total order (:func:`key_order`)."""
    return sorted(keys, key=key_order)


def _empty(n):
    return (np.full(n, MISSING, dtype=np.int8), np.full(n, np.nan),
            np.full(n, _NAT, dtype=np.int64), np.zeros(n, dtype=bool),
            np.full(n, None, dtype=object))


def _as_series(values):
    if isinstance(values, pd.Series):
        return values
    if isinstance(values, pd.Index):
        return pd.Series(values)
    if isinstance(values, np.ndarray) and values.ndim == 1:
        return pd.Series(values, copy=False)
    return pd.Series(np.asarray(list(values) if not isinstance(values, np.ndarray) else values,
                                dtype=object).reshape(-1))


def canonical(values):
    """The canonical forms of a column's values.

    Parameters
    ----------
    values : Series, 1-D array or sequence
        One column, in any form (any dtype, mixed Python types).

    Returns
    -------
    canonical : Canonical

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen._canonical import canonical
    >>> c = canonical([3, "3.0", " 3 ", True, "TRUE", None, "NA", "2024-03-01", "x"])
    >>> c.form.tolist()
    [0, 0, 0, 1, 1, 4, 4, 2, 3]
    >>> c.keys().tolist()
    [3, 3, 3, True, True, None, None, '2024-03-01', 'x']
    >>> canonical(np.array([1.0, np.nan, np.inf])).keys().tolist()
    [1, None, inf]
    """
    s = _as_series(values)
    dtype = s.dtype
    n = len(s)
    if isinstance(dtype, pd.CategoricalDtype):
        cats = canonical(pd.Series(dtype.categories.to_numpy(dtype=object), dtype=object))
        codes = s.cat.codes.to_numpy()
        out = _empty(n)
        present = codes >= 0
        for target, source in zip(out, (cats.form, cats.number, cats.date, cats.aware,
                                        cats.text)):
            target[present] = source[codes[present]]
        return Canonical(*out)
    if pd.api.types.is_bool_dtype(dtype):
        values = s.to_numpy(dtype=np.float64, na_value=np.nan)
        form, number, date, aware, text = _empty(n)
        present = ~np.isnan(values)
        form[present], number[present] = BOOL, values[present]
        return Canonical(form, number, date, aware, text)
    if (pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_complex_dtype(dtype)):
        values = s.to_numpy(dtype=np.float64, na_value=np.nan)
        form, number, date, aware, text = _empty(n)
        present = ~np.isnan(values)
        form[present], number[present] = NUMBER, values[present]
        return Canonical(form, number, date, aware, text)
    if isinstance(dtype, pd.DatetimeTZDtype) or pd.api.types.is_datetime64_dtype(dtype):
        try:
            idx = pd.DatetimeIndex(s)
            tz = idx.tz is not None
            if tz:
                idx = idx.tz_convert("UTC").tz_localize(None)
            ns = idx.as_unit("ns").asi8
        except (pd.errors.OutOfBoundsDatetime, OverflowError):
            return _canonical_objects(s.to_numpy(dtype=object))
        form, number, date, aware, text = _empty(n)
        present = ns != _NAT
        form[present], date[present], aware[present] = DATE, ns[present], tz
        return Canonical(form, number, date, aware, text)
    return _canonical_objects(s.to_numpy(dtype=object))


def _canonical_objects(arr):
    """The value-by-value path (object arrays)."""
    n = arr.size
    form, number, date, aware, text = _empty(n)
    seen = {}
    type_code = np.fromiter((seen.setdefault(type(v), len(seen)) for v in arr), dtype=np.intp,
                            count=n)
    strings = np.zeros(n, dtype=bool)
    as_text = np.full(n, None, dtype=object)
    for t, code in seen.items():
        idx = np.flatnonzero(type_code == code)
        sub = arr[idx]
        if issubclass(t, str):
            strings[idx] = True
            as_text[idx] = sub
        elif issubclass(t, (bool, np.bool_)):
            form[idx], number[idx] = BOOL, [float(bool(v)) for v in sub]
        elif issubclass(t, (_dt.time, _dt.timedelta, np.timedelta64)):
            _put_times(idx, sub, form, date, text)
        elif issubclass(t, (complex, np.complexfloating)):
            _put_complex(idx, sub, form, number, strings, as_text)
        elif issubclass(t, (numbers.Number, np.number)):
            try:
                vals = np.array([float(v) for v in sub], dtype=np.float64)
            except (TypeError, ValueError, OverflowError):  # exotic numbers: as text
                strings[idx] = True
                as_text[idx] = [str(v) for v in sub]
                continue
            ok = ~np.isnan(vals)
            form[idx[ok]], number[idx[ok]] = NUMBER, vals[ok]
        elif t is type(None) or t is type(pd.NA) or t is type(pd.NaT):
            continue
        elif issubclass(t, (_dt.date, np.datetime64)):
            for i, v in zip(idx.tolist(), sub.tolist() if t is np.datetime64 else sub):
                _put_date(i, v, form, date, aware, text)
        elif issubclass(t, bytes):
            strings[idx] = True
            as_text[idx] = [v.decode("utf-8", "replace") for v in sub]
        else:
            strings[idx] = True
            as_text[idx] = [str(v) for v in sub]
    if strings.any():
        _canonical_strings(np.flatnonzero(strings), as_text[strings], form, number, date, aware,
                           text)
    return Canonical(form, number, date, aware, text)


def _put_complex(idx, values, form, number, strings, as_text):
    """Complex values at positions ``idx``: a number when the imaginary part is
    zero (its real part; NaN is missing), missing when both parts are NaN,
    text otherwise. Each value decides only its own row: a column that holds
    one ``3+1j`` (typed ``complex128`` by pandas) reads its other values as
    the numbers they are."""
    z = np.asarray(values, dtype=np.complex128)
    real = (z.imag == 0) | (np.isnan(z.real) & np.isnan(z.imag))
    present = real & ~np.isnan(z.real)
    form[idx[present]], number[idx[present]] = NUMBER, z.real[present]
    other = idx[~real]
    strings[other] = True
    as_text[other] = [str(v) for v in z[~real].tolist()]


def _put_times(idx, values, form, date, text):
    """Time and timedelta values at positions ``idx``: times (NaT missing)."""
    for i, v in zip(idx.tolist(), values):
        ns = time_value(v)
        if ns is not None:
            form[i], date[i], text[i] = TIME, ns, str(v).strip()
        elif not pd.isna(v):  # out of range
            form[i], text[i] = TEXT, str(v).strip()


def _put_date(i, value, form, date, aware, text):
    """A datetime-like value at position ``i`` (missing if NaT; text if out of range)."""
    try:
        ts = pd.Timestamp(value)
    except (ValueError, TypeError, OverflowError):
        ts = None
    if ts is None or ts is pd.NaT:
        if ts is None:
            form[i], text[i] = TEXT, str(value).strip()
        return
    try:
        if ts.tz is not None:
            ts, aware[i] = ts.tz_convert("UTC").tz_localize(None), True
        try:
            date[i] = ts.as_unit("ns").value
        except (pd.errors.OutOfBoundsDatetime, OverflowError):
            # a date outside 1677-2262 is still a date: its nanoseconds clamp to
            # the representable range (any column's bounds lie inside it)
            date[i] = _NS_MIN if ts < pd.Timestamp(0) else _NS_MAX
        form[i] = DATE
    except (OverflowError, ValueError):
        aware[i] = False
        form[i], text[i] = TEXT, str(value).strip()


def _canonical_strings(idx, values, form, number, date, aware, text):
    """Text values at positions ``idx``: missing, bool, number, date or text."""
    stripped = pd.Series(values, dtype=object).str.strip()
    codes, uniques = pd.factorize(stripped, use_na_sentinel=False)
    u_form = np.full(len(uniques), TEXT, dtype=np.int8)
    u_number = np.full(len(uniques), np.nan)
    u_date = np.full(len(uniques), _NAT, dtype=np.int64)
    u_aware = np.zeros(len(uniques), dtype=bool)
    u_text = np.full(len(uniques), None, dtype=object)
    for j, u in enumerate(uniques.tolist()):
        if u in NA_TEXT:
            u_form[j] = MISSING
            continue
        low = u.lower()
        if low in _BOOL_TEXT:
            u_form[j], u_number[j] = BOOL, float(_BOOL_TEXT[low])
            continue
        try:
            v = float(u)
        except (ValueError, OverflowError):
            v = None
        if v is not None:
            if math.isnan(v):
                u_form[j] = MISSING
            else:
                u_form[j], u_number[j] = NUMBER, v
            continue
        ns = parse_clock(u)
        if ns is not None:
            u_form[j], u_date[j], u_text[j] = TIME, ns, u
            continue
        if _YEAR.search(u):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                _put_date(j, u, u_form, u_date, u_aware, u_text)
            if u_form[j] == DATE:
                continue
        u_form[j], u_text[j] = TEXT, u
    form[idx], number[idx] = u_form[codes], u_number[codes]
    date[idx], aware[idx], text[idx] = u_date[codes], u_aware[codes], u_text[codes]


def canonical_keys(values):
    """The keys of a public list (categories, classes) and their tags.

    Parameters
    ----------
    values : sequence

    Returns
    -------
    keys : list
        The key of each value (see the module docstring); None for a
        missing value.
    tags : list
        Their ``(rank, key)`` tags, for lookups that tell ``1`` from ``True``.

    Examples
    --------
    >>> from skdpgen._canonical import canonical_keys
    >>> canonical_keys(["1", 2.0, "x"])[0]
    [1, 2, 'x']
    """
    c = canonical(pd.Series(list(values), dtype=object))
    return c.keys().tolist(), c.tags()


def table_frame(X):
    """An in-memory table as a DataFrame whose values keep their form.

    A DataFrame is returned as it is; a 2-D array keeps its dtype (a float
    array its floats); a list of rows becomes an object array, so that each
    value keeps its Python type (NumPy would turn ``[1, "a"]`` into text).
    Only the shape is checked (2-D, not sparse): errors are for the table's
    form as a whole, never for a value. A complex array (NumPy types a table
    complex when one value is) is read value by value, like an object array.

    Parameters
    ----------
    X : DataFrame, 2-D array or list of rows

    Returns
    -------
    frame : DataFrame
        Integer column names for arrays and lists.
    """
    from scipy import sparse
    from sklearn.utils import check_array

    if isinstance(X, pd.DataFrame):
        return X
    if not (isinstance(X, np.ndarray) or sparse.issparse(X) or hasattr(X, "__array__")):
        try:
            X = np.asarray(X, dtype=object)
        except ValueError as exc:  # ragged lists
            raise ValueError(f"X must be a 2-D table of rows: {exc}") from None
    if isinstance(X, np.ndarray) and np.issubdtype(X.dtype, np.complexfloating):
        X = X.astype(object)
    arr = check_array(X, dtype=None, ensure_all_finite=False, ensure_min_samples=1)
    return pd.DataFrame(arr)


_FLOAT_MAX = np.finfo(np.float64).max


def numbers_table(X):
    """A table's cells as finite numbers, each read by its canonical form.

    How an estimator that takes numbers only (a mean embedding, the
    database release) reads a private table: a number or a bool is its
    value, ±inf is clamped to the largest float, and every other cell
    (missing, text, a date, an object of no known form) reads as 0, in its
    own row. So no record's value or form makes a fit fail or changes how
    another record is read.

    Parameters
    ----------
    X : DataFrame, 2-D array or list of rows

    Returns
    -------
    numbers : ndarray of shape (n_samples, n_features)
        float64 (float32 for a float32 array).

    Examples
    --------
    >>> from skdpgen._canonical import numbers_table
    >>> numbers_table([[1, "2.5"], [None, "x"], [float("inf"), True]]).tolist()
    [[1.0, 2.5], [0.0, 0.0], [1.7976931348623157e+308, 1.0]]
    """
    if isinstance(X, np.ndarray) and X.dtype in (np.float64, np.float32):
        return _float_numbers(X)
    frame = table_frame(X)
    out = np.empty(frame.shape, dtype=np.float64)
    for j in range(frame.shape[1]):
        out[:, j] = canonical(frame.iloc[:, j]).numbers()
    out[np.isnan(out)] = 0.0
    return np.clip(out, -_FLOAT_MAX, _FLOAT_MAX, out=out)


def _float_numbers(X):
    """:func:`numbers_table` of a float array: the same reading, vectorized.

    A float32 table stays float32, the rows are C-contiguous. The reading is
    always a new array, NaNs and infinities replaced in it by the same
    passes whatever the values: the memory and the work of the reading do
    not depend on whether any value is not finite (no record's value shows
    in a fit's peak memory, or makes it fail under a memory limit).
    """
    from sklearn.utils import check_array

    X = check_array(X, dtype=None, ensure_all_finite=False, ensure_min_samples=1)  # the shape
    big = np.finfo(X.dtype).max
    out = np.array(X, order="C", copy=True)
    return np.nan_to_num(out, copy=False, nan=0.0, posinf=big, neginf=-big)


def labels_series(y):
    """Labels as a pandas Series (any form), or None."""
    if y is None:
        return None
    if isinstance(y, pd.Series):
        return y.reset_index(drop=True)
    arr = np.asarray(y, dtype=object) if not isinstance(y, np.ndarray) else y
    return pd.Series(arr.reshape(-1))
