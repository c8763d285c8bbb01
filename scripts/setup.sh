#!/usr/bin/env bash
# Installs the Debian (bookworm) packages Headroom needs — only the missing ones.
# Idempotent: a second run installs nothing and prints "all present".
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config
  libtorch-dev libopenblas0-pthread         # LibTorch 1.13; OpenBLAS or torch falls back to reference BLAS
  libeigen3-dev libsqlite3-dev sentencepiece  # spm_train trains BPE vocabularies (not linked: see core/data/tokenizer.cpp)
  nlohmann-json3-dev libtomlplusplus-dev libcli11-dev libstb-dev libgtest-dev
  libimgui-dev libglfw3-dev libgl-dev
  bible-kjv fonts-dejavu-core fonts-dejavu-extra  # the real corpus; the GUI's fonts (extra: a lesson's italics)
  xvfb xauth xdotool libgl1-mesa-dri        # GUI tests in a virtual display (Mesa llvmpipe renders there)
  clang-format                              # the style check (tests/format_check.sh)
  clang libclang-rt-14-dev                  # libFuzzer + sanitizers for the fuzz targets (scripts/fuzz.sh)
  dpkg-dev lintian appstream man-db         # the .deb (CPack's dpkg-shlibdeps), its checks (install_and_package)
  slurm-wlm munge                           # a loopback Slurm cluster for the slurm_cluster test
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
  exit 0
fi

echo "setup: installing ${#missing[@]} missing packages: ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "setup: done"
