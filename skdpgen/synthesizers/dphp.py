"""DP-HP: private synthetic data from Hermite polynomial features."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

from numbers import Integral, Real

from sklearn.utils._param_validation import Interval, StrOptions

from ..base import estimator_init
from ..registry import register
from ._base import fitted_part
from ._kme import KMESynthesizer
from ._design import Design
from .mechanisms.hermite import HermiteMechanism
from ._policy import POLICY
from ._shared import SHARED_CONSTRAINTS, SHARED_DEFAULTS, synthesizer_doc

__all__ = ["DPHPSynthesizer"]


@register("dphp")
class DPHPSynthesizer(KMESynthesizer):
    """Differentially private synthetic data from Hermite polynomial features (DP-HP).

    Matches a generator's kernel mean embeddings to private ones under
    Hermite polynomial features. Numeric columns are kept as numbers (on
    their public range mapped onto [-1, 1]) and categorical ones as one-hot
    blocks. The sum kernel over all columns (Hermite features of every
    numeric column at ``order`` and ``length_scale``, the one-hot blocks as
    they are) is released once; the joint structure is released by the
    pairwise kernel over every pair of columns (``product_kernel="pairwise"``,
    the default on tables), random product kernels over a few columns
    redrawn each epoch (``"random"``, the paper's), or a patch kernel of
    images (``"patch"``, the default with ``image_shape``)
    (:class:`HermiteMechanism`). A generator network is trained on the loss
    ``‖μ̃ˢ − μˢ_θ‖² + γ ‖μ̃ᵖ − μᵖ_θ‖²``, summed over classes. For a table's
    marginals on public cells, see :class:`~skdpgen.MarginalSynthesizer`.

    Read more in the :ref:`User Guide <synthesizers>`.

    Parameters
    ----------
    order : int, default=20
        Hermite order of the sum kernel.
    length_scale : float or array-like, default=0.5
        Length scale of every numeric column's Gaussian kernel, in units of
        the public range mapped onto [-1, 1] (so 0.5 is a quarter of the
        range), in the sum kernel and in the pairwise and product kernels.
        It does not look at the data. An array gives one per column of the
        numeric block, ``encoder_.numeric_columns_`` (numeric and datetime
        columns, except integer columns encoded as levels, see
        ``max_levels``, and columns encoded as bins, see ``bins``).
    product_order : int, default=5
        Hermite order of numeric columns in the pairwise and product kernels
        (not with ``"patch"``).
    product_kernel : {"auto", "pairwise", "patch", "random"}, default="auto"
        How the joint structure is released. ``"pairwise"``: once, the
        pairwise kernel ``(1/P) Σ_{a<b} k_a k_b`` over every pair of
        columns (:class:`~skdpgen.HermiteFeatures` ``kernel="pairwise"``,
        at ``product_order``): every two-way interaction is in the loss at
        every step. Pairs of columns too wide for the release's noise are
        left out (``pairs_above_noise``: a pair
        with ``w_a·w_b`` features is kept while ``w_a·w_b·sqrt(P)`` stays
        within ``4n/(σΔ)``, from public quantities), and a table whose
        pairwise kernel would exceed 2**17 features uses a public random
        subset of its columns. ``"patch"`` (images; needs ``image_shape``):
        once, random Fourier features of every small patch of pixels,
        location by location (:func:`~skdpgen.synthesizers.mechanisms.hermite.patch_features`):
        strokes, edges and textures, which per-pixel kernels do not see.
        ``"random"`` (the paper's): at every epoch, the product kernel over
        ``product_size`` columns drawn at random, each draw a fresh release.
        ``"auto"``: ``"patch"`` with ``image_shape`` (a CNN trained on
        FashionMNIST synthesized at ε = 1: 0.76-0.78 against 0.68 for
        ``"random"`` on the test split, see the Benchmarks page),
        ``"pairwise"`` otherwise.
    product_size : int, default=3
        Number of columns of each product-kernel draw (``"random"`` only).
    gamma : float, default=1.0
        Weight γ of the pairwise-, patch- or product-kernel loss.
    product_share : float or "auto", default="auto"
        Share of the (non-label, non-calibration) budget for the pairwise-,
        patch- or product-kernel releases; the rest goes to the sum kernel.
        ``0`` disables them (then ``product_order``, ``product_size``,
        ``gamma`` and ``pair_shrinkage`` do nothing). ``"auto"``: 0.5.
    pair_shrinkage : bool, default=False
        With the pairwise kernel, shrink each class's released joint of
        every two categorical columns (one-hot blocks: categories, integer
        levels, missing indicators) toward the product of their histograms
        from the sum kernel's release, by the James–Stein factor of its
        noise (``shrink_pairwise``;
        post-processing, nothing more is spent): pairs whose dependence is
        below the noise are matched as independent instead of as noise. On
        six tables' validation splits (fixed private schema, two seeds) it
        lowered the 2-way TV on Bundesliga (0.321 → 0.310) and flchain
        (0.061 → 0.056) and left the other four within seed noise
        (``benchmarks/JOURNAL.md``), not enough for a default.
    max_levels : int, default=100
        Integer columns (``"integer": true``) whose public bounds hold at
        most this many integers are encoded as one-hot blocks of their
        values, like categorical columns, so that the sum kernel matches
        each value's frequency exactly (a Hermite kernel at length scale
        0.5 blurs point masses such as "40 hours a week" over their
        neighbours); ``0`` encodes every integer column as one number. A
        column's ``"levels"`` in the schema overrides it (see
        :class:`~skdpgen.schema.TableEncoder`). Not with ``image_shape``
        (pixels stay numbers).
    bins : int, default=0
        When positive, every numeric and datetime column not encoded as
        levels (continuous columns, integer columns with more than
        ``max_levels`` values, dates) is encoded as a one-hot block over
        ``bins`` equal-width bins of its bounds and sampled uniformly inside
        its bin, instead of one Hermite-encoded number: the sum kernel then
        matches each column's histogram on that grid exactly, and the
        product kernel the joint histograms of its columns, where the
        Hermite kernel at ``length_scale`` blurs them (see
        :class:`~skdpgen.schema.TableEncoder`). The grid depends on the
        bounds and ``bins`` only. ``0`` keeps the Hermite encoding. Not with
        ``image_shape``.
    {shared_parameters}

    Attributes
    ----------
    features_ : HermiteFeatures
        The sum kernel.
    product_columns_ : list of ndarray of int
        The table columns of each product-kernel release, in order, or the
        one entry of the pairwise kernel's columns (the numeric block's
        columns first, then the one-hot blocks of ``encoder_.block_columns_``;
        drawn from ``random_state``, not from the data); empty with
        ``"patch"`` or ``product_share=0``.
    pairwise_features_ : HermiteFeatures or None
        The pairwise kernel (its ``pairs_`` are the pairs of columns
        released, see Notes); None unless ``product_kernel="pairwise"``.
    patch_features_ : PatchFourierFeatures or None
        The patch kernel with ``product_kernel="patch"``, else None.
    pair_shrinkage_ : ndarray of shape (n_pairs, max(1, n_classes)) or None
        With ``pair_shrinkage``, the James–Stein factor of every pair of
        ``pairwise_features_.pairs_`` and class (1: as released, 0:
        independence; 1 for pairs with a numeric column); None otherwise.
    {shared_attributes}

    See Also
    --------
    MarginalSynthesizer : a table's one- and two-way marginals on public cells.
    DPMERFSynthesizer : the same pipeline with random Fourier features.
    KMESynthesizer : the pipeline with any bounded feature map.

    Notes
    -----
    **Releases and sensitivities.** Every released embedding is the
    (features × classes) matrix of ``(1/n) Σ_{i: y_i = c} h(z_i)`` for a
    kernel with ``‖h‖ ≤ 1`` (sum kernel: Hermite features of numeric columns
    and one-hot vectors of categorical ones, scaled by ``1/sqrt(#columns)``;
    product kernel: tensor products of such blocks; pairwise kernel: the
    tensor products of every pair of blocks, scaled by ``1/sqrt(#pairs)``,
    so ``‖h‖² = (1/P) Σ_{a<b} ‖φ_a‖² ‖φ_b‖² ≤ 1``; patch kernel: cosines
    and sines of ``L`` patches' projections on ``F`` filters, scaled by
    ``1/sqrt(F·L)``, so ``‖h‖² = (1/(F·L)) Σ (cos² + sin²) = 1``), so each has
    replace-one sensitivity ``2/n``. Class proportions have sensitivity ``sqrt(2)/n``,
    and so have the one-way histograms (``marginal_share``, by default 20 %
    of the budget) to which the samples are calibrated
    (:class:`~skdpgen.synthesizers.MarginalCalibration`; the paper's DP-HP
    is ``marginal_share=0``). The budget is split with
    :class:`skdpgen.privacy.GaussianAccountant` and the releases compose
    exactly; ``privacy_report_`` lists them. Which
    columns enter each product kernel (or, on a table too wide for all its
    pairs, the pairwise kernel), and the patch kernel's filters, are drawn
    from ``random_state``, not from the data.

    The pairwise kernel is not the paper's: it releases every two-way
    interaction once, where the paper's random product kernels release a
    few columns' joint per epoch and the generator follows the latest; on
    six real tables' validation splits it gave lower 2-way TV on five and
    equal on one (``benchmarks/JOURNAL.md``). It leaves out the pairs whose
    features would sit below the release's noise
    (``pairs_above_noise``): a generator that
    matches pure noise on Bundesliga's 52 × 52 team pairs invents joint
    structure the data does not have. ``product_kernel="random"`` gives the
    paper's mechanism.

    A parameter set away from its default where the configuration does not
    use it (``product_size`` with the pairwise kernel, ``bins`` with
    ``image_shape``, ...) is an error of ``fit`` that names it.

    The number of rows ``n`` and the schema are public. Every call of ``fit``
    on private data spends its budget again: a grid search of k fits spends
    the composition of k reports (:func:`skdpgen.privacy.compose_reports`).

    References
    ----------
    M. Vinaroz, M.-A. Charusaie, F. Harder, K. Adamczewski, M. J. Park.
    "Hermite Polynomial Features for Private Data Generation." ICML 2022.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen import DPHPSynthesizer
    >>> X = np.random.default_rng(0).uniform(0, 1, size=(500, 3))
    >>> synth = DPHPSynthesizer(bounds=(0, 1), epochs=2, steps_per_epoch=20,
    ...                         random_state=0).fit(X, epsilon=1.0)
    >>> synth.sample(4, random_state=0)[0].shape
    (4, 3)
    >>> type(synth.features_).__name__, round(synth.privacy_report_.epsilon, 3)
    ('HermiteFeatures', 1.0)
    """

    _parameter_constraints: dict = {
        **SHARED_CONSTRAINTS,
        # the mechanism's parameters, as it checks them (its image_shape is the
        # shared one), and "auto" where the preset resolves it
        **{name: rule for name, rule in HermiteMechanism._parameter_constraints.items()
           if name != "image_shape"},
        "product_share": [StrOptions({"auto"}), Interval(Real, 0, 1, closed="left")],
        "product_kernel": [StrOptions({"auto", "pairwise", "patch", "random"})],
        "max_levels": [Interval(Integral, 0, None, closed="left")],
        "bins": [Interval(Integral, 0, None, closed="left")],
    }
    display_name = "DP-HP"
    __init__ = estimator_init(
        order=20, length_scale=0.5, product_order=5, product_kernel="auto", product_size=3,
        gamma=1.0, product_share="auto", pair_shrinkage=False, max_levels=100, bins=0,
        **{**SHARED_DEFAULTS, "learning_rate": "auto", "network": "auto"},
    )

    def _design(self, shape, rng):
        kernel = self._product_kernel()
        share = (POLICY.kernel_product_share if self.product_share == "auto"
                 else float(self.product_share))
        generator = self._generator_spec("conv" if self.image_shape is not None else "mlp",
                                         {"mlp": POLICY.hermite_learning_rate})
        self._refuse_unused({**self._unused(kernel, share),
                             **self._unused_generator(generator.kind)})
        mechanism = self._part(HermiteMechanism, product_share=share, product_kernel=kernel)
        return Design(mechanism, generator,
                      encoding={"max_levels": self.max_levels, "bins": self.bins},
                      calibration_share=self._auto_share(self.marginal_share,
                                                         POLICY.marginal_share),
                      image_shape=self.image_shape)

    def _unused(self, kernel, share):
        """``{parameter: why}`` of the parameters this configuration does not use."""
        unused = {}
        if share == 0:
            for name in ("product_order", "product_size", "gamma", "pair_shrinkage"):
                unused[name] = "product_share=0 releases no joint kernel"
        elif kernel == "pairwise":
            unused["product_size"] = "only product_kernel='random' draws product kernels"
        elif kernel == "random":
            unused["pair_shrinkage"] = "only the pairwise kernel is shrunk"
        else:  # the patch kernel
            for name in ("product_order", "product_size", "pair_shrinkage"):
                unused[name] = "the patch kernel has no Hermite product"
        if self.image_shape is not None:
            for name in ("max_levels", "bins"):
                unused[name] = "image_shape keeps pixels as numbers"
        return unused

    def _product_kernel(self):
        """``product_kernel`` with ``"auto"`` resolved (from public settings only)."""
        if self.product_kernel != "auto":
            return self.product_kernel
        return "patch" if self.image_shape is not None else "pairwise"

    # the fitted attributes are the fitted mechanism's (read, not copied)
    product_columns_ = fitted_part("product_columns_")
    pairwise_features_ = fitted_part("pairwise_")
    patch_features_ = fitted_part("patch_")
    pair_shrinkage_ = fitted_part("pair_shrinkage_")


DPHPSynthesizer.__doc__ = synthesizer_doc(
    DPHPSynthesizer.__doc__, learning_rate='"auto"',
    random_choices="the product-kernel columns and the patch kernel's filters, ",
    network='"auto"', auto_network='"conv" with ``image_shape``, "mlp" otherwise',
    auto_learning_rate="3e-3 (1e-2 with the conv generator)")
