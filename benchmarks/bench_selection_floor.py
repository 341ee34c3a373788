"""What a private category list costs a table, whatever the rest of the fit does.

A table without a schema needs its categories found privately: a partition
selection keeps a value only when its noisy count clears a threshold, and
the values below it fold into ``"other"``. This script measures the best
any such estimate could do: the table's public schema with every category
held by fewer than ``T`` training rows folded into ``"other"`` (and public
bounds for every number), fitted with ``MarginalSynthesizer`` on the whole
budget. ``T`` runs over the thresholds of a selection of every estimated
column's values at shares of the budget, down to the whole budget (no
budget then left for the model, so no real estimate reaches that row).

Run::

    python benchmarks/bench_selection_floor.py --tables adult --seeds 0,1,2

On the validation part of the panel's split (``bench_peers.py``'s, never the
test split); prints the 2-way TV against the fit part, mean over the seeds,
beside the public-schema fit and 1.15 times it (issue 53's criterion).
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import argparse
import copy
import datetime
import subprocess
import warnings

import numpy as np
from scipy.special import ndtri

import _panel_data as P
import bench_peers as B
from _common import Table, machine_line


def threshold(n_columns, share, epsilon, delta):
    """The partition selection's threshold (rows) of each of ``n_columns``
    values releases made with ``share`` of the budget (the accountant's exact
    calibration; sensitivity √2; the selections' δ as a fit splits it)."""
    from skdpgen.privacy import GaussianAccountant
    from skdpgen.privacy._calibration import selection_threshold

    shares = {"values": (share, n_columns)}
    if share < 1:
        shares["rest"] = 1 - share
    acc = GaussianAccountant(epsilon, delta, shares, selections=["values"])
    return float(selection_threshold(acc.noise_multipliers["values"] * np.sqrt(2.0),
                                     acc.delta_each))


def folded_schema(table, X, rows):
    """The public schema with every category of fewer than ``rows`` training rows
    folded into "other"; the share of rows folded, by column."""
    schema, folded = copy.deepcopy(table.schema), {}
    for column, spec in schema.items():
        if spec["type"] != "categorical":
            continue
        counts = X[column].value_counts()
        keep = [v for v in spec["categories"] if counts.get(v, 0) >= rows]
        if len(keep) < len(spec["categories"]):
            folded[column] = 1.0 - float(counts.reindex(keep).fillna(0).sum()) / len(X)
            spec["categories"] = keep + ["other"]
            spec["other"] = "other"
    return schema, folded


def fit_score(ref, schema, epsilon, seed):
    import skdpgen

    synth = skdpgen.MarginalSynthesizer(schema=schema, classes=list(ref.table.classes),
                                        epsilon=epsilon, delta=1e-5, random_state=seed,
                                        device="cpu")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synth.fit(ref.table.X_train, ref.table.y_train)
    X, y = synth.sample(len(ref.table.X_train), random_state=seed)
    y = np.asarray([P._norm_cat(u) for u in np.asarray(y, dtype=object)], dtype=object)
    return ref.score(X, y)["tv2"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default="adult")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--shares", default="1,0.5,0.25,0.1",
                        help="shares of the budget for the selections (1: all of it)")
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    print(f"date: {datetime.datetime.now().isoformat(timespec='seconds')}; commit {commit}")
    print(f"machine: {machine_line()}")
    print(f"epsilon {args.epsilon:g}, delta 1e-5, seeds {seeds}, validation part")
    for name in args.tables.split(","):
        table = P.load_table(name, str(P.DEFAULT_DATA), seed=0)
        refs = [B.Reference(table, "validation", s) for s in seeds]
        d = len(table.schema)
        out = Table(f"{name}: {d} columns, {len(refs[0].table.X_train)} fit rows",
                    ["selection share", "threshold rows", "rows folded (largest)", "2-way TV",
                     "per seed"], [16, 15, 34, 9, 26])
        public = [fit_score(r, r.table.schema, args.epsilon, s) for r, s in zip(refs, seeds)]
        out.row(["public schema", "-", "-", f"{np.mean(public):.4f}",
                 " ".join(f"{v:.4f}" for v in public)])
        for share in (float(s) for s in args.shares.split(",")):
            rows = threshold(d, share, args.epsilon, 1e-5)
            scores, folds = [], []
            for ref, seed in zip(refs, seeds):
                schema, folded = folded_schema(ref.table, ref.table.X_train, rows)
                folds.append(folded)
                scores.append(fit_score(ref, schema, args.epsilon, seed))
            worst = sorted(folds[0].items(), key=lambda kv: -kv[1])[:2]
            out.row([f"{share:g}", f"{rows:.0f}", ", ".join(f"{c} {v:.1%}" for c, v in worst)
                     or "none", f"{np.mean(scores):.4f}", " ".join(f"{v:.4f}" for v in scores)])
        print(f"  criterion (1.15 x public schema): {1.15 * np.mean(public):.4f}")


if __name__ == "__main__":
    main()
