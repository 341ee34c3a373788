"""DP-MERF: private synthetic data from random Fourier features."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

from numbers import Integral, Real

import numpy as np
import torch
from sklearn.utils._param_validation import Interval

from ..features import RandomFourierFeatures
from ._base import BaseKMESynthesizer
from ._kernels import TorchFeatures, fourier_features

__all__ = ["DPMERFSynthesizer"]


class DPMERFSynthesizer(BaseKMESynthesizer):
    """Differentially private synthetic data with random Fourier features (DP-MERF).

    Releases the (class-conditional) mean embedding of the encoded table under
    random Fourier features of a Gaussian kernel on all columns jointly, once,
    and trains a generator to match it.

    Read more in the :ref:`User Guide <synthesizers>`.

    Parameters
    ----------
    epsilon : float, default=1.0
    delta : float, default=1e-5
    schema : dict, default=None
        Public bounds and categories per column (see :mod:`skdpgen.schema`).
    bounds : tuple of (float, float), default=None
        Public bounds for every numeric column the schema leaves out.
    classes : array-like, default=None
        Public list of labels.
    n_features : int, default=2000
        Number of random Fourier features (even).
    length_scale : float, default=1.0
        Length scale of the Gaussian kernel on the encoding (numeric columns
        on [-1, 1], one-hot blocks); it does not look at the data.
    label_share : float, default=0.05
        Share of the budget spent on the class proportions (with labels).
    epochs : int, default=10
    steps_per_epoch : int, default=100
    batch_size : int, default=500
    learning_rate : float, default=1e-2
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
        Draws the public random choices: the frequencies, the network's
        initialization and its generated batches. Never the privacy noise,
        which comes from fresh operating-system entropy at every fit (see
        :ref:`threat_model`).
    device : {"auto", "cpu", "cuda"}, default="auto"
    verbose : int, default=0

    Attributes
    ----------
    epsilon_, delta_ : float
    privacy_report_ : PrivacyReport
    encoder_ : TableEncoder
    classes_ : ndarray or None
    class_weights_ : ndarray or None
    features_ : RandomFourierFeatures
        The fitted feature map (frequencies drawn from ``random_state``).
    generator_ : torch.nn.Module
    loss_history_ : ndarray
    n_features_in_ : int
    feature_names_in_ : ndarray of str

    See Also
    --------
    DPHPSynthesizer : Hermite features, sum and product kernels.

    Notes
    -----
    One release: the (features × classes) matrix of
    ``(1/n) Σ_{i: y_i = c} φ(z_i)`` with ``‖φ‖ = 1``, replace-one sensitivity
    ``2/n`` (see :class:`~skdpgen.KernelMeanEmbedding`), plus the class
    proportions (sensitivity ``sqrt(2)/n``) when fitted with labels.

    References
    ----------
    F. Harder, K. Adamczewski, M. Park. "DP-MERF: Differentially Private Mean
    Embeddings with Random Features for Practical Privacy-Preserving Data
    Generation." AISTATS 2021.

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen import DPMERFSynthesizer
    >>> X = np.random.default_rng(0).uniform(0, 1, size=(500, 3))
    >>> synth = DPMERFSynthesizer(bounds=(0, 1), epochs=2, steps_per_epoch=20,
    ...                           random_state=0).fit(X, epsilon=1.0)
    >>> synth.sample(4, random_state=0).shape
    (4, 3)
    """

    _parameter_constraints: dict = {
        **BaseKMESynthesizer._parameter_constraints,
        "n_features": [Interval(Integral, 2, None, closed="left")],
        "length_scale": [Interval(Real, 0, None, closed="neither"), "array-like"],
    }

    def __init__(
        self,
        *,
        epsilon=1.0,
        delta=1e-5,
        schema=None,
        bounds=None,
        classes=None,
        n_features=2000,
        length_scale=1.0,
        label_share=0.05,
        epochs=10,
        steps_per_epoch=100,
        batch_size=500,
        learning_rate=1e-2,
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
        self.n_features = n_features
        self.length_scale = length_scale
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
        return {"mean embedding": 1.0}

    def _train(self, net, Z, codes, accountant, rng, tgen, device):
        rff = RandomFourierFeatures(
            n_components=self.n_features, length_scale=self.length_scale,
            random_state=int(rng.integers(2**31)),
        ).fit(np.zeros((1, Z.shape[1])))  # the map uses only the width
        self.features_ = rff
        where = self._release_device(Z, device)
        freqs64 = torch.as_tensor(rff.frequencies_, dtype=torch.float64, device=where)
        release = TorchFeatures(lambda T: fourier_features(T, freqs64), rff.n_components, where)
        target = self._private_targets("mean embedding", release, Z, codes, accountant).to(device)
        freqs = torch.as_tensor(rff.frequencies_, dtype=torch.float32, device=device)
        k = max(self.n_classes_, 1)

        def loss_fn(Zg, labels):
            g = self._class_means(fourier_features(Zg, freqs), labels, k)
            return torch.sum((target - g) ** 2)

        return self._optimize(net, loss_fn, self.epochs * self.steps_per_epoch, tgen, device)
