"""Marginal calibration: tilt a trained generator towards released one-way histograms.

A generator trained against kernel mean embeddings reproduces each column's
distribution only as finely as its kernel resolves it. :class:`MarginalCalibration`
releases every column's (class-conditional) histogram on a coarse public
grid with a share of the budget, and reweights the generator's samples so
that their histograms move towards the noisy ones, as far as the noise
warrants; the joint structure is the generator's. Everything after the
release is post-processing.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math

import numpy as np
from scipy.optimize import minimize
from scipy.special import logsumexp, softmax

from ..kernels import HistogramFeatures
from ._policy import POLICY

__all__ = ["MarginalCalibration", "marginal_cell_maps"]

#: Calibrated rows drawn at a time (memory: ``POLICY.resample_factor`` times
#: this many generated rows).
CHUNK_ROWS = 10_000


def marginal_cell_maps(encoder, bins):
    """Cells of :class:`~skdpgen.kernels.HistogramFeatures` for a fitted encoder.

    Integer-level and binned blocks wider than ``bins`` are grouped into
    ``bins`` runs of consecutive values (their missing or zero entry, if
    any, kept apart; a point with its bin: :meth:`TableEncoder.coarse_cells
    <skdpgen.schema.TableEncoder.coarse_cells>`); categorical blocks keep one cell per category; a numeric
    column's missing indicator becomes that column's "missing" cell.

    Parameters
    ----------
    encoder : TableEncoder
        Fitted.
    bins : int

    Returns
    -------
    params : dict
        ``category_sizes``, ``cell_maps`` and ``indicators`` for
        :class:`~skdpgen.kernels.HistogramFeatures`.

    Examples
    --------
    >>> import pandas as pd
    >>> from skdpgen.schema import TableEncoder
    >>> from skdpgen.synthesizers._calibration import marginal_cell_maps
    >>> X = pd.DataFrame({"k": [0, 7, 3], "c": ["a", "b", "a"]})
    >>> enc = TableEncoder({"k": {"type": "numeric", "bounds": [0, 7], "integer": True},
    ...                     "c": {"type": "categorical", "categories": ["a", "b"]}},
    ...                    max_levels=100).fit(X)  # k: a block of its 8 integers
    >>> params = marginal_cell_maps(enc, bins=4)
    >>> params["category_sizes"], params["cell_maps"][0].tolist(), params["cell_maps"][1]
    ([8, 2], [0, 0, 1, 1, 2, 2, 3, 3], None)
    """
    sizes = list(encoder.category_sizes_)
    n_blocks = len(sizes) - len(encoder.indicator_columns_)
    maps = list(encoder.coarse_cells(bins)[:n_blocks])
    maps += [None] * len(encoder.indicator_columns_)  # indicators: their column's cell
    block_of = {key: n_blocks + i for i, key in enumerate(encoder.indicator_columns_)}
    indicators = [block_of.get(key, -1) for key in encoder.numeric_columns_]
    return {"category_sizes": sizes, "cell_maps": maps, "indicators": indicators}


class MarginalCalibration:
    """Release one-way histograms and tilt a generator's samples towards them.

    Parameters
    ----------
    bins : int, default=16
        Cells per numeric column (equal-width on the encoded ``[-1, 1]``),
        and the most cells of an integer-level block.

    Attributes
    ----------
    features_ : HistogramFeatures
        The cells of every column (public: from the encoding alone).
    targets_ : ndarray of shape (max(1, n_classes), n_features_out)
        The released histograms, each class divided by its weight (so each
        column's cells sum to about ``1/sqrt(d)``); post-processing of the
        noisy release.
    coef_ : ndarray of shape (max(1, n_classes), n_features_out)
        The tilt: a generated row of class ``c`` with cells ``φ`` is kept
        with weight proportional to ``exp(coef_[c] · φ·sqrt(d))``.
    maps_ : list
        Each numeric column's monotone map (knots; None when the column is
        left as generated), the same for every class, applied before the
        tilt.

    Notes
    -----
    **Release.** The (cells × classes) matrix of ``(1/n) Σ_{i: y_i = c}
    h(z_i)`` for :class:`~skdpgen.kernels.HistogramFeatures` ``h``
    (non-negative unit vectors): replace-one sensitivity ``√2/n``, one
    Gaussian release named ``"one-way marginals"``.

    **Tilt.** For class ``c`` with ``N_c = π_c n`` rows, a pool of ``M``
    generated rows with cell indicators ``φ_i`` (one per column, unscaled)
    and the released histogram ``μ`` (each column's cells summing to about
    one, noise standard deviation ``s`` per cell), the weights solve

    ``min_w  KL(w ‖ uniform) + ‖Σ_i w_i φ_i − μ‖² / (2τ)``,
    ``τ = max(POLICY.prior_weight · N_c · s², 1/M)``,

    i.e. ``w_i ∝ exp(λ · φ_i)`` with ``λ`` minimizing the smooth, strictly
    convex dual ``log mean_i exp(λ · φ_i) − λ · μ + τ‖λ‖²/2`` (L-BFGS). With
    ``prior_weight = 1`` this is the posterior mode when the generator's
    distribution counts as ``N_c`` prior observations (Sanov) and the noise
    is Gaussian; smaller values trust the release more. Large noise (``τ``
    large) leaves the weights near uniform. ``λ`` defines the tilted
    distribution ``p_G(x) exp(λ·φ(x))`` for any row, so sampling draws
    ``POLICY.resample_factor`` rows per row kept and resamples them by these
    weights. Nothing here reads private rows.

    **Column maps.** Reweighting alone cannot give a numeric column a shape
    the generator does not produce (point masses such as ratings on a
    ten-point scale, which the generator spreads over empty cells): the
    rows whose columns all sit in the right cells are too few, the
    effective-sample-size floor raises ``τ`` and the tilt barely moves any
    column. So each numeric column is first moved to its target by a
    monotone map: the one-column version of the tilt (the column's cells
    only), fitted on the classes' pools mixed in their released proportions
    against the histograms summed over the classes (their noise added up),
    gives the column's cell proportions ``p``, and a generated value at
    level ``u`` of the generated distribution goes to level ``u`` of the
    distribution that has ``p[k]`` in cell ``k`` and, inside each cell, the
    generated values' shape (quantile knots from the pool; ties spread at
    random). One map serves every class: maps fitted class by class follow
    each class's noisier histogram, and the differences between classes
    they add cost classifiers trained on the samples (validation split,
    DP-MERF on movies, one fit each: ROC-AUC .74 with the generator's rows,
    .67 with per-class maps, .75 with one map; 2-way TV .063, .035, .036).
    The maps are monotone, so every pair of columns keeps its generated
    rank structure (copula), and they are post-processing too. The tilt,
    class by class, is then fitted on mapped rows, where the numeric columns
    already match and mainly the categorical ones and the classes'
    differences move.

    Examples
    --------
    Every synthesizer makes one by default (``marginal_share``), except
    DP-HP with marginals (its one-way marginals are among its releases):

    >>> import numpy as np
    >>> from skdpgen import DPHPSynthesizer
    >>> X = np.random.default_rng(0).uniform(0, 1, size=(500, 2))
    >>> synth = DPHPSynthesizer(bounds=(0, 1), product_kernel="pairwise", epochs=1,
    ...                         steps_per_epoch=10, random_state=0).fit(X, epsilon=1.0)
    >>> synth.calibration_.features_.n_cells_
    [16, 16]
    >>> [r.name for r in synth.privacy_report_.releases][:3]
    ['sum kernel', 'pairwise kernel', 'one-way marginals']
    """

    name = "one-way marginals"

    def __init__(self, bins=16):
        self.bins = bins

    def setup(self, encoder):
        """The public cells of ``encoder``'s table; returns ``self``."""
        self.features_ = HistogramFeatures(
            bins=self.bins, **marginal_cell_maps(encoder, self.bins)
        ).fit(np.zeros((1, encoder.n_encoded_)))
        return self

    def release(self, context):
        """Release the histograms (``context``: the fit's :class:`ReleaseContext`)."""
        target = context.release_embedding(self.name, self.features_)
        self.targets_ = target.detach().cpu().numpy().astype(np.float64)
        self._noise_std = context.noise_std(self.name, self.features_.max_row_distance)
        self._n_rows = context.rows.n_rows
        return self

    def fit(self, draw, class_weights, rng=None):
        """Fit the column maps and the tilt of every class from generated rows.

        Parameters
        ----------
        draw : callable
            ``draw(m, c)`` returns ``m`` generated rows of class ``c`` (None
            without labels) as ``(numeric, codes)``.
        class_weights : ndarray or None
            The released class proportions.
        rng : numpy.random.Generator, default=None
            Public randomness (ties in the column maps).

        Returns
        -------
        self : object
        """
        rng = np.random.default_rng(rng)
        d = len(self.features_.n_cells_)
        scale = math.sqrt(d)
        weights = np.ones(1) if class_weights is None else np.asarray(class_weights)
        self.coef_ = np.zeros_like(self.targets_)
        pools = []
        for c, pi in enumerate(weights):
            m = int(min(POLICY.pool_rows,
                        max(POLICY.min_pool_rows, POLICY.pool_factor * pi * self._n_rows)))
            pools.append(draw(m, None if class_weights is None else c))
        self.maps_ = self._column_maps(pools, weights, scale, rng)
        for c, pi in enumerate(weights):
            numeric, codes = pools[c]
            m = numeric.shape[0]
            s = scale * self._noise_std / pi
            # the pool's own resolution bounds τ below (a fit without noise)
            tau = max(POLICY.prior_weight * pi * self._n_rows * s * s, 1.0 / m)
            mu = self.targets_[c] * scale
            numeric = self._mapped(numeric, rng)
            cells = self._cells(numeric, codes)
            for _ in range(POLICY.max_tau_steps):
                self.coef_[c] = _tilt(cells, mu, tau)
                w = softmax(self.coef_[c][cells].sum(axis=1))
                if 1.0 / (m * np.sum(w * w)) >= POLICY.min_ess:
                    break
                tau *= POLICY.tau_step
            else:
                self.coef_[c] = 0.0  # no tilt keeps enough rows: leave the generator as is
        return self

    def _column_maps(self, pools, weights, scale, rng):
        """Monotone maps of the numeric columns, one for all classes (see Notes)."""
        # the classes' pools mixed in their released proportions, against the
        # released histograms summed over the classes (noise: K releases' worth)
        take = [rng.choice(numeric.shape[0], size=max(1, int(round(pi * POLICY.pool_rows))))
                for (numeric, _), pi in zip(pools, weights)]
        numeric = np.concatenate([pool[0][t] for pool, t in zip(pools, take)])
        cells = np.concatenate([self._cells(pool[0][t], [code[t] for code in pool[1]])
                                for pool, t in zip(pools, take)])
        mu = (self.targets_ * weights[:, None]).sum(axis=0) * scale
        s = scale * self._noise_std * math.sqrt(len(weights))
        tau = max(POLICY.prior_weight * self._n_rows * s * s, 1.0 / numeric.shape[0])
        maps = []
        offsets = self.features_.cell_offsets_
        for j in range(numeric.shape[1]):
            n_cells = self.features_.n_cells_[j]
            local = cells[:, j] - offsets[j]
            lam = _tilt(local[:, None], mu[offsets[j]:offsets[j] + n_cells], tau)
            w = softmax(lam[local])
            present = local < self.bins
            x = np.clip(numeric[present, j], -1.0, 1.0)
            if x.size < POLICY.min_cell_rows:
                maps.append(None)
                continue
            p = np.bincount(local[present], weights=w[present], minlength=self.bins)
            p /= p.sum()
            maps.append(_quantile_map(x, local[present], p))
        return maps

    def _mapped(self, numeric, rng):
        """``numeric`` with the column maps applied (a copy)."""
        if not any(mp is not None for mp in self.maps_):
            return numeric
        numeric = np.array(numeric, dtype=np.float64)
        for j, mp in enumerate(self.maps_):
            if mp is not None:
                numeric[:, j] = _apply_map(numeric[:, j], mp, rng)
        return numeric

    def _cells(self, numeric, codes):
        """Indices of the rows' cells into the feature vector, (m, d)."""
        return self.features_.cells_of_codes(numeric, codes) + self.features_.cell_offsets_

    def log_weights(self, numeric, codes, c):
        """Unnormalized log weights of generated rows of class ``c`` (0 without labels)."""
        return self.coef_[c][self._cells(numeric, codes)].sum(axis=1)

    def sample(self, draw, labels, n_samples, rng):
        """Calibrated rows: ``POLICY.resample_factor`` drawn per row, resampled by weight.

        Parameters
        ----------
        draw : callable
            As in :meth:`fit`.
        labels : ndarray of int of shape (n_samples,) or None
        n_samples : int
        rng : numpy.random.Generator

        Returns
        -------
        numeric : ndarray of shape (n_samples, n_numeric)
        codes : list of ndarray of int of shape (n_samples,)
        """
        groups = ([(None, np.arange(n_samples))] if labels is None else
                  [(c, np.flatnonzero(labels == c)) for c in np.unique(labels)])
        numeric, codes = None, None
        for c, positions in groups:
            for chunk in np.array_split(positions, -(-positions.size // CHUNK_ROWS)):
                pool_numeric, pool_codes = draw(POLICY.resample_factor * chunk.size, c)
                pool_numeric = self._mapped(pool_numeric, rng)
                w = softmax(self.log_weights(pool_numeric, pool_codes, 0 if c is None else c))
                keep = rng.choice(w.size, size=chunk.size, p=w)
                if numeric is None:
                    numeric = np.empty((n_samples, pool_numeric.shape[1]))
                    codes = [np.empty(n_samples, dtype=np.int64) for _ in pool_codes]
                numeric[chunk] = pool_numeric[keep]
                for out, pool in zip(codes, pool_codes):
                    out[chunk] = pool[keep]
        return numeric, codes


def _quantile_map(x, cell, p):
    """Knots of the monotone map that moves ``x``'s cell histogram to ``p``.

    ``x``: generated values on ``[-1, 1]`` (one column, all classes), ``cell``:
    their cells, ``p``: the target proportions of the cells. Returns
    ``(x_knots, u_knots, v_knots, y_knots)``: a value's level in the
    generated distribution is ``u = interp(x, x_knots, u_knots)``, its image
    ``interp(u, v_knots, y_knots)``, which gives cell ``k`` the share
    ``p[k]`` and keeps the generated distribution's shape inside each cell.
    """
    order = np.argsort(x, kind="stable")
    xs, cs = x[order], cell[order]
    levels = (np.arange(1, POLICY.map_knots + 1) - 0.5) / POLICY.map_knots
    x_knots = np.quantile(xs, levels)
    cum = np.concatenate([[0.0], np.cumsum(p)])
    v_knots, y_knots = [], []
    for k in np.flatnonzero(p > 0):
        inside = xs[cs == k]
        if inside.size == 0:  # a cell the pool never reaches (weighted up from none)
            width = 2.0 / p.size
            inside = np.array([-1.0 + (k + 0.5) * width])
        q = (np.arange(1, POLICY.cell_knots + 1) - 0.5) / POLICY.cell_knots
        v_knots.append(cum[k] + p[k] * q)
        y_knots.append(np.quantile(inside, q))
    return x_knots, levels, np.concatenate(v_knots), np.concatenate(y_knots)


def _apply_map(x, knots, rng):
    """The map of :func:`_quantile_map` at ``x``; a tie with knots spreads at random."""
    x_knots, levels, v_knots, y_knots = knots
    u = np.interp(x, x_knots, levels)
    lo = np.searchsorted(x_knots, x, side="left")
    hi = np.searchsorted(x_knots, x, side="right")
    tie = hi - lo > 1  # a point mass of the generated values
    if tie.any():
        last = x_knots.size - 1
        a = levels[np.minimum(lo[tie], last)]
        b = levels[np.minimum(hi[tie] - 1, last)]
        u[tie] = a + rng.random(int(tie.sum())) * (b - a)
    return np.interp(u, v_knots, y_knots)


def _tilt(cells, mu, tau):
    """``λ`` of the calibration's dual (see :class:`MarginalCalibration`).

    ``cells``: (m, d) indices into ``mu``'s entries, one per column.
    """
    m, F = cells.shape[0], mu.shape[0]
    flat = cells.ravel()
    # cells (almost) absent from the pool are never weighted up: their λ is not
    # identified by the pool, and a rare row in them would take all the weight
    seen = np.bincount(flat, minlength=F) >= POLICY.min_cell_rows
    bounds = [(-POLICY.max_tilt, POLICY.max_tilt if ok else 0.0) for ok in seen]

    def objective(lam):
        scores = lam[cells].sum(axis=1)
        w = softmax(scores)
        grad = np.bincount(flat, weights=np.repeat(w, cells.shape[1]), minlength=F)
        value = logsumexp(scores) - math.log(m) - lam @ mu + 0.5 * tau * lam @ lam
        return value, grad - mu + tau * lam

    res = minimize(objective, np.zeros(F), jac=True, method="L-BFGS-B",
                   bounds=bounds, options={"maxiter": 500})
    return res.x
