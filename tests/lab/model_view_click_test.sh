#!/usr/bin/env bash
# model_view_click_test.sh HEADROOM OUTDIR
# The model view ("all layers") in the real window (Xvfb + xdotool): a click on a head's tile opens
# that head enlarged in its layer's maps (checked through --state-out); with 16 heads a layer's
# heads wrap onto a second row, and a click there opens the head of that row.
set -u
headroom=$1 out=$2
. "$(cd "$(dirname "$0")/../gui" && pwd)/gui_test_lib.sh"
fresh_home "$out"

# click_and_check NAME LAB_JSON LAYER HEAD MAPS ROWS: each layer's heads in ROWS rows; a click on the tile of LAYER's HEAD must leave the
# lab in the maps view of LAYER with HEAD enlarged, MAPS maps drawn (the layer's heads plus the
# enlarged one). Where the tile is comes from a first run's --state-out (the model view's tile
# centres): text above the view (a badge's wording) moves it.
click_and_check() {
  local name=$1 lab=$2 layer=$3 head=$4 maps=$5 rows=$6
  mkdir -p "$out/$name"
  echo "{\"view\": \"Lab\", \"lab\": $lab}" >"$out/$name/scene.json"
  in_xvfb "$headroom" --scene "$out/$name/scene.json" --size 1280x800 --frames 60 \
    --state-out "$out/$name/layout.json" || fail "$name: headroom exited with $?"
  state_equals "$name" "$out/$name/layout.json" 'j["model_view"]["rows"]' "$rows"
  read -r x y <<<"$(python3 - "$out/$name/layout.json" "$layer" "$head" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for l, h, x, y in j["model_view"]["tile_centres"]:
    if int(l) == int(sys.argv[2]) and int(h) == int(sys.argv[3]):
        print(round(x), round(y))
PY
)"
  [ -n "${y:-}" ] || fail "$name: no tile for layer $layer head $head in $out/$name/layout.json"
  open_window "$out/$name" "$headroom" --scene "$out/$name/scene.json" --state-out "$out/$name/state.json"
  xdotool mousemove --window "$win" "$x" "$y" click 1 sleep 0.5 mousemove --window "$win" 5 790 sleep 0.3
  close_window "$name"
  state_equals "$name" "$out/$name/state.json" \
    '(j["lab"]["map_view"], j["lab"]["layer"], j["lab"]["enlarged_head"], j["heatmaps_drawn"])' "('maps', $layer, $head, $maps)"
}
# 3 layers of 4 heads: layer 1's head 2.
click_and_check three_layers '{"d": 32, "heads": 4, "layers": 3, "map_view": "all layers",
  "text": "In the beginning God created the heaven and the earth."}' 1 2 5 1
# 2 layers x 16 heads: 2 rows of 8 tiles a layer; a click on layer 0's head 9, on its second row.
click_and_check wrapped '{"d": 64, "heads": 16, "layers": 2, "map_view": "all layers",
  "text": "In the beginning God created the heaven and the earth."}' 0 9 17 2
echo PASS
