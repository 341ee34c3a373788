"""TableEncoder: the public, data-independent encoding of mixed-type tables."""

import contextlib
import warnings

import numpy as np
import pandas as pd
import pytest

from skdpgen.privacy import PrivacyLeakWarning
from skdpgen.schema import TableEncoder, kinds_from_dtypes, numeric_schema, output_dtype

SCHEMA = {
    "age": {"type": "numeric", "bounds": [17, 90], "integer": True},
    "income": {"type": "numeric", "bounds": [0.0, 1e5]},
    "size": {"type": "categorical", "categories": ["S", "M", "L"], "ordered": True},
    "city": {"type": "categorical", "categories": ["A", "B", "C"]},
    "member": {"type": "categorical", "categories": [False, True]},
}


def make_frame(n=60, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(17, 91, n),
            "income": rng.uniform(0, 1e5, n),
            "size": rng.choice(["S", "M", "L"], n),
            "city": rng.choice(["A", "B", "C"], n),
            "member": rng.random(n) < 0.3,
        }
    )


@contextlib.contextmanager
def no_leaks():
    """Fail on any PrivacyLeakWarning inside the block."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        yield


def fit_quietly(encoder, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        return encoder.fit(X)


def decode_encoding(encoder, Z):
    """Decode an encoding back (one-hot blocks to codes by argmax)."""
    p = encoder.n_numeric_
    offsets = np.concatenate([[p], p + np.cumsum(encoder.category_sizes_)]).astype(int)
    codes = [Z[:, a:b].argmax(1) for a, b in zip(offsets[:-1], offsets[1:])]
    return encoder.decode(Z[:, :p], codes)


# ---------------------------------------------------------------------------
# encoding
# ---------------------------------------------------------------------------


def test_numeric_values_are_clipped_to_the_bounds():
    values = np.array([-5.0, 0.0, 2.5, 10.0, 15.0, 1e300, -1e300, np.finfo(np.float64).max])
    X = pd.DataFrame({"x": values})
    schema = {"x": {"type": "numeric", "bounds": [0, 10]}}
    with no_leaks():
        enc = TableEncoder(schema).fit(X)
    Z = enc.transform(X)
    # below the bounds -> exactly -1, above -> exactly +1, inside: linear
    np.testing.assert_array_equal(Z[:, 0], [-1.0, -1.0, -0.5, 1.0, 1.0, 1.0, -1.0, 1.0])
    # the same through the bounds= parameter, for arrays
    arr = TableEncoder(bounds=(0, 10)).fit(values[:, None])
    np.testing.assert_array_equal(arr.transform(values[:, None]), Z)


def test_encoding_layout_is_numeric_block_then_one_hot_blocks():
    X = make_frame(5)
    with no_leaks():
        enc = TableEncoder(SCHEMA).fit(X)
    assert enc.n_numeric_ == 2 and enc.category_sizes_ == [3, 3, 2]
    Z = enc.transform(X)
    assert Z.shape == (5, 2 + 3 + 3 + 2) and enc.n_encoded_ == Z.shape[1]
    np.testing.assert_allclose(Z[:, 0], 2 * (X["age"] - 17) / 73 - 1, rtol=0, atol=1e-15)
    np.testing.assert_allclose(Z[:, 1], 2 * X["income"] / 1e5 - 1, rtol=0, atol=1e-15)
    for block, col, cats in ((Z[:, 2:5], "size", ["S", "M", "L"]),
                             (Z[:, 5:8], "city", ["A", "B", "C"]),
                             (Z[:, 8:10], "member", [False, True])):
        assert set(np.unique(block)) <= {0.0, 1.0}
        np.testing.assert_array_equal(block.sum(1), 1.0)
        # the one-hot position is the category's position in the schema
        np.testing.assert_array_equal(np.asarray(cats, dtype=object)[block.argmax(1)],
                                      X[col].to_numpy(dtype=object))


def test_exact_encode_decode_round_trip():
    X = make_frame()
    with no_leaks():
        enc = TableEncoder(SCHEMA).fit(X)
    back = decode_encoding(enc, enc.transform(X))
    assert list(back.columns) == list(X.columns)
    # whole numbers, categories and booleans come back exactly
    np.testing.assert_array_equal(back["age"].to_numpy(), X["age"].to_numpy())
    for col in ("size", "city", "member"):
        np.testing.assert_array_equal(back[col].to_numpy(dtype=object),
                                      X[col].to_numpy(dtype=object))
    # floats to the output step, a ten-thousandth of the width (here 10)
    np.testing.assert_array_equal(back["income"], np.round(X["income"] / 10) * 10)
    # the bounds themselves map to ±1 and back to themselves
    edges = pd.DataFrame({"age": [17, 90], "income": [0.0, 1e5], "size": ["S", "L"],
                          "city": ["A", "C"], "member": [False, True]})
    Z = enc.transform(edges)
    np.testing.assert_array_equal(Z[:, :2], [[-1.0, -1.0], [1.0, 1.0]])
    back = decode_encoding(enc, Z)
    np.testing.assert_array_equal(back["income"], [0.0, 1e5])
    np.testing.assert_array_equal(back["age"], [17, 90])


def test_decode_clips_to_the_bounds_and_rounds_integer_columns():
    X = make_frame(10)
    with no_leaks():
        enc = TableEncoder(SCHEMA).fit(X)
    # age: -1 -> 17, +1 -> 90; 17 + 73 (u + 1)/2 for u = -0.9 is 20.65 -> 21,
    # for u = -0.91 it is 20.285 -> 20; beyond [-1, 1] clipped to the bounds
    numeric = np.array([[-1.0, -1.0], [1.0, 1.0], [-0.9, 0.0], [-0.91, 0.5],
                        [-7.0, -3.0], [5.0, 2.0]])
    codes = [np.array([0, 1, 2, 0, 1, 2]), np.array([2, 1, 0, 0, 1, 2]),
             np.array([0, 1, 1, 0, 0, 1])]
    out = enc.decode(numeric, codes)
    assert out["age"].dtype == np.int64
    assert out["age"].tolist() == [17, 90, 21, 20, 17, 90]
    assert out["income"].dtype == np.float64
    np.testing.assert_allclose(out["income"], [0.0, 1e5, 5e4, 7.5e4, 0.0, 1e5], rtol=1e-15)
    assert out["size"].tolist() == ["S", "M", "L", "S", "M", "L"]
    assert out["city"].tolist() == ["C", "B", "A", "A", "B", "C"]
    assert out["member"].tolist() == [False, True, True, False, False, True]
    assert isinstance(out.index, pd.RangeIndex) and len(out) == 6


def test_integer_rounding_for_arrays():
    X = np.array([[1.0, 0.5], [3.0, 0.25]])
    schema = {0: {"type": "numeric", "bounds": [0, 10], "integer": True},
              1: {"type": "numeric", "bounds": [0, 1]}}
    with no_leaks():
        enc = TableEncoder(schema).fit(X)
    out = enc.decode(np.array([[-0.33, -0.33], [0.13, 0.13]]), [])
    assert isinstance(out, np.ndarray) and out.dtype == np.float64
    # 10 (u + 1)/2: 3.35 -> 3 and 5.65 -> 6; the second column is not rounded
    np.testing.assert_array_equal(out[:, 0], [3.0, 6.0])
    np.testing.assert_allclose(out[:, 1], [0.335, 0.565], rtol=1e-14)


def test_booleans():
    X = pd.DataFrame({"flag": [True, False, True, True], "x": [0.1, 0.2, 0.3, 0.4]})
    schema = {"flag": {"type": "categorical", "categories": [False, True]},
              "x": {"type": "numeric", "bounds": [0, 1]}}
    # declared [False, True]: no leak, a bool output dtype
    with no_leaks():
        enc = TableEncoder(schema).fit(X)
    assert enc.leaks_ == []
    assert enc.specs_[0] == {"type": "categorical", "categories": [False, True]}
    assert enc.dtypes_[0] == np.dtype(bool)
    Z = enc.transform(X)
    np.testing.assert_array_equal(Z[:, 1:], [[0, 1], [1, 0], [0, 1], [0, 1]])
    back = decode_encoding(enc, Z)
    assert back["flag"].dtype == bool
    assert back["flag"].tolist() == [True, False, True, True]
    # bools written as text are the same values (canonical forms, not Python types)
    as_text = X.assign(flag=["True", "FALSE", " true", "TRUE"])
    np.testing.assert_array_equal(enc.transform(as_text), Z)
    # left out of the schema: the bool dtype is not public, so the kind is read from
    # the values (a leak), and the column comes out as the declared one does
    with pytest.warns(PrivacyLeakWarning, match="'flag'"):
        read = TableEncoder({"x": schema["x"]}).fit(X)
    assert [leak.column for leak in read.leaks_] == ["flag"]
    assert read.specs_[0]["type"] == "categorical"
    assert read.specs_[0]["categories"] == [False, True]
    assert read.dtypes_ == enc.dtypes_
    np.testing.assert_array_equal(read.transform(X), Z)
    # bounds= declares every column the schema leaves out numeric: bools are 0 and 1
    with no_leaks():
        numeric = TableEncoder(bounds=(0, 1)).fit(X)
    assert numeric.leaks_ == []
    assert [s["type"] for s in numeric.specs_] == ["numeric", "numeric"]
    assert numeric.dtypes_ == [np.dtype(np.float64)] * 2
    np.testing.assert_array_equal(numeric.transform(X)[:, 0], [1.0, -1.0, 1.0, 1.0])
    # a value that is not a bool (or a missing one) is no error: without an "other"
    # category it is encoded as the first category, False
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        odd = enc.transform(X.assign(flag=["yes", "TRUE", None, 2]))
    np.testing.assert_array_equal(odd[:, 1:], [[1, 0], [0, 1], [1, 0], [1, 0]])


def test_ordered_categoricals():
    X = pd.DataFrame({"size": ["M", "S", "L", "M"], "x": [0.1, 0.2, 0.3, 0.4]})
    schema = {"size": {"type": "categorical", "categories": ["S", "M", "L"], "ordered": True},
              "x": {"type": "numeric", "bounds": [0, 1]}}
    with no_leaks():
        enc = TableEncoder(schema).fit(X)
    dtype = enc.dtypes_[0]
    assert isinstance(dtype, pd.CategoricalDtype) and dtype.ordered
    assert list(dtype.categories) == ["S", "M", "L"]
    out = enc.decode(np.zeros((3, 1)), [np.array([2, 0, 1])])
    assert out["size"].dtype == dtype
    assert out["size"].tolist() == ["L", "S", "M"]
    # the schema's order, not the alphabet's: L > M > S
    assert (out["size"] > "S").tolist() == [True, False, True]
    assert out["size"].max() == "L"
    # the order comes from the schema only: an ordered Categorical input does not make
    # a column ordered when the schema is silent on it (a dtype is not public)
    ordered_input = X.assign(size=pd.Categorical(X["size"], categories=["S", "M", "L"],
                                                 ordered=True))
    silent = {**schema, "size": {"type": "categorical", "categories": ["S", "M", "L"]}}
    with no_leaks():
        assert not TableEncoder(silent).fit(ordered_input).dtypes_[0].ordered
        np.testing.assert_array_equal(TableEncoder(silent).fit(ordered_input)
                                      .transform(ordered_input), enc.transform(X))
        # an explicit "ordered": false is unordered
        unordered = {**schema, "size": {**silent["size"], "ordered": False}}
        assert not TableEncoder(unordered).fit(ordered_input).dtypes_[0].ordered
        # unordered by default
        assert not TableEncoder(silent).fit(X).dtypes_[0].ordered
        # a user who knows the dtype is public declares its order with kinds_from_dtypes
        declared = kinds_from_dtypes(ordered_input)["size"]
        assert declared == {"type": "categorical", "ordered": True}
        from_dtype = {**silent, "size": {**declared, "categories": ["S", "M", "L"]}}
        assert TableEncoder(from_dtype).fit(ordered_input).dtypes_[0].ordered


def test_output_dtype_is_a_function_of_the_spec():
    assert output_dtype({"type": "numeric", "bounds": [0, 1], "integer": False}) == np.float64
    assert output_dtype({"type": "numeric", "bounds": [0, 1], "integer": True}) == np.int64
    assert output_dtype({"type": "categorical", "categories": [False, True]}) == np.dtype(bool)
    cat = output_dtype({"type": "categorical", "categories": ["b", "a"]})
    assert isinstance(cat, pd.CategoricalDtype)
    assert list(cat.categories) == ["b", "a"] and not cat.ordered
    ordered = output_dtype({"type": "categorical", "categories": ["b", "a"], "ordered": True})
    assert ordered.ordered and list(ordered.categories) == ["b", "a"]
    # numbers as categories stay categorical (not bool, not numeric)
    assert isinstance(output_dtype({"type": "categorical", "categories": [0, 1]}),
                      pd.CategoricalDtype)


def test_numpy_in_numpy_out_and_dataframe_in_dataframe_out():
    X = np.array([[1.0, 5.0], [2.0, 6.0], [3.0, 7.5]])
    with no_leaks():
        enc = TableEncoder(bounds=(0, 10)).fit(X)
    assert not enc.is_frame_ and enc.columns_ == [0, 1]
    Z = enc.transform(X)
    back = decode_encoding(enc, Z)
    assert isinstance(back, np.ndarray) and back.dtype == np.float64
    np.testing.assert_allclose(back, X, rtol=0, atol=1e-14)
    # a DataFrame of the right width is accepted as rows of an array fit
    np.testing.assert_array_equal(enc.transform(pd.DataFrame(X)), Z)
    # fitted on a DataFrame: a DataFrame comes back, and arrays are refused
    frame = pd.DataFrame(X, columns=["a", "b"])
    with no_leaks():
        fenc = TableEncoder(bounds=(0, 10)).fit(frame)
    assert fenc.is_frame_
    fback = decode_encoding(fenc, fenc.transform(frame))
    assert isinstance(fback, pd.DataFrame) and list(fback.columns) == ["a", "b"]
    assert (fback.dtypes == np.float64).all()
    np.testing.assert_allclose(fback.to_numpy(), X, rtol=0, atol=1e-14)
    with pytest.raises(ValueError, match="DataFrame"):
        fenc.transform(X)
    # a table without categorical columns decodes from the numeric block alone
    empty = TableEncoder({0: {"type": "categorical", "categories": [1.0, 2.0, 3.0]}}, bounds=(0, 10))
    with no_leaks():
        empty.fit(X)
    out = empty.decode(np.zeros((2, 1)), [np.array([2, 0])])
    np.testing.assert_array_equal(out, [[3.0, 5.0], [1.0, 5.0]])


# ---------------------------------------------------------------------------
# public dtypes and leaks
# ---------------------------------------------------------------------------


def test_neighbouring_tables_give_identical_output_dtypes():
    """3 vs 3.5 in one row: pandas infers int64 for one table and float64 for
    the other; the synthetic dtypes must not tell them apart."""
    a = pd.DataFrame({"x": [3, 4, 5, 6], "z": [1, 2, 3, 4]})
    b = a.assign(x=[3.5, 4, 5, 6])
    assert a["x"].dtype == np.int64 and b["x"].dtype == np.float64
    schemas = [
        {"x": {"type": "numeric", "bounds": [0, 10]}, "z": {"type": "numeric", "bounds": [0, 10]}},
        {"x": {"type": "numeric", "bounds": [0, 10], "integer": True},
         "z": {"type": "numeric", "bounds": [0, 10]}},
    ]
    for schema in schemas:
        with no_leaks():
            ea, eb = TableEncoder(schema).fit(a), TableEncoder(schema).fit(b)
        assert ea.dtypes_ == eb.dtypes_
        numeric, codes = np.array([[0.1, -0.3], [0.5, 0.2]]), []
        da, db = ea.decode(numeric, codes), eb.decode(numeric, codes)
        pd.testing.assert_frame_equal(da, db)
        expected = np.int64 if schema["x"].get("integer") else np.float64
        assert da["x"].dtype == expected and da["z"].dtype == np.float64
    # with bounds= only (no schema) both tables give float64
    with no_leaks():
        ea, eb = TableEncoder(bounds=(0, 10)).fit(a), TableEncoder(bounds=(0, 10)).fit(b)
    assert ea.dtypes_ == eb.dtypes_ == [np.dtype(np.float64)] * 2


def test_categorical_input_with_undeclared_categories_is_a_leak():
    X = pd.DataFrame({"c": pd.Categorical(["a", "b", "a"], categories=["a", "b", "z"]),
                      "x": [0.1, 0.2, 0.3]})
    x_spec = {"x": {"type": "numeric", "bounds": [0, 1]}}
    with pytest.warns(PrivacyLeakWarning, match="categories of column 'c'"):
        enc = TableEncoder(x_spec).fit(X)
    assert [(leak.what, leak.column) for leak in enc.leaks_] == [("categories", "c")]
    # the values read from the rows, not the dtype's list (a dtype is not public)
    assert list(enc.dtypes_[0].categories) == ["a", "b"]
    # the same column as plain text: the same spec
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        text = TableEncoder(x_spec).fit(X.astype({"c": object}))
    assert text.specs_ == enc.specs_
    # on the record even when every warning is filtered
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        quiet = TableEncoder(x_spec).fit(X)
    assert [(leak.what, leak.column) for leak in quiet.leaks_] == [("categories", "c")]
    # declared: no leak, and the schema's list, not the dtype's
    with no_leaks():
        declared = TableEncoder({"c": {"type": "categorical", "categories": ["z", "b", "a", "q"]},
                                 **x_spec}).fit(X)
    assert declared.leaks_ == []
    assert list(declared.dtypes_[0].categories) == ["z", "b", "a", "q"]
    np.testing.assert_array_equal(declared.transform(X)[:, 1:].argmax(1), [2, 1, 2])
    # bounds= declares every column the schema leaves out numeric, a Categorical one
    # too: its text values are then missing (imputed at the centre), no leak
    with no_leaks():
        numeric = TableEncoder(bounds=(0, 1)).fit(X)
    assert numeric.leaks_ == [] and numeric.specs_[0]["type"] == "numeric"
    np.testing.assert_array_equal(numeric.transform(X)[:, 0], [0.0, 0.0, 0.0])


def test_what_is_read_from_the_data_is_recorded():
    X = pd.DataFrame({"name": ["x", "y", "x"], "v": [2.0, 5.0, 3.0], "flag": [True, False, True]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        enc = TableEncoder().fit(X)
    # every column the schema leaves out is read from the rows, the bool one included
    # (its dtype is not public: its kind is read from its values)
    assert [leak.column for leak in enc.leaks_] == ["name", "v", "flag"]
    assert [leak.what for leak in enc.leaks_][:2] == ["categories", "bounds"]
    assert enc.specs_[0]["categories"] == ["x", "y"]
    assert enc.specs_[1]["bounds"] == [2.0, 5.0]  # the exact min and max: a leak
    assert enc.specs_[2]["categories"] == [False, True]
    with no_leaks():
        public = TableEncoder({"name": {"type": "categorical", "categories": ["x", "y"]},
                               "flag": {"type": "categorical", "categories": [False, True]}},
                              bounds=(0, 10)).fit(X)
    assert public.leaks_ == []
    assert public.specs_[1]["bounds"] == [0.0, 10.0]


# ---------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------


def test_extreme_bounds():
    top = np.finfo(np.float64).max
    X = pd.DataFrame({"x": [0.0, 1.0]})
    # a width that overflows is refused, from the schema or from bounds=
    for bounds in ([-1e308, 1e308], [-top, top], [0, np.inf], [-np.inf, 0], [np.nan, 1],
                   [1, 1], [2, 1]):
        with pytest.raises(ValueError, match="bounds"):
            TableEncoder({"x": {"type": "numeric", "bounds": bounds}}).fit(X)
        with pytest.raises(ValueError, match="bounds"):
            TableEncoder(bounds=tuple(bounds)).fit(X)
    # a finite width, however large: every finite value encodes into [-1, 1]
    values = np.array([-top, -1e308, -1.0, 0.0, 1.0, 7.5e307, 1e308, 1.5e308, top])
    for bounds in ([0, 1.5e308], [-1.5e308, 0], [-8e307, 8e307]):
        with no_leaks():
            enc = TableEncoder({"x": {"type": "numeric", "bounds": bounds}}).fit(X)
        with np.errstate(over="raise", invalid="raise", divide="raise"):
            Z = enc.transform(pd.DataFrame({"x": values}))[:, 0]
        assert np.all(np.isfinite(Z)) and np.all((Z >= -1) & (Z <= 1))
        assert Z[0] == -1.0 and Z[-1] == 1.0
        assert np.all(np.diff(Z) >= 0)  # monotone
        back = enc.decode(Z[:, None], [])["x"].to_numpy()
        assert np.all(np.isfinite(back))
        assert back.min() == bounds[0] and back.max() == bounds[1]
    enc = TableEncoder({"x": {"type": "numeric", "bounds": [0, 1.5e308]}}).fit(X)
    np.testing.assert_allclose(enc.transform(pd.DataFrame({"x": [7.5e307]})), [[0.0]], atol=1e-15)


@pytest.mark.parametrize("bad, z", [(np.nan, 0.0), (np.inf, 1.0), (-np.inf, -1.0)])
def test_non_finite_values_are_clipped_or_imputed_not_errors(bad, z):
    """A record's value never makes the encoding fail: infinity is clipped to the
    bounds, NaN (without "missing": true) imputed at their centre."""
    X = make_frame(5)
    with no_leaks():
        enc = TableEncoder(SCHEMA).fit(X)
    Xb = X.copy()
    Xb.loc[2, "income"] = bad
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # not even a warning that could quote the value
        Z = enc.transform(Xb)
    assert np.all(np.isfinite(Z))
    assert Z[2, 1] == z
    expected = enc.transform(X)
    expected[2, 1] = z
    np.testing.assert_array_equal(Z, expected)
    # as text (a CSV cell): the same
    Xs = X.astype({"income": object})
    Xs.loc[2, "income"] = {0.0: "nan", 1.0: "inf", -1.0: "-inf"}[z]
    np.testing.assert_array_equal(enc.transform(Xs), Z)
    # arrays, fitted with bounds=: the same
    with no_leaks():
        arr = TableEncoder(bounds=(0, 1)).fit(np.array([[0.5], [bad]]))
    np.testing.assert_array_equal(arr.transform(np.array([[0.5], [bad]])), [[0.0], [z]])
    # a missing category (no "missing": true, no "other"): the first category
    Xc = X.astype({"city": object})
    Xc.loc[1, "city"] = None
    Zc = enc.transform(Xc)
    np.testing.assert_array_equal(Zc[1, 5:8], [1.0, 0.0, 0.0])
    np.testing.assert_array_equal(np.delete(Zc, 1, axis=0), np.delete(enc.transform(X), 1, axis=0))


def test_unknown_values_are_mapped_not_errors():
    X = make_frame(5).assign(city=["A", "C", "B", "A", "C"], size=["S", "M", "M", "L", "S"])
    with no_leaks():
        enc = TableEncoder(SCHEMA).fit(X)
    Z = enc.transform(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing quotes the values
        # a category outside the schema: the first category (no "other" declared)
        unknown = enc.transform(X.assign(city=["A", "Z", "B", "A", "C"]))
        np.testing.assert_array_equal(unknown[:, 5:8].argmax(1), [0, 0, 1, 0, 2])
        xl = enc.transform(X.assign(size=["S", "XL", "M", "L", "S"]))
        np.testing.assert_array_equal(xl[:, 2:5].argmax(1), [0, 0, 1, 2, 0])
        # only the unknown value's row changes
        np.testing.assert_array_equal(np.delete(unknown, 1, axis=0), np.delete(Z, 1, axis=0))
        # text in a numeric column is missing, here imputed at the centre
        text = enc.transform(X.assign(income=["a", "b", "c", "d", "e"]))
        np.testing.assert_array_equal(text[:, 1], 0.0)
        np.testing.assert_array_equal(np.delete(text, 1, axis=1), np.delete(Z, 1, axis=1))
        # a text column declared numeric: the same, at fit and transform
        declared = TableEncoder({**SCHEMA, "city": {"type": "numeric", "bounds": [0, 1]}}).fit(X)
        assert declared.specs_[3]["type"] == "numeric"
        np.testing.assert_array_equal(declared.transform(X)[:, 2], 0.0)
    # a number matches its category whatever its form: "2" and 2.0 are category 2
    cats = TableEncoder({"n": {"type": "categorical", "categories": [1, 2, 3]}}).fit(
        pd.DataFrame({"n": [1, 2, 3]}))
    np.testing.assert_array_equal(
        cats.transform(pd.DataFrame({"n": ["2", 2.0, " 3 ", "1.0"]})).argmax(1), [1, 1, 2, 0])


def test_wrong_columns_and_invalid_schemas_are_errors():
    X = make_frame(5)
    with no_leaks():
        enc = TableEncoder(SCHEMA).fit(X)
    with pytest.raises(ValueError, match=r"missing columns \['city'\]"):
        enc.transform(X.drop(columns="city"))
    with pytest.raises(ValueError, match=r"unexpected columns \['zip'\]"):
        enc.transform(X.assign(zip=1))
    # column order of the input does not matter
    np.testing.assert_array_equal(enc.transform(X[X.columns[::-1]]), enc.transform(X))
    # the schema may not name absent columns, nor hold invalid specs
    with pytest.raises(ValueError, match="lacks"):
        TableEncoder({**SCHEMA, "zip": {"type": "numeric", "bounds": [0, 1]}}).fit(X)
    with pytest.raises(ValueError, match="unknown type"):
        TableEncoder({**SCHEMA, "city": {"type": "text"}}).fit(X)
    for cats in ([], ["A", "A", "B"], [1, "1"]):
        with pytest.raises(ValueError, match="categories"):
            TableEncoder({**SCHEMA, "city": {"type": "categorical", "categories": cats}}).fit(X)
    # arrays: the width must match
    arr = TableEncoder(numeric_schema(2, (0, 1))).fit(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="features"):
        arr.transform(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="at least 2|minimum of 2"):
        TableEncoder(SCHEMA).fit(X.head(1))


# ---------------------------------------------------------------------------
# integer columns as levels (one-hot blocks of their integers)
# ---------------------------------------------------------------------------


def _codes(enc, Z):
    offsets = enc.n_numeric_ + np.concatenate([[0], np.cumsum(enc.category_sizes_)])
    return [Z[:, a:b].argmax(1) for a, b in zip(offsets[:-1], offsets[1:])]


def test_integer_columns_with_few_values_are_levels():
    X = make_frame()
    enc = TableEncoder(SCHEMA, max_levels=100).fit(X)
    # age holds 74 integers: a block in column order, before the categorical ones
    assert enc.level_columns_ == ["age"] and enc.numeric_columns_ == ["income"]
    assert enc.block_columns_ == ["age", "size", "city", "member"]
    assert enc.category_sizes_ == [74, 3, 3, 2] and enc.n_encoded_ == 1 + 82
    Z = enc.transform(X)
    assert np.array_equal(Z[:, 1:75].argmax(1), X["age"].to_numpy() - 17)
    assert np.array_equal(Z[:, 1:75].sum(1), np.ones(len(X)))
    out = enc.decode(Z[:, :1], _codes(enc, Z))
    assert out["age"].dtype == np.int64 and np.array_equal(out["age"], X["age"])
    # values outside the bounds are clipped to the end levels, fractions rounded
    edge = X.head(3).assign(age=[3, 90.4, 1000])
    assert enc.transform(edge)[:, 1:75].argmax(1).tolist() == [0, 73, 73]
    # max_levels=0 (TableEncoder's default), or fewer levels than age has: a number
    for enc in (TableEncoder(SCHEMA).fit(X), TableEncoder(SCHEMA, max_levels=73).fit(X)):
        assert enc.level_columns_ == [] and enc.numeric_columns_ == ["age", "income"]


@pytest.mark.parametrize("bad", [-1, 2.5, True, "100"])
def test_max_levels_is_validated(bad):
    with pytest.raises(ValueError, match="max_levels"):
        TableEncoder(SCHEMA, max_levels=bad).fit(make_frame())


def test_the_schema_levels_key_overrides_max_levels():
    X = make_frame()
    on = {**SCHEMA, "age": {**SCHEMA["age"], "levels": True}}
    off = {**SCHEMA, "age": {**SCHEMA["age"], "levels": False}}
    assert TableEncoder(on).fit(X).level_columns_ == ["age"]
    assert TableEncoder(off, max_levels=100).fit(X).level_columns_ == []
    for bad in ({"type": "numeric", "bounds": [0, 9], "levels": True},  # not integer
                {"type": "numeric", "bounds": [0.2, 0.8], "integer": True, "levels": True}):
        with pytest.raises(ValueError, match="levels"):
            TableEncoder({"age": bad}).fit(X[["age"]])


def test_level_columns_with_missing_values_and_imputation():
    X = pd.DataFrame({"k": [1.0, np.nan, 3.0, 2.0], "j": [np.nan, 2.0, 4.0, 0.0]})
    schema = {"k": {"type": "numeric", "bounds": [0.5, 3.5], "integer": True, "missing": True},
              "j": {"type": "numeric", "bounds": [0, 4], "integer": True, "impute": True}}
    enc = TableEncoder(schema, max_levels=10).fit(X)
    # k: the integers 1, 2, 3 and a missing slot; j: 0 … 4, no slot, no indicator
    assert enc.category_sizes_ == [4, 5] and enc.indicator_columns_ == []
    Z = enc.transform(X)
    codes = _codes(enc, Z)
    assert codes[0].tolist() == [0, 3, 2, 1]
    assert codes[1].tolist() == [2, 2, 4, 0]  # the missing value: the middle level
    out = enc.decode(np.empty((4, 0)), codes)
    assert out["k"].dtype == pd.Int64Dtype() and out["k"].isna().tolist() == [0, 1, 0, 0]
    assert out["k"].dropna().tolist() == [1, 3, 2] and out["j"].tolist() == [2, 2, 4, 0]
    # arrays: float output, NaN where missing
    arr = TableEncoder({0: schema["k"]}, max_levels=10).fit(X[["k"]].to_numpy())
    dec = arr.decode(np.empty((4, 0)), [codes[0]])
    assert np.array_equal(dec[:, 0], [1, np.nan, 3, 2], equal_nan=True)


# ---------------------------------------------------------------------------
# binned numeric and datetime columns (one-hot blocks of equal-width bins)
# ---------------------------------------------------------------------------


def test_numeric_columns_as_bins():
    X = make_frame()
    enc = TableEncoder(SCHEMA, max_levels=100, bins=8).fit(X)
    # age is levels (74 integers), income binned: no numeric block left
    assert enc.level_columns_ == ["age"] and enc.binned_columns_ == ["income"]
    assert enc.numeric_columns_ == [] and enc.n_numeric_ == 0
    assert enc.block_columns_ == ["age", "income", "size", "city", "member"]
    # income's bounds hold 0: a ninth cell, of its exact zeros (none here)
    assert enc.category_sizes_ == [74, 8 + 1, 3, 3, 2]
    Z = enc.transform(X)
    codes = _codes(enc, Z)
    assert np.array_equal(codes[1], np.minimum(X["income"].to_numpy() // 12500, 7))
    # decoded uniformly inside the bin (the centre without random_state)
    out = enc.decode(Z[:, :0], codes, random_state=0)
    assert out["income"].dtype == np.float64
    assert np.array_equal(np.minimum(out["income"].to_numpy() // 12500, 7), codes[1])
    assert not np.allclose(out["income"], 12500 * (codes[1] + 0.5))
    centre = enc.decode(Z[:, :0], codes)
    assert np.allclose(centre["income"], 12500 * (codes[1] + 0.5))
    # an integer column with more integers than max_levels: binned, decoded as integers
    enc = TableEncoder(SCHEMA, max_levels=10, bins=4).fit(X)
    assert enc.binned_columns_ == ["age", "income"] and enc.category_sizes_[:2] == [4, 5]
    out = enc.decode(np.empty((len(X), 0)), _codes(enc, enc.transform(X)), random_state=1)
    assert out["age"].dtype == np.int64 and out["age"].between(17, 90).all()
    # values outside the bounds go to the end bins; bins=0 (the default): numbers
    edge = X.head(3).assign(income=[-5.0, 1e5, 1e9])
    assert _codes(enc, enc.transform(edge))[1].tolist() == [0, 3, 3]
    assert TableEncoder(SCHEMA).fit(X).binned_columns_ == []


def test_binned_columns_with_missing_values_and_dates():
    X = pd.DataFrame({"v": [0.5, np.nan, 9.5, 3.0],
                      "w": [np.nan, 1.0, 2.0, 3.0],
                      "d": pd.to_datetime(["2020-01-01", "2020-12-31", None, "2020-07-01"])})
    schema = {"v": {"type": "numeric", "bounds": [0, 10], "missing": True},
              "w": {"type": "numeric", "bounds": [0, 4], "impute": True},
              "d": {"type": "datetime", "bounds": ["2020-01-01", "2021-01-01"],
                    "missing": True}}
    enc = TableEncoder(schema, bins=4).fit(X)
    # a missing slot instead of a [present, missing] indicator; bounds holding 0:
    # a cell of exact zeros (v: a point, before its missing slot; w: the last slot)
    assert enc.category_sizes_ == [6, 5, 5] and enc.indicator_columns_ == []
    codes = _codes(enc, enc.transform(X))
    assert codes[0].tolist() == [0, 5, 3, 1]
    assert codes[1].tolist() == [2, 1, 2, 3]  # the missing value: the centre's bin
    assert codes[2].tolist() == [0, 3, 4, 1]
    out = enc.decode(np.empty((4, 0)), codes, random_state=np.random.default_rng(0))
    assert out["v"].isna().tolist() == [False, True, False, False]
    assert out["d"].isna().tolist() == [False, False, True, False]
    assert out["d"].dtype == np.dtype("datetime64[ns]")
    assert (out["d"].dropna() >= pd.Timestamp("2020-01-01")).all()


def test_round_values_on_bin_edges_are_binned_as_the_evaluation_bins_them():
    # 0.1 on [0, 1] scaled to [-1, 1] and back is 0.0999...98: a plain floor put
    # it in bin 0, below the cell marginal_tv_distance gives it (car: 30 % of a
    # column's rows one cell off); one rule, bins [a, b)
    from skdpgen.evaluation import marginal_tv_distance
    from skdpgen.evaluation._fidelity import _codes as cells
    from skdpgen.schema import kind_of

    values = np.array([0.1, 0.3, 0.6, 0.7, 0.29, 0.0, 1.0])
    X = pd.DataFrame({"v": values, "n": [10, 30, 60, 70, 29, 0, 100]})
    schema = {"v": {"type": "numeric", "bounds": [0, 1], "zero": False},
              "n": {"type": "numeric", "bounds": [0, 100], "integer": True, "zero": False}}
    for bins in (10, 100):
        enc = TableEncoder(schema, bins=bins).fit(X)
        codes = _codes(enc, enc.transform(X))
        expected = np.minimum(np.round(values * 1000).astype(int) * bins // 1000, bins - 1)
        assert codes[0].tolist() == expected.tolist()
        assert codes[1].tolist() == expected.tolist()
        assert cells(X["v"], kind_of("numeric"), (0, 1), bins, "v")[0].tolist() \
            == expected.tolist()
        # an integer on a bin edge is drawn in its own bin, never lost to the one below
        out = enc.decode(np.empty((7, 0)), codes, random_state=0)
        assert _codes(enc, enc.transform(out))[1].tolist() == expected.tolist()
    assert marginal_tv_distance(X, X, alpha=1, bounds=schema) == 0.0


@pytest.mark.parametrize("bad", [-1, 2.5, True, "8"])
def test_bins_is_validated(bad):
    with pytest.raises(ValueError, match="bins"):
        TableEncoder(SCHEMA, bins=bad).fit(make_frame())


def test_check_table_counts_what_the_schema_does_without_quoting_values():
    from skdpgen.schema import check_table

    X = pd.DataFrame({"t": ["2020-06-01", "1999-01-01", "soon", None],
                      "c": ["a", "Alice, HIV+", None, "b"]})
    schema = {"t": {"type": "datetime", "bounds": ["2020-01-01", "2021-01-01"],
                    "missing": True},
              "c": {"type": "categorical", "categories": ["a", "b"]}}
    report = check_table(X, schema, y=[0, 1, 7, None], classes=[0, 1])
    assert report.loc["t"].tolist() == [1, 0, 1, 1, 0]  # missing declared: nothing imputed
    assert report.loc["c"].tolist() == [1, 1, 0, 0, 1]
    assert report.loc["(labels)", "unlisted"] == 2 and report.loc["(labels)", "missing"] == 1
    assert "Alice" not in report.to_string()
    with pytest.raises(ValueError, match="lacks"):
        check_table(X, {"zip": {"type": "numeric", "bounds": [0, 1]}})


@pytest.mark.parametrize("bins", [0, 30])
def test_synthetic_numbers_are_written_to_the_output_step(bins):
    """Issue 40: '32139.64749485716' carried digits no release resolved. Values
    come back to a ten-thousandth of the public range (10 on [0, 1e5]), bounds
    exact, and a binned value stays in its bin."""
    from skdpgen.schema.kinds._numeric import output_step

    schema = {"income": {"type": "numeric", "bounds": [0, 1e5]},
              "share": {"type": "numeric", "bounds": [0, 1]}}
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"income": rng.uniform(0, 1e5, 500), "share": rng.uniform(0, 1, 500)})
    X.loc[0] = [0.0, 1.0]
    enc = TableEncoder(schema, bins=bins).fit(X)
    back = decode_encoding(enc, enc.transform(X))
    assert output_step([0, 1e5]) == 10.0 and output_step([0, 1]) == 1e-4
    income, share = back["income"].to_numpy(), back["share"].to_numpy()
    assert np.all(income == np.round(income / 10) * 10)
    assert np.all(share == np.round(share, 4))
    if bins:  # every value in the bin it was encoded in
        np.testing.assert_array_equal(enc.transform(back), enc.transform(X))
    else:
        assert income[0] == 0.0 and share[0] == 1.0
