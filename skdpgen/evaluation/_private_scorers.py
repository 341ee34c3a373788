"""Private scorers for ``GridSearchCV(scoring=...)``: scores from noisy releases.

Each scorer makes its releases through one
:class:`~skdpgen.privacy.GaussianAccountant` per
:class:`~skdpgen.privacy.PrivacyBudget` block, planned for the whole search
(:func:`skdpgen.model_selection.plan_search` sets how many folds and
candidates it scores, and its ε and δ) and charged to the budget before the
first noise is drawn. Outside a budget they refuse to run.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import copy
import math
from numbers import Integral

import numpy as np
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline

from ..kernels import RandomFourierFeatures
from ..privacy import GaussianAccountant, active_budget, calibrate_gaussian, check_epsilon_delta
from ..rows import ArrayRows, encode_labels, release_mean_embedding
from ..utils import check_generator

__all__ = ["private_accuracy_scorer", "private_neg_mmd2_scorer"]


def _split_pipeline(estimator, name):
    """``(steps before, the synthesizer)`` of a scored ``estimator``.

    A Pipeline's last step samples (a Pipeline ending in a Pipeline is
    unfolded); the steps before are listed in order, without the ones that
    do nothing (``"passthrough"``, None), so a one-step Pipeline has none.
    Anything else is the synthesizer itself.
    """
    before = []
    while isinstance(estimator, Pipeline):
        if not estimator.steps:
            raise TypeError(f"{name} scores a synthesizer or a Pipeline ending in one, "
                            "not an empty Pipeline.")
        before.extend(step for _, step in estimator.steps[:-1]
                      if step is not None and not (isinstance(step, str)
                                                   and step == "passthrough"))
        estimator = estimator.steps[-1][1]
    if not callable(getattr(estimator, "sample", None)):
        raise TypeError(
            f"{name} scores a synthesizer or a Pipeline ending in one; the estimator "
            f"scored ends in {type(estimator).__name__}, not a synthesizer (it has no sample).")
    return before, estimator


def _apply(before, X):
    """``X`` through the fitted ``before`` steps, in order (nothing for none)."""
    for step in before:
        X = step.transform(X)
    return X


class _PrivateScorer:
    """Shared plumbing: the plan, the budget's accountant, the sample."""

    _name = "private scorer"
    _release = "score"
    noise_std_is_bound = False

    def __init__(self, *, epsilon=None, delta=None, n_folds=None, n_candidates=None,
                 random_state=0):
        self.epsilon = epsilon
        self.delta = delta
        self.n_folds = n_folds
        self.n_candidates = n_candidates
        self.random_state = random_state

    # -- the plan ----------------------------------------------------------
    def n_releases(self, n_candidates, n_folds):  # pragma: no cover - per scorer
        """How many releases a search of ``n_candidates`` × ``n_folds`` makes."""
        raise NotImplementedError

    def planned(self, *, epsilon, delta, n_candidates, n_folds):
        """A copy planned for a search (set by :func:`~skdpgen.model_selection.plan_search`).

        Parameters
        ----------
        epsilon, delta : float
            What the scorer spends over the whole search, all its releases
            together.
        n_candidates, n_folds : int
            The search's candidates and cross-validation folds.

        Returns
        -------
        scorer : a copy of this scorer
        """
        out = copy.copy(self)
        out.epsilon, out.delta = epsilon, delta
        out.n_candidates, out.n_folds = int(n_candidates), int(n_folds)
        return out

    def _check_plan(self):
        for name in ("n_folds", "n_candidates"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
                raise ValueError(
                    f"{self._name} has no plan ({name}={value!r}): plan the search with "
                    "skdpgen.model_selection.plan_search, or pass n_folds and n_candidates.")
        if self.epsilon is None:
            raise ValueError(f"{self._name} needs epsilon (set by plan_search).")
        return check_epsilon_delta(self.epsilon, self.delta, allow_infinite=False)

    def _accountant(self):
        """The accountant of this scorer in the active budget (created, and
        charged for every planned release, at the first call)."""
        budget = active_budget()
        if budget is None:
            raise RuntimeError(
                f"{self._name} releases noisy statistics of the held-out rows and must run "
                "inside a skdpgen.privacy.PrivacyBudget block, in the same thread "
                "(GridSearchCV with n_jobs=1).")
        key = ("scorer", id(self))
        state = budget.cache.get(key)
        if state is None:
            state = budget.cache[key] = {"accountant": self.new_accountant(), "calls": 0,
                                         "folds": {}}
        return state

    def new_accountant(self):
        """The accountant of all the scorer's planned releases (charged to the
        active budget when created; :func:`~skdpgen.model_selection.plan_search`
        creates one inside ``skdpgen.privacy._budget.planning`` for its charge)."""
        epsilon, delta = self._check_plan()
        count = self.n_releases(self.n_candidates, self.n_folds)
        return GaussianAccountant(epsilon, delta, {self._release: (1.0, count)},
                                  label=self._name)

    def noise_multiplier(self):
        """σ of each of the scorer's planned releases (from its plan: ``epsilon``,
        ``delta``, ``n_folds``, ``n_candidates``); computed, nothing charged."""
        epsilon, delta = self._check_plan()
        count = self.n_releases(self.n_candidates, self.n_folds)
        return calibrate_gaussian(epsilon, delta) * math.sqrt(count)

    def noise_std(self, fold_size):  # pragma: no cover - per scorer
        """Standard deviation of the privacy noise in one score on a fold of
        ``fold_size`` rows (see each scorer)."""
        raise NotImplementedError

    def _sample(self, synthesizer, n):
        return synthesizer.sample(n, random_state=check_generator(self.random_state))

    def __repr__(self):
        params = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{self._name}({params})"


class _PrivateNegMMD2Scorer(_PrivateScorer):
    _name = "private_neg_mmd2_scorer"
    _release = "held-out embedding"
    noise_std_is_bound = True  # noise_std is an upper bound

    def __init__(self, *, length_scale=1.0, n_components=1000, n_samples=None, **kwargs):
        super().__init__(**kwargs)
        self.length_scale = length_scale
        self.n_components = n_components
        self.n_samples = n_samples

    def n_releases(self, n_candidates, n_folds):
        return n_folds  # one per fold, reused by every candidate

    def noise_std(self, fold_size):
        """At most this: with noise ``e`` of std ``s = σ·2/m`` on each of the ``D``
        coordinates of the fold's embedding, a score's noise is
        ``2⟨μ_syn − μ_fold, e⟩ − (‖e‖² − D s²)``, of variance
        ``4 s² ‖μ_syn − μ_fold‖² + 2 D s⁴ ≤ 16 s² + 2 D s⁴`` (the features'
        norms are at most 1). The second term is shared by every candidate
        scored on the fold and cancels in their differences."""
        dimension = RandomFourierFeatures(
            n_components=self.n_components, length_scale=self.length_scale,
            random_state=self.random_state).fit(np.zeros((1, 1))).n_features_out_
        s = self.noise_multiplier() * 2.0 / fold_size
        return math.sqrt(16.0 * s ** 2 + 2.0 * dimension * s ** 4)

    def _fold(self, state, Z, n_folds):
        """The noisy embedding of this call's fold: released at the fold's
        first call, reused after (fold ``k`` = call number modulo ``n_folds``:
        GridSearchCV scores candidate by candidate, each on every fold in
        order). Only public facts tell folds apart (their order, and their
        size as a check): no digest of the rows is kept."""
        slot = state["calls"] % n_folds
        state["calls"] += 1
        m = Z.shape[0]
        fold = state["folds"].get(slot)
        if fold is not None:
            if fold["size"] != m:
                raise RuntimeError(
                    f"{self._name} got {m} rows where fold {slot + 1} had {fold['size']}: "
                    "the folds were not scored in GridSearchCV's order (each candidate on "
                    "every fold in turn).")
            return fold
        if "features" not in state:  # one map for the search, drawn from public facts
            state["features"] = RandomFourierFeatures(
                n_components=self.n_components, length_scale=self.length_scale,
                random_state=self.random_state).fit(np.zeros((1, Z.shape[1])))
        accountant = state["accountant"]
        rows = ArrayRows(np.asarray(Z, dtype=np.float64))
        noisy, sensitivity = release_mean_embedding(rows, state["features"], accountant,
                                                    self._release)
        noisy = noisy[:, 0]
        noise_var = (accountant.noise_multipliers[self._release] * sensitivity) ** 2
        fold = {"size": m, "noisy": noisy, "bias": noise_var * noisy.size}
        state["folds"][slot] = fold
        return fold

    def __call__(self, estimator, X, y=None):
        before, synthesizer = _split_pipeline(estimator, self._name)
        state = self._accountant()
        X = _apply(before, X)
        # one public encoding for the whole search: the first candidate's (a
        # post-processing of its private fit), so that a fold reads the same
        encoder = state.setdefault("encoder", getattr(synthesizer, "encoder_", None))
        if encoder is None:
            raise AttributeError(f"{type(synthesizer).__name__} has no public encoding encoder_.")
        Z = _finite(encoder.transform(X))
        fold = self._fold(state, Z, self.n_folds)
        n = Z.shape[0] if self.n_samples is None else self.n_samples
        X_syn, _ = self._sample(synthesizer, n)
        synthetic = np.asarray(state["features"].transform(_finite(encoder.transform(X_syn))),
                               dtype=np.float64).mean(axis=0)
        # ‖μ_syn − μ̃‖² − E‖noise‖²: unbiased for ‖μ_syn − μ_fold‖²
        return _checked(-float(np.sum((synthetic - fold["noisy"]) ** 2) - fold["bias"]),
                        self._name)


def _checked(score, name):
    """``score``, or an error if it is not a finite number: a search never
    ranks a NaN (the message names no value)."""
    if not np.isfinite(score):
        raise RuntimeError(f"{name} computed a non-finite score; the candidate cannot be "
                           "ranked.")
    return score


def _finite(Z):
    """The public encoding as floats, any non-finite entry at 0 (a record's
    value never makes the score fail)."""
    Z = np.array(Z, dtype=np.float64)
    Z[~np.isfinite(Z)] = 0.0
    return Z


def private_neg_mmd2_scorer(*, length_scale=1.0, n_components=1000, n_samples=None,
                            epsilon=None, delta=None, n_folds=None, n_candidates=None,
                            random_state=0):
    """Private scorer: minus the squared MMD between a noisy held-out fold and a synthetic sample.

    For ``GridSearchCV(scoring=...)`` over synthesizers (or Pipelines ending
    in one) inside a :class:`~skdpgen.privacy.PrivacyBudget`; higher is
    better. On each validation fold it releases, once, the fold's mean
    embedding under a fixed random-Fourier-feature map of the Gaussian
    kernel (on the public encoding of the first candidate scored, after the
    Pipeline's earlier steps, which must not learn from the rows), with
    Gaussian noise; every candidate scored on that fold
    is compared with the same noisy embedding. A score is
    ``−(‖μ_synthetic − μ̃_fold‖² − E‖noise‖²)``: post-processing of the
    release and of the candidate's own (private) fit.

    Parameters
    ----------
    length_scale : float, default=1.0
        Length scale of the scoring kernel, on the encoding (numeric columns
        on [-1, 1] by their public bounds, categories one-hot). Fixed across
        candidates, so that their scores compare.
    n_components : int, default=1000
        Number of random Fourier features.
    n_samples : int, default=None
        Synthetic rows drawn per score; the fold's size by default.
    epsilon, delta : float, default=None
        What the scorer spends over the whole search, all its releases
        together; set by :func:`~skdpgen.model_selection.plan_search`.
    n_folds, n_candidates : int, default=None
        The search's folds and candidates; set by ``plan_search``.
    random_state : int, default=0
        Seeds the Fourier frequencies and the synthetic samples (public
        randomness: the same for every candidate).

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y=None) -> float``.

    See Also
    --------
    private_accuracy_scorer : Noisy held-out accuracy of a model trained on synthetic rows.
    neg_mmd2_scorer : The same distance without noise (a data-holder diagnostic).

    Notes
    -----
    **Sensitivity.** The fold's release is ``v = (1/m) Σ_i φ(z_i)`` over its
    ``m`` rows, where ``z_i`` is row ``i``'s public encoding and ``φ`` the
    Fourier map, whose norm is at most 1 for every input (the encoding's
    non-finite entries read as 0). The folds are fixed by row positions
    (``plan_search`` accepts only splitters that ignore the values), so
    replacing one record changes at most one row of one fold, and ``m`` is
    public: ``‖v − v'‖ = ‖φ(z) − φ(z')‖/m ≤ 2/m``. Gaussian noise of
    standard deviation ``σ · 2/m`` per coordinate makes it a Gaussian
    mechanism of noise multiplier ``σ``. The ``n_folds`` releases are
    composed with each other and with every fit of the search as if each
    read every record (no saving from disjoint folds is claimed). The
    ``E‖noise‖² = D (2σ/m)²`` subtracted is public.

    Folds are told apart by the order of the calls: ``GridSearchCV`` scores
    each candidate on fold 1, 2, …, ``n_folds`` in turn; a call whose fold
    size differs from its slot's raises instead of releasing again. Nothing
    computed from the rows but the noisy release is kept.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.model_selection import GridSearchCV, KFold
    >>> from skdpgen import DPMERFSynthesizer
    >>> from skdpgen.evaluation import private_neg_mmd2_scorer
    >>> from skdpgen.model_selection import plan_search
    >>> from skdpgen.privacy import PrivacyBudget
    >>> X = np.random.default_rng(0).uniform(0, 1, size=(300, 2))
    >>> search = GridSearchCV(
    ...     DPMERFSynthesizer(bounds=(0, 1), epochs=1, steps_per_epoch=5, n_components=50,
    ...                       random_state=0, device="cpu"),
    ...     {"learning_rate": [1e-3, 1e-2]}, cv=KFold(2),
    ...     scoring=private_neg_mmd2_scorer(length_scale=0.5))
    >>> with PrivacyBudget(epsilon=1.0, delta=1e-5) as budget:
    ...     plan = plan_search(search, X)
    ...     _ = search.fit(X)
    >>> report = budget.report()
    >>> bool(report.epsilon <= 1.0), report.is_private
    (True, True)
    """
    return _PrivateNegMMD2Scorer(length_scale=length_scale, n_components=n_components,
                                 n_samples=n_samples, epsilon=epsilon, delta=delta,
                                 n_folds=n_folds, n_candidates=n_candidates,
                                 random_state=random_state)


class _PrivateAccuracyScorer(_PrivateScorer):
    _name = "private_accuracy_scorer"
    _release = "held-out correct count"

    def __init__(self, *, model=None, n_samples=None, **kwargs):
        super().__init__(**kwargs)
        self.model = model
        self.n_samples = n_samples

    def n_releases(self, n_candidates, n_folds):
        return n_candidates * n_folds  # one per score: each model differs

    def noise_std(self, fold_size):
        """``σ/m``: the noise of the count (sensitivity 1) over the fold's size,
        independent between scores (before the score is clipped to [0, 1])."""
        return self.noise_multiplier() / fold_size

    def __call__(self, estimator, X, y=None):
        if y is None:
            raise ValueError(f"{self._name} needs the held-out labels y (fit the search "
                             "with them).")
        before, synthesizer = _split_pipeline(estimator, self._name)
        classes = getattr(synthesizer, "classes_", None)
        if classes is None:
            raise ValueError(f"{self._name} needs a synthesizer fitted with labels.")
        state = self._accountant()
        X = _apply(before, X)
        m = len(y)
        n = m if self.n_samples is None else self.n_samples
        X_syn, y_syn = self._sample(synthesizer, n)
        # labels as indices of the public class list; a held-out label outside
        # it (or missing) is never predicted: it counts as wrong
        truth = encode_labels(y, classes, unlisted=-1)
        codes = encode_labels(y_syn, classes, unlisted=-1)
        if len(np.unique(codes)) < 2:
            predicted = np.full(m, codes[0])
        else:
            # both tables through the synthesizer's public encoding: any held-out
            # value (text, NaN, ±inf) is read as in a fit, none makes it fail
            encoder = synthesizer.encoder_
            model = LogisticRegression(max_iter=1000) if self.model is None else clone(self.model)
            model.fit(_finite(encoder.transform(X_syn)), codes)
            predicted = np.asarray(model.predict(_finite(encoder.transform(X)))).astype(int)
        correct = float(np.sum(predicted == truth))
        noisy = state["accountant"].add_noise(self._release, [correct], sensitivity=1.0)[0]
        return _checked(float(min(1.0, max(0.0, noisy / m))), self._name)


def private_accuracy_scorer(*, model=None, n_samples=None, epsilon=None, delta=None,
                            n_folds=None, n_candidates=None, random_state=0):
    """Private scorer: noisy held-out accuracy of a classifier trained on synthetic rows.

    For ``GridSearchCV(scoring=...)`` over synthesizers fitted with labels
    (or Pipelines ending in one) inside a
    :class:`~skdpgen.privacy.PrivacyBudget`; higher is better. Each score
    draws synthetic rows and labels from the candidate, fits a clone of
    ``model`` on them (both tables in the synthesizer's public encoding:
    numeric columns on [-1, 1] by their bounds, categories one-hot), counts
    the held-out rows it
    classifies correctly, and releases that count with Gaussian noise: the
    score is the noisy count over the fold's size, clipped to [0, 1].

    Parameters
    ----------
    model : classifier, default=None
        Unfitted scikit-learn classifier; ``LogisticRegression(max_iter=1000)``
        by default.
    n_samples : int, default=None
        Synthetic training rows per score; the fold's size by default.
    epsilon, delta : float, default=None
        What the scorer spends over the whole search, all its releases
        together; set by :func:`~skdpgen.model_selection.plan_search`.
    n_folds, n_candidates : int, default=None
        The search's folds and candidates; set by ``plan_search``.
    random_state : int, default=0
        Seeds the synthetic samples (public randomness).

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y) -> float``.

    See Also
    --------
    private_neg_mmd2_scorer : One release per fold instead of one per score.
    synthetic_to_real_scorer : The same model without noise (a data-holder diagnostic).

    Notes
    -----
    **Sensitivity.** The model is fitted on synthetic rows only (post-processing
    of the candidate's private fit), so on a fixed fold it is a fixed
    function; replacing one held-out record changes whether that record is
    classified correctly and nothing else: the count moves by at most 1
    (``Δ = 1``), and the fold's size ``m`` is public (folds fixed by row
    positions). A held-out label outside the public class list counts as
    wrong whatever it is. Every score is a release (the model differs per
    candidate): ``n_candidates × n_folds`` releases, composed with the fits
    as if each read every record.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.model_selection import GridSearchCV, KFold
    >>> from skdpgen import DPMERFSynthesizer
    >>> from skdpgen.evaluation import private_accuracy_scorer
    >>> from skdpgen.model_selection import plan_search
    >>> from skdpgen.privacy import PrivacyBudget
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(0, 1, size=(300, 2))
    >>> y = (X[:, 0] > 0.5).astype(int)
    >>> search = GridSearchCV(
    ...     DPMERFSynthesizer(bounds=(0, 1), classes=[0, 1], epochs=1, steps_per_epoch=5,
    ...                       n_components=50, random_state=0, device="cpu"),
    ...     {"learning_rate": [1e-3, 1e-2]}, cv=KFold(2),
    ...     scoring=private_accuracy_scorer())
    >>> with PrivacyBudget(epsilon=1.0, delta=1e-5) as budget:
    ...     plan = plan_search(search, X, y)
    ...     _ = search.fit(X, y)
    >>> budget.report().n_releases > 4  # the fits' releases and 4 scores
    True
    """
    return _PrivateAccuracyScorer(model=model, n_samples=n_samples, epsilon=epsilon,
                                  delta=delta, n_folds=n_folds, n_candidates=n_candidates,
                                  random_state=random_state)

