"""Issue 63, item 3: a search's choice says how sure it is (search_report)."""

import math
import warnings

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV, KFold

from skdpgen import MarginalSynthesizer
from skdpgen.evaluation import private_accuracy_scorer, private_neg_mmd2_scorer
from skdpgen.model_selection import CLEAR_LEAD, SearchReport, plan_search, search_report
from skdpgen.privacy import GaussianAccountant, PrivacyBudget


def _results(folds, params=None):
    """A hand-built ``cv_results_``: ``folds[k][i]`` is candidate i's score on fold k."""
    folds = np.asarray(folds, dtype=float)
    mean = folds.mean(axis=0)
    rank = np.argsort(np.argsort(-mean)) + 1
    results = {f"split{k}_test_score": folds[k] for k in range(len(folds))}
    results.update(mean_test_score=mean, std_test_score=folds.std(axis=0),
                   rank_test_score=rank,
                   params=params or [{"synth__order": o} for o in range(folds.shape[1])])
    return results


def test_a_clear_lead_is_called_clear():
    # candidate 1 is best: 1.00, 1.02, 0.98 against candidate 0's 0.50, 0.52, 0.48
    report = search_report(_results([[0.50, 1.00, 0.1], [0.52, 1.02, 0.1],
                                     [0.48, 0.98, 0.1]]))
    assert isinstance(report, SearchReport)
    assert report.best_index == 1 and report.runner_up_index == 0
    assert report.best_params == {"synth__order": 1}
    se = 0.02 / math.sqrt(3)  # sample sd (ddof=1) 0.02 over sqrt(3 folds)
    np.testing.assert_allclose(report.standard_errors[:2], [se, se])
    assert report.lead == pytest.approx(0.5 / math.hypot(se, se))
    assert report.verdict == "clear lead"
    assert report.threshold == CLEAR_LEAD == 2.0
    text = str(report)
    assert "order=1" in text and "clear lead" in text and "standard errors" in text


def test_a_lead_within_the_noise_is_not_called_clear():
    # best mean 0.60 against 0.55, each with a fold spread of about 0.3
    folds = [[0.25, 0.30], [0.55, 0.60], [0.85, 0.90]]
    report = search_report(_results(folds))
    se = np.std([0.30, 0.60, 0.90], ddof=1) / math.sqrt(3)
    assert report.best_index == 1
    assert report.lead == pytest.approx(0.05 / math.hypot(se, se))
    assert report.lead < 2
    assert report.verdict == "not a clear lead: within the noise"
    assert "not a clear lead" in str(report)
    # the threshold is a parameter
    assert search_report(_results(folds), threshold=0.1).verdict == "clear lead"


def test_the_lead_is_over_the_runner_up_not_the_last():
    folds = [[0.0, 1.0, 0.9], [0.0, 1.1, 0.9], [0.0, 0.9, 0.9]]
    report = search_report(_results(folds))
    assert report.best_index == 1 and report.runner_up_index == 2
    se = 0.1 / math.sqrt(3)
    assert report.lead == pytest.approx(0.1 / math.hypot(se, 0.0))


def test_frame_dict_and_edge_cases():
    report = search_report(_results([[0.5, 1.0], [0.5, 1.0], [0.5, 1.0]]))
    assert report.lead == math.inf and report.verdict == "clear lead"  # no spread at all
    frame = report.to_frame()
    assert list(frame["chosen"]) == [True, False] and list(frame["params"]) == ["order=1",
                                                                                 "order=0"]
    assert report.to_dict()["verdict"] == "clear lead"
    one = search_report(_results([[0.1], [0.2], [0.3]]))
    assert one.runner_up_index is None and math.isnan(one.lead)
    assert "one candidate" in one.verdict
    single_fold = search_report(_results([[0.1, 0.2]]))
    assert math.isnan(single_fold.lead) and "one fold" in single_fold.verdict
    with pytest.raises(ValueError, match="not finite"):
        search_report(_results([[np.nan, 1.0], [0.5, 1.0]]))
    with pytest.raises(ValueError, match="threshold"):
        search_report(_results([[0.5, 1.0], [0.5, 1.0]]), threshold=0)
    with pytest.raises(ValueError, match="fitted"):
        search_report(GridSearchCV(MarginalSynthesizer(), {"bins": [2, 3]}))


@pytest.mark.parametrize("make_scorer", [private_accuracy_scorer, private_neg_mmd2_scorer])
def test_a_tiny_planned_search(make_scorer):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2))
    y = (X[:, 0] > 0).astype(int)
    search = GridSearchCV(
        MarginalSynthesizer(bounds=(-4, 4), classes=[0, 1], pair_share=0, random_state=0),
        {"bins": [2, 20]}, cv=KFold(3), scoring=make_scorer())
    with warnings.catch_warnings(), PrivacyBudget(epsilon=1.0, delta=1e-5) as budget:
        warnings.simplefilter("ignore")
        plan_search(search, X, y)
        search.fit(X, y)
        charges = len(budget.charges)
        report = search_report(search, X)
        assert len(budget.charges) == charges  # post-processing: nothing more charged
    results = search.cv_results_
    np.testing.assert_allclose(report.mean_scores, results["mean_test_score"])
    folds = np.array([results[f"split{k}_test_score"] for k in range(3)])
    np.testing.assert_allclose(report.standard_errors, folds.std(axis=0, ddof=1) / np.sqrt(3))
    assert report.best_params == search.best_params_ and report.n_folds == 3
    assert report.runner_up_index == 1 - search.best_index_
    assert np.isfinite(report.lead) and report.verdict in (
        "clear lead", "not a clear lead: within the noise")
    assert report.verdict == ("clear lead" if report.lead >= 2 else
                              "not a clear lead: within the noise")
    # the scorer's noise, from its plan: the accountant's noise multiplier
    scorer = search.scoring
    release = scorer._release
    count = scorer.n_releases(2, 3)
    sigma = GaussianAccountant(scorer.epsilon, scorer.delta,
                               {release: (1.0, count)}).noise_multipliers[release]
    assert scorer.noise_multiplier() == pytest.approx(sigma)
    assert report.scorer == scorer._name
    if make_scorer is private_accuracy_scorer:  # folds of 100 rows: σ/100
        assert report.score_noise_std == pytest.approx(sigma / 100)
        assert not report.score_noise_is_bound
    else:  # s = 2σ/100 per coordinate, 1,000 of them
        s = 2 * sigma / 100
        assert report.score_noise_std == pytest.approx(math.sqrt(16 * s**2 + 2000 * s**4))
        assert report.score_noise_is_bound and "at most" in str(report)
    assert search_report(search).score_noise_std is None  # without X: fold sizes unknown
