"""Where torch work runs: device resolution and CPU thread use."""

import contextlib
import functools

import torch
from threadpoolctl import ThreadpoolController


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
    """The thread pools inside a sum over private rows run by ``n_workers`` threads.

    BLAS runs one thread inside each worker: the sums' products are small
    (a chunk's features times its weights) and a pool's barrier waits for
    its slowest thread, so beside another busy process one descheduled BLAS
    thread stalls every product for a scheduler time slice (three times the
    CPU time of the whole sum, measured beside a loaded machine). With
    several workers, OpenMP and torch run one thread each too, so that the
    sum keeps ``n_workers`` threads busy; with one, torch keeps the caller's
    setting (its elementwise cosines use it). Every setting is restored
    afterwards.
    """
    limits = _controller().limit(limits=1, user_api="blas" if n_workers <= 1 else None)
    with limits, (cpu_threads(1) if n_workers > 1 else contextlib.nullcontext()):
        yield


@functools.cache
def _controller():
    """The thread pools loaded in this process (NumPy's BLAS, torch's OpenMP), found once."""
    return ThreadpoolController()


def resolve_device(device):
    """``"auto"`` → ``"cuda"`` when available, else ``"cpu"``."""
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise ValueError("device='cuda' was requested but CUDA is not available.")
    return device
