"""The trainer: a generator network fitted to a mechanism's releases."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import torch

from .._device import cpu_threads

__all__ = ["GeneratorTrainer"]


class GeneratorTrainer:
    """Owns the training loop: network, optimizer, device, progress bar, loss history.

    Each epoch starts with the mechanism's releases for that epoch
    (:meth:`~skdpgen.synthesizers.Mechanism.release`), then takes
    ``steps_per_epoch`` Adam steps on the mechanism's loss of a generated
    batch. At a step the mechanism calls converged
    (:meth:`~skdpgen.synthesizers.Mechanism.converged`), the mechanism may
    release its next round, reading the model fitted so far
    (:meth:`~skdpgen.synthesizers.Mechanism.next_round`: release, fit until
    converged, next round; each of the mechanism's
    :attr:`~skdpgen.synthesizers.Mechanism.planned_rounds` ends at the latest
    when it has used its equal part of the steps left); when it has none,
    training stops unless its
    :meth:`~skdpgen.synthesizers.Mechanism.refine` says to go on. The
    optimizer is built again after a round, and when a refinement changed
    the network's parameters. Batches are class-balanced (``arange(batch) % n_classes``), so every
    class is present in every batch. The generator never sees private data:
    only the mechanism's noisy releases enter the loss.

    Parameters
    ----------
    epochs, steps_per_epoch, batch_size : int
    learning_rate : float
    noise_dim : int
        Width of the latent input.
    device : str
        ``"cpu"`` or ``"cuda"`` (resolved).
    verbose : int, default=0
        Show a progress bar when > 0. When the stop rule ends the training
        early, the bar is closed full with the note ``converged at step 112
        of 1000``.
    desc : str, default="training"
        Label of the progress bar.
    """

    def __init__(self, *, epochs, steps_per_epoch, batch_size, learning_rate, noise_dim,
                 device, verbose=0, desc="training"):
        self.epochs = epochs
        self.steps_per_epoch = steps_per_epoch
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.noise_dim = noise_dim
        self.device = device
        self.verbose = verbose
        self.desc = desc

    def _steps(self, total):
        steps = range(total)
        if self.verbose:
            from tqdm.auto import tqdm

            # counts only, no rate or time: a step's time holds the releases made
            # inside the loop (a product kernel redrawn each epoch: a pass over the
            # rows), which one record's size can set
            steps = tqdm(steps, desc=self.desc, unit="step",
                         bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt}{postfix}")
        return steps

    def train(self, network, mechanism, context, generator):
        """Train ``network`` (in place) against ``mechanism``; return the loss history.

        Parameters
        ----------
        network : torch.nn.Module
            On ``device``; called as ``network(z, labels)``.
        mechanism : Mechanism
            Set up; makes its releases through ``context``.
        context : ReleaseContext
        generator : torch.Generator
            On ``device``: the latent noise (public randomness).

        Returns
        -------
        history : ndarray of shape (epochs * steps_per_epoch,)
        """
        n_classes = context.n_classes
        total = self.epochs * self.steps_per_epoch
        labels = (torch.arange(self.batch_size, device=self.device) % n_classes
                  if n_classes else None)
        threads = torch.get_num_threads()  # for the releases: passes over the rows
        # small networks: one CPU thread is as fast idle and far faster under load
        with cpu_threads(1 if self.device == "cpu" else None):
            # fused: one kernel per step for all parameters (the per-tensor loop
            # took ~0.5 ms of a ~9 ms step on Adult); the same update rule
            def optimizer_of(net):
                return torch.optim.Adam(net.parameters(), lr=self.learning_rate, fused=True)

            optimizer = optimizer_of(network)
            history = torch.empty(total, device=self.device)
            network.train()
            # the first releases (passes over the rows) before the progress bar
            # starts, so that its first rate is a training step's
            with cpu_threads(threads):
                mechanism.release(0, context)
            mechanism.initialize(network)  # from the first releases (post-processing)
            # a mechanism in rounds: each round ends when the model has converged, or
            # at the latest when it has used its part of the steps
            planned, rounds = max(int(getattr(mechanism, "planned_rounds", 1)), 1), 1
            round_end = total // planned
            steps = self._steps(total)
            iterator = iter(steps)  # held: a bar's iterator dropped at a break closes it
            for step in iterator:
                if step and step % self.steps_per_epoch == 0:
                    with cpu_threads(threads):
                        mechanism.release(step // self.steps_per_epoch, context)
                z = torch.randn(self.batch_size, self.noise_dim, generator=generator,
                                device=self.device)
                loss = mechanism.loss(network(z, labels), labels)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                history[step] = loss.detach()
                converged = mechanism.converged(history[step])
                if converged or step + 1 == round_end:  # this round is done
                    with cpu_threads(threads):  # a round's releases: passes over the rows
                        released = _optional(mechanism, "next_round", network, context)
                    if released:  # the next round gets its part of the steps left
                        rounds += 1
                        round_end = step + 1 + (total - step - 1) // max(planned - rounds + 1, 1)
                        optimizer = optimizer_of(network)
                        continue
                if converged:
                    before = [id(p) for p in network.parameters()]
                    if _optional(mechanism, "refine", network):  # not done after all
                        if [id(p) for p in network.parameters()] != before:
                            optimizer = optimizer_of(network)
                        continue
                    history = history[:step + 1]
                    _note_early_stop(steps, step + 1, total)
                    break
            getattr(steps, "close", lambda: None)()
        return history.cpu().double().numpy()


def _optional(mechanism, method, *args):
    """A method of the protocol a mechanism may leave out (False: nothing to do)."""
    method = getattr(mechanism, method, None)
    return bool(method is not None and method(*args))


def _note_early_stop(steps, done, total):
    """A progress bar stopped by the stop rule, closed full with the step it stopped at
    (left at ``11% 112/1000`` it read as a crash)."""
    if hasattr(steps, "set_postfix_str"):
        steps.n = steps.total = done
        steps.set_postfix_str(f"converged at step {done} of {total}", refresh=True)
