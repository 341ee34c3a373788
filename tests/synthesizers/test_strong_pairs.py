"""The note "Strongly related but not measured" (issue 66, item 4).

``MarginalMechanism.strong_pairs_not_measured`` names a pair the selection
left out only where its noisy score departs from what independent columns
give once the one-way release's noise and the number of pairs tested are
accounted for: on independent columns at n = 4,000 and epsilon = 0.5
(no schema) the earlier rule, two selection stds, named pairs in most fits.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

from skdpgen import MarginalSynthesizer
from skdpgen.privacy import reproducible_noise
from skdpgen.synthesizers.mechanisms.marginal import PAIR_SELECTION

FAST = dict(epochs=1, steps_per_epoch=2, n_components=8, random_state=0)


def _independent(seed, n=4_000):
    """Fourteen independent columns of several kinds (one almost always missing)."""
    rng = np.random.default_rng(seed)
    cols = {}
    for j in range(4):
        cols[f"num{j}"] = rng.normal(50, 10, n).round(2)
        cols[f"int{j}"] = rng.integers(0, 100, n)
        cols[f"cat{j}"] = rng.choice(list("abcdef"), n)
    cols["skew"] = rng.lognormal(3, 1.5, n).round(1)
    cols["rare"] = np.where(rng.random(n) < 0.97, np.nan, rng.normal(size=n))
    return pd.DataFrame(cols)


def _fit(frame, seed, epsilon=0.5, **params):
    with warnings.catch_warnings(), reproducible_noise(seed):
        warnings.simplefilter("ignore")
        return MarginalSynthesizer(on_guess="fit", **FAST, **params).fit(frame,
                                                                         epsilon=epsilon)


def test_independent_columns_name_no_pair():
    # one pair measured of 91 candidates (the rest left to the note), eight noise
    # draws: no pair named; the earlier rule's cut (a total variation of 0.1 above
    # two selection stds, no allowance for the one-way release or for testing 91
    # pairs) named pairs of these independent columns in several of them
    earlier = 0
    for seed in range(8):
        mech = _fit(_independent(seed), seed, max_pairs=1).mechanism_
        assert len(mech.candidates_.marginals_) == 91
        assert mech.strong_pairs_not_measured() == [], seed
        noisy = mech.targets_[PAIR_SELECTION][0]
        tv = (noisy - 2.0 * mech._score_std) / (2.0 * mech._n_rows)
        earlier += int(np.sum(tv > 0.1) > 1)  # the measured pair aside
    assert earlier >= 2  # 3 of these 8


def test_a_strong_pair_left_unmeasured_is_still_named():
    # a column, its square and a noisy copy among independent ones: one pair
    # measured, the other two relations (total variation about 0.8 from
    # independence) named, and no independent pair with them
    rng = np.random.default_rng(5)
    frame = _independent(5)
    frame["sq"] = frame["int0"] ** 2
    frame["near"] = frame["int0"] + rng.integers(-3, 4, len(frame))
    synth = _fit(frame, 5, max_pairs=1)
    related = {"int0", "sq", "near"}
    (measured,) = synth.measured_pairs_
    lost = synth.mechanism_.strong_pairs_not_measured()
    assert set(measured) <= related
    assert {frozenset(p) for p in lost} == {frozenset(p) for p in (("int0", "sq"),
                                                                   ("int0", "near"),
                                                                   ("sq", "near"))
                                            if set(p) != set(measured)}
    assert synth.mechanism_.strong_pairs_not_measured(tv=1.0) == []


def test_the_null_model_follows_the_noise():
    # the scores at independence, drawn from the releases: with more noise on the
    # one-way release, a higher mean; without noise, the rows' own departure
    # (about Σ √(2/π · n p_a p_b (1 − p_a)(1 − p_b)) rows)
    from skdpgen.synthesizers.mechanisms._pair_null import null_scores

    fine = [np.full(4, 0.25), np.full(5, 0.2)]
    quiet, _ = null_scores([(0, 1)], fine, [None, None], 0.0, 10_000, 400)
    loud, _ = null_scores([(0, 1)], fine, [None, None], 0.02, 10_000, 400)
    expected = np.sqrt(2 / np.pi * 10_000 * 0.25 * 0.2 * 0.75 * 0.8) * 20
    assert quiet[0] == pytest.approx(expected, rel=0.1)
    assert loud[0] > 2 * quiet[0]
