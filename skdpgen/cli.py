"""Command line interface: ``skdpgen`` / ``python -m skdpgen``."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import argparse
import sys

__all__ = ["main"]


def _demo(args):
    """Private class-conditional mean embedding of scikit-learn's digits."""
    import numpy as np
    from sklearn.datasets import load_digits

    from . import HermiteFeatures, KernelMeanEmbedding

    digits = load_digits()
    # Public bounds: pixel intensities lie in [0, 16] by construction of the
    # dataset, and the ten classes 0..9 are public. Nothing is taken from rows.
    X = digits.data / 16.0
    y = digits.target
    kme = KernelMeanEmbedding(
        features=HermiteFeatures(order=args.order, length_scale=0.5),
        epsilon=args.epsilon,
        delta=args.delta,
        classes=np.arange(10),
        random_state=args.random_state,
    ).fit(X, y)
    exact = KernelMeanEmbedding(features=kme.features_, classes=np.arange(10)).fit(X, y)
    rel = np.linalg.norm(kme.embedding_ - exact.embedding_) / np.linalg.norm(exact.embedding_)
    print(f"Private kernel mean embedding of digits ({X.shape[0]} rows, {X.shape[1]} pixels)")
    print(f"  features: {kme.features_!r}, embedding shape {kme.embedding_.shape}")
    print(kme.privacy_report_)
    print(f"  relative L2 error of the released embedding: {rel:.3f}")
    return 0


def build_parser():
    parser = argparse.ArgumentParser(
        prog="skdpgen",
        description="Differentially private synthetic data from kernel mean embeddings.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="private mean embedding of a bundled dataset")
    demo.add_argument("--epsilon", type=float, default=1.0)
    demo.add_argument("--delta", type=float, default=1e-5)
    demo.add_argument("--order", type=int, default=20)
    demo.add_argument("--random-state", type=int, default=0)
    demo.set_defaults(func=_demo)
    return parser


def main(argv=None):
    """Run the command line interface; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, TypeError) as exc:
        print(f"skdpgen: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
