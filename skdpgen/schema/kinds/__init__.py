"""Column kinds: one module per kind, and the registry that finds them.

A kind is one :class:`~skdpgen.schema.ColumnKind` subclass in a module of
its own (the protocol: ``_kind.py``), added to the registry (``_registry.py``)
with :func:`~skdpgen.schema.register_kind`. The built-in kinds are
registered here: ``_numeric.py``, ``_datetime.py``, ``_categorical.py`` and
``_time.py`` (the types a schema declares, in that order), ``_bool.py`` (a categorical
spec whose categories are ``[False, True]``, or ``{"type": "bool"}``) and
``_text.py`` (a column until its kind is estimated). The rest of the library
asks a column's kind (:func:`~skdpgen.schema.kind_of`), never its name.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

from ._binned import bin_index, fill_offsets
from ._bool import BoolKind
from ._categorical import CategoricalKind
from ._datetime import DatetimeKind
from ._kind import ColumnCodec, ColumnKind, EmptyCodec, EstimateContext, flag
from ._numeric import NumericKind
from ._registry import (KINDS, kind_of, partial_kind, register_kind, schema_types,
                        unregister_kind)
from ._text import TextKind
from ._time import TimeKind

__all__ = ["KINDS", "ColumnCodec", "ColumnKind", "EmptyCodec", "EstimateContext", "bin_index",
           "fill_offsets", "flag", "kind_of", "partial_kind", "register_kind", "schema_types",
           "unregister_kind"]

register_kind(NumericKind())
register_kind(DatetimeKind())
register_kind(CategoricalKind())
register_kind(TimeKind())
register_kind(BoolKind(), declarable=False)  # its type is "categorical"
register_kind(TextKind(), declarable=False)  # no schema declares it
