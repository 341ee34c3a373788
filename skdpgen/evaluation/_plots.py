"""Plots for evaluating synthetic data (needs matplotlib: ``pip install -e ".[plot]"``).

matplotlib is imported inside each function, so the rest of skdpgen works
without it.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math

import numpy as np
import pandas as pd
from sklearn.utils import check_array

from ..utils import check_generator
from ..schema import paired_frames
from ._fidelity import column_spec

__all__ = ["plot_gaussian_grid", "plot_kernel_approximation_error", "plot_marginals"]


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "Plotting needs matplotlib: pip install matplotlib (or pip install -e '.[plot]' in a clone)."
        ) from exc
    return plt


def _axes_list(ax, n, plt, ncols=3, size=3.0):
    """``n`` axes: the given ones, or a new grid of subplots; and the figure."""
    if ax is None:
        ncols = min(ncols, n)
        nrows = math.ceil(n / ncols)
        fig, axes = plt.subplots(
            nrows, ncols, figsize=(size * ncols + 0.5, size * nrows), squeeze=False
        )
        axes = list(axes.ravel())
        for extra in axes[n:]:
            extra.set_visible(False)
        return fig, axes[:n]
    axes = list(np.ravel(np.asarray(ax, dtype=object)))
    if len(axes) < n:
        raise ValueError(f"ax must hold at least {n} axes, got {len(axes)}.")
    return axes[0].figure, axes[:n]


def plot_marginals(
    X_real,
    X_synthetic,
    *,
    columns=None,
    bounds=None,
    categories=None,
    bins=20,
    labels=("real", "synthetic"),
    ax=None,
):
    """One-dimensional marginals of real and synthetic data, column by column.

    Numeric columns are drawn as overlaid density histograms on common bins;
    categorical columns as side-by-side bars of the category proportions.

    Parameters
    ----------
    X_real : array-like or DataFrame of shape (n_real, n_features)
    X_synthetic : array-like or DataFrame of shape (n_synthetic, n_features)
        Same columns (DataFrames are matched by name, arrays by position).
    columns : list, default=None
        Columns to draw (names, or positions for arrays); all by default.
    bounds : dict, default=None
        Public bounds ``col -> (lo, hi)`` or a schema (as for
        :func:`~skdpgen.evaluation.marginal_tv_distance`); the histogram of a
        numeric column spans ``[lo, hi]``. Without bounds the range of both
        datasets together is used.
    categories : dict, default=None
        Public categories ``col -> list`` (the order of the bars).
    bins : int, default=20
        Number of equal-width bins of each numeric column.
    labels : tuple of (str, str), default=("real", "synthetic")
        Legend entries.
    ax : matplotlib Axes or array of Axes, default=None
        At least one Axes per drawn column; a new figure (three panels per
        row) by default.

    Returns
    -------
    fig : matplotlib.figure.Figure

    Notes
    -----
    The figure shows the real data: like every function of
    :mod:`skdpgen.evaluation` except :class:`DPTwoSampleTest`, it is not
    differentially private.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen.evaluation import plot_marginals
    >>> rng = np.random.default_rng(0)
    >>> fig = plot_marginals(rng.normal(size=(100, 2)), rng.normal(size=(100, 2)),
    ...                      bounds={0: (-3, 3), 1: (-3, 3)})
    >>> len(fig.axes)
    2
    """
    plt = _pyplot()
    real, syn = paired_frames(X_real, X_synthetic)
    if not isinstance(bins, (int, np.integer)) or bins < 1:
        raise ValueError(f"bins must be a positive integer, got {bins!r}.")
    columns = list(real.columns) if columns is None else list(columns)
    unknown = [c for c in columns if c not in real.columns]
    if unknown:
        raise ValueError(f"Unknown columns {unknown}.")
    if not columns:
        raise ValueError("No columns to draw.")
    bounds = dict(bounds or {})
    categories = dict(categories or {})

    fig, axes = _axes_list(ax, len(columns), plt)
    for a, key in zip(axes, columns):
        col_r, col_s = real[key], syn[key]
        kind, spec, _ = column_spec(key, col_r, col_s, bounds, categories)
        if kind.is_numeric:
            lo, hi = spec
            if hi <= lo:
                lo, hi = lo - 0.5, hi + 0.5
            edges = np.linspace(lo, hi, bins + 1)
            for col, label, color in ((col_r, labels[0], "C0"), (col_s, labels[1], "C1")):
                values = np.clip(np.asarray(col, dtype=float), lo, hi)
                a.hist(values, bins=edges, density=True, alpha=0.5, color=color, label=label)
        else:
            cats = list(spec)
            pos = np.arange(len(cats))
            width = 0.4
            for k, (col, label, color) in enumerate(
                ((col_r, labels[0], "C0"), (col_s, labels[1], "C1"))
            ):
                counts = pd.Series(col).astype(object).value_counts()
                props = np.array([counts.get(c, 0) for c in cats], dtype=float) / max(len(col), 1)
                a.bar(pos + (k - 0.5) * width, props, width=width, color=color, alpha=0.8, label=label)
            a.set_xticks(pos)
            a.set_xticklabels([str(c) for c in cats], rotation=45, ha="right", fontsize=8)
            a.set_ylabel("proportion")
        a.set_title(str(key))
    axes[0].legend()
    fig.tight_layout()
    return fig


def plot_gaussian_grid(X, y=None, *, centers=None, ax=None, s=2.0, alpha=0.5, max_points=20_000,
                       random_state=0):
    """Scatter plot of 2-D data such as :func:`~skdpgen.datasets.make_gaussian_grid`'s.

    Parameters
    ----------
    X : array-like of shape (n_samples, 2)
        Real or synthetic samples.
    y : array-like of shape (n_samples,), default=None
        Class labels: one colour per class.
    centers : array-like of shape (n_centers, 2), default=None
        Mixture centers to mark with crosses (e.g. from
        :func:`~skdpgen.datasets.gaussian_grid_centers`).
    ax : matplotlib Axes, default=None
        Where to draw; a new figure by default.
    s : float, default=2.0
        Marker size.
    alpha : float, default=0.5
        Marker opacity.
    max_points : int or None, default=20000
        Draw at most this many points (a seeded random subset); None for all.
    random_state : int, RandomState instance or None, default=0
        Picks the subset.

    Returns
    -------
    fig : matplotlib.figure.Figure

    Examples
    --------
    >>> from skdpgen.datasets import make_gaussian_grid
    >>> from skdpgen.evaluation import plot_gaussian_grid
    >>> X, y = make_gaussian_grid(200, random_state=0)
    >>> fig = plot_gaussian_grid(X, y)
    >>> fig.axes[0].get_xlabel()
    'x[0]'
    """
    plt = _pyplot()
    X = check_array(X, dtype=np.float64)
    if X.shape[1] != 2:
        raise ValueError(f"X must have 2 columns, got {X.shape[1]}.")
    if y is not None:
        y = np.asarray(y)
        if y.shape != (X.shape[0],):
            raise ValueError(f"y must be 1-D with {X.shape[0]} entries, got shape {y.shape}.")
    if max_points is not None and X.shape[0] > max_points:
        keep = np.sort(check_generator(random_state).choice(X.shape[0], max_points, replace=False))
        X = X[keep]
        y = None if y is None else y[keep]
    if ax is None:
        fig, ax = plt.subplots(figsize=(5, 5))
    else:
        fig = ax.figure
    if y is None:
        ax.scatter(X[:, 0], X[:, 1], s=s, alpha=alpha, color="C0", linewidths=0)
    else:
        for k, label in enumerate(np.unique(y)):
            mask = y == label
            ax.scatter(X[mask, 0], X[mask, 1], s=s, alpha=alpha, color=f"C{k % 10}",
                       linewidths=0, label=str(label))
        ax.legend(markerscale=3.0, fontsize=8, loc="best")
    if centers is not None:
        C = check_array(centers, dtype=np.float64)
        ax.scatter(C[:, 0], C[:, 1], marker="x", color="black", s=30)
    ax.set_xlabel("x[0]")
    ax.set_ylabel("x[1]")
    ax.set_aspect("equal", adjustable="datalim")
    return fig


def plot_kernel_approximation_error(
    orders=tuple(range(0, 11)),
    n_features=(10, 20, 50, 100, 200, 500, 1000, 2000, 5000),
    *,
    n_samples=100,
    length_scale=None,
    n_draws=10,
    random_state=0,
    ax=None,
):
    """Kernel approximation error of Hermite vs random Fourier features (DP-HP Fig. 1).

    Draws ``a ~ N(0, 1)`` and ``b ~ N(1, 1)`` (``n_samples`` one-dimensional
    points each) and plots the mean absolute error
    ``mean_ij |k(a_i, b_j) − h(a_i)ᵀh(b_j)|`` of the Gaussian kernel's
    approximation by :class:`~skdpgen.HermiteFeatures` against the order
    (left), and by :class:`~skdpgen.RandomFourierFeatures` against the number
    of features (right, averaged over ``n_draws`` draws of the frequencies),
    on a common logarithmic error axis.

    Parameters
    ----------
    orders : sequence of int, default=range(0, 11)
        Hermite orders C (C + 1 features each).
    n_features : sequence of int, default=(10, …, 5000)
        Numbers of random Fourier features.
    n_samples : int, default=100
        Points per sample.
    length_scale : float, default=None
        Kernel length scale; by default the median distance between all
        pooled points (the median heuristic, as in the paper).
    n_draws : int, default=10
        Random-feature draws averaged per point of the right panel.
    random_state : int, RandomState instance or None, default=0
        Draws the points and the frequencies.
    ax : sequence of two matplotlib Axes, default=None
        Where to draw; a new figure by default.

    Returns
    -------
    fig : matplotlib.figure.Figure
        The errors are stored on the figure as ``fig.hermite_errors_`` and
        ``fig.fourier_errors_`` (arrays aligned with ``orders`` and
        ``n_features``).

    Examples
    --------
    >>> from skdpgen.evaluation import plot_kernel_approximation_error
    >>> fig = plot_kernel_approximation_error(orders=[2, 4], n_features=[10, 100], n_draws=2)
    >>> bool(fig.hermite_errors_[1] < fig.fourier_errors_[1])
    True
    """
    from ..kernels import HermiteFeatures, RandomFourierFeatures

    plt = _pyplot()
    orders = [int(c) for c in orders]
    n_features = [int(m) for m in n_features]
    if not orders or not n_features:
        raise ValueError("orders and n_features must not be empty.")
    rng = check_generator(random_state)
    a = rng.normal(0.0, 1.0, (n_samples, 1))
    b = rng.normal(1.0, 1.0, (n_samples, 1))
    if length_scale is None:
        pooled = np.vstack([a, b])[:, 0]
        dist = np.abs(pooled[:, None] - pooled[None, :])
        length_scale = float(np.median(dist[np.triu_indices(pooled.size, 1)]))
    K = np.exp(-((a - b.T) ** 2) / (2.0 * length_scale**2))

    hermite = []
    for c in orders:
        hf = HermiteFeatures(order=c, length_scale=length_scale).fit(a)
        hermite.append(np.abs(K - hf.transform(a) @ hf.transform(b).T).mean())
    fourier = []
    for m in n_features:
        errs = []
        for _ in range(n_draws):
            rff = RandomFourierFeatures(
                n_components=m, length_scale=length_scale,
                random_state=int(rng.integers(2**31)),
            ).fit(a)
            errs.append(np.abs(K - rff.transform(a) @ rff.transform(b).T).mean())
        fourier.append(float(np.mean(errs)))
    hermite, fourier = np.asarray(hermite), np.asarray(fourier)

    if ax is None:
        fig, axes = plt.subplots(1, 2, figsize=(9, 3.5), sharey=True)
    else:
        axes = list(np.ravel(np.asarray(ax, dtype=object)))
        if len(axes) < 2:
            raise ValueError("ax must hold two Axes.")
        fig = axes[0].figure
    axes[0].semilogy(orders, hermite, "o-", color="C0", label="Hermite")
    axes[0].set_xlabel("Hermite order C")
    axes[0].set_ylabel("mean absolute kernel error")
    axes[0].set_title("Hermite polynomial features")
    axes[1].loglog(n_features, fourier, "s-", color="C1", label="random Fourier")
    axes[1].set_xlabel("number of random features")
    axes[1].set_title("Random Fourier features")
    for a_ in axes[:2]:
        a_.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.hermite_errors_ = hermite
    fig.fourier_errors_ = fourier
    return fig
