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
    Synthesize the bundled UCI Adult data at ε = 1 and report, each step said
    on standard error (none with ``--quiet``).

User mistakes end with one line on standard error and exit status 2; a
command that fails writes no file.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import json
import sys
import time
import warnings
from pathlib import Path

from . import _cli_options
from ._cli_files import (
    INDEX_HEADERS,
    UsageError,
    all_or_nothing,
    check_destinations,
    columns_of_fit,
    comma_list,
    no_records,
    not_in_the_data,
    private_source,
    read_private,
    read_schema,
    read_table,
    reading,
    write_table,
)
from ._cli_notes import (classes_note, empty_note, estimate_note, far_off_lines, issues_label,
                         misfit_note, pairs_note)
from ._cli_options import type_words
from ._cli_output import progress_lines, synthetic_chunks, write_chunks

__all__ = ["main"]


def _with_leaks(report, leaks):
    """A fit's privacy report with the leaks of reading its table added, every leak
    explained in the command line's words (its remedy an option, not a parameter)."""
    leaks = [*leaks, *([] if report is None else report.leaks)]
    return report if report is None or not leaks else type(report)(
        report.releases, report.delta, budget=report.budget,
        leaks=[leak.worded("cli") for leak in leaks], reproducible=report.reproducible,
        selections=report.selections)


def _show_privacy_warnings():
    from .privacy import PrivacyLeakWarning

    def show(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, PrivacyLeakWarning):
            if isinstance(message, PrivacyLeakWarning):  # its remedy in the command line's words
                message = message.explain("cli")
            print(f"skdpgen: PRIVACY WARNING: {message}", file=sys.stderr)
        elif not issubclass(category, (DeprecationWarning, FutureWarning)):
            if hasattr(message, "explain"):  # its remedies in the command line's words
                message = message.explain("cli")
            print(f"skdpgen: warning: {message}", file=sys.stderr)

    warnings.showwarning = show


def _check_budget(args):
    """Usage errors for ``--epsilon`` and ``--delta`` in the command line's words, before
    any file is read or torch imported (the rule of
    :func:`skdpgen.privacy.check_epsilon_delta`; ``--epsilon inf``: no noise)."""
    from .privacy import check_epsilon_delta

    try:
        check_epsilon_delta(args.epsilon, 0.5, warn_infinite=False)
    except ValueError:
        raise UsageError(f"--epsilon must be a number above 0, got {args.epsilon:g}") from None
    try:
        check_epsilon_delta(1.0, args.delta)
    except ValueError:
        raise UsageError("--delta must be a number between 0 and 1 (both excluded), got "
                         f"{args.delta:g}") from None


def _classes_option(text):
    if text is None:
        return None
    classes = comma_list(text)
    if not classes:
        raise UsageError("--classes needs a comma-separated list of labels")
    if len(set(classes)) != len(classes):
        raise UsageError("--classes lists a label twice")
    return classes


def _template_path(data, target=None):
    """Where a refused run leaves its schema template: ``DATA.schema.json`` next to
    the input, ``DATA.TARGET.schema.json`` with ``--target`` (the two runs' schemas
    differ: the target's classes, or the same column as a feature), the target's
    name (public) with anything but letters, digits, ``_``, ``.`` and ``-`` as
    ``_``."""
    import re

    path = Path(data)
    if target is None:
        return path.with_name(f"{path.stem}.schema.json")
    tag = re.sub(r"[^\w.-]", "_", str(target))
    return path.with_name(f"{path.stem}.{tag}.schema.json")


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


def _display_name(model):
    """What the command line calls an estimator: its ``display_name`` (``DP-HP``), else
    its ``--method`` name."""
    return getattr(model, "display_name", None) or _name_of(type(model))


def _name_of(cls):
    return next((name for name, c in _cli_options.registered_methods().items() if c is cls),
                cls.__name__)


def _cmd_synthesize(args):
    """``skdpgen synthesize``: fit ``--method`` on the private table and write the synthetic
    rows with the privacy report, all or nothing; or refuse (exit status 2)."""
    from .schema import SchemaSizeError
    from .schema import is_guess

    _check_budget(args)  # before the data is read and torch imported
    source, leaks = read_private(args)
    X, y, columns = columns_of_fit(source, args)
    model, feature_schema = _model_of(args, X, y)
    stem = Path(args.out).with_suffix("")
    json_path, txt_path = Path(f"{stem}.privacy.json"), Path(f"{stem}.privacy.txt")
    check_destinations(args.out, json_path, txt_path)  # before the fit spends its budget
    failed = _fit(model, X, y, args)
    if isinstance(failed, SchemaSizeError):  # refused before anything was read
        return _refuse_size(args, columns, failed)
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
    chunks = synthetic_chunks(model, n, args.random_state, target=args.target, columns=columns,
                              feature_columns=list(X.columns), feature_schema=feature_schema)
    with all_or_nothing() as stage:  # sampled and written a chunk of rows at a time
        stage(args.out, lambda p: write_chunks(chunks, p))
        stage(json_path, lambda p: p.write_text(json.dumps(report.to_dict(), indent=2) + "\n"))
        stage(txt_path, lambda p: p.write_text(str(report) + "\n"))
    # no fit time: it would count the reading of every record's bytes, so one record's
    # size (a line over the limit, read through) would show in it
    print(f"{_display_name(model)} fitted on {n_rows} rows; {n} synthetic rows written to "
          f"{args.out}")
    for note in (estimate_note(model, report), classes_note(model, report, n_rows),
                 pairs_note(model), misfit_note(model)):
        if note:
            print(note)
    dropped = empty_note(model)
    if dropped:  # values dropped: said with the warnings, every column named
        print(f"skdpgen: note: {dropped}", file=sys.stderr)
    _print_outcome(report, issues, json_path, txt_path)
    for line in far_off_lines(model):  # the signal: one line per column far off
        print(f"skdpgen: warning: {line}", file=sys.stderr)
    return 0


def _target_classes(args, schema):
    """The target's classes: ``--classes``, or the categories of its schema entry, or
    None (estimated by the fit)."""
    from .schema import kind_of

    classes = _classes_option(args.classes)
    if classes is not None and args.target is None:
        raise UsageError("--classes needs --target")
    if args.target is not None and classes is None:
        target_spec = schema.get(args.target)
        if target_spec is not None and kind_of(target_spec).has_categories:
            classes = target_spec.get("categories") or None
            if classes is not None and len(classes) < 2:
                raise UsageError(f"schema {args.schema}, entry {args.target!r}: the target "
                                 "lists a single class; list every class (or --classes a,b,c)")
    return classes


def _model_of(args, X, y):
    """``(model, feature_schema)``: the estimator ``--method`` names, built from the
    options, the schema file (its entries but the target's) and the class list; with
    ``--infer-schema error``, a usage error if the schema leaves anything out."""
    schema = read_schema(args.schema)
    classes = _target_classes(args, schema)
    feature_schema = {c: s for c, s in schema.items() if c != args.target}
    cls = _cli_options.registered_methods()[args.method]
    model = _build(
        cls, columns=list(X.columns), schema=feature_schema, classes=classes, labeled=args.target is not None, random_state=args.random_state,
        device=args.device, verbose=0 if args.quiet else 1, infer_schema=args.infer_schema,
        schema_share=args.schema_share, allow_guesses=args.allow_guesses)
    if args.infer_schema == "error" and "infer_schema" in model.get_params():
        _check_complete(X, y, feature_schema, classes)
    return model, feature_schema


def _fit(model, X, y, args):
    """The fit, then its warnings shown (the schema estimate's
    summary aside: the command words it); returns the schema estimate's error if it
    failed, else None. With ``--strict`` the first leak is a usage error, before any
    training."""
    from .privacy import PrivacyLeakWarning
    from .schema import SchemaEstimateError, SchemaEstimateWarning

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
    for w in caught:  # the schema estimate's summary is worded for the command line
        if not (issubclass(w.category, SchemaEstimateWarning) and w.message.issues):
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    return failed


def _print_outcome(report, issues, json_path, txt_path):
    """The privacy report, where it was saved, and the warnings of a written run: its weak
    spots or guesses, and a run that is not private."""
    from .schema import describe_issues
    from .schema import is_guess

    print(report)
    print(f"Privacy report saved to {json_path} and {txt_path}")
    if issues:  # weak spots, or guesses written with --allow-guesses: the summary
        how = "written with --allow-guesses; " if any(map(is_guess, issues)) else ""
        print(f"skdpgen: {issues_label(issues)}: {how}" + describe_issues(issues, "cli"),
              file=sys.stderr)
    if not report.is_private:
        print("skdpgen: PRIVACY WARNING: this run is NOT differentially private "
              "(see 'leaks' in the privacy report); --strict makes that an error.",
              file=sys.stderr)


def _refuse(args, columns, schema, classes, issues, report):
    """Exit status 2, no output; the summary, and a schema template next to the input."""
    from .schema import describe_issues
    from .schema import refusal_template

    written = _write_template(args, refusal_template(columns, args.target, schema or {},
                                                     classes, issues))
    if report is not None:
        print(report)
    spent = "" if report is None else (
        f" This run spent epsilon = {report.epsilon:.3g}, delta = {report.delta:.3g} "
        "(the releases above, nothing else); a rerun spends its own budget.")
    # the last word on --allow-guesses, true of this run: it lifts every guess but a
    # class list that kept a single class (its issue has no share: no fit can train)
    liftable = not any(i["problem"] == "classes" and i.get("share") is None for i in issues)
    hint = "" if args.method == "release" or (liftable and args.allow_guesses) else (
        "\n--allow-guesses writes the output anyway." if liftable else "\n--allow-guesses "
        "does not apply to a class list that kept a single class (no fit can train on it): "
        "list every class with --classes.")
    print(f"skdpgen: refused: nothing written to {args.out}. "
          + describe_issues(issues, "cli", template=str(written) if written else None)
          + hint + spent, file=sys.stderr)
    return 2


def _write_template(args, template):
    """Write a refused run's schema template next to its input; its path, or None
    where it could not be written (the message then says how to make one)."""
    path = _template_path(args.data, args.target)
    text = json.dumps(template, indent=2, default=str) + "\n"
    replaced = path.exists()
    try:
        with all_or_nothing() as stage:
            stage(path, lambda p: p.write_text(text))
    except (UsageError, OSError):  # a read-only folder: the summary still says what to do
        return None
    if replaced:  # never silently: it may be an earlier run's, or filled in
        print(f"skdpgen: note: the schema template replaced the file {path} that was "
              "there.", file=sys.stderr)
    return path


def _refuse_size(args, columns, failed):
    """Exit status 2, nothing written but a blank schema template: a table below the
    size its private schema estimate needs (public: its rows, columns, ε and δ)."""
    written = _write_template(args, _blank_template(columns, fill=True))
    where = (f"A schema template (one entry per column) was written to {written}: fill in "
             f"each column's type ({type_words()}) and public bounds or categories (from "
             f"documentation, not from the rows) and rerun with --schema {written}"
             if written else "Write a schema file ('skdpgen schema DATA --out FILE' writes "
             "a template) and rerun with --schema FILE")
    print(f"skdpgen: refused: nothing written to {args.out}. {failed.n_rows:,} rows are too "
          f"few to estimate the schema of these columns privately at epsilon = "
          f"{args.epsilon:g}: the estimate needs about {failed.rows_needed:,} rows at this "
          f"epsilon, or --epsilon {failed.epsilon_needed:.2g} or more at these rows (a "
          "weaker privacy guarantee: the bound on how much any one record can change what "
          "is released grows with epsilon). Nothing "
          f"was read or released. {where}; or pass --allow-guesses to write anyway (every "
          "weak column is then named).", file=sys.stderr)
    return 2


def _blank_template(columns, fill=False):
    """A schema template of column names only: every entry to fill in (nothing read
    from the rows); with ``fill``, each entry's ``"_fill"`` note says the types
    allowed and what each needs (a note: ignored when the file is read)."""
    from .schema import schema_types

    entry = {"type": None, "bounds": None, "categories": None, "integer": None,
             "missing": None}
    if fill:
        entry["_fill"] = (f"type: one of {', '.join(schema_types())}; then the public "
                          "bounds [lo, hi] of a numeric, datetime or time column, or the "
                          "categories (a list) of a categorical one, from documentation, "
                          "not from the rows")
    return {col: dict(entry) for col in columns}


def _cmd_schema(args):
    if args.epsilon is not None:
        return _cmd_private_schema(args)
    if args.target is not None:
        raise UsageError("--target needs --epsilon (a template has no classes)")
    source = private_source(args.data, **reading(args))  # the header only
    # column names only: a type guessed from the values would be read from the rows
    template = _blank_template(source.columns)
    text = json.dumps(template, indent=2) + "\n"
    if args.out:
        with all_or_nothing() as stage:
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
    _check_budget(args)
    source, leaks = read_private(args)
    X, y, columns = columns_of_fit(source, args)
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
    with all_or_nothing() as stage:
        stage(args.out, lambda p: p.write_text(text))
        stage(json_path, lambda p: p.write_text(json.dumps(report.to_dict(), indent=2) + "\n"))
        stage(txt_path, lambda p: p.write_text(str(report) + "\n"))
    print(report)
    print(f"Private schema of {len(schema)} columns written to {args.out}; its privacy report "
          f"to {json_path} and {txt_path}. A fit that uses it spends nothing more on it; the "
          "two together spend at most the sum of both reports' epsilons and deltas.")
    return 0


def _drop_index_absent_from(frame, synthetic):
    """A real table without its unnamed first column (a row index) when the synthetic
    table, written without it by ``synthesize``, lacks it."""
    first = frame.columns[0] if len(frame.columns) > 1 else None
    if first is not None and str(first) in INDEX_HEADERS and first not in synthetic.columns:
        return frame.iloc[:, 1:]
    return frame


def _cmd_evaluate(args):
    """``skdpgen evaluate REAL_TEST SYNTHETIC``: :func:`skdpgen.evaluation.evaluate_tables`.

    Every table is read as text, each value through its canonical form
    (the synthesizer's reading); the report goes to standard output, as
    text or, with ``--json``, as one JSON object and nothing else.
    """
    real = read_table(args.real)
    syn = read_table(args.synthetic)
    for path, table in ((args.real, real), (args.synthetic, syn)):
        if len(table) == 0:  # its number of rows, 0, is public
            raise UsageError(no_records(path))
    real = _drop_index_absent_from(real, syn)
    if sorted(map(str, real.columns)) != sorted(map(str, syn.columns)):
        raise UsageError("the real and synthetic tables must have the same columns")
    train = None
    if args.train is not None:
        train = _drop_index_absent_from(read_table(args.train), syn)
        if len(train) == 0:
            raise UsageError(no_records(args.train))
        if sorted(map(str, real.columns)) != sorted(map(str, train.columns)):
            raise UsageError("the real test and training tables must have the same columns")
    if args.target is not None and args.target not in real.columns:
        raise UsageError(not_in_the_data("--target", args.target, real.columns))
    from .evaluation import evaluate_tables  # torch: once the tables are read

    result = evaluate_tables(
        real, syn, target=args.target, train=train, schema=read_schema(args.schema),
        models="paper" if args.all_models else None, random_state=0,
        verbose=0 if args.quiet else 1)
    if args.json:
        sys.stdout.write(json.dumps(result.to_dict(), indent=2) + "\n")
    else:
        print(result)
    return 0


def _cmd_demo(args):
    """``skdpgen demo``: fit on the bundled UCI Adult training split, print the privacy
    report and a utility line; each step said on standard error (unless ``--quiet``)."""
    _check_budget(args)  # before torch is imported
    step = progress_lines("demo", quiet=args.quiet)
    step("loading the bundled UCI Adult data")
    from sklearn.linear_model import LogisticRegression

    from .datasets import load_adult
    from .evaluation import downstream_utility

    train, test = load_adult(split="train"), load_adult(split="test")
    cls = _cli_options.registered_methods()[args.method]
    synth = _build(
        cls,
        columns=list(train.data.columns),
        schema=train.schema,  # public bounds and categories (adult.names)
        classes=train.target_schema["categories"],
        labeled=True,
        random_state=args.random_state,
        device=args.device,
        verbose=0 if args.quiet else 1,  # the fit's progress bar
    )
    n = len(train.data)
    step(f"fitting {_display_name(synth)} on {n:,} rows at epsilon = {args.epsilon:g}")
    start = time.perf_counter()
    synth.fit(train.data, train.target, epsilon=args.epsilon, delta=args.delta)
    elapsed = time.perf_counter() - start
    step(f"sampling {n:,} synthetic rows")
    X_syn, y_syn = synth.sample(n, random_state=args.random_state)
    print(f"{_display_name(synth)} on UCI Adult ({n} rows) in {elapsed:.1f} s")
    print(synth.privacy_report_)
    models = {"logistic regression": LogisticRegression(max_iter=1000)}
    step("utility: a logistic regression trained on the synthetic rows")
    syn = downstream_utility(X_syn, y_syn, test.data, test.target, models=models)
    step("utility: a logistic regression trained on the real rows, for comparison")
    real = downstream_utility(train.data, train.target, test.data, test.target, models=models)
    lr = "logistic regression"
    print(
        "Utility (logistic regression, trained on the data named, tested on the real "
        "test split):\n"
        f"  synthetic -> real: ROC-AUC {syn.loc[lr, 'roc_auc']:.3f}, PR-AUC {syn.loc[lr, 'pr_auc']:.3f}\n"
        f"  real -> real:      ROC-AUC {real.loc[lr, 'roc_auc']:.3f}, PR-AUC {real.loc[lr, 'pr_auc']:.3f}"
    )
    if args.out:
        step(f"writing {args.out}")
        write_table(X_syn.assign(income=y_syn), args.out)
        print(f"Synthetic data written to {args.out}")
    step("done")
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
