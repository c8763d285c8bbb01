#!/usr/bin/env bash
# Stages the linux-docs corpus for a borrowed GPU machine, which has no Debian packages and gets
# at most 64 MiB carried: the text of Documentation/*.rst (translations left out) from Debian's
# linux-source-6.1, exactly as core/data/corpus.cpp reads it (same tar command, same bytes, so the
# same fingerprint and BPE caches), xz-compressed to ~5 MB in .gpu/corpora/. scripts/gpu_check.sh
# unpacks it into the worker's cache there, where `--corpus linux-docs` then finds it.
#   bash scripts/stage_corpora.sh        (needs linux-source-6.1: apt-get install linux-source-6.1)
set -euo pipefail
cd "$(dirname "$0")/.."
tarball=${HEADROOM_LINUX_SOURCE:-/usr/src/linux-source-6.1.tar.xz}
[ -f "$tarball" ] || { echo "stage_corpora: $tarball is missing; apt-get install linux-source-6.1" >&2; exit 2; }
mkdir -p .gpu/corpora
tar -xJf "$tarball" --wildcards '--exclude=*/Documentation/translations/*' -O '*/Documentation/*.rst' |
  xz -6 -T0 > .gpu/corpora/linux-docs.txt.xz.tmp
mv .gpu/corpora/linux-docs.txt.xz.tmp .gpu/corpora/linux-docs.txt.xz
echo "staged .gpu/corpora/linux-docs.txt.xz ($(stat -c %s .gpu/corpora/linux-docs.txt.xz) bytes, $(xz -dc .gpu/corpora/linux-docs.txt.xz | wc -c) bytes of text)"
