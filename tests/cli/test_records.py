"""How a CSV file becomes records (:mod:`skdpgen._records`), and its neighbours.

The record contract, clause by clause, through the command line's reading of
a private table (``skdpgen._cli_files.read_table``); the reader's fast paths
against the csv module's line-by-line result; equality with pandas on
well-formed files. Then neighbouring files through ``skdpgen synthesize``:
one record replaced by a malformed form (a blank line, a carriage return, an
unquoted comma, a stray quote, a byte that is not UTF-8) changes neither the
exit status, nor the printed number of rows, nor the release plan, and no
message quotes or locates it.
"""

import csv
import io
import json
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skdpgen import _records
from skdpgen._cli_files import UsageError, read_table
from skdpgen._records import read_records
from skdpgen.cli import main
from skdpgen.privacy import reproducible_noise


def _read(tmp_path, data, **kwargs):
    """The command line's reading of a private CSV file holding ``data`` (bytes)."""
    path = tmp_path / "data.csv"
    path.write_bytes(data)
    return read_table(path, **kwargs)


def _rows(frame):
    return frame.to_numpy().tolist()


def _pandas(path):
    """pandas' reading that the command line used before the record contract."""
    return pd.read_csv(path, dtype=str, keep_default_na=False, na_filter=False,
                       skipinitialspace=True)


# -- the contract, clause by clause ---------------------------------------------

def test_blank_line_is_a_record_of_missing_cells(tmp_path):
    frame = _read(tmp_path, b"a,b\n1,2\n\n3,4\n")
    assert _rows(frame) == [["1", "2"], ["", ""], ["3", "4"]]


def test_bare_carriage_return_is_a_character_of_its_record(tmp_path):
    frame = _read(tmp_path, b'a,b\nx\ry,1\n"p\rq",2\nz,3\n')
    assert _rows(frame) == [["x\ry", "1"], ["p\rq", "2"], ["z", "3"]]


def test_crlf_file_reads_as_lf_file(tmp_path):
    lf = _read(tmp_path, b'a,b\n1,"x"\n\n3,4\n')
    crlf = _read(tmp_path, b'a,b\r\n1,"x"\r\n\r\n3,4\r\n')
    pd.testing.assert_frame_equal(lf, crlf)
    assert _rows(crlf) == [["1", "x"], ["", ""], ["3", "4"]]


def test_more_fields_than_the_header_give_a_record_of_missing_cells(tmp_path):
    frame = _read(tmp_path, b"a,b\n1,2\nx,y,z\n3,4\n")
    assert _rows(frame) == [["1", "2"], ["", ""], ["3", "4"]]
    one = _read(tmp_path, b"a\n1\n4,2\n3\n")  # an unquoted comma in a one-column file
    assert _rows(one) == [["1"], [""], ["3"]]


def test_fewer_fields_than_the_header_are_padded(tmp_path):
    frame = _read(tmp_path, b'a,b,c\n1\n"x",2\n1,2,3\n')
    assert _rows(frame) == [["1", "", ""], ["x", "2", ""], ["1", "2", "3"]]


def test_stray_quote_runs_to_the_end_of_its_line_only(tmp_path):
    frame = _read(tmp_path, b'a,b\n"x,1\n2,3\nq"r,4\n')
    assert _rows(frame) == [["x,1", ""], ["2", "3"], ['q"r', "4"]]


def test_bytes_that_are_not_utf8_are_replaced(tmp_path):
    frame = _read(tmp_path, "a,b\nCafé,1\n".encode() + b"Caf\xe9,2\n\xff\xfe,3\n")
    assert _rows(frame) == [["Café", "1"], ["Caf\ufffd", "2"], ["\ufffd\ufffd", "3"]]


def test_leading_bom_is_dropped(tmp_path):
    frame = _read(tmp_path, b"\xef\xbb\xbfa,b\n1,2\n")
    assert list(frame.columns) == ["a", "b"] and _rows(frame) == [["1", "2"]]


def test_last_line_without_newline_is_a_record(tmp_path):
    assert _rows(_read(tmp_path, b"a\n1\n2")) == [["1"], ["2"]]
    assert _rows(_read(tmp_path, b"a\r\n1\r\n2\r")) == [["1"], ["2"]]
    assert _rows(_read(tmp_path, b"a\n1\n2\n\n")) == [["1"], ["2"], [""]]
    assert len(_read(tmp_path, b"a,b\n")) == 0


def test_quoted_commas_and_doubled_quotes(tmp_path):
    frame = _read(tmp_path, b'a,b\n"x, y","say ""hi"""\n"",""""\n')
    assert _rows(frame) == [["x, y", 'say "hi"'], ["", '"']]


def test_spaces_starting_a_field_are_dropped_as_by_pandas(tmp_path):
    data = b'a,b,c\n  1, x y ,  "p, q"\n'
    frame = _read(tmp_path, data)
    assert _rows(frame) == [["1", "x y ", "p, q"]]
    assert _rows(frame) == _rows(_pandas(tmp_path / "data.csv"))


def test_cells_are_python_str_of_dtype_object(tmp_path):
    frame = _read(tmp_path, b"a,b\n1,\n\nx\n")
    assert all(t == object for t in frame.dtypes)
    assert all(type(v) is str for v in frame.to_numpy().ravel())


def test_unnamed_columns_are_named_as_by_pandas(tmp_path):
    frame = _read(tmp_path, b",a,\n0,1,2\n")
    assert list(frame.columns) == ["Unnamed: 0", "a", "Unnamed: 2"]
    assert list(frame.columns) == list(_pandas(tmp_path / "data.csv").columns)


@pytest.mark.parametrize("data, message", [
    (b"", "empty"),
    (b"\na,b\n1,2\n", "blank"),
    (b"a,b,a\n1,2,3\n", "'a' more than once"),
    (b"a,b\r1,2\r3,4\r", "carriage return"),
])
def test_header_problems_are_usage_errors(tmp_path, data, message):
    with pytest.raises(UsageError, match=message):
        _read(tmp_path, data)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=12).map(lambda b: b.replace(b"\n", b"")), max_size=30),
       st.integers(1, 4), st.booleans())
def test_n_is_the_number_of_lines_whatever_they_hold(lines, width, crlf):
    end = b"\r\n" if crlf else b"\n"
    header = b",".join(b"c%d" % i for i in range(width))
    data = end.join([header, *lines]) + end
    frame = read_records(io.BytesIO(data))
    assert frame.shape == (len(lines), width)
    assert all(type(v) is str for v in frame.to_numpy().ravel())


# -- the fast paths: the csv module's result, line by line -----------------------

LINE = st.text(alphabet=[",", " ", "a", "é", "\x00", '"', "\r", "\t"], max_size=15)


@settings(max_examples=300, deadline=None)
@given(LINE.filter(lambda s: '"' not in s and "\r" not in s))
def test_line_without_quote_splits_as_the_csv_module(line):
    expected = next(csv.reader([line], **_records._DIALECT)) or [""]  # [] for a blank line
    assert _records._split_line(line) == expected


@settings(max_examples=300, deadline=None)
@given(LINE)
def test_carriage_return_is_kept_as_a_character(line):
    as_letter = _records._split_line(line.replace("\r", "R"))  # R: not in the alphabet
    assert _records._split_line(line) == [field.replace("R", "\r") for field in as_letter]


@settings(max_examples=200, deadline=None)
@given(st.lists(LINE, max_size=20), st.integers(1, 4))
def test_block_split_is_the_line_by_line_split(lines, width):
    fitted = [_records._fit_width(_records._split_line(line), width) for line in lines]
    assert _records._cells_of_lines(lines, width).tolist() == fitted


def test_blocks_of_any_size_read_alike(monkeypatch):
    data = 'h,i\n"a, b",1\r\n\nc\r,d\ré,"e\n'.encode() + b"x,y" * 7
    whole = read_records(io.BytesIO(data))
    for size in (1, 2, 3, 7):
        monkeypatch.setattr(_records, "_BLOCK_BYTES", size)
        pd.testing.assert_frame_equal(read_records(io.BytesIO(data)), whole)


def test_record_blocks_are_the_records_a_block_at_a_time(tmp_path, monkeypatch):
    """Issue 43: the command line reads a CSV block by block. The blocks of
    every size, concatenated, are the records read whole (the same
    adversarial lines), a path gives a pass each time it is iterated, and a
    file object gives one."""
    data = 'h,i\n"a, b",1\r\n\nc\r,d\ré,"e\n'.encode() + b"x,y\n" * 7 + b"z"
    (tmp_path / "t.csv").write_bytes(data)
    for multiline in (False, True):
        whole = read_records(io.BytesIO(data), multiline=multiline)
        for chars, rows in ((1, 1), (3, 2), (7, 4), (1 << 20, 1)):
            monkeypatch.setattr(_records, "_BLOCK_BYTES", chars)
            monkeypatch.setattr(_records, "_BLOCK_RECORDS", rows)
            blocks = _records.RecordBlocks(tmp_path / "t.csv", multiline=multiline,
                                           block_rows=rows)
            assert blocks.columns == ["h", "i"] and blocks.n_rows is None
            for _ in range(2):  # a path: any number of passes
                parts = list(blocks)
                assert len(parts) > 1 or rows > 1  # a block a row
                pd.testing.assert_frame_equal(pd.concat(parts, ignore_index=True), whole)
                assert blocks.n_rows == len(whole)
    once = _records.RecordBlocks(io.BytesIO(data))
    assert len(pd.concat(list(once))) == len(read_records(io.BytesIO(data)))
    with pytest.raises(ValueError, match="one pass"):
        list(once)


def test_long_field_reads_and_the_field_limit_is_restored():
    limit = csv.field_size_limit()
    long = "x" * (limit + 10)
    frame = read_records(io.BytesIO(f'a,b\n"{long}",1\n'.encode()))
    assert frame["a"].iloc[0] == long and csv.field_size_limit() == limit
    assert read_records(io.BytesIO(f'a\n"{long}'.encode()), multiline=True)["a"][0] == long


def test_buffer_is_read_and_left_open():
    buffer = io.BytesIO(b"a\n1\n")
    assert _rows(read_records(buffer)) == [["1"]]
    assert not buffer.closed


# -- equality with pandas on well-formed files -----------------------------------

def _assert_as_pandas(path, **kwargs):
    ours = read_records(path, **kwargs)
    theirs = _pandas(path)
    assert list(ours.columns) == list(theirs.columns)
    assert ours.shape == theirs.shape
    assert _rows(ours) == _rows(theirs.astype(object))


def test_adult_reads_as_pandas_reads_it(tmp_path):
    from skdpgen.datasets import load_adult

    adult = load_adult()
    adult.data.assign(income=adult.target).to_csv(tmp_path / "adult.csv", index=False)
    _assert_as_pandas(tmp_path / "adult.csv")
    adult.data.to_csv(tmp_path / "indexed.csv")  # with pandas' row index
    _assert_as_pandas(tmp_path / "indexed.csv")


QUOTED = pd.DataFrame({
    "text": ["a, b", 'say "hi"', "", " lead", "trail ", '"', ",", "plain", "semi;colon", "né"],
    "n": ["1", "-2.5", "", "1e3", "NA", "3", "4", "5", "6", "7"],
    "mixed": ['"q"', "a,b,c", "  ", "x", "", ",,", '""', "a\tb", "z", "k"],
})


def test_quoted_fields_read_as_pandas_reads_them(tmp_path):
    QUOTED.to_csv(tmp_path / "quoted.csv", index=False)
    _assert_as_pandas(tmp_path / "quoted.csv")
    QUOTED.to_csv(tmp_path / "all.csv", index=False, quoting=csv.QUOTE_ALL, lineterminator="\r\n")
    _assert_as_pandas(tmp_path / "all.csv")


def test_multiline_reads_quoted_line_breaks_as_pandas_does(tmp_path):
    table = QUOTED.assign(text=QUOTED["text"].str.replace("a, b", "a\nb"))
    table.to_csv(tmp_path / "multi.csv", index=False)
    _assert_as_pandas(tmp_path / "multi.csv", multiline=True)
    # line by line, the quoted line break splits that record in two
    assert len(read_records(tmp_path / "multi.csv")) == len(table) + 1


def test_multiline_open_quote_takes_in_the_lines_after_it():
    data = b'a,b\n1,2\n"3,4\n5,6\n7,8\n'
    assert len(read_records(io.BytesIO(data))) == 4
    frame = read_records(io.BytesIO(data), multiline=True)
    assert _rows(frame) == [["1", "2"], ["3,4\n5,6\n7,8\n", ""]]


# -- neighbours through the command line -----------------------------------------

N = 400
WHERE = 200  # the replaced record's index (line 202 of the file)
SCHEMA = {"x": {"type": "numeric", "bounds": [0, 100], "integer": True, "missing": True},
          "c": {"type": "categorical", "categories": ["a", "b"], "missing": True}}
# one record, replaced by a malformed form: (one-column line, two-column line)
MALFORMED = {
    "empty line": (b"", b""),
    "carriage return inside": (b"97\r31", b"97\r31,a"),
    "unquoted comma": (b"97,31", b"97,31,a"),
    "stray opening quote": (b'"9731', b'"9731,a'),
    "latin-1 byte": (b"97\xe931", b"97\xe931,a"),
}
TOKEN = "9731"  # in no clean record (0 to 99)


def _file(tmp_path, name, columns, record=None):
    rng = np.random.default_rng(0)
    lines = [b"%d" % v for v in rng.integers(0, 100, N)]
    if columns == 2:
        lines = [v + b"," + c for v, c in zip(lines, rng.choice([b"a", b"b"], N))]
    if record is not None:
        lines[WHERE] = record
    header = b"x" if columns == 1 else b"x,c"
    path = tmp_path / f"{name}.csv"
    path.write_bytes(b"\n".join([header, *lines]) + b"\n")
    return path


def _synthesize(tmp_path, path, capsys, *extra):
    """``(status, stdout + stderr, report or None, synthetic columns or None)``."""
    columns = path.read_bytes().split(b"\n", 1)[0].decode().split(",")
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({c: SCHEMA[c] for c in columns}))
    out = path.with_suffix(".syn.csv")
    with warnings.catch_warnings(), reproducible_noise(3):
        warnings.simplefilter("ignore")
        status = main(["synthesize", str(path), "--schema", str(schema), "--epsilon", "1",
                       "--out", str(out), "--quiet", "--random-state", "0", *extra])
    captured = capsys.readouterr()
    text = captured.out + captured.err
    if status != 0:
        return status, text, None, None
    report = json.loads(path.with_suffix(".syn.privacy.json").read_text())
    return status, text, report, list(pd.read_csv(out, dtype=str).columns)


def _fitted_rows(text):
    return [int(n) for n in re.findall(r"fitted on (\d+) rows", text)]


def _plan(report):
    return [(r["release"], r["sensitivity"], r["noise_multiplier"], r["count"])
            for r in report["releases"]], report["epsilon"]


@pytest.mark.parametrize("columns", [1, 2])
@pytest.mark.parametrize("form", list(MALFORMED))
def test_one_malformed_record_changes_no_decision(tmp_path, capsys, fast_fits, form, columns):
    record = MALFORMED[form][columns - 1]
    clean = _synthesize(tmp_path, _file(tmp_path, "clean", columns), capsys)
    status, text, report, names = _synthesize(
        tmp_path, _file(tmp_path, "neighbour", columns, record), capsys)
    assert clean[0] == status == 0, text
    assert _fitted_rows(clean[1]) == _fitted_rows(text) == [N]
    assert names == clean[3] == (["x"] if columns == 1 else ["x", "c"])
    assert _plan(report) == _plan(clean[2])
    # no message quotes or locates the record
    for shown in (TOKEN, "97,31", record.decode("utf-8", "replace"), record.decode("latin-1")):
        assert not record or shown not in text, shown
    for line in text.splitlines():
        assert not re.search(r"\b(?:line|row|record) \d", line), line


def test_multiline_records_is_a_leak_in_the_report(tmp_path, capsys, fast_fits):
    path = tmp_path / "multi.csv"
    path.write_text('x,c\n1,a\n2,"b"\n3,a\n')
    status, text, report, _ = _synthesize(tmp_path, path, capsys, "--multiline-records")
    assert status == 0, text
    assert not report["is_private"]
    assert [leak["what"] for leak in report["leaks"]] == ["records"]
    assert "--multiline-records" in report["leaks"][0]["why"]
    assert "PRIVACY WARNING" in text and "NOT differentially private" in text
    # --strict refuses it before reading anything, and writes nothing
    for written in tmp_path.glob("multi.syn*"):
        written.unlink()
    status, text, _, _ = _synthesize(tmp_path, path, capsys, "--multiline-records", "--strict")
    assert status == 2 and "--strict" in text and "--multiline-records" in text
    assert not list(tmp_path.glob("multi.syn*"))


def test_private_schema_with_multiline_records_reports_the_leak(tmp_path, capsys):
    path = tmp_path / "multi.csv"
    path.write_text("x\n" + "\n".join(map(str, range(300))) + "\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        status = main(["schema", str(path), "--epsilon", "1", "--out",
                       str(tmp_path / "s.json"), "--multiline-records"])
    assert status == 0, capsys.readouterr().err
    report = json.loads((tmp_path / "s.privacy.json").read_text())
    assert not report["is_private"] and report["leaks"][0]["what"] == "records"


def test_synthesize_help_states_the_record_contract(capsys):
    with pytest.raises(SystemExit):
        main(["synthesize", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for words in ("one record per line", "blank line", "missing", "UTF-8",
                  "--multiline-records", "not private", "--max-record-bytes",
                  "--no-final-newline", "default: 1048576"):
        assert words in text, words


def test_equal_texts_of_a_column_share_one_string():
    # memory only: a column of a few values holds a pointer a cell
    import io

    from skdpgen._records import read_records

    rows = "".join(f"{'yes' if i % 2 else 'no'},{i}\n" for i in range(200_000))
    frame = read_records(io.BytesIO(("a,b\n" + rows).encode()))
    a = frame["a"].to_numpy()
    assert a[0] == "no" and a[1] == "yes" and len(frame) == 200_000
    assert len({id(v) for v in a}) == 2  # across blocks too
    assert frame["b"].tolist()[:3] == ["0", "1", "2"]


# -- issue 54: the joined form's blank last record, the maximum record length ----

def _joined(tmp_path, columns, last):
    """A file written as ``"\\n".join(records)``: N records, the last one ``last``."""
    path = _file(tmp_path, "joined", columns)
    lines = path.read_bytes().split(b"\n")[:-1]  # the header and N records
    lines[-1] = last
    path.write_bytes(b"\n".join(lines))
    return path


@pytest.mark.parametrize("columns", [1, 2])
def test_joined_file_keeps_its_blank_last_record(tmp_path, capsys, fast_fits, columns):
    """A blank last record of a file whose records are joined by line breaks is a
    record with --no-final-newline (declared: the file cannot tell it), so ``n``
    is the same whatever the last record holds, for every method."""
    for last in (b"", b"7" if columns == 1 else b"7,a"):
        path = _joined(tmp_path, columns, last)
        assert len(read_table(path, final_newline=False)) == N
        for method in (["--method", "release"], []) if columns == 1 else ([],):
            status, text, _, _ = _synthesize(tmp_path, path, capsys, "--no-final-newline",
                                             *method)
            assert status == 0 and _fitted_rows(text) == [N], text
    # without it, a line break that ends the file ends the last record (pandas' files)
    assert len(read_table(_joined(tmp_path, 1, b""))) == N - 1
    assert _rows(_read(tmp_path, b"a\n1\n", final_newline=False)) == [["1"], [""]]
    assert _rows(_read(tmp_path, b"a\n1\n", final_newline=False, multiline=True)) == [["1"], [""]]
    assert _rows(_read(tmp_path, b"a\n1", final_newline=False)) == [["1"]]
    with pytest.raises(UsageError, match="empty"):
        _read(tmp_path, b"", final_newline=False)


@pytest.mark.parametrize("multiline", [False, True])
def test_record_over_the_limit_is_a_record_of_missing_cells(tmp_path, monkeypatch, multiline):
    """A line of more than max_record_bytes bytes (its line end aside) is a record of
    missing values, whatever the reader's block size; n is unchanged."""
    data = (b"ab,c\n12345,1\r\n123456,2\n" + "\u00e9\u4e2d".encode() + b",3\n"
            + b"9" * 40 + b"\n12,\xff\n12345678")
    expected = [["12345", "1"], ["", ""], ["\u00e9\u4e2d", "3"], ["", ""], ["12", "\ufffd"],
                ["", ""]]
    for size in (1, 2, 3, 5, 7, 64, 1 << 20):
        monkeypatch.setattr(_records, "_BLOCK_BYTES", size)
        frame = _read(tmp_path, data, max_record_bytes=7, multiline=multiline)
        assert _rows(frame) == expected, size
    assert len(_read(tmp_path, data, max_record_bytes=40, multiline=multiline)) == 6
    with pytest.raises(UsageError, match="header.*longer than the maximum record length"):
        _read(tmp_path, data, max_record_bytes=3, multiline=multiline)
    if multiline:  # a quoted field over lines past the limit (a declared leak): an error
        spanning = b'a,b\n"123\n456\n789",1\n'
        assert _rows(_read(tmp_path, spanning, max_record_bytes=11, multiline=True)) == [
            ["123\n456\n789", "1"]]
        with pytest.raises(UsageError, match="quoted field runs past the maximum"):
            _read(tmp_path, spanning, max_record_bytes=10, multiline=True)


def test_long_record_is_read_in_bounded_memory(tmp_path):
    """A record of 24 MB, a character outside Latin-1 at its start (4 bytes a
    character when held as text): the read holds a few megabytes at most."""
    import tracemalloc

    size = 24 << 20
    path = tmp_path / "long.csv"
    with open(path, "wb") as fh:
        fh.write(b"a,b\n1,x\n" + "\u4e2d".encode() + b"y" * size + b",2\n3,z")
    tracemalloc.start()
    try:
        frame = read_records(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert _rows(frame) == [["1", "x"], ["", ""], ["3", "z"]]
    assert peak < size / 4, peak  # measured: about 3 MB (the line held whole: 200 MB)
