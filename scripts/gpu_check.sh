#!/usr/bin/env bash
# Build, test and benchmark on a GPU machine in one go (issue 11), for a borrowed machine that has
# PyTorch 2.x with CUDA but none of Headroom's Debian packages: stage them first on a machine with
# apt (`bash scripts/stage_gpu.sh` fills .gpu/ with the packages, the linux-docs corpus and its BPE
# models, and checks that a call can carry them), carry .gpu along and run
#   bash scripts/gpu_check.sh [steps...]   steps: build tests bench profile fulltests scaling peer suites
#                                          (default: build tests bench fulltests)
# Logs go to $OUT (default out/gpu). The build folder is build-cuda. Environment: TARGETS (build only
# these), ROUNDS / STEPS / COMPILE (bench/run_train_bench_cuda.sh), FULLTESTS_TIMEOUT (seconds);
# for `suites`: SUITES ("th_heads:3 vb_rank ..." with worker counts; an entry with a / is a suite file's
# path, e.g. docs/results/gpu_next/vb_depth_width_lr.toml:4), SUITE_WORKERS (default 6),
# SUITES_SCALE (full), SUITES_TIMEOUT (380 s; at paper scale leave the call 30 s after it for the
# exports) or SUITES_DEADLINE (seconds since the start by which all is back: the training time is
# what the build left, less 30 s for the exports), SUITES_DIR (keep the DBs there to resume in the next
# call on a warm machine, e.g. build-cuda/suites), SUITES_RESUME (a folder of earlier sessions'
# exports, <suite>_gpu.sqlite: their done runs are kept and only the others train, so a suite larger
# than one lease finishes over several), WEIGHTS_PER_SUITE (in the exports: 4, or 0 at
# SUITES_SCALE=paper, whose weights are too big to bring back), SNAPSHOTS_PER_RUN (paper: 2),
# SUITES_CHECKPOINT_INTERVAL (the workers' --checkpoint-interval: full checkpoints at most every
# that many seconds; unset: at every checkpoint_every step). ROWS: bench rows to run (all).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-out/gpu}"
mkdir -p "$OUT"
[ -f .gpu/env.sh ] || { echo "gpu_check: .gpu/env.sh is missing; run scripts/stage_gpu.sh where apt works" >&2; exit 2; }
# shellcheck disable=SC1091
source .gpu/env.sh
# The linux-docs corpus, staged by scripts/stage_corpora.sh (the machine has no linux-source-6.1),
# unpacked into the worker's cache once: `--corpus linux-docs` reads it from there.
export HEADROOM_CACHE_DIR=${HEADROOM_CACHE_DIR:-$HOME/.cache/headroom}
if [ -f .gpu/corpora/linux-docs.txt.xz ] && [ ! -s "$HEADROOM_CACHE_DIR/linux-docs.txt" ]; then
  mkdir -p "$HEADROOM_CACHE_DIR"
  xz -dc .gpu/corpora/linux-docs.txt.xz > "$HEADROOM_CACHE_DIR/linux-docs.txt.tmp" &&
    mv "$HEADROOM_CACHE_DIR/linux-docs.txt.tmp" "$HEADROOM_CACHE_DIR/linux-docs.txt"
fi
# Its BPE models (stage_corpora.sh trains them here), keyed by the corpus's fingerprint.
for f in .gpu/corpora/bpe-*; do [ -f "$f" ] && cp -n "$f" "$HEADROOM_CACHE_DIR/"; done
STEPS=("$@")
[ ${#STEPS[@]} -gt 0 ] || STEPS=(build tests bench fulltests)
want() { local s; for s in "${STEPS[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }
JOBS=$(nproc)
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'; echo "nvcc: $(command -v nvcc || ls /usr/local/cuda*/bin/nvcc 2>/dev/null || echo none)"; } 2>&1 | tee "$OUT/machine.txt"

# nvcc builds our CUDA kernels (core/attention/th_mix_kernel.cu); the machine has it off PATH.
if [ -z "${CUDACXX:-}" ] && ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export CUDACXX=/usr/local/cuda/bin/nvcc
fi
if want build; then
  start=$(date +%s)
  configure() {
    # No GUI, and no ICU libraries (.gpu carries ICU's headers only; stage_gpu.sh says why).
    cmake -S . -B build-cuda -G Ninja -DCMAKE_BUILD_TYPE=Release -DHEADROOM_BUILD_GUI=OFF -DHEADROOM_ICU=OFF \
      -DCMAKE_PREFIX_PATH="$DEPS_PREFIX;$TORCH_PREFIX" "$@" >>"$OUT/configure.log" 2>&1
  }
  : >"$OUT/configure.log"
  # Our CUDA kernels are new to this machine: if CUDA itself fails to configure, build without them.
  if ! configure -DHEADROOM_WITH_CUDA_KERNELS=ON; then
    tail -30 "$OUT/configure.log"
    echo "configure failed with the CUDA kernels; again without them (-DHEADROOM_WITH_CUDA_KERNELS=OFF)"
    rm -rf build-cuda/CMakeCache.txt build-cuda/CMakeFiles
    configure -DHEADROOM_WITH_CUDA_KERNELS=OFF || { tail -30 "$OUT/configure.log"; exit 1; }
  fi
  grep -E "Headroom: (LibTorch|CUDA kernels|no nvcc)" "$OUT/configure.log"
  # TARGETS: a subset to build (default all), e.g. "headroom-worker bench_train core_tests".
  cmake --build build-cuda -j"$JOBS" ${TARGETS:+--target $TARGETS} -- -k 0 >"$OUT/build.log" 2>&1
  rc=$?
  if [ $rc -ne 0 ] && grep -q "th_mix_kernel" "$OUT/build.log"; then
    grep -E "th_mix_kernel.*(error|Error)" "$OUT/build.log" | head -20
    echo "the CUDA kernels did not build; again without them (-DHEADROOM_WITH_CUDA_KERNELS=OFF)"
    configure -DHEADROOM_WITH_CUDA_KERNELS=OFF &&
      cmake --build build-cuda -j"$JOBS" ${TARGETS:+--target $TARGETS} -- -k 0 >>"$OUT/build.log" 2>&1
    rc=$?
  fi
  echo "build rc=$rc in $(( $(date +%s) - start )) s"
  [ $rc -eq 0 ] || grep -E "error|Error" "$OUT/build.log" | head -40
fi

export OPENBLAS_NUM_THREADS=1
if want tests; then
  # The GPU tests first: every kind on CUDA against the CPU in float64, moving runs, bf16.
  OMP_NUM_THREADS=4 timeout 300 build-cuda/tests/core/core_tests --gtest_filter='Cuda*:ThMix*:Float32*:Device*:TrainerPrecision*:TrainerDevice*:*Fused*:AttentionLayer*:Trainer*' \
    >"$OUT/cuda_tests.log" 2>&1
  echo "core GPU tests rc=$?"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|Failure|tests ran" "$OUT/cuda_tests.log" | head -30
  if [ -x build-cuda/tests/worker/worker_cli_tests ]; then
    OMP_NUM_THREADS=4 timeout 300 build-cuda/tests/worker/worker_cli_tests --gtest_filter='DeviceCli*:InspectCli.DumpOnADevice*' >"$OUT/cuda_cli_tests.log" 2>&1
    echo "worker GPU tests rc=$?"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|Failure" "$OUT/cuda_cli_tests.log" | head -20
  else
    echo "worker GPU tests: worker_cli_tests is not built (TARGETS); not run"
  fi
fi

if want bench; then
  BUILD=build-cuda RESULTS="$OUT/bench.jsonl" bash bench/run_train_bench.sh --device cuda 2>"$OUT/bench.err" | tee "$OUT/bench.md"
  tail -5 "$OUT/bench.err"
fi

if want profile; then
  # One profiled step of the base model (bf16) in the worker and in PyTorch, GPU kernels summed by
  # name and by kind, every trace's kinds side by side in a last table (bench/profile_summary.py):
  # where the worker's gap to eager SDPA is, and what the talking-heads mixing costs with and
  # without th_mix. The traces stay on the machine; the tables come back.
  BASE=(--vocab 8192 --n 512 --d-model 768 --layers 12 --heads 12 --batch 32 --precision bf16 --steps 5 --device cuda)
  traces=$(mktemp -d)
  build-cuda/bench/bench_train "${BASE[@]}" --profile "$traces/worker_base.json" >/dev/null
  python3 bench/train_bench.py "${BASE[@]}" --attn sdpa --profile "$traces/pytorch_base.json" >/dev/null
  build-cuda/bench/bench_train "${BASE[@]}" --attention talking-heads --mixing batched --profile "$traces/worker_th_batched.json" >/dev/null
  build-cuda/bench/bench_train "${BASE[@]}" --attention talking-heads --mixing kernel --profile "$traces/worker_th_kernel.json" >/dev/null
  python3 bench/train_bench.py "${BASE[@]}" --attention talking-heads --profile "$traces/pytorch_th.json" >/dev/null
  # The paper scale's talking-heads shape at h 32, where the kernel lost to batched on 2026-11-26.
  PAPER=(--vocab 256 --n 128 --d-model 512 --layers 6 --heads 32 --batch 32 --precision bf16 --steps 5 --device cuda
    --attention talking-heads)
  build-cuda/bench/bench_train "${PAPER[@]}" --mixing batched --profile "$traces/worker_paper_th32_batched.json" >/dev/null
  build-cuda/bench/bench_train "${PAPER[@]}" --mixing kernel --profile "$traces/worker_paper_th32_kernel.json" >/dev/null
  python3 bench/profile_summary.py "$traces"/*.json "${PROFILE_TOP:-20}" | tee "$OUT/profile.md"
fi

if want fulltests; then
  OMP_NUM_THREADS=2 timeout "${FULLTESTS_TIMEOUT:-400}" ctest --test-dir build-cuda -j8 --output-on-failure >"$OUT/ctest.log" 2>&1
  echo "ctest rc=$?"; grep -E "tests passed|tests failed|\*\*\*Failed|\(Failed\)|Timeout|Not Run" "$OUT/ctest.log" | head -30
fi

if want scaling; then
  # Many small runs on one GPU (issue 11): N processes of the lrb-heads full-scale model side by
  # side, each its own CUDA context; per-process rates summed, and tokens over the wall time.
  for N in 1 2 4 8; do
    start=$EPOCHREALTIME
    for i in $(seq "$N"); do
      build-cuda/bench/bench_train --device cuda --steps 1500 --warmup 20 --vocab 256 --d-model 128 --layers 2 \
        --n 64 --batch 16 --heads 4 | sed "s/^{/{\"workers\": $N, /" >>"$OUT/scaling.jsonl" &
    done
    wait
    echo "{\"workers\": $N, \"wall_s\": $(awk "BEGIN { print $EPOCHREALTIME - $start }")}" >>"$OUT/scaling.jsonl"
  done
  python3 - "$OUT/scaling.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print("| processes on one GPU | sum of per-process tok/s | tokens / wall (startup included) |")
print("|---|---|---|")
for n in (1, 2, 4, 8):
    rates = [r["tokens_per_s"] for r in rows if r["workers"] == n and "tokens_per_s" in r]
    wall = next(r["wall_s"] for r in rows if r["workers"] == n and "wall_s" in r)
    print(f"| {n} | {sum(rates):,.0f} | {n * 1520 * 16 * 64 / wall:,.0f} |")
PY
fi

if want peer; then
  # Issue 16: Headroom's import of GPT-2 / BERT / Llama checkpoints against transformers itself.
  python3 -c 'import transformers, safetensors; print("transformers", transformers.__version__)' 2>&1 | tee "$OUT/hf_peer.txt"
  timeout 240 python3 scripts/hf_peer_check.py --worker build-cuda/app/worker/headroom-worker >>"$OUT/hf_peer.txt" 2>&1
  echo "hf peer check rc=$?" | tee -a "$OUT/hf_peer.txt"; tail -12 "$OUT/hf_peer.txt"
fi

if want suites; then
  # Full-scale suites on the GPU, side by side, each with its own worker count (SUITES entries are
  # NAME or NAME:WORKERS; SUITE_WORKERS is the default); what finished in SUITES_TIMEOUT seconds
  # comes back as results-only exports. With SUITES_DIR kept between calls (a path under
  # build-cuda/ on a machine that stayed warm), the same command resumes what a timeout stopped.
  worker=${WORKER_BIN:-build-cuda/app/worker/headroom-worker}
  # Auto trains talking-heads runs of up to 32 heads with th_mix: where the kernel is built, its
  # GPU tests run first (seconds), and a kernel that fails them trains nothing. Build core_tests
  # with the worker (TARGETS) for this check; without it the suites start unchecked, said here.
  if [ -x build-cuda/tests/core/core_tests ]; then
    OMP_NUM_THREADS=4 timeout 120 build-cuda/tests/core/core_tests --gtest_filter='ThMixCuda*' >"$OUT/th_mix_tests.log" 2>&1
    rc=$?
    echo "suites: th_mix tests rc=$rc ($(grep -cE '^\[       OK \]' "$OUT/th_mix_tests.log") passed)" | tee -a "$OUT/suites.txt"
    [ $rc -eq 0 ] || { grep -E "Failure|FAILED" "$OUT/th_mix_tests.log" | head -20; echo "suites: not started" | tee -a "$OUT/suites.txt"; exit 1; }
  else
    echo "suites: build-cuda/tests/core/core_tests is not built: the mixing kernel's GPU tests did not run" | tee -a "$OUT/suites.txt"
  fi
  # SUITES_DEADLINE: seconds since this script started by which everything must be back (a lease
  # call's limit less a margin): training stops 30 s before it, whatever the build took, so the
  # exports finish inside the call. It wins over SUITES_TIMEOUT. 30 s: up to 10 for the killed
  # workers to go, the rest for the exports, which read no checkpoints (2 GB of them: 1 s, against
  # 20 s when an export copied the whole DB first; measured on the CPU machine, 2026-11-26).
  suites_timeout=${SUITES_TIMEOUT:-380}
  if [ -n "${SUITES_DEADLINE:-}" ]; then
    suites_timeout=$((SUITES_DEADLINE - SECONDS - 30))
    [ "$suites_timeout" -ge 30 ] || { echo "suites: only $((SUITES_DEADLINE - SECONDS)) s left of SUITES_DEADLINE; not started" | tee -a "$OUT/suites.txt"; exit 1; }
    echo "suites: training for $suites_timeout s (SUITES_DEADLINE $SUITES_DEADLINE s, $SECONDS s gone)" | tee -a "$OUT/suites.txt"
  fi
  # SUITES entries are NAME[:WORKERS] (assets/suites/NAME.toml) or PATH[:WORKERS] (a suite file
  # elsewhere, with a /, e.g. a seed check under docs/results/, named by its file name). Every
  # entry's file must exist before any suite starts.
  names=() files=() worker_counts=()
  for entry in ${SUITES:-lrb_heads vb_rank}; do
    suite=${entry%%:*}
    workers=${SUITE_WORKERS:-6}
    [ "$entry" != "$suite" ] && workers=${entry#*:}
    suite_file=assets/suites/$suite.toml
    if [[ "$suite" == */* ]]; then suite_file=$suite; suite=$(basename "$suite" .toml); fi
    [ -f "$suite_file" ] || { echo "suites: no suite file $suite_file (SUITES entries are NAME[:WORKERS] for assets/suites/NAME.toml, or a path to a .toml); nothing started" | tee -a "$OUT/suites.txt"; exit 1; }
    names+=("$suite") files+=("$suite_file") worker_counts+=("$workers")
  done
  work=${SUITES_DIR:-$(mktemp -d)}  # the full DBs stay there; exports come back
  mkdir -p "$work"
  for i in "${!names[@]}"; do
    suite=${names[$i]} suite_file=${files[$i]} workers=${worker_counts[$i]}
    # An earlier session's export of this suite: its done runs stay done, the rest train here.
    if [ -n "${SUITES_RESUME:-}" ] && [ -f "$SUITES_RESUME/${suite}_gpu.sqlite" ] && [ ! -f "$work/$suite.sqlite" ]; then
      cp "$SUITES_RESUME/${suite}_gpu.sqlite" "$work/$suite.sqlite" &&
        echo "$suite: resuming from $SUITES_RESUME/${suite}_gpu.sqlite" | tee -a "$OUT/suites.txt"
    fi
    (
      start=$(date +%s)
      OMP_NUM_THREADS=1 timeout -s KILL "$suites_timeout" "$worker" run "$suite_file" --scale "${SUITES_SCALE:-full}" \
        --db "$work/$suite.sqlite" --workers "$workers" --device "${SUITES_DEVICE:-cuda}" \
        ${SUITES_CHECKPOINT_INTERVAL:+--checkpoint-interval "$SUITES_CHECKPOINT_INTERVAL"} --quiet >>"$OUT/$suite.log" 2>&1
      echo "$suite ($workers workers): rc=$? after $(( $(date +%s) - start )) s" | tee -a "$OUT/suites.txt"
    ) &
  done
  wait
  # The timeout killed the `run`s outright (and, through its process group, their workers); any
  # worker left goes the same way. A run resumes from its last periodic
  # checkpoint, as after any SIGKILL (tested). Asked to stop instead, each would first write a
  # checkpoint with its AdamW state, ~0.5 GB a run at paper scale into one SQLite file per suite:
  # on 2026-11-26 that, with the exports, outlasted the 90 s a call had left after the timeout.
  # Only this script's: a worker of the same binary on another DB (a rehearsal of this script on
  # a machine that trains something else) is not touched. Not anchored: `run` starts its workers
  # by the binary's absolute path, of which a relative $worker is the tail.
  mine="$worker .*--db $work/"
  pkill -9 -f "$mine" 2>/dev/null
  for _ in $(seq 10); do pgrep -f "$mine" >/dev/null || break; sleep 1; done
  # Paper-scale weights are 40-90 MB a run in 16 bit: by default none travel back (8 files of 16
  # MB), and of the P_l / P_w snapshots the first and the last (h = 128: 0.8 MB each). Every
  # export keeps the losses whole and 64 points of each other series (lr, grad_norm,
  # tokens_per_s), as the shipped DB does (assets/results/README.md).
  weights_default=4
  snapshots=(--aux-series-points "${AUX_SERIES_POINTS:-64}")
  if [ "${SUITES_SCALE:-full}" = paper ]; then
    weights_default=0
    snapshots+=(--snapshots-per-run "${SNAPSHOTS_PER_RUN:-2}")
  fi
  exports=()
  counts=()
  for suite in "${names[@]}"; do  # the exports side by side
    rm -f "$work/${suite}_gpu.sqlite"
    "$worker" export --db "$work/$suite.sqlite" --results-only --done-only "${snapshots[@]}" \
      --weights-per-suite "${WEIGHTS_PER_SUITE:-$weights_default}" --out "$work/${suite}_gpu.sqlite" >"$work/$suite.export.txt" 2>&1 &
  done
  for suite in "${names[@]}"; do
    status_text=$("$worker" status --db "$work/$suite.sqlite" 2>&1)
    echo "$status_text" >>"$OUT/suites.txt"
    counts+=("$suite: $(echo "$status_text" | awk 'NR > 1 && $1 ~ /^[0-9]+$/ { n[$3]++ } END { for (s in n) printf "%s %d  ", s, n[s] }')")
  done
  wait
  for suite in "${names[@]}"; do
    cat "$work/$suite.export.txt" >>"$OUT/suites.txt"
    [ -s "$work/${suite}_gpu.sqlite" ] && grep -q "^exported" "$work/$suite.export.txt" && exports+=("${suite}_gpu.sqlite")
  done
  # At most 8 files come back from a borrowed machine: the exports travel as one archive, split
  # into 15 MB pieces (cat exports.tar.part-* | tar x).
  if [ ${#exports[@]} -gt 0 ]; then
    tar -C "$work" -cf - "${exports[@]}" | split -b 15M - "$OUT/exports.tar.part-"
  fi
  tar -C "$OUT" -czf "$OUT/suite_logs.tgz" $(cd "$OUT" && ls ./*.log 2>/dev/null) && rm -f "$OUT"/*.log

  printf '%s\n' "${counts[@]}"  # runs per status, per suite
fi
