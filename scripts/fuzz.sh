#!/usr/bin/env bash
# Fuzzes what Headroom reads from other people's files, with libFuzzer + ASan + UBSan:
#   filter       the explorer's filter language
#   flat_config  run configs as a DB stores them
#   safetensors  checkpoints and P_l / P_w snapshots
#   db_open      arbitrary bytes opened as an experiments DB (seeded with a valid one)
#   scene        scene files (--scene, File > Open scene)
#   csv_matrix   represent's CSV matrices
#   lesson       lesson files (TOML, their markdown and formulas, the player)
#   suite        suite files (TOML, per-scale grids expanded into validated run configs)
#   hf_config    a downloaded checkpoint's config.json
#   hf_checkpoint its weights: model.safetensors, or the index and a shard (headers read, tensors converted)
#   tokenizer    the tokenizer files beside it (tokenizer.json; vocab.json + merges.txt; vocab.txt),
#                and any text encoded with what they make
# Usage: scripts/fuzz.sh [SECONDS per target, default 60] [TARGET ...]
# Builds fuzz/ with clang into build-fuzz/. Corpora grow in build-fuzz/corpus/; the seeds in
# fuzz/corpus/ are read, never written. A finding leaves build-fuzz/findings/<target>/crash-* and
# makes the script exit 1: fix it and keep the input in fuzz/corpus/<target>/ as a regression.
# Prints one markdown row per target (executions, seconds, result) for the README.
# HEADROOM_FUZZ_RNG_SEED=N fixes libFuzzer's random seed (-seed=N), so a run's inputs are the same
# on every machine up to how many it reaches in the time; the test suite's smoke run uses it, so CI
# checks what was fuzzed here rather than drawing new inputs on every run (unseeded, each run
# explores afresh: what a fuzzing session wants).
# Exit: 0 clean, 1 a finding, 2 cannot build (no clang), 77 skipped (HEADROOM_FUZZ_SKIP_OK=1
# and no clang: what the test suite uses).
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER="${1:-60}"
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(filter flat_config safetensors db_open scene csv_matrix lesson suite hf_config hf_checkpoint tokenizer)

CXX_FUZZ="$(command -v clang++ || command -v clang++-14 || true)"
if [ -z "$CXX_FUZZ" ]; then
  echo "fuzz.sh: clang++ not found; the fuzz targets need clang's libFuzzer (apt-get install clang)" >&2
  [ "${HEADROOM_FUZZ_SKIP_OK:-0}" = 1 ] && exit 77
  exit 2
fi
BUILD="${HEADROOM_FUZZ_BUILD:-build-fuzz}"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S fuzz -B "$BUILD" -G Ninja -DCMAKE_CXX_COMPILER="$CXX_FUZZ" "${launcher[@]}" >/dev/null
cmake --build "$BUILD" -j2 >/dev/null || { echo "fuzz.sh: building the fuzz targets failed" >&2; cmake --build "$BUILD" -j1 | tail -20 >&2; exit 2; }

rng=()
[ -n "${HEADROOM_FUZZ_RNG_SEED:-}" ] && rng=(-seed="$HEADROOM_FUZZ_RNG_SEED")

status=0
echo "| fuzz target | seconds | executions | result |"
echo "|---|---|---|---|"
for t in "${TARGETS[@]}"; do
  corpus="$BUILD/corpus/$t" findings="$BUILD/findings/$t"
  mkdir -p "$corpus" "$findings"
  seeds=()
  [ -d "fuzz/corpus/$t" ] && seeds=("fuzz/corpus/$t")
  [ "$t" = db_open ] && HEADROOM_FUZZ_SEED="$corpus/seed.sqlite" "$BUILD/fuzz_$t" -runs=0 "$corpus" >/dev/null 2>&1
  log="$BUILD/$t.log"
  if "$BUILD/fuzz_$t" -max_total_time="$SECONDS_PER" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "${rng[@]}" \
      -artifact_prefix="$findings/" "$corpus" "${seeds[@]}" >"$log" 2>&1; then
    result="no finding"
  else
    result="FINDING: $(ls "$findings" | head -1) (see $log)"
    status=1
  fi
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  echo "| $t | $SECONDS_PER | $execs | $result |"
done
exit $status
