"""The cells of the marginal mechanism: pair scores, projections, ordered slots, coarse cells.

Functions of released counts or of the public encoding only; the mechanism
(:mod:`skdpgen.synthesizers.mechanisms.marginal`) composes them.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import numpy as np
from scipy.stats import norm

from .._policy import POLICY

__all__ = ["cell_fills", "comonotone_coupling", "empty_tails", "held_bins", "held_range",
           "ordered_slots", "pair_groups", "pair_scores", "simplex_projection"]


def pair_scores(candidates, counts, one_way, n_rows):
    """Each pair's distance from independence: ``Σ_cells |N_ab − n p_a p_b|``.

    Parameters
    ----------
    candidates : MarginalFeatures
        Fitted, degree 2: the candidate pairs and their (coarse) cells.
    counts : ndarray of shape (candidates.n_features_out_,)
        Every candidate's cell counts (rows), in the map's layout.
    one_way : list of ndarray
        Per block, the proportions of its coarse cells (public: a released
        model).
    n_rows : int

    Returns
    -------
    scores : ndarray of shape (n_candidates,)

    Notes
    -----
    **Sensitivity.** Every encoded row is one-hot in every block (the
    encoder's construction, whatever the record: see
    :meth:`~skdpgen.schema.TableEncoder.transform`), so each row counts
    once in each pair's table. Replacing one row takes 1 from one cell of
    each table and adds 1 to one cell (possibly the same); ``n_rows`` and
    ``one_way`` are public, and ``|·|`` is 1-Lipschitz cell by cell, so
    each score moves by at most 2 and the vector of ``M`` scores by at
    most ``2√M`` in L2 norm, attained when the row leaves a cell above its
    independence count for one below it in every pair.
    (MST's measure of a pair's dependence, McKenna et al. 2021.)
    """
    sizes, offsets = candidates.sizes_, candidates.offsets_
    out = np.empty(len(candidates.marginals_))
    for i, (a, b) in enumerate(candidates.marginals_):
        table = counts[offsets[i]:offsets[i + 1]].reshape(int(sizes[a]), int(sizes[b]))
        out[i] = np.abs(table - n_rows * np.outer(one_way[a], one_way[b])).sum()
    return out


def simplex_projection(values):
    """The probability vector nearest to ``values`` (Euclidean projection).

    ``max(values - t, 0)`` with the threshold ``t`` at which it sums to 1:
    the maximum-likelihood histogram under i.i.d. Gaussian noise on its
    cells (Duchi et al., 2008). Small noisy cells become exactly 0.

    Examples
    --------
    >>> from skdpgen.synthesizers.mechanisms._marginal_cells import simplex_projection
    >>> simplex_projection([0.7, 0.5, -0.1]).tolist()
    [0.6, 0.4, 0.0]
    """
    v = np.asarray(values, dtype=float)
    u = np.sort(v)[::-1]
    cum = np.cumsum(u) - 1.0
    k = np.nonzero(u - cum / np.arange(1, len(u) + 1) > 0)[0][-1]
    return np.maximum(v - cum[k] / (k + 1), 0.0)


def ordered_slots(encoder):
    """Per one-hot block, its ordered cells (integer levels, bins, points) or 0.

    A block's slot of its own (missing values, a binned column's exact
    zeros) is not one of them. A function of the public encoding only
    (:meth:`~skdpgen.schema.TableEncoder.cell_order`).
    """
    return [0 if order is None else int(np.sum(order >= 0)) for order in encoder.cell_order()]


def pair_groups(encoder, cells=POLICY.pair_cells):
    """The coarse cells of each one-hot block in the two-way marginals.

    An ordered column (integer levels, numeric or date bins) wider than
    ``cells`` has its consecutive cells merged into ``cells`` groups of
    nearly equal numbers of cells (a value of the spec's ``"points"`` with
    the bin it lies in; a slot of missing values, or of a binned column's
    exact zeros, stays a group of its own); categorical columns and
    narrow ordered ones keep their cells. A function of the public encoding
    only.

    Parameters
    ----------
    encoder : TableEncoder
        Fitted, every column one-hot.
    cells : int, default=POLICY.pair_cells

    Returns
    -------
    groups : list
        Per block, None or an array of coarse cell indices (the ``groups``
        of :class:`~skdpgen.kernels.MarginalFeatures`).

    Examples
    --------
    >>> import pandas as pd
    >>> from skdpgen.schema import TableEncoder
    >>> from skdpgen.synthesizers.mechanisms._marginal_cells import pair_groups
    >>> schema = {"age": {"type": "numeric", "bounds": [0, 99], "integer": True},
    ...           "sex": {"type": "categorical", "categories": ["f", "m"]}}
    >>> X = pd.DataFrame({"age": [30, 40], "sex": ["f", "m"]})
    >>> enc = TableEncoder(schema, max_levels=100).fit(X)
    >>> [None if g is None else int(g.max()) + 1 for g in pair_groups(enc, 8)]
    [8, None]
    """
    return encoder.coarse_cells(cells)


def comonotone_coupling(p, q):
    """The joint table of two distributions, each a non-decreasing function of the other.

    The north-west corner rule: the mass of ``p`` and ``q`` paired in cell
    order (the joint of a column and a monotone function of it, such as its
    square on non-negative values): the sharpest relation the two margins
    allow, used as the relation a pair's noise is measured against when its
    release shows none.

    Parameters
    ----------
    p, q : ndarray of shape (r,) and (k,)
        Non-negative, of equal sums.

    Returns
    -------
    table : ndarray of shape (r, k)

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen.synthesizers.mechanisms._marginal_cells import comonotone_coupling
    >>> comonotone_coupling(np.array([0.5, 0.5]), np.array([0.25, 0.75]))
    array([[0.25, 0.25],
           [0.  , 0.5 ]])
    """
    table = np.zeros((len(p), len(q)))
    left_p, left_q = np.array(p, dtype=float), np.array(q, dtype=float)
    i = j = 0
    while i < len(p) and j < len(q):
        mass = min(left_p[i], left_q[j])
        table[i, j] += mass
        left_p[i] -= mass
        left_q[j] -= mass
        if left_p[i] <= left_q[j]:
            i += 1
        else:
            j += 1
    return table


def cell_fills(encoder, released, cell_std):
    """How much of its outermost occupied bins each binned column's rows fill.

    A bin holds rows when its released share clears ``z`` times the
    release's noise (``z`` at ``POLICY.edge_level`` over the column's bins);
    the lowest and highest such bins, when they differ, are filled by their
    share over that of the next bin in (``p_lo / p_lo+1``, clipped to
    ``[0, 1]``): where the rows run on at the same density up to where they
    stop, that is the part of the bin they fill, next to the bin in. A bin
    as full as the next one is filled whole (values drawn on all of it, as
    without this); one far thinner holds the rows of a range that stops
    inside it, and its values are drawn where they are.

    Parameters
    ----------
    encoder : TableEncoder
        Fitted.
    released : list of ndarray
        Per one-hot block, its released one-way shares (noisy; may be
        negative), in slots.
    cell_std : float
        The noise standard deviation of a slot's share.

    Returns
    -------
    fills : dict
        ``{column: (lo, f_lo, hi, f_hi)}``, for
        :func:`~skdpgen.schema.kinds.fill_offsets`. Public: a function of the
        releases and the encoding.
    """
    binned = {c.key: c.bins for c in encoder.codecs_ if getattr(c, "binned", False)}
    fills = {}
    for b, key in enumerate(encoder.block_columns_[:len(released)]):
        if key not in binned or b >= len(encoder.category_sizes_) - len(
                encoder.indicator_columns_):
            continue
        p = np.asarray(released[b], dtype=np.float64)[:binned[key]]
        lo, hi = held_bins(p, cell_std, POLICY.edge_level) or (0, 0)
        if lo < hi:
            fills[key] = (lo, _filled(p[lo], p[lo + 1]), hi, _filled(p[hi], p[hi - 1]))
    return fills


def held_bins(counts, std, level):
    """The first and last of released ``counts`` (or shares) that clear ``z·std``,
    ``z`` at ``level`` over the bins (Bonferroni): the range a release holds
    rows in; None when no bin clears it. Post-processing of the release.

    Examples
    --------
    >>> from skdpgen.synthesizers.mechanisms._marginal_cells import held_bins
    >>> held_bins([1.0, 40.0, 3.0, 55.0, 2.0], 5.0, 0.05)
    (1, 3)
    """
    held = np.flatnonzero(np.asarray(counts, dtype=np.float64)
                          >= norm.isf(level / len(counts)) * std)
    return (int(held[0]), int(held[-1])) if held.size else None


def empty_tails(orders, released, cell_std, level=POLICY.edge_level, margin=1):
    """Per one-hot block, its ordered slots beyond the range the release holds rows in.

    An ordered block's released shares are summed by place along its values
    (a bin with the spec's ``"points"`` in it: their slots with the bin's);
    the places more than ``margin`` beyond the range they hold rows in
    (:func:`held_range` at ``level``, runs at ``POLICY.tail_run_stds``; each
    place's noise ``cell_std`` times the square root of its slots) hold no
    rows the release can tell from its noise. The margin keeps the place next to the held range: a thin
    column's outermost place of rows can fall short. A release's noise on an empty cell is
    as often positive as negative; a model fitted to it (the loss is the
    releases' Gaussian likelihood, and a model's shares are never negative)
    writes the positive part, values past where the rows stop: about
    ``0.4·cell_std`` of the rows for each empty cell. Post-processing of the
    release.

    Parameters
    ----------
    orders : list
        Per block, :meth:`~skdpgen.schema.TableEncoder.cell_order` (None: a
        block without order).
    released : list of ndarray
        Per block, its released one-way shares (noisy; may be negative).
    cell_std : float
        The noise standard deviation of a slot's share.
    level : float, default=POLICY.edge_level
    margin : int, default=1

    Returns
    -------
    empty : list of ndarray of bool
        Per block, True at the slots beyond the held range; all False for a
        block without order, or where no place clears its noise.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen.synthesizers.mechanisms._marginal_cells import empty_tails
    >>> order = np.array([0, 1, 2, 3, 4, 5, 6, -1])  # seven bins, a slot of missing values
    >>> shares = np.array([0.01, 0.5, 0.3, 0.03, -0.01, 0.01, -0.01, 0.17])
    >>> empty_tails([order, None], [shares, np.ones(2) / 2], 0.02)[0].tolist()
    [False, False, False, False, False, True, True, False]
    """
    out = []
    for order, shares in zip(orders, released):
        shares = np.asarray(shares, dtype=np.float64)
        empty = np.zeros(shares.size, dtype=bool)
        out.append(empty)
        if order is None or not (order >= 0).any():
            continue
        placed = order >= 0
        width = int(order.max()) + 1
        at = np.bincount(order[placed], weights=shares[placed], minlength=width)
        slots = np.bincount(order[placed], minlength=width)
        held = held_range(at, cell_std * np.sqrt(np.maximum(slots, 1)), level,
                          run_stds=POLICY.tail_run_stds)
        if held is not None:
            empty[placed] = ((order[placed] < held[0] - margin)
                             | (order[placed] > held[1] + margin))
    return out


def held_range(counts, std, level, run_stds=None):
    """The range of places a release holds rows in: :func:`held_bins`, widened
    while a run of places next to it holds rows together.

    From the held bins outwards, on each side: of the runs of places next
    to the range whose released sum clears ``z`` times its noise (the
    places' ``std`` summed in quadrature), the one of the largest sum joins
    the range; again, until none does. ``z`` is ``run_stds``, or by default
    at ``level`` over the places (under no rows each run's sum is Gaussian
    with that noise, so a run of empty places joins w.p. at most ``level``
    over the places per test). A thin column's tail (many places, each
    below its noise) is held by its sum: a low ``z`` keeps it at the price of
    keeping some empty places too (which is what a model fitted to the
    release would do without this).
    Post-processing of the release.

    Parameters
    ----------
    counts : array-like of shape (places,)
        Released counts or shares.
    std : float or array-like of shape (places,)
        Their noise standard deviations.
    level : float

    Returns
    -------
    range : tuple of int or None
        The first and last place held; None when no place clears its noise.

    Examples
    --------
    >>> from skdpgen.synthesizers.mechanisms._marginal_cells import held_range
    >>> counts = [0.0, 0.0, 3.0, 4.0, 3.0, 40.0, 2.0, -1.0]
    >>> held_range(counts, 2.0, 0.05)  # held_bins alone: (5, 5)
    (2, 5)
    """
    counts = np.asarray(counts, dtype=np.float64)
    var = np.broadcast_to(np.asarray(std, dtype=np.float64) ** 2, counts.shape)
    held = held_bins(counts, np.sqrt(var), level)
    if held is None:
        return None
    z = norm.isf(level / len(counts)) if run_stds is None else run_stds
    lo, hi = held
    while True:
        grown = False
        for side in (-1, 1):
            run = np.arange(hi + 1, len(counts)) if side > 0 else np.arange(lo - 1, -1, -1)
            if not run.size:
                continue
            total = np.cumsum(counts[run])
            clears = np.flatnonzero(total >= z * np.sqrt(np.cumsum(var[run])))
            if clears.size:  # to the run's largest sum: no empty places past it
                grown, end = True, int(run[clears[np.argmax(total[clears])]])
                lo, hi = (lo, end) if side > 0 else (end, hi)
        if not grown:
            return lo, hi


def _filled(edge, inner):
    """The share of a bin of released share ``edge`` next to one of ``inner``."""
    return float(np.clip(edge / inner, 0.0, 1.0)) if inner > 0 else 1.0
