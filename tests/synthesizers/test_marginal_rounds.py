"""Rounds that measure where the model is most wrong (``round_selection="error"``).

The error scores' sensitivity on adversarial neighbours, the model's triples
under joined columns, and fits in which a later round finds what the first
missed. The audit of a round's releases is in tests/audit/test_audit.py
("marginals-error-rounds"); replay and neighbour tests in tests/test_replay.py
and tests/test_neighbours.py ("marginals-error-rounds").
"""

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest
import torch

from skdpgen import MarginalSynthesizer
from skdpgen.kernels import MarginalFeatures
from skdpgen.synthesizers import MixtureGenerator
from skdpgen.synthesizers.mechanisms._marginal_rounds import (ERROR_SENSITIVITY, error_scores,
                                                   joint_means, mixture_tables)


def _counts(codes, fmap):
    """Every marginal's cell counts of integer ``codes`` (n, d), in the map's layout."""
    sizes = fmap.sizes_
    out = []
    for m in fmap.marginals_:
        table = np.zeros([sizes[a] for a in m])
        np.add.at(table, tuple(codes[:, a] for a in m), 1)
        out.append(table.ravel())
    return np.concatenate(out)


@pytest.mark.parametrize("seed", range(3))
def test_error_scores_move_by_at_most_their_sensitivity(seed):
    # every replacement of one record in small random tables, pairs and triples,
    # under a public model drawn at random (a model fitted to earlier releases)
    rng = np.random.default_rng(seed)
    sizes = [2, 3, 2, 2]
    marginals = [(0, 1), (2, 3), (0, 1, 2), (1, 2, 3), (0, 2, 3)]
    fmap = MarginalFeatures(category_sizes=sizes, marginals=marginals).fit(
        np.zeros((1, sum(sizes))))
    model = [rng.dirichlet(np.ones(int(np.prod([sizes[a] for a in m])))) for m in marginals]
    codes = np.column_stack([rng.integers(0, s, 9) for s in sizes])
    n = len(codes)
    base = error_scores(fmap, _counts(codes, fmap), model, n)
    worst_each = worst_norm = 0.0
    for record in itertools.product(*[range(s) for s in sizes]):
        for row in range(n):
            other = codes.copy()
            other[row] = record
            diff = error_scores(fmap, _counts(other, fmap), model, n) - base
            worst_each = max(worst_each, float(np.abs(diff).max()))
            worst_norm = max(worst_norm, float(np.linalg.norm(diff)))
    assert worst_each <= ERROR_SENSITIVITY + 1e-9
    assert worst_norm <= ERROR_SENSITIVITY * math.sqrt(len(marginals)) + 1e-9
    assert worst_norm > 0


def test_the_error_score_bound_is_attained():
    # ten records at (0, 0, 0) against a uniform model; the neighbour moves one to
    # (1, 1, 1): in every candidate it leaves a cell above its model count for one
    # below it, so the vector moves by exactly 2√K
    sizes = [2, 2, 2]
    marginals = [(0, 1), (0, 2), (1, 2), (0, 1, 2)]
    fmap = MarginalFeatures(category_sizes=sizes, marginals=marginals).fit(np.zeros((1, 6)))
    model = [np.full(2 ** len(m), 0.5 ** len(m)) for m in marginals]
    d = np.zeros((10, 3), dtype=int)
    d_prime = d.copy()
    d_prime[-1] = 1
    diff = (error_scores(fmap, _counts(d, fmap), model, 10)
            - error_scores(fmap, _counts(d_prime, fmap), model, 10))
    assert np.allclose(np.abs(diff), ERROR_SENSITIVITY)
    assert np.linalg.norm(diff) == pytest.approx(ERROR_SENSITIVITY * math.sqrt(4))


@pytest.mark.parametrize("joined", [[], [(0, 1)], [(1, 2)], [(0, 1, 2)], [(0, 2, 3)]])
def test_the_model_triples_follow_the_joined_columns(joined):
    # the triple (0, 1, 2) of a mixture whose columns are joined in various ways,
    # on coarse cells, against each row's joint computed by brute force
    torch.manual_seed(0)
    sizes = [2, 3, 2, 2]
    net = MixtureGenerator(5, 0, sizes)
    with torch.no_grad():
        net.logits.normal_()
    net.join(joined)
    with torch.no_grad():
        for joint in net.joints:
            joint.normal_()
    groups = [None, np.array([0, 1, 1]), None, None]
    fmap = MarginalFeatures(category_sizes=sizes, marginals=[(0, 1, 2)], groups=groups).fit(
        np.zeros((1, 9)))
    with torch.no_grad():
        probs, tables = net._probabilities()
        weights = torch.rand(5, 2, dtype=probs.dtype)
        got = joint_means(fmap, probs, weights, mixture_tables(net)).numpy()
    starts = [0, 2, 5, 7, 9]
    expected = np.zeros((2, 2, 3, 2))
    for r in range(5):
        joint = np.zeros((2, 3, 2))
        for cell in itertools.product(range(2), range(3), range(2)):
            p, left = 1.0, set(range(3))
            for g, table in zip(net.groups, tables):
                inside = [a for a in g if a < 3]
                if len(inside) < 2:
                    continue
                others = tuple(d + 1 for d, a in enumerate(g) if a >= 3)
                t = table[r:r + 1].sum(dim=others)[0] if others else table[r]
                p *= float(t[tuple(cell[a] for a in inside)])
                left -= set(inside)
            for a in left:
                p *= float(probs[r, starts[a] + cell[a]])
            joint[cell] = p
        for k in range(2):
            expected[k] += float(weights[r, k]) * joint
    coarse = np.stack([expected[:, :, 0], expected[:, :, 1:].sum(2)], axis=2)
    assert np.allclose(got, coarse.reshape(2, -1), atol=1e-6)


def _xor_table(n=5_000, seed=0):
    """``c = a XOR b``: every pair independent, the triple sharp."""
    rng = np.random.default_rng(seed)
    a, b = rng.integers(0, 2, n), rng.integers(0, 2, n)
    return pd.DataFrame({"a": a, "b": b, "c": a ^ b, "d": rng.integers(0, 3, n),
                         "e": rng.integers(0, 4, n)})


def _categorical(X):
    return {k: {"type": "categorical", "categories": sorted(set(X[k]))} for k in X}


def test_a_later_round_measures_the_triple_every_pair_misses():
    X = _xor_table()
    kwargs = dict(schema=_categorical(X), random_state=0)
    one = MarginalSynthesizer(**kwargs).fit(X, epsilon=1.0)
    more = MarginalSynthesizer(rounds=3, round_selection="error", **kwargs).fit(X, epsilon=1.0)
    assert more.round_marginals_[0] == ("a", "b", "c")
    assert one.round_marginals_ == []

    def xor_rate(synth):
        S = synth.sample(5_000, random_state=0)
        S = S[0] if isinstance(S, tuple) else S
        return np.mean(S["c"].astype(int) == (S["a"].astype(int) ^ S["b"].astype(int)))

    assert xor_rate(one) < 0.6 < 0.95 < xor_rate(more)
    names = [r.name for r in more.privacy_report_.releases]
    assert "round selection, round 1" in names and "round marginals, round 1" in names
    assert more.privacy_report_.epsilon <= 1.0 + 1e-9


def test_a_later_round_measures_a_strong_pair_the_selection_left_out():
    # two sharp pairs (a, b) and (c, d); one pair measured in the first round
    rng = np.random.default_rng(1)
    n = 6_000
    a, c = rng.integers(0, 3, n), rng.integers(0, 3, n)
    X = pd.DataFrame({"a": a, "b": (a + 1) % 3, "c": c, "d": (2 * c) % 3,
                      "e": rng.integers(0, 3, n)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synth = MarginalSynthesizer(schema=_categorical(X), max_pairs=1, rounds=2,
                                    round_selection="error", random_state=0).fit(X, epsilon=1.0)
    (first,) = synth.measured_pairs_
    assert first in {("a", "b"), ("c", "d")}
    assert synth.round_marginals_ == [("a", "b") if first == ("c", "d") else ("c", "d")]


def test_round_selection_without_rounds_is_an_error():
    X = _xor_table(500)
    with pytest.raises(ValueError, match="round_selection='error'"):
        MarginalSynthesizer(schema=_categorical(X), round_selection="error").fit(X, epsilon=1.0)


def _planted_pair(n=1_500, seed=0):
    """Eight columns: ``b`` equals ``a`` in 90 % of the rows, the rest independent."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, n)
    X = pd.DataFrame({"a": a, "b": np.where(rng.random(n) < 0.9, a, rng.integers(0, 3, n))})
    for j in range(6):
        X[f"x{j}"] = rng.integers(0, 4, n)
    return X


def test_rounds_measure_a_planted_pair_where_the_design_measures_none():
    from skdpgen.synthesizers.mechanisms._marginal_design import (marginal_design,
                                                                  rounds_without_pairs)
    X = _planted_pair()
    assert marginal_design(len(X), X.shape[1], 1.0, 1e-5)[1] == 0  # no pair measured
    assert rounds_without_pairs(len(X), 1.0, 1e-5, 4, labeled=False) == 3
    kwargs = dict(schema=_categorical(X), random_state=0)
    with pytest.warns(UserWarning, match="drawn independently"):
        one = MarginalSynthesizer(**kwargs).fit(X, epsilon=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no independence warning: the rounds measure pairs
        more = MarginalSynthesizer(rounds=4, round_selection="error", **kwargs).fit(
            X, epsilon=1.0)
    assert one.pair_share_ == more.pair_share_ == 0 and one.round_marginals_ == []
    assert more.round_marginals_[0] == ("a", "b") and len(more.round_marginals_) == 3

    def agreement(synth):  # the real rows: 0.93; independent columns: 1/3
        S = synth.sample(5_000, random_state=0)
        S = S[0] if isinstance(S, tuple) else S
        return np.mean(S["a"].astype(int) == S["b"].astype(int))

    assert agreement(one) < 0.45 < 0.85 < agreement(more)
    names = [r.name for r in more.privacy_report_.releases]
    assert {"round selection, round 3", "round marginals, round 3"} <= set(names)
    assert "two-way marginals" not in names and "pair selection" not in names
    assert more.privacy_report_.epsilon == pytest.approx(1.0)  # every filter spent


def test_rounds_without_pairs_are_refused_where_they_cannot_measure_one():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.uniform(0, 1, (340, 30)))
    with pytest.raises(ValueError, match=r"no pair is measured .* at most rounds=4"):
        MarginalSynthesizer(bounds=(0, 1), rounds=6, round_selection="error").fit(
            X, rng.integers(0, 2, 340), epsilon=1.0)
    with pytest.raises(ValueError, match="has no effect: no pair is measured"):
        MarginalSynthesizer(bounds=(0, 1), rounds=2).fit(X, epsilon=1.0)


def test_weak_rounds_without_pairs_plan_nothing_more():
    from skdpgen.synthesizers import MarginalMechanism

    plain = MarginalMechanism(pair_share=0.0, by_class=False).budget_shares(1)
    assert MarginalMechanism(pair_share=0.0, by_class=False, rounds=3).budget_shares(1) == plain
    shares = MarginalMechanism(pair_share=0.0, by_class=False, rounds=3, round_share=0.3,
                               round_selection="error").budget_shares(1)
    assert shares == pytest.approx({"one-way marginals": 0.7, "round selection": 0.06,
                                    "round marginals": 0.24})


@pytest.mark.parametrize("params", [{"round_selection": "error"}, {"round_share": 0.5}])
def test_a_round_parameter_that_does_nothing_is_an_error_of_the_mechanism(params):
    """The mechanism, as a part of any synthesizer, refuses round parameters with
    rounds=1 (the preset refuses round_selection too, by its own words)."""
    from skdpgen.synthesizers import MarginalMechanism

    mechanism = MarginalMechanism(**{"pair_share": 0.5, **params})
    with pytest.raises(ValueError, match="no effect"):
        mechanism.budget_shares(1)
    MarginalMechanism(pair_share=0.5).budget_shares(1)  # the defaults plan
