#!/usr/bin/env bash
# The GPU half of bench/run_train_bench.sh (run it as `bench/run_train_bench.sh --device cuda`):
# the worker's training step (bench_train --device cuda) against the same LM in PyTorch
# (bench/train_bench.py on this machine's python3 with CUDA) on one GPU, interleaved ROUNDS times;
# prints the README's table of medians. BUILD names the build folder (default build-cuda); ROWS, a
# list of row labels (e.g. "base-th base-th-kernel"), runs only those, for a short GPU lease.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS="${ROUNDS:-3}"
STEPS="${STEPS:-20}"
COMPILE="${COMPILE:-1}"
BUILD="${BUILD:-build-cuda}"
PYTHON="${PYTHON:-python3}"
BENCH="$BUILD/bench/bench_train"
[ -x "$BENCH" ] || { echo "bench: $BENCH is missing; build with a CUDA LibTorch first (README: GPU build)" >&2; exit 2; }
"$PYTHON" -c "import torch; assert torch.cuda.is_available()" 2>/dev/null ||
  { echo "bench: $PYTHON has no PyTorch with a visible GPU" >&2; exit 2; }

REF=(--vocab 256 --n 128 --d-model 256 --layers 4 --batch 32)
BASE=(--vocab 8192 --n 512 --d-model 768 --layers 12 --heads 12 --batch 32)
# The paper scale's talking-heads shape (th_extreme_heads): worker rows only, batched against the
# kernel, where Auto's head-count rule (kAutoKernelMaxHeads) was drawn.
PAPER=(--vocab 256 --n 128 --d-model 512 --layers 6 --batch 32 --precision bf16 --attention talking-heads)
results="${RESULTS:-$(mktemp)}"
row() {  # label, then the command; tags each JSON line with the row's label
  local label="$1"; shift
  local out
  if [ -n "${ROWS:-}" ] && [[ " $ROWS " != *" $label "* ]]; then return 0; fi
  if ! out=$("$@" | tail -n 1); then echo "bench: row $label failed: $*" >&2; return 0; fi
  echo "{\"row\": \"$label\", ${out#\{}" >>"$results"
}
worker() { row "$1" "$BENCH" --device cuda --steps "$STEPS" "${@:2}"; }
# The kernel with one thread a key column, as before threads shared the columns of short causal
# rows (HEADROOM_TH_MIX_COLUMN_PARTS, core/attention/th_mix_kernel.cu): rows -kernel1.
worker1() { HEADROOM_TH_MIX_COLUMN_PARTS=1 worker "$@"; }
pytorch() { row "$1" "$PYTHON" bench/train_bench.py --device cuda --steps "$STEPS" "${@:2}"; }
for r in $(seq "$ROUNDS"); do
  echo "round $r of $ROUNDS" >&2
  worker ref "${REF[@]}" --heads 8 --precision fp32
  pytorch ref "${REF[@]}" --heads 8 --precision fp32
  pytorch ref "${REF[@]}" --heads 8 --precision fp32 --attn sdpa
  worker ref-h32 "${REF[@]}" --heads 32 --precision fp32
  pytorch ref-h32 "${REF[@]}" --heads 32 --precision fp32
  worker ref-th32 "${REF[@]}" --heads 32 --precision fp32 --attention talking-heads --mixing batched
  worker ref-th32-folded "${REF[@]}" --heads 32 --precision fp32 --attention talking-heads --mixing folded
  worker ref-th32-kernel "${REF[@]}" --heads 32 --precision fp32 --attention talking-heads --mixing kernel
  worker1 ref-th32-kernel1 "${REF[@]}" --heads 32 --precision fp32 --attention talking-heads --mixing kernel
  pytorch ref-th32 "${REF[@]}" --heads 32 --precision fp32 --attention talking-heads
  worker ref-b256 --vocab 256 --n 128 --d-model 256 --layers 4 --heads 8 --batch 256 --precision bf16
  pytorch ref-b256 --vocab 256 --n 128 --d-model 256 --layers 4 --heads 8 --batch 256 --precision bf16 --attn sdpa
  worker base "${BASE[@]}" --precision bf16
  pytorch base "${BASE[@]}" --precision bf16 --attn sdpa
  [ "$COMPILE" = 1 ] && pytorch base "${BASE[@]}" --precision bf16 --attn sdpa --compile
  pytorch base "${BASE[@]}" --precision bf16 --attn matmul
  worker base-th "${BASE[@]}" --precision bf16 --attention talking-heads --mixing batched
  worker base-th-folded "${BASE[@]}" --precision bf16 --attention talking-heads --mixing folded
  worker base-th-kernel "${BASE[@]}" --precision bf16 --attention talking-heads --mixing kernel
  worker1 base-th-kernel1 "${BASE[@]}" --precision bf16 --attention talking-heads --mixing kernel
  pytorch base-th "${BASE[@]}" --precision bf16 --attention talking-heads
  worker base-tf32 "${BASE[@]}" --precision tf32
  pytorch base-tf32 "${BASE[@]}" --precision tf32 --attn sdpa
  for h in 8 16 32; do
    worker "paper-th$h" "${PAPER[@]}" --heads "$h" --mixing batched
    worker "paper-th$h-kernel" "${PAPER[@]}" --heads "$h" --mixing kernel
    worker1 "paper-th$h-kernel1" "${PAPER[@]}" --heads "$h" --mixing kernel
  done
done
"$PYTHON" - "$results" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
def pick(row, impl, config=None):
    return [r for r in rows if r["row"] == row and r["impl"] == impl and (config is None or r.get("config") == config)]
def med(rs, key="tokens_per_s"):
    v = [r[key] for r in rs if key in r]
    return statistics.median(v) if v else float("nan")
torch_line = next((r["torch"] for r in rows if "torch" in r), "?")
rounds = max((len(pick(r["row"], "headroom")) for r in rows if r["impl"] == "headroom"), default=0)
print(f"GPU training step, tokens/s, medians of {rounds} rounds ({torch_line})")
print("| model | precision | worker | PyTorch | PyTorch mode | worker / PyTorch |")
print("|---|---|---|---|---|---|")
names = {"ref": "ref: V 256, n 128, d 256, L 4, h 8, B 32", "ref-h32": "ref, h 32",
         "ref-th32": "ref, talking-heads h 32 (mixing batched)", "ref-th32-folded": "ref, talking-heads h 32 (mixing folded)",
         "ref-th32-kernel": "ref, talking-heads h 32 (mixing kernel)",
         "ref-b256": "ref, B 256", "base": "base: V 8192, n 512, d 768, L 12, h 12, B 32",
         "base-th": "base, talking-heads (mixing batched)", "base-th-folded": "base, talking-heads (mixing folded)",
         "ref-th32-kernel1": "ref, talking-heads h 32 (mixing kernel, one thread a column)",
         "base-th-kernel": "base, talking-heads (mixing kernel)",
         "base-th-kernel1": "base, talking-heads (mixing kernel, one thread a column)", "base-tf32": "base"}
for row in ["ref", "ref-h32", "ref-th32", "ref-th32-folded", "ref-th32-kernel", "ref-th32-kernel1", "ref-b256", "base",
            "base-th", "base-th-folded", "base-th-kernel", "base-th-kernel1", "base-tf32"]:
    w = pick(row, "headroom")
    if not w:
        continue
    wm = med(w)
    prec = w[0]["precision"]
    fell_back = sorted({r["kernel_unavailable"] for r in w if r.get("kernel_unavailable")})
    if fell_back:  # --mixing kernel that ran batched: never a kernel figure
        names[row] += " RAN BATCHED: " + "; ".join(fell_back)
    peer = row.replace("-folded", "").replace("-kernel1", "").replace("-kernel", "")
    for config in sorted({r["config"] for r in pick(peer, "pytorch")}):
        pm = med(pick(peer, "pytorch", config))
        print(f"| {names[row]} | {prec} | {wm:,.0f} | {pm:,.0f} | {config} | {wm / pm:.2f}x |")
# Worker against worker: each mixing path beside the batched matmuls (its row without a suffix).
kernel_rows = [(row, base) for base in ["ref-th32", "base-th"] + [f"paper-th{h}" for h in (8, 16, 32)]
               for row in (base + "-folded", base + "-kernel", base + "-kernel1") if pick(row, "headroom")]
if kernel_rows:
    print()
    print("| shape (worker only) | precision | mixing | tok/s | batched tok/s | / batched | peak GPU GiB, / batched |")
    print("|---|---|---|---|---|---|---|")
    for row, base in kernel_rows:
        w, b = pick(row, "headroom"), pick(base, "headroom")
        how = {"-folded": "folded", "-kernel": "kernel", "-kernel1": "kernel, one thread a column"}[row[len(base):]]
        fell_back = sorted({r["kernel_unavailable"] for r in w if r.get("kernel_unavailable")})
        if fell_back:
            how += " RAN BATCHED: " + "; ".join(fell_back)
        shape = base if not base.startswith("paper") else f"d 512, L 6, n 128, B 32, V 256, talking-heads h {base[8:]}"
        wm, bm = med(w), med(b)
        print(f"| {shape} | {w[0]['precision']} | {how} | {wm:,.0f} | {bm:,.0f} | {wm / bm:.2f}x | "
              f"{med(w, 'peak_gpu_gib'):.2f}, {med(w, 'peak_gpu_gib') / med(b, 'peak_gpu_gib'):.2f}x |")
    print()
wb, pb = med(pick("base", "headroom"), "peak_gpu_gib"), med(pick("base", "pytorch", "bf16 sdpa"), "peak_gpu_gib")
if wb == wb and pb == pb:  # both measured (not NaN)
    print(f"| peak GPU memory, base bf16 B 32 | | {wb:.2f} GiB | {pb:.2f} GiB | bf16 sdpa | {wb / pb:.2f}x |")
PY
[ -n "${RESULTS:-}" ] || rm -f "$results"
