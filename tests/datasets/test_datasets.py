"""Tests of skdpgen.datasets: the bundled Adult data and its public schema."""

import gzip
import hashlib
import json
from importlib import resources

import numpy as np
import pandas as pd
import pytest
from sklearn.utils import Bunch

from skdpgen.datasets import adult_schema, load_adult

COLUMNS = [
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education-num",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
    "native-country",
    "income",
]
FEATURES = COLUMNS[:-1]
NUMERIC = ["age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week"]
N_ROWS = {"train": 32_561, "test": 16_281}
SHA256 = {
    "adult.data.gz": "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
    "adult.test.gz": "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
}


@pytest.fixture(scope="module", params=["train", "test"])
def split_bunch(request):
    return request.param, load_adult(split=request.param)


@pytest.fixture(scope="module")
def both():
    return load_adult(split="train"), load_adult(split="test")


# --------------------------------------------------------------------------- schema


def test_schema_is_a_hard_coded_constant():
    schema = adult_schema()
    assert list(schema) == COLUMNS
    # Written from adult.names and public census conventions, not from rows.
    assert schema["age"] == {"type": "numeric", "bounds": [17, 90], "integer": True}
    assert schema["fnlwgt"] == {"type": "numeric", "bounds": [0, 1_600_000], "integer": True}
    assert schema["education-num"] == {"type": "numeric", "bounds": [1, 16], "integer": True}
    assert schema["capital-gain"] == {"type": "numeric", "bounds": [0, 99_999], "integer": True}
    assert schema["capital-loss"] == {"type": "numeric", "bounds": [0, 5_000], "integer": True}
    assert schema["hours-per-week"] == {"type": "numeric", "bounds": [1, 99], "integer": True}
    assert schema["sex"] == {"type": "categorical", "categories": ["Female", "Male"]}
    assert schema["race"]["categories"] == [
        "White",
        "Asian-Pac-Islander",
        "Amer-Indian-Eskimo",
        "Other",
        "Black",
    ]
    assert schema["workclass"]["categories"] == [
        "Private",
        "Self-emp-not-inc",
        "Self-emp-inc",
        "Federal-gov",
        "Local-gov",
        "State-gov",
        "Without-pay",
        "Never-worked",
        "?",
    ]
    assert schema["income"] == {"type": "categorical", "categories": ["<=50K", ">50K"]}
    assert [c for c, s in schema.items() if s["type"] == "numeric"] == NUMERIC


def test_schema_missing_category_only_where_documented():
    schema = adult_schema()
    with_missing = [
        c for c, s in schema.items() if s["type"] == "categorical" and "?" in s["categories"]
    ]
    assert with_missing == ["workclass", "occupation", "native-country"]
    for c in with_missing:
        assert schema[c]["categories"][-1] == "?"
    assert len(schema["education"]["categories"]) == 16  # justifies education-num [1, 16]
    assert len(schema["native-country"]["categories"]) == 42  # 41 countries + "?"


def test_schema_categories_match_adult_names():
    # The category lists are those of the documentation, in its order.
    text = resources.files("skdpgen.datasets").joinpath("data", "adult.names").read_text()
    documented = {}
    for line in text.splitlines():
        if ":" in line and not line.startswith("|") and line.rstrip().endswith("."):
            name, values = line.split(":", 1)
            values = values.strip().rstrip(".")
            if values != "continuous":
                documented[name.strip()] = [v.strip() for v in values.split(",")]
    schema = adult_schema()
    cats = {
        c: [v for v in s["categories"] if v != "?"]
        for c, s in schema.items()
        if s["type"] == "categorical" and c != "income"
    }
    assert cats == documented
    numeric_documented = [
        line.split(":")[0] for line in text.splitlines() if line.endswith(": continuous.")
    ]
    assert numeric_documented == NUMERIC


def test_schema_is_json_serializable():
    schema = adult_schema()
    assert json.loads(json.dumps(schema)) == schema


def test_schema_does_not_read_the_data(monkeypatch):
    # The schema must not depend on the rows: even with the data unreadable it
    # is the same constant.
    expected = adult_schema()

    def fail(*args, **kwargs):
        raise AssertionError("adult_schema read a data file")

    monkeypatch.setattr(pd, "read_csv", fail)
    monkeypatch.setattr(gzip, "open", fail)
    assert adult_schema() == expected


def test_schema_returns_a_fresh_copy():
    schema = adult_schema()
    schema["age"]["bounds"][1] = 1000
    schema["workclass"]["categories"].append("Leaked")
    del schema["sex"]
    fresh = adult_schema()
    assert fresh["age"]["bounds"] == [17, 90]
    assert "Leaked" not in fresh["workclass"]["categories"]
    assert "sex" in fresh


# --------------------------------------------------------------------------- load_adult


def test_bundled_files_are_unchanged():
    data = resources.files("skdpgen.datasets").joinpath("data")
    for name, digest in SHA256.items():
        with data.joinpath(name).open("rb") as f:
            assert hashlib.sha256(gzip.decompress(f.read())).hexdigest() == digest


def test_bunch_contents(split_bunch):
    split, b = split_bunch
    assert isinstance(b, Bunch)
    n = N_ROWS[split]
    assert b.frame.shape == (n, 15)
    assert b.data.shape == (n, 14)
    assert b.target.shape == (n,)
    assert list(b.frame.columns) == COLUMNS
    assert list(b.data.columns) == FEATURES
    assert b.feature_names == FEATURES
    assert b.target.name == "income"
    full = adult_schema()
    assert b.target_schema == full.pop("income")
    assert b.schema == full
    assert list(b.schema) == FEATURES
    assert b.DESCR.startswith("| This data was extracted from the census bureau database")
    assert "native-country: United-States" in b.DESCR
    pd.testing.assert_frame_equal(b.frame[FEATURES], b.data)
    pd.testing.assert_series_equal(b.frame["income"], b.target)


def test_dtypes_and_categories(split_bunch):
    _, b = split_bunch
    schema = adult_schema()
    for col in COLUMNS:
        values, spec = b.frame[col], schema[col]
        if spec["type"] == "numeric":
            assert values.dtype == np.int64, col
        else:
            assert isinstance(values.dtype, pd.CategoricalDtype), col
            assert list(values.cat.categories) == spec["categories"], col
            assert not values.cat.ordered


def test_categories_identical_across_splits(both):
    train, test = both
    for col in COLUMNS:
        assert train.frame[col].dtype == test.frame[col].dtype, col


def test_no_nan_and_missing_kept_as_category(split_bunch):
    _, b = split_bunch
    assert not b.frame.isna().any().any()
    for col in ["workclass", "occupation", "native-country"]:
        assert (b.data[col] == "?").sum() > 0, col


def test_numeric_values_within_public_bounds(split_bunch):
    # Checked after the bounds were chosen from public knowledge: no row of
    # either split falls outside them (the loader does not clip).
    _, b = split_bunch
    for col, spec in b.schema.items():
        if spec["type"] == "numeric":
            lo, hi = spec["bounds"]
            assert b.data[col].between(lo, hi).all(), col


def test_target_values(both):
    train, test = both
    assert train.target.value_counts().to_dict() == {"<=50K": 24_720, ">50K": 7_841}
    assert test.target.value_counts().to_dict() == {"<=50K": 12_435, ">50K": 3_846}
    for b in both:  # the trailing "." of the test labels is stripped
        assert list(b.target.cat.categories) == ["<=50K", ">50K"]
        assert not b.target.astype(str).str.endswith(".").any()


def test_first_rows_parsed():
    X, y = load_adult(split="test", return_X_y=True)
    # The comment line of adult.test is skipped; first record of the file.
    assert X.iloc[0]["age"] == 25
    assert X.iloc[0]["education"] == "11th"
    assert X.iloc[0]["native-country"] == "United-States"
    assert y.iloc[0] == "<=50K"


@pytest.mark.parametrize("split", ["train", "test"])
def test_return_X_y(split, both):
    X, y = load_adult(split=split, return_X_y=True)
    b = both[0] if split == "train" else both[1]
    pd.testing.assert_frame_equal(X, b.data)
    pd.testing.assert_series_equal(y, b.target)


@pytest.mark.parametrize("split", ["validation", "Train", "all", None, 0])
def test_bad_split(split):
    with pytest.raises(ValueError, match="split"):
        load_adult(split=split)


def test_keyword_only():
    with pytest.raises(TypeError):
        load_adult("train")
