"""Every threshold of the private schema estimate, in one frozen policy.

The estimate's releases (:mod:`skdpgen.schema._plan`) fix what is read and
its noise; everything after them is post-processing of noisy vectors and of
public numbers, and its choices are the fields of :class:`EstimationPolicy`.
Each field states its rule in one line; why the value is what it is (the
runs that chose it) is told in ``benchmarks/JOURNAL.md``. A threshold is
never read from a module constant: code reads ``POLICY.<field>``.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

from dataclasses import dataclass

from .._policy import Policy, rule

__all__ = ["POLICY", "EstimationPolicy"]


@dataclass(frozen=True)
class EstimationPolicy(Policy):
    """The thresholds of the private schema estimate's post-processing.

    Frozen: one instance, :data:`POLICY`, is read by every rule of the
    estimate (ranges, flags, kinds, the summary of weak spots, the budget
    share of ``schema_share="auto"``). None of them reads a row; changing
    one changes what the estimate concludes from the same releases, never
    the privacy guarantee. "stds" are noise standard deviations of the
    quantity tested; "rate" a probability under the noise alone; "share" a
    fraction of the public row count ``n``.

    Examples
    --------
    >>> from skdpgen.schema._policy import POLICY
    >>> POLICY.flag_stds
    4.0
    >>> name, value, reason = POLICY.table()[0]
    >>> name, value
    ('quantile', 0.005)
    """

    # -- numeric ranges (skdpgen.schema._ranges) -------------------------------
    quantile: float = rule(0.005, "mass cut at each end of a range's occupied bins")
    false_bin_rate: float = rule(
        1e-4, "family-wise rate, per grid level, of an empty bin or group taken as occupied")
    grow_stds: float = rule(
        2.0, "a bin next to the occupied ones joins them above this (hysteresis)")
    bridge_stds: float = rule(
        3.0, "a bin one empty bin away from the occupied ones joins them above this")
    group_stds: float = rule(
        4.0, "the rest of an end group, or the next group, joins a range above this")
    decade_stds: float = rule(
        3.0, "a decade's count unaccounted for by the range's bins stretches it above this")
    fine_margin: float = rule(
        0.5, "a range cut on the fine grid is widened by this share of its width at each end")
    fine_shrink: float = rule(
        0.25, "... and replaces the coarse range only when at most this share of its width")
    # -- following the mass outside a range (skdpgen.schema._mass) -------------
    follow_stds: float = rule(
        2.0, "a range follows the rows estimated outside it above this ...")
    follow_share: float = rule(0.05, "... and above this share of the present rows")
    far_group_rate: float = rule(
        0.01, "family-wise rate of a far group (nothing in between) drawing a range")
    trim_stds: float = rule(
        1.0, "a group joined away from zero ends where the rest of its count is under this")
    follow_groups: int = rule(2, "whole groups towards zero a run next to a range may hold")
    tail_share: float = rule(
        0.02, "a tail decade is trimmed where the rows beyond are under this share")
    # -- cells that follow the released mass (skdpgen.schema._cells) ----------
    cell_knots: int = rule(
        128, "an estimated numeric column's \"quantiles\": its values at this many equal "
             "steps of its released mass")
    cell_stds: float = rule(
        2.0, "a part of the released mass locates what its count holds beyond this; the "
             "rest of its parent's is spread evenly")
    even_cells: int = rule(
        10, "cells follow the mass where one of this many equal-width cells would hold ...")
    even_share: float = rule(
        0.4, "... more than this share of the released mass (else they stay equal-width)")
    cell_uniform: float = rule(
        0.25, "the share of an even spread over the bounds blended into the released mass "
             "(cells at most 1/(1 − this) times narrower, 1/this times wider than even ones)")
    # -- flags and kinds (skdpgen.schema._flags, _text, the kinds) ------------
    integer_fraction: float = rule(
        0.01, "a column is integer when its non-integer values are under this share")
    flag_stds: float = rule(4.0, "least threshold of the missing and integer flags")
    false_flag_rate: float = rule(
        1e-4, "family-wise rate of a wrong flag over a table's estimated columns")
    type_share: float = rule(
        0.98, "a column is numeric (bool, datetime) when this share of its present values "
              "are numbers (bools, dates)")
    type_stds: float = rule(4.0, "the text-type tests of a column's form counts")
    other_stds: float = rule(
        3.0, "a categorical column gets an 'other' value above this many stds of rows "
             "outside its kept values")
    missing_stds: float = rule(
        3.0, "a categorical column may be missing when its missing count exceeds this")
    zero_share: float = rule(
        0.05, "exact zeros holding this share at an end of the bounds get \"zero\": true")
    point_share: float = rule(
        0.01, "a value standing out of its fine sub-bin's neighbours by this share of n "
              "is one of the column's \"points\"")
    max_points: int = rule(16, "the most \"points\" an estimated numeric column gets")
    point_neighbours: int = rule(
        8, "sub-bins on each side of a candidate point whose mean is its background")
    # -- the summary of weak spots (skdpgen.schema._issues) --------------------
    guess_share: float = rule(
        0.25, "rows clipped or sent to 'other' from which an estimate is a guess")
    class_guess_share: float = rule(
        0.05, "labels that may have gone to another class from which the list is a guess")
    warn_share: float = rule(
        0.05, "rows clipped or sent to 'other' above which a column is named ...")
    warn_stds: float = rule(3.0, "... when the estimate also exceeds this")
    warn_large_share: float = rule(
        0.1, "a larger share named at a lower significance ...")
    warn_large_stds: float = rule(2.0, "... this one")
    fold_stds: float = rule(
        2.0, "rare values folded into a kept value (no 'other') are named from warn_share "
             "of the rows when their estimate also exceeds this")
    uncertain_stds: float = rule(
        2.0, "a column whose estimate plus this reaches guess_share is named uncertain")
    clip_stds: float = rule(
        2.0, "a clip estimated above this is named uncertain when the estimate plus "
             "uncertain_stds reaches warn_share")
    unlocated_bins: int = rule(
        2, "a range of at most this many bins, none located on the fine grid, is named "
           "(\"spread\") from warn_share of the rows in them")
    missing_hidden_share: float = rule(
        0.02, "missing values of this share are kept; a column whose noise could hide "
              "them is named")
    unsure_lines: int = rule(
        3, "more columns than this named for the same noise share one line of the summary")
    # -- the budget of schema_share="auto" (skdpgen.schema._shares) ------------
    class_share: float = rule(
        0.25, "an estimated class list's share of the schema budget (with columns)")
    bin_noise_rows: float = rule(
        40.0, "auto: a numeric bin's noise at most n over this many rows")
    class_noise_share: float = rule(
        0.05, "auto: a class selection's threshold plus two stds at most this share of n")
    value_share: float = rule(
        0.02, "auto: a categorical value of this share of n clears its selection's "
              "threshold by two stds")
    column_share: float = rule(0.075, "auto: least share of a fit's budget for the columns")
    max_column_share: float = rule(0.3, "auto: largest share for the columns")
    max_class_share: float = rule(0.2, "auto: largest share for an estimated class list")


#: The policy every rule of the estimate reads.
POLICY = EstimationPolicy()
