"""Empirical privacy audit of the private kernel mean embedding.

Neighbouring datasets that maximize ‖h(x) − h(x')‖, many releases through the
real ``fit`` code path, a distinguishing test (projection of the release on
μ(D) − μ(D')), and a Clopper–Pearson lower bound on ε that must stay within the
claimed ε. A negative control shows the audit catches a mechanism with too
little noise.
"""

import math

import numpy as np
import pytest

from skdpgen import HermiteFeatures, KernelMeanEmbedding, RandomFourierFeatures
from skdpgen.audit import epsilon_lower_bound

EPSILON, DELTA = 1.0, 1e-5
N_RUNS = 8000


def worst_case_pair(features, candidates):
    """The two inputs whose features are farthest apart."""
    H = features.transform(candidates)
    d2 = np.sum((H[:, None, :] - H[None, :, :]) ** 2, axis=-1)
    i, j = np.unravel_index(np.argmax(d2), d2.shape)
    return candidates[i], candidates[j], math.sqrt(d2[i, j])


def releases(features, X, y=None, classes=None, runs=N_RUNS, seed0=0):
    out = []
    for s in range(runs):
        kme = KernelMeanEmbedding(
            features=features, epsilon=EPSILON, delta=DELTA, classes=classes,
        ).fit(X, y)
        out.append(kme.embedding_.ravel())
    return np.array(out), kme


def audit(features, base, x, x_prime, y=None, y_pair=(None, None), classes=None, shrink=1.0):
    D = np.vstack([base, x])
    Dp = np.vstack([base, x_prime])
    yD = None if y is None else np.append(y, y_pair[0])
    yDp = None if y is None else np.append(y, y_pair[1])
    mu = KernelMeanEmbedding(features=features, classes=classes).fit(D, yD).embedding_.ravel()
    mu_p = KernelMeanEmbedding(features=features, classes=classes).fit(Dp, yDp).embedding_.ravel()
    rel_d, kme = releases(features, D, yD, classes, seed0=0)
    rel_dp, _ = releases(features, Dp, yDp, classes, seed0=10**6)
    # a "broken" mechanism with shrink × less noise, for the negative control
    rel_d = mu + (rel_d - mu) * shrink
    rel_dp = mu_p + (rel_dp - mu_p) * shrink
    v = (mu - mu_p) / np.linalg.norm(mu - mu_p)
    return epsilon_lower_bound(rel_d @ v, rel_dp @ v, DELTA), np.linalg.norm(mu - mu_p), kme


def test_audit_fourier_worst_case_meets_the_sensitivity_bound():
    # one frequency: x' = π/ω gives h(x') = −h(x), so ‖μ(D) − μ(D')‖ = 2/n exactly
    base = np.zeros((9, 1))
    rff = RandomFourierFeatures(n_components=2, random_state=0).fit(base)
    x_prime = np.array([[math.pi / rff.frequencies_[0, 0]]])
    eps_lb, gap, kme = audit(rff, base, base[:1], x_prime)
    assert gap == pytest.approx(kme.sensitivity_, rel=1e-9)  # the bound is attained
    assert eps_lb <= EPSILON
    assert eps_lb > 0.1  # the test has some power: a real distinguisher


def test_audit_hermite_worst_case_pair():
    hf = HermiteFeatures(order=6, length_scale=0.5).fit(np.zeros((1, 1)))
    x, x_prime, dist = worst_case_pair(hf, np.linspace(-4, 4, 161)[:, None])
    assert dist > 1.3
    base = np.zeros((9, 1))
    eps_lb, gap, kme = audit(hf, base, x[None], x_prime[None])
    assert gap <= kme.sensitivity_
    assert eps_lb <= EPSILON


def test_audit_class_conditional_embedding():
    # replace (x, class 0) by (x', class 1): the change spreads over two columns
    base = np.zeros((9, 1))
    rff = RandomFourierFeatures(n_components=2, random_state=0).fit(base)
    x_prime = np.array([[math.pi / rff.frequencies_[0, 0]]])
    y = np.zeros(9, dtype=int)
    eps_lb, gap, kme = audit(rff, base, base[:1], x_prime, y=y, y_pair=(0, 1), classes=[0, 1])
    assert gap <= kme.sensitivity_
    assert eps_lb <= EPSILON


def test_audit_catches_too_little_noise():
    """Negative control: a quarter of the calibrated noise must be flagged."""
    base = np.zeros((9, 1))
    rff = RandomFourierFeatures(n_components=2, random_state=0).fit(base)
    x_prime = np.array([[math.pi / rff.frequencies_[0, 0]]])
    eps_lb, _, _ = audit(rff, base, base[:1], x_prime, shrink=0.25)
    assert eps_lb > EPSILON


def test_audit_rejects_unusable_input():
    from skdpgen.audit import epsilon_lower_bound

    with pytest.raises(ValueError, match="at least 2"):
        epsilon_lower_bound([1.0], [0.0, 1.0], 1e-5)
    with pytest.raises(ValueError, match="n_thresholds"):
        epsilon_lower_bound([1.0, 2.0], [0.0, 1.0], 1e-5, n_thresholds=0)
