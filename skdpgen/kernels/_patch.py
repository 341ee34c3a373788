"""Random Fourier features of image patches, location by location, with norm one."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math
from numbers import Integral, Real

import numpy as np
import torch
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted

from ..utils import check_generator
from ._base import BoundedFeatureMap, _is_tensor

__all__ = ["PatchFourierFeatures"]


class PatchFourierFeatures(BoundedFeatureMap):
    """Random Fourier features of every patch of an image, kept by location.

    A row is a single-channel image of ``image_shape = (h, w)`` pixels,
    flattened in C order. Every ``patch_size × patch_size`` patch on a grid
    of ``stride`` (``L`` locations) is projected on the same
    ``n_filters`` random filters ``ω_j ~ N(0, I/ℓ²)`` (a convolution), and
    the map is

    ``φ(x) = [cos(ω_jᵀ P_l x), sin(ω_jᵀ P_l x)]_{j, l} / sqrt(n_filters · L)``

    with ``P_l x`` the patch at location ``l``: ``2 · n_filters · L``
    features. In expectation over the filters
    ``φ(x)ᵀφ(x′) = (1/L) Σ_l exp(−‖P_l x − P_l x′‖² / (2ℓ²))``: the average
    over locations of a Gaussian kernel on the patches at the same place. Its
    mean embedding holds, location by location, the characteristic function
    of the pixels' joint distribution within a patch (which a sum of
    per-pixel kernels does not see) on the filters' frequencies.

    Parameters
    ----------
    image_shape : tuple of (int, int) or None, default=None
        Height and width of the images (``h · w`` input columns). None: each
        row is an image of one line, ``(1, n_features_in_)``, and its patches
        are runs of ``min(patch_size, n_features_in_)`` neighbouring columns.
    patch_size : int, default=5
        Side of the square patches (at most ``min(h, w)``).
    stride : int, default=2
        Step of the patch grid, in pixels (both directions).
    n_filters : int, default=64
        Random filters (frequencies) shared by all locations; each gives a
        cosine and a sine feature at each location.
    length_scale : float, default=2.0
        Length scale ℓ of the Gaussian kernel on a patch, in the input's
        units (encoded pixels lie on [-1, 1]: a 5 × 5 patch of independent
        uniform pixels is ``sqrt(25 · 2/3) ≈ 4.1`` from another, on average).
    random_state : int, RandomState instance or None, default=None
        Draws the filters. They do not depend on the data.

    Attributes
    ----------
    filters_ : ndarray of shape (n_filters, patch_height, patch_width)
        The frequencies ω, one filter each: ``patch_size × patch_size``, or
        ``1 × min(patch_size, n_features_in_)`` when ``image_shape`` is None.
    n_locations_ : int
        ``L``, the patches of an image.
    n_features_out_ : int
        ``2 · n_filters · L``.
    n_features_in_ : int

    See Also
    --------
    RandomFourierFeatures : The same features of the whole row.

    Notes
    -----
    **Norm bound.** For every finite projection ``t = ω_jᵀ P_l x``,
    ``cos²t + sin²t = 1``, so ``‖φ(x)‖² = (1/(n_filters · L)) Σ_{j, l} 1 =
    1`` for every input, whatever its values (all pixels at the minimum, at
    the maximum, or anything in between): the mean embedding of ``n`` rows
    has replace-one sensitivity ``2/n``. In the NumPy path a projection that
    overflows to inf for an extreme finite input is taken as 0 (cosine 1,
    sine 0), which keeps the norm at 1; the torch path (encoded and
    generated rows, which are bounded) has no such guard. Rounding is
    handled as for every :class:`~skdpgen.kernels.BoundedFeatureMap`. The
    map is row-wise: a row's features depend on the row and on the filters
    (public randomness) alone.

    **Choices.** The filters are shared by the locations (a convolution:
    one ``conv2d`` computes them) but the features are not pooled over
    locations: a pooled map would be translation invariant and forget where
    in the image a patch is, which for centred images such as FashionMNIST
    is most of the class information.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen.kernels import PatchFourierFeatures
    >>> X = np.random.default_rng(0).uniform(-1, 1, size=(3, 36))
    >>> fmap = PatchFourierFeatures(image_shape=(6, 6), patch_size=3, stride=3,
    ...                             n_filters=4, random_state=0).fit(X)
    >>> fmap.n_locations_, fmap.n_features_out_
    (4, 32)
    >>> np.linalg.norm(fmap.transform(X), axis=1).round(6)
    array([1., 1., 1.])
    """

    _parameter_constraints: dict = {
        "image_shape": [tuple, list, None],
        "patch_size": [Interval(Integral, 1, None, closed="left")],
        "stride": [Interval(Integral, 1, None, closed="left")],
        "n_filters": [Interval(Integral, 1, None, closed="left")],
        "length_scale": [Interval(Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
    }

    def __init__(self, *, image_shape=None, patch_size=5, stride=2, n_filters=64, length_scale=2.0,
                 random_state=None):
        self.image_shape = image_shape
        self.patch_size = patch_size
        self.stride = stride
        self.n_filters = n_filters
        self.length_scale = length_scale
        self.random_state = random_state

    def _fit(self, X):
        if self.image_shape is None:  # one line of pixels: runs of neighbouring columns
            h, w = 1, X.shape[1]
            patch = (1, min(self.patch_size, w))
        else:
            h, w = (int(v) for v in self.image_shape)
            if h * w != X.shape[1]:
                raise ValueError(f"image_shape={tuple(self.image_shape)} has {h * w} pixels; "
                                 f"X has {X.shape[1]} columns.")
            p = self.patch_size
            if p > min(h, w):
                raise ValueError(f"patch_size={p} exceeds the image's side ({h} x {w}).")
            patch = (p, p)
        self._shape, self._patch = (h, w), patch
        rng = check_generator(self.random_state)
        self.filters_ = rng.standard_normal((self.n_filters, *patch)) / float(self.length_scale)
        self.n_locations_ = (((h - patch[0]) // self.stride + 1)
                             * ((w - patch[1]) // self.stride + 1))
        self._n_features_out = 2 * self.n_filters * self.n_locations_

    def _projections(self, T, cached=True):
        """``ω_jᵀ P_l x`` of every row of the tensor ``T``: shape (n, n_filters, L).

        ``cached``: the filters' tensor kept between calls (the training loop's
        tensors); a NumPy transform leaves the fitted map unchanged."""
        # unfold + matmul: on CPU several times faster than a one-channel conv2d
        patches = torch.nn.functional.unfold(T.reshape(-1, 1, *self._shape),
                                             self._patch, stride=self.stride)  # (n, p², L)
        filters = (self._tensor("filters_", T) if cached
                   else torch.as_tensor(self.filters_, dtype=T.dtype))
        return filters.flatten(1) @ patches

    def raw_transform(self, Z):
        """Features of every row of ``Z`` (NumPy or torch), before the clip.

        Parameters
        ----------
        Z : ndarray or torch.Tensor of shape (n_samples, h · w)

        Returns
        -------
        H : same type, of shape (n_samples, n_features_out_)
            Ordered as (cosine or sine, filter, location).
        """
        check_is_fitted(self)
        scale = 1.0 / math.sqrt(self.n_filters * self.n_locations_)
        if _is_tensor(Z):
            proj = self._projections(Z)
            return torch.cat([torch.cos(proj), torch.sin(proj)], dim=1).flatten(1) * scale
        T = torch.from_numpy(np.ascontiguousarray(Z, dtype=np.float64))
        proj = self._projections(T, cached=False)
        proj = torch.where(torch.isfinite(proj), proj, torch.zeros_like(proj))
        H = torch.cat([torch.cos(proj), torch.sin(proj)], dim=1).flatten(1) * scale
        return H.numpy()

    def raw_feature_sum(self, Z, weights):
        """``Σ_i weights[i, k] φ(z_i)`` without the clip (generated rows), fused.

        The cosine and sine blocks are summed by two matrix products, without
        building the (n, n_features_out_) matrix (its concatenation and
        transpose cost several times the arithmetic in a training step).
        """
        if not _is_tensor(Z):
            return super().raw_feature_sum(Z, weights)
        check_is_fitted(self)
        q = self._projections(Z).flatten(1)  # (n, F · L)
        scale = 1.0 / math.sqrt(self.n_filters * self.n_locations_)
        return torch.cat([(weights.T @ torch.cos(q)).T, (weights.T @ torch.sin(q)).T]) * scale
