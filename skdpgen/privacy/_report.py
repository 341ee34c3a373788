"""Privacy reports: what a fit released, what it spent, and what leaked."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math
import numbers
from dataclasses import dataclass


from ._calibration import gaussian_epsilon, selection_epsilon, selection_threshold
from ._leaks import PrivacyLeak

__all__ = ["GaussianRelease", "PrivacyReport", "compose_reports"]


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
        return sum(c * selection_epsilon(d) for _, d, c in self.selections)

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
                 "epsilon_each": selection_epsilon(d),
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
        rows = [row for row in self.to_frame().itertuples(index=False) if row.kind == "gaussian"]
        w = max([28] + [len(row.release) for row in rows])
        header = f"  {'release':<{w}} {'count':>6} {'sensitivity':>12} {'sigma':>10} {'noise std':>11} {'share':>6}"
        lines.append(header)
        for row in rows:
            lines.append(
                f"  {row.release:<{w}} {row.count:>6d} {row.sensitivity:>12.4g} "
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
                f"(epsilon {selection_epsilon(d):.3g}) each")
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


