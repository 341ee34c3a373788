"""A mechanism that learns in rounds is one class and a design, plus its registration.

``TwoRoundMeans`` below is a toy written the way a contributor would: its one
planned release, ``"means"`` (each class's mean embedding under random Fourier
features),
is a privacy filter spent in two rounds. The first round spends half of it
before training; when the model has converged on it, the second round reads
the model (how far its means still are from the first release, in units of
that release's noise: post-processing) and spends the rest, and training goes
on from where the model is. Registered, it fits and samples in Python and on
the command line, and the privacy report has a line per round.
"""

import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest
import torch

from skdpgen import registry
from skdpgen.base import estimator_init
from skdpgen.cli import main
from skdpgen.kernels import RandomFourierFeatures
from skdpgen.privacy import GaussianAccountant
from skdpgen.synthesizers import (BaseSynthesizer, Design, GeneratorSpec, Mechanism,
                                  feature_map_loss)
from skdpgen.synthesizers._shared import shared_constraints, shared_defaults

NAMES = ("epsilon", "delta", "schema", "bounds", "classes", "infer_schema", "schema_share",
         "on_guess", "label_share", "epochs", "steps_per_epoch", "random_state", "device",
         "verbose")


class TwoRoundMeans(Mechanism):
    """A mean embedding released in two rounds of one filter (sensitivity 2/n each)."""

    def setup(self, encoder, n_classes, epochs, rng):
        super().setup(encoder, n_classes, epochs, rng)
        self.features_ = RandomFourierFeatures(n_components=20, random_state=0).fit(
            np.zeros((1, encoder.n_encoded_)))
        self.rounds_, self.gaps_, self._steps = [], [], 0
        return self

    def budget_shares(self, epochs):
        return {"means": 1.0}

    def release(self, epoch, context):
        if epoch == 0:
            self._round(context, 0.5)

    def _round(self, context, fraction):
        name = context.accountant.open_round("means", fraction)
        self._release(context, name, self.features_, key=len(self.rounds_))
        self.rounds_.append(name)

    def converged(self, loss):
        self._steps += 1
        return self._steps % 20 == 0

    def next_round(self, network, context):
        if len(self.rounds_) == 2:
            return False
        with torch.no_grad():  # the model so far, against the first release
            z = torch.randn(256, 16, generator=torch.Generator().manual_seed(0))
            labels = torch.arange(256) % max(self.n_classes_, 1) if self.n_classes_ else None
            means = self.features_.raw_transform(network(z, labels)).mean(0)
        std = context.noise_std(self.rounds_[0], 2.0)
        self.gaps_.append(float((self._on_device[0].mean(0) - means).abs().max()) / std)
        self._round(context, context.accountant.round_left("means"))
        return True

    def loss(self, generated, labels):
        return sum(feature_map_loss(self._on_device[i], self.features_, generated, labels,
                                    self.n_classes_) for i in range(len(self.rounds_)))


class TwoRoundSynthesizer(BaseSynthesizer):
    """A toy synthesizer: the means in two rounds, matched by an MLP."""

    _parameter_constraints = shared_constraints(NAMES)
    __init__ = estimator_init(**shared_defaults(NAMES))

    def _design(self, shape, rng):
        return Design(TwoRoundMeans(), GeneratorSpec(kind="mlp", learning_rate=1e-2,
                                                     batch_size=64))


def _table(n=300):
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.uniform(0, 1, n), "b": rng.choice(["x", "y"], n)})
    y = np.where(X["a"] > 0.5, "hi", "lo")
    schema = {"a": {"type": "numeric", "bounds": [0, 1], "missing": False},
              "b": {"type": "categorical", "categories": ["x", "y"], "missing": False}}
    return X, y, schema


@pytest.fixture
def registered(monkeypatch):
    monkeypatch.setattr(registry, "_METHODS", dict(registry._METHODS))
    registry.register("two-rounds")(TwoRoundSynthesizer)
    return TwoRoundSynthesizer


def test_a_second_round_reads_the_model_and_is_a_line_of_the_report():
    X, y, schema = _table()
    synth = TwoRoundSynthesizer(schema=schema, classes=["hi", "lo"], epochs=2,
                                steps_per_epoch=40, random_state=0).fit(X, y)
    report = synth.privacy_report_
    assert sorted(r.name for r in report.releases) == ["label proportions",
                                                       "means, round 1", "means, round 2"]
    # the filter spent in full: the fit's budget exactly, composed
    assert report.is_private and report.epsilon == pytest.approx(1.0, rel=1e-6)
    rounds = {r.name: r.noise_multiplier for r in report.releases if "round" in r.name}
    assert rounds["means, round 1"] == pytest.approx(rounds["means, round 2"])
    mechanism = synth.mechanism_
    assert len(mechanism.gaps_) == 1 and math.isfinite(mechanism.gaps_[0])
    # the second round came after the first convergence, and training went on
    assert len(synth.loss_history_) == 40
    Xs, ys = synth.sample(50, random_state=0)
    assert list(Xs.columns) == ["a", "b"] and set(ys) <= {"hi", "lo"}


def test_a_registered_two_round_mechanism_runs_on_the_command_line(registered, tmp_path,
                                                                    capsys):
    X, y, schema = _table()
    X.assign(label=y).to_csv(tmp_path / "data.csv", index=False)
    (tmp_path / "schema.json").write_text(json.dumps(
        {**schema, "label": {"type": "categorical", "categories": ["hi", "lo"]}}))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        status = main(["synthesize", str(tmp_path / "data.csv"), "--method", "two-rounds",
                       "--target", "label", "--schema", str(tmp_path / "schema.json"),
                       "--out", str(tmp_path / "syn.csv"), "--quiet", "--random-state", "0"])
    assert status == 0, capsys.readouterr().err
    report = json.loads((tmp_path / "syn.privacy.json").read_text())
    names = [r["release"] for r in report["releases"]]
    assert "means, round 1" in names and "means, round 2" in names and report["is_private"]


# -- the filter: the accountant's side ---------------------------------------------


def test_a_filter_spends_at_most_its_share_and_composes_exactly():
    acc = GaussianAccountant(1.0, 1e-5, {"once": 0.4, "rounds": 0.6})
    acc.add_noise("once", np.zeros(3), sensitivity=1.0)
    fractions = [0.5, 0.3, 0.2]
    for f in fractions:
        name = acc.open_round("rounds", f)
        assert acc.noise_multipliers[name] == pytest.approx(
            acc.noise_multiplier_total / math.sqrt(0.6 * f))
        acc.add_noise(name, np.zeros(2), sensitivity=1.0)
    assert acc.round_left("rounds") == pytest.approx(0.0)
    with pytest.raises(RuntimeError, match="exceed its share"):
        acc.open_round("rounds", 0.01)
    report = acc.report()
    # the precisions add up to the whole budget's: (epsilon, delta) exactly
    assert sum(r.precision for r in report.releases) == pytest.approx(
        1.0 / acc.noise_multiplier_total ** 2)
    assert report.epsilon == pytest.approx(1.0, rel=1e-6)
    assert [r.name for r in report.releases][1:] == [f"rounds, round {i}" for i in (1, 2, 3)]


def test_a_filter_spent_in_part_reports_less_and_refuses_mixed_use():
    acc = GaussianAccountant(1.0, 1e-5, {"rounds": 1.0, "other": 1.0})
    name = acc.open_round("rounds", 0.25)
    acc.add_noise(name, np.zeros(1), sensitivity=1.0)
    assert acc.report().epsilon < 0.5
    with pytest.raises(RuntimeError, match="spent in rounds"):
        acc.add_noise("rounds", np.zeros(1), sensitivity=1.0)
    acc.add_noise("other", np.zeros(1), sensitivity=1.0)
    with pytest.raises(RuntimeError, match="made directly"):
        acc.open_round("other", 0.5)
    with pytest.raises(RuntimeError, match="exceed"):
        acc.open_round("rounds", 0.0)
