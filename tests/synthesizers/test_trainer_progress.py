"""The training progress bar when the stop rule ends a fit early."""

from types import SimpleNamespace

import torch

from skdpgen.synthesizers import GeneratorTrainer


class _StopsAt:
    """A mechanism whose loss is a generated batch's mean square, converged at ``stop``."""

    def __init__(self, stop):
        self.stop, self.calls = stop, 0

    def release(self, epoch, context):
        pass

    def initialize(self, network):
        pass

    def loss(self, rows, labels):
        return (rows ** 2).mean()

    def converged(self, loss):
        self.calls += 1
        return self.calls == self.stop


class _Network(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(3, 2)

    def forward(self, z, labels):
        return self.linear(z)


def _train(stop, capsys):
    trainer = GeneratorTrainer(epochs=2, steps_per_epoch=10, batch_size=4, learning_rate=0.01,
                               noise_dim=3, device="cpu", verbose=1, desc="DP-HP")
    history = trainer.train(_Network(), _StopsAt(stop),
                            SimpleNamespace(n_classes=0), torch.Generator().manual_seed(0))
    return history, capsys.readouterr().err


def test_an_early_stop_is_said_on_a_full_bar(capsys):
    """The bar stopped at '11% 112/1000' with no word: it read as a crash."""
    history, err = _train(7, capsys)
    assert len(history) == 7
    last = err.replace("\r", "\n").strip().splitlines()[-1]
    assert last.startswith("DP-HP: 100%") and "7/7" in last
    assert "converged at step 7 of 20" in last
    history, err = _train(None, capsys)  # no early stop: no note
    assert len(history) == 20 and "converged" not in err and "20/20" in err


class _SlowReleases(_StopsAt):
    """Releases that take long (a pass over rows one record makes slow) each epoch."""

    def release(self, epoch, context):
        import time

        time.sleep(0.05)


def test_the_bar_shows_counts_not_a_rate_or_a_time(capsys):
    """A product kernel redrawn each epoch makes a release, a pass over the rows,
    inside the loop: a rate or a time on the bar would show how long a pass took,
    which one record's size can set (issue 66). The bar shows its counts only."""
    import re

    trainer = GeneratorTrainer(epochs=4, steps_per_epoch=3, batch_size=4, learning_rate=0.01,
                               noise_dim=3, device="cpu", verbose=1, desc="DP-HP")
    trainer.train(_Network(), _SlowReleases(None), SimpleNamespace(n_classes=0),
                  torch.Generator().manual_seed(0))
    err = capsys.readouterr().err
    assert "12/12" in err
    assert not re.search(r"/s\b|s/|\d:\d\d|\?", err), err
