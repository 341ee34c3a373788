"""Dask input: sums computed on a real multi-process cluster, noise added once."""

import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.preprocessing import StandardScaler

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")

from skdpgen import (  # noqa: E402
    DPHPSynthesizer,
    DPKMEReleaser,
    DPMERFSynthesizer,
    HermiteFeatures,
    KernelMeanEmbedding,
    RandomFourierFeatures,
)
from skdpgen.datasets import load_adult  # noqa: E402
from skdpgen.privacy import PrivacyLeakWarning, calibrate_gaussian  # noqa: E402


@pytest.fixture(scope="module")
def client():
    """Two worker processes, one thread each: every sum crosses a process boundary."""
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
        memory_limit="3GiB",
    ) as cluster, distributed.Client(cluster) as c:
        yield c


def _ran_on_workers(client, fn):
    """Run ``fn`` and return (its result, the workers that ran tasks meanwhile)."""
    with distributed.get_task_stream(client) as ts:
        out = fn()
    return out, {t["worker"] for t in ts.data}


def _data(n=9_001, d=4, seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(-1.5, 1.5, size=(n, d)), rng.integers(0, 3, size=n)


def test_skdpgen_does_not_import_dask():
    code = "import sys, skdpgen; assert 'dask' not in sys.modules, 'dask imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize(
    "features",
    [HermiteFeatures(order=11, length_scale=0.7),
     HermiteFeatures(order=4, kernel="product"),
     RandomFourierFeatures(n_components=300, random_state=0)],
    ids=["hermite-sum", "hermite-product", "rff"],
)
def test_nonprivate_embedding_equals_in_memory(client, features):
    X, y = _data()
    ref = KernelMeanEmbedding(features=features).fit(X, y)
    Xd = da.from_array(X, chunks=(1_000, 2))  # uneven last block, split columns
    yd = da.from_array(y, chunks=1_500)  # partitioned unlike X: rechunked to match
    kme, workers = _ran_on_workers(
        client, lambda: KernelMeanEmbedding(features=features).fit(Xd, yd))
    assert workers, "nothing ran on the cluster"
    np.testing.assert_allclose(kme.embedding_, ref.embedding_, rtol=0, atol=1e-10)
    np.testing.assert_array_equal(kme.classes_, ref.classes_)
    assert kme.sensitivity_ == ref.sensitivity_ == 2 / len(X)
    assert kme.score(Xd, yd) == pytest.approx(ref.score(X, y), abs=1e-12)
    np.testing.assert_allclose(kme.transform(Xd).compute(), ref.transform(X), atol=1e-12)


def test_dataframe_and_series_input(client):
    X, y = _data()
    frame = pd.DataFrame(X, columns=list("abcd")).assign(label=y)
    ddf = dd.from_pandas(frame, npartitions=6)
    ref = KernelMeanEmbedding(classes=[0, 1, 2]).fit(frame[list("abcd")], y)
    kme = KernelMeanEmbedding(classes=[0, 1, 2]).fit(ddf[list("abcd")], ddf["label"])
    np.testing.assert_allclose(kme.embedding_, ref.embedding_, rtol=0, atol=1e-10)
    # labels partitioned unlike the rows (as Parquet reads of fewer columns may be)
    labels = dd.from_pandas(pd.Series(y), npartitions=4)
    kme = KernelMeanEmbedding(classes=[0, 1, 2]).fit(ddf[list("abcd")], labels)
    np.testing.assert_allclose(kme.embedding_, ref.embedding_, rtol=0, atol=1e-10)
    np.testing.assert_array_equal(kme.feature_names_in_, list("abcd"))
    assert kme.n_features_in_ == 4


def test_private_noise_scale_and_report(client, same_noise):
    X, _ = _data(n=4_000, d=3)
    features = RandomFourierFeatures(n_components=20_000, random_state=0).fit(X[:1])
    exact = KernelMeanEmbedding(features=features).fit(X).embedding_
    Xd = da.from_array(X, chunks=500)
    kme = KernelMeanEmbedding(features=features, epsilon=0.5, delta=1e-6).fit(Xd)
    sigma = calibrate_gaussian(0.5, 1e-6)
    assert kme.noise_multiplier_ == sigma
    expected_std = sigma * 2 / len(X)
    noise = kme.embedding_ - exact
    # 20,000 i.i.d. normal coordinates: the sample std is within 3% of the truth
    assert np.std(noise) == pytest.approx(expected_std, rel=0.03)
    assert abs(np.mean(noise)) < 4 * expected_std / np.sqrt(noise.size)
    in_memory = KernelMeanEmbedding(features=features, epsilon=0.5, delta=1e-6).fit(X)
    assert kme.privacy_report_.to_dict() == in_memory.privacy_report_.to_dict()
    assert kme.privacy_report_.is_private
    # with the same (debugging) noise, the release is the in-memory one to rounding
    with same_noise():
        on_dask = KernelMeanEmbedding(features=features, epsilon=0.5, delta=1e-6).fit(Xd)
    with same_noise():
        in_memory = KernelMeanEmbedding(features=features, epsilon=0.5, delta=1e-6).fit(X)
    np.testing.assert_allclose(on_dask.embedding_, in_memory.embedding_, rtol=0, atol=1e-10)


def test_errors_are_raised_from_workers(client, same_noise):
    """Errors of the input's public form reach the client; a record's value (in a
    synthesizer, or a label) raises nowhere, and trains on Dask as in memory."""
    X, y = _data(n=3_000)
    X[2_500, 1] = np.nan  # in the last partition only: read as 0, as in memory
    on_dask = KernelMeanEmbedding().fit(da.from_array(X, chunks=1_000))
    np.testing.assert_allclose(on_dask.embedding_, KernelMeanEmbedding().fit(X).embedding_,
                               rtol=0, atol=1e-12)
    X, y = _data(n=3_000)
    frame = dd.from_pandas(pd.DataFrame(X), npartitions=3)
    with pytest.raises(ValueError, match="3000 entries"):
        KernelMeanEmbedding().fit(frame, dd.from_pandas(pd.Series(y[:-1]), npartitions=3))
    # labels outside the class list (2) and missing ones, in the last partition: the
    # first class, on the workers exactly as in memory
    labels = y.astype(object)
    labels[2_900] = None
    kme = KernelMeanEmbedding(classes=[0, 1]).fit(da.from_array(X, chunks=1_000),
                                                   da.from_array(labels, chunks=1_000))
    ref = KernelMeanEmbedding(classes=[0, 1]).fit(X, np.where(pd.isna(labels) | (y == 2), 0, y))
    np.testing.assert_allclose(kme.embedding_, ref.embedding_, rtol=0, atol=1e-10)
    np.testing.assert_array_equal(kme.classes_, [0, 1])
    # a synthesizer: values that used to raise (NaN and text in a numeric column without
    # "missing", a value outside the categories), in the last partition
    rng = np.random.default_rng(0)
    table = pd.DataFrame({"x": rng.uniform(0, 10, 3_000),
                          "c": rng.choice(["a", "b"], 3_000)}).astype(object)
    table.loc[2_500, "x"], table.loc[2_501, "x"] = np.nan, "n/a-7431"
    table.loc[2_502, "x"], table.loc[2_503, "c"] = np.inf, "Zanzibar"
    schema = {"x": {"type": "numeric", "bounds": [0, 10]},
              "c": {"type": "categorical", "categories": ["a", "b"]}}
    params = dict(schema=schema, epochs=1, steps_per_epoch=2, batch_size=50, random_state=0,
                  device="cpu")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with same_noise():
            on_dask = DPMERFSynthesizer(**params).fit(dd.from_pandas(table, npartitions=3))
        with same_noise():
            in_memory = DPMERFSynthesizer(**params).fit(table)
    np.testing.assert_allclose(on_dask.loss_history_, in_memory.loss_history_, rtol=1e-6)
    assert on_dask.privacy_report_.to_dict() == in_memory.privacy_report_.to_dict()
    messages = " ".join(str(w.message) for w in caught)
    assert "7431" not in messages and "Zanzibar" not in messages


def test_leaks_warn_as_in_memory(client):
    X, y = _data(n=2_000)
    with pytest.warns(PrivacyLeakWarning, match="class list"):
        kme = KernelMeanEmbedding(epsilon=1.0).fit(
            da.from_array(X, chunks=500), da.from_array(y, chunks=500))
    np.testing.assert_array_equal(kme.classes_, [0, 1, 2])

    with pytest.raises(ValueError, match="fitted beforehand"):
        # a user's map, unfitted: on Dask input it cannot be fitted on the rows
        KernelMeanEmbedding(features=StandardScaler()).fit(da.from_array(X, chunks=500))


@pytest.fixture(scope="module")
def adult():
    b = load_adult(split="train")
    idx = np.random.default_rng(0).choice(len(b.data), 6_000, replace=False)
    data = b.data.iloc[idx].reset_index(drop=True)
    target = b.target.iloc[idx].reset_index(drop=True)
    return data, target, b.schema


@pytest.mark.parametrize("cls", [DPHPSynthesizer, DPMERFSynthesizer])
def test_synthesizer_fits_from_dask_dataframe(client, adult, cls, same_noise):
    data, target, schema = adult
    ddf = dd.from_pandas(data.assign(income=target), npartitions=4)
    params = dict(schema=schema, classes=list(target.cat.categories), epochs=2,
                  steps_per_epoch=5, batch_size=100, random_state=0, device="cpu")
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)  # full public schema: no leak
        private = cls(**params).fit(ddf.drop(columns="income"), ddf["income"], epsilon=1.0)
    assert private.privacy_report_.is_private
    with same_noise():
        synth, workers = _ran_on_workers(client, lambda: cls(**params).fit(
            ddf.drop(columns="income"), ddf["income"], epsilon=1.0))
    assert workers
    with same_noise():
        ref = cls(**params).fit(data, target, epsilon=1.0)
    # same releases (sums equal to rounding, same noise), same training
    np.testing.assert_allclose(synth.loss_history_, ref.loss_history_, rtol=1e-6)
    assert synth.privacy_report_.to_dict() == ref.privacy_report_.to_dict()
    np.testing.assert_array_equal(synth.class_weights_, ref.class_weights_)
    X_syn, y_syn = synth.sample(50, random_state=0)
    assert list(X_syn.columns) == list(data.columns)
    assert (X_syn.dtypes == data.dtypes).all()
    np.testing.assert_array_equal(synth.feature_names_in_, data.columns)


def test_synthesizer_schema_left_out_from_dask(client, adult, same_noise):
    """What the schema leaves out: estimated privately (its statistics summed per
    partition on the workers), or read with recorded leaks (infer_schema="data")."""
    data, target, schema = adult
    partial = {k: v for k, v in schema.items() if k != "age"}
    ddf = dd.from_pandas(data.assign(income=target.astype(str)), npartitions=3)
    params = dict(schema=partial, epochs=1, steps_per_epoch=2, batch_size=50, random_state=0,
                  device="cpu")
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        synth = DPMERFSynthesizer(**params).fit(ddf.drop(columns="income"), ddf["income"])
    report = synth.privacy_report_
    assert report.is_private and not report.leaks
    # no dtype is read: the kind of "age" is released, then its values' statistic
    assert {"schema: kinds", "schema: values", "schema: classes"} <= {
        r.name for r in report.releases}
    assert synth.schema_["age"]["type"] == "numeric"
    lo, hi = synth.schema_["age"]["bounds"]
    assert lo <= data["age"].quantile(0.05) and hi >= data["age"].quantile(0.95)
    # the same releases as in memory (same noise): the same estimated schema
    with same_noise():
        on_dask = DPMERFSynthesizer(**params).fit(ddf.drop(columns="income"), ddf["income"])
    with same_noise():
        in_memory = DPMERFSynthesizer(**params).fit(data, target.astype(str))
    assert on_dask.schema_ == in_memory.schema_
    np.testing.assert_array_equal(on_dask.classes_, in_memory.classes_)
    assert on_dask.privacy_report_.to_dict() == in_memory.privacy_report_.to_dict()

    with pytest.warns(PrivacyLeakWarning) as record:
        synth = DPMERFSynthesizer(**params, infer_schema="data").fit(
            ddf.drop(columns="income"), ddf["income"])
    messages = " ".join(str(w.message) for w in record)
    assert "'age'" in messages and "class list" in messages
    assert {(leak.what, leak.column) for leak in synth.privacy_report_.leaks} == {
        ("bounds", "age"), ("classes", None)}
    assert synth.encoder_.specs_[0]["bounds"] == [float(data["age"].min()),
                                                  float(data["age"].max())]


@pytest.mark.parametrize("method", ["subspace", "features"])
def test_releaser_from_dask_array(client, method, same_noise):
    X = np.random.default_rng(0).normal(size=(4_000, 2))
    params = dict(method=method, bounds=(-3, 3), n_points=25, n_iter=30, epsilon=1.0,
                  random_state=0)
    with same_noise():
        ref = DPKMEReleaser(**params).fit(X)
    with same_noise():
        rel = DPKMEReleaser(**params).fit(da.from_array(X, chunks=900))
    np.testing.assert_allclose(rel.weights_, ref.weights_, rtol=0, atol=1e-10)
    assert rel.privacy_report_.to_dict() == ref.privacy_report_.to_dict()
