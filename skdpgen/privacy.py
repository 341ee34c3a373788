"""Privacy accounting: Gaussian-mechanism calibration, budget splits and reports.

Every noisy quantity that skdpgen releases is a Gaussian mechanism: a statistic
with replace-one L2 sensitivity ``Δ`` plus ``N(0, (σΔ)² I)`` noise, where ``σ``
is the *noise multiplier*. This module is the only place where noise
multipliers are calibrated, and it keeps the books of what each fit spent.

Accounting is exact. A composition of Gaussian mechanisms with noise
multipliers ``σ_1, …, σ_k`` is itself a Gaussian mechanism with
``1/σ_eff² = Σ_i 1/σ_i²`` (Dong, Roth & Su 2019), and the (ε, δ) curve of a
single Gaussian mechanism is the analytic one of Balle & Wang (2018). Both are
computed with autodp's ``ExactGaussianMechanism`` and ``ComposeGaussian``.
Neither the RDP-based ``autodp.privacy_calibrator.gaussian_mech`` (about 30 %
more noise for the same guarantee) nor autodp's generic RDP ``Composition`` is
used.

**Where the noise comes from.** Every noise vector is drawn here, in
:func:`GaussianAccountant.add_noise`, from a NumPy generator seeded with 128
bits of fresh operating-system entropy (:mod:`secrets`) at each release. No
``random_state`` reaches it: a fixed ``random_state`` makes a fit's *public*
random choices reproducible (frequencies, points, column draws, generator
initialization), never its noise. Reproducible noise, for tests and
debugging only, exists inside :func:`reproducible_noise`, and every release
made there says that it is not private.

**Leaks on the record.** A value read from the private data without noise (a
bound, a category or class list, a feature map fitted on the rows) is
reported with :func:`record_leak`: it raises a :class:`PrivacyLeakWarning`
and is written into the :class:`PrivacyReport` of the fit under way
(:func:`leak_ledger`), so ``report.leaks`` and ``report.is_private`` tell the
truth even when every warning is filtered.

autodp 0.2.3.1 has two quirks that this module contains so that no other module
touches autodp: importing ``autodp.privacy_calibrator`` before
``autodp.rdp_acct`` raises a circular ``ImportError`` (we import ``rdp_acct``
first and never need the calibrator module), and its numerical routines emit
scipy ``RuntimeWarning`` floods (silenced around each call here).
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import contextlib
import contextvars
import functools
import math
import numbers
import os
import secrets
import sys
import warnings
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

__all__ = [
    "PrivacyLeakWarning",
    "PrivacyLeak",
    "GaussianRelease",
    "PrivacyReport",
    "GaussianAccountant",
    "calibrate_gaussian",
    "gaussian_epsilon",
    "selection_threshold",
    "compose_reports",
    "check_epsilon_delta",
    "leak_ledger",
    "record_leak",
    "reproducible_noise",
]


class PrivacyLeakWarning(RuntimeWarning):
    """Something data-dependent leaves a fit without differential privacy.

    Raised (as a warning, always shown) when a fitted object takes a value
    from the private data without noise: a bound, a category or class list,
    a length scale. The message says what leaked and which parameter makes it
    public instead.
    """


# Always shown by default; appended, so that filters the user set first (e.g.
# ``-W error`` or ``simplefilter("error", PrivacyLeakWarning)``) still win.
warnings.simplefilter("always", PrivacyLeakWarning, append=True)

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _outside_stacklevel():
    """The ``stacklevel`` of the first frame outside skdpgen, for :func:`warnings.warn`.

    Called by the function that warns: its warnings then point at the line
    of the user's code that led there (``fit(...)``, ``estimate_schema(...)``),
    not at a line inside the package, however deep the call. When every
    frame is skdpgen's (the command line), the outermost one.
    """
    frame, level = sys._getframe(2), 2  # the caller of the function that warns
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    return level


@dataclass(frozen=True)
class PrivacyLeak:
    """One value that left a fit without differential privacy.

    Parameters
    ----------
    what : str
        The kind of value: ``"bounds"``, ``"categories"``, ``"classes"``,
        ``"feature map"``, ``"reproducible noise"``.
    column : str, int or None
        The column it belongs to, if any.
    why : str
        The full explanation (the text of the warning), with the parameter
        that makes the value public instead.
    """

    what: str
    column: object
    why: str

    def to_dict(self):
        """``{"what", "column", "why"}``, JSON-serializable."""
        column = self.column
        if column is not None and not isinstance(column, (str, int)):
            column = int(column) if isinstance(column, numbers.Integral) else str(column)
        return {"what": self.what, "column": column, "why": self.why}

    def __str__(self):
        where = "" if self.column is None else f" of column {self.column!r}"
        return f"{self.what}{where}: {self.why}"


# The leaks of the fit under way (a list), or None outside any fit.
_LEDGER = contextvars.ContextVar("skdpgen_leak_ledger", default=None)
# The seed of reproducible_noise, or None (fresh OS entropy).
_NOISE_SEED = contextvars.ContextVar("skdpgen_noise_seed", default=None)


@contextlib.contextmanager
def leak_ledger():
    """Collect the leaks recorded while the block runs.

    Every fit opens one; a ledger opened inside another (an encoder fitted
    inside a synthesizer's fit) passes its leaks on to the outer one when it
    closes, so the outer report lists them too.

    Yields
    ------
    leaks : list of PrivacyLeak
        Filled while the block runs.

    Examples
    --------
    >>> import warnings
    >>> from skdpgen.privacy import leak_ledger, record_leak
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     with leak_ledger() as leaks:
    ...         _ = record_leak("bounds", "read from the rows", column="age")
    >>> [leak.what for leak in leaks]
    ['bounds']
    """
    leaks = []
    token = _LEDGER.set(leaks)
    try:
        yield leaks
    finally:
        _LEDGER.reset(token)
        outer = _LEDGER.get()
        if outer is not None:
            outer.extend(leak for leak in leaks if leak not in outer)


def record_leak(what, why, *, column=None, stacklevel=None):
    """Record that a value was read from the private data without noise.

    Adds a :class:`PrivacyLeak` to the ledger of the fit under way (see
    :func:`leak_ledger`), whatever the warning filters, and raises a
    :class:`PrivacyLeakWarning` with ``why`` as its message.

    Parameters
    ----------
    what : str
        The kind of value (``"bounds"``, ``"categories"``, ``"classes"``, …).
    why : str
        What leaked and which parameter makes it public instead.
    column : str, int or None, default=None
        The column concerned.
    stacklevel : int, default=None
        Passed to :func:`warnings.warn` (counted from the caller). None:
        the first frame outside skdpgen (the user's line that led here).

    Returns
    -------
    leak : PrivacyLeak
    """
    leak = PrivacyLeak(what, column, why)
    ledger = _LEDGER.get()
    if ledger is not None and leak not in ledger:
        ledger.append(leak)
    if stacklevel is None:
        stacklevel = _outside_stacklevel() - 1
    warnings.warn(why, PrivacyLeakWarning, stacklevel=stacklevel + 1)
    return leak


@contextlib.contextmanager
def reproducible_noise(seed):
    """Draw the privacy noise from ``seed``: for tests and debugging only.

    Inside the block, every :class:`GaussianAccountant` created draws its
    noise from ``numpy.random.default_rng(seed)`` (one stream per accountant,
    so two fits of the same estimator on the same data are identical). Anyone
    who knows or guesses the seed can subtract the noise, so nothing released
    inside is private: each release raises a :class:`PrivacyLeakWarning` and
    its report has ``is_private == False``.

    Outside this block the noise comes from fresh operating-system entropy
    at every release, and no ``random_state`` changes that.

    Parameters
    ----------
    seed : int
        Seed of the noise.

    Examples
    --------
    >>> import warnings
    >>> from skdpgen.privacy import GaussianAccountant, reproducible_noise
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     with reproducible_noise(0):
    ...         acc = GaussianAccountant(1.0, 1e-5, {"mean": 1.0})
    ...         noisy = acc.add_noise("mean", [0.0], sensitivity=1.0)
    >>> acc.report().is_private
    False
    """
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}.")
    token = _NOISE_SEED.set(int(seed))
    try:
        yield
    finally:
        _NOISE_SEED.reset(token)


def _fresh_generator():
    """A generator seeded with 128 bits of OS entropy, used for one release."""
    return np.random.Generator(np.random.PCG64(secrets.randbits(128)))


def _gaussian_noise(rng, std, shape):
    """``N(0, std² I)`` of ``shape``: the one place noise is drawn."""
    return rng.normal(0.0, std, size=shape)


def _autodp():
    """Import autodp's exact Gaussian machinery in the one safe order."""
    from autodp import rdp_acct  # noqa: F401  (must come first, see module doc)
    from autodp import dp_bank, mechanism_zoo, transformer_zoo

    return dp_bank, mechanism_zoo, transformer_zoo


@contextlib.contextmanager
def _silenced():
    """Silence the numerical warnings autodp's routines emit."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def check_epsilon_delta(epsilon, delta, *, allow_infinite=True, warn_infinite=True):
    """Validate a privacy budget.

    Parameters
    ----------
    epsilon : float
        Must be > 0; ``np.inf`` means "no privacy" (no noise) when
        ``allow_infinite``.
    delta : float
        Must lie in the open interval (0, 1).
    allow_infinite : bool, default=True
        Whether ``epsilon=np.inf`` is accepted.
    warn_infinite : bool, default=True
        Whether an accepted ``epsilon=np.inf`` raises a
        :class:`PrivacyLeakWarning` (the release is then exact).

    Returns
    -------
    epsilon, delta : float
        The validated values as Python floats.

    Examples
    --------
    >>> from skdpgen.privacy import check_epsilon_delta
    >>> check_epsilon_delta(1, 1e-5)
    (1.0, 1e-05)
    """
    if isinstance(epsilon, bool) or not isinstance(epsilon, numbers.Real):
        raise TypeError(f"epsilon must be a real number, got {epsilon!r}.")
    if isinstance(delta, bool) or not isinstance(delta, numbers.Real):
        raise TypeError(f"delta must be a real number, got {delta!r}.")
    epsilon, delta = float(epsilon), float(delta)
    if math.isnan(epsilon) or epsilon <= 0:
        raise ValueError(f"epsilon must be > 0, got {epsilon}.")
    if math.isinf(epsilon) and not allow_infinite:
        raise ValueError("epsilon must be finite.")
    if not 0.0 < delta < 1.0:
        raise ValueError(f"delta must lie in the open interval (0, 1), got {delta}.")
    if math.isinf(epsilon) and warn_infinite:
        warnings.warn(
            "epsilon=inf: the data are released without noise, so nothing of this "
            "fit is differentially private. Pass a finite epsilon for a private release.",
            PrivacyLeakWarning,
            stacklevel=_outside_stacklevel(),
        )
    return epsilon, delta


def gaussian_epsilon(noise_multiplier, delta):
    """Exact ε of a Gaussian mechanism at a given δ.

    Parameters
    ----------
    noise_multiplier : float
        Noise standard deviation divided by the L2 sensitivity (σ). ``0``
        means no noise (ε = inf); ``inf`` means nothing released (ε = 0).
    delta : float
        Target δ in (0, 1).

    Returns
    -------
    epsilon : float
        The smallest ε for which the mechanism is (ε, δ)-DP (analytic
        Gaussian mechanism, Balle & Wang 2018, via autodp).

    Examples
    --------
    >>> from skdpgen.privacy import gaussian_epsilon
    >>> round(gaussian_epsilon(3.7306, 1e-5), 4)
    1.0
    """
    sigma = float(noise_multiplier)
    if sigma <= 0:
        return math.inf
    if math.isinf(sigma):
        return 0.0
    _, mechanism_zoo, _ = _autodp()
    with _silenced():
        eps = mechanism_zoo.ExactGaussianMechanism(sigma=sigma).get_approxDP(delta)
    return float(eps)


def _selection_epsilon(delta_each):
    """``ln(1/(1 − δ_each))``: what one selection's threshold adds to ε."""
    return -math.log1p(-delta_each)


def selection_threshold(noise_std, delta_each):
    """The threshold of a Gaussian partition selection, in rows.

    A key is kept when its noisy count exceeds ``τ = 1 + s·Φ⁻¹(1 − δ_each)``
    (see :meth:`GaussianAccountant.select`): a key held by one record alone
    passes with probability ``δ_each``, and a key held by ``τ + k·s`` rows
    is kept with probability ``Φ(k)``. It depends on public quantities only.

    Parameters
    ----------
    noise_std : float
        Standard deviation ``s`` of the noise on each count (the release's
        noise multiplier times its sensitivity ``sqrt(2)``).
    delta_each : float
        The δ of the threshold, in (0, 1).

    Returns
    -------
    threshold : float
        ``τ``; 1 when ``noise_std`` is 0 (ε = ∞: every present key is kept).

    Examples
    --------
    >>> from skdpgen.privacy import selection_threshold
    >>> round(selection_threshold(53.07, 1e-5 / 6), 1)
    247.7
    """
    if not 0 < delta_each < 1:
        raise ValueError(f"delta_each must be in (0, 1), got {delta_each!r}.")
    if not noise_std >= 0:  # NaN fails too
        raise ValueError(f"noise_std must be a number >= 0, got {noise_std!r}.")
    if noise_std == 0:
        return 1.0
    from scipy.stats import norm

    return 1.0 + float(noise_std) * float(norm.isf(delta_each))


def _log_delta(sigma, epsilon):
    dp_bank, _, _ = _autodp()
    with _silenced():
        return float(dp_bank.get_logdelta_ana_gaussian(sigma, epsilon))


def calibrate_gaussian(epsilon, delta):
    """Smallest noise multiplier σ of an (ε, δ)-DP Gaussian mechanism.

    Solves the analytic Gaussian mechanism's exact condition (Balle & Wang
    2018) ``Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ) = δ`` for σ with a
    bracketing root finder on autodp's log δ(σ, ε), then rounds σ up by a
    relative 1e-9 so that the guarantee holds despite the solver tolerance.

    Parameters
    ----------
    epsilon : float
        Target ε > 0; ``np.inf`` returns 0 (no noise).
    delta : float
        Target δ in (0, 1).

    Returns
    -------
    noise_multiplier : float
        σ: add ``N(0, (σΔ)²)`` noise to a statistic of L2 sensitivity Δ.

    Examples
    --------
    >>> from skdpgen.privacy import calibrate_gaussian
    >>> round(calibrate_gaussian(1.0, 1e-5), 4)
    3.7306
    """
    return _calibrate_gaussian(*check_epsilon_delta(epsilon, delta, warn_infinite=False))


@functools.lru_cache(maxsize=256)
def _calibrate_gaussian(epsilon, delta):
    if math.isinf(epsilon):
        return 0.0
    target = math.log(delta)

    def gap(log_sigma):
        return _log_delta(math.exp(log_sigma), epsilon) - target

    lo, hi = math.log(1e-3), math.log(10.0)
    while gap(lo) < 0:  # δ(σ) decreases in σ: need gap(lo) > 0
        lo -= 2.0
    while gap(hi) > 0:
        hi += 2.0
    log_sigma = brentq(gap, lo, hi, xtol=1e-14, rtol=1e-14, maxiter=500)
    sigma = math.exp(log_sigma) * (1.0 + 1e-9)
    if _log_delta(sigma, epsilon) > target:  # pragma: no cover - defensive
        raise RuntimeError("Gaussian calibration failed to meet the target δ.")
    return sigma


@dataclass(frozen=True)
class GaussianRelease:
    """One group of Gaussian-mechanism releases in a privacy report.

    Parameters
    ----------
    name : str
        What was released (e.g. ``"mean embedding"``).
    sensitivity : float
        Replace-one L2 sensitivity Δ of each released statistic.
    noise_multiplier : float
        σ: the noise standard deviation is ``σ·Δ`` per coordinate.
    count : int, default=1
        How many independent releases of this kind were made.
    """

    name: str
    sensitivity: float
    noise_multiplier: float
    count: int = 1

    def __post_init__(self):
        # a report must never understate what was spent: no NaN, nothing negative
        for field_name in ("sensitivity", "noise_multiplier"):
            value = getattr(self, field_name)
            if not isinstance(value, numbers.Real) or math.isnan(value) or value < 0:
                raise ValueError(f"{field_name} must be a number >= 0, got {value!r}.")
        if (isinstance(self.count, bool) or not isinstance(self.count, numbers.Integral)
                or self.count < 0):
            raise ValueError(f"count must be an integer >= 0, got {self.count!r}.")

    @property
    def noise_std(self):
        """Standard deviation of the added noise, ``σ·Δ``."""
        return self.sensitivity * self.noise_multiplier

    @property
    def precision(self):
        """``count / σ²``: this group's share of the composed Gaussian."""
        if self.count == 0:
            return 0.0
        if self.noise_multiplier == 0:
            return math.inf
        return self.count / self.noise_multiplier**2


class PrivacyReport:
    """What a fit (or several fits) spent, release by release, and what leaked.

    The composition of the listed Gaussian mechanisms is a Gaussian mechanism
    with noise multiplier ``σ_eff = (Σ count_i/σ_i²)^(-1/2)``; ``epsilon`` is
    its exact ε at ``delta``. That ε covers only the listed releases: values
    in ``leaks`` were read from the data without noise and are covered by no
    guarantee, which ``is_private`` says.

    Parameters
    ----------
    releases : sequence of GaussianRelease
        The releases made.
    delta : float
        The δ at which ε is reported.
    budget : tuple of (float, float), default=None
        The (ε, δ) the releases were calibrated for, if any.
    leaks : sequence of PrivacyLeak, default=()
        Values read from the private data without noise.
    reproducible : bool, default=False
        Whether the noise was drawn inside :func:`reproducible_noise` (then
        it can be subtracted by anyone who knows the seed).
    selections : sequence of (str, float, int), default=()
        Partition selections made (see :meth:`GaussianAccountant.select`):
        ``(name, δ of each, count)``. Their noisy counts are among
        ``releases``; their thresholds spend ``δ`` on top, and each adds
        ``ln(1/(1 − δ_each)) ≈ δ_each`` to ε (see
        :meth:`GaussianAccountant.select`), so ``epsilon`` is that of the
        Gaussian composition at ``delta − selection_delta`` plus
        ``selection_epsilon``.

    Attributes
    ----------
    releases : tuple of GaussianRelease
    delta : float
    budget : tuple or None
    leaks : tuple of PrivacyLeak
    reproducible : bool
    selections : tuple of (str, float, int)

    Examples
    --------
    >>> from skdpgen.privacy import GaussianRelease, PrivacyReport
    >>> report = PrivacyReport([GaussianRelease("mean", 0.02, 3.7306)], delta=1e-5)
    >>> round(report.epsilon, 3)
    1.0
    >>> report.is_private
    True
    """

    def __init__(self, releases, delta, *, budget=None, leaks=(), reproducible=False,
                 selections=()):
        self.releases = tuple(releases)
        self.delta = float(delta)
        self.budget = budget
        self.leaks = tuple(leaks)
        self.reproducible = bool(reproducible)
        self.selections = tuple((str(n), float(d), int(c)) for n, d, c in selections)

    @property
    def selection_delta(self):
        """δ spent by the thresholds of partition selections (0 without any)."""
        return sum(d * c for _, d, c in self.selections)

    @property
    def selection_epsilon(self):
        """ε added by the thresholds of partition selections: ``ln(1/(1 − δ_each))``
        each (0 without any)."""
        return sum(c * _selection_epsilon(d) for _, d, c in self.selections)

    @property
    def selection_thresholds(self):
        """``name -> threshold in rows`` of each partition selection.

        A value survives a selection when its noisy count exceeds the
        threshold (:func:`selection_threshold`; one held by fewer rows
        rarely does); None where the report holds releases of that name at
        several noise levels (reports of several fits composed).
        """
        out = {}
        for name, d, _ in self.selections:
            stds = {r.noise_std for r in self.releases
                    if r.name == name and math.isclose(r.sensitivity, math.sqrt(2.0))}
            out[name] = selection_threshold(stds.pop(), d) if len(stds) == 1 else None
        return out

    @property
    def noise_multiplier(self):
        """σ_eff of the composed Gaussian mechanism (inf if nothing released)."""
        precision = sum(r.precision for r in self.releases)
        if precision == 0:
            return math.inf
        return 1.0 / math.sqrt(precision)

    @property
    def epsilon(self):
        """Exact ε of the whole composition at ``delta``.

        The Gaussian releases are composed exactly and read at
        ``delta − selection_delta``; the thresholds of partition selections
        spend the rest of ``delta`` and add ``selection_epsilon``.
        """
        gaussian_delta = self.delta - self.selection_delta
        if gaussian_delta <= 0:
            return math.inf
        return gaussian_epsilon(self.noise_multiplier, gaussian_delta) + self.selection_epsilon

    @property
    def is_private(self):
        """Whether the (ε, δ) claim covers everything the fit released.

        False when anything leaked (``leaks``), when the noise was
        reproducible, or when ε is infinite (no noise).
        """
        return not self.leaks and not self.reproducible and math.isfinite(self.epsilon)

    @property
    def n_releases(self):
        """Total number of individual releases."""
        return sum(r.count for r in self.releases)

    def _problems(self):
        """One line for each reason the report is not private."""
        lines = [f"LEAK: {leak}" for leak in self.leaks]
        if self.reproducible:
            lines.append(
                "REPRODUCIBLE NOISE: the noise was drawn inside reproducible_noise(); "
                "anyone who knows the seed can remove it."
            )
        if not math.isfinite(self.epsilon):
            lines.append("NO NOISE: epsilon is infinite; the releases are exact.")
        return lines

    def to_dict(self):
        """A JSON-serializable summary: privacy status, total ε, δ, leaks, releases.

        Returns
        -------
        report : dict
            ``is_private`` and ``leaks`` come first.
        """
        eps = self.epsilon
        return {
            "is_private": self.is_private,
            "leaks": [leak.to_dict() for leak in self.leaks],
            "reproducible_noise": self.reproducible,
            "epsilon": eps if math.isfinite(eps) else "inf",
            "delta": self.delta,
            "noise_multiplier": self.noise_multiplier,
            "budget": None
            if self.budget is None
            else [b if math.isfinite(b) else "inf" for b in self.budget],
            "selections": [
                {"release": n, "count": c, "delta_each": d,
                 "epsilon_each": _selection_epsilon(d),
                 "threshold_rows": self.selection_thresholds[n]}
                for n, d, c in self.selections
            ],
            "releases": [
                {
                    "release": r.name,
                    "count": r.count,
                    "sensitivity": r.sensitivity,
                    "noise_multiplier": r.noise_multiplier,
                    "noise_std": r.noise_std,
                }
                for r in self.releases
            ],
        }

    @classmethod
    def from_dict(cls, data):
        """The report that :meth:`to_dict` describes (e.g. a CLI ``*.privacy.json``).

        For composing the reports of separate runs, such as a schema
        estimated with ``skdpgen schema`` and the fits that reuse it.

        Parameters
        ----------
        data : dict
            The output of :meth:`to_dict` (or its JSON, loaded).

        Returns
        -------
        report : PrivacyReport
            The same releases, δ, budget, leaks, selections and
            reproducibility; its ``epsilon`` is recomputed from them.

        Examples
        --------
        >>> import json
        >>> from skdpgen.privacy import GaussianRelease, PrivacyReport, compose_reports
        >>> schema = PrivacyReport([GaussianRelease("schema: numeric", 1.7, 40.0)], delta=1e-5)
        >>> fit = PrivacyReport([GaussianRelease("sum kernel", 0.001, 0.01)], delta=1e-5)
        >>> saved = json.loads(json.dumps(schema.to_dict()))  # a *.privacy.json file
        >>> total = compose_reports([PrivacyReport.from_dict(saved), fit])
        >>> total.epsilon > fit.epsilon
        True
        """

        def number(value):
            return math.inf if value == "inf" else float(value)

        releases = [GaussianRelease(r["release"], number(r["sensitivity"]),
                                    number(r["noise_multiplier"]), int(r["count"]))
                    for r in data["releases"]]
        leaks = [PrivacyLeak(leak["what"], leak.get("column"), leak["why"])
                 for leak in data.get("leaks", [])]
        budget = data.get("budget")
        selections = [(s["release"], float(s["delta_each"]), int(s["count"]))
                      for s in data.get("selections", [])]
        return cls(releases, float(data["delta"]),
                   budget=None if budget is None else tuple(number(b) for b in budget),
                   leaks=leaks, reproducible=bool(data.get("reproducible_noise", False)),
                   selections=selections)

    def to_frame(self):
        """The releases and the leaks as a pandas DataFrame, one row each.

        Returns
        -------
        frame : pandas.DataFrame
            Columns ``kind`` (``"gaussian"`` for a group of noisy releases,
            ``"leak"`` for a value read without noise), ``release``,
            ``count``, ``sensitivity``, ``noise_multiplier``, ``noise_std``,
            ``epsilon_alone`` (ε of the group on its own at ``delta``; inf
            for a leak) and ``share`` (the group's share of the composed
            Gaussian's precision). Leak rows come first.
        """
        import pandas as pd

        total = sum(r.precision for r in self.releases)
        rows = [
            {
                "kind": "leak",
                "release": f"{leak.what}" + ("" if leak.column is None else f" of {leak.column!r}"),
                "count": 1,
                "sensitivity": math.nan,
                "noise_multiplier": 0.0,
                "noise_std": 0.0,
                "epsilon_alone": math.inf,
                "share": math.nan,
            }
            for leak in self.leaks
        ]
        for r in self.releases:
            group_sigma = math.inf if r.precision == 0 else (
                0.0 if math.isinf(r.precision) else 1 / math.sqrt(r.precision)
            )
            share = (
                float("nan")
                if total == 0 or math.isinf(total)
                else r.precision / total
            )
            rows.append(
                {
                    "kind": "gaussian",
                    "release": r.name,
                    "count": r.count,
                    "sensitivity": r.sensitivity,
                    "noise_multiplier": r.noise_multiplier,
                    "noise_std": r.noise_std,
                    "epsilon_alone": gaussian_epsilon(group_sigma, self.delta),
                    "share": share,
                }
            )
        columns = ["kind", "release", "count", "sensitivity", "noise_multiplier",
                   "noise_std", "epsilon_alone", "share"]
        return pd.DataFrame(rows, columns=columns)

    def __str__(self):
        lines = []
        problems = self._problems()
        if problems:
            lines.append("NOT PRIVATE: the (epsilon, delta) below does not cover this fit.")
            lines.extend(f"  {p}" for p in problems)
        lines.append("Privacy report (Gaussian mechanisms, exact composition)")
        header = f"  {'release':<28} {'count':>6} {'sensitivity':>12} {'sigma':>10} {'noise std':>11} {'share':>6}"
        lines.append(header)
        for row in self.to_frame().itertuples(index=False):
            if row.kind != "gaussian":
                continue
            lines.append(
                f"  {row.release:<28} {row.count:>6d} {row.sensitivity:>12.4g} "
                f"{row.noise_multiplier:>10.4g} {row.noise_std:>11.4g} {row.share:>6.3f}"
            )
        lines.append(
            f"  total: epsilon = {self.epsilon:.4g}, delta = {self.delta:.3g} "
            f"(composed sigma = {self.noise_multiplier:.4g})"
        )
        thresholds = self.selection_thresholds
        for name, d, c in self.selections:
            at = "" if thresholds[name] is None else f" at {thresholds[name]:.4g} rows"
            lines.append(
                f"  partition selection {name!r}: {c} threshold(s){at}, delta {d:.3g} "
                f"(epsilon {_selection_epsilon(d):.3g}) each")
        if self.budget is not None:
            lines.append(f"  budget: epsilon = {self.budget[0]:.4g}, delta = {self.budget[1]:.3g}")
        lines.append(f"  private: {'yes' if self.is_private else 'NO'}")
        return "\n".join(lines)

    def __repr__(self):
        return (
            f"PrivacyReport(epsilon={self.epsilon:.6g}, delta={self.delta:.3g}, "
            f"n_releases={self.n_releases}, is_private={self.is_private})"
        )

    def __add__(self, other):
        return compose_reports([self, other])


def compose_reports(reports, *, delta=None):
    """Total privacy cost of several fits on the same private data.

    A grid search of ``k`` fits, or any sequence of fits, spends the
    composition of every release of every fit. Because all releases are
    Gaussian, the composition is exact; the thresholds of partition
    selections add their δ and ε terms (``selection_delta``,
    ``selection_epsilon``) on top. The leaks of all reports are kept
    (each once), and the total is reproducible if any part was.

    Parameters
    ----------
    reports : iterable of PrivacyReport
        The ``privacy_report_`` of each fit.
    delta : float, default=None
        δ at which to report the total; required when the reports' δ differ.
        (The composed mechanism is Gaussian, so its ε can be read at any δ.)

    Returns
    -------
    report : PrivacyReport

    Examples
    --------
    >>> from skdpgen.privacy import GaussianAccountant, compose_reports
    >>> acc = GaussianAccountant(1.0, 1e-5, {"mean": 1.0})
    >>> _ = acc.add_noise("mean", [0.0], sensitivity=0.1)
    >>> five = compose_reports([acc.report()] * 5)
    >>> round(five.epsilon, 2)
    2.44
    """
    reports = list(reports)
    if not reports:
        raise ValueError("compose_reports needs at least one report.")
    if delta is None:
        deltas = {r.delta for r in reports}
        if len(deltas) > 1:
            raise ValueError("The reports use different deltas; pass delta=.")
        delta = deltas.pop()
    releases = [rel for r in reports for rel in r.releases]
    leaks = []
    for r in reports:
        leaks.extend(leak for leak in r.leaks if leak not in leaks)
    return PrivacyReport(
        releases, delta, leaks=leaks, reproducible=any(r.reproducible for r in reports),
        selections=[sel for r in reports for sel in r.selections],
    )


def _normalize_shares(shares):
    if not shares:
        raise ValueError("shares must name at least one release.")
    plan = {}
    for name, spec in shares.items():
        share, count = (spec if isinstance(spec, tuple) else (spec, 1))
        share = float(share)
        if not (share > 0 and math.isfinite(share)):
            raise ValueError(f"share of {name!r} must be positive and finite, got {share}.")
        if int(count) != count or count < 1:
            raise ValueError(f"count of {name!r} must be a positive integer, got {count}.")
        plan[name] = (share, int(count))
    total = sum(s for s, _ in plan.values())
    return {name: (s / total, c) for name, (s, c) in plan.items()}


class GaussianAccountant:
    """Split one (ε, δ) budget over planned Gaussian releases and make them.

    The budget is calibrated once into a total noise multiplier ``σ``. A group
    with budget share ``w`` (shares are normalized to sum to 1) holding
    ``count`` releases gets ``σ_i = σ / sqrt(w / count)`` per release, so that
    ``Σ_i count_i / σ_i² = 1/σ²``: the exact composition of all planned
    releases is (ε, δ)-DP, whatever the shares.

    Parameters
    ----------
    epsilon : float
        Total ε > 0. ``np.inf`` plans releases without noise.
    delta : float
        Total δ in (0, 1).
    shares : dict
        ``name -> share`` or ``name -> (share, count)``.
    selections : iterable of str, default=None
        Planned releases that are partition selections (:meth:`select`):
        noisy counts of keys and a threshold, which spends δ of its own.
    selection_delta : float, default=None
        δ reserved for the thresholds of all selections together (split
        equally); by default half of ``delta`` when there are selections.
        The Gaussian releases are calibrated for ``delta − selection_delta``
        and ``epsilon`` less ``ln(1/(1 − δ_each))`` per selection (about
        ``δ_each``; see :meth:`select`).

    Attributes
    ----------
    noise_multiplier_total : float
        σ of the whole budget as one release.
    noise_multipliers : dict
        ``name -> σ_i`` for each planned release.
    reproducible : bool
        Whether the accountant was created inside :func:`reproducible_noise`.

    Notes
    -----
    The noise of every release is drawn from a fresh generator seeded with
    128 bits of operating-system entropy (:mod:`secrets`); there is no way to
    pass a seed, so no ``random_state`` of an estimator can make it
    predictable. The only exception is :func:`reproducible_noise`, whose
    releases are marked as not private.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen.privacy import GaussianAccountant
    >>> acc = GaussianAccountant(1.0, 1e-5, {"sum kernel": 0.5, "product kernel": (0.5, 10)})
    >>> round(acc.noise_multipliers["sum kernel"], 3)
    5.276
    >>> noisy = acc.add_noise("sum kernel", np.zeros(3), sensitivity=0.01)
    >>> acc.report().n_releases
    1
    """

    def __init__(self, epsilon, delta, shares, *, selections=None, selection_delta=None):
        self.epsilon, self.delta = check_epsilon_delta(epsilon, delta, warn_infinite=False)
        self.plan = _normalize_shares(shares)
        self.selections = tuple(selections or ())
        unknown = [name for name in self.selections if name not in self.plan]
        if unknown:
            raise ValueError(f"selections {unknown} are not planned releases.")
        n_selections = sum(self.plan[name][1] for name in self.selections)
        if n_selections == 0:
            self.selection_delta = 0.0
        else:
            self.selection_delta = (0.5 * self.delta if selection_delta is None
                                    else float(selection_delta))
            if not 0.0 < self.selection_delta < self.delta:
                raise ValueError(
                    f"selection_delta must lie in (0, delta), got {self.selection_delta}."
                )
        self.delta_each = (self.selection_delta / n_selections) if n_selections else 0.0
        epsilon_gaussian = self.epsilon - (
            n_selections * _selection_epsilon(self.delta_each) if n_selections else 0.0)
        if not epsilon_gaussian > 0:
            raise ValueError(f"epsilon={self.epsilon} leaves nothing for the Gaussian releases "
                             f"after the selections' thresholds.")
        self.noise_multiplier_total = calibrate_gaussian(
            epsilon_gaussian, self.delta - self.selection_delta)
        self.noise_multipliers = {
            name: self.noise_multiplier_total / math.sqrt(share / count)
            for name, (share, count) in self.plan.items()
        }
        self._made = {name: [] for name in self.plan}
        self._thresholds = dict.fromkeys(self.selections, 0)  # selections made, by name
        seed = _NOISE_SEED.get()
        self.reproducible = seed is not None
        self._seeded = None if seed is None else np.random.default_rng(seed)

    def add_noise(self, name, value, *, sensitivity):
        """Release ``value`` through the Gaussian mechanism planned as ``name``.

        Parameters
        ----------
        name : str
            A release planned in ``shares``.
        value : array-like or torch.Tensor
            The exact statistic.
        sensitivity : float
            Its replace-one L2 sensitivity Δ (derived by the caller, in the
            caller's docstring).

        Returns
        -------
        noisy : ndarray
            ``value + N(0, (σ_i Δ)² I)`` with the same shape, float64. The
            noise comes from fresh OS entropy (see Notes of the class).
        """
        if name not in self.plan:
            raise KeyError(f"release {name!r} was not planned; planned: {list(self.plan)}.")
        sensitivity = float(sensitivity)
        if not (sensitivity >= 0 and math.isfinite(sensitivity)):
            raise ValueError(f"sensitivity must be finite and >= 0, got {sensitivity}.")
        planned = self.plan[name][1]
        if len(self._made[name]) >= planned:
            raise RuntimeError(
                f"release {name!r} was planned {planned} time(s); making another "
                "would exceed the budget."
            )
        value = np.asarray(value, dtype=np.float64)
        sigma = self.noise_multipliers[name]
        self._made[name].append(sensitivity)
        if sigma == 0:
            return value.copy()
        if self.reproducible:
            warnings.warn(
                f"The noise of release {name!r} comes from reproducible_noise(): "
                "anyone who knows the seed can remove it, so the release is not private.",
                PrivacyLeakWarning,
                stacklevel=_outside_stacklevel(),
            )
            rng = self._seeded
        else:
            rng = _fresh_generator()
        return value + _gaussian_noise(rng, sigma * sensitivity, value.shape)

    def select(self, name, counts):
        """Partition selection: which keys to keep, from their noisy counts.

        Keeps key ``k`` when ``counts[k] + N(0, s²) > τ`` with
        ``s = σ_i·sqrt(2)`` and ``τ = 1 + s·Φ⁻¹(1 − δ_each)``.

        Parameters
        ----------
        name : str
            A release planned in ``shares`` and listed in ``selections``.
        counts : array-like of shape (n_keys,)
            Exact counts of the keys present in the data (each record gives
            one key one count).

        Returns
        -------
        keep : ndarray of bool of shape (n_keys,)
        noisy : ndarray of shape (n_keys,)
            The noisy counts (released with the kept keys).

        Notes
        -----
        **Privacy.** Replacing one record moves one count from its key ``a``
        to the new record's key ``b``. On the keys present in both datasets
        the count vector changes by at most ``sqrt(2)`` in L2 norm: the noisy
        counts are the planned Gaussian mechanism with sensitivity
        ``sqrt(2)``, composed exactly with the other releases. A key held by
        the changed record alone (``b`` new, or ``a`` gone) has count 1 on
        one side and is no candidate on the other; it is kept with
        probability ``P(1 + N(0, s²) > τ) = δ_each``. Conditioning on that
        key being dropped (probability ``1 − δ_each`` on its side), an
        event's probability on that side is at most ``δ_each`` more than
        the Gaussian part's, and at least ``1 − δ_each`` times it: so the
        selection is (ε, δ)-DP with the Gaussian part's (ε_g, δ_gaussian),
        ``ε = ε_g + ln(1/(1 − δ_each))`` and ``δ = δ_gaussian + δ_each``
        (the factor bounds an event's probability on the dataset without
        ``a`` by its probability on the dataset with ``a``, when ``a`` is
        held by the changed record alone and ``b`` by others too;
        ``ln(1/(1 − δ_each)) ≈ δ_each``, 1.7e-6 for three selections at
        δ = 1e-5). Several selections add their terms. (Gopi et al. 2020,
        "Differentially Private Set Union"; Desfontaines et al. 2022,
        "Differentially private partition selection"). The report lists each selection's δ; its ε
        is the Gaussian composition's at ``delta − selection_delta`` plus
        ``ln(1/(1 − δ_each))`` per selection, and the accountant calibrates
        the Gaussian releases so that the sum is the budget's ε.
        """
        if name not in self.selections:
            raise KeyError(f"{name!r} is not a planned partition selection.")
        counts = np.asarray(counts, dtype=np.float64)
        noisy = self.add_noise(name, counts, sensitivity=math.sqrt(2.0))
        self._thresholds[name] += 1
        s = self.noise_multipliers[name] * math.sqrt(2.0)
        if s == 0:  # epsilon = inf: every present key is kept
            return counts > 0, noisy
        return noisy > selection_threshold(s, self.delta_each), noisy

    def report(self, leaks=()):
        """The releases made so far as a :class:`PrivacyReport`.

        Releases of one group with equal sensitivity are listed once with their
        count; ε is that of the releases actually made (at most the budget).

        Parameters
        ----------
        leaks : sequence of PrivacyLeak, default=()
            What the fit read from the data without noise (see
            :func:`leak_ledger`).

        Returns
        -------
        report : PrivacyReport
        """
        releases = []
        for name, made in self._made.items():
            if not made:
                continue
            by_sensitivity = {}
            for s in made:
                by_sensitivity[s] = by_sensitivity.get(s, 0) + 1
            for s, count in by_sensitivity.items():
                releases.append(
                    GaussianRelease(name, s, self.noise_multipliers[name], count)
                )
        # every release under a selection's name reserves its threshold's δ,
        # whether or not it applied one (a column's values release is a
        # selection or a histogram depending on a noisy kind): the δ spent
        # never depends on the rows
        selections = [(name, self.delta_each, len(self._made[name]))
                      for name in self.selections if self._made[name]]
        return PrivacyReport(
            releases, self.delta, budget=(self.epsilon, self.delta), leaks=leaks,
            reproducible=self.reproducible, selections=selections,
        )
