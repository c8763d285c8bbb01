#!/usr/bin/env bash
# bench/trace_top.py on a real trace: one profiled CPU step of bench_train (LibTorch's profiler)
# summed by op. The table must name ops that every training step runs, with their times.
#   trace_top_test.sh BENCH_TRAIN SOURCE_DIR WORK_DIR
set -euo pipefail
bench=$1 src=$2 work=$3
mkdir -p "$work"
trace="$work/trace.json"
rm -f "$trace"
"$bench" --steps 2 --warmup 1 --vocab 64 --n 16 --d-model 32 --layers 1 --heads 2 --batch 2 --device cpu \
  --profile "$trace" >/dev/null
out=$(python3 "$src/bench/trace_top.py" "$trace" --top 40)
echo "$out"
fail() { echo "trace_top_test: $*" >&2; exit 1; }
grep -q "CPU ops (nested ones counted too)" <<<"$out" || fail "no CPU-op summary"
grep -q '`aten::mm`\|`aten::addmm`\|`aten::matmul`' <<<"$out" || fail "no matmul among the ops"
rows=$(grep -c '^| [0-9]' <<<"$out")
[ "$rows" -ge 10 ] || fail "only $rows rows"
# A trace with GPU kernels is summed by kernel, not by CPU op.
cat >"$work/kernels.json" <<'JSON'
{"traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "dur": 50},
 {"ph": "X", "cat": "kernel", "name": "sm90_gemm", "dur": 30},
 {"ph": "X", "cat": "kernel", "name": "sm90_gemm", "dur": 10},
 {"ph": "X", "cat": "kernel", "name": "softmax_kernel", "dur": 60}]}
JSON
out=$(python3 "$src/bench/trace_top.py" "$work/kernels.json")
echo "$out"
grep -q "GPU kernels, 3 events, 0.10 ms in all" <<<"$out" || fail "kernels not summed"
grep -q '| 0.060 | 60.0% | 1 | `softmax_kernel` |' <<<"$out" || fail "softmax_kernel row wrong or not first"
grep -q '| 0.040 | 40.0% | 2 | `sm90_gemm` |' <<<"$out" || fail "sm90_gemm row wrong"
if grep -q 'aten::mm' <<<"$out"; then fail "a CPU op counted among the kernels"; fi
echo "trace_top_test: ok"
