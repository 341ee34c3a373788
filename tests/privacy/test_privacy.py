import math
import warnings

import numpy as np
import pytest

from skdpgen.privacy import (
    GaussianAccountant,
    GaussianRelease,
    PrivacyLeakWarning,
    PrivacyReport,
    calibrate_gaussian,
    check_epsilon_delta,
    compose_reports,
    gaussian_epsilon,
)


def test_reference_single_release():
    # analytic Gaussian mechanism (autodp 0.2.3.1): σ = 3.7306 at (1, 1e-5);
    # the classic formula would give 4.8448 and the RDP route 4.9006
    sigma = calibrate_gaussian(1.0, 1e-5)
    assert sigma == pytest.approx(3.7306, abs=5e-5)
    assert sigma < 4.8448 and sigma < 4.9006
    assert gaussian_epsilon(sigma, 1e-5) <= 1.0


def test_reference_eleven_equal_releases():
    acc = GaussianAccountant(1.0, 1e-5, {"release": (1.0, 11)})
    sigma = acc.noise_multipliers["release"]
    assert sigma == pytest.approx(3.7306 * math.sqrt(11), abs=5e-4)
    assert sigma == pytest.approx(12.373, abs=5e-4)
    for _ in range(11):
        acc.add_noise("release", np.zeros(2), sensitivity=1.0)
    report = acc.report()
    assert report.n_releases == 11
    # exact composition: the 11 releases together spend exactly the budget
    assert report.epsilon == pytest.approx(1.0, abs=1e-6)
    assert report.epsilon <= 1.0 + 1e-9
    # looser accountants would need more noise (13.416 generic RDP, 16.253 legacy)
    assert sigma < 13.416


def test_calibration_is_conservative_and_tight():
    for eps in [0.01, 0.1, 0.5, 1, 3, 10, 50]:
        for delta in [1e-10, 1e-6, 1e-5, 1e-2]:
            sigma = calibrate_gaussian(eps, delta)
            assert gaussian_epsilon(sigma, delta) <= eps * (1 + 1e-6)
            # 0.1 % less noise would break the guarantee
            assert gaussian_epsilon(sigma * 0.999, delta) > eps


def test_infinite_epsilon_means_no_noise():
    assert calibrate_gaussian(np.inf, 1e-5) == 0.0
    acc = GaussianAccountant(np.inf, 1e-5, {"a": 1.0})
    out = acc.add_noise("a", np.ones(3), sensitivity=1.0)
    np.testing.assert_array_equal(out, np.ones(3))
    assert acc.report().epsilon == math.inf


@pytest.mark.parametrize(
    "epsilon, delta, err",
    [
        (0, 1e-5, ValueError),
        (-1, 1e-5, ValueError),
        (np.nan, 1e-5, ValueError),
        (1, 0, ValueError),
        (1, 1, ValueError),
        (1, -0.1, ValueError),
        (1, 1.5, ValueError),
        ("1", 1e-5, TypeError),
        (True, 1e-5, TypeError),
    ],
)
def test_invalid_budget(epsilon, delta, err):
    with pytest.raises(err):
        check_epsilon_delta(epsilon, delta)
    with pytest.raises(err):
        GaussianAccountant(epsilon, delta, {"a": 1.0})


def test_split_budget_composes_to_total():
    shares = {"sum kernel": 0.4, "product kernel": (0.5, 20), "labels": 0.1}
    acc = GaussianAccountant(2.0, 1e-6, shares)
    total = acc.noise_multiplier_total
    precision = 1 / acc.noise_multipliers["sum kernel"] ** 2
    precision += 20 / acc.noise_multipliers["product kernel"] ** 2
    precision += 1 / acc.noise_multipliers["labels"] ** 2
    assert precision == pytest.approx(1 / total**2, rel=1e-12)
    acc.add_noise("sum kernel", 0.0, sensitivity=0.1)
    for _ in range(20):
        acc.add_noise("product kernel", [0.0], sensitivity=0.1)
    acc.add_noise("labels", [0.0, 0.0], sensitivity=0.05)
    report = acc.report()
    assert report.epsilon == pytest.approx(2.0, abs=1e-6)
    frame = report.to_frame()
    assert list(frame["release"]) == ["sum kernel", "product kernel", "labels"]
    assert frame["share"].sum() == pytest.approx(1.0)
    assert frame.loc[1, "count"] == 20
    np.testing.assert_allclose(frame["noise_std"], frame["sensitivity"] * frame["noise_multiplier"])
    text = str(report)
    assert "sum kernel" in text and "total: epsilon = 2" in text


def test_partial_releases_spend_less_and_overspending_is_refused():
    acc = GaussianAccountant(1.0, 1e-5, {"a": (1.0, 4)})
    acc.add_noise("a", 0.0, sensitivity=1.0)
    assert acc.report().epsilon < 1.0
    for _ in range(3):
        acc.add_noise("a", 0.0, sensitivity=1.0)
    with pytest.raises(RuntimeError, match="exceed"):
        acc.add_noise("a", 0.0, sensitivity=1.0)
    with pytest.raises(KeyError):
        acc.add_noise("b", 0.0, sensitivity=1.0)


def test_noise_std_is_sigma_times_sensitivity():
    acc = GaussianAccountant(1.0, 1e-5, {"a": 1.0})
    out = acc.add_noise("a", np.zeros(200_000), sensitivity=0.01)
    expected = acc.noise_multipliers["a"] * 0.01
    assert out.std() == pytest.approx(expected, rel=0.01)
    assert abs(out.mean()) < 5 * expected / math.sqrt(out.size)


def test_compose_reports_of_k_fits():
    acc = GaussianAccountant(1.0, 1e-5, {"a": 1.0})
    acc.add_noise("a", 0.0, sensitivity=1.0)
    one = acc.report()
    k = 7
    total = compose_reports([one] * k)
    # k equal Gaussian releases = one with σ/sqrt(k)
    assert total.noise_multiplier == pytest.approx(one.noise_multiplier / math.sqrt(k))
    assert total.epsilon == pytest.approx(gaussian_epsilon(one.noise_multiplier / math.sqrt(k), 1e-5))
    assert (one + one).n_releases == 2
    other = PrivacyReport([GaussianRelease("b", 1.0, 2.0)], delta=1e-6)
    with pytest.raises(ValueError, match="delta"):
        compose_reports([one, other])
    assert compose_reports([one, other], delta=1e-6).n_releases == 2


def test_privacy_leak_warning_always_shown_and_can_be_made_an_error():
    """Shown every time by default; a user's ``-W error`` still turns it into an error."""
    import subprocess
    import sys

    code = ("import warnings, skdpgen\n"
            "for _ in range(2):\n"
            "    warnings.warn('leak', skdpgen.PrivacyLeakWarning)\n")
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert shown.returncode == 0 and shown.stderr.count("PrivacyLeakWarning: leak") == 2
    for flags in (["-W", "error"], ["-W", "error::RuntimeWarning"]):
        raised = subprocess.run([sys.executable, *flags, "-c", code], capture_output=True,
                                text=True)
        assert raised.returncode != 0 and "PrivacyLeakWarning: leak" in raised.stderr
    assert issubclass(PrivacyLeakWarning, RuntimeWarning)


def test_no_autodp_warnings_escape():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        calibrate_gaussian(0.05, 1e-9)
        gaussian_epsilon(100.0, 1e-5)
        gaussian_epsilon(0.01, 1e-5)


def test_autodp_import_order_is_contained():
    import subprocess
    import sys

    code = "import skdpgen.privacy as p; print(round(p.calibrate_gaussian(1, 1e-5), 4))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "3.7306"


def test_release_records_cannot_understate_the_spend():
    for bad in (dict(sensitivity=float("nan"), noise_multiplier=1.0),
                dict(sensitivity=1.0, noise_multiplier=float("nan")),
                dict(sensitivity=-1.0, noise_multiplier=1.0),
                dict(sensitivity=1.0, noise_multiplier=-2.0),
                dict(sensitivity=1.0, noise_multiplier=1.0, count=-1),
                dict(sensitivity=1.0, noise_multiplier=1.0, count=1.5)):
        with pytest.raises(ValueError):
            GaussianRelease("x", **bad)


def test_infinite_epsilon_warns_that_nothing_is_private():
    with pytest.warns(PrivacyLeakWarning, match="epsilon=inf"):
        check_epsilon_delta(float("inf"), 1e-5)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        check_epsilon_delta(1.0, 1e-5)


def test_a_leak_warning_carries_its_remedy_worded_by_each_interface():
    """Issue 40, section 4: one table words a leak's remedy for Python and the command
    line; the warning carries the key, so no interface rewrites another's text."""
    from skdpgen.privacy import leak_ledger, record_leak

    with warnings.catch_warnings(record=True) as caught, leak_ledger() as leaks:
        warnings.simplefilter("always")
        record_leak("bounds", "Bounds of 'age' read.", column="age", remedy="bounds")
        record_leak("classes", "Class list read.", remedy="classes")
        record_leak("categories", "Categories read. Declare them in the schema.", column="c")
    bounds, classes, categories = (w.message for w in caught)
    assert isinstance(bounds, PrivacyLeakWarning) and bounds.leak == leaks[0]
    assert (bounds.remedy, bounds.column) == ("bounds", "age")
    assert (classes.remedy, classes.column, categories.remedy) == ("classes", None, None)
    # Python's words are the message, the command line's come from the same table
    assert str(bounds) == ("Bounds of 'age' read. Pass public bounds in the schema, or "
                           "bounds=(lo, hi), to avoid this.")
    assert bounds.explain("cli") == ("Bounds of 'age' read. Pass public bounds in the "
                                     "--schema file to avoid this.")
    assert str(classes) == ("Class list read. Pass classes=[...] (the public list of "
                            "possible labels) to avoid this.")
    assert classes.explain("cli") == ("Class list read. Pass --classes a,b,c (the public "
                                      "list of possible labels) to avoid this.")
    assert categories.explain("cli") == str(categories)  # no remedy to word
    # the record: its full text in Python's words, or worded for the command line
    assert leaks[0].to_dict()["why"] == str(bounds) and str(leaks[1]).endswith(str(classes))
    assert leaks[1].worded("cli").to_dict()["why"] == classes.explain("cli")
    # a warning raised with a text only has no remedy, and reads the same everywhere
    plain = PrivacyLeakWarning("epsilon=inf: exact.")
    assert plain.remedy is None and plain.explain("cli") == "epsilon=inf: exact."


def test_the_class_list_leak_is_written_once():
    """The rows and the schema plan record the same leak (one text, one helper)."""
    from skdpgen.privacy import leak_ledger
    from skdpgen.rows import make_rows
    from skdpgen.schema._plan import SchemaPlan
    from skdpgen.rows import table_rows
    from sklearn.base import BaseEstimator

    X, y = np.zeros((4, 1)), np.array(["a", "b", "a", "b"])
    with warnings.catch_warnings(record=True) as caught, leak_ledger() as leaks:
        warnings.simplefilter("always")
        make_rows(BaseEstimator(), X, y, reset=True, private=True)
        plan = SchemaPlan.from_table(X, y, schema={0: {"type": "numeric", "bounds": [0, 1]}})
        plan.read_from_data(table_rows(X, y))
    texts = {str(w.message) for w in caught if issubclass(w.category, PrivacyLeakWarning)}
    assert len(caught) == 2 and len(texts) == 1
    assert [(leak.what, leak.remedy) for leak in leaks] == [("classes", "classes")]


def test_report_round_trips_through_its_dict_and_json():
    import json
    import warnings

    from skdpgen.privacy import (
        GaussianAccountant,
        PrivacyReport,
        compose_reports,
        leak_ledger,
        record_leak,
    )

    acc = GaussianAccountant(1.0, 1e-5, {"mean": (0.6, 2), "keys": 0.4}, selections=["keys"])
    acc.add_noise("mean", [0.0, 1.0], sensitivity=0.1)
    acc.add_noise("mean", [2.0], sensitivity=0.1)
    acc.select("keys", ["a", "b"], [5.0, 500.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with leak_ledger() as leaks:
            record_leak("bounds", "read from the rows", column="age")
    report = PrivacyReport(acc.report().releases, 1e-5, budget=(1.0, 1e-5), leaks=leaks,
                           selections=acc.report().selections)
    again = PrivacyReport.from_dict(json.loads(json.dumps(report.to_dict())))
    assert again.to_dict() == report.to_dict()
    assert again.epsilon == report.epsilon and again.is_private is False
    assert again.selection_delta == report.selection_delta > 0
    (saved,) = report.to_dict()["selections"]  # what a *.privacy.json file shows
    assert saved["threshold_rows"] == pytest.approx(report.selection_thresholds["keys"])
    assert saved["epsilon_each"] == pytest.approx(acc.delta_each, rel=1e-5)
    assert saved["epsilon_each"] > acc.delta_each > 0
    # composing a saved report with a later one counts both
    total = compose_reports([again, acc.report()])
    assert total.epsilon == pytest.approx(compose_reports([report, acc.report()]).epsilon)
    assert total.epsilon > report.epsilon
