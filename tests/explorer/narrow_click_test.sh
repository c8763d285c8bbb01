#!/usr/bin/env bash
# narrow_click_test.sh HEADROOM OUTDIR
# In a window too narrow for the suite column (1024 px: the table hides it), a click on a row still
# selects that run: the row's selectable lies in its first column shown, not in the hidden one; and
# the name's tooltip says the suite the column would have.
set -u
headroom=$1 out=$2
. "$(cd "$(dirname "$0")/../gui" && pwd)/gui_test_lib.sh"
fresh_home "$out"
# The ten runs of lrb-head-size-seeds, all selected by default (the newest suite the filter keeps).
printf '%s\n' '{"view": "Explorer", "explorer": {"db": "@results", "filter": "lrb-head-size-seeds"}}' >"$out/scene.json"
HEADROOM_TEST_SIZE=1024x768 open_window "$out" "$headroom" --scene "$out/scene.json" --state-out "$out/state.json"
# At 1024x768 the table's rows start at y = 189, 20 px apart; the third is d_k=16,seed=1.
xdotool mousemove --window "$win" 150 230 sleep 0.3 click 1 sleep 1
close_window narrow_click
state_equals dropped "$out/state.json" 'j["explorer"]["table_columns_dropped"] >= 7' True
state_equals selected "$out/state.json" 'j["explorer"]["selected"]' 1
state_equals focused "$out/state.json" 'j["explorer"]["focused"]' "'lrb-head-size-seeds/fixed-head/d_k=16,seed=1'"
# With the suite column hidden, the name under the mouse shows whole, its suite included.
state_equals tooltip "$out/state.json" 'j.get("tooltip")' "'lrb-head-size-seeds/fixed-head/d_k=16,seed=1'"
echo PASS
