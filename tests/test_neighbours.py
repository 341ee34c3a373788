"""Neighbouring inputs through every entry point, compared the way an attacker would.

Two inputs that differ only in the *form* of their values (``3`` / ``"3"`` /
``3.0``, ``True`` / ``"TRUE"``, an empty cell / NaN / ``"NA"``, a column's
dtype, which form comes first, a date with a UTC offset or without) must
give bit-identical outputs under the same reproducible noise: schema,
classes, output dtypes, synthetic rows, privacy report. Two inputs that
differ in one record's *value* must give the same release plan (names,
sensitivities, noise multipliers, counts, order) and the same exit status:
whatever else differs, differs only through noisy releases. Each path is
covered: DataFrame, NumPy array, Python lists, a CSV file through the
command line, Dask.
"""

import contextlib
import datetime
import functools
import io
import json
import warnings

import numpy as np
import pandas as pd
import pytest

from skdpgen import DPHPSynthesizer, MarginalSynthesizer
from skdpgen.cli import main
from skdpgen.private_schema import SchemaPlan, estimate_schema
from skdpgen.rows import table_rows
from skdpgen.privacy import GaussianAccountant, reproducible_noise

N = 400
FAST = dict(epochs=1, steps_per_epoch=2, batch_size=64, random_state=0)
#: each synthesizer's small settings; the Python paths' attacks run on both
SMALL = {DPHPSynthesizer: FAST,
         MarginalSynthesizer: dict(epochs=1, steps_per_epoch=2, n_components=64, random_state=0)}


def _table(n=N, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "age": rng.integers(18, 90, n),
        "member": rng.choice([True, False], n),
        "city": rng.choice(["Paris", "Lyon", "Nice"], n, p=[0.5, 0.3, 0.2]),
        "when": pd.to_datetime("2020-01-01") + pd.to_timedelta(rng.integers(0, 900, n), "D"),
        "income": np.where(rng.random(n) < 0.1, np.nan, rng.lognormal(10, 1, n).round(2)),
        "clock": [f"{m // 60:02d}:{m % 60:02d}" for m in rng.integers(7 * 60, 21 * 60, n)],
    })
    y = rng.integers(0, 2, n)
    return X, y


def _canon(value):
    """A structure's exact repr with NumPy scalars as Python ones (types kept)."""
    if isinstance(value, dict):
        return {repr(k): _canon(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_canon(v) for v in value]
    if isinstance(value, np.ndarray):
        return [repr(v) for v in value.tolist()] + [str(value.dtype)]
    if isinstance(value, np.generic):
        return repr(value.item()) + type(value).__name__
    return repr(value)


def _outputs(X, y, cls=DPHPSynthesizer, **params):
    """Everything a fit produces, under reproducible noise, in a comparable form."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with reproducible_noise(7):
            base = getattr(cls, "func", cls)  # a class, or a partial of one
            synth = base(**{**SMALL[base], **getattr(cls, "keywords", {}), **params}).fit(
                X, y, epsilon=1.0)
        Xs, ys = synth.sample(30, random_state=0)
    frame = Xs if isinstance(Xs, pd.DataFrame) else pd.DataFrame(Xs)
    return {
        "schema": _canon(synth.schema_),
        "classes": _canon(synth.classes_),
        "dtypes": [str(t) for t in frame.dtypes],
        "rows": _canon(frame.astype(object).where(frame.notna(), None).values.tolist()),
        "labels": _canon(ys),
        "report": _canon(synth.privacy_report_.to_dict()),
        "plan": _plan(synth.privacy_report_.to_dict()),
    }


def _plan(report_dict):
    """The release plan of a report (a dict from ``to_dict``): names, sensitivities,
    noise multipliers, counts, in order; and the selections."""
    return ([(r["release"], r["sensitivity"], r["noise_multiplier"], r["count"])
             for r in report_dict["releases"]], report_dict["selections"],
            report_dict["epsilon"])


def _fixed_plan(plan):
    """The plan made before any later round of ``round_selection="error"``: those
    rounds (their candidates, whether they stop, so the epsilon spent) are decided
    by noisy releases, which tests/test_replay.py checks ("marginals-error-rounds");
    the whole plan of any other fit."""
    releases, selections, epsilon = plan
    rounds = [r for r in releases if r[0].startswith(("round selection", "round marginals"))]
    if not rounds:
        return plan
    return [r for r in releases if r not in rounds], selections


# -- representation-only changes ------------------------------------------------

def _as_text(X):
    """Every cell as the text a CSV file would hold (NaN as an empty cell)."""
    out = X.astype(object).where(X.notna(), "")
    out["when"] = X["when"].dt.strftime("%Y-%m-%d")
    return out.map(str)


REPRESENTATIONS = {
    "all text": lambda X, y: (_as_text(X), y.astype(str)),
    "object dtypes": lambda X, y: (X.astype(object), y.astype(object)),
    "int as float and str": lambda X, y: (
        X.assign(age=[float(a) if i % 2 else f" {a} " for i, a in enumerate(X["age"])]),
        np.array([float(v) if i % 3 else str(v) for i, v in enumerate(y)], dtype=object)),
    "bools as text": lambda X, y: (
        X.assign(member=X["member"].map({True: "TRUE", False: "false"})), y),
    "missing spellings": lambda X, y: (
        X.assign(income=[("NA" if i % 3 == 0 else None if i % 3 == 1 else "")
                         if np.isnan(v) else v for i, v in enumerate(X["income"])]), y),
    "dates with offsets and as text": lambda X, y: (
        X.assign(when=[(w.tz_localize("UTC").tz_convert("Asia/Tokyo") if i % 2
                        else w.strftime("%Y-%m-%dT%H:%M:%S"))
                       for i, w in enumerate(X["when"])]), y),
    "first form": lambda X, y: (
        X.assign(age=X["age"].astype(object).where(X.index != 0, str(X["age"][0]))),
        y.astype(object)),
    "times as objects and durations": lambda X, y: (
        X.assign(clock=[(datetime.time(*map(int, c.split(":"))) if i % 2 else
                         pd.Timedelta(c + ":00")) for i, c in enumerate(X["clock"])]), y),
    "categorical dtypes": lambda X, y: (
        X.assign(city=X["city"].astype("category"), member=X["member"].astype("boolean")),
        pd.Series(y).astype("category")),
}


@pytest.fixture(scope="module",
                params=[DPHPSynthesizer, MarginalSynthesizer, "selected", "error-rounds",
                        "error-rounds-no-pair"],
                ids=["dphp", "marginals", "marginals-selected", "marginals-error-rounds",
                     "marginals-error-rounds-no-pair"])
def reference(request):
    # error rounds measure a marginal only where its noise is at most a quarter of
    # the rows (POLICY.round_noise_share): at 400 rows no pair qualifies
    X, y = _table(n=1500) if request.param == "error-rounds" else _table()
    cls = request.param
    if cls == "selected":  # the pairs chosen privately (2 of the 10), then measured
        cls = functools.partial(MarginalSynthesizer, max_pairs=2)
    if cls == "error-rounds":  # a later round chooses by the model's errors, measures
        cls = functools.partial(MarginalSynthesizer, max_pairs=2, rounds=2,
                                round_selection="error")
    if cls == "error-rounds-no-pair":  # no pair in the first round: the rounds measure pairs
        cls = functools.partial(MarginalSynthesizer, pair_share=0, rounds=2,
                                round_selection="error")
    out = _outputs(X, y, cls)
    releases = [release[0] for release in out["plan"][0]]
    assert ("pair selection" in releases) == (request.param in ("selected", "error-rounds"))
    if request.param == "error-rounds":  # its columns are independent: the round stops
        assert "round selection, round 1" in releases
    if request.param == "error-rounds-no-pair":  # the best pair is always measured
        assert {"round selection, round 1", "round marginals, round 1"} <= set(releases)
    return X, y, out, cls


@pytest.mark.parametrize("name", list(REPRESENTATIONS))
def test_dataframe_representation_changes_nothing(reference, name):
    X, y, expected, cls = reference
    X2, y2 = REPRESENTATIONS[name](X.copy(), y.copy())
    assert _outputs(X2, y2, cls) == expected


def test_row_order_changes_no_decision(reference):
    X, y, expected, cls = reference
    order = np.random.default_rng(1).permutation(len(X))
    got = _outputs(X.iloc[order].reset_index(drop=True), y[order], cls)
    for key in ("schema", "classes", "dtypes"):
        assert got[key] == expected[key]
    assert got["plan"] == expected["plan"]


def _numeric_table(n=2 * N):
    """Two numeric columns and two classes of ~400 rows each (well above the
    class selection's threshold, so that no noise draw can leave one class)."""
    rng = np.random.default_rng(3)
    X = np.column_stack([rng.integers(0, 50, n).astype(float), rng.normal(5, 2, n)])
    X[::37, 1] = np.nan
    return X, rng.integers(0, 2, n)


@pytest.mark.parametrize("cls", [DPHPSynthesizer, MarginalSynthesizer],
                         ids=["dphp", "marginals"])
def test_array_and_list_representations_change_nothing(cls):
    X, y = _numeric_table()
    expected = _outputs(X, y, cls)
    as_object = X.astype(object)
    as_object[::5, 0] = [str(int(v)) for v in X[::5, 0]]
    variants = {
        "object array": (as_object, y.astype(object)),
        "text array": (np.where(np.isnan(X), "", X.astype(str)), y.astype(str)),
        "lists": (as_object.tolist(), [int(v) for v in y]),
        "float labels": (X.copy(), y.astype(float)),
    }
    for name, (X2, y2) in variants.items():
        got = _outputs(X2, y2, cls)
        assert got == expected, name


def test_dask_gives_the_in_memory_outputs(reference):
    dd = pytest.importorskip("dask.dataframe")
    import dask

    X, y, expected, cls = reference
    frame = X.assign(_y=y)
    ddf = dd.from_pandas(frame, npartitions=3)
    with dask.config.set(scheduler="synchronous"):
        got = _outputs(ddf.drop(columns="_y"), ddf["_y"], cls)
        text = dd.from_pandas(_as_text(X).assign(_y=y.astype(str)), npartitions=2)
        got_text = _outputs(text.drop(columns="_y"), text["_y"], cls)
    assert got["schema"] == expected["schema"]
    assert got["classes"] == expected["classes"]
    assert got["dtypes"] == expected["dtypes"]
    assert got["report"] == expected["report"]
    assert got_text["schema"] == expected["schema"]
    assert got_text["report"] == expected["report"]


def test_dask_schema_estimate_computes_no_column_on_the_client(monkeypatch):
    dd = pytest.importorskip("dask.dataframe")
    import dask

    X, y = _table()
    frame = dd.from_pandas(X.assign(_y=y), npartitions=4)
    Xd, yd = frame.drop(columns="_y"), frame["_y"]
    with reproducible_noise(3), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = estimate_schema(X, y, epsilon=1.0)
    with dask.config.set(scheduler="synchronous"):
        for cls in (type(Xd), type(yd)):
            def refuse(self, *args, **kwargs):
                raise AssertionError("a column was computed on the client")
            monkeypatch.setattr(cls, "compute", refuse)
        with reproducible_noise(3), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = estimate_schema(Xd, yd, epsilon=1.0)
    assert _canon(got[0]) == _canon(expected[0])
    assert _canon(got[1]) == _canon(expected[1])
    assert got[2].to_dict() == expected[2].to_dict()


# -- the command line ----------------------------------------------------------

_nothing = contextlib.nullcontext

def _write_csv(path, rows):
    path.write_text("age,member,y\n" + "\n".join(rows) + "\n")


def _csv_rows(n=600, seed=1):
    rng = np.random.default_rng(seed)
    return [f"{a},{m},{v}" for a, m, v in zip(rng.integers(18, 90, n),
                                               rng.choice(["True", "False"], n),
                                               rng.integers(0, 2, n))]


def _cli(tmp_path, name, rows, *extra):
    data = tmp_path / f"{name}.csv"
    _write_csv(data, rows)
    out = tmp_path / f"{name}.syn.csv"
    strict = "--strict" in extra  # reproducible noise is a leak: --strict refuses it
    with warnings.catch_warnings(), reproducible_noise(5) if not strict else _nothing():
        warnings.simplefilter("ignore")
        # --allow-guesses: at 600 rows the estimate may be a guess, and these tests
        # compare what neighbours write (the refusal is post-processing alike)
        code = main(["synthesize", str(data), "--target", "y", "--epsilon", "1", "--out",
                     str(out), "--quiet", "--random-state", "0", "--allow-guesses", *extra])
    if code != 0:
        return code, None, None
    report = json.loads((tmp_path / f"{name}.syn.privacy.json").read_text())
    return code, pd.read_csv(out, dtype=str, keep_default_na=False), report


def test_cli_finding_1_neighbours_release_alike(tmp_path):
    """Finding 1: one record's ``unknown`` age and empty cells retyped the whole table."""
    rows = _csv_rows()
    code, out, report = _cli(tmp_path, "D", rows)
    code2, out2, report2 = _cli(tmp_path, "D2", rows[:-1] + ["unknown,,"])
    assert code == code2 == 0
    assert _plan(report) == _plan(report2)
    assert report["epsilon"] == report2["epsilon"]
    assert set(out["member"]) <= {"True", "False"} and set(out2["member"]) <= {"True", "False"}
    assert set(out["y"]) <= {"0", "1"} and set(out2["y"]) <= {"0", "1"}
    assert all(v.lstrip("-").isdigit() for v in out2["age"])


def test_cli_representation_only_change_is_bit_identical(tmp_path):
    rows = _csv_rows()
    spelled = [r.replace("True", "true").replace(",0", ",0.0") if i % 2 else r
               for i, r in enumerate(rows)]
    first = _cli(tmp_path, "A", rows)
    second = _cli(tmp_path, "B", spelled)
    assert first[0] == second[0] == 0
    pd.testing.assert_frame_equal(first[1], second[1])
    assert first[2] == second[2]


def test_cli_declared_schema_with_missing_cell_and_strict(tmp_path):
    """Finding 1 (strict): a declared categorical ["1", "2"] with one empty cell."""
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({
        "age": {"type": "numeric", "bounds": [0, 100], "integer": True},
        "member": {"type": "categorical", "categories": ["1", "2"], "missing": True},
        "y": {"type": "categorical", "categories": ["0", "1"]}}))
    rows = [r.replace("True", "1").replace("False", "2") for r in _csv_rows()]
    code, out, report = _cli(tmp_path, "S1", rows, "--schema", str(schema), "--strict")
    code2, out2, report2 = _cli(tmp_path, "S2", rows[:-1] + ["40,,1"], "--schema",
                                str(schema), "--strict")
    assert code == code2 == 0
    assert _plan(report) == _plan(report2)
    assert set(out2["member"]) <= {"1", "2", ""}


def test_schema_command_tz_offset_neighbour(tmp_path):
    """Finding 4: one date with a UTC offset made ``skdpgen schema`` exit 2."""
    rng = np.random.default_rng(0)
    days = pd.to_datetime("2021-01-01") + pd.to_timedelta(rng.integers(0, 400, 500), "D")
    text = [d.strftime("%Y-%m-%d %H:%M") for d in days]
    codes = []
    for name, values in (("naive", text), ("offset", text[:-1] + ["2021-03-01 10:00+02:00"])):
        path = tmp_path / f"{name}.csv"
        path.write_text("when\n" + "\n".join(values) + "\n")
        with warnings.catch_warnings(), reproducible_noise(2):
            warnings.simplefilter("ignore")
            codes.append(main(["schema", str(path), "--epsilon", "1", "--out",
                               str(tmp_path / f"{name}.json")]))
    assert codes == [0, 0]
    a = json.loads((tmp_path / "naive.json").read_text())
    b = json.loads((tmp_path / "offset.json").read_text())
    assert a["when"]["type"] == b["when"]["type"] == "datetime"


# -- value changes: same plan, same exit status ----------------------------------

VALUE_CHANGES = {
    "text in a numeric column": lambda X, y: (X.assign(age=X["age"].astype(object).where(
        X.index != len(X) - 1, "unknown")), y),
    "infinity": lambda X, y: (X.assign(income=X["income"].where(X.index != 0, np.inf)), y),
    "extreme value": lambda X, y: (X.assign(income=X["income"].where(X.index != 0, 1e300)), y),
    "rare category": lambda X, y: (X.assign(city=X["city"].where(X.index != 0, "Alice, HIV+")),
                                   y),
    "new label": lambda X, y: (X, np.where(np.arange(len(y)) == 0, 7, y)),
    "missing label": lambda X, y: (X, pd.Series(y, dtype=object).where(y.astype(bool) |
                                                                       (np.arange(len(y)) > 0),
                                                                       None)),
    "offset date among naive": lambda X, y: (X.assign(when=X["when"].astype(object).where(
        X.index != 0, "2020-06-01T10:00:00+02:00")), y),
    "one missing bool": lambda X, y: (X.assign(member=X["member"].astype(object).where(
        X.index != 0, None)), y),
    "a duration among times of day": lambda X, y: (X.assign(clock=X["clock"].where(
        X.index != 0, "400 days 01:00:00")), y),
}


@pytest.mark.parametrize("name", list(VALUE_CHANGES))
def test_value_change_keeps_the_release_plan(reference, name):
    X, y, expected, cls = reference
    X2, y2 = VALUE_CHANGES[name](X.copy(), y.copy())
    got = _outputs(X2, y2, cls)  # no exception: a record's value never fails the fit
    assert _fixed_plan(got["plan"]) == _fixed_plan(expected["plan"])
    assert list(got["schema"]) == list(expected["schema"])


@pytest.mark.parametrize("path", ["array", "lists"])
def test_array_value_changes_fit(path):
    """Findings 2 and 5: one NaN or infinity in an array failed the fit."""
    X, y = _numeric_table()
    X = X.copy()
    X[:, 1] = np.where(np.isnan(X[:, 1]), 4.0, X[:, 1])  # no missing value at all
    base = _outputs(X if path == "array" else X.tolist(), y)
    for value in (np.nan, np.inf, -np.inf):
        X2 = X.copy()
        X2[0, 0] = value
        got = _outputs(X2 if path == "array" else X2.tolist(), y)
        assert got["plan"] == base["plan"]


# -- findings 3, 6, 7, 8 -------------------------------------------------------------

def _fit_classes(y, n=300):
    X = np.random.default_rng(0).uniform(0, 1, size=(n, 2))
    with warnings.catch_warnings(), reproducible_noise(1):
        warnings.simplefilter("ignore")
        return DPHPSynthesizer(bounds=(0, 1), **FAST).fit(X, y, epsilon=5.0).classes_


def test_class_list_does_not_depend_on_a_label_s_type():
    """Finding 3: ``3`` vs ``"3"`` in an object column flipped the class order."""
    y = np.array([2] * 150 + [10] * 150, dtype=object)
    y_str = y.copy()
    y_str[-1] = "10"
    X = pd.DataFrame({"x": np.zeros(len(y))})
    with warnings.catch_warnings(), reproducible_noise(1):
        warnings.simplefilter("ignore")
        estimated = [estimate_schema(X, labels, schema={"x": {"type": "numeric",
                                                             "bounds": [0, 1]}},
                                     epsilon=5.0)[1] for labels in (y, y_str)]
    assert estimated[0] == estimated[1] == [2, 10]  # numbers in their order, not as text
    a, b = _fit_classes(y), _fit_classes(y_str)
    assert _canon(a) == _canon(b)
    assert list(a) == [2, 10]
    assert _canon(_fit_classes(list(y))) == _canon(a)


def test_first_form_does_not_name_the_category():
    """Finding 6: the form seen first became the released category."""
    n = 600
    values = ["a"] * (n // 2) + [1] * (n // 2)
    X1 = pd.DataFrame({"c": values})
    X2 = pd.DataFrame({"c": [1.0] + values[1:n // 2] + ["1"] * (n // 2)})
    X2.loc[0, "c"] = "a"
    X2.loc[n // 2, "c"] = 1.0
    out = []
    for X in (X1, X2):
        with warnings.catch_warnings(), reproducible_noise(4):
            warnings.simplefilter("ignore")
            out.append(_canon(estimate_schema(X, epsilon=5.0)[0]))
    assert out[0] == out[1]


def test_noisy_keeps_only_the_released_counts():
    """Finding 7: ``noisy_`` held the noisy counts of keys the selection dropped."""
    n = 2000
    base = pd.DataFrame({"c": ["a"] * (n // 2) + ["b"] * (n // 2)})
    rare = base.copy()
    rare.loc[0, "c"] = "zzz"
    lengths = []
    for X in (base, rare):
        plan = SchemaPlan.from_table(X)
        with warnings.catch_warnings(), reproducible_noise(0):
            warnings.simplefilter("ignore")
            acc = GaussianAccountant(1.0, 1e-5, plan.shares(), selections=plan.selections())
            plan.estimate(table_rows(X), acc)
        lengths.append(len(plan.noisy_["c"]))
    assert lengths == [2, 2]


def test_messages_never_quote_a_record(capsys):
    """Finding 8: values outside a declared schema were printed in errors."""
    secret = "Alice Smith, HIV+"
    X = pd.DataFrame({"c": ["a", "b"] * 100, "d": ["2020-01-01"] * 200})
    X.loc[5, "c"] = secret
    X.loc[6, "d"] = secret
    y = np.array([0, 1] * 100, dtype=object)
    y[7] = secret
    schema = {"c": {"type": "categorical", "categories": ["a", "b"]},
              "d": {"type": "datetime", "bounds": ["2019-01-01", "2021-01-01"]}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        synth = DPHPSynthesizer(schema=schema, classes=[0, 1], **FAST).fit(X, y)
    assert not any(secret in str(w.message) for w in caught)
    assert secret not in repr(vars(synth))
    with pytest.raises(ValueError) as info:
        synth.sample(3, y=[secret] * 3)
    assert secret not in str(info.value)


# -- issue 38: the release command, complex values, far-out dates ----------------

ODD_NUMBERS = ["Alice HIV+", "", None, np.nan, np.inf, -np.inf, 3 + 1j, b"\xe9", "2024-01-01"]


def _numeric_paths(X):
    """One numeric table through each in-memory entry point."""
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    return {"array": np.asarray(X, dtype=object), "lists": np.asarray(X, dtype=object).tolist(),
            "frame": frame}


def _numeric_fits():
    from skdpgen import DPKMEReleaser, KernelMeanEmbedding

    return {
        "release": lambda X: DPKMEReleaser(bounds=(-3, 3), n_points=20,
                                           random_state=0).fit(X).weights_,
        "release-features": lambda X: DPKMEReleaser(
            method="features", bounds=(-3, 3), n_points=10, n_iter=3, random_state=0,
            device="cpu").fit(X).weights_,
        "embedding": lambda X: KernelMeanEmbedding(epsilon=1.0).fit(X).embedding_,
    }


@pytest.mark.parametrize("estimator", ["release", "release-features", "embedding"])
def test_numeric_estimators_read_one_odd_record_in_its_own_row(estimator):
    """Finding 1: ``DPKMEReleaser`` and ``KernelMeanEmbedding`` converted values
    with ``dtype=float``: one record's text, empty cell or inf failed the fit and
    the message quoted it. Now a record of any value fits, on every entry point,
    and gives what that record read by its canonical form gives (0 for what is
    not a number, the largest float for inf) under the same noise."""
    fit = _numeric_fits()[estimator]
    X = np.random.default_rng(0).normal(size=(N, 3))
    for odd in ODD_NUMBERS:
        read = {np.inf: np.finfo(float).max, -np.inf: -np.finfo(float).max}.get(odd, 0.0)
        reference = X.copy()
        reference[5, 1] = read
        for path, table in _numeric_paths(np.where(np.arange(N)[:, None] == 5,
                                                   np.array([X[5, 0], odd, X[5, 2]],
                                                            dtype=object),
                                                   X.astype(object))).items():
            with warnings.catch_warnings(), reproducible_noise(3):
                warnings.simplefilter("ignore")
                got = fit(table)
            with warnings.catch_warnings(), reproducible_noise(3):
                warnings.simplefilter("ignore")
                expected = fit(reference)
            np.testing.assert_array_equal(got, expected, err_msg=f"{odd!r} via {path}")


def test_numeric_estimators_on_dask_read_odd_records_as_in_memory():
    da = pytest.importorskip("dask.array")
    import dask

    X = np.random.default_rng(0).normal(size=(N, 3)).astype(object)
    X[5, 1], X[N - 1, 0] = "Alice HIV+", 3 + 1j
    for name, fit in _numeric_fits().items():
        if name == "release-features":
            continue  # the same rows layer as "release"
        with dask.config.set(scheduler="synchronous"):
            with warnings.catch_warnings(), reproducible_noise(3):
                warnings.simplefilter("ignore")
                got = fit(da.from_array(X, chunks=(150, 3)))
        with warnings.catch_warnings(), reproducible_noise(3):
            warnings.simplefilter("ignore")
            expected = fit(X)
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12, err_msg=name)


def test_release_command_neighbours(tmp_path):
    """Finding 1 on the command line: ``--method release`` printed a record
    (``could not convert string to float: 'Alice HIV+'``) and exited 2 on it, on
    an empty cell and on inf; the neighbours now both exit 0, write the same
    number of rows and quote nothing."""
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({c: {"type": "numeric", "bounds": [-3, 3]} for c in "ab"}))
    rng = np.random.default_rng(0)
    rows = [f"{a:.3f},{b:.3f}" for a, b in rng.normal(size=(N, 2))]
    outputs = {}
    for name, record in (("D", rows[-1]), ("odd", "Alice HIV+,3"), ("empty", ",3"),
                         ("inf", "inf,-inf"), ("complex", "(3+1j),2")):
        data = tmp_path / f"{name}.csv"
        data.write_text("a,b\n" + "\n".join(rows[:-1] + [record]) + "\n")
        out = tmp_path / f"{name}.syn.csv"
        printed = io.StringIO()
        with warnings.catch_warnings(), reproducible_noise(5), \
                contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
            warnings.simplefilter("ignore")
            code = main(["synthesize", str(data), "--method", "release", "--schema", str(schema),
                         "--epsilon", "1", "--out", str(out), "--random-state", "0", "--quiet"])
        text = printed.getvalue()
        assert code == 0, text
        assert "Alice" not in text and "could not convert" not in text
        report = json.loads((tmp_path / f"{name}.syn.privacy.json").read_text())
        outputs[name] = (len(pd.read_csv(out)), _plan(report))
    assert len(set(map(repr, outputs.values()))) == 1, outputs


def _complex_neighbours(n=1_000):
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"x": rng.normal(0, 2.8, n).round(2), "c": rng.choice(["u", "v"], n)})
    X2 = X.copy()
    X2["x"] = X2["x"].astype(complex)  # pandas types the column complex128 ...
    X2.loc[7, "x"] = 3 + 1j  # ... because of one record
    return X, X2, rng.integers(0, 2, n)


@pytest.mark.parametrize("path", ["frame", "array", "lists"])
def test_one_complex_value_changes_only_its_own_row(path):
    """Finding 2: one ``3+1j`` among floats made pandas type the column
    complex128, and every value of it was then read as text: 998 of 1,000
    encoded values changed and the synthetic column collapsed. Now the
    encoded rows differ in that record's row only, and the plan is the same."""
    X, X2, y = _complex_neighbours()
    schema = {"x": {"type": "numeric", "bounds": [-10, 10]},
              "c": {"type": "categorical", "categories": ["u", "v"]}}
    form = {"frame": lambda T: T, "array": lambda T: T.to_numpy(),
            "lists": lambda T: T.to_numpy().tolist()}[path]
    encoded, plans = [], []
    for table in (X, X2):
        with warnings.catch_warnings(), reproducible_noise(2):
            warnings.simplefilter("ignore")
            synth = DPHPSynthesizer(schema=schema if path == "frame" else
                                    {i: s for i, s in enumerate(schema.values())},
                                    classes=[0, 1], **FAST).fit(form(table), y)
        encoded.append(synth.encoder_.transform(form(table)))
        plans.append(_plan(synth.privacy_report_.to_dict()))
    changed = np.flatnonzero(np.any(encoded[0] != encoded[1], axis=1))
    assert changed.tolist() == [7]
    assert plans[0] == plans[1]
    # without a schema the column's kind is estimated alike on both sides
    kinds = []
    for table in (X, X2):
        with warnings.catch_warnings(), reproducible_noise(2):
            warnings.simplefilter("ignore")
            kinds.append(estimate_schema(form(table), y, epsilon=1.0)[0])
    assert [list(k.values())[0]["type"] for k in kinds] == ["numeric", "numeric"]
    assert _canon(kinds[0]) == _canon(kinds[1])


def test_complex_labels_are_read_by_value():
    """Finding 2 for labels: a complex Series of labels (one record ``5+2j``)
    read every label as text (``'(1+0j)'``): the estimated class list and
    every row's class changed. Now ``1+0j`` is the label 1, the odd record a
    label of its own row."""
    from skdpgen.rows import encode_labels

    X, _, y = _complex_neighbours(600)
    labels = pd.Series(y.astype(complex))
    labels[3] = 5 + 2j
    codes = [encode_labels(t, [0, 1], unlisted=0) for t in (y, labels)]
    assert np.flatnonzero(codes[0] != codes[1]).tolist() in ([], [3])
    estimated = []
    for target in (y, labels):
        with warnings.catch_warnings(), reproducible_noise(2):
            warnings.simplefilter("ignore")
            estimated.append(_canon(estimate_schema(X[["x"]], target, epsilon=1.0)[1]))
    assert estimated[0] == estimated[1] == _canon([0, 1])


FAR_DATES = {"America/New_York": ["2262-04-11 23:00", "9999-01-01"],
             "Europe/Paris": ["0001-01-01", "1000-06-01 12:00"]}


@pytest.mark.parametrize("timezone", list(FAR_DATES))
def test_a_far_out_date_in_a_column_with_a_timezone_is_clamped(tmp_path, timezone):
    """Finding 3: with a declared timezone, one record ``2262-04-11 23:00`` or
    ``9999-01-01`` (or year 1 in Paris) raised ``OutOfBoundsDatetime`` quoting the
    date, in ``fit``, in ``estimate_schema`` with a type-only spec, and on the
    command line. Now it is clamped like any far-out date: the same plan, exit 0."""
    X, y = _table()
    declared = {"when": {"type": "datetime", "bounds": ["2020-01-01", "2022-07-01"],
                         "timezone": timezone}}
    typed = {"when": {"type": "datetime", "timezone": timezone}}
    base = None
    for far in [None] + FAR_DATES[timezone]:
        X2 = X.copy()
        if far is not None:
            X2["when"] = X2["when"].astype(object)
            X2.loc[0, "when"] = far
        with warnings.catch_warnings(record=True) as caught, reproducible_noise(1):
            warnings.simplefilter("always")
            fitted = DPHPSynthesizer(schema=declared, **FAST).fit(X2, y)
            schema, _, report = estimate_schema(X2, y, schema=typed, epsilon=1.0)
        said = " ".join(str(w.message) for w in caught)
        assert far is None or far not in said
        got = (_plan(fitted.privacy_report_.to_dict()), _plan(report.to_dict()),
               schema["when"]["type"])
        base = base or got
        assert got == base, far
        # the command line: exit 0 both ways
        frame = X2.assign(y=y)
        path = tmp_path / "far.csv"
        frame.to_csv(path, index=False)
        (tmp_path / "s.json").write_text(json.dumps(typed))
        with warnings.catch_warnings(), reproducible_noise(1), \
                contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()) as err:
            warnings.simplefilter("ignore")
            code = main(["synthesize", str(path), "--target", "y", "--schema",
                         str(tmp_path / "s.json"), "--epsilon", "1", "--out",
                         str(tmp_path / "far.syn.csv"), "--quiet", "--allow-guesses"])
        assert code == 0 and (far is None or far not in err.getvalue()), err.getvalue()
