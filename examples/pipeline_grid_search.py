"""
=====================================================================
A private grid search: one budget for every fit and every score
=====================================================================

A ``GridSearchCV`` over the order and the length scale of a
:class:`~skdpgen.DPHPSynthesizer` inside a Pipeline, with 3-fold
cross-validation and a refit, spends **one** budget of ε = 1, δ = 1e-5 in
total:

- :func:`~skdpgen.model_selection.plan_search` counts what the search will
  do (4 candidates × 3 folds + 1 refit = 13 fits, and the scorer's 3
  releases) and sets every fit's and the scorer's (ε, δ) so that their exact
  composition is the budget, before anything is released;
- :func:`~skdpgen.evaluation.private_neg_mmd2_scorer` ranks the candidates
  by the distance between a synthetic sample and a **noisy** release of each
  held-out fold's mean embedding, released once per fold and reused for
  every candidate, so the choice of the best candidate is private too;
- :class:`~skdpgen.privacy.PrivacyBudget` charges every release made inside
  its block and prints one report for the whole search.

The Pipeline's first step is data-independent (a fixed clip to public
bounds): a step that learned from the rows would be covered by no budget.
The folds are ``KFold(3)``, fixed by row positions, and the search runs with
``n_jobs=1`` (the budget is seen by the thread that fits). The figure writes
``grid_search.png`` to ``--out-dir``.

``--quick`` (the gallery's mode) trains each fit for 2 × 20 steps; the
default uses 5 × 100.
"""

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from sklearn.model_selection import GridSearchCV, KFold  # noqa: E402
from sklearn.pipeline import Pipeline  # noqa: E402
from sklearn.preprocessing import FunctionTransformer  # noqa: E402

from skdpgen import DPHPSynthesizer  # noqa: E402
from skdpgen.evaluation import private_neg_mmd2_scorer  # noqa: E402
from skdpgen.model_selection import plan_search  # noqa: E402
from skdpgen.privacy import PrivacyBudget  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="A GridSearchCV over a synthesizer that spends one privacy budget.")
    parser.add_argument("--out-dir", default=".")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(0, 1, 3000), rng.exponential(1, 3000)])
    steps = dict(epochs=2, steps_per_epoch=20) if args.quick else dict(epochs=5, steps_per_epoch=100)

    # preprocessing that is data-independent (a fixed clip), then the synthesizer
    pipe = Pipeline([
        ("clip", FunctionTransformer(np.clip, kw_args={"a_min": -4, "a_max": 4})),
        ("synth", DPHPSynthesizer(bounds=(-4, 4), random_state=0, **steps)),
    ])
    search = GridSearchCV(
        pipe, {"synth__order": [5, 20], "synth__length_scale": [0.25, 0.5]},
        cv=KFold(3), scoring=private_neg_mmd2_scorer(length_scale=0.5),
    )
    with PrivacyBudget(epsilon=1.0, delta=1e-5) as budget:
        plan = plan_search(search, X)  # sets each fit's and the scorer's budget
        print(plan)
        search.fit(X)
    report = budget.report()
    print("best parameters:", search.best_params_)
    print(report)

    # the released model: the refitted best pipeline
    X_syn, _ = search.best_estimator_.named_steps["synth"].sample(3, random_state=0)
    print("synthetic rows:", X_syn.round(2).tolist())

    results = search.cv_results_
    names = [f"order={p['synth__order']}\nℓ={p['synth__length_scale']}"
             for p in results["params"]]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.bar(range(len(names)), -results["mean_test_score"],
           yerr=results["std_test_score"], color="C0", capsize=4)
    ax.set_xticks(range(len(names)), names)
    ax.set_ylabel("held-out MMD² vs noisy fold\n(lower is better)")
    ax.set_title(f"{plan.n_fits} fits + {plan.n_score_releases} scoring releases: "
                 f"ε = {report.epsilon:.3f} in all")
    fig.tight_layout()
    out = Path(args.out_dir) / "grid_search.png"
    fig.savefig(out, dpi=120)
    print(f"figure written to {out.name} in --out-dir")


if __name__ == "__main__":
    main()
