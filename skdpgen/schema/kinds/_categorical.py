"""Categorical columns: ``{"type": "categorical", "categories": [...], "other": …}``."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math
from collections import Counter

import numpy as np
import pandas as pd

from ..._dask import map_labels
from ...privacy import record_leak, selection_threshold
from ..._canonical import MISSING, canonical, canonical_keys, key_order, labels_series
from .._issues import _missing_flag, _warn_folded, _warn_folded_values, _warn_other
from .._policy import POLICY
from ._kind import ColumnCodec, ColumnKind, flag, is_missing_scalar, one_hot_rows, record_present
from ._registry import kind_of

__all__ = ["CategoricalKind", "estimate_class_list", "fold_rare", "is_bool_categories",
           "key_counts", "map_unlisted", "public_keys", "select_kept"]


def key_counts(canon):
    """Counter of the present values' tags, and the number of missing values."""
    counts = Counter(t for t in canon.tags() if t is not None)
    return {"keys": counts, "missing": int(np.sum(canon.form == MISSING))}


def public_keys(tags):
    """The public values of kept tags, in order: their keys, with bools written
    ``"True"``/``"False"`` when numbers are among them (``True == 1`` in Python,
    so a list holding both would not be a list of distinct values; the text
    reads back as the same bool)."""
    keys = [t[1] for t in tags]
    if any(t[0] == 0 for t in tags) and any(t[0] == 1 for t in tags):
        keys = [str(k) if isinstance(k, bool) else k for k in keys]
    return keys


def sorted_tags(counts):
    """The tags of a Counter in the one order of keys."""
    return sorted(counts, key=lambda t: key_order(t[1]))


def select_kept(context, tags, counts, public=()):
    """A partition selection of ``counts`` (one per tag; ``public`` tags always
    kept): the kept tags, their noisy counts (all that is released) and the
    noise standard deviation."""
    return context.select(tags, counts, public=public)


def fold_rare(kept, kept_noisy, n, s, *, column=None):
    """The public list of a selection, and the label its other values take.

    ``column``: the categorical column selected, or None for the class list
    (whose other label is a number when the labels are, and whose folding
    is never silent).

    Whether some value was dropped is not public, so it never decides
    anything; the mass of the dropped values (and, for labels, of missing
    ones) is estimated from released numbers only, ``r = n − Σ_kept ñ_k``
    (noise standard deviation ``s·sqrt(len(kept))``). When ``r`` exceeds
    ``POLICY.other_stds`` of it, or nothing was kept, a public other label is added
    (``"other"``, ``"__other__"`` if that is kept; for a class list of
    numbers only, ``-1`` or the smallest minus one), with a
    :class:`SchemaEstimateWarning` when it holds a twentieth of the rows or
    more; otherwise the kept value with the largest noisy count takes the
    rare values, with a :class:`SchemaEstimateWarning` (problem
    ``"folded"``) when ``r`` is a twentieth of the rows or more and
    ``POLICY.fold_stds`` of its noise (a column's; the class list's
    whenever a dropped class of that size is not ruled out). A ``None``
    tag (the missing key) is no value.

    Returns
    -------
    values : list
        The public values (:func:`public_keys`), the other label last if added.
    other : object
        The label that values outside the list map to.
    """
    tags = [t for t in kept if t is not None]
    values = public_keys(tags)
    residual = n - float(np.sum(kept_noisy))
    if not values or residual > POLICY.other_stds * s * math.sqrt(len(kept)):
        numeric = column is None and bool(tags) and all(t[0] == 1 for t in tags)
        other = _other_label(values, numeric=numeric)
        _warn_other(values, other, residual, n, column=column)
        return values + [other], other
    noisy_values = [c for t, c in zip(kept, kept_noisy) if t is not None]
    largest = values[int(np.argmax(noisy_values))]
    if column is None:  # labels are never folded silently
        _warn_folded(values, largest, residual, s * math.sqrt(len(kept)), n)
    else:  # nor a column's rare values, when they are many
        _warn_folded_values(column, largest, residual, s * math.sqrt(len(kept)), n)
    return values, largest


def _other_label(kept, numeric):
    if numeric:
        return -1 if -1 not in kept else min(kept) - 1
    label = "other"
    while label in kept:
        label = f"__{label}__"
    return label


def _missing_label(labels, numeric):
    """The public label standing for missing labels in a class list (``"missing"``,
    or below the smallest number for numeric labels); synthesizers return it as
    None."""
    if numeric:
        return min(labels) - 1 if labels else -1
    label = "missing"
    while label in labels:
        label = f"__{label}__"
    return label


def estimate_class_list(context, stats, n):
    """The class list from the labels' counts, privately: a partition selection.

    Missing labels are one more candidate key (None): when it is kept they
    do not count as dropped classes, and get a label of their own
    (:func:`_missing_label`) unless an other label is added, which they then
    join.

    Parameters
    ----------
    context : EstimateContext
        Of the class list's release.
    stats : dict
        :func:`key_counts` of the labels.
    n : int
        The public number of rows.

    Returns
    -------
    labels : list
        The public class list.
    other : object
        The label that labels outside the list map to.
    missing : object
        The label of missing labels, or None (they then map as ``other``).
    kept_noisy : ndarray
        The released noisy counts of the kept keys.
    """
    tags = sorted_tags(stats["keys"]) + [None]
    counts = [stats["keys"][t] for t in tags[:-1]] + [stats["missing"]]
    kept, kept_noisy, s = select_kept(context, tags, counts)
    present = [t for t in kept if t is not None]
    labels, other = fold_rare(kept, kept_noisy, n, s)
    if None not in kept or len(labels) > len(present):  # no count, or an other label
        return labels, other, None, kept_noisy
    missing = _missing_label(labels, bool(present) and all(t[0] == 1 for t in present))
    return labels + [missing], other, missing, kept_noisy


def is_bool_categories(categories):
    """Whether a category list makes a bool column (bools only)."""
    return all(isinstance(c, (bool, np.bool_)) for c in categories)


def all_numbers(categories):
    """Whether every category is a number (bools included)."""
    return all(isinstance(c, (int, float, np.integer, np.floating, bool, np.bool_))
               for c in categories)


class _OneHot(ColumnCodec):
    """A one-hot block over the categories, values matched by canonical key; a
    value outside them (or missing without the flag) is the ``"other"``
    category, or the first one when the spec names none."""

    def __init__(self, key, spec):
        super().__init__(key, spec)
        cats = spec["categories"]
        self.allow_missing = bool(spec.get("missing", False))
        self.width = len(cats) + int(self.allow_missing)
        _, tags = canonical_keys(cats)
        self.lookup = {t: i for i, t in enumerate(tags)}
        self.fallback = (tags.index(canonical_keys([spec["other"]])[1][0])
                         if "other" in spec else 0)

    def encode(self, column):
        tags = canonical(column).tags()
        missing_slot = len(self.spec["categories"]) if self.allow_missing else self.fallback
        codes = np.fromiter(
            (missing_slot if t is None else self.lookup.get(t, self.fallback) for t in tags),
            dtype=np.intp, count=len(tags))
        return None, one_hot_rows(codes, self.width), None

    def decode(self, numeric, code, missing, offset, is_frame):
        cats = self.spec["categories"]
        n = len(code)
        # the missing slot, last in the block
        missing = (code == len(cats)) if self.allow_missing else np.zeros(n, bool)
        code = np.where(missing, -1, code)
        if not is_frame:
            values = np.asarray(cats, dtype=object)[np.where(missing, 0, code)]
            if all_numbers(cats):  # an array's numeric column stays float
                values = np.asarray(values, dtype=np.float64)
                values[missing] = np.nan
            else:
                values[missing] = None
            return values
        return self.decode_frame(code, missing)

    def decode_frame(self, code, missing):
        return pd.Categorical.from_codes(code, dtype=CategoricalKind().output_dtype(self.spec))


class CategoricalKind(ColumnKind):
    """Values from a public list (the statistic: counts of the values present, a
    partition selection)."""

    name = type = "categorical"
    has_categories = True
    release = "schema: categories"
    sensitivity = math.sqrt(2.0)

    def check_spec(self, key, spec):
        self.require(key, spec, "categories")
        cats = list(spec["categories"])
        if any(is_missing_scalar(c) for c in cats):
            raise ValueError(
                f"Schema categories of column {key!r} may not hold NaN or None; declare "
                "\"missing\": true to allow missing values."
            )
        if len(cats) == 0 or len(set(canonical_keys(cats)[1])) != len(cats):
            raise ValueError(f"Schema categories of column {key!r} must be non-empty and distinct.")
        other = spec.get("other")
        if other is not None and is_missing_scalar(other):
            raise ValueError(f"Schema 'other' of column {key!r} may not be NaN or None.")
        if other is not None and canonical_keys([other])[1][0] not in canonical_keys(cats)[1]:
            cats = cats + [other]  # a category of its own (a filled-in template's list)
        out = {"type": "categorical", "categories": cats}
        if "ordered" in spec:
            out["ordered"] = flag(key, spec, "ordered")
        if other is not None:
            out["other"] = other
        return out

    def output_dtype(self, spec):
        return pd.CategoricalDtype(spec["categories"], ordered=spec.get("ordered", False))

    def codec(self, key, spec, *, max_levels=0, bins=0):
        return _OneHot(key, spec)

    def of_spec(self, spec):
        """A bool column when the spec's categories are bools, else this kind."""
        if spec.get("categories") and is_bool_categories(spec["categories"]):
            return kind_of("bool")
        return self

    def is_partial(self, spec):
        return not spec.get("categories")

    def spec_from_dtype(self, dtype):
        """``{"type": ...}``, ordered as an ordered categorical dtype is."""
        spec = super().spec_from_dtype(dtype)
        if getattr(dtype, "ordered", False):
            spec["ordered"] = True
        return spec

    def written_as(self, spec):
        return f"categorical values ({len(spec['categories'])} categories)"

    def read(self, key, canon, context):
        stats = key_counts(canon)
        cats = public_keys(sorted_tags(stats["keys"]))
        record_leak(
            "categories",
            f"The categories of column {key!r} were read from the private data "
            f"({len(cats)} values) and are released with the model without privacy. "
            "Declare them in the schema to avoid this.", column=key)
        return {"type": "categorical", "categories": cats or ["other"],
                "ordered": bool(context.partial.get("ordered", False)),
                "missing": bool(stats["missing"])}

    def statistic(self, canon, context):
        """Counts of the values present (by canonical key) and of missing values.

        Notes
        -----
        **Sensitivity** (replace-one). Replacing a record moves one count
        from its key to the new record's key, ``Δ = √2`` on the keys present
        in both tables; a key present in one table only is held by the
        changed record alone and survives the selection's threshold with
        probability ``δ_each`` (see
        :meth:`skdpgen.privacy.GaussianAccountant.select`).
        """
        return key_counts(canon)

    def privatize(self, key, statistic, n, context):
        """A partition selection over the values present, with missing values as
        one more, public, key; the rare values fold into an other category
        (:func:`fold_rare`).

        The missing key is a candidate whatever the data (every column may
        have missing values), so its noisy count is released like any count
        of a public histogram and needs no selection threshold: the column
        is ``"missing": true`` when that count exceeds ``POLICY.missing_stds`` noise
        standard deviations. A slot where no value is missing would put
        missing values in the output (about one fit in a thousand at three
        standard deviations); missing values without a slot are lost. Missing
        values are kept from about three noise standard deviations of rows
        (90 rows on a 2,000-row table at ε = 1, 7 columns, noise 30 rows),
        where the values' selection threshold asked for 146."""
        tags = sorted_tags(statistic["keys"]) + [None]
        counts = [float(statistic["keys"][t]) for t in tags[:-1]]
        counts.append(float(statistic["missing"]))
        kept, kept_noisy, s = select_kept(context, tags, counts, public=[None])
        at = kept.index(None)
        # the least present rows a value is kept from: all of them in one value,
        # at the selection's threshold
        record_present(context, key, n, kept_noisy[at], s,
                               selection_threshold(s, context.accountant.delta_each))
        missing = _missing_flag(key, bool(kept_noisy[at] > POLICY.missing_stds * s),
                                kept_noisy[at], s, n, context.partial)
        if not missing:  # its rows are counted with the other values
            kept, kept_noisy = kept[:at] + kept[at + 1:], np.delete(kept_noisy, at)
        context.noisy[key] = kept_noisy  # only what was released
        categories, other = fold_rare(kept, kept_noisy, n, s, column=key)
        context.counts[key] = measured_cells(kept, kept_noisy, s, categories, other)
        return {"type": "categorical", "categories": categories,
                "ordered": bool(context.partial.get("ordered", False)), "missing": missing,
                "other": other}


def measured_cells(kept, kept_noisy, s, categories, other):
    """The one-hot cells that a selection's released counts measure exactly.

    A kept value's cell is its category's (in the list's order), the
    missing key's the missing slot after the categories. Every cell is
    measured but the one the unlisted values join when it is a kept value
    (its rows then include the rare values, which its count does not) and
    an added other label (its count was not released). Post-processing.

    Returns
    -------
    cells : ndarray of int
    counts : ndarray
        Their noisy counts, in rows.
    std : float
        The noise standard deviation of each count.
    """
    present = sum(t is not None for t in kept)
    fallback = categories.index(other) if len(categories) == present else None
    cells, counts, at = [], [], 0
    for tag, count in zip(kept, kept_noisy):
        cell = len(categories) if tag is None else at
        at += tag is not None
        if cell != fallback:
            cells.append(cell)
            counts.append(float(count))
    return np.asarray(cells, dtype=np.intp), np.asarray(counts), float(s)


def map_unlisted(values, listed, other):
    """Map every value not in ``listed`` (missing ones included) to ``other``.

    What an estimated categorical column (its spec's ``"other"``) or
    estimated class list (:attr:`SchemaPlan.class_other_`) asks of the
    rows: rare values that did not survive the partition selection become
    the public other category. Values are compared by their canonical keys
    (:mod:`skdpgen._canonical`: ``3``, ``3.0`` and ``"3"`` are one
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
        index = [lookup.get(t, fallback) for t in canonical(labels_series(block)).tags()]
        out = np.empty(len(index), dtype=object)
        out[:] = [listed[i] for i in index]
        if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in listed):
            return out.astype(np.int64)
        return out

    return map_labels(values, mapped)
