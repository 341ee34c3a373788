"""Command line interface: ``skdpgen`` / ``python -m skdpgen``.

Commands
--------
``skdpgen synthesize data.csv --target income --epsilon 1 --schema schema.json --out syn.csv``
    Fit a private synthesizer and write synthetic rows, plus the privacy
    report next to them (``syn.privacy.json`` and ``syn.privacy.txt``), which
    says whether the run is private (``is_private``) and lists every value
    read from the data without noise (``leaks``). With ``--strict`` any leak
    is an error and nothing is written.
``skdpgen schema data.csv --out schema.json``
    Write a schema template from the column names and types only (no values):
    fill in the public bounds and categories before use.
``skdpgen evaluate test.csv synthetic.csv --target income [--train train.csv] [--json]``
    Print utility (train on synthetic, test on real, next to train on real)
    and fidelity tables: a data holder's diagnostic, not a private release.
``skdpgen demo``
    Synthesize the bundled UCI Adult data at ε = 1 and report.

User mistakes end with one line on standard error and exit status 2; a
command that fails writes no file.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import contextlib
import json
import os
import sys
import tempfile
import time
import warnings
from pathlib import Path

from . import _cli_options
from ._cli_options import MULTILINE, type_words

__all__ = ["main"]


class UsageError(Exception):
    """A mistake of the user's, reported in one line."""


def _read_table(path, multiline=False):
    """A table from a CSV or Parquet file; CSV cells as text, one record per line (see
    :mod:`skdpgen._records`), none typed by pandas (its guess depends on private values)."""
    import pandas as pd

    from ._records import read_records

    path = Path(path)
    if not path.exists():
        raise UsageError(f"no such file: {path}")
    if path.suffix.lower() in {".parquet", ".pq"}:
        try:
            return pd.read_parquet(path)
        except ImportError as exc:
            raise UsageError(f"reading Parquet needs pyarrow or fastparquet ({exc})") from None
    try:
        return read_records(path, multiline=multiline)
    except ValueError as exc:  # the header's problems (public): no data line raises
        raise UsageError(f"cannot read {path} as CSV: {exc}") from None


class _Frames(list):
    """A table in memory as a source of blocks (one block): a Parquet file's."""

    def __init__(self, frame):
        super().__init__([frame])
        self.columns = list(frame.columns)
        self.n_rows = len(frame)


def _private_source(path, multiline=False):
    """The private table as blocks of rows read one at a time: a CSV file's
    records (:class:`skdpgen._records.RecordBlocks`, a pass each time a fit
    sums over them: the table is never held), or a Parquet file read whole."""
    from ._records import RecordBlocks

    path = Path(path)
    if not path.exists():
        raise UsageError(f"no such file: {path}")
    if path.suffix.lower() in {".parquet", ".pq"}:
        return _Frames(_read_table(path))
    try:
        return RecordBlocks(path, multiline=multiline)
    except ValueError as exc:  # the header's problems (public): no data line raises
        raise UsageError(f"cannot read {path} as CSV: {exc}") from None


def _read_private(args):
    """``(source, leaks)``: the table's blocks (:func:`_private_source`) and the leak of
    --multiline-records (an error with --strict)."""
    from .privacy import record_leak

    why = f"--multiline-records: {MULTILINE}"
    if args.multiline_records and getattr(args, "strict", False):
        raise UsageError(f"--strict: {why}")
    leaks = [record_leak("records", why)] if args.multiline_records else []
    return _private_source(args.data, multiline=args.multiline_records), leaks


def _columns_of_fit(source, args):
    """``(X, y, columns)`` of the fit: the feature columns and labels as blocks of
    ``source`` (:func:`~skdpgen.schema._rows.split_blocks`), and the columns written
    (the target included), in the file's order. Decided from the header alone."""
    from .schema._rows import split_blocks

    columns = list(source.columns)
    index, note = _index_column(columns, getattr(args, "keep_index", True))
    if note:
        print(note, file=sys.stderr)
    if args.target is not None and args.target not in columns:
        raise UsageError(f"target column {args.target!r} is not in the data")
    dropped = index + _dropped_columns(columns, index, getattr(args, "drop", None),
                                       args.target)
    X, y = split_blocks(source, args.target, drop=dropped)
    return X, y, [c for c in columns if c not in dropped]


def _with_leaks(report, leaks):
    """A fit's privacy report with the leaks of reading its table added, every leak
    explained in the command line's words (its remedy an option, not a parameter)."""
    leaks = [*leaks, *([] if report is None else report.leaks)]
    return report if report is None or not leaks else type(report)(
        report.releases, report.delta, budget=report.budget,
        leaks=[leak.worded("cli") for leak in leaks], reproducible=report.reproducible,
        selections=report.selections)


def _write_table(frame, path):
    path = Path(path)
    if path.suffix.lower() in {".parquet", ".pq"}:
        try:
            frame.to_parquet(path, index=False)
        except ImportError as exc:
            raise UsageError(f"writing Parquet needs pyarrow or fastparquet ({exc})") from None
    else:
        frame.to_csv(path, index=False)


def _check_destinations(*paths):
    """Usage errors for output paths that cannot be written, before any fit spends."""
    for path in map(Path, paths):
        if not path.parent.is_dir():
            raise UsageError(f"no such directory: {path.parent}")
        if path.is_dir():
            raise UsageError(f"{path} is a directory")


@contextlib.contextmanager
def _all_or_nothing():
    """Stage output files; move them into place only if the whole command succeeds.

    Yields a function ``stage(path, write)`` that calls ``write(tmp_path)``
    on a temporary file in the destination folder. If anything fails —
    writing, or moving the files into place — every temporary file is
    removed and every destination is as it was before (a file that existed
    is restored, a new one removed).
    """
    staged = []

    def stage(path, write):
        path = Path(path)
        _check_destinations(path)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=path.suffix)
        os.close(fd)
        staged.append((Path(tmp), path))
        write(Path(tmp))

    def discard():
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)

    try:
        yield stage
    except BaseException:
        discard()
        raise
    backups, moved = [], []
    try:
        for _, path in staged:  # keep what the destinations held, to restore it
            if path.is_dir():
                raise UsageError(f"{path} is a directory")
            if path.exists():
                fd, backup = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.bak.")
                os.close(fd)
                os.replace(path, backup)
                backups.append((Path(backup), path))
        for tmp, path in staged:
            os.replace(tmp, path)
            moved.append(path)
    except BaseException:
        for path in moved:
            path.unlink(missing_ok=True)
        for backup, path in backups:
            os.replace(backup, path)
        discard()
        raise
    for backup, _ in backups:
        backup.unlink(missing_ok=True)


def _read_schema(path):
    from .schema._text import schema_types

    if path is None:
        return {}
    try:
        with open(path) as fh:
            schema = json.load(fh)
    except FileNotFoundError:
        raise UsageError(f"no such schema file: {path}") from None
    except json.JSONDecodeError as exc:
        raise UsageError(f"schema {path} is not valid JSON: {exc}") from None
    if not isinstance(schema, dict):
        raise UsageError(f"schema {path} must be a JSON object of column -> description")
    # an entry of a template whose type is left unfilled counts as not given;
    # one with a type but no bounds (categories) declares the column's kind only
    clean = {}
    for col, spec in schema.items():
        if not isinstance(spec, dict) or "type" not in spec:
            raise UsageError(f"schema entry {col!r} must be an object with a 'type'")
        if spec["type"] is None:
            continue
        if spec["type"] not in schema_types():
            raise UsageError(f"schema {path}, entry {col!r}: unknown type {spec['type']!r} "
                             f"(one of {type_words()})")
        # keys starting with "_" are notes (the refusal's template writes them)
        clean[col] = {k: v for k, v in spec.items() if v is not None and not k.startswith("_")}
    return clean


def _show_privacy_warnings():
    from .privacy import PrivacyLeakWarning

    def show(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, PrivacyLeakWarning):
            if isinstance(message, PrivacyLeakWarning):  # its remedy in the command line's words
                message = message.explain("cli")
            print(f"skdpgen: PRIVACY WARNING: {message}", file=sys.stderr)
        elif not issubclass(category, (DeprecationWarning, FutureWarning)):
            print(f"skdpgen: warning: {message}", file=sys.stderr)

    warnings.showwarning = show


def _round_integer_columns(frame, schema):
    """Declared integer columns rounded to int64 (the public output type)."""
    import numpy as np

    for col, spec in schema.items():
        if col in frame and spec["type"] == "numeric" and spec.get("integer"):
            frame[col] = np.round(frame[col].to_numpy(dtype=float)).astype(np.int64)
    return frame


#: Headers pandas and R give an unnamed leading column of row numbers.
_INDEX_HEADERS = ("", "Unnamed: 0")


def _index_column(columns, keep):
    """``(dropped, note)``: an unnamed leading column of row numbers, dropped.

    Decided from the header alone (public): the first column's header is
    empty (``Unnamed: 0`` once pandas has read it), as R's ``write.csv``
    and pandas' ``to_csv`` write a row index. Its values are never looked
    at: a column of data under an empty header is dropped too, with the
    same note, and ``--keep-index`` keeps it as data.
    """
    first = str(columns[0]) if columns else None
    if keep or first not in _INDEX_HEADERS or len(columns) < 2:
        return [], None
    return [columns[0]], (
        "skdpgen: note: the first column has no header, as a row index written by R or "
        "pandas; it is not synthesized (--keep-index keeps it as data).")


def _dropped_columns(columns, index, text, target):
    """The columns ``--drop`` names (by header: public), checked."""
    names = _comma_list(text or "")
    missing = [c for c in names if c not in columns]
    if missing:
        raise UsageError(f"--drop names columns that are not in the data: {missing}")
    if target in names:
        raise UsageError(f"--drop names the target {target!r}")
    left = [c for c in columns if c not in index and c not in names and c != target]
    if not left:
        raise UsageError("--drop names every column but the target")
    return [c for c in names if c not in index]


def _comma_list(text):
    """The non-empty, stripped items of a comma-separated option."""
    return [c.strip() for c in text.split(",") if c.strip()]


def _classes_option(text):
    if text is None:
        return None
    classes = _comma_list(text)
    if not classes:
        raise UsageError("--classes needs a comma-separated list of labels")
    if len(set(classes)) != len(classes):
        raise UsageError("--classes lists a label twice")
    return classes


def _template_path(data):
    path = Path(data)
    return path.with_name(f"{path.stem}.schema.json")


def _build(cls, *, columns, schema, classes, labeled, random_state, device, verbose,
           infer_schema="private", schema_share="auto", allow_guesses=True):
    """The estimator ``--method`` names, built from the command's options.

    A registered class (:mod:`skdpgen.registry`) gets each option its
    constructor takes, under the parameter of the same name (``schema``,
    ``classes``, ``random_state``, ``device``, ``verbose``, ``infer_schema``,
    ``schema_share``; ``--allow-guesses`` as ``on_guess``). The releaser
    (``release``) takes the schema's bounds instead, for unlabeled numeric
    columns only. A table the method cannot take is a ``ValueError`` with a
    one-line reason (the command's usage error).
    """
    import numpy as np

    from .release import DPKMEReleaser

    if labeled and not cls.supports_labels:
        raise ValueError(f"--method {_name_of(cls)} releases unlabeled numeric data; drop "
                         "--target")
    if issubclass(cls, DPKMEReleaser):
        bounds = [schema.get(c, {}).get("bounds") for c in columns]
        if any(b is None for b in bounds):
            raise ValueError("--method release needs public bounds for every column in "
                             "--schema")
        lo, hi = np.array([b[0] for b in bounds]), np.array([b[1] for b in bounds])
        return cls(method="subspace", bounds=(lo, hi), random_state=random_state,
                   device=device)
    options = dict(schema=schema, classes=classes, random_state=random_state, device=device,
                   verbose=verbose, infer_schema=infer_schema, schema_share=schema_share,
                   on_guess="fit" if allow_guesses else "raise")
    taken = set(cls._get_param_names())
    return cls(**{k: v for k, v in options.items() if k in taken})


def _check_complete(X, y, schema, classes):
    """``--infer-schema error``: a usage error naming what the schema file leaves out
    (from the header and the file alone), in the command line's words."""
    from .private_schema import SchemaPlan

    left = SchemaPlan.from_table(X, y, schema=schema, classes=classes).missing_entries()
    if left:
        raise UsageError(
            f"--infer-schema error: the schema leaves out {left}; declare them in the "
            "--schema file (the classes with --classes a,b,c), or pass --infer-schema "
            "private (estimated with --schema-share of the budget) or data")


def _name_of(cls):
    from .registry import methods

    return next((name for name, c in methods().items() if c is cls), cls.__name__)


def _cmd_synthesize(args):
    from .privacy import PrivacyLeakWarning
    from .registry import methods
    from .schema import SchemaEstimateError, SchemaEstimateWarning, describe_issues
    from .schema._issues import is_guess

    source, leaks = _read_private(args)
    X, y, columns = _columns_of_fit(source, args)
    schema = _read_schema(args.schema)
    classes = _classes_option(args.classes)
    if classes is not None and args.target is None:
        raise UsageError("--classes needs --target")
    if args.target is not None and classes is None:
        target_spec = schema.get(args.target)
        if target_spec is not None and target_spec["type"] == "categorical":
            classes = target_spec.get("categories") or None
            if classes is not None and len(classes) < 2:
                raise UsageError(f"schema {args.schema}, entry {args.target!r}: the target "
                                 "lists a single class; list every class (or --classes a,b,c)")
    feature_schema = {c: s for c, s in schema.items() if c != args.target}
    model = _build(
        methods()[args.method], columns=list(X.columns), schema=feature_schema, classes=classes,
        labeled=args.target is not None, random_state=args.random_state,
        device=args.device, verbose=0 if args.quiet else 1, infer_schema=args.infer_schema,
        schema_share=args.schema_share, allow_guesses=args.allow_guesses)
    if args.infer_schema == "error" and "infer_schema" in model.get_params():
        _check_complete(X, y, feature_schema, classes)
    stem = Path(args.out).with_suffix("")
    json_path, txt_path = Path(f"{stem}.privacy.json"), Path(f"{stem}.privacy.txt")
    _check_destinations(args.out, json_path, txt_path)  # before the fit spends its budget
    start = time.perf_counter()
    failed = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if args.strict:  # the first leak stops the fit, before any training
            warnings.simplefilter("error", PrivacyLeakWarning)
        try:
            model.fit(X, y, epsilon=args.epsilon, delta=args.delta)
        except PrivacyLeakWarning as leak:
            raise UsageError(f"--strict: {leak.explain('cli')}") from None
        except SchemaEstimateError as exc:
            failed = exc
    for w in caught:  # the schema estimate's summary is worded for the command line below
        if not (issubclass(w.category, SchemaEstimateWarning) and w.message.issues):
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    seconds = time.perf_counter() - start
    if failed is not None:
        issues = failed.issues or [{"column": None, "problem": "classes", "share": None,
                                    "detail": str(failed)}]
        report = _with_leaks(failed.report, leaks)
        return _refuse(args, columns, failed.schema, failed.classes, issues, report)
    issues = list(getattr(model, "schema_issues_", []))
    report = _with_leaks(model.privacy_report_, leaks)
    if any(map(is_guess, issues)) and not args.allow_guesses:
        classes = getattr(model, "classes_", None)
        if classes is not None:  # the class of missing labels is no class to declare
            classes = [c for c in classes if c != getattr(model, "missing_label_", None)]
        return _refuse(args, columns, model.schema_, classes, issues, report)
    if args.strict and not report.is_private:  # leaks recorded without a warning
        reasons = "; ".join(map(str, report.leaks)) or "the fit is not private"
        raise UsageError(f"--strict: {reasons}")
    n_rows = source.n_rows  # counted by the fit's passes over the file
    n = n_rows if args.n_samples is None else args.n_samples
    out = model.sample(n, random_state=args.random_state)
    Xs, ys = out if isinstance(out, tuple) else (out, None)  # a releaser samples rows only
    if args.target is not None:
        out = Xs.assign(**{args.target: ys})[columns]
    elif not hasattr(Xs, "columns"):
        import pandas as pd

        out = _round_integer_columns(pd.DataFrame(Xs, columns=list(X.columns)), feature_schema)
    else:
        out = Xs
    with _all_or_nothing() as stage:
        stage(args.out, lambda p: _write_table(out, p))
        stage(json_path, lambda p: p.write_text(json.dumps(report.to_dict(), indent=2) + "\n"))
        stage(txt_path, lambda p: p.write_text(str(report) + "\n"))
    print(f"{type(model).__name__} fitted on {n_rows} rows in {seconds:.1f} s; "
          f"{n} synthetic rows written to {args.out}")
    print(report)
    print(f"Privacy report saved to {json_path} and {txt_path}")
    if issues:  # weak spots, or guesses written with --allow-guesses: the summary
        how = "written with --allow-guesses; " if any(map(is_guess, issues)) else ""
        print(f"skdpgen: warning: {how}" + describe_issues(issues, "cli"), file=sys.stderr)
    if not report.is_private:
        print("skdpgen: PRIVACY WARNING: this run is NOT differentially private "
              "(see 'leaks' in the privacy report); --strict makes that an error.",
              file=sys.stderr)
    return 0


def _refuse(args, columns, schema, classes, issues, report):
    """Exit status 2, no output; the summary, and a schema template next to the input."""
    from .schema import describe_issues
    from .schema._issues import refusal_template

    template = _template_path(args.data)
    text = json.dumps(refusal_template(columns, args.target, schema or {},
                                       classes, issues), indent=2, default=str) + "\n"
    written = None
    try:
        with _all_or_nothing() as stage:
            stage(template, lambda p: p.write_text(text))
        written = template
    except (UsageError, OSError):  # a read-only folder: the summary still says what to do
        pass
    if report is not None:
        print(report)
    spent = "" if report is None else (
        f" This run spent epsilon = {report.epsilon:.3g}, delta = {report.delta:.3g} "
        "(the releases above, nothing else); a rerun spends its own budget.")
    # the last word on --allow-guesses, true of this run (never for the class list)
    liftable = not any(i["problem"] == "classes" for i in issues)
    hint = "" if args.method == "release" or (liftable and args.allow_guesses) else (
        "\n--allow-guesses writes the output anyway." if liftable else "\n--allow-guesses "
        "does not apply to the class list, which is never a guess: list every class with "
        "--classes.")
    print(f"skdpgen: refused: nothing written to {args.out}. "
          + describe_issues(issues, "cli", template=str(written) if written else None)
          + hint + spent, file=sys.stderr)
    return 2


def _cmd_schema(args):
    if args.epsilon is not None:
        return _cmd_private_schema(args)
    if args.target is not None:
        raise UsageError("--target needs --epsilon (a template has no classes)")
    source = _private_source(args.data, multiline=args.multiline_records)  # the header only
    # column names only: a type guessed from the values would be read from the rows
    template = {col: {"type": None, "bounds": None, "categories": None, "integer": None,
                      "missing": None} for col in source.columns}
    text = json.dumps(template, indent=2) + "\n"
    if args.out:
        with _all_or_nothing() as stage:
            stage(args.out, lambda p: p.write_text(text))
        print(f"Schema template with {len(template)} columns written to {args.out}. Fill in "
              f"each column's type ({type_words()}) and its public bounds "
              "or categories, from documentation, not from the rows (an entry with a type "
              "only declares the kind; the rest is estimated privately), or estimate the "
              "whole schema privately with --epsilon.")
    else:
        sys.stdout.write(text)
    return 0


def _cmd_private_schema(args):
    """``skdpgen schema data.csv --epsilon E --out schema.json``: a private schema."""
    from .private_schema import estimate_schema
    from .schema import describe_issues

    if args.out is None:
        raise UsageError("--epsilon needs --out (the schema and its privacy report)")
    source, leaks = _read_private(args)
    X, y, columns = _columns_of_fit(source, args)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        schema, classes, report = estimate_schema(X, y, epsilon=args.epsilon, delta=args.delta)
    for w in caught:  # the summary of weak entries in command-line words
        issues = getattr(w.message, "issues", None)
        if issues:
            print(f"skdpgen: warning: {describe_issues(issues, 'cli-schema')}", file=sys.stderr)
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    report = _with_leaks(report, leaks)
    if args.target is not None and len(classes) < 2:  # refused, as synthesize refuses it
        print(report)
        raise UsageError(f"refused: nothing written; the private class list of {args.target!r} "
                         "kept a single class (the report above was spent). List every class "
                         "with --classes a,b,c when you synthesize.")
    if args.target is not None:
        schema[args.target] = {"type": "categorical", "categories": list(classes)}
    schema = {c: schema[c] for c in columns}  # the file's column order
    text = json.dumps(schema, indent=2, default=str) + "\n"
    stem = Path(args.out).with_suffix("")
    json_path, txt_path = Path(f"{stem}.privacy.json"), Path(f"{stem}.privacy.txt")
    with _all_or_nothing() as stage:
        stage(args.out, lambda p: p.write_text(text))
        stage(json_path, lambda p: p.write_text(json.dumps(report.to_dict(), indent=2) + "\n"))
        stage(txt_path, lambda p: p.write_text(str(report) + "\n"))
    print(report)
    print(f"Private schema of {len(schema)} columns written to {args.out}; its privacy report "
          f"to {json_path} and {txt_path}. Fits that use it spend nothing on it: their total "
          "is the composition of both reports (skdpgen.privacy.compose_reports).")
    return 0


def _drop_index_absent_from(frame, synthetic):
    """A real table without its unnamed first column (a row index) when the synthetic
    table, written without it by ``synthesize``, lacks it."""
    first = frame.columns[0] if len(frame.columns) > 1 else None
    if first is not None and str(first) in _INDEX_HEADERS and first not in synthetic.columns:
        return frame.iloc[:, 1:]
    return frame


def _cmd_evaluate(args):
    """``skdpgen evaluate REAL_TEST SYNTHETIC``: :func:`skdpgen.evaluation.evaluate_tables`.

    Every table is read as text, each value through its canonical form
    (the synthesizer's reading); the report goes to standard output, as
    text or, with ``--json``, as one JSON object and nothing else.
    """
    from .evaluation import evaluate_tables

    real = _read_table(args.real)
    syn = _read_table(args.synthetic)
    real = _drop_index_absent_from(real, syn)
    if sorted(map(str, real.columns)) != sorted(map(str, syn.columns)):
        raise UsageError("the real and synthetic tables must have the same columns")
    train = None
    if args.train is not None:
        train = _drop_index_absent_from(_read_table(args.train), syn)
        if sorted(map(str, real.columns)) != sorted(map(str, train.columns)):
            raise UsageError("the real test and training tables must have the same columns")
    if args.target is not None and args.target not in real.columns:
        raise UsageError(f"target column {args.target!r} is not in the data")
    result = evaluate_tables(
        real, syn, target=args.target, train=train, schema=_read_schema(args.schema),
        models="paper" if args.all_models else None, random_state=0)
    if args.json:
        sys.stdout.write(json.dumps(result.to_dict(), indent=2) + "\n")
    else:
        print(result)
    return 0


def _cmd_demo(args):
    from sklearn.linear_model import LogisticRegression

    from .datasets import load_adult
    from .evaluation import downstream_utility
    from .registry import methods

    train, test = load_adult(split="train"), load_adult(split="test")
    cls = methods()[args.method]
    synth = _build(
        cls,
        columns=list(train.data.columns),
        schema=train.schema,  # public bounds and categories (adult.names)
        classes=train.target_schema["categories"],
        labeled=True,
        random_state=args.random_state,
        device=args.device,
        verbose=int(args.progress),
    )
    start = time.perf_counter()
    synth.fit(train.data, train.target, epsilon=args.epsilon, delta=args.delta)
    elapsed = time.perf_counter() - start
    X_syn, y_syn = synth.sample(len(train.data), random_state=args.random_state)
    print(f"{cls.__name__} on UCI Adult ({len(train.data)} rows) in {elapsed:.1f} s")
    print(synth.privacy_report_)
    models = {"logistic regression": LogisticRegression(max_iter=1000)}
    syn = downstream_utility(X_syn, y_syn, test.data, test.target, models=models)
    real = downstream_utility(train.data, train.target, test.data, test.target, models=models)
    lr = "logistic regression"
    print(
        "Utility (logistic regression, trained on the data named, tested on the real "
        "test split):\n"
        f"  synthetic -> real: ROC-AUC {syn.loc[lr, 'roc_auc']:.3f}, PR-AUC {syn.loc[lr, 'pr_auc']:.3f}\n"
        f"  real -> real:      ROC-AUC {real.loc[lr, 'roc_auc']:.3f}, PR-AUC {real.loc[lr, 'pr_auc']:.3f}"
    )
    if args.out:
        _write_table(X_syn.assign(income=y_syn), args.out)
        print(f"Synthetic data written to {args.out}")
    return 0


def build_parser():
    """The argument parser of the ``skdpgen`` command (:mod:`skdpgen._cli_options`)."""
    return _cli_options.build_parser({"synthesize": _cmd_synthesize, "schema": _cmd_schema,
                                      "evaluate": _cmd_evaluate, "demo": _cmd_demo})


def main(argv=None):
    """Run the command line interface; returns the exit status."""
    args = build_parser().parse_args(argv)
    _show_privacy_warnings()
    try:
        return args.func(args)
    except (UsageError, ValueError, TypeError, KeyError, OSError) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"skdpgen: error: {message}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
