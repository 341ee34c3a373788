"""A data holder's evaluation of a synthetic table against a real one."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math
import sys
import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import KFold, StratifiedKFold
from threadpoolctl import threadpool_limits

from ..schema import kind_of, paired_frames, read_column
from ._marginals import POINT_SHARE, TV_BINS, table_fidelity
from ._utility import downstream_utility, paper_models, regression_utility, score_table

__all__ = ["TableEvaluation", "evaluate_tables"]

#: What the evaluation is, said once in its output.
PRIVACY_NOTE = "reads the real table as the data holder's; not a private release"
#: A numeric (or datetime) target with more distinct values is regressed.
MAX_CLASSES = 10
#: Folds of the real-to-real cross-validation without a real training table.
N_FOLDS = 5
#: Values of a text column the models see, at most: the most frequent in the
#: real test table; the others are one value, ``OTHER``.
MAX_LEVELS = 30
#: A text column with more than ``MAX_LEVELS`` values, and at least this share
#: of its rows distinct, is an identifier or free text: skipped.
ID_SHARE = 0.5
#: Rows a model is trained on, at most (a seeded draw beyond).
MAX_FIT_ROWS = 20_000
#: The value that stands for a text column's less frequent values in the models.
OTHER = "(other values)"

_METRICS = {
    "binary": ["roc_auc", "pr_auc"],
    "multiclass": ["f1_macro", "f1_weighted", "accuracy"],
    "regression": ["r2"],
}
_NAMES = {"roc_auc": "ROC-AUC", "pr_auc": "PR-AUC", "f1_macro": "macro F1",
          "f1_weighted": "weighted F1", "accuracy": "accuracy", "r2": "R²"}
#: The margin above chance (0.5) by which a model's real-to-real ROC-AUC must
#: exceed it for the real data to show signal: a synthetic-to-real ROC-AUC at
#: or below chance is flagged only then (on data with no signal, chance is
#: what the real data gives too).
SIGNAL_MARGIN = 0.05
BELOW_CHANCE = ("at or below chance while the real data shows signal (real->real ROC-AUC "
                f"{0.5 + SIGNAL_MARGIN:.2f} or more): the synthetic table's relation between "
                "features and target is inverted or absent")


def default_models(task, random_state=0):
    """The two models of :func:`evaluate_tables` by default: a linear one and boosting
    (histogram gradient boosting, whose time grows with the rows, not their values)."""
    if task == "regression":
        return {"ridge regression": Ridge(),
                "gradient boosting": HistGradientBoostingRegressor(random_state=random_state)}
    return {"logistic regression": LogisticRegression(max_iter=1000),
            "gradient boosting": HistGradientBoostingClassifier(random_state=random_state)}


class _Progress:
    """One line a step on standard error, with the seconds since the start
    (when ``verbose`` > 0): ``evaluate: syn->real, gradient boosting (at 3 s)``."""

    def __init__(self, verbose):
        self.verbose, self.start = verbose, time.perf_counter()

    def __call__(self, step):
        if self.verbose:
            print(f"evaluate: {step} (at {time.perf_counter() - self.start:.0f} s)",
                  file=sys.stderr, flush=True)


@dataclass
class TableEvaluation:
    """What :func:`evaluate_tables` found: utility, fidelity and notes.

    Attributes
    ----------
    target : str or None
        The target column (None: fidelity only).
    task : {"binary", "multiclass", "regression"} or None
    metrics : list of str
        Score columns; the first is the headline metric.
    target_rule : str
        Why the target gives this task and metric.
    classes : list of str or None
        The classes (text keys), the positive class last for a binary task.
    reference : str
        How the real-to-real scores were computed.
    synthetic_to_real, real_to_real : DataFrame or None
        Scores per model (and their ``"mean"`` row) of models trained on
        the synthetic table, or on real data, and tested on the real test
        table.
    tv : dict
        ``{1: mean 1-way TV, 2: mean 2-way TV or None}``.
    tv_columns : dict
        Column -> its 1-way TV distance.
    point_masses : list of dict
        The point masses (values held by at least ``POINT_SHARE`` of the
        real test table's rows) whose synthetic share is off the real one
        by at least ``POINT_GAP`` of it: ``{"column", "value", "real",
        "synthetic"}``, the shares of the rows.
    kinds : dict
        Column -> the kind it was read as.
    rows : dict
        Row counts of the tables (``"train"``: None without one).
    notes : list of str
    skipped : dict
        Column -> why it is in neither the models nor the marginals.
    """

    target: object
    task: str
    metrics: list
    target_rule: str
    classes: list
    reference: str
    synthetic_to_real: pd.DataFrame
    real_to_real: pd.DataFrame
    tv: dict
    tv_columns: dict
    kinds: dict
    rows: dict
    notes: list = field(default_factory=list)
    skipped: dict = field(default_factory=dict)
    point_masses: list = field(default_factory=list)

    @property
    def metric(self):
        """The headline metric (``"roc_auc"``, ``"f1_macro"`` or ``"r2"``), or None."""
        return self.metrics[0] if self.metrics else None

    def below_chance(self):
        """Models whose synthetic-to-real ROC-AUC is at or below chance (0.5) while
        their real-to-real one shows signal (``0.5 + SIGNAL_MARGIN`` or more).

        A model whose real-to-real score is at chance too (no signal in the
        real data, or none it finds) is not flagged.
        """
        if self.metric != "roc_auc" or self.synthetic_to_real is None:
            return []
        scores = self.synthetic_to_real["roc_auc"].drop("mean")
        real = self.real_to_real["roc_auc"].reindex(scores.index)
        return scores.index[(scores <= 0.5) & (real >= 0.5 + SIGNAL_MARGIN)].tolist()

    def to_dict(self):
        """Everything as JSON-ready Python objects (NaN as None).

        ``"models"`` maps each model, then ``"mean"``, to its scores.
        """
        def number(x):
            return None if x is None or not math.isfinite(x) else float(x)

        models = {}
        if self.synthetic_to_real is not None:
            for name in self.synthetic_to_real.index:  # the models, then "mean"
                models[name] = {
                    "synthetic_to_real": {m: number(v) for m, v in
                                          self.synthetic_to_real.loc[name].items()},
                    "real_to_real": {m: number(v) for m, v in
                                     self.real_to_real.loc[name].items()},
                    "below_chance": name in self.below_chance(),
                }
        return {
            "note": PRIVACY_NOTE,
            "rows": dict(self.rows),
            "target": None if self.target is None else {
                "column": self.target, "task": self.task, "classes": self.classes,
                "rule": self.target_rule},
            "metric": self.metric,
            "metric_name": _NAMES.get(self.metric),
            "metrics": list(self.metrics),
            "real_to_real": self.reference,
            "models": models,
            "fidelity": {"tv_1way": number(self.tv[1]), "tv_2way": number(self.tv[2]),
                         "tv_1way_columns": {str(c): number(v)
                                             for c, v in self.tv_columns.items()},
                         "bins": TV_BINS,
                         "point_masses": [{"column": str(p["column"]), "value": p["value"],
                                           "real": p["real"], "synthetic": p["synthetic"]}
                                          for p in self.point_masses]},
            "kinds": {str(c): k for c, k in self.kinds.items()},
            "skipped": {str(c): why for c, why in self.skipped.items()},
            "notes": list(self.notes),
        }

    def __str__(self):
        lines = ["Reads the real table as the data holder's; not a private release.",
                 f"Rows: real test {self.rows['real']}, synthetic {self.rows['synthetic']}"
                 + ("" if self.rows["train"] is None else f", real train {self.rows['train']}")
                 + "."]
        by_kind = {}
        for col, kind in self.kinds.items():
            by_kind.setdefault(kind, []).append(str(col))
        lines.append("Columns read as " + "; ".join(
            f"{kind}: {', '.join(cols)}" for kind, cols in by_kind.items()) + ".")
        lines += [f"Skipped {col!r}: {why}." for col, why in self.skipped.items()]
        if self.target is not None:
            lines += [f"Target {self.target!r}: {self.target_rule}",
                      self._utility_text(), f"real->real: {self.reference}"]
            if self.below_chance():
                lines.append(f"(!) {BELOW_CHANCE}.")
        lines += [f"Note: {note}" for note in self.notes]
        lines.append(
            "Fidelity: total-variation distance of the marginals, real test vs synthetic "
            f"(0 same, 1 disjoint; numeric and date columns in {TV_BINS} bins from the "
            "schema's bounds or the real table's quantiles, a value held by "
            f"{POINT_SHARE:.0%} of the real rows or more and missing values cells of their "
            "own)")
        worst = sorted(self.tv_columns.items(), key=lambda kv: -kv[1])[:3]
        if worst:
            lines.append(f"  1-way: {self.tv[1]:.4f} (largest: "
                         + ", ".join(f"{c} {v:.3f}" for c, v in worst) + ")")
        for p in self.point_masses:
            lines.append(f"  (!) point mass of {p['column']!r} lost: {p['value']} in "
                         f"{p['real']:.1%} of the real rows, {p['synthetic']:.1%} of the "
                         "synthetic ones")
        if self.tv[2] is not None:
            lines.append(f"  2-way: {self.tv[2]:.4f}")
        return "\n".join(lines)

    def _utility_text(self):
        table = pd.DataFrame(index=self.synthetic_to_real.index)
        # the headline metric and the last one (the JSON has them all)
        for m in dict.fromkeys(self.metrics[:1] + self.metrics[-1:]):
            table[f"{_NAMES[m]} syn->real"] = self.synthetic_to_real[m]
            table[f"{_NAMES[m]} real->real"] = self.real_to_real[m]
        flagged = set(self.below_chance())
        table.index = [f"{name} (!)" if name in flagged else name for name in table.index]
        text = table.to_string(float_format=lambda x: f"{x:.3f}", na_rep="n/a")
        return ("Utility: models trained on the synthetic table (syn->real) or on real data "
                "(real->real), tested on the real test table\n"
                + "\n".join("  " + line for line in text.splitlines()))


def _read(frames, schema, columns):
    """Every column of every table read as the first table reads it."""
    kinds, bounds, out = {}, {}, [{} for _ in frames]
    for col in columns:
        spec = schema.get(col)
        first = read_column(frames[0][col], spec, key=col)
        kinds[col], bounds[col] = first.kind, first.bounds
        out[0][col] = first.values
        for i, frame in enumerate(frames[1:], 1):
            out[i][col] = read_column(frame[col], spec, kind=first.kind, key=col).values
    return kinds, bounds, [pd.DataFrame(o, index=range(len(f))) for o, f in zip(out, frames)]


def _target(frames, spec, col):
    """The task, the rule's sentence, the classes and every table's labels."""
    kind = read_column(frames[0][col], spec, key=col).kind
    if kind_of(kind).is_bounded:
        values = [read_column(f[col], spec, kind=kind, key=col).values for f in frames]
        distinct = len(np.unique(values[0][~np.isnan(values[0])]))
        if distinct > MAX_CLASSES:
            rule = (f"{kind}, {distinct} distinct values in the real test table (more than "
                    f"{MAX_CLASSES}) -> regression, metric R²")
            return "regression", rule, None, values
    source = "the schema" if spec and spec.get("categories") else "the real test table"
    if kind_of(kind).is_bounded:  # few values: read as categories
        kind = "categorical"
    first = read_column(frames[0][col], spec, kind=kind, key=col)
    classes = first.levels[:len(spec["categories"])] if source == "the schema" else first.levels
    labels = [first.values] + [read_column(f[col], spec, kind=kind, key=col).values
                               for f in frames[1:]]
    if len(classes) < 2:
        raise ValueError(f"The target {col!r} holds a single class in {source}: "
                         "no model can be scored.")
    if len(classes) == 2:
        task = "binary"
        rule = (f"2 classes: {', '.join(classes)} (from {source}) -> metric ROC-AUC, also "
                f"PR-AUC; positive class {classes[-1]}")
    else:
        task = "multiclass"
        rule = (f"{len(classes)} classes (from {source}) -> metric macro F1 (the mean of the "
                "classes' F1 scores), also weighted F1 and accuracy")
    return task, rule, classes, labels


def _capped(X, y, random_state):
    """A table and its labels, at most ``MAX_FIT_ROWS`` rows of them (a seeded draw)."""
    if len(X) <= MAX_FIT_ROWS:
        return X, y
    rows = np.sort(np.random.default_rng(random_state).choice(len(X), MAX_FIT_ROWS,
                                                              replace=False))
    return X.iloc[rows].reset_index(drop=True), y[rows]


def _scores(task, models, X_train, y_train, X_test, y_test, classes, progress, step,
            random_state):
    """Each model trained on one table (at most ``MAX_FIT_ROWS`` of its rows) and tested
    on another, announced one by one, on one thread (as fast on an idle machine at
    these sizes, and several times faster on a loaded one: 2 s against 7 s for
    gradient boosting on 13,000 Adult rows with other work on both cores)."""
    X_train, y_train = _capped(X_train, y_train, random_state)
    rows = []
    for name, model in models.items():
        progress(f"{step}, {name} ({len(X_train)} training rows)")
        one = {name: model}
        with threadpool_limits(1):
            if task == "regression":
                table = regression_utility(X_train, y_train, X_test, y_test, models=one)
            else:
                table = downstream_utility(X_train, y_train, X_test, y_test, models=one,
                                           classes=classes, pos_label=classes[-1])
        rows.append(table.loc[name].to_dict())
    return score_table(rows, models, _METRICS[task])


def _cross_validated(task, models, X, y, classes, random_state, notes, progress):
    """Mean scores over folds of the real test table (folds that cannot be scored skipped)."""
    if task == "regression":
        folds = KFold(N_FOLDS, shuffle=True, random_state=random_state).split(X)
    else:
        folds = StratifiedKFold(N_FOLDS, shuffle=True, random_state=random_state).split(X, y)
    tables = []
    for k, (train, test) in enumerate(folds, 1):
        try:
            tables.append(_scores(task, models, X.iloc[train], y[train], X.iloc[test],
                                  y[test], classes, progress,
                                  f"real->real, fold {k} of {N_FOLDS}", random_state))
        except ValueError:  # a test fold of a single class: ROC-AUC undefined
            continue
    if len(tables) < N_FOLDS:
        notes.append(f"real->real: {N_FOLDS - len(tables)} of {N_FOLDS} folds could not be "
                     "scored (a fold with a single class) and were left out.")
    if not tables:
        return score_table([{m: np.nan for m in _METRICS[task]} for _ in models], models,
                           _METRICS[task])
    return sum(tables) / len(tables)


def _screen(kinds, real, target):
    """``(skipped, folded)`` from the real test table's text columns (the target
    aside) with more than ``MAX_LEVELS`` distinct values: skipped, column -> why,
    when at least ``ID_SHARE`` of its rows are distinct (an identifier or free
    text); else folded, column -> ``(distinct, the MAX_LEVELS most frequent)``."""
    skipped, folded = {}, {}
    for col, kind in kinds.items():
        if not kind_of(kind).has_categories or col == target:
            continue
        counts = real[col].value_counts()  # missing values aside, most frequent first
        if len(counts) <= MAX_LEVELS:
            continue
        if len(counts) >= ID_SHARE * counts.sum():
            skipped[col] = (f"{len(counts)} distinct values in {int(counts.sum())} rows of "
                            "the real test table, an identifier or free text: in neither "
                            "the models nor the marginals")
        else:
            folded[col] = (len(counts), counts.index[:MAX_LEVELS].tolist())
    return skipped, folded


def _folded(frame, folded):
    """A table whose folded columns keep their most frequent values, the others ``OTHER``."""
    frame = frame.copy()
    for col, (_, kept) in folded.items():
        values = frame[col]
        frame[col] = values.where(values.isin(kept) | values.isna(), OTHER)
    return frame


def evaluate_tables(real, synthetic, *, target=None, train=None, schema=None, models=None,
                    random_state=0, verbose=0):
    """Utility and fidelity of a synthetic table, next to real data's (not for release).

    Reads every column of every table the way a synthesizer reads it
    (:func:`skdpgen.schema.read_column`: text, numbers, dates, booleans and
    missing values in any form), then scores models trained on the
    synthetic table and tested on the real test table (synthetic->real)
    next to the same models trained on real data (real->real), with the
    same metric, and the total-variation distance of the 1- and 2-way
    marginals. It reads the real tables exactly, as the data holder: the
    result is a diagnostic, not a private release. Its time grows with the
    rows, not with the values a column holds (see Notes).

    Parameters
    ----------
    real : DataFrame
        The real test table (held out from the synthesizer's fit).
    synthetic : DataFrame
        The synthetic table, with the same columns (in any order).
    target : str, default=None
        The target column; None: fidelity only.
    train : DataFrame, default=None
        The real training table (the one the synthesizer was fitted on):
        real->real models are trained on it. Without it, real->real is a
        stratified (for classes) 5-fold cross-validation on the real test
        table (shuffled with ``random_state``), the mean over the folds.
    schema : dict, default=None
        Public column specs (complete or type-only): a declared column is
        read as its type, a numeric or datetime column with bounds is
        binned within them, and a declared categorical target gives the
        class list. Other columns are read as the kind their values' exact
        canonical forms give in the real test table, and binned at its
        quantiles.
    models : None, "paper" or dict, default=None
        None: logistic regression (``max_iter=1000``) and gradient boosting
        (:class:`~sklearn.ensemble.HistGradientBoostingClassifier`; ridge
        regression and
        :class:`~sklearn.ensemble.HistGradientBoostingRegressor` for a
        regression target).
        ``"paper"``: the DP-HP paper's twelve classifiers
        (:func:`paper_models`; a regression target keeps the default
        regressors). A dict maps names to unfitted estimators.
    random_state : int, default=0
        Seeds the models, the folds, the draw of column pairs and of
        training rows, so that a table gives the same numbers on every run.
    verbose : int, default=0
        When > 0, one line a step on standard error (reading, marginals,
        each model on each table or fold), with the seconds since the start.

    Returns
    -------
    evaluation : TableEvaluation
        ``str(evaluation)`` is the text report, ``evaluation.to_dict()``
        its JSON-ready content.

    Raises
    ------
    ValueError
        When the tables' columns differ, a table has no row, the target is
        not a column, or the target holds a single class.

    See Also
    --------
    downstream_utility : Train on synthetic, test on real, for arrays.
    marginal_tv_distance : Fidelity of low-order marginals.

    Notes
    -----
    **Metric.** A categorical or bool target, or a numeric (datetime) one
    with at most 10 distinct values in the real test table, is a class
    label; its classes are the schema's categories if declared, else the
    values of the real test table. Two classes: ROC-AUC (headline) and
    PR-AUC, the positive class the last in key order (``1``, ``"yes"``,
    ``True``); more: macro F1 (headline), weighted F1 and accuracy. A
    numeric target with more than 10 distinct values: R². Rows whose
    target is missing are left out. A synthetic table of a single class
    trains no classifier: its synthetic->real scores are not computable
    (NaN), with a note.

    **Cost.** A text column with more than 30 distinct values in the real
    test table is, when at least half of its rows are distinct, an
    identifier or free text: skipped (in neither the models nor the
    marginals, and named in ``skipped``); otherwise the models see its 30
    most frequent values there and the others as one value (the marginals
    compare them all). A model is trained on at most 20,000 rows of a table
    (a seeded draw). Each is said in ``notes``.

    **Marginals.** A numeric or datetime column is compared in ``TV_BINS``
    bins (equal-width within declared bounds, else at the real test table's
    quantiles), plus a cell of its own for each value that holds at least
    ``POINT_SHARE`` (5 %) of the real test table's rows (a point mass: the
    zeros of a capital gain, a round 40 hours a week) and one for missing
    values. A point mass whose synthetic share differs from the real one by
    half of it or more is named in the report (``point_masses``): bins
    alone would put 0 and the small values beside it in one cell and miss
    a synthesizer that spread the zeros over that bin.

    **Encoding.** Numeric columns are numbers (text that is no number
    counts as missing), dates are days since 1970, categorical and bool
    columns are one-hot encoded with missing values a category of their own
    (values absent from the training table encoded as all zeros); numeric
    missing values are imputed with the training median, plus a
    missing-indicator column (see :func:`downstream_utility`).

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from skdpgen.evaluation import evaluate_tables
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=200)
    >>> real = pd.DataFrame({"x": np.where(x > 1.5, np.nan, x),
    ...                      "day": pd.date_range("2024-01-01", periods=200).astype(str),
    ...                      "y": np.where(x + rng.normal(size=200) > 0, "yes", "no")})
    >>> synthetic = real.sample(frac=1.0, random_state=1)
    >>> result = evaluate_tables(real, synthetic, target="y")
    >>> result.metric, result.kinds
    ('roc_auc', {'x': 'numeric', 'day': 'datetime', 'y': 'categorical'})
    >>> result.tv[1]
    0.0
    >>> sorted(result.to_dict())[:4]
    ['fidelity', 'kinds', 'metric', 'metric_name']
    """
    schema = {c: s for c, s in dict(schema or {}).items() if s and s.get("type") is not None}
    real_f, syn_f = paired_frames(real, synthetic, names=("real", "synthetic"))
    frames = [real_f.reset_index(drop=True), syn_f.reset_index(drop=True)]
    if train is not None:
        frames.append(paired_frames(real_f, train, names=("real", "train"))[1]
                      .reset_index(drop=True))
    if min(len(f) for f in frames) == 0:
        raise ValueError("Every table needs at least one row.")
    columns = list(real_f.columns)
    if target is not None and target not in columns:
        raise ValueError(f"The target column {target!r} is not in the tables.")
    progress = _Progress(verbose)
    progress(f"reading {len(frames)} tables of {len(columns)} columns")
    kinds, bounds, read = _read(frames, schema, columns)
    skipped, folded = _screen(kinds, read[0], target)
    notes = [f"{col!r} has {d} distinct values in the real test table: the models see its "
             f"{MAX_LEVELS} most frequent, the others as one value (the marginals compare "
             "them all)." for col, (d, _) in folded.items()]
    progress("fidelity: the 1- and 2-way marginals")
    tv, tv_columns, lost = table_fidelity(
        {c: k for c, k in kinds.items() if c not in skipped}, bounds, read[0], read[1],
        random_state)
    rows = {"real": len(frames[0]), "synthetic": len(frames[1]),
            "train": len(frames[2]) if train is not None else None}
    result = TableEvaluation(target, None, [], "", None, "", None, None, tv, tv_columns,
                             kinds, rows, notes, skipped, lost)
    if target is not None:
        read = [_folded(r.drop(columns=list(skipped)), folded) for r in read]
        _utility(result, frames, read, schema.get(target), models, random_state, progress)
    progress("done")
    return result


def _utility(result, frames, read, spec, models, random_state, progress):
    """Fill in ``result``'s task, metrics, classes and scores (syn->real, real->real)."""
    target, notes = result.target, result.notes
    task, rule, classes, labels = _target(frames, spec, target)
    keep = [~pd.isna(y) for y in labels]
    if sum(int((~k).sum()) for k in keep):
        notes.append("rows whose target is missing were left out: "
                     + ", ".join(f"{name} {int((~k).sum())}" for name, k in
                                 zip(("real test", "synthetic", "real train"), keep)) + ".")
    X = [r.drop(columns=target)[k].reset_index(drop=True) for r, k in zip(read, keep)]
    y = [np.asarray(lab[k]) for lab, k in zip(labels, keep)]
    models = _models(task, models, random_state, notes)
    fits = [len(X[1])] + ([len(X[2])] if len(X) > 2 else [len(X[0]) * (N_FOLDS - 1) // N_FOLDS])
    if max(fits) > MAX_FIT_ROWS:
        notes.append(f"models were trained on at most {MAX_FIT_ROWS} rows of a table (a "
                     "seeded draw of its rows), to bound the time.")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        if task != "regression" and len(pd.unique(y[1])) < 2:
            notes.append(f"the synthetic table has one class "
                         f"({', '.join(map(str, pd.unique(y[1])))}): no model can be "
                         "trained, synthetic->real is not computable.")
            syn = score_table([{m: np.nan for m in _METRICS[task]} for _ in models], models,
                              _METRICS[task])
        else:
            syn = _scores(task, models, X[1], y[1], X[0], y[0], classes, progress,
                          "syn->real", random_state)
        if len(X) > 2:
            reference = (f"trained on the real training table ({len(X[2])} rows), tested on "
                         "the real test table.")
            ref = _scores(task, models, X[2], y[2], X[0], y[0], classes, progress,
                          "real->real", random_state)
        else:
            reference = (f"{N_FOLDS}-fold cross-validation on the real test table "
                         f"({'stratified, ' if task != 'regression' else ''}shuffled the "
                         "same way on every run; mean over the folds), as no real training "
                         "table was given.")
            ref = _cross_validated(task, models, X[0], y[0], classes, random_state, notes,
                                   progress)
    if any(issubclass(w.category, ConvergenceWarning) for w in caught):
        notes.append("some models stopped before converging; their scores are as "
                     "fitted.")
    result.task, result.metrics, result.target_rule = task, _METRICS[task], rule
    result.classes, result.reference = classes, reference
    result.synthetic_to_real, result.real_to_real = syn, ref[syn.columns]


def _models(task, models, random_state, notes):
    """The models ``models`` names (None: the defaults; "paper": the paper's classifiers)."""
    if models == "paper":
        if task != "regression":
            return paper_models(random_state)
        notes.append("the paper's models are classifiers: the default regressors were used.")
        return default_models(task, random_state)
    return default_models(task, random_state) if models is None else models
