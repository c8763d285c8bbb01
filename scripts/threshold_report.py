#!/usr/bin/python3
"""threshold_report.py CSV...: markdown tables from `headroom-worker represent --sweep --csv` files
(docs/causal_threshold.md). Every number is read from the CSVs; nothing is typed in.
- random targets: per (mask, n) the smallest d_p from which every target was reached, against
  the theory (n - 1 full, floor(n/2) causal), with the median error one below and at it;
- self-vs-past targets: error and largest logit per d_p;
- constructions (`--method construction`): per (mask, n) how many targets the construction reached
  at the smallest head it allows, with its errors and largest logits."""
import csv, statistics, sys
from collections import defaultdict

rows = []
for path in sys.argv[1:]:
    with open(path) as f:
        rows += list(csv.DictReader(f))

# Files written before --method existed have no method column: they ran what is now "auto".
constructed = [r for r in rows if r.get("method") == "construction"]
rows = [r for r in rows if r.get("method") != "construction"]

random = [r for r in rows if r["pattern"] == "random"]
points = defaultdict(dict)  # (mask, n) -> d_p -> row
for r in random:
    points[(r["mask"], int(r["n"]))][int(r["d_p"])] = r

def measured(by_dp):
    best = None
    for dp in sorted(by_dp, reverse=True):
        r = by_dp[dp]
        if int(r["reached"]) != int(r["targets"]):
            break
        best = dp
    return best

if points:
    print("Random targets (each query's weights uniform on its simplex); reached = max |log reached - log P| < 1e-3:\n")
    print("| mask | n | targets | theory | measured: smallest d_p reaching every target | median error at theory - 1 | reached at theory | median / worst error at theory | median max |logit| at theory |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (mask, n) in sorted(points, key=lambda k: (k[0] != "full", k[1])):
        by = points[(mask, n)]
        theory = n - 1 if mask == "full" else n // 2
        below, at = by.get(theory - 1), by.get(theory)
        if max(by) < theory:  # a sweep cut off before it reached the theory: say so, claim nothing
            print(f"| {mask} | {n} | {by[max(by)]['targets']} | {theory} | incomplete: swept d_p <= {max(by)}, "
                  f"none reached every target | | | | |")
            continue
        fmt = lambda r, k: f"{float(r[k]):.2g}" if r else "-"
        print(f"| {mask} | {n} | {by[max(by)]['targets']} | {theory} | {measured(by)} | {fmt(below, 'median_log_error')} | "
              f"{at['reached'] + '/' + at['targets'] if at else '-'} | {fmt(at, 'median_log_error')} / {fmt(at, 'worst_log_error')} | "
              f"{fmt(at, 'median_max_logit')} |")

selfp = [r for r in rows if r["pattern"] == "self-vs-past"]
if selfp:
    ns = sorted({int(r["n"]) for r in selfp})
    for mask in ("causal", "full"):
        sel = [r for r in selfp if r["mask"] == mask]
        if not sel:
            continue
        print(f"\nSelf vs past ({mask}): max |log reached - log P| / largest |logit| of the best fit, per d_p:\n")
        dps = sorted({int(r["d_p"]) for r in sel})
        print("| n | " + " | ".join(f"d_p = {d}" for d in dps) + " |")
        print("|---|" + "---|" * len(dps))
        for n in ns:
            by = {int(r["d_p"]): r for r in sel if int(r["n"]) == n}
            cells = [f"{float(by[d]['median_log_error']):.1e} / {float(by[d]['median_max_logit']):.2g}" if d in by else ""
                     for d in dps]
            print(f"| {n} | " + " | ".join(cells) + " |")

if constructed:
    print("Constructed: each target built at the smallest head size the construction allows (n - 1 full, "
          "floor(n/2) causal); reached = max |log reached - log P| < 1e-3:\n")
    print("| mask | pattern | n | d_p | targets | reached | median / worst error | median / worst max |logit| |")
    print("|---|---|---|---|---|---|---|---|")
    for r in sorted(constructed, key=lambda r: (r["mask"] != "full", r["pattern"], int(r["n"]))):
        print(f"| {r['mask']} | {r['pattern']} | {r['n']} | {r['d_p']} | {r['targets']} | {r['reached']}/{r['targets']} | "
              f"{float(r['median_log_error']):.1e} / {float(r['worst_log_error']):.1e} | "
              f"{float(r['median_max_logit']):.3g} / {float(r['worst_max_logit']):.3g} |")
