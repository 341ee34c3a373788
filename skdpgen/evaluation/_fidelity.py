"""Fidelity of synthetic data: marginal distances and the kernel MMD."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import itertools
import math
import warnings
from numbers import Integral

import numpy as np
import pandas as pd
from sklearn.utils import check_array

from ..utils import check_generator
from ..embedding import mmd2 as feature_mmd2
from ..kernels import gaussian_kernel_sum, scale_rows
from ..privacy import PrivacyLeakWarning
from ..schema import bin_index, is_categorical_dtype, kind_of, paired_frames

__all__ = ["marginal_tv_distance", "mmd2", "mmd2_exact"]


# -- α-way marginals ---------------------------------------------------------


_NUMERIC, _CATEGORICAL = kind_of("numeric"), kind_of("categorical")


def column_spec(key, real, syn, bounds, categories):
    """(numeric kind, (lo, hi), leaked) or (categorical kind, list, False) for one
    column (kinds as :func:`~skdpgen.schema.kind_of` gives them)."""
    entry = bounds.get(key)
    if categories.get(key) is not None:
        return _CATEGORICAL, list(categories[key]), False
    if isinstance(entry, dict):  # a schema entry
        try:
            kind = kind_of(entry)
        except ValueError:
            kind = None
        if kind is not None and kind.has_categories and "categories" in entry:
            return _CATEGORICAL, list(entry["categories"]), False
        if kind is None or not kind.is_numeric:
            raise ValueError(
                f"Schema entry of column {key!r} has unknown type {entry.get('type')!r}.")
        entry = entry["bounds"]
    if entry is not None:
        lo, hi = (float(b) for b in entry)
        if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
            raise ValueError(f"Bounds of column {key!r} must be finite with lo < hi, got {entry}.")
        return _NUMERIC, (lo, hi), False
    if is_categorical_dtype(real.dtype) or is_categorical_dtype(syn.dtype):
        for col in (real, syn):
            if isinstance(col.dtype, pd.CategoricalDtype):
                # declared categories are public (as in skdpgen.schema)
                return _CATEGORICAL, list(col.dtype.categories), False
        # Cells empty in both datasets add nothing to the distance, so the
        # union of the observed values gives the same number as any public
        # list containing it: no leak to report.
        values = pd.concat([real, syn], ignore_index=True).astype(object)
        return _CATEGORICAL, list(pd.unique(values)), False
    values = np.concatenate([np.asarray(real, dtype=float), np.asarray(syn, dtype=float)])
    values = values[np.isfinite(values)]
    lo, hi = (float(values.min()), float(values.max())) if values.size else (0.0, 0.0)
    return _NUMERIC, (lo, hi), True


def _codes(col, kind, spec, bins, key):
    """Cell index of every value of one column, and the column's number of cells.

    A categorical column has a cell per category, then one for other values
    and one for missing values; a numeric column ``bins`` bins, then one for
    missing values (NaN; infinite values fall in the outer bins).
    """
    if kind.has_categories:
        index = pd.Index(spec)
        if not index.is_unique:
            raise ValueError(f"Categories of column {key!r} must be distinct.")
        values = pd.Series(col).astype(object)
        codes = index.get_indexer(values)
        codes = np.where(codes < 0, len(index), codes)  # other values
        codes = np.where(values.isna().to_numpy(), len(index) + 1, codes)
        return codes.astype(np.int64), len(index) + 2
    lo, hi = spec
    x = np.asarray(col, dtype=float)
    missing = np.isnan(x)
    if hi <= lo:
        return np.where(missing, 1, 0).astype(np.int64), 2
    # equal-width bins on [lo, hi]; values outside fall into the outer bins
    codes = bin_index((np.where(missing, lo, x) - lo) / (hi - lo), bins)
    return np.where(missing, bins, codes).astype(np.int64), bins + 1


def _combinations(d, alpha, max_combinations, random_state):
    total = math.comb(d, alpha)
    if max_combinations is None or max_combinations >= total:
        return list(itertools.combinations(range(d), alpha))
    rng = check_generator(random_state)
    if total <= 1_000_000:
        all_combos = list(itertools.combinations(range(d), alpha))
        pick = np.sort(rng.choice(total, size=max_combinations, replace=False))
        return [all_combos[i] for i in pick]
    chosen = set()
    while len(chosen) < max_combinations:  # total >> max_combinations here
        chosen.add(tuple(sorted(rng.choice(d, size=alpha, replace=False).tolist())))
    return sorted(chosen)


def _tv(codes_real, codes_syn, sizes):
    """0.5 Σ |p_real − p_syn| over the joint cells of the given columns."""
    n, m = len(codes_real[0]), len(codes_syn[0])
    flat_r = np.ravel_multi_index(codes_real, sizes)
    flat_s = np.ravel_multi_index(codes_syn, sizes)
    n_cells = math.prod(sizes)
    if n_cells > 4 * (n + m):  # sparse: only the occupied cells
        _, inverse = np.unique(np.concatenate([flat_r, flat_s]), return_inverse=True)
        flat_r, flat_s = inverse[:n], inverse[n:]
        n_cells = int(inverse.max()) + 1
    p = np.bincount(flat_r, minlength=n_cells) / n
    q = np.bincount(flat_s, minlength=n_cells) / m
    return 0.5 * float(np.abs(p - q).sum())


def marginal_tv_distance(
    X_real,
    X_synthetic,
    *,
    alpha=3,
    bins=10,
    bounds=None,
    categories=None,
    max_combinations=None,
    random_state=None,
):
    """Average total-variation distance of the α-way marginals.

    For every set of ``alpha`` columns, the joint histogram of these columns
    is computed on both datasets and their total-variation distance
    ``0.5 Σ_cells |p_real(cell) − p_synthetic(cell)|`` taken; the result is
    the mean over all ``C(n_features, alpha)`` column sets (or over a seeded
    random subset of ``max_combinations`` of them). It lies in [0, 1]: 0 for
    identical histograms, 1 for histograms with disjoint supports.

    Parameters
    ----------
    X_real : array-like or DataFrame of shape (n_real, n_features)
        Real data.
    X_synthetic : array-like or DataFrame of shape (n_synthetic, n_features)
        Synthetic data with the same columns (DataFrames are matched by
        column name, arrays by position).
    alpha : int, default=3
        Number of columns per marginal.
    bins : int, default=10
        Number of equal-width bins of each numeric column.
    bounds : dict, default=None
        Public description of the columns, keyed by column name (or position
        for arrays): either ``col -> (lo, hi)`` for numeric columns, or a
        schema such as :func:`skdpgen.datasets.adult_schema` returns,
        ``col -> {"type": "numeric", "bounds": [lo, hi]}`` or
        ``col -> {"type": "categorical", "categories": [...]}`` (the two forms
        may be mixed). The bin edges of a numeric column are
        ``linspace(lo, hi, bins + 1)`` for both datasets; values outside
        ``[lo, hi]`` are counted in the outer bins.
    categories : dict, default=None
        Public categories, ``col -> list``; such a column is categorical
        whatever its dtype.
    max_combinations : int, default=None
        Average over this many column sets drawn at random without
        replacement, instead of all of them.
    random_state : int, RandomState instance or None, default=None
        Draws the column sets when ``max_combinations`` is smaller than their
        number.

    Returns
    -------
    distance : float
        Mean α-way marginal total-variation distance, in [0, 1].

    Warns
    -----
    PrivacyLeakWarning
        When a numeric column has no public bounds: its bin edges are then
        taken from the minimum and maximum of both datasets together.

    See Also
    --------
    mmd2 : Kernel two-sample distance.
    downstream_utility : Train on synthetic, test on real.

    Notes
    -----
    This is an evaluation on private data: the number it returns is for the
    data holder and is not differentially private. Public bounds still
    matter, since they make the discretization, and so the meaning of the
    number, independent of the data.

    A column is categorical when ``categories`` or the schema says so, or
    when its dtype is categorical, object, string or bool. The categories of
    a pandas ``Categorical`` column are its declared categories; otherwise,
    without public categories, the values observed in either dataset are
    used, which gives exactly the same distance (cells empty in both datasets
    add nothing), so no warning is raised. Missing values (NaN, None) are a
    cell of their own in every column, and values outside a column's given
    categories one more (as
    :func:`~skdpgen.evaluation.evaluate_tables` counts them); cells
    empty in both datasets add nothing, so the distance of tables without
    such values is unchanged.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen.evaluation import marginal_tv_distance
    >>> real = np.array([[0.0, 0.0], [1.0, 1.0]])
    >>> syn = np.array([[0.0, 1.0], [1.0, 0.0]])
    >>> bounds = {0: (0, 1), 1: (0, 1)}
    >>> marginal_tv_distance(real, syn, alpha=1, bins=2, bounds=bounds)
    0.0
    >>> marginal_tv_distance(real, syn, alpha=2, bins=2, bounds=bounds)
    1.0
    """
    real, syn = paired_frames(X_real, X_synthetic)
    if len(real) == 0 or len(syn) == 0:
        raise ValueError("Both datasets need at least one row.")
    d = real.shape[1]
    if not isinstance(alpha, Integral) or not 1 <= alpha <= d:
        raise ValueError(f"alpha must be an integer in [1, {d}], got {alpha!r}.")
    if not isinstance(bins, Integral) or bins < 1:
        raise ValueError(f"bins must be a positive integer, got {bins!r}.")
    if max_combinations is not None and (
        not isinstance(max_combinations, Integral) or max_combinations < 1
    ):
        raise ValueError(f"max_combinations must be a positive integer, got {max_combinations!r}.")
    bounds = dict(bounds or {})
    categories = dict(categories or {})

    codes_r, codes_s, sizes, leaked = [], [], [], []
    for j, key in enumerate(real.columns):
        col_r, col_s = real.iloc[:, j], syn.iloc[:, j]
        kind, spec, leak = column_spec(key, col_r, col_s, bounds, categories)
        if leak:
            leaked.append(key)
        (code_r, size), (code_s, _) = (_codes(c, kind, spec, bins, key)
                                       for c in (col_r, col_s))
        codes_r.append(code_r)
        codes_s.append(code_s)
        sizes.append(size)
    if leaked:
        warnings.warn(
            f"No public bounds for the numeric column(s) {leaked}: their bin edges were "
            "taken from the minimum and maximum of the real and synthetic data. Pass "
            "bounds= (e.g. a public schema) to make the discretization data-independent.",
            PrivacyLeakWarning,
            stacklevel=2,
        )

    combos = _combinations(d, alpha, max_combinations, random_state)
    tvs = [
        _tv([codes_r[j] for j in c], [codes_s[j] for j in c], [sizes[j] for j in c])
        for c in combos
    ]
    return float(np.mean(tvs))


# -- maximum mean discrepancy ------------------------------------------------


def mmd2_exact(X, Y, *, length_scale=1.0):
    """Squared MMD between two samples under the Gaussian kernel, computed exactly.

    The biased (V-statistic) estimate

    ``MMD² = mean_ij k(x_i, x_j) + mean_ij k(y_i, y_j) − 2 mean_ij k(x_i, y_j)``

    with ``k(x, y) = exp(−Σ_d (x_d − y_d)²/(2ℓ_d²))``, summed over blocks of
    rows (:func:`skdpgen.kernels.gaussian_kernel_sum`) so that memory stays
    bounded while time is O((n + m)²).

    Parameters
    ----------
    X : array-like of shape (n, n_features)
        Numeric first sample.
    Y : array-like of shape (m, n_features)
        Numeric second sample.
    length_scale : float or array-like of shape (n_features,), default=1.0
        Length scale ℓ of the Gaussian kernel, shared or per dimension (as in
        :class:`~skdpgen.RandomFourierFeatures`).

    Returns
    -------
    mmd2 : float
        Non-negative (rounding errors below zero are clipped).

    See Also
    --------
    mmd2 : Exact, or linear-time with a feature map.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen.evaluation import mmd2_exact
    >>> X = np.zeros((3, 2))
    >>> mmd2_exact(X, X)
    0.0
    >>> Y = np.ones((3, 2))
    >>> round(mmd2_exact(X, Y), 6)  # 2 − 2 exp(−1)
    1.264241
    """
    X = check_array(X, dtype=np.float64)
    Y = check_array(Y, dtype=np.float64)
    if X.shape[1] != Y.shape[1]:
        raise ValueError(f"X has {X.shape[1]} features but Y has {Y.shape[1]}.")
    X, Y = scale_rows(X, length_scale), scale_rows(Y, length_scale)
    kxx = gaussian_kernel_sum(X, X) / len(X) ** 2
    kyy = gaussian_kernel_sum(Y, Y) / len(Y) ** 2
    kxy = gaussian_kernel_sum(X, Y) / (len(X) * len(Y))
    return max(kxx + kyy - 2.0 * kxy, 0.0)


def mmd2(X, Y, *, length_scale=1.0, features=None):
    """Squared MMD between two samples: exact, or linear-time with a feature map.

    Parameters
    ----------
    X : array-like of shape (n, n_features)
    Y : array-like of shape (m, n_features)
    length_scale : float or array-like of shape (n_features,), default=1.0
        Length scale of the Gaussian kernel of the exact computation. With
        ``features`` the feature map's own length scale applies, and this must
        be left at its default.
    features : transformer, default=None
        ``None``: the exact V-statistic of the Gaussian kernel,
        :func:`mmd2_exact`. Otherwise a (fitted or unfitted) bounded feature
        map ``h``, such as :class:`~skdpgen.RandomFourierFeatures`, and the
        result is ``‖mean h(X) − mean h(Y)‖²`` from
        :func:`skdpgen.embedding.mmd2`, in time linear in ``n + m``.

    Returns
    -------
    mmd2 : float

    See Also
    --------
    mmd2_exact : The exact computation.
    skdpgen.embedding.mmd2 : The feature-based computation.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen import RandomFourierFeatures
    >>> from skdpgen.evaluation import mmd2
    >>> rng = np.random.default_rng(0)
    >>> X, Y = rng.normal(size=(200, 2)), rng.normal(1.0, 1.0, size=(200, 2))
    >>> exact = mmd2(X, Y, length_scale=2.0)
    >>> approx = mmd2(X, Y, features=RandomFourierFeatures(
    ...     n_components=2000, length_scale=2.0, random_state=0))
    >>> bool(abs(exact - approx) < 0.02)
    True
    """
    if features is None:
        return mmd2_exact(X, Y, length_scale=length_scale)
    if not np.all(np.asarray(length_scale) == 1.0):
        raise ValueError(
            "length_scale applies to the exact computation only; set the length scale "
            "of the feature map instead."
        )
    return feature_mmd2(X, Y, features=features)
