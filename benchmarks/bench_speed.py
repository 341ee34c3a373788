"""Speed benchmark of issue 14: the image fit, the Adult fit, the order-100 embedding.

A script, not a test: it prints a table and never asserts. From the
repository root::

    python benchmarks/bench_speed.py                    # all parts, CPU
    python benchmarks/bench_speed.py --parts adult,embedding --repeats 3
    python benchmarks/bench_speed.py --parts image --device cuda
    python benchmarks/bench_speed.py --quick            # small sizes, a smoke run
    python benchmarks/bench_speed.py --help

Every case runs in a fresh child process (``spawn``), which builds its data,
then times the fit (best of ``--repeats``) and reports wall time, process CPU
time (all threads: CPU time near 2× wall time on 2 cores means both cores
worked; well below wall time means the process waited, e.g. on other load),
the time spent in the private data pass (the releases), and the 1-minute
load average before and after.

Cases (the rows of issue 14's target table):

* **image**: ``DPHPSynthesizer(image_shape=(28, 28), bounds=(0, 1),
  classes=range(10), random_state=0)`` with its defaults otherwise, fitted at
  ε = 1 on a 60,000 × 784 table of 10 classes. No image data set ships
  offline at that size, so the table is made from scikit-learn's bundled
  digits (8 × 8): each row is a digit upsampled to 28 × 28 (bilinear,
  ``scipy.ndimage.zoom``), shifted by up to 2 pixels, with Gaussian noise
  (σ = 0.05) added and clipped to [0, 1], seeded. The fit's cost depends on
  the shape, not the pixels.
* **adult**: ``DPHPSynthesizer(schema=<Adult's public schema>,
  classes=<its labels>, random_state=0)`` at ε = 1 on Adult's train split
  (32,561 rows); its utility is measured by ``bench_adult.py``.
* **embedding**: ``KernelMeanEmbedding(features=HermiteFeatures(order=100),
  n_jobs=-1)`` (non-private) of 10⁶ × 14 rows uniform on [-1, 1].
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import machine_line, run_isolated, timed_releases, version  # noqa: E402

IMAGE_ROWS = 60_000
EMBED_ROWS = 1_000_000


def image_table(n_rows, seed=0):
    """(X, y): n_rows × 784 pixels in [0, 1] and digit labels (see the docstring)."""
    from scipy.ndimage import shift, zoom
    from sklearn.datasets import load_digits

    rng = np.random.default_rng(seed)
    digits = load_digits()
    base = np.stack([zoom(im / 16.0, 3.5, order=1) for im in digits.images])  # 28 × 28
    pick = rng.integers(len(base), size=n_rows)
    X = np.empty((n_rows, 784))
    offsets = rng.integers(-2, 3, size=(n_rows, 2))
    for i, (j, (dy, dx)) in enumerate(zip(pick, offsets)):
        X[i] = shift(base[j], (dy, dx), order=0).ravel()
    X += rng.normal(0, 0.05, X.shape)
    return np.clip(X, 0.0, 1.0), digits.target[pick]


def _timed(fit, repeats):
    """Best of ``repeats`` calls of ``fit()``: (wall, cpu, extra of that call)."""
    best = None
    for _ in range(repeats):
        c0, t0 = time.process_time(), time.perf_counter()
        extra = fit()
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        if best is None or wall < best[0]:
            best = (wall, cpu, extra)
    return best


def _case(part, device, repeats, quick):
    import torch

    from skdpgen import DPHPSynthesizer, HermiteFeatures, KernelMeanEmbedding

    release = timed_releases()
    load0 = os.getloadavg()[0]
    if part == "embedding":
        n = 20_000 if quick else EMBED_ROWS
        X = np.random.default_rng(0).uniform(-1, 1, (n, 14))
        KernelMeanEmbedding(features=HermiteFeatures(order=100), n_jobs=-1).fit(X[:1000])
        wall, cpu, _ = _timed(lambda: KernelMeanEmbedding(
            features=HermiteFeatures(order=100), n_jobs=-1).fit(X), repeats)
        settings = f"{n:,} x 14, order 100, n_jobs=-1"
        rel = float("nan")
    else:
        if part == "image":
            n = 2_000 if quick else IMAGE_ROWS
            X, y = image_table(n)
            params = dict(image_shape=(28, 28), bounds=(0.0, 1.0), classes=list(range(10)))
            settings = f"{n:,} x 784, 10 classes"
        else:
            from skdpgen.datasets import load_adult

            b = load_adult(split="train")
            X, y = b.data, b.target
            params = dict(schema=b.schema, classes=list(b.target_schema["categories"]))
            settings = f"{len(X):,} rows, public schema"
        if quick:
            params.update(epochs=2, steps_per_epoch=10)

        def fit():
            release["seconds"] = 0.0
            DPHPSynthesizer(random_state=0, device=device, **params).fit(X, y, epsilon=1.0)
            return release["seconds"]

        wall, cpu, rel = _timed(fit, repeats)
        settings += ", eps=1" + (", 2x10 steps" if quick else "")
    return dict(part=part, settings=settings, wall=wall, cpu=cpu, release=rel,
                threads=torch.get_num_threads(), load=(load0, os.getloadavg()[0]))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--parts", default="image,adult,embedding")
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    import skdpgen

    print(f"machine:  {machine_line()}")
    print(f"versions: skdpgen {skdpgen.__version__} ({os.path.dirname(skdpgen.__file__)}), "
          f"torch {version('torch')}, numpy {version('numpy')}; device {args.device}; "
          f"best of {args.repeats}")
    print(f"load avg at start: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    t_all = time.perf_counter()
    head = f"{'case':<10} {'settings':<46} {'wall s':>8} {'cpu s':>8} {'release s':>9} " \
           f"{'threads':>7} {'load':>11}"
    print()
    print(head)
    print("-" * len(head))
    for part in args.parts.split(","):
        r = run_isolated(_case, part=part, device=args.device, repeats=args.repeats,
                         quick=args.quick)
        print(f"{r['part']:<10} {r['settings']:<46} {r['wall']:>8.2f} {r['cpu']:>8.2f} "
              f"{r['release']:>9.2f} {r['threads']:>7} "
              f"{r['load'][0]:>5.2f}>{r['load'][1]:<5.2f}", flush=True)
    print(f"\nload avg at end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"total {time.perf_counter() - t_all:.0f} s")


if __name__ == "__main__":
    main()
