"""Capture every release of repeated fits (shared by the audit tests)."""

from dataclasses import dataclass, replace

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
    noise: object = None  # the draw of _gaussian_noise added to value, flattened (None: no noise)


def capture_fits(fit, data, n_runs, *, noise_scale=1.0, sensitivity_scale=1.0):
    """Run ``fit(*data)`` ``n_runs`` times, capturing every release.

    ``noise_scale`` scales every noise draw (``_gaussian_noise``) and
    ``sensitivity_scale`` every sensitivity of a release: the
    negative controls. Returns the releases of each fit and the reports.
    """
    release = GaussianAccountant._release
    draw = privacy._gaussian_noise
    fits, reports, drawn = [], [], []

    def capturing_release(self, name, value, sensitivity):
        sensitivity = sensitivity * sensitivity_scale
        before = len(drawn)
        noisy = release(self, name, value, sensitivity)
        assert len(drawn) - before <= 1, "one noise draw per release"
        noise = drawn.pop() if len(drawn) > before else None
        fits[-1].append(Release(
            name, np.array(value, dtype=np.float64).ravel(),
            np.array(noisy, dtype=np.float64).ravel(), float(sensitivity),
            self.noise_multipliers[name],
            None if noise is None else np.array(noise, dtype=np.float64).ravel(),
        ))
        return noisy

    def recording_draw(rng, std, shape):
        noise = draw(rng, std, shape) if noise_scale == 1.0 else noise_scale * draw(rng, std, shape)
        drawn.append(noise)
        return noise

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(GaussianAccountant, "_release", capturing_release)
        mp.setattr(privacy, "_gaussian_noise", recording_draw)
        for _ in range(n_runs):
            fits.append([])
            reports.append(fit(*data))
    return fits, reports


def rescaled_noise(fits, noise_scale):
    """The captured fits with every noise draw scaled by ``noise_scale``.

    Exactly what :func:`capture_fits` with ``noise_scale`` releases for the
    same draws: ``GaussianAccountant._release`` returns ``value + noise`` and
    the control's ``_gaussian_noise`` returns ``noise_scale * draw``, so the
    release is ``value + noise_scale * draw``, computed here in the same
    float64 operations (``test_rescaled_noise_is_the_control_release`` checks
    it bit for bit against real controlled fits with the same seeded draws).
    Valid for fits whose exact statistics do not depend on earlier noisy
    releases (the audits check that they are the same in every run).
    """
    return [[r if r.noise is None else
             replace(r, noisy=r.value + noise_scale * r.noise, noise=noise_scale * r.noise)
             for r in fit] for fit in fits]
