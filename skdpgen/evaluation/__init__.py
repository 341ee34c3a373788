"""Evaluation of synthetic data: downstream utility and fidelity to real data.

- :func:`downstream_utility`: classifiers trained on synthetic data and tested
  on real data (ROC-AUC and PR-AUC, or weighted F1 and accuracy).
- :func:`marginal_tv_distance`: mean total-variation distance of the α-way
  marginals, discretized with public bounds.
- :func:`mmd2`, :func:`mmd2_exact`: squared maximum mean discrepancy under the
  Gaussian kernel, exact or through a bounded feature map.

These functions read the real data without any privacy protection: their
results are for the data holder, not for release.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

from ._fidelity import marginal_tv_distance, mmd2, mmd2_exact
from ._utility import downstream_utility, paper_models

__all__ = [
    "downstream_utility",
    "marginal_tv_distance",
    "mmd2",
    "mmd2_exact",
    "paper_models",
]
