"""The UCI Adult ("Census Income") dataset, bundled, with a public schema.

The schema (numeric bounds and category lists) is a hard-coded constant. It is
taken from the dataset's documentation (``adult.names``) and from public
census conventions, never from the rows, so that a differentially private
method may use it without spending privacy budget on it.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import copy
from importlib import resources

import pandas as pd
from sklearn.utils import Bunch

from ..schema import kind_of

__all__ = ["adult_schema", "load_adult"]

_FILES = {"train": "adult.data.gz", "test": "adult.test.gz"}
_N_ROWS = {"train": 32_561, "test": 16_281}
_TARGET = "income"
_MISSING = "?"

# ---------------------------------------------------------------------------
# Public schema. Nothing below was computed from the data files.
#
# Category lists: copied verbatim, in order, from the attribute list at the end
# of adult.names. The source writes unknown values as "?" ("3. Convert Unknown
# to '?'" in adult.names); the three columns that have unknowns in the
# published files (workclass, occupation, native-country, as is widely
# documented for this dataset) get "?" as an explicit last category. Unknowns
# stay that public category: imputing them (e.g. with a mode) would leak.
# The income classes are the two ranges of "Discretized agrossincome into two
# ranges with threshold 50,000" (adult.names).
#
# Numeric bounds: adult.names only says "continuous", so the bounds are public
# domain knowledge about the 1994 Current Population Survey (CPS) extraction:
#
# age            [17, 90]   extraction condition AAGE>16 (adult.names), and
#                           the CPS public-use files top-code age at 90.
# fnlwgt         [0, 1_600_000]
#                           the CPS final (survey) weight, in file units of
#                           1/100 person. Weights are non-negative (the
#                           extraction kept AFNLWGT>1). A respondent of the
#                           1994 March CPS stands for on the order of 1,000 to
#                           2,000 people (about 200 million civilians / about
#                           130,000 sampled persons), i.e. 100,000 to 200,000
#                           file units; state samples have different selection
#                           rates, so weights vary several-fold. 1,600,000
#                           (16,000 people, about ten times a typical weight)
#                           is a generous round cap.
# education-num  [1, 16]    ordinal code of the 16 education levels listed in
#                           adult.names (1 = Preschool ... 16 = Doctorate).
# capital-gain   [0, 99999] CPS reports gains and losses separately, as
#                           non-negative amounts; the CPS income items are
#                           top-coded at $99,999.
# capital-loss   [0, 5000]  non-negative (see capital-gain). US tax law caps
#                           the net capital loss deductible against other
#                           income at $3,000 a year (26 U.S.C. 1211(b)), which
#                           sets the scale of reported losses; the survey
#                           records reported, not deductible, losses, so we
#                           leave headroom and take the round bound $5,000.
# hours-per-week [1, 99]    extraction condition HRSWK>0 (adult.names); the
#                           CPS top-codes usual weekly hours at 99.
#
# Afterwards check (not used to choose anything): every row of both bundled
# splits lies within these bounds (tests/datasets/test_datasets.py asserts it).
# ---------------------------------------------------------------------------

_ADULT_SCHEMA = {
    "age": {"type": "numeric", "bounds": [17, 90], "integer": True},
    "workclass": {
        "type": "categorical",
        "categories": [
            "Private",
            "Self-emp-not-inc",
            "Self-emp-inc",
            "Federal-gov",
            "Local-gov",
            "State-gov",
            "Without-pay",
            "Never-worked",
            "?",
        ],
    },
    "fnlwgt": {"type": "numeric", "bounds": [0, 1_600_000], "integer": True},
    "education": {
        "type": "categorical",
        "categories": [
            "Bachelors",
            "Some-college",
            "11th",
            "HS-grad",
            "Prof-school",
            "Assoc-acdm",
            "Assoc-voc",
            "9th",
            "7th-8th",
            "12th",
            "Masters",
            "1st-4th",
            "10th",
            "Doctorate",
            "5th-6th",
            "Preschool",
        ],
    },
    "education-num": {"type": "numeric", "bounds": [1, 16], "integer": True},
    "marital-status": {
        "type": "categorical",
        "categories": [
            "Married-civ-spouse",
            "Divorced",
            "Never-married",
            "Separated",
            "Widowed",
            "Married-spouse-absent",
            "Married-AF-spouse",
        ],
    },
    "occupation": {
        "type": "categorical",
        "categories": [
            "Tech-support",
            "Craft-repair",
            "Other-service",
            "Sales",
            "Exec-managerial",
            "Prof-specialty",
            "Handlers-cleaners",
            "Machine-op-inspct",
            "Adm-clerical",
            "Farming-fishing",
            "Transport-moving",
            "Priv-house-serv",
            "Protective-serv",
            "Armed-Forces",
            "?",
        ],
    },
    "relationship": {
        "type": "categorical",
        "categories": [
            "Wife",
            "Own-child",
            "Husband",
            "Not-in-family",
            "Other-relative",
            "Unmarried",
        ],
    },
    "race": {
        "type": "categorical",
        "categories": ["White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black"],
    },
    "sex": {"type": "categorical", "categories": ["Female", "Male"]},
    "capital-gain": {"type": "numeric", "bounds": [0, 99_999], "integer": True},
    "capital-loss": {"type": "numeric", "bounds": [0, 5_000], "integer": True},
    "hours-per-week": {"type": "numeric", "bounds": [1, 99], "integer": True},
    "native-country": {
        "type": "categorical",
        "categories": [
            "United-States",
            "Cambodia",
            "England",
            "Puerto-Rico",
            "Canada",
            "Germany",
            "Outlying-US(Guam-USVI-etc)",
            "India",
            "Japan",
            "Greece",
            "South",
            "China",
            "Cuba",
            "Iran",
            "Honduras",
            "Philippines",
            "Italy",
            "Poland",
            "Jamaica",
            "Vietnam",
            "Mexico",
            "Portugal",
            "Ireland",
            "France",
            "Dominican-Republic",
            "Laos",
            "Ecuador",
            "Taiwan",
            "Haiti",
            "Columbia",
            "Hungary",
            "Guatemala",
            "Nicaragua",
            "Scotland",
            "Thailand",
            "Yugoslavia",
            "El-Salvador",
            "Trinadad&Tobago",
            "Peru",
            "Hong",
            "Holand-Netherlands",
            "?",
        ],
    },
    "income": {"type": "categorical", "categories": ["<=50K", ">50K"]},
}

_COLUMNS = list(_ADULT_SCHEMA)
_FEATURES = [c for c in _COLUMNS if c != _TARGET]


def adult_schema():
    """Public schema of the Adult dataset: bounds and categories of each column.

    Returns
    -------
    schema : dict
        Maps each of the 15 column names, in file order and including the
        target ``"income"``, to a JSON-serializable spec: either
        ``{"type": "numeric", "bounds": [lo, hi], "integer": True}`` or
        ``{"type": "categorical", "categories": [...]}``. A fresh copy is
        returned on every call, so it may be modified freely.

    Notes
    -----
    The schema is a constant written in the source code; it is not computed
    from the data, so handing it to a differentially private method costs no
    privacy budget.

    - Category lists are those of ``adult.names``, in its order. The columns
      ``workclass``, ``occupation`` and ``native-country`` have unknown values,
      written ``"?"`` in the source; ``"?"`` is their last category. The target
      categories are ``["<=50K", ">50K"]``.
    - ``adult.names`` describes the numeric columns only as "continuous"; their
      bounds come from the documented extraction conditions and public census
      conventions: ``age`` [17, 90] (``AAGE>16``, CPS top-code 90), ``fnlwgt``
      [0, 1,600,000] (a non-negative CPS survey weight in 1/100 person; a
      generous cap of about ten times a typical weight), ``education-num``
      [1, 16] (the 16 listed education levels), ``capital-gain`` [0, 99,999]
      (CPS top-code), ``capital-loss`` [0, 5,000] (a round bound above the
      $3,000 yearly deduction limit of US tax law), ``hours-per-week`` [1, 99]
      (``HRSWK>0``, CPS top-code 99). All numeric columns hold integers.

    Examples
    --------
    >>> from skdpgen.datasets import adult_schema
    >>> schema = adult_schema()
    >>> len(schema)
    15
    >>> schema["age"]
    {'type': 'numeric', 'bounds': [17, 90], 'integer': True}
    >>> schema["workclass"]["categories"][-1]
    '?'
    >>> schema["income"]["categories"]
    ['<=50K', '>50K']
    """
    return copy.deepcopy(_ADULT_SCHEMA)


def _read_split(split):
    """Read one bundled split as a DataFrame of 15 raw columns."""
    resource = resources.files(__package__).joinpath("data", _FILES[split])
    with resource.open("rb") as f:
        frame = pd.read_csv(
            f,
            compression="gzip",
            header=None,
            names=_COLUMNS,
            sep=",",
            skipinitialspace=True,  # values are separated by ", "
            skiprows=1 if split == "test" else 0,  # "|1x3 Cross validator"
            skip_blank_lines=True,  # trailing empty line
            na_filter=False,  # "?" is a category, not a missing value
            dtype={c: str for c in _COLUMNS},
        )
    return frame


def _to_categorical(values, categories, name, split):
    cat = pd.Categorical(values, categories=categories)
    unknown = cat.isna() & values.notna().to_numpy()
    if unknown.any():
        # Reports only that the file departs from the documentation.
        raise ValueError(
            f"The bundled Adult {split} file has values of {name!r} outside its "
            "public category list; the data files are corrupted."
        )
    return cat


def load_adult(*, split="train", return_X_y=False):
    """Load the UCI Adult ("Census Income") dataset, bundled with skdpgen.

    The files are read from the package; nothing is downloaded. Each row is a
    person from the 1994 US Current Population Survey; the task is to predict
    whether the yearly income exceeds $50,000.

    =================   ==============================================
    Rows                32,561 (``"train"``), 16,281 (``"test"``)
    Features            14: 6 integer, 8 categorical
    Target              ``income``: ``"<=50K"`` or ``">50K"``
    Schema              public, see :func:`adult_schema`
    =================   ==============================================

    Parameters
    ----------
    split : {"train", "test"}, default="train"
        ``"train"`` reads ``adult.data``, ``"test"`` reads ``adult.test`` (the
        original split of the UCI repository, 2/3 and 1/3 of the rows).
    return_X_y : bool, default=False
        If True, return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        Dictionary-like object with the following attributes.

        frame : pandas.DataFrame of shape (n_samples, 15)
            All columns, features then ``income``.
        data : pandas.DataFrame of shape (n_samples, 14)
            The features. Numeric columns are ``int64``; categorical columns
            are :class:`pandas.Categorical` with exactly the categories of the
            schema, in its order, so both splits have the same categories.
            Unknown values are the category ``"?"``; there is no NaN.
        target : pandas.Series of shape (n_samples,)
            ``income`` as a Categorical with categories ``["<=50K", ">50K"]``
            (the trailing ``"."`` of the test labels is removed).
        schema : dict
            :func:`adult_schema` without ``income``: the public spec of each
            feature, in column order.
        target_schema : dict
            The public spec of ``income``.
        feature_names : list of str
            The 14 feature names, in column order.
        DESCR : str
            The text of ``adult.names``.

    (data, target) : tuple if ``return_X_y`` is True
        The ``data`` DataFrame and the ``target`` Series described above.

    Raises
    ------
    ValueError
        If ``split`` is neither ``"train"`` nor ``"test"``.

    Notes
    -----
    Privacy: the rows are private data; the schema is public. The bounds and
    category lists in ``schema`` and ``target_schema`` are constants taken from
    ``adult.names`` and public census conventions (see :func:`adult_schema`),
    not from the rows, so they can be handed to a differentially private
    method without spending privacy budget. For the same reason nothing is
    imputed (an imputed value would be a statistic of the rows): unknown values
    stay the public category ``"?"``. The numeric values are returned as read,
    not clipped; all of them lie within the schema bounds.

    The data come from the UCI Machine Learning Repository (Becker & Kohavi,
    1996; Dua & Graff, 2019) under the CC BY 4.0 license; see
    ``skdpgen/datasets/data/README.md``.

    Examples
    --------
    >>> from skdpgen.datasets import load_adult
    >>> adult = load_adult()
    >>> adult.data.shape
    (32561, 14)
    >>> adult.target.value_counts().sort_index().to_dict()
    {'<=50K': 24720, '>50K': 7841}
    >>> adult.schema["hours-per-week"]
    {'type': 'numeric', 'bounds': [1, 99], 'integer': True}
    >>> X_test, y_test = load_adult(split="test", return_X_y=True)
    >>> X_test.shape, y_test.shape
    ((16281, 14), (16281,))
    >>> list(y_test.cat.categories)
    ['<=50K', '>50K']
    """
    if not isinstance(split, str) or split not in _FILES:
        raise ValueError(f"split must be 'train' or 'test'; got {split!r}.")

    schema = adult_schema()
    raw = _read_split(split)
    if len(raw) != _N_ROWS[split]:
        raise ValueError(
            f"The bundled Adult {split} file has {len(raw)} rows instead of "
            f"{_N_ROWS[split]}; the data files are corrupted."
        )
    raw[_TARGET] = raw[_TARGET].str.rstrip(".")

    columns = {}
    for name, spec in schema.items():
        if kind_of(spec).is_numeric:
            columns[name] = pd.to_numeric(raw[name]).astype(
                "int64" if spec["integer"] else "float64"
            )
        else:
            columns[name] = _to_categorical(raw[name], spec["categories"], name, split)
    frame = pd.DataFrame(columns, index=pd.RangeIndex(len(raw)))

    data = frame[_FEATURES]
    target = frame[_TARGET]
    if return_X_y:
        return data, target

    target_schema = schema.pop(_TARGET)
    descr = resources.files(__package__).joinpath("data", "adult.names").read_text(
        encoding="ascii"
    )
    return Bunch(
        frame=frame,
        data=data,
        target=target,
        schema=schema,
        target_schema=target_schema,
        feature_names=list(_FEATURES),
        DESCR=descr,
    )
