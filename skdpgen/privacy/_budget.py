"""One (ε, δ) budget for many fits and scores: :class:`PrivacyBudget`."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import contextvars
import math
from dataclasses import dataclass

from ._calibration import (calibrate_gaussian, check_epsilon_delta, gaussian_epsilon,
                           selection_epsilon)
from ._leaks import _LEDGER, record_leak
from ._report import GaussianRelease, PrivacyReport

__all__ = ["BudgetExceededError", "PrivacyBudget", "active_budget", "gaussian_precision",
           "planning", "score_without_noise"]

# The budget whose block is running, or None.
_ACTIVE = contextvars.ContextVar("skdpgen_privacy_budget", default=None)
# Inside a plan (see :class:`planning`): the list that collects the
# charges of the accountants created, which then stop their fit.
_PLANNING = contextvars.ContextVar("skdpgen_budget_planning", default=None)
# Relative slack of the budget check: calibrate_gaussian rounds σ up by 1e-9,
# so a plan that spends the budget exactly reads back a hair below it.
_TOLERANCE = 1e-7


class BudgetExceededError(RuntimeError):
    """A release would take a :class:`PrivacyBudget` past its (ε, δ).

    Raised before any noise of the refused fit or score is drawn. A budget
    that refused once refuses every later release, and raises this error
    again when its ``with`` block ends, so that a caller which catches fit
    errors (``GridSearchCV(error_score=np.nan)``) cannot hide it.
    """


@dataclass(frozen=True)
class Charge:
    """What one accountant may spend: its whole plan, charged when it is created.

    Attributes
    ----------
    label : str
        Who spends it (``"DPHPSynthesizer.fit"``, ``"private_neg_mmd2_scorer"``).
    precision : float
        ``1/σ²`` of the composition of all its planned Gaussian releases
        (``inf`` for a release without noise).
    selection_deltas : tuple of float
        The δ of each planned partition selection's threshold.
    """

    label: str
    precision: float
    selection_deltas: tuple = ()

    @classmethod
    def of(cls, accountant, label):
        """The charge of a :class:`~skdpgen.privacy.GaussianAccountant`'s plan."""
        sigma = accountant.noise_multiplier_total
        n_selections = sum(accountant.plan[name][1] for name in accountant.selections)
        return cls(label, math.inf if sigma == 0 else 1.0 / sigma**2,
                   (accountant.delta_each,) * n_selections)


def composed_epsilon(charges, delta):
    """Exact ε, at ``delta``, of the composition of ``charges``.

    The Gaussian parts compose into one Gaussian mechanism of precision
    ``Σ 1/σ_i²`` (Dong, Roth & Su 2019), read at ``delta`` less the
    selections' thresholds' δ; each threshold adds ``ln(1/(1 − δ_each))``
    (see :meth:`GaussianAccountant.select`).

    Parameters
    ----------
    charges : iterable of Charge
    delta : float

    Returns
    -------
    epsilon : float
        ``inf`` when a charge has no noise or the thresholds take all of δ.
    """
    charges = list(charges)
    precision = sum(c.precision for c in charges)
    selections = [d for c in charges for d in c.selection_deltas]
    gaussian_delta = delta - sum(selections)
    if not math.isfinite(precision) or gaussian_delta <= 0:
        return math.inf
    sigma = math.inf if precision == 0 else 1.0 / math.sqrt(precision)
    return gaussian_epsilon(sigma, gaussian_delta) + sum(selection_epsilon(d) for d in selections)


def gaussian_precision(epsilon, delta):
    """``1/σ²`` of the Gaussian mechanism calibrated for ``(epsilon, delta)``.

    Precisions add under composition (``1/σ_eff² = Σ_i 1/σ_i²``), so a
    budget's precision is what its releases share.

    Parameters
    ----------
    epsilon : float
        ε > 0.
    delta : float
        δ in (0, 1).

    Returns
    -------
    precision : float
        ``1 / calibrate_gaussian(epsilon, delta)**2``.

    Examples
    --------
    >>> from skdpgen.privacy import calibrate_gaussian, gaussian_precision
    >>> p = gaussian_precision(1.0, 1e-5)
    >>> round(p * calibrate_gaussian(1.0, 1e-5) ** 2, 12)
    1.0
    """
    return 1.0 / calibrate_gaussian(epsilon, delta) ** 2


class PrivacyBudget:
    """One (ε, δ) budget that every release inside its block is charged to.

    Inside ``with PrivacyBudget(epsilon, delta):`` every fit of a skdpgen
    estimator and every private scorer (:mod:`skdpgen.model_selection`)
    charges its whole planned spending to the budget *before it draws any
    noise*; a charge that would take the exact composition of everything
    charged past ``(epsilon, delta)`` raises :class:`BudgetExceededError`
    instead, and the refused fit leaves its estimator as it was. The
    composition is exact: Gaussian releases compose into one Gaussian
    mechanism, and the thresholds of partition selections add their δ.
    :meth:`report` lists every release made inside the block, fit by fit
    and score by score, with whatever leaked.

    Parameters
    ----------
    epsilon : float
        Total ε > 0 (finite).
    delta : float
        Total δ in (0, 1).

    Attributes
    ----------
    charges : list of Charge
        What each fit and score inside the block planned to spend, in order.
    cache : dict
        The private scorers' state in this block: their accountants and
        noisy releases (nothing computed from the rows without noise).

    See Also
    --------
    skdpgen.model_selection.plan_search : Split a budget over a grid search.
    skdpgen.privacy.compose_reports : Compose the reports of fits after the fact.

    Notes
    -----
    The budget lives in a :mod:`contextvars` variable: it is seen by code
    that runs in the same thread, so a ``GridSearchCV`` inside it must run
    with ``n_jobs=1`` (joblib workers, threads or processes, would not see
    it; :func:`~skdpgen.model_selection.plan_search` refuses ``n_jobs > 1``,
    the private scorers refuse to run outside a budget, and the settings of
    a planned search are rechecked before every charge and at the block's
    end, see :meth:`add_guard`).

    A fit is charged its *planned* releases when its accountant is created,
    which may be more than it makes (a fit that stops early); the report
    lists what was made, so ``report().epsilon`` is at most the ε charged.

    Everything is composed as if every release read every record: a record
    is in the training folds of most fits and in one validation fold, and no
    saving from disjoint folds is claimed.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen import KernelMeanEmbedding, RandomFourierFeatures
    >>> from skdpgen.privacy import BudgetExceededError, PrivacyBudget
    >>> X = np.random.default_rng(0).uniform(-1, 1, size=(100, 2))
    >>> def kme(epsilon):
    ...     return KernelMeanEmbedding(features=RandomFourierFeatures(n_components=10,
    ...                                                               random_state=0),
    ...                                epsilon=epsilon, delta=1e-6)
    >>> with PrivacyBudget(epsilon=1.0, delta=1e-5) as budget:
    ...     _ = kme(0.7).fit(X)
    ...     _ = kme(0.7).fit(X)
    ...     try:
    ...         kme(0.7).fit(X)
    ...     except BudgetExceededError:
    ...         print("refused before any noise")
    ...     budget.reset_refusal()
    refused before any noise
    >>> report = budget.report()
    >>> report.n_releases, round(report.epsilon, 3), report.is_private
    (2, 0.887, True)
    """

    def __init__(self, epsilon, delta):
        self.epsilon, self.delta = check_epsilon_delta(
            epsilon, delta, allow_infinite=False, warn_infinite=False)
        self.charges = []
        self._accountants = []  # (label, accountant) in order
        self._leaks = []
        self._refused = None  # the first refusal's message
        self._guards = {}  # key -> guard (see add_guard)
        self._tokens = []
        self.cache = {}  # releases that later calls may reuse (the scorers' folds)

    # -- the block --------------------------------------------------------
    def __enter__(self):
        if _ACTIVE.get() is not None:
            raise RuntimeError("A PrivacyBudget is already active; budgets do not nest.")
        outer_ledger = _LEDGER.get()
        self._tokens.append((_ACTIVE.set(self), _LEDGER.set(self._leaks), outer_ledger))
        return self

    def __exit__(self, exc_type, exc, tb):
        active, ledger, outer = self._tokens.pop()
        _LEDGER.reset(ledger)
        _ACTIVE.reset(active)
        if outer is not None:
            outer.extend(leak for leak in self._leaks if leak not in outer)
        if exc_type is None:
            if self._refused is None:
                self._check_guards(at_exit=True)
            if self._refused is not None:
                raise BudgetExceededError(self._refused)
        return False

    # -- spending ---------------------------------------------------------
    def spent(self, extra=()):
        """ε at the budget's δ of everything charged (and of ``extra`` charges).

        Parameters
        ----------
        extra : iterable of Charge, default=()
            Charges to add hypothetically (a plan).

        Returns
        -------
        epsilon : float
        """
        return composed_epsilon(self.charges + list(extra), self.delta)

    def fits(self, extra):
        """Whether the charges so far and ``extra`` stay within the budget."""
        return self.spent(extra) <= self.epsilon * (1 + _TOLERANCE)

    def charge(self, accountant, label):
        """Charge an accountant's whole plan, or refuse before its noise.

        Called by :class:`~skdpgen.privacy.GaussianAccountant` when it is
        created inside the block; not meant to be called directly.

        Raises
        ------
        BudgetExceededError
            When the charge would exceed the budget, or the budget refused
            before.
        """
        charge = Charge.of(accountant, label)
        if self._refused is not None:
            raise BudgetExceededError(self._refused)
        self._check_guards(at_exit=False)
        if not math.isfinite(charge.precision):
            self._refused = (f"{label} makes releases without noise (epsilon=inf or None) "
                             "inside a PrivacyBudget; give it a finite epsilon.")
            raise BudgetExceededError(self._refused)
        if not self.fits([charge]):
            self._refused = (
                f"{label} would spend the budget past epsilon={self.epsilon:g}, "
                f"delta={self.delta:g} (already spent: epsilon={self.spent():.4g}; "
                f"with it: {self.spent([charge]):.4g}); nothing of it was released. "
                "Plan the whole search first with skdpgen.model_selection.plan_search.")
            raise BudgetExceededError(self._refused)
        self.charges.append(charge)
        self._accountants.append((label, accountant))

    def charged(self, accountant):
        """Whether ``accountant``'s plan was charged to this budget."""
        return any(a is accountant for _, a in self._accountants)

    def reset_refusal(self):
        """Forget a refusal, so that the block can go on with smaller releases.

        The only way to go on after a refusal. A guard that refused (see
        :meth:`add_guard`) refuses again at the next charge while what it
        checks still does not hold.
        """
        self._refused = None

    # -- guards -------------------------------------------------------------
    def add_guard(self, guard, *, key=None):
        """Recheck a plan before every later charge and when the block ends.

        :func:`~skdpgen.model_selection.plan_search` adds one per planned
        search, so that a search changed after planning (``n_jobs``, folds,
        grid, scorer, budgets) is refused when it runs instead of running
        unplanned.

        Parameters
        ----------
        guard : callable
            ``guard(budget, at_exit) -> str or None``: a message when what was
            planned no longer holds, None when it does. Called before each
            charge (``at_exit=False``) and when the block ends without an
            error (``at_exit=True``). A message is a refusal: the charge, or
            the block's end, raises :class:`BudgetExceededError` with it, and
            the budget refuses every later charge (see :meth:`charge`).
        key : hashable, default=None
            A guard added with the key of an earlier one replaces it (a
            search planned again); without a key it is never replaced.
            Guards hold for the rest of the budget's life.
        """
        self._guards[object() if key is None else key] = guard

    def _check_guards(self, at_exit):
        """Refuse, as :meth:`charge` does, when a guard says its plan fails."""
        for guard in list(self._guards.values()):
            message = guard(self, at_exit)
            if message is not None:
                self._refused = message
                raise BudgetExceededError(message)

    # -- what was spent -----------------------------------------------------
    def report(self):
        """Every release made inside the block, and what leaked, as one report.

        Each release's name is prefixed by the number of the fit or score
        that made it and by who made it (``"#3 DPHPSynthesizer.fit: sum
        kernel"``). ``epsilon`` is the exact composition of all of them at
        the budget's δ; ``is_private`` is False when anything leaked (a
        score or ``estimator.score`` read held-out rows without noise).

        Returns
        -------
        report : PrivacyReport
        """
        releases, selections, reproducible = [], [], False
        for k, (label, accountant) in enumerate(self._accountants, start=1):
            part = accountant.report()
            prefix = f"#{k} {label}: "
            releases += [GaussianRelease(prefix + r.name, r.sensitivity, r.noise_multiplier,
                                         r.count) for r in part.releases]
            selections += [(prefix + name, d, c) for name, d, c in part.selections]
            reproducible |= part.reproducible
        return PrivacyReport(releases, self.delta, budget=(self.epsilon, self.delta),
                             leaks=list(self._leaks), reproducible=reproducible,
                             selections=selections)

    def __repr__(self):
        return (f"PrivacyBudget(epsilon={self.epsilon:g}, delta={self.delta:g}; "
                f"{len(self.charges)} charges, spent epsilon={self.spent():.4g})")


def active_budget():
    """The :class:`PrivacyBudget` whose block is running, or None.

    Returns
    -------
    budget : PrivacyBudget or None

    Examples
    --------
    >>> from skdpgen.privacy import PrivacyBudget, active_budget
    >>> active_budget() is None
    True
    >>> with PrivacyBudget(1.0, 1e-5) as budget:
    ...     active_budget() is budget
    True
    """
    return _ACTIVE.get()


def charge_active_budget(accountant, label):
    """Charge ``accountant`` to the active budget or plan, if any (see
    :meth:`PrivacyBudget.charge`). Raises :class:`_Planned` inside a plan."""
    planning = _PLANNING.get()
    if planning is not None:
        planning.append(Charge.of(accountant, label))
        raise _Planned()
    budget = _ACTIVE.get()
    if budget is not None:
        budget.charge(accountant, label)


class _Planned(BaseException):
    """Stops a fit at its accountant's creation, inside :func:`planning` (a
    BaseException, so that no ``except Exception`` on the way swallows it)."""


class planning:
    """Collect the charges of the fits run inside, which stop before any noise.

    Every :class:`~skdpgen.privacy.GaussianAccountant` created inside the
    block appends its :class:`Charge` to ``charges`` and raises
    :class:`_Planned`, which ends the fit before it reads its statistics or
    draws noise (the estimator is left as it was). Used by
    :func:`skdpgen.model_selection.plan_search`.

    Attributes
    ----------
    charges : list of Charge
        One per accountant created inside the block, in order.

    Examples
    --------
    >>> from skdpgen.privacy import GaussianAccountant, planning
    >>> with planning() as plan:
    ...     GaussianAccountant(1.0, 1e-5, {"mean": (1.0, 1)})
    ...     print("not reached")
    >>> len(plan.charges)
    1
    """

    def __init__(self):
        self.charges = []

    def __enter__(self):
        self._token = _PLANNING.set(self.charges)
        return self

    def __exit__(self, exc_type, exc, tb):
        _PLANNING.reset(self._token)
        return exc_type is not None and issubclass(exc_type, _Planned)


def score_without_noise(who):
    """Record, in the active budget, a score that read held-out rows without noise.

    Inside a :class:`PrivacyBudget` block, adds a :class:`PrivacyLeak` to
    its report (``is_private`` becomes False) and warns; outside, does
    nothing: the estimators' ``score`` and the scorers without noise are
    data-holder diagnostics, and their docstrings say so.

    Parameters
    ----------
    who : str
        What scored (``"DPHPSynthesizer.score"``, ``"neg_mmd2_scorer"``).
    """
    if _ACTIVE.get() is not None:
        record_leak("score", (
            f"{who} read the held-out rows without noise: a data-holder diagnostic that no "
            "budget covers. Score a private search with "
            "skdpgen.evaluation.private_neg_mmd2_scorer or private_accuracy_scorer."))
