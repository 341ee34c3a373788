"""
======================================================================
Real and synthetic marginals of UCI Adult (MarginalSynthesizer, ε = 1)
======================================================================

:class:`~skdpgen.MarginalSynthesizer` fitted on the bundled UCI Adult training data (32,561 rows) at ε = 1,
δ = 1e-5, with the public schema of the dataset and its public class list.
The figure compares the real and synthetic one-way marginals of a few
columns (age and hours per week as histograms on the schema's bounds,
education, occupation and the income label as bar charts) and, as a
two-column view, the share of each relationship group that earns more than
$50,000. Prints the privacy report and writes ``adult_marginals.png`` to
``--out-dir``.

The figure shows the real data: like every plot of
:mod:`skdpgen.evaluation`, it is for the data holder, not for release.

``--quick`` (the gallery's mode) samples 10,000 synthetic rows; the default
samples as many rows as the real table has.
"""

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from skdpgen import MarginalSynthesizer  # noqa: E402
from skdpgen.datasets import load_adult  # noqa: E402
from skdpgen.evaluation import plot_marginals  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Real and synthetic marginals of UCI Adult (MarginalSynthesizer, "
                    "epsilon = 1).")
    parser.add_argument("--out-dir", default=".")
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)

    adult = load_adult()
    classes = adult.target_schema["categories"]  # ["<=50K", ">50K"]
    # the schema and the class list are public (from the dataset's documentation);
    # random_state fixes the public random choices, not the privacy noise
    synth = MarginalSynthesizer(schema=adult.schema, classes=classes, random_state=0)
    synth.fit(adult.data, adult.target, epsilon=args.epsilon, delta=1e-5)
    print(synth.privacy_report_)

    n = 10_000 if args.quick else len(adult.data)
    X_syn, y_syn = synth.sample(n, random_state=0)
    real = adult.frame
    synthetic = X_syn.assign(income=y_syn)

    columns = ["age", "hours-per-week", "education", "occupation", "income"]
    fig, axes = plt.subplots(2, 3, figsize=(13, 7.5))
    plot_marginals(real, synthetic, columns=columns,
                   bounds={**adult.schema, "income": adult.target_schema},
                   ax=axes.ravel()[:len(columns)])

    # one view of two columns together: the share of >50K in each relationship group
    ax = axes.ravel()[-1]
    groups = adult.schema["relationship"]["categories"]
    width = 0.4
    for k, (name, frame) in enumerate([("real", real), ("synthetic", synthetic)]):
        share = (frame["income"] == classes[1]).groupby(frame["relationship"],
                                                        observed=False).mean()
        ax.bar(np.arange(len(groups)) + (k - 0.5) * width, share.reindex(groups).to_numpy(),
               width, label=name, color=f"C{k}", alpha=0.8)
    ax.set_xticks(np.arange(len(groups)), groups, rotation=45, ha="right", fontsize=8)
    ax.set_ylabel(f"share {classes[1]}")
    ax.set_title("income by relationship")
    fig.suptitle(f"UCI Adult: real vs synthetic (MarginalSynthesizer), ε = {args.epsilon:g}, "
                 "δ = 1e-5")
    fig.tight_layout()

    out = Path(args.out_dir) / "adult_marginals.png"
    fig.savefig(out, dpi=120)
    print(f"figure written to {out.name} in --out-dir")


if __name__ == "__main__":
    main()
