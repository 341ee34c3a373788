"""The marginal mechanism: every column's histogram and every pair's, on public cells."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math
from numbers import Integral, Real

import numpy as np
import torch
from sklearn.utils._param_validation import Interval, StrOptions

from ...kernels import MarginalFeatures
from ...schema import kind_of
from ._marginal_cells import (cell_fills, empty_tails, ordered_slots, pair_groups,
                              pair_scores, simplex_projection)
from ._marginal_checks import (ONE_WAY, ONE_WAY_BY_CLASS, PAIR_SELECTION, TWO_WAY,
                               TWO_WAY_BY_CLASS, MarginalChecks)
from ._marginal_design import marginal_design
from ._base import Mechanism, batch_weights
from ._marginal_rounds import (REMEASURED, REMEASURED_BY_CLASS, error_round, joint_means,
                               mixture_tables, refuse_idle_rounds, round_shares, weak_round)
from ..generators.mixture import MixtureGenerator
from .._policy import POLICY

__all__ = ["MarginalMechanism"]


#: A pair score's replace-one sensitivity, in rows (``pair_scores``).
SCORE_SENSITIVITY = 2.0


class MarginalMechanism(MarginalChecks, Mechanism):
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
      2), over all rows and within each class; or, with ``n_pairs`` below
      the number of pairs, only the ``n_pairs`` pairs that
    * ``"pair selection"`` chose: every pair's distance from independence
      under the released one-way marginals (``pair_scores``), released
      once with ``selection_share`` of the budget; the pairs of the
      ``n_pairs`` largest noisy scores are measured (report-noisy-max on a
      Gaussian release).

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
    n_pairs : int or None, default=None
        How many pairs the two-way marginals measure, chosen privately
        (:func:`~skdpgen.synthesizers.mechanisms._marginal_design.marginal_design`;
        at least 1); None: every pair, no selection.
    selection_share : float, default=POLICY.selection_share
        The pair selection's share of the mechanism's budget (taken from
        ``pair_share``), when there is one.
    rounds : int, default=1
        How many rounds measure the pairs. With more than one (and pairs to
        measure), ``round_share`` of the budget is held back as a privacy
        filter (:meth:`~skdpgen.privacy.GaussianAccountant.open_round`) and
        spent, in equal parts, by each later round when the model has
        converged on the releases before it (:meth:`next_round`).
    round_share : float, default=POLICY.round_share
        The later rounds' share of the mechanism's budget, with ``rounds``
        above 1.
    round_selection : {"weak", "error"}, default="weak"
        What a later round measures. ``"weak"``: the measured pairs again
        (:meth:`next_round`). ``"error"``: the one marginal, among a few
        candidates (pairs not measured, triples of related columns), on which
        the current model is most wrong beyond the noise its measurement
        would carry, chosen by a Gaussian report-noisy-max on the model's
        errors (AIM's design; ``skdpgen.synthesizers.mechanisms._marginal_rounds``);
        the rounds stop early when no candidate's expected gain is beyond
        the selection's noise. With ``pair_share`` 0 (no pair in the first
        round), ``"error"`` rounds still run: each measures one pair, chosen
        among the pairs that fit its noise on coarser cells, and never stops
        early.

    Notes
    -----
    **Privacy.** Each release is a class-conditional (or overall) mean
    embedding under a map with non-negative features of norm ≤ 1
    (:class:`~skdpgen.kernels.MarginalFeatures`): replace-one sensitivity
    ``√2/n`` (:meth:`~skdpgen.synthesizers.ReleaseContext.release_embedding`),
    calibrated and composed by the fit's accountant. The pair selection's
    scores have replace-one L2 sensitivity ``2√M`` in rows for ``M``
    candidate pairs (derived in ``pair_scores``; the one-way model they
    read is an earlier release, so the selection composes adaptively,
    exactly, as one more Gaussian release); which pairs are measured is a
    function of that release. The generator, the loss and the division by
    the released class weights only read the releases: post-processing.
    """

    _parameter_constraints: dict = {
        "pair_share": [Interval(Real, 0, 1, closed="left")],
        "pair_cells": [Interval(Integral, 2, None, closed="left")],
        "by_class": ["boolean"],
        "n_pairs": [None, Interval(Integral, 1, None, closed="left")],
        "selection_share": [Interval(Real, 0, 1, closed="neither")],
        "rounds": [Interval(Integral, 1, None, closed="left")],
        "round_share": [Interval(Real, 0, 1, closed="neither")],
        "round_selection": [StrOptions({"weak", "error"})],
    }

    def __init__(self, *, pair_share, pair_cells=POLICY.pair_cells, by_class=True,
                 n_pairs=None, selection_share=POLICY.selection_share, rounds=1,
                 round_share=POLICY.round_share, round_selection="weak"):
        self.pair_share = pair_share
        self.pair_cells = pair_cells
        self.by_class = by_class
        self.n_pairs = n_pairs
        self.selection_share = selection_share
        self.rounds = rounds
        self.round_share = round_share
        self.round_selection = round_selection

    def encoding(self, shape):
        """Every column one-hot: numeric and date columns on ``bins`` equal-width
        bins, integer columns with at most that many values on their levels, as
        :class:`~skdpgen.MarginalSynthesizer` chooses them at ``bins="auto"``
        (``marginal_design``, of the public shape and this ``pair_share``)."""
        bins = marginal_design(shape.n_rows, shape.n_columns, shape.epsilon, shape.delta,
                               pair_share=self.pair_share)[2]
        return {"bins": bins, "max_levels": bins}

    @property
    def in_rounds(self):
        """Whether later rounds are released: ``rounds`` > 1, and pairs measured in
        the first round or ``round_selection="error"`` (whose rounds measure pairs
        where the first round measured none)."""
        return self.rounds > 1 and (self.pair_share > 0 or self.round_selection == "error")

    @property
    def planned_rounds(self):
        """The rounds released: ``rounds``, or 1 when no pair is measured."""
        return self.rounds if self.in_rounds else 1

    @property
    def selects(self):
        """Whether the pairs are chosen privately (fewer than all measured)."""
        return self.pair_share > 0 and self.n_pairs is not None

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
        # the places along the values (bins, levels): a point's cell is not one
        self._places = [0 if order is None else int(order.max()) + 1
                        for order in encoder.cell_order()]
        self._numeric_keys = {key for key, spec in zip(encoder.columns_, encoder.specs_)
                              if kind_of(spec).is_bounded and not spec.get("empty")}
        zeros = np.zeros((1, encoder.n_encoded_))
        self._zeros, self._sizes = zeros, sizes
        self._groups = pair_groups(encoder, self.pair_cells)
        self._offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp)
        self._reused, self.reused_columns_ = None, []
        self._remeasured = []  # per later round: (overall, by class, map) release names
        self._round_measured, self._rounds_stopped, self.round_log_ = [], False, []
        self.features_ = MarginalFeatures(category_sizes=sizes, degree=1).fit(zeros)
        self.pairwise_ = self.candidates_ = None
        # error rounds without first-round pairs: their coarser cells (_marginal_rounds)
        self._cell_orders = encoder.cell_order()
        # the ordered blocks whose tails may be empty: not those whose cells a
        # release placed to hold equal shares of the rows ("quantiles")
        following = {key for key, spec in zip(encoder.columns_, encoder.specs_)
                     if spec.get("quantiles") is not None}
        self._tail_orders = [None if key in following else order
                             for key, order in zip(self._block_keys, self._cell_orders)]
        if len(sizes) > 1 and self.pair_share > 0:
            every_pair = MarginalFeatures(category_sizes=sizes, degree=2,
                                          groups=self._groups).fit(zeros)
            if self.selects:
                self.candidates_ = every_pair  # measured after the selection
            else:
                self.pairwise_ = every_pair
        return self

    def budget_shares(self, epochs):
        refuse_idle_rounds(self)
        shares = self._first_round_shares()
        if not self.in_rounds:
            return shares
        shares = {name: share * (1.0 - self.round_share) for name, share in shares.items()}
        if self.round_selection == "error":
            return {**shares, **round_shares(self.round_share, self.by_class)}
        if not self.by_class:
            return {**shares, REMEASURED: self.round_share}
        return {**shares, REMEASURED: self.round_share / 2,
                REMEASURED_BY_CLASS: self.round_share / 2}

    def _first_round_shares(self):
        one, two = 1.0 - self.pair_share, self.pair_share
        selection = {}
        if two and self.selects:
            selection, two = {PAIR_SELECTION: self.selection_share}, two - self.selection_share
        if not self.by_class:
            shares = {ONE_WAY: one, TWO_WAY: two} if two else {ONE_WAY: one}
            return {**shares, **selection}
        shares = {ONE_WAY: one / 2, ONE_WAY_BY_CLASS: one / 2}
        if two:
            shares.update({TWO_WAY: two / 2, TWO_WAY_BY_CLASS: two / 2})
        return {**shares, **selection}

    def reuse_counts(self, counts):
        """Measure the one-way marginals of estimated columns once more: their
        schema estimate's counts.

        An estimated categorical column's partition selection released the
        noisy counts of its kept values (and of its missing values): the
        one-way marginal of those cells, at their own noise. The loss reads
        them beside the releases of this mechanism, each cell's squared
        misfit over its noise variance (the Gaussian likelihood of that
        release too), so the budget the schema spent measures the model as
        well. Post-processing of an earlier release. ``reused_columns_``
        names the columns read.
        """
        index, targets, inverse = [], [], []
        self.reused_columns_ = []
        for key, (cells, values, std) in counts.items():
            if key not in self._block_keys or not len(cells):
                continue
            self.reused_columns_.append(key)
            start = self._offsets[self._block_keys.index(key)]
            index.append(start + np.asarray(cells, dtype=np.intp))
            targets.append(np.asarray(values, dtype=float))
            inverse.append(np.full(len(cells), 1.0 / max(float(std), 1e-3) ** 2))
        if index:
            self._reused = tuple(np.concatenate(v) for v in (index, targets, inverse))

    def independence_model(self, one_way):
        """Each block's coarse-cell proportions from the overall one-way release.

        ``one_way``: that release (proportions, noisy), projected onto the
        simplex and summed into the pairs' coarse cells: post-processing.
        """
        model = []
        for cells, groups in zip(self.features_.cells(one_way), self._groups):
            p = simplex_projection(cells)
            model.append(p if groups is None else np.bincount(groups, weights=p))
        return model

    def select_pairs(self, context, model):
        """Release every candidate pair's score and keep the ``n_pairs`` highest.

        ``model``: per block, the proportions of its coarse cells that the
        scores measure dependence against (public: :meth:`independence_model`
        of the one-way release). Ties go to the earlier pair (a public
        order). Returns the measured pairs' map.
        """
        candidates = self.candidates_
        n = context.rows.n_rows
        m = len(candidates.marginals_)

        def scores(sums):  # the exact cell counts: one-hot rows sum to integers
            return pair_scores(candidates, np.rint(sums * math.sqrt(m)), model, n)

        noisy = context.release_statistic(PAIR_SELECTION, candidates, scores,
                                          sensitivity=SCORE_SENSITIVITY * math.sqrt(m))
        self.targets_[PAIR_SELECTION] = [np.asarray(noisy)]
        # a score's noise, in rows (public: the budget's noise multiplier)
        self._score_std = (context.noise_std(PAIR_SELECTION, SCORE_SENSITIVITY * math.sqrt(m))
                           * n)
        chosen = np.argsort(-np.asarray(noisy), kind="stable")[:self.n_pairs]
        pairs = [candidates.marginals_[i] for i in chosen.tolist()]  # highest score first
        return MarginalFeatures(category_sizes=self._sizes, degree=2, marginals=pairs,
                                groups=self._groups).fit(self._zeros)

    def release(self, epoch, context):
        if epoch:
            return
        self._inverse = {}
        weights = context.class_weights
        self._class_weights = None if weights is None else torch.as_tensor(weights)
        releases = [(ONE_WAY, ONE_WAY_BY_CLASS, self.features_)]
        if self.pairwise_ is not None:
            releases.append((TWO_WAY, TWO_WAY_BY_CLASS, self.pairwise_))
        self._release_marginals(context, releases)  # one pass over the rows
        if self.candidates_ is not None:  # choose the pairs, then measure them
            model = self.independence_model(self.targets_[ONE_WAY][0][0])
            self.pairwise_ = self.select_pairs(context, model)
            self._release_marginals(context, [(TWO_WAY, TWO_WAY_BY_CLASS, self.pairwise_)])
        self._entries = sum(t[0].size for name, t in self.targets_.items()
                            if name != PAIR_SELECTION)  # the loss's entries
        self._counts = None
        if self._reused is not None:  # in proportions of the public n
            index, counts, inverse = self._reused
            n = float(context.rows.n_rows)
            self._counts = tuple(torch.as_tensor(v, dtype=dtype, device=context.device)
                                 for v, dtype in ((index, torch.long),
                                                  (counts / n, torch.float32),
                                                  (inverse * n * n, torch.float32)))
            self._entries += len(index)
        # the overall one-way release's noise on a cell's share of the rows (public)
        self._n_rows = context.rows.n_rows
        self._cell_std = (float(self._inverse[ONE_WAY][0])
                          * math.sqrt(len(self.features_.marginals_)))
        self._as_inverse(context)

    def _as_inverse(self, context):
        """Each release's entries weighted by their inverse noise variance, on the
        training device (a release without noise, epsilon = inf, at a thousandth of
        one row)."""
        floor = 1e-3 / context.rows.n_rows
        self._inverse = {name: std if torch.is_tensor(std) else torch.as_tensor(
            1.0 / np.maximum(std[:, None], floor) ** 2, dtype=torch.float32,
            device=context.device) for name, std in self._inverse.items()}

    def next_round(self, network, context):
        """Measure again the related pairs whose noise could spread them most.

        With ``rounds`` above 1, when the model has converged on the releases
        so far: the measured pairs whose releases (every round combined:
        :meth:`pair_evidence`) depart from independence beyond their noise
        with noise at least ``POLICY.weak_pair_noise`` of that departure
        (:meth:`weakened_pairs`), the most related first, as many as this
        round's part of the filter brings below that level most of (at
        least one); every measured pair when none is weakened (two Gaussian
        measurements of a marginal are worth one at their summed precision:
        nothing is lost). They are released over all rows and by class as
        the first round's pairs are, at their own noise, and the loss reads
        every release (their Gaussian likelihood). The choice reads the
        releases and public noise levels only; the model trains on from
        where it is.

        Returns
        -------
        released : bool
        """
        if self.round_selection == "error" and self.in_rounds:
            return error_round(self, network, context)
        return weak_round(self, context)

    def __getstate__(self):
        state = super().__getstate__()  # device tensors on the CPU: loads anywhere
        if isinstance(state.get("_inverse"), dict):
            state["_inverse"] = {k: v.cpu() if torch.is_tensor(v) else v
                                 for k, v in state["_inverse"].items()}
        if state.get("_counts") is not None:
            state["_counts"] = tuple(v.cpu() for v in state["_counts"])
        state.pop("_mixture", None)  # the fitted network is the synthesizer's
        state.pop("_losses", None)  # the stop rule's record of a fit in progress
        return state

    def cell_fills(self, encoder):
        """Where each binned column's rows stop inside their outermost bins, from
        the overall one-way release (:func:`._marginal_cells.cell_fills`)."""
        if ONE_WAY not in getattr(self, "targets_", {}):
            return {}
        return cell_fills(encoder, self.features_.cells(self.targets_[ONE_WAY][0][0]),
                          self._cell_std)

    def pair_names(self):
        """The measured pairs, as pairs of column keys (empty when none)."""
        if self.pairwise_ is None:
            return []
        keys = self._block_keys
        return [(keys[a], keys[b]) for a, b in self.pairwise_.marginals_]

    def _release_marginals(self, context, releases):
        """Release ``(overall, by_class, map)`` marginals in one pass over the rows."""
        requests = []
        for overall, by_class, feature_map in releases:
            requests.append((overall, feature_map, False))
            self._inverse[overall] = np.array(
                [context.noise_std(overall, feature_map.max_row_distance)])
            if self.by_class:
                requests.append((by_class, feature_map, True))
                self._inverse[by_class] = self._class_noise(context, by_class, feature_map)
        self._keep(requests, context.release_embeddings(requests))

    def initialize(self, network):
        """A mixture starts where the one-way releases say: every row of class
        ``c`` at the histograms of class ``c`` (each cell the precision-
        weighted mean of its by-class and overall releases, projected onto
        the probability simplex, floored at 1e-4: the independence model),
        plus its random logits. The cells of an ordered column beyond the
        range the overall one-way release holds rows in (one place of margin
        on each side: :func:`._marginal_cells.empty_tails`) hold none
        (:meth:`MixtureGenerator.restrict`), except where the cells follow
        the released mass (the spec's ``"quantiles"``: each placed to hold a
        share of the rows, none empty by construction). A release's noise there is as
        often positive as negative, and a mixture's shares never reach 0 on
        their own (a floor of 1e-4 on fifty empty bins is half a percent of
        the rows, several percent of a sparse column's values).
        Post-processing of the releases."""
        if not isinstance(network, MixtureGenerator):
            return
        self._mixture, self._refinements, self._refined_at, self._losses = network, 0, 0, []
        self.joined_ = []
        self._empty_tails = empty_tails(
            self._tail_orders, self.features_.cells(self.targets_[ONE_WAY][0][0]),
            self._cell_std)
        network.restrict(~np.concatenate(self._empty_tails))
        overall = self.targets_[ONE_WAY][0][0]
        v_all = 1.0 / self._inverse[ONE_WAY].cpu().numpy()[:, 0]
        if self.by_class:
            by_class = self.targets_[ONE_WAY_BY_CLASS][0]
            v_class = 1.0 / self._inverse[ONE_WAY_BY_CLASS].cpu().numpy()[:, 0]
        else:  # unlabeled: one "class", the overall release
            by_class, v_class = overall[None, :], v_all
        starts = []
        for c in range(max(self.n_classes_, 1)):
            # each cell: the two releases' precision-weighted mean
            total = v_all[0] + v_class[c]
            w = v_all[0] / total if total > 0 else 1.0  # no noise: the class's own
            target = w * by_class[c] + (1 - w) * overall
            starts.append([np.maximum(simplex_projection(cells), 1e-4)
                           for cells in self.features_.cells(target)])
        network.warm_start(starts)  # the mixture owns its start

    def converged(self, loss):
        """Whether the fit is as close to the releases as their noise allows, in
        all, or no longer gets closer.

        At the true marginals the loss (each entry's squared misfit over its
        noise variance) has expectation the number of released entries
        ``N``; a fit below it matches the noise on the whole (Morozov's
        discrepancy principle). True at a step whose loss is at most ``N``
        (after a :meth:`refine` that went on, every ``POLICY.refine_steps``
        steps), or whose loss fell by less than ``POLICY.plateau`` of itself
        over the last ``POLICY.plateau_steps`` steps; the trainer then asks
        :meth:`refine` whether every measured marginal is matched too. Of the
        releases and their public noise levels only.
        """
        loss = float(loss)
        if not hasattr(self, "_losses"):  # a network other than a mixture
            self._losses, self._refined_at = [], 0
        self._losses.append(loss)
        since = len(self._losses) - self._refined_at
        if loss <= self._entries and (not getattr(self, "_refinements", 0)
                                      or since % POLICY.refine_steps == 0):
            return True
        if since < POLICY.plateau_steps:
            return False
        return loss >= (1.0 - POLICY.plateau) * self._losses[-POLICY.plateau_steps]

    def refine(self, network):
        """Go on training while a measured marginal is not matched within its noise.

        Called when the loss in all is within the noise or stopped falling
        (:meth:`converged`). Each measured marginal's misfit is tested on its own
        (:meth:`misfit`); while one fails, the columns of the failing pairs
        are joined in the mixture (:meth:`MixtureGenerator.join`: one joint
        distribution per component over a group's cells, at most
        ``POLICY.joint_cells`` of them), strongest misfit first, and
        training goes on (``POLICY.refine_steps`` steps between tests), at
        most ``POLICY.refine_rounds`` times, while a join was made in the
        last ``POLICY.join_steps`` steps, and only the joints train on (all
        parameters would fit every cell's noise: bundesliga's 3-way TV 0.35
        -> 0.41); otherwise training stops, the failing marginals named.
        Post-processing: of the releases, their noise levels and the model.

        Returns
        -------
        more : bool
            Whether training goes on.
        """
        measured = self.pairwise_ is not None or getattr(self, "_round_measured", [])
        if (not isinstance(network, MixtureGenerator) or not measured
                or self._refinements >= POLICY.refine_rounds):
            return False
        failing = [m for m in self.misfit(network) if m["failed"]]
        if not failing:
            return False
        if network.join(self._grown_groups(network, failing)):  # only joints train on:
            network.train_joints_only()  # the rest would fit its noise further
            self.joined_ = [tuple(self._block_keys[a] for a in g) for g in network.groups]
            self._joined_at = len(self._losses)
        elif not self.joined_ or len(self._losses) - self._joined_at >= POLICY.join_steps:
            return False
        self._refinements += 1
        self._refined_at = len(self._losses)
        return True

    def _grown_groups(self, network, failing):
        """The mixture's groups grown by the failing pairs (worst first), each
        group at most ``POLICY.joint_cells`` cells."""
        groups = [set(g) for g in network.groups]
        sizes = self._sizes
        for m in sorted(failing, key=lambda m: -m["excess"]):
            if len(m["columns"]) < 2:
                continue
            met = {id(g): g for a in map(self._block_keys.index, m["columns"])
                   for g in [next((g for g in groups if a in g), {a})]}
            union = set().union(*met.values())
            if len(met) < 2 or int(np.prod([sizes[c] for c in union])) > POLICY.joint_cells:
                continue
            groups = [g for g in groups if id(g) not in met] + [union]
        return [tuple(sorted(g)) for g in groups if len(g) > 1]

    def _loss_terms(self, by_class, overall):
        """``(release, feature map, weights)`` of every release in the loss."""
        terms = [(ONE_WAY_BY_CLASS, self.features_, by_class),
                 (TWO_WAY_BY_CLASS, self.pairwise_, by_class),
                 (ONE_WAY, self.features_, overall), (TWO_WAY, self.pairwise_, overall)]
        for name, name_by_class, fmap in [*getattr(self, "_remeasured", ()),
                                          *getattr(self, "_round_measured", ())]:
            terms += [(name_by_class, fmap, by_class), (name, fmap, overall)]
        return [(name, fmap, w) for name, fmap, w in terms if fmap is not None
                and name is not None and (self.by_class or not name.endswith("by class"))]

    def _joint_tables(self, mixture=None):
        """The joined pairs' tables of ``mixture`` (the fitted one by default), once
        for every term of a loss; None when it joined nothing."""
        mixture = getattr(self, "_mixture", None) if mixture is None else mixture
        return mixture_tables(mixture)

    def _means(self, feature_map, generated, weights, tables=None):
        """The model's marginals under ``feature_map``: the mixture's products,
        and for pairs inside a joined group, its joint (``tables``:
        :meth:`_joint_tables`), of shape ``(k, features)``."""
        if feature_map.degree > 2:  # a round's triples (_marginal_rounds)
            return joint_means(feature_map, generated, weights, tables)
        means = feature_map.raw_feature_sum(generated, weights).T
        if feature_map.degree != 2 or tables is None:
            return means
        scale = 1.0 / math.sqrt(len(feature_map.marginals_))
        columns, values = [], []
        for i, (a, b) in enumerate(feature_map.marginals_):
            if (a, b) in tables:
                table = tables[a, b]
            elif (b, a) in tables:
                table = tables[b, a].transpose(1, 2)
            else:
                continue
            table = torch.einsum("rk,rij->kij", weights, table)
            for axis, block in ((1, a), (2, b)):
                groups = feature_map._aggregate[block]
                if groups is not None:  # the pair's coarse cells
                    agg = torch.as_tensor(groups, dtype=table.dtype, device=table.device)
                    table = (torch.einsum("kij,jc->kic", table, agg) if axis == 2
                             else torch.einsum("kij,ic->kcj", table, agg))
            columns.append(torch.arange(feature_map.offsets_[i], feature_map.offsets_[i + 1]))
            values.append(table.reshape(table.shape[0], -1) * scale)
        if columns:
            means = means.clone()
            means[:, torch.cat(columns).to(means.device)] = torch.cat(values, dim=1)
        return means

    def loss(self, generated, labels):
        weights = batch_weights(labels, self.n_classes_, generated)  # (batch, classes)
        overall = (weights if self._class_weights is None  # the mixture of the classes
                   else weights @ self._class_weights.to(weights)[:, None])
        loss, tables = 0.0, self._joint_tables()
        for name, feature_map, w in self._loss_terms(weights, overall):
            means = self._means(feature_map, generated, w, tables)
            loss = loss + torch.sum((self._on_device[name] - means) ** 2 * self._inverse[name])
        if self._counts is not None:  # the schema estimate's counts
            index, target, inverse = self._counts
            p = (generated[:, index] * overall).sum(0)
            loss = loss + torch.sum((target - p) ** 2 * inverse)
        return loss
