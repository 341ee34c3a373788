"""The marginal mechanism: every column's histogram and every pair's, on public cells."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math

import numpy as np
import torch

from ..kernels import MarginalFeatures
from ..privacy import calibrate_gaussian
from ..schema import kind_of
from ._mechanism import Mechanism, batch_weights
from ._network import MixtureGenerator
from ._policy import POLICY

__all__ = ["MarginalMechanism", "independence_note", "marginal_design", "pairs_needed"]

ONE_WAY = "one-way marginals"
ONE_WAY_BY_CLASS = "one-way marginals by class"
TWO_WAY = "two-way marginals"
TWO_WAY_BY_CLASS = "two-way marginals by class"
#: The expected positive part of a cell's Gaussian noise, in standard
#: deviations: ``φ(0) = 1/√(2π)`` (:meth:`MarginalMechanism.issues`).
SPREAD_FACTOR = 1.0 / math.sqrt(2.0 * math.pi)


def marginal_design(n_rows, n_columns, epsilon, delta, *, pair_share, bins=POLICY.bin_range):
    """What the marginal mechanism releases, from the table's public shape.

    Two choices, each from the noise a release would carry (its standard
    deviation, in rows, at the Gaussian noise multiplier of the whole
    budget ``σ = calibrate_gaussian(ε, δ)``; the fit's other releases are
    ignored here, so the levels are slightly optimistic):

    * **the two-way marginals** of all ``M = d(d-1)/2`` pairs of the ``d``
      columns, at half of ``pair_share``, put ``σ/√(pair_share/2)·√(2M)``
      rows of noise on every cell. They are released when that is at most
      ``n_rows / POLICY.pair_precision``; otherwise their share goes to the one-way
      marginals (``pair_share`` 0): on a wide or small table every pair
      would be noise, and a model fitted to them is worse than one of
      independent columns.
    * **bins** of a numeric or date column: the most, among multiples of
      ``POLICY.bin_step`` within ``POLICY.bin_range`` (10, 20, ..., 100: every tenth of
      the public range is a union of bins, so a round value on round bounds
      stays on a bin edge), such that a bin holding ``1/bins`` of the rows
      holds at least ``POLICY.bin_precision`` noise standard deviations of the
      one-way release (all rows, half of the one-way share:
      ``σ/√(share/2)·√(2d)`` rows per cell); the fewest where none does.

    A function of public quantities only (``n_rows``, the number of
    columns, ε, δ).

    Parameters
    ----------
    n_rows, n_columns : int
    epsilon, delta : float
        The fit's budget.
    pair_share : float
        The two-way releases' share when they are released.
    bins : tuple of int, default=POLICY.bin_range
        The fewest and most bins (multiples of ``POLICY.bin_step``).

    Returns
    -------
    pair_share : float
        ``pair_share`` or 0.
    bins : int

    Examples
    --------
    >>> from skdpgen.synthesizers._marginals import marginal_design
    >>> marginal_design(30_000, 14, 1.0, 1e-5, pair_share=0.9)
    (0.9, 80)
    >>> marginal_design(2_800, 69, 1.0, 1e-5, pair_share=0.9)
    (0.0, 10)
    """
    fewest, most = bins
    sigma = calibrate_gaussian(epsilon, delta) if math.isfinite(epsilon) else 0.0
    d = max(int(n_columns), 1)
    pairs = d * (d - 1) // 2
    if pairs == 0 or pair_share <= 0:
        pair_share = 0.0
    elif n_rows < POLICY.pair_precision * sigma / math.sqrt(pair_share / 2) * math.sqrt(2 * pairs):
        pair_share = 0.0
    one_way = sigma / math.sqrt((1.0 - pair_share) / 2) * math.sqrt(2 * d)
    if one_way == 0:  # no noise (a fit that is not private)
        return pair_share, int(most)
    best = n_rows // (POLICY.bin_precision * one_way) // POLICY.bin_step * POLICY.bin_step
    return pair_share, int(min(max(best, fewest), most))


def pairs_needed(n_rows, n_columns, epsilon, delta, *, pair_share=POLICY.marginal_pair_share):
    """What would let :func:`marginal_design` release the two-way marginals.

    The pairs are released when ``n_rows`` is at least ``POLICY.pair_precision``
    times a two-way cell's noise, ``σ/√(pair_share/2)·√(d(d-1))`` rows; this
    inverts that rule for each of its public inputs in turn.

    Parameters
    ----------
    n_rows, n_columns : int
    epsilon, delta : float
    pair_share : float, default=POLICY.marginal_pair_share

    Returns
    -------
    needed : dict
        ``rows``: the fewest rows at this ε and these columns; ``epsilon``: the
        least ε at these rows and columns (None above 100); ``columns``: the
        most columns at these rows and ε (None below 2).

    Examples
    --------
    >>> from skdpgen.synthesizers._marginals import pairs_needed
    >>> needed = pairs_needed(2_800, 69, 1.0, 1e-5)
    >>> needed["rows"] > 2_800, needed["columns"] < 69
    (True, True)
    """
    def cell_noise(d, sigma):  # a two-way cell's noise, in rows, times the precision
        return (POLICY.pair_precision * sigma / math.sqrt(pair_share / 2)
                * math.sqrt(max(d * (d - 1), 1)))

    sigma = calibrate_gaussian(epsilon, delta)
    rows = math.ceil(cell_noise(n_columns, sigma))
    columns = max((d for d in range(2, n_columns + 1) if n_rows >= cell_noise(d, sigma)),
                  default=None)
    low, high = epsilon, 100.0
    if n_rows < cell_noise(n_columns, calibrate_gaussian(high, delta)):
        return {"rows": rows, "epsilon": None, "columns": columns}
    for _ in range(40):  # bisection on ε: σ(ε) decreases
        mid = math.sqrt(low * high)
        if n_rows >= cell_noise(n_columns, calibrate_gaussian(mid, delta)):
            high = mid
        else:
            low = mid
    return {"rows": rows, "epsilon": high, "columns": columns}


def independence_note(n_rows, n_columns, epsilon, delta):
    """The warning of a fit whose columns are drawn independently (no pair released).

    From public quantities only: the rows, columns, ε and δ that would let
    the pairs be released (:func:`pairs_needed`).
    """
    needed = pairs_needed(n_rows, n_columns, epsilon, delta)
    ways = [f"about {needed['rows']:,} rows"]
    if needed["epsilon"] is not None:
        ways.append(f"epsilon >= {needed['epsilon']:.2g}")
    if needed["columns"] is not None:
        ways.append(f"at most {needed['columns']} columns")
    return (f"Every column is drawn independently of the others (given the class): at "
            f"{n_rows:,} rows, {n_columns} columns and epsilon = {epsilon:g} no pair of "
            "columns can be measured above its noise, so no two-way marginal is released. "
            f"What would change it: {', '.join(ways)}, or pair_share set explicitly "
            "(pairs measured at that noise).")


def simplex_projection(values):
    """The probability vector nearest to ``values`` (Euclidean projection).

    ``max(values - t, 0)`` with the threshold ``t`` at which it sums to 1:
    the maximum-likelihood histogram under i.i.d. Gaussian noise on its
    cells (Duchi et al., 2008). Small noisy cells become exactly 0.

    Examples
    --------
    >>> from skdpgen.synthesizers._marginals import simplex_projection
    >>> simplex_projection([0.7, 0.5, -0.1]).tolist()
    [0.6, 0.4, 0.0]
    """
    v = np.asarray(values, dtype=float)
    u = np.sort(v)[::-1]
    cum = np.cumsum(u) - 1.0
    k = np.nonzero(u - cum / np.arange(1, len(u) + 1) > 0)[0][-1]
    return np.maximum(v - cum[k] / (k + 1), 0.0)


def ordered_slots(encoder):
    """Per one-hot block, its ordered cells (integer levels, bins) or 0.

    A block's last slot of its own (missing values, a binned column's exact
    zeros) is not one of them. A function of the public encoding only.
    """
    levels, binned = set(encoder.level_columns_), set(encoder.binned_columns_)
    specs = dict(zip(encoder.columns_, encoder.specs_))
    out = []
    for key, width in zip(encoder.block_columns_, encoder.category_sizes_):
        if key not in levels | binned:
            out.append(0)
            continue
        spec = specs.get(key, {})
        extra = bool(spec.get("missing", False)) or (key in binned and spec.get("zero", False))
        out.append(int(width) - int(extra))
    return out


def pair_groups(encoder, cells=POLICY.pair_cells):
    """The coarse cells of each one-hot block in the two-way marginals.

    An ordered column (integer levels, numeric or date bins) wider than
    ``cells`` has its consecutive cells merged into ``cells`` groups of
    nearly equal numbers of cells (a slot of missing values, or of a binned
    column's exact zeros, stays a group of its own); categorical columns and
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
    >>> from skdpgen.synthesizers._marginals import pair_groups
    >>> schema = {"age": {"type": "numeric", "bounds": [0, 99], "integer": True},
    ...           "sex": {"type": "categorical", "categories": ["f", "m"]}}
    >>> X = pd.DataFrame({"age": [30, 40], "sex": ["f", "m"]})
    >>> enc = TableEncoder(schema, max_levels=100).fit(X)
    >>> [None if g is None else int(g.max()) + 1 for g in pair_groups(enc, 8)]
    [8, None]
    """
    groups = []
    for slots, width in zip(ordered_slots(encoder), encoder.category_sizes_):
        if not slots or slots <= cells or width == 2:
            groups.append(None)
            continue
        g = (np.arange(slots) * cells) // slots
        groups.append(np.concatenate([g, [cells]]) if slots < width else g)
    return groups


class MarginalMechanism(Mechanism):
    """Release the one-way (per class) and two-way marginals of a one-hot table.

    For a table whose every column is a one-hot block (categories, integer
    levels, the public bins of numeric and date columns: see
    :class:`~skdpgen.schema.TableEncoder`), up to four releases, all before
    training:

    * ``"one-way marginals"``: every column's histogram over all rows
      (:class:`~skdpgen.kernels.MarginalFeatures` of degree 1);
    * ``"one-way marginals by class"``: the same within each class: each
      column's joint with the label;
    * ``"two-way marginals"`` and ``"two-way marginals by class"`` (unless
      ``pair_share`` is 0): every pair of columns' joint histogram (degree
      2), over all rows and within each class.

    With the label proportions the synthesizer releases, these are all the
    one-, two- and (column, column, label)-cells that a two-way model of the
    table with its label needs. The overall and by-class releases of the
    same marginals split their share equally; the overall ones are not
    implied by the by-class ones at the same noise (summing ``k`` classes
    adds ``k`` noise vectors), which matters for tables with many classes.
    The loss is the Gaussian log-likelihood of the releases under the
    generator's marginals, ``Σ (target − μ_θ)² / noise variance``: a
    generator that reproduces them exactly is the maximum-likelihood fit
    (with :class:`~skdpgen.synthesizers.MixtureGenerator`, a
    mixture of product distributions, the marginals are computed exactly
    from its parameters).

    Parameters
    ----------
    pair_share : float
        The two-way releases' share of the mechanism's budget (see
        ``marginal_design``); the one-way releases get the rest.
    pair_cells : int, default=POLICY.pair_cells
        Coarse cells of an ordered column in the two-way marginals
        (``pair_groups``).
    by_class : bool, default=True
        Whether the by-class releases are made; False for unlabeled data,
        whose by-class marginals are the overall ones (the overall releases
        then take their shares: the same noise as the two releases combined,
        one pass over the rows each).

    Notes
    -----
    **Privacy.** Each release is a class-conditional (or overall) mean
    embedding under a map with non-negative features of norm ≤ 1
    (:class:`~skdpgen.kernels.MarginalFeatures`): replace-one sensitivity
    ``√2/n`` (:meth:`~skdpgen.synthesizers.ReleaseContext.release_embedding`),
    calibrated and composed by the fit's accountant. The generator, the
    loss and the division by the released class weights only read the
    releases: post-processing.
    """

    def __init__(self, *, pair_share, pair_cells=POLICY.pair_cells, by_class=True):
        self.pair_share = pair_share
        self.pair_cells = pair_cells
        self.by_class = by_class

    def setup(self, encoder, n_classes, epochs, rng):
        super().setup(encoder, n_classes, epochs, rng)
        if encoder.n_numeric_:
            raise ValueError(
                "The marginal mechanism needs every column one-hot (numeric and date "
                f"columns encoded as bins); the encoding has {encoder.n_numeric_} numeric "
                "columns.")
        sizes = list(encoder.category_sizes_)
        self._block_keys = list(encoder.block_columns_)
        self._ordered_slots = ordered_slots(encoder)
        self._numeric_keys = {key for key, spec in zip(encoder.columns_, encoder.specs_)
                              if kind_of(spec).is_bounded}
        zeros = np.zeros((1, encoder.n_encoded_))
        self.features_ = MarginalFeatures(category_sizes=sizes, degree=1).fit(zeros)
        self.pairwise_ = None
        if len(sizes) > 1 and self.pair_share > 0:
            self.pairwise_ = MarginalFeatures(
                category_sizes=sizes, degree=2,
                groups=pair_groups(encoder, self.pair_cells)).fit(zeros)
        return self

    def budget_shares(self, epochs):
        one, two = 1.0 - self.pair_share, self.pair_share
        if not self.by_class:
            return {ONE_WAY: one, TWO_WAY: two} if two else {ONE_WAY: one}
        shares = {ONE_WAY: one / 2, ONE_WAY_BY_CLASS: one / 2}
        return {**shares, TWO_WAY: two / 2, TWO_WAY_BY_CLASS: two / 2} if two else shares

    def release(self, epoch, context):
        if epoch:
            return
        self._inverse = {}
        weights = context.class_weights
        self._class_weights = None if weights is None else torch.as_tensor(weights)
        releases = [(ONE_WAY, ONE_WAY_BY_CLASS, self.features_)]
        if self.pairwise_ is not None:
            releases.append((TWO_WAY, TWO_WAY_BY_CLASS, self.pairwise_))
        requests = []  # all of them from one pass over the rows
        for overall, by_class, feature_map in releases:
            requests.append((overall, feature_map, False))
            self._inverse[overall] = np.array(
                [context.noise_std(overall, feature_map.max_row_distance)])
            if self.by_class:
                requests.append((by_class, feature_map, True))
                self._inverse[by_class] = self._class_noise(context, by_class, feature_map)
        self._keep(requests, context.release_embeddings(requests))
        self._entries = sum(t[0].size for t in self.targets_.values())
        # the overall one-way release's noise on a cell's share of the rows (public)
        self._n_rows = context.rows.n_rows
        self._cell_std = (float(self._inverse[ONE_WAY][0])
                          * math.sqrt(len(self.features_.marginals_)))
        # each release's entries weighted by their inverse noise variance (a
        # release without noise, epsilon = inf, at a thousandth of one row)
        floor = 1e-3 / context.rows.n_rows
        self._inverse = {name: torch.as_tensor(1.0 / np.maximum(std[:, None], floor) ** 2,
                                               dtype=torch.float32, device=context.device)
                         for name, std in self._inverse.items()}

    def issues(self):
        """Ordered columns whose one-way release may spread many rows by its noise.

        A numeric or date column of ``k`` ordered cells (bins, integer
        levels) whose overall one-way release carries noise ``σ`` on a cell's
        share of the rows: a fit gives a cell the data leaves empty the
        noise's positive part, ``σ/√(2π)`` on average, so up to ``kσ/√(2π)``
        of the synthetic values may lie where the data has none, and no more
        than the share the release puts in those cells at all (projected onto
        the simplex: a column missing in every row has nothing to spread).
        Named (``problem="spread"``) from ``POLICY.spread_share`` of the rows: on 150
        rows of ten columns an age on [0, 100], on 20,000 rows none.
        Post-processing of the release and its public noise level.
        """
        out = []
        release = self.targets_[ONE_WAY][0][0]
        std = self._cell_std
        for key, slots, cells in zip(self._block_keys, self._ordered_slots,
                                     self.features_.cells(release)):
            if not slots or key not in self._numeric_keys:
                continue
            present = float(simplex_projection(cells)[:slots].sum())
            share = min(SPREAD_FACTOR * std * slots, present)
            if share >= POLICY.spread_share:
                out.append({"column": key, "problem": "spread", "share": share,
                            "detail": f"{slots} cells, noise {std * self._n_rows:.3g} "
                                      "rows a cell"})
        return out

    def initialize(self, network):
        """A mixture starts where the one-way releases say: every row of class
        ``c`` at the histograms of class ``c`` (each cell the precision-
        weighted mean of its by-class and overall releases, projected onto
        the probability simplex, floored at 1e-4: the independence model),
        plus its random logits. Post-processing of the releases."""
        if not isinstance(network, MixtureGenerator):
            return
        overall = self.targets_[ONE_WAY][0][0]
        v_all = 1.0 / self._inverse[ONE_WAY].cpu().numpy()[:, 0]
        if self.by_class:
            by_class = self.targets_[ONE_WAY_BY_CLASS][0]
            v_class = 1.0 / self._inverse[ONE_WAY_BY_CLASS].cpu().numpy()[:, 0]
        else:  # unlabeled: one "class", the overall release
            by_class, v_class = overall[None, :], v_all
        k = max(self.n_classes_, 1)
        with torch.no_grad():
            for c in range(k):
                # each cell: the two releases' precision-weighted mean
                total = v_all[0] + v_class[c]
                w = v_all[0] / total if total > 0 else 1.0  # no noise: the class's own
                target = w * by_class[c] + (1 - w) * overall
                blocks = [np.maximum(simplex_projection(cells), 1e-4)
                          for cells in self.features_.cells(target)]
                logits = np.concatenate([np.log(b / b.sum()) for b in blocks])
                network.logits[c::k] += torch.as_tensor(logits, dtype=network.logits.dtype)

    def converged(self, loss):
        """Whether the fit is as close to the releases as their noise allows.

        At the true marginals the loss (each entry's squared misfit over its
        noise variance) has expectation the number of released entries
        ``N``; a fit below it matches the noise (Morozov's discrepancy
        principle). Training stops at the first step whose loss is at most
        ``N``: a function of the releases and their public noise levels only.
        """
        return float(loss) <= self._entries

    def _misfit(self, name, feature_map, generated, weights):
        means = feature_map.raw_feature_sum(generated, weights).T
        return torch.sum((self._on_device[name] - means) ** 2 * self._inverse[name])

    def loss(self, generated, labels):
        weights = batch_weights(labels, self.n_classes_, generated)  # (batch, classes)
        loss = 0.0
        if self.by_class:
            loss = self._misfit(ONE_WAY_BY_CLASS, self.features_, generated, weights)
            if self.pairwise_ is not None:
                loss = loss + self._misfit(TWO_WAY_BY_CLASS, self.pairwise_, generated,
                                           weights)
        if self._class_weights is not None:  # the mixture of the classes
            weights = weights @ self._class_weights.to(weights)[:, None]
        loss = loss + self._misfit(ONE_WAY, self.features_, generated, weights)
        if self.pairwise_ is not None:
            loss = loss + self._misfit(TWO_WAY, self.pairwise_, generated, weights)
        return loss
