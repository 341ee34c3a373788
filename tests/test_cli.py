"""End-to-end tests of the command line (subprocesses), including error paths."""

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest


def run(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "skdpgen", *map(str, args)],
        capture_output=True, text=True, cwd=cwd, timeout=600,
    )


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


def test_schema_template_has_no_values(table):
    tmp, frame = table
    res = run("schema", tmp / "data.csv", "--out", tmp / "template.json")
    assert res.returncode == 0, res.stderr
    template = json.loads((tmp / "template.json").read_text())
    assert list(template) == list(frame.columns)
    assert template["age"] == {"type": "numeric", "bounds": [None, None], "integer": True}
    assert template["city"] == {"type": "categorical", "categories": []}
    # nothing from the rows is in it
    text = (tmp / "template.json").read_text()
    assert '"A"' not in text and "18" not in text


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


def test_synthesize_without_schema_warns_plainly(table):
    tmp, _ = table
    res = run(
        "synthesize", tmp / "data.csv", "--target", "label", "--out", tmp / "leaky.csv",
        "--random-state", "0", "--quiet",
    )
    assert res.returncode == 0, res.stderr
    assert "PRIVACY WARNING" in res.stderr
    assert "bounds of numeric column 'age'" in res.stderr
    assert "class list" in res.stderr
    assert "Traceback" not in res.stderr


def test_evaluate_prints_tables(table):
    tmp, _ = table
    run("synthesize", tmp / "data.csv", "--target", "label", "--schema", tmp / "schema.json",
        "--out", tmp / "ev.csv", "--random-state", "0", "--quiet")
    res = run("evaluate", tmp / "data.csv", tmp / "ev.csv", "--target", "label",
              "--schema", tmp / "schema.json")
    assert res.returncode == 0, res.stderr
    assert "roc_auc" in res.stdout and "1-way" in res.stdout and "2-way" in res.stdout


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
        (["schema", "{data}", "--out", "{tmp}/no/such/dir/s.json"], "No such file"),
    ],
)
def test_error_paths_are_one_clear_line(table, args, message):
    tmp, frame = table
    (tmp / "bad.json").write_text("{not json")
    frame[["age"]].to_csv(tmp / "other.csv", index=False)
    args = [a.format(data=tmp / "data.csv", tmp=tmp) for a in args]
    res = run(*args, cwd=tmp)
    assert res.returncode == 2
    assert "Traceback" not in res.stderr
    lines = [line for line in res.stderr.splitlines() if line.startswith("skdpgen: error")]
    assert len(lines) == 1 and message in lines[0]


def test_bad_usage_is_an_argparse_error():
    res = run("synthesize")
    assert res.returncode == 2 and "usage" in res.stderr
    for n in ("0", "-3"):  # checked before any fit spends budget
        res = run("synthesize", "x.csv", "--n-samples", n)
        assert res.returncode == 2 and "must be an integer >= 1" in res.stderr


def test_output_types_come_from_the_schema_not_the_values(tmp_path):
    """Whole-number values in a column declared non-integer must not make the
    synthetic column integer (that would reveal that every value is whole)."""
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"hours": rng.integers(0, 60, 300), "age": rng.integers(18, 80, 300)})
    frame.to_csv(tmp_path / "data.csv", index=False)
    schema = {"hours": {"type": "numeric", "bounds": [0, 60]},
              "age": {"type": "numeric", "bounds": [18, 80], "integer": True}}
    (tmp_path / "schema.json").write_text(json.dumps(schema))
    res = run("synthesize", tmp_path / "data.csv", "--schema", tmp_path / "schema.json",
              "--method", "dpmerf", "--out", tmp_path / "syn.csv", "--random-state", "0",
              "--n-samples", "50", "--quiet")
    assert res.returncode == 0, res.stderr
    syn = pd.read_csv(tmp_path / "syn.csv")
    assert (syn["hours"] % 1 != 0).any()
    assert (syn["age"] % 1 == 0).all()
