"""The releases of feature sums: a mean embedding (sum the clipped feature rows,
divide by n, add noise), or a statistic of the sums with its derived sensitivity."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import numpy as np

__all__ = ["release_mean_embedding", "release_mean_embeddings", "release_statistic"]


def release_mean_embedding(rows, feature_map, accountant, name, *, by_class=False,
                           device="cpu", min_rows=1):
    """Release the noisy (class-conditional) mean embedding of private rows.

    ``(1/n) Σ_i clip(h(x_i)) ⊗ onehot(y_i)`` (by class), or ``(1/n) Σ_i
    clip(h(x_i))``, plus the Gaussian noise of release ``name`` of
    ``accountant``, calibrated to the sensitivity below. Every estimator that
    releases a mean embedding (:class:`~skdpgen.KernelMeanEmbedding`,
    :class:`~skdpgen.DPKMEReleaser`, the synthesizers' mechanisms, the private
    scorers) releases it here.

    Parameters
    ----------
    rows : ArrayRows or DaskRows
        The private rows (:func:`make_rows`).
    feature_map : BoundedFeatureMap
        Fitted on the rows' (encoded) width.
    accountant : GaussianAccountant
        Planned with release ``name``.
    name : str
    by_class : bool, default=False
        True: one mean per class, each a sum over the rows of that class
        divided by the number of all rows (the rows must have labels).
    device : str, default="cpu"
        Where the features are computed (see :meth:`ArrayRows.feature_sums`).
    min_rows : int, default=1
        Fewer rows (public) are an error.

    Returns
    -------
    noisy : ndarray of shape (n_features_out, max(1, n_classes)) or (n_features_out, 1)
        The release: by class, or over all rows (one column).
    sensitivity : float
        ``feature_map.max_row_distance / n``.

    Notes
    -----
    **Sensitivity** (replace-one; ``n`` public). Every row's features are
    clipped to norm ≤ 1 (:meth:`~skdpgen.kernels.BoundedFeatureMap.feature_sum`).
    Replacing record ``(x, y)`` by ``(x′, y′)`` changes the (features ×
    classes) matrix of sums by ``h(x) e_yᵀ − h(x′) e_y′ᵀ``: if ``y = y′``, a
    column changes by ``h(x) − h(x′)``, of norm at most ``Δ =
    max_row_distance`` (2 for rows of norm ≤ 1; ``√2`` for a map whose
    features are non-negative, as their inner product is then ≥ 0); if
    ``y ≠ y′``, two columns change, by ``h(x)`` and ``−h(x′)``, of squared
    Frobenius norm ``‖h(x)‖² + ‖h(x′)‖² ≤ 2 ≤ Δ²``. Over all rows (the sum
    of the columns) the change is ``h(x) − h(x′)``, again at most ``Δ``.
    Divided by ``n``: ``Δ/n``, attained by rows of norm 1 (at opposite
    points, or orthogonal for a non-negative map). The noise is drawn by
    ``accountant`` alone.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen.kernels import RandomFourierFeatures
    >>> from skdpgen.privacy import GaussianAccountant
    >>> from skdpgen.rows import ArrayRows, release_mean_embedding
    >>> X = np.random.default_rng(0).uniform(-1, 1, (100, 2))
    >>> fmap = RandomFourierFeatures(n_components=10, random_state=0).fit(X[:1])
    >>> acc = GaussianAccountant(1.0, 1e-5, {"mean": 1.0})
    >>> noisy, sensitivity = release_mean_embedding(ArrayRows(X), fmap, acc, "mean")
    >>> noisy.shape, sensitivity
    ((10, 1), 0.02)
    """
    (out,) = release_mean_embeddings(rows, [(name, feature_map, by_class)], accountant,
                                     device=device, min_rows=min_rows)
    return out


def release_mean_embeddings(rows, requests, accountant, *, device="cpu", min_rows=1):
    """Several releases of :func:`release_mean_embedding` from one pass over the rows.

    The feature sums of every distinct map in ``requests`` are computed in
    one pass (each chunk of rows encoded once: :meth:`ArrayRows.feature_sums`
    with a list of maps); each request is then released exactly as
    :func:`release_mean_embedding` releases it (same mean, sensitivity and
    noise, drawn in the order of ``requests``). A map requested both by
    class and over all rows is summed once: the overall sum is the sum of
    its classes' sums.

    Parameters
    ----------
    rows : ArrayRows or DaskRows
    requests : list of (name, feature_map, by_class)
        Each a release planned in ``accountant``.
    accountant : GaussianAccountant
    device : str, default="cpu"
    min_rows : int, default=1

    Returns
    -------
    releases : list of (noisy, sensitivity)
        In the order of ``requests``.

    Notes
    -----
    The sensitivity of each release is derived in
    :func:`release_mean_embedding`'s Notes; summing several maps in one
    pass changes what is computed when, not what is released.
    """
    maps = []
    for _, feature_map, _ in requests:
        if not any(feature_map is m for m in maps):
            maps.append(feature_map)
    sums = rows.feature_sums(maps, device=device)
    n = rows.n_rows  # after the sum: Dask rows are counted in its pass
    if n < min_rows:
        raise ValueError(f"Need at least {min_rows} rows, got {n}.")
    out = []
    for name, feature_map, by_class in requests:
        total = next(s for m, s in zip(maps, sums) if m is feature_map)
        mean = (total if by_class else total.sum(axis=1, keepdims=True)) / n
        sensitivity = feature_map.max_row_distance / n
        out.append((accountant.add_noise(name, mean, sensitivity=sensitivity), sensitivity))
    return out


def release_statistic(rows, feature_map, statistic, accountant, name, *, sensitivity,
                      device="cpu"):
    """Release a function of the feature sums over all rows (Gaussian mechanism).

    One pass over the rows sums ``feature_map`` over every row (all classes
    together: a ``(n_features_out,)`` vector, each row clipped as
    :meth:`~skdpgen.kernels.BoundedFeatureMap.feature_sum` clips it);
    ``statistic`` maps the sums to the vector released as ``name`` with noise
    ``σ_i · sensitivity``.

    Parameters
    ----------
    rows : ArrayRows or DaskRows
    feature_map : BoundedFeatureMap
        Fitted on the rows' width.
    statistic : callable
        ``sums -> ndarray``: a public function (it may read earlier releases,
        never the rows).
    accountant : GaussianAccountant
    name : str
        A release planned in ``accountant``.
    sensitivity : float
        The replace-one L2 sensitivity of ``statistic(sums)``, which the
        caller derives in its Notes (e.g.
        :func:`skdpgen.synthesizers.MarginalMechanism`'s pair scores): the
        noise is calibrated to it.
    device : str, default="cpu"

    Returns
    -------
    noisy : ndarray

    Examples
    --------
    The number of rows in each cell of a one-hot column, released without
    noise (``epsilon=inf``: not private, for the example only):

    >>> import numpy as np
    >>> from skdpgen.kernels import MarginalFeatures
    >>> from skdpgen.privacy import GaussianAccountant
    >>> from skdpgen.rows import ArrayRows, release_statistic
    >>> Z = np.eye(3)[[0, 0, 1, 2, 2, 2]]
    >>> cells = MarginalFeatures(category_sizes=[3], degree=1).fit(Z)
    >>> acc = GaussianAccountant(np.inf, 1e-5, {"counts": 1.0})
    >>> release_statistic(ArrayRows(Z), cells, np.rint, acc, "counts",
    ...                   sensitivity=np.sqrt(2)).tolist()
    [2.0, 1.0, 3.0]
    """
    (sums,) = rows.feature_sums([feature_map], device=device)
    value = statistic(np.asarray(sums, dtype=np.float64).sum(axis=1))
    return accountant.add_noise(name, value, sensitivity=sensitivity)
