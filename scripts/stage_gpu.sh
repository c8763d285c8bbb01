#!/usr/bin/env bash
# Everything a borrowed GPU machine needs from this one, in .gpu/ (git-ignored), ready to carry:
# the Debian packages the build needs (../shared/gpu/stage.sh, plus ICU's headers), the linux-docs
# corpus and its BPE models (scripts/stage_corpora.sh), and a check that the checkout and .gpu
# together fit the 64 MiB a call carries. The GPU build is configured without ICU's libraries
# (-DHEADROOM_ICU=OFF: a worker that trains; real models' tokenizers refuse to load there), which
# took 9.4 MB of .gpu: on 2026-12-06 the checkout (47 MiB) and .gpu with them (21 MiB) no longer
# fitted. It uses ICU's header-only UTF-8 macros, so libicu-dev travels, repacked without its
# static libraries (42 MB unpacked, ~9 MB of the .deb) into 0.7 MB.
#   bash scripts/stage_gpu.sh        then, there: bash scripts/gpu_check.sh ... (carry .gpu)
set -euo pipefail
cd "$(dirname "$0")/.."
stage=${HEADROOM_GPU_STAGE:-../shared/gpu/stage.sh}
[ -f "$stage" ] || { echo "stage_gpu: $stage is missing (the shared GPU staging script)" >&2; exit 2; }
bash "$stage" libicu-dev
rm -f .gpu/debs/libicu72_*.deb  # an earlier staging's ICU libraries: the GPU build has no use for them

deb=$(ls .gpu/debs/libicu-dev_*.deb)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dpkg-deb -R "$deb" "$work/pkg"
find "$work/pkg" -name '*.a' -delete
sed -i '/\.a$/d' "$work/pkg/DEBIAN/md5sums" 2>/dev/null || true
dpkg-deb -Zxz -b "$work/pkg" "$deb" >/dev/null
echo "repacked $(basename "$deb") without static libraries: $(stat -c %s "$deb") bytes"

bash scripts/stage_corpora.sh

limit=$((64 * 1024 * 1024))
tracked=$(git ls-files -z | xargs -0 stat -c %s 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
untracked=$(git ls-files -z -o --exclude-standard | xargs -0 -r stat -c %s | awk '{ s += $1 } END { print s + 0 }')
staged=$(du -sb .gpu | cut -f1)
total=$((tracked + untracked + staged))
echo "a call carries $((total / 1048576)) MiB of 64: checkout $(((tracked + untracked) / 1048576)) MiB, .gpu $((staged / 1048576)) MiB"
[ "$total" -le "$limit" ] || { echo "stage_gpu: over the 64 MiB a call carries" >&2; exit 1; }
