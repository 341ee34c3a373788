"""Leaks on the record: values read from the private data without noise."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import contextlib
import contextvars
import numbers
import os
import sys
import warnings
from dataclasses import dataclass

__all__ = ["PrivacyLeak", "PrivacyLeakWarning", "leak_ledger", "outside_stacklevel", "record_leak"]


class PrivacyLeakWarning(RuntimeWarning):
    """Something data-dependent leaves a fit without differential privacy.

    Raised (as a warning, always shown) when a fitted object takes a value
    from the private data without noise: a bound, a category or class list,
    a length scale. The message says what leaked and which parameter makes it
    public instead.

    Parameters
    ----------
    message : str
        The text of the warning, in Python's words.
    leak : PrivacyLeak, default=None
        The leak on the record, when :func:`record_leak` raised the warning:
        its ``what``, ``column`` and ``remedy`` word the same warning for
        another interface (:meth:`explain`).
    """

    def __init__(self, message, *, leak=None):
        super().__init__(message)
        #: The :class:`PrivacyLeak` warned of, or None (a warning raised
        #: with a text only).
        self.leak = leak

    @property
    def column(self):
        """The column concerned, or None."""
        return None if self.leak is None else self.leak.column

    @property
    def remedy(self):
        """What makes the value public instead (``"classes"``, ``"bounds"``), or None."""
        return None if self.leak is None else self.leak.remedy

    def explain(self, interface="python"):
        """The text of the warning in the words of ``interface`` (see
        :meth:`PrivacyLeak.explain`)."""
        return str(self) if self.leak is None else self.leak.explain(interface)


#: Each interface's words for what makes a leaked value public instead, by
#: remedy: Python's parameters, and the flags and schema file of the command
#: line. A leak with a ``remedy`` is explained as what leaked followed by its
#: remedy's words and "to avoid this." (see :meth:`PrivacyLeak.explain`).
_REMEDIES = {
    "python": {
        "classes": "Pass classes=[...] (the public list of possible labels)",
        "bounds": "Pass public bounds in the schema, or bounds=(lo, hi),",
    },
    "cli": {
        "classes": "Pass --classes a,b,c (the public list of possible labels)",
        "bounds": "Pass public bounds in the --schema file",
    },
}


# Always shown by default; appended, so that filters the user set first (e.g.
# ``-W error`` or ``simplefilter("error", PrivacyLeakWarning)``) still win.
warnings.simplefilter("always", PrivacyLeakWarning, append=True)

# the skdpgen package (this module is in skdpgen/privacy/)
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def outside_stacklevel():
    """The ``stacklevel`` of the first frame outside skdpgen, for :func:`warnings.warn`.

    Called by the function that warns: its warnings then point at the line
    of the user's code that led there (``fit(...)``, ``estimate_schema(...)``),
    not at a line inside the package, however deep the call. When every
    frame is skdpgen's (the command line), the outermost one.

    Returns
    -------
    stacklevel : int

    Examples
    --------
    >>> from skdpgen.privacy import outside_stacklevel
    >>> def warns():  # a function outside skdpgen: its caller is the user's line
    ...     return outside_stacklevel()
    >>> warns()
    2
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
        What leaked. Without a ``remedy``, the full explanation (the text of
        the warning), with what makes the value public instead; with one,
        the explanation up to the remedy, whose words :meth:`explain` adds.
    remedy : {"classes", "bounds"} or None, default=None
        What makes the value public instead, worded by each interface in
        its own words: Python's parameter or the command line's option.
    """

    what: str
    column: object
    why: str
    remedy: str = None

    def explain(self, interface="python"):
        """The full explanation, its remedy in the words of ``interface``.

        Parameters
        ----------
        interface : {"python", "cli"}, default="python"
            Whose options the remedy names: Python's parameters, or the
            command line's flags and schema file.

        Returns
        -------
        text : str

        Examples
        --------
        >>> from skdpgen.privacy import PrivacyLeak
        >>> leak = PrivacyLeak("classes", None, "Read.", remedy="classes")
        >>> leak.explain()
        'Read. Pass classes=[...] (the public list of possible labels) to avoid this.'
        >>> leak.explain("cli")
        'Read. Pass --classes a,b,c (the public list of possible labels) to avoid this.'
        """
        if self.remedy is None:
            return self.why
        return f"{self.why} {_REMEDIES[interface][self.remedy]} to avoid this."

    def worded(self, interface):
        """The same leak, its full explanation in the words of ``interface`` (no
        remedy left to word: see :meth:`explain`)."""
        return PrivacyLeak(self.what, self.column, self.explain(interface))

    def to_dict(self):
        """``{"what", "column", "why"}``, JSON-serializable (``why`` in full: its
        remedy, if any, in Python's words)."""
        column = self.column
        if column is not None and not isinstance(column, (str, int)):
            column = int(column) if isinstance(column, numbers.Integral) else str(column)
        return {"what": self.what, "column": column, "why": self.explain()}

    def __str__(self):
        where = "" if self.column is None else f" of column {self.column!r}"
        return f"{self.what}{where}: {self.explain()}"


# The leaks of the fit under way (a list), or None outside any fit.
_LEDGER = contextvars.ContextVar("skdpgen_leak_ledger", default=None)
# The seed of reproducible_noise, or None (fresh OS entropy).
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


def record_leak(what, why, *, column=None, remedy=None, stacklevel=None):
    """Record that a value was read from the private data without noise.

    Adds a :class:`PrivacyLeak` to the ledger of the fit under way (see
    :func:`leak_ledger`), whatever the warning filters, and raises a
    :class:`PrivacyLeakWarning` with its explanation (in Python's words)
    as its message.

    Parameters
    ----------
    what : str
        The kind of value (``"bounds"``, ``"categories"``, ``"classes"``, …).
    why : str
        What leaked and, without ``remedy``, which parameter makes it public
        instead.
    column : str, int or None, default=None
        The column concerned.
    remedy : {"classes", "bounds"} or None, default=None
        What makes the value public instead, when interfaces name it in
        different words: the warning then ends with Python's (see
        :meth:`PrivacyLeak.explain`) and carries the key for the others.
    stacklevel : int, default=None
        Passed to :func:`warnings.warn` (counted from the caller). None:
        the first frame outside skdpgen (the user's line that led here).

    Returns
    -------
    leak : PrivacyLeak
    """
    leak = PrivacyLeak(what, column, why, remedy)
    ledger = _LEDGER.get()
    if ledger is not None and leak not in ledger:
        ledger.append(leak)
    if stacklevel is None:
        stacklevel = outside_stacklevel() - 1
    warnings.warn(PrivacyLeakWarning(leak.explain(), leak=leak), stacklevel=stacklevel + 1)
    return leak
