"""The protocol of a column kind, and what every kind shares.

Each kind of column (numeric, datetime, time, categorical, bool, and text until
its kind is estimated) is one :class:`ColumnKind` subclass in a module of
its own, which owns everything about that kind:

* ``check_spec(key, spec)``: validation of a complete spec (the schema);
* ``output_dtype(spec)``: the public dtype of its synthetic values;
* ``codec(key, spec, **options)``: a :class:`ColumnCodec` that encodes a
  column's values, read through their canonical forms (any form, never an
  error), and decodes generated ones;
* what the rest of the library asks of a column: its class attributes
  (``is_numeric``, ``is_bounded``, ``has_categories``, ``decides_kind``)
  and ``of_spec``, ``is_partial``, ``encodes_as_levels``,
  ``spec_from_dtype``, ``written_as``, and the data holder's diagnostics
  ``read_values`` and ``check_values`` (each with a default that suits a
  kind declared complete, whose values are read as keys);
* ``read(key, canon, context)``: the leaky read of a spec from exact values
  (``infer_schema="data"``), recording what it reads as leaks;
* ``release`` and ``sensitivity``: its own private release when its kind is
  declared, ``statistic(canon, context)`` the exact statistic of that
  release, and ``estimate(key, noisy, s, n, context)`` the spec as
  post-processing of the noisy statistic.

:class:`~skdpgen.schema.TableEncoder` composes per-column codecs, the way
:class:`~sklearn.compose.ColumnTransformer` composes transformers, and
:class:`~skdpgen.private_schema.SchemaPlan` composes the kinds' releases.
Adding a kind touches one module plus its registration
(:func:`~skdpgen.schema.register_kind`), and its tests.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..._canonical import MISSING, canonical_keys, key_order
from .._policy import POLICY

__all__ = ["ColumnCodec", "ColumnKind", "EmptyCodec", "EstimateContext", "complete_bounds",
           "flag", "key_read", "one_hot_rows", "open_bounds"]


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


def open_bounds(spec):
    """Whether a bounded kind's spec leaves its bounds out, or one of them open
    (``None``): the spec declares the kind only (:meth:`ColumnKind.is_partial`)."""
    bounds = spec.get("bounds")
    return bounds is None or None in list(bounds)


def complete_bounds(kind, key, spec):
    """The resolved bounds of a complete ``spec`` read as ``kind``, or None when
    the spec has none or is partial (:meth:`ColumnKind.read_values`)."""
    if spec.get("bounds") is None or kind.is_partial(spec):
        return None
    return kind.resolve(key, spec)["bounds"]


def key_read(canon, spec):
    """``(values, None, levels)``: a column read as keys (see
    :meth:`ColumnKind.read_values`): each value's key as text (``"True"``,
    ``"3"``, ``"2024-03-01"``; NaN where missing), and the levels: the
    spec's categories as text keys, in their order, then the other values
    the column holds, in key order (bools, numbers, then text)."""
    keys = canon.keys().tolist()
    values = np.array([np.nan if k is None else str(k) for k in keys], dtype=object)
    levels = [str(k) for k in canonical_keys(spec.get("categories") or [])[0]]
    seen = {str(k): k for k in keys if k is not None}
    levels += [str(k) for k in sorted((k for t, k in seen.items() if t not in set(levels)),
                                      key=key_order)]
    return values, None, levels


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

    Examples
    --------
    >>> from skdpgen.schema import ColumnCodec, kind_of
    >>> spec = {"type": "categorical", "categories": ["a", "b"], "missing": True}
    >>> codec = kind_of(spec).codec("letter", spec)
    >>> isinstance(codec, ColumnCodec), codec.numeric, codec.width
    (True, False, 3)
    >>> numeric, block, missing = codec.encode(["b", None])
    >>> block.tolist()
    [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
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

    Code outside the kind's module asks a column's kind what it is
    (:attr:`is_numeric`, :attr:`is_bounded`, :attr:`has_categories`, ...)
    through :func:`~skdpgen.schema.kind_of`, never by comparing its
    ``"type"``. A new kind subclasses it, implements :meth:`check_spec`,
    :meth:`output_dtype` and :meth:`codec` (a :class:`ColumnCodec`), and is
    added with :func:`~skdpgen.schema.register_kind`.

    Examples
    --------
    >>> from skdpgen.schema import ColumnKind, kind_of
    >>> isinstance(kind_of("numeric"), ColumnKind), kind_of("numeric").is_bounded
    (True, True)
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
    #: Whether its release decides the column's kind, whose values are
    #: released afterwards as that kind's (a column of unknown kind, text).
    decides_kind = False

    def check_spec(self, key, spec):  # pragma: no cover - each kind implements it
        raise NotImplementedError

    def resolve(self, key, spec):
        """The resolved (validated, normalized) ``spec`` of column ``key``: its
        :meth:`check_spec`, with the ``"missing"`` and ``"empty"`` flags every
        kind takes (:func:`~skdpgen.schema._table.check_spec`)."""
        missing = flag(key, spec, "missing")
        out = self.check_spec(key, spec)
        if missing:
            out["missing"] = True
        if flag(key, spec, "empty"):  # written missing in every row (any kind)
            out["missing"] = out["empty"] = True
            out.pop("impute", None)
            out.pop("zero", None)
        return out

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

    # -- what the library asks of a column (defaults: a kind declared complete)
    def of_spec(self, spec):
        """The kind of a column whose spec names this kind (``self``; a
        categorical spec whose categories are bools is a bool column)."""
        return self

    def is_partial(self, spec):
        """Whether ``spec`` declares the kind only, the rest to be estimated
        privately (by default never: a kind without a release is declared
        complete)."""
        return False

    def encodes_as_levels(self, spec, max_levels):
        """Whether the codec encodes ``spec`` as a one-hot block of its
        integers (:func:`~skdpgen.schema.encodes_as_levels`)."""
        return False

    def spec_from_dtype(self, dtype):
        """The type-only spec that a public ``dtype`` of the kind declares
        (:func:`~skdpgen.schema.kinds_from_dtypes`), or None to leave the
        kind private."""
        return {"type": self.name}

    def written_as(self, spec):
        """What an estimated spec writes, in words, without a value (the
        words of a warning, post-processing)."""
        return f"{self.name} values"

    def read_values(self, key, canon, spec):
        """``(values, bounds, levels)``: the column as the data holder's
        diagnostics read it (:func:`~skdpgen.schema.read_column`, not for
        release).

        By default as keys (:func:`key_read`): the values' keys as text and
        the levels; a bounded kind returns numbers on its line and its
        complete spec's bounds in their unit, with no levels.
        """
        return key_read(canon, spec)

    def check_values(self, key, canon, spec):
        """``(counts, absent)``: what a complete ``spec`` does to the column's
        values (:func:`~skdpgen.schema.check_table`, not for release).

        ``counts`` holds some of ``not_parsed``, ``clipped`` and ``unlisted``
        (missing ones count 0); ``absent`` marks the rows without a value
        (imputed unless the spec declares ``"missing"``). By default the
        missing values are absent and the values outside the spec's
        ``categories`` (when it lists some) unlisted.
        """
        unlisted = 0
        if spec.get("categories") is not None:
            known = set(canonical_keys(spec["categories"])[1])
            unlisted = int(sum(t is not None and t not in known for t in canon.tags()))
        return {"unlisted": unlisted}, canon.form == MISSING


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
