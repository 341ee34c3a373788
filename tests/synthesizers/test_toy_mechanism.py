"""A new mechanism is one class and a design, plus its registration.

``MeansMechanism`` below is a toy written the way a contributor would: it
releases one thing (each class's mean of the encoded rows, scaled to norm at
most 1) and scores a batch against it. ``MeansSynthesizer`` composes it with
an MLP generator in one ``_design``; registered, it fits and samples in
Python and on the command line with everything else of the library (the
schema, the budget, the report, the CSV reader) unchanged.
"""

import json
import warnings

import numpy as np
import pandas as pd
import pytest
import torch

from skdpgen import registry
from skdpgen.base import estimator_init
from skdpgen.cli import main
from skdpgen.kernels import BoundedFeatureMap
from skdpgen.synthesizers import (BaseSynthesizer, Design, GeneratorSpec, Mechanism,
                                  feature_map_loss)
from skdpgen.synthesizers._shared import shared_constraints, shared_defaults


class ScaledRows(BoundedFeatureMap):
    """The encoded row divided by ``sqrt(width)``: norm at most 1 (values in [-1, 1])."""

    supports_torch = True

    def __init__(self):
        pass

    def fit(self, X, y=None):
        self.n_features_in_ = np.asarray(X).shape[1]
        return self

    def raw_transform(self, X):
        scale = 1.0 / np.sqrt(self.n_features_in_)
        if isinstance(X, torch.Tensor):
            return X * scale
        return np.asarray(X, dtype=float) * scale

    @property
    def n_features_out_(self):
        return self.n_features_in_


class MeansMechanism(Mechanism):
    """Releases each class's mean of the scaled encoded rows (sensitivity 2/n)."""

    def setup(self, encoder, n_classes, epochs, rng):
        super().setup(encoder, n_classes, epochs, rng)
        self.features_ = ScaledRows().fit(np.zeros((1, encoder.n_encoded_)))
        return self

    def budget_shares(self, epochs):
        return {"means": 1.0}

    def release(self, epoch, context):
        if epoch == 0:
            self._release(context, "means", self.features_)

    def loss(self, generated, labels):
        return feature_map_loss(self._on_device["means"], self.features_, generated, labels,
                                self.n_classes_)


NAMES = ("epsilon", "delta", "schema", "bounds", "classes", "infer_schema", "schema_share",
         "on_guess", "label_share", "epochs", "steps_per_epoch", "random_state", "device",
         "verbose")


class MeansSynthesizer(BaseSynthesizer):
    """A toy synthesizer: the means, matched by an MLP."""

    _parameter_constraints = shared_constraints(NAMES)
    __init__ = estimator_init(**shared_defaults(NAMES))

    def _design(self, shape, rng):
        return Design(MeansMechanism(), GeneratorSpec(kind="mlp", learning_rate=1e-2,
                                                      batch_size=64))


@pytest.fixture
def registered(monkeypatch):
    monkeypatch.setattr(registry, "_METHODS", dict(registry._METHODS))
    registry.register("means")(MeansSynthesizer)
    return MeansSynthesizer


def _table(n=300):
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.uniform(0, 1, n), "b": rng.choice(["x", "y"], n)})
    y = np.where(X["a"] > 0.5, "hi", "lo")
    schema = {"a": {"type": "numeric", "bounds": [0, 1], "missing": False},
              "b": {"type": "categorical", "categories": ["x", "y"], "missing": False}}
    return X, y, schema


def test_a_toy_mechanism_fits_and_samples_in_python():
    X, y, schema = _table()
    synth = MeansSynthesizer(schema=schema, classes=["hi", "lo"], epochs=2,
                             steps_per_epoch=20, random_state=0).fit(X, y)
    names = [r.name for r in synth.privacy_report_.releases]
    assert names == ["means", "label proportions"]
    assert synth.privacy_report_.is_private
    assert synth.privacy_report_.epsilon == pytest.approx(1.0, rel=1e-6)
    Xs, ys = synth.sample(50, random_state=0)
    assert list(Xs.columns) == ["a", "b"] and set(ys) <= {"hi", "lo"}
    assert Xs["a"].between(0, 1).all()


def test_a_registered_toy_mechanism_runs_on_the_command_line(registered, tmp_path, capsys):
    X, y, schema = _table()
    X.assign(label=y).to_csv(tmp_path / "data.csv", index=False)
    (tmp_path / "schema.json").write_text(json.dumps(
        {**schema, "label": {"type": "categorical", "categories": ["hi", "lo"]}}))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        status = main(["synthesize", str(tmp_path / "data.csv"), "--method", "means",
                       "--target", "label", "--schema", str(tmp_path / "schema.json"),
                       "--out", str(tmp_path / "syn.csv"), "--quiet", "--random-state", "0"])
    assert status == 0, capsys.readouterr().err
    out = pd.read_csv(tmp_path / "syn.csv")
    assert list(out.columns) == ["a", "b", "label"] and len(out) == 300
    report = json.loads((tmp_path / "syn.privacy.json").read_text())
    assert report["is_private"] and report["releases"][0]["release"] == "means"
