"""How sure a fitted search is of its choice (:func:`search_report`).

Post-processing of a search's released scores (``cv_results_``): each
candidate's mean score and standard error over the folds, the choice's lead
over the runner-up in standard errors, and a verdict. Exported by
:mod:`skdpgen.model_selection`.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from sklearn.model_selection import check_cv

__all__ = ["CLEAR_LEAD", "SearchReport", "search_report"]

#: The lead, in standard errors of the difference, from which
#: :func:`search_report` calls the chosen candidate's lead over the runner-up
#: clear (about a 2.3 % chance that noise alone makes a lead this large, were
#: the fold means normal with the standard errors measured).
CLEAR_LEAD = 2.0


@dataclass(frozen=True)
class SearchReport:
    """How sure a search's choice is (see :func:`search_report`).

    Attributes
    ----------
    params : tuple of dict
        Each candidate's parameters, in ``cv_results_`` order.
    mean_scores : ndarray of shape (n_candidates,)
        Mean score over the folds (``mean_test_score``).
    standard_errors : ndarray of shape (n_candidates,)
        Standard error of each mean: the folds' sample standard deviation
        (``ddof=1``) over ``√n_folds``; NaN with one fold.
    n_folds : int
    best_index : int
        The chosen candidate (``best_index_``).
    runner_up_index : int or None
        The candidate with the highest mean score after it; None with one
        candidate.
    lead : float
        ``(mean_best − mean_runner_up) / √(se_best² + se_runner_up²)``; NaN
        when it cannot be computed (one candidate, one fold).
    threshold : float
        The lead from which the verdict is ``"clear lead"``.
    verdict : str
        ``"clear lead"`` or ``"not a clear lead: within the noise"`` (or why
        there is no lead to read).
    score_noise_std : float or None
        Standard deviation of the private scorer's noise in one score (root
        mean square over the folds), where the scorer's plan and the folds'
        sizes are known (``X`` given); None otherwise.
    scorer : str or None
        The scorer's name, where the search's ``scoring`` is a private scorer.
    score_noise_is_bound : bool
        Whether ``score_noise_std`` is an upper bound (for
        ``private_neg_mmd2_scorer``, whose noise depends on the candidate's
        unknown distance) rather than the exact standard deviation.
    """

    params: tuple
    mean_scores: np.ndarray
    standard_errors: np.ndarray
    n_folds: int
    best_index: int
    runner_up_index: object
    lead: float
    threshold: float
    verdict: str
    score_noise_std: object = None
    scorer: object = None
    score_noise_is_bound: bool = False

    @property
    def best_params(self):
        """The chosen candidate's parameters."""
        return self.params[self.best_index]

    def to_dict(self):
        """The report as plain Python values (lists, floats, dicts)."""
        return {"params": [dict(p) for p in self.params],
                "mean_scores": [float(m) for m in self.mean_scores],
                "standard_errors": [float(s) for s in self.standard_errors],
                "n_folds": self.n_folds, "best_index": self.best_index,
                "runner_up_index": self.runner_up_index, "lead": float(self.lead),
                "threshold": self.threshold, "verdict": self.verdict,
                "score_noise_std": self.score_noise_std,
                "score_noise_is_bound": self.score_noise_is_bound, "scorer": self.scorer}

    def to_frame(self):
        """One row per candidate, best mean score first: ``params``,
        ``mean_score``, ``standard_error``, ``chosen``."""
        import pandas as pd

        frame = pd.DataFrame({
            "params": [_short(p) for p in self.params],
            "mean_score": self.mean_scores, "standard_error": self.standard_errors,
            "chosen": [i == self.best_index for i in range(len(self.params))]})
        return frame.sort_values("mean_score", ascending=False, kind="stable")

    def __str__(self):
        lines = [f"Search report: {len(self.params)} candidates x {self.n_folds} folds"
                 + (f", scored by {self.scorer}" if self.scorer else "")]
        for i in np.argsort(-self.mean_scores, kind="stable"):
            mark = "*" if i == self.best_index else " "
            lines.append(f" {mark} {_short(self.params[i])}: {self.mean_scores[i]:.4g} "
                         f"(standard error {self.standard_errors[i]:.2g})")
        if self.score_noise_std is not None:
            at_most = "at most " if self.score_noise_is_bound else ""
            lines.append(f"   privacy noise of one score: std {at_most}"
                         f"{self.score_noise_std:.2g} (part of the folds' spread)")
        if self.runner_up_index is None or not np.isfinite(self.lead):
            lines.append(f"chosen: {_short(self.best_params)}; {self.verdict}")
        else:
            lines.append(
                f"chosen: {_short(self.best_params)}; it leads the runner-up "
                f"({_short(self.params[self.runner_up_index])}) by {self.lead:.3g} standard "
                f"errors: {self.verdict} (threshold {self.threshold:g})")
        return "\n".join(lines)

    def __repr__(self):
        return (f"SearchReport(best_params={self.best_params!r}, lead={self.lead:.3g}, "
                f"verdict={self.verdict!r})")


def _short(params):
    """``{"synth__order": 5}`` as ``order=5``."""
    return ", ".join(f"{key.split('__')[-1]}={value}" for key, value in params.items())


def _fold_sizes(search, X, n_folds):
    """The validation folds' sizes of ``search`` on ``X`` (its number of rows
    only), or None when they cannot be read without the labels."""
    try:
        cv = check_cv(search.cv, None, classifier=False)
        sizes = [len(test) for _, test in cv.split(np.empty((len(X), 1)))]
    except (TypeError, ValueError):
        return None
    return sizes if len(sizes) == n_folds else None


def search_report(search, X=None, *, threshold=CLEAR_LEAD):
    """How sure a fitted search is of its choice: scores, standard errors, lead.

    Reads ``cv_results_`` of a fitted ``GridSearchCV`` or
    ``RandomizedSearchCV`` (a private one planned by :func:`plan_search`,
    or any other with one score) and reports each candidate's mean score
    over the folds with its standard error, the chosen candidate
    (``best_index_``), its lead over the runner-up in standard errors of
    their difference, and a verdict: ``"clear lead"`` when the lead is at
    least ``threshold``, otherwise ``"not a clear lead: within the noise"``.

    Parameters
    ----------
    search : fitted GridSearchCV or RandomizedSearchCV, or dict
        The search, or its ``cv_results_`` (then the chosen candidate is
        the one ranked first, ``rank_test_score``).
    X : array-like, default=None
        The rows the search was fitted on; only their number is read (a
        public fact), to size the folds and give the private scorer's noise
        per score (``score_noise_std``). Folds that depend on the labels
        cannot be sized this way, and are not (nor are those of a search
        given as a dict).
    threshold : float, default=CLEAR_LEAD
        The lead, in standard errors, from which the lead is clear (2).

    Returns
    -------
    report : SearchReport
        ``str(report)`` is a readable summary; ``report.to_frame()`` a
        DataFrame with one row per candidate, ``report.to_dict()`` plain values.

    See Also
    --------
    plan_search : Make the whole search spend one privacy budget.

    Notes
    -----
    **No privacy cost.** The report is computed from the scores the search
    already released (``cv_results_``) and public facts (the number of
    rows, the scorer's plan): post-processing, which spends nothing more.

    **What the standard error holds.** A candidate's standard error is the
    spread of its scores over the ``k`` folds (sample standard deviation
    over ``√k``). With a private scorer that spread includes the scorer's
    privacy noise as well as the folds' and the private fits' own
    variation; ``score_noise_std`` gives the noise's part where it is
    known: for ``private_accuracy_scorer`` the noise of the count over the
    fold's size (``σ/m``, independent between scores), for
    ``private_neg_mmd2_scorer`` an upper bound, most of it shared by every
    candidate on a fold (one release per fold), which cancels in the
    candidates' differences.

    **The lead.** ``(mean_best − mean_runner_up) / √(se_best² +
    se_runner_up²)`` treats the two candidates' fold means as independent.
    Candidates scored on the same folds are positively correlated (same
    rows; with ``private_neg_mmd2_scorer`` the same noisy release), so this
    standard error of the difference is, if anything, too large: a lead
    called clear is not overstated, and one below the threshold may still
    be real. With ``k = 3`` folds each standard error rests on two degrees
    of freedom, so a lead a little above the threshold is weak evidence;
    more folds make it firmer (at the cost of more fits, see
    :func:`plan_search`). The verdict says whether the scores separate the
    choice from the runner-up, not whether the chosen candidate is best on
    new data.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.model_selection import GridSearchCV, KFold
    >>> from skdpgen import MarginalSynthesizer
    >>> from skdpgen.evaluation import private_neg_mmd2_scorer
    >>> from skdpgen.model_selection import plan_search, search_report
    >>> from skdpgen.privacy import PrivacyBudget
    >>> X = np.random.default_rng(0).normal(size=(600, 2))
    >>> search = GridSearchCV(MarginalSynthesizer(bounds=(-4, 4), random_state=0),
    ...                       {"bins": [2, 20]}, cv=KFold(3),
    ...                       scoring=private_neg_mmd2_scorer())
    >>> with PrivacyBudget(epsilon=1.0, delta=1e-5):
    ...     _ = plan_search(search, X)
    ...     _ = search.fit(X)
    >>> report = search_report(search, X)
    >>> report.n_folds, len(report.params), report.threshold
    (3, 2, 2.0)
    >>> report.verdict in ("clear lead", "not a clear lead: within the noise")
    True
    >>> list(report.to_frame().columns)
    ['params', 'mean_score', 'standard_error', 'chosen']
    """
    if not 0 < threshold < math.inf:
        raise ValueError(f"threshold must be a positive number, got {threshold!r}.")
    if isinstance(search, Mapping):
        results, best, scoring = search, None, None
    else:
        results = getattr(search, "cv_results_", None)
        if results is None:
            raise ValueError("search_report needs a fitted search (it has no cv_results_).")
        best, scoring = getattr(search, "best_index_", None), search.scoring
    if "mean_test_score" not in results:
        raise ValueError("search_report reads one score per candidate (mean_test_score); "
                         "this search has several metrics.")
    n_folds = sum(1 for key in results if key.startswith("split")
                  and key.endswith("_test_score"))
    folds = np.array([results[f"split{k}_test_score"] for k in range(n_folds)],
                     dtype=np.float64).reshape(n_folds, -1)
    mean = np.asarray(results["mean_test_score"], dtype=np.float64)
    if not np.isfinite(folds).all():
        raise ValueError("search_report: some scores are not finite (failed fits or "
                         "scores); no lead can be read from them.")
    if best is None:
        best = int(np.argmin(results["rank_test_score"]))
    best = int(best)
    n = len(mean)
    se = (folds.std(axis=0, ddof=1) / math.sqrt(n_folds) if n_folds > 1
          else np.full(n, np.nan))
    others = [i for i in np.argsort(-mean, kind="stable") if i != best]
    runner_up = int(others[0]) if others else None
    if runner_up is None:
        lead, verdict = math.nan, "one candidate: nothing was chosen between"
    elif n_folds < 2:
        lead, verdict = math.nan, "one fold: no standard error, so no lead can be read"
    else:
        gap = mean[best] - mean[runner_up]
        spread = math.hypot(se[best], se[runner_up])
        lead = gap / spread if spread > 0 else (math.inf if gap > 0 else 0.0)
        lead = float(lead)
        verdict = "clear lead" if lead >= threshold else "not a clear lead: within the noise"
    noise = None
    if X is not None and hasattr(scoring, "noise_std") and n_folds > 0:
        sizes = _fold_sizes(search, X, n_folds)
        if sizes is not None:
            noise = float(np.sqrt(np.mean([scoring.noise_std(m) ** 2 for m in sizes])))
    name = getattr(scoring, "_name", None) if hasattr(scoring, "n_releases") else None
    return SearchReport(tuple(dict(p) for p in results["params"]), mean, se, n_folds, best,
                        runner_up, lead, float(threshold), verdict, noise, name,
                        bool(getattr(scoring, "noise_std_is_bound", False)))
