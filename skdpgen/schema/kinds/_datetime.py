"""Datetime columns: ``{"type": "datetime", "bounds": [lo, hi], "timezone": …}``."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import datetime
import re
from datetime import tzinfo

import numpy as np
import pandas as pd

from ...privacy import record_leak
from ..._canonical import DAY_NS, HOUR_NS, MISSING, canonical
from .._flags import _flags
from .._grids import _N_YEARS, _year_label, year_positions
from .._issues import _empty, _missing_flag, _warn_guess, _warn_outside
from .._ranges import _bonferroni_z
from .._ranges import _occupied_range
from ._binned import Binned, Scaled
from ._kind import ColumnKind, complete_bounds, flag, open_bounds, record_present

__all__ = ["DatetimeKind", "month_starts", "time_flags", "timestamp_ns", "wall_ns"]

_NAT = np.iinfo(np.int64).min  # NaT as int64 nanoseconds
#: Weight of the counts of values not on the minute and not on the hour in the
#: time release: ``1/√2`` each, so that both fit in the sensitivity ``√3`` (see
#: :meth:`~skdpgen.schema.kinds._time.TimeKind.statistic`).
TIME_WEIGHT = np.sqrt(0.5)
#: Weight of the counts of values not on a month's first day at midnight, not at
#: midnight and not on the hour in the datetime release: ``1/√3`` each, so that
#: the three fit in the sensitivity ``√3`` that the count not at midnight alone
#: had (see :meth:`DatetimeKind.statistic`).
DATE_WEIGHT = np.sqrt(1.0 / 3.0)
#: The rounding step of synthetic values of each ``"resolution"`` (nanoseconds);
#: ``"month"``: the first day of the nearest month.
RESOLUTION_NS = {"day": DAY_NS, "hour": HOUR_NS, "second": 10**9}
_RESOLUTIONS = ("month", *RESOLUTION_NS)


def timestamp_ns(ts):
    """Nanoseconds since the epoch (UTC for tz-aware, wall time for naive)."""
    return int(ts.value)


def _check_timezone(key, tz):
    if tz is None:
        return None
    if not isinstance(tz, (str, tzinfo)):
        raise ValueError(
            f"Schema timezone of column {key!r} must be a timezone name or None, got {tz!r}."
        )
    try:
        pd.Timestamp("2000-01-01").tz_localize(tz)
    except Exception as exc:  # unknown names raise various errors
        raise ValueError(f"Schema timezone of column {key!r} is unknown: {tz!r}.") from exc
    return tz


def _date_only(bound):
    """Whether a declared bound is a date without a time of day (``"2020-01-31"``,
    a ``datetime.date``): the resolution such bounds imply is a day."""
    if isinstance(bound, str):
        return re.fullmatch(r"\s*[+-]?\d{4,}-\d{1,2}-\d{1,2}\s*", bound) is not None
    return isinstance(bound, datetime.date) and not isinstance(bound, datetime.datetime)


def _datetime_bounds(key, bounds, tz):
    """The datetime bounds of a spec as Timestamps in ``tz`` (naive without)."""
    if not isinstance(bounds, (list, tuple)) or len(bounds) != 2:
        raise ValueError(
            f"Schema bounds of column {key!r} must be a pair [lo, hi], got {bounds!r}."
        )
    out = []
    for b in bounds:
        try:
            ts = pd.Timestamp(b)
        except (ValueError, TypeError, OverflowError) as exc:
            raise ValueError(
                f"Schema bounds of datetime column {key!r} must be dates, got {b!r}."
            ) from exc
        if ts is pd.NaT or pd.isna(ts):
            raise ValueError(f"Schema bounds of datetime column {key!r} must be dates, got {b!r}.")
        try:
            if tz is not None:
                ts = ts.tz_localize(tz) if ts.tz is None else ts.tz_convert(tz)
            elif ts.tz is not None:  # a naive column: UTC wall times
                ts = ts.tz_convert("UTC").tz_localize(None)
            ts = ts.as_unit("ns")
            timestamp_ns(ts)
        except Exception as exc:  # out of the ns range, nonexistent local times
            raise ValueError(
                f"Schema bounds of datetime column {key!r}: {b!r} is not a valid time "
                f"between 1677 and 2262 in timezone {tz!r} ({exc})."
            ) from exc
        out.append(ts)
    lo, hi = out
    if not lo < hi:
        raise ValueError(
            f"Schema bounds of datetime column {key!r} must have lo < hi, got [{lo}, {hi}]."
        )
    if timestamp_ns(hi) - timestamp_ns(lo) >= 2**63:
        raise ValueError(f"Schema bounds of datetime column {key!r} span more than 292 years.")
    return out


def wall_ns(canon, timezone):
    """Wall times (int64 ns) of a column's dates on its clock (NaT elsewhere)."""
    if timezone is None:
        return canon.datetimes(None)
    utc = canon.datetimes(timezone)
    idx = pd.DatetimeIndex(utc.view("M8[ns]")).tz_localize("UTC").tz_convert(timezone)
    return idx.tz_localize(None).asi8


def _datetime_ns(column, spec):
    """int64 nanoseconds of a column clipped to its bounds, and its missing mask.

    Every value is read through its canonical form: dates (of any type or
    spelling) on the column's clock, anything else missing (see
    :mod:`skdpgen._canonical`).
    """
    ns = canonical(column).datetimes(spec["timezone"])
    missing = ns == _NAT
    lo, hi = (timestamp_ns(b) for b in spec["bounds"])
    return np.clip(np.where(missing, lo, ns), lo, hi), missing, lo, hi


def _decode_datetime(spec, unit, missing):
    lo, hi = (timestamp_ns(b) for b in spec["bounds"])
    width = hi - lo  # < 2**63
    offset = np.clip(np.round(unit * float(width)), 0.0, float(width))
    # float(width) may round up to 2**63: cast only what fits, then clip exactly
    fits = offset < 2.0**63
    offset = np.where(fits, offset, 0.0).astype(np.int64)
    offset[~fits] = width
    ns = lo + np.minimum(offset, width)
    # whole months, days or hours (as the data, wall time) or, by default, whole
    # seconds: never the sub-second digits of the generator's noise
    resolution = spec.get("resolution") or "second"
    if resolution == "month":
        ns = np.clip(_nearest_month(ns), lo, hi)
    else:
        step = RESOLUTION_NS[resolution]
        ns = np.clip((ns + step // 2) // step * step, lo, hi)
    ns[missing] = _NAT
    values = ns.view("M8[ns]")
    if spec["timezone"] is None:
        return values
    return pd.DatetimeIndex(values).tz_localize("UTC").tz_convert(spec["timezone"]).array


def time_flags(key, noisy, s, n, context, weight=TIME_WEIGHT, counts=2):
    """The flags of a release ending in ``counts`` weighted counts of values not on
    a unit (in the release's order: the datetime kind's not on a month's first
    day, not at midnight, not on the hour; the time kind's not on the minute,
    not on the hour), then the missing count: ``(*flags, missing)``,
    each unit's flag (every value on it) decided like the integer flag of
    numeric columns on its weighted count scaled back (noise std ``s/weight``);
    post-processing of the release."""
    s_count = s / weight
    flags = [_flags(noisy[-1 - counts + k] / weight, noisy[-1], n, s_count,
                    context.flag_stds, s_missing=s)[0] for k in range(counts)]
    missing = _flags(None, noisy[-1], n, s_count, context.flag_stds, s_missing=s)[1]
    return (*flags, _missing_flag(key, missing, noisy[-1], s, n, context.partial))


def month_starts(wall):
    """Whether each wall time (int64 ns) is a month's first day at midnight."""
    return _nearest_month(wall, floor=True) == wall


def _nearest_month(ns, floor=False):
    """The first day of the month nearest each time (int64 ns; ``floor``: of its
    own month), at midnight."""
    months = np.asarray(ns, dtype=np.int64).view("M8[ns]").astype("M8[M]")
    start = months.astype("M8[ns]").view(np.int64)
    if floor:
        return start
    following = (months + 1).astype("M8[ns]").view(np.int64)
    return np.where(ns - start <= following - ns, start, following)


def _resolution(months, days, hours):
    return "month" if months else "day" if days else "hour" if hours else "second"


class _Scaled(Scaled):
    """One column of the numeric block (nanoseconds scaled to [-1, 1])."""

    def read(self, column):
        return _datetime_ns(column, self.spec)

    def decode_unit(self, unit, missing, is_frame):
        return _decode_datetime(self.spec, unit, missing)


class _Binned(Binned, _Scaled):
    """The column's equal-width bins of its bounds, a one-hot block."""


def _datetime_statistic(wall):
    """``[yearly histogram, DATE_WEIGHT × count not on a month's first day at
    midnight, DATE_WEIGHT × count not at midnight, DATE_WEIGHT × count not on
    the hour, missing count]`` of wall times."""
    nat = wall == _NAT
    present = wall[~nat]
    not_month = DATE_WEIGHT * float(np.sum(~month_starts(present)))
    not_midnight = DATE_WEIGHT * float(np.sum(present % DAY_NS != 0))
    not_hour = DATE_WEIGHT * float(np.sum(present % HOUR_NS != 0))
    hist = np.bincount(year_positions(present), minlength=_N_YEARS)
    return np.concatenate([hist, [not_month, not_midnight, not_hour, nat.sum()]]).astype(
        np.float64)


class DatetimeKind(ColumnKind):
    """Dates and times, clipped to public bounds on the column's clock (the
    statistic: a yearly histogram)."""

    name = type = "datetime"
    is_bounded = True
    release = "schema: datetime"
    sensitivity = np.sqrt(3.0)

    def check_spec(self, key, spec):
        self.require(key, spec, "bounds")
        tz = _check_timezone(key, spec.get("timezone"))
        out = {"type": "datetime", "bounds": _datetime_bounds(key, spec["bounds"], tz),
               "timezone": tz}
        resolution = spec.get("resolution")
        if resolution not in (None, *_RESOLUTIONS):
            raise ValueError(
                f"Schema 'resolution' of column {key!r} must be 'month', 'day', 'hour', "
                f"'second' or absent, got {resolution!r}."
            )
        if resolution is None and all(map(_date_only, spec["bounds"])):
            resolution = "day"  # bounds written as dates: a column of dates
        if resolution is not None:
            out["resolution"] = resolution
        for name in ("impute", "coerce"):  # "coerce": accepted; every column coerces now
            if flag(key, spec, name):
                out[name] = True
        return out

    def output_dtype(self, spec):
        tz = spec.get("timezone")
        return np.dtype("datetime64[ns]") if tz is None else pd.DatetimeTZDtype("ns", tz)

    def codec(self, key, spec, *, max_levels=0, bins=0):
        return _Binned(key, spec, bins) if bins else _Scaled(key, spec)

    def is_partial(self, spec):
        return open_bounds(spec)

    def spec_from_dtype(self, dtype):
        """``{"type": "datetime"}``, with the timezone of a tz-aware dtype."""
        spec = {"type": "datetime"}
        if isinstance(dtype, pd.DatetimeTZDtype):
            spec["timezone"] = str(dtype.tz)
        return spec

    def written_as(self, spec):
        return f"dates in {list(spec['bounds'])}"

    def read_values(self, key, canon, spec):
        """The values as days since 1970-01-01 (UTC instants with the spec's
        timezone, else wall times; NaN: missing or not a date), the bounds too."""
        ns = canon.datetimes(spec.get("timezone"))
        days = ns / DAY_NS
        days[ns == _NAT] = np.nan
        bounds = complete_bounds(self, key, spec)
        return days, None if bounds is None else tuple(timestamp_ns(b) / DAY_NS
                                                       for b in bounds), None

    def check_values(self, key, canon, spec):
        """Values that are no date are not parsed; dates outside the bounds clipped."""
        ns = canon.datetimes(spec.get("timezone"))
        absent = ns == _NAT
        lo, hi = (timestamp_ns(b) for b in spec["bounds"])
        return {"not_parsed": int(np.sum(absent & (canon.form != MISSING))),
                "clipped": int(np.sum(~absent & ((ns < lo) | (ns > hi))))}, absent

    def read(self, key, canon, context):
        record_leak(
            "bounds",
            f"The bounds of datetime column {key!r} were read from the private data (its "
            "first and last day, whether every value is a month's first day, a whole day "
            "or hour, and its missing flag) and are released with the model without "
            "privacy. Declare them in the schema to avoid this.",
            column=key,
        )
        timezone = context.partial.get("timezone")
        wall = wall_ns(canon, timezone)
        missing = bool(np.any(wall == _NAT))
        wall = wall[wall != _NAT]
        if wall.size == 0:
            bounds = [_year_label(0), _year_label(_N_YEARS)]
        else:
            lo = pd.Timestamp(int(wall.min())).floor("D")
            hi = max(pd.Timestamp(int(wall.max())).ceil("D"), lo + pd.Timedelta(days=1))
            bounds = [lo.strftime("%Y-%m-%d"), hi.strftime("%Y-%m-%d")]
        days, hours = (bool(np.all(wall % step == 0)) for step in (DAY_NS, HOUR_NS))
        months = bool(np.all(month_starts(wall)))
        return {"type": "datetime", "bounds": bounds, "missing": missing, "timezone": timezone,
                "resolution": _resolution(months, days, hours)}

    def statistic(self, canon, context):
        """``[yearly histogram, DATE_WEIGHT × count not on a month's first day at
        midnight, DATE_WEIGHT × count not at midnight, DATE_WEIGHT × count not
        on the hour, missing count]`` of the column's wall times
        (``DATE_WEIGHT = 1/√3``).

        Notes
        -----
        **Sensitivity** (replace-one). The three weighted counts are nested
        (a value not on the hour is not at midnight, and one not at midnight
        is no month's start): a value adds 0 or 1 to each, so two values'
        contributions differ by at most 1 in each, ``3 · (1/√3)² = 1`` in
        all. Two present values move one count between two bins (``√2``),
        so ``√(2 + 1) = √3``; a present value against a missing one (or one
        that is not a date) changes its bin, the missing count and at most
        the three weighted counts: ``√(1 + 1 + 1) = √3``. ``Δ = √3``,
        attained (a month's first day against a value not on the hour in
        another year), as when the count not at midnight alone was released
        at weight 1.
        """
        return _datetime_statistic(wall_ns(canon, context.partial.get("timezone")))

    def estimate(self, key, noisy, s, n, context):
        months, days, hours, missing = time_flags(key, noisy, s, n, context,
                                                  weight=DATE_WEIGHT, counts=3)
        decades = [np.arange(_N_YEARS) // 10]
        # the least present rows a range is found from: all in one year, or in
        # one decade (the sum of ten years' counts), at its threshold
        needed = min(_bonferroni_z(_N_YEARS) * s,
                     _bonferroni_z(int(decades[0][-1]) + 1) * s * np.sqrt(10.0))
        record_present(context, key, n, noisy[-1], s, needed)
        found = _occupied_range(noisy[:-4], decades, s, guess=False)
        first, last = found or _occupied_range(noisy[:-4], decades, s)
        spec = {"type": "datetime", "bounds": [_year_label(first), _year_label(last + 1)],
                "missing": missing, "timezone": context.partial.get("timezone"),
                "impute": not missing}
        if found is None:  # a guess, unless no row has a value
            if not _empty(missing, noisy[-1], n, s, context.flag_stds):
                _warn_guess(key, f"its bounds {spec['bounds']}", n, s)
        else:
            _warn_outside(key, spec["bounds"], noisy[first:last + 1], noisy[-1], n, s)
        spec["resolution"] = _resolution(months, days, hours)
        return spec
