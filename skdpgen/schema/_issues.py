"""One summary of a private schema estimate's weak spots, worded for the interface in use.

The estimate's post-processing (:mod:`skdpgen.schema._ranges`) warns column
by column (:class:`~skdpgen.schema._ranges.SchemaEstimateWarning` with a
``column`` and a ``problem``); :meth:`SchemaPlan.estimate` collects them
and issues one summary instead. The summary names only what the interface
in use accepts: parameters in Python (``schema=``, ``classes=``,
``epsilon=``, ``schema_share=``), flags and the schema file on the command
line (``--schema``, ``--classes``, ``--epsilon``, ``--schema-share``). Every
issue is post-processing of the noisy releases and of the public ``n``: it
holds column names and estimated shares, never a value.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

__all__ = ["describe_issues", "is_guess", "template_fill"]

#: Share of a column's rows clipped by its bounds, or sent to "other", from
#: which its estimate is a guess rather than a weak spot (the command line
#: refuses it by default).
GUESS_SHARE = 0.25
#: ... and of the rows whose labels may have gone to another class.
CLASS_GUESS_SHARE = 0.05


def is_guess(issue):
    """Whether an issue makes the estimate a guess, not just a weak spot.

    Guesses: bounds guessed; a quarter of a column's rows or more outside
    its bounds (its synthetic values would miss that part of the data); a
    categorical column sending a quarter of its rows or more to "other"
    (every row when it keeps no value); labels of a twentieth of the rows
    or more (possibly) folded into another class or into "other". Weak spots (a few percent clipped, a long tail of rare
    categories in "other") are warned of only.
    """
    share = issue.get("share")
    if issue["problem"] == "guess" or share is None:
        return True
    if issue["problem"] == "classes":  # a class of a twentieth of the rows may be lost
        return share >= CLASS_GUESS_SHARE
    return share >= GUESS_SHARE

#: What each problem asks the user to declare.
_FILL = {
    "guess": "bounds",
    "outside": "bounds",
    "categories": "categories",
    "classes": "classes",
}


def template_fill(issue):
    """What a schema entry must state to fix ``issue``: ``"bounds"``, ``"categories"``
    or ``"classes"``."""
    return _FILL.get(issue["problem"], "bounds")


def _what(issue):
    share = issue.get("share")
    share = "" if share is None else f" (about {share:.0%} of the rows)"
    return {
        "guess": "its bounds are a guess",
        "outside": f"its bounds clip many values{share}",
        "categories": f"values go to 'other'{share}",
        "classes": f"labels go to an 'other' class{share}",
    }.get(issue["problem"], issue["problem"])


def describe_issues(issues, interface="python", template=None):
    """The text of a summary of schema-estimate issues.

    Parameters
    ----------
    issues : list of dict
        ``{"column", "problem", "share", "detail"}`` per issue (a fitted
        synthesizer's ``schema_issues_``).
    interface : {"python", "cli"}, default="python"
        Whose options the remedies name.
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
    count = f"{len(columns)} column{'s' if len(columns) != 1 else ''}"
    if classes:
        count = f"{count} and the class list" if columns else "the class list"
    lines = [f"The private schema estimate is weak for {count} at this budget:"]
    mark = {True: " [a guess]", False: ""}
    lines += [f"  - {i['column']!r}: {_what(i)}{mark[is_guess(i)]}" for i in columns]
    lines += [f"  - the class list: {_what(i)}{mark[is_guess(i)]}" for i in classes]
    bounds = [i["column"] for i in columns if template_fill(i) == "bounds"]
    cats = [i["column"] for i in columns if template_fill(i) == "categories"]
    if interface == "cli":
        where = (f"the schema file {template}" if template else
                 "a schema file ('skdpgen schema DATA --out FILE' writes a template)")
        fix = []
        if bounds or cats:
            fix.append(f"fill in {where} (public bounds or categories of "
                       f"{', '.join(map(repr, bounds + cats))}, from documentation, not "
                       "from the rows) and pass it with --schema")
        if classes:
            fix.append("list every class with --classes a,b,c (or as the target's "
                       "categories in the --schema file)")
        fix.append("or raise --epsilon or --schema-share")
        lines.append("To fix: " + "; ".join(fix) + ".")
        return "\n".join(lines)
    fix = []
    if bounds:
        example = {bounds[0]: "{\"type\": \"numeric\", \"bounds\": [lo, hi]}"}
        fix.append("Declare them: schema=" + "{" + ", ".join(
            f"{k!r}: {v}" for k, v in example.items()) + "} (public bounds, from "
            "documentation, not from the rows)")
    if cats:
        fix.append(f"declare the categories of {', '.join(map(repr, cats))} in schema=")
    if classes:
        fix.append("pass classes=[...] (the public list of labels)")
    fix.append("or raise epsilon or schema_share.")
    lines.append("; ".join(fix))
    return "\n".join(lines)
