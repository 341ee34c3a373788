"""Private model selection: one (ε, δ) budget for a whole grid search.

:func:`plan_search` splits a :class:`~skdpgen.privacy.PrivacyBudget` over a
``GridSearchCV`` (or ``RandomizedSearchCV``) of skdpgen estimators scored by
a private scorer (:func:`~skdpgen.evaluation.private_neg_mmd2_scorer`,
:func:`~skdpgen.evaluation.private_accuracy_scorer`): every candidate fit on
every fold, the refit and the scorer's releases, so that the whole search
spends the budget exactly; or checks, before anything is released, that a
search whose budgets are already set fits in it.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math
import warnings
from dataclasses import dataclass

from joblib.parallel import get_active_backend
from sklearn.base import clone, is_classifier
from sklearn.model_selection import (
    GridSearchCV,
    KFold,
    ParameterGrid,
    ParameterSampler,
    PredefinedSplit,
    RandomizedSearchCV,
    RepeatedKFold,
    ShuffleSplit,
    TimeSeriesSplit,
    check_cv,
)

from .base import PrivateEstimator
from .privacy import BudgetExceededError, active_budget, gaussian_epsilon
from .privacy._budget import _selection_epsilon, gaussian_precision, planning

__all__ = ["SearchPlan", "plan_search"]

# splitters whose folds depend on row positions only (and public randomness)
_POSITIONAL = (KFold, RepeatedKFold, ShuffleSplit, TimeSeriesSplit, PredefinedSplit)


@dataclass(frozen=True)
class SearchPlan:
    """What a planned search spends (see :func:`plan_search`).

    Attributes
    ----------
    n_candidates, n_folds : int
    n_fits : int
        ``n_candidates × n_folds``, plus one for the refit.
    n_score_releases : int
        The scorer's releases over the whole search.
    fit_epsilon, fit_delta : float
        The (ε, δ) of each fit.
    score_epsilon, score_delta : float
        The scorer's (ε, δ), all its releases together.
    epsilon : float
        ε of the whole search at the budget's δ, exactly composed (with what
        the budget had spent before).
    budget : tuple of (float, float)
    """

    n_candidates: int
    n_folds: int
    n_fits: int
    n_score_releases: int
    fit_epsilon: float
    fit_delta: float
    score_epsilon: float
    score_delta: float
    epsilon: float
    budget: tuple

    def __str__(self):
        return (
            f"Search plan: {self.n_candidates} candidates x {self.n_folds} folds "
            f"+ {'1 refit' if self.n_fits > self.n_candidates * self.n_folds else 'no refit'} "
            f"= {self.n_fits} fits at epsilon = {self.fit_epsilon:.4g}, "
            f"delta = {self.fit_delta:.3g} each; scoring: {self.n_score_releases} releases at "
            f"epsilon = {self.score_epsilon:.4g} in all; total epsilon = {self.epsilon:.4g} "
            f"of the budget's {self.budget[0]:g} (delta = {self.budget[1]:g})"
        )


def _candidates(search):
    if isinstance(search, GridSearchCV):
        return list(ParameterGrid(search.param_grid))
    if isinstance(search, RandomizedSearchCV):
        return list(ParameterSampler(search.param_distributions, search.n_iter,
                                     random_state=search.random_state))
    raise TypeError(f"plan_search plans GridSearchCV and RandomizedSearchCV, "
                    f"not {type(search).__name__}.")


def _private_step(estimator):
    """The parameter prefix of the one private estimator in ``estimator``."""
    if isinstance(estimator, PrivateEstimator):
        return ""
    found = [name for name, value in estimator.get_params(deep=True).items()
             if isinstance(value, PrivateEstimator)]
    if len(found) != 1:
        raise ValueError(
            f"plan_search needs exactly one skdpgen estimator in the searched estimator, "
            f"found {len(found)}.")
    return found[0] + "__"


def _check_search(search, X, y):
    """Refuse what a budget cannot cover; return ``(n_folds, scorer)``."""
    n_jobs = search.n_jobs
    if n_jobs is None:
        n_jobs = get_active_backend()[1]
    if n_jobs not in (None, 1):
        raise ValueError(
            f"plan_search needs n_jobs=1 (got {n_jobs}): the budget is seen by the thread "
            "that fits, and joblib workers would fit and score outside it.")
    if search.return_train_score:
        raise ValueError("return_train_score=True scores the training folds again, without "
                         "a plan; set it to False.")
    if not (search.refit is True or search.refit is False):
        raise ValueError("plan_search supports refit=True or False.")
    cv = check_cv(search.cv, y, classifier=is_classifier(search.estimator))
    if not isinstance(cv, _POSITIONAL):
        raise ValueError(  # noqa: TRY004 - a value (the folds), not a type, is wrong
            f"The folds of {type(cv).__name__} depend on the labels or groups, so one record "
            "can move others between folds, which no fold-wise accounting covers; pass "
            "cv=KFold(k) (or ShuffleSplit, TimeSeriesSplit, PredefinedSplit).")
    scorer = search.scoring
    if not callable(scorer) or not hasattr(scorer, "n_releases"):
        raise ValueError(
            "scoring must be a private scorer (skdpgen.evaluation.private_neg_mmd2_scorer or "
            "private_accuracy_scorer); the estimator's own score and the other scorers read "
            "the held-out rows without noise.")
    return cv.get_n_splits(X, y), scorer


def _fit_charges(search, candidates, prefix, X, y, fit_budget=None):
    """The charge of each candidate's fit, from a dry run that stops when its
    accountant is created (before any statistic or noise)."""
    charges = []
    for params in candidates:
        estimator = clone(search.estimator).set_params(**params)
        if fit_budget is not None:
            estimator.set_params(**{prefix + "epsilon": fit_budget[0],
                                    prefix + "delta": fit_budget[1]})
        with warnings.catch_warnings(), planning() as plan:
            warnings.simplefilter("ignore")
            estimator.fit(X, y)
        if len(plan.charges) != 1:
            raise RuntimeError(f"A candidate's fit planned {len(plan.charges)} budgets, not 1.")
        charges.append(plan.charges[0])
    return charges


def plan_search(search, X, y=None, *, budget=None, split=True, scoring_share=0.1):
    """Plan a grid search so that all of it spends one privacy budget.

    A search of ``c`` candidates with ``k`` folds and a refit makes
    ``c·k + 1`` private fits and the scorer's releases. With ``split=True``
    this sets, with ``search.set_params``, the ``epsilon`` and ``delta`` of
    the search's skdpgen estimator (every fit the same) and those of the
    scorer, so that the exact composition of all of them, with what the
    budget spent before, is the budget's ε at its δ; ``scoring_share`` of
    the Gaussian part goes to the scorer. With ``split=False`` it checks the
    search as configured. Nothing is released either way: each candidate is
    fitted up to the point where its accountant is created, and stopped.

    Parameters
    ----------
    search : GridSearchCV or RandomizedSearchCV
        Over a skdpgen estimator or a Pipeline holding one (its earlier
        steps must not learn from the rows: no budget covers them), with
        ``scoring`` a private scorer, ``n_jobs=1`` and folds that depend on
        row positions only (``cv=KFold(k)``; an int when the estimator is
        not a classifier).
    X : array-like or DataFrame
        The private data the search will be fitted on (only its public
        shape is used by the plan).
    y : array-like, default=None
    budget : PrivacyBudget, default=None
        The budget to plan for; the active one by default.
    split : bool, default=True
        Set the fits' and the scorer's budgets (True), or only check them.
    scoring_share : float, default=0.1
        Share of the Gaussian part of the budget given to the scorer.

    Returns
    -------
    plan : SearchPlan

    Raises
    ------
    BudgetExceededError
        If the search does not fit in what remains of the budget (with
        ``split=False``), before anything is released; the search is left
        as it was.
    ValueError
        For a search a budget cannot cover (``n_jobs > 1``, folds that
        depend on labels, a scorer without noise, ``return_train_score``).

    Notes
    -----
    **Accounting.** Fits and scores are composed as if each read every
    record: a record sits in ``k − 1`` training folds of each candidate,
    in the refit, and in one validation fold, and no saving from the folds
    being disjoint is claimed. Each fit is a Gaussian composition planned
    by its accountant (precision ``1/σ_f²``) plus its partition
    selections' thresholds (``δ_each`` each, adding ``ln(1/(1 − δ_each))``
    to ε); the search's total is the Gaussian mechanism of precision
    ``Σ 1/σ_i²`` read at the budget's δ less all thresholds' δ, plus their
    ε terms. With ``split=True``, each fit gets ``δ_f = δ / n_fits`` (half
    of it for its thresholds, as each fit reserves), the Gaussian part of
    the budget is ``μ² = 1/σ(ε − Σ ln(1/(1 − δ_each)), δ − Σ δ_each)²``,
    the scorer gets ``scoring_share · μ²`` and each fit an equal part of the
    rest, and each fit's ε is that of its part at ``δ_f``.

    Private selection among a *random* number of candidates (Liu & Talwar
    2019; Papernot & Steinke 2022) would make tuning cost a small multiple
    of one fit; its guarantee is a Rényi-DP bound on the whole procedure,
    not a Gaussian composition, so the library's exact accountant cannot
    account it, and it is left out.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.model_selection import GridSearchCV, KFold
    >>> from skdpgen import DPHPSynthesizer
    >>> from skdpgen.evaluation import private_neg_mmd2_scorer
    >>> from skdpgen.model_selection import plan_search
    >>> from skdpgen.privacy import PrivacyBudget
    >>> X = np.random.default_rng(0).normal(size=(400, 2))
    >>> search = GridSearchCV(
    ...     DPHPSynthesizer(bounds=(-4, 4), epochs=1, steps_per_epoch=5, random_state=0),
    ...     {"order": [5, 10], "length_scale": [0.5, 1.0]}, cv=KFold(3),
    ...     scoring=private_neg_mmd2_scorer())
    >>> with PrivacyBudget(epsilon=1.0, delta=1e-5) as budget:
    ...     plan = plan_search(search, X)
    ...     _ = search.fit(X)
    >>> plan.n_fits, plan.n_score_releases
    (13, 3)
    >>> report = budget.report()
    >>> bool(report.epsilon <= 1.0), report.is_private
    (True, True)
    """
    budget = active_budget() if budget is None else budget
    if budget is None:
        raise RuntimeError("plan_search needs a PrivacyBudget: call it inside "
                           "`with PrivacyBudget(epsilon, delta):` or pass budget=.")
    if not 0 < scoring_share < 1:
        raise ValueError(f"scoring_share must lie in (0, 1), got {scoring_share!r}.")
    n_folds, scorer = _check_search(search, X, y)
    candidates = _candidates(search)
    prefix = _private_step(search.estimator)
    for params in candidates:
        if prefix + "epsilon" in params or prefix + "delta" in params:
            raise ValueError("The grid sets epsilon or delta; plan_search sets them.")
    n_candidates = len(candidates)
    n_fits = n_candidates * n_folds + int(bool(search.refit))
    n_scores = scorer.n_releases(n_candidates, n_folds)
    fit_budget = score_budget = None
    if split:
        charges = _fit_charges(search, candidates, prefix, X, y)
        selections = {len(c.selection_deltas) for c in charges}
        if len(selections) != 1:
            raise ValueError("The candidates plan different partition selections; declare "
                             "the schema so that every fit plans the same releases.")
        fit_budget, score_budget = _split(budget, n_fits, selections.pop(), scoring_share)
    else:
        score_budget = (scorer.epsilon, scorer.delta)
        if score_budget[0] is None:
            raise ValueError("With split=False the scorer needs its own epsilon and delta.")
    planned_scorer = scorer.planned(epsilon=score_budget[0], delta=score_budget[1],
                                    n_candidates=n_candidates, n_folds=n_folds)
    charges = _fit_charges(search, candidates, prefix, X, y, fit_budget)
    # the refit plans like the costliest candidate
    refit = [max(charges, key=lambda c: c.precision)] if search.refit else []
    with planning() as plan:  # the scorer's charge, as its accountant computes it
        planned_scorer.new_accountant()
    planned = charges * n_folds + refit + plan.charges
    total = budget.spent(planned)
    if not budget.fits(planned):
        raise BudgetExceededError(
            f"The search would spend epsilon = {total:.4g} at delta = {budget.delta:g}, past "
            f"the budget's epsilon = {budget.epsilon:g} (with what it spent before); nothing "
            "was released. Use plan_search(split=True), a smaller grid or fewer folds.")
    if split:
        search.estimator.set_params(**{prefix + "epsilon": fit_budget[0],
                                       prefix + "delta": fit_budget[1]})
    search.set_params(scoring=planned_scorer)
    fit_epsilon = fit_budget[0] if split else float("nan")
    fit_delta = fit_budget[1] if split else float("nan")
    return SearchPlan(n_candidates, n_folds, n_fits, n_scores, fit_epsilon, fit_delta,
                      float(score_budget[0]), float(score_budget[1]), total,
                      (budget.epsilon, budget.delta))


def _split(budget, n_fits, n_selections, scoring_share):
    """``(ε_f, δ_f)`` of each fit and the scorer's ``(ε_s, δ_s)`` that spend
    what remains of ``budget`` exactly (see :func:`plan_search`, Notes)."""
    spent_deltas = [d for c in budget.charges for d in c.selection_deltas]
    fit_delta = (budget.delta - sum(spent_deltas)) / n_fits
    delta_each = fit_delta / (2 * n_selections) if n_selections else 0.0
    selections = spent_deltas + [delta_each] * (n_selections * n_fits)
    gaussian_delta = budget.delta - sum(selections)
    gaussian_epsilon_left = budget.epsilon - sum(_selection_epsilon(d) for d in selections)
    if gaussian_delta <= 0 or gaussian_epsilon_left <= 0:
        raise BudgetExceededError("Nothing of the budget is left for the search.")
    precision = gaussian_precision(gaussian_epsilon_left, gaussian_delta)
    precision -= sum(c.precision for c in budget.charges)
    if precision <= 0:
        raise BudgetExceededError("Nothing of the budget is left for the search.")
    fit_sigma = 1.0 / math.sqrt((1 - scoring_share) * precision / n_fits)
    score_sigma = 1.0 / math.sqrt(scoring_share * precision)
    own_delta = fit_delta / 2 if n_selections else fit_delta
    fit_epsilon = gaussian_epsilon(fit_sigma, own_delta) + n_selections * _selection_epsilon(
        delta_each)
    score_delta = budget.delta
    return (fit_epsilon, fit_delta), (gaussian_epsilon(score_sigma, score_delta), score_delta)
