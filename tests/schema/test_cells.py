"""Cells that follow the released mass (issue 66, item 1): an estimated numeric
column whose mass sits in a small part of its bounds gets the spec's
``"quantiles"``, and the binned encoding's cells hold equal shares of that
mass instead of equal widths of the bounds."""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.stats import ks_2samp

from skdpgen import MarginalSynthesizer
from skdpgen.privacy import reproducible_noise
from skdpgen.schema import TableEncoder
from skdpgen.schema._table import check_spec
from skdpgen.schema._cells import mass_quantiles
from skdpgen.schema._policy import POLICY
from skdpgen.schema.kinds._numeric import _numeric_statistic, numeric_layout


def _release(x):
    """The numeric release's bins and fine sub-bins of ``x``, without noise."""
    part, release = numeric_layout(), _numeric_statistic(np.asarray(x, float), histogram=True)
    return release[part["bins"]], release[part["fine"]]


def _table(seed, n=5000):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "tail": rng.lognormal(0.0, 1.5, n),  # long-tailed
        # nine tenths within a unit of 100, the rest spread up to 1,000
        "packed": np.where(rng.random(n) < 0.9, rng.normal(100.0, 0.5, n),
                           rng.uniform(100.0, 1000.0, n)),
        "group": rng.choice(["a", "b", "c"], n),
    })


@pytest.mark.parametrize("seed", [1, 3])
def test_long_tailed_and_packed_columns_come_back_where_their_rows_are(seed):
    # With equal-width cells between the estimated bounds (seeds 1 and 3 give
    # the tail bounds up to 40 and 50): tail KS 0.136 and 0.140; packed KS
    # 0.70 and 0.55, with 69 % and 54 % of its values below its real minimum.
    X = _table(seed)
    with reproducible_noise(seed), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = MarginalSynthesizer(epsilon=1.0, random_state=seed).fit(X)
    out = model.sample(len(X), random_state=seed)
    S = out[0] if isinstance(out, tuple) else out
    assert "quantiles" in model.schema_["tail"] and "quantiles" in model.schema_["packed"]
    for column, ks_limit in (("tail", 0.08), ("packed", 0.1)):
        real, synth = X[column].to_numpy(), np.asarray(S[column], dtype=float)
        outside = np.mean((synth < real.min()) | (synth > real.max()))
        assert ks_2samp(real, synth).statistic < ks_limit, column
        assert outside < 0.05, column


def test_quantiles_follow_the_released_mass():
    x = np.random.default_rng(0).lognormal(0.0, 1.5, 5000)
    hist, fine = _release(x)
    q = np.asarray(mass_quantiles(hist, fine, 1.0, [0.0, 100.0], False))
    assert q.size == POLICY.cell_knots + 1 and q[0] == 0.0 and q[-1] == 100.0
    assert np.all(np.diff(q) > 0)
    # step k holds k/K of the blend of the rows' mass with an even spread
    u, even = np.linspace(0.0, 1.0, q.size), q / 100.0
    rows = np.mean(x[:, None] <= q, axis=0)
    blend = (1 - POLICY.cell_uniform) * rows + POLICY.cell_uniform * even
    assert np.abs(blend - u).max() < 0.01
    # a column spread evenly over its bounds keeps equal-width cells
    even = np.random.default_rng(0).uniform(0.0, 100.0, 5000)
    assert mass_quantiles(*_release(even), 1.0, [0.0, 100.0], False) is None


def test_noise_alone_locates_nothing():
    """Counts the noise drowns are spread over the bounds, not followed: the
    rows 1 to 1,000 on bounds [0, 1000], whose bins below 1 (70 of them) hold
    noise only."""
    rng = np.random.default_rng(1)
    x = np.minimum(rng.uniform(1.0, 2.0, 5000) ** 10, 1000.0)  # 1 to 1,000, long-tailed
    hist, fine = _release(x)
    s = 10.0
    q = np.asarray(mass_quantiles(hist + rng.normal(0, s, hist.size),
                                  fine + rng.normal(0, s, fine.size), s, [0.0, 1000.0], False))
    assert q[1] > 0.5  # the first step is not squeezed into the noise below 1
    rows = np.mean(x[:, None] <= q, axis=0)
    assert np.abs((1 - POLICY.cell_uniform) * rows + POLICY.cell_uniform * q / 1000.0
                  - np.linspace(0, 1, q.size)).max() < 0.1


def test_declared_bounds_keep_equal_width_cells():
    X = _table(0)
    schema = {"tail": {"type": "numeric", "bounds": [0.0, 50.0]},
              "packed": {"type": "numeric", "bounds": [0.0, 1000.0]},
              "group": {"type": "categorical", "categories": ["a", "b", "c"]}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = MarginalSynthesizer(epsilon=1.0, schema=schema, random_state=0, epochs=1).fit(X)
    assert "quantiles" not in model.schema_["tail"]
    assert all(getattr(c, "knots", None) is None for c in model.encoder_.codecs_)


def test_a_spec_s_quantiles_make_cells_of_equal_mass():
    spec = {"type": "numeric", "bounds": [0.0, 100.0], "quantiles": [0.0, 1.0, 10.0, 100.0]}
    assert check_spec("x", spec)["quantiles"] == [0.0, 1.0, 10.0, 100.0]
    X = pd.DataFrame({"x": [0.5, 5.0, 50.0, 0.2]})
    encoder = TableEncoder({"x": spec}, bins=3).fit(X)
    block = encoder.transform(X)[:, encoder.n_numeric_:]
    assert block[:, :3].argmax(axis=1).tolist() == [0, 1, 2, 0]
    decoded = encoder.decode(np.zeros((200, 0)), [np.zeros(200, dtype=np.intp)],
                             random_state=0)["x"].to_numpy(dtype=float)
    assert decoded.min() >= 0.0 and decoded.max() <= 1.0  # inside its narrow cell
    for bad in ([0.0, 50.0], [0.0, 60.0, 40.0, 100.0], [1.0, 100.0], "x"):
        with pytest.raises(ValueError, match="quantiles"):
            check_spec("x", {**spec, "quantiles": bad})
