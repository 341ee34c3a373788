"""Issue 63: every shape of searched estimator scores, and a search planned by
plan_search never chooses among failed scores.

The user guide's search (a one-step ``Pipeline``) scored NaN on every
candidate: the private scorers applied ``pipeline[:-1]``, an empty Pipeline
without ``transform``, and ``GridSearchCV`` (``error_score=nan``) turned the
error into NaN scores and picked ``best_params_`` among them.
"""

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import FunctionTransformer

from skdpgen import DPHPSynthesizer
from skdpgen.evaluation import private_accuracy_scorer, private_neg_mmd2_scorer
from skdpgen.model_selection import plan_search
from skdpgen.privacy import PrivacyBudget

N_ROWS, N_FOLDS = 200, 4

# tiny fits: one torch thread is faster than a pool (and the machine is shared)
pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _data(n=N_ROWS, seed=0):
    """A tiny table: 200 rows x 3 columns, and labels."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.normal(0, 1, n), rng.exponential(1, n), rng.uniform(-2, 2, n)])
    return X, (X[:, 0] > 0).astype(int)


def _synth(**params):
    params = {"bounds": (-4, 4), "classes": [0, 1], "order": 5, "epochs": 1,
              "steps_per_epoch": 3, "batch_size": 64, "random_state": 0, **params}
    return DPHPSynthesizer(**params)


#: The number of rows of each call of :func:`_rows` (a function: ``clone``
#: copies a FunctionTransformer's ``func`` by reference).
_SIZES = []


def _rows(X):
    """A row-wise clip that records how many rows it is called on."""
    _SIZES.append(len(X))
    return np.clip(X, -4, 4)


def _clip():
    return FunctionTransformer(np.clip, kw_args={"a_min": -4, "a_max": 4})


SHAPES = {
    "one-step Pipeline (the user guide's)": lambda: Pipeline([("synth", _synth())]),
    "multi-step Pipeline": lambda: Pipeline([("clip", _clip()), ("prep", "passthrough"),
                                             ("none", None), ("synth", _synth())]),
    "make_pipeline": lambda: make_pipeline(_clip(), _synth()),
    "make_pipeline of one step": lambda: make_pipeline(_synth()),
    "the estimator alone": _synth,
    "a Pipeline in a Pipeline": lambda: Pipeline([("clip", _clip()), (
        "inner", Pipeline([("clip", _clip()), ("synth", _synth())]))]),
}


def _grid(estimator):
    """Two candidates, whatever the synthesizer's parameter prefix."""
    if isinstance(estimator, DPHPSynthesizer):
        return {"length_scale": [0.5, 1.0]}
    name = next(name for name, value in estimator.get_params().items()
                if isinstance(value, DPHPSynthesizer))
    return {f"{name}__length_scale": [0.5, 1.0]}


def _fit(search, X, y=None):
    with PrivacyBudget(epsilon=2.0, delta=1e-5) as budget:
        plan = plan_search(search, X, y)
        search.fit(X, y)
    return plan, budget


@pytest.mark.parametrize("scorer", [private_neg_mmd2_scorer, private_accuracy_scorer])
@pytest.mark.parametrize("shape", list(SHAPES))
def test_every_shape_scores_every_candidate_finitely(shape, scorer):
    X, y = _data()
    estimator = SHAPES[shape]()
    search = GridSearchCV(estimator, _grid(estimator), cv=KFold(N_FOLDS),
                          scoring=scorer(n_components=50) if scorer is private_neg_mmd2_scorer
                          else scorer())
    plan, budget = _fit(search, X, y)
    scores = search.cv_results_["mean_test_score"]
    assert scores.shape == (2,)
    assert np.isfinite(scores).all(), scores
    assert np.isfinite(search.best_score_)
    # every planned release was made: the scorer released what was planned
    report = budget.report()
    assert sum(r.count for r in report.releases if "scorer:" in r.name) == plan.n_score_releases
    assert report.is_private


def test_the_steps_before_the_synthesizer_transform_the_held_out_rows():
    """A one-step Pipeline applies nothing; a multi-step one still applies its
    earlier steps to the held-out fold (the scorer reads it as the synthesizer was fitted)."""
    X, y = _data()
    _SIZES.clear()
    search = GridSearchCV(Pipeline([("rows", FunctionTransformer(_rows)), ("synth", _synth())]),
                          {"synth__length_scale": [0.5, 1.0]}, cv=KFold(N_FOLDS),
                          scoring=private_neg_mmd2_scorer(n_components=50))
    _fit(search, X, y)
    held_out = N_ROWS // N_FOLDS
    # each candidate's fit on each fold, the refit, and each score on its fold
    assert _SIZES.count(held_out) == 2 * N_FOLDS
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()


def test_the_user_guide_search_scores_finitely():
    """The snippet's exact shape: ``Pipeline([("synth", DPHPSynthesizer(...))])``
    over ``synth__order`` x ``synth__length_scale``."""
    X, _ = _data()
    search = GridSearchCV(
        Pipeline([("synth", DPHPSynthesizer(bounds=(-4, 4), epochs=1, steps_per_epoch=3,
                                            batch_size=64))]),
        {"synth__order": [5, 10], "synth__length_scale": [0.25, 0.5]},
        cv=KFold(3), scoring=private_neg_mmd2_scorer(n_components=50))
    _fit(search, X)
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()
    assert np.isfinite(search.best_score_)


# ---------------------------------------------------------------------------
# no silent failure: a planned search raises instead of choosing among NaN
# ---------------------------------------------------------------------------


def test_a_scorer_that_fails_makes_the_search_raise():
    """private_accuracy_scorer without held-out labels cannot score: the
    search raises its error instead of scoring NaN and picking best_params_."""
    X, _ = _data()
    search = GridSearchCV(_synth(classes=None), {"length_scale": [0.5, 1.0]},
                          cv=KFold(N_FOLDS), scoring=private_accuracy_scorer())
    with pytest.raises(ValueError, match="needs the held-out labels y"):
        _fit(search, X)
    assert not hasattr(search, "best_params_")


def test_a_scorer_given_no_synthesizer_says_so():
    X, y = _data()
    search = GridSearchCV(_synth(), {"length_scale": [0.5, 1.0]}, cv=KFold(N_FOLDS),
                          scoring=private_neg_mmd2_scorer(n_components=50))
    with PrivacyBudget(epsilon=2.0, delta=1e-5) as budget:
        plan_search(search, X, y)
        scorer = search.scoring
        with pytest.raises(TypeError, match="FunctionTransformer.*not a synthesizer"):
            scorer(make_pipeline(_clip()).fit(X), X)
        search.fit(X, y)  # refused before its release: the search goes on as planned
    assert budget.report().is_private


def test_plan_search_makes_the_search_raise_on_errors():
    X, y = _data()
    search = GridSearchCV(_synth(), {"length_scale": [0.5, 1.0]}, cv=KFold(N_FOLDS),
                          scoring=private_neg_mmd2_scorer(n_components=50))
    assert np.isnan(search.error_score)  # scikit-learn's default
    with PrivacyBudget(epsilon=2.0, delta=1e-5):
        plan_search(search, X, y)
    assert search.error_score == "raise"


@pytest.mark.parametrize("error_score", [0.0, -np.inf, -1])
def test_plan_search_refuses_an_error_score_that_is_a_number(error_score):
    X, y = _data()
    search = GridSearchCV(_synth(), {"length_scale": [0.5, 1.0]}, cv=KFold(N_FOLDS),
                          scoring=private_neg_mmd2_scorer(), error_score=error_score)
    with PrivacyBudget(epsilon=2.0, delta=1e-5) as budget:
        with pytest.raises(ValueError, match="error_score"):
            plan_search(search, X, y)
    assert budget.charges == []
    assert search.error_score is error_score  # left as it was
