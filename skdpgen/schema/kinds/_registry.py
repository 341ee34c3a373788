"""The registry of column kinds: the one table that maps a spec to its kind.

:func:`register_kind` adds a kind (the built-in ones are registered by
:mod:`skdpgen.schema.kinds`); :func:`kind_of` answers which kind a spec (or
a kind's name) is, :func:`schema_types` which types a schema declares and
:func:`partial_kind` whether a spec declares its kind only. Nothing here
knows a kind by name: each question is asked of the kind
(:meth:`~skdpgen.schema.ColumnKind.of_spec`,
:meth:`~skdpgen.schema.ColumnKind.is_partial`).
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

__all__ = ["KINDS", "kind_of", "partial_kind", "register_kind", "schema_types",
           "unregister_kind"]

#: The kinds by name (:func:`register_kind` adds one).
KINDS = {}
#: The types a schema declares, in the order every interface names them, each
#: with the name of the kind that declares it.
_DECLARABLE = {}


def register_kind(kind, *, declarable=True):
    """Add a column kind: the one step a new kind takes besides its own module.

    The kind's ``type`` becomes a type a schema declares (unless
    ``declarable`` is false), checked by its
    :meth:`~skdpgen.schema.ColumnKind.check_spec`, encoded by its
    :meth:`~skdpgen.schema.ColumnKind.codec` and typed by its
    :meth:`~skdpgen.schema.ColumnKind.output_dtype`: the encoder, the
    mechanisms, the command line's schema files and its messages, and the
    data holder's diagnostics (:func:`~skdpgen.schema.read_column`,
    :func:`~skdpgen.schema.check_table`, and so
    :func:`~skdpgen.evaluation.evaluate_tables` and ``skdpgen evaluate``)
    then take it. A column of the kind must be declared complete;
    estimating one privately also needs a release
    (:meth:`~skdpgen.schema.ColumnKind.statistic` and
    :meth:`~skdpgen.schema.ColumnKind.estimate`) that
    :class:`~skdpgen.private_schema.SchemaPlan` knows, which only the
    built-in kinds have.

    Parameters
    ----------
    kind : ColumnKind
        An instance; its ``name`` must be new, and so must its ``type``
        when it is declarable.
    declarable : bool, default=True
        Whether schemas declare the kind's ``type`` (false for a kind that
        shares another's type, as bool columns share ``"categorical"``, or
        that no schema names, as a column of unknown kind).

    Returns
    -------
    kind : ColumnKind
        ``kind``, registered.

    Examples
    --------
    >>> import pandas as pd
    >>> from skdpgen.schema import ColumnKind, register_kind, schema_types
    >>> class Weekday(ColumnKind):
    ...     name = type = "weekday"
    ...     def check_spec(self, key, spec):
    ...         return {"type": "weekday"}
    ...     def output_dtype(self, spec):
    ...         return pd.CategoricalDtype(["Mon", "Tue", "Wed", "Thu", "Fri"])
    >>> kind = register_kind(Weekday())
    >>> schema_types()
    ('numeric', 'datetime', 'categorical', 'time', 'weekday')
    >>> register_kind(Weekday())
    Traceback (most recent call last):
    ...
    ValueError: A column kind named 'weekday' is already registered.
    >>> unregister_kind("weekday") is kind
    True
    """
    if kind.name in KINDS or (declarable and kind.type in _DECLARABLE):
        raise ValueError(f"A column kind named {kind.name!r} is already registered.")
    KINDS[kind.name] = kind
    if declarable:
        _DECLARABLE[kind.type] = kind.name
    return kind


def unregister_kind(name):
    """Remove a registered column kind (a test's, or a plug-in's, once done).

    Parameters
    ----------
    name : str
        The kind's ``name``.

    Returns
    -------
    kind : ColumnKind
        The kind removed; its ``type`` is no longer declared.

    Examples
    --------
    >>> from skdpgen.schema import ColumnKind, register_kind, schema_types, unregister_kind
    >>> class Parity(ColumnKind):
    ...     name = type = "parity"
    >>> kind = register_kind(Parity())
    >>> unregister_kind("parity") is kind, "parity" in schema_types()
    (True, False)
    """
    if name not in KINDS:
        raise ValueError(f"No column kind named {name!r} is registered.")
    kind = KINDS.pop(name)
    if _DECLARABLE.get(kind.type) == name:
        del _DECLARABLE[kind.type]
    return kind


def schema_types():
    """The types a schema declares (the one list every interface names).

    Returns
    -------
    types : tuple of str
        The built-in types, then those of the registered kinds.

    Examples
    --------
    >>> from skdpgen.schema import schema_types
    >>> schema_types()[:3]
    ('numeric', 'datetime', 'categorical')
    """
    return tuple(_DECLARABLE)


def kind_of(spec):
    """The kind of a column: what the code outside the schema asks about it.

    Parameters
    ----------
    spec : dict or str
        The column's spec, complete or type-only (``{"type": "numeric"}``; a
        categorical spec whose categories are ``[False, True]``, or
        ``{"type": "bool"}``, is a bool column), or a kind's name (such as
        :attr:`ColumnRead.kind <skdpgen.schema.ColumnRead.kind>`).

    Returns
    -------
    kind : ColumnKind
        Its :attr:`~ColumnKind.is_numeric`, :attr:`~ColumnKind.is_bounded`
        and :attr:`~ColumnKind.has_categories` answer for the column.

    Examples
    --------
    >>> from skdpgen.schema import kind_of
    >>> kind_of({"type": "datetime", "bounds": ["2020-01-01", "2021-01-01"]}).is_bounded
    True
    >>> kind = kind_of({"type": "categorical", "categories": [False, True]})
    >>> kind.name, kind.has_categories, kind.is_numeric
    ('bool', True, False)
    >>> kind_of("numeric").is_numeric
    True
    """
    name = spec if isinstance(spec, str) else spec.get("type")
    if name not in KINDS:
        raise ValueError(f"Unknown column kind {name!r}; the kinds are {sorted(KINDS)}.")
    return KINDS[name] if isinstance(spec, str) else KINDS[name].of_spec(spec)


def partial_kind(spec):
    """The kind a partial spec declares, or None when the spec is complete.

    A column whose spec is partial (a type only, or bounds left open) is
    estimated; a complete spec is used as it is (the schema plan's rule).
    The kind answers (:meth:`~skdpgen.schema.ColumnKind.is_partial`); a
    spec of no registered type is None.

    Parameters
    ----------
    spec : dict
        A column's spec.

    Returns
    -------
    kind : str or None
        The name of the kind a partial spec declares.

    Examples
    --------
    >>> from skdpgen.schema import partial_kind
    >>> partial_kind({"type": "numeric"}), partial_kind({"type": "numeric", "bounds": [0, 1]})
    ('numeric', None)
    """
    if spec.get("type") not in KINDS:
        return None
    kind = kind_of(spec)
    return kind.name if kind.is_partial(spec) else None
