"""The 2-D grid of Gaussians of the DP-MERF and DP-HP papers."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math
from numbers import Integral, Real

import numpy as np
from scipy.special import logsumexp
from sklearn.utils import check_array

from ..utils import check_generator

__all__ = ["gaussian_grid_centers", "gaussian_grid_nll", "make_gaussian_grid"]


def _check_grid(grid_size, sigma, n_classes, spacing):
    if isinstance(grid_size, bool) or not isinstance(grid_size, Integral) or grid_size < 1:
        raise ValueError(f"grid_size must be a positive integer, got {grid_size!r}.")
    if isinstance(n_classes, bool) or not isinstance(n_classes, Integral) or n_classes < 1:
        raise ValueError(f"n_classes must be a positive integer, got {n_classes!r}.")
    for name, value in (("sigma", sigma), ("spacing", spacing)):
        if isinstance(value, bool) or not isinstance(value, Real) or not (
            math.isfinite(value) and value > 0
        ):
            raise ValueError(f"{name} must be positive and finite, got {value!r}.")
    if n_classes > grid_size**2:
        raise ValueError(
            f"n_classes={n_classes} exceeds the number of Gaussians grid_size²={grid_size**2}."
        )


def gaussian_grid_centers(*, grid_size=5, n_classes=5, spacing=1.0):
    """Centers of the grid's Gaussians and the class of each.

    The Gaussian in row ``r`` and column ``c`` (both in ``0 … grid_size − 1``)
    is centred at ``spacing · (r, c)`` and belongs to class
    ``(r · ⌊n_classes/2⌋ + c) mod n_classes``: along a row the classes cycle,
    and each row starts ``⌊n_classes/2⌋`` classes further than the row below,
    so that neighbouring Gaussians (also vertically) differ in class. This is
    the layout and class assignment of the DP-MERF code (``create_centers``
    in ``code_balanced/synth_data_2d.py`` of github.com/ParkLabML/DP-MERF),
    whose first coordinate is the row.

    Parameters
    ----------
    grid_size : int, default=5
    n_classes : int, default=5
    spacing : float, default=1.0

    Returns
    -------
    centers : ndarray of shape (grid_size², 2)
        Row-major: index ``r · grid_size + c``.
    center_classes : ndarray of int of shape (grid_size²,)

    Examples
    --------
    >>> from skdpgen.datasets import gaussian_grid_centers
    >>> centers, classes = gaussian_grid_centers()
    >>> classes.reshape(5, 5)
    array([[0, 1, 2, 3, 4],
           [2, 3, 4, 0, 1],
           [4, 0, 1, 2, 3],
           [1, 2, 3, 4, 0],
           [3, 4, 0, 1, 2]])
    >>> centers[7].tolist()  # row 1, column 2
    [1.0, 2.0]
    """
    _check_grid(grid_size, 1.0, n_classes, spacing)
    r, c = np.divmod(np.arange(grid_size * grid_size), grid_size)
    centers = spacing * np.column_stack([r, c]).astype(np.float64)
    classes = (r * (n_classes // 2) + c) % n_classes
    missing = np.setdiff1d(np.arange(n_classes), classes)
    if missing.size:
        raise ValueError(
            f"With grid_size={grid_size} and n_classes={n_classes} the classes "
            f"{missing.tolist()} get no Gaussian; choose n_classes dividing grid_size."
        )
    return centers, classes


def make_gaussian_grid(
    n_per_gaussian=4000,
    *,
    grid_size=5,
    sigma=0.2,
    n_classes=5,
    spacing=1.0,
    shuffle=True,
    return_centers=False,
    random_state=None,
):
    """Labelled 2-D mixture of Gaussians on a square grid (DP-MERF, DP-HP).

    The DP-HP paper's 2-D example (Vinaroz et al. 2022, after Harder et al.
    2021): ``grid_size × grid_size`` isotropic Gaussians of standard
    deviation ``sigma``, centred on a square grid of the given spacing, with
    ``n_per_gaussian`` samples each, in ``n_classes`` classes. The defaults
    give the paper's 5 × 5 grid, σ = 0.2, five classes and 4,000 samples per
    Gaussian (100,000 in all).

    Parameters
    ----------
    n_per_gaussian : int, default=4000
        Samples drawn from every Gaussian.
    grid_size : int, default=5
        Gaussians per row and per column.
    sigma : float, default=0.2
        Standard deviation of every coordinate of every Gaussian.
    n_classes : int, default=5
        Number of classes.
    spacing : float, default=1.0
        Distance between neighbouring centers: the centers are
        ``spacing · (r, c)`` for row ``r`` and column ``c`` in
        ``0 … grid_size − 1`` (the grid spans ``[0, spacing·(grid_size − 1)]``
        in both coordinates, as in the DP-MERF code).
    shuffle : bool, default=True
        Shuffle the rows; otherwise they are grouped by Gaussian, in
        row-major order of the grid.
    return_centers : bool, default=False
        Also return the centers and the class of each center.
    random_state : int, RandomState instance or None, default=None

    Returns
    -------
    X : ndarray of shape (grid_size² · n_per_gaussian, 2)
    y : ndarray of int of shape (grid_size² · n_per_gaussian,)
        Class labels ``0 … n_classes − 1``.
    centers : ndarray of shape (grid_size², 2)
        Only with ``return_centers=True``.
    center_classes : ndarray of int of shape (grid_size²,)
        Only with ``return_centers=True``.

    See Also
    --------
    gaussian_grid_centers : The centers and the class of each.
    skdpgen.datasets.gaussian_grid_nll : Likelihood of (synthetic) samples
        under this mixture.

    Notes
    -----
    **Classes.** Gaussian ``(r, c)`` belongs to class
    ``(r · ⌊n_classes/2⌋ + c) mod n_classes`` (see
    :func:`gaussian_grid_centers`): with the defaults every class has five
    Gaussians, one per row and one per column, and no two neighbouring
    Gaussians share a class. Classes are balanced when ``n_classes`` divides
    ``grid_size``.

    **Public bounds.** Almost all the mass lies within ``4σ`` of the grid:
    ``bounds=(-4σ, spacing·(grid_size − 1) + 4σ)``, i.e. ``(-0.8, 4.8)`` by
    default, is a natural public choice for a synthesizer.

    References
    ----------
    F. Harder, K. Adamczewski, M. Park. "DP-MERF: Differentially Private Mean
    Embeddings with Random Features for Practical Privacy-Preserving Data
    Generation." AISTATS 2021.

    M. Vinaroz, M.-A. Charusaie, F. Harder, K. Adamczewski, M. J. Park.
    "Hermite Polynomial Features for Private Data Generation." ICML 2022.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen.datasets import make_gaussian_grid
    >>> X, y = make_gaussian_grid(random_state=0)
    >>> X.shape, np.bincount(y).tolist()
    ((100000, 2), [20000, 20000, 20000, 20000, 20000])
    """
    if isinstance(n_per_gaussian, bool) or not isinstance(n_per_gaussian, Integral) or n_per_gaussian < 1:
        raise ValueError(f"n_per_gaussian must be a positive integer, got {n_per_gaussian!r}.")
    _check_grid(grid_size, sigma, n_classes, spacing)
    centers, center_classes = gaussian_grid_centers(
        grid_size=grid_size, n_classes=n_classes, spacing=spacing
    )
    rng = check_generator(random_state)
    k = centers.shape[0]
    which = np.repeat(np.arange(k), n_per_gaussian)
    if shuffle:
        which = rng.permutation(which)
    X = centers[which] + sigma * rng.standard_normal((which.size, 2))
    y = center_classes[which]
    if return_centers:
        return X, y, centers, center_classes
    return X, y


def gaussian_grid_nll(X, y=None, *, grid_size=5, sigma=0.2, n_classes=5, spacing=1.0):
    """Mean negative log-likelihood of samples under the true grid mixture.

    Evaluates (synthetic) samples under the mixture that
    :func:`~skdpgen.datasets.make_gaussian_grid` draws from, with the same
    parameters: without labels, the mixture of all ``grid_size²`` Gaussians
    with equal weights, ``p(x) = (1/K) Σ_k N(x; μ_k, σ²I)``; with labels, the
    class-conditional mixture ``p(x | y) = (1/K_y) Σ_{k: class(k) = y}
    N(x; μ_k, σ²I)`` over the ``K_y`` Gaussians of class ``y``. Lower is
    better.

    Parameters
    ----------
    X : array-like of shape (n_samples, 2)
    y : array-like of int of shape (n_samples,), default=None
        Class labels in ``0 … n_classes − 1``.
    grid_size, sigma, n_classes, spacing
        As in :func:`~skdpgen.datasets.make_gaussian_grid`.

    Returns
    -------
    nll : float
        ``−mean_i log p(x_i)`` (or ``−mean_i log p(x_i | y_i)``), in nats.

    Notes
    -----
    Samples drawn from the mixture itself score about
    ``log(2πσ²) + 1 + log K`` without labels and ``log(2πσ²) + 1 + log K_y``
    with labels, where ``K_y`` is the number of Gaussians of class ``y``:
    about 2.79 and 1.23 for the defaults (the first a little below
    ``log(2π·0.04) + 1 + log 25 = 2.84`` because neighbouring Gaussians
    overlap slightly; those of one class are never neighbours). The joint density of the labelled data is
    ``p(x, y) = p(y) p(x | y)``, so ``−log p(x, y)`` adds ``log n_classes``
    for balanced classes. (The DP-MERF code reports summed log-likelihoods
    with a one-dimensional normalizing constant; this function uses the
    two-dimensional density.)

    Examples
    --------
    >>> from skdpgen.datasets import gaussian_grid_nll, make_gaussian_grid
    >>> X, y = make_gaussian_grid(1000, random_state=0)
    >>> round(gaussian_grid_nll(X), 2), round(gaussian_grid_nll(X, y), 2)
    (2.79, 1.23)
    """
    _check_grid(grid_size, sigma, n_classes, spacing)
    X = check_array(X, dtype=np.float64)
    if X.shape[1] != 2:
        raise ValueError(f"X must have 2 columns, got {X.shape[1]}.")
    centers, center_classes = gaussian_grid_centers(
        grid_size=grid_size, n_classes=n_classes, spacing=spacing
    )
    sq = (
        np.einsum("ij,ij->i", X, X)[:, None]
        + np.einsum("ij,ij->i", centers, centers)[None, :]
        - 2.0 * X @ centers.T
    )
    np.maximum(sq, 0.0, out=sq)
    log_gauss = -sq / (2.0 * sigma**2) - math.log(2.0 * math.pi * sigma**2)
    if y is None:
        log_p = logsumexp(log_gauss, axis=1) - math.log(centers.shape[0])
        return float(-log_p.mean())
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise ValueError(f"y must be 1-D with {X.shape[0]} entries, got shape {y.shape}.")
    if not np.issubdtype(y.dtype, np.integer):
        if np.issubdtype(y.dtype, np.floating) and np.all(np.isfinite(y)) and np.all(y == np.round(y)):
            y = y.astype(np.int64)
        else:
            raise ValueError("y must hold integer class labels.")
    if y.size and (y.min() < 0 or y.max() >= n_classes):
        raise ValueError(f"y must hold class labels in 0 … {n_classes - 1}.")
    member = center_classes[None, :] == y[:, None]
    counts = np.bincount(center_classes, minlength=n_classes)
    masked = np.where(member, log_gauss, -np.inf)
    log_p = logsumexp(masked, axis=1) - np.log(counts[y])
    return float(-log_p.mean())
