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


#: Small synthesizers for the command line's tests (``fast_fits``).
FAST_FITS = {
    "DPHPSynthesizer": dict(order=5, epochs=1, steps_per_epoch=5, batch_size=64),
    "DPMERFSynthesizer": dict(n_components=100, epochs=1, steps_per_epoch=5, batch_size=64),
    "MarginalSynthesizer": dict(epochs=1, steps_per_epoch=5, n_components=64),
}


@pytest.fixture
def fast_fits(monkeypatch):
    """In-process ``main`` with small synthesizers; warnings display restored.

    The command builds its estimators from its options (``skdpgen.cli._build``);
    the patch makes those small, and everything else of the command is the
    real one.
    """
    import skdpgen.cli as cli

    build = cli._build

    def small(cls, **options):
        return build(cls, **options).set_params(**FAST_FITS.get(cls.__name__, {}))

    monkeypatch.setattr(cli, "_build", small)
    # main() routes warnings to one-line messages; undo that after the test
    monkeypatch.setattr(warnings, "showwarning", warnings.showwarning)


#: Small fits for the synthesizers not in ``FAST_FITS`` (``fast_python_fits``).
SMALL_FIT = dict(epochs=1, steps_per_epoch=5)


@pytest.fixture
def fast_python_fits(monkeypatch):
    """Every synthesizer fit made in the test is small: the equivalent of
    ``fast_fits`` for Python code (the documentation's blocks).

    ``BaseSynthesizer.fit`` first sets the small parameters of ``FAST_FITS``
    (``SMALL_FIT`` for other synthesizers), then fits as written; estimators
    that a search clones are made small at their own fit.
    """
    from skdpgen.synthesizers._base import BaseSynthesizer

    fit = BaseSynthesizer.fit

    def small_fit(self, *args, **kwargs):
        small = FAST_FITS.get(type(self).__name__, SMALL_FIT)
        params = self.get_params(deep=False)
        self.set_params(**{k: v for k, v in small.items() if k in params})
        return fit(self, *args, **kwargs)

    monkeypatch.setattr(BaseSynthesizer, "fit", small_fit)
