"""
==============================================================================
Hermite vs random Fourier features: kernel approximation error (DP-HP, Fig. 1)
==============================================================================

100 points from N(0, 1) against 100 from N(1, 1), Gaussian kernel with the
median-heuristic length scale (a public toy example: no privacy involved).
Error = ``mean |k(x_i, x'_j) − φ(x_i)ᵀφ(x'_j)|`` over all pairs, for Hermite
features of increasing order and random Fourier features of increasing size
(mean over draws). Writes ``kernel_approximation.png`` to ``--out-dir`` and
prints the numbers.

``--quick`` (the gallery's mode) uses 10, 100 and 1,000 random features and 3
draws each.
"""

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

from skdpgen.evaluation import plot_kernel_approximation_error  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Hermite vs random Fourier features: kernel approximation error.")
    parser.add_argument("--out-dir", default=".")
    parser.add_argument("--draws", type=int, default=20)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    sizes = (10, 100, 1000) if args.quick else (10, 30, 100, 300, 1000, 3000, 5000)
    fig = plot_kernel_approximation_error(
        orders=range(0, 11), n_features=sizes, n_draws=3 if args.quick else args.draws
    )
    print("Hermite order  error")
    for c, e in zip(range(0, 11), fig.hermite_errors_):
        print(f"{c:>13d}  {e:.2e}")
    print("RFF features   error")
    for m, e in zip(sizes, fig.fourier_errors_):
        print(f"{m:>12d}   {e:.2e}")
    out = Path(args.out_dir) / "kernel_approximation.png"
    fig.savefig(out, dpi=120)
    print(f"figure written to {out.name} in --out-dir")


if __name__ == "__main__":
    main()
