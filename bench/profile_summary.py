#!/usr/bin/python3
"""profile_summary.py TRACE.json [TRACE2.json ...] [TOP]: where one profiled training step spends
its time, from the Chrome traces of `bench_train --profile` (LibTorch: the legacy profiler on the
CPU, Kineto with the GPU kernels on CUDA) and `bench/train_bench.py --profile` (torch.profiler).

A trace with GPU kernels (events of category "kernel") is summed by kernel: total ms, share of the
kernel time, calls; and how busy the kernels kept the GPU over the span they cover (idle time is the
host's: launches, syncs; the profiler slows the host too, so compare two traces' shares rather than
read one as the unprofiled step's), and by kind (GEMM, flash attention, softmax, th_mix, layer norm,
optimizer, copies and casts, ...); with two or more such traces, a last table puts their kinds side
by side. One without is summed by CPU operator: nested operators are counted inside
their parents too, so the inclusive times overlap; the top-level rows (depth 0 on each thread) add
up to the step. TOP rows per trace (default 25). Every number is read from the trace."""
import json, sys
from collections import defaultdict


def load_events(path):
    with open(path) as f:
        data = json.load(f)
    events = data["traceEvents"] if isinstance(data, dict) else data
    return [e for e in events if e.get("ph") == "X" and "dur" in e]


def short(name, width):
    return name if len(name) <= width else name[:width - 3] + "..."


# Kinds of GPU kernel, first match wins (kernel names as CUDA LibTorch 2.x and cuBLAS / flash
# attention print them; "cutlass" also names flash kernels, so attention is asked before GEMM).
KINDS = [
    ("th_mix (ours)", ("th_mix",)),
    ("loss (log-softmax, NLL)", ("logsoftmax", "nll_loss", "cross_entropy")),
    ("softmax", ("softmax",)),
    ("attention (flash / SDPA)", ("flash", "fmha", "sdpa", "efficient_attention", "attention")),
    ("layer norm", ("layer_norm", "layernorm", "gammabeta")),
    ("optimizer, clipping (multi-tensor)", ("multi_tensor", "adam", "foreach")),
    ("GEMM (cuBLAS, CUTLASS)", ("gemm", "gemv", "nvjet", "xmma", "cutlass", "splitkreduce", "cublas")),
    ("copy, cast, cat", ("copy", "catarray", "cast")),
    ("embedding, index", ("embedding", "index")),
    ("reduction", ("reduce",)),
    ("other elementwise", ("elementwise",)),
]


def kind_of(name):
    low = name.lower()
    for kind, patterns in KINDS:
        if any(p in low for p in patterns):
            return kind
    return "other"


def by_kind(kernels):
    total = defaultdict(float)
    for e in kernels:
        total[kind_of(e["name"])] += float(e["dur"])
    return total


def gpu_kernels(path, kernels, top):
    total, calls = defaultdict(float), defaultdict(int)
    for e in kernels:
        total[e["name"]] += float(e["dur"])
        calls[e["name"]] += 1
    whole = sum(total.values())
    print(f"{path}: GPU kernels, {len(kernels)} events, {whole / 1e3:.2f} ms in all")
    # From the first kernel's start to the last one's end: where the kernels leave the GPU idle
    # (the host launching, a sync), busy is under 100%. Kernels on several streams at once can
    # take it over 100%.
    timed = [e for e in kernels if "ts" in e]
    if timed:
        span = max(float(e["ts"]) + float(e["dur"]) for e in timed) - min(float(e["ts"]) for e in timed)
        busy = sum(float(e["dur"]) for e in timed)
        if span > 0:
            print(f"GPU busy {busy / span:.1%} of the {span / 1e3:.2f} ms from the first kernel's start to the last one's end")
    print("| ms | share | calls | kernel |")
    print("|---|---|---|---|")
    for name, us in sorted(total.items(), key=lambda kv: -kv[1])[:top]:
        print(f"| {us / 1e3:.3f} | {us / whole:.1%} | {calls[name]} | `{short(name, 90)}` |")
    print()
    print("| ms | share | kind of kernel |")
    print("|---|---|---|")
    for kind, us in sorted(by_kind(kernels).items(), key=lambda kv: -kv[1]):
        print(f"| {us / 1e3:.3f} | {us / whole:.1%} | {kind} |")


def compare_kinds(traces):
    """One table of every GPU trace's kernel time by kind, side by side (ms): where two steps differ."""
    names = [path.rsplit("/", 1)[-1].removesuffix(".json") for path, _ in traces]
    kinds = [by_kind(k) for _, k in traces]
    order = sorted({kind for k in kinds for kind in k}, key=lambda kind: -max(k.get(kind, 0.0) for k in kinds))
    print("GPU kernel time by kind, ms (one profiled step each)")
    print("| kind | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for kind in order:
        print(f"| {kind} | " + " | ".join(f"{k.get(kind, 0.0) / 1e3:.3f}" for k in kinds) + " |")
    print("| all kernels | " + " | ".join(f"{sum(k.values()) / 1e3:.3f}" for k in kinds) + " |")


def cpu_operators(path, events, top):
    by_thread = defaultdict(list)
    for e in events:
        by_thread[e.get("tid")].append(e)
    rows = defaultdict(lambda: [0.0, 0.0, 0])  # name -> [inclusive us, top-level us, calls]
    total = 0.0
    for evs in by_thread.values():
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
    print(f"{path}: CPU operators, top-level total {total / 1e3:.1f} ms")
    print(f"{'operator':48s} {'incl ms':>9s} {'top ms':>9s} {'top %':>6s} {'calls':>6s}")
    for name, (incl, toplevel, calls) in sorted(rows.items(), key=lambda kv: -kv[1][1])[:top]:
        print(f"{short(name, 48):48s} {incl / 1e3:9.1f} {toplevel / 1e3:9.1f} {100 * toplevel / total:6.1f} {calls:6d}")


def main(args):
    top = 25
    if args and args[-1].isdigit():
        top = int(args.pop())
    if not args:
        sys.exit("usage: profile_summary.py TRACE.json [TRACE2.json ...] [TOP]")
    gpu_traces = []
    for i, path in enumerate(args):
        if i:
            print()
        events = load_events(path)
        kernels = [e for e in events if str(e.get("cat", "")).lower() == "kernel"]
        if kernels:
            gpu_kernels(path, kernels, top)
            gpu_traces.append((path, kernels))
        else:
            cpu_operators(path, events, top)
    if len(gpu_traces) > 1:
        print()
        compare_kinds(gpu_traces)


if __name__ == "__main__":
    main(sys.argv[1:])
