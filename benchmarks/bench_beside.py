"""Benchmark: the embedding's fit alone and beside one other busy process.

A script, not a test: it prints a table and never asserts. For each
``n_jobs`` it times ``--repeats`` fits of
``KernelMeanEmbedding(HermiteFeatures(order=100), n_jobs=...)`` on
``n`` × 14 rows (uniform in [-1, 1]) three ways, in turn:

* *alone*;
* *beside CNN*: a second process trains a small torch CNN in a loop (torch's
  default threads), started 3 s before the first timed fit;
* *beside matmul*: a second process multiplies 400 × 400 NumPy matrices in a
  loop (the BLAS's default threads).

It reports the best wall time and its process CPU time, and the ratio to
the time alone. Run::

    python benchmarks/bench_beside.py               # n = 1e6, 3 repeats
    python benchmarks/bench_beside.py --n 3e5 --repeats 2
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import argparse
import os
import subprocess
import sys
import time

import numpy as np

NEIGHBOURS = {
    "CNN": (
        "import torch\n"
        "net = torch.nn.Sequential(torch.nn.Conv2d(1, 16, 3), torch.nn.ReLU(),"
        " torch.nn.Conv2d(16, 16, 3), torch.nn.ReLU(), torch.nn.Flatten(),"
        " torch.nn.Linear(16 * 24 * 24, 10))\n"
        "opt = torch.optim.SGD(net.parameters(), lr=1e-3)\n"
        "x = torch.randn(64, 1, 28, 28); y = torch.randint(0, 10, (64,))\n"
        "while True:\n"
        "    opt.zero_grad(); torch.nn.functional.cross_entropy(net(x), y).backward(); opt.step()\n"
    ),
    "matmul": (
        "import numpy as np\n"
        "a = np.random.default_rng(0).random((400, 400))\n"
        "while True:\n"
        "    a = a @ a; a /= np.abs(a).max()\n"
    ),
}


def time_fits(n, n_jobs, repeats):
    from skdpgen import HermiteFeatures, KernelMeanEmbedding

    X = np.random.default_rng(0).uniform(-1, 1, size=(n, 14))
    est = KernelMeanEmbedding(features=HermiteFeatures(order=100, kernel="sum"), n_jobs=n_jobs)
    est.fit(X[:1000])  # warm-up (imports, thread pools)
    best = None
    for _ in range(repeats):
        cpu0, t0 = time.process_time(), time.perf_counter()
        est.fit(X)
        wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
        if best is None or wall < best[0]:
            best = (wall, cpu)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=float, default=1e6)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n-jobs", default="-1,1")
    args = parser.parse_args()
    n = int(args.n)
    import platform

    print(f"machine: {platform.platform()}; nproc={os.cpu_count()}; "
          f"load {os.getloadavg()[0]:.2f} at start; n={n:,} x 14, order 100, best of {args.repeats}")
    print(f"{'n_jobs':>6}  {'neighbour':<8}  {'best s':>7}  {'cpu s':>6}  {'x alone':>7}  load")
    for n_jobs in [int(v) for v in args.n_jobs.split(",")]:
        alone = None
        for name in [None, *NEIGHBOURS]:
            proc = None
            if name is not None:
                proc = subprocess.Popen([sys.executable, "-c", NEIGHBOURS[name]])
                time.sleep(3)
            try:
                wall, cpu = time_fits(n, n_jobs, args.repeats)
            finally:
                if proc is not None:
                    proc.kill()
                    proc.wait()
            alone = wall if name is None else alone
            print(f"{n_jobs:>6}  {name or 'alone':<8}  {wall:7.3f}  {cpu:6.3f}  "
                  f"{wall / alone:7.2f}  {os.getloadavg()[0]:.2f}", flush=True)
    print(f"load {os.getloadavg()[0]:.2f} at end")


if __name__ == "__main__":
    main()
