#!/usr/bin/env bash
# Training throughput, side by side in one run: the worker's training step (bench_train, C++)
# against the same model in PyTorch (bench/train_bench.py on Debian's python3-torch, the same
# LibTorch 1.13), interleaved ROUNDS times, both under the same allocator settings. Also h = 32
# multi-head and talking-heads, as ratios. Prints a markdown table for the README.
#
# bench/run_train_bench.sh --device cuda: the GPU table instead (issue 11), the worker against the
# same LM in the PyTorch of this machine (python3, 2.x with CUDA) on one GPU: the ref model (V 256,
# n 128, d 256, L 4) and the base model (V 8192, n 512, d 768, L 12, h 12, B 32), eager, SDPA and
# torch.compile (COMPILE=0 skips it), interleaved ROUNDS times, medians, peak GPU memory.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS="${ROUNDS:-3}"
STEPS="${STEPS:-10}"
if [ "${1:-}" = "--device" ] && [ "${2:-}" = "cuda" ]; then
  exec bash bench/run_train_bench_cuda.sh
fi
if ! /usr/bin/python3 -c "import torch" 2>/dev/null; then
  echo "bench: installing python3-torch for the comparison" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends python3-torch >/dev/null
fi
[ -x build/bench/bench_train ] || bash scripts/build.sh
# The same allocator settings for both (the worker also sets them itself with mallopt).
export GLIBC_TUNABLES=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=17179869184
# Threads: the worker runs torch's pool over the cores with OpenBLAS at one thread (it splits its
# matmuls itself). PyTorch runs in both of its sensible settings each round, torch 1 x OpenBLAS's
# pool over the cores and torch <cores> x OpenBLAS 1, and its faster one is the one compared.
unset OPENBLAS_NUM_THREADS
CORES=$(nproc)
pytorch() {
  /usr/bin/python3 bench/train_bench.py --steps "$STEPS" --threads 1 "$@" >>"$results"
  OPENBLAS_NUM_THREADS=1 /usr/bin/python3 bench/train_bench.py --steps "$STEPS" --threads "$CORES" "$@" >>"$results"
}

results=$(mktemp)
for r in $(seq "$ROUNDS"); do
  build/bench/bench_train --steps "$STEPS" $([ "$r" = 1 ] && echo --peak) >>"$results"
  pytorch
  build/bench/bench_train --steps "$STEPS" --heads 32 >>"$results"
  build/bench/bench_train --steps "$STEPS" --heads 32 --attention talking-heads >>"$results"
  pytorch --heads 32
done
/usr/bin/python3 - "$results" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
def med(impl, att, h, config=None):
    v = [r["tokens_per_s"] for r in rows if r["impl"] == impl and r["attention"] == att and r["heads"] == h
         and (config is None or r.get("config") == config)]
    return statistics.median(v)
configs = sorted({r["config"] for r in rows if r["impl"] == "pytorch"})
def pytorch_best(h):
    # PyTorch's faster setting at this head count (medians per setting).
    return max((med("pytorch", "multi-head", h, c), c) for c in configs)
peak = next(r for r in rows if "sgemm_peak_gflops" in r)
c8 = med("headroom", "multi-head", 8)
(p8, p8_config), (p32, p32_config) = pytorch_best(8), pytorch_best(32)
c32, t32 = med("headroom", "multi-head", 32), med("headroom", "talking-heads", 32)
mfu = c8 * peak["flops_per_token"] / 1e9 / peak["sgemm_peak_gflops"]
print("| measurement (V=256, n=128, d=256, L=4, batch 32, AdamW) | value |")
print("|---|---|")
print(f"| worker, h=8 multi-head | {c8:,.0f} tok/s |")
for c in configs:
    print(f"| PyTorch (python3-torch 1.13), h=8, {c} | {med('pytorch', 'multi-head', 8, c):,.0f} tok/s |")
print(f"| worker / PyTorch at its faster setting ({p8_config}) (target >= 1.2) | {c8 / p8:.2f}x |")
print(f"| sgemm peak (1024^3, measured) | {peak['sgemm_peak_gflops']:.0f} GFLOP/s |")
print(f"| model-FLOP utilisation (target >= 0.75) | {mfu:.2f} |")
print(f"| worker h=32 / h=8 multi-head (target >= 0.7) | {c32 / c8:.2f} |")
print(f"| worker talking-heads / multi-head at h=32 (target >= 0.7) | {t32 / c32:.2f} |")
print(f"| PyTorch h=32 / h=8 (faster settings: {p32_config}; {p8_config}) | {p32 / p8:.2f} |")
PY
rm -f "$results"
