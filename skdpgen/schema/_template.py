"""The schema file a refused command-line run leaves next to its input.

When a run is refused (its estimate a guess), the user declares what the
estimate could not tell; this template lays out the estimated schema with
every part an issue names (:func:`~skdpgen.schema.describe_issues`) set to
null and a note on what to fill. It is post-processing of the run's
releases and of the user's declarations.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

from ._issues import template_fill

__all__ = ["refusal_template"]

#: Which part of an entry to fill first (the weightiest part's estimate is
#: ``"_estimated"``), and the note of the parts whose note is not the default.
_WEIGHT = {"bounds": 3, "categories": 2, "missing": 1, "classes": 0}
_FILL_NOTE = {"missing": "true if this column can have missing values, else false (public, "
                         "from documentation, not from the rows)"}


def refusal_template(columns, target, schema, classes, issues):
    """The schema file a refused command-line run leaves next to its input.

    Every entry is post-processing of the run's releases (the estimate), or
    the user's declaration: affected columns have the part to fill set to
    null with a ``"_fill"`` note (notes are ignored when the file is read):
    every part an issue names (a column whose bounds and missing flag are
    both weak has both null, the weightiest part's estimate in
    ``"_estimated"``, the others' in ``"_estimated_<part>"``).

    Parameters
    ----------
    columns : list
        The input's columns, in order.
    target : str or None
        The label column.
    schema : dict
        The (estimated) schema.
    classes : list or None
        The (estimated) class list.
    issues : list of dict
        The estimate's weak entries (see :func:`describe_issues`).

    Returns
    -------
    template : dict
        JSON-serializable, keyed by column in ``columns``' order.

    Examples
    --------
    >>> from skdpgen.schema import refusal_template
    >>> schema = {"age": {"type": "numeric", "bounds": [17.0, 90.0]}}
    >>> issues = [{"column": "age", "problem": "guess", "share": None}]
    >>> refusal_template(["age"], None, schema, None, issues)["age"]["bounds"] is None
    True
    """
    affected = {}  # each column's parts to fill, the weightiest first
    for i in issues:  # a declared column's bounds stay the user's
        if i["problem"] != "classes" and not i.get("declared"):
            affected.setdefault(i["column"], set()).add(template_fill(i))
    out = {}
    for col in columns:
        if col == target:
            classes = None if classes is None else list(classes)
            out[col] = ({"type": "categorical", "categories": None, "_estimated": classes,
                         "_fill": "list every class of the target (public, from documentation)"}
                        if any(i["problem"] == "classes" for i in issues)
                        else {"type": "categorical", "categories": classes})
            continue
        entry = dict(schema.get(col, {"type": None}))
        parts = sorted(affected.get(col, ()), key=_WEIGHT.get, reverse=True)
        notes = []
        for k, part in enumerate(parts):  # "_estimated", then "_estimated_missing", ...
            entry["_estimated" if k == 0 else f"_estimated_{part}"] = entry.get(part)
            entry[part] = None
            notes.append(_FILL_NOTE.get(part, f"public {part} of this column, from "
                                        "documentation, not from the rows"))
        if notes:
            entry["_fill"] = "; ".join(notes)
        out[col] = entry
    return out
