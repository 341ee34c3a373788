"""The raw private table of a fit: one object, memory or Dask decided once (issue 41)."""

import warnings
from collections import Counter

import numpy as np
import pandas as pd
import pytest

import skdpgen.rows._distributed as dask_module
import skdpgen.rows._memory as memory_module
from skdpgen.private_schema import SchemaPlan
from skdpgen.rows import TableRows, table_rows
from skdpgen._canonical import canonical


def _table(n=300):
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.integers(0, 5, n).astype(object),
                      "b": rng.choice(["x", "y", None], n)})
    X.loc[::7, "a"] = "7.5"  # another form of a number
    return X, rng.choice(["u", "v"], n)


def _forms(part, labels):
    out = {key: part[key].counts() for key in ("a", "b")}
    out["n"] = len(part)
    if labels is not None:
        out["labels"] = Counter(canonical(labels).tags())
    return out


def test_in_memory_table_is_one_partition():
    X, y = _table()
    rows = table_rows(X, y)
    assert isinstance(rows, TableRows) and table_rows(rows) is rows
    assert (rows.columns, rows.n_rows, rows.is_dask, rows.labels_dask) == (["a", "b"], 300,
                                                                          False, False)
    calls = []
    total = rows.partition_sums(lambda p, lab: calls.append(1) or _forms(p, lab), labels=True)
    assert calls == [1] and total["n"] == 300 and sum(total["labels"].values()) == 300
    assert table_rows(np.zeros((4, 3))).columns == [0, 1, 2]


def test_canonical_forms_are_cached_between_passes_only_inside_caching():
    X, _ = _table()
    rows = table_rows(X)
    with rows.caching():
        first = rows.partition_sums(lambda p, _: [p["a"]])[0]
        assert rows.partition_sums(lambda p, _: [p["a"]])[0] is first
    assert rows._cache is None  # dropped with the block: a fit holds no copy of the table
    assert rows.canonical("a") is not rows.canonical("a")


def test_dask_sums_equal_the_in_memory_ones_and_count_the_rows_in_passing(monkeypatch):
    dd = pytest.importorskip("dask.dataframe")
    X, y = _table()
    frame = X.assign(y=y)
    dX = dd.from_pandas(frame, npartitions=3)
    rows = table_rows(dX[["a", "b"]], dX["y"])
    assert rows.is_dask and rows.labels_dask and rows.columns == ["a", "b"]
    monkeypatch.setattr(dask_module, "count_rows", lambda X: pytest.fail("a second pass"))
    got = rows.partition_sums(_forms, labels=True)
    assert rows.n_rows == 300  # counted by the pass above
    want = table_rows(X, y).partition_sums(_forms, labels=True)
    assert got["labels"] == want["labels"] and got["n"] == want["n"]
    for key in ("a", "b"):
        np.testing.assert_array_equal(got[key], want[key])
    np.testing.assert_array_equal(rows.canonical("b").counts(), want["b"])


def test_a_dask_array_table_has_positions_and_two_dimensions():
    da = pytest.importorskip("dask.array")
    rows = table_rows(da.ones((10, 3), chunks=4))
    assert rows.columns == [0, 1, 2] and not rows.is_frame and rows.n_rows == 10
    assert rows.partition_sums(lambda p, _: len(p)) == 10
    with pytest.raises(ValueError, match="2-D"):
        table_rows(da.ones(10, chunks=4))


def test_the_leaky_read_of_a_dask_table_takes_labels_in_memory():
    dd = pytest.importorskip("dask.dataframe")
    X, y = _table()
    plan = SchemaPlan.from_table(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = plan.read_from_data(table_rows(X, y))
        got = plan.read_from_data(table_rows(dd.from_pandas(X, npartitions=2), y))
    assert got == want
    with pytest.raises(ValueError, match="labels for"):
        plan.read_from_data(table_rows(X, y[:-1]))


def test_the_estimate_takes_only_a_table():
    X, y = _table()
    plan = SchemaPlan.from_table(table_rows(X, y))
    assert plan.estimate_classes
    with pytest.raises(TypeError, match="table_rows"):
        plan.estimate(X, None)


def test_an_array_is_turned_into_a_frame_once_per_read_and_not_kept(monkeypatch):
    X = np.random.default_rng(0).integers(0, 3, (200, 6)).astype(float)
    built, build = [], memory_module.table_frame
    monkeypatch.setattr(memory_module, "table_frame", lambda X: built.append(1) or build(X))
    plan = SchemaPlan.from_table(table_rows(X))
    rows = table_rows(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        built.clear()
        plan.read_from_data(rows)  # its shape, then one frame for the six columns
        assert len(built) == 2
        built.clear()
        plan.read_from_data(rows)
        assert len(built) == 1
    assert rows._cache is None


def test_one_backend_hierarchy_reads_the_private_table():
    """Issue 64: one class per backend serves both the raw columns (the schema
    estimate's partition sums) and the encoded features (the releases' feature
    sums); the schema layer's second hierarchy is gone."""
    import ast
    import importlib.util
    from pathlib import Path

    import skdpgen
    from skdpgen.rows import ArrayRows, BlockRows, DaskRows

    assert importlib.util.find_spec("skdpgen.schema._rows") is None
    assert set(TableRows.__subclasses__()) == {ArrayRows, DaskRows, BlockRows}
    readers = {}
    package = Path(skdpgen.__file__).parent
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                methods = {f.name for f in node.body if isinstance(f, ast.FunctionDef)}
                if methods & {"partition_sums", "feature_sums"}:
                    readers[node.name] = (path.relative_to(package).as_posix(),
                                          methods >= {"partition_sums", "feature_sums"})
    assert readers == {"ArrayRows": ("rows/_memory.py", True),
                       "DaskRows": ("rows/_distributed.py", True),
                       "BlockRows": ("rows/_blocks.py", True)}


def _backend_table(backend):
    """``(X, y)`` of one small table, in memory, held by Dask or read by blocks."""
    rng = np.random.default_rng(0)
    n = 400
    X = pd.DataFrame({"age": rng.integers(18, 90, n).astype(str),
                      "city": rng.choice(["Lyon", "Nice", "Paris"], n)})
    y = rng.choice(["p", "q"], n)
    if backend == "dask":
        dd = pytest.importorskip("dask.dataframe")
        frame = dd.from_pandas(X.assign(label=y), npartitions=3)
        return frame[["age", "city"]], frame["label"]
    if backend == "blocks":
        from skdpgen.rows import split_blocks

        class Source(list):
            columns = ["age", "city", "label"]

        frame = X.assign(label=y)
        return split_blocks(Source([frame.iloc[:150], frame.iloc[150:]]), "label")
    return X, y


@pytest.mark.parametrize("backend, name", [("memory", "ArrayRows"), ("dask", "DaskRows"),
                                           ("blocks", "BlockRows")])
def test_the_schema_estimate_the_encoder_and_the_releases_read_one_object(
        backend, name, monkeypatch):
    from skdpgen import DPHPSynthesizer
    from skdpgen.rows import ArrayRows, BlockRows, DaskRows
    from skdpgen.schema import TableEncoder

    X, y = _backend_table(backend)
    seen = {"partition_sums": [], "feature_sums": [], "encoder": []}
    for cls in {ArrayRows, DaskRows, BlockRows, *TableRows.__subclasses__()}:
        for method in ("partition_sums", "feature_sums"):
            if method not in vars(cls):  # spied where it is defined
                continue

            def spy(self, *args, _original=vars(cls)[method], _method=method, **kwargs):
                seen[_method].append(self)
                return _original(self, *args, **kwargs)
            monkeypatch.setattr(cls, method, spy)
    fit = TableEncoder.fit
    monkeypatch.setattr(TableEncoder, "fit",
                        lambda self, X, *a, **k: seen["encoder"].append(X) or fit(self, X, *a, **k))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        DPHPSynthesizer(epochs=1, steps_per_epoch=2, random_state=0, epsilon=10.0).fit(X, y)
    assert seen["partition_sums"] and seen["feature_sums"] and seen["encoder"]
    objects = {id(o) for key in seen for o in seen[key]}
    assert len(objects) == 1  # one object: the schema's sums, the encoder's fit, the releases
    assert type(seen["feature_sums"][0]).__name__ == name
