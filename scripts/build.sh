#!/usr/bin/env bash
# Configures and builds Headroom into build/ (Release with line tables). Extra args go to cmake.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS="${HEADROOM_JOBS:-$(nproc)}"
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja "$@"
elif [ $# -gt 0 ]; then
  cmake -S . -B build "$@"
fi
cmake --build build -j "$JOBS"
