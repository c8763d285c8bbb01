#!/usr/bin/env bash
# suite_column_test.sh HEADROOM ASSETS OUTDIR
# The run table's suite column is as wide as the open DB's suite names. ImGui keeps a fixed
# column's first width, so a second DB with longer names must resize it: start on a paper-scale
# export (one short suite name, the column at its least width), open the papers' results from
# the File menu with the filter "wide-keys" (suites up to "th-weights-proj-wide-keys"), and no
# suite name in view is cut short.
set -u
headroom=$1 assets=$2 out=$3
. "$(cd "$(dirname "$0")/../gui" && pwd)/gui_test_lib.sh"
fresh_home "$out"
cp "$assets/results/paper/th_extreme_heads_gpu.sqlite" "$out/short.sqlite"
printf '%s\n' '{"view": "Explorer", "explorer": {"filter": "wide-keys"}}' > "$out/scene.json"

open_window "$out" "$headroom" --db "$out/short.sqlite" --scene "$out/scene.json" --state-out "$out/state.json"
# At 1280x800: File at (25, 12); its third item, "Open the papers' results", at y = 84.
xdotool mousemove --window "$win" 25 12 click 1 sleep 0.4 mousemove --window "$win" 80 84 sleep 0.4 click 1 sleep 3
close_window suite_column
state_equals db "$out/state.json" 'j["explorer"]["db"].endswith("/results/headroom_results.sqlite")' True
state_equals shown "$out/state.json" 'j["explorer"]["runs_shown"] >= 10' True
state_equals suites_clipped "$out/state.json" 'j["explorer"]["table_suites_clipped"]' 0
echo PASS
