"""Public table schemas and the data-independent encoding of mixed-type tables.

A *schema* maps each column to its public description::

    {"age": {"type": "numeric", "bounds": [17, 90], "integer": True},
     "sex": {"type": "categorical", "categories": ["Female", "Male"]}}

(the JSON format of :func:`skdpgen.datasets.adult_schema` and of the command
line's ``--schema`` file). Column keys are DataFrame column names, or integer
positions for NumPy arrays.

A categorical column may say ``"ordered": true``. Encoding is a fixed
function of the schema: numeric columns are clipped to their bounds and
mapped linearly onto [-1, 1]; categorical columns become one-hot blocks.
Decoding is one too, dtypes included: numeric columns come back as float64
(int64, rounded, when ``"integer": true``), categorical ones as a pandas
``Categorical`` with the schema's categories (bool when the categories are
``False`` and ``True``). Nothing about either depends on the rows, except for
the columns the schema leaves out, whose bounds or categories are then read
from the data with a :class:`~skdpgen.privacy.PrivacyLeakWarning` and
recorded as leaks (:func:`skdpgen.privacy.record_leak`).
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import numpy as np
import pandas as pd
from sklearn.utils import check_array

from ._dask import is_dask_collection, meta
from .privacy import leak_ledger, record_leak

__all__ = [
    "TableEncoder",
    "as_frame",
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


def _check_spec(key, spec):
    kind = spec.get("type")
    if kind == "numeric":
        lo, hi = (float(b) for b in spec["bounds"])
        with np.errstate(over="ignore"):
            span = hi - lo
        if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi and np.isfinite(span)):
            raise ValueError(
                f"Schema bounds of column {key!r} must be finite with lo < hi and a finite "
                f"width hi - lo, got [{lo}, {hi}]."
            )
        return {"type": "numeric", "bounds": [lo, hi], "integer": bool(spec.get("integer", False))}
    if kind == "categorical":
        cats = list(spec["categories"])
        if len(cats) == 0 or len(set(cats)) != len(cats):
            raise ValueError(f"Schema categories of column {key!r} must be non-empty and distinct.")
        out = {"type": "categorical", "categories": cats}
        if "ordered" in spec:
            out["ordered"] = bool(spec["ordered"])
        return out
    raise ValueError(f"Schema column {key!r} has unknown type {kind!r}.")


def _is_bool_categories(categories):
    return all(isinstance(c, (bool, np.bool_)) for c in categories)


def output_dtype(spec):
    """The public dtype of a column in decoded (synthetic) tables.

    A function of the column's spec alone, never of the private rows:
    float64 for numeric columns, int64 for ``"integer": true``, bool for
    categorical columns whose categories are booleans, and otherwise a
    :class:`pandas.CategoricalDtype` with the spec's categories (ordered
    when the spec says ``"ordered": true``).

    Parameters
    ----------
    spec : dict
        A resolved column spec.

    Returns
    -------
    dtype : numpy.dtype or pandas.CategoricalDtype

    Examples
    --------
    >>> from skdpgen.schema import output_dtype
    >>> output_dtype({"type": "numeric", "bounds": [0, 9], "integer": True})
    dtype('int64')
    >>> output_dtype({"type": "categorical", "categories": ["a", "b"]}).categories.tolist()
    ['a', 'b']
    >>> output_dtype({"type": "categorical", "categories": [False, True]})
    dtype('bool')
    """
    if spec["type"] == "numeric":
        return np.dtype(np.int64) if spec["integer"] else np.dtype(np.float64)
    if _is_bool_categories(spec["categories"]):
        return np.dtype(bool)
    return pd.CategoricalDtype(spec["categories"], ordered=spec.get("ordered", False))


class TableEncoder:
    """Encode a table with a public schema; decode synthetic rows back.

    Parameters
    ----------
    schema : dict, default=None
        Public column descriptions (see the module docstring).
    bounds : tuple of (float, float), default=None
        Public bounds for every numeric column the schema leaves out.

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
        Number of numeric columns (the first block of the encoding).
    category_sizes_ : list of int
        Size of each one-hot block, in column order of the categorical
        columns.

    Notes
    -----
    **What is public.** What the schema (or ``bounds``) declares. For a
    column the schema leaves out, its type comes from its dtype (numeric
    dtypes are numeric; object, string, bool and categorical dtypes are
    categorical), and:

    * numeric: with ``bounds`` given, those bounds (no leak); otherwise the
      exact minimum and maximum of the rows, recorded as a leak;
    * bool: the categories ``[False, True]``, which the dtype fixes (no leak);
    * pandas ``Categorical``: the categories of the dtype, recorded as a
      leak, since ``astype("category")``, ``pd.Categorical(values)`` and
      ``read_csv(dtype="category")`` collect them from the rows (a rare
      category reveals that a record holds it);
    * any other dtype: the distinct values of the rows, recorded as a leak.

    Integer output needs ``"integer": true`` in the schema: an integer
    dtype is not enough, since pandas infers it from the values (one
    fractional value in a neighbouring table gives float64).

    **Bounds.** Numeric values are clipped to the bounds and mapped to
    ``2 (v − lo)/(hi − lo) − 1``, finite for every finite value as long as
    ``hi − lo`` is finite, which the schema check requires.
    """

    def __init__(self, schema=None, bounds=None):
        self.schema = schema
        self.bounds = bounds

    # -- fitting -----------------------------------------------------------
    def fit(self, X):
        """Resolve every column's spec; record what comes from the data."""
        with leak_ledger() as leaks:
            self._fit(X)
        self.leaks_ = leaks
        return self

    def _fit(self, X):
        schema = dict(self.schema or {})
        dask_frame = is_dask_collection(X) and hasattr(X, "columns")
        self.is_frame_ = isinstance(X, pd.DataFrame) or dask_frame
        if dask_frame:  # columns and dtypes only; rows are read only for a leak
            frame = X
            columns = list(X.columns)
            dtypes = [meta(X)[c].dtype for c in columns]
        elif is_dask_collection(X):  # a Dask array
            if X.ndim != 2:
                raise ValueError(f"Expected a 2-D array, got {X.ndim}-D.")
            columns = list(range(X.shape[1]))
            dtypes = [X.dtype] * X.shape[1]
            frame = {j: X[:, j] for j in columns}
        elif self.is_frame_:
            if len(X) < 2:
                raise ValueError(
                    f"Found a DataFrame with {len(X)} sample(s) while a minimum of 2 is required."
                )
            frame = X
            columns = list(X.columns)
            dtypes = [X[c].dtype for c in columns]
        else:
            arr = check_array(X, dtype="numeric", ensure_min_samples=2)
            frame = pd.DataFrame(arr)
            columns = list(range(arr.shape[1]))
            dtypes = [arr.dtype] * arr.shape[1]
        if not columns:
            raise ValueError("X has no columns.")
        unknown = set(schema) - set(columns)
        if unknown:
            raise ValueError(f"The schema names columns that X lacks: {sorted(map(str, unknown))}.")
        self.columns_ = columns
        self.specs_ = []
        for key, dtype in zip(columns, dtypes):
            if key in schema:
                spec = _check_spec(key, schema[key])
                if spec["type"] == "numeric" and is_categorical_dtype(dtype):
                    raise ValueError(f"Column {key!r} is declared numeric but has dtype {dtype}.")
                if (spec["type"] == "categorical" and "ordered" not in spec
                        and isinstance(dtype, pd.CategoricalDtype) and dtype.ordered):
                    spec["ordered"] = True  # the user declared the order on the dtype
            else:
                spec = self._spec_from_dtype_or_data(key, dtype, frame[key])
            self.specs_.append(spec)
        self.dtypes_ = [output_dtype(spec) for spec in self.specs_]
        numeric = [s for s in self.specs_ if s["type"] == "numeric"]
        self.n_numeric_ = len(numeric)
        self.category_sizes_ = [len(s["categories"]) for s in self.specs_ if s["type"] == "categorical"]

    def _spec_from_dtype_or_data(self, key, dtype, column):
        if is_dask_collection(column):  # a Dask column read only on this (leaking) path
            if isinstance(dtype, pd.CategoricalDtype) and _UNKNOWN in dtype.categories:
                dtype = np.dtype(object)
            if not isinstance(dtype, pd.CategoricalDtype) and (
                self.bounds is None or is_categorical_dtype(dtype)
            ):
                column = column.compute()
        if pd.api.types.is_bool_dtype(dtype):  # the dtype fixes the categories
            return {"type": "categorical", "categories": [False, True]}
        if isinstance(dtype, pd.CategoricalDtype):
            cats = list(dtype.categories)
            record_leak(
                "categories",
                f"The categories of column {key!r} were taken from its pandas Categorical "
                f"dtype ({len(cats)} values), which astype('category'), pd.Categorical(values) "
                "and read_csv(dtype='category') collect from the private rows; they are "
                "released with the model without privacy. Declare them in the schema to "
                "avoid this.",
                column=key, stacklevel=5,
            )
            return {"type": "categorical", "categories": cats, "ordered": bool(dtype.ordered)}
        if is_categorical_dtype(dtype):
            values = column.dropna().unique().tolist()
            cats = sorted(values, key=str)
            record_leak(
                "categories",
                f"The categories of column {key!r} were read from the private data "
                f"({len(cats)} values) and are released with the model without privacy. "
                "Declare them in the schema to avoid this.",
                column=key, stacklevel=5,
            )
            return {"type": "categorical", "categories": cats}
        if self.bounds is not None:
            lo, hi = self.bounds
            return _check_spec(key, {"type": "numeric", "bounds": [lo, hi]})
        values = pd.to_numeric(column, errors="coerce").to_numpy(dtype=float)
        finite = values[np.isfinite(values)]
        lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        record_leak(
            "bounds",
            f"The bounds of numeric column {key!r} were read from the private data "
            f"(its exact minimum and maximum) and are released with the model without "
            "privacy. Pass public bounds in the schema, or bounds=(lo, hi), to avoid this.",
            column=key, stacklevel=5,
        )
        return _check_spec(key, {"type": "numeric", "bounds": [lo, hi]})

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
        arr = check_array(X, dtype="numeric")
        if arr.shape[1] != len(self.columns_):
            raise ValueError(
                f"X has {arr.shape[-1] if arr.ndim else 0} features, but the model "
                f"expects {len(self.columns_)} features."
            )
        return pd.DataFrame(arr)

    def transform(self, X):
        """Encode ``X``: numeric block on [-1, 1], then one-hot blocks.

        Raises ``ValueError`` on NaN or inf, on values outside a categorical
        column's categories, and on missing or unexpected columns.
        """
        frame = self._frame(X)
        n = len(frame)
        num = np.empty((n, self.n_numeric_))
        onehots = []
        j = 0
        for key, spec in zip(self.columns_, self.specs_):
            col = frame[key]
            if spec["type"] == "numeric":
                try:
                    values = col.to_numpy(dtype=np.float64)
                except (TypeError, ValueError):
                    raise ValueError(f"Column {key!r} must be numeric.") from None
                if not np.all(np.isfinite(values)):
                    raise ValueError(f"Column {key!r} contains NaN or infinity.")
                lo, hi = spec["bounds"]
                # (v − lo)/(hi − lo) ≤ 1 first: finite for any finite hi − lo
                num[:, j] = (np.clip(values, lo, hi) - lo) / (hi - lo) * 2.0 - 1.0
                j += 1
            else:
                if col.isna().any():
                    raise ValueError(
                        f"Column {key!r} contains missing values; encode them as an "
                        "explicit public category."
                    )
                cats = spec["categories"]
                codes = pd.Index(cats, dtype=object).get_indexer(col.astype(object))
                if np.any(codes < 0):
                    bad = col[codes < 0].unique()[:5].tolist()
                    raise ValueError(f"Column {key!r} has categories not in the schema: {bad}.")
                block = np.zeros((n, len(cats)))
                block[np.arange(n), codes] = 1.0
                onehots.append(block)
        return np.hstack([num] + onehots)

    @property
    def n_encoded_(self):
        """Width of the encoding: numeric block plus one-hot blocks."""
        return self.n_numeric_ + int(sum(self.category_sizes_))

    def decode(self, numeric, categories):
        """Build a table from a numeric block on [-1, 1] and category codes.

        Parameters
        ----------
        numeric : ndarray of shape (n, n_numeric_)
        categories : list of ndarray of int
            One code array per categorical column.

        Returns
        -------
        X : DataFrame or ndarray
            A DataFrame with the training columns and the public dtypes
            ``dtypes_`` (see :func:`output_dtype`), or a float64 array when
            fitted on an array.
        """
        n = numeric.shape[0]
        out = {}
        j = k = 0
        for key, spec, dtype in zip(self.columns_, self.specs_, self.dtypes_):
            if spec["type"] == "numeric":
                lo, hi = spec["bounds"]
                unit = (np.clip(numeric[:, j], -1.0, 1.0) + 1.0) / 2.0  # in [0, 1]
                values = np.clip(lo + unit * (hi - lo), lo, hi)
                if spec["integer"]:
                    values = np.round(values)
                j += 1
                out[key] = values.astype(dtype) if self.is_frame_ else values
            else:
                cats = spec["categories"]
                codes = np.asarray(categories[k])
                k += 1
                if isinstance(dtype, pd.CategoricalDtype):
                    out[key] = pd.Categorical.from_codes(codes, dtype=dtype)
                else:
                    out[key] = np.asarray(cats, dtype=object)[codes].astype(dtype)
        if self.is_frame_:
            return pd.DataFrame(out, columns=self.columns_, index=pd.RangeIndex(n))
        if not out:
            return np.empty((n, 0))
        return np.column_stack([np.asarray(out[c], dtype=np.float64) for c in self.columns_])
