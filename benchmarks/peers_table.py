"""The peers table and figure from ``bench_peers.py``'s runs (for the README and the docs).

A script, not a test: it reads what ``bench_peers.py`` wrote (``--json``
files of DP-HP's runs; MST's and AIM's runs from ``peers_cache/``, public
domain: MST, AIM, AIM3) and prints, per ε, one row per table: 2-way and 3-way TV, utility,
fit time and peak memory, means over the seeds found (their number in the
last column). **Bold**: below every peer that finished::

    python benchmarks/peers_table.py ours_val.json                    # markdown
    python benchmarks/peers_table.py ours_val.json --rst              # the docs' csv-table
    python benchmarks/peers_table.py ours_val.json --figure tv3.png   # 3-way TV vs fit time
    python benchmarks/peers_table.py test_ours.json --split test
"""

import argparse
import collections
import json
import os
import sys
from pathlib import Path

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench_peers import CACHE, figure  # noqa: E402
from _panel_data import TABLES  # noqa: E402

OURS = ("DP-HP", "DP-HP-est")
PEERS = ("MST", "AIM", "AIM3")


def collect(paths, split):
    """{(table, epsilon, method): [run, ...]}: ours from ``paths``, the peers'
    i.i.d. rows (and "MST*", "AIM*" as shipped) from the cache."""
    runs = collections.defaultdict(list)
    for path in paths:
        for r in json.loads(Path(path).read_text()):
            if r.get("split", "validation") == split:
                runs[r["table"], r["epsilon"], r["method"]].append(r)
    for path in sorted(CACHE.glob(f"*_{split}_*_public.json")):
        entry = json.loads(path.read_text())
        key = entry["table"], entry["epsilon"]
        for name, scores in (entry.get("rows") or {}).items():
            runs[(*key, name)].append({**scores, "fit_s": entry["fit_s"],
                                       "peak_mib": entry.get("peak_mib")})
        if not entry.get("rows") and entry["note"].startswith("past"):
            runs[(*key, entry["method"] + " past")].append(entry)
    return runs


def mean(runs, key, table, eps, method):
    v = [r[key] for r in runs.get((table, eps, method), [])
         if r.get(key) is not None and np.isfinite(r[key])]
    return float(np.mean(v)) if v else None


def cell(runs, key, table, eps, method, digits=3):
    value = mean(runs, key, table, eps, method)
    if value is None:
        return "cap" if runs.get((table, eps, method + " past")) else "–"
    return f"{value:.{digits}f}"


def rows(runs, eps):
    """The table's rows at one ε, and the counts of wins against each peer."""
    wins = collections.Counter()
    out = []
    for t in TABLES:
        if not runs.get((t, eps, "DP-HP")):
            continue
        tv = []
        for key in ("tv2", "tv3"):
            parts = []
            for m in OURS:
                ours = mean(runs, key, t, eps, m)
                peers = [mean(runs, key, t, eps, p) for p in PEERS]
                peers = [p for p in peers if p is not None]
                for p, name in zip([mean(runs, key, t, eps, q) for q in PEERS], PEERS):
                    if ours is not None and p is not None:
                        wins[m, key, name, "runs"] += 1
                        wins[m, key, name, "below"] += ours < p
                bold = ours is not None and peers and all(ours < p for p in peers)
                text = cell(runs, key, t, eps, m)
                parts.append(f"**{text}**" if bold else text)
            parts += [cell(runs, key, t, eps, p) for p in PEERS]
            tv.append(" / ".join(parts))
        utility = " / ".join(cell(runs, "utility", t, eps, m) for m in (*OURS, *PEERS))
        real = cell(runs, "utility", t, eps, "real")
        fit = " / ".join(cell(runs, "fit_s", t, eps, m, 1) for m in ("DP-HP", *PEERS))
        peak = " / ".join(cell(runs, "peak_mib", t, eps, m, 0) for m in ("DP-HP", *PEERS))
        seeds = "/".join(str(len([r for r in runs.get((t, eps, m), []) if "tv2" in r]))
                         for m in (*OURS, *PEERS))
        out.append([t, tv[0], tv[1], f"{utility} ({real})", fit, peak, seeds])
    return out, wins


HEADER = ["table", "2-way TV: DP-HP / DP-HP-est / MST / AIM / AIM3",
          "3-way TV: DP-HP / DP-HP-est / MST / AIM / AIM3",
          "utility: DP-HP / DP-HP-est / MST / AIM / AIM3 (real)",
          "fit s: DP-HP / MST / AIM / AIM3", "peak MiB: DP-HP / MST / AIM / AIM3", "seeds"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("ours", nargs="+", help="bench_peers.py --json files")
    parser.add_argument("--split", choices=["validation", "test"], default="validation")
    parser.add_argument("--rst", action="store_true", help="csv-tables for the docs")
    parser.add_argument("--figure", metavar="PATH", help="3-way TV against fit time (png)")
    parser.add_argument("--figure-epsilon", type=float, default=1.0)
    args = parser.parse_args(argv)
    runs = collect(args.ours, args.split)
    for eps in sorted({k[1] for k in runs}, reverse=True):
        table, wins = rows(runs, eps)
        if not table:
            continue
        if args.rst:
            print(f"\n.. csv-table:: ε = {eps:g} ({args.split} split)\n   :header-rows: 1\n")
            for line in [HEADER] + table:
                print("   " + ", ".join('"' + c.replace('"', '""') + '"' for c in line))
        else:
            print(f"\n**ε = {eps:g}** ({args.split} split)\n")
            print("| " + " | ".join(HEADER) + " |")
            print("|" + "---|" * len(HEADER))
            for line in table:
                print("| " + " | ".join(line) + " |")
        print()
        for (m, key, peer, what), n in sorted(wins.items()):
            if what == "below":
                print(f"  eps {eps:g}: {m} {key} below {peer} on {n} of "
                      f"{wins[m, key, peer, 'runs']} tables")
    if args.figure:
        points = [{"table": t, "epsilon": e, "method": m, "split": args.split,
                   "fit_s": mean(runs, "fit_s", t, e, m), "tv3": mean(runs, "tv3", t, e, m)}
                  for (t, e, m) in runs if m in ("DP-HP", "DP-HP-est", *PEERS)]
        figure(args.figure, [p for p in points if p["fit_s"] is not None],
               args.figure_epsilon)


if __name__ == "__main__":
    main()
