"""Where torch work runs: device resolution and CPU thread use."""

import contextlib

import torch


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


def resolve_device(device):
    """``"auto"`` → ``"cuda"`` when available, else ``"cpu"``."""
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise ValueError("device='cuda' was requested but CUDA is not available.")
    return device
