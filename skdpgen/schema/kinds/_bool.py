"""Bool columns: a categorical spec whose categories are ``[False, True]``."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import numpy as np
import pandas as pd

from ...privacy import record_leak
from ..._canonical import MISSING
from .._flags import _flags
from .._issues import _missing_flag
from ._categorical import CategoricalKind, _OneHot
from ._kind import record_present

__all__ = ["BoolKind"]


class _BoolOneHot(_OneHot):
    def decode_frame(self, code, missing):
        values = np.asarray(self.spec["categories"], dtype=bool)[np.where(missing, 0, code)]
        return pd.arrays.BooleanArray(values, missing) if self.allow_missing else values


class BoolKind(CategoricalKind):
    """True and False (the statistic: the count of missing values; the
    categories ``[False, True]`` are fixed by the kind)."""

    name = "bool"
    release = "schema: missing"
    sensitivity = 1.0

    def written_as(self, spec):
        return "true/false values"

    def output_dtype(self, spec):
        return pd.BooleanDtype() if spec.get("missing", False) else np.dtype(bool)

    def codec(self, key, spec, *, max_levels=0, bins=0):
        return _BoolOneHot(key, spec)

    def read(self, key, canon, context):
        record_leak(
            "missing",
            f"Whether bool column {key!r} has missing values was read from the private "
            "data and is released with the model without privacy. Declare the column "
            "in the schema to avoid this.",
            column=key,
        )
        return {"type": "categorical", "categories": [False, True], "ordered": False,
                "missing": bool(np.any(canon.form == MISSING)), "other": False}

    def statistic(self, canon, context):
        """``[missing count]``.

        Notes
        -----
        **Sensitivity** (replace-one): one record changes the count by at
        most one, ``Δ = 1``.
        """
        return np.array([float(np.sum(canon.form == MISSING))])

    def privatize(self, key, statistic, n, context):
        noisy, s = context.add_noise(statistic, self.sensitivity)
        context.noisy[key] = noisy
        return self.estimate(key, noisy, s, n, context)

    def estimate(self, key, noisy, s, n, context):
        _, missing = _flags(None, noisy[-1], n, s, context.flag_stds)
        missing = _missing_flag(key, missing, noisy[-1], s, n, context.partial)
        record_present(context, key, n, noisy[-1], s)  # nothing to place: no range
        # values that are no bools, and missing ones without the flag, map to False
        return {"type": "categorical", "categories": [False, True], "ordered": False,
                "missing": missing, "other": False}
