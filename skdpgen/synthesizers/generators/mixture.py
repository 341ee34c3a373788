"""The mixture generator: a learned batch of product distributions over one-hot columns."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import numpy as np
import torch
from torch import nn

__all__ = ["MixtureGenerator"]


class MixtureGenerator(nn.Module):
    """A mixture of product distributions over one-hot columns: a learned batch.

    ``n_rows`` soft rows, each a product of one categorical distribution per
    column (softmax of its logits), row ``i`` of class ``i mod n_classes``.
    The synthetic distribution of class ``c`` is the uniform mixture of its
    rows: its one-way and two-way marginals are averages of the rows'
    probabilities and of their outer products, computed exactly from the
    parameters, so a mechanism fits them without sampling noise (the
    relaxed-projection idea of Aydore et al. 2021, RAP, and a latent class
    model). In training (``train()``) the network returns all its rows, in
    the order of the trainer's class-balanced batch (``arange(n_rows) %
    n_classes``); the trainer's batch size must be ``n_rows``. In
    evaluation it returns, for each requested row, one of the rows of its
    class, chosen by the first latent coordinate (public randomness).

    **Joined columns.** A product of one distribution per column cannot
    hold several sharp relations at once (a column and its square, a code
    and its label): each needs components of its own, and their number
    multiplies. :meth:`join` gives the columns of a group one joint
    distribution per row over all their cells, so that a row holds the
    relation itself; the group's one-way marginals are the joint's sums
    (returned in the rows as before) and its pairs' joint histograms are
    :meth:`pair_tables`. In evaluation a group's cells are drawn jointly,
    from latent coordinate ``1 + g`` for group ``g`` (one-hot in the
    returned rows): a sampler needs ``1 + len(groups)`` latent coordinates.

    Parameters
    ----------
    n_rows : int
        The rows of the mixture (the synthesizer's ``batch_size``).
    n_classes : int
        0 for an unconditional generator.
    category_sizes : sequence of int
        The one-hot blocks; numeric columns are not supported (encode them
        as bins).

    Attributes
    ----------
    groups : list of tuple of int
        The joined blocks, each a sorted tuple of block indices (each block
        in at most one group); empty until :meth:`join`.

    Examples
    --------
    >>> import torch
    >>> from skdpgen.synthesizers import MixtureGenerator
    >>> net = MixtureGenerator(6, 2, [3, 2])
    >>> net(torch.zeros(6, 1), torch.arange(6) % 2).shape
    torch.Size([6, 5])
    >>> net.join([(0, 1)])
    True
    >>> net.pair_table(0, 1).shape  # each row's joint of blocks 0 and 1
    torch.Size([6, 3, 2])
    """

    def __init__(self, n_rows, n_classes, category_sizes):
        super().__init__()
        self.n_rows = int(n_rows)
        self.n_classes = n_classes
        self.category_sizes = list(category_sizes)
        self.logits = nn.Parameter(torch.zeros(self.n_rows, sum(self.category_sizes)))
        self.joints = nn.ParameterList()
        self.groups = []
        self.register_buffer("support", None)

    def reset_parameters(self, generator):
        """Small random logits from a local ``torch.Generator`` (rows start near uniform)."""
        with torch.no_grad():
            self.logits.copy_(0.1 * torch.randn(self.logits.shape, generator=generator))

    def warm_start(self, class_blocks):
        """Start every row of class ``c`` at the blocks' distributions of class ``c``.

        Adds ``log p`` to the logits of the rows of class ``c`` (rows ``c``,
        ``c + k``, ... for ``k`` classes), keeping their small random part,
        so that the mixture starts at the product of the given distributions
        (the independence model of each class).

        Parameters
        ----------
        class_blocks : sequence of sequence of ndarray
            Per class (one for unlabeled rows), each block's probabilities
            (positive).

        Examples
        --------
        >>> import numpy as np, torch
        >>> from skdpgen.synthesizers import MixtureGenerator
        >>> net = MixtureGenerator(4, 0, [2])
        >>> net.warm_start([[np.array([0.9, 0.1])]])
        >>> net(torch.zeros(4, 1), None).mean(0).round(decimals=1)
        tensor([0.9000, 0.1000], grad_fn=<RoundBackward1>)
        """
        k = len(class_blocks)
        with torch.no_grad():
            for c, blocks in enumerate(class_blocks):
                logits = np.concatenate([np.log(b / b.sum()) for b in blocks])
                self.logits[c::k] += torch.as_tensor(logits, dtype=self.logits.dtype,
                                                     device=self.logits.device)

    def restrict(self, support):
        """Give no probability to the cells outside ``support``, in every row.

        Their logits are left out of every softmax (and every joint's): they
        take no gradient and are drawn never. Other cells are unchanged.

        Parameters
        ----------
        support : array-like of bool of shape (sum(category_sizes),)
            True at the cells that may hold probability; every block keeps
            at least one.

        Examples
        --------
        >>> import numpy as np, torch
        >>> from skdpgen.synthesizers import MixtureGenerator
        >>> net = MixtureGenerator(2, 0, [3])
        >>> net.restrict(np.array([True, True, False]))
        >>> net(torch.zeros(2, 1), None)[:, 2].tolist()
        [0.0, 0.0]
        """
        support = torch.as_tensor(np.asarray(support, dtype=bool), device=self.logits.device)
        if support.shape != (sum(self.category_sizes),) or not all(
                b.any() for b in torch.split(support, self.category_sizes)):
            raise ValueError("support must hold one entry per cell and at least one cell "
                             "of every block.")
        self.support = support

    def _masked(self, logits, blocks=None):
        """``logits`` (of the blocks, or of a joint over ``blocks``) with the cells
        outside the support at -inf."""
        support = getattr(self, "support", None)  # None: unrestricted (and older pickles)
        if support is None:
            return logits
        if blocks is None:
            return logits.masked_fill(~support, float("-inf"))
        starts, shut = self._starts(), None
        for a in blocks:
            off = ~support[starts[a]:starts[a + 1]]
            off = _placed(off[None, :], (a,), blocks)
            shut = off if shut is None else shut | off
        return logits.masked_fill(shut.reshape(1, -1), float("-inf"))

    def train_joints_only(self):
        """From now on only the joined groups' joints train: the blocks outside
        them keep their distributions (their logits no longer take gradients)."""
        self.logits.requires_grad_(False)

    def _starts(self):
        starts = [0]
        for size in self.category_sizes:
            starts.append(starts[-1] + size)
        return starts

    def _probabilities(self, index=None):
        """Every block's probabilities (rows ``index``, or all) and each group's joint."""
        logits = self._masked(self.logits if index is None else self.logits[index])
        blocks = [torch.softmax(b, dim=1)
                  for b in torch.split(logits, self.category_sizes, dim=1)]
        tables = []
        for group, joint in zip(self.groups, self.joints):
            joint = joint if index is None else joint[index]
            shape = tuple(self.category_sizes[a] for a in group)
            table = torch.softmax(self._masked(joint, group), dim=1).reshape((-1,) + shape)
            tables.append(table)
            for pos, a in enumerate(group):  # the group's one-way marginals
                blocks[a] = table.sum(dim=tuple(d + 1 for d in range(len(group)) if d != pos))
        return torch.cat(blocks, dim=1), tables

    def join(self, groups):
        """Give the blocks of each group one joint distribution per row.

        The mixture's distribution is unchanged: a new group's joint starts
        at the product of its blocks' current distributions (of a group it
        contains, that group's joint). Groups grow, never split: a new group
        contains every group it meets. Groups already joined and not within
        ``groups`` are kept.

        Parameters
        ----------
        groups : sequence of sequence of int
            Block indices; each block in at most one group.

        Returns
        -------
        changed : bool
            Whether a group was added or grown (the parameters are new
            then: an optimizer must be built again).
        """
        new = [tuple(sorted(int(a) for a in g)) for g in groups if len(g) > 1]
        for g in self.groups:
            meets = [h for h in new if set(g) & set(h)]
            if any(not set(g) <= set(h) for h in meets):
                raise ValueError(f"group {g} would be split by {new}.")
        kept = [g for g in self.groups if not any(set(g) <= set(h) for h in new)]
        added = [g for g in new if g not in self.groups]
        if not added:
            return False
        seen = [a for g in kept + added for a in g]
        if len(seen) != len(set(seen)):
            raise ValueError(f"a block is in two groups: {kept + added}.")
        starts = self._starts()
        with torch.no_grad():
            probs, tables = self._probabilities()
            old = dict(zip(self.groups, tables))
            joints = []
            for g in added:
                log = torch.zeros((self.n_rows,) + (1,) * len(g), dtype=probs.dtype,
                                  device=probs.device)
                inside = set()
                for h, table in old.items():  # the groups it contains, as they are
                    if set(h) <= set(g):
                        log = log + _placed(torch.log(table.clamp_min(1e-12)), h, g)
                        inside |= set(h)
                for a in g:
                    if a not in inside:
                        p = probs[:, starts[a]:starts[a + 1]].clamp_min(1e-12)
                        log = log + _placed(torch.log(p), (a,), g)
                joints.append(nn.Parameter(log.reshape(self.n_rows, -1).contiguous()))
            kept_joints = [j for g, j in zip(self.groups, self.joints) if g in kept]
        self.groups = kept + added
        self.joints = nn.ParameterList(kept_joints + joints)
        return True

    def pair_tables(self):
        """Each row's joint distribution of every two blocks of one group.

        Returns
        -------
        tables : dict
            ``(a, b) -> tensor of shape (n_rows, size_a, size_b)`` for every
            two blocks ``a < b`` of a group, from the current parameters
            (differentiable).
        """
        out = {}
        for group, table in zip(self.groups, self._probabilities()[1]):
            for i, a in enumerate(group):
                for j in range(i + 1, len(group)):
                    others = tuple(d + 1 for d in range(len(group)) if d not in (i, j))
                    out[a, group[j]] = table.sum(dim=others) if others else table
        return out

    def pair_table(self, a, b):
        """Each row's joint distribution of blocks ``a`` and ``b`` of one group: a
        tensor of shape ``(n_rows, size_a, size_b)`` (:meth:`pair_tables`)."""
        tables = self.pair_tables()
        if (a, b) in tables:
            return tables[a, b]
        if (b, a) in tables:
            return tables[b, a].transpose(1, 2)
        raise ValueError(f"blocks {a} and {b} are not joined.")

    def forward(self, z, labels=None):
        if self.training:
            if z.shape[0] != self.n_rows:
                raise ValueError(f"A mixture of {self.n_rows} rows trains on batches of "
                                 f"{self.n_rows} rows, got {z.shape[0]}.")
            return self._probabilities()[0]
        k = max(self.n_classes, 1)
        cls = (torch.zeros(z.shape[0], dtype=torch.long) if labels is None or not self.n_classes
               else labels.long())
        count = (self.n_rows - cls + k - 1) // k  # rows of class c: c, c + k, c + 2k, ...
        u = 0.5 * (1.0 + torch.erf(z[:, 0].double() / 2.0**0.5))  # uniform on (0, 1)
        pick = torch.minimum((u * count).long(), count - 1)
        probs, tables = self._probabilities(pick * k + cls)
        if not self.groups:
            return probs
        if z.shape[1] < 1 + len(self.groups):
            raise ValueError(f"Sampling a mixture with {len(self.groups)} joined groups needs "
                             f"{1 + len(self.groups)} latent coordinates, got {z.shape[1]}.")
        probs, starts, rows = probs.clone(), self._starts(), torch.arange(z.shape[0])
        for g, (group, table) in enumerate(zip(self.groups, tables)):
            flat = table.reshape(z.shape[0], -1).double()
            u = 0.5 * (1.0 + torch.erf(z[:, 1 + g].double() / 2.0**0.5))
            cell = torch.minimum((torch.cumsum(flat, dim=1) < u[:, None]).sum(1),
                                 torch.tensor(flat.shape[1] - 1))
            for a in reversed(group):  # the cell's index in each block, last block fastest
                size = self.category_sizes[a]
                probs[:, starts[a]:starts[a + 1]] = 0.0
                probs[rows, starts[a] + cell % size] = 1.0
                cell = cell // size
        return probs


def _placed(log, have, group):
    """``log`` of shape ``(rows, *sizes of have)`` with its axes where ``group`` has
    ``have``'s blocks, size 1 on the others (for broadcasting)."""
    order = [group.index(a) for a in have]
    perm = sorted(range(len(have)), key=lambda i: order[i])
    shape = [log.shape[0]] + [1] * len(group)
    for axis, size in zip(order, log.shape[1:]):
        shape[1 + axis] = size
    return log.permute([0] + [1 + i for i in perm]).reshape(shape)


