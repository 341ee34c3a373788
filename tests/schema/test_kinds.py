"""A column kind is one file: a toy kind registered in this module alone fits and
samples end to end (issue 41: "A toy column kind added in one test module fits
and samples end to end"), and is evaluated, in Python and on the command line
(issue 64: "a registered kind works in ``skdpgen evaluate``")."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest

from skdpgen import DPHPSynthesizer
from skdpgen._canonical import canonical
from skdpgen.schema import (ColumnCodec, ColumnKind, kind_of, register_kind, schema_types,
                            unregister_kind)
from skdpgen.schema.kinds import KINDS
from skdpgen.schema.kinds._kind import one_hot_rows


class _ParityCodec(ColumnCodec):
    """Integers as a two-slot block, even or odd (anything else: even)."""

    width = 2

    def encode(self, column):
        numbers = canonical(column).numbers()
        odd = np.nan_to_num(numbers) % 2 == 1
        return None, one_hot_rows(odd.astype(np.intp), 2), None

    def decode(self, numeric, code, missing, offset, is_frame):
        return pd.Categorical.from_codes(np.asarray(code), dtype=self.kind.output_dtype(self.spec))


class ParityKind(ColumnKind):
    """A toy kind: a column written back as "even" or "odd"."""

    name = type = "parity"

    def check_spec(self, key, spec):
        return {"type": "parity"}

    def output_dtype(self, spec):
        return pd.CategoricalDtype(["even", "odd"])

    def codec(self, key, spec, **options):
        codec = _ParityCodec(key, spec)
        codec.kind = self
        return codec

    def read_values(self, key, canon, spec):
        """For the data holder's evaluation: numbers as their parity, and the
        words as they are (the default reads every value as its key)."""
        numbers = canon.numbers()
        values, _, _ = super().read_values(key, canon, spec)
        values = np.where(np.isnan(numbers), values, np.where(numbers % 2 == 1, "odd", "even"))
        return values.astype(object), None, ["even", "odd"]


@pytest.fixture
def parity():
    kind = register_kind(ParityKind())
    yield kind
    assert unregister_kind(kind.name) is kind  # the registry as it was
    assert "parity" not in schema_types()


def test_a_kind_registered_in_one_module_fits_samples_and_is_evaluated(parity, tmp_path,
                                                                       capsys):
    """Fitted and sampled in Python and on the command line, then evaluated by
    both (issue 64: ``evaluate_tables`` raised "Unknown kind 'parity'")."""
    from skdpgen.cli import main
    from skdpgen.evaluation import evaluate_tables

    assert "parity" in schema_types()
    rng = np.random.default_rng(0)
    n = 600
    X = pd.DataFrame({"age": rng.integers(20, 60, n), "house": 2 * rng.integers(0, 50, n)})
    X.loc[rng.random(n) < 0.3, "house"] += 1  # 30 % odd
    y = rng.integers(0, 2, n)
    schema = {"age": {"type": "numeric", "bounds": [20, 60], "integer": True},
              "house": {"type": "parity"}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synth = DPHPSynthesizer(schema=schema, classes=[0, 1], epochs=2, random_state=0,
                                epsilon=10.0).fit(X, y)
    Xs, ys = synth.sample(400, random_state=0)
    assert Xs["house"].dtype == pd.CategoricalDtype(["even", "odd"])
    assert 0.15 < (Xs["house"] == "odd").mean() < 0.45
    # evaluated against the real table: the kind reads both (integers, words)
    result = evaluate_tables(X.assign(label=y), Xs.assign(label=ys), target="label",
                             schema=schema)
    assert result.kinds == {"age": "numeric", "house": "parity", "label": "numeric"}
    assert result.tv_columns["house"] < 0.15  # 30 % odd against 15-45 %
    # the command line takes the type in a schema file and names it in its words
    X.assign(label=y).to_csv(tmp_path / "t.csv", index=False)
    (tmp_path / "s.json").write_text(json.dumps(
        {**schema, "label": {"type": "categorical", "categories": [0, 1]}}))
    assert main(["synthesize", str(tmp_path / "t.csv"), "--schema", str(tmp_path / "s.json"),
                 "--target", "label", "--epsilon", "10", "--out", str(tmp_path / "o.csv"),
                 "--quiet"]) == 0
    assert set(pd.read_csv(tmp_path / "o.csv")["house"]) <= {"even", "odd"}
    capsys.readouterr()
    assert main(["evaluate", str(tmp_path / "t.csv"), str(tmp_path / "o.csv"), "--schema",
                 str(tmp_path / "s.json"), "--target", "label", "--json", "--quiet"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["kinds"]["house"] == "parity"
    assert report["fidelity"]["tv_1way_columns"]["house"] < 0.15


def test_every_question_about_a_registered_column_is_asked_of_its_kind(parity):
    """The data holder's diagnostics, the encoder's questions and a partial
    spec's kind, for a kind that only the registry knows."""
    from skdpgen.schema import check_table, encodes_as_levels, partial_kind, read_column

    real = pd.DataFrame({"house": [3, "4", 4.0, None, "odd", "x"]})
    read = read_column(real["house"], {"type": "parity"})
    assert read.kind == "parity" and read.levels == ["even", "odd"]
    assert read.values[:3].tolist() == ["odd", "even", "even"]
    assert read.values[4:].tolist() == ["odd", "x"] and pd.isna(read.values[3])
    assert read_column(real["house"], kind="parity").values[0] == "odd"
    # the default check: missing values absent (imputed), nothing clipped or unlisted
    assert check_table(real, {"house": {"type": "parity"}}).loc["house"].tolist() == [
        1, 1, 0, 0, 0]
    assert not encodes_as_levels({"type": "parity"}, 100)
    assert partial_kind({"type": "parity"}) is None  # declared complete: no release
    assert kind_of({"type": "parity"}).written_as({}) == "parity values"


def test_the_kind_registry_is_public():
    import skdpgen.schema as schema

    assert {"ColumnCodec", "ColumnKind", "register_kind", "unregister_kind",
            "schema_types"} <= set(schema.__all__)
    numeric = kind_of("numeric")
    assert isinstance(numeric, schema.ColumnKind)
    codec = numeric.codec("x", {"type": "numeric", "bounds": [0, 1]})
    assert isinstance(codec, schema.ColumnCodec)
    with pytest.raises(ValueError, match="No column kind named 'parity'"):
        unregister_kind("parity")


def test_a_kind_is_registered_once():
    with pytest.raises(ValueError, match="already registered"):
        register_kind(KINDS["numeric"])


def test_kind_of_answers_what_code_outside_the_schema_asks(parity):
    answers = {name: (kind.is_numeric, kind.is_bounded, kind.has_categories)
               for name, kind in KINDS.items()}
    assert answers == {"numeric": (True, True, False), "datetime": (False, True, False),
                       "categorical": (False, False, True), "bool": (False, False, True),
                       "time": (False, True, False),
                       "text": (False, False, False), "parity": (False, False, False)}
    assert kind_of({"type": "parity"}) is parity
    assert kind_of({"type": "categorical", "categories": [False, True]}) is KINDS["bool"]
    assert kind_of({"type": "categorical", "categories": ["a", "b"]}) is KINDS["categorical"]
    assert kind_of({"type": "categorical"}) is KINDS["categorical"]  # type-only
    assert kind_of({"type": "bool"}) is kind_of("bool") is KINDS["bool"]
    with pytest.raises(ValueError, match="Unknown column kind 'money'"):
        kind_of({"type": "money"})


def test_the_datetime_statistic_has_its_stated_sensitivity_on_any_pair_of_records():
    """``DatetimeKind.statistic``'s Notes: replace-one Δ = √3 with the weighted
    counts not on a month's first day, not at midnight and not on the hour,
    attained. Every pair of records among a month's first day, midnight, on
    the hour, off the hour, other years, a missing value and text."""
    from skdpgen.schema.kinds._datetime import DatetimeKind

    kind = DatetimeKind()
    context = type("Context", (), {"partial": {}})()
    records = ["2031-07-01", "2031-07-04", "2031-07-04 13:00", "2031-07-04 12:30",
               "1950-01-02 00:00:01", "2099-12-01", "2099-12-31 23:00", None, "not a date"]
    base = ["2000-01-01"] * 5

    def statistic(record):
        return np.asarray(kind.statistic(canonical(pd.Series(base + [record], dtype=object)),
                                         context))

    stats = [statistic(r) for r in records]
    distances = [np.linalg.norm(a - b) for a in stats for b in stats]
    assert max(distances) <= np.sqrt(3) + 1e-12
    assert max(distances) == pytest.approx(np.sqrt(3))
