"""Release tapes: record a fit's noisy releases, and replay them on other rows.

The replay test of the privacy rule. Everything a fit produces must depend on
the private rows only through its noisy releases. So record every release
that a fit on a table ``D`` makes; fit again on a table ``D′`` of the same
public shape (rows, columns, names) but entirely different values, with
every release returning ``D``'s recorded output; every output — the plan,
the schema, the class list, the encoder, the synthetic rows, the report,
the warnings, the exit status — must be identical. Any path from the rows
to an output that goes around the noise fails it, whatever the mechanism;
so does a sequence of releases (their names and shapes) that depends on
the rows.

Nothing released inside a tape is private (its outputs are known to whoever
holds the tape): the accountants created inside mark their releases as
reproducible, like :func:`~skdpgen.privacy.reproducible_noise`'s.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import contextlib
import contextvars

import numpy as np

__all__ = ["ReleaseTape", "ReplayMismatch", "release_tape"]

_TAPE = contextvars.ContextVar("skdpgen_release_tape", default=None)


class ReplayMismatch(AssertionError):
    """A replayed fit asked for a release that the recorded fit did not make.

    The names, shapes or number of releases depend on the rows beyond their
    noisy outputs: a failure of the replay test.
    """


class ReleaseTape:
    """The outputs of the releases made inside :func:`release_tape`, in order.

    Attributes
    ----------
    records : list of tuple
        ``(name, output)`` per release: a noisy array for a Gaussian
        release, ``(kept keys, their noisy counts)`` for a partition
        selection.
    replaying : bool
        Whether the releases return the recorded outputs.
    position : int
        How many releases were made (recorded, or replayed).
    """

    def __init__(self, records=None, *, replaying=False):
        self.records = [] if records is None else records
        self.replaying = replaying
        self.position = 0

    def __len__(self):
        return len(self.records)

    def _next(self, name, kind):
        if self.position >= len(self.records):
            raise ReplayMismatch(
                f"release #{self.position + 1} ({kind} {name!r}) was not made by the "
                f"recorded fit, which made {len(self.records)} releases.")
        recorded_name, output = self.records[self.position]
        if recorded_name != name or isinstance(output, tuple) != (kind == "selection"):
            raise ReplayMismatch(
                f"release #{self.position + 1} is {kind} {name!r}; the recorded fit made "
                f"{recorded_name!r} there.")
        self.position += 1
        return output

    def gaussian(self, name, noisy):
        """Record ``noisy``, or return the recorded output in its place."""
        if not self.replaying:
            self.records.append((name, np.array(noisy, dtype=np.float64, copy=True)))
            self.position += 1
            return noisy
        recorded = self._next(name, "release")
        if recorded.shape != np.shape(noisy):
            raise ReplayMismatch(
                f"release #{self.position} ({name!r}) has shape {np.shape(noisy)}; the "
                f"recorded one had {recorded.shape}.")
        return recorded.copy()

    def selection(self, name, kept, noisy):
        """Record a selection's kept keys and their noisy counts, or return the
        recorded ones in their place."""
        if not self.replaying:
            self.records.append((name, (list(kept), np.array(noisy, dtype=np.float64))))
            self.position += 1
            return kept, noisy
        keys, counts = self._next(name, "selection")
        return list(keys), counts.copy()


@contextlib.contextmanager
def release_tape(tape=None):
    """Record every release made inside the block, or replay a recorded tape.

    For tests of the privacy rule only (see the module docstring): every
    release made inside is marked as not private.

    Parameters
    ----------
    tape : ReleaseTape, default=None
        None records into a new tape; a recorded tape is replayed (each
        release returns the recorded output at its position, and a release
        of another name, kind or shape raises :class:`ReplayMismatch`).

    Yields
    ------
    tape : ReleaseTape
        The tape being recorded, or a replaying copy of ``tape``. When the
        block ends without an error, a replay that made fewer releases than
        were recorded raises :class:`ReplayMismatch`.

    Examples
    --------
    >>> import warnings
    >>> from skdpgen.privacy import GaussianAccountant
    >>> from skdpgen.privacy._tape import release_tape
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     with release_tape() as tape:
    ...         a = GaussianAccountant(1.0, 1e-5, {"mean": 1.0}).add_noise(
    ...             "mean", [0.0], sensitivity=1.0)
    ...     with release_tape(tape):
    ...         b = GaussianAccountant(1.0, 1e-5, {"mean": 1.0}).add_noise(
    ...             "mean", [42.0], sensitivity=1.0)
    >>> bool(a[0] == b[0])
    True
    """
    active = ReleaseTape() if tape is None else ReleaseTape(tape.records, replaying=True)
    token = _TAPE.set(active)
    try:
        yield active
    finally:
        _TAPE.reset(token)
    if active.replaying and active.position != len(active.records):
        raise ReplayMismatch(f"the replayed fit made {active.position} releases; the "
                             f"recorded one made {len(active.records)}.")


def active_tape():
    """The tape of the enclosing :func:`release_tape` block, or None."""
    return _TAPE.get()
