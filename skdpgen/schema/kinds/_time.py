"""Times of day and durations: ``{"type": "time", "bounds": ["08:00", "18:00"]}``.

A time column holds times of day (``"11:38:36"``, ``"07:05"``) or durations
(``"26:30:00"``, :class:`pandas.Timedelta`), read as their length since
midnight (:mod:`skdpgen._clock`), clipped to public bounds and
encoded like numbers and dates; its synthetic values are text, ``HH:MM:SS``
(or ``HH:MM``: the spec's ``"format"``, else its ``"resolution"`` decides,
never the rows).
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import numpy as np
import pandas as pd

from ...privacy import record_leak
from ..._canonical import MISSING, canonical
from ..._clock import (DAY_NS, HOUR_NS, MINUTE_NS, clock_grid, clock_label, clock_positions,
                      format_times, time_value)
from .._issues import _empty, _warn_guess, _warn_outside
from .._ranges import _bonferroni_z, _occupied_range
from ._binned import Binned, Scaled
from ._datetime import TIME_WEIGHT, time_flags
from ._kind import ColumnKind, complete_bounds, flag, open_bounds, record_present

__all__ = ["TimeKind"]

_NAT = np.iinfo(np.int64).min
#: The rounding step of synthetic values of each ``"resolution"`` (nanoseconds).
RESOLUTION_NS = {"second": 10**9, "minute": MINUTE_NS, "hour": HOUR_NS}
#: The written forms of a time (``"format"``), each with or without seconds.
_FORMATS = {"HH:MM:SS": True, "HH:MM": False}


def _time_bounds(key, bounds):
    """The bounds of a spec as nanoseconds (times such as ``"08:00"``)."""
    if not isinstance(bounds, (list, tuple)) or len(bounds) != 2:
        raise ValueError(
            f"Schema bounds of column {key!r} must be a pair [lo, hi], got {bounds!r}.")
    out = [time_value(b) if not isinstance(b, (bool, int, float)) else None for b in bounds]
    if None in out:
        raise ValueError(
            f"Schema bounds of time column {key!r} must be times such as \"08:00\" or "
            f"\"18:30:00\" (durations: \"36:00:00\"), got {bounds!r}.")
    if not out[0] < out[1]:
        raise ValueError(
            f"Schema bounds of time column {key!r} must have lo < hi, got {bounds!r}.")
    return out


def _with_seconds(spec):
    """Whether the column's values are written with their seconds (``HH:MM:SS``)."""
    if spec.get("format") is not None:
        return _FORMATS[spec["format"]]
    return spec.get("resolution", "second") == "second"


def _step(spec):
    """The rounding step of the written values: the resolution's, at least a
    minute when the seconds are not written."""
    step = RESOLUTION_NS[spec.get("resolution") or "second"]
    return step if _with_seconds(spec) else max(step, MINUTE_NS)


def _time_ns(column, spec):
    """int64 nanoseconds of a column clipped to its bounds, and its missing mask."""
    ns = canonical(column).times()
    missing = ns == _NAT
    lo, hi = _time_bounds(None, spec["bounds"])
    return np.clip(np.where(missing, lo, ns), lo, hi), missing, lo, hi


def _decode_time(spec, unit, missing, is_frame):
    """The written times of positions ``unit`` on ``[0, 1]`` of the bounds.

    Rounded to the spec's step (never the sub-second digits of the
    generator's noise) within the bounds; a time of day never reads
    ``24:00``: with an upper bound of exactly a day, the last value written
    is one step below it."""
    lo, hi = _time_bounds(None, spec["bounds"])
    step = _step(spec)
    top = hi - step if hi == DAY_NS and hi - step >= lo else hi
    ns = lo + np.round(np.clip(unit, 0.0, 1.0) * float(hi - lo)).astype(np.int64)
    ns = np.clip((ns + step // 2) // step * step, lo, top)
    text = format_times(ns, missing, with_seconds=_with_seconds(spec))
    return pd.Series(text, dtype=object) if is_frame else text  # object, as output_dtype


class _Scaled(Scaled):
    """One column of the numeric block (the time scaled to [-1, 1])."""

    def read(self, column):
        return _time_ns(column, self.spec)

    def decode_unit(self, unit, missing, is_frame):
        return _decode_time(self.spec, unit, missing, is_frame)


class _Binned(Binned, _Scaled):
    """The column's equal-width bins of its bounds, a one-hot block."""


def _time_statistic(ns):
    """``[clock histogram, TIME_WEIGHT × count not on the minute, TIME_WEIGHT ×
    count not on the hour, missing count]`` of times (int64 ns, NaT missing)."""
    nat = ns == _NAT
    present = ns[~nat]
    not_minute = TIME_WEIGHT * float(np.sum(present % MINUTE_NS != 0))
    not_hour = TIME_WEIGHT * float(np.sum(present % HOUR_NS != 0))
    edges, _ = clock_grid()
    hist = np.bincount(clock_positions(present), minlength=len(edges) - 1)
    return np.concatenate([hist, [not_minute, not_hour, nat.sum()]]).astype(np.float64)


def _resolution(minutes, hours):
    return "hour" if hours else "minute" if minutes else "second"


class TimeKind(ColumnKind):
    """Times of day and durations, clipped to public bounds (the statistic: a
    histogram over the hours of a day and durations of doubling days)."""

    name = type = "time"
    is_bounded = True
    release = "schema: time"
    sensitivity = np.sqrt(3.0)

    def check_spec(self, key, spec):
        self.require(key, spec, "bounds")
        lo, hi = _time_bounds(key, spec["bounds"])
        out = {"type": "time", "bounds": [clock_label(lo), clock_label(hi)]}
        for name, allowed in (("resolution", RESOLUTION_NS), ("format", _FORMATS)):
            value = spec.get(name)
            if value is None:
                continue
            if value not in allowed:
                raise ValueError(
                    f"Schema {name!r} of time column {key!r} must be one of "
                    f"{sorted(allowed)} or absent, got {value!r}.")
            out[name] = value
        if flag(key, spec, "impute"):
            out["impute"] = True
        return out

    def output_dtype(self, spec):
        return np.dtype(object)

    def codec(self, key, spec, *, max_levels=0, bins=0):
        return _Binned(key, spec, bins) if bins else _Scaled(key, spec)

    def is_partial(self, spec):
        return open_bounds(spec)

    def spec_from_dtype(self, dtype):
        return {"type": "time"}

    def written_as(self, spec):
        return f"times in {list(spec['bounds'])}"

    def read_values(self, key, canon, spec):
        """The values as hours (NaN: missing or not a time), the bounds too."""
        ns = canon.times()
        hours = ns / HOUR_NS
        hours[ns == _NAT] = np.nan
        bounds = complete_bounds(self, key, spec)
        return hours, None if bounds is None else tuple(
            b / HOUR_NS for b in _time_bounds(key, bounds)), None

    def check_values(self, key, canon, spec):
        """Values that are no time are not parsed; times outside the bounds clipped."""
        ns = canon.times()
        absent = ns == _NAT
        lo, hi = _time_bounds(key, spec["bounds"])
        return {"not_parsed": int(np.sum(absent & (canon.form != MISSING))),
                "clipped": int(np.sum(~absent & ((ns < lo) | (ns > hi))))}, absent

    def read(self, key, canon, context):
        record_leak(
            "bounds",
            f"The bounds of time column {key!r} were read from the private data (its "
            "first and last hour, whether every value is a whole hour or minute, and its "
            "missing flag) and are released with the model without privacy. Declare them "
            "in the schema to avoid this.", column=key)
        ns = canon.times()
        missing = bool(np.any(ns == _NAT))
        ns = ns[ns != _NAT]
        lo = int(ns.min()) // HOUR_NS * HOUR_NS if ns.size else 0
        hi = -(-int(ns.max()) // HOUR_NS) * HOUR_NS if ns.size else DAY_NS
        minutes, hours = (bool(np.all(ns % step == 0)) for step in (MINUTE_NS, HOUR_NS))
        return {"type": "time", "bounds": [clock_label(lo), clock_label(max(hi, lo + HOUR_NS))],
                "missing": missing, "resolution": _resolution(minutes, hours)}

    def statistic(self, canon, context):
        """``[clock histogram, TIME_WEIGHT × count not on the minute, TIME_WEIGHT
        × count not on the hour, missing count]`` of the column's times
        (``TIME_WEIGHT = 1/√2``; the histogram over
        :func:`~skdpgen._clock.clock_grid`).

        Notes
        -----
        **Sensitivity** (replace-one), as the datetime release's. Two
        present values move one count between two bins (``√2``) and may
        differ in their minutes and seconds: one on the hour against one
        not on the minute changes both weighted counts by ``1/√2``, so
        ``√(2 + 1/2 + 1/2) = √3``; a present value not on the minute
        against a missing one (or one that is not a time) changes its bin,
        both weighted counts and the missing count: ``√(1 + 1/2 + 1/2 + 1)
        = √3``. ``Δ = √3``, attained.
        """
        return _time_statistic(canon.times())

    def estimate(self, key, noisy, s, n, context):
        minutes, hours, missing = time_flags(key, noisy, s, n, context)
        edges, groups = clock_grid()
        # the least present rows a range is found from: all of them in one
        # group of one bin (a duration bin), at its threshold
        record_present(context, key, n, noisy[-1], s, _bonferroni_z(int(groups[-1]) + 1) * s)
        hist = noisy[:len(edges) - 1]
        found = _occupied_range(hist, [groups], s, guess=False)
        first, last = found or _occupied_range(hist, [groups], s)
        spec = {"type": "time", "bounds": [edges[first], edges[last + 1]], "missing": missing,
                "impute": not missing, "resolution": _resolution(minutes, hours)}
        spec.update({k: context.partial[k] for k in ("resolution", "format")
                     if context.partial.get(k) is not None})  # declared: public
        if found is None:  # a guess, unless no row has a value
            if not _empty(missing, noisy[-1], n, s, context.flag_stds):
                _warn_guess(key, f"its bounds {spec['bounds']}", n, s)
        else:
            _warn_outside(key, spec["bounds"], hist[first:last + 1], noisy[-1], n, s)
        return spec

