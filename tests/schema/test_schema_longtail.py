"""Private numeric bounds of long-tailed columns on small tables (1,000-5,000 rows).

The range follows significant mass outside it (:func:`_follow_mass`), and
the rows outside are estimated from the decade counts
(:func:`_outside_mass`), so that a column clipped by a quarter or more is
never silent.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

from skdpgen.privacy import GaussianAccountant, reproducible_noise
from skdpgen.schema._grids import _numeric_grid
from skdpgen.schema._issues import SchemaEstimateWarning
from skdpgen.schema.kinds._kind import EstimateContext
from skdpgen.schema._mass import _outside_mass
from skdpgen.schema.kinds._numeric import NumericKind, _numeric_statistic, numeric_layout
from skdpgen.schema._plan import SchemaPlan
from skdpgen.rows import table_rows


def _table(rng, n):
    """Ten numeric columns (a long-tailed count among them) and a binary target."""
    r, mean = 0.4, 150.0
    X = pd.DataFrame({
        "count": rng.negative_binomial(r, r / (r + mean), n),
        "price": np.round(np.exp(rng.normal(np.log(0.02), 1.0, n)), 4),
        "age": rng.integers(7, 61, n),
        "id": rng.integers(1, 100_001, n),
        "income": np.round(np.exp(rng.normal(np.log(2.5), 0.75, n)), 4),
        "signed": np.round(rng.normal(0.0, 30.0, n), 2),
        "flag": rng.integers(0, 2, n),
        "score": np.round(rng.normal(50.0, 10.0, n), 1),
        "pareto": np.round(10.0 * (1.0 + rng.pareto(1.5, n)), 2),
        "rate": np.round(rng.uniform(0, 1, n), 3),
    })
    return X, np.where(rng.random(n) < 0.3, "yes", "no")


def _fit_estimate(X, y, seed, epsilon=1.0, delta=1e-5):
    """The schema as a fit estimates it (``schema_share="auto"``), noise from ``seed``."""
    plan = SchemaPlan.from_table(X, y)
    share, fraction = plan.auto_share(len(X), epsilon, delta)
    shares = {"fit": 1.0 - share}
    shares.update(plan.shares(share, fraction))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with reproducible_noise(seed):
            accountant = GaussianAccountant(epsilon, delta, shares,
                                            selections=plan.selections())
            schema, _ = plan.estimate(table_rows(X, y), accountant)
    return schema, plan.issues_


def test_long_tailed_count_bounds_cover_most_rows():
    # counts 0 to thousands, most rows small (a patent count): at 1,600 rows
    # and epsilon 1 only two of its decades clear the detection threshold,
    # which kept (10, 1000] and clipped about 27 % of the rows, silently
    covered = []
    for seed in range(10):
        X, y = _table(np.random.default_rng(100 + seed), 1600)
        schema, _ = _fit_estimate(X, y, seed)
        lo, hi = schema["count"]["bounds"]
        x = X["count"].to_numpy(float)
        covered.append(np.mean((x >= lo) & (x <= hi)))
    assert sum(c >= 0.8 for c in covered) >= 8, np.round(covered, 2)


def _estimate_exact(x, s):
    """The numeric estimate from the exact statistic, read as if its noise were ``s``."""
    stat = _numeric_statistic(np.asarray(x, float), histogram=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        spec = NumericKind().estimate("x", stat, s, len(x), EstimateContext())
    issues = [w.message for w in caught if issubclass(w.category, SchemaEstimateWarning)]
    return spec, stat, issues


def test_a_quarter_clipped_is_never_silent():
    # 70 % of the rows in (10, 100], 30 % spread thinly over six decades far
    # above (each ~1.1 noise standard deviations): no range reaches them, and
    # the rows outside, estimated from the decade counts, must be warned of
    # (the bins' sum had noise s*sqrt(11): a warning from 45 % of the rows)
    n, s = 1600, 73.0
    rng = np.random.default_rng(0)
    bulk = rng.uniform(11, 99, int(0.7 * n))
    tail = 10.0 ** rng.uniform(3, 9, n - bulk.size)
    x = np.concatenate([bulk, tail])
    spec, _, issues = _estimate_exact(x, s)
    lo, hi = spec["bounds"]
    assert np.mean((x < lo) | (x > hi)) >= 0.25
    outside = [w for w in issues if w.problem == "outside"]
    assert outside and outside[0].share == pytest.approx(0.3, abs=0.05)


def test_outside_mass_uses_decade_counts():
    # exact counts: the rows outside a range are counted exactly, with the
    # noise of one count per decade the range holds, whatever its bins
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.uniform(11, 99, 700), rng.uniform(200, 900, 300)])
    stat = _numeric_statistic(x, histogram=True)
    part = numeric_layout()
    hist, decades = stat[part["bins"]], stat[part["decades"]]
    low, up, _, _ = _numeric_grid()
    first, last = int(np.flatnonzero(low == 10.0)[0]), int(np.flatnonzero(up == 100.0)[0])
    outside, std = _outside_mass(hist, decades, first, last, 1.0, 1000.0, 0.5)
    assert outside == pytest.approx(300.0)
    assert std == pytest.approx(np.sqrt(1.0 + 0.25))
    # a range holding part of a decade: the mean of its bins and of the rest
    first = int(np.flatnonzero(low == 20.0)[0])
    outside, _ = _outside_mass(hist, decades, first, last, 1.0, 1000.0, 0.5)
    assert outside == pytest.approx(1000.0 - np.sum((x > 20) & (x <= 100)))


def test_a_thin_tail_decade_is_trimmed_where_its_mass_ends():
    # lengths of stay: lognormal, median 7, 1 % above ~50; at 1,500 rows the
    # bins of (10, 100] cannot say where the tail ends (noise ~65 rows each),
    # and the range reached 100 in most draws (its synthetic values spread
    # up to twice the real 99th percentile); a decreasing density fitted to
    # the tail decade's bins cuts it where the fitted mass beyond is ~2 %
    highs, covered = [], []
    for seed in range(10):
        rng = np.random.default_rng(200 + seed)
        X, y = _table(rng, 1500)
        X["count"] = np.clip(np.round(rng.lognormal(2.0, 0.8, 1500)), 1, 116)
        schema, _ = _fit_estimate(X, y, seed)
        lo, hi = schema["count"]["bounds"]
        x = X["count"].to_numpy(float)
        highs.append(hi)
        covered.append(np.mean((x >= lo) & (x <= hi)))
    assert sum(h <= 80 for h in highs) >= 7, highs  # 100 in 10 of 10 before
    # the cut covers 90 % of the values in most draws, not all: over 40 draws
    # (seeds 200-239) 3 to 5 fall below 0.9, the lowest 0.57 or 0.80, with
    # either noise stream the releases before it drew (the kinds release's
    # sixth count, times of day, moved it: ten draws all above 0.9 was luck)
    assert sorted(covered)[2] >= 0.9 and min(covered) >= 0.75, np.round(covered, 2)


def test_trim_tail_keeps_the_bulk_decade():
    # ages 60-95 fill their decade: it is the bulk, not a tail, and stays whole
    from skdpgen.schema._mass import _trim_tail
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.integers(60, 96, 2000), rng.integers(5, 10, 100)]).astype(float)
    stat = _numeric_statistic(x, histogram=True)
    part = numeric_layout()
    hist, decades = stat[part["bins"]], stat[part["decades"]]
    low, up, _, _ = _numeric_grid()
    first, last = int(np.flatnonzero(low == 4.0)[0]), int(np.flatnonzero(up == 100.0)[0])
    assert _trim_tail(hist, decades, first, last, float(x.size)) == (first, last)


def test_a_decade_is_taken_only_on_significant_mass():
    """A range takes a whole decade only when the decade's count holds
    significantly more than the range's bins in it (``_unaccounted_decades``:
    3 noise standard deviations). Two columns with nothing outside their data's
    decades, 20 fits each under seeded noise: no fit stretches to a whole
    decade (the correct rule does so w.p. about 1e-3 per decade; a test whose
    threshold drops the noise's standard deviation does in a quarter of fits)."""
    from skdpgen.private_schema import estimate_schema

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"score": rng.normal(50, 8, 1500).round(1),
                      "price": rng.uniform(200, 700, 1500).round()})
    stretched = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in range(20):
            with reproducible_noise(seed):
                schema, _, _ = estimate_schema(X, epsilon=1.0, delta=1e-5)
            for col, decade in (("score", [10.0, 100.0]), ("price", [101.0, 1000.0])):
                if list(schema[col]["bounds"]) == decade:
                    stretched.append((seed, col))
    assert stretched == []


def test_the_rows_outside_are_counted_for_the_bounds_written(monkeypatch):
    # a 0/1 column whose ones alone clear the noise: its range of one integer
    # becomes [0, 1]; the zeros are inside those bounds, not "outside"
    import skdpgen.schema.kinds._numeric as numeric
    from skdpgen.private_schema import estimate_schema
    from skdpgen.privacy import reproducible_noise

    calls = []
    real = numeric._outside_mass

    def spy(hist, decades, first, last, *args):
        calls.append((first, last))
        return real(hist, decades, first, last, *args)

    monkeypatch.setattr(numeric, "_outside_mass", spy)
    X = pd.DataFrame({"flag": np.r_[np.ones(1900), np.zeros(100)]})
    with reproducible_noise(1), warnings.catch_warnings():  # the zeros' bin not found
        warnings.simplefilter("ignore")
        schema, _, _ = estimate_schema(X, epsilon=0.1, delta=1e-5,
                                       schema={"flag": {"type": "numeric"}})
    lo, hi = schema["flag"]["bounds"]
    grid_lo, grid_hi = _numeric_grid()[:2]
    (first, last), = calls
    assert grid_lo[first] <= lo and hi <= grid_hi[last]


def test_a_noisy_estimate_names_what_it_cannot_rule_out():
    from skdpgen.schema import describe_issues
    from skdpgen.schema._issues import is_guess

    unsure = [{"column": f"c{i}", "problem": "uncertain", "share": 0.3 + i / 100,
               "detail": ""} for i in range(5)]
    guess = {"column": "g", "problem": "guess", "share": None, "detail": ""}
    text = describe_issues(unsure + [guess], "cli")
    lines = text.splitlines()
    assert lines[1].startswith("  - 'g': its bounds are a guess")  # guesses first
    assert "5 columns whose bounds may clip up to this share of the rows" in lines[2]
    # each column with its own share, the worst first
    assert lines[2].endswith("'c4' 34%, 'c3' 33%, 'c2' 32%, 'c1' 31%, 'c0' 30%")
    assert not any(map(is_guess, unsure))  # the noise, not a finding: no refusal
    one = describe_issues(unsure[:1], "cli")
    assert "'c0': its bounds may clip up to 30% of the rows" in one
    # what the noise could hide is not said to be there: a table without
    # missing values is not told that it has some
    hidden = [{"column": f"m{i}", "problem": "missing", "share": 0.03, "detail": ""}
              for i in range(5)]
    for text in (describe_issues(hidden, "cli"), describe_issues(hidden[:1], "cli")):
        assert "if they have any" in text or "if it has any" in text
        assert "whose missing values may be written" not in text



def test_the_summary_has_one_line_per_column_it_counts():
    """Issue 55: "weak for 5 columns" was followed by 7 bullets (a column with
    two issues had two); each column is one line, its issues in rank order."""
    from skdpgen.schema import describe_issues

    issues = [{"column": "rain", "problem": "guess", "share": None, "detail": ""},
              {"column": "rain", "problem": "missing", "share": 0.05, "detail": ""},
              {"column": "city", "problem": "categories", "share": 0.07, "detail": ""},
              {"column": "age", "problem": "outside", "share": 0.3, "detail": ""},
              {"column": "age", "problem": "missing", "share": 0.03, "detail": ""}]
    for interface in ("python", "cli", "cli-schema"):
        lines = describe_issues(issues, interface).splitlines()
        assert lines[0].startswith("The private schema estimate is weak for 3 columns")
        bullets = [line for line in lines if line.startswith("  - ")]
        assert [b.split(":")[0] for b in bullets] == ["  - 'rain'", "  - 'age'", "  - 'city'"]
        assert bullets[0] == ("  - 'rain': its bounds are a guess; missing values, if it has "
                              "any, up to 5% of the rows, may go unseen and be written as "
                              "values (the noise hides that many)")
        assert "clip many values (about 30% of the rows) [a guess]; missing" in bullets[1]

@pytest.mark.parametrize("kind", ["categorical", "numeric"])
def test_missing_values_the_noise_hides_are_named_or_declared(kind):
    # 2,000 rows, seven columns at epsilon 0.3: a 2.5 % missing rate is under
    # the threshold of the missing flag; the summary names the column, and a
    # partial spec declaring "missing" keeps the missing values
    from skdpgen.private_schema import estimate_schema

    rng = np.random.default_rng(0)
    n = 2000
    X = pd.DataFrame({f"v{i}": rng.integers(0, 3, n).astype(float) for i in range(6)})
    col = rng.choice(["a", "b", "c"], n).astype(object) if kind == "categorical" \
        else rng.uniform(0, 100, n)
    col[rng.random(n) < 0.025] = None if kind == "categorical" else np.nan
    X["gap"] = col
    declared = {"gap": {"type": kind}}
    with reproducible_noise(0), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        schema, _, _ = estimate_schema(X, epsilon=0.3, delta=1e-5, schema=declared)
    assert not schema["gap"]["missing"]
    named = {i["column"]: i for w in caught if getattr(w.message, "issues", None)
             for i in w.message.issues}
    assert named["gap"]["problem"] == "missing" and named["gap"]["share"] >= 0.02
    declared = {"gap": {"type": kind, "missing": True}}
    with reproducible_noise(0), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        schema, _, _ = estimate_schema(X, epsilon=0.3, delta=1e-5, schema=declared)
    assert schema["gap"]["missing"] is True
    named = {i["column"] for w in caught if getattr(w.message, "issues", None)
             for i in w.message.issues if i["problem"] == "missing"}
    assert "gap" not in named


def test_the_spread_line_counts_a_share_of_the_columns_values():
    # the mechanism's "spread" share is of each column's values (a column missing
    # in most rows has few), not of the rows
    from skdpgen.schema import describe_issues

    spread = [{"column": f"c{i}", "problem": "spread", "share": 0.3 + i / 100, "detail": ""}
              for i in range(5)]
    lines = describe_issues(spread, "cli").splitlines()
    assert ("5 columns whose values may lie where the data has none, up to this share "
            "of their values") in lines[1]
    assert "of the rows" not in lines[1]
    assert "'c0': up to 30% of its values may lie" in describe_issues(spread[:1], "cli")
