"""The methods of the command line, registered by the estimators themselves.

An estimator class registers under a name with :func:`register`; the command
line (``skdpgen synthesize --method NAME``) lists and builds exactly the
registered ones. A registered class has

* constructor parameters named after the command's options it takes
  (``schema``, ``classes``, ``random_state``, ``device``, ``verbose``,
  ``infer_schema``, ``schema_share``, ``on_guess``): the command line
  passes each option to the parameter of the same name (``skdpgen.cli``
  maps its options to parameters; the estimator knows nothing of it), and a
  table the estimator cannot handle is a ``ValueError`` of its ``fit``
  with a one-line reason;
* a boolean class attribute ``supports_labels``, and optionally a class
  attribute ``display_name`` (what summaries call it, ``"DP-HP"``; by
  default its name here);
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
    >>> import skdpgen.release, skdpgen.synthesizers  # their estimators register
    >>> from skdpgen.registry import methods
    >>> sorted(methods())
    ['dphp', 'dpmerf', 'marginals', 'release']
    """
    return dict(sorted(_METHODS.items()))
