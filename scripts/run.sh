#!/usr/bin/env bash
# Sets up, builds and opens the Headroom GUI. Arguments go to `headroom`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
exec build/app/gui/headroom "$@"
