#!/usr/bin/env bash
# Sets up (installs missing Debian packages), builds and runs every test. CI calls this.
# With --sanitize [address|thread]: the tests under sanitizers instead (scripts/sanitize.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [ "${1:-}" = "--sanitize" ]; then
  shift
  exec bash scripts/sanitize.sh "$@"
fi
bash scripts/build.sh
# One thread per test process (OpenBLAS and torch's pool, which the worker sizes from
# OMP_NUM_THREADS): ctest runs two processes on two cores. Tests of the parallel kernels set their
# own thread counts.
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
ctest --test-dir build --output-on-failure -j "${HEADROOM_JOBS:-$(nproc)}" "$@"
