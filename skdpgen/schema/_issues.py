"""One summary of a private schema estimate's weak spots, worded for the interface in use.

The estimate's post-processing (:mod:`skdpgen.schema._ranges`, the kinds)
warns column by column with this module's :class:`SchemaEstimateWarning`
(a ``column`` and a ``problem``); :meth:`SchemaPlan.estimate` collects them
and issues one summary instead. The summary names only what the interface
in use accepts: parameters in Python (``schema=``, ``classes=``,
``epsilon=``, ``schema_share=``), flags and the schema file on the command
line (``--schema``, ``--classes``, ``--epsilon``, ``--schema-share``). Every
issue is post-processing of the noisy releases and of the public ``n``: it
holds column names and estimated shares, never a value.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math
import warnings

import numpy as np

from ..privacy import outside_stacklevel
from ._policy import POLICY

__all__ = ["SchemaEstimateError", "SchemaEstimateWarning", "SchemaSizeError", "describe_issues",
           "is_guess", "template_fill"]


def is_guess(issue):
    """Whether an issue makes the estimate a guess, not just a weak spot.

    Guesses: bounds guessed; a quarter of a column's rows or more outside
    its bounds (its synthetic values would miss that part of the data);
    labels of a twentieth of the rows or more (possibly) folded into another
    class or into "other"; a column with too few values for its kind and
    range to be estimated (``"sparse"``). Weak spots (a few percent clipped) are warned of
    only, and so is a categorical (non-target) column sending rows to
    "other", however many: its values are written as what the estimate
    kept plus "other", which is true of the data (the share is named in the
    summary; values that are public knowledge, such as country names, are
    kept by listing them in the schema).

    Parameters
    ----------
    issue : dict
        One issue of an estimate (an entry of a fitted synthesizer's
        ``schema_issues_``, see :func:`describe_issues`).

    Returns
    -------
    guess : bool
        True when the issue makes the estimate a guess (the command line
        then refuses to write without ``--allow-guesses``, and a fit with
        ``on_guess="raise"`` refuses).

    Examples
    --------
    >>> from skdpgen.schema import is_guess
    >>> is_guess({"column": "age", "problem": "guess", "share": None})
    True
    >>> is_guess({"column": "city", "problem": "categories", "share": 0.4})
    False
    """
    share = issue.get("share")
    if issue["problem"] in ("categories", "folded", "uncertain", "missing", "spread"):
        return False
    if issue["problem"] == "sparse":  # too few values to place: kind and range a guess
        return True
    if issue["problem"] == "guess" or share is None:
        return True
    if issue["problem"] == "classes":  # a class of a twentieth of the rows may be lost
        return share >= POLICY.class_guess_share
    return share >= POLICY.guess_share


_NOISE_LINES = {"uncertain": "bounds may clip",
                "missing": "missing values, if they have any, may go unseen (and be written "
                           "as values),",
                "spread": "values may lie where the data has none,"}

#: What each problem asks the user to declare.
_FILL = {
    "guess": "bounds",
    "outside": "bounds",
    "uncertain": "bounds",
    "missing": "missing",
    "spread": "bounds",
    "categories": "categories",
    "folded": "categories",
    "classes": "classes",
    "sparse": "bounds",
}


def template_fill(issue):
    """What a schema entry must state to fix ``issue``: ``"bounds"``, ``"categories"``
    or ``"classes"`` (an issue's own ``"fill"`` where it names one)."""
    return issue.get("fill") or _FILL.get(issue["problem"], "bounds")


def _what(issue):
    share = issue.get("share")
    share = "" if share is None else f" (about {share:.0%} of the rows)"
    return {
        "guess": "its bounds are a guess",
        "outside": f"its bounds clip many values{share}",
        "uncertain": (f"its bounds may clip up to {issue.get('share') or 0:.0%} of the rows "
                      "(the noise hides more: declare them if they matter)"),
        "missing": (f"missing values, if it has any, up to {issue.get('share') or 0:.0%} of "
                    "the rows, may go unseen and be written as values (the noise hides that "
                    "many)"),
        "spread": (f"up to {issue.get('share') or 0:.0%} of its values may lie where the "
                   "data has none (the noise of its histogram at this size; narrower "
                   "public bounds help)"),
        "categories": f"rare values written as 'other'{share}",
        "folded": (f"rare values{share} written as {issue.get('value')!r}, its most "
                   "frequent kept value"),
        "classes": (f"labels go to an 'other' class{share}" if share else
                    "it kept a single class (the labels' noisy counts cleared the "
                    "selection's threshold for one only)"),
        "sparse": (f"about {issue.get('share') or 0:.0%} of its rows have a value (up to "
                   f"{issue.get('most', 0):.0%} under the noise), too few to estimate its kind "
                   "and range at this budget: written as "
                   f"{issue.get('written', 'its estimate')} (a guess)"),
    }.get(issue["problem"], issue["problem"])


def describe_issues(issues, interface="python", template=None):
    """The text of a summary of schema-estimate issues.

    Parameters
    ----------
    issues : list of dict
        ``{"column", "problem", "share", "detail"}`` per issue (a fitted
        synthesizer's ``schema_issues_``); ``"declared": True``: bounds the
        user declared, told to narrow them. When every issue is the fit's
        own noise (``"spread"``), no schema estimate nor share is named.
    interface : {"python", "cli", "cli-schema"}, default="python"
        Whose options the remedies name: Python's parameters, ``skdpgen
        synthesize``'s flags, or ``skdpgen schema``'s (which writes the
        schema file: its remedies are for the file and for ``--epsilon``).
    template : str, default=None
        The command line's schema template path, named in its remedy.

    Returns
    -------
    text : str
        Empty when there are no issues.

    Examples
    --------
    >>> from skdpgen.schema import describe_issues
    >>> issue = {"column": "rain", "problem": "outside", "share": 0.47, "detail": ""}
    >>> print(describe_issues([issue]))  # doctest: +NORMALIZE_WHITESPACE
    The private schema estimate is weak for 1 column at this budget:
      - 'rain': its bounds clip many values (about 47% of the rows) [a guess]
    Declare them: schema={'rain': {"type": "numeric", "bounds": [lo, hi]}} (public
    bounds, from documentation, not from the rows); or raise epsilon or schema_share.
    """
    if not issues:
        return ""
    columns = [i for i in issues if i["problem"] != "classes"]
    classes = [i for i in issues if i["problem"] == "classes"]
    distinct = len({i["column"] for i in columns})
    count = f"{distinct} column{'s' if distinct != 1 else ''}"
    if classes:
        count = f"{count} and the class list" if columns else "the class list"
    fit_only = not classes and all(i["problem"] == "spread" for i in columns)
    what = "fit's one-way marginals are noisy" if fit_only else "private schema estimate is weak"
    lines = [f"The {what} for {count} at this budget:"]
    def mark(issue):  # "its bounds are a guess" says it already
        return " [a guess]" if is_guess(issue) and issue["problem"] not in ("guess",
                                                                             "sparse") else ""

    # ranked: guesses first, then by the share of rows at stake; many columns whose
    # noise alone is the problem, in one line
    columns = sorted(columns, key=lambda i: (not is_guess(i), -(i.get("share") or 1.0)))
    grouped = {p: [i for i in columns if i["problem"] == p] for p in _NOISE_LINES}
    grouped = {p: g for p, g in grouped.items() if len(g) > POLICY.unsure_lines}
    own = {}  # one line per column, its issues in rank order (the count is of columns)
    for i in columns:
        if i["problem"] not in grouped:
            own.setdefault(i["column"], []).append(f"{_what(i)}{mark(i)}")
    lines += [f"  - {column!r}: {'; '.join(what)}" for column, what in own.items()]
    for problem, group in grouped.items():  # each column with its own share, worst first
        group = sorted(group, key=lambda i: -i["share"])
        of = "of their values" if problem == "spread" else "of the rows"
        lines.append(f"  - {len(group)} columns whose {_NOISE_LINES[problem]} up to this "
                     f"share {of} (the noise hides that many at this size): "
                     + ", ".join(f"{i['column']!r} {i['share']:.0%}" for i in group))
    lines += [f"  - the class list: {_what(i)}{mark(i)}" for i in classes]
    def named(part):  # each column once, in the summary's order
        if part == "narrow":  # bounds the user declared (public): narrower ones help
            return list(dict.fromkeys(i["column"] for i in columns if i.get("declared")))
        return list(dict.fromkeys(i["column"] for i in columns
                                  if template_fill(i) == part and not i.get("declared")))

    words = _REMEDIES[interface]
    where = (f"the schema file {template}" if template else
             "a schema file ('skdpgen schema DATA --out FILE' writes a template)")
    fix = []
    for part in ("bounds", "narrow", "categories", "missing"):
        cols = named(part)
        if cols:  # the file named in full once
            fix.append(words[part].format(names=", ".join(map(repr, cols)), first=cols[0],
                                          where="the schema file" if fix else where))
    if classes:
        fix.append(words["classes"])
    fix.append(words.get("last_fit", words["last"]) if fit_only else words["last"])
    lines.append(words["head"] + "; ".join(fix) + ".")
    return "\n".join(lines)


#: Each interface's remedies, in its own words: Python's parameters, ``skdpgen
#: synthesize``'s flags and schema file, ``skdpgen schema``'s file and --epsilon.
_REMEDIES = {
    "python": {
        "head": "",
        "bounds": ("Declare them: schema={{{first!r}: {{\"type\": \"numeric\", \"bounds\": "
                   "[lo, hi]}}}} (public bounds, from documentation, not from the rows)"),
        "categories": ("if the values of {names} are public knowledge (country names, "
                       "states), declare them as categories in schema="),
        "narrow": "narrow the declared bounds of {names} in schema= where documentation allows",
        "missing": ("declare \"missing\": True in schema= for those of {names} that can be "
                    "missing (public knowledge)"),
        "classes": "pass classes=[...] (the public list of labels)",
        "last": "or raise epsilon or schema_share",
        "last_fit": "or raise epsilon",
    },
    "cli": {
        "head": "To fix: ",
        "bounds": ("write the public bounds of {names} (from documentation, not from the "
                   "rows) in {where} and pass it with --schema"),
        "categories": ("if the values of {names} are public knowledge (country names, "
                       "states), list them as categories in {where} and pass it with --schema"),
        "narrow": ("narrow the bounds of {names} declared in the --schema file where "
                   "documentation allows"),
        "missing": ("declare \"missing\": true in {where} for those of {names} that can be "
                    "missing (public knowledge) and pass it with --schema"),
        "classes": ("list every class with --classes a,b,c (or as the target's categories "
                    "in the --schema file)"),
        "last": "or raise --epsilon or --schema-share",
        "last_fit": "or raise --epsilon",
    },
    "cli-schema": {
        "head": "To fix: ",
        "bounds": ("replace the bounds of {names} in the file with public ones (from "
                   "documentation, not from the rows)"),
        "categories": ("if the values of {names} are public knowledge (country names, "
                       "states), list them as categories in the file"),
        "narrow": "narrow the bounds of {names} in the file where documentation allows",
        "missing": ("set \"missing\": true in the file for those of {names} that can be "
                    "missing (public knowledge)"),
        "classes": ("list every class as the target's categories in the file (or "
                    "--classes a,b,c when you synthesize)"),
        "last": "or rerun with a larger --epsilon",
    },
}


class SchemaEstimateError(ValueError):
    """A fit that cannot go on from its private schema estimate (the class list
    kept a single class, or, with ``on_guess="raise"``, the estimate guessed).

    Carries what the estimate released, all post-processing of the noisy
    releases: ``schema`` and ``classes`` (as estimated), ``issues`` (see
    ``schema_issues_``) and ``report``, the releases made (the budget they
    spent is spent). The command line writes its schema template from them.
    """

    def __init__(self, message, *, schema=None, classes=None, issues=(), report=None):
        super().__init__(message)
        self.schema, self.classes, self.issues, self.report = schema, classes, list(issues), report


class SchemaSizeError(SchemaEstimateError):
    """A table below the size at which its private schema estimate can be sane.

    Raised by a fit with ``on_guess="raise"`` (the command line's default)
    before anything is read or released, when the public number of rows is
    below :meth:`SchemaPlan.rows_needed
    <skdpgen.private_schema.SchemaPlan.rows_needed>` for the columns it
    would estimate. ``rows_needed`` (at this ε) and ``epsilon_needed`` (at
    these rows) say what would do; ``report`` spent nothing.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from skdpgen import MarginalSynthesizer
    >>> from skdpgen.schema import SchemaSizeError
    >>> X = pd.DataFrame(np.random.default_rng(0).integers(0, 9, size=(500, 4)))
    >>> try:
    ...     MarginalSynthesizer(on_guess="raise").fit(X, epsilon=1.0)
    ... except SchemaSizeError as error:
    ...     print(error.n_rows, error.rows_needed, error.report.n_releases)
    500 2320 0
    """

    def __init__(self, message, *, n_rows, rows_needed, epsilon_needed, report=None):
        super().__init__(message, report=report)
        self.n_rows, self.rows_needed, self.epsilon_needed = n_rows, rows_needed, epsilon_needed


class SchemaEstimateWarning(UserWarning):
    """A column's private schema estimate is weak at this budget.

    Issued by :meth:`SchemaPlan.estimate` (so by every fit that estimates
    its schema) when the noise of a column's estimation release hides what
    it looks for: no range of a numeric or datetime column's histogram
    stands out from the noise (its bounds are then a guess, see the module
    doc); a twentieth or more of a numeric or datetime column's rows lie
    outside the bounds found; a categorical column (or the class list)
    keeps no value, or sends a twentieth of its rows or more to its public
    ``"other"`` category. Shares are estimated from the released counts and
    warned of only beyond three standard deviations of their noise (the
    rows outside a numeric column's bounds also from two, when they are a
    tenth of the rows). Nothing
    private is in the message: it is post-processing of the noisy releases
    and of the public ``n``. The remedy is the user's: declare the column
    in ``schema`` (the labels in ``classes``), or give the estimate more
    budget (``epsilon``, ``schema_share``).

    Examples
    --------
    >>> import warnings
    >>> import numpy as np, pandas as pd
    >>> from skdpgen.private_schema import estimate_schema
    >>> from skdpgen.schema import SchemaEstimateWarning
    >>> X = pd.DataFrame({"x": np.random.default_rng(0).normal(size=100)})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     schema, _, _ = estimate_schema(X, schema={"x": {"type": "numeric"}},
    ...                                    epsilon=0.1)
    >>> any(issubclass(w.category, SchemaEstimateWarning) for w in caught)
    True
    """

    def __init__(self, message, *, column=None, problem=None, share=None, issues=(),
                 value=None, **extra):
        super().__init__(message)
        #: Further public entries of the issue (``"fill"``: the part of the
        #: column's spec the template asks for; ``"written"``: what the
        #: column is written as), post-processing of the releases.
        self.extra = extra
        #: The column concerned (None for the class list or a summary).
        self.column = column
        #: ``"guess"`` (bounds guessed), ``"outside"`` (rows clipped by the
        #: bounds), ``"uncertain"`` (bounds that may clip a quarter of the
        #: rows or more under the noise, or a twentieth when a clip is likely:
        #: ``share`` is that upper bound),
        #: ``"categories"`` (values sent to "other" or none kept), ``"folded"``
        #: (rare values written as the kept value ``value``, no "other"),
        #: ``"classes"`` (labels sent to "other"), ``"size"`` (a table below the
        #: size rule, fitted with ``on_guess="fit"``: every estimated column
        #: named), or None for a summary.
        self.problem = problem
        #: The estimated share of rows concerned (None where not estimated).
        self.share = share
        #: A summary's issues: one dict per column warned of (see
        #: :func:`skdpgen.schema.describe_issues`).
        self.issues = tuple(issues)
        #: The public value a ``"folded"`` issue writes the rare values as
        #: (a kept category of the estimated schema), else None.
        self.value = value

    def issue(self):
        """This warning's issue as a dict: ``column``, ``problem``, ``share``, ``detail``
        (and ``value`` for a ``"folded"`` issue)."""
        out = {"column": self.column, "problem": self.problem, "share": self.share,
               "detail": str(self)}
        if self.value is not None:
            out["value"] = self.value
        out.update(self.extra)
        return out


def _empty(missing, missing_count, n, s_missing, stds):
    """Whether the released missing count says every row of a column is missing
    (the present count within ``stds`` noise standard deviations of 0): its
    bounds are then no guess worth a warning, since no value is placed by
    them (post-processing of the release)."""
    return bool(missing) and n - float(missing_count) <= stds * s_missing


def _missing_flag(key, missing, noisy_missing, s_missing, n, partial):
    """The missing flag of an estimated spec: the user's (a partial spec's
    ``"missing"``, public) where declared, else the estimate's ``missing``,
    with :func:`_warn_missing_hidden`."""
    declared = (partial or {}).get("missing")
    if declared is not None:
        return bool(declared)
    _warn_missing_hidden(key, missing, noisy_missing, s_missing, n)
    return missing


def _warn_missing_hidden(key, missing, noisy_missing, s_missing, n):
    """:class:`SchemaEstimateWarning` when a column estimated without missing values
    may have ``POLICY.missing_hidden_share`` of its rows missing under the noise (the
    noisy count plus ``POLICY.uncertain_stds`` of its noise standard deviations): its
    missing values, if any, are written as values. Never a guess."""
    if missing:
        return
    most = min(max(float(noisy_missing), 0.0) + POLICY.uncertain_stds * float(s_missing), float(n))
    if most >= POLICY.missing_hidden_share * n:
        warnings.warn(SchemaEstimateWarning(
            f"Column {key!r}: estimated without missing values, but the noise of its "
            f"missing count hides up to about {most / n:.0%} of its rows: if it has missing "
            "values, they are written as values.", column=key, problem="missing",
            share=most / n), stacklevel=outside_stacklevel())


def _warn_guess(key, what, n, s):
    """:class:`SchemaEstimateWarning` for bounds guessed from the heaviest group."""
    warnings.warn(SchemaEstimateWarning(
        f"Column {key!r}: no range of its values stands out from the noise of its "
        f"private bounds estimate ({n} rows, noise {s:.3g} rows per bin), so {what} are "
        "a guess and may miss the values entirely.", column=key, problem="guess"),
        stacklevel=outside_stacklevel())


def _warn_outside(key, bounds, inside, noisy_missing, n, s):
    """:class:`SchemaEstimateWarning` when the released counts put many values outside.

    ``inside`` are the noisy counts of the bins of the range found on the
    grid (before a refinement, whose margin is meant to keep what it
    cuts); the values outside are estimated as ``n − m̃ − Σ inside``
    (noise standard deviation ``s·sqrt(len(inside) + 1)``), and warned of
    by :func:`_warn_outside_share`.
    """
    outside = float(n - noisy_missing - np.sum(inside))
    _warn_outside_share(key, bounds, outside, s * math.sqrt(np.size(inside) + 1), n)


def _warn_outside_share(key, bounds, outside, std, n):
    """:class:`SchemaEstimateWarning` when ``outside`` (the rows estimated outside
    ``bounds`` from the released counts, noise ``std``) exceeds ``POLICY.warn_stds`` of
    its noise and ``POLICY.warn_share`` of ``n``, or ``POLICY.warn_large_stds`` and
    ``POLICY.warn_large_share`` (a large clip is warned of at a lower significance,
    a small one is not, so that a normal column's ±2 sd bounds, which clip
    4.4 %, do not warn in a quarter of the fits).

    Below those, the column is named ``"uncertain"`` (never a guess) with the
    share ``most``, the estimate plus ``POLICY.uncertain_stds`` of its noise,
    when ``most`` reaches ``POLICY.guess_share`` of ``n`` (the noise hides a
    clip of a quarter of the rows), or when the estimate exceeds
    ``POLICY.clip_stds`` of its noise (a clip is likely) and ``most`` reaches
    ``POLICY.warn_share``: a clip the noise keeps under the named shares'
    significance, such as a count column's tail above its bound (a survey's
    ``children`` cut at 3 with 12 % of its rows above, estimated at 5.7 % ±
    5.4 %), or a column of zeros whose bound is 1 while 4.7 % of its rows lie
    in the thousands (estimated 4.8 % ± 1.9 %), was not named. A column with
    nothing outside is named so w.p. at most 2.3 % (a one-sided ``2σ``)."""
    if (outside < max(POLICY.warn_stds * std, POLICY.warn_share * n)
            and outside < max(POLICY.warn_large_stds * std, POLICY.warn_large_share * n)):
        # nothing found, but the noise would hide a clip of a quarter of the
        # rows, or a likely clip may reach a twentieth of them
        most = min(max(outside, 0.0) + POLICY.uncertain_stds * std, float(n))
        likely = outside > POLICY.clip_stds * std and most >= POLICY.warn_share * n
        if most >= POLICY.guess_share * n or likely:
            warnings.warn(SchemaEstimateWarning(
                f"Column {key!r}: its private bounds {bounds} may clip up to about "
                f"{most / n:.0%} of its rows: the noise of the estimate hides that much.",
                column=key, problem="uncertain", share=most / n),
                stacklevel=outside_stacklevel())
        return
    warnings.warn(SchemaEstimateWarning(
        f"Column {key!r}: about {outside / n:.0%} of its rows (estimated from the released "
        f"counts) hold values outside its private bounds {bounds}, which clip them: their "
        "bins were too thin to clear the noise of the estimate.", column=key,
        problem="outside", share=outside / n), stacklevel=outside_stacklevel())


def _warn_unlocated(key, bounds, share):
    """:class:`SchemaEstimateWarning` (``"spread"``, never a guess) for a range whose
    wide end bins the fine grid located nothing in.

    ``share``: the rows estimated in those bins (their noisy counts over the
    estimated present rows), which the bounds let lie anywhere in the bins
    while the data may fill a small part of them (a column of years 1990-2015
    found in the bins ``(1500, 2000]`` and ``(2000, 2500]`` alone had the
    bounds ``[1501, 2500]``, and 86 % of its synthetic values fell outside
    the years the data holds). Post-processing of the released counts."""
    warnings.warn(SchemaEstimateWarning(
        f"Column {key!r}: the fine grid of its private bounds estimate located none of the "
        f"values of the wide end bins of its range {bounds} (about {share:.0%} of its rows, "
        "estimated from the released counts), so its values may lie where the data has "
        "none.", column=key, problem="spread", share=share), stacklevel=outside_stacklevel())


def _warn_other(kept, other, residual, n, column=None):
    """:class:`SchemaEstimateWarning` for a selection losing rows to "other".

    ``column``: the categorical column selected, or None for the class
    list; ``residual`` is the released estimate of the rows outside
    ``kept``, ``n − Σ_kept ñ_k`` (the missing values' count among the
    kept). A column is warned of when it sends a twentieth of its rows or
    more to "other" (keeping none of its values is no warning when its rows
    are missing but for fewer than that); the class
    list whenever it adds the other label: a class folded into another is
    never silent.
    """
    classes = column is None
    subject = "The class list" if classes else f"Column {column!r}"
    # few rows hold other values (none kept: the column is missing in nearly every row)
    if residual < POLICY.warn_share * n and not classes:
        return
    share = max(residual, 0.0) / n
    what = (f"keeps none of its values: every value becomes {other!r}" if not kept else
            f"keeps {len(kept)} values; about {share:.0%} of its rows (estimated "
            f"from the released counts) hold other values and become {other!r}")
    if classes and kept:
        what = (f"keeps {len(kept)} classes; about {share:.0%} of the rows (estimated from "
                f"the released counts) hold other labels, which become the class {other!r}")
    warnings.warn(SchemaEstimateWarning(
        f"{subject}: its private category selection {what} (values held by fewer "
        f"rows than the selection threshold in the privacy report are dropped).",
        column=column, problem="classes" if classes else "categories", share=share),
        stacklevel=outside_stacklevel())


def _warn_folded(kept, largest, residual, s_residual, n):
    """:class:`SchemaEstimateWarning` when a class list may have folded a class of a
    twentieth of the rows or more into its largest class.

    The residual ``r = n − Σ_kept ñ_k`` (noise ``s_residual``) did not
    clear its test for an "other" label; but unless ``r +
    POLICY.uncertain_stds·s_residual`` stays under ``POLICY.warn_share·n``, a
    dropped class of that size is not ruled
    out, and its rows would silently become ``largest``'s.
    """
    upper = max(residual, 0.0) + POLICY.uncertain_stds * s_residual
    if upper < POLICY.warn_share * n:
        return
    warnings.warn(SchemaEstimateWarning(
        f"The class list: its private category selection keeps {len(kept)} classes; up to about "
        f"{min(upper / n, 1.0):.0%} of the rows (estimated from the released counts) may "
        f"hold labels it dropped, which become the class {largest!r}.",
        problem="classes", share=min(upper / n, 1.0)), stacklevel=outside_stacklevel())


def _warn_folded_values(column, largest, residual, s_residual, n):
    """:class:`SchemaEstimateWarning` when a column's rare values, written as its
    kept value ``largest`` (no "other" category), hold many rows.

    ``residual`` is the released estimate of the rows outside the kept
    values, ``r = n − Σ_kept ñ_k`` (noise ``s_residual``), which did not
    clear the test for an "other" category. Named when ``r`` reaches
    ``POLICY.warn_share`` of ``n`` (the share from which rows sent to
    "other" are named) and ``POLICY.fold_stds`` of its noise (a column
    with nothing dropped is then named w.p. at most 2.3 %, and only on a
    small table): its rows are written as ``largest``, which the summary
    says. ``largest`` is a kept value of the estimated schema (public)."""
    if residual < max(POLICY.warn_share * n, POLICY.fold_stds * s_residual):
        return
    share = min(residual / n, 1.0)
    warnings.warn(SchemaEstimateWarning(
        f"Column {column!r}: its private category selection keeps no 'other' category; "
        f"about {share:.0%} of its rows (estimated from the released counts) hold values it "
        f"dropped, which are written as {largest!r}, its kept value of largest count (values "
        "held by fewer rows than the selection threshold in the privacy report are dropped).",
        column=column, problem="folded", share=share, value=largest),
        stacklevel=outside_stacklevel())
