"""Evaluation of synthetic data: downstream utility and fidelity to real data.

- :func:`downstream_utility`: classifiers trained on synthetic data and tested
  on real data (ROC-AUC and PR-AUC, or weighted F1 and accuracy).
- :func:`evaluate_tables`: both, on any table (missing values, dates,
  booleans, text), synthetic-to-real next to real-to-real; what
  ``skdpgen evaluate`` prints.
- :func:`marginal_tv_distance`: mean total-variation distance of the α-way
  marginals, discretized with public bounds.
- :func:`mmd2`, :func:`mmd2_exact`: squared maximum mean discrepancy under the
  Gaussian kernel, exact or through a bounded feature map.

Except for :class:`DPTwoSampleTest`, which is (ε, δ)-differentially private,
these functions read the real data without any privacy protection: their
results are for the data holder, not for release.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

from ._fidelity import marginal_tv_distance, mmd2, mmd2_exact
from ._utility import downstream_utility, paper_models
from ._table import TableEvaluation, evaluate_tables
from ._two_sample import DPTwoSampleTest, DPTwoSampleTestResult
from ._two_sample_statistics import (
    covariance_spectral_sensitivity,
    mean_sensitivity,
    second_moment_sensitivity,
    statistic_sensitivity,
)
from ._scorers import neg_mmd2_scorer, synthetic_to_real_scorer
from ._private_scorers import private_accuracy_scorer, private_neg_mmd2_scorer
from ._plots import plot_gaussian_grid, plot_kernel_approximation_error, plot_marginals

__all__ = [
    "DPTwoSampleTest",
    "DPTwoSampleTestResult",
    "TableEvaluation",
    "covariance_spectral_sensitivity",
    "mean_sensitivity",
    "neg_mmd2_scorer",
    "plot_gaussian_grid",
    "plot_kernel_approximation_error",
    "plot_marginals",
    "private_accuracy_scorer",
    "private_neg_mmd2_scorer",
    "second_moment_sensitivity",
    "statistic_sensitivity",
    "synthetic_to_real_scorer",
    "downstream_utility",
    "evaluate_tables",
    "marginal_tv_distance",
    "mmd2",
    "mmd2_exact",
    "paper_models",
]
