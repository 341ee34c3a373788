"""The peers table and figure from ``bench_peers.py``'s runs (for the README and the docs).

A script, not a test: it reads what ``bench_peers.py`` wrote (``--json``
files of our runs: ``--methods``, by default Marginal, DP-HP, DP-MERF; MST's
and AIM's runs from ``peers_cache/``, public domain: MST, AIM, AIM3) and
prints, per ε, one row per table: 2-way and 3-way TV, utility,
fit time and peak memory, means over the seeds found (their number in the
last column). **Bold**: below every peer that finished::

    python benchmarks/peers_table.py ours_val.json                    # markdown
    python benchmarks/peers_table.py ours_val.json --rst              # the docs' csv-table
    python benchmarks/peers_table.py ours_val.json --rst --per-metric # one table per metric
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

OURS = ("Marginal", "DP-HP", "DP-MERF")  # the default --ours
PEERS = ("MST", "AIM", "AIM3")


#: The peers' cache files and row names of each ``--peer-domain``.
DOMAINS = {"public": ("public", PEERS),
           "estimated-rho": ("estrho", ("MST-est-rho", "AIM-est-rho")),
           "estimated": ("est", ("MST-est", "AIM-est"))}


def collect(paths, split, suffix="public"):
    """{(table, epsilon, method): [run, ...]}: ours from ``paths``, the peers'
    i.i.d. rows (and "MST*", "AIM*" as shipped) from the cache (the files of
    the peer domain ``suffix``)."""
    runs = collections.defaultdict(list)
    seen = set()  # the reference rows ("real", "indep.") once per seed, whatever the files
    for path in paths:
        for r in json.loads(Path(path).read_text()):
            peer = r["method"].rstrip("*") in {p for _, names in DOMAINS.values()
                                               for p in names}  # from the cache below
            key = r["table"], r["epsilon"], r["method"]
            if r["method"] in ("real", "indep."):
                if (*key, r["seed"]) in seen:
                    continue
                seen.add((*key, r["seed"]))
            if r.get("split", "validation") == split and not peer:
                runs[key].append(r)
    for path in sorted(CACHE.glob(f"*_{split}_*_{suffix}.json")):
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


def rows(runs, eps, ours=OURS):
    """The table's rows at one ε, and the counts of wins against each peer."""
    wins = collections.Counter()
    out = []
    for t in TABLES:
        if not any(runs.get((t, eps, m)) for m in ours):
            continue
        tv = []
        for key in ("tv2", "tv3"):
            parts = []
            for m in ours:
                mine = mean(runs, key, t, eps, m)
                peers = {name: mean(runs, key, t, eps, name) for name in PEERS}
                peers = {name: p for name, p in peers.items() if p is not None}
                for name, p in peers.items():
                    if mine is not None:
                        wins[m, key, name, "runs"] += 1
                        wins[m, key, name, "below"] += mine < p
                bold = mine is not None and peers and all(mine < p for p in peers.values())
                text = cell(runs, key, t, eps, m)
                parts.append(f"**{text}**" if bold else text)
            parts += [cell(runs, key, t, eps, p) for p in PEERS]
            tv.append(" / ".join(parts))
        utility = " / ".join(cell(runs, "utility", t, eps, m) for m in (*ours, *PEERS))
        real = cell(runs, "utility", t, eps, "real")
        fit = " / ".join(cell(runs, "fit_s", t, eps, m, 1) for m in (*ours, *PEERS))
        peak = " / ".join(cell(runs, "peak_mib", t, eps, m, 0) for m in (*ours, *PEERS))
        seeds = "/".join(str(len([r for r in runs.get((t, eps, m), []) if "tv2" in r]))
                         for m in (*ours, *PEERS))
        out.append([t, tv[0], tv[1], f"{utility} ({real})", fit, peak, seeds])
    return out, wins


METRICS = (("tv2", "2-way TV", 3), ("tv3", "3-way TV", 3), ("utility", "utility", 3),
           ("fit_s", "fit s", 1), ("peak_mib", "peak MiB", 0))


def metric_tables(runs, eps, ours=OURS):
    """One table per metric at one ε: ``[(title, header, rows)]``, a column per
    method (bold as in :func:`rows`: below every peer that finished), utility
    with the real data's, and the seeds found."""
    methods = (*ours, *PEERS)
    tables = [t for t in TABLES if any(runs.get((t, eps, m)) for m in ours)]
    out = []
    for key, title, digits in METRICS:
        body = []
        for t in tables:
            line = [t]
            for m in methods:
                text = cell(runs, key, t, eps, m, digits)
                mine = mean(runs, key, t, eps, m)
                peers = [p for p in (mean(runs, key, t, eps, n) for n in PEERS) if p is not None]
                bold = key in ("tv2", "tv3") and m in ours and mine is not None and peers and all(
                    mine < p for p in peers)
                line.append(f"**{text}**" if bold else text)
            if key == "utility":
                line.append(cell(runs, key, t, eps, "real"))
            line.append("/".join(str(len([r for r in runs.get((t, eps, m), []) if "tv2" in r]))
                                 for m in methods))
            body.append(line)
        head = ["table", *methods] + (["real"] if key == "utility" else []) + ["seeds"]
        out.append((title, head, body))
    return out


def header(ours):
    names = " / ".join((*ours, *PEERS))
    return ["table", f"2-way TV: {names}", f"3-way TV: {names}", f"utility: {names} (real)",
            f"fit s: {names}", f"peak MiB: {names}", "seeds"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("ours", nargs="+", help="bench_peers.py --json files")
    parser.add_argument("--split", choices=["validation", "test"], default="validation")
    parser.add_argument("--methods", default=",".join(OURS),
                        help=f"our methods' columns, in order (default {','.join(OURS)})")
    parser.add_argument("--rst", action="store_true", help="csv-tables for the docs")
    parser.add_argument("--per-metric", action="store_true",
                        help="one table per metric (a column per method) instead of one "
                             "table with every metric in a cell")
    parser.add_argument("--peer-domain", choices=sorted(DOMAINS), default="public",
                        help="the peers' rows: on the public domain, or on a domain "
                             "estimated privately (bench_peers.py --peer-domain)")
    parser.add_argument("--figure", metavar="PATH", help="3-way TV against fit time (png)")
    parser.add_argument("--figure-epsilon", type=float, default=1.0)
    args = parser.parse_args(argv)
    args.methods = tuple(args.methods.split(","))
    global PEERS
    suffix, PEERS = DOMAINS[args.peer_domain]
    runs = collect(args.ours, args.split, suffix)
    for eps in sorted({k[1] for k in runs}, reverse=True):
        table, wins = rows(runs, eps, args.methods)
        if not table:
            continue
        if args.per_metric:
            for title, head, body in metric_tables(runs, eps, args.methods):
                if args.rst:
                    print(f"\n.. csv-table:: {title}, ε = {eps:g} ({args.split} split)\n"
                          "   :header-rows: 1\n")
                    for line in [head] + body:
                        print("   " + ", ".join('"' + c.replace('"', '""') + '"' for c in line))
                else:
                    print(f"\n**{title}, ε = {eps:g}** ({args.split} split)\n")
                    print("| " + " | ".join(head) + " |")
                    print("|" + "---|" * len(head))
                    for line in body:
                        print("| " + " | ".join(line) + " |")
        elif args.rst:
            print(f"\n.. csv-table:: ε = {eps:g} ({args.split} split)\n   :header-rows: 1\n")
            for line in [header(args.methods)] + table:
                print("   " + ", ".join('"' + c.replace('"', '""') + '"' for c in line))
        else:
            print(f"\n**ε = {eps:g}** ({args.split} split)\n")
            print("| " + " | ".join(header(args.methods)) + " |")
            print("|" + "---|" * len(header(args.methods)))
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
                  for (t, e, m) in runs if m in (*args.methods, *PEERS)]
        figure(args.figure, [p for p in points if p["fit_s"] is not None],
               args.figure_epsilon)


if __name__ == "__main__":
    main()
