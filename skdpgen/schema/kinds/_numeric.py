"""Numeric columns: ``{"type": "numeric", "bounds": [lo, hi], "integer": …}``."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import numpy as np
import pandas as pd

from ...privacy import record_leak
from ..._canonical import MISSING, canonical
from .._cells import mass_quantiles
from .._flags import _flags
from .._grids import FINE_BINS, _fine_positions, _integer_bins, _numeric_grid, _numeric_positions
from .._issues import _empty, _missing_flag, _warn_guess, _warn_outside_share, _warn_unlocated
from .._mass import _follow_mass, _outside_mass, _trim_tail
from .._points import _check_points, point_masses, zero_cell
from .._policy import POLICY
from .._ranges import (_bonferroni_z, _finish_bounds, _numeric_range, _refined_range,
                      _unlocated_share)
from ._binned import Binned, _snap
from ._kind import (ColumnCodec, ColumnKind, complete_bounds, flag, one_hot_rows, open_bounds,
                    record_present)

__all__ = ["NumericKind", "n_levels", "numeric_layout"]

def n_levels(lo, hi):
    """How many integers lie in ``[lo, hi]``."""
    return max(int(np.floor(hi)) - int(np.ceil(lo)) + 1, 0)


class _Scaled(ColumnCodec):
    """One column of the numeric block: ``2 (v − lo)/(hi − lo) − 1``, the centre
    where missing, with a ``[present, missing]`` indicator when declared."""

    numeric = True

    def __init__(self, key, spec):
        super().__init__(key, spec)
        self.indicator = bool(spec.get("missing", False))
        # "zero": an exact-zero point mass at an end of the bounds, encoded with
        # a [non-zero, zero] indicator (the missing one's slot) and decoded exactly
        self.zero = bool(spec.get("zero", False)) and not self.indicator
        self.indicator = self.indicator or self.zero

    def unit_values(self, column, values=None):
        """Values on [-1, 1] (clipped; 0 where missing) and the missing mask
        (``values``: the column's numbers, when already read)."""
        values = _numbers(column) if values is None else values
        missing = np.isnan(values)
        lo, hi = self.spec["bounds"]
        # (v − lo)/(hi − lo) ≤ 1 first: finite for any finite hi − lo; ±inf clips
        z = (np.clip(np.where(missing, lo, values), lo, hi) - lo) / (hi - lo) * 2.0 - 1.0
        z[missing] = 0.0  # the centre of the public range ("impute", or the indicator)
        return z, missing

    def encode(self, column):
        values = _numbers(column)
        z, missing = self.unit_values(column, values)
        if self.zero:  # the indicator marks the exact zeros
            return z, None, values == 0.0
        return z, None, missing

    def values_from_unit(self, unit):
        lo, hi = self.spec["bounds"]
        return np.clip(lo + unit * (hi - lo), lo, hi)

    def decode(self, numeric, code, missing, offset, is_frame):
        unit = (np.clip(numeric, -1.0, 1.0) + 1.0) / 2.0  # in [0, 1]
        values = self.values_from_unit(unit)
        if self.zero:
            values = np.where(missing, 0.0, values)
            missing = np.zeros(len(values), dtype=bool)
        return _numeric_output(self.spec, values, missing, is_frame)


class _Binned(Binned, _Scaled):
    def point_cells(self, spec):
        """The rule of :func:`zero_cell`: exact zeros in a cell of their own
        wherever the bounds hold 0 (the zero slot, or a point where the missing
        slot takes the last one), never twice."""
        zero, points = super().point_cells(spec)
        if not zero_cell(spec) or zero:
            return zero, points
        if not spec.get("missing", False):
            return True, [v for v in points if v != 0.0]
        return False, sorted({*map(float, points), 0.0})

    def decode_unit(self, unit, missing, is_frame):
        return _numeric_output(self.spec, self.values_from_unit(unit), missing, is_frame)

    def cell_values(self, unit):
        """The values at positions ``unit`` on the scale of the bins."""
        return self.values_from_unit(self.unwarp(unit))

    def decode(self, numeric, code, missing, offset, is_frame):
        """Uniform inside the bin; an integer column uniform over the integers of
        its bin (rounding a uniform value would move some to the next bin); the
        zero slot exactly 0."""
        missing = (code >= self.extra) if self.spec.get("missing") else np.zeros(len(code), bool)
        zero = (code >= self.extra) if self.zero else np.zeros(len(code), bool)
        point = (code >= self.bins) & (code < self.extra)
        at = self.points[np.clip(code - self.bins, 0, self.points.size - 1)] if (
            self.points.size) else np.zeros(len(code))
        code = np.clip(code, 0, self.bins - 1)
        inside = self.cell_values((code + offset) / self.bins)
        if self.spec["integer"]:
            lo, hi = (_snap(self.cell_values(c / self.bins), self.spec["bounds"],
                            self.bins) for c in (code, code + 1))
            first = np.ceil(lo)
            last = np.where(code == self.bins - 1, np.floor(hi), np.ceil(hi) - 1)
            count = last - first + 1
            inside = np.where(count >= 1, first + np.floor(offset * np.maximum(count, 1)),
                              inside)
        else:  # to the output step, where that keeps the value in its bin
            lo, hi = (self.cell_values(c / self.bins) for c in (code, code + 1))
            short = _round_to(inside, output_step(self.spec["bounds"]))
            inside = np.where((short >= lo) & (short < hi), short, inside)
        inside = np.where(point, at, inside)  # a point: its value
        return _numeric_output(self.spec, np.where(zero, 0.0, inside), missing, is_frame,
                               rounded=True)


class _Levels(ColumnCodec):
    """A one-hot block over the integers of the bounds (missing: a last slot)."""

    def __init__(self, key, spec):
        super().__init__(key, spec)
        lo, hi = spec["bounds"]
        self.first, self.size = int(np.ceil(lo)), n_levels(lo, hi)
        self.width = self.size + int(bool(spec.get("missing", False)))

    def encode(self, column):
        values = _numbers(column)
        missing = np.isnan(values)
        codes = np.clip(np.round(np.where(missing, self.first, values)) - self.first, 0,
                        self.size - 1).astype(np.intp)
        if self.spec.get("missing", False):
            codes[missing] = self.size
        else:  # "impute": the middle level, as the scaled encoding takes the centre
            codes[missing] = (self.size - 1) // 2
        return None, one_hot_rows(codes, self.width), missing

    def decode(self, numeric, code, missing, offset, is_frame):
        missing = (code >= self.size) if self.spec.get("missing") else np.zeros(len(code), bool)
        values = (self.first + np.clip(code, 0, self.size - 1)).astype(np.float64)
        return _numeric_output(self.spec, values, missing, is_frame)


def _check_quantiles(key, quantiles, lo, hi):
    """A spec's ``"quantiles"``: increasing numbers from ``lo`` to ``hi``."""
    try:
        q = [float(v) for v in quantiles]
    except (TypeError, ValueError):
        q = []
    if len(q) < 2 or q[0] != lo or q[-1] != hi or not np.all(np.diff(q) > 0):
        raise ValueError(
            f"Schema column {key!r} has \"quantiles\" that are not increasing numbers from "
            f"its lower bound {lo} to its upper bound {hi}.")
    return q


def _zero_mass(hist, bounds, n, s, z):
    """Whether the released exact-zero count makes a point mass at an end of ``bounds``.

    Post-processing: the noisy count of the grid's exact-zero bin above
    ``z·s`` (the flags' threshold) and above ``POLICY.zero_share`` of ``n``, and 0
    one of the bounds (rain, earnings, counts of events: the exact zeros
    are then synthesized as zeros, not as small positive numbers).
    """
    lower, upper, _, _ = _numeric_grid()
    zero_bin = int(np.flatnonzero((lower == 0.0) & (upper == 0.0))[0])
    count = float(hist[zero_bin])
    at_end = 0.0 in (float(bounds[0]), float(bounds[1]))
    return at_end and count > max(z * s, POLICY.zero_share * n)


def _zero_snapped(bounds):
    """Bounds with an end within the output's resolution of zero set to zero.

    A range holding an exact-zero point mass may end a tiny bin past it,
    e.g. ``[-1.25e-06, 10]`` (noise in the grid's bins next to zero), and a
    column of half zeros then had no zero bound, so its zeros came back as
    small numbers; an end within ``OUTPUT_RESOLUTION`` of the range's width
    of zero is zero (no written value can tell them apart).

    Examples
    --------
    >>> from skdpgen.schema.kinds._numeric import _zero_snapped
    >>> _zero_snapped([-1.25e-06, 10.0]), _zero_snapped([-0.5, 10.0])
    ([0.0, 10.0], [-0.5, 10.0])
    """
    lo, hi = (float(b) for b in bounds)
    width = hi - lo
    if lo < 0.0 < hi and -lo <= OUTPUT_RESOLUTION * width:
        lo = 0.0
    elif lo < 0.0 < hi and hi <= OUTPUT_RESOLUTION * width:
        hi = 0.0
    return [lo, hi]


def _bin_edges(first, last):
    """The lower edge of bin ``first`` and the upper edge of bin ``last``."""
    lower, upper, _, _ = _numeric_grid()
    return float(lower[first]), float(upper[last])


def _numbers(column):
    """A column's values as numbers through their canonical forms (NaN: missing or
    not a number)."""
    return canonical(column).numbers()


#: Synthetic numbers are written to a ten-thousandth of the public range (the
#: power of ten at or below it): the digits beyond carry nothing the release
#: resolved (a bin is at least a hundredth of the range).
OUTPUT_RESOLUTION = 1e-4


def output_step(bounds):
    """The rounding step of a numeric column's synthetic values.

    The largest power of ten at most ``OUTPUT_RESOLUTION`` times the width of
    the public ``bounds`` (a function of the schema only).

    Examples
    --------
    >>> from skdpgen.schema.kinds._numeric import output_step
    >>> output_step([0, 100_000]), output_step([0, 1]), output_step([17, 90])
    (10.0, 0.0001, 0.001)
    """
    width = float(bounds[1]) - float(bounds[0])
    if not np.isfinite(width) or width <= 0:
        return 0.0
    return float(10.0 ** np.floor(np.log10(width * OUTPUT_RESOLUTION)))


def _round_to(values, step):
    if step <= 0:
        return values
    if step >= 1:
        return np.round(values / step) * step
    return np.round(values, int(round(-np.log10(step))))  # the nearest short decimal


def _numeric_output(spec, values, missing, is_frame, rounded=False):
    if spec["integer"]:
        values = np.round(values)
    elif not rounded:
        lo, hi = (float(b) for b in spec["bounds"])
        short = np.clip(_round_to(values, output_step(spec["bounds"])), lo, hi)
        values = np.where((values == lo) | (values == hi), values, short)  # bounds exact
    if not is_frame or not spec["integer"]:
        values = values.astype(np.float64)
        values[missing] = np.nan
        return values
    if spec.get("missing"):
        return pd.arrays.IntegerArray(values.astype(np.int64), missing)
    return values.astype(np.int64)


#: Weight of the missing count in the numeric release: it counts ``MISSING_WEIGHT``
#: per missing value, so that its noise is ``1/MISSING_WEIGHT`` of a bin's at no
#: cost in sensitivity (see :meth:`NumericKind.statistic`).
MISSING_WEIGHT = np.sqrt(3.0)


def numeric_layout():
    """Slices of the numeric release: ``bins``, ``fine``, ``decades``, and the
    positions of the non-integer and (weighted) missing counts."""
    lower, _, group, _ = _numeric_grid()
    n_bins, n_groups = lower.size, int(group[-1]) + 1
    fine_end = n_bins + n_bins * FINE_BINS
    return {"bins": slice(0, n_bins), "fine": slice(n_bins, fine_end),
            "decades": slice(fine_end, fine_end + n_groups), "nonint": -2, "missing": -1}


def _numeric_statistic(x, histogram):
    """``[histogram, fine histogram, decade histogram, non-integer count,
    MISSING_WEIGHT × missing count]`` (or the two counts alone) of a column's
    numbers ``x`` (NaN: missing or not a number)."""
    na = np.isnan(x)
    present = x[~na]
    nonint = float(np.sum(~(np.isfinite(present) & (present == np.round(present)))))
    missing = float(na.sum())
    if not histogram:
        return np.array([nonint, missing], dtype=np.float64)
    lower, _, group, _ = _numeric_grid()
    coarse = _numeric_positions(present)
    hist = np.bincount(coarse, minlength=lower.size)
    fine = np.bincount(_fine_positions(present, coarse), minlength=lower.size * FINE_BINS)
    decades = np.bincount(group[coarse], minlength=int(group[-1]) + 1)
    return np.concatenate([hist, fine, decades, [nonint, MISSING_WEIGHT * missing]]).astype(
        np.float64)


class NumericKind(ColumnKind):
    """Numbers, clipped to public bounds (the statistic: a histogram on the
    public grids, or the integer and missing counts when the bounds are public)."""

    name = type = "numeric"
    is_numeric = is_bounded = True
    release = "schema: numeric"
    sensitivity = np.sqrt(7.0)
    #: Its release when the bounds are public: the flags' counts only.
    flags_release = "schema: numeric flags"
    flags_sensitivity = np.sqrt(2.0)

    def check_spec(self, key, spec):
        self.require(key, spec, "bounds")
        bounds = spec["bounds"]
        try:
            lo, hi = (float(b) for b in bounds)
        except (TypeError, ValueError):
            raise ValueError(
                f"Schema bounds of column {key!r} must be two numbers [lo, hi], got {bounds!r}."
            ) from None
        with np.errstate(over="ignore"):
            span = hi - lo
        if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi and np.isfinite(span)):
            raise ValueError(
                f"Schema bounds of column {key!r} must be finite with lo < hi and a finite "
                f"width hi - lo, got [{lo}, {hi}]."
            )
        out = {"type": "numeric", "bounds": [lo, hi], "integer": flag(key, spec, "integer")}
        for name in ("impute", "coerce"):  # "coerce": accepted; every column coerces now
            if flag(key, spec, name):
                out[name] = True
        if flag(key, spec, "zero"):
            if 0.0 not in (lo, hi):
                raise ValueError(
                    f"Schema column {key!r} has \"zero\": true; that needs 0 as one of its "
                    f"bounds, got [{lo}, {hi}].")
            out["zero"] = True
        elif spec.get("zero") is False:  # no cell of exact zeros (see zero_cell)
            out["zero"] = False
        if spec.get("points"):
            out["points"] = _check_points(key, spec["points"], lo, hi, out["integer"],
                                          out.get("zero", False))
        if spec.get("quantiles") is not None:
            out["quantiles"] = _check_quantiles(key, spec["quantiles"], lo, hi)
        if "levels" in spec:
            out["levels"] = flag(key, spec, "levels")
            if out["levels"] and not (out["integer"] and n_levels(lo, hi) >= 1):
                raise ValueError(
                    f"Schema column {key!r} has \"levels\": true; that needs \"integer\": "
                    "true and bounds holding at least one integer."
                )
        return out

    def output_dtype(self, spec):
        missing = bool(spec.get("missing", False))
        if spec.get("integer", False):
            return pd.Int64Dtype() if missing else np.dtype(np.int64)
        return np.dtype(np.float64)

    def encodes_as_levels(self, spec, max_levels):
        """Whether the spec is encoded as a one-hot block of its integers."""
        if not spec.get("integer", False):
            return False
        if "levels" in spec:
            return bool(spec["levels"])
        return 1 <= n_levels(*spec["bounds"]) <= max_levels

    def is_partial(self, spec):
        return open_bounds(spec)

    def written_as(self, spec):
        return f"numbers in {list(spec['bounds'])}"

    def read_values(self, key, canon, spec):
        """The values as numbers (NaN: missing or not a number), the bounds as floats."""
        bounds = complete_bounds(self, key, spec)
        return canon.numbers(), None if bounds is None else tuple(map(float, bounds)), None

    def check_values(self, key, canon, spec):
        """Values that are no number are not parsed; numbers outside the bounds clipped."""
        x = canon.numbers()
        lo, hi = spec["bounds"]
        return {"not_parsed": int(np.sum(np.isnan(x) & (canon.form != MISSING))),
                "clipped": int(np.sum((x < lo) | (x > hi)))}, np.isnan(x)

    def codec(self, key, spec, *, max_levels=0, bins=0):
        if self.encodes_as_levels(spec, max_levels):
            return _Levels(key, spec)
        if bins:
            return _Binned(key, spec, bins)
        return _Scaled(key, spec)

    # -- reading: exactly (a leak), or privately -------------------------------
    def read(self, key, canon, context):
        x = canon.numbers()
        finite = x[np.isfinite(x)]
        integer = bool(finite.size) and bool(np.all(finite == np.round(finite)))
        missing = bool(np.any(np.isnan(x)))
        if context.bounds is not None:
            record_leak(
                "integer",
                f"The integer and missing flags of numeric column {key!r} were read from the "
                "private data and are released with the model without privacy. Declare the "
                "column in the schema to avoid this.",
                column=key,
            )
            bounds = [float(b) for b in context.bounds]
        else:
            record_leak(
                "bounds",
                f"The bounds of numeric column {key!r} were read from the private data (its "
                "exact minimum and maximum, with its integer and missing flags) and are "
                "released with the model without privacy.", column=key, remedy="bounds",
            )
            lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
            bounds = _finish_bounds(lo, hi, False)
        return {"type": "numeric", "bounds": bounds, "integer": integer, "missing": missing}

    def own_release(self, context):
        """The release of a numeric column: the histogram, or the flags' counts alone
        when its bounds are public."""
        if context.bounds is None:
            return self.release, self.sensitivity
        return self.flags_release, self.flags_sensitivity

    def statistic(self, canon, context):
        """``[histogram, fine histogram, decade histogram, non-integer count,
        √3 × missing count]`` of the column's numbers, or the two counts alone
        (unweighted) when its bounds are public.

        The decade histogram (the numeric grid's groups: one per decade and
        sign, and zero) is released directly, not summed from the bins: its
        counts then carry one bin's noise instead of ``√10`` times it, which
        is what finds a small table's range at all. The missing count weighs
        ``MISSING_WEIGHT = √3``: its noise is ``1/√3`` of a bin's, at no cost
        in sensitivity (below).

        Notes
        -----
        **Sensitivity** (replace-one). A present integer value sets one bin,
        one sub-bin (inside that bin) and one decade; a present non-integer
        value the same three and the non-integer count; a missing value (or
        one that is not a number) the missing count, by ``√3``. The farthest
        records: a non-integer value against an integer value in another
        decade (three counts down, four up: ``√7``), or against a missing
        one (four counts by 1 and the missing count by ``√3``: ``√(4 + 3)
        = √7``); an integer value against a missing one gives ``√6``:
        ``Δ = √7``, attained. The two counts alone: a non-integer value
        against a missing one changes both, ``Δ = √2``.
        """
        return _numeric_statistic(canon.numbers(), histogram=context.bounds is None)

    def estimate(self, key, noisy, s, n, context):
        if context.bounds is None:
            part = numeric_layout()
            missing_count = noisy[part["missing"]] / MISSING_WEIGHT
            s_missing = s / MISSING_WEIGHT
        else:
            missing_count, s_missing = noisy[-1], s
        integer, missing = _flags(noisy[-2], missing_count, n, s, context.flag_stds,
                                  s_missing=s_missing)
        missing = _missing_flag(key, missing, missing_count, s_missing, n, context.partial)
        # the least present rows a range is found from: all of them in one
        # decade, at its threshold (the decades: one bin's noise each)
        needed = 0.0 if context.bounds is not None else (
            _bonferroni_z(noisy[numeric_layout()["decades"]].size) * s)
        record_present(context, key, n, missing_count, s_missing, needed)
        if context.bounds is None:
            hist, decades = noisy[part["bins"]], noisy[part["decades"]]
            found = _numeric_range(hist, s, integer, guess=False, decades=decades)
            first, last = found or _numeric_range(hist, s, integer, decades=decades)
            bins = _integer_bins() if integer else np.arange(hist.size)
            present = min(max(n - missing_count, 0.0), float(n))
            if found is not None:  # towards significant mass outside (post-processing)
                first, last = found = _follow_mass(hist, decades, first, last, s, present,
                                                   s_missing, bins)
                first, last = found = _trim_tail(hist, decades, first, last, present, bins,
                                                 integer)
            lo, hi = _bin_edges(first, last)  # a guess is a whole decade, not refined
            unlocated = 0.0
            if found is not None:
                lo, hi = _refined_range(noisy[part["fine"]], hist, first, last, s, integer,
                                        decades=decades)
                unlocated = _unlocated_share(noisy[part["fine"]], hist, first, last, s, present,
                                             bins)
            bounds = _zero_snapped(_finish_bounds(lo, hi, integer))
            zero = _zero_mass(hist, bounds, n, s, context.flag_stds)
            if found is None:  # a guess, unless no row has a value
                if not _empty(missing, missing_count, n, s_missing, context.flag_stds):
                    _warn_guess(key, f"its bounds {bounds}", n, s)
            else:
                # the rows outside the bounds written (an integer range of one
                # value, or refined edges, differ from the bins found)
                first, last = _numeric_positions(np.asarray(bounds, dtype=float))
                outside, std = _outside_mass(hist, decades, int(first), int(last), s, present,
                                             s_missing, bins)
                _warn_outside_share(key, bounds, outside, std, n)
                if unlocated >= POLICY.warn_share:
                    _warn_unlocated(key, bounds, unlocated)
        else:
            bounds, zero = [float(b) for b in context.bounds], False
        spec = {"type": "numeric", "bounds": bounds, "integer": integer, "missing": missing,
                "impute": not missing}
        if context.partial.get("zero") is False:  # declared: no zero slot nor cell
            spec["zero"] = False
        elif zero and not missing:
            spec["zero"] = True
        if context.bounds is None and "points" not in context.partial:
            points = point_masses(noisy[part["fine"]], s, bounds, integer, n)
            if points:
                spec["points"] = points
        if context.bounds is None and found is not None:  # cells that follow the mass
            quantiles = mass_quantiles(hist, noisy[part["fine"]], s, bounds, integer,
                                       spec.get("points", ()))
            if quantiles is not None:
                spec["quantiles"] = quantiles
        return spec
