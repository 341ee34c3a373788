"""Time ``skdpgen evaluate`` (and its usage errors) on tables that used to stall it.

Generates a 20,000-row table of 20 columns (a unique text id per row, a
132-value text column, missing values, numbers, a date, a bool) three
times (real test, synthetic, real train draws), then runs the command as a
user would, in a subprocess, and prints its wall time, its last progress
line and its notes. With ``--adult SYNTH`` it also times the Getting started
page's ``skdpgen evaluate adult_test.csv SYNTH --target income``. Prints the
machine, the load average and the commit; asserts nothing.

    python benchmarks/bench_evaluate.py [--rows 20000] [--adult synth.csv]
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from _common import machine_line


def table(n, seed):
    """A sports-like table: an id, a 132-value team column (Zipf), numbers with 5 %
    missing, a date, a bool, a yes/no with missing values, a 0/1 target."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 12))
    team = np.array([f"team_{i:03d}" for i in range(132)])[rng.zipf(1.3, n) % 132]
    cols = {"player_id": [f"P{seed}{i:07d}" for i in range(n)]}
    for j in range(12):
        cols[f"num{j}"] = np.where(rng.random(n) < 0.05, np.nan,
                                   np.round(x[:, j] * 10 ** (j % 4), 2))
    cols["team"] = np.where(rng.random(n) < 0.03, None, team)
    cols["pos"] = rng.choice(["G", "F", "C", "GF", "FC"], n)
    cols["season"] = rng.integers(1990, 2020, n)
    cols["date"] = (pd.Timestamp("2000-01-01") + pd.to_timedelta(
        rng.integers(0, 7000, n), unit="D")).strftime("%Y-%m-%d")
    cols["flag"] = rng.choice(["TRUE", "FALSE"], n)
    cols["home"] = rng.choice(["yes", "no", None], n)
    signal = x[:, 0] + 0.5 * x[:, 1] + (team == "team_001") + rng.normal(size=n)
    cols["win"] = (signal > 0).astype(int)
    return pd.DataFrame(cols)


def run(*args):
    """``(seconds, exit status, stdout, stderr)`` of ``skdpgen ARGS``."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "skdpgen", *map(str, args)],
                          capture_output=True, text=True)
    return time.perf_counter() - start, done.returncode, done.stdout, done.stderr


def report(name, result):
    seconds, status, out, err = result
    last = (err.strip().splitlines() or [""])[-1]
    print(f"| {name} | {seconds:.1f} s | {status} | {last} |")
    for line in out.splitlines():
        if line.startswith(("Skipped", "Note")):
            print(f"|   | | | {line} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--adult", default=None, metavar="SYNTH",
                        help="a synthetic Adult table: time the Getting started command")
    args = parser.parse_args()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, cwd=Path(__file__).parent).stdout.strip()
    print(machine_line())
    print(f"commit {commit}; load average before: {os.getloadavg()}")
    print("| command | wall | exit | last line on stderr |\n|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for name, seed in (("real", 1), ("syn", 2), ("train", 3)):
            table(args.rows, seed).to_csv(tmp / f"{name}.csv", index=False)
        real, syn, train = (tmp / f"{n}.csv" for n in ("real", "syn", "train"))
        report(f"evaluate, {args.rows} x 20 with an id", run("evaluate", real, syn,
                                                               "--target", "win"))
        report("the same, --train", run("evaluate", real, syn, "--target", "win",
                                         "--train", train))
        report("synthesize missing.csv", run("synthesize", tmp / "missing.csv",
                                              "--out", tmp / "x.csv"))
        report("synthesize --epsilon 0", run("synthesize", real, "--epsilon", "0",
                                             "--out", tmp / "x.csv"))
    if args.adult:
        from skdpgen.datasets import load_adult

        with tempfile.TemporaryDirectory() as tmp:
            test = Path(tmp) / "adult_test.csv"
            load_adult(split="test").frame.to_csv(test, index=False)
            report("evaluate adult_test.csv SYNTH --target income",
                   run("evaluate", test, args.adult, "--target", "income"))
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
