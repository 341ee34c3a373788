"""A randomized search for distinguishers: odd values and malformed CSV lines
through every entry point, judged by the replay audit.

Each try draws a table ``D`` (150-600 rows, one to four columns of random
kinds, labels or not), an entry point (a DataFrame, a NumPy array, lists of
rows, Dask, a CSV file through ``skdpgen synthesize``, ``--method release`` or
``skdpgen schema --epsilon``), an estimator, and a table ``D'`` of the same
public shape made by one of:

* ``neighbour``: one record's cell replaced by an odd value (text, bytes,
  complex, Decimal, huge ints, subnormals, far-out and tz-aware dates, NaT,
  pd.NA, containers, ...), or on CSV one line replaced by a malformed one
  (an unquoted comma, a stray quote, an empty line, a bare carriage return,
  Latin-1 or NUL bytes, too many or too few fields);
  On CSV also: one line replaced by a *long record* of any size up to the
  maximum record length and past it (``--max-record-bytes``, 1 MiB: sizes
  drawn log-uniformly from 1 byte to 30 MiB, and the limit's edges exactly),
  made of digits, text with a character outside Latin-1, a quoted field of
  commas or bare commas; and, for a file whose records are joined by line
  breaks (``--no-final-newline``), the last record made blank;
* ``form``: every value kept, its form changed (numbers as text, bools as
  words, dates with offsets, object dtypes);
* ``wild``: every value replaced.

The try passes when :func:`skdpgen.audit.replay_difference` finds no
difference: under ``D``'s recorded releases, ``D'`` gives the same outputs,
warnings, exceptions, exit status, printed text and files. Run::

    python benchmarks/neighbour_search.py --minutes 10 --seed 0
    python benchmarks/neighbour_search.py --minutes 10 --csv-only  # the command line only

It prints a line per failure (with the seed that reproduces it) and a table
of what it tried; the exit status is 1 if any try failed.
"""

import argparse
import collections
import contextlib
import decimal
import fractions
import io
import platform
import re
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from skdpgen import (
    DPHPSynthesizer,
    DPKMEReleaser,
    DPMERFSynthesizer,
    KernelMeanEmbedding,
)
from skdpgen.audit import replay_difference
from skdpgen.evaluation import DPTwoSampleTest
from skdpgen.private_schema import estimate_schema

FAST = dict(epochs=1, steps_per_epoch=2, batch_size=64, random_state=0, verbose=0)

ODD = [
    None, np.nan, float("nan"), pd.NA, pd.NaT, "", " ", "NA", "null", "N/A", "unknown",
    "Alice HIV+", "Smith, John", 'say "hi"', "line\rbreak", "tab\there", "\x00", "émigré",
    "ünïcödé", "日本語", "🙂", "x" * 500, b"\xe9t\xe9", b"\x00\xff", 3 + 1j, 1.5 + 0j,
    complex("nan+nanj"), np.inf, -np.inf, 1e300, -1e300, 5e-324, -0.0, 10**30, -(10**19),
    np.int8(-3), np.uint64(2**63), np.float16(2.5), np.float32(1e30), True, False,
    np.bool_(True), "TRUE", "false", "yes", decimal.Decimal("3.14"), decimal.Decimal("NaN"),
    fractions.Fraction(1, 3), "2262-04-11 23:00", "9999-01-01", "0001-01-01",
    "1677-09-21", pd.Timestamp("1700-01-01"), pd.Timestamp("2020-03-29 02:30"),
    pd.Timestamp("2024-01-01", tz="Asia/Tokyo"), np.datetime64("2024-02-29"),
    "2024-13-45", "31/12/2024", "1e400", "-1e-400", "0x1F", "3", " 4.0 ", "1,000",
    [1, 2], {"a": 1}, (1,), object(), range(3), Path("/tmp"), slice(1),
]

MALFORMED_LINES = [
    "", "\r", ",,,,,,,,,,", '"', '"unclosed,1', 'a"b,1', "Smith, John,1", "x,y,z,w,v",
    "\x00\x00", "caf\\xe9,1", "\\xff\\xfe", "\ufeffbom,1", " , ", "a\rb,1", '"a""b",2', "=cmd|' /C calc'!A0",
]


# -- tables -----------------------------------------------------------------------


def _column(kind, n, rng):
    if kind == "int":
        return pd.Series(rng.integers(0, 100, n))
    if kind == "float":
        return pd.Series(rng.normal(50, 10, n).round(2))
    if kind == "bool":
        return pd.Series(rng.random(n) < 0.4)
    if kind == "category":
        return pd.Series(rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2]))
    if kind == "date":
        return pd.Series(pd.to_datetime("2020-01-01")
                         + pd.to_timedelta(rng.integers(0, 700, n), "D"))
    if kind == "missing":
        return pd.Series(np.where(rng.random(n) < 0.2, np.nan, rng.normal(0, 1, n)))
    raise ValueError(kind)


def base_table(rng, numeric=False):
    n = int(rng.integers(150, 601))
    kinds = ["float"] * 3 if numeric else list(rng.choice(
        ["int", "float", "bool", "category", "date", "missing"], int(rng.integers(1, 5))))
    X = pd.DataFrame({f"c{j}": _column(k, n, rng) for j, k in enumerate(kinds)})
    return X, rng.integers(0, 2, n)


def _odd(rng):
    return ODD[int(rng.integers(len(ODD)))]


def _reform(value, rng):
    """The same value in another form."""
    if isinstance(value, (bool, np.bool_)):
        return ["TRUE", "false", " True "][int(rng.integers(3))] if value else "FALSE"
    if isinstance(value, (int, np.integer)):
        return [str(value), float(value), f" {value} ", np.int64(value)][int(rng.integers(4))]
    if isinstance(value, (float, np.floating)):
        return value if np.isnan(value) else [repr(float(value)), np.float32(value)
                                              if float(np.float32(value)) == value
                                              else str(value)][int(rng.integers(2))]
    if isinstance(value, pd.Timestamp):
        return [value.strftime("%Y-%m-%d"), value.to_pydatetime(),
                value.tz_localize("UTC").tz_convert("Asia/Tokyo")][int(rng.integers(3))]
    return value


def neighbour(X, y, rng):
    X2, y2 = X.astype(object).copy(), np.asarray(y, dtype=object).copy()
    i = int(rng.integers(len(X)))
    if rng.random() < 0.8:
        X2.iat[i, int(rng.integers(X.shape[1]))] = _odd(rng)
    else:
        y2[i] = _odd(rng)
    return X2, y2


def form_change(X, y, rng):
    X2 = X.astype(object).copy()
    for col in X2.columns:
        X2[col] = [_reform(v, rng) for v in X2[col]]
    y2 = np.array([_reform(v, rng) for v in np.asarray(y).tolist()], dtype=object)
    return X2, y2


def wild(X, y, rng):
    X2 = pd.DataFrame({c: [_odd(rng) for _ in range(len(X))] for c in X.columns}, dtype=object)
    return X2, np.array([_odd(rng) for _ in range(len(y))], dtype=object)


CHANGES = {"neighbour": neighbour, "form": form_change, "wild": wild}

# -- entry points -------------------------------------------------------------------


def _in_memory(path, X, y):
    if path == "frame":
        return X, y
    if path == "array":
        return X.to_numpy(dtype=object), np.asarray(y, dtype=object)
    if path == "lists":
        return X.to_numpy(dtype=object).tolist(), list(np.asarray(y, dtype=object))
    if path == "dask":
        import dask
        import dask.dataframe as dd

        dask.config.set({"dataframe.convert-string": False})  # keep each value's form
        frame = X.astype(object).assign(_y=pd.Series(np.asarray(y, dtype=object)))
        ddf = dd.from_pandas(frame, npartitions=2)
        return ddf.drop(columns="_y"), ddf["_y"]
    raise ValueError(path)


ESTIMATORS = {
    "dphp": lambda X, y: DPHPSynthesizer(**FAST).fit(X, y).sample(20, random_state=0),
    "dphp-unlabeled": lambda X, y: DPHPSynthesizer(**FAST).fit(X).sample(20, random_state=0),
    "dpmerf": lambda X, y: DPMERFSynthesizer(n_components=40, **FAST).fit(X, y),
    "schema": lambda X, y: estimate_schema(X, y, epsilon=1.0),
    "kme": lambda X, y: KernelMeanEmbedding(epsilon=1.0, classes=[0, 1]).fit(X, y),
    "release": lambda X, y: DPKMEReleaser(bounds=(-3, 3), n_points=10, random_state=0).fit(X),
    "two-sample": lambda X, y: DPTwoSampleTest(bounds=(-3, 3), random_state=0,
                                               n_null_samples=100).test(X, X),
}
NUMERIC_ONLY = {"kme", "release", "two-sample"}


def _small_synthesizers():
    """The command line's estimators, small (as the tests' ``fast_fits``)."""
    import skdpgen.cli as cli

    params = {"DPHPSynthesizer": dict(order=4, epochs=1, steps_per_epoch=2, batch_size=64),
              "DPMERFSynthesizer": dict(n_components=40, epochs=1, steps_per_epoch=2,
                                        batch_size=64)}
    build = cli._build
    cli._build = lambda cls, **options: build(cls, **options).set_params(
        **params.get(cls.__name__, {}))


def _csv_text(X, y):
    frame = X.astype(object).assign(label=pd.Series(np.asarray(y, dtype=object)))
    buffer = io.StringIO()
    frame.to_csv(buffer, index=False)
    return buffer.getvalue()


def _malformed(text, rng):
    """One data line replaced by a malformed one (the line count kept)."""
    lines = text.split("\n")
    i = 1 + int(rng.integers(len(lines) - 2))
    lines[i] = MALFORMED_LINES[int(rng.integers(len(MALFORMED_LINES)))]
    return "\n".join(lines)


def _long_record(text, rng):
    """One data line replaced by a record of a random size up to the maximum record
    length and past it (the line count kept)."""
    from skdpgen._records import MAX_RECORD_BYTES as limit

    lines = text.split("\n")
    i = 1 + int(rng.integers(len(lines) - 2))
    edges = [limit - 1, limit, limit + 1, limit + 2]  # + 2: a CRLF-like \r at its end
    size = (edges[int(rng.integers(4))] if rng.random() < 0.3
            else int(np.exp(rng.uniform(0, np.log(30 * limit)))))
    head = ["", "\u4e2d", '"', ","][int(rng.integers(4))]
    fill = {"": "9", "\u4e2d": "x", '"': "a,", ",": ","}[head]
    body = (head + fill * size).encode()[:size].decode("utf-8", "ignore")
    lines[i] = body + "x" * (size - len(body.encode()))  # exactly size bytes
    return "\n".join(lines)


def _cli(command, folder):
    from skdpgen.cli import main

    def run(name, payload):
        where = folder / name
        where.mkdir(exist_ok=True)
        data = where / "data.csv"
        data.write_bytes(payload.encode("utf-8", "surrogateescape").replace(b"\\xe9", b"\xe9"))
        args = [a.format(dir=where) for a in command]
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(args)
            except SystemExit as exc:
                code = exc.code
        text = out.getvalue() + err.getvalue()  # as printed: the command prints no time
        files = {p.name: p.read_bytes() for p in sorted(where.iterdir()) if p.name != "data.csv"}
        for p in where.iterdir():
            p.unlink()
        return code, text.replace(str(where), "<dir>"), files
    return run


CLI = {
    "csv-synthesize": ["synthesize", "{dir}/data.csv", "--target", "label", "--epsilon", "1",
                       "--out", "{dir}/syn.csv", "--random-state", "0", "--quiet",
                       "--allow-guesses"],
    "csv-refusing": ["synthesize", "{dir}/data.csv", "--target", "label", "--epsilon", "1",
                     "--out", "{dir}/syn.csv", "--random-state", "0", "--quiet"],
    "csv-schema": ["schema", "{dir}/data.csv", "--target", "label", "--epsilon", "0.5",
                   "--out", "{dir}/schema.json"],
    "csv-joined": ["synthesize", "{dir}/data.csv", "--target", "label", "--epsilon", "1",
                   "--out", "{dir}/syn.csv", "--random-state", "0", "--quiet",
                   "--allow-guesses", "--no-final-newline"],
}


# -- the search ----------------------------------------------------------------------


def one_try(seed, folder, csv_only=False):
    """One randomized try: (entry point, estimator, change, difference or None)."""
    rng = np.random.default_rng(seed)
    change = list(CHANGES)[int(rng.integers(len(CHANGES)))]
    if rng.random() < 0.3 or csv_only:  # the command line
        path = list(CLI)[int(rng.integers(len(CLI)))]
        X, y = base_table(rng)
        joined = path == "csv-joined"  # "\n".join(records): no line break after the last
        text = _csv_text(X, y)[:-1] if joined else _csv_text(X, y)
        draw = rng.random()
        if change == "neighbour" and joined and draw < 0.4:
            change, text2 = "blank last record", text[:text.rindex("\n") + 1]
        elif change == "neighbour" and draw < 0.7:
            change = "malformed line" if draw < 0.35 else "long record"
            text2 = (_malformed if draw < 0.35 else _long_record)(text, rng)
        else:
            text2 = _csv_text(*CHANGES[change](X, y, rng))
            text2 = text2[:-1] if joined else text2
            if text2.count("\n") != text.count("\n"):  # a value holding a line break
                return path, "-", change, None  # another public shape: not a neighbour
        run = _cli(CLI[path], folder)
        return path, "cli", change, replay_difference(run, ("D", text), ("D2", text2))
    name = list(ESTIMATORS)[int(rng.integers(len(ESTIMATORS)))]
    X, y = base_table(rng, numeric=name in NUMERIC_ONLY)
    X2, y2 = CHANGES[change](X, y, rng)
    paths = ["frame", "array", "lists"] + (["dask"] if name not in NUMERIC_ONLY - {"kme"}
                                           else [])
    path = paths[int(rng.integers(len(paths)))]
    run = ESTIMATORS[name]
    data = _in_memory(path, X, y)
    data2 = _in_memory(path, X2, y2)
    if path == "dask":
        import dask

        with dask.config.set(scheduler="synchronous"):
            return path, name, change, replay_difference(run, data, data2)
    return path, name, change, replay_difference(run, data, data2)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=0, help="the first try's seed")
    parser.add_argument("--csv-only", action="store_true",
                        help="every try through the command line (CSV files)")
    args = parser.parse_args(argv)
    _small_synthesizers()
    warnings.simplefilter("ignore")
    tried = collections.Counter()
    failures = []
    stop = time.monotonic() + 60 * args.minutes
    seed = args.seed
    with tempfile.TemporaryDirectory() as tmp:
        while time.monotonic() < stop:
            path, name, change, difference = one_try(seed, Path(tmp), args.csv_only)
            tried[(path, name, change)] += 1
            if difference is not None:
                failures.append((seed, path, name, change, difference))
                print(f"FAIL seed={seed} {path} {name} {change}: {difference[:400]}",
                      flush=True)
            seed += 1
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    print(f"\n{sum(tried.values())} tries (seeds {args.seed}-{seed - 1}) in {args.minutes:g} "
          f"min, {len(failures)} failed; {platform.node()}, {platform.processor() or '?'}, "
          f"commit {commit}")
    print("| entry point | estimator | change | tries |\n|---|---|---|---|")
    for (path, name, change), count in sorted(tried.items()):
        print(f"| {path} | {name} | {change} | {count} |")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
