#!/usr/bin/env bash
# scripts/test.sh --sanitize [address|thread] [ctest args...]
#   address (default with no argument: both, address first): every test, built with
#     AddressSanitizer + UndefinedBehaviorSanitizer into build-asan/ (the tests that open a window,
#     label "window", without leak detection: the GL driver's own allocations at exit);
#   thread: the GUI's thread hand-offs -- the explorer's loader, table orderer, figure builder and worker process,
#     the mailbox, the lab engine and the Theorem 1 demo -- built with ThreadSanitizer into
#     build-tsan/.
# A report fails the test it came from. Suppressions (tests/sanitize/*.supp) cover only libraries
# Headroom does not build (LibTorch, OpenMP, Mesa), each with its reason.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS="${HEADROOM_JOBS:-$(nproc)}"
here=$(pwd)
kinds=("${1:-address}")
if [ $# -eq 0 ]; then kinds=(address thread); fi
if [ $# -gt 0 ]; then shift; fi

for kind in "${kinds[@]}"; do
  case "$kind" in
  address)
    dir=build-asan
    # Not run here: the style check, and the clang fuzz build (sanitized on its own).
    select=(-E "format_check|fuzz_smoke")
    # The suppressions from a copy: install_and_package moves the source tree away while it runs.
    supp=$(mktemp -d)
    cp tests/sanitize/*.supp "$supp/"
    # allocator_may_return_null: an allocation too large to make returns null, as it does without
    # ASan, instead of aborting: the worker's out-of-memory message is tested (TrainCli).
    export ASAN_OPTIONS="detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1:allocator_may_return_null=1"
    export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
    export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$supp/ubsan.supp"
    ;;
  thread)
    dir=build-tsan
    select=(-R "ExplorerLoader|TableOrder|FigureBuilder|WorkerProcess|Mailbox|LabEngine|TheoremDemo|BackgroundDisposer")
    export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$here/tests/sanitize/tsan.supp"
    ;;
  *)
    echo "sanitize: unknown sanitizer '$kind'; use address or thread" >&2
    exit 2
    ;;
  esac
  echo "== $kind: building $dir"
  if [ ! -f "$dir/build.ninja" ]; then
    cmake -S . -B "$dir" -G Ninja -DHEADROOM_SANITIZE="$kind" -DCMAKE_BUILD_TYPE=RelWithDebInfo
  fi
  if [ "$kind" = thread ]; then
    cmake --build "$dir" -j "$JOBS" --target explorer_tests gui_tests lab_tests headroom-worker
  else
    cmake --build "$dir" -j "$JOBS"
  fi
  echo "== $kind: testing"
  if [ "$kind" = address ]; then
    # Tests that open a window (label "window") run with leak detection off: Mesa's llvmpipe driver
    # leaves allocations at exit, some in a module it has already unloaded, which no suppression can
    # name. Use-after-free, overflows and UB are still caught there; every other test checks leaks.
    status=0
    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 ctest --test-dir "$dir" --output-on-failure -j "$JOBS" "${select[@]}" \
      -LE window "$@" || status=$?
    ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 \
      ctest --test-dir "$dir" --output-on-failure -j "$JOBS" "${select[@]}" -L window "$@" || status=$?
    [ "$status" -eq 0 ] || exit "$status"
  else
    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 ctest --test-dir "$dir" --output-on-failure -j "$JOBS" "${select[@]}" "$@"
  fi
done
