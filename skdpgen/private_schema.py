"""Private estimation of what a table's schema leaves out.

A fit needs a complete public schema (see :mod:`skdpgen.schema`): bounds of
numeric and datetime columns, categories of categorical columns, ``integer``
and ``missing`` flags, and the class list of the labels. Whatever the user's
schema leaves out is estimated here from the rows, with a share of the fit's
privacy budget, through Gaussian mechanisms made by
:class:`skdpgen.privacy.GaussianAccountant` (the only place noise is drawn)
and composed exactly with the fit's other releases. Nothing is read from the
rows without noise, so a fit's ``privacy_report_`` lists every estimation
release and its ``leaks`` stay empty. :meth:`SchemaPlan.read_from_data` is the
leaky alternative (exact values, each recorded as a leak).

**What is public.** The number of rows ``n``, the column names, the dtypes
(they decide each column's kind, see :func:`column_kind`), the user's schema
and whether the class list must be estimated. From these alone
:meth:`SchemaPlan.from_table` plans the releases, so the plan (names, counts,
sensitivities, budget shares) is data-independent.

**Releases.** Each estimated column makes one Gaussian release; categorical
columns and labels one partition selection (``GaussianAccountant.select``).
Replace-one L2 sensitivities (derived in :meth:`SchemaPlan.estimate`):

=========================  =============================================  ======
release (report name)      released vector, per column                    Δ
=========================  =============================================  ======
``schema: numeric``        histogram over the public numeric grid, the    √5
                           same over its fine grid, count of non-integer
                           values, count of missing
``schema: numeric flags``  count of non-integer values, count of missing  √2
                           (numeric columns whose bounds are public)
``schema: datetime``       histogram over the public yearly grid,         √2
                           count of missing
``schema: missing``        count of missing (bool columns)                1
``schema: categories``     counts of the values present and of missing    √2
                           (partition selection)
``schema: classes``        counts of the labels present                   √2
                           (partition selection)
=========================  =============================================  ======

**Grids.** Numeric values are binned on a fixed signed logarithmic grid
(:func:`numeric_grid`): an exact-zero bin, ``(0, 1e-6]``, 210 bins from
``1e-6`` to ``1e15`` with the edges ``m·10^d`` for the mantissas
``1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8`` (each bin spans a ratio of at most
4/3), and the mirror image for negative values: 423 bins. Values beyond
``±1e15`` fall in the outermost bins. The same release also counts the
values on the **fine grid**: every bin split into 256 equal sub-bins (a
value near 2,000, in the bin (2000, 2500], falls in a sub-bin two years
wide), since a ratio of 4/3 is far too coarse for values with a small
spread far from zero (years, dates as numbers, temperatures in kelvin).
Datetimes are binned by calendar year
of their wall time, 1900 to 2099 (:func:`time_grid`): 200 bins, with
earlier and later values in the first and last bin (a coarse grid: a
yearly count of a table spread over decades clears the noise where monthly
counts would not, and yearly bounds are public ranges enough).

**Bounds** (post-processing of the noisy histogram, with noise standard
deviation ``s`` per bin). A bin counts as occupied when its noisy count
exceeds ``z·s``, with ``z`` chosen so that, over all bins of the grid, an
empty bin is taken for an occupied one with probability at most 1e-4
(Bonferroni: ``z = Φ⁻¹(1 − 1e-4/n_bins)``, 5.0 for the numeric grid, 4.9 for
the time grid); a spurious bin would stretch the bounds to it, so the rate
is kept small. Bins whose noisy count exceeds ``2s`` and that touch an
occupied bin are occupied too, repeatedly (hysteresis thresholding): the
tails next to the bulk join it, while an empty bin next to the range joins
only w.p. 2.3 %, so the range grows by ``k`` spurious bins w.p. about
``0.023^k``. So do bins above ``3s`` one empty bin away from an occupied
one: values on a few points (percentages 4.5, 14.5, …) leave empty bins
between occupied ones, and an empty bin joins this way only w.p. 0.13 %.
Of the occupied mass, the lowest and the highest 0.5 % are cut
(the robust quantiles 0.5 % and 99.5 % of the noisy occupied counts: with
many rows an outlying occupied bin is cut, with few rows every occupied
bin counts): the bounds are the lower edge of the bin holding the 0.5 %
quantile and the upper edge of the bin holding the 99.5 % one, so they are
rounded outward to grid edges. Values too diffuse to occupy single bins are
looked for on a coarse level too, the same test on the noisy sums of groups
of bins (decades of the numeric grid, decades of years of the time grid:
noise ``s·sqrt(size)``, again at most 1e-4 false alarms per
level, without hysteresis: a whole decade joining the range on a 2s
fluctuation, as a neighbouring bin may, would stretch a numeric range
tenfold, or a range of dates two years long sixfold); the range
extends, level by level, to the occupied coarse groups that lie entirely
outside the range so far. Then, at each end, the runs of bins just
outside the range within the nearest group (the rest of the end's own
group, or the next group once the range reaches a group's edge), each
starting next to the range, are tested: a run of ``k`` bins passes when
its noisy sum exceeds ``4s·sqrt(k)`` (and 0.5 % of the range's mass), and
the passing run of largest ``sum/sqrt(k)`` joins, repeatedly: mass spread
thin over a few bins stops the bins' hysteresis (each bin joins on its
own w.p. well below 1, a chain of them rarely), and a group next to the
range can miss the coarse level's Bonferroni threshold, while their sums
clear ``4s`` (Bundesliga's validation split at ε = 1, 200 simulated
releases: the bounds of Round covered less than 95 % of its values in
37 % of them, those of Date in 28 %; with this step, then for the whole
part only, in 20 % and 15 %). The runs, not just the whole part, matter
where the mass next to the range ends inside the group: a normal column's
shoulder ``(1, 2]`` next to the range ``[-1, 1]`` that only its decades
showed, its decade ``(1, 10]`` too empty for the test as a whole (100
private estimates of N(0, 1) at n = 4,000 with three columns: a mean
coverage of 0.86 for the whole part, 0.94 for the runs); and the most
significant run stops where the mass does, not at the group's edge. An
empty part joins w.p. at most ``k·3e-5`` per end for ``k`` bins (in
20,000 simulated releases the range grew by two bins or more beyond a
bulk as often as with the whole part alone, 0.4 %, mostly the bins'
hysteresis; at ``3s`` the gains were larger, but a year column's range
widened to a whole extra bin of the logarithmic grid in about one fit in
400). Values outside the bounds are clipped by the encoder.
When nothing is
occupied at any level (too few rows for the budget), the bounds are the
first coarse level's group (decade, year) with the largest noisy sum: the column's whole
mass in one decade beats the largest noise of the empty ones (about
``3.5 s sqrt(10)`` for the numeric grid) long before it clears the
detection threshold, so a starved budget still gets the right order of
magnitude rather than the whole grid, when the values sit in one decade;
spread over several, each holds too little and the guess may miss them
entirely (a column of returns in [-13, 13] on 516 rows at ε = 1 came out
``[1e9, 1e10]``). Either way the estimate warns, naming the column
(:class:`SchemaEstimateWarning`). For an integer column (its flag,
from the same release) the bins that hold no integer are left out of
these tests, as if the grid had none of them: below 10 the grid is finer
than the integers (``(1, 1.25]`` and ``(1.25, 1.5]`` lie between 1 and
2), and those empty bins would cut the hysteresis off from the smallest
values (Bundesliga's rounds 1-4, ~250 rows each at ε = 1, were dropped
from the bounds). Integer columns have the integers
the range holds as their bounds (a range of the bins ``(0.8, 1] … (4, 5]``
gives ``[1, 5]``; one integer ``v`` gives ``[v, v + 1]``), other columns
a range of one value ``v`` (the exact-zero bin) as ``[v − 0.5, v + 0.5]``.

**Refinement on the fine grid** (numeric columns). Within the bins of the
range found so far, the sub-bins, and their groups of 16, are tested the
same way (a Bonferroni threshold over the sub-bins (groups) of the range,
hysteresis on the sub-bins, no cut). With ``[a, b]`` spanning the lowest
and the highest occupied sub-bin, stretched to the occupied groups that lie
entirely outside it (values too thin for a sub-bin; a group that overlaps
the sub-bins' span says nothing about where in it the values end: taking
its edges gave a year column 1995-2003 the range ``[1938, 2062]``, 14
times its span) or, with no sub-bin found, the occupied groups, the
lower bound becomes ``a − (b − a)/2`` (not below the range), unless that
lies above the range's first bin, and the upper bound ``b + (b − a)/2``
(not above the range), unless that lies below its last bin: an end bin is
cut, never dropped, except a lone weak one: an end bin below ``4s``
(it joined by hysteresis only) beside one above the detection threshold,
which ``[a, b]`` and its margin do not reach, is dropped first (an empty
bin beside the bulk joins so w.p. up to 2.3 % at each end, and then a year
column 1963-2008 came out ``[1500, 3000]``: in 5 % of simulated releases
at ``s = 80``, 0.45 % with the rule; a real thin tail is a chain of weak
bins, which stays). The result replaces the range only when it is at most
a quarter of its width: the refinement is for values packed into a small
part of their bins (years near 2000 in bins 500 wide), not for spread
values, whose sub-bins clear the noise here and there (a few isolated
sub-bins found, or none, tell nothing about where the values end). The
margin keeps tails that are real but too thin for a sub-bin to clear the
noise (at ε = 1 a sub-bin needs hundreds of rows).
Sub-bins add one count per record to the release (``Δ`` from ``√3`` to
``√5``), so the noise on the histogram is ``sqrt(5/3)`` times larger for
the same share: a year column 1995-2003 gets a range about twice its span
(``[1990, 2008]`` from exact counts) instead of ``[1500, 2500]``.

At ε = 1 for six estimated columns and n = 5,000 (``s ≈ 16`` for a
numeric column), a bin needs about 80 rows to be occupied on its own and
about 35 next to the bulk; the bounds of a log-normal column then cover
about 99 % of its values.

**Flags.** With ``m̃`` the noisy missing count and ``ñ = clip(n − m̃, 0, n)``
the estimated number of values present (``s`` the noise standard deviation
of a count), a column is ``"missing"`` when ``m̃ > z·s``, with
``z = max(4, Φ⁻¹(1 − 1e-4/d))`` for ``d`` estimated columns
(:func:`flag_stds`: 4 up to three columns, 4.66 for 64, 5.15 for 784):
a column without missing values is declared to have some with probability
at most 3e-5, and no column of a table with none at all with probability
1e-4 (union bound; a spurious missing flag adds an indicator to the
encoding, which an image's convolutional generator refuses), while
``z·s + 2s`` missing values are found w.p. 97.7 % (at ε = 1, n = 5,000 and
six estimated columns, ``s ≈ 16``, so 1-2 % of missing values). It is
``"integer"`` when the noisy count ``ũ`` of non-integer values satisfies
``ũ < min(ñ/2, max(0.01 ñ, z·s))``: an integer column is declared so with
probability ≥ 1 − 3e-5 (when ``ñ/2 > z·s``), a column with more than 1 %
(and ``z·s``) of non-integer values rarely, and never one with most values
fractional (rounding them would destroy them). Bool columns keep the categories
``[False, True]`` that their dtype fixes and estimate the missing flag
only; categorical columns decide it by partition selection (below).

**Categories and classes** (partition selection). The candidates are the
values present in the rows (and, for a column, missing as one more key).
A key is kept when its noisy count exceeds ``τ = 1 + s·Φ⁻¹(1 − δ_each)``
(``s = σ_i √2``; :func:`skdpgen.privacy.selection_threshold`, printed in
the report): a value held by a single record survives with probability
exactly ``δ_each``, the threshold's share of the fit's δ, and the
threshold adds ``ln(1/(1 − δ_each))`` to the fit's ε (see
:meth:`skdpgen.privacy.GaussianAccountant.select`). The kept values are the
categories (sorted by ``str``; in the dtype's order for an ordered pandas
``Categorical``); a kept missing key sets ``"missing"``. Whether *some*
value was dropped is not public (a neighbouring table may lack the rare
value), so it never decides anything. Instead, the mass of the dropped
values is estimated from released numbers only: ``r = n − Σ_kept ñ_k``
(noise standard deviation ``s·sqrt(n_kept)``). When ``r > 3 s sqrt(n_kept)``
(or nothing was kept) one public other category is added (label
``"other"``, ``"__other__"`` if ``"other"`` is kept) and the spec's
``"other"`` names it (with a :class:`SchemaEstimateWarning` when nothing
was kept or ``r`` is at least a twentieth of ``n``); otherwise ``"other"``
names the kept value with the largest noisy count, into which the few
rare values fold. Either way every value outside the categories (and a
missing value of a column without the ``missing`` flag) must be encoded as
the ``"other"`` category. Labels are
estimated the same way, except that missing labels are no candidates
(they count in ``r``): the class list gets the other label (``"other"``, or
for numeric labels ``-1``, or the smallest kept label minus one if ``-1`` is
kept) only when ``r`` is large, and the label that labels outside the list
map to is :attr:`SchemaPlan.class_other_` (see :func:`map_unlisted`).
Labels outside the list are thus rows of a known class, never an error.

**Budget shares.** :meth:`SchemaPlan.shares` gives an estimated class list
a quarter of the schema's share (the whole of it when no column is
estimated) and splits the rest equally over the estimated columns' releases,
which all get the same noise multiplier ``σ_i``.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import copy
import functools
import math
import warnings
from numbers import Number

import numpy as np
import pandas as pd
from scipy.special import ndtri
from sklearn.utils import check_array

from ._dask import is_dask_collection, meta
from .privacy import (
    GaussianAccountant,
    PrivacyReport,
    _outside_stacklevel,
    check_epsilon_delta,
    leak_ledger,
    record_leak,
)

__all__ = [
    "SchemaEstimateWarning",
    "SchemaPlan",
    "column_kind",
    "estimate_schema",
    "map_unlisted",
    "numeric_grid",
    "time_grid",
]

#: Report names of the estimation releases.
NUMERIC = "schema: numeric"
NUMERIC_FLAGS = "schema: numeric flags"
DATETIME = "schema: datetime"
MISSING = "schema: missing"
CATEGORIES = "schema: categories"
CLASSES = "schema: classes"
TYPES = "schema: text types"
TEXT = "schema: text"
RELEASE_ORDER = (NUMERIC, NUMERIC_FLAGS, DATETIME, MISSING, CATEGORIES, TYPES, TEXT, CLASSES)
SELECTIONS = (CATEGORIES, TEXT, CLASSES)

#: Replace-one L2 sensitivity of each Gaussian release (see SchemaPlan.estimate).
SENSITIVITY = {
    TYPES: math.sqrt(2.0),
    NUMERIC: math.sqrt(5.0),
    NUMERIC_FLAGS: math.sqrt(2.0),
    DATETIME: math.sqrt(3.0),
    MISSING: 1.0,
    CATEGORIES: math.sqrt(2.0),  # fixed by GaussianAccountant.select
    CLASSES: math.sqrt(2.0),
    TEXT: math.sqrt(2.0),  # as a selection; as numbers or dates, that structure's
}

QUANTILE = 0.005  # mass cut at each end of the occupied bins
FALSE_BIN_RATE = 1e-4  # family-wise rate of an empty bin (group) taken as occupied, per level
INTEGER_FRACTION = 0.01
#: Least threshold (in noise standard deviations) of the missing and integer flags.
FLAG_STDS = 4.0
#: Family-wise rate of a wrong flag over a table's estimated columns (union bound).
FALSE_FLAG_RATE = 1e-4
# A text column is numeric (dates) when at least this share of its present
# values (noisy counts) parse as numbers (dates).
TYPE_SHARE = 0.98
# Share of the schema budget of an estimated class list (with estimated columns).
CLASS_SHARE = 0.25
#: Noise standard deviations of the text-type tests (see :func:`_text_type`).
TYPE_STDS = 4.0
OTHER_STDS = 3.0
GROW_STDS = 2.0
#: A bin one empty bin away from the occupied ones joins above this many stds.
BRIDGE_STDS = 3.0
#: The rest of an end group, or the next group, joins the range above this many
#: stds of its sum (:func:`_extend_ends`).
GROUP_STDS = 4.0
#: Each numeric bin is also split into this many equal sub-bins (the fine grid).
FINE_BINS = 256
#: Sub-bins per group of the fine grid's coarse level.
FINE_GROUP = 16
#: A range refined on the fine grid is widened by this share of its width at each end.
FINE_MARGIN = 0.5
#: ... and replaces the range only when at most this share of its width.
FINE_SHRINK = 0.25

_MANTISSAS = ("1", "1.25", "1.5", "2", "2.5", "3", "4", "5", "6", "8")
_DECADES = range(-6, 15)  # edges 1e-6 … 8e14, then 1e15
_FIRST_YEAR, _END_YEAR = 1900, 2100
_N_YEARS = _END_YEAR - _FIRST_YEAR


# ---------------------------------------------------------------------------
# column kinds
# ---------------------------------------------------------------------------


def _parsed(column):
    """A text column read as numbers and as dates (NaN/NaT where it does not parse)."""
    import warnings

    numbers = pd.to_numeric(column, errors="coerce")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "could not infer format"
        dates = pd.to_datetime(column.where(numbers.isna()), errors="coerce", format="mixed")
    return numbers, dates


def column_kind(dtype):
    """The kind of a column, from its dtype alone.

    Parameters
    ----------
    dtype : numpy.dtype or pandas extension dtype

    Returns
    -------
    kind : {"numeric", "datetime", "bool", "categorical", "text"}
        Integer and float dtypes (NumPy or pandas nullable) are numeric;
        ``datetime64`` (naive or tz-aware) is datetime; ``bool`` and
        pandas ``"boolean"`` are bool; pandas ``Categorical`` is
        categorical; object and string dtypes are text, whose type (numbers,
        dates or categories, as read from a CSV file) is decided privately.

    Raises
    ------
    ValueError
        For complex, timedelta, period and interval dtypes, which no schema
        type describes (the message says so, as scikit-learn's checks
        expect, and how to convert the column).

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
        raise ValueError(
            f"Columns of dtype {dtype} are not supported (no schema type fits); convert "
            "durations to numbers, e.g. column.dt.total_seconds().")
    if isinstance(dtype, (pd.PeriodDtype, pd.IntervalDtype)):
        raise ValueError(
            f"Columns of dtype {dtype} are not supported (no schema type fits); convert "
            "periods to datetimes (column.dt.to_timestamp()) or intervals to numbers.")
    if pd.api.types.is_numeric_dtype(dtype):
        return "numeric"
    return "text"


# ---------------------------------------------------------------------------
# the public grids
# ---------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _numeric_grid():
    """(lower, upper, group, positive edges) of the 423 numeric bins, ascending."""
    edges = np.array([float(f"{m}e{d}") for d in _DECADES for m in _MANTISSAS] + [1e15])
    pos_lower = np.concatenate([[0.0], edges[:-1]])  # bin j: (lower, upper]
    pos_upper = edges.copy()
    n_groups = 1 + len(_DECADES)  # (0, 1e-6] and one group per decade
    pos_group = np.concatenate([[0], 1 + np.arange(edges.size - 1) // len(_MANTISSAS)])
    lower = np.concatenate([-pos_upper[::-1], [0.0], pos_lower]) + 0.0  # no -0.0
    upper = np.concatenate([-pos_lower[::-1], [0.0], pos_upper]) + 0.0
    group = np.concatenate([(n_groups - 1) - pos_group[::-1], [n_groups],
                            n_groups + 1 + pos_group])
    for a in (lower, upper, group, edges):
        a.flags.writeable = False
    return lower, upper, group, edges


def numeric_grid():
    """The public grid of numeric bins.

    Returns
    -------
    bins : ndarray of shape (423, 2)
        ``[lower, upper]`` of each bin, in ascending order: negative bins
        ``[−e_j, −e_{j−1})``, the exact-zero bin ``[0, 0]``, then positive
        bins ``(0, 1e-6]`` and ``(e_{j−1}, e_j]`` for the edges
        ``e = m·10^d`` (``m`` in 1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8;
        ``d`` from −6 to 14) and ``1e15``. Values beyond ``±1e15`` fall in
        the outermost bins. Data-independent.

    Examples
    --------
    >>> from skdpgen.private_schema import numeric_grid
    >>> bins = numeric_grid()
    >>> bins.shape
    (423, 2)
    >>> bins[211].tolist(), bins[212].tolist(), bins[-1].tolist()
    ([0.0, 0.0], [0.0, 1e-06], [800000000000000.0, 1000000000000000.0])
    """
    lower, upper, _, _ = _numeric_grid()
    return np.column_stack([lower, upper])


@functools.lru_cache(maxsize=1)
def _integer_bins():
    """Positions of the numeric bins that hold at least one integer (read-only).

    A positive bin ``(a, b]`` holds one when ``floor(b) > a``, a negative bin
    ``[−b, −a)`` likewise, and the exact-zero bin holds 0. Below 10 the grid
    is finer than the integers: ``(1, 1.25]``, ``(1.25, 1.5]``, ``(2, 2.5]``,
    … hold none.
    """
    lower, upper, _, _ = _numeric_grid()
    near, far = np.minimum(np.abs(lower), np.abs(upper)), np.maximum(np.abs(lower), np.abs(upper))
    keep = np.floor(far) > near
    keep[far == 0] = True  # the exact-zero bin
    out = np.flatnonzero(keep)
    out.flags.writeable = False
    return out


def _numeric_positions(x):
    """Grid position of each non-NaN value (±inf in the outermost bins)."""
    _, _, _, edges = _numeric_grid()
    n_side = edges.size  # bins per side: (0, 1e-6] and edges.size - 1 more
    j = np.minimum(np.searchsorted(edges, np.abs(x), side="left"), n_side - 1)
    return np.where(x > 0, n_side + 1 + j, np.where(x < 0, n_side - 1 - j, n_side))


def _fine_positions(x, coarse):
    """Fine-grid position of each non-NaN value, given its numeric bin ``coarse``."""
    lower, upper, _, _ = _numeric_grid()
    width = upper[coarse] - lower[coarse]
    with np.errstate(invalid="ignore", divide="ignore"):  # the exact-zero bin: width 0
        frac = np.where(width > 0, (x - lower[coarse]) / np.where(width > 0, width, 1.0), 0.0)
    sub = np.clip(np.floor(frac * FINE_BINS), 0, FINE_BINS - 1).astype(np.intp)
    return coarse * FINE_BINS + sub


def _fine_edges(position):
    """Lower and upper edge of fine bin ``position``."""
    lower, upper, _, _ = _numeric_grid()
    coarse, sub = divmod(int(position), FINE_BINS)
    width = upper[coarse] - lower[coarse]
    return (float(lower[coarse] + width * sub / FINE_BINS),
            float(lower[coarse] + width * (sub + 1) / FINE_BINS))


def _refined_range(fine, coarse, first, last, s, integer):
    """The range ``first..last`` of numeric bins, its end bins cut on the fine grid.

    ``fine`` is the noisy fine histogram and ``coarse`` the noisy numeric
    histogram (noise std ``s`` per sub-bin and per bin). In the sub-bins of
    the range, and in their groups of ``FINE_GROUP``, the occupied ones are
    found as the numeric bins are (a Bonferroni threshold over the range,
    hysteresis on the sub-bins, no cut); the lowest and the highest
    occupied sub-bin, stretched to the occupied groups entirely outside
    them (or the groups alone when no sub-bin is occupied), widened by
    ``FINE_MARGIN`` times their distance at each end, bound the range
    where they fall inside its first and last bin (or beyond them): an end
    bin is cut, never dropped, unless it is a lone weak end bin
    (:func:`_lone_weak_end`) that they do not reach. The refined range
    replaces the range only when it is at most ``FINE_SHRINK`` of its width.

    Returns
    -------
    lo, hi : float
        The refined range (the bins' edges where nothing was found).
    """
    lower, upper, _, _ = _numeric_grid()
    part = fine[first * FINE_BINS:(last + 1) * FINE_BINS]
    found = None
    for size in (1, FINE_GROUP):  # hysteresis on the sub-bins only, as on the bins
        sums = part.reshape(-1, size).sum(axis=1)
        level = _trimmed_range(sums, np.full(sums.size, float(size)), s, grow=size == 1,
                               quantile=0.0)
        if level is None:
            continue
        low, high = level[0] * size, (level[1] + 1) * size - 1  # in sub-bins
        if found is None:
            found = low, high
        else:  # a group extends the sub-bins' range only when entirely outside it
            found = (low if low + size - 1 < found[0] else found[0],
                     high if high - size + 1 > found[1] else found[1])
    lo, hi = float(lower[first]), float(upper[last])
    if found is None:
        return lo, hi
    found_lo = _fine_edges(first * FINE_BINS + found[0])[0]
    found_hi = _fine_edges(first * FINE_BINS + found[1])[1]
    margin = FINE_MARGIN * (found_hi - found_lo)  # the tails too thin to be found
    new_lo, new_hi = found_lo - margin, found_hi + margin
    # an end bin is cut, never dropped: it holds values; except a lone weak end
    # bin out of reach, an empty bin that joined on a fluctuation far more often
    bins = _integer_bins() if integer else np.arange(coarse.size)
    if new_lo > upper[first]:
        first = _lone_weak_end(coarse, bins, first, last, s, 1)
    if new_hi < lower[last]:
        last = _lone_weak_end(coarse, bins, last, first, s, -1)
    new_lo = float(lower[first]) if new_lo > upper[first] else max(float(lower[first]), new_lo)
    new_hi = float(upper[last]) if new_hi < lower[last] else min(float(upper[last]), new_hi)
    if new_hi - new_lo > FINE_SHRINK * (hi - lo):  # no big gain: lone sub-bins, not a range
        return lo, hi
    return new_lo, new_hi


def _lone_weak_end(coarse, bins, end, other, s, step):
    """End bin ``end`` of a range, or its inner neighbour when it is a lone weak end.

    A lone weak end bin is at most ``GROUP_STDS·s`` (4 s: above that
    :func:`_extend_ends` would take it as mass; an empty bin gets there
    w.p. 3e-5), below the detection threshold of the numeric grid's bins
    (``z·s``, the Bonferroni ``z`` of :func:`_trimmed_range` over ``bins``,
    the bins the range was found on), so it joined the range only by
    hysteresis, while its inner neighbour in ``bins`` is above ``z·s``.
    An empty bin next to the bulk joins so w.p. up to 2.3 % at each end; a
    real tail beyond the fine grid's margin is rarely a single bin so weak
    next to a strong one (a thin tail is a chain of weak bins, which stays).
    :func:`_refined_range` drops such a bin when nothing found on the fine
    grid reaches it: a year column's ``(2500, 3000]`` or ``(1250, 1500]``
    beside its bins made ranges 1,000 years or more wide in 33 of 600
    estimates of Bundesliga's validation split at ε = 1 (default share),
    2 and 5 of 600 in two runs with the rule. A dropped bin's values, if
    any, are clipped to the new bound.

    Parameters
    ----------
    coarse : ndarray
        The noisy numeric histogram (noise std ``s`` per bin).
    bins : ndarray of int
        The bins the range was found on, ascending.
    end, other : int
        The end bin looked at and the range's other end bin.
    s : float
    step : {1, -1}
        The direction from ``end`` into the range.

    Returns
    -------
    end : int
        The inner neighbour in ``bins`` when ``end`` is a lone weak end,
        else ``end``.
    """
    z = _bonferroni_z(bins.size)
    k = int(np.searchsorted(bins, end))
    if k >= bins.size or bins[k] != end or not 0 <= k + step < bins.size:
        return end
    inner = int(bins[k + step])
    if (inner - other) * step > 0 or coarse[end] > GROUP_STDS * s or coarse[inner] <= z * s:
        return end
    return inner


class SchemaEstimateWarning(UserWarning):
    """A column's private schema estimate is weak at this budget.

    Issued by :meth:`SchemaPlan.estimate` (so by every fit that estimates
    its schema) when the noise of a column's estimation release hides what
    it looks for: no range of a numeric or datetime column's histogram
    stands out from the noise (its bounds are then a guess, see the module
    doc); a twentieth or more of a numeric or datetime column's rows lie
    outside the bounds found; a categorical column (or the class list)
    keeps no value, or sends a twentieth of its rows or more to its public
    ``"other"`` category. Shares are estimated from the released counts and
    warned of only beyond three standard deviations of their noise. Nothing
    private is in the message: it is post-processing of the noisy releases
    and of the public ``n``. The remedy is the user's: declare the column
    in ``schema`` (the labels in ``classes``), or give the estimate more
    budget (``epsilon``, ``schema_share``).

    Examples
    --------
    >>> import warnings
    >>> import numpy as np, pandas as pd
    >>> from skdpgen.private_schema import SchemaEstimateWarning, estimate_schema
    >>> X = pd.DataFrame({"x": np.random.default_rng(0).normal(size=100)})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     schema, _, _ = estimate_schema(X, epsilon=0.1)
    >>> any(issubclass(w.category, SchemaEstimateWarning) for w in caught)
    True
    """


#: Share of a column's rows (estimated from the released counts) above which
#: values sent to "other", or clipped by the bounds, are warned of (when the
#: estimate also exceeds WARN_STDS of its noise).
WARN_SHARE = 0.05
WARN_STDS = 3.0


def _warn_guess(key, what, n, s):
    """:class:`SchemaEstimateWarning` for bounds guessed from the heaviest group."""
    warnings.warn(
        f"Column {key!r}: no range of its values stands out from the noise of its "
        f"private bounds estimate ({n} rows, noise {s:.3g} rows per bin), so {what} are "
        "a guess and may miss the values entirely. Declare its bounds in the schema, "
        "or raise epsilon or schema_share.", SchemaEstimateWarning,
        stacklevel=_outside_stacklevel())


def _warn_outside(key, bounds, inside, noisy_missing, n, s):
    """:class:`SchemaEstimateWarning` when the released counts put many values outside.

    ``inside`` are the noisy counts of the bins of the range found on the
    grid (before the fine grid's refinement, whose margin is meant to keep
    what it cuts); the values outside are estimated as ``n − m̃ − Σ inside``
    (noise standard deviation ``s·sqrt(len(inside) + 1)``).
    """
    outside = float(n - noisy_missing - np.sum(inside))
    if outside < max(WARN_STDS * s * math.sqrt(np.size(inside) + 1), WARN_SHARE * n):
        return
    warnings.warn(
        f"Column {key!r}: about {outside / n:.0%} of its rows (estimated from the released "
        f"counts) hold values outside its private bounds {bounds}, which clip them: their "
        "bins were too thin to clear the noise of the estimate. Declare its bounds in the "
        "schema, or raise epsilon or schema_share.", SchemaEstimateWarning,
        stacklevel=_outside_stacklevel())


def _warn_other(subject, kept, other, residual, n):
    """:class:`SchemaEstimateWarning` for a selection losing rows to "other".

    ``subject`` names what was selected (``"Column 'c'"``, ``"The class
    list"``); ``residual`` is the released estimate of the rows outside
    ``kept``, ``n − Σ_kept ñ_k``.
    """
    if kept and residual < WARN_SHARE * n:
        return
    what = (f"keeps none of its values: every value becomes {other!r}" if not kept else
            f"keeps {len(kept)} values; about {residual / n:.0%} of its rows (estimated "
            f"from the released counts) hold other values and become {other!r}")
    declare = "its categories in the schema" if subject.startswith("Column") else "classes="
    warnings.warn(
        f"{subject}: its private category selection {what} (values held by fewer "
        f"rows than the selection threshold in the privacy report are dropped). Declare "
        f"{declare}, or raise epsilon or schema_share.", SchemaEstimateWarning,
        stacklevel=_outside_stacklevel())


def _year_label(k):
    return f"{_FIRST_YEAR + k:04d}-01-01"


def time_grid():
    """The public grid of datetime bins: calendar years 1900–2099.

    Returns
    -------
    edges : list of str
        The 201 year starts ``"1900-01-01"`` … ``"2100-01-01"``; bin
        ``k`` runs from ``edges[k]`` to ``edges[k + 1]``. Datetimes are
        binned by their wall time (in their own time zone when tz-aware);
        earlier and later ones fall in the first and last bin.

    Examples
    --------
    >>> from skdpgen.private_schema import time_grid
    >>> edges = time_grid()
    >>> len(edges), edges[0], edges[13], edges[-1]
    (201, '1900-01-01', '1913-01-01', '2100-01-01')
    """
    return [_year_label(k) for k in range(_N_YEARS + 1)]


def _wall_times(column):
    """A datetime column as naive wall times (tz-aware ones in their own zone)."""
    column = pd.Series(column)
    if isinstance(column.dtype, pd.DatetimeTZDtype):
        column = column.dt.tz_localize(None)
    return column


def _year_positions(column):
    """Year index since 1900 of each non-missing datetime, clipped."""
    wall = _wall_times(column).dropna().to_numpy()  # naive datetime64, any unit
    years = wall.astype("datetime64[Y]").astype(np.int64)  # since 1970
    return np.clip(years + (1970 - _FIRST_YEAR), 0, _N_YEARS - 1)


# ---------------------------------------------------------------------------
# post-processing of noisy releases
# ---------------------------------------------------------------------------


@functools.lru_cache(maxsize=16)
def _bonferroni_z(n_ids):
    """``Φ⁻¹(1 − FALSE_BIN_RATE / n_ids)``."""
    return float(-ndtri(FALSE_BIN_RATE / n_ids))


def _trimmed_range(sums, sizes, s, grow, quantile=QUANTILE):
    """First and last occupied id after the robust cut, or None (see module doc)."""
    n_ids = sums.size
    z = _bonferroni_z(n_ids)
    noise = s * np.sqrt(sizes)
    occupied = sums > z * noise
    if not occupied.any():
        return None
    weak = sums > GROW_STDS * noise  # hysteresis: weak bins next to occupied ones join
    bridge = sums > BRIDGE_STDS * noise  # ... and stronger ones across one empty bin
    while grow:
        near = np.r_[False, occupied[:-1]] | np.r_[occupied[1:], False]
        across = np.r_[False, False, occupied[:-2]] | np.r_[occupied[2:], False, False]
        grown = occupied | (weak & near) | (bridge & across)
        if np.array_equal(grown, occupied):
            break
        occupied = grown
    mass = np.where(occupied, sums, 0.0)
    cut = quantile * mass.sum()
    first = int(np.argmax(np.cumsum(mass) > cut))
    last = n_ids - 1 - int(np.argmax(np.cumsum(mass[::-1]) > cut))
    return first, last


def _occupied_range(noisy, levels, s, guess=True):
    """First and last bin of the robust occupied range (see module doc).

    ``noisy`` are the noisy bin counts (noise std ``s`` each); ``levels`` a
    list of coarse levels, finest first, each a non-decreasing group id per
    bin. The fine range (with hysteresis) is extended, level by level, to
    the coarse groups found occupied (without) entirely outside it (values
    too diffuse for single bins), then over significant mass just outside
    its ends (:func:`_extend_ends`); with nothing occupied at any level, the
    range is the group of largest noisy sum of the first coarse level (a
    guess; None instead when ``guess`` is false).
    """
    found = _trimmed_range(noisy, np.ones(noisy.size), s, grow=True)
    for groups in levels:
        groups = np.asarray(groups)
        n_groups = int(groups[-1]) + 1
        sums = np.bincount(groups, weights=noisy, minlength=n_groups)
        coarse = _trimmed_range(sums, np.bincount(groups, minlength=n_groups), s,
                                grow=False)
        if coarse is not None:
            in_first = np.flatnonzero(groups == coarse[0])
            in_last = np.flatnonzero(groups == coarse[1])
            if found is None:
                found = int(in_first[0]), int(in_last[-1])
            else:  # groups entirely outside the range
                first, last = found
                if in_first[-1] < first:
                    first = int(in_first[0])
                if in_last[0] > last:
                    last = int(in_last[-1])
                found = first, last
        if found is not None:
            found = _extend_ends(noisy, groups, *found, s)
    if found is None and guess:  # nothing detected: the heaviest group of the first level
        groups = np.asarray(levels[0])
        heaviest = int(np.argmax(np.bincount(groups, weights=noisy)))
        in_it = np.flatnonzero(groups == heaviest)
        found = int(in_it[0]), int(in_it[-1])
    return found


def _extend_ends(noisy, groups, first, last, s):
    """The range ``first..last`` grown, group by group, over significant mass
    just outside it (hysteresis on the coarse level, at ``GROUP_STDS``).

    Outside each end, in the nearest group (the rest of the end's own
    group, or the whole next group once the range reaches the group's
    edge), a run of the ``k`` bins next to the range, of noisy sum ``r``,
    passes when ``r > GROUP_STDS·s·sqrt(k)`` and ``r`` exceeds
    ``QUANTILE`` of the range's noisy mass; the passing run of largest
    ``r/sqrt(k)`` (the most significant) joins; repeated while one joins.
    The bins' hysteresis stops inside mass spread thin over several bins
    (Bundesliga's rounds 2-5, ~240 rows in each of four bins at
    ``s ≈ 84``: each bin clears ``2s`` w.p. ~0.8, all four w.p. ~0.5), and
    the coarse test, at its Bonferroni threshold, can miss a group next to
    the range (the 1960s of the same table, 1,125 rows against a threshold
    of 4.4 noise standard deviations, in 14 % of draws); their sums clear
    ``4s`` in most draws. Runs shorter than the part find mass that ends
    inside it (a normal column's shoulder next to a range that only its
    decades showed), and the most significant run stops where the mass
    does. An empty part joins only w.p. at most ``k·3e-5`` per end and
    level for ``k`` bins. Post-processing of the same noisy histogram.
    """
    mass = float(np.clip(noisy[first:last + 1], 0.0, None).sum())
    index = np.arange(noisy.size)

    def joined(part):
        """The bins of ``part`` (nearest the range first) that join, or None."""
        sums = np.cumsum(noisy[part])
        root = np.sqrt(np.arange(1, part.size + 1))
        ok = (sums > GROUP_STDS * s * root) & (sums > QUANTILE * mass)
        if not ok.any():
            return None
        return part[:int(np.argmax(np.where(ok, sums / root, -np.inf))) + 1]

    while first > 0:
        part = joined(index[:first][groups[:first] == groups[first - 1]][::-1])
        if part is None:
            break
        first = int(part[-1])
    while last < noisy.size - 1:
        part = joined(index[last + 1:][groups[last + 1:] == groups[last + 1]])
        if part is None:
            break
        last = int(part[-1])
    return first, last


def _numeric_range(noisy, s, integer, guess=True):
    """First and last bin of the numeric grid's occupied range (:func:`_occupied_range`).

    An integer column leaves out the bins that hold no integer
    (:func:`_integer_bins`): they are empty by construction, and would cut
    the hysteresis off between 1, 2, 3, … (see the module doc). None when
    nothing is detected and ``guess`` is false.
    """
    _, _, groups, _ = _numeric_grid()
    bins = _integer_bins() if integer else np.arange(groups.size)
    found = _occupied_range(noisy[bins], [groups[bins]], s, guess=guess)
    if found is None:
        return None
    return int(bins[found[0]]), int(bins[found[1]])


def flag_stds(n_columns):
    """Threshold of the missing and integer flags, in noise standard deviations.

    ``max(4, Φ⁻¹(1 − 1e-4 / n_columns))``: the union bound keeps the chance
    that any of ``n_columns`` flags is wrong (a missing flag on a column
    without missing values, an integer column declared fractional) at most
    1e-4 per table, so wide tables (an image's hundreds of pixels) do not
    gain spurious flags; up to three columns it is 4 (3e-5 per column).
    Depends on the public number of estimated columns only.

    Examples
    --------
    >>> from skdpgen.private_schema import flag_stds
    >>> flag_stds(1), round(flag_stds(784), 2)
    (4.0, 5.15)
    """
    return max(FLAG_STDS, float(-ndtri(FALSE_FLAG_RATE / max(int(n_columns), 1))))


def _flags(noisy_nonint, noisy_missing, n, s, z=FLAG_STDS):
    """(integer, missing) from the noisy counts, threshold ``z·s`` (see the module doc)."""
    present = min(max(n - noisy_missing, 0.0), float(n))
    missing = bool(noisy_missing > z * s)
    integer = None
    if noisy_nonint is not None:
        limit = min(0.5 * present, max(INTEGER_FRACTION * present, z * s))
        integer = bool(noisy_nonint < limit)
    return integer, missing


def _text_type(noisy, s):
    """A text column's type from its noisy type counts (see :meth:`SchemaPlan.estimate`).

    ``noisy`` holds the noisy counts of values parsing as numbers, as dates,
    other values and missing, each with noise standard deviation ``s``. Type
    ``t`` (numbers first) wins when its count ``ñ_t`` makes ``TYPE_SHARE`` of
    the noisy present values ``p̃ = ñ_0 + ñ_1 + ñ_2`` and a majority of them:
    ``ñ_t − TYPE_SHARE·p̃ ≥ −TYPE_STDS·s_share`` and ``ñ_t − p̃/2 ≥
    TYPE_STDS·s_major``, where ``s_share = s·sqrt((1 − q)² + 2q²)`` (``q =
    TYPE_SHARE``) and ``s_major = s·sqrt(1/4 + 2/4)`` are the noise standard
    deviations of the two statistics (``p̃`` holds ``ñ_t`` and two other
    noisy counts). So a column whose present values all parse as type ``t``
    fails the share test w.p. at most ``Φ(−TYPE_STDS) ≈ 3e-5``, whatever
    ``n``; the majority test keeps a mostly-text column categorical when the
    noise is large next to the row count. A negative ``p̃`` (a column with
    hardly any values) counts as 0, which only makes both tests stricter.
    """
    q = TYPE_SHARE
    present = max(float(noisy[0] + noisy[1] + noisy[2]), 0.0)
    s_share = s * math.sqrt((1.0 - q) ** 2 + 2.0 * q * q)
    s_major = s * math.sqrt(0.75)

    def wins(t):
        return (noisy[t] - q * present >= -TYPE_STDS * s_share
                and noisy[t] - 0.5 * present >= TYPE_STDS * s_major)

    if wins(0) and noisy[0] >= noisy[1]:
        return "numeric"
    if wins(1):
        return "datetime"
    return "categorical"


def _finish_bounds(lo, hi, integer):
    """The bounds ``[lo, hi]`` of an estimated range, as the schema states them.

    An integer column gets the integers the range holds, ``ceil(lo)`` to
    ``floor(hi)``, less an end integer that lies on an open edge of the
    range (the range of the bins ``(3, 4] … (8, 10]`` holds 4 to 10, not 3,
    which its bin ``(2.5, 3]`` holds; rounding outward gave a column of
    ratings 1-5, bins ``(0.8, 1] … (4, 5]``, the bounds ``[0, 5]`` and a
    level 0 the data never has); a range of one integer ``v`` becomes
    ``[v, v + 1]``. A range of one value of a column of other values
    becomes ``[v − 0.5, v + 0.5]``, and a range holding no integer is
    rounded outward.
    """
    if integer:
        lower, upper, _, _ = _numeric_grid()
        a, b = math.ceil(lo), math.floor(hi)
        if a == lo:  # an integer lower edge is open when it closes the bin below it
            p = _numeric_positions(np.array([float(a)]))[0]
            a += int(lower[p] < a == upper[p])
        if b == hi:  # an integer upper edge is open when it opens the bin above it
            q = _numeric_positions(np.array([float(b)]))[0]
            b -= int(lower[q] == b < upper[q])
        if a <= b:
            return [float(a), float(max(b, a + 1))]
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    if integer:
        lo, hi = math.floor(lo), math.ceil(hi)
    return [float(lo), float(hi)]


def _other_label(kept, numeric):
    if numeric:
        return -1 if -1 not in kept else min(kept) - 1
    label = "other"
    while label in kept:
        label = f"__{label}__"
    return label


def _python(value):
    return value.item() if isinstance(value, np.generic) else value


def _str_sorted(values):
    return sorted(values, key=lambda v: (str(v), type(v).__name__))


def _natural_sorted(values):
    try:
        return sorted(values)
    except TypeError:
        return _str_sorted(values)


def map_unlisted(values, listed, other):
    """Map every value not in ``listed`` (missing ones included) to ``other``.

    What an estimated categorical column (its spec's ``"other"``) or
    estimated class list (:attr:`SchemaPlan.class_other_`) asks of the
    rows: rare values that did not survive the partition selection become
    the public other category. A deterministic function of each value and of
    public lists, so it keeps neighbouring tables neighbouring.

    Parameters
    ----------
    values : array-like of shape (n,)
    listed : sequence
        The public categories or classes.
    other : object
        Their other label (a member of ``listed``).

    Returns
    -------
    mapped : ndarray of object of shape (n,)

    Examples
    --------
    >>> from skdpgen.private_schema import map_unlisted
    >>> map_unlisted(["a", "b", "zz", None], ["a", "b", "other"], "other").tolist()
    ['a', 'b', 'other', 'other']
    """
    original = np.asarray(values)
    values = pd.Series(original.astype(object))
    known = pd.Index(list(listed), dtype=object).get_indexer(values) >= 0
    mapped = np.where(known & values.notna().to_numpy(), values.to_numpy(), other)
    if original.dtype.kind in "iuf" and isinstance(other, Number) and not isinstance(other, bool):
        return mapped.astype(original.dtype)  # numeric labels stay numeric
    return mapped


# ---------------------------------------------------------------------------
# the plan
# ---------------------------------------------------------------------------


def _as_frame(X):
    if isinstance(X, pd.DataFrame):
        return X
    # arrays are numeric tables (as TableEncoder reads them); NaN is a missing
    # value, infinity an error; text and mixed columns come as DataFrames
    arr = check_array(X, dtype="numeric", ensure_all_finite="allow-nan", ensure_min_samples=1)
    return pd.DataFrame(arr)


def _check_bounds(bounds):
    if bounds is None:
        return None
    lo, hi = (float(b) for b in bounds)
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi and math.isfinite(hi - lo)):
        raise ValueError(f"bounds must be finite with lo < hi, got {bounds!r}.")
    return [lo, hi]


class SchemaPlan:
    """What a table's schema leaves out, and the releases that estimate it.

    Build it with :meth:`from_table`, from public facts only: the column
    names and dtypes, the user's schema, public ``bounds`` and ``classes``.
    The plan fixes the estimation releases (:meth:`shares`,
    :meth:`selections`) before any row is read; :meth:`estimate` then makes
    them through a :class:`~skdpgen.privacy.GaussianAccountant` planned with
    them, and :meth:`read_from_data` is the leaky alternative. See the
    module docstring for the mechanisms.

    Parameters
    ----------
    columns : list
        Column keys in table order.
    kinds : list of str
        The kind of each column (:func:`column_kind`).
    schema : dict
        The user's (public) column specs; columns absent from it are
        estimated.
    bounds : list of (float, float) or None
        Public bounds for every numeric column the schema leaves out (their
        ``integer`` and ``missing`` flags are still estimated).
    classes : list or None
        The public class list, if given.
    estimate_classes : bool
        Whether the class list is estimated (labels given, ``classes``
        not).
    frame_input : bool
        Whether the table is a DataFrame (else a 2-D array).
    timezones : dict
        ``column -> time zone name or None`` of the datetime columns.
    ordered : dict
        ``column -> bool``: whether a categorical column has an ordered
        pandas ``Categorical`` dtype (its categories are then kept in the
        dtype's order).

    Attributes
    ----------
    estimated : dict
        ``column -> kind`` of the columns to estimate, in table order.
    class_other_ : object
        After :meth:`estimate` or :meth:`read_from_data` with estimated
        classes: the label that labels outside the class list map to (see
        :func:`map_unlisted`); None otherwise.
    noisy_ : dict
        After :meth:`estimate`: the released noisy vector of each column
        (and of ``"classes"``), for inspection.

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
    {'schema: numeric': 0.15, 'schema: classes': 0.05}
    >>> plan.selections()
    ['schema: classes']
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
        self.estimated = {c: k for c, k in zip(self.columns, self.kinds) if c not in self.schema}
        self.class_other_ = None
        self.noisy_ = {}

    # -- building ------------------------------------------------------------
    @classmethod
    def from_table(cls, X, y=None, *, schema=None, bounds=None, classes=None):
        """Plan from the public facts of a table.

        Reads the column names and dtypes of ``X`` (never a value), the
        user's ``schema``, and whether labels ``y`` are given.

        Parameters
        ----------
        X : DataFrame, 2-D array or Dask DataFrame
            Only its columns and dtypes are read (for a Dask DataFrame, those
            of its meta).
        y : array-like of shape (n,), default=None
            Labels; only whether they are given is read.
        schema : dict, default=None
            Public column specs (format of :mod:`skdpgen.schema`).
        bounds : tuple of (float, float), default=None
            Public bounds for every numeric column the schema leaves out.
        classes : array-like, default=None
            The public class list. None with ``y`` given: it is estimated.

        Returns
        -------
        plan : SchemaPlan
        """
        schema = dict(schema or {})
        if is_dask_collection(X):  # columns and dtypes only (the meta)
            frame = (meta(X) if hasattr(X, "columns")
                     else pd.DataFrame(np.empty((0, X.shape[1]), dtype=X.dtype)))
        else:
            frame = _as_frame(X)
        columns = list(frame.columns)
        if not columns:
            raise ValueError("X has no columns.")
        unknown = set(schema) - set(columns)
        if unknown:
            raise ValueError(
                f"The schema names columns that X lacks: {sorted(map(str, unknown))}.")
        dtypes = [frame[c].dtype for c in columns]
        kinds = [column_kind(d) for d in dtypes]
        timezones = {c: (str(d.tz) if isinstance(d, pd.DatetimeTZDtype) else None)
                     for c, d, k in zip(columns, dtypes, kinds) if k == "datetime"}
        ordered = {c: bool(isinstance(d, pd.CategoricalDtype) and d.ordered)
                   for c, d, k in zip(columns, dtypes, kinds) if k == "categorical"}
        return cls(columns, kinds, schema, bounds, classes,
                   estimate_classes=y is not None and classes is None,
                   frame_input=isinstance(X, pd.DataFrame) or is_dask_collection(X),
                   timezones=timezones, ordered=ordered)

    # -- the plan --------------------------------------------------------------
    def _release_of(self, kind):
        if kind == "numeric":
            return NUMERIC if self.bounds is None else NUMERIC_FLAGS
        return {"datetime": DATETIME, "bool": MISSING, "categorical": CATEGORIES,
                "text": TEXT}[kind]

    def release_counts(self):
        """``name -> number of releases`` of the plan (names in a fixed order).

        Returns
        -------
        counts : dict
            Empty when the schema is complete (nothing is spent).
        """
        counts = dict.fromkeys(RELEASE_ORDER, 0)
        for kind in self.estimated.values():
            counts[self._release_of(kind)] += 1
            counts[TYPES] += kind == "text"  # its type first, then its values
        counts[CLASSES] = int(self.estimate_classes)
        return {name: c for name, c in counts.items() if c}

    def shares(self, schema_share=1.0):
        """Budget shares of the estimation releases.

        ``schema_share`` is split equally over the estimation releases
        (each gets ``schema_share / k``, ``k`` releases in all, so all have
        the same noise multiplier), except that an estimated class list
        gets ``CLASS_SHARE`` (a quarter) of ``schema_share`` when columns
        are estimated too, and the columns split the rest: a class that
        does not survive its selection fails the fit (or merges into the
        other label), while a noisier bound only blurs its column, and on a
        wide table an equal split would leave the labels a vanishing share. Pass
        the result, merged with the fit's other shares, to
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
        columns = {name: c for name, c in counts.items() if name != CLASSES}
        if CLASSES not in counts or not columns:
            total = sum(counts.values())
            return {name: (schema_share * c / total, c) for name, c in counts.items()}
        # a lost class fails the fit, an imprecise bound only blurs a column:
        # the class list keeps CLASS_SHARE however wide the table
        total = sum(columns.values())
        rest = schema_share * (1.0 - CLASS_SHARE)
        shares = {name: (rest * c / total, c) for name, c in columns.items()}
        shares[CLASSES] = (schema_share * CLASS_SHARE, 1)
        return {name: shares[name] for name in counts}

    def selections(self):
        """The names among :meth:`shares` that are partition selections.

        Returns
        -------
        names : list of str
            Give them to the accountant's ``selections=``: their thresholds
            spend δ (by default half of the fit's δ, split equally).
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
    def _rows(self, X, y):
        if is_dask_collection(X):
            # only the columns to estimate are brought to the client
            needed = [c for c in self.columns if c not in self.schema]
            if hasattr(X, "columns"):
                part = X[needed].compute()
            else:
                part = pd.DataFrame(np.asarray(X[:, needed].compute()), columns=needed)
            frame = part.reindex(columns=self.columns)  # declared columns: never read
            if is_dask_collection(y):
                y = y.compute()
        else:
            needed = self.columns
            frame = _as_frame(X)
        if list(frame.columns) != self.columns:
            raise ValueError(f"X has columns {list(frame.columns)}; the plan has {self.columns}.")
        changed = [c for c, p in zip(self.columns, self.kinds)
                   if c in needed and column_kind(frame[c].dtype) != p]
        if changed:
            raise ValueError(f"The kinds of columns {changed} differ from the plan's.")
        if self.estimate_classes:
            if y is None:
                raise ValueError("The plan estimates the class list: pass the labels y.")
            y = pd.Series(np.asarray(y).ravel() if not isinstance(y, pd.Series) else y.to_numpy())
            if len(y) != len(frame):
                raise ValueError(f"y has {len(y)} labels for {len(frame)} rows.")
        return frame, y

    def estimate(self, X, y, accountant):
        """Estimate what the schema leaves out, privately.

        Every release is made through ``accountant`` (``add_noise`` and
        ``select``), which must have been planned with :meth:`shares` and
        :meth:`selections`; no noise is drawn here. With an empty plan
        nothing is read or released (``accountant`` may be None).

        Parameters
        ----------
        X : DataFrame or 2-D array
            The private table (same columns and kinds as planned).
        y : array-like of shape (n,) or None
            The private labels (needed when the classes are estimated).
        accountant : GaussianAccountant
            Planned with this plan's shares and selections.

        Returns
        -------
        schema : dict
            The complete schema, in column order: the user's specs untouched,
            estimated specs added (format of :mod:`skdpgen.schema`).
        classes : list or None
            The public classes, the estimated ones, or None without labels.

        Notes
        -----
        **Sensitivities** (replace-one: one record is replaced by any other,
        ``n`` stays the same and is public). Each record adds a 0/1 vector
        ``c(x)`` to the released statistic, so ``Δ = max ‖c(x) − c(x')‖₂``.

        * ``schema: numeric``, ``[histogram, fine histogram, non-integer
          count, missing count]``: a present integer value sets one bin and
          one sub-bin (inside that bin); a present non-integer value one
          bin, one sub-bin and the non-integer count; a missing value the
          missing count only. The farthest two records are a non-integer
          value and an integer value in another bin (two bins, two sub-bins
          and the non-integer count change by 1: ``√5``); a non-integer
          value against a missing one changes four counts (``2``):
          ``Δ = √5``, attained.
        * ``schema: numeric flags``, ``[non-integer count, missing count]``:
          a non-integer value against a missing one changes both:
          ``Δ = √2``.
        * ``schema: datetime``, ``[yearly histogram, count of values that
          are not at midnight, missing count]``: two present values move one
          count between two bins and may differ in time of day; a present
          value not at midnight against a missing one changes its bin and
          both counts: ``Δ = √3``. A noisy count of values not at midnight
          below the threshold of the integer flag gives ``"resolution":
          "day"``.
        * ``schema: text types``, ``[values parsing as numbers, as dates (and
          not as numbers), other values, missing]``: every record is in one
          of the four cells, so a replacement moves one count: ``Δ = √2``.
          A text column (object or string dtype, as read from a CSV file)
          whose noisy numbers (dates) make at least 98 % of its noisy
          present values, less four standard deviations of that
          difference's noise, and a majority of them by four standard
          deviations, is numeric (datetime), with ``"coerce": true``;
          otherwise categorical (:func:`_text_type`: a column of dates
          alone is typed categorical w.p. at most 3e-5; the majority test
          keeps a mostly-text column categorical when the noise is large
          next to the row count).
        * ``schema: text``: the release of a text column's values, with the
          structure (and sensitivity) of the type decided above: the numeric
          histogram (``√5``), the datetime histogram (``√3``) or the
          partition selection of its values (``√2``).
        * ``schema: missing`` (bool columns), ``[missing count]``: ``Δ = 1``.
        * ``schema: categories`` and ``schema: classes``: counts of the
          keys present. Replacing a record moves one count from its key to
          the new record's key, ``Δ = √2`` on the keys present in both
          tables; a key present in one table only is held by the changed
          record alone and survives the threshold with probability
          ``δ_each`` (see :meth:`skdpgen.privacy.GaussianAccountant.select`).
          A missing label is no key, so changing it moves one count: at
          most ``√2`` as well.

        The releases of different columns (and of the labels) are separate
        Gaussian mechanisms on the same records, composed exactly by the
        accountant with the fit's other releases; everything else
        (bounds, flags, categories, other labels) is post-processing of the
        noisy vectors and of the public ``n``.
        """
        self.noisy_ = {}
        self.class_other_ = None
        if not self.release_counts():  # complete: nothing is read
            return self._user_schema(), self.classes
        frame, y = self._rows(X, y)
        n = len(frame)
        self._flag_stds = flag_stds(sum(key not in self.schema for key in self.columns))
        schema = {}
        for key, kind in zip(self.columns, self.kinds):
            if key in self.schema:
                schema[key] = copy.deepcopy(self.schema[key])
            elif kind == "numeric":
                schema[key] = self._estimate_numeric(key, frame[key], n, accountant)
            elif kind == "datetime":
                schema[key] = self._estimate_datetime(key, frame[key], n, accountant)
            elif kind == "bool":
                schema[key] = self._estimate_bool(key, frame[key], n, accountant)
            elif kind == "text":
                schema[key] = self._estimate_text(key, frame[key], n, accountant)
            else:
                schema[key] = self._estimate_categorical(key, frame[key], n, accountant)
        if self.estimate_classes:
            classes = self._estimate_classes(y, accountant)
        else:
            classes = self.classes
        return schema, classes

    def _user_schema(self):
        return {key: copy.deepcopy(self.schema[key]) for key in self.columns}

    def _sigma(self, accountant, name):
        return accountant.noise_multipliers[name]

    def _estimate_numeric(self, key, column, n, accountant, name=None):
        x = column.to_numpy(dtype=np.float64, na_value=np.nan)
        na = np.isnan(x)
        present = x[~na]
        nonint = float(np.sum(~(np.isfinite(present) & (present == np.round(present)))))
        structure = self._release_of("numeric")  # with a histogram, or flags only
        name = structure if name is None else name
        if structure == NUMERIC:
            lower, _, _, _ = _numeric_grid()
            coarse = _numeric_positions(present)
            hist = np.bincount(coarse, minlength=lower.size)
            fine = np.bincount(_fine_positions(present, coarse),
                               minlength=lower.size * FINE_BINS)
            value = np.concatenate([hist, fine, [nonint, na.sum()]]).astype(np.float64)
        else:
            value = np.array([nonint, na.sum()], dtype=np.float64)
        noisy = accountant.add_noise(name, value, sensitivity=SENSITIVITY[structure])
        self.noisy_[key] = noisy
        s = self._sigma(accountant, name) * SENSITIVITY[structure]
        integer, missing = _flags(noisy[-2], noisy[-1], n, s, self._flag_stds)
        if structure == NUMERIC:
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
            bounds = list(self.bounds)
        return {"type": "numeric", "bounds": bounds, "integer": integer, "missing": missing,
                "impute": not missing}

    def _estimate_datetime(self, key, column, n, accountant, name=DATETIME):
        years = _year_positions(column)
        hist = np.bincount(years, minlength=_N_YEARS)
        wall = _wall_times(column).dropna()
        not_midnight = float((wall != wall.dt.normalize()).sum())
        value = np.concatenate([hist, [not_midnight, column.isna().sum()]]).astype(np.float64)
        noisy = accountant.add_noise(name, value, sensitivity=SENSITIVITY[DATETIME])
        self.noisy_[key] = noisy
        s = self._sigma(accountant, name) * SENSITIVITY[DATETIME]
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

    def _estimate_bool(self, key, column, n, accountant):
        noisy = accountant.add_noise(MISSING, [float(column.isna().sum())],
                                     sensitivity=SENSITIVITY[MISSING])
        self.noisy_[key] = noisy
        s = self._sigma(accountant, MISSING) * SENSITIVITY[MISSING]
        _, missing = _flags(None, noisy[-1], n, s, self._flag_stds)
        # without a missing flag, a missing value maps to "other" (False): never an error
        return {"type": "categorical", "categories": [False, True], "ordered": False,
                "missing": missing, "other": False}

    def _select(self, name, keys, counts, n, accountant):
        """Kept keys (in candidate order), their noisy counts, and whether r is large."""
        keep, noisy = accountant.select(name, np.asarray(counts, dtype=np.float64))
        s = self._sigma(accountant, name) * SENSITIVITY[name]
        kept = [k for k, kk in zip(keys, keep) if kk]
        kept_noisy = np.asarray(noisy)[np.asarray(keep, dtype=bool)]
        residual = n - float(kept_noisy.sum())
        need_other = not kept or residual > OTHER_STDS * s * math.sqrt(len(kept))
        return kept, kept_noisy, need_other, noisy

    def _estimate_text(self, key, column, n, accountant):
        """A text column: its type (numbers, dates or categories), then its spec."""
        numbers, dates = _parsed(column)
        na = column.isna().to_numpy()
        is_number = numbers.notna().to_numpy()
        is_date = dates.notna().to_numpy() & ~is_number
        other = ~(na | is_number | is_date)
        value = np.array([is_number.sum(), is_date.sum(), other.sum(), na.sum()], dtype=float)
        noisy = accountant.add_noise(TYPES, value, sensitivity=SENSITIVITY[TYPES])
        self.noisy_[(key, "types")] = noisy
        kind = _text_type(noisy, self._sigma(accountant, TYPES) * SENSITIVITY[TYPES])
        if kind == "numeric":
            spec = self._estimate_numeric(key, numbers, n, accountant, name=TEXT)
        elif kind == "datetime":
            spec = self._estimate_datetime(key, dates.where(~is_number), n, accountant,
                                           name=TEXT)
        else:
            return self._estimate_categorical(key, column, n, accountant, name=TEXT)
        # values that do not parse are missing (or, without the flag, imputed)
        return {**spec, "coerce": True}

    def _estimate_categorical(self, key, column, n, accountant, name=CATEGORIES):
        na = column.isna().to_numpy()
        counts = pd.Series(column[~na].to_numpy(dtype=object)).value_counts(sort=False)
        counts = counts[counts > 0]  # a Categorical's unused categories are no candidates
        values = [_python(v) for v in counts.index]
        if self.ordered.get(key):
            order = {v: i for i, v in enumerate(_python(c) for c in column.dtype.categories)}
            values = sorted(values, key=order.__getitem__)
        else:
            values = _str_sorted(values)
        by_value = {_python(v): float(c) for v, c in counts.items()}
        exact = [by_value[v] for v in values]
        keys = [(False, v) for v in values]
        if na.any():
            keys.append((True, None))
            exact.append(float(na.sum()))
        kept, kept_noisy, need_other, noisy = self._select(name, keys, exact, n, accountant)
        self.noisy_[key] = noisy
        categories = [v for is_na, v in kept if not is_na]
        missing = any(is_na for is_na, _ in kept)
        if need_other or not categories:
            other = _other_label(categories, numeric=False)
            _warn_other(f"Column {key!r}", categories, other,
                        n - float(np.sum(kept_noisy)), n)
            categories = categories + [other]
        else:
            # the kept value with the largest noisy count (the missing key excluded)
            values_noisy = [c for (is_na, _), c in zip(kept, kept_noisy) if not is_na]
            other = categories[int(np.argmax(values_noisy))]
        return {"type": "categorical", "categories": categories,
                "ordered": bool(self.ordered.get(key, False)), "missing": missing,
                "other": other}

    def _estimate_classes(self, y, accountant):
        present = y[y.notna()]
        counts = pd.Series(present.to_numpy(dtype=object)).value_counts(sort=False)
        by_label = {_python(v): float(c) for v, c in counts.items() if c > 0}
        labels = _natural_sorted(by_label)
        kept, kept_noisy, need_other, noisy = self._select(
            CLASSES, labels, [by_label[v] for v in labels], len(y), accountant)
        self.noisy_["classes"] = noisy
        if need_other:
            numeric = pd.api.types.is_numeric_dtype(present.infer_objects().dtype) and len(present)
            other = _other_label(kept, numeric=bool(numeric))
            _warn_other("The class list", kept, other, len(y) - float(np.sum(kept_noisy)),
                        len(y))
            self.class_other_ = other
            return kept + [other]
        self.class_other_ = kept[int(np.argmax(kept_noisy))]
        return kept

    # -- the leaky mode --------------------------------------------------------
    def read_from_data(self, X, y=None):
        """Read what the schema leaves out from the rows, without privacy.

        The ``infer_schema="data"`` mode: exact bounds (minimum and maximum),
        categories (the values present, or a pandas ``Categorical``'s
        categories), ``integer`` and ``missing`` flags and class list. Each
        column read is recorded with :func:`skdpgen.privacy.record_leak`
        (``"bounds"`` for numeric and datetime columns, ``"integer"`` for
        numeric columns with public bounds, ``"missing"`` for bool columns,
        ``"categories"``, ``"classes"``), so the fit's report says that it is
        not private.

        Parameters
        ----------
        X : DataFrame or 2-D array
        y : array-like of shape (n,) or None

        Returns
        -------
        schema : dict
        classes : list or None
        """
        self.class_other_ = None
        if not self.release_counts():  # complete: nothing is read
            return self._user_schema(), self.classes
        frame, y = self._rows(X, y)
        schema = {}
        for key, kind in zip(self.columns, self.kinds):
            if key in self.schema:
                schema[key] = copy.deepcopy(self.schema[key])
                continue
            column = frame[key]
            missing = bool(column.isna().any())
            if kind == "numeric":
                schema[key] = self._read_numeric(key, column, missing)
            elif kind == "datetime":
                schema[key] = self._read_datetime(key, column, missing)
            elif kind == "bool":
                record_leak(
                    "missing",
                    f"Whether bool column {key!r} has missing values was read from the private "
                    "data and is released with the model without privacy. Declare the column "
                    "in the schema to avoid this.",
                    column=key,
                )
                schema[key] = {"type": "categorical", "categories": [False, True],
                               "ordered": False, "missing": missing}
            else:
                schema[key] = self._read_categorical(key, column, missing)
        classes = self.classes
        if self.estimate_classes:
            record_leak(
                "classes",
                "The class list was taken from the private labels y and is released "
                "without privacy. Pass classes=[...] (the public list of possible "
                "labels) to avoid this.",
            )
            classes = [_python(v) for v in np.unique(y[y.notna()].to_numpy())]
        return schema, classes

    def _read_numeric(self, key, column, missing):
        x = column.to_numpy(dtype=np.float64, na_value=np.nan)
        finite = x[np.isfinite(x)]
        integer = bool(finite.size) and bool(np.all(finite == np.round(finite)))
        if self.bounds is not None:
            record_leak(
                "integer",
                f"The integer and missing flags of numeric column {key!r} were read from the "
                "private data and are released with the model without privacy. Declare the "
                "column in the schema to avoid this.",
                column=key,
            )
            bounds = list(self.bounds)
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
        return {"type": "numeric", "bounds": bounds, "integer": integer, "missing": missing}

    def _read_datetime(self, key, column, missing):
        record_leak(
            "bounds",
            f"The bounds of datetime column {key!r} were read from the private data (its "
            "first and last day, with its missing flag) and are released with the model "
            "without privacy. Declare them in the schema to avoid this.",
            column=key,
        )
        wall = _wall_times(column).dropna()
        if wall.empty:
            bounds = [_year_label(0), _year_label(_N_YEARS)]
        else:
            lo = wall.min().floor("D")
            hi = max(wall.max().ceil("D"), lo + pd.Timedelta(days=1))
            bounds = [lo.strftime("%Y-%m-%d"), hi.strftime("%Y-%m-%d")]
        return {"type": "datetime", "bounds": bounds, "missing": missing,
                "timezone": self.timezones.get(key)}

    def _read_categorical(self, key, column, missing):
        if isinstance(column.dtype, pd.CategoricalDtype):
            cats = [_python(c) for c in column.dtype.categories]
            why = (f"The categories of column {key!r} were taken from its pandas Categorical "
                   f"dtype ({len(cats)} values), which astype('category'), pd.Categorical(values) "
                   "and read_csv(dtype='category') collect from the private rows; they are "
                   "released with the model without privacy. Declare them in the schema to "
                   "avoid this.")
        else:
            cats = _str_sorted({_python(v) for v in column.dropna().unique().tolist()})
            why = (f"The categories of column {key!r} were read from the private data "
                   f"({len(cats)} values) and are released with the model without privacy. "
                   "Declare them in the schema to avoid this.")
        record_leak("categories", why, column=key)
        if not cats:
            cats = ["other"]
        return {"type": "categorical", "categories": cats,
                "ordered": bool(self.ordered.get(key, False)), "missing": missing}

    def __repr__(self):
        return (f"SchemaPlan(columns={len(self.columns)}, estimated={list(self.estimated)}, "
                f"estimate_classes={self.estimate_classes})")


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
    X : DataFrame or 2-D array
        The private table.
    y : array-like of shape (n,), default=None
        Private labels, whose class list is estimated unless ``classes``.
    schema : dict, default=None
        Public column specs; only the other columns are estimated.
    classes : array-like, default=None
        The public class list.
    bounds : tuple of (float, float), default=None
        Public bounds for every numeric column the schema leaves out.
    epsilon : float, default=1.0
        Privacy budget of the estimation.
    delta : float, default=1e-5
        Its δ; half of it goes to the thresholds of the partition selections
        when there are categorical columns or labels.

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
