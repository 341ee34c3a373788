"""Every tuned choice of the synthesizers' fit and sampling, in one frozen policy.

A synthesizer's releases are fixed by its hyperparameters and its budget;
how ``"auto"`` settings resolve, how large the public kernels and grids
grow, and how the calibration post-processes the releases are the fields of
one frozen ``SynthesisPolicy``. None of them reads a row: changing one changes
what a fit releases or how it uses the releases, never the privacy
guarantee (every release is still calibrated to its own sensitivity). Each
field states its rule in one line; why the value is what it is (the runs
that chose it) is told in ``benchmarks/JOURNAL.md``. A tuned number is
never read from a module constant: code reads ``POLICY.<field>``. This
table is generated from it:

{policy_table}
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

from dataclasses import dataclass

from .._policy import Policy, rule

__all__ = ["POLICY", "SynthesisPolicy"]


@dataclass(frozen=True)
class SynthesisPolicy(Policy):
    """The tuned choices of the synthesizers (budget shares, grids, kernels, calibration).

    Frozen: one instance, :data:`POLICY`, is read by every synthesizer and
    mechanism of :mod:`skdpgen.synthesizers`. The hyperparameters a user
    sets (and their defaults) are not here; a field is a choice the user
    cannot make, or the value an ``"auto"`` setting resolves to. "share" is
    a fraction of a budget, "rows" a number of rows.

    Examples
    --------
    >>> from skdpgen.synthesizers import POLICY
    >>> POLICY.pair_noise_ratio
    4.0
    >>> name, value, reason = POLICY.table()[0]
    >>> name, value
    ('marginal_share', 0.2)
    """

    # -- "auto" budget shares (skdpgen.synthesizers._kme, dphp, dpmerf) --------
    marginal_share: float = rule(
        0.2, "marginal_share='auto': the calibration's one-way histograms (0 with images)")
    marginal_pair_share: float = rule(
        0.9, "product_share='auto', marginal mechanism: its two-way marginals' share")
    kernel_product_share: float = rule(
        0.5, "product_share='auto', Hermite kernels: the pairwise or product kernel's share")
    pairwise_share: float = rule(
        0.5, "DP-MERF's pairwise_share='auto': the pairwise Hermite kernel's share")
    # -- training and sampling (skdpgen.synthesizers._kme, dphp) ---------------
    learning_rate: float = rule(
        1e-2, "learning_rate='auto': Adam's rate of an MLP or convolutional generator")
    hermite_learning_rate: float = rule(
        3e-3, "... with DP-HP's Hermite kernels and an MLP generator")
    mixture_learning_rate: float = rule(0.1, "... of a mixture generator")
    label_floor: float = rule(
        1e-3, "a noisy class proportion is raised to at least this before renormalizing")
    # -- the encoding (skdpgen.synthesizers.dphp, dpmerf) ----------------------
    length_scale_factor: float = rule(
        0.5, "DP-MERF's length_scale='auto': this multiple of the encoding's typical distance")
    pairwise_length_scale: float = rule(
        0.5, "length scale of DP-MERF's pairwise kernel's numeric columns (on [-1, 1])")
    # -- pairwise and product kernels (skdpgen.synthesizers.mechanisms._pairwise, dphp) ---
    max_pairwise_features: int = rule(
        2**17, "the pairwise kernel's features, at most (a public random subset of columns "
               "beyond)")
    pair_noise_ratio: float = rule(
        4.0, "a pair joins the pairwise kernel while its evenly spread mean is 1/this of "
             "the noise")
    max_product_features: int = rule(
        2**15, "a product-kernel draw's features, at most (wider columns are passed over)")
    patch_side_share: float = rule(
        0.18, "product_kernel='patch': a patch's side, this share of the image's shorter "
              "side (at least 3 pixels)")
    patch_filters: int = rule(32, "... its random filters (each a cosine and a sine)")
    patch_length_scale_factor: float = rule(
        0.5, "... its length scale, this multiple of two random patches' typical distance")
    # -- the marginal mechanism (skdpgen.synthesizers.mechanisms.marginal) --------------
    pair_cells: int = rule(
        10, "an ordered column's cells merged into this many groups in the two-way marginals")
    pair_precision: int = rule(
        64, "two-way marginals are released when a cell's noise is at most n over this")
    selection_share: float = rule(
        0.1, "when not every pair can be measured, the private choice of the pairs' share "
             "(taken from the two-way marginals')")
    bin_precision: int = rule(
        4, "a numeric column's bins: an equal share of the rows is this many noise stds")
    bin_range: tuple = rule(
        (10, 100), "the fewest and the most bins of a numeric column the design chooses")
    bin_step: int = rule(
        10, "... in steps of this (decimal bins: tenths of the range are unions of bins)")
    spread_share: float = rule(
        0.10, "a column whose empty cells' noise may hold this share of its values is named")
    misfit_level: float = rule(
        0.05, "a measured marginal is matched when its misfit's chi-squared tail is above "
              "this over the number of marginals (Bonferroni)")
    refine_rounds: int = rule(
        12, "while a measured marginal is not matched, training goes on (joining its "
            "columns) at most this many times ...")
    refine_steps: int = rule(
        25, "... testing every marginal again after this many steps")
    join_steps: int = rule(
        100, "... for this many steps after the last join (no longer without one)")
    plateau_steps: int = rule(
        100, "the loss has stopped falling when it fell by less than plateau over this "
             "many steps ...")
    plateau: float = rule(0.01, "... (a share of the loss)")
    joint_cells: int = rule(
        2000, "a joined group of columns holds at most this many cells per component")
    release_misfit_level: float = rule(
        2.0, "the summary names a kernel release the generator is farther from than this "
             "many times its noise's own misfit")
    weak_pair_noise: float = rule(
        0.25, "a related measured pair is named weakened when the noise on its table is "
              "this share of its departure from independence, or more (in norm)")
    related_share: float = rule(
        0.1, "... and departs from independence by this share of the rows or more (norm "
             "of its table's departure, less the noise's expectation)")
    round_share: float = rule(
        0.3, "rounds > 1: the marginal mechanism's share held for its later rounds, which "
             "measure again the pairs named weakened, as many as they bring below it "
             "(at least one; every measured pair when none is named)")
    error_round_share: float = rule(
        0.15, "round_selection='error': the marginal mechanism's share held for its later "
              "rounds (round_share), which measure where the model is most wrong ...")
    sparse_round_share: float = rule(
        0.3, "round_selection='error' where the design measures no pair: the later "
             "rounds' share (each measures one pair, on cells coarse enough for its noise; "
             "the one-way marginals get the rest) ...")
    round_selection_share: float = rule(
        0.2, "round_selection='error': the later rounds' selections' share of the rounds' "
             "budget (each a Gaussian report-noisy-max on the model's errors) ...")
    round_candidates: int = rule(
        16, "... among at most this many candidate marginals (pairs not measured, triples) "
            "...")
    round_noise_share: float = rule(
        0.25, "... each of cells few enough that their measurement's expected L1 noise is "
              "at most this share of the rows")
    strong_pair_tv: float = rule(
        0.1, "a pair not measured is named when its noisy score, less its mean at "
             "independence, puts its distance from independence (total variation) above "
             "this by two stds of the score there ...")
    strong_pair_level: float = rule(
        0.05, "... and departs from independence at this level over the number of "
              "candidate pairs (Bonferroni: the share of fits of independent columns "
              "that name one) ...")
    strong_pair_draws: int = rule(
        200, "... the scores at independence drawn this many times from the one-way "
             "release and its noise (their mean and spread)")
    # -- the output's check against the releases (_output_checks) -------------
    far_outside: float = rule(
        0.05, "a column is named far off when this share of its synthetic values lies "
              "outside the range its released histogram holds ...")
    far_ks: float = rule(
        0.25, "... or its cumulative shares are this far from the released ones ...")
    far_tv: float = rule(
        0.3, "... or its shares (a categorical column; the rows written as a created "
             "\"other\" counted on both sides) differ by this total variation, each "
             "beyond what the release's noise and the sample's explain ...")
    far_level: float = rule(
        0.05, "... at this level over the columns checked (Bonferroni) ...")
    far_rows: int = rule(
        20_000, "... in a sample of this many rows drawn with a public seed")
    # -- where a binned column's values stop (mechanisms._marginal_cells) -------
    edge_level: float = rule(
        0.05, "a bin holds rows when its released one-way share clears its noise at "
              "this level over the column's bins (Bonferroni); the outermost two are "
              "filled by their share of the next bin in (the same density), at most "
              "all of them")
    tail_run_stds: float = rule(
        1.0, "a run of places next to the range a release holds rows in joins it when "
             "its released sum clears this many standard deviations of its noise; the "
             "cells past the range (and one place of margin) hold no probability in a "
             "marginal fit")
    # -- the calibration (skdpgen.synthesizers._calibration) -------------------
    pool_rows: int = rule(
        20_000, "generated rows per class to fit the tilt, at most ...")
    min_pool_rows: int = rule(1_000, "... at least ...")
    pool_factor: int = rule(4, "... and this many per estimated row of the class")
    prior_weight: float = rule(
        0.1, "strength of the tilt's pull towards the generator, relative to the noise")
    max_tilt: float = rule(
        10.0, "largest absolute λ of a cell: its rows are reweighted by at most e^±this")
    min_cell_rows: int = rule(
        10, "cells with fewer generated rows in the pool are never weighted up")
    min_ess: float = rule(
        0.05, "least effective sample size of the tilted pool, as a share of the pool ...")
    tau_step: float = rule(4.0, "... τ is multiplied by this until the weights keep it ...")
    max_tau_steps: int = rule(12, "... at most this many times (then no tilt)")
    resample_factor: int = rule(
        20, "rows drawn per calibrated row when sampling (1/min_ess: mostly distinct rows)")
    map_knots: int = rule(
        1024, "knots of a numeric column's map: levels of the generated distribution ...")
    cell_knots: int = rule(64, "... and quantiles inside each cell")


#: The policy every synthesizer reads.
POLICY = SynthesisPolicy()

if __doc__ is not None:  # python -OO strips docstrings
    __doc__ = __doc__.replace("{policy_table}", POLICY.rst(widths=(60, 9)))
