"""Parts as parameters (issue 64, point 1): a synthesizer composed of a mechanism and a
generator given as scikit-learn estimators, reached by name, cloned by each fit."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV

from skdpgen import DPHPSynthesizer, MarginalSynthesizer
from skdpgen.synthesizers import (GeneratorSpec, HermiteMechanism, MarginalMechanism,
                                  Synthesizer)

FAST = dict(epochs=1, steps_per_epoch=5, random_state=0, device="cpu")


def _table(n=400):
    rng = np.random.default_rng(0)
    a = rng.uniform(0, 1, n)
    X = pd.DataFrame({"a": a, "b": np.where(a + rng.normal(0, 0.1, n) > 0.5, "x", "y"),
                      "c": rng.choice(["p", "q", "r"], n)})
    schema = {"a": {"type": "numeric", "bounds": [0, 1], "missing": False},
              "b": {"type": "categorical", "categories": ["x", "y"], "missing": False},
              "c": {"type": "categorical", "categories": ["p", "q", "r"], "missing": False}}
    return X, schema


def _marginals_under(generator, **params):
    X, schema = _table()
    mechanism = MarginalMechanism(pair_share=0.5, by_class=False)
    return Synthesizer(mechanism=mechanism, generator=generator, schema=schema,
                       **{**FAST, **params}), X


def test_the_parts_are_reached_by_name():
    synth, _ = _marginals_under(GeneratorSpec(kind="mixture", batch_size=20, per_class=True))
    params = synth.get_params(deep=True)
    assert params["mechanism__pair_cells"] == 10
    assert params["mechanism__pair_share"] == 0.5
    assert params["generator__kind"] == "mixture"
    synth.set_params(mechanism__pair_cells=3, generator__learning_rate=0.05)
    assert synth.mechanism.pair_cells == 3
    assert synth.generator.learning_rate == 0.05


def test_a_fit_clones_the_parts_and_leaves_them_untouched():
    synth, X = _marginals_under(GeneratorSpec(kind="mixture", batch_size=20, per_class=True,
                                              learning_rate=0.1))
    given = synth.mechanism
    before = dict(vars(given))
    twin = clone(synth)
    assert twin.mechanism is not given
    assert twin.get_params()["mechanism__pair_share"] == 0.5
    synth.fit(X)
    assert synth.mechanism is given and vars(given) == before  # nothing fitted on it
    assert not hasattr(given, "targets_")
    assert synth.mechanism_ is not given and synth.mechanism_.targets_
    assert synth.design_.generator is not synth.generator
    assert synth.design_.generator.noise_dim == 1 + 3 // 2  # "auto" for a mixture
    assert synth.generator.noise_dim == "auto"


def test_set_params_reaches_the_mechanism_and_changes_the_fit():
    synth, X = _marginals_under(GeneratorSpec(kind="mixture", batch_size=20, per_class=True,
                                              learning_rate=0.1))
    coarse = clone(synth).set_params(mechanism__pair_cells=2).fit(X)
    fine = clone(synth).set_params(mechanism__pair_cells=5).fit(X)
    assert coarse.mechanism_.pair_cells == 2 and fine.mechanism_.pair_cells == 5
    # the numeric column's 2 coarse cells against 5: two-way releases of other widths
    widths = [m.mechanism_.pairwise_.n_features_out_ for m in (coarse, fine)]
    assert widths[0] < widths[1]


def test_grid_search_reaches_a_mechanism_parameter():
    synth, X = _marginals_under(GeneratorSpec(kind="mixture", batch_size=20, per_class=True,
                                              learning_rate=0.1))
    search = GridSearchCV(synth, {"mechanism__pair_cells": [2, 4]}, cv=2).fit(X)
    assert search.best_params_["mechanism__pair_cells"] in (2, 4)
    assert search.best_estimator_.mechanism_.pair_cells == search.best_params_[
        "mechanism__pair_cells"]


def test_the_marginal_mechanism_under_an_mlp_fits_and_samples():
    synth, X = _marginals_under(GeneratorSpec(kind="mlp", batch_size=64))
    synth.fit(X)
    X_syn, y_syn = synth.sample(50, random_state=0)
    assert list(X_syn.columns) == ["a", "b", "c"] and y_syn is None
    assert set(X_syn["b"]) <= {"x", "y"}
    names = [r.name for r in synth.privacy_report_.releases]
    assert "one-way marginals" in names and "two-way marginals" in names
    assert synth.privacy_report_.epsilon == pytest.approx(1.0, rel=1e-6)


def test_dphp_kernels_under_a_mixture_need_a_one_hot_encoding():
    X, schema = _table()
    mixture = GeneratorSpec(kind="mixture", batch_size=20, per_class=True, learning_rate=0.1)
    synth = Synthesizer(mechanism=HermiteMechanism(order=4, product_kernel="pairwise"),
                        generator=mixture, schema=schema, **FAST)
    with pytest.raises(ValueError, match="mixture' needs every column one-hot"):
        synth.fit(X)
    # binned numeric columns: the Hermite mechanism's kernels under a mixture
    synth.set_params(encoding={"bins": 5}).fit(X)
    assert synth.sample(10, random_state=0)[0].shape == (10, 3)
    assert {"sum kernel", "pairwise kernel"} <= {r.name for r in
                                                 synth.privacy_report_.releases}


def test_an_invalid_part_parameter_is_refused_by_fit():
    synth, X = _marginals_under(GeneratorSpec(kind="mixture", batch_size=20, per_class=True))
    with pytest.raises(ValueError, match="pair_cells"):
        synth.set_params(mechanism__pair_cells=1).fit(X)
    with pytest.raises(ValueError, match="kind"):
        synth.set_params(mechanism__pair_cells=3, generator__kind="tree").fit(X)


def test_presets_build_their_parts_from_their_own_parameters():
    X, schema = _table()
    dphp = DPHPSynthesizer(order=4, gamma=0.5, product_order=3, schema=schema, **FAST).fit(X)
    mechanism = dphp.mechanism_
    assert (mechanism.order, mechanism.gamma, mechanism.product_order) == (4, 0.5, 3)
    assert mechanism.product_kernel == "pairwise"  # "auto" resolved on a table
    assert dphp.features_ is mechanism.features_  # read from the part, not copied
    assert dphp.pairwise_features_ is mechanism.pairwise_
    marginal = MarginalSynthesizer(pair_cells=4, n_components=10, schema=schema,
                                   **FAST).fit(X)
    assert marginal.mechanism_.pair_cells == 4 and marginal.mechanism_.by_class is False
    assert marginal.features_ is marginal.mechanism_.features_
    assert marginal.bins_ == marginal.design_.encoding["bins"]
