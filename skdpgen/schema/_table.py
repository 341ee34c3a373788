"""The table encoder: validated column specs, encoding and decoding (see :mod:`skdpgen.schema`)."""


# Authors: the skdpgen developers
# License: BSD 3-Clause

import warnings
from datetime import tzinfo

import numpy as np
import pandas as pd

from .._dask import is_dask_collection, meta
from ..privacy import leak_ledger, record_leak
from ..utils import check_generator
from ._canonical import MISSING, canonical, canonical_keys, table_frame

__all__ = [
    "TableEncoder",
    "as_frame",
    "encodes_as_levels",
    "is_categorical_dtype",
    "numeric_schema",
    "output_dtype",
    "paired_frames",
]

# What a Dask DataFrame's categorical column declares when its categories are unknown.
_UNKNOWN = "__UNKNOWN_CATEGORIES__"


def numeric_schema(columns, bounds, *, integer=False):
    """Schema giving the same public bounds to every column.

    Parameters
    ----------
    columns : int or list
        Number of columns (keys ``0 … n-1``) or a list of column names.
    bounds : tuple of (float, float)
        Public lower and upper bound.
    integer : bool, default=False
        Whether synthetic values are rounded to integers.

    Returns
    -------
    schema : dict

    Examples
    --------
    >>> from skdpgen.schema import numeric_schema
    >>> numeric_schema(2, (0, 16))
    {0: {'type': 'numeric', 'bounds': [0, 16], 'integer': False}, 1: {'type': 'numeric', 'bounds': [0, 16], 'integer': False}}
    """
    keys = range(columns) if isinstance(columns, int) else columns
    lo, hi = bounds
    return {k: {"type": "numeric", "bounds": [lo, hi], "integer": integer} for k in keys}


def is_categorical_dtype(dtype):
    """Whether a column of this dtype is treated as categorical.

    Categorical, bool and every non-numeric dtype (object, string, …) are.
    """
    return (
        isinstance(dtype, pd.CategoricalDtype)
        or pd.api.types.is_bool_dtype(dtype)
        or not pd.api.types.is_numeric_dtype(dtype)
    )


def as_frame(X, name="X"):
    """``X`` as a DataFrame (2-D arrays get integer column names)."""
    if isinstance(X, pd.DataFrame):
        return X
    arr = np.asarray(X)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-dimensional, got shape {arr.shape}.")
    frame = pd.DataFrame(arr)
    return frame.infer_objects() if arr.dtype == object else frame


def paired_frames(first, second, names=("X_real", "X_synthetic")):
    """Two tables as DataFrames, the second in the first's column order.

    DataFrames are matched by column name (the second may not lack any of
    the first's columns); otherwise the second takes the first's column
    names by position. ``names`` name the two inputs in error messages.
    """
    a, b = as_frame(first, names[0]), as_frame(second, names[1])
    if a.shape[1] != b.shape[1]:
        raise ValueError(
            f"{names[0]} has {a.shape[1]} columns but {names[1]} has {b.shape[1]}."
        )
    if isinstance(first, pd.DataFrame) and isinstance(second, pd.DataFrame):
        missing = [c for c in a.columns if c not in b.columns]
        if missing:
            raise ValueError(f"Columns {missing} of {names[0]} are missing from {names[1]}.")
        return a, b[list(a.columns)]
    return a, b.set_axis(a.columns, axis=1)


def _n_levels(lo, hi):
    """How many integers lie in ``[lo, hi]``."""
    return max(int(np.floor(hi)) - int(np.ceil(lo)) + 1, 0)


def _one_hot_rows(codes, width):
    """One row of ``width`` with a single 1 at each code."""
    block = np.zeros((len(codes), width))
    block[np.arange(len(codes)), codes] = 1.0
    return block


def encodes_as_levels(spec, max_levels):
    """Whether a resolved numeric spec is encoded as a one-hot block of its integers.

    ``"levels"`` in the spec decides; without it, integer columns whose
    bounds hold at most ``max_levels`` integers are (see
    :class:`TableEncoder`).

    Parameters
    ----------
    spec : dict
        A resolved column spec.
    max_levels : int
        The encoder's ``max_levels``.

    Returns
    -------
    levels : bool

    Examples
    --------
    >>> from skdpgen.schema import encodes_as_levels
    >>> spec = {"type": "numeric", "bounds": [1, 16], "integer": True}
    >>> encodes_as_levels(spec, 100), encodes_as_levels(spec, 0)
    (True, False)
    """
    if spec["type"] != "numeric" or not spec.get("integer", False):
        return False
    if "levels" in spec:
        return bool(spec["levels"])
    n = _n_levels(*spec["bounds"])
    return 1 <= n <= max_levels


_TYPES = ("numeric", "datetime", "categorical")
_VALUE_TYPES = ("numeric", "datetime")  # the columns of the numeric block
_NAT = np.iinfo(np.int64).min  # NaT as int64 nanoseconds


def _flag(key, spec, name):
    """A boolean flag of a spec (default False), checked."""
    value = spec.get(name, False)
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(
            f"Schema key {name!r} of column {key!r} must be true or false, got {value!r}."
        )
    return bool(value)


def _is_missing_scalar(value):
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):  # list-likes
        return False


def _check_timezone(key, tz):
    if tz is None:
        return None
    if not isinstance(tz, (str, tzinfo)):
        raise ValueError(
            f"Schema timezone of column {key!r} must be a timezone name or None, got {tz!r}."
        )
    try:
        pd.Timestamp("2000-01-01").tz_localize(tz)
    except Exception as exc:  # unknown names raise various errors
        raise ValueError(f"Schema timezone of column {key!r} is unknown: {tz!r}.") from exc
    return tz


def _timestamp_ns(ts):
    """Nanoseconds since the epoch (UTC for tz-aware, wall time for naive)."""
    return int(ts.value)


def _datetime_bounds(key, bounds, tz):
    """The datetime bounds of a spec as Timestamps in ``tz`` (naive without)."""
    if not isinstance(bounds, (list, tuple)) or len(bounds) != 2:
        raise ValueError(
            f"Schema bounds of column {key!r} must be a pair [lo, hi], got {bounds!r}."
        )
    out = []
    for b in bounds:
        try:
            ts = pd.Timestamp(b)
        except (ValueError, TypeError, OverflowError) as exc:
            raise ValueError(
                f"Schema bounds of datetime column {key!r} must be dates, got {b!r}."
            ) from exc
        if ts is pd.NaT or pd.isna(ts):
            raise ValueError(f"Schema bounds of datetime column {key!r} must be dates, got {b!r}.")
        try:
            if tz is not None:
                ts = ts.tz_localize(tz) if ts.tz is None else ts.tz_convert(tz)
            elif ts.tz is not None:  # a naive column: UTC wall times
                ts = ts.tz_convert("UTC").tz_localize(None)
            ts = ts.as_unit("ns")
            _timestamp_ns(ts)
        except Exception as exc:  # out of the ns range, nonexistent local times
            raise ValueError(
                f"Schema bounds of datetime column {key!r}: {b!r} is not a valid time "
                f"between 1677 and 2262 in timezone {tz!r} ({exc})."
            ) from exc
        out.append(ts)
    lo, hi = out
    if not lo < hi:
        raise ValueError(
            f"Schema bounds of datetime column {key!r} must have lo < hi, got [{lo}, {hi}]."
        )
    if _timestamp_ns(hi) - _timestamp_ns(lo) >= 2**63:
        raise ValueError(f"Schema bounds of datetime column {key!r} span more than 292 years.")
    return out


def _check_spec(key, spec):
    """The resolved (validated, normalized) spec of one column (the schema alone:
    never the input's dtype, which pandas infers from the private values)."""
    if not isinstance(spec, dict):
        raise ValueError(f"Schema column {key!r} must be a dict with a 'type', got {spec!r}.")
    kind = spec.get("type")
    if kind not in _TYPES:
        raise ValueError(f"Schema column {key!r} has unknown type {kind!r}.")
    missing = _flag(key, spec, "missing")
    if kind in _VALUE_TYPES and "bounds" not in spec:
        raise ValueError(f"Schema column {key!r} of type {kind!r} needs 'bounds'.")
    if kind == "numeric":
        bounds = spec["bounds"]
        try:
            lo, hi = (float(b) for b in bounds)
        except (TypeError, ValueError):
            raise ValueError(
                f"Schema bounds of column {key!r} must be two numbers [lo, hi], got {bounds!r}."
            ) from None
        with np.errstate(over="ignore"):
            span = hi - lo
        if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi and np.isfinite(span)):
            raise ValueError(
                f"Schema bounds of column {key!r} must be finite with lo < hi and a finite "
                f"width hi - lo, got [{lo}, {hi}]."
            )
        out = {"type": "numeric", "bounds": [lo, hi], "integer": _flag(key, spec, "integer")}
        for name in ("impute", "coerce"):  # "coerce": accepted; every column coerces now
            if _flag(key, spec, name):
                out[name] = True
        if "levels" in spec:
            out["levels"] = _flag(key, spec, "levels")
            if out["levels"] and not (out["integer"] and _n_levels(lo, hi) >= 1):
                raise ValueError(
                    f"Schema column {key!r} has \"levels\": true; that needs \"integer\": "
                    "true and bounds holding at least one integer."
                )
    elif kind == "datetime":
        tz = _check_timezone(key, spec.get("timezone"))
        out = {"type": "datetime", "bounds": _datetime_bounds(key, spec["bounds"], tz),
               "timezone": tz}
        resolution = spec.get("resolution")
        if resolution not in (None, "day"):
            raise ValueError(
                f"Schema 'resolution' of column {key!r} must be 'day' or absent, got "
                f"{resolution!r}."
            )
        if resolution is not None:
            out["resolution"] = resolution
        for name in ("impute", "coerce"):  # "coerce": accepted; every column coerces now
            if _flag(key, spec, name):
                out[name] = True
    else:
        if "categories" not in spec:
            raise ValueError(f"Schema column {key!r} of type 'categorical' needs 'categories'.")
        cats = list(spec["categories"])
        if any(_is_missing_scalar(c) for c in cats):
            raise ValueError(
                f"Schema categories of column {key!r} may not hold NaN or None; declare "
                "\"missing\": true to allow missing values."
            )
        if len(cats) == 0 or len(set(canonical_keys(cats)[1])) != len(cats):
            raise ValueError(f"Schema categories of column {key!r} must be non-empty and distinct.")
        if any(_is_missing_scalar(c) for c in cats):
            raise ValueError(
                f"Schema categories of column {key!r} may not hold NaN or None; declare "
                "\"missing\": true to allow missing values."
            )
        out = {"type": "categorical", "categories": cats}
        if "ordered" in spec:
            out["ordered"] = _flag(key, spec, "ordered")
        other = spec.get("other")
        if other is not None:
            if canonical_keys([other])[1][0] not in canonical_keys(cats)[1]:
                raise ValueError(
                    f"Schema 'other' of column {key!r} must be one of its categories, "
                    f"got {other!r}."
                )
            out["other"] = other
    if missing:
        out["missing"] = True
    return out


def _all_numbers(categories):
    """Whether every category is a number (bools included)."""
    return all(isinstance(c, (int, float, np.integer, np.floating, bool, np.bool_))
               for c in categories)


def _is_bool_categories(categories):
    return all(isinstance(c, (bool, np.bool_)) for c in categories)


def output_dtype(spec):
    """The public dtype of a column in decoded (synthetic) tables.

    A function of the column's spec alone, never of the private rows:

    ======================================  =================================
    spec                                    dtype
    ======================================  =================================
    numeric                                 float64 (NaN when missing)
    numeric, ``"integer": true``            int64; ``Int64`` with ``"missing"``
    datetime                                ``datetime64[ns]``, or
                                            ``datetime64[ns, tz]`` with a
                                            timezone (NaT when missing)
    categorical ``[False, True]``           bool; ``boolean`` with ``"missing"``
    other categorical                       :class:`pandas.CategoricalDtype`
                                            of the categories (ordered when
                                            ``"ordered": true``; NaN when
                                            missing)
    ======================================  =================================

    Parameters
    ----------
    spec : dict
        A resolved column spec.

    Returns
    -------
    dtype : numpy.dtype or pandas extension dtype

    Examples
    --------
    >>> from skdpgen.schema import output_dtype
    >>> output_dtype({"type": "numeric", "bounds": [0, 9], "integer": True})
    dtype('int64')
    >>> output_dtype({"type": "numeric", "bounds": [0, 9], "integer": True, "missing": True})
    Int64Dtype()
    >>> output_dtype({"type": "categorical", "categories": ["a", "b"]}).categories.tolist()
    ['a', 'b']
    >>> output_dtype({"type": "categorical", "categories": [False, True]})
    dtype('bool')
    >>> output_dtype({"type": "datetime", "bounds": ["2020-01-01", "2021-01-01"]})
    dtype('<M8[ns]')
    """
    missing = bool(spec.get("missing", False))
    if spec["type"] == "numeric":
        if spec.get("integer", False):
            return pd.Int64Dtype() if missing else np.dtype(np.int64)
        return np.dtype(np.float64)
    if spec["type"] == "datetime":
        tz = spec.get("timezone")
        return np.dtype("datetime64[ns]") if tz is None else pd.DatetimeTZDtype("ns", tz)
    if _is_bool_categories(spec["categories"]):
        return pd.BooleanDtype() if missing else np.dtype(bool)
    return pd.CategoricalDtype(spec["categories"], ordered=spec.get("ordered", False))


def _datetime_ns(key, col, spec):
    """int64 nanoseconds of a datetime column clipped to its bounds, and its missing mask.

    Every value is read through its canonical form: dates (of any type or
    spelling) on the column's clock, anything else missing (see
    :mod:`skdpgen.schema._canonical`).
    """
    ns = canonical(col).datetimes(spec["timezone"])
    missing = ns == _NAT
    lo, hi = (_timestamp_ns(b) for b in spec["bounds"])
    return np.clip(np.where(missing, lo, ns), lo, hi), missing, lo, hi


class TableEncoder:
    """Encode a table with a public schema; decode synthetic rows back.

    Parameters
    ----------
    schema : dict, default=None
        Public column descriptions (see the module docstring).
    bounds : tuple of (float, float), default=None
        Public bounds for every numeric column the schema leaves out.
    max_levels : int, default=0
        Integer columns (``"integer": true``) whose public bounds hold at
        most this many integers are encoded as one-hot blocks over those
        integers ("levels") instead of one scaled number, unless their spec
        says otherwise (``"levels"``). 0: only columns whose spec asks.
    bins : int, default=0
        When positive, every numeric or datetime column not encoded as
        levels is encoded as a one-hot block over ``bins`` equal-width bins
        of its public bounds ("binned"), instead of one scaled number, and
        decoded uniformly inside its bin (:meth:`decode`): a delta kernel
        on the bins, so that a sum kernel matches each column's histogram on
        that grid and a product kernel the joint histograms. The grid is a
        function of the bounds and ``bins`` only. 0: no column is binned.

    Attributes
    ----------
    columns_ : list
        Column keys in input order.
    specs_ : list of dict
        The resolved spec of each column.
    dtypes_ : list
        The public output dtype of each column (see :func:`output_dtype`).
    leaks_ : list of PrivacyLeak
        What was read from the data (empty with a full public schema).
    is_frame_ : bool
        Whether the input was a DataFrame (output is then a DataFrame).
    n_numeric_ : int
        Width of the numeric block: the numeric and datetime columns not
        encoded as levels or bins.
    numeric_columns_ : list
        The keys of the numeric block's columns, in order.
    level_columns_ : list
        The integer columns encoded as one-hot blocks of their integers
        (:func:`encodes_as_levels`), in column order.
    binned_columns_ : list
        The numeric and datetime columns encoded as one-hot blocks of
        ``bins`` bins (empty when ``bins`` is 0), in column order.
    category_sizes_ : list of int
        Size of each one-hot block, in encoding order: the blocks of the
        categorical, level and binned columns, in column order, then the
        2-way missing indicators.
    block_columns_ : list
        The column key of each one-hot block (same order).
    indicator_columns_ : list
        The numeric and datetime columns with ``"missing": true``, in column
        order; their ``[present, missing]`` blocks are the last
        ``len(indicator_columns_)`` entries of ``category_sizes_``.
    n_encoded_ : int
        Width of the encoding.

    Notes
    -----
    **Layout.** ``transform`` returns one numeric block followed by one-hot
    blocks, so that generators and kernels see a numeric block and
    ``category_sizes_``:

    ====================================  ========================================
    block                                 content
    ====================================  ========================================
    numeric block, ``n_numeric_`` wide    each numeric or datetime column, in
                                          column order, clipped to its bounds and
                                          mapped to ``2 (v − lo)/(hi − lo) − 1``;
                                          0 (the centre) where missing
    one block per categorical column,     one-hot over the categories, in the
    level column or binned column, in     schema's order (a level column's
    column order                          integers ``ceil(lo) … floor(hi)``,
                                          values rounded and clipped to them;
                                          a binned column's ``bins`` bins of
                                          ``[lo, hi]``, values clipped to it),
                                          then one slot for a missing value
                                          with ``"missing": true``
    missing indicators                    one ``[present, missing]`` block (2 wide)
                                          per numeric or datetime column of the
                                          numeric block with ``"missing":
                                          true``, in column order
    ====================================  ========================================

    Datetimes are encoded as nanoseconds since the epoch (UTC for tz-aware
    columns; naive columns and bounds on the same wall clock). ``decode``
    takes the numeric block and one code array per one-hot block in this
    order.

    **What is public.** What the schema (or ``bounds``) declares. For a
    column the schema leaves out, its type comes from its dtype (numeric
    dtypes are numeric; datetime dtypes are datetime; object, string, bool
    and categorical dtypes are categorical), and:

    * numeric: with ``bounds`` given, those bounds (no leak); otherwise the
      exact minimum and maximum of the rows, recorded as a leak;
    * datetime: the exact first and last time of the rows, recorded as a
      leak (the timezone of a tz-aware dtype is not a leak);
    * bool: the categories ``[False, True]``, which the dtype fixes (no leak);
    * pandas ``Categorical``: the categories of the dtype, recorded as a
      leak, since ``astype("category")``, ``pd.Categorical(values)`` and
      ``read_csv(dtype="category")`` collect them from the rows (a rare
      category reveals that a record holds it);
    * any other dtype: the distinct values of the rows, recorded as a leak.

    Integer output needs ``"integer": true`` in the schema: an integer
    dtype is not enough, since pandas infers it from the values (one
    fractional value in a neighbouring table gives float64). Likewise a
    missing value is allowed only where the schema says ``"missing": true``,
    and the output dtype (``Int64``, ``boolean``) follows that declaration,
    never whether a missing value occurs.

    **Bounds.** Numeric values are clipped to the bounds and mapped to
    ``2 (v − lo)/(hi − lo) − 1``, finite for every finite value as long as
    ``hi − lo`` is finite, which the schema check requires.
    """

    def __init__(self, schema=None, bounds=None, max_levels=0, bins=0):
        self.schema = schema
        self.bounds = bounds
        self.max_levels = max_levels
        self.bins = bins

    # -- fitting -----------------------------------------------------------
    def fit(self, X):
        """Resolve every column's spec; record what comes from the data."""
        with leak_ledger() as leaks:
            self._fit(X)
        self.leaks_ = leaks
        return self

    def _fit(self, X):
        for name in ("max_levels", "bins"):
            value = getattr(self, name)
            if (isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer))
                    or value < 0):
                raise ValueError(f"{name} must be an integer >= 0, got {value!r}.")
        schema = dict(self.schema or {})
        dask_frame = is_dask_collection(X) and hasattr(X, "columns")
        self.is_frame_ = isinstance(X, pd.DataFrame) or dask_frame
        if dask_frame:  # column names only; rows are read only for a leak
            frame = X
            columns = list(X.columns)
        elif is_dask_collection(X):  # a Dask array
            if X.ndim != 2:
                raise ValueError(f"Expected a 2-D array, got {X.ndim}-D.")
            columns = list(range(X.shape[1]))
            frame = {j: X[:, j] for j in columns}
        else:
            frame = table_frame(X)
            if len(frame) < 2:
                raise ValueError(
                    f"Found {len(frame)} sample(s) while a minimum of 2 is required."
                )
            columns = list(frame.columns)
        if not columns:
            raise ValueError("X has no columns.")
        unknown = set(schema) - set(columns)
        if unknown:
            raise ValueError(f"The schema names columns that X lacks: {sorted(map(str, unknown))}.")
        self.columns_ = columns
        self.specs_ = []
        for key in columns:
            if key in schema:
                spec = _check_spec(key, schema[key])
            else:
                spec = self._spec_from_data(key, frame[key])
            self.specs_.append(spec)
        self.dtypes_ = [output_dtype(spec) for spec in self.specs_]
        pairs = list(zip(columns, self.specs_))
        self.level_columns_ = [k for k, s in pairs if encodes_as_levels(s, self.max_levels)]
        levels = set(self.level_columns_)
        self.binned_columns_ = [k for k, s in pairs if self.bins and s["type"] in _VALUE_TYPES
                                and k not in levels]
        binned = set(self.binned_columns_)
        value = [(k, s) for k, s in pairs
                 if s["type"] in _VALUE_TYPES and k not in levels and k not in binned]
        self.numeric_columns_ = [k for k, _ in value]
        self.n_numeric_ = len(self.numeric_columns_)
        blocks = [(k, s) for k, s in pairs
                  if s["type"] == "categorical" or k in levels or k in binned]

        def width(k, s):
            if k in levels:
                return _n_levels(*s["bounds"])
            return self.bins if k in binned else len(s["categories"])

        self.indicator_columns_ = [k for k, s in value if s.get("missing")]
        self.block_columns_ = [k for k, _ in blocks] + self.indicator_columns_
        self.category_sizes_ = (
            [width(k, s) + int(bool(s.get("missing"))) for k, s in blocks]
            + [2] * len(self.indicator_columns_)
        )

    def _spec_from_data(self, key, column):
        """The spec of a column the schema leaves out, read from the rows (a leak).

        Its kind is decided from the exact counts of its values' canonical
        forms by the rule of the private estimate
        (:func:`skdpgen.schema._ranges.kind_from_forms`), never from its
        dtype; with ``bounds`` given, it is numeric with those bounds. Each
        value read from the rows is recorded as a leak.
        """
        from ._ranges import kind_from_forms  # the private estimate's rule, exactly

        if self.bounds is not None:
            lo, hi = self.bounds
            return _check_spec(key, {"type": "numeric", "bounds": [lo, hi]})
        if is_dask_collection(column):  # a Dask column read only on this (leaking) path
            column = column.compute()
        canon = canonical(column)
        kind = kind_from_forms(canon.counts(), 0.0)
        missing = bool(np.any(canon.form == MISSING))
        if kind == "datetime":
            ns = canon.datetimes(None)
            ns = ns[ns != _NAT]
            lo, hi = pd.Timestamp(int(ns.min())), pd.Timestamp(int(ns.max()))
            if lo == hi:
                lo, hi = lo - pd.Timedelta(seconds=1), hi + pd.Timedelta(seconds=1)
            record_leak(
                "bounds",
                f"The bounds of datetime column {key!r} were read from the private data "
                f"(its exact first and last time) and are released with the model without "
                "privacy. Pass public bounds in the schema to avoid this.",
                column=key,
            )
            return _check_spec(key, {"type": "datetime", "bounds": [lo, hi], "missing": missing})
        if kind == "numeric":
            values = canon.numbers()
            finite = values[np.isfinite(values)]
            lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
            if lo == hi:
                lo, hi = lo - 0.5, hi + 0.5
            record_leak(
                "bounds",
                f"The bounds of numeric column {key!r} were read from the private data "
                f"(its exact minimum and maximum) and are released with the model without "
                "privacy. Pass public bounds in the schema, or bounds=(lo, hi), to avoid this.",
                column=key,
            )
            return _check_spec(key, {"type": "numeric", "bounds": [lo, hi], "missing": missing})
        if kind == "bool":
            cats = [False, True]
        else:
            from ._canonical import key_order

            tags = {t for t in canon.tags() if t is not None}
            cats = [t[1] for t in sorted(tags, key=lambda t: key_order(t[1]))] or ["other"]
            if any(isinstance(c, bool) for c in cats) and len(cats) > len(set(cats)):
                cats = [str(c) if isinstance(c, bool) else c for c in cats]
        record_leak(
            "categories",
            f"The categories of column {key!r} were read from the private data "
            f"({len(cats)} values) and are released with the model without privacy. "
            "Declare them in the schema to avoid this.",
            column=key,
        )
        return {"type": "categorical", "categories": cats, **({"missing": True} if missing
                                                              else {})}

    # -- encoding ----------------------------------------------------------
    def _frame(self, X):
        if self.is_frame_:
            if not isinstance(X, pd.DataFrame):
                raise ValueError("The model was fitted on a DataFrame; pass a DataFrame.")
            missing = [c for c in self.columns_ if c not in X.columns]
            if missing:
                raise ValueError(f"X is missing columns {missing}.")
            extra = [c for c in X.columns if c not in self.columns_]
            if extra:
                raise ValueError(f"X has unexpected columns {extra}.")
            return X[self.columns_]
        frame = table_frame(X)
        if frame.shape[1] != len(self.columns_):
            raise ValueError(
                f"X has {frame.shape[1]} features, but the model expects "
                f"{len(self.columns_)} features."
            )
        return frame

    def transform(self, X):
        """Encode ``X``: numeric block on [-1, 1], one-hot blocks, missing indicators.

        Every value of every row is encoded, whatever its form (see
        :mod:`skdpgen.schema._canonical`), so that no record can make the
        encoding fail: numbers outside the bounds (±inf included) are
        clipped to them; in a numeric or datetime column, a value that is
        not a number (date) is missing; a missing value where the spec does
        not declare ``"missing": true`` is imputed (the centre of the
        bounds, as ``"impute"`` says); in a categorical column, a value
        outside the categories, or a missing value without the flag, is
        encoded as the ``"other"`` category, or the first category when the
        spec names none. Errors are only for the table's shape: missing or
        unexpected columns. :func:`skdpgen.schema.check_table` counts, for
        the data holder, what was clipped, imputed or mapped.
        """
        frame = self._frame(X)
        n = len(frame)
        levels = set(self.level_columns_)
        binned = set(getattr(self, "binned_columns_", ()))
        num = np.empty((n, self.n_numeric_))
        onehots, indicators = [], []
        j = 0
        for key, spec in zip(self.columns_, self.specs_):
            col = frame[key]
            allow_missing = spec.get("missing", False)
            if spec["type"] == "numeric":
                values = canonical(col).numbers()
                missing = np.isnan(values)
                lo, hi = spec["bounds"]
                if key in levels:
                    onehots.append(self._level_block(spec, values, missing))
                    continue
                # (v − lo)/(hi − lo) ≤ 1 first: finite for any finite hi − lo
                z = (np.clip(np.where(missing, lo, values), lo, hi) - lo) / (hi - lo) * 2.0 - 1.0
                if key in binned:
                    onehots.append(self._bin_block(spec, z, missing))
                    continue
            elif spec["type"] == "datetime":
                values, missing, lo, hi = _datetime_ns(key, col, spec)
                z = (values - lo).astype(np.float64) / float(hi - lo) * 2.0 - 1.0
                if key in binned:
                    onehots.append(self._bin_block(spec, z, missing))
                    continue
            else:
                onehots.append(self._one_hot(spec, col, n))
                continue
            z[missing] = 0.0  # the centre of the public range ("impute", or the indicator)
            if allow_missing:
                block = np.zeros((n, 2))
                block[:, 0], block[:, 1] = ~missing, missing
                indicators.append(block)
            num[:, j] = z
            j += 1
        return np.hstack([num] + onehots + indicators)

    @staticmethod
    def _level_block(spec, values, missing):
        """One-hot block of an integer column over its levels (missing: last slot)."""
        lo, hi = spec["bounds"]
        first, size = int(np.ceil(lo)), _n_levels(lo, hi)
        codes = np.clip(np.round(np.where(missing, first, values)) - first, 0, size - 1)
        codes = codes.astype(np.intp)
        if spec.get("missing", False):
            codes[missing] = size
        else:  # "impute": the middle level, as the scaled encoding takes the centre
            codes[missing] = (size - 1) // 2
        return _one_hot_rows(codes, size + int(bool(spec.get("missing", False))))

    def _bin_block(self, spec, z, missing):
        """One-hot block of a binned column from its values on [-1, 1] (missing: last slot)."""
        codes = np.clip(np.floor((z + 1.0) / 2.0 * self.bins), 0, self.bins - 1)
        codes = np.where(missing, self.bins // 2, codes).astype(np.intp)  # "impute": the centre
        if spec.get("missing", False):
            codes[missing] = self.bins
        return _one_hot_rows(codes, self.bins + int(bool(spec.get("missing", False))))

    @staticmethod
    def _one_hot(spec, col, n):
        """One-hot block of a categorical column; values compared by canonical key."""
        cats = spec["categories"]
        allow_missing = spec.get("missing", False)
        _, tags = canonical_keys(cats)
        lookup = {t: i for i, t in enumerate(tags)}
        fallback = tags.index(canonical_keys([spec["other"]])[1][0]) if "other" in spec else 0
        value_tags = canonical(col).tags()
        missing_slot = len(cats) if allow_missing else fallback
        codes = np.fromiter(
            (missing_slot if t is None else lookup.get(t, fallback) for t in value_tags),
            dtype=np.intp, count=n)
        return _one_hot_rows(codes, len(cats) + int(allow_missing))

    @property
    def n_encoded_(self):
        """Width of the encoding: numeric block plus one-hot blocks."""
        return self.n_numeric_ + int(sum(self.category_sizes_))

    def decode(self, numeric, categories, random_state=None):
        """Build a table from a numeric block on [-1, 1] and category codes.

        Parameters
        ----------
        numeric : ndarray of shape (n, n_numeric_)
        categories : list of ndarray of int
            One code array per one-hot block (``category_sizes_``), in the
            encoding's order: the categorical columns' codes (the last code
            of a block with a missing slot is a missing value), then the
            missing indicators (1: missing).
        random_state : int, RandomState instance, Generator or None, default=None
            Draws the value of a binned column uniformly inside its bin
            (``binned_columns_``); None puts it at the bin's centre. Not
            used (nothing is drawn) when no column is binned.

        Returns
        -------
        X : DataFrame or ndarray
            A DataFrame with the training columns and the public dtypes
            ``dtypes_`` (see :func:`output_dtype`), or a float64 array (NaN
            for missing values) when fitted on an array.
        """
        numeric = np.asarray(numeric, dtype=np.float64)
        n = numeric.shape[0]
        if numeric.ndim != 2 or numeric.shape[1] != self.n_numeric_:
            raise ValueError(
                f"numeric must have shape (n, {self.n_numeric_}), got {numeric.shape}."
            )
        if len(categories) != len(self.category_sizes_):
            raise ValueError(
                f"Expected {len(self.category_sizes_)} code arrays (one per one-hot block), "
                f"got {len(categories)}."
            )
        codes = [np.asarray(c, dtype=np.intp).reshape(-1) for c in categories]
        n_cat = len(self.category_sizes_) - len(self.indicator_columns_)
        indicator = dict(zip(self.indicator_columns_, codes[n_cat:]))
        out = {}
        levels = set(self.level_columns_)
        binned = set(getattr(self, "binned_columns_", ()))
        if binned and random_state is not None:
            offsets = check_generator(random_state).random((n, len(binned)))
        else:
            offsets = np.full((n, len(binned)), 0.5)
        j = k = b = 0
        for key, spec, dtype in zip(self.columns_, self.specs_, self.dtypes_):
            if key in binned:  # a bin code, then a uniform offset inside the bin
                code = codes[k]
                k += 1
                missing = (code >= self.bins) if spec.get("missing") else np.zeros(n, bool)
                unit = (np.clip(code, 0, self.bins - 1) + offsets[:, b]) / self.bins
                b += 1
            elif key in levels:
                lo, hi = spec["bounds"]
                size = _n_levels(lo, hi)
                code = codes[k]
                k += 1
                missing = (code >= size) if spec.get("missing") else np.zeros(n, dtype=bool)
                values = (np.ceil(lo) + np.clip(code, 0, size - 1)).astype(np.float64)
            elif spec["type"] in _VALUE_TYPES:
                missing = (indicator[key] == 1) if key in indicator else np.zeros(n, dtype=bool)
                unit = (np.clip(numeric[:, j], -1.0, 1.0) + 1.0) / 2.0  # in [0, 1]
                j += 1
            if spec["type"] in _VALUE_TYPES and key not in levels:  # from unit in [0, 1]
                if spec["type"] == "datetime":
                    out[key] = self._decode_datetime(spec, unit, missing)
                    continue
                lo, hi = spec["bounds"]
                values = np.clip(lo + unit * (hi - lo), lo, hi)
            if spec["type"] == "numeric":
                if spec["integer"]:
                    values = np.round(values)
                if not self.is_frame_ or not spec["integer"]:
                    values[missing] = np.nan
                    out[key] = values
                elif spec.get("missing"):
                    out[key] = pd.arrays.IntegerArray(values.astype(np.int64), missing)
                else:
                    out[key] = values.astype(np.int64)
            else:
                cats = spec["categories"]
                code = codes[k]
                k += 1
                # the missing slot, last in the block
                missing = (code == len(cats)) if spec.get("missing") else np.zeros(n, bool)
                code = np.where(missing, -1, code)
                if not self.is_frame_:
                    values = np.asarray(cats, dtype=object)[np.where(missing, 0, code)]
                    if _all_numbers(cats):  # an array's numeric column stays float
                        values = np.asarray(values, dtype=np.float64)
                        values[missing] = np.nan
                    else:
                        values[missing] = None
                    out[key] = values
                elif isinstance(dtype, pd.CategoricalDtype):
                    out[key] = pd.Categorical.from_codes(code, dtype=dtype)
                else:  # booleans
                    values = np.asarray(cats, dtype=bool)[np.where(missing, 0, code)]
                    out[key] = (pd.arrays.BooleanArray(values, missing)
                                if spec.get("missing") else values)
        if self.is_frame_:
            return pd.DataFrame(out, columns=self.columns_, index=pd.RangeIndex(n))
        if not out:
            return np.empty((n, 0))
        columns = [out[c] for c in self.columns_]
        if any(np.asarray(c).dtype == object for c in columns):
            return np.column_stack([np.asarray(c, dtype=object) for c in columns])
        return np.column_stack(columns)

    @staticmethod
    def _decode_datetime(spec, unit, missing):
        lo, hi = (_timestamp_ns(b) for b in spec["bounds"])
        width = hi - lo  # < 2**63
        offset = np.clip(np.round(unit * float(width)), 0.0, float(width))
        # float(width) may round up to 2**63: cast only what fits, then clip exactly
        fits = offset < 2.0**63
        offset = np.where(fits, offset, 0.0).astype(np.int64)
        offset[~fits] = width
        ns = lo + np.minimum(offset, width)
        if spec.get("resolution") == "day":  # whole days, as the data (wall time)
            day = 86_400 * 10**9
            ns = np.clip((ns + day // 2) // day * day, lo, hi)
        ns[missing] = _NAT
        values = ns.view("M8[ns]")
        if spec["timezone"] is None:
            return values
        return pd.DatetimeIndex(values).tz_localize("UTC").tz_convert(spec["timezone"]).array
