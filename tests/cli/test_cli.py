"""Tests of the command line: end to end (subprocesses) and in-process (``main``).

In-process runs use small synthesizers (see ``fast_fits``) so that the error
paths, the privacy files and the all-or-nothing writes are cheap to check;
every ``main`` call's exit status is asserted.
"""

import json
import re
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

from skdpgen.cli import main
from skdpgen.privacy import reproducible_noise


def run(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "skdpgen", *map(str, args)],
        capture_output=True, text=True, cwd=cwd, timeout=600,
    )


def listing(folder):
    """Every entry of a folder, hidden (staging) files included."""
    return sorted(p.name for p in folder.iterdir())


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cli")
    rng = np.random.default_rng(0)
    n = 400
    frame = pd.DataFrame(
        {
            "age": rng.integers(18, 80, n),
            "hours": rng.uniform(0, 60, n).round(1),
            "city": rng.choice(["A", "B"], n),
            "label": rng.choice(["no", "yes"], n),
        }
    )
    path = tmp / "data.csv"
    frame.to_csv(path, index=False)
    schema = {
        "age": {"type": "numeric", "bounds": [18, 80], "integer": True},
        "hours": {"type": "numeric", "bounds": [0, 60]},
        "city": {"type": "categorical", "categories": ["A", "B"]},
        "label": {"type": "categorical", "categories": ["no", "yes"]},
    }
    (tmp / "schema.json").write_text(json.dumps(schema))
    return tmp, frame


def test_schema_template_has_no_values(table, fast_fits, capsys):
    tmp, frame = table
    res = run("schema", tmp / "data.csv", "--out", tmp / "template.json")
    assert res.returncode == 0, res.stderr
    template = json.loads((tmp / "template.json").read_text())
    assert list(template) == list(frame.columns)
    # column names only: no type is guessed from the values (not even from pandas'
    # dtypes, which it infers from them), nor the integer or missing flags
    blank = {"type": None, "bounds": None, "categories": None, "integer": None, "missing": None}
    assert all(spec == blank for spec in template.values())
    # nothing from the rows is in it
    text = (tmp / "template.json").read_text()
    assert '"A"' not in text and "18" not in text and "numeric" not in text

    def leaves_out(schema):
        """The columns a fit with this --schema reports as left out (--infer-schema error)."""
        (tmp / "filled.json").write_text(json.dumps(schema))
        status = main(["synthesize", str(tmp / "data.csv"), "--target", "label", "--schema",
                       str(tmp / "filled.json"), "--infer-schema", "error",
                       "--out", str(tmp / "filled.csv"), "--random-state", "0", "--quiet"])
        err = capsys.readouterr().err
        if status == 0:
            return []
        assert status == 2 and "leaves out" in err, err
        return [c for c in [*frame.columns, "classes"] if repr(c) in err]

    # as --schema, an entry whose type is left null counts as not given
    assert leaves_out(template) == ["age", "hours", "city", "classes"]
    # an entry with a type but null bounds declares the kind only: the bounds are
    # still left out
    template["age"]["type"] = "numeric"
    assert leaves_out(template) == ["age", "hours", "city", "classes"]
    # filled in, the null keys left are ignored
    template["age"].update(bounds=[18, 80], integer=True)
    template["hours"].update(type="numeric", bounds=[0, 60])
    template["city"].update(type="categorical", categories=["A", "B"])
    assert leaves_out(template) == ["classes"]
    template["label"].update(type="categorical", categories=["no", "yes"])
    assert leaves_out(template) == []
    assert (tmp / "filled.csv").exists()


@pytest.mark.parametrize("method", ["dphp", "dpmerf"])
def test_synthesize_with_public_schema(table, method):
    tmp, frame = table
    out = tmp / f"syn_{method}.csv"
    res = run(
        "synthesize", tmp / "data.csv", "--target", "label", "--schema", tmp / "schema.json",
        "--method", method, "--epsilon", "1", "--delta", "1e-5", "--out", out,
        "--random-state", "0", "--n-samples", "50", "--quiet",
    )
    assert res.returncode == 0, res.stderr
    assert "PRIVACY WARNING" not in res.stderr
    syn = pd.read_csv(out)
    assert list(syn.columns) == list(frame.columns) and len(syn) == 50
    assert set(syn["city"]) <= {"A", "B"} and set(syn["label"]) <= {"no", "yes"}
    report = json.loads((tmp / f"syn_{method}.privacy.json").read_text())
    assert report["epsilon"] == pytest.approx(1.0, abs=1e-6)
    assert "total: epsilon = 1" in (tmp / f"syn_{method}.privacy.txt").read_text()
    assert "total: epsilon = 1" in res.stdout


def test_synthesize_without_schema_warns_plainly(table, fast_fits, capsys):
    tmp, _ = table
    status = main([
        "synthesize", str(tmp / "data.csv"), "--target", "label", "--out", str(tmp / "leaky.csv"),
        "--random-state", "0", "--quiet", "--infer-schema", "data",
    ])
    err = capsys.readouterr().err
    assert status == 0, err
    assert "PRIVACY WARNING" in err
    assert "bounds of numeric column 'age'" in err
    assert "class list" in err
    assert "Traceback" not in err


def test_evaluate_prints_tables(table):
    tmp, _ = table
    res = run("synthesize", tmp / "data.csv", "--target", "label", "--schema", tmp / "schema.json",
              "--out", tmp / "ev.csv", "--random-state", "0", "--quiet")
    assert res.returncode == 0, res.stderr
    res = run("evaluate", tmp / "data.csv", tmp / "ev.csv", "--target", "label",
              "--schema", tmp / "schema.json")
    assert res.returncode == 0, res.stderr
    assert "ROC-AUC syn->real" in res.stdout and "ROC-AUC real->real" in res.stdout
    assert "1-way" in res.stdout and "2-way" in res.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["synthesize", "missing.csv", "--out", "x.csv"], "no such file"),
        (["synthesize", "{data}", "--target", "nope", "--out", "{tmp}/x.csv"], "target column"),
        (["synthesize", "{data}", "--epsilon", "0", "--out", "{tmp}/x.csv"], "epsilon"),
        (["synthesize", "{data}", "--delta", "2", "--out", "{tmp}/x.csv"], "delta"),
        (["synthesize", "{data}", "--schema", "{tmp}/bad.json", "--out", "{tmp}/x.csv"], "not valid JSON"),
        (["evaluate", "{data}", "{tmp}/other.csv"], "same columns"),
        (["synthesize", "{tmp}", "--out", "{tmp}/x.csv"], "Is a directory"),
        (["schema", "{data}", "--out", "{tmp}/no/such/dir/s.json"], "no such directory"),
    ],
)
def test_error_paths_are_one_clear_line(table, args, message, capsys, monkeypatch, fast_fits):
    tmp, frame = table
    (tmp / "bad.json").write_text("{not json")
    frame[["age"]].to_csv(tmp / "other.csv", index=False)
    args = [a.format(data=tmp / "data.csv", tmp=tmp) for a in args]
    monkeypatch.chdir(tmp)
    before = listing(tmp)
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.startswith("skdpgen: error")]
    assert len(lines) == 1 and message in lines[0]
    assert listing(tmp) == before  # a failed command writes no file


def test_error_exit_status_of_the_process(table):
    tmp, _ = table
    before = listing(tmp)
    res = run("synthesize", "missing.csv", "--out", "x.csv", cwd=tmp)
    assert res.returncode == 2
    assert "Traceback" not in res.stderr
    lines = [line for line in res.stderr.splitlines() if line.startswith("skdpgen: error")]
    assert len(lines) == 1 and "no such file" in lines[0]
    assert listing(tmp) == before


def test_bad_usage_is_an_argparse_error(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        main(["synthesize"])
    assert exit_.value.code == 2 and "usage" in capsys.readouterr().err
    pd.DataFrame({"x": [0.1, 0.2, 0.3]}).to_csv("x.csv", index=False)
    for n in ("0", "-3", "1.5", "many"):  # checked before any fit spends budget
        with pytest.raises(SystemExit) as exit_:
            main(["synthesize", "x.csv", "--n-samples", n, "--out", "syn.csv"])
        assert exit_.value.code == 2
        err = capsys.readouterr().err
        assert "--n-samples" in err
        if n in ("0", "-3"):
            assert "must be an integer >= 1" in err
    assert listing(tmp_path) == ["x.csv"]


def test_output_types_come_from_the_schema_not_the_values(tmp_path, fast_fits, capsys):
    """Whole-number values in a column declared non-integer must not make the
    synthetic column integer (that would reveal that every value is whole)."""
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"hours": rng.integers(0, 60, 300), "age": rng.integers(18, 80, 300)})
    frame.to_csv(tmp_path / "data.csv", index=False)
    schema = {"hours": {"type": "numeric", "bounds": [0, 60]},
              "age": {"type": "numeric", "bounds": [18, 80], "integer": True}}
    (tmp_path / "schema.json").write_text(json.dumps(schema))
    status = main(["synthesize", str(tmp_path / "data.csv"), "--schema", str(tmp_path / "schema.json"),
                   "--method", "dpmerf", "--out", str(tmp_path / "syn.csv"), "--random-state", "0",
                   "--n-samples", "50", "--quiet"])
    assert status == 0, capsys.readouterr().err
    syn = pd.read_csv(tmp_path / "syn.csv")
    assert (syn["hours"] % 1 != 0).any()
    assert (syn["age"] % 1 == 0).all()


# ---------------------------------------------------------------------------
# in-process: privacy files, --strict, all-or-nothing writes
# ---------------------------------------------------------------------------


@pytest.fixture
def folders(tmp_path, table):
    """(input folder with data.csv and schema.json, empty output folder)."""
    tmp, frame = table
    inp, out = tmp_path / "in", tmp_path / "out"
    inp.mkdir()
    out.mkdir()
    frame.to_csv(inp / "data.csv", index=False)
    (inp / "schema.json").write_text((tmp / "schema.json").read_text())
    return inp, out


def synthesize(inp, out, *extra, name="syn.csv"):
    return main(["synthesize", str(inp / "data.csv"), "--out", str(out / name),
                 "--random-state", "0", "--quiet", *map(str, extra)])


@pytest.mark.parametrize("method", ["marginals", "dphp", "dpmerf"])
def test_public_schema_run_is_private_and_writes_three_files(folders, fast_fits, method, capsys):
    inp, out = folders
    assert synthesize(inp, out, "--target", "label", "--schema", inp / "schema.json",
                      "--method", method, "--n-samples", 30) == 0
    captured = capsys.readouterr()
    assert "PRIVACY WARNING" not in captured.err
    # the command's words, not Python's: "DP-HP fitted on", not "DPHPSynthesizer"
    name = {"dphp": "DP-HP", "dpmerf": "DP-MERF", "marginals": "Marginal synthesizer"}[method]
    assert captured.out.startswith(f"{name} fitted on 400 rows; ")
    assert "Synthesizer" not in captured.out + captured.err
    assert listing(out) == ["syn.csv", "syn.privacy.json", "syn.privacy.txt"]
    report = json.loads((out / "syn.privacy.json").read_text())
    assert report["is_private"] is True and report["leaks"] == []
    assert report["reproducible_noise"] is False
    assert report["epsilon"] == pytest.approx(1.0, abs=1e-6)
    assert "private: yes" in (out / "syn.privacy.txt").read_text()
    syn = pd.read_csv(out / "syn.csv")
    assert len(syn) == 30 and list(syn.columns) == ["age", "hours", "city", "label"]
    # the same with --strict: nothing leaks, so nothing changes
    assert synthesize(inp, out, "--target", "label", "--schema", inp / "schema.json",
                      "--method", method, "--strict", name="strict.csv") == 0
    assert json.loads((out / "strict.privacy.json").read_text())["is_private"] is True


def test_run_without_schema_says_it_is_not_private(folders, fast_fits, capsys):
    """--infer-schema data: what the schema leaves out is read from the rows."""
    inp, out = folders
    assert synthesize(inp, out, "--target", "label", "--infer-schema", "data") == 0
    printed = capsys.readouterr()
    err = printed.err
    assert "this run is NOT differentially private" in err
    # the leak warnings name command-line options, not Python parameters
    assert "--classes a,b,c" in err and "--schema file" in err
    assert "classes=[" not in err and "bounds=(" not in err
    # ... and so do the report's leaks, printed and saved (one table, no rewriting)
    assert "skdpgen: PRIVACY WARNING: The class list was taken from the private labels y " \
           "and is released without privacy. Pass --classes a,b,c (the public list of " \
           "possible labels) to avoid this.\n" in err
    shown = printed.out + "".join((out / f"syn.privacy.{e}").read_text() for e in ("json", "txt"))
    assert "Pass --classes a,b,c" in shown and "Pass public bounds in the --schema file" in shown
    assert "classes=[" not in shown and "bounds=(" not in shown
    assert listing(out) == ["syn.csv", "syn.privacy.json", "syn.privacy.txt"]
    report = json.loads((out / "syn.privacy.json").read_text())
    assert report["is_private"] is False
    leaks = {(leak["what"], leak["column"]) for leak in report["leaks"]}
    assert leaks == {("bounds", "age"), ("bounds", "hours"), ("categories", "city"),
                     ("classes", None)}
    assert all(leak["why"] for leak in report["leaks"])
    text = (out / "syn.privacy.txt").read_text()
    assert "NOT PRIVATE" in text and "private: NO" in text
    # a partial schema: only what it leaves out is on the record
    schema = json.loads((inp / "schema.json").read_text())
    del schema["hours"]
    (inp / "partial.json").write_text(json.dumps(schema))
    assert synthesize(inp, out, "--target", "label", "--schema", inp / "partial.json",
                      "--infer-schema", "data", name="partial.csv") == 0
    report = json.loads((out / "partial.privacy.json").read_text())
    assert report["is_private"] is False
    assert [(leak["what"], leak["column"]) for leak in report["leaks"]] == [("bounds", "hours")]
    # a full schema but no noise: nothing leaked, and still not private
    assert synthesize(inp, out, "--target", "label", "--schema", inp / "schema.json",
                      "--epsilon", "inf", name="exact.csv") == 0
    assert "this run is NOT differentially private" in capsys.readouterr().err
    report = json.loads((out / "exact.privacy.json").read_text())
    assert report["is_private"] is False and report["leaks"] == []
    assert report["epsilon"] == "inf"
    assert "NO NOISE" in (out / "exact.privacy.txt").read_text()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--target", "nope"], "target column 'nope'"),
        (["--schema", "{inp}/bad.json"], "not valid JSON"),
        (["--schema", "{inp}/list.json"], "JSON object"),
        (["--schema", "{inp}/nothing.json"], "no such schema file"),
        # the first leak, its remedy in the command line's words
        (["--strict", "--infer-schema", "data"],
         "--strict: The bounds of numeric column 'age'"),
        (["--strict", "--infer-schema", "data"], "Pass public bounds in the --schema file to"),
        (["--strict", "--target", "label", "--schema", "{inp}/no_label.json",
          "--infer-schema", "data"], "Pass --classes a,b,c (the public list of possible labels)"),
        (["--target", "label", "--schema", "{inp}/no_label.json", "--infer-schema", "error"],
         "classes"),
        (["--strict", "--target", "label", "--schema", "{inp}/schema.json", "--epsilon", "inf"],
         "--strict: epsilon=inf"),  # exact releases: not private either
        (["--epsilon", "0"], "epsilon"),
        (["--delta", "1"], "delta"),
        (["--method", "release", "--target", "label", "--schema", "{inp}/schema.json"], "drop --target"),
        (["--method", "release"], "public bounds"),
        (["--out", "{out}/missing/syn.csv"], "no such directory"),
        (["--out", "{out}/folder"], "folder"),  # the output is an existing directory
        (["--out", "{out}/taken.csv"], "taken.privacy.json"),  # a privacy file cannot be written
    ],
    ids=["target", "bad-json", "not-object", "no-schema-file", "strict-bounds",
         "strict-bounds-remedy", "strict-classes", "infer-error", "strict-no-noise", "epsilon", "delta", "kme-target", "kme-bounds", "missing-dir",
         "out-is-dir", "privacy-file-blocked"],
)
def test_failed_synthesize_writes_nothing(folders, fast_fits, capsys, args, message):
    inp, out = folders
    (inp / "bad.json").write_text("{not json")
    (inp / "list.json").write_text("[1, 2]")
    schema = json.loads((inp / "schema.json").read_text())
    (inp / "no_label.json").write_text(json.dumps({k: v for k, v in schema.items() if k != "label"}))
    (out / "folder").mkdir()
    (out / "folder" / "keep.txt").write_text("x")
    (out / "taken.privacy.json").mkdir()
    before_in, before_out = listing(inp), listing(out)
    args = [a.format(inp=inp, out=out) for a in args]
    if not any(a == "--out" for a in args):
        args += ["--out", str(out / "syn.csv")]
    status = main(["synthesize", str(inp / "data.csv"), "--random-state", "0", "--quiet", *args])
    assert status == 2
    lines = [line for line in capsys.readouterr().err.splitlines()
             if line.startswith("skdpgen: error")]
    assert len(lines) == 1 and message in lines[0], lines
    # no output, no privacy files, no staging leftovers, anywhere
    assert listing(out) == before_out
    assert listing(out / "folder") == ["keep.txt"]
    assert listing(out / "taken.privacy.json") == []
    assert listing(inp) == before_in


def test_kme_honours_the_integer_flag(tmp_path, fast_fits):
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"age": rng.integers(18, 80, 200),
                          "hours": rng.integers(0, 60, 200).astype(float)})
    frame.to_csv(tmp_path / "data.csv", index=False)
    schema = {"age": {"type": "numeric", "bounds": [18, 80], "integer": True},
              "hours": {"type": "numeric", "bounds": [0, 60]}}
    (tmp_path / "schema.json").write_text(json.dumps(schema))
    out = tmp_path / "out"
    out.mkdir()
    assert main(["synthesize", str(tmp_path / "data.csv"), "--method", "release",
                 "--schema", str(tmp_path / "schema.json"), "--out", str(out / "syn.csv"),
                 "--n-samples", "300", "--random-state", "0", "--quiet"]) == 0
    syn = pd.read_csv(out / "syn.csv")
    assert list(syn.columns) == ["age", "hours"] and len(syn) == 300
    assert (syn["age"] % 1 == 0).all() and syn["age"].between(18, 80).all()
    # hours holds whole numbers in the data, but is not declared integer
    assert (syn["hours"] % 1 != 0).mean() > 0.5 and syn["hours"].between(0, 60).all()
    report = json.loads((out / "syn.privacy.json").read_text())
    assert report["is_private"] is True and report["leaks"] == []


def test_raw_csv_end_to_end_is_private(tmp_path, fast_fits, capsys):
    """A CSV with missing values, dates, text and no schema: no leak, the schema
    estimation in the privacy files, and the same columns and types back."""
    rng = np.random.default_rng(5)
    n = 3000
    a = rng.normal(50, 10, n).round(2)
    a[rng.random(n) < 0.1] = np.nan
    raw = pd.DataFrame({
        "a": a,
        "k": rng.integers(0, 10, n),
        "when": (pd.Timestamp("2021-01-01")
                 + pd.to_timedelta(rng.integers(0, 900, n), unit="D")).strftime("%Y-%m-%d"),
        "flag": rng.random(n) < 0.3,
        "city": rng.choice(["A", "B", "C"], n),
        "y": np.where(rng.random(n) < 0.4, "yes", "no"),
    })
    raw.to_csv(tmp_path / "raw.csv", index=False)
    status = main(["synthesize", str(tmp_path / "raw.csv"), "--target", "y", "--epsilon", "1",
                   "--out", str(tmp_path / "synthetic.csv"), "--random-state", "0", "--quiet",
                   "--strict"])
    assert status == 0, capsys.readouterr().err
    report = json.loads((tmp_path / "synthetic.privacy.json").read_text())
    assert report["is_private"] is True and report["leaks"] == []
    # at most the budget: every column's values release reserved a selection threshold's
    # δ, which only the selections made use, so the releases cost a little less than planned
    assert 0.95 < report["epsilon"] <= 1.0 + 1e-9
    # the cells are read as text, so no column's kind is public: each of the five
    # features gets a private release of its kind and one of its values
    counts = {r["release"]: r["count"] for r in report["releases"]}
    assert {k: v for k, v in counts.items() if k.startswith("schema")} == {
        "schema: kinds": 5, "schema: values": 5, "schema: classes": 1}
    # the report lists every selection's δ, numeric columns' values releases included
    selections = {r["release"]: r["count"] for r in report["selections"]}
    assert selections == {"schema: values": 5, "schema: classes": 1}
    syn = pd.read_csv(tmp_path / "synthetic.csv")
    assert list(syn.columns) == list(raw.columns)
    back = pd.read_csv(tmp_path / "raw.csv")
    for col in ("a", "k", "flag"):
        assert syn[col].dtype.kind == back[col].dtype.kind, col
    assert pd.to_datetime(syn["when"], format="%Y-%m-%d").notna().all()  # whole days
    assert set(syn["city"]) <= {"A", "B", "C", "other"}
    assert set(syn["y"]) <= {"yes", "no", "other"}


def test_private_schema_command(tmp_path, capsys):
    rng = np.random.default_rng(6)
    n = 3000
    pd.DataFrame({
        "x": rng.normal(0, 1, n), "c": rng.choice(["u", "v"], n),
        "label": rng.choice(["p", "q"], n),
    }).to_csv(tmp_path / "data.csv", index=False)
    out = tmp_path / "schema.json"
    assert main(["schema", str(tmp_path / "data.csv"), "--epsilon", "0.5", "--target", "label",
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "skdpgen.privacy" not in printed  # a Python name, not the command's words
    assert "the two together spend at most the sum of both reports' epsilons" in printed
    schema = json.loads(out.read_text())
    assert list(schema) == ["x", "c", "label"]
    assert schema["x"]["type"] == "numeric" and schema["c"]["type"] == "categorical"
    assert set(schema["label"]["categories"]) >= {"p", "q"}
    report = json.loads((tmp_path / "schema.privacy.json").read_text())
    assert report["is_private"] and report["epsilon"] == pytest.approx(0.5, abs=1e-6)
    # a fit with that schema spends nothing on it
    schema_only = {k: v for k, v in schema.items()}
    (tmp_path / "public.json").write_text(json.dumps(schema_only))
    assert main(["synthesize", str(tmp_path / "data.csv"), "--target", "label", "--schema",
                 str(tmp_path / "public.json"), "--out", str(tmp_path / "syn.csv"),
                 "--quiet", "--strict"]) == 0
    fit = json.loads((tmp_path / "syn.privacy.json").read_text())
    assert not any(r["release"].startswith("schema") for r in fit["releases"])


def test_private_schema_command_refuses_a_single_class(tmp_path, capsys):
    """Issue 40: 'skdpgen schema … --target churned' wrote '"churned":
    {"categories": [0]}' (one class kept), and synthesize then failed on it.
    The schema command refuses as synthesize does: exit 2, nothing written,
    --classes named, the report of what was spent."""
    rng = np.random.default_rng(0)
    n = 300  # at epsilon 0.1 the rarer class is below the selection threshold
    pd.DataFrame({"x": rng.normal(0, 1, n),
                  "churned": np.where(rng.random(n) < 0.9, 0, 1)}).to_csv(
        tmp_path / "customers.csv", index=False)
    out = tmp_path / "schema.json"
    with reproducible_noise(0), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main(["schema", str(tmp_path / "customers.csv"), "--epsilon", "0.1",
                     "--target", "churned", "--out", str(out)])
    printed = capsys.readouterr()
    assert code == 2 and not out.exists()
    assert "single class" in printed.err and "--classes" in printed.err
    assert "epsilon = 0.1" in printed.out  # the report of what was spent
    # the estimate's summary speaks command-line words, never Python parameters
    assert "classes=[" not in printed.err and "schema=" not in printed.err


def test_every_interface_names_the_same_schema_types(tmp_path, capsys):
    """Issue 40: the template said "(numeric, datetime or categorical)" and --help
    "numeric, datetime, categorical or bool"; both now name the types a schema
    accepts, from one list."""
    from skdpgen.schema._table import check_spec
    from skdpgen.schema import schema_types

    pd.DataFrame({"a": [1, 2]}).to_csv(tmp_path / "t.csv", index=False)
    assert main(["schema", str(tmp_path / "t.csv"), "--out", str(tmp_path / "s.json")]) == 0
    template_message = capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["schema", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    types = schema_types()
    words = ", ".join(types[:-1]) + " or " + types[-1]
    assert words in template_message and words in help_text
    assert "bool" not in help_text
    for kind in types:  # each is a type a schema file may declare
        spec = {"type": kind, "bounds": [0, 1], "categories": ["x"]}
        if kind == "datetime":
            spec["bounds"] = ["2020-01-01", "2021-01-01"]
        if kind == "time":
            spec["bounds"] = ["08:00", "18:00"]
        check_spec("c", spec)
    with pytest.raises(ValueError, match="unknown type"):
        check_spec("c", {"type": "bool"})


def test_an_error_caused_by_the_schema_file_names_the_file_and_the_entry(tmp_path, capsys):
    """Issue 40: a one-class target in a schema file failed the fit with 'y has
    a single class (0); fit without y…', which did not point at the file."""
    pd.DataFrame({"x": [0.1, 0.5, 0.9, 0.3], "churned": [0, 1, 0, 0]}).to_csv(
        tmp_path / "t.csv", index=False)
    one = tmp_path / "one.json"
    one.write_text(json.dumps({"x": {"type": "numeric", "bounds": [0, 1]},
                               "churned": {"type": "categorical", "categories": [0]}}))
    assert main(["synthesize", str(tmp_path / "t.csv"), "--target", "churned", "--schema",
                 str(one), "--out", str(tmp_path / "s.csv"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert str(one) in err and "'churned'" in err and "single class" in err
    typo = tmp_path / "typo.json"
    typo.write_text(json.dumps({"x": {"type": "numerc", "bounds": [0, 1]}}))
    assert main(["synthesize", str(tmp_path / "t.csv"), "--schema", str(typo),
                 "--out", str(tmp_path / "s.csv"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert str(typo) in err and "'x'" in err and "numeric, datetime, categorical or time" in err


def test_the_command_line_maps_its_options_to_a_method_s_parameters():
    """Issue 41: estimators carry no ``from_cli``; the command line passes each
    option to the constructor parameter of the same name, those a registered
    class takes and no other."""
    from sklearn.base import BaseEstimator

    from skdpgen import DPHPSynthesizer, DPKMEReleaser
    from skdpgen.cli import _build

    class Toy(BaseEstimator):
        supports_labels = True

        def __init__(self, *, schema=None, random_state=None):
            self.schema = schema
            self.random_state = random_state

    options = dict(columns=["a"], schema={"a": {"type": "numeric", "bounds": [0, 1]}},
                   classes=["x", "y"], labeled=True, random_state=3, device="cpu",
                   verbose=0, infer_schema="private", schema_share="auto",
                   allow_guesses=False)
    toy = _build(Toy, **options)
    assert toy.get_params() == {"schema": options["schema"], "random_state": 3}
    dphp = _build(DPHPSynthesizer, **options)
    assert (dphp.classes, dphp.on_guess, dphp.random_state) == (["x", "y"], "raise", 3)
    assert not any(hasattr(c, "from_cli") for c in (DPHPSynthesizer, DPKMEReleaser))
    with pytest.raises(ValueError, match="drop --target"):
        _build(DPKMEReleaser, **options)


def test_infer_schema_error_names_what_is_left_out_in_command_line_words(tmp_path, capsys):
    """Issue 40, section 4: '--infer-schema error' printed the library's
    "pass infer_schema='private' (...) or 'data'" to a command-line user."""
    pd.DataFrame({"a": [1, 2, 3], "label": ["x", "y", "x"]}).to_csv(tmp_path / "t.csv",
                                                                    index=False)
    code = main(["synthesize", str(tmp_path / "t.csv"), "--target", "label",
                 "--infer-schema", "error", "--out", str(tmp_path / "o.csv"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "leaves out ['a', 'classes']" in err
    assert "--infer-schema private" in err and "--classes" in err
    assert "infer_schema=" not in err and "classes=[" not in err


def test_a_table_without_rows_is_a_usage_error(tmp_path, capsys):
    """A header-only CSV (n = 0, public) crashed the private schema estimate with a
    ZeroDivisionError (a share of the rows in its summary); it is a usage error,
    before any release, in Python and on the command line."""
    from skdpgen import DPHPSynthesizer

    with pytest.raises(ValueError, match="Found 0 sample"):
        DPHPSynthesizer().fit(pd.DataFrame({"a": []}), pd.Series([], dtype=object))
    (tmp_path / "t.csv").write_text("a,b,label\n")
    code = main(["synthesize", str(tmp_path / "t.csv"), "--target", "label", "--out",
                 str(tmp_path / "o.csv"), "--quiet"])
    # in the user's words (issue 66): the file has no records
    assert code == 2 and "t.csv has no records" in capsys.readouterr().err
    assert not (tmp_path / "o.csv").exists()


@pytest.mark.parametrize("args", [
    ["synthesize", "missing.csv", "--out", "x.csv"],
    ["synthesize", "{data}", "--epsilon", "0", "--out", "x.csv"],
    ["synthesize", "{data}", "--delta", "1", "--out", "x.csv"],
    ["schema", "{data}", "--epsilon", "-1", "--out", "s.json"],
    ["evaluate", "missing.csv", "{data}"],
], ids=["no-file", "epsilon-0", "delta-1", "schema-epsilon", "evaluate-no-file"])
def test_a_usage_error_comes_before_torch_is_imported(table, args):
    """A missing file or a budget out of range is answered (exit status 2) before
    the command imports torch or reads the data: it took 22-26 s on loaded cores."""
    import os
    from pathlib import Path

    import skdpgen

    tmp, _ = table
    args = [a.format(data=tmp / "data.csv") for a in args]
    code = ("import sys; from skdpgen.cli import main; status = main(sys.argv[1:]); "
            "print(status, 'torch' in sys.modules)")
    env = {**os.environ, "PYTHONPATH": str(Path(skdpgen.__file__).parents[1])}
    done = subprocess.run([sys.executable, "-c", code, *map(str, args)], cwd=tmp, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.stdout.split() == ["2", "False"], done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("skdpgen: error: ")
    assert "got 0.0" not in lines[0] and "got -1.0" not in lines[0]


def test_the_remedy_for_bounds_reads_as_a_sentence():
    """It read 'fill in a schema file ('skdpgen schema DATA --out FILE' writes a
    template) (public bounds of 'fnlwgt', ...)': two asides in a row."""
    from skdpgen.schema import describe_issues

    issues = [{"column": "fnlwgt", "problem": "outside", "share": 0.11, "detail": ""},
              {"column": "country", "problem": "categories", "share": 0.07, "detail": ""}]
    fix = describe_issues(issues, "cli").splitlines()[-1]
    assert fix.startswith(
        "To fix: write the public bounds of 'fnlwgt' (from documentation, not from the rows) "
        "in a schema file ('skdpgen schema DATA --out FILE' writes a template) and pass it "
        "with --schema; if the values of 'country' are public knowledge")
    assert ") (" not in fix
    with_template = describe_issues(issues, "cli", template="adult.schema.json")
    assert "in the schema file adult.schema.json and pass it with --schema" in with_template


def test_synthesize_help_offers_each_method_under_its_own_name(capsys):
    """Issue 52: the marginals are a method of their own, the default; dphp is DP-HP."""
    with pytest.raises(SystemExit):
        main(["synthesize", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "(default: marginals)" in text
    for name in ("dphp", "dpmerf", "marginals", "release"):
        assert name in text, name
    assert "dphp (DP-HP: Hermite features" in text


def test_the_summary_names_the_pairs_measured(tmp_path, fast_fits, capsys):
    # 1,400 rows of 5 declared columns at epsilon 1: two of the ten pairs can be
    # measured and are chosen privately (b is a function of a: their pair first,
    # without noise); 400 rows measure none (the fit's warning says so instead)
    rng = np.random.default_rng(0)
    n = 1_400
    a = rng.integers(0, 10, n)
    frame = pd.DataFrame({"a": a, "b": a ** 2, "c": rng.integers(0, 5, n),
                          "d": rng.integers(0, 5, n), "e": rng.choice(["x", "y", "z"], n)})
    frame.to_csv(tmp_path / "data.csv", index=False)
    schema = {"a": {"type": "numeric", "bounds": [0, 9], "integer": True},
              "b": {"type": "numeric", "bounds": [0, 81], "integer": True},
              "c": {"type": "categorical", "categories": [0, 1, 2, 3, 4]},
              "d": {"type": "categorical", "categories": [0, 1, 2, 3, 4]},
              "e": {"type": "categorical", "categories": ["x", "y", "z"]}}
    (tmp_path / "schema.json").write_text(json.dumps(schema))
    status = main(["synthesize", str(tmp_path / "data.csv"), "--schema",
                   str(tmp_path / "schema.json"), "--out", str(tmp_path / "out.csv"),
                   "--random-state", "0", "--quiet"])
    out = capsys.readouterr().out
    assert status == 0
    assert "Two-way marginals: 2 of 10 pairs of columns measured, chosen privately" in out
    assert "Strongly related" not in out  # b ~ a is measured; the others are independent
    # b = a² is kept as a joint distribution of cells, and the summary says so only
    # where the fitted model reproduces it: five steps (fast_fits) do not, and the
    # summary names the pair instead (tests/synthesizers/test_marginal_fit.py has
    # the full fit's sentence)
    assert "a column computed from another (a square, a difference) comes back near" not in out
    assert "Not reproduced within their noise (" in out and "a~b" in out
    frame.iloc[:400].to_csv(tmp_path / "small.csv", index=False)
    status = main(["synthesize", str(tmp_path / "small.csv"), "--schema",
                   str(tmp_path / "schema.json"), "--out", str(tmp_path / "out2.csv"),
                   "--random-state", "0", "--quiet"])
    captured = capsys.readouterr()
    assert status == 0
    assert "Two-way marginals" not in captured.out
    assert "drawn independently" in captured.err


def test_the_summary_says_what_the_schema_estimate_spent_and_bought(tmp_path, fast_fits,
                                                                     capsys):
    rng = np.random.default_rng(1)
    n = 4_000
    frame = pd.DataFrame({"hours": np.where(rng.random(n) < 0.5, 40, rng.integers(1, 99, n)),
                          "city": rng.choice(["Lyon", "Nice", "Paris"], n),
                          "age": rng.integers(18, 90, n)})
    frame.to_csv(tmp_path / "data.csv", index=False)
    status = main(["synthesize", str(tmp_path / "data.csv"), "--out", str(tmp_path / "o.csv"),
                   "--random-state", "0", "--quiet", "--allow-guesses"])
    out = capsys.readouterr().out
    assert status == 0
    line = next(t for t in out.splitlines() if t.startswith("Schema estimated privately"))
    assert re.search(r"with \d+% of the budget: the kinds, bounds and values of the columns "
                     r"\(2 numeric, 1 categorical\)", line), line
    assert "point mass" in line  # the 40-hour week
    assert "the counts of 1 categorical column's values measure" in line
    share = int(re.search(r"with (\d+)% of the budget", line).group(1))
    assert 5 <= share <= 60
    # a declared schema: nothing estimated, nothing said
    schema = {"hours": {"type": "numeric", "bounds": [1, 98], "integer": True},
              "city": {"type": "categorical", "categories": ["Lyon", "Nice", "Paris"]},
              "age": {"type": "numeric", "bounds": [18, 89], "integer": True}}
    (tmp_path / "schema.json").write_text(json.dumps(schema))
    main(["synthesize", str(tmp_path / "data.csv"), "--schema", str(tmp_path / "schema.json"),
          "--out", str(tmp_path / "o2.csv"), "--random-state", "0", "--quiet"])
    assert "Schema estimated" not in capsys.readouterr().out
    # a partial spec (bounds left open) is estimated, as the plan counts it
    schema["age"] = {"type": "numeric", "bounds": [None, None]}
    (tmp_path / "schema.json").write_text(json.dumps(schema))
    main(["synthesize", str(tmp_path / "data.csv"), "--schema", str(tmp_path / "schema.json"),
          "--out", str(tmp_path / "o3.csv"), "--random-state", "0", "--quiet",
          "--allow-guesses"])
    assert "values of the columns (1 numeric)" in capsys.readouterr().out


def test_the_summary_names_strongly_related_pairs_left_unmeasured(tmp_path, fast_fits,
                                                                  capsys):
    # a survey of 2,800 rows and 27 columns, no schema: three pairs measured,
    # the strongly related pairs left out named after them
    from skdpgen.datasets import make_survey

    make_survey(2_800, random_state=0).to_csv(tmp_path / "survey.csv", index=False)
    status = main(["synthesize", str(tmp_path / "survey.csv"), "--out",
                   str(tmp_path / "out.csv"), "--random-state", "0", "--quiet",
                   "--allow-guesses"])
    out = capsys.readouterr().out
    assert status == 0
    lines = out.splitlines()
    at = next(i for i, t in enumerate(lines) if t.startswith("Two-way marginals:"))
    # after the measured pairs (and those the fit did not reproduce, five steps, or
    # measured too noisily to stay sharp)
    while lines[at + 1].startswith(("Not reproduced within their noise (",
                                    "Measured with too much noise to stay sharp (")):
        at += 1
    assert lines[at + 1].startswith("Strongly related but not measured (")
    assert "more rows, a larger epsilon or fewer columns would measure them" in lines[at + 1]


def test_the_help_states_the_size_rule_as_the_library_computes_it(capsys):
    from skdpgen.schema._shares import rows_needed

    with pytest.raises(SystemExit):
        main(["synthesize", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    per_column = rows_needed(1.5, 1.0, 1e-5)
    assert f"about {round(per_column, -1):,} x sqrt(columns estimated) rows" in text
    for d in (10, 30):
        assert f"{round(rows_needed(1.5 * d, 1.0, 1e-5), -2):,} for {d}" in text
    ratio = rows_needed(15, 0.3, 1e-5) / rows_needed(15, 1.0, 1e-5)
    assert f"{ratio:.1f} times as many at 0.3" in text
