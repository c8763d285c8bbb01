#!/usr/bin/env bash
# bench/profile_summary.py on a real trace: one profiled CPU step of bench_train (LibTorch's
# profiler) summed by operator, which must name ops every training step runs; and on a small
# trace with GPU kernels, summed by kernel.
#   profile_summary_test.sh BENCH_TRAIN SOURCE_DIR WORK_DIR
set -euo pipefail
bench=$1 src=$2 work=$3
mkdir -p "$work"
trace="$work/trace.json"
rm -f "$trace"
"$bench" --steps 2 --warmup 1 --vocab 64 --n 16 --d-model 32 --layers 1 --heads 2 --batch 2 --device cpu \
  --profile "$trace" >/dev/null
out=$(python3 "$src/bench/profile_summary.py" "$trace" 40)
echo "$out"
fail() { echo "profile_summary_test: $*" >&2; exit 1; }
grep -q "CPU operators, top-level total" <<<"$out" || fail "no CPU-operator summary"
grep -q '^aten::mm \|^aten::addmm \|^aten::matmul ' <<<"$out" || fail "no matmul among the operators"
rows=$(grep -c '^aten::' <<<"$out")
[ "$rows" -ge 10 ] || fail "only $rows rows"
# A trace with GPU kernels is summed by kernel, not by CPU op.
cat >"$work/kernels.json" <<'JSON'
{"traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "dur": 50},
 {"ph": "X", "cat": "kernel", "name": "sm90_gemm", "ts": 1000, "dur": 30},
 {"ph": "X", "cat": "kernel", "name": "sm90_gemm", "ts": 1050, "dur": 10},
 {"ph": "X", "cat": "kernel", "name": "softmax_kernel", "ts": 1100, "dur": 60}]}
JSON
out=$(python3 "$src/bench/profile_summary.py" "$work/kernels.json")
echo "$out"
grep -q "GPU kernels, 3 events, 0.10 ms in all" <<<"$out" || fail "kernels not summed"
grep -q '| 0.060 | 60.0% | 1 | `softmax_kernel` |' <<<"$out" || fail "softmax_kernel row wrong or not first"
grep -q '| 0.040 | 40.0% | 2 | `sm90_gemm` |' <<<"$out" || fail "sm90_gemm row wrong"
if grep -q 'aten::mm' <<<"$out"; then fail "a CPU op counted among the kernels"; fi
# 100 us of kernels from 1000 to 1160 us: the GPU idled 60 of 160.
grep -q "GPU busy 62.5% of the 0.16 ms from the first kernel's start to the last one's end" <<<"$out" ||
  fail "busy share wrong or missing"
echo "profile_summary_test: ok"
