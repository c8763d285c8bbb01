#!/usr/bin/env bash
# Stages the linux-docs corpus for a borrowed GPU machine, which has no Debian packages and gets
# at most 64 MiB carried: the text of Documentation/*.rst (translations left out) from Debian's
# linux-source-6.1, exactly as core/data/corpus.cpp reads it (same tar command, same bytes, so the
# same fingerprint and BPE caches), xz-compressed to ~5 MB in .gpu/corpora/. scripts/gpu_check.sh
# unpacks it into the worker's cache there, where `--corpus linux-docs` then finds it.
# With a built worker it also stages the BPE models the paper scales train on linux-docs (VOCABS,
# default "500 2000"), so that no worker process there spends its first half minute in spm_train.
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

worker=${WORKER_BIN:-build/app/worker/headroom-worker}
if [ -x "$worker" ]; then
  cache=$(mktemp -d)
  trap 'rm -rf "$cache"' EXIT
  xz -dc .gpu/corpora/linux-docs.txt.xz > "$cache/linux-docs.txt"
  for v in ${VOCABS:-500 2000}; do  # one tiny step trains (and caches) the vocabulary
    HEADROOM_CACHE_DIR=$cache "$worker" train --db "$cache/bpe.sqlite" --name "bpe-$v" --corpus linux-docs \
      --tokenizer "bpe:$v" --steps 1 --d-model 8 --heads 1 --layers 1 --context 8 --batch 1 --device cpu --quiet
  done
  rm -f .gpu/corpora/bpe-*
  cp "$cache"/bpe-*.model "$cache"/bpe-*.vocab .gpu/corpora/
  echo "staged $(cd .gpu/corpora && ls bpe-*.model | tr '\n' ' ')"
else
  echo "stage_corpora: no worker at $worker, so no BPE models staged (workers there will train them)"
fi
