"""What a marginal fit did not reproduce: post-processing checks of its releases."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math

import numpy as np
import torch
from scipy.stats import chi2

from ._marginal_cells import simplex_projection
from ._mechanism import batch_weights
from ._policy import POLICY

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
        its joint distribution and the product of its one-way marginals
        (``pair_scores``); a pair not among the measured ones is named
        when its noisy score less two noise standard deviations still puts
        that distance above ``tv`` (a relation such as ``agesq = age²``
        that the synthetic rows lose). Post-processing of the selection's
        release: strongest first, as pairs of column keys; empty without a
        selection.
        """
        if self.candidates_ is None or PAIR_SELECTION not in self.targets_:
            return []
        noisy = self.targets_[PAIR_SELECTION][0]
        measured = set(map(tuple, self.pairwise_.marginals_))
        strong = (noisy - 2.0 * self._score_std) / (2.0 * self._n_rows) > tv
        keys = self._block_keys
        order = np.argsort(-noisy, kind="stable")
        return [(keys[a], keys[b]) for a, b in (tuple(self.candidates_.marginals_[i])
                                                for i in order if strong[i])
                if (a, b) not in measured]

    def weakened_pairs(self, share=POLICY.weak_pair_spread):
        """Related measured pairs whose release is too noisy to keep them sharp.

        A measured pair's table of ``c`` cells carries noise ``σ`` (rows) on
        each cell of the overall release; a fit gives a cell the data leaves
        empty the noise's positive part, ``σ/√(2π)`` on average, so up to
        ``cσ/√(2π)`` rows of a relation may be spread off it (the one-way
        rule of :meth:`issues`, for pairs; a bound: a fit stopped at its
        noise spreads less). A pair is named when that is at least ``share``
        of the rows (``POLICY.weak_pair_spread``: an exact square on 4,000
        rows, whose bound is 28 %, comes back; on a 9,822-row survey of 348
        measured pairs, bound 80 %, a column and its square went from
        correlation 0.99 to 0.57) and its release departs from the product
        of the released one-way marginals beyond its noise (a chi-squared
        test at ``POLICY.misfit_level`` over the number of pairs, on the
        pair's own release: the selection's scores would favour the pairs
        their noise pushed up). Such a relation comes back weakened (a
        column and its square much less correlated) even when every
        marginal is matched within its noise. Post-processing of the
        releases and their public noise levels: the most related first, as
        pairs of column keys.
        """
        if self.pairwise_ is None:
            return []
        n = self._n_rows
        sigma = float(1.0 / np.sqrt(self._inverse[TWO_WAY].cpu().numpy()[0, 0])) \
            * math.sqrt(len(self.pairwise_.marginals_)) * n  # rows of noise a cell
        cells = np.diff(self.pairwise_.offsets_)
        spread = SPREAD_FACTOR * sigma * cells / n
        model = self.independence_model(self.targets_[ONE_WAY][0][0])
        tables = self.pairwise_.cells(self.targets_[TWO_WAY][0][0])
        energy = np.array([((t - np.outer(model[a], model[b])) ** 2).sum() * (n / sigma) ** 2
                           for (a, b), t in zip(self.pairwise_.marginals_, tables)])
        related = chi2.sf(energy, cells) < POLICY.misfit_level / len(tables)
        named = np.nonzero((spread >= share) & related)[0]
        order = named[np.argsort(-((energy - cells) / np.sqrt(2 * cells))[named], kind="stable")]
        return [tuple(self._block_keys[a] for a in self.pairwise_.marginals_[i]) for i in order]

    def issues(self):
        """Ordered columns whose one-way release may spread many rows by its noise.

        A numeric or date column of ``k`` ordered cells (bins, integer
        levels; a value of its ``"points"`` is not counted: it holds rows by
        its estimate) whose overall one-way release carries noise ``σ`` on a cell's
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
        for key, slots, places, cells in zip(self._block_keys, self._ordered_slots,
                                             self._places, self.features_.cells(release)):
            if not slots or key not in self._numeric_keys:
                continue
            present = float(simplex_projection(cells)[:slots].sum())
            # a value of the spec's "points" holds rows by its estimate: not counted
            share = min(SPREAD_FACTOR * std * places, present)
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
            out = []
            for name, feature_map, w in self._loss_terms(weights, overall):
                means = self._means(feature_map, generated, w, network)
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
