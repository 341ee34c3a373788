"""Peak memory of ``skdpgen synthesize``'s fit against its writing of the output (issue 66).

Writes UCI Adult resampled to ``--rows`` rows (10⁶ by default, with
replacement, seed 0) to a CSV file, then runs the command as a user would
(``skdpgen synthesize DATA --epsilon 1 --random-state 0 --out OUT
--allow-guesses``, no schema, the default method) in this process: the peak
resident memory (VmHWM) is read when the fit ends, then reset
(``/proc/self/clear_refs``) and read again when the command ends, so the
second peak is the writing's alone (the fitted model included, which it
holds). ``--n-samples`` writes that many rows instead of as many as the
input. ``--package DIR`` runs the skdpgen found in ``DIR`` (an older commit's
``git archive``, for a before/after). Prints the machine, the load average,
the commit and the table; asserts nothing.

    python benchmarks/bench_output_memory.py [--rows 1e6] [--n-samples N] [--package DIR]
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e6, help="rows of the private table")
    parser.add_argument("--n-samples", type=float, default=None,
                        help="rows written (default: as many as the input)")
    parser.add_argument("--package", default=None,
                        help="a folder holding the skdpgen to run (default: this checkout)")
    parser.add_argument("--data", default=None, help="reuse this CSV (written if absent)")
    args = parser.parse_args()
    here = Path(__file__).resolve().parent
    sys.path.insert(0, str(Path(args.package).resolve() if args.package else here.parent))
    sys.path.insert(1, str(here))  # _common
    from _common import machine_line, mib, proc_status_kib, reset_peak_rss

    import skdpgen
    import skdpgen.cli as cli
    from skdpgen.datasets import load_adult

    rows = int(args.rows)
    folder = Path(tempfile.mkdtemp(prefix="bench_output_"))
    data = Path(args.data) if args.data else folder / f"adult_{rows}.csv"
    if not data.exists():
        import numpy as np

        frame = load_adult().frame
        frame.iloc[np.random.default_rng(0).integers(0, len(frame), rows)].to_csv(
            data, index=False)
    commit = subprocess.run(["git", "-C", str(here), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    print(machine_line())
    print(f"load average: {os.getloadavg()}; commit {commit}; skdpgen from {skdpgen.__file__}")

    peaks, real_fit = {}, cli._fit

    def fit_then_reset(*a, **k):  # the fit's peak, then the writing's from here
        out = real_fit(*a, **k)
        peaks["fit"], peaks["after fit"] = proc_status_kib("VmHWM"), proc_status_kib("VmRSS")
        peaks["fit end"] = time.perf_counter()
        if not reset_peak_rss():
            sys.exit("cannot reset the peak memory (/proc/self/clear_refs)")
        return out

    cli._fit = fit_then_reset
    argv = ["synthesize", str(data), "--epsilon", "1", "--random-state", "0", "--allow-guesses",
            "--quiet", "--out", str(folder / "synthetic.csv")]
    if args.n_samples is not None:
        argv += ["--n-samples", str(int(args.n_samples))]
    start = time.perf_counter()
    status = cli.main(argv)
    end = time.perf_counter()
    written = sum(1 for _ in open(folder / "synthetic.csv")) - 1
    write_peak = proc_status_kib("VmHWM")
    print(f"\nexit status {status}; {rows:,} rows read, {written:,} written")
    print("| phase | peak RSS MiB | wall s |\n|---|---|---|")
    print(f"| fit | {mib(peaks['fit'] * 1024)} | {peaks['fit end'] - start:.0f} |")
    print(f"| writing (from {mib(peaks['after fit'] * 1024)} MiB after the fit) | "
          f"{mib(write_peak * 1024)} | {end - peaks['fit end']:.0f} |")
    print(f"writing / fit: {write_peak / peaks['fit']:.2f}")
    for path in folder.iterdir():  # the outputs, and the table unless it was --data
        if path != data:
            path.unlink()
    if not any(folder.iterdir()):
        folder.rmdir()


if __name__ == "__main__":
    main()
