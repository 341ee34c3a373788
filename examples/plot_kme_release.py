"""
==================================================================
Private database release via kernel mean embeddings (Balog et al.)
==================================================================

A curator holds ``N`` private records and releases, with (ε, δ)
differential privacy, a weighted set of synthetic points ``(z_m, w_m)``
whose kernel mean embedding ``Σ_m w_m k(z_m, ·)`` approximates the data's
``μ_X = (1/N) Σ_i k(x_i, ·)``. Anyone can then estimate
``E[h(X)] ≈ Σ_m w_m h(z_m)``.

This example reproduces the experiment of Appendix B of Balog, Tolstikhin &
Schölkopf (ICML 2018) at a smaller scale: a mixture of 10 Gaussians in
D = 2 and D = 5 dimensions (weights ∝ 1, 1/2, …, 1/10, means drawn from
N(100·𝟙, 200·I), covariance 30·I), the Gaussian kernel
``exp(−γ‖x − x'‖²)`` with γ = 1e-4/D, δ = 1e-6, and ε ∈ {0.01, 0.1, 1}. It
plots the RKHS distance Δ between the released embedding and the empirical
embedding of the whole data set against the number of released points M for

* Algorithm 1 (``method="subspace"``) with candidates drawn from a wide,
  data-independent Gaussian;
* Algorithm 1 with a random subset of the data as candidates (the
  "publishable subset" scenario: the subset is assumed public);
* that subset with uniform weights 1/M (needs no privacy at all);
* Algorithm 2 (``method="features"``): random Fourier features, then Adam
  and non-negative least squares from the same random initial points.

Run it with ``python examples/plot_kme_release.py [--out-dir DIR] [--quick]``;
it writes ``kme_release.png`` to ``--out-dir`` (default: the current
directory) and prints the numbers. ``--quick`` (the gallery's mode) uses
N = 3,000, M ∈ {10, 30, 100}, 500 random features and 100 Adam steps; the
default uses N = 10,000 and M up to 300. ``benchmarks/bench_release.py``
runs the full-size version (N = 10⁵, M up to 1000).
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import argparse
import math
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from skdpgen import RandomFourierFeatures  # noqa: E402
from skdpgen.kernels import gaussian_gram, gaussian_kernel_sum, scale_rows  # noqa: E402
from skdpgen.release import DPKMEReleaser  # noqa: E402

DELTA = 1e-6
EPSILONS = (0.01, 0.1, 1.0)

# %%
# The data and the exact RKHS distance
# ------------------------------------
# ``Δ² = mean_{i,i'} k(x_i, x_i') − 2 Σ_m w_m mean_i k(z_m, x_i) + wᵀ K_zz w``.
# ``DPKMEReleaser.score(X)`` returns −Δ, but recomputes the O(N²) first term
# on every call; here it is computed once per data set, with the same exact
# Gaussian-kernel helpers of :mod:`skdpgen.kernels` (blocked sums, bounded
# memory).


def mixture(n, D, rng):
    weights = 1.0 / np.arange(1, 11)
    means = rng.normal(100.0, math.sqrt(200.0), size=(10, D))
    component = rng.choice(10, size=n, p=weights / weights.sum())
    return means[component] + rng.normal(0.0, math.sqrt(30.0), size=(n, D))


class RKHSDistance:
    """Δ between a weighted point set's embedding and the empirical one of ``X``."""

    def __init__(self, X, length_scale):
        self.center, self.ls = X.mean(0), length_scale
        self.Xs = scale_rows(X, length_scale, self.center)
        self.xx = gaussian_kernel_sum(self.Xs, self.Xs) / len(X) ** 2

    def __call__(self, Z, w):
        Zs = scale_rows(Z, self.ls, self.center)
        xz = gaussian_kernel_sum(self.Xs, Zs, axis=0) / len(self.Xs)
        return math.sqrt(max(self.xx - 2 * w @ xz + w @ gaussian_gram(Zs, Zs) @ w, 0.0))


# %%
# Releases
# --------
# The candidates of Algorithm 1 are fixed before the data is touched: either
# draws from N(100·𝟙, (2·√230)²·I), which only uses the public
# hyperparameters of the data-generating process (twice its marginal
# standard deviation), or a publishable subset. Algorithm 2 starts from the
# same random points.


def run(n, m_grid, n_features, n_iter, seed=0):
    results = {}
    for D in (2, 5):
        rng = np.random.default_rng(seed + D)
        X = mixture(n, D, rng)
        ls = math.sqrt(D / (2 * 1e-4))
        dist = RKHSDistance(X, ls)
        order = rng.permutation(n)
        rand_all = np.random.default_rng(seed + 100 + D).normal(
            100, 2 * math.sqrt(230), size=(max(m_grid), D)
        )
        rff = RandomFourierFeatures(n_components=n_features, length_scale=ls, random_state=D)
        for M in m_grid:
            subset, rand = X[order[:M]], rand_all[:M]
            results[D, "uniform subset", None, M] = dist(subset, np.full(M, 1 / M))
            for eps in EPSILONS:
                # candidates and features are fixed above; the privacy noise is
                # fresh at every fit, whatever random_state is
                common = dict(epsilon=eps, delta=DELTA, random_state=0, device="cpu")
                rel = DPKMEReleaser(candidates=rand, length_scale=ls, **common).fit(X)
                results[D, "Alg. 1, random", eps, M] = dist(rel.points_, rel.weights_)
                rel = DPKMEReleaser(candidates=subset, length_scale=ls, **common).fit(X)
                results[D, "Alg. 1, subset", eps, M] = dist(rel.points_, rel.weights_)
                rel = DPKMEReleaser(method="features", candidates=rand, features=rff,
                                    n_iter=n_iter, **common).fit(X)
                results[D, "Alg. 2", eps, M] = dist(rel.points_, rel.weights_)
            print(f"D = {D}, M = {M:4d}: " + ", ".join(
                f"{name} (eps=1) {results[D, name, 1.0, M]:.2e}"
                for name in ("Alg. 1, random", "Alg. 1, subset", "Alg. 2")
            ) + f", uniform subset {results[D, 'uniform subset', None, M]:.2e}", flush=True)
    return results


def plot(results, m_grid, path):
    styles = {
        "Alg. 1, random": dict(color="C0", marker="o"),
        "Alg. 1, subset": dict(color="C1", marker="s"),
        "uniform subset": dict(color="C1", marker="s", linestyle=":", alpha=0.7),
        "Alg. 2": dict(color="C2", marker="^"),
    }
    fig, axes = plt.subplots(2, 3, figsize=(12, 7), sharex=True, sharey="row")
    for r, D in enumerate((2, 5)):
        for c, eps in enumerate(EPSILONS):
            ax = axes[r, c]
            for name, style in styles.items():
                key_eps = None if name == "uniform subset" else eps
                ax.plot(m_grid, [results[D, name, key_eps, M] for M in m_grid],
                        label=name, **style)
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_title(f"D = {D}, ε = {eps:g}")
            if r == 1:
                ax.set_xlabel("number of released points M")
            if c == 0:
                ax.set_ylabel("Δ (RKHS distance)")
    axes[0, 0].legend(fontsize=8)
    fig.suptitle(f"DP release via kernel mean embeddings (δ = {DELTA:g})")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    print(f"figure written to {path.name} in --out-dir")


# %%
# Using a release
# ---------------
# The weighted points estimate expectations (``expected_value`` is the
# consistent estimator; Algorithm 1's weights can be negative) and can be
# resampled (``sample`` draws points with probability ∝ max(w, 0), a
# heuristic).


def use_a_release(seed=0):
    rng = np.random.default_rng(seed)
    X = mixture(5000, 2, rng)
    rel = DPKMEReleaser(bounds=(0, 200), n_points=200, length_scale=20.0, epsilon=1.0,
                        delta=DELTA, random_state=0).fit(X)
    print(f"true mean {X.mean(0).round(2)}, released estimate "
          f"{rel.expected_value(lambda Z: Z).round(2)}; "
          f"{(rel.weights_ < 0).sum()} of {rel.weights_.size} weights are negative")
    print(rel.privacy_report_)
    return rel.sample(5, random_state=0)


def main(argv=None):
    parser = argparse.ArgumentParser(description="Balog et al. (2018), Appendix B, small scale.")
    parser.add_argument("--out-dir", default=".")
    parser.add_argument("--quick", action="store_true", help="smaller N and M grid (about a minute)")
    args = parser.parse_args(argv)
    if args.quick:
        n, m_grid, n_features, n_iter = 3000, [10, 30, 100], 500, 100
    else:
        n, m_grid, n_features, n_iter = 10_000, [10, 30, 100, 300], 1000, 200
    start = time.perf_counter()
    use_a_release()
    results = run(n, m_grid, n_features, n_iter)
    plot(results, m_grid, Path(args.out_dir) / "kme_release.png")
    print(f"done in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
