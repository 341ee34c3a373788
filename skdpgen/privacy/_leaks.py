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

__all__ = ["PrivacyLeak", "PrivacyLeakWarning", "leak_ledger", "record_leak"]


class PrivacyLeakWarning(RuntimeWarning):
    """Something data-dependent leaves a fit without differential privacy.

    Raised (as a warning, always shown) when a fitted object takes a value
    from the private data without noise: a bound, a category or class list,
    a length scale. The message says what leaked and which parameter makes it
    public instead.
    """


# Always shown by default; appended, so that filters the user set first (e.g.
# ``-W error`` or ``simplefilter("error", PrivacyLeakWarning)``) still win.
warnings.simplefilter("always", PrivacyLeakWarning, append=True)

# the skdpgen package (this module is in skdpgen/privacy/)
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _outside_stacklevel():
    """The ``stacklevel`` of the first frame outside skdpgen, for :func:`warnings.warn`.

    Called by the function that warns: its warnings then point at the line
    of the user's code that led there (``fit(...)``, ``estimate_schema(...)``),
    not at a line inside the package, however deep the call. When every
    frame is skdpgen's (the command line), the outermost one.
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
        The full explanation (the text of the warning), with the parameter
        that makes the value public instead.
    """

    what: str
    column: object
    why: str

    def to_dict(self):
        """``{"what", "column", "why"}``, JSON-serializable."""
        column = self.column
        if column is not None and not isinstance(column, (str, int)):
            column = int(column) if isinstance(column, numbers.Integral) else str(column)
        return {"what": self.what, "column": column, "why": self.why}

    def __str__(self):
        where = "" if self.column is None else f" of column {self.column!r}"
        return f"{self.what}{where}: {self.why}"


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


def record_leak(what, why, *, column=None, stacklevel=None):
    """Record that a value was read from the private data without noise.

    Adds a :class:`PrivacyLeak` to the ledger of the fit under way (see
    :func:`leak_ledger`), whatever the warning filters, and raises a
    :class:`PrivacyLeakWarning` with ``why`` as its message.

    Parameters
    ----------
    what : str
        The kind of value (``"bounds"``, ``"categories"``, ``"classes"``, …).
    why : str
        What leaked and which parameter makes it public instead.
    column : str, int or None, default=None
        The column concerned.
    stacklevel : int, default=None
        Passed to :func:`warnings.warn` (counted from the caller). None:
        the first frame outside skdpgen (the user's line that led here).

    Returns
    -------
    leak : PrivacyLeak
    """
    leak = PrivacyLeak(what, column, why)
    ledger = _LEDGER.get()
    if ledger is not None and leak not in ledger:
        ledger.append(leak)
    if stacklevel is None:
        stacklevel = _outside_stacklevel() - 1
    warnings.warn(why, PrivacyLeakWarning, stacklevel=stacklevel + 1)
    return leak


