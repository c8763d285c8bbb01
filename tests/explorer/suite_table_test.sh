#!/usr/bin/env bash
# suite_table_test.sh HEADROOM OUTDIR
# On a first launch the explorer's empty database lists the shipped suites, what each reproduces and
# its runs per scale; a click on a row picks that suite for Enqueue, whose run count is the suite's
# (lrb_heads at quick scale: 6 runs, as `headroom-worker enqueue` would add). In a narrow window the
# suite combo's open list stays inside the window, its descriptions wrapped (vb_depth_width's runs to
# some 200 characters).
set -u
headroom=$1 out=$2
. "$(cd "$(dirname "$0")/../gui" && pwd)/gui_test_lib.sh"
fresh_home "$out"
open_window "$out" "$headroom" --view Explorer --state-out "$out/state.json"
wait_for_state "$out/state.json" 'j["explorer"]["suites"] >= 12 and j["explorer"]["enqueue"] == "lrb_head_size quick" and "lrb_heads" in j["explorer"]["suite_rows"]' 60 ||
  fail "the explorer never offered the first suite: $(cat "$out/state.json")"
# The row of lrb_heads, where the window says it drew it (its top; rows are at least one line tall).
y=$(python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["explorer"]["suite_rows"]["lrb_heads"]) + 8)' \
  "$out/state.json") || fail "no row of lrb_heads in the suite table: $(cat "$out/state.json")"
xdotool mousemove --window "$win" 60 "$y" sleep 0.3 click 1 sleep 1
close_window suite_table
state_equals picked "$out/state.json" 'j["explorer"]["enqueue"]' "'lrb_heads quick'"
state_equals runs "$out/state.json" 'j["explorer"]["enqueue_runs"]' 6
state_equals tooltip "$out/state.json" 'j.get("tooltip", "").split("\n")[0]' \
  "'lrb_heads (LRB): LRB Fig. 1a / 3a: LM loss vs number of heads, standard head size d/h vs fixed head size d_p'"

fresh_home "$out/narrow"
HEADROOM_TEST_SIZE=900x700 open_window "$out/narrow" "$headroom" --view Explorer --state-out "$out/narrow.json"
wait_for_state "$out/narrow.json" 'j["explorer"]["suites"] >= 12 and len(j["explorer"]["suite_combo"]) == 4 and j["explorer"]["suite_list"] == []' 60 ||
  fail "the narrow explorer never drew its suite combo: $(cat "$out/narrow.json")"
# A click in the middle of the suite combo, where the window says it drew it.
read -r x y < <(python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["explorer"]["suite_combo"]; print(int((c[0]+c[2])/2), int((c[1]+c[3])/2))' \
  "$out/narrow.json") || fail "no suite combo drawn: $(cat "$out/narrow.json")"
xdotool mousemove --window "$win" "$x" "$y" sleep 0.3 click 1 sleep 0.5
wait_for_state "$out/narrow.json" 'len(j["explorer"]["suite_list"]) == 5' 20 ||
  fail "a click on the suite combo did not open its list: $(cat "$out/narrow.json")"
# [left, top, right, bottom, the right end of its longest line]: ImGui keeps a popup inside the window
# by itself, but cuts off whatever runs past the popup's edge.
state_equals list_inside "$out/narrow.json" \
  'j["explorer"]["suite_list"][0] >= 0 and j["explorer"]["suite_list"][2] <= j["window"]["width"]' True
state_equals lines_inside "$out/narrow.json" 'j["explorer"]["suite_list"][4] <= j["explorer"]["suite_list"][2]' True
close_window narrow_suite_list
echo PASS
