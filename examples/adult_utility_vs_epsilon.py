"""
==================================================================================
Adult: synthetic-to-real utility of the marginals, DP-HP and DP-MERF at several ε
==================================================================================

UCI Adult (bundled, with its public schema of bounds and categories). Fits
each synthesizer on the training split with the public schema, samples a
synthetic table of the same size, trains logistic regression and gradient
boosting on it and tests on the real test split; the real-to-real row is the
reference. Writes ``adult_utility.png`` to ``--out-dir``. The full
12-classifier protocol is in ``benchmarks/bench_adult.py``.

``--quick`` (the gallery's mode) uses ε = 0.3, 1 and 3, the first 3,000
training rows and 2 × 50 training steps. Each fit shows a progress bar on
stderr (``verbose=1``).
"""

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from sklearn.ensemble import GradientBoostingClassifier  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402

from skdpgen import DPHPSynthesizer, DPMERFSynthesizer, MarginalSynthesizer  # noqa: E402
from skdpgen.datasets import load_adult  # noqa: E402
from skdpgen.evaluation import downstream_utility  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Adult: synthetic-to-real utility of the synthesizers at several epsilon.")
    parser.add_argument("--out-dir", default=".")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    epsilons = [0.3, 1.0, 3.0] if args.quick else [0.1, 0.3, 1.0, 3.0, 10.0]
    train, test = load_adult(split="train"), load_adult(split="test")
    X, y = train.data, train.target
    if args.quick:
        X, y = X.iloc[:3000], y.iloc[:3000]
    models = {
        "logistic regression": LogisticRegression(max_iter=1000),
        "gradient boosting": GradientBoostingClassifier(random_state=0),
    }
    extra = dict(epochs=2, steps_per_epoch=50) if args.quick else {}
    real = downstream_utility(X, y, test.data, test.target, models=models).loc["mean", "roc_auc"]
    results = {}
    for cls in (MarginalSynthesizer, DPHPSynthesizer, DPMERFSynthesizer):
        scores = []
        for eps in epsilons:
            synth = cls(schema=train.schema, classes=train.target_schema["categories"],
                        random_state=0, verbose=1,  # a progress bar on stderr
                        **extra).fit(X, y, epsilon=eps)
            Xs, ys = synth.sample(len(X), random_state=0)
            auc = downstream_utility(Xs, ys, test.data, test.target, models=models).loc["mean", "roc_auc"]
            scores.append(auc)
            print(f"{cls.__name__:<18} epsilon={eps:<5} mean ROC-AUC {auc:.3f} "
                  f"(spent epsilon {synth.privacy_report_.epsilon:.3f})")
        results[cls.__name__] = scores
    print(f"real -> real mean ROC-AUC {real:.3f}")
    fig, ax = plt.subplots(figsize=(5, 3.5))
    for name, scores in results.items():
        ax.semilogx(epsilons, scores, "o-", label=name)
    ax.axhline(real, color="k", ls="--", label="real data")
    ax.set_xlabel("ε (δ = 1e-5)")
    ax.set_ylabel("mean ROC-AUC, synthetic → real")
    ax.legend()
    fig.tight_layout()
    out = Path(args.out_dir) / "adult_utility.png"
    fig.savefig(out, dpi=120)
    print(f"figure written to {out.name} in --out-dir")


if __name__ == "__main__":
    main()
