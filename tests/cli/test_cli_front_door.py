"""The command line's front door on small and odd tables: refusal, template, index, classes.

In-process ``main`` with small synthesizers (``fast_fits`` of conftest.py).
"""

import json
import re
import warnings

import numpy as np
import pandas as pd
import pytest

from skdpgen.cli import main
from skdpgen.private_schema import SchemaPlan
from skdpgen.privacy import PrivacyLeakWarning, reproducible_noise

from test_cli import listing


def _small(tmp_path, n=120, index=True):
    """A small table: its numeric columns cannot be estimated at this size."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({
        "weight": rng.normal(3000, 800, n).round(),
        "rain": np.where(rng.random(n) < 0.5, 0.0, rng.exponential(5, n).round(1)),
        "label": rng.choice(["a", "b", "c"], n, p=[0.6, 0.3, 0.1]),
    })
    frame.index += 1
    path = tmp_path / "small.csv"
    frame.to_csv(path, index=index)
    return path


def test_a_guess_is_refused_with_a_template_and_cli_remedies(tmp_path, fast_fits, capsys,
                                                             monkeypatch):
    # the size rule off (it refuses this table before the estimate: the next
    # test): the refusal of the estimate's guesses, after the estimate
    monkeypatch.setattr(SchemaPlan, "rows_needed", lambda *args, **kwargs: 0)
    data = _small(tmp_path)
    out = tmp_path / "syn.csv"
    # seeded noise that keeps two classes: the run refuses its guesses right
    # after the schema estimate (issue 40: before the budget is spent)
    with reproducible_noise(0), warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        assert main(["synthesize", str(data), "--target", "label", "--out", str(out),
                     "--quiet", "--random-state", "0"]) == 2
    printed = capsys.readouterr()
    err = printed.out + printed.err
    releases = re.findall(r"^  ([a-z][a-z :-]*?)\s{2,}\d+\s", printed.out, re.M)
    assert releases and all(r.startswith("schema:") for r in releases), printed.out
    spent = float(re.search(r"spent epsilon = ([0-9.]+)", err).group(1))
    assert spent < 1.0  # the schema's share only, and the message says so
    assert "nothing else" in err
    assert not out.exists() and not (tmp_path / "syn.privacy.json").exists()
    template = tmp_path / "small.label.schema.json"
    assert template.exists()
    spec = json.loads(template.read_text())
    assert len(spec["label"]["_estimated"]) == 2 and "spent" in err
    assert list(spec) == ["weight", "rain", "label"]  # the index column is not in it
    assert "refused" in err and "small.label.schema.json" in err and "--allow-guesses" in err
    # only the command line's options are named, never a Python parameter
    assert "schema_share" not in err and "classes=" not in err and "epsilon=" not in err
    assert "--epsilon" in err
    # the affected entries are marked to fill; a refilled template is accepted
    marked = [c for c, s in spec.items() if "_fill" in s]
    assert marked
    for col in marked:
        if col == "label":
            spec[col]["categories"] = ["a", "b", "c"]
        else:
            spec[col]["bounds"] = [0.0, 6000.0]
    template.write_text(json.dumps(spec))
    assert main(["synthesize", str(data), "--target", "label", "--schema", str(template),
                 "--out", str(out), "--quiet", "--random-state", "0", "--allow-guesses"]) == 0
    assert out.exists()



def test_runs_with_and_without_a_target_keep_their_own_templates(tmp_path, fast_fits, capsys,
                                                                 monkeypatch):
    """Issue 55: a refused run with --target and one without wrote the same
    small.schema.json, the second silently over the first. Each template is
    named by its target, and one that replaces a file says so."""
    # the size rule off: the templates of the estimate's guesses
    monkeypatch.setattr(SchemaPlan, "rows_needed", lambda *args, **kwargs: 0)
    data = _small(tmp_path)
    out = str(tmp_path / "syn.csv")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        assert main(["synthesize", str(data), "--target", "label", "--out", out,
                     "--quiet"]) == 2
        with_target = capsys.readouterr().err
        assert main(["synthesize", str(data), "--out", out, "--quiet"]) == 2
        without = capsys.readouterr().err
    labeled = json.loads((tmp_path / "small.label.schema.json").read_text())
    plain = json.loads((tmp_path / "small.schema.json").read_text())
    assert "small.label.schema.json" in with_target and "small.schema.json" in without
    assert labeled["label"].get("_fill", "").startswith("list every class")  # the target's
    assert "_fill" not in plain["label"] or "class" not in plain["label"]["_fill"]
    assert "replaced" not in with_target + without
    with warnings.catch_warnings():  # the same run again: its template is replaced, said
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        assert main(["synthesize", str(data), "--out", out, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"replaced the file {tmp_path / 'small.schema.json'}" in err


def test_a_folded_class_list_is_refused_with_allow_guesses_and_the_message_says_why(
        tmp_path, fast_fits, capsys):
    # 50 rows: the class list is folded; --allow-guesses does not lift that, and the
    # message no longer ends with "--allow-guesses writes the output anyway"
    data, out = _small(tmp_path, n=50), tmp_path / "syn.csv"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        assert main(["synthesize", str(data), "--target", "label", "--out", str(out),
                     "--quiet", "--random-state", "0", "--allow-guesses"]) == 2
    err = capsys.readouterr().err
    assert "writes the output anyway" not in err
    assert "--allow-guesses does not apply to a class list that kept a single class" in err and "--classes" in err
    # the error the library raises names Python parameters; the command line its own
    assert "classes=" not in err and "schema_share" not in err and "epsilon=" not in err
    assert not out.exists()


def test_a_table_below_the_size_rule_is_refused_before_any_release(tmp_path, fast_fits,
                                                                   capsys):
    # issue 55: 120 rows of two columns without a schema: exit 2 before anything
    # is read or released, naming the rows and the epsilon that would do, and a
    # blank template to fill; --allow-guesses writes anyway
    data = _small(tmp_path)
    out = tmp_path / "syn.csv"
    assert main(["synthesize", str(data), "--target", "label", "--out", str(out),
                 "--quiet"]) == 2
    printed = capsys.readouterr()
    err = printed.err
    plan = SchemaPlan.from_table(pd.read_csv(data, index_col=0).drop(columns="label"),
                                 np.zeros(120), classes=None)
    needed = plan.rows_needed(1.0, 1e-5)
    assert "120 rows are too few" in err and f"needs about {needed:,} rows" in err
    eps = plan.epsilon_needed(120, 1e-5)
    assert f"--epsilon {eps:.2g} or more" in err and plan.rows_needed(eps * 1.01, 1e-5) <= 120
    assert "Nothing was read or released" in err and "--allow-guesses" in err
    assert "Privacy report" not in printed.out  # nothing spent, nothing to report
    assert not out.exists() and not (tmp_path / "syn.privacy.json").exists()
    template = json.loads((tmp_path / "small.label.schema.json").read_text())
    assert list(template) == ["weight", "rain", "label"]
    assert all(entry["type"] is None for entry in template.values())
    assert main(["synthesize", str(data), "--target", "label", "--out", str(out), "--quiet",
                 "--allow-guesses", "--classes", "a,b,c"]) == 0
    # ... and says that every estimated column may be weak, naming each (the
    # help's "every weak column is then named": below the size, any may be)
    err = capsys.readouterr().err
    assert f"120 rows are below the size the private schema estimate needs for 2 columns " \
           f"at epsilon = 1 (about {needed:,} rows" in " ".join(err.split())
    assert "'weight', 'rain'" in err


def test_a_column_empty_in_every_row_is_written_empty_not_refused(tmp_path, fast_fits, capsys):
    # issue 40, section 1: no bounds or categories to guess when no row has a value
    rng = np.random.default_rng(0)
    n = 2500
    pd.DataFrame({"age": rng.integers(20, 80, n), "notes": [None] * n,
                  "region": rng.choice(["n", "s", "e", "w"], n),
                  "y": rng.integers(0, 2, n)}).to_csv(tmp_path / "t.csv", index=False)
    out = tmp_path / "syn.csv"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        assert main(["synthesize", str(tmp_path / "t.csv"), "--target", "y", "--out", str(out),
                     "--quiet", "--random-state", "0"]) == 0
    printed = capsys.readouterr()
    assert "  - 'notes'" not in printed.err  # no weak spot, but a note (issue 55: a
    # column 99 % missing came back with made-up values, unnamed)
    assert "skdpgen: note: 'notes' written missing in every row, since its values, if any, " \
           "were too few to place" in " ".join(printed.err.split())
    assert pd.read_csv(out)["notes"].isna().mean() > 0.9


def test_allow_guesses_writes_with_the_summary(tmp_path, fast_fits, capsys):
    data = _small(tmp_path)
    out = tmp_path / "syn.csv"
    # the classes declared: a class list kept as one class stops any fit (exit 2)
    assert main(["synthesize", str(data), "--target", "label", "--out", str(out), "--quiet",
                 "--allow-guesses", "--classes", "a,b,c"]) == 0
    err = capsys.readouterr().err
    syn = pd.read_csv(out)
    assert list(syn.columns) == ["weight", "rain", "label"]  # the index column dropped
    assert "--allow-guesses" in err and "not synthesized" in err


def test_keep_index_keeps_the_unnamed_column(tmp_path, fast_fits, capsys):
    data = _small(tmp_path)
    out = tmp_path / "syn.csv"
    assert main(["synthesize", str(data), "--target", "label", "--out", str(out), "--quiet",
                 "--allow-guesses", "--keep-index", "--classes", "a,b,c"]) == 0
    assert pd.read_csv(out).shape[1] == 4
    assert "not synthesized" not in capsys.readouterr().err


def test_a_named_first_column_is_data(tmp_path, fast_fits, capsys):
    data = _small(tmp_path, index=False)
    out = tmp_path / "syn.csv"
    assert main(["synthesize", str(data), "--target", "label", "--out", str(out), "--quiet",
                 "--allow-guesses", "--classes", "a,b,c"]) == 0
    assert list(pd.read_csv(out).columns) == ["weight", "rain", "label"]
    assert "not synthesized" not in capsys.readouterr().err


def test_drop_leaves_columns_out(tmp_path, fast_fits, capsys):
    data = _small(tmp_path)
    out = tmp_path / "syn.csv"
    assert main(["synthesize", str(data), "--target", "label", "--out", str(out), "--quiet",
                 "--allow-guesses", "--classes", "a,b,c", "--drop", "rain"]) == 0
    assert list(pd.read_csv(out).columns) == ["weight", "label"]
    report = json.loads((tmp_path / "syn.privacy.json").read_text())
    assert "rain" not in json.dumps(report)  # not estimated, nothing spent on it
    for bad, why in [("nope", "not in the data"), ("label", "the target"),
                     ("weight,rain", "every column")]:
        capsys.readouterr()
        assert main(["synthesize", str(data), "--target", "label", "--out", str(out),
                     "--quiet", "--drop", bad]) == 2
        assert why in capsys.readouterr().err


def test_classes_option_keeps_every_listed_class(tmp_path, fast_fits):
    data = _small(tmp_path, n=3000)  # class c: 300 rows, far above its proportion's noise
    out = tmp_path / "syn.csv"
    assert main(["synthesize", str(data), "--target", "label", "--classes", "a,b,c,d",
                 "--out", str(out), "--quiet", "--allow-guesses", "--random-state", "0",
                 "--n-samples", "400"]) == 0
    syn = pd.read_csv(out)
    assert set(syn["label"]) <= {"a", "b", "c", "d"}
    assert {"a", "b", "c"} <= set(syn["label"])


@pytest.mark.parametrize("bad", [",", "a,a"])
def test_classes_option_errors_are_public(tmp_path, fast_fits, capsys, bad):
    data = _small(tmp_path)
    assert main(["synthesize", str(data), "--target", "label", "--classes", bad,
                 "--out", str(tmp_path / "s.csv"), "--quiet"]) == 2
    assert "--classes" in capsys.readouterr().err


def test_refusal_output_never_quotes_a_value(tmp_path, fast_fits, capsys):
    rng = np.random.default_rng(1)
    secret = "Zx-secret-label"
    frame = pd.DataFrame({"v": rng.normal(size=80).round(3),
                          "label": ["u"] * 79 + [secret]})
    data = tmp_path / "t.csv"
    frame.to_csv(data, index=False)
    main(["synthesize", str(data), "--target", "label", "--out", str(tmp_path / "s.csv"),
          "--quiet"])
    captured = capsys.readouterr()
    assert secret not in captured.err + captured.out
    template = tmp_path / "t.schema.json"
    assert not template.exists() or secret not in template.read_text()


def test_declared_datetimes_come_back_in_whole_seconds():
    from skdpgen.schema.kinds._datetime import _decode_datetime

    spec = {"type": "datetime", "bounds": [pd.Timestamp("1970-01-01"), pd.Timestamp("1983-01-01")],
            "timezone": None}
    unit = np.random.default_rng(0).random(1000)
    values = _decode_datetime(spec, unit, np.zeros(1000, bool)).astype(np.int64)
    assert np.all(values % 10**9 == 0)  # no nanosecond digits of the noise
    days = _decode_datetime({**spec, "resolution": "day"}, unit, np.zeros(1000, bool))
    assert np.all(days.astype(np.int64) % (86_400 * 10**9) == 0)


def test_every_option_has_help_with_its_default_and_every_command_examples():
    from skdpgen.cli import build_parser

    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices
    for name, sub in commands.items():
        assert "examples:" in (sub.epilog or ""), name
        for action in sub._actions:
            if not action.option_strings or action.dest == "help":
                continue
            text = action.help or ""
            assert text, (name, action.dest)
            assert "default" in text or action.required, (name, action.dest, text)


def test_missing_labels_come_back_missing_at_their_rate(tmp_path, fast_fits):
    """Missing labels are a key of the class selection: kept, they get a class of
    their own, returned missing (not 'other', not folded into a class)."""
    rng = np.random.default_rng(2)
    n = 4000
    label = rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2]).astype(object)
    label[rng.random(n) < 0.1] = None
    frame = pd.DataFrame({"v": rng.normal(size=n).round(2), "label": label})
    data = tmp_path / "t.csv"
    frame.to_csv(data, index=False)
    out = tmp_path / "s.csv"
    assert main(["synthesize", str(data), "--target", "label", "--out", str(out), "--quiet",
                 "--allow-guesses", "--random-state", "0"]) == 0
    syn = pd.read_csv(out)
    assert set(syn["label"].dropna()) == {"a", "b", "c"}  # no 'other', no 'missing'
    assert abs(syn["label"].isna().mean() - 0.1) < 0.04


def test_a_zero_inflated_column_comes_back_with_exact_zeros():
    """Rain-like: half exact zeros. The estimate states "zero" (post-processing of
    the released exact-zero count) and the synthetic zeros are exact, at about
    their rate; without it they came back as small positive numbers."""
    from skdpgen import DPHPSynthesizer

    rng = np.random.default_rng(0)
    n = 3000
    X = pd.DataFrame({"rain": np.where(rng.random(n) < 0.5, 0.0,
                                       rng.exponential(5, n).round(1) + 0.1),
                      "a": rng.normal(size=n)})
    # this draw once gave the bounds [-1.25e-06, 10] (noise next to the zeros' bin):
    # no zero bound, and the zeros came back as small numbers
    with reproducible_noise(0):
        model = DPHPSynthesizer(random_state=0, epochs=2, steps_per_epoch=20).fit(
            X, rng.choice(["u", "v"], n), epsilon=1.0)
    assert model.schema_["rain"].get("zero") is True
    synthetic, _ = model.sample(2000, random_state=0)
    assert abs((synthetic["rain"] == 0).mean() - 0.5) < 0.1
    assert synthetic["rain"].min() == 0.0


def test_zero_needs_zero_as_a_bound():
    from skdpgen.schema import TableEncoder

    with pytest.raises(ValueError, match="zero"):
        TableEncoder({"x": {"type": "numeric", "bounds": [1, 5], "zero": True}}).fit(
            pd.DataFrame({"x": [1.0, 2.0]}))


def test_each_interface_names_only_its_own_remedies():
    from skdpgen.schema import describe_issues

    issues = [{"column": "age", "problem": "guess", "share": None, "detail": ""},
              {"column": "country", "problem": "categories", "share": 0.4, "detail": ""},
              {"column": None, "problem": "classes", "share": 0.1, "detail": ""}]
    python = describe_issues(issues, "python")
    cli = describe_issues(issues, "cli")
    schema = describe_issues(issues, "cli-schema")
    assert "schema=" in python and "classes=[...]" in python and "--" not in python
    assert "--schema" in cli and "--classes" in cli and "schema=" not in cli
    # the schema command has neither --schema nor --schema-share: the file and --epsilon
    assert "--schema" not in schema and "--epsilon" in schema and "in the file" in schema
    # a column sent to "other" is a weak spot written as output, not a guess
    assert "'country': rare values written as 'other' (about 40% of the rows)\n" in cli
    assert "'age': its bounds are a guess" in cli


def test_a_template_asks_for_the_missing_flag_in_words():
    from skdpgen.schema import refusal_template

    issues = [{"column": "region", "problem": "missing", "share": 0.04, "detail": ""},
              {"column": "age", "problem": "missing", "share": 0.03, "detail": ""},
              {"column": "age", "problem": "guess", "share": None, "detail": ""}]
    schema = {"region": {"type": "categorical", "categories": ["n", "s"], "missing": False},
              "age": {"type": "numeric", "bounds": [0, 9], "missing": False}}
    out = refusal_template(["region", "age"], None, schema, None, issues)
    assert out["region"]["missing"] is None and out["region"]["_estimated"] is False
    assert out["region"]["_fill"].startswith("true if this column can have missing values")
    # every part an issue names is asked for, never a "missing": false the noise may
    # hide missing values behind: the bounds first, then the missing flag
    assert out["age"]["bounds"] is None and out["age"]["missing"] is None
    assert out["age"]["_estimated"] == [0, 9] and out["age"]["_estimated_missing"] is False
    assert out["age"]["_fill"].startswith("public bounds")
    assert "true if this column can have missing values" in out["age"]["_fill"]


def test_a_single_kept_class_is_named_with_the_columns_weak_spots(tmp_path, capsys):
    """holdout4's azcabgptca (1,959 rows, 'died' 1.8 % ones): the class list kept one
    class and the refusal printed only the columns' "missing" lines, with
    "--allow-guesses writes the output anyway", never naming the class list nor
    --classes. The refusal names the class list, --classes, and that
    --allow-guesses does not apply."""
    rng = np.random.default_rng(3)
    n = 2000
    pd.DataFrame({"age": rng.integers(40, 90, n), "stay": rng.integers(1, 60, n),
                  "died": (rng.random(n) < 0.004).astype(int)}).to_csv(
        tmp_path / "heart.csv", index=False)
    with reproducible_noise(0), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main(["synthesize", str(tmp_path / "heart.csv"), "--target", "died",
                     "--epsilon", "1", "--out", str(tmp_path / "s.csv"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and not (tmp_path / "s.csv").exists()
    assert "the class list" in err and "--classes" in err
    assert "--allow-guesses does not apply to a class list that kept a single class" in err
    assert "--allow-guesses writes the output anyway" not in err


def test_a_guess_is_refused_before_anything_is_written_when_the_fit_goes_on(
        tmp_path, fast_fits, capsys, monkeypatch):
    """Issue 54: DP-HP's fit raises on a guess itself, so the command's own
    refusal of a fit that went on was never run by a test. A method whose fit
    goes on past a guess (``on_guess="fit"``, as any method built with
    --allow-guesses) leaves it to the command, which refuses before writing
    anything: no output, no report file, exit status 2."""
    import skdpgen.cli as cli

    build = cli._build
    monkeypatch.setattr(cli, "_build",
                        lambda cls, **options: build(cls, **{**options, "allow_guesses": True}))
    data = _small(tmp_path)
    out = tmp_path / "syn.csv"
    with reproducible_noise(0), warnings.catch_warnings():  # as above: guesses, two classes
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        code = main(["synthesize", str(data), "--target", "label", "--out", str(out),
                     "--quiet", "--random-state", "0"])
    err = capsys.readouterr().err
    assert code == 2 and "refused" in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["small.csv", "small.label.schema.json"]


def test_an_estimated_class_list_says_what_it_kept_and_the_smallest_class_it_finds(
        tmp_path, fast_fits, capsys):
    # four rare classes (37 of 5,000 rows) are under the selection's threshold:
    # they are lost, and the summary says how many classes were kept and the size
    # under which a class cannot be found (the report's threshold), never whether
    # one was lost (not public)
    rng = np.random.default_rng(0)
    n = 5000
    label = np.array(["A"] * 2600 + ["B"] * 2363 + ["C"] * 15 + ["D"] * 10 + ["E"] * 7
                     + ["F"] * 5)
    frame = pd.DataFrame({"a": rng.normal(size=n).round(2), "b": rng.integers(0, 5, n),
                          "y": rng.permutation(label)})
    data = tmp_path / "cls.csv"
    frame.to_csv(data, index=False)
    out = tmp_path / "syn.csv"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["synthesize", str(data), "--target", "y", "--out", str(out),
                     "--random-state", "0", "--allow-guesses"]) == 0
    text = capsys.readouterr().out
    report = json.loads((tmp_path / "syn.privacy.json").read_text())
    threshold = next(s["threshold_rows"] for s in report["selections"]
                     if s["release"] == "schema: classes")
    kept = pd.read_csv(out)["y"].nunique()
    assert (f"Target classes found privately: {kept} kept. A class held by fewer than about "
            f"{threshold:,.0f} rows") in text, text
    assert "--classes a,b,c" in text
    for label in "CDEF":  # a value is never quoted
        assert f"'{label}'" not in text


@pytest.mark.parametrize("share, lifted", [(0.002, True), (0.08, True), (None, False)])
def test_the_refusal_says_whether_allow_guesses_lifts_it(tmp_path, capsys, share, lifted):
    # a 148,000-row table refused for a column's guess was told that --allow-guesses
    # "does not apply to the class list" because its class list had a (tiny, not
    # guessed) 'other' share: only a class list that kept a single class (no
    # share) stops --allow-guesses
    import argparse

    from skdpgen.cli import _refuse

    args = argparse.Namespace(out=str(tmp_path / "syn.csv"), method=None, allow_guesses=False,
                              data=str(tmp_path / "t.csv"), target="y")
    issues = [{"column": "c", "problem": "guess", "share": None, "detail": ""},
              {"column": None, "problem": "classes", "share": share, "detail": ""}]
    assert _refuse(args, ["c", "y"], {"c": {"type": "numeric", "bounds": [0, 1]}}, ["a", "b"],
                   issues, None) == 2
    err = capsys.readouterr().err
    assert ("--allow-guesses writes the output anyway" in err) == lifted, err
    assert ("does not apply to a class list that kept a single" in err) == (not lifted), err


def _declared(tmp_path, n=50):
    """A small table and a schema file that declares every column (issue 66)."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"salary": rng.normal(50_000, 10_000, n).round(),
                          "age": rng.integers(18, 80, n),
                          "city": rng.choice(["a", "b", "c"], n),
                          "y": rng.choice(["yes", "no"], n)})
    frame.to_csv(tmp_path / "small.csv", index=False)
    (tmp_path / "schema.json").write_text(json.dumps({
        "salary": {"type": "numeric", "bounds": [0, 200_000]},
        "age": {"type": "numeric", "bounds": [0, 120], "integer": True},
        "city": {"type": "categorical", "categories": ["a", "b", "c"]},
        "y": {"type": "categorical", "categories": ["yes", "no"]}}))
    return tmp_path / "small.csv", tmp_path / "schema.json"


def test_a_complete_schema_is_not_told_to_declare_what_it_declares(tmp_path, fast_fits,
                                                                    capsys):
    """Issue 66: with every column declared, a 50-row table was told to "write the
    public bounds of 'salary', 'age' ... and pass it with --schema" (they were in it),
    to raise --schema-share (nothing estimated) and to set pair_share (no such flag)."""
    data, schema = _declared(tmp_path)
    assert main(["synthesize", str(data), "--target", "y", "--schema", str(schema),
                 "--out", str(tmp_path / "syn.csv"), "--quiet"]) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert "drawn independently" in err and "--epsilon 30 or more" in err
    assert "pair_share" not in err and "epsilon >=" not in err
    assert "schema estimate is weak" not in err and "pass it with --schema" not in err
    assert "--schema-share" not in err
    assert "narrow the bounds of 'salary', 'age' declared in the --schema file" in err \
        or "narrow the bounds of 'age', 'salary' declared in the --schema file" in err
    assert "or raise --epsilon." in err


def test_the_summary_of_declared_bounds_spread_by_the_noise_fits_each_interface():
    from skdpgen.schema import describe_issues

    issues = [{"column": "age", "problem": "spread", "share": 0.7, "detail": "",
               "declared": True},
              {"column": "rain", "problem": "spread", "share": 0.3, "detail": ""}]
    cli = " ".join(describe_issues(issues, "cli").split())
    assert cli.startswith("The fit's one-way marginals are noisy for 2 columns")
    assert "narrow the bounds of 'age' declared in the --schema file" in cli
    assert "write the public bounds of 'rain'" in cli and "--schema-share" not in cli
    python = " ".join(describe_issues(issues, "python").split())
    assert "narrow the declared bounds of 'age' in schema=" in python
    assert "schema_share" not in python and python.endswith("or raise epsilon.")
    # with a weak spot of the schema estimate too, its share is a remedy again
    mixed = issues + [{"column": "city", "problem": "categories", "share": 0.1, "detail": ""}]
    assert "The private schema estimate is weak" in describe_issues(mixed, "cli")
    assert "--schema-share" in describe_issues(mixed, "cli")


def test_a_header_only_file_is_said_to_have_no_records(tmp_path, fast_fits, capsys):
    """Issue 66: column names and no rows gave "Found 0 sample(s) while a minimum of
    1 is required."; the error says the file has no records (0 rows: public)."""
    data, schema = _declared(tmp_path)
    empty = tmp_path / "empty.csv"
    empty.write_text("salary,age,city,y\n")
    out = tmp_path / "syn.csv"
    for argv in (["synthesize", str(empty), "--target", "y", "--out", str(out)],
                 ["synthesize", str(empty), "--target", "y", "--schema", str(schema),
                  "--out", str(out)],
                 ["schema", str(empty), "--epsilon", "1", "--out", str(tmp_path / "s.json")],
                 ["evaluate", str(empty), str(data), "--target", "y"],
                 ["evaluate", str(data), str(empty), "--target", "y"],
                 ["evaluate", str(data), str(data), "--target", "y", "--train", str(empty)]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err == (f"skdpgen: error: {empty} has no records: only its header line (the "
                       "column names) was found, so there are no rows to use\n"), argv
    assert not out.exists() and not (tmp_path / "s.json").exists()


def test_a_column_not_in_the_data_is_told_with_the_files_columns(tmp_path, fast_fits,
                                                                 capsys):
    """Issue 66: a typo'd --target got no list of the columns; the error lists the
    file's column names (its header: public), the closest first where one is close."""
    data, _ = _declared(tmp_path)
    listed = "its columns are: 'salary', 'age', 'city', 'y'"
    out = str(tmp_path / "syn.csv")
    for argv, said in (
            (["synthesize", str(data), "--target", "Y", "--out", out],
             "--target column 'Y' is not in the data (did you mean 'y'?)"),
            (["schema", str(data), "--target", "income", "--epsilon", "1", "--out", out],
             "--target column 'income' is not in the data;"),
            (["evaluate", str(data), str(data), "--target", "agee"],
             "--target column 'agee' is not in the data (did you mean 'age'?)"),
            (["synthesize", str(data), "--target", "y", "--drop", "cty", "--out", out],
             "--drop column 'cty' is not in the data (did you mean 'city'?)")):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert said in err and err.rstrip().endswith(listed), err


def test_a_wide_files_columns_are_listed_up_to_a_limit():
    from skdpgen._cli_files import LISTED_COLUMNS, not_in_the_data

    columns = [f"c{i}" for i in range(LISTED_COLUMNS + 5)]
    text = not_in_the_data("--target", "zz", columns)
    assert text.endswith(f"'c{LISTED_COLUMNS - 1}' and 5 more")


def test_the_size_refusal_says_what_a_larger_epsilon_gives_away(tmp_path, fast_fits, capsys):
    """Issue 66: "--epsilon 73" was suggested without a word on what it means, and the
    blank template did not say which types are allowed."""
    from skdpgen.schema import schema_types

    data, _ = _declared(tmp_path)
    assert main(["synthesize", str(data), "--target", "y", "--out",
                 str(tmp_path / "syn.csv")]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert re.search(r"--epsilon \S+ or more at these rows \(a weaker privacy guarantee: the "
                     r"bound on how much any one record can change what is released grows "
                     r"with epsilon\)", err), err
    assert "each column's type (numeric, datetime, categorical or time)" in err
    template = json.loads((tmp_path / "small.y.schema.json").read_text())
    assert list(template) == ["salary", "age", "city", "y"]
    for entry in template.values():
        assert entry["type"] is None
        assert entry["_fill"].startswith(f"type: one of {', '.join(schema_types())};")
