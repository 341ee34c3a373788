"""The table encoder: per-column codecs composed (see :mod:`skdpgen.schema`)."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import numpy as np
import pandas as pd

from ..privacy import leak_ledger
from ..rows import table_rows
from ..utils import check_generator
from .._canonical import table_frame
from .kinds import EmptyCodec, EstimateContext, fill_offsets, kind_of, schema_types

__all__ = [
    "TableEncoder",
    "as_frame",
    "check_spec",
    "encodes_as_levels",
    "is_categorical_dtype",
    "numeric_schema",
    "output_dtype",
    "paired_frames",
]


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
    return kind_of(spec).encodes_as_levels(spec, max_levels)


def check_spec(key, spec):
    """The resolved (validated, normalized) spec of one column.

    A function of the schema alone, never of the input's dtype (which pandas
    infers from the private values); each kind validates its own keys.

    Parameters
    ----------
    key : object
        The column (named in error messages).
    spec : dict
        Its spec in the schema.

    Returns
    -------
    spec : dict
    """
    if not isinstance(spec, dict):
        raise ValueError(f"Schema column {key!r} must be a dict with a 'type', got {spec!r}.")
    kind = spec.get("type")
    if kind not in schema_types():
        raise ValueError(f"Schema column {key!r} has unknown type {kind!r}.")
    return kind_of(kind).resolve(key, spec)


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
    time                                    object: text ``HH:MM:SS`` or
                                            ``HH:MM`` (None when missing)
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
    return kind_of(spec).output_dtype(spec)


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
        function of the bounds and ``bins`` only. Besides its bins, a binned
        numeric column keeps a cell for each value of its spec's
        ``"points"`` and, when its bounds hold 0 and its spec does not say
        ``"zero": false``, one for its exact zeros (decoded as exactly 0;
        see :func:`~skdpgen.schema._points.zero_cell`). 0: no column is
        binned.

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

    **What is public.** What the schema (or ``bounds``) declares; never the
    input's dtypes or its values' Python types, which pandas infers from
    the private values. Every value is read through its canonical form
    (:mod:`skdpgen._canonical`: ``3``, ``"3"`` and ``3.0`` are one
    number), and every value of every row is encoded, so that no record can
    make the encoding fail (:meth:`transform`). For a column the schema
    leaves out, the encoder reads the spec from the rows, each value read
    recorded as a leak: with ``bounds`` given, a numeric column with those
    bounds (no leak); otherwise its kind from the exact counts of its
    values' canonical forms (by the rule of the private estimate) and then
    its exact bounds, or its categories (the distinct values), or its
    missing flag (a bool column). Private fits never use this path: they
    estimate what the schema leaves out with
    :class:`~skdpgen.private_schema.SchemaPlan`.

    Integer output needs ``"integer": true`` in the schema, and the output
    dtype (``Int64``, ``boolean``) follows the ``"missing"`` declaration,
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
        """Resolve every column's spec; record what comes from the data.

        ``X`` is a table in any form (a Dask one too), or the fit's
        :class:`~skdpgen.rows.TableRows`: its column names are
        read, its values only for the columns the schema leaves out (a leak).
        """
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
        table = table_rows(X)  # column names only; rows are read only for a leak
        self.is_frame_ = table.is_frame
        columns = table.columns
        if not (table.is_dask or table.is_blocks) and table.n_rows < 2:
            raise ValueError(f"Found {table.n_rows} sample(s) while a minimum of 2 is required.")
        if not columns:
            raise ValueError("X has no columns.")
        unknown = set(schema) - set(columns)
        if unknown:
            raise ValueError(f"The schema names columns that X lacks: {sorted(map(str, unknown))}.")
        self.columns_ = columns
        with table.caching(forms=False):  # one frame for the leaky reads
            self.specs_ = [check_spec(key, schema[key]) if key in schema
                           else self._spec_from_data(key, table) for key in columns]
        self.dtypes_ = [output_dtype(spec) for spec in self.specs_]
        self.codecs_ = [kind_of(spec).codec(key, spec, max_levels=self.max_levels,
                                            bins=self.bins)
                        for key, spec in zip(columns, self.specs_)]
        self.codecs_ = [EmptyCodec(c) if c.spec.get("empty") else c for c in self.codecs_]
        codecs = self.codecs_
        self.level_columns_ = [c.key for c in codecs if c.width and not c.binned
                               and kind_of(c.spec).is_numeric]
        self.binned_columns_ = [c.key for c in codecs if c.binned]
        self.numeric_columns_ = [c.key for c in codecs if c.numeric]
        self.n_numeric_ = len(self.numeric_columns_)
        self.indicator_columns_ = [c.key for c in codecs if c.indicator]
        blocks = [c for c in codecs if c.width]
        self.block_columns_ = [c.key for c in blocks] + self.indicator_columns_
        self.category_sizes_ = [c.width for c in blocks] + [2] * len(self.indicator_columns_)

    def cell_order(self):
        """Per one-hot block, each slot's place along the column's values, or None.

        An ordered block (integer levels, the bins of a numeric or date
        column) gives each slot its level or bin (a value of the spec's
        ``"points"``: the bin it lies in) and -1 to its slot of missing
        values or exact zeros; a categorical block or an indicator gives
        None. What coarser cells of an ordered column merge (the two-way
        marginals' groups, the calibration's cells). Public: a function of
        the schema and the encoding's options.

        Returns
        -------
        order : list
            One entry per block of ``category_sizes_``: an int array of the
            block's width, or None.
        """
        levels = set(self.level_columns_)
        out = []
        for codec in self.codecs_:
            if not codec.width:
                continue
            if codec.binned:
                out.append(codec.slot_bins)
            elif codec.key in levels:
                out.append(np.r_[np.arange(codec.size), [-1] * (codec.width - codec.size)]
                           .astype(np.intp))
            else:
                out.append(None)
        return out + [None] * len(self.indicator_columns_)

    def coarse_cells(self, cells):
        """Per one-hot block, its ordered slots merged into ``cells`` groups, or None.

        Consecutive places of :meth:`cell_order` go to ``cells`` groups of
        nearly equal numbers of places (a point with the bin it lies in); a
        slot of missing values or exact zeros stays a group of its own
        (``cells``). None for a categorical block, an indicator, and an
        ordered block of at most ``cells`` places or two slots.

        Parameters
        ----------
        cells : int

        Returns
        -------
        groups : list
            Per block of ``category_sizes_``, None or an int array of the
            block's width (each slot's group).
        """
        out = []
        for order in self.cell_order():
            places = 0 if order is None else int(order.max()) + 1
            if order is None or places <= cells or order.size == 2:
                out.append(None)
                continue
            grouped = (np.arange(places) * cells) // places
            out.append(np.where(order >= 0, grouped[np.maximum(order, 0)], cells)
                       .astype(np.intp))
        return out

    def _spec_from_data(self, key, table):
        """The spec of a column the schema leaves out, read from the rows (a leak).

        With ``bounds`` given it is numeric with those bounds (nothing read);
        otherwise its kind comes from the exact counts of its values'
        canonical forms by the rule of the private estimate, never from its
        dtype, and the kind reads its spec, recording each value read as a
        leak.
        """
        if self.bounds is not None:
            lo, hi = self.bounds
            return check_spec(key, {"type": "numeric", "bounds": [lo, hi]})
        canon = table.canonical(key)  # a Dask column is computed on this (leaking) path
        kind = kind_of("text").read(key, canon, None)
        return check_spec(key, kind.read(key, canon, EstimateContext()))

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
            return X if list(X.columns) == list(self.columns_) else X[self.columns_]
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
        :mod:`skdpgen._canonical`), so that no record can make the
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
        return self.transform_table(self._frame(X))

    def table(self, X):
        """``X`` as the table :meth:`transform_table` encodes: its columns
        checked and in the schema's order (errors only for the shape)."""
        return self._frame(X)

    def transform_table(self, frame):
        """Encode rows of :meth:`table` (any slice of them: the encoding is
        row-wise, so a table encoded chunk by chunk is the whole one encoded)."""
        n = len(frame)
        num = np.empty((n, self.n_numeric_))
        blocks, indicators = [], []
        j = 0
        for codec in self.codecs_:
            numeric, block, missing = codec.encode(frame[codec.key])
            if codec.numeric:
                num[:, j] = numeric
                j += 1
            if block is not None:
                blocks.append(block)
            if codec.indicator:
                indicator = np.zeros((n, 2))
                indicator[:, 0], indicator[:, 1] = ~missing, missing
                indicators.append(indicator)
        return np.hstack([num] + blocks + indicators)

    @property
    def n_encoded_(self):
        """Width of the encoding: numeric block plus one-hot blocks."""
        return self.n_numeric_ + int(sum(self.category_sizes_))

    def decode(self, numeric, categories, random_state=None, fills=None):
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
        fills : dict, default=None
            Per binned column, ``(lo, f_lo, hi, f_hi)``: its outermost
            occupied bins and the shares of them its values are drawn in
            (``skdpgen.schema.kinds.fill_offsets``); public.

        Returns
        -------
        X : DataFrame or ndarray
            A DataFrame with the training columns and the public dtypes
            ``dtypes_`` (see :func:`output_dtype`); when fitted on an array,
            a float64 array (NaN for missing values), or an object array
            when a column holds text or dates.
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
        n_blocks = len(self.category_sizes_) - len(self.indicator_columns_)
        block_codes = iter(codes[:n_blocks])
        indicator = dict(zip(self.indicator_columns_, codes[n_blocks:]))
        binned = [c for c in self.codecs_ if c.binned]
        if binned and random_state is not None:
            offsets = check_generator(random_state).random((n, len(binned)))
        else:
            offsets = np.full((n, len(binned)), 0.5)
        offset_of = {c.key: offsets[:, b] for b, c in enumerate(binned)}
        numeric_of = dict(zip(self.numeric_columns_, numeric.T))
        out = {}
        for codec in self.codecs_:
            key = codec.key
            missing = (indicator[key] == 1) if key in indicator else np.zeros(n, dtype=bool)
            code, offset = next(block_codes) if codec.width else None, offset_of.get(key)
            if fills and key in fills and offset is not None:
                offset = fill_offsets(code, offset, fills[key])
            out[key] = codec.decode(numeric_of.get(key), code, missing, offset, self.is_frame_)
        if self.is_frame_:
            return pd.DataFrame(out, columns=self.columns_, index=pd.RangeIndex(n))
        if not out:
            return np.empty((n, 0))
        columns = [out[c] for c in self.columns_]
        if any(np.asarray(c).dtype != np.float64 for c in columns):  # text, dates
            return np.column_stack([pd.Series(c).to_numpy(dtype=object) for c in columns])
        return np.column_stack(columns)
