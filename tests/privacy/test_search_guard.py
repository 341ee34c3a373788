"""What plan_search vouches for holds: no step learns from the rows outside the
budget, and a search changed after planning is refused when it runs."""

import contextvars
import warnings

import numpy as np
import pytest
from joblib import parallel_backend
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.compose import ColumnTransformer
from sklearn.model_selection import GridSearchCV, KFold, ParameterGrid
from sklearn.pipeline import FeatureUnion, Pipeline, make_pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler
from test_budget import GRID, STEPS, _data, _pipeline, _search

from skdpgen import DPHPSynthesizer
from skdpgen.evaluation import private_neg_mmd2_scorer
from skdpgen.model_selection import plan_search
from skdpgen.privacy import BudgetExceededError, PrivacyBudget


def _synth():
    return DPHPSynthesizer(bounds=(-4, 4), classes=[0, 1], random_state=0, **STEPS)


def _clip(**params):
    return FunctionTransformer(np.clip, kw_args={"a_min": -4, "a_max": 4}, **params)


def _search_over(estimator, grid=None):
    return GridSearchCV(estimator, {"synth__order": [5, 10]} if grid is None else grid,
                        cv=KFold(3), scoring=private_neg_mmd2_scorer())


def _plans(estimator, grid=None):
    X, y = _data()
    with PrivacyBudget(epsilon=1.0, delta=1e-5):
        return plan_search(_search_over(estimator, grid), X, y)


def _quiet_fit(search, X, y):
    """Fit, the warnings of failed fits silenced (GridSearchCV turns errors into NaN)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return search.fit(X, y)


def _tiny_fit(X):
    return DPHPSynthesizer(bounds=(-4, 4), epsilon=0.01, delta=1e-8, random_state=0,
                           **STEPS).fit(X)


# ---------------------------------------------------------------------------
# A. steps beside the synthesizer must learn nothing from the rows
# ---------------------------------------------------------------------------


class _Stateful(TransformerMixin, BaseEstimator):
    """A transformer of unknown kind (it requires a fit)."""

    def fit(self, X, y=None):
        return self

    def transform(self, X):
        return X


@pytest.mark.parametrize("estimator, step", [
    (make_pipeline(StandardScaler(), _synth()), "standardscaler"),
    (Pipeline([("prep", Pipeline([("clip", _clip()), ("scale", StandardScaler())])),
               ("synth", _synth())]), "prep__scale"),
    (Pipeline([("prep", FeatureUnion([("clip", _clip()), ("scale", StandardScaler())])),
               ("synth", _synth())]), "prep__scale"),
    (Pipeline([("prep", ColumnTransformer([("scale", StandardScaler(), [0]),
                                           ("clip", _clip(), [1])], sparse_threshold=0)),
               ("synth", _synth())]), "prep__scale"),
    (Pipeline([("prep", ColumnTransformer([("clip", _clip(), [0])],
                                          remainder=StandardScaler(), sparse_threshold=0)),
               ("synth", _synth())]), "prep__remainder"),
    (Pipeline([("prep", _Stateful()), ("synth", _synth())]), "prep"),
    (Pipeline([("synth", _synth()), ("after", StandardScaler())]), "after"),
])
def test_a_step_that_learns_from_the_rows_is_refused(estimator, step):
    grid = {f"{name}__order": [5, 10] for name, value in estimator.get_params().items()
            if isinstance(value, DPHPSynthesizer)}
    with pytest.raises(ValueError, match=rf"step '{step}' .* learns from the rows"):
        _plans(estimator, grid)


def test_the_scaler_refused_is_the_one_of_the_finding():
    """make_pipeline(StandardScaler(), synthesizer): its mean_ would be the exact
    mean of the rows, on a report that says private."""
    X, _ = _data()
    search = GridSearchCV(make_pipeline(StandardScaler(), _synth()),
                          {"dphpsynthesizer__order": [5, 10]}, cv=KFold(3),
                          scoring=private_neg_mmd2_scorer())
    with PrivacyBudget(epsilon=1.0, delta=1e-5) as budget:
        with pytest.raises(ValueError, match="FunctionTransformer with fixed public"):
            plan_search(search, X)
    assert budget.charges == [] and not hasattr(search, "cv_results_")


def test_a_step_the_grid_swaps_in_is_checked_too():
    estimator = Pipeline([("prep", "passthrough"), ("synth", _synth())])
    with pytest.raises(ValueError, match="step 'prep' .*StandardScaler"):
        _plans(estimator, {"prep": ["passthrough", StandardScaler()]})


@pytest.mark.parametrize("estimator", [
    Pipeline([("clip", _clip()), ("synth", _synth())]),
    Pipeline([("clip", _clip(inverse_func=np.copy, check_inverse=False)), ("synth", _synth())]),
    Pipeline([("prep", "passthrough"), ("synth", _synth())]),
    Pipeline([("prep", None), ("synth", _synth())]),
    Pipeline([("prep", Pipeline([("clip", _clip())])), ("synth", _synth())]),
    Pipeline([("prep", ColumnTransformer([("clip", _clip(), [0])], remainder="passthrough",
                                         sparse_threshold=0)), ("synth", _synth())]),
    Pipeline([("synth", _synth())]),
])
def test_steps_that_learn_nothing_are_accepted(estimator):
    assert _plans(estimator).n_fits == 7


@pytest.mark.parametrize("step, why", [
    (_clip(inverse_func=np.copy), "check_inverse"),
    (ColumnTransformer([("clip", _clip(), [0])], remainder="passthrough"), "sparse_threshold"),
    (ColumnTransformer([("clip", _clip(), lambda X: [0])], sparse_threshold=0), "callable"),
    (FeatureUnion([("clip", _clip())], n_jobs=2), "n_jobs"),
])
def test_a_step_whose_fit_reads_the_rows_otherwise_is_refused(step, why):
    with pytest.raises(ValueError, match=why):
        _plans(Pipeline([("prep", step), ("synth", _synth())]))


# ---------------------------------------------------------------------------
# B. the search is run as planned, or the budget refuses
# ---------------------------------------------------------------------------


#: The private scorers' refusal outside a budget (a joblib worker's context).
_OUTSIDE = "must run inside a skdpgen.privacy.PrivacyBudget"


def test_n_jobs_set_after_planning_is_refused():
    """The fold fits run in workers that do not see the budget (threads here:
    they start with an empty context, as loky processes do); the first score
    there is refused and, planned with error_score="raise", stops the search;
    later releases are refused, and the block raises."""
    X, y = _data()
    search = _search()
    with pytest.raises(BudgetExceededError, match="n_jobs"):
        with PrivacyBudget(epsilon=1.0, delta=1e-5) as budget:
            plan_search(search, X, y)
            search.set_params(n_jobs=2)
            with parallel_backend("threading"), pytest.raises(RuntimeError, match=_OUTSIDE):
                _quiet_fit(search, X, y)
            assert budget.charges == []  # the workers' fits went uncharged, no refit
            with pytest.raises(BudgetExceededError):
                _tiny_fit(X)  # the budget refuses from now on
    assert budget.charges == []


#: The guard's message for n_jobs=None under a backend with workers (the block's
#: end says "joblib" too, when charges are missing: not this).
_BACKEND = r"would run with n_jobs=2 under the active joblib backend"


def test_a_joblib_backend_with_workers_is_refused():
    """The guard reads the active backend's workers (the search's n_jobs is None):
    a release in the caller's context is refused before its noise, and the
    block's end says why. The search itself stops at its first score, refused
    in a worker (planned with error_score="raise")."""
    X, y = _data()
    search = _search()
    with pytest.raises(BudgetExceededError, match=_BACKEND):
        with PrivacyBudget(epsilon=1.0, delta=1e-5) as budget:
            plan_search(search, X, y)  # n_jobs=None: one job under the default backend
            with parallel_backend("threading", n_jobs=2):
                with pytest.raises(RuntimeError, match=_OUTSIDE):
                    _quiet_fit(search, X, y)  # a worker's score refused: the search stops
                with pytest.raises(BudgetExceededError, match=_BACKEND):
                    _tiny_fit(X)
            assert budget.charges == []  # the workers' fits unseen, no refit


def _change_cv(search):
    search.set_params(cv=KFold(4))


def _change_cv_in_place(search):
    search.cv.n_splits = 4


def _change_grid_in_place(search):
    search.param_grid["synth__order"].append(20)


def _change_epsilon(search):
    search.estimator.set_params(synth__epsilon=0.9)


def _change_scoring(search):
    search.set_params(scoring=private_neg_mmd2_scorer(epsilon=0.5, delta=1e-6, n_folds=3,
                                                      n_candidates=4))


def _return_train_score(search):
    search.set_params(return_train_score=True)


@pytest.mark.parametrize("change, setting", [
    (_change_cv, "cv"),
    (_change_cv_in_place, "cv"),
    (_change_grid_in_place, "param_grid"),
    (_change_epsilon, "estimator__synth__epsilon"),
    (_change_scoring, "scoring"),
    (_return_train_score, "return_train_score"),
])
def test_a_setting_changed_after_planning_is_refused_at_the_first_fit(change, setting):
    X, y = _data()
    search = _search()
    search.set_params(error_score="raise", param_grid={k: list(v) for k, v in GRID.items()})
    with pytest.raises(BudgetExceededError, match=setting):
        with PrivacyBudget(epsilon=1.0, delta=1e-5) as budget:
            plan_search(search, X, y)
            change(search)
            with pytest.raises(BudgetExceededError, match=rf"changed .*\b{setting}\b"):
                search.fit(X, y)
            assert budget.charges == []  # the first fold fit was refused, before any noise
    assert budget.report().n_releases == 0


def test_a_changed_search_is_refused_even_when_its_errors_are_scores():
    """error_score=nan set back after planning (plan_search sets "raise")
    turns the refusals into NaN scores: the block raises all the same."""
    X, y = _data()
    search = _search()
    with pytest.raises(BudgetExceededError, match="cv, error_score"):
        with PrivacyBudget(epsilon=1.0, delta=1e-5) as budget:
            plan_search(search, X, y)
            search.set_params(cv=KFold(2), error_score=np.nan)
            with pytest.raises(ValueError, match="fits failed"):
                _quiet_fit(search, X, y)
    assert budget.charges == []


def test_two_searches_planned_and_fitted_in_one_block():
    """Both guards hold; neither fires for the other's fits."""
    X, y = _data()
    first = _search(private_neg_mmd2_scorer(epsilon=0.1, delta=1e-7), epsilon=0.2, delta=1e-7)
    second = _search()
    with PrivacyBudget(epsilon=2.0, delta=1e-5) as budget:
        plan_search(first, X, y, split=False)  # its budgets as set
        assert first.error_score == "raise"  # set by plan_search
        first.set_params(error_score=np.nan)  # a change, undone before anything runs
        first.set_params(error_score="raise")
        first.fit(X, y)
        plan_search(second, X, y)  # what remains
        second.fit(X, y)
    assert len(budget.charges) == 28
    assert budget.report().epsilon == pytest.approx(2.0, rel=1e-6)


def test_a_search_planned_again_is_checked_against_its_new_plan():
    X, y = _data()
    search = _search()
    with PrivacyBudget(epsilon=1.0, delta=1e-5) as budget:
        plan_search(search, X, y)
        search.set_params(cv=KFold(2))
        plan = plan_search(search, X, y)
        search.fit(X, y)
    assert plan.n_fits == len(budget.charges) - 1 == 9


def test_a_search_planned_but_not_fitted_is_no_error():
    X, y = _data()
    with PrivacyBudget(epsilon=1.0, delta=1e-5) as budget:
        plan_search(_search(), X, y)
        _tiny_fit(X)  # another release: the plan does not reserve the budget
    assert len(budget.charges) == 1


def test_a_finished_search_stays_as_planned_for_the_block():
    """The guard holds until the block ends: a planned search changed after
    its fit makes the next release refused (set it back, or plan it again)."""
    X, y = _data()
    search = _search()
    with pytest.raises(BudgetExceededError, match="n_jobs"):
        with PrivacyBudget(epsilon=1.5, delta=1e-5) as budget:
            search.estimator.set_params(synth__epsilon=0.05, synth__delta=1e-7)
            search.set_params(scoring=private_neg_mmd2_scorer(epsilon=0.05, delta=1e-7))
            plan_search(search, X, y, split=False)
            search.fit(X, y)
            search.set_params(n_jobs=4)
            with pytest.raises(BudgetExceededError, match="n_jobs"):
                _tiny_fit(X)
            search.set_params(n_jobs=None)  # set back: the guard holds again
            budget.reset_refusal()
            _tiny_fit(X)
            search.set_params(n_jobs=4)  # and the block's end checks once more
    assert len(budget.charges) == 15


class _FoldsElsewhere(GridSearchCV):
    """Mutant: runs the fold fits and scores in an empty context (as a joblib
    backend that ignores n_jobs would), the refit in the caller's."""

    def _run_search(self, evaluate_candidates):
        contextvars.Context().run(evaluate_candidates, ParameterGrid(self.param_grid))


def test_a_search_whose_fits_ran_elsewhere_raises():
    """Its first score, in a context without the budget, is refused; planned
    with error_score="raise", the search raises there (it used to score NaN
    on every fold and refit in the caller's context)."""
    X, y = _data()
    search = _FoldsElsewhere(_pipeline(classes=[0, 1]), GRID, cv=KFold(3),
                             scoring=private_neg_mmd2_scorer())
    with PrivacyBudget(epsilon=1.0, delta=1e-5) as budget:
        plan_search(search, X, y)
        with pytest.raises(RuntimeError, match=_OUTSIDE):
            _quiet_fit(search, X, y)
        assert budget.charges == []  # the fold fits unseen, no refit


def test_a_search_that_made_part_of_its_charges_raises_at_the_block_end():
    """One planned fit charged (the others ran where the budget does not see
    them, or the search stopped early): the block's end raises."""
    X, y = _data()
    search = _search()
    with pytest.raises(BudgetExceededError, match="made 1 of the 14"):
        with PrivacyBudget(epsilon=1.0, delta=1e-5) as budget:
            plan_search(search, X, y)
            params = next(iter(ParameterGrid(search.param_grid)))
            clone(search.estimator).set_params(**params).fit(X, y)  # one fold fit's charge
            assert len(budget.charges) == 1


def test_a_guard_s_refusal_holds_until_reset_even_when_the_search_is_set_back():
    """Issue 54: a guard's refusal is the budget's, as any refusal: a search set
    back after its guard refused is still refused, nothing charged, until
    reset_refusal()."""
    X, y = _data()
    search = _search()
    with pytest.raises(BudgetExceededError, match="n_jobs"):
        with PrivacyBudget(epsilon=1.0, delta=1e-5) as budget:
            plan_search(search, X, y)
            search.set_params(n_jobs=4)
            with pytest.raises(BudgetExceededError, match=r"changed .*\bn_jobs\b"):
                _tiny_fit(X)
            search.set_params(n_jobs=None)  # set back, the refusal not reset
            with pytest.raises(BudgetExceededError, match=r"changed .*\bn_jobs\b"):
                _tiny_fit(X)
            assert budget.charges == []
    with PrivacyBudget(epsilon=1.0, delta=1e-5) as budget:  # reset: it goes on
        plan_search(search, X, y)
        search.set_params(n_jobs=4)
        with pytest.raises(BudgetExceededError):
            _tiny_fit(X)
        search.set_params(n_jobs=None)
        budget.reset_refusal()
        _tiny_fit(X)
    assert len(budget.charges) == 1
