"""Generator networks: noise (and a class label) in, an encoded table row out."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import torch
from torch import nn

__all__ = ["ConvImageGenerator", "TabularGenerator"]


class TabularGenerator(nn.Module):
    """A small MLP whose heads match an encoded table's layout.

    Numeric columns come out of ``tanh`` (on [-1, 1], the public bounds after
    encoding) and each categorical column out of a softmax (its category
    probabilities, sampled at ``sample`` time).

    Parameters
    ----------
    noise_dim : int
    n_classes : int
        0 for an unconditional generator.
    widths : sequence of int
        Hidden layer widths.
    n_numeric : int
    category_sizes : sequence of int
    """

    def __init__(self, noise_dim, n_classes, widths, n_numeric, category_sizes):
        super().__init__()
        self.noise_dim = noise_dim
        self.n_classes = n_classes
        self.n_numeric = n_numeric
        self.category_sizes = list(category_sizes)
        layers, width = [], noise_dim + n_classes
        for w in widths:
            layers += [nn.Linear(width, w), nn.BatchNorm1d(w), nn.ReLU()]
            width = w
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(width, n_numeric + sum(self.category_sizes))

    def reset_parameters(self, generator):
        """Initialize every weight from a local ``torch.Generator``."""
        for module in self.modules():
            if isinstance(module, (nn.Linear, nn.Conv2d)):
                fan_in = module.weight[0].numel()
                bound = 1.0 / fan_in**0.5
                nn.init.uniform_(module.weight, -bound, bound, generator=generator)
                nn.init.uniform_(module.bias, -bound, bound, generator=generator)

    def forward(self, z, labels=None):
        if self.n_classes:
            z = torch.cat([z, nn.functional.one_hot(labels, self.n_classes).to(z)], dim=1)
        out = self.head(self.body(z))
        # one split, not a slice per head: a slice's backward fills a zero
        # tensor of the whole output's shape, a split's is one concatenation
        numeric, *blocks = torch.split(out, [self.n_numeric] + self.category_sizes, dim=1)
        return torch.cat([torch.tanh(numeric)] + [torch.softmax(b, dim=1) for b in blocks], dim=1)


class ConvImageGenerator(nn.Module):
    """A small convolutional generator for single-channel images.

    Noise (and a one-hot label) go through a linear layer to a
    ``(channels, ⌈h/4⌉, ⌈w/4⌉)`` map, then two (upsample × 2, 3 × 3 conv)
    stages; the output is resized to ``(h, w)`` and squashed by ``tanh`` onto
    [-1, 1], the encoding of the public pixel bounds. Rows come out flattened
    in C order, like scikit-learn's ``digits``.

    Parameters
    ----------
    noise_dim : int
    n_classes : int
    image_shape : tuple of (int, int)
    channels : int, default=64
    """

    def __init__(self, noise_dim, n_classes, image_shape, channels=64):
        super().__init__()
        self.noise_dim = noise_dim
        self.n_classes = n_classes
        self.image_shape = tuple(image_shape)
        h, w = self.image_shape
        self.h0, self.w0 = -(-h // 4), -(-w // 4)
        self.channels = channels
        self.fc = nn.Sequential(
            nn.Linear(noise_dim + n_classes, channels * self.h0 * self.w0),
            nn.BatchNorm1d(channels * self.h0 * self.w0),
            nn.ReLU(),
        )
        self.conv = nn.Sequential(
            nn.Upsample(scale_factor=2),
            nn.Conv2d(channels, channels // 2, 3, padding=1),
            nn.BatchNorm2d(channels // 2),
            nn.ReLU(),
            nn.Upsample(scale_factor=2),
            nn.Conv2d(channels // 2, 1, 3, padding=1),
        )

    reset_parameters = TabularGenerator.reset_parameters

    def forward(self, z, labels=None):
        if self.n_classes:
            z = torch.cat([z, nn.functional.one_hot(labels, self.n_classes).to(z)], dim=1)
        x = self.fc(z).view(-1, self.channels, self.h0, self.w0)
        x = self.conv(x)
        if x.shape[-2:] != self.image_shape:
            x = nn.functional.interpolate(x, size=self.image_shape, mode="bilinear")
        return torch.tanh(x.flatten(1))
