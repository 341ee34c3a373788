"""The schema estimate's share of a fit's budget when it is left to the library.

A function of public facts only: the row count ``n`` (public under
replace-one neighbours), how much the plan estimates, and ``(epsilon,
delta)``. Never of a value.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math

from scipy.special import ndtri

from ..privacy import approximate_rho
from ._policy import POLICY


__all__ = ["auto_share", "epsilon_needed", "rows_needed"]


def _selection_z(delta):
    """Noise standard deviations of a class selection's threshold, roughly (its δ
    is about a tenth of the fit's)."""
    return float(-ndtri(float(delta) / 10.0))


def auto_share(units, estimate_classes, n, epsilon, delta):
    """The schema's share of a fit's budget and the class list's fraction of it.

    Two targets, each met with the least budget that meets it and kept
    within bounds:

    * the columns (``units``: the plan's column releases, a kind release
      weighing ``KIND_WEIGHT``): a numeric column's noise per bin at most
      ``n/POLICY.bin_noise_rows`` (40) rows (a bin or decade holding an eighth of the rows then
      stands out of the noise at five of its standard deviations), and a
      categorical value holding ``POLICY.value_share`` (2 %) of the rows
      above its selection's threshold by two noise standard deviations
      (kept in about 98 % of fits: the values below the threshold fold into
      ``"other"``, which no model can undo), a share between
      ``POLICY.column_share`` (0.075) and ``POLICY.max_column_share`` (0.3);
    * the class list, when it is estimated: its selection threshold plus
      two noise standard deviations at most ``POLICY.class_noise_share``
      (5 %) of ``n`` (a class of 5 %
      of the rows is then kept in about 98 % of fits), a share between
      ``POLICY.class_share × 0.1`` (0.025) and ``POLICY.max_class_share`` (0.2).

    Sized with the zCDP approximation of the Gaussian budget
    (:func:`skdpgen.privacy.approximate_rho`) (the accountant still
    calibrates the noise exactly from the shares). Ten columns and a class
    list at ε = 1: 0.1 from about 40,000 rows, 0.24 at 20,000, 0.34 at
    5,000, 0.5 at 1,500 rows and fewer.

    Parameters
    ----------
    units : float
        The plan's column releases, weighted.
    estimate_classes : bool
    n : int
        The public number of rows.
    epsilon, delta : float
        The fit's budget.

    Returns
    -------
    schema_share : float
    class_fraction : float
        The class list's fraction of ``schema_share``.

    Examples
    --------
    >>> from skdpgen.schema._shares import auto_share
    >>> [round(auto_share(15, True, n, 1.0, 1e-5)[0], 2) for n in (1000, 5000, 20000)]
    [0.5, 0.34, 0.24]
    """
    rho = approximate_rho(epsilon, delta)
    n = max(int(n), 1)
    columns = 0.0
    if units:  # a numeric bin's noise s = sqrt(3.5 / rho_values) (√7 scaled to √2) <= n/rows
        rows = POLICY.bin_noise_rows
        bins = 3.5 * units * rows * rows / (rho * n * n)
        # a value's count: noise s = sqrt(1 / rho_values); its selection's threshold
        # z s (delta split over the columns) plus 2 s at most value_share n
        z = float(-ndtri(float(delta) / (2.0 * units)))
        values = units * (z + 2.0) ** 2 / (rho * (POLICY.value_share * n) ** 2)
        columns = min(max(bins, values, POLICY.column_share), POLICY.max_column_share)
    classes = 0.0
    if estimate_classes:  # sigma (z + 2) <= class_noise_share n, sigma = 1/sqrt(rho_classes)
        sigma = POLICY.class_noise_share * n / (_selection_z(delta) + 2.0)
        classes = min(max(1.0 / (sigma * sigma * rho), 0.1 * POLICY.class_share),
                      POLICY.max_class_share)
    total = columns + classes
    if total == 0.0:
        return 0.1, POLICY.class_share
    return total, classes / total


def rows_needed(units, epsilon, delta, share=None):
    """The fewest rows at which the columns' noise target is met: the size rule.

    :func:`auto_share` sizes the columns' share so that a numeric column's
    noise per bin is at most ``n/POLICY.bin_noise_rows`` rows, and caps it
    at ``POLICY.max_column_share``. Below the rows returned here the cap
    binds: the noise is larger than the target, ranges are found late and
    values of a few hundred rows are lost (about ``1,160·sqrt(d)`` rows for
    ``d`` estimated columns at ε = 1, δ = 1e-5). A function of public facts
    only.

    Parameters
    ----------
    units : float
        The plan's column releases, weighted (a kind release ``KIND_WEIGHT``).
    epsilon, delta : float
        The fit's budget.
    share : float, default=None
        The columns' share of the budget (a ``schema_share`` the user set);
        None: ``POLICY.max_column_share``.

    Returns
    -------
    rows : int

    Examples
    --------
    >>> from skdpgen.schema._shares import rows_needed
    >>> [rows_needed(1.5 * d, 1.0, 1e-5) for d in (4, 14, 33)]
    [2320, 4340, 6662]
    """
    if not units:
        return 0
    rho = approximate_rho(epsilon, delta)
    share = POLICY.max_column_share if share is None else float(share)
    return math.ceil(POLICY.bin_noise_rows * math.sqrt(3.5 * units / (share * rho)))


def epsilon_needed(units, n, delta, share=None):
    """The ε at which ``n`` rows meet the size rule of :func:`rows_needed`.

    The zCDP ``ρ`` that puts a numeric bin's noise at ``n/POLICY.bin_noise_rows``
    rows with the columns' share at its cap, as ``ε = ρ + 2·sqrt(ρ·log(1/δ))``
    (:func:`skdpgen.privacy.approximate_rho`'s conversion, inverted).

    Examples
    --------
    >>> from skdpgen.schema._shares import epsilon_needed
    >>> round(epsilon_needed(1.5 * 33, 1359, 1e-5), 1), round(epsilon_needed(1.5 * 33, 6662, 1e-5), 2)
    (5.3, 1.0)
    """
    share = POLICY.max_column_share if share is None else float(share)
    rows = POLICY.bin_noise_rows
    rho = 3.5 * units * rows * rows / (share * max(int(n), 1) ** 2)
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / float(delta)))
