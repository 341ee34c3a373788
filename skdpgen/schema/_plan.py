"""The private schema estimate's plan: its releases and their budget shares.

This module is the only place where the schema estimate touches the rows
and applies a sensitivity (the releases' names and sensitivities are
listed in :mod:`skdpgen.schema._releases`). It computes each release's
exact statistic from the rows' canonical forms
(:mod:`skdpgen._canonical`), summed by the table's
:class:`~skdpgen.rows.TableRows` (in one call in memory, per
partition on the Dask workers: its only way to the rows), hands it to the
:class:`~skdpgen.privacy.GaussianAccountant` (which draws the noise), and
passes the noisy vector to the post-processing of
:mod:`skdpgen.schema._ranges`. The mechanisms are explained in
:mod:`skdpgen.private_schema`.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import copy
import math
import warnings

from ..privacy import outside_stacklevel
from ..rows import TableRows, record_class_list_leak, table_rows
from .._canonical import canonical
from ._issues import SchemaEstimateWarning, describe_issues
from ._present import check_present
from ._shares import auto_share, epsilon_needed, rows_needed
from ._flags import flag_stds
from .kinds import EstimateContext, kind_of, partial_kind
from .kinds._categorical import (
    _other_label,
    estimate_class_list,
    key_counts,
    public_keys,
    sorted_tags,
)
from ._policy import POLICY
from ._releases import (
    CLASSES,
    KIND_WEIGHT,
    KINDS,
    RELEASE_ORDER,
    SELECTIONS,
    SENSITIVITY,
    VALUES,
)

__all__ = [
    "SchemaPlan",
]


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
    class_missing_ : object
        After :meth:`estimate` with estimated classes: the label that
        missing labels map to when the selection kept them (their noisy
        count) and no other label was added, else None (they then map as
        unlisted labels do).
    issues_ : list of dict
        After :meth:`estimate`: one dict per weak spot of the estimate
        (``column``, ``problem``, ``share``, ``detail``), summarized in
        one :class:`SchemaEstimateWarning` (:func:`describe_issues`).
    noisy_ : dict
        After :meth:`estimate`: the released noisy vector of each column
        (and of ``"classes"``), for inspection; for partition selections
        only the noisy counts of the kept keys (the others are not
        released).
    counts_ : dict
        After :meth:`estimate`: ``column -> (cells, counts, std)``, the
        released counts of cells of an estimated categorical column's
        one-hot block (its kept values, and missing values when kept), in
        rows, with their noise standard deviation: its one-way marginal,
        measured once, which a mechanism may read again
        (:meth:`skdpgen.synthesizers.Mechanism.reuse_counts`).
    noise_ : dict
        After :meth:`estimate`: ``column -> std``, for a numeric column the
        noise standard deviation of each entry of ``noisy_[column]`` (public).

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

    def __init__(self, columns, kinds, schema, bounds, classes, estimate_classes):
        self.columns = list(columns)
        self.kinds = list(kinds)
        self.schema = dict(schema or {})
        self.bounds = _check_bounds(bounds)
        self.classes = None if classes is None else list(classes)
        self.estimate_classes = bool(estimate_classes)
        self.estimated = {c: k for c, k in zip(self.columns, self.kinds)
                          if c not in self.schema or partial_kind(self.schema[c])}
        self.class_other_ = None
        self.noisy_ = {}
        self.noise_ = {}
        self.counts_ = {}
        self.present_ = {}
        self.kinds_ = {}
        self.issues_ = []
        self.empty_ = []
        self._sparse = []
        self.class_missing_ = None

    # -- building ------------------------------------------------------------
    @classmethod
    def from_table(cls, X, y=None, *, schema=None, bounds=None, classes=None):
        """Plan from the public facts of a table.

        Reads the column names of ``X`` (never a dtype or a value), the
        user's ``schema``, and whether labels ``y`` are given.

        Parameters
        ----------
        X : TableRows, DataFrame, 2-D array, list of rows, or Dask DataFrame or array
            Only its column names (positions for arrays) are read; a
            :class:`~skdpgen.rows.TableRows` brings its labels.
        y : array-like of shape (n,), default=None
            Labels; only whether they are given is read (those of ``X``
            when it is a ``TableRows``).
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
        if isinstance(X, TableRows):
            y = X.y
        columns = table_rows(X).columns
        if not columns:
            raise ValueError("X has no columns.")
        unknown = set(schema) - set(columns)
        if unknown:
            raise ValueError(
                f"The schema names columns that X lacks: {sorted(map(str, unknown))}.")
        kinds = []
        for c in columns:
            spec = schema.get(c)
            declared = None if spec is None else (partial_kind(spec) or spec.get("type"))
            if declared is None:
                declared = "numeric" if bounds is not None else "text"
            kinds.append(declared)
        return cls(columns, kinds, schema, bounds, classes,
                   estimate_classes=y is not None and classes is None)

    # -- the plan --------------------------------------------------------------
    def release_counts(self):
        """``name -> number of releases`` of the plan (names in a fixed order).

        Returns
        -------
        counts : dict
            Empty when the schema is complete (nothing is spent).
        """
        counts = dict.fromkeys(RELEASE_ORDER, 0)
        for key, kind in self.estimated.items():
            if kind_of(kind).decides_kind:  # its kind first, then its values
                counts[KINDS] += 1
                counts[VALUES] += 1
            else:  # the kind's own release, as estimate() makes it
                counts[kind_of(kind).own_release(self._context(key))[0]] += 1
        counts[CLASSES] = int(self.estimate_classes)
        return {name: c for name, c in counts.items() if c}

    def auto_share(self, n, epsilon, delta):
        """``(schema_share, class_fraction)`` for :meth:`shares`, from the public
        row count ``n``, this plan's releases and the fit's ``(epsilon, delta)``:
        :func:`skdpgen.schema._shares.auto_share` (the synthesizers'
        ``schema_share="auto"``), whose docstring states the rule."""
        units = sum(w for name, w in self._weights().items() if name != CLASSES)
        return auto_share(units, self.estimate_classes, n, epsilon, delta)

    def rows_needed(self, epsilon, delta, schema_share="auto"):
        """The fewest rows at which this plan's columns meet the size rule
        (:func:`skdpgen.schema._shares.rows_needed`: a numeric column's noise
        per bin at most ``n/40`` rows within the columns' largest share, or
        within a ``schema_share`` the user set); 0 when no column is
        estimated. Public: the plan's releases, ε and δ."""
        return rows_needed(self._units(), epsilon, delta, self._column_share(schema_share))

    def epsilon_needed(self, n, delta, schema_share="auto"):
        """The ε at which ``n`` rows meet :meth:`rows_needed`'s rule."""
        return epsilon_needed(self._units(), n, delta, self._column_share(schema_share))

    def _units(self):
        return sum(w for name, w in self._weights().items() if name != CLASSES)

    def _column_share(self, schema_share):
        """The columns' share of the budget: None (auto: its cap), or their part of a
        given ``schema_share``."""
        if schema_share == "auto":
            return None
        return float(schema_share) * (1.0 - POLICY.class_share if self.estimate_classes
                                      else 1.0)

    def _weights(self):
        """``name -> budget weight`` of the releases (kinds: ``KIND_WEIGHT``, others 1)."""
        return {name: c * (KIND_WEIGHT if name == KINDS else 1.0)
                for name, c in self.release_counts().items()}

    def shares(self, schema_share=1.0, class_fraction=None):
        """Budget shares of the estimation releases.

        ``schema_share`` is split over the estimation releases in
        proportion to their weights: 1 for every release except a column's
        kind release (``"schema: kinds"``), which weighs ``KIND_WEIGHT`` (a
        half: its noise multiplier is √2 times that of the column's values
        release, since its tests need less precision than a histogram). An estimated
        class list gets ``POLICY.class_share`` (a quarter) of ``schema_share`` when
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
        class_fraction : float, default=None
            The estimated class list's fraction of ``schema_share`` when
            columns are estimated too (see :meth:`auto_share`); None:
            ``POLICY.class_share``.

        Returns
        -------
        shares : dict
            ``name -> (share, count)``; empty when the schema is complete.
        """
        schema_share = float(schema_share)
        if not (schema_share > 0 and math.isfinite(schema_share)):
            raise ValueError(f"schema_share must be positive and finite, got {schema_share}.")
        counts, weight = self.release_counts(), self._weights()
        columns = {name: w for name, w in weight.items() if name != CLASSES}
        if CLASSES not in counts or not columns:
            total = sum(weight.values())
            return {name: (schema_share * w / total, counts[name]) for name, w in weight.items()}
        # a lost class merges into "other", an imprecise bound only blurs a
        # column: the class list keeps POLICY.class_share however wide the table
        if class_fraction is None:
            class_fraction = POLICY.class_share
        total = sum(columns.values())
        rest = schema_share * (1.0 - class_fraction)
        shares = {name: (rest * w / total, counts[name]) for name, w in columns.items()}
        shares[CLASSES] = (schema_share * class_fraction, 1)
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
    def _context(self, key, accountant=None, release=""):
        """What the kind of column ``key`` may use besides its rows (see
        :class:`~skdpgen.schema.kinds._kind.EstimateContext`)."""
        # (an estimated column's spec is partial: its own bounds, if any, are open)
        return EstimateContext(partial=self.schema.get(key) or {}, bounds=self.bounds,
                               flag_stds=getattr(self, "_flag_stds", POLICY.flag_stds),
                               accountant=accountant, release=release, noisy=self.noisy_,
                               counts=self.counts_, present=self.present_)

    def _first_pass(self, part, y):
        """The form counts of columns of unknown kind, the labels' keys."""
        out = {}
        for key, kind in self.estimated.items():
            if kind_of(kind).decides_kind:
                out[("forms", key)] = kind_of(kind).statistic(part[key], None)
        if self.estimate_classes:
            out["classes"] = key_counts(canonical(y))
        return out

    def _value_pass(self, kinds):
        def statistics(part, _):
            return {key: kind.statistic(part[key], self._context(key))
                    for key, kind in kinds.items()}
        return statistics

    def _check_rows(self, rows, summed=True):
        """``rows``, a :class:`~skdpgen.rows.TableRows` of the planned table
        (whose labels can be ``summed`` with it when the classes are estimated)."""
        if not isinstance(rows, TableRows):
            raise TypeError("Pass the table as skdpgen.rows.table_rows(X, y), "
                            f"not {type(rows).__name__}.")
        if rows.columns != self.columns:
            raise ValueError(f"X has columns {rows.columns}; the plan has {self.columns}.")
        if self.estimate_classes and summed:
            rows.check_labels()
        return rows

    def estimate(self, rows, accountant):
        """Estimate what the schema leaves out, privately.

        Every release is made through ``accountant`` (``add_noise`` and
        ``select``), which must have been planned with :meth:`shares` and
        :meth:`selections`; no noise is drawn here. With an empty plan
        nothing is read or released (``accountant`` may be None).

        Parameters
        ----------
        rows : TableRows
            The private table (the planned columns) and its labels (needed
            when the classes are estimated), as
            :func:`~skdpgen.rows.table_rows` reads them: the only
            way the estimate reads a row.
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
        (:mod:`skdpgen._canonical`), never through a dtype or a
        Python type, so two tables whose values differ only in form give
        the same statistics and the same releases. The statistics are sums
        over rows: per Dask partition for a Dask collection, the noise added
        once on the client.

        **Sensitivities** (replace-one: one record is replaced by any other,
        ``n`` stays the same and is public). Each record adds a 0/1 vector
        ``c(x)`` to the released statistic, so ``Δ = max ‖c(x) − c(x')‖₂``;
        each kind derives its own in the Notes of its ``statistic``
        (:mod:`skdpgen.schema.kinds._numeric`, ``_datetime``, ``_bool``,
        ``_categorical``, ``_text``), and the labels' is that of the
        categories (missing labels are one more key, None: a label changed to or
        from missing moves one count between two keys, ``√2``).

        * ``schema: kinds``, ``[numbers, bools, dates, text, missing, times]``:
          ``Δ = √2`` (:meth:`skdpgen.schema.kinds._text.TextKind.statistic`).
        * ``schema: values``: the statistic of the kind just estimated from
          the column's ``schema: kinds`` release — numeric (``√7``),
          datetime (``√3``), bool (``1``) or the partition selection of its
          keys (``√2``) — multiplied by ``√2/Δ_kind`` before the noise, so
          that every values release has sensitivity ``√2`` and the same
          noise, whatever the kind (the noisy vector is multiplied back by
          ``Δ_kind/√2``: post-processing). The report therefore lists the
          same releases for every table, and each values release reserves
          a selection threshold's ``δ``.

        The releases of different columns (and of the labels) are separate
        Gaussian mechanisms on the same records, composed exactly by the
        accountant with the fit's other releases (the kind chosen after a
        kinds release only picks the statistic of the next release, whose
        noise multiplier is fixed: adaptive composition); everything else
        (kinds, bounds, flags, categories, other labels) is post-processing
        of the noisy vectors and of the public ``n``.
        """
        self.noisy_ = {}
        self.noise_ = {}
        self.counts_ = {}
        self.present_ = {}
        self.kinds_ = {}
        self.issues_ = []
        self.empty_ = []
        self._sparse = []
        self.class_other_ = None
        self.class_missing_ = None
        if not self.release_counts():  # complete: nothing is read
            return self._user_schema(), self.classes
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", SchemaEstimateWarning)
            schema, classes = self._estimate(rows, accountant)
        for w in caught:  # other warnings pass; the estimate's become one summary
            if issubclass(w.category, SchemaEstimateWarning):
                issue = w.message.issue()
                if issue["column"] not in self.empty_:  # its bounds and values are unused
                    self.issues_.append(issue)
            else:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        if self.issues_:
            warnings.warn(SchemaEstimateWarning(describe_issues(self.issues_, "python"),
                                                issues=self.issues_),
                          stacklevel=outside_stacklevel())
        return schema, classes

    def _estimate(self, rows, accountant):
        rows = self._check_rows(rows)
        with rows.caching():  # each column's canonical forms read once in memory
            return self._estimate_passes(rows, accountant)

    def _estimate_passes(self, rows, accountant):
        first = {}
        deciding = any(kind_of(k).decides_kind for k in self.estimated.values())
        if self.estimate_classes or deciding:
            first = rows.partition_sums(self._first_pass, labels=self.estimate_classes)
        n = rows.n_rows  # counted by the first pass over Dask rows, when not before
        if n < 1:  # public: nothing is released, and every share below is of n rows
            raise ValueError("Found 0 sample(s) while a minimum of 1 is required.")
        self._flag_stds = flag_stds(len(self.estimated))
        kinds = {}
        for key, planned in self.estimated.items():
            kinds[key] = kind_of(planned)
            if kinds[key].decides_kind:  # the kind, privately, from the noisy form counts
                context = self._context(key, accountant, KINDS)
                kinds[key] = kinds[key].privatize(key, first[("forms", key)], n, context)
        self.kinds_ = {key: kind.name for key, kind in kinds.items()}
        values = rows.partition_sums(self._value_pass(kinds))
        schema = {}
        for key in self.columns:
            if key not in self.estimated:
                schema[key] = copy.deepcopy(self.schema[key])
                continue
            kind = kinds[key]
            if kind_of(self.estimated[key]).decides_kind:  # one release, whatever the kind
                context = self._context(key, accountant, VALUES)
                context.scaled_sensitivity = SENSITIVITY[VALUES]
            else:
                context = self._context(key, accountant)
                context.release = kind.own_release(context)[0]
            schema[key] = kind.privatize(key, values[key], n, context)
            self.noise_[key] = (accountant.noise_multipliers[context.release]
                                * kind.own_release(context)[1])
            schema[key] = check_present(self, key, schema[key], n, accountant)
        classes = self.classes
        if self.estimate_classes:
            classes = self._estimate_classes(first["classes"], n, accountant)
        return schema, classes

    def _user_schema(self):
        return {key: copy.deepcopy(self.schema[key]) for key in self.columns}

    def _estimate_classes(self, stats, n, accountant):
        context = self._context(None, accountant, CLASSES)
        labels, self.class_other_, self.class_missing_, kept_noisy = estimate_class_list(
            context, stats, n)
        self.noisy_["classes"] = kept_noisy  # only what was released
        return labels

    # -- the leaky mode --------------------------------------------------------
    def read_from_data(self, rows):
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
        rows : TableRows
            The table and its labels (:func:`~skdpgen.rows.table_rows`);
            a Dask table's columns are computed on the client, one at a time.

        Returns
        -------
        schema : dict
        classes : list or None
        """
        self.class_other_ = None
        if not self.release_counts():  # complete: nothing is read
            return self._user_schema(), self.classes
        rows = self._check_rows(rows, summed=False)  # read on the client, column by column
        y = rows.labels() if self.estimate_classes else None
        schema = {}
        with rows.caching(forms=False):  # one frame in memory, one column's forms at a time
            for key in self.columns:
                if key not in self.estimated:
                    schema[key] = copy.deepcopy(self.schema[key])
                    continue
                canon = rows.canonical(key)
                kind = kind_of(self.estimated[key])
                if kind.decides_kind:
                    kind = kind.read(key, canon, None)
                schema[key] = kind.read(key, canon, self._context(key))
        classes = self.classes
        if self.estimate_classes:
            record_class_list_leak()
            stats = key_counts(canonical(y))
            tags = sorted_tags(stats["keys"])
            classes = public_keys(tags)
            if not classes or stats["missing"]:
                self.class_other_ = _other_label(
                    classes, numeric=bool(tags) and all(t[0] == 1 for t in tags))
                classes = classes + [self.class_other_]
            else:
                self.class_other_ = classes[0]
        return schema, classes

    def __repr__(self):
        return (f"SchemaPlan(columns={len(self.columns)}, estimated={list(self.estimated)}, "
                f"estimate_classes={self.estimate_classes})")


def _check_bounds(bounds):
    if bounds is None:
        return None
    lo, hi = (float(b) for b in bounds)
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi and math.isfinite(hi - lo)):
        raise ValueError(f"bounds must be finite with lo < hi, got {bounds!r}.")
    return [lo, hi]
