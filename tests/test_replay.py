"""Replay: every output depends on the rows only through the noisy releases.

Record every release a fit makes on a table ``D``
(:func:`skdpgen.privacy.release_tape`); fit again on a table ``D′`` of the
same public shape (rows, column names, labels or not) but entirely different
values and forms, with every release returning ``D``'s recorded output and
the same public randomness; every output — fitted attributes (plan, schema,
class list, encoder, network weights), synthetic rows, privacy report,
warnings, and for the command line its exit status, printed text and files —
must be identical. Any path from the rows to an output that goes around the
noise fails it, whatever the mechanism: a decision read from exact counts, an
estimate run on exact bins, a share computed from the number of complete
rows, a dtype or a record kept in a fitted object.
"""

import contextlib
import io
import re

import numpy as np
import pandas as pd
import pytest

from skdpgen import (
    DPHPSynthesizer,
    DPKMEReleaser,
    DPMERFSynthesizer,
    HermiteFeatures,
    KernelMeanEmbedding,
    KMESynthesizer,
    MarginalSynthesizer,
    RandomFourierFeatures,
)
from skdpgen.cli import main
from skdpgen.evaluation import DPTwoSampleTest
from skdpgen.private_schema import estimate_schema
from skdpgen.audit import replay_difference

N = 400
FAST = dict(epochs=1, steps_per_epoch=2, batch_size=64, random_state=0, verbose=0)
MARGINAL_FAST = dict(epochs=1, steps_per_epoch=2, n_components=64, random_state=0, verbose=0)

def assert_replays(run, data, data_prime):
    """The replay test: ``run`` on ``data_prime`` under ``data``'s releases gives
    exactly ``data``'s outputs and warnings (:func:`skdpgen.audit.replay_difference`)."""
    difference = replay_difference(run, data, data_prime)
    assert difference is None, difference


# -- tables of one public shape ---------------------------------------------------


def mixed_table(n=N, seed=0):
    """A realistic table: numbers, a bool, a category, dates, times, missing values."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "age": rng.integers(18, 90, n),
        "member": rng.choice([True, False], n),
        "city": rng.choice(["Paris", "Lyon", "Nice"], n, p=[0.5, 0.3, 0.2]),
        "when": pd.to_datetime("2020-01-01") + pd.to_timedelta(rng.integers(0, 900, n), "D"),
        "income": np.where(rng.random(n) < 0.1, np.nan, rng.lognormal(10, 1, n).round(2)),
        "clock": [f"{s // 3600:02d}:{s // 60 % 60:02d}" for s in rng.integers(7, 21, n) * 3600
                  + rng.integers(0, 60, n) * 60],
    })
    return X, rng.integers(0, 2, n)


ODD = [None, np.nan, "", "NA", "unknown", "Alice HIV+", 3 + 1j, 1.5 + 0j, np.inf, -np.inf,
       1e300, -7, 0, True, "TRUE", b"\xe9t\xe9", "2262-04-11 23:00", "9999-01-01",
       pd.Timestamp("1700-01-01"), "0001-01-01", 2.5, "3", " 4.0 ", {"a": 1}]


def wild_table(n=N, seed=1):
    """The same public shape as :func:`mixed_table`, with entirely different values
    and forms in every column (each column's values drawn from odd ones, numbers,
    dates and text)."""
    rng = np.random.default_rng(seed)

    def column(pool):
        picks = rng.integers(0, len(pool), n)
        return pd.Series([pool[i] for i in picks], dtype=object)

    numbers = list(rng.normal(1e4, 5e3, 40))
    words = [f"w{i}" for i in range(300)]
    X = pd.DataFrame({
        "age": column(ODD + numbers),
        "member": column(ODD + ["yes", "no", 1, 0]),
        "city": column(words + ODD),
        "when": column(ODD + ["1999-12-31", pd.Timestamp("2100-05-05", tz="Asia/Tokyo")]),
        "income": pd.Series([np.nan] * n),  # all missing
        "clock": column(ODD + ["23:59:59.5", "7:05", pd.Timedelta(days=400), "99:00"]),
    })
    y = column(["yes", "no", None, 7, 2.5, "1"]).to_numpy()
    return X, y


def numeric_table(n=N, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, 3)), rng.integers(0, 2, n)


def wild_numeric(n=N, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.choice(np.array(ODD + list(rng.uniform(-1e6, 1e6, 20)), dtype=object), size=(n, 3))
    return X, rng.choice(np.array(["a", None, 3, 2.0], dtype=object), n)


# -- the estimators ---------------------------------------------------------------


def _fit_sample(make):
    def run(X, y):
        synth = make().fit(X, y, epsilon=1.0)
        return {"model": synth, "sample": synth.sample(40, random_state=0)}
    return run


SCHEMA = {
    "age": {"type": "numeric", "bounds": [18, 90], "integer": True},
    "member": {"type": "bool"},
    "city": {"type": "categorical", "categories": ["Lyon", "Nice", "Paris"]},
    "when": {"type": "datetime", "bounds": ["2020-01-01", "2022-06-30"], "resolution": "day",
             "timezone": "Europe/Paris"},
    "income": {"type": "numeric", "bounds": [0, 1e6], "missing": True},
    "clock": {"type": "time", "bounds": ["06:00", "22:00"], "resolution": "minute"},
}

SYNTHESIZERS = {
    "dphp": lambda: DPHPSynthesizer(**FAST),
    "dphp-declared": lambda: DPHPSynthesizer(schema=SCHEMA, classes=[0, 1], **FAST),
    "dphp-types-only": lambda: DPHPSynthesizer(
        schema={c: {"type": s["type"], **({"timezone": "Europe/Paris"} if c == "when" else {})}
                for c, s in SCHEMA.items()}, **FAST),
    "dpmerf": lambda: DPMERFSynthesizer(n_components=50, **FAST),
    "marginals": lambda: MarginalSynthesizer(**MARGINAL_FAST),
    "marginals-declared": lambda: MarginalSynthesizer(schema=SCHEMA, classes=[0, 1],
                                                      **MARGINAL_FAST),
    # the pairs chosen privately (3 of the 10), then measured
    "marginals-selected": lambda: MarginalSynthesizer(max_pairs=3, **MARGINAL_FAST),
    # a second round measures again the pairs the first one's releases choose
    "marginals-rounds": lambda: MarginalSynthesizer(rounds=2, pair_share=0.5, **MARGINAL_FAST),
    # a later round chooses, from the model's errors, a marginal to measure
    "marginals-error-rounds": lambda: MarginalSynthesizer(
        rounds=2, round_selection="error", pair_share=0.5, **MARGINAL_FAST),
    # ... where the first round measures no pair: the round chooses among pairs
    "marginals-error-rounds-no-pair": lambda: MarginalSynthesizer(
        rounds=2, round_selection="error", pair_share=0, **MARGINAL_FAST),
    "kme-fourier": lambda: KMESynthesizer(features=RandomFourierFeatures(n_components=40, random_state=0),
                                          **FAST),
}


@pytest.mark.parametrize("name", list(SYNTHESIZERS))
def test_synthesizers_replay(name):
    assert_replays(_fit_sample(SYNTHESIZERS[name]), mixed_table(), wild_table())


@pytest.mark.parametrize("name", ["marginals", "dphp", "marginals-declared"])
def test_far_off_columns_replay(name):
    # the columns named far off (output_issues_): a function of the releases and of
    # a sample drawn with a public seed, never of the rows; at 2,000 rows the
    # estimated columns have histograms and counts to compare with
    def run(X, y):
        synth = SYNTHESIZERS[name]().fit(X, y, epsilon=1.0)
        return {"issues": synth.output_issues_}
    assert_replays(run, mixed_table(2_000), wild_table(2_000))


def test_image_synthesizer_replays():
    # DP-HP's image settings (the patch kernel, the conv generator): 4 x 4 pixels
    # declared on [0, 16], never missing; the wild table's odd values in every pixel
    pixels = {j: {"type": "numeric", "bounds": [0, 16], "missing": False} for j in range(16)}
    rng = np.random.default_rng(0)
    images = rng.uniform(0, 16, (N, 16)), rng.integers(0, 3, N)
    wild = rng.choice(np.array(ODD, dtype=object), (N, 16)), rng.choice([0, 1, 2, "2", None], N)
    assert_replays(_fit_sample(lambda: DPHPSynthesizer(
        schema=pixels, classes=[0, 1, 2], image_shape=(4, 4), **FAST)), images, wild)


def test_synthesizer_replays_where_the_budget_split_moves():
    """At 6,000 rows ``schema_share="auto"`` is inside its limits (at 400 rows it is
    pinned at the largest share), so a share read from anything but the public n
    (the number of complete rows, say) changes the plan."""
    assert_replays(_fit_sample(SYNTHESIZERS["marginals"]), mixed_table(6_000),
                   wild_table(6_000))


def test_unlabeled_synthesizer_replays():
    run = _fit_sample(lambda: DPHPSynthesizer(**FAST))
    assert_replays(lambda X, y: run(X, None), mixed_table(), wild_table())


def test_schema_estimate_replays():
    def run(X, y):
        return estimate_schema(X, y, epsilon=0.5, delta=1e-5)
    assert_replays(run, mixed_table(), wild_table())
    # a type-only spec with a timezone (far-out dates in D′)
    def typed(X, y):
        return estimate_schema(X, y, epsilon=0.5, delta=1e-5,
                               schema={"when": {"type": "datetime",
                                                "timezone": "America/New_York"}})
    assert_replays(typed, mixed_table(), wild_table())


NUMERIC = {
    "kme": lambda X, y: KernelMeanEmbedding(epsilon=1.0, classes=["a", 3]).fit(X, y),
    "kme-unlabeled": lambda X, y: KernelMeanEmbedding(
        epsilon=1.0, features=HermiteFeatures(order=4)).fit(X),
    "release-subspace": lambda X, y: DPKMEReleaser(bounds=(-3, 3), n_points=20,
                                                   random_state=0).fit(X),
    "release-features": lambda X, y: DPKMEReleaser(
        method="features", bounds=(-3, 3), n_points=10, n_iter=5, random_state=0,
        device="cpu").fit(X),
    "two-sample": lambda X, y: DPTwoSampleTest(bounds=(-3, 3), random_state=0,
                                               n_null_samples=200).test(X, X[::-1]),
}


@pytest.mark.parametrize("name", list(NUMERIC))
def test_numeric_estimators_replay(name):
    assert_replays(NUMERIC[name], numeric_table(), wild_numeric())


def test_replay_notices_a_path_around_the_noise(monkeypatch):
    """The negative control: a fitted attribute read from the rows without noise
    (here the exact mean of a column, kept by the encoder) fails the replay."""
    from skdpgen.schema import TableEncoder

    transform = TableEncoder.transform_table  # the fit encodes chunk by chunk

    def leaky(self, X):
        out = transform(self, X)
        self.peek_ = float(np.nanmean(out[:, 0]))
        return out

    monkeypatch.setattr(TableEncoder, "transform_table", leaky)
    with pytest.raises(AssertionError, match="peek_"):
        assert_replays(_fit_sample(SYNTHESIZERS["dphp-declared"]), mixed_table(), wild_table())


def test_replay_notices_a_release_sequence_that_depends_on_the_rows():
    def run(X, y):
        if len(set(map(str, X[:, 0]))) > 200:  # a plan that reads the values
            return KernelMeanEmbedding(epsilon=1.0).fit(X[:, :2])
        return KernelMeanEmbedding(epsilon=1.0).fit(X[:, :2], y)
    X, y = numeric_table()
    assert replay_difference(run, (X, y), (np.round(X, 1), y)).startswith("releases:")


# -- the command line -------------------------------------------------------------


def _write(path, frame):
    frame.to_csv(path, index=False)


def _cli_run(tmp_path, args, results):
    """Exit status, printed text (as printed, the paths relative: no time is masked)
    and written files (each run's also appended to ``results``)."""
    def run(name, frame):
        folder = tmp_path / name
        folder.mkdir(exist_ok=True)
        _write(folder / "data.csv", frame)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main([a.format(dir=folder) for a in args])
            except SystemExit as exc:
                code = exc.code
        text = (out.getvalue() + err.getvalue()).replace(str(folder), "<dir>")
        files = {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.name != "data.csv"}
        results.append({"code": code, "text": text, "files": files})
        return results[-1]
    return run


def _frames():
    X, y = mixed_table()
    X2, y2 = wild_table()
    return X.assign(label=y), X2.assign(label=y2)


@pytest.mark.parametrize("extra", [[], ["--allow-guesses"]], ids=["default", "allow-guesses"])
def test_command_line_replays(tmp_path, extra, fast_fits):
    """Exit status, printed text, the synthetic file, the report files, the
    refusal's template: identical under the same releases."""
    D, D2 = _frames()
    results = []
    run = _cli_run(tmp_path, ["synthesize", "{dir}/data.csv", "--target", "label",
                              "--epsilon", "1", "--out", "{dir}/syn.csv", "--random-state", "0",
                              "--quiet", *extra], results)
    if not extra:  # below the size rule: refused before any release, from public facts
        first, second = run("D", D), run("D2", D2)
        assert first["code"] == 2 and "too few" in first["text"], first["text"]
        assert first == second
        return
    assert_replays(run, ("D", D), ("D2", D2))
    # the run wrote its output
    assert results[0]["code"] == 0 and "syn.csv" in results[0]["files"], results[0]["text"]


def test_command_line_replays_a_huge_record(tmp_path, fast_fits):
    """Issue 54: one record of 24 MB (a character outside Latin-1 at its start,
    stored at 4 bytes a character when held) changes nothing printed or written,
    the printed text compared as printed. A record over the maximum length is
    read through without being held, as a record of missing values; the
    command prints no fit time, which counted the reading of every record's
    bytes (150 MB of one record moved it from 0.1 s to 43.7 s)."""
    D, D2 = _frames()
    D2 = D2.astype(object)
    D2.iloc[N // 2, D2.columns.get_loc("city")] = "\u4e2d" + "x" * (24 << 20)
    results = []
    run = _cli_run(tmp_path, ["synthesize", "{dir}/data.csv", "--target", "label",
                              "--epsilon", "1", "--out", "{dir}/syn.csv", "--random-state", "0",
                              "--quiet", "--allow-guesses"], results)
    assert_replays(run, ("D", D), ("D2", D2))
    assert results[0]["code"] == 0 and "syn.csv" in results[0]["files"], results[0]["text"]
    assert re.search(r"fitted on 400 rows;", results[0]["text"]), results[0]["text"]


def test_release_command_replays(tmp_path, fast_fits):
    rng = np.random.default_rng(0)
    D = pd.DataFrame(rng.normal(size=(N, 2)), columns=["a", "b"])
    D2 = pd.DataFrame({"a": ["Alice HIV+"] * 3 + list(rng.normal(size=N - 3)),
                       "b": [""] * 10 + ["inf"] * 10 + list(rng.normal(size=N - 20))})
    schema = tmp_path / "schema.json"
    schema.write_text('{"a": {"type": "numeric", "bounds": [-3, 3]},'
                      ' "b": {"type": "numeric", "bounds": [-3, 3]}}')
    results = []
    run = _cli_run(tmp_path, ["synthesize", "{dir}/data.csv", "--method", "release",
                              "--schema", str(schema), "--epsilon", "1", "--out",
                              "{dir}/syn.csv", "--random-state", "0", "--quiet"], results)
    assert_replays(run, ("D", D), ("D2", D2))
    assert results[0]["code"] == 0 and "syn.csv" in results[0]["files"], results[0]["text"]


def test_schema_command_replays(tmp_path, fast_fits):
    D, D2 = _frames()
    results = []
    run = _cli_run(tmp_path, ["schema", "{dir}/data.csv", "--target", "label", "--epsilon",
                              "0.5", "--out", "{dir}/schema.json"], results)
    assert_replays(run, ("D", D), ("D2", D2))
    assert results[0]["code"] == 0 and "schema.json" in results[0]["files"], results[0]["text"]
