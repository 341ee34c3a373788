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

import numpy as np
import torch
from sklearn.base import BaseEstimator, clone
from sklearn.exceptions import NotFittedError
from sklearn.utils._param_validation import HasMethods
from sklearn.utils.validation import check_is_fitted

from ...kernels import BoundedFeatureMap, HermiteFeatures
from ...rows import release_mean_embeddings, release_statistic
from ._pairwise import shrink_pairwise

__all__ = ["EmbeddingMechanism", "Mechanism", "ReleaseContext", "batch_weights",
           "embedding_loss", "feature_map_loss"]


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
    >>> from skdpgen.synthesizers.mechanisms._base import batch_weights
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


    def release_statistic(self, name, feature_map, statistic, *, sensitivity):
        """Release ``statistic`` of the feature sums over all rows as ``name``.

        :func:`~skdpgen.rows.release_statistic` (the caller derives the
        statistic's sensitivity); returns the noisy release.
        """
        return release_statistic(self.rows, feature_map, statistic, self.accountant, name,
                                 sensitivity=sensitivity, device=self.release_device)


class Mechanism(BaseEstimator):
    """Base class (and protocol) of what a synthesizer releases and learns from.

    A mechanism is a scikit-learn estimator of its public choices: its
    hyperparameters are keyword-only and stored by ``__init__``
    (``get_params``, ``set_params``, :func:`~sklearn.base.clone`), so that a
    composed :class:`~skdpgen.synthesizers.Synthesizer` exposes them as
    ``mechanism__<name>``; what a fit sets up and releases ends in ``_``, on
    the fit's own clone (the synthesizer's ``mechanism_``).

    A mechanism is set up once per fit (:meth:`setup`: its public choices,
    e.g. feature maps fitted on the encoded width), declares its releases
    (:meth:`budget_shares`), makes them epoch by epoch through a
    :class:`ReleaseContext` (:meth:`release`), and scores a batch of
    generated rows against them (:meth:`loss`). A mechanism that learns in
    rounds releases more when the model has converged on what it has
    (:meth:`next_round`). The synthesizer adds the
    label proportions, plans the budget and trains; see
    :class:`~skdpgen.KMESynthesizer`.

    Released targets are kept in ``targets_`` (name → list of arrays, one per
    release, on CPU); they are post-processing of the noisy releases and
    safe to publish with the model.
    """

    #: the hyperparameters' constraints (a subclass adds its own)
    _parameter_constraints: dict = {}

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

    def reuse_counts(self, counts):
        """Read one-way counts that the fit released before (post-processing).

        Called after :meth:`setup` and before the first :meth:`release`
        with :attr:`SchemaPlan.counts_
        <skdpgen.private_schema.SchemaPlan.counts_>` of a private schema
        estimate (empty otherwise): ``column -> (cells, counts, std)``, the
        noisy counts in rows of cells of the column's one-hot block and
        their noise standard deviation. A mechanism whose loss measures
        those cells may read them as one more measurement (a column
        measured once serves its schema and its marginal); this default
        ignores them.

        Parameters
        ----------
        counts : dict
        """

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

    #: The most rounds the mechanism releases (the first included): the trainer
    #: ends a round when the model has converged, or when it has used its equal part
    #: of the training steps left, and then asks for the next (:meth:`next_round`).
    planned_rounds = 1

    def next_round(self, network, context):
        """Called when :meth:`converged`: release the next round, or say there is none.

        A mechanism that learns in rounds plans one release of its
        :meth:`budget_shares` as a privacy filter and spends it here, round
        by round (:meth:`GaussianAccountant.open_round
        <skdpgen.privacy.GaussianAccountant.open_round>` through
        ``context.accountant``, then the releases of
        :class:`ReleaseContext` under the round's name), choosing what to
        measure from its earlier releases and ``network``, the model fitted
        to them so far (post-processing); the trainer then fits on from
        where the model is. By default there is no round after the first.
        Called when the model has converged, and when a round has used its
        part of the steps (:attr:`planned_rounds`).

        Parameters
        ----------
        network : torch.nn.Module
            The generator as trained so far.
        context : ReleaseContext

        Returns
        -------
        released : bool
            Whether a round was released (training goes on).
        """
        return False

    def refine(self, network):
        """Called when :meth:`converged`: whether training goes on after all.

        A mechanism may check the model against its releases and change it
        (post-processing only); the trainer builds its optimizer again when
        the network's parameters changed. By default False: training stops.
        """
        return False

    def cell_fills(self, encoder):
        """Where the values of each binned column stop inside their outermost bins.

        Post-processing of released one-way shares: ``{column: (lo, f_lo,
        hi, f_hi)}``, the lowest and highest bins that hold rows and the
        share of each that they fill, for
        :meth:`~skdpgen.schema.TableEncoder.decode` (``fills``). By default
        none: every value is drawn on the whole width of its bin.
        """
        return {}

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
        std = (self._class_noise(context, name, feature_map) if by_class
               else np.array([context.noise_std(name, feature_map.max_row_distance)]))
        if not hasattr(self, "released_"):
            self.released_ = {}
        # the last release of each, and (over all rows) the released class proportions
        self.released_[name] = (feature_map, std, None if by_class else context.class_weights)
        return target

    def release_misfit(self, network, noise_dim, *, rows_per_class=2048, device="cpu"):
        """How far the fitted generator is from each release, in units of its noise.

        For each release made through :meth:`_release` (its last one, as
        released: before any shrinkage), the generated rows' mean features
        are compared with the released embedding, ``Σ (release − mean)² /
        σ²`` over its entries (``σ``: the release's public noise standard
        deviation of each class), divided by the number of entries. The
        mean is that of ``rows_per_class`` rows of each class from
        ``network`` in evaluation mode (latent noise from a fixed public
        seed), in two halves ``A`` and ``B`` whose product ``(release −
        mean_A)(release − mean_B)`` replaces the square: the halves' sampling
        errors are independent, so the generated sample's own error drops
        out in expectation. At the true distribution the ratio is about 1
        (the noise's own size); far above 1, the generator does not
        reproduce what was released (an MMD, not a per-cell test: one number
        per release). Post-processing: the releases, their public noise
        levels and the generator.

        Returns
        -------
        misfit : dict
            Release name -> the ratio (float).
        """
        released = getattr(self, "released_", {})
        if not released:
            return {}
        k = max(self.n_classes_, 1)
        labels = (torch.arange(k * rows_per_class, device=device) % k
                  if self.n_classes_ else None)
        z = torch.randn(k * rows_per_class, noise_dim, device=device,
                        generator=torch.Generator(device).manual_seed(0))
        was = network.training
        network.eval()
        out = {}
        with torch.no_grad():
            generated = network(z, labels)
            half = [slice(0, len(z) // 2), slice(len(z) // 2, len(z))]  # each: every class
            for name, (feature_map, std, proportions) in released.items():
                target = np.asarray(self.targets_[name][-1], dtype=float)
                misfit = []
                for part in half:
                    rows = generated[part]
                    cls = None if labels is None else labels[part]
                    w = batch_weights(cls, self.n_classes_, rows)
                    if proportions is not None:  # over all rows: the classes' mixture
                        w = w @ torch.as_tensor(proportions).to(w)[:, None]
                    misfit.append(target - feature_map.raw_feature_sum(rows, w).T.double()
                                  .cpu().numpy())
                product = misfit[0] * misfit[1] / np.asarray(std, dtype=float)[:, None] ** 2
                out[name] = float(product.sum() / product.size)
        network.train(was)
        return out

    def _keep(self, requests, targets, key=None):
        """Record released ``targets`` (of ``requests``) and keep them on device."""
        for (name, _, _), target in zip(requests, targets):
            self.targets_.setdefault(name, []).append(target.detach().cpu().numpy())
            self._on_device[name if key is None else key] = target

    def encoding(self, shape):
        """The :class:`~skdpgen.schema.TableEncoder` options this mechanism needs,
        from the fit's public ``shape`` (:class:`~skdpgen.synthesizers.PublicShape`);
        by default none (a composed synthesizer's ``encoding`` overrides them)."""
        return {}

    def __getstate__(self):
        state = dict(super().__getstate__())  # a copy: the object keeps its own
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

    _parameter_constraints: dict = {
        "features": [None, HasMethods(["fit", "transform", "raw_transform"])],
    }

    def __init__(self, *, features=None):
        self.features = features

    def setup(self, encoder, n_classes, epochs, rng):
        super().setup(encoder, n_classes, epochs, rng)
        self.features_ = fitted_feature_map(self._feature_map(encoder), encoder.n_encoded_)
        return self

    def _feature_map(self, encoder):
        """The feature map to fit on the encoding (``features``, or the default)."""
        if self.features is None:
            return HermiteFeatures(order=20, length_scale=0.5,
                                   category_sizes=encoder.category_sizes_)
        return self.features

    def budget_shares(self, epochs):
        return {"mean embedding": 1.0}

    def release(self, epoch, context):
        if epoch == 0:
            self._release(context, "mean embedding", self.features_)

    def loss(self, generated, labels):
        return feature_map_loss(self._on_device["mean embedding"], self.features_,
                                generated, labels, self.n_classes_)
