#!/usr/bin/env bash
# Installs the Debian (bookworm) packages Headroom needs — only the missing ones.
# Idempotent: a second run installs nothing and prints "all present".
# Then the npm package the GPT-2 tokenizer's peer test compares with (tests/text/gpt2_peer_test.cpp),
# into $HEADROOM_NPM_DIR (default ~/.cache/headroom/npm), if it is not there yet.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config
  libtorch-dev libopenblas0-pthread         # LibTorch 1.13; OpenBLAS or torch falls back to reference BLAS
  libeigen3-dev libsqlite3-dev sentencepiece  # spm_train trains BPE vocabularies (not linked: see core/data/tokenizer.cpp)
  nlohmann-json3-dev libtomlplusplus-dev libcli11-dev libstb-dev libgtest-dev
  libimgui-dev libglfw3-dev libgl-dev
  bible-kjv fonts-dejavu-core fonts-dejavu-extra  # the real corpus; the GUI's fonts (extra: a lesson's italics)
  linux-source-6.1                          # the second corpus, linux-docs (the kernel's Documentation/ prose)
  xvfb xauth xdotool libgl1-mesa-dri        # GUI tests in a virtual display (Mesa llvmpipe renders there)
  clang-format                              # the style check (tests/format_check.sh)
  clang libclang-rt-14-dev                  # libFuzzer + sanitizers for the fuzz targets (scripts/fuzz.sh)
  dpkg-dev lintian appstream man-db         # the .deb (CPack's dpkg-shlibdeps), its checks (install_and_package)
  slurm-wlm munge                           # a loopback Slurm cluster for the slurm_cluster test
  libicu-dev                                # Unicode for the tokenizers of real models (headroom_text)
  nodejs npm                                # runs gpt-3-encoder, the GPT-2 tokenizer's reference (peer test)
)
GPT3_ENCODER="gpt-3-encoder@1.1.4"
NPM_DIR="${HEADROOM_NPM_DIR:-$HOME/.cache/headroom/npm}"

install_npm_peers() {
  if [ -f "$NPM_DIR/node_modules/gpt-3-encoder/Encoder.js" ]; then return; fi
  echo "setup: npm install $GPT3_ENCODER into $NPM_DIR"
  npm install --prefix "$NPM_DIR" --no-audit --no-fund --loglevel=error "$GPT3_ENCODER"
}

missing=()
for p in "${PACKAGES[@]}"; do
  # NodeSource's nodejs ships npm itself and conflicts with Debian's npm package.
  if [ "$p" = npm ] && command -v npm >/dev/null; then continue; fi
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
  install_npm_peers
  exit 0
fi

echo "setup: installing ${#missing[@]} missing packages: ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
install_npm_peers
echo "setup: done"
