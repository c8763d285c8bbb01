#!/usr/bin/env bash
# drag_heads_test.sh HEADROOM OUTDIR
# Drags the "h (heads)" slider in the real window (Xvfb + xdotool) and checks through
# --state-out that the model and the number of head maps drawn changed with it.
set -u
headroom=$1 out=$2
. "$(cd "$(dirname "$0")/../gui" && pwd)/gui_test_lib.sh"
mkdir -p "$out"
rm -f "$out/state.json"
# A fixed head size, so that every head count is a valid model (LRB §3).
cat >"$out/scene.json" <<'JSON'
{"view": "Lab", "lab": {"kind": "fixed-head", "standard_head_size": false, "head_size": 8, "d": 64, "heads": 8,
 "text": "In the beginning God created the heaven and the earth."}}
JSON
# Enough frames to outlast the drag on any machine (open_window); Ctrl+Q ends the run once the drag
# is done (a fixed frame count raced the drag when frames got faster).
open_window "$out" "$headroom" --scene "$out/scene.json" --state-out "$out/state.json"
# The heads slider is the second slider of the controls, under the untrained model's "Open a
# trained run" offer: y = 220 at 1280x800; 8 of 1..64 sits near x = 44. Drag it to the right.
xdotool mousemove --window "$win" 44 220 mousedown 1 sleep 0.2 mousemove --window "$win" 90 220 sleep 0.2 \
  mousemove --window "$win" 140 220 sleep 0.2 mouseup 1
sleep 1  # let the engine publish the new model and a frame draw its maps
xdotool key --window "$win" ctrl+q
wait $app || { echo "FAIL: headroom exited with $?"; exit 1; }
[ -f "$out/state.json" ] || { echo "FAIL: no state written"; exit 1; }
heads=$(grep -o '"heads": [0-9]*' "$out/state.json" | head -n 1 | grep -o '[0-9]*$')
maps=$(grep -o '"heatmaps_drawn": [0-9]*' "$out/state.json" | grep -o '[0-9]*$')
model_heads=$(sed -n '/"model"/,/}/p' "$out/state.json" | grep -o '"heads": [0-9]*' | head -n 1 | grep -o '[0-9]*$')
echo "after the drag: lab.heads=$heads model heads=$model_heads maps drawn=$maps"
[ "${heads:-8}" -gt 8 ] || { echo "FAIL: the heads slider did not move (heads=$heads)"; exit 1; }
[ "$model_heads" = "$heads" ] || { echo "FAIL: the model has $model_heads heads, the slider says $heads"; exit 1; }
[ "$maps" = "$heads" ] || { echo "FAIL: $maps head maps drawn for $heads heads"; exit 1; }
echo PASS
