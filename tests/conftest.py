"""Shared test fixtures."""

import contextlib
import warnings

import pytest
import torch

from skdpgen.privacy import PrivacyLeakWarning, reproducible_noise


@contextlib.contextmanager
def _same_noise(seed=0):
    """Fits inside draw the same noise (reproducible_noise), its warnings silenced.

    For tests that compare two code paths on identical releases; reports made
    inside say ``is_private == False``.
    """
    with warnings.catch_warnings(), reproducible_noise(seed):
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        yield


@pytest.fixture
def same_noise():
    """``with same_noise(): ...``: see :func:`_same_noise`."""
    return _same_noise


@pytest.fixture
def one_torch_thread():
    """Run the test with one torch intra-op thread (tiny fits: no pool overhead)."""
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)
