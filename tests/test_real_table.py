"""A raw table, a budget, nothing else: the common case is private and complete.

The first test is issue 13's "done when" example, verbatim: a DataFrame with
numeric columns (one with 10 % missing values), an integer column, a datetime
column, a boolean column, string categories and string labels, no schema,
default hyperparameters.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

from skdpgen import DPHPSynthesizer, DPMERFSynthesizer, PrivacyLeakWarning
from skdpgen.schema import kinds_from_dtypes

N_ROWS = 6000
MISSING_RATE = 0.10


def raw_table(n=N_ROWS, seed=0):
    rng = np.random.default_rng(seed)
    income = rng.lognormal(10.0, 0.6, n)
    income[rng.random(n) < MISSING_RATE] = np.nan
    df = pd.DataFrame({
        "income": income,
        "score": rng.normal(50.0, 10.0, n),
        "age": rng.integers(18, 90, n),
        "joined": pd.to_datetime("2020-01-01")
        + pd.to_timedelta(rng.integers(0, 5 * 365, n), unit="D"),
        "member": rng.random(n) < 0.4,
        "city": rng.choice(["Lyon", "Oslo", "Porto", "Turin"], n, p=[0.4, 0.3, 0.2, 0.1]),
    })
    y = np.where(df["score"] + rng.normal(0, 5, n) > 50, "high", "low")
    return df, y


@pytest.mark.parametrize("cls", [DPHPSynthesizer, DPMERFSynthesizer], ids=["dphp", "dpmerf"])
def test_raw_table_with_defaults_is_private_and_complete(cls):
    df, y = raw_table()
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        synth = cls(random_state=0).fit(df, y, epsilon=1.0)
    report = synth.privacy_report_
    assert report.leaks == () and report.is_private
    assert report.epsilon == pytest.approx(1.0, abs=1e-6)
    # no dtype is public: every column's kind is estimated privately ("schema: kinds"),
    # then the statistic of its kind ("schema: values"), and the class list
    counts = {r.name: r.count for r in report.releases}
    assert {k: v for k, v in counts.items() if k.startswith("schema")} == {
        "schema: kinds": 6, "schema: values": 6, "schema: classes": 1}
    assert report.selection_delta > 0  # the partition selections' share of delta

    X_syn, y_syn = synth.sample(20_000, random_state=0)
    assert list(X_syn.columns) == list(df.columns)
    assert pd.api.types.is_datetime64_any_dtype(X_syn["joined"])
    assert X_syn["member"].dtype == bool
    assert pd.api.types.is_integer_dtype(X_syn["age"])
    assert pd.api.types.is_float_dtype(X_syn["income"])
    assert pd.api.types.is_float_dtype(X_syn["score"])
    assert isinstance(X_syn["city"].dtype, pd.CategoricalDtype)
    assert set(X_syn["city"].cat.categories) <= {"Lyon", "Oslo", "Porto", "Turin", "other"}
    assert {"Lyon", "Oslo", "Porto", "Turin"} <= set(X_syn["city"].cat.categories)
    assert set(np.unique(y_syn)) <= {"high", "low", "other"}
    # missingness is learned jointly and decoded back to NaN at the learned rate
    assert synth.schema_["income"]["missing"] is True
    real_rate = float(df["income"].isna().mean())
    assert abs(float(X_syn["income"].isna().mean()) - real_rate) <= 0.03
    assert not X_syn[["score", "age", "joined", "member"]].isna().any().any()


def test_dtypes_declared_public_skip_the_kind_release():
    """kinds_from_dtypes: the dtypes' kinds declared, only their statistics estimated."""
    df, y = raw_table()
    kinds = kinds_from_dtypes(df)
    assert "city" not in kinds  # object: its kind stays private
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        synth = DPHPSynthesizer(schema=kinds, epochs=1, steps_per_epoch=5,
                                random_state=0).fit(df, y, epsilon=1.0)
    report = synth.privacy_report_
    assert report.leaks == () and report.is_private
    assert report.epsilon == pytest.approx(1.0, abs=1e-6)
    counts = {r.name: r.count for r in report.releases}
    assert {k: v for k, v in counts.items() if k.startswith("schema")} == {
        "schema: numeric": 3, "schema: datetime": 1, "schema: missing": 1,
        "schema: kinds": 1, "schema: values": 1, "schema: classes": 1}
    assert [synth.schema_[c]["type"] for c in df.columns] == [
        "numeric", "numeric", "numeric", "datetime", "categorical", "categorical"]
    assert synth.schema_["member"]["categories"] == [False, True]
    assert synth.schema_["income"]["missing"] is True


def test_infer_schema_data_leaks_and_error_names_the_columns():
    df, y = raw_table(n=500)
    fast = dict(epochs=1, steps_per_epoch=2, random_state=0)
    with pytest.warns(PrivacyLeakWarning):
        synth = DPHPSynthesizer(infer_schema="data", **fast).fit(df, y)
    leaked = {leak.what for leak in synth.privacy_report_.leaks}
    assert leaked and not synth.privacy_report_.is_private
    with pytest.raises(ValueError, match="income.*joined|joined.*income") as info:
        DPHPSynthesizer(infer_schema="error", **fast).fit(df, y)
    assert "city" in str(info.value)
