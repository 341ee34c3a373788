"""How a CSV file becomes records: one record per line, whatever its content.

The row count ``n`` is public (a fit's releases are calibrated with it), so
how a file becomes records must not depend on any one record's content:
``n``, the success of the read and every message are functions of the
public parts of the file (its header and its number of lines) alone. A
standard CSV parser fails that: a quoted field may span lines, so one
record's stray quote swallows the lines after it; pandas skips blank lines,
splits records at a bare carriage return, and stops with a message that
quotes or locates the record it could not parse. :func:`read_records` reads
a file under this contract instead:

* **Decoding.** The bytes are decoded as UTF-8; a leading byte order mark
  is dropped; bytes that are not UTF-8 are replaced by U+FFFD, never an
  error.
* **Header.** The first line is the header: the column names (public).
  A name left empty becomes ``"Unnamed: i"`` (``i`` its position), as
  pandas names it. An empty file, a blank first line, a carriage return
  inside the header line (a file whose lines end in a bare ``\\r``), a
  name given twice and a header longer than the maximum record length
  raise :class:`ValueError` naming the problem: they are the user's
  mistakes, told from the header alone.
* **Lines.** Every following line ending in ``\\n`` is exactly one record;
  a ``\\r`` just before the ``\\n`` is dropped (CRLF files read as LF
  files), and a ``\\r`` anywhere else is a character of its record. The
  last line is a record when the file does not end in ``\\n`` (a final
  ``\\r`` of it is dropped too). So ``n`` is the number of lines after the
  header, whatever they hold. A file whose records are *joined* by line
  breaks (``"\\n".join(records)``, no line break after the last) cannot be
  told from one that ends every record with a line break when its last
  record is blank: ``final_newline=False`` declares the joined form (the
  text after the last line break is then a record, blank or not).
* **Maximum record length.** A line of more than ``max_record_bytes``
  bytes (its line end aside; public, :data:`MAX_RECORD_BYTES` by default)
  is a record whose every cell is missing, like a blank line. Its bytes
  are read through without being held (memory bounded by the limit and
  the reader's block), and none of them is parsed: past the limit, one
  record's size changes the memory of a read and the work of a fit in
  nothing but the time it takes to read its bytes through.
* **Blank lines.** A blank line is a record whose every cell is missing
  (the empty text ``""``), not a line skipped.
* **Fields.** Each line is split into fields by the CSV rules within that
  line only (Python's :mod:`csv`: ``,`` between fields, double-quoted
  fields, ``""`` for a quote inside one, quotes inside an unquoted field
  kept as text); a quote left open runs to the end of its line and never
  takes in the next one. Spaces at the start of a field are dropped, as
  with pandas' ``skipinitialspace=True`` (a fit strips surrounding spaces
  of every value anyway). Lines without a quote character take a faster
  path with the same result.
* **Field counts.** A line with fewer fields than the header is padded
  with missing cells. A line with more fields than the header is a record
  whose every cell is missing: which of its fields belongs to which
  column cannot be told (an unquoted comma shifts every field after it),
  and keeping shifted fields would put values in the wrong columns.

No data line ever raises or shows up in a message: a malformed record
becomes a record of (partly) missing values and changes neither ``n`` nor
the other records. For a file that :meth:`pandas.DataFrame.to_csv` writes
whose values hold no line break (neither ``\\n`` nor a bare ``\\r``, which
it leaves unquoted), the result is the text that ``pandas.read_csv(path,
dtype=str, keep_default_na=False, na_filter=False, skipinitialspace=True)``
gives, cell for cell.

``multiline=True`` opts in to standard CSV: a quoted field may span lines
(Python's :mod:`csv` over the whole file, every line end, ``\\r`` alone
included, ending a record outside quotes). Then ``n`` and the records
depend on one record's quoting (an unclosed quote takes in every line
after it): the caller must report the read as a leak. The field-count,
decoding and line-length rules are the same (a line over the limit is
read as a blank line, which a quoted field may take in), and malformed
input still never raises a message that holds a value; a quoted field of
more than ``max_record_bytes`` characters over several lines stops the
read (:class:`ValueError`): the mode is a declared leak anyway.

While it reads, :func:`read_records` sets :func:`csv.field_size_limit` to
the maximum record length and restores the previous limit after. The lines
of the expected width without a quote, nearly all of a well-formed file,
are split a block at a time: a 1,000,000-row, 15-column ASCII file
(120 MB) read in 1.5 s on one core of the development machine
(``pandas.read_csv`` as above: 3.3 s), in 3.5 s with every field quoted
or after a space, and in 6 s with ``multiline=True``.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import contextlib
import csv
import io
import itertools
import re

import numpy as np
import pandas as pd

__all__ = ["MAX_RECORD_BYTES", "RecordBlocks", "read_records"]

#: The default maximum record length in bytes (public): a longer line is a record of
#: missing values. 1 MiB: some fifty times the widest records of real tables (a row
#: of 1,000 columns of 20 characters is 20 kB; a 784-pixel image 3 kB), while a record
#: held is at most 4 MiB of text (4 bytes a character) and as long as one of the
#: reader's own blocks. ``--max-record-bytes`` raises it.
MAX_RECORD_BYTES = 1 << 20

#: The csv module's reading of a line (or, multiline, of the file).
_DIALECT = dict(delimiter=",", quotechar='"', doublequote=True, skipinitialspace=True,
                strict=False)
#: Bytes read at a time (a block is split into lines at once).
_BLOCK_BYTES = 1 << 20
#: Records parsed at a time in multiline mode, then moved into the columns.
_BLOCK_RECORDS = 1 << 16
#: Distinct texts of a column whose cells share one object across blocks (see _shared).
_SHARED_TEXTS = 100_000
#: The spaces that start a field (at the start of a line or after a comma).
_LEADING_SPACES = re.compile("(?<![^,]) +")
#: Where a multiline text splits into the csv module's lines: after \n, after a bare \r.
_LINE_ENDS = re.compile("(?<=\n)|(?<=\r)(?!\n)")
#: The largest csv field size limit a C long holds everywhere.
_FIELD_LIMIT = 2**31 - 1
#: Stands in for a carriage return while the csv module splits a line (it would end
#: the record there): a lone surrogate, which UTF-8 decoding never yields.
_CR_STAND_IN = "\ud800"


def read_records(path_or_buffer, *, multiline=False, final_newline=True,
                 max_record_bytes=MAX_RECORD_BYTES):
    """Read a CSV file as text records, one per line (see the module docstring).

    The number of records is the number of lines after the header, and no
    data line raises or is named in a message, whatever it holds.

    Parameters
    ----------
    path_or_buffer : str, path-like or binary file object
        The CSV file. A file object must be opened in binary mode; it is
        read from its current position and left open.
    multiline : bool, default=False
        Whether a quoted field may span lines (standard CSV). Not private:
        the number of records then depends on the records' quoting, so the
        caller must report the read as a leak.
    final_newline : bool, default=True
        Whether a line break that ends the file ends its last record (the
        text after it, if any, is one more record). False: the records are
        joined by line breaks (``"\\n".join``), so the text after the last
        line break is a record even when it is blank. Public: it describes
        how the file was written, not what it holds.
    max_record_bytes : int, default=MAX_RECORD_BYTES
        The maximum record length (public): a line of more bytes (its line
        end aside) is a record whose every cell is missing, read through
        without being held.

    Returns
    -------
    frame : pandas.DataFrame
        One column per header name, one row per record, every cell a
        :class:`str` (dtype object); a missing cell is ``""``.

    Raises
    ------
    ValueError
        For a problem of the header (the file is empty, the first line is
        blank, holds a carriage return or is longer than the maximum record
        length, a name is given twice). Never for a data line.

    Examples
    --------
    >>> import io
    >>> from skdpgen._records import read_records
    >>> data = b'name,age\\r\\n"Doe, J",41\\r\\n\\r\\n"Roe,42\\r\\nPoe,40,x\\r\\nLo\\xe9\\r\\n'
    >>> frame = read_records(io.BytesIO(data))
    >>> frame["name"].tolist()[:4], frame["age"].tolist()
    (['Doe, J', '', 'Roe,42', ''], ['41', '', '', '', ''])
    >>> frame["name"].iloc[4] == "Lo\\ufffd"  # the byte that is not UTF-8 replaced
    True
    >>> len(read_records(io.BytesIO(data), multiline=True))  # the open quote takes in 3 lines
    3
    >>> read_records(io.BytesIO(b"a\\n1\\n"), final_newline=False)["a"].tolist()
    ['1', '']
    >>> read_records(io.BytesIO(b"a\\n1\\n22\\n"), max_record_bytes=1)["a"].tolist()
    ['1', '']
    """
    blocks = RecordBlocks(path_or_buffer, multiline=multiline, final_newline=final_newline,
                          max_record_bytes=max_record_bytes, block_rows=None)
    cells = [block.to_numpy(dtype=object) for block in blocks]
    return pd.DataFrame(np.concatenate(cells) if cells else np.empty((0, len(blocks.columns)),
                                                                    dtype=object),
                        columns=blocks.columns, dtype=object, copy=False)


class RecordBlocks:
    """A CSV file's records, a block of rows at a time (see the module docstring).

    The same records as :func:`read_records`, never all at once: each pass
    (``iter``) reads the file again and yields DataFrames of text cells of
    at most about ``block_rows`` rows, so a fit that sums over blocks holds
    one block of the file at a time. Equal texts of a column share one
    string object within a pass (memory only).

    Parameters
    ----------
    path_or_buffer : str, path-like or binary file object
        The CSV file. A file object is read once, from its current position:
        it gives one pass (a path gives any number).
    multiline : bool, default=False
        Whether a quoted field may span lines (see :func:`read_records`).
    final_newline : bool, default=True
        Whether a line break that ends the file ends its last record (see
        :func:`read_records`).
    max_record_bytes : int, default=MAX_RECORD_BYTES
        The maximum record length (see :func:`read_records`).
    block_rows : int or None, default=65_536
        Rows a block holds at least (the last one excepted), and at most
        that plus the lines of about a megabyte of text (the reader's own
        blocks); None: the reader's blocks.

    Attributes
    ----------
    columns : list of str
        The header's column names (read when the object is made; a header's
        problem raises :class:`ValueError` then).
    n_rows : int or None
        The number of records, once a pass has read them all (None before).

    Examples
    --------
    >>> import io
    >>> from skdpgen._records import RecordBlocks
    >>> blocks = RecordBlocks(io.BytesIO(b"a,b\\n1,x\\n2,y\\n"))
    >>> blocks.columns
    ['a', 'b']
    >>> [block["a"].tolist() for block in blocks]  # one block: the file is small
    [['1', '2']]
    """

    def __init__(self, path_or_buffer, *, multiline=False, final_newline=True,
                 max_record_bytes=MAX_RECORD_BYTES, block_rows=65_536):
        if int(max_record_bytes) != max_record_bytes or max_record_bytes < 1:
            raise ValueError(f"max_record_bytes must be an integer >= 1, got "
                             f"{max_record_bytes!r}")
        self.path_or_buffer = path_or_buffer
        self.multiline = multiline
        self.final_newline = final_newline
        self.max_record_bytes = int(max_record_bytes)
        self.block_rows = block_rows
        self.n_rows = None
        self._first = None
        if hasattr(path_or_buffer, "read"):  # one pass: read as it is iterated
            self._first = self._blocks()
            self.columns = next(self._first)
        else:
            with self._opened() as (names, _):
                self.columns = names

    @contextlib.contextmanager
    def _opened(self):
        limit = self.max_record_bytes
        with _raw(self.path_or_buffer) as raw, _field_limit(min(limit, _FIELD_LIMIT)):
            lines = _byte_lines(raw, limit, self.final_newline)
            first = next(lines, None)
            if first is None:
                raise ValueError("the file is empty: there is no header line")
            header = first[0]
            if header[0] is None:
                raise ValueError(f"the first line (the header) is longer than the maximum "
                                 f"record length ({limit} bytes)")
            header[0] = header[0].removeprefix(b"\xef\xbb\xbf")  # a byte order mark
            lines = itertools.chain([first], lines)
            if self.multiline:
                blocks, fields_of, cells_of = _record_blocks(lines), list, _cells_of_records
            else:
                blocks, fields_of = map(_text_lines, lines), _split_line
                cells_of = _cells_of_lines
            first = next(blocks)
            names = _column_names(fields_of(first[0]))
            yield names, (cells_of(block, len(names))
                          for block in itertools.chain([first[1:]], blocks))

    def _blocks(self):
        """The column names, then the blocks: one pass over the file."""
        with self._opened() as (names, cells):
            yield names
            shared = [{} for _ in names]
            least = self.block_rows or 1  # None: every block the reader splits off
            pending, rows, total = [], 0, 0
            for block in cells:
                if len(block):
                    pending.append(_shared(block, shared))
                    rows += len(block)
                    total += len(block)
                if rows >= least:
                    yield self._frame(pending, names)
                    pending, rows = [], 0
            if rows:
                yield self._frame(pending, names)
            self.n_rows = total

    def is_empty(self):
        """Whether the file has no record after its header (its number of rows is 0:
        public). Reads up to the first record only; a file object's one pass is kept."""
        if self.n_rows is not None:
            return self.n_rows == 0
        if hasattr(self.path_or_buffer, "read"):
            return False  # unknown without the pass: the fit counts it
        with self._opened() as (_, cells):
            return not any(len(block) for block in cells)

    @staticmethod
    def _frame(cells, names):
        return pd.DataFrame(np.concatenate(cells) if len(cells) > 1 else cells[0],
                            columns=names, dtype=object, copy=False)

    def __iter__(self):
        if self._first is not None:
            first, self._first = self._first, None
            yield from first
            return
        if hasattr(self.path_or_buffer, "read"):
            raise ValueError("a file object gives one pass over its records; pass a path")
        blocks = self._blocks()
        next(blocks)  # the names, read when the object was made
        yield from blocks


@contextlib.contextmanager
def _raw(path_or_buffer):
    """The file's bytes: a path opened (and closed after), a file object as it is."""
    if hasattr(path_or_buffer, "read"):  # the caller's file object stays open
        yield path_or_buffer
        return
    with open(path_or_buffer, "rb") as raw:
        yield raw


@contextlib.contextmanager
def _field_limit(limit):
    """:func:`csv.field_size_limit` set to ``limit`` while the block runs."""
    previous = csv.field_size_limit(limit)
    try:
        yield
    finally:
        csv.field_size_limit(previous)


def _byte_lines(raw, limit, final_newline):
    """``(lines, ended)`` a block at a time: the file's lines as bytes, without their
    ``\\n``, and whether the last of them ended in one (all but the file's last line).

    A line of more than ``limit`` bytes (a ``\\r`` ending it aside) is None: its
    bytes are dropped as they are read, so no more than ``limit`` bytes of a line
    and one block of the file are ever held. The last line, when the file does
    not end in ``\\n``, is a line if it is not empty or if not ``final_newline``.
    """
    pending, held, empty = [], 0, True  # the pieces of the line under way (None: over)
    while block := raw.read(_BLOCK_BYTES):
        empty = False
        parts = block.split(b"\n")
        if pending is not None:
            pending.append(parts[0])
            held += len(parts[0])
            if held > limit + 1:  # over, whatever ends it
                pending = None
        if len(parts) == 1:
            continue
        parts[0] = None if pending is None else b"".join(pending)
        last = parts.pop()
        pending, held = ([last], len(last)) if len(last) <= limit + 1 else (None, 0)
        yield _within(parts, limit), True
    if pending is None or held or not (final_newline or empty):
        yield _within([None if pending is None else b"".join(pending)], limit), False


def _within(lines, limit):
    """``lines`` with each longer than ``limit`` bytes (a final ``\\r`` aside) as None."""
    if max((len(line) for line in lines if line is not None), default=0) > limit:
        return [None if line is None or len(line) - line.endswith(b"\r") > limit else line
                for line in lines]
    return lines


def _text_lines(block):
    """A block of lines (:func:`_byte_lines`) as text, each without its line end; a
    line over the limit is blank (a record of missing values)."""
    lines, _ = block
    if not lines:
        return []
    text = b"\n".join(b"" if line is None else line for line in lines)
    return [line[:-1] if line.endswith("\r") else line
            for line in text.decode("utf-8", "replace").split("\n")]


def _cells_of_lines(lines, width):
    """The cells of a block of data lines: an object array of shape ``(len(lines), width)``.

    The lines with ``width - 1`` commas and no quote (nearly all, in a
    well-formed file) are split together, in one :meth:`str.split` of
    their join; each other line is split on its own and fitted to the width.
    """
    if not lines:
        return _as_cells([], width)
    commas = width - 1
    irregular = [i for i, line in enumerate(lines) if line.count(",") != commas or '"' in line]
    regular = list(lines)
    for i in irregular:
        regular[i] = "," * commas  # a stand-in of the right width, overwritten below
    cells = _as_cells(_without_leading_spaces(",".join(regular)).split(","), width)
    for i in irregular:
        cells[i] = _fit_width(_split_line(lines[i]), width)
    return cells


def _cells_of_records(records, width):
    """The cells of a block of records (lists of fields), each fitted to the width."""
    fitted = (fields if len(fields) == width else _fit_width(fields, width)
              for fields in records)
    return _as_cells(list(itertools.chain.from_iterable(fitted)), width)


def _shared(cells, caches):
    """The block's cells with equal texts of a column sharing one string object.

    Memory only (the values are the same texts): a column of a few values
    holds a pointer a cell instead of a string a cell (a CSV of 10 M rows
    read as text held about ten times the file). ``caches`` is one dict per
    column, kept across blocks and given up (None) past ``_SHARED_TEXTS``
    distinct texts (an ID column), whose cells then share within a block.
    """
    for j, cache in enumerate(caches):
        codes, texts = pd.factorize(cells[:, j])
        if cache is not None:
            texts = np.fromiter((cache.setdefault(t, t) for t in texts), dtype=object,
                                count=len(texts))
            if len(cache) > _SHARED_TEXTS:
                caches[j] = None
        cells[:, j] = texts[codes]
    return cells


def _as_cells(flat, width):
    """Cells listed row after row as an object array of ``width`` columns."""
    return np.fromiter(flat, dtype=object, count=len(flat)).reshape(-1, width)


def _without_leading_spaces(text):
    """``text`` without the spaces that start a field (at its start, after a comma)."""
    return _LEADING_SPACES.sub("", text) if text[:1] == " " or ", " in text else text


def _split_line(line):
    """The fields of one line, by the csv module's rules within this line only."""
    if '"' not in line:  # the csv module's result, faster
        return _without_leading_spaces(line).split(",")
    has_cr = "\r" in line
    if has_cr:
        line = line.replace("\r", _CR_STAND_IN)
    try:
        fields = next(csv.reader((line,), **_DIALECT))
    except csv.Error:  # none is known once the field limit is lifted: cells missing
        return []
    return [field.replace(_CR_STAND_IN, "\r") for field in fields] if has_cr else fields


def _record_blocks(lines):
    """Lists of records by standard CSV over the whole file (quoted fields span lines).

    ``lines`` are blocks of :func:`_byte_lines`; the csv module reads them as a
    file opened with ``newline=""``: split after each ``\\n`` and bare ``\\r``.
    """
    reader = csv.reader(itertools.chain.from_iterable(map(_csv_lines, lines)), **_DIALECT)
    try:
        while block := list(itertools.islice(reader, _BLOCK_RECORDS)):
            yield block
    except csv.Error:  # a quoted field longer than the limit
        raise ValueError("a quoted field runs past the maximum record length") from None


def _csv_lines(block):
    """A block of lines (:func:`_byte_lines`) as the csv module's lines, each with its
    line end (a line over the limit: a blank line)."""
    lines, ended = block
    if not lines:
        return []
    text = b"\n".join(b"" if line is None else line for line in lines)
    text = text.decode("utf-8", "replace") + ("\n" if ended else "")
    pieces = _LINE_ENDS.split(text)
    if pieces[-1] == "" and (ended or len(pieces) > 1):  # after the last line end
        pieces.pop()
    return pieces


def _column_names(fields):
    """The column names of the header's fields; ValueError for a header's problem."""
    if fields in ([], [""]):
        raise ValueError("the first line (the header) is blank")
    if any("\r" in name for name in fields):
        raise ValueError("the header holds a carriage return: lines must end in LF or CRLF")
    names = [name or f"Unnamed: {i}" for i, name in enumerate(fields)]
    twice = [name for name in dict.fromkeys(names) if names.count(name) > 1]
    if twice:
        raise ValueError(f"the header names column {twice[0]!r} more than once")
    return names


def _fit_width(fields, width):
    """Fewer fields than columns: padded with missing cells; more: every cell missing."""
    if len(fields) > width:
        return [""] * width
    return fields + [""] * (width - len(fields))
