#!/usr/bin/env bash
# format_check.sh SOURCE_DIR: fails when a C++ file differs from what .clang-format makes of it.
# Skips (77) where clang-format is not installed (scripts/setup.sh installs it) or the source is
# not a git checkout (the file list comes from git).
set -u
cd "$1" || exit 2
command -v clang-format >/dev/null || { echo "SKIP: clang-format is not installed"; exit 77; }
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "SKIP: not a git checkout"; exit 77; }
exec bash scripts/format.sh --check
