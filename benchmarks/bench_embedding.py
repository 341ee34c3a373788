"""Benchmark of the kernel mean embedding: wall time and peak memory of ``fit``.

A script, not a test: it prints tables and never asserts. Run from anywhere
with skdpgen installed::

    python benchmarks/bench_embedding.py            # full run (several minutes)
    python benchmarks/bench_embedding.py --quick    # smoke run, a few seconds
    python benchmarks/bench_embedding.py --help

Every measurement runs in a fresh child process (``--start-method``), which

1. draws the data ``X`` (``n`` × 14 float64, uniform in [-1, 1], seeded),
2. fits once under :mod:`tracemalloc` and records the memory of that fit:

   * *peak traced*: ``tracemalloc`` peak during ``fit`` minus the traced size
     before it (NumPy reports its array buffers to tracemalloc, so this is
     the Python + NumPy heap that the fit itself allocates; ``X`` was drawn
     before tracing started and is not counted);
   * *ΔRSS*: peak resident set size during ``fit`` minus the resident set size
     just before it. The peak is the kernel's high-water mark (``VmHWM``,
     which is what ``getrusage().ru_maxrss`` returns), reset to the current
     RSS right before the fit through ``/proc/self/clear_refs``; where that
     reset is not allowed, the plain ``ru_maxrss`` delta is used (marked
     ``*``). It includes what tracemalloc cannot see (thread stacks, BLAS
     buffers, allocator slack) and tracemalloc's own bookkeeping;

3. then times ``--repeats`` further fits without tracing (the first fit also
   served as the warm-up) and reports the best, with its process CPU time
   (all threads; with ``n_jobs=1`` a CPU time well below the wall time means
   that other processes were competing for the cores). A case stops repeating once
   its timed fits add up to more than ``--max-seconds`` (at least one timed
   fit is always done); the ``runs`` column says how many were done.

Timings use the non-private embedding (``epsilon=None``); one extra row times
the order-100 Hermite embedding with ``epsilon=1`` to show that the Gaussian
noise adds nothing measurable.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import argparse
import datetime
import gc
import os
import platform
import resource
import time
import tracemalloc

import numpy as np

from _common import Table, cpu_model, mib, proc_status_kib, reset_peak_rss, run_isolated, version

N_FEATURES = 14
TARGET_SECONDS = 5.0
TARGET_CASE, TARGET_N, TARGET_N_JOBS = "hermite100", 1_000_000, -1

# name -> (label, feature-map factory, epsilon)
CASES = {
    "hermite20": ("Hermite order=20 sum", lambda: _hermite(20), None),
    "hermite100": ("Hermite order=100 sum", lambda: _hermite(100), None),
    "rff10000": ("RFF n_components=10000", lambda: _rff(10_000), None),
    "hermite100-dp": ("Hermite order=100 sum, eps=1", lambda: _hermite(100), 1.0),
}
DEFAULT_CASES = "hermite20,hermite100,rff10000,hermite100-dp"


def _hermite(order):
    from skdpgen import HermiteFeatures

    return HermiteFeatures(order=order, kernel="sum")


def _rff(n_components):
    from skdpgen import RandomFourierFeatures

    return RandomFourierFeatures(n_components=n_components, random_state=0)


# --------------------------------------------------------------------------
# Child process: one case, one n, one n_jobs.
# --------------------------------------------------------------------------


def _measure(case, n, n_jobs, repeats, max_seconds, seed):
    from skdpgen import KernelMeanEmbedding

    _, make_features, epsilon = CASES[case]
    X = np.random.default_rng(seed).uniform(-1.0, 1.0, size=(n, N_FEATURES))

    def fit():
        return KernelMeanEmbedding(
            features=make_features(), epsilon=epsilon, n_jobs=n_jobs
        ).fit(X)

    # Memory: the first fit (also the warm-up), traced.
    gc.collect()
    rss_before = proc_status_kib("VmRSS")
    reset_ok = reset_peak_rss()
    maxrss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    tracemalloc.start()
    traced_before = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    t0 = time.perf_counter()
    kme = fit()
    traced_seconds = time.perf_counter() - t0
    traced_peak = tracemalloc.get_traced_memory()[1] - traced_before
    tracemalloc.stop()
    maxrss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if reset_ok:
        rss_delta = maxrss_after - rss_before
    else:
        rss_delta = maxrss_after - maxrss_before
    n_out = kme.embedding_.shape[0]
    del kme

    # Time: untraced repeats, best of.
    times, cpu_times = [], []
    for _ in range(repeats):
        gc.collect()
        c0, t0 = time.process_time(), time.perf_counter()
        fit()
        times.append(time.perf_counter() - t0)
        cpu_times.append(time.process_time() - c0)
        if sum(times) > max_seconds:
            break
    return {
        "best": min(times),
        "best_cpu": cpu_times[int(np.argmin(times))],
        "runs": len(times),
        "times": times,
        "traced_seconds": traced_seconds,
        "traced_peak": traced_peak,
        "rss_delta": rss_delta * 1024,
        "rss_exact": reset_ok,
        "n_out": n_out,
    }


# --------------------------------------------------------------------------
# Parent: header, tables.
# --------------------------------------------------------------------------


def _blas():
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return "unknown (threadpoolctl missing)"
    parts = [
        f"{i.get('internal_api')} {i.get('version')} "
        f"({i.get('threading_layer', '?')}, {i.get('architecture', '?')}): "
        f"{i.get('num_threads')} threads"
        for i in threadpool_info()
        if i.get("user_api") == "blas"
    ]
    return "; ".join(parts) or "none found"


def header(args, cases):
    import skdpgen

    env = {k: os.environ[k] for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                      "MKL_NUM_THREADS") if k in os.environ}
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    lines = [
        "skdpgen kernel mean embedding benchmark",
        f"date:      {datetime.datetime.now().isoformat(timespec='seconds')}",
        f"machine:   {platform.platform()}; CPU: {cpu_model()}; "
        f"nproc={len(os.sched_getaffinity(0))} (os.cpu_count()={os.cpu_count()})",
        f"python:    {platform.python_version()}; numpy {np.__version__}; "
        f"scikit-learn {version('scikit-learn')}; torch {version('torch')} "
        f"(not imported); joblib {version('joblib')}; skdpgen {skdpgen.__version__}",
        f"BLAS:      {_blas()}; thread env: {env or 'none set'}",
        f"load avg:  {load} (1/5/15 min) at start",
        f"data:      n={args.n:,} x {N_FEATURES} float64 ~ U[-1, 1], seed {args.seed} "
        f"({args.n * N_FEATURES * 8 / 2**20:.0f} MiB, drawn in each child)",
        f"settings:  repeats={args.repeats} (best of), max-seconds={args.max_seconds} "
        f"per case, start-method={args.start_method}, chunk_size=None (library default), "
        f"cases={','.join(cases)}",
        "timing:    non-private fit (epsilon=None) unless the case says eps=1; 'cpu s' = "
        "process CPU time (all threads) of the best fit: for n_jobs=1, cpu s well below "
        "best s means the machine was busy with other work",
        "memory:    of the first fit, in a fresh process; 'peak traced' = tracemalloc "
        "peak (NumPy buffers included, X excluded); 'dRSS' = peak RSS (VmHWM/ru_maxrss, "
        "reset just before the fit) - RSS before the fit",
    ]
    print("\n".join(lines), flush=True)


def _parse_n(text):
    return int(float(text))


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--n", type=_parse_n, default=1_000_000,
                        help="rows of the main table (e.g. 1e6)")
    parser.add_argument("--repeats", type=int, default=3,
                        help="timed fits per case; the best is reported")
    parser.add_argument("--max-seconds", type=float, default=60.0,
                        help="stop repeating a case once its timed fits exceed this "
                             "(at least one timed fit is always done)")
    parser.add_argument("--n-jobs", default="1,-1",
                        help="comma-separated n_jobs values")
    parser.add_argument("--cases", default=DEFAULT_CASES,
                        help=f"comma-separated subset of {','.join(CASES)}")
    parser.add_argument("--flat-n", default="1e4,1e5,1e6",
                        help="n values of the memory-vs-n table (order-100 Hermite); "
                             "empty to skip")
    parser.add_argument("--large", action="store_true",
                        help="add n=3e6 to the memory-vs-n table")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--start-method", choices=["spawn", "fork", "forkserver"],
                        default="spawn",
                        help="how each measurement's fresh process is started "
                             "(fork saves the ~1 s import per measurement)")
    parser.add_argument("--quick", action="store_true",
                        help="tiny smoke run (n=2000, 1 repeat, memory-vs-n at "
                             "1e3,3e3,1e4, fork): finishes in a few seconds")
    args = parser.parse_args(argv)
    if args.quick:
        args.n, args.repeats, args.flat_n = 2000, 1, "1e3,3e3,1e4"
        args.start_method = "fork"
    cases = [c for c in args.cases.split(",") if c]
    for c in cases:
        if c not in CASES:
            parser.error(f"unknown case {c!r}; choose from {','.join(CASES)}")
    n_jobs_list = [int(j) for j in args.n_jobs.split(",") if j]
    flat_ns = [_parse_n(x) for x in args.flat_n.split(",") if x]
    if args.large and 3_000_000 not in flat_ns:
        flat_ns.append(3_000_000)

    header(args, cases)
    t_start = time.perf_counter()
    common = dict(repeats=args.repeats, max_seconds=args.max_seconds, seed=args.seed)
    measured = {}  # (case, n, n_jobs) -> result

    # Table 1: the cases at n.
    table = Table(
        f"Mean embedding fit, n={args.n:,} x {N_FEATURES}",
        ["case", "features", "n_jobs", "best s", "cpu s", "runs", "rows/s",
         "peak traced MiB", "dRSS MiB", "traced-fit s"],
        [max(len(CASES[c][0]) for c in cases), 0, 0, 0, 0, 0, 10, 0, 0, 0],
    )
    for case in cases:
        label = CASES[case][0]
        jobs = n_jobs_list if case != "hermite100-dp" else [n_jobs_list[-1]]
        for n_jobs in jobs:
            r = run_isolated(_measure, args.start_method, case=case, n=args.n, n_jobs=n_jobs, **common)
            measured[case, args.n, n_jobs] = r
            table.row([
                label, r["n_out"], n_jobs, f"{r['best']:.3f}", f"{r['best_cpu']:.3f}",
                r["runs"],
                f"{args.n / r['best']:,.0f}", mib(r["traced_peak"], 1),
                mib(r["rss_delta"], 1) + ("" if r["rss_exact"] else "*"),
                f"{r['traced_seconds']:.3f}",
            ])

    # Table 2: memory flat in n.
    if flat_ns:
        table = Table(
            "Memory flat in n: Hermite order=100 sum (1414 features), non-private",
            ["n", "n_jobs", "best s", "cpu s", "runs", "us/row", "rows/s",
             "peak traced MiB", "dRSS MiB", "X MiB (not counted)"],
            [9, 0, 0, 0, 0, 0, 10, 0, 0, 0],
        )
        for n_jobs in n_jobs_list:
            for n in flat_ns:
                r = measured.get(("hermite100", n, n_jobs))
                if r is None:
                    r = run_isolated(_measure, args.start_method, case="hermite100", n=n,
                                     n_jobs=n_jobs, **common)
                    measured["hermite100", n, n_jobs] = r
                table.row([
                    f"{n:,}", n_jobs, f"{r['best']:.3f}", f"{r['best_cpu']:.3f}", r["runs"],
                    f"{r['best'] / n * 1e6:.2f}", f"{n / r['best']:,.0f}",
                    mib(r["traced_peak"], 1),
                    mib(r["rss_delta"], 1) + ("" if r["rss_exact"] else "*"),
                    mib(n * N_FEATURES * 8, 1),
                ])
        print()
        for n_jobs in n_jobs_list:
            rs = [measured["hermite100", n, n_jobs] for n in flat_ns]
            lo, hi = min(flat_ns), max(flat_ns)
            r_lo, r_hi = measured["hermite100", lo, n_jobs], measured["hermite100", hi, n_jobs]
            print(
                f"n_jobs={n_jobs}: n x{hi / lo:g} -> time x{r_hi['best'] / r_lo['best']:.1f}, "
                f"peak traced x{r_hi['traced_peak'] / max(r_lo['traced_peak'], 1):.2f} "
                f"(range {mib(min(r['traced_peak'] for r in rs), 1)}-"
                f"{mib(max(r['traced_peak'] for r in rs), 1)} MiB)"
            )

    # Target.
    print()
    key = (TARGET_CASE, TARGET_N, TARGET_N_JOBS)
    if key in measured:
        best = measured[key]["best"]
        verdict = "MET" if best < TARGET_SECONDS else "NOT MET"
        print(f"Target: order-100 Hermite embedding of {TARGET_N:,} x {N_FEATURES} rows in "
              f"< {TARGET_SECONDS:g} s with n_jobs={TARGET_N_JOBS}: measured {best:.3f} s "
              f"-> {verdict}")
    else:
        print(f"Target (order-100 Hermite, n={TARGET_N:,}, n_jobs={TARGET_N_JOBS}, "
              f"< {TARGET_SECONDS:g} s): not measured in this run")
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"load avg at end: {load}; total benchmark time {time.perf_counter() - t_start:.0f} s")


if __name__ == "__main__":
    main()
