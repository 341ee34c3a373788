"""A column's present rows, from the releases already made: written empty when
no value stands out of the noise, named as a guess when too few to estimate
its kind and range (:func:`check_present`; post-processing)."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math
import warnings

from ..privacy import outside_stacklevel
from .._canonical import FORMS, MISSING
from ._issues import SchemaEstimateWarning
from ._policy import POLICY
from ._releases import KINDS
from .kinds import kind_of

__all__ = ["check_present", "present_rows"]


def present_rows(plan, key, n, accountant):
    """The released estimate of column ``key``'s present rows, its noise
    standard deviation, and the count its releases need to estimate it.

    Post-processing: the values release's estimate ``n − m̃`` (recorded
    by the column's kind in the plan's ``present_``, with the count its range
    or selection needs) and, for a column whose kind was estimated, the
    kinds release's ``[numbers, bools, dates, text, missing, times]``
    counts (noise ``s_k`` each): ``n − m̃_k`` and the sum of the ``P = 5``
    present forms (noise ``√P s_k``), combined as ``(P (n − m̃_k) + Σ)/(P + 1)``
    (variance ``P/(P + 1) s_k²``, the least of their weighted means), then
    with the values release's estimate by inverse variance. The kind
    needs ``POLICY.type_stds · √2 · s_k`` present rows: the form that
    holds them then beats another form's noise (the difference's noise
    is ``√2 s_k``) at ``type_stds`` standard deviations, below which
    :func:`~skdpgen.schema.kinds._text.kind_from_forms` picks noise (a column
    of 23 numbers among 4,000 rows came out datetime, bool or
    categorical in 27 of 50 simulated releases at ``s_k = 49``).
    """
    estimate, std, needed = plan.present_.get(key, (float(n), 0.0, 0.0))
    kinds = plan.noisy_.get((key, "kinds"))
    if kinds is not None:
        s_k = accountant.noise_multipliers[KINDS] * math.sqrt(2.0)
        forms = [f for f in range(len(FORMS)) if f != MISSING]  # the present ones
        p = float(len(forms))
        from_kinds = (p * (n - float(kinds[MISSING])) + float(sum(kinds[forms]))) / (p + 1.0)
        var_k = p / (p + 1.0) * s_k ** 2
        if std > 0 and var_k > 0:  # (exact releases, epsilon = inf: the values release's)
            w, w_k = 1.0 / std ** 2, 1.0 / var_k
            estimate = (w * estimate + w_k * from_kinds) / (w + w_k)
            std = 1.0 / math.sqrt(w + w_k)
        needed = max(needed, POLICY.type_stds * math.sqrt(2.0) * s_k)
    return estimate, std, needed


def check_present(plan, key, spec, n, accountant):
    """``spec``, or its empty version, after the test of column ``key``'s
    present rows; a column too sparse to estimate is named as a guess.

    With ``p̃`` the released estimate of the column's present rows, ``s_p``
    its noise (:func:`present_rows`) and ``z`` the missing flag's
    threshold (``flag_stds``):

    * ``p̃ ≤ z·s_p`` while ``z·s_p ≤ POLICY.warn_share·n``: the column
      cannot be told from one missing in every row, and at most a
      twentieth of its rows (the share from which the summary names a
      clip or an "other") can have a value; it is written missing in
      every row (``"empty": true``: its values are encoded as missing,
      and decoded as missing whatever the model draws), as a
      column that no row fills always was. This rather than a guess: the
      releases cannot tell the two apart, so a guess would refuse every
      run with an empty column too, and with ``--allow-guesses`` write
      what the noise gave as its kind and range (a column of 23 values
      in 90-432 among 4,000 rows came back as 62 values in −79,072 to
      −28,120); written empty, its missing rate is off by its own few
      rows and no value is invented. It is not a weak spot (a column
      without values would be named as often: the same releases); the
      command line's summary says which columns were written empty.
    * ``p̃ <`` the count its releases need (the kind's, and the range's or
      selection's) while ``p̃ + POLICY.uncertain_stds·s_p`` is at most
      ``POLICY.warn_share·n``: values too few to place, and at most a
      twentieth of the rows under the noise; written empty too (a
      148,000-row table whose column held a few hundred values was refused
      for guessing that column's kind and range, which would have put
      made-up values in 0.2 % of its rows).
    * otherwise, ``p̃ <`` the count its releases need: the column may have
      values in more than a twentieth of its rows, too few to place them at
      this noise; named as a guess (problem ``"sparse"``), so the command
      line refuses the run and its template asks for the column's public
      bounds or categories. A column 30 % missing in a 4,000-row table is
      not named (its ``p̃`` is 2,800 against a need of about 300 rows at
      ε = 1).

    Post-processing of the released counts and of public numbers
    (``n``, the noise scales, the thresholds).
    """
    estimate, std, needed = present_rows(plan, key, n, accountant)
    if std <= 0:  # exact counts: nothing hides a value
        return spec
    most = min(max(estimate, 0.0) + POLICY.uncertain_stds * std, float(n)) / n
    if (estimate <= plan._flag_stds * std <= POLICY.warn_share * n
            or (estimate < needed and most <= POLICY.warn_share)):
        plan.empty_.append(key)
        plan.counts_.pop(key, None)  # its measured cells are no marginal of the output
        out = {k: v for k, v in spec.items() if k not in ("impute", "zero", "points")}
        return out | {"missing": True, "empty": True}
    if estimate < needed:
        plan._sparse.append(key)
        share = min(max(estimate, 0.0) / n, 1.0)
        _warn_sparse(key, kind_of(spec).written_as(spec), _spec_part(spec), share, most)
    return spec


def _spec_part(spec):
    """The part of a spec its schema template asks for: bounds or categories."""
    return "bounds" if kind_of(spec).is_bounded else "categories"


def _warn_sparse(key, written, fill, share, most):
    """:class:`SchemaEstimateWarning` (``"sparse"``, a guess) for a column whose
    released present rows are too few for its kind and range to be estimated
    (see :func:`check_present`). ``share``: the
    estimated present rows over ``n``, ``most`` that estimate plus
    ``POLICY.uncertain_stds`` of its noise; ``written``: what the estimate's
    (public) spec writes, in words; ``fill``: the part of the spec the
    template asks for."""
    warnings.warn(SchemaEstimateWarning(
        f"Column {key!r}: about {share:.0%} of its rows have a value (estimated from the "
        f"released counts; up to {most:.0%} under their noise), too few to estimate its kind "
        f"and range at this budget: written as {written} (a guess).", column=key,
        problem="sparse", share=share, fill=fill, written=written, most=most),
        stacklevel=outside_stacklevel())
