"""What a private schema estimate released that a fitted model's output can be
checked against: each numeric column's noisy histogram on the public grid."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import numpy as np

from .kinds import kind_of
from .kinds._numeric import numeric_layout

__all__ = ["released_histograms"]


def released_histograms(plan):
    """Each estimated numeric column's released histogram, with its noise.

    Parameters
    ----------
    plan : SchemaPlan
        After :meth:`~skdpgen.private_schema.SchemaPlan.estimate`.

    Returns
    -------
    histograms : dict
        ``column -> (counts, std)``: the noisy counts of the column's values
        in the bins of :func:`~skdpgen.private_schema.numeric_grid` (rows),
        and their noise standard deviation; only columns estimated numeric
        whose release held the histogram (not those with public bounds).
        Releases and public noise levels only.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from skdpgen.privacy import GaussianAccountant
    >>> from skdpgen.private_schema import SchemaPlan
    >>> from skdpgen.rows import table_rows
    >>> from skdpgen.schema._released import released_histograms
    >>> X = pd.DataFrame({"age": np.random.default_rng(0).integers(18, 90, 2000)})
    >>> plan = SchemaPlan.from_table(X)
    >>> accountant = GaussianAccountant(1.0, 1e-5, plan.shares(1.0),
    ...                                 selections=plan.selections())
    >>> _ = plan.estimate(table_rows(X), accountant)
    >>> counts, std = released_histograms(plan)["age"]
    >>> counts.shape, bool(std > 0)
    ((423,), True)
    """
    layout = numeric_layout()
    size = layout["decades"].stop + 2  # the non-integer and missing counts
    out = {}
    for key, kind in plan.kinds_.items():
        noisy = plan.noisy_.get(key)
        if (not kind_of(kind).is_numeric or noisy is None or key not in plan.noise_
                or noisy.size != size):
            continue
        out[key] = (np.asarray(noisy[layout["bins"]], dtype=np.float64), float(plan.noise_[key]))
    return out
