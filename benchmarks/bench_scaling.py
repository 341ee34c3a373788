"""Scaling benchmark: embedding and synthesizer fit against n, in memory and on Dask.

A script, not a test: it prints tables and never asserts. Run from anywhere
with the ``dask`` extra installed (``pip install -e ".[dask]"``)::

    python benchmarks/bench_scaling.py --quick      # smoke run, about a minute
    python benchmarks/bench_scaling.py              # n up to 10^7 / 10^6
    python benchmarks/bench_scaling.py --part embedding --n 1e6,1e7
    python benchmarks/bench_scaling.py --part synthesizer --device cuda
    python benchmarks/bench_scaling.py --part synthesizer --modes in-memory,csv \
        --json scaling.json --figure doc/images/bench_scaling.png
    python benchmarks/bench_scaling.py --help

Every measurement runs in a fresh process (``spawn``).

**Embedding** (``--part embedding``): the non-private order-100 Hermite
sum-kernel embedding (``KernelMeanEmbedding(features=HermiteFeatures(order=100))``,
1414 features) of ``n`` × 14 rows uniform in [-1, 1].

* *in memory*: the process draws ``X`` with NumPy, then times ``fit(X)``
  (best of ``--repeats`` for n ≤ 10^5, one fit above); *dRSS* is the peak
  resident set during the first fit minus the resident set before it (``X``
  itself not included).
* *dask*: the process starts a ``distributed.LocalCluster`` of ``--workers``
  worker processes (one thread each, ``--worker-memory`` each) and builds
  ``X`` lazily with ``dask.array.random.default_rng(seed).uniform`` in row
  blocks of ``--block-rows``: rows are drawn on the workers and never exist
  on the client. *fit s* is ``fit(X)`` (drawing the blocks included; the
  cluster is started and warmed up before); *draw s* times
  ``X.sum().compute()``, the drawing alone, for reference. *worker peak* is
  the largest peak resident set of a worker process during the fit (reset
  just before it), i.e. what the memory limit must cover.

**Synthesizer** (``--part synthesizer``, ``--synth-n``, ``--modes``):
``DPHPSynthesizer`` with its defaults, ε = 1, public Adult schema and class
list, on the Adult train split resampled with replacement to ``n`` rows
(seeded). *peak RSS* is the whole process's largest resident set (the table
included), *input* the table's size (the DataFrame's, deep, or the CSV
file's), *fit dRSS* what the fit added to the resident set before it.

* *in memory*: ``fit`` on the pandas DataFrame;
* *csv*: ``skdpgen synthesize adult.csv --schema schema.json --target income
  --epsilon 1 --n-samples 1000`` on the table written as CSV with the public
  schema file: the whole command (reading, fitting, sampling, writing),
  timed from outside, its peak RSS that of the child process;
* *dask*: the same rows written to Parquet files (``--block-rows`` rows
  each) in a temporary directory and read back with ``dask.dataframe.read_parquet``
  on the cluster: each of the fit's releases (one sum-kernel release and one
  product-kernel release per epoch, plus the class proportions) is a pass
  of the workers over the files.

*release s* is the time spent computing and privatizing the embeddings of
the real rows (the part that grows with n); the rest of *fit s* is generator
training, which does not depend on n. ``--device cuda`` trains on the GPU.

Timings on a shared machine vary with its load: the header and each table
print the load average.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import argparse
import datetime
import functools
import gc
import os
import platform
import resource
import sys
import tempfile
import time

import numpy as np

from _common import (
    Table,
    machine_line,
    mib,
    proc_status_kib,
    reset_peak_rss,
    run_isolated,
    timed_releases,
    version,
)

N_COLUMNS = 14
ORDER = 100


# --------------------------------------------------------------------------
# Children
# --------------------------------------------------------------------------


def _kme():
    from skdpgen import HermiteFeatures, KernelMeanEmbedding

    return KernelMeanEmbedding(features=HermiteFeatures(order=ORDER))


def _embedding_in_memory(n, repeats, seed):
    X = np.random.default_rng(seed).uniform(-1, 1, size=(n, N_COLUMNS))
    kme = _kme()
    gc.collect()
    rss_before = proc_status_kib("VmRSS")
    exact = reset_peak_rss()
    maxrss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    times, cpus = [], []
    for _ in range(repeats if n <= 100_000 else 1):
        c0, t0 = time.process_time(), time.perf_counter()
        kme.fit(X)
        times.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    best = int(np.argmin(times))
    return {"fit": times[best], "cpu": cpus[best],
            "rss": (peak - (rss_before if exact else maxrss_before)) * 1024, "exact": exact}


def _worker_reset():
    return reset_peak_rss()


def _worker_peak():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _start_cluster(workers, worker_memory):
    import distributed

    cluster = distributed.LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=True,
        memory_limit=worker_memory, dashboard_address=None,
    )
    return cluster, distributed.Client(cluster)


def _embedding_dask(n, seed, workers, worker_memory, block_rows):
    import dask.array as da

    cluster, client = _start_cluster(workers, worker_memory)
    try:
        warm = da.random.default_rng(seed).uniform(-1, 1, size=(1000, N_COLUMNS),
                                                   chunks=(500, N_COLUMNS))
        _kme().fit(warm)  # imports skdpgen on the workers
        X = da.random.default_rng(seed).uniform(-1, 1, size=(n, N_COLUMNS),
                                                chunks=(block_rows, N_COLUMNS))
        t0 = time.perf_counter()
        X.sum().compute()
        draw = time.perf_counter() - t0
        client.run(_worker_reset)
        t0 = time.perf_counter()
        _kme().fit(X)
        fit = time.perf_counter() - t0
        peak = max(client.run(_worker_peak).values())
    finally:
        client.close()
        cluster.close()
    return {"fit": fit, "draw": draw, "worker_peak": peak, "blocks": X.numblocks[0]}


def _adult_rows(n, seed):
    import pandas as pd

    from skdpgen.datasets import load_adult

    b = load_adult(split="train")
    idx = np.random.default_rng(seed).integers(0, len(b.data), size=n)
    frame = b.data.iloc[idx].reset_index(drop=True)
    frame["income"] = pd.Categorical(b.target.iloc[idx].to_numpy(),
                                     categories=b.target_schema["categories"])
    return frame, b.schema, b.target_schema["categories"]


def _synthesizer_csv(n, seed):
    """The command line on a CSV of ``n`` Adult rows with the public schema file."""
    import json
    import subprocess

    frame, schema, classes = _adult_rows(n, seed)
    with tempfile.TemporaryDirectory() as tmp:
        data, spec = os.path.join(tmp, "adult.csv"), os.path.join(tmp, "schema.json")
        frame.to_csv(data, index=False)
        size = os.path.getsize(data)
        del frame
        gc.collect()
        schema = {**schema, "income": {"type": "categorical", "categories": list(classes)}}
        with open(spec, "w") as f:
            json.dump(schema, f, default=str)
        hwm = os.path.join(tmp, "peak.txt")
        cmd = [sys.executable, "-c", _CLI_PEAK, hwm, "synthesize", data, "--schema", spec,
               "--target", "income", "--epsilon", "1", "--random-state", str(seed),
               "--out", os.path.join(tmp, "synthetic.csv"), "--quiet", "--n-samples", "1000"]
        t0 = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        if done.returncode != 0:
            raise RuntimeError(done.stderr[-2000:])
        with open(hwm) as f:
            peak = int(f.read())
    return {"fit": wall, "release": float("nan"), "releases": -1, "epsilon": 1.0,
            "peak": peak, "input": size}


#: ``skdpgen`` run in the measured child, which then writes its own peak resident
#: set (VmHWM, bytes) to ``argv[1]``. Not the child's ``ru_maxrss``: that one keeps
#: the peak of the process it was forked from (this one, which held the table it
#: wrote) across ``exec``; before 2026-11-27 the CSV peaks were that upper bound.
_CLI_PEAK = """
import sys
from skdpgen.cli import main
code = main(sys.argv[2:])
with open("/proc/self/status") as f:
    kib = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
with open(sys.argv[1], "w") as f:
    f.write(str(kib * 1024))
sys.exit(code)
"""


def _synthesizer(n, seed, mode, device, workers, worker_memory, block_rows):
    from skdpgen import DPHPSynthesizer

    if mode == "csv":
        return _synthesizer_csv(n, seed)
    frame, schema, classes = _adult_rows(n, seed)
    spent = timed_releases()
    synth = DPHPSynthesizer(schema=schema, classes=classes, random_state=seed, device=device)
    cluster = client = tmp = None
    try:
        if mode == "dask":
            import dask.dataframe as dd

            tmp = tempfile.TemporaryDirectory()
            dd.from_pandas(frame, chunksize=block_rows).to_parquet(tmp.name)
            del frame
            cluster, client = _start_cluster(workers, worker_memory)
            data = dd.read_parquet(tmp.name)
            X, y = data.drop(columns="income"), data["income"]
        else:
            X, y = frame.drop(columns="income"), frame["income"]
        size = int(X.memory_usage(deep=True).sum()) if mode != "dask" else 0
        gc.collect()
        rss_before = proc_status_kib("VmRSS")
        exact = reset_peak_rss()
        t0 = time.perf_counter()
        synth.fit(X, y, epsilon=1.0)
        fit = time.perf_counter() - t0
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    finally:
        if client is not None:
            client.close()
            cluster.close()
        if tmp is not None:
            tmp.cleanup()
    return {"fit": fit, "release": spent["seconds"],
            "releases": int(synth.privacy_report_.n_releases),
            "epsilon": float(synth.privacy_report_.epsilon),
            # in memory: the whole process's peak, and the fit's growth over the
            # resident set before it (the table included; approximate without reset)
            "peak": peak * 1024, "fit_rss": (peak - (rss_before if exact else 0)) * 1024,
            "input": size}


# --------------------------------------------------------------------------
# Parent
# --------------------------------------------------------------------------


def _load():
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def header(args):
    import torch

    import skdpgen

    print("\n".join([
        "skdpgen scaling benchmark",
        f"date:      {datetime.datetime.now().isoformat(timespec='seconds')}",
        f"command:   {' '.join(['python', os.path.relpath(sys.argv[0])] + sys.argv[1:])}",
        f"machine:   {machine_line()}",
        f"commit:    {_commit()}",
        f"python:    {platform.python_version()}; numpy {np.__version__}; torch "
        f"{torch.__version__}; dask {version('dask')}; distributed {version('distributed')}; "
        f"skdpgen {skdpgen.__version__}",
        f"dask:      LocalCluster(n_workers={args.workers}, threads_per_worker=1, "
        f"processes=True, memory_limit={args.worker_memory!r}); {args.block_rows:,} rows "
        "per block / Parquet file",
        f"load avg:  {_load()} (1/5/15 min) at start",
    ]), flush=True)


def _parse_ns(text):
    return [int(float(x)) for x in text.split(",") if x]


def _fmt_n(n):
    e = int(np.log10(n))
    return f"10^{e}" if 10**e == n else f"{n:,}"


def run_embedding(args):
    table = Table(
        f"Order-{ORDER} Hermite embedding of n x {N_COLUMNS} rows (non-private; "
        f"in memory: 1 thread; dask: {args.workers} worker processes)",
        ["n", "in-memory s", "rows/s", "dRSS MiB", "dask fit s", "draw s", "rows/s",
         "blocks", "worker peak MiB", "load"],
        [6, 11, 10, 8, 10, 6, 10, 6, 15, 5],
    )
    for n in args.n:
        mem = (run_isolated(_embedding_in_memory, n=n, repeats=args.repeats, seed=0)
               if n <= args.max_in_memory else None)
        dk = run_isolated(_embedding_dask, n=n, seed=0, workers=args.workers,
                          worker_memory=args.worker_memory, block_rows=args.block_rows)
        table.row([
            _fmt_n(n),
            f"{mem['fit']:.2f}" if mem else "-",
            f"{n / mem['fit']:,.0f}" if mem else "-",
            (mib(mem["rss"]) + ("" if mem["exact"] else "*")) if mem else "-",
            f"{dk['fit']:.2f}", f"{dk['draw']:.2f}", f"{n / dk['fit']:,.0f}",
            dk["blocks"], mib(dk["worker_peak"]), f"{os.getloadavg()[0]:.1f}",
        ])


def run_synthesizer(args):
    table = Table(
        f"DPHPSynthesizer fit (defaults, eps=1, device={args.device!r}) on Adult rows "
        "resampled to n (in-memory: fit on the DataFrame; csv: `skdpgen synthesize` on a "
        "CSV with the public schema file, the whole command; input: the DataFrame's or "
        "the file's size)",
        ["n", "mode", "fit s", "release s", "train s", "input MiB", "peak RSS MiB",
         "fit dRSS MiB", "load"],
        [6, 9, 7, 9, 7, 9, 12, 12, 5],
    )
    results = []
    for n in args.synth_n:
        for mode in args.modes:
            r = run_isolated(_synthesizer, n=n, seed=0, mode=mode.split("-")[0],
                             device=args.device, workers=args.workers,
                             worker_memory=args.worker_memory, block_rows=args.block_rows)
            results.append({"n": n, "mode": mode, **r})
            table.row([_fmt_n(n), mode, f"{r['fit']:.1f}", f"{r['release']:.1f}",
                       f"{r['fit'] - r['release']:.1f}", mib(r.get("input", 0)),
                       mib(r.get("peak", 0)), mib(r["fit_rss"]) if "fit_rss" in r else "-",
                       f"{os.getloadavg()[0]:.1f}"])
    if args.json:
        import json

        with open(args.json, "w") as f:
            json.dump({"machine": machine_line(), "commit": _commit(),
                       "date": datetime.date.today().isoformat(), "results": results}, f,
                      indent=1)
    if args.figure:
        figure(results, args.figure)


@functools.lru_cache(maxsize=1)
def _commit():
    """The repository's commit, read once (at the header: the code measured)."""
    import subprocess

    here = os.path.dirname(os.path.abspath(__file__))
    out = subprocess.run(["git", "-C", here, "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True)
    return out.stdout.strip() or "unknown"


def figure(results, path):
    """Log-log plot of fit time and peak resident memory against rows, per mode."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    for mode in dict.fromkeys(r["mode"] for r in results):
        rs = [r for r in results if r["mode"] == mode]
        ns = [r["n"] for r in rs]
        axes[0].loglog(ns, [r["fit"] for r in rs], "o-", label=mode)
        line, = axes[1].loglog(ns, [r["peak"] / 2**20 for r in rs], "o-", label=mode)
        axes[1].loglog(ns, [max(r.get("input", 0), 1) / 2**20 for r in rs], "--",
                       color=line.get_color(), alpha=0.6, label=f"{mode}: the input")
    axes[0].set(xlabel="rows", ylabel="seconds (whole fit)", title="Time")
    axes[1].set(xlabel="rows", ylabel="peak RSS, MiB", title="Memory (whole process)")
    for ax in axes:
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def replot(paths, figure_path):
    """The figure, and an rst table, from saved ``--json`` files (merged)."""
    import json

    results, heads = [], []
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        results += data["results"]
        heads.append(f"{data['date']}, commit {data['commit']}")
    results.sort(key=lambda r: (r["mode"], r["n"]))
    figure(results, figure_path)
    print(f"Measured {'; '.join(dict.fromkeys(heads))}.\n")
    print(".. list-table::\n   :header-rows: 1\n")
    for row in [["rows", "mode", "fit s", "input MiB", "peak RSS MiB"]] + [
            [f"{r['n']:,}", r["mode"], f"{r['fit']:.1f}", mib(r.get("input", 0)),
             mib(r["peak"])] for r in results]:
        print("   * - " + "\n     - ".join(row))


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--part", choices=("all", "embedding", "synthesizer"), default="all")
    parser.add_argument("--n", type=_parse_ns, default="1e4,1e5,1e6,1e7",
                        help="rows of the embedding table")
    parser.add_argument("--synth-n", type=_parse_ns, default="1e4,1e5,1e6,1e7",
                        help="rows of the synthesizer table")
    parser.add_argument("--modes", type=lambda t: t.split(","), default="in-memory,csv",
                        help="synthesizer modes: in-memory, csv, dask")
    parser.add_argument("--json", default=None, help="write the synthesizer results here")
    parser.add_argument("--figure", default=None,
                        help="write the log-log figure of the synthesizer results here")
    parser.add_argument("--max-in-memory", type=float, default=1e7,
                        help="largest n run in memory (X is n x 14 float64)")
    parser.add_argument("--repeats", type=int, default=3,
                        help="in-memory fits per n <= 10^5 (best reported)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--worker-memory", default="2GiB")
    parser.add_argument("--block-rows", type=int, default=250_000)
    parser.add_argument("--device", default="cpu", help="device of the synthesizer")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: n = 1e3,1e4 (embedding), 2e3 (synthesizer)")
    parser.add_argument("--replot", default=None, metavar="A.json,B.json",
                        help="no run: the figure (--figure) and an rst table from saved "
                             "--json files")
    args = parser.parse_args(argv)
    if args.replot:
        return replot(args.replot.split(","), args.figure or "bench_scaling.png")
    if args.quick:
        args.n, args.synth_n, args.block_rows = [1_000, 10_000], [2_000], 1_000
    header(args)
    t0 = time.perf_counter()
    if args.part in ("all", "embedding"):
        run_embedding(args)
    if args.part in ("all", "synthesizer"):
        run_synthesizer(args)
    print(f"\nload avg at end: {_load()}; total benchmark time {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
