"""The schema estimate's share of a fit's budget when it is left to the library.

A function of public facts only: the row count ``n`` (public under
replace-one neighbours), how much the plan estimates, and ``(epsilon,
delta)``. Never of a value.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math

from scipy.special import ndtri

from ._ranges import CLASS_SHARE

__all__ = ["auto_share"]

#: Least and largest share of a fit's budget that ``schema_share="auto"`` gives
#: the columns' estimate, and the largest it gives an estimated class list.
COLUMN_SHARE = 0.075
MAX_COLUMN_SHARE = 0.3
MAX_CLASS_SHARE = 0.2


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
      ``n/40`` rows (a bin or decade holding an eighth of the rows then
      stands out of the noise at five of its standard deviations), a share
      between
      ``COLUMN_SHARE`` (0.075) and ``MAX_COLUMN_SHARE`` (0.3);
    * the class list, when it is estimated: its selection threshold plus
      two noise standard deviations at most 5 % of ``n`` (a class of 5 %
      of the rows is then kept in about 98 % of fits), a share between
      ``CLASS_SHARE × 0.1`` (0.025) and ``MAX_CLASS_SHARE`` (0.2).

    Sized with the zCDP approximation ``ρ ≈ (sqrt(log(1/δ) + ε) −
    sqrt(log(1/δ)))²`` of the Gaussian budget (the accountant still
    calibrates the noise exactly from the shares). Ten columns and a class
    list: 0.1 from about 15,000 rows, 0.5 at 1,500 rows and fewer.

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
    [0.5, 0.2, 0.1]
    """
    log_delta = math.log(1.0 / float(delta))
    rho = (math.sqrt(log_delta + float(epsilon)) - math.sqrt(log_delta)) ** 2
    n = max(int(n), 1)
    columns = 0.0
    if units:  # s = sqrt(3.5 / rho_values) per numeric bin (√7 scaled to √2)
        columns = min(max(3.5 * units * 1600.0 / (rho * n * n), COLUMN_SHARE),
                      MAX_COLUMN_SHARE)
    classes = 0.0
    if estimate_classes:  # sigma (z + 2) <= 0.05 n, sigma = 1/sqrt(rho_classes)
        sigma = 0.05 * n / (_selection_z(delta) + 2.0)
        classes = min(max(1.0 / (sigma * sigma * rho), 0.1 * CLASS_SHARE), MAX_CLASS_SHARE)
    total = columns + classes
    if total == 0.0:
        return 0.1, CLASS_SHARE
    return total, classes / total
