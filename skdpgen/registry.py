"""The methods of the command line, registered by the estimators themselves.

An estimator class registers under a name with :func:`register`; the command
line (``skdpgen synthesize --method NAME``) lists and builds exactly the
registered ones. A registered class has

* a classmethod ``from_cli(*, columns, schema, classes, labeled,
  random_state, device, verbose, infer_schema, schema_share,
  allow_guesses)`` that builds an instance for a table with these columns
  and public schema (``labeled``: whether a target column was given,
  ``classes``: its declared categories or None, ``infer_schema``: what to
  do with what the schema leaves out, ``schema_share``: its share of the
  budget, a float or ``"auto"``, ``allow_guesses``: False when a private
  schema estimate that guessed should stop the fit before anything else
  is released, by raising ``SchemaEstimateError``), or raises
  ``ValueError`` with a one-line reason when it cannot handle the table;
* a boolean class attribute ``supports_labels``;
* ``fit(X, y, *, epsilon, delta)``, ``privacy_report_``, ``schema_issues_``
  (optional: the weak spots of a private schema estimate) and
  ``sample(n, random_state=...)`` returning rows, or ``(rows, labels)``.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

__all__ = ["methods", "register"]

_METHODS = {}


def register(name):
    """Class decorator: make an estimator a command-line method called ``name``.

    Parameters
    ----------
    name : str

    Returns
    -------
    decorator : callable
    """

    def decorate(cls):
        if name in _METHODS and _METHODS[name] is not cls:
            raise ValueError(f"A method named {name!r} is already registered.")
        _METHODS[name] = cls
        return cls

    return decorate


def methods():
    """The registered methods: ``name -> estimator class``, sorted by name.

    Returns
    -------
    methods : dict

    Examples
    --------
    >>> import skdpgen
    >>> from skdpgen.registry import methods
    >>> sorted(methods())
    ['dphp', 'dpmerf', 'release']
    """
    return dict(sorted(_METHODS.items()))
