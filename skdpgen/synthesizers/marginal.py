"""MarginalSynthesizer: a table's one- and two-way marginals on public cells, fitted by a mixture."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import warnings
from numbers import Integral, Real

from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ..base import estimator_init
from ..privacy import outside_stacklevel
from ..registry import register
from ._base import BaseSynthesizer, fitted_part
from ._design import Design, GeneratorSpec
from .mechanisms._marginal_design import (IndependenceWarning, marginal_design,
                                          rounds_without_pairs, selection_share)
from .mechanisms.marginal import MarginalMechanism
from ._policy import POLICY
from ._shared import shared_constraints, shared_defaults, synthesizer_doc

__all__ = ["MarginalSynthesizer"]

#: the shared hyperparameters a mixture of one-hot columns uses (no network, no
#: latent input, no images, no calibration: the mechanism releases the one-way marginals)
_SHARED = ("epsilon", "delta", "schema", "bounds", "classes", "infer_schema", "schema_share",
           "on_guess", "label_share", "epochs", "steps_per_epoch", "random_state", "device",
           "verbose")


@register("marginals")
class MarginalSynthesizer(BaseSynthesizer):
    """Differentially private synthetic tables from their one- and two-way marginals.

    Every column is one-hot on public cells (its categories, the values of an
    integer column with few of them, equal-width bins of a numeric or date
    column's public bounds; a cell for missing values where the schema
    allows them). The table's marginals are released once with the Gaussian
    mechanism (:class:`~skdpgen.synthesizers.MarginalMechanism`): every
    column's histogram, over all rows and within each class, and, when the
    table has the rows for them (``pair_share``), every pair of columns'
    joint histogram, over all rows and within each class. A mixture of
    ``n_components`` product distributions per class
    (:class:`~skdpgen.synthesizers.MixtureGenerator`, a latent class model
    whose marginals are exact functions of its parameters) is fitted to the
    releases by maximum likelihood, starting from the one-way releases and
    stopping when it is as close to them as their noise allows, in all and
    marginal by marginal: each measured marginal's misfit is tested against
    its own noise (a chi-squared test), and while a pair fails, its two
    columns are joined in the mixture (one joint distribution per component:
    a product cannot hold several sharp relations, such as a column and its
    square, at once) and training goes on. ``unmatched_marginals_`` names
    any measured marginal still not reproduced. Numeric
    columns are sampled uniformly inside their bin (integer columns over
    the integers of their bin).

    These are indicator features, whose mean embeddings are the marginals:
    the same pipeline as :class:`~skdpgen.DPHPSynthesizer`'s with another
    kernel and generator.

    Read more in the :ref:`User Guide <marginal_synthesizer>`.

    Parameters
    ----------
    n_components : int, default=250
        Product distributions of each class's mixture (the mixture of a fit
        without labels has this many): the rows of class ``c`` are drawn from
        the uniform mixture of its components. 1: every column independent
        given the class.
    pair_share : float or "auto", default="auto"
        Share of the mechanism's budget for the two-way marginals (overall
        and by class, half each; the pair selection's included); the one-way
        marginals get the rest. ``0`` releases the one-way marginals only
        (every column drawn independently given the class). ``"auto"``: 0.9
        when every pair's cells can be measured with at most 1/64 of the
        rows of noise; else the pairs are chosen privately and the budget is
        split equally among all the marginals measured (``marginal_design``,
        from the number of rows and columns, ε and δ: public); the choice is
        ``pair_share_``. A given share keeps every pair where all are
        precise at it, else measures as many chosen pairs as are (at least
        one).
    bins : int or "auto", default="auto"
        Equal-width bins of a numeric or date column's public bounds (those
        not encoded as levels, see ``max_levels``). ``"auto"``: the most
        among 10, 20, ..., 100 such that a bin with an equal share of the
        rows holds at least 4 noise standard deviations of the one-way
        release (``marginal_design``); the choice
        is ``bins_``.
    max_levels : int or "auto", default="auto"
        Integer columns whose public bounds hold at most this many integers
        keep a cell for each value (a point mass such as "40 hours a week"
        stays one); wider ones are binned. A column's ``"levels"`` in the
        schema overrides it (see :class:`~skdpgen.schema.TableEncoder`).
        ``"auto"``: the number of bins ``bins="auto"`` chooses (a value
        holds a cell of its own only where a cell with an equal share of
        the rows holds at least 4 noise standard deviations).
    max_pairs : int or "auto", default="auto"
        The most pairs of columns whose two-way marginals are measured. When
        that is fewer than all pairs, the pairs are chosen privately: every
        pair's distance from independence under the released one-way
        marginals is released once (a tenth of the budget, from the pairs'
        share) and the pairs of the highest noisy scores are measured
        (MST's score, report-noisy-max on a Gaussian release). ``"auto"``:
        every pair when their cells' noise is at most 1/64 of the rows; else
        the most pairs such that every marginal measured meets that rule;
        else none (``marginal_design``). ``measured_pairs_`` names them.
    pair_cells : int, default=10
        Coarse cells of an ordered column (levels, bins) in the two-way
        marginals: its consecutive cells merged into this many groups
        (``pair_groups``); categorical columns keep
        their cells.
    learning_rate : float or "auto", default="auto"
        Adam's learning rate of the mixture's logits. ``"auto"``: 0.1.
    rounds : int, default=1
        How many rounds measure the pairs. Above 1, a share of the budget
        (0.3; ``round_selection="error"``: 0.15) is held back and spent,
        once the mixture has converged on the first releases, on measuring
        again the related pairs whose noise could spread their relation most
        (a column and its square), at less noise (:meth:`MarginalMechanism.next_round
        <skdpgen.synthesizers.MarginalMechanism.next_round>`); each round is
        a line of the privacy report. Where the first round measures no pair
        (``pair_share_ == 0``): an error, but with ``round_selection="error"``
        (0.3 held back; an error too where the rounds could not each
        measure a pair above their noise).
    round_selection : {"weak", "error"}, default="weak"
        What the later rounds (``rounds`` above 1) measure. ``"weak"``: the
        weakened pairs again, as above. ``"error"``: each round privately
        chooses the one marginal, a pair not measured or a triple of
        related columns with few enough cells for the round's noise, on
        which the model fitted so far is most wrong beyond the noise its
        measurement would carry (AIM's design, with a Gaussian
        report-noisy-max), measures it, and training goes on from there;
        the rounds stop early when no candidate is worth its noise
        (:meth:`MarginalMechanism.next_round
        <skdpgen.synthesizers.MarginalMechanism.next_round>`).
        ``round_marginals_`` names what they measured. An error with
        ``rounds=1``.
    {shared_parameters}

    Attributes
    ----------
    features_ : MarginalFeatures
        The one-way indicator features (every column's histogram).
    pairwise_features_ : MarginalFeatures or None
        The two-way indicator features (every pair's joint histogram on the
        coarse cells), None when the two-way marginals are not released.
    pair_share_ : float
        The two-way marginals' share of the mechanism's budget, the pair
        selection's included (0: none).
    measured_pairs_ : list of tuple
        The pairs of columns (their names) whose two-way marginals were
        released: every pair, the privately chosen ones (from the highest
        noisy score down), or none.
    marginal_misfit_ : list of dict
        Each measured marginal's misfit after the fit, tested against its own
        noise (:meth:`MarginalMechanism.misfit
        <skdpgen.synthesizers.MarginalMechanism.misfit>`): per release and
        marginal, ``columns``, ``chi2``, ``entries``, ``p`` and ``failed``.
    unmatched_marginals_ : list of tuple
        The measured marginals (tuples of column names) the fitted model does
        not reproduce within their noise (empty when it reproduces every
        one); the command line's summary names them.
    weakened_pairs_ : list of tuple
        Related measured pairs whose two-way releases are too noisy to keep
        them sharp (:meth:`MarginalMechanism.weakened_pairs
        <skdpgen.synthesizers.MarginalMechanism.weakened_pairs>`: the noise
        on their table is at least a quarter of its departure from
        independence): they come back weakened even when matched within
        their noise.
    unresolved_pairs_ : list of tuple
        Measured pairs whose releases show no relation, though their noise
        would hide a sharp one (a column and its square, as sharp as their
        margins allow: :meth:`MarginalMechanism.unresolved_pairs
        <skdpgen.synthesizers.MarginalMechanism.unresolved_pairs>`): a
        relation in them, if any, comes back weakened.
    round_marginals_ : list of tuple
        The marginals (tuples of column names) the later rounds of
        ``round_selection="error"`` measured, in order (empty otherwise).
    joined_columns_ : list of tuple
        The groups of columns the mixture holds jointly (one joint
        distribution per component): the columns of pairs it could not
        reproduce as products. Empty when none was needed.
    bins_ : int
        Bins of every binned column.
    max_levels_ : int
        The most integer values a column keeps as cells.
    {shared_attributes}

    See Also
    --------
    DPHPSynthesizer : Hermite features of numbers and a neural generator (DP-HP).
    skdpgen.synthesizers.MarginalMechanism : the releases and their sensitivity.

    Notes
    -----
    **Releases and sensitivities.** Each release is a mean embedding under
    indicator features (:class:`~skdpgen.kernels.MarginalFeatures`:
    non-negative, norm 1 on a one-hot row), over all rows or within each
    class, of replace-one sensitivity ``sqrt(2)/n`` (derived in
    :class:`~skdpgen.synthesizers.MarginalMechanism`); the class proportions
    likewise. The budget is split with
    :class:`skdpgen.privacy.GaussianAccountant` and the releases compose
    exactly; ``privacy_report_`` lists them. The mixture, its start and its
    stopping rule read only the releases (post-processing). The number of
    rows ``n`` and the schema are public; ``pair_share_``, ``bins_`` and
    ``max_levels_`` are functions of them and of ε, δ.

    On Adult's validation splits at ε = 1 (public schema, three seeds) it
    roughly halved the two-way marginal error of DP-HP's pairwise kernel with
    a neural generator (total variation 0.056 → 0.033), in less time; see
    the Benchmarks page for the panel of ten tables beside MST and AIM. It
    needs the rows for its pairs: on a wide table with few rows
    (``pair_share_ == 0``) every column is drawn independently given the
    class, and the fit warns so, naming the rows, ε or number of columns
    that would let the pairs be measured
    (``pairs_needed`` in ``skdpgen.synthesizers.mechanisms.marginal``).

    References
    ----------
    S. Aydore et al. "Differentially Private Query Release Through Adaptive
    Projection." ICML 2021 (a relaxed synthetic dataset fitted to noisy
    marginals).

    Examples
    --------
    >>> import numpy as np
    >>> from skdpgen import MarginalSynthesizer
    >>> X = np.random.default_rng(0).uniform(0, 1, size=(500, 3))
    >>> synth = MarginalSynthesizer(bounds=(0, 1), random_state=0).fit(X, epsilon=1.0)
    >>> synth.sample(4, random_state=0)[0].shape
    (4, 3)
    >>> type(synth.features_).__name__, round(synth.privacy_report_.epsilon, 3)
    ('MarginalFeatures', 1.0)
    """

    _parameter_constraints: dict = {
        **shared_constraints(_SHARED),
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "pair_share": [StrOptions({"auto"}), Interval(Real, 0, 1, closed="left")],
        "bins": [StrOptions({"auto"}), Interval(Integral, 1, None, closed="left")],
        "max_levels": [StrOptions({"auto"}), Interval(Integral, 0, None, closed="left")],
        "max_pairs": [StrOptions({"auto"}), Interval(Integral, 1, None, closed="left")],
        "pair_cells": [Interval(Integral, 2, None, closed="left")],
        "learning_rate": [StrOptions({"auto"}), Interval(Real, 0, None, closed="neither")],
        "rounds": [Interval(Integral, 1, None, closed="left")],
        "round_selection": [StrOptions({"weak", "error"})],
    }
    __init__ = estimator_init(n_components=250, pair_share="auto", bins="auto",
                              max_levels="auto", max_pairs="auto", pair_cells=POLICY.pair_cells,
                              learning_rate="auto", rounds=1, round_selection="weak",
                              **shared_defaults(_SHARED))
    _batch_name = "n_components"
    #: What progress bars and summaries call the estimator.
    display_name = "Marginal synthesizer"

    def _design(self, shape, rng):
        auto = self.pair_share == "auto"
        pair_share, n_pairs, bins = marginal_design(
            shape.n_rows, shape.n_columns, shape.epsilon, shape.delta,
            pair_share=self.pair_share,
            max_pairs=None if self.max_pairs == "auto" else self.max_pairs)
        pairs = shape.n_columns * (shape.n_columns - 1) // 2
        if self.max_pairs != "auto" and not auto and float(self.pair_share) == 0:
            raise ValueError("max_pairs has no effect with pair_share=0 (no pair is "
                             "measured); leave it at 'auto'.")
        without_pairs = self.rounds > 1 and pair_share == 0  # error rounds measure pairs
        if without_pairs:
            self._check_rounds_without_pairs(shape)
        elif auto and pair_share == 0 and shape.n_columns > 1:  # never silently independent
            warnings.warn(IndependenceWarning.of(shape.n_rows, shape.n_columns, shape.epsilon,
                                                 shape.delta), stacklevel=outside_stacklevel())
        if self.rounds == 1:
            self._refuse_unused({"round_selection": "rounds=1: no later round"})
        bins = bins if self.bins == "auto" else self.bins
        max_levels = bins if self.max_levels == "auto" else self.max_levels
        learning_rate = (POLICY.mixture_learning_rate if self.learning_rate == "auto"
                         else float(self.learning_rate))
        mechanism = self._part(
            MarginalMechanism, pair_share=pair_share, by_class=shape.labeled,
            n_pairs=n_pairs if 0 < n_pairs < pairs else None,
            selection_share=selection_share(self.pair_share),
            round_share=(POLICY.sparse_round_share if without_pairs
                         else POLICY.error_round_share if self.round_selection == "error"
                         else POLICY.round_share))
        # a latent coordinate to choose the component, one per group of columns
        # the fit may join (MixtureGenerator.join: at most one per two columns)
        generator = GeneratorSpec(kind="mixture", learning_rate=learning_rate,
                                  batch_size=self.n_components,
                                  noise_dim=1 + shape.n_columns // 2, per_class=True)
        return Design(mechanism, generator, encoding={"max_levels": max_levels, "bins": bins})

    def _check_rounds_without_pairs(self, shape):
        """Refuse ``rounds`` above 1 where the first round measures no pair, unless
        ``round_selection="error"`` rounds can each measure one (public: the shape
        and budget, :func:`rounds_without_pairs`)."""
        where = (f"({shape.n_rows:,} rows, {shape.n_columns} columns, epsilon = "
                 f"{shape.epsilon:g})")
        if self.round_selection != "error" or shape.n_columns < 2:
            raise ValueError(f"rounds={self.rounds} has no effect: no pair is measured "
                             f"{where}; leave it at 1"
                             + (" or set round_selection='error'." if shape.n_columns > 1
                                else "."))
        most = rounds_without_pairs(shape.n_rows, shape.epsilon, shape.delta, self.rounds,
                                    labeled=shape.labeled)
        if most < self.rounds - 1:
            raise ValueError(
                f"rounds={self.rounds}: no pair is measured in the first round {where}, and "
                f"{self.rounds - 1} later rounds could not each measure one above their "
                f"noise; at most rounds={most + 1}" + (" (or 1)." if most else "."))

    # the fitted attributes are the fitted mechanism's (read, not copied)
    features_ = fitted_part("features_")
    pairwise_features_ = fitted_part("pairwise_")
    pair_share_ = fitted_part("pair_share")
    measured_pairs_ = fitted_part("measured_pairs_", lambda m: m.pair_names())
    joined_columns_ = fitted_part("joined_", lambda m: list(getattr(m, "joined_", [])))
    round_marginals_ = fitted_part("round_log_", lambda m: [
        r["measured"] for r in getattr(m, "round_log_", []) if "measured" in r])

    @property
    def bins_(self):
        check_is_fitted(self)
        return self.design_.encoding["bins"]

    @property
    def max_levels_(self):
        check_is_fitted(self)
        return self.design_.encoding["max_levels"]

    # computed when read (post-processing of the fitted model and the releases): a fit
    # that is not asked does not pay for them
    @property
    def marginal_misfit_(self):
        check_is_fitted(self)
        return self.mechanism_.misfit(self.network_)

    @property
    def unmatched_marginals_(self):
        return sorted({m["columns"] for m in self.marginal_misfit_ if m["failed"]},
                      key=lambda c: (len(c), c))

    @property
    def weakened_pairs_(self):
        check_is_fitted(self)
        return self.mechanism_.weakened_pairs()

    @property
    def unresolved_pairs_(self):
        check_is_fitted(self)
        return self.mechanism_.unresolved_pairs()


MarginalSynthesizer.__doc__ = synthesizer_doc(MarginalSynthesizer.__doc__, names=_SHARED)
