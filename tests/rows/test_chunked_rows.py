"""A fit reads its rows chunk by chunk: the encoded table is never held whole.

The releases are sums over rows, so chunking must not change them: a fit with
chunks of a few rows releases what a fit in one chunk releases (to rounding,
under the same reproducible noise), and never encodes more than a chunk of
rows at once.
"""

import contextlib
import warnings

import numpy as np
import pandas as pd
import pytest

from skdpgen import DPHPSynthesizer, DPMERFSynthesizer, MarginalSynthesizer
from skdpgen.privacy import release_tape, reproducible_noise
from skdpgen.rows import _memory
from skdpgen.schema import TableEncoder

SCHEMA = {
    "age": {"type": "numeric", "bounds": [18, 90], "integer": True},
    "city": {"type": "categorical", "categories": ["Lyon", "Nice", "Paris"]},
    "income": {"type": "numeric", "bounds": [0, 200_000], "missing": True},
}


def table(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "age": rng.integers(18, 90, n),
        "city": rng.choice(["Paris", "Lyon", "Nice"], n),
        "income": np.where(rng.random(n) < 0.1, np.nan, rng.lognormal(10, 1, n)),
    })
    return X, rng.integers(0, 2, n)


@contextlib.contextmanager
def encoded_rows():
    """The number of rows of every block the table encoder encodes, as a list."""
    seen = []
    transform = TableEncoder.transform_table

    def counting(self, frame):
        seen.append(len(frame))
        return transform(self, frame)

    with pytest.MonkeyPatch.context() as mp, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mp.setattr(TableEncoder, "transform_table", counting)
        yield seen


def fit_recorded(make, X, y):
    """The releases of one fit under reproducible noise, and the largest
    number of rows encoded at once."""
    with encoded_rows() as seen, reproducible_noise(0), release_tape() as tape:
        make().fit(X, y)
    return tape.records, max(seen)


@pytest.mark.parametrize("make", [
    lambda: DPHPSynthesizer(schema=SCHEMA, classes=[0, 1], epochs=2, random_state=0,
                            epsilon=1.0),
    lambda: DPMERFSynthesizer(schema=SCHEMA, classes=[0, 1], n_components=30, epochs=2,
                              steps_per_epoch=3, random_state=0, epsilon=1.0),
], ids=["dphp", "dpmerf"])
def test_chunked_releases_equal_the_unchunked_ones(make, monkeypatch):
    X, y = table()
    whole, at_once = fit_recorded(make, X, y)
    assert at_once == len(X)  # one chunk: the default chunk holds every row here
    monkeypatch.setattr(_memory, "_CHUNK_VALUES", 500)  # a few rows per chunk
    chunked, at_once = fit_recorded(make, X, y)
    # never an n x (encoded width) array: at most a chunk of rows encoded at once
    assert at_once < len(X) // 4
    assert [name for name, _ in chunked] == [name for name, _ in whole]
    for (name, a), (_, b) in zip(whole, chunked):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15, err_msg=name)


def test_a_table_encoded_chunk_by_chunk_is_the_table_encoded():
    # columns out of the schema's order: the chunks are of the reordered table
    X, _ = table(50)
    enc = TableEncoder(SCHEMA).fit(X)
    whole = enc.transform(X)
    frame = enc.table(X[["income", "city", "age"]])
    parts = [enc.transform_table(frame.iloc[i:i + 7]) for i in range(0, len(frame), 7)]
    np.testing.assert_array_equal(np.vstack(parts), whole)


def test_the_marginal_releases_read_the_rows_once():
    # four releases (one- and two-way, overall and by class), one pass: each
    # row is encoded once, whatever the number of chunks
    X, y = table(2000)
    with encoded_rows() as encoded, pytest.MonkeyPatch.context() as mp:
        mp.setattr(_memory, "_CHUNK_VALUES", 5_000)  # blocks of 15,000 encoded values
        synth = MarginalSynthesizer(schema=SCHEMA, classes=[0, 1], epochs=2, random_state=0,
                                    epsilon=1.0).fit(X, y)
    names = [r.name for r in synth.privacy_report_.releases]
    assert {"one-way marginals", "one-way marginals by class", "two-way marginals",
            "two-way marginals by class"} <= set(names)
    assert len(encoded) > 1 and sum(encoded) == len(X)


def test_a_table_read_by_blocks_releases_what_the_table_in_memory_releases(
        tmp_path, monkeypatch):
    """Issue 43: a CSV larger than memory is read a block of rows at a time
    (``RecordBlocks`` → ``split_blocks``). With the schema and the class list
    estimated privately, every release (the schema's included) equals the
    in-memory fit's under the same reproducible noise, the fitted model is the
    same, and no more than a block of rows is ever encoded at once."""
    from skdpgen._records import RecordBlocks, read_records
    from skdpgen import _records
    from skdpgen.rows import split_blocks

    X, y = table(600, seed=1)
    X.assign(label=np.where(y == 1, "yes", "no"), note="free text").to_csv(
        tmp_path / "t.csv", index=False)
    frame = read_records(tmp_path / "t.csv")

    def make():
        return DPHPSynthesizer(epochs=2, random_state=0, epsilon=1.0)

    whole, _ = fit_recorded(make, frame.drop(columns=["label", "note"]), frame["label"])
    monkeypatch.setattr(_records, "_BLOCK_BYTES", 2048)  # about 60 lines a read
    Xb, yb = split_blocks(RecordBlocks(tmp_path / "t.csv", block_rows=50), "label",
                          drop=["note"])
    blocks, at_once = fit_recorded(make, Xb, yb)
    assert at_once < len(frame) // 4  # a block at a time, never the table
    assert any(name.startswith("schema") for name, _ in whole)
    assert [name for name, _ in blocks] == [name for name, _ in whole]
    for (name, a), (_, b) in zip(whole, blocks):
        if isinstance(a, tuple):  # a selection: the kept keys and their noisy counts
            assert a[0] == b[0], name
            a, b = a[1], b[1]
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15, err_msg=name)


def test_the_command_line_reads_its_csv_a_block_at_a_time(tmp_path, monkeypatch):
    """Issue 43: ``skdpgen synthesize`` on a CSV never reads the file whole (no
    ``read_records``) and never encodes more than a block of rows at once; the
    output has the input's row count."""
    from skdpgen import _records
    from skdpgen.cli import main

    X, y = table(1200, seed=2)
    X.assign(label=y).to_csv(tmp_path / "t.csv")  # with a row index: dropped
    schema = {**SCHEMA, "label": {"type": "categorical", "categories": [0, 1]}}
    (tmp_path / "s.json").write_text(__import__("json").dumps(schema))

    def whole(*args, **kwargs):
        raise AssertionError("the file was read whole")

    monkeypatch.setattr(_records, "read_records", whole)
    monkeypatch.setattr(_records, "_BLOCK_BYTES", 4096)
    monkeypatch.setitem(_records.RecordBlocks.__init__.__kwdefaults__, "block_rows", 100)
    from skdpgen.synthesizers import BaseSynthesizer

    fit, fitted = BaseSynthesizer.fit, []

    def fit_marked(self, *args, **kwargs):  # the rows encoded until the fit ends are
        out = fit(self, *args, **kwargs)    # the private ones (then synthetic rows)
        fitted.append(len(seen))
        return out

    monkeypatch.setattr(BaseSynthesizer, "fit", fit_marked)
    with encoded_rows() as seen:
        code = main(["synthesize", str(tmp_path / "t.csv"), "--schema", str(tmp_path / "s.json"),
                     "--target", "label", "--epsilon", "1", "--out", str(tmp_path / "o.csv"),
                     "--quiet"])
    assert code == 0 and fitted and max(seen[:fitted[0]]) < len(X) // 4
    out = pd.read_csv(tmp_path / "o.csv")
    assert len(out) == len(X) and list(out.columns) == ["age", "city", "income", "label"]


def test_a_pass_over_blocks_holds_one_block_at_a_time():
    """Issue 54: ``BlockRows`` reads a block when its sum needs it, never the source
    ahead (a list of its blocks would hold the whole table). Counted as the
    blocks' rows alive, collected, each time a block is read."""
    import gc
    import weakref

    from sklearn.base import BaseEstimator

    from skdpgen.kernels import RandomFourierFeatures
    from skdpgen.rows import make_rows
    from skdpgen.rows import split_blocks

    X, _ = table(400)

    class Source(list):
        columns = list(X.columns)

    frame = X.astype(str)
    source = Source(frame.iloc[i:i + 50] for i in range(0, len(frame), 50))  # 8 blocks
    Xb, _ = split_blocks(source)
    encoder = TableEncoder(SCHEMA).fit(Xb)
    rows = make_rows(BaseEstimator(), Xb, reset=True, encoder=encoder)
    refs, most, read = [], [], rows.read

    def tracked(block):
        out = read(block)
        gc.collect()
        refs.append(weakref.ref(out))
        most.append(sum(ref() is not None for ref in refs))
        return out

    rows.read = tracked
    fmap = RandomFourierFeatures(n_components=8, random_state=0).fit(
        np.zeros((1, rows.n_columns)))
    whole = rows.feature_sums(fmap)
    assert len(most) == len(source) and max(most) <= 2, most  # this block and the last
    rows.read = read  # the same sum, read as the encoder reads it
    np.testing.assert_allclose(rows.feature_sums(fmap), whole)


def test_worker_threads_sum_in_order_with_one_thread_each(monkeypatch):
    """Issue 56: with several workers the chunks are summed in tasks, in the same
    order whatever ``n_jobs`` (the sums are equal to the last bit). BLAS runs
    one thread inside every sum (a threaded product stalls beside a busy
    process); with several workers torch does too (a pool per worker would
    oversubscribe the cores). Their settings are restored afterwards."""
    import threading

    import torch
    from threadpoolctl import threadpool_info, threadpool_limits

    from skdpgen import HermiteFeatures
    from skdpgen.rows import chunk_feature_sums

    X = np.random.default_rng(0).uniform(-2, 2, (3000, 3))
    codes = np.random.default_rng(1).integers(0, 3, 3000)
    fmap = HermiteFeatures(order=6).fit(X)
    # chunks of 44 rows (the fused sum holds 2 x 3 values and 3 weights a row),
    # tasks of 4 chunks (about 4000 of the 21 features' values)
    monkeypatch.setattr(_memory, "_CHUNK_VALUES", 400)
    monkeypatch.setattr(_memory, "_TASK_VALUES", 4000)
    seen = []
    feature_sum = HermiteFeatures.feature_sum

    def recording(self, Z, W):
        blas = [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]
        seen.append((threading.current_thread() is threading.main_thread(),
                     torch.get_num_threads(), max(blas, default=1)))
        return feature_sum(self, Z, W)

    monkeypatch.setattr(HermiteFeatures, "feature_sum", recording)
    torch_before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        with threadpool_limits(limits=2, user_api="blas"):
            one = chunk_feature_sums(fmap, X, codes, 3, n_jobs=1)
            assert {s[1:] for s in seen} == {(2, 1)}  # one worker: torch as it was
            seen.clear()
            two = chunk_feature_sums(fmap, X, codes, 3, n_jobs=2)
            assert not all(s[0] for s in seen)  # the workers' threads summed
            assert {s[1:] for s in seen} == {(1, 1)}
            assert torch.get_num_threads() == 2  # restored
            assert {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"} <= {2}
    finally:
        torch.set_num_threads(torch_before)
    np.testing.assert_array_equal(two, one)
    assert len(seen) == 69  # every chunk once (3000 / 44 rows)
