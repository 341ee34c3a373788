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
import math
import numbers
import secrets
import warnings

import numpy as np

from ._calibration import (  # noqa: F401
    _autodp,
    _calibrate_gaussian,
    _log_delta,
    _silenced,
    approximate_rho,
    calibrate_gaussian,
    check_epsilon_delta,
    gaussian_epsilon,
    selection_epsilon,
    selection_threshold,
)
from ._leaks import (  # noqa: F401
    _LEDGER,
    PrivacyLeak,
    PrivacyLeakWarning,
    leak_ledger,
    outside_stacklevel,
    record_leak,
)
from ._report import GaussianRelease, PrivacyReport, compose_reports
from ._tape import ReleaseTape, ReplayMismatch, active_tape, release_tape  # noqa: F401
from ._budget import (  # noqa: F401
    BudgetExceededError,
    PrivacyBudget,
    active_budget,
    charge_active_budget,
    gaussian_precision,
    planning,
    score_without_noise,
)

__all__ = [
    "PrivacyLeakWarning",
    "PrivacyLeak",
    "PrivacyBudget",
    "BudgetExceededError",
    "active_budget",
    "score_without_noise",
    "GaussianRelease",
    "PrivacyReport",
    "GaussianAccountant",
    "calibrate_gaussian",
    "gaussian_epsilon",
    "gaussian_precision",
    "selection_epsilon",
    "selection_threshold",
    "planning",
    "approximate_rho",
    "compose_reports",
    "check_epsilon_delta",
    "leak_ledger",
    "record_leak",
    "outside_stacklevel",
    "reproducible_noise",
    "release_tape",
    "ReleaseTape",
    "ReplayMismatch",
]

_NOISE_SEED = contextvars.ContextVar("skdpgen_noise_seed", default=None)


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
    label : str, default=None
        Who makes the releases (``"DPHPSynthesizer.fit"``), as the report
        of a :class:`PrivacyBudget` names them.

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

    def __init__(self, epsilon, delta, shares, *, selections=None, selection_delta=None,
                 label=None):
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
            n_selections * selection_epsilon(self.delta_each) if n_selections else 0.0)
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
        self._rounds = {}  # name -> fractions spent in rounds (open_round)
        seed = _NOISE_SEED.get()
        self._tape = active_tape()
        self.reproducible = seed is not None or self._tape is not None
        self._seeded = None if seed is None else np.random.default_rng(seed)
        # the whole plan is charged to the active budget before any noise
        charge_active_budget(self, label or "GaussianAccountant")

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
        noisy = self._release(name, value, sensitivity)
        return noisy if self._tape is None else self._tape.gaussian(name, noisy)

    def _release(self, name, value, sensitivity):
        """The Gaussian mechanism of :meth:`add_noise`, before any tape."""
        if name not in self.plan:
            raise KeyError(f"release {name!r} was not planned; planned: {list(self.plan)}.")
        sensitivity = float(sensitivity)
        if not (sensitivity >= 0 and math.isfinite(sensitivity)):
            raise ValueError(f"sensitivity must be finite and >= 0, got {sensitivity}.")
        budget = active_budget()
        if budget is not None and not budget.charged(self):
            raise RuntimeError(
                f"release {name!r} of an accountant that was not charged to the active "
                "PrivacyBudget (created outside its block); nothing was released.")
        planned = self.plan[name][1]
        if name in self._rounds:
            raise RuntimeError(f"release {name!r} is spent in rounds (open_round); it "
                               "cannot be made directly.")
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
                f"The noise of release {name!r} comes from reproducible_noise() or a "
                "release tape: anyone who knows the seed or holds the tape can remove "
                "it, so the release is not private.",
                PrivacyLeakWarning,
                stacklevel=outside_stacklevel(),
            )
        rng = self._seeded if self._seeded is not None else _fresh_generator()
        return value + _gaussian_noise(rng, sigma * sensitivity, value.shape)

    def open_round(self, name, fraction):
        """Spend ``fraction`` of the planned release ``name`` as a round of its own.

        A release planned with share ``w`` may be spent as a *privacy
        filter*: in rounds whose fractions ``f_1, f_2, ...`` (of ``w``) are
        chosen as the fit goes, each after reading the releases before it,
        as long as ``Σ f_i ≤ 1``. Round ``i`` is a new release named
        ``"{name}, round {i}"`` with noise multiplier ``σ / √(w·f_i)``, made
        with :meth:`add_noise` as any planned release (``count`` 1) and
        listed on a line of its own in the report. A release spent in rounds
        cannot also be made directly, nor the other way round.

        Parameters
        ----------
        name : str
            A release planned in ``shares`` with count 1, not a selection.
        fraction : float
            In (0, 1]: the part of the release's share this round spends.

        Returns
        -------
        round_name : str
            The round's release name.

        Notes
        -----
        **Privacy.** The plan's Gaussian releases compose exactly when
        ``Σ count_i/σ_i² = 1/σ²`` (Dong, Roth & Su 2019). The rounds of a
        filter add ``Σ_i w·f_i/σ² ≤ w/σ²``, the planned release's own term,
        whatever fractions the earlier releases led to: Gaussian mechanisms
        whose noise multipliers are chosen adaptively compose as the
        Gaussian mechanism of the summed precision as long as that sum is
        capped in advance (Smith & Thakurta 2022, "Fully adaptive
        composition for Gaussian differential privacy"). So the fit stays
        (ε, δ)-DP at the plan's budget; a filter not spent in full spends
        less.

        Examples
        --------
        >>> import numpy as np
        >>> from skdpgen.privacy import GaussianAccountant
        >>> acc = GaussianAccountant(1.0, 1e-5, {"first": 0.5, "rounds": 0.5})
        >>> second = acc.open_round("rounds", 0.25)
        >>> second
        'rounds, round 1'
        >>> bool(np.isclose(acc.noise_multipliers[second],
        ...                 acc.noise_multiplier_total / np.sqrt(0.5 * 0.25)))
        True
        >>> noisy = acc.add_noise(second, np.zeros(2), sensitivity=1.0)
        >>> round(acc.round_left("rounds"), 2)
        0.75
        """
        if name not in self.plan or name in self.selections or self.plan[name][1] != 1:
            raise KeyError(f"{name!r} is not a planned release of count 1 that rounds "
                           "may spend.")
        if self._made[name]:
            raise RuntimeError(f"release {name!r} was made directly; it has no rounds left.")
        fraction = float(fraction)
        if not 0.0 < fraction <= self.round_left(name) + 1e-12:
            raise RuntimeError(
                f"a round of {fraction:g} of {name!r} would exceed its share "
                f"({self.round_left(name):.3g} left); nothing was released.")
        spent = self._rounds.setdefault(name, [])
        spent.append(fraction)
        round_name = f"{name}, round {len(spent)}"
        share = self.plan[name][0] * fraction
        self.plan[round_name] = (share, 1)
        self.noise_multipliers[round_name] = self.noise_multiplier_total / math.sqrt(share)
        self._made[round_name] = []
        return round_name

    def round_left(self, name):
        """The fraction of release ``name``'s share that rounds may still spend."""
        return max(1.0 - sum(self._rounds.get(name, ())), 0.0)

    def select(self, name, keys, counts, *, public=()):
        """Partition selection: which keys to keep, from their noisy counts.

        Keeps key ``k`` when ``counts[k] + N(0, s²) > τ`` with
        ``s = σ_i·sqrt(2)`` and ``τ = 1 + s·Φ⁻¹(1 − δ_each)``; a key of
        ``public`` is always kept, with its noisy count.

        Parameters
        ----------
        name : str
            A release planned in ``shares`` and listed in ``selections``.
        keys : sequence of shape (n_keys,)
            The keys present in the data, and the public keys (whatever their
            counts, zero included).
        counts : array-like of shape (n_keys,)
            Their exact counts (each record gives one key one count).
        public : collection, default=()
            Keys that are candidates whatever the data (the missing key of a
            column, say): their noisy counts are released as they are, and
            the caller decides what they mean.

        Returns
        -------
        kept : list
            The kept keys, in the order of ``keys``.
        noisy : ndarray of shape (len(kept),)
            Their noisy counts: with ``kept``, all that is released.

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
        (a public key is a candidate on both sides: its count is part of the
        Gaussian release, whatever it is)
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
        keys = list(keys)
        counts = np.asarray(counts, dtype=np.float64).reshape(-1)
        if len(keys) != counts.size:
            raise ValueError(f"{len(keys)} keys and {counts.size} counts.")
        noisy = self._release(name, counts, math.sqrt(2.0))
        self._thresholds[name] += 1
        s = self.noise_multipliers[name] * math.sqrt(2.0)
        # epsilon = inf: every present key is kept
        keep = counts > 0 if s == 0 else noisy > selection_threshold(s, self.delta_each)
        keep |= np.array([k in public for k in keys], dtype=bool).reshape(keep.shape)
        kept = [k for k, kk in zip(keys, keep.tolist()) if kk]
        if self._tape is None:
            return kept, noisy[keep]
        return self._tape.selection(name, kept, noisy[keep])

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
