"""Which columns of a fitted synthesizer's output lie far from what its releases say.

Post-processing only: a sample drawn from the fitted model with a public
seed, compared with released one-way distributions and their public noise
levels: the schema estimate's histogram of each estimated numeric column
(on the public grid of :func:`~skdpgen.private_schema.numeric_grid`, whose
bins follow the values across decades), the released counts of each
estimated categorical column, and the marginal mechanism's one-way
marginals. Never a private row.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import math

import numpy as np
import pandas as pd
from scipy.stats import norm

from ..private_schema import numeric_bins
from .mechanisms._marginal_cells import held_bins
from .mechanisms._marginal_checks import ONE_WAY
from ._policy import POLICY

__all__ = ["output_issues"]


def output_issues(model, n_samples=None, random_state=0):
    """The columns of a fitted synthesizer's output far from its releases.

    A sample of ``n_samples`` rows (``POLICY.far_rows`` by default) is drawn
    with the public seed ``random_state`` and each column is compared with
    every release of its one-way distribution:

    * an estimated numeric column with the schema estimate's histogram of
      its values, on the public grid's bins within its bounds (ten a
      decade: they follow a long tail): the share of its synthetic values
      in bins outside the released range (the first to the last bin whose
      count clears its noise, widened to the bins the fit's own one-way
      release holds rows in) beyond the share the release leaves there
      (``"outside"``), and the largest distance between the two cumulative
      distributions (``"ks"``);
    * an estimated categorical column with the released counts of its kept
      values (``"tv"``: total variation); where the values the estimate did
      not keep come back as a created ``"other"``, a value the data never
      holds, their rows count in full on both sides (``"other"``: the
      share those counts leave to them, a distance from the data no fit
      avoids, plus the kept values' error);
    * every column of a marginal fit with the mechanism's one-way release,
      on the pairs' coarse cells (``"ks"`` for a numeric or date column,
      ``"tv"`` for the others).

    A column is named when a measure exceeds its limit (``POLICY.far_outside``,
    ``POLICY.far_ks``, ``POLICY.far_tv``) and what the release's noise (and
    the sample's) can explain at ``POLICY.far_level`` over the columns
    checked; once, by its largest excess.

    Parameters
    ----------
    model : BaseSynthesizer
        Fitted.
    n_samples : int, default=None
    random_state : int, default=0
        Public: the result is a function of the releases.

    Returns
    -------
    issues : list of dict
        ``column``, ``problem`` (``"far"``), ``measure``, ``share`` (the
        measure's value), ``release`` and ``detail``, the largest first.
    """
    n = POLICY.far_rows if n_samples is None else int(n_samples)
    out = model.sample(n, random_state=random_state)
    X = out[0] if isinstance(out, tuple) else out
    encoder = model.encoder_
    frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(
        np.asarray(X, dtype=object), columns=encoder.columns_)
    level = POLICY.far_level / max(len(encoder.columns_), 1)
    found = {}
    for issue in [*_grid_issues(model, frame, level), *_count_issues(model, frame, level),
                  *_block_issues(model, frame, level)]:
        kept = found.get(issue["column"])
        if kept is None or issue["excess"] > kept["excess"]:
            found[issue["column"]] = issue
    return sorted(found.values(), key=lambda i: -i["excess"])


_LIMITS = {"outside": "far_outside", "ks": "far_ks", "tv": "far_tv", "other": "far_tv"}
_WORDS = {
    "outside": "{share:.0%} of its synthetic values lie outside the range the {release} "
               "holds",
    "ks": "its synthetic values' distribution is {share:.2f} from the {release} (largest "
          "gap between the cumulative shares)",
    "tv": "its synthetic values' shares differ from the {release} by {share:.2f} (total "
          "variation)",
    "other": "its synthetic values' shares differ from the {release} by {share:.2f} "
             "(total variation), as {rest:.0%} of its values are rarer than the estimate "
             "could keep: they are written as \"other\"",
}


def _issue(column, measure, value, margin, release, **words):
    """The issue of a measure beyond its limit and its noise's ``margin``, or None."""
    limit = getattr(POLICY, _LIMITS[measure])
    if not (value > limit and value > margin):
        return None
    return {"column": column, "problem": "far", "measure": measure, "share": float(value),
            "excess": float(value - limit), "release": release,
            "detail": _WORDS[measure].format(share=value, release=release, **words)}


def _sample_ks(n, level):
    """The largest gap between ``n`` sampled values' cumulative shares and their
    distribution's that chance exceeds w.p. ``level`` (DKW)."""
    return math.sqrt(math.log(2.0 / level) / (2.0 * n))


def _held_ranges(model, keys):
    """Per binned numeric column of ``keys``, the values between the outermost
    bins the fit's own one-way release holds rows in
    (:meth:`~skdpgen.synthesizers.Mechanism.cell_fills`: each clears its
    noise), on the column's scale; none for a mechanism that releases no
    one-way marginal."""
    fills = model.mechanism_.cell_fills(model.encoder_)
    out = {}
    for codec in model.encoder_.codecs_:
        if codec.key in fills and codec.key in keys:
            lo, _, hi, _ = fills[codec.key]
            low, high = (float(b) for b in codec.spec["bounds"])
            units = codec.unwarp(np.array([lo, hi + 1], dtype=np.float64) / codec.bins)
            out[codec.key] = low + units * (high - low)
    return out


def _grid_issues(model, frame, level):
    """``"outside"`` and ``"ks"`` of the estimated numeric columns, on the public grid."""
    held = _held_ranges(model, model._schema_releases["histograms"])
    for key, (counts, std) in model._schema_releases["histograms"].items():
        spec = model.schema_.get(key) or {}
        if spec.get("empty") or "bounds" not in spec or key not in frame:
            continue
        values = pd.to_numeric(frame[key], errors="coerce").to_numpy(dtype=np.float64)
        values = values[np.isfinite(values)]
        first, last = numeric_bins(np.asarray(spec["bounds"], dtype=np.float64))
        h = counts[first:last + 1]
        m, total = h.size, float(h.sum())
        # nothing to compare with where the release holds no mass beyond its noise
        if not values.size or total <= norm.isf(level) * std * math.sqrt(m):
            continue
        q = np.bincount(np.clip(numeric_bins(values), first, last) - first,
                        minlength=m) / values.size
        gap = np.abs(np.cumsum(q) - np.cumsum(h) / total).max()
        # the release's cumulative noise: a random walk of m steps (its largest
        # excursion exceeds x·std·√m w.p. at most 4(1 − Φ(x))), and the sample's
        margin = (norm.isf(level / 4) * std * math.sqrt(m) / total
                  + _sample_ks(values.size, level))
        release = "released histogram of its values"
        # the bins the fit's own release holds rows in are inside the range too
        inside = None if key not in held else np.clip(numeric_bins(held[key]), first,
                                                       last) - first
        for issue in (_issue(key, "ks", gap, margin, release),
                      _outside(key, q, h, std, level, total, values.size, inside)):
            if issue is not None:
                yield issue


def _outside(key, q, h, std, level, total, n_sample, inside=None):
    """``"outside"``: the synthetic share in the bins beyond the released range (the
    first to the last bin clearing ``z·std``, ``z`` at ``level`` over the bins,
    widened to the bins ``inside``, ``[first, last]``, that another release
    holds rows in), less the released share there and its noise."""
    found = held_bins(h, std, level)
    if found is None:
        return None
    out = np.ones(h.size, dtype=bool)
    out[found[0]:found[1] + 1] = False
    if inside is not None:
        out[inside[0]:inside[1] + 1] = False
    if not out.any():
        return None
    released = max(float(h[out].sum()), 0.0) / total
    share = float(q[out].sum()) - released
    margin = (norm.isf(level) * std * math.sqrt(out.sum()) / total
              + norm.isf(level) * math.sqrt(max(share, 1e-12) / n_sample))
    return _issue(key, "outside", share, margin, "released histogram of its values")


def _count_issues(model, frame, level):
    """``"tv"`` of the estimated categorical columns, against their released counts."""
    counts = model._schema_releases["counts"]
    if not counts:
        return
    blocks = _blocks(model, frame)
    n = float(model._schema_releases["n_rows"])
    for key, (cells, noisy, std) in counts.items():
        if key not in blocks:
            continue
        q = blocks[key]
        cells = np.asarray(cells, dtype=np.intp)
        p = np.asarray(noisy, dtype=np.float64) / n
        rest_q, rest_p = 1.0 - q[cells].sum(), 1.0 - p.sum()
        k = len(cells)
        kept = np.abs(q[cells] - p).sum()
        sigma = np.r_[np.full(k, std / n), std / n * math.sqrt(max(k, 1))]
        margin = _tv_margin(sigma, level) + _sample_tv(k + 1, len(frame), level)
        release = "released counts of its values"
        if _created_other(model.schema_.get(key) or {}):
            # the rows of the values the estimate did not keep are written as "other",
            # which the data never holds: the released share left to them and the
            # synthetic share of "other" are each a distance no fit avoids
            tv = 0.5 * (kept + max(rest_p, 0.0) + rest_q)
            issue = _issue(key, "other", tv, margin, release, rest=max(rest_p, 0.0))
        elif k:
            issue = _issue(key, "tv", 0.5 * (kept + abs(rest_q - rest_p)), margin, release)
        else:
            issue = None
        if issue is not None:
            yield issue


def _created_other(spec):
    """Whether a categorical spec's ``"other"`` is a label of its own (``"other"``,
    ``"__other__"``, ...; below every category for numbers), which stands for the
    values the estimate did not keep, not a kept value they fold into."""
    other = spec.get("other")
    if other is None:
        return False
    if isinstance(other, str):
        return other.strip("_") == "other"
    rest = [c for c in spec.get("categories", ()) if c != other]
    return all(isinstance(c, (int, float)) and other < c for c in rest)


def _tv_margin(sigma, level):
    """The total variation that Gaussian noise of stds ``sigma`` on the cells gives
    w.p. ``1 − level``: ``½Σ|e|`` (its mean ``σ√(2/π)`` a cell, and its spread)."""
    sigma = np.asarray(sigma, dtype=np.float64)
    mean = math.sqrt(2.0 / math.pi) * sigma.sum()
    spread = math.sqrt((1.0 - 2.0 / math.pi) * float((sigma ** 2).sum()))
    return 0.5 * (mean + norm.isf(level) * spread)


def _sample_tv(cells, n, level):
    """The total variation of ``n`` sampled rows on ``cells`` cells from their
    distribution, w.p. ``1 − level`` (at most ``½√(cells/n)`` in mean)."""
    return 0.5 * math.sqrt(cells / n) + math.sqrt(math.log(1.0 / level) / (2.0 * n))


def _blocks(model, frame):
    """Each one-hot block's synthetic shares (its column key -> shares), the
    indicators' as ``(key, "missing")``."""
    encoder = model.encoder_
    encoded = encoder.transform(frame)[:, encoder.n_numeric_:]
    offsets = np.concatenate([[0], np.cumsum(encoder.category_sizes_)]).astype(np.intp)
    n_blocks = len(encoder.category_sizes_) - len(encoder.indicator_columns_)
    out = {}
    for b, key in enumerate(encoder.block_columns_):
        name = key if b < n_blocks else (key, "missing")
        out[name] = encoded[:, offsets[b]:offsets[b + 1]].mean(axis=0)
    return out


def _block_issues(model, frame, level):
    """``"ks"`` or ``"tv"`` of every block of a marginal fit, on the pairs' coarse
    cells, against the mechanism's overall one-way release."""
    mech = model.mechanism_
    targets = getattr(mech, "targets_", {})
    if ONE_WAY not in targets or not hasattr(mech, "_cell_std"):
        return
    encoder = model.encoder_
    released = mech.features_.cells(targets[ONE_WAY][0][0])
    shares = _blocks(model, frame)
    groups = encoder.coarse_cells(mech.pair_cells)
    order = encoder.cell_order()
    n_blocks = len(encoder.category_sizes_) - len(encoder.indicator_columns_)
    for b, key in enumerate(encoder.block_columns_):
        q = shares[key if b < n_blocks else (key, "missing")]
        p, g = np.asarray(released[b], dtype=np.float64), groups[b]
        if b >= n_blocks:  # an indicator: its column's missing share
            key = encoder.block_columns_[b]
        if g is not None:
            sizes = np.bincount(g)
            q, p = np.bincount(g, weights=q), np.bincount(g, weights=p)
        else:
            sizes = np.ones(p.size)
        release = "one-way marginal released by the fit"
        if order[b] is not None and b < n_blocks:  # ordered: the cumulative shares
            gap = np.abs(np.cumsum(q) - np.cumsum(p)).max()
            margin = (norm.isf(level / 4) * mech._cell_std * math.sqrt(sizes.sum())
                      + _sample_ks(len(frame), level))
            issue = _issue(key, "ks", gap, margin, release)
        else:
            tv = 0.5 * np.abs(q - p).sum()
            margin = (_tv_margin(mech._cell_std * np.sqrt(sizes), level)
                      + _sample_tv(p.size, len(frame), level))
            issue = _issue(key, "tv", tv, margin, release)
        if issue is not None:
            yield issue
