"""Where torch work runs: device resolution and CPU thread use."""

import contextlib

import torch
from threadpoolctl import threadpool_limits


@contextlib.contextmanager
def cpu_threads(n):
    """Run with ``n`` torch intra-op threads (unchanged if None), then restore.

    The generators are small: on CPU one thread trains them as fast as two on
    an idle machine, and many times faster when other processes compete for
    the cores (spinning worker threads then stall each step).
    """
    before = torch.get_num_threads()
    if n is not None:
        torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


@contextlib.contextmanager
def worker_threads(n_workers):
    """While ``n_workers`` threads of ours share the cores: one thread each for
    BLAS, OpenMP and torch inside them (all restored afterwards).

    Their pools would otherwise start a thread per core for every worker, and
    a pool's barrier waits for its slowest thread: beside another busy
    process, one descheduled thread stalls every small product for a
    scheduler time slice. With one worker (``n_workers <= 1``) nothing changes.
    """
    if n_workers <= 1:
        yield
        return
    with threadpool_limits(limits=1), cpu_threads(1):
        yield


def resolve_device(device):
    """``"auto"`` → ``"cuda"`` when available, else ``"cpu"``."""
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise ValueError("device='cuda' was requested but CUDA is not available.")
    return device
