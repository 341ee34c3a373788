"""The command line's output is sampled and written a chunk of rows at a time (issue 66)."""

import json

import numpy as np
import pandas as pd
import pytest

import skdpgen._cli_output as cli_output
from skdpgen.cli import main
from skdpgen.synthesizers._base import BaseSynthesizer


@pytest.fixture
def data(tmp_path):
    rng = np.random.default_rng(0)
    n = 300
    frame = pd.DataFrame({"age": rng.integers(18, 80, n), "hours": rng.uniform(0, 60, n).round(1),
                          "city": rng.choice(["A", "B", "C"], n),
                          "label": rng.choice(["no", "yes"], n)})
    frame.to_csv(tmp_path / "data.csv", index=False)
    schema = {"age": {"type": "numeric", "bounds": [18, 80], "integer": True},
              "hours": {"type": "numeric", "bounds": [0, 60]},
              "city": {"type": "categorical", "categories": ["A", "B", "C"]},
              "label": {"type": "categorical", "categories": ["no", "yes"]}}
    (tmp_path / "schema.json").write_text(json.dumps(schema))
    return tmp_path


def test_chunk_sizes_hold_at_most_the_chunk_and_are_near_equal():
    assert cli_output.chunk_sizes(30, 7) == [6, 6, 6, 6, 6]
    assert cli_output.chunk_sizes(15, 7) == [5, 5, 5]
    assert cli_output.chunk_sizes(3, 7) == [3]
    assert cli_output.chunk_sizes(1, 1) == [1]
    for n in range(1, 60):
        sizes = cli_output.chunk_sizes(n, 7)
        assert sum(sizes) == n and max(sizes) <= 7 and max(sizes) - min(sizes) <= 1


def test_the_command_samples_and_writes_a_chunk_of_rows_at_a_time(data, fast_fits, monkeypatch,
                                                                    capsys):
    """No call samples more than a chunk of rows; each chunk's seed is spawned from
    --random-state (public, the same for the same option); the file is the chunks
    one after another, the header once."""
    monkeypatch.setattr(cli_output, "OUTPUT_ROWS", 7)
    calls, sample = [], BaseSynthesizer.sample

    def recorded(self, n_samples, **kwargs):
        state = kwargs["random_state"].bit_generator.state  # a Generator, before use
        X, y = sample(self, n_samples, **kwargs)
        calls.append((self, n_samples, state, X.assign(label=y)))
        return X, y

    monkeypatch.setattr(BaseSynthesizer, "sample", recorded)
    out = data / "syn.csv"
    assert main(["synthesize", str(data / "data.csv"), "--out", str(out), "--target", "label",
                 "--schema", str(data / "schema.json"), "--random-state", "3", "--n-samples",
                 "30", "--quiet"]) == 0
    assert [n for _, n, _, _ in calls] == [6, 6, 6, 6, 6]
    spawned = np.random.SeedSequence(3).spawn(5)
    assert [s for _, _, s, _ in calls] == [np.random.default_rng(s).bit_generator.state
                                           for s in spawned]
    written = out.read_text()
    assert written == pd.concat([f for *_, f in calls]).to_csv(index=False)
    assert written.count("age,hours,city,label") == 1 and len(pd.read_csv(out)) == 30
    # the chunks' rows are the model's: its sample with the chunk's seed draws them again
    model, n, _, first = calls[0]
    X, y = sample(model, n, random_state=np.random.default_rng(spawned[0]))
    pd.testing.assert_frame_equal(X.assign(label=y), first)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_writing_chunks_equals_writing_the_table_whole(tmp_path, suffix):
    """The chunks written one after another read back as the whole table written at
    once: one header, the same types (the first chunk's), missing values kept."""
    if suffix == ".parquet":
        pytest.importorskip("pyarrow")
    rng = np.random.default_rng(0)
    n = 25
    whole = pd.DataFrame({
        "x": rng.normal(size=n), "k": rng.integers(0, 9, n),
        "c": pd.Categorical(rng.choice(["a", "b", None], n), categories=["a", "b", "z"]),
        "t": pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 10**6, n), unit="s"),
        "y": np.where(rng.random(n) < 0.3, None, rng.choice(["no", "yes"], n)).astype(object)})
    whole.loc[3, "x"] = np.nan
    chunks = [whole.iloc[i:i + 7].reset_index(drop=True) for i in range(0, n, 7)]
    chunked, once = tmp_path / f"chunked{suffix}", tmp_path / f"once{suffix}"
    cli_output.write_chunks(iter(chunks), chunked)
    if suffix == ".csv":
        whole.to_csv(once, index=False)
        assert chunked.read_text() == once.read_text()
    else:
        back = pd.read_parquet(chunked)
        pd.testing.assert_frame_equal(back, whole)
