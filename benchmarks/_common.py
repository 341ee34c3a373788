"""Helpers shared by the benchmark scripts (not part of the package).

The scripts run as ``python benchmarks/bench_*.py``, so this directory is on
``sys.path`` and they ``import _common``.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import importlib.metadata
import multiprocessing
import os
import platform
import time
import traceback


def cpu_model():
    """The CPU's model name (from /proc/cpuinfo where there is one)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def version(dist):
    """Installed version of a distribution, or "not installed"."""
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def machine_line():
    return (f"{platform.platform()}; CPU: {cpu_model()}; "
            f"nproc={len(os.sched_getaffinity(0))} (os.cpu_count()={os.cpu_count()})")


def proc_status_kib(key):
    """A field of /proc/self/status in KiB (e.g. "VmRSS", "VmHWM")."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    raise KeyError(key)


def reset_peak_rss():
    """Reset VmHWM (= ru_maxrss) to the current RSS; False if not allowed."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        return False
    return True


def _child(queue, target, kwargs):
    try:
        queue.put(("ok", target(**kwargs)))
    except BaseException:  # report everything, including MemoryError
        queue.put(("error", traceback.format_exc()))


def run_isolated(target, start_method="spawn", **kwargs):
    """Run ``target(**kwargs)`` in a fresh process and return its result."""
    ctx = multiprocessing.get_context(start_method)
    queue = ctx.Queue()
    proc = ctx.Process(target=_child, args=(queue, target, kwargs))
    proc.start()
    status, payload = queue.get()
    proc.join()
    if status != "ok":
        raise RuntimeError(f"benchmark child failed:\n{payload}")
    return payload


def mib(x, digits=0):
    return f"{x / 2**20:.{digits}f}"


class Table:
    """Prints its header at once and each row as soon as it is measured."""

    def __init__(self, title, columns, widths=None):
        widths = widths or [0] * len(columns)
        self.widths = [max(len(c), w) for c, w in zip(columns, widths)]
        print()
        print(title)
        self._line(columns)
        self._line(["-" * w for w in self.widths])

    def _line(self, cells):
        print("  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w)
                        for i, (c, w) in enumerate(zip(cells, self.widths))).rstrip(),
              flush=True)

    def row(self, cells):
        self._line(cells)


def timed_releases():
    """Record the time a synthesizer spends on its real-data releases.

    Patches ``ReleaseContext.release_embeddings`` (every embedding release:
    ``release_embedding`` calls it)
    and the class-proportion release (in this process only) and returns a
    dict whose ``"seconds"`` grows by the time spent in them.
    """
    from skdpgen.synthesizers import ReleaseContext, _kme

    spent = {"seconds": 0.0}

    def timed(fn):
        def wrapper(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent["seconds"] += time.perf_counter() - t0

        return wrapper

    ReleaseContext.release_embeddings = timed(ReleaseContext.release_embeddings)
    _kme._release_proportions = timed(_kme._release_proportions)
    return spent
