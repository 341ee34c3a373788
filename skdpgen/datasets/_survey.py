"""A generated wide survey table with exact relations between its columns."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

from numbers import Integral

import numpy as np
import pandas as pd
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, validate_params

__all__ = ["make_survey"]


@validate_params(
    {"n_rows": [Interval(Integral, 1, None, closed="left")], "random_state": ["random_state"]},
    prefer_skip_nested_validation=True,
)
def make_survey(n_rows=4361, *, random_state=None):
    """A generated household survey of 27 columns, shaped like Wooldridge's ``fertil2``.

    Women aged 15 to 49 in a 1988 survey: their age, its square and their
    year of birth are exact functions of one another (``agesq = age²``,
    ``yearborn = 88 − age``), as are ``urb_educ = urban · educ`` and
    ``educ0 = [educ == 0]``; the number of children grows with age and
    falls with education; electricity goes with towns and a television with
    electricity; some columns are missing for part of the rows
    (``agefbrth``, ``heduc``, the marriage dates). Most other columns are
    independent. A test bed for synthesizers on a wide table of a few
    thousand rows: which pairs of columns they keep.

    Parameters
    ----------
    n_rows : int, default=4361
        Rows (``fertil2`` has 4,361).
    random_state : int, RandomState instance or None, default=None

    Returns
    -------
    frame : DataFrame of shape (n_rows, 27)
        Integer columns (floats where values are missing).

    Examples
    --------
    >>> from skdpgen.datasets import make_survey
    >>> survey = make_survey(1000, random_state=0)
    >>> survey.shape
    (1000, 27)
    >>> bool((survey["agesq"] == survey["age"] ** 2).all())
    True
    """
    rng = check_random_state(random_state)
    n = n_rows
    age = rng.randint(15, 50, n)
    educ = np.clip(np.round(rng.normal(8 - 0.05 * (age - 30), 3.5)), 0, 20).astype(int)
    urban = rng.random_sample(n) < 0.5
    electric = rng.random_sample(n) < np.where(urban, 0.3, 0.08)
    children = np.clip(rng.poisson(np.maximum(0.12 * (age - 16) - 0.08 * educ, 0.05)), 0, 13)
    married = rng.random_sample(n) < 0.5

    def sometimes(values, share=0.5):
        return np.where(rng.random_sample(n) < share, values, np.nan)

    return pd.DataFrame({
        "mnthborn": rng.randint(1, 13, n),
        "yearborn": 88 - age,
        "age": age,
        "electric": electric.astype(int),
        "radio": (rng.random_sample(n) < 0.7).astype(int),
        "tv": (rng.random_sample(n) < np.where(electric, 0.6, 0.02)).astype(int),
        "bicycle": (rng.random_sample(n) < 0.3).astype(int),
        "educ": educ,
        "ceb": children + rng.binomial(1, 0.1, n),
        "agefbrth": np.where(children > 0, np.clip(age - rng.randint(0, 15, n), 13, 40), np.nan),
        "children": children,
        "knowmeth": (rng.random_sample(n) < 0.95).astype(int),
        "usemeth": (rng.random_sample(n) < 0.3 + 0.02 * educ).astype(int),
        "monthfm": np.where(married, rng.randint(1, 13, n), np.nan),
        "yearfm": np.where(married, rng.randint(60, 88, n), np.nan),
        "agefm": np.where(married, rng.randint(12, 40, n), np.nan),
        "idlnchld": np.clip(rng.poisson(4, n), 0, 20),
        "heduc": sometimes(np.clip(educ + rng.randint(-3, 4, n), 0, 20)),
        "agesq": age ** 2,
        "urban": urban.astype(int),
        "urb_educ": urban * educ,
        "spirit": (rng.random_sample(n) < 0.4).astype(int),
        "protest": (rng.random_sample(n) < 0.2).astype(int),
        "catholic": (rng.random_sample(n) < 0.1).astype(int),
        "frsthalf": (rng.random_sample(n) < 0.5).astype(int),
        "educ0": (educ == 0).astype(int),
        "evermarr": (rng.random_sample(n) < np.clip((age - 14) / 20, 0, 0.9)).astype(int),
    })
