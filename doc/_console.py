"""The command-line runs that the Getting started page shows, made at each build.

The page's console blocks are these files (``doc/_console/``, not kept in
git): the commands run on the bundled Adult data at build time, so every
number the page quotes is what the commands give today (the noise is fresh
at each build; the shares, noise levels and thresholds are not). The number
of synthesizer releases that the page's text quotes is counted from the
printed report too (``counts.txt``, a substitution ``|n_releases|``). Each
command is logged before it runs, and its time after: the build says what
it is doing.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sphinx.util import logging

logger = logging.getLogger(__name__)

OUT = Path(__file__).resolve().parent / "_console"


def _run(args, cwd):
    """Run ``skdpgen ARGS`` in ``cwd``; (stdout, stderr, seconds)."""
    env = {**os.environ, "COLUMNS": "100", "PYTHONWARNINGS": "ignore"}
    logger.info("Getting started: running skdpgen %s ...", " ".join(args))
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "skdpgen", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"skdpgen {' '.join(args)} exited with {proc.returncode}:\n"
                           f"{proc.stderr[-2000:]}")
    logger.info("Getting started: skdpgen %s done in %.0f s", args[0], seconds)
    return proc.stdout, proc.stderr, seconds


def _machine():
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"{platform.machine()}, {cores} CPU cores"


NUMBERS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
           "ten", "eleven", "twelve")


def count_releases(report):
    """The synthesizer's releases in a printed privacy report (``schema:`` lines aside).

    The report's release lines lie between its header (``release ... share``)
    and its ``total:`` line; those of the private schema estimate start with
    ``schema:``.
    """
    lines = [line.strip() for line in report.splitlines()]
    try:
        start = next(i for i, line in enumerate(lines) if line.startswith("release "))
        stop = next(i for i, line in enumerate(lines) if line.startswith("total:"))
    except StopIteration:
        raise ValueError("no privacy report (a 'release' header and a 'total:' line) "
                         "in the output") from None
    releases = [line for line in lines[start + 1:stop] if not line.startswith("schema:")]
    if not releases:
        raise ValueError("the privacy report lists no synthesizer release")
    return len(releases)


def generate(app=None):
    """Write the page's console files (called by ``conf.py`` when the build starts)."""
    from skdpgen.datasets import load_adult

    OUT.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        load_adult().frame.to_csv(Path(tmp, "adult.csv"), index=False)
        load_adult(split="test").frame.to_csv(Path(tmp, "adult_test.csv"), index=False)
        out, err, seconds = _run(["synthesize", "adult.csv", "--target", "income",
                                  "--epsilon", "1", "--out", "synth.csv", "--quiet"], tmp)
        (OUT / "synthesize.txt").write_text(out)
        n = count_releases(out)
        (OUT / "counts.txt").write_text(
            f".. |n_releases| replace:: {NUMBERS[n] if n < len(NUMBERS) else n}\n")
        warning = [line for line in err.splitlines() if not line.startswith("Marginal ")]
        (OUT / "synthesize_warning.txt").write_text("\n".join(warning) + "\n")
        (OUT / "synthesize_time.txt").write_text(
            f"It took {seconds:.0f} seconds when this page was built ({_machine()}).\n")
        out, _, seconds = _run(["evaluate", "adult_test.csv", "synth.csv", "--target",
                                "income", "--quiet"], tmp)
        (OUT / "evaluate.txt").write_text(out)
        (OUT / "evaluate_time.txt").write_text(
            f"It took {seconds:.0f} seconds when this page was built ({_machine()}).\n")


if __name__ == "__main__":
    generate()
