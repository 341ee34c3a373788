"""Times of day and durations: how they are read, written and binned.

A value is a **time** (the canonical form ``TIME`` of
:mod:`skdpgen._canonical`) when it is

* text of the form ``H:MM``, ``H:MM:SS`` or ``H:MM:SS.fff`` (one to seven
  digits of hours, minutes and seconds below 60), optionally after a count
  of days as pandas writes durations (``"1 days 02:00:00"``): ``"11:38:36"``,
  ``"07:05"``, ``"23:59:59.5"``, ``"26:30:00"`` (a duration);
* a :class:`datetime.time` (a time of day), or a :class:`datetime.timedelta`,
  :class:`pandas.Timedelta` or :class:`numpy.timedelta64` (a duration).

Its value is its length since midnight in nanoseconds (a time of day lies
in ``[0, 24 h)``, a duration may be longer). The schema's ``"time"`` kind
(:mod:`skdpgen.schema.kinds._time`) clips them to public bounds, and
writes them back as text (:func:`format_times`).

The public grid of the private bounds estimate (:func:`clock_grid`): the
24 hours of a day, then durations of 1-2 days, 2-4 days, … (doubling) up
to ``2**_DURATION_DOUBLINGS`` days; longer values fall in the last bin.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import datetime as _dt
import functools
import re

import numpy as np
import pandas as pd

__all__ = ["DAY_NS", "HOUR_NS", "MINUTE_NS", "clock_grid", "clock_label", "clock_positions",
           "format_times", "parse_clock", "time_value"]

#: Nanoseconds in a minute.
MINUTE_NS = 60 * 10**9
#: Nanoseconds in an hour (times on the hour are multiples of it, wall time).
HOUR_NS = 60 * MINUTE_NS
#: Nanoseconds in a day (whole days are multiples of it, wall time).
DAY_NS = 24 * HOUR_NS
#: Duration bins beyond a day: ``[2**j, 2**(j+1))`` days for ``j`` below this.
_DURATION_DOUBLINGS = 16
_LIMIT = np.iinfo(np.int64).max

_CLOCK_TEXT = re.compile(
    r"(?:(?P<days>\d{1,5}) days?,? )?(?P<h>\d{1,7}):(?P<m>[0-5]\d)"
    r"(?::(?P<s>[0-5]\d)(?:\.(?P<f>\d{1,9}))?)?")


def parse_clock(text):
    """Nanoseconds of a time's text (see the module docstring), or None.

    Examples
    --------
    >>> from skdpgen._clock import parse_clock
    >>> parse_clock("11:38:36") // 10**9, parse_clock("07:05") // 10**9
    (41916, 25500)
    >>> parse_clock("1 days 02:00:00") // 10**9, parse_clock("3:2"), parse_clock("11h")
    (93600, None, None)
    """
    match = _CLOCK_TEXT.fullmatch(text.strip())
    if match is None:
        return None
    days, h, m, s, f = match.group("days", "h", "m", "s", "f")
    seconds = ((int(days or 0) * 24 + int(h)) * 60 + int(m)) * 60 + int(s or 0)
    ns = seconds * 10**9 + int((f or "").ljust(9, "0"))
    return ns if ns <= _LIMIT else None


def time_value(value):
    """Nanoseconds of a time object or text (see the module docstring), or None.

    NaT durations are None too; a caller reads them as missing.
    """
    if isinstance(value, str):
        return parse_clock(value)
    if isinstance(value, _dt.time):
        return ((value.hour * 60 + value.minute) * 60 + value.second) * 10**9 + (
            value.microsecond * 1000)
    if isinstance(value, (_dt.timedelta, np.timedelta64)):
        try:
            delta = pd.Timedelta(value)
        except (ValueError, OverflowError):
            return None
        return None if delta is pd.NaT else int(delta.value)
    return None


def format_times(ns, missing, with_seconds=True):
    """Text of times (``HH:MM:SS``, or ``HH:MM``), None where ``missing``.

    Hours run past 23 for durations; a negative duration starts with ``-``.
    The sub-second part is left out (round ``ns`` first).

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen._clock import format_times
    >>> ns = np.array([41916, 25500, 95400, 0]) * 10**9
    >>> format_times(ns, np.array([False, False, False, True])).tolist()
    ['11:38:36', '07:05:00', '26:30:00', None]
    >>> format_times(ns[:2], np.zeros(2, bool), with_seconds=False).tolist()
    ['11:38', '07:05']
    """
    ns = np.asarray(ns, dtype=np.int64)
    seconds = np.abs(ns) // 10**9
    parts = zip((ns < 0).tolist(), (seconds // 3600).tolist(), (seconds // 60 % 60).tolist(),
                (seconds % 60).tolist(), np.asarray(missing, bool).tolist())
    if with_seconds:
        text = [None if gone else f"{'-' if neg else ''}{h:02d}:{m:02d}:{s:02d}"
                for neg, h, m, s, gone in parts]
    else:
        text = [None if gone else f"{'-' if neg else ''}{h:02d}:{m:02d}"
                for neg, h, m, _, gone in parts]
    return np.array(text, dtype=object)


def clock_label(ns):
    """The text of a grid edge or bound: ``HH:MM`` (whole minutes), else
    ``HH:MM:SS``, with the fraction of a second where there is one.

    Examples
    --------
    >>> from skdpgen._clock import clock_label
    >>> clock_label(8 * 3600 * 10**9), clock_label(5 * 10**9), clock_label(5 * 10**9 + 5 * 10**8)
    ('08:00', '00:00:05', '00:00:05.5')
    """
    ns = int(ns)
    text = str(format_times([ns], [False], with_seconds=ns % MINUTE_NS != 0)[0])
    fraction = abs(ns) % 10**9
    return text + f".{fraction:09d}".rstrip("0") if fraction else text


@functools.lru_cache(maxsize=1)
def _clock_edges():
    edges = [h * HOUR_NS for h in range(25)]
    edges += [2 ** (j + 1) * DAY_NS for j in range(_DURATION_DOUBLINGS)]
    return np.array(edges, dtype=np.int64)


def clock_grid():
    """The public grid of time bins, and its coarse groups.

    Returns
    -------
    edges : list of str
        The 41 bin edges: the hours ``"00:00"`` … ``"24:00"``, then
        ``"48:00"``, ``"96:00"`` … (durations of ``2**j`` days); bin ``k``
        runs from ``edges[k]`` to ``edges[k + 1]``. Negative values fall
        in the first bin, longer ones in the last.
    groups : ndarray of int
        The coarse group of each bin (the quarters of the day, then each
        duration bin alone), for :func:`~skdpgen.schema._ranges._occupied_range`.

    Examples
    --------
    >>> from skdpgen.private_schema import clock_grid
    >>> edges, groups = clock_grid()
    >>> len(edges), edges[8], edges[24], edges[25], groups[:8].tolist()
    (41, '08:00', '24:00', '48:00', [0, 0, 0, 0, 0, 0, 1, 1])
    """
    edges = _clock_edges()
    groups = np.concatenate([np.arange(24) // 6, 4 + np.arange(edges.size - 25)])
    return [clock_label(e) for e in edges.tolist()], groups


def clock_positions(ns):
    """The grid bin of each time (int64 nanoseconds, none missing), clipped to the grid."""
    edges = _clock_edges()
    at = np.searchsorted(edges, np.asarray(ns, dtype=np.int64), side="right") - 1
    return np.clip(at, 0, edges.size - 2)

