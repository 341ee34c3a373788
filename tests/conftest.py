"""Shared test fixtures."""

import contextlib
import warnings

import pytest

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
