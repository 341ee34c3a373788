"""Mechanisms: what a synthesizer releases about the private rows, and its loss.

A synthesizer is a mechanism plus a trainer. The mechanism decides what is
released (its budget shares and, epoch by epoch, which noisy mean embeddings)
and the loss the generator minimizes against those releases; the trainer
(:class:`GeneratorTrainer`) owns the network, the optimizer, the device, the
progress bar and the loss history. Every release goes through
:meth:`ReleaseContext.release_embedding`, the one place where a synthesizer
touches private rows.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import itertools
import math

import numpy as np
import torch
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

from ..kernels import BoundedFeatureMap, HermiteFeatures
from ..rows import release_mean_embeddings

__all__ = ["EmbeddingMechanism", "Mechanism", "ReleaseContext", "batch_weights",
           "draw_pairwise_columns", "embedding_loss", "feature_map_loss", "pairs_above_noise",
           "pairwise_features", "shrink_pairwise"]

#: The pairwise kernel keeps at most this many features (with more, a public
#: random subset of the columns, see :func:`draw_pairwise_columns`).
MAX_PAIRWISE_FEATURES = 2**17
#: A pair of columns joins the pairwise kernel while its evenly spread
#: feature mean is at least 1/PAIR_NOISE_RATIO of the release's noise
#: (see :func:`pairs_above_noise`).
PAIR_NOISE_RATIO = 4.0


def draw_pairwise_columns(rng, widths, max_features=MAX_PAIRWISE_FEATURES):
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
    max_features : int, default=MAX_PAIRWISE_FEATURES

    Returns
    -------
    columns : ndarray of int
        Sorted; at least one column.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen.synthesizers import draw_pairwise_columns
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


def pairs_above_noise(widths, noise_std, ratio=PAIR_NOISE_RATIO):
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
    shows; ``ratio`` (default ``PAIR_NOISE_RATIO = 4``) allows for that.
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
    ratio : float, default=PAIR_NOISE_RATIO
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

    >>> from skdpgen.synthesizers import pairs_above_noise
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
    kernel would exceed ``MAX_PAIRWISE_FEATURES`` features): numeric columns
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
    >>> from skdpgen.synthesizers import pairwise_features
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
    >>> from skdpgen.synthesizers import shrink_pairwise
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


def batch_weights(labels, n_classes, like):
    """Weights whose column k averages the generated rows of class k.

    Parameters
    ----------
    labels : torch.Tensor of int of shape (batch,) or None
        Classes of the generated rows (every class present), or None without
        labels.
    n_classes : int
    like : torch.Tensor of shape (batch, ...)
        The generated rows (for the batch size, dtype and device).

    Returns
    -------
    weights : torch.Tensor of shape (batch, max(1, n_classes))

    Examples
    --------
    >>> import torch
    >>> from skdpgen.synthesizers import batch_weights
    >>> batch_weights(torch.tensor([0, 1, 0, 1]), 2, torch.zeros(4, 3))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.5000],
            [0.5000, 0.0000],
            [0.0000, 0.5000]])
    """
    if labels is None:
        return like.new_full((like.shape[0], 1), 1.0 / like.shape[0])
    onehot = torch.nn.functional.one_hot(labels, n_classes).to(like)
    return onehot / onehot.sum(0)


def embedding_loss(target, features, labels, n_classes):
    """``Σ_c ‖target_c − mean of the generated rows of class c‖²``.

    Parameters
    ----------
    target : torch.Tensor of shape (max(1, n_classes), F)
        A released (noisy) class-conditional embedding, each class divided
        by its weight (:meth:`ReleaseContext.release_embedding`).
    features : torch.Tensor of shape (batch, F)
        Features of the generated rows.
    labels : torch.Tensor of int of shape (batch,) or None
        Their classes (every class present), or None without labels.
    n_classes : int

    Returns
    -------
    loss : torch.Tensor (scalar)
    """
    means = (features.T @ batch_weights(labels, n_classes, features)).T
    return torch.sum((target - means) ** 2)


def feature_map_loss(target, feature_map, generated, labels, n_classes):
    """:func:`embedding_loss` of ``feature_map``'s features of ``generated``.

    Goes through the map's :meth:`~skdpgen.kernels.BoundedFeatureMap.raw_feature_sum`
    (fused for :class:`~skdpgen.HermiteFeatures`' sum, product and pairwise kernels:
    the feature matrix of the batch is never built).

    Parameters
    ----------
    target : torch.Tensor of shape (max(1, n_classes), F)
    feature_map : BoundedFeatureMap
    generated : torch.Tensor of shape (batch, n_features_in)
    labels : torch.Tensor of int of shape (batch,) or None
    n_classes : int

    Returns
    -------
    loss : torch.Tensor (scalar)

    Examples
    --------
    >>> import numpy as np
    >>> import torch
    >>> from skdpgen import HermiteFeatures
    >>> from skdpgen.synthesizers import embedding_loss, feature_map_loss
    >>> fmap = HermiteFeatures(order=5).fit(np.zeros((1, 2)))
    >>> Z = torch.rand(8, 2, dtype=torch.float64)
    >>> target = torch.zeros(1, fmap.n_features_out_, dtype=torch.float64)
    >>> fused = feature_map_loss(target, fmap, Z, None, 0)
    >>> bool(torch.isclose(fused, embedding_loss(target, fmap.raw_transform(Z), None, 0)))
    True
    """
    weights = batch_weights(labels, n_classes, generated)
    means = feature_map.raw_feature_sum(generated, weights).T
    return torch.sum((target - means) ** 2)


class ReleaseContext:
    """What a mechanism may use to make its releases during one fit.

    Parameters
    ----------
    rows : ArrayRows or DaskRows
        The private rows (see :mod:`skdpgen.rows`).
    accountant : GaussianAccountant
        The fit's accountant, planned with the mechanism's budget shares.
    class_weights : ndarray of shape (n_classes,) or None
        The released class proportions.
    rng : numpy.random.Generator
        For public random choices (never for noise).
    device : str
        Where the generator trains (and targets live).
    release_device : str
        Where the private rows' features are computed.
    """

    def __init__(self, rows, accountant, class_weights, rng, device, release_device):
        self.rows = rows
        self.accountant = accountant
        self.class_weights = class_weights
        self.rng = rng
        self.device = device
        self.release_device = release_device

    @property
    def n_classes(self):
        return self.rows.n_classes

    def noise_std(self, name, row_distance=2.0):
        """Noise standard deviation of release ``name`` on each entry of a mean embedding.

        ``σ·Δ/n`` (see :meth:`release_embedding`) for a map whose rows lie
        at most ``row_distance`` (``Δ``) apart: public, known before the
        release (the accountant's noise multipliers are fixed by the budget
        shares, and ``n`` is public under replace-one neighbouring).
        """
        return self.accountant.noise_multipliers[name] * row_distance / self.rows.n_rows

    def release_embedding(self, name, feature_map, *, by_class=True):
        """Release the noisy class-conditional mean embedding under ``feature_map``.

        Notes
        -----
        The release is :func:`~skdpgen.rows.release_mean_embedding` (its
        Notes derive the sensitivity, ``max_row_distance / n``); the
        division by the released class weights afterwards is
        post-processing.

        Parameters
        ----------
        name : str
            A release planned in the accountant.
        feature_map : BoundedFeatureMap
            Fitted on the encoded width.
        by_class : bool, default=True
            False releases the mean over all rows, whatever their class.

        Returns
        -------
        target : torch.Tensor of shape (max(1, n_classes), n_features_out)
            float32, on the training device: the noisy release, each class
            divided by its weight (one row with ``by_class=False``).
        """
        (target,) = self.release_embeddings([(name, feature_map, by_class)])
        return target

    def release_embeddings(self, requests):
        """Several :meth:`release_embedding` releases from one pass over the rows.

        ``requests``: a list of ``(name, feature_map, by_class)``; returns
        their targets in order (:func:`~skdpgen.rows.release_mean_embeddings`:
        each chunk of rows is encoded once for all of them).
        """
        out = []
        for (_, _, by_class), (noisy, _) in zip(requests, release_mean_embeddings(
                self.rows, requests, self.accountant, device=self.release_device,
                min_rows=2)):
            if self.class_weights is not None and by_class:
                noisy = noisy / self.class_weights[None, :]
            out.append(torch.as_tensor(noisy.T, dtype=torch.float32, device=self.device))
        return out


class Mechanism:
    """Base class (and protocol) of what a synthesizer releases and learns from.

    A mechanism is set up once per fit (:meth:`setup`: its public choices,
    e.g. feature maps fitted on the encoded width), declares its releases
    (:meth:`budget_shares`), makes them epoch by epoch through a
    :class:`ReleaseContext` (:meth:`release`), and scores a batch of
    generated rows against them (:meth:`loss`). The synthesizer adds the
    label proportions, plans the budget and trains; see
    :class:`~skdpgen.KMESynthesizer`.

    Released targets are kept in ``targets_`` (name → list of arrays, one per
    release, on CPU); they are post-processing of the noisy releases and
    safe to publish with the model.
    """

    def setup(self, encoder, n_classes, epochs, rng):
        """Make the public choices of a fit; return ``self``.

        Parameters
        ----------
        encoder : TableEncoder
            The fitted public encoding (its ``n_encoded_``,
            ``n_numeric_`` and ``category_sizes_`` describe the rows).
        n_classes : int
            Number of classes (0 without labels).
        epochs : int
        rng : numpy.random.Generator
            Public randomness only.
        """
        self.n_classes_ = n_classes
        self.targets_ = {}
        self._on_device = {}
        return self

    def budget_shares(self, epochs):  # pragma: no cover - protocol
        """``name -> share`` or ``name -> (share, count)`` of every planned release.

        Called before :meth:`setup` (the fit plans one budget for everything,
        schema estimation included): it may depend on the hyperparameters and
        on ``epochs``, never on the data or the encoding.
        """
        raise NotImplementedError

    def release(self, epoch, context):  # pragma: no cover - protocol
        """Make the releases due at the start of ``epoch`` (0-based)."""
        raise NotImplementedError

    def initialize(self, network):
        """Start ``network`` from the first releases (after epoch 0's); by
        default it keeps its random initialization. Post-processing: only the
        releases (``targets_``) may be read."""

    def converged(self, loss):
        """Whether training may stop after a step of this ``loss`` (a tensor);
        by default never (every planned step is taken)."""
        return False

    def issues(self):
        """Weak spots of the releases, from public quantities only (their noise
        levels, ``n``, the encoding), in the form of ``schema_issues_``
        (``column``, ``problem``, ``share``, ``detail``); by default none."""
        return []

    def loss(self, generated, labels):  # pragma: no cover - protocol
        """The loss of a batch of generated (encoded) rows, a scalar tensor.

        Generated rows are not private: their features may come from
        ``raw_transform`` or their weighted sums from ``raw_feature_sum``
        (no clip; rows of norm ≤ 1 in exact arithmetic; see
        :func:`feature_map_loss`), which keeps the training step fast.
        """
        raise NotImplementedError

    def _class_noise(self, context, name, feature_map):
        """Noise standard deviation of each class's row of release ``name`` (public).

        ``σ·Δ/n`` with ``Δ`` the map's ``max_row_distance`` (as
        :meth:`ReleaseContext.release_embedding` calibrates it), divided by
        each class's released weight.
        """
        std = np.full(max(self.n_classes_, 1),
                      context.noise_std(name, feature_map.max_row_distance))
        return std if context.class_weights is None else std / context.class_weights

    def _shrink_pairs(self, context, name, pairwise, column_means):
        """Shrink release ``name`` of the pairwise kernel toward independence.

        :func:`shrink_pairwise` of the released target (post-processing),
        with each class's public noise level; the target on device becomes
        the shrunk one (``targets_`` keeps the release as it was) and
        ``pair_shrinkage_`` the factors, one per pair and class.
        """
        target = self._on_device[name]
        shrunk, self.pair_shrinkage_ = shrink_pairwise(
            target.double().cpu().numpy(), pairwise,
            self._class_noise(context, name, pairwise),
            column_means=column_means)
        self._on_device[name] = torch.as_tensor(shrunk, dtype=target.dtype,
                                                device=target.device)

    def _release(self, context, name, feature_map, key=None, by_class=True):
        """Release ``name`` under ``feature_map``; keep it on device under ``key``."""
        target = context.release_embedding(name, feature_map, by_class=by_class)
        self._keep([(name, feature_map, by_class)], [target], key)
        return target

    def _keep(self, requests, targets, key=None):
        """Record released ``targets`` (of ``requests``) and keep them on device."""
        for (name, _, _), target in zip(requests, targets):
            self.targets_.setdefault(name, []).append(target.detach().cpu().numpy())
            self._on_device[name if key is None else key] = target

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_on_device", None)  # device tensors: the CPU copies are in targets_
        return state


def fitted_feature_map(features, width):
    """A :class:`BoundedFeatureMap` with a torch path, fitted on ``width`` columns."""
    if not isinstance(features, BoundedFeatureMap) or not features.supports_torch:
        raise ValueError(
            f"A synthesizer needs a skdpgen.kernels.BoundedFeatureMap with a torch "
            f"path (its generator learns through it); got {type(features).__name__}."
        )
    try:
        check_is_fitted(features)
    except NotFittedError:
        return clone(features).fit(np.zeros((1, width)))
    if features.n_features_in_ != width:
        raise ValueError(
            f"The fitted feature map expects {features.n_features_in_} columns; the "
            f"encoded table has {width}."
        )
    return features


class EmbeddingMechanism(Mechanism):
    """One release: the class-conditional mean embedding under a bounded feature map.

    DP-MERF's mechanism (with random Fourier features), and
    :class:`~skdpgen.KMESynthesizer`'s for any
    :class:`~skdpgen.kernels.BoundedFeatureMap`.

    Parameters
    ----------
    features : BoundedFeatureMap or None
        Fitted on the encoded width, or unfitted (then cloned and fitted on
        it). None: DP-HP's sum kernel of the encoded table,
        ``HermiteFeatures(order=20, length_scale=0.5)`` over the numeric
        columns with the one-hot blocks kept as they are.
    """

    def __init__(self, features=None):
        self.features = features

    def setup(self, encoder, n_classes, epochs, rng):
        super().setup(encoder, n_classes, epochs, rng)
        features = self.features
        if features is None:
            features = HermiteFeatures(order=20, length_scale=0.5,
                                       category_sizes=encoder.category_sizes_)
        self.features_ = fitted_feature_map(features, encoder.n_encoded_)
        return self

    def budget_shares(self, epochs):
        return {"mean embedding": 1.0}

    def release(self, epoch, context):
        if epoch == 0:
            self._release(context, "mean embedding", self.features_)

    def loss(self, generated, labels):
        return feature_map_loss(self._on_device["mean embedding"], self.features_,
                                generated, labels, self.n_classes_)
