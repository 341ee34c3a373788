"""One budget for a whole search: PrivacyBudget, plan_search and the private scorers."""

import math
import warnings

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer

from skdpgen import DPHPSynthesizer, DPMERFSynthesizer, KernelMeanEmbedding, RandomFourierFeatures
from skdpgen import privacy
from skdpgen.evaluation import (
    neg_mmd2_scorer,
    private_accuracy_scorer,
    private_neg_mmd2_scorer,
)
from skdpgen.evaluation._private_scorers import _PrivateNegMMD2Scorer
from skdpgen.model_selection import plan_search
from skdpgen.privacy import (
    BudgetExceededError,
    GaussianAccountant,
    PrivacyBudget,
    PrivacyLeakWarning,
    compose_reports,
)

STEPS = dict(epochs=1, steps_per_epoch=5)
GRID = {"synth__order": [5, 10], "synth__length_scale": [0.5, 1.0]}


def _data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.normal(0, 1, n), rng.exponential(1, n)])
    y = (X[:, 0] > 0).astype(int)
    return X, y


def _pipeline(**params):
    return Pipeline([
        ("clip", FunctionTransformer(np.clip, kw_args={"a_min": -4, "a_max": 4})),
        ("synth", DPHPSynthesizer(bounds=(-4, 4), random_state=0, **STEPS, **params)),
    ])


def _search(scorer=None, **params):
    params.setdefault("classes", [0, 1])
    return GridSearchCV(_pipeline(**params), GRID, cv=KFold(3),
                        scoring=private_neg_mmd2_scorer() if scorer is None else scorer)


@pytest.fixture
def noise_draws(monkeypatch):
    """Counts every noise draw (the one place noise is drawn)."""
    draws = []
    draw = privacy._gaussian_noise

    def counting(rng, std, shape):
        draws.append(shape)
        return draw(rng, std, shape)

    monkeypatch.setattr(privacy, "_gaussian_noise", counting)
    return draws


def assert_search_accounted(budget, plan, draws):
    """Every release of the search is on the budget's report, as planned.

    ``n_fits`` fits charged (each numbered and named), the scorer's planned
    releases listed under its name, every noise draw made inside the block
    listed, the total within the budget, and private.
    """
    report = budget.report()
    fits = {r.name.split(":")[0] for r in report.releases if ".fit:" in r.name}
    assert len(fits) == plan.n_fits, f"{len(fits)} fits on the report, {plan.n_fits} planned"
    scores = sum(r.count for r in report.releases if "scorer:" in r.name)
    assert scores == plan.n_score_releases, (
        f"{scores} scoring releases on the report, {plan.n_score_releases} planned")
    assert len(draws) == report.n_releases, (
        f"{len(draws)} noise draws, {report.n_releases} releases on the report")
    assert report.epsilon <= budget.epsilon * (1 + 1e-7)
    assert report.delta == budget.delta
    assert report.is_private, str(report)


# ---------------------------------------------------------------------------
# Done when: a 2 x 2 grid, cv=3, refit, private scorer, one budget (1, 1e-5)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("scorer", [private_neg_mmd2_scorer, private_accuracy_scorer])
def test_grid_search_spends_one_budget(scorer, noise_draws):
    X, y = _data()
    search = _search(scorer())
    with PrivacyBudget(epsilon=1.0, delta=1e-5) as budget:
        plan = plan_search(search, X, y)
        search.fit(X, y)
    assert (plan.n_candidates, plan.n_folds, plan.n_fits) == (4, 3, 13)
    assert plan.n_score_releases == (3 if scorer is private_neg_mmd2_scorer else 12)
    assert_search_accounted(budget, plan, noise_draws)
    report = budget.report()
    assert report.epsilon == pytest.approx(1.0, rel=1e-6)  # all of it, exactly
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()
    assert search.best_estimator_.named_steps["synth"].epsilon_ == pytest.approx(plan.fit_epsilon)


def test_the_budget_report_composes_exactly_what_was_charged():
    X, _ = _data()
    with PrivacyBudget(epsilon=2.0, delta=1e-5) as budget:
        fits = [KernelMeanEmbedding(features=RandomFourierFeatures(n_components=4, random_state=0),
                                    epsilon=eps, delta=1e-6).fit(X) for eps in (0.3, 0.6)]
    together = compose_reports([f.privacy_report_ for f in fits], delta=1e-5)
    assert budget.report().epsilon == pytest.approx(together.epsilon, rel=1e-12)
    assert budget.spent() == pytest.approx(together.epsilon, rel=1e-12)


def test_exceeding_the_budget_raises_before_any_release(noise_draws):
    X, y = _data()
    search = _search(private_neg_mmd2_scorer(epsilon=0.1, delta=1e-6), epsilon=0.5, delta=1e-6)
    with pytest.raises(BudgetExceededError, match="nothing was released"):
        with PrivacyBudget(epsilon=1.0, delta=1e-5) as budget:
            plan_search(search, X, y, split=False)
            search.fit(X, y)  # not reached
    assert noise_draws == []
    assert budget.charges == [] and budget.report().n_releases == 0
    assert not hasattr(search, "cv_results_") and not hasattr(search, "best_estimator_")
    assert search.estimator.named_steps["synth"].epsilon == 0.5  # the search left as it was


def test_without_a_plan_each_fit_is_refused_before_its_noise(noise_draws):
    """A search fitted in a budget it does not fit: the fit that would exceed
    draws nothing, later ones are refused too, and the block raises even though
    GridSearchCV turned the fits' errors into scores of NaN."""
    X, y = _data()
    search = _search(private_neg_mmd2_scorer(epsilon=0.1, delta=1e-6), epsilon=0.8, delta=1e-6)
    with pytest.raises(BudgetExceededError):
        with PrivacyBudget(epsilon=1.0, delta=1e-5) as budget:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                search.fit(X, y)
    report = budget.report()
    # the fits that fitted, then refusals (the unplanned scorer refused to run)
    assert 1 <= len(budget.charges) < 13
    assert {c.label for c in budget.charges} == {"DPHPSynthesizer.fit"}
    assert budget.spent() <= 1.0
    assert len(noise_draws) == report.n_releases
    assert report.epsilon <= 1.0


def test_a_refused_fit_leaves_its_estimator_unfitted():
    X, _ = _data()
    synth = DPMERFSynthesizer(bounds=(-4, 4), epsilon=2.0, random_state=0, device="cpu", **STEPS)
    with pytest.raises(BudgetExceededError):
        with PrivacyBudget(epsilon=1.0, delta=1e-5):
            synth.fit(X)
    assert not hasattr(synth, "privacy_report_") and not hasattr(synth, "encoder_")


def _reference_epsilon(mu, delta):
    """ε of the Gaussian mechanism of ``μ = Δ/σ`` at ``delta``, from its exact
    tradeoff (Balle & Wang 2018): ``δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ)``."""
    from scipy.optimize import brentq
    from scipy.stats import norm

    def excess(eps):
        return norm.cdf(mu / 2 - eps / mu) - math.exp(eps) * norm.cdf(-mu / 2 - eps / mu) - delta

    return brentq(excess, 0.0, 50.0, xtol=1e-15, rtol=1e-14)


# three accountants, two of them planning partition selections (as a private
# schema estimate does), whose thresholds take 35 % of the budget's delta
SELECTING = [
    (0.5, 4e-6, {"column values": (0.3, 2), "sums": 0.7}, ["column values"]),
    (0.4, 3e-6, {"labels": 0.2, "mean": 0.8}, ["labels"]),
    (0.2, 1e-6, {"mean": 1.0}, None),
]


def _selecting_accountants():
    return [GaussianAccountant(eps, delta, shares, selections=selections)
            for eps, delta, shares, selections in SELECTING]


def test_the_budget_reads_epsilon_at_delta_less_the_selections_thresholds():
    """Computed independently: the Gaussian parts compose into ``μ² = Σ 1/σ_i²``,
    read at the budget's δ less every threshold's δ, plus ``ln(1/(1 − δ_each))``
    per threshold. Reading at the whole δ would accept 3 % more ε here."""
    with PrivacyBudget(epsilon=5.0, delta=1e-5) as budget:
        accountants = _selecting_accountants()
    mu = math.sqrt(sum(1 / a.noise_multiplier_total ** 2 for a in accountants))
    thresholds = [a.delta_each for a in accountants
                  for name in a.selections for _ in range(a.plan[name][1])]
    assert len(thresholds) == 3 and sum(thresholds) == pytest.approx(3.5e-6)
    ln_terms = sum(-math.log1p(-d) for d in thresholds)
    expected = _reference_epsilon(mu, 1e-5 - sum(thresholds)) + ln_terms
    assert budget.spent() == pytest.approx(expected, rel=1e-9)
    assert _reference_epsilon(mu, 1e-5) + ln_terms < 0.98 * expected  # what a slip would read
    # acceptance at the edge: just above the exact total, and just below it
    with PrivacyBudget(epsilon=expected * (1 + 1e-6), delta=1e-5) as budget:
        _selecting_accountants()
    assert len(budget.charges) == 3
    with pytest.raises(BudgetExceededError):
        with PrivacyBudget(epsilon=expected * (1 - 1e-4), delta=1e-5) as budget:
            with pytest.raises(BudgetExceededError, match="would spend"):
                _selecting_accountants()
    assert len(budget.charges) == 2


def test_a_refused_budget_refuses_later_smaller_charges():
    """After a refusal, a charge that would fit is refused too, and the block
    raises at its end; reset_refusal() is the only way to go on."""
    from skdpgen.privacy._budget import Charge

    tiny = GaussianAccountant(0.01, 1e-8, {"mean": 1.0})  # outside a block: not charged
    with pytest.raises(BudgetExceededError, match="would spend"):
        with PrivacyBudget(epsilon=1.0, delta=1e-5) as budget:
            GaussianAccountant(0.7, 1e-6, {"mean": 1.0})
            with pytest.raises(BudgetExceededError):
                GaussianAccountant(0.9, 1e-6, {"mean": 1.0})
            assert budget.fits([Charge.of(tiny, "tiny")])  # it would fit ...
            with pytest.raises(BudgetExceededError, match="would spend"):
                GaussianAccountant(0.01, 1e-8, {"mean": 1.0})  # ... and is refused
    assert len(budget.charges) == 1
    with PrivacyBudget(epsilon=1.0, delta=1e-5) as budget:
        GaussianAccountant(0.7, 1e-6, {"mean": 1.0})
        with pytest.raises(BudgetExceededError):
            GaussianAccountant(0.9, 1e-6, {"mean": 1.0})
        budget.reset_refusal()
        GaussianAccountant(0.01, 1e-8, {"mean": 1.0})
    assert len(budget.charges) == 2


def test_a_fit_without_noise_is_refused_in_a_budget():
    X, _ = _data()
    kme = KernelMeanEmbedding(features=RandomFourierFeatures(n_components=4, random_state=0))
    with pytest.raises(BudgetExceededError, match="without noise"):
        with PrivacyBudget(epsilon=1.0, delta=1e-5):
            kme.fit(X)


# ---------------------------------------------------------------------------
# mutations: a release that escapes the budget is caught
# ---------------------------------------------------------------------------


class _ScorerWithoutNoise(_PrivateNegMMD2Scorer):
    """Mutant: scores against the fold's exact embedding, released nowhere."""

    def _fold(self, state, Z, n_folds):
        features = state["features"] = RandomFourierFeatures(
            n_components=self.n_components, length_scale=self.length_scale,
            random_state=self.random_state).fit(Z[:1])
        return {"bias": 0.0, "noisy": np.asarray(features.transform(Z)).mean(axis=0)}


def test_a_scorer_without_noise_is_caught(noise_draws):
    X, y = _data()
    search = _search(_ScorerWithoutNoise())
    with PrivacyBudget(epsilon=1.0, delta=1e-5) as budget:
        plan = plan_search(search, X, y)
        search.fit(X, y)
    with pytest.raises(AssertionError, match="scoring releases"):
        assert_search_accounted(budget, plan, noise_draws)


def test_a_fit_that_bypasses_the_budget_is_caught(monkeypatch, noise_draws):
    """Mutant: the fits' accountants skip the budget. Their first release
    inside the block is refused; were it not, the block's end would raise
    (the search made fewer charges than planned) and the check would fail."""
    X, y = _data()
    charge = privacy.charge_active_budget

    def bypass(accountant, label):
        if label.endswith(".fit") and privacy._budget._PLANNING.get() is None:
            return None
        return charge(accountant, label)

    monkeypatch.setattr(privacy, "charge_active_budget", bypass)
    search = _search()
    search.error_score = "raise"
    with pytest.raises(RuntimeError, match="not charged"):
        with PrivacyBudget(epsilon=1.0, delta=1e-5) as budget:
            plan = plan_search(search, X, y)
            search.fit(X, y)
    # without the runtime guard: the search's guard counts the charges it
    # planned when the block ends (the scorer's alone), and the report lacks the fits
    monkeypatch.setattr(privacy.PrivacyBudget, "charged", lambda self, accountant: True)
    noise_draws.clear()
    search = _search()
    with pytest.raises(BudgetExceededError, match="made 1 of the 14 charges planned"):
        with PrivacyBudget(epsilon=1.0, delta=1e-5) as budget:
            plan = plan_search(search, X, y)
            search.fit(X, y)
    with pytest.raises(AssertionError, match="fits on the report"):
        assert_search_accounted(budget, plan, noise_draws)


# ---------------------------------------------------------------------------
# what a budget cannot cover is refused or recorded
# ---------------------------------------------------------------------------


def test_plan_search_refuses_what_no_budget_covers():
    X, y = _data()
    with PrivacyBudget(epsilon=1.0, delta=1e-5):
        with pytest.raises(ValueError, match="n_jobs=1"):
            plan_search(GridSearchCV(_pipeline(), GRID, cv=KFold(3), n_jobs=2,
                                     scoring=private_neg_mmd2_scorer()), X, y)
        with pytest.raises(ValueError, match="depend on the labels"):
            plan_search(GridSearchCV(_pipeline(), GRID, cv=StratifiedKFold(3),
                                     scoring=private_neg_mmd2_scorer()), X, y)
        with pytest.raises(ValueError, match="private scorer"):
            plan_search(GridSearchCV(_pipeline(), GRID, cv=KFold(3)), X, y)
        with pytest.raises(ValueError, match="private scorer"):
            plan_search(_search(neg_mmd2_scorer()), X, y)
        with pytest.raises(ValueError, match="sets epsilon"):
            plan_search(GridSearchCV(_pipeline(), {"synth__epsilon": [0.1, 0.2]}, cv=KFold(3),
                                     scoring=private_neg_mmd2_scorer()), X, y)
    with pytest.raises(RuntimeError, match="PrivacyBudget"):
        plan_search(_search(), X, y)


def test_private_scorers_refuse_to_run_outside_a_budget():
    X, _ = _data()
    synth = _pipeline(epsilon=1.0).fit(X)
    scorer = private_neg_mmd2_scorer(epsilon=1.0, delta=1e-5, n_folds=1, n_candidates=1)
    with pytest.raises(RuntimeError, match="inside a skdpgen.privacy.PrivacyBudget"):
        scorer(synth, X)


@pytest.mark.parametrize("score", ["estimator", "neg_mmd2_scorer"])
def test_a_score_without_noise_is_a_leak_on_the_report(score):
    X, _ = _data()
    with PrivacyBudget(epsilon=1.0, delta=1e-5) as budget:
        synth = DPHPSynthesizer(bounds=(-4, 4), epsilon=0.5, random_state=0, **STEPS).fit(X)
        with pytest.warns(PrivacyLeakWarning, match="without noise"):
            if score == "estimator":
                synth.score(X)
            else:
                neg_mmd2_scorer()(synth, X)
    report = budget.report()
    assert not report.is_private and [leak.what for leak in report.leaks] == ["score"]


def test_budgets_do_not_nest_and_accountants_from_outside_are_refused():
    outside = GaussianAccountant(1.0, 1e-5, {"mean": 1.0})
    with PrivacyBudget(epsilon=1.0, delta=1e-5):
        with pytest.raises(RuntimeError, match="do not nest"):
            PrivacyBudget(epsilon=1.0, delta=1e-5).__enter__()
        with pytest.raises(RuntimeError, match="not charged"):
            outside.add_noise("mean", [0.0], sensitivity=1.0)


# ---------------------------------------------------------------------------
# the scoring releases' sensitivities hold on adversarial folds
# ---------------------------------------------------------------------------


def _fold_release(scorer, synth, fold):
    """The exact statistic the scorer releases for ``fold``, captured."""
    captured = []
    add_noise = GaussianAccountant.add_noise

    def capture(self, name, value, *, sensitivity):
        captured.append((np.asarray(value, dtype=float), sensitivity))
        return add_noise(self, name, value, sensitivity=sensitivity)

    with pytest.MonkeyPatch.context() as mp, PrivacyBudget(epsilon=50.0, delta=1e-5):
        mp.setattr(GaussianAccountant, "add_noise", capture)
        scorer.planned(epsilon=1.0, delta=1e-5, n_candidates=1, n_folds=1)(synth, *fold)
    (value, sensitivity), = captured
    return value, sensitivity


ADVERSARIAL = [0.0, -4.0, 4.0, 1e300, -np.inf, np.inf, np.nan, 2.5, -0.001]


def test_the_fold_embedding_moves_at_most_two_over_m():
    X, _ = _data(n=40)
    synth = DPHPSynthesizer(bounds=(-4, 4), epsilon=5.0, random_state=0, **STEPS).fit(X)
    scorer = private_neg_mmd2_scorer(length_scale=0.3, n_components=50)
    worst = 0.0
    for a in ADVERSARIAL:
        for b in ADVERSARIAL:
            fold, fold_prime = X[:10].copy(), X[:10].copy()
            fold[-1], fold_prime[-1] = a, (b, -b)
            v, s = _fold_release(scorer, synth, (fold,))
            v_prime, s_prime = _fold_release(scorer, synth, (fold_prime,))
            assert s == s_prime == pytest.approx(2 / 10)
            worst = max(worst, np.linalg.norm(v - v_prime) / s)
    assert worst <= 1 + 1e-12
    assert worst > 0.5  # the pairs are adversarial enough to matter


def test_the_correct_count_moves_at_most_one():
    X, y = _data(n=60)
    synth = DPHPSynthesizer(bounds=(-4, 4), classes=[0, 1], epsilon=5.0, random_state=0,
                            **STEPS).fit(X, y)
    scorer = private_accuracy_scorer()
    labels = [0, 1, 7, None, "1", np.nan, True]
    for a in labels:
        for b in labels:
            y_fold, y_prime = np.array(y[:10], dtype=object), np.array(y[:10], dtype=object)
            y_fold[-1], y_prime[-1] = a, b
            X_prime = X[:10].copy()
            X_prime[-1] = [np.inf, -3.0]
            v, s = _fold_release(scorer, synth, (X[:10], y_fold))
            v_prime, _ = _fold_release(scorer, synth, (X_prime, y_prime))
            assert s == 1.0 and abs(v - v_prime).max() <= 1.0


def test_plan_search_spends_what_remains_after_earlier_fits():
    X, y = _data()
    with PrivacyBudget(epsilon=1.0, delta=1e-5) as budget:
        DPHPSynthesizer(bounds=(-4, 4), epsilon=0.3, delta=1e-6, random_state=0,
                        **STEPS).fit(X)
        search = _search()
        plan = plan_search(search, X, y)
        search.fit(X, y)
    assert plan.epsilon == pytest.approx(1.0, rel=1e-6)
    assert budget.report().epsilon == pytest.approx(1.0, rel=1e-6)
    assert math.isfinite(plan.fit_epsilon) and plan.fit_epsilon < 0.3


@pytest.mark.parametrize("scorer", [private_neg_mmd2_scorer, private_accuracy_scorer])
def test_a_fold_s_form_does_not_change_its_score(scorer):
    """Neighbours in form only (numbers as text, ints as floats, a DataFrame):
    the same score under the same reproducible noise."""
    import pandas as pd
    X, y = _data(n=60)
    X = np.round(X, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synth = DPHPSynthesizer(bounds=(-4, 4), classes=[0, 1], epsilon=5.0, random_state=0,
                                **STEPS).fit(X, y)
        forms = [(X[:10], y[:10]), (X[:10].astype(str).astype(object), y[:10].astype(float)),
                 (X[:10].tolist(), [str(v) for v in y[:10]])]
        scores = []
        for fold in forms:
            with privacy.reproducible_noise(0), PrivacyBudget(epsilon=50.0, delta=1e-5):
                planned = scorer().planned(epsilon=1.0, delta=1e-5, n_candidates=1, n_folds=1)
                scores.append(planned(synth, *fold))
    assert scores[0] == scores[1] == scores[2]
