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
import numbers
import warnings
import weakref
from dataclasses import dataclass

import numpy as np
from joblib.parallel import get_active_backend
from sklearn.base import clone, is_classifier
from sklearn.compose import ColumnTransformer
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
from sklearn.pipeline import FeatureUnion, Pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils import get_tags

from .base import PrivateEstimator
from .privacy import (BudgetExceededError, active_budget, gaussian_epsilon, gaussian_precision,
                      planning, selection_epsilon)
from ._search_report import CLEAR_LEAD, SearchReport, search_report

__all__ = ["CLEAR_LEAD", "SearchPlan", "SearchReport", "plan_search", "search_report"]

# splitters whose folds depend on row positions only (and public randomness)
_POSITIONAL = (KFold, RepeatedKFold, ShuffleSplit, TimeSeriesSplit, PredefinedSplit)
# what a Pipeline, FeatureUnion or ColumnTransformer step may be to do nothing
_NO_STEP = (None, "passthrough", "drop")


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


def _effective_n_jobs(n_jobs):
    """The ``n_jobs`` joblib will run: None reads the active backend's."""
    return get_active_backend()[1] if n_jobs is None else n_jobs


def _parts(node):
    """The parts of a container whose own fit learns nothing from the rows,
    as ``(name, part)``; None for anything else (a leaf)."""
    if isinstance(node, Pipeline):
        return list(node.steps)
    if isinstance(node, FeatureUnion):
        return list(node.transformer_list)
    if isinstance(node, ColumnTransformer):
        return [(name, part) for name, part, _ in node.transformers] + [
            ("remainder", node.remainder)]
    return None


def _walk(estimator, path=""):
    """``(path, node)`` for ``estimator`` and every part inside its containers
    (``path`` as ``set_params`` names it, "" for ``estimator`` itself)."""
    yield path, estimator
    for name, part in _parts(estimator) or ():
        yield from _walk(part, f"{path}__{name}" if path else name)


def _step_problem(node):
    """Why the budget does not cover ``node``, a part of the searched
    estimator (see :func:`plan_search`, Notes); None when it does."""
    if node is None or isinstance(node, str):
        return None if node in _NO_STEP else "cannot be classified"
    if isinstance(node, PrivateEstimator):
        return None  # charged to the budget when it fits
    if isinstance(node, (FeatureUnion, ColumnTransformer)):
        if _effective_n_jobs(node.n_jobs) not in (None, 1):
            return (f"fits its parts with n_jobs={node.n_jobs}, in joblib workers that do not "
                    "see the budget (set n_jobs=1)")
    if isinstance(node, ColumnTransformer):
        if any(callable(columns) for _, _, columns in node.transformers):
            return "picks its columns with a callable, which reads the rows (list the columns)"
        if node.sparse_threshold != 0:
            return ("chooses a sparse or dense output from the density of the rows "
                    f"(sparse_threshold={node.sparse_threshold}; set sparse_threshold=0)")
    if _parts(node) is not None:
        return None  # a container: its parts are checked in turn
    if isinstance(node, FunctionTransformer):
        if node.check_inverse and node.func is not None and node.inverse_func is not None:
            return ("compares func and inverse_func on the rows when fitted and warns "
                    "depending on them (set check_inverse=False)")
        return None
    try:
        stateless = get_tags(node).requires_fit is False
    except (AttributeError, TypeError):  # not a scikit-learn estimator
        stateless = False
    return None if stateless else "learns from the rows when it is fitted"


def _check_steps(estimator):
    """Refuse a searched estimator with a part, other than its skdpgen
    estimator, that reads the rows without noise (see :func:`plan_search`, Notes)."""
    for path, node in _walk(estimator):
        problem = _step_problem(node)
        if problem is not None:
            where = f"step {path!r}" if path else "the searched estimator"
            what = repr(node) if node is None or isinstance(node, str) else type(node).__name__
            raise ValueError(
                f"plan_search: {where} ({what}) {problem}; no budget covers that, and the "
                "search's report would call it private. Every part of the searched estimator "
                "but its skdpgen estimator must learn nothing from the rows: 'passthrough', "
                "a FunctionTransformer with fixed public parameters (a clip, a scaling by "
                "public bounds), or another stateless transformer. To scale by the data's "
                "range, declare the bounds in the synthesizer's schema (or bounds=): it "
                "scales by them.")


def _backend_n_jobs(search, estimators):
    """The ``n_jobs`` settings of the search and of the containers of its
    candidate ``estimators`` that are None, so follow the joblib backend."""
    names = {"n_jobs"} if search.n_jobs is None else set()
    for estimator in estimators:
        names.update(f"estimator__{path}__n_jobs" if path else "estimator__n_jobs"
                     for path, node in _walk(estimator)
                     if isinstance(node, (FeatureUnion, ColumnTransformer))
                     and node.n_jobs is None)
    return sorted(names)


def _check_search(search, X, y):
    """Refuse what a budget cannot cover; return ``(n_folds, scorer)``."""
    n_jobs = _effective_n_jobs(search.n_jobs)
    if n_jobs not in (None, 1):
        raise ValueError(
            f"plan_search needs n_jobs=1 (got {n_jobs}): the budget is seen by the thread "
            "that fits, and joblib workers would fit and score outside it.")
    if search.return_train_score:
        raise ValueError("return_train_score=True scores the training folds again, without "
                         "a plan; set it to False.")
    if not (search.refit is True or search.refit is False):
        raise ValueError("plan_search supports refit=True or False.")
    error = search.error_score  # "raise", or scikit-learn's default NaN (then set to it)
    if not (error == "raise" if isinstance(error, str) else
            isinstance(error, numbers.Real) and not isinstance(error, bool) and math.isnan(error)):
        raise ValueError(
            f"plan_search needs error_score='raise' (got error_score={error!r}): with a "
            "number, a candidate whose fit or score fails gets it as its score and can be "
            "chosen as best_params_. Leave error_score at its default or set it to 'raise'.")
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


def _candidate(search, params):
    """A fresh copy of the searched estimator with a candidate's ``params``."""
    return clone(search.estimator).set_params(**params)


def _fit_charges(search, candidates, prefix, X, y, fit_budget=None):
    """The charge of each candidate's fit, from a dry run that stops when its
    accountant is created (before any statistic or noise)."""
    charges = []
    for params in candidates:
        estimator = _candidate(search, params)
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
    Either way it also sets ``error_score="raise"``: a planned search raises
    the first error of a fit or a score instead of ranking candidates by a
    stand-in score (see Notes).

    Parameters
    ----------
    search : GridSearchCV or RandomizedSearchCV
        Over a skdpgen estimator or a Pipeline holding one (its other steps
        must learn nothing from the rows: see Notes), with ``scoring`` a
        private scorer, ``n_jobs=1`` and folds that depend on row positions
        only (``cv=KFold(k)``; an int when the estimator is not a
        classifier), and ``error_score`` left at scikit-learn's default
        (NaN, which plan_search replaces by ``"raise"``) or ``"raise"``.
        Its settings are fixed from now on for the budget's block (see
        Notes).
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
        depend on labels, a scorer without noise, ``return_train_score``,
        a step that learns from the rows, ``error_score`` a number other
        than NaN).

    Notes
    -----
    **Steps.** The budget covers the skdpgen estimator's fit and nothing
    else, so every other part of the searched estimator, in every candidate
    (the grid may swap steps), must learn nothing from the rows. A part
    passes when it is ``"passthrough"``, ``"drop"`` or None; a
    ``FunctionTransformer`` (with ``check_inverse=False`` or no
    ``inverse_func``: its inverse check reads the rows and warns depending
    on them); another transformer whose scikit-learn tags say it needs no
    fit (``get_tags(step).requires_fit is False``, e.g. ``Normalizer``);
    or the skdpgen estimator itself, charged when it fits. A ``Pipeline``,
    ``FeatureUnion`` or ``ColumnTransformer`` is walked and the rule applied
    to each of its parts (the ``ColumnTransformer`` with its columns listed,
    not picked by a callable, and ``sparse_threshold=0``, since it otherwise
    picks its output format from the rows' density; these containers with
    ``n_jobs=1``, or None under a one-job backend). Anything else, before
    or after the skdpgen estimator, is refused with a ``ValueError`` naming
    the step: a ``StandardScaler``'s ``mean_`` is the exact mean of the
    training rows, which no report would show. Scale by public bounds
    instead (a ``FunctionTransformer`` with fixed parameters, or the bounds
    declared in the synthesizer's schema). A stateless step's function must
    act on each row alone (a clip, a log, not ``X - X.mean(axis=0)``):
    plan_search cannot read the function, and this is on you.

    **Errors raise.** scikit-learn's searches turn a fit or a score that
    raises into ``error_score`` (NaN by default), warn, and go on: a search
    whose every score failed still picks ``best_params_`` among NaN, and
    its report lists fewer releases than planned. A private search has no
    use for a stand-in score (each failed fit or score has spent its budget
    for nothing, or left the plan short), so plan_search sets
    ``error_score="raise"``, replacing the default NaN, and refuses any
    other number with a ``ValueError`` (it would be ranked as a real score
    and could be chosen) rather than override a value chosen on purpose.
    The private scorers raise a ``TypeError`` or ``ValueError`` naming what
    they lack when they cannot score, and never return NaN.

    **The search as planned.** plan_search records the search in the budget
    (:meth:`~skdpgen.privacy.PrivacyBudget.add_guard`): a weak reference to
    it, every setting of ``search.get_params(deep=True)`` by value (the
    estimator's parameters with the budgets set here, ``cv``, ``scoring``,
    the grid or distributions and ``n_iter``/``random_state``, ``refit``,
    ``error_score``, ``return_train_score``, ``n_jobs``), which ``n_jobs``
    follow the joblib backend (None), and the charges it plans. Before
    every later charge and when the block ends, the budget rechecks them:
    a setting changed since planning (even in place, as a list of the grid
    or a splitter's ``n_splits``), or ``n_jobs=None`` under a joblib backend
    with several jobs, makes the budget refuse, naming the setting, and
    refuse every later charge (the block raises at its end): with
    ``n_jobs=1`` the first fold fit is refused before any noise; with
    ``n_jobs > 1`` the fold fits run in workers that see no budget (they
    release nothing: the private scorers refuse to score outside one) and
    the refit in the main process is refused (a scorer without noise
    swapped in as well would have scored there first: the block still
    raises, but the scores are out). When the block ends, a
    planned search that made some of its planned charges but not all (its
    fits ran where the budget does not see them, or it stopped early)
    makes the block raise too. The record holds for the rest of the block,
    also once the search is fitted: change a planned search only after the
    block, or plan it again (which replaces its record). Planning
    several searches in one block is fine; each spends what the fits before
    its planning left, so fit each before planning the next.

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
    estimators = [_candidate(search, params) for params in candidates]
    for estimator in estimators:  # the grid may swap steps
        _check_steps(estimator)
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
    search.set_params(scoring=planned_scorer, error_score="raise")
    guard = _SearchGuard(search, planned, len(budget.charges),
                         _backend_n_jobs(search, estimators))
    budget.add_guard(guard, key=weakref.ref(search))
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
    gaussian_epsilon_left = budget.epsilon - sum(selection_epsilon(d) for d in selections)
    if gaussian_delta <= 0 or gaussian_epsilon_left <= 0:
        raise BudgetExceededError("Nothing of the budget is left for the search.")
    precision = gaussian_precision(gaussian_epsilon_left, gaussian_delta)
    precision -= sum(c.precision for c in budget.charges)
    if precision <= 0:
        raise BudgetExceededError("Nothing of the budget is left for the search.")
    fit_sigma = 1.0 / math.sqrt((1 - scoring_share) * precision / n_fits)
    score_sigma = 1.0 / math.sqrt(scoring_share * precision)
    own_delta = fit_delta / 2 if n_selections else fit_delta
    fit_epsilon = gaussian_epsilon(fit_sigma, own_delta) + n_selections * selection_epsilon(
        delta_each)
    score_delta = budget.delta
    return (fit_epsilon, fit_delta), (gaussian_epsilon(score_sigma, score_delta), score_delta)


# -- the planned search, rechecked by the budget ---------------------------------


def _fingerprint(value, keep):
    """A record of ``value`` that compares equal only while its settings are
    the same: numbers, text, arrays and containers by value, estimators by
    their parameters, splitters and scorers by their attributes, anything else
    (functions, random generators) by identity, kept alive in ``keep`` so that
    an identity is never reused."""
    if value is None or isinstance(value, (bool, str, bytes)):
        return type(value), value
    if isinstance(value, np.generic) and not isinstance(value, np.object_):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return float, "nan"  # NaN != NaN; error_score=np.nan is a setting like another
    if isinstance(value, numbers.Number):
        return type(value), value
    if isinstance(value, np.ndarray):
        if value.dtype.hasobject:
            return "ndarray", value.shape, _fingerprint(value.tolist(), keep)
        return "ndarray", value.dtype.str, value.shape, value.tobytes()
    if isinstance(value, (list, tuple)):
        return type(value), tuple(_fingerprint(v, keep) for v in value)
    if isinstance(value, dict):
        return type(value), tuple((_fingerprint(k, keep), _fingerprint(v, keep))
                                  for k, v in value.items())
    if isinstance(value, (set, frozenset)):
        return type(value), frozenset(_fingerprint(v, keep) for v in value)
    if not isinstance(value, type):
        if hasattr(value, "get_params"):  # an estimator
            return type(value), _fingerprint(value.get_params(deep=False), keep)
        if hasattr(value, "get_n_splits") or hasattr(value, "n_releases"):  # cv, scorer
            return type(value), _fingerprint(vars(value), keep)
    keep.append(value)
    return "identity", id(value)


def _settings(search, keep):
    """Every setting of ``search`` (its ``get_params(deep=True)``), fingerprinted."""
    return {key: _fingerprint(value, keep) for key, value in search.get_params(deep=True).items()}


def _changed(before, after):
    """The most specific settings that differ between two :func:`_settings`."""
    keys = [key for key in before.keys() | after.keys() if before.get(key) != after.get(key)]
    return sorted(key for key in keys if not any(k.startswith(key + "__") for k in keys))


class _SearchGuard:
    """A planned search, rechecked by its budget at every charge and at the
    block's end (:meth:`~skdpgen.privacy.PrivacyBudget.add_guard`).

    Holds a weak reference to the search, its settings as planned, the
    ``n_jobs`` settings that follow the joblib backend, and the charges the
    plan expects (every fit's and the scorer's) from the budget's
    ``start``-th charge on.
    """

    def __init__(self, search, planned, start, backend_n_jobs):
        self._search = weakref.ref(search)
        self._name = type(search).__name__
        self._keep = []
        self._settings = _settings(search, self._keep)
        self._backend_n_jobs = backend_n_jobs
        self._planned = frozenset(planned)
        self._n_planned = len(planned)
        self._start = start

    def __call__(self, budget, at_exit):
        search = self._search()
        if search is not None:
            changed = _changed(self._settings, _settings(search, []))
            if changed:
                shown = ", ".join(changed[:5]) + (", ..." if len(changed) > 5 else "")
                return (
                    f"The {self._name} planned by plan_search was changed after planning "
                    f"({shown}): the budget's plan and checks hold for the search as planned, "
                    "so the budget refuses every release from now on. Set it back, or plan "
                    "the search again with plan_search, then call budget.reset_refusal().")
            n_jobs = get_active_backend()[1]
            if self._backend_n_jobs and n_jobs not in (None, 1):
                return (
                    f"The {self._name} planned by plan_search would run with n_jobs={n_jobs} "
                    f"under the active joblib backend ({', '.join(self._backend_n_jobs)} = "
                    "None follow it): its fits and scores would run in workers that do not "
                    "see the budget. Set n_jobs=1 on the search.")
        if at_exit:
            made = sum(charge in self._planned for charge in budget.charges[self._start:])
            if 0 < made < self._n_planned:
                return (
                    f"The {self._name} planned by plan_search made {made} of the "
                    f"{self._n_planned} charges planned (its fits and its scorer) inside the "
                    "budget: the others ran where the budget does not see them (joblib "
                    "workers, another thread or context) or the search stopped early, and "
                    "the budget cannot vouch for them.")
        return None
