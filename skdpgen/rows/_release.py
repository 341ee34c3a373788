"""The one release of a mean embedding: sum the clipped feature rows, divide by n, add noise."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

__all__ = ["release_mean_embedding"]


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
    sums = rows.feature_sums(feature_map, device=device)
    n = rows.n_rows  # after the sum: Dask rows are counted in its pass
    if n < min_rows:
        raise ValueError(f"Need at least {min_rows} rows, got {n}.")
    mean = (sums if by_class else sums.sum(axis=1, keepdims=True)) / n
    sensitivity = feature_map.max_row_distance / n
    return accountant.add_noise(name, mean, sensitivity=sensitivity), sensitivity
