#!/usr/bin/python3
"""Sums a Chrome trace from `bench_train --profile FILE` by operator: total ms, share of the
step, calls. Nested operators are counted inside their parents too, so shares overlap; the
top-level rows (depth 0 on the training thread) add up to the step."""
import json, sys
from collections import defaultdict

events = [e for e in json.load(open(sys.argv[1])) if e.get("ph") == "X"]
by_thread = defaultdict(list)
for e in events:
    by_thread[e["tid"]].append(e)
rows = defaultdict(lambda: [0.0, 0.0, 0])  # name -> [self-less total us, top-level us, calls]
total = 0.0
for tid, evs in by_thread.items():
    evs.sort(key=lambda e: (e["ts"], -e["dur"]))
    stack = []
    for e in evs:
        while stack and e["ts"] >= stack[-1]["ts"] + stack[-1]["dur"]:
            stack.pop()
        r = rows[e["name"]]
        r[0] += e["dur"]
        r[2] += 1
        if not stack:
            r[1] += e["dur"]
            total += e["dur"]
        stack.append(e)
top = int(sys.argv[2]) if len(sys.argv) > 2 else 25
print(f"top-level total {total / 1e3:.1f} ms")
print(f"{'operator':48s} {'incl ms':>9s} {'top ms':>9s} {'top %':>6s} {'calls':>6s}")
for name, (incl, toplevel, calls) in sorted(rows.items(), key=lambda kv: -kv[1][1])[:top]:
    print(f"{name[:48]:48s} {incl / 1e3:9.1f} {toplevel / 1e3:9.1f} {100 * toplevel / total:6.1f} {calls:6d}")
