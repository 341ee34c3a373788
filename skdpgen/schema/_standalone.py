"""A schema estimate on a budget of its own: :func:`estimate_schema`.

The standalone use of the private schema estimate (what the command line's
``skdpgen schema`` runs): the plan of :mod:`skdpgen.schema._plan` gets the
whole budget in one :class:`~skdpgen.privacy.GaussianAccountant` of its
own, makes its releases, and returns the schema with the accountant's
privacy report. A fit spends a share of its own budget on the same plan
instead (:meth:`~skdpgen.schema._plan.SchemaPlan.shares`).
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

from ..privacy import GaussianAccountant, PrivacyReport, check_epsilon_delta, leak_ledger
from ..rows import table_rows
from ._plan import SchemaPlan

__all__ = ["estimate_schema"]


def estimate_schema(X, y=None, *, schema=None, classes=None, bounds=None, epsilon=1.0,
                    delta=1e-5):
    """Estimate a complete schema privately, on its own budget.

    Plans the releases (:meth:`SchemaPlan.from_table`), gives them the whole
    budget (``schema_share=1``) in one
    :class:`~skdpgen.privacy.GaussianAccountant` and makes them
    (:meth:`SchemaPlan.estimate`). What the command line's
    ``skdpgen schema data.csv --epsilon 0.1 --out schema.json`` runs.

    Parameters
    ----------
    X : DataFrame, 2-D array, list of rows, or Dask DataFrame or array
        The private table, its values in any form.
    y : array-like of shape (n,), default=None
        Private labels, whose class list is estimated unless ``classes``.
    schema : dict, default=None
        Public column specs; only the other columns (and the parts that
        type-only specs leave out) are estimated.
    classes : array-like, default=None
        The public class list.
    bounds : tuple of (float, float), default=None
        Public bounds for every column the schema leaves out (they are
        then numeric).
    epsilon : float, default=1.0
        Privacy budget of the estimation.
    delta : float, default=1e-5
        Its δ; half of it goes to the thresholds of the partition selections
        when there are any.

    Returns
    -------
    schema : dict
        The complete schema (JSON-serializable for DataFrame input).
    classes : list or None
    report : PrivacyReport
        Every release, its noise and the δ of the selections; ``epsilon``
        equals the budget when anything was estimated (an empty report
        otherwise), and ``leaks`` is empty.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from skdpgen.private_schema import estimate_schema
    >>> n = 20_000
    >>> X = pd.DataFrame({"age": np.arange(n) % 50 + 20,
    ...                   "city": np.where(np.arange(n) % 3 == 0, "A", "B")})
    >>> schema, classes, report = estimate_schema(X, epsilon=1.0)
    >>> schema["age"]["integer"], 0 <= schema["age"]["bounds"][0] <= 20
    (True, True)
    >>> schema["city"]["categories"][:2]
    ['A', 'B']
    >>> round(report.epsilon, 6), report.leaks, report.selection_delta
    (1.0, (), 5e-06)
    """
    epsilon, delta = check_epsilon_delta(epsilon, delta)
    rows = table_rows(X, y)
    plan = SchemaPlan.from_table(rows, schema=schema, bounds=bounds, classes=classes)
    shares = plan.shares(1.0)
    with leak_ledger() as leaks:
        if not shares:
            out_schema, out_classes = plan.estimate(rows, None)
            report = PrivacyReport([], delta, budget=(epsilon, delta), leaks=list(leaks))
        else:
            accountant = GaussianAccountant(epsilon, delta, shares, selections=plan.selections(),
                                            label="estimate_schema")
            out_schema, out_classes = plan.estimate(rows, accountant)
            report = accountant.report(list(leaks))
    return out_schema, out_classes, report
