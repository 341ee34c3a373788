"""The integer and missing flags of a column, from its noisy counts.

Post-processing of a kind's release (numeric, datetime, time, bool): the noisy
count of non-integer values and of missing ones, the public ``n`` and the
noise standard deviation decide whether the column is stated ``integer``
and ``missing``, at a threshold of :func:`flag_stds` noise standard
deviations that grows with the number of estimated columns. None of it
reads a row; the rules are explained in :mod:`skdpgen.private_schema`.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

from scipy.special import ndtri

from ._policy import POLICY


def flag_stds(n_columns):
    """Threshold of the missing and integer flags, in noise standard deviations.

    ``max(4, Φ⁻¹(1 − 1e-4 / n_columns))``: the union bound keeps the chance
    that any of ``n_columns`` flags is wrong (a missing flag on a column
    without missing values, an integer column declared fractional) at most
    1e-4 per table, so wide tables (an image's hundreds of pixels) do not
    gain spurious flags; up to three columns it is 4 (3e-5 per column).
    Depends on the public number of estimated columns only.

    Examples
    --------
    >>> from skdpgen.private_schema import flag_stds
    >>> flag_stds(1), round(flag_stds(784), 2)
    (4.0, 5.15)
    """
    return max(POLICY.flag_stds, float(-ndtri(POLICY.false_flag_rate / max(int(n_columns), 1))))


def _flags(noisy_nonint, noisy_missing, n, s, z=POLICY.flag_stds, s_missing=None):
    """(integer, missing) from the noisy counts, threshold ``z·s`` (see the module doc);
    ``s_missing``: the missing count's own noise std when it differs from ``s``."""
    present = min(max(n - noisy_missing, 0.0), float(n))
    missing = bool(noisy_missing > z * (s if s_missing is None else s_missing))
    integer = None
    if noisy_nonint is not None:
        limit = min(0.5 * present, max(POLICY.integer_fraction * present, z * s))
        integer = bool(noisy_nonint < limit)
    return integer, missing
