"""The marginal mechanism's private choice of pairs (``max_pairs``, ``measured_pairs``).

The scores' sensitivity on adversarial neighbours, the choice without noise,
the report of a fit that selects, and the design's count of pairs. Replay and
neighbour tests of a selecting fit are in tests/test_replay.py and
tests/test_neighbours.py ("marginals-selected"); its audit in
tests/audit/test_audit.py ("marginals-selected").
"""

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest

from skdpgen import MarginalSynthesizer
from skdpgen.kernels import MarginalFeatures
from skdpgen.synthesizers.mechanisms._marginal_cells import pair_scores
from skdpgen.synthesizers.mechanisms.marginal import PAIR_SELECTION, SCORE_SENSITIVITY


def _counts(codes, sizes, pairs):
    """Every pair's cell counts of integer ``codes`` (n, d), in the map's layout."""
    out = []
    for a, b in pairs:
        table = np.zeros((sizes[a], sizes[b]))
        np.add.at(table, (codes[:, a], codes[:, b]), 1)
        out.append(table.ravel())
    return np.concatenate(out)


def _scores(codes, sizes, candidates, model):
    return pair_scores(candidates, _counts(codes, sizes, candidates.marginals_), model,
                       len(codes))


@pytest.mark.parametrize("seed", range(4))
def test_scores_move_by_at_most_their_sensitivity(seed):
    # every replacement of one record in small random tables, under a public model
    # drawn at random (the released one-way marginals are public when scored)
    rng = np.random.default_rng(seed)
    sizes = [2, 3, 4, 2]
    candidates = MarginalFeatures(category_sizes=sizes, degree=2).fit(np.zeros((1, sum(sizes))))
    model = [rng.dirichlet(np.ones(s)) for s in sizes]
    m = len(candidates.marginals_)
    codes = np.column_stack([rng.integers(0, s, 12) for s in sizes])
    base = _scores(codes, sizes, candidates, model)
    worst_each = worst_norm = 0.0
    for record in itertools.product(*[range(s) for s in sizes]):
        for row in range(len(codes)):
            other = codes.copy()
            other[row] = record
            diff = _scores(other, sizes, candidates, model) - base
            worst_each = max(worst_each, float(np.abs(diff).max()))
            worst_norm = max(worst_norm, float(np.linalg.norm(diff)))
    assert worst_each <= SCORE_SENSITIVITY + 1e-9
    assert worst_norm <= SCORE_SENSITIVITY * math.sqrt(m) + 1e-9
    assert worst_norm > 0  # the tables do move the scores


def test_the_score_bound_is_attained():
    # three binary columns, nine records at (0, 0, 0) and one more there; its
    # neighbour moves it to (1, 1, 1): in every pair the record leaves a cell far
    # above its count under the model (n/4) for one below it, so every score
    # moves by exactly the bound
    sizes = [2, 2, 2]
    candidates = MarginalFeatures(category_sizes=sizes, degree=2).fit(np.zeros((1, 6)))
    model = [np.array([0.5, 0.5])] * 3
    d = np.zeros((10, 3), dtype=int)
    d_prime = d.copy()
    d_prime[-1] = 1
    diff = _scores(d, sizes, candidates, model) - _scores(d_prime, sizes, candidates, model)
    assert np.allclose(np.abs(diff), SCORE_SENSITIVITY)


def _related_table(n=3_000, seed=0):
    """Five columns: ``b`` a function of ``a`` (its square), the rest independent."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 10, n)
    return pd.DataFrame({"a": a, "b": a ** 2, "c": rng.integers(0, 5, n),
                         "d": rng.normal(size=n), "e": rng.choice(["x", "y", "z"], n)})


SCHEMA = {"a": {"type": "numeric", "bounds": [0, 9], "integer": True},
          "b": {"type": "numeric", "bounds": [0, 81], "integer": True},
          "c": {"type": "categorical", "categories": [0, 1, 2, 3, 4]},
          "d": {"type": "numeric", "bounds": [-4, 4]},
          "e": {"type": "categorical", "categories": ["x", "y", "z"]}}
FAST = dict(epochs=1, steps_per_epoch=2, n_components=8, random_state=0)


def test_without_noise_the_strongest_pair_is_chosen():
    synth = MarginalSynthesizer(schema=SCHEMA, max_pairs=1, **FAST)
    synth.fit(_related_table(), epsilon=np.inf)
    assert synth.measured_pairs_ == [("a", "b")]
    assert synth.pairwise_features_.marginals_ == [(0, 1)]


def test_a_selecting_fit_reports_the_selection():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synth = MarginalSynthesizer(schema=SCHEMA, max_pairs=2, **FAST).fit(
            _related_table(), epsilon=1.0)
    releases = {r.name: r for r in synth.privacy_report_.releases}
    assert releases[PAIR_SELECTION].sensitivity == pytest.approx(
        SCORE_SENSITIVITY * math.sqrt(10))
    assert len(synth.measured_pairs_) == 2
    assert synth.privacy_report_.epsilon == pytest.approx(1.0, rel=1e-6)
    # every pair measured: no selection
    every = MarginalSynthesizer(schema=SCHEMA, max_pairs=10, **FAST).fit(
        _related_table(), epsilon=1.0)
    assert PAIR_SELECTION not in {r.name for r in every.privacy_report_.releases}
    assert len(every.measured_pairs_) == 10


def test_auto_chooses_the_pairs_a_table_can_measure():
    # 1,400 rows of 5 columns at epsilon 1: the ten pairs are not all precise
    # (1,591 rows would be), the five one-way marginals and two pairs are: two
    # chosen privately; at epsilon 8 all ten
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        few = MarginalSynthesizer(schema=SCHEMA, **FAST).fit(_related_table(1_400),
                                                             epsilon=1.0)
        every = MarginalSynthesizer(schema=SCHEMA, **FAST).fit(_related_table(1_400),
                                                               epsilon=8.0)
    assert len(few.measured_pairs_) == 2
    assert PAIR_SELECTION in {r.name for r in few.privacy_report_.releases}
    assert few.pair_share_ == pytest.approx(0.1 + 0.9 * 2 / 7)
    assert len(every.measured_pairs_) == 10


@pytest.mark.parametrize("labeled, pair_share", [(False, "auto"), (True, "auto"), (False, 0.1)])
def test_the_pairs_share_holds_the_selection_and_the_one_way_marginals_get_the_rest(
        labeled, pair_share):
    # MarginalMechanism's documented split: the two-way releases' share
    # pair_share, the selection's included ("taken from pair_share"); the
    # one-way releases get the rest. Read from what the accountant spent: a
    # Gaussian release's part of the composition is its precision count/σ²,
    # so each group's share of the mechanism is its precisions' part of the
    # mechanism's (the label proportions and the class list's estimate are
    # the synthesizer's releases, not the mechanism's). The shares from the
    # documented rules: for k pairs chosen of d columns, "auto" gives
    # selection + (1 - selection)·k/(d + k); the selection's share is
    # POLICY.selection_share, at most half of the pairs' share.
    from skdpgen.synthesizers._policy import POLICY

    X = _related_table(1_400)
    y = np.random.default_rng(1).integers(0, 2, len(X)) if labeled else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synth = MarginalSynthesizer(schema=SCHEMA, pair_share=pair_share, **FAST).fit(
            X, y, epsilon=1.0)
    precision = {r.name: r.precision for r in synth.privacy_report_.releases
                 if r.name != "label proportions" and not r.name.startswith("schema: ")}
    assert set(precision) == ({"one-way marginals", "two-way marginals", PAIR_SELECTION}
                              | ({"one-way marginals by class", "two-way marginals by class"}
                                 if labeled else set()))
    total = sum(precision.values())
    share = {way: sum(p for name, p in precision.items() if name.startswith(way)) / total
             for way in ("one-way", "two-way", PAIR_SELECTION)}
    d, k = 5, len(synth.measured_pairs_)
    assert 0 < k < 10  # chosen privately
    if pair_share == "auto":
        sel = POLICY.selection_share
        pair_share = sel + (1 - sel) * k / (d + k)
    else:
        sel = min(POLICY.selection_share, pair_share / 2)
    assert share["one-way"] == pytest.approx(1 - pair_share, rel=1e-6)
    assert share[PAIR_SELECTION] == pytest.approx(sel, rel=1e-6)
    assert share["two-way"] == pytest.approx(pair_share - sel, rel=1e-6)


def test_max_pairs_is_refused_where_no_pair_is_measured():
    synth = MarginalSynthesizer(schema=SCHEMA, pair_share=0, max_pairs=3, **FAST)
    with pytest.raises(ValueError, match="max_pairs has no effect"):
        synth.fit(_related_table(500), epsilon=1.0)


def test_a_wide_survey_keeps_its_strongest_relations():
    # 4,361 rows x 27 columns, no schema (the user's path), epsilon 1, one noise
    # draw: the pairs measured are chosen privately and include the exact
    # relations age ~ yearborn (yearborn = 88 - age) and age ~ agesq (age²),
    # which the sample keeps recognisably; drawn independently (pair_share=0)
    # they are lost
    from skdpgen.datasets import make_survey
    from skdpgen.privacy import reproducible_noise

    survey = make_survey(random_state=0)
    fits = {}
    for name, params in {"chosen": {}, "independent": {"pair_share": 0.0}}.items():
        with warnings.catch_warnings(), reproducible_noise(0):
            warnings.simplefilter("ignore")
            synth = MarginalSynthesizer(random_state=0, **params).fit(survey, epsilon=1.0)
        fits[name] = synth, synth.sample(len(survey), random_state=0)[0]
    synth, sample = fits["chosen"]
    pairs = {frozenset(p) for p in synth.measured_pairs_}
    assert {frozenset({"age", "yearborn"}), frozenset({"age", "agesq"})} <= pairs
    assert 20 <= len(pairs) <= 100
    for name, bound in (("chosen", -0.5), ("independent", None)):
        frame = fits[name][1].apply(pd.to_numeric)
        corr = frame["age"].corr(frame["yearborn"])
        near = ((frame["agesq"] - frame["age"] ** 2).abs() <= 0.1 * frame["age"] ** 2).mean()
        if bound is None:
            assert abs(corr) < 0.1 and near < 0.1
        else:
            assert corr < bound and near > 0.2


@pytest.fixture(scope="module")
def survey_fit():
    """A fit of 2,800 rows of the 27-column survey at epsilon 1 (three pairs chosen)."""
    from skdpgen.datasets import make_survey

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synth = MarginalSynthesizer(random_state=0, **{k: v for k, v in FAST.items()
                                                       if k != "random_state"})
        return synth.fit(make_survey(2_800, random_state=0), epsilon=1.0)


def test_the_fit_selects_with_the_share_its_design_planned(survey_fit):
    # 2,800 rows of 27 columns at epsilon 1: three chosen pairs, the pairs'
    # share 0.1 + 0.9 * 3 / 30 = 0.19; the selection keeps its planned 0.1 of
    # the budget (not half of the smaller share the design returns)
    from skdpgen.synthesizers._policy import POLICY

    synth = survey_fit
    k = len(synth.measured_pairs_)
    assert 0 < k < 27 / 8  # a share below twice the selection's
    assert synth.pair_share_ == pytest.approx(0.1 + 0.9 * k / (27 + k))
    assert synth.mechanism_.selection_share == POLICY.selection_share


def test_strongly_related_pairs_not_measured_are_named(survey_fit):
    # 2,800 rows of 27 columns at epsilon 1: three pairs measured; the others
    # whose noisy score departs from independence beyond the noise, with the 351
    # candidates tested together, and puts them above a total variation of 0.1
    # from independence by two stds of the score there, are named, strongest first
    from scipy.stats import norm

    from skdpgen.synthesizers.mechanisms._pair_null import null_scores
    from skdpgen.synthesizers._policy import POLICY

    synth = survey_fit
    mech = synth.mechanism_
    lost = mech.strong_pairs_not_measured()
    assert lost and not set(lost) & set(synth.measured_pairs_)
    noisy = mech.targets_["pair selection"][0]
    keys = mech._block_keys
    name = {(keys[a], keys[b]): i for i, (a, b) in enumerate(mech.candidates_.marginals_)}
    # the noise levels, in rows, from the documented rules and not from the
    # mechanism's own record of them: the scores' sensitivity is 2·√M rows for
    # M candidate pairs, times the selection's noise multiplier in the report; a
    # one-way cell's share carries the release's noise times √(27 marginals)
    m = 27 * 26 // 2
    assert len(name) == m
    release = {r.name: r for r in synth.privacy_report_.releases}
    score_std = 2.0 * math.sqrt(m) * release[PAIR_SELECTION].noise_multiplier
    one_way = release["one-way marginals"]
    cell_std = one_way.sensitivity * one_way.noise_multiplier * math.sqrt(27)
    mean, spread = null_scores(mech.candidates_.marginals_,
                               mech.features_.cells(mech.targets_["one-way marginals"][0][0]),
                               mech._groups, cell_std, 2_800, POLICY.strong_pair_draws)
    std = np.sqrt(spread ** 2 + score_std ** 2)
    beyond = noisy - mean > norm.isf(0.05 / m) * std
    tv = (noisy - mean - 2 * std) / (2 * 2_800)
    expected = [p for p in sorted(name, key=lambda p: -noisy[name[p]])
                if beyond[name[p]] and tv[name[p]] > 0.1 and p not in set(synth.measured_pairs_)]
    assert lost == expected
    # age ~ agesq (agesq = age²) is among the candidates' strongest relations, and
    # named wherever it is not measured
    pair = {"age", "agesq"}
    assert any(set(p) == pair for p in lost) != any(set(p) == pair
                                                    for p in synth.measured_pairs_)
    assert mech.strong_pairs_not_measured(tv=1.0) == []  # no pair is that far
