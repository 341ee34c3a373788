"""Pairwise features: the pairwise Hermite kernel of an encoded table, and its release's
post-processing.

Which columns and which pairs of columns the pairwise kernel keeps (public
choices: the widths from the schema, the noise from the budget), and the
James–Stein shrinkage of a released pairwise embedding's categorical pairs
toward independence. DP-HP's and DP-MERF's mechanisms release this kernel
(:class:`~skdpgen.synthesizers.HermiteMechanism`,
:class:`~skdpgen.synthesizers.DPMERFSynthesizer`'s ``pairwise_share``).
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import itertools
import math

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ...kernels import HermiteFeatures
from .._policy import POLICY

__all__ = ["draw_pairwise_columns", "pairs_above_noise", "pairwise_features",
           "shrink_pairwise"]


def draw_pairwise_columns(rng, widths, max_features=POLICY.max_pairwise_features):
    """The columns of the pairwise kernel (public randomness when they must be cut).

    All columns when their pairwise kernel, ``Σ_{a<b} w_a w_b`` features,
    has at most ``max_features``; otherwise columns are taken in a random
    order, each kept when the kernel over the kept ones stays within
    ``max_features``.

    Parameters
    ----------
    rng : numpy.random.Generator
    widths : sequence of int
        Features of each table column (public).
    max_features : int, default=POLICY.max_pairwise_features

    Returns
    -------
    columns : ndarray of int
        Sorted; at least one column.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen.synthesizers.mechanisms._pairwise import draw_pairwise_columns
    >>> draw_pairwise_columns(np.random.default_rng(0), [6, 6, 2]).tolist()
    [0, 1, 2]
    """
    widths = np.asarray(widths, dtype=np.int64)
    if (widths.sum() ** 2 - (widths ** 2).sum()) // 2 <= max_features:
        return np.arange(widths.size, dtype=np.intp)
    kept, total, count = [], 0, 0
    for j in rng.permutation(widths.size):
        if count + total * int(widths[j]) <= max_features:
            kept.append(int(j))
            count += total * int(widths[j])
            total += int(widths[j])
    return np.sort(np.asarray(kept, dtype=np.intp))


def pairs_above_noise(widths, noise_std, ratio=POLICY.pair_noise_ratio):
    """The pairs of columns whose pairwise features stand above a release's noise.

    A pair of columns with ``w_a`` and ``w_b`` features each (one-hot
    entries, or Hermite terms of a numeric column) has ``w_a·w_b`` features
    in the pairwise kernel, each divided by ``sqrt(P)`` for ``P`` pairs.
    Rows spread evenly over them give each a mean of ``1/(sqrt(P)·w_a·w_b)``
    (a class gets its share of that), against Gaussian noise of standard
    deviation ``noise_std`` on every feature of the released mean: a pair
    is kept when that mean is at least ``1/ratio`` of the noise,
    ``w_a·w_b·sqrt(P) ≤ ratio/noise_std``. Real tables put most rows in a
    few of a pair's cells, so the even spread understates what a pair
    shows; ``ratio`` (default ``POLICY.pair_noise_ratio = 4``) allows for that.
    Matching the noise of the pairs beyond the line is what made generators
    invent joint structure: on Bundesliga's validation split (52 × 52
    teams, n ≈ 8,400, public schema) DP-HP's 2-way TV was 0.24 with every
    pair and 0.19 with this rule, which keeps there only the pairs with the
    date (and its missing indicator); ratio 1 cost flchain's DP-MERF (2-way TV
    0.069-0.083 with every pair, 0.080-0.089 at 4, 0.088-0.091 at 1;
    ``benchmarks/JOURNAL.md``). The pairs are taken narrowest first (ties in
    column order) while the rule holds for the pairs kept so far, which
    gives the largest set that satisfies it (``w·sqrt(k)`` grows with
    ``k``); at least the narrowest pair. Every
    input is public: the widths come from the schema, and ``noise_std =
    σ·Δ/n`` from the budget shares, the map's row distance ``Δ`` and the
    number of rows (public under replace-one neighbouring).

    Parameters
    ----------
    widths : sequence of int
        Features of each column (public), at least two columns.
    noise_std : float
        Standard deviation of the release's noise on each feature.
    ratio : float, default=POLICY.pair_noise_ratio
        How far below the noise an evenly spread pair may sit.

    Returns
    -------
    pairs : ndarray of int of shape (P, 2)
        Indices into ``widths``, each pair ``(a, b)`` with ``a < b``.

    Examples
    --------
    Two numeric columns at order 5 (6 features each) and a block of 52
    categories, noise ``1/125`` per feature (``ratio/noise_std = 500``):
    the 36-feature pair and one 312-feature pair fit (``312·sqrt(2) ≈ 441
    ≤ 500``), the third does not (``312·sqrt(3) ≈ 540``).

    >>> from skdpgen.synthesizers.mechanisms._pairwise import pairs_above_noise
    >>> pairs_above_noise([6, 6, 52], 1 / 125).tolist()
    [[0, 1], [0, 2]]
    """
    widths = np.asarray(widths, dtype=np.float64)
    pairs = sorted(itertools.combinations(range(widths.size), 2),
                   key=lambda ab: (widths[ab[0]] * widths[ab[1]], ab))
    if not pairs:
        raise ValueError(f"pairs_above_noise needs at least two columns, got {widths.size}.")
    kept = 1
    while (kept < len(pairs) and widths[pairs[kept][0]] * widths[pairs[kept][1]]
           * math.sqrt(kept + 1) * noise_std <= ratio):
        kept += 1
    return np.asarray(sorted(pairs[:kept]), dtype=np.intp)


def pairwise_features(n_numeric, category_sizes, order, length_scale, rng, noise_std=None):
    """The pairwise Hermite kernel of an encoded table, fitted (public choices only).

    :class:`~skdpgen.HermiteFeatures` with ``kernel="pairwise"`` over the
    columns :func:`draw_pairwise_columns` keeps (all of them unless the
    kernel would exceed ``POLICY.max_pairwise_features`` features): numeric columns
    at Hermite ``order``, one-hot blocks as they are; with ``noise_std``,
    over the pairs of those columns that :func:`pairs_above_noise` keeps.

    Parameters
    ----------
    n_numeric : int
    category_sizes : sequence of int
    order : int
    length_scale : float or array-like
    rng : numpy.random.Generator
        Public randomness (used only when the columns must be cut).
    noise_std : float, default=None
        The release's noise standard deviation on each feature of the mean
        embedding; None keeps every pair.

    Returns
    -------
    features : HermiteFeatures

    Examples
    --------
    Two numeric columns and a categorical one with three categories: three
    pairs, ``6·6 + 6·3 + 6·3`` features at order 5.

    >>> import numpy as np
    >>> from skdpgen.synthesizers.mechanisms._pairwise import pairwise_features
    >>> pairs = pairwise_features(2, [3], 5, 0.5, np.random.default_rng(0))
    >>> pairs.kernel, pairs.n_features_out_
    ('pairwise', 72)

    With noise ``1/10`` per feature, only the two narrowest pairs:

    >>> pairwise_features(2, [3], 5, 0.5, np.random.default_rng(0),
    ...                   noise_std=1 / 10).pairs_.tolist()
    [[0, 2], [1, 2]]
    """
    sizes = [int(k) for k in category_sizes]
    widths = [order + 1] * n_numeric + sizes
    columns = draw_pairwise_columns(rng, widths)
    pairs = None
    if noise_std is not None and columns.size > 1:
        pairs = columns[pairs_above_noise([widths[j] for j in columns], noise_std)]
    return HermiteFeatures(order=order, length_scale=length_scale, kernel="pairwise",
                           product_dims=columns, pairs=pairs, category_sizes=sizes,
                           ).fit(np.zeros((1, n_numeric + sum(sizes))))


def _pair_layout(pairwise):
    """``[(a, b, w_a, w_b, start)]`` of a fitted pairwise kernel's pairs, in feature order."""
    p = pairwise.n_numeric_
    sizes = list(pairwise.category_sizes)
    widths = {j: (pairwise.order + 1 if j < p else int(sizes[j - p]))
              for j in pairwise.product_dims_.tolist()}
    layout, start = [], 0
    for a, b in pairwise.pairs_.tolist():
        layout.append((a, b, widths[a], widths[b], start))
        start += widths[a] * widths[b]
    return layout


def shrink_pairwise(target, pairwise, noise_std, column_means):
    """Shrink a pairwise release's categorical pairs toward independence (James–Stein).

    For every class ``k`` and every pair ``(a, b)`` of one-hot (categorical)
    columns of the pairwise kernel, the released block, the class's joint
    histogram of the two columns plus noise, ``J̃ = E_k[φ_a ⊗ φ_b]/sqrt(P) +
    noise``, is pulled toward the joint of independent columns, ``T = m_a ⊗
    m_b / sqrt(P)``, with ``m_a`` an estimate of ``E_k[φ_a]`` (the class's
    histogram of column ``a``) from another release: ``T + c (J̃ − T)``
    with the positive-part James–Stein factor ``c = max(0, 1 − (q − 2) v̄ /
    ‖J̃ − T‖²)`` for a block of ``q = w_a·w_b ≥ 3`` cells, ``v̄`` the mean
    noise variance of ``J̃ − T`` per cell (the release's, plus ``T``'s from
    the margins' noise). A pair whose dependence stands clear of the noise
    keeps ``c ≈ 1``; a pair whose block is mostly noise gets ``c ≈ 0``, so
    the generator is no longer asked to reproduce the noise as joint
    structure. For Gaussian noise of equal variance per cell (here nearly:
    the margins' share is small) and a target independent of it,
    James–Stein's estimator has a lower expected squared error than the
    release itself whatever the true block (``q ≥ 3``). Pairs with a
    numeric column are left as released: their entries (Hermite orders)
    differ in scale by far, and one factor for all of them shrank strong
    dependences between numeric columns (diamonds' validation split: 2-way
    TV 0.048 → 0.062; ``benchmarks/JOURNAL.md``).

    Post-processing: the inputs are released quantities and the releases'
    public noise levels, so the guarantee is unchanged.

    Parameters
    ----------
    target : ndarray of shape (n_classes, n_features)
        The released class-conditional mean embedding under ``pairwise``
        (each class divided by its weight; one row without labels).
    pairwise : HermiteFeatures
        The fitted pairwise kernel (``kernel="pairwise"``).
    noise_std : array-like of shape (n_classes,)
        Standard deviation of the noise on each entry of each class's row.
    column_means : dict
        ``{table column: (means of shape (n_classes, w), variance of shape
        (n_classes,))}``: estimates of ``E_k[φ_a]`` for one-hot columns
        ``a`` from another release, with the noise variance of each entry.
        A pair with a column missing from it is left as released.

    Returns
    -------
    shrunk : ndarray of shape (n_classes, n_features)
    factors : ndarray of shape (n_pairs, n_classes)
        The factors ``c`` (1: as released, 0: independence; 1 for the pairs
        left as released).

    Examples
    --------
    Two independent binary columns and pure noise on their one pair: the
    block is pulled to the product of the margins.

    >>> import numpy as np
    >>> from skdpgen import HermiteFeatures
    >>> from skdpgen.synthesizers.mechanisms._pairwise import shrink_pairwise
    >>> pair = HermiteFeatures(kernel="pairwise", category_sizes=[2, 2]).fit(np.zeros((1, 4)))
    >>> noise = np.array([[0.01, -0.02, 0.015, -0.005]])
    >>> target = np.full((1, 4), 0.25) + noise
    >>> means = {0: (np.array([[0.5, 0.5]]), np.array([1e-6])),
    ...          1: (np.array([[0.5, 0.5]]), np.array([1e-6]))}
    >>> shrunk, factors = shrink_pairwise(target, pair, [0.05], column_means=means)
    >>> factors.round(2).tolist(), shrunk.round(3).tolist()
    ([[0.0]], [[0.25, 0.25, 0.25, 0.25]])
    """
    check_is_fitted(pairwise)
    target = np.asarray(target, dtype=np.float64)
    if target.ndim != 2 or target.shape[1] != pairwise.n_features_out_:
        raise ValueError(
            f"target must have shape (n_classes, {pairwise.n_features_out_}) for this "
            f"pairwise kernel; got {target.shape}."
        )
    noise_var = np.asarray(noise_std, dtype=np.float64) ** 2
    shrunk = target.copy()
    if pairwise.pairs_ is None:
        return shrunk, np.ones((0, target.shape[0]))
    layout = _pair_layout(pairwise)
    n_pairs = len(layout)
    factors = np.ones((n_pairs, target.shape[0]))
    for i, (a, b, wa, wb, start) in enumerate(layout):
        q = wa * wb
        if (a < pairwise.n_numeric_ or a not in column_means or b not in column_means
                or q < 3):
            continue  # a numeric column (b > a is then one-hot or numeric too)
        (ma, va), (mb, vb) = column_means[a], column_means[b]
        T = (ma[:, :, None] * mb[:, None, :]).reshape(-1, q) / math.sqrt(n_pairs)
        d = target[:, start:start + q] - T
        # noise of J̃ − T per cell: the release's, and T's through each margin's
        var = noise_var + (wa * va * (mb ** 2).sum(1) + wb * vb * (ma ** 2).sum(1)) / (
            q * n_pairs)
        norm2 = (d ** 2).sum(1)
        with np.errstate(divide="ignore", invalid="ignore"):
            c = np.where(norm2 > 0, 1.0 - (q - 2) * var / norm2, 0.0)
        factors[i] = np.clip(c, 0.0, 1.0)
        shrunk[:, start:start + q] = T + factors[i][:, None] * d
    return shrunk, factors
