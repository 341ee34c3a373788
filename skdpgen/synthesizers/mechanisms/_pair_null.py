"""What a pair score holds when its two columns are independent: the null of the
pair selection's scores, from the one-way release and its public noise level.

A function of released values and public noise levels only, drawn with a public
seed (post-processing); :meth:`MarginalMechanism.strong_pairs_not_measured
<skdpgen.synthesizers.mechanisms._marginal_checks.MarginalChecks.strong_pairs_not_measured>`
reads it.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import numpy as np

from ._marginal_cells import simplex_projection

__all__ = ["null_scores"]


def null_scores(pairs, fine, groups, cell_std, n_rows, draws, seed=0):
    """The mean and standard deviation of each pair's score at independence.

    A pair's score (``pair_scores``) is ``Σ_cells |N_ab − n p̂_a p̂_b|``
    with ``p̂`` the one-way release projected onto the simplex: at
    independence it is not 0 but the sum of two errors, the rows' own
    departure from independence (a few rows a cell) and ``n`` times the
    error of ``p̂_a ⊗ p̂_b``, which the one-way release's noise sets
    (``cell_std`` a fine cell's share, for every cell). Simulated ``draws``
    times with the released one-way marginals as the truth: each column's
    release drawn again (its noise added to its projected release,
    projected, grouped into the pairs' coarse cells; one draw a column,
    shared by its pairs), each pair's table drawn from the product of its
    coarse marginals (multinomial, ``n_rows`` rows).

    Parameters
    ----------
    pairs : list of tuple of int
        The candidate pairs (block indices).
    fine : list of ndarray
        Per block, its cells in the one-way release (shares of the rows, noisy).
    groups : list
        Per block, None or its coarse cell indices (``pair_groups``).
    cell_std : float
        The one-way release's noise on a cell's share of the rows.
    n_rows : int
    draws : int
    seed : int, default=0
        A public seed: the result is a function of the release.

    Returns
    -------
    mean, std : ndarray of shape (len(pairs),)
        In rows.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen.synthesizers.mechanisms._pair_null import null_scores
    >>> fine = [np.array([0.5, 0.5]), np.array([0.25, 0.25, 0.5])]
    >>> mean, std = null_scores([(0, 1)], fine, [None, None], 0.0, 10_000, 200)
    >>> bool(50 < mean[0] < 200)  # about Σ √(2/π · n p_a p_b): no pair is exactly free
    True
    """
    rng = np.random.default_rng(seed)
    coarse, errors = [], []
    for cells, group in zip(fine, groups):
        p = simplex_projection(cells)
        again = p + cell_std * rng.standard_normal((draws, len(p)))
        drawn = np.apply_along_axis(simplex_projection, 1, again) if cell_std else again
        if group is not None:
            p = np.bincount(group, weights=p)
            drawn = np.stack([np.bincount(group, weights=row) for row in drawn])
        coarse.append(p / p.sum())
        errors.append(drawn - p)
    mean, std = np.empty(len(pairs)), np.empty(len(pairs))
    for i, (a, b) in enumerate(pairs):
        shape = (draws, len(coarse[a]), len(coarse[b]))
        table = rng.multinomial(n_rows, np.outer(coarse[a], coarse[b]).ravel(),
                                size=draws).reshape(shape)
        p_a = table.sum(2) / n_rows + errors[a]
        p_b = table.sum(1) / n_rows + errors[b]
        score = np.abs(table - n_rows * p_a[:, :, None] * p_b[:, None, :]).sum((1, 2))
        mean[i], std[i] = score.mean(), score.std()
    return mean, std
