"""Canonical forms (skdpgen._canonical): a value's form never changes what it is."""

import datetime
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skdpgen._canonical import (
    BOOL,
    DATE,
    MISSING,
    NUMBER,
    TEXT,
    canonical,
    canonical_keys,
    key_order,
    numbers_table,
    table_frame,
)

CASES = [
    # (value, form, key)
    (3, NUMBER, 3), (3.0, NUMBER, 3), ("3", NUMBER, 3), (" 3.0 ", NUMBER, 3),
    (np.int8(3), NUMBER, 3), (np.float32(2.5), NUMBER, 2.5), ("1e3", NUMBER, 1000),
    (float("inf"), NUMBER, float("inf")), ("-inf", NUMBER, float("-inf")),
    (True, BOOL, True), ("TRUE", BOOL, True), ("false", BOOL, False), (np.bool_(False), BOOL, False),
    (None, MISSING, None), (np.nan, MISSING, None), (pd.NA, MISSING, None), (pd.NaT, MISSING, None),
    ("", MISSING, None), ("NA", MISSING, None), ("nan", MISSING, None), ("null", MISSING, None),
    ("2024-03-01", DATE, "2024-03-01"), (pd.Timestamp("2024-03-01"), DATE, "2024-03-01"),
    (datetime.date(2024, 3, 1), DATE, "2024-03-01"), (np.datetime64("2024-03-01"), DATE, "2024-03-01"),
    ("2024-03-01T05:00+05:00", DATE, "2024-03-01"), ("1 Mar 2024 10:00", DATE, "2024-03-01T10:00:00"),
    # text that dateutil would read as a date of the current year (or year 3): text
    ("11th", TEXT, "11th"), ("5th-6th", TEXT, "5th-6th"), ("May 3", TEXT, "May 3"),
    ("3/4", TEXT, "3/4"), ("10-20", TEXT, "10-20"), ("now", TEXT, "now"), ("today", TEXT, "today"),
    (" Paris ", TEXT, "Paris"), ("Alice Smith, HIV+", TEXT, "Alice Smith, HIV+"),
    (b"abc", TEXT, "abc"), (1 + 2j, TEXT, "(1+2j)"),
]


@pytest.mark.parametrize("value, form, key", CASES, ids=[repr(c[0]) for c in CASES])
def test_forms_and_keys(value, form, key):
    c = canonical(pd.Series([value], dtype=object))
    assert c.form.tolist() == [form]
    got = c.keys().tolist()[0]
    assert got == key and type(got) is type(key)


def test_dates_outside_the_nanosecond_range_are_dates_clamped():
    c = canonical(["1500-01-01", datetime.datetime(2500, 1, 1)])
    assert c.form.tolist() == [DATE, DATE]
    assert c.date[0] == pd.Timestamp.min.value and c.date[1] == pd.Timestamp.max.value


def test_dtype_paths_equal_the_value_by_value_path():
    """A typed column (int64, float, bool, datetime, category, nullable) gives the
    canonical forms of the same values in an object column."""
    columns = [
        pd.Series([1, 2, 3]), pd.Series([1.5, np.nan, -np.inf]), pd.Series([True, False]),
        pd.Series(pd.to_datetime(["2020-01-01", None])),
        pd.Series(pd.to_datetime(["2020-01-01 10:00"])).dt.tz_localize("Europe/Paris"),
        pd.Series(["a", "b", None], dtype="category"), pd.Series([1, None], dtype="Int64"),
        pd.Series([True, None], dtype="boolean"), pd.Series(["x", None], dtype="string"),
    ]
    for column in columns:
        typed = canonical(column)
        objects = canonical(pd.Series(column.astype(object).tolist(), dtype=object))
        assert typed.form.tolist() == objects.form.tolist(), column.dtype
        assert typed.keys().tolist() == objects.keys().tolist(), column.dtype


def test_one_and_true_are_distinct_keys():
    keys, tags = canonical_keys([1, True, "1", "true"])
    assert keys == [1, True, 1, True]
    assert tags[0] == tags[2] and tags[1] == tags[3] and tags[0] != tags[1]
    assert sorted([10, "b", 2, True, "a", 2.5], key=key_order) == [True, 2, 2.5, 10, "a", "b"]


def test_table_frame_keeps_forms_and_checks_shape():
    frame = table_frame([[1, "a"], [2.0, None]])
    assert [type(v) for v in frame[0]] == [int, float]  # each value keeps its type
    assert canonical(frame[1]).form.tolist() == [TEXT, MISSING]
    with pytest.raises(ValueError):
        table_frame(np.zeros(3))  # 1-D: API misuse
    # a complex array (one complex value types the whole table) is read value by value
    frame = table_frame(np.array([[1.5 + 0j, 2], [3 + 1j, 4]]))
    assert canonical(frame[0]).keys().tolist() == [1.5, "(3+1j)"]
    assert canonical(frame[1]).keys().tolist() == [2, 4]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("cells", [
    [[1.5, -2.0], [0.25, 3.0]],  # finite: the one-pass path
    [[np.nan, 1.0], [2.0, -np.inf]],  # a NaN
    [[np.inf, 1.0], [-np.inf, 2.0]],  # both infinities (their sum is NaN)
    [[np.inf, np.inf], [1.0, -1.0]],  # one infinity (its sum is not NaN)
    [["max", "max"], [np.nan, 1.0]],  # the largest floats: their sum overflows
], ids=["finite", "nan", "infinities", "inf", "overflow"])
def test_a_float_array_reads_as_its_cells_one_by_one(cells, dtype):
    """``numbers_table``'s vectorized path for float arrays (issue 56) reads
    what the cell-by-cell path reads, keeps float32, lays the rows out
    C-contiguous, and warns of nothing."""
    big = float(np.finfo(dtype).max)
    X = np.array([[big if v == "max" else v for v in row] for row in cells], dtype=dtype)
    X = np.asfortranarray(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = numbers_table(X)
    expected = numbers_table(X.astype(object).tolist())  # value by value, float64
    assert got.dtype == dtype and got.flags.c_contiguous
    assert not np.shares_memory(got, X)  # a new array whatever the values (issue 66)
    # ±inf is clamped to the largest float of the array's own type
    np.testing.assert_array_equal(got, np.clip(expected, -big, big).astype(dtype))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_one_value_changes_neither_the_reading_s_memory_nor_its_array(dtype):
    """A float array's reading is a new array, made with the same allocations
    whether its values are all finite or one is NaN or infinite: a record's value
    does not show in a fit's peak memory (issue 66)."""
    import tracemalloc

    X = np.random.default_rng(0).normal(size=(4000, 14)).astype(dtype)
    peaks = []
    for value in (None, np.nan, np.inf, -np.inf):
        Y = X.copy()
        if value is not None:
            Y[1234, 5] = value
        tracemalloc.start()
        got = numbers_table(Y)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        assert got is not Y and not np.shares_memory(got, Y)
        assert got.dtype == dtype and got.flags.c_contiguous and np.isfinite(got).all()
    assert peaks[0] >= X.nbytes and max(peaks) - min(peaks) < 4096, peaks


@pytest.mark.parametrize("holder", ["series", "objects", "categorical"])
def test_a_complex_value_is_read_in_its_own_row(holder):
    values = [1.5, 2.0, 3 + 1j, np.nan, -4.25]
    series = {"series": pd.Series(values),  # pandas types it complex128
              "objects": pd.Series(values, dtype=object),
              "categorical": pd.Series(values, dtype="category")}[holder]
    c = canonical(series)
    assert c.form.tolist() == [NUMBER, NUMBER, TEXT, MISSING, NUMBER]
    assert c.keys().tolist() == [1.5, 2, "(3+1j)", None, -4.25]
    # the same values without the complex one: every other row reads the same
    clean = canonical(pd.Series([1.5, 2.0, 7.0, np.nan, -4.25]))
    keep = [0, 1, 3, 4]
    assert [c.keys()[i] for i in keep] == [clean.keys()[i] for i in keep]


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.integers(-10**15, 10**15),
                 st.floats(allow_nan=False, allow_infinity=True, width=64)))
def test_every_spelling_of_a_number_is_one_value(x):
    spellings = [x, float(x), repr(float(x)), f" {x} ", np.float64(x)]
    if isinstance(x, int):
        spellings += [str(x), np.int64(x)]
    c = canonical(pd.Series(spellings, dtype=object))
    assert set(c.form.tolist()) == {NUMBER}
    assert len({repr(k) for k in c.keys().tolist()}) == 1
