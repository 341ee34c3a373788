"""DP-HP: private synthetic data from Hermite polynomial features."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

from numbers import Integral, Real

import numpy as np
import torch
from sklearn.utils._param_validation import Interval

from ._base import BaseKMESynthesizer
from ._kernels import TabularHermiteKernel, TorchFeatures

__all__ = ["DPHPSynthesizer"]


class DPHPSynthesizer(BaseKMESynthesizer):
    """Differentially private synthetic data with Hermite polynomial features (DP-HP).

    Matches a generator's kernel mean embeddings to private ones under a
    combined kernel: the sum kernel over all columns (released once) plus the
    product kernel over a few randomly chosen columns, redrawn each epoch,
    each draw a fresh private release. The loss is
    ``‖μ̃ˢ − μˢ_θ‖² + γ ‖μ̃ᵖ − μᵖ_θ‖²``, summed over classes.

    Read more in the :ref:`User Guide <synthesizers>`.

    Parameters
    ----------
    epsilon : float, default=1.0
        Total privacy budget ε of a fit.
    delta : float, default=1e-5
        Total δ of a fit.
    schema : dict, default=None
        Public bounds and categories per column (see :mod:`skdpgen.schema`).
        Columns it leaves out are read from the data with a
        :class:`~skdpgen.privacy.PrivacyLeakWarning`.
    bounds : tuple of (float, float), default=None
        Public bounds for every numeric column the schema leaves out.
    classes : array-like, default=None
        Public list of labels (otherwise the declared categories of a
        Categorical ``y``, otherwise read from ``y`` with a warning).
    order : int, default=20
        Hermite order of the sum kernel.
    length_scale : float or array-like, default=0.5
        Length scale of every numeric column's Gaussian kernel, in units of
        the public range mapped onto [-1, 1] (so 0.5 is a quarter of the
        range). It does not look at the data.
    product_order : int, default=5
        Hermite order of numeric columns in the product kernel.
    product_size : int, default=3
        Number of columns of each product-kernel draw.
    gamma : float, default=1.0
        Weight γ of the product-kernel loss.
    product_share : float, default=0.5
        Share of the (non-label) budget for the product-kernel releases; the
        rest goes to the sum kernel. ``0`` disables the product kernel.
    label_share : float, default=0.05
        Share of the budget spent on the class proportions (with labels).
    epochs : int, default=10
        Number of product-kernel draws (one private release each).
    steps_per_epoch : int, default=100
        Generator updates per epoch.
    batch_size : int, default=500
    learning_rate : float, default=3e-3
    generator : {"mlp", "conv"}, default="mlp"
        The generator network: an MLP with one head per column, or a small
        convolutional network for single-channel images (all columns numeric
        pixels; needs ``image_shape``).
    generator_widths : sequence of int, default=(128, 128)
        Hidden layer widths of the MLP generator.
    image_shape : tuple of (int, int), default=None
        Height and width of the images for ``generator="conv"`` (rows are
        flattened images in C order).
    noise_dim : int, default=16
    random_state : int, RandomState instance or None, default=None
        Draws the public random choices: the product-kernel columns, the
        network's initialization and its generated batches. Never the
        privacy noise, which comes from fresh operating-system entropy at
        every fit (see :ref:`threat_model`).
    device : {"auto", "cpu", "cuda"}, default="auto"
        Where the generator trains; the fitted model always samples on CPU.
    verbose : int, default=0
        Show a progress bar when > 0.

    Attributes
    ----------
    epsilon_, delta_ : float
        The budget this fit used.
    privacy_report_ : PrivacyReport
        Every release (sum kernel, each product kernel, label proportions).
    encoder_ : TableEncoder
        The public encoding.
    classes_ : ndarray or None
    class_weights_ : ndarray or None
        Private class proportions.
    generator_ : torch.nn.Module
        The trained generator, on CPU.
    product_columns_ : list of ndarray of int
        The encoded-table columns of each product-kernel release, in order
        (drawn from ``random_state``, not from the data).
    loss_history_ : ndarray of shape (epochs * steps_per_epoch,)
    n_features_in_ : int
    feature_names_in_ : ndarray of str

    See Also
    --------
    DPMERFSynthesizer : the same pipeline with random Fourier features.

    Notes
    -----
    **Releases and sensitivities.** Every released embedding is the
    (features × classes) matrix of ``(1/n) Σ_{i: y_i = c} h(z_i)`` for a
    kernel with ``‖h‖ ≤ 1`` (sum kernel: Hermite features of numeric columns
    and one-hot vectors of categorical ones, scaled by ``1/sqrt(#columns)``;
    product kernel: tensor products of such blocks), so each has replace-one
    sensitivity ``2/n``; each product column block uses only that class's
    rows. Class proportions have sensitivity ``sqrt(2)/n``. The budget is
    split with :class:`skdpgen.privacy.GaussianAccountant` and the releases
    compose exactly; ``privacy_report_`` lists them. Which columns enter each
    product kernel is drawn from ``random_state``, not from the data.

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
    >>> synth.sample(4, random_state=0).shape
    (4, 3)
    >>> round(synth.privacy_report_.epsilon, 3)
    1.0
    """

    _parameter_constraints: dict = {
        **BaseKMESynthesizer._parameter_constraints,
        "order": [Interval(Integral, 0, None, closed="left")],
        "length_scale": [Interval(Real, 0, None, closed="neither"), "array-like"],
        "product_order": [Interval(Integral, 0, None, closed="left")],
        "product_size": [Interval(Integral, 1, None, closed="left")],
        "gamma": [Interval(Real, 0, None, closed="left")],
        "product_share": [Interval(Real, 0, 1, closed="left")],
    }

    def __init__(
        self,
        *,
        epsilon=1.0,
        delta=1e-5,
        schema=None,
        bounds=None,
        classes=None,
        order=20,
        length_scale=0.5,
        product_order=5,
        product_size=3,
        gamma=1.0,
        product_share=0.5,
        label_share=0.05,
        epochs=10,
        steps_per_epoch=100,
        batch_size=500,
        learning_rate=3e-3,
        generator="mlp",
        generator_widths=(128, 128),
        image_shape=None,
        noise_dim=16,
        random_state=None,
        device="auto",
        verbose=0,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.schema = schema
        self.bounds = bounds
        self.classes = classes
        self.order = order
        self.length_scale = length_scale
        self.product_order = product_order
        self.product_size = product_size
        self.gamma = gamma
        self.product_share = product_share
        self.label_share = label_share
        self.epochs = epochs
        self.steps_per_epoch = steps_per_epoch
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.generator = generator
        self.generator_widths = generator_widths
        self.image_shape = image_shape
        self.noise_dim = noise_dim
        self.random_state = random_state
        self.device = device
        self.verbose = verbose

    def _budget_shares(self):
        if self.product_share == 0:
            return {"sum kernel": 1.0}
        return {
            "sum kernel": 1.0 - self.product_share,
            "product kernel": (self.product_share, self.epochs),
        }

    def _train(self, net, Z, codes, accountant, rng, tgen, device):
        enc = self.encoder_
        kernel = TabularHermiteKernel(
            enc.n_numeric_, enc.category_sizes_, order=self.order,
            product_order=self.product_order, length_scale=self.length_scale,
        )
        k = max(self.n_classes_, 1)
        where = self._release_device(Z, device)
        target_sum = self._private_targets(
            "sum kernel", TorchFeatures(kernel.sum_features, kernel.n_sum_features, where),
            Z, codes, accountant,
        ).to(device)
        self.product_columns_ = []
        state = {}

        def new_product_release(step):
            if self.product_share == 0 or step % self.steps_per_epoch:
                return
            cols = np.sort(rng.choice(kernel.n_columns, min(self.product_size, kernel.n_columns), replace=False))

            def features(T, cols=cols):
                return kernel.product_features(T, cols)

            state["cols"] = cols
            self.product_columns_.append(cols)
            state["target"] = self._private_targets(
                "product kernel",
                TorchFeatures(features, kernel.n_product_features(cols), where),
                Z, codes, accountant,
            ).to(device)

        def loss_fn(Zg, labels):
            g_sum = self._class_means(kernel.sum_features(Zg), labels, k)
            loss = torch.sum((target_sum - g_sum) ** 2)
            if "target" in state:
                g_prod = self._class_means(kernel.product_features(Zg, state["cols"]), labels, k)
                loss = loss + self.gamma * torch.sum((state["target"] - g_prod) ** 2)
            return loss

        return self._optimize(
            net, loss_fn, self.epochs * self.steps_per_epoch, tgen, device,
            on_step=new_product_release,
        )
