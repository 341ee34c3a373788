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
"""

import argparse
import time
import warnings

import numpy as np
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer

from skdpgen import DPHPSynthesizer
from skdpgen.evaluation import private_accuracy_scorer, private_neg_mmd2_scorer
from skdpgen.model_selection import plan_search
from skdpgen.privacy import PrivacyBudget

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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
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
