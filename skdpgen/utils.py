"""Local random generators derived from a scikit-learn ``random_state``.

These generators draw the *public* random choices of a fit (frequencies,
points, column subsets, network initialization, batches, samples). The
privacy noise never comes from here: :mod:`skdpgen.privacy` draws it from
fresh operating-system entropy at every release, whatever ``random_state``.

Nothing here seeds or draws from global generators: ``random_state=None``
takes fresh entropy from the operating system (not from NumPy's global
``RandomState``). NumPy's and PyTorch's generators are not cryptographically
secure; see the user guide's section on the threat model.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import numpy as np
from sklearn.utils import check_random_state

__all__ = ["check_generator", "torch_generator"]


def _seed_words(random_state, n_words=4):
    if random_state is None:  # OS entropy
        return np.random.SeedSequence().generate_state(n_words).astype(np.uint64)
    if isinstance(random_state, np.random.Generator):
        return random_state.integers(0, 2**32, size=n_words, dtype=np.uint64)
    rs = check_random_state(random_state)
    return rs.randint(0, 2**32, size=n_words, dtype=np.uint64)


def check_generator(random_state):
    """Turn ``random_state`` into a local :class:`numpy.random.Generator`.

    Parameters
    ----------
    random_state : None, int, RandomState or Generator
        ``None`` gives fresh randomness on each call; an int gives the same
        stream each time; a ``RandomState`` or ``Generator`` is advanced.

    Returns
    -------
    rng : numpy.random.Generator

    Examples
    --------
    >>> from skdpgen.utils import check_generator
    >>> bool(check_generator(0).random() == check_generator(0).random())
    True
    """
    if isinstance(random_state, np.random.Generator):
        return random_state
    return np.random.default_rng(_seed_words(random_state))


def torch_generator(random_state, device="cpu"):
    """A local :class:`torch.Generator` on ``device`` seeded from ``random_state``.

    Parameters
    ----------
    random_state : None, int, RandomState or Generator
    device : str or torch.device, default="cpu"

    Returns
    -------
    generator : torch.Generator

    Examples
    --------
    >>> import torch
    >>> from skdpgen.utils import torch_generator
    >>> a = torch.rand(2, generator=torch_generator(0))
    >>> bool(torch.equal(a, torch.rand(2, generator=torch_generator(0))))
    True
    """
    import torch

    seed = int(_seed_words(random_state, 2) @ np.array([2**32, 1], dtype=np.uint64))
    gen = torch.Generator(device=device)
    gen.manual_seed(seed % (2**63))
    return gen
