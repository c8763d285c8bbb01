#!/usr/bin/python3
"""trace_top.py TRACE.json [TRACE2.json ...] [--top N]: where one profiled training step spends its
time, from the Chrome traces that `bench_train --profile` (LibTorch: Kineto on CUDA, the legacy
profiler on the CPU) and `bench/train_bench.py --profile` (torch.profiler) write. Per trace: the
GPU kernels summed by name (events of category "kernel"), or, in a trace without any, the CPU ops
(top-level and nested alike, so the sum exceeds the step). Every number is read from the trace."""
import json, sys
from collections import defaultdict


def load_events(path):
    with open(path) as f:
        data = json.load(f)
    return data["traceEvents"] if isinstance(data, dict) else data


def summarize(path, top):
    events = [e for e in load_events(path) if e.get("ph") == "X" and "dur" in e]
    kernels = [e for e in events if str(e.get("cat", "")).lower() == "kernel"]
    chosen, what = (kernels, "GPU kernels") if kernels else (events, "CPU ops (nested ones counted too)")
    total = defaultdict(float)
    count = defaultdict(int)
    for e in chosen:
        total[e["name"]] += float(e["dur"])
        count[e["name"]] += 1
    whole = sum(total.values())
    print(f"{path}: {what}, {len(chosen)} events, {whole / 1000:.2f} ms in all")
    print("| ms | share | calls | name |")
    print("|---|---|---|---|")
    for name, us in sorted(total.items(), key=lambda kv: -kv[1])[:top]:
        short = name if len(name) <= 90 else name[:87] + "..."
        print(f"| {us / 1000:.3f} | {us / whole:.1%} | {count[name]} | `{short}` |")
    print()


def main(argv):
    top = 15
    if "--top" in argv:
        i = argv.index("--top")
        top = int(argv[i + 1])
        del argv[i:i + 2]
    if not argv:
        sys.exit("usage: trace_top.py TRACE.json [TRACE2.json ...] [--top N]")
    for path in argv:
        summarize(path, top)


if __name__ == "__main__":
    main(sys.argv[1:])
