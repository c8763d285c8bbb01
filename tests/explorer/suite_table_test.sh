#!/usr/bin/env bash
# suite_table_test.sh HEADROOM OUTDIR
# On a first launch the explorer's empty database lists the shipped suites, what each reproduces and
# its runs per scale; a click on a row picks that suite for Enqueue, whose run count is the suite's
# (lrb_heads at quick scale: 6 runs, as `headroom-worker enqueue` would add).
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
echo PASS
