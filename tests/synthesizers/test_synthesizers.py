import io
import math
import pickle
import warnings

import joblib
import numpy as np
import pandas as pd
import pytest
import torch
from sklearn.datasets import load_digits
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer

from skdpgen import DPHPSynthesizer, DPMERFSynthesizer, MarginalSynthesizer, PrivacyLeakWarning
from skdpgen.privacy import (
    GaussianAccountant,
    calibrate_gaussian,
    compose_reports,
    gaussian_epsilon,
    reproducible_noise,
)
from skdpgen.kernels import HermiteFeatures
from skdpgen.rows import chunk_feature_sums
from skdpgen.schema import kinds_from_dtypes
from skdpgen.synthesizers import PublicShape, ReleaseContext

FAST = dict(epochs=2, steps_per_epoch=5, batch_size=64, random_state=0, device="cpu")
SYNTHS = [
    lambda **kw: DPHPSynthesizer(order=5, **{**FAST, **kw}),
    lambda **kw: DPHPSynthesizer(order=5, product_kernel="pairwise", **{**FAST, **kw}),
    lambda **kw: DPMERFSynthesizer(n_components=100, **{**FAST, **kw}),
]
IDS = ["dphp", "dphp-kernels", "dpmerf"]

SCHEMA = {
    "age": {"type": "numeric", "bounds": [17, 90], "integer": True},
    "income": {"type": "numeric", "bounds": [0.0, 1e5]},
    "city": {"type": "categorical", "categories": ["A", "B", "C"]},
    "member": {"type": "categorical", "categories": [False, True]},
}
CLASSES = ["no", "yes"]


def make_frame(n=300, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "age": rng.integers(17, 91, n),
            "income": rng.uniform(0, 1e5, n),
            "city": pd.Categorical(rng.choice(["A", "B", "C"], n), categories=["A", "B", "C"]),
            "member": rng.random(n) < 0.3,
        }
    )
    y = pd.Series(np.where(df["income"] > 5e4, "yes", "no"))
    return df, y


@pytest.fixture
def frame():
    return make_frame()


def no_leak_warnings():
    ctx = warnings.catch_warnings()
    ctx.__enter__()
    warnings.simplefilter("error", PrivacyLeakWarning)
    return ctx


@pytest.mark.parametrize("make", SYNTHS, ids=IDS)
def test_dataframe_round_trip(make, frame):
    X, y = frame
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        synth = make(schema=SCHEMA, classes=CLASSES).fit(X, y)
    Xs, ys = synth.sample(50, random_state=0)
    assert isinstance(Xs, pd.DataFrame)
    assert list(Xs.columns) == list(X.columns)
    assert (Xs.dtypes == X.dtypes).all()
    assert list(Xs["city"].cat.categories) == ["A", "B", "C"]
    assert Xs["age"].between(17, 90).all() and Xs["income"].between(0, 1e5).all()
    assert set(np.unique(ys)) <= set(CLASSES)
    assert len(Xs) == len(ys) == 50


@pytest.mark.parametrize("make", SYNTHS, ids=IDS)
def test_numpy_in_numpy_out_and_unlabeled(make):
    X = np.random.default_rng(0).uniform(-2, 2, (200, 3))
    synth = make(bounds=(-2, 2)).fit(X)
    out, labels = synth.sample(10, random_state=0)
    assert labels is None  # sample always returns (X, y); y is None without labels
    assert isinstance(out, np.ndarray) and out.shape == (10, 3)
    assert np.all((out >= -2) & (out <= 2))
    with pytest.raises(ValueError, match="labels"):
        synth.sample(3, y=[0, 0, 0])


def _public_choices(synth):
    """What random_state decides in a fit: column draws (DP-HP's kernels), frequencies
    (DP-MERF), the marginals (DP-HP's default: none drawn, the same list)."""
    if getattr(synth, "product_columns_", None):
        return np.concatenate(synth.product_columns_)
    if hasattr(synth.features_, "frequencies_"):
        return synth.features_.frequencies_
    pairs = synth.pairwise_features_
    return np.asarray((pairs if pairs is not None else synth.features_).marginals_)


@pytest.mark.parametrize("make", SYNTHS, ids=IDS)
def test_random_state_fixes_public_choices_never_the_noise(make, frame):
    X, y = frame
    a = make(schema=SCHEMA, classes=CLASSES).fit(X, y)
    b = make(schema=SCHEMA, classes=CLASSES).fit(X, y)
    np.testing.assert_array_equal(_public_choices(a), _public_choices(b))
    # fresh noise at every fit: the generator trains against other targets
    la, lb = a.loss_history_, b.loss_history_  # (a noise-dependent stop may cut one short)
    assert len(la) != len(lb) or not np.allclose(la, lb)
    assert not np.allclose(a.class_weights_, b.class_weights_)
    assert a.privacy_report_.is_private and not a.privacy_report_.leaks
    same = []
    for _ in range(2):
        with pytest.warns(PrivacyLeakWarning, match="reproducible_noise"), reproducible_noise(0):
            same.append(make(schema=SCHEMA, classes=CLASSES).fit(X, y))
    np.testing.assert_array_equal(same[0].loss_history_, same[1].loss_history_)
    np.testing.assert_array_equal(_public_choices(same[0]), _public_choices(a))
    assert not same[0].privacy_report_.is_private
    pd.testing.assert_frame_equal(same[0].sample(20, random_state=3)[0],
                                  same[1].sample(20, random_state=3)[0])
    s1, s2 = a.sample(20)[0], a.sample(20)[0]
    assert not s1.equals(s2)


@pytest.mark.parametrize("make", SYNTHS, ids=IDS)
def test_pickle_round_trip_holds_no_training_row(make):
    rng = np.random.default_rng(1)
    X = rng.uniform(0, 1, (200, 3))
    X[17] = [0.1234567891234567, 0.7654321987654321, 0.5555555555555551]
    synth = make(bounds=(0, 1)).fit(X)
    blob = pickle.dumps(synth)
    for row in X:
        assert row.tobytes() not in blob
        for value in row:
            assert np.float64(value).tobytes() not in blob
    buf = io.BytesIO()
    joblib.dump(synth, buf)
    buf.seek(0)
    loaded = joblib.load(buf)
    np.testing.assert_array_equal(loaded.sample(15, random_state=7)[0],
                                  synth.sample(15, random_state=7)[0])


@pytest.mark.parametrize("make", SYNTHS, ids=IDS)
def test_leak_warnings_exactly_when_taken_from_data(make, frame):
    """infer_schema="data": what the schema leaves out is read, warned and recorded."""
    X, y = frame
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        report = make(schema=SCHEMA, classes=CLASSES).fit(X, y).privacy_report_
    assert report.leaks == () and report.is_private
    data = dict(infer_schema="data")
    # a Categorical's categories are collected from the values by pandas: not
    # a declaration, for labels as for columns
    with pytest.warns(PrivacyLeakWarning, match="class list"):
        report = make(schema=SCHEMA, **data).fit(X, pd.Series(pd.Categorical(y))).privacy_report_
    assert [leak.what for leak in report.leaks] == ["classes"] and not report.is_private
    no_city = {k: v for k, v in SCHEMA.items() if k != "city"}
    with pytest.warns(PrivacyLeakWarning, match="'city'"):
        report = make(schema=no_city, classes=CLASSES, **data).fit(X, y).privacy_report_
    assert [(leak.what, leak.column) for leak in report.leaks] == [("categories", "city")]
    assert not report.is_private
    # leaks are on the record even when every warning is filtered
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = make(schema=no_city, **data).fit(
            X, pd.Series(pd.Categorical(y))).privacy_report_
    assert {leak.what for leak in report.leaks} == {"categories", "classes"}
    assert "NOT PRIVATE" in str(report) and report.to_dict()["is_private"] is False
    partial = {k: v for k, v in SCHEMA.items() if k != "income"}
    with pytest.warns(PrivacyLeakWarning, match="'income'"):
        make(schema=partial, classes=CLASSES, **data).fit(X, y)
    with pytest.warns(PrivacyLeakWarning, match="class list"):
        make(schema=SCHEMA, **data).fit(X, y)


@pytest.mark.parametrize("make", SYNTHS, ids=IDS)
def test_what_the_schema_leaves_out_is_estimated_privately_by_default(make):
    X, y = make_frame(n=3000)  # the categories' counts (about 1,000) pass the threshold
    partial = {k: v for k, v in SCHEMA.items() if k not in ("income", "city")}
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        synth = make(schema=partial).fit(X, pd.Series(pd.Categorical(y)), epsilon=2.0)
    report = synth.privacy_report_
    assert report.leaks == () and report.is_private
    assert report.epsilon == pytest.approx(2.0, abs=1e-6)
    names = {r.name for r in report.releases}
    # no dtype is read: each undeclared column's kind is released ("schema: kinds"),
    # then the statistic of that kind ("schema: values", always a selection)
    assert {"schema: kinds", "schema: values", "schema: classes"} <= names
    assert not names & {"schema: numeric", "schema: categories"}
    assert [name for name, _, _ in report.selections] == ["schema: values",
                                                          "schema: classes"]
    assert set(synth.schema_) == set(X.columns)
    assert synth.schema_["age"] == partial["age"]  # declared entries are kept as they are
    assert synth.schema_["income"]["type"] == "numeric"  # the kinds, estimated
    assert synth.schema_["city"]["type"] == "categorical"
    lo, hi = synth.schema_["income"]["bounds"]
    # uniform on [0, 1e5]: the bins below 1e4 hold 20-75 rows each, a faint tail at
    # this n and ε; the lower bound lands between 1,000 and 15,000 (1,000 fits, kinds
    # estimated or declared)
    assert lo <= np.quantile(X["income"], 0.2) and hi >= np.quantile(X["income"], 0.9)
    assert {"A", "B", "C"} <= set(synth.schema_["city"]["categories"])
    # kinds declared public (here from the dtypes): no kinds release, each column
    # gets its kind's own release
    declared = {**kinds_from_dtypes(X), **partial}
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        typed = make(schema=declared).fit(X, pd.Series(pd.Categorical(y)), epsilon=2.0)
    report = typed.privacy_report_
    assert report.leaks == () and report.is_private
    names = {r.name for r in report.releases}
    assert {"schema: numeric", "schema: categories", "schema: classes"} <= names
    assert not names & {"schema: kinds", "schema: values"}
    assert [name for name, _, _ in report.selections] == ["schema: categories",
                                                          "schema: classes"]
    lo, hi = typed.schema_["income"]["bounds"]
    assert lo <= np.quantile(X["income"], 0.2) and hi >= np.quantile(X["income"], 0.9)
    assert {"A", "B", "C"} <= set(typed.schema_["city"]["categories"])
    # with the estimated schema, a later fit spends nothing on it
    again = make(schema=synth.schema_, classes=list(synth.classes_)).fit(X, y)
    assert not any(r.name.startswith("schema") for r in again.privacy_report_.releases)
    with pytest.raises(ValueError, match="income.*city|city.*income"):
        make(schema=partial, infer_schema="error").fit(X, y)


@pytest.mark.parametrize("make", SYNTHS, ids=IDS)
def test_a_records_values_never_make_a_fit_fail(make, frame):
    """A value's form is not public: no value turns the fit into an error, and no
    message quotes one. Each odd value trains exactly as the public value it is
    handled as (same noise): clipped, imputed, read by its canonical form, or mapped
    to the first category (class) when the spec names no other."""
    X, y = frame
    odd = X.astype({"age": object, "income": object, "city": object, "member": object})
    handled = X.copy()
    cases = [  # (row, column, odd value, the public value it is handled as)
        (3, "income", np.nan, 5e4),  # missing without "missing": the centre of the bounds
        (4, "income", np.inf, 1e5),  # clipped to the bounds
        (5, "income", -987654321.5, 0.0),
        (6, "income", "unknown-7431", 5e4),  # not a number: missing, imputed
        (7, "income", " 12345.5 ", 12345.5),  # a number spelled as text
        (8, "age", 150, 90),  # clipped
        (9, "age", "45", 45),
        (10, "city", "Zanzibar", "A"),  # outside the categories: the first one
        (11, "city", None, "A"),
        (12, "member", "TRUE", True),
        (13, "member", "Atlantis", False),
    ]
    for row, col, value, public in cases:
        odd.loc[row, col], handled.loc[row, col] = value, public
    y_odd, y_handled = y.astype(object).copy(), y.copy()
    y_odd[14], y_handled[14] = "maybe-5309", "no"  # outside the classes: the first one
    y_odd[15], y_handled[15] = None, "no"
    y_odd[16], y_handled[16] = " yes ", "yes"
    assert not handled.equals(X) and not y_handled.equals(y)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with reproducible_noise(0):
            a = make(schema=SCHEMA, classes=CLASSES).fit(odd, y_odd)
        with reproducible_noise(0):
            b = make(schema=SCHEMA, classes=CLASSES).fit(handled, y_handled)
    np.testing.assert_array_equal(a.encoder_.transform(odd), b.encoder_.transform(handled))
    np.testing.assert_array_equal(a.loss_history_, b.loss_history_)
    np.testing.assert_array_equal(a.class_weights_, b.class_weights_)
    pd.testing.assert_frame_equal(a.sample(20, random_state=3)[0],
                                  b.sample(20, random_state=3)[0])
    messages = " ".join(str(w.message) for w in caught)
    for text in ("unknown-7431", "987654321", "12345", "Zanzibar", "Atlantis", "150",
                 "maybe-5309"):
        assert text not in messages
    # the same, labels outside a declared class list: every "yes" is a "no"
    with reproducible_noise(0), warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        a = make(schema=SCHEMA, classes=["no", "maybe"]).fit(X, y)
    with reproducible_noise(0), warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        b = make(schema=SCHEMA, classes=["no", "maybe"]).fit(X, pd.Series(["no"] * len(X)))
    assert list(a.classes_) == ["no", "maybe"]
    np.testing.assert_array_equal(a.class_weights_, b.class_weights_)
    np.testing.assert_array_equal(a.loss_history_, b.loss_history_)


@pytest.mark.parametrize("make", SYNTHS, ids=IDS)
@pytest.mark.filterwarnings("ignore::skdpgen.privacy.PrivacyLeakWarning")
def test_bad_inputs(make, frame):
    """Errors are for public things only: the API, the columns, the schema, the budget."""
    X, y = frame
    base = make(schema=SCHEMA, classes=CLASSES)
    with pytest.raises(ValueError, match="epsilon"):
        base.fit(X, y, epsilon=0)
    with pytest.raises(ValueError, match="epsilon"):
        base.fit(X, y, epsilon=-1.0)
    for d in (0, 1, 1.5):
        with pytest.raises(ValueError, match="delta"):
            base.fit(X, y, delta=d)
    with pytest.raises(ValueError, match="single class"):
        make(schema=SCHEMA).fit(X, pd.Series(["no"] * len(X)))
    with pytest.raises(ValueError, match=r"single class") as info:  # no np.int64(3)
        make(schema=SCHEMA).fit(X, np.full(len(X), 3))
    assert "np.int64" not in str(info.value)
    with pytest.raises(ValueError, match="lacks"):
        make(schema={**SCHEMA, "zip": {"type": "numeric", "bounds": [0, 1]}}).fit(X, y)
    with pytest.raises(ValueError, match="non-empty"):
        make(schema=SCHEMA, classes=[]).fit(X, y)
    for batch_size in (1, 3):  # 3 rows cannot hold one row of each of 4 classes
        with pytest.raises(ValueError, match="batch_size"):
            make(schema=SCHEMA, classes=["no", "yes", "a", "b"], batch_size=batch_size).fit(X, y)
    fitted = base.fit(X, y)
    for n in (0, -3, 2.5):
        with pytest.raises(ValueError, match="n_samples"):
            fitted.sample(n)
    # asking for labels outside the (public) class list: counted, not quoted
    with pytest.raises(ValueError, match="1 labels that are not in classes") as info:
        fitted.sample(2, y=["no", "maybe-5309"])
    assert "maybe" not in str(info.value)
    with pytest.raises(ValueError, match="missing"):
        fitted.score(X.drop(columns="city"), y)
    with pytest.raises(ValueError):
        fitted.score(X.assign(extra=1), y)
    assert not hasattr(make(schema=SCHEMA), "network_")


@pytest.mark.parametrize("make", SYNTHS, ids=IDS)
def test_fit_budget_override_and_report_composition(make, frame):
    X, y = frame
    synth = make(schema=SCHEMA, classes=CLASSES, epsilon=3.0, delta=1e-6)
    synth.fit(X, y, epsilon=0.5, delta=1e-5)
    assert synth.epsilon == 3.0 and synth.delta == 1e-6  # params unchanged
    assert (synth.epsilon_, synth.delta_) == (0.5, 1e-5)
    report = synth.privacy_report_
    # the total is the exact composition of every release listed
    precision = sum(r.count / r.noise_multiplier**2 for r in report.releases)
    assert report.epsilon == pytest.approx(gaussian_epsilon(precision**-0.5, 1e-5))
    assert report.epsilon == pytest.approx(0.5, abs=1e-6)
    names = {r.name for r in report.releases}
    assert "label proportions" in names
    n = len(X)
    for r in report.releases:
        # counts and one-hot histograms (non-negative unit rows): √2/n; kernels 2/n
        tight = r.name in ("label proportions", "one-way marginals", "one-way marginals by class",
                           "two-way marginals", "two-way marginals by class")
        expected = math.sqrt(2) / n if tight else 2 / n
        assert r.sensitivity == pytest.approx(expected)
    # k fits cost the composition of k reports
    assert compose_reports([report] * 4).epsilon > 0.5


def test_dphp_releases_one_product_kernel_per_epoch(frame):
    X, y = frame
    synth = DPHPSynthesizer(schema=SCHEMA, classes=CLASSES, order=5, product_kernel="random",
                            **{**FAST, "epochs": 4}).fit(X, y)
    counts = {r.name: r.count for r in synth.privacy_report_.releases}
    assert counts == {"sum kernel": 1, "product kernel": 4, "label proportions": 1,
                      "one-way marginals": 1}
    assert len(synth.product_columns_) == 4
    # the pairwise kernel of every column, released once
    pairs = DPHPSynthesizer(schema=SCHEMA, classes=CLASSES, order=5, product_kernel="pairwise",
                            **{**FAST, "epochs": 4}).fit(X, y)
    counts = {r.name: r.count for r in pairs.privacy_report_.releases}
    assert counts == {"sum kernel": 1, "pairwise kernel": 1, "label proportions": 1,
                      "one-way marginals": 1}
    n_columns = pairs.features_.n_numeric_ + len(pairs.features_.category_sizes)
    assert [c.tolist() for c in pairs.product_columns_] == [list(range(n_columns))]
    assert pairs.product_kernel == "pairwise"  # the constructor's value stays
    sums = DPHPSynthesizer(schema=SCHEMA, order=5, product_share=0.0, marginal_share=0.0,
                           product_kernel="pairwise", **FAST).fit(X)
    assert {r.name for r in sums.privacy_report_.releases} == {"sum kernel"}


def test_class_conditional_sampling(frame):
    X, y = frame
    synth = DPHPSynthesizer(schema=SCHEMA, classes=CLASSES, order=5, **FAST).fit(X, y)
    Xs, ys = synth.sample(7, y="yes", random_state=0)
    assert list(ys) == ["yes"] * 7
    Xs, ys = synth.sample(3, y=["no", "yes", "no"], random_state=0)
    assert list(ys) == ["no", "yes", "no"]
    with pytest.raises(ValueError, match="not in classes"):
        synth.sample(2, y="maybe")
    assert synth.class_weights_.sum() == pytest.approx(1.0)


# Added to every embedding the generator is trained against (class proportions
# excepted): far more than noise or data could move a target whose features
# have norm <= 1, so the loss shows which targets the generator saw.
OFFSET = 100.0


def _spy_on_releases(monkeypatch):
    """Make each embedding release return its noisy value + OFFSET; record it."""
    released = []
    original = GaussianAccountant.add_noise

    def add_noise(self, name, value, *, sensitivity):
        noisy = original(self, name, value, sensitivity=sensitivity)
        if name == "label proportions":
            return noisy
        noisy = noisy + OFFSET
        released.append((name, noisy))
        return noisy

    monkeypatch.setattr(GaussianAccountant, "add_noise", add_noise)
    return released


@pytest.mark.parametrize("labeled", [True, False], ids=["labeled", "unlabeled"])
# the kernels' loss; the marginal mechanism's: tests/synthesizers/test_marginals.py
@pytest.mark.parametrize("make", SYNTHS[1:], ids=IDS[1:])
def test_generator_trains_against_the_noisy_releases(make, labeled, frame, monkeypatch):
    """The targets of the loss are the values the noise site returned (divided
    by the private class weights), never the exact embedding."""
    X, y = frame
    released = _spy_on_releases(monkeypatch)
    synth = make(schema=SCHEMA, classes=CLASSES if labeled else None)
    targets = []
    original = ReleaseContext.release_embedding

    def record(*args, **kwargs):  # what the mechanism gets back: its training targets
        out = original(*args, **kwargs)
        targets.append(out)
        return out

    monkeypatch.setattr(ReleaseContext, "release_embedding", record)
    synth.fit(X, y if labeled else None)

    epochs, steps_per_epoch = FAST["epochs"], FAST["steps_per_epoch"]
    names = [name for name, _ in released]
    if isinstance(synth, DPHPSynthesizer):  # the kernels: the pairwise kernel, once
        assert names == ["one-way marginals", "sum kernel", "pairwise kernel"]
    else:  # DP-MERF's default releases the pairwise kernel too
        assert names[0] == "one-way marginals"  # the calibration's, before training
        assert names[1:] == ["mean embedding", "pairwise kernel"]
    weights = synth.class_weights_ if labeled else np.ones(1)
    # what the noise site returned, as the generator must see it: (classes × features)
    expected = [torch.as_tensor((noisy / weights[None, :]).T, dtype=torch.float32)
                for _, noisy in released]
    assert len(targets) == len(expected)
    for got, want in zip(targets, expected):
        assert got.dtype == torch.float32 and torch.equal(got.cpu(), want)
    # the calibration's targets are the histograms' release, likewise
    np.testing.assert_array_equal(synth.calibration_.targets_, expected[0].double().numpy())
    expected = expected[1:]  # the generator's

    # The loss is Σ_c ‖t_c − g_c‖² plus (γ times for DP-HP, pairwise_weight_
    # times for DP-MERF) the same for the pairwise kernel, where the generator's class means g_c have
    # norm <= 1. So every step's loss lies in [Σ (‖t_c‖ − 1)², Σ (‖t_c‖ + 1)²]
    # for the released targets t, a window far from any exact embedding's loss.
    def window(t):
        norms = np.linalg.norm(t.double().numpy(), axis=1)
        return np.sum(np.maximum(norms - 1, 0) ** 2), np.sum((norms + 1) ** 2)

    steps = np.arange(synth.loss_history_.size)
    assert steps.size == epochs * steps_per_epoch
    # the sum kernel (DP-HP) or the one embedding (DP-MERF), at every step
    low, high = (np.full(steps.size, bound) for bound in window(expected[0]))
    # plus the pairwise kernel at every step
    pair_low, pair_high = window(expected[1])
    gamma = synth.gamma if isinstance(synth, DPHPSynthesizer) else synth.pairwise_weight_
    low += gamma * pair_low
    high += gamma * pair_high
    assert low.min() > 1e4  # the offset dominates: an exact target would give ~1
    loss = synth.loss_history_
    assert np.all(loss >= low * (1 - 1e-4)), (loss, low)
    assert np.all(loss <= high * (1 + 1e-4)), (loss, high)


@pytest.mark.parametrize("make", SYNTHS, ids=IDS)
def test_class_proportions_follow_the_data_per_class(make):
    rng = np.random.default_rng(3)
    n = 1000
    y = np.repeat(np.array(["a", "b", "c"]), [500, 300, 200])
    rng.shuffle(y)
    X = rng.uniform(0, 1, (n, 2))
    classes = ["c", "a", "b"]  # not sorted: the weights follow this order
    epsilon, delta = 1e4, 1e-5  # finite, small noise
    synth = make(bounds=(0, 1), classes=classes, epsilon=epsilon, delta=delta,
                 **{**FAST, "epochs": 1, "steps_per_epoch": 2}).fit(X, y)
    assert list(synth.classes_) == classes
    data = np.array([np.mean(y == c) for c in classes])  # [0.2, 0.5, 0.3]
    # noise of the release, derived here: σ of its budget share, Δ = sqrt(2)/n
    std = calibrate_gaussian(epsilon, delta) / math.sqrt(synth.label_share) * math.sqrt(2) / n
    assert 8 * std < 0.01  # the check below can tell classes apart
    np.testing.assert_allclose(synth.class_weights_, data, rtol=0, atol=8 * std)
    assert synth.class_weights_.sum() == pytest.approx(1.0)
    # labels drawn by sample() follow those weights, class by class
    m = 20_000
    _, ys = synth.sample(m, random_state=0)
    freq = np.array([np.mean(ys == c) for c in classes])
    np.testing.assert_allclose(freq, synth.class_weights_, rtol=0,
                               atol=5 * np.sqrt(0.25 / m))


def _separated_table(n=400, seed=0):
    """Class "lo": a near 1, b near 9, city A; class "hi": a near 9, b near 1, city B."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.5, "lo", "hi")
    lo = y == "lo"
    X = pd.DataFrame({
        "a": np.where(lo, rng.uniform(0, 2, n), rng.uniform(8, 10, n)),
        "b": np.where(lo, rng.uniform(8, 10, n), rng.uniform(0, 2, n)),
        "city": pd.Categorical(np.where(lo, "A", "B"), categories=["A", "B"]),
    })
    schema = {"a": {"type": "numeric", "bounds": [0, 10]},
              "b": {"type": "numeric", "bounds": [0, 10]},
              "city": {"type": "categorical", "categories": ["A", "B"]}}
    return X, y, schema


@pytest.mark.parametrize(
    "make",
    [
        lambda **kw: DPHPSynthesizer(order=10, epochs=3, steps_per_epoch=50, **kw),
        lambda **kw: DPHPSynthesizer(order=10, product_kernel="pairwise", epochs=3,
                                     steps_per_epoch=50, **kw),
        lambda **kw: DPMERFSynthesizer(n_components=200, epochs=1, steps_per_epoch=150, **kw),
    ],
    ids=IDS,
)
def test_sample_given_y_draws_rows_of_that_class(make, same_noise):
    """Per-class content of sample(y=c) on a well-separated table: rows asked
    for class c look like the training rows of class c (one seeded noise draw and
    seeded public randomness: unseeded, the city share fell to 0.54 and 0.58 in
    two suite runs)."""
    X, y, schema = _separated_table()
    with same_noise(0):
        synth = make(schema=schema, classes=["lo", "hi"], epsilon=100.0, batch_size=128,
                     device="cpu", random_state=0).fit(X, y)
    for label, (a, b, city) in {"lo": (1, 9, "A"), "hi": (9, 1, "B")}.items():
        Xs, ys = synth.sample(400, y=label, random_state=0)
        assert (ys == label).all()
        # the true class means are 1 and 9; the other class's are 9 and 1
        assert abs(Xs["a"].mean() - a) < 2.5 and abs(Xs["b"].mean() - b) < 2.5, Xs[["a", "b"]].mean()
        assert (Xs["city"] == city).mean() > 0.8
    # a mixed request: each row follows its own label
    labels = np.tile(["lo", "hi"], 200)
    Xs, ys = synth.sample(400, y=labels, random_state=1)
    np.testing.assert_array_equal(ys, labels)
    lo = ys == "lo"
    assert Xs["a"][lo].mean() < 3.5 < 6.5 < Xs["a"][~lo].mean()
    assert Xs["b"][~lo].mean() < 3.5 < 6.5 < Xs["b"][lo].mean()
    assert (Xs["city"][lo] == "A").mean() > 0.8 and (Xs["city"][~lo] == "B").mean() > 0.8


def test_kernel_features_have_norm_at_most_one():
    """DP-HP's kernels of encoded tables (Hermite numeric columns, one-hot blocks)."""
    rng = np.random.default_rng(0)
    ls = [1e-3, 0.5, 1e3]
    sum_map = HermiteFeatures(order=30, length_scale=ls, category_sizes=[2, 4]).fit(
        np.zeros((1, 9)))
    for _ in range(20):
        num = rng.choice([-1.0, 1.0, 0.0, rng.uniform(-1, 1)], size=(64, 3))
        blocks = [np.eye(k)[rng.integers(0, k, 64)] for k in (2, 4)]
        Z = np.hstack([num] + blocks)
        for fmap in (sum_map, HermiteFeatures(
                order=8, length_scale=ls, kernel="product",
                product_dims=rng.choice(5, size=3, replace=False), category_sizes=[2, 4],
        ).fit(np.zeros((1, 9))), HermiteFeatures(
                order=8, length_scale=ls, kernel="pairwise", category_sizes=[2, 4],
        ).fit(np.zeros((1, 9)))):
            H = fmap.raw_transform(torch.as_tensor(Z))  # before any clip
            assert torch.all(torch.linalg.norm(H, dim=1) <= 1 + 1e-12)
            np.testing.assert_allclose(H.numpy(), fmap.raw_transform(Z), atol=1e-13)


def test_release_sums_clip_and_stream():
    """What the releases sum: rows of norm <= 1 after the clip, sums equal to Hᵀ W
    of the plain features whatever the chunking, F as the map says."""
    rng = np.random.default_rng(1)
    ls = [1e-3, 0.5, 1e3]
    num = rng.choice([-1.0, 1.0, 0.0, 0.3], size=(500, 3))
    Z = np.hstack([num] + [np.eye(k)[rng.integers(0, k, 500)] for k in (2, 4)])
    codes = rng.integers(0, 2, 500)
    maps = [
        HermiteFeatures(order=30, length_scale=ls, category_sizes=[2, 4]),
        HermiteFeatures(order=8, length_scale=ls, kernel="product", product_dims=[0, 3, 4],
                        category_sizes=[2, 4]),
        HermiteFeatures(order=8, length_scale=ls, kernel="pairwise", category_sizes=[2, 4]),
    ]
    limit = 1 - 8 * np.finfo(np.float64).eps
    for fmap in maps:
        fmap.fit(Z)
        H = fmap.transform(Z)
        assert H.shape[1] == fmap.n_features_out_
        W = np.eye(2)[codes]
        S = fmap.feature_sum(Z, W)
        np.testing.assert_allclose(S, H.T @ W, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(chunk_feature_sums(fmap, Z, codes, 2, chunk_size=77), S,
                                   rtol=1e-12, atol=1e-12)
        T = fmap.feature_sum(torch.as_tensor(Z), torch.as_tensor(W))
        np.testing.assert_allclose(T.numpy(), S, rtol=1e-12, atol=1e-12)
        # a row whose features have norm 1 exactly (a one-row sum) is clipped below 1
        for row in Z[:50]:
            assert np.linalg.norm(fmap.feature_sum(row[None], np.ones((1, 1)))) <= limit


def test_digits_images():
    digits = load_digits()
    synth = DPHPSynthesizer(
        bounds=(0, 16), classes=list(range(10)), order=5, **{**FAST, "epochs": 1}
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        synth.fit(digits.data, digits.target)
    Xs, ys = synth.sample(20, random_state=0)
    assert Xs.shape == (20, 64) and Xs.min() >= 0 and Xs.max() <= 16
    assert set(ys) <= set(range(10))


def test_pipeline_and_grid_search(same_noise):
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, (240, 2))
    pipe = Pipeline(
        [("clip", FunctionTransformer(np.clip, kw_args={"a_min": 0, "a_max": 1})),
         ("synth", DPHPSynthesizer(bounds=(0, 1), order=4, product_kernel="pairwise",
                                   **FAST))]
    )
    pipe.fit(X)
    assert pipe.named_steps["synth"].sample(3)[0].shape == (3, 2)

    grid = {"order": [3, 6], "length_scale": [0.3, 1.0]}
    # same_noise: every fit draws the same noise, so the search's scores can be
    # recomputed here, fit by fit (this checks the scoring, not the privacy)
    with same_noise():
        search = GridSearchCV(DPHPSynthesizer(bounds=(0, 1), product_kernel="pairwise",
                                              **FAST), grid, cv=2).fit(X)
        expected = []
        for params in search.cv_results_["params"]:
            folds = [
                DPHPSynthesizer(bounds=(0, 1), product_kernel="pairwise", **FAST,
                                **params).fit(X[train]).score(X[test])
                for train, test in KFold(2).split(X)
            ]
            expected.append(np.mean(folds))
    assert set(search.best_params_) == {"order", "length_scale"}
    # each candidate, with its own parameters, scored on the held-out fold
    np.testing.assert_allclose(search.cv_results_["mean_test_score"], expected, rtol=1e-9)
    assert len(set(np.round(expected, 12))) == 4  # the parameters change the score
    assert search.best_params_ == search.cv_results_["params"][int(np.argmax(expected))]
    # the search spent the composition of every fit it made (4 candidates × 2 folds + refit)
    report = search.best_estimator_.privacy_report_
    reports = [report] * 9
    assert compose_reports(reports).epsilon > 1.0
    # exactly: 9 copies of a Gaussian mechanism of multiplier σ compose to σ/3
    assert compose_reports(reports).epsilon == pytest.approx(
        gaussian_epsilon(report.noise_multiplier / 3, report.delta), rel=1e-9)


def test_grid_search_with_synthetic_to_real_scorer(same_noise):
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import accuracy_score

    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, (300, 2))
    y = np.where(X[:, 0] + X[:, 1] > 1, 1, 0)

    def synthetic_to_real_accuracy(estimator, X_val, y_val):
        Xs, ys = estimator.sample(len(X_val), random_state=0)
        if np.unique(ys).size < 2:
            return 0.0
        clf = LogisticRegression().fit(Xs, ys)
        return accuracy_score(y_val, clf.predict(X_val))

    params = dict(bounds=(0, 1), classes=[0, 1], n_components=50, **FAST)
    # same_noise: the fits are reproducible, so the search's scores can be
    # recomputed here (this checks the scoring, not the privacy)
    with same_noise():
        search = GridSearchCV(
            DPMERFSynthesizer(**params),
            {"length_scale": [0.5, 2.0]},
            scoring=synthetic_to_real_accuracy,
            cv=2,
        ).fit(X, y)
        expected = [
            np.mean([
                synthetic_to_real_accuracy(
                    DPMERFSynthesizer(**params, length_scale=ls).fit(X[train], y[train]),
                    X[test], y[test],
                )
                for train, test in KFold(2).split(X)
            ])
            for ls in (0.5, 2.0)
        ]
    # the scorer ran on each candidate's own fit and on the held-out real fold
    np.testing.assert_allclose(search.cv_results_["mean_test_score"], expected, rtol=1e-12)
    assert search.best_score_ == max(expected)
    assert search.best_params_ == {"length_scale": (0.5, 2.0)[int(np.argmax(expected))]}


def test_score_is_higher_for_the_training_distribution(frame):
    X, y = frame
    synth = DPHPSynthesizer(
        schema=SCHEMA, classes=CLASSES, order=5, epsilon=10.0, **{**FAST, "steps_per_epoch": 60}
    ).fit(X, y)
    other = X.assign(age=90, city=pd.Categorical(["C"] * len(X), categories=["A", "B", "C"]))
    assert synth.score(X, y) > synth.score(other, y)


def test_convolutional_generator_for_images():
    digits = load_digits()
    # a complete public schema: with bounds alone the 64 columns' missing flags
    # are estimated, and one comes out spuriously "missing" (an extra block the
    # conv network refuses) in ~64 x 3e-5 = 0.2 % of fits (measured 23 flags of
    # either kind in 4,000 estimations)
    pixels = {j: {"type": "numeric", "bounds": [0, 16], "integer": True, "missing": False}
              for j in range(64)}
    synth = DPMERFSynthesizer(
        schema=pixels, classes=list(range(10)), network="conv", image_shape=(8, 8),
        n_components=200, **{**FAST, "epochs": 1},
    ).fit(digits.data, digits.target)
    assert [r.name for r in synth.privacy_report_.releases] == ["mean embedding",
                                                                "label proportions"]
    Xs, ys = synth.sample(6, random_state=0)
    assert Xs.shape == (6, 64) and Xs.min() >= 0 and Xs.max() <= 16
    with pytest.raises(ValueError, match="image_shape"):
        DPMERFSynthesizer(bounds=(0, 16), network="conv", image_shape=(4, 4), **FAST).fit(
            digits.data
        )
    X, _ = make_frame()
    with pytest.raises(ValueError, match="image_shape"):
        DPHPSynthesizer(schema=SCHEMA, network="conv", image_shape=(2, 2), **FAST).fit(X)


def test_patch_kernel_for_images():
    from skdpgen.kernels import PatchFourierFeatures

    digits = load_digits()
    pixels = {j: {"type": "numeric", "bounds": [0, 16], "missing": False} for j in range(64)}
    synth = DPHPSynthesizer(schema=pixels, classes=list(range(10)), image_shape=(8, 8),
                            **{**FAST, "epochs": 1}).fit(digits.data[:300], digits.target[:300])
    assert [r.name for r in synth.privacy_report_.releases] == [
        "sum kernel", "patch kernel", "label proportions"]
    assert isinstance(synth.patch_features_, PatchFourierFeatures)
    assert (synth.patch_features_.patch_size, synth.patch_features_.stride) == (3, 1)
    assert synth.product_columns_ == [] and synth.pairwise_features_ is None
    Xs, _ = synth.sample(5, random_state=0)
    assert Xs.shape == (5, 64) and Xs.min() >= 0 and Xs.max() <= 16
    # the patch kernel reads pixels: a table that is not h * w numeric columns is
    # refused from its public shape, before any release
    X, _ = make_frame()
    for params in ({"product_kernel": "patch"}, {"image_shape": (2, 2), "network": "mlp"}):
        with pytest.raises(ValueError, match="product_kernel='patch' needs image_shape"):
            DPHPSynthesizer(schema=SCHEMA, **params, **FAST).fit(X)


def test_image_shape_declares_pixels_never_missing():
    # with image_shape, a pixel is numeric and never missing unless the schema says
    # so: half of one pixel missing (which the estimate would flag, adding a block
    # the conv generator and the patch kernel cannot place) is written as values
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 16, (400, 16))
    X[::2, 3] = np.nan
    X[1, 5] = np.inf
    y = rng.integers(0, 2, 400)
    synth = DPHPSynthesizer(bounds=(0, 16), classes=[0, 1], image_shape=(4, 4),
                            epsilon=5.0, **{**FAST, "epochs": 1}).fit(X, y)
    assert all(spec["type"] == "numeric" and spec["missing"] is False
               for spec in synth.schema_.values())
    Xs, _ = synth.sample(5, random_state=0)
    assert Xs.shape == (5, 16) and np.isfinite(Xs).all()
    # where the schema says otherwise, it is the schema's (here: a refused table)
    with pytest.raises(ValueError, match="image_shape"):
        DPHPSynthesizer(bounds=(0, 16), schema={3: {"type": "numeric", "missing": True}},
                        classes=[0, 1], image_shape=(4, 4), **FAST).fit(X, y)


def test_image_shape_declares_pixels_never_zero_inflated():
    """Issue 54: digits-like images with a privately estimated schema. Pixels that
    are mostly 0 (one always 0) were estimated zero-inflated, which adds a block
    the conv generator refuses, after the schema's releases: image_shape declares
    every pixel never zero-inflated, so the fit goes on (here past its guesses
    too, which would otherwise refuse it first)."""
    rng = np.random.default_rng(0)
    X = rng.integers(1, 17, (1000, 16)).astype(float)
    X[rng.random(X.shape) < 0.6] = 0.0  # every pixel 0 in 60 % of the images ...
    X[:, [0, 3, 12, 15]] = 0.0  # ... the corners always
    y = rng.integers(0, 2, 1000)
    with reproducible_noise(0), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synth = DPHPSynthesizer(image_shape=(4, 4), classes=[0, 1], epsilon=3.0,
                                on_guess="fit", **{**FAST, "epochs": 1}).fit(X, y)
    assert all(spec["type"] == "numeric" and not spec.get("zero") and not spec["missing"]
               for spec in synth.schema_.values())
    Xs, _ = synth.sample(5, random_state=0)
    assert Xs.shape == (5, 16) and np.isfinite(Xs).all()


def test_verbose_shows_progress_and_keeps_loss_curve(capsys):
    X = np.random.default_rng(0).uniform(0, 1, (100, 2))
    synth = DPHPSynthesizer(bounds=(0, 1), order=3, product_kernel="pairwise", verbose=1,
                            **FAST).fit(X)
    assert "DP-HP" in capsys.readouterr().err
    assert synth.loss_history_.shape == (FAST["epochs"] * FAST["steps_per_epoch"],)
    # the marginal mechanism may stop early (its discrepancy principle): never later
    marginals = MarginalSynthesizer(bounds=(0, 1), verbose=1, epochs=FAST["epochs"],
                                    steps_per_epoch=FAST["steps_per_epoch"]).fit(X)
    assert "Marginal synthesizer" in capsys.readouterr().err
    assert 1 <= len(marginals.loss_history_) <= FAST["epochs"] * FAST["steps_per_epoch"]
    assert np.all(np.isfinite(synth.loss_history_))


def test_the_progress_bar_starts_after_the_first_releases(monkeypatch):
    # its first rate is a training step's, not the passes over the rows
    from skdpgen.synthesizers import GeneratorTrainer, HermiteMechanism

    order = []
    steps, release = GeneratorTrainer._steps, HermiteMechanism.release
    monkeypatch.setattr(GeneratorTrainer, "_steps",
                        lambda self, total: order.append("bar") or steps(self, total))
    monkeypatch.setattr(HermiteMechanism, "release",
                        lambda self, epoch, context: order.append(epoch) or release(
                            self, epoch, context))
    X = np.random.default_rng(0).uniform(0, 1, (100, 2))
    DPHPSynthesizer(bounds=(0, 1), order=3, product_kernel="random",
                    **{**FAST, "epochs": 2}).fit(X)
    assert order[:2] == [0, "bar"] and order.count("bar") == 1


def test_training_decreases_the_loss():
    X = np.random.default_rng(0).normal(0.3, 0.1, (500, 2))
    synth = DPHPSynthesizer(
        bounds=(-1, 1), order=10, epsilon=10.0, product_kernel="pairwise",
        **{**FAST, "steps_per_epoch": 100}
    ).fit(X)
    assert synth.loss_history_[-20:].mean() < 0.5 * synth.loss_history_[:5].mean()


@pytest.mark.skipif(not __import__("torch").cuda.is_available(), reason="needs a CUDA GPU")
@pytest.mark.parametrize("make", SYNTHS, ids=IDS)
def test_cuda_fit_then_cpu_pickle(make, frame):
    X, y = frame
    synth = make(schema=SCHEMA, classes=CLASSES, device="cuda").fit(X, y)
    loaded = pickle.loads(pickle.dumps(synth))
    assert next(loaded.network_.parameters()).device.type == "cpu"
    pd.testing.assert_frame_equal(loaded.sample(5, random_state=0)[0], synth.sample(5, random_state=0)[0])


@pytest.mark.skipif(not __import__("torch").cuda.is_available(), reason="needs a CUDA GPU")
@pytest.mark.parametrize("make", [DPHPSynthesizer, DPMERFSynthesizer])
def test_cuda_release_equals_cpu_release(make, frame, same_noise):
    """The releases computed on the GPU are the CPU ones (same seed, same noise)."""
    X, y = frame
    params = dict(schema=SCHEMA, classes=CLASSES, **FAST)
    targets = {}
    for device in ("cpu", "cuda"):
        synth = make(**{**params, "device": device})
        seen = []
        original = ReleaseContext.release_embedding

        def record(*args, _seen=seen, _original=original, **kwargs):
            out = _original(*args, **kwargs)
            _seen.append(out.cpu().numpy())
            return out

        ReleaseContext.release_embedding = record
        try:
            with same_noise():
                synth.fit(X, y)
        finally:
            ReleaseContext.release_embedding = original
        targets[device] = seen
    assert len(targets["cpu"]) == len(targets["cuda"]) > 0
    for a, b in zip(targets["cpu"], targets["cuda"]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_fit_restores_torch_threads():
    import torch

    before = torch.get_num_threads()
    X = np.random.default_rng(0).uniform(0, 1, (100, 2))
    DPHPSynthesizer(bounds=(0, 1), order=3, **FAST).fit(X)
    assert torch.get_num_threads() == before


def test_failed_fit_leaves_nothing_half_fitted():
    from sklearn.exceptions import NotFittedError

    X, _ = make_frame()
    synth = DPHPSynthesizer(schema=SCHEMA, network="conv", image_shape=(2, 2), **FAST)
    with pytest.raises(ValueError, match="image_shape"):
        synth.fit(X)
    assert not [k for k in vars(synth) if k.endswith("_") and not k.startswith("_")]
    with pytest.raises(NotFittedError):
        synth.sample(3)

    # a failed re-fit leaves the previous fit intact (the same objects) and usable
    synth = DPHPSynthesizer(schema=SCHEMA, **FAST).fit(X)
    expected, _ = synth.sample(4, random_state=0)
    state = {k: v for k, v in vars(synth).items() if k.endswith("_")}
    synth.set_params(network="conv", image_shape=(2, 2))
    with pytest.raises(ValueError, match="image_shape"):
        synth.fit(X, epsilon=2.0)
    assert {k: v for k, v in vars(synth).items() if k.endswith("_")}.keys() == state.keys()
    assert all(vars(synth)[k] is v for k, v in state.items())
    synth.set_params(network="mlp", image_shape=None)
    pd.testing.assert_frame_equal(synth.sample(4, random_state=0)[0], expected)


def test_categorical_dtype_of_the_rows_does_not_leak_absent_categories():
    """A column made with astype("category") lists only the categories present
    in the private rows; the fitted model must keep the schema's list instead."""
    X, _ = make_frame()
    X = X.assign(city=X["city"].astype(str).replace("C", "A").astype("category"))
    assert list(X["city"].dtype.categories) == ["A", "B"]  # "C" absent from the rows
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        synth = DPMERFSynthesizer(schema=SCHEMA, **FAST).fit(X)
    city = synth.encoder_.dtypes_[list(X.columns).index("city")]
    assert list(city.categories) == ["A", "B", "C"]
    assert list(synth.sample(5, random_state=0)[0]["city"].dtype.categories) == ["A", "B", "C"]


def test_dphp_length_scale_is_validated(frame):
    X, y = frame
    for bad in (-0.5, [0.5, 0.5, 0.5], [0.5, np.nan]):  # two numeric columns
        with pytest.raises(ValueError, match="length_scale"):
            DPHPSynthesizer(schema=SCHEMA, classes=CLASSES, product_kernel="pairwise", length_scale=bad, max_levels=0,
                            **FAST).fit(X, y)
    DPHPSynthesizer(schema=SCHEMA, classes=CLASSES, product_kernel="pairwise", length_scale=[0.3, 2.0], max_levels=0,
                    **FAST).fit(X, y)
    # by default the integer age (74 values) is a one-hot block: one numeric column
    synth = DPHPSynthesizer(schema=SCHEMA, classes=CLASSES, product_kernel="pairwise", length_scale=[0.3], **FAST)
    assert synth.fit(X, y).encoder_.numeric_columns_ == ["income"]
    with pytest.raises(ValueError, match="length_scale"):
        DPHPSynthesizer(schema=SCHEMA, classes=CLASSES, product_kernel="pairwise", length_scale=[0.3, 2.0],
                        **FAST).fit(X, y)


def test_dphp_bins_encode_numeric_columns_as_histogram_blocks(frame):
    X, y = frame
    synth = DPHPSynthesizer(schema=SCHEMA, classes=CLASSES, bins=8, max_levels=100,
                            **FAST).fit(X, y)
    enc = synth.encoder_
    # age is levels (74 integers, max_levels), income binned: the sum kernel sees no numeric column
    assert enc.binned_columns_ == ["income"] and enc.n_numeric_ == 0
    assert synth.features_.n_features_in_ == enc.n_encoded_
    Xs, _ = synth.sample(200, random_state=0)
    lo, hi = SCHEMA["income"]["bounds"]
    assert Xs["income"].between(lo, hi).all() and Xs["income"].nunique() > 8
    again, _ = synth.sample(200, random_state=0)
    pd.testing.assert_frame_equal(Xs, again)
    assert synth.privacy_report_.epsilon == pytest.approx(synth.epsilon)


def test_dpmerf_default_length_scale_is_a_function_of_the_public_encoding():
    from skdpgen.synthesizers._policy import POLICY
    from skdpgen.synthesizers.mechanisms.fourier import default_length_scale

    # (2/3)·3 numeric + 2·(1 − 1/3) city + 2·(1 − 1/2) member = 2 + 4/3 + 1
    expected = POLICY.length_scale_factor * math.sqrt(2 + 4 / 3 + 1)
    assert default_length_scale(3, [3, 2]) == pytest.approx(expected)
    assert default_length_scale(3, [3, 2], factor=1.0) == pytest.approx(math.sqrt(2 + 4 / 3 + 1))
    schema = {**SCHEMA, "extra": {"type": "numeric", "bounds": [0, 1]}}
    scales = []
    for seed in (0, 1):  # different rows, same public schema: the same length scale
        X, y = make_frame(seed=seed)
        X = X.assign(extra=np.random.default_rng(seed).uniform(size=len(X)))
        # max_levels=0: the integer column stays one number (3 numeric columns)
        synth = DPMERFSynthesizer(schema=schema, classes=CLASSES, n_components=50,
                                  max_levels=0, **FAST).fit(X, y)
        assert synth.length_scale == "auto"  # the parameter is left as it was
        scales.append(synth.length_scale_)
    assert scales[0] == scales[1] == pytest.approx(expected)
    assert synth.features_.length_scale == synth.length_scale_
    fixed = DPMERFSynthesizer(schema=schema, classes=CLASSES, n_components=50, length_scale=0.7,
                              **FAST).fit(X, y)
    assert fixed.length_scale_ == 0.7
    # the generator is compared through the expected features of its one-hot draws
    for fitted in (synth, fixed):
        assert fitted.features_.category_sizes == fitted.encoder_.category_sizes_
    assert synth.features_.category_sizes == [3, 2]


def test_dphp_product_draws_stay_within_the_feature_cap():
    from skdpgen.synthesizers._policy import POLICY
    from skdpgen.synthesizers.mechanisms.hermite import draw_product_columns

    rng = np.random.default_rng(0)
    widths = [6, 6, 6, 74, 99, 42, 16, 2]
    seen = set()
    for _ in range(200):
        cols = draw_product_columns(rng, widths, 3, max_features=5000)
        assert 1 <= len(cols) <= 3 and np.all(np.diff(cols) > 0)
        assert np.prod([widths[j] for j in cols]) <= 5000
        seen.update(cols.tolist())
    assert seen == set(range(len(widths)))  # every column is drawn at some point
    # with the default cap, DP-HP's 3 of a table of numbers: any 3 (6³ features)
    assert len(draw_product_columns(rng, [6] * 10, 3)) == 3 and POLICY.max_product_features >= 6**3
    # nothing fits: the narrowest column alone
    assert draw_product_columns(rng, [500, 300], 2, max_features=100).tolist() == [1]


def test_dphp_levels_learn_point_masses_of_integer_columns():
    """Hours a week: 45 % of the rows at 40, the rest spread over 1-99."""
    rng = np.random.default_rng(0)
    n = 3000
    hours = np.where(rng.random(n) < 0.45, 40, rng.integers(1, 100, n))
    X = pd.DataFrame({"hours": hours, "x": rng.uniform(0, 1, n)})
    schema = {"hours": {"type": "numeric", "bounds": [1, 99], "integer": True},
              "x": {"type": "numeric", "bounds": [0, 1]}}
    synth = DPHPSynthesizer(schema=schema, epsilon=20.0,
                            **{**FAST, "epochs": 3, "steps_per_epoch": 100})
    Xs, _ = synth.fit(X).sample(n, random_state=0)
    assert synth.encoder_.level_columns_ == ["hours"]
    assert Xs["hours"].dtype == np.int64 and Xs["hours"].between(1, 99).all()
    assert abs(np.mean(Xs["hours"] == 40) - np.mean(hours == 40)) < 0.08


def test_pairwise_columns_respect_the_feature_cap():
    from skdpgen.synthesizers.mechanisms._pairwise import draw_pairwise_columns

    rng = np.random.default_rng(0)
    widths = [6] * 5 + [40, 2, 100]
    assert draw_pairwise_columns(rng, widths).tolist() == list(range(8))  # all fit
    for _ in range(20):  # too many: a random subset within the cap, never empty
        cols = draw_pairwise_columns(rng, widths, max_features=2_000)
        w = np.asarray(widths)[cols]
        assert cols.size >= 1 and (w.sum() ** 2 - (w ** 2).sum()) // 2 <= 2_000
    # images take the patch kernel and the conv generator (hundreds of pixels' pairs
    # are too many); the paper's random product kernels when asked for
    def design(**params):
        shape = PublicShape(64, 1.0, 1e-5, True, lambda: 1000)
        return DPHPSynthesizer(**params)._design(shape, np.random.default_rng(0))

    assert design(image_shape=(8, 8)).mechanism.product_kernel == "patch"
    assert design(image_shape=(8, 8)).generator.kind == "conv"
    assert design(image_shape=(8, 8), product_kernel="random").generator.kind == "conv"
    assert design().mechanism.product_kernel == "pairwise"
    assert design().generator.kind == "mlp"
    assert design(product_kernel="random").mechanism.product_kernel == "random"


def test_pairs_above_noise_keeps_the_largest_set_that_clears_the_noise():
    import itertools
    import math

    from skdpgen.synthesizers.mechanisms._pairwise import pairs_above_noise
    from skdpgen.synthesizers._policy import POLICY

    ratio = POLICY.pair_noise_ratio

    rng = np.random.default_rng(0)
    for _ in range(200):
        widths = rng.choice([2, 3, 6, 16, 52, 99], size=rng.integers(2, 9))
        noise = 10.0 ** rng.uniform(-5, -1)
        pairs = pairs_above_noise(widths, noise)
        products = sorted(widths[a] * widths[b] for a, b in itertools.combinations(
            range(widths.size), 2))
        k = len(pairs)
        assert k >= 1 and (pairs[:, 0] < pairs[:, 1]).all()
        kept = sorted(widths[a] * widths[b] for a, b in pairs)
        assert kept == products[:k]  # the narrowest pairs
        if k > 1:  # every kept pair clears the noise with all k pairs in the kernel
            assert kept[-1] * math.sqrt(k) * noise <= ratio
        if k < len(products):  # one more pair would not
            assert products[k] * math.sqrt(k + 1) * noise > ratio
        assert len(pairs_above_noise(widths, noise, ratio=1.0)) <= k
    with pytest.raises(ValueError, match="at least two columns"):
        pairs_above_noise([6], 0.1)


@pytest.mark.parametrize("cls", [DPHPSynthesizer, DPMERFSynthesizer])
def test_pairwise_release_drops_pairs_below_its_noise(cls):
    """Few rows and a 40-category column: its pairs are left out of the
    pairwise kernel; with many rows' worth of budget every pair stays."""
    rng = np.random.default_rng(0)
    n = 400
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n),
                      "c": rng.integers(0, 40, n).astype(str)})
    schema = {"a": {"type": "numeric", "bounds": [-4, 4]},
              "b": {"type": "numeric", "bounds": [-4, 4]},
              "c": {"type": "categorical", "categories": [str(k) for k in range(40)]}}
    kwargs = dict(schema=schema, epochs=1, steps_per_epoch=2, random_state=0)
    if cls is DPHPSynthesizer:
        kwargs["product_kernel"] = "pairwise"
    if cls is DPMERFSynthesizer:
        kwargs["n_components"] = 50
    small = cls(**kwargs).fit(X, epsilon=1.0)
    large = cls(**kwargs).fit(X, epsilon=1e4)
    assert small.pairwise_features_.pairs_.tolist() == [[0, 1]]
    assert large.pairwise_features_.pairs_.tolist() == [[0, 1], [0, 2], [1, 2]]


def test_dpmerf_pairwise_release_and_integer_levels(frame):
    X, y = frame
    synth = DPMERFSynthesizer(schema=SCHEMA, classes=CLASSES, n_components=50, **FAST).fit(X, y)
    counts = {r.name: r.count for r in synth.privacy_report_.releases}
    assert counts == {"mean embedding": 1, "pairwise kernel": 1, "label proportions": 1,
                      "one-way marginals": 1}
    pairwise = synth.pairwise_features_
    assert pairwise.kernel == "pairwise" and pairwise.n_features_in_ == synth.encoder_.n_encoded_
    assert synth.pairwise_share == "auto"  # the constructor's value stays
    # integer columns with at most max_levels values are one-hot levels, as in DP-HP
    levels = DPHPSynthesizer(schema=SCHEMA, classes=CLASSES, product_kernel="pairwise",
                             **FAST).fit(X, y)
    assert synth.encoder_.n_encoded_ == levels.encoder_.n_encoded_
    paper = DPMERFSynthesizer(schema=SCHEMA, classes=CLASSES, n_components=50, pairwise_share=0.0,
                              marginal_share=0.0, max_levels=0, **FAST).fit(X, y)
    assert {r.name for r in paper.privacy_report_.releases} == {"mean embedding",
                                                                "label proportions"}
    assert paper.pairwise_features_ is None
    assert paper.encoder_.n_encoded_ < synth.encoder_.n_encoded_
    shape = PublicShape(16, 1.0, 1e-5, True, lambda: 1000)
    images = DPMERFSynthesizer(image_shape=(4, 4))._design(shape, np.random.default_rng(0))
    assert images.mechanism.pairwise_share == 0.0


def test_dpmerf_pairwise_weight(frame):
    """'auto' weighs the pairwise loss by its number of pairs; a number is used as
    it is; the loss is the random features' plus the weight times the pairwise."""
    from skdpgen.synthesizers import feature_map_loss

    X, y = frame
    auto = DPMERFSynthesizer(schema=SCHEMA, classes=CLASSES, n_components=50, **FAST).fit(X, y)
    assert auto.pairwise_weight == "auto"  # the constructor's value stays
    assert auto.pairwise_weight_ == float(len(auto.pairwise_features_.pairs_)) > 1
    fixed = DPMERFSynthesizer(schema=SCHEMA, classes=CLASSES, n_components=50,
                              pairwise_weight=3.5, **FAST).fit(X, y)
    assert fixed.pairwise_weight_ == 3.5
    mech = fixed.mechanism_
    Z = torch.rand(16, fixed.encoder_.n_encoded_, dtype=torch.float32)
    labels = torch.arange(16) % len(CLASSES)
    parts = [feature_map_loss(mech._on_device[name], fmap, Z, labels, len(CLASSES))
             for name, fmap in (("mean embedding", mech.features_),
                                ("pairwise kernel", mech.pairwise_))]
    assert torch.isclose(mech.loss(Z, labels), parts[0] + 3.5 * parts[1])
    none = DPMERFSynthesizer(schema=SCHEMA, classes=CLASSES, n_components=50,
                             pairwise_share=0.0, **FAST).fit(X, y)
    assert none.pairwise_weight_ is None
    with pytest.raises(ValueError, match="pairwise_weight"):
        DPMERFSynthesizer(pairwise_weight=-1.0).fit(X, y)


def test_on_guess_raise_stops_after_the_schema_estimate(monkeypatch):
    """Issue 40: a refusal spends only the schema's share. A private estimate that
    guessed raises before any other release; its report lists the schema's
    releases only, composed to less than the budget. (The size rule, which
    refuses this table before the estimate, off: its own test is in
    tests/synthesizers/test_marginals.py.)"""
    from skdpgen.private_schema import SchemaPlan
    from skdpgen.schema import SchemaEstimateError

    monkeypatch.setattr(SchemaPlan, "rows_needed", lambda *args, **kwargs: 0)

    rng = np.random.default_rng(0)
    n = 120
    X = pd.DataFrame({"weight": rng.normal(3000, 800, n).round(),
                      "rain": np.where(rng.random(n) < 0.5, 0.0, rng.exponential(5, n))})
    y = rng.choice(["a", "b"], n)
    with reproducible_noise(0), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(SchemaEstimateError, match="had to guess") as caught:
            DPHPSynthesizer(on_guess="raise", **FAST).fit(X, y)
        names = {r.name for r in caught.value.report.releases}
        assert names and all(name.startswith("schema:") for name in names)
        assert caught.value.report.epsilon < 1.0
        assert caught.value.issues
        # the same noise, on_guess="fit": the fit goes on and lists its guesses
        fitted = DPHPSynthesizer(**FAST).fit(X, y)
    assert fitted.schema_issues_ and fitted.privacy_report_.epsilon == pytest.approx(1.0)


def test_dphp_default_is_hermite_and_its_parameters_change_the_model(same_noise):
    """Issue 52: DP-HP's default is Hermite features again; under the same noise,
    fits that differ only in order, or only in length scale, give different
    samples (a grid over them chooses among different models)."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(0, 1, 400).clip(-3, 3), "b": rng.exponential(1, 400)})
    schema = {"a": {"type": "numeric", "bounds": [-3, 3], "missing": False},
              "b": {"type": "numeric", "bounds": [0, 8], "missing": False}}

    def sample(**params):
        with same_noise(0):
            synth = DPHPSynthesizer(schema=schema, epochs=1, steps_per_epoch=5,
                                    random_state=0, device="cpu", **params).fit(X)
        return synth, synth.sample(50, random_state=0)[0].to_numpy()

    synth, base = sample()
    assert type(synth.features_) is HermiteFeatures
    assert synth.pairwise_features_.kernel == "pairwise"
    _, again = sample()
    np.testing.assert_array_equal(base, again)  # the same settings: the same model
    for params in ({"order": 5}, {"length_scale": 0.25}):
        _, other = sample(**params)
        assert not np.array_equal(base, other), params


def test_parameters_the_configuration_does_not_use_are_refused(frame):
    X, y = frame
    for params, name in [({"product_size": 4}, "product_size"),
                         ({"pair_shrinkage": True, "product_kernel": "random"}, "pair_shrinkage"),
                         ({"product_share": 0.0, "gamma": 2.0}, "gamma"),
                         ({"network": "conv", "network_widths": (8,)}, "network_widths")]:
        with pytest.raises(ValueError, match=name):
            DPHPSynthesizer(schema=SCHEMA, classes=CLASSES, **{**FAST, **params}).fit(X, y)
    with pytest.raises(ValueError, match="pairwise_order"):
        DPMERFSynthesizer(schema=SCHEMA, classes=CLASSES, pairwise_share=0.0,
                          pairwise_order=3, **FAST).fit(X, y)
    # at their defaults they pass silently, whatever the configuration
    DPHPSynthesizer(schema=SCHEMA, classes=CLASSES, product_kernel="random",
                    **FAST).fit(X, y)
