"""The command line's words: its commands, options, help texts and examples.

One source for what ``skdpgen --help`` says; :mod:`skdpgen.cli` runs the
commands.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import argparse

__all__ = ["MULTILINE", "build_parser", "registered_methods", "type_words"]


def type_words():
    """The schema's column types, as every message names them (one list)."""
    from .schema import schema_types

    types = schema_types()
    return ", ".join(types[:-1]) + " or " + types[-1]


MULTILINE = ("a quoted field may span lines (standard CSV): one record's quoting then "
              "changes the number of rows and the records, so the run is not private")


def registered_methods():
    """The command line's methods, ``name -> estimator class``
    (:func:`skdpgen.registry.methods`), once their modules have registered them."""
    from . import release, synthesizers  # noqa: F401  (they register their methods)
    from .registry import methods

    return methods()


class _MethodNames:
    """The names ``--method`` takes, looked up when first needed: registering the
    methods imports torch, which a usage error need not wait for (the usage line
    says ``--method METHOD``; the help lists the names).

    Parameters
    ----------
    labeled : bool, default=False
        Only the methods that take a target (``supports_labels``).
    """

    def __init__(self, labeled=False):
        self.labeled = labeled

    def _names(self):
        return [name for name, cls in registered_methods().items()
                if cls.supports_labels or not self.labeled]

    def __contains__(self, name):
        return name in self._names()

    def __iter__(self):
        return iter(self._names())


def _share_option(text):
    if text == "auto":
        return text
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be 'auto' or a number in (0, 1), got {text}")
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be 'auto' or a number in (0, 1), got {text}")
    return value


def build_parser(commands):
    """The argument parser of the ``skdpgen`` command; ``commands``: name -> function."""
    from . import __version__

    parser = argparse.ArgumentParser(
        prog="skdpgen",
        description="Differentially private synthetic data from kernel mean embeddings.",
    )
    parser.add_argument("--version", action="version", version=f"skdpgen {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    raw = argparse.RawDescriptionHelpFormatter
    syn = sub.add_parser(
        "synthesize", help="fit a private synthesizer on a CSV/Parquet table",
        formatter_class=raw,
        description=(
            "Fit a differentially private synthesizer on a table and write as many synthetic\n"
            "rows, with the privacy report next to them (OUT.privacy.json, OUT.privacy.txt).\n"
            "What the --schema file leaves out (bounds, categories, the target's classes) is\n"
            "estimated privately from a share of the budget. That estimate needs about\n"
            "1,160 x sqrt(columns estimated) rows at --epsilon 1 (3,700 for 10 columns,\n"
            "6,400 for 30; 3.3 times as many at 0.3): a smaller table is refused before\n"
            "anything is read (exit status 2), naming the rows and the epsilon that would\n"
            "do, with a blank schema template to fill in. When the estimate of a larger\n"
            "table is still a guess, the command refuses (exit status 2, nothing written) and\n"
            "writes DATA.TARGET.schema.json (DATA.schema.json without --target) next to the\n"
            "input, with the estimated entries filled in and the others marked to fill;\n"
            "--allow-guesses writes the output anyway.\n"
            "Methods: marginals (the table's one- and two-way marginals on public cells,\n"
            "fitted by a mixture; the default: the closest marginals on the benchmark\n"
            "panel), dphp (DP-HP: Hermite features and a neural generator), dpmerf\n"
            "(DP-MERF: random Fourier features), release (Balog et al.: a weighted point set\n"
            "for unlabeled numeric tables with public bounds for every column in --schema;\n"
            "no --target).\n"
            "CSV: one record per line (LF or CRLF); a blank line is a record of missing\n"
            "values; too few fields are padded with missing cells, too many make all missing;\n"
            "a line longer than --max-record-bytes is a record of missing values, read\n"
            "through without being held; bytes that are not UTF-8 are replaced.\n"
            "--multiline-records: quoted line breaks, not private."),
        epilog=(
            "examples:\n"
            "  skdpgen synthesize table.csv --target label --epsilon 1 --out syn.csv\n"
            "  skdpgen synthesize table.csv --target label --schema table.label.schema.json "
            "--out syn.csv --strict\n"
            "  skdpgen synthesize table.csv --target label --classes yes,no "
            "--allow-guesses --out syn.csv"),
    )
    syn.add_argument("data", help="the private table (.csv or .parquet)")
    syn.add_argument("--target", help="label column, synthesized class by class (default: "
                                      "none, an unlabeled table)")
    syn.add_argument("--method", choices=_MethodNames(), default="marginals", metavar="METHOD",
                     help="the estimator: %(choices)s, see above (default: marginals)")
    syn.add_argument("--epsilon", type=float, default=1.0,
                     help="privacy budget ε of the whole run (default: 1.0)")
    syn.add_argument("--delta", type=float, default=1e-5,
                     help="privacy budget δ of the whole run (default: 1e-5)")
    syn.add_argument("--schema", help="JSON file of public column types, bounds and categories "
                                      "(default: none, everything estimated privately; "
                                      "'skdpgen schema DATA' writes a template)")
    syn.add_argument("--out", required=True, help="where to write the synthetic table "
                                                  "(.csv or .parquet; required)")
    syn.add_argument("--n-samples", type=_positive_int, default=None,
                     help="rows to write (default: as many as the input)")
    syn.add_argument("--random-state", type=int, default=None,
                     help="seed of the public random choices; the privacy noise is always "
                          "fresh (default: none)")
    syn.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto",
                     help="where to train (default: auto, a GPU when there is one)")
    syn.add_argument("--quiet", action="store_true", help="no progress bar (default: shown)")
    syn.add_argument("--strict", action="store_true",
                     help="fail (exit status 2, nothing written) if anything would be read "
                          "from the data without privacy (default: warn)")
    syn.add_argument("--infer-schema", choices=["private", "data", "error"], default="private",
                     help="what the schema leaves out: estimated privately (a share of the "
                          "budget), read from the data (a leak), or an error (default: "
                          "private)")
    syn.add_argument("--classes", default=None,
                     help="comma-separated public list of the target's classes (default: "
                          "from the --schema file, else estimated privately; a rare class "
                          "may then be lost)")
    syn.add_argument("--schema-share", type=_share_option, default="auto",
                     help="share of the budget for estimating what the schema leaves out "
                          "(default: auto, from the number of rows and columns)")
    syn.add_argument("--allow-guesses", action="store_true",
                     help="write the output even when the private schema estimate is a "
                          "guess (default: refuse, exit status 2, and write a schema "
                          "template next to the input)")
    syn.add_argument("--drop", default=None, metavar="COL,COL",
                     help="comma-separated columns not to synthesize (free text, IDs): "
                          "not synthesized, not in the output (default: none)")
    syn.add_argument("--keep-index", action="store_true",
                     help="keep a first column with no header (a row index written by R "
                          "or pandas) as data (default: drop it)")
    _record_options(syn)
    syn.set_defaults(func=commands["synthesize"])

    sch = sub.add_parser(
        "schema", help="write a schema: estimated privately with --epsilon, else a template",
        formatter_class=raw,
        description=(
            "Without --epsilon: a template of the table's columns (from the header only; no\n"
            "value is read) to fill in from documentation: each column's type\n"
            f"({type_words()}), bounds or categories, integer and missing.\n"
            "An entry with a type only declares the kind; the rest is estimated privately.\n"
            "With --epsilon: the whole schema estimated privately on that budget, with its\n"
            "privacy report next to --out."),
        epilog=(
            "examples:\n"
            "  skdpgen schema table.csv --out table.schema.json\n"
            "  skdpgen schema table.csv --epsilon 0.2 --target label --out table.schema.json"),
    )
    sch.add_argument("data", help="the table (.csv or .parquet)")
    sch.add_argument("--out", help="output JSON file (default: standard output)")
    sch.add_argument("--epsilon", type=float, default=None,
                     help="estimate the schema privately with this budget (writes its privacy "
                          "report next to --out; default: none, a template)")
    sch.add_argument("--delta", type=float, default=1e-5,
                     help="δ of the private estimate (default: 1e-5)")
    sch.add_argument("--target", help="label column: its classes are estimated too (default: "
                                      "none)")
    _record_options(sch)
    sch.set_defaults(func=commands["schema"])

    ev = sub.add_parser(
        "evaluate", help="utility and fidelity of a synthetic table, next to real data's",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Score models trained on the synthetic table and tested on the real test table\n"
            "(syn->real) next to the same models trained on real data (real->real), with the\n"
            "same metric, and the total-variation distance of the 1- and 2-way marginals.\n"
            "Reads the real tables as the data holder's: the output is not a private release.\n"
            "Values are read as the synthesizer reads them (missing values, dates, booleans).\n"
            "Metric: ROC-AUC (and PR-AUC) for 2 classes, macro F1 (and accuracy) for more,\n"
            "R² for a numeric target with more than 10 distinct values; the classes come from\n"
            "the schema's target categories, else from the real test table.\n"
            "Its time grows with the rows: a column of identifiers or free text is skipped,\n"
            "the models see a text column's most frequent values only and train on a draw\n"
            "of a large table's rows (the output says which); a line a step on stderr."),
        epilog=(
            "examples:\n"
            "  skdpgen evaluate test.csv syn.csv --target income\n"
            "  skdpgen evaluate test.csv syn.csv --target income --train train.csv "
            "--schema schema.json\n"
            "  skdpgen evaluate test.csv syn.csv --target income --all-models --json > eval.json"),
    )
    ev.add_argument("real", help="the real test table (.csv or .parquet), held out from the fit")
    ev.add_argument("synthetic", help="the synthetic table, with the same columns")
    ev.add_argument("--target", default=None,
                    help="label column (default: none, the fidelity table only)")
    ev.add_argument("--train", default=None, metavar="REAL_TRAIN",
                    help="the real table the synthesizer was fitted on: real->real models "
                         "train on it (default: none; real->real is then a 5-fold "
                         "cross-validation on the real test table, the same folds on "
                         "every run)")
    ev.add_argument("--schema", default=None,
                    help="JSON schema: column types, bins within public bounds, the "
                         "target's classes (default: none; kinds from the real test table, "
                         "bins at its quantiles)")
    ev.add_argument("--all-models", action="store_true",
                    help="the DP-HP paper's 12 classifiers (default: logistic regression "
                         "and gradient boosting)")
    ev.add_argument("--json", action="store_true",
                    help="print one JSON object, nothing else, on standard output "
                         "(default: text)")
    ev.add_argument("--quiet", action="store_true",
                    help="no progress lines on standard error (default: one a step)")
    ev.set_defaults(func=commands["evaluate"])

    demo = sub.add_parser(
        "demo", help="synthesize the bundled UCI Adult data privately",
        formatter_class=raw,
        description="Fit on the bundled UCI Adult training split with its public schema, print\n"
                    "the privacy report and a synthetic-to-real utility line (real->real beside).",
        epilog="examples:\n  skdpgen demo\n  skdpgen demo --method dpmerf --epsilon 0.5 "
               "--out adult_syn.csv")
    demo.add_argument("--method", choices=_MethodNames(labeled=True), default="marginals",
                      metavar="METHOD", help="the synthesizer: %(choices)s (default: marginals)")
    demo.add_argument("--epsilon", type=float, default=1.0, help="privacy budget ε "
                                                                 "(default: 1.0)")
    demo.add_argument("--delta", type=float, default=1e-5, help="privacy budget δ "
                                                                "(default: 1e-5)")
    demo.add_argument("--random-state", type=int, default=0,
                      help="seed of the public random choices (default: 0)")
    demo.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto",
                      help="where to train (default: auto)")
    demo.add_argument("--quiet", action="store_true",
                      help="no progress lines or bar on standard error (default: shown)")
    demo.add_argument("--out", help="write the synthetic table to this CSV file (default: "
                                    "not written)")
    demo.set_defaults(func=commands["demo"])
    return parser


def _record_options(parser):
    """The options of the private table's reading (see :mod:`skdpgen._records`)."""
    from ._records import MAX_RECORD_BYTES

    parser.add_argument("--multiline-records", action="store_true",
                        help=f"{MULTILINE} (a leak in its privacy report) (default: one "
                             "record per line)")
    parser.add_argument("--no-final-newline", action="store_true",
                        help="the records are joined by line breaks, none after the last "
                             "(as '\\n'.join(records) writes): the text after the last line "
                             "break is a record even when blank (default: a line break ending "
                             "the file ends the last record)")
    parser.add_argument("--max-record-bytes", type=_positive_int, default=MAX_RECORD_BYTES,
                        metavar="BYTES",
                        help="the maximum record length, public: a longer line is a record "
                             "of missing values, read through without being held (default: "
                             f"{MAX_RECORD_BYTES}, 1 MiB)")


def _positive_int(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {text}")
    return value
