#!/usr/bin/env bash
# paper_menu_test.sh HEADROOM OUTDIR
# File > Open paper-scale results > th_extreme_heads, clicked in a real window from the lab: the
# explorer comes forward with that suite's shipped paper-scale export open (its 4 runs).
set -u
headroom=$1 out=$2
. "$(cd "$(dirname "$0")/../gui" && pwd)/gui_test_lib.sh"
fresh_home "$out"

open_window "$out" "$headroom" --state-out "$out/state.json"
# At 1280x800: File at (25, 12); its fourth item, "Open paper-scale results", at y = 106; the
# submenu opens to its right with th_extreme_heads first, at (390, 106).
xdotool mousemove --window "$win" 25 12 click 1 sleep 0.4 mousemove --window "$win" 80 106 sleep 0.4 \
  mousemove --window "$win" 200 106 sleep 0.2 mousemove --window "$win" 390 106 sleep 0.4 click 1 sleep 2
close_window menu
state_equals view "$out/state.json" 'j.get("view")' "'Explorer'"
state_equals db "$out/state.json" 'j["explorer"]["db"].endswith("/results/paper/th_extreme_heads_gpu.sqlite")' True
state_equals runs "$out/state.json" 'j["explorer"]["runs"]' 4
state_equals error "$out/state.json" 'j["explorer"]["error"]' "''"
echo PASS
