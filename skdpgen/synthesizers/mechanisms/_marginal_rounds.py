"""Rounds of the marginal mechanism that measure where the current model is most wrong.

``MarginalMechanism(rounds=k, round_selection="error")``: after the first
round's releases and a model fitted to them, each later round releases the
model's error on a few candidate marginals (pairs not measured, triples of
related columns), measures the one whose error most exceeds the noise its
measurement would carry, and training goes on from where the model is (the
design of AIM, McKenna et al. 2022, with a Gaussian report-noisy-max in place
of the exponential mechanism). The mechanism calls these functions from its
hooks (``budget_shares``, ``next_round``, ``_means``, ``_joint_tables``).
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import itertools
import math

import numpy as np
import torch

from ...kernels import MarginalFeatures
from ._base import batch_weights
from ._marginal_cells import simplex_projection
from ._marginal_checks import ONE_WAY
from ._marginal_design import round_cell_limit
from .._policy import POLICY

__all__ = ["REMEASURED", "REMEASURED_BY_CLASS", "ROUND_MARGINALS", "ROUND_MARGINALS_BY_CLASS",
           "ROUND_SELECTION", "error_round", "error_scores", "joint_means", "mixture_tables",
           "model_marginals", "refuse_idle_rounds", "release_round", "released_groups",
           "round_candidates", "round_shares", "weak_round"]

#: The releases of a ``round_selection="weak"`` round (:func:`weak_round`).
REMEASURED = "remeasured pairs"
REMEASURED_BY_CLASS = "remeasured pairs by class"
ROUND_SELECTION = "round selection"
ROUND_MARGINALS = "round marginals"
ROUND_MARGINALS_BY_CLASS = "round marginals by class"
#: An error score's replace-one sensitivity, in rows (:func:`error_scores`).
ERROR_SENSITIVITY = 2.0


def refuse_idle_rounds(mechanism):
    """Raise where ``round_selection`` or ``round_share`` is set and ``rounds`` is 1
    (public: the parameters); its ``budget_shares`` calls this when the budget is
    planned, before any row is read. (``rounds`` above 1 with no pair to measure
    again plans nothing more in the mechanism; the preset refuses it.)"""
    if mechanism.rounds == 1 and (mechanism.round_selection != "weak"
                                  or mechanism.round_share != POLICY.round_share):
        raise ValueError("round_selection and round_share have no effect with rounds=1 "
                         "(no later round); leave them at their defaults.")


def round_shares(round_share, by_class):
    """The later rounds' planned releases and their shares of the mechanism's budget.

    Three privacy filters (:meth:`~skdpgen.privacy.GaussianAccountant.open_round`)
    that the rounds spend in equal parts: the selections
    (``POLICY.round_selection_share`` of ``round_share``) and the
    measurements, over all rows and by class (half each; all over all rows
    when ``by_class`` is False).

    Examples
    --------
    >>> from skdpgen.synthesizers.mechanisms._marginal_rounds import round_shares
    >>> {k: round(v, 3) for k, v in round_shares(0.3, False).items()}
    {'round selection': 0.06, 'round marginals': 0.24}
    """
    selection = round_share * POLICY.round_selection_share
    measure = round_share - selection
    if not by_class:
        return {ROUND_SELECTION: selection, ROUND_MARGINALS: measure}
    return {ROUND_SELECTION: selection, ROUND_MARGINALS: measure / 2,
            ROUND_MARGINALS_BY_CLASS: measure / 2}


def error_scores(candidates, counts, model, n_rows):
    """Each candidate marginal's error under a model: ``Σ_cells |N_r − n p_r|``.

    Parameters
    ----------
    candidates : MarginalFeatures
        Fitted: the candidate marginals (pairs, triples) and their coarse cells.
    counts : ndarray of shape (candidates.n_features_out_,)
        Every candidate's cell counts (rows), in the map's layout.
    model : list of ndarray
        Per candidate, the model's proportions of its cells (public: a
        function of earlier releases).
    n_rows : int

    Returns
    -------
    scores : ndarray of shape (n_candidates,)

    Notes
    -----
    **Sensitivity.** Every encoded row is one-hot in every block, so it
    counts once in each candidate's table, whatever the record. Replacing
    one row takes 1 from one cell of each table and adds 1 to one cell
    (possibly the same). ``n_rows`` is public (replace-one) and ``model``
    is fixed given the earlier releases: the mixture was fitted to them
    alone, from a public seed (post-processing), and the candidates were
    chosen from them and public sizes. ``|·|`` is 1-Lipschitz cell by cell,
    so each score moves by at most 2 and the vector of ``K`` scores by at
    most ``2√K`` in L2 norm, attained when the row leaves a cell above its
    model count for one below it in every candidate. Released as one more
    Gaussian release, it composes adaptively and exactly (the filter's
    rounds: :meth:`~skdpgen.privacy.GaussianAccountant.open_round`).

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen.kernels import MarginalFeatures
    >>> from skdpgen.synthesizers.mechanisms._marginal_rounds import error_scores
    >>> fmap = MarginalFeatures(category_sizes=[2, 2, 2], degree=3).fit(np.zeros((1, 6)))
    >>> counts = np.array([4, 0, 0, 4, 0, 4, 4, 0])  # the third column is a XOR b
    >>> error_scores(fmap, counts, [np.full((2, 2, 2), 1 / 8)], 16).tolist()
    [16.0]
    """
    offsets = candidates.offsets_
    out = np.empty(len(candidates.marginals_))
    for i, p in enumerate(model):
        table = counts[offsets[i]:offsets[i + 1]]
        out[i] = np.abs(table - n_rows * np.asarray(p, dtype=float).reshape(-1)).sum()
    return out


def mixture_tables(mixture):
    """The joint tables of a mixture's joined columns, for every term of a loss.

    ``(a, b) ->`` each row's joint of blocks ``a < b`` of one group
    (:meth:`MixtureGenerator.pair_tables`) and, for every group of three
    blocks or more, ``group ->`` each row's joint over the whole group (its
    blocks in order); None when nothing is joined.
    """
    if mixture is None or not mixture.groups:
        return None
    tables = mixture.pair_tables()
    if any(len(g) > 2 for g in mixture.groups):
        for group, table in zip(mixture.groups, mixture._probabilities()[1]):
            tables[tuple(group)] = table
    return tables


def _row_joint(marginal, generated, starts, tables):
    """Each mixture row's joint over the blocks of ``marginal`` (in its order):
    the product over the joined groups it meets (each summed onto the blocks
    it shares) and its blocks outside any group."""
    groups = [g for g in (tables or {}) if not any(set(g) < set(h) for h in tables)]
    letters = {a: chr(ord("a") + i) for i, a in enumerate(marginal)}
    operands, specs, placed = [], [], set()
    for g in groups:
        inside = [a for a in g if a in letters]
        if len(inside) < 2:
            continue
        table = tables[g]
        others = tuple(d + 1 for d, a in enumerate(g) if a not in letters)
        operands.append(table.sum(dim=others) if others else table)
        specs.append("r" + "".join(letters[a] for a in inside))
        placed |= set(inside)
    for a in marginal:
        if a not in placed:
            operands.append(generated[:, starts[a]:starts[a + 1]])
            specs.append("r" + letters[a])
    out = "r" + "".join(letters[a] for a in marginal)
    return torch.einsum(",".join(specs) + "->" + out, *operands)


def joint_means(feature_map, generated, weights, tables):
    """The model's marginals under ``feature_map`` for marginals of any degree.

    As :meth:`MarginalMechanism._means` for pairs: each marginal's weighted
    sum over the mixture's rows of their joint over its blocks (products
    of the rows' blocks; a joined group's joint where the marginal meets two
    of its blocks or more: ``tables``, :func:`mixture_tables`), on the map's
    coarse cells, of shape ``(k, features)``. Post-processing of the model.
    """
    if tables is None:
        return feature_map.raw_feature_sum(generated, weights).T
    starts = np.concatenate([[0], np.cumsum(feature_map.category_sizes)]).astype(int)
    scale = 1.0 / math.sqrt(len(feature_map.marginals_))
    parts = []
    for m in feature_map.marginals_:
        table = torch.einsum("rk,r...->k...", weights, _row_joint(m, generated, starts, tables))
        for axis, block in enumerate(m, start=1):
            groups = feature_map._aggregate[block]
            if groups is not None:  # the marginal's coarse cells on this axis
                agg = torch.as_tensor(groups, dtype=table.dtype, device=table.device)
                table = torch.movedim(torch.tensordot(table, agg, dims=([axis], [0])),
                                      -1, axis)
        parts.append(table.reshape(table.shape[0], -1))
    return torch.cat(parts, dim=1) * scale


def model_marginals(mechanism, network, feature_map):
    """The current model's proportions of every marginal of ``feature_map``
    over all rows (its classes mixed by their released weights), as arrays of
    the marginals' coarse shapes. Post-processing of the model."""
    classes = mechanism.n_classes_
    labels = torch.arange(network.n_rows, device=network.logits.device) % max(classes, 1)
    was = network.training
    network.train()
    with torch.no_grad():
        generated = network(torch.zeros(network.n_rows, 1, device=labels.device),
                            labels if classes else None)
        weights = batch_weights(labels if classes else None, classes, generated)
        if mechanism._class_weights is not None:
            weights = weights @ mechanism._class_weights.to(weights)[:, None]
        means = joint_means(feature_map, generated, weights, mixture_tables(network))
    network.train(was)
    return feature_map.cells(means[0].double().cpu().numpy())


def _cells(mechanism, marginal, groups):
    """A marginal's number of coarse cells under ``groups`` (public: the encoding's)."""
    return int(np.prod([mechanism._sizes[a] if groups[a] is None else int(groups[a].max()) + 1
                        for a in marginal]))


def round_candidates(mechanism, unit, n_rows):
    """The marginals a round chooses among, at most ``POLICY.round_candidates``,
    and the coarse cells they are measured on.

    Neither measured yet nor too large for the round's noise
    (:func:`~skdpgen.synthesizers.mechanisms._marginal_design.round_cell_limit`
    of ``unit``, the noise in rows on a cell). Where the first round
    measured pairs: up to half are pairs not measured, from the highest
    noisy score of the first round's pair selection down (when there was
    one); the rest triples, from the strongest relations the releases show:
    each measured pair's departure from independence (rows,
    :meth:`pair_evidence`), a triple scored by the sum of its three pairs';
    on the pairs' coarse cells. Where it measured none: pairs only
    (:func:`_pairs_without_pairs`). Post-processing of the releases and
    public sizes (ties to the earlier, a public order).

    Returns
    -------
    candidates : list of tuple
    groups : list
        Per block, the coarse cells of the candidates (``groups`` of
        :class:`~skdpgen.kernels.MarginalFeatures`).
    """
    limit = round_cell_limit(n_rows, unit)
    done = {tuple(sorted(m)) for _, _, fmap in mechanism._round_measured
            for m in fmap.marginals_}
    if mechanism.pairwise_ is None and mechanism.candidates_ is None:
        return _pairs_without_pairs(mechanism, limit, unit, done)
    done |= {tuple(sorted(m)) for m in mechanism.pairwise_.marginals_}
    groups = mechanism._groups

    def fits(m):
        return m not in done and _cells(mechanism, m, groups) <= limit

    k = POLICY.round_candidates
    pairs = []
    if mechanism.candidates_ is not None:
        noisy = np.asarray(mechanism.targets_["pair selection"][0])
        pairs = [tuple(sorted(mechanism.candidates_.marginals_[i]))
                 for i in np.argsort(-noisy, kind="stable")]
        pairs = [m for m in pairs if fits(m)]
    strength = dict(zip((tuple(sorted(m)) for m in mechanism.pairwise_.marginals_),
                        mechanism._departure(mechanism.pair_evidence())))
    strong = sorted(strength, key=lambda m: -strength[m])[:2 * k]
    blocks = range(len(mechanism._sizes))
    triples = {tuple(sorted((*m, c))) for m in strong for c in blocks if c not in m}
    score = {t: sum(strength.get(p, 0.0) for p in itertools.combinations(t, 2))
             for t in triples}
    triples = [t for t in sorted(triples, key=lambda t: (-score[t], t)) if fits(t)]
    n_pairs = min(len(pairs), max(k // 2, k - len(triples)))
    return pairs[:n_pairs] + triples[:k - n_pairs], groups


def _pairs_without_pairs(mechanism, limit, unit, done):
    """A round's candidate pairs where the first round measured none.

    Every column's cells are merged into at most ``c`` groups
    (:func:`released_groups`), ``c`` from ``pair_cells`` down to 2, the one
    under which the most pairs not yet measured fit ``limit`` (the larger
    on a tie); of those, the ``POLICY.round_candidates`` of the largest
    expected gain were they as related as their margins allow:
    ``2n·min(g_a, g_b)`` rows, ``g`` a column's Gini impurity ``1 − Σ p²``
    under the overall one-way release (the departure of a column from
    itself), less the measurement's expected L1 noise
    ``√(2/π)·unit·cells``. No released pair score exists here: the choice
    reads the one-way release and public sizes only (post-processing), and
    the round's selection (:func:`error_scores`) reads the rows.
    """
    one_way = [simplex_projection(cells) for cells in
               mechanism.features_.cells(mechanism.targets_[ONE_WAY][0][0])]
    pairs = [m for m in itertools.combinations(range(len(mechanism._sizes)), 2)
             if m not in done]
    best, groups = -1, None
    for c in range(mechanism.pair_cells, 1, -1):
        grouped = released_groups(one_way, mechanism._cell_orders, c)
        fits = sum(_cells(mechanism, m, grouped) <= limit for m in pairs)
        if fits > best:
            best, groups = fits, grouped
    pairs = [m for m in pairs if _cells(mechanism, m, groups) <= limit]
    gini = [1.0 - float(np.sum((p if g is None else np.bincount(g, weights=p)) ** 2))
            for p, g in zip(one_way, groups)]
    n = mechanism._n_rows
    gain = {m: 2 * n * min(gini[m[0]], gini[m[1]])
            - math.sqrt(2 / math.pi) * unit * _cells(mechanism, m, groups) for m in pairs}
    ranked = sorted(pairs, key=lambda m: (-gain[m], m))
    return ranked[:POLICY.round_candidates], groups


def released_groups(one_way, orders, cells):
    """Every column's cells merged into at most ``cells`` groups, by its release.

    An ordered column (``orders``: :meth:`~skdpgen.schema.TableEncoder.cell_order`)
    of more places: consecutive places into groups of about equal released
    mass (each place at the middle of its mass along the released
    cumulative shares), its slot of missing values or exact zeros a group
    of its own. A categorical column of more cells: its ``cells − 1`` most
    frequent under the release, the rest one group. Post-processing of the
    one-way release (``one_way``: per block, its proportions projected on
    the simplex) and the public encoding.

    Returns
    -------
    groups : list
        Per block, None (its own cells) or each slot's group, numbered from 0
        without gaps (the ``groups`` of :class:`~skdpgen.kernels.MarginalFeatures`).

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen.synthesizers.mechanisms._marginal_rounds import released_groups
    >>> p = np.array([0.1, 0.1, 0.2, 0.5, 0.1])
    >>> [g.tolist() for g in released_groups([p, p], [np.arange(5), None], 2)]
    [[0, 0, 0, 1, 1], [1, 1, 1, 0, 1]]
    """
    out = []
    for p, order in zip(one_way, orders):
        if order is None:
            if len(p) <= cells:
                out.append(None)
                continue
            top = np.argsort(-p, kind="stable")[:cells - 1]
            group = np.full(len(p), cells - 1)
            group[top] = np.arange(cells - 1)
        else:
            places = int(order.max()) + 1
            if places <= cells or order.size == 2:
                out.append(None)
                continue
            inside = order >= 0
            mass = np.bincount(order[inside], weights=p[inside], minlength=places)
            total = mass.sum()
            mass = mass / total if total > 0 else np.full(places, 1.0 / places)
            at = np.minimum((np.cumsum(mass) - mass / 2) * cells, cells - 1).astype(int)
            group = np.where(inside, at[np.maximum(order, 0)], cells)
        out.append(np.unique(group, return_inverse=True)[1].astype(np.intp))
    return out


def error_round(mechanism, network, context):
    """One later round: choose by the model's error, measure, train on.

    Releases the error scores (:func:`error_scores`) of the current model on
    the round's candidates (:func:`round_candidates`) as
    ``"round selection, round i"``, sensitivity ``2√K`` in rows. Each
    score less the measurement's expected L1 noise on that marginal
    (``√(2/π)·σ·cells``, ``σ`` the round's public noise on a cell, in rows:
    AIM's correction) is its expected gain; the best is measured as
    ``"round marginals, round i"`` (and by class), read by the loss from
    then on, unless its gain is not beyond the selection's noise (``z``
    of that noise, ``z`` the normal quantile of ``POLICY.misfit_level``
    over ``K``): then the rounds stop, the filters' rest unspent. Where the
    first round measured no pair, the best is always measured (the filters
    have no other use: the one-way marginals were released; a pair measured
    also measures its columns again). Each round spends an equal part of
    what the filters have left. The choice reads the releases, the model
    (fitted to them) and public sizes only.

    Returns
    -------
    released : bool
        Whether a marginal was measured (training goes on).
    """
    from scipy.stats import norm

    done = len(mechanism._round_measured)
    if mechanism._rounds_stopped or done >= mechanism.rounds - 1:
        return False
    accountant, n = context.accountant, context.rows.n_rows
    left = mechanism.rounds - 1 - done
    measure = accountant.round_left(ROUND_MARGINALS) / left
    # one cell's noise, in rows, of a marginal measured alone at this round's share
    unit = (accountant.noise_multiplier_total * math.sqrt(2.0)
            / math.sqrt(accountant.plan[ROUND_MARGINALS][0] * measure))
    candidates, groups = round_candidates(mechanism, unit, n)
    if not candidates:
        mechanism._rounds_stopped = True
        return False
    fmap = MarginalFeatures(category_sizes=mechanism._sizes, degree=3, marginals=candidates,
                            groups=groups).fit(mechanism._zeros)
    model = model_marginals(mechanism, network, fmap)
    k = len(candidates)
    name = accountant.open_round(ROUND_SELECTION, accountant.round_left(ROUND_SELECTION) / left)

    def scores(sums):  # the exact cell counts: one-hot rows sum to integers
        return error_scores(fmap, np.rint(sums * math.sqrt(k)), model, n)

    sensitivity = ERROR_SENSITIVITY * math.sqrt(k)
    noisy = np.asarray(context.release_statistic(name, fmap, scores, sensitivity=sensitivity))
    mechanism.targets_[name] = [noisy]
    gain = noisy - math.sqrt(2 / math.pi) * unit * np.diff(fmap.offsets_)
    best = int(np.argmax(gain))
    spread = accountant.noise_multipliers[name] * sensitivity  # a score's noise, in rows
    log = {"candidates": [tuple(mechanism._block_keys[a] for a in m) for m in candidates],
           "gain": float(gain[best]), "score_std": float(spread)}
    mechanism.round_log_.append(log)
    without_pairs = mechanism.pairwise_ is None and mechanism.candidates_ is None
    if not without_pairs and gain[best] <= norm.isf(POLICY.misfit_level / k) * spread:
        mechanism._rounds_stopped = True
        return False
    chosen = candidates[best]
    log["measured"] = tuple(mechanism._block_keys[a] for a in chosen)
    _measure(mechanism, context, chosen, measure, groups)
    return True


def release_round(mechanism, context, filters, fraction, fmap, store):
    """One round's measurement: release ``fmap``'s marginals over all rows (and by
    class) at ``fraction`` of the privacy filters ``filters`` (their planned
    names), keep them in ``store`` for the loss, and start the stop rule again."""
    accountant = context.accountant
    names = (accountant.open_round(filters[0], fraction),
             accountant.open_round(filters[1], fraction) if mechanism.by_class else None)
    mechanism._release_marginals(context, [(*names, fmap)])
    mechanism._as_inverse(context)
    store.append((*names, fmap))
    mechanism._entries += sum(mechanism.targets_[name][0].size for name in names if name)
    mechanism._refined_at = len(getattr(mechanism, "_losses", ()))  # the stop rule anew


def _measure(mechanism, context, marginal, fraction, groups):
    """Release ``marginal`` (on the coarse cells ``groups``) over all rows (and by
    class) from the filters, at ``fraction`` of what they were planned; the loss
    reads it from now on."""
    fmap = MarginalFeatures(category_sizes=mechanism._sizes, degree=len(marginal),
                            marginals=[marginal], groups=groups).fit(mechanism._zeros)
    release_round(mechanism, context, (ROUND_MARGINALS, ROUND_MARGINALS_BY_CLASS), fraction,
                  fmap, mechanism._round_measured)


def weak_round(mechanism, context):
    """A ``round_selection="weak"`` round (:meth:`MarginalMechanism.next_round`):
    measure again the measured pairs :func:`_remeasure_choice` picks, at this
    round's part of the filter; False when no round is left."""
    if not mechanism.in_rounds or mechanism.pairwise_ is None or \
            len(mechanism._remeasured) >= mechanism.rounds - 1:
        return False
    accountant = context.accountant
    fraction = (accountant.round_left(REMEASURED)
                / (mechanism.rounds - 1 - len(mechanism._remeasured)))
    # one cell's noise, in rows, for one pair measured at this fraction
    unit = (accountant.noise_multiplier_total * math.sqrt(2.0)
            / math.sqrt(accountant.plan[REMEASURED][0] * fraction))
    chosen = _remeasure_choice(mechanism, unit)
    fmap = MarginalFeatures(category_sizes=mechanism._sizes, degree=2, groups=mechanism._groups,
                            marginals=[mechanism.pairwise_.marginals_[i] for i in chosen]
                            ).fit(mechanism._zeros)
    release_round(mechanism, context, (REMEASURED, REMEASURED_BY_CLASS), fraction, fmap,
                  mechanism._remeasured)
    return True


def _remeasure_choice(mechanism, unit):
    """Indices of the measured pairs a weak round measures again, ``unit`` the
    noise in rows on a cell of one pair measured alone."""
    evidence = mechanism.pair_evidence()
    weak = mechanism._weak(evidence, POLICY.weak_pair_noise)
    if not len(weak):
        return list(range(len(mechanism.pairwise_.marginals_)))
    sigma, ratio = evidence["sigma"][weak], evidence["noise_ratio"][weak]
    for k in range(len(weak), 0, -1):  # the most that all come below the level
        joint = 1.0 / np.sqrt(1.0 / sigma[:k] ** 2 + 1.0 / (unit * math.sqrt(k)) ** 2)
        if (ratio[:k] * joint / sigma[:k] < POLICY.weak_pair_noise).all():
            break
    return sorted(weak[:k].tolist())
