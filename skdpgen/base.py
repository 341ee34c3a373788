"""The one fit skeleton of every skdpgen estimator.

A fit validates the hyperparameters, runs all or nothing (a failure leaves
the estimator exactly as it was), and collects every leak recorded while it
runs. A private fit also resolves its (ε, δ) budget — the ``epsilon`` and
``delta`` passed to ``fit``, else the constructor's — and ends with the
``privacy_report_`` of the releases it made and of what leaked.

Contributors write ``_fit_private(X, y, budget)`` (estimators that release
something) or ``_fit(X)`` (feature maps); the skeleton does the rest.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import contextlib
import inspect
import math

from sklearn.base import BaseEstimator

from .privacy import GaussianAccountant, check_epsilon_delta, leak_ledger

__all__ = ["FitBudget", "PrivateEstimator", "estimator_init", "fit_skeleton"]


def estimator_init(**defaults):
    """An ``__init__`` that only stores keyword-only hyperparameters.

    scikit-learn reads an estimator's hyperparameters from the signature of
    its ``__init__``. Estimators that share many of them (the synthesizer
    presets) build theirs from one table of defaults instead of copying a
    long signature: the returned function has exactly the signature
    ``(self, *, name=default, ...)`` (so ``get_params``, ``clone`` and
    ``set_params`` work as usual), rejects unknown names with ``TypeError``,
    and stores every value unchanged.

    Parameters
    ----------
    **defaults
        ``name=default`` for every hyperparameter, in signature order.

    Returns
    -------
    __init__ : function

    Examples
    --------
    >>> from sklearn.base import BaseEstimator
    >>> from skdpgen.base import estimator_init
    >>> class Toy(BaseEstimator):
    ...     __init__ = estimator_init(alpha=1.0, beta="x")
    >>> Toy(beta="y").get_params()
    {'alpha': 1.0, 'beta': 'y'}
    """
    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    params += [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=value)
               for name, value in defaults.items()]
    signature = inspect.Signature(params)

    def __init__(self, **kwargs):
        bound = signature.bind(self, **kwargs)
        bound.apply_defaults()
        for name, value in list(bound.arguments.items())[1:]:
            setattr(self, name, value)

    __init__.__signature__ = signature
    __init__.__doc__ = "Store the hyperparameters (see the class docstring)."
    return __init__


@contextlib.contextmanager
def fit_skeleton(estimator):
    """Run a fit's body with validated parameters, all or nothing, leaks collected.

    On an exception every attribute of ``estimator`` is restored: an
    unfitted object stays unfitted, a fitted one keeps its previous fit.

    Parameters
    ----------
    estimator : BaseEstimator

    Yields
    ------
    leaks : list of PrivacyLeak
        The leaks recorded while the body runs (see
        :func:`skdpgen.privacy.leak_ledger`).
    """
    estimator._validate_params()
    before = dict(vars(estimator))
    try:
        with leak_ledger() as leaks:
            yield leaks
    except BaseException:
        vars(estimator).clear()
        vars(estimator).update(before)
        raise


class FitBudget:
    """The (ε, δ) of one fit, and the accountant that spends it.

    Parameters
    ----------
    epsilon : float
        ε of the fit; ``inf`` for a non-private fit (no noise).
    delta : float
    label : str, default=None
        Who fits (``"DPHPSynthesizer.fit"``), for the report of a
        :class:`~skdpgen.privacy.PrivacyBudget`.

    Attributes
    ----------
    epsilon, delta : float
    accountant : GaussianAccountant or None
        Created by :meth:`plan`.
    """

    def __init__(self, epsilon, delta, *, label=None):
        self.epsilon = epsilon
        self.delta = delta
        self.label = label
        self.accountant = None

    @property
    def private(self):
        """Whether the fit adds noise (finite ε)."""
        return math.isfinite(self.epsilon)

    def plan(self, shares, *, selections=()):
        """Split the budget over the planned releases (once per fit).

        Parameters
        ----------
        shares : dict
            ``name -> share`` or ``name -> (share, count)`` (see
            :class:`~skdpgen.privacy.GaussianAccountant`).
        selections : iterable of str, default=()
            The planned releases that are partition selections (they reserve
            part of δ for their thresholds).

        Returns
        -------
        accountant : GaussianAccountant
        """
        if self.accountant is not None:
            raise RuntimeError("The budget of this fit was already planned.")
        self.accountant = GaussianAccountant(self.epsilon, self.delta, shares,
                                             selections=selections, label=self.label)
        return self.accountant


class PrivateEstimator(BaseEstimator):
    """Base of the estimators that release something about private data.

    ``fit`` is the one skeleton: parameters validated, budget resolved,
    ``_fit_private(X, y, budget)`` run all or nothing, then
    ``privacy_report_`` (releases and leaks), ``epsilon_`` and ``delta_``
    set. Subclasses implement ``_fit_private``, which plans its releases with
    ``budget.plan(shares)`` and makes them with the returned accountant.

    Subclasses whose ``epsilon`` may be None (a non-private fit) set
    ``_epsilon_optional = True``.
    """

    _epsilon_optional = False

    def fit(self, X, y=None, *, epsilon=None, delta=None):
        """Fit on the private data, spending the (ε, δ) budget.

        Parameters
        ----------
        X : array-like, DataFrame, Dask array or Dask DataFrame of shape (n_samples, n_features)
            The private data.
        y : array-like of shape (n_samples,), default=None
            Class labels, where the estimator uses them.
        epsilon, delta : float, default=None
            Budget of this fit; override the constructor's values (which are
            left unchanged). The values used are stored as ``epsilon_`` and
            ``delta_``.

        Returns
        -------
        self : object
        """
        with fit_skeleton(self) as leaks:
            epsilon = self.epsilon if epsilon is None else epsilon
            delta = self.delta if delta is None else delta
            if epsilon is None and self._epsilon_optional:
                epsilon, delta = math.inf, check_epsilon_delta(1.0, delta)[1]
            else:
                epsilon, delta = check_epsilon_delta(epsilon, delta)
            budget = FitBudget(epsilon, delta, label=f"{type(self).__name__}.fit")
            self._fit_private(X, y, budget)
            if budget.accountant is None:  # pragma: no cover - a subclass's mistake
                raise RuntimeError(f"{type(self).__name__} released nothing through its budget.")
            self.privacy_report_ = budget.accountant.report(leaks)
            self.epsilon_, self.delta_ = epsilon, delta
        return self

    def _fit_private(self, X, y, budget):  # pragma: no cover - the one method to write
        raise NotImplementedError
