"""The public grids of the schema estimate's histograms: numeric bins and years.

A numeric column's values are counted in the bins of :func:`numeric_grid`
(and of its fine grid, ``FINE_BINS`` equal sub-bins per bin), a datetime
column's in the calendar years of :func:`time_grid`. The grids are fixed
and data-independent; this module places values on them (the exact
statistics of the releases) and turns positions back into edges (the
post-processing of :mod:`skdpgen.schema._ranges`).
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import functools

import numpy as np


#: Each numeric bin is also split into this many equal sub-bins (the fine grid).
FINE_BINS = 256
#: Sub-bins per group of the fine grid's coarse level.
FINE_GROUP = 16

_MANTISSAS = ("1", "1.25", "1.5", "2", "2.5", "3", "4", "5", "6", "8")
_DECADES = range(-6, 15)  # edges 1e-6 … 8e14, then 1e15
_FIRST_YEAR, _END_YEAR = 1900, 2100
_N_YEARS = _END_YEAR - _FIRST_YEAR


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


def numeric_bins(x):
    """The bin of :func:`numeric_grid` each number falls in.

    The rule the schema estimate's histograms count values by (``±inf`` in
    the outermost bins); NaN is not allowed.

    Parameters
    ----------
    x : array-like of float

    Returns
    -------
    bins : ndarray of int

    Examples
    --------
    >>> from skdpgen.private_schema import numeric_bins, numeric_grid
    >>> numeric_bins([0.0, 3.0, -3.0]).tolist()
    [211, 277, 145]
    >>> numeric_grid()[277].tolist(), numeric_grid()[145].tolist()
    ([2.5, 3.0], [-3.0, -2.5])
    """
    return _numeric_positions(np.asarray(x, dtype=np.float64))


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


def _fine_bin_edges(positions):
    """Lower and upper edges of the fine bins ``positions`` (arrays)."""
    lower, upper, _, _ = _numeric_grid()
    coarse, sub = np.divmod(np.asarray(positions, dtype=np.intp), FINE_BINS)
    width = upper[coarse] - lower[coarse]
    return lower[coarse] + width * sub / FINE_BINS, lower[coarse] + width * (sub + 1) / FINE_BINS


def _fine_edges(position):
    """Lower and upper edge of fine bin ``position``."""
    lo, hi = _fine_bin_edges([int(position)])
    return float(lo[0]), float(hi[0])


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


def year_positions(wall_ns):
    """Year index since 1900 of each wall time (int64 ns, NaT skipped), clipped to the grid."""
    wall = np.asarray(wall_ns, dtype=np.int64)
    wall = wall[wall != np.iinfo(np.int64).min].view("M8[ns]")
    years = wall.astype("datetime64[Y]").astype(np.int64)  # since 1970
    return np.clip(years + (1970 - _FIRST_YEAR), 0, _N_YEARS - 1)
