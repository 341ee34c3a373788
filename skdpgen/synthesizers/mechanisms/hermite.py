"""DP-HP's mechanism: the Hermite sum kernel, then the pairwise or product kernels."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from ...kernels import HermiteFeatures, PatchFourierFeatures
from .._policy import POLICY
from ._base import Mechanism, feature_map_loss
from .fourier import default_length_scale
from ._pairwise import pairwise_features

__all__ = ["HermiteMechanism", "draw_product_columns", "patch_features"]


def draw_product_columns(rng, widths, size, max_features=POLICY.max_product_features):
    """Draw the columns of one product-kernel release (public randomness).

    Columns are taken in a random order, each kept when the product of the
    kept widths stays at most ``max_features`` (a column wider than that on
    its own is never kept), until ``size`` are kept.

    Parameters
    ----------
    rng : numpy.random.Generator
    widths : sequence of int
        Features of each table column in the product kernel (public: the
        Hermite order plus one, or the one-hot block's size).
    size : int
    max_features : int, default=POLICY.max_product_features

    Returns
    -------
    columns : ndarray of int
        Sorted; at most ``size``; when no column fits, the narrowest one.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen.synthesizers.mechanisms.hermite import draw_product_columns
    >>> draw_product_columns(np.random.default_rng(0), [6, 6, 100, 100], 3,
    ...                      max_features=5000).tolist()
    [0, 1, 2]
    """
    kept, width = [], 1
    for j in rng.permutation(len(widths)):
        if len(kept) == size:
            break
        if width * int(widths[j]) <= max_features:
            kept.append(int(j))
            width *= int(widths[j])
    if not kept:
        kept = [int(np.argmin(widths))]
    return np.sort(np.asarray(kept, dtype=np.intp))


def patch_features(image_shape, n_numeric, category_sizes, rng):
    """DP-HP's patch kernel of images: random Fourier features of their patches.

    A :class:`~skdpgen.kernels.PatchFourierFeatures` map on the encoded
    pixels (on [-1, 1]), shaped by public settings only: square patches of
    side ``max(3, round(POLICY.patch_side_share · min(h, w)))`` (5 for
    28 × 28 images, 3 for 8 × 8; at most ``min(h, w)``), on a grid of half
    that step (at least 1), ``POLICY.patch_filters`` filters, and the length scale
    ``POLICY.patch_length_scale_factor · sqrt(p² · 2/3)``: that multiple of
    the typical distance of two patches of independent uniform pixels
    (DP-MERF's rule, :func:`~skdpgen.synthesizers.mechanisms.fourier.default_length_scale`, on
    a patch's ``p²`` pixels).
    Its norm is exactly 1, so one record moves the mean embedding by at most
    ``2/n`` (derived in the map's Notes), as for every bounded map.

    Parameters
    ----------
    image_shape : tuple of (int, int) or None
        The synthesizer's ``image_shape``.
    n_numeric : int
        Numeric columns of the encoding (must be ``h · w``).
    category_sizes : list of int
        Categorical columns of the encoding (must be empty).
    rng : numpy.random.Generator
        Public randomness: draws the filters.

    Returns
    -------
    features : PatchFourierFeatures
        Fitted on the public shape.

    Raises
    ------
    ValueError
        Without ``image_shape``, or when the table is not ``h · w`` numeric
        pixel columns (public: the schema).

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen.synthesizers.mechanisms.hermite import patch_features
    >>> fmap = patch_features((8, 8), 64, [], np.random.default_rng(0))
    >>> fmap.patch_size, fmap.stride, fmap.n_features_out_
    (3, 1, 2304)
    """
    if image_shape is None or category_sizes or n_numeric != image_shape[0] * image_shape[1]:
        raise ValueError(
            "product_kernel='patch' needs image_shape=(h, w) and a table of h * w numeric "
            f"pixel columns; got {n_numeric} numeric and {len(category_sizes)} categorical "
            f"columns, image_shape={image_shape}.")
    side = min(max(3, round(POLICY.patch_side_share * min(image_shape))), min(image_shape))
    return PatchFourierFeatures(
        image_shape=tuple(image_shape), patch_size=side, stride=max(1, side // 2),
        n_filters=POLICY.patch_filters,
        length_scale=default_length_scale(side * side, [], POLICY.patch_length_scale_factor),
        random_state=int(rng.integers(2**31 - 1)),
    ).fit(np.zeros((1, n_numeric)))


class HermiteMechanism(Mechanism):
    """DP-HP's releases: the sum kernel once, then the pairwise or product kernels.

    The sum kernel (Hermite features of every numeric column, one-hot blocks
    of the categorical ones) is released before training. With
    ``product_kernel="pairwise"`` the pairwise kernel (every pair of columns,
    :class:`~skdpgen.HermiteFeatures` ``kernel="pairwise"``; at most
    ``POLICY.max_pairwise_features`` features, see
    ``draw_pairwise_columns``)
    is released once too; with ``"patch"`` (images), the patch kernel
    (:func:`patch_features`) is released once; with ``"random"`` (the paper's), at the start of
    each epoch ``product_size`` columns are drawn at random (public
    randomness, :func:`draw_product_columns`: a draw keeps at most
    ``POLICY.max_product_features`` features) and the product kernel over them is
    released. The loss is ``‖μ̃ˢ − μˢ_θ‖² + γ ‖μ̃ᵖ − μᵖ_θ‖²`` (summed over
    classes), with the pairwise or patch release or the latest product release.

    Parameters
    ----------
    order, length_scale, product_order, product_size, gamma, product_share, pair_shrinkage
        As in :class:`DPHPSynthesizer` (its defaults, ``product_share`` resolved).
    product_kernel : {"pairwise", "patch", "random"}, default="random"
        The resolved ``product_kernel`` of :class:`DPHPSynthesizer`.
    image_shape : tuple of (int, int) or None, default=None
        As in :class:`DPHPSynthesizer` (needed by ``"patch"``).
    """

    #: the two-way release of each product kernel, by name in the privacy report
    _RELEASES = {"pairwise": "pairwise kernel", "patch": "patch kernel",
                 "random": "product kernel"}

    _parameter_constraints: dict = {
        "order": [Interval(Integral, 0, None, closed="left")],
        "length_scale": [Interval(Real, 0, None, closed="neither"), "array-like"],
        "product_order": [Interval(Integral, 0, None, closed="left")],
        "product_size": [Interval(Integral, 1, None, closed="left")],
        "gamma": [Interval(Real, 0, None, closed="left")],
        "product_share": [Interval(Real, 0, 1, closed="left")],
        "product_kernel": [StrOptions({"pairwise", "patch", "random"})],
        "pair_shrinkage": ["boolean"],
        "image_shape": [tuple, None],
    }

    def __init__(self, *, order=20, length_scale=0.5, product_order=5, product_size=3,
                 gamma=1.0, product_share=POLICY.kernel_product_share,
                 product_kernel="random", pair_shrinkage=False, image_shape=None):
        self.order = order
        self.length_scale = length_scale
        self.product_order = product_order
        self.product_size = product_size
        self.gamma = gamma
        self.product_share = product_share
        self.product_kernel = product_kernel
        self.pair_shrinkage = pair_shrinkage
        self.image_shape = image_shape

    def setup(self, encoder, n_classes, epochs, rng):
        super().setup(encoder, n_classes, epochs, rng)
        self.category_sizes_ = list(encoder.category_sizes_)
        self.n_columns_ = encoder.n_numeric_ + len(self.category_sizes_)
        self.features_ = HermiteFeatures(
            order=self.order, length_scale=self.length_scale,
            category_sizes=self.category_sizes_,
        ).fit(np.zeros((1, encoder.n_encoded_)))
        self.product_columns_ = []
        self.pairwise_ = None
        self.patch_ = None
        self.pair_shrinkage_ = None
        if self.product_kernel == "patch" and self.product_share != 0:
            self.patch_ = patch_features(self.image_shape, encoder.n_numeric_,
                                         self.category_sizes_, rng)
        return self

    def budget_shares(self, epochs):
        if self.product_share == 0:
            return {"sum kernel": 1.0}
        if self.product_kernel in ("pairwise", "patch"):
            return {"sum kernel": 1.0 - self.product_share,
                    self._RELEASES[self.product_kernel]: self.product_share}
        return {
            "sum kernel": 1.0 - self.product_share,
            "product kernel": (self.product_share, epochs),
        }

    def release(self, epoch, context):
        if epoch == 0:
            self._release(context, "sum kernel", self.features_)
        if self.product_share == 0:
            return
        if self.product_kernel == "patch":
            if epoch == 0:  # one release, before training
                self._product = self.patch_
                self._release(context, "patch kernel", self._product)
            return
        if self.product_kernel == "pairwise":
            if epoch == 0:  # one release, before training
                self._product = pairwise_features(
                    self.features_.n_numeric_, self.category_sizes_, self.product_order,
                    self.length_scale, context.rng,
                    noise_std=context.noise_std("pairwise kernel"))
                self.pairwise_ = self._product
                self.product_columns_.append(self._product.product_dims_)
                self._release(context, "pairwise kernel", self._product)
                if self.pair_shrinkage:
                    self._shrink_pairs(context, "pairwise kernel", self._product,
                                       self._sum_margins(self._class_noise(
                                           context, "sum kernel", self.features_) ** 2))
            return
        widths = ([self.product_order + 1] * (self.n_columns_ - len(self.category_sizes_))
                  + self.category_sizes_)
        cols = draw_product_columns(context.rng, widths, self.product_size)
        self.product_columns_.append(cols)
        self._product = HermiteFeatures(
            order=self.product_order, length_scale=self.length_scale, kernel="product",
            product_dims=cols, category_sizes=self.category_sizes_,
        ).fit(np.zeros((1, self.features_.n_features_in_)))
        self._release(context, "product kernel", self._product)

    def _sum_margins(self, variance):
        """The categorical columns' class histograms ``E_k[φ_a]``, from the sum kernel's release.

        The sum kernel's block of a one-hot column ``a`` is ``E_k[φ_a]/sqrt(D)``
        for ``D`` table columns; ``variance`` (per class) is that release's
        noise variance per entry, so the means' is ``D·variance``.

        Returns
        -------
        column_means : dict
            ``{table column: (means (n_classes, w), variance (n_classes,))}``,
            as ``shrink_pairwise`` takes it.
        """
        sums = self.targets_["sum kernel"][0].astype(np.float64)
        p, sizes = self.features_.n_numeric_, self.category_sizes_
        D = p + len(sizes)
        starts = p * (self.order + 1) + np.cumsum([0] + sizes)
        return {j: (sums[:, starts[j - p]:starts[j - p + 1]] * np.sqrt(D), D * variance)
                for j in self._product.product_dims_.tolist() if j >= p}

    def loss(self, generated, labels):
        # Each kernel computes its own Hermite terms: sharing the sum kernel's
        # (n, p, order + 1) terms with a product kernel over a few columns
        # costs more than it saves, since autograd then scatters the product's
        # gradient into a zero tensor of the full terms' size at every step.
        loss = feature_map_loss(self._on_device["sum kernel"], self.features_, generated,
                                labels, self.n_classes_)
        for name in self._RELEASES.values():
            if name in self._on_device:
                loss = loss + self.gamma * feature_map_loss(
                    self._on_device[name], self._product, generated, labels, self.n_classes_)
        return loss
