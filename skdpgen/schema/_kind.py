"""The protocol of a column kind, and what every kind shares.

Each kind of column (numeric, datetime, categorical, bool, and text until
its kind is estimated) is one :class:`ColumnKind` subclass in a module of
its own, which owns everything about that kind:

* ``check_spec(key, spec)``: validation of a complete spec (the schema);
* ``output_dtype(spec)``: the public dtype of its synthetic values;
* ``codec(key, spec, **options)``: a :class:`ColumnCodec` that encodes a
  column's values, read through their canonical forms (any form, never an
  error), and decodes generated ones;
* ``read(key, canon, context)``: the leaky read of a spec from exact values
  (``infer_schema="data"``), recording what it reads as leaks;
* ``release`` and ``sensitivity``: its own private release when its kind is
  declared, ``statistic(canon, context)`` the exact statistic of that
  release, and ``estimate(key, noisy, s, n, context)`` the spec as
  post-processing of the noisy statistic.

:class:`~skdpgen.schema.TableEncoder` composes per-column codecs, the way
:class:`~sklearn.compose.ColumnTransformer` composes transformers, and
:class:`~skdpgen.private_schema.SchemaPlan` composes the kinds' releases.
Adding a kind touches one module (and :data:`KINDS`) plus its tests.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ._policy import POLICY

__all__ = ["ColumnCodec", "ColumnKind", "EmptyCodec", "EstimateContext", "flag", "one_hot_rows"]


def flag(key, spec, name):
    """A boolean flag of a spec (default False), checked."""
    value = spec.get(name, False)
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(
            f"Schema key {name!r} of column {key!r} must be true or false, got {value!r}."
        )
    return bool(value)


def record_present(context, key, n, missing_count, s_missing, needed=0.0):
    """Record in ``context.present`` (where a context has one) the present rows
    of column ``key`` that its values release estimates: ``n − missing_count``
    (noise ``s_missing``) and the count ``needed`` (see
    :class:`EstimateContext`)."""
    present = getattr(context, "present", None)
    if present is not None:
        present[key] = (float(n) - float(missing_count), float(s_missing), float(needed))


def is_missing_scalar(value):
    """Whether a (public) scalar is a missing value; False for list-likes."""
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):  # list-likes
        return False


def one_hot_rows(codes, width):
    """One row of ``width`` with a single 1 at each code."""
    block = np.zeros((len(codes), width))
    block[np.arange(len(codes)), codes] = 1.0
    return block


@dataclass
class EstimateContext:
    """What the private estimate of one column may use besides its release.

    Attributes
    ----------
    partial : dict
        The column's type-only spec (its declared kind and options such as
        ``"timezone"`` or ``"ordered"``), or an empty dict.
    bounds : list of float or None
        Public bounds (the plan's ``bounds=``, or the partial spec's).
    flag_stds : float
        The threshold of the missing and integer flags, in noise standard
        deviations (:func:`skdpgen.schema._flags.flag_stds`).
    accountant : GaussianAccountant or None
        Where partition selections are made.
    release : str
        The report name under which the column's statistic is released.
    noisy : dict
        Where the released noisy vectors are kept for inspection.
    counts : dict
        Where a column's released counts of cells of its one-hot block are
        kept, ``key -> (cells, counts, std)`` (slots of the block in the
        spec's layout, their noisy counts in rows, the noise standard
        deviation of each): one-way measurements that a synthesizer's
        mechanism may read again (post-processing).
    present : dict
        Where a column's estimate records what its values release says of
        its present rows, ``key -> (estimate, std, needed)``: the rows with
        a value (``n`` less the released missing count), that estimate's
        noise standard deviation, and the least count of present rows the
        release needs to place anything (a range's group, a value's
        selection threshold; 0 when nothing is placed). Read by
        :meth:`SchemaPlan.estimate <skdpgen.private_schema.SchemaPlan.estimate>`
        (post-processing).
    """

    partial: dict = field(default_factory=dict)
    bounds: list = None
    flag_stds: float = POLICY.flag_stds
    accountant: object = None
    release: str = ""
    scaled_sensitivity: float = None
    noisy: dict = field(default_factory=dict)
    counts: dict = field(default_factory=dict)
    present: dict = field(default_factory=dict)

    def add_noise(self, value, sensitivity):
        """The noisy ``value`` (a statistic of this ``sensitivity``) and its noise std.

        With ``scaled_sensitivity`` (a column whose kind was estimated: its
        values release looks the same whatever the kind), the statistic is
        multiplied by ``scaled_sensitivity / sensitivity`` before the noise
        and divided by it after (post-processing); the noise standard
        deviation on the statistic is then ``σ · sensitivity`` either way.
        """
        sigma = self.accountant.noise_multipliers[self.release]
        value = np.asarray(value, dtype=np.float64)
        if self.scaled_sensitivity is None:
            noisy = self.accountant.add_noise(self.release, value, sensitivity=sensitivity)
            return noisy, sigma * sensitivity
        scale = self.scaled_sensitivity / sensitivity
        noisy = self.accountant.add_noise(self.release, value * scale,
                                          sensitivity=self.scaled_sensitivity)
        return noisy / scale, sigma * sensitivity

    def select(self, keys, counts, public=()):
        """A partition selection of ``keys`` by their ``counts`` (``public``
        keys always kept): (kept keys, their noisy counts, noise std)."""
        kept, noisy = self.accountant.select(self.release, keys, counts, public=public)
        return kept, np.asarray(noisy), self.accountant.noise_multipliers[self.release] * np.sqrt(2.0)


class ColumnCodec:
    """The encoding of one column: its part of the numeric block, its one-hot
    block, its missing indicator, and their decoding.

    Attributes
    ----------
    key : object
        The column.
    spec : dict
        Its resolved spec.
    numeric : bool
        Whether it holds one column of the numeric block.
    width : int
        The width of its one-hot block (0: none).
    indicator : bool
        Whether it has a 2-way ``[present, missing]`` indicator block.
    binned : bool
        Whether its one-hot block is bins whose values are drawn uniformly
        at decoding (one offset per row).
    """

    numeric = False
    width = 0
    indicator = False
    binned = False

    def __init__(self, key, spec):
        self.key = key
        self.spec = spec

    def encode(self, column):
        """``(numeric, block, missing)``: the column's numeric values on [-1, 1]
        (or None), its one-hot block (or None), and its missing mask."""
        raise NotImplementedError

    def decode(self, numeric, code, missing, offset, is_frame):
        """Values from the column's numeric values on [-1, 1] (or None), block
        codes (or None), missing mask and uniform offsets (binned columns)."""
        raise NotImplementedError


class ColumnKind:
    """A kind of column: see the module docstring for the protocol.

    Code outside :mod:`skdpgen.schema` asks a column's kind what it is
    (:attr:`is_numeric`, :attr:`is_bounded`, :attr:`has_categories`) through
    :func:`~skdpgen.schema.kind_of`, never by comparing its ``"type"``.
    """

    #: The kind's name (``"numeric"``, ``"datetime"``, ``"categorical"``, ``"bool"``).
    name = ""
    #: The schema's ``"type"`` of the kind's specs.
    type = ""
    #: Report name of the kind's own release (its kind declared).
    release = ""
    #: Replace-one L2 sensitivity of :meth:`statistic`.
    sensitivity = 1.0
    #: Whether its values are numbers (numeric columns).
    is_numeric = False
    #: Whether its values are points on a line between public ``bounds``
    #: (numeric columns, and datetime columns as instants): read as numbers,
    #: clipped to the bounds and binned within them.
    is_bounded = False
    #: Whether its spec lists its values as ``categories`` (categorical and
    #: bool columns).
    has_categories = False

    def check_spec(self, key, spec):  # pragma: no cover - each kind implements it
        raise NotImplementedError

    def require(self, key, spec, field):
        """``spec[field]``, or the error of a spec that lacks it (a public schema)."""
        if field not in spec:
            raise ValueError(f"Schema column {key!r} of type {self.type!r} needs {field!r}.")
        return spec[field]

    def output_dtype(self, spec):  # pragma: no cover
        raise NotImplementedError

    def codec(self, key, spec, **options):  # pragma: no cover
        raise NotImplementedError

    def read(self, key, canon, context):  # pragma: no cover
        raise NotImplementedError

    def statistic(self, canon, context):  # pragma: no cover
        raise NotImplementedError

    def estimate(self, key, noisy, s, n, context):  # pragma: no cover
        raise NotImplementedError

    def own_release(self, context):
        """``(report name, sensitivity)`` of the kind's release for this column."""
        return self.release, self.sensitivity

    def privatize(self, key, statistic, n, context):
        """Release the column's ``statistic`` through ``context`` and estimate its spec.

        The noisy vector is kept in ``context.noisy[key]``; everything after
        the release is post-processing (:meth:`estimate`).
        """
        noisy, s = context.add_noise(statistic, self.own_release(context)[1])
        context.noisy[key] = noisy
        return self.estimate(key, noisy, s, n, context)


class EmptyCodec:
    """The codec of a column whose spec says ``"empty": true``: its kind's
    codec, fed missing values only, and decoding to missing values only.

    A private schema estimate writes a column so when its released present
    rows cannot be told from none
    (:func:`~skdpgen.schema._present.check_present`):
    the model then learns no value of it, and none is written, whatever the
    noise of the model's own releases draws."""

    def __init__(self, codec):
        self.codec = codec

    def __getattr__(self, name):  # the kind's codec's layout
        if name.startswith("__") or name == "codec":  # unpickling looks these up
            raise AttributeError(name)  # before ``codec`` is set: no recursion
        return getattr(self.codec, name)

    def encode(self, column):
        return self.codec.encode(pd.Series([None] * len(column), dtype=object))

    def decode(self, numeric, code, missing, offset, is_frame):
        values = self.codec.decode(numeric, code, np.ones(len(missing), dtype=bool), offset,
                                   is_frame)
        if is_frame:
            return pd.Series(values).where(np.zeros(len(values), dtype=bool)).array
        values = np.asarray(values)
        if values.dtype == np.float64:
            return np.full(len(values), np.nan)
        return np.full(len(values), None, dtype=object)
