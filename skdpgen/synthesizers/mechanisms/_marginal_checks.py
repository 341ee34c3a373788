"""What a marginal fit did not reproduce: post-processing checks of its releases."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math

import numpy as np
import torch
from scipy.stats import chi2

from ._marginal_cells import comonotone_coupling, simplex_projection
from ._base import batch_weights
from .._policy import POLICY

__all__ = ["MarginalChecks"]

ONE_WAY = "one-way marginals"
ONE_WAY_BY_CLASS = "one-way marginals by class"
TWO_WAY = "two-way marginals"
TWO_WAY_BY_CLASS = "two-way marginals by class"
PAIR_SELECTION = "pair selection"
#: The expected positive part of a cell's Gaussian noise, in standard
#: deviations: ``φ(0) = 1/√(2π)`` (:meth:`MarginalChecks.issues`).
SPREAD_FACTOR = 1.0 / math.sqrt(2.0 * math.pi)


class MarginalChecks:
    """The checks of :class:`~skdpgen.synthesizers.MarginalMechanism` against its
    releases: the weak spots of their noise and the marginals its model misses.

    Every method reads the releases, their public noise levels and the model
    only: post-processing.
    """

    def strong_pairs_not_measured(self, tv=POLICY.strong_pair_tv):
        """Pairs the selection found strongly related but did not measure.

        A candidate pair's score is ``2n`` times the total variation between
        its joint distribution and the product of its one-way marginals as
        released (``pair_scores``). At independence the score is not 0: the
        rows depart from independence by a few rows a cell, and the one-way
        release's noise moves the product it is taken against; its mean
        ``μ`` and spread ``s`` there are drawn from the releases
        (:func:`~skdpgen.synthesizers.mechanisms._pair_null.null_scores`,
        ``POLICY.strong_pair_draws`` draws, a public seed), and with the
        selection's noise ``σ`` a noisy score at independence is about
        ``μ + N(0, s² + σ²)``. A pair not among the measured ones is named
        when its noisy score ``r`` is both beyond independence, tested with
        every candidate (``r − μ > z·√(s² + σ²)``, ``z`` the normal quantile
        of ``POLICY.strong_pair_level`` over the ``M`` candidates: the
        largest of ``M`` scores at independence stays below it but for that
        share of the fits), and strong: ``r − μ`` less two of those stds
        still puts the distance above ``tv`` (a relation such as ``agesq =
        age²`` that the synthetic rows lose). Post-processing of the one-way
        release, the selection's and their public noise levels: strongest
        first, as pairs of column keys; empty without a selection.
        """
        if self.candidates_ is None or PAIR_SELECTION not in self.targets_:
            return []
        from scipy.stats import norm

        from ._pair_null import null_scores

        noisy = self.targets_[PAIR_SELECTION][0]
        pairs = [tuple(m) for m in self.candidates_.marginals_]
        mean, spread = null_scores(pairs, self.features_.cells(self.targets_[ONE_WAY][0][0]),
                                   self._groups, self._cell_std, self._n_rows,
                                   POLICY.strong_pair_draws)
        z = norm.isf(POLICY.strong_pair_level / len(pairs))
        std = np.sqrt(spread ** 2 + self._score_std ** 2)
        strong = ((noisy - mean > z * std)
                  & ((noisy - mean - 2.0 * std) / (2.0 * self._n_rows) > tv))
        measured = set(map(tuple, self.pairwise_.marginals_))
        keys = self._block_keys
        order = np.argsort(-noisy, kind="stable")
        return [(keys[pairs[i][0]], keys[pairs[i][1]]) for i in order
                if strong[i] and pairs[i] not in measured]

    def pair_evidence(self):
        """What the releases say of each measured pair, every round combined.

        For each pair of ``pairwise_`` (in its order): the overall
        releases' estimate of its coarse table (each cell the
        precision-weighted mean of the first release and any later round's,
        in shares of the rows), the noise standard deviation of that
        estimate on a cell (rows), its number of cells ``c``, ``energy``:
        the squared distance of the estimate from the product of its own
        margins over its noise variance (at independence, about a
        chi-squared variable of ``free = (r − 1)(k − 1)`` degrees of freedom
        for an ``r × k`` table), and ``noise_ratio``: the norm of the noise
        on the table over the norm of its departure from independence,
        ``√(c / (energy − free))`` (the departure's squared norm is
        ``energy − free`` noise variances in expectation), and
        ``sharp_ratio``: the same ratio for the sharpest relation the
        table's margins allow (``comonotone_coupling``), what a column and a
        monotone function of it would show.
        Post-processing of the releases and their public noise levels.

        Returns
        -------
        evidence : dict
            ``tables`` (list of arrays), ``sigma``, ``cells``, ``energy``,
            ``free`` and ``noise_ratio`` (arrays of shape ``(n_pairs,)``).
        """
        n = self._n_rows
        pairs = self.pairwise_
        first = self._rows_std(TWO_WAY, pairs)
        tables = [t * (1.0 / first ** 2) for t in pairs.cells(self.targets_[TWO_WAY][0][0])]
        precision = np.full(len(tables), 1.0 / first ** 2)
        index = {tuple(m): i for i, m in enumerate(pairs.marginals_)}
        for overall, _, fmap in getattr(self, "_remeasured", ()):
            std = self._rows_std(overall, fmap)
            for m, t in zip(fmap.marginals_, fmap.cells(self.targets_[overall][0][0])):
                i = index[tuple(m)]
                tables[i] = tables[i] + t / std ** 2
                precision[i] += 1.0 / std ** 2
        tables = [t / p for t, p in zip(tables, precision)]
        sigma = 1.0 / np.sqrt(precision)
        # against the product of the table's own margins (those of the one-way
        # release carry noise of their own): (r - 1)(c - 1) degrees of freedom
        energy = np.array([((t - np.outer(t.sum(1), t.sum(0))) ** 2).sum() * (n / s) ** 2
                           for t, s in zip(tables, sigma)])
        free = np.array([(t.shape[0] - 1) * (t.shape[1] - 1) for t in tables])
        cells = np.diff(pairs.offsets_)
        signal = np.maximum(energy - free, 1e-12)  # its expected part beyond the noise
        sharpest = np.array([_sharpest_departure(t) for t in tables]) * n
        return {"tables": tables, "sigma": sigma, "cells": cells, "energy": energy,
                "free": free, "noise_ratio": np.sqrt(cells / signal),
                "sharp_ratio": sigma * np.sqrt(cells) / np.maximum(sharpest, 1e-12)}

    def _rows_std(self, name, feature_map):
        """Release ``name``'s noise on a cell of ``feature_map``'s marginals, in rows."""
        std = float(1.0 / np.sqrt(self._inverse[name].cpu().numpy().reshape(-1)[0]))
        return std * math.sqrt(len(feature_map.marginals_)) * self._n_rows

    def weakened_pairs(self, level=POLICY.weak_pair_noise):
        """Related measured pairs whose releases are too noisy to keep them sharp.

        A measured pair whose releases (every round combined:
        :meth:`pair_evidence`) depart from the product of their own margins
        beyond their noise (a chi-squared test at ``POLICY.misfit_level``
        over the number of pairs: the selection's scores would favour the
        pairs their noise pushed up), by at least ``POLICY.related_share``
        of the rows in norm, is named when
        the noise on its table is at least ``level`` of that departure, in
        norm (``noise_ratio``; ``POLICY.weak_pair_noise``); a pair whose
        release shows no relation at such noise is named by
        :meth:`unresolved_pairs`. A fit matches
        the releases within their noise; where the noise is of the order
        of the relation, that fit spreads the relation's rows into cells
        the data leaves empty (a column and its square much less correlated)
        even when every marginal is matched. Measured on a 9,822-row survey
        at ε = 1: pairs at ratios 0.17-0.21 kept 0.8-0.9 of their
        correlation, pairs at 0.3-0.9 kept 0.3-0.7. Post-processing of the
        releases and their public noise levels: the most related first, as
        pairs of column keys.
        """
        if self.pairwise_ is None:
            return []
        keys = self._block_keys
        return [tuple(keys[a] for a in self.pairwise_.marginals_[i])
                for i in self._weak(self.pair_evidence(), level)]

    def unresolved_pairs(self, level=POLICY.weak_pair_noise):
        """Measured pairs whose releases show no relation, though one as sharp
        as their margins allow would be named weakened: their noise cannot tell.

        A pair not related (:meth:`weakened_pairs`) whose ``sharp_ratio``
        (:meth:`pair_evidence`: the noise on its table over the departure
        from independence of the comonotone coupling of its margins, what a
        column and its square would show) is at least ``level``: if the
        data held such a relation, the release could not show it, and it
        would come back weakened. Post-processing of the releases and their
        public noise levels, in the order of the measured pairs.
        """
        if self.pairwise_ is None:
            return []
        evidence = self.pair_evidence()
        keys = self._block_keys
        hidden = np.nonzero(~self._related(evidence) & (evidence["sharp_ratio"] >= level))[0]
        return [tuple(keys[a] for a in self.pairwise_.marginals_[i]) for i in hidden]

    def _weak(self, evidence, level):
        """Indices of the strongly related pairs whose noise ratio is at least
        ``level``, the most related first.

        Related: beyond the noise (the chi-squared test of :meth:`weakened_pairs`),
        by a departure from independence of at least ``POLICY.related_share`` of
        the rows, in norm (``σ·√(energy − free)`` rows; a departure of a few rows a
        cell, which a test on many rows finds, is no relation to keep sharp)."""
        related = self._related(evidence)
        named = np.nonzero((evidence["noise_ratio"] >= level) & related)[0]
        return named[np.argsort(-self._departure(evidence)[named], kind="stable")]

    def _departure(self, evidence):
        """Each pair's departure from independence, in rows (norm, less the noise's)."""
        return evidence["sigma"] * np.sqrt(np.maximum(evidence["energy"] - evidence["free"],
                                                      0.0))

    def _related(self, evidence):
        """Whether each pair is related (:meth:`_weak`)."""
        free, energy = evidence["free"], evidence["energy"]
        return ((chi2.sf(energy, free) < POLICY.misfit_level / len(free))
                & (self._departure(evidence) >= POLICY.related_share * self._n_rows))

    def issues(self):
        """Ordered columns whose one-way release may spread many rows by its noise.

        A numeric or date column of ``k`` ordered cells (bins, integer
        levels; a value of its ``"points"`` is not counted: it holds rows by
        its estimate, nor one past where the rows stop that the mixture's support
        leaves out: :meth:`MarginalMechanism.initialize`) whose overall one-way
        release carries noise ``σ`` on a cell's share of the rows: a fit gives a
        cell the data leaves empty the
        noise's positive part, ``σ/√(2π)`` on average, so up to ``kσ/√(2π)``
        of the rows may hold values where the data has none, and no more
        than the share ``p`` the release puts in those cells at all (projected
        onto the simplex: a column missing in every row has nothing to
        spread, nor one the schema writes missing in every row, ``"empty"``). The
        share named is of the column's values,
        ``min(kσ/√(2π), p) / p``: a column missing in most rows has few
        values, and the same noise spreads a larger share of them. Named
        (``problem="spread"``) from ``POLICY.spread_share`` of its values: on
        150 rows of ten columns an age on [0, 100], on 20,000 rows none.
        Post-processing of the release and its public noise level.
        """
        out = []
        release = self.targets_[ONE_WAY][0][0]
        std = self._cell_std
        # the places a mixture may not use (MarginalMechanism.initialize): past
        # where the rows stop, the noise spreads nothing
        empty = getattr(self, "_empty_tails", None) or [None] * len(self._block_keys)
        for key, slots, places, cells, order, off in zip(
                self._block_keys, self._ordered_slots, self._places,
                self.features_.cells(release), self._cell_orders, empty):
            if not slots or key not in self._numeric_keys:
                continue
            if off is not None and off.any():
                places -= np.unique(order[off & (order >= 0)]).size
            present = float(simplex_projection(cells)[:slots].sum())
            if not present > 0:
                continue
            # a value of the spec's "points" holds rows by its estimate: not counted
            share = min(SPREAD_FACTOR * std * places, present) / present  # of its values
            if share >= POLICY.spread_share:
                out.append({"column": key, "problem": "spread", "share": share,
                            "detail": f"{places} cells, noise {std * self._n_rows:.3g} "
                                      "rows a cell"})
        return out

    def misfit(self, network=None):
        """Each measured marginal's misfit, tested against its own noise.

        For every release (the one-way marginals over all rows and by class,
        the two-way ones) and every marginal in it, the model's squared
        misfit over the release's noise variance, summed over the
        marginal's cells (and classes): at the true distribution a
        chi-squared variable with as many degrees of freedom as entries.
        A marginal fails when its chi-squared tail probability is below
        ``POLICY.misfit_level`` divided by the number of marginals tested
        (Bonferroni). Post-processing: the releases, their public noise
        levels and the model only.

        Parameters
        ----------
        network : MixtureGenerator, default=None
            The model (the fitted one by default).

        Returns
        -------
        misfits : list of dict
            One per release and marginal: ``release``, ``columns`` (column
            keys), ``chi2``, ``entries``, ``p`` (the tail probability),
            ``excess`` (``(chi2 − entries) / √(2·entries)``) and ``failed``.
        """
        network = self._mixture if network is None else network
        labels = torch.arange(network.n_rows, device=network.logits.device) % max(
            self.n_classes_, 1)
        was = network.training
        network.train()
        with torch.no_grad():
            generated = network(torch.zeros(network.n_rows, 1, device=labels.device),
                                labels if self.n_classes_ else None)
            weights = batch_weights(labels if self.n_classes_ else None, self.n_classes_,
                                    generated)
            overall = (weights if self._class_weights is None
                       else weights @ self._class_weights.to(weights)[:, None])
            out, tables = [], self._joint_tables(network)
            for name, feature_map, w in self._loss_terms(weights, overall):
                means = self._means(feature_map, generated, w, tables)
                target = torch.as_tensor(self.targets_[name][0], device=means.device)
                square = ((target - means) ** 2
                          * self._inverse[name].to(means.device)).double().cpu().numpy().sum(0)
                for m, lo, hi in zip(feature_map.marginals_, feature_map.offsets_[:-1],
                                     feature_map.offsets_[1:]):
                    entries = (hi - lo) * means.shape[0]
                    value = float(square[lo:hi].sum())
                    out.append({"release": name,
                                "columns": tuple(self._block_keys[a] for a in m),
                                "chi2": value, "entries": int(entries),
                                "p": float(chi2.sf(value, entries)),
                                "excess": (value - entries) / math.sqrt(2 * entries)})
        network.train(was)
        level = POLICY.misfit_level / max(len(out), 1)
        for m in out:
            m["failed"] = m["p"] < level
        return out


def _sharpest_departure(table):
    """The norm of the departure from independence of the sharpest relation a
    pair's table's margins allow (:func:`comonotone_coupling`), in shares."""
    p, q = simplex_projection(table.sum(1)), simplex_projection(table.sum(0))
    return float(np.linalg.norm(comonotone_coupling(p, q) - np.outer(p, q)))
