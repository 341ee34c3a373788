"""The summary lines of ``skdpgen synthesize``: what the schema estimate spent and
bought, and which pairs of columns the fit measured (public: the report, the
estimated schema, the fit's choices)."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

__all__ = ["classes_note", "empty_note", "estimate_note", "far_off_lines", "issues_label",
           "misfit_note", "pairs_note"]


def estimate_note(model, report):
    """What the private schema estimate spent (its share of the releases'
    precision, from the report) and what it bought (public: the estimated
    schema); None when nothing was estimated."""
    frame = report.to_frame()
    gaussian = frame[frame["kind"] == "gaussian"]
    mine = gaussian[gaussian["release"].str.startswith("schema:")]
    if mine.empty:
        return None
    share = float(mine["share"].sum())
    from .schema import partial_kind

    # the plan's own rule: a column is estimated unless the user's spec is complete
    declared = {key for key, spec in (getattr(model, "schema", None) or {}).items()
                if not partial_kind(spec)}
    schema = {key: spec for key, spec in (getattr(model, "schema_", {}) or {}).items()
              if key not in declared}
    kinds = {}
    for spec in schema.values():
        kinds[spec.get("type")] = kinds.get(spec.get("type"), 0) + 1
    listed = ", ".join(f"{c} {k}" for k, c in sorted(kinds.items(), key=lambda kv: -kv[1]))
    points = sum(len(spec.get("points", ())) for spec in schema.values())
    bought = [f"the kinds, bounds and values of the columns ({listed})"]
    if points:
        bought.append(f"{points} value{'s' * (points != 1)} holding a point mass, kept "
                      "exactly")
    reused = getattr(getattr(model, "mechanism_", None), "reused_columns_", [])
    if reused:
        columns = (f"{len(reused)} categorical columns'" if len(reused) != 1
                   else "1 categorical column's")
        bought.append(f"the counts of {columns} values measure the one-way marginals too")
    return (f"Schema estimated privately with {share:.0%} of the budget: "
            + "; ".join(bought) + ".")


def empty_note(model):
    """The estimated columns written missing in every row (``"empty": true``: their
    values, if any, too few to place; public, the estimated schema), or None."""
    schema = getattr(model, "schema_", {}) or {}
    empty = [key for key, spec in schema.items() if spec.get("empty")]
    if not empty:
        return None
    their = "their" if len(empty) != 1 else "its"
    return (f"{', '.join(map(repr, empty))} written missing in every row, since {their} values, if "
            "any, were too few to place at this budget (at most about a twentieth of the "
            "rows); declare the column's bounds or categories to keep them.")


def classes_note(model, report, n_rows):
    """How many classes the private class list kept and the smallest class it can
    find (the selection's threshold, from the report: public, from n, ε and δ);
    None when the classes were not estimated. A class under the threshold is not
    found and its rows go to another class: the note says so on every estimated
    list, since whether one was lost is not public."""
    threshold = report.selection_thresholds.get("schema: classes")
    classes = getattr(model, "classes_", None)
    if threshold is None or classes is None:
        return None
    missing = getattr(model, "missing_label_", None)
    kept = len([c for c in classes if c != missing])
    share = f" ({threshold / n_rows:.1%} of the rows)" if n_rows else ""
    return (f"Target classes found privately: {kept} kept. A class held by fewer than about "
            f"{threshold:,.0f} rows{share} cannot be found at this budget and its rows are "
            "written as another class: if the target has more classes, list every one "
            "with --classes a,b,c.")


def pairs_note(model, shown=8):
    """Which pairs of columns the fit measured (a marginal synthesizer's
    ``measured_pairs_``: public, chosen from noisy releases); None for other
    models and for a fit without pairs (its warning says so)."""
    pairs = getattr(model, "measured_pairs_", None)
    if not pairs:
        return None
    d = model.n_features_in_
    total = d * (d - 1) // 2
    # what a measured pair keeps: its cells, not a formula (issue 55: agesq = age²);
    # said only where the fitted model matches every measured marginal (issue 62)
    unmatched = getattr(model, "unmatched_marginals_", [])
    weakened = getattr(model, "weakened_pairs_", [])
    unresolved = getattr(model, "unresolved_pairs_", [])
    exact = ("" if unmatched or weakened or unresolved else
             " A measured pair keeps the two columns' joint distribution at the "
             "resolution of their bins: a column computed from another (a square, a "
             "difference) comes back near that relation, not exactly on it.")
    if len(pairs) == total:
        note = f"Two-way marginals: all {total} pairs of columns measured." + exact
    else:
        note = (f"Two-way marginals: {len(pairs)} of {total} pairs of columns measured, "
                f"chosen privately as the most dependent ({_listed(pairs, shown)}); the "
                "others only through them." + exact)
    if unmatched:
        note += "\n" + unmatched_note(unmatched, shown)
    if weakened:
        note += (f"\nMeasured with too much noise to stay sharp ({_listed(weakened, shown)}): "
                 "these strongly related pairs come back weakened (a column and its square "
                 "much less correlated than in the data), since the noise on their cells is "
                 "large next to the relation; a larger epsilon, more rows or fewer columns "
                 "measure them at less noise.")
    if unresolved:
        note += (f"\nToo noisy to tell ({len(unresolved)} of {len(pairs)} measured pairs: "
                 f"{_listed(unresolved, shown)}): their releases show no relation, but would "
                 "not show a sharp one either (a column and its square); any such relation "
                 "comes back weakened.")
    lost = model.mechanism_.strong_pairs_not_measured()
    if lost:
        note += (f"\nStrongly related but not measured ({_listed(lost, shown)}): the synthetic "
                 "rows keep these relations only as far as the measured pairs imply them; "
                 "more rows, a larger epsilon or fewer columns would measure them.")
    return note


def misfit_note(model, level=None):
    """The kernel releases a generator does not reproduce within their noise
    (``release_misfit_``: post-processing of the releases and the generator);
    None when every release's misfit is below ``level`` times the noise's own,
    and for a mixture (whose marginals are named one by one instead); ``level``
    defaults to ``POLICY.release_misfit_level``."""
    from .synthesizers import POLICY

    level = POLICY.release_misfit_level if level is None else level
    far = {name: ratio for name, ratio in getattr(model, "release_misfit_", {}).items()
           if ratio > level}
    if not far:
        return None
    parts = ", ".join(f"the {name} {ratio:.1f} times" for name, ratio in far.items())
    return (f"Fit to its releases: the synthetic rows' mean features differ from {parts} "
            "as much as the release's noise explains (about 1 when the generator "
            "reproduces what was measured): more epochs, or another generator, would "
            "bring them closer.")


def unmatched_note(unmatched, shown=8):
    """The measured marginals the fitted model does not reproduce within their noise
    (``unmatched_marginals_``: post-processing of the releases and the model)."""
    names = ", ".join("~".join(c) for c in unmatched[:shown])
    more = f" and {len(unmatched) - shown} more" if len(unmatched) > shown else ""
    return (f"Not reproduced within their noise ({names}{more}): the fitted model's "
            "marginals of these columns differ from what was measured by more than its "
            "noise explains, so the synthetic rows do not keep them as measured; a larger "
            "epsilon, more rows or fewer columns measure fewer cells at less noise.")


def _listed(pairs, shown):
    """``a~b, c~d and 3 more``: the first ``shown`` pairs."""
    more = f" and {len(pairs) - shown} more" if len(pairs) > shown else ""
    return ", ".join(f"{a}~{b}" for a, b in pairs[:shown]) + more


def far_off_lines(model):
    """One line per column of the output far from what the releases say of it
    (``output_issues_``: post-processing of the releases and of a sample drawn
    with a public seed), its measure and share; empty for a model without the
    check and where every column checked came back within the noise."""
    issues = getattr(model, "output_issues_", None) or []
    return [f"column {i['column']!r} is far off: {i['detail']}, beyond what the noise "
            f"explains; {_FAR_REMEDY['schema' if i['release'].startswith('released') else 'fit']}."
            for i in issues]


_FAR_REMEDY = {"schema": "declare its bounds or categories (public) in the --schema file, or "
                         "raise --epsilon",
               "fit": "more epochs or a larger --epsilon bring the fit closer"}


#: Problems the noise may hide, not found: a column named for them came back as
#: likely as not fine (the far-off lines name the ones that did not).
_NOISE_ONLY = ("missing", "uncertain", "spread")


def issues_label(issues):
    """``"warning"`` for a summary naming a column found weak (a guess, rows clipped
    or sent to "other"), ``"note"`` for one naming only what the noise may hide."""
    return "note" if all(i["problem"] in _NOISE_ONLY for i in issues) else "warning"
