"""A Pipeline with preprocessing and a synthesizer, and a GridSearchCV with its privacy cost.

Every fit on private data spends its budget again. A grid of 4 candidates with
2-fold cross-validation and a refit makes 9 fits; their exact composition is
the privacy cost of the search, printed at the end. Tune on public or proxy
data when you can, or budget for the search: here each fit uses ε = 0.25.
"""

import argparse

import numpy as np
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer

from skdpgen import DPHPSynthesizer
from skdpgen.privacy import compose_reports


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(0, 1, 2000), rng.exponential(1, 2000)])
    steps = dict(epochs=2, steps_per_epoch=20) if args.quick else dict(epochs=5, steps_per_epoch=100)

    # preprocessing that is data-independent (a fixed clip), then the synthesizer
    pipe = Pipeline([
        ("clip", FunctionTransformer(np.clip, kw_args={"a_min": -4, "a_max": 4})),
        ("synth", DPHPSynthesizer(bounds=(-4, 4), epsilon=0.25, random_state=0, **steps)),
    ])
    pipe.fit(X)
    print("pipeline sample:", pipe.named_steps["synth"].sample(3, random_state=0).round(2).tolist())

    search = GridSearchCV(
        DPHPSynthesizer(bounds=(-4, 4), epsilon=0.25, random_state=0, **steps),
        {"order": [5, 20], "length_scale": [0.25, 0.5]},
        cv=2,
    ).fit(np.clip(X, -4, 4))
    n_fits = len(search.cv_results_["params"]) * 2 + 1
    cost = compose_reports([search.best_estimator_.privacy_report_] * n_fits)
    print("best parameters:", search.best_params_)
    print(f"{n_fits} fits at epsilon = 0.25 each; the search spent in total:")
    print(f"  epsilon = {cost.epsilon:.3f} at delta = {cost.delta:g} "
          f"(exact composition of {cost.n_releases} Gaussian releases)")


if __name__ == "__main__":
    main()
