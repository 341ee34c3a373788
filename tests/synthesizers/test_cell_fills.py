"""Where a binned column's rows stop inside its outermost bins (issue 66, item 1).

A column whose rows stop inside a bin (a date range ending mid-bin, scores
from 404 in a bin from 401) came back spread over the whole bin, beyond
them: 5-8 % of a column's values outside its real range on the far-off
benchmark's tables. The marginal mechanism's one-way release says how much
thinner the outermost bins are than the next ones in (post-processing), and
the values of those bins are drawn where the rows are.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

from skdpgen import MarginalSynthesizer
from skdpgen.privacy import reproducible_noise
from skdpgen.schema.kinds import fill_offsets
from skdpgen.synthesizers.mechanisms import MarginalMechanism


def _fit(X, schema):
    with warnings.catch_warnings(), reproducible_noise(0):
        warnings.simplefilter("ignore")
        return MarginalSynthesizer(schema=schema, random_state=0).fit(X, epsilon=1.0)


@pytest.fixture(scope="module")
def fitted():
    """3,000 rows uniform on [23, 77] in declared bounds [0, 100]: its outermost
    bins of twenty, [20, 25) and [75, 80), hold rows on 0.4 of their width."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"score": rng.uniform(23, 77, 3_000),
                      "group": rng.choice(["a", "b"], 3_000)})
    schema = {"score": {"type": "numeric", "bounds": [0, 100]},
              "group": {"type": "categorical", "categories": ["a", "b"]}}
    return X, _fit(X, schema)


def _outside(synth):
    score = synth.sample(20_000, random_state=1)[0]["score"]
    return float(np.mean((score < 23) | (score > 77)))


def test_the_values_of_the_outermost_bins_are_drawn_where_the_rows_are(fitted,
                                                                          monkeypatch):
    X, synth = fitted
    lo, f_lo, hi, f_hi = synth.mechanism_.cell_fills(synth.encoder_)["score"]
    bins = next(c.bins for c in synth.encoder_.codecs_ if c.key == "score")
    width = 100 / bins
    assert (lo, hi) == (int(23 // width), int(77 // width))
    # the share of each bin the rows fill, within the release's noise
    assert bins == 20
    assert f_lo == pytest.approx(1 - (23 % width) / width, abs=0.1)
    assert f_hi == pytest.approx((77 % width) / width, abs=0.1)
    assert _outside(synth) < 0.015
    # drawn on the whole bin, 0.6 of each outermost bin's values lie beyond the rows
    monkeypatch.setattr(MarginalMechanism, "cell_fills", lambda self, encoder: {})
    assert _outside(synth) > 0.03


def test_a_column_that_fills_its_bins_is_drawn_as_before():
    # uniform on its whole bounds: the outermost bins are as full as the next ones
    # in, filled whole, and the values are drawn on all of them
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"score": rng.uniform(0, 100, 20_000)})
    synth = _fit(X, {"score": {"type": "numeric", "bounds": [0, 100]}})
    fills = synth.mechanism_.cell_fills(synth.encoder_)["score"]
    assert fills[1] > 0.9 and fills[3] > 0.9
    score = synth.sample(20_000, random_state=1)[0]["score"]
    assert score.min() < 0.5 and score.max() > 99.5


def test_fill_offsets_draws_inside_the_filled_part():
    offset = np.linspace(0, 1, 101)[:-1]
    code = np.repeat([0, 4, 9], [34, 33, 33])
    out = fill_offsets(code, offset, (0, 0.25, 9, 0.5))
    assert out[code == 0].min() >= 0.75 and out[code == 9].max() < 0.5
    assert np.array_equal(out[code == 4], offset[code == 4])
