#!/usr/bin/env bash
# model_view_click_test.sh HEADROOM OUTDIR
# The model view ("all layers") in the real window (Xvfb + xdotool): a click on a head's tile opens
# that head enlarged in its layer's maps (checked through --state-out).
set -u
headroom=$1 out=$2
. "$(cd "$(dirname "$0")/../gui" && pwd)/gui_test_lib.sh"
rm -rf "$out" && mkdir -p "$out/home"
export HOME="$out/home" XDG_DATA_HOME="$out/home/data"
cat >"$out/scene.json" <<'JSON'
{"view": "Lab", "lab": {"d": 32, "heads": 4, "layers": 3, "map_view": "all layers",
 "text": "In the beginning God created the heaven and the earth."}}
JSON
open_window "$out" "$headroom" --scene "$out/scene.json" --state-out "$out/state.json"
# At 1280x800 the 3 x 4 tiles are ~130 px squares from x = 412, layer 1 from y = 465: its head 2.
xdotool mousemove --window "$win" 790 530 click 1 sleep 0.5 mousemove --window "$win" 5 790 sleep 0.3
xdotool key --window "$win" ctrl+q
wait $app || fail "headroom exited with $?"
python3 - "$out/state.json" <<'PY' || fail "state check failed ($out/state.json)"
import json, sys
j = json.load(open(sys.argv[1]))
lab = j["lab"]
print("view", lab["map_view"], "layer", lab["layer"], "enlarged", lab["enlarged_head"], "maps", j["heatmaps_drawn"])
# The layer's 4 maps plus the enlarged one.
sys.exit(0 if (lab["map_view"], lab["layer"], lab["enlarged_head"], j["heatmaps_drawn"]) == ("maps", 1, 2, 5) else 1)
PY
echo PASS
