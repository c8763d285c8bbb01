#!/usr/bin/env bash
# model_view_click_test.sh HEADROOM OUTDIR
# The model view ("all layers") in the real window (Xvfb + xdotool): a click on a head's tile opens
# that head enlarged in its layer's maps (checked through --state-out); with 16 heads a layer's
# heads wrap onto a second row, and a click there opens the head of that row.
set -u
headroom=$1 out=$2
. "$(cd "$(dirname "$0")/../gui" && pwd)/gui_test_lib.sh"
fresh_home "$out"

# click_and_check NAME LAB_JSON X Y LAYER HEAD MAPS: a click at (X, Y) must leave the lab in the
# maps view of LAYER with HEAD enlarged, MAPS maps drawn (the layer's heads plus the enlarged one).
click_and_check() {
  local name=$1 lab=$2 x=$3 y=$4
  mkdir -p "$out/$name"
  echo "{\"view\": \"Lab\", \"lab\": $lab}" >"$out/$name/scene.json"
  open_window "$out/$name" "$headroom" --scene "$out/$name/scene.json" --state-out "$out/$name/state.json"
  xdotool mousemove --window "$win" "$x" "$y" click 1 sleep 0.5 mousemove --window "$win" 5 790 sleep 0.3
  close_window "$name"
  state_equals "$name" "$out/$name/state.json" \
    '(j["lab"]["map_view"], j["lab"]["layer"], j["lab"]["enlarged_head"], j["heatmaps_drawn"])' "('maps', $5, $6, $7)"
}
# At 1280x800 the 3 x 4 tiles are ~130 px squares from x = 412, layer 1 from y = 465: its head 2.
click_and_check three_layers '{"d": 32, "heads": 4, "layers": 3, "map_view": "all layers",
  "text": "In the beginning God created the heaven and the earth."}' 790 530 1 2 5
# 2 layers x 16 heads: 2 rows of 8 ~95 px tiles a layer; layer 0's second row from y = 420, head 9
# second from the left (under one row of 16 there is nothing at this point).
click_and_check wrapped '{"d": 64, "heads": 16, "layers": 2, "map_view": "all layers",
  "text": "In the beginning God created the heaven and the earth."}' 557 470 0 9 17
echo PASS
