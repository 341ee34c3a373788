"""Capture every release of repeated fits (shared by the audit tests)."""

from dataclasses import dataclass

import numpy as np
import pytest

from skdpgen import privacy
from skdpgen.privacy import GaussianAccountant


@dataclass(frozen=True)
class Release:
    """One release (``GaussianAccountant._release``: every ``add_noise`` and
    ``select``), as it happened."""

    name: str
    value: np.ndarray  # the exact statistic, flattened
    noisy: np.ndarray  # what was released, flattened
    sensitivity: float  # as passed to add_noise
    noise_multiplier: float


def capture_fits(fit, data, n_runs, *, noise_scale=1.0, sensitivity_scale=1.0):
    """Run ``fit(*data)`` ``n_runs`` times, capturing every release.

    ``noise_scale`` scales every noise draw (``_gaussian_noise``) and
    ``sensitivity_scale`` every sensitivity of a release: the
    negative controls. Returns the releases of each fit and the reports.
    """
    release = GaussianAccountant._release
    draw = privacy._gaussian_noise
    fits, reports = [], []

    def capturing_release(self, name, value, sensitivity):
        sensitivity = sensitivity * sensitivity_scale
        noisy = release(self, name, value, sensitivity)
        fits[-1].append(Release(
            name, np.array(value, dtype=np.float64).ravel(),
            np.array(noisy, dtype=np.float64).ravel(), float(sensitivity),
            self.noise_multipliers[name],
        ))
        return noisy

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(GaussianAccountant, "_release", capturing_release)
        if noise_scale != 1.0:
            mp.setattr(privacy, "_gaussian_noise",
                       lambda rng, std, shape: noise_scale * draw(rng, std, shape))
        for _ in range(n_runs):
            fits.append([])
            reports.append(fit(*data))
    return fits, reports
