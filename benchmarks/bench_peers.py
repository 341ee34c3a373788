"""Peers side by side on Adult: SmartNoise Synth's MST and AIM against DP-HP and DP-MERF.

A script, not a test: it prints tables and never asserts. SmartNoise is not
a dependency of skdpgen; it runs in a virtual environment of its own, which
this script calls as a child process. One-time set-up (the registries only;
``torch==2.13.0`` first, as the README does, so that no CUDA wheels are
pulled by SmartNoise's ``opacus`` dependency)::

    python -m venv ~/.cache/skdpgen/smartnoise
    ~/.cache/skdpgen/smartnoise/bin/pip install torch==2.13.0
    ~/.cache/skdpgen/smartnoise/bin/pip install smartnoise-synth pandas

Then, from the repository root, in skdpgen's environment::

    python benchmarks/bench_peers.py                       # eps 0.3 and 1, MST, AIM, DP-HP, DP-MERF
    python benchmarks/bench_peers.py --epsilons 1 --aim-cap 300
    python benchmarks/bench_peers.py --peer-python PATH    # another SmartNoise environment

**Protocol.** The bundled Adult *train* split (32,561 rows) with its public
schema (``skdpgen.datasets.adult_schema``) and class list; the *test* split
only for utility. Every method gets the same public facts:

* DP-HP and DP-MERF: their defaults, ``schema=adult_schema()``,
  ``classes=`` the two labels, ``random_state=seed``, ``device="cpu"``;
  fitted on the rows and labels.
* MST and AIM (SmartNoise Synth, ``Synthesizer.create("mst" | "aim",
  epsilon=…, delta=…)``): these model discrete data, so they get every
  column on its public cells (10 equal-width bins on the public bounds of a
  numeric column, the public categories of a categorical one) plus the label
  as one more column, as integer codes, all declared categorical
  (``preprocessor_eps=0``: nothing is spent or read on bounds). SmartNoise's
  encoder takes the codes present in the rows as the domain; every code of
  Adult's public cells that occurs in no row is then left out of its
  domain (a leak SmartNoise makes, in their favour here). AIM runs with a
  wall-clock cap (``--aim-cap``); a run past it is reported as such. The
  synthetic codes come back as the same cells (numeric values uniform
  inside their bin, public randomness), so utility is computed on values.
* **How MST and AIM sample.** SmartNoise's ``sample()`` calls
  ``synthetic_data()`` of the fitted graphical model (``mbi`` 1.1.0) with its
  default ``method="round"``, a randomized rounding that draws each column
  given its parents from the *rank of the row within its parents' group*
  plus a uniform offset: rows early in every group get low codes in every
  column, so columns that the model treats as independent come out
  correlated through the row order. Measured on Adult at ε = 1: MST's 2-way
  TV 0.115 with ``sample()`` against 0.037 with ``method="sample"`` (i.i.d.
  draws from the same fitted model) and 0.074 for exact independent
  marginals. The rows "MST" and "AIM" are the i.i.d. samples of the fitted
  model (post-processing: nothing changes in the privacy of the fit); the
  rows "MST*" and "AIM*" are ``sample()`` as shipped.

**Scores.** *fit s*: wall time of the fit alone (for SmartNoise, measured
inside the child around ``fit``; imports and data loading excluded on both
sides). *2-way TV* and *3-way TV*: ``skdpgen.evaluation.marginal_tv_distance``
on the public cells above (and the 1-way TV), the label included as a column,
synthetic against
the real train split (3-way over a fixed random subset of 200 of the 560
column triples). *utility*: ROC-AUC on the real test split of one fixed
classifier (``HistGradientBoostingClassifier(max_iter=100,
early_stopping=False, random_state=0)`` behind a one-hot encoder) trained
on the synthetic rows; "real" trains it on the real train split. Each
method samples as many rows as the train split. The row "indep." is a
non-private reference: the real train split with every column shuffled on
its own (exact one-way marginals, no dependence).
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import Table, machine_line  # noqa: E402

BINS = 10
DEFAULT_PEER = Path("~/.cache/skdpgen/smartnoise/bin/python").expanduser()
LABEL = "income"

# The child: runs in SmartNoise's environment, reads integer codes, writes codes.
CHILD = r"""
import json, sys, time, warnings
warnings.simplefilter("ignore")
import pandas as pd
from snsynth import Synthesizer
args = json.loads(sys.argv[1])
df = pd.read_csv(args["data"])
kw = {"epsilon": args["epsilon"], "delta": args["delta"]}
synth = Synthesizer.create(args["method"], **kw)
t0 = time.perf_counter()
synth.fit(df, categorical_columns=list(df.columns), preprocessor_eps=0.0)
secs = time.perf_counter() - t0
synth.sample(len(df)).to_csv(args["out"], index=False)  # as shipped: mbi's "round"
# the same fitted model sampled i.i.d. (mbi's method="sample"), then decoded as
# SmartNoise's own sample() does (MST: undo its domain compression; both: the
# columns in order, then the inverse transform); post-processing only
data = synth.synthesizer.synthetic_data(rows=len(df), method="sample")
if hasattr(synth, "undo_compress_fn"):
    data = synth.undo_compress_fn(data)
cols = ["col" + str(i) for i in range(synth._transformer.output_width)]
rows = [tuple(t[1:]) for t in data.df[cols].itertuples()]
pd.DataFrame(synth._transformer.inverse_transform(rows), columns=df.columns).to_csv(
    args["out_iid"], index=False)
print(json.dumps({"seconds": secs}))
"""


def adult():
    from skdpgen.datasets import adult_schema, load_adult

    X, y = load_adult(split="train", return_X_y=True)
    X_test, y_test = load_adult(split="test", return_X_y=True)
    schema = {c: s for c, s in adult_schema().items() if c in X.columns}  # the label apart
    return X, np.asarray(y, dtype=object), X_test, np.asarray(y_test, dtype=object), schema


def cells(X, y, schema, classes):
    """Integer codes of every column on its public cells, the label last."""
    out = {}
    for c, spec in schema.items():
        if spec["type"] == "categorical":
            out[c] = pd.Index(spec["categories"]).get_indexer(X[c].astype(object))
        else:
            lo, hi = spec["bounds"]
            x = np.asarray(X[c], dtype=float)
            out[c] = np.clip(np.floor((x - lo) / (hi - lo) * BINS), 0, BINS - 1).astype(int)
    out[LABEL] = pd.Index(classes).get_indexer(np.asarray(y, dtype=object))
    return pd.DataFrame(out)


def from_cells(codes, schema, classes, rng):
    """Values back from cell codes (numeric: uniform inside the bin)."""
    X = {}
    for c, spec in schema.items():
        k = np.asarray(codes[c], dtype=int)
        if spec["type"] == "categorical":
            cats = list(spec["categories"])
            X[c] = pd.Categorical(np.asarray(cats, dtype=object)[np.clip(k, 0, len(cats) - 1)],
                                  categories=cats)
        else:
            lo, hi = spec["bounds"]
            x = lo + (np.clip(k, 0, BINS - 1) + rng.uniform(size=len(k))) * (hi - lo) / BINS
            X[c] = np.round(x) if spec.get("integer") else x
    y = np.asarray(classes, dtype=object)[np.clip(np.asarray(codes[LABEL], int), 0, 1)]
    return pd.DataFrame(X), y


def utility(X, y, X_test, y_test, positive):
    """ROC-AUC on the real test split of the panel's fixed classifier."""
    from sklearn.metrics import roc_auc_score

    from bench_panel import classifier  # the same classifier as the panel's

    if len(set(y)) < 2:
        return float("nan")
    cats = [c for c in X.columns if isinstance(X[c].dtype, pd.CategoricalDtype)]
    as_text = lambda F: F.assign(**{c: F[c].astype(object).astype(str) for c in cats})  # noqa: E731
    model = classifier(as_text(X)).fit(as_text(X), np.asarray(y, dtype=str))
    proba = model.predict_proba(as_text(X_test))[:, list(model.classes_).index(positive)]
    return roc_auc_score(np.asarray(y_test) == positive, proba)


def fidelity(real_codes, syn_codes, schema):
    from skdpgen.evaluation import marginal_tv_distance

    categories = {c: list(range(len(s["categories"]) if s["type"] == "categorical" else BINS))
                  for c, s in schema.items()}
    categories[LABEL] = [0, 1]
    one = marginal_tv_distance(real_codes, syn_codes, alpha=1, categories=categories)
    two = marginal_tv_distance(real_codes, syn_codes, alpha=2, categories=categories)
    three = marginal_tv_distance(real_codes, syn_codes, alpha=3, categories=categories,
                                 max_combinations=200, random_state=0)
    return one, two, three


def run_peer(peer, method, codes, epsilon, delta, cap):
    """Fit and sample a SmartNoise synthesizer in its own environment.

    Returns ``((codes as shipped, codes sampled i.i.d., seconds), None)`` or
    ``(None, why)``.
    """
    with tempfile.TemporaryDirectory() as tmp:
        data, out = os.path.join(tmp, "data.csv"), os.path.join(tmp, "out.csv")
        out_iid = os.path.join(tmp, "out_iid.csv")
        codes.to_csv(data, index=False)
        args = json.dumps({"method": method, "epsilon": epsilon, "delta": delta,
                           "data": data, "out": out, "out_iid": out_iid})
        try:
            proc = subprocess.run([str(peer), "-c", CHILD, args], capture_output=True,
                                  text=True, timeout=cap)
        except subprocess.TimeoutExpired:
            return None, f"past the {cap:.0f} s cap"
        if proc.returncode != 0:
            return None, "failed: " + (proc.stderr.strip().splitlines() or ["?"])[-1][:120]
        seconds = json.loads(proc.stdout.strip().splitlines()[-1])["seconds"]
        return (pd.read_csv(out), pd.read_csv(out_iid), seconds), None


def run_ours(method, X, y, schema, classes, epsilon, delta, seed):
    from skdpgen import DPHPSynthesizer, DPMERFSynthesizer

    cls = {"DP-HP": DPHPSynthesizer, "DP-MERF": DPMERFSynthesizer}[method]
    synth = cls(schema=schema, classes=classes, epsilon=epsilon, delta=delta,
                random_state=seed, device="cpu")
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        synth.fit(X, y)
    seconds = time.perf_counter() - t0
    X_syn, y_syn = synth.sample(len(X), random_state=seed)
    return X_syn, np.asarray(y_syn, dtype=object), seconds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epsilons", default="0.3,1")
    parser.add_argument("--delta", type=float, default=1e-5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--methods", default="MST,AIM,DP-HP,DP-MERF")
    parser.add_argument("--peer-python", default=str(DEFAULT_PEER),
                        help=f"python of SmartNoise's environment (default {DEFAULT_PEER})")
    parser.add_argument("--aim-cap", type=float, default=600.0,
                        help="wall-clock cap of one AIM run, seconds (default 600)")
    args = parser.parse_args(argv)
    import torch

    import skdpgen

    epsilons = [float(e) for e in args.epsilons.split(",")]
    methods = args.methods.split(",")
    X, y, X_test, y_test, schema = adult()
    classes = ["<=50K", ">50K"]
    real_codes = cells(X, y, schema, classes)
    peer = Path(args.peer_python)
    sn_version = "not found"
    if peer.exists():
        sn_version = subprocess.run(
            [str(peer), "-c", "import importlib.metadata as m; print(m.version('smartnoise-synth'))"],
            capture_output=True, text=True).stdout.strip() or "not importable"
    print("skdpgen peers benchmark: Adult, public schema for every method")
    print(f"date:      {time.strftime('%Y-%m-%dT%H:%M:%S')}")
    print(f"command:   python {os.path.relpath(sys.argv[0])} {' '.join(sys.argv[1:])}")
    print(f"machine:   {machine_line()}")
    print(f"threads:   torch {torch.get_num_threads()}")
    print(f"versions:  skdpgen {skdpgen.__version__}, torch {torch.__version__}; "
          f"smartnoise-synth {sn_version} ({peer})")
    print(f"load avg:  {', '.join(f'{x:.2f}' for x in os.getloadavg())} at start")
    print(f"settings:  epsilons {epsilons}, delta {args.delta}, seed {args.seed}, "
          f"AIM cap {args.aim_cap:.0f} s; {len(X):,} train rows, {len(X_test):,} test rows")
    real_u = utility(X, y, X_test, y_test, ">50K")
    table = Table("Adult (synthetic -> real test; TV against the real train split, public cells)",
                  ["method", "eps", "fit s", "1-way TV", "2-way TV", "3-way TV", "ROC-AUC",
                   "note"], [8, 5, 8, 8, 8, 8, 7, 24])
    table.row(["real", "-", "-", "0", "0", "0", f"{real_u:.3f}", "real train -> real test"])
    # a non-private reference: every column shuffled on its own (exact marginals,
    # no dependence), the TV an independent model with perfect marginals has
    shuffle = np.random.default_rng(args.seed)
    indep = real_codes.apply(lambda col: shuffle.permutation(col.to_numpy()))
    one, two, three = fidelity(real_codes, indep, schema)
    table.row(["indep.", "-", "-", f"{one:.3f}", f"{two:.3f}", f"{three:.3f}", "-",
               "columns shuffled (not DP)"])
    rng = np.random.default_rng(args.seed)
    times = {}
    for eps in epsilons:
        for method in methods:
            note = ""
            if method in ("MST", "AIM"):
                cap = args.aim_cap if method == "AIM" else 3600.0
                result, note = run_peer(peer, method.lower(), real_codes, eps, args.delta, cap)
                note = note or ""
                if result is None:
                    table.row([method, f"{eps:g}", "-", "-", "-", "-", "-", note])
                    continue
                shipped, syn_codes, seconds = result
                X_syn, y_syn = from_cells(syn_codes, schema, classes, rng)
                # SmartNoise's own sample() (mbi's randomized rounding): reported
                # apart, see the module docstring
                X_r, y_r = from_cells(shipped, schema, classes, rng)
                one, two, three = fidelity(real_codes, shipped, schema)
                u = utility(X_r, y_r, X_test, y_test, ">50K")
                table.row([method + "*", f"{eps:g}", f"{seconds:.1f}", f"{one:.3f}",
                           f"{two:.3f}", f"{three:.3f}", f"{u:.3f}", "sample() as shipped"])
                note = "i.i.d. sampling"
            else:
                X_syn, y_syn, seconds = run_ours(method, X, y, schema, classes, eps,
                                                 args.delta, args.seed)
                syn_codes = cells(X_syn, y_syn, schema, classes)
            one, two, three = fidelity(real_codes, syn_codes, schema)
            u = utility(X_syn, y_syn, X_test, y_test, ">50K")
            times[(method, eps)] = seconds
            table.row([method, f"{eps:g}", f"{seconds:.1f}", f"{one:.3f}", f"{two:.3f}",
                       f"{three:.3f}", f"{u:.3f}", note])
    for eps in epsilons:
        if ("MST", eps) in times and ("DP-HP", eps) in times:
            print(f"eps {eps:g}: MST fit / DP-HP fit = "
                  f"{times[('MST', eps)] / times[('DP-HP', eps)]:.1f}x")
    print(f"load avg at end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
