"""Generator networks: noise (and a class label) in, an encoded table row out."""

import torch
from torch import nn


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
            if isinstance(module, nn.Linear):
                bound = 1.0 / module.in_features**0.5
                nn.init.uniform_(module.weight, -bound, bound, generator=generator)
                nn.init.uniform_(module.bias, -bound, bound, generator=generator)

    def forward(self, z, labels=None):
        if self.n_classes:
            z = torch.cat([z, nn.functional.one_hot(labels, self.n_classes).to(z)], dim=1)
        out = self.head(self.body(z))
        p = self.n_numeric
        parts = [torch.tanh(out[:, :p])]
        start = p
        for k in self.category_sizes:
            parts.append(torch.softmax(out[:, start : start + k], dim=1))
            start += k
        return torch.cat(parts, dim=1)


def build_generator(noise_dim, n_classes, widths, n_numeric, category_sizes, generator):
    """Construct and seed a :class:`TabularGenerator` without touching global RNG state."""
    with torch.random.fork_rng(devices=[]):
        net = TabularGenerator(noise_dim, n_classes, widths, n_numeric, category_sizes)
    net.reset_parameters(generator)
    return net
