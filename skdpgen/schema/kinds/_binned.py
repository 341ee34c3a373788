"""The binned encoding of a bounded column (numeric, datetime and time): a one-hot
block over equal-width bins of the public bounds."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import numpy as np

from ..._canonical import canonical
from ._kind import ColumnCodec, one_hot_rows

__all__ = ["Binned", "Scaled", "bin_block", "bin_index", "fill_offsets"]

#: A position within this fraction of a bin's width below a bin edge is on the
#: edge (see :func:`bin_index`).
EDGE_TOLERANCE = 1e-9


def bin_index(unit, bins):
    """The equal-width bin of positions on ``[0, 1]``, each bin ``[a, b)``.

    The position of a value ``v`` in public bounds ``[lo, hi]`` is ``(v −
    lo)/(hi − lo)``; bin ``k`` holds ``[k/bins, (k+1)/bins)``, the last one
    its upper edge too, and positions outside ``[0, 1]`` fall in the outer
    bins. A position within ``EDGE_TOLERANCE`` of a bin's width below an
    edge counts as on it: floating point puts a round value on round bounds
    a hair below its edge (``0.1`` on ``[0, 1]`` scaled to ``[-1, 1]`` and
    back is ``0.0999…98``), and it belongs with the values above it. The one
    rule for every binning of a numeric or date column: the encoding, and
    the cells of :func:`~skdpgen.evaluation.marginal_tv_distance`.

    Parameters
    ----------
    unit : array-like of float
        Positions in the public range (NaN not allowed).
    bins : int

    Returns
    -------
    codes : ndarray of int

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen.schema import bin_index
    >>> z = np.array([0.1, 0.3, 0.7]) * 2 - 1  # scaled to [-1, 1] ...
    >>> bin_index((z + 1) / 2, 10).tolist()  # ... and back
    [1, 3, 7]
    """
    u = np.asarray(unit, dtype=float) * bins + EDGE_TOLERANCE
    return np.clip(np.floor(u), 0, bins - 1).astype(np.intp)


def fill_offsets(code, offset, fill):
    """Where inside their bin the values of the outermost occupied bins are drawn.

    ``offset`` (in ``[0, 1)``, uniform) places a value inside its bin; the
    values of the lowest occupied bin ``lo`` go to the upper part of it
    that its rows fill, ``[1 − f_lo, 1)``, those of the highest ``hi`` to
    the lower part, ``[0, f_hi)``: a column whose rows stop inside a bin
    (a date range ending mid-bin, scores from 404 in a bin from 401) comes
    back within where they stop, not spread over the whole bin beyond them.
    The other bins are drawn on the whole of their width.

    Parameters
    ----------
    code : ndarray of int
        The rows' slots.
    offset : ndarray of float
    fill : tuple
        ``(lo, f_lo, hi, f_hi)``: the bins and their filled shares (each in
        ``[0, 1]``), public (see
        :meth:`~skdpgen.synthesizers.Mechanism.cell_fills`).

    Returns
    -------
    offset : ndarray of float

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen.schema.kinds import fill_offsets
    >>> fill_offsets(np.array([2, 5, 7]), np.array([0.5, 0.5, 0.5]), (2, 0.4, 7, 0.2)).tolist()
    [0.8, 0.5, 0.1]
    """
    lo, f_lo, hi, f_hi = fill
    offset = np.where(code == lo, 1.0 - f_lo * (1.0 - offset), offset)
    return np.where(code == hi, f_hi * offset, offset)


class Scaled(ColumnCodec):
    """One column of the numeric block: a value read as a number between its public
    bounds, scaled to [-1, 1] (missing values at the centre: ``"impute"``, or the
    indicator), and decoded from the unit interval.

    A subclass reads (``read(column)``: the values, their missing mask and the
    bounds, as numbers) and decodes (``decode_unit(unit, missing, is_frame)``);
    mixed with :class:`Binned`, the same two make its binned block.
    """

    numeric = True

    def __init__(self, key, spec):
        super().__init__(key, spec)
        self.indicator = bool(spec.get("missing", False))

    def read(self, column):  # pragma: no cover - protocol
        """``(values, missing, lo, hi)`` of ``column``, as numbers."""
        raise NotImplementedError

    def decode_unit(self, unit, missing, is_frame):  # pragma: no cover - protocol
        """The column's values at ``unit`` in [0, 1] of its bounds."""
        raise NotImplementedError

    def unit_values(self, column):
        values, missing, lo, hi = self.read(column)
        z = (values - lo).astype(np.float64) / float(hi - lo) * 2.0 - 1.0
        z[missing] = 0.0  # the centre of the public range ("impute", or the indicator)
        return z, missing

    def encode(self, column):
        z, missing = self.unit_values(column)
        return z, None, missing

    def decode(self, numeric, code, missing, offset, is_frame):
        return self.decode_unit((np.clip(numeric, -1.0, 1.0) + 1.0) / 2.0, missing, is_frame)


class Binned:
    """A one-hot block over ``bins`` equal-width bins of the bounds, decoded
    uniformly inside the bin: mixed into a scaled codec, whose ``unit_values``
    it bins and whose ``decode_unit`` it decodes with.

    With the spec's ``"quantiles"`` (values at equal steps of the column's
    mass, from its lower to its upper bound: an estimate's, see
    :func:`~skdpgen.schema._cells.mass_quantiles`), the bins are equal-width
    on the scale they make instead, which maps each value to its position
    among them (linear between two): the ``k``-th bin holds the mass between
    the quantiles ``k/bins`` and ``(k + 1)/bins``, narrow where the mass is;
    decoded uniformly on that scale, a value follows the quantiles inside
    its bin too.

    The block's slots: the bins; then one slot per value of the spec's
    ``"points"`` (a point mass: the rows holding exactly that value); then
    one for missing values or exact zeros, when the spec has them. A
    numeric column whose bounds hold 0 has its exact zeros in a slot of
    their own even when its spec does not say ``"zero"`` (the public rule of
    :func:`~skdpgen.schema._points.zero_cell`).
    """

    numeric = False
    binned = True

    def __init__(self, key, spec, bins):
        super().__init__(key, spec)
        self.bins = bins
        self.zero, points = self.point_cells(spec)
        self.points = np.asarray(points, dtype=float)
        self.indicator = False
        self.extra = self.bins + self.points.size  # the missing (or zero) slot
        self.width = self.extra + int(bool(spec.get("missing", False)) or self.zero)
        quantiles = spec.get("quantiles")
        self.knots = None
        if quantiles is not None:  # their positions in the bounds, on the unit scale
            lo, hi = (float(q) for q in (quantiles[0], quantiles[-1]))
            self.knots = (np.asarray(quantiles, dtype=np.float64) - lo) / (hi - lo)
            self.steps = np.linspace(0.0, 1.0, self.knots.size)

    def warp(self, unit):
        """Positions in the bounds (``[0, 1]``) on the scale of the bins."""
        return unit if self.knots is None else np.interp(unit, self.knots, self.steps)

    def unwarp(self, unit):
        """Positions on the scale of the bins back in the bounds (``[0, 1]``)."""
        return unit if self.knots is None else np.interp(unit, self.steps, self.knots)

    def unit_values(self, column, *values):
        """The scaled codec's values on [-1, 1], on the scale of the bins."""
        z, missing = super().unit_values(column, *values)
        if self.knots is not None:
            z = np.where(missing, z, self.warp((z + 1.0) / 2.0) * 2.0 - 1.0)
        return z, missing

    def point_cells(self, spec):
        """Whether the exact zeros take a last slot of their own, and the values
        of the point slots (the spec's ``"zero"`` and ``"points"``)."""
        # "zero" (numeric only): the exact zeros in a last slot of their own
        zero = bool(spec.get("zero", False)) and not spec.get("missing", False)
        return zero, spec.get("points", ())

    @property
    def slot_bins(self):
        """The bin of each slot of the block (a point's: the bin it lies in), -1
        for the missing or zero slot: the slots' order along the values."""
        at = self.unit_bins(self.points) if self.points.size else np.zeros(0, np.intp)
        return np.concatenate([np.arange(self.bins), at,
                               [-1] * (self.width - self.extra)]).astype(np.intp)

    def unit_bins(self, values):
        """The bins of the (present) ``values``."""
        z, _ = self.unit_values(None, np.asarray(values, dtype=float))
        return bin_index((z + 1.0) / 2.0, self.bins)

    def encode(self, column):
        z, missing = self.unit_values(column)
        block = bin_block(self.spec, z, missing, self.bins)
        numbers = canonical(column).numbers() if self.points.size or self.zero else None
        if self.points.size:  # a point's rows in its slot, not in their bin
            at = np.searchsorted(self.points, numbers)
            inside = at < self.points.size
            hit = inside & (self.points[np.minimum(at, self.points.size - 1)] == numbers)
            cells = np.zeros((len(block), self.points.size), dtype=block.dtype)
            cells[np.flatnonzero(hit), at[hit]] = 1.0
            block[hit] = 0.0
            block = np.hstack([block[:, :self.bins], cells, block[:, self.bins:]])
        if self.zero:
            zero = numbers == 0.0
            block = np.hstack([block, zero[:, None].astype(block.dtype)])
            block[zero, :self.extra] = 0.0
        return None, block, missing

    def decode(self, numeric, code, missing, offset, is_frame):
        missing = (code >= self.extra) if self.spec.get("missing") else np.zeros(len(code), bool)
        unit = (np.clip(code, 0, self.bins - 1) + offset) / self.bins
        return self.decode_unit(self.unwarp(unit), missing, is_frame)


def _snap(edges, bounds, bins):
    """Bin edges within ``EDGE_TOLERANCE`` of a bin's width of an integer, on it
    (the edges of :func:`bin_index`: an integer on an edge starts the bin above)."""
    near = np.round(edges)
    tol = EDGE_TOLERANCE * (float(bounds[1]) - float(bounds[0])) / bins
    return np.where(np.abs(edges - near) <= tol, near, edges)


def bin_block(spec, z, missing, bins):
    """One-hot block of a binned column from its values on [-1, 1] (missing: last slot)."""
    codes = bin_index((z + 1.0) / 2.0, bins)
    codes = np.where(missing, bins // 2, codes).astype(np.intp)  # "impute": the centre
    if spec.get("missing", False):
        codes[missing] = bins
    return one_hot_rows(codes, bins + int(bool(spec.get("missing", False))))
