"""The private schema estimate's plan: releases, sensitivities and budget shares.

This module is the only place where the schema estimate touches the rows
and states a sensitivity. It computes each release's exact statistic from
the rows' canonical forms (:mod:`skdpgen.schema._canonical`), summed per
chunk or per Dask partition, hands it to the
:class:`~skdpgen.privacy.GaussianAccountant` (which draws the noise), and
passes the noisy vector to the post-processing of
:mod:`skdpgen.schema._ranges`. The mechanisms are explained in
:mod:`skdpgen.private_schema`.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import copy
import math
from collections import Counter

import numpy as np
import pandas as pd

from .._dask import is_dask_collection, meta, partition_sums
from ..privacy import (
    GaussianAccountant,
    PrivacyReport,
    check_epsilon_delta,
    leak_ledger,
    record_leak,
)
from ._canonical import MISSING, canonical, canonical_keys, key_order, table_frame
from ._ranges import (
    _FIRST_YEAR,
    _N_YEARS,
    CLASS_SHARE,
    FINE_BINS,
    OTHER_STDS,
    _finish_bounds,
    _fine_positions,
    _flags,
    _integer_bins,
    _numeric_grid,
    _numeric_positions,
    _numeric_range,
    _occupied_range,
    _other_label,
    _refined_range,
    _warn_guess,
    _warn_other,
    _warn_outside,
    _year_label,
    flag_stds,
    kind_from_forms,
    year_positions,
)

__all__ = [
    "RELEASE_ORDER",
    "SELECTIONS",
    "SENSITIVITY",
    "SchemaPlan",
    "estimate_schema",
    "map_unlisted",
    "sensitivity_table",
]

#: Report names of the estimation releases.
KINDS = "schema: kinds"
VALUES = "schema: values"
NUMERIC = "schema: numeric"
NUMERIC_FLAGS = "schema: numeric flags"
DATETIME = "schema: datetime"
MISSING_COUNT = "schema: missing"
CATEGORIES = "schema: categories"
CLASSES = "schema: classes"
RELEASE_ORDER = (KINDS, VALUES, NUMERIC, NUMERIC_FLAGS, DATETIME, MISSING_COUNT, CATEGORIES,
                 CLASSES)
#: The releases that may be partition selections (each reserves its threshold's δ).
SELECTIONS = (VALUES, CATEGORIES, CLASSES)

#: Replace-one L2 sensitivity of each release as reported (see SchemaPlan.estimate).
SENSITIVITY = {
    KINDS: math.sqrt(2.0),
    VALUES: math.sqrt(2.0),  # every structure scaled to sqrt(2) (STRUCTURE_SENSITIVITY)
    NUMERIC: math.sqrt(5.0),
    NUMERIC_FLAGS: math.sqrt(2.0),
    DATETIME: math.sqrt(3.0),
    MISSING_COUNT: 1.0,
    CATEGORIES: math.sqrt(2.0),  # fixed by GaussianAccountant.select
    CLASSES: math.sqrt(2.0),
}
#: Sensitivity of each statistic a column's values release can take, by its kind.
STRUCTURE_SENSITIVITY = {
    "numeric": SENSITIVITY[NUMERIC],
    "datetime": SENSITIVITY[DATETIME],
    "bool": SENSITIVITY[MISSING_COUNT],
    "categorical": SENSITIVITY[CATEGORIES],
}
#: Budget weight of a column's kind release relative to its values release: the
#: kind tests need less precision than a histogram (a noise multiplier √2 larger).
KIND_WEIGHT = 0.5

#: What each release holds, for the generated sensitivity table (sensitivity_table).
_RELEASED = {
    KINDS: "counts of the values that are numbers, bools, dates, text and missing "
           "(canonical forms), per column whose kind is not declared",
    VALUES: "the statistic of the kind just estimated (below), scaled to sensitivity "
            "√2; a partition selection for a categorical column",
    NUMERIC: "histogram over the public numeric grid, the same over its fine grid, "
             "count of non-integer values, count of missing",
    NUMERIC_FLAGS: "count of non-integer values, count of missing (numeric columns with "
                   "public bounds)",
    DATETIME: "histogram over the public yearly grid, count of values not at midnight, "
              "count of missing",
    MISSING_COUNT: "count of missing (bool columns)",
    CATEGORIES: "counts of the values present and of missing (partition selection)",
    CLASSES: "counts of the labels present (partition selection)",
}


def sensitivity_table():
    """The release table of the schema estimate, from the plan's constants.

    Returns
    -------
    rows : list of tuple
        ``(report name, what is released, sensitivity as text)`` for each
        release, in report order; the documentation's table is generated
        from it, so it cannot drift from the code.

    Examples
    --------
    >>> from skdpgen.schema._plan import sensitivity_table
    >>> [(name, s) for name, _, s in sensitivity_table()][:3]
    [('schema: kinds', '√2'), ('schema: values', '√2'), ('schema: numeric', '√5')]
    """
    def text(x):
        square = round(x * x)
        return "1" if square == 1 else f"√{square}"

    return [(name, _RELEASED[name], text(SENSITIVITY[name])) for name in RELEASE_ORDER]


# ---------------------------------------------------------------------------
# the rows, in any form
# ---------------------------------------------------------------------------


_as_frame = table_frame


def _labels(y):
    """Labels as a pandas Series (any form), or None."""
    if y is None:
        return None
    if isinstance(y, pd.Series):
        return y.reset_index(drop=True)
    arr = np.asarray(y, dtype=object) if not isinstance(y, np.ndarray) else y
    return pd.Series(arr.reshape(-1))


def _declared_kind(spec):
    """The kind a partial spec declares, or None when the spec is complete."""
    kind = spec.get("type")
    if kind == "bool":
        return "bool"
    if kind in ("numeric", "datetime"):
        bounds = spec.get("bounds")
        if bounds is None or None in list(bounds):
            return kind
    if kind == "categorical" and not spec.get("categories"):
        return "categorical"
    return None


def map_unlisted(values, listed, other):
    """Map every value not in ``listed`` (missing ones included) to ``other``.

    What an estimated categorical column (its spec's ``"other"``) or
    estimated class list (:attr:`SchemaPlan.class_other_`) asks of the
    rows: rare values that did not survive the partition selection become
    the public other category. Values are compared by their canonical keys
    (:mod:`skdpgen.schema._canonical`: ``3``, ``3.0`` and ``"3"`` are one
    value), so the result is a function of each value and of public lists
    only, whatever form the values take. A Dask array or Series is mapped
    lazily, block by block.

    Parameters
    ----------
    values : array-like, Dask array or Dask Series of shape (n,)
    listed : sequence
        The public categories or classes.
    other : object
        Their other label (a member of ``listed``).

    Returns
    -------
    mapped : ndarray of shape (n,), or a Dask collection for Dask input
        The listed value (as listed) of each value, or ``other``.

    Examples
    --------
    >>> from skdpgen.private_schema import map_unlisted
    >>> map_unlisted(["a", "b", "zz", None, 2.0], ["a", "b", 2, "other"], "other").tolist()
    ['a', 'b', 'other', 'other', 2]
    """
    listed = list(listed)
    _, tags = canonical_keys(listed)
    lookup = {t: i for i, t in enumerate(tags)}
    fallback = listed.index(other)

    def mapped(block):
        index = [lookup.get(t, fallback) for t in canonical(_labels(block)).tags()]
        out = np.empty(len(index), dtype=object)
        out[:] = [listed[i] for i in index]
        if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in listed):
            return out.astype(np.int64)
        return out

    if is_dask_collection(values):
        if hasattr(values, "map_partitions"):
            return values.map_partitions(lambda p: pd.Series(mapped(p), index=p.index),
                                         meta=(values.name, object))
        return values.map_blocks(mapped, dtype=object)
    return mapped(values)


# ---------------------------------------------------------------------------
# exact statistics (the only functions that read rows)
# ---------------------------------------------------------------------------


def _canon(frame, key, cache):
    if cache is None:
        return canonical(frame[key])
    if key not in cache:
        cache[key] = canonical(frame[key])
    return cache[key]


def _wall_ns(canon, timezone):
    """Wall times (int64 ns) of a column's dates on its clock (NaT elsewhere)."""
    if timezone is None:
        return canon.datetimes(None)
    utc = canon.datetimes(timezone)
    idx = pd.DatetimeIndex(utc.view("M8[ns]")).tz_localize("UTC").tz_convert(timezone)
    return idx.tz_localize(None).asi8


def _numeric_statistic(x, histogram):
    """``[histogram, fine histogram, non-integer count, missing count]`` (or the
    two counts alone) of a column's numbers ``x`` (NaN: missing or not a number)."""
    na = np.isnan(x)
    present = x[~na]
    nonint = float(np.sum(~(np.isfinite(present) & (present == np.round(present)))))
    if not histogram:
        return np.array([nonint, na.sum()], dtype=np.float64)
    lower, _, _, _ = _numeric_grid()
    coarse = _numeric_positions(present)
    hist = np.bincount(coarse, minlength=lower.size)
    fine = np.bincount(_fine_positions(present, coarse), minlength=lower.size * FINE_BINS)
    return np.concatenate([hist, fine, [nonint, na.sum()]]).astype(np.float64)


def _datetime_statistic(wall):
    """``[yearly histogram, count not at midnight, missing count]`` of wall times."""
    nat = wall == np.iinfo(np.int64).min
    present = wall[~nat]
    day = 86_400 * 10**9
    not_midnight = float(np.sum(present % day != 0))
    hist = np.bincount(year_positions(present), minlength=_N_YEARS)
    return np.concatenate([hist, [not_midnight, nat.sum()]]).astype(np.float64)


def _key_counts(canon):
    """Counter of the present values' tags, and the number of missing values."""
    tags = canon.tags()
    counts = Counter(t for t in tags if t is not None)
    return {"keys": counts, "missing": int(np.sum(canon.form == MISSING))}


# ---------------------------------------------------------------------------
# the plan
# ---------------------------------------------------------------------------


class SchemaPlan:
    """What a table's schema leaves out, and the releases that estimate it.

    Build it with :meth:`from_table`, from public facts only: the column
    names, the user's schema, public ``bounds`` and ``classes``, and
    whether labels are given; never a dtype or a value. The plan fixes the
    estimation releases (:meth:`shares`, :meth:`selections`) before any row
    is read; :meth:`estimate` then makes them through a
    :class:`~skdpgen.privacy.GaussianAccountant` planned with them, and
    :meth:`read_from_data` is the leaky alternative. See
    :mod:`skdpgen.private_schema` for the mechanisms.

    Parameters
    ----------
    columns : list
        Column keys in table order.
    kinds : list of str
        The planned kind of each column: ``"numeric"``, ``"datetime"``,
        ``"bool"`` or ``"categorical"`` where the schema (or ``bounds``)
        declares it, ``"text"`` where it is estimated from the values'
        canonical forms (see :meth:`estimate`).
    schema : dict
        The user's (public) column specs. Complete specs are used as they
        are; a spec that declares only a ``"type"`` (numeric or datetime
        without ``"bounds"``, categorical without ``"categories"``, or
        ``"bool"``) declares the column's kind and leaves the rest to the
        estimate.
    bounds : list of (float, float) or None
        Public bounds for every column the schema leaves out, which
        declares them numeric (their ``integer`` and ``missing`` flags are
        still estimated).
    classes : list or None
        The public class list, if given.
    estimate_classes : bool
        Whether the class list is estimated (labels given, ``classes``
        not).
    frame_input : bool
        Whether the table is a DataFrame (else a 2-D array).
    timezones : dict
        ``column -> time zone`` declared by the partial specs of datetime
        columns.
    ordered : dict
        ``column -> bool`` declared by the partial specs of categorical
        columns.

    Attributes
    ----------
    estimated : dict
        ``column -> planned kind`` of the columns to estimate, in table order.
    kinds_ : dict
        After :meth:`estimate`: ``column -> kind`` of every estimated
        column (the declared kind, or the one estimated privately).
    class_other_ : object
        After :meth:`estimate` or :meth:`read_from_data` with estimated
        classes: the label that labels outside the class list map to (see
        :func:`map_unlisted`); None otherwise.
    noisy_ : dict
        After :meth:`estimate`: the released noisy vector of each column
        (and of ``"classes"``), for inspection; for partition selections
        only the noisy counts of the kept keys (the others are not
        released).

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from skdpgen.private_schema import SchemaPlan
    >>> X = pd.DataFrame({"age": [30, 41, 52], "city": ["A", "B", "A"]})
    >>> plan = SchemaPlan.from_table(X, np.array([0, 1, 1]),
    ...                              schema={"city": {"type": "categorical",
    ...                                               "categories": ["A", "B"]}})
    >>> plan.missing_entries()
    ['age', 'classes']
    >>> {name: round(share, 6) for name, (share, _) in plan.shares(0.2).items()}
    {'schema: kinds': 0.05, 'schema: values': 0.1, 'schema: classes': 0.05}
    >>> plan.selections()
    ['schema: values', 'schema: classes']
    """

    def __init__(self, columns, kinds, schema, bounds, classes, estimate_classes,
                 frame_input=True, timezones=None, ordered=None):
        self.columns = list(columns)
        self.kinds = list(kinds)
        self.schema = dict(schema or {})
        self.bounds = _check_bounds(bounds)
        self.classes = None if classes is None else list(classes)
        self.estimate_classes = bool(estimate_classes)
        self.frame_input = bool(frame_input)
        self.timezones = dict(timezones or {})
        self.ordered = dict(ordered or {})
        self.estimated = {c: k for c, k in zip(self.columns, self.kinds)
                          if c not in self.schema or _declared_kind(self.schema[c])}
        self.class_other_ = None
        self.noisy_ = {}
        self.kinds_ = {}

    # -- building ------------------------------------------------------------
    @classmethod
    def from_table(cls, X, y=None, *, schema=None, bounds=None, classes=None):
        """Plan from the public facts of a table.

        Reads the column names of ``X`` (never a dtype or a value), the
        user's ``schema``, and whether labels ``y`` are given.

        Parameters
        ----------
        X : DataFrame, 2-D array, list of rows, or Dask DataFrame or array
            Only its column names (positions for arrays) are read.
        y : array-like of shape (n,), default=None
            Labels; only whether they are given is read.
        schema : dict, default=None
            Public column specs (format of :mod:`skdpgen.schema`); a spec
            with a ``"type"`` only declares the column's kind.
        bounds : tuple of (float, float), default=None
            Public bounds for every column the schema leaves out, which
            are then numeric.
        classes : array-like, default=None
            The public class list. None with ``y`` given: it is estimated.

        Returns
        -------
        plan : SchemaPlan
        """
        schema = dict(schema or {})
        if is_dask_collection(X):  # column names only (the meta)
            columns = (list(meta(X).columns) if hasattr(X, "columns")
                       else list(range(X.shape[1])))
        elif isinstance(X, pd.DataFrame):
            columns = list(X.columns)
        else:
            columns = list(_as_frame(X).columns)
        if not columns:
            raise ValueError("X has no columns.")
        unknown = set(schema) - set(columns)
        if unknown:
            raise ValueError(
                f"The schema names columns that X lacks: {sorted(map(str, unknown))}.")
        kinds, timezones, ordered = [], {}, {}
        for c in columns:
            spec = schema.get(c)
            declared = None if spec is None else (_declared_kind(spec) or spec.get("type"))
            if declared is None:
                declared = "numeric" if bounds is not None else "text"
            kinds.append(declared)
            if spec is not None and declared == "datetime":
                timezones[c] = spec.get("timezone")
            if spec is not None and declared == "categorical":
                ordered[c] = bool(spec.get("ordered", False))
        return cls(columns, kinds, schema, bounds, classes,
                   estimate_classes=y is not None and classes is None,
                   frame_input=isinstance(X, pd.DataFrame) or (
                       is_dask_collection(X) and hasattr(X, "columns")),
                   timezones=timezones, ordered=ordered)

    # -- the plan --------------------------------------------------------------
    def _release_of(self, kind):
        if kind == "numeric":
            return NUMERIC if self.bounds is None else NUMERIC_FLAGS
        return {"datetime": DATETIME, "bool": MISSING_COUNT, "categorical": CATEGORIES,
                "text": VALUES}[kind]

    def _numeric_release(self, key):
        """NUMERIC, or NUMERIC_FLAGS for a column whose bounds are public."""
        spec = self.schema.get(key)
        if spec is None or spec.get("bounds") is None:
            return NUMERIC if self.bounds is None else NUMERIC_FLAGS
        return NUMERIC_FLAGS

    def release_counts(self):
        """``name -> number of releases`` of the plan (names in a fixed order).

        Returns
        -------
        counts : dict
            Empty when the schema is complete (nothing is spent).
        """
        counts = dict.fromkeys(RELEASE_ORDER, 0)
        for key, kind in self.estimated.items():
            if kind == "numeric":
                counts[self._numeric_release(key)] += 1
            else:
                counts[self._release_of(kind)] += 1
            counts[KINDS] += kind == "text"  # its kind first, then its values
        counts[CLASSES] = int(self.estimate_classes)
        return {name: c for name, c in counts.items() if c}

    def shares(self, schema_share=1.0):
        """Budget shares of the estimation releases.

        ``schema_share`` is split over the estimation releases in
        proportion to their weights: 1 for every release except a column's
        kind release (``"schema: kinds"``), which weighs ``KIND_WEIGHT`` (a
        half: its noise multiplier is √2 times that of the column's values
        release, since its tests need less precision than a histogram). An estimated
        class list gets ``CLASS_SHARE`` (a quarter) of ``schema_share`` when
        columns are estimated too, and the columns split the rest: a class
        that does not survive its selection merges into the other label,
        while a noisier bound only blurs its column, and on a wide table an
        equal split would leave the labels a vanishing share. Pass the
        result, merged with the fit's other shares, to
        :class:`~skdpgen.privacy.GaussianAccountant` together with
        :meth:`selections`.

        Parameters
        ----------
        schema_share : float, default=1.0
            Share of the schema estimation, relative to the fit's other
            shares (the accountant normalizes all shares together).

        Returns
        -------
        shares : dict
            ``name -> (share, count)``; empty when the schema is complete.
        """
        schema_share = float(schema_share)
        if not (schema_share > 0 and math.isfinite(schema_share)):
            raise ValueError(f"schema_share must be positive and finite, got {schema_share}.")
        counts = self.release_counts()
        weight = {name: c * (KIND_WEIGHT if name == KINDS else 1.0)
                  for name, c in counts.items()}
        columns = {name: w for name, w in weight.items() if name != CLASSES}
        if CLASSES not in counts or not columns:
            total = sum(weight.values())
            return {name: (schema_share * w / total, counts[name]) for name, w in weight.items()}
        # a lost class merges into "other", an imprecise bound only blurs a
        # column: the class list keeps CLASS_SHARE however wide the table
        total = sum(columns.values())
        rest = schema_share * (1.0 - CLASS_SHARE)
        shares = {name: (rest * w / total, counts[name]) for name, w in columns.items()}
        shares[CLASSES] = (schema_share * CLASS_SHARE, 1)
        return {name: shares[name] for name in counts}

    def selections(self):
        """The names among :meth:`shares` that are partition selections.

        Returns
        -------
        names : list of str
            Give them to the accountant's ``selections=``: their thresholds
            spend δ (by default half of the fit's δ, split equally). A
            column's values release counts as one whatever kind its values
            turn out to have, so the δ spent never depends on the rows.
        """
        return [name for name in self.release_counts() if name in SELECTIONS]

    def missing_entries(self):
        """What would need estimation: column keys, then ``"classes"``.

        Returns
        -------
        entries : list
            Empty when the schema is complete (for ``infer_schema="error"``
            messages).
        """
        return list(self.estimated) + (["classes"] if self.estimate_classes else [])

    # -- reading the rows ------------------------------------------------------
    def _sums(self, X, y, func, cache):
        """``func(frame, labels, cache)`` summed over the rows' partitions.

        In memory the whole table is one partition and ``cache`` keeps each
        column's canonical forms between passes; a Dask collection is
        summed partition by partition on its workers
        (:func:`skdpgen._dask.partition_sums`), so no column reaches the
        client.
        """
        if is_dask_collection(X):
            columns = self.columns

            def part(xp, yp):
                frame = xp if isinstance(xp, pd.DataFrame) else pd.DataFrame(xp)
                frame.columns = columns
                return func(frame, _labels(yp), None)

            return partition_sums(part, X, y if is_dask_collection(y) else None)
        return func(X, y, cache)

    def _in_memory(self, X, y):
        if is_dask_collection(X):
            if self.estimate_classes and not is_dask_collection(y):
                raise ValueError("With a Dask X, y must be a Dask collection partitioned "
                                 "like X.")
            return X, y
        frame = _as_frame(X)
        if list(frame.columns) != self.columns:
            raise ValueError(f"X has columns {list(frame.columns)}; the plan has {self.columns}.")
        if self.estimate_classes:
            if y is None:
                raise ValueError("The plan estimates the class list: pass the labels y.")
            y = _labels(y)
            if len(y) != len(frame):
                raise ValueError(f"y has {len(y)} labels for {len(frame)} rows.")
        return frame, y

    def _first_pass(self, frame, y, cache):
        """The row count, the form counts of columns of unknown kind, the labels' keys."""
        out = {"n": len(frame)}
        for key, kind in self.estimated.items():
            if kind == "text":
                out[("forms", key)] = _canon(frame, key, cache).counts()
        if self.estimate_classes:
            out["classes"] = _key_counts(canonical(y))
        return out

    def _value_pass(self, kinds):
        def statistics(frame, y, cache):
            out = {}
            for key, kind in kinds.items():
                canon = _canon(frame, key, cache)
                if kind == "numeric":
                    histogram = self._numeric_release(key) == NUMERIC
                    out[key] = _numeric_statistic(canon.numbers(), histogram)
                elif kind == "datetime":
                    out[key] = _datetime_statistic(_wall_ns(canon, self.timezones.get(key)))
                elif kind == "bool":
                    out[key] = np.array([float(np.sum(canon.form == MISSING))])
                else:
                    out[key] = _key_counts(canon)
            return out
        return statistics

    def estimate(self, X, y, accountant):
        """Estimate what the schema leaves out, privately.

        Every release is made through ``accountant`` (``add_noise`` and
        ``select``), which must have been planned with :meth:`shares` and
        :meth:`selections`; no noise is drawn here. With an empty plan
        nothing is read or released (``accountant`` may be None).

        Parameters
        ----------
        X : DataFrame, 2-D array, list of rows, or Dask DataFrame or array
            The private table (the planned columns), its values in any form.
        y : array-like of shape (n,) or None
            The private labels (needed when the classes are estimated).
        accountant : GaussianAccountant
            Planned with this plan's shares and selections.

        Returns
        -------
        schema : dict
            The complete schema, in column order: the user's complete specs
            untouched, estimated specs added (format of :mod:`skdpgen.schema`).
        classes : list or None
            The public classes, the estimated ones, or None without labels.

        Notes
        -----
        **What is read.** Every value is read through its canonical form
        (:mod:`skdpgen.schema._canonical`), never through a dtype or a
        Python type, so two tables whose values differ only in form give
        the same statistics and the same releases. The statistics are sums
        over rows: per Dask partition for a Dask collection, the noise added
        once on the client.

        **Sensitivities** (replace-one: one record is replaced by any other,
        ``n`` stays the same and is public). Each record adds a 0/1 vector
        ``c(x)`` to the released statistic, so ``Δ = max ‖c(x) − c(x')‖₂``.

        * ``schema: kinds``, ``[numbers, bools, dates, text, missing]``:
          every record is in exactly one of the five cells (its canonical
          form), so a replacement moves one count: ``Δ = √2``. A column's
          kind is then decided from these noisy counts
          (:func:`skdpgen.schema._ranges.kind_from_forms`).
        * ``schema: numeric``, ``[histogram, fine histogram, non-integer
          count, missing count]``: a present integer value sets one bin and
          one sub-bin (inside that bin); a present non-integer value one
          bin, one sub-bin and the non-integer count; a missing value (or
          one that is not a number) the missing count only. The farthest
          two records are a non-integer value and an integer value in
          another bin (two bins, two sub-bins and the non-integer count
          change by 1: ``√5``); a non-integer value against a missing one
          changes four counts (``2``): ``Δ = √5``, attained.
        * ``schema: numeric flags``, ``[non-integer count, missing count]``:
          a non-integer value against a missing one changes both:
          ``Δ = √2``.
        * ``schema: datetime``, ``[yearly histogram, count of values that
          are not at midnight, missing count]``: two present values move one
          count between two bins and may differ in time of day; a present
          value not at midnight against a missing one changes its bin and
          both counts: ``Δ = √3``.
        * ``schema: missing`` (bool columns), ``[missing count]``: ``Δ = 1``.
        * ``schema: categories`` and ``schema: classes``: counts of the
          keys present. Replacing a record moves one count from its key to
          the new record's key, ``Δ = √2`` on the keys present in both
          tables; a key present in one table only is held by the changed
          record alone and survives the threshold with probability
          ``δ_each`` (see :meth:`skdpgen.privacy.GaussianAccountant.select`).
          A missing label is no key, so changing it moves one count: at
          most ``√2`` as well.
        * ``schema: values``: the statistic of the kind just estimated from
          the column's ``schema: kinds`` release — the numeric statistic
          (``√5``), the datetime one (``√3``), the bool one (``1``) or the
          partition selection of its keys (``√2``) — multiplied by
          ``√2/Δ_kind`` before the noise, so that every values release has
          sensitivity ``√2`` and the same noise, whatever the kind (the
          noisy vector is multiplied back by ``Δ_kind/√2``: post-processing).
          The report therefore lists the same releases for every table,
          and each values release reserves a selection threshold's ``δ``.

        The releases of different columns (and of the labels) are separate
        Gaussian mechanisms on the same records, composed exactly by the
        accountant with the fit's other releases (the kind chosen after a
        kinds release only picks the statistic of the next release, whose
        noise multiplier is fixed: adaptive composition); everything else
        (kinds, bounds, flags, categories, other labels) is post-processing
        of the noisy vectors and of the public ``n``.
        """
        self.noisy_ = {}
        self.kinds_ = {}
        self.class_other_ = None
        if not self.release_counts():  # complete: nothing is read
            return self._user_schema(), self.classes
        X, y = self._in_memory(X, y)
        cache = {}
        first = self._sums(X, y, self._first_pass, cache)
        n = int(first["n"])
        self._flag_stds = flag_stds(len(self.estimated))
        kinds = {}
        for key, kind in self.estimated.items():
            if kind == "text":
                noisy = accountant.add_noise(KINDS, first[("forms", key)],
                                             sensitivity=SENSITIVITY[KINDS])
                self.noisy_[(key, "kinds")] = noisy
                kind = kind_from_forms(noisy, self._sigma(accountant, KINDS) * SENSITIVITY[KINDS])
            kinds[key] = kind
        self.kinds_ = dict(kinds)
        values = self._sums(X, None, self._value_pass(kinds), cache)
        schema = {}
        for key in self.columns:
            if key not in self.estimated:
                schema[key] = copy.deepcopy(self.schema[key])
                continue
            name = VALUES if self.estimated[key] == "text" else None
            kind = kinds[key]
            if kind == "numeric":
                schema[key] = self._estimate_numeric(key, values[key], n, accountant, name)
            elif kind == "datetime":
                schema[key] = self._estimate_datetime(key, values[key], n, accountant, name)
            elif kind == "bool":
                schema[key] = self._estimate_bool(key, values[key], n, accountant, name)
            else:
                schema[key] = self._estimate_categorical(key, values[key], n, accountant,
                                                         name or CATEGORIES)
        classes = self.classes
        if self.estimate_classes:
            classes = self._estimate_classes(first["classes"], n, accountant)
        return schema, classes

    def _user_schema(self):
        return {key: copy.deepcopy(self.schema[key]) for key in self.columns}

    def _sigma(self, accountant, name):
        return accountant.noise_multipliers[name]

    def _release(self, accountant, name, structure, value):
        """The noisy ``value`` of a column's release, and its noise standard deviation.

        ``name`` is VALUES for a column whose kind was estimated: the
        statistic is scaled to sensitivity √2 before the noise and back
        after it (see :meth:`estimate`); otherwise the kind's own release.
        """
        delta = STRUCTURE_SENSITIVITY[structure] if structure in STRUCTURE_SENSITIVITY else (
            SENSITIVITY[NUMERIC_FLAGS])
        if name == VALUES:
            scale = SENSITIVITY[VALUES] / delta
            noisy = accountant.add_noise(VALUES, value * scale, sensitivity=SENSITIVITY[VALUES])
            return noisy / scale, self._sigma(accountant, VALUES) * delta
        noisy = accountant.add_noise(name, value, sensitivity=SENSITIVITY[name])
        return noisy, self._sigma(accountant, name) * SENSITIVITY[name]

    def _estimate_numeric(self, key, value, n, accountant, name=None):
        own = self._numeric_release(key)
        structure = "numeric" if own == NUMERIC else "numeric flags"
        noisy, s = self._release(accountant, name or own, structure, value)
        self.noisy_[key] = noisy
        integer, missing = _flags(noisy[-2], noisy[-1], n, s, self._flag_stds)
        if own == NUMERIC:
            lower, _, _, _ = _numeric_grid()
            found = _numeric_range(noisy[:lower.size], s, integer, guess=False)
            first, last = found or _numeric_range(noisy[:lower.size], s, integer)
            lo, hi = _refined_range(noisy[lower.size:-2], noisy[:lower.size], first, last, s,
                                    integer)
            bounds = _finish_bounds(lo, hi, integer)
            if found is None:
                _warn_guess(key, f"its bounds {bounds}", n, s)
            else:
                bins = _integer_bins() if integer else np.arange(lower.size)
                bins = bins[(bins >= first) & (bins <= last)]
                _warn_outside(key, bounds, noisy[bins], noisy[-1], n, s)
        else:
            spec = self.schema.get(key) or {}
            bounds = [float(b) for b in (spec.get("bounds") or self.bounds)]
        return {"type": "numeric", "bounds": bounds, "integer": integer, "missing": missing,
                "impute": not missing}

    def _estimate_datetime(self, key, value, n, accountant, name=None):
        noisy, s = self._release(accountant, name or DATETIME, "datetime", value)
        self.noisy_[key] = noisy
        # whole days decided like the integer flag of numeric columns
        days, missing = _flags(noisy[-2], noisy[-1], n, s, self._flag_stds)
        decades = [np.arange(_N_YEARS) // 10]
        found = _occupied_range(noisy[:-2], decades, s, guess=False)
        first, last = found or _occupied_range(noisy[:-2], decades, s)
        spec = {"type": "datetime", "bounds": [_year_label(first), _year_label(last + 1)],
                "missing": missing, "timezone": self.timezones.get(key), "impute": not missing}
        if found is None:
            _warn_guess(key, f"its bounds {spec['bounds']}", n, s)
        else:
            _warn_outside(key, spec["bounds"], noisy[first:last + 1], noisy[-1], n, s)
        if days:
            spec["resolution"] = "day"
        return spec

    def _estimate_bool(self, key, value, n, accountant, name=None):
        noisy, s = self._release(accountant, name or MISSING_COUNT, "bool", value)
        self.noisy_[key] = noisy
        _, missing = _flags(None, noisy[-1], n, s, self._flag_stds)
        # values that are no bools, and missing ones without the flag, map to False
        return {"type": "categorical", "categories": [False, True], "ordered": False,
                "missing": missing, "other": False}

    def _select(self, name, tags, counts, accountant):
        """Kept keys (in candidate order) and their noisy counts; the rest is not released."""
        keep, noisy = accountant.select(name, np.asarray(counts, dtype=np.float64))
        keep = np.asarray(keep, dtype=bool)
        kept = [t for t, k in zip(tags, keep) if k]
        return kept, np.asarray(noisy)[keep]

    def _estimate_categorical(self, key, stats, n, accountant, name=CATEGORIES):
        tags = sorted(stats["keys"], key=lambda t: key_order(t[1]))
        counts = [float(stats["keys"][t]) for t in tags]
        if stats["missing"]:
            tags.append(None)
            counts.append(float(stats["missing"]))
        kept, kept_noisy = self._select(name, tags, counts, accountant)
        self.noisy_[key] = kept_noisy
        s = self._sigma(accountant, name) * SENSITIVITY[CATEGORIES]
        missing = None in kept
        categories = _public_keys([t for t in kept if t is not None])
        residual = n - float(kept_noisy.sum())
        need_other = not categories or residual > OTHER_STDS * s * math.sqrt(len(kept))
        if need_other:
            other = _other_label(categories, numeric=False)
            _warn_other(f"Column {key!r}", categories, other, residual, n)
            categories = categories + [other]
        else:
            # the kept value with the largest noisy count (the missing key excluded)
            values_noisy = [c for t, c in zip(kept, kept_noisy) if t is not None]
            other = categories[int(np.argmax(values_noisy))]
        return {"type": "categorical", "categories": categories,
                "ordered": bool(self.ordered.get(key, False)), "missing": missing,
                "other": other}

    def _estimate_classes(self, stats, n, accountant):
        tags = sorted(stats["keys"], key=lambda t: key_order(t[1]))
        kept, kept_noisy = self._select(CLASSES, tags, [stats["keys"][t] for t in tags],
                                        accountant)
        self.noisy_["classes"] = kept_noisy
        s = self._sigma(accountant, CLASSES) * SENSITIVITY[CLASSES]
        labels = _public_keys(kept)
        residual = n - float(np.sum(kept_noisy))  # missing labels count here
        if not labels or residual > OTHER_STDS * s * math.sqrt(len(kept)):
            numeric = bool(labels) and all(t[0] == 1 for t in kept)
            other = _other_label(labels, numeric=numeric)
            _warn_other("The class list", labels, other, residual, n)
            self.class_other_ = other
            return labels + [other]
        self.class_other_ = labels[int(np.argmax(kept_noisy))]
        return labels

    # -- the leaky mode --------------------------------------------------------
    def read_from_data(self, X, y=None):
        """Read what the schema leaves out from the rows, without privacy.

        The ``infer_schema="data"`` mode: exact kinds (from the values'
        canonical forms, by the rule of the private estimate without
        noise), bounds (minimum and maximum), categories (the values
        present), ``integer`` and ``missing`` flags and class list. Each
        column read is recorded with :func:`skdpgen.privacy.record_leak`
        (``"bounds"`` for numeric and datetime columns, ``"integer"`` for
        numeric columns with public bounds, ``"missing"`` for bool columns,
        ``"categories"``, ``"classes"``), so the fit's report says that it is
        not private.

        Parameters
        ----------
        X : DataFrame, 2-D array or list of rows
        y : array-like of shape (n,) or None

        Returns
        -------
        schema : dict
        classes : list or None
        """
        self.class_other_ = None
        if not self.release_counts():  # complete: nothing is read
            return self._user_schema(), self.classes
        if is_dask_collection(X):  # the leaky path reads the columns on the client
            X = X.compute()
            y = y.compute() if is_dask_collection(y) else y
        frame, y = self._in_memory(X, y)
        schema = {}
        for key in self.columns:
            if key not in self.estimated:
                schema[key] = copy.deepcopy(self.schema[key])
                continue
            canon = canonical(frame[key])
            kind = self.estimated[key]
            if kind == "text":
                kind = kind_from_forms(canon.counts(), 0.0)
            missing = bool(np.any(canon.form == MISSING))
            if kind == "numeric":
                schema[key] = self._read_numeric(key, canon, missing)
            elif kind == "datetime":
                schema[key] = self._read_datetime(key, canon, missing)
            elif kind == "bool":
                record_leak(
                    "missing",
                    f"Whether bool column {key!r} has missing values was read from the private "
                    "data and is released with the model without privacy. Declare the column "
                    "in the schema to avoid this.",
                    column=key,
                )
                schema[key] = {"type": "categorical", "categories": [False, True],
                               "ordered": False, "missing": missing, "other": False}
            else:
                schema[key] = self._read_categorical(key, canon, missing)
        classes = self.classes
        if self.estimate_classes:
            record_leak(
                "classes",
                "The class list was taken from the private labels y and is released "
                "without privacy. Pass classes=[...] (the public list of possible "
                "labels) to avoid this.",
            )
            stats = _key_counts(canonical(y))
            classes = _public_keys(sorted(stats["keys"], key=lambda t: key_order(t[1])))
            if not classes or stats["missing"]:
                self.class_other_ = _other_label(classes, numeric=bool(classes) and all(
                    isinstance(c, (int, float)) and not isinstance(c, bool) for c in classes))
                classes = classes + [self.class_other_]
            else:
                self.class_other_ = classes[0]
        return schema, classes

    def _read_numeric(self, key, canon, missing):
        x = canon.numbers()
        finite = x[np.isfinite(x)]
        integer = bool(finite.size) and bool(np.all(finite == np.round(finite)))
        spec = self.schema.get(key) or {}
        public = spec.get("bounds") if _declared_kind(spec) is None else None
        if public is None and self.bounds is not None:
            public = self.bounds
        if public is not None:
            record_leak(
                "integer",
                f"The integer and missing flags of numeric column {key!r} were read from the "
                "private data and are released with the model without privacy. Declare the "
                "column in the schema to avoid this.",
                column=key,
            )
            bounds = [float(b) for b in public]
        else:
            record_leak(
                "bounds",
                f"The bounds of numeric column {key!r} were read from the private data (its "
                "exact minimum and maximum, with its integer and missing flags) and are "
                "released with the model without privacy. Pass public bounds in the schema, "
                "or bounds=(lo, hi), to avoid this.",
                column=key,
            )
            lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
            bounds = _finish_bounds(lo, hi, False)
        return {"type": "numeric", "bounds": bounds, "integer": integer, "missing": missing,
                "impute": not missing}

    def _read_datetime(self, key, canon, missing):
        record_leak(
            "bounds",
            f"The bounds of datetime column {key!r} were read from the private data (its "
            "first and last day, with its missing flag) and are released with the model "
            "without privacy. Declare them in the schema to avoid this.",
            column=key,
        )
        wall = _wall_ns(canon, self.timezones.get(key))
        wall = wall[wall != np.iinfo(np.int64).min]
        if wall.size == 0:
            bounds = [_year_label(0), _year_label(_N_YEARS)]
        else:
            lo = pd.Timestamp(int(wall.min())).floor("D")
            hi = max(pd.Timestamp(int(wall.max())).ceil("D"), lo + pd.Timedelta(days=1))
            bounds = [lo.strftime("%Y-%m-%d"), hi.strftime("%Y-%m-%d")]
        return {"type": "datetime", "bounds": bounds, "missing": missing,
                "timezone": self.timezones.get(key), "impute": not missing}

    def _read_categorical(self, key, canon, missing):
        stats = _key_counts(canon)
        cats = _public_keys(sorted(stats["keys"], key=lambda t: key_order(t[1])))
        record_leak(
            "categories",
            f"The categories of column {key!r} were read from the private data "
            f"({len(cats)} values) and are released with the model without privacy. "
            "Declare them in the schema to avoid this.", column=key)
        return {"type": "categorical", "categories": cats or ["other"],
                "ordered": bool(self.ordered.get(key, False)), "missing": missing}

    def __repr__(self):
        return (f"SchemaPlan(columns={len(self.columns)}, estimated={list(self.estimated)}, "
                f"estimate_classes={self.estimate_classes})")


def _public_keys(tags):
    """The public values of kept tags, in order: their keys, with bools written
    ``"True"``/``"False"`` when numbers are among them (``True == 1`` in Python,
    so a list holding both would not be a list of distinct values)."""
    keys = [t[1] for t in tags]
    if any(t[0] == 0 for t in tags) and any(t[0] == 1 for t in tags):
        keys = [str(k) if isinstance(k, bool) else k for k in keys]
    return keys


def _check_bounds(bounds):
    if bounds is None:
        return None
    lo, hi = (float(b) for b in bounds)
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi and math.isfinite(hi - lo)):
        raise ValueError(f"bounds must be finite with lo < hi, got {bounds!r}.")
    return [lo, hi]


# ---------------------------------------------------------------------------
# standalone estimation
# ---------------------------------------------------------------------------


def estimate_schema(X, y=None, *, schema=None, classes=None, bounds=None, epsilon=1.0,
                    delta=1e-5):
    """Estimate a complete schema privately, on its own budget.

    Plans the releases (:meth:`SchemaPlan.from_table`), gives them the whole
    budget (``schema_share=1``) in one
    :class:`~skdpgen.privacy.GaussianAccountant` and makes them
    (:meth:`SchemaPlan.estimate`). What the command line's
    ``skdpgen schema data.csv --epsilon 0.1 --out schema.json`` runs.

    Parameters
    ----------
    X : DataFrame, 2-D array, list of rows, or Dask DataFrame or array
        The private table, its values in any form.
    y : array-like of shape (n,), default=None
        Private labels, whose class list is estimated unless ``classes``.
    schema : dict, default=None
        Public column specs; only the other columns (and the parts that
        type-only specs leave out) are estimated.
    classes : array-like, default=None
        The public class list.
    bounds : tuple of (float, float), default=None
        Public bounds for every column the schema leaves out (they are
        then numeric).
    epsilon : float, default=1.0
        Privacy budget of the estimation.
    delta : float, default=1e-5
        Its δ; half of it goes to the thresholds of the partition selections
        when there are any.

    Returns
    -------
    schema : dict
        The complete schema (JSON-serializable for DataFrame input).
    classes : list or None
    report : PrivacyReport
        Every release, its noise and the δ of the selections; ``epsilon``
        equals the budget when anything was estimated (an empty report
        otherwise), and ``leaks`` is empty.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from skdpgen.private_schema import estimate_schema
    >>> n = 20_000
    >>> X = pd.DataFrame({"age": np.arange(n) % 50 + 20,
    ...                   "city": np.where(np.arange(n) % 3 == 0, "A", "B")})
    >>> schema, classes, report = estimate_schema(X, epsilon=1.0)
    >>> schema["age"]["integer"], 0 <= schema["age"]["bounds"][0] <= 20
    (True, True)
    >>> schema["city"]["categories"][:2]
    ['A', 'B']
    >>> round(report.epsilon, 6), report.leaks, report.selection_delta
    (1.0, (), 5e-06)
    """
    epsilon, delta = check_epsilon_delta(epsilon, delta)
    plan = SchemaPlan.from_table(X, y, schema=schema, bounds=bounds, classes=classes)
    shares = plan.shares(1.0)
    with leak_ledger() as leaks:
        if not shares:
            out_schema, out_classes = plan.estimate(X, y, None)
            report = PrivacyReport([], delta, budget=(epsilon, delta), leaks=list(leaks))
        else:
            accountant = GaussianAccountant(epsilon, delta, shares,
                                            selections=plan.selections())
            out_schema, out_classes = plan.estimate(X, y, accountant)
            report = accountant.report(list(leaks))
    return out_schema, out_classes, report
