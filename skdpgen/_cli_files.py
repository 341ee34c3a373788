"""The command line's files: the private table it reads, the schema file, and
the outputs it writes, all or nothing.

The private table is read as blocks of text records (:mod:`skdpgen._records`),
its columns chosen from the header alone (public); the schema file is checked
entry by entry; the outputs of a command are staged next to their
destinations and moved into place only when the whole command succeeds. A
mistake of the user's is a :class:`UsageError`, which :mod:`skdpgen.cli`
reports in one line.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import contextlib
import json
import os
import sys
import tempfile
from pathlib import Path

from ._cli_options import MULTILINE, type_words

__all__ = ["INDEX_HEADERS", "UsageError", "all_or_nothing", "check_destinations", "columns_of_fit",
           "comma_list", "no_records", "not_in_the_data", "private_source", "read_private", "read_schema", "read_table",
           "reading", "write_table"]


class UsageError(Exception):
    """A mistake of the user's, reported in one line."""


def read_table(path, **reading):
    """A table from a CSV or Parquet file; CSV cells as text, one record per line (see
    :mod:`skdpgen._records`; ``reading``: its options, :func:`reading`), none typed by
    pandas (its guess depends on private values)."""
    path = Path(path)
    if not path.exists():  # before pandas is imported
        raise UsageError(f"no such file: {path}")
    import pandas as pd

    from ._records import read_records

    if path.suffix.lower() in {".parquet", ".pq"}:
        try:
            return pd.read_parquet(path)
        except ImportError as exc:
            raise UsageError(f"reading Parquet needs pyarrow or fastparquet ({exc})") from None
    try:
        return read_records(path, **reading)
    except ValueError as exc:  # the header's problems (public): no data line raises
        raise UsageError(f"cannot read {path} as CSV: {exc}") from None


class _Frames(list):
    """A table in memory as a source of blocks (one block): a Parquet file's."""

    def __init__(self, frame):
        super().__init__([frame])
        self.columns = list(frame.columns)
        self.n_rows = len(frame)


def reading(args):
    """The record reader's options of a command (:func:`skdpgen._records.read_records`):
    ``--multiline-records``, ``--no-final-newline``, ``--max-record-bytes``."""
    return dict(multiline=args.multiline_records, final_newline=not args.no_final_newline,
                max_record_bytes=args.max_record_bytes)


def private_source(path, **reading):
    """The private table as blocks of rows read one at a time: a CSV file's
    records (:class:`skdpgen._records.RecordBlocks` with the options ``reading``,
    a pass each time a fit sums over them: the table is never held), or a
    Parquet file read whole."""
    path = Path(path)
    if not path.exists():  # before pandas is imported
        raise UsageError(f"no such file: {path}")
    from ._records import RecordBlocks

    if path.suffix.lower() in {".parquet", ".pq"}:
        return _Frames(read_table(path))
    try:
        return RecordBlocks(path, **reading)
    except ValueError as exc:  # the header's problems (public): no data line raises
        raise UsageError(f"cannot read {path} as CSV: {exc}") from None


def read_private(args):
    """``(source, leaks)``: the table's blocks (:func:`private_source`) and the leak of
    --multiline-records (an error with --strict)."""
    from .privacy import record_leak

    why = f"--multiline-records: {MULTILINE}"
    if args.multiline_records and getattr(args, "strict", False):
        raise UsageError(f"--strict: {why}")
    leaks = [record_leak("records", why)] if args.multiline_records else []
    return private_source(args.data, **reading(args)), leaks


#: Column names an error lists at most (a wide file's others are counted).
LISTED_COLUMNS = 60


def the_columns(columns):
    """The file's column names (public: its header) as an error lists them, at most
    ``LISTED_COLUMNS`` of them."""
    columns = [str(c) for c in columns]
    listed = ", ".join(map(repr, columns[:LISTED_COLUMNS]))
    more = len(columns) - LISTED_COLUMNS
    return f"{listed} and {more} more" if more > 0 else listed


def not_in_the_data(option, names, columns):
    """The error of ``option`` naming columns that are not in the file: the names,
    and the file's columns (public: its header), the closest first where one is
    close."""
    import difflib

    names = [names] if isinstance(names, str) else list(names)
    lower = {}  # each column by its name in lower case (the first of equal ones)
    for c in map(str, columns):
        lower.setdefault(c.lower(), c)
    close = [lower[m] for name in names
             for m in difflib.get_close_matches(str(name).lower(), list(lower), n=1)]
    hint = f" (did you mean {', '.join(map(repr, dict.fromkeys(close)))}?)" if close else ""
    listed = ", ".join(map(repr, names))
    column = "column {} is" if len(names) == 1 else "columns {} are"
    return (f"{option} {column.format(listed)} not in the data{hint}; its columns are: "
            f"{the_columns(columns)}")


def no_records(path):
    """The error of a table with column names and no rows (0 rows: public)."""
    return (f"{path} has no records: only its header line (the column names) was found, "
            "so there are no rows to use")


def columns_of_fit(source, args):
    """``(X, y, columns)`` of the fit: the feature columns and labels as blocks of
    ``source`` (:func:`~skdpgen.rows.split_blocks`), and the columns written
    (the target included), in the file's order. Decided from the header alone."""
    from .rows import split_blocks

    columns = list(source.columns)
    empty = source.is_empty() if hasattr(source, "is_empty") else source.n_rows == 0
    if empty:  # its number of rows, 0, is public
        raise UsageError(no_records(args.data))
    index, note = _index_column(columns, getattr(args, "keep_index", True))
    if note:
        print(note, file=sys.stderr)
    if args.target is not None and args.target not in columns:
        raise UsageError(not_in_the_data("--target", args.target, columns))
    dropped = index + _dropped_columns(columns, index, getattr(args, "drop", None),
                                       args.target)
    X, y = split_blocks(source, args.target, drop=dropped)
    return X, y, [c for c in columns if c not in dropped]


def write_table(frame, path):
    path = Path(path)
    if path.suffix.lower() in {".parquet", ".pq"}:
        try:
            frame.to_parquet(path, index=False)
        except ImportError as exc:
            raise UsageError(f"writing Parquet needs pyarrow or fastparquet ({exc})") from None
    else:
        frame.to_csv(path, index=False)


def check_destinations(*paths):
    """Usage errors for output paths that cannot be written, before any fit spends."""
    for path in map(Path, paths):
        if not path.parent.is_dir():
            raise UsageError(f"no such directory: {path.parent}")
        if path.is_dir():
            raise UsageError(f"{path} is a directory")


@contextlib.contextmanager
def all_or_nothing():
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
        check_destinations(path)
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


def read_schema(path):
    from .schema import schema_types

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


#: Headers pandas and R give an unnamed leading column of row numbers.
INDEX_HEADERS = ("", "Unnamed: 0")


def _index_column(columns, keep):
    """``(dropped, note)``: an unnamed leading column of row numbers, dropped.

    Decided from the header alone (public): the first column's header is
    empty (``Unnamed: 0`` once pandas has read it), as R's ``write.csv``
    and pandas' ``to_csv`` write a row index. Its values are never looked
    at: a column of data under an empty header is dropped too, with the
    same note, and ``--keep-index`` keeps it as data.
    """
    first = str(columns[0]) if columns else None
    if keep or first not in INDEX_HEADERS or len(columns) < 2:
        return [], None
    return [columns[0]], (
        "skdpgen: note: the first column has no header, as a row index written by R or "
        "pandas; it is not synthesized (--keep-index keeps it as data).")


def _dropped_columns(columns, index, text, target):
    """The columns ``--drop`` names (by header: public), checked."""
    names = comma_list(text or "")
    missing = [c for c in names if c not in columns]
    if missing:
        raise UsageError(not_in_the_data("--drop", missing, columns))
    if target in names:
        raise UsageError(f"--drop names the target {target!r}")
    left = [c for c in columns if c not in index and c not in names and c != target]
    if not left:
        raise UsageError("--drop names every column but the target")
    return [c for c in names if c not in index]


def comma_list(text):
    """The non-empty, stripped items of a comma-separated option."""
    return [c.strip() for c in text.split(",") if c.strip()]
