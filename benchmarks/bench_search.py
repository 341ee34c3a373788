"""A private grid search end to end: one budget, private scores (issue 33's measurement).

Runs ``GridSearchCV`` over ``order`` × ``length_scale`` (2 × 2) of a
``DPHPSynthesizer`` inside a Pipeline, ``cv=KFold(3)``, refit, inside
``PrivacyBudget(epsilon=1, delta=1e-5)`` planned by ``plan_search``, with
each private scorer, on

* ``gauss``: the example's table (3,000 rows: a normal and an exponential
  column, public bounds [-4, 4]);
* ``adult``: UCI Adult's train split (30,162 rows, the public schema and
  class list; bundled).

For each it prints what the budget's report says (fits, scoring releases,
ε of each fit, total ε and δ, ``is_private``), the candidate chosen, the
time, and the candidate that the same grid chooses with the synthesizer's
own non-private ``score`` outside any budget (a data-holder diagnostic, to
compare the choices). Only training data is read; nothing is asserted.

    python benchmarks/bench_search.py            # both tables, both scorers
    python benchmarks/bench_search.py --quick    # gauss only, 2 x 20 steps

**``--panel``: does the private choice pick the candidate that is best on
held-out real data?** On panel tables' *validation* splits (``bench_peers``'s:
80 % fit part, 20 % validation part of the train split, stratified,
``random_state=seed``; never the test split), for each estimator's grid
(``DP-HP``: ``order`` {5, 20} × ``length_scale`` {0.25, 0.5};
``Marginal``: ``MarginalSynthesizer``'s ``n_components`` {100, 500};
``Marginal-pairs``: its ``pair_cells`` {5, 10, 20}, which changes the model
only where the two-way marginals are released, ``pair_share_ > 0``), each at
its defaults otherwise with the table's public schema and class list
(DP-HP: ``epochs=5, steps_per_epoch=100`` as in the example, ``--dphp-steps``):

1. the private search: ``GridSearchCV(cv=KFold(3), refit=False)`` on the
   fit part inside ``PrivacyBudget(epsilon, 1e-5)`` planned by
   ``plan_search``, once with ``private_neg_mmd2_scorer()`` and once with
   ``private_accuracy_scorer()``: the chosen candidate (``best_params_``);
2. each candidate fitted on the whole fit part at the ε and δ per fit that
   ``plan_search`` assigned (``--draws`` independent fits each), sampled
   (as many rows as the fit part) and scored on held-out real rows:
   2-way TV on ``bench_peers``' public cells (label included) against the
   validation part, and utility (``bench_peers``' classifier trained on the
   synthetic rows, scored on the validation part);
3. whether the private choice is the held-out best (lowest mean held-out
   2-way TV over the draws) and by how much its held-out TV exceeds the
   best's.

**The lead (issue 63).** Each private search's
:func:`~skdpgen.model_selection.search_report` (mean score and standard
error per candidate, the choice's lead over the runner-up in standard
errors, the verdict) is kept, with the fold scores, and ``lead_report``
prints it beside the held-out gap: the criterion is that where the lead is
at least ``CLEAR_LEAD`` the choice is the held-out best or within the seed
spread of the best (the sd over the table's seeds of its held-out TV).
``--adult-split test`` holds out Adult's official test split (the search
and the held-out fits on its train split); ``--marginal-epochs`` sets
``MarginalSynthesizer``'s epochs; the ``Marginal-2x2`` grid is
``pair_cells`` {5, 10} x ``bins`` {5, "auto"}::

    python benchmarks/bench_search.py --panel --tables flchain,hi,adult --adult-split test --methods Marginal-2x2 --seeds 0,1,2 --draws 2 --marginal-epochs 5 --json lead.json

``refit=False``: the search's cost is ``c·3`` fits and the scorer's
releases; a refit would be one more fit at the same ε (the held-out fit of
the chosen candidate stands for it). Raw results with ``--json``::

    python benchmarks/bench_search.py --panel --tables flchain,bfi --seeds 0 --json s.json
"""

import argparse
import json
import os
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer

from skdpgen import DPHPSynthesizer
from skdpgen.evaluation import private_accuracy_scorer, private_neg_mmd2_scorer
from skdpgen.model_selection import CLEAR_LEAD, plan_search, search_report
from skdpgen.privacy import PrivacyBudget

import _panel_data as P
from _common import machine_line


def _gauss():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(0, 1, 3000), rng.exponential(1, 3000)])
    y = (X[:, 0] + X[:, 1] + rng.normal(0, 1, 3000) > 1).astype(int)
    clip = FunctionTransformer(np.clip, kw_args={"a_min": -4, "a_max": 4})
    return X, y, clip, dict(bounds=(-4, 4), classes=[0, 1])


def _adult():
    from skdpgen.datasets import load_adult
    b = load_adult(split="train")
    clip = FunctionTransformer()  # identity: the schema is public
    return b.data, b.target, clip, dict(schema=b.schema,
                                        classes=b.target_schema["categories"])


def _search(first, params, scoring, steps):
    pipe = Pipeline([("prep", first),
                     ("synth", DPHPSynthesizer(random_state=0, **steps, **params))])
    return GridSearchCV(pipe, {"synth__order": [5, 20], "synth__length_scale": [0.25, 0.5]},
                        cv=KFold(3), scoring=scoring)


def run(name, data, scorer_name, steps):
    X, y, first, params = data
    scorer = {"mmd": private_neg_mmd2_scorer, "accuracy": private_accuracy_scorer}[scorer_name]
    search = _search(first, params, scorer(), steps)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with PrivacyBudget(epsilon=1.0, delta=1e-5) as budget:
            plan = plan_search(search, X, y)
            search.fit(X, y)
    seconds = time.perf_counter() - start
    report = budget.report()
    reference = _search(first, params, None, steps)  # the estimator's own score, no budget
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference.set_params(estimator__synth__epsilon=plan.fit_epsilon,
                             estimator__synth__delta=plan.fit_delta).fit(X, y)

    def short(p):
        return f"order={p['synth__order']}, l={p['synth__length_scale']}"

    return [name, scorer_name, plan.n_fits, plan.n_score_releases, f"{plan.fit_epsilon:.4f}",
            f"{report.epsilon:.6f}", f"{report.delta:g}", "yes" if report.is_private else "NO",
            report.n_releases, short(search.best_params_), short(reference.best_params_),
            f"{seconds:.1f}"]


# -- --panel: the private choice against the held-out best ---------------------------

PANEL_GRIDS = {
    "DP-HP": ("DPHPSynthesizer", {"order": [5, 20], "length_scale": [0.25, 0.5]}),
    "Marginal": ("MarginalSynthesizer", {"n_components": [100, 500]}),
    # pair_cells changes the model only where the two-way marginals are released
    # (pair_share_ > 0: many rows for the columns at the search's epsilon per fit)
    "Marginal-pairs": ("MarginalSynthesizer", {"pair_cells": [5, 10, 20]}),
    # issue 63's measurement (--lead): the two-way marginals' cells and the
    # numeric columns' bins, 2 x 2
    "Marginal-2x2": ("MarginalSynthesizer", {"pair_cells": [5, 10], "bins": [5, "auto"]}),
}
#: MarginalSynthesizer's settings beside the grid (--marginal-epochs)
MARGINAL_KW = {}
SCORERS = {"mmd": private_neg_mmd2_scorer, "accuracy": private_accuracy_scorer}


def _base(method, table, seed, steps):
    import skdpgen

    cls = getattr(skdpgen, PANEL_GRIDS[method][0])
    return cls(schema=table.schema, classes=list(table.classes), random_state=seed,
               device="cpu", **(steps if method == "DP-HP" else MARGINAL_KW))


def private_choice(method, table, seed, scorer_name, epsilon, steps):
    """The private search on the fit part: (chosen params, plan, mean scores,
    candidates, seconds, the report's epsilon, whether it is private, the
    search's :func:`~skdpgen.model_selection.search_report` as a dict)."""
    grid = PANEL_GRIDS[method][1]
    search = GridSearchCV(_base(method, table, seed, steps), grid, cv=KFold(3),
                          scoring=SCORERS[scorer_name](), refit=False)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with PrivacyBudget(epsilon=epsilon, delta=1e-5) as budget:
            plan = plan_search(search, table.X_train, table.y_train)
            search.fit(table.X_train, table.y_train)
    report = budget.report()
    return (search.best_params_, plan, list(search.cv_results_["mean_test_score"]),
            list(map(dict, search.cv_results_["params"])), time.perf_counter() - start,
            report.epsilon, report.is_private,
            {**search_report(search, table.X_train).to_dict(),
             "fold_scores": [list(map(float, search.cv_results_[f"split{k}_test_score"]))
                             for k in range(3)]})


def held_out(method, ref, params, fit_epsilon, fit_delta, seed, val_cells, steps):
    """One fit of a candidate on the fit part at the search's ε per fit, scored
    on the validation part: 2-way TV there (and against the fit part), utility."""
    from sklearn.base import clone

    from bench_peers import cells
    from skdpgen.evaluation import marginal_tv_distance

    t = ref.table
    est = clone(_base(method, t, seed, steps)).set_params(**params, epsilon=fit_epsilon,
                                                   delta=fit_delta)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(t.X_train, t.y_train)
    seconds = time.perf_counter() - start
    X_syn, y_syn = est.sample(len(t.X_train), random_state=seed)
    y_syn = np.asarray([P._norm_cat(v) for v in np.asarray(y_syn, dtype=object)], dtype=object)
    codes, _ = cells(t, X_syn, y_syn)
    val_codes, categories = val_cells
    return {"tv2_heldout": marginal_tv_distance(val_codes, codes, alpha=2,
                                                categories=categories),
            "tv2_fit": ref.tv(codes)["tv2"], "utility": ref.utility(X_syn, y_syn),
            "fit_s": seconds, "pair_share_": getattr(est, "pair_share_", None)}


def _key(params):
    return ", ".join(f"{k}={v}" for k, v in sorted(params.items()))


def panel_one(args, name, loaded, seed, method, save):
    """One table, seed and grid: each scorer's private choice and the held-out
    scores of every candidate (the first scorer's search, the held-out fits,
    then the other scorers' searches; ``save(run)`` after each step)."""
    from sklearn.model_selection import ParameterGrid

    from bench_peers import Reference, cells
    from skdpgen.evaluation import marginal_tv_distance

    how = args.adult_split if name == "adult" else "validation"
    ref = Reference(loaded, how, seed)
    t = ref.table
    val_cells = cells(t, t.X_test, t.y_test)
    run = {"table": name, "seed": seed, "method": method, "epsilon": args.epsilon,
           "held_out": how, "marginal": dict(MARGINAL_KW),
           "n_fit": len(t.X_train), "n_validation": len(t.X_test),
           "steps": args.steps if method == "DP-HP" else "default",
           "real_fit_part_tv2_heldout": marginal_tv_distance(
               val_cells[0], ref.codes, alpha=2, categories=val_cells[1]),
           "searches": {}, "candidates": {}}
    for i, scorer_name in enumerate(args.scorers):
        chosen, plan, scores, cand, seconds, spent, private, lead = private_choice(
            method, t, seed, scorer_name, args.epsilon, args.steps)
        run["searches"][scorer_name] = {
            "chosen": _key(chosen), "fit_epsilon": plan.fit_epsilon,
            "fit_delta": plan.fit_delta, "n_fits": plan.n_fits,
            "n_score_releases": plan.n_score_releases,
            "private_scores": dict(zip(map(_key, cand), scores)), "seconds": seconds,
            "report_epsilon": spent, "is_private": private, "search_report": lead}
        print(f"  {name} seed {seed} {method} {scorer_name}: chose {_key(chosen)} "
              f"(eps per fit {plan.fit_epsilon:.4f}, {seconds:.0f} s; lead "
              f"{lead['lead']:.2f} standard errors: {lead['verdict']})", flush=True)
        save(run)
        fit_budget = {(s["fit_epsilon"], s["fit_delta"]) for s in run["searches"].values()}
        if len(fit_budget) != 1:
            raise RuntimeError(f"the scorers' plans differ in the fits' budgets: {fit_budget}")
        if i > 0:
            continue
        fit_epsilon, fit_delta = plan.fit_epsilon, plan.fit_delta
        for params in ParameterGrid(PANEL_GRIDS[method][1]):
            draws = [held_out(method, ref, params, fit_epsilon, fit_delta, seed + 1000 * d,
                              val_cells, args.steps) for d in range(args.draws)]
            run["candidates"][_key(params)] = draws
            print(f"  {name} seed {seed} {method} {_key(params)}: held-out 2-way TV "
                  + ", ".join(f"{d['tv2_heldout']:.4f}" for d in draws) + ", utility "
                  + ", ".join(f"{d['utility']:.3f}" for d in draws)
                  + f" ({draws[0]['fit_s']:.0f} s)", flush=True)
            save(run)
    return run


def verdict(run):
    """Per scorer: (chosen, held-out best, TV gap, utility gap, rank of the chosen)."""
    mean = {k: float(np.mean([d["tv2_heldout"] for d in v])) for k, v in run["candidates"].items()}
    util = {k: float(np.nanmean([d["utility"] for d in v])) for k, v in run["candidates"].items()}
    best = min(mean, key=mean.get)
    order = sorted(mean, key=mean.get)
    out = {}
    for scorer, s in run["searches"].items():
        c = s["chosen"]
        out[scorer] = (c, best, mean[c] - mean[best], util[c] - max(util.values()),
                       order.index(c) + 1)
    return out, mean, util


def panel(args):
    import torch
    from threadpoolctl import threadpool_limits

    from bench_panel import _git_revision

    torch.set_num_threads(args.threads)
    threadpool_limits(args.threads)
    print(machine_line())
    print(f"commit {_git_revision()}; load avg at start "
          f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}; eps {args.epsilon}, delta 1e-5, "
          f"KFold(3), refit=False, draws {args.draws}, threads {args.threads}, DP-HP {args.steps}, "
          f"Marginal {MARGINAL_KW or 'defaults'}, adult held out: {args.adult_split}",
          flush=True)
    runs = []

    def save(run):
        if args.json:
            Path(args.json).write_text(json.dumps([*runs, run], indent=1, default=float) + "\n")

    for name in args.tables:
        loaded = P.load_table(name, args.data, seed=0)
        for seed in args.seeds:
            for method in args.methods:
                runs.append(panel_one(args, name, loaded, seed, method, save))
    print(f"load avg at end {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    report(runs)
    for scorer in args.scorers:
        lead_report(runs, scorer)


def report(runs):
    """The markdown table of the runs and the hit counts (runs with held-out fits)."""
    runs = [r for r in runs if r["candidates"]]
    cols = ["table", "seed", "method", "eps/fit", "held-out 2-way TV per candidate (real fit part)",
            "best", "chosen (mmd)", "chosen (accuracy)", "TV gap mmd / acc",
            "utility gap mmd / acc"]
    print("| " + " | ".join(cols) + " |\n|" + "---|" * len(cols))
    hits = {}
    for run in runs:
        v, mean, _ = verdict(run)
        for scorer, (c, best, gap, _, _) in v.items():
            hits.setdefault((run["method"], scorer), []).append((c == best, gap))
        eps = next(iter(run["searches"].values()))["fit_epsilon"]
        print("| " + " | ".join([
            run["table"], str(run["seed"]), run["method"], f"{eps:.4f}",
            "; ".join(f"{k}: {m:.4f}" for k, m in mean.items())
            + f" ({run['real_fit_part_tv2_heldout']:.4f})", v[next(iter(v))][1],
            *(v[s][0] if s in v else "–" for s in ("mmd", "accuracy")),
            " / ".join(f"{v[s][2]:+.4f}" if s in v else "–" for s in ("mmd", "accuracy")),
            " / ".join(f"{v[s][3]:+.3f}" if s in v else "–" for s in ("mmd", "accuracy"))])
            + " |")
    for (method, scorer), h in hits.items():
        gaps = [g for _, g in h]
        print(f"{method}, {scorer}: private choice = held-out best in {sum(m for m, _ in h)} "
              f"of {len(h)}; TV gap mean {np.mean(gaps):.4f}, max {max(gaps):.4f}")


#: what each scorer's choice is checked against on the held-out rows: the
#: held-out 2-way TV (lower is better) for the distance, the panel's utility
#: (higher is better) for the accuracy
ORACLE = {"mmd": ("tv2_heldout", 1), "accuracy": ("utility", -1)}


def lead_report(runs, scorer="mmd"):
    """Issue 63's check: the private choice's lead in standard errors
    (``search_report``) beside its held-out gap to the held-out best.

    Per run (table, seed): the lead and verdict of the private search, the
    scorer's noise per score, the chosen candidate and the held-out best
    (``ORACLE``: for ``mmd`` the lowest held-out 2-way TV, for ``accuracy``
    the highest utility, means over the draws), the gap (how much worse the
    choice is, >= 0), and the fits' own noise (sd over the draws, mean over
    the candidates). The *seed spread* of a table's run is the standard
    deviation over the table's seeds of the held-out metric of that run's
    best candidate; the criterion holds in a run with a lead >= CLEAR_LEAD
    when the choice is the held-out best or its gap is at most that spread."""
    runs = [r for r in runs if r["candidates"] and scorer in r["searches"]
            and "search_report" in r["searches"][scorer]]
    if not runs:
        return
    metric, sign = ORACLE[scorer]
    tv = {}  # (table, seed) -> candidate -> sign * mean held-out metric over the draws
    for r in runs:
        tv[r["table"], r["seed"]] = {k: sign * float(np.nanmean([d[metric] for d in v]))
                                     for k, v in r["candidates"].items()}
    cols = ["table", "seed", "held-out", "private mean score per candidate ± se",
            "score noise sd", "chosen", "lead (se)", "verdict", "paired lead",
            f"held-out {metric} per candidate (fit sd)", "held-out best", "gap",
            "seed spread of best", "criterion"]
    print(f"\nscorer {scorer}, checked against the held-out {metric}; lead threshold "
          f"{CLEAR_LEAD:g}\n")
    print("| " + " | ".join(cols) + " |\n|" + "---|" * len(cols))
    verdicts = []
    for r in runs:
        rep = r["searches"][scorer]["search_report"]
        keys = [_key(p) for p in rep["params"]]
        chosen = keys[rep["best_index"]]
        mean = tv[r["table"], r["seed"]]
        best = min(mean, key=mean.get)
        gap = mean[chosen] - mean[best]
        spread = float(np.std([tv[t, s][best] for (t, s) in tv if t == r["table"]], ddof=1))
        fit_sd = float(np.mean([np.std([d[metric] for d in v], ddof=1)
                                for v in r["candidates"].values()])) if all(
            len(v) > 1 for v in r["candidates"].values()) else float("nan")
        clear = rep["lead"] >= CLEAR_LEAD
        ok = chosen == best or gap <= spread
        verdicts.append((r["table"], clear, ok, chosen == best))
        noise = rep["score_noise_std"]
        # for information: the lead in standard errors of the fold-by-fold
        # difference (the noise the candidates share on a fold cancels in it)
        folds = np.asarray(rep["fold_scores"])
        diff = folds[:, rep["best_index"]] - folds[:, rep["runner_up_index"]]
        paired = diff.mean() / (diff.std(ddof=1) / np.sqrt(len(diff)))
        print("| " + " | ".join([
            r["table"], str(r["seed"]), r.get("held_out", "validation"),
            "; ".join(f"{k}: {m:.4g} ± {e:.2g}" for k, m, e in zip(
                keys, rep["mean_scores"], rep["standard_errors"])),
            "–" if noise is None else ("≤ " if rep.get("score_noise_is_bound") else "")
            + f"{noise:.2g}", chosen, f"{rep['lead']:.2f}", rep["verdict"], f"{paired:.2f}",
            "; ".join(f"{k}: {sign * mean[k]:.4f}" for k in keys)
            + f" ({fit_sd:.4f})", best, f"{gap:+.4f}", f"{spread:.4f}",
            ("holds" if ok else "FAILS") if clear else "n/a (lead < 2)"]) + " |")
    n_clear = sum(c for _, c, _, _ in verdicts)
    print(f"\nclear leads: {n_clear} of {len(verdicts)} searches; among them the choice is "
          f"the held-out best in {sum(c and b for _, c, _, b in verdicts)} and within the "
          f"seed spread in {sum(c and o for _, c, o, _ in verdicts)}; among the others "
          f"(within the noise) the held-out best in "
          f"{sum((not c) and b for _, c, _, b in verdicts)} of {len(verdicts) - n_clear}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--panel", action="store_true",
                        help="the private choice against the held-out best on panel tables' "
                             "validation splits (see the docstring)")
    parser.add_argument("--data", default=str(P.DEFAULT_DATA), help="--panel: the panel's data")
    parser.add_argument("--tables", default="flchain,bfi,breast_cancer,bundesliga",
                        help="--panel: comma-separated panel tables")
    parser.add_argument("--methods", default="DP-HP,Marginal",
                        help=f"--panel: from {','.join(PANEL_GRIDS)}")
    parser.add_argument("--scorers", default="mmd,accuracy", help="--panel: mmd, accuracy")
    parser.add_argument("--seeds", default="0", help="--panel: comma-separated")
    parser.add_argument("--draws", type=int, default=1,
                        help="--panel: held-out fits of each candidate (default 1)")
    parser.add_argument("--epsilon", type=float, default=1.0, help="--panel: the budget's epsilon")
    parser.add_argument("--threads", type=int, default=1, help="--panel: threads (default 1)")
    parser.add_argument("--json", metavar="PATH", help="--panel: write the raw runs")
    parser.add_argument("--marginal-epochs", type=int, default=None,
                        help="--panel: MarginalSynthesizer's epochs (its default otherwise)")
    parser.add_argument("--adult-split", default="validation", choices=["validation", "test"],
                        help="--panel: adult's held-out part: the validation split like "
                             "every table's, or its official test split (the search and "
                             "the held-out fits on its train split)")
    parser.add_argument("--report", metavar="PATH",
                        help="print the --panel table from a --json file, and stop")
    parser.add_argument("--dphp-steps", default="5,100",
                        help="--panel: DP-HP's epochs,steps_per_epoch (default 5,100: the "
                             "example's; DPHPSynthesizer's default is 10,100)")
    args = parser.parse_args(argv)
    if args.report:
        runs = json.loads(Path(args.report).read_text())
        report(runs)
        for scorer in ("mmd", "accuracy"):
            lead_report(runs, scorer)
        return None
    if args.panel:
        args.tables, args.methods = args.tables.split(","), args.methods.split(",")
        args.scorers = args.scorers.split(",")
        args.seeds = [int(x) for x in args.seeds.split(",")]
        epochs, per_epoch = (int(x) for x in args.dphp_steps.split(","))
        args.steps = dict(epochs=epochs, steps_per_epoch=per_epoch)
        if args.marginal_epochs is not None:
            MARGINAL_KW["epochs"] = args.marginal_epochs
        return panel(args)
    steps = dict(epochs=2, steps_per_epoch=20) if args.quick else dict(epochs=5, steps_per_epoch=100)
    tables = {"gauss": _gauss} if args.quick else {"gauss": _gauss, "adult": _adult}
    print(machine_line())
    print(f"settings: 2 x 2 grid (order 5/20, length_scale 0.25/0.5), KFold(3), refit, "
          f"budget (1, 1e-5), steps {steps}")
    columns = ["table", "scorer", "fits", "score releases", "eps per fit", "total eps",
               "delta", "private", "releases", "chosen (private)", "chosen (own score)",
               "seconds"]
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for name, load in tables.items():
        data = load()
        for scorer_name in ("mmd", "accuracy"):
            print("| " + " | ".join(str(c) for c in run(name, data, scorer_name, steps)) + " |",
                  flush=True)


if __name__ == "__main__":
    main()
