"""Point masses of a numeric column, from its released fine histogram.

Post-processing of the numeric release (:meth:`NumericKind.statistic`): the
noisy counts of the fine grid (``FINE_BINS`` sub-bins per numeric bin,
noise ``s`` each) and the public ``n``. A column of hours worked holds half
its rows at exactly 40; equal-width bins of its estimated bounds would
spread them over their bin (40 and 41, or 37 to 41). A sub-bin whose count
stands far above its neighbours' is a point mass; it becomes a value of the
spec's ``"points"``, which a binned encoding keeps in a cell of its own
(:class:`~skdpgen.schema.kinds._binned.Binned`). None of it reads a row.

The spec's points are checked here too, and the public rule that gives a
binned column's exact zeros a cell of their own wherever its bounds hold 0
(:func:`zero_cell`), with no release at all.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math

import numpy as np
from scipy.special import ndtri

from ._grids import FINE_BINS, _fine_bin_edges, _fine_positions, _numeric_positions
from ._policy import POLICY

__all__ = ["point_masses", "roundest", "zero_cell"]

def roundest(lo, hi, integer):
    """The one roundest number in ``[lo, hi]``, or None.

    The multiples of the largest power of ten that has any in the interval
    (``10^k``, ``k`` down to 0 for an integer column, to ``-6`` otherwise);
    None when there are several of them (no single value stands out) or
    none.

    Examples
    --------
    >>> from skdpgen.schema._points import roundest
    >>> roundest(39.96, 40.0, True), roundest(49960.9, 50000.0, True), roundest(1, 9, True)
    (40.0, 50000.0, None)
    """
    lo, hi = float(lo), float(hi)
    top = math.floor(math.log10(max(abs(lo), abs(hi), 1e-300)))
    for k in range(min(top, 15), -1 if integer else -7, -1):
        step = 10.0 ** k
        # within rounding of an edge is on it (1.2 / 0.1 is 11.999999999999998)
        first, last = math.ceil(lo / step - 1e-9), math.floor(hi / step + 1e-9)
        if last - first == 0:  # written in decimal: 12e-1 is 1.2, not 12 * 0.1
            return float(f"{first}e{k}") + 0.0  # no -0.0
        if last > first:
            return None
    return None


def point_masses(fine, s, bounds, integer, n):
    """The values of a column's point masses, from its noisy fine histogram.

    A sub-bin of the fine grid inside ``bounds`` whose noisy count exceeds
    the mean of its ``POLICY.point_neighbours`` (8) neighbours on each side within its
    numeric bin (noise ``s·sqrt(1 + 1/m)`` for ``m`` neighbours) by a
    Bonferroni threshold at ``POLICY.false_bin_rate`` over the candidate
    sub-bins, and by ``POLICY.point_share`` of ``n``, holds a point mass:
    the one roundest number in it (:func:`roundest`; an integer for an
    integer column), when it has one. At most ``POLICY.max_points`` of them,
    the largest excesses. The exact-zero bin is left out (a column's zeros
    are its ``"zero"`` flag). Under the noise alone a sub-bin is taken with
    probability at most ``false_bin_rate`` over all candidates; the share
    keeps small spikes, which a bin holds anyway, out.

    Parameters
    ----------
    fine : ndarray
        The noisy fine histogram (``FINE_BINS`` sub-bins per numeric bin).
    s : float
        Its noise standard deviation, per sub-bin.
    bounds : (float, float)
        The column's estimated bounds.
    integer : bool
    n : int
        The public number of rows.

    Returns
    -------
    points : list of float
        Ascending.
    """
    fine = np.asarray(fine, dtype=float)
    lo, hi = (float(b) for b in bounds)
    ends = np.array([lo, hi])
    coarse = _numeric_positions(ends)
    first, last = (int(p) for p in _fine_positions(ends, coarse))
    candidates = np.arange(first, last + 1)
    candidates = candidates[candidates // FINE_BINS != _zero_bin()]
    if candidates.size == 0 or not np.isfinite(s):
        return []
    z = float(-ndtri(POLICY.false_bin_rate / candidates.size))
    sub = candidates % FINE_BINS
    start = candidates - sub  # the numeric bin's first sub-bin
    csum = np.concatenate([[0.0], np.cumsum(fine)])
    a = np.maximum(start, candidates - POLICY.point_neighbours)
    e = np.minimum(start + FINE_BINS, candidates + POLICY.point_neighbours + 1)
    m = (e - a - 1).astype(float)
    excess = fine[candidates] - (csum[e] - csum[a] - fine[candidates]) / m
    noise = s * np.sqrt(1.0 + 1.0 / m)
    found = (excess > z * noise) & (excess > POLICY.point_share * n)
    order = np.argsort(-excess[found], kind="stable")
    points = []
    for j in candidates[found][order].tolist():
        a, b = _fine_bin_edges([j])
        value = roundest(max(float(a[0]), lo), min(float(b[0]), hi), integer)
        if value is not None and value != 0.0 and lo <= value <= hi and value not in points:
            points.append(value)
        if len(points) == POLICY.max_points:
            break
    return sorted(points)


def _zero_bin():
    """The exact-zero bin of the numeric grid."""
    return int(_numeric_positions(np.array([0.0]))[0])


def zero_cell(spec):
    """Whether a binned numeric column keeps its exact zeros in a cell of their own.

    The public rule of the binned encoding (:class:`~skdpgen.schema.TableEncoder`
    with ``bins``): a numeric column whose bounds hold 0 (at an end or
    inside) gives the rows holding exactly 0 a cell of their own, decoded as
    exactly 0, unless its spec says ``"zero": false``. Earnings, capital
    gains, rain, counts of events: a column whose bounds start at 0 often
    holds most of its rows there, and a bin ``[0, w)`` would spread them
    uniformly over it (Adult's ``capital-gain``: 91.7 % zeros, 0.1 % of the
    synthetic values). A function of the spec alone (public): it costs no
    budget, only one more cell of noise in a release of the column's cells.
    With ``"zero": true`` the cell is the spec's own; a column with
    ``"missing": true`` keeps them as a value of its ``"points"``.

    Parameters
    ----------
    spec : dict
        A resolved numeric spec.

    Returns
    -------
    cell : bool

    Examples
    --------
    >>> from skdpgen.schema._points import zero_cell
    >>> zero_cell({"type": "numeric", "bounds": [0, 99999]})
    True
    >>> zero_cell({"type": "numeric", "bounds": [-5, 5], "zero": False})
    False
    >>> zero_cell({"type": "numeric", "bounds": [1, 99]})
    False
    """
    if spec.get("zero") is False:
        return False
    lo, hi = (float(b) for b in spec["bounds"])
    return lo <= 0.0 <= hi


def _check_points(key, points, lo, hi, integer, zero):
    """A spec's ``"points"``: distinct finite numbers inside the bounds (integers
    for an integer column), ascending; 0 left out with ``"zero"`` (its own slot)."""
    try:
        values = sorted({float(v) for v in points})
    except (TypeError, ValueError):
        raise ValueError(f"Schema 'points' of column {key!r} must be a list of numbers, got "
                         f"{points!r}.") from None
    if not all(np.isfinite(v) and lo <= v <= hi for v in values):
        raise ValueError(f"Schema 'points' of column {key!r} must lie inside its bounds "
                         f"[{lo}, {hi}].")
    if integer and any(v != round(v) for v in values):
        raise ValueError(f"Schema 'points' of integer column {key!r} must be integers.")
    return [v for v in values if not (zero and v == 0.0)]
