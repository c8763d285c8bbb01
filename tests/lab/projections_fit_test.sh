#!/usr/bin/env bash
# projections_fit_test.sh HEADROOM OUTDIR
# The P_l / P_w tab on a trained run whose P_w is tall (th-head-dims/6-24-6 at full scale: h_k 4,
# h 16, h_v 4, so P_w is 16 x 4): each of the three maps and its measures stay inside the panel, at
# 1280 x 800 and 1024 x 768 (at its column's width, that P_w would be four times as tall as wide).
set -u
headroom=$1 out=$2
. "$(cd "$(dirname "$0")/../gui" && pwd)/gui_test_lib.sh"
require_xvfb
mkdir -p "$out"
cat >"$out/scene.json" <<'JSON'
{"view": "Explorer", "explorer": {"db": "@results", "open_in_lab": "th-head-dims/6-24-6/seed=0"},
 "lab": {"tab": "projections"}}
JSON
for size in 1280x800 1024x768; do
  in_xvfb "$headroom" --scene "$out/scene.json" --size "$size" --screenshot "$out/$size.png" --frames 150 \
    --state-out "$out/$size.json" || fail "$size: headroom exited with $?"
  python3 - "$out/$size.json" <<'PY' || fail "$size: state check failed ($out/$size.json)"
import json, sys
j = json.load(open(sys.argv[1]))
snap = j.get("lab_snapshot", {})
heads = j.get("model", {}).get("attention", {})
print("view", j.get("view"), "heads_k/h/h_v", heads.get("heads_k"), heads.get("heads"), heads.get("heads_v"),
      "maps", j.get("heatmaps_drawn"), "cut off", snap.get("projections_cut_off"))
ok = (j.get("view") == "Lab" and heads.get("heads", 0) >= 4 * heads.get("heads_v", 99) and
      j.get("heatmaps_drawn") == 3 and snap.get("projections_cut_off") == 0)
sys.exit(0 if ok else 1)
PY
done
echo PASS
