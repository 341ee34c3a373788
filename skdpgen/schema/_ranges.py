"""Post-processing of the schema estimate's noisy releases: ranges and bounds.

Everything here is a function of released noisy vectors and of public
quantities (``n``, the noise standard deviation, the grids of
:mod:`skdpgen.schema._grids`): a column's range and bounds from a noisy
histogram (the integer and missing flags are in
:mod:`skdpgen.schema._flags`, a column's kind from its noisy form counts in
:mod:`skdpgen.schema.kinds._text`). None of it reads a row, so it can be tested
by simulation and swapped without touching the privacy analysis, which
lives in :mod:`skdpgen.schema._plan` alone. The rules are explained in
:mod:`skdpgen.private_schema`.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import functools
import math

import numpy as np
from scipy.special import ndtri

from ._grids import (
    FINE_BINS,
    FINE_GROUP,
    _fine_bin_edges,
    _fine_edges,
    _integer_bins,
    _numeric_grid,
    _numeric_positions,
)
from ._policy import POLICY


def _fine_found(fine, first, last, s):
    """The occupied sub-bins of the bins ``first..last`` on the fine grid, or None.

    In the range's sub-bins, and in their groups of ``FINE_GROUP``, the
    occupied ones are found as the numeric bins are (a Bonferroni threshold
    over the range, hysteresis on the sub-bins, no cut); a group extends
    the sub-bins' range only when entirely outside it. None when nothing
    in the range clears its threshold: the fine grid did not locate the
    range's values within its bins. Post-processing of the noisy ``fine``.

    Returns
    -------
    found : tuple of (int, int) or None
        The first and last occupied sub-bin, counted from the range's first.
    """
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
    return found


def _unlocated_share(fine, hist, first, last, s, present, bins):
    """The share of the present rows in a range of few bins that the fine grid
    located nothing in (0 when it located some, or when the range has more bins).

    The range ``first..last`` of numeric bins, at most ``POLICY.unlocated_bins``
    of ``bins`` (the bins that can hold the column's values: every bin is an
    end bin, no inner bin found occupied pins its values), is checked on the
    noisy ``fine`` histogram (:func:`_fine_found`);
    when none of its sub-bins or groups clears its threshold, its rows may lie
    in a small part of its bins, and the bounds give them the whole. Their
    share is the bins' noisy count over ``present`` (the estimated present
    rows), in ``[0, 1]``. A normal column's range of four bins
    ``(30, 40] … (60, 80]`` is not named (a rule on the end bins' width
    named it in 73 of 100 simulated releases at ``s = 65``, n = 4,000).
    Post-processing of the release.
    """
    inside = bins[(bins >= first) & (bins <= last)]
    if inside.size > POLICY.unlocated_bins or _fine_found(fine, first, last, s) is not None:
        return 0.0
    return float(np.clip(np.sum(hist[inside]) / max(present, 1.0), 0.0, 1.0))


def _refined_range(fine, coarse, first, last, s, integer, decades=None):
    """The range ``first..last`` of numeric bins, its end bins cut on the fine grid.

    ``fine`` is the noisy fine histogram and ``coarse`` the noisy numeric
    histogram (noise std ``s`` per sub-bin and per bin). In the sub-bins of
    the range, and in their groups of ``FINE_GROUP``, the occupied ones are
    found as the numeric bins are (a Bonferroni threshold over the range,
    hysteresis on the sub-bins, no cut); the lowest and the highest
    occupied sub-bin, stretched to the occupied groups entirely outside
    them (or the groups alone when no sub-bin is occupied), widened by
    ``POLICY.fine_margin`` times their distance at each end, bound the range
    where they fall inside its first and last bin (or beyond them): an end
    bin is cut, never dropped, unless it is a lone weak end bin
    (:func:`_lone_weak_end`) that they do not reach (a range ending on the
    open edge of a bin does not reach it: a 0/1 column's ``[0, 1.5]`` does
    not reach ``(1.5, 2]``, which joined its range on a 2 s fluctuation in
    6 of 400 simulated releases at ``s = 40`` and gave it a level 2; the
    bin dropped, the range keeps its bins' edges when the refinement gains
    too little). The refined range
    replaces the range only when it is at most ``POLICY.fine_shrink`` of its width,
    and when the mass it leaves out is not significant: neither the noisy
    bins of the range entirely outside it, nor (with ``decades``, the
    directly released decade counts) the range's decades less the noisy
    sub-bins inside it (a spike of repeated values is not where a column's
    values end).

    Returns
    -------
    lo, hi : float
        The refined range (the bins' edges where nothing was found).
    """
    lower, upper, _, _ = _numeric_grid()
    found = _fine_found(fine, first, last, s)
    lo, hi = float(lower[first]), float(upper[last])
    if found is None:
        return lo, hi
    found_lo = _fine_edges(first * FINE_BINS + found[0])[0]
    found_hi = _fine_edges(first * FINE_BINS + found[1])[1]
    margin = POLICY.fine_margin * (found_hi - found_lo)  # the tails too thin to be found
    new_lo, new_hi = found_lo - margin, found_hi + margin
    # an end bin is cut, never dropped: it holds values; except a lone weak end
    # bin out of reach, an empty bin that joined on a fluctuation far more often
    # (a positive bin (a, b] is out of reach of a range ending at a, as a
    # negative bin [a, b) is of one starting at b: a 0/1 column's 1 ± the
    # margin ends at 1.5, the lower edge of its empty neighbour (1.5, 2])
    bins = _integer_bins() if integer else np.arange(coarse.size)
    if new_lo >= upper[first] if upper[first] <= 0.0 else new_lo > upper[first]:
        first = _lone_weak_end(coarse, bins, first, last, s, 1)
    if new_hi <= lower[last] if lower[last] >= 0.0 else new_hi < lower[last]:
        last = _lone_weak_end(coarse, bins, last, first, s, -1)
    new_lo = float(lower[first]) if new_lo > upper[first] else max(float(lower[first]), new_lo)
    new_hi = float(upper[last]) if new_hi < lower[last] else min(float(upper[last]), new_hi)
    if new_hi - new_lo > POLICY.fine_shrink * (hi - lo):  # no big gain: lone sub-bins, not a range
        return float(lower[first]), float(upper[last])  # less a lone weak end dropped
    # the bins of the range entirely outside the refined one must hold no
    # significant mass: a spike of repeated values found on the fine grid is
    # not where the column's values end
    out = [b for b in range(first, last + 1) if upper[b] <= new_lo or lower[b] >= new_hi]
    mass = float(np.clip(coarse[first:last + 1], 0.0, None).sum())
    left = float(np.sum(coarse[out])) if out else 0.0
    if out and left > max(POLICY.group_stds * s * np.sqrt(len(out)), POLICY.quantile * 4 * mass):
        return lo, hi
    if decades is not None:  # ... nor the rest of the range's decades, released directly
        _, _, groups, _ = _numeric_grid()
        gids = np.unique(groups[first:last + 1])
        positions = np.arange(first * FINE_BINS, (last + 1) * FINE_BINS)
        sub_lo, sub_hi = _fine_bin_edges(positions)
        inside = (sub_hi > new_lo) & (sub_lo < new_hi)
        rest = float(np.sum(np.asarray(decades)[gids])) - float(np.sum(fine[positions[inside]]))
        if rest > max(POLICY.group_stds * s * math.sqrt(int(inside.sum()) + gids.size),
                      POLICY.quantile * 4 * mass):
            return lo, hi
    return new_lo, new_hi


def _lone_weak_end(coarse, bins, end, other, s, step):
    """End bin ``end`` of a range, or its inner neighbour when it is a lone weak end.

    A lone weak end bin is at most ``POLICY.group_stds·s`` (4 s: above that
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
    if (inner - other) * step > 0 or coarse[end] > POLICY.group_stds * s or coarse[inner] <= z * s:
        return end
    return inner


@functools.lru_cache(maxsize=16)
def _bonferroni_z(n_ids):
    """``Φ⁻¹(1 − POLICY.false_bin_rate / n_ids)``."""
    return float(-ndtri(POLICY.false_bin_rate / n_ids))


def _trimmed_range(sums, sizes, s, grow, quantile=POLICY.quantile):
    """First and last occupied id after the robust cut, or None (see module doc)."""
    n_ids = sums.size
    z = _bonferroni_z(n_ids)
    noise = s * np.sqrt(sizes)
    occupied = sums > z * noise
    if not occupied.any():
        return None
    weak = sums > POLICY.grow_stds * noise  # hysteresis: weak bins next to occupied ones join
    bridge = sums > POLICY.bridge_stds * noise  # ... and stronger ones across one empty bin
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


def _occupied_range(noisy, levels, s, guess=True, direct=None):
    """First and last bin of the robust occupied range (see module doc).

    ``noisy`` are the noisy bin counts (noise std ``s`` each); ``levels`` a
    list of coarse levels, finest first, each a non-decreasing group id per
    bin. The fine range (with hysteresis) is extended, level by level, to
    the coarse groups found occupied (without) entirely outside it (values
    too diffuse for single bins), then over significant mass just outside
    its ends (:func:`_extend_ends`); with nothing occupied at any level, the
    range is the group of largest noisy sum of the first coarse level (a
    guess; None instead when ``guess`` is false). ``direct``: for each
    level, None (its groups' counts are the sums of their bins' noisy
    counts, noise ``s·sqrt(size)``) or the group counts released directly
    (indexed by group id, noise std ``s`` each): a group holding no bin
    is left out.
    """
    found = _trimmed_range(noisy, np.ones(noisy.size), s, grow=True)
    direct = direct or [None] * len(levels)
    for groups, released in zip(levels, direct):
        groups = np.asarray(groups)
        n_groups = int(groups[-1]) + 1
        sizes = np.bincount(groups, minlength=n_groups)
        if released is None:
            sums = np.bincount(groups, weights=noisy, minlength=n_groups)
        else:  # one bin's noise per group; a group without bins holds nothing here
            sums = np.where(sizes > 0, np.asarray(released, float)[:n_groups], 0.0)
            sizes = np.ones(n_groups)
        coarse = _trimmed_range(sums, sizes, s, grow=False)
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
        if direct[0] is None:
            weights = np.bincount(groups, weights=noisy)
        else:
            present = np.bincount(groups, minlength=int(groups[-1]) + 1) > 0
            weights = np.where(present, np.asarray(direct[0], float)[:present.size], -np.inf)
        heaviest = int(np.argmax(weights))
        in_it = np.flatnonzero(groups == heaviest)
        found = int(in_it[0]), int(in_it[-1])
    return found


def _extend_ends(noisy, groups, first, last, s):
    """The range ``first..last`` grown, group by group, over significant mass
    just outside it (hysteresis on the coarse level, at ``POLICY.group_stds``).

    Outside each end, in the nearest group (the rest of the end's own
    group, or the whole next group once the range reaches the group's
    edge), a run of the ``k`` bins next to the range, of noisy sum ``r``,
    passes when ``r > POLICY.group_stds·s·sqrt(k)`` and ``r`` exceeds
    ``POLICY.quantile`` of the range's noisy mass; the passing run of largest
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
        ok = (sums > POLICY.group_stds * s * root) & (sums > POLICY.quantile * mass)
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


def _numeric_range(noisy, s, integer, guess=True, decades=None):
    """First and last bin of the numeric grid's occupied range (:func:`_occupied_range`).

    An integer column leaves out the bins that hold no integer
    (:func:`_integer_bins`): they are empty by construction, and would cut
    the hysteresis off between 1, 2, 3, … (see the module doc). None when
    nothing is detected and ``guess`` is false. ``decades``: the decade
    histogram released directly (noise ``s`` per decade), else the decades
    are the sums of their bins.
    """
    _, _, groups, _ = _numeric_grid()
    bins = _integer_bins() if integer else np.arange(groups.size)
    direct = None if decades is None else [decades]
    found = _occupied_range(noisy[bins], [groups[bins]], s, guess=guess, direct=direct)
    if found is None:
        return None
    first, last = int(bins[found[0]]), int(bins[found[1]])
    if decades is not None:
        first, last = _unaccounted_decades(noisy, decades, first, last, s)
    return _one_sign(noisy, decades, first, last, s, bins)


def _one_sign(noisy, decades, first, last, s, bins):
    """The range ``first..last`` less its part on one side of zero that holds no
    significant mass while the rest of the range does.

    The bins of the range below zero (above zero), ``k`` of ``bins``, hold
    significant mass when their noisy sum exceeds ``POLICY.group_stds·s·sqrt(k)``
    or, with ``decades`` (released directly, noise ``s`` each), the count of
    their ``g`` decades exceeds ``POLICY.group_stds·s·sqrt(g)``; the rest of
    the range (the exact-zero bin and the other side) by the same test.
    The sign of a column's values is not a neighbourhood: the bin ``[-1, -0.8)``
    lies next to the exact-zero bin among an integer column's bins, and an
    empty one joined a 0/1 column's range by hysteresis (above ``2s``, w.p.
    2.3 %), whose bounds became ``[-1, 1]`` and whose synthetic values held
    -1; an empty side passes this test w.p. 3e-5. At most one side is cut,
    the weaker (smaller sum over its noise) when both could be. Rows outside
    the range are still followed (:func:`~skdpgen.schema._mass._follow_mass`,
    which may cross zero on their estimated count). Post-processing.
    """
    lower, upper, groups, _ = _numeric_grid()
    inside = bins[(bins >= first) & (bins <= last)]
    below, above = inside[upper[inside] <= 0.0], inside[lower[inside] >= 0.0]
    negative, positive = inside[lower[inside] < 0.0], inside[upper[inside] > 0.0]

    def score(part):
        """The larger of the part's bins' and decades' sums over their noise."""
        if not part.size:
            return -np.inf
        z = float(noisy[part].sum()) / (s * math.sqrt(part.size))
        if decades is not None:
            gids = np.unique(groups[part])
            z = max(z, float(np.sum(np.asarray(decades)[gids])) / (s * math.sqrt(gids.size)))
        return z

    cuts = []
    for side, rest in ((negative, above), (positive, below)):
        if side.size and rest.size and score(side) <= POLICY.group_stds < score(rest):
            cuts.append((score(side), side is negative))
    if not cuts:
        return first, last
    if min(cuts)[1]:  # the negative side
        return int(above[0]), last
    return first, int(below[-1])


def _unaccounted_decades(noisy, decades, first, last, s):
    """The range ``first..last`` stretched over each decade whose released count
    holds significantly more than the range's bins in it.

    A decade's direct count (noise ``s``) minus the noisy bins of the range
    that lie in it (``k`` bins) estimates the decade's rows outside the
    range, noise ``s·sqrt(1 + k)``; above ``POLICY.decade_stds`` (3) times that (an
    empty remainder passes w.p. 1.3e-3 per decade) and above 2 % of the
    range's mass (on a large table's small noise a fluctuation never does:
    a year column 1995-2003 of 9,000 rows once became ``[1001, 10000]``),
    the range takes the whole decade:
    the rows are there, spread over bins too thin to clear the noise one by
    one (a column of rates 1.8-10.6 with two thirds of its rows in
    ``(3, 4]`` otherwise kept ``(3, 4]`` alone and clipped a third of its
    rows). Post-processing of the same release.
    """
    _, _, groups, _ = _numeric_grid()
    mass = float(np.clip(noisy[first:last + 1], 0.0, None).sum())
    new_first, new_last = first, last
    for gid in np.unique(groups[first:last + 1]):
        in_decade = np.flatnonzero(groups == gid)
        inside = in_decade[(in_decade >= first) & (in_decade <= last)]
        rest = float(decades[gid]) - float(noisy[inside].sum())
        least = 4 * POLICY.quantile * mass
        if rest > max(POLICY.decade_stds * s * math.sqrt(1 + inside.size), least):
            new_first = min(new_first, int(in_decade[0]))
            new_last = max(new_last, int(in_decade[-1]))
    return new_first, new_last


def _finish_bounds(lo, hi, integer):
    """The bounds ``[lo, hi]`` of an estimated range, as the schema states them.

    An integer column gets the integers the range holds, ``ceil(lo)`` to
    ``floor(hi)``, less an end integer that lies on an open edge of the
    range (the range of the bins ``(3, 4] … (8, 10]`` holds 4 to 10, not 3,
    which its bin ``(2.5, 3]`` holds; rounding outward gave a column of
    ratings 1-5, bins ``(0.8, 1] … (4, 5]``, the bounds ``[0, 5]`` and a
    level 0 the data never has); a range of one integer ``v`` becomes
    ``[v − 1, v]`` when ``v > 0``, else ``[v, v + 1]``: towards zero, so
    that a 0/1 column whose zeros the noise hid keeps its two levels (it
    became ``[1, 2]``, a level 2 the data never has). A range of one value of a column of other values
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
        if a < b:
            return [float(a), float(b)]
        if a == b:
            return [float(a - 1), float(a)] if a > 0 else [float(a), float(a + 1)]
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    if integer:
        lo, hi = math.floor(lo), math.ceil(hi)
    return [float(lo), float(hi)]
