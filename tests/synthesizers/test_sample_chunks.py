"""``sample`` computes the generator's output a chunk of rows at a time (issue 66)."""

import warnings

import numpy as np
import pandas as pd
import pytest

import skdpgen.synthesizers._base as base
from skdpgen import DPHPSynthesizer, MarginalSynthesizer

SCHEMA = {"age": {"type": "numeric", "bounds": [17, 90], "integer": True},
          "city": {"type": "categorical", "categories": list("ABCDEFGH")},
          "kind": {"type": "categorical", "categories": ["x", "y", "z"]}}


@pytest.mark.parametrize("make", [
    lambda: MarginalSynthesizer(schema=SCHEMA, classes=[0, 1], epochs=1, steps_per_epoch=5,
                                n_components=16, random_state=0),
    lambda: DPHPSynthesizer(schema=SCHEMA, classes=[0, 1], order=5, epochs=1,
                            steps_per_epoch=5, batch_size=64, random_state=0, device="cpu"),
], ids=["marginals", "dphp"])
def test_sample_runs_the_network_on_chunks_and_draws_the_rows_of_one_pass(make, monkeypatch):
    rng = np.random.default_rng(0)
    n = 500
    X = pd.DataFrame({"age": rng.integers(17, 91, n), "city": rng.choice(list("ABCDEFGH"), n),
                      "kind": rng.choice(["x", "y", "z"], n)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = make().fit(X, rng.integers(0, 2, n), epsilon=1.0)
    monkeypatch.setattr(base, "_GENERATED_VALUES", 10**9)  # one chunk
    whole = model.sample(300, random_state=7)
    batches = []
    hook = model.network_.register_forward_pre_hook(lambda m, a: batches.append(len(a[0])))
    width = model.encoder_.n_numeric_ + sum(model.encoder_.category_sizes_)
    monkeypatch.setattr(base, "_GENERATED_VALUES", 5 * width)  # five rows at a time
    chunked = model.sample(300, random_state=7)
    hook.remove()
    assert max(batches) == 5 and sum(batches) >= 300
    pd.testing.assert_frame_equal(chunked[0], whole[0])
    np.testing.assert_array_equal(chunked[1], whole[1])
