#!/usr/bin/env bash
# Training throughput, side by side in one run: the worker's training step (bench_train, C++)
# against the same model in PyTorch (bench/train_bench.py on Debian's python3-torch, the same
# LibTorch 1.13), interleaved ROUNDS times, both under the same allocator settings. Also h = 32
# multi-head and talking-heads, as ratios. Prints a markdown table for the README.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS="${ROUNDS:-3}"
STEPS="${STEPS:-10}"
if ! /usr/bin/python3 -c "import torch" 2>/dev/null; then
  echo "bench: installing python3-torch for the comparison" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends python3-torch >/dev/null
fi
[ -x build/bench/bench_train ] || bash scripts/build.sh
# The same allocator settings for both (the worker also sets them itself with mallopt).
export GLIBC_TUNABLES=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=17179869184
# Same threads for both: torch 1 intra-op thread, OpenBLAS its pool over the cores.
unset OPENBLAS_NUM_THREADS

results=$(mktemp)
for r in $(seq "$ROUNDS"); do
  build/bench/bench_train --steps "$STEPS" $([ "$r" = 1 ] && echo --peak) >>"$results"
  /usr/bin/python3 bench/train_bench.py --steps "$STEPS" >>"$results"
  build/bench/bench_train --steps "$STEPS" --heads 32 >>"$results"
  build/bench/bench_train --steps "$STEPS" --heads 32 --attention talking-heads >>"$results"
  /usr/bin/python3 bench/train_bench.py --steps "$STEPS" --heads 32 >>"$results"
done
/usr/bin/python3 - "$results" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
def med(impl, att, h):
    v = [r["tokens_per_s"] for r in rows if r["impl"] == impl and r["attention"] == att and r["heads"] == h]
    return statistics.median(v)
peak = next(r for r in rows if "sgemm_peak_gflops" in r)
c8, p8 = med("headroom", "multi-head", 8), med("pytorch", "multi-head", 8)
c32, t32, p32 = med("headroom", "multi-head", 32), med("headroom", "talking-heads", 32), med("pytorch", "multi-head", 32)
mfu = c8 * peak["flops_per_token"] / 1e9 / peak["sgemm_peak_gflops"]
print("| measurement (V=256, n=128, d=256, L=4, batch 32, AdamW) | value |")
print("|---|---|")
print(f"| worker, h=8 multi-head | {c8:,.0f} tok/s |")
print(f"| PyTorch (python3-torch 1.13), h=8 | {p8:,.0f} tok/s |")
print(f"| worker / PyTorch (target >= 1.2) | {c8 / p8:.2f}x |")
print(f"| sgemm peak (1024^3, measured) | {peak['sgemm_peak_gflops']:.0f} GFLOP/s |")
print(f"| model-FLOP utilisation (target >= 0.75) | {mfu:.2f} |")
print(f"| worker h=32 / h=8 multi-head (target >= 0.7) | {c32 / c8:.2f} |")
print(f"| worker talking-heads / multi-head at h=32 (target >= 0.7) | {t32 / c32:.2f} |")
print(f"| PyTorch h=32 / h=8 | {p32 / p8:.2f} |")
PY
rm -f "$results"
