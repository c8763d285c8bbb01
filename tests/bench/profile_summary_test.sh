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
# By kind: the GEMM and the softmax each in their own row.
grep -q '| 0.060 | 60.0% | softmax |' <<<"$out" || fail "softmax kind row wrong"
grep -q '| 0.040 | 40.0% | GEMM (cuBLAS, CUTLASS) |' <<<"$out" || fail "GEMM kind row wrong"
# Two traces side by side by kind; kernel names as LibTorch 2.x / cuBLAS / flash print them land in
# their kinds (the log-softmax of the loss is not the attention's softmax; flash's CUTLASS is not a GEMM).
cat >"$work/kernels2.json" <<'JSON'
{"traceEvents": [
 {"ph": "X", "cat": "kernel", "name": "nvjet_tst_128x256_64x4_1x2_h_bz_coopB_TNT", "ts": 0, "dur": 20},
 {"ph": "X", "cat": "kernel", "name": "void cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>", "ts": 20, "dur": 5},
 {"ph": "X", "cat": "kernel", "name": "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, cutlass::bfloat16_t>>", "ts": 25, "dur": 7},
 {"ph": "X", "cat": "kernel", "name": "void headroom::th_mix_kernel::forward_kernel<float>", "ts": 32, "dur": 9},
 {"ph": "X", "cat": "kernel", "name": "void at::native::vectorized_elementwise_kernel<4, at::native::bfloat16_copy_kernel_cuda>", "ts": 41, "dur": 3},
 {"ph": "X", "cat": "kernel", "name": "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<FusedAdamMathFunctor>", "ts": 44, "dur": 4}]}
JSON
out=$(python3 "$src/bench/profile_summary.py" "$work/kernels.json" "$work/kernels2.json")
echo "$out"
for row in '| GEMM (cuBLAS, CUTLASS) | 0.040 | 0.020 |' '| softmax | 0.060 | 0.000 |' '| loss (log-softmax, NLL) | 0.000 | 0.005 |' \
  '| attention (flash / SDPA) | 0.000 | 0.007 |' '| th_mix (ours) | 0.000 | 0.009 |' '| copy, cast, cat | 0.000 | 0.003 |' \
  '| optimizer, clipping (multi-tensor) | 0.000 | 0.004 |' '| all kernels | 0.100 | 0.048 |'; do
  grep -qF "$row" <<<"$out" || fail "side-by-side row missing: $row"
done
grep -q '^| kind | kernels | kernels2 |' <<<"$out" || fail "side-by-side header"
echo "profile_summary_test: ok"
