r"""Private estimation of what a table's schema leaves out.

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

What is public
~~~~~~~~~~~~~~

The number of rows :math:`n`, the column names, the user's
schema (a spec with a ``"type"`` only declares a column's kind, see
:func:`skdpgen.schema.kinds_from_dtypes`), public ``bounds`` and whether
the class list must be estimated. From these alone
:meth:`SchemaPlan.from_table` plans the releases, so the plan (names, counts,
sensitivities, budget shares) is data-independent. The **form** of the
input is not public: a column's dtype, a value's Python type or spelling
(``3``, ``3.0``, ``"3"``), which form comes first, the row order. Every
value is read through its canonical form (:mod:`skdpgen._canonical`):
a number, a bool, a date, a time, text or missing, whatever its type.

Kinds
~~~~~

A column whose kind the schema does not declare gets two
releases: ``schema: kinds``, the counts of its values' canonical forms,
from which its kind (numeric, bool, datetime, time or categorical) is decided
(:func:`skdpgen.schema.kinds._text.kind_from_forms`), and ``schema: values``,
the statistic of that kind below, scaled to sensitivity √2 so that every
column's values release looks the same in the report. A column whose kind
is declared gets the release of its kind directly.

What is released
~~~~~~~~~~~~~~~~

Replace-one L2 sensitivities (derived in
:meth:`SchemaPlan.estimate`); this table is generated from the releases'
constants (:func:`skdpgen.schema._releases.sensitivity_table`):

{sensitivity_table}

Grids
~~~~~

Numeric values are binned on a fixed signed logarithmic grid
(:func:`numeric_grid`): an exact-zero bin, ``(0, 1e-6]``, 210 bins from
``1e-6`` to ``1e15`` with the edges :math:`m \cdot 10^d` for the mantissas
``1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8`` (each bin spans a ratio of at most
4/3), and the mirror image for negative values: 423 bins. Values beyond
``±1e15`` fall in the outermost bins. The same release also counts the
values on the **fine grid**: every bin split into 256 equal sub-bins (a
value near 2,000, in the bin (2000, 2500], falls in a sub-bin two years
wide), since a ratio of 4/3 is far too coarse for values with a small
spread far from zero (years, dates as numbers, temperatures in kelvin).
Datetimes are binned by calendar year
of their wall time (UTC for times that carried an offset), 1900 to 2099 (:func:`time_grid`): 200 bins, with
earlier and later values in the first and last bin (a coarse grid: a
yearly count of a table spread over decades clears the noise where monthly
counts would not, and yearly bounds are public ranges enough). Times of
day and durations are binned by hour over a day, then in bins of 1-2,
2-4, … days, doubling up to :math:`2^{16}` days (:func:`clock_grid`: 40 bins,
longer values in the last one); their coarse groups are the quarters of
the day and each duration bin alone, and their bounds are bin edges
(``"08:00"``, ``"18:00"``, ``"48:00"``).

Numeric ranges
~~~~~~~~~~~~~~

The bounds are post-processing of the noisy histogram, with noise standard
deviation :math:`s` per bin. A bin counts as occupied when its noisy count
exceeds :math:`z s`, with :math:`z` chosen so that, over all bins of the grid, an
empty bin is taken for an occupied one with probability at most 1e-4
(Bonferroni: :math:`z = \Phi^{-1}(1 - 10^{-4}/n_\mathrm{bins})`, 5.0 for the numeric grid, 4.9 for
the time grid); a spurious bin would stretch the bounds to it, so the rate
is kept small. Bins whose noisy count exceeds :math:`2s` and that touch an
occupied bin are occupied too, repeatedly (hysteresis thresholding): the
tails next to the bulk join it, while an empty bin next to the range joins
only w.p. 2.3 %, so the range grows by :math:`k` spurious bins w.p. about
:math:`0.023^k`. So do bins above :math:`3s` one empty bin away from an occupied
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
noise :math:`s\sqrt{\mathit{size}}`, again at most 1e-4 false alarms per
level, without hysteresis: a whole decade joining the range on a 2s
fluctuation, as a neighbouring bin may, would stretch a numeric range
tenfold, or a range of dates two years long sixfold); the range
extends, level by level, to the occupied coarse groups that lie entirely
outside the range so far. Then, at each end, the runs of bins just
outside the range within the nearest group (the rest of the end's own
group, or the next group once the range reaches a group's edge), each
starting next to the range, are tested: a run of :math:`k` bins passes when
its noisy sum exceeds :math:`4s\sqrt{k}` (and 0.5 % of the range's mass), and
the passing run of largest :math:`\mathit{sum}/\sqrt{k}` joins, repeatedly: mass spread
thin over a few bins stops the bins' hysteresis (each bin joins on its
own w.p. well below 1, a chain of them rarely), and a group next to the
range can miss the coarse level's Bonferroni threshold, while their sums
clear :math:`4s` (Bundesliga's validation split at ε = 1, 200 simulated
releases: the bounds of Round covered less than 95 % of its values in
37 % of them, those of Date in 28 %; with this step, then for the whole
part only, in 20 % and 15 %). The runs, not just the whole part, matter
where the mass next to the range ends inside the group: a normal column's
shoulder ``(1, 2]`` next to the range ``[-1, 1]`` that only its decades
showed, its decade ``(1, 10]`` too empty for the test as a whole (100
private estimates of N(0, 1) at n = 4,000 with three columns: a mean
coverage of 0.86 for the whole part, 0.94 for the runs); and the most
significant run stops where the mass does, not at the group's edge. An
empty part joins w.p. at most :math:`3 \cdot 10^{-5} k` per end for :math:`k` bins (in
20,000 simulated releases the range grew by two bins or more beyond a
bulk as often as with the whole part alone, 0.4 %, mostly the bins'
hysteresis; at :math:`3s` the gains were larger, but a year column's range
widened to a whole extra bin of the logarithmic grid in about one fit in
400). A range that holds bins on both sides of zero then loses the side
whose bins' noisy sum and decades' counts both stay under :math:`4s\sqrt{k}`
(:math:`k` bins, decades) while the rest of the range clears it: the sign of
a column's values is not a neighbourhood, and the empty bin ``[-1, -0.8)``
beside the exact-zero bin joined a 0/1 column's range by hysteresis in
about 2 % of estimates (bounds ``[-1, 1]``, and -1 among its synthetic
values). Values outside the bounds are clipped by the encoder.
When nothing is
occupied at any level (too few rows for the budget), the bounds are the
first coarse level's group (decade, year) with the largest noisy sum: the column's whole
mass in one decade beats the largest noise of the empty ones (about
:math:`3.5\, s \sqrt{10}` for the numeric grid) long before it clears the
detection threshold, so a starved budget still gets the right order of
magnitude rather than the whole grid, when the values sit in one decade;
spread over several, each holds too little and the guess may miss them
entirely (a column of returns in [-13, 13] on 516 rows at ε = 1 came out
``[1e9, 1e10]``). Either way the estimate warns, naming the column
(:class:`~skdpgen.schema.SchemaEstimateWarning`). For an integer column (its flag,
from the same release) the bins that hold no integer are left out of
these tests, as if the grid had none of them: below 10 the grid is finer
than the integers (``(1, 1.25]`` and ``(1.25, 1.5]`` lie between 1 and
2), and those empty bins would cut the hysteresis off from the smallest
values (Bundesliga's rounds 1-4, ~250 rows each at ε = 1, were dropped
from the bounds). Integer columns have the integers
the range holds as their bounds (a range of the bins ``(0.8, 1] … (4, 5]``
gives ``[1, 5]``; one integer :math:`v` gives :math:`[v, v + 1]`), other columns
a range of one value :math:`v` (the exact-zero bin) as :math:`[v - 0.5, v + 0.5]`.

Refinement on the fine grid
~~~~~~~~~~~~~~~~~~~~~~~~~~~

Numeric columns. Within the bins of the
range found so far, the sub-bins, and their groups of 16, are tested the
same way (a Bonferroni threshold over the sub-bins (groups) of the range,
hysteresis on the sub-bins, no cut). With :math:`[a, b]` spanning the lowest
and the highest occupied sub-bin, stretched to the occupied groups that lie
entirely outside it (values too thin for a sub-bin; a group that overlaps
the sub-bins' span says nothing about where in it the values end: taking
its edges gave a year column 1995-2003 the range ``[1938, 2062]``, 14
times its span) or, with no sub-bin found, the occupied groups, the
lower bound becomes :math:`a - (b - a)/2` (not below the range), unless that
lies above the range's first bin, and the upper bound :math:`b + (b - a)/2`
(not above the range), unless that lies below its last bin: an end bin is
cut, never dropped, except a lone weak one: an end bin below :math:`4s`
(it joined by hysteresis only) beside one above the detection threshold,
which :math:`[a, b]` and its margin do not reach, is dropped first (an empty
bin beside the bulk joins so w.p. up to 2.3 % at each end, and then a year
column 1963-2008 came out ``[1500, 3000]``: in 5 % of simulated releases
at :math:`s = 80`, 0.45 % with the rule; a real thin tail is a chain of weak
bins, which stays). The result replaces the range only when it is at most
a quarter of its width: the refinement is for values packed into a small
part of their bins (years near 2000 in bins 500 wide), not for spread
values, whose sub-bins clear the noise here and there (a few isolated
sub-bins found, or none, tell nothing about where the values end). The
margin keeps tails that are real but too thin for a sub-bin to clear the
noise (at ε = 1 a sub-bin needs hundreds of rows).
Sub-bins add one count per record to the release (:math:`\Delta` from :math:`\sqrt{3}` to
:math:`\sqrt{5}`), so the noise on the histogram is :math:`\sqrt{5/3}` times larger for
the same share: a year column 1995-2003 gets a range about twice its span
(``[1990, 2008]`` from exact counts) instead of ``[1500, 2500]``.

The decades (the grid's groups) are released too, directly (:math:`\Delta` from
:math:`\sqrt{5}` to :math:`\sqrt{7}`, with the missing count weighted by :math:`\sqrt{3}`, which costs
nothing more): summed from its ten bins a decade carries :math:`\sqrt{10}` times a
bin's noise, and on small tables (a few hundred to a few thousand rows)
only decades stand out. With the direct counts a table of 406 rows and
seven columns at ε = 1 (``schema_share="auto"``) finds the decade of
most columns instead of guessing one of 45 groups.

Following the mass
~~~~~~~~~~~~~~~~~~

Numeric columns (:mod:`skdpgen.schema._mass`).
The rows outside the range are estimated as :math:`n - \tilde m` less the rows
inside, counted by decade: a decade the range holds whole by its direct
count, one it holds in part by the inverse-variance mean of the range's
bins in it and of its count less its other bins (noise about :math:`s` per
decade, where the sum of the range's bins carried :math:`s\sqrt{k}` for :math:`k`
bins: at 1,600 rows and ten columns, :math:`s \approx 73`, a third of the rows could
lie outside a range of twenty bins without a warning). While that estimate
exceeds two of its noise standard deviations and 5 % of the rows, the range
takes the most significant run of units next to it (the rest of its end
decade bin by bin, then up to two whole decades towards zero, one away from
it) whose noisy sum exceeds :math:`2s\sqrt{k}`, or else the decade of largest
count beyond it above 3.5 s, with everything in between; a decade joined
away from zero ends at the bin where the rest of its count falls under one
noise standard deviation (its bins' prefix), not at its tenfold far edge.
The rows are known to be outside, so the bar to find where is lower than the
detection's: a count 0 to thousands whose decades (1, 10] and 0 held too
few rows each to clear 4.6 s (bounds ``[11, 1000]`` clipped 27 % of a
simulated negative-binomial column in 9 of 10 draws at 1,600 rows, 1 of 10
after), a price's decade below its bulk, the other side of zero, an age's
bins below its range. The outside estimate, with the final range, is also
what :class:`~skdpgen.schema.SchemaEstimateWarning` reports: from three noise standard
deviations and 5 % of the rows, or from two and a tenth of the rows. (From
two deviations and 5 %, a normal column of 5,000 rows at ε = 1, whose
bounds at about ±2 standard deviations clip 4.4 %, was warned of in 8 of
30 fits; now in 0 of 20. Simulated long tails: silent clipping in 4 of
270 column estimates either way.)

Point masses
~~~~~~~~~~~~

Inside the bounds, a sub-bin of the fine grid whose noisy
count exceeds the mean of its eight neighbours on each side (within its
bin) by a Bonferroni threshold over the sub-bins (family-wise rate
``1e-4``) and by 1 % of :math:`n` holds a point mass: its one roundest number
(an integer for an integer column; none when no single value is roundest)
joins the spec's ``"points"`` (at most 16, the largest excesses first),
which a binned encoding keeps in cells of their own (hours worked: 40 stays
40 instead of 40 and 41). Post-processing of the same fine histogram
(:func:`skdpgen.schema._points.point_masses`).

Cells that follow the mass
~~~~~~~~~~~~~~~~~~~~~~~~~~

Where equal-width cells of the bounds would put more than
``POLICY.even_share`` of the released mass in one of ``POLICY.even_cells``
(a long tail, values packed into a small part of their bounds), the spec
gets ``"quantiles"``: the values at equal steps of that mass (bins, their
groups of 16 sub-bins and the sub-bins, each locating what its noisy count
holds beyond two noise standard deviations, the rest spread evenly; blended
with an even spread). A binned encoding then makes cells of equal mass
instead of equal width (:func:`skdpgen.schema._cells.mass_quantiles`).
Post-processing of the same release; declared bounds keep equal-width cells.

At ε = 1 for six estimated columns and n = 5,000 (:math:`s \approx 16` for a
numeric column), a bin needs about 80 rows to be occupied on its own and
about 35 next to the bulk; the bounds of a log-normal column then cover
about 99 % of its values.

Missing values and integers
~~~~~~~~~~~~~~~~~~~~~~~~~~~

With :math:`\tilde m` the noisy missing count and :math:`\tilde n = \operatorname{clip}(n - \tilde m, 0, n)`
the estimated number of values present (:math:`s` the noise standard deviation
of a count), a column is ``"missing"`` when :math:`\tilde m > z s`, with
:math:`z = \max(4, \Phi^{-1}(1 - 10^{-4}/d))` for :math:`d` estimated columns
(:func:`flag_stds`: 4 up to three columns, 4.66 for 64, 5.15 for 784):
a column without missing values is declared to have some with probability
at most 3e-5, and no column of a table with none at all with probability
1e-4 (union bound; a spurious missing flag adds an indicator to the
encoding, which an image's convolutional generator refuses), while
:math:`z s + 2s` missing values are found w.p. 97.7 % (at ε = 1, n = 5,000 and
six estimated columns, :math:`s \approx 16`, so 1-2 % of missing values). It is
``"integer"`` when the noisy count :math:`\tilde u` of non-integer values satisfies
:math:`\tilde u < \min(\tilde n/2, \max(0.01\,\tilde n, z s))`: an integer column is declared so with
probability ≥ 1 − 3e-5 (when :math:`\tilde n/2 > z s`), a column with more than 1 %
(and :math:`z s`) of non-integer values rarely, and never one with most values
fractional (rounding them would destroy them). Bool columns keep the categories
``[False, True]`` that their dtype fixes and estimate the missing flag
only; categorical columns decide it by partition selection (below).

Categories and classes
~~~~~~~~~~~~~~~~~~~~~~

By partition selection. The candidates are the
values present in the rows (and, for a column, missing as one more key).
A key is kept when its noisy count exceeds :math:`\tau = 1 + s\,\Phi^{-1}(1 - \delta_\mathrm{each})`
(:math:`s = \sigma_i \sqrt{2}`; :func:`skdpgen.privacy.selection_threshold`, printed in
the report): a value held by a single record survives with probability
exactly :math:`\delta_\mathrm{each}`, the threshold's share of the fit's δ, and the
threshold adds :math:`\ln(1/(1 - \delta_\mathrm{each}))` to the fit's ε (see
:meth:`skdpgen.privacy.GaussianAccountant.select`). The kept values are the
categories (sorted by ``str``; in the dtype's order for an ordered pandas
``Categorical``); a kept missing key sets ``"missing"``. Whether *some*
value was dropped is not public (a neighbouring table may lack the rare
value), so it never decides anything. Instead, the mass of the dropped
values is estimated from released numbers only: :math:`r = n - \sum_{\mathrm{kept}\ k} \tilde n_k`
(noise standard deviation :math:`s\sqrt{n_\mathrm{kept}}`). When :math:`r > 3 s \sqrt{n_\mathrm{kept}}`
(or nothing was kept) one public other category is added (label
``"other"``, ``"__other__"`` if ``"other"`` is kept) and the spec's
``"other"`` names it (with a :class:`~skdpgen.schema.SchemaEstimateWarning` when nothing
was kept or :math:`r` is at least a twentieth of :math:`n`); otherwise ``"other"``
names the kept value with the largest noisy count, into which the few
rare values fold. Either way every value outside the categories (and a
missing value of a column without the ``missing`` flag) must be encoded as
the ``"other"`` category. Labels are
estimated the same way, except that missing labels are no candidates
(they count in :math:`r`): the class list gets the other label (``"other"``, or
for numeric labels ``-1``, or the smallest kept label minus one if ``-1`` is
kept) only when :math:`r` is large, and the label that labels outside the list
map to is :attr:`SchemaPlan.class_other_` (see :func:`map_unlisted`).
Labels outside the list are thus rows of a known class, never an error.

Budget shares
~~~~~~~~~~~~~

:meth:`SchemaPlan.shares` gives an estimated class list
a quarter of the schema's share (the whole of it when no column is
estimated) and splits the rest equally over the estimated columns' releases,
which all get the same noise multiplier :math:`\sigma_i`.

Thresholds
~~~~~~~~~~

Every threshold of the rules above is a field of one frozen
policy, ``skdpgen.schema._policy.POLICY`` (an ``EstimationPolicy``); this
table is
generated from it ("stds": noise standard deviations of the quantity
tested, "rate": a probability under the noise alone, "share": a fraction
of :math:`n`):

{policy_table}
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

# The code lives in skdpgen.schema: the plan in skdpgen.schema._plan (its
# releases and sensitivities in _releases, the estimate on a budget of its own
# in _standalone), the post-processing of the noisy releases in
# skdpgen.schema._ranges, _flags and the kinds' modules, on the grids of _grids.
# This module is the public face.

from .schema.kinds._categorical import map_unlisted
from ._clock import clock_grid
from .schema._dtypes import column_kind
from .schema._flags import flag_stds
from .schema._grids import numeric_bins, numeric_grid, time_grid
from .schema._plan import SchemaPlan
from ._policy import rst_table
from .schema._policy import POLICY
from .schema._releases import sensitivity_table
from .schema._released import released_histograms
from .schema._standalone import estimate_schema

__all__ = [
    "SchemaPlan",
    "clock_grid",
    "column_kind",
    "estimate_schema",
    "flag_stds",
    "map_unlisted",
    "numeric_bins",
    "numeric_grid",
    "released_histograms",
    "time_grid",
]


if __doc__ is not None:  # python -OO strips docstrings
    __doc__ = __doc__.replace("{sensitivity_table}", rst_table(
        sensitivity_table(), head=("release (report name)", "released vector", "Δ"),
        widths=(46, 6)))
    __doc__ = __doc__.replace("{policy_table}", POLICY.rst())
