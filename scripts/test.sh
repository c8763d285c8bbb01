#!/usr/bin/env bash
# Sets up (installs missing Debian packages), builds and runs every test. CI calls this.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
# One OpenBLAS thread per test process: ctest runs two processes on two cores.
export OPENBLAS_NUM_THREADS=1
ctest --test-dir build --output-on-failure -j "${HEADROOM_JOBS:-$(nproc)}" "$@"
