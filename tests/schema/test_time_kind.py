"""Times of day and durations: the ``"time"`` kind (issue 66, item 3: a column of
``11:38:36`` came back 100 % ``"other"``, with advice to list its values like
country names)."""

import datetime
import json
import re
import warnings

import numpy as np
import pandas as pd
import pytest

from skdpgen import DPHPSynthesizer, MarginalSynthesizer
from skdpgen.privacy import reproducible_noise
from skdpgen.schema import (TableEncoder, check_table, kind_of, kinds_from_dtypes,
                            read_column, schema_types)
from skdpgen._canonical import MISSING, TEXT, TIME, canonical

HMS = re.compile(r"\d{2}:[0-5]\d:[0-5]\d")
HM = re.compile(r"\d{2}:[0-5]\d")
FAST = {DPHPSynthesizer: dict(epochs=2, steps_per_epoch=5, batch_size=128, random_state=0),
        MarginalSynthesizer: dict(random_state=0)}


def _clock(seconds):
    return [f"{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}" for s in seconds]


def _seconds(text):
    h, m, *s = (int(p) for p in text.split(":"))
    return h * 3600 + m * 60 + (s[0] if s else 0)


def test_times_are_a_canonical_form():
    values = ["11:38:36", " 07:05 ", "23:59:59.5", "26:30:00", "1 days 02:00:00",
              datetime.time(8, 30), pd.Timedelta(hours=3), np.timedelta64(90, "m"),
              "3:2", "11h", "2024-03-01 10:00", None, pd.NaT]
    c = canonical(pd.Series(values, dtype=object))
    assert c.form.tolist() == [TIME] * 8 + [TEXT, TEXT, 2, MISSING, MISSING]
    assert (c.times()[:8] // 10**8).tolist() == [
        419160, 255000, 863995, 954000, 936000, 306000, 108000, 54000]
    # a time's key is its text, as before: a categorical column of times is unchanged
    assert c.keys()[:2].tolist() == ["11:38:36", "07:05"]
    assert c.counts().tolist() == [0, 0, 1, 2, 2, 8]
    assert np.isnan(c.numbers()[:8]).all()  # no number, no date
    assert (c.datetimes()[:8] == np.iinfo(np.int64).min).all()
    # a timedelta column, read value by value
    delta = canonical(pd.Series(pd.to_timedelta(["01:00:00", None])))
    assert delta.form.tolist() == [TIME, MISSING]


def test_a_time_spec_is_checked():
    kind = kind_of("time")
    assert "time" in schema_types() and kind.is_bounded and not kind.is_numeric
    spec = kind.resolve("t", {"type": "time", "bounds": ["8:00", "18:30:00"], "missing": True,
                              "resolution": "minute"})
    assert spec == {"type": "time", "bounds": ["08:00", "18:30"], "resolution": "minute",
                    "missing": True}
    assert kind.resolve("t", spec) == spec  # resolved once and for all
    for bad, words in [(["18:00", "08:00"], "lo < hi"), ([0, 3600], "must be times"),
                       (["8h", "9h"], "must be times"), (["08:00"], "pair")]:
        with pytest.raises(ValueError, match=words):
            kind.resolve("t", {"type": "time", "bounds": bad})
    for key, value in (("resolution", "day"), ("format", "%H")):
        with pytest.raises(ValueError, match=key):
            kind.resolve("t", {"type": "time", "bounds": ["08:00", "09:00"], key: value})
    assert kinds_from_dtypes(pd.DataFrame({"d": pd.to_timedelta([1, 2], unit="h")})) == {
        "d": {"type": "time"}}


def test_every_range_the_estimate_can_release_is_a_valid_spec():
    # the estimate's bounds are edges of the public grid; its last edge (2**16
    # days, 1,572,864 hours: seven digits) was no time to the reader, so a fit
    # whose noisy histogram reached the last bin ended in an invalid schema
    # (exit 2 on a table of long-tailed counts read as times): every pair of
    # edges is a spec, and each edge reads back as itself
    from skdpgen.private_schema import clock_grid
    from skdpgen._clock import clock_label, time_value

    kind, (edges, _) = kind_of("time"), clock_grid()
    assert [clock_label(time_value(e)) for e in edges] == edges
    for lo in range(len(edges) - 1):
        for hi in (lo + 1, len(edges) - 1):
            assert kind.resolve("t", {"type": "time", "bounds": [edges[lo], edges[hi]]})[
                "bounds"] == [edges[lo], edges[hi]]


def test_the_time_statistic_has_its_stated_sensitivity_on_any_pair_of_records():
    """``TimeKind.statistic``'s Notes: replace-one Δ = √3, attained."""
    kind = kind_of("time")
    records = ["08:00", "08:30", "08:30:15", "13:00", "47:59:59", None, "not a time",
               "2024-03-01"]
    base = ["12:00"] * 5

    def statistic(record):
        return np.asarray(kind.statistic(canonical(pd.Series(base + [record], dtype=object)),
                                         None))

    stats = [statistic(r) for r in records]
    distances = [np.linalg.norm(a - b) for a in stats for b in stats]
    assert max(distances) == pytest.approx(np.sqrt(3)) and kind.sensitivity == np.sqrt(3)


def test_written_times_follow_the_spec_alone():
    """The format is the spec's (``"format"``, else the resolution's), the values
    rounded to it, and a time of day never reads 24:00."""
    spec = kind_of("time").resolve("t", {"type": "time", "bounds": ["00:00", "24:00"]})
    for extra, expected in (({}, "23:59:59"), ({"resolution": "minute"}, "23:59"),
                            ({"resolution": "hour", "format": "HH:MM:SS"}, "23:00:00")):
        codec = kind_of("time").codec("t", {**spec, **extra})
        out = codec.decode(np.array([1.0, -1.0]), None, np.array([False, True]), None, False)
        assert out.tolist() == [expected, None]


@pytest.mark.parametrize("cls", [DPHPSynthesizer, MarginalSynthesizer])
def test_a_declared_time_column_round_trips(cls):
    rng = np.random.default_rng(0)
    n = 2_000
    seconds = rng.integers(8 * 3600, 18 * 3600, n)
    X = pd.DataFrame({"t": _clock(seconds), "x": seconds / 3600 + rng.normal(size=n),
                      "d": pd.to_timedelta(rng.integers(0, 40 * 3600, n), unit="s")})
    X.loc[rng.random(n) < 0.2, "t"] = None
    schema = {"t": {"type": "time", "bounds": ["08:00", "18:00"], "missing": True},
              "x": {"type": "numeric", "bounds": [0, 24]},
              "d": {"type": "time", "bounds": ["00:00", "48:00"], "resolution": "minute"}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synth = cls(schema=schema, **FAST[cls]).fit(X, epsilon=3.0)
    out = synth.sample(1_000, random_state=0)[0]
    assert out["t"].dtype == object and out["d"].dtype == object
    present = out["t"].dropna()
    assert 0.1 < 1 - len(present) / len(out) < 0.3  # missing at about its rate
    assert all(HMS.fullmatch(v) for v in present)
    assert 8 * 3600 <= min(map(_seconds, present)) and max(map(_seconds, present)) <= 18 * 3600
    assert all(HM.fullmatch(v) for v in out["d"])  # minutes: HH:MM, hours past 24
    assert max(map(_seconds, out["d"])) > 24 * 3600
    # what the data holder reads of it: hours on a line, within the bounds
    read = read_column(out["t"], schema["t"])
    assert read.kind == "time" and read.bounds == (8.0, 18.0)


def test_a_table_with_a_time_of_day_is_estimated_as_times():
    """No schema, 5,000 rows, ε = 1: the column is typed time from the kinds
    release, its bounds are released hours around the values, and it is
    written as times in them (it was 100 % "other")."""
    rng = np.random.default_rng(1)
    n = 5_000
    seconds = rng.integers(7 * 3600, 20 * 3600, n)
    X = pd.DataFrame({"t": _clock(seconds), "hm": [v[:5] for v in _clock(seconds)],
                      "x": rng.normal(size=n)})
    with warnings.catch_warnings(), reproducible_noise(0):  # the noise drawn once for all
        warnings.simplefilter("ignore")
        synth = MarginalSynthesizer(random_state=0).fit(X, epsilon=1.0)
    schema = synth.schema_
    assert schema["t"]["type"] == schema["hm"]["type"] == "time"
    assert schema["t"]["resolution"] == "second" and schema["hm"]["resolution"] == "minute"
    lo, hi = (_seconds(b) for b in schema["t"]["bounds"])
    assert 6 * 3600 <= lo <= 7 * 3600 and 20 * 3600 <= hi <= 21 * 3600
    out = synth.sample(2_000, random_state=0)[0]
    assert all(HMS.fullmatch(v) for v in out["t"]) and all(HM.fullmatch(v) for v in out["hm"])
    written = np.array([_seconds(v) for v in out["t"]])
    assert lo <= written.min() and written.max() <= hi
    assert np.mean((written >= 7 * 3600) & (written < 20 * 3600)) > 0.95
    assert not [i for i in synth.schema_issues_ if i["column"] in ("t", "hm")]


def test_a_time_s_form_changes_nothing():
    """Text, unpadded text, ``datetime.time`` and ``Timedelta`` are one value: the
    outputs are bit-identical under the same noise."""
    rng = np.random.default_rng(2)
    n = 600
    seconds = rng.integers(6 * 3600, 22 * 3600, n) // 60 * 60
    text = pd.DataFrame({"t": _clock(seconds), "x": rng.integers(0, 9, n)})
    forms = {
        "unpadded": text.assign(t=[f"{s // 3600}:{s // 60 % 60:02d}" for s in seconds]),
        "time objects": text.assign(t=[datetime.time(s // 3600, s // 60 % 60) for s in seconds]),
        "timedelta": text.assign(t=pd.to_timedelta(seconds, unit="s")),
    }

    def outputs(X):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with reproducible_noise(7):
                synth = MarginalSynthesizer(random_state=0).fit(X, epsilon=1.0)
        return synth.schema_, synth.privacy_report_.to_dict(), synth.sample(50, random_state=0)[0]

    schema, report, rows = outputs(text)
    assert schema["t"]["type"] == "time"
    for name, X in forms.items():
        got = outputs(X)
        assert got[0] == schema and got[1] == report, name
        pd.testing.assert_frame_equal(got[2], rows)


def test_the_command_line_writes_and_evaluates_times(tmp_path, capsys):
    """``skdpgen synthesize`` without a schema writes the times (no advice to list
    them as categories), and ``skdpgen evaluate`` reads the column as times."""
    from skdpgen.cli import main

    rng = np.random.default_rng(3)
    n = 5_000
    seconds = rng.integers(7 * 3600, 20 * 3600, n)
    X = pd.DataFrame({"t": _clock(seconds), "c": rng.choice(["a", "b"], n)})
    X.to_csv(tmp_path / "t.csv", index=False)
    assert main(["synthesize", str(tmp_path / "t.csv"), "--epsilon", "1", "--out",
                 str(tmp_path / "o.csv"), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "country names" not in err and "'t'" not in err
    out = pd.read_csv(tmp_path / "o.csv", dtype=str)
    assert all(HMS.fullmatch(v) for v in out["t"])
    assert main(["evaluate", str(tmp_path / "t.csv"), str(tmp_path / "o.csv"), "--json",
                 "--quiet"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["kinds"]["t"] == "time"
    assert report["fidelity"]["tv_1way_columns"]["t"] < 0.1


def test_the_data_holder_s_check_counts_times():
    X = pd.DataFrame({"t": ["08:00", "12:00:30", "23:00", "noon", None]})
    counts = check_table(X, {"t": {"type": "time", "bounds": ["08:00", "20:00"]}})
    assert counts.loc["t", ["not_parsed", "clipped"]].tolist() == [1, 1]
    encoded = TableEncoder({"t": {"type": "time", "bounds": ["08:00", "20:00"]}}).fit(
        X).transform(X)  # never an error: clipped, imputed
    assert np.all(np.isfinite(encoded))
