"""Where a numeric column's mass lies outside a range, from its released counts.

Post-processing of the numeric release (:meth:`NumericKind.statistic`): the
noisy bins and the directly released decade counts (noise ``s`` each), the
noisy missing count and the public ``n``. :func:`_outside_mass` estimates
the rows outside a range of bins; :func:`_follow_mass` grows the range
towards that mass while it is significant; :func:`_trim_tail` cuts a thin
tail decade where its fitted mass ends. None reads a row.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math

import numpy as np
from scipy.special import ndtri
from sklearn.isotonic import IsotonicRegression

from ._grids import _numeric_grid
from ._policy import POLICY


def _outside_mass(hist, decades, first, last, s, present, s_present, bins=None):
    """Estimated rows outside the bins ``first..last``, and its noise std.

    ``present`` estimates the rows present (``n − m̃``, noise
    ``s_present``). The rows inside are estimated group by group: a group
    (decade) the range holds entirely by its direct count (noise ``s``); a
    group it holds in part by the inverse-variance mean of the range's
    bins in it (``k_in`` bins: noise ``s·sqrt(k_in)``) and of the group's
    count less its other bins (``k_out`` of them: ``s·sqrt(1 + k_out)``),
    both unbiased, so the noise is ``s / sqrt(1/k_in + 1/(1 + k_out))``.
    The bins of a group are those of ``bins`` (the integer bins of an
    integer column: the others are empty by construction).

    Returns
    -------
    outside, std : float
    """
    _, _, groups, _ = _numeric_grid()
    bins = np.arange(hist.size) if bins is None else np.asarray(bins)
    inside, var = float(present), float(s_present) ** 2
    for gid in np.unique(groups[first:last + 1]):
        mine = bins[groups[bins] == gid]
        k_in = int(np.sum((mine >= first) & (mine <= last)))
        k_out = mine.size - k_in
        if k_in == 0:  # no bin of ``bins`` here (a non-integer bin of an integer range)
            continue
        if k_out == 0:
            inside_g, var_g = float(decades[gid]), 1.0
        else:
            a = float(hist[mine[(mine >= first) & (mine <= last)]].sum())
            b = float(decades[gid]) - float(hist[mine[(mine < first) | (mine > last)]].sum())
            wa, wb = 1.0 / k_in, 1.0 / (1.0 + k_out)
            inside_g, var_g = (wa * a + wb * b) / (wa + wb), 1.0 / (wa + wb)
        inside -= inside_g
        var += var_g * s * s
    return inside, math.sqrt(var)


def _units(hist, decades, bins, end, step):
    """The units beyond bin ``end`` in direction ``step``, nearest first: the other
    bins of the end's group, then whole groups; ``(count, new end, group or None)``."""
    _, _, groups, _ = _numeric_grid()
    beyond = bins[(bins - end) * step > 0][::step]
    own = beyond[groups[beyond] == groups[end]]
    out = [(float(hist[b]), int(b), None) for b in own]
    rest = beyond[groups[beyond] != groups[end]]
    for gid in dict.fromkeys(groups[rest].tolist()):  # in order, nearest first
        mine = rest[groups[rest] == gid]
        out.append((float(decades[gid]), int(mine[-1]), mine))
    return out


def _into_group(hist, count, mine, s):
    """The bin of a joined group's bins ``mine`` (nearest first) where its mass ends:
    the first whose prefix leaves a remainder ``count − prefix`` (noise
    ``s·sqrt(1 + j)`` after ``j`` bins) under ``POLICY.trim_stds`` of its noise (else its
    last bin: the bins cannot tell where in the group its rows are)."""
    prefix = np.cumsum(hist[mine])
    rest = (count - prefix) / (s * np.sqrt(2.0 + np.arange(mine.size)))
    ends = rest < POLICY.trim_stds
    j = int(np.argmax(ends)) if np.any(ends) else mine.size - 1
    return int(mine[j])


def _away(position, step):
    """Whether bin ``position`` lies away from zero in direction ``step``."""
    lower, upper, _, _ = _numeric_grid()
    return bool(lower[position] >= 0 if step > 0 else upper[position] <= 0)


def _follow_mass(hist, decades, first, last, s, present, s_present, bins=None):
    """The range ``first..last`` grown towards its rows outside it.

    While :func:`_outside_mass` puts more than ``POLICY.follow_stds`` (2) noise
    standard deviations and ``POLICY.follow_share`` (5 %) of the present rows
    outside the range, the range takes the most significant run of units
    next to it (the rest of its end group bin by bin, then up to
    ``POLICY.follow_groups`` whole groups towards zero, one away from it:
    ``k`` units of noisy sum ``r`` score
    ``r/(s·sqrt(k))``), on the side and of the length that score highest,
    when the score exceeds ``POLICY.grow_stds`` (2); without one, the group of
    largest count beyond the range, when above the Bonferroni threshold
    of ``POLICY.far_group_rate`` over the grid's groups (3.5 s), with everything
    in between. A group joined away from zero is taken up to the bin where its mass
    ends (:func:`_into_group`), not to its far edge (a price's tail over
    ``(0.1, 1]`` mostly lies below 0.2). The rows are known to be outside
    (the test on the total), so the bar to find where is lower than the
    detection's (5 s for a bin, 4.6 s for a group): mass spread thin over
    a long tail (counts 0 to thousands, prices over three decades), on the
    other side of zero, or in the end group's other bins. When all rows
    are inside, the total passes its test w.p. 2.3 %, and a run of empty
    units then joins w.p. a few percent.

    Returns
    -------
    first, last : int
    """
    _, _, groups, _ = _numeric_grid()
    bins = np.arange(hist.size) if bins is None else np.asarray(bins)
    n_groups = np.unique(groups[bins]).size
    z_far = float(-ndtri(POLICY.far_group_rate / n_groups))
    for _ in range(bins.size):
        out, std = _outside_mass(hist, decades, first, last, s, present, s_present, bins)
        if out <= max(POLICY.follow_stds * std, POLICY.follow_share * present):
            break
        best, far = None, None
        for end, step in ((first, -1), (last, 1)):
            units = _units(hist, decades, bins, end, step)
            near = [u for u in units if u[2] is None]
            groups_next = [u for u in units if u[2] is not None]
            near += groups_next[:1 if groups_next and _away(groups_next[0][1], step)
                                else POLICY.follow_groups]
            if not near:
                continue
            score = np.cumsum([u[0] for u in near]) / (s * np.sqrt(1.0 + np.arange(len(near))))
            k = int(np.argmax(score))
            if score[k] > POLICY.grow_stds and (best is None or score[k] > best[0]):
                best = float(score[k]), step, near[k]
            heavy = max(units, key=lambda u: u[0])
            if heavy[0] > z_far * s and (far is None or heavy[0] > far[0]):
                far = heavy[0], step, heavy  # a far group draws the range
        best = best or far
        if best is None:
            break
        _, step, (count, end, mine) = best
        if mine is not None and _away(end, step):  # a tenfold reach
            end = _into_group(hist, count, mine, s)
        if (first, last) == ((end, last) if step < 0 else (first, end)):
            break
        first, last = (end, last) if step < 0 else (first, end)
    return first, last


def _bin_widths(bins, integer):
    """Width of each numeric bin: its length, or the integers it holds."""
    lower, upper, _, _ = _numeric_grid()
    if integer:
        near = np.minimum(np.abs(lower[bins]), np.abs(upper[bins]))
        far = np.maximum(np.abs(lower[bins]), np.abs(upper[bins]))
        return np.maximum(np.floor(far) - np.floor(near), 1.0)
    return upper[bins] - lower[bins]


def _trim_tail(hist, decades, first, last, present, bins=None, integer=False):
    """The range ``first..last`` with its far end cut where a thin tail ends.

    When the range's end group away from zero (the decade of its last bin
    for a positive end, of its first for a negative one) holds less than
    another of its groups (a tail decade, not the bulk), the density in it
    is taken to fall away from zero: a non-increasing density (away from
    zero) is fitted to the noisy counts of its bins over their widths
    (isotonic regression, weights ``width²``: the counts' noise is equal),
    and the range ends at the first bin beyond which the fitted mass is
    under ``POLICY.tail_share`` of the ``present`` rows. The bins' noise cannot
    say where in a decade a thin tail ends (ten bins of noise ``s`` each);
    the fitted decreasing density can, without reading a row.

    Returns
    -------
    first, last : int
    """
    _, _, groups, _ = _numeric_grid()
    bins = np.arange(hist.size) if bins is None else np.asarray(bins)
    inside = bins[(bins >= first) & (bins <= last)]
    range_groups = np.unique(groups[inside])
    if range_groups.size < 2:
        return first, last
    strongest = max(float(decades[g]) for g in range_groups)
    for end, step in ((last, 1), (first, -1)):
        if not _away(end, step):
            continue
        gid = groups[end]
        if float(decades[gid]) >= strongest:
            continue
        mine = inside[groups[inside] == gid][::step]  # nearest zero first
        if mine.size < 3:
            continue
        widths = _bin_widths(mine, integer)
        density = IsotonicRegression(increasing=False).fit_transform(
            np.arange(mine.size), hist[mine] / widths, sample_weight=widths ** 2)
        mass = np.maximum(density, 0.0) * widths
        beyond = np.cumsum(mass[::-1])[::-1] - mass  # fitted rows beyond each bin
        keep = np.flatnonzero(beyond <= POLICY.tail_share * present)
        cut = int(mine[keep[0]]) if keep.size else end
        if step > 0:
            last = min(last, cut)
        else:
            first = max(first, cut)
    return first, last
