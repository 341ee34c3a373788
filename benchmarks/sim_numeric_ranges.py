"""Private numeric bounds on simulated long-tailed and spread-out columns.

Not part of the package, and not a test: it prints a table. One simulated
table of ten numeric columns and a binary target per draw (the nine shapes
below, the last a control whose bounds were fine, and a 0/1 filler), ``n`` rows, the schema estimated privately exactly
as :meth:`DPHPSynthesizer.fit` does with no schema and ``schema_share="auto"``
(the plan's auto share of a fit of budget ``epsilon``, the rest of the budget
planned as one release of the fit), with the noise drawn under
:func:`skdpgen.privacy.reproducible_noise` (seeded, so rerunnable). Per
shape and ``n``, over the draws:

* ``cov``: share of the real rows inside the estimated bounds (mean, min);
* ``<.8``: draws whose bounds hold under 80 % of the rows;
* ``ext``: how far the bounds reach beyond ``[q1 − w/2, q99 + w/2]`` (q1,
  q99 the real 1 % and 99 % quantiles, ``w = q99 − q1``), in units of
  ``w`` (the largest over the draws; 0 inside it); ``>.5``: draws beyond
  half of ``w``;
* ``silent``: draws with ``cov < 0.75`` and no warning on the column;
* ``refuse``: draws whose issue on the column makes the command line refuse
  (a guess, or ≥ 25 % estimated outside).

Usage::

    PYTHONPATH=. python benchmarks/sim_numeric_ranges.py [--draws 10]
        [--n 1000,1600,3000,5000] [--epsilon 1] [--shapes a,b]
"""

import argparse
import warnings

import numpy as np
import pandas as pd

from skdpgen.privacy import GaussianAccountant, reproducible_noise
from skdpgen.schema._issues import is_guess
from skdpgen.schema._plan import SchemaPlan
from skdpgen.rows import table_rows


def _shapes(rng, n):
    """The simulated columns, ``name -> values``."""
    nb_mean, nb_r = 150.0, 0.4
    zeros = rng.random(n) < 0.6
    return {
        "price": np.round(np.exp(rng.normal(np.log(0.02), 1.0, n)), 4),
        "pareto": np.round(10.0 * (1.0 + rng.pareto(1.5, n)), 2),
        "count": rng.negative_binomial(nb_r, nb_r / (nb_r + nb_mean), n),
        "zinfl": np.where(zeros, 0, np.round(np.exp(rng.normal(3.0, 1.2, n)))),
        "id": rng.integers(1, 100_001, n),
        "age": np.clip(np.round(rng.triangular(7, 30, 60, n)), 7, 60).astype(int),
        "income": np.round(np.exp(rng.normal(np.log(2.5), 0.75, n)), 4),
        "signed": np.round(rng.normal(0.0, 30.0, n), 2),
        "year": rng.integers(1995, 2011, n),
    }


SHAPES = tuple(_shapes(np.random.default_rng(0), 4))


def _table(rng, n):
    cols = _shapes(rng, n)
    cols["flag"] = rng.integers(0, 2, n)
    y = np.where(rng.random(n) < 0.3, "yes", "no")
    return pd.DataFrame(cols), y


def estimate(X, y, epsilon=1.0, delta=1e-5, seed=0):
    """The schema and the issues of a fit's private estimate (``schema_share="auto"``)."""
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


def measure(values, bounds):
    """(coverage, extension beyond the window in units of w) of ``bounds``."""
    x = np.asarray(values, float)
    lo, hi = bounds
    cov = float(np.mean((x >= lo) & (x <= hi)))
    q1, q99 = np.quantile(x, [0.01, 0.99])
    w = max(q99 - q1, 1e-12)
    ext = max(0.0, (q1 - w / 2) - lo, hi - (q99 + w / 2)) / w
    return cov, ext


def run(ns, draws, epsilon, shapes):
    rows = []
    for n in ns:
        stats = {k: [] for k in shapes}
        for d in range(draws):
            rng = np.random.default_rng(1000 * n + d)
            X, y = _table(rng, n)
            schema, issues = estimate(X, y, epsilon, seed=d)
            by_col = {i["column"]: i for i in issues}
            for k in shapes:
                cov, ext = measure(X[k], schema[k]["bounds"])
                issue = by_col.get(k)
                stats[k].append((cov, ext, issue is not None,
                                 issue is not None and is_guess(issue)))
        for k in shapes:
            a = np.array(stats[k], float)
            cov, ext, warned, refuse = a.T
            rows.append((k, n, cov.mean(), cov.min(), int(np.sum(cov < 0.8)), ext.max(),
                         int(np.sum(ext > 0.5)), int(np.sum((cov < 0.75) & (warned == 0))),
                         int(refuse.sum())))
    return rows


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--draws", type=int, default=10)
    p.add_argument("--n", default="1000,1600,3000,5000")
    p.add_argument("--epsilon", type=float, default=1.0)
    p.add_argument("--shapes", default=",".join(SHAPES))
    args = p.parse_args(argv)
    ns = [int(float(v)) for v in args.n.split(",")]
    shapes = args.shapes.split(",")
    rows = run(ns, args.draws, args.epsilon, shapes)
    print(f"epsilon={args.epsilon}, draws={args.draws}, 10 columns + target, "
          "schema_share='auto'")
    print("| shape | n | cov mean | cov min | <.8 | ext max | >.5 | silent | refuse |")
    print("|---|---|---|---|---|---|---|---|---|")
    for k, n, cm, cmin, low, ext, far, silent, refuse in sorted(rows, key=lambda r: (
            shapes.index(r[0]), r[1])):
        print(f"| {k} | {n} | {cm:.2f} | {cmin:.2f} | {low} | {ext:.2f} | {far} | {silent} "
              f"| {refuse} |")
    total = np.array([r[4:] for r in rows], float).sum(axis=0)
    print(f"totals: <.8 {int(total[0])}, ext>.5 {int(total[2])}, silent {int(total[3])}, "
          f"refuse {int(total[4])} (of {len(rows) * args.draws} column estimates)")


if __name__ == "__main__":
    main()
