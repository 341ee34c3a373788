"""Point masses of numeric columns ("points"): found in the released fine
histogram, kept in cells of their own by a binned encoding."""

import warnings

import numpy as np
import pandas as pd
import pytest

from skdpgen import MarginalSynthesizer
from skdpgen.privacy import PrivacyLeakWarning, reproducible_noise
from skdpgen.private_schema import estimate_schema
from skdpgen.schema import TableEncoder, kind_of

from skdpgen.schema._grids import FINE_BINS, _fine_positions, _numeric_grid, _numeric_positions
from skdpgen.schema._points import point_masses, roundest
from skdpgen.schema._policy import POLICY


def check_spec(key, spec):
    return kind_of(spec).check_spec(key, spec)


def _fine_counts(values):
    """The exact fine histogram of ``values`` (the statistic's fine part)."""
    values = np.asarray(values, dtype=float)
    lower, _, _, _ = _numeric_grid()
    fine = np.zeros(lower.size * FINE_BINS)
    np.add.at(fine, _fine_positions(values, _numeric_positions(values)), 1.0)
    return fine


def _hours(n, rng):
    """Hours worked: half the rows at exactly 40, a tenth at 50, the rest spread."""
    u = rng.random(n)
    return np.where(u < 0.5, 40, np.where(u < 0.6, 50, rng.integers(1, 99, n))).astype(float)


def test_roundest_is_the_one_roundest_number_or_none():
    assert roundest(39.96, 40.0, True) == 40.0
    assert roundest(44.96, 45.0, True) == 45.0  # a multiple of 1 alone
    assert roundest(2.49, 2.5, False) == 2.5  # the one multiple of 0.1 in it
    assert roundest(2.41, 2.49, False) is None  # nine multiples of 0.01, none rounder
    assert roundest(1.19, 1.2, False) == 1.2  # as written, not 12 * 0.1 = 1.2000000000000002
    assert roundest(1.0, 9.0, True) is None  # nine integers, none rounder
    assert roundest(40.1, 40.9, True) is None  # no integer in it


def test_spikes_are_found_exactly_without_noise():
    x = _hours(20_000, np.random.default_rng(0))
    points = point_masses(_fine_counts(x), 1e-9, [1, 98], True, x.size)
    assert points[:2] == [40.0, 50.0] or {40.0, 50.0} <= set(points)
    # the spread integers hold ~0.4 % each: under the share, never points
    assert set(points) == {40.0, 50.0}


def test_a_dense_smooth_column_has_no_points():
    """A million continuous values: sub-bins hold many rows each, but none
    stands out of its neighbours."""
    x = np.random.default_rng(1).normal(50, 10, 1_000_000)
    assert point_masses(_fine_counts(x), 30.0, [0, 100], False, x.size) == []


def test_noise_alone_makes_no_point():
    rng = np.random.default_rng(2)
    size = _numeric_grid()[0].size * FINE_BINS
    s, n = 50.0, 2_000  # a threshold of n * point_share = 20 rows would not hold alone
    found = sum(bool(point_masses(rng.normal(0, s, size), s, [0, 1000], True, n))
                for _ in range(50))
    assert found <= 1  # family-wise rate 1e-4 per draw


def test_point_share_keeps_small_spikes_out():
    x = np.r_[np.full(50, 7.0), np.random.default_rng(3).uniform(0, 100, 9_950)]
    fine = _fine_counts(x)
    assert 7.0 not in point_masses(fine, 1e-9, [0, 100], False, x.size)  # 0.5 % < 1 %
    assert POLICY.point_share == 0.01


def test_the_private_estimate_finds_the_40_hour_week():
    X = pd.DataFrame({"hours": _hours(5_000, np.random.default_rng(4)).astype(int)})
    with warnings.catch_warnings(), reproducible_noise(0):
        warnings.simplefilter("ignore")
        schema, _, _ = estimate_schema(X, epsilon=1.0, delta=1e-5)
    assert schema["hours"]["integer"] is True
    assert 40.0 in schema["hours"]["points"]


def test_points_in_a_spec_are_checked():
    spec = {"type": "numeric", "bounds": [0, 100], "integer": True, "points": [50, 40, 40]}
    assert check_spec("h", spec)["points"] == [40.0, 50.0]
    with pytest.raises(ValueError, match="inside its bounds"):
        check_spec("h", {**spec, "points": [101]})
    with pytest.raises(ValueError, match="must be integers"):
        check_spec("h", {**spec, "points": [40.5]})
    with pytest.raises(ValueError, match="list of numbers"):
        check_spec("h", {**spec, "points": ["x"]})
    zero = check_spec("h", {**spec, "zero": True, "points": [0, 40]})
    assert zero["points"] == [40.0]  # exact zeros have their own slot


def test_a_binned_encoding_keeps_each_point_in_a_cell_of_its_own():
    spec = {"type": "numeric", "bounds": [1, 99], "integer": True, "points": [40, 50],
            "missing": True}
    X = pd.DataFrame({"h": [40, 41, 50, np.nan, 7]})
    enc = TableEncoder({"h": spec}, bins=7).fit(X)
    Z = enc.transform(X)
    assert enc.category_sizes_ == [7 + 2 + 1]
    codes = Z.argmax(axis=1)
    assert codes.tolist()[:4] == [7, 2, 8, 9]  # 40 and 50 in their cells; 41 in its bin [29, 43)
    back = enc.decode(np.zeros((4, 0)), [np.array([7, 8, 9, 7])], random_state=0)
    assert back["h"].tolist()[:2] == [40, 50] and pd.isna(back["h"][2])
    # points go with the bin they lie in; the missing slot stays apart
    order = enc.cell_order()[0]
    assert order.tolist() == list(range(7)) + [2, 3, -1]
    groups = enc.coarse_cells(3)[0]
    assert groups[7] == groups[2] and groups[8] == groups[3] and groups[9] == 3


def test_an_estimated_schema_keeps_the_spike_in_synthetic_data():
    rng = np.random.default_rng(5)
    X = pd.DataFrame({"hours": _hours(6_000, rng).astype(int),
                      "g": rng.choice(["a", "b", "c"], 6_000)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synth = MarginalSynthesizer(epsilon=1.0, random_state=0, epochs=3).fit(X)
    assert 40.0 in synth.schema_["hours"]["points"]
    sample, _ = synth.sample(6_000, random_state=0)
    share = float(np.mean(sample["hours"] == 40))
    assert 0.4 < share < 0.6  # half the rows are 40 (spread over a bin: a fraction)
    assert "hours" in synth.encoder_.binned_columns_ or "hours" in synth.encoder_.level_columns_


def test_a_binned_column_whose_bounds_hold_zero_keeps_its_zeros_in_a_cell():
    """Issue 62: Adult's capital-gain ([0, 99999], 91.7 % zeros) came back with
    0.1 % zeros, the zeros spread over the first bin. A public rule (the spec
    alone): bounds holding 0 give the exact zeros a cell of their own, once."""
    from skdpgen.schema._points import zero_cell

    X = pd.DataFrame({"g": [0, 0, 0, 7, 4000, 0], "s": [-3.0, 0.0, 0.0, 2.5, 0.0, 5.0]})
    schema = {"g": {"type": "numeric", "bounds": [0, 99_999], "integer": True},
              "s": {"type": "numeric", "bounds": [-5, 5]}}  # 0 inside the bounds
    enc = TableEncoder(schema, bins=10).fit(X)
    assert enc.category_sizes_ == [11, 11]
    codes = enc.transform(X).reshape(len(X), 2, 11).argmax(axis=2)
    assert codes[:, 0].tolist() == [10, 10, 10, 0, 0, 10]  # 7 and 4000 in [0, 9999.9)
    assert codes[:, 1].tolist() == [2, 10, 10, 7, 10, 9]
    assert enc.cell_order()[0].tolist() == list(range(10)) + [-1]  # a group of its own
    back = enc.decode(np.zeros((6, 0)), [codes[:, 0], codes[:, 1]], random_state=0)
    assert back["g"].tolist()[:3] == [0, 0, 0] and back["g"][3] > 0
    assert (back["s"] == 0).tolist() == [False, True, True, False, True, False]
    # 0 outside the bounds, or "zero": false: no cell (kept in the resolved spec)
    off = {"type": "numeric", "bounds": [0, 10], "zero": False}
    assert check_spec("x", off)["zero"] is False and not zero_cell(check_spec("x", off))
    assert not zero_cell({"type": "numeric", "bounds": [1, 99]})
    enc = TableEncoder({"a": {"type": "numeric", "bounds": [1, 99]}, "b": off}, bins=10).fit(
        pd.DataFrame({"a": [1.0, 50.0], "b": [0.0, 3.0]}))
    assert enc.category_sizes_ == [10, 10]
    # never twice: "zero": true, 0 among the points, or an estimated spec's flags
    for spec in ({"type": "numeric", "bounds": [0, 10], "zero": True, "points": [0, 5]},
                 {"type": "numeric", "bounds": [0.0, 10.0], "integer": False, "missing": False,
                  "impute": True, "zero": True, "points": [5.0]},
                 {"type": "numeric", "bounds": [0.0, 10.0], "points": [0.0, 5.0]}):
        enc = TableEncoder({"x": spec}, bins=10).fit(pd.DataFrame({"x": [0.0, 5.0, 7.0]}))
        assert enc.category_sizes_ == [10 + 1 + 1]  # the bins, 5, the zeros
        assert enc.transform(pd.DataFrame({"x": [0.0]}))[0].tolist() == [0.0] * 11 + [1.0]
    # with "missing": true the zeros are a point (the last slot is the missing one's)
    spec = {"type": "numeric", "bounds": [0, 10], "missing": True}
    enc = TableEncoder({"x": spec}, bins=10).fit(pd.DataFrame({"x": [0.0, np.nan]}))
    assert enc.category_sizes_ == [12] and enc.cell_order()[0].tolist()[-2:] == [0, -1]
    back = enc.decode(np.zeros((3, 0)), [np.array([10, 11, 3])], random_state=0)
    assert back["x"][0] == 0.0 and np.isnan(back["x"][1]) and 3 <= back["x"][2] < 4


def test_a_partial_zero_false_stays_in_the_estimated_spec():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"r": np.where(rng.random(2000) < 0.5, 0.0, rng.uniform(0, 9, 2000))})
    with warnings.catch_warnings(), reproducible_noise(0):
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        found, _, _ = estimate_schema(X, epsilon=1.0, delta=1e-5)
        schema, _, _ = estimate_schema(X, schema={"r": {"type": "numeric", "zero": False}},
                                       epsilon=1.0, delta=1e-5)
    assert found["r"]["zero"] is True and found["r"]["bounds"][0] == 0.0
    assert schema["r"]["zero"] is False and schema["r"]["bounds"][0] == 0.0
    enc = TableEncoder(schema, bins=10).fit(X)
    assert enc.category_sizes_ == [10 + len(schema["r"].get("points", ()))]
