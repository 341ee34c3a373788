"""The marginal mechanism's design: what it measures, from the table's public shape."""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math
import sys

from ...privacy import calibrate_gaussian
from .._policy import POLICY

__all__ = ["IndependenceWarning", "independence_note", "marginal_design", "pairs_needed",
           "round_cell_limit", "rounds_without_pairs", "selection_share"]


def selection_share(pair_share="auto"):
    """The pair selection's share of the budget, when the pairs are chosen.

    ``POLICY.selection_share``, at most half of the pairs' share
    (``pair_share``, or ``POLICY.marginal_pair_share`` for ``"auto"``): the
    one value that both :func:`marginal_design` plans with and the
    mechanism releases with.

    Examples
    --------
    >>> from skdpgen.synthesizers.mechanisms._marginal_design import selection_share
    >>> selection_share(), selection_share(0.1)
    (0.1, 0.05)
    """
    full = POLICY.marginal_pair_share if isinstance(pair_share, str) else float(pair_share)
    return min(POLICY.selection_share, full / 2)


def marginal_design(n_rows, n_columns, epsilon, delta, *, pair_share="auto", max_pairs=None,
                    bins=POLICY.bin_range):
    """What the marginal mechanism releases, from the table's public shape.

    Each choice from the noise a release would carry (its standard
    deviation, in rows, at the Gaussian noise multiplier of the whole
    budget ``σ = calibrate_gaussian(ε, δ)``; the fit's other releases are
    ignored here, so the levels are slightly optimistic). ``M`` marginals
    released together at share ``s`` (half over all rows, half by class)
    put ``σ/√(s/2)·√(2M)`` rows of noise on each cell; a release is
    *precise* when that is at most ``n_rows / POLICY.pair_precision``.

    * **Every pair** of the ``d`` columns (``P = d(d-1)/2``) is measured
      when the ``P`` two-way marginals are precise at ``pair_share``
      (``"auto"``: ``POLICY.marginal_pair_share``).
    * Otherwise, **a private selection** (:class:`MarginalMechanism`:
      ``POLICY.selection_share`` of the budget) of ``k`` pairs: with
      ``"auto"`` the most such that all ``d + k`` marginals are precise with
      the rest of the budget split among them equally (the two-way share
      ``selection + (1 − selection)·k/(d + k)``, the one-way marginals the
      rest), none when not even one pair fits; with a given ``pair_share``,
      the most (at least one) that are precise at ``pair_share`` less the
      selection's. ``max_pairs`` caps ``k`` (and sets it with ``"auto"``).
    * **bins** of a numeric or date column: the most, among multiples of
      ``POLICY.bin_step`` within ``POLICY.bin_range`` (10, 20, ..., 100: every tenth of
      the public range is a union of bins, so a round value on round bounds
      stays on a bin edge), such that a bin holding ``1/bins`` of the rows
      holds at least ``POLICY.bin_precision`` noise standard deviations of the
      overall one-way release; the fewest where none does.

    A function of public quantities only (``n_rows``, the number of
    columns, ε, δ and the parameters).

    Parameters
    ----------
    n_rows, n_columns : int
    epsilon, delta : float
        The fit's budget.
    pair_share : float or "auto", default="auto"
        The two-way releases' share (the selection's included).
    max_pairs : int, default=None
        The most pairs measured.
    bins : tuple of int, default=POLICY.bin_range
        The fewest and most bins (multiples of ``POLICY.bin_step``).

    Returns
    -------
    pair_share : float
        The two-way releases' share, the selection's included (0: none).
    n_pairs : int
        ``P`` (every pair), fewer (chosen privately) or 0.
    bins : int

    Examples
    --------
    >>> from skdpgen.synthesizers.mechanisms._marginal_design import marginal_design
    >>> marginal_design(30_000, 14, 1.0, 1e-5)  # every pair
    (0.9, 91, 80)
    >>> share, k, bins = marginal_design(20_000, 15, 0.1, 1e-5)  # 8 of 105 chosen
    >>> round(share, 3), k, bins
    (0.413, 8, 10)
    >>> marginal_design(2_800, 69, 1.0, 1e-5)  # none: every column independent
    (0.0, 0, 10)
    """
    fewest, most = bins
    sigma = calibrate_gaussian(epsilon, delta) if math.isfinite(epsilon) else 0.0
    d = max(int(n_columns), 1)
    pairs = d * (d - 1) // 2
    auto = isinstance(pair_share, str)
    full = POLICY.marginal_pair_share if auto else float(pair_share)
    cap = pairs if max_pairs is None else min(int(max_pairs), pairs)
    selection = selection_share(pair_share)
    if pairs == 0 or full <= 0:
        share, k = 0.0, 0
    elif cap == pairs and _precise(n_rows, pairs, full, sigma):
        share, k = full, pairs
    elif auto:  # every marginal precise, the budget split among them equally
        k = cap if max_pairs is not None else min(
            _most_precise(n_rows, 1 - selection, sigma) - d, pairs - 1)
        k = max(k, 0)
        share = full if k == pairs else (selection + (1 - selection) * k / (d + k) if k else 0.0)
    else:  # the user's share: as many pairs as are precise in it (at least one)
        k = min(max(_most_precise(n_rows, full - selection, sigma), 1), cap)
        share = full  # (k == pairs: a single pair, measured without a selection)
    one_way = sigma / math.sqrt((1.0 - share) / 2) * math.sqrt(2 * d)
    if one_way == 0:  # no noise (a fit that is not private)
        return share, k, int(most)
    best = n_rows // (POLICY.bin_precision * one_way) // POLICY.bin_step * POLICY.bin_step
    return share, k, int(min(max(best, fewest), most))


def _most_precise(n_rows, share, sigma):
    """The most marginals that, released together at ``share`` (half overall,
    half by class), carry at most ``n_rows / POLICY.pair_precision`` rows of noise
    a cell (``σ/√(share/2)·√(2M)`` rows for ``M`` marginals)."""
    if sigma == 0:
        return sys.maxsize
    if share <= 0:
        return 0
    return int(0.5 * (n_rows * math.sqrt(share / 2) / (POLICY.pair_precision * sigma)) ** 2)


def _precise(n_rows, n_marginals, share, sigma):
    """Whether ``n_marginals`` marginals at ``share`` are precise (:func:`_most_precise`)."""
    return n_marginals <= _most_precise(n_rows, share, sigma)


def pairs_needed(n_rows, n_columns, epsilon, delta, *, pair_share="auto"):
    """What would let the two-way marginals measure at least one pair.

    Inverts :func:`marginal_design` (at least one pair measured) for each
    of its public inputs in turn.

    Parameters
    ----------
    n_rows, n_columns : int
    epsilon, delta : float
    pair_share : float or "auto", default="auto"

    Returns
    -------
    needed : dict
        ``rows``: the fewest rows at this ε; ``epsilon``: the least ε at
        these rows (None above 100); ``columns``: 2 when two columns (one
        pair, no selection) would do at these rows and ε, else None.

    A table of one column (or a ``pair_share`` of 0) has no pair to
    measure: every entry is None.

    Examples
    --------
    >>> from skdpgen.synthesizers.mechanisms._marginal_design import pairs_needed
    >>> needed = pairs_needed(300, 27, 1.0, 1e-5)
    >>> needed["rows"] > 300, needed["epsilon"] > 1.0
    (True, True)
    """
    def measured(n, d, eps):
        return marginal_design(n, d, eps, delta, pair_share=pair_share)[1] > 0

    if n_columns < 2 or (isinstance(pair_share, (int, float)) and pair_share <= 0):
        return {"rows": None, "epsilon": None, "columns": None}  # no pair to measure
    low, high = 1, max(int(n_rows), 1)
    while not measured(high, n_columns, epsilon):
        low, high = high, high * 2
    while high - low > 1:  # bisection on the rows
        mid = (low + high) // 2
        low, high = (low, mid) if measured(mid, n_columns, epsilon) else (mid, high)
    rows = high
    now = measured(n_rows, n_columns, epsilon)
    columns = 2 if n_columns > 2 and not now and measured(n_rows, 2, epsilon) else None
    low, high = (1e-6 if now else epsilon), 100.0
    if not measured(n_rows, n_columns, high):
        return {"rows": rows, "epsilon": None, "columns": columns}
    for _ in range(40):  # bisection on ε: σ(ε) decreases
        mid = math.sqrt(low * high)
        low, high = (low, mid) if measured(n_rows, n_columns, mid) else (mid, high)
    return {"rows": rows, "epsilon": high, "columns": columns}


def round_cell_limit(n_rows, unit):
    """The most coarse cells of a marginal a later round measures.

    A marginal of ``c`` cells measured with ``unit`` rows of noise a cell
    carries about ``√(2/π)·unit·c`` rows of noise in L1 (the mean absolute
    value of a normal draw); at most ``POLICY.round_noise_share`` of the
    rows. Public: the rows and the round's noise.

    Examples
    --------
    >>> from skdpgen.synthesizers.mechanisms._marginal_design import round_cell_limit
    >>> round(round_cell_limit(2_000, 25.0), 1)
    25.1
    """
    return POLICY.round_noise_share * n_rows / (math.sqrt(2 / math.pi) * max(unit, 1e-12))


def rounds_without_pairs(n_rows, epsilon, delta, rounds, *, labeled):
    """The most later rounds that could each measure a pair where none is measured.

    With ``round_selection="error"`` on a table whose design measures no
    pair (:func:`marginal_design`), the later rounds hold
    ``POLICY.sparse_round_share`` of the budget, ``POLICY.round_selection_share``
    of it for their selections and the rest for their measurements (half
    over all rows, half by class when ``labeled``), spent in equal parts. A
    round measures a pair of at least 4 coarse cells (two binary columns,
    or ordered ones merged into two groups): the rounds are worth holding
    back only if such a pair fits the round's noise (:func:`round_cell_limit`,
    at the noise multiplier of the whole budget, the fit's other releases
    ignored: slightly optimistic). A function of public quantities only.

    Returns
    -------
    most : int
        Between 0 and ``rounds - 1``.

    Examples
    --------
    >>> from skdpgen.synthesizers.mechanisms._marginal_design import rounds_without_pairs
    >>> rounds_without_pairs(1_500, 1.0, 1e-5, 6, labeled=False)
    5
    >>> rounds_without_pairs(340, 1.0, 1e-5, 6, labeled=True)
    3
    """
    if not math.isfinite(epsilon):
        return rounds - 1
    sigma = calibrate_gaussian(epsilon, delta)
    measure = POLICY.sparse_round_share * (1 - POLICY.round_selection_share)
    measure /= 2 if labeled else 1
    for later in range(rounds - 1, 0, -1):
        unit = sigma * math.sqrt(2.0) / math.sqrt(measure / later)
        if round_cell_limit(n_rows, unit) >= 4:
            return later
    return 0


def independence_note(n_rows, n_columns, epsilon, delta, interface="python"):
    """The warning of a fit whose columns are drawn independently (no pair released).

    From public quantities only: the rows, columns, ε and δ that would let
    the pairs be released (:func:`pairs_needed`).

    Parameters
    ----------
    n_rows, n_columns : int
        The table's public shape.
    epsilon, delta : float
        The fit's budget.
    interface : {"python", "cli"}, default="python"
        Whose options the remedies name: Python's (``pair_share``) or the
        command line's, which has no flag for the pairs' share.

    Returns
    -------
    text : str
    """
    needed = pairs_needed(n_rows, n_columns, epsilon, delta)
    ways = [f"about {needed['rows']:,} rows"]
    if needed["epsilon"] is not None:
        ways.append(f"epsilon >= {needed['epsilon']:.2g}" if interface == "python"
                    else f"--epsilon {needed['epsilon']:.2g} or more")
    if needed["columns"] is not None:
        ways.append(f"only {needed['columns']} columns")
    ways = ", ".join(ways)
    if interface == "python":
        ways += ", or pair_share set explicitly (pairs measured at that noise)"
    return (f"Every column is drawn independently of the others (given the class): at "
            f"{n_rows:,} rows, {n_columns} columns and epsilon = {epsilon:g} no pair of "
            "columns can be measured above its noise, so no two-way marginal is released. "
            f"What would change it: {ways}.")


class IndependenceWarning(UserWarning):
    """A fit whose columns are drawn independently: :func:`independence_note`,
    worded for Python (``str``) or the command line (:meth:`explain`).

    ``shape``: the public ``(n_rows, n_columns, epsilon, delta)`` of the fit.
    """

    shape = None

    @classmethod
    def of(cls, n_rows, n_columns, epsilon, delta):
        """The warning of a fit of this public shape and budget."""
        warning = cls(independence_note(n_rows, n_columns, epsilon, delta))
        warning.shape = (n_rows, n_columns, epsilon, delta)
        return warning

    def explain(self, interface="python"):
        """The text of the warning, its remedies in the words of ``interface``
        (``"python"`` or ``"cli"``)."""
        if self.shape is None:
            return str(self)
        return independence_note(*self.shape, interface=interface)
