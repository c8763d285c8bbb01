#!/usr/bin/env bash
# Shoots the README's screenshots again from the scenes in docs/images/scenes/ (one PNG per scene,
# same name, 1280x800), on the shipped results DB (@results) where a scene opens it, so the
# pictures show trained heads and stored runs. Needs a build (scripts/build.sh) and Xvfb.
#   bash scripts/readme_images.sh [SCENE_NAME ...]     (default: every scene)
# HEADROOM (the GUI, default build/app/gui/headroom), OUT_DIR (default docs/images) and STATE_DIR
# (each scene's --state-out JSON; default a temporary folder) are for the test that runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
exe=${HEADROOM:-build/app/gui/headroom}
out=${OUT_DIR:-docs/images}
[ -x "$exe" ] || { echo "readme_images: $exe not found; run scripts/build.sh first" >&2; exit 2; }
command -v xvfb-run >/dev/null || { echo "readme_images: xvfb-run not found (apt install xvfb xauth)" >&2; exit 2; }
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for f in docs/images/scenes/*.json; do names+=("$(basename "$f" .json)"); done
fi
state=${STATE_DIR:-}
if [ -z "$state" ]; then
  state=$(mktemp -d)
  trap 'rm -rf "$state"' EXIT
fi
mkdir -p "$out" "$state"
for name in "${names[@]}"; do
  scene=docs/images/scenes/$name.json
  [ -f "$scene" ] || { echo "readme_images: no scene $scene" >&2; exit 2; }
  xvfb-run -a -s "-screen 0 1280x800x24" "$exe" --scene "$scene" --size 1280x800 \
    --screenshot "$out/$name.png" --frames 150 --state-out "$state/$name.json"
  # The app's PNG encoder (stb's) writes ~40% more than needed; recompressed losslessly where
  # optipng is installed, the repository (and what a GPU call carries, 64 MiB) stays smaller.
  if command -v optipng >/dev/null; then optipng -quiet -o2 "$out/$name.png"; fi
  echo "$out/$name.png"
done
